//! The context × concurrency frontier, computed and drawn in the importer.

use crate::app::state::use_app;
use crate::components::fields::Disclosure;
use crate::worker::importer;
use fitcard_estimator::badge;
use leptos::prelude::*;

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
            let s = importer::frontier(&q, width)
                .await
                .unwrap_or_else(|m| format!("<p class=\"hint\">{}</p>", badge::xml_escape(&m)));
            svg.set(s);
        });
    });
    view! { <div class="frontier-plot" node_ref=host inner_html=move || svg.get()></div> }
}
