//! Which engine runs which architecture: every row has a public URL, a refused pair is a failed
//! hard check naming the engine and the source, and the ranking skips it for that engine.

use fitcard_estimator::serve::support::{Support, TABLE};
use fitcard_estimator::{catalog, estimate, from_query, rank};

#[test]
fn every_row_has_a_public_source_and_names_its_kind() {
    for r in TABLE {
        assert!(r.source.starts_with("https://"), "{}: {}", r.kind, r.source);
        assert!(!r.kind.is_empty());
        assert!(
            !r.model_types.is_empty() || r.format.is_some(),
            "{}: neither an architecture nor a format",
            r.kind
        );
        match r.support {
            Support::Since(v) => assert!(!v.is_empty(), "{}", r.kind),
            Support::No(why) => assert!(!why.is_empty(), "{}", r.kind),
        }
    }
    // Every architecture row names a model type the catalog has (no dead rows).
    for r in TABLE.iter().filter(|r| !r.model_types.is_empty()) {
        assert!(
            catalog().families.iter().any(|f| f
                .variants
                .iter()
                .any(|v| r.model_types.contains(&v.arch.model_type.as_str()))),
            "{}: no catalog model",
            r.kind
        );
    }
}

#[test]
fn a_refused_architecture_is_a_failed_hard_check_with_its_source() {
    let e = estimate(
        &from_query("model=Qwen/Qwen3.5-35B-A3B&engine=ollama&quant=Q4_K_M&vram=80").inputs,
    );
    assert!(!e.fits);
    let c = e
        .checks
        .iter()
        .find(|c| c.name.id() == "engine_supports")
        .expect("support check");
    assert!(!c.ok);
    assert!(c.message.contains("Ollama"), "{}", c.message);
    assert!(
        c.message
            .contains("https://github.com/ollama/ollama/issues/15625"),
        "{}",
        c.message
    );
    assert!(e.reasons().iter().any(|r| r.contains("Ollama")));
    // The same file on llama.cpp runs, and says since when.
    let e = estimate(
        &from_query("model=Qwen/Qwen3.5-35B-A3B&engine=llama.cpp&quant=Q4_K_M&vram=80").inputs,
    );
    assert!(e.fits, "{:?}", e.reasons());
    let c = e
        .checks
        .iter()
        .find(|c| c.name.id() == "engine_supports")
        .unwrap();
    assert!(c.ok && c.message.contains("19468"), "{}", c.message);
    // A plain architecture carries no support check.
    let e = estimate(&from_query("model=Qwen/Qwen3-8B&engine=ollama&quant=Q4_K_M").inputs);
    assert!(e.checks.iter().all(|c| c.name.id() != "engine_supports"));
}

#[test]
fn the_ranking_skips_a_model_the_engine_cannot_run() {
    let ranked = rank(&from_query("model=Qwen/Qwen3.5-9B&engine=ollama&vram=200&ctx=8192").inputs);
    assert!(!ranked.is_empty());
    assert!(
        ranked.iter().all(|c| !c.fits),
        "a Qwen3.5 GGUF ranked as fitting on Ollama"
    );
    assert!(ranked[0]
        .reasons
        .iter()
        .any(|r| r.contains("Ollama cannot run")));
    let ranked =
        rank(&from_query("model=Qwen/Qwen3.5-9B&engine=llama.cpp&vram=200&ctx=8192").inputs);
    assert!(ranked.iter().any(|c| c.fits));
}

/// `llama-server -hf` puts the repo's vision projector on the GPU: budgeted on card 0 as part
/// of the weights; `mmproj=0` removes it and writes `--no-mmproj`; Ollama and repos without
/// one carry none; every projector row has its source.
#[test]
fn the_multimodal_projector_is_budgeted_and_switchable() {
    use fitcard_estimator::catalog::mmproj::PROJECTORS;
    for p in PROJECTORS {
        assert!(p.source.starts_with("https://"), "{}", p.repo);
        assert!(p.size == "published" || p.size == "computed");
    }
    let on = estimate(
        &from_query("model=google/gemma-3-12b-it&quant=Q4_K_M&engine=llama.cpp&ctx=8192").inputs,
    );
    let off = estimate(
        &from_query("model=google/gemma-3-12b-it&quant=Q4_K_M&engine=llama.cpp&ctx=8192&mmproj=0")
            .inputs,
    );
    let p = on.mmproj_bytes.expect("projector").get();
    assert!((853_000_000..855_000_000).contains(&p), "{p}");
    assert_eq!(off.mmproj_bytes, None);
    assert_eq!(
        on.total_device_bytes.get() - off.total_device_bytes.get(),
        p
    );
    assert!(!on.command.contains("--no-mmproj"));
    assert!(off.command.contains("--no-mmproj"), "{}", off.command);
    // The round trip keeps the switch; the default writes nothing.
    let d = from_query("model=google/gemma-3-12b-it&mmproj=0");
    assert!(fitcard_estimator::encode(&d.inputs).contains("mmproj=0"));
    assert!(
        !fitcard_estimator::encode(&from_query("model=google/gemma-3-12b-it").inputs)
            .contains("mmproj")
    );
    // On two cards by layer, the projector sits on the first.
    let two = estimate(&from_query("model=google/gemma-3-12b-it&quant=Q4_K_M&engine=llama.cpp&ctx=8192&cards=2&gpu=rtx-4060-ti-16gb").inputs);
    let two_off = estimate(&from_query("model=google/gemma-3-12b-it&quant=Q4_K_M&engine=llama.cpp&ctx=8192&cards=2&gpu=rtx-4060-ti-16gb&mmproj=0").inputs);
    assert_eq!(
        two.per_card[0].bytes.get() - two_off.per_card[0].bytes.get(),
        p
    );
    assert_eq!(two.per_card[1].bytes, two_off.per_card[1].bytes);
    // Ollama's hf.co pull is text-only; a text model has no projector.
    let o = estimate(&from_query("model=google/gemma-3-12b-it&quant=Q4_K_M&engine=ollama").inputs);
    assert_eq!(o.mmproj_bytes, None);
    let t = estimate(&from_query("model=Qwen/Qwen3-8B&quant=Q4_K_M&engine=llama.cpp").inputs);
    assert_eq!(t.mmproj_bytes, None);
}

/// Every overhead measurement the repo holds was taken on NVIDIA cards: on an AMD or Intel card
/// (another backend) the overhead says it lies outside what was measured, naming the card; on
/// an NVIDIA card with the same plan it does not; a CPU-only machine keeps its own reason.
#[test]
fn the_overhead_on_amd_and_intel_cards_is_outside_its_measured_domain() {
    let outside = |q: &str| {
        let e = estimate(&from_query(q).inputs);
        e.terms
            .iter()
            .find(|t| t.name.id() == "overhead")
            .and_then(|t| t.outside_domain.clone())
    };
    let plan = "model=Qwen/Qwen3-8B&quant=Q4_K_M&ctx=8192&engine=llama.cpp";
    for (gpu, name, backend) in [
        (
            "rx-7900-xtx",
            "AMD Radeon RX 7900 XTX",
            "HIP (ROCm) or Vulkan",
        ),
        ("arc-pro-b60", "Intel Arc Pro B60", "SYCL or Vulkan"),
        (
            "ryzen-ai-max-395-128gb",
            "AMD Ryzen AI Max+ 395 128 GB",
            "HIP",
        ),
    ] {
        let why = outside(&format!("{plan}&gpu={gpu}")).unwrap_or_default();
        assert!(
            why.contains(name) && why.contains("CUDA") && why.contains(backend),
            "{gpu}: {why}"
        );
    }
    assert_eq!(outside(&format!("{plan}&gpu=rtx-4090")), None);
    // A mixed pair: the AMD card is named wherever it sits.
    let mixed = outside(&format!("{plan}&cards=2&gpus=rtx-4090,rx-7900-xtx"));
    assert!(mixed.is_some_and(|w| w.contains("RX 7900 XTX")));
    let vllm = outside("model=Qwen/Qwen3-8B&quant=BF16&engine=vllm&gpu=mi300x").unwrap_or_default();
    assert!(
        vllm.contains("AMD Instinct MI300X") && vllm.contains("ROCm build"),
        "{vllm}"
    );
    let ollama = outside("model=Qwen/Qwen3-8B&quant=Q4_K_M&engine=ollama&gpu=arc-b580");
    assert!(ollama.is_some_and(|w| w.contains("Ollama's Vulkan library")));
}
