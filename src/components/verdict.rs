//! The verdict: fits / tight / does not fit, every failed check in words, and the warnings.

use crate::app::AppState;
use fitcard_estimator::units::SignedBytes;
use fitcard_estimator::Verdict as V;
use leptos::prelude::*;

/// CSS modifier of a verdict.
fn slug(v: V) -> &'static str {
    match v {
        V::Fits => "fits",
        V::Tight => "tight",
        V::DoesNotFit => "nofit",
    }
}

/// Verdict banner with the per-card numbers, failed checks and warnings.
#[component]
pub fn Verdict(
    /// Page state.
    st: AppState,
) -> impl IntoView {
    let est = st.est;
    let banner = move || {
        est.with(|e| {
            let title = crate::share::capitalize(e.verdict.label());
            let line = match st
                .train
                .with(|t| t.as_ref().map(|t| (t.selection.clone(), t.headroom())))
            {
                // Train mode: the total against the pool of the GPUs picked.
                Some((sel, headroom)) => Some(format!(
                    "{} needed · {} usable on {} of {} GPU{} · headroom {}",
                    e.total_device_bytes,
                    sel.usable,
                    sel.picked.len(),
                    sel.free.len(),
                    if sel.free.len() == 1 { "" } else { "s" },
                    SignedBytes(headroom)
                )),
                None => e.per_card.first().map(|c| {
                    let limit = if c.budget < c.capacity {
                        format!("{} budget of {}", c.budget, c.capacity)
                    } else {
                        c.capacity.to_string()
                    };
                    format!(
                        "{} of {limit} per card · headroom {}",
                        c.bytes,
                        SignedBytes(e.headroom())
                    )
                }),
            };
            let tight = (e.verdict == V::Tight).then(crate::share::tight_note);
            view! {
                <div
                    class=format!("verdict v-{}", slug(e.verdict))
                    data-verdict=slug(e.verdict)
                    title=tight.clone()
                >
                    <strong class="verdict-label">{title}</strong>
                    <span class="verdict-line">{line}</span>
                    {tight.map(|t| view! { <p class="tight-note">{t}</p> })}
                </div>
            }
        })
    };
    let failed = move || {
        est.with(|e| {
            e.checks
                .iter()
                .filter(|c| !c.ok)
                .map(|c| {
                    // Failed constraints, then notes such as "layer split used instead".
                    let class = if c.passes() { "info" } else { "failed" };
                    view! { <li class=class data-check=c.name>{c.message.clone()}</li> }
                })
                .collect_view()
        })
    };
    let warnings = move || {
        est.with(|e| {
            e.warnings
                .iter()
                .map(|w| view! { <li class="warning">{w.clone()}</li> })
                .collect_view()
        })
    };
    let all_checks = move || {
        est.with(|e| {
            e.checks
                .iter()
                .map(|c| {
                    // A failed informational check (tensor parallelism impossible, layer split
                    // used) is not a failed constraint: it reads as a note.
                    let (class, mark, sr) = match (c.ok, c.passes()) {
                        (true, _) => ("ok", "✓ ", "passed: "),
                        (false, true) => ("info", "ℹ ", "note: "),
                        (false, false) => ("failed", "✗ ", "failed: "),
                    };
                    view! {
                        <li class=class data-check=c.name>
                            <span class="mark" aria-hidden="true">{mark}</span>
                            <span class="sr">{sr}</span>
                            {c.message.clone()}
                        </li>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <div class="verdict-box" role="status" aria-live="polite">
            {banner}
            <ul class="reasons">{failed}</ul>
        </div>
        <ul class="warnings">{warnings}</ul>
        <details class="checks">
            <summary>"All checks"</summary>
            <ul>{all_checks}</ul>
        </details>
    }
}
