//! Browser tests of the mounted app (wasm-bindgen-test in headless Chromium; see
//! scripts/test.sh). Each test mounts its own copy of the app into a fresh `<div>` and queries
//! inside it. Leptos updates the DOM on the next microtask, hence `tick().await` after events.

#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use leptos::task::tick;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Mount the calculator for `query`, naming the default model when it names none (a link
/// without a model lands on the best-model view).
async fn mount(query: &str) -> Element {
    const MODEL: &str = "model=google/gemma-3-12b-it";
    if query.contains("model=") {
        mount_raw(query).await
    } else if query.is_empty() {
        mount_raw(MODEL).await
    } else {
        mount_raw(&format!("{query}&{MODEL}")).await
    }
}

/// Point the page at `query`, mount a fresh app, and return its container.
async fn mount_raw(query: &str) -> Element {
    // The page fetches its catalog before it mounts; the tests hand it over directly.
    fitcard_estimator::catalog::install(include_bytes!(
        "../crates/estimator/data/catalog.postcard"
    ))
    .expect("the catalog decodes");
    let w = window();
    let url = format!("{}?{query}", w.location().pathname().unwrap());
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .unwrap();
    let doc = document();
    let div = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&div).unwrap();
    let handle = leptos::mount::mount_to(div.clone().unchecked_into::<HtmlElement>(), fitcard::App);
    // Keep the app mounted for the rest of the test run.
    std::mem::forget(handle);
    tick().await;
    div
}

/// Wait (up to about 5 s) until `sel` matches under `root`: an import settles asynchronously.
async fn until(root: &Element, sel: &str) {
    for _ in 0..100 {
        if root.query_selector(sel).unwrap().is_some() {
            return;
        }
        sleep(50).await;
    }
}

/// Wait `ms` milliseconds.
async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

/// Wait until the frame after the next one has been produced: the views that follow the
/// estimate one frame late (the command, the legend, the lines under the verdict) are drawn.
async fn next_frame() {
    for _ in 0..2 {
        let p = js_sys::Promise::new(&mut |resolve, _| {
            window().request_animation_frame(&resolve).unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
        sleep(0).await;
    }
}

fn find(root: &Element, sel: &str) -> Element {
    root.query_selector(sel)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {sel}"))
}

fn text(root: &Element, sel: &str) -> String {
    find(root, sel).text_content().unwrap_or_default()
}

fn input(root: &Element, sel: &str) -> HtmlInputElement {
    find(root, sel).unchecked_into()
}

/// Set a range input and fire `input` as a user's drag would.
async fn slide(root: &Element, sel: &str, value: &str) {
    let el = input(root, sel);
    el.set_value(value);
    let init = EventInit::new();
    init.set_bubbles(true);
    el.dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    tick().await;
}

fn kv_width(root: &Element) -> f64 {
    find(root, "rect.seg[data-term=kv_cache]")
        .get_attribute("width")
        .unwrap()
        .parse()
        .unwrap()
}

#[wasm_bindgen_test]
async fn shows_a_verdict_the_bar_and_the_command() {
    let app = mount("").await;
    let v = text(&app, ".verdict-label");
    assert!(
        ["Fits", "Tight", "Does not fit"].contains(&v.as_str()),
        "{v}"
    );
    assert!(app.query_selector_all("rect.seg").unwrap().length() >= 2);
    assert!(!text(&app, "#command").is_empty());
    assert!(text(&app, ".units").contains("GiB"));
}

#[wasm_bindgen_test]
async fn moving_the_context_slider_changes_the_kv_segment() {
    let app = mount("ctx=8192").await;
    let before = kv_width(&app);
    let label_before = text(&app, "#ctx-value");
    slide(&app, "#ctx", "0").await;
    assert!(kv_width(&app) < before, "512 tokens need less KV than 8192");
    assert_ne!(text(&app, "#ctx-value"), label_before);
    assert!(text(&app, "#ctx-value").starts_with("512"));
}

#[wasm_bindgen_test]
async fn a_tick_draws_the_bar_at_once_and_the_command_one_frame_after() {
    let app = mount("ctx=8192").await;
    let before = kv_width(&app);
    assert!(
        text(&app, "#command").contains(" -c 8192"),
        "{}",
        text(&app, "#command")
    );
    slide(&app, "#ctx", "0").await;
    // The tick's own frame: the verdict and the bar only.
    assert!(kv_width(&app) < before);
    assert!(text(&app, "#command").contains(" -c 8192"));
    next_frame().await;
    let cmd = text(&app, "#command");
    assert!(cmd.contains(" -c 512") && !cmd.contains("8192"), "{cmd}");
}

#[wasm_bindgen_test]
async fn a_permalink_sets_the_controls() {
    let app = mount("ctx=4096&par=3&cards=2").await;
    assert_eq!(input(&app, "#par").value(), "3");
    assert_eq!(input(&app, "#cards").value(), "2");
    assert!(text(&app, "#ctx-value").contains("4096"));
    // One bar per card.
    assert_eq!(app.query_selector_all("g.card").unwrap().length(), 2);
}

/// A card added or removed is one group inserted into or removed from the bar's drawing: the
/// `<svg>` and the groups it keeps are the same elements (not rewritten), and the new group is
/// an SVG element inside the drawing, in card order.
#[wasm_bindgen_test]
async fn a_card_more_is_one_group_inserted_not_the_bar_rewritten() {
    let app = mount("ctx=4096&cards=1").await;
    let svg = find(&app, "svg.bar-svg");
    let first = find(&app, "g.card");
    for (cards, groups) in [("2", 2), ("3", 3), ("1", 1)] {
        slide(&app, "#cards", cards).await;
        assert!(
            svg.is_connected() && first.is_connected(),
            "{cards} cards: redrawn"
        );
        let all = app.query_selector_all("g.card").unwrap();
        assert_eq!(all.length(), groups);
        for k in 0..all.length() {
            let g: Element = all.item(k).unwrap().unchecked_into();
            assert_eq!(
                g.namespace_uri().as_deref(),
                Some("http://www.w3.org/2000/svg")
            );
            assert_eq!(
                g.get_attribute("data-card").as_deref(),
                Some(k.to_string().as_str())
            );
            assert!(
                g.parent_element().is_some_and(|p| p == svg),
                "group {k} outside the drawing"
            );
        }
    }
}

#[wasm_bindgen_test]
async fn a_bad_parameter_shows_a_dismissible_notice() {
    let app = mount("ctx=banana&par=2").await;
    assert!(text(&app, ".notice[data-key=ctx]").contains("banana"));
    assert_eq!(
        input(&app, "#par").value(),
        "2",
        "the good parameter is kept"
    );
    find(&app, ".notice[data-key=ctx] .dismiss")
        .unchecked_into::<HtmlElement>()
        .click();
    tick().await;
    assert!(app.query_selector(".notice").unwrap().is_none());
    assert!(!text(&app, ".verdict-label").is_empty());
}

#[wasm_bindgen_test]
async fn embed_mode_is_compact() {
    let app = mount("embed=1&par=2").await;
    assert!(app.query_selector(".embed").unwrap().is_some());
    assert!(
        app.query_selector("#family").unwrap().is_none(),
        "model fixed by the link"
    );
    for s in ["#quant", "#ctx", "#par", "#cards"] {
        find(&app, s);
    }
    let href = find(&app, "a.open-full").get_attribute("href").unwrap();
    assert!(href.starts_with('?') && !href.contains("embed"), "{href}");
    assert!(href.contains("par=2"));
}

fn seg_width(root: &Element, term: &str) -> f64 {
    find(root, &format!("rect.seg[data-term={term}]"))
        .get_attribute("width")
        .unwrap()
        .parse()
        .unwrap()
}

#[wasm_bindgen_test]
async fn train_mode_has_its_own_controls_and_terms() {
    let app = mount("mode=train&cards=2&bsz=2").await;
    for s in [
        "#method",
        "#optim",
        "#gc",
        "#bsz",
        "#seq",
        "#rank",
        "#target-q",
    ] {
        find(&app, s);
    }
    assert!(
        app.query_selector("#engine").unwrap().is_none(),
        "serve-only control hidden"
    );
    for term in ["weights", "optimizer", "activations", "cuda_overhead"] {
        find(&app, &format!("rect.seg[data-term={term}]"));
    }
    let before = seg_width(&app, "activations");
    slide(&app, "#bsz", "9").await;
    assert!(
        seg_width(&app, "activations") > before,
        "activations grow with the batch"
    );
    // The GPU pool: two cards listed, at least one picked; adding one lists three.
    assert_eq!(app.query_selector_all(".pool-list li").unwrap().length(), 2);
    assert!(app
        .query_selector(".pool-list li.picked")
        .unwrap()
        .is_some());
    find(&app, "#add-gpu")
        .unchecked_into::<HtmlElement>()
        .click();
    tick().await;
    assert_eq!(app.query_selector_all(".pool-list li").unwrap().length(), 3);
}

#[wasm_bindgen_test]
async fn the_model_slider_says_which_way_capability_runs() {
    let app = mount("model=google/gemma-3-12b-it").await;
    let n = fitcard_estimator::catalog()
        .family("gemma-3")
        .expect("gemma-3")
        .variants
        .len();
    let t = text(&app, "#variant-value");
    assert!(t.ends_with(&format!("2nd most capable of {n}")), "{t}");
    slide(&app, "#variant", &(n - 1).to_string()).await;
    assert!(text(&app, "#variant-value").ends_with(&format!("· most capable of {n}")));
    slide(&app, "#variant", "0").await;
    assert!(text(&app, "#variant-value").ends_with(&format!("least capable of {n}")));
}

#[wasm_bindgen_test]
async fn a_model_the_catalog_lacks_is_not_estimated_as_another() {
    let id = "meta-llama/Llama-3.1-70B-Instruct-Abliterated";
    assert!(fitcard_estimator::catalog().variant(id).is_none());
    let app = mount("model=meta-llama/Llama-3.1-70B-Instruct-Abliterated&ctx=4096").await;
    // The page tries to import it from the Hub first (no importer is served to this test, so
    // that fails), then says it is not available.
    until(&app, ".import-status.failed").await;
    let h = text(&app, ".unavailable h2");
    assert_eq!(
        h,
        "meta-llama/Llama-3.1-70B-Instruct-Abliterated: not available"
    );
    assert!(app.query_selector(".verdict-label").unwrap().is_none());
    assert!(!app.text_content().unwrap_or_default().contains("Gemma"));
    let first = find(&app, ".closest a");
    let offered = first.get_attribute("data-model").unwrap_or_default();
    assert!(
        offered.starts_with("meta-llama/Llama-3.") && offered.ends_with("-70B-Instruct"),
        "{offered}"
    );
    // The link keeps the rest of the configuration.
    let href = first.get_attribute("href").unwrap();
    assert!(href.contains(&format!("model={offered}")), "{href}");
    assert!(
        href.contains("ctx=4096") && !href.contains("embed"),
        "{href}"
    );

    let embed = mount("model=meta-llama/Llama-3.1-70B-Instruct-Abliterated&embed=1").await;
    until(&embed, ".import-status.failed").await;
    assert!(text(&embed, ".embed-model").ends_with(": not available"));
    assert!(!embed.text_content().unwrap_or_default().contains("Gemma"));
    assert!(embed.query_selector("rect.seg").unwrap().is_none());
    assert_eq!(
        find(&embed, ".closest a")
            .get_attribute("target")
            .as_deref(),
        Some("_blank")
    );
}

#[wasm_bindgen_test]
async fn a_refused_number_is_replaced_by_the_value_in_use() {
    let app = mount("vram=20").await;
    let vram = input(&app, "#vram");
    assert_eq!(vram.value(), "20");
    vram.set_value("0");
    let init = EventInit::new();
    init.set_bubbles(true);
    vram.dispatch_event(&Event::new_with_event_init_dict("change", &init).unwrap())
        .unwrap();
    tick().await;
    assert_eq!(
        vram.value(),
        "20",
        "the box shows the size the estimate uses"
    );
    assert!(text(&app, ".notice[data-key=vram]").contains('0'));
}

#[wasm_bindgen_test]
async fn the_speed_line_says_when_the_first_token_comes() {
    let app = mount("ctx=32768").await;
    let s = text(&app, ".verdict-box .speed");
    assert!(s.starts_with("≈ "), "{s}");
    assert!(s.contains(" · first token after ≈ "), "{s}");
    assert!(s.ends_with(" for a prompt of 32K"), "{s}");
}

#[wasm_bindgen_test]
async fn a_link_without_a_model_lands_on_the_best_model_view() {
    // The list itself is ranked in the importer (a worker this harness does not serve): its
    // rows, and a row opening the calculator, are held by the end-to-end suite.
    let app = mount_raw("gpu=rtx-4090&ctx=8192").await;
    assert!(app.query_selector(".verdict-label").unwrap().is_none());
    assert!(app.query_selector(".best-rows").unwrap().is_some());
    assert!(app.query_selector("#best-family").unwrap().is_some());
    // Train mode and the embed keep their calculator.
    let train = mount_raw("mode=train").await;
    assert!(train.query_selector(".verdict-label").unwrap().is_some());
    let embed = mount_raw("embed=1").await;
    assert!(embed.query_selector(".embed").unwrap().is_some());
}

/// Tick or untick a checkbox and fire `change`.
async fn check(root: &Element, sel: &str, on: bool) {
    let el = input(root, sel);
    el.set_checked(on);
    let init = EventInit::new();
    init.set_bubbles(true);
    el.dispatch_event(&Event::new_with_event_init_dict("change", &init).unwrap())
        .unwrap();
    tick().await;
}

#[wasm_bindgen_test]
async fn the_vision_projector_can_be_left_out() {
    // Gemma 3 12B's GGUF repo has a projector: llama.cpp budgets it unless told not to.
    let app = mount("").await;
    assert!(input(&app, "#mmproj").checked());
    let weights = seg_width(&app, "weights");
    assert!(!text(&app, "#command").contains("--no-mmproj"));
    check(&app, "#mmproj", false).await;
    next_frame().await;
    assert!(text(&app, "#command").contains(" --no-mmproj"));
    assert!(
        seg_width(&app, "weights") < weights,
        "the projector sits with the weights"
    );
    // Ollama runs Hugging Face GGUFs text only: no switch.
    let ollama = mount("engine=ollama").await;
    assert!(ollama.query_selector("#mmproj").unwrap().is_none());
}

#[wasm_bindgen_test]
async fn the_extras_are_built_when_opened_and_say_why_when_their_worker_is_missing() {
    // The fit and the frontier are computed in the importer worker (tested end to end against
    // the built site); here no worker script is served: each panel says so in one line.
    let app = mount("ctx=32768").await;
    for (panel, inside, out) in [
        ("details.calibrate", "#cal-points", ".cal-lines"),
        ("details.frontier", ".frontier-plot", ".frontier-plot"),
    ] {
        let details = find(&app, panel);
        assert!(
            app.query_selector(inside).unwrap().is_none(),
            "{panel}: built when opened"
        );
        details.set_attribute("open", "").unwrap();
        details
            .dispatch_event(&Event::new("toggle").unwrap())
            .unwrap();
        until(&app, inside).await;
        let mut said = String::new();
        for _ in 0..100 {
            said = text(&app, out);
            if said.contains("importer") {
                break;
            }
            sleep(50).await;
        }
        assert!(said.contains("importer"), "{panel}: {said}");
        assert!(!said.contains('\n'), "{panel}: one line: {said}");
    }
    assert!(app.query_selector(".verdict-label").unwrap().is_some());
}
