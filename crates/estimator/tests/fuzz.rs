//! Byte-mutation fuzzing of every parser that reads hostile input: GGUF headers, safetensors
//! headers and indexes, config.json (architecture and quantization_config) and the query string. Seeds are
//! the committed files in `tests/data/fuzz/`; each input is a seed with 1–4 random mutations (bit
//! flips, interesting bytes and 64-bit lengths such as 2^60 written over the bytes, insertions,
//! deletions, duplicated chunks, truncation). A parser may refuse anything; it must never panic,
//! and a refusal must be one bounded line.
//!
//! The structure-aware targets (`gguf_fields`, `config_fields`, below) set every numeric field
//! of a valid header or config to the values that break arithmetic, alone and several at once,
//! and estimate each model that still reads under several queries.
//!
//! CI runs 100,000 inputs per parser (`cargo test -p fitcard-estimator --test fuzz`, the test
//! profile: overflow checks on). The full run is a million per parser, in the `fuzz` profile
//! (optimized, with overflow checks and debug assertions on, so that a wrapped sum panics instead
//! of passing silently):
//! `FITCARD_FUZZ_N=1000000 cargo test --profile fuzz -p fitcard-estimator --test fuzz -- --nocapture`.

use fitcard_estimator::catalog::{Format, Variant};
use fitcard_estimator::{from_query, readers::gguf, readers::hf, Bytes};
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
                let e = fitcard_estimator::serve::estimate_file(
                    &from_query("ctx=4096&par=2").inputs,
                    &v,
                    &f,
                );
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
                let e =
                    fitcard_estimator::serve::estimate_file(&from_query("ctx=8192").inputs, &v, &f);
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
        let d = from_query(&String::from_utf8_lossy(b));
        for n in &d.notices {
            one_line(&n.to_string());
        }
        let _ = fitcard_estimator::encode(&d.inputs);
        // Every tenth decoded query is estimated too (the catalog model it names, or the
        // default): what a link reaches, not only how it parses.
        if b.len() % 10 == 0 {
            let e = fitcard_estimator::estimate(&d.inputs);
            assert!(!e.fits || e.total_device_bytes.get() < u64::MAX);
        }
    });
}

// Structure-aware mutation: every numeric field of a valid header or config set, one at a time,
// to each of the values below (or removed, or replaced by a float or a string), then read and
// estimated under several queries. Byte mutation rarely yields a header that still parses, so
// it seldom reaches the arithmetic; these do, every one of them. Run in the test profile (the
// `fuzz` profile for the long run): overflow checks are on, so a wrapped sum panics here.

/// Random several-field mutants per seed: a thirtieth of [`runs`] (3,333 in CI).
fn random_mutants() -> usize {
    (runs() / 30) as usize
}

/// What each numeric field is set to.
#[derive(Clone, Debug)]
enum Field {
    Int(i128),
    Float(f64),
    Str,
    Removed,
}

const FIELD_VALUES: [Field; 12] = [
    Field::Int(0),
    Field::Int(1),
    Field::Int(2),
    Field::Int(1 << 31),
    Field::Int(1 << 32),
    Field::Int(1 << 62),
    Field::Int(1 << 63),
    Field::Int(u64::MAX as i128),
    Field::Int(-1),
    Field::Float(4096.5),
    Field::Str,
    Field::Removed,
];

/// Queries each mutant is estimated under: engines, a long context with many slots on many
/// cards (the sums of per-card bytes), spilling layers, KV types, training.
const QUERIES: [&str; 9] = [
    "ctx=4096&par=2",
    "ctx=16777216&par=1024&cards=64&gpu=h200",
    "engine=ollama&ctx=131072&par=4&gpu=rtx-2080",
    "engine=llama.cpp&ngl=3&nkvo=1&kv=q4_0&ctx=65536",
    "engine=llama.cpp&kvu=1&swafull=1&par=64&ctx=1048576&vram=8",
    "engine=transformers&ctx=8192&par=8",
    "engine=vllm&ctx=1000000&par=256&cards=8&gpu=h100",
    "engine=sglang&ctx=262144&cards=4&gpu=a100-80gb",
    "mode=train&method=qlora&seq=65536&bsz=64",
];

/// Estimate `v`/`f` under every query: no panic, and a fitting plan has a finite total. How
/// many of the estimates fit.
fn estimate_everywhere(v: &Variant, f: &Format) -> usize {
    let mut fits = 0;
    for q in QUERIES {
        let e = fitcard_estimator::serve::estimate_file(&from_query(q).inputs, v, f);
        assert!(!e.fits || e.total_device_bytes.get() < u64::MAX, "{q}");
        for c in &e.checks {
            one_line(&c.message);
        }
        fits += usize::from(e.fits);
    }
    fits
}

/// A GGUF header written back from what [`gguf::parse`] read (integers as u64/i64, floats as
/// f64, arrays whose values were not kept as zero bytes): enough for the reader to see the same
/// model, with any field replaced.
fn write_gguf(h: &gguf::Header) -> Vec<u8> {
    fn s(out: &mut Vec<u8>, x: &str) {
        out.extend((x.len() as u64).to_le_bytes());
        out.extend(x.as_bytes());
    }
    let mut out = b"GGUF".to_vec();
    out.extend(3u32.to_le_bytes());
    out.extend((h.tensors.len() as u64).to_le_bytes());
    out.extend((h.kv.len() as u64).to_le_bytes());
    for (k, v) in &h.kv {
        s(&mut out, k);
        match v {
            gguf::Value::Int(x) if *x < 0 => {
                out.extend(11u32.to_le_bytes());
                out.extend((*x as i64).to_le_bytes());
            }
            gguf::Value::Int(x) => {
                out.extend(10u32.to_le_bytes());
                out.extend((*x as u64).to_le_bytes());
            }
            gguf::Value::Float(x) => {
                out.extend(12u32.to_le_bytes());
                out.extend(x.to_le_bytes());
            }
            gguf::Value::Str(x) => {
                out.extend(8u32.to_le_bytes());
                s(&mut out, x);
            }
            gguf::Value::Array(n, vals) if vals.len() as u64 == *n && *n > 0 => {
                out.extend(9u32.to_le_bytes());
                out.extend(11u32.to_le_bytes());
                out.extend(n.to_le_bytes());
                for x in vals {
                    out.extend((*x as i64).to_le_bytes());
                }
            }
            gguf::Value::Array(n, _) => {
                out.extend(9u32.to_le_bytes());
                // f32 elements: the reader keeps their count only, as it did for these.
                out.extend(6u32.to_le_bytes());
                out.extend(n.to_le_bytes());
                out.extend(std::iter::repeat_n(0u8, 4 * *n as usize));
            }
        }
    }
    for t in &h.tensors {
        s(&mut out, &t.name);
        out.extend((t.dims.len() as u32).to_le_bytes());
        for d in &t.dims {
            out.extend(d.to_le_bytes());
        }
        out.extend(t.ggml_type.to_le_bytes());
        out.extend(0u64.to_le_bytes());
    }
    out
}

/// Every (field, value) mutant of a GGUF header: each numeric metadata value (an array's
/// elements all at once), then each tensor dimension of the first tensors.
fn gguf_mutants(h: &gguf::Header, random: usize, r: &mut Rng) -> Vec<(String, gguf::Header)> {
    let mut out = Vec::new();
    let numeric: Vec<String> =
        h.kv.iter()
            .filter(|(_, v)| match v {
                gguf::Value::Int(_) | gguf::Value::Float(_) => true,
                gguf::Value::Array(n, vals) => vals.len() as u64 == *n && *n > 0,
                gguf::Value::Str(_) => false,
            })
            .map(|(k, _)| k.clone())
            .collect();
    let set = |m: &mut gguf::Header, k: &str, f: &Field| {
        let new = match (f, &h.kv[k]) {
            (Field::Removed, _) => None,
            (Field::Str, _) => Some(gguf::Value::Str("4096".into())),
            (Field::Float(x), _) => Some(gguf::Value::Float(*x)),
            (Field::Int(x), gguf::Value::Array(n, _)) => {
                Some(gguf::Value::Array(*n, vec![*x; *n as usize]))
            }
            (Field::Int(x), _) => Some(gguf::Value::Int(*x)),
        };
        match new {
            Some(v) => m.kv.insert(k.to_string(), v),
            None => m.kv.remove(k),
        };
    };
    for k in &numeric {
        for f in &FIELD_VALUES {
            let mut m = h.clone();
            set(&mut m, k, f);
            out.push((format!("{k} = {f:?}"), m));
        }
    }
    // Every dimension at once at each bound (the largest products), then random sets of 2–6.
    for b in BOUNDS {
        let mut m = h.clone();
        for k in numeric.iter().filter(|k| !k.starts_with("general.")) {
            set(&mut m, k, &Field::Int(b));
        }
        out.push((format!("every dimension = {b}"), m));
    }
    for _ in 0..random {
        let mut m = h.clone();
        let mut what = Vec::new();
        for _ in 0..2 + r.below(5) {
            let k = &numeric[r.below(numeric.len())];
            let f = any_field(r);
            set(&mut m, k, &f);
            what.push(format!("{k} = {f:?}"));
        }
        out.push((what.join(", "), m));
    }
    for (ti, t) in h.tensors.iter().enumerate().take(8) {
        for di in 0..t.dims.len() {
            for f in &FIELD_VALUES {
                let Field::Int(x) = f else { continue };
                let mut m = h.clone();
                m.tensors[ti].dims[di] = *x as u64;
                out.push((format!("{} dim {di} = {x}", t.name), m));
            }
        }
    }
    out
}

/// What the structure-aware targets count: mutants, those read as a model, plans that fit,
/// and the mutants that panicked (reading or estimating).
#[derive(Default)]
struct Tally {
    n: usize,
    reached: usize,
    fits: usize,
    failed: Vec<String>,
}

impl Tally {
    /// Read one mutant (`read`: the model, or `None` after checking its refusal) and estimate
    /// it under every query, catching a panic anywhere.
    fn model(&mut self, what: String, read: impl FnOnce() -> Option<(Variant, Format)>) {
        match catch_unwind(AssertUnwindSafe(|| {
            read().map(|(v, f)| estimate_everywhere(&v, &f))
        })) {
            Ok(Some(fits)) => {
                self.reached += 1;
                self.fits += fits;
            }
            Ok(None) => {}
            Err(_) => self.failed.push(what),
        }
        self.n += 1;
    }

    /// Fail naming every mutant that panicked; print the counts.
    fn finish(self, label: &str, at_least: usize) {
        let Tally {
            n,
            reached,
            fits,
            failed,
        } = self;
        assert!(
            failed.is_empty(),
            "{} mutants panicked: {failed:#?}",
            failed.len()
        );
        println!(
            "{label}: {n} mutants, {reached} read as a model, each estimated under {} queries \
             ({fits} plans fit), 0 panics",
            QUERIES.len()
        );
        assert!(
            n >= at_least && reached * 20 >= n,
            "{n} mutants, {reached} read"
        );
    }
}

#[test]
fn gguf_fields() {
    let (mut t, mut r) = (Tally::default(), Rng(0x2545_F491_4F6C_DD1D));
    for name in ["gemma3.gguf", "mamba2.gguf", "deepseek2.gguf"] {
        let h = gguf::parse(&seed(name)).expect("the seed parses");
        let back = gguf::parse(&write_gguf(&h)).expect("the written seed parses");
        assert_eq!(back.kv, h.kv, "{name}: the writer keeps the metadata");
        for (what, m) in gguf_mutants(&h, random_mutants(), &mut r) {
            let bytes = write_gguf(&m);
            t.model(format!("{name}: {what}"), || match gguf::parse(&bytes) {
                Ok(h) => {
                    let size = Bytes(bytes.len() as u64 + (1 << 30));
                    gguf::to_variant(&h, "x.gguf", size)
                        .map_err(|m| one_line(&m))
                        .ok()
                }
                Err(gguf::Error::Bad(m)) => {
                    one_line(&m);
                    None
                }
                Err(gguf::Error::NeedMore(k)) => {
                    assert!(k > 0);
                    None
                }
            });
        }
    }
    t.finish("gguf fields", 500);
}

/// A JSON path: object keys and array indices.
type Path = Vec<serde_json::Value>;

/// Every leaf of `v` (with whether it is a number) and every object member.
fn json_paths(v: &serde_json::Value, at: &mut Path, out: &mut Vec<(Path, bool)>) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                at.push(k.clone().into());
                if !x.is_number() {
                    out.push((at.clone(), false));
                }
                json_paths(x, at, out);
                at.pop();
            }
        }
        serde_json::Value::Array(a) => {
            for (k, x) in a.iter().enumerate() {
                at.push(k.into());
                json_paths(x, at, out);
                at.pop();
            }
        }
        serde_json::Value::Number(_) => out.push((at.clone(), true)),
        _ => {}
    }
}

/// `v` with the value at `p` set to `f` (or removed).
fn set_json(v: &mut serde_json::Value, p: &Path, f: &Field) {
    let (last, parent) = p.split_last().expect("a path");
    let mut node = v;
    for k in parent {
        node = match k {
            serde_json::Value::String(s) => &mut node[s.as_str()],
            k => &mut node[k.as_u64().unwrap() as usize],
        };
        if node.is_null() {
            return;
        }
    }
    let new = match f {
        Field::Int(x) if *x < 0 => serde_json::json!(*x as i64),
        Field::Int(x) => serde_json::json!(*x as u64),
        Field::Float(x) => serde_json::json!(x),
        Field::Str => serde_json::json!("4096"),
        Field::Removed => serde_json::Value::Null,
    };
    match (last, f, node) {
        (serde_json::Value::String(k), Field::Removed, serde_json::Value::Object(o)) => {
            o.remove(k);
        }
        (serde_json::Value::String(k), _, node @ serde_json::Value::Object(_)) => {
            node[k.as_str()] = new
        }
        (k, _, serde_json::Value::Array(a)) => {
            if let Some(x) = a.get_mut(k.as_u64().unwrap_or(u64::MAX) as usize) {
                *x = new;
            }
        }
        _ => {}
    }
}

/// The bounds [`fitcard_estimator::catalog::Arch::absurd`] allows and one past them: several
/// fields at once at their largest accepted values reach sums and products one field cannot.
const BOUNDS: [i128; 8] = [
    4096,
    1 << 16,
    (1 << 16) + 1,
    1 << 20,
    (1 << 20) + 1,
    1 << 24,
    (1 << 24) + 1,
    u32::MAX as i128,
];

/// A random value for a field: one of [`FIELD_VALUES`] or [`BOUNDS`].
fn any_field(r: &mut Rng) -> Field {
    let k = r.below(FIELD_VALUES.len() + BOUNDS.len());
    FIELD_VALUES
        .get(k)
        .cloned()
        .unwrap_or_else(|| Field::Int(BOUNDS[k - FIELD_VALUES.len()]))
}

/// Every (path, value) mutant of a config: each number anywhere in it (nested objects and
/// arrays included) set to each value, every member removed; then `random` mutants with 2–6
/// fields changed at once.
fn config_mutants(
    v: &serde_json::Value,
    random: usize,
    r: &mut Rng,
) -> Vec<(String, serde_json::Value)> {
    let mut all = Vec::new();
    json_paths(v, &mut Vec::new(), &mut all);
    let mut out = Vec::new();
    for (p, number) in &all {
        for f in FIELD_VALUES
            .iter()
            .filter(|f| *number || matches!(f, Field::Removed))
        {
            let mut m = v.clone();
            set_json(&mut m, p, f);
            out.push((format!("{p:?} = {f:?}"), m));
        }
    }
    let numbers: Vec<&Path> = all.iter().filter(|(_, n)| *n).map(|(p, _)| p).collect();
    for b in BOUNDS {
        let mut m = v.clone();
        for p in &numbers {
            set_json(&mut m, p, &Field::Int(b));
        }
        out.push((format!("every number = {b}"), m));
    }
    for _ in 0..random {
        let mut m = v.clone();
        let mut what = Vec::new();
        for _ in 0..2 + r.below(5) {
            let (p, f) = if r.below(5) == 0 {
                (&all[r.below(all.len())].0, Field::Removed)
            } else {
                (numbers[r.below(numbers.len())], any_field(r))
            };
            set_json(&mut m, p, &f);
            what.push(format!("{p:?} = {f:?}"));
        }
        out.push((what.join(", "), m));
    }
    out
}

#[test]
fn config_fields() {
    let (mut t, mut r) = (Tally::default(), Rng(0x5DEE_CE66_D1CE_4E5B));
    for name in [
        "qwen3next.config.json",
        "gemma3.config.json",
        "deepseek.config.json",
    ] {
        let v: serde_json::Value = serde_json::from_slice(&seed(name)).unwrap();
        for (what, m) in config_mutants(&v, random_mutants(), &mut r) {
            let text = m.to_string();
            t.model(format!("{name}: {what}"), || {
                hf::to_variant("fuzz/model", &text, Bytes(1 << 33), &[])
                    .map_err(|m| one_line(&m))
                    .ok()
            });
        }
    }
    t.finish("config fields", 300);
}
