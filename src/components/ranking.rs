//! The ranking panel: the family's candidates that fit, most capable first, each one click
//! away; the rest behind a disclosure with the reasons they fail. Serve candidates (variant ×
//! format) and train candidates (variant × method) are shown by the same row.
//!
//! The lists are keyed by candidate: a slider tick updates the numbers of the rows in place
//! and rebuilds none of them; the rows that do not fit are built only while they are shown.

use super::fields::Disclosure;
use crate::app::state::{use_app, AppState};
use crate::model::edit::Edit;
use fitcard_estimator::inputs::Method;
#[cfg(feature = "train")]
use fitcard_estimator::train::TrainCandidate;
use fitcard_estimator::units::SignedBytes;
use fitcard_estimator::{Bytes, Candidate, Inputs, Mode, Quant, Verdict};
use leptos::prelude::*;

/// What differs between a serve and a train candidate.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(feature = "train"), allow(dead_code))]
enum Kind {
    /// A variant × format: its headroom on the fullest card and the bytes it needs there.
    Serve {
        quant: Quant,
        headroom: SignedBytes,
        needs: Bytes,
        /// Decode tokens/s per request, when known.
        tps: Option<f64>,
    },
    /// A variant × method: the total the training needs and on how many GPUs.
    Train {
        method: Method,
        total: Bytes,
        gpus: Option<u32>,
    },
}

/// One ranked candidate as its row shows it.
#[derive(Clone, Debug, PartialEq)]
struct RowData {
    /// Element id of its button (`use:model:tag`), which is also its key in the list.
    key: String,
    /// Repo id of the variant.
    model: String,
    /// Display name of the variant.
    name: String,
    /// Fits, tight or does not fit.
    verdict: Verdict,
    /// Every hard check passes.
    fits: bool,
    /// Failed constraints in words (empty when it fits).
    reasons: Vec<String>,
    /// It is the configuration on screen now.
    current: bool,
    /// Format or method, and the numbers shown.
    kind: Kind,
}

impl RowData {
    fn serve(c: &Candidate, i: &Inputs) -> RowData {
        let (quant, headroom, needs) = (c.quant, c.headroom, c.device_bytes);
        let current = c.model == i.model && quant == i.quant;
        let kind = Kind::Serve {
            quant,
            headroom,
            needs,
            tps: c.decode_tps,
        };
        RowData::new(
            &c.model, &c.name, c.verdict, c.fits, &c.reasons, current, kind,
        )
    }

    #[cfg(feature = "train")]
    fn train(c: &TrainCandidate, i: &Inputs) -> RowData {
        let (method, total, gpus) = (c.method, c.total, c.gpus_needed);
        let current = c.model == i.model && method == i.train.method;
        let kind = Kind::Train {
            method,
            total,
            gpus,
        };
        RowData::new(
            &c.model, &c.name, c.verdict, c.fits, &c.reasons, current, kind,
        )
    }

    fn new(
        model: &str,
        name: &str,
        verdict: Verdict,
        fits: bool,
        reasons: &[String],
        current: bool,
        kind: Kind,
    ) -> RowData {
        let mut row = RowData {
            key: String::new(),
            model: model.to_string(),
            name: name.to_string(),
            verdict,
            fits,
            reasons: reasons.to_vec(),
            current,
            kind,
        };
        row.key = format!("use:{model}:{}", row.tag());
        row
    }

    /// The format (serve) or the method (train).
    fn tag(&self) -> &'static str {
        match self.kind {
            Kind::Serve { quant, .. } => quant.id(),
            Kind::Train { method, .. } => method.id(),
        }
    }

    /// The edit that puts it on screen.
    fn apply(&self) -> Edit {
        let model = self.model.clone();
        match self.kind {
            Kind::Serve { quant, .. } => Edit::Candidate { model, quant },
            Kind::Train { method, .. } => Edit::TrainCandidate { model, method },
        }
    }

    /// Its button's accessible name.
    /// (It holds the visible text, name and tag, as WCAG 2.5.3 "label in name" asks.)
    fn aria(&self) -> String {
        format!("Use {} {}", self.name, self.tag())
    }

    /// The size shown, what it is, and the note beside it.
    fn size(&self) -> (String, &'static str, Option<String>) {
        match self.kind {
            Kind::Serve {
                headroom,
                needs,
                tps,
                ..
            } => (
                headroom.to_string(),
                "Headroom on the fullest card",
                Some(match tps {
                    Some(t) => format!(
                        "needs {needs} of VRAM · ≈ {} tokens/s",
                        crate::text::summary::about(t)
                    ),
                    None => format!("needs {needs} of VRAM"),
                }),
            ),
            Kind::Train { total, gpus, .. } => (
                total.to_string(),
                "Total the training needs",
                gpus.map(|n| format!("on {n} GPU{}", if n == 1 { "" } else { "s" })),
            ),
        }
    }
}

/// CSS class of a verdict chip.
fn chip_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Fits => "chip v-fits",
        Verdict::Tight => "chip v-tight",
        Verdict::DoesNotFit => "chip v-nofit",
    }
}

/// One candidate row: the button that puts it on screen, its verdict, its size and, when it
/// does not fit, why. The row is built once per candidate; a tick rewrites its numbers in place
/// (its chip and its reasons are redrawn only when they change).
#[component]
fn Row(
    /// Every row of the ranking.
    rows: Memo<Vec<RowData>>,
    /// The row shown: its key.
    id: String,
) -> impl IntoView {
    let st = use_app();
    let find = move |key: &str| rows.with(|r| r.iter().find(|x| x.key == key).cloned());
    let Some(first) = untrack(|| find(&id)) else {
        return ().into_any();
    };
    let key = id.clone();
    // The list drops the row when its key goes; until then it shows the last data it had.
    let data = Memo::new(move |prev: Option<&RowData>| {
        find(&key)
            .or_else(|| prev.cloned())
            .unwrap_or_else(|| first.clone())
    });
    let current = move || data.with(|d| d.current);
    // The current candidate's button stays focusable (`aria-disabled`, a click does nothing),
    // so a keyboard user who just chose it keeps the focus on it.
    let again = id.clone();
    let click = move |_| {
        let (current, apply) = data.with_untracked(|d| (d.current, d.apply()));
        if !current {
            st.edit(apply);
            crate::browser::dom::keep_focus(vec![again.clone()]);
        }
    };
    data.with_untracked(|d| {
        view! {
            <li
                class:current=current
                data-model=d.model.clone()
                data-quant=matches!(d.kind, Kind::Serve { .. }).then_some(d.tag())
                data-method=matches!(d.kind, Kind::Train { .. }).then_some(d.tag())
            >
                <button
                    type="button"
                    class="apply"
                    id=id
                    on:click=click
                    aria-disabled=move || current().then_some("true")
                    aria-label=d.aria()
                >
                    <span class="cand-name">{d.name.clone()}</span>
                    " "
                    <span class="cand-quant">{d.tag()}</span>
                </button>
                {move || data.with(numbers)}
            </li>
        }
    })
    .into_any()
}

/// The parts of a row that change with the configuration.
fn numbers(d: &RowData) -> impl IntoView {
    let (size, size_title, note) = d.size();
    view! {
        <span
            class=chip_class(d.verdict)
            title=(d.verdict == Verdict::Tight).then(|| crate::text::share::tight_note(true))
        >
            {d.verdict.label()}
        </span>
        <span class="num" title=size_title>
            {size}
        </span>
        <span class="num muted">{note}</span>
        {d.current.then(|| view! { <span class="muted">"(current)"</span> })}
        {(!d.fits)
            .then(|| {
                view! {
                    <ul class="why">
                        {d.reasons.iter().map(|r| view! { <li>{r.clone()}</li> }).collect_view()}
                    </ul>
                }
            })}
    }
}

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
    // The keys of the rows that fit (`true`) or not, in order: the lists follow them.
    let keys = move |fits: bool| {
        Memo::new(move |_| {
            rows.with(|r| {
                r.iter()
                    .filter(|x| x.fits == fits)
                    .map(|x| x.key.clone())
                    .collect::<Vec<_>>()
            })
        })
    };
    let (fit, rest) = (keys(true), keys(false));
    // The five best that fit lead (with the configuration on screen, wherever it ranks); the
    // others that fit wait behind a disclosure, so that the command below is not pages away.
    let split = move |top: bool| {
        Memo::new(move |_| {
            rows.with(|r| {
                r.iter()
                    .filter(|x| x.fits)
                    .enumerate()
                    .filter(|(k, x)| (*k < SHOWN || x.current) == top)
                    .map(|(_, x)| x.key.clone())
                    .collect::<Vec<_>>()
            })
        })
    };
    let (top, more) = (split(true), split(false));
    let list = move |keys: Memo<Vec<String>>| {
        view! {
            <For
                each=move || keys.get()
                key=|k| k.clone()
                children=move |k| view! { <Row rows=rows id=k /> }
            />
        }
    };
    view! {
        {hint(st)}
        <Show
            when=move || fit.with(|k| !k.is_empty())
            fallback=|| {
                view! {
                    <p class="none">
                        "Nothing in this family fits with these settings. Lower the context or the "
                        "concurrency, add cards, or pick a larger GPU."
                    </p>
                }
            }
        >
            <ol class="cands fit">{list(top)}</ol>
        </Show>
        <Disclosure
            class="morefit"
            summary=Signal::derive(move || format!("{} more that fit", more.with(Vec::len)))
            hidden=Signal::derive(move || more.with(Vec::is_empty))
        >
            <ol class="cands fit more">{list(more)}</ol>
        </Disclosure>
        // The rows that do not fit are built only while their disclosure is open.
        <Disclosure
            class="nofit"
            summary=Signal::derive(move || format!("{} that do not fit", rest.with(Vec::len)))
            hidden=Signal::derive(move || rest.with(Vec::is_empty))
        >
            <ul class="cands">{list(rest)}</ul>
        </Disclosure>
    }
}
