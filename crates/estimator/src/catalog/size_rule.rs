//! The size rule: the bytes of a model file computed from the architecture ([`Arch`]) and the
//! format ([`Quant`]), for a format no public listing gives a size of. Every tensor the file
//! stores ([`tensors`]) is sized at the storage type the format gives it:
//!
//! - **GGUF** (rule `gguf-mix`): the ggml type llama.cpp's quantizer picks for each tensor in
//!   the named mix (`llama_tensor_get_type` and `llama_tensor_get_type_impl` in
//!   <https://github.com/ggml-org/llama.cpp/blob/master/src/llama-quant.cpp>: the default type
//!   of the ftype, `llama_ftype_get_default_type`; the output matrix, and the token embedding
//!   of a file without one; attn_v, ffn_down and attn_output by layer; the fallback when a row
//!   length is not a multiple of the block, `tensor_type_fallback`), at ggml's block sizes
//!   ([`GgmlType::block`]), each tensor's data aligned to 32 bytes, plus the header: one
//!   tensor-info record per tensor and the key/value metadata (most of it the tokenizer).
//! - **safetensors** (rules `st-16bit`, `st-fp8`, `st-nvfp4`, `st-mxfp4`, `st-awq`, `st-gptq`,
//!   `st-bnb`, `st-int8`): the checkpoint's tensors at 2 (or 4) bytes, the linear layers
//!   quantized with their scales (and zero points) per the format's published layout; the
//!   embeddings, the output head, norms and the MoE router left at 16 bits. The JSON header
//!   (tens of KB) is not counted, like the publishers' own totals (`total_size` of
//!   `model.safetensors.index.json`).
//! - **MLX** (rule `mlx`): `mlx_lm.convert` quantizes every Linear and Embedding weight to
//!   `bits` with a 16-bit scale and bias per group of 64
//!   (<https://github.com/ml-explore/mlx-lm/blob/main/mlx_lm/utils.py>, `quantize_model`; group
//!   size 64 by default); norms stay 16-bit.
//!
//! A format without a rule (Unsloth's dynamic `UD-` mixes, whose per-tensor recipe is
//! unpublished; MXFP4 of a dense model; a format in another container) is refused with the
//! reason. `data/gen/compute_sizes.py` computes the catalog's `computed` rows by the same rules
//! and stays as an independent cross-check (`tests/size_rule.rs` compares the two).

use super::quant::{Container, GgmlType, Quant};
use super::tensors::{gemma3_vision_params, has_gemma3_vision, stored_layers, tensors, Kind};
use super::Arch;

/// A file size the rule computed, with what the catalog's [`super::Format`] records of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Computed {
    /// File size (all shards), bytes.
    pub bytes: u64,
    /// Storage type of the token embedding.
    pub embd_type: GgmlType,
    /// Tensors left at (near) original precision, with their type.
    pub unquantized: Vec<String>,
    /// The rule (`gguf-mix`, `st-fp8`, …) and what it does, for the format's `source`.
    pub rule: &'static str,
}

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
        v => v.saturating_mul(50),
    }
}

/// llama.cpp's default tensor type of a GGUF ftype (`llama_ftype_get_default_type`), `None`
/// for a format that is not a GGUF mix with a known rule.
fn default_type(q: Quant) -> Option<GgmlType> {
    use GgmlType as T;
    Some(match q {
        Quant::F32 => T::F32,
        Quant::F16 => T::F16,
        Quant::BF16 => T::BF16,
        Quant::Q8_0 => T::Q8_0,
        Quant::Q6K => T::Q6K,
        Quant::Q5KM | Quant::Q5KS => T::Q5K,
        Quant::Q4KM | Quant::Q4KS => T::Q4K,
        Quant::Q4_1 => T::Q4_1,
        Quant::Q4_0 => T::Q4_0,
        Quant::IQ4NL => T::IQ4NL,
        Quant::IQ4XS => T::IQ4XS,
        Quant::MXFP4 => T::MXFP4,
        Quant::Q3KL | Quant::Q3KM | Quant::Q3KS => T::Q3K,
        Quant::IQ3M | Quant::IQ3S => T::IQ3S,
        Quant::IQ3XXS => T::IQ3XXS,
        Quant::IQ2M => T::IQ2S,
        Quant::IQ2S | Quant::IQ2XS => T::IQ2XS,
        Quant::IQ2XXS => T::IQ2XXS,
        Quant::Q2K => T::Q2K,
        Quant::TQ2_0 => T::TQ2_0,
        Quant::TQ1_0 => T::TQ1_0,
        Quant::IQ1M => T::IQ1M,
        Quant::IQ1S => T::IQ1S,
        _ => return None,
    })
}

/// llama.cpp's tensor categories (`tensor_get_category` in src/llama-quant.cpp): by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cat {
    TokenEmbd,
    Output,
    AttnQ,
    AttnK,
    AttnV,
    AttnQkv,
    AttnKvB,
    AttnOutput,
    FfnDown,
    Other,
}

fn category(name: &str) -> Cat {
    match name {
        "output.weight" => Cat::Output,
        "token_embd.weight" | "per_layer_token_embd.weight" => Cat::TokenEmbd,
        n if n.contains("attn_qkv.weight") => Cat::AttnQkv,
        n if n.contains("attn_kv_b.weight") => Cat::AttnKvB,
        n if n.contains("attn_v.weight") => Cat::AttnV,
        n if n.contains("attn_k.weight") => Cat::AttnK,
        n if n.contains("attn_q.weight") => Cat::AttnQ,
        n if n.contains("attn_output.weight") => Cat::AttnOutput,
        // ffn_up and ffn_gate have no rule for the mixes here (only IQ3_XS, not a catalog format).
        n if n.contains("ffn_down") => Cat::FfnDown,
        _ => Cat::Other,
    }
}

/// attn_v-like tensors, the ones quantized with more bits (`category_is_attn_v`).
fn is_attn_v(c: Cat) -> bool {
    matches!(c, Cat::AttnV | Cat::AttnQkv | Cat::AttnKvB)
}

/// `use_more_bits` in llama_tensor_get_type_impl: the first and last eighth of the layers and
/// every third one between.
fn use_more_bits(i: u64, n: u64) -> bool {
    i < n / 8 || i >= 7 * n / 8 || (i.wrapping_sub(n / 8)) % 3 == 2
}

/// What the mix choices depend on besides the tensor.
struct Mix {
    ftype: Quant,
    default: GgmlType,
    /// No `output.weight` in the file: the token embedding takes the output's type.
    tied: bool,
    /// `hparams.n_expert`.
    experts: u64,
    /// `n_head / n_head_kv`.
    gqa: u64,
    /// llama.cpp's `LLM_TYPE_70B` (src/llama-model.cpp `load_hparams`: LLM_ARCH_LLAMA with 80
    /// layers and grouped KV heads, LLM_ARCH_QWEN2 with 80 layers).
    is_70b: bool,
    /// `n_attention_wv`: the attn_v-like tensors of the file.
    n_attn_v: u64,
    /// `n_layer_all`: the layers the file stores (`n_ffn_down`).
    n_layers: u64,
    /// The quantizer had an importance matrix: assumed for the i-quant mixes, some of which
    /// llama-quantize refuses to make without one (`tensor_requires_imatrix`: IQ3_XXS, IQ2_XXS,
    /// IQ2_XS, IQ2_S, IQ1_M, IQ1_S) and all of which the publishers make with one ("All quants
    /// made using imatrix option", <https://huggingface.co/bartowski/openai_gpt-oss-20b-GGUF>);
    /// not for the k-quant and legacy mixes, whose plain rule is the static file's.
    imatrix: bool,
}

/// The ggml type of one quantizable tensor in the mix, before the shape fallback
/// (llama_tensor_get_type_impl, in its order of cases). `i_v` and `i_down` are the quantizer's
/// running counters of attn_v-like and ffn_down tensors.
fn mix_type(
    m: &Mix,
    t: &super::tensors::Tensor,
    cat: Cat,
    i_v: &mut u64,
    i_down: &mut u64,
) -> GgmlType {
    use GgmlType as T;
    use Quant as Q;
    let f = m.ftype;
    let mut ty = m.default;
    let iq_output = matches!(
        f,
        Q::IQ2XXS | Q::IQ2XS | Q::IQ3XXS | Q::IQ1S | Q::IQ2S | Q::IQ2M | Q::IQ1M
    );
    if cat == Cat::Output || (m.tied && cat == Cat::TokenEmbd) {
        return if f == Q::MXFP4 || !t.ne[0].is_multiple_of(ty.block().1) {
            T::Q8_0
        } else if iq_output {
            T::Q5K
        } else if ty != T::Q8_0 {
            T::Q6K
        } else {
            ty
        };
    }
    if f == Q::MXFP4 {
        return if t.is_experts() { T::MXFP4 } else { T::Q8_0 };
    }
    if cat == Cat::TokenEmbd {
        return match f {
            Q::IQ2XXS | Q::IQ2XS | Q::IQ1S | Q::IQ1M => T::Q2K,
            Q::IQ2S | Q::IQ2M | Q::IQ3XXS => T::IQ3S,
            Q::TQ1_0 | Q::TQ2_0 => T::Q4K,
            _ => ty,
        };
    }
    let n8 = m.experts == 8;
    let iq2 = matches!(f, Q::IQ2S | Q::IQ2M);
    if matches!(
        f,
        Q::IQ2XXS | Q::IQ2XS | Q::IQ1S | Q::IQ2S | Q::IQ2M | Q::IQ1M
    ) {
        if is_attn_v(cat) {
            ty = if m.gqa >= 4 || m.experts >= 4 {
                T::Q4K
            } else if iq2 {
                T::IQ3S
            } else {
                T::Q2K
            };
            *i_v += 1;
        } else if n8 && cat == Cat::AttnK {
            ty = T::Q4K;
        } else if cat == Cat::FfnDown {
            if *i_down < m.n_layers / 8 {
                ty = if iq2 { T::IQ3S } else { T::Q2K };
            }
            *i_down += 1;
        } else if cat == Cat::AttnOutput {
            if n8 {
                ty = T::Q5K;
            } else if matches!(f, Q::IQ1S | Q::IQ1M) {
                ty = T::IQ2XXS;
            } else if iq2 {
                ty = T::IQ3S;
            }
        }
        return ty;
    }
    match cat {
        c if is_attn_v(c) => {
            let gqa4 = m.gqa >= 4;
            ty = match f {
                Q::Q2K => {
                    if gqa4 {
                        T::Q4K
                    } else {
                        T::Q3K
                    }
                }
                Q::IQ3XXS => {
                    if gqa4 {
                        T::Q4K
                    } else if m.imatrix {
                        T::IQ3XXS
                    } else {
                        T::IQ3S
                    }
                }
                Q::IQ3S if gqa4 => T::Q4K,
                Q::IQ3M => T::Q4K,
                Q::Q3KM => {
                    if *i_v < 2 {
                        T::Q5K
                    } else {
                        T::Q4K
                    }
                }
                Q::Q3KL => T::Q5K,
                Q::IQ4NL | Q::IQ4XS if gqa4 => T::Q5K,
                Q::Q4KM | Q::Q5KM if use_more_bits(*i_v, m.n_attn_v) => T::Q6K,
                Q::Q4KS if *i_v < 4 => T::Q5K,
                _ => ty,
            };
            if m.is_70b && matches!(ty, T::Q3K | T::Q4K) {
                ty = T::Q5K;
            }
            if n8 {
                ty = T::Q8_0;
            }
            *i_v += 1;
        }
        Cat::AttnK => {
            if n8 {
                ty = T::Q8_0;
            } else if f == Q::IQ3XXS {
                ty = T::IQ2S;
            }
        }
        Cat::AttnQ if f == Q::IQ3XXS => ty = T::IQ2S,
        Cat::FfnDown => {
            // MoE files: the layer from the name (`layer_info`); dense ones: the running count.
            let (i, n) = if m.experts > 1 {
                (u64::from(t.layer.unwrap_or(0)), m.n_layers)
            } else {
                (*i_down, m.n_layers)
            };
            ty = match f {
                Q::Q2K => T::Q3K,
                Q::IQ3XXS if !m.imatrix => {
                    if i < n / 8 {
                        T::Q4K
                    } else {
                        T::Q3K
                    }
                }
                Q::Q3KM => {
                    if i < n / 16 {
                        T::Q5K
                    } else {
                        T::Q4K
                    }
                }
                Q::IQ3M if i < n / 8 || (n8 && use_more_bits(i, n)) => T::Q4K,
                Q::Q3KL => T::Q5K,
                Q::Q4KM if use_more_bits(i, n) => T::Q6K,
                Q::IQ4NL | Q::IQ4XS if i < n / 8 && !m.imatrix => T::Q5K,
                Q::Q5KM if use_more_bits(i, n) => T::Q6K,
                Q::Q4KS if i < n / 8 => T::Q5K,
                _ => ty,
            };
            *i_down += 1;
        }
        Cat::AttnOutput => {
            if n8 {
                if matches!(
                    f,
                    Q::Q2K
                        | Q::IQ3XXS
                        | Q::Q3KS
                        | Q::Q3KM
                        | Q::IQ4NL
                        | Q::Q4KS
                        | Q::Q4KM
                        | Q::IQ3S
                        | Q::IQ3M
                        | Q::IQ4XS
                ) {
                    ty = T::Q5K;
                }
            } else {
                ty = match f {
                    Q::Q2K => T::Q3K,
                    Q::IQ3XXS => T::IQ3S,
                    Q::Q3KM | Q::IQ3M => T::Q4K,
                    Q::Q3KL => T::Q5K,
                    _ => ty,
                };
            }
        }
        _ => {}
    }
    ty
}

/// `tensor_type_fallback`: a row length that is not a multiple of the type's block takes a
/// type with blocks of 32, or F16 when even that does not divide it.
fn fallback(ty: GgmlType, ne0: u64) -> GgmlType {
    use GgmlType as T;
    if ne0.is_multiple_of(ty.block().1) {
        return ty;
    }
    let next = match ty {
        T::IQ1S | T::IQ1M | T::IQ2XXS | T::IQ2XS | T::IQ2S | T::IQ3XXS | T::IQ3S | T::IQ4XS => {
            T::IQ4NL
        }
        T::Q2K | T::Q3K | T::TQ1_0 | T::TQ2_0 => T::Q4_0,
        T::Q4K => T::Q5_0,
        T::Q5K => T::Q5_1,
        T::Q6K => T::Q8_0,
        _ => T::F16,
    };
    if ne0.is_multiple_of(next.block().1) {
        next
    } else {
        T::F16
    }
}

/// llama.cpp's `LLM_TYPE_70B`, the one model type its quantizer reads.
fn is_70b(a: &Arch) -> bool {
    a.layers == 80
        && match a.model_type.as_str() {
            "llama" | "mistral" => a.heads != a.kv_heads,
            "qwen2" => true,
            _ => false,
        }
}

/// The GGUF file of `a` in mix `q`.
fn gguf(a: &Arch, q: Quant, output: bool) -> Result<Computed, String> {
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
    let tied = !ts.iter().any(|t| t.name == "output.weight");
    let m = Mix {
        ftype: q,
        default,
        tied,
        experts: u64::from(a.experts),
        gqa: u64::from(a.heads / a.kv_heads.max(1)),
        is_70b: is_70b(a),
        n_attn_v: ts
            .iter()
            .filter(|t| t.kind == Kind::Weight && is_attn_v(category(t.name)))
            .count() as u64,
        n_layers: u64::from(stored_layers(a)),
        imatrix: matches!(
            default,
            GgmlType::IQ4NL
                | GgmlType::IQ4XS
                | GgmlType::IQ3S
                | GgmlType::IQ3XXS
                | GgmlType::IQ2XXS
                | GgmlType::IQ2XS
                | GgmlType::IQ2S
                | GgmlType::IQ1M
                | GgmlType::IQ1S
        ),
    };
    let quantized = !matches!(default, GgmlType::F32 | GgmlType::F16 | GgmlType::BF16);
    let sixteen = if q == Quant::F32 {
        GgmlType::F32
    } else {
        GgmlType::BF16
    };
    let (mut i_v, mut i_down) = (0u64, 0u64);
    let mut data = 0u64;
    let mut info = 0u64;
    let mut embd_type = default;
    for t in &ts {
        let ty = match t.kind {
            Kind::Vector | Kind::Router | Kind::F32Matrix => GgmlType::F32,
            Kind::Keep16 => sixteen,
            Kind::Mxfp4Experts => GgmlType::MXFP4,
            Kind::Weight if !quantized => default,
            Kind::Weight => fallback(
                mix_type(&m, t, category(t.name), &mut i_v, &mut i_down),
                t.ne[0],
            ),
        };
        if t.name == "token_embd.weight" {
            embd_type = ty;
        }
        let bytes = ty.row_bytes(t.ne[0]).saturating_mul(t.rows());
        data = data.saturating_add(bytes.div_ceil(GGUF_ALIGN).saturating_mul(GGUF_ALIGN));
        info = info.saturating_add(tensor_info_bytes(t.name_len(), t.dims));
    }
    let header = (GGUF_HEADER + info + metadata_bytes(a.vocab)).div_ceil(GGUF_ALIGN) * GGUF_ALIGN;
    let mut unquantized = vec!["norms (F32)".to_string()];
    if a.is_moe() {
        unquantized.push("ffn_gate_inp router (F32)".into());
    }
    if ts.iter().any(|t| t.kind == Kind::Keep16) && quantized {
        unquantized.push("altup, laurel, per_layer_model_proj (BF16)".into());
    }
    if ts.iter().any(|t| t.kind == Kind::Mxfp4Experts) && q != Quant::MXFP4 {
        unquantized.push("experts (MXFP4, as published)".into());
    }
    Ok(Computed {
        bytes: data.saturating_add(header),
        embd_type,
        unquantized,
        rule: "gguf-mix: llama.cpp's per-tensor types for the mix (llama_tensor_get_type in src/llama-quant.cpp), tensor shapes from the architecture, 32-byte alignment, tensor-info records and a tokenizer metadata allowance",
    })
}

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
/// (<https://huggingface.co/zai-org/GLM-4.5-FP8>).
fn block_fp8(a: &Arch) -> bool {
    a.model_type.starts_with("qwen3")
        || matches!(
            a.model_type.as_str(),
            "deepseek_v3" | "kimi_k2" | "minimax_m2" | "glm4_moe"
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

/// The safetensors checkpoint (or MLX folder) of `a` in format `q`.
fn checkpoint(a: &Arch, q: Quant, output: bool) -> Result<Computed, String> {
    let Some((s, rule)) = scheme(a, q) else {
        return Err(no_rule(q));
    };
    if q == Quant::MXFP4 && !a.is_moe() {
        return Err("MXFP4 checkpoints (gpt-oss's layout) quantize expert tensors only; this model has none".into());
    }
    let rest = if q == Quant::F32 { 4 } else { 2 };
    let mlx = matches!(s, Scheme::Mlx(_));
    let mut total = 0u64;
    for t in tensors(a, output) {
        let embedding = matches!(
            t.name,
            "token_embd.weight" | "output.weight" | "per_layer_token_embd.weight"
        ) || t.name.starts_with("nextn.");
        let linear = match t.kind {
            Kind::Weight => !embedding || mlx,
            Kind::Mxfp4Experts => true,
            _ => false,
        };
        let applies = linear && (q != Quant::MXFP4 || t.is_experts());
        let b = if applies {
            scheme_bytes(s, t.ne[0], t.ne[1], t.ne[2])
        } else {
            t.elements().saturating_mul(rest)
        };
        total = total.saturating_add(b);
    }
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

/// Why `q` has no size rule.
fn no_rule(q: Quant) -> String {
    match q {
        Quant::UDQ8KXL | Quant::UDQ4KXL | Quant::UDQ3KXL | Quant::UDQ2KXL => format!(
            "{q} is an Unsloth dynamic mix whose per-tensor recipe is unpublished, so its size has no rule"
        ),
        _ => format!("{q} has no size rule in this container"),
    }
}

/// The bytes of `a`'s file in format `q` and container `c`. `output`: the file stores an output
/// matrix (the model is untied, or its files store one although the config ties it). Err says
/// why there is no rule (an Unsloth dynamic mix, MXFP4 of a dense model, a format of another
/// container, dimensions beyond any model).
pub fn computed(a: &Arch, q: Quant, c: Container, output: bool) -> Result<Computed, String> {
    if let Some(why) = a.absurd() {
        return Err(why);
    }
    if q.container().is_some_and(|qc| qc != c) {
        return Err(format!(
            "{q} is a {} format, not a {} one",
            q.container().map_or("", Container::label),
            c.label()
        ));
    }
    match c {
        Container::Gguf => gguf(a, q, output),
        Container::Mlx if q.container() != Some(Container::Mlx) => {
            Err(format!("{q} is not an MLX format"))
        }
        Container::Safetensors | Container::Mlx => checkpoint(a, q, output),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_more_bits_follows_llama_cpp() {
        // n = 32: layers 0–3 and 28–31, then every third from 4 (6, 9, …).
        let more: Vec<u64> = (0..32).filter(|&i| use_more_bits(i, 32)).collect();
        assert_eq!(
            more,
            [0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]
        );
    }

    #[test]
    fn a_row_that_the_block_does_not_divide_falls_back() {
        // gpt-oss rows of 2880 (= 11.25 × 256): Q4_K → Q5_0, Q6_K → Q8_0.
        assert_eq!(fallback(GgmlType::Q4K, 2880), GgmlType::Q5_0);
        assert_eq!(fallback(GgmlType::Q6K, 2880), GgmlType::Q8_0);
        assert_eq!(fallback(GgmlType::IQ2XS, 2880), GgmlType::IQ4NL);
        assert_eq!(fallback(GgmlType::Q4K, 4096), GgmlType::Q4K);
        assert_eq!(fallback(GgmlType::Q4_0, 100), GgmlType::F16);
    }
}
