//! The header's bytes into its metadata (key/values) and its tensor table, in the layout of the
//! GGUF specification, every length bounded before anything is allocated.

use crate::catalog::quant::GgmlType;
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
