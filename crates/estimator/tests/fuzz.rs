//! Byte-mutation fuzzing of every parser that reads hostile input: GGUF headers, safetensors
//! headers and indexes, config.json (architecture and quantization_config) and the query string. Seeds are
//! the committed files in `tests/data/fuzz/`; each input is a seed with 1–4 random mutations (bit
//! flips, interesting bytes and 64-bit lengths such as 2^60 written over the bytes, insertions,
//! deletions, duplicated chunks, truncation). A parser may refuse anything; it must never panic,
//! and a refusal must be one bounded line.
//!
//! CI runs 100,000 inputs per parser (`cargo test -p fitcard-estimator --test fuzz`). The full
//! run is a million per parser:
//! `FITCARD_FUZZ_N=1000000 cargo test --release -p fitcard-estimator --test fuzz -- --nocapture`.

use fitcard_estimator::{decode, estimate, gguf, hf, Bytes};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Inputs per parser (`FITCARD_FUZZ_N`, default 100,000).
fn runs() -> u64 {
    std::env::var("FITCARD_FUZZ_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000)
}

mod common;
use common::Rng;

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: [u64; 10] = [
    0,
    1,
    0x7f,
    0xff,
    0xffff_ffff,
    u64::MAX,
    1 << 60,
    1 << 40,
    1 << 31,
    100_000_001,
];

/// One mutated copy of `seed`.
fn mutate(seed: &[u8], r: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + r.below(4) {
        let at = r.below(b.len() + 1);
        match r.below(7) {
            0 if !b.is_empty() => {
                let k = r.below(b.len());
                b[k] ^= 1 << r.below(8);
            }
            1 if !b.is_empty() => {
                let k = r.below(b.len());
                b[k] = INTERESTING[r.below(4) + 1] as u8;
            }
            2 => {
                let v = INTERESTING[r.below(INTERESTING.len())].to_le_bytes();
                let n = [4, 8][r.below(2)];
                for (k, x) in v.iter().take(n).enumerate() {
                    if let Some(y) = b.get_mut(at + k) {
                        *y = *x;
                    }
                }
            }
            3 => {
                let n = 1 + r.below(16);
                let ins: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
                b.splice(at..at, ins);
            }
            4 if at < b.len() => {
                let end = (at + 1 + r.below(32)).min(b.len());
                b.drain(at..end);
            }
            5 if at < b.len() => {
                let end = (at + 1 + r.below(64)).min(b.len());
                let chunk = b[at..end].to_vec();
                let to = r.below(b.len() + 1);
                b.splice(to..to, chunk);
            }
            _ => b.truncate(at),
        }
    }
    b
}

fn seed(name: &str) -> Vec<u8> {
    let p = format!("{}/tests/data/fuzz/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// Feed `runs()` mutations of the seeds to `target`; fail naming the first input that panics.
fn fuzz(name: &str, seeds: &[Vec<u8>], salt: u64, target: impl Fn(&[u8])) {
    let n = runs();
    let mut r = Rng(0x9E37_79B9_7F4A_7C15 ^ salt);
    let t0 = std::time::Instant::now();
    for k in 0..n {
        let s = &seeds[k as usize % seeds.len()];
        let input = mutate(s, &mut r);
        if catch_unwind(AssertUnwindSafe(|| target(&input))).is_err() {
            panic!(
                "{name}: input {k} panicked ({} bytes): {:02x?}",
                input.len(),
                &input[..input.len().min(256)]
            );
        }
    }
    println!(
        "{name}: {n} mutated inputs, 0 panics, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

/// A refusal is one bounded line.
fn one_line(msg: &str) {
    assert!(
        !msg.contains('\n') && msg.chars().count() <= 400,
        "not one bounded line: {msg:?}"
    );
}

#[test]
fn gguf_headers() {
    let seeds: Vec<Vec<u8>> = ["gemma3.gguf", "mamba2.gguf", "deepseek2.gguf"]
        .iter()
        .map(|s| seed(s))
        .collect();
    for s in &seeds {
        let h = gguf::parse(s).expect("the seed parses");
        gguf::to_variant(&h, "seed.gguf", Bytes(1 << 30)).expect("the seed reads as a model");
    }
    fuzz("gguf", &seeds, 1, |b| match gguf::parse(b) {
        Ok(h) => match gguf::to_variant(&h, "x.gguf", Bytes(b.len() as u64)) {
            Ok((v, f)) => {
                let e = estimate::estimate_file(&decode("ctx=4096&par=2").inputs, &v, &f);
                assert!(!e.fits || e.total_device_bytes.get() < u64::MAX);
            }
            Err(m) => one_line(&m),
        },
        Err(gguf::Error::Bad(m)) => one_line(&m),
        Err(gguf::Error::NeedMore(n)) => assert!(n > 0),
    });
}

#[test]
fn safetensors_headers() {
    let seeds = vec![seed("model.safetensors")];
    assert!(hf::safetensors_header(&seeds[0]).is_ok(), "the seed parses");
    fuzz("safetensors", &seeds, 2, |b| {
        match hf::safetensors_header(b) {
            Ok(t) => assert!(t.len() <= b.len()),
            Err(hf::HeaderError::Bad(m)) => one_line(&m),
            Err(hf::HeaderError::NeedMore(n)) => assert!(n > 0),
        }
    });
}

#[test]
fn safetensors_index() {
    let seeds = vec![seed("model.safetensors.index.json")];
    let i = hf::safetensors_index(&seeds[0]).expect("the seed parses");
    assert_eq!((i.shards.len(), i.tensors), (2, 12));
    fuzz(
        "safetensors index",
        &seeds,
        5,
        |b| match hf::safetensors_index(b) {
            Ok(i) => assert!(i.shards.len() as u64 <= i.tensors && (i.tensors as usize) <= b.len()),
            Err(m) => one_line(&m),
        },
    );
}

#[test]
fn config_json() {
    let seeds: Vec<Vec<u8>> = [
        "qwen3next.config.json",
        "gemma3.config.json",
        "deepseek.config.json",
    ]
    .iter()
    .map(|s| seed(s))
    .collect();
    for s in &seeds {
        let text = std::str::from_utf8(s).unwrap();
        hf::to_variant("seed/model", text, Bytes(1 << 30), &[]).expect("the seed reads");
    }
    fuzz("config.json", &seeds, 3, |b| {
        let text = String::from_utf8_lossy(b);
        match hf::to_variant("fuzz/model", &text, Bytes(1 << 33), &[]) {
            Ok((v, f)) => {
                let e = estimate::estimate_file(&decode("ctx=8192").inputs, &v, &f);
                assert!(!e.fits || e.total_device_bytes.get() < u64::MAX);
            }
            Err(m) => one_line(&m),
        }
    });
}

#[test]
fn query_strings() {
    let seeds: Vec<Vec<u8>> = String::from_utf8(seed("queries.txt"))
        .unwrap()
        .lines()
        .map(|l| l.as_bytes().to_vec())
        .collect();
    fuzz("query string", &seeds, 4, |b| {
        let d = decode(&String::from_utf8_lossy(b));
        for n in &d.notices {
            one_line(&n.to_string());
        }
        let _ = fitcard_estimator::encode(&d.inputs);
    });
}
