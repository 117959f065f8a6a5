//! How fast: decode speed at batch 1 and at the chosen concurrency, and what spilling to host
//! memory costs.
//!
//! **Formula.** One decode step reads every active weight byte on each card once, plus each
//! request's KV cache at the current context, so it is bound by memory bandwidth:
//!   `step = Σ_cards (active weights_c + slots × KV per request_c / KV_EFF_RATIO) / (eff × bandwidth_c) + fixed`
//! (layer split: the cards work in sequence, so their times add; tensor parallelism: in parallel,
//! so the slowest card counts). `decode_tps = 1 / step` per request; `aggregate_tps = slots /
//! step`. MoE models read only the routed experts: `active = weights × (1 − expert share × (1 −
//! routed / experts))` was the old rule; see **Active bytes** below for the one used now.
//!
//! **Active bytes (MoE).** A decode step reads, per token, the attention weights of every
//! layer, the dense FFN of the dense layers (DeepSeek-V3's and GLM-4.5's first three, Kimi K2's
//! first, Llama 4 Maverick's every other), the `top-k` routed experts and the shared expert(s)
//! of every MoE layer, the router, and the output head. The token embedding is a lookup of one
//! row, not a read of the table, so it is not counted (on llama.cpp it sits in host memory
//! anyway). [`param_counts`] counts each group from the architecture (multi-latent attention
//! from `q_lora_rank`/`kv_lora_rank`/`v_head_dim`; Gated DeltaNet and Mamba-2 layers from their
//! projection shapes); the card's weight bytes are scaled by `read / held` parameters. Checked
//! against the active-parameter counts the vendors publish (DeepSeek-V3 37B, Kimi K2 32B,
//! Qwen3-30B-A3B 3.3B, gpt-oss-120b 5.1B, … within 10 %, `tests/speed.rs`). The scaling
//! assumes one bytes-per-parameter for the whole file: a file that stores experts at fewer bits
//! than attention (gpt-oss MXFP4, dynamic quants) reads somewhat more than this says.
//!
//! **Context.** The KV cache of the current context is read once per token by the attention
//! kernel, but at a lower share of the bandwidth than the weight matrices: on llama.cpp's
//! published depth sweeps (`tg32 @ d4096 … d32768`, DGX Spark, build 6918) the added time per
//! token grows linearly with the depth at `KV bytes / (KV_EFF_RATIO × eff × bandwidth)`,
//! `KV_EFF_RATIO` fitted there (see [`KV_EFF_RATIO`]); the attention arithmetic itself (4 ×
//! heads × head size flops per cached token and layer) is two orders of magnitude below the
//! card's throughput at batch 1 and is not modelled.
//!
//! **Tensor parallelism.** Each card reads its share of the weights and KV in parallel, and each
//! layer adds two all-reduces of one hidden vector per token (attention output and FFN output,
//! the Megatron-LM split, <https://arxiv.org/abs/1909.08053>, section 3): `2 × layers × (latency +
//! 2 (tp − 1)/tp × hidden × 2 B / link)`. Latency: 6 µs over NVLink (2 × H100, nccl-tests,
//! <https://github.com/NVIDIA/nccl/issues/1259>) for HBM cards, 42.6 µs over PCIe (8 × RTX
//! 4090, 8-byte all_reduce_perf, <https://github.com/NVIDIA/nccl/issues/1530>; fewer cards are
//! faster, so an upper bound) for the others; link: PCIe 4.0 × 16 (31.5 GB/s, 16 GT/s × 16
//! lanes × 128/130 / 8, computed from the PCI-SIG rate) or NVLink 4 (450 GB/s per direction,
//! NVIDIA's H100 specification). Domain: **unvalidated** — no published batch-1 TP decode
//! measurement with its configuration is in the regression rows yet.
//!
//! **Provenance.** `eff` and `fixed` are fitted per memory kind on published llama-bench decode
//! runs (`tests/data/speed.json`, 27 CUDA rows, llama.cpp builds of 2024: the
//! XiongjieDai/GPU-Benchmarks-on-LLM-Inference notebooks and llama.cpp PR #4766): GDDR cards
//! `eff` 0.81 with 1.23 ms per token fixed, HBM cards 0.533 with 3.06 ms (their kernels do not
//! saturate HBM at batch 1). Residuals ±18 %, median 6 % (`tests/speed.rs`). Unified memory
//! (Apple M-series, Metal): `eff` 0.843 with 5.85 ms, fitted on the M2 Ultra and M3 Max runs of
//! the same notebooks (Llama 3 8B/70B, Q4_K_M and F16; within 18 %). The M1 Max's K-quant runs
//! are 43–77 % slower than that fit while its F16 run is within 6 %: on that GPU dequantizing
//! K-quants is compute-bound, a mechanism this bandwidth model does not have, so M1-generation
//! quantized speeds are outside the domain.
//!
//! **AMD.** Held out against the CUDA fits, AMD cards decode slower than their bandwidth says:
//! RDNA3 discrete cards (RX 7900 XTX/XT, W7900, ROCm) by 32–71 %, so they get their own fit
//! ([`RDNA`], `eff` 0.565 fitted on the RX 7900 XTX rows; held out on the 7900 XT and W7900:
//! median 13 %, worst 26 %, a 2023 Q4_K_M build). The MI300X (HBM, ROCm) runs 24 % below the
//! HBM fit on Llama-2-7B Q4_0, the fixed time per token dominating at 5.3 TB/s (held out, kept
//! on the HBM fit). The Ryzen AI Max+ 395's iGPU (Vulkan 52 t/s, HIP 49) runs 12–18 % faster
//! than the Apple unified fit says: it reaches about 80 % of its 256 GB/s (the page that
//! publishes the rows measures 212 GB/s with rocm_bandwidth_test).
//!
//! **Host memory** is read by llama.cpp's CPU kernels (`ggml-cpu`: dequantize a block, dot it
//! with the activation) at a share of the RAM's theoretical bandwidth, [`HOST_EFF`]: fitted on
//! the CPU-backend llama-bench rows of single-socket machines with their RAM stated (`cpu_only`
//! in `tests/data/speed.json`: Ryzen AI Max+ 395, 7940HS, 5800X3D reach 0.42–0.70 of it, median
//! 0.603, counting the file less the token embedding, a lookup). Held out, the partial-offload
//! rows of an RTX 2080 (8 GB) with a quad-channel DDR4 host (llmfit PRs #773–#778: seven models
//! at `-ngl` 16–44, four on the card alone): median 10 %, worst 19 %, every one an over-estimate;
//! with the host read at the full RAM bandwidth the median miss would be 40 % (`tests/speed.rs`).
//! A two-socket server reads far less (0.07–0.13 on a 2 × EPYC 9R14: threads read the other
//! socket's memory across NUMA) and is outside the domain. **Named miss:** `--no-kv-offload`
//! halves LLaMA-7B Q4_0 `tg128` on an RTX 3090 Ti (127.4 → 60.0 t/s, llama.cpp PR #4812) with a
//! cache of only 128 tokens: the attention of every layer then runs on the CPU, a round trip
//! per layer and token this bandwidth model does not charge (it predicts a few per cent).
//!
//! **CPU-only decode**: `ngl=0&nkvo=1` keeps every block and the whole KV cache in host memory,
//! so each token reads the active bytes at `HOST_EFF × ram_bw` (the card then holds only the
//! compute buffers): the rows [`HOST_EFF`] is fitted on.
//!
//! **Spill.** llama.cpp and Ollama keep running when the model does not fit: the layers that do
//! not fit stay in system RAM and are read from there each token, at `HOST_EFF × ram_bw`
//! (`ram_bw` in GB/s, the RAM's theoretical peak, channels × MT/s × 8 B; default 76.8:
//! dual-channel DDR5-4800), so one offloaded gigabyte costs as much as ~15–30 on the card.
//!
//! **Pinned offload** (`ngl=`, llama.cpp `-ngl`, Ollama `num_gpu`; `nkvo=1`, llama.cpp
//! `--no-kv-offload`): the blocks left on the CPU and their KV cache (or the whole cache) are
//! host terms of the estimate ([`crate::result::Offload`]), off the card's bar; each token
//! reads their active bytes at `HOST_EFF × ram_bw`. Without `ngl=`, a model that spills gets
//! the most layers that fit pinned in its command. `on_card_tps` counts the same bytes at the
//! card's bandwidth.
//!
//! **Free-form cards** (`vram=` with `bw=`, GB/s): decoded on the GDDR (CUDA) fit; no prefill
//! (no FP16 throughput).
//!
//! **Domain.** Single-node decode with llama.cpp's kernels (2024 builds); the bandwidth of each
//! catalog GPU from its specification. vLLM and SGLang reach more of HBM at batch 1: their own
//! fit ([`VLLM_HBM`], dense BF16 models; on GDDR cards they keep the llama.cpp fit, unvalidated).
//! MoE kernels reach less of it.
//! Unified memory other than Apple's: the DGX Spark (GB10, CUDA) rows of llama.cpp's
//! `benches/dgx-spark.md` run through the estimator end to end (`tests/speed.rs`).

//!
//! **Prefill.** Prompt processing is compute-bound: per prompt token, `2 ×` the parameters a
//! token goes through (the embedding is a lookup; llama.cpp computes the output head for the
//! last prompt token only), plus attention: a causal prompt of `n` tokens after `d` cached ones
//! scores `n·d + n²/2` query–key pairs per head and full-attention layer (FlashAttention-2 counts
//! `4 · n² · head_dim · heads` forward FLOPs, halved for a causal mask,
//! <https://arxiv.org/abs/2307.08691>, section 4.1; sliding-window layers score at most `n ×
//! window`). The weights run at `eff ×` the card's dense FP16 tensor throughput (`fp16_tflops`
//! in the GPU catalog, each with its source); a score costs [`SCORE_FLOPS`]. Fits
//! ([`PREFILL_GDDR`], [`PREFILL_HBM`], [`PREFILL_GB10`]): GDDR 0.441 and HBM 0.333 on the
//! Llama-3-8B `pp512` rows of the XiongjieDai notebooks (fit: 14 rows, median 9 %; held out, the
//! 70B rows and llama.cpp PR #4766's 7B rows: 10 rows, median 14 %, worst 26 %, the 70B runs
//! faster than estimated, the bigger matrices fill the tensor cores better). The H100 PCIe's
//! 8B rows run 38–66 % below the HBM fit (its 70B row within 13 %): a named miss. In those
//! builds (May 2024) llama.cpp's CUDA backend dequantized K-quants and legacy quants to FP16
//! and multiplied with cuBLAS for batches above 32; the bytes of that (read the quantized
//! weights, write FP16 ones) are charged per micro-batch of 512 at the decode bandwidth.
//! Current builds multiply quantized weights directly with int8 tensor cores (MMQ,
//! `ggml/src/ggml-cuda/mmq.cu`, chosen by `ggml_cuda_should_use_mmq`), so for quantized formats
//! on discrete cards the estimate is on the slow side. GB10 (DGX Spark, build 6918, MMQ):
//! 0.242 on the dense Qwen2.5-Coder-7B `pp2048 @ d0 … d32768` rows (within 16 %); its MoE rows
//! run 18–70 % slower than estimated (routed experts see few tokens each). Apple GPUs under
//! llama.cpp's Metal backend ([`PREFILL_METAL`]): 0.687 on the LLaMA-2-7B `pp512` rows of the
//! M2 Ultra and M3 Max (llama.cpp discussion #4167, fit rows within 15 %); held out, the M1 Max
//! and M2 Max rows within 10 %. MLX's prefill is not fitted, and AMD cards have no
//! `fp16_tflops`: no prefill estimate for either. Cards
//! added to the catalog after the fit are held out (`tests/speed.rs`): the RTX 3080 within
//! 18 %; the RTX 6000 Ada runs 29–71 % slower than its specified throughput says (300 W for
//! an AD102 with more SMs than the 450 W RTX 4090: it cannot hold the boost clock the
//! specification assumes), a named miss. `ttft_s = ctx / prefill_tps` for a
//! prompt that fills the chosen context, batch 1 (the first decode step not included).
//!
//! **Prefill with a spill.** Layers kept in host memory are not computed on the CPU in prompt
//! processing: `ggml_backend_sched` (`ggml/src/ggml-backend.cpp`) hands an op whose weights sit
//! in a host buffer to a GPU backend that asks for it, and the CUDA backend asks for every op
//! with a batch of at least 32 tokens (`ggml_backend_cuda_device_offload_op`,
//! `op_offload_min_batch_size`, `GGML_OP_OFFLOAD_MIN_BATCH`, in
//! <https://github.com/ggml-org/llama.cpp/blob/4c7e9893c4ca8eec35d032726d14b74fae76cff8/ggml/src/ggml-cuda/ggml-cuda.cu>).
//! The weights are then copied over PCIe each micro-batch: `host bytes / (512 × 31.5 GB/s)`
//! per token is added. Unvalidated against a published partial-offload prefill row.

use crate::catalog::{catalog, Arch, MemoryKind, Variant};
use crate::inputs::{GpuChoice, Inputs};
use crate::result::{Estimate, Layout};
pub use crate::result::{Prefill, Speed};
use crate::terms::TermName;
use crate::units::Bytes;

/// Bandwidth efficiency and fixed time per token of one memory kind (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Share of the specified bandwidth reached.
    pub eff: f64,
    /// Fixed time per decode step, seconds.
    pub fixed_s: f64,
}

/// GDDR cards.
pub const GDDR: Fit = Fit {
    eff: 0.81,
    fixed_s: 0.001_23,
};

/// HBM cards.
pub const HBM: Fit = Fit {
    eff: 0.533,
    fixed_s: 0.003_06,
};

/// Unified-memory machines (Apple M-series GPUs with Metal): fitted on the 7 llama-bench decode
/// rows of the M2 Ultra and M3 Max (see the module docs).
pub const UNIFIED: Fit = Fit {
    eff: 0.843,
    fixed_s: 0.005_85,
};

/// AMD discrete GDDR cards (RDNA3: Radeon RX 7900 XTX/XT, Radeon PRO W7900) under llama.cpp's
/// HIP (ROCm) backend: `eff` fitted on the two RX 7900 XTX decode rows of `tests/data/speed.json`
/// (Llama-2-7B Q4_0 tg128 119.09 t/s, build 1988; Llama-3-8B Q4_K_M tg64 105.75 t/s, llama.cpp
/// PR #26284), the fixed time kept at the GDDR one. The CUDA GDDR fit over-estimates these cards
/// by 32–71 %: at batch 1 the HIP matrix-vector kernels read about 55 % of the specified
/// bandwidth, against about 81 % for CUDA on NVIDIA GDDR (the same model and build era: an RTX
/// 3090, 936 GB/s, decodes Llama-2-7B Q4_0 at 134.5 t/s, the 960 GB/s 7900 XTX at 119.1).
/// Held out: the RX 7900 XT and W7900 rows (median 13 %, every row within 26 %, `tests/speed.rs`).
pub const RDNA: Fit = Fit {
    eff: 0.565,
    fixed_s: 0.001_23,
};

/// Apple GPUs under MLX (mlx-lm): fitted on the three Qwen3-4B-Instruct-2507 decode rows
/// (BF16, 8-bit, 4-bit; 52.47, 86.91, 134.52 tokens/s) of mlx-lm's own benchmark on a 64 GB
/// M4 Max (546 GB/s), `mlx_lm/BENCHMARKS.md`,
/// <https://github.com/ml-explore/mlx-lm/blob/d78bf58e217c904ec282ed8da9b947491f78c022/mlx_lm/BENCHMARKS.md>
/// (mlx 0.29.2, mlx-lm 0.28.2, `-p 2048 -g 128`): MLX's quantized matrix-vector kernels read 91 %
/// of the bandwidth with 2.15 ms per token fixed, more than llama.cpp's Metal kernels
/// ([`UNIFIED`], 0.843 and 5.85 ms). Held out (`tests/speed.rs`): the 6-bit, 5-bit and
/// group-32 rows of the same table, an M3 Pro, four models on an M2 Pro and the M2 Ultra's
/// 16-bit Llama-3-70B run: median 7 %, worst 26 % (gemma-3-12b on the M2 Pro, a run whose
/// context is not printed). Mixture-of-experts models (Qwen3-30B-A3B on the same M4 Max, 4 to
/// 8 bits) decode 28–37 % slower than this says (the estimate is 39–58 % high): the routed
/// experts' gathered matmuls (`gather_qmm`) reach less of the bandwidth, a named miss.
pub const MLX: Fit = Fit {
    eff: 0.911,
    fixed_s: 0.002_15,
};

/// A CPU-only machine (llama.cpp's CPU backend): the weights and cache read at [`HOST_EFF`] of
/// the RAM's theoretical bandwidth, the share it is fitted as (the CPU-only rows of
/// `tests/data/speed.json` carry no fixed time per token: none is added).
pub const CPU: Fit = Fit {
    eff: HOST_EFF,
    fixed_s: 0.0,
};

/// vLLM and SGLang on HBM cards, one request: their CUDA-graph decode reads more of the
/// bandwidth than llama.cpp's kernels ([`HBM`]). Fitted on the two single-card BF16 rows of the
/// Qwen speed benchmark on an A100 80GB (vLLM 0.6.3, one prompt token, 2048 generated: Qwen2.5-7B
/// 84.28 and 14B 46.30 tokens/s; `vllm_decode` in `tests/data/speed.json`). Held out
/// (`tests/speed.rs`): Qwen2.5-3B (+24 %: more, smaller layers), 32B, 7B at 6K and 30K tokens of
/// context, 72B under tensor parallelism on 2 and 4 cards, Llama-3.1-8B on an A100 40GB (−16 %)
/// and an H100 (−23 %): median 15 %. Domain: dense BF16 models; quantized kernels (GPTQ, AWQ,
/// FP8) not compared.
pub const VLLM_HBM: Fit = Fit {
    eff: 0.709,
    fixed_s: 0.002_04,
};

/// The decode fit of a catalog card: by memory kind, with AMD discrete GDDR cards apart
/// ([`RDNA`]) and NVIDIA's unified-memory machine on the CUDA fit.
pub fn decode_fit(g: &crate::catalog::Gpu) -> Fit {
    match g.memory_kind {
        MemoryKind::Gddr if g.name.starts_with("AMD") => RDNA,
        MemoryKind::Gddr => GDDR,
        MemoryKind::Hbm => HBM,
        // NVIDIA's unified-memory machine (DGX Spark, GB10) runs llama.cpp's CUDA kernels: the
        // CUDA fit, not the Metal one (its DGX Spark rows, `tests/speed.rs`).
        MemoryKind::Unified if g.name.starts_with("NVIDIA") => GDDR,
        MemoryKind::Unified => UNIFIED,
        MemoryKind::Host => CPU,
    }
}

/// Host memory bandwidth when not given, GB/s (dual-channel DDR5-4800 peak).
pub const DEFAULT_RAM_BW_GBS: f64 = 76.8;

/// Share of the host RAM's theoretical bandwidth llama.cpp's CPU kernels read weights and KV
/// at: the median of the single-socket CPU-backend llama-bench rows of `tests/data/speed.json`
/// (`cpu_only`: Llama-2-7B Q4_0 `tg128` on a Ryzen AI Max+ 395, 28.94 t/s of 256 GB/s, 0.42; a
/// Ryzen 9 7940HS, 14.42 t/s of 89.6 GB/s, 0.603; a Ryzen 7 5800X3D, 10.7 t/s of 57.6 GB/s, 0.70;
/// bytes per token: the file less the token embedding).
/// Domain: one socket, llama.cpp 2023–2025 builds; held out on the partial-offload rows (module
/// docs).
pub const HOST_EFF: f64 = 0.603;

/// The KV cache is read at this share of the weights' effective bandwidth. Fitted on the depth
/// rows (`tg32 @ d0 … d32768`) of llama.cpp's DGX Spark benchmarks
/// (<https://github.com/ggml-org/llama.cpp/blob/4c7e9893c4ca8eec35d032726d14b74fae76cff8/benches/dgx-spark.md>,
/// build 6918, CUDA flash attention, F16 cache): the added step time from d0 to d32768 over the
/// KV bytes the estimator holds at that context gives 0.78 (gpt-oss-120b) and 0.92
/// (Qwen3-Coder-30B-A3B) of the weights' 0.81 × 273 GB/s; their mean, 0.85, is used. Held out:
/// gpt-oss-20b (0.78) and Qwen2.5-Coder-7B (0.86). Domain: llama.cpp's CUDA flash-attention
/// decode kernel on GB10 with an F16 cache; applied to the other memory kinds unvalidated.
pub const KV_EFF_RATIO: f64 = 0.85;

/// Parameters of a model by what one decode step does with them (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ParamCounts {
    /// Token embedding (and gemma-3n's per-layer embeddings): a lookup, not read.
    pub embedding: u64,
    /// Output head (`vocab × hidden`), read every token (also when tied to the embedding).
    pub output: u64,
    /// Attention (or recurrent-mixer) projections of every layer.
    pub attention: u64,
    /// Dense FFN layers.
    pub dense_ffn: u64,
    /// Routed experts, all of them.
    pub routed: u64,
    /// Routed experts a token goes through (`top-k` per MoE layer).
    pub routed_active: u64,
    /// Shared experts (every token).
    pub shared: u64,
    /// Routers.
    pub router: u64,
}

impl ParamCounts {
    /// Every parameter (embedding and output counted apart even when tied).
    pub fn total(&self) -> u64 {
        [
            self.output,
            self.attention,
            self.dense_ffn,
            self.routed,
            self.shared,
            self.router,
        ]
        .iter()
        .fold(self.embedding, |s, x| s.saturating_add(*x))
    }

    /// Parameters a token goes through, embedding included (the vendors' "active" count).
    pub fn active(&self) -> u64 {
        (self.total() - self.routed.min(self.total())).saturating_add(self.routed_active)
    }
}

/// Attention projections of one layer.
fn attention_params(a: &Arch) -> u64 {
    let h = a.hidden;
    let heads = u64::from(a.heads);
    match a.mla {
        Some(m) => {
            // Multi-head latent attention (DeepSeek-V2/V3): q (through its low-rank factor if
            // any), the shared kv_a down-projection with the rotary key, kv_b up to per-head
            // keys (nope part) and values, and the output.
            let qk = a.head_dim;
            let nope = qk.saturating_sub(m.qk_rope_head_dim);
            let v = m.v_head_dim.unwrap_or(nope);
            // Saturating throughout: the dimensions are bounded one by one
            // ([`Arch::absurd`]), their products are not.
            let mul = |xs: &[u64]| xs.iter().fold(1u64, |p, x| p.saturating_mul(*x));
            let q = match m.q_lora_rank {
                Some(r) => mul(&[h, r]).saturating_add(mul(&[r, heads, qk])),
                None => mul(&[h, heads, qk]),
            };
            let kv_a = mul(&[h, m.kv_lora_rank.saturating_add(m.qk_rope_head_dim)]);
            let kv_b = mul(&[m.kv_lora_rank, heads, nope.saturating_add(v)]);
            [kv_a, kv_b, mul(&[heads, v, h])]
                .iter()
                .fold(q, |s, x| s.saturating_add(*x))
        }
        None => {
            let q = heads.saturating_mul(a.head_dim);
            let kv = u64::from(a.kv_heads).saturating_mul(a.head_dim);
            2u64.saturating_mul(h).saturating_mul(q.saturating_add(kv))
        }
    }
}

/// Count the parameters of `a` by group (see the module docs). Saturating: a hostile header
/// gives a large number, never a panic.
pub fn param_counts(a: &Arch) -> ParamCounts {
    let h = a.hidden;
    let layers = u64::from(a.layers);
    let embedding = a.vocab.saturating_mul(h).saturating_add(
        a.ple
            .map_or(0, |p| p.vocab.saturating_mul(layers).saturating_mul(p.dim)),
    );
    let mixer = match &a.recurrent {
        Some(r) => {
            // Recurrent layers: in-projections to q, k (k_heads × k_dim each), v and the gate
            // (v_heads × v_dim each) plus two per-head scalars, the out-projection, and the
            // short convolution over q, k, v.
            let kdim = r.k_heads.saturating_mul(r.k_dim);
            let vdim = r.v_heads.saturating_mul(r.v_dim);
            let two = |x: u64| x.saturating_mul(2);
            let rec = h
                .saturating_mul(
                    two(kdim)
                        .saturating_add(two(vdim))
                        .saturating_add(two(r.v_heads)),
                )
                .saturating_add(vdim.saturating_mul(h))
                .saturating_add(two(kdim).saturating_add(vdim).saturating_mul(r.conv_kernel));
            let att = r.attention_layers.len() as u64;
            att.saturating_mul(attention_params(a))
                .saturating_add(layers.saturating_sub(att).saturating_mul(rec))
        }
        None => layers.saturating_mul(attention_params(a)),
    };
    let ffn = |width: u64| 3u64.saturating_mul(h).saturating_mul(width);
    let mut p = ParamCounts {
        embedding,
        output: a.vocab.saturating_mul(h),
        attention: mixer,
        ..ParamCounts::default()
    };
    if a.experts <= 1 {
        p.dense_ffn = layers.saturating_mul(ffn(a.intermediate));
        return p;
    }
    let layout = a.moe.unwrap_or_default();
    let dense_first = u64::from(layout.dense_layers).min(layers);
    let moe_layers = (layers - dense_first) / u64::from(layout.step.max(1));
    let e = u64::from(a.experts);
    let k = u64::from(a.experts_active).min(e);
    let expert = ffn(a.moe_intermediate.unwrap_or(a.intermediate));
    p.dense_ffn = (layers - moe_layers).saturating_mul(ffn(a.intermediate));
    p.routed = moe_layers.saturating_mul(e).saturating_mul(expert);
    p.routed_active = moe_layers.saturating_mul(k).saturating_mul(expert);
    p.shared = moe_layers.saturating_mul(ffn(layout.shared_ffn));
    p.router = moe_layers.saturating_mul(h).saturating_mul(e);
    p
}

/// Share of the weights on the cards that one decode step reads. `held_bytes`: the weight bytes
/// on the cards; `expert_bits`: bits per weight of the format's expert tensors, capped at the
/// file's average (gpt-oss stores its experts in MXFP4 and the rest at 8–16 bits, so skipping an
/// expert saves less than the file's average; `INFINITY` = the average: a GGUF recipe's mix).
/// `embedding_on_card`: the engine keeps the token embedding with the weights (vLLM,
/// transformers) rather than in host memory (llama.cpp and Ollama with GGUF); a lookup reads one
/// row of it, so it is held but not read. A tied output reuses the embedding matrix, which is
/// then read in full.
pub fn active_share(
    v: &Variant,
    held_bytes: f64,
    expert_bits: f64,
    embedding_on_card: bool,
) -> f64 {
    let p = param_counts(&v.arch);
    let lookup_only = embedding_on_card && !v.arch.tied_embeddings;
    let held = p.total() - if lookup_only { 0 } else { p.embedding };
    if held == 0 || held_bytes <= 0.0 {
        return 1.0;
    }
    let avg = held_bytes / held as f64;
    let per_expert_param = (expert_bits / 8.0).min(avg);
    let skipped = (p.routed - p.routed_active) as f64 * per_expert_param
        + if lookup_only {
            p.embedding as f64 * avg
        } else {
            0.0
        };
    (1.0 - skipped / held_bytes).clamp(0.0, 1.0)
}

/// Per-token tensor-parallel communication on `tp` cards (see the module docs), seconds.
pub fn tp_comm_s(a: &Arch, tp: u32, kind: MemoryKind) -> f64 {
    if tp <= 1 {
        return 0.0;
    }
    let (latency, link) = match kind {
        MemoryKind::Hbm => (6e-6, 450e9),
        _ => (42.56e-6, 31.5e9),
    };
    let n = f64::from(tp);
    let bytes = 2.0 * (n - 1.0) / n * a.hidden as f64 * 2.0;
    2.0 * f64::from(a.layers) * (latency + bytes / link)
}

/// Bandwidth (bytes/s) and fit of card `k`.
fn card(i: &Inputs, k: usize) -> Option<(f64, Fit, MemoryKind)> {
    let id = match (i.gpus.get(k), &i.gpu) {
        (Some(id), _) => id.clone(),
        (None, GpuChoice::Catalog(id)) => id.clone(),
        (None, GpuChoice::VramGib(_)) => return None,
    };
    let g = catalog().gpu(&id)?;
    let fit = match decode_fit(g) {
        f if f == UNIFIED && i.engine == crate::engine::Engine::Mlx => MLX,
        f if f == HBM && i.engine.preallocates() => VLLM_HBM,
        f => f,
    };
    // A CPU-only machine's bandwidth is its RAM's: `ram_bw=` when given.
    let bw = match (g.memory_kind, i.ram_bw) {
        (MemoryKind::Host, Some(r)) => r,
        _ => g.bandwidth_gbs?,
    };
    Some((bw * 1e9, fit, g.memory_kind))
}

/// Bandwidth (bytes/s), fit and memory kind of card `k`: a catalog card's, or a free-form
/// (`vram=`) card's with the `bw=` it was given, on the GDDR (CUDA) fit.
fn card_bw(i: &Inputs, k: usize) -> Option<(f64, Fit, MemoryKind)> {
    match (&i.gpu, i.bw) {
        (GpuChoice::VramGib(_), Some(bw)) if i.gpus.is_empty() => {
            Some((bw * 1e9, GDDR, MemoryKind::Gddr))
        }
        _ => card(i, k),
    }
}

/// Host RAM bandwidth of `i`, bytes/s (the theoretical peak).
pub fn ram_bw(i: &Inputs) -> f64 {
    i.ram_bw.unwrap_or(DEFAULT_RAM_BW_GBS) * 1e9
}

/// Blocks that do not fit the cards and stay in host RAM when no `ngl=` is given (llama.cpp's
/// `--fit`, Ollama's own choice): the bytes over each card's budget in whole layers of
/// `total_device_bytes / layers`.
pub fn spill_layers(i: &Inputs, layers: u32, e: &Estimate) -> (u64, u32) {
    if !crate::support::spills(i) {
        return (0, 0);
    }
    // Bytes sum saturating: per-card bytes from a hostile header can be near u64::MAX.
    let over = e
        .per_card
        .iter()
        .map(|c| Bytes(c.bytes.get().saturating_sub(c.budget.get())))
        .sum::<Bytes>()
        .get();
    let per_layer = e.total_device_bytes.get() / u64::from(layers.max(1));
    (
        over,
        (over.div_ceil(per_layer.max(1)).min(u64::from(layers))) as u32,
    )
}

/// Decode speed of `e` (serve mode), or `None` when a card's bandwidth is unknown.
pub fn decode(i: &Inputs, v: &Variant, e: &Estimate) -> Option<Speed> {
    // The token embedding is held with the weights unless the sizing kept it in host memory
    // (llama.cpp and Ollama with a GGUF on a card: its `weights_host` term).
    let on_card = !e.terms.iter().any(|t| t.name == TermName::WeightsHost);
    let held = e
        .per_card
        .iter()
        .flat_map(|c| c.terms.iter())
        .filter(|t| t.0 == TermName::Weights)
        .map(|t| t.1)
        .sum::<Bytes>()
        .get();
    // GGUF's K-quant, legacy and IQ recipes give the expert tensors their share of the
    // recipe's larger types (llama.cpp's llama_tensor_get_type raises ffn_down, experts included,
    // to Q6_K in part of the layers of Q4_K_M), so an expert weighs the file's average;
    // MXFP4 (gpt-oss) and the safetensors quantizations (AWQ, GPTQ, FP8, NVFP4, MLX) store the
    // experts at the format's precision and keep other tensors wider.
    let expert_bits = if i.engine.container() == crate::quant::Container::Gguf
        && i.quant != crate::quant::Quant::MXFP4
    {
        f64::INFINITY
    } else {
        i.quant.precision_bits()
    };
    let active = active_share(v, held as f64, expert_bits, on_card);
    let par = f64::from(i.par.max(1));
    let ram_bw = ram_bw(i);
    let host_bw = HOST_EFF * ram_bw;
    let mut times = Vec::with_capacity(e.per_card.len());
    let mut spilled = 0u64;
    let mut fixed: f64 = 0.0;
    let mut slowest_link = MemoryKind::Hbm;
    let mut slowest: Option<(f64, Fit)> = None;
    for (k, c) in e.per_card.iter().enumerate() {
        let (bw, fit, kind) = card_bw(i, k)?;
        if slowest.is_none_or(|(b, _)| bw < b) {
            slowest = Some((bw, fit));
        }
        if kind != MemoryKind::Hbm {
            slowest_link = kind;
        }
        let part = |n: TermName| c.terms.iter().find(|t| t.0 == n).map_or(0, |t| t.1.get());
        // The vision projector (card 0) is not read to decode text.
        let projector = if k == 0 {
            e.mmproj_bytes.map_or(0, |b| b.get())
        } else {
            0
        };
        let weights = part(TermName::Weights).saturating_sub(projector) as f64 * active;
        let kv = part(TermName::KvCache) as f64;
        // What does not fit this card stays in host memory (llama.cpp, Ollama).
        let over = if crate::support::spills(i) {
            c.bytes.get().saturating_sub(c.budget.get())
        } else {
            0
        };
        spilled = spilled.saturating_add(over);
        // The spill takes whole layers: weights and their KV in proportion.
        let spill_share = if weights + kv > 0.0 {
            (over as f64 / (weights / active + kv)).min(1.0)
        } else {
            0.0
        };
        let w_card = weights * (1.0 - spill_share);
        let kv_card = kv * (1.0 - spill_share);
        let host = (weights + kv) * spill_share;
        times.push((
            w_card / (fit.eff * bw) + kv_card / (KV_EFF_RATIO * fit.eff * bw),
            host / host_bw,
            // The spilled bytes read on this card instead, for `on_card_tps`.
            (weights * spill_share) / (fit.eff * bw)
                + (kv * spill_share) / (KV_EFF_RATIO * fit.eff * bw),
        ));
        fixed = fixed.max(fit.fixed_s);
    }
    let (card_t, host_t, spill_on_card_t): (f64, f64, f64) = if e.layout == Layout::Tensor {
        let t = times.iter().map(|t| t.0).fold(0.0, f64::max);
        let comm = tp_comm_s(&v.arch, e.per_card.len() as u32, slowest_link);
        (
            t + comm,
            times.iter().map(|t| t.1).sum(),
            times.iter().map(|t| t.2).fold(0.0, f64::max),
        )
    } else {
        (
            times.iter().map(|t| t.0).sum(),
            times.iter().map(|t| t.1).sum(),
            times.iter().map(|t| t.2).sum(),
        )
    };
    // `ngl=` / `nkvo=1`: the blocks and KV cache kept in host RAM are read from there.
    let (bw0, fit0) = slowest?;
    let (pinned_t, pinned_on_card_t, pinned_layers) = match e.offload {
        Some(o) => {
            let w = o.layers_host.get() as f64 * active;
            let kv = o.kv_host.get() as f64;
            (
                (w + kv) / host_bw,
                // What the same bytes cost on the card, for `on_card_tps`.
                w / (fit0.eff * bw0) + kv / (KV_EFF_RATIO * fit0.eff * bw0),
                o.cpu_layers,
            )
        }
        None => (0.0, 0.0, 0),
    };
    let step = card_t + host_t + pinned_t + fixed;
    let (_, spill_layers) = spill_layers(i, v.arch.layers, e);
    let pinned_host = e
        .offload
        .map_or(0, |o| o.layers_host.get() + o.kv_host.get());
    Some(Speed {
        decode_tps: 1.0 / step,
        aggregate_tps: par / step,
        offloaded_bytes: spilled + pinned_host,
        offloaded_layers: (spill_layers + pinned_layers).min(v.arch.layers),
        on_card_tps: 1.0 / (card_t + spill_on_card_t + pinned_on_card_t + fixed),
        bandwidth_gbs: bw0 / 1e9,
        efficiency: fit0.eff,
        ram_bw_gbs: ram_bw / 1e9,
        ram_efficiency: HOST_EFF,
        prefill_tps: None,
        ttft_s: None,
        measured: None,
    })
}

/// Prefill efficiency of one hardware class: the share of the card's dense FP16 tensor
/// throughput the weight matrices reach in prompt processing (see [`prefill`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrefillFit {
    /// Share of `fp16_tflops` reached by the weight matmuls.
    pub eff: f64,
    /// Quantized weights are dequantized to FP16 for each micro-batch before cuBLAS multiplies
    /// them (llama.cpp's CUDA path for batches above 32 in the builds the fit comes from): the
    /// extra memory traffic is charged.
    pub dequant: bool,
}

/// GDDR cards: fitted on the Llama-3-8B `pp512` rows of the XiongjieDai notebooks (RTX 3090,
/// 4080, 4090, A6000, L40S; llama.cpp builds 2824–2843 of May 2024).
pub const PREFILL_GDDR: PrefillFit = PrefillFit {
    eff: 0.441,
    dequant: true,
};

/// HBM cards: fitted on the Llama-3-8B `pp512` rows of the A100 (PCIe, SXM) and H100 PCIe.
pub const PREFILL_HBM: PrefillFit = PrefillFit {
    eff: 0.333,
    dequant: true,
};

/// NVIDIA's unified-memory machine (DGX Spark, GB10): fitted on the dense Qwen2.5-Coder-7B
/// `pp2048` row of llama.cpp's `benches/dgx-spark.md` (build 6918, MMQ kernels: quantized
/// weights are multiplied as they are, no dequantization). The MoE rows of the same benchmark
/// (gpt-oss, Qwen3-Coder-30B-A3B) run slower than this says: each routed expert sees only
/// `ubatch × top-k / experts` tokens (64–256 there), too few rows to fill the tensor cores, a
/// mechanism not modelled yet.
pub const PREFILL_GB10: PrefillFit = PrefillFit {
    eff: 0.242,
    dequant: false,
};

/// Apple GPUs under llama.cpp's Metal backend: the median over the LLaMA-2-7B `pp512` rows (F16,
/// Q8_0, Q4_0) of the M2 Ultra (76 cores) and M3 Max (40 cores), the chips the Metal decode fit
/// comes from, in the summary table of llama.cpp discussion #4167
/// (<https://github.com/ggml-org/llama.cpp/discussions/4167>, "Performance of llama.cpp on
/// Apple Silicon M-series"; `metal_prefill` in `tests/data/speed.json`): 0.60–0.72 of the GPU's
/// FP16 throughput. The Metal matrix kernels dequantize tiles as they multiply (no separate
/// dequantization pass). Held out: the M1 Max (32 cores) and M2 Max (38 cores) rows, within 10 %.
pub const PREFILL_METAL: PrefillFit = PrefillFit {
    eff: 0.687,
    dequant: false,
};

/// Cost of one attention score (one query, one cached key, one head) in prefill, in FP16
/// FLOP-equivalents at the card's dense throughput. Fitted on the depth slope (the time added
/// from d0 to d32768) of the Qwen3-Coder-30B-A3B `pp2048 @ dN` rows (DGX Spark); the gpt-oss
/// slopes (head size 64 against Qwen3's 128) give the same cost per score within 15 %: the
/// flash-attention kernel is bound by the per-score softmax work, not by the `4 × head_dim`
/// matmul FLOPs (FlashAttention-3, <https://arxiv.org/abs/2407.08608>, section 3.1: the
/// exponential runs at a small fraction of the matmul throughput).
pub const SCORE_FLOPS: f64 = 1140.0;

/// llama.cpp's default micro-batch (`-ub 512`): the unit in which weights are dequantized or
/// streamed from host memory.
pub const UBATCH: f64 = 512.0;

/// Host-to-card link for weights streamed during prefill: PCIe 4.0 × 16, 31.5 GB/s (see the
/// tensor-parallel link above).
pub const PCIE_GBS: f64 = 31.5;

/// Weight FLOPs per prompt token: `2 ×` the parameters a token goes through, without the
/// embedding (a lookup) and the output head (llama.cpp computes logits for the last prompt
/// token only).
pub fn prefill_weight_flops(a: &Arch) -> f64 {
    let p = param_counts(a);
    2.0 * (p.active() - p.embedding - p.output) as f64
}

/// Attention scores (query × cached key × head, summed over layers) of a causal prompt of `n`
/// tokens after `depth` cached ones: a full-attention layer scores `n × depth + n² / 2` per
/// head; a sliding-window layer at most `n × window`; recurrent layers none.
pub fn prefill_scores(a: &Arch, n: u64, depth: u64) -> f64 {
    let (n, d) = (n as f64, depth as f64);
    let full = n * d + n * n / 2.0;
    let heads = f64::from(a.heads);
    let layers = a.layers;
    let attention_layers: Vec<u32> = match &a.recurrent {
        Some(r) => r.attention_layers.clone(),
        None => (0..layers).collect(),
    };
    attention_layers
        .iter()
        .map(|&il| match a.swa {
            Some(s) if il % s.period.max(1) != s.global_offset => {
                let w = f64::from(s.window);
                heads * full.min(n * w)
            }
            _ => heads * full,
        })
        .sum()
}

/// Seconds per prompt token on one card that holds `share` of the model: the weight matmuls at
/// `eff × tflops`, the attention scores at [`SCORE_FLOPS`] each, and (where the class
/// dequantizes) `dequant_bytes` of memory traffic per micro-batch at the decode bandwidth.
pub fn prefill_token_s(
    weight_flops: f64,
    scores_per_token: f64,
    tflops: f64,
    fit: PrefillFit,
    dequant_bytes: f64,
    bw_bytes_s: f64,
) -> f64 {
    let peak = tflops * 1e12;
    weight_flops / (fit.eff * peak)
        + scores_per_token * SCORE_FLOPS / peak
        + if fit.dequant {
            dequant_bytes / (UBATCH * bw_bytes_s)
        } else {
            0.0
        }
}

/// Prefill speed and time to first token of `e` for a prompt of `ctx` tokens at batch 1, or
/// `None` when a card's FP16 throughput is unknown (free-form cards, AMD, some Apple chips) or
/// no fit covers it (MLX).
pub fn prefill(i: &Inputs, v: &Variant, e: &Estimate) -> Option<Prefill> {
    let a = &v.arch;
    let n = u64::from(i.ctx.max(1));
    let flops = prefill_weight_flops(a);
    let scores = prefill_scores(a, n, 0) / n as f64;
    let quantized = i.quant.precision_bits() < 16.0;
    let p = param_counts(a);
    let params_on_cards = (p.total() - p.embedding) as f64;
    let held: f64 = e
        .per_card
        .iter()
        .flat_map(|c| c.terms.iter())
        .filter(|t| t.0 == TermName::Weights)
        .map(|t| t.1.get() as f64)
        .sum();
    if held <= 0.0 {
        return None;
    }
    let mut times = Vec::with_capacity(e.per_card.len());
    for (k, c) in e.per_card.iter().enumerate() {
        let id = match (i.gpus.get(k), &i.gpu) {
            (Some(id), _) => id.clone(),
            (None, GpuChoice::Catalog(id)) => id.clone(),
            (None, GpuChoice::VramGib(_)) => return None,
        };
        let g = catalog().gpu(&id)?;
        let tflops = g.fp16_tflops?;
        let (bw, dfit, _) = card(i, k)?;
        let fit = match g.memory_kind {
            MemoryKind::Gddr => PREFILL_GDDR,
            MemoryKind::Hbm => PREFILL_HBM,
            MemoryKind::Unified if g.name.starts_with("NVIDIA") => PREFILL_GB10,
            // Apple GPUs: the Metal fit is llama.cpp's; MLX's prefill is not fitted.
            MemoryKind::Unified if i.engine.llama_family() => PREFILL_METAL,
            // No fit for CPUs' or MLX's prompt processing.
            MemoryKind::Unified | MemoryKind::Host => return None,
        };
        let w = c
            .terms
            .iter()
            .find(|t| t.0 == TermName::Weights)
            .map_or(0.0, |t| t.1.get() as f64);
        let share = w / held;
        // Dequantizing reads the quantized bytes and writes FP16 ones, per micro-batch.
        let dequant = if quantized && i.engine.llama_family() {
            w + 2.0 * params_on_cards * share
        } else {
            0.0
        };
        let mut t = prefill_token_s(
            flops * share,
            scores * share,
            tflops,
            fit,
            dequant,
            dfit.eff * bw,
        );
        // Layers left in host memory: llama.cpp's CUDA backend runs their matmuls on the card
        // for batches of 32 tokens or more, copying the weights over PCIe each micro-batch.
        if crate::support::spills(i) {
            let over = c.bytes.get().saturating_sub(c.budget.get()) as f64;
            t += over.min(w) / (UBATCH * PCIE_GBS * 1e9);
        }
        times.push(t);
    }
    let mut per_token = if e.layout == Layout::Tensor {
        times.iter().copied().fold(0.0, f64::max)
    } else {
        times.iter().sum()
    };
    // Blocks pinned to host RAM by `ngl=` stream to the card the same way.
    if let Some(o) = e.offload {
        per_token += o.layers_host.get() as f64 / (UBATCH * PCIE_GBS * 1e9);
    }
    if !(per_token.is_finite() && per_token > 0.0) {
        return None;
    }
    Some(Prefill {
        prefill_tps: 1.0 / per_token,
        ttft_s: per_token * n as f64,
    })
}

/// Fill the decode speed of `e` and its prefill.
pub fn attach(i: &Inputs, v: &Variant, e: &mut Estimate) {
    e.speed = decode(i, v, e);
    let p = e.speed.as_ref().and_then(|_| prefill(i, v, e));
    if let (Some(s), Some(p)) = (e.speed.as_mut(), p) {
        s.prefill_tps = Some(p.prefill_tps);
        s.ttft_s = Some(p.ttft_s);
    }
    let m = crate::measured::find(i, e);
    if let Some(s) = e.speed.as_mut() {
        s.measured = m;
    }
}
