//! A badge for model cards: a small self-contained SVG ("fits · RTX 4090 · Q4_K_M · 32K × 4")
//! coloured by the verdict, to commit next to a README and link to the permalink. The Hugging
//! Face Hub and GitHub sanitize README HTML (no iframes), but render images that link.
//!
//! Self-contained: no external font, image or link; system fonts only. Every text it holds is
//! XML-escaped. Colours keep white text at 4.5:1 or more, on a solid background, so it reads in
//! light and dark themes alike.

use crate::catalog::catalog;
use crate::estimate::{Estimate, Verdict};
use crate::inputs::{GpuChoice, Inputs, Method, Mode};
use crate::units::{tokens_label, Fixed, Shortest};

/// Label background (white text 10.4:1).
const LABEL_BG: &str = "#3b434b";

/// Background per verdict (white text: fits 5.1:1, tight 5.9:1, does not fit 5.6:1).
fn verdict_bg(v: Verdict) -> &'static str {
    match v {
        Verdict::Fits => "#2e7d32",
        Verdict::Tight => "#8a5300",
        Verdict::DoesNotFit => "#c62828",
    }
}

/// `&`, `<`, `>`, `"` and `'` as XML entities; control characters dropped.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The card(s) in a few words: "RTX 4090", "2 × H100 80GB HBM3 (SXM)", "24 GiB".
pub fn cards_words(i: &Inputs) -> String {
    // Train mode with a list of free memory: the GPUs are that list.
    if i.mode == Mode::Train && !i.train.free.is_empty() {
        let free = &i.train.free;
        return if free.len() == 1 {
            format!("{} GiB free", Shortest(free[0]))
        } else {
            format!("{} GPUs", free.len())
        };
    }
    let one = match &i.gpu {
        GpuChoice::Catalog(id) => catalog().gpu(id).map_or_else(
            || id.clone(),
            |g| {
                g.name
                    .trim_start_matches("NVIDIA ")
                    .trim_start_matches("GeForce ")
                    .trim_start_matches("Tesla ")
                    .to_string()
            },
        ),
        GpuChoice::VramGib(g) => format!("{} GiB", Shortest(*g)),
    };
    if i.cards > 1 {
        format!("{} × {one}", i.cards)
    } else {
        one
    }
}

/// A fine-tuning method in a word or two: "QLoRA", "LoRA", "full FT".
pub fn method_label(m: Method) -> &'static str {
    match m {
        Method::Full => "full FT",
        Method::Lora => "LoRA",
        Method::Qlora => "QLoRA",
    }
}

/// The badge's message: verdict · cards · format · context × slots (train: method and
/// sequence).
pub fn message(e: &Estimate, i: &Inputs) -> String {
    let what = match i.mode {
        Mode::Serve => format!("{} · {} × {}", e.quant, tokens_label(i.ctx), i.par),
        Mode::Train => format!(
            "{} · seq {}",
            method_label(i.train.method),
            tokens_label(i.train.seq)
        ),
    };
    format!("{} · {} · {what}", e.verdict.label(), cards_words(i))
}

/// Approximate width of `s` in 11 px Verdana-like text (6.5 px per character, 4 for narrow ones).
fn text_width(s: &str) -> f64 {
    s.chars()
        .map(|c| match c {
            'i' | 'l' | '.' | ',' | ' ' | '·' | '|' | '1' | 'I' | 'j' | 't' | 'f' | 'r' => 4.0,
            'm' | 'w' | 'M' | 'W' => 9.0,
            _ => 6.6,
        })
        .sum()
}

/// The SVG badge for `e` (what the page and `fitcard badge` write).
pub fn svg(e: &Estimate, i: &Inputs) -> String {
    let label = "fitcard";
    let msg = message(e, i);
    let (lw, mw) = (text_width(label) + 12.0, text_width(&msg) + 12.0);
    let w = lw + mw;
    let title = xml_escape(&format!("{label}: {msg} ({})", e.model));
    let msg = xml_escape(&msg);
    let mx = Fixed(lw + 6.0, 0);
    let (w, lw, mw) = (Fixed(w, 0), Fixed(lw, 0), Fixed(mw, 0));
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"20\" role=\"img\" aria-label=\"{title}\">\
<title>{title}</title>\
<rect width=\"{lw}\" height=\"20\" rx=\"3\" fill=\"{LABEL_BG}\"/>\
<rect x=\"{lw}\" width=\"{mw}\" height=\"20\" rx=\"3\" fill=\"{bg}\"/>\
<rect x=\"{lw}\" width=\"4\" height=\"20\" fill=\"{bg}\"/>\
<g fill=\"#fff\" font-family=\"Verdana,DejaVu Sans,Geneva,sans-serif\" font-size=\"11\">\
<text x=\"6\" y=\"14\">{label}</text>\
<text x=\"{mx}\" y=\"14\">{msg}</text>\
</g></svg>\n",
        bg = verdict_bg(e.verdict),
    )
}
