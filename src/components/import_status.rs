//! Any model on the Hugging Face Hub: a repo id or an address typed or pasted in the model search
//! (or a link's `model=` the catalog lacks) is read from the Hub (the file list and one file's
//! header) and joins the catalog as a family; this is its status line, with a button to cancel
//! a read under way and one to try a failed import again.

use crate::app::state::{use_app, ImportState};
use leptos::prelude::*;

/// Where the import stands, one line (read out politely), and what can be done about it.
#[component]
pub fn ImportStatus() -> impl IntoView {
    let st = use_app();
    // A failed Hub import can be tried again: the class says so, and the style sheet shows
    // the button that fits (no other state is drawn).
    let line = move || match st.import.get() {
        ImportState::Idle => (String::new(), "import-status"),
        ImportState::Busy(m) => (m, "import-status busy"),
        ImportState::Failed(m) if st.can_retry() => (m, "import-status failed again"),
        ImportState::Failed(m) => (m, "import-status failed"),
        ImportState::Done(m) => (m, "import-status done"),
    };
    view! {
        <p class=move || line().1 role="status" aria-live="polite">
            {move || line().0}
        </p>
        <button type="button" class="import-action import-cancel" on:click=act(st, CANCEL)>
            "Cancel"
        </button>
        <button type="button" class="import-action import-retry" on:click=act(st, RETRY)>
            "Try again"
        </button>
    }
}

/// What a button of the import does: cancel the read under way, try the last Hub import again,
/// or read the model shown from the Hub (its catalog entry lacks the engine's files).
pub const CANCEL: u8 = 0;
/// See [`CANCEL`].
pub const RETRY: u8 = 1;
/// See [`CANCEL`].
pub const OFFER: u8 = 2;

/// The press handler of an import button doing `what` ([`CANCEL`], [`RETRY`], [`OFFER`]): one
/// closure type for every such button, so that they share their code.
pub fn act(st: crate::app::state::AppState, what: u8) -> impl Fn(web_sys::MouseEvent) {
    move |_| match what {
        CANCEL => st.cancel_import(),
        RETRY => st.retry_import(),
        _ => {
            let repo = st.inputs.with_untracked(|i| i.model.clone());
            st.start_import(crate::model::hub::Target {
                repo,
                rev: None,
                file: None,
                dir: None,
            })
        }
    }
}
