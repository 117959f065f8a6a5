//! Numbers from a header or a config that broke the arithmetic: each case panicked (overflow
//! checks on, as in this test profile) or wrapped to a plausible value (release) before it was
//! bounded or checked. The structure-aware fuzz targets (`tests/fuzz.rs`) search for more.

use fitcard_estimator::catalog::{catalog, Mla};
use fitcard_estimator::{from_query, readers::gguf, readers::hf, serve::speed, Bytes};

fn deepseek_config() -> serde_json::Value {
    let p = format!(
        "{}/tests/data/fuzz/deepseek.config.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn a_latent_rank_that_wraps_when_added_is_refused() {
    // kv_lora_rank + qk_rope_head_dim wrapped to a small value and passed the bound.
    let mut c = deepseek_config();
    c["kv_lora_rank"] = serde_json::json!(u64::MAX);
    let err = hf::to_variant("x/y", &c.to_string(), Bytes(1 << 33), &[]).unwrap_err();
    assert!(err.contains("latent rank"), "{err}");
    let (_, v) = catalog().variant("Qwen/Qwen3-8B").unwrap();
    let mut a = v.arch.clone();
    a.mla = Some(Mla {
        kv_lora_rank: u64::MAX - 10,
        qk_rope_head_dim: 64,
        index_head_dim: None,
        index_heads: None,
        q_lora_rank: None,
        v_head_dim: None,
    });
    assert!(a.absurd().is_some());
}

#[test]
fn a_gemma3_pattern_of_zero_or_past_u32_is_refused() {
    for p in [
        serde_json::json!(0),
        serde_json::json!(1u64 << 32),
        serde_json::json!(-1),
    ] {
        let c = serde_json::json!({
            "model_type": "gemma3_text", "hidden_size": 2560, "num_hidden_layers": 34,
            "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
            "vocab_size": 262208, "sliding_window": 1024, "sliding_window_pattern": p,
            "max_position_embeddings": 131072
        });
        let err = hf::to_variant("x/y", &c.to_string(), Bytes(1 << 33), &[]).unwrap_err();
        assert!(err.contains("sliding_window_pattern"), "{p}: {err}");
    }
}

#[test]
fn counts_at_the_largest_accepted_dimensions_saturate() {
    // Every dimension at the bound `absurd()` accepts: the products are far past u64.
    let (_, v) = catalog().variant("Qwen/Qwen3-30B-A3B").unwrap();
    let mut a = v.arch.clone();
    a.hidden = 1 << 20;
    a.layers = 4096;
    a.heads = 1 << 16;
    a.head_dim = 1 << 16;
    a.experts = 1 << 16;
    a.experts_active = 1 << 16;
    a.moe_intermediate = Some(1 << 24);
    a.intermediate = 1 << 24;
    a.vocab = 1 << 24;
    a.mla = Some(Mla {
        kv_lora_rank: 1 << 20,
        qk_rope_head_dim: 1 << 16,
        index_head_dim: None,
        index_heads: None,
        q_lora_rank: Some(1 << 20),
        v_head_dim: Some(1 << 16),
    });
    assert_eq!(a.absurd(), None);
    let p = speed::param_counts(&a);
    assert_eq!(p.total(), u64::MAX);
    assert!(p.active() <= p.total());
}

#[test]
fn the_spill_fit_sums_per_card_bytes_without_wrapping() {
    // 16M tokens × 1,024 slots on 64 cards: each card's bytes near u64::MAX, and their sum
    // in fitted_ngl and the speed's spill wrapped.
    let p = format!("{}/tests/data/fuzz/gemma3.gguf", env!("CARGO_MANIFEST_DIR"));
    let mut h = gguf::parse(&std::fs::read(p).unwrap()).unwrap();
    for (k, v) in h.kv.iter_mut() {
        if k.starts_with("gemma3.") && matches!(v, gguf::Value::Int(_)) {
            *v = gguf::Value::Int(4096);
        }
    }
    let (v, f) = gguf::to_variant(&h, "x.gguf", Bytes(1 << 33)).unwrap();
    let q = "engine=llama.cpp&ctx=16777216&par=1024&cards=64&gpu=h200";
    let e = fitcard_estimator::serve::estimate_file(&from_query(q).inputs, &v, &f);
    assert!(!e.fits);
}
