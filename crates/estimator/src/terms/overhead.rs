//! Runtime overhead: CUDA context, activations / compute buffers, fragmentation.
//!
//! Serving engines (llama.cpp, Ollama, vLLM):
//!   `overhead = max(0.7 GiB × cards, 0.10 × device_weights) + n_ctx / 131072 × 0.35 GiB`
//! where `n_ctx` is the cells the engine allocates (context × slots).
//! Provenance: an empirical fit, within 0.15 GiB over four measured llama.cpp configurations
//! (the measurements themselves are not published).
//! **Empirical**: the coefficients have no theoretical basis; they were fitted on specific driver
//! and engine versions (re-measure after a driver update). The two arms of the `max` are two
//! regimes (small model on several cards: per-card CUDA context; large model on one card:
//! weight-proportional activations) that did not stack in measurement.
//! Domain: llama.cpp-family engines at concurrency 1 as measured; for vLLM it stands in for the
//! profiling peak + CUDA graphs (vLLM sizes its KV pool from what remains, see `kv::paged`).
//!
//! transformers: `overhead = 0.7 GiB × cards + 48 MiB`. The 48 MiB is the largest residual
//! (peak − weights − KV, rounded up) of the Qwen3 speed benchmark (transformers 4.51 +
//! FlashAttention-2, 0.6B…32B at 2K…32K tokens; residuals 33–48 MiB). That benchmark reads
//! PyTorch's allocator peak, which leaves out the CUDA context of the process; the card holds it
//! all the same, so the fit's per-card arm (0.7 GiB, the fixed per-card context cost) is added.

use crate::engine::Engine;
use crate::units::{Bytes, GIB, MIB};

/// Per-card fixed arm of the fit (GiB).
pub const PER_CARD_GIB: f64 = 0.7;
/// Weight-proportional arm of the fit.
pub const WEIGHT_FRACTION: f64 = 0.10;
/// Context slope of the fit: GiB per 131072 tokens.
pub const CTX_GIB_PER_128K: f64 = 0.35;
/// transformers allocator residual (see module docs).
pub const TRANSFORMERS_RESIDUAL: Bytes = Bytes(48 * MIB);

/// The overhead's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overhead {
    /// Over all cards.
    pub bytes: Bytes,
}

/// Where the formula comes from, per engine.
pub fn provenance(engine: Engine) -> &'static str {
    if engine == Engine::Transformers {
        "CUDA context per card (0.7 GiB) plus the largest allocator residual of the Qwen3 transformers speed benchmark (33–48 MiB measured; https://qwen.readthedocs.io/en/latest/getting_started/speed_benchmark.html, tests/measurements.rs)."
    } else {
        "Empirical fit (±0.15 GiB on four measured llama.cpp configurations; driver and engine version specific): the per-card CUDA context or weight-proportional activations, whichever is larger, plus a context slope. Re-measure after a driver update."
    }
}

/// Runtime overhead of `engine` on `cards` cards with `device_weights` on them and `n_ctx`
/// cells allocated (see the module docs).
pub fn overhead(engine: Engine, cards: u32, device_weights: Bytes, n_ctx: u64) -> Overhead {
    let fixed = PER_CARD_GIB * cards as f64 * GIB as f64;
    if engine == Engine::Transformers {
        return Overhead {
            bytes: Bytes::from_f64(fixed) + TRANSFORMERS_RESIDUAL,
        };
    }
    let prop = WEIGHT_FRACTION * device_weights.as_f64();
    let ctx = n_ctx as f64 / 131_072.0 * CTX_GIB_PER_128K * GIB as f64;
    Overhead {
        bytes: Bytes::from_f64(fixed.max(prop) + ctx),
    }
}

/// The formula with these values filled in.
pub fn formula(engine: Engine, cards: u32, device_weights: Bytes, n_ctx: u64) -> String {
    if engine == Engine::Transformers {
        format!("0.7 GiB × {cards} CUDA context + 48 MiB allocator residual")
    } else {
        format!("max(0.7 GiB × {cards}, 0.10 × {device_weights}) + {n_ctx}/131072 × 0.35 GiB")
    }
}
