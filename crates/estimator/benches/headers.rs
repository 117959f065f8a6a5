//! Benchmark: reading the headers an import reads. A GGUF header with a 262,144-token
//! vocabulary (tokens, scores and token types: megabytes the reader skips) and a 444-tensor
//! table, into the model it describes; and a 60 MB `model.safetensors.index.json` into its
//! shards. Run with `cargo bench -p fitcard-estimator --bench headers`; the same headers are
//! timed in a browser by the page crate's `tests/bench_headers.rs` (README, "Benchmarks").

#[path = "support/headers.rs"]
mod headers;

use fitcard_estimator::{readers::gguf, readers::hf, Bytes};
use std::hint::black_box;
use std::time::Instant;

/// Median and minimum of `runs` timings of `f`, milliseconds (after two warm-up runs).
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    for _ in 0..2 {
        black_box(f());
    }
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let t0 = Instant::now();
            black_box(f());
            t0.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[runs / 2], t[0])
}

fn main() {
    let (g, n_kv) = headers::gguf_262k();
    let h = gguf::parse(&g).expect("the GGUF header reads");
    assert_eq!(h.kv.len() as u64, n_kv);
    assert_eq!(h.tensors.len() as u64, headers::TENSORS);
    assert_eq!(
        h.kv.get("tokenizer.ggml.tokens"),
        Some(&gguf::Value::Array(headers::VOCAB, Vec::new()))
    );
    let (v, f) = gguf::to_variant(&h, "gemma-3-4b-it-Q4_K_M.gguf", Bytes(2_489_757_856))
        .expect("the model reads");
    assert_eq!(
        (v.arch.layers, v.arch.vocab, f.id.id()),
        (34, headers::VOCAB, "Q4_K_M")
    );
    let (parse, parse_min) = time(50, || gguf::parse(&g));
    let (model, _) = time(50, || {
        let h = gguf::parse(&g).expect("reads");
        gguf::to_variant(&h, "m.gguf", Bytes(1)).map(|x| x.0.arch.layers)
    });
    println!(
        "GGUF header, {}-token vocabulary, {} tensors ({:.1} MB): parse median {parse:.2} ms (min {parse_min:.2}); parse + model {model:.2} ms",
        headers::VOCAB,
        headers::TENSORS,
        g.len() as f64 / 1e6
    );

    let (idx, tensors) = headers::index_60mb();
    let i = hf::safetensors_index(&idx).expect("the index reads");
    assert_eq!(i.tensors, tensors);
    assert_eq!(i.shards.len() as u64, headers::SHARDS);
    assert_eq!(i.total_size, Some(688_586_727_753));
    let (parse, parse_min) = time(15, || hf::safetensors_index(&idx));
    // For scale: the same bytes into a `serde_json::Value` (every key and value kept).
    let (value, _) = time(5, || {
        serde_json::from_slice::<serde_json::Value>(&idx).is_ok()
    });
    println!(
        "model.safetensors.index.json ({:.1} MB, {tensors} tensors, {} shards): parse median {parse:.1} ms (min {parse_min:.1}); as a serde_json::Value {value:.1} ms",
        idx.len() as f64 / 1e6,
        i.shards.len()
    );
}
