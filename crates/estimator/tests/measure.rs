//! The seed's method for the quantity you cannot look up: the global-layer share from the slope
//! of VRAM against context, with its three conditions (concurrency 1, ≥ 3 points, collinear).

use fitcard_estimator::inputs::Key;
use fitcard_estimator::measure::{global_share, Point};
use fitcard_estimator::terms::kv::{llama, LlamaParams};
use fitcard_estimator::{catalog, estimate, from_query, KvDtype};

fn arch(id: &str) -> fitcard_estimator::catalog::Arch {
    catalog().variant(id).unwrap().1.arch.clone()
}

/// KV alone, by llama.cpp's rules: the slope recovers the global layers exactly
/// (gemma-3-27b: 10 global of 62; gemma-3n-E4B: 4 global of the 20 KV-owning layers).
#[test]
fn pure_kv_slope_recovers_global_layers() {
    for (id, global) in [
        ("google/gemma-3-27b-it", 10.0),
        ("google/gemma-3n-E4B-it", 4.0),
        ("Qwen/Qwen3-8B", 36.0),
    ] {
        let a = arch(id);
        let pts: Vec<Point> = [8192u64, 16384, 32768, 65536]
            .iter()
            .map(|&c| Point {
                ctx: c,
                bytes: llama(&a, &LlamaParams::new(c, 1, false, KvDtype::F16))
                    .bytes
                    .as_f64(),
            })
            .collect();
        let g = global_share(&pts, &a, KvDtype::F16).unwrap();
        assert!(
            (g.global_layers - global).abs() < 1e-9,
            "{id}: {}",
            g.global_layers
        );
        assert_eq!(g.expected_global_layers as f64, global);
    }
}

/// Whole-card readings (weights + KV + overhead, as nvidia-smi would see them) also carry the
/// overhead's context slope (0.35 GiB per 128K tokens), so the share comes out slightly high —
/// "roughly", as the seed says; rounding gives the true count.
#[test]
fn whole_card_readings_give_roughly_the_share() {
    let pts: Vec<Point> = [8192u32, 16384, 32768, 65536]
        .iter()
        .map(|&c| {
            let d = from_query(&format!(
                "model=google/gemma-3-27b-it&quant=Q4_K_M&engine=llama.cpp&ctx={c}&par=1&vram=96"
            ));
            Point {
                ctx: c as u64,
                bytes: estimate(&d.inputs).total_device_bytes.as_f64(),
            }
        })
        .collect();
    let g = global_share(&pts, &arch("google/gemma-3-27b-it"), KvDtype::F16).unwrap();
    assert_eq!(g.global_layers.round(), 10.0);
    assert!(
        g.global_layers > 10.0 && g.global_layers < 10.5,
        "{}",
        g.global_layers
    );
}

#[test]
fn refuses_what_the_seed_warns_about() {
    let a = arch("google/gemma-3-27b-it");
    let p = |ctx, gib: f64| Point {
        ctx,
        bytes: gib * (1u64 << 30) as f64,
    };
    // Two points always form a line.
    assert!(
        global_share(&[p(8192, 20.0), p(16384, 21.0)], &a, KvDtype::F16)
            .unwrap_err()
            .contains("three")
    );
    // A step between the 2nd and 3rd point: not collinear.
    let e = global_share(
        &[p(8192, 20.0), p(16384, 20.6), p(32768, 23.0)],
        &a,
        KvDtype::F16,
    )
    .unwrap_err();
    assert!(e.contains("not collinear"), "{e}");
    // No growth: the engine was not restarted per context, or read mid-load.
    assert!(global_share(
        &[p(8192, 20.0), p(16384, 20.0), p(32768, 20.0)],
        &a,
        KvDtype::F16
    )
    .is_err());
    // Garbage readings.
    assert!(global_share(
        &[p(8192, f64::NAN), p(16384, 1.0), p(32768, 2.0)],
        &a,
        KvDtype::F16
    )
    .is_err());
    assert!(global_share(
        &[p(8192, 1.0), p(8192, 2.0), p(32768, 3.0)],
        &a,
        KvDtype::F16
    )
    .is_err());
}

/// A measured global-layer count travels in the permalink (`gl=`) and replaces the catalog's
/// layout for the KV cache of that model only; a count above the model's layers is refused.
#[test]
fn calibrated_global_layers_override_the_layout() {
    use fitcard_estimator::{encode, estimate, from_query};
    let kv = |q: &str| {
        let d = from_query(q);
        assert!(d.clean(), "{q}: {:?}", d.notices);
        let e = estimate(&d.inputs);
        e.terms
            .iter()
            .find(|t| t.name.id() == "kv_cache")
            .unwrap()
            .bytes
            .get()
    };
    let base = "model=google/gemma-3-27b-it&ctx=32768";
    // gemma-3-27b: 10 global of 62; 12 measured adds 2 × (32768 − 1536) cells × 8 KiB.
    let delta = kv(&format!("{base}&gl=12")) - kv(base);
    assert_eq!(delta, 2 * (32768 - 1536) * 8192);
    assert_eq!(kv(&format!("{base}&gl=10")), kv(base));
    let d = from_query(&format!("{base}&gl=11.6"));
    assert_eq!(from_query(&encode(&d.inputs)).inputs, d.inputs);
    let bad = from_query(&format!("{base}&gl=99"));
    assert!(
        bad.notices.iter().any(|n| n.key == Key::Gl),
        "{:?}",
        bad.notices
    );
    assert_eq!(bad.inputs.gl, None);
}

/// Whole-card readings made from a known global-layer count: weights and fixed overhead (the
/// intercept) plus `gl × per-layer rate × context`. The fit recovers the count exactly, with
/// R² = 1, zero residuals, nothing off the line, and the link key that applies it.
#[test]
fn synthetic_lines_recover_the_count_exactly() {
    use fitcard_estimator::measure::calibrate;
    let a = arch("google/gemma-3-27b-it");
    // 16 KV heads × 128 × 2 B × (K + V) = 8 KiB per token and layer at f16.
    let rate = 8192.0;
    for (gl, kv, r) in [
        (10u32, KvDtype::F16, rate),
        (7, KvDtype::F16, rate),
        (14, KvDtype::F16, rate),
        (62, KvDtype::F16, rate),
        (
            10,
            KvDtype::Ggml(fitcard_estimator::GgmlType::Q8_0),
            rate * 34.0 / 64.0,
        ),
    ] {
        let pts: Vec<Point> = [4096u64, 8192, 16384, 32768, 65536]
            .iter()
            .map(|&c| Point {
                ctx: c,
                bytes: 17.25 * (1u64 << 30) as f64 + f64::from(gl) * r * c as f64,
            })
            .collect();
        let g = calibrate(&pts, &a, kv).unwrap();
        assert!(
            (g.global_layers - f64::from(gl)).abs() < 1e-6,
            "{gl}: {}",
            g.global_layers
        );
        assert!((g.per_layer_token - r).abs() < 1e-9);
        assert!((g.r2 - 1.0).abs() < 1e-12, "{}", g.r2);
        assert!((g.intercept_bytes / (1u64 << 30) as f64 - 17.25).abs() < 1e-6);
        assert!(g
            .points
            .iter()
            .all(|p| p.residual.abs() < 1.0 && !p.off_line));
        assert_eq!(g.off_line, None);
        assert_eq!(g.gl, format!("gl={gl}"));
        assert!((g.share - f64::from(gl) / 62.0).abs() < 1e-9);
        // The catalog's assumption beside it.
        assert_eq!(g.expected_global_layers, 10);
        assert!((g.expected_bytes_per_token - 10.0 * r).abs() < 1e-9);
        assert!((g.expected_share - 10.0 / 62.0).abs() < 1e-12);
        assert_eq!(
            g.comparison.contains("they agree"),
            gl == 10,
            "{}",
            g.comparison
        );
        // global_share is the same fit when nothing is off the line.
        assert_eq!(global_share(&pts, &a, kv).unwrap(), g);
    }
}

/// A small deterministic noise source (xorshift), uniform in [-1, 1).
fn noise(seed: &mut u64) -> f64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    (*seed >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// Readings as nvidia-smi gives them: rounded to MiB, with ±16 MiB of jitter (other allocations,
/// the allocator's 2 MiB blocks). Tolerance: the recovered count within 0.15 layers of the true
/// one over 8K…64K (the least-squares slope error is at most ~2 × 16 MiB / 56K tokens ≈ 600
/// bytes/token, 0.07 layers at 8 KiB per layer; twice that as margin), so rounding gives the
/// true count; nothing is flagged and R² stays above 0.999.
#[test]
fn noisy_readings_recover_the_count_within_tolerance() {
    use fitcard_estimator::measure::calibrate;
    let a = arch("google/gemma-3-27b-it");
    let mib = 1048576.0;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for gl in [6u32, 10, 12, 20] {
        for _ in 0..50 {
            let pts: Vec<Point> = [8192u64, 16384, 32768, 49152, 65536]
                .iter()
                .map(|&c| {
                    let exact = 17.0 * 1024.0 * mib + f64::from(gl) * 8192.0 * c as f64;
                    Point {
                        ctx: c,
                        bytes: ((exact + 16.0 * mib * noise(&mut seed)) / mib).round() * mib,
                    }
                })
                .collect();
            let g = calibrate(&pts, &a, KvDtype::F16).unwrap();
            assert!(
                (g.global_layers - f64::from(gl)).abs() <= 0.15,
                "{gl}: {}",
                g.global_layers
            );
            assert_eq!(g.global_layers.round(), f64::from(gl));
            assert_eq!(g.off_line, None, "{pts:?}");
            assert!(g.r2 > 0.999, "{}", g.r2);
        }
    }
}

/// A point off the line is named by its context; a change of slope is named by the stretch
/// where it happens; three points can only say that one of them moved. The same readings are
/// refused by `global_share` with that message.
#[test]
fn a_point_off_the_line_is_named() {
    use fitcard_estimator::measure::calibrate;
    let a = arch("google/gemma-3-27b-it");
    let gib = (1u64 << 30) as f64;
    let on = |c: u64| 18.0 * gib + 10.0 * 8192.0 * c as f64;
    let ctxs = [8192u64, 16384, 32768, 49152, 65536];
    // One reading 1 GiB high (another process started): that point, by name.
    let pts: Vec<Point> = ctxs
        .iter()
        .map(|&c| Point {
            ctx: c,
            bytes: on(c) + if c == 32768 { gib } else { 0.0 },
        })
        .collect();
    let g = calibrate(&pts, &a, KvDtype::F16).unwrap();
    let o = g.off_line.clone().unwrap();
    assert_eq!(o.ctx, Some(32768));
    assert!(o.message.contains("point at 32768 tokens"), "{}", o.message);
    assert!(o.message.contains("something else is active here"));
    assert!(o.message.contains("above the line"));
    assert_eq!(
        g.points
            .iter()
            .filter(|p| p.off_line)
            .map(|p| p.ctx)
            .collect::<Vec<_>>(),
        [32768]
    );
    assert!(g.r2 < 0.99);
    let e = global_share(&pts, &a, KvDtype::F16).unwrap_err();
    assert_eq!(e, o.message);
    // A step: from 32768 tokens on the engine holds 1.5 GiB more (an allocation strategy that
    // changes with the context). No single point explains it: the stretch is named.
    let pts: Vec<Point> = ctxs
        .iter()
        .map(|&c| Point {
            ctx: c,
            bytes: on(c) + if c >= 32768 { 1.5 * gib } else { 0.0 },
        })
        .collect();
    let g = calibrate(&pts, &a, KvDtype::F16).unwrap();
    let o = g.off_line.unwrap();
    assert_eq!(o.ctx, None);
    assert!(
        o.message.contains("between 16384 and 32768 tokens"),
        "{}",
        o.message
    );
    assert!(o.message.contains("something else is active here"));
    assert!(g.points.iter().any(|p| p.off_line));
    // Three points: which one moved cannot be told.
    let pts: Vec<Point> = [8192u64, 16384, 32768]
        .iter()
        .map(|&c| Point {
            ctx: c,
            bytes: on(c) + if c == 32768 { gib } else { 0.0 },
        })
        .collect();
    let o = calibrate(&pts, &a, KvDtype::F16).unwrap().off_line.unwrap();
    assert_eq!(o.ctx, None);
    assert!(o.message.contains("add a fourth point"), "{}", o.message);
    // Every message is one line.
    assert!(!o.message.contains('\n'));
}

/// Latent-attention caches are not K/V heads: refused by name. More than 64 points: refused.
#[test]
fn out_of_domain_is_refused() {
    use fitcard_estimator::measure::calibrate;
    let mla = catalog()
        .families
        .iter()
        .flat_map(|f| &f.variants)
        .find(|v| v.arch.mla.is_some())
        .expect("a latent-attention model in the catalog");
    let pts: Vec<Point> = [8192u64, 16384, 32768]
        .iter()
        .map(|&c| Point {
            ctx: c,
            bytes: c as f64 * 1000.0,
        })
        .collect();
    let e = calibrate(&pts, &mla.arch, KvDtype::F16).unwrap_err();
    assert!(e.contains("latent attention"), "{e}");
    let many: Vec<Point> = (1..=65u64)
        .map(|c| Point {
            ctx: c * 1024,
            bytes: c as f64 * 1e6,
        })
        .collect();
    assert!(calibrate(&many, &arch("Qwen/Qwen3-8B"), KvDtype::F16).is_err());
}

/// The key a calibration writes is the key the permalink reads: decoded clean, round-tripped,
/// and the KV term moves to the measured layout (12 global layers of gemma-3-27b: 2 more than
/// the catalog's 10, each 8 KiB per cell above the 1,536 cells a sliding layer keeps).
/// Bounded: negative, non-numeric, infinite and over-the-layers values are one notice each.
#[test]
fn calibration_key_applies_in_the_kv_term() {
    use fitcard_estimator::measure::calibrate;
    use fitcard_estimator::{encode, from_query};
    let a = arch("google/gemma-3-27b-it");
    let pts: Vec<Point> = [8192u64, 16384, 32768, 65536]
        .iter()
        .map(|&c| Point {
            ctx: c,
            bytes: 18.0 * (1u64 << 30) as f64 + 12.0 * 8192.0 * c as f64,
        })
        .collect();
    let g = calibrate(&pts, &a, KvDtype::F16).unwrap();
    assert_eq!(g.gl, "gl=12");
    let kv = |q: &str| {
        let d = from_query(q);
        assert!(d.clean(), "{q}: {:?}", d.notices);
        assert_eq!(from_query(&encode(&d.inputs)).inputs, d.inputs, "{q}");
        estimate(&d.inputs)
            .terms
            .iter()
            .find(|t| t.name.id() == "kv_cache")
            .unwrap()
            .bytes
            .get()
    };
    let base = "model=google/gemma-3-27b-it&ctx=32768";
    let with = format!("{base}&{}", g.gl);
    assert!(encode(&from_query(&with).inputs).contains("gl=12"));
    assert_eq!(kv(&with) - kv(base), 2 * (32768 - 1536) * 8192);
    for bad in ["gl=-1", "gl=abc", "gl=1e999", "gl=63", "gl=NaN"] {
        let d = from_query(&format!("{base}&{bad}"));
        let n: Vec<_> = d.notices.iter().filter(|n| n.key == Key::Gl).collect();
        assert_eq!(n.len(), 1, "{bad}: {:?}", d.notices);
        assert!(!n[0].message.contains('\n') && n[0].message.len() < 300);
        assert_eq!(d.inputs.gl, None, "{bad}");
    }
}

/// The measuring loop, per engine: concurrency pinned to 1 with the engine's own flag, a wait
/// for the model to load, one inference, the card read with nvidia-smi (or, where the KV pool is
/// preallocated, the pool read from the startup log), every context past the sliding window.
/// A pure function: the same text for the same inputs.
#[test]
fn how_to_measure_per_engine() {
    use fitcard_estimator::measure::{how_to_measure, measuring_contexts};
    let cases = [
        (
            "model=google/gemma-3-27b-it&engine=llama.cpp",
            &[
                "-np 1",
                "/health",
                "/completion",
                "nvidia-smi",
                "fitcard measure",
            ][..],
        ),
        (
            "model=Qwen/Qwen3-8B&engine=ollama",
            &[
                "OLLAMA_NUM_PARALLEL=1",
                "api/version",
                "'Hello'",
                "nvidia-smi",
                "fitcard measure",
            ],
        ),
        (
            "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpu=h100-sxm",
            &[
                "--max-num-seqs 1",
                "/health",
                "GPU KV cache size",
                "Available KV cache memory",
                "4096 bytes per token",
            ],
        ),
        (
            "model=Qwen/Qwen3-8B&engine=sglang&quant=BF16&gpu=h100-sxm",
            &[
                "--max-running-requests 1",
                "/health",
                "KV Cache is allocated",
            ],
        ),
        (
            "model=Qwen/Qwen3-8B&engine=transformers&quant=BF16&gpu=h100-sxm",
            &[
                "(1, c)",
                "logits_to_keep=1",
                "nvidia-smi",
                "fitcard measure",
            ],
        ),
    ];
    for (q, want) in cases {
        let d = from_query(q);
        assert!(d.clean(), "{q}: {:?}", d.notices);
        let t = how_to_measure(&d.inputs).unwrap();
        for w in want {
            assert!(t.contains(w), "{q}: no {w:?} in\n{t}");
        }
        assert_eq!(t, how_to_measure(&d.inputs).unwrap());
        assert!(t.contains("for C in ") && t.contains("$C"), "{t}");
        let c = measuring_contexts(&d.inputs).unwrap();
        assert_eq!(c.len(), 4);
        assert!(c.windows(2).all(|w| w[0] < w[1]));
        let a = &catalog().variant(&d.inputs.model).unwrap().1.arch;
        if let Some(w) = a.swa {
            assert!(c[0] > w.window, "{q}: {c:?}");
        }
        // The longest context fits at concurrency 1.
        let mut j = d.inputs.clone();
        j.par = 1;
        j.ctx = c[3];
        assert!(estimate(&j).fits, "{q}: {c:?}");
    }
    // The window pushes the points up (gemma-2: 4,096-token window, 8,192 context).
    let d = from_query("model=google/gemma-2-9b-it&engine=llama.cpp");
    let c = measuring_contexts(&d.inputs).unwrap();
    assert!(c[0] >= 4096 + 512, "{c:?}");
    // Nothing fits: said in one line.
    let d = from_query("model=meta-llama/Llama-3.1-70B-Instruct&quant=Q8_0&vram=4");
    let e = how_to_measure(&d.inputs).unwrap_err();
    assert!(!e.contains('\n'), "{e}");
}
