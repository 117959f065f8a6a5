//! The six memory terms of train mode as pure functions of an [`Arch`] and [`TrainInputs`]
//! (Unsloth Studio's `VRAM_ESTIMATION.md`). No catalog, no GPUs: [`super::estimate_arch`]
//! and the tests call this directly.
//!
//! Symbols are the document's: `H` hidden, `L` layers, `V` vocab,
//! `K = (H / heads) × kv_heads` (integer division, as the document writes it — **not** `head_dim ×
//! kv_heads`; for Qwen3 and Gemma, whose `head_dim ≠ H / heads`, the attention terms therefore
//! differ from the real projections), `M` = `moe_intermediate` when the config has one, else
//! `intermediate`, `E` = experts (1 for dense), `r` rank, `B` batch, `S` sequence length.

use crate::catalog::Arch;
use crate::inputs::{GradCkpt, Method, Optim, TargetModule, TargetSet, TrainInputs};
use crate::units::{Bytes, GIB};

/// Weights: BNB NF4 stores 16-bit weights in `2 / 3.2` bytes per parameter (4 bits + blockwise scales).
pub const QUANT_4BIT_FACTOR: f64 = 3.2;
/// CUDA overhead: CUDA driver + PyTorch runtime, 1.4 "GB" = 1.4 GiB (see the unit decision in [`super`]).
pub const CUDA_OVERHEAD: Bytes = Bytes((1.4 * GIB as f64) as u64);
/// Activations: per-layer activation bytes = elements × 2 (16-bit) × 1.25 (slack).
pub const ACTIVATION_SLACK: f64 = 1.25;

/// Floors: `gradients ≥ fraction × weights`, `activations ≥ fraction × weights × B/2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Floors {
    /// Share of the weights (0.15 = 15 %).
    pub fraction: f64,
}

impl Floors {
    /// The document's text (and Unsloth's code of that time): 15 %. What [`super::estimate_arch`] uses.
    pub const SEED: Floors = Floors { fraction: 0.15 };
    /// What the document's *reference table* was evidently printed with: every floor-bound cell of its
    /// eight rows (gradients and activations of all QLoRA/LoRA rows, activations of the full-FT
    /// row) equals 0.20 × weights, and seven of the eight rows cannot be reproduced with 0.15.
    /// Only for reproducing that table.
    pub const TABLE: Floors = Floors { fraction: 0.20 };
    /// No floors: the document's end-to-end table "predates the 15 % floors".
    pub const NONE: Floors = Floors { fraction: 0.0 };
}

/// Optimizer bytes per trainable parameter (calibrated by Unsloth).
pub fn optimizer_bytes_per_param(o: Optim) -> u64 {
    match o {
        Optim::Adamw8bit => 4,
        Optim::AdamwTorch => 6,
        Optim::PagedAdamw32bit => 8,
        Optim::Sgd => 4,
    }
}

/// Activation layers kept live: `None` = all `L` layers; else the multiplier of one layer.
pub fn gc_multiplier(gc: GradCkpt, method: Method) -> Option<f64> {
    let full = method == Method::Full;
    match gc {
        GradCkpt::None => None,
        GradCkpt::True => Some(if full { 2.0 } else { 1.0 }),
        GradCkpt::Unsloth => Some(if full { 1.5 } else { 1.0 }),
    }
}

/// Shape facts the formulas use, derived once from the config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// Hidden size H.
    pub h: u64,
    /// Layers L.
    pub l: u64,
    /// Vocabulary V.
    pub v: u64,
    /// K = (H / heads) × kv_heads, as Unsloth's formula writes it.
    pub k: u64,
    /// MLP width M (per expert for MoE).
    pub m: u64,
    /// Experts E (1 for dense).
    pub e: u64,
    /// Output tied to the embedding.
    pub tied: bool,
}

impl Dims {
    /// The dimensions of `a`.
    pub fn of(a: &Arch) -> Dims {
        let heads = u64::from(a.heads.max(1));
        Dims {
            h: a.hidden,
            l: u64::from(a.layers),
            v: a.vocab,
            k: a.hidden / heads * u64::from(a.kv_heads),
            m: a.moe_intermediate.unwrap_or(a.intermediate),
            e: if a.experts > 1 {
                u64::from(a.experts)
            } else {
                1
            },
            tied: a.tied_embeddings,
        }
    }

    /// Quantizable: `(QKVO + MLP) × L`, MLP = `H·M·3·E + (E·H if E > 1)` (router).
    pub fn quantizable(&self) -> u64 {
        let qkvo = (2 * self.h + 2 * self.k) * self.h;
        let router = if self.e > 1 { self.e * self.h } else { 0 };
        let mlp = self.h * self.m * 3 * self.e + router;
        (qkvo + mlp) * self.l
    }

    /// Not quantized: `2·H·L + V·H + (V·H if untied)`: norms, embeddings, LM head.
    pub fn non_quantizable(&self) -> u64 {
        let head = if self.tied { 0 } else { self.v * self.h };
        2 * self.h * self.l + self.v * self.h + head
    }

    /// Every parameter.
    pub fn total_params(&self) -> u64 {
        self.quantizable() + self.non_quantizable()
    }

    /// LoRA: `(A + B)` elements of one adapted module (per layer, MLP ×E).
    pub fn lora_module(&self, module: TargetModule, r: u64) -> u64 {
        let (h, k, m) = (self.h, self.k, self.m);
        match module {
            TargetModule::Q | TargetModule::O => h * r + r * h,
            TargetModule::K | TargetModule::V => h * r + r * k,
            TargetModule::Gate | TargetModule::Up => (h * r + r * m) * self.e,
            TargetModule::Down => (m * r + r * h) * self.e,
        }
    }

    /// LoRA parameters: Σ over selected modules × L.
    pub fn lora_params(&self, targets: TargetSet, r: u64) -> u64 {
        targets.iter().map(|m| self.lora_module(m, r)).sum::<u64>() * self.l
    }

    /// Activations of one layer: `(S·B·(H+K+K) + S·B·2 + S·B·(M+M)) × 2 × 1.25`.
    pub fn activation_per_layer(&self, s: u64, b: u64) -> f64 {
        let sb = (s * b) as f64;
        let elems = sb * (self.h + 2 * self.k) as f64 + sb * 2.0 + sb * (2 * self.m) as f64;
        elems * 2.0 * ACTIVATION_SLACK
    }
}

/// All terms plus the intermediate numbers the formulas on the page show.
#[derive(Clone, Debug, PartialEq)]
pub struct Breakdown {
    /// Model weights.
    pub weights: Bytes,
    /// Zero for full fine-tuning (the document's table prints "—").
    pub lora: Bytes,
    /// Optimizer states.
    pub optimizer: Bytes,
    /// After the floor.
    pub gradients: Bytes,
    /// After the floor.
    pub activations: Bytes,
    /// CUDA and PyTorch runtime.
    pub cuda_overhead: Bytes,
    /// The dimensions used.
    pub dims: Dims,
    /// Parameters of the model.
    pub total_params: u64,
    /// LoRA parameters (0 for full fine-tuning).
    pub lora_params: u64,
    /// Trained parameters.
    pub trainable_params: u64,
    /// Gradients before the floor.
    pub gradients_computed: Bytes,
    /// Activations before the floor.
    pub activations_computed: Bytes,
    /// Activations of one layer.
    pub activation_per_layer: Bytes,
    /// Layers of activations kept (L with GC off, else the checkpointing multiplier).
    pub activation_layers: f64,
    /// The floors applied.
    pub floors: Floors,
}

impl Breakdown {
    /// Sum of the terms.
    pub fn total(&self) -> Bytes {
        self.weights
            + self.lora
            + self.optimizer
            + self.gradients
            + self.activations
            + self.cuda_overhead
    }

    /// Did the floor raise the gradient term?
    pub fn gradients_floored(&self) -> bool {
        self.gradients > self.gradients_computed
    }

    /// Did the floor raise the activation term?
    pub fn activations_floored(&self) -> bool {
        self.activations > self.activations_computed
    }
}

/// The terms for `t` on `a`, with the given floors.
pub fn breakdown(a: &Arch, t: &TrainInputs, floors: Floors) -> Breakdown {
    let d = Dims::of(a);
    let q = d.quantizable();
    let nq = d.non_quantizable();
    let total_params = q + nq;
    let weights = match t.method {
        Method::Qlora => Bytes::from_f64(q as f64 * 2.0 / QUANT_4BIT_FACTOR + nq as f64 * 2.0),
        Method::Lora | Method::Full => Bytes(total_params.saturating_mul(2)),
    };
    let lora_params = match t.method {
        Method::Full => 0,
        _ => d.lora_params(t.targets, u64::from(t.rank)),
    };
    let trainable = if t.method == Method::Full {
        total_params
    } else {
        lora_params
    };
    let optimizer = Bytes(trainable.saturating_mul(optimizer_bytes_per_param(t.optim)));
    let gradients_computed = Bytes(trainable.saturating_mul(2));
    let b = u64::from(t.bsz.max(1));
    let per_layer = d.activation_per_layer(u64::from(t.seq), b);
    let layers = gc_multiplier(t.gc, t.method).unwrap_or(d.l as f64);
    let activations_computed = Bytes::from_f64(per_layer * layers);
    let w = weights.as_f64();
    let gradients = gradients_computed.max(Bytes::from_f64(w * floors.fraction));
    let activations =
        activations_computed.max(Bytes::from_f64(w * floors.fraction * b as f64 / 2.0));
    Breakdown {
        weights,
        lora: Bytes(lora_params.saturating_mul(2)),
        optimizer,
        gradients,
        activations,
        cuda_overhead: CUDA_OVERHEAD,
        dims: d,
        total_params,
        lora_params,
        trainable_params: trainable,
        gradients_computed,
        activations_computed,
        activation_per_layer: Bytes::from_f64(per_layer),
        activation_layers: layers,
        floors,
    }
}
