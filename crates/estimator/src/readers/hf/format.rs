//! The format a checkpoint is stored in: its `quantization_config`, checked against the dtypes
//! its safetensors headers hold.

use super::safetensors::Tensor;
use crate::catalog::quant::Quant;
use serde_json::Value;

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
