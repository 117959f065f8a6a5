//! Geometry of the stacked memory bar: bytes in, coordinates out, no drawing.
//!
//! The projection (this module) is kept apart from the SVG that draws it
//! ([`crate::draw::bar_svg`]), so that every number the picture shows is tested on the host. All
//! cards of one estimate share one horizontal scale, and the host-resident bar uses the same
//! scale, so lengths compare across rows.

use fitcard_estimator::terms::TermName;
use fitcard_estimator::units::GIB;
use fitcard_estimator::{Bytes, CardUse};

/// Width of the drawing area in SVG user units (the SVG scales to its box).
pub const WIDTH: f64 = 600.0;

/// Room kept right of the largest value, as a fraction of it, so an end marker stays visible.
pub const PAD: f64 = 0.04;

/// One term's rectangle in a stacked bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// The estimator's term.
    pub name: TermName,
    pub bytes: Bytes,
    /// Left edge.
    pub x: f64,
    pub width: f64,
}

/// One card's bar: its segments and the lines drawn against it.
#[derive(Clone, Debug, PartialEq)]
pub struct CardBar {
    pub index: u32,
    pub segments: Vec<Segment>,
    /// Right end of the stack.
    pub used_x: f64,
    /// The card's capacity line.
    pub capacity_x: f64,
    /// The engine's budget line when it is below capacity (vLLM `util × capacity`).
    pub budget_x: Option<f64>,
    /// The stack passes the budget.
    pub over: bool,
}

/// An axis tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub x: f64,
    pub label: String,
}

/// All bars of one estimate on a shared scale.
#[derive(Clone, Debug, PartialEq)]
pub struct Bars {
    pub cards: Vec<CardBar>,
    /// Host-resident terms, on the same scale.
    pub host: Vec<Segment>,
    pub ticks: Vec<Tick>,
    /// Bytes at `x = width`.
    pub domain: Bytes,
}

/// Lay out `cards` (device use per card) and the `host` terms in a drawing `width` wide.
pub fn layout(cards: &[CardUse], host: &[(TermName, Bytes)], width: f64) -> Bars {
    let host_total: Bytes = host.iter().map(|(_, b)| *b).sum();
    let largest = cards
        .iter()
        .map(|c| c.bytes.max(c.capacity))
        .chain(std::iter::once(host_total))
        .max()
        .unwrap_or(Bytes::ZERO);
    let domain = if largest.get() == 0 {
        Bytes(GIB)
    } else {
        largest.scale(1.0 + PAD)
    };
    let x = |b: Bytes| b.as_f64() / domain.as_f64() * width;
    let cards = cards
        .iter()
        .map(|c| {
            let segments = stack(&c.terms, &x);
            CardBar {
                index: c.index,
                used_x: x(c.bytes),
                capacity_x: x(c.capacity),
                budget_x: (c.budget < c.capacity).then(|| x(c.budget)),
                over: c.bytes > c.budget,
                segments,
            }
        })
        .collect();
    Bars {
        cards,
        host: stack(host, &x),
        ticks: ticks(domain, width),
        domain,
    }
}

/// Stack the non-empty terms left to right.
fn stack(terms: &[(TermName, Bytes)], x: &impl Fn(Bytes) -> f64) -> Vec<Segment> {
    let mut at = Bytes::ZERO;
    let mut out = Vec::with_capacity(terms.len());
    for &(name, bytes) in terms {
        if bytes.get() == 0 {
            continue;
        }
        let left = x(at);
        at += bytes;
        out.push(Segment {
            name,
            bytes,
            x: left,
            width: x(at) - left,
        });
    }
    out
}

/// Tick steps in GiB: the first that gives at most [`MAX_TICKS`] intervals (fewer on a narrow
/// drawing, one per [`TICK_SPACING`] units) is used.
const STEPS_GIB: [f64; 14] = [
    0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0,
];
const MAX_TICKS: f64 = 8.0;
/// Least room per tick interval, in drawing units, so that tick labels never touch.
const TICK_SPACING: f64 = 48.0;

/// Ticks at round GiB values from 0 up to `domain`.
pub fn ticks(domain: Bytes, width: f64) -> Vec<Tick> {
    let d = domain.gib();
    if d <= 0.0 {
        return Vec::new();
    }
    let most = (width / TICK_SPACING).floor().clamp(2.0, MAX_TICKS);
    let step = STEPS_GIB
        .iter()
        .copied()
        .find(|s| d / s <= most)
        .unwrap_or_else(|| (d / most).ceil());
    let n = (d / step).floor() as u32;
    (0..=n)
        .map(|k| {
            let g = step * f64::from(k);
            Tick {
                x: g / d * width,
                label: if k == 0 {
                    "0".into()
                } else {
                    format!("{} GiB", fitcard_estimator::units::Shortest(g))
                },
            }
        })
        .collect()
}

/// CSS class carrying a term's colour (one custom property per term, at the top of
/// `style/layout.css`).
pub const fn term_class(name: TermName) -> &'static str {
    match name {
        TermName::Weights => "t-weights",
        TermName::KvCache => "t-kv",
        TermName::Overhead => "t-overhead",
        TermName::WeightsHost => "t-embd",
        TermName::Logits => "t-logits",
        TermName::LayersHost => "t-layers-host",
        TermName::KvHost => "t-kv-host",
        TermName::ExpertsHost => "t-experts-host",
        TermName::DraftWeights => "t-draft",
        TermName::DraftKvCache => "t-draft-kv",
        TermName::LoraAdapters => "t-lora-serve",
        TermName::WithModels => "t-with",
        TermName::Lora => "t-lora",
        TermName::Optimizer => "t-optimizer",
        TermName::Gradients => "t-gradients",
        TermName::Activations => "t-activations",
        TermName::CudaOverhead => "t-cuda",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(index: u32, terms: &[(TermName, u64)], capacity: u64, budget: u64) -> CardUse {
        let terms: Vec<(TermName, Bytes)> =
            terms.iter().map(|&(n, g)| (n, Bytes(g * GIB))).collect();
        CardUse {
            index,
            bytes: terms.iter().map(|t| t.1).sum(),
            capacity: Bytes(capacity * GIB),
            budget: Bytes(budget * GIB),
            terms,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn segments_stack_without_gaps_and_scale_to_capacity() {
        // 10 + 4 + 1 GiB on a 24 GiB card: the capacity is the largest value.
        let c = card(
            0,
            &[
                (TermName::Weights, 10),
                (TermName::KvCache, 4),
                (TermName::Overhead, 1),
            ],
            24,
            24,
        );
        let l = layout(&[c], &[], 1000.0);
        let bar = &l.cards[0];
        let unit = 1000.0 / (24.0 * (1.0 + PAD));
        assert_eq!(bar.segments.len(), 3);
        assert!(close(bar.segments[0].x, 0.0));
        assert!(close(bar.segments[0].width, 10.0 * unit));
        for w in bar.segments.windows(2) {
            assert!(close(w[0].x + w[0].width, w[1].x), "no gap, no overlap");
        }
        assert!(close(bar.used_x, 15.0 * unit));
        assert!(close(bar.capacity_x, 24.0 * unit));
        assert_eq!(bar.budget_x, None, "budget = capacity draws no extra line");
        assert!(!bar.over);
    }

    #[test]
    fn an_overflowing_stack_sets_the_scale_and_is_flagged() {
        let c = card(
            0,
            &[(TermName::Weights, 30), (TermName::KvCache, 6)],
            24,
            24,
        );
        let l = layout(&[c], &[], 600.0);
        let bar = &l.cards[0];
        assert!(bar.over);
        assert!(close(bar.used_x, 600.0 / (1.0 + PAD)));
        assert!(bar.capacity_x < bar.used_x);
    }

    #[test]
    fn vllm_budget_line_sits_below_capacity() {
        let mut c = card(0, &[(TermName::Weights, 16)], 80, 80);
        c.budget = Bytes(72 * GIB);
        let l = layout(&[c], &[], 600.0);
        let b = l.cards[0].budget_x.expect("budget line");
        assert!(close(b / l.cards[0].capacity_x, 0.9));
    }

    #[test]
    fn empty_terms_are_skipped_and_cards_share_one_scale() {
        let terms = [
            (TermName::Weights, 8),
            (TermName::KvCache, 0),
            (TermName::Overhead, 1),
        ];
        let a = card(0, &terms, 24, 24);
        let b = card(1, &terms, 24, 24);
        let l = layout(&[a, b], &[(TermName::WeightsHost, Bytes(GIB))], 600.0);
        assert_eq!(l.cards[0].segments.len(), 2);
        assert_eq!(
            l.cards[0],
            CardBar {
                index: 0,
                ..l.cards[1].clone()
            }
        );
        assert_eq!(l.host.len(), 1);
        assert!(
            close(l.host[0].width, l.cards[0].segments[1].width),
            "1 GiB = 1 GiB"
        );
    }

    #[test]
    fn nothing_to_draw_still_has_a_scale() {
        let l = layout(&[], &[], 600.0);
        assert_eq!(l.domain, Bytes(GIB));
        assert!(l.cards.is_empty());
    }

    #[test]
    fn ticks_are_round_and_few() {
        // (domain GiB, expected step GiB)
        let rows = [
            (24.96, 4.0),
            (6.0, 1.0),
            (1.5, 0.25),
            (83.2, 16.0),
            (640.0, 128.0),
        ];
        for (d, step) in rows {
            let t = ticks(Bytes::from_gib(d), 600.0);
            assert!(t.len() as f64 <= MAX_TICKS + 1.0, "{d}: {} ticks", t.len());
            assert_eq!(t[0].label, "0");
            assert!(close(t[1].x, step / d * 600.0), "{d}: step {step}");
            assert!(t.last().unwrap().x <= 600.0);
        }
        assert_eq!(ticks(Bytes::from_gib(24.96), 600.0)[6].label, "24 GiB");
    }

    #[test]
    fn a_narrow_drawing_gets_fewer_ticks() {
        // A phone-width plot: 24 GiB in 200 units gets 8 GiB steps, labels well apart.
        let t = ticks(Bytes::from_gib(24.96), 200.0);
        let labels: Vec<_> = t.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["0", "8 GiB", "16 GiB", "24 GiB"]);
        for w in t.windows(2) {
            assert!(w[1].x - w[0].x >= TICK_SPACING);
        }
    }

    #[test]
    fn every_term_has_its_own_colour_class() {
        let mut c: Vec<_> = TermName::ALL.iter().map(|&n| term_class(n)).collect();
        c.sort();
        c.dedup();
        assert_eq!(c.len(), TermName::ALL.len());
    }
}
