//! How fast: decode speed at batch 1 and at the chosen concurrency, and what spilling to host
//! memory costs.
//!
//! **Formula.** One decode step reads every active weight byte on each card once, plus each
//! request's KV cache at the current context, so it is bound by memory bandwidth:
//!   `step = Σ_cards (active weights_c + slots × KV per request_c) / (eff × bandwidth_c) + fixed`
//! (layer split: the cards work in sequence, so their times add; tensor parallelism: in parallel,
//! so the slowest card counts). `decode_tps = 1 / step` per request; `aggregate_tps = slots /
//! step`. MoE models read only the routed experts: `active = weights × (1 − expert share × (1 −
//! routed / experts))`, the expert share from the config's shapes.
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
//! **Spill.** llama.cpp and Ollama keep running when the model does not fit: the layers that do
//! not fit stay in system RAM and are read from there each token, at `ram_bw` (GB/s; default
//! 76.8: dual-channel DDR5-4800, 4800 MT/s × 8 B × 2 channels, a peak the CPU will not beat), so
//! one offloaded gigabyte costs as much as ~10–20 on the card.
//!
//! **Domain.** Single-node decode with llama.cpp's kernels (2024 builds); the bandwidth of each
//! catalog GPU from its specification. vLLM reaches more of HBM at batch 1 (75 tokens/s for
//! Llama-3.1-8B BF16 on an A100 40GB where this fit says about 45), and MoE kernels less of it,
//! so both are outside the fitted domain. No prefill model yet (compute-bound: it needs tensor-core throughput per
//! format, which the published specifications do not give consistently).

use crate::catalog::{catalog, MemoryKind, Variant};
use crate::estimate::{Estimate, Layout};
use crate::inputs::{GpuChoice, Inputs};
use crate::terms::TermName;
use crate::training::terms::Dims;
use serde::Serialize;

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

/// Host memory bandwidth when not given, GB/s (dual-channel DDR5-4800 peak).
pub const DEFAULT_RAM_BW_GBS: f64 = 76.8;

/// The speed of one configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Speed {
    /// Tokens per second for each request, at the chosen context and concurrency.
    pub decode_tps: f64,
    /// Tokens per second over all concurrent requests.
    pub aggregate_tps: f64,
    /// Bytes that stay in system RAM and are read from there each token (llama.cpp, Ollama).
    pub offloaded_bytes: u64,
    /// Whole layers that stay in system RAM.
    pub offloaded_layers: u32,
    /// Decode speed if nothing spilled, per request (equal to `decode_tps` without a spill).
    pub on_card_tps: f64,
}

/// Share of the weights read per token (1 for dense models).
pub fn active_share(v: &Variant) -> f64 {
    let a = &v.arch;
    if a.experts <= 1 {
        return 1.0;
    }
    let d = Dims::of(a);
    let expert = (3 * d.h * d.m * d.e * d.l) as f64;
    let total = d.total_params() as f64;
    let share = (expert / total).clamp(0.0, 1.0);
    1.0 - share * (1.0 - f64::from(a.experts_active) / f64::from(a.experts))
}

/// Bandwidth (bytes/s) and fit of card `k`.
fn card(i: &Inputs, k: usize) -> Option<(f64, Fit)> {
    let id = match (i.gpus.get(k), &i.gpu) {
        (Some(id), _) => id.clone(),
        (None, GpuChoice::Catalog(id)) => id.clone(),
        (None, GpuChoice::VramGib(_)) => return None,
    };
    let g = catalog().gpu(&id)?;
    let fit = match g.memory_kind {
        MemoryKind::Gddr => GDDR,
        MemoryKind::Hbm => HBM,
        MemoryKind::Unified => UNIFIED,
    };
    Some((g.bandwidth_gbs? * 1e9, fit))
}

/// Decode speed of `e` (serve mode), or `None` when a card's bandwidth is unknown.
pub fn decode(i: &Inputs, v: &Variant, e: &Estimate) -> Option<Speed> {
    let active = active_share(v);
    let par = f64::from(i.par.max(1));
    let ram_bw = DEFAULT_RAM_BW_GBS * 1e9;
    let mut times = Vec::with_capacity(e.per_card.len());
    let mut spilled = 0u64;
    let mut fixed: f64 = 0.0;
    for (k, c) in e.per_card.iter().enumerate() {
        let (bw, fit) = card(i, k)?;
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
        let over = if i.engine.llama_family() {
            c.bytes.get().saturating_sub(c.budget.get())
        } else {
            0
        };
        spilled += over;
        let on_card = (weights + kv - over as f64).max(0.0);
        times.push((on_card / (fit.eff * bw), over as f64 * active / ram_bw));
        fixed = fixed.max(fit.fixed_s);
    }
    let (card_t, host_t): (f64, f64) = if e.layout == Layout::Tensor {
        let t = times.iter().map(|t| t.0).fold(0.0, f64::max);
        (t, times.iter().map(|t| t.1).sum())
    } else {
        (
            times.iter().map(|t| t.0).sum(),
            times.iter().map(|t| t.1).sum(),
        )
    };
    let step = card_t + host_t + fixed;
    let per_layer = e.total_device_bytes.get() / u64::from(v.arch.layers.max(1));
    Some(Speed {
        decode_tps: 1.0 / step,
        aggregate_tps: par / step,
        offloaded_bytes: spilled,
        offloaded_layers: spilled.div_ceil(per_layer.max(1)) as u32,
        on_card_tps: 1.0 / (card_t + fixed),
    })
}
