//! Every fact of the embedded catalog names a public origin a reader can open.
//!
//! * each variant's architecture cites the model's own `config.json` on the Hugging Face Hub;
//! * each format's size, each GPU's memory total and each capability score cites an `https://` URL;
//! * a computed size says so and names the config it was computed from (`data/gen/compute_sizes.py`);
//! * no source, note or family basis points at working papers outside the repository.
//!
//! A failure lists every offending row by name. `data/SOURCES.md` describes the origins.

use fitcard_estimator::catalog;
use fitcard_estimator::catalog::SizeKind;

/// Phrases that point at documents a reader cannot open, with whether the match is
/// case-sensitive. Built from parts so that a repository-wide scan for them does not match this
/// file.
fn forbidden() -> Vec<(String, bool)> {
    vec![
        (["shared", "/"].concat(), false),
        (["GUI", "DE"].concat(), true),
        ("\u{a7}".to_string(), true),
        (["es", "say"].concat(), false),
        (["seed", " 1"].concat(), false),
        (["seed", " 2"].concat(), false),
        (["task", " brief"].concat(), false),
        (["code", " index"].concat(), false),
        (["registry", " id"].concat(), false),
        (["general", " knowledge"].concat(), false),
    ]
}

/// The config a variant's architecture (and any size computed from it) must cite.
fn config_url(model: &str) -> String {
    format!("https://huggingface.co/{model}/blob/main/config.json")
}

/// Does `text` name an `https://` URL (scheme followed by a host)?
fn has_url(text: &str) -> bool {
    text.match_indices("https://").any(|(i, m)| {
        text[i + m.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// Phrases of [`forbidden`] found in `text`.
fn forbidden_in(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    forbidden()
        .into_iter()
        .filter(|(pat, case_sensitive)| {
            if *case_sensitive {
                text.contains(pat.as_str())
            } else {
                lower.contains(pat.as_str())
            }
        })
        .map(|(pat, _)| pat)
        .collect()
}

/// What is wrong with one source: no URL, a required URL or word missing, a forbidden phrase.
fn source_problems(source: &str, must_contain: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    if !has_url(source) {
        out.push("names no https:// URL".to_string());
    }
    for need in must_contain {
        if !source.contains(need) {
            out.push(format!("does not contain {need:?}"));
        }
    }
    for pat in forbidden_in(source) {
        out.push(format!("refers to a non-public document ({pat:?})"));
    }
    out
}

/// Every problem of the embedded catalog's sources, one line per row.
fn catalog_problems() -> Vec<String> {
    let mut bad = Vec::new();
    let mut report = |row: String, text: &str, problems: Vec<String>| {
        for p in problems {
            bad.push(format!("{row}: {p}\n    {text}"));
        }
    };
    let cat = catalog();
    for f in &cat.families {
        let basis: Vec<String> = forbidden_in(&f.capability_basis)
            .into_iter()
            .map(|p| format!("refers to a non-public document ({p:?})"))
            .collect();
        report(
            format!("family {} capability_basis", f.id),
            &f.capability_basis,
            basis,
        );
        if let Some(l) = &f.license {
            report(
                format!("family {} license", f.id),
                &l.source,
                source_problems(&l.source, &[]),
            );
        }
        for v in &f.variants {
            let config = config_url(&v.id);
            report(
                format!("{} arch", v.id),
                &v.arch.source,
                source_problems(&v.arch.source, &[&config]),
            );
            if let Some(score) = &v.capability {
                report(
                    format!("{} capability", v.id),
                    &score.source,
                    source_problems(&score.source, &[]),
                );
            }
            for fm in &v.formats {
                let row = format!(
                    "{} {} {:?} ({}/{})",
                    v.id, fm.id, fm.container, fm.repo, fm.file
                );
                let need: Vec<&str> = if fm.size == SizeKind::Computed {
                    vec!["computed", &config]
                } else {
                    Vec::new()
                };
                report(
                    format!("{row} source"),
                    &fm.source,
                    source_problems(&fm.source, &need),
                );
                if let Some(note) = &fm.note {
                    let problems = forbidden_in(note)
                        .into_iter()
                        .map(|p| format!("refers to a non-public document ({p:?})"))
                        .collect();
                    report(format!("{row} note"), note, problems);
                }
            }
        }
    }
    if let Some(e) = &cat.common_eval {
        for r in &e.scores {
            report(
                format!("common evaluation {}", r.model),
                &r.source,
                source_problems(&r.source, &[]),
            );
        }
    }
    for g in &cat.gpus {
        report(
            format!("gpu {}", g.id),
            &g.source,
            source_problems(&g.source, &[]),
        );
        // A bandwidth or an FP16 throughput is a fact too: it names its source, and a figure
        // derived from a printed one (a sparse rate halved, an AI TOPS figure divided) says
        // "computed" at the start.
        for (what, value, source) in [
            ("bandwidth", g.bandwidth_gbs, &g.bandwidth_source),
            ("fp16_tflops", g.fp16_tflops, &g.fp16_tflops_source),
        ] {
            let Some(_) = value else { continue };
            let text = source.as_deref().unwrap_or_default();
            report(
                format!("gpu {} {what}", g.id),
                text,
                source_problems(text, &[]),
            );
            if what == "fp16_tflops"
                && text.contains(" / ")
                && text.contains("AI TOPS")
                && !text.starts_with("computed:")
            {
                report(
                    format!("gpu {} {what}", g.id),
                    text,
                    vec!["derives the figure but does not say computed".to_string()],
                );
            }
        }
    }
    bad
}

#[test]
fn every_catalog_fact_names_a_public_source() {
    let bad = catalog_problems();
    assert!(
        bad.is_empty(),
        "{} catalog rows without a public source (see crates/estimator/data/SOURCES.md):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_catalog_scan_reaches_every_kind_of_row() {
    let cat = catalog();
    let variants: Vec<_> = cat.families.iter().flat_map(|f| &f.variants).collect();
    assert!(!variants.is_empty() && !cat.gpus.is_empty());
    assert!(variants.iter().any(|v| v.capability.is_some()));
    let formats: Vec<_> = variants.iter().flat_map(|v| &v.formats).collect();
    for kind in [SizeKind::Published, SizeKind::Exact, SizeKind::Computed] {
        assert!(
            formats.iter().any(|f| f.size == kind),
            "no {kind:?} format row to check"
        );
    }
}

/// The checks reject what they must, so a passing catalog test means something.
#[test]
fn the_source_check_rejects_non_public_sources() {
    let config = config_url("org/model");
    // Accepted: the config plus a public secondary copy.
    assert!(source_problems(
        &format!("{config}; checked against https://github.com/org/repo/blob/abc/file.py"),
        &[&config]
    )
    .is_empty());
    // Computed sizes must say so and name their config.
    let computed = format!("computed by data/gen/compute_sizes.py (gguf-mix) from {config}");
    assert!(source_problems(&computed, &["computed", &config]).is_empty());
    assert!(!source_problems(
        "computed by data/gen/compute_sizes.py (gguf-mix)",
        &["computed", &config]
    )
    .is_empty());
    // No URL at all, or a bare scheme.
    assert!(!source_problems("nvidia-smi total as printed in public logs", &[]).is_empty());
    assert!(!source_problems("see https:// later", &[]).is_empty());
    // A URL does not excuse a pointer at a document nobody can open.
    for (pat, _) in forbidden() {
        let text = format!("https://huggingface.co/org/model ({pat} 123)");
        assert!(
            !source_problems(&text, &[]).is_empty(),
            "{pat:?} was not rejected"
        );
    }
    // Case: the lowercase word is allowed where only the capitalised acronym is forbidden.
    assert!(forbidden_in("a serving guide at https://example.org").is_empty());
    assert!(!forbidden_in(&["Shared", "/Data"].concat()).is_empty());
}

/// Where a published (or exact) size also names what the computed rule gives (`… compute_sizes.py gives N
/// B …`), the two agree within 1 %: the rule that fills the rows nobody published is checked on
/// every row somebody did.
#[test]
fn published_sizes_agree_with_the_computed_rule_within_one_percent() {
    let mut bad = Vec::new();
    let mut n = 0;
    for f in &catalog().families {
        for v in &f.variants {
            for fm in v
                .formats
                .iter()
                .filter(|fm| matches!(fm.size, SizeKind::Published | SizeKind::Exact))
            {
                let Some(rest) = fm.source.split("compute_sizes.py gives ").nth(1) else {
                    continue;
                };
                let Some(computed) = rest
                    .split(" B")
                    .next()
                    .and_then(|d| d.trim().parse::<f64>().ok())
                else {
                    bad.push(format!("{} {}: unreadable computed value", v.id, fm.id));
                    continue;
                };
                n += 1;
                let published = fm.bytes.0 as f64;
                let r = (computed - published) / published;
                if r.abs() > 0.01 {
                    bad.push(format!(
                        "{} {}: computed {computed} vs published {published} ({:+.2} %)",
                        v.id,
                        fm.id,
                        r * 100.0
                    ));
                }
            }
        }
    }
    assert!(n >= 30, "{n} published rows with a computed counterpart");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A GGUF named F16 or BF16 that keeps its experts in MXFP4 (gpt-oss: the converter leaves the
/// MXFP4 expert tensors as published) says so where its name is shown.
#[test]
fn a_16_bit_gguf_with_mxfp4_experts_says_what_it_holds() {
    let cat = fitcard_estimator::catalog();
    let fam = cat.family("gpt-oss").expect("the gpt-oss family");
    let mut n = 0;
    for v in &fam.variants {
        for f in v.formats.iter().filter(|f| {
            f.container == fitcard_estimator::catalog::quant::Container::Gguf
                && matches!(
                    f.id,
                    fitcard_estimator::Quant::F16 | fitcard_estimator::Quant::BF16
                )
        }) {
            let holds = f.holds.as_deref().unwrap_or_default();
            assert!(
                holds.contains("MXFP4 experts"),
                "{} {}: {holds:?}",
                v.id,
                f.id
            );
            n += 1;
        }
    }
    assert!(n >= 2, "{n}");
}
