//! Geometry of the frontier plot: contexts and slots in, coordinates out, no drawing (the
//! markup is [`super::svg`]'s), so every number the picture shows is tested on its own.
//!
//! Both axes are base-2 logarithmic. Context (x) spans 512 to millions of tokens. Slots (y):
//! where the KV cache dominates, slots ≈ free memory / (context × bytes per token), so on
//! log–log axes each line falls with slope −1 and two cache types sit a constant distance apart
//! (the ratio of their bytes per token: f16 and q8_0 one 2^0.9 step apart at every context);
//! a linear y axis would crowd every long-context point (1–4 slots) against the floor under the
//! short-context ones (hundreds).
//! Coordinates run from the top left of the plot area, y downwards, as SVG draws them.

use super::Frontier;
use crate::units::Tokens;

/// Least room between two x tick labels ("128K" is about 30 units wide at 11 px).
pub const X_TICK_SPACING: f64 = 44.0;
/// Least room between two y tick labels.
pub const Y_TICK_SPACING: f64 = 18.0;

/// An axis tick: where, the value, and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// x for the context axis, y for the slot axis.
    pub at: f64,
    /// Tokens or slots.
    pub value: u32,
    /// `4K`, `128K`, `1M`; slots as digits.
    pub label: String,
}

/// One point on the drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    /// From the left of the plot area.
    pub x: f64,
    /// From the top of the plot area.
    pub y: f64,
    /// Context per request (tokens).
    pub ctx: Tokens,
    /// Slots.
    pub slots: u32,
}

/// One frontier line as a polyline.
#[derive(Clone, Debug, PartialEq)]
pub struct Polyline {
    /// Index into [`Frontier::lines`].
    pub line: usize,
    /// Its points, left to right.
    pub marks: Vec<Mark>,
}

/// A frontier projected onto a plot area `width` × `height`.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// Width of the plot area.
    pub width: f64,
    /// Height of the plot area.
    pub height: f64,
    /// Contexts at x = 0 and x = width.
    pub x_range: (Tokens, Tokens),
    /// Slots at y = height (always 1) and y = 0 (a power of two).
    pub y_range: (u32, u32),
    /// Context ticks (powers of two), left to right.
    pub x_ticks: Vec<Tick>,
    /// Slot ticks (powers of two), bottom to top.
    pub y_ticks: Vec<Tick>,
    /// One per line with at least one point.
    pub lines: Vec<Polyline>,
    /// The chosen context and slots.
    pub current: Mark,
}

/// `512`, `4K`, `40K`, `128K`, `1M`: tokens as a tick label.
pub fn ctx_label(t: Tokens) -> String {
    const M: u32 = 1 << 20;
    if t >= M && t.is_multiple_of(M) {
        format!("{}M", t / M)
    } else {
        crate::units::tokens_label(t)
    }
}

/// Position of `v` on a base-2 log axis from `lo` (at 0) to `hi` (at `length`).
pub fn log_pos(v: u32, (lo, hi): (u32, u32), length: f64) -> f64 {
    let span = f64::from(hi.max(lo + 1)).log2() - f64::from(lo.max(1)).log2();
    (f64::from(v.max(1)).log2() - f64::from(lo.max(1)).log2()) / span * length
}

/// Powers of two in `lo..=hi` on an axis `length` long, every `2^s`-th one (`s` the least that
/// keeps `spacing` between neighbours), labelled by `label`.
pub fn ticks(
    (lo, hi): (u32, u32),
    length: f64,
    spacing: f64,
    label: impl Fn(u32) -> String,
) -> Vec<Tick> {
    let lo = lo.max(1);
    if hi < lo {
        return Vec::new();
    }
    let first = 32 - (lo - 1).leading_zeros(); // ⌈log2 lo⌉
    let last = 31 - hi.leading_zeros(); // ⌊log2 hi⌋
                                        // Length of one doubling.
    let octave = length / (f64::from(hi.max(lo + 1)).log2() - f64::from(lo).log2());
    let stride = (1..=31u32)
        .find(|s| octave * f64::from(*s) >= spacing)
        .unwrap_or(31);
    (first..=last)
        .filter(|e| e % stride == 0 || first == last)
        .map(|e| {
            let v = 1u32 << e;
            Tick {
                at: log_pos(v, (lo, hi), length),
                value: v,
                label: label(v),
            }
        })
        .collect()
}

/// The plot of `f` in an area `width` × `height`.
pub fn layout(f: &Frontier, width: f64, height: f64) -> Plot {
    let (cur_ctx, cur_par) = f.current;
    let lo = f
        .grid
        .first()
        .copied()
        .unwrap_or(cur_ctx)
        .min(cur_ctx)
        .max(1);
    let mut hi = f.grid.last().copied().unwrap_or(cur_ctx).max(cur_ctx);
    if hi <= lo {
        hi = lo.saturating_mul(2);
    }
    let most = f
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .chain([cur_par, 2])
        .max()
        .unwrap_or(2);
    let top = most.checked_next_power_of_two().unwrap_or(1 << 31);
    let x = |c: Tokens| log_pos(c, (lo, hi), width);
    let y = |s: u32| height - log_pos(s, (1, top), height);
    let lines = f
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.points.is_empty())
        .map(|(k, l)| Polyline {
            line: k,
            marks: l
                .points
                .iter()
                .map(|&(ctx, slots)| Mark {
                    x: x(ctx),
                    y: y(slots),
                    ctx,
                    slots,
                })
                .collect(),
        })
        .collect();
    let mut y_ticks = ticks((1, top), height, Y_TICK_SPACING, |v| v.to_string());
    for t in &mut y_ticks {
        t.at = height - t.at;
    }
    Plot {
        width,
        height,
        x_range: (lo, hi),
        y_range: (1, top),
        x_ticks: ticks((lo, hi), width, X_TICK_SPACING, ctx_label),
        y_ticks,
        lines,
        current: Mark {
            x: x(cur_ctx),
            y: y(cur_par.max(1)),
            ctx: cur_ctx,
            slots: cur_par,
        },
    }
}
