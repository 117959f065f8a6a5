//! vLLM and SGLang tensor × pipeline parallel layouts: the divisibility rules (with KV-head
//! replication and vocabulary padding), where each engine puts the remainder layers, and a
//! plan that fits only with pipeline parallelism.

use fitcard_estimator::estimate::Sharing;
use fitcard_estimator::serve::layouts::pipeline_stages;
use fitcard_estimator::serve::{fullest, tensor_parallel};
use fitcard_estimator::{catalog, from_query, Engine};

fn est(q: &str) -> fitcard_estimator::Estimate {
    let d = from_query(q);
    assert!(d.clean(), "{q}: {:?}", d.notices);
    fitcard_estimator::serve::estimate_full(&d.inputs)
}

/// (heads, kv heads, vocab, tp) → starts? (vLLM and SGLang shard attention alike.)
#[test]
fn tensor_parallel_divisibility_with_replication_and_vocab_padding() {
    let (_, v) = catalog().variant("Qwen/Qwen3-32B").expect("catalog model");
    let rows: &[(u32, u32, u64, u32, bool, &str)] = &[
        (32, 8, 151_936, 4, true, "2 KV heads per card"),
        (32, 8, 151_936, 8, true, "1 KV heads per card"),
        // kv_heads < tp and tp a multiple of them: replicated.
        (32, 8, 151_936, 16, true, "replicated"),
        (32, 4, 151_936, 8, true, "replicated"),
        (40, 8, 151_936, 16, false, "attention heads (40)"),
        (48, 12, 151_936, 8, false, "KV heads (12)"),
        (48, 3, 151_936, 16, false, "cannot replicate"),
        // Heads and KV heads divide, the padded vocabulary (151936 = 64 × 2374) does not.
        (48, 12, 151_936, 3, false, "vocabulary padded"),
        // 32001 pads to 32064 = 64 × 501 = 3 × 10688.
        (48, 12, 32_001, 3, true, "4 KV heads per card"),
    ];
    for engine in [Engine::Vllm, Engine::Sglang] {
        for &(heads, kv, vocab, tp, ok, words) in rows {
            let mut a = v.arch.clone();
            a.heads = heads;
            a.kv_heads = kv;
            a.vocab = vocab;
            let r = tensor_parallel(engine, &a, tp);
            let msg = match &r {
                Ok(m) => m.to_string(),
                Err(m) => m.to_string(),
            };
            assert_eq!(
                r.is_ok(),
                ok,
                "{engine} heads {heads} kv {kv} tp {tp}: {msg}"
            );
            assert!(msg.contains(words), "{engine} tp {tp}: {msg}");
        }
    }
}

/// vLLM: the remainder goes one layer each to the stages before the last, from the
/// second-to-last backwards (vllm/distributed/utils.py `get_pp_indices`); SGLang: to the last
/// stages (python/sglang/srt/distributed/utils.py).
#[test]
fn remainder_layers_placed_as_each_engine_does() {
    let rows: &[(Engine, u32, u32, &[u64])] = &[
        (Engine::Vllm, 32, 4, &[8, 8, 8, 8]),
        (Engine::Vllm, 30, 4, &[7, 8, 8, 7]),
        (Engine::Vllm, 31, 4, &[8, 8, 8, 7]),
        (Engine::Vllm, 29, 4, &[7, 7, 8, 7]),
        (Engine::Vllm, 5, 2, &[3, 2]),
        (Engine::Sglang, 30, 4, &[7, 7, 8, 8]),
        (Engine::Sglang, 31, 4, &[7, 8, 8, 8]),
        (Engine::Sglang, 5, 2, &[2, 3]),
        // llama.cpp's even -ts as fitcard splits it: the first cards one more.
        (Engine::LlamaCpp, 30, 4, &[8, 8, 7, 7]),
    ];
    for &(engine, layers, pp, want) in rows {
        assert_eq!(
            pipeline_stages(engine, layers, pp),
            want,
            "{engine} {layers}/{pp}"
        );
    }
    // The estimate's own pipeline stages follow vLLM's partition: Qwen3-32B's 64 layers over 6
    // cards (64 heads: no 6-way tensor parallelism) → 10, 11, 11, 11, 11, 10.
    let e = est("model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=6&gpu=rtx-4090&ctx=8192");
    assert_eq!(e.layout, Sharing::Layer);
    let used = e.layouts.iter().find(|l| l.chosen).expect("chosen layout");
    assert_eq!((used.tp, used.pp), (1, 6));
    assert_eq!(used.stage_layers, vec![10, 11, 11, 11, 11, 10]);
    // First and last stage hold the embedding and the LM head besides their 10 layers.
    let w = |k: usize| e.per_card[k].terms[0].1;
    assert!(w(0) > w(1) && w(5) > w(1), "{:?}", e.per_card);
    assert!(
        e.command.contains("--pipeline-parallel-size 6"),
        "{}",
        e.command
    );
    assert!(
        !e.command.contains("--tensor-parallel-size"),
        "{}",
        e.command
    );
    // No partition variable: vLLM's default partition is the one budgeted.
    assert!(
        !e.command.contains("VLLM_PP_LAYER_PARTITION"),
        "{}",
        e.command
    );
}

/// Every factorisation of the card count is listed; a tied model's last stage holds its own
/// copy of the embedding as the LM head.
#[test]
fn every_factorisation_listed_and_the_tied_head_copied() {
    let e = est("model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=6&gpu=rtx-4090&ctx=8192");
    let pairs: Vec<(u32, u32)> = e.layouts.iter().map(|l| (l.tp, l.pp)).collect();
    assert_eq!(pairs, vec![(6, 1), (3, 2), (2, 3), (1, 6)]);
    assert!(!e.layouts[0].valid && e.layouts[0].reason.is_some());
    assert!(e.layouts[2].valid && e.layouts[2].fits);
    // Qwen3-4B ties its embeddings: under pipeline parallelism the weights term grows by one
    // embedding table (vocab × hidden × 2 B), on the last card.
    let (_, v) = catalog().variant("Qwen/Qwen3-4B").expect("catalog model");
    assert!(v.arch.tied_embeddings);
    let embed = v.arch.vocab * v.arch.hidden * 2;
    let one = est("model=Qwen/Qwen3-4B&engine=vllm&quant=BF16&cards=1&gpu=rtx-4090&ctx=8192");
    let three = est("model=Qwen/Qwen3-4B&engine=vllm&quant=BF16&cards=3&gpu=rtx-4090&ctx=8192");
    assert_eq!(three.layout, Sharing::Layer);
    assert_eq!(
        three.terms[0].bytes.get(),
        one.terms[0].bytes.get() + embed,
        "weights on three stages"
    );
}

/// The layout the estimate uses reports the same bytes as its fullest card.
#[test]
fn chosen_layout_matches_the_estimate() {
    for q in [
        "model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=4&gpu=rtx-4090&ctx=8192",
        "model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=6&gpu=rtx-4090&ctx=8192",
        "model=Qwen/Qwen3-32B&engine=sglang&quant=BF16&cards=4&gpu=rtx-4090&ctx=8192",
        "model=Qwen/Qwen3-32B&engine=sglang&quant=BF16&cards=6&gpu=rtx-4090&ctx=8192",
        "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&cards=1&gpu=rtx-4090&ctx=8192",
        "model=google/gemma-3-27b-it&engine=vllm&quant=BF16&cards=3&gpu=h100-sxm&ctx=32768",
    ] {
        let e = est(q);
        let used: Vec<_> = e.layouts.iter().filter(|l| l.chosen).collect();
        assert_eq!(used.len(), 1, "{q}");
        assert_eq!(used[0].per_gpu_bytes, fullest(&e.per_card).bytes, "{q}");
        assert_eq!(used[0].fits, e.fits, "{q}");
    }
    // Other engines and mixed cards list none.
    let e = est("model=Qwen/Qwen3-8B&engine=llama.cpp&quant=Q4_K_M&cards=2&gpu=rtx-4090&ctx=8192");
    assert!(e.layouts.is_empty());
}

/// Five requests of 8K on 4 × RTX 4090: four-way tensor parallelism needs 2.1 GiB of NCCL and
/// all-reduce memory per card and does not fit; four pipeline stages, with 0.25 GiB each, do,
/// so the estimate runs them (a user would), and says why. Pinned to `tp=4` it does not fit
/// and names the layout that does.
#[test]
fn a_plan_that_fits_only_with_pipeline_parallelism() {
    let q = "model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=4&gpu=rtx-4090&ctx=8192&par=5";
    let e = est(q);
    assert_eq!(e.layout, Sharing::Layer);
    assert!(e.fits, "{:?}", e.reasons());
    let p = e.parallel.as_ref().expect("a chosen split");
    assert_eq!((p.tp, p.pp, p.pinned), (1, 4, false));
    assert!(p.why.contains("--pipeline-parallel-size 4"), "{}", p.why);
    assert!(p.why.contains("does not fit"), "{}", p.why);
    assert!(
        e.command.contains("--pipeline-parallel-size 4"),
        "{}",
        e.command
    );
    assert!(
        !e.command.contains("--tensor-parallel-size"),
        "{}",
        e.command
    );
    let by = |e: &fitcard_estimator::Estimate, tp: u32| {
        e.layouts
            .iter()
            .find(|l| l.tp == tp)
            .expect("layout")
            .clone()
    };
    assert!(by(&e, 4).valid && !by(&e, 4).fits && !by(&e, 4).chosen);
    assert!(by(&e, 2).valid && !by(&e, 2).fits);
    assert!(by(&e, 1).valid && by(&e, 1).fits && by(&e, 1).chosen);
    // Pinned: the engine's own answer for that split, and the layout that fits named.
    for pin in ["&tp=4", "&pp=1", "&tp=4&pp=1"] {
        let e = est(&format!("{q}{pin}"));
        assert_eq!(e.layout, Sharing::Tensor, "{pin}");
        assert!(!e.fits, "{pin}");
        let p = e.parallel.as_ref().expect("a split");
        assert_eq!((p.tp, p.pp, p.pinned), (4, 1, true), "{pin}");
        assert!(by(&e, 4).chosen, "{pin}");
        assert!(
            e.warnings
                .iter()
                .any(|w| w.contains("fits as --pipeline-parallel-size 4")),
            "{:?}",
            e.warnings
        );
        assert!(
            e.command.contains("--tensor-parallel-size 4"),
            "{}",
            e.command
        );
    }
}

/// The split a user would choose, as a table: (query, chosen tp, pp). vLLM's documented
/// practice when it fits: tensor parallel within a node of up to 8 cards, pipeline parallel
/// across nodes (Llama-3.1-70B on 16 cards: 8 × 2; an 8B model on two 24 GiB cards: 2-way
/// tensor parallel, although two stages would hold a slightly larger pool); otherwise the
/// largest pool (pipeline stages when the heads do not divide).
#[test]
fn the_chosen_split_fits_with_the_largest_pool() {
    let rows: &[(&str, u32, u32)] = &[
        ("model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=2&gpu=h100-sxm&ctx=8192", 2, 1),
        ("model=Qwen/Qwen3-32B&engine=sglang&quant=BF16&cards=2&gpu=h100-sxm&ctx=8192", 2, 1),
        ("model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=4&gpu=h100-sxm&ctx=8192", 4, 1),
        ("model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&cards=2&gpu=rtx-4090&ctx=8192", 2, 1),
        ("model=meta-llama/Llama-3.1-70B-Instruct&engine=vllm&quant=BF16&cards=16&gpu=h100-sxm&ctx=8192", 8, 2),
        ("model=meta-llama/Llama-3.1-70B-Instruct&engine=sglang&quant=BF16&cards=16&gpu=h100-sxm&ctx=8192", 8, 2),
        // 64 heads: no 6-way tensor parallelism; on 24 GiB cards the 2-way all-reduce buffers
        // of 2 × 3 cost more than 5 % of the pool, so six stages hold the most.
        ("model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=6&gpu=rtx-4090&ctx=8192", 1, 6),
    ];
    for &(q, tp, pp) in rows {
        let e = est(q);
        let p = e.parallel.as_ref().expect("a chosen split");
        assert_eq!((p.tp, p.pp), (tp, pp), "{q}: {}", p.why);
        assert!(e.fits, "{q}");
        // The chosen one is listed as chosen, and no fitting layout holds more than 5 % more.
        let chosen = e.layouts.iter().find(|l| l.chosen).expect("chosen");
        assert_eq!((chosen.tp, chosen.pp), (tp, pp), "{q}");
        let (t, pf) = match e.engine {
            "sglang" => ("--tp-size", "--pp-size"),
            _ => ("--tensor-parallel-size", "--pipeline-parallel-size"),
        };
        let flags = match (tp, pp) {
            (t1, 1) => format!("{t} {t1}"),
            (1, p1) => format!("{pf} {p1}"),
            (t1, p1) => format!("{t} {t1} {pf} {p1}"),
        };
        assert!(e.command.contains(&flags), "{q}: {}", e.command);
        for other in e.layouts.iter().filter(|l| l.fits && !l.chosen) {
            let mut i = from_query(q).inputs;
            i.tp = Some(other.tp);
            let o = fitcard_estimator::estimate(&i);
            let (a, b) = (
                o.kv_pool_tokens.expect("pool"),
                e.kv_pool_tokens.expect("pool"),
            );
            assert!(
                a * 100 < b * 105 || other.tp < tp,
                "{q}: tp {} holds {a} tokens > {b}",
                other.tp
            );
        }
    }
    // The JSON carries the split and why (an addition: absent on one card and other engines).
    let e = est("model=meta-llama/Llama-3.1-70B-Instruct&engine=vllm&quant=BF16&cards=16&gpu=h100-sxm&ctx=8192");
    let j = serde_json::to_value(&e).expect("json");
    assert_eq!(j["parallel"]["tp"], 8);
    assert_eq!(j["parallel"]["pp"], 2);
    let why = j["parallel"]["why"].as_str().expect("why");
    assert!(why.contains("as vLLM's documentation advises"), "{why}");
    let one = est("model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&cards=1&gpu=rtx-4090&ctx=8192");
    assert!(serde_json::to_value(&one)
        .expect("json")
        .get("parallel")
        .is_none());
}

/// A pin that does not fit the cards, or on an engine without these sizes, is dropped with a
/// one-line notice.
#[test]
fn bad_pins_are_dropped_with_a_notice() {
    for (q, key, kept) in [
        (
            "model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=4&tp=3",
            "tp",
            None,
        ),
        (
            "model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=4&pp=3",
            "pp",
            None,
        ),
        // tp= wins when it divides the cards.
        (
            "model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=4&tp=2&pp=3",
            "tp",
            Some(2),
        ),
        (
            "model=Qwen/Qwen3-8B&engine=llama.cpp&quant=Q4_K_M&cards=2&tp=2",
            "tp",
            None,
        ),
    ] {
        let d = from_query(q);
        assert!(
            d.notices.iter().any(|n| n.key.as_str() == key),
            "{q}: {:?}",
            d.notices
        );
        let e = fitcard_estimator::serve::estimate_full(&d.inputs);
        let pinned = e.parallel.as_ref().filter(|p| p.pinned).map(|p| p.tp);
        assert_eq!(pinned, kept, "{q}");
    }
    // A pin survives the permalink.
    let d = from_query("model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=4&tp=2");
    assert!(d.clean(), "{:?}", d.notices);
    let again = from_query(&fitcard_estimator::encode(&d.inputs));
    assert_eq!(again.inputs.tp, Some(2));
}

/// The page's one line per layout: the same layouts, bytes and choice as the full estimate,
/// every number printed without float formatting.
#[test]
fn summary_lines_match_the_layouts() {
    use fitcard_estimator::serve::layouts::summary;
    for q in [
        "model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=4&gpu=rtx-4090&ctx=8192&par=5",
        "model=Qwen/Qwen3-32B&engine=sglang&quant=BF16&cards=6&gpu=rtx-4090&ctx=8192",
        "model=meta-llama/Llama-3.1-70B-Instruct&engine=vllm&quant=BF16&cards=16&gpu=h100-sxm&ctx=8192",
        "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&cards=1&gpu=rtx-4090&ctx=8192",
    ] {
        let e = est(q);
        let lines = summary(&from_query(q).inputs);
        assert_eq!(lines.len(), e.layouts.len(), "{q}");
        for (l, full) in lines.iter().zip(&e.layouts) {
            assert_eq!((l.tp, l.pp), (full.tp, full.pp), "{q}");
            assert_eq!(l.valid, full.valid, "{q}");
            assert_eq!(l.chosen, full.chosen, "{q}");
            if l.valid {
                assert_eq!(l.per_gpu, full.per_gpu_bytes, "{q} {}", l.text);
            } else {
                assert!(l.text.contains("cannot start") && l.kv_tokens == 0, "{}", l.text);
            }
            assert!(!l.text.contains('\n'), "{}", l.text);
        }
        let chosen: Vec<_> = lines.iter().filter(|l| l.chosen).collect();
        assert_eq!(chosen.len(), 1, "{q}");
        assert_eq!(chosen[0].fits, e.fits, "{q}");
        assert_eq!(chosen[0].kv_tokens, e.kv_pool_tokens.expect("pool"), "{q}");
        assert!(chosen[0].text.ends_with("(chosen)"), "{}", chosen[0].text);
    }
    let lines = summary(
        &from_query(
            "model=Qwen/Qwen3-32B&engine=vllm&quant=BF16&cards=4&gpu=rtx-4090&ctx=8192&par=5",
        )
        .inputs,
    );
    let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    assert!(
        texts[0].starts_with("tp 4 × pp 1: ") && texts[0].contains("short by"),
        "{texts:?}"
    );
    assert!(
        texts[2].starts_with("tp 1 × pp 4: ") && texts[2].contains(": fits (chosen)"),
        "{texts:?}"
    );
    assert!(
        texts[2].contains(" GiB of ") && texts[2].contains(" tokens of KV"),
        "{texts:?}"
    );
    // Other engines and mixed cards: none.
    assert!(summary(
        &from_query("model=Qwen/Qwen3-8B&engine=llama.cpp&quant=Q4_K_M&cards=2").inputs
    )
    .is_empty());
    assert!(summary(
        &from_query("model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpus=rtx-4090,rtx-3060-12gb")
            .inputs
    )
    .is_empty());
}

/// SGLang takes `--mem-fraction-static` of what is free beside `reserve=`: a split that does not
/// fit says so in those words (and its budget is that share).
#[test]
fn sglang_layouts_say_the_memory_kept_free() {
    let e = est(
        "model=Qwen/Qwen3-32B&engine=sglang&quant=BF16&cards=2&gpu=rtx-4090&ctx=8192&reserve=4",
    );
    let l = e
        .layouts
        .iter()
        .find(|l| l.valid && !l.fits)
        .expect("a split that does not fit");
    let why = l.reason.as_deref().unwrap_or_default();
    assert!(why.contains("less 4.00 GiB kept free): short by"), "{why}");
    let plain = est("model=Qwen/Qwen3-32B&engine=sglang&quant=BF16&cards=2&gpu=rtx-4090&ctx=8192");
    let same = plain
        .layouts
        .iter()
        .find(|p| (p.tp, p.pp) == (l.tp, l.pp))
        .expect("the same split");
    assert!(l.budget < same.budget, "{:?} {:?}", l.budget, same.budget);
    assert!(!same
        .reason
        .as_deref()
        .unwrap_or_default()
        .contains("kept free"));
}
