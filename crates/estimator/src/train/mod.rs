//! Train mode: GPU memory for fine-tuning with Unsloth (QLoRA, LoRA, full fine-tuning).
//!
//! Specification: Unsloth Studio's estimator, `studio/backend/utils/hardware/VRAM_ESTIMATION.md`
//! and `vram_estimation.py` in github.com/unslothai/unsloth. Every part is implemented:
//!
//! ```text
//! total = weights + lora + optimizer + gradients + activations + cuda_overhead
//! ```
//!
//! * weights, LoRA adapters, optimizer states, gradients, activations, floors, CUDA overhead: [`terms`] (pure functions of the config; [`estimate_arch`]).
//! * the multi-GPU pool and automatic / explicit GPU selection: [`select`].
//!
//! **Unit decision.** The document writes "GB"; it means GiB (2^30 bytes). Evidence: (a) its E2E
//! full-fine-tuning rows (Llama-3.2-1B: 10.89 and 13.19 "GB") come out at 10.886 and 13.188 only
//! in GiB (11.69 / 14.16 in 10^9); (b) its reference table's weight column (8B QLoRA 6.0, 8B 16-bit
//! 15.0, 32B 61.0, 72B 45.5) matches 6.02 / 14.96 / 61.03 / 45.51 GiB, not 6.46 / 16.06 / 65.5 /
//! 48.9 GB; (c) Unsloth's code writes `CUDA_OVERHEAD_BYTES = int(1.4 * 1024**3)`. So the 1.4 CUDA
//! overhead is 1.4 GiB here, and free memory per GPU (`free=`) is read in GiB too.
//!
//! **Floors.** The document's text and Unsloth's code use 15 %: [`estimate_arch`] and
//! [`estimate`] use [`Floors::SEED`]. The document's reference table, however, was printed with 20 %
//! floors ([`Floors::TABLE`], see the tests); its E2E table predates floors ([`Floors::NONE`]).
//! [`estimate_arch_with`] takes the floors explicitly for those comparisons.
//!
//! **Domain.** Dense and MoE decoder-only transformers with q/k/v/o and gate/up/down projections
//! (Llama, Qwen, Mistral). Activations are linear in `S` (flash attention / SDPA assumed); the
//! formula has no attention-score, logits/cross-entropy or on-GPU checkpoint term, so it
//! undershoots at long context and overshoots short runs where the floors dominate (see
//! `tests/training.rs` for the measured residuals).

pub mod command;
mod describe;
pub mod profile;
mod rank;
pub mod select;
pub mod terms;

pub use profile::{Mechanism, Profile, ProfileBreakdown};
pub use rank::{rank, TrainCandidate};
pub use terms::{Breakdown, Floors};

use crate::catalog::{catalog, Arch, Variant};
use crate::estimate::{CardUse, Check, CheckName, Estimate, Sharing, Verdict};
use crate::inputs::normalize::normalize;
use crate::inputs::{quote, Inputs, Method, TrainInputs, Trainer};
use crate::serve::card_capacity;
use crate::terms::{Place, Term, TermName};
use crate::units::{Bytes, SignedBytes};
use serde::Serialize;

/// Train-mode estimate: the common [`Estimate`] plus how the GPUs were chosen.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrainEstimate {
    /// Terms, per-GPU shares, checks and verdict, as in serve mode.
    #[serde(flatten)]
    pub estimate: Estimate,
    /// How the GPUs were chosen.
    pub selection: Selection,
    /// The trainer profile the numbers model.
    pub trainer: Trainer,
    /// What the bars are made of (empty for `unsloth-formula`, whose terms are the bars).
    pub mechanisms: Vec<Mechanism>,
}

impl TrainEstimate {
    /// Usable pool of the picked GPUs minus the total (negative = short).
    pub fn headroom(&self) -> SignedBytes {
        SignedBytes::diff(self.selection.usable, self.estimate.total_device_bytes)
    }
}

ids! {
    /// How transformers/accelerate places the model over the picked GPUs (`device_map=`).
    DeviceMap {
        /// One GPU.
        Sequential = "sequential",
        /// Several GPUs.
        Balanced = "balanced",
    }
}

/// How the GPUs were chosen.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Selection {
    /// Free memory per GPU (from `free=`, or `cards` × the card's capacity).
    pub free: Vec<Bytes>,
    /// GPU indices used, in pool order (the first counts fully).
    pub picked: Vec<u32>,
    /// True when chosen automatically (no explicit `pick=`).
    pub auto: bool,
    /// `free[first] + Σ 0.85 × free[others]` over `picked`.
    pub usable: Bytes,
    /// `balanced` with more than one GPU, else `sequential`.
    pub device_map: DeviceMap,
    /// The selection in words.
    pub message: String,
}

/// Pure terms for `t` on `arch`, with the 15 % floors of Unsloth's estimator.
pub fn estimate_arch(arch: &Arch, t: &TrainInputs) -> Breakdown {
    terms::breakdown(arch, t, Floors::SEED)
}

/// Pure terms with explicit floors ([`Floors::TABLE`], [`Floors::NONE`] for the published
/// tables).
pub fn estimate_arch_with(arch: &Arch, t: &TrainInputs, floors: Floors) -> Breakdown {
    terms::breakdown(arch, t, floors)
}

/// Train-mode terms of `t` on `arch` for the trainer profile `t.trainer`: the published formula
/// ([`estimate_arch`], 15 % floors) for `unsloth-formula`, else the profile's mechanisms. The
/// six bars in order (weights, LoRA, optimizer, gradients, activations, CUDA overhead) and the
/// mechanisms behind them.
pub fn estimate_trainer(arch: &Arch, t: &TrainInputs) -> ([(TermName, Bytes); 6], Vec<Mechanism>) {
    match Profile::of(t.trainer) {
        None => {
            let b = estimate_arch(arch, t);
            (
                [
                    (TermName::Weights, b.weights),
                    (TermName::Lora, b.lora),
                    (TermName::Optimizer, b.optimizer),
                    (TermName::Gradients, b.gradients),
                    (TermName::Activations, b.activations),
                    (TermName::CudaOverhead, b.cuda_overhead),
                ],
                Vec::new(),
            )
        }
        Some(p) => {
            let b = profile::breakdown(arch, t, p);
            (b.bars, b.mechanisms)
        }
    }
}

/// Free memory per GPU for these inputs: `train.free` (GiB) or `cards` × the card's capacity.
pub fn free_per_gpu(i: &Inputs) -> Vec<Bytes> {
    if i.train.free.is_empty() {
        vec![card_capacity(i); i.cards.max(1) as usize]
    } else {
        i.train.free.iter().map(|&g| Bytes::from_gib(g)).collect()
    }
}

/// Train-mode estimate for `i.model` (a catalog variant), `i.train` and the GPUs. The inputs go
/// through [`normalize`] first, as in serve mode; what it changed is in `notices`.
pub fn estimate(inputs: &Inputs) -> TrainEstimate {
    let mut i = inputs.clone();
    let notices = normalize(&mut i);
    let free = free_per_gpu(&i);
    let mut t = match catalog().variant(&i.model) {
        Some((_, v)) => {
            let mut t = compute(&i, v, free);
            describe::describe(&mut t, &i, v);
            t
        }
        None => unknown_model(&i, free),
    };
    t.estimate.notices = notices;
    t
}

fn unknown_model(i: &Inputs, free: Vec<Bytes>) -> TrainEstimate {
    TrainEstimate {
        estimate: Estimate::refusal(
            &i.model,
            quant_label(i.train.method),
            engine_label(i.train.trainer),
            Vec::new(),
            Check::hard(
                CheckName::ModelKnown,
                false,
                format!("model {} is not in the catalog", quote(&i.model)),
            ),
        ),
        selection: Selection {
            free,
            picked: Vec::new(),
            auto: i.train.pick.is_empty(),
            usable: Bytes::ZERO,
            device_map: DeviceMap::Sequential,
            message: "no architecture: nothing to place".into(),
        },
        trainer: i.train.trainer,
        mechanisms: Vec::new(),
    }
}

/// The `engine` of a train estimate: `unsloth` for both Unsloth profiles, else the trainer.
pub fn engine_label(t: Trainer) -> &'static str {
    match t {
        Trainer::Unsloth | Trainer::UnslothFormula => "unsloth",
        Trainer::Transformers | Trainer::Llamafactory => t.id(),
    }
}

/// The weights' format for a method: NF4 for QLoRA, 16 bit otherwise.
pub(crate) fn quant_label(m: Method) -> &'static str {
    match m {
        Method::Qlora => "bnb-nf4",
        Method::Lora | Method::Full => "BF16",
    }
}

/// The numbers: terms, GPU selection, per-GPU shares and checks (no formula texts).
pub(crate) fn compute(i: &Inputs, v: &Variant, free: Vec<Bytes>) -> TrainEstimate {
    let t = &i.train;
    let (bars, mechanisms) = estimate_trainer(&v.arch, t);
    let total: Bytes = bars.iter().map(|b| b.1).sum();
    let terms: Vec<Term> = bars
        .into_iter()
        .map(|(n, bytes)| Term::new(n, bytes, Place::Device))
        .collect();

    // GPU selection (the pool rule of `select`).
    let auto = t.pick.is_empty();
    let choice = if auto {
        select::auto(&free, total)
    } else {
        select::explicit(&free, &t.pick, total)
    };
    let multi = choice.picked.len() > 1;
    let per_card = per_card(&free, &choice.picked, &terms);
    let checks = checks(t, &choice, &per_card, total);
    let fits = checks.iter().all(Check::passes);
    let verdict = Verdict::from_headroom(fits, SignedBytes::diff(choice.usable, total));

    TrainEstimate {
        estimate: Estimate {
            model: v.id.clone(),
            quant: quant_label(t.method).into(),
            format: None,
            engine: engine_label(t.trainer),
            command: String::new(),
            terms,
            per_card,
            total_device_bytes: total,
            total_host_bytes: Bytes::ZERO,
            offload: None,
            fits,
            verdict,
            layout: if multi {
                Sharing::Layer
            } else {
                Sharing::Single
            },
            mmproj_bytes: None,
            kv_pool_bytes: None,
            kv_pool_tokens: None,
            max_concurrency: None,
            startup_fix: None,
            layouts: Vec::new(),
            parallel: None,
            checks,
            warnings: Vec::new(),
            speed: None,
            commands: Vec::new(),
            #[cfg(feature = "extras")]
            models: Vec::new(),
            notices: Vec::new(),
        },
        selection: Selection {
            free,
            picked: choice.picked,
            auto,
            usable: choice.usable,
            device_map: if multi {
                DeviceMap::Balanced
            } else {
                DeviceMap::Sequential
            },
            message: choice.message,
        },
        trainer: t.trainer,
        mechanisms,
    }
}

/// The hard checks of train mode: the pool holds the total, each picked GPU holds its share,
/// and the GPUs of an explicit `pick=` exist.
fn checks(
    t: &TrainInputs,
    choice: &select::Choice,
    per_card: &[CardUse],
    total: Bytes,
) -> Vec<Check> {
    let mut checks = vec![Check::hard(
        CheckName::VramPool,
        total <= choice.usable && !choice.picked.is_empty(),
        choice.message.clone(),
    )];
    if !choice.picked.is_empty() {
        checks.push(gpu_room(per_card, &choice.picked));
    }
    if !t.pick.is_empty() {
        checks.push(Check::hard(
            CheckName::ExplicitGpus,
            choice.invalid.is_empty(),
            if choice.invalid.is_empty() {
                format!(
                    "GPU(s) {} exist and are used as given",
                    select::list(&t.pick)
                )
            } else {
                choice.invalid.join("; ")
            },
        ));
    }
    checks
}

/// Every picked GPU must hold its share: one without free memory cannot take any layer.
fn gpu_room(per_card: &[CardUse], picked: &[u32]) -> Check {
    let short: Vec<String> = per_card
        .iter()
        .filter(|c| c.capacity == Bytes::ZERO || c.bytes > c.budget)
        .map(|c| {
            if c.capacity == Bytes::ZERO {
                format!("GPU {} is picked but has no free memory", c.index)
            } else {
                format!(
                    "GPU {} would hold {} but adds only {} to the pool",
                    c.index, c.bytes, c.budget
                )
            }
        })
        .collect();
    Check::hard(
        CheckName::GpuRoom,
        short.is_empty(),
        if short.is_empty() {
            format!("each of the {} holds its share", select::gpus(picked))
        } else {
            short.join("; ")
        },
    )
}

/// One [`CardUse`] per picked GPU. Every term is split over the GPUs in proportion to what each
/// adds to the pool (`1.0 × free` for the first, `0.85 × free` for the others), so a card's
/// `bytes ≤ budget` exactly when the total fits the pool. `capacity` = that GPU's free memory,
/// `budget` = its pool contribution.
fn per_card(free: &[Bytes], picked: &[u32], terms: &[Term]) -> Vec<CardUse> {
    let split: Vec<Vec<Bytes>> = terms
        .iter()
        .map(|t| select::shares(free, picked, t.bytes))
        .collect();
    picked
        .iter()
        .enumerate()
        .map(|(pos, &g)| {
            let parts: Vec<(TermName, Bytes)> = terms
                .iter()
                .zip(&split)
                .map(|(t, s)| (t.name, s[pos]))
                .collect();
            CardUse {
                index: g,
                bytes: parts.iter().map(|p| p.1).sum(),
                capacity: free[g as usize],
                budget: free[g as usize].scale(select::weight(pos)),
                terms: parts,
            }
        })
        .collect()
}
