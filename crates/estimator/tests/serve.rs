//! Serve-mode behaviour: the public contract's exact numbers, the engine rules, every hard
//! constraint, ranking and concurrency. One commented case per row.

use fitcard_estimator::estimate::CheckName;
use fitcard_estimator::terms::{Place, TermName};
use fitcard_estimator::{estimate, from_query, rank, Estimate, Inputs};

fn est(q: &str) -> Estimate {
    let d = from_query(q);
    assert!(d.clean(), "{q}: {:?}", d.notices);
    estimate(&d.inputs)
}

#[track_caller]
fn term(e: &Estimate, name: TermName) -> u64 {
    e.terms
        .iter()
        .find(|t| t.name == name)
        .map_or_else(|| panic!("no term {name}"), |t| t.bytes.get())
}

fn has_term(e: &Estimate, name: TermName) -> bool {
    e.terms.iter().any(|t| t.name == name)
}

#[track_caller]
fn check(e: &Estimate, name: CheckName) -> &fitcard_estimator::Check {
    e.checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check {name}: {:?}", e.checks))
}

/// The public contract's example: 38 MiB = 4 global × 4096 cells + 22 SWA ×
/// 1024 cells, 1 KiB per cell.
#[test]
fn contract_gemma3_1b_kv_is_exact() {
    let e = est("v=1&model=google/gemma-3-1b-it&quant=F16&ctx=4096&par=1&engine=llama.cpp&kv=f16");
    assert_eq!(term(&e, TermName::KvCache), 39_845_888);
}

/// Public llama.cpp log, Llama-3.2-1B F16 full offload: CUDA0 model buffer 2357.26 MiB,
/// CPU_Mapped 501.00 MiB. token_embd (128256 × 2048 × 2 B) stays on the host; the tied output
/// copy goes to the card. The card side is the file size (2.48 GB printed, ±5 MB) minus GGUF
/// metadata, so it is checked to ±12 MiB; the host side is exact.
#[test]
fn llama_host_resident_embeddings_match_public_log() {
    let e = est("model=meta-llama/Llama-3.2-1B-Instruct&quant=F16&engine=llama.cpp&ctx=4096");
    assert_eq!(term(&e, TermName::WeightsHost), 525_336_576); // 501.00 MiB
    let dev = term(&e, TermName::Weights) as f64 / (1 << 20) as f64;
    assert!((dev - 2357.26).abs() < 12.0, "device weights {dev:.2} MiB");
    // KV @4096 = 128 MiB (llama.cpp's allocator, tests/llama_kv.rs).
    assert_eq!(term(&e, TermName::KvCache), 128 << 20);
}

/// The deduction is gated on engine and container: vLLM loads everything on the card.
#[test]
fn host_deduction_is_gated_on_engine() {
    let l = est("model=meta-llama/Llama-3.2-1B-Instruct&quant=F16&engine=llama.cpp");
    let v = est("model=meta-llama/Llama-3.2-1B-Instruct&quant=BF16&engine=vllm");
    assert!(has_term(&l, TermName::WeightsHost));
    assert!(!has_term(&v, TermName::WeightsHost));
    assert!(v.terms.iter().all(|t| t.place == Place::Device));
}

/// gemma-3n: per-layer embeddings (262144 × layers × 256) join token_embd in host memory on
/// llama.cpp, at the file's embedding storage type.
#[test]
fn gemma3n_per_layer_embeddings_stay_on_host() {
    for (id, layers) in [
        ("google/gemma-3n-E2B-it", 30u64),
        ("google/gemma-3n-E4B-it", 35),
    ] {
        let e = est(&format!("model={id}&quant=Q8_0&engine=llama.cpp"));
        let q8 = |n: u64| n / 32 * 34;
        let want = q8(262_400 * 2048) + q8(262_144 * layers * 256);
        assert_eq!(term(&e, TermName::WeightsHost), want, "{id}");
    }
}

/// Ollama runs llama-server with -c num_ctx×num_parallel -np num_parallel: KV = per-slot ×
/// slots (16384 × 4 = 65536). Llama-3.2-1B: 4 × 128 MiB at 4096.
#[test]
fn ollama_multiplies_kv_by_slots() {
    let one =
        est("model=meta-llama/Llama-3.2-1B-Instruct&quant=Q4_K_M&engine=ollama&ctx=4096&par=1");
    let four =
        est("model=meta-llama/Llama-3.2-1B-Instruct&quant=Q4_K_M&engine=ollama&ctx=4096&par=4");
    assert_eq!(term(&one, TermName::KvCache), 128 << 20);
    assert_eq!(term(&four, TermName::KvCache), 4 * (128 << 20));
    assert!(four.command.contains("OLLAMA_NUM_PARALLEL=4"));
}

/// Concurrency flags are always written; llama-server's default (4 unified slots) is warned.
#[test]
fn commands_always_write_concurrency() {
    // (query, flag that must appear)
    let rows = [
        (
            "model=google/gemma-3-4b-it&quant=Q4_K_M&engine=llama.cpp&par=1",
            "-np 1",
        ),
        (
            "model=google/gemma-3-4b-it&quant=Q4_K_M&engine=llama.cpp&par=3&ctx=8192",
            "-c 24576 -np 3",
        ),
        (
            "model=google/gemma-3-4b-it&quant=Q4_K_M&engine=ollama&par=1",
            "OLLAMA_NUM_PARALLEL=1",
        ),
        (
            "model=google/gemma-3-4b-it&quant=BF16&engine=vllm&par=1",
            "--max-num-seqs 1",
        ),
        (
            "model=google/gemma-3-4b-it&quant=BF16&engine=transformers&par=2",
            "batch_size=2",
        ),
    ];
    for (q, flag) in rows {
        let e = est(q);
        assert!(e.command.contains(flag), "{q}: {}", e.command);
    }
    let e = est("model=google/gemma-3-4b-it&quant=Q4_K_M&engine=llama.cpp&par=1");
    assert!(
        e.warnings
            .iter()
            .any(|w| w.contains("4 slots") && w.contains("-np 1")),
        "{:?}",
        e.warnings
    );
}

/// Tensor parallelism needs the KV heads divisible by the cards; gemma-3-1b has one KV head, so
/// 3 cards cannot start it on llama.cpp. That is a fact about speed, not a constraint: the cards
/// split by layer (`-sm layer`), which starts and fits. The check is `info`, `fits` holds.
#[test]
fn tensor_parallel_impossible_falls_back_to_layer_split() {
    use fitcard_estimator::estimate::{Severity, Sharing};
    let e = est("model=google/gemma-3-1b-it&quant=Q4_K_M&engine=llama.cpp&cards=3&gpu=rtx-4090");
    let c = check(&e, CheckName::TensorParallel);
    assert!(!c.ok);
    assert_eq!(c.severity, Severity::Info);
    assert_eq!(
        c.message,
        "KV heads (1) not divisible by 3 cards: tensor parallelism cannot start; layer split used instead (-sm layer): it fits, but the extra cards add capacity, not speed"
    );
    assert!(e.fits);
    assert_eq!(e.layout, Sharing::Layer);
    assert!(e.command.contains("-sm layer -ts 1,1,1"), "{}", e.command);
    assert!(check(&e, CheckName::VramPerCard).ok);
}

/// vLLM replicates KV heads when tp > kv_heads (vLLM's tensor-parallel rule): the one-KV-head model *can* use TP
/// there, as long as attention heads divide.
#[test]
fn vllm_tp_rule_with_replication() {
    // (model, cards, passes?)
    let rows = [
        ("google/gemma-3-1b-it", 2, true), // 4 heads, 1 KV head → replicated
        ("google/gemma-3-1b-it", 3, false), // 4 heads % 3
        ("google/gemma-3-27b-it", 8, true), // 32 heads, 16 KV → 2 per card
        ("Qwen/Qwen3-30B-A3B", 8, true),   // 32 heads, 4 KV → replicated
        ("meta-llama/Llama-3.1-70B-Instruct", 6, false), // 64 heads % 6
        ("microsoft/phi-4", 4, false),     // 40 heads ok, 10 KV % 4
    ];
    for (m, cards, ok) in rows {
        let e = est(&format!(
            "model={m}&quant=BF16&engine=vllm&cards={cards}&gpu=h100-sxm&ctx=4096"
        ));
        assert_eq!(
            check(&e, CheckName::TensorParallel).ok,
            ok,
            "{m} × {cards}: {:?}",
            e.checks
        );
    }
}

/// With 3 cards no gemma-3 variant can use tensor parallelism (KV heads 1, 4, 8, 16), yet every
/// one still runs split by layer: the ranking lists them as fitting, none fails for divisibility.
#[test]
fn three_cards_rank_the_gemma3_family_by_layer_split() {
    let i =
        from_query("model=google/gemma-3-27b-it&engine=llama.cpp&cards=3&gpu=rtx-4090&ctx=4096")
            .inputs;
    let r = rank(&i);
    assert!(!r.is_empty());
    assert!(r
        .iter()
        .any(|c| c.fits && c.model == "google/gemma-3-27b-it"));
    assert!(r
        .iter()
        .all(|c| !c.reasons.iter().any(|m| m.contains("not divisible"))));
}

/// Ranking trap: a small variant at high precision must not beat a clearly stronger
/// variant in a quantised format of near-identical size. Qwen3-8B BF16 GGUF (16.39 GB) vs
/// Qwen3-14B Q8_0 (15.70 GB) on one 24 GiB card: 14B Q8_0 ranks first of the two.
#[test]
fn ranking_trap_capability_before_size() {
    let i = from_query("model=Qwen/Qwen3-8B&engine=llama.cpp&vram=24&ctx=4096&par=1").inputs;
    let r = rank(&i);
    let pos = |m: &str, q: &str| {
        r.iter()
            .position(|c| c.model == m && c.quant.id() == q)
            .unwrap()
    };
    let (big_q8, small_bf16) = (pos("Qwen/Qwen3-14B", "Q8_0"), pos("Qwen/Qwen3-8B", "BF16"));
    assert!(r[big_q8].fits && r[small_bf16].fits);
    assert!(
        r[big_q8].device_bytes < r[small_bf16].device_bytes,
        "the trap needs the weaker one to be larger"
    );
    assert!(big_q8 < small_bf16);
    // Two-level order over all fitting candidates: capability, then precision.
    let fit: Vec<_> = r.iter().filter(|c| c.fits).collect();
    for w in fit.windows(2) {
        assert!(
            w[0].capability_rank < w[1].capability_rank
                || (w[0].capability_rank == w[1].capability_rank
                    && w[0].precision_bits >= w[1].precision_bits),
            "{} {} before {} {}",
            w[0].model,
            w[0].quant,
            w[1].model,
            w[1].quant
        );
    }
    // Non-fitting candidates come last, each with a reason.
    let first_bad = r.iter().position(|c| !c.fits).unwrap_or(r.len());
    assert!(r[first_bad..]
        .iter()
        .all(|c| !c.fits && !c.reasons.is_empty()));
}

/// Global vs sliding-window layers: on gemma-3 the KV grows only with the global layers once
/// the window is full (plateau), so doubling the context far less than doubles the KV.
#[test]
fn sliding_window_plateau() {
    let kv = |ctx: u32| {
        term(
            &est(&format!(
                "model=google/gemma-3-27b-it&quant=Q4_K_M&engine=llama.cpp&ctx={ctx}"
            )),
            TermName::KvCache,
        )
    };
    let (a, b, c) = (kv(8192), kv(16384), kv(32768));
    // Slope per token comes from the 10 global layers only: 16 KV heads × 128 × 2 × 2 B × 10.
    assert_eq!(c - b, 16384 * 10 * 16 * 128 * 4);
    assert_eq!(b - a, 8192 * 10 * 16 * 128 * 4);
}

/// Overhead: the empirical fit's per-card arm for a small model on several cards; on one card
/// the CUDA context and the compute buffer (`tests/llama_compute.rs`), whatever the weights.
#[test]
fn overhead_regimes() {
    let small = est("model=meta-llama/Llama-3.2-1B-Instruct&quant=Q4_K_M&engine=llama.cpp&cards=4&ctx=131072&vram=24");
    let o = term(&small, TermName::Overhead) as f64 / (1u64 << 30) as f64;
    assert!((o - (0.7 * 4.0 + 0.35)).abs() < 1e-6, "{o}");
    // Llama-3.1-70B (hidden 8192) at 131,072 cells, -ub 512: 330 MiB + 16 B × 8192 × 512 + 2 B ×
    // 512 × 131,072 — not a tenth of its 40 GiB of weights.
    let big = est("model=meta-llama/Llama-3.1-70B-Instruct&quant=Q4_K_M&engine=llama.cpp&cards=1&ctx=131072&vram=96");
    let o = term(&big, TermName::Overhead);
    assert_eq!(o, (330 << 20) + 16 * 8192 * 512 + 2 * 512 * 131_072);
}

/// vLLM preallocates util × VRAM; the budget per card is that, not the capacity.
#[test]
fn vllm_budget_is_utilisation() {
    let e = est("model=Qwen/Qwen3-8B&quant=BF16&engine=vllm&vram=80&util=0.5&ctx=4096");
    let c = &e.per_card[0];
    assert_eq!(c.budget.get(), 40 << 30);
    // The KV pool vLLM will get, as concurrency: (budget − weights − overhead) / per-request KV,
    // Qwen3-8B at 4096 tokens = 36 layers × 8 heads × 128 × 2 × 2 B × 4096 = 576 MiB.
    let w = term(&e, TermName::Weights) + term(&e, TermName::Overhead);
    let want = ((40u64 << 30) - w) as f64 / (576u64 << 20) as f64;
    let note = e
        .warnings
        .iter()
        .find(|m| m.contains("room for"))
        .expect("concurrency note");
    assert!(
        note.contains(&format!("≈{want:.1} requests")),
        "{note} vs {want:.1}"
    );
}

/// Context beyond the model's maximum is refused as a constraint, not silently clamped.
#[test]
fn context_beyond_model_maximum() {
    let e = est("model=google/gemma-3-1b-it&quant=Q4_K_M&engine=llama.cpp&ctx=65536");
    assert!(!check(&e, CheckName::ContextLength).ok);
    assert!(!e.fits);
}

/// Tight: fits with under 1 GiB left (llama-server --fit margin).
#[test]
fn verdicts() {
    use fitcard_estimator::Verdict;
    let room = est("model=google/gemma-3-1b-it&quant=Q4_K_M&engine=llama.cpp&vram=24");
    assert_eq!(room.verdict, Verdict::Fits);
    let need = room.per_card[0].bytes.gib();
    let tight = est(&format!(
        "model=google/gemma-3-1b-it&quant=Q4_K_M&engine=llama.cpp&vram={}",
        need + 0.5
    ));
    assert_eq!(tight.verdict, Verdict::Tight);
    let over = est(&format!(
        "model=google/gemma-3-1b-it&quant=Q4_K_M&engine=llama.cpp&vram={}",
        (need - 0.1).max(0.25)
    ));
    assert_eq!(over.verdict, Verdict::DoesNotFit);
}

/// Every format of every variant estimates on every engine that can load it, with the three
/// device terms and a card list.
#[test]
fn whole_catalog_estimates() {
    let cat = fitcard_estimator::catalog();
    assert!(cat.validate().is_empty(), "{:?}", cat.validate());
    for f in &cat.families {
        for v in &f.variants {
            for fm in &v.formats {
                for engine in fitcard_estimator::Engine::ALL
                    .into_iter()
                    .filter(|e| e.container() == fm.container)
                {
                    let i = Inputs {
                        model: v.id.clone(),
                        quant: fm.id,
                        engine,
                        ctx: 4096,
                        ..Inputs::default()
                    };
                    let e = estimate(&i);
                    assert!(e.notices.is_empty(), "{} {}: {:?}", v.id, fm.id, e.notices);
                    for name in [TermName::Weights, TermName::KvCache, TermName::Overhead] {
                        // An encoder keeps no KV cache (tests/encoders.rs).
                        let none = name == TermName::KvCache
                            && fitcard_estimator::catalog::is_encoder(&v.arch);
                        assert_eq!(term(&e, name) > 0, !none, "{} {} {name}", v.id, fm.id);
                    }
                }
            }
        }
    }
}

/// A plan the engine would not start shows no speed (vLLM refusing at startup), and one that
/// fails with room to spare leads with its real reason, not a positive headroom.
#[test]
fn refused_plans_show_no_speed_and_lead_with_their_reason() {
    let q = "model=Qwen/Qwen2.5-72B-Instruct&quant=BF16&engine=vllm&gpu=a100-80gb&cards=2&tp=2&ctx=1025&par=1";
    let e = fitcard_estimator::estimate(&fitcard_estimator::from_query(q).inputs);
    assert!(!e.starts(), "{:?}", e.reasons());
    assert!(
        e.speed.is_some(),
        "the speed it would run at is still computed"
    );
    assert!(e.shown_speed().is_none());
    // The ranking of the family on one 24 GB card: the rows vLLM refuses show no tokens/s.
    let q = "model=Qwen/Qwen2.5-72B-Instruct&engine=vllm&gpu=rtx-4090&ctx=32768";
    let r = fitcard_estimator::rank(&fitcard_estimator::from_query(q).inputs);
    let refused: Vec<_> = r
        .iter()
        .filter(|c| c.reasons.iter().any(|m| m.contains("fails at startup")))
        .collect();
    assert!(!refused.is_empty(), "{q}");
    assert!(refused.iter().all(|c| c.decode_tps.is_none()));
    let q = "model=Qwen/Qwen3.5-9B&engine=ollama&gpu=rtx-4090";
    let e = fitcard_estimator::estimate(&fitcard_estimator::from_query(q).inputs);
    assert!(
        !e.fits && e.headroom() > fitcard_estimator::units::SignedBytes::default(),
        "{q}"
    );
    let why = e.lead_reason().expect("a reason other than memory");
    assert!(why.contains("Ollama cannot run"), "{why}");
    let q = "model=Qwen/Qwen3-8B&gpu=rtx-4090";
    assert_eq!(
        fitcard_estimator::estimate(&fitcard_estimator::from_query(q).inputs).lead_reason(),
        None
    );
}
