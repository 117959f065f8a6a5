//! The `tp × pp` splits of the cards weighed (vLLM and SGLang on alike cards), and the most
//! layers that fit on the cards when llama.cpp spills.

use crate::catalog::{Arch, Format};
use crate::estimate::*;
use crate::inputs::{thousands, Inputs};
use crate::serve::placement::*;
use crate::serve::sizing::*;
use crate::serve::startup::*;
use crate::units::Bytes;

/// Size every term for `i` on `arch` in format `f`: each term module applies its engine's rule.
/// vLLM and SGLang on several alike cards run the `tp × pp` split of [`ParallelChoice`].
pub(crate) fn size(i: &Inputs, a: &Arch, f: &Format) -> Sizing {
    let cards = i.cards.max(1);
    if i.engine.preallocates() && cards > 1 && i.gpus.is_empty() {
        return choose(i, a, f, cards);
    }
    size_at(i, a, f, None)
}

/// One candidate split of [`choose`]: its sizing, whether the engine can start it, whether it
/// fits, and its KV pool in tokens.
pub(crate) struct SplitOption {
    pub s: Sizing,
    pub valid: Result<(), String>,
    pub fits: bool,
    pub tokens: u64,
    /// Bytes on the fullest GPU, and that GPU's budget.
    pub fullest: (Bytes, Bytes),
}

/// Every `tp × pp = cards` split of vLLM or SGLang, largest `tp` first, each sized as the
/// estimate would size it.
pub(crate) fn candidates(i: &Inputs, a: &Arch, f: &Format, cards: u32) -> Vec<SplitOption> {
    let mut all: Vec<SplitOption> = Vec::new();
    for tp in (1..=cards).rev().filter(|t| cards.is_multiple_of(*t)) {
        let pp = cards / tp;
        let valid = if pp > a.layers.max(1) {
            Err(format!(
                "{pp} pipeline stages for {} layers: a stage would hold none",
                a.layers
            ))
        } else if tp > 1 {
            tensor_parallel(i.engine, a, tp)
                .map(|_| ())
                .map_err(|e| e.to_string())
        } else {
            Ok(())
        };
        let s = size_at(i, a, f, Some((tp, pp)));
        let per_card = shard(&s);
        let pool = vllm_pool(i, a, &s, &per_card);
        let full = fullest(&per_card);
        let fits = valid.is_ok()
            && vllm_pages(i, a, &s).is_ok()
            && per_card.iter().all(|c| c.bytes <= c.budget)
            && pool.bytes > Bytes::ZERO
            && pool.per_request <= pool.bytes;
        all.push(SplitOption {
            fullest: (full.bytes, full.budget),
            s,
            valid,
            fits,
            tokens: pool.tokens,
        });
    }
    all
}

/// Which of `all` ([`candidates`]) the estimate runs, whether it was pinned, and why: the pin of
/// the link, else vLLM's node rule when it fits, else the largest pool, else the engine's
/// default.
pub(crate) fn pick(i: &Inputs, all: &[SplitOption], cards: u32) -> (usize, bool, String) {
    let words = |c: &SplitOption| parallel_words(i.engine, c.s.split.0, c.s.split.1);
    // Pinned by tp= / pp= (normalize keeps only a pin that divides the cards).
    let pin = i.tp.or_else(|| i.pp.map(|p| cards / p.max(1)));
    if let Some(k) = pin.and_then(|t| all.iter().position(|c| c.s.split.0 == t)) {
        let why = match &all[k].valid {
            Ok(()) => format!("{} as pinned by the link", words(&all[k])),
            Err(e) => format!("{} as pinned by the link: {e}", words(&all[k])),
        };
        return (k, true, why);
    }
    let (k, why) = node_split(all, cards, &words)
        .or_else(|| largest_pool(all, &words))
        .unwrap_or_else(|| engine_default(all, cards, &words));
    (k, false, why)
}

/// vLLM's documented practice: tensor parallel over the GPUs of a node (up to 8), pipeline
/// parallel across nodes (<https://docs.vllm.ai/en/v0.8.3/serving/distributed_serving.html>,
/// "How to decide the distributed inference strategy"). Taken whenever it fits.
fn node_split(
    all: &[SplitOption],
    cards: u32,
    words: &dyn Fn(&SplitOption) -> String,
) -> Option<(usize, String)> {
    let node_tp = (1..=cards.min(GPUS_PER_NODE))
        .rev()
        .find(|t| cards.is_multiple_of(*t))
        .unwrap_or(1);
    let k = all.iter().position(|c| c.s.split.0 == node_tp && c.fits)?;
    let why = format!(
        "{}: tensor parallel within a node of up to {GPUS_PER_NODE} GPUs{}, as vLLM's documentation advises, and it fits ({} tokens of KV)",
        words(&all[k]),
        if node_tp < cards { ", pipeline parallel across nodes" } else { "" },
        thousands(all[k].tokens)
    );
    Some((k, why))
}

/// Of the layouts that fit, the largest KV pool; the largest tensor split within
/// [`EQUAL_POOL_PERCENT`] of it (faster). Says what the full tensor split would have done.
fn largest_pool(
    all: &[SplitOption],
    words: &dyn Fn(&SplitOption) -> String,
) -> Option<(usize, String)> {
    let full_tp = &all[0];
    let fitting = all.iter().filter(|c| c.fits).count();
    let best = all
        .iter()
        .filter(|c| c.fits)
        .map(|c| c.tokens)
        .max()
        .unwrap_or(0);
    // Largest tp first, so the first within the margin is the largest tensor split.
    let k = all.iter().position(|c| {
        c.fits && c.tokens.saturating_mul(100) >= best.saturating_mul(100 - EQUAL_POOL_PERCENT)
    })?;
    let c = &all[k];
    let mut why = format!(
        "{}: of the {fitting} layouts that fit, the largest KV pool ({} tokens",
        words(c),
        thousands(c.tokens)
    );
    if c.tokens < best {
        why.push_str(&format!(
            "; the largest is {} tokens, within {EQUAL_POOL_PERCENT} %, and the larger tensor split is faster",
            thousands(best)
        ));
    }
    why.push(')');
    if k > 0 {
        match &full_tp.valid {
            Err(e) => why.push_str(&format!("; {e}")),
            Ok(()) if !full_tp.fits => why.push_str(&format!("; {} does not fit", words(full_tp))),
            Ok(()) => why.push_str(&format!(
                "; {} holds {} tokens",
                words(full_tp),
                thousands(full_tp.tokens)
            )),
        }
    }
    Some((k, why))
}

/// No layout fits: the engine's default, all tensor parallel when it can start, else all
/// pipeline.
fn engine_default(
    all: &[SplitOption],
    cards: u32,
    words: &dyn Fn(&SplitOption) -> String,
) -> (usize, String) {
    let full_tp = &all[0];
    let k = if full_tp.valid.is_ok() {
        0
    } else {
        all.len() - 1
    };
    let why = format!(
        "{}: no layout of {cards} cards fits, so the engine's default is shown ({})",
        words(&all[k]),
        if k == 0 {
            "all tensor parallel".to_string()
        } else {
            format!(
                "all pipeline: {}",
                full_tp.valid.as_ref().err().map_or("", String::as_str)
            )
        }
    );
    (k, why)
}

/// Size every `tp × pp = cards` split and keep the one [`ParallelChoice`] describes.
fn choose(i: &Inputs, a: &Arch, f: &Format, cards: u32) -> Sizing {
    let mut all = candidates(i, a, f, cards);
    let split = |c: &SplitOption| (c.s.split.0, c.s.split.1);
    let (k, pinned, why) = pick(i, &all, cards);
    let (tp, pp) = split(&all[k]);
    let mut s = all.swap_remove(k).s;
    s.choice = Some(ParallelChoice {
        tp,
        pp,
        pinned,
        why,
    });
    // The tensor-parallel check says what the full split would do when it is not the one run.
    if tp != cards {
        let full = tensor_parallel_words(i.engine, a, cards);
        s.tp = Some(match full {
            Err(e) => Err(e),
            // It can start: the check passes and says what runs instead.
            Ok(m) => Ok(format!(
                "{m}; {} runs instead (see the chosen layout)",
                parallel_words(i.engine, tp, pp)
            )),
        });
    }
    s
}

/// The most layers on the GPU (`-ngl`, the output layer counting as one) with which every card
/// fits, when the model does not fit with all of them (llama.cpp and Ollama); `None` when it
/// fits or nothing does.
pub(crate) fn fitted_ngl(i: &Inputs, a: &Arch, f: &Format) -> Option<u32> {
    if !crate::serve::support::spills(i) || i.ngl.is_some() {
        return None;
    }
    let fits_with = |ngl: Option<u32>| {
        let j = Inputs { ngl, ..i.clone() };
        shard(&size(&j, a, f)).iter().all(|c| c.bytes <= c.budget)
    };
    let all = shard(&size(i, a, f));
    if all.iter().all(|c| c.bytes <= c.budget) {
        return None;
    }
    // Fewer layers on the GPU never need more of it: the answer is the last ngl that fits. A
    // first guess from the bytes over the budget and the bytes per layer (weights and cache
    // alike), checked with its next one: most ticks end there, two estimates instead of a
    // bisection's eight (the page computes this on every input change of a spilling model).
    // Saturating sums: per-card bytes from a hostile header can each be near u64::MAX.
    let over = all.iter().fold(0u64, |s, c| {
        s.saturating_add(c.bytes.get().saturating_sub(c.budget.get()))
    });
    let per_layer = all
        .iter()
        .fold(0u64, |s, c| s.saturating_add(c.bytes.get()))
        / (u64::from(a.layers) + 1);
    let shed = u32::try_from(over.div_ceil(per_layer.max(1))).unwrap_or(u32::MAX);
    let guess = (a.layers + 1).saturating_sub(shed).min(a.layers);
    if fits_with(Some(guess)) && (guess == a.layers || !fits_with(Some(guess + 1))) {
        return Some(guess);
    }
    // Else bisect on [0, layers].
    let (mut lo, mut hi) = (0u32, a.layers);
    if !fits_with(Some(lo)) {
        return Some(0);
    }
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits_with(Some(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}
