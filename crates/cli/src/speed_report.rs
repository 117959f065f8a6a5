//! The speed part of `fitcard report`: published decode measurements run through the estimator
//! end to end (the query each row becomes, what was measured, what the estimate says), grouped,
//! with each group's median and worst error. The rows and their sources are
//! `crates/estimator/tests/data/speed.json`; `crates/estimator/tests/speed.rs` holds the same
//! rows as tests, and the rows that cannot be written as a catalog query (llama-bench files the
//! catalog lacks, other Apple chips, Metal prefill) with their own arithmetic.

use fitcard_estimator::{decode, estimate};
use serde_json::Value;
use std::fmt::Write;

const DATA: &str = include_str!("../../estimator/tests/data/speed.json");

/// One measured row as the estimator sees it.
struct Row {
    query: String,
    measured: f64,
    split: String,
    url: String,
}

/// A group of rows: its heading, what the rows are, and the rows.
fn groups(data: &Value) -> Vec<(&'static str, String, Vec<Row>)> {
    let rows = |key: &str| data[key].as_array().cloned().unwrap_or_default();
    let text = |r: &Value, k: &str| r[k].as_str().unwrap_or_default().to_string();
    let depth = rows("depth")
        .iter()
        .map(|r| Row {
            query: format!(
                "model={}&quant={}&gpu={}&engine=llama.cpp&ctx={}",
                text(r, "model"),
                text(r, "quant"),
                text(r, "gpu"),
                r["depth"].as_u64().unwrap_or(0) + 32
            ),
            measured: r["tokens_per_s"].as_f64().unwrap_or(0.0),
            split: text(r, "split"),
            url: text(r, "url"),
        })
        .collect();
    let offload = rows("partial_offload")
        .iter()
        .filter(|r| r["ram_bw_gbs"].is_f64())
        .map(|r| Row {
            query: format!(
                "model={}&quant={}&gpu={}&ctx={}&par=1&mmproj=0&ram_bw={}{}",
                text(r, "model"),
                text(r, "quant"),
                text(r, "gpu"),
                r["ctx"],
                r["ram_bw_gbs"],
                r["ngl"]
                    .as_u64()
                    .map(|n| format!("&ngl={n}"))
                    .unwrap_or_default()
            ),
            measured: r["tokens_per_s"].as_f64().unwrap_or(0.0),
            split: text(r, "split"),
            url: text(r, "url"),
        })
        .collect();
    // The MLX rows whose checkpoint has the shapes of a catalog format (Qwen3-4B at 4 and 8
    // bits, group 64) on the catalog's M4 Max.
    let mlx = rows("mlx")
        .iter()
        .filter(|r| {
            r["chip"].as_str().is_some_and(|c| c.starts_with("M4 Max"))
                && r["catalog_model"] == "Qwen/Qwen3-4B"
                && r["group_size"].is_null()
                && matches!(r["bits"].as_u64(), Some(4 | 8))
        })
        .map(|r| Row {
            query: format!(
                "model=Qwen/Qwen3-4B&quant=MLX-{}bit&engine=mlx&ctx=2112&par=1&gpu=m4-max-128gb",
                r["bits"]
            ),
            measured: r["generation_tps"].as_f64().unwrap_or(0.0),
            split: text(r, "split"),
            url: text(r, "url"),
        })
        .collect();
    let vllm = rows("vllm_decode")
        .iter()
        .filter_map(|r| {
            Some(Row {
                query: r["catalog_query"].as_str()?.to_string(),
                measured: r["decode_tps"].as_f64()?,
                split: text(r, "split"),
                url: text(r, "url"),
            })
        })
        .collect();
    vec![
        (
            "vLLM decode, one request, HBM cards",
            "Dense BF16 models (the Qwen speed benchmark on an A100 80GB with vLLM 0.6.3, Llama-3.1-8B on an A100 40GB and an H100): the vLLM fit's two rows and eight held out.".to_string(),
            vllm,
        ),
        (
            "llama.cpp decode at depth, DGX Spark",
            "`tg32` after N cached tokens (llama.cpp's `benches/dgx-spark.md`, build 6918): the context's KV read fitted on two models, held out on two.".to_string(),
            depth,
        ),
        (
            "llama.cpp partial offload, RTX 2080 with quad-channel DDR4",
            format!(
                "`-ngl` below the layer count: the layers left in system RAM read by the CPU at {} of the RAM's bandwidth (fitted on CPU-only runs, not on these rows); the rows without `ngl` run on the card alone.",
                fitcard_estimator::units::Shortest(fitcard_estimator::speed::HOST_EFF)
            ),
            offload,
        ),
        (
            "MLX decode, M4 Max",
            "mlx-lm's own benchmark (Qwen3-4B-Instruct-2507, whose shapes are Qwen3-4B's): the MLX fit's rows at 4 and 8 bits.".to_string(),
            mlx,
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
            let Some(sp) = estimate(&decode(&r.query).inputs).speed else {
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
