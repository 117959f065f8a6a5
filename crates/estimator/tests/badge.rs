//! The model-card badge: golden SVGs for a few permalinks, escaping, size, colours.

use fitcard_estimator::badge::{svg, xml_escape};
use fitcard_estimator::{estimate, from_query, train, Mode};

fn badge(q: &str) -> String {
    let d = from_query(q);
    assert!(d.clean(), "{q}: {:?}", d.notices);
    let e = match d.inputs.mode {
        Mode::Serve => estimate(&d.inputs),
        Mode::Train => train::estimate(&d.inputs).estimate,
    };
    svg(&e, &d.inputs)
}

#[test]
fn golden_badges() {
    // (name, permalink): fits, tight, does not fit, several cards and free VRAM, train mode.
    let rows = [
        ("fits", "model=google/gemma-3-4b-it&ctx=8192"),
        ("tight", "model=Qwen/Qwen3-8B&ctx=34816&par=4"),
        (
            "nofit",
            "model=meta-llama/Llama-3.1-70B-Instruct&quant=Q8_0",
        ),
        (
            "cards",
            "model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=2&vram=80&ctx=32768&par=8",
        ),
        (
            "train",
            "mode=train&model=meta-llama/Llama-3.1-8B-Instruct&free=24",
        ),
    ];
    for (name, q) in rows {
        let s = badge(q);
        assert!(s.len() < 2048, "{name}: {} bytes", s.len());
        assert!(
            !s.contains("href") && !s.contains("url(") && !s.contains("<image"),
            "{name}"
        );
        insta::assert_snapshot!(format!("badge_{name}"), s);
    }
}

#[test]
fn every_text_is_escaped() {
    assert_eq!(
        xml_escape("<script>\"a\" & 'b'</script>\u{1b}"),
        "&lt;script&gt;&quot;a&quot; &amp; &apos;b&apos;&lt;/script&gt;"
    );
    // A free-form VRAM size is a number: nothing to inject, and the badge stays well-formed.
    let s = badge("vram=12.5");
    assert_eq!(s.matches("<text").count(), 2);
    assert!(s.contains("12.5 GiB"));
}

/// White text on each background meets 4.5:1 (WCAG relative luminance).
#[test]
fn badge_colours_are_legible() {
    fn lum(hex: &str) -> f64 {
        let c = |k: usize| {
            let v = f64::from(u8::from_str_radix(&hex[k..k + 2], 16).unwrap()) / 255.0;
            if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * c(1) + 0.7152 * c(3) + 0.0722 * c(5)
    }
    for q in [
        "model=google/gemma-3-4b-it",
        "model=Qwen/Qwen3-8B&ctx=32768&par=4",
        "model=meta-llama/Llama-3.1-70B-Instruct&quant=Q8_0",
    ] {
        let s = badge(q);
        for part in s.split("fill=\"#").skip(1) {
            let hex = format!("#{}", &part[..6]);
            if hex == "#ffffff" || part.starts_with("fff\"") {
                continue;
            }
            let ratio = (1.05) / (lum(&hex) + 0.05);
            assert!(ratio >= 4.5, "{hex}: {ratio:.2}");
        }
    }
}
