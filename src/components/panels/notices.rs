//! Parameters that were refused or adjusted, above the page, each dismissible.

use crate::app::state::use_app;
use crate::browser::dom;
use leptos::prelude::*;

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
                                    <li class="notice" data-key=n.key.to_string()>
                                        <span>
                                            <code>{n.key.to_string()}</code>
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
