//! A GGUF file's header, read without trusting it: the metadata and the tensor table that the
//! estimate needs (architecture, sizes, the real storage type of each tensor), from the first
//! bytes of the file (the rest is tensor data). Layout per the GGUF specification
//! (github.com/ggml-org/ggml, docs/gguf.md): magic `GGUF`, version, tensor count, metadata count,
//! the metadata key/value pairs, then one entry per tensor (name, dimensions, type, offset).
//!
//! Every length read from the file is checked against the bytes at hand and against fixed
//! bounds before anything is allocated; a header that needs more bytes than given says how many
//! ([`Error::NeedMore`]), so a caller reading by HTTP range or from disk can fetch more.

use crate::catalog::quant::{Container, GgmlType, Quant};
use crate::catalog::{
    Arch, Format, GlobalAttn, Mla, MoeLayout, Ple, Recurrent, SizeKind, Swa, Variant,
};
use crate::units::{Bytes, Tokens};
use std::collections::BTreeMap;

/// Largest GGUF header read, bytes, by the CLI and the page's importer alike: the metadata and
/// the tensor table (a 262,144-token vocabulary's header is about 10 MB; the data is never read).
pub const MAX_HEADER: u64 = 48 << 20;
/// Most metadata pairs accepted (real files hold tens to a few hundred).
pub const MAX_KV: u64 = 65_536;
/// Most tensors accepted (real files hold hundreds to a few thousand).
pub const MAX_TENSORS: u64 = 200_000;
/// Longest key or string value kept, bytes.
pub const MAX_STRING: u64 = 1 << 20;
/// Longest array accepted (a 262K-token vocabulary fits).
pub const MAX_ARRAY: u64 = 1 << 24;
/// Most dimensions of a tensor.
pub const MAX_DIMS: u32 = 8;

/// Why a header could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The header continues past the bytes given: read at least this many from the start.
    NeedMore(u64),
    /// Not a GGUF header, or one this reader refuses (the message says which field).
    Bad(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NeedMore(n) => write!(
                f,
                "the GGUF header continues past the bytes read: need at least {n}"
            ),
            Error::Bad(m) => write!(f, "not a usable GGUF header: {m}"),
        }
    }
}

/// A metadata value (arrays are kept as their length and, when short and numeric, their values).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Any unsigned or signed integer, or a bool (0/1).
    Int(i128),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// An array: its length, and its integer values when numeric and at most 4096 long.
    Array(u64, Vec<i128>),
}

impl Value {
    /// The value as a whole number (the largest element of a short numeric array: per-layer
    /// head counts).
    pub fn int(&self) -> Option<u64> {
        match self {
            Value::Int(v) => u64::try_from(*v).ok(),
            Value::Float(v) if *v >= 0.0 && v.fract() == 0.0 => Some(*v as u64),
            Value::Array(_, v) => v.iter().copied().max().and_then(|m| u64::try_from(m).ok()),
            _ => None,
        }
    }
}

/// One tensor's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Its name (`token_embd.weight`, `blk.0.attn_q.weight`, …).
    pub name: String,
    /// Its dimensions, innermost first.
    pub dims: Vec<u64>,
    /// Its ggml type number.
    pub ggml_type: u32,
}

impl Tensor {
    /// Its bytes in the file: rows of its ggml type's block layout (`None` for a type this
    /// reader does not size).
    pub fn bytes(&self) -> Option<u64> {
        let t = ggml_type(self.ggml_type)?;
        let (first, rest) = self.dims.split_first()?;
        Some(
            rest.iter()
                .fold(t.row_bytes(*first), |acc, d| acc.saturating_mul(*d)),
        )
    }

    /// Its type's name (`q4_k`), or `type N` for a type this reader does not know.
    pub fn type_name(&self) -> String {
        ggml_type(self.ggml_type)
            .map_or(format!("type {}", self.ggml_type), |t| t.name().to_string())
    }
}

/// What the header holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// GGUF version (2 or 3).
    pub version: u32,
    /// The metadata.
    pub kv: BTreeMap<String, Value>,
    /// The tensor table.
    pub tensors: Vec<Tensor>,
    /// Bytes of header before the (aligned) tensor data.
    pub header_bytes: u64,
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: u64) -> Result<&[u8], Error> {
        let end = (self.at as u64)
            .checked_add(n)
            .ok_or_else(|| Error::Bad("length overflows".into()))?;
        if end > self.b.len() as u64 {
            return Err(Error::NeedMore(end));
        }
        let s = &self.b[self.at..end as usize];
        self.at = end as usize;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn string(&mut self, what: &str) -> Result<String, Error> {
        let n = self.u64()?;
        if n > MAX_STRING {
            return Err(Error::Bad(format!(
                "{what} of {n} bytes (over {MAX_STRING})"
            )));
        }
        Ok(String::from_utf8_lossy(self.take(n)?).into_owned())
    }
    /// Read one value of type `t` (`depth` 1 inside an array).
    fn value(&mut self, t: u32, depth: u32) -> Result<Value, Error> {
        Ok(match t {
            0 => Value::Int(i128::from(self.take(1)?[0])),
            1 => Value::Int(i128::from(self.take(1)?[0] as i8)),
            2 => Value::Int(i128::from(u16::from_le_bytes(
                self.take(2)?.try_into().expect("2"),
            ))),
            3 => Value::Int(i128::from(i16::from_le_bytes(
                self.take(2)?.try_into().expect("2"),
            ))),
            4 => Value::Int(i128::from(self.u32()?)),
            5 => Value::Int(i128::from(self.u32()? as i32)),
            6 => Value::Float(f64::from(f32::from_le_bytes(
                self.take(4)?.try_into().expect("4"),
            ))),
            7 => Value::Int(i128::from(self.take(1)?[0] != 0)),
            8 => Value::Str(self.string("a string value")?),
            9 => {
                if depth > 0 {
                    return Err(Error::Bad("nested arrays".into()));
                }
                let et = self.u32()?;
                let n = self.u64()?;
                if n > MAX_ARRAY {
                    return Err(Error::Bad(format!(
                        "an array of {n} elements (over {MAX_ARRAY})"
                    )));
                }
                // Long arrays (a vocabulary's tokens, scores and types), strings and floats
                // are kept as their length only: skipped without building a value per element.
                let width = match et {
                    0 | 1 | 7 => Some(1),
                    2 | 3 => Some(2),
                    4..=6 => Some(4),
                    10..=12 => Some(8),
                    _ => None,
                };
                match width {
                    Some(w) if n > 4096 || matches!(et, 6 | 12) => {
                        self.take(n * w)?;
                        return Ok(Value::Array(n, Vec::new()));
                    }
                    None if et == 8 => {
                        for _ in 0..n {
                            let len = self.u64()?;
                            if len > MAX_STRING {
                                return Err(Error::Bad(format!(
                                    "a string value of {len} bytes (over {MAX_STRING})"
                                )));
                            }
                            self.take(len)?;
                        }
                        return Ok(Value::Array(n, Vec::new()));
                    }
                    _ => {}
                }
                let mut keep = Vec::new();
                for _ in 0..n {
                    let v = self.value(et, depth + 1)?;
                    if let (Value::Int(x), true) = (v, n <= 4096) {
                        keep.push(x);
                    }
                }
                Value::Array(n, keep)
            }
            10 => Value::Int(i128::from(self.u64()?)),
            11 => Value::Int(i128::from(self.u64()? as i64)),
            12 => Value::Float(f64::from_le_bytes(self.take(8)?.try_into().expect("8"))),
            t => return Err(Error::Bad(format!("metadata type {t}"))),
        })
    }
}

/// Read the header from the first bytes of a GGUF file.
pub fn parse(bytes: &[u8]) -> Result<Header, Error> {
    let mut r = Reader { b: bytes, at: 0 };
    if r.take(4)? != b"GGUF" {
        return Err(Error::Bad("the file does not start with GGUF".into()));
    }
    let version = r.u32()?;
    if !(2..=3).contains(&version) {
        return Err(Error::Bad(format!("version {version} (2 or 3 are read)")));
    }
    let n_tensors = r.u64()?;
    let n_kv = r.u64()?;
    if n_tensors > MAX_TENSORS || n_kv > MAX_KV {
        return Err(Error::Bad(format!(
            "{n_tensors} tensors and {n_kv} metadata pairs (at most {MAX_TENSORS} and {MAX_KV})"
        )));
    }
    let mut kv = BTreeMap::new();
    for _ in 0..n_kv {
        let key = r.string("a key")?;
        let t = r.u32()?;
        let v = r.value(t, 0)?;
        kv.insert(key, v);
    }
    let mut tensors = Vec::with_capacity(n_tensors.min(4096) as usize);
    for _ in 0..n_tensors {
        let name = r.string("a tensor name")?;
        let nd = r.u32()?;
        if nd > MAX_DIMS {
            return Err(Error::Bad(format!(
                "tensor {} has {nd} dimensions",
                crate::inputs::quote(&name)
            )));
        }
        let dims = (0..nd).map(|_| r.u64()).collect::<Result<Vec<_>, _>>()?;
        let ggml_type = r.u32()?;
        let _offset = r.u64()?;
        tensors.push(Tensor {
            name,
            dims,
            ggml_type,
        });
    }
    let align = kv
        .get("general.alignment")
        .and_then(Value::int)
        .filter(|a| (1..=1 << 20).contains(a))
        .unwrap_or(32);
    Ok(Header {
        version,
        kv,
        tensors,
        header_bytes: (r.at as u64).div_ceil(align) * align,
    })
}

/// ggml's type numbers this estimator stores rows of (`ggml/include/ggml.h`, `enum ggml_type`).
pub fn ggml_type(t: u32) -> Option<GgmlType> {
    Some(match t {
        0 => GgmlType::F32,
        1 => GgmlType::F16,
        2 => GgmlType::Q4_0,
        3 => GgmlType::Q4_1,
        6 => GgmlType::Q5_0,
        7 => GgmlType::Q5_1,
        8 => GgmlType::Q8_0,
        12 => GgmlType::Q4K,
        13 => GgmlType::Q5K,
        14 => GgmlType::Q6K,
        20 => GgmlType::IQ4NL,
        30 => GgmlType::BF16,
        39 => GgmlType::MXFP4,
        _ => return None,
    })
}

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

/// The recurrent layers of a hybrid GGUF, from the `{arch}.ssm.*` keys llama.cpp sizes its
/// recurrent memory with (src/llama-hparams.cpp `n_embd_r`/`n_embd_s`): conv kernel, state size
/// (`k_dim`), group count (`k_heads`), inner size = `v_heads × v_dim` with `time_step_rank`
/// heads. The attention layers are those with KV heads in a per-layer `head_count_kv` array
/// (Mamba-2 hybrids), or every `full_attention_interval`-th layer (Gated DeltaNet).
fn recurrent_of(h: &Header, arch: &str, layers: u32) -> Result<Option<Recurrent>, String> {
    let get = |k: &str| h.kv.get(&format!("{arch}.{k}"));
    let key = |k: &str| get(k).and_then(Value::int);
    let Some(conv_kernel) = key("ssm.conv_kernel") else {
        return Ok(None);
    };
    let need = |k: &str| key(k).ok_or_else(|| format!("no {arch}.{k}"));
    let attention_layers: Vec<u32> = match (
        get("attention.head_count_kv"),
        key("full_attention_interval"),
    ) {
        (Some(Value::Array(n, v)), _) if *n == u64::from(layers) && v.len() as u64 == *n => v
            .iter()
            .enumerate()
            .filter(|(_, &k)| k > 0)
            .map(|(il, _)| il as u32)
            .collect(),
        (_, Some(every)) => (0..layers)
            .filter(|il| (u64::from(*il) + 1) % every.max(1) == 0)
            .collect(),
        _ => {
            return Err(format!(
                "{arch}: which layers are recurrent is not modelled yet"
            ))
        }
    };
    let inner = need("ssm.inner_size")?;
    let v_heads = need("ssm.time_step_rank")?.max(1);
    Ok(Some(Recurrent {
        kind: if key("full_attention_interval").is_some() {
            "gated_deltanet".into()
        } else {
            "mamba2".into()
        },
        attention_layers,
        conv_kernel,
        k_heads: key("ssm.group_count").unwrap_or(1),
        k_dim: need("ssm.state_size")?,
        v_heads,
        v_dim: inner / v_heads,
    }))
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
