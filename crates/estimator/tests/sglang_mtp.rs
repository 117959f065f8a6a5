//! `spec=mtp` on SGLang (0.5.14 on): the model's own MTP layer drafted by SGLang's EAGLE drafter.
//! Its pool's tokens hold one more layer each (the draft's `num_nextn_predict_layers` over the
//! target's layers, python/sglang/srt/model_executor/pool_configurator.py), and the draft's own
//! copies of the embedding and LM head are resident while the pool is sized
//! (<https://github.com/sgl-project/sglang/issues/36452>). GLM-4.5-Air
//! (<https://huggingface.co/zai-org/GLM-4.5-Air/blob/main/config.json>): 46 layers, 8 KV heads of
//! 128, hidden 4096, vocabulary 151,552; its BF16 checkpoint keeps the MTP layer.

use fitcard_estimator::inputs::Key;
use fitcard_estimator::{encode, estimate, from_query};

mod common;
use common::term;

const AIR: &str =
    "model=zai-org/GLM-4.5-Air&quant=BF16&engine=sglang&gpu=h100-sxm&cards=4&ctx=8192&par=2";

#[test]
fn sglang_mtp_layer_copies_and_command() {
    let plain = estimate(&from_query(AIR).inputs);
    let d = from_query(&format!("{AIR}&spec=mtp"));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let e = estimate(&d.inputs);
    // The checkpoint counts the MTP layer already: the draft adds its embedding and LM head
    // copies only, 2 × 151,552 × 4,096 × 2 B.
    let copies = 2 * 151_552 * 4096 * 2;
    assert_eq!(term(&e, "draft_weights"), copies);
    assert_eq!(
        term(&e, "draft_kv_cache"),
        0,
        "the MTP layer's KV is the pool's"
    );
    // One more layer per token: 47 where there were 46 (K and V, 8 heads × 128 × 2 B; 4-way
    // tensor parallel, two requests of 8192).
    let layer = 2 * 8 * 128 * 2 * 8192 * 2;
    assert_eq!(term(&plain, "kv_cache"), 46 * layer);
    assert_eq!(term(&e, "kv_cache"), 47 * layer);
    let (t0, t) = (
        plain.kv_pool_tokens.expect("pool"),
        e.kv_pool_tokens.expect("pool"),
    );
    assert!(t < t0, "{t} against {t0}");
    let c = &e.command;
    assert!(
        c.contains("--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"),
        "{c}"
    );
    assert!(!c.contains("--speculative-draft-model-path"), "{c}");
    let sp = e.speed.expect("speed").spec_speedup.expect("a speedup");
    assert_eq!((sp.low, sp.high), (1.5, 1.8));
    let w = e
        .terms
        .iter()
        .find(|t| t.name.id() == "draft_weights")
        .expect("term");
    assert!(w.provenance.contains("issues/36452"), "{}", w.provenance);
    assert!(w.domain.contains("SGLang 0.5.14"), "{}", w.domain);
    assert!(encode(&d.inputs).contains("spec=mtp&ndraft=3"));
}

#[test]
fn sglang_mtp_refused_where_its_budget_differs() {
    // GLM-5's DSA indexer cache, a hybrid's unbudgeted draft layer: refused by name.
    let d = from_query("model=zai-org/GLM-5&quant=FP8&engine=sglang&gpu=h200&cards=8&spec=mtp");
    let n = d
        .notices
        .iter()
        .find(|n| n.key == Key::Spec)
        .expect("a notice");
    assert!(
        n.message
            .contains("SGLang's MTP of zai-org/GLM-5 is not estimated"),
        "{}",
        n.message
    );
    let e = estimate(&d.inputs);
    assert_eq!(term(&e, "draft_weights"), 0);
    assert!(
        !e.command.contains("--speculative-algorithm"),
        "{}",
        e.command
    );
}
