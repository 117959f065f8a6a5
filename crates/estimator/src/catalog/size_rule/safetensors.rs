//! The safetensors checkpoint (or MLX folder): the linear layers quantized with their scales
//! (and zero points) per the format's published layout, the rest at 16 bits.

use super::{no_rule, Computed};
use crate::catalog::quant::{GgmlType, Quant};
use crate::catalog::tensors::{gemma3_vision_params, has_gemma3_vision, tensors, Kind, Tensor};
use crate::catalog::Arch;

/// Bytes of one quantized linear matrix (`cols` inputs, `rows` outputs, `experts` copies) in a
/// safetensors or MLX scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    /// 16-bit or 32-bit floats.
    Float(u64),
    /// FP8 E4M3 with one F32 scale per 128 × 128 block (`weight_block_size: [128, 128]`, the
    /// publisher's own FP8 of Qwen3, DeepSeek-V3, MiniMax-M2, GLM-4.5:
    /// <https://huggingface.co/Qwen/Qwen3-8B-FP8/blob/main/config.json>).
    Fp8Block,
    /// FP8 E4M3 with one F32 scale per tensor (compressed-tensors `FP8` static per-tensor scheme,
    /// <https://docs.vllm.ai/en/latest/features/quantization/fp8.html>).
    Fp8Tensor,
    /// NVFP4: E2M1 values (4 bits), one FP8 E4M3 scale per 16, two F32 global scales per tensor
    /// (weight and input; <https://docs.vllm.ai/projects/llm-compressor/en/latest/examples/quantization_w4a4_fp4/>,
    /// NVIDIA ModelOpt's `weight_scale_2` and `input_scale`).
    Nvfp4,
    /// MXFP4: E2M1 values, one E8M0 scale byte per 32 (OCP Microscaling v1.0,
    /// <https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf>).
    Mxfp4,
    /// AWQ GEMM packing, 4 bits, group 128: int32-packed weights, FP16 scales and int32-packed
    /// 4-bit zero points per group and output (<https://github.com/casper-hansen/AutoAWQ>,
    /// `WQLinear_GEMM`: `qweight`, `scales`, `qzeros`).
    Awq,
    /// GPTQ with `bits`, group 128: int32-packed weights, FP16 scales, int32-packed zero points
    /// per group and output, and an int32 `g_idx` per input
    /// (<https://github.com/ModelCloud/GPTQModel>, `QuantLinear` buffers).
    Gptq(u64),
    /// bitsandbytes NF4 with double quantization: packed 4-bit values, a uint8 absmax per block
    /// of 64, an F32 absmax per 256 blocks, the 256-entry nested code and 16-entry NF4 code
    /// (<https://huggingface.co/docs/bitsandbytes/main/en/reference/nn/linear4bit>;
    /// `QuantState.as_dict` in bitsandbytes/functional.py).
    BnbNf4,
    /// int8 weights with one scale per output row (bitsandbytes LLM.int8 `SCB`, F32; W8A8
    /// INT8 of compressed-tensors, `weight_scale` per channel in the model's 16-bit type).
    Int8 { scale_bytes: u64 },
    /// MLX: `bits` per value, a 16-bit scale and bias per group of 64.
    Mlx(u64),
}

fn scheme_bytes(s: Scheme, cols: u64, rows: u64, experts: u64) -> u64 {
    let n = cols.saturating_mul(rows);
    let per = match s {
        Scheme::Float(b) => n.saturating_mul(b),
        Scheme::Fp8Block => n.saturating_add(
            4u64.saturating_mul(cols.div_ceil(128))
                .saturating_mul(rows.div_ceil(128)),
        ),
        Scheme::Fp8Tensor => n.saturating_add(4),
        Scheme::Nvfp4 => (n / 2)
            .saturating_add(cols.div_ceil(16).saturating_mul(rows))
            .saturating_add(8),
        Scheme::Mxfp4 => (n / 2).saturating_add(cols.div_ceil(32).saturating_mul(rows)),
        Scheme::Awq => {
            let g = cols.div_ceil(128).saturating_mul(rows);
            (n / 2)
                .saturating_add(g.saturating_mul(2))
                .saturating_add(g / 2)
        }
        Scheme::Gptq(bits) => {
            let g = cols.div_ceil(128).saturating_mul(rows);
            (n.saturating_mul(bits) / 8)
                .saturating_add(g.saturating_mul(2))
                .saturating_add(g.saturating_mul(bits) / 8)
                .saturating_add(4u64.saturating_mul(cols))
        }
        Scheme::BnbNf4 => {
            let blocks = n.div_ceil(64);
            (n / 2)
                .saturating_add(blocks)
                .saturating_add(4u64.saturating_mul(blocks.div_ceil(256)))
                .saturating_add(256 * 4 + 16 * 4)
        }
        Scheme::Int8 { scale_bytes } => n.saturating_add(rows.saturating_mul(scale_bytes)),
        Scheme::Mlx(bits) => {
            (n.saturating_mul(bits) / 8).saturating_add(n.div_ceil(64).saturating_mul(4))
        }
    };
    per.saturating_mul(experts)
}

/// Model types whose publisher ships block-scaled FP8 (`weight_block_size: [128, 128]`):
/// Qwen3 (<https://huggingface.co/Qwen/Qwen3-8B-FP8>), DeepSeek-V3 and Kimi K2 (native FP8,
/// <https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json>), MiniMax-M2
/// (<https://huggingface.co/MiniMaxAI/MiniMax-M2/blob/main/config.json>), GLM-4.5
/// (<https://huggingface.co/zai-org/GLM-4.5-FP8>), DeepSeek-V3.2
/// (<https://huggingface.co/deepseek-ai/DeepSeek-V3.2/blob/main/config.json>), GLM-5
/// (<https://huggingface.co/zai-org/GLM-5-FP8>: its Hub count exceeds the BF16 checkpoint's by
/// exactly these blocks, tests/size_rule.rs).
fn block_fp8(a: &Arch) -> bool {
    a.model_type.starts_with("qwen3")
        || matches!(
            a.model_type.as_str(),
            "deepseek_v3" | "deepseek_v32" | "kimi_k2" | "minimax_m2" | "glm4_moe" | "glm_moe_dsa"
        )
}

/// The scheme of a safetensors or MLX format, its linear layers' and the rest's.
fn scheme(a: &Arch, q: Quant) -> Option<(Scheme, &'static str)> {
    Some(match q {
        Quant::F32 => (Scheme::Float(4), "st-16bit: 4 bytes a parameter"),
        Quant::BF16 | Quant::F16 => (Scheme::Float(2), "st-16bit: 2 bytes a parameter of the stored tensors"),
        Quant::FP8 if block_fp8(a) => (Scheme::Fp8Block, "st-fp8: 1 B per linear weight + an F32 scale per 128x128 block; embeddings, lm_head, norms, router 16-bit"),
        Quant::FP8 => (Scheme::Fp8Tensor, "st-fp8: 1 B per linear weight + an F32 scale per tensor; embeddings, lm_head, norms, router 16-bit"),
        Quant::NVFP4 => (Scheme::Nvfp4, "st-nvfp4: 0.5 B per linear weight + an FP8 scale per 16 + two F32 global scales per tensor; embeddings, lm_head, norms, router 16-bit"),
        Quant::MXFP4 => (Scheme::Mxfp4, "st-mxfp4: expert weights 0.5 B + an E8M0 scale per 32; every other tensor 16-bit (gpt-oss's layout)"),
        Quant::AWQ => (Scheme::Awq, "st-awq: 0.5 B packed weight + FP16 scale and packed 4-bit zero per 128-group; embeddings, lm_head, norms, router 16-bit"),
        Quant::GPTQ => (Scheme::Gptq(4), "st-gptq: 0.5 B packed weight + FP16 scale and packed zero per 128-group + int32 g_idx; embeddings, lm_head, norms, router 16-bit"),
        Quant::GPTQInt8 => (Scheme::Gptq(8), "st-gptq: 1 B packed weight + FP16 scale and packed zero per 128-group + int32 g_idx; embeddings, lm_head, norms, router 16-bit"),
        Quant::BnbNf4 => (Scheme::BnbNf4, "st-bnb: 0.5 B per linear weight + a uint8 absmax per 64 (double quantization); embeddings, lm_head, norms 16-bit"),
        Quant::BnbInt8 => (Scheme::Int8 { scale_bytes: 4 }, "st-int8: 1 B per linear weight + an F32 scale per output row (bitsandbytes SCB); embeddings, lm_head, norms 16-bit"),
        Quant::W8A8 => (Scheme::Int8 { scale_bytes: 2 }, "st-int8: 1 B per linear weight + a 16-bit scale per output channel (compressed-tensors W8A8); embeddings, lm_head, norms 16-bit"),
        Quant::Mlx8 => (Scheme::Mlx(8), "mlx: every Linear and Embedding weight at 8 bits + a 16-bit scale and bias per group of 64; norms 16-bit"),
        Quant::Mlx6 => (Scheme::Mlx(6), "mlx: every Linear and Embedding weight at 6 bits + a 16-bit scale and bias per group of 64; norms 16-bit"),
        Quant::Mlx5 => (Scheme::Mlx(5), "mlx: every Linear and Embedding weight at 5 bits + a 16-bit scale and bias per group of 64; norms 16-bit"),
        Quant::Mlx4 => (Scheme::Mlx(4), "mlx: every Linear and Embedding weight at 4 bits + a 16-bit scale and bias per group of 64; norms 16-bit"),
        Quant::Mlx3 => (Scheme::Mlx(3), "mlx: every Linear and Embedding weight at 3 bits + a 16-bit scale and bias per group of 64; norms 16-bit"),
        _ => return None,
    })
}

/// The bytes of layer `il`'s routed experts in `a`'s safetensors checkpoint in format `q` (0 on
/// a layer without experts), by the checkpoint's own rule ([`stored_bytes`]): what vLLM's
/// `--cpu-offload-params experts` can move to host memory. `None` for a format without a
/// scheme (a GGUF mix).
pub(super) fn layer_expert_bytes(a: &Arch, q: Quant, il: u32) -> Option<u64> {
    let (s, _) = scheme(a, q)?;
    Some(
        crate::catalog::tensors::layer_routed_experts(a, il)
            .iter()
            .map(|t| stored_bytes(s, q, t))
            .fold(0, u64::saturating_add),
    )
}

/// One tensor's bytes in a checkpoint of scheme `s` (format `q`): a linear weight at the
/// scheme's layout, the rest at 16 bits (32 in an F32 checkpoint). Left at 16 bits by a
/// quantized checkpoint (an MLX one quantizes them too): the embeddings, the output matrix, the
/// MTP block, and DeepSeek-V3.2's indexer weights projection, which its FP8 checkpoint keeps in
/// BF16: the Hub's count for that checkpoint (685,396,921,376) exceeds V3's by 62 layers × (the
/// indexer's 13,959,424 weights + 824 FP8 block scales, the query and key projections' alone);
/// tests/size_rule.rs holds it. MXFP4 checkpoints quantize the experts only.
fn stored_bytes(s: Scheme, q: Quant, t: &Tensor) -> u64 {
    let kept = matches!(
        t.name,
        "token_embd.weight"
            | "output.weight"
            | "per_layer_token_embd.weight"
            | "indexer.proj.weight"
    ) || t.name.starts_with("nextn.");
    let linear = match t.kind {
        Kind::Weight => !kept || matches!(s, Scheme::Mlx(_)),
        Kind::Mxfp4Experts => true,
        _ => false,
    };
    if linear && (q != Quant::MXFP4 || t.is_experts()) {
        scheme_bytes(s, t.ne[0], t.ne[1], t.ne[2])
    } else {
        t.elements()
            .saturating_mul(if q == Quant::F32 { 4 } else { 2 })
    }
}

/// The safetensors checkpoint (or MLX folder) of `a` in format `q`.
pub(super) fn checkpoint(a: &Arch, q: Quant, output: bool) -> Result<Computed, String> {
    let Some((s, rule)) = scheme(a, q) else {
        return Err(no_rule(q));
    };
    if q == Quant::MXFP4 && !a.is_moe() {
        return Err("MXFP4 checkpoints (gpt-oss's layout) quantize expert tensors only; this model has none".into());
    }
    let rest = if q == Quant::F32 { 4 } else { 2 };
    let mut total = tensors(a, output)
        .iter()
        .map(|t| stored_bytes(s, q, t))
        .fold(0u64, u64::saturating_add);
    if has_gemma3_vision(a) {
        total = total.saturating_add(gemma3_vision_params(a.hidden).saturating_mul(rest));
    }
    let sixteen = if q == Quant::F16 || matches!(s, Scheme::Awq | Scheme::Gptq(_)) {
        GgmlType::F16
    } else if q == Quant::F32 {
        GgmlType::F32
    } else {
        GgmlType::BF16
    };
    let embd_type = match s {
        Scheme::Mlx(8) => GgmlType::Q8_0,
        Scheme::Mlx(6) => GgmlType::Q6K,
        Scheme::Mlx(5) => GgmlType::Q5_0,
        Scheme::Mlx(4) => GgmlType::Q4_0,
        Scheme::Mlx(_) => GgmlType::Q3K,
        _ => sixteen,
    };
    let unquantized = match s {
        Scheme::Float(_) => Vec::new(),
        Scheme::Mlx(_) => vec![format!("norms ({})", sixteen.name().to_uppercase())],
        Scheme::Mxfp4 => vec!["attention, embeddings, lm_head, router, norms (BF16)".to_string()],
        _ => {
            let ty = sixteen.name().to_uppercase();
            let mut u = vec![
                format!("embed_tokens ({ty})"),
                format!("lm_head ({ty})"),
                format!("norms ({ty})"),
            ];
            if a.is_moe() {
                u.push(format!("router ({ty})"));
            }
            u
        }
    };
    Ok(Computed {
        bytes: total,
        embd_type,
        unquantized,
        rule,
    })
}
