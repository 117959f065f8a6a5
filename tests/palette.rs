//! The memory-term colours of `style/layout.css` (its design tokens, at its top), checked from the file itself (host test).
//!
//! For each theme (light: the `:root` block; dark: `:root` inside
//! `@media (prefers-color-scheme: dark)`):
//! - every term colour has a contrast ratio of at least 3:1 against the theme's panel and the
//!   bar's track (WCAG 2.x "non-text contrast", success criterion 1.4.11; the ratio is
//!   (L1 + 0.05) / (L2 + 0.05) of the relative luminances, as WCAG defines them);
//! - the colours of one mode stay apart (CIEDE2000 colour difference) for normal vision and
//!   under simulated protanopia, deuteranopia and tritanopia (the severity-1.0 matrices of
//!   Machado, Oliveira and Fernandes, "A Physiologically-based Model for Simulation of Color
//!   Vision Deficiency", IEEE TVCG 2009), so a legend swatch can be matched to its segment;
//! - adjacent segments are separated by a panel-coloured gap (`style/layout.css`).

#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;

const TOKENS: &str = include_str!("../style/layout.css");
const LAYOUT: &str = include_str!("../style/layout.css");

/// WCAG 2.x minimum for graphical objects.
const MIN_CONTRAST: f64 = 3.0;
/// Least CIEDE2000 difference between two colours of one mode, under every simulation.
const MIN_DELTA_E: f64 = 10.0;

/// Terms drawn together in serve mode and in train mode, by their token (`--term-…`; the
/// classes of `src/draw/bar_geometry.rs`'s `term_class` map onto these in layout.css).
const SERVE: [&str; 5] = ["weights", "kv", "overhead", "embd", "logits"];
const TRAIN: [&str; 6] = [
    "weights",
    "lora",
    "optimizer",
    "gradients",
    "activations",
    "cuda",
];

fn strip_comments(css: &str) -> String {
    let mut out = String::new();
    let mut rest = css;
    while let Some(a) = rest.find("/*") {
        out.push_str(&rest[..a]);
        rest = rest[a..].find("*/").map_or("", |b| &rest[a + b + 2..]);
    }
    out.push_str(rest);
    out
}

/// The body of the block that opens at the first `{` at or after `from`.
fn block(css: &str, from: usize) -> &str {
    let open = from + css[from..].find('{').expect("a block");
    let mut depth = 0;
    for (k, c) in css[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &css[open + 1..open + k];
                }
            }
            _ => {}
        }
    }
    panic!("unclosed block");
}

/// `--name: value;` declarations of a block (nested blocks skipped).
fn custom_properties(body: &str) -> HashMap<String, String> {
    body.split(';')
        .filter_map(|d| {
            let (k, v) = d.split_once(':')?;
            let k = k.trim();
            k.starts_with("--")
                .then(|| (k.trim_start_matches("--").to_string(), v.trim().to_string()))
        })
        .collect()
}

/// Custom properties of the light and the dark theme (dark = light overridden).
fn themes() -> Vec<(&'static str, HashMap<String, String>)> {
    let css = strip_comments(TOKENS);
    let light = custom_properties(block(&css, css.find(":root").expect(":root")));
    let media = css
        .find("@media (prefers-color-scheme: dark)")
        .expect("a dark theme");
    let inner = block(&css, media);
    let mut dark = light.clone();
    dark.extend(custom_properties(block(
        inner,
        inner.find(":root").expect(":root"),
    )));
    vec![("light", light), ("dark", dark)]
}

/// A property's colour, following `var(--x)` references.
fn colour(props: &HashMap<String, String>, name: &str) -> [f64; 3] {
    let mut v = props
        .get(name)
        .unwrap_or_else(|| panic!("--{name} is not defined"));
    for _ in 0..8 {
        match v.strip_prefix("var(--").and_then(|r| r.strip_suffix(')')) {
            Some(r) => {
                v = props
                    .get(r)
                    .unwrap_or_else(|| panic!("--{r} is not defined"))
            }
            None => break,
        }
    }
    hex(v).unwrap_or_else(|| panic!("--{name}: {v} is not a hex colour"))
}

fn hex(s: &str) -> Option<[f64; 3]> {
    let h = s.strip_prefix('#')?;
    let h: String = match h.len() {
        3 => h.chars().flat_map(|c| [c, c]).collect(),
        6 => h.to_string(),
        _ => return None,
    };
    let c = |k: usize| u8::from_str_radix(&h[k..k + 2], 16).map(|x| f64::from(x) / 255.0);
    Some([c(0).ok()?, c(2).ok()?, c(4).ok()?])
}

fn to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn to_srgb(c: f64) -> f64 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// WCAG relative luminance.
fn luminance(c: [f64; 3]) -> f64 {
    let [r, g, b] = c.map(to_linear);
    0.2126 * r + 0.7152 * g + 0.0722 * b
}

/// WCAG contrast ratio.
fn contrast(a: [f64; 3], b: [f64; 3]) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// Colour-vision deficiencies, as linear-RGB matrices (Machado et al. 2009, severity 1.0).
const VISION: [(&str, [[f64; 3]; 3]); 4] = [
    (
        "normal",
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    ),
    (
        "protanopia",
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ],
    ),
    (
        "deuteranopia",
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ],
    ),
    (
        "tritanopia",
        [
            [1.255528, -0.076749, -0.178779],
            [-0.078411, 0.930809, 0.147602],
            [0.004733, 0.691367, 0.303900],
        ],
    ),
];

fn simulate(c: [f64; 3], m: &[[f64; 3]; 3]) -> [f64; 3] {
    let l = c.map(to_linear);
    let row = |r: &[f64; 3]| to_srgb(r[0] * l[0] + r[1] * l[1] + r[2] * l[2]);
    [row(&m[0]), row(&m[1]), row(&m[2])]
}

/// CIELAB (D65) of an sRGB colour.
fn lab(c: [f64; 3]) -> [f64; 3] {
    let [r, g, b] = c.map(to_linear);
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 216.0 / 24389.0 {
            t.cbrt()
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// CIEDE2000 colour difference (Sharma, Wu and Dalal, 2005).
fn delta_e(a: [f64; 3], b: [f64; 3]) -> f64 {
    let ([l1, a1, b1], [l2, a2, b2]) = (lab(a), lab(b));
    let c_bar = (a1.hypot(b1) + a2.hypot(b2)) / 2.0;
    let g = 0.5 * (1.0 - (c_bar.powi(7) / (c_bar.powi(7) + 25f64.powi(7))).sqrt());
    let (a1p, a2p) = ((1.0 + g) * a1, (1.0 + g) * a2);
    let (c1p, c2p) = (a1p.hypot(b1), a2p.hypot(b2));
    let hue = |b: f64, a: f64| b.atan2(a).to_degrees().rem_euclid(360.0);
    let (h1p, h2p) = (hue(b1, a1p), hue(b2, a2p));
    let dlp = l2 - l1;
    let dcp = c2p - c1p;
    let dhp = if c1p * c2p == 0.0 {
        0.0
    } else if (h2p - h1p).abs() <= 180.0 {
        h2p - h1p
    } else if h2p - h1p > 180.0 {
        h2p - h1p - 360.0
    } else {
        h2p - h1p + 360.0
    };
    let dhp_big = 2.0 * (c1p * c2p).sqrt() * (dhp / 2.0).to_radians().sin();
    let lbp = (l1 + l2) / 2.0;
    let cbp = (c1p + c2p) / 2.0;
    let hbp = if c1p * c2p == 0.0 {
        h1p + h2p
    } else if (h1p - h2p).abs() <= 180.0 {
        (h1p + h2p) / 2.0
    } else if h1p + h2p < 360.0 {
        (h1p + h2p + 360.0) / 2.0
    } else {
        (h1p + h2p - 360.0) / 2.0
    };
    let cos = |d: f64| d.to_radians().cos();
    let t = 1.0 - 0.17 * cos(hbp - 30.0) + 0.24 * cos(2.0 * hbp) + 0.32 * cos(3.0 * hbp + 6.0)
        - 0.20 * cos(4.0 * hbp - 63.0);
    let dtheta = 30.0 * (-((hbp - 275.0) / 25.0).powi(2)).exp();
    let rc = 2.0 * (cbp.powi(7) / (cbp.powi(7) + 25f64.powi(7))).sqrt();
    let sl = 1.0 + 0.015 * (lbp - 50.0).powi(2) / (20.0 + (lbp - 50.0).powi(2)).sqrt();
    let sc = 1.0 + 0.045 * cbp;
    let sh = 1.0 + 0.015 * cbp * t;
    let rt = -(2.0 * dtheta).to_radians().sin() * rc;
    ((dlp / sl).powi(2)
        + (dcp / sc).powi(2)
        + (dhp_big / sh).powi(2)
        + rt * (dcp / sc) * (dhp_big / sh))
        .sqrt()
}

#[test]
fn the_colour_maths_matches_published_values() {
    // WCAG: black on white is 21:1; the old light-theme KV orange (#e69f00) was 2.25:1.
    assert!((contrast([0.0; 3], [1.0; 3]) - 21.0).abs() < 1e-9);
    assert!((contrast(hex("#e69f00").unwrap(), [1.0; 3]) - 2.25).abs() < 0.01);
    // CIEDE2000 test data of Sharma et al. (pair 1), computed from their Lab values through
    // sRGB here, so only roughly: identical colours differ by 0.
    assert_eq!(delta_e([0.2, 0.4, 0.6], [0.2, 0.4, 0.6]), 0.0);
    assert!(delta_e([0.0; 3], [1.0; 3]) > 99.0);
}

#[test]
fn every_term_colour_has_3_to_1_against_its_panel_and_track() {
    let mut bad = Vec::new();
    for (theme, props) in themes() {
        let panel = colour(&props, "panel");
        let track = colour(&props, "track");
        let names = SERVE.iter().chain(TRAIN.iter());
        for name in names {
            let c = colour(&props, &format!("term-{name}"));
            for (against, bg) in [("panel", panel), ("track", track)] {
                let r = contrast(c, bg);
                if r < MIN_CONTRAST {
                    bad.push(format!("{theme}: --term-{name} on {against} is {r:.2}:1"));
                }
            }
        }
        // The capacity line of a card over its budget too.
        if props.contains_key("c-over") {
            let r = contrast(colour(&props, "c-over"), panel);
            if r < MIN_CONTRAST {
                bad.push(format!("{theme}: --c-over on panel is {r:.2}:1"));
            }
        } else {
            bad.push(format!("{theme}: --c-over is not defined"));
        }
    }
    assert!(
        bad.is_empty(),
        "under {MIN_CONTRAST}:1:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_colours_of_a_mode_stay_apart_with_colour_vision_deficiencies() {
    let mut bad = Vec::new();
    for (theme, props) in themes() {
        for (mode, set) in [("serve", &SERVE[..]), ("train", &TRAIN[..])] {
            let cs: Vec<_> = set
                .iter()
                .map(|n| (n, colour(&props, &format!("term-{n}"))))
                .collect();
            for (vision, m) in &VISION {
                for (i, (na, a)) in cs.iter().enumerate() {
                    for (nb, b) in &cs[i + 1..] {
                        let d = delta_e(simulate(*a, m), simulate(*b, m));
                        if d < MIN_DELTA_E {
                            bad.push(format!("{theme} {mode} {vision}: {na} vs {nb} ΔE00 {d:.1}"));
                        }
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "too close:\n{}", bad.join("\n"));
}

#[test]
fn every_term_class_takes_its_token() {
    let css = strip_comments(TOKENS);
    let class = |name: &str| match name {
        "weights" => "t-weights",
        "kv" => "t-kv",
        "overhead" => "t-overhead",
        "embd" => "t-embd",
        "logits" => "t-logits",
        "lora" => "t-lora",
        "optimizer" => "t-optimizer",
        "gradients" => "t-gradients",
        "activations" => "t-activations",
        "cuda" => "t-cuda",
        other => panic!("no term class for {other}"),
    };
    for name in SERVE.iter().chain(TRAIN.iter()) {
        let rule = format!(".{} {{ --c: var(--term-{name}); }}", class(name));
        assert!(css.contains(&rule), "layout.css lacks `{rule}`");
    }
}

#[test]
fn adjacent_segments_are_separated_by_a_panel_coloured_gap() {
    let css = strip_comments(LAYOUT);
    let at = css.find(".bar-svg .seg {").expect("the segment rule");
    let rule = block(&css, at);
    let props: HashMap<_, _> = rule
        .split(';')
        .filter_map(|d| d.split_once(':'))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect();
    assert_eq!(props.get("stroke"), Some(&"var(--panel)"), "{rule}");
    assert_eq!(props.get("paint-order"), Some(&"stroke"), "{rule}");
    let width: f64 = props
        .get("stroke-width")
        .and_then(|w| w.parse().ok())
        .expect("a stroke width");
    // Painted under the fill, half of the stroke shows: at least a 1px gap.
    assert!(width / 2.0 >= 1.0, "gap of {} px", width / 2.0);
}
