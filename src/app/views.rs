//! The views of the page: the full calculator, the best-model view, the compact embed, and
//! the page of a model the catalog lacks, with the header, footer and panels they share.

use super::state::{use_app, ImportState};
use crate::browser::dom;
use crate::components::best::{BestView, ModelSearch};
use crate::components::controls::Controls;
use crate::components::import_status::ImportStatus;
use crate::components::memory_bar::MemoryBar;
use crate::components::panels::calibrate::CalibratePanel;
use crate::components::panels::command::CommandPanel;
use crate::components::panels::frontier::FrontierPanel;
use crate::components::panels::notices::Notices;
use crate::components::panels::share::SharePanel;
use crate::components::ranking::Ranking;
use crate::components::verdict::{MiniVerdict, Verdict};
use crate::model::choices;
use crate::model::edit::Edit;
use crate::model::query;
use crate::text::share;
use fitcard_estimator::Mode;
use leptos::prelude::*;

/// The bar above either view of the full page: the model search, and the way to the other view.
#[component]
fn ViewNav(
    /// The best-model view is shown (the button leads to the calculator).
    best: bool,
) -> impl IntoView {
    let st = use_app();
    let (label, id) = if best {
        ("Open the calculator", "to-calculator")
    } else {
        ("Best for my card", "to-best")
    };
    view! {
        <nav class="view-nav" aria-label="Views">
            <ModelSearch />
            <button type="button" id=id class="to-view" on:click=move |_| st.edit(Edit::ShowBest(!best))>
                {label}
            </button>
        </nav>
    }
}

/// The best-model view of the full page.
#[component]
pub fn BestPage() -> impl IntoView {
    view! {
        <div class="page best-page">
            <Top />
            <ViewNav best=true />
            <Notices />
            <BestView />
            <Footer />
        </div>
    }
}

/// The page header of the full calculator.
#[component]
fn Top() -> impl IntoView {
    view! {
        <header class="top">
            <h1>"fitcard"</h1>
            <p class="tagline">
                "Will this LLM fit on your GPU? Pick a model, a format, a context and a card, to "
                "serve it or to fine-tune it; the estimate updates as you move the sliders. "
                "Computed entirely in your browser."
            </p>
            <p class="units">
                "Sizes are binary: 1 GiB = 2"<sup>"30"</sup>" bytes, 1 MiB = 2"<sup>"20"</sup>" bytes."
            </p>
        </header>
    }
}

/// How many catalog entries are offered in place of a missing model.
const CLOSEST: usize = 4;

/// The page (full or embed) when the link asks for a model the catalog lacks: it says so and
/// estimates nothing for another model; links to the closest catalog entries keep the rest of
/// the configuration (in the embed they open the full calculator).
#[component]
pub fn Unavailable(
    /// The compact view of an `<iframe>`.
    embed: bool,
) -> impl IntoView {
    let st = use_app();
    let (id, raw) = st
        .missing
        .with_untracked(|m| m.as_ref().map(|m| (m.id.clone(), m.raw.clone())))
        .unwrap_or_default();
    let inputs = st.inputs.get_untracked();
    let link = |model: &str| {
        let mut i = inputs.clone();
        i.model = model.to_string();
        i.best.on = false;
        share::full_query(&i)
    };
    let target = embed.then_some("_blank");
    let options = fitcard_estimator::catalog::closest(&id, CLOSEST)
        .into_iter()
        .map(|v| {
            view! {
                <li>
                    <a href=link(&v.id) target=target data-model=v.id.clone()>
                        {v.name.clone()}
                    </a>
                    " "
                    <span class="muted">{v.id.clone()}</span>
                </li>
            }
        })
        .collect_view();
    let shown = fitcard_estimator::inputs::clean(&id);
    dom::set_title(&format!("{shown}: not available · fitcard"));
    view! {
        <div class=if embed { "embed missing" } else { "page missing" }>
            {(!embed).then(|| view! { <Top /> })}
            <Notices />
            <section class="unavailable" role="alert" aria-labelledby="h-missing">
                <h2 id="h-missing" class="embed-model">
                    {move || match st.import.get() {
                        ImportState::Busy(_) => format!("{shown}: reading it from the Hugging Face Hub…"),
                        _ => format!("{shown}: not available"),
                    }}
                </h2>
                <ImportStatus />
                <p>
                    "This model is not in fitcard's catalog, so there is no estimate for it. "
                    "The closest models in the catalog, with the rest of this link:"
                </p>
                <ul class="closest">{options}</ul>
                {(!embed)
                    .then(|| {
                        view! {
                            <button
                                type="button"
                                id="to-best"
                                class="to-view"
                                on:click=move |_| {
                                    st.edit(Edit::ShowBest(true));
                                    st.missing.set(None);
                                }
                            >
                                "Best for my card"
                            </button>
                        }
                    })}
                {embed
                    .then(|| {
                        let full = query::with_raw_param(&link(&inputs.model), "model", &raw);
                        view! {
                            <a class="open-full" href=full target="_blank" rel="noopener">
                                "Open full calculator"
                            </a>
                        }
                    })}
            </section>
        </div>
    }
}

/// The full calculator.
#[component]
pub fn FullView() -> impl IntoView {
    view! {
        <div class="page">
            // For the keyboard: straight to the command, past the controls and the ranking.
            <a class="skip" href="#h-cmd">"Skip to the command"</a>
            <Top />
            <ViewNav best=false />
            <Notices />
            <main class="layout">
                <Panel class="controls-panel" heading_id="h-config" title="Configuration">
                    <MiniVerdict />
                    <Controls compact=false />
                </Panel>
                <Panel class="result-panel" heading_id="h-result" title="Estimate">
                    <Verdict />
                    <MemoryBar />
                    <FrontierPanel />
                </Panel>
                <Panel class="ranking-panel" heading_id="h-rank" title="Best fit in this family">
                    <Ranking />
                </Panel>
                <Panel class="command-panel" heading_id="h-cmd" title="Command">
                    <CommandPanel />
                    <CalibratePanel />
                </Panel>
                <Panel class="share-panel" heading_id="h-share" title="Share">
                    <SharePanel />
                </Panel>
            </main>
            <Footer />
        </div>
    }
}

/// The footer of the full page.
#[component]
fn Footer() -> impl IntoView {
    view! {
        <footer class="foot">
            <p>
                "Every number comes from the fitcard estimator: each term names its formula and its source. "
                "File sizes are looked up from the publishers; sizes marked * are computed from tensor shapes."
            </p>
            <p>
                <a href="method.html">"How every number is computed"</a>
                " · "
                <a href="accuracy.html">"How accurate it is: every published measurement against the estimate"</a>
            </p>
        </footer>
    }
}

/// One titled section of the full page.
#[component]
fn Panel(
    /// The panel's own class (it names its grid area).
    class: &'static str,
    /// Id of the heading, which labels the section.
    heading_id: &'static str,
    /// Visible heading.
    title: &'static str,
    /// The panel's content.
    children: Children,
) -> impl IntoView {
    view! {
        <section class=format!("panel {class}") aria-labelledby=heading_id>
            // Focusable from a link (the skip link), never by Tab.
            <h2 id=heading_id tabindex="-1">
                {title}
            </h2>
            {children()}
        </section>
    }
}

/// The compact view for `?embed=1`: the model is fixed by the link.
#[component]
pub fn EmbedView() -> impl IntoView {
    let st = use_app();
    let title = move || {
        st.inputs.with(|i| {
            let (_, v) = choices::family_of(&i.model);
            // The card(s) too: the embed has no GPU selector to read them from.
            let on = fitcard_estimator::badge::cards_words(i);
            match i.mode {
                Mode::Serve => format!("{} · {} on {on}", v.name, i.engine.label()),
                Mode::Train => {
                    format!("{} · fine-tuning ({}) on {on}", v.name, i.train.method.id())
                }
            }
        })
    };
    let full = move || st.inputs.with(share::full_query);
    view! {
        <div class="embed">
            <header class="embed-top">
                <strong class="embed-model">{title}</strong>
                <a class="open-full" href=full target="_blank" rel="noopener">
                    "Open full calculator"
                </a>
            </header>
            <Notices />
            <Controls compact=true />
            <Verdict />
            <MemoryBar />
            <p class="units">"Binary units: 1 GiB = 2"<sup>"30"</sup>" bytes."</p>
        </div>
    }
}
