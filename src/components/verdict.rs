//! The verdict: fits / tight / does not fit, every failed check in words, and the warnings.
//! For vLLM and SGLang, the KV pool the engine will allocate; the decode speed, and what layers
//! left in system RAM cost; the limits solved with every other input held (when opened). The list of every check is built
//! only while it is open.

use super::fields::{patched, Disclosure};
use super::import_status::{act, OFFER};
use crate::app::state::{use_app, AppState};
use crate::draw::verdict_html::{self, Banner};
use crate::text::summary;
use fitcard_estimator::Estimate;
use leptos::prelude::*;

/// Verdict banner with the per-card numbers, failed checks and warnings.
#[component]
pub fn Verdict() -> impl IntoView {
    let st = use_app();
    // The lines under the verdict follow the estimate one frame late (`AppState::late`).
    // vLLM and SGLang: what the engine's own startup log will say about its KV pool.
    let pool = Signal::derive(move || {
        let ctx = st.inputs.with_untracked(|i| i.ctx);
        st.late(|e| summary::pool(e, ctx))
    });
    // Decode speed and the first token's wait, and what layers left in system RAM cost.
    let speed = Signal::derive(move || {
        let (par, ctx) = st.inputs.with_untracked(|i| (i.par, i.ctx));
        st.late(|e| e.shown_speed().map(|s| summary::speed(s, par, ctx)))
    });
    let spill = Signal::derive(move || st.late(|e| e.shown_speed().and_then(summary::spill)));
    // A published measurement of this very configuration, with its source.
    let measured =
        Signal::derive(move || st.late(|e| e.speed.as_ref().and_then(|s| s.measured.clone())));
    view! {
        <div class="verdict-box" role="status" aria-live="polite">
            {banner(st)}
            {failed(st)}
            <button type="button" class="import-action import-offer" on:click=act(st, OFFER)>
                "Import it from the Hub"
            </button>
            <Line class="pool" text=pool />
            <Line class="speed" text=speed />
            <Line class="spill" text=spill />
            <p class="measured" hidden=move || measured.with(Option::is_none)>
                {move || measured.with(|m| m.as_ref().map(summary::measured))}
                " "
                <a
                    href=move || measured.with(|m| m.as_ref().map(|m| m.url.clone()))
                    target="_blank"
                    rel="noopener"
                >
                    "source"
                </a>
            </p>
        </div>
        {warnings(st)}
        <Disclosure class="limits" summary="Limits and rent, with everything else held">
            <Asked kind="limits" />
            <Asked kind="cost" />
        </Disclosure>
        <Disclosure
            class="layouts"
            summary="Every tensor × pipeline split of these cards"
            hidden=Signal::derive(move || {
                st.inputs.with(|i| !(i.engine.preallocates() && i.cards > 1 && i.gpus.is_empty()))
            })
        >
            <Asked kind="layouts" />
        </Disclosure>

        <Disclosure class="checks" summary="All checks">
            <AllChecks />
        </Disclosure>
    }
}

/// The banner: the verdict, the numbers that decide it, and the notes on a tight fit and on
/// Unsloth's published formula.
fn banner(st: AppState) -> impl IntoView {
    patched(Memo::new(move |_| {
        st.seen(|e| {
            let line = verdict_line(st, e);
            st.inputs.with(|i| Banner::new(e, i, line).markup())
        })
    }))
}

/// The numbers under the verdict: in train mode the total against the pool of the GPUs
/// picked; in serve mode the fullest card, led by the reason when the memory fits but the plan
/// does not.
fn verdict_line(st: AppState, e: &Estimate) -> Option<String> {
    match st
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
            headroom
        )),
        // Serve mode: the fullest card decides.
        None => summary::verdict_line(e),
    }
}

/// The failed checks, each in words (a catalog entry that lacks the engine's files says so).
fn failed(st: AppState) -> impl IntoView {
    patched(Memo::new(move |_| {
        st.seen(|e| {
            let items: Vec<_> = e
                .checks
                .iter()
                .filter(|c| !c.ok)
                .map(|c| {
                    // Failed constraints, then notes such as "layer split used instead".
                    let class = if c.passes() { "info" } else { "failed" };
                    // A catalog entry without the engine's files: its line says so, and
                    // the button after the list (shown by the style sheet) offers the import.
                    match lacking(c) {
                        Some(t) => ("failed offer", Some(c.name.id()), t),
                        None => (class, Some(c.name.id()), c.message.clone()),
                    }
                })
                .collect();
            verdict_html::list("reasons", &items)
        })
    }))
}

/// The estimate's warnings (one frame late, as the lines above).
fn warnings(st: AppState) -> impl IntoView {
    patched(Memo::new(move |_| {
        st.late(|e| {
            let items: Vec<_> = e
                .warnings
                .iter()
                .map(|w| ("warning", None, w.clone()))
                .collect();
            verdict_html::list("warnings", &items)
        })
    }))
}

/// A catalog entry without the files the engine loads: the catalog lacks them, not
/// necessarily the repo (the check's words say so), and the button after the list reads the repo
/// from the Hub (what it holds then replaces the entry). `None` for any other check, and for a
/// model read from the Hub or the disk (its list is the repo's own).
fn lacking(c: &fitcard_estimator::Check) -> Option<String> {
    (c.name == fitcard_estimator::estimate::CheckName::FormatAvailable
        && c.message.starts_with("fitcard's catalog lists no "))
    .then(|| c.message.clone())
}

/// A line of words beside the verdict, hidden when there is nothing to say; its text is
/// rewritten in place.
#[component]
fn Line(
    /// The paragraph's class.
    class: &'static str,
    /// The words, or `None` to hide the line.
    #[prop(into)]
    text: Signal<Option<String>>,
) -> impl IntoView {
    view! {
        <p class=class hidden=move || text.with(Option::is_none)>
            {move || text.get().unwrap_or_default()}
        </p>
    }
}

/// The limits of this configuration, each solved with every other input held: the longest
/// context, the most slots, the fewest cards and the smallest catalog GPU (train mode: the
/// longest sequence and the largest batch); or every tensor × pipeline split of vLLM or SGLang
/// cards (`layouts`). Computed in the importer's worker once the controls are still, and only
/// while shown.
#[component]
fn Asked(
    /// The list: `limits`, `layouts` or `cost`.
    kind: &'static str,
) -> impl IntoView {
    let st = use_app();
    let text = RwSignal::new(String::new());
    Effect::new(move |_| {
        let q = st.query.get();
        leptos::task::spawn_local(async move {
            let t = crate::worker::importer::lines(kind, &q)
                .await
                .unwrap_or_else(|m| format!("\t{m}"));
            text.set(t);
        });
    });
    view! {
        <ul>
            {move || {
                text.with(|t| {
                    t.lines()
                        .map(|l| {
                            let (key, words) = l.split_once('\t').unwrap_or(("", l));
                            view! {
                                <li data-target=key.to_string() class:chosen=key == "chosen">
                                    {words.to_string()}
                                </li>
                            }
                        })
                        .collect_view()
                })
            }}
        </ul>
    }
}

/// Every check, passed or not.
#[component]
fn AllChecks() -> impl IntoView {
    let st = use_app();
    let all_checks = move || {
        st.late(|e| {
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
                        <li class=class data-check=c.name.id()>
                            <span class="mark" aria-hidden="true">{mark}</span>
                            <span class="sr">{sr}</span>
                            {c.message.clone()}
                        </li>
                    }
                })
                .collect_view()
        })
    };
    view! { <ul>{all_checks}</ul> }
}

/// The verdict in one line, kept in view above the controls on narrow screens (the style
/// sheet hides it elsewhere), so moving a slider on a phone shows its effect. The full verdict
/// is the live region; this copy is hidden from assistive technology.
#[component]
pub fn MiniVerdict() -> impl IntoView {
    let st = use_app();
    patched(Memo::new(move |_| {
        let headroom = st.train.with(|t| t.as_ref().map(|t| t.headroom()));
        st.est.with(|e| {
            let headroom = headroom.unwrap_or_else(|| e.headroom());
            verdict_html::mini(
                verdict_html::slug(e.verdict),
                &crate::text::share::capitalize(e.verdict.label()),
                &headroom.to_string(),
            )
        })
    }))
}
