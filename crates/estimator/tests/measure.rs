//! The seed's method for the quantity you cannot look up: the global-layer share from the slope
//! of VRAM against context, with its three conditions (concurrency 1, ≥ 3 points, collinear).

use fitcard_estimator::measure::{global_share, Point};
use fitcard_estimator::terms::kv::{llama, LlamaParams};
use fitcard_estimator::{catalog, decode, estimate, KvDtype};

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
            let d = decode(&format!(
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
    use fitcard_estimator::{decode, encode, estimate};
    let kv = |q: &str| {
        let d = decode(q);
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
    let d = decode(&format!("{base}&gl=11.6"));
    assert_eq!(decode(&encode(&d.inputs)).inputs, d.inputs);
    let bad = decode(&format!("{base}&gl=99"));
    assert!(
        bad.notices.iter().any(|n| n.key == "gl"),
        "{:?}",
        bad.notices
    );
    assert_eq!(bad.inputs.gl, None);
}
