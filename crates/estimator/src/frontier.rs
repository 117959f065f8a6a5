//! The context × concurrency frontier: for every KV cache type the engine accepts (and, on
//! llama.cpp, a unified or a per-slot cache), the most concurrent slots that fit at each
//! context of a log-spaced grid, every other input held.
//!
//! Each point is the exact answer of the inverse solver ([`crate::solve`], `--for par`): a
//! binary search over the estimator itself, so padding, blocks and layouts are exact. Slots
//! never grow with the context (property-tested in `tests/properties.rs`), so each context's
//! search is bounded by the previous context's answer, and a line stops at the first context
//! where not even one slot fits. Tested in `tests/frontier.rs` by re-estimating each point and
//! one slot past it.
//!
//! [`plot`] projects a frontier onto a drawing (log-scaled axes, polylines, ticks, the current
//! point), apart from any markup; [`svg`] writes that drawing as an `<svg>` string.

pub mod plot;
pub mod svg;

use crate::catalog::engine::{Engine, KvDtype};
use crate::inputs::normalize::normalize;
use crate::inputs::{limits, Inputs, Mode};
use crate::serve::estimate;
use crate::solve::{ctx_max, max_par};
use crate::units::Tokens;
use serde::Serialize;

/// The first context of the grid (tokens); a model whose context is shorter gets a grid of its
/// own context alone.
pub const GRID_START: Tokens = 512;

/// One KV configuration's frontier.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    /// The cache type (K and V alike), as the engine spells it.
    pub kv: KvDtype,
    /// Other cache types whose points are the same on this grid (llama.cpp's `q4_0` and
    /// `iq4_nl`, vLLM's `auto`, `bfloat16` and `float16` for a 16-bit model): drawn once.
    pub also: Vec<KvDtype>,
    /// llama.cpp: `Some(true)` for one cache shared by all slots (`-kvu`), `Some(false)` for
    /// one per slot; `None` on engines without the choice.
    pub unified: Option<bool>,
    /// `(context, most slots)` from the shortest context up; it ends at the last context of
    /// the grid where one slot fits. A slot count equal to [`Frontier::cap`] means "at least".
    pub points: Vec<(Tokens, u32)>,
}

impl Line {
    /// `q8_0`, `q4_0 = iq4_nl`, with ` unified` or ` per slot` on llama.cpp.
    pub fn label(&self) -> String {
        let mut s = self.kv.id().to_string();
        for k in &self.also {
            s.push_str(" = ");
            s.push_str(k.id());
        }
        match self.unified {
            Some(true) => s.push_str(" unified"),
            Some(false) => s.push_str(" per slot"),
            None => {}
        }
        s
    }

    /// Most slots at `ctx`, when `ctx` is on the grid and one slot fits there.
    pub fn slots_at(&self, ctx: Tokens) -> Option<u32> {
        self.points.iter().find(|p| p.0 == ctx).map(|p| p.1)
    }
}

/// The frontier of one configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Frontier {
    /// The contexts searched (powers of two from [`GRID_START`], then the model's longest).
    pub grid: Vec<Tokens>,
    /// One per KV configuration, in the engine's order (most precise first), unified before
    /// per slot.
    pub lines: Vec<Line>,
    /// The chosen `(context, slots)`.
    pub current: (Tokens, u32),
    /// Does the chosen configuration fit?
    pub current_fits: bool,
    /// The line of the chosen KV configuration (`None` when K and V differ: no line has it).
    pub current_line: Option<usize>,
    /// The top of the slot search (the accepted range's): a point at it means "at least".
    pub cap: u32,
    /// Why no line has a point (nothing fits, train mode); `None` when some point fits.
    pub reason: Option<String>,
    /// Estimates made.
    pub evaluations: u32,
}

/// The contexts of the frontier for a model whose longest context is `max`: powers of two from
/// [`GRID_START`] below `max`, then `max` itself; `[max]` when `max` is below the start.
pub fn grid(max: Tokens) -> Vec<Tokens> {
    let mut g = Vec::new();
    let mut c = GRID_START;
    while c < max {
        g.push(c);
        c = match c.checked_mul(2) {
            Some(n) => n,
            None => break,
        };
    }
    if max >= 1 {
        g.push(max);
    }
    g
}

/// The KV configurations drawn for `engine`: each cache type it offers (`auto` first where it
/// is one of them), and on llama.cpp each type unified and per slot.
fn configs(engine: Engine) -> Vec<(KvDtype, Option<bool>)> {
    let mut kinds = engine.kv_choices();
    if !kinds.contains(&KvDtype::Auto) && !engine.llama_family() {
        kinds.insert(0, KvDtype::Auto);
    }
    kinds
        .into_iter()
        .flat_map(|k| {
            let u: &[Option<bool>] = if engine.splits_kv() {
                &[Some(true), Some(false)]
            } else {
                &[None]
            };
            u.iter().map(move |&u| (k, u))
        })
        .collect()
}

/// The frontier of `inputs` (normalized first, like the solver): every KV configuration of
/// its engine at every context of [`grid`]`(`[`ctx_max`]`)`.
pub fn frontier(inputs: &Inputs) -> Frontier {
    let mut base = inputs.clone();
    normalize(&mut base);
    let current = (base.ctx, base.par);
    let mut f = Frontier {
        grid: Vec::new(),
        lines: Vec::new(),
        current,
        current_fits: false,
        current_line: None,
        cap: limits::PAR.1,
        reason: None,
        evaluations: 0,
    };
    if base.mode == Mode::Train {
        f.reason = Some("the frontier is drawn for serving (mode=serve)".into());
        return f;
    }
    f.current_fits = estimate(&base).fits;
    f.evaluations = 1;
    f.grid = grid(ctx_max(&base));
    let mut n = 0u32;
    let mut lines: Vec<Line> = Vec::new();
    for (kv, unified) in configs(base.engine) {
        let mut at = base.clone();
        at.kv = kv;
        at.kv_v = None;
        at.kvu = unified.unwrap_or(false);
        let mut points = Vec::with_capacity(f.grid.len());
        let mut hi = limits::PAR.1;
        for &ctx in &f.grid {
            at.ctx = ctx;
            match max_par(&at, hi, &mut n) {
                Some(p) => {
                    points.push((ctx, p));
                    hi = p;
                }
                None => break,
            }
        }
        let chosen = base.kv_v.is_none() && kv == base.kv && unified.is_none_or(|u| u == base.kvu);
        match lines
            .iter_mut()
            .position(|l| !points.is_empty() && l.unified == unified && l.points == points)
        {
            // The same points as a type already drawn: one line with both names (a type where
            // nothing fits keeps its own empty line).
            Some(k) => {
                lines[k].also.push(kv);
                if chosen {
                    f.current_line = Some(k);
                }
            }
            None => {
                if chosen {
                    f.current_line = Some(lines.len());
                }
                lines.push(Line {
                    kv,
                    also: Vec::new(),
                    unified,
                    points,
                });
            }
        }
    }
    f.evaluations += n;
    if lines.iter().all(|l| l.points.is_empty()) {
        let first = f.grid.first().copied().unwrap_or(GRID_START);
        f.reason = Some(format!(
            "not even one request of {first} tokens fits with any KV cache type of {}",
            base.engine.label()
        ));
    }
    f.lines = lines;
    f
}
