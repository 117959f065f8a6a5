//! Train mode: GPU memory for fine-tuning with Unsloth (QLoRA, LoRA, full fine-tuning).
//!
//! Specification: seed `unsloth-training-vram-estimation` (Unsloth Studio's
//! `VRAM_ESTIMATION.md` / `vram_estimation.py`). Every section is implemented:
//!
//! ```text
//! total = weights + lora + optimizer + gradients + activations + cuda_overhead
//! ```
//!
//! * §1 weights, §2 LoRA adapters, §3 optimizer states, §4 gradients, §5 activations, §6 floors,
//!   §7 CUDA overhead: [`terms`] (pure functions of the config; [`estimate_arch`]).
//! * §8 multi-GPU pool and automatic / explicit GPU selection: [`select`].
//!
//! **Unit decision.** The seed writes "GB"; it means GiB (2^30 bytes). Evidence: (a) its E2E
//! full-fine-tuning rows (Llama-3.2-1B: 10.89 and 13.19 "GB") come out at 10.886 and 13.188 only
//! in GiB (11.69 / 14.16 in 10^9); (b) its reference table's weight column (8B QLoRA 6.0, 8B 16-bit
//! 15.0, 32B 61.0, 72B 45.5) matches 6.02 / 14.96 / 61.03 / 45.51 GiB, not 6.46 / 16.06 / 65.5 /
//! 48.9 GB; (c) Unsloth's code writes `CUDA_OVERHEAD_BYTES = int(1.4 * 1024**3)`. So the 1.4 CUDA
//! overhead is 1.4 GiB here, and free memory per GPU (`free=`) is read in GiB too.
//!
//! **Floors.** The seed's text (§6) and Unsloth's code use 15 %: [`estimate_arch`] and
//! [`estimate`] use [`Floors::SEED`]. The seed's reference table, however, was printed with 20 %
//! floors ([`Floors::TABLE`], see the tests); its E2E table predates floors ([`Floors::NONE`]).
//! [`estimate_arch_with`] takes the floors explicitly for those comparisons.
//!
//! **Domain.** Dense and MoE decoder-only transformers with q/k/v/o and gate/up/down projections
//! (Llama, Qwen, Mistral). Activations are linear in `S` (flash attention / SDPA assumed); the
//! formula has no attention-score, logits/cross-entropy or on-GPU checkpoint term, so it
//! undershoots at long context and overshoots short runs where the floors dominate (see
//! `tests/training.rs` for the measured residuals).

pub mod command;
pub mod select;
pub mod terms;

pub use terms::{Breakdown, Floors};

use crate::catalog::{catalog, Arch, Variant};
use crate::estimate::{card_capacity, CardUse, Check, Estimate, Layout, Verdict};
use crate::inputs::quote;
use crate::inputs::{GradCkpt, Inputs, Method};
use crate::terms::{Place, Term};
use crate::units::Bytes;
use serde::Serialize;

/// Train-mode estimate: the common [`Estimate`] plus how the GPUs were chosen.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrainEstimate {
    #[serde(flatten)]
    pub estimate: Estimate,
    pub selection: Selection,
}

impl TrainEstimate {
    /// Usable pool of the picked GPUs minus the total (negative = short).
    pub fn headroom(&self) -> i128 {
        self.selection.usable.get() as i128 - self.estimate.total_device_bytes.get() as i128
    }
}

/// How the GPUs were chosen (§8).
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
    /// `"balanced"` with more than one GPU, else `"sequential"`.
    pub device_map: &'static str,
    pub message: String,
}

/// A family variant × method, for the train-mode ranking.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrainCandidate {
    pub model: String,
    pub name: String,
    /// `qlora`, `lora` or `full`.
    pub method: &'static str,
    pub capability_rank: u32,
    pub fits: bool,
    pub total: Bytes,
    /// GPUs used when it fits (`None` when it does not).
    pub gpus_needed: Option<u32>,
    /// Failed checks in words (empty when it fits).
    pub reasons: Vec<String>,
}

/// Pure terms for `t` on `arch`, with the seed's 15 % floors.
pub fn estimate_arch(arch: &Arch, t: &crate::inputs::TrainInputs) -> Breakdown {
    terms::breakdown(arch, t, Floors::SEED)
}

/// Pure terms with explicit floors ([`Floors::TABLE`], [`Floors::NONE`] for the seed's tables).
pub fn estimate_arch_with(
    arch: &Arch,
    t: &crate::inputs::TrainInputs,
    floors: Floors,
) -> Breakdown {
    terms::breakdown(arch, t, floors)
}

pub use crate::permalink::{method_id, optim_id};

pub fn gc_id(g: GradCkpt) -> &'static str {
    match g {
        GradCkpt::None => "none",
        GradCkpt::True => "true",
        GradCkpt::Unsloth => "unsloth",
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

/// Train-mode estimate for `i.model` (a catalog variant), `i.train` and the GPUs.
pub fn estimate(i: &Inputs) -> TrainEstimate {
    let free = free_per_gpu(i);
    match catalog().variant(&i.model) {
        Some((_, v)) => compute(i, v, free),
        None => unknown_model(i, free),
    }
}

fn unknown_model(i: &Inputs, free: Vec<Bytes>) -> TrainEstimate {
    TrainEstimate {
        estimate: Estimate {
            model: i.model.clone(),
            quant: quant_label(i.train.method).into(),
            engine: "unsloth",
            terms: Vec::new(),
            per_card: Vec::new(),
            total_device_bytes: Bytes::ZERO,
            total_host_bytes: Bytes::ZERO,
            fits: false,
            verdict: Verdict::DoesNotFit,
            layout: Layout::Single,
            checks: vec![Check::hard(
                "model_known",
                false,
                format!("model {} is not in the catalog", quote(&i.model)),
            )],
            warnings: Vec::new(),
            command: String::new(),
            notices: Vec::new(),
        },
        selection: Selection {
            free,
            picked: Vec::new(),
            auto: i.train.pick.is_empty(),
            usable: Bytes::ZERO,
            device_map: "sequential",
            message: "no architecture: nothing to place".into(),
        },
    }
}

fn quant_label(m: Method) -> &'static str {
    match m {
        Method::Qlora => "bnb-nf4",
        Method::Lora | Method::Full => "BF16",
    }
}

const PROV_WEIGHTS: &str = "Seed §1 (Unsloth Studio vram_estimation): QKVO=(H+2K+H)·H, MLP=H·M·3·E (+E·H router), NF4 at 2/3.2 B/param for q/k/v/o/gate/up/down, norms/embeddings/LM head at 2 B. Parameter count from the config, not file size. Domain: dense and MoE Llama/Qwen-style decoders; K=(H/heads)·kv_heads as the seed writes it.";
const PROV_LORA: &str = "Seed §2: A=in×r, B=r×out per selected module, MLP modules ×E for MoE, × L layers × 2 B. Zero for full fine-tuning.";
const PROV_OPTIM: &str = "Seed §3: bytes per trainable parameter calibrated by Unsloth (adamw_8bit 4, adamw_torch 6, paged_adamw_32bit 8, sgd 4); trainable = all parameters (full FT) or LoRA parameters.";
const PROV_GRADS: &str = "Seed §4 + §6: 2 B per trainable parameter, floored at 15 % of the weights (autograd, NCCL, fragmentation).";
const PROV_ACTS: &str = "Seed §5 + §6: per layer (S·B·(H+2K) + 2·S·B + 2·S·B·M)·2·1.25 (unsloth_zoo), × layers kept (GC off: L; HF GC: 2.0 full / 1.0 LoRA; Unsloth GC: 1.5 full / 1.0 LoRA), floored at 15 % × weights × B/2. Linear in S (flash attention); no logits or attention-score term.";
const PROV_CUDA: &str = "Seed §7: 1.4 GiB fixed for the CUDA driver and PyTorch runtime, calibrated by Unsloth on an RTX 5070 Ti.";

fn compute(i: &Inputs, v: &Variant, free: Vec<Bytes>) -> TrainEstimate {
    let t = &i.train;
    let b = estimate_arch(&v.arch, t);
    let d = b.dims;
    let total = b.total();

    let targets = t.target_names();
    let floor_note = |floored: bool, what: Bytes| {
        if floored {
            format!(" → floor {} applies", what)
        } else {
            String::new()
        }
    };
    let pct = (b.floors.fraction * 100.0).round();
    let terms = vec![
        Term {
            name: "weights",
            label: "Model weights",
            bytes: b.weights,
            place: Place::Device,
            formula: match t.method {
                Method::Qlora => format!(
                    "{} quantizable × 2/3.2 + {} other × 2 B (H {}, L {}, K {}, M {}, E {}, V {}{})",
                    d.quantizable(), d.non_quantizable(), d.h, d.l, d.k, d.m, d.e, d.v,
                    if d.tied { ", tied" } else { "" }
                ),
                _ => format!(
                    "{} parameters × 2 B (H {}, L {}, K {}, M {}, E {}, V {}{})",
                    b.total_params, d.h, d.l, d.k, d.m, d.e, d.v,
                    if d.tied { ", tied" } else { "" }
                ),
            },
            provenance: PROV_WEIGHTS,
        },
        Term {
            name: "lora",
            label: "LoRA adapters",
            bytes: b.lora,
            place: Place::Device,
            formula: if t.method == Method::Full {
                "full fine-tuning: no adapters".into()
            } else {
                format!(
                    "{} parameters (r {}, targets {}{}) × 2 B",
                    b.lora_params,
                    t.rank,
                    targets.join(","),
                    if d.e > 1 { format!(", MLP ×{} experts", d.e) } else { String::new() }
                )
            },
            provenance: PROV_LORA,
        },
        Term {
            name: "optimizer",
            label: "Optimizer states",
            bytes: b.optimizer,
            place: Place::Device,
            formula: format!(
                "{} trainable × {} B ({})",
                b.trainable_params,
                terms::optimizer_bytes_per_param(t.optim),
                optim_id(t.optim)
            ),
            provenance: PROV_OPTIM,
        },
        Term {
            name: "gradients",
            label: "Gradients",
            bytes: b.gradients,
            place: Place::Device,
            formula: format!(
                "max({} trainable × 2 B = {}, {pct} % × weights){}",
                b.trainable_params,
                b.gradients_computed,
                floor_note(b.gradients_floored(), b.gradients)
            ),
            provenance: PROV_GRADS,
        },
        Term {
            name: "activations",
            label: "Activations",
            bytes: b.activations,
            place: Place::Device,
            formula: format!(
                "max({} per layer (S {}, B {}) × {} layers = {}, {pct} % × weights × B/2){}",
                b.activation_per_layer,
                t.seq,
                t.bsz,
                b.activation_layers,
                b.activations_computed,
                floor_note(b.activations_floored(), b.activations)
            ),
            provenance: PROV_ACTS,
        },
        Term {
            name: "cuda_overhead",
            label: "CUDA overhead",
            bytes: b.cuda_overhead,
            place: Place::Device,
            formula: "1.4 GiB fixed".into(),
            provenance: PROV_CUDA,
        },
    ];

    // §8 selection.
    let auto = t.pick.is_empty();
    let choice = if auto {
        select::auto(&free, total)
    } else {
        select::explicit(&free, &t.pick, total)
    };
    let device_map = if choice.picked.len() > 1 {
        "balanced"
    } else {
        "sequential"
    };
    let per_card = per_card(&free, &choice.picked, &terms);

    let mut checks = vec![Check::hard(
        "vram_pool",
        total <= choice.usable && !choice.picked.is_empty(),
        choice.message.clone(),
    )];
    // Every picked GPU must hold its share: one without free memory cannot take any layer.
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
    if !choice.picked.is_empty() {
        checks.push(Check::hard(
            "gpu_room",
            short.is_empty(),
            if short.is_empty() {
                format!(
                    "each of the {} holds its share",
                    select::gpus(&choice.picked)
                )
            } else {
                short.join("; ")
            },
        ));
    }
    if !auto {
        checks.push(Check::hard(
            "explicit_gpus",
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
    let fits = checks.iter().all(Check::passes);
    let verdict = Verdict::from_headroom(fits, choice.usable.get() as i128 - total.get() as i128);

    let mut warnings = Vec::new();
    if v.arch.head_dim * u64::from(v.arch.heads) != v.arch.hidden {
        warnings.push(format!(
            "head_dim × heads ({}) ≠ hidden ({}): the seed's formula sizes attention with K = (H/heads)·kv_heads = {}, not the real projection widths (head_dim × kv_heads).",
            v.arch.head_dim * u64::from(v.arch.heads), v.arch.hidden, d.k
        ));
    }
    if b.gradients_floored() || b.activations_floored() {
        warnings.push(format!(
            "The {pct} % floors of seed §6 raise {}: a safety margin, not a computed need.",
            match (b.gradients_floored(), b.activations_floored()) {
                (true, true) => "gradients and activations",
                (true, false) => "gradients",
                _ => "activations",
            }
        ));
    }
    if t.seq >= 16384 {
        warnings.push("Long sequences: the formula has no logits or attention-score term and keeps one layer of activations on the GPU; measured peaks grow faster with the sequence length.".into());
    }

    let estimate = Estimate {
        model: v.id.clone(),
        quant: quant_label(t.method).into(),
        engine: "unsloth",
        command: command::command(&v.id, t, &choice.picked, device_map),
        terms,
        per_card,
        total_device_bytes: total,
        total_host_bytes: Bytes::ZERO,
        fits,
        verdict,
        layout: if choice.picked.len() > 1 {
            Layout::Layer
        } else {
            Layout::Single
        },
        checks,
        warnings,
        notices: Vec::new(),
    };
    TrainEstimate {
        estimate,
        selection: Selection {
            free,
            picked: choice.picked,
            auto,
            usable: choice.usable,
            device_map,
            message: choice.message,
        },
    }
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
            let parts: Vec<(&'static str, Bytes)> = terms
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

/// Every variant of `i.model`'s family × method (full, lora, qlora) on the GPUs of `i`: those that
/// fit first; within each group the most capable variant first (`capability_rank`), then the
/// higher-precision method (full > lora > qlora).
pub fn rank(i: &Inputs) -> Vec<TrainCandidate> {
    let Some((fam, _)) = catalog().variant(&i.model) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for v in &fam.variants {
        for m in [Method::Full, Method::Lora, Method::Qlora] {
            let mut j = i.clone();
            j.model.clone_from(&v.id);
            j.train.method = m;
            let e = estimate(&j);
            out.push(TrainCandidate {
                model: v.id.clone(),
                name: v.name.clone(),
                method: method_id(m),
                capability_rank: v.capability_rank,
                fits: e.estimate.fits,
                total: e.estimate.total_device_bytes,
                gpus_needed: e.estimate.fits.then_some(e.selection.picked.len() as u32),
                reasons: e.estimate.reasons(),
            });
        }
    }
    let precision = |m: &str| match m {
        "full" => 0,
        "lora" => 1,
        _ => 2,
    };
    out.sort_by(|a, b| {
        b.fits
            .cmp(&a.fits)
            .then(a.capability_rank.cmp(&b.capability_rank))
            .then(precision(a.method).cmp(&precision(b.method)))
    });
    out
}
