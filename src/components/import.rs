//! Any model on the Hugging Face Hub: a repo id or an address typed or pasted here is read from
//! the Hub (the file list and one file's header) and joins the catalog as a family.

use crate::app::{use_app, ImportState};
use crate::hub;
use leptos::prelude::*;

/// The import form: one text field, one button, and the status line.
#[component]
pub fn ImportForm() -> impl IntoView {
    let st = use_app();
    let text = RwSignal::new(String::new());
    let busy = move || matches!(st.import.get(), ImportState::Busy(_));
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match hub::parse_target(&text.get_untracked()) {
            Ok(t) => st.start_import(t),
            Err(m) => st.import.set(ImportState::Failed(m)),
        }
    };
    view! {
        <form class="import field" on:submit=submit>
            <label for="hub-id">"Any model on the Hugging Face Hub"</label>
            <div class="import-row">
                <input
                    id="hub-id"
                    name="hub-id"
                    type="text"
                    placeholder="org/name or a huggingface.co link"
                    autocomplete="off"
                    spellcheck="false"
                    prop:value=text
                    on:input=move |ev| text.set(event_target_value(&ev))
                />
                <button type="submit" id="hub-import" disabled=busy>
                    "Import"
                </button>
            </div>
            <ImportStatus />
        </form>
    }
}

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
