//! Words for the numbers of train mode: each term's formula with this configuration's values,
//! its provenance, the warnings, and the training script. Kept apart from the arithmetic
//! ([`super::compute`]) so that the ranking builds no sentence.

use super::{command, estimate_arch, terms, Breakdown, TrainEstimate};
use crate::catalog::Variant;
use crate::inputs::{Inputs, Method, TrainInputs};
use crate::terms::TermName;
use crate::units::Bytes;

/// Source of the formula: Unsloth Studio's estimator (`studio/backend/utils/hardware/vram_estimation.py`
/// in unslothai/unsloth, with its `VRAM_ESTIMATION.md`).
const PROV_WEIGHTS: &str = prose!("Unsloth Studio's VRAM estimator (unslothai/unsloth, vram_estimation.py): QKVO = (H+2K+H)·H, MLP = H·M·3·E (+E·H router); NF4 at 2/3.2 B per parameter for q/k/v/o/gate/up/down, norms, embeddings and LM head at 2 B. Parameter count from the config, not the file size. Domain: dense and MoE Llama/Qwen-style decoders; K = (H/heads)·kv_heads as the estimator writes it.");
const PROV_LORA: &str = prose!("Unsloth Studio's VRAM estimator: A = in×r, B = r×out per selected module, MLP modules ×E for MoE, × L layers × 2 B. Zero for full fine-tuning.");
const PROV_OPTIM: &str = prose!("Unsloth Studio's VRAM estimator: bytes per trainable parameter (adamw_8bit 4, adamw_torch 6, paged_adamw_32bit 8, sgd 4) as Unsloth calibrated them; trainable = all parameters (full fine-tuning) or the LoRA parameters.");
const PROV_GRADS: &str = prose!("Unsloth Studio's VRAM estimator: 2 B per trainable parameter, floored at 15 % of the weights (autograd, NCCL, fragmentation).");
const PROV_ACTS: &str = prose!("Unsloth Studio's VRAM estimator (from unsloth_zoo): per layer (S·B·(H+2K) + 2·S·B + 2·S·B·M)·2·1.25, × layers kept (no checkpointing: L; Hugging Face: 2.0 full / 1.0 LoRA; Unsloth: 1.5 full / 1.0 LoRA), floored at 15 % × weights × B/2. Linear in S (flash attention); no logits or attention-score term.");
const PROV_CUDA: &str = prose!("Unsloth Studio's VRAM estimator: 1.4 GiB fixed for the CUDA driver and PyTorch runtime (CUDA_OVERHEAD_BYTES), calibrated by Unsloth on an RTX 5070 Ti.");

/// Where Unsloth's formula was checked.
const DOMAIN: &str = prose!("Unsloth's estimator: dense and MoE Llama/Qwen-style decoders; its own end-to-end validation on Llama-3.2-1B (within 4 % but for one row; the accuracy report); linear in the sequence length (flash attention), no logits or attention-score term.");

/// Fill in the formulas, provenance, warnings and command of `te`.
pub(crate) fn describe(te: &mut TrainEstimate, i: &Inputs, v: &Variant) {
    let t = &i.train;
    if te.mechanisms.is_empty() {
        describe_formula(te, t, v);
    } else {
        describe_profile(te, t, v);
    }
    te.estimate.command =
        command::command(&v.id, t, &te.selection.picked, te.selection.device_map.id());
}

/// Words for Unsloth's published formula: each term with this configuration's values.
fn describe_formula(te: &mut TrainEstimate, t: &TrainInputs, v: &Variant) {
    let b = estimate_arch(&v.arch, t);
    for term in &mut te.estimate.terms {
        let (formula, provenance) = term_text(term.name, t, &b);
        term.formula = formula;
        term.provenance = provenance;
        term.domain = DOMAIN;
    }
    te.estimate.warnings = formula_warnings(t, v, &b);
}

/// The floors' share of the weights, in percent.
fn floor_pct(b: &Breakdown) -> crate::units::Shortest {
    crate::units::Shortest((b.floors.fraction * 100.0).round())
}

/// " → floor … applies" when the floor raised the term to `what`.
fn floor_note(floored: bool, what: Bytes) -> String {
    if floored {
        format!(" → floor {what} applies")
    } else {
        String::new()
    }
}

/// One term's formula with this configuration's values, and its provenance.
fn term_text(name: TermName, t: &TrainInputs, b: &Breakdown) -> (String, &'static str) {
    let pct = floor_pct(b);
    match name {
        TermName::Weights => (weights_formula(t, b), PROV_WEIGHTS),
        TermName::Lora => (lora_formula(t, b), PROV_LORA),
        TermName::Optimizer => (
            format!(
                "{} trainable × {} B ({})",
                b.trainable_params,
                terms::optimizer_bytes_per_param(t.optim),
                t.optim
            ),
            PROV_OPTIM,
        ),
        TermName::Gradients => (
            format!(
                "max({} trainable × 2 B = {}, {pct} % × weights){}",
                b.trainable_params,
                b.gradients_computed,
                floor_note(b.gradients_floored(), b.gradients)
            ),
            PROV_GRADS,
        ),
        TermName::Activations => (
            format!(
                "max({} per layer (S {}, B {}) × {} layers = {}, {pct} % × weights × B/2){}",
                b.activation_per_layer,
                t.seq,
                t.bsz,
                crate::units::Shortest(b.activation_layers),
                b.activations_computed,
                floor_note(b.activations_floored(), b.activations)
            ),
            PROV_ACTS,
        ),
        TermName::CudaOverhead => ("1.4 GiB fixed".into(), PROV_CUDA),
        // Serve-mode terms never appear here.
        TermName::KvCache
        | TermName::Overhead
        | TermName::WeightsHost
        | TermName::Logits
        | TermName::LayersHost
        | TermName::KvHost
        | TermName::ExpertsHost
        | TermName::DraftWeights
        | TermName::DraftKvCache
        | TermName::LoraAdapters
        | TermName::WithModels => (String::new(), ""),
    }
}

/// The weights' formula, with the dimensions it was computed from.
fn weights_formula(t: &TrainInputs, b: &Breakdown) -> String {
    let d = b.dims;
    let dims = format!(
        "H {}, L {}, K {}, M {}, E {}, V {}{}",
        d.h,
        d.l,
        d.k,
        d.m,
        d.e,
        d.v,
        if d.tied { ", tied" } else { "" }
    );
    match t.method {
        Method::Qlora => format!(
            "{} quantizable × 2/3.2 + {} other × 2 B ({dims})",
            d.quantizable(),
            d.non_quantizable()
        ),
        Method::Lora | Method::Full => {
            format!("{} parameters × 2 B ({dims})", b.total_params)
        }
    }
}

/// The adapters' formula (none for full fine-tuning).
fn lora_formula(t: &TrainInputs, b: &Breakdown) -> String {
    if t.method == Method::Full {
        return "full fine-tuning: no adapters".into();
    }
    format!(
        "{} parameters (r {}, targets {}{}) × 2 B",
        b.lora_params,
        t.rank,
        t.targets,
        if b.dims.e > 1 {
            format!(", MLP ×{} experts", b.dims.e)
        } else {
            String::new()
        }
    )
}

/// Where Unsloth's formula departs from the model: attention widths it does not size, floors
/// that raise a term, long sequences.
fn formula_warnings(t: &TrainInputs, v: &Variant, b: &Breakdown) -> Vec<String> {
    let pct = floor_pct(b);
    let mut warnings = Vec::new();
    if v.arch.head_dim * u64::from(v.arch.heads) != v.arch.hidden {
        warnings.push(format!(
            "head_dim × heads ({}) ≠ hidden ({}): Unsloth's formula sizes attention with K = (H/heads)·kv_heads = {}, not the real projection widths (head_dim × kv_heads).",
            v.arch.head_dim * u64::from(v.arch.heads), v.arch.hidden, b.dims.k
        ));
    }
    if b.gradients_floored() || b.activations_floored() {
        warnings.push(format!(
            "The {pct} % floors of Unsloth's estimator raise {}: a safety margin, not a computed need.",
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
    warnings
}

/// Words for a trainer profile: each bar's formula is its mechanisms' formulas.
fn describe_profile(te: &mut TrainEstimate, t: &TrainInputs, v: &Variant) {
    for term in &mut te.estimate.terms {
        let parts: Vec<&super::Mechanism> = te
            .mechanisms
            .iter()
            .filter(|m| m.term == term.name)
            .collect();
        term.formula = parts
            .iter()
            .map(|m| format!("{}: {}", m.name, m.formula))
            .collect::<Vec<_>>()
            .join("; ");
        term.provenance = match (term.name, parts.first()) {
            (TermName::Activations, _) => super::profile::PROV_ACTIVATIONS,
            (_, Some(m)) => m.provenance,
            (_, None) => "",
        };
        term.domain = super::profile::DOMAIN;
    }
    let mut warnings = vec![format!(
        "Trainer profile {}: the mechanisms of that trainer; trainer=unsloth-formula gives Unsloth's published formula.",
        t.trainer
    )];
    if t.gc == crate::inputs::GradCkpt::Unsloth && t.trainer == crate::inputs::Trainer::Unsloth {
        let host = Bytes(
            u64::from(t.bsz.max(1))
                * u64::from(t.seq)
                * u64::from(v.arch.layers)
                * v.arch.hidden
                * 2,
        );
        warnings.push(format!(
            "Unsloth's checkpointing keeps {host} of layer inputs in host RAM instead of on the card."
        ));
    }
    te.estimate.warnings = warnings;
}
