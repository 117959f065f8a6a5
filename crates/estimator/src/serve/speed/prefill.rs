//! Prefill: the prompt's matrix products at each card's FP16 throughput, and the first token's
//! wait.

use super::decode::card;
use super::*;

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
/// Apple Silicon M-series"; `metal_prefill` in `data/speed.json`): 0.60–0.72 of the GPU's
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
        let (tflops, fit, bw, dfit) = prefill_card(i, k)?;
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
        if crate::serve::support::spills(i) {
            let over = c.bytes.get().saturating_sub(c.budget.get()) as f64;
            t += over.min(w) / (UBATCH * PCIE_GBS * 1e9);
        }
        times.push(t);
    }
    let mut per_token = if e.layout == Sharing::Tensor {
        times.iter().copied().fold(0.0, f64::max)
    } else {
        times.iter().sum()
    };
    // Blocks pinned to host RAM by `ngl=`, and experts by `ncmoe=`, stream to the card the same
    // way.
    if let Some(o) = e.offload {
        per_token +=
            (o.layers_host.get() + o.experts_host.get()) as f64 / (UBATCH * PCIE_GBS * 1e9);
    }
    if !(per_token.is_finite() && per_token > 0.0) {
        return None;
    }
    Some(Prefill {
        prefill_tps: 1.0 / per_token,
        ttft_s: per_token * n as f64,
    })
}

/// Card `k`'s FP16 throughput, its prefill fit, its bandwidth and decode fit; `None` for a card
/// without a published FP16 figure or without a prefill fit.
fn prefill_card(i: &Inputs, k: usize) -> Option<(f64, PrefillFit, f64, Fit)> {
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
    Some((tflops, fit, bw, dfit))
}
