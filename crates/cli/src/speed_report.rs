//! The speed part of `fitcard report`: published decode measurements run through the estimator
//! end to end (the query each row becomes, what was measured, what the estimate says), grouped,
//! with each group's median and worst error. The rows and their sources are
//! `crates/estimator/data/speed.json`; `crates/estimator/tests/speed.rs` holds the same
//! rows as tests, and the rows that cannot be written as a catalog query (llama-bench files the
//! catalog lacks, other Apple chips, Metal prefill) with their own arithmetic.

use fitcard_estimator::{estimate, from_query};
use serde_json::Value;
use std::fmt::Write;

const DATA: &str = include_str!("../../estimator/data/speed.json");

/// One measured row as the estimator sees it.
struct Row {
    query: String,
    measured: f64,
    split: String,
    url: String,
}

/// The rows of `key` in the data that name their `catalog_query`, measured in `field`.
fn rows(data: &Value, key: &str, field: &str) -> Vec<Row> {
    let text = |r: &Value, k: &str| r[k].as_str().unwrap_or_default().to_string();
    data[key]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|r| {
            Some(Row {
                query: r["catalog_query"].as_str()?.to_string(),
                measured: r[field].as_f64()?,
                split: text(r, "split"),
                url: text(r, "url"),
            })
        })
        .collect()
}

/// A group of rows: its heading, what the rows are, and the rows.
fn groups(data: &Value) -> Vec<(&'static str, String, Vec<Row>)> {
    vec![
        (
            "vLLM decode, one request, HBM cards",
            "Dense BF16 models (the Qwen speed benchmark on an A100 80GB with vLLM 0.6.3, Llama-3.1-8B on an A100 40GB and an H100): the vLLM fit's two rows and eight held out.".to_string(),
            rows(data, "vllm_decode", "decode_tps"),
        ),
        (
            "llama.cpp decode at depth, DGX Spark",
            "`tg32` after N cached tokens (llama.cpp's `benches/dgx-spark.md`, build 6918): the context's KV read fitted on two models, held out on two.".to_string(),
            rows(data, "depth", "tokens_per_s"),
        ),
        (
            "llama.cpp partial offload, RTX 2080 with quad-channel DDR4",
            format!(
                "`-ngl` below the layer count: the layers left in system RAM read by the CPU at {} of the RAM's bandwidth (fitted on CPU-only runs, not on these rows); the rows without `ngl` run on the card alone.",
                fitcard_estimator::units::Shortest(fitcard_estimator::serve::speed::HOST_EFF)
            ),
            rows(data, "partial_offload", "tokens_per_s"),
        ),
        (
            "MLX decode, M4 Max",
            "mlx-lm's own benchmark (Qwen3-4B-Instruct-2507, whose shapes are Qwen3-4B's): the MLX fit's rows at 4 and 8 bits.".to_string(),
            rows(data, "mlx", "generation_tps"),
        ),
    ]
}

/// The speed section of the accuracy report (Markdown).
pub fn section() -> String {
    let data: Value = serde_json::from_str(DATA).unwrap_or(Value::Null);
    let mut s = String::new();
    let _ = writeln!(s, "## Decode speed\n");
    let _ = writeln!(
        s,
        "Published tokens-per-second measurements run through the estimator as the query \
         shown (`speed.decode_tps`); error = estimate ÷ measured − 1. `fit`: a row a constant \
         was fitted on; `held_out`: a row no constant was fitted on. The rows that cannot be \
         written as a catalog query (llama-bench runs of files the catalog lacks, other Apple \
         chips, prefill) are checked in `crates/estimator/tests/speed.rs`.\n"
    );
    let mut summary = Vec::new();
    for (title, what, rows) in groups(&data) {
        let _ = writeln!(s, "### {title}\n\n{what}\n");
        let _ = writeln!(
            s,
            "| configuration | measured | estimate | error % | split | source |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---|---|");
        let mut errs = Vec::new();
        for r in &rows {
            let Some(sp) = estimate(&from_query(&r.query).inputs).speed else {
                continue;
            };
            let err = sp.decode_tps / r.measured - 1.0;
            errs.push(err.abs());
            let _ = writeln!(
                s,
                "| `{}` | {:.1} | {:.1} | {:+.1} % | {} | [source]({}) |",
                r.query,
                r.measured,
                sp.decode_tps,
                100.0 * err,
                if r.split.is_empty() { "fit" } else { &r.split },
                r.url
            );
        }
        let _ = writeln!(s);
        errs.sort_by(f64::total_cmp);
        if let (Some(m), Some(w)) = (errs.get(errs.len() / 2), errs.last()) {
            summary.push((title, errs.len(), *m, *w));
        }
    }
    let _ = writeln!(s, "### Decode summary\n");
    let _ = writeln!(s, "| group | rows | median abs error | worst abs error |");
    let _ = writeln!(s, "|---|---:|---:|---:|");
    for (title, n, m, w) in summary {
        let _ = writeln!(
            s,
            "| {title} | {n} | {:.1} % | {:.1} % |",
            100.0 * m,
            100.0 * w
        );
    }
    s
}
