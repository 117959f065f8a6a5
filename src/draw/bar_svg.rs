//! The stacked memory bar drawn as SVG markup, from the geometry of
//! [`crate::draw::bar_geometry`]: bytes in, markup out, tested on the host.
//!
//! The page writes this markup as its plot's content when the drawing's shape changes, and
//! otherwise only the attributes and texts that differ from the drawing on the screen
//! ([`crate::draw::tree::patch`]: a slider tick moves a few segments). It holds no listener and
//! no script:
//! the plot's container takes the events of its segments (`data-term`), and every text in it
//! is escaped.

use crate::draw::bar_geometry::{self as geometry, term_class, Bars, CardBar, Segment};
use fitcard_estimator::badge::xml_escape;
use fitcard_estimator::terms::{Place, TermName};
use fitcard_estimator::{Bytes, Estimate};
use std::fmt::Write;

/// Room left of the plot for the row labels (`GPU 0`, `Host RAM`).
pub const LEFT: f64 = 64.0;
/// Room right of the plot for the capacity label (`23.99 GiB`) beside the capacity line.
pub const RIGHT: f64 = 48.0;
/// Narrowest plot drawn; a narrower box scales the drawing down instead.
pub const MIN_PLOT: f64 = 160.0;
const TOP: f64 = 20.0;
const ROW_H: f64 = 26.0;
const ROW_GAP: f64 = 22.0;
const AXIS: f64 = 22.0;

/// The drawing's width when its box has not been measured yet.
pub const DEFAULT_WIDTH: f64 = LEFT + geometry::WIDTH + RIGHT;

/// Everything one drawing shows: compared before the plot is touched.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    /// Width in SVG units (one per CSS pixel of its box).
    pub width: f64,
    /// The bars on a shared scale.
    pub layout: Bars,
    /// Each card's capacity and budget, for their labels.
    pub marks: Vec<(Bytes, Bytes)>,
    /// The drawing in words (its accessible name).
    pub summary: String,
    /// `with=`: what each other model holds on each card (its name and bytes), drawn as one
    /// rectangle each inside the "other models" term (empty on the first load, which hands a
    /// set over to the whole calculator).
    pub with: Vec<Vec<(String, Bytes)>>,
}

/// The drawing of `e` in a box `box_width` CSS pixels wide.
pub fn drawing(e: &Estimate, box_width: f64) -> Drawing {
    let width = box_width.max(LEFT + MIN_PLOT + RIGHT).round();
    let host: Vec<(TermName, Bytes)> = e
        .terms
        .iter()
        .filter(|t| t.place == Place::Host)
        .map(|t| (t.name, t.bytes))
        .collect();
    let first = e.per_card.first();
    Drawing {
        width,
        layout: geometry::layout(&e.per_card, &host, width - LEFT - RIGHT),
        marks: e.per_card.iter().map(|c| (c.capacity, c.budget)).collect(),
        summary: format!(
            "Memory per card: {} of {} on each of {} card{}; {} in host RAM.",
            first.map(|c| c.bytes).unwrap_or_default(),
            first.map(|c| c.capacity).unwrap_or_default(),
            e.per_card.len(),
            if e.per_card.len() == 1 { "" } else { "s" },
            e.total_host_bytes
        ),
        with: with_parts(e),
    }
}

/// Each card's share of every other model of the set, in the set's order (the JSON's `models`
/// after this plan's own).
#[cfg(feature = "extras")]
fn with_parts(e: &Estimate) -> Vec<Vec<(String, Bytes)>> {
    (0..e.per_card.len())
        .map(|k| {
            e.models
                .iter()
                .skip(1)
                .map(|m| {
                    let on = m.per_card.get(k).copied().unwrap_or_default();
                    (format!("{} {} on {}", m.model, m.quant, m.engine), on)
                })
                .collect()
        })
        .collect()
}

#[cfg(not(feature = "extras"))]
fn with_parts(_: &Estimate) -> Vec<Vec<(String, Bytes)>> {
    Vec::new()
}

/// Top of row `k` (cards first, then the host row).
fn row_y(k: usize) -> f64 {
    TOP + k as f64 * (ROW_H + ROW_GAP)
}

/// A coordinate with at most two decimals.
fn n(x: f64) -> String {
    let s = fitcard_estimator::units::Fixed(x, 2).to_string();
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The `<svg>` element of `d`.
pub fn markup(d: &Drawing) -> String {
    let l = &d.layout;
    let rows = l.cards.len() + usize::from(!l.host.is_empty());
    let axis_y = row_y(rows) - ROW_GAP / 2.0;
    let mut s = String::with_capacity(4096);
    let _ = write!(
        s,
        r#"<svg class="bar-svg" viewBox="0 0 {} {}" role="group" aria-label="{}" preserveAspectRatio="xMinYMin meet"><g class="axis">"#,
        n(d.width),
        n(row_y(rows) + AXIS),
        xml_escape(&d.summary)
    );
    for t in &l.ticks {
        let x = n(LEFT + t.x);
        let _ = write!(
            s,
            r#"<line class="tick" x1="{x}" x2="{x}" y1="{}" y2="{}"/><text class="tick-label" x="{x}" y="{}" text-anchor="middle">{}</text>"#,
            n(TOP - 2.0),
            n(axis_y),
            n(axis_y + 14.0),
            xml_escape(&t.label)
        );
    }
    s.push_str("</g>");
    for (k, c) in l.cards.iter().enumerate() {
        let parts = d.with.get(k).map_or(&[][..], Vec::as_slice);
        card(
            &mut s,
            k,
            c,
            d.marks.get(k).copied().unwrap_or_default(),
            parts,
        );
    }
    if !l.host.is_empty() {
        let y = row_y(l.cards.len());
        s.push_str(r#"<g class="host">"#);
        row_label(&mut s, y, "Host RAM");
        segments(&mut s, &l.host, y, &[]);
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    s
}

fn row_label(s: &mut String, y: f64, label: &str) {
    let _ = write!(
        s,
        r#"<text class="row-label" x="{}" y="{}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
        n(LEFT - 8.0),
        n(y + ROW_H / 2.0),
        xml_escape(label)
    );
}

/// One card's row: label, track, segments, capacity line and label, budget line and label.
fn card(
    s: &mut String,
    k: usize,
    c: &CardBar,
    (capacity, budget): (Bytes, Bytes),
    parts: &[(String, Bytes)],
) {
    let y = row_y(k);
    let _ = write!(
        s,
        r#"<g class="{}" data-card="{}">"#,
        if c.over { "card over" } else { "card" },
        c.index
    );
    row_label(s, y, &format!("GPU {}", c.index));
    let _ = write!(
        s,
        r#"<rect class="track" x="{}" y="{}" width="{}" height="{}"/>"#,
        n(LEFT),
        n(y),
        n(c.capacity_x),
        n(ROW_H)
    );
    segments(s, &c.segments, y, parts);
    let cap = n(LEFT + c.capacity_x);
    let _ = write!(
        s,
        r#"<line class="cap" x1="{cap}" x2="{cap}" y1="{}" y2="{}"/><text class="mark-label" x="{}" y="{}">{}</text>"#,
        n(y - 6.0),
        n(y + ROW_H + 6.0),
        n(LEFT + c.capacity_x + 3.0),
        n(y - 6.0),
        xml_escape(&capacity.to_string())
    );
    if let Some(bx) = c.budget_x {
        let x = n(LEFT + bx);
        let _ = write!(
            s,
            r#"<line class="budget" x1="{x}" x2="{x}" y1="{}" y2="{}"/><text class="mark-label budget-label" x="{}" y="{}" text-anchor="end">budget {}</text>"#,
            n(y - 4.0),
            n(y + ROW_H + 4.0),
            n(LEFT + bx - 3.0),
            n(y - 6.0),
            xml_escape(&budget.to_string())
        );
    }
    s.push_str("</g>");
}

/// The stacked rectangles of one row, each focusable and named by its term and size; the other
/// models' term as one rectangle per model (`parts`), each named by its model.
fn segments(s: &mut String, segs: &[Segment], y: f64, parts: &[(String, Bytes)]) {
    for g in segs {
        #[cfg(feature = "extras")]
        if g.name == TermName::WithModels && with_rects(s, g, y, parts) {
            continue;
        }
        #[cfg(not(feature = "extras"))]
        let _ = parts;
        let tip = xml_escape(&format!("{}: {}", g.name.label(), g.bytes));
        let _ = write!(
            s,
            r#"<rect class="seg {}" data-term="{}" x="{}" y="{}" width="{}" height="{}" tabindex="0" aria-label="{tip}"><title>{tip}</title></rect>"#,
            term_class(g.name),
            g.name.id(),
            n(LEFT + g.x),
            n(y),
            n(g.width.max(0.0)),
            n(ROW_H)
        );
    }
}

/// The other models' term `g` cut into one rectangle per model, in proportion to what each holds
/// on this card (their bytes sum to the term's); alternate ones marked `alt` so that neighbours
/// stay apart. `false` (the term drawn whole) when no model holds anything here.
#[cfg(feature = "extras")]
fn with_rects(s: &mut String, g: &Segment, y: f64, parts: &[(String, Bytes)]) -> bool {
    let total: f64 = parts.iter().map(|(_, b)| b.as_f64()).sum();
    if total <= 0.0 {
        return false;
    }
    let mut x = g.x;
    for (k, (label, bytes)) in parts.iter().filter(|(_, b)| b.get() > 0).enumerate() {
        let w = g.width.max(0.0) * bytes.as_f64() / total;
        let tip = xml_escape(&format!("{label}: {bytes}"));
        let _ = write!(
            s,
            r#"<rect class="seg {}{}" data-term="{}" x="{}" y="{}" width="{}" height="{}" tabindex="0" aria-label="{tip}"><title>{tip}</title></rect>"#,
            term_class(g.name),
            if k % 2 == 1 { " alt" } else { "" },
            g.name.id(),
            n(LEFT + x),
            n(y),
            n(w),
            n(ROW_H)
        );
        x += w;
    }
    true
}

/// One key of the legend: a term's colour, name and size.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub name: TermName,
    pub label: &'static str,
    /// Its size as the key says it (on several cards, what one card holds).
    pub bytes: String,
    /// Held in host RAM.
    pub host: bool,
    /// Used outside what its formula was checked on.
    pub outside: bool,
}

/// The legend: `<ul class="legend">`, a button per key (its id `key-{term}`, so the focus
/// finds it again after a redraw), the one of term `active` pressed. The list takes the
/// buttons' events (`data-term`).
pub fn legend(keys: &[Key], active: Option<TermName>) -> String {
    let mut s = String::from(r#"<ul class="legend">"#);
    for k in keys {
        let on = active == Some(k.name);
        let _ = write!(
            s,
            r#"<li><button type="button" id="key-{0}" class="{1}" aria-pressed="{on}" data-term="{0}"><span class="swatch {2}"></span><span class="key-label">{3}</span><span class="num">{4}</span>"#,
            k.name.id(),
            if on { "key active" } else { "key" },
            term_class(k.name),
            xml_escape(k.label),
            xml_escape(&k.bytes)
        );
        if k.host {
            s.push_str(r#"<span class="where">host</span>"#);
        }
        if k.outside {
            s.push_str(r#"<span class="outside">⚠</span>"#);
        }
        s.push_str("</button></li>");
    }
    s.push_str("</ul>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use fitcard_estimator::{estimate, from_query};

    fn attr(svg: &str, selector: &str, name: &str) -> Vec<String> {
        svg.split(selector)
            .skip(1)
            .filter_map(|rest| {
                let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
                let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
                Some(tag[at..at + tag[at..].find('"')?].to_string())
            })
            .collect()
    }

    /// `with=`: one rectangle per other model inside their term, each named by its model, their
    /// widths in proportion to its bytes on the card and together the term's.
    #[cfg(feature = "extras")]
    #[test]
    fn each_other_model_has_its_own_rectangle() {
        let q = "model=Qwen/Qwen3-8B&quant=Q4_K_M&ctx=16384&gpu=rtx-4090\
                 &with=Qwen/Qwen3-0.6B:Q8_0:8192:2,Qwen/Qwen3-Embedding-0.6B:Q8_0";
        let e = estimate(&from_query(q).inputs);
        let d = drawing(&e, 712.0);
        let svg = markup(&d);
        let sel = r#"<rect class="seg t-with"#;
        let titles: Vec<&str> = svg
            .split(sel)
            .skip(1)
            .map(|r| &r[r.find("<title>").unwrap() + 7..r.find("</title>").unwrap()])
            .collect();
        assert_eq!(titles.len(), 2, "{svg}");
        assert!(titles[0].starts_with("Qwen/Qwen3-0.6B Q8_0 on llama.cpp: "));
        assert!(titles[1].starts_with("Qwen/Qwen3-Embedding-0.6B Q8_0 on llama.cpp: "));
        assert_eq!(svg.matches(r#"class="seg t-with alt""#).count(), 1);
        let w: Vec<f64> = attr(&svg, sel, "width")
            .iter()
            .map(|x| x.parse().unwrap())
            .collect();
        let whole = d.layout.cards[0]
            .segments
            .iter()
            .find(|g| g.name == TermName::WithModels)
            .unwrap();
        assert!(
            (w[0] + w[1] - whole.width).abs() < 0.02,
            "{w:?} {}",
            whole.width
        );
        let (a, b) = (e.models[1].per_card[0], e.models[2].per_card[0]);
        assert!((w[0] / w[1] - a.as_f64() / b.as_f64()).abs() < 0.01);
    }

    #[test]
    fn one_row_per_card_with_its_terms_in_order() {
        let e = estimate(&from_query("cards=2&ctx=8192").inputs);
        let svg = markup(&drawing(&e, 712.0));
        assert!(
            svg.starts_with(r#"<svg class="bar-svg" viewBox="0 0 712 "#),
            "{svg}"
        );
        assert_eq!(svg.matches(r#"<g class="card"#).count(), 2);
        let terms = attr(&svg, "<rect class=\"seg", "data-term");
        let per_card: Vec<&str> = e.per_card[0]
            .terms
            .iter()
            .filter(|t| t.1.get() > 0)
            .map(|t| t.0.id())
            .collect();
        assert_eq!(&terms[..per_card.len()], per_card.as_slice());
        // The segments of a card stack without gaps.
        let xs: Vec<f64> = attr(&svg, "<rect class=\"seg", "x")
            .iter()
            .map(|x| x.parse().unwrap())
            .collect();
        let ws: Vec<f64> = attr(&svg, "<rect class=\"seg", "width")
            .iter()
            .map(|x| x.parse().unwrap())
            .collect();
        for k in 1..per_card.len() {
            assert!(
                (xs[k - 1] + ws[k - 1] - xs[k]).abs() < 0.02,
                "{xs:?} {ws:?}"
            );
        }
    }

    #[test]
    fn host_row_budget_line_and_words() {
        // llama.cpp keeps the embeddings in host RAM: a host row.
        let e = estimate(&from_query("engine=llama.cpp").inputs);
        let svg = markup(&drawing(&e, 712.0));
        assert!(svg.contains(r#"<g class="host">"#));
        assert!(svg.contains(">Host RAM</text>"));
        assert!(!svg.contains("budget"), "llama.cpp has no budget line");
        // vLLM draws its budget line.
        let e = estimate(&from_query("engine=vllm&quant=BF16&model=Qwen/Qwen3-8B&vram=80").inputs);
        let svg = markup(&drawing(&e, 712.0));
        assert!(svg.contains(r#"<line class="budget""#), "{svg}");
        assert!(svg.contains(">budget 72.00 GiB</text>"), "{svg}");
        assert!(svg.contains(&format!("aria-label=\"{}\"", drawing(&e, 712.0).summary)));
    }

    #[test]
    fn a_narrow_box_keeps_the_smallest_plot() {
        let e = estimate(&from_query("").inputs);
        assert_eq!(drawing(&e, 10.0).width, LEFT + MIN_PLOT + RIGHT);
        assert_eq!(drawing(&e, 999.6).width, 1000.0);
    }

    #[test]
    fn text_is_escaped_and_numbers_are_short() {
        assert_eq!(n(12.0), "12");
        assert_eq!(n(12.345), "12.35");
        assert_eq!(n(0.5), "0.5");
        let mut d = drawing(&estimate(&from_query("").inputs), 712.0);
        d.summary = "<b>&\"".into();
        let svg = markup(&d);
        assert!(svg.contains("aria-label=\"&lt;b&gt;&amp;&quot;\""), "{svg}");
        assert!(!svg.contains("<b>"));
    }

    #[test]
    fn a_tick_patches_only_what_moved() {
        use crate::draw::tree::{patch, Tree};
        let at = |q: &str| {
            let svg = markup(&drawing(&estimate(&from_query(q).inputs), 712.0));
            Tree::parse(&svg).expect("our own markup parses")
        };
        let (a, b) = (at("ctx=8192"), at("ctx=16384"));
        let changes = patch(&a, &b).expect("same shape");
        // Only the KV segment and what follows it move: far fewer writes than elements.
        assert!(
            !changes.is_empty() && changes.len() < a.0.len() / 2,
            "{changes:?}"
        );
        assert!(
            changes
                .iter()
                .all(|c| c.name != "class" && c.name != "data-term"),
            "{changes:?}"
        );
        // A second card, or another engine's terms, changes the shape: drawn anew.
        assert_eq!(patch(&a, &at("ctx=8192&cards=2")), None);
        assert_eq!(patch(&a, &at("ctx=8192&engine=vllm")), None);
    }

    #[test]
    fn the_legend_presses_the_active_key_and_patches_its_sizes() {
        use crate::draw::tree::{patch, Tree};
        let key = |bytes: &str| Key {
            name: TermName::KvCache,
            label: "KV cache",
            bytes: bytes.into(),
            host: true,
            outside: true,
        };
        let m = legend(&[key("1.00 GiB")], Some(TermName::KvCache));
        assert!(m.contains(r#"<button type="button" id="key-kv_cache" class="key active" aria-pressed="true" data-term="kv_cache">"#), "{m}");
        assert!(
            m.contains(r#"<span class="where">host</span><span class="outside">⚠</span>"#),
            "{m}"
        );
        let a = Tree::parse(&legend(&[key("1.00 GiB")], None)).expect("parses");
        let b = Tree::parse(&legend(&[key("2.00 GiB")], None)).expect("parses");
        assert_eq!(patch(&a, &b).map(|c| c.len()), Some(1));
        let c = Tree::parse(&m).expect("parses");
        let pressed = patch(&a, &c).expect("same shape");
        assert_eq!(
            pressed.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["class", "aria-pressed"]
        );
    }
}
