//! Inverse solving: the limit of one input with every other one held, found by searching the
//! estimator itself (not an approximation of it), so padding, blocks and layouts are exact.
//!
//! * [`Target::Ctx`]: the longest context per request that fits at the chosen concurrency
//!   (binary search: memory never shrinks as the context grows, property-tested in
//!   `tests/properties.rs`);
//! * [`Target::Par`]: the most concurrent requests at the chosen context (binary search, same
//!   law for slots);
//! * [`Target::Cards`]: the fewest cards that fit (a scan: more cards are not monotone across
//!   layouts, e.g. tensor parallelism on 8 cards vs layer split on 9);
//! * [`Target::Gpu`]: the catalog GPU with the least memory that fits, at the chosen card count
//!   (a scan of the catalog);
//! * [`Target::Seq`], [`Target::Bsz`]: train mode, the longest sequence and the largest batch
//!   that fit the GPUs under the chosen trainer profile (`trainer=`; binary search: memory never
//!   shrinks as either grows, property-tested for every profile).
//!
//! [`proof`] re-estimates a numeric solution at its value and one step past it, so a reader (or
//! the CLI's JSON) can check that the answer is the exact edge: it fits, the next value does not.
//! Tested per trainer profile and on the published "longest sequence per VRAM budget" rows in
//! `tests/solve.rs`.

use crate::catalog::catalog;
use crate::inputs::normalize::normalize;
use crate::inputs::Trainer;
use crate::inputs::{limits, GpuChoice, Inputs, Mode};
use crate::serve::estimate;
use crate::train;
use crate::units::Bytes;
use serde::Serialize;

ids! {
    /// What to solve for.
    Target {
        /// Longest context per request (tokens).
        Ctx = "ctx",
        /// Most concurrent requests.
        Par = "par",
        /// Fewest cards.
        Cards = "cards",
        /// Smallest catalog GPU.
        Gpu = "gpu",
        /// Longest training sequence (train mode).
        Seq = "seq",
        /// Largest training batch (train mode).
        Bsz = "bsz",
        /// Fewest leading layers whose routed experts stay in system RAM (llama.cpp
        /// `--n-cpu-moe`, a mixture of experts).
        Ncmoe = "ncmoe",
    }
}

/// The answer for one target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Solution {
    /// What was solved for.
    pub target: Target,
    /// The limit: tokens, requests or cards; for `gpu` the catalog id. `None` when nothing in the
    /// range fits.
    pub value: Option<String>,
    /// The limit in words.
    pub message: String,
    /// Estimates made to find it.
    pub evaluations: u32,
}

/// Does the configuration fit (serve or train)? Serve mode asks the estimator's verdict alone
/// (the same as `estimate(i).fits`, without its words and commands).
fn fits(i: &Inputs) -> bool {
    match i.mode {
        Mode::Serve => crate::serve::fits(i),
        Mode::Train => train::estimate(i).estimate.fits,
    }
}

/// The estimate behind a numeric solution, at its value and one step past it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Proof {
    /// The solved value.
    pub value: u32,
    /// Memory on the cards at the value (all cards together).
    pub total_bytes: Bytes,
    /// Does the estimate at the value fit? (Always true for a solver answer.)
    pub fits: bool,
    /// One step past the value; `None` when the value is the top of the searched range.
    pub next: Option<u32>,
    /// Memory on the cards one step past the value.
    pub next_total_bytes: Option<Bytes>,
    /// Does the estimate one step past fit? (Always false for a solver answer.)
    pub next_fits: Option<bool>,
    /// Train mode: the usable memory of the GPU pool (first GPU fully, the others at 85 %).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usable_bytes: Option<Bytes>,
    /// Train mode: the trainer profile the search ran over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trainer: Option<Trainer>,
}

/// `inputs` with `target` set to `x` (numeric targets only).
fn with(base: &Inputs, target: Target, x: u32) -> Option<Inputs> {
    let mut j = base.clone();
    match target {
        Target::Ctx => j.ctx = x,
        Target::Par => j.par = x,
        Target::Seq => {
            j.mode = Mode::Train;
            j.train.seq = x;
        }
        Target::Bsz => {
            j.mode = Mode::Train;
            j.train.bsz = x;
        }
        Target::Cards | Target::Gpu | Target::Ncmoe => return None,
    }
    Some(j)
}

/// The top of the range searched for a numeric target.
fn top(base: &Inputs, target: Target) -> u32 {
    match target {
        Target::Ctx => ctx_max(base),
        Target::Par => limits::PAR.1,
        Target::Seq => limits::SEQ.1,
        Target::Bsz => limits::BSZ.1,
        Target::Cards => limits::CARDS.1,
        Target::Gpu => 0,
        Target::Ncmoe => limits::NGL.1,
    }
}

/// The longest context searched: the model's (with YaRN where the publisher validated it, not
/// on Ollama, which cannot enable it), within the accepted range.
pub fn ctx_max(base: &Inputs) -> u32 {
    catalog()
        .variant(&base.model)
        .map_or(limits::CTX.1, |(_, v)| v.arch.longest_ctx(base.engine))
        .min(limits::CTX.1)
}

/// Re-estimate a numeric solution (`ctx`, `par`, `seq`, `bsz`) at its value and one step past
/// it. `None` for `cards` and `gpu` (scans, checked value by value) and when nothing fits.
pub fn proof(inputs: &Inputs, s: &Solution) -> Option<Proof> {
    let mut base = inputs.clone();
    normalize(&mut base);
    let value: u32 = s.value.as_deref()?.parse().ok()?;
    let at = with(&base, s.target, value)?;
    let measure = |i: &Inputs| -> (Bytes, bool, Option<Bytes>) {
        match i.mode {
            Mode::Serve => {
                let e = estimate(i);
                (e.total_device_bytes, e.fits, None)
            }
            Mode::Train => {
                let t = train::estimate(i);
                (
                    t.estimate.total_device_bytes,
                    t.estimate.fits,
                    Some(t.selection.usable),
                )
            }
        }
    };
    let (total_bytes, fits, usable) = measure(&at);
    let next = (value < top(&base, s.target)).then_some(value + 1);
    let past = next
        .and_then(|n| with(&base, s.target, n))
        .map(|j| measure(&j));
    Some(Proof {
        value,
        total_bytes,
        fits,
        next,
        next_total_bytes: past.map(|p| p.0),
        next_fits: past.map(|p| p.1),
        usable_bytes: usable,
        trainer: (at.mode == Mode::Train).then_some(at.train.trainer),
    })
}

/// Largest `x` in `lo..=hi` with `ok(x)`, given that `ok` holds up to some point and not past
/// it. `None` when even `lo` fails. Counts the evaluations.
fn largest(lo: u32, hi: u32, n: &mut u32, mut ok: impl FnMut(u32) -> bool) -> Option<u32> {
    *n += 1;
    if lo > hi || !ok(lo) {
        return None;
    }
    // The top of the range fits: done in one more step.
    *n += 1;
    if ok(hi) {
        return Some(hi);
    }
    // ok(good) and !ok(bad) hold throughout.
    let (mut good, mut bad) = (lo, hi);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        *n += 1;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

/// The most concurrent requests of `base.ctx` tokens that fit, searched in `1..=hi` (`base`
/// already normalized); `None` when not even one fits. `hi` below [`limits::PAR`]'s top is a
/// bound the caller knows (the frontier: slots never grow with the context). Counts the
/// evaluations in `n`.
pub(crate) fn max_par(base: &Inputs, hi: u32, n: &mut u32) -> Option<u32> {
    largest(limits::PAR.0, hi.min(limits::PAR.1), n, |p| {
        fits(&Inputs {
            par: p,
            ..base.clone()
        })
    })
}

/// Solve `inputs` for `target`, every other input held.
pub fn solve(inputs: &Inputs, target: Target) -> Solution {
    let mut base = inputs.clone();
    normalize(&mut base);
    let mut n = 0u32;
    let (value, message) = match target {
        Target::Ctx => longest_ctx(&base, &mut n),
        Target::Par => most_slots(&base, &mut n),
        Target::Cards if !base.gpus.is_empty() => fewest_of_the_list(&base, &mut n),
        Target::Cards => fewest_cards(&base, &mut n),
        Target::Gpu => smallest_gpu(&base, &mut n),
        Target::Bsz => largest_batch(&base, &mut n),
        Target::Seq => longest_seq(&base, &mut n),
        Target::Ncmoe if cfg!(feature = "cpu-moe") => fewest_expert_layers(&base, &mut n),
        Target::Ncmoe => (None, String::new()),
    };
    Solution {
        target,
        value,
        message,
        evaluations: n,
    }
}

/// The fewest leading layers whose routed experts llama.cpp (`--n-cpu-moe N`) or vLLM
/// (`--cpu-offload-params experts`) keeps in system RAM for the plan to fit: one more than the [`largest`] count that does not,
/// since each layer moved only takes bytes off the card (the KV cache, the router and the
/// shared experts stay).
fn fewest_expert_layers(base: &Inputs, n: &mut u32) -> (Option<String>, String) {
    use crate::catalog::engine::Engine;
    use crate::inputs::CpuMoe;
    let layers = catalog()
        .variant(&base.model)
        .filter(|(_, v)| v.arch.experts > 1)
        .map(|(_, v)| v.arch.layers);
    let Some(layers) = layers.filter(|_| matches!(base.engine, Engine::LlamaCpp | Engine::Vllm))
    else {
        return (
            None,
            "only llama.cpp (--n-cpu-moe) and vLLM (--cpu-offload-params experts) keep a mixture of experts' routed experts in system RAM: a MoE model on engine=llama.cpp or engine=vllm".into(),
        );
    };
    let at = |k: u32| Inputs {
        ncmoe: (k > 0).then_some(CpuMoe::Layers(k)),
        ..base.clone()
    };
    // The largest layer count that still does not fit; the answer is one more.
    match largest(0, layers, n, |k| !fits(&at(k))) {
        None => (Some("0".into()), "fits with every expert on the cards".into()),
        Some(k) if k >= layers => (
            None,
            "does not fit even with every layer's experts in system RAM (ncmoe=all)".into(),
        ),
        Some(k) => (
            Some((k + 1).to_string()),
            format!(
                "fits with the routed experts of the first {} of {layers} layers in system RAM (ncmoe={}: {})",
                k + 1,
                k + 1,
                if base.engine == Engine::Vllm {
                    "--cpu-offload-params experts"
                } else {
                    "--n-cpu-moe"
                }
            ),
        ),
    }
}

/// The longest context per request at the chosen slots.
fn longest_ctx(base: &Inputs, n: &mut u32) -> (Option<String>, String) {
    let r = largest(limits::CTX.0, ctx_max(base), n, |c| {
        fits(&Inputs {
            ctx: c,
            ..base.clone()
        })
    });
    match r {
        Some(c) => (
            Some(c.to_string()),
            format!("up to {c} tokens per request at {} slot(s)", base.par),
        ),
        None => (
            None,
            format!("not even 1 token fits at {} slot(s)", base.par),
        ),
    }
}

/// The most concurrent requests at the chosen context.
fn most_slots(base: &Inputs, n: &mut u32) -> (Option<String>, String) {
    let r = max_par(base, limits::PAR.1, n);
    match r {
        Some(p) => (
            Some(p.to_string()),
            format!("up to {p} concurrent request(s) of {} tokens", base.ctx),
        ),
        None => (
            None,
            format!("not even one request of {} tokens fits", base.ctx),
        ),
    }
}

/// With a list of cards (`gpus=`), the list is the cards: the shortest prefix of it that fits.
fn fewest_of_the_list(base: &Inputs, n: &mut u32) -> (Option<String>, String) {
    let at = |i: &Inputs| format!("{} slot(s) of {} tokens", i.par, i.ctx);
    let list = base.gpus.clone();
    let r = (1..=list.len()).find(|&c| {
        *n += 1;
        fits(&Inputs {
            gpus: list[..c].to_vec(),
            ..base.clone()
        })
    });
    match r {
        Some(c) => (
            Some(c.to_string()),
            format!(
                "the first {c} card(s) of the list ({}) for {}",
                list[..c].join(", "),
                at(base)
            ),
        ),
        None => (
            None,
            format!("all {} cards of the list are not enough", list.len()),
        ),
    }
}

/// The fewest cards of the chosen model.
fn fewest_cards(base: &Inputs, n: &mut u32) -> (Option<String>, String) {
    let at = |i: &Inputs| format!("{} slot(s) of {} tokens", i.par, i.ctx);
    let r = (limits::CARDS.0..=limits::CARDS.1).find(|&c| {
        *n += 1;
        fits(&Inputs {
            cards: c,
            ..base.clone()
        })
    });
    match r {
        Some(c) => (
            Some(c.to_string()),
            format!("{c} card(s) of {} for {}", base.gpu, at(base)),
        ),
        None => (
            None,
            format!("{} cards of {} are not enough", limits::CARDS.1, base.gpu),
        ),
    }
}

/// The catalog card with the least memory that fits, at the chosen card count (with a list:
/// as many cards of one model as the list holds).
fn smallest_gpu(base: &Inputs, n: &mut u32) -> (Option<String>, String) {
    let at = |i: &Inputs| format!("{} slot(s) of {} tokens", i.par, i.ctx);
    let mut gpus: Vec<_> = catalog().gpus.iter().collect();
    crate::order::sort_by_key(&mut gpus, |g| g.vram_bytes);
    // With a list of cards (`gpus=`): as many cards of one model as the list holds.
    let listed = base.gpus.len() as u32;
    let one_model = Inputs {
        gpus: Vec::new(),
        cards: if listed > 0 { listed } else { base.cards },
        ..base.clone()
    };
    let r = gpus.into_iter().find(|g| {
        *n += 1;
        fits(&Inputs {
            gpu: GpuChoice::Catalog(g.id.clone()),
            ..one_model.clone()
        })
    });
    let base = Inputs {
        cards: one_model.cards,
        ..base.clone()
    };
    match r {
        Some(g) => (
            Some(g.id.clone()),
            format!(
                "{} × {} ({}) for {}{}",
                base.cards,
                g.name,
                g.vram_bytes,
                at(&base),
                if listed > 0 {
                    " (as many cards as the list holds)"
                } else {
                    ""
                }
            ),
        ),
        None => (None, format!("no catalog GPU fits {} card(s)", base.cards)),
    }
}

/// Train mode: the largest batch at the chosen sequence.
fn largest_batch(base: &Inputs, n: &mut u32) -> (Option<String>, String) {
    let mut t = base.clone();
    t.mode = Mode::Train;
    let r = largest(limits::BSZ.0, limits::BSZ.1, n, |b| {
        let mut j = t.clone();
        j.train.bsz = b;
        fits(&j)
    });
    match r {
        Some(b) => (
            Some(b.to_string()),
            format!("batches up to {b} at sequence {}", base.train.seq),
        ),
        None => (None, "not even a batch of 1 fits".into()),
    }
}

/// Train mode: the longest sequence at the chosen batch.
fn longest_seq(base: &Inputs, n: &mut u32) -> (Option<String>, String) {
    let mut t = base.clone();
    t.mode = Mode::Train;
    let r = largest(limits::SEQ.0, limits::SEQ.1, n, |q| {
        let mut j = t.clone();
        j.train.seq = q;
        fits(&j)
    });
    match r {
        Some(q) => (
            Some(q.to_string()),
            format!("sequences up to {q} tokens at batch {}", base.train.bsz),
        ),
        None => (None, "not even a 1-token sequence fits".into()),
    }
}
