//! Benchmark: estimate + rank over the whole catalog (every family, every engine).
//! Run with `cargo bench -p fitcard-estimator`. Target: well under 1 ms per full pass.
//! Also the cross-family ranking and the context × concurrency frontier (computed only when
//! shown).

use fitcard_estimator::{catalog, estimate, rank, Engine, Inputs};
use std::hint::black_box;
use std::time::Instant;

fn pass() -> usize {
    let mut n = 0;
    for fam in &catalog().families {
        let model = fam.variants[0].id.clone();
        for engine in [Engine::LlamaCpp, Engine::Vllm] {
            let i = Inputs {
                model: model.clone(),
                engine,
                ..Inputs::default()
            };
            n += black_box(rank(&i)).len();
            n += black_box(estimate(&i)).terms.len();
        }
    }
    n
}

fn main() {
    let _ = catalog(); // parse once, outside the timing
    for _ in 0..20 {
        black_box(pass());
    }
    let runs = 200;
    let mut times = Vec::with_capacity(runs);
    let mut candidates = 0;
    for _ in 0..runs {
        let t = Instant::now();
        candidates = black_box(pass());
        times.push(t.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    let t0 = Instant::now();
    let _ = black_box(serde_json::from_str::<serde_json::Value>(
        fitcard_estimator::catalog::EMBEDDED_JSON,
    ));
    let parse = t0.elapsed().as_secs_f64() * 1e6;
    println!(
        "estimate + rank, whole catalog ({} families × 2 engines, {candidates} results): median {:.0} µs, p95 {:.0} µs, min {:.0} µs",
        catalog().families.len(),
        times[runs / 2],
        times[runs * 95 / 100],
        times[0]
    );
    println!("catalog JSON parse (once per process): {parse:.0} µs");
    // The cross-family ranking (`best=1`, budget 5 ms native), on a small and a large card.
    for gpu in ["rtx-3060-12gb", "h100-sxm"] {
        let i = fitcard_estimator::from_query(&format!("best=1&gpu={gpu}&ctx=8192")).inputs;
        let mut t = Vec::with_capacity(50);
        let mut rows = 0;
        for _ in 0..50 {
            let t0 = Instant::now();
            rows = black_box(fitcard_estimator::best::best(&i)).rows.len();
            t.push(t0.elapsed().as_secs_f64() * 1e6);
        }
        t.sort_by(f64::total_cmp);
        println!(
            "best across families on {gpu} ({rows} rows): median {:.0} µs, p95 {:.0} µs",
            t[25], t[47]
        );
    }
    // The context × concurrency frontier (every KV cache type × the context grid, each point
    // an exact search): llama.cpp has the most lines (9 types, unified and per slot).
    for q in [
        "model=google/gemma-3-12b-it&par=4",
        "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpu=h100-sxm&ctx=8192&par=16",
        "model=meta-llama/Llama-3.1-8B-Instruct&engine=ollama&par=2",
    ] {
        let i = fitcard_estimator::from_query(q).inputs;
        let mut t = Vec::with_capacity(50);
        let mut f = fitcard_estimator::frontier::frontier(&i);
        for _ in 0..50 {
            let t0 = Instant::now();
            f = black_box(fitcard_estimator::frontier::frontier(&i));
            t.push(t0.elapsed().as_secs_f64() * 1e6);
        }
        t.sort_by(f64::total_cmp);
        let t1 = Instant::now();
        let svg = black_box(fitcard_estimator::frontier::svg::svg(&f, 720.0, 360.0));
        let svg_us = t1.elapsed().as_secs_f64() * 1e6;
        println!(
            "frontier {} ({} lines × {} contexts, {} estimates): median {:.0} µs, p95 {:.0} µs; SVG {} bytes in {svg_us:.0} µs",
            i.engine,
            f.lines.len(),
            f.grid.len(),
            f.evaluations,
            t[25],
            t[47],
            svg.len()
        );
    }
}
