//! The ranking panel: the family's candidates that fit, most capable first, each one click
//! away; the rest behind a disclosure with the reasons they fail.

use crate::app::use_app;
use crate::state::Edit;
use fitcard_estimator::training::TrainCandidate;
use fitcard_estimator::{Candidate, Mode, Verdict};
use leptos::prelude::*;

/// Element id of a candidate's button (`use:model:format`), so that focus can come back to it
/// after the list is redrawn.
fn button_id(model: &str, tag: &str) -> String {
    format!("use:{model}:{tag}")
}

/// The button that puts a candidate on screen: its name and its format (or method). The
/// current candidate's button stays focusable (`aria-disabled`, a click does nothing), so a
/// keyboard user who just chose it keeps the focus on it.
fn apply_button(
    model: &str,
    name: &str,
    tag: &str,
    aria: String,
    current: bool,
    apply: impl Fn() + 'static,
) -> impl IntoView {
    let id = button_id(model, tag);
    let again = id.clone();
    let click = move |_| {
        if !current {
            apply();
            crate::dom::keep_focus(vec![again.clone()]);
        }
    };
    view! {
        <button
            type="button"
            class="apply"
            id=id
            on:click=click
            aria-disabled=current.then_some("true")
            aria-label=aria
        >
            <span class="cand-name">{name.to_string()}</span>
            " "
            <span class="cand-quant">{tag.to_string()}</span>
        </button>
    }
}

/// The reasons a candidate does not fit (nothing when it fits).
fn why(fits: bool, reasons: &[String]) -> Option<impl IntoView> {
    (!fits).then(|| {
        view! {
            <ul class="why">
                {reasons.iter().map(|r| view! { <li>{r.clone()}</li> }).collect_view()}
            </ul>
        }
    })
}

/// One candidate row with its apply button.
#[component]
fn Row(
    /// The candidate shown.
    c: Candidate,
    /// It is the configuration on screen now.
    current: bool,
) -> impl IntoView {
    let st = use_app();
    let model = c.model.clone();
    let quant = c.quant;
    let apply = move || {
        st.edit(Edit::Candidate {
            model: model.clone(),
            quant,
        })
    };
    let chip = match c.verdict {
        Verdict::Fits => "chip v-fits",
        Verdict::Tight => "chip v-tight",
        Verdict::DoesNotFit => "chip v-nofit",
    };
    let reasons = why(c.fits, &c.reasons);
    view! {
        <li class:current=current data-model=c.model.clone() data-quant=c.quant.id()>
            {apply_button(
                &c.model,
                &c.name,
                c.quant.id(),
                format!("Use {} {}", c.name, c.quant),
                current,
                apply,
            )}
            <span
                class=chip
                title=(c.verdict == Verdict::Tight).then(|| crate::share::tight_note(true))
            >
                {c.verdict.label()}
            </span>
            <span class="num" title="Headroom on the fullest card">
                {c.headroom.to_string()}
            </span>
            <span class="num muted">{format!("needs {} of VRAM", c.device_bytes)}</span>
            {current.then(|| view! { <span class="muted">"(current)"</span> })}
            {reasons}
        </li>
    }
}

/// One train-mode candidate (variant × method) with its apply button.
#[component]
fn TrainRow(
    /// The candidate shown.
    c: TrainCandidate,
    /// It is the configuration on screen now.
    current: bool,
) -> impl IntoView {
    let st = use_app();
    let model = c.model.clone();
    let method = c.method;
    let apply = move || {
        st.edit(Edit::TrainCandidate {
            model: model.clone(),
            method,
        })
    };
    let reasons = why(c.fits, &c.reasons);
    let gpus = c
        .gpus_needed
        .map(|n| format!("on {n} GPU{}", if n == 1 { "" } else { "s" }));
    view! {
        <li class:current=current data-model=c.model.clone() data-method=c.method.id()>
            {apply_button(
                &c.model,
                &c.name,
                c.method.id(),
                format!("Use {} with {}", c.name, c.method),
                current,
                apply,
            )}
            <span class=if c.fits { "chip v-fits" } else { "chip v-nofit" }>
                {if c.fits { "fits" } else { "does not fit" }}
            </span>
            <span class="num">{c.total.to_string()}</span>
            <span class="muted">{gpus}</span>
            {current.then(|| view! { <span class="muted">"(current)"</span> })}
            {reasons}
        </li>
    }
}

/// Ranked candidates of the current family on the current engine, cards and context.
#[component]
pub fn Ranking() -> impl IntoView {
    let st = use_app();
    let current = move || {
        st.inputs
            .with(|i| (i.model.clone(), i.quant, i.train.method))
    };
    // Rows of the candidates that fit (`fits`) or not, re-rendered on every change; the
    // disclosure around the others stays put, so it keeps its open state.
    let rows = move |fits: bool| {
        let (model, quant, method) = current();
        if st.mode.get() == Mode::Train {
            return st.train_ranked.with(|all| {
                all.iter()
                    .filter(|c| c.fits == fits)
                    .map(|c| {
                        let cur = c.model == model && c.method == method;
                        view! { <TrainRow c=c.clone() current=cur /> }
                    })
                    .collect_view()
                    .into_any()
            });
        }
        st.ranked.with(|all| {
            all.iter()
                .filter(|c| c.fits == fits)
                .map(|c| {
                    let cur = c.model == model && c.quant == quant;
                    view! { <Row c=c.clone() current=cur /> }
                })
                .collect_view()
                .into_any()
        })
    };
    let count = move |fits: bool| match st.mode.get() {
        Mode::Serve => st
            .ranked
            .with(|a| a.iter().filter(|c| c.fits == fits).count()),
        Mode::Train => st
            .train_ranked
            .with(|a| a.iter().filter(|c| c.fits == fits).count()),
    };
    let n_fit = move || count(true);
    let n_rest = move || count(false);
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
        <Show
            when=move || { n_fit() > 0 }
            fallback=|| {
                view! {
                    <p class="none">
                        "Nothing in this family fits with these settings. Lower the context or the "
                        "concurrency, add cards, or pick a larger GPU."
                    </p>
                }
            }
        >
            <ol class="cands fit">{move || rows(true)}</ol>
        </Show>
        <details class="nofit" class:empty=move || n_rest() == 0>
            <summary>{move || format!("{} that do not fit", n_rest())}</summary>
            <ul class="cands">{move || rows(false)}</ul>
        </details>
    }
}
