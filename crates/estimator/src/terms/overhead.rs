//! Runtime overhead: CUDA context, activations / compute buffers, fragmentation.
//!
//! llama.cpp and Ollama on one card ([`llama_one_card`]): the CUDA context and the compute
//! buffer llama-server reserves for one micro-batch of `n = min(-c, -ub)` tokens,
//!   `330 MiB + 16 B × hidden × n + 2 B × n × cells (+ sliding-window cells)
//!    (+ cells × a global layer's K and V row at f16, with a quantized cache)`
//! — the CUDA context and cuBLAS workspace (about 330 MiB per process, measured per PID), the
//! activation scratch (measured 36 MiB for a 5120-wide model at `-ub 512`), the f16 KQ masks
//! (measured at exactly 1024 B per cell at `-ub 512`), and with a quantized cache the f16 copy of
//! one layer's K and V that flash attention reads. Since ggml-org/llama.cpp#23861 (2026-06-01,
//! b9464) llama-server reserves the logits of its slots' outputs only (`n_outputs_max` = slots
//! × (1 + draft tokens), tools/server/server-context.cpp `server_output_limits`), not a row per
//! micro-batch token: older builds, and llama-cpp-python, which does not set the limit, hold
//! `4 B × vocab × n` more. Checked against published CUDA0 compute buffers at 262,144 cells
//! with a q8_0 cache (Qwen3.5 2B/4B/9B, Qwen3.6-27B, Gemma-4-31B: 1.5–2.9 % above the formula;
//! `tests/llama_compute.rs`, from <https://github.com/unslothai/unsloth/blob/015bdef0d94a241bcd94eec7a405b1700632180d/studio/backend/tests/test_compute_buffer.py>).
//! Domain: llama-server b9464 and later (Ollama 0.30 and later run it), one CUDA card, flash
//! attention on (`-fa auto` on GPUs; off adds `4 B × heads × n × cells` of attention scores),
//! architectures without latent attention.
//!
//! llama.cpp and Ollama on several cards (and latent attention):
//!   `overhead = max(0.7 GiB × cards, 0.10 × device_weights) + n_ctx / 131072 × 0.35 GiB`
//! where `n_ctx` is the cells the engine allocates (context × slots).
//! Provenance: an empirical fit, within 0.15 GiB over four measured llama.cpp configurations
//! (the measurements themselves are not published).
//! **Empirical**: the coefficients have no theoretical basis; they were fitted on specific driver
//! and engine versions (re-measure after a driver update). The two arms of the `max` are two
//! regimes (small model on several cards: per-card CUDA context; large model on one card:
//! weight-proportional activations) that did not stack in measurement.
//! Domain: llama.cpp-family engines at concurrency 1 as measured.
//!
//! vLLM, per card: `peak activation + non-torch memory`, the two numbers vLLM subtracts (with
//! the weights) from `util × total` before it sizes the KV cache ("Available KV cache memory").
//! Its startup logs show the peak is set by the sampler's warm-up, not by the model's width:
//! across Llama-3.1-8B, Qwen2.5-7B, Qwen3-8B, phi-4, gemma-3 4B/12B/27B, gpt-oss-20b and
//! Llama-3.3-70B it is `4 B × vocab × 3830…4070` (1.52 GiB for phi-4's 100K vocabulary, 3.9 GiB
//! for gemma-3's 262K at every model size), so it is modelled as `4 B × vocab ×`
//! [`VLLM_SAMPLER_ROWS`] (MoE models sit up to 0.5 GiB higher). Non-torch memory is 0.25 GiB on
//! one card and about 2.1 GiB per card under tensor parallelism (the all-reduce buffers).
//! Provenance: vLLM 0.19.0 startup logs on H100 80GB, default `--max-num-seqs` 1024 and
//! `--max-num-batched-tokens` 8192 (llm-d-planner, `accuracy/results/v0.19.0/logs` at commit
//! d3121e0, kept as rows in `tests/data/engine-logs.json`). CUDA graphs (0.6–1.8 GiB) are
//! allocated after the KV cache is sized in that version and live in the `1 − util` margin.
//! Domain: vLLM V1 with those defaults; a smaller `--max-num-seqs` lowers the warm-up, so the
//! term is conservative for the commands fitcard writes.
//!
//! SGLang, per card: `0.4 GiB` (the CUDA context inside its static fraction), plus under tensor
//! parallelism `util × 1.85 GiB`: SGLang takes `--mem-fraction-static` of the free memory it
//! measures after its NCCL communicators and custom all-reduce buffers exist, so that fraction
//! of them comes off the pool ([`SGLANG_TP_COMM`]).
//!
//! transformers: `overhead = 0.7 GiB × cards + 48 MiB`. The 48 MiB is the largest residual
//! (peak − weights − KV, rounded up) of the Qwen3 speed benchmark (transformers 4.51 +
//! FlashAttention-2, 0.6B…32B at 2K…32K tokens; residuals 33–48 MiB). That benchmark reads
//! PyTorch's allocator peak, which leaves out the CUDA context of the process; the card holds it
//! all the same, so the fit's per-card arm (0.7 GiB, the fixed per-card context cost) is added.
//!
//! MLX (mlx-lm): `min(par, 8) × 2048 × (2 × ffn width + 4 × hidden) × 2 B`, the activations of
//! one prefill step: `mlx_lm.server` processes prompts in steps of `--prefill-step-size` 2048
//! tokens, up to `--prompt-concurrency` 8 prompts at once (mlx_lm/server.py), and the widest
//! live tensors of a step are the FFN's gate and up outputs beside the residual stream (MoE: the
//! routed experts' width × the experts per token). MLX evaluates lazily and only the cache
//! state is forced during prefill, so no logits of the prompt are materialised. **Plus the
//! command buffers in flight**, `11 × (max_mb_per_buffer + 1) MiB`: MLX keeps every op's input
//! buffers alive until the Metal command buffer that ran the op completes (the completion
//! handler holds them: `mlx/backend/metal/eval.cpp`), commits a command buffer once its inputs
//! pass `max_mb_per_buffer` MiB (50 on Max and Ultra chips, 40 on the others:
//! `mlx/backend/metal/device.cpp`), and lets `MAX_ACTIVE_TASKS` = 10 committed buffers run
//! before it waits for one (`mlx/transforms.cpp`), so 11 are committed at the moment it waits.
//! A prefill step is GPU-bound, so that queue fills, and the activations those buffers read stay
//! counted after the graph freed them: up to 11 × 51 MiB on a Max or Ultra chip (an upper figure:
//! part of each buffer's inputs are weights, counted once already; the other chips commit at 40
//! MiB, so there the term is 110 MiB above their 11 × 41 MiB). Sources at mlx v0.29.2, the
//! version of the rows below. **Checked** against mlx-lm's own benchmark (`mlx_lm/BENCHMARKS.md`, M4
//! Max, mlx 0.29.2, 2048-token prompt, `mx.get_peak_memory`): Qwen3-4B and Qwen3-30B-A3B at 4,
//! 5, 6 and 8 bits within 2 % (`tests/mlx_peaks.rs`; the term was read from the source with the
//! 4- and 8-bit Qwen3-4B rows in view, the other six are held out). MLX's buffer cache (freed buffers it keeps for
//! reuse) and the Python process are not counted.

use crate::catalog::engine::{Engine, KvDtype};
use crate::catalog::Arch;
use crate::inputs::Inputs;
use crate::terms::kv::{cell_bytes_by_kind, LlamaKv};
use crate::units::{Bytes, GIB, MIB};

/// llama.cpp on one card, per process: the CUDA context and cuBLAS workspace, "about 330 MiB"
/// measured per process by nvidia-smi's per-PID accounting (a 24 GB card, llama-server with
/// Qwen3.6-27B: <https://github.com/unslothai/unsloth/pull/6718>).
pub const LLAMA_CUDA_CONTEXT: Bytes = Bytes(330 * MIB);
/// llama.cpp's activation scratch of one micro-batch, bytes per token per hidden unit (four f32
/// rows of `hidden`): the single-slot chat compute buffer llama-server reserves was measured at
/// 36 MiB for Qwen3.6-27B (hidden 5120) at `-ub 512`, and 16 × 5120 × 512 B = 40 MiB
/// (<https://github.com/unslothai/unsloth/pull/6312>, `act = 4 * n_embd * n_ubatch * 4`).
pub const LLAMA_ACT_BYTES: u64 = 16;
/// The f16 KQ mask: 2 bytes per cell per token of the micro-batch (`n_ubatch × 2` bytes per
/// cell, measured at exactly 1024 B per token at `-ub 512` on Qwen3.5-9B and Gemma-4-31B:
/// <https://github.com/unslothai/unsloth/pull/6718>).
pub const LLAMA_MASK_BYTES: u64 = 2;

/// llama.cpp's memory beside weights and KV on one card (llama-server since it reserves the
/// logits of its slots only, ggml-org/llama.cpp#23861): the CUDA context, and the compute buffer
/// the scheduler reserves for one micro-batch of `n_tokens = min(-c, -ub)` tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LlamaOneCard {
    /// Micro-batch tokens of the reserved graph.
    pub n_tokens: u64,
    /// Cells of one stream of a global layer, and of a sliding-window layer (0 without): the
    /// masks' width.
    pub cells: (u64, u64),
    /// CUDA context and cuBLAS workspace.
    pub context: Bytes,
    /// Activation scratch: `16 B × hidden × n_tokens`.
    pub act: Bytes,
    /// The KQ masks: `2 B × n_tokens × cells` (global and sliding-window).
    pub mask: Bytes,
    /// A quantized cache's f16 copy of one global layer's K and V for flash attention (every
    /// cell of every stream), else 0.
    pub dequant: Bytes,
}

impl LlamaOneCard {
    /// Everything.
    pub fn total(&self) -> Bytes {
        self.context + self.act + self.mask + self.dequant
    }
}

/// The one-card mechanism of llama.cpp's overhead, where it applies: llama.cpp or Ollama on at
/// most one card, an architecture without latent attention (its dequantization differs), the
/// allocator's cache layout known. Else `None` (the fit of several cards). `cuda`: a card, not
/// the CPU backend (which has no CUDA context).
pub fn llama_one_card(
    i: &Inputs,
    a: &Arch,
    cards: u32,
    kv: Option<&LlamaKv>,
    cuda: bool,
) -> Option<LlamaOneCard> {
    let kv = kv?;
    if !i.engine.llama_family() || cards > 1 || a.mla.is_some() {
        return None;
    }
    let streams = kv.streams.max(1);
    // An embedding or reranking server's micro-batch beyond 512 is `terms::batch`'s.
    let ub = match crate::terms::batch::pooled_micro_batch(i, a) {
        Some(_) => crate::terms::batch::FIT_UBATCH,
        None => u64::from(i.ubatch.max(1)),
    };
    let n_tokens = ub.min(kv.cells.saturating_mul(streams).max(1));
    let swa = if kv.swa_layers > 0 { kv.swa_cells } else { 0 };
    let (k, v) = i.kv_types();
    let dequant = if k.is_quantized() || v.is_quantized() {
        let (global, _) = cell_bytes_by_kind(a, KvDtype::F16, KvDtype::F16);
        global.saturating_mul(kv.cells).saturating_mul(streams)
    } else {
        0
    };
    Some(LlamaOneCard {
        n_tokens,
        cells: (kv.cells, swa),
        context: if cuda {
            LLAMA_CUDA_CONTEXT
        } else {
            Bytes::ZERO
        },
        act: Bytes(
            LLAMA_ACT_BYTES
                .saturating_mul(a.hidden)
                .saturating_mul(n_tokens),
        ),
        // One stream's cells × the micro-batch's tokens, split among the streams
        // (src/llama-graph.cpp, build_attn_inp_kq_mask: [n_kv, n_tokens / n_stream, 1, n_stream]).
        mask: Bytes(
            LLAMA_MASK_BYTES
                .saturating_mul(n_tokens)
                .saturating_mul(kv.cells.saturating_add(swa)),
        ),
        dequant: Bytes(dequant),
    })
}

/// [`llama_one_card`]'s formula with its values.
pub fn llama_one_card_formula(o: &LlamaOneCard) -> String {
    let (cells, swa) = o.cells;
    let swa = if swa > 0 {
        format!(" + {swa} sliding-window")
    } else {
        String::new()
    };
    let dequant = if o.dequant.0 > 0 {
        format!(
            " + {} f16 copy of a global layer's K and V (quantized cache)",
            o.dequant
        )
    } else {
        String::new()
    };
    let context = if o.context.0 > 0 {
        format!("CUDA context {} + ", o.context)
    } else {
        String::new()
    };
    format!(
        "{context}activations {LLAMA_ACT_BYTES} B × hidden × {} tokens {} + KQ mask {LLAMA_MASK_BYTES} B × {} tokens × ({cells}{swa} cells of a stream) {}{dequant}",
        o.n_tokens, o.act, o.n_tokens, o.mask
    )
}

/// Per-card fixed arm of the fit (GiB).
pub const PER_CARD_GIB: f64 = 0.7;
/// Weight-proportional arm of the fit.
pub const WEIGHT_FRACTION: f64 = 0.10;
/// Context slope of the fit: GiB per 131072 tokens.
pub const CTX_GIB_PER_128K: f64 = 0.35;
/// transformers allocator residual (see module docs).
pub const TRANSFORMERS_RESIDUAL: Bytes = Bytes(48 * MIB);
/// SGLang, per card: what its static fraction holds besides weights and KV (the CUDA context:
/// 78.81 of 79.19 GiB free before loading on an H100, the SGLang docs' startup log).
pub const SGLANG_CONTEXT: Bytes = Bytes(GIB * 2 / 5);
/// SGLang under tensor parallelism, per card: the communication buffers (NCCL communicators,
/// custom all-reduce) set up before SGLang measures the free memory its static fraction is
/// taken of, so the fraction of them comes off the pool. SGLang's source gives the mechanism
/// (python/sglang/srt/model_executor/model_runner.py: `init_torch_distributed` builds the
/// process groups and measures `min_per_gpu_memory` before `profile_max_num_token` computes
/// `rest_memory = available − total × (1 − mem_fraction_static)`) but no size: the size is
/// vLLM's measured non-torch memory under tensor parallelism less its single-card value
/// (2.1 − 0.25 GiB, the same NCCL library and custom all-reduce on H100; see the vLLM
/// constants below), computed, not fitted to an SGLang log.
pub const SGLANG_TP_COMM: Bytes = Bytes(VLLM_NON_TORCH_TP.0 - VLLM_NON_TORCH_SINGLE.0);

/// vLLM's profiled peak in rows of fp32 logits (see module docs: 3830…4070 in the logs).
pub const VLLM_SAMPLER_ROWS: u64 = 3950;
/// vLLM non-torch memory on one card (0.24–0.27 GiB in the logs).
pub const VLLM_NON_TORCH_SINGLE: Bytes = Bytes(GIB / 4);
/// vLLM non-torch memory per card under tensor parallelism (2.06–2.21 GiB in the logs).
pub const VLLM_NON_TORCH_TP: Bytes = Bytes(GIB * 21 / 10);

/// The most CUDA-graph memory vLLM 0.19 estimated in its startup logs (0.52–1.82 GiB on H100,
/// "estimated CUDA graph memory", `tests/data/engine-logs.json`). That version captures the
/// graphs after it sizes the KV pool, in the `1 − --gpu-memory-utilization` share of the card, so
/// a share smaller than this may fail at capture unless the graphs are off (`--enforce-eager`).
pub const VLLM_CUDA_GRAPHS_MAX: Bytes = Bytes(GIB * 182 / 100);

/// mlx-lm's prefill step (`--prefill-step-size`, default 2048 tokens).
pub const MLX_PREFILL_STEP: u64 = 2048;
/// mlx-lm's `--prompt-concurrency` default: prompts prefilled together.
pub const MLX_PROMPT_CONCURRENCY: u64 = 8;

/// MLX's `MAX_ACTIVE_TASKS` (`mlx/transforms.cpp`): committed command buffers in flight before
/// an evaluation waits for one.
pub const MLX_ACTIVE_TASKS: u64 = 10;

/// MLX's `max_mb_per_buffer` on Max and Ultra chips (`mlx/backend/metal/device.cpp`; 40 on
/// the others, where the in-flight term is 110 MiB high: kept at the larger, the chip the rows
/// were measured on).
pub const MLX_BUFFER_MIB: u64 = 50;

/// The inputs the command buffers in flight keep alive: `(MAX_ACTIVE_TASKS + 1) × (max MiB + 1)`
/// (a buffer commits once its inputs pass the limit, at the next whole MiB).
pub const MLX_IN_FLIGHT: Bytes = Bytes((MLX_ACTIVE_TASKS + 1) * (MLX_BUFFER_MIB + 1) * MIB);

/// MLX's overhead for `a` at `par` concurrent requests (see the module docs).
pub fn mlx(a: &crate::catalog::Arch, par: u32) -> Overhead {
    let (p, width) = mlx_shape(a, par);
    Overhead::of(Bytes(
        p.saturating_mul(MLX_PREFILL_STEP)
            .saturating_mul(width)
            .saturating_mul(2)
            .saturating_add(MLX_IN_FLIGHT.get()),
    ))
}

/// (prompts prefilled together, values per token live at the widest point of a step).
fn mlx_shape(a: &crate::catalog::Arch, par: u32) -> (u64, u64) {
    let p = u64::from(par.max(1)).min(MLX_PROMPT_CONCURRENCY);
    let ffn = if a.is_moe() {
        a.moe_intermediate
            .unwrap_or(a.intermediate)
            .saturating_mul(u64::from(a.experts_active.max(1)))
    } else {
        a.intermediate
    };
    (
        p,
        ffn.saturating_mul(2)
            .saturating_add(a.hidden.saturating_mul(4)),
    )
}

/// The MLX formula with `a`'s values filled in.
pub fn mlx_formula(a: &crate::catalog::Arch, par: u32) -> String {
    let (p, width) = mlx_shape(a, par);
    format!(
        "{p} prompt(s) × {MLX_PREFILL_STEP} tokens × {width} values (2 × FFN width + 4 × hidden) × 2 B + 11 × 51 MiB in flight"
    )
}

/// The overhead's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overhead {
    /// Over all cards.
    pub bytes: Bytes,
    /// llama.cpp's one-card parts, where [`llama_one_card`] sized it (its words read them).
    pub one_card: Option<LlamaOneCard>,
}

impl Overhead {
    /// `bytes` from a formula without parts.
    pub fn of(bytes: Bytes) -> Overhead {
        Overhead {
            bytes,
            one_card: None,
        }
    }

    /// llama.cpp's one-card mechanism, its parts kept.
    pub fn one_card(one: LlamaOneCard) -> Overhead {
        Overhead {
            bytes: one.total(),
            one_card: Some(one),
        }
    }
}

/// Where the formula was checked, per engine.
pub fn domain(engine: Engine) -> &'static str {
    match engine {
        Engine::LlamaCpp => prose!("One card: llama-server b9464 and later on CUDA, flash attention on, no latent attention; the compute buffer within 3 % of five published CUDA0 buffers (q8_0 cache, 262,144 cells). Several cards: a fit at one slot on one card (four measured configurations); driver and engine version specific."),
        Engine::Ollama => prose!("Ollama 0.30 and later, which serve every GGUF model on llama-server (ollama/ollama commit 9db4bdbad, \"use llama-server exclusively for GGML models\"), so llama.cpp's rules hold: on one card its compute buffer (within 3 % of five published CUDA0 buffers), on several a fit at one slot on one card (four measured configurations); driver and engine version specific. Ollama 0.24 and earlier ran gemma3, gemma3n, gemma4, gpt-oss, qwen3, llama4 and others on their own Go engine (fs/ggml/ggml.go, OllamaEngineRequired), which kept per-layer embeddings and a copy of tied token embeddings on the card: out of this domain."),
        Engine::Vllm => prose!("vLLM 0.19 (V1) on H100 80GB with its default --max-num-seqs and --max-num-batched-tokens, one card or tensor parallelism."),
        Engine::Sglang => prose!("SGLang, four single-card startup logs (Llama-3.1-8B on 80 GB and 24 GB cards, Qwen3-14B on a 48 GB card) and one tensor-parallel log (Qwen3-235B-A22B FP8 on 4 × H100, whose communication buffers are sized from vLLM's H100 logs); pipeline stages not compared."),
        Engine::Transformers => prose!("transformers 4.51 with FlashAttention-2 on one H20, Qwen3 0.6B–32B BF16 at 2K–32K tokens."),
        Engine::Mlx => prose!("within 2 % of mlx-lm's peaks (M4 Max, Qwen3-4B and Qwen3-30B-A3B at 4 to 8 bits, mlx 0.29.2)."),
    }
}

/// Where the formula comes from, per engine.
#[cfg_attr(not(feature = "prose"), allow(unused_variables))]
pub fn provenance(engine: Engine) -> &'static str {
    prose!(match engine {
        Engine::Mlx => "Computed: one mlx-lm prefill step's activations (https://github.com/ml-explore/mlx-lm/blob/main/mlx_lm/server.py) and the inputs MLX's 11 Metal command buffers in flight hold (https://github.com/ml-explore/mlx/blob/v0.29.2/mlx/backend/metal/eval.cpp); within 2 % of mlx-lm's peaks (https://github.com/ml-explore/mlx-lm/blob/d78bf58e217c904ec282ed8da9b947491f78c022/mlx_lm/BENCHMARKS.md).",
        Engine::Sglang => "SGLang reserves (1 − --mem-fraction-static) of the card for activations and CUDA graphs and fills its static fraction with the weights and the KV pool (python/sglang/srt/model_executor/model_runner.py, profile_max_num_token); what else sits in the fraction is the CUDA context, 0.4 GiB per card (the SGLang docs' startup log, tests/data/engine-logs.json). Under tensor parallelism SGLang measures its free memory after the NCCL communicators and custom all-reduce buffers exist (model_runner.py, init_torch_distributed before profile_max_num_token), so the fraction of those buffers comes off the pool: 1.85 GiB per card, vLLM's measured tensor-parallel non-torch memory less its single-card value on H100 (same NCCL library; computed, not fitted to an SGLang log).",
        Engine::Vllm => "What vLLM subtracts from util × total before sizing the KV cache: the profiled peak (set by the sampler's warm-up: about 3950 rows of fp32 logits at the default --max-num-seqs) and non-torch memory (0.25 GiB; 2.1 GiB per card under tensor parallelism), fitted on vLLM 0.19 startup logs on H100 (tests/data/engine-logs.json).",
        Engine::Transformers => "CUDA context per card (0.7 GiB) plus the largest allocator residual of the Qwen3 transformers speed benchmark (33–48 MiB measured; https://qwen.readthedocs.io/en/latest/getting_started/speed_benchmark.html, tests/measurements.rs).",
        Engine::LlamaCpp | Engine::Ollama => "One card: the CUDA context and cuBLAS workspace (about 330 MiB per process, measured per PID: https://github.com/unslothai/unsloth/pull/6718) plus the compute buffer llama-server reserves for one micro-batch: an activation scratch of 16 B × hidden per token (36 MiB measured at -ub 512 for a 5120-wide model: https://github.com/unslothai/unsloth/pull/6312), the f16 KQ masks, 2 B per cell per token (1024 B per cell measured at -ub 512: https://github.com/unslothai/unsloth/pull/6718), and with a quantized cache the f16 copy of a global layer's K and V that flash attention reads; only the slots' logits rows since ggml-org/llama.cpp#23861 (tools/server/server-context.cpp, server_output_limits). Several cards: an empirical fit (±0.15 GiB on four measured llama.cpp configurations): the per-card CUDA context or weight-proportional activations, whichever is larger, plus a context slope. Re-measure after a driver update.",
    })
}

/// Runtime overhead of `engine` on `cards` cards with `device_weights` on them and `n_ctx`
/// cells allocated, for a model with `vocab` tokens, `tensor` = tensor parallelism, `util` the
/// engine's memory fraction (see the module docs).
pub fn overhead(
    engine: Engine,
    cards: u32,
    device_weights: Bytes,
    n_ctx: u64,
    vocab: u64,
    tensor: bool,
    util: f64,
) -> Overhead {
    if engine == Engine::Sglang {
        let comm = if tensor {
            SGLANG_TP_COMM.scale(util)
        } else {
            Bytes::ZERO
        };
        return Overhead::of((SGLANG_CONTEXT + comm).times(u64::from(cards)));
    }
    if engine == Engine::Vllm {
        let non_torch = if tensor {
            VLLM_NON_TORCH_TP
        } else {
            VLLM_NON_TORCH_SINGLE
        };
        let peak = Bytes(4u64.saturating_mul(vocab).saturating_mul(VLLM_SAMPLER_ROWS));
        return Overhead::of((peak + non_torch).times(u64::from(cards)));
    }
    let fixed = PER_CARD_GIB * cards as f64 * GIB as f64;
    if engine == Engine::Transformers {
        return Overhead::of(Bytes::from_f64(fixed) + TRANSFORMERS_RESIDUAL);
    }
    let prop = WEIGHT_FRACTION * device_weights.as_f64();
    let ctx = n_ctx as f64 / 131_072.0 * CTX_GIB_PER_128K * GIB as f64;
    Overhead::of(Bytes::from_f64(fixed.max(prop) + ctx))
}

/// The formula with these values filled in.
pub fn formula(
    engine: Engine,
    cards: u32,
    device_weights: Bytes,
    n_ctx: u64,
    vocab: u64,
    tensor: bool,
    util: f64,
) -> String {
    if engine == Engine::Sglang {
        if tensor {
            return format!(
                "{cards} card(s) × (0.4 GiB CUDA context + util {} × {SGLANG_TP_COMM} NCCL and all-reduce buffers)",
                crate::units::Shortest(util)
            );
        }
        return format!("0.4 GiB CUDA context × {cards}");
    }
    if engine == Engine::Vllm {
        let nt = if tensor { "2.1 GiB" } else { "0.25 GiB" };
        return format!(
            "{cards} card(s) × (sampler peak 4 B × vocab {vocab} × {VLLM_SAMPLER_ROWS} + non-torch {nt})"
        );
    }
    if engine == Engine::Transformers {
        format!("0.7 GiB × {cards} CUDA context + 48 MiB allocator residual")
    } else {
        format!("max(0.7 GiB × {cards}, 0.10 × {device_weights}) + {n_ctx}/131072 × 0.35 GiB")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MLX formula's words name the in-flight term as its constants make it.
    #[test]
    fn mlx_formula_words_follow_the_constants() {
        let a = &crate::catalog::catalog()
            .variant("Qwen/Qwen3-4B")
            .expect("catalog model")
            .1
            .arch;
        let words = format!(
            "+ {} × {} MiB in flight",
            MLX_ACTIVE_TASKS + 1,
            MLX_BUFFER_MIB + 1
        );
        assert!(mlx_formula(a, 1).ends_with(&words), "{}", mlx_formula(a, 1));
        let m = mlx(a, 1).bytes.get() - MLX_PREFILL_STEP * (2 * a.intermediate + 4 * a.hidden) * 2;
        assert_eq!(m, MLX_IN_FLIGHT.get());
    }
}
