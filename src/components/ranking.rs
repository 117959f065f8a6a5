//! The ranking panel: the family's candidates that fit, most capable first, each one click
//! away; the rest behind a disclosure with the reasons they fail. Serve candidates (variant ×
//! format) and train candidates (variant × method) are shown by the same row
//! ([`crate::draw::ranking_html`]).
//!
//! The lists are drawn as markup and patched: a settled change rewrites the numbers of the rows
//! in place and rebuilds none of them; the rows that do not fit are drawn only while they are
//! shown. The panel takes the clicks of the rows' buttons (their id is the row's key).

use super::fields::{patched, Disclosure};
use crate::app::state::{use_app, AppState};
use crate::draw::ranking_html::{self, RowData};
use fitcard_estimator::{Inputs, Mode};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Train mode's rows (none in the page built without train mode: it hands over first).
fn train_rows(st: crate::app::state::AppState, i: &Inputs) -> Vec<RowData> {
    #[cfg(feature = "train")]
    return st
        .train_ranked
        .with(|all| all.iter().map(|c| RowData::train(c, i)).collect());
    #[cfg(not(feature = "train"))]
    {
        let _ = (st, i);
        Vec::new()
    }
}

/// What the ranking orders by, in the mode shown.
fn hint(st: AppState) -> impl IntoView {
    view! {
        <p class="hint">
            {move || match st.mode.get() {
                Mode::Serve => {
                    "Every variant and format of this family on the same engine, cards, context and \
                     concurrency: the most capable variant first, then the highest precision. \
                     Headroom is what is left on the fullest card; tight means under 1 GiB of it."
                }
                Mode::Train => {
                    "Every variant of this family with each method on the same GPUs, batch and \
                     sequence length: the most capable variant first, then the most precise method \
                     (full, LoRA, QLoRA). The size is the total the training needs."
                }
            }}
        </p>
    }
}

/// The rows that fit shown before the disclosure of the others.
const SHOWN: usize = 5;

/// The row whose button a click `ev` landed on, put on screen (the one on screen already does
/// nothing); the focus stays on its button.
fn choose(st: AppState, rows: Memo<Vec<RowData>>, ev: &web_sys::MouseEvent) {
    let Some(button) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|el| el.closest("button.apply").ok().flatten())
    else {
        return;
    };
    let id = button.id();
    let apply = rows.with_untracked(|r| {
        r.iter()
            .find(|x| x.key == id && !x.current)
            .map(RowData::apply)
    });
    if let Some(apply) = apply {
        st.edit(apply);
        crate::browser::dom::keep_focus(vec![id]);
    }
}

/// Ranked candidates of the current family on the current engine, cards and context.
#[component]
pub fn Ranking() -> impl IntoView {
    let st = use_app();
    // The ranking follows the settled inputs: a drag redraws it once it pauses.
    let rows = Memo::new(move |_| {
        st.settled.with(|i| match i.mode {
            Mode::Serve => st
                .ranked
                .with(|all| all.iter().map(|c| RowData::serve(c, i)).collect::<Vec<_>>()),
            Mode::Train => train_rows(st, i),
        })
    });
    // The five best that fit lead (with the configuration on screen, wherever it ranks); the
    // others that fit wait behind a disclosure, so that the command below is not pages away.
    let top = Memo::new(move |_| {
        rows.with(|r| {
            if !r.iter().any(|x| x.fits) {
                return NONE.to_string();
            }
            let lead = r.iter().filter(|x| x.fits).enumerate();
            let lead = lead
                .filter(|(k, x)| *k < SHOWN || x.current)
                .map(|(_, x)| x);
            ranking_html::list("ol", "cands fit", lead)
        })
    });
    let count = move |fits: bool| {
        Memo::new(move |_| rows.with(|r| r.iter().filter(|x| x.fits == fits).count()))
    };
    let (fit, rest) = (count(true), count(false));
    let later_current = Memo::new(move |_| {
        rows.with(|r| r.iter().filter(|x| x.fits).skip(SHOWN).any(|x| x.current))
    });
    let more_rows = Memo::new(move |_| {
        rows.with(|r| {
            ranking_html::list(
                "ol",
                "cands fit more",
                r.iter()
                    .filter(|x| x.fits)
                    .skip(SHOWN)
                    .filter(|x| !x.current),
            )
        })
    });
    let rest_rows = Memo::new(move |_| {
        rows.with(|r| ranking_html::list("ul", "cands", r.iter().filter(|x| !x.fits)))
    });
    let more = move || {
        fit.get()
            .saturating_sub(SHOWN + usize::from(later_current.get()))
    };
    view! {
        {hint(st)}
        <div class="patched" on:click=move |ev| choose(st, rows, &ev)>
            {patched(top)}
            <Disclosure
                class="morefit"
                summary=Signal::derive(move || format!("{} more that fit", more()))
                hidden=Signal::derive(move || more() == 0)
            >
                {patched(more_rows)}
            </Disclosure>
            // The rows that do not fit are drawn only while their disclosure is open.
            <Disclosure
                class="nofit"
                summary=Signal::derive(move || format!("{} that do not fit", rest.get()))
                hidden=Signal::derive(move || rest.get() == 0)
            >
                {patched(rest_rows)}
            </Disclosure>
        </div>
    }
}

/// Said when nothing of the family fits.
const NONE: &str = "<p class=\"none\">Nothing in this family fits with these settings. Lower the context or the concurrency, add cards, or pick a larger GPU.</p>";
