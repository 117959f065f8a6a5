//! Measuring the one quantity you cannot look up: the global-attention share.
//!
//! Global layers grow the KV cache linearly with context; sliding-window layers plateau. So the
//! slope of steady-state VRAM against context comes from the global layers alone:
//!   `bytes_per_token = Δvram / Δctx`,
//!   `global_layers = bytes_per_token / (2 × kv_heads × head_dim × bytes_per_element)`,
//!   `share = global_layers / KV-owning layers`.
//! Conditions, enforced here: concurrency pinned to 1 (the caller's
//! measurement), at least three points (two always form a line), and the adjacent slopes must
//! agree (collinearity) — otherwise something else is allocating (a step in an allocation
//! strategy) and the slope is not trusted.
//!
//! Domain: one engine, one architecture, steady state after load and one inference; the KV type
//! of the run. A different engine or family needs its own measurement.

use crate::catalog::Arch;
use crate::engine::KvDtype;
use serde::Serialize;

/// Largest relative disagreement between adjacent slopes still called collinear (5 %: llama.cpp
/// pads cells to 256 and nvidia-smi reports MiB, which moves a slope by well under that).
pub const COLLINEAR_TOLERANCE: f64 = 0.05;

/// One steady-state reading: context (tokens) → device memory used (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    /// Context length (tokens).
    pub ctx: u64,
    /// Device memory used (bytes).
    pub bytes: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
/// The global-layer count backed out of the readings.
pub struct GlobalShare {
    /// Slope of each adjacent pair, bytes per token.
    pub slopes: Vec<f64>,
    /// Least-squares slope over all points, bytes per token.
    pub bytes_per_token: f64,
    /// KV bytes per token of one global layer at this KV type.
    pub per_layer_token: f64,
    /// Equivalent number of global layers.
    pub global_layers: f64,
    /// Of the layers that own a KV cache.
    pub share: f64,
    /// What the catalog's layer layout says, for comparison.
    pub expected_global_layers: u32,
}

/// Back out the global-layer count from readings at several contexts.
pub fn global_share(points: &[Point], arch: &Arch, kv: KvDtype) -> Result<GlobalShare, String> {
    let mut p: Vec<Point> = points.to_vec();
    p.sort_by_key(|x| x.ctx);
    if p.len() < 3 {
        return Err("take at least three points: two always form a line and reveal nothing".into());
    }
    if p.iter().any(|x| !x.bytes.is_finite() || x.bytes < 0.0) {
        return Err("every reading must be a finite, non-negative amount of memory".into());
    }
    if p.windows(2).any(|w| w[0].ctx == w[1].ctx) {
        return Err("each point needs a different context length".into());
    }
    let slopes: Vec<f64> = p
        .windows(2)
        .map(|w| (w[1].bytes - w[0].bytes) / (w[1].ctx - w[0].ctx) as f64)
        .collect();
    let (lo, hi) = slopes
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &s| {
            (a.min(s), b.max(s))
        });
    if hi <= 0.0 {
        return Err("memory does not grow with context: check that the engine was restarted with each context size and that the reading was taken after one inference".into());
    }
    if (hi - lo) / hi > COLLINEAR_TOLERANCE {
        return Err(format!(
            "the points are not collinear (slopes {:.0}…{:.0} bytes/token): something else is active, e.g. a step in the allocation strategy; the slope cannot be trusted until that is understood",
            lo, hi
        ));
    }
    // Least squares over all points.
    let n = p.len() as f64;
    let mx = p.iter().map(|x| x.ctx as f64).sum::<f64>() / n;
    let my = p.iter().map(|x| x.bytes).sum::<f64>() / n;
    let sxx: f64 = p.iter().map(|x| (x.ctx as f64 - mx).powi(2)).sum();
    let sxy: f64 = p.iter().map(|x| (x.ctx as f64 - mx) * (x.bytes - my)).sum();
    let bytes_per_token = sxy / sxx;
    let per_layer_token = kv.row_bytes(arch.kv_heads as u64 * arch.head_dim) as f64 * 2.0;
    let global_layers = bytes_per_token / per_layer_token;
    if !global_layers.is_finite() || slopes.iter().any(|s| !s.is_finite()) {
        return Err("the readings are too large to fit a line through (over the range of a floating-point number): give them in GiB as nvidia-smi shows them".into());
    }
    Ok(GlobalShare {
        slopes,
        bytes_per_token,
        per_layer_token,
        global_layers,
        share: global_layers / arch.kv_owning_layers().max(1) as f64,
        expected_global_layers: arch.kv_layer_split().0,
    })
}
