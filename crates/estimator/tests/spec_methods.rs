//! `spec=`: how the next tokens are drafted. `mtp` runs the model's own multi-token-prediction
//! layer (llama-server `--spec-type draft-mtp`, <https://github.com/ggml-org/llama.cpp/pull/22673>),
//! `ngram` looks tokens up in the text so far (llama.cpp `ngram-mod`, vLLM and SGLang n-gram
//! drafters: nothing on the cards), `draft` is `draft=`'s model (tests/spec_draft.rs), `eagle`
//! is vLLM's EAGLE-3 head where the catalog holds one (tests/eagle3.rs) and refused by name
//! elsewhere.
//!
//! Expected bytes are written out by hand from Qwen3.6-27B's public config
//! (<https://huggingface.co/Qwen/Qwen3.6-27B/blob/main/config.json>: hidden 5120, 24 query heads
//! and 4 KV heads of 256 with a gated query, FFN 17408, `mtp_num_hidden_layers: 1`, 16 attention
//! layers of 64).

use fitcard_estimator::catalog::{catalog, tensors};
use fitcard_estimator::inputs::{Key, Spec};
use fitcard_estimator::{estimate, from_query};

mod common;
use common::term;

const QWEN: &str = "model=Qwen/Qwen3.6-27B&quant=Q4_K_M&engine=llama.cpp&gpu=rtx-4090&ctx=8192";

/// The NextN block of Qwen3.6-27B: a gated full-attention layer, its FFN, eh_proj (2·hidden ×
/// hidden) and five norms of `hidden` plus the two q/k head norms.
const MTP_PARAMS: u64 = 5120 * (2 * 24 * 256) // q_proj with its gate
    + 2 * 5120 * (4 * 256) // k_proj, v_proj
    + (24 * 256) * 5120 // o_proj
    + 2 * 256 // q_norm, k_norm
    + 3 * 5120 * 17408 // gate, up, down
    + (2 * 5120) * 5120 // eh_proj
    + 5 * 5120; // attn_norm, post_attention_norm, enorm, hnorm, shared_head_norm

#[test]
fn the_mtp_block_holds_one_attention_layer_and_the_nextn_projection() {
    let a = &catalog()
        .variant("Qwen/Qwen3.6-27B")
        .expect("in the catalog")
        .1
        .arch;
    let n: u64 = tensors::mtp_blocks(a, 1).iter().map(|t| t.elements()).sum();
    assert_eq!(MTP_PARAMS, 424_699_392);
    assert_eq!(n, MTP_PARAMS);
}

#[test]
fn mtp_adds_its_layer_its_cache_and_the_rollback_states() {
    let p = from_query(&format!("{QWEN}&spec=mtp"));
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    assert_eq!(p.inputs.spec, Some(Spec::Mtp));
    assert_eq!(p.inputs.ndraft, Some(3));
    // llama-server keeps --spec-draft-n-max extra states per sequence on a hybrid model.
    assert_eq!(p.inputs.rsseq, 3);
    let e = estimate(&p.inputs);
    // One full-attention layer at the target's 8,192 cells, K and V f16: 4 heads × 256 × 2 B each.
    assert_eq!(term(&e, "draft_kv_cache"), 8192 * 2 * 4 * 256 * 2);
    // The block at the file's mean bytes per parameter (4.5–5.5 bits for Q4_K_M).
    let w = term(&e, "draft_weights") as f64 * 8.0 / MTP_PARAMS as f64;
    assert!((4.5..5.5).contains(&w), "{w} bits per parameter");
    // The target's cache: the rollback states, as rsseq=3 alone gives them.
    let rs = estimate(&from_query(&format!("{QWEN}&rsseq=3")).inputs);
    assert_eq!(term(&e, "kv_cache"), term(&rs, "kv_cache"));
    let plain = estimate(&from_query(QWEN).inputs);
    assert!(term(&e, "kv_cache") > term(&plain, "kv_cache"));
    let cmd = &e.command;
    assert!(
        cmd.contains("-hf unsloth/Qwen3.6-27B-MTP-GGUF:Q4_K_M"),
        "{cmd}"
    );
    assert!(
        cmd.contains("--spec-type draft-mtp --spec-draft-n-max 3"),
        "{cmd}"
    );
    let t = e
        .terms
        .iter()
        .find(|t| t.name.id() == "draft_weights")
        .expect("term");
    assert!(t.provenance.contains("draft-mtp"), "{}", t.provenance);
    let sp = e
        .speed
        .as_ref()
        .and_then(|s| s.spec_speedup.as_ref())
        .expect("a range");
    assert!(sp.low < sp.high && sp.source.contains("28196"));
}

#[test]
fn ndraft_sets_the_draft_tokens_and_the_states_the_link_keeps() {
    let p = from_query(&format!("{QWEN}&spec=mtp&ndraft=2"));
    assert_eq!(p.inputs.rsseq, 2);
    let e = estimate(&p.inputs);
    assert!(e.command.contains("--spec-draft-n-max 2"), "{}", e.command);
    let q = fitcard_estimator::encode(&p.inputs);
    assert!(
        q.contains("spec=mtp") && q.contains("ndraft=2") && q.contains("rsseq=2"),
        "{q}"
    );
    assert_eq!(from_query(&q).inputs, p.inputs);
}

#[test]
fn ngram_drafts_from_the_text_so_far_with_nothing_on_the_cards() {
    let plain = estimate(&from_query(QWEN).inputs);
    let p = from_query(&format!("{QWEN}&spec=ngram"));
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    assert_eq!(p.inputs.ndraft, Some(64));
    let e = estimate(&p.inputs);
    assert_eq!(e.total_device_bytes, plain.total_device_bytes);
    assert!(
        e.command
            .contains("--spec-type ngram-mod --spec-ngram-mod-n-max 64"),
        "{}",
        e.command
    );
    assert!(e.speed.as_ref().is_some_and(|s| s.spec_speedup.is_none()));
    let v = "model=Qwen/Qwen3-8B&engine=vllm&gpu=h100-sxm&spec=ngram&ndraft=5";
    let e = estimate(&from_query(v).inputs);
    assert!(
        e.command.contains(
            r#"--speculative-config '{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4}'"#
        ),
        "{}",
        e.command
    );
    let s = "model=Qwen/Qwen3-8B&engine=sglang&gpu=h100-sxm&spec=ngram";
    let e = estimate(&from_query(s).inputs);
    assert!(
        e.command
            .contains("--speculative-algorithm NGRAM --speculative-num-draft-tokens 3"),
        "{}",
        e.command
    );
}

#[test]
fn what_cannot_be_estimated_is_refused_by_name() {
    for (q, key, says) in [
        (
            "model=Qwen/Qwen3-8B&engine=llama.cpp&spec=mtp",
            Key::Spec,
            "Qwen3.5, Qwen3.6",
        ),
        (
            "model=zai-org/GLM-5.1&quant=FP8&engine=sglang&gpu=h200&cards=8&spec=mtp",
            Key::Spec,
            "not estimated",
        ),
        (
            "model=Qwen/Qwen3-8B&engine=vllm&gpu=h100-sxm&spec=mtp",
            Key::Spec,
            "no MTP layer",
        ),
        (
            "model=Qwen/Qwen3-14B&engine=llama.cpp&spec=eagle",
            Key::Spec,
            "EAGLE-3",
        ),
        (
            "model=Qwen/Qwen3-8B&engine=ollama&spec=ngram",
            Key::Spec,
            "Ollama",
        ),
        (
            "model=Qwen/Qwen3-8B&engine=llama.cpp&spec=draft",
            Key::Spec,
            "draft=",
        ),
        (
            "model=Qwen/Qwen3-8B&engine=llama.cpp&ndraft=4",
            Key::Ndraft,
            "spec=",
        ),
        (
            "model=Qwen/Qwen3-8B&engine=llama.cpp&spec=medusa",
            Key::Spec,
            "draft, mtp, eagle, ngram",
        ),
    ] {
        let p = from_query(q);
        let n = p
            .notices
            .iter()
            .find(|n| n.key == key)
            .unwrap_or_else(|| panic!("{q}: no {key:?} notice in {:?}", p.notices));
        assert!(n.message.contains(says), "{q}: {}", n.message);
        assert!(!n.message.contains('\n'));
        assert_eq!(p.inputs.spec, None, "{q}");
        assert_eq!(p.inputs.ndraft, None, "{q}");
        let e = estimate(&p.inputs);
        assert!(!e.command.contains("--spec"), "{q}: {}", e.command);
        assert_eq!(term(&e, "draft_weights"), 0, "{q}");
    }
}

#[test]
fn a_draft_model_beside_another_method_is_left_out() {
    let p = from_query(&format!("{QWEN}&spec=mtp&draft=Qwen/Qwen3.5-0.8B"));
    assert!(p.inputs.draft.is_none());
    assert_eq!(p.inputs.spec, Some(Spec::Mtp));
    assert!(
        p.notices.iter().any(|n| n.key == Key::Draft),
        "{:?}",
        p.notices
    );
    // draft= alone is spec=draft, and its link stays as it was.
    let d = from_query("model=Qwen/Qwen3-8B&engine=llama.cpp&draft=Qwen/Qwen3-0.6B");
    assert_eq!(d.inputs.spec, Some(Spec::Draft));
    assert!(!fitcard_estimator::encode(&d.inputs).contains("spec="));
}

#[test]
fn a_model_without_a_known_mtp_file_is_warned_about() {
    let p = from_query("model=Qwen/Qwen3.5-9B&engine=llama.cpp&gpu=rtx-4090&spec=mtp");
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    let e = estimate(&p.inputs);
    assert!(
        e.warnings.iter().any(|w| w.contains("blk.N.nextn")),
        "{:?}",
        e.warnings
    );
    assert!(
        e.command.contains("-hf unsloth/Qwen3.5-9B-GGUF:"),
        "{}",
        e.command
    );
    let q = estimate(&from_query(QWEN).inputs);
    assert!(!q.warnings.iter().any(|w| w.contains("nextn")));
}

/// vLLM's `mtp` drafter: its attention layer joins the target's KV pool (each token's KV grows
/// by one layer of the model's), and its weights are the checkpoint's `mtp.*` block.
#[test]
fn vllm_mtp_adds_a_layer_to_the_pool_and_loads_the_block() {
    let q = "model=zai-org/GLM-4.7-Flash&engine=vllm&gpu=h100-sxm&ctx=8192&par=4";
    let plain = estimate(&from_query(q).inputs);
    let p = from_query(&format!("{q}&spec=mtp"));
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    let e = estimate(&p.inputs);
    // 47 latent-attention layers, and the MTP layer's: 48/47 of the KV, whole blocks alike.
    assert_eq!(term(&e, "kv_cache") * 47, term(&plain, "kv_cache") * 48);
    assert!(e.terms.iter().all(|t| t.name.id() != "draft_kv_cache"));
    // This BF16 size was computed without the MTP layer: its block at 2 bytes a parameter,
    // the embedding and the head shared with the target.
    let a = &catalog()
        .variant("zai-org/GLM-4.7-Flash")
        .expect("catalog")
        .1
        .arch;
    let block: u64 = tensors::mtp_blocks(a, 1)
        .iter()
        .filter(|t| !t.name.contains("embed_tokens") && !t.name.contains("shared_head_head"))
        .map(|t| t.elements())
        .sum();
    let per = term(&e, "draft_weights") as f64 / block as f64;
    assert!((1.99..2.01).contains(&per), "{per} bytes per parameter");
    assert!(e.max_concurrency < plain.max_concurrency);
    assert!(
        !e.warnings.iter().any(|w| w.contains("nextn")),
        "{:?}",
        e.warnings
    );
    assert!(
        e.command
            .contains(r#"--speculative-config '{"method":"mtp","num_speculative_tokens":3}'"#),
        "{}",
        e.command
    );
    let sp = e
        .speed
        .as_ref()
        .and_then(|s| s.spec_speedup.as_ref())
        .expect("a range");
    assert!(sp.low < 1.0 && sp.source.contains("vllm-project/vllm/issues/38182"));
    // GLM-4.5-Air's size counts the MTP layer (the converter's and the checkpoint's): no more
    // weights, one more layer of KV.
    let air = "model=zai-org/GLM-4.5-Air&engine=vllm&gpu=h100-sxm&cards=4&ctx=8192";
    let (a0, a1) = (
        estimate(&from_query(air).inputs),
        estimate(&from_query(&format!("{air}&spec=mtp")).inputs),
    );
    assert_eq!(term(&a1, "draft_weights"), 0);
    assert_eq!(term(&a1, "kv_cache") * 46, term(&a0, "kv_cache") * 47);
}

/// `draft=` on vLLM: the draft's checkpoint on the cards and its layers in the target's pool.
#[test]
fn a_vllm_draft_model_loads_its_checkpoint_and_shares_the_pool() {
    let q = "model=Qwen/Qwen3-32B&quant=BF16&engine=vllm&gpu=h100-sxm&ctx=8192&par=4";
    let p = from_query(&format!("{q}&draft=Qwen/Qwen3-0.6B"));
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    assert_eq!(p.inputs.spec, Some(Spec::Draft));
    let d = p.inputs.draft.as_deref().expect("draft");
    let f = d
        .file(fitcard_estimator::Engine::Vllm)
        .expect("a checkpoint of the draft");
    let e = estimate(&p.inputs);
    assert_eq!(term(&e, "draft_weights"), f.bytes.get());
    // Qwen3-0.6B: 28 layers × 8 KV heads × 128 × 2 (K, V) × 2 B per token, 8,192 tokens (whole
    // 16-token blocks) × 4 requests.
    let a = &catalog()
        .variant("Qwen/Qwen3-0.6B")
        .expect("catalog")
        .1
        .arch;
    assert_eq!((a.layers, a.kv_heads, a.head_dim), (28, 8, 128));
    assert_eq!(term(&e, "draft_kv_cache"), 28 * 8 * 128 * 2 * 2 * 8192 * 4);
    assert!(
        e.command.contains(&format!(
            r#"--speculative-config '{{"model":"{}","num_speculative_tokens":3}}'"#,
            f.repo
        )),
        "{}",
        e.command
    );
    assert!(e.speed.as_ref().is_some_and(|s| s.spec_speedup.is_none()));
    let plain = estimate(&from_query(q).inputs);
    assert!(e.max_concurrency < plain.max_concurrency);
}

/// The main context of a published llama-server MTP run (`n_rs_seq = 2`, 65,536 unified cells,
/// one sequence; https://github.com/ggml-org/llama.cpp/pull/23269, a Qwen3.5/3.6 35B-A3B:
/// 10 attention layers of 2 KV heads × 256, 30 Gated DeltaNet layers): "llama_kv_cache: size =
/// 1280.00 MiB ( 65536 cells, 10 layers, 1/1 seqs)" and "llama_memory_recurrent: size = 188.44
/// MiB ( 1 cells, 41 layers, 1 seqs 2 rs_seq), R (f32): 8.44 MiB, S (f32): 180.00 MiB".
#[test]
fn a_published_mtp_run_keeps_two_rollback_states_byte_exact() {
    let q = "model=Qwen/Qwen3.6-35B-A3B&quant=Q4_K_M&engine=llama.cpp&gpu=rtx-4090&ctx=65536&kvu=1&spec=mtp&ndraft=2";
    let p = from_query(q);
    assert_eq!(p.inputs.rsseq, 2);
    let e = estimate(&p.inputs);
    const MIB: u64 = 1 << 20;
    // R: 3 conv rows × (16·128·2 + 32·128) × 4 B; S: 32 heads × 128 × 128 × 4 B; each per layer,
    // per state (1 + 2), over 30 layers.
    let r = 30 * 3 * 3 * (16 * 128 * 2 + 32 * 128) * 4;
    let s = 30 * 3 * 32 * 128 * 128 * 4;
    assert_eq!((r as f64 / MIB as f64 * 100.0).round(), 844.0);
    assert_eq!(s, 180 * MIB);
    assert_eq!(term(&e, "kv_cache"), 1280 * MIB + r + s);
}

/// GLM-4.5 to 4.7 on llama.cpp: the GGUF keeps the nextn block (counted in its weights), and the
/// draft context holds that one layer's KV (PR #28630).
#[test]
fn glm_mtp_on_llama_cpp_adds_the_layer_cache_only() {
    let q = "model=zai-org/GLM-4.5-Air&quant=Q4_K_M&engine=llama.cpp&gpu=h100-sxm&ctx=8192";
    let p = from_query(&format!("{q}&spec=mtp"));
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    let e = estimate(&p.inputs);
    assert_eq!(term(&e, "draft_weights"), 0);
    // GLM-4.5-Air: 8 KV heads × 128, K and V f16, 8,192 cells.
    assert_eq!(term(&e, "draft_kv_cache"), 8192 * 8 * 128 * 2 * 2);
    assert!(
        !e.warnings.iter().any(|w| w.contains("nextn")),
        "{:?}",
        e.warnings
    );
    assert!(e.command.contains("--spec-type draft-mtp"), "{}", e.command);
}

/// transformers: prompt lookup decoding (`prompt_lookup_num_tokens`), one request at a time.
#[test]
fn transformers_looks_tokens_up_in_the_prompt_for_one_request() {
    let q = "model=Qwen/Qwen3-8B&engine=transformers&gpu=h100-sxm&quant=BF16&spec=ngram";
    let p = from_query(q);
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    let e = estimate(&p.inputs);
    let plain = estimate(
        &from_query("model=Qwen/Qwen3-8B&engine=transformers&gpu=h100-sxm&quant=BF16").inputs,
    );
    assert_eq!(e.total_device_bytes, plain.total_device_bytes);
    assert!(
        e.command.contains("prompt_lookup_num_tokens=3"),
        "{}",
        e.command
    );
    let many = from_query(&format!("{q}&par=4"));
    assert!(many
        .notices
        .iter()
        .any(|n| n.message.contains("one request at a time")));
    assert_eq!(many.inputs.spec, None);
}

/// A measured layout (`gl=`) and vLLM's MTP layer together: the plan keeps both (on a model
/// without sliding layers every layer holds the whole context, so the MTP layer adds 1/46).
#[test]
fn vllm_mtp_keeps_a_measured_layout() {
    let q = "model=zai-org/GLM-4.5-Air&engine=vllm&gpu=h100-sxm&cards=4&ctx=8192&gl=23";
    let p = from_query(&format!("{q}&spec=mtp"));
    assert_eq!(p.inputs.gl, Some(23.0));
    let gl = estimate(&from_query(q).inputs);
    let both = estimate(&p.inputs);
    assert_eq!(term(&both, "kv_cache") * 46, term(&gl, "kv_cache") * 47);
}
