//! A Hugging Face checkpoint read without trusting it: `config.json` into the architecture the
//! terms need, a `.safetensors` header into its tensor table, and the `quantization_config`
//! into the format. The file sizes stay the input (never a parameter count); the headers only
//! say what the sizes hold.
//!
//! safetensors (github.com/huggingface/safetensors, README "Format"): 8 bytes little-endian
//! header length `N`, then `N` bytes of JSON `{name: {dtype, shape, data_offsets}, …,
//! "__metadata__": {…}}`, then the data. `N` is bounded ([`MAX_HEADER`], the library's own
//! limit) before anything is read.

use crate::catalog::quant::{Container, GgmlType, Quant};
use crate::catalog::{
    Arch, Format, GlobalAttn, Mla, MoeLayout, Ple, Recurrent, SizeKind, Swa, Variant,
};
use crate::units::{Bytes, Tokens};
use serde_json::Value;

/// Largest safetensors header accepted, bytes: the safetensors library's own limit
/// (`MAX_HEADER_SIZE` in safetensors/src/tensor.rs), for the CLI and the page's importer alike.
/// The header is read into the few fields needed, never a generic JSON tree, so a header at the
/// limit costs a few times its tensors' count in memory, not 17 times its bytes.
pub const MAX_HEADER: u64 = 100_000_000;
/// Largest sum of all shards' headers a checkpoint may have, bytes (the largest published
/// checkpoints' headers total a few MB).
pub const MAX_HEADERS: u64 = 256 << 20;
/// Longest dtype kept, characters (the longest the format defines is 8: `F8_E4M3`, `F8_E5M2`).
pub const MAX_DTYPE: usize = 16;
/// Largest config.json accepted, bytes.
pub const MAX_CONFIG: usize = 4 << 20;

/// One tensor of a safetensors header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Its name.
    pub name: String,
    /// Its dtype as written (`BF16`, `F8_E4M3`, `I32`, …).
    pub dtype: String,
    /// Its bytes (`data_offsets[1] − data_offsets[0]`).
    pub bytes: u64,
}

/// Why a header could not be read: more bytes are needed (`Ok` side of the size), or it is bad.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// Read at least this many bytes from the start.
    NeedMore(u64),
    /// Not a usable header (the message says why).
    Bad(String),
}

/// The declared length of a safetensors header from the file's first 8 bytes, checked against
/// [`MAX_HEADER`] and the file's size before anything more is read.
pub fn header_len(first8: [u8; 8], file_bytes: u64) -> Result<u64, HeaderError> {
    let n = u64::from_le_bytes(first8);
    if n > MAX_HEADER {
        return Err(HeaderError::Bad(format!(
            "a header of {n} bytes (over {MAX_HEADER})"
        )));
    }
    if n > file_bytes.saturating_sub(8) {
        return Err(HeaderError::Bad(format!(
            "the file ends inside its header (it says {n} bytes; the file has {file_bytes})"
        )));
    }
    Ok(n)
}

/// One entry of the header: the two fields read (`shape` and any other is skipped unread).
#[derive(serde::Deserialize)]
struct Entry<'a> {
    #[serde(borrow)]
    dtype: std::borrow::Cow<'a, str>,
    data_offsets: (u64, u64),
}

/// The header's tensors, read entry by entry (`__metadata__` skipped).
struct Tensors(Vec<Tensor>);

impl<'de> serde::Deserialize<'de> for Tensors {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Map;
        impl<'de> serde::de::Visitor<'de> for Map {
            type Value = Tensors;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object of tensors")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Tensors, A::Error> {
                use serde::de::Error;
                let mut out = Vec::new();
                while let Some(name) = m.next_key::<std::borrow::Cow<'de, str>>()? {
                    if name == "__metadata__" {
                        m.next_value::<serde::de::IgnoredAny>()?;
                        continue;
                    }
                    let e: Entry = m.next_value().map_err(|e| {
                        A::Error::custom(format!("tensor {}: {e}", crate::inputs::quote(&name)))
                    })?;
                    let (a, b) = e.data_offsets;
                    if b < a {
                        return Err(A::Error::custom(format!(
                            "tensor {} has no valid data_offsets",
                            crate::inputs::quote(&name)
                        )));
                    }
                    out.push(Tensor {
                        name: crate::inputs::header_text(&name, 256),
                        dtype: crate::inputs::header_text(&e.dtype, MAX_DTYPE),
                        bytes: b - a,
                    });
                }
                Ok(Tensors(out))
            }
        }
        d.deserialize_map(Map)
    }
}

/// Read a safetensors header from the first bytes of the file.
pub fn safetensors_header(bytes: &[u8]) -> Result<Vec<Tensor>, HeaderError> {
    let Some(len) = bytes.get(..8) else {
        return Err(HeaderError::NeedMore(8));
    };
    let n = u64::from_le_bytes(len.try_into().expect("8 bytes"));
    if n > MAX_HEADER {
        return Err(HeaderError::Bad(format!(
            "a header of {n} bytes (over {MAX_HEADER})"
        )));
    }
    let end = 8 + n;
    let Some(json) = bytes.get(8..end as usize) else {
        return Err(HeaderError::NeedMore(end));
    };
    let t: Tensors = serde_json::from_slice(json).map_err(|e| {
        let e = e.to_string();
        HeaderError::Bad(if e.starts_with("tensor ") {
            e
        } else {
            format!("the header is not a JSON object of tensors ({e})")
        })
    })?;
    Ok(t.0)
}

/// Largest `model.safetensors.index.json` accepted, bytes (a large MoE's index is tens of MB).
pub const MAX_INDEX: u64 = 200_000_000;
/// Most distinct shards an index may name.
pub const MAX_INDEX_SHARDS: usize = 100_000;

/// What a sharded checkpoint's `model.safetensors.index.json` says (transformers
/// `modeling_utils.py`, `SAFE_WEIGHTS_INDEX_NAME`: `{"metadata": {"total_size": N},
/// "weight_map": {tensor: shard, …}}`): the shards, not the tensors (each shard's own header
/// sizes those).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Index {
    /// `metadata.total_size`: the tensors' bytes, when given.
    pub total_size: Option<u64>,
    /// The shard files the weight map names, each once, sorted.
    pub shards: Vec<String>,
    /// How many tensors the weight map lists.
    pub tensors: u64,
}

/// The weight map read without keeping its keys: each value is compared with the shards
/// already seen and copied only when new, so a 60 MB index allocates a few hundred strings.
struct Shards(std::collections::BTreeSet<String>, u64);

impl<'de> serde::Deserialize<'de> for Shards {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Map;
        struct Name<'a>(&'a mut std::collections::BTreeSet<String>);
        impl<'de> serde::de::DeserializeSeed<'de> for Name<'_> {
            type Value = ();
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
                d.deserialize_str(self)
            }
        }
        impl serde::de::Visitor<'_> for Name<'_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a shard file name")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<(), E> {
                if !self.0.contains(s) {
                    if self.0.len() >= MAX_INDEX_SHARDS {
                        return Err(E::custom(format!(
                            "the weight map names over {MAX_INDEX_SHARDS} shards"
                        )));
                    }
                    self.0.insert(s.chars().take(256).collect());
                }
                Ok(())
            }
        }
        impl<'de> serde::de::Visitor<'de> for Map {
            type Value = Shards;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a weight map (an object of tensor: shard)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Shards, A::Error> {
                let mut out = Shards(std::collections::BTreeSet::new(), 0);
                while m.next_key::<serde::de::IgnoredAny>()?.is_some() {
                    m.next_value_seed(Name(&mut out.0))?;
                    out.1 += 1;
                }
                Ok(out)
            }
        }
        d.deserialize_map(Map)
    }
}

/// Read a `model.safetensors.index.json`. Err is one line.
pub fn safetensors_index(bytes: &[u8]) -> Result<Index, String> {
    #[derive(serde::Deserialize)]
    struct Meta {
        total_size: Option<serde_json::Number>,
    }
    #[derive(serde::Deserialize)]
    struct Raw {
        metadata: Option<Meta>,
        weight_map: Shards,
    }
    if bytes.len() as u64 > MAX_INDEX {
        return Err(format!(
            "an index of {} bytes (over {MAX_INDEX})",
            bytes.len()
        ));
    }
    let raw: Raw = serde_json::from_slice(bytes).map_err(|e| {
        let e = e.to_string();
        let e: String = e
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect();
        format!(
            "the index is not a safetensors index ({})",
            crate::inputs::clean(&e)
        )
    })?;
    if raw
        .weight_map
        .0
        .iter()
        .any(|s| s.is_empty() || s.starts_with('/') || s.split(['/', '\\']).any(|p| p == ".."))
    {
        return Err("the index names a shard outside its folder".into());
    }
    Ok(Index {
        total_size: raw
            .metadata
            .and_then(|m| m.total_size)
            .and_then(|n| n.as_u64()),
        shards: raw.weight_map.0.into_iter().collect(),
        tensors: raw.weight_map.1,
    })
}

/// The format a checkpoint is stored in, from `quantization_config` (transformers
/// `utils/quantization_config.py`,
/// <https://github.com/huggingface/transformers/blob/main/src/transformers/utils/quantization_config.py>)
/// or else `torch_dtype`. [`format_with`] refines it with the tensors the headers hold.
pub fn format_of(config: &Value) -> (Quant, String) {
    let q = &config["quantization_config"];
    let method = q["quant_method"]
        .as_str()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let bits = q["bits"].as_u64().or_else(|| q["w_bit"].as_u64());
    match method.as_str() {
        "awq" => (Quant::AWQ, format!("AWQ {}-bit", bits.unwrap_or(4))),
        "gptq" => (
            if bits == Some(8) {
                Quant::GPTQInt8
            } else {
                Quant::GPTQ
            },
            format!("GPTQ Int{}", bits.unwrap_or(4)),
        ),
        "fp8" | "fbgemm_fp8" => (
            Quant::FP8,
            if q["weight_block_size"].is_array() {
                "FP8 (block scales)".into()
            } else {
                "FP8".into()
            },
        ),
        "mxfp4" => (Quant::MXFP4, "MXFP4".into()),
        "bitsandbytes" => {
            if q["load_in_8bit"].as_bool() == Some(true) {
                (Quant::BnbInt8, "bitsandbytes int8".into())
            } else {
                (Quant::BnbNf4, "bitsandbytes 4-bit".into())
            }
        }
        "modelopt" => {
            let algo = q["quant_algo"].as_str().unwrap_or_default();
            if algo.to_ascii_uppercase().contains("FP4") {
                (Quant::NVFP4, "ModelOpt NVFP4".into())
            } else {
                (Quant::FP8, "ModelOpt FP8".into())
            }
        }
        "compressed-tensors" => {
            let text = q.to_string().to_ascii_lowercase();
            if text.contains("nvfp4") || text.contains("\"num_bits\":4") && text.contains("float") {
                (Quant::NVFP4, "compressed-tensors NVFP4".into())
            } else if text.contains("\"num_bits\":8") && text.contains("float") {
                (Quant::FP8, "compressed-tensors FP8".into())
            } else if text.contains("\"num_bits\":8") {
                (Quant::W8A8, "compressed-tensors INT8".into())
            } else {
                (Quant::GPTQ, "compressed-tensors 4-bit".into())
            }
        }
        "" => match config["torch_dtype"].as_str().or(config["dtype"].as_str()) {
            Some("float32") => (Quant::F32, "F32".into()),
            Some("float16") => (Quant::F16, "F16".into()),
            _ => (Quant::BF16, "BF16".into()),
        },
        other => (
            Quant::BF16,
            format!("{} (read as 16-bit)", crate::inputs::quote(other)),
        ),
    }
}

/// The bytes the tensors hold per dtype (as the headers write it), most first.
pub fn bytes_per_dtype(tensors: &[Tensor]) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for t in tensors {
        match out.iter_mut().find(|(d, _)| *d == t.dtype) {
            Some((_, b)) => *b = b.saturating_add(t.bytes),
            None => out.push((t.dtype.clone(), t.bytes)),
        }
    }
    crate::order::sort_by(&mut out, |a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// The format of a checkpoint: [`format_of`] its config, checked against the tensors its
/// headers hold (safetensors dtypes: <https://github.com/huggingface/safetensors#format>).
/// Without a `quantization_config` the dtype holding most bytes decides (a config's
/// `torch_dtype` may name the dtype it was trained in, not the one stored); for
/// compressed-tensors the packed weights decide (compressed-tensors writes 4-bit floats packed
/// in `U8` with a `weight_global_scale`, 4-bit integers packed in `I32`, and 8-bit weights as
/// `I8` or `F8_E4M3`: <https://github.com/vllm-project/compressed-tensors>).
pub fn format_with(config: &Value, tensors: &[Tensor]) -> (Quant, String) {
    let (quant, words) = format_of(config);
    let dtypes = bytes_per_dtype(tensors);
    let most = dtypes.first().map(|(d, _)| d.as_str());
    let method = config["quantization_config"]["quant_method"].as_str();
    let packed = |dtype: &str| {
        tensors
            .iter()
            .any(|t| t.name.ends_with("weight_packed") && t.dtype == dtype)
    };
    match method {
        None => match most {
            Some("F8_E4M3" | "F8_E5M2") => (Quant::FP8, "FP8 (its tensors)".into()),
            Some("F32") => (Quant::F32, "F32".into()),
            Some("F16") => (Quant::F16, "F16".into()),
            Some("BF16") => (Quant::BF16, "BF16".into()),
            _ => (quant, words),
        },
        Some("compressed-tensors") if packed("U8") => {
            (Quant::NVFP4, "compressed-tensors NVFP4".into())
        }
        Some("compressed-tensors") if packed("I32") => {
            (Quant::GPTQ, "compressed-tensors W4A16".into())
        }
        Some("compressed-tensors") if most == Some("I8") => {
            (Quant::W8A8, "compressed-tensors INT8".into())
        }
        Some("compressed-tensors") if most == Some("F8_E4M3") => {
            (Quant::FP8, "compressed-tensors FP8".into())
        }
        _ => (quant, words),
    }
}

/// The architecture `config.json` describes (a multimodal config's `text_config` when it has
/// one). Err names the missing or absurd field.
pub fn arch_of(config: &Value, source: &str) -> Result<Arch, String> {
    let c = if config["text_config"].is_object() {
        &config["text_config"]
    } else {
        config
    };
    let num = |k: &str| c[k].as_u64();
    let need = |k: &str| need_count(c, k);
    let hidden = need("hidden_size")?;
    let layers =
        u32::try_from(need("num_hidden_layers")?).map_err(|_| "num_hidden_layers too large")?;
    let heads =
        u32::try_from(need("num_attention_heads")?).map_err(|_| "num_attention_heads too large")?;
    let kv_heads = num("num_key_value_heads").map_or(Ok(heads), |k| {
        u32::try_from(k).map_err(|_| "num_key_value_heads too large")
    })?;
    if hidden == 0
        || layers == 0
        || heads == 0
        || kv_heads == 0
        || layers > 100_000
        || hidden > 1 << 20
    {
        return Err("config.json has zero or absurd dimensions".into());
    }
    let head_dim = num("head_dim").unwrap_or(hidden / u64::from(heads));
    let vocab = need("vocab_size")?;
    let max_ctx = num("max_position_embeddings")
        .unwrap_or(4096)
        .min(u64::from(u32::MAX)) as Tokens;
    if max_ctx == 0 {
        return Err("config.json: max_position_embeddings is 0 (no context)".into());
    }
    // Sliding windows: an explicit per-layer list (`layer_types`), else the known period.
    let model_type = crate::inputs::header_text(c["model_type"].as_str().unwrap_or_default(), 64);
    let window = num("sliding_window").filter(|_| c["use_sliding_window"].as_bool() != Some(false));
    let gemma3_period = match &c["sliding_window_pattern"] {
        Value::Null => 6,
        p => p
            .as_u64()
            .and_then(|p| u32::try_from(p).ok())
            .filter(|p| (1..=layers).contains(p))
            .ok_or("config.json: sliding_window_pattern is not a layer period")?,
    };
    let swa = window.and_then(|w| {
        let types = c["layer_types"].as_array();
        let (period, global_offset) = match types {
            Some(t) if !t.is_empty() => {
                let full: Vec<usize> = t
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.as_str() == Some("full_attention"))
                    .map(|(k, _)| k)
                    .collect();
                if full.len() == t.len() {
                    return None;
                }
                let p = full.get(1).zip(full.first()).map(|(b, a)| b - a)?;
                (p as u32, full[0] as u32 % p as u32)
            }
            // Gemma 3: every `sliding_window_pattern`-th layer is global.
            _ if model_type.starts_with("gemma3") => (gemma3_period, gemma3_period - 1),
            _ => return None,
        };
        Some(Swa {
            window: w.min(u64::from(u32::MAX)) as Tokens,
            period,
            global_offset,
            chunked: false,
        })
    });
    let swa = swa.or_else(|| num("attention_chunk_size").map(Swa::llama4_chunked));
    let mla = match num("kv_lora_rank") {
        Some(kv_lora_rank) => Some(Mla {
            kv_lora_rank,
            qk_rope_head_dim: need("qk_rope_head_dim")?,
            index_head_dim: num("index_head_dim"),
            q_lora_rank: num("q_lora_rank"),
            v_head_dim: num("v_head_dim"),
        }),
        None => None,
    };
    let recurrent = recurrent_of(c, layers)?;
    let experts = num("num_experts")
        .or(num("num_local_experts"))
        .or(num("n_routed_experts"))
        .map_or(Ok(1), u32::try_from)
        .map_err(|_| "config.json: the expert count is too large")?;
    // What a decode step reads besides the routed experts: leading dense layers
    // (`first_k_dense_replace`), Llama 4's interleaved MoE layers, and the shared experts
    // (`n_shared_experts` of `moe_intermediate_size` each, or one `shared_expert_intermediate_size`).
    let moe = if experts > 1 {
        let shared = num("shared_expert_intermediate_size").or_else(|| {
            num("n_shared_experts")
                .zip(num("moe_intermediate_size"))
                .map(|(n, w)| n.saturating_mul(w))
        });
        let shared = shared.or_else(|| {
            // Llama 4: one shared expert of `intermediate_size` on every MoE layer; Gemma 4:
            // a dense MLP of `intermediate_size` beside the experts on every layer.
            (model_type.starts_with("llama4") || model_type.starts_with("gemma4"))
                .then(|| num("intermediate_size"))
                .flatten()
        });
        MoeLayout::read(
            num("first_k_dense_replace"),
            num("interleave_moe_layer_step"),
            shared,
            layers,
        )
    } else {
        None
    };
    // Gemma 4: full-attention layers of their own head size (`global_head_dim`), and, where keys
    // double as values (`attention_k_eq_v`), their own KV heads (`num_global_key_value_heads`),
    // as transformers' Gemma4TextAttention sizes them.
    let k_eq_v = c["attention_k_eq_v"].as_bool() == Some(true);
    let global_heads = num("num_global_key_value_heads")
        .filter(|_| k_eq_v)
        .map_or(kv_heads, |g| g.min(u64::from(u32::MAX)) as u32);
    let global_attn = match num("global_head_dim") {
        Some(d) if d != head_dim || global_heads != kv_heads => Some(GlobalAttn {
            kv_heads: global_heads.max(1),
            head_dim: d,
            k_eq_v,
        }),
        _ => None,
    };
    // Gemma 3n / Gemma 4: the last `num_kv_shared_layers` layers reuse earlier layers' caches;
    // per-layer token embeddings of `hidden_size_per_layer_input` per layer.
    let kv_layers = num("num_kv_shared_layers")
        .filter(|&n| n > 0)
        .map(|n| layers.saturating_sub(n.min(u64::from(layers)) as u32));
    let ple = num("hidden_size_per_layer_input")
        .filter(|&d| d > 0)
        .map(|dim| Ple {
            vocab: num("vocab_size_per_layer_input").unwrap_or(vocab),
            dim,
        });
    let arch = Arch {
        model_type,
        hidden,
        layers,
        heads,
        kv_heads,
        head_dim,
        intermediate: num("intermediate_size").unwrap_or(4 * hidden),
        moe_intermediate: num("moe_intermediate_size"),
        experts: experts.max(1),
        experts_active: num("num_experts_per_tok")
            .or(num("top_k_experts"))
            .unwrap_or(1)
            .min(u64::from(u32::MAX)) as u32,
        vocab,
        tied_embeddings: config["tie_word_embeddings"]
            .as_bool()
            .or(c["tie_word_embeddings"].as_bool())
            .unwrap_or(false),
        max_ctx,
        native_ctx: vec![max_ctx],
        swa,
        kv_layers,
        ple,
        source: source.to_string(),
        yarn: None,
        global_override: None,
        global_attn,
        mla,
        recurrent,
        moe,
    };
    match arch.absurd() {
        Some(why) => Err(format!("config.json: {why}")),
        None => Ok(arch),
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
    if c["hybrid_override_pattern"].is_string() {
        return Err("hybrid_override_pattern layers are not modelled yet".into());
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

/// A checkpoint as a variant and format: its `config.json` text, the total size of its
/// `.safetensors` files (the input), and their tensors (to see a stored duplicate `lm_head`).
pub fn to_variant(
    id: &str,
    config_json: &str,
    total: Bytes,
    tensors: &[Tensor],
) -> Result<(Variant, Format), String> {
    if config_json.len() > MAX_CONFIG {
        return Err(format!(
            "config.json of {} bytes (over {MAX_CONFIG})",
            config_json.len()
        ));
    }
    let config: Value =
        serde_json::from_str(config_json).map_err(|e| format!("config.json is not JSON ({e})"))?;
    let arch = arch_of(&config, &format!("the config.json of {id}"))?;
    let (quant, words) = format_with(&config, tensors);
    let duplicate_output =
        arch.tied_embeddings && tensors.iter().any(|t| t.name == "lm_head.weight");
    let embd_type = tensors
        .iter()
        .find(|t| t.name.ends_with("embed_tokens.weight"))
        .map_or(GgmlType::BF16, |t| match t.dtype.as_str() {
            "F32" => GgmlType::F32,
            "F16" => GgmlType::F16,
            _ => GgmlType::BF16,
        });
    let variant = Variant {
        id: id.to_string(),
        name: id.rsplit('/').next().unwrap_or(id).to_string(),
        capability_rank: 1,
        capability: None,
        arch,
        formats: Vec::new(),
    };
    let format = Format {
        id: quant,
        container: Container::Safetensors,
        bytes: total,
        size: SizeKind::Exact,
        repo: id.to_string(),
        file: String::new(),
        source: format!("the .safetensors files of {id}"),
        embd_type,
        duplicate_output,
        unquantized: Vec::new(),
        note: Some(note(&words, tensors)),
    };
    Ok((variant, format))
}

/// The format's note: the words for the format, and the bytes per dtype the headers hold.
fn note(words: &str, tensors: &[Tensor]) -> String {
    let mut s = format!("config.json: {words}");
    for (k, (dtype, bytes)) in bytes_per_dtype(tensors).iter().take(6).enumerate() {
        s.push_str(if k == 0 { "; headers: " } else { ", " });
        let dtype: String = dtype.chars().take(16).collect();
        s.push_str(&format!(
            "{} {}",
            crate::inputs::clean(&dtype),
            Bytes(*bytes)
        ));
    }
    s
}
