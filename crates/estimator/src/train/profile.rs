//! Trainer profiles: the memory mechanisms a real trainer has, each a pure function with its
//! formula, provenance (public URLs) and domain. [`breakdown`] sums them into the six bars of
//! train mode (weights, LoRA, optimizer, gradients, activations, CUDA overhead); the
//! [`Mechanism`] list says what each bar is made of.
//!
//! Symbols: `H` hidden, `L` layers, `K` = head_dim × kv_heads (the real K/V width), `M` MLP width
//! (per expert for MoE), `V` vocabulary, `n` attention heads, `T` = batch × sequence tokens.
//!
//! Calibration and residuals: `tests/trainers.rs` scores every public training measurement
//! (Unsloth's context tables, LLaMA-Factory's wiki) per profile.

use super::terms::Dims;
use crate::catalog::Arch;
use crate::inputs::{GradCkpt, Method, Optim, TrainInputs, Trainer};
use crate::terms::TermName;
use crate::units::{Bytes, GIB};
use serde::Serialize;

ids! {
    /// Attention kernel: how much working memory the score matrix takes.
    Attention {
        /// Eager: the `B × n × S²` score matrix is materialized.
        Eager = "eager",
        /// PyTorch SDPA (memory-efficient / flash backends): linear in `S`.
        Sdpa = "sdpa",
        /// FlashAttention-2: linear in `S`.
        Flash2 = "flash_attention_2",
    }
}

ids! {
    /// Logits and cross-entropy.
    Logits {
        /// Chunked / cut cross-entropy: the `T × V` logits are never resident at once.
        Chunked = "chunked",
        /// Plain transformers: bf16 logits upcast to fp32, log-softmax and gradients in fp32.
        Fp32 = "fp32",
    }
}

/// The mechanisms a trainer profile has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Profile {
    /// The profile.
    pub trainer: Trainer,
    /// Attention kernel.
    pub attention: Attention,
    /// Logits and loss.
    pub logits: Logits,
    /// QLoRA: norms, embeddings and LM head kept in fp32 (PEFT's `prepare_model_for_kbit_training`).
    pub upcast_fp32: bool,
}

impl Profile {
    /// The mechanisms of `t` (`None` for the published formula, which has none of them).
    pub fn of(t: Trainer) -> Option<Profile> {
        let (attention, logits, upcast_fp32) = match t {
            Trainer::UnslothFormula => return None,
            Trainer::Unsloth => (Attention::Flash2, Logits::Chunked, false),
            Trainer::Transformers => (Attention::Sdpa, Logits::Fp32, true),
            Trainer::Llamafactory => (Attention::Flash2, Logits::Fp32, false),
        };
        Some(Profile {
            trainer: t,
            attention,
            logits,
            upcast_fp32,
        })
    }
}

/// One mechanism: bytes, the formula with this configuration's values, provenance, domain.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mechanism {
    /// Stable name.
    pub name: &'static str,
    /// The bar it is counted in.
    pub term: TermName,
    /// Bytes on the card.
    pub bytes: Bytes,
    /// The formula with this configuration's numbers.
    pub formula: String,
    /// Where the formula comes from (public URLs).
    pub provenance: &'static str,
    /// Where it was checked.
    pub domain: &'static str,
}

/// NF4 with double quantization: 4 bits + an 8-bit absmax per 64 weights + an fp32 constant per
/// 256 absmax blocks (QLoRA paper: 0.127 bits of constants per parameter).
pub const NF4_DQ_BYTES: f64 = 0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0);
/// CUDA context, cuBLAS workspace and allocator reserve as nvidia-smi sees them (Unsloth's
/// calibration, `CUDA_OVERHEAD_BYTES`).
pub const CONTEXT: Bytes = Bytes((1.4 * GIB as f64) as u64);
/// Logits bytes per token per vocabulary entry, plain transformers (see `PROV_LOGITS_FP32`).
pub const LOGITS_FP32_BYTES: u64 = 18;

const PROV_WEIGHTS: &str = prose!("QLoRA (https://arxiv.org/abs/2305.14314): NF4 = 4 bits per weight, double quantization leaves 0.127 bits of constants (8-bit absmax per 64, fp32 per 256 blocks) for q/k/v/o/gate/up/down; norms, embeddings and LM head stay 16-bit, or fp32 after PEFT's prepare_model_for_kbit_training (https://huggingface.co/docs/peft/developer_guides/quantization). LoRA/full: 2 B per parameter (bf16).");
const PROV_LORA: &str = prose!("PEFT keeps adapter weights in fp32 (autocast_adapter_dtype, https://huggingface.co/docs/peft/package_reference/peft_model): A = in×r, B = r×out per target module × L, × 4 B.");
const PROV_GRADS: &str = prose!("One gradient per trainable parameter in its dtype: fp32 for LoRA adapters, bf16 for full fine-tuning.");
const PROV_OPTIM: &str = prose!("AdamW keeps two moments per trainable parameter: adamw_torch in the parameter's dtype (fp32 adapters: 8 B; bf16 full fine-tuning: 4 B), bitsandbytes adamw_8bit 2 B (https://huggingface.co/docs/bitsandbytes/main/en/optimizers), paged_adamw_32bit 8 B (paged: may be evicted to host RAM under pressure; counted on the card), sgd without momentum none.");
const PROV_CKPT: &str = prose!("Gradient checkpointing (https://huggingface.co/docs/transformers/perf_train_gpu_one#gradient-checkpointing): Hugging Face keeps each layer's input (H × 2 B per token) on the card; Unsloth offloads them to host RAM asynchronously (https://github.com/unslothai/unsloth, README); without checkpointing every layer keeps its saved tensors.");
const PROV_LAYER: &str = prose!("The recomputed layer's saved tensors (input, norm, q/k/v, attention output, residual, norm, gate, up, act, act×up: 7H + 2K + 4M) plus one hidden-wide and one MLP-wide gradient in flight (H + M), bf16.");
const PROV_ATTN: &str = prose!("FlashAttention-2 / SDPA keep O(S) per head (https://arxiv.org/abs/2307.08691); eager attention materializes B × n × S² scores: bf16 scores, fp32 softmax and bf16 probabilities (8 B) in the layer being computed, the 2-byte probabilities kept by every layer without checkpointing.");
const PROV_LOGITS_CHUNKED: &str = prose!("Unsloth with Apple's Cut Cross Entropy (https://unsloth.ai/blog/llama3-3): logits are computed in chunks and never resident for all tokens at once.");
const PROV_LOGITS_FP32: &str = "transformers' causal-LM loss upcasts the logits to fp32 (https://github.com/huggingface/transformers, loss_utils.py ForCausalLMLoss): fp32 logits 4V, log-softmax saved 4V, in backward its gradient 4V and the input gradient 4V, then the bf16 gradient 2V: 18·V bytes per token at the peak.";
const PROV_CONTEXT: &str = prose!("CUDA context, cuBLAS workspace and allocator reserve as nvidia-smi shows them: 1.4 GiB, Unsloth's calibration (CUDA_OVERHEAD_BYTES in unslothai/unsloth studio/backend/utils/hardware/vram_estimation.py).");
/// Provenance of the activation bar (four mechanisms).
pub const PROV_ACTIVATIONS: &str = prose!("Sum of four mechanisms, each in the estimate's mechanism list: gradient checkpoints (Hugging Face on the card, Unsloth offloaded to host RAM), the recomputed layer's working set, attention working memory (eager S² vs SDPA/FlashAttention-2, https://arxiv.org/abs/2307.08691) and logits + loss (Unsloth's chunked cut cross-entropy, https://unsloth.ai/blog/llama3-3, vs transformers' fp32 logits).");
/// Domain of every mechanism.
pub const DOMAIN: &str = prose!("Dense Llama/Qwen-style decoders, QLoRA/LoRA/full, bf16 compute; scored on Unsloth's published context tables (Llama-3.1-8B, Llama-3.3-70B) and LLaMA-Factory's wiki (Llama-2-7B), see the accuracy report.");

/// The six bars plus the mechanisms behind them.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileBreakdown {
    /// The profile used.
    pub profile: Profile,
    /// Bars in train-mode order: weights, LoRA, optimizer, gradients, activations, CUDA overhead.
    pub bars: [(TermName, Bytes); 6],
    /// What the bars are made of.
    pub mechanisms: Vec<Mechanism>,
}

impl ProfileBreakdown {
    /// Sum of the bars.
    pub fn total(&self) -> Bytes {
        self.bars.iter().map(|b| b.1).sum()
    }

    /// Bytes of one bar.
    pub fn bar(&self, n: TermName) -> Bytes {
        self.bars
            .iter()
            .find(|b| b.0 == n)
            .map_or(Bytes::ZERO, |b| b.1)
    }
}

/// The real K/V width: head_dim × kv_heads.
fn kv_width(a: &Arch) -> u64 {
    a.head_dim * u64::from(a.kv_heads)
}

/// The mechanisms of `p` for `t` on `a`.
pub fn breakdown(a: &Arch, t: &TrainInputs, p: Profile) -> ProfileBreakdown {
    let d = Dims {
        k: kv_width(a),
        ..Dims::of(a)
    };
    let tokens = u64::from(t.bsz.max(1)) * u64::from(t.seq);
    let gc = checkpointing(t.gc, p.trainer);
    let mut mech = Vec::new();
    let weights = weights(&mut mech, &d, t, p);
    let (lora, gradients, optimizer) = trainable(&mut mech, &d, t);
    let ckpt = checkpoints(&mut mech, &d, t, gc, tokens);
    let layer = working_layer(&mut mech, &d, gc, tokens);
    let attn = attention(&mut mech, a, &d, t, p, gc);
    let logits = logits_loss(&mut mech, &d, p, tokens);
    let context = add(
        &mut mech,
        "cuda_context",
        TermName::CudaOverhead,
        CONTEXT,
        "1.4 GiB fixed (context + workspace + allocator reserve)".into(),
        PROV_CONTEXT,
    );
    ProfileBreakdown {
        profile: p,
        bars: [
            (TermName::Weights, weights),
            (TermName::Lora, lora),
            (TermName::Optimizer, optimizer),
            (TermName::Gradients, gradients),
            (TermName::Activations, ckpt + layer + attn + logits),
            (TermName::CudaOverhead, context),
        ],
        mechanisms: mech,
    }
}

/// Adds one mechanism to `mech` (in [`DOMAIN`]) and returns its bytes.
fn add(
    mech: &mut Vec<Mechanism>,
    name: &'static str,
    term: TermName,
    bytes: Bytes,
    formula: String,
    provenance: &'static str,
) -> Bytes {
    mech.push(Mechanism {
        name,
        term,
        bytes,
        formula,
        provenance,
        domain: DOMAIN,
    });
    bytes
}

/// The weights: NF4 with double quantization for QLoRA (the rest bf16, or fp32 where the profile
/// upcasts it), bf16 for LoRA and full fine-tuning.
fn weights(mech: &mut Vec<Mechanism>, d: &Dims, t: &TrainInputs, p: Profile) -> Bytes {
    let (q, nq) = (d.quantizable(), d.non_quantizable());
    match t.method {
        Method::Qlora => {
            let nq_b = if p.upcast_fp32 { 4 } else { 2 };
            add(
                mech,
                "weights_nf4",
                TermName::Weights,
                Bytes::from_f64(q as f64 * NF4_DQ_BYTES + (nq * nq_b) as f64),
                format!(
                    "{q} quantized × {} B (NF4 + double-quant constants) + {nq} other × {nq_b} B{}",
                    crate::units::Fixed(NF4_DQ_BYTES, 4),
                    if p.upcast_fp32 {
                        " (fp32 upcast)"
                    } else {
                        " (bf16)"
                    }
                ),
                PROV_WEIGHTS,
            )
        }
        Method::Lora | Method::Full => {
            let total = q + nq;
            add(
                mech,
                "weights_bf16",
                TermName::Weights,
                Bytes(total * 2),
                format!("{total} parameters × 2 B (bf16)"),
                PROV_WEIGHTS,
            )
        }
    }
}

/// What training adds per trainable parameter: the adapters (fp32; none for full fine-tuning),
/// one gradient each and the optimizer's moments. (lora, gradients, optimizer).
fn trainable(mech: &mut Vec<Mechanism>, d: &Dims, t: &TrainInputs) -> (Bytes, Bytes, Bytes) {
    let full = t.method == Method::Full;
    let lora_params = if full {
        0
    } else {
        d.lora_params(t.targets, u64::from(t.rank))
    };
    let trainable = if full { d.total_params() } else { lora_params };
    let dtype_b = if full { 2 } else { 4 };
    let lora = add(
        mech,
        "lora_adapters",
        TermName::Lora,
        Bytes(lora_params * 4),
        if full {
            "full fine-tuning: no adapters".into()
        } else {
            format!(
                "{lora_params} parameters (r {}, targets {}) × 4 B (fp32)",
                t.rank, t.targets
            )
        },
        PROV_LORA,
    );
    let gradients = add(
        mech,
        "gradients",
        TermName::Gradients,
        Bytes(trainable * dtype_b),
        format!(
            "{trainable} trainable × {dtype_b} B ({})",
            if full { "bf16" } else { "fp32" }
        ),
        PROV_GRADS,
    );
    let opt_b = match t.optim {
        Optim::Adamw8bit => 2,
        Optim::AdamwTorch => 2 * dtype_b,
        Optim::PagedAdamw32bit => 8,
        Optim::Sgd => 0,
    };
    let optimizer = add(
        mech,
        "optimizer_state",
        TermName::Optimizer,
        Bytes(trainable * opt_b),
        format!("{trainable} trainable × {opt_b} B ({})", t.optim),
        PROV_OPTIM,
    );
    (lora, gradients, optimizer)
}

/// The checkpointing that runs: offloaded checkpointing exists only in Unsloth; other trainers
/// checkpoint the Hugging Face way.
fn checkpointing(gc: GradCkpt, trainer: Trainer) -> GradCkpt {
    match (gc, trainer) {
        (GradCkpt::Unsloth, Trainer::Unsloth) => GradCkpt::Unsloth,
        (GradCkpt::Unsloth, _) => GradCkpt::True,
        (g, _) => g,
    }
}

/// A layer's saved tensors per token (input, norm, q/k/v, attention output, residual, norm,
/// gate, up, act, act×up): `7H + 2K + 4M` elements.
fn saved_per_token(d: &Dims) -> u64 {
    7 * d.h + 2 * d.k + 4 * d.m
}

/// What checkpointing keeps on the card for `tokens` tokens under `gc` (the one that runs;
/// `t.gc` the one asked for).
fn checkpoints(
    mech: &mut Vec<Mechanism>,
    d: &Dims,
    t: &TrainInputs,
    gc: GradCkpt,
    tokens: u64,
) -> Bytes {
    let (ckpt_per_token, ckpt_what) = match gc {
        GradCkpt::None => (
            d.l * saved_per_token(d) * 2,
            "every layer's saved tensors: L × (7H+2K+4M) × 2 B",
        ),
        GradCkpt::True => (
            d.l * d.h * 2,
            "one checkpoint per layer on the card: L × H × 2 B",
        ),
        GradCkpt::Unsloth => (0, "offloaded to host RAM: 0 on the card"),
    };
    let ckpt_what = if gc == t.gc {
        ckpt_what.to_string()
    } else {
        format!("{ckpt_what} (gc=unsloth needs Unsloth: Hugging Face checkpointing)")
    };
    add(
        mech,
        "checkpoints",
        TermName::Activations,
        Bytes(tokens * ckpt_per_token),
        format!("{ckpt_what} per token × {tokens} tokens"),
        PROV_CKPT,
    )
}

/// The layer being computed: its saved tensors when checkpointing recomputes it, plus one
/// hidden-wide and one MLP-wide gradient in flight.
fn working_layer(mech: &mut Vec<Mechanism>, d: &Dims, gc: GradCkpt, tokens: u64) -> Bytes {
    let layer_per_token = if gc == GradCkpt::None {
        (d.h + d.m) * 2
    } else {
        (saved_per_token(d) + d.h + d.m) * 2
    };
    add(
        mech,
        "working_layer",
        TermName::Activations,
        Bytes(tokens * layer_per_token),
        format!(
            "{} × 2 B = {layer_per_token} B per token × {tokens} tokens",
            if gc == GradCkpt::None {
                "(H + M)"
            } else {
                "(8H + 2K + 5M)"
            }
        ),
        PROV_LAYER,
    )
}

/// Attention's working memory: the `B × n × S²` scores of eager attention (kept by every layer
/// without checkpointing), nothing beyond the working layer for SDPA and FlashAttention-2.
fn attention(
    mech: &mut Vec<Mechanism>,
    a: &Arch,
    d: &Dims,
    t: &TrainInputs,
    p: Profile,
    gc: GradCkpt,
) -> Bytes {
    let s = u64::from(t.seq);
    let scores = u64::from(t.bsz.max(1)) * u64::from(a.heads.max(1)) * s * s;
    let attn_bytes = match p.attention {
        Attention::Eager => {
            let kept = if gc == GradCkpt::None { d.l * 2 } else { 0 };
            scores * (8 + kept)
        }
        Attention::Sdpa | Attention::Flash2 => 0,
    };
    add(
        mech,
        "attention",
        TermName::Activations,
        Bytes(attn_bytes),
        match p.attention {
            Attention::Eager => {
                format!("B × n × S² = {scores} scores × 8 B (+ 2 B × L without checkpointing)")
            }
            _ => format!("{}: linear in S, in the working layer", p.attention),
        },
        PROV_ATTN,
    )
}

/// Logits and loss: none resident with chunked cross-entropy, `18 · V` bytes per token with
/// transformers' fp32 loss.
fn logits_loss(mech: &mut Vec<Mechanism>, d: &Dims, p: Profile, tokens: u64) -> Bytes {
    let (logit_bytes, logit_formula, logit_prov) = match p.logits {
        Logits::Chunked => (
            0,
            "chunked cross-entropy: no T × V logits resident".to_string(),
            PROV_LOGITS_CHUNKED,
        ),
        Logits::Fp32 => (
            tokens * d.v * LOGITS_FP32_BYTES,
            format!("{tokens} tokens × V {} × {LOGITS_FP32_BYTES} B", d.v),
            PROV_LOGITS_FP32,
        ),
    };
    add(
        mech,
        "logits_loss",
        TermName::Activations,
        Bytes(logit_bytes),
        logit_formula,
        logit_prov,
    )
}
