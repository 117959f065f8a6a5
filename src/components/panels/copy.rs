//! The copy button of the panels: it copies a text to the clipboard and says whether it
//! worked.

use crate::browser::dom;
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
