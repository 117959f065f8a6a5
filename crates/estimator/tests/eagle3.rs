//! `spec=eagle` on vLLM (`--speculative-config` method `eagle3`) and SGLang
//! (`--speculative-algorithm EAGLE3`, 0.5.14 on): an EAGLE-3 head. The head's
//! bytes are computed from its config and held against the size its file list publishes; its
//! decoder layer joins the target's KV pool as one more full-attention layer; other engines and
//! models without a head are refused by name.
//!
//! Llama-3.1-8B-Instruct (<https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/config.json>):
//! 32 layers, 8 KV heads of 128. Its head `yuhuili/EAGLE3-LLaMA3.1-Instruct-8B`: the EAGLE
//! authors' EAGLE-3 config (<https://github.com/SafeAILab/EAGLE/blob/9666a8182d9bed8b5b637fd4a126c90d9b9c3db2/eagle/traineagle3/config.json>:
//! hidden 4096, FFN 14336, 32 heads, 8 KV heads, draft vocabulary 32000, float16), its
//! `pytorch_model.bin` listed at 850 MB
//! (<https://huggingface.co/yuhuili/EAGLE3-LLaMA3.1-Instruct-8B/tree/main>).

use fitcard_estimator::inputs::{eagle3_head, Key, EAGLE3_HEADS};
use fitcard_estimator::{encode, estimate, from_query};

mod common;
use common::term;

const LLAMA: &str =
    "model=meta-llama/Llama-3.1-8B-Instruct&quant=BF16&engine=vllm&gpu=rtx-4090&ctx=8192&par=2";

/// The head's parameters by hand: fc 3·4096·4096, q/k/v reading 2·4096 into (32 + 2·8) heads of
/// 128, o 32·128·4096, the MLP 3·4096·14336, the LM head 32000·4096, four norms of 4096.
const HEAD_PARAMS: u64 = 3 * 4096 * 4096
    + 2 * 4096 * (32 + 16) * 128
    + 32 * 128 * 4096
    + 3 * 4096 * 14336
    + 32000 * 4096
    + 4 * 4096;

#[test]
fn head_bytes_match_the_published_size() {
    for h in EAGLE3_HEADS {
        assert!(h.config_source.starts_with("https://"), "{}", h.repo);
        // A head without a published size is computed only (its config is published).
        let Some((p, at)) = h.published else { continue };
        assert!(at.starts_with("https://"), "{}", h.repo);
        let (b, p) = (h.bytes() as f64, p as f64);
        // The file list rounds to three digits: within half of its last digit.
        let half = 10f64.powi(p.log10().floor() as i32 - 2) / 2.0;
        assert!((b - p).abs() <= half, "{}: {b} against {p}", h.repo);
    }
    let h = eagle3_head("meta-llama/Llama-3.1-8B-Instruct").expect("head");
    assert_eq!(h.params(), HEAD_PARAMS);
    // float16, the draft-to-target map (int64) and the target-to-draft mask (one byte a token).
    assert_eq!(h.bytes(), HEAD_PARAMS * 2 + 32000 * 8 + 128256);
    assert_eq!(h.bytes(), 849_763_584);
    // Llama-3.3-70B's SpecForge head (its training config: hidden 8192, FFN 28672, 64 heads, 8 KV
    // heads of 128, draft vocabulary 32000, float16), listed at 2.81 GB: no embedding in it.
    let h = eagle3_head("meta-llama/Llama-3.3-70B-Instruct").expect("head");
    let p = 3 * 8192 * 8192
        + 2 * 8192 * (64 + 16) * 128
        + 64 * 128 * 8192
        + 3 * 8192 * 28672
        + 32000 * 8192
        + 4 * 8192;
    assert_eq!(h.params(), p);
    assert_eq!(h.bytes(), 2_806_439_168);
    // Qwen3-8B's AngelSlim head (its training config: hidden 4096, FFN 12288, 32 heads, 8 KV heads
    // of 128, draft vocabulary 32000 of 151,936, bfloat16): no size published, computed only.
    let h = eagle3_head("Qwen/Qwen3-8B").expect("head");
    assert!(h.published.is_none());
    let p = 3 * 4096 * 4096
        + 2 * 4096 * (32 + 16) * 128
        + 32 * 128 * 4096
        + 3 * 4096 * 12288
        + 32000 * 4096
        + 4 * 4096;
    assert_eq!(h.bytes(), p * 2 + 32000 * 8 + 151_936);
}

#[test]
fn vllm_eagle3_weights_pool_and_command() {
    let plain = from_query(LLAMA);
    let d = from_query(&format!("{LLAMA}&spec=eagle"));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let (e0, e) = (estimate(&plain.inputs), estimate(&d.inputs));
    assert_eq!(term(&e, "draft_weights"), 849_763_584);
    assert_eq!(term(&e0, "draft_weights"), 0);
    // One more layer of the target's shape in the pool: 33 layers where there were 32, every
    // token's K and V at 8 heads × 128 × 2 B, two requests of 8192 tokens.
    let layer = 2 * 8 * 128 * 2 * 8192 * 2;
    assert_eq!(term(&e0, "kv_cache"), 32 * layer);
    assert_eq!(term(&e, "kv_cache"), 33 * layer);
    // The pool holds fewer tokens: the head's bytes and its layer both come out of it.
    let tokens = |e: &fitcard_estimator::Estimate| e.kv_pool_tokens.expect("a vLLM pool");
    // What held 32 layers a token (131,072 B) less the head's weights, over 33 layers, in
    // blocks of 16 tokens.
    let want = (tokens(&e0) * 131_072 - 849_763_584) / 135_168;
    assert!(
        want - tokens(&e) < 16,
        "{} tokens against {want}",
        tokens(&e)
    );
    let c = e.command.clone();
    assert!(
        c.contains(r#"--speculative-config '{"method":"eagle3","model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3}'"#),
        "{c}"
    );
    assert!(c.contains("--max-num-seqs 2"), "{c}");
    // The published speedup of the head on vLLM, with its source.
    let sp = e.speed.expect("speed").spec_speedup.expect("a speedup");
    assert_eq!((sp.low, sp.high), (1.63, 1.75));
    assert!(sp
        .source
        .contains("https://github.com/vllm-project/vllm/issues/20780"));
    // ndraft sets the tokens per step; the link keeps the method.
    let d4 = from_query(&format!("{LLAMA}&spec=eagle&ndraft=5"));
    let c4 = estimate(&d4.inputs).command;
    assert!(c4.contains(r#""num_speculative_tokens":5"#), "{c4}");
    assert!(encode(&d4.inputs).contains("spec=eagle"));
}

#[test]
fn eagle3_refused_by_name_elsewhere() {
    for (q, words) in [
        (
            "model=meta-llama/Llama-3.1-8B-Instruct&engine=transformers&gpu=h100-sxm&spec=eagle",
            "transformers",
        ),
        (
            "model=meta-llama/Llama-3.1-8B-Instruct&engine=mlx&gpu=m4-max-128gb&spec=eagle",
            "MLX",
        ),
        (
            "model=Qwen/Qwen3-14B&engine=vllm&quant=BF16&gpu=h100-sxm&spec=eagle",
            "no EAGLE-3 head for Qwen/Qwen3-14B",
        ),
    ] {
        let d = from_query(q);
        let n = d
            .notices
            .iter()
            .find(|n| n.key == Key::Spec)
            .unwrap_or_else(|| panic!("{q}: no notice"));
        assert!(n.message.contains(words), "{q}: {}", n.message);
        let e = estimate(&d.inputs);
        assert_eq!(term(&e, "draft_weights"), 0, "{q}");
        assert!(!e.command.contains("eagle"), "{q}");
    }
}

/// SGLang (0.5.14 on) counts the head's weights inside --mem-fraction-static and grows each
/// token's bytes by the draft's layer over the target's (pool_configurator.py): the same terms as
/// vLLM's, the pool of fewer tokens, and the command written as a chain of `ndraft` steps.
#[test]
fn sglang_eagle3_weights_pool_and_command() {
    let q = "model=meta-llama/Llama-3.1-8B-Instruct&quant=BF16&engine=sglang&gpu=rtx-4090&ctx=8192&par=2";
    let plain = from_query(q);
    let d = from_query(&format!("{q}&spec=eagle"));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let (e0, e) = (estimate(&plain.inputs), estimate(&d.inputs));
    assert_eq!(term(&e, "draft_weights"), 849_763_584);
    let layer = 2 * 8 * 128 * 2 * 8192 * 2;
    assert_eq!(term(&e0, "kv_cache"), 32 * layer);
    assert_eq!(term(&e, "kv_cache"), 33 * layer);
    assert_eq!(
        e.total_device_bytes.get() - e0.total_device_bytes.get(),
        849_763_584 + layer,
        "the head adds its weights and one layer's KV, nothing else"
    );
    // The pool: what held 32 layers a token (131,072 B) less the head's weights, over 33.
    let (t0, t) = (
        e0.kv_pool_tokens.expect("pool"),
        e.kv_pool_tokens.expect("pool"),
    );
    let want = (t0 * 131_072 - 849_763_584) / 135_168;
    assert!(t.abs_diff(want) <= 1, "{t} tokens against {want}");
    let c = &e.command;
    assert!(
        c.contains("--speculative-algorithm EAGLE3 --speculative-draft-model-path yuhuili/EAGLE3-LLaMA3.1-Instruct-8B --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"),
        "{c}"
    );
    assert!(c.contains("--max-running-requests 2"), "{c}");
    let c5 = estimate(&from_query(&format!("{q}&spec=eagle&ndraft=5")).inputs).command;
    assert!(
        c5.contains(
            "--speculative-num-steps 5 --speculative-eagle-topk 1 --speculative-num-draft-tokens 6"
        ),
        "{c5}"
    );
    let sp = e.speed.expect("speed").spec_speedup.expect("a speedup");
    assert_eq!((sp.low, sp.high), (1.63, 2.36));
    assert!(sp
        .source
        .contains("https://docs.sglang.io/advanced_features/speculative_decoding.html"));
    // The draft's words name SGLang's rule and its version.
    let w = e
        .terms
        .iter()
        .find(|t| t.name.id() == "draft_weights")
        .expect("the head's term");
    assert!(w.domain.contains("SGLang 0.5.14"), "{}", w.domain);
    // Off the head's target, SGLang refuses by name as vLLM does.
    let other = from_query("model=Qwen/Qwen3-14B&engine=sglang&quant=BF16&gpu=h100-sxm&spec=eagle");
    assert!(other
        .notices
        .iter()
        .any(|n| n.key == Key::Spec && n.message.contains("no EAGLE-3 head for Qwen/Qwen3-14B")));
}

/// llama.cpp (after PR #18039) loads the head converted to GGUF as a model of its own with a
/// context of its own at the target's parameters: its 16-bit weights and a one-layer F16 cache at
/// the target's cells, whatever the target's cache types; the command converts the head first.
#[test]
fn llama_cpp_eagle3_own_cache_and_command() {
    let q = "model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&engine=llama.cpp&gpu=rtx-4090&ctx=8192&par=2";
    let plain = estimate(&from_query(q).inputs);
    for kv in ["f16", "q8_0"] {
        let d = from_query(&format!("{q}&kv={kv}&spec=eagle"));
        assert!(d.notices.is_empty(), "{:?}", d.notices);
        let e = estimate(&d.inputs);
        // 16 bits: the parameters at 2 B, and d2t (int64 per draft token); no t2d.
        assert_eq!(term(&e, "draft_weights"), HEAD_PARAMS * 2 + 32000 * 8);
        // -c 16384 -np 2: 16,384 cells, K and V of 8 heads × 128 at 2 B, one layer.
        assert_eq!(
            term(&e, "draft_kv_cache"),
            16384 * 2 * 8 * 128 * 2,
            "kv={kv}"
        );
        let c = &e.command;
        assert!(c.starts_with("hf download yuhuili/EAGLE3-LLaMA3.1-Instruct-8B --local-dir eagle3-head && hf download meta-llama/Llama-3.1-8B-Instruct --include \"*.json\" --local-dir eagle3-target && python convert_hf_to_gguf.py eagle3-head --target-model-dir eagle3-target --outtype auto --outfile eagle3-head.gguf\nllama-server "), "{c}");
        assert!(
            c.contains(
                " -md eagle3-head.gguf -ngld 999 --spec-type draft-eagle3 --spec-draft-n-max 3"
            ),
            "{c}"
        );
    }
    let e = estimate(&from_query(&format!("{q}&spec=eagle")).inputs);
    assert_eq!(
        e.total_device_bytes.get() - plain.total_device_bytes.get(),
        term(&e, "draft_weights") + term(&e, "draft_kv_cache"),
        "the target's own terms are unchanged"
    );
    let sp = e.speed.expect("speed").spec_speedup.expect("a speedup");
    assert_eq!((sp.low, sp.high), (1.08, 2.36));
    assert!(sp
        .source
        .contains("https://github.com/ggml-org/llama.cpp/pull/18039"));
    let w = e
        .terms
        .iter()
        .find(|t| t.name.id() == "draft_kv_cache")
        .expect("term");
    assert!(w.provenance.contains("-ctkd"), "{}", w.provenance);
}
