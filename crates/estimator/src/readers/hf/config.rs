//! `config.json` into the architecture the memory terms need.

use crate::catalog::{Arch, Block, Blocks, GlobalAttn, Mla, MoeShape, Recurrent, Swa, MAX_HIDDEN};
use serde_json::Value;

/// Largest config.json accepted, bytes.
pub const MAX_CONFIG: usize = 4 << 20;

/// The architecture `config.json` describes (a multimodal config's `text_config` when it has
/// one). Err names the missing or absurd field.
pub fn arch_of(config: &Value, source: &str) -> Result<Arch, String> {
    let c = if config["text_config"].is_object() {
        &config["text_config"]
    } else {
        config
    };
    if let Some(why) = crate::catalog::not_modelled(c["model_type"].as_str().unwrap_or_default()) {
        return Err(format!("config.json: {why}"));
    }
    let renamed = nomic_names(c);
    let c = renamed.as_ref().unwrap_or(c);
    let num = |k: &str| c[k].as_u64();
    let mut arch = attention(c)?;
    arch.vocab = need_count(c, "vocab_size")?;
    arch.set_context(num("max_position_embeddings").map(|n| n.saturating_sub(position_offset(c))))
        .ok_or("config.json: max_position_embeddings is 0 (no context)")?;
    arch.swa = sliding_window(c, &arch)?;
    arch.mla = mla(c)?;
    arch.recurrent = recurrent_of(c, arch.layers)?;
    experts(c, &mut arch)?;
    arch.global_attn = global_layers(c, &arch);
    arch.intermediate = num("intermediate_size").unwrap_or(arch.intermediate);
    if arch.model_type == "lfm2" {
        arch.intermediate = lfm2_ffn(c)?;
    }
    blocks_of(c, &mut arch)?;
    arch.rank_labels = rank_labels(c, &arch.model_type);
    arch.tied_embeddings = config["tie_word_embeddings"]
        .as_bool()
        .or(c["tie_word_embeddings"].as_bool())
        .or(c["tie_embedding"].as_bool())
        .unwrap_or(false);
    arch.source = source.to_string();
    // Gemma 3n / Gemma 4: the last `num_kv_shared_layers` layers reuse earlier layers' caches;
    // per-layer token embeddings of `hidden_size_per_layer_input` per layer.
    arch.set_shared_kv(num("num_kv_shared_layers"));
    arch.set_ple(
        num("hidden_size_per_layer_input"),
        num("vocab_size_per_layer_input"),
    );
    arch.checked().map_err(|why| format!("config.json: {why}"))
}

/// nomic-bert's config names its fields as GPT-2 does (`n_embd`, `n_layer`, `n_head`, `n_inner`);
/// its trained context is `max_trained_positions`, which llama.cpp's converter keeps
/// (conversion/bert.py, `NomicBertModel`). The config under the usual names, else `None`.
fn nomic_names(c: &Value) -> Option<Value> {
    if c["model_type"].as_str() != Some("nomic_bert") {
        return None;
    }
    let mut out = c.clone();
    for (from, to) in [
        ("n_embd", "hidden_size"),
        ("n_layer", "num_hidden_layers"),
        ("n_head", "num_attention_heads"),
        ("n_inner", "intermediate_size"),
        ("max_trained_positions", "max_position_embeddings"),
    ] {
        if !c[from].is_null() {
            out[to] = c[from].clone();
        }
    }
    Some(out)
}

/// An encoder's sequence classifier (`architectures` naming `…ForSequenceClassification`: a
/// cross-encoder reranker such as BAAI/bge-reranker-v2-m3): its labels, `id2label`'s entries,
/// else `num_labels`, else transformers' default of 2 (`PretrainedConfig`); at most 4,096.
fn rank_labels(c: &Value, model_type: &str) -> Option<u32> {
    let head = c["architectures"].as_array()?.iter().any(|a| {
        a.as_str()
            .is_some_and(|a| a.ends_with("ForSequenceClassification"))
    });
    if !head || !crate::catalog::is_encoder_type(model_type) {
        return None;
    }
    let n = c["id2label"]
        .as_object()
        .map(|m| m.len() as u64)
        .or(c["num_labels"].as_u64())
        .unwrap_or(2);
    u32::try_from(n.clamp(1, 4096)).ok()
}

/// Positions of XLM-RoBERTa's table that no token uses: they start at `pad_token_id + 1`, and
/// llama.cpp's converter cuts the rows before them (conversion/bert.py, `_position_offset`).
fn position_offset(c: &Value) -> u64 {
    match c["model_type"].as_str() {
        Some("xlm-roberta" | "roberta") => {
            c["pad_token_id"].as_u64().unwrap_or(1).saturating_add(1)
        }
        _ => 0,
    }
}

/// The attention shape: hidden size, layers, heads and KV heads, checked by [`Arch::read`] (and
/// the hidden size by [`MAX_HIDDEN`] before anything is derived from it), and the head size
/// (`head_dim`, else `hidden / heads`).
fn attention(c: &Value) -> Result<Arch, String> {
    let need = |k: &str| need_count(c, k);
    let hidden = need("hidden_size")?;
    let layers =
        u32::try_from(need("num_hidden_layers")?).map_err(|_| "num_hidden_layers too large")?;
    let heads =
        u32::try_from(need("num_attention_heads")?).map_err(|_| "num_attention_heads too large")?;
    let kv_heads = c["num_key_value_heads"].as_u64().map_or(Ok(heads), |k| {
        u32::try_from(k).map_err(|_| "num_key_value_heads too large")
    })?;
    let model_type = crate::inputs::header_text(c["model_type"].as_str().unwrap_or_default(), 64);
    let mut arch = Arch::read(model_type, hidden, layers, heads, kv_heads)
        .filter(|_| hidden <= MAX_HIDDEN)
        .ok_or("config.json has zero or absurd dimensions")?;
    arch.head_dim = c["head_dim"].as_u64().unwrap_or(arch.head_dim);
    Ok(arch)
}

/// Sliding windows (`sliding_window`, unless `use_sliding_window` is false): an explicit
/// per-layer list (`layer_types`), else Gemma 3's period (every `sliding_window_pattern`-th
/// layer global), else Llama 4's chunks (`attention_chunk_size`).
fn sliding_window(c: &Value, arch: &Arch) -> Result<Option<Swa>, String> {
    let window = c["sliding_window"]
        .as_u64()
        .filter(|_| c["use_sliding_window"].as_bool() != Some(false));
    let gemma3_period = match &c["sliding_window_pattern"] {
        Value::Null => 6,
        p => p
            .as_u64()
            .and_then(|p| u32::try_from(p).ok())
            .filter(|p| (1..=arch.layers).contains(p))
            .ok_or("config.json: sliding_window_pattern is not a layer period")?,
    };
    let swa = window.and_then(|w| match c["layer_types"].as_array() {
        Some(t) if !t.is_empty() => {
            let global = t.iter().map(|x| x.as_str() == Some("full_attention"));
            if global.clone().all(|g| g) {
                return None;
            }
            Swa::pattern(w, global)
        }
        _ if arch.model_type.starts_with("gemma3") => Some(Swa::every(w, gemma3_period)),
        _ => None,
    });
    Ok(swa.or_else(|| c["attention_chunk_size"].as_u64().map(Swa::llama4_chunked)))
}

/// Multi-head latent attention (`kv_lora_rank`, DeepSeek-V2/V3 and the models built on them).
fn mla(c: &Value) -> Result<Option<Mla>, String> {
    let num = |k: &str| c[k].as_u64();
    let Some(kv_lora_rank) = num("kv_lora_rank") else {
        return Ok(None);
    };
    Ok(Some(Mla {
        kv_lora_rank,
        qk_rope_head_dim: need_count(c, "qk_rope_head_dim")?,
        index_head_dim: num("index_head_dim"),
        index_heads: num("index_n_heads"),
        q_lora_rank: num("q_lora_rank"),
        v_head_dim: num("v_head_dim"),
    }))
}

/// The experts, and what a decode step reads besides the routed ones: leading dense layers
/// (`first_k_dense_replace`), Llama 4's interleaved MoE layers, and the shared experts
/// (`n_shared_experts` of `moe_intermediate_size` each, or one `shared_expert_intermediate_size`).
fn experts(c: &Value, arch: &mut Arch) -> Result<(), String> {
    let num = |k: &str| c[k].as_u64();
    arch.set_experts(
        num("num_experts")
            .or(num("num_local_experts"))
            .or(num("n_routed_experts")),
        num("num_experts_per_tok").or(num("top_k_experts")),
        num("moe_intermediate_size"),
    )
    .ok_or("config.json: the expert count is too large")?;
    if arch.is_moe() {
        let shared = num("shared_expert_intermediate_size").or_else(|| {
            num("n_shared_experts")
                .zip(num("moe_intermediate_size"))
                .map(|(n, w)| n.saturating_mul(w))
        });
        let shared = shared.or_else(|| {
            // Llama 4: one shared expert of `intermediate_size` on every MoE layer; Gemma 4:
            // a dense MLP of `intermediate_size` beside the experts on every layer.
            let t = &arch.model_type;
            (t.starts_with("llama4") || t.starts_with("gemma4"))
                .then(|| num("intermediate_size"))
                .flatten()
        });
        // LFM2-MoE: the first `num_dense_layers` (default 2) are dense (`Lfm2MoeDecoderLayer`,
        // src/transformers/models/lfm2_moe/modular_lfm2_moe.py at
        // <https://github.com/huggingface/transformers/blob/e9702f25318ec25b876b034b6cdb716d786de467/src/transformers/models/lfm2_moe/modular_lfm2_moe.py>).
        let lfm2_dense =
            (arch.model_type == "lfm2_moe").then(|| num("num_dense_layers").unwrap_or(2));
        arch.moe = MoeShape::read(
            num("first_k_dense_replace").or(lfm2_dense),
            num("interleave_moe_layer_step"),
            shared,
            arch.layers,
        );
    }
    Ok(())
}

/// Gemma 4: full-attention layers of their own head size (`global_head_dim`), and, where keys
/// double as values (`attention_k_eq_v`), their own KV heads (`num_global_key_value_heads`),
/// as transformers' Gemma4TextAttention sizes them.
fn global_layers(c: &Value, arch: &Arch) -> Option<GlobalAttn> {
    let k_eq_v = c["attention_k_eq_v"].as_bool() == Some(true);
    let global_heads = c["num_global_key_value_heads"]
        .as_u64()
        .filter(|_| k_eq_v)
        .map_or(arch.kv_heads, |g| g.min(u64::from(u32::MAX)) as u32);
    match c["global_head_dim"].as_u64() {
        Some(d) if d != arch.head_dim || global_heads != arch.kv_heads => Some(GlobalAttn {
            kv_heads: global_heads.max(1),
            head_dim: d,
            k_eq_v,
        }),
        _ => None,
    }
}

/// A count `config.json` must give: missing, or not a whole number (`4096.0`, `"4096"`, `-1`),
/// each said as such.
fn need_count(c: &Value, k: &str) -> Result<u64, String> {
    match &c[k] {
        Value::Null => Err(format!("config.json has no {k}")),
        v => v.as_u64().ok_or_else(|| {
            let shown: String = v.to_string().chars().take(24).collect();
            format!(
                "config.json: {k} is {} where a whole number is needed",
                crate::inputs::clean(&shown)
            )
        }),
    }
}

/// The recurrent layers of a hybrid config: Gated DeltaNet (`layer_types` with
/// `linear_attention`, or `full_attention_interval`; `linear_*` shapes) or Mamba-2 (`layer_types`
/// with `mamba`; `mamba_*` shapes). Err for a layer kind the estimator does not model, rather
/// than a guess.
fn recurrent_of(c: &Value, layers: u32) -> Result<Option<Recurrent>, String> {
    let num = |k: &str| c[k].as_u64();
    let types: Vec<&str> = c["layer_types"]
        .as_array()
        .map(|t| t.iter().take(100_000).filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let model_type = c["model_type"].as_str().unwrap_or_default();
    if model_type == "lfm2" || model_type == "lfm2_moe" {
        return shortconv(c, &types, layers).map(Some);
    }
    if let Some(other) = types.iter().find(|t| {
        ![
            "full_attention",
            "sliding_attention",
            "linear_attention",
            "attention",
            "mamba",
        ]
        .contains(t)
    }) {
        return Err(format!(
            "layer kind {} is not modelled yet",
            crate::inputs::quote(other)
        ));
    }
    if !c["hybrid_override_pattern"].is_null() || !c["layers_block_type"].is_null() {
        return Ok(None); // [`blocks_of`]
    }
    let attention_where = |kinds: &[&str]| -> Vec<u32> {
        (0..types.len().min(layers as usize))
            .filter(|&k| kinds.contains(&types[k]))
            .map(|k| k as u32)
            .collect()
    };
    let need = |k: &str| need_count(c, k);
    if types.contains(&"linear_attention") || num("full_attention_interval").is_some() {
        let attention_layers = if types.is_empty() {
            let every = need("full_attention_interval")?.max(1);
            (0..layers)
                .filter(|il| (u64::from(*il) + 1) % every == 0)
                .collect()
        } else {
            attention_where(&["full_attention"])
        };
        return Ok(Some(Recurrent {
            kind: "gated_deltanet".into(),
            attention_layers,
            conv_kernel: need("linear_conv_kernel_dim")?,
            k_heads: need("linear_num_key_heads")?,
            k_dim: need("linear_key_head_dim")?,
            v_heads: need("linear_num_value_heads")?,
            v_dim: need("linear_value_head_dim")?,
        }));
    }
    if types.contains(&"mamba") {
        let hidden = need("hidden_size")?;
        let v_heads = need("mamba_n_heads")?;
        let v_dim = num("mamba_d_head")
            .unwrap_or(num("mamba_expand").unwrap_or(2).saturating_mul(hidden) / v_heads.max(1));
        return Ok(Some(Recurrent {
            kind: "mamba2".into(),
            attention_layers: attention_where(&["attention", "full_attention"]),
            conv_kernel: need("mamba_d_conv")?,
            k_heads: need("mamba_n_groups")?,
            k_dim: need("mamba_d_state")?,
            v_heads,
            v_dim,
        }));
    }
    Ok(None)
}

/// LFM2's layers (`model_type` `lfm2`): `layer_types` of `conv` (a gated short convolution of
/// `conv_L_cache` taps, no KV cache) and `full_attention`, else the attention layers of
/// `full_attn_idxs` and `conv` elsewhere, as transformers' `Lfm2Config` builds them
/// (src/transformers/models/lfm2/configuration_lfm2.py at
/// <https://github.com/huggingface/transformers/blob/05cd1ec14dbe16127778060fb68c34105873015c/src/transformers/models/lfm2/configuration_lfm2.py>).
/// Err for any other layer kind.
fn shortconv(c: &Value, types: &[&str], layers: u32) -> Result<Recurrent, String> {
    if let Some(other) = types
        .iter()
        .find(|t| !["conv", "full_attention"].contains(t))
    {
        return Err(format!(
            "LFM2 layer kind {} is not modelled yet",
            crate::inputs::quote(other)
        ));
    }
    let attention_layers: Vec<u32> = if types.is_empty() {
        let idx = c["full_attn_idxs"]
            .as_array()
            .ok_or("config.json: LFM2 with neither layer_types nor full_attn_idxs")?;
        let mut v: Vec<u32> = idx
            .iter()
            .take(100_000)
            .filter_map(Value::as_u64)
            .filter(|&il| il < u64::from(layers))
            .map(|il| il as u32)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    } else {
        (0..types.len().min(layers as usize))
            .filter(|&k| types[k] == "full_attention")
            .map(|k| k as u32)
            .collect()
    };
    Ok(Recurrent {
        kind: "shortconv".into(),
        attention_layers,
        conv_kernel: need_count(c, "conv_L_cache")?,
        k_heads: 0,
        k_dim: 0,
        v_heads: 0,
        v_dim: 0,
    })
}

/// LFM2's SwiGLU width, as transformers' `Lfm2MLP` sizes `w1`/`w3`/`w2`
/// (src/transformers/models/lfm2/modeling_lfm2.py at
/// <https://github.com/huggingface/transformers/blob/0096ba4f66d4f5f7b1d4e162f8a75d0894b40ea8/src/transformers/models/lfm2/modeling_lfm2.py>):
/// the configured width (`block_ff_dim`, else `intermediate_size`); with
/// `block_auto_adjust_ff_dim` (default true) `⌊2·width/3⌋`, then, with a
/// `block_ffn_dim_multiplier` (default 1.0), `⌊multiplier · width⌋` rounded up to a multiple of
/// `block_multiple_of` (default 256). LFM2-350M: 6,656 → 4,437 → 4,608.
fn lfm2_ffn(c: &Value) -> Result<u64, String> {
    let width = match c["block_ff_dim"].as_u64() {
        Some(w) => w,
        None => need_count(c, "intermediate_size")?,
    };
    if c["block_auto_adjust_ff_dim"].as_bool() == Some(false) {
        return Ok(width);
    }
    let width = width.saturating_mul(2) / 3;
    let multiplier = match &c["block_ffn_dim_multiplier"] {
        Value::Null if c.get("block_ffn_dim_multiplier").is_some() => return Ok(width),
        Value::Null => 1.0,
        v => v
            .as_f64()
            .filter(|m| m.is_finite() && *m > 0.0 && *m <= 64.0)
            .ok_or("config.json: block_ffn_dim_multiplier is not a plausible factor")?,
    };
    let multiple = match c["block_multiple_of"].as_u64() {
        Some(m) => m.max(1),
        None => 256,
    };
    let width = (multiplier * width as f64).floor() as u64;
    Ok(width.div_ceil(multiple).saturating_mul(multiple))
}

/// Nemotron-H's layer pattern: `hybrid_override_pattern` as written, or the per-layer
/// `layers_block_type` list the later configs write instead (`mamba`, `moe`, `attention`,
/// `mlp`: https://huggingface.co/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 and its successors
/// in transformers 5's NemotronHConfig) in the same letters. `None` for a config with neither.
fn block_pattern(c: &Value) -> Result<Option<String>, String> {
    match (&c["hybrid_override_pattern"], &c["layers_block_type"]) {
        (Value::String(p), _) => Ok(Some(p.clone())),
        (Value::Null, Value::Array(kinds)) => kinds
            .iter()
            .take(100_001)
            .map(|k| match k.as_str() {
                Some("mamba") => Ok('M'),
                Some("moe") => Ok('E'),
                Some("attention") => Ok('*'),
                Some("mlp") => Ok('-'),
                _ => Err(format!(
                    "config.json: layer kind {} is not modelled yet",
                    crate::inputs::quote(&k.to_string())
                )),
            })
            .collect::<Result<String, String>>()
            .map(Some),
        (Value::Null, Value::Null) => Ok(None),
        _ => Err("config.json: hybrid_override_pattern is not a string".into()),
    }
}

/// Nemotron-H (`hybrid_override_pattern`): each layer ONE block, `M` a Mamba-2 mixer of
/// `mamba_num_heads × mamba_head_dim` (`n_groups` groups, state `ssm_state_size`, kernel
/// `conv_kernel`), `*` attention, `-` an MLP of `intermediate_size`, `E` the experts with a
/// shared expert of `n_shared_experts × moe_shared_expert_intermediate_size` and, where the
/// config has one, the experts' `moe_latent_size` (vLLM's NemotronHMoE and MambaMixer2 read
/// these keys: vllm/model_executor/models/nemotron_h.py). Err for a pattern that is not one
/// letter per layer of the four, or per-layer MLP widths that differ.
fn blocks_of(c: &Value, arch: &mut Arch) -> Result<(), String> {
    let Some(p) = block_pattern(c)? else {
        return Ok(());
    };
    let blocks = Blocks::parse(&p, arch.layers).map_err(|e| format!("config.json: {e}"))?;
    let need = |k: &str| need_count(c, k);
    let v_heads = need("mamba_num_heads")?;
    arch.recurrent = Some(Recurrent {
        kind: "mamba2".into(),
        attention_layers: blocks.indices(Block::Attention),
        conv_kernel: need("conv_kernel")?,
        k_heads: need("n_groups")?,
        k_dim: need("ssm_state_size")?,
        v_heads,
        v_dim: need("mamba_head_dim")?,
    });
    if let Some(widths) = c["intermediate_size"].as_array() {
        let w: Vec<Option<u64>> = widths.iter().take(4096).map(Value::as_u64).collect();
        match w.first() {
            Some(&Some(first)) if w.iter().all(|&x| x == Some(first)) => arch.intermediate = first,
            _ => return Err("config.json: per-layer MLP widths are not modelled yet".into()),
        }
    }
    if arch.is_moe() {
        let shared = c["moe_shared_expert_intermediate_size"]
            .as_u64()
            .map(|w| w.saturating_mul(c["n_shared_experts"].as_u64().unwrap_or(1)));
        let mut shape = MoeShape::read(None, None, shared, arch.layers).unwrap_or_default();
        shape.step = 1;
        shape.latent = c["moe_latent_size"].as_u64().unwrap_or(0);
        arch.moe = Some(shape);
    }
    arch.blocks = Some(blocks);
    Ok(())
}
