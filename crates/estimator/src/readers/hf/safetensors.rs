//! A `.safetensors` header into its tensor table, and a sharded checkpoint's index into its
//! shards. The format (github.com/huggingface/safetensors, README "Format"): 8 bytes
//! little-endian header length `N`, then `N` bytes of JSON `{name: {dtype, shape, data_offsets}, …,
//! "__metadata__": {…}}`, then the data. `N` is bounded ([`MAX_HEADER`], the library's own
//! limit) before anything is read.

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
