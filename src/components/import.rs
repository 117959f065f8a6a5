//! Any model on the Hugging Face Hub: a repo id or an address typed or pasted in the model search
//! (or a link's `model=` the catalog lacks) is read from the Hub (the file list and one file's
//! header) and joins the catalog as a family; this is its status line.

use crate::app::{use_app, ImportState};
use leptos::prelude::*;

/// Where the import stands, one line (read out politely).
#[component]
pub fn ImportStatus() -> impl IntoView {
    let st = use_app();
    let line = move || match st.import.get() {
        ImportState::Idle => (String::new(), "import-status"),
        ImportState::Busy(m) => (m, "import-status busy"),
        ImportState::Failed(m) => (m, "import-status failed"),
        ImportState::Done(m) => (m, "import-status done"),
    };
    view! {
        <p class=move || line().1 role="status" aria-live="polite">
            {move || line().0}
        </p>
    }
}
