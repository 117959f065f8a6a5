//! Tensor element types and weight formats.
//!
//! [`GgmlType`] is a storage type of one tensor (a KV cache row, an embedding table): its bytes
//! come from the block layout in ggml (`ggml/src/ggml-common.h`: `block_q8_0` = 2-byte scale + 32
//! int8 = 34 bytes per 32 values, and so on). [`Quant`] is a *file* format as the ecosystem names
//! it (`Q4_K_M`, `BF16`, `AWQ`…): a mix of tensor types whose real size is looked up, never derived
//! from it; its nominal bits per weight only orders precision within a variant.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A ggml tensor type with a fixed block layout. Serialized as ggml's name (`q6_k`), which is
/// what it is read from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GgmlType {
    /// 32-bit float.
    F32,
    /// 16-bit float.
    #[default]
    F16,
    /// bfloat16.
    BF16,
    /// 8-bit blocks of 32 with an f16 scale.
    Q8_0,
    /// 6-bit k-quant.
    Q6K,
    /// 5-bit blocks of 32, f16 scale.
    Q5_0,
    /// 5-bit blocks of 32, f16 scale and minimum.
    Q5_1,
    /// 5-bit k-quant.
    Q5K,
    /// 4-bit blocks of 32, f16 scale.
    Q4_0,
    /// 4-bit blocks of 32, f16 scale and minimum.
    Q4_1,
    /// 4-bit k-quant.
    Q4K,
    /// MXFP4: 4-bit floats in blocks of 32 with an 8-bit shared exponent.
    MXFP4,
    /// 4-bit non-linear blocks of 32 with an f16 scale (a KV cache type).
    IQ4NL,
}

impl GgmlType {
    /// (bytes per block, values per block), from ggml's block structs.
    pub const fn block(self) -> (u64, u64) {
        match self {
            GgmlType::F32 => (4, 1),
            GgmlType::F16 | GgmlType::BF16 => (2, 1),
            GgmlType::Q8_0 => (34, 32),
            GgmlType::Q6K => (210, 256),
            GgmlType::Q5_0 => (22, 32),
            GgmlType::Q5_1 => (24, 32),
            GgmlType::Q5K => (176, 256),
            GgmlType::Q4_0 => (18, 32),
            GgmlType::Q4_1 => (20, 32),
            GgmlType::Q4K => (144, 256),
            GgmlType::MXFP4 => (17, 32),
            GgmlType::IQ4NL => (18, 32),
        }
    }

    /// `row(t, n)`: bytes of `n` values stored as this type (n a multiple of the block size in
    /// every real tensor; rounded up otherwise).
    pub fn row_bytes(self, n: u64) -> u64 {
        let (b, k) = self.block();
        n.div_ceil(k).saturating_mul(b)
    }

    /// ggml's name for the type.
    pub const fn name(self) -> &'static str {
        match self {
            GgmlType::F32 => "f32",
            GgmlType::F16 => "f16",
            GgmlType::BF16 => "bf16",
            GgmlType::Q8_0 => "q8_0",
            GgmlType::Q6K => "q6_k",
            GgmlType::Q5_0 => "q5_0",
            GgmlType::Q5_1 => "q5_1",
            GgmlType::Q5K => "q5_k",
            GgmlType::Q4_0 => "q4_0",
            GgmlType::Q4_1 => "q4_1",
            GgmlType::Q4K => "q4_k",
            GgmlType::MXFP4 => "mxfp4",
            GgmlType::IQ4NL => "iq4_nl",
        }
    }

    /// Types llama.cpp accepts for `--cache-type-k/-v` (`kv_cache_types` in common/arg.cpp),
    /// most precise first.
    pub const KV_CHOICES: [GgmlType; 9] = [
        GgmlType::F16,
        GgmlType::BF16,
        GgmlType::F32,
        GgmlType::Q8_0,
        GgmlType::Q5_1,
        GgmlType::Q5_0,
        GgmlType::Q4_1,
        GgmlType::Q4_0,
        GgmlType::IQ4NL,
    ];
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GgmlType {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "f32" => GgmlType::F32,
            "f16" | "fp16" => GgmlType::F16,
            "bf16" => GgmlType::BF16,
            "q8_0" => GgmlType::Q8_0,
            "q6_k" => GgmlType::Q6K,
            "q5_0" => GgmlType::Q5_0,
            "q5_1" => GgmlType::Q5_1,
            "q5_k" => GgmlType::Q5K,
            "q4_0" => GgmlType::Q4_0,
            "q4_1" => GgmlType::Q4_1,
            "q4_k" => GgmlType::Q4K,
            "mxfp4" => GgmlType::MXFP4,
            "iq4_nl" => GgmlType::IQ4NL,
            _ => return Err(()),
        })
    }
}

impl Serialize for GgmlType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for GgmlType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse()
            .map_err(|_| serde::de::Error::custom(format!("unknown ggml type {s:?}")))
    }
}

/// Where a format's files live: llama.cpp-family engines read GGUF, vLLM / transformers read
/// safetensors checkpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Container {
    /// GGUF (llama.cpp, Ollama).
    Gguf,
    /// safetensors (vLLM, transformers).
    Safetensors,
}

/// A weight format as the ecosystem spells it (the permalink's `quant=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quant {
    /// 32-bit float weights.
    F32,
    /// bfloat16 weights.
    BF16,
    /// float16 weights.
    F16,
    /// GGUF Q8_0.
    Q8_0,
    /// 8-bit float weights (safetensors).
    FP8,
    /// GGUF Q6_K.
    Q6K,
    /// GGUF Q5_K_M (a mix of Q5_K and Q6_K).
    Q5KM,
    /// GGUF Q4_K_M (a mix of Q4_K and Q6_K).
    Q4KM,
    /// MXFP4 expert weights (gpt-oss).
    MXFP4,
    /// AWQ 4-bit (safetensors).
    AWQ,
    /// GPTQ 4-bit (safetensors).
    GPTQ,
    /// GGUF Q4_0.
    Q4_0,
}

impl Quant {
    /// Every format, most precise first.
    pub const ALL: [Quant; 12] = [
        Quant::F32,
        Quant::BF16,
        Quant::F16,
        Quant::Q8_0,
        Quant::FP8,
        Quant::Q6K,
        Quant::Q5KM,
        Quant::Q4KM,
        Quant::MXFP4,
        Quant::AWQ,
        Quant::GPTQ,
        Quant::Q4_0,
    ];

    /// The ecosystem's spelling.
    pub const fn id(self) -> &'static str {
        match self {
            Quant::F32 => "F32",
            Quant::BF16 => "BF16",
            Quant::F16 => "F16",
            Quant::Q8_0 => "Q8_0",
            Quant::FP8 => "FP8",
            Quant::Q6K => "Q6_K",
            Quant::Q5KM => "Q5_K_M",
            Quant::Q4KM => "Q4_K_M",
            Quant::MXFP4 => "MXFP4",
            Quant::AWQ => "AWQ",
            Quant::GPTQ => "GPTQ",
            Quant::Q4_0 => "Q4_0",
        }
    }

    /// Nominal bits per weight of the format's main tensors, used only to order precision
    /// within one variant (a higher number is closer to the original weights). From the block
    /// layouts: Q8_0 34 B/32 = 8.5; Q6_K 210 B/256 = 6.5625; Q5_K 176/256 = 5.5; Q4_K 144/256 =
    /// 4.5; Q4_0 18/32 = 4.5 (ranked below Q4_K_M: no super-block scales, no Q6_K mix);
    /// MXFP4 17/32 = 4.25; AWQ/GPTQ int4 with one fp16 scale + zero per group of 128 ≈ 4.25.
    /// FP8 (E4M3, per-block scales) sits just below Q8_0.
    pub const fn precision_bits(self) -> f64 {
        match self {
            Quant::F32 => 32.0,
            Quant::BF16 | Quant::F16 => 16.0,
            Quant::Q8_0 => 8.5,
            Quant::FP8 => 8.0,
            Quant::Q6K => 6.5625,
            Quant::Q5KM => 5.5,
            Quant::Q4KM => 4.5,
            Quant::MXFP4 => 4.25,
            Quant::AWQ | Quant::GPTQ => 4.25,
            Quant::Q4_0 => 4.4,
        }
    }
}

impl fmt::Display for Quant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id())
    }
}

impl FromStr for Quant {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        let up = s.trim().to_ascii_uppercase();
        Quant::ALL.iter().copied().find(|q| q.id() == up).ok_or(())
    }
}

/// Serialized as the ecosystem's spelling (`Q4_K_M`), like the catalog and the query string.
impl Serialize for Quant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> serde::Deserialize<'de> for Quant {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse()
            .map_err(|_| serde::de::Error::custom(format!("unknown format {s:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_bytes_follow_block_layouts() {
        // ggml's block sizes (ggml/src/ggml.c, type_traits): f16 2n, q8_0 34n/32, q4_0 18n/32, q5_1 24n/32.
        assert_eq!(GgmlType::F16.row_bytes(256), 512);
        assert_eq!(GgmlType::Q8_0.row_bytes(256), 272);
        assert_eq!(GgmlType::Q4_0.row_bytes(256), 144);
        assert_eq!(GgmlType::Q5_1.row_bytes(256), 192);
        assert_eq!(GgmlType::Q6K.row_bytes(2048), 1680);
    }

    #[test]
    fn quant_ids_round_trip() {
        for q in Quant::ALL {
            assert_eq!(q.id().parse::<Quant>(), Ok(q));
        }
        assert_eq!("q4_k_m".parse::<Quant>(), Ok(Quant::Q4KM));
        assert!("Q3_K_XL".parse::<Quant>().is_err());
    }
}
