//! Hugging Face checkpoints: config.json into the catalog's architecture, safetensors headers
//! bounded, quantization_config into the format.

use fitcard_estimator::catalog::catalog;
use fitcard_estimator::readers::hf::{
    arch_of, bytes_per_dtype, format_of, format_with, safetensors_header, to_variant, HeaderError,
    Tensor,
};
use fitcard_estimator::{estimate, from_query, serve::estimate_file};
use serde_json::json;

/// Qwen3-0.6B's config (https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json, the fields
/// the estimate reads).
fn qwen3_06b() -> serde_json::Value {
    json!({"model_type": "qwen3", "hidden_size": 1024, "num_hidden_layers": 28,
           "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
           "intermediate_size": 3072, "vocab_size": 151936, "max_position_embeddings": 40960,
           "tie_word_embeddings": true, "torch_dtype": "bfloat16",
           "sliding_window": null, "use_sliding_window": false})
}

#[test]
fn config_reads_as_the_catalog_architecture() {
    let a = arch_of(&qwen3_06b(), "test").unwrap();
    let (_, v) = catalog().variant("Qwen/Qwen3-0.6B").unwrap();
    let c = &v.arch;
    assert_eq!(
        (
            a.layers,
            a.heads,
            a.kv_heads,
            a.head_dim,
            a.vocab,
            a.max_ctx,
            a.tied_embeddings,
            a.swa
        ),
        (
            c.layers,
            c.heads,
            c.kv_heads,
            c.head_dim,
            c.vocab,
            c.max_ctx,
            c.tied_embeddings,
            c.swa
        )
    );
    // gemma-3: text_config, sliding layers 5 of every 6 with a 1024 window.
    let g = arch_of(
        &json!({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
                "hidden_size": 2560, "num_hidden_layers": 34, "num_attention_heads": 8,
                "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 262208,
                "sliding_window": 1024, "sliding_window_pattern": 6,
                "max_position_embeddings": 131072}}),
        "test",
    )
    .unwrap();
    let (_, v) = catalog().variant("google/gemma-3-4b-it").unwrap();
    assert_eq!(g.kv_layer_split(), v.arch.kv_layer_split());
    assert!(arch_of(&json!({"hidden_size": 0}), "t").is_err());
}

/// The checkpoint's files are the input: the KV cache equals the catalog's and a stored
/// duplicate `lm_head` of a tied model is dropped on load.
#[test]
fn a_checkpoint_estimates_like_the_catalog() {
    let (_, cat) = catalog().variant("Qwen/Qwen3-0.6B").unwrap();
    let st = cat
        .formats
        .iter()
        .find(|f| {
            f.id.id() == "BF16"
                && f.container == fitcard_estimator::catalog::quant::Container::Safetensors
        })
        .unwrap();
    let tensors = vec![
        Tensor {
            name: "model.embed_tokens.weight".into(),
            dtype: "BF16".into(),
            bytes: 151936 * 1024 * 2,
        },
        Tensor {
            name: "lm_head.weight".into(),
            dtype: "BF16".into(),
            bytes: 151936 * 1024 * 2,
        },
    ];
    let (v, f) = to_variant(
        "Qwen/Qwen3-0.6B",
        &qwen3_06b().to_string(),
        st.bytes,
        &tensors,
    )
    .unwrap();
    assert!(f.duplicate_output);
    let q = "engine=transformers&quant=BF16&ctx=8192&kv=bf16";
    let from_files = estimate_file(&from_query(q).inputs, &v, &f);
    let from_catalog = estimate(&from_query(&format!("model=Qwen/Qwen3-0.6B&{q}")).inputs);
    assert_eq!(
        from_files.total_device_bytes,
        from_catalog.total_device_bytes
    );
}

#[test]
fn quantization_configs_name_the_format() {
    // (quantization_config, format id, words)
    let rows = [
        (
            json!({"quant_method": "awq", "bits": 4}),
            "AWQ",
            "AWQ 4-bit",
        ),
        (
            json!({"quant_method": "gptq", "bits": 8}),
            "GPTQ-Int8",
            "GPTQ Int8",
        ),
        (
            json!({"quant_method": "gptq", "bits": 4}),
            "GPTQ",
            "GPTQ Int4",
        ),
        (
            json!({"quant_method": "fp8", "weight_block_size": [128, 128]}),
            "FP8",
            "FP8 (block scales)",
        ),
        (json!({"quant_method": "mxfp4"}), "MXFP4", "MXFP4"),
        (
            json!({"quant_method": "bitsandbytes", "load_in_4bit": true}),
            "BNB-NF4",
            "bitsandbytes 4-bit",
        ),
        (
            json!({"quant_method": "bitsandbytes", "load_in_8bit": true}),
            "BNB-INT8",
            "bitsandbytes int8",
        ),
        (
            json!({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized"}),
            "NVFP4",
            "compressed-tensors NVFP4",
        ),
        (
            json!({"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 8, "type": "float"}}}}),
            "FP8",
            "compressed-tensors FP8",
        ),
        (
            json!({"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 8, "type": "int"}}}}),
            "W8A8",
            "compressed-tensors INT8",
        ),
    ];
    for (q, id, words) in rows {
        let (quant, w) = format_of(&json!({"quantization_config": q}));
        assert_eq!((quant.id(), w.as_str()), (id, words));
    }
    assert_eq!(format_of(&json!({"torch_dtype": "float16"})).0.id(), "F16");
}

fn t(name: &str, dtype: &str, bytes: u64) -> Tensor {
    Tensor {
        name: name.into(),
        dtype: dtype.into(),
        bytes,
    }
}

/// The headers' tensors decide what the config leaves open: the stored dtype without a
/// `quantization_config`, and the packed weights of compressed-tensors.
#[test]
fn tensor_dtypes_refine_the_format() {
    let fp8 = [
        t("model.layers.0.mlp.up_proj.weight", "F8_E4M3", 1000),
        t("model.layers.0.mlp.up_proj.weight_scale_inv", "F32", 4),
        t("model.embed_tokens.weight", "BF16", 300),
    ];
    assert_eq!(
        bytes_per_dtype(&fp8),
        vec![
            ("F8_E4M3".to_string(), 1000),
            ("BF16".to_string(), 300),
            ("F32".to_string(), 4)
        ]
    );
    // No quantization_config, a config saying float32, tensors stored in F8_E4M3 / BF16.
    let c = json!({"torch_dtype": "float32"});
    assert_eq!(format_with(&c, &fp8).0.id(), "FP8");
    assert_eq!(
        format_with(&c, &[t("w", "BF16", 10), t("b", "F32", 2)])
            .0
            .id(),
        "BF16"
    );
    assert_eq!(format_with(&c, &[]).0.id(), "F32");
    let ct = |group: serde_json::Value| json!({"quantization_config": {"quant_method": "compressed-tensors", "config_groups": group}});
    let nvfp4 = [
        t("l.weight_packed", "U8", 500),
        t("l.weight_scale", "F8_E4M3", 60),
        t("l.weight_global_scale", "F32", 4),
        t("e.weight", "BF16", 900),
    ];
    assert_eq!(format_with(&ct(json!({})), &nvfp4).0.id(), "NVFP4");
    let w4a16 = [
        t("l.weight_packed", "I32", 500),
        t("l.weight_scale", "BF16", 60),
    ];
    assert_eq!(format_with(&ct(json!({})), &w4a16).0.id(), "GPTQ");
    let w8a8 = [t("l.weight", "I8", 500), t("l.weight_scale", "F32", 60)];
    assert_eq!(format_with(&ct(json!({})), &w8a8).0.id(), "W8A8");
    assert_eq!(format_with(&ct(json!({})), &fp8).0.id(), "FP8");
    // AWQ: the config decides (qweight I32, scales F16).
    let awq = json!({"quantization_config": {"quant_method": "awq", "bits": 4}});
    let q = [t("l.qweight", "I32", 500), t("l.scales", "F16", 30)];
    assert_eq!(format_with(&awq, &q).0.id(), "AWQ");
    // The note of a checkpoint names its format and its bytes per dtype.
    let (_, f) = to_variant(
        "o/m",
        &qwen3_06b().to_string(),
        fitcard_estimator::Bytes(1 << 30),
        &fp8,
    )
    .unwrap();
    assert_eq!(f.id.id(), "FP8");
    let note = f.note.unwrap();
    assert!(
        note.starts_with("config.json: FP8 (its tensors); headers: F8_E4M3 "),
        "{note}"
    );
}

#[test]
fn safetensors_headers_are_bounded() {
    let body = br#"{"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},"__metadata__":{}}"#;
    let mut b = (body.len() as u64).to_le_bytes().to_vec();
    b.extend(body);
    let t = safetensors_header(&b).unwrap();
    assert_eq!((t.len(), t[0].bytes), (1, 4));
    assert_eq!(
        safetensors_header(&b[..20]),
        Err(HeaderError::NeedMore(b.len() as u64))
    );
    assert_eq!(safetensors_header(&b[..3]), Err(HeaderError::NeedMore(8)));
    let huge = (1u64 << 40).to_le_bytes();
    assert!(matches!(
        safetensors_header(&huge),
        Err(HeaderError::Bad(_))
    ));
    let mut bad = 4u64.to_le_bytes().to_vec();
    bad.extend(b"[1,2");
    assert!(matches!(safetensors_header(&bad), Err(HeaderError::Bad(_))));
    let neg = br#"{"a":{"dtype":"BF16","data_offsets":[9,4]}}"#;
    let mut n = (neg.len() as u64).to_le_bytes().to_vec();
    n.extend(neg);
    assert!(matches!(safetensors_header(&n), Err(HeaderError::Bad(_))));
}

/// The new architecture kinds read from their configs give the cache llama.cpp allocates (the
/// same bytes as the independent rows in tests/llama_kv.rs: one sequence, 4096 cells, f16).
#[test]
fn latent_recurrent_and_chunked_configs() {
    use fitcard_estimator::terms::kv::{llama, LlamaParams};
    use fitcard_estimator::KvDtype;
    let f16 = |a: &fitcard_estimator::catalog::Arch| {
        llama(a, &LlamaParams::new(4096, 1, true, KvDtype::F16))
            .bytes
            .get()
    };
    // DeepSeek-V3 (https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json).
    let ds = json!({"model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61,
        "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
        "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
        "n_routed_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 2048,
        "max_position_embeddings": 163840});
    let a = arch_of(&ds, "test").unwrap();
    assert_eq!((a.mla.unwrap().kv_lora_rank, a.experts), (512, 256));
    assert_eq!(f16(&a), 287_834_112);
    // Qwen3-Next-80B-A3B (https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json).
    let qn = json!({"model_type": "qwen3_next", "hidden_size": 2048, "num_hidden_layers": 48,
        "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
        "vocab_size": 151936, "full_attention_interval": 4, "linear_conv_kernel_dim": 4,
        "linear_num_key_heads": 16, "linear_key_head_dim": 128, "linear_num_value_heads": 32,
        "linear_value_head_dim": 128, "max_position_embeddings": 262144});
    let a = arch_of(&qn, "test").unwrap();
    assert_eq!(a.kv_owning_layers(), 12);
    assert_eq!(f16(&a), 179_699_712);
    // The same layout spelled as layer_types (Qwen3.5 style).
    let mut typed = qn.clone();
    typed["layer_types"] = json!((0..48)
        .map(|il| if il % 4 == 3 {
            "full_attention"
        } else {
            "linear_attention"
        })
        .collect::<Vec<_>>());
    assert_eq!(arch_of(&typed, "test").unwrap().recurrent, a.recurrent);
    // A Mamba-2 hybrid spelled as Granite 4.0-H spells it.
    let mut types = vec!["mamba"; 40];
    for il in [9, 19, 29, 39] {
        types[il] = "attention";
    }
    let m2 = json!({"model_type": "granitemoehybrid", "hidden_size": 1536,
        "num_hidden_layers": 40, "num_attention_heads": 12, "num_key_value_heads": 8,
        "head_dim": 64, "vocab_size": 100352, "layer_types": types, "mamba_d_conv": 4,
        "mamba_n_groups": 1, "mamba_d_state": 128, "mamba_n_heads": 48, "mamba_d_head": 64});
    let a = arch_of(&m2, "test").unwrap();
    assert_eq!(a.recurrent.as_ref().unwrap().kind, "mamba2");
    assert_eq!(f16(&a), 91_615_232);
    // Llama 4's chunked attention: three chunked layers, then a global one.
    let mut l4 = qwen3_06b();
    l4["attention_chunk_size"] = json!(8192);
    let s = arch_of(&l4, "test").unwrap().swa.unwrap();
    assert_eq!(
        (s.window, s.period, s.global_offset, s.chunked),
        (8192, 4, 3, true)
    );
    // A layer kind nobody modelled is refused by name, not guessed.
    let mut odd = qwen3_06b();
    odd["layer_types"] = json!(["full_attention", "rwkv\u{202e}"]);
    let e = arch_of(&odd, "test").unwrap_err();
    assert!(
        e.contains("not modelled yet") && !e.contains('\u{202e}'),
        "{e}"
    );
}

/// Nemotron-H's config (the keys vLLM's NemotronH model reads, the values of
/// https://huggingface.co/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16/blob/main/config.json): the
/// block pattern, the Mamba-2 shapes, the experts with their shared expert; the catalog's
/// architecture comes back, and a bad pattern is refused in one line.
#[test]
fn a_nemotron_h_config_reads_as_the_catalog_architecture() {
    let c = json!({"model_type": "nemotron_h", "hidden_size": 2688, "num_hidden_layers": 52,
        "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
        "vocab_size": 131072, "max_position_embeddings": 262144, "tie_word_embeddings": false,
        "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
        "mamba_num_heads": 64, "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128,
        "conv_kernel": 4, "n_routed_experts": 128, "num_experts_per_tok": 6,
        "moe_intermediate_size": 1856, "n_shared_experts": 1,
        "moe_shared_expert_intermediate_size": 3712, "intermediate_size": 1856});
    let a = arch_of(&c, "test").unwrap();
    let want = &catalog()
        .variant("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
        .unwrap()
        .1
        .arch;
    assert_eq!(a.blocks, want.blocks);
    assert_eq!(a.recurrent, want.recurrent);
    assert_eq!(a.moe, want.moe);
    assert_eq!(
        (a.experts, a.experts_active, a.moe_intermediate),
        (128, 6, Some(1856))
    );
    for (key, value, says) in [
        (
            "hybrid_override_pattern",
            json!("MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEMQ"),
            "'Q' of hybrid_override_pattern is not modelled yet",
        ),
        (
            "hybrid_override_pattern",
            json!("M*E"),
            "3 letters for 52 layers",
        ),
        ("hybrid_override_pattern", json!(7), "not a string"),
        (
            "intermediate_size",
            json!([1856, 2048]),
            "per-layer MLP widths",
        ),
        ("mamba_num_heads", json!(null), "no mamba_num_heads"),
    ] {
        let mut bad = c.clone();
        bad[key] = value;
        let e = arch_of(&bad, "test").unwrap_err();
        assert!(e.contains(says) && !e.contains('\n'), "{key}: {e}");
    }
    // A 100 kB pattern is refused by its length before anything is built from it.
    let mut long = c.clone();
    long["hybrid_override_pattern"] = json!("M".repeat(100_000));
    assert!(arch_of(&long, "test").is_err());
    // The later configs list the blocks by name instead (`layers_block_type`, as in NVIDIA's
    // Nemotron 3.5 Lightning 30B-A3B config, whole in
    // https://github.com/ai-dynamo/aiconfigurator/blob/095f58a51c4ca8e61b66ec108d86f223f8d559ce/aic-core/src/aiconfigurator_core/model_configs/nvidia--NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4_config.json):
    // the same architecture, and a kind it does not name is refused.
    let letters = c["hybrid_override_pattern"].as_str().unwrap().to_string();
    let names: Vec<&str> = letters
        .chars()
        .map(|l| match l {
            'M' => "mamba",
            'E' => "moe",
            '*' => "attention",
            _ => "mlp",
        })
        .collect();
    let mut listed = c.clone();
    listed
        .as_object_mut()
        .unwrap()
        .remove("hybrid_override_pattern");
    listed["layers_block_type"] = json!(names);
    let b = arch_of(&listed, "test").unwrap();
    assert_eq!(
        (&b.blocks, &b.recurrent, &b.moe),
        (&a.blocks, &a.recurrent, &a.moe)
    );
    listed["layers_block_type"][3] = json!("hyper");
    let e = arch_of(&listed, "test").unwrap_err();
    assert!(e.contains("hyper") && e.contains("not modelled"), "{e}");
}

/// A sharded checkpoint's index: its shards once each (names unescaped), its tensor count and
/// total size; anything else is one line, and a shard outside the folder is refused.
#[test]
fn an_index_names_its_shards() {
    use fitcard_estimator::readers::hf::{safetensors_index, Index};
    let text = br#"{"metadata": {"total_size": 16060522496},
        "weight_map": {"lm_head.weight": "model-00004-of-00004.safetensors",
        "model.embed_tokens.weight": "model-00001-of-00004.safetensors",
        "model.layers.0.mlp.down_proj.weight": "model-00001-of-00004.safetensors",
        "model.layers.31.mlp.up_proj.weight": "model-0000\u0034-of-00004.safetensors",
        "model.norm.weight": "model-00004-of-00004.safetensors"}}"#;
    assert_eq!(
        safetensors_index(text),
        Ok(Index {
            total_size: Some(16_060_522_496),
            shards: vec![
                "model-00001-of-00004.safetensors".into(),
                "model-00004-of-00004.safetensors".into()
            ],
            tensors: 5,
        })
    );
    assert_eq!(
        safetensors_index(br#"{"weight_map": {}}"#).map(|i| (i.total_size, i.tensors)),
        Ok((None, 0))
    );
    for bad in [
        &b""[..],
        b"[]",
        br#"{"metadata": {}}"#,
        br#"{"weight_map": {"a": 3}}"#,
        br#"{"weight_map": {"a": "../x.safetensors"}}"#,
        br#"{"weight_map": {"a": "/etc/x"}}"#,
        br#"{"weight_map": {"a": "x.safetensors""#,
    ] {
        let e = safetensors_index(bad).unwrap_err();
        assert!(!e.is_empty() && !e.contains('\n'), "{e}");
    }
}

/// LFM2-350M's config (https://huggingface.co/LiquidAI/LFM2-350M/blob/main/config.json, the
/// fields the estimate reads): `block_ff_dim` 6656 adjusted by transformers' `Lfm2MLP` rule to
/// ⌈⌊2 · 6656 / 3⌋ / 256⌉ × 256 = 4608 (llama.cpp prints `n_ff = 4608` for the converted file,
/// https://github.com/ggml-org/llama.cpp/issues/14979), attention on layers 2, 5, 8, 10, 12, 14,
/// short convolutions of 3 taps elsewhere.
fn lfm2_350m() -> serde_json::Value {
    json!({"model_type": "lfm2", "hidden_size": 1024, "num_hidden_layers": 16,
           "num_attention_heads": 16, "num_key_value_heads": 8, "vocab_size": 65536,
           "max_position_embeddings": 128000, "block_ff_dim": 6656,
           "block_auto_adjust_ff_dim": true, "block_ffn_dim_multiplier": 1.0,
           "block_multiple_of": 256, "conv_L_cache": 3, "tie_embedding": true,
           "full_attn_idxs": [2, 5, 8, 10, 12, 14]})
}

/// LFM2: the `full_attn_idxs` form and the `layer_types` form read alike; the FFN width follows
/// the adjust rule only when asked; the short convolution's state is `(L − 1) × hidden` per
/// convolution layer (transformers: on every layer, `L` wide, 2 bytes); a layer kind nobody
/// modelled is refused by name.
#[test]
fn lfm2_configs_read_as_short_convolutions() {
    use fitcard_estimator::terms::kv::{dense, paged, state_bytes};
    use fitcard_estimator::KvDtype;
    let a = arch_of(&lfm2_350m(), "test").unwrap();
    let r = a.recurrent.clone().expect("short convolutions");
    assert_eq!(
        (r.kind.as_str(), r.conv_kernel, r.attention_layers.clone()),
        ("shortconv", 3, vec![2, 5, 8, 10, 12, 14])
    );
    assert_eq!(
        (a.intermediate, a.head_dim, a.kv_owning_layers()),
        (4608, 64, 6)
    );
    assert!(a.tied_embeddings);
    let mut types = vec!["conv"; 16];
    for il in [2, 5, 8, 10, 12, 14] {
        types[il] = "full_attention";
    }
    let mut c = lfm2_350m();
    c.as_object_mut().unwrap().remove("full_attn_idxs");
    c["layer_types"] = json!(types);
    let b = arch_of(&c, "test").unwrap();
    assert_eq!(b.recurrent, a.recurrent);
    // LFM2.5's configs ship `intermediate_size` with the adjustment off.
    c.as_object_mut().unwrap().remove("block_ff_dim");
    c["intermediate_size"] = json!(8192);
    c["block_auto_adjust_ff_dim"] = json!(false);
    assert_eq!(arch_of(&c, "test").unwrap().intermediate, 8192);
    // State: 10 convolution layers × 2 × 1024 values.
    assert_eq!(state_bytes(&a, 4), 10 * 2 * 1024 * 4);
    assert_eq!(
        paged(&a, 1000, 1, KvDtype::Auto, 1, 0).get(),
        1008 * 6 * 2 * 512 * 2 + 10 * 2 * 1024 * 2
    );
    // transformers: K and V of the 6 attention layers + a [hidden, 3] state on all 16 layers.
    assert_eq!(
        dense(&a, 1000, 2, KvDtype::Auto).get(),
        2 * (1000 * 6 * 2 * 512 * 2 + 16 * 1024 * 3 * 2)
    );
    let mut odd = lfm2_350m();
    odd["layer_types"] = json!(["conv", "mamba"]);
    let e = arch_of(&odd, "test").unwrap_err();
    assert!(e.contains("not modelled yet"), "{e}");
}

/// LFM2-MoE (`lfm2_moe`): LFM2's layers (short convolutions and attention by `layer_types`) with
/// the first `num_dense_layers` FFNs dense at `intermediate_size` (no width adjustment:
/// `Lfm2MoeMLP` takes the size as given) and sparse blocks of `num_experts` ×
/// `moe_intermediate_size` after them, as transformers' `Lfm2MoeDecoderLayer` builds them
/// (src/transformers/models/lfm2_moe/modular_lfm2_moe.py). `num_dense_layers` defaults to 2
/// (`Lfm2MoeConfig`).
#[test]
fn lfm2_moe_configs_read_as_short_convolutions_with_experts() {
    let mut types = vec!["conv"; 24];
    for il in [2, 6, 10, 14, 18, 21] {
        types[il] = "full_attention";
    }
    let mut c = json!({"model_type": "lfm2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 65536,
        "max_position_embeddings": 128000, "intermediate_size": 7168,
        "moe_intermediate_size": 1792, "num_experts": 32, "num_experts_per_tok": 4,
        "num_dense_layers": 2, "conv_L_cache": 3, "tie_embedding": true,
        "layer_types": types});
    let a = arch_of(&c, "test").unwrap();
    let r = a.recurrent.clone().expect("short convolutions");
    assert_eq!(r.kind, "shortconv");
    assert_eq!(r.attention_layers, vec![2, 6, 10, 14, 18, 21]);
    assert_eq!(
        (
            a.experts,
            a.experts_active,
            a.moe_intermediate,
            a.intermediate
        ),
        (32, 4, Some(1792), 7168)
    );
    assert_eq!(a.moe.map(|m| m.dense_layers), Some(2));
    assert_eq!(a.kv_owning_layers(), 6);
    c.as_object_mut().unwrap().remove("num_dense_layers");
    assert_eq!(
        arch_of(&c, "test").unwrap().moe.map(|m| m.dense_layers),
        Some(2)
    );
    // No dense layer: every layer routed, the plain layout.
    c["num_dense_layers"] = json!(0);
    assert_eq!(arch_of(&c, "test").unwrap().moe, None);
}

/// DeepSeek-V4 is refused by name, not read as the plain attention its generic fields suggest
/// (one KV head of 512, a 128-token window): its compressed sparse attention is not modelled.
/// Fields from https://huggingface.co/deepseek-ai/DeepSeek-V4-Flash/blob/main/config.json.
#[test]
fn deepseek_v4_is_refused_by_name() {
    let v4 = json!({"model_type": "deepseek_v4", "hidden_size": 4096, "num_hidden_layers": 43,
        "num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512,
        "vocab_size": 129280, "sliding_window": 128, "q_lora_rank": 1024,
        "index_head_dim": 128, "index_n_heads": 64, "n_routed_experts": 256,
        "num_experts_per_tok": 6, "moe_intermediate_size": 2048,
        "max_position_embeddings": 1048576});
    let e = arch_of(&v4, "test").unwrap_err();
    assert!(
        e.contains("DeepSeek-V4") && e.contains("not modelled"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    // The same fields under another name read.
    let mut other = v4.clone();
    other["model_type"] = json!("deepseek_v3");
    assert!(arch_of(&other, "test").is_ok());
}

/// A cross-encoder reranker's config (BAAI/bge-reranker-v2-m3: `XLMRobertaForSequenceClassification`
/// with one label, https://huggingface.co/BAAI/bge-reranker-v2-m3/blob/main/config.json) reads as
/// an encoder with a one-label classifier, served as a reranker; its tensors are the catalog
/// row's (a BERT cross-encoder's classifier is its output row alone). The same fields as an embedding model, a decoder's classification head, or no
/// `architectures` read as no classifier; a hostile label count is bounded.
#[test]
fn a_sequence_classifier_reads_as_a_reranker() {
    use fitcard_estimator::catalog::{read_task, Task};
    let cfg = json!({"architectures": ["XLMRobertaForSequenceClassification"],
        "model_type": "xlm-roberta", "hidden_size": 1024, "num_hidden_layers": 24,
        "num_attention_heads": 16, "intermediate_size": 4096, "vocab_size": 250002,
        "max_position_embeddings": 8194, "pad_token_id": 1, "id2label": {"0": "LABEL_0"},
        "label2id": {"LABEL_0": 0}, "type_vocab_size": 1});
    let a = arch_of(&cfg, "test").unwrap();
    assert_eq!(
        (a.rank_labels, read_task(&a)),
        (Some(1), Some(Task::Rerank))
    );
    let (_, v) = fitcard_estimator::catalog::base()
        .variant("BAAI/bge-reranker-v2-m3")
        .unwrap();
    assert_eq!(
        fitcard_estimator::catalog::tensors::tensors(&a, false),
        fitcard_estimator::catalog::tensors::tensors(&v.arch, false)
    );
    let mut embed = cfg.clone();
    embed["architectures"] = json!(["XLMRobertaModel"]);
    let a = arch_of(&embed, "test").unwrap();
    assert_eq!((a.rank_labels, read_task(&a)), (None, Some(Task::Embed)));
    let mut decoder = cfg.clone();
    decoder["model_type"] = json!("qwen3");
    decoder["architectures"] = json!(["Qwen3ForSequenceClassification"]);
    let a = arch_of(&decoder, "test").unwrap();
    assert_eq!((a.rank_labels, read_task(&a)), (None, None));
    // A BERT cross-encoder (cross-encoder/ms-marco-MiniLM-L6-v2's shape): the converter drops
    // BERT's pooler, so its classifier is the output row alone.
    let bert = json!({"architectures": ["BertForSequenceClassification"], "model_type": "bert",
        "hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
        "intermediate_size": 1536, "vocab_size": 30522, "max_position_embeddings": 512,
        "id2label": {"0": "LABEL_0"}});
    let a = arch_of(&bert, "test").unwrap();
    assert_eq!(
        (a.rank_labels, read_task(&a)),
        (Some(1), Some(Task::Rerank))
    );
    let names: Vec<_> = fitcard_estimator::catalog::tensors::tensors(&a, false)
        .iter()
        .filter(|t| t.name.starts_with("cls"))
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["cls.output.weight", "cls.output.bias"]);
    let mut two = cfg.clone();
    two.as_object_mut().unwrap().remove("id2label");
    assert_eq!(arch_of(&two, "test").unwrap().rank_labels, Some(2));
    two["num_labels"] = json!(u64::MAX);
    assert_eq!(arch_of(&two, "test").unwrap().rank_labels, Some(4096));
}

/// An encoder-only checkpoint reads as the encoder it is (bge-m3's XLM-RoBERTa: 24 layers,
/// hidden 1024, 16 heads, FFN 4096, vocabulary 250002, 8194 positions of which the first two
/// are unused, https://huggingface.co/BAAI/bge-m3/blob/main/config.json; nomic-embed-text's
/// GPT-2-style names, https://huggingface.co/nomic-ai/nomic-embed-text-v1.5/blob/main/config.json),
/// with the catalog's shapes; one whose graph is not modelled is refused by name: its fields read
/// like a decoder's, and would be given a KV cache llama.cpp never allocates.
#[test]
fn encoder_only_checkpoints_read_or_are_refused_by_name() {
    let m3 = json!({"model_type": "xlm-roberta", "hidden_size": 1024, "num_hidden_layers": 24,
        "num_attention_heads": 16, "intermediate_size": 4096, "vocab_size": 250002,
        "max_position_embeddings": 8194, "pad_token_id": 1});
    let a = arch_of(&m3, "test").unwrap();
    let (_, v) = fitcard_estimator::catalog::base()
        .variant("BAAI/bge-m3")
        .unwrap();
    assert!(fitcard_estimator::catalog::is_encoder(&a));
    assert_eq!(
        (
            a.hidden,
            a.layers,
            a.heads,
            a.intermediate,
            a.max_ctx,
            a.vocab
        ),
        (1024, 24, 16, 4096, v.arch.max_ctx, 250002)
    );
    let nomic = json!({"model_type": "nomic_bert", "n_embd": 768, "n_layer": 12, "n_head": 12,
        "n_inner": 3072, "n_positions": 8192, "max_trained_positions": 2048, "vocab_size": 30528,
        "activation_function": "swiglu"});
    let a = arch_of(&nomic, "test").unwrap();
    assert!(fitcard_estimator::catalog::encoder(&a).is_some_and(|e| e.gated));
    assert_eq!(
        (a.hidden, a.layers, a.intermediate, a.max_ctx),
        (768, 12, 3072, 2048)
    );
    for t in ["modernbert", "neobert"] {
        let mut c = m3.clone();
        c["model_type"] = json!(t);
        let e = arch_of(&c, "test").unwrap_err();
        assert!(
            e.contains("encoder-only") && e.contains("no KV cache") && !e.contains('\n'),
            "{e}"
        );
    }
    let mut decoder = m3.clone();
    decoder["model_type"] = json!("qwen3");
    assert!(arch_of(&decoder, "test").is_ok());
}
