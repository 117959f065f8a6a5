//! The frontier drawn as one `<svg>` string, from the geometry of [`super::plot`]: a page sets
//! it as a container's content in one step (no listener, no script; the container takes the
//! events), and `fitcard frontier --svg` prints it.
//!
//! Every point is focusable (`tabindex="0"`) and named (`aria-label`), with a `<title>` that
//! browsers show on hover. Colours are presentation attributes, so a page's CSS (classes
//! `line k0`…, `pt`, `current`) overrides them; text uses `currentColor`. Every text is
//! XML-escaped. The line's dash tells a unified llama.cpp cache (solid) from one per slot
//! (dashed), so the legend does not rest on colour alone.

use super::plot::{self, Mark, Plot};
use super::Frontier;
use crate::badge::xml_escape;
use std::fmt::Write;

/// Room left of the plot (slot labels and the axis name).
pub const LEFT: f64 = 48.0;
/// Room right of the plot (the legend).
pub const RIGHT: f64 = 200.0;
/// Room above the plot.
pub const TOP: f64 = 14.0;
/// Room below the plot (context labels and the axis name).
pub const BOTTOM: f64 = 40.0;
/// Drawing size when the caller has no box to fit.
pub const DEFAULT_SIZE: (f64, f64) = (760.0, 360.0);
/// Smallest plot area drawn; a smaller box scales the drawing down instead.
pub const MIN_PLOT: (f64, f64) = (160.0, 120.0);

/// Line colours by cache type (Tableau 10: distinct in common colour-vision deficiencies).
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// A coordinate with at most two decimals.
fn n(x: f64) -> String {
    let s = crate::units::Fixed(x, 2).to_string();
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `4 slots`, `1 slot`, `1024+ slots` (the top of the search).
fn slots_words(s: u32, cap: u32) -> String {
    match s {
        1 => "1 slot".into(),
        s if s >= cap => format!("{s}+ slots"),
        s => format!("{s} slots"),
    }
}

/// The frontier in one sentence (the drawing's accessible name).
pub fn summary(f: &Frontier) -> String {
    let (c, p) = f.current;
    let now = format!(
        "chosen: {} at {} tokens ({})",
        slots_words(p, u32::MAX),
        plot::ctx_label(c),
        if f.current_fits {
            "fits"
        } else {
            "does not fit"
        }
    );
    match &f.reason {
        Some(r) => format!("Context × concurrency frontier: {r}; {now}."),
        None => format!(
            "Context × concurrency frontier: most concurrent slots per context for {} KV cache configurations; {now}.",
            f.lines.len()
        ),
    }
}

/// Colour index of each line: one per cache type, shared by its unified and per-slot lines.
fn colours(f: &Frontier) -> Vec<usize> {
    let mut kinds = Vec::new();
    f.lines
        .iter()
        .map(|l| match kinds.iter().position(|k| *k == l.kv) {
            Some(k) => k,
            None => {
                kinds.push(l.kv);
                kinds.len() - 1
            }
        })
        .collect()
}

/// The `<svg>` of `f`, `width` × `height` units (the SVG scales to its box).
pub fn svg(f: &Frontier, width: f64, height: f64) -> String {
    let w = width.max(LEFT + MIN_PLOT.0 + RIGHT).round();
    let h = height.max(TOP + MIN_PLOT.1 + BOTTOM).round();
    let p = plot::layout(f, w - LEFT - RIGHT, h - TOP - BOTTOM);
    let mut s = String::with_capacity(8192);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="frontier-svg" viewBox="0 0 {} {}" role="group" aria-label="{}" font-family="system-ui, sans-serif" font-size="11" fill="currentColor">"#,
        n(w),
        n(h),
        xml_escape(&summary(f))
    );
    axes(&mut s, &p);
    let colour = colours(f);
    for pl in &p.lines {
        let line = &f.lines[pl.line];
        let label = line.label();
        let c = colour[pl.line];
        let dash = if line.unified == Some(false) {
            r#" stroke-dasharray="5 3""#
        } else {
            ""
        };
        let _ = write!(
            s,
            r#"<g class="line k{c}" data-line="{}" data-kv="{}"{}><polyline class="frontier-line" fill="none" stroke="{}" stroke-width="2"{dash} points=""#,
            pl.line,
            xml_escape(line.kv.id()),
            line.unified
                .map_or(String::new(), |u| format!(r#" data-unified="{u}""#)),
            PALETTE[c % PALETTE.len()]
        );
        for (k, m) in pl.marks.iter().enumerate() {
            if k > 0 {
                s.push(' ');
            }
            let _ = write!(s, "{},{}", n(LEFT + m.x), n(TOP + m.y));
        }
        s.push_str(r#""/>"#);
        for m in &pl.marks {
            let tip = xml_escape(&format!(
                "{label}: {} at {} tokens",
                slots_words(m.slots, f.cap),
                plot::ctx_label(m.ctx)
            ));
            let _ = write!(
                s,
                r#"<circle class="pt" cx="{}" cy="{}" r="3.5" fill="{}" tabindex="0" aria-label="{tip}"><title>{tip}</title></circle>"#,
                n(LEFT + m.x),
                n(TOP + m.y),
                PALETTE[c % PALETTE.len()]
            );
        }
        s.push_str("</g>");
    }
    current(&mut s, f, &p.current);
    legend(&mut s, f, &colour, w);
    if let Some(r) = &f.reason {
        let _ = write!(
            s,
            r#"<text class="reason" x="{}" y="{}" text-anchor="middle">{}</text>"#,
            n(LEFT + p.width / 2.0),
            n(TOP + p.height / 2.0),
            xml_escape(r)
        );
    }
    s.push_str("</svg>");
    s
}

/// Frame, ticks, tick labels and axis names.
fn axes(s: &mut String, p: &Plot) {
    let (x0, x1, y0, y1) = (LEFT, LEFT + p.width, TOP, TOP + p.height);
    let _ = write!(
        s,
        r#"<g class="axis"><rect class="frame" x="{}" y="{}" width="{}" height="{}" fill="none" stroke="currentColor" stroke-opacity="0.4"/>"#,
        n(x0),
        n(y0),
        n(p.width),
        n(p.height)
    );
    for t in &p.x_ticks {
        let x = n(x0 + t.at);
        let _ = write!(
            s,
            r#"<line class="grid" x1="{x}" x2="{x}" y1="{}" y2="{}" stroke="currentColor" stroke-opacity="0.15"/><text class="tick-label" x="{x}" y="{}" text-anchor="middle">{}</text>"#,
            n(y0),
            n(y1),
            n(y1 + 14.0),
            xml_escape(&t.label)
        );
    }
    for t in &p.y_ticks {
        let y = n(y0 + t.at);
        let _ = write!(
            s,
            r#"<line class="grid" x1="{}" x2="{}" y1="{y}" y2="{y}" stroke="currentColor" stroke-opacity="0.15"/><text class="tick-label" x="{}" y="{y}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            n(x0),
            n(x1),
            n(x0 - 6.0),
            xml_escape(&t.label)
        );
    }
    let _ = write!(
        s,
        r#"<text class="axis-name" x="{}" y="{}" text-anchor="middle">context per request (tokens, log scale)</text><text class="axis-name" transform="translate({} {}) rotate(-90)" text-anchor="middle">concurrent slots (log scale)</text></g>"#,
        n(x0 + p.width / 2.0),
        n(y1 + 32.0),
        n(12.0),
        n(y0 + p.height / 2.0)
    );
}

/// The chosen point: a ring with a cross, focusable like the others.
fn current(s: &mut String, f: &Frontier, m: &Mark) {
    let tip = xml_escape(&format!(
        "chosen: {} at {} tokens ({})",
        slots_words(m.slots, u32::MAX),
        plot::ctx_label(m.ctx),
        if f.current_fits {
            "fits"
        } else {
            "does not fit"
        }
    ));
    let (x, y) = (LEFT + m.x, TOP + m.y);
    let _ = write!(
        s,
        r#"<g class="current{}" tabindex="0" aria-label="{tip}"><title>{tip}</title><circle cx="{}" cy="{}" r="7" fill="none" stroke="currentColor" stroke-width="2"/><path d="M{} {}h8M{} {}v8" stroke="currentColor" stroke-width="1.5"/></g>"#,
        if f.current_fits { "" } else { " over" },
        n(x),
        n(y),
        n(x - 4.0),
        n(y),
        n(x),
        n(y - 4.0)
    );
}

/// One row per line: a short stroke in its colour and dash, and its label.
fn legend(s: &mut String, f: &Frontier, colour: &[usize], w: f64) {
    let x = w - RIGHT + 14.0;
    s.push_str(r#"<g class="legend">"#);
    for (k, l) in f.lines.iter().enumerate() {
        let y = n(TOP + 6.0 + 15.0 * k as f64);
        let dash = if l.unified == Some(false) {
            r#" stroke-dasharray="5 3""#
        } else {
            ""
        };
        let empty = if l.points.is_empty() {
            " (none fits)"
        } else {
            ""
        };
        let _ = write!(
            s,
            r#"<g class="line k{}"><line x1="{}" x2="{}" y1="{y}" y2="{y}" stroke="{}" stroke-width="2"{dash}/><text x="{}" y="{y}" dominant-baseline="middle">{}{empty}</text></g>"#,
            colour[k],
            n(x),
            n(x + 18.0),
            PALETTE[colour[k] % PALETTE.len()],
            n(x + 24.0),
            xml_escape(&l.label())
        );
    }
    s.push_str("</g>");
}
