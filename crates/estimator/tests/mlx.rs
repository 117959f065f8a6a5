//! MLX (mlx-lm) as an engine: its cache (steps of 256 tokens, sliding layers capped at the
//! window), the wired-memory share of a Mac's RAM, the refusals (no MLX weights, not an Apple
//! GPU, several cards), its command, and its formats' sizes.

use fitcard_estimator::catalog::quant::Container;
use fitcard_estimator::catalog::SizeKind;
use fitcard_estimator::estimate::CheckName;
use fitcard_estimator::serve::support::{default_wired_limit, wired_limit_words};
use fitcard_estimator::terms::kv::{mlx, mlx_cells, MLX_STEP};
use fitcard_estimator::units::{Bytes, GIB, MIB};
use fitcard_estimator::{catalog, estimate, from_query, Engine, KvDtype, Quant};

#[test]
fn the_engine_parses_and_old_spellings_still_do() {
    assert_eq!("mlx".parse::<Engine>(), Ok(Engine::Mlx));
    assert_eq!("mlx-lm".parse::<Engine>(), Ok(Engine::Mlx));
    assert_eq!("vllm".parse::<Engine>(), Ok(Engine::Vllm));
    assert_eq!(Engine::Mlx.id(), "mlx");
    assert_eq!(Engine::Mlx.container(), Container::Mlx);
    let d = from_query("model=Qwen/Qwen3-8B&engine=mlx&quant=MLX-4bit&gpu=m4-max-128gb");
    assert_eq!(d.inputs.engine, Engine::Mlx);
    assert_eq!(d.inputs.quant, Quant::Mlx4);
}

#[test]
fn the_cache_grows_in_steps_of_256_and_sliding_layers_stop_at_the_window() {
    // (ctx, window, cells): KVCache pads to whole steps; RotatingKVCache(max_size=window)
    // grows by the same steps and stops at the window.
    let rows: &[(u64, Option<u64>, u64)] = &[
        (1, None, 256),
        (256, None, 256),
        (257, None, 512),
        (4096, None, 4096),
        (4097, None, 4352),
        (32768, None, 32768),
        (100, Some(512), 256),
        (300, Some(512), 512),
        (4096, Some(512), 512),
        (4096, Some(1000), 1000),
        (700, Some(1000), 768),
    ];
    for &(ctx, w, cells) in rows {
        assert_eq!(mlx_cells(ctx, w), cells, "ctx {ctx}, window {w:?}");
    }
    assert_eq!(MLX_STEP, 256);
}

#[test]
fn the_kv_term_is_per_request_bytes_times_requests() {
    let (_, v) = catalog().variant("Qwen/Qwen3-8B").unwrap();
    let a = &v.arch;
    // Qwen3-8B: 36 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 147,456 B per token.
    let per_token = 36 * 8 * 128 * 2 * 2;
    assert_eq!(mlx(a, 4096, 1, KvDtype::Auto), Bytes(4096 * per_token));
    assert_eq!(mlx(a, 4097, 1, KvDtype::Auto), Bytes(4352 * per_token));
    assert_eq!(mlx(a, 4096, 3, KvDtype::Auto), Bytes(3 * 4096 * per_token));
    // A sliding-window model: gemma-3's local layers hold the window, not the context.
    let (_, g) = catalog().variant("google/gemma-3-12b-it").unwrap();
    let w = g.arch.swa.unwrap().window as u64;
    let (globals, locals) = g.arch.kv_layer_split();
    let cell = g.arch.kv_heads as u64 * g.arch.head_dim * 2 * 2;
    let want = (32768 * u64::from(globals) + w.min(32768) * u64::from(locals)) * cell;
    assert_eq!(mlx(&g.arch, 32768, 1, KvDtype::Auto), Bytes(want));
    assert!(mlx(&g.arch, 32768, 1, KvDtype::Auto) < mlx(&g.arch, 65536, 1, KvDtype::Auto));
}

#[test]
fn the_default_wired_share_matches_the_printed_working_sets() {
    // (RAM GiB, recommendedMaxWorkingSetSize MiB as printed): sources in
    // support::default_wired_limit.
    let rows: &[(u64, f64)] = &[
        (16, 10922.67),
        (32, 21845.34),
        (64, 49152.0),
        (96, 73728.0),
        (128, 98304.0),
        (192, 147456.0),
    ];
    for &(ram, printed) in rows {
        let got = default_wired_limit(Bytes(ram * GIB)).get() as f64 / MIB as f64;
        assert!(
            (got - printed).abs() < 0.5,
            "{ram} GiB: {got:.2} MiB, printed {printed}"
        );
    }
    // The catalog's Apple machines measured before macOS 26 carry exactly that share.
    for id in [
        "m1-max-64gb",
        "m2-max-96gb",
        "m2-ultra-192gb",
        "m3-max-128gb",
    ] {
        let g = catalog().gpu(id).unwrap();
        assert_eq!(
            default_wired_limit(g.ram_bytes.unwrap()),
            g.vram_bytes,
            "{id}"
        );
    }
    let g = catalog().gpu("m2-max-32gb").unwrap();
    let rule = default_wired_limit(g.ram_bytes.unwrap()).get() as f64;
    assert!((rule - g.vram_bytes.get() as f64).abs() < MIB as f64);
}

#[test]
fn over_the_share_the_check_says_how_to_raise_it() {
    let g = catalog().gpu("m3-max-128gb").unwrap();
    let w = wired_limit_words(g, Bytes(100 * GIB)).unwrap();
    assert!(w.contains("sudo sysctl iogpu.wired_limit_mb=102400"), "{w}");
    let w = wired_limit_words(g, Bytes(125 * GIB)).unwrap();
    assert!(w.contains("cannot"), "{w}");
    assert!(wired_limit_words(catalog().gpu("rtx-4090").unwrap(), Bytes(GIB)).is_none());
    // Through the estimate: Qwen3-14B 8-bit, two requests of 32K tokens on a 32 GB Mac.
    let e = estimate(
        &from_query(
            "model=Qwen/Qwen3-14B&engine=mlx&quant=MLX-8bit&gpu=m2-max-32gb&ctx=32768&par=2",
        )
        .inputs,
    );
    assert!(!e.fits);
    let c = e
        .checks
        .iter()
        .find(|c| c.name == CheckName::VramPerCard)
        .unwrap();
    assert!(c.message.contains("iogpu.wired_limit_mb"), "{}", c.message);
}

#[test]
fn mlx_refuses_other_cards_other_formats_and_several_cards() {
    let e =
        estimate(&from_query("model=Qwen/Qwen3-8B&engine=mlx&quant=MLX-4bit&gpu=rtx-4090").inputs);
    assert!(!e.fits);
    let c = e
        .checks
        .iter()
        .find(|c| c.name == CheckName::EngineSupports)
        .expect("an engine_supports check");
    assert!(
        !c.ok && c.message.contains("Apple silicon"),
        "{}",
        c.message
    );
    // A model with no MLX weights in the catalog: no format for MLX.
    let e = estimate(&from_query("model=Qwen/Qwen3-32B&engine=mlx&gpu=m3-max-128gb").inputs);
    assert!(!e.fits);
    assert!(
        e.reasons().iter().any(|r| r.contains("no MLX files")),
        "{:?}",
        e.reasons()
    );
    let e = estimate(
        &from_query("model=Qwen/Qwen3-8B&engine=mlx&quant=MLX-4bit&gpu=m3-max-128gb&cards=2")
            .inputs,
    );
    assert!(!e.fits);
    // And on an Apple machine it runs.
    let e = estimate(
        &from_query(
            "model=Qwen/Qwen3-8B&engine=mlx&quant=MLX-4bit&gpu=m4-max-128gb&ctx=8192&par=1",
        )
        .inputs,
    );
    assert!(e.fits, "{:?}", e.reasons());
}

#[test]
fn the_command_writes_concurrency_and_the_cache_bound() {
    let e = estimate(
        &from_query(
            "model=Qwen/Qwen3-8B&engine=mlx&quant=MLX-4bit&gpu=m4-max-128gb&ctx=8192&par=2",
        )
        .inputs,
    );
    let kv = 2 * 8192 * 36 * 8 * 128 * 2 * 2u64;
    assert_eq!(
        e.command,
        format!(
            "mlx_lm.server --model mlx-community/Qwen3-8B-4bit --decode-concurrency 2 --prompt-cache-bytes {kv}"
        )
    );
    // MLX files load on MLX only: no other engine in the side-by-side list.
    assert!(e.commands.iter().all(|c| c.engine == "mlx"));
}

#[test]
fn mlx_formats_follow_bits_plus_32_over_the_group_size() {
    // The rule: every Linear and Embedding weight at bits + 32/64 bits (a bf16 scale and bias
    // per group of 64), norms at 16 bits. Its weight bytes agree with bits-per-weight times the
    // parameter count within 1 % for every MLX format in the catalog.
    let mut n = 0;
    for f in &catalog().families {
        for v in &f.variants {
            let params = fitcard_estimator::serve::speed::param_counts(&v.arch);
            let tied = v.arch.tied_embeddings;
            let total = params.total() - if tied { params.output } else { 0 };
            for fm in v.formats.iter().filter(|f| f.container == Container::Mlx) {
                let bits = match fm.id {
                    Quant::Mlx8 => 8.0,
                    Quant::Mlx6 => 6.0,
                    Quant::Mlx5 => 5.0,
                    Quant::Mlx4 => 4.0,
                    Quant::Mlx3 => 3.0,
                    other => panic!("{other} in an MLX container"),
                };
                let want = total as f64 * (bits + 32.0 / 64.0) / 8.0;
                let r = (fm.bytes.get() as f64 - want) / want;
                assert!(r.abs() < 0.01, "{} {}: {:+.2} %", v.id, fm.id, r * 100.0);
                assert!(fm.repo.starts_with("mlx-community/"), "{}", fm.repo);
                assert!(fm
                    .source
                    .contains(&format!("https://huggingface.co/{}", fm.repo)));
                // Computed by the rule, or the size the Hub prints (the rule's bytes are then
                // checked against it by `catalog_sources.rs`).
                assert!(
                    matches!(fm.size, SizeKind::Computed | SizeKind::Published),
                    "{:?}",
                    fm.size
                );
                n += 1;
            }
        }
    }
    assert!(n >= 8, "{n} MLX formats");
}
