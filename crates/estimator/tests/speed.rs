//! Decode speed against published llama-bench runs (`tests/data/speed.json`, each row with its
//! URL): the fit of `fitcard_estimator::speed` reproduces every decode row within 20 %, and a
//! spill to host memory costs what it should.

use fitcard_estimator::speed::{Fit, GDDR, HBM, UNIFIED};
use fitcard_estimator::{catalog, decode, estimate};

/// The step time model on one row: `bytes / (eff × bw) + fixed`.
fn predict(bytes: f64, bw_gbs: f64, fit: Fit) -> f64 {
    1.0 / (bytes / (fit.eff * bw_gbs * 1e9) + fit.fixed_s)
}

#[test]
fn llama_bench_decode_rows_within_twenty_percent() {
    let data: serde_json::Value =
        serde_json::from_str(include_str!("data/speed.json")).expect("speed.json");
    let mut checked = 0;
    let mut bad = Vec::new();
    for r in data["llama_bench"].as_array().unwrap() {
        let test = r["test"].as_str().unwrap_or_default();
        if !test.starts_with("tg") {
            continue;
        }
        // A row with a caution is a known miss: its mechanism is named there (the M1 Max's
        // compute-bound K-quant decode). It must stay a miss, or the caution is stale.
        let known_miss = r.get("caution").is_some_and(|c| !c.is_null());
        let (Some(gpu), Some(size), Some(tps)) = (
            r["gpu"].as_str().and_then(|id| catalog().gpu(id)),
            r["size_gib"].as_f64(),
            r["tokens_per_s"].as_f64(),
        ) else {
            continue;
        };
        let Some(bw) = gpu.bandwidth_gbs else {
            continue;
        };
        // What the card reads per token: the file without the token embedding llama.cpp keeps
        // in host memory (vocab × hidden at the file's embedding type).
        let model = r["model"].as_str().unwrap_or_default();
        let quant = r["quant"].as_str().unwrap_or_default();
        let (vocab, hidden) = if model.contains("70B") {
            (128_256.0, 8192.0)
        } else if model.contains("Llama-3") {
            (128_256.0, 4096.0)
        } else {
            (32_016.0, 4096.0)
        };
        let per_value = match quant {
            "F16" => 2.0,
            "Q8_0" => 34.0 / 32.0,
            "Q4_0" => 18.0 / 32.0,
            _ => 144.0 / 256.0,
        };
        let bytes = size * (1u64 << 30) as f64 - vocab * hidden * per_value;
        let fit = match gpu.memory_kind {
            fitcard_estimator::catalog::MemoryKind::Gddr => GDDR,
            fitcard_estimator::catalog::MemoryKind::Hbm => HBM,
            fitcard_estimator::catalog::MemoryKind::Unified => UNIFIED,
        };
        let p = predict(bytes, bw, fit);
        checked += 1;
        if known_miss {
            if (p - tps).abs() / tps <= 0.20 {
                bad.push(format!(
                    "{} {model} {quant}: the known miss is gone",
                    gpu.id
                ));
            }
        } else if (p - tps).abs() / tps > 0.20 {
            bad.push(format!(
                "{} {model} {quant} {test}: {tps} t/s measured, {p:.1} predicted",
                gpu.id
            ));
        }
    }
    assert!(checked >= 37, "only {checked} rows");
    assert!(bad.is_empty(), "outside 20 %:\n{}", bad.join("\n"));
}

/// The estimator's own numbers: an 8B Q4_K_M model on an RTX 4090 decodes in the range the
/// benchmarks show; a MoE model reads only its routed experts; more slots raise the aggregate
/// and lower each request's speed; a spill to host memory is named and slows decoding by an
/// order of magnitude.
#[test]
fn estimator_speed() {
    let s = |q: &str| estimate(&decode(q).inputs).speed.expect(q);
    let dense = s("model=meta-llama/Llama-3.1-8B-Instruct&ctx=4096");
    assert!((100.0..160.0).contains(&dense.decode_tps), "{dense:?}");
    let four = s("model=meta-llama/Llama-3.1-8B-Instruct&ctx=4096&par=4");
    assert!(four.aggregate_tps > dense.aggregate_tps && four.decode_tps < dense.decode_tps);
    let moe = s("model=Qwen/Qwen3-30B-A3B&quant=Q4_K_M&gpu=rtx-5090&ctx=4096");
    let dense32 = s("model=Qwen/Qwen3-32B&quant=Q4_K_M&gpu=rtx-5090&ctx=4096");
    assert!(
        moe.decode_tps > 3.0 * dense32.decode_tps,
        "{moe:?} {dense32:?}"
    );
    let spill = s("model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&ctx=4096");
    assert!(spill.offloaded_layers > 0 && spill.offloaded_bytes > 0);
    assert!(spill.decode_tps * 5.0 < spill.on_card_tps, "{spill:?}");
    // A free-form card has no bandwidth: no speed rather than a guess.
    assert!(estimate(&decode("vram=24").inputs).speed.is_none());
}
