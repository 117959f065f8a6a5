//! "Best model for my card" (`best=1`, the landing view of a link that names no model), the
//! model search and "Detect my GPU". The ranking across families is computed in the importer,
//! from the settled inputs, and only while this view is shown.

use super::controls::serve::{EngineField, ParSlider, ReserveField};
use super::controls::shared::{CardsSlider, GpuField};
use super::fields::{SelectField, ValueSlider};
use super::import_status::ImportStatus;
use crate::app::state::{use_app, AppState};
use crate::draw::search_options;
use crate::model::choices;
use crate::model::edit::Edit;
use crate::model::search::{self, Target};
use crate::model::snap;
use crate::worker::importer;
use fitcard_estimator::badge::xml_escape;
use fitcard_estimator::catalog::catalog;
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

/// The `<option>` value standing for "no filter".
const ANY: &str = "";

/// The least-context filter's choices (tokens).
const MIN_CTX: [u32; 5] = [8192, 32768, 131_072, 262_144, 1_048_576];

/// The best-model view: the cards and the serving settings, the filters, the ranked list.
#[component]
pub fn BestView() -> impl IntoView {
    // Memory kept free and the filters sit behind a disclosure (the first recommendation stays
    // on a phone's first screen), open when the link sets one of them.
    let set = use_app().inputs.with_untracked(|i| {
        let b = &i.best;
        i.reserve > 0.0
            || b.family.is_some()
            || b.license.is_some()
            || b.min_ctx.is_some()
            || b.reasoning.is_some()
    });
    view! {
        <main class="best-layout">
            <section class="panel best-controls" aria-labelledby="h-card">
                <h2 id="h-card">"Your card"</h2>
                <div class="controls">
                    <GpuField />
                    <DetectGpu />
                    <CardsSlider />
                    <EngineField />
                    <BestContext />
                    <ParSlider />
                    <details class="best-more" open=set>
                        <summary>"Keep free, filters"</summary>
                        <ReserveField />
                        <Filters />
                    </details>
                </div>
            </section>
            <section class="panel best-panel" aria-labelledby="h-best">
                <h2 id="h-best">"Best model for your card"</h2>
                <BestList />
            </section>
        </main>
    }
}

/// The context per request, over the longest context any catalog model reads.
#[component]
fn BestContext() -> impl IntoView {
    let st = use_app();
    let ctx = st.pick(|i| i.ctx);
    let top = catalog()
        .families
        .iter()
        .flat_map(|f| &f.variants)
        .map(|v| v.arch.max_ctx)
        .max()
        .unwrap_or(snap::MIN_CTX);
    let stops = snap::ctx_stops(top, &[]);
    view! {
        <ValueSlider
            id="ctx"
            label="Context per request"
            stops=stops
            value=ctx
            text=Signal::derive(move || format!("{} tokens", crate::text::share::tokens(ctx.get())))
            on_pick=Callback::new(move |c| st.edit(Edit::Ctx(c)))
        />
    }
}

/// Family, licence, least context and reasoning filters.
#[component]
fn Filters() -> impl IntoView {
    let st = use_app();
    // Read in place (no memo of the filters: each select keeps its own).
    let b = st.inputs;
    let any = || (ANY.to_string(), "any".to_string());
    let families = std::iter::once(any())
        .chain(
            catalog()
                .families
                .iter()
                .map(|f| (f.id.clone(), f.name.clone())),
        )
        .collect::<Vec<_>>();
    let licenses = std::iter::once(any())
        .chain(choices::licenses().into_iter().map(|l| (l.clone(), l)))
        .collect::<Vec<_>>();
    let ctxs = std::iter::once(any())
        .chain(MIN_CTX.iter().map(|c| {
            (
                c.to_string(),
                format!("{} tokens", crate::text::share::tokens(*c)),
            )
        }))
        .collect::<Vec<_>>();
    let reasoning = vec![
        any(),
        ("1".to_string(), "reasoning models".to_string()),
        ("0".to_string(), "not reasoning".to_string()),
    ];
    let opt = |s: String| (!s.is_empty()).then_some(s);
    view! {
        <fieldset class="filters">
            <legend>"Only"</legend>
            <SelectField
                id="best-family"
                label="Family"
                options=families
                selected=Signal::derive(move || b.with(|i| i.best.family.clone().unwrap_or_default()))
                on_change=Callback::new(move |v| st.edit(Edit::BestFamily(opt(v))))
            />
            <SelectField
                id="best-license"
                label="Licence"
                options=licenses
                selected=Signal::derive(move || b.with(|i| i.best.license.clone().unwrap_or_default()))
                on_change=Callback::new(move |v| st.edit(Edit::BestLicense(opt(v))))
            />
            <SelectField
                id="best-minctx"
                label="Reads at least"
                options=ctxs
                selected=Signal::derive(move || {
                    b.with(|i| i.best.min_ctx.map(|c| c.to_string()).unwrap_or_default())
                })
                on_change=Callback::new(move |v: String| st.edit(Edit::MinCtx(v.parse().ok())))
            />
            <SelectField
                id="best-reasoning"
                label="Reasoning"
                options=reasoning
                selected=Signal::derive(move || {
                    b.with(|i| i.best.reasoning.map(|r| if r { "1" } else { "0" }).unwrap_or(ANY).to_string())
                })
                on_change=Callback::new(move |v: String| {
                    st.edit(Edit::Reasoning(opt(v).map(|v| v == "1")))
                })
            />
        </fieldset>
    }
}

/// The ranked list, from the settled inputs (computed in the importer while this view is
/// mounted only, once per settled change). The list is written as one HTML string and a row's click is read on
/// the list (one handler instead of one per row: the rows change with every input).
#[component]
fn BestList() -> impl IntoView {
    let st = use_app();
    let html = RwSignal::new(String::from("<p class=\"hint\">Ranking every model…</p>"));
    // Ranked in the importer (it estimates every catalog variant: long for the main thread);
    // only the answer to the latest query is written.
    let asked = StoredValue::new(0u32);
    Effect::new(move |_| {
        let q = st.query.get();
        let n = asked.get_value().wrapping_add(1);
        asked.set_value(n);
        leptos::task::spawn_local(async move {
            let h = importer::best(&q)
                .await
                .unwrap_or_else(|m| format!("<p class=\"hint\">{}</p>", xml_escape(&m)));
            if asked.get_value() == n {
                html.set(h);
            }
        });
    });
    let open = move |ev: web_sys::MouseEvent| {
        let Some(row) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("li[data-model]").ok().flatten())
        else {
            return;
        };
        if let Some(model) = row.get_attribute("data-model") {
            let quant = row.get_attribute("data-quant").and_then(|q| q.parse().ok());
            st.edit(Edit::Open { model, quant });
            // The row is gone with the view: the keyboard lands on the estimate's heading.
            crate::browser::dom::keep_focus(vec!["h-result".into()]);
        }
    };
    view! { <div class="best-rows" on:click=open inner_html=move || html.get()></div> }
}

/// How many suggestions the search lists.
const SUGGESTIONS: usize = 8;

/// Type-ahead over the catalog (ARIA combobox with a list box): arrows move, Enter opens,
/// Escape closes the list (then clears the text). A Hub address or `org/name` the catalog
/// lacks shows the page's "not available" view.
#[component]
pub fn ModelSearch() -> impl IntoView {
    let st = use_app();
    let s = Search::new(st);
    let (text, active) = (s.text, s.active);
    // The options as one HTML string (at most eight, rewritten when the text or the active
    // one changes); a press on one is read on the list.
    let options = move || {
        let a = active.get();
        s.hits.with(|h| search_options::options_html(h, a))
    };
    view! {
        <div class="search">
            <label for="model-search">"Find a model"</label>
            <input
                id="model-search"
                type="search"
                role="combobox"
                autocomplete="off"
                spellcheck="false"
                placeholder="name, or any Hugging Face repo: org/name or its link"
                aria-autocomplete="list"
                aria-controls="model-search-list"
                aria-expanded=move || if s.expanded() { "true" } else { "false" }
                aria-activedescendant=move || active.get().map(|k| format!("search-opt-{k}"))
                prop:value=move || text.get()
                on:input=move |ev| s.typed(event_target_value(&ev))
                on:keydown=move |ev| s.key(ev)
                on:blur=move |_| s.open.set(false)
            />
            <ul
                id="model-search-list"
                role="listbox"
                aria-label="Catalog models"
                hidden=move || !s.expanded()
                on:mousedown=move |ev| s.press(ev)
                inner_html=options
            ></ul>
            <p class="search-msg" role="status">{move || s.message.get()}</p>
            <label class="pick">
                "or read a model file on your disk, picked or dropped on the page (headers only, nothing is uploaded): "
                <input
                    type="file"
                    id="model-file"
                    multiple
                    accept=".gguf,.safetensors,.json"
                    on:change=move |ev| pick_files(st, &ev)
                />
            </label>
            <ImportStatus />
        </div>
    }
}

/// The model search's state: the text typed, the suggestion the arrow keys are on, whether the
/// list is open, the line under the box, and the repo ids suggested (names are looked up when
/// shown).
#[derive(Clone, Copy)]
struct Search {
    st: AppState,
    text: RwSignal<String>,
    active: RwSignal<Option<usize>>,
    open: RwSignal<bool>,
    message: RwSignal<String>,
    hits: Memo<Vec<String>>,
}

impl Search {
    fn new(st: AppState) -> Self {
        let text = RwSignal::new(String::new());
        Search {
            st,
            text,
            active: RwSignal::new(None),
            open: RwSignal::new(false),
            message: RwSignal::new(String::new()),
            hits: Memo::new(move |_| {
                text.with(|t| {
                    search::suggest(t, SUGGESTIONS)
                        .into_iter()
                        .map(|h| h.model)
                        .collect::<Vec<String>>()
                })
            }),
        }
    }

    /// Is the list shown?
    fn expanded(self) -> bool {
        self.open.get() && self.hits.with(|h| !h.is_empty())
    }

    /// A new text: the list opens on its suggestions, none of them active.
    fn typed(self, t: String) {
        self.text.set(t);
        self.active.set(None);
        self.open.set(true);
        self.message.set(String::new());
    }

    /// Open the catalog variant `model` in the calculator.
    fn choose(self, model: String) {
        self.open.set(false);
        self.text.set(String::new());
        self.message.set(String::new());
        self.st.edit(Edit::Open { model, quant: None });
    }

    /// Enter: the active suggestion, else what the text names (a catalog variant, or a Hub
    /// repo the catalog lacks, read from the Hub), else the first suggestion; or why none.
    fn submit(self) {
        let hits = self.hits;
        if let Some(m) = self
            .active
            .get()
            .and_then(|k| hits.with(|h| h.get(k).cloned()))
        {
            return self.choose(m);
        }
        let t = self.text.get();
        match search::target(&t) {
            Some(Target::Catalog(m)) => self.choose(m),
            // A Hub repo the catalog lacks: read it from the Hub (the import's status line
            // says how it goes).
            Some(Target::Hub(_)) => match crate::model::hub::parse_target(&t) {
                Ok(target) => {
                    self.open.set(false);
                    self.message.set(String::new());
                    self.st.start_import(target);
                }
                Err(m) => self.message.set(m),
            },
            None => match hits.with(|h| h.first().cloned()) {
                Some(m) => self.choose(m),
                None if t.trim().is_empty() => {}
                None => self.message.set(format!(
                    "No catalog model matches “{}”.",
                    t.trim().chars().take(60).collect::<String>()
                )),
            },
        }
    }

    /// The keys of a combobox: the arrows move through the suggestions, Enter chooses, Escape
    /// closes the list, then clears the text.
    fn key(self, ev: web_sys::KeyboardEvent) {
        let n = self.hits.with(Vec::len);
        let (open, active) = (self.open, self.active);
        match ev.key().as_str() {
            "ArrowDown" if n > 0 => {
                ev.prevent_default();
                open.set(true);
                active.update(|a| *a = Some(a.map_or(0, |k| (k + 1) % n)));
            }
            "ArrowUp" if n > 0 => {
                ev.prevent_default();
                open.set(true);
                active.update(|a| *a = Some(a.map_or(n - 1, |k| (k + n - 1) % n)));
            }
            "Enter" => {
                ev.prevent_default();
                self.submit();
            }
            "Escape" => {
                if self.expanded() {
                    open.set(false);
                    active.set(None);
                } else {
                    self.text.set(String::new());
                    self.message.set(String::new());
                }
            }
            _ => {}
        }
    }

    /// A press on a suggestion (read on the list) chooses it.
    fn press(self, ev: web_sys::MouseEvent) {
        ev.prevent_default();
        let model = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("[data-model]").ok().flatten())
            .and_then(|e| e.get_attribute("data-model"));
        if let Some(m) = model {
            self.choose(m);
        }
    }
}

/// The files picked on the disk are read (the box is emptied, so that the same file can be
/// picked again).
fn pick_files(st: AppState, ev: &leptos::ev::Event) {
    let el = event_target::<web_sys::HtmlInputElement>(ev);
    let files: Vec<web_sys::File> = el
        .files()
        .map(|l| (0..l.length()).filter_map(|k| l.get(k)).collect())
        .unwrap_or_default();
    el.set_value("");
    if !files.is_empty() {
        st.start_disk(files);
    }
}

/// "Detect my GPU": on a click only, read the browser's renderer string and choose the
/// catalog card it names (matched in the importer, `model::detect`); say what was read either
/// way.
#[component]
fn DetectGpu() -> impl IntoView {
    let st = use_app();
    let said = RwSignal::new(String::new());
    let report = move |read: Option<String>| async move {
        let Some(r) = read else {
            return "The browser does not say which GPU it has; choose it from the list.".into();
        };
        let shown: String = r.chars().take(160).collect();
        match crate::worker::importer::detect_gpu(&r).await {
            Ok(Some(id)) => {
                let name = catalog().gpu(&id).map_or(id.clone(), |g| g.name.clone());
                st.edit(Edit::Gpu(Some(id)));
                format!("read: {shown} → {name}")
            }
            Ok(None) => format!("read: {shown}: no catalog GPU matches; the list is unchanged"),
            Err(e) => format!("read: {shown}: {e}"),
        }
    };
    // The browser's answer comes from a few lines of script in index.html
    // (`window.fitcardGpu`: WebGL's renderer string, else WebGPU's adapter info).
    let click = move |_| {
        wasm_bindgen_futures::spawn_local(async move {
            let read = async {
                let w: JsValue = web_sys::window()?.into();
                let f = js_sys::Reflect::get(&w, &"fitcardGpu".into())
                    .ok()?
                    .dyn_into::<js_sys::Function>()
                    .ok()?;
                let p = f.call0(&w).ok()?.dyn_into::<js_sys::Promise>().ok()?;
                wasm_bindgen_futures::JsFuture::from(p)
                    .await
                    .ok()?
                    .as_string()
            };
            said.set(report(read.await).await)
        })
    };
    view! {
        <div class="detect">
            <button type="button" id="detect-gpu" on:click=click>
                "Detect my GPU"
            </button>
            <span class="detect-msg" role="status">{move || said.get()}</span>
        </div>
    }
}
