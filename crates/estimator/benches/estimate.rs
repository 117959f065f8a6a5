//! Benchmark: estimate + rank over the whole catalog (every family, every engine).
//! Run with `cargo bench -p fitcard-estimator`. Target: well under 1 ms per full pass.

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
}
