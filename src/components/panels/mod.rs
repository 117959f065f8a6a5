//! Notices, the command panel, and sharing (permalink, embed snippet, model-card badge), with
//! copy buttons.

use super::fields::Disclosure;
use crate::app::state::use_app;
use crate::browser::dom;
use crate::model::edit::Edit;
use crate::text::share;
use fitcard_estimator::{badge, Engine};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// What a copy button last did.
#[derive(Clone, Copy, PartialEq)]
enum Copied {
    Idle,
    Done,
    Refused,
}

/// A button that copies `text` to the clipboard and says whether it worked.
#[component]
pub fn CopyButton(
    /// Element id (for tests and labels).
    id: &'static str,
    /// Button text.
    label: &'static str,
    /// The text to copy, read when clicked.
    #[prop(into)]
    text: Signal<String>,
) -> impl IntoView {
    let status = RwSignal::new(Copied::Idle);
    let click = move |_| {
        let t = text.get_untracked();
        spawn_local(async move {
            let ok = dom::copy(t).await;
            status.set(if ok { Copied::Done } else { Copied::Refused });
        });
    };
    view! {
        <button type="button" id=id class="copy" on:click=click>
            {label}
        </button>
        <span class="copy-status" role="status">
            {move || match status.get() {
                Copied::Idle => "",
                Copied::Done => "Copied.",
                Copied::Refused => "The browser refused: select the text and copy it by hand.",
            }}
        </span>
    }
}

/// Where the focus goes when the last notice is dismissed: the first control of the full page,
/// or of the embed.
const FIRST_CONTROLS: [&str; 2] = ["family", "quant"];

/// Parameters that were refused or adjusted, each dismissible.
#[component]
pub fn Notices() -> impl IntoView {
    let st = use_app();
    let notices = st.notices;
    view! {
        <Show when=move || notices.with(|n| !n.is_empty())>
            <div class="notices" role="alert">
                <ul>
                    {move || {
                        notices
                            .get()
                            .into_iter()
                            .enumerate()
                            .map(|(k, n)| {
                                view! {
                                    <li class="notice" data-key=n.key.clone()>
                                        <span>
                                            <code>{n.key.clone()}</code>
                                            ": "
                                            {n.message.clone()}
                                        </span>
                                        <button
                                            type="button"
                                            class="dismiss"
                                            id=format!("dismiss-{k}")
                                            aria-label=format!("Dismiss the notice about {}", n.key)
                                            on:click=move |_| {
                                                notices
                                                    .update(|v| {
                                                        if k < v.len() {
                                                            v.remove(k);
                                                        }
                                                    });
                                                // The next notice's button, else the previous
                                                // one, else the first control.
                                                let mut ids = vec![format!("dismiss-{k}")];
                                                if k > 0 {
                                                    ids.push(format!("dismiss-{}", k - 1));
                                                }
                                                ids.extend(FIRST_CONTROLS.map(String::from));
                                                dom::keep_focus(ids);
                                            }
                                        >
                                            "×"
                                        </button>
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
                <button
                    type="button"
                    class="dismiss-all"
                    on:click=move |_| {
                        notices.set(Vec::new());
                        dom::keep_focus(FIRST_CONTROLS.map(String::from).to_vec());
                    }
                >
                    "Dismiss all"
                </button>
            </div>
        </Show>
    }
}

/// The command that starts this configuration, with a copy button; and the same plan on every
/// engine that loads this file, side by side, each with the memory it was planned for (built
/// only while it is open).
#[component]
pub fn CommandPanel() -> impl IntoView {
    let st = use_app();
    let cmd = Signal::derive(move || st.est.with(|e| e.command.clone()));
    let others = Signal::derive(move || {
        st.est.with(|e| {
            format!(
                "This plan on every engine that loads this file ({})",
                e.commands.len()
            )
        })
    });
    view! {
        <pre class="command" id="command"><code>{move || cmd.get()}</code></pre>
        <CopyButton id="copy-command" label="Copy command" text=cmd />
        <Disclosure
            class="engines"
            summary=others
            hidden=Signal::derive(move || st.est.with(|e| e.commands.len() < 2))
        >
            <ul class="engine-commands">
                <EngineCommands />
            </ul>
        </Disclosure>
    }
}

/// Every engine's command for the plan, with the bytes on its fullest card and whether it fits.
#[component]
fn EngineCommands() -> impl IntoView {
    let est = use_app().est;
    move || {
        est.with(|e| {
            e.commands
                .iter()
                .map(|c| {
                    let label = c.engine.parse::<Engine>().map_or(c.engine, Engine::label);
                    let (chip, verdict) = if c.fits {
                        ("chip v-fits", "fits")
                    } else {
                        ("chip v-nofit", "does not fit")
                    };
                    view! {
                        <li data-engine=c.engine>
                            <strong>{label}</strong>
                            " "
                            <span class=chip>{verdict}</span>
                            " "
                            <span class="num muted">
                                {format!("{} on the fullest card", c.device_bytes)}
                            </span>
                            <pre class="command"><code>{c.command.clone()}</code></pre>
                        </li>
                    }
                })
                .collect_view()
        })
    }
}

/// A button that shows or hides the box it controls.
fn toggle(
    id: &'static str,
    controls: &'static str,
    label: &'static str,
    shown: RwSignal<bool>,
) -> impl IntoView {
    view! {
        <button
            type="button"
            id=id
            aria-expanded=move || shown.get().to_string()
            aria-controls=controls
            on:click=move |_| shown.update(|s| *s = !*s)
        >
            {label}
        </button>
    }
}

/// Text to paste elsewhere: what it is, the text in a read-only box, a copy button, and what
/// goes with it (`children`).
#[component]
fn Snippet(
    /// Id of the text box; the label points at it.
    id: &'static str,
    /// Id of the copy button.
    copy_id: &'static str,
    /// What the text is for.
    label: &'static str,
    /// Lines of the box.
    rows: u32,
    /// The text.
    #[prop(into)]
    text: Signal<String>,
    /// Shown under the box.
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    view! {
        <div class="embed-box">
            <label for=id>{label}</label>
            <textarea id=id readonly rows=rows prop:value=move || text.get()></textarea>
            <div class="row">
                <CopyButton id=copy_id label="Copy snippet" text=text />
                {children.map(|c| c())}
            </div>
        </div>
    }
}

/// Permalink, embed snippet, and a badge for a model card.
#[component]
pub fn SharePanel() -> impl IntoView {
    let st = use_app();
    let link = Signal::derive(move || format!("{}?{}", dom::page_url(), st.query.get()));
    let snippet = Signal::derive(move || {
        st.inputs
            .with(|i| share::iframe_snippet(&dom::page_url(), i))
    });
    let (show_embed, show_badge) = (RwSignal::new(false), RwSignal::new(false));
    // The badge as a self-contained SVG (a data: URL to download) and the Markdown that shows
    // it in a model card, linked to this configuration.
    let badge = Signal::derive(move || {
        let svg = st.est.with(|e| st.inputs.with(|i| badge::svg(e, i)));
        format!(
            "data:image/svg+xml;charset=utf-8,{}",
            js_sys::encode_uri_component(&svg)
        )
    });
    let markdown = Signal::derive(move || format!("[![fitcard](badge.svg)]({})", link.get()));
    view! {
        <p class="hint">
            "The address bar always holds the whole configuration: bookmark it or share it."
        </p>
        <div class="row">
            <CopyButton id="copy-link" label="Copy link" text=link />
            {toggle("embed-button", "embed-snippet", "Embed", show_embed)}
            {toggle("badge-button", "badge-snippet", "Badge", show_badge)}
        </div>
        <Show when=move || show_embed.get()>
            <Snippet
                id="embed-snippet"
                copy_id="copy-embed"
                label="Paste this into a page: a compact calculator for this model that resizes itself."
                rows=5
                text=snippet
            />
        </Show>
        <Show when=move || show_badge.get()>
            <Snippet
                id="badge-snippet"
                copy_id="copy-badge"
                label="For a model card (Markdown): commit the badge beside it as badge.svg."
                rows=3
                text=markdown
            >
                <a id="badge-download" href=badge download="badge.svg">
                    "Download badge.svg"
                </a>
            </Snippet>
        </Show>
    }
}

/// Calibration with the visitor's own readings (built only while open): `context:GiB` lines
/// fitted by the estimator, the result in lines, a button that applies the measured global-layer
/// count (`gl=`), and the measuring loop for this engine and model.
#[component]
pub fn CalibratePanel() -> impl IntoView {
    let st = use_app();
    view! {
        <Disclosure
            class="calibrate"
            summary="Calibrate with your own measurements"
            hidden=Signal::derive(move || st.mode.get() == fitcard_estimator::Mode::Train)
        >
            <Calibrate />
        </Disclosure>
    }
}

/// The calibration panel's content. The fit is computed in the importer (its code stays out of
/// the calculator's first transfer): each edit of the readings or of the configuration asks
/// it again; answers come back in the order asked.
#[component]
fn Calibrate() -> impl IntoView {
    let st = use_app();
    let text = RwSignal::new(String::new());
    let fit = RwSignal::new(String::new());
    let gl = RwSignal::new(None::<f64>);
    let how = RwSignal::new(String::new());
    Effect::new(move |_| {
        let (q, t) = (st.query.get(), text.get());
        leptos::task::spawn_local(async move {
            match crate::worker::importer::calibrate(&q, &t).await {
                Ok((f, g, h)) => {
                    fit.set(f);
                    gl.set(g);
                    how.set(h);
                }
                Err(m) => {
                    fit.set(m);
                    gl.set(None);
                }
            }
        });
    });
    view! {
        <label for="cal-points">
            "Readings at concurrency 1, one context:GiB a line (as fitcard measure takes them)"
        </label>
        <textarea
            id="cal-points"
            rows=5
            placeholder="8192:10.75"
            prop:value=move || text.get()
            on:input=move |ev| text.set(event_target_value(&ev))
        ></textarea>
        <pre class="command cal-lines">{move || fit.get()}</pre>
        <button
            type="button"
            id="cal-apply"
            hidden=move || gl.get().is_none()
            on:click=move |_| st.edit(Edit::Gl(gl.get_untracked()))
        >
            "Apply the measured global layers (gl=)"
        </button>
        <p>"How to measure:"</p>
        <pre class="command" id="cal-how"><code>{move || how.get()}</code></pre>
    }
}

/// The context × concurrency frontier (built only while open): how many requests fit at each
/// context, one line per KV cache type, the current point marked. Computed and drawn (SVG) by
/// the estimator in the importer, at the width the panel has.
#[component]
pub fn FrontierPanel() -> impl IntoView {
    let st = use_app();
    view! {
        <Disclosure
            class="frontier"
            summary="Context × concurrency: what fits with each KV cache type"
            hidden=Signal::derive(move || st.mode.get() == fitcard_estimator::Mode::Train)
        >
            <Frontier />
        </Disclosure>
    }
}

/// The frontier plot's content.
#[component]
fn Frontier() -> impl IntoView {
    let st = use_app();
    let svg = RwSignal::new(String::from("<p class=\"hint\">Computing…</p>"));
    let host = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let q = st.query.get();
        let width = host
            .get()
            .map_or(700, |d| u32::try_from(d.client_width()).unwrap_or(700));
        leptos::task::spawn_local(async move {
            let s = crate::worker::importer::frontier(&q, width)
                .await
                .unwrap_or_else(|m| format!("<p class=\"hint\">{}</p>", badge::xml_escape(&m)));
            svg.set(s);
        });
    });
    view! { <div class="frontier-plot" node_ref=host inner_html=move || svg.get()></div> }
}
