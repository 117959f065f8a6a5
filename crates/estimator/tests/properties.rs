//! Properties over arbitrary *valid* configurations (every value drawn from what the catalog and
//! the engines accept, so that every case reaches the estimator instead of a fallback): the
//! permalink round-trips exactly, and the physical laws hold — more context, more slots, a
//! larger file, a longer sequence or batch never need less memory; more cards never put more on
//! the fullest card (except where vLLM replicates KV heads, which costs memory by design).

use fitcard_estimator::catalog::{catalog, Variant};
use fitcard_estimator::estimate::Severity;
use fitcard_estimator::inputs::Key;
use fitcard_estimator::inputs::{
    limits, GradCkpt, Method, Mode, Optim, TargetModule, TargetSet, TrainInputs, Trainer,
};
use fitcard_estimator::{encode, estimate, from_query, train, Engine, GpuChoice, Inputs};
use proptest::prelude::*;
use proptest::sample::select;

fn variants() -> Vec<&'static Variant> {
    catalog()
        .families
        .iter()
        .flat_map(|f| f.variants.iter())
        .collect()
}

/// One valid serve configuration.
fn serve_inputs() -> impl Strategy<Value = Inputs> {
    (select(variants()), select(Engine::ALL.to_vec()))
        .prop_filter("the model has files for the engine", |(v, e)| {
            v.formats.iter().any(|f| f.container == e.container())
        })
        .prop_flat_map(|(v, engine)| {
            let quants: Vec<_> = v
                .formats
                .iter()
                .filter(|f| f.container == engine.container())
                .map(|f| f.id)
                .collect();
            (
                Just(v.id.clone()),
                Just(engine),
                select(quants),
                select(engine.kv_choices()),
                1u32..=v.arch.max_ctx,
                1u32..=64,
                1u32..=8,
                prop_oneof![
                    select(
                        catalog()
                            .gpus
                            .iter()
                            .map(|g| g.id.clone())
                            .collect::<Vec<_>>()
                    )
                    .prop_map(GpuChoice::Catalog),
                    (1u32..=1024).prop_map(|q| GpuChoice::VramGib(f64::from(q) / 4.0)),
                ],
                any::<bool>(),
                select(vec![64u32, 256, 512, 1024, 2048]),
                any::<bool>(),
                (5u32..=100).prop_map(|p| f64::from(p) / 100.0),
            )
        })
        .prop_map(
            |(model, engine, quant, kv, ctx, par, cards, gpu, kvu, ubatch, swa_full, util)| {
                Inputs {
                    model,
                    engine,
                    quant,
                    kv,
                    ctx,
                    par,
                    cards,
                    gpu,
                    kvu,
                    ubatch,
                    swa_full,
                    util,
                    ..Inputs::default()
                }
            },
        )
}

/// Valid train-mode inputs on top of a serve configuration.
fn train_inputs() -> impl Strategy<Value = Inputs> {
    (
        serve_inputs(),
        select(Method::ALL.to_vec()),
        1u32..=256,
        1u32..=16,
        1u32..=65_536,
        select(GradCkpt::ALL.to_vec()),
        select(Optim::ALL.to_vec()),
        1u8..=127,
        prop::collection::vec(0u32..=320, 0..=4),
        select(Trainer::ALL.to_vec()),
    )
        .prop_map(
            |(i, method, rank, bsz, seq, gc, optim, bits, free, trainer)| {
                let targets = TargetModule::ALL
                    .iter()
                    .enumerate()
                    .fold(TargetSet::EMPTY, |s, (k, &m)| {
                        s.with(m, bits & (1 << k) != 0)
                    });
                let free: Vec<f64> = free.into_iter().map(|q| f64::from(q) / 4.0).collect();
                Inputs {
                    mode: Mode::Train,
                    // `free` lists the GPUs when given; `cards` then stays at its default.
                    cards: if free.is_empty() { i.cards } else { 1 },
                    train: TrainInputs {
                        method,
                        rank,
                        bsz,
                        seq,
                        gc,
                        optim,
                        targets,
                        free,
                        pick: Vec::new(),
                        trainer,
                    },
                    ..i
                }
            },
        )
}

fn device(i: &Inputs) -> u64 {
    estimate(i).total_device_bytes.get()
}

fn fullest(i: &Inputs) -> u64 {
    estimate(i)
        .per_card
        .iter()
        .map(|c| c.bytes.get())
        .max()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// Every valid configuration is a fixed point of the permalink.
    #[test]
    fn permalinks_round_trip(i in prop_oneof![serve_inputs(), train_inputs()], embed in any::<bool>()) {
        let i = Inputs { embed, ..i };
        let d = from_query(&encode(&i));
        prop_assert!(d.clean(), "{}: {:?}", encode(&i), d.notices);
        prop_assert_eq!(d.inputs, i);
    }

    /// Cards sum to the totals; `fits` is the AND of the hard checks; the verdict agrees.
    #[test]
    fn estimates_are_consistent(i in serve_inputs()) {
        let e = estimate(&i);
        let sum: u64 = e.per_card.iter().map(|c| c.bytes.get()).sum();
        prop_assert_eq!(sum, e.total_device_bytes.get());
        prop_assert_eq!(e.per_card.len() as u32, i.cards);
        let hard = e.checks.iter().filter(|c| c.severity == Severity::Hard).all(|c| c.ok);
        prop_assert_eq!(e.fits, hard);
        prop_assert_eq!(e.fits, e.verdict != fitcard_estimator::Verdict::DoesNotFit);
    }

    /// More context or more slots never need less memory, on the same plan: vLLM and SGLang on
    /// several cards keep the tensor × pipeline split chosen for the smaller request (unpinned,
    /// a longer context may move them to another split, which holds its own pool).
    #[test]
    fn context_and_slots_are_monotone(i in serve_inputs(), dctx in 0u32..=65_536, dpar in 0u32..=8) {
        let mut i = i;
        if let Some(p) = estimate(&i).parallel {
            i.tp = Some(p.tp);
        }
        let more_ctx = Inputs { ctx: (i.ctx + dctx).min(limits::CTX.1), ..i.clone() };
        prop_assert!(device(&more_ctx) >= device(&i));
        let more_par = Inputs { par: i.par + dpar, ..i.clone() };
        // An encoder's micro-batch is rounded up to a multiple of the slots (llama.cpp's
        // graph_reserve, src/llama-context.cpp), so one more slot can round it down by up to
        // `par - 1` tokens of compute buffer, as llama.cpp allocates: held within that.
        let encoder = fitcard_estimator::catalog::catalog()
            .variant(&i.model)
            .is_some_and(|(_, v)| fitcard_estimator::catalog::is_encoder(&v.arch));
        let slack = if encoder { u64::from(i.par) * (1 << 16) } else { 0 };
        prop_assert!(device(&more_par) + slack >= device(&i));
    }

    /// A larger file of the same model never needs less memory, on the same plan: vLLM and
    /// SGLang on several cards keep the tensor × pipeline split chosen for the smallest file
    /// (unpinned, a larger file may move them to another split, whose pool differs: Qwen3-30B-A3B
    /// FP8 runs `--tp-size 8`, BF16 only fits as 4 × 2).
    #[test]
    fn larger_files_need_more(i in serve_inputs()) {
        let (_, v) = catalog().variant(&i.model).unwrap();
        // The file each format id selects (the first listed, as the estimator takes it).
        let mut files: Vec<_> = v.formats.iter().filter(|f| f.container == i.engine.container()).collect();
        let mut seen = Vec::new();
        files.retain(|f| !seen.contains(&f.id) && { seen.push(f.id); true });
        files.sort_by_key(|f| f.bytes);
        let mut i = i;
        if let Some(f) = files.first() {
            if let Some(p) = estimate(&Inputs { quant: f.id, ..i.clone() }).parallel {
                i.tp = Some(p.tp);
            }
        }
        let totals: Vec<u64> = files
            .iter()
            .map(|f| device(&Inputs { quant: f.id, ..i.clone() }))
            .collect();
        prop_assert!(totals.windows(2).all(|w| w[0] <= w[1]), "{:?}", totals);
    }

    /// More cards in the same layout never put more on the fullest card — except on vLLM and
    /// SGLang, whose tensor parallelism replicates KV heads when the cards outnumber them.
    /// (Across layouts it can: 28 layers on 8 cards by tensor parallelism hold 1/8 each, on 9
    /// cards by layer split the first holds 4 of 28.) Exact splits hand leftover bytes to the
    /// first cards, one each, so equal shares may differ by up to one byte per term and card.
    #[test]
    fn more_cards_never_fill_a_card_more(i in serve_inputs(), extra in 1u32..=4) {
        prop_assume!(!i.engine.preallocates());
        let more = Inputs { cards: (i.cards + extra).min(limits::CARDS.1), ..i.clone() };
        prop_assume!(estimate(&more).layout == estimate(&i).layout);
        prop_assert!(fullest(&more) <= fullest(&i) + 3 * u64::from(more.cards));
    }

    /// Training: a longer sequence, a bigger batch or a higher rank never needs less memory.
    #[test]
    fn training_is_monotone(i in train_inputs(), ds in 0u32..=8192, db in 0u32..=4, dr in 0u32..=64) {
        let total = |j: &Inputs| train::estimate(j).estimate.total_device_bytes.get();
        let mut j = i.clone();
        j.train.seq += ds;
        prop_assert!(total(&j) >= total(&i));
        let mut j = i.clone();
        j.train.bsz += db;
        prop_assert!(total(&j) >= total(&i));
        let mut j = i.clone();
        j.train.rank += dr;
        prop_assert!(total(&j) >= total(&i));
    }
}

/// Every key of the query string, each with valid, extreme and malformed values.
fn any_query() -> impl Strategy<Value = String> {
    let keys = vec![
        "v", "mode", "model", "quant", "ctx", "par", "cards", "gpu", "vram", "gpus", "engine",
        "kv", "kvk", "kvv", "kvu", "ubatch", "swafull", "util", "gl", "method", "rank", "bsz",
        "seq", "gc", "optim", "targets", "free", "pick", "embed", "images", "reserve", "ngl",
        "nkvo", "ncmoe", "tp", "pp", "mmproj", "loras", "lorarank", "rsseq",
    ];
    let values = prop_oneof![
        select(vec![
            "1",
            "0",
            "2",
            "64",
            "4096",
            "131072",
            "4194304",
            "4194305",
            "-1",
            "1e309",
            "NaN",
            "0.9",
            "train",
            "serve",
            "sglang",
            "vllm",
            "ollama",
            "transformers",
            "llama.cpp",
            "auto",
            "bf16",
            "fp8_e5m2",
            "q4_1",
            "iq4_nl",
            "Q4_K_M",
            "BF16",
            "AWQ",
            "MXFP4",
            "rtx-4090,rtx-3060-12gb",
            "h100-sxm,h100-sxm,l4",
            "24,24,0",
            "0,1,2,3",
            "q,k",
            "full",
            "google/gemma-3-27b-it",
            "Qwen/Qwen3-8B",
            "openai/gpt-oss-20b",
            "%FF%00",
            "%+A",
        ])
        .prop_map(str::to_string),
        "[ -~]{0,12}",
    ];
    prop::collection::vec((select(keys), values), 0..12).prop_map(|kv| {
        kv.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// Any mix of the real keys: decoding, estimating (serve and train), ranking, solving and
    /// the badge never panic, every number is finite, and the decoded inputs round-trip.
    #[test]
    fn structured_queries_are_safe(q in any_query()) {
        let d = from_query(&q);
        let i = &d.inputs;
        let e = estimate(i);
        let sum: u64 = e.per_card.iter().map(|c| c.bytes.get()).sum();
        prop_assert_eq!(sum, e.total_device_bytes.get());
        if let Some(s) = &e.speed {
            prop_assert!(s.decode_tps.is_finite() && s.aggregate_tps.is_finite());
        }
        if let Some(c) = e.max_concurrency {
            prop_assert!(c.is_finite());
        }
        let t = train::estimate(i);
        prop_assert!(t.estimate.total_device_bytes.get() > 0 || t.estimate.terms.is_empty());
        let _ = fitcard_estimator::rank(i);
        let _ = fitcard_estimator::badge::svg(&e, i);
        let _ = fitcard_estimator::solve::solve(i, fitcard_estimator::solve::Target::Par);
        let back = from_query(&encode(i));
        prop_assert!(back.notices.iter().all(|n| n.key == Key::Cards), "{:?}", back.notices);
        prop_assert_eq!(&back.inputs, i);
    }
}

proptest! {
    /// The page's decimal reader gives the same double as the standard library on everything a
    /// link or a number box holds: up to 15 significant digits, a decimal point anywhere, an
    /// optional sign and exponent.
    #[test]
    fn decimal_reader_matches_std_on_typed_numbers(
        neg in any::<bool>(),
        int in 0u64..1_000_000_000,
        frac in proptest::option::of("[0-9]{1,6}"),
        exp in proptest::option::of(-30i32..30),
    ) {
        let mut s = format!("{}{int}", if neg { "-" } else { "" });
        if let Some(f) = &frac {
            s.push('.');
            s.push_str(f);
        }
        if let Some(e) = exp {
            s.push_str(&format!("e{e}"));
        }
        let want: f64 = s.parse().unwrap();
        let got = fitcard_estimator::units::parse_decimal(&s).unwrap();
        // Within the fast path the two are bit-identical; beyond 10^22 a few steps of rounding.
        if exp.is_none_or(|e| e.abs() <= 15) {
            prop_assert_eq!(got.to_bits(), want.to_bits(), "{}", s);
        } else {
            prop_assert!((got - want).abs() <= want.abs() * 1e-14, "{} {} {}", s, got, want);
        }
    }

    /// Any string: a number the reader accepts is one the standard library accepts, with the
    /// same value; what it refuses is refused or not finite there (`inf`, `NaN`).
    #[test]
    fn decimal_reader_never_invents_numbers(s in "[-+0-9.eE_a-z ]{0,24}") {
        let std: Option<f64> = s.parse().ok();
        match fitcard_estimator::units::parse_decimal(&s) {
            Some(x) => {
                let want = std.expect("std accepts it too");
                prop_assert!(x == want || (x - want).abs() <= want.abs() * 1e-14, "{} {} {}", s, x, want);
            }
            None => prop_assert!(std.is_none_or(|v| !v.is_finite()), "{}", s),
        }
    }
}
