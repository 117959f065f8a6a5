//! Links and snippets built from a configuration, and the few display helpers the page needs
//! beyond [`Bytes`](fitcard_estimator::Bytes)' own `Display`.

use fitcard_estimator::{badge, encode, Estimate, Inputs, Mode};

/// Message type the embed posts to its parent with its height in CSS pixels.
pub const HEIGHT_MESSAGE: &str = "fitcard:height";

/// Query string (with `?`) of the full calculator for `i`: the same configuration, no embed.
pub fn full_query(i: &Inputs) -> String {
    let mut full = i.clone();
    full.embed = false;
    format!("?{}", encode(&full))
}

/// Query string (with `?`) of the compact embed for `i`.
pub fn embed_query(i: &Inputs) -> String {
    let mut e = i.clone();
    e.embed = true;
    format!("?{}", encode(&e))
}

/// The `sandbox` of the embed's `<iframe>`: the fewest permissions the calculator needs.
/// Scripts run it; its own origin lets it load its module and wasm from its site (a frame
/// without one fetches them as origin `null`, which most static hosts refuse); popups open the
/// full calculator in a new tab, outside the sandbox (so that it can download a badge). No top
/// navigation, forms, downloads or modals: the embed never navigates the page around it.
/// <https://developer.mozilla.org/en-US/docs/Web/HTML/Element/iframe#sandbox>
pub const EMBED_SANDBOX: &str =
    "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox";

/// The `<iframe>` snippet for the page at `page_url` (origin and path, no query), with a
/// listener that resizes the frame when the embed reports its height.
pub fn iframe_snippet(page_url: &str, i: &Inputs) -> String {
    let src = format!("{page_url}{}", embed_query(i));
    let src = badge::xml_escape(&src);
    format!(
        "<iframe src=\"{src}\" title=\"fitcard: will this model fit?\" width=\"100%\" height=\"{EMBED_HEIGHT}\" \
style=\"border:0;max-width:42rem\" loading=\"lazy\" sandbox=\"{EMBED_SANDBOX}\"></iframe>\n\
<script>addEventListener(\"message\",function(e){{var d=e.data;if(!d||d.type!==\"{HEIGHT_MESSAGE}\")return;\
document.querySelectorAll(\"iframe\").forEach(function(f){{if(f.contentWindow===e.source)f.style.height=d.height+\"px\"}})}});</script>"
    )
}

/// The document title for a configuration: "Qwen3 8B Q4_K_M on RTX 4090 — fits · fitcard",
/// "Qwen3 8B QLoRA training on RTX 4090 — fits · fitcard". Plain text: the browser never
/// parses a title as markup.
pub fn title(e: &Estimate, i: &Inputs) -> String {
    let (_, v) = crate::model::choices::family_of(&i.model);
    let (what, doing) = match i.mode {
        Mode::Serve => (e.quant.as_str(), ""),
        Mode::Train => (badge::method_label(i.train.method), " training"),
    };
    format!(
        "{} {what}{doing} on {} — {} · fitcard",
        v.name,
        badge::cards_words(i),
        e.verdict.label()
    )
}

/// What "tight" means, for the verdict and the ranking: it fits, with less than
/// [`TIGHT_MARGIN`](fitcard_estimator::estimate::TIGHT_MARGIN) to spare. Serving adds why
/// that margin matters to llama.cpp.
pub fn tight_note(serve: bool) -> String {
    let gib = fitcard_estimator::units::Shortest(fitcard_estimator::estimate::TIGHT_MARGIN.gib());
    let why = if serve {
        "llama-server's --fit keeps a 1024 MiB margin per device (--fit-target), and real use \
moves with driver and engine versions"
    } else {
        "real use moves with the data, the driver and library versions"
    };
    format!(
        "Tight: it fits, with under {gib} GiB of headroom on the fullest card; {why}: leave \
more room, or expect to lower the context."
    )
}

/// Default height of the embed's `<iframe>` in CSS pixels, until the page reports its real
/// height: the compact view at the frame's largest width (42rem), measured in Chromium, is
/// 895 px for the default link (Gemma 3 12B, whose weights formula now names its vision
/// projector); before the projector was budgeted it was 795 px, 775 px for Gemma 3 27B and
/// 684 px in train mode.
pub const EMBED_HEIGHT: u32 = 860;

/// A context length as people say it, with the exact count: `8K (8192)`, `1000`.
pub fn tokens(t: u32) -> String {
    let short = fitcard_estimator::units::tokens_label(t);
    if short == t.to_string() {
        short
    } else {
        format!("{short} ({t})")
    }
}

/// Text with its first letter upper-cased, to start a sentence: `fits` → `Fits` (ASCII: every
/// sentence the page starts begins with an ASCII word, and Unicode case tables would cost the
/// wasm 12 KB).
pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| std::iter::once(f.to_ascii_uppercase()).chain(c).collect())
        .unwrap_or_default()
}

/// The flag that sets the share of each card an engine that preallocates takes (`util=`).
pub fn util_flag(e: fitcard_estimator::Engine) -> &'static str {
    match e {
        fitcard_estimator::Engine::Sglang => "--mem-fraction-static",
        _ => "--gpu-memory-utilization",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fitcard_estimator::from_query;

    #[test]
    fn full_and_embed_links_differ_only_in_embed() {
        let i = from_query("model=google/gemma-3-1b-it&quant=F16&ctx=4096&embed=1").inputs;
        let full = full_query(&i);
        let emb = embed_query(&i);
        assert!(!full.contains("embed"));
        assert!(emb.ends_with("&embed=1"));
        assert_eq!(
            full.trim_start_matches('?'),
            emb.trim_start_matches('?').trim_end_matches("&embed=1")
        );
        // Both restore the same configuration.
        let a = from_query(&full).inputs;
        let mut b = from_query(&emb).inputs;
        assert!(b.embed);
        b.embed = false;
        assert_eq!(a, b);
    }

    #[test]
    fn snippet_points_at_the_embed_and_escapes_ampersands() {
        let i = from_query("").inputs;
        let s = iframe_snippet("https://example.org/fit/", &i);
        assert!(s.starts_with("<iframe src=\"https://example.org/fit/?v=1&amp;mode=serve"));
        assert!(s.contains("&amp;embed=1\""));
        assert!(s.contains(HEIGHT_MESSAGE));
        assert!(!s.contains("&mode"), "raw & inside the attribute");
    }

    #[test]
    fn the_snippet_is_lazy_and_sandboxed_without_top_navigation() {
        let s = iframe_snippet("https://example.org/", &from_query("").inputs);
        assert!(s.contains(" loading=\"lazy\""), "{s}");
        assert!(s.contains(&format!(" sandbox=\"{EMBED_SANDBOX}\"")), "{s}");
        for needed in ["allow-scripts", "allow-same-origin", "allow-popups"] {
            assert!(EMBED_SANDBOX.split(' ').any(|t| t == needed), "{needed}");
        }
        assert!(!EMBED_SANDBOX.contains("top-navigation"));
    }

    #[test]
    fn the_title_names_the_configuration_and_the_verdict() {
        let q = "model=Qwen/Qwen3-8B&quant=Q4_K_M&gpu=rtx-4090&ctx=8192&par=1";
        let i = from_query(q).inputs;
        let t = title(&fitcard_estimator::estimate(&i), &i);
        assert_eq!(t, "Qwen3 8B Q4_K_M on RTX 4090 — fits · fitcard");
        let i = from_query("model=Qwen/Qwen3-8B&mode=train&method=lora&cards=2").inputs;
        let e = fitcard_estimator::train::estimate(&i).estimate;
        let t = title(&e, &i);
        assert!(
            t.starts_with("Qwen3 8B LoRA training on 2 × RTX 4090 — "),
            "{t}"
        );
    }

    #[test]
    fn the_snippet_starts_at_a_realistic_height() {
        let s = iframe_snippet("https://example.org/", &from_query("").inputs);
        assert!(s.contains(&format!("height=\"{EMBED_HEIGHT}\"")), "{s}");
        assert!((600..=900).contains(&EMBED_HEIGHT));
    }

    #[test]
    fn tight_is_explained_with_its_margin() {
        let t = tight_note(true);
        assert!(t.contains("under 1 GiB"), "{t}");
        assert!(t.contains("--fit"), "{t}");
        let t = tight_note(false);
        assert!(t.contains("under 1 GiB") && !t.contains("--fit"), "{t}");
    }

    #[test]
    fn token_labels_keep_the_exact_count() {
        assert_eq!(tokens(8192), "8K (8192)");
        assert_eq!(tokens(1000), "1000");
    }

    #[test]
    fn capitalize_starts_a_sentence() {
        assert_eq!(capitalize("needs 2 GiB"), "Needs 2 GiB");
        assert_eq!(capitalize("does not fit"), "Does not fit");
        assert_eq!(capitalize(""), "");
    }
}

/// Train mode: when the trainer profile's total (`profile`, the estimate already on screen)
/// and Unsloth's published formula differ by more than 10 %, the formula's figure to show beside
/// the estimate; `None` otherwise (or when the formula is the profile). One extra estimate, only
/// in train mode.
pub fn formula_note(
    i: &fitcard_estimator::Inputs,
    profile: fitcard_estimator::Bytes,
) -> Option<String> {
    use fitcard_estimator::inputs::Trainer;
    if i.mode != fitcard_estimator::Mode::Train || i.train.trainer == Trainer::UnslothFormula {
        return None;
    }
    // The page without train mode never shows a train estimate (it hands over first).
    if cfg!(not(feature = "train")) {
        return None;
    }
    let mut f = i.clone();
    f.train.trainer = Trainer::UnslothFormula;
    let formula = fitcard_estimator::train::estimate(&f)
        .estimate
        .total_device_bytes;
    let (x, y) = (profile.get() as f64, formula.get() as f64);
    ((x - y).abs() > 0.10 * y.max(1.0)).then(|| {
        format!(
            "Unsloth's published formula says {formula} ({:+} % from this profile's {profile})",
            fitcard_estimator::units::Fixed((y - x) / x.max(1.0) * 100.0, 0)
        )
    })
}

#[cfg(test)]
mod formula_tests {
    use super::formula_note;
    use fitcard_estimator::from_query;

    #[test]
    fn the_published_formula_is_shown_when_it_differs() {
        // Plain transformers at a long sequence keeps full fp32 logits: far from the formula.
        let far = from_query("mode=train&model=meta-llama/Llama-3.1-8B-Instruct&method=qlora&seq=16384&bsz=1&trainer=transformers");
        let total = |i| {
            fitcard_estimator::train::estimate(i)
                .estimate
                .total_device_bytes
        };
        let note =
            formula_note(&far.inputs, total(&far.inputs)).expect("differs by more than 10 %");
        assert!(
            note.starts_with("Unsloth's published formula says"),
            "{note}"
        );
        let same =
            from_query("mode=train&model=meta-llama/Llama-3.1-8B-Instruct&trainer=unsloth-formula");
        assert_eq!(formula_note(&same.inputs, total(&same.inputs)), None);
        let serve = from_query("ctx=4096");
        assert_eq!(
            formula_note(&serve.inputs, fitcard_estimator::Bytes(1)),
            None
        );
    }
}
