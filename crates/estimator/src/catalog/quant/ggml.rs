//! [`GgmlType`], a storage type of one tensor (a KV cache row, an embedding table), whose bytes
//! come from its block layout in ggml.

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
    /// 3-bit k-quant (weights only).
    Q3K,
    /// 2-bit k-quant (weights only).
    Q2K,
    /// 4-bit non-linear super-blocks of 256 (weights only).
    IQ4XS,
    /// 3.44-bit i-quant (weights only).
    IQ3S,
    /// 3.06-bit i-quant (weights only).
    IQ3XXS,
    /// 2.56-bit i-quant (weights only).
    IQ2S,
    /// 2.31-bit i-quant (weights only).
    IQ2XS,
    /// 2.06-bit i-quant (weights only).
    IQ2XXS,
    /// 1.75-bit i-quant (weights only).
    IQ1M,
    /// 1.56-bit i-quant (weights only).
    IQ1S,
    /// Ternary, 2.06 bits (weights only).
    TQ2_0,
    /// Ternary, 1.69 bits (weights only).
    TQ1_0,
}

impl GgmlType {
    /// (bytes per block, values per block), from ggml's block structs
    /// (<https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-common.h>). Per 256
    /// values: `block_q3_K` 32 + 64 + 12 + 2 bytes, `block_q2_K` 16 + 64 + 4, `block_iq4_xs`
    /// 2 + 2 + 4 + 128, `block_iq3_s` 2 + 64 + 8 + 32 + 4, `block_iq3_xxs` 2 + 96, `block_iq2_s`
    /// 2 + 64 + 8 + 8, `block_iq2_xs` 2 + 64 + 8, `block_iq2_xxs` 2 + 64, `block_iq1_m` 32 + 16
    /// + 8, `block_iq1_s` 2 + 32 + 16, `block_tq2_0` 64 + 2, `block_tq1_0` 48 + 4 + 2.
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
            GgmlType::Q3K | GgmlType::IQ3S => (110, 256),
            GgmlType::Q2K => (84, 256),
            GgmlType::IQ4XS => (136, 256),
            GgmlType::IQ3XXS => (98, 256),
            GgmlType::IQ2S => (82, 256),
            GgmlType::IQ2XS => (74, 256),
            GgmlType::IQ2XXS | GgmlType::TQ2_0 => (66, 256),
            GgmlType::IQ1M => (56, 256),
            GgmlType::IQ1S => (50, 256),
            GgmlType::TQ1_0 => (54, 256),
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
            GgmlType::Q3K => "q3_k",
            GgmlType::Q2K => "q2_k",
            GgmlType::IQ4XS => "iq4_xs",
            GgmlType::IQ3S => "iq3_s",
            GgmlType::IQ3XXS => "iq3_xxs",
            GgmlType::IQ2S => "iq2_s",
            GgmlType::IQ2XS => "iq2_xs",
            GgmlType::IQ2XXS => "iq2_xxs",
            GgmlType::IQ1M => "iq1_m",
            GgmlType::IQ1S => "iq1_s",
            GgmlType::TQ2_0 => "tq2_0",
            GgmlType::TQ1_0 => "tq1_0",
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
            "q3_k" => GgmlType::Q3K,
            "q2_k" => GgmlType::Q2K,
            "iq4_xs" => GgmlType::IQ4XS,
            "iq3_s" => GgmlType::IQ3S,
            "iq3_xxs" => GgmlType::IQ3XXS,
            "iq2_s" => GgmlType::IQ2S,
            "iq2_xs" => GgmlType::IQ2XS,
            "iq2_xxs" => GgmlType::IQ2XXS,
            "iq1_m" => GgmlType::IQ1M,
            "iq1_s" => GgmlType::IQ1S,
            "tq2_0" => GgmlType::TQ2_0,
            "tq1_0" => GgmlType::TQ1_0,
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
}
