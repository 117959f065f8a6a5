//! [`Quant`], a file format as the ecosystem names it, and the [`Container`] its files come in.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Where a format's files live: llama.cpp-family engines read GGUF, vLLM / transformers read
/// safetensors checkpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Container {
    /// GGUF (llama.cpp, Ollama).
    Gguf,
    /// safetensors (vLLM, transformers).
    Safetensors,
    /// MLX's own checkpoint (safetensors files holding `mlx.core.quantize` packed weights with
    /// per-group scales and biases, and a `quantization` entry in config.json): mlx-lm only.
    Mlx,
}

impl Container {
    /// Its name in messages (`GGUF`, `safetensors`, `MLX`).
    pub const fn label(self) -> &'static str {
        match self {
            Container::Gguf => "GGUF",
            Container::Safetensors => "safetensors",
            Container::Mlx => "MLX",
        }
    }
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
    /// MLX 8-bit (group size 64, bf16 scale and bias per group).
    Mlx8,
    /// Unsloth dynamic mix around Q8_0 (sizes only from published files).
    UDQ8KXL,
    /// GPTQ 8-bit (safetensors, int8 with one fp16 scale per group of 128).
    GPTQInt8,
    /// 8-bit float weights (safetensors; per-tensor or 128×128 block scales).
    FP8,
    /// W8A8 INT8 (safetensors, compressed-tensors int8 weights and activations).
    W8A8,
    /// bitsandbytes LLM.int8 (safetensors, quantised at load or pre-quantised).
    BnbInt8,
    /// GGUF Q6_K.
    Q6K,
    /// MLX 6-bit (group size 64).
    Mlx6,
    /// GGUF Q5_K_M (a mix of Q5_K and Q6_K).
    Q5KM,
    /// GGUF Q5_K_S (Q5_K throughout).
    Q5KS,
    /// MLX 5-bit (group size 64).
    Mlx5,
    /// Unsloth dynamic mix around Q4_K_M (sizes only from published files).
    UDQ4KXL,
    /// GGUF Q4_K_M (a mix of Q4_K and Q6_K).
    Q4KM,
    /// MLX 4-bit (group size 64, bf16 scale and bias per group).
    Mlx4,
    /// NVFP4 (safetensors: 4-bit floats, one FP8 scale per 16 values and a tensor scale).
    NVFP4,
    /// GGUF Q4_K_S (Q4_K throughout).
    Q4KS,
    /// GGUF Q4_1.
    Q4_1,
    /// GGUF Q4_0.
    Q4_0,
    /// GGUF IQ4_NL (non-linear 4-bit, blocks of 32).
    IQ4NL,
    /// GGUF IQ4_XS (non-linear 4-bit, super-blocks of 256).
    IQ4XS,
    /// MXFP4 expert weights (gpt-oss).
    MXFP4,
    /// AWQ 4-bit (safetensors).
    AWQ,
    /// GPTQ 4-bit (safetensors; `GPTQ-Int4`).
    GPTQ,
    /// bitsandbytes NF4 (safetensors, 4-bit normal float, blocks of 64).
    BnbNf4,
    /// GGUF Q3_K_L.
    Q3KL,
    /// Unsloth dynamic mix around Q3_K (sizes only from published files).
    UDQ3KXL,
    /// GGUF Q3_K_M.
    Q3KM,
    /// GGUF IQ3_M.
    IQ3M,
    /// MLX 3-bit (group size 64).
    Mlx3,
    /// GGUF IQ3_S.
    IQ3S,
    /// GGUF Q3_K_S (Q3_K throughout).
    Q3KS,
    /// GGUF IQ3_XXS.
    IQ3XXS,
    /// Unsloth dynamic mix around Q2_K (sizes only from published files).
    UDQ2KXL,
    /// GGUF IQ2_M.
    IQ2M,
    /// GGUF Q2_K.
    Q2K,
    /// GGUF IQ2_S.
    IQ2S,
    /// GGUF IQ2_XS.
    IQ2XS,
    /// GGUF IQ2_XXS.
    IQ2XXS,
    /// GGUF TQ2_0 (ternary, 2 bits per weight).
    TQ2_0,
    /// GGUF IQ1_M.
    IQ1M,
    /// GGUF TQ1_0 (ternary, 1.69 bits per weight).
    TQ1_0,
    /// GGUF IQ1_S.
    IQ1S,
}

impl Quant {
    /// Every format, most precise first.
    pub const ALL: [Quant; 46] = [
        Quant::F32,
        Quant::BF16,
        Quant::F16,
        Quant::Q8_0,
        Quant::Mlx8,
        Quant::UDQ8KXL,
        Quant::GPTQInt8,
        Quant::FP8,
        Quant::W8A8,
        Quant::BnbInt8,
        Quant::Q6K,
        Quant::Mlx6,
        Quant::Q5KM,
        Quant::Q5KS,
        Quant::Mlx5,
        Quant::UDQ4KXL,
        Quant::Q4KM,
        Quant::Mlx4,
        Quant::NVFP4,
        Quant::Q4KS,
        Quant::Q4_1,
        Quant::Q4_0,
        Quant::IQ4NL,
        Quant::IQ4XS,
        Quant::MXFP4,
        Quant::AWQ,
        Quant::GPTQ,
        Quant::BnbNf4,
        Quant::Q3KL,
        Quant::UDQ3KXL,
        Quant::Q3KM,
        Quant::IQ3M,
        Quant::Mlx3,
        Quant::IQ3S,
        Quant::Q3KS,
        Quant::IQ3XXS,
        Quant::UDQ2KXL,
        Quant::IQ2M,
        Quant::Q2K,
        Quant::IQ2S,
        Quant::IQ2XS,
        Quant::IQ2XXS,
        Quant::TQ2_0,
        Quant::IQ1M,
        Quant::TQ1_0,
        Quant::IQ1S,
    ];

    /// The ecosystem's spelling.
    pub const fn id(self) -> &'static str {
        match self {
            Quant::F32 => "F32",
            Quant::BF16 => "BF16",
            Quant::F16 => "F16",
            Quant::Q8_0 => "Q8_0",
            Quant::Mlx8 => "MLX-8bit",
            Quant::Mlx6 => "MLX-6bit",
            Quant::Mlx5 => "MLX-5bit",
            Quant::Mlx4 => "MLX-4bit",
            Quant::Mlx3 => "MLX-3bit",
            Quant::UDQ8KXL => "UD-Q8_K_XL",
            Quant::GPTQInt8 => "GPTQ-Int8",
            Quant::FP8 => "FP8",
            Quant::W8A8 => "W8A8",
            Quant::BnbInt8 => "BNB-INT8",
            Quant::Q6K => "Q6_K",
            Quant::Q5KM => "Q5_K_M",
            Quant::Q5KS => "Q5_K_S",
            Quant::UDQ4KXL => "UD-Q4_K_XL",
            Quant::Q4KM => "Q4_K_M",
            Quant::NVFP4 => "NVFP4",
            Quant::Q4KS => "Q4_K_S",
            Quant::Q4_1 => "Q4_1",
            Quant::Q4_0 => "Q4_0",
            Quant::IQ4NL => "IQ4_NL",
            Quant::IQ4XS => "IQ4_XS",
            Quant::MXFP4 => "MXFP4",
            Quant::AWQ => "AWQ",
            Quant::GPTQ => "GPTQ",
            Quant::BnbNf4 => "BNB-NF4",
            Quant::Q3KL => "Q3_K_L",
            Quant::UDQ3KXL => "UD-Q3_K_XL",
            Quant::Q3KM => "Q3_K_M",
            Quant::IQ3M => "IQ3_M",
            Quant::IQ3S => "IQ3_S",
            Quant::Q3KS => "Q3_K_S",
            Quant::IQ3XXS => "IQ3_XXS",
            Quant::UDQ2KXL => "UD-Q2_K_XL",
            Quant::IQ2M => "IQ2_M",
            Quant::Q2K => "Q2_K",
            Quant::IQ2S => "IQ2_S",
            Quant::IQ2XS => "IQ2_XS",
            Quant::IQ2XXS => "IQ2_XXS",
            Quant::TQ2_0 => "TQ2_0",
            Quant::IQ1M => "IQ1_M",
            Quant::TQ1_0 => "TQ1_0",
            Quant::IQ1S => "IQ1_S",
        }
    }

    /// Nominal bits per weight of the format's main tensors, used only to order precision
    /// within one variant (a higher number is closer to the original weights). From the block
    /// layouts (ggml/src/ggml-common.h): Q8_0 34 B/32 = 8.5; Q6_K 210 B/256 = 6.5625; Q5_K
    /// 176/256 = 5.5; Q4_K 144/256 = 4.5; Q3_K 110/256 = 3.4375; Q2_K 84/256 = 2.625; IQ3_XXS
    /// 98/256 = 3.0625; IQ2_XS 74/256 = 2.3125; IQ2_XXS 66/256 = 2.0625; IQ1_M 56/256 = 1.75;
    /// IQ1_S 50/256 = 1.5625; TQ1_0 54/256 = 1.6875; TQ2_0 66/256 = 2.0625; MXFP4 17/32 = 4.25.
    /// MLX's formats: `bits + 32/64` (a bf16 scale and a bf16 bias per group of 64, see
    /// the `st-mlx` rule of data/gen/compute_sizes.py): 8.5, 6.5, 5.5 (placed with Q5_K_S), 4.5, 3.5.
    /// Legacy and mixed types sit where their quality does, not at their raw size: Q4_0/Q4_1
    /// (no super-block scales) just below Q4_K_S < Q4_K_M; the _S/_M/_L mixes in that order; the
    /// UD-…_XL dynamic mixes just above their base. AWQ/GPTQ int4 with one fp16 scale + zero per
    /// group of 128 ≈ 4.25; NVFP4 4 + 8/16 = 4.5; bitsandbytes NF4 ≈ 4.2 (double-quantised
    /// absmax); FP8 / W8A8 / LLM.int8 8.0, just below Q8_0 and GPTQ-Int8.
    pub const fn precision_bits(self) -> f64 {
        match self {
            Quant::F32 => 32.0,
            Quant::BF16 | Quant::F16 => 16.0,
            Quant::Q8_0 | Quant::Mlx8 => 8.5,
            Quant::Mlx6 => 6.5,
            Quant::Mlx5 => 5.45,
            Quant::Mlx3 => 3.5,
            Quant::UDQ8KXL => 8.4,
            Quant::GPTQInt8 => 8.25,
            Quant::FP8 | Quant::W8A8 | Quant::BnbInt8 => 8.0,
            Quant::Q6K => 6.5625,
            Quant::Q5KM => 5.5,
            Quant::Q5KS => 5.45,
            Quant::UDQ4KXL => 4.6,
            Quant::Q4KM | Quant::NVFP4 | Quant::Mlx4 => 4.5,
            Quant::Q4KS => 4.45,
            Quant::Q4_1 => 4.42,
            Quant::Q4_0 => 4.4,
            Quant::IQ4NL => 4.38,
            Quant::IQ4XS | Quant::MXFP4 | Quant::AWQ | Quant::GPTQ => 4.25,
            Quant::BnbNf4 => 4.2,
            Quant::Q3KL => 3.8,
            Quant::UDQ3KXL => 3.75,
            Quant::Q3KM => 3.7,
            Quant::IQ3M => 3.66,
            Quant::IQ3S => 3.44,
            Quant::Q3KS => 3.4375,
            Quant::IQ3XXS => 3.0625,
            Quant::UDQ2KXL => 2.8,
            Quant::IQ2M => 2.7,
            Quant::Q2K => 2.625,
            Quant::IQ2S => 2.5,
            Quant::IQ2XS => 2.3125,
            Quant::IQ2XXS | Quant::TQ2_0 => 2.0625,
            Quant::IQ1M => 1.75,
            Quant::TQ1_0 => 1.6875,
            Quant::IQ1S => 1.5625,
        }
    }

    /// The container a published file of this format comes in. Which engines load it follows
    /// from [`crate::catalog::engine::Engine::container`]: llama.cpp and Ollama load GGUF only
    /// (<https://github.com/ggml-org/llama.cpp/blob/master/docs/build.md>,
    /// <https://github.com/ollama/ollama/blob/main/docs/import.md>); vLLM and SGLang load
    /// safetensors checkpoints including AWQ, GPTQ (4/8-bit), FP8, NVFP4 (ModelOpt /
    /// compressed-tensors), W8A8 INT8 and bitsandbytes
    /// (<https://docs.vllm.ai/en/latest/features/quantization/index.html>,
    /// <https://docs.sglang.ai/advanced_features/quantization.html>); transformers loads
    /// BF16/F16/F32, FP8, AWQ, GPTQ and bitsandbytes
    /// (<https://huggingface.co/docs/transformers/main/en/quantization/overview>). F32/BF16/F16 and
    /// MXFP4 exist in both containers (`None`).
    pub const fn container(self) -> Option<Container> {
        match self {
            Quant::F32 | Quant::BF16 | Quant::F16 | Quant::MXFP4 => None,
            Quant::GPTQInt8
            | Quant::FP8
            | Quant::W8A8
            | Quant::BnbInt8
            | Quant::NVFP4
            | Quant::AWQ
            | Quant::GPTQ
            | Quant::BnbNf4 => Some(Container::Safetensors),
            Quant::Mlx8 | Quant::Mlx6 | Quant::Mlx5 | Quant::Mlx4 | Quant::Mlx3 => {
                Some(Container::Mlx)
            }
            _ => Some(Container::Gguf),
        }
    }

    /// Up to `n` known format names closest to `s` (unknown names), best first
    /// ([`crate::order::nearest_names`]).
    pub fn closest(s: &str, n: usize) -> Vec<&'static str> {
        let ids: Vec<&'static str> = Quant::ALL.iter().map(|q| q.id()).collect();
        crate::order::nearest_names(s, &ids, n)
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
        let s = s.trim();
        let s = match s.to_ascii_uppercase().as_str() {
            "GPTQ-INT4" => "GPTQ",
            "AWQ-INT4" => "AWQ",
            _ => s,
        };
        Quant::ALL
            .iter()
            .copied()
            .find(|q| q.id().eq_ignore_ascii_case(s))
            .ok_or(())
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
    fn quant_ids_round_trip() {
        for q in Quant::ALL {
            assert_eq!(q.id().parse::<Quant>(), Ok(q));
        }
        assert_eq!("q4_k_m".parse::<Quant>(), Ok(Quant::Q4KM));
        assert!("Q3_K_XL".parse::<Quant>().is_err());
        assert_eq!("gptq-int8".parse::<Quant>(), Ok(Quant::GPTQInt8));
        assert_eq!("GPTQ-Int4".parse::<Quant>(), Ok(Quant::GPTQ));
        assert_eq!("iq4_xs".parse::<Quant>(), Ok(Quant::IQ4XS));
    }

    #[test]
    fn all_is_ordered_by_precision_and_unique() {
        for w in Quant::ALL.windows(2) {
            assert!(
                w[0].precision_bits() >= w[1].precision_bits(),
                "{} before {}",
                w[0],
                w[1]
            );
        }
        let ids: std::collections::HashSet<_> = Quant::ALL.iter().map(|q| q.id()).collect();
        assert_eq!(ids.len(), Quant::ALL.len());
    }

    #[test]
    fn unknown_names_get_close_matches() {
        assert_eq!(Quant::closest("Q4KM", 1), vec!["Q4_K_M"]);
        assert_eq!(Quant::closest("iq2xxs", 1), vec!["IQ2_XXS"]);
        assert!(Quant::closest("Q3_K_XL", 3).contains(&"UD-Q3_K_XL"));
        assert_eq!(Quant::container(Quant::NVFP4), Some(Container::Safetensors));
        assert_eq!(Quant::container(Quant::IQ1S), Some(Container::Gguf));
        assert_eq!(Quant::container(Quant::BF16), None);
    }
}
