//! Sharing: the permalink, the embed snippet and the model-card badge, with copy buttons.

use super::copy::CopyButton;
use crate::app::state::use_app;
use crate::browser::dom;
use crate::text::share;
use fitcard_estimator::badge;
use leptos::prelude::*;

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
        let svg = st.late(|e| st.inputs.with_untracked(|i| badge::svg(e, i)));
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
