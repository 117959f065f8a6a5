//! The application shell: one input signal, memos for everything derived, one effect that
//! writes the URL, and the full or compact (embed) layout.

use self::state::{AppState, SETTLE};
use self::views::{BestPage, EmbedView, FullView, Unavailable};
use crate::browser::{boot, dom};
use crate::model::hub;
use crate::model::query;
use crate::text::share;
use fitcard_estimator::inputs::{Key, NoticeKey};
use leptos::prelude::*;

pub mod state;
mod views;

/// Fetch what the first estimate needs of the catalog, then mount the calculator (which reads
/// the rest, [`load_whole`]); on failure say why in the placeholder.
pub fn start() {
    // A link with speculative decoding (a method, a draft model, rollback states), serve-time adapters,
    // other models on the cards or images is estimated by the whole calculator: this page reads
    // none of their keys.
    let q = dom::query();
    let whole = (cfg!(not(feature = "spec"))
        && ["draft", "rsseq", "spec", "ndraft"]
            .iter()
            .any(|k| query::raw_param(&q, k).is_some()))
        // vLLM's experts in RAM: the first load has no rule for a checkpoint's experts.
        || (cfg!(not(feature = "cpu-moe"))
            && query::raw_param(&q, "ncmoe").is_some()
            && query::raw_param(&q, "engine") == Some("vllm"))
        || (cfg!(not(feature = "extras"))
            && ["loras", "with", "images"]
                .iter()
                .any(|k| query::raw_param(&q, k).is_some()));
    if whole {
        dom::remove_placeholder();
        dom::load_full();
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        match boot::load_first(&q).await {
            // The frame that shows the early drawing first, then the calculator: a task after
            // the frame after it, once that frame has been presented.
            Ok(()) if draw_early(&q) => request_animation_frame(|| {
                request_animation_frame(|| set_timeout(mount, std::time::Duration::ZERO))
            }),
            Ok(()) => mount(),
            Err(msg) => dom::boot_failed(&msg),
        }
    });
}

/// A calculator link's first estimate, its verdict and bar, drawn into the placeholder's
/// estimate panel as soon as the catalog is read, by the views' own renderers (`draw/`), and
/// painted before the calculator mounts and takes the placeholder's place: the mount itself
/// (its views built, their wasm compiled on first call) took ~170 ms at 4x CPU after the wasm
/// arrived, in tests/e2e/bench.mjs's first estimate. Only what the first mount shows there: a
/// serve-mode link to a model the catalog holds, not the embed or the best-model view. The
/// placeholder stays hidden from assistive technology (index.html): the calculator is read out.
fn draw_early(q: &str) -> bool {
    use crate::draw::{bar_svg, verdict_html};
    let (i, _, missing) = state::first_inputs(q);
    // A link without a model opens the best-model view (`best.on`).
    if missing.is_some() || i.embed || i.best.on || i.mode != fitcard_estimator::Mode::Serve {
        return false;
    }
    let Some(panel) = dom::boot_panel("result-panel") else {
        return false;
    };
    let e = fitcard_estimator::estimate(&i);
    let banner = verdict_html::Banner::new(&e, &i, crate::text::summary::verdict_line(&e));
    panel.set_inner_html(&format!(
        r#"<h2>Estimate</h2><div class="verdict-box">{}</div><figure class="bar"><div class="bar-plot"></div></figure>"#,
        banner.markup()
    ));
    // The bar at its figure's width, as the calculator draws it.
    if let (Ok(Some(figure)), Ok(Some(plot))) = (
        panel.query_selector(".bar"),
        panel.query_selector(".bar-plot"),
    ) {
        let w = f64::from(figure.client_width());
        let w = if w > 0.0 { w } else { bar_svg::DEFAULT_WIDTH };
        plot.set_inner_html(&bar_svg::markup(&bar_svg::drawing(&e, w)));
    }
    true
}

/// With only the link's family installed, the whole catalog is read after the first estimate:
/// the family list then holds every family (the search reads the catalog as it types). A
/// failure is one notice; the page keeps estimating the family it has.
fn load_whole(st: AppState) {
    if fitcard_estimator::catalog::is_whole() {
        return;
    }
    leptos::task::spawn_local(async move {
        match boot::load_catalog().await {
            Ok(()) => st.whole.set(true),
            Err(m) => st.notices.update(|v| {
                v.push(fitcard_estimator::Notice {
                    key: NoticeKey::Summary,
                    message: format!("only this model's family is available: {m}"),
                })
            }),
        }
    });
}

thread_local! {
    /// The mounted calculator: dropping it unmounts it (the page without train mode does, when
    /// it hands over to the whole calculator).
    static MOUNTED: std::cell::RefCell<Option<Box<dyn std::any::Any>>> =
        const { std::cell::RefCell::new(None) };
}

/// Mount the calculator on `<body>`, replacing the static placeholder of `index.html`.
pub fn mount() {
    dom::remove_placeholder();
    let handle = leptos::mount::mount_to(leptos::prelude::document().body().expect("a body"), App);
    MOUNTED.with(|m| *m.borrow_mut() = Some(Box::new(handle)));
    dom::restore_focus();
}

/// The page built without train mode (what a serve-mode first estimate downloads) hands the page
/// over to the whole calculator (`fitcard-full`, fetched now) when train mode is asked for: the
/// link is written first, this calculator unmounted, and the whole one mounts from the link.
fn hand_over(st: AppState) {
    dom::replace_query(&st.inputs.with_untracked(fitcard_estimator::encode));
    dom::remember_focus();
    dom::hand_notices(st.notices.with_untracked(|n| {
        n.iter()
            .map(|n| format!("{}\t{}\n", n.key, n.message))
            .collect()
    }));
    // After this render: unmounting disposes the view that asked. Once only (the whole
    // calculator starts once).
    set_timeout(
        || {
            if MOUNTED.with(|m| m.borrow_mut().take()).is_some() {
                dom::load_full();
            }
        },
        std::time::Duration::ZERO,
    );
}

/// The calculator. Reads its configuration from the URL once, then keeps the URL in step.
#[component]
pub fn App() -> impl IntoView {
    let st = AppState::new(&dom::query());
    provide_context(st);
    // The notices of the page that handed over (only the whole calculator is handed to).
    #[cfg(feature = "train")]
    if let Some(lines) = dom::take_notices() {
        st.notices.update(|v| {
            v.extend(
                lines
                    .lines()
                    .filter_map(|l| l.split_once('\t'))
                    .map(|(k, m)| fitcard_estimator::Notice {
                        // The summary's key is written empty (`NoticeKey::as_str`).
                        key: if k.is_empty() {
                            NoticeKey::Summary
                        } else {
                            NoticeKey::of(k)
                        },
                        message: m.into(),
                    }),
            );
        });
    }
    st.follow_later();
    let embed = st.inputs.with_untracked(|i| i.embed);
    settle_inputs(st);
    follow_url(st);
    if embed {
        dom::report_height();
    }
    import_missing(st);
    compute_missing(st);
    load_whole(st);
    let shown = view_of(st, embed);
    move || match shown.get() & VIEW {
        HAND_OVER => {
            hand_over(st);
            view! { <p class="boot-status" role="status">"Loading the whole calculator…"</p> }
                .into_any()
        }
        MISSING => view! { <Unavailable embed=embed /> }.into_any(),
        EMBED => view! { <EmbedView /> }.into_any(),
        BEST => view! { <BestPage /> }.into_any(),
        _ => view! { <FullView /> }.into_any(),
    }
}

/// The inputs settle once the controls have been still for [`SETTLE`]; the ranking follows
/// them, and the permalink is written then ([`follow_url`]).
fn settle_inputs(st: AppState) {
    let pending = StoredValue::new(None::<TimeoutHandle>);
    // A pending update still waiting when the app is unmounted is dropped with it.
    on_cleanup(move || {
        if let Some(h) = pending.try_get_value().flatten() {
            h.clear();
        }
    });
    Effect::new(move |first: Option<()>| {
        st.inputs.track();
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        if first.is_some() {
            let settle = move || st.settled.set(st.inputs.get_untracked());
            pending.set_value(set_timeout_with_handle(settle, SETTLE).ok());
        }
    });
}

/// The permalink of the settled inputs replaces the history entry, and the tab title follows
/// the configuration and its verdict. A requested model the catalog lacks stays in the link
/// until another one is chosen (its page titles itself).
fn follow_url(st: AppState) {
    Effect::new(move |_| {
        let q = st.query.get();
        experts_on_demand(st);
        let q = match st.missing.with(|m| m.as_ref().map(|m| m.raw.clone())) {
            Some(raw) => query::with_raw_param(&q, "model", &raw),
            None => {
                let t = st
                    .est
                    .with_untracked(|e| st.inputs.with_untracked(|i| share::title(e, i)));
                dom::set_title(&t);
                q
            }
        };
        dom::replace_query(&q);
    });
}

/// A format the link names (`quant=`) that the catalog lacks for its model is computed by the
/// size rule in the importer on load (the first estimate shows the fallback meanwhile).
fn compute_missing(st: AppState) {
    if st.missing.with_untracked(Option::is_some) {
        return;
    }
    let link = dom::query();
    let Some(raw) = query::raw_param(&link, "quant") else {
        return;
    };
    let Ok(q) = query::percent_decode(raw)
        .trim()
        .parse::<fitcard_estimator::Quant>()
    else {
        return;
    };
    let (model, shown) = st.inputs.with_untracked(|i| (i.model.clone(), i.quant));
    if shown != q {
        st.start_computed(model, q);
    }
}

/// `ncmoe=` on the page built without the experts' size rule: each layer's routed-expert bytes
/// of the model and format shown are computed in the importer, once per pair, when the inputs
/// settle (from [`follow_url`]); the estimate counts them from then on (until then the experts
/// stay on the card). A failure is a notice.
#[inline(never)]
fn experts_on_demand(st: AppState) {
    use fitcard_estimator::catalog;
    thread_local! {
        static ASKED: std::cell::RefCell<Vec<(String, fitcard_estimator::Quant)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    // Not given yet: the estimate moved no experts and says so (a model without experts has
    // no `ncmoe=` after the inputs are checked).
    let pending = st.est.with_untracked(|e| {
        e.offload
            .is_some_and(|o| o.expert_layers == 0 && !o.experts_exact)
    });
    let Some(key) = st
        .settled
        .with_untracked(|i| (pending && i.ncmoe.is_some()).then(|| (i.model.clone(), i.quant)))
    else {
        return;
    };
    if ASKED.with(|a| a.borrow().contains(&key)) {
        return;
    }
    ASKED.with(|a| a.borrow_mut().push(key.clone()));
    let query = st.query.get_untracked();
    leptos::task::spawn_local(async move {
        let (model, quant) = key;
        let got = crate::worker::importer::lines("experts", &query)
            .await
            .and_then(|t| {
                catalog::layer_experts_from_text(&t)
                    .ok_or_else(|| "the importer sent no experts' bytes".to_string())
            });
        match got {
            Ok((layers, exact)) => {
                catalog::install_layer_experts(&model, quant, layers, exact);
                // Estimated again with them.
                st.inputs.update(|_| {});
            }
            Err(m) => st.notices.update(|v| {
                v.push(fitcard_estimator::Notice {
                    key: Key::Ncmoe.into(),
                    message: format!("the experts kept in system RAM could not be sized: {m}"),
                })
            }),
        }
    });
}

/// A model the link names and the catalog lacks is imported from the Hub on load.
fn import_missing(st: AppState) {
    if let Some(id) = st
        .missing
        .with_untracked(|m| m.as_ref().map(|m| m.id.clone()))
    {
        if hub::is_repo_id(&id) {
            st.inputs.with_untracked(|i| {
                st.start_import(hub::Target {
                    repo: id,
                    rev: i.rev.clone(),
                    file: i.file.clone(),
                    dir: None,
                })
            });
        }
    }
}

/// Is the model of `i` an embedding or reranking model (`catalog::family_task`: a family's
/// `task`, or what its files say)? The first load estimates none: it hands them over to the
/// whole calculator (their compute buffers' rules are not in its download).
fn task_model(i: &fitcard_estimator::Inputs) -> bool {
    let v = fitcard_estimator::catalog::catalog().variant(&i.model);
    v.is_some_and(|(f, v)| fitcard_estimator::catalog::family_task(f, v).is_some())
}

/// Which view: the hand-over to train mode (in the page built without it), the missing model,
/// the embed, the best-model view or the calculator. Only a change of view rebuilds the page.
///
/// Each import counts in the value too (above the view's three bits): the view is rebuilt after
/// it, so that every part drawn from the catalog (the family select, the variant slider) holds
/// the import, even one that took the place of a catalog entry of the same id.
fn view_of(st: AppState, embed: bool) -> Memo<u32> {
    Memo::new(move |_| {
        let g = st.generation.get() << 3;
        let train = st.mode.get() == fitcard_estimator::Mode::Train;
        g | if (cfg!(not(feature = "train")) && train)
            || (cfg!(not(feature = "extras")) && (st.more.get() || st.inputs.with(task_model)))
        {
            HAND_OVER
        } else if st.missing.with(Option::is_some) {
            MISSING
        } else if embed {
            EMBED
        } else if st.inputs.with(|i| i.best.on) {
            BEST
        } else {
            CALCULATOR
        }
    })
}

// The views of the page (a plain number: the memo of it shares its code with the others').
const MISSING: u32 = 0;
const EMBED: u32 = 1;
const BEST: u32 = 2;
const CALCULATOR: u32 = 3;
const HAND_OVER: u32 = 4;
/// The view's bits of [`view_of`]'s value.
const VIEW: u32 = 7;
