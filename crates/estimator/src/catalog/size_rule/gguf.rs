//! The GGUF file: every tensor at the type llama.cpp's mix gives it ([`super::mix`]), each
//! tensor's data aligned to 32 bytes, plus the header: one tensor-info record per tensor and
//! the key/value metadata (most of it the tokenizer).

use super::mix::{counts_ffn_down, default_type, expert_type, weight_type, Mix};
use super::{no_rule, Computed};
use crate::catalog::quant::{GgmlType, Quant};
use crate::catalog::tensors::{tensors, Kind, Tensor};
use crate::catalog::Arch;

/// GGUF data alignment (`GGUF_DEFAULT_ALIGNMENT` = 32,
/// <https://github.com/ggml-org/ggml/blob/master/docs/gguf.md>, "general.alignment").
const GGUF_ALIGN: u64 = 32;

/// GGUF's fixed header: magic, version, tensor count, key/value count (4 + 4 + 8 + 8 bytes,
/// docs/gguf.md "File Structure").
const GGUF_HEADER: u64 = 24;

/// Bytes of one GGUF tensor-info record: the name (u64 length + bytes), `n_dims` (u32), the
/// dimensions (u64 each), the type (u32) and the data offset (u64) (docs/gguf.md,
/// `gguf_tensor_info_t`).
fn tensor_info_bytes(name_len: u64, dims: u8) -> u64 {
    8 + name_len + 4 + 8 * u64::from(dims) + 4 + 8
}

/// The GGUF key/value metadata, most of it the tokenizer (token strings, scores and types, BPE
/// merges, chat template), by vocabulary size. Computed, not published: the gap between
/// published 16-bit and Q8_0 GGUF files and their tensor data (the `META_BYTES` table of
/// data/gen/compute_sizes.py, fitted on the bartowski, unsloth and ggml-org files the catalog
/// cites; about 50 bytes a token where no family is known).
fn metadata_bytes(vocab: u64) -> u64 {
    match vocab {
        // Llama 3 tokenizer: 128,256 tokens and about 280 k merges.
        128_256 => 8_000_000,
        // Qwen2/3 (151,936; 152,064), GLM-4 (151,552; 154,880), Tekken (131,072),
        // DeepSeek-V3 (129,280) and Kimi K2 (163,840): BPE vocabularies with merges.
        151_936 | 152_064 | 151_552 | 154_880 | 131_072 | 129_280 | 163_840 => 7_000_000,
        // Gemma 2/3/3n/4: 256 k–262 k sentencepiece tokens with scores and types.
        256_000..=262_400 => 10_500_000,
        // Llama 2 and Mistral v3 sentencepiece (32,000; 32,768).
        32_000 | 32_768 => 1_500_000,
        // Phi-4 / OLMo 2 / Granite 4 (100,352).
        100_352 => 5_000_000,
        // o200k-style (gpt-oss 201,088; Phi-4-mini 200,064; Llama 4 202,048; MiniMax 200,064).
        200_000..=202_100 => 12_000_000,
        // Granite 3 (49,152–49,160).
        49_152..=49_160 => 2_500_000,
        // Qwen3.5 (248,320): fitted on unsloth's Qwen3.5-9B Q8_0 (9,527,502,048 bytes,
        // https://huggingface.co/unsloth/Qwen3.5-9B-GGUF).
        248_320 => 11_000_000,
        // XLM-RoBERTa's sentencepiece unigram (250,002 tokens with scores and types, the `t5`
        // tokenizer of bge-m3's GGUF): fitted on gpustack's bge-m3 Q8_0 (634,553,760 bytes); its
        // Q4_K_M (437,778,496) then comes out within 420 bytes.
        250_002 => 6_820_000,
        // BERT's uncased WordPiece (30,522 tokens, no merges): fitted on nomic-embed-text-v1.5's
        // F16 (274,290,560 bytes); its Q8_0 (146,146,432) then within 300 bytes.
        30_522 => 750_000,
        v => v.saturating_mul(50),
    }
}

/// A tensor's data bytes at type `ty`, aligned to 32.
fn aligned(ty: GgmlType, t: &Tensor) -> u64 {
    let bytes = ty.row_bytes(t.ne[0]).saturating_mul(t.rows());
    bytes.div_ceil(GGUF_ALIGN).saturating_mul(GGUF_ALIGN)
}

/// Every tensor of `a`'s GGUF file in mix `q` with the type the mix gives it and its data bytes
/// ([`aligned`]); Err when the mix has no rule.
fn sized(a: &Arch, q: Quant, output: bool) -> Result<Vec<(Tensor, GgmlType, u64)>, String> {
    let Some(default) = default_type(q) else {
        return Err(no_rule(q));
    };
    if q == Quant::MXFP4 && !a.is_moe() {
        return Err(
            "MXFP4 (llama.cpp's MXFP4_MOE) quantizes expert tensors only; this model has none"
                .into(),
        );
    }
    let ts = tensors(a, output);
    let m = Mix::new(a, q, default, &ts);
    let quantized = is_quantized(default);
    let sixteen = if q == Quant::F32 {
        GgmlType::F32
    } else {
        GgmlType::BF16
    };
    let (mut i_v, mut i_down) = (0u64, 0u64);
    Ok(ts
        .iter()
        .map(|t| {
            let ty = match t.kind {
                Kind::Vector | Kind::Router | Kind::F32Matrix => GgmlType::F32,
                Kind::Keep16 => sixteen,
                Kind::Mxfp4Experts => GgmlType::MXFP4,
                Kind::Weight if !quantized => default,
                Kind::Weight => weight_type(&m, t, &mut i_v, &mut i_down),
            };
            (*t, ty, aligned(ty, t))
        })
        .collect())
}

/// Not a float format: the mix quantizes its weights.
fn is_quantized(default: GgmlType) -> bool {
    !matches!(default, GgmlType::F32 | GgmlType::F16 | GgmlType::BF16)
}

/// The GGUF file of `a` in mix `q`.
pub(super) fn gguf(a: &Arch, q: Quant, output: bool) -> Result<Computed, String> {
    let ts = sized(a, q, output)?;
    let quantized = default_type(q).is_some_and(is_quantized);
    let mut data = 0u64;
    let mut info = 0u64;
    let mut embd_type = default_type(q).unwrap_or(GgmlType::F16);
    for (t, ty, bytes) in &ts {
        if t.name == "token_embd.weight" {
            embd_type = *ty;
        }
        data = data.saturating_add(*bytes);
        info = info.saturating_add(tensor_info_bytes(t.name_len(), t.dims));
    }
    let header = (GGUF_HEADER + info + metadata_bytes(a.vocab)).div_ceil(GGUF_ALIGN) * GGUF_ALIGN;
    let plain: Vec<Tensor> = ts.iter().map(|x| x.0).collect();
    Ok(Computed {
        bytes: data.saturating_add(header),
        embd_type,
        unquantized: unquantized(a, q, &plain, quantized),
        rule: "gguf-mix: llama.cpp's per-tensor types for the mix (llama_tensor_get_type in src/llama-quant.cpp), tensor shapes from the architecture, 32-byte alignment, tensor-info records and a tokenizer metadata allowance",
    })
}

/// The tensors llama.cpp's `--n-cpu-moe` / `--cpu-moe` keep in system RAM: those matching
/// `blk\.N\.ffn_(up|down|gate|gate_up)_(ch|)exps` (`LLM_FFN_EXPS_REGEX` and
/// `llm_ffn_exps_block_regex` in common/common.h, searched, not anchored at the end: the experts'
/// biases and scales go with their weights).
pub fn is_cpu_moe_tensor(name: &str) -> bool {
    ["ffn_up_", "ffn_down_", "ffn_gate_", "ffn_gate_up_"]
        .iter()
        .any(|p| {
            name.strip_prefix(p)
                .is_some_and(|r| r.starts_with("exps") || r.starts_with("chexps"))
        })
}

/// The bytes of each layer's routed-expert tensors ([`is_cpu_moe_tensor`]) in `a`'s GGUF file
/// in mix `q`, by layer (0 for a layer without experts), from the whole tensor list; Err when
/// the mix has no rule. The cross-check of [`layer_expert_bytes`].
pub(super) fn expert_layer_bytes(a: &Arch, q: Quant, output: bool) -> Result<Vec<u64>, String> {
    let ts = sized(a, q, output)?;
    let mut per = vec![0u64; crate::catalog::tensors::stored_layers(a) as usize];
    for (t, _, bytes) in ts {
        if let Some(l) = t.layer.filter(|_| is_cpu_moe_tensor(t.name)) {
            if let Some(x) = per.get_mut(l as usize) {
                *x = x.saturating_add(bytes);
            }
        }
    }
    Ok(per)
}

/// The bytes of layer `il`'s routed experts in `a`'s GGUF file in mix `q`, from that layer's
/// expert tensors alone (what the page's estimate carries; the mix gives an expert tensor the
/// same type whatever comes before it: MoE files pick ffn_down's type by the layer in its name,
/// `layer_info` in src/llama-quant.cpp). `None` when the mix has no rule for one layer
/// ([`counts_ffn_down`], or no rule at all).
pub(super) fn layer_expert_bytes(a: &Arch, q: Quant, il: u32) -> Option<u64> {
    let default = default_type(q).filter(|_| !counts_ffn_down(q))?;
    let m = Mix::for_experts(a, q, default);
    let quantized = is_quantized(default);
    let ts = crate::catalog::tensors::layer_routed_experts(a, il);
    Some(
        ts.iter()
            .map(|t| {
                // The kinds a routed expert takes ([`sized`]'s choice for them).
                let ty = match t.kind {
                    Kind::Mxfp4Experts => GgmlType::MXFP4,
                    Kind::Weight if quantized => expert_type(&m, t),
                    Kind::Weight => default,
                    _ => GgmlType::F32,
                };
                aligned(ty, t)
            })
            .fold(0, u64::saturating_add),
    )
}

/// The tensors a GGUF file of `a` in mix `q` (`quantized`: not a float format) keeps at (near)
/// original precision, with their type.
fn unquantized(a: &Arch, q: Quant, ts: &[Tensor], quantized: bool) -> Vec<String> {
    let mut u = vec!["norms (F32)".to_string()];
    if a.is_moe() {
        u.push("ffn_gate_inp router (F32)".into());
    }
    let keep16 = |cls: bool| {
        ts.iter()
            .any(|t| t.kind == Kind::Keep16 && t.name.starts_with("cls") == cls)
    };
    if keep16(false) && quantized {
        u.push("altup, laurel, per_layer_model_proj (BF16)".into());
    }
    if keep16(true) && quantized {
        u.push("the classifier's one-label output row (16-bit)".into());
    }
    if ts.iter().any(|t| t.kind == Kind::Mxfp4Experts) && q != Quant::MXFP4 {
        u.push("experts (MXFP4, as published)".into());
    }
    u
}
