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
//!   that fit the GPUs (binary search: memory never shrinks as either grows,
//!   property-tested).

use crate::catalog::catalog;
use crate::estimate::estimate;
use crate::inputs::{limits, GpuChoice, Inputs, Mode};
use crate::permalink::normalize;
use crate::training;
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

/// Does the configuration fit (serve or train)?
fn fits(i: &Inputs) -> bool {
    match i.mode {
        Mode::Serve => estimate(i).fits,
        Mode::Train => training::estimate(i).estimate.fits,
    }
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

/// Solve `inputs` for `target`, every other input held.
pub fn solve(inputs: &Inputs, target: Target) -> Solution {
    let mut base = inputs.clone();
    normalize(&mut base);
    let mut n = 0u32;
    let at = |i: &Inputs| format!("{} slot(s) of {} tokens", i.par, i.ctx);
    let (value, message) = match target {
        Target::Ctx => {
            // With YaRN where the publisher validated it (not on Ollama, which cannot enable it).
            let max = catalog()
                .variant(&base.model)
                .map_or(limits::CTX.1, |(_, v)| match &v.arch.yarn {
                    Some(y) if base.engine != crate::engine::Engine::Ollama => y.max_ctx(),
                    _ => v.arch.max_ctx,
                });
            let r = largest(limits::CTX.0, max.min(limits::CTX.1), &mut n, |c| {
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
        Target::Par => {
            let r = largest(limits::PAR.0, limits::PAR.1, &mut n, |p| {
                fits(&Inputs {
                    par: p,
                    ..base.clone()
                })
            });
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
        Target::Cards => {
            let r = (limits::CARDS.0..=limits::CARDS.1).find(|&c| {
                n += 1;
                fits(&Inputs {
                    cards: c,
                    ..base.clone()
                })
            });
            match r {
                Some(c) => (
                    Some(c.to_string()),
                    format!("{c} card(s) of {} for {}", base.gpu, at(&base)),
                ),
                None => (
                    None,
                    format!("{} cards of {} are not enough", limits::CARDS.1, base.gpu),
                ),
            }
        }
        Target::Gpu => {
            let mut gpus: Vec<_> = catalog().gpus.iter().collect();
            gpus.sort_by_key(|g| g.vram_bytes);
            let r = gpus.into_iter().find(|g| {
                n += 1;
                fits(&Inputs {
                    gpu: GpuChoice::Catalog(g.id.clone()),
                    ..base.clone()
                })
            });
            match r {
                Some(g) => (
                    Some(g.id.clone()),
                    format!(
                        "{} × {} ({}) for {}",
                        base.cards,
                        g.name,
                        g.vram_bytes,
                        at(&base)
                    ),
                ),
                None => (None, format!("no catalog GPU fits {} card(s)", base.cards)),
            }
        }
        Target::Bsz => {
            let mut t = base.clone();
            t.mode = Mode::Train;
            let r = largest(limits::BSZ.0, limits::BSZ.1, &mut n, |b| {
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
        Target::Seq => {
            let mut t = base.clone();
            t.mode = Mode::Train;
            let r = largest(limits::SEQ.0, limits::SEQ.1, &mut n, |q| {
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
    };
    Solution {
        target,
        value,
        message,
        evaluations: n,
    }
}
