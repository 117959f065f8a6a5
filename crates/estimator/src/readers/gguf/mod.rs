//! A GGUF file's header, read without trusting it: the metadata and the tensor table that the
//! estimate needs (architecture, sizes, the real storage type of each tensor), from the first
//! bytes of the file (the rest is tensor data). Layout per the GGUF specification
//! (github.com/ggml-org/ggml, docs/gguf.md): magic `GGUF`, version, tensor count, metadata count,
//! the metadata key/value pairs, then one entry per tensor (name, dimensions, type, offset).
//!
//! Every length read from the file is checked against the bytes at hand and against fixed
//! bounds before anything is allocated; a header that needs more bytes than given says how many
//! ([`Error::NeedMore`]), so a caller reading by HTTP range or from disk can fetch more.

mod arch;
mod header;

pub use header::*;

use crate::catalog::quant::{Container, Quant};
use crate::catalog::{Arch, Format, GlobalAttn, Mla, MoeLayout, Ple, SizeKind, Swa, Variant};
use crate::units::{Bytes, Tokens};
use arch::recurrent_of;

/// The name of `general.file_type` (llama.cpp `llama_ftype` in include/llama.h) and the format
/// fitcard knows by that name (Q5_0/Q5_1, Q2_K_S and IQ3_XS: the nearest one).
pub fn file_type(ftype: u64) -> (&'static str, Quant) {
    match ftype {
        0 => ("F32", Quant::F32),
        1 => ("F16", Quant::F16),
        2 => ("Q4_0", Quant::Q4_0),
        3 => ("Q4_1", Quant::Q4_1),
        7 => ("Q8_0", Quant::Q8_0),
        8 => ("Q5_0", Quant::Q5KS),
        9 => ("Q5_1", Quant::Q5KS),
        10 => ("Q2_K", Quant::Q2K),
        11 => ("Q3_K_S", Quant::Q3KS),
        12 => ("Q3_K_M", Quant::Q3KM),
        13 => ("Q3_K_L", Quant::Q3KL),
        14 => ("Q4_K_S", Quant::Q4KS),
        15 => ("Q4_K_M", Quant::Q4KM),
        16 => ("Q5_K_S", Quant::Q5KS),
        17 => ("Q5_K_M", Quant::Q5KM),
        18 => ("Q6_K", Quant::Q6K),
        19 => ("IQ2_XXS", Quant::IQ2XXS),
        20 => ("IQ2_XS", Quant::IQ2XS),
        21 => ("Q2_K_S", Quant::Q2K),
        22 => ("IQ3_XS", Quant::IQ3XXS),
        23 => ("IQ3_XXS", Quant::IQ3XXS),
        24 => ("IQ1_S", Quant::IQ1S),
        25 => ("IQ4_NL", Quant::IQ4NL),
        26 => ("IQ3_S", Quant::IQ3S),
        27 => ("IQ3_M", Quant::IQ3M),
        28 => ("IQ2_S", Quant::IQ2S),
        29 => ("IQ2_M", Quant::IQ2M),
        30 => ("IQ4_XS", Quant::IQ4XS),
        31 => ("IQ1_M", Quant::IQ1M),
        32 => ("BF16", Quant::BF16),
        36 => ("TQ1_0", Quant::TQ1_0),
        37 => ("TQ2_0", Quant::TQ2_0),
        38 => ("MXFP4_MOE", Quant::MXFP4),
        _ => ("another quantization", Quant::Q4KM),
    }
}

/// The model a header describes, as a catalog variant with one format of `file_bytes` (the
/// file's size on disk; the input, never a parameter count). `file` names it in commands.
pub fn to_variant(h: &Header, file: &str, file_bytes: Bytes) -> Result<(Variant, Format), String> {
    let arch_name = match h.kv.get("general.architecture") {
        Some(Value::Str(s))
            if !s.is_empty()
                && s.len() <= 64
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b)) =>
        {
            s.clone()
        }
        Some(Value::Str(s)) => {
            return Err(format!(
                "general.architecture {} is not an architecture name",
                crate::inputs::quote(s)
            ))
        }
        _ => return Err("no general.architecture".into()),
    };
    let key = |k: &str| h.kv.get(&format!("{arch_name}.{k}")).and_then(Value::int);
    let need = |k: &str| {
        key(k).ok_or_else(|| match h.kv.get(&format!("{arch_name}.{k}")) {
            None => format!("no {arch_name}.{k}"),
            Some(_) => format!("{arch_name}.{k} is not a whole number"),
        })
    };
    let layers = u32::try_from(need("block_count")?).map_err(|_| "block_count too large")?;
    let hidden = need("embedding_length")?;
    let heads = u32::try_from(need("attention.head_count")?).map_err(|_| "head_count too large")?;
    let kv_heads = key("attention.head_count_kv").map_or(Ok(heads), |k| {
        u32::try_from(k).map_err(|_| "head_count_kv too large")
    })?;
    if layers == 0 || hidden == 0 || heads == 0 || kv_heads == 0 || layers > 100_000 {
        return Err("zero or absurd dimensions".into());
    }
    let head_dim = key("attention.key_length").unwrap_or(hidden / u64::from(heads));
    // Per-layer arrays (Gemma 4): which layers slide (`attention.sliding_window_pattern`, true =
    // sliding) and each layer's KV heads (`attention.head_count_kv`).
    let per_layer = |k: &str| match h.kv.get(&format!("{arch_name}.{k}")) {
        Some(Value::Array(n, v)) if *n == u64::from(layers) && v.len() as u64 == *n => {
            Some(v.clone())
        }
        _ => None,
    };
    let swa_pattern = per_layer("attention.sliding_window_pattern");
    // Gemma 4's global layers: their head size is `attention.key_length`, the sliding layers'
    // `attention.key_length_swa`; their KV heads the array's entry at a global layer
    // (src/models/gemma4.cpp, `n_embd_head_k(il)` in src/llama-hparams.cpp).
    let (kv_heads, head_dim, global_attn) = match (&swa_pattern, key("attention.key_length_swa")) {
        (Some(p), Some(swa_dim)) if p.contains(&0) && p.iter().any(|&x| x != 0) => {
            let heads_at = |want_swa: bool| {
                let il = p.iter().position(|&x| (x != 0) == want_swa)?;
                let v = per_layer("attention.head_count_kv")?;
                u32::try_from(v[il]).ok().filter(|&n| n > 0)
            };
            let swa_heads = heads_at(true).unwrap_or(kv_heads);
            let g = GlobalAttn {
                kv_heads: heads_at(false).unwrap_or(swa_heads),
                head_dim,
                // No V projection where the file stores none on a global layer.
                k_eq_v: p.iter().position(|&x| x == 0).is_some_and(|il| {
                    h.tensors
                        .iter()
                        .any(|t| t.name == format!("blk.{il}.attn_k.weight"))
                        && !h
                            .tensors
                            .iter()
                            .any(|t| t.name == format!("blk.{il}.attn_v.weight"))
                }),
            };
            let differs = g.kv_heads != swa_heads || g.head_dim != swa_dim;
            (swa_heads, swa_dim, differs.then_some(g))
        }
        _ => (kv_heads, head_dim, None),
    };
    let tensor = |n: &str| h.tensors.iter().find(|t| t.name == n);
    let embd = tensor("token_embd.weight").ok_or("no token_embd.weight tensor")?;
    let vocab = embd.dims.get(1).copied().unwrap_or(0);
    let embd_type = ggml_type(embd.ggml_type).ok_or("token_embd of an unknown type")?;
    let max_ctx = key("context_length")
        .unwrap_or(4096)
        .min(u64::from(u32::MAX)) as Tokens;
    if max_ctx == 0 {
        return Err(format!("{arch_name}.context_length is 0 (no context)"));
    }
    // Sliding-window layouts llama.cpp fixes per architecture (src/llama-model.cpp).
    let swa = key("attention.sliding_window").and_then(|w| {
        let (period, global_offset) = match (arch_name.as_str(), &swa_pattern) {
            ("gemma3", _) => (6, 5),
            ("gpt-oss", _) => (2, 1),
            // The per-layer pattern: the distance between the first two global layers.
            (_, Some(p)) => {
                let mut full = p
                    .iter()
                    .enumerate()
                    .filter(|(_, &x)| x == 0)
                    .map(|(k, _)| k);
                let (a, b) = (full.next()?, full.next()?);
                let period = (b - a) as u32;
                (period, a as u32 % period)
            }
            _ => return None,
        };
        Some(Swa {
            window: w.min(u64::from(u32::MAX)) as Tokens,
            period,
            global_offset,
            chunked: false,
        })
    });
    let swa = swa.or_else(|| key("attention.chunk_size").map(Swa::llama4_chunked));
    // Latent attention (deepseek2 and the architectures built on it): the cache row is
    // kv_lora_rank + the rotary dimensions (src/llama-kv-cache.cpp, has_v = !is_mla).
    let mla = match key("attention.kv_lora_rank") {
        Some(kv_lora_rank) => Some(Mla {
            kv_lora_rank,
            qk_rope_head_dim: need("rope.dimension_count")?,
            index_head_dim: key("attention.indexer.key_length"),
            q_lora_rank: key("attention.q_lora_rank"),
            v_head_dim: key("attention.value_length_mla"),
        }),
        None => None,
    };
    let recurrent = recurrent_of(h, &arch_name, layers)?;
    let experts = key("expert_count")
        .map_or(Ok(1), u32::try_from)
        .map_err(|_| "expert_count too large")?;
    // What a decode step reads besides the routed experts (llama.cpp's hparams of the same
    // names): leading dense blocks, Llama 4's interleave step and the shared experts.
    let moe = if experts > 1 {
        let shared = key("expert_shared_feed_forward_length").or_else(|| {
            key("expert_shared_count")
                .zip(key("expert_feed_forward_length"))
                .map(|(n, w)| n.saturating_mul(w))
        });
        // Gemma 4: a dense FFN of `feed_forward_length` beside the experts on every layer.
        let shared = shared.or_else(|| {
            (arch_name == "gemma4")
                .then(|| key("feed_forward_length"))
                .flatten()
        });
        MoeLayout::read(
            key("leading_dense_block_count"),
            key("interleave_moe_layer_step"),
            shared,
            layers,
        )
    } else {
        None
    };
    let arch = Arch {
        model_type: arch_name.clone(),
        hidden,
        layers,
        heads,
        kv_heads,
        head_dim,
        intermediate: key("feed_forward_length").unwrap_or_else(|| hidden.saturating_mul(4)),
        moe_intermediate: key("expert_feed_forward_length"),
        experts: experts.max(1),
        experts_active: key("expert_used_count")
            .unwrap_or(1)
            .min(u64::from(u32::MAX)) as u32,
        vocab,
        tied_embeddings: tensor("output.weight").is_none(),
        max_ctx,
        native_ctx: vec![max_ctx],
        swa,
        // KV sharing (Gemma 4): the last `attention.shared_kv_layers` layers own no cache
        // (`n_layer_kv_from_start` in src/models/gemma4.cpp).
        kv_layers: key("attention.shared_kv_layers")
            .filter(|&n| n > 0)
            .map(|n| layers.saturating_sub(n.min(u64::from(layers)) as u32)),
        ple: key("embedding_length_per_layer_input")
            .filter(|&d| d > 0)
            .map(|dim| Ple { vocab, dim }),
        source: format!("the GGUF header of {file}"),
        yarn: None,
        global_override: None,
        global_attn,
        mla,
        recurrent,
        moe,
    };
    if let Some(why) = arch.absurd() {
        return Err(why);
    }
    let (ftype_name, quant) = file_type(key_general(h, "file_type").unwrap_or(u64::MAX));
    let name = match h.kv.get("general.name") {
        Some(Value::Str(s)) => crate::inputs::header_text(s, 120),
        _ => file.to_string(),
    };
    let variant = Variant {
        id: file.to_string(),
        name,
        capability_rank: 1,
        capability: None,
        arch,
        formats: Vec::new(),
    };
    let format = Format {
        id: quant,
        container: Container::Gguf,
        bytes: file_bytes,
        size: SizeKind::Exact,
        repo: String::new(),
        file: file.to_string(),
        source: format!("the size of {file} on disk"),
        embd_type,
        duplicate_output: false,
        unquantized: Vec::new(),
        note: Some(format!("general.file_type {ftype_name}")),
    };
    Ok((variant, format))
}

fn key_general(h: &Header, k: &str) -> Option<u64> {
    h.kv.get(&format!("general.{k}")).and_then(Value::int)
}
