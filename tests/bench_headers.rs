//! Benchmark in a browser (not a timed test: it asserts only what it reads): the headers of
//! `crates/estimator/benches/headers.rs`, parsed by the estimator compiled to wasm, as the
//! importer parses them (here, beside the page, so the estimator keeps no web dependency).
//! The median of each is printed. Run (headless Chromium, the release profile the page ships):
//! `CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner cargo test --release
//! -p fitcard --target wasm32-unknown-unknown --test bench_headers -- --nocapture`

#![cfg(target_arch = "wasm32")]

#[path = "../crates/estimator/benches/support/headers.rs"]
mod headers;

use fitcard_estimator::{readers::gguf, readers::hf, Bytes};
use std::hint::black_box;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// `performance.now()`, milliseconds (`std::time::Instant` has no clock in wasm32).
fn now() -> f64 {
    let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).expect("perf");
    let f: js_sys::Function = js_sys::Reflect::get(&perf, &"now".into())
        .expect("now")
        .into();
    f.call0(&perf).ok().and_then(|v| v.as_f64()).unwrap_or(0.0)
}

/// Median and minimum of `runs` timings of `f`, milliseconds (after two warm-up runs).
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    for _ in 0..2 {
        black_box(f());
    }
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let t0 = now();
            black_box(f());
            now() - t0
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[runs / 2], t[0])
}

#[wasm_bindgen_test]
fn gguf_header_262k_vocabulary() {
    let (g, n_kv) = headers::gguf_262k();
    let h = gguf::parse(&g).expect("the GGUF header reads");
    assert_eq!(h.kv.len() as u64, n_kv);
    assert_eq!(h.tensors.len() as u64, headers::TENSORS);
    let (v, f) = gguf::to_variant(&h, "gemma-3-4b-it-Q4_K_M.gguf", Bytes(1)).expect("model");
    assert_eq!(
        (v.arch.layers, v.arch.vocab, f.id.id()),
        (34, headers::VOCAB, "Q4_K_M")
    );
    let (parse, min) = time(30, || gguf::parse(&g));
    console_log!(
        "wasm: GGUF header, {}-token vocabulary, {} tensors ({:.1} MB): parse median {parse:.2} ms (min {min:.2})",
        headers::VOCAB,
        headers::TENSORS,
        g.len() as f64 / 1e6
    );
}

#[wasm_bindgen_test]
fn safetensors_index_60mb() {
    let (idx, tensors) = headers::index_60mb();
    let i = hf::safetensors_index(&idx).expect("the index reads");
    assert_eq!(i.tensors, tensors);
    assert_eq!(i.shards.len() as u64, headers::SHARDS);
    let (parse, min) = time(7, || hf::safetensors_index(&idx));
    console_log!(
        "wasm: model.safetensors.index.json ({:.1} MB, {tensors} tensors, {} shards): parse median {parse:.1} ms (min {min:.1})",
        idx.len() as f64 / 1e6,
        i.shards.len()
    );
}
