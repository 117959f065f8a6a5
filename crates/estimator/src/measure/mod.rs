//! Measuring the one quantity you cannot look up: the global-attention share.
//!
//! Global layers grow the KV cache linearly with context; sliding-window layers plateau. So the
//! slope of steady-state VRAM against context comes from the global layers alone:
//!   `bytes_per_token = Δvram / Δctx`,
//!   `global_layers = bytes_per_token / (2 × kv_heads × head_dim × bytes_per_element)`,
//!   `share = global_layers / KV-owning layers`.
//! Conditions, enforced here: concurrency pinned to 1 (the caller's
//! measurement), at least three points (two always form a line), and every point on the line
//! through the others (collinearity) — otherwise something else is allocating (a step in an
//! allocation strategy) and the slope is not trusted.
//!
//! [`calibrate`] fits the line by least squares and reports everything a reader needs to judge
//! it: the slope (= the KV bytes per token at concurrency 1), the intercept (weights and fixed
//! overhead), R², each point's residual, the equivalent global-layer count and share, the
//! catalog's assumption beside them, the permalink key that applies the result (`gl=`), and the
//! point that is off the line, named. [`global_share`] is the same fit, refused when a point is
//! off the line. [`how_to_measure`] writes the measuring loop for the chosen engine and model.
//!
//! Domain: one engine, one architecture, steady state after load and one inference; the KV type
//! of the run. A different engine or family needs its own measurement. Latent-attention caches
//! (DeepSeek's MLA) are not K/V heads and are refused.

use crate::catalog::engine::KvDtype;
use crate::catalog::Arch;
use crate::units::Fixed;
use serde::Serialize;

mod script;

pub use script::{how_to_measure, measuring_contexts};

/// How far a point may sit from the line through the others, as a share of the memory the
/// line climbs over the measured range (5 %: llama.cpp pads cells to 256 and nvidia-smi reports
/// MiB, which move a point by well under that).
pub const COLLINEAR_TOLERANCE: f64 = 0.05;

/// … but never less than this many bytes (32 MiB: two readings of an idle card on nvidia-smi
/// differ by a few MiB; the CUDA caching allocator rounds large blocks to 2 MiB).
pub const READING_TOLERANCE: f64 = 32.0 * 1048576.0;

/// One point of the fit: the reading, the line's value at its context and the difference.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Residual {
    /// Context length (tokens).
    pub ctx: u64,
    /// The reading (bytes).
    pub bytes: f64,
    /// The fitted line at this context (bytes).
    pub fitted: f64,
    /// Reading minus line (bytes).
    pub residual: f64,
    /// Off the line through the other points (by more than the tolerance).
    pub off_line: bool,
}

/// What is off the line, in words: a named point, or a change of slope between two contexts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OffLine {
    /// The context of the point off the line; `None` when no single point explains it (the
    /// slope changes, or three points cannot tell which one moved).
    pub ctx: Option<u64>,
    /// One line: what is off and what to do.
    pub message: String,
}

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
    /// Bytes at context 0 on the fitted line: weights and everything that does not grow.
    pub intercept_bytes: f64,
    /// Coefficient of determination of the least-squares line (1 = every point on it).
    pub r2: f64,
    /// Each point against the line, in context order.
    pub points: Vec<Residual>,
    /// The KV bytes per token the catalog's layout gives (its global layers × the per-layer
    /// rate), for comparison with `bytes_per_token`.
    pub expected_bytes_per_token: f64,
    /// The catalog's global share (of the KV-owning layers).
    pub expected_share: f64,
    /// The comparison in words.
    pub comparison: String,
    /// The permalink key that applies the result (`gl=<equivalent global layers>`, two
    /// decimals, at most the model's KV-owning layers; the KV term rounds it to whole layers).
    pub gl: String,
    /// The point off the line, when one is (only from [`calibrate`]; [`global_share`] refuses).
    pub off_line: Option<OffLine>,
}

/// Least-squares line through `p`: (slope, intercept, R²).
fn line(p: &[Point]) -> (f64, f64, f64) {
    let n = p.len() as f64;
    let mx = p.iter().map(|x| x.ctx as f64).sum::<f64>() / n;
    let my = p.iter().map(|x| x.bytes).sum::<f64>() / n;
    let sxx: f64 = p.iter().map(|x| (x.ctx as f64 - mx).powi(2)).sum();
    let sxy: f64 = p.iter().map(|x| (x.ctx as f64 - mx) * (x.bytes - my)).sum();
    let syy: f64 = p.iter().map(|x| (x.bytes - my).powi(2)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let ss_res: f64 = p
        .iter()
        .map(|x| (x.bytes - (intercept + slope * x.ctx as f64)).powi(2))
        .sum();
    let r2 = if syy > 0.0 { 1.0 - ss_res / syy } else { 1.0 };
    (slope, intercept, r2)
}

/// `p` without the point at `k`.
fn without(p: &[Point], k: usize) -> Vec<Point> {
    p.iter()
        .enumerate()
        .filter(|&(j, _)| j != k)
        .map(|(_, x)| *x)
        .collect()
}

/// Each point's distance from the line through the others (bytes, signed).
fn leave_one_out(p: &[Point]) -> Vec<f64> {
    (0..p.len())
        .map(|k| {
            let (s, b, _) = line(&without(p, k));
            p[k].bytes - (b + s * p[k].ctx as f64)
        })
        .collect()
}

fn gib(b: f64) -> String {
    format!("{} GiB", Fixed(b / (1u64 << 30) as f64, 2))
}

const ELSE: &str = "something else is active here (a step in the engine's allocation strategy, another process on the card, a reading taken before the first inference or while the context was not what was asked)";

/// Which point is off the line, if any. `tol` is the largest distance still on the line.
fn find_off_line(p: &[Point], slopes: &[f64], tol: f64) -> Option<OffLine> {
    let loo = leave_one_out(p);
    let d = loo.iter().map(|d| d.abs()).fold(0.0, f64::max);
    if d <= tol {
        return None;
    }
    let side = |d: f64| if d > 0.0 { "above" } else { "below" };
    if p.len() == 3 {
        // The line through two points always fits them: the three cannot tell which moved.
        let mid = p[1].bytes
            - (p[0].bytes
                + (p[2].bytes - p[0].bytes) * (p[1].ctx - p[0].ctx) as f64
                    / (p[2].ctx - p[0].ctx) as f64);
        return Some(OffLine {
            ctx: None,
            message: format!(
                "the points are not collinear: the one at {} tokens is {} {} the line through the other two: {ELSE}; add a fourth point to tell which one moved",
                p[1].ctx,
                gib(mid.abs()),
                side(mid)
            ),
        });
    }
    // The point whose removal leaves the others on one line (the far-off one if several do:
    // an end point has leverage, so the worst leave-one-out distance alone can name the wrong
    // one).
    let alone = (0..p.len())
        .filter(|&k| leave_one_out(&without(p, k)).iter().all(|r| r.abs() <= tol))
        .max_by(|&a, &b| loo[a].abs().total_cmp(&loo[b].abs()));
    if let Some(k) = alone {
        let (worst, d) = (k, loo[k]);
        return Some(OffLine {
            ctx: Some(p[worst].ctx),
            message: format!(
                "the points are not collinear: the point at {} tokens ({}) is {} {} the line through the others: {ELSE}; measure it again or leave it out",
                p[worst].ctx,
                gib(p[worst].bytes),
                gib(d.abs()),
                side(d)
            ),
        });
    }
    // No single point: the slope itself changes. Name the stretch that departs most from the
    // median slope.
    let mut sorted = slopes.to_vec();
    crate::order::sort_by(&mut sorted, f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let k = (0..slopes.len())
        .max_by(|&a, &b| {
            (slopes[a] - median)
                .abs()
                .total_cmp(&(slopes[b] - median).abs())
        })
        .unwrap_or(0);
    Some(OffLine {
        ctx: None,
        message: format!(
            "the points are not collinear: between {} and {} tokens memory grows by {} bytes/token, elsewhere by about {}: {ELSE}; the slope cannot be trusted until that is understood",
            p[k].ctx,
            p[k + 1].ctx,
            Fixed(slopes[k], 0),
            Fixed(median, 0)
        ),
    })
}

/// Back out the global-layer count from readings at several contexts; refused when a point is
/// off the line (the message names it). [`calibrate`] gives the same fit with the point flagged
/// instead.
pub fn global_share(points: &[Point], arch: &Arch, kv: KvDtype) -> Result<GlobalShare, String> {
    let g = calibrate(points, arch, kv)?;
    match &g.off_line {
        Some(o) => Err(o.message.clone()),
        None => Ok(g),
    }
}

/// Fit a line through readings at several contexts (concurrency 1) and back out the global
/// layers. Refused: fewer than three points (two always form a line), readings that are not
/// memory, repeated contexts, memory that does not grow, latent-attention caches. A point off
/// the line is flagged in `off_line` and `points`, not refused.
pub fn calibrate(points: &[Point], arch: &Arch, kv: KvDtype) -> Result<GlobalShare, String> {
    let mut p: Vec<Point> = points.to_vec();
    crate::order::sort_by_key(&mut p, |x| x.ctx);
    refuse(&p, arch)?;
    let slopes: Vec<f64> = p
        .windows(2)
        .map(|w| (w[1].bytes - w[0].bytes) / (w[1].ctx - w[0].ctx) as f64)
        .collect();
    let (bytes_per_token, intercept, r2) = line(&p);
    if slopes.iter().any(|s| !s.is_finite()) || !bytes_per_token.is_finite() || !r2.is_finite() {
        return Err("the readings are too large to fit a line through (over the range of a floating-point number): give them in GiB as nvidia-smi shows them".into());
    }
    if bytes_per_token <= 0.0 || slopes.iter().all(|&s| s <= 0.0) {
        return Err("memory does not grow with context: check that the engine was restarted with each context size and that the reading was taken after one inference".into());
    }
    let span = (p[p.len() - 1].ctx - p[0].ctx) as f64;
    let tol = (COLLINEAR_TOLERANCE * bytes_per_token * span).max(READING_TOLERANCE);
    let off_line = find_off_line(&p, &slopes, tol);
    let points = residuals(&p, (bytes_per_token, intercept), off_line.as_ref(), tol);
    let per_layer_token = kv_rate(arch, kv);
    let global_layers = bytes_per_token / per_layer_token;
    let layers = arch.kv_owning_layers().max(1);
    let expected = arch.kv_layer_split().0;
    let expected_bytes_per_token = f64::from(expected) * per_layer_token;
    let gl = format!(
        "gl={}",
        (global_layers.min(f64::from(layers)) * 100.0).round() / 100.0
    );
    Ok(GlobalShare {
        slopes,
        bytes_per_token,
        per_layer_token,
        global_layers,
        share: global_layers / f64::from(layers),
        expected_global_layers: expected,
        intercept_bytes: intercept,
        r2,
        points,
        expected_bytes_per_token,
        expected_share: f64::from(expected) / f64::from(layers),
        comparison: comparison(
            bytes_per_token,
            global_layers,
            layers,
            expected,
            expected_bytes_per_token,
        ),
        gl,
        off_line,
    })
}

/// The readings [`calibrate`] refuses (sorted by context): too few or too many, not memory,
/// repeated contexts, a latent-attention cache.
fn refuse(p: &[Point], arch: &Arch) -> Result<(), String> {
    if p.len() < 3 {
        return Err("take at least three points: two always form a line and reveal nothing".into());
    }
    if p.len() > 64 {
        return Err("at most 64 points".into());
    }
    if p.iter().any(|x| !x.bytes.is_finite() || x.bytes < 0.0) {
        return Err("every reading must be a finite, non-negative amount of memory".into());
    }
    if p.windows(2).any(|w| w[0].ctx == w[1].ctx) {
        return Err("each point needs a different context length".into());
    }
    if arch.mla.is_some() {
        return Err("latent attention (MLA) caches one compressed vector per token and layer, not K/V heads: the global-layer count does not apply".into());
    }
    Ok(())
}

/// Each point against the line `(slope, intercept)`, flagged when it is the point off the line
/// (or, when no single point is, farther than `tol` from the line through the others).
fn residuals(
    p: &[Point],
    (bytes_per_token, intercept): (f64, f64),
    off_line: Option<&OffLine>,
    tol: f64,
) -> Vec<Residual> {
    p.iter()
        .zip(&leave_one_out(p))
        .map(|(x, d)| {
            let fitted = intercept + bytes_per_token * x.ctx as f64;
            Residual {
                ctx: x.ctx,
                bytes: x.bytes,
                fitted,
                residual: x.bytes - fitted,
                off_line: match off_line {
                    Some(OffLine { ctx: Some(c), .. }) => *c == x.ctx,
                    Some(OffLine { ctx: None, .. }) => d.abs() > tol,
                    None => false,
                },
            }
        })
        .collect()
}

/// The measured slope and global layers beside the catalog's layout, in words.
fn comparison(
    bytes_per_token: f64,
    global_layers: f64,
    layers: u32,
    expected: u32,
    expected_bytes_per_token: f64,
) -> String {
    let diff = global_layers - f64::from(expected);
    format!(
        "measured {} bytes/token ≈ {} global layers ({} % of {layers}); the catalog's layout assumes {expected} ({} %, {} bytes/token): {}",
        Fixed(bytes_per_token, 0),
        Fixed(global_layers, 2),
        Fixed(100.0 * global_layers / f64::from(layers), 1),
        Fixed(100.0 * f64::from(expected) / f64::from(layers), 1),
        Fixed(expected_bytes_per_token, 0),
        if diff.abs() < 0.5 {
            "they agree (within half a layer)".to_string()
        } else {
            format!(
                "{} layers {} than assumed",
                Fixed(diff.abs(), 2),
                if diff > 0.0 { "more" } else { "fewer" }
            )
        }
    )
}

/// KV bytes per token of one global layer at `kv` (K and V).
fn kv_rate(a: &Arch, kv: KvDtype) -> f64 {
    let (heads, dim) = a.kv_shape(true);
    kv.row_bytes(heads * dim) as f64 * 2.0
}
