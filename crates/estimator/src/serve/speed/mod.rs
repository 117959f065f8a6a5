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
//! runs (`data/speed.json`, 27 CUDA rows, llama.cpp builds of 2024: the
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
//! in `data/speed.json`: Ryzen AI Max+ 395, 7940HS, 5800X3D reach 0.42–0.70 of it, median
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
//! host terms of the estimate ([`crate::estimate::Offload`]), off the card's bar; each token
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
use crate::estimate::{Estimate, Sharing};
pub use crate::estimate::{Prefill, Speed};
use crate::inputs::{GpuChoice, Inputs};
use crate::terms::TermName;
use crate::units::Bytes;

mod decode;
mod params;
mod prefill;
pub use decode::*;
pub use params::*;
pub use prefill::*;

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
/// HIP (ROCm) backend: `eff` fitted on the two RX 7900 XTX decode rows of `data/speed.json`
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
/// `data/speed.json` carry no fixed time per token: none is added).
pub const CPU: Fit = Fit {
    eff: HOST_EFF,
    fixed_s: 0.0,
};

/// vLLM and SGLang on HBM cards, one request: their CUDA-graph decode reads more of the
/// bandwidth than llama.cpp's kernels ([`HBM`]). Fitted on the two single-card BF16 rows of the
/// Qwen speed benchmark on an A100 80GB (vLLM 0.6.3, one prompt token, 2048 generated: Qwen2.5-7B
/// 84.28 and 14B 46.30 tokens/s; `vllm_decode` in `data/speed.json`). Held out
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
/// at: the median of the single-socket CPU-backend llama-bench rows of `data/speed.json`
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

/// Fill the decode speed of `e` and its prefill.
pub fn attach(i: &Inputs, v: &Variant, e: &mut Estimate) {
    e.speed = decode(i, v, e);
    let p = e.speed.as_ref().and_then(|_| prefill(i, v, e));
    if let (Some(s), Some(p)) = (e.speed.as_mut(), p) {
        s.prefill_tps = Some(p.prefill_tps);
        s.ttft_s = Some(p.ttft_s);
    }
    let m = crate::serve::measured::find(i, e);
    if let Some(s) = e.speed.as_mut() {
        s.measured = m;
    }
}
