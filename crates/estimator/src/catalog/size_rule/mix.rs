//! llama.cpp's per-tensor type choice for a GGUF mix (`llama_tensor_get_type` and
//! `llama_tensor_get_type_impl` in
//! <https://github.com/ggml-org/llama.cpp/blob/master/src/llama-quant.cpp>): the default type of
//! the ftype, the tensor's category by name, the type each category takes in each mix, and the
//! fallback when a row length is not a multiple of the block.

use crate::catalog::quant::{GgmlType, Quant};
use crate::catalog::tensors::{stored_layers, Kind, Tensor};
use crate::catalog::Arch;

/// llama.cpp's default tensor type of a GGUF ftype (`llama_ftype_get_default_type`), `None`
/// for a format that is not a GGUF mix with a known rule.
pub(super) fn default_type(q: Quant) -> Option<GgmlType> {
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
pub(super) enum Cat {
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

pub(super) fn category(name: &str) -> Cat {
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
pub(super) fn is_attn_v(c: Cat) -> bool {
    matches!(c, Cat::AttnV | Cat::AttnQkv | Cat::AttnKvB)
}

/// `use_more_bits` in llama_tensor_get_type_impl: the first and last eighth of the layers and
/// every third one between.
fn use_more_bits(i: u64, n: u64) -> bool {
    i < n / 8 || i >= 7 * n / 8 || (i.wrapping_sub(n / 8)) % 3 == 2
}

/// What the mix choices depend on besides the tensor.
pub(super) struct Mix {
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

impl Mix {
    /// The mix `q` (default type `default`) of `a` for its routed experts alone
    /// ([`expert_type`]: the fields the attention and output rules read are left unset).
    pub(super) fn for_experts(a: &Arch, q: Quant, default: GgmlType) -> Mix {
        Mix {
            ftype: q,
            default,
            tied: false,
            experts: u64::from(a.experts),
            gqa: 0,
            is_70b: false,
            n_attn_v: 0,
            n_layers: u64::from(stored_layers(a)),
            imatrix: imatrix(default),
        }
    }

    /// The mix `q` (default type `default`) of `a`, whose file stores `ts`.
    pub(super) fn new(a: &Arch, q: Quant, default: GgmlType, ts: &[Tensor]) -> Mix {
        Mix {
            ftype: q,
            default,
            tied: !ts.iter().any(|t| t.name == "output.weight"),
            experts: u64::from(a.experts),
            gqa: u64::from(a.heads / a.kv_heads.max(1)),
            is_70b: is_70b(a),
            n_attn_v: ts
                .iter()
                .filter(|t| t.kind == Kind::Weight && is_attn_v(category(t.name)))
                .count() as u64,
            n_layers: u64::from(stored_layers(a)),
            imatrix: imatrix(default),
        }
    }
}

/// The quantizer had an importance matrix: see [`Mix`]'s `imatrix`.
fn imatrix(default: GgmlType) -> bool {
    matches!(
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
    )
}

/// The ggml type of a quantizable weight `t` in the mix: llama_tensor_get_type_impl's choice
/// ([`mix_type`]), then the row-length fallback ([`fallback`]).
pub(super) fn weight_type(m: &Mix, t: &Tensor, i_v: &mut u64, i_down: &mut u64) -> GgmlType {
    fallback(mix_type(m, t, category(t.name), i_v, i_down), t.ne[0])
}

/// The mixes whose ffn_down type follows the quantizer's running count of ffn_down tensors
/// (the 1- and 2-bit i-quants, `low_bit_type`), not the layer in the tensor's name: a layer's
/// experts cannot be typed without the tensors before them.
pub fn counts_ffn_down(q: Quant) -> bool {
    use Quant as Q;
    matches!(
        q,
        Q::IQ2XXS | Q::IQ2XS | Q::IQ1S | Q::IQ2S | Q::IQ2M | Q::IQ1M
    )
}

/// The ggml type of a routed-expert weight `t` in the mix (not one of the mixes that
/// [`counts_ffn_down`]): [`weight_type`]'s choice for the categories an expert tensor falls in
/// (ffn_down by its layer, the others the default), without the attention and output rules.
pub(super) fn expert_type(m: &Mix, t: &Tensor) -> GgmlType {
    let ty = if m.ftype == Quant::MXFP4 {
        mxfp4_moe_type(t)
    } else if category(t.name) == Cat::FfnDown {
        ffn_down_type(m, t, &mut 0)
    } else {
        m.default
    };
    fallback(ty, t.ne[0])
}

/// The ggml type of one quantizable tensor in the mix, before the shape fallback
/// (llama_tensor_get_type_impl, in its order of cases). `i_v` and `i_down` are the quantizer's
/// running counters of attn_v-like and ffn_down tensors.
fn mix_type(m: &Mix, t: &Tensor, cat: Cat, i_v: &mut u64, i_down: &mut u64) -> GgmlType {
    use Quant as Q;
    if cat == Cat::Output || (m.tied && cat == Cat::TokenEmbd) {
        return output_type(m, t.ne[0]);
    }
    if m.ftype == Q::MXFP4 {
        return mxfp4_moe_type(t);
    }
    if cat == Cat::TokenEmbd {
        return token_embd_type(m);
    }
    if matches!(
        m.ftype,
        Q::IQ2XXS | Q::IQ2XS | Q::IQ1S | Q::IQ2S | Q::IQ2M | Q::IQ1M
    ) {
        return low_bit_type(m, cat, i_v, i_down);
    }
    match cat {
        c if is_attn_v(c) => attn_v_type(m, i_v),
        Cat::AttnK => attn_k_type(m),
        Cat::AttnQ if m.ftype == Q::IQ3XXS => GgmlType::IQ2S,
        Cat::FfnDown => ffn_down_type(m, t, i_down),
        Cat::AttnOutput => attn_output_type(m),
        _ => m.default,
    }
}

/// The output matrix, and the token embedding of a file without one: Q8_0 for MXFP4 or a row
/// length the default type's block does not divide, Q5_K in the 1-, 2- and 3-bit i-quant mixes,
/// else Q6_K (Q8_0 stays Q8_0).
fn output_type(m: &Mix, ne0: u64) -> GgmlType {
    use GgmlType as T;
    use Quant as Q;
    let ty = m.default;
    let iq_output = matches!(
        m.ftype,
        Q::IQ2XXS | Q::IQ2XS | Q::IQ3XXS | Q::IQ1S | Q::IQ2S | Q::IQ2M | Q::IQ1M
    );
    if m.ftype == Q::MXFP4 || !ne0.is_multiple_of(ty.block().1) {
        T::Q8_0
    } else if iq_output {
        T::Q5K
    } else if ty != T::Q8_0 {
        T::Q6K
    } else {
        ty
    }
}

/// MXFP4 (llama.cpp's MXFP4_MOE): the expert tensors MXFP4, every other one Q8_0.
fn mxfp4_moe_type(t: &Tensor) -> GgmlType {
    if t.is_experts() {
        GgmlType::MXFP4
    } else {
        GgmlType::Q8_0
    }
}

/// The token embedding of a file with an output matrix: wider than the default in the 1-, 2-
/// and 3-bit i-quant mixes and the ternary ones.
fn token_embd_type(m: &Mix) -> GgmlType {
    use GgmlType as T;
    use Quant as Q;
    match m.ftype {
        Q::IQ2XXS | Q::IQ2XS | Q::IQ1S | Q::IQ1M => T::Q2K,
        Q::IQ2S | Q::IQ2M | Q::IQ3XXS => T::IQ3S,
        Q::TQ1_0 | Q::TQ2_0 => T::Q4K,
        _ => m.default,
    }
}

/// The 1- and 2-bit i-quant mixes (IQ2_XXS, IQ2_XS, IQ2_S, IQ2_M, IQ1_S, IQ1_M), whose case
/// comes before the per-category ones: attn_v-like and (with 8 experts) attn_k tensors wider,
/// the first eighth of ffn_down wider, attn_output by mix.
fn low_bit_type(m: &Mix, cat: Cat, i_v: &mut u64, i_down: &mut u64) -> GgmlType {
    use GgmlType as T;
    use Quant as Q;
    let f = m.ftype;
    let mut ty = m.default;
    let n8 = m.experts == 8;
    let iq2 = matches!(f, Q::IQ2S | Q::IQ2M);
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
    ty
}

/// attn_v and the fused attn_qkv (and MLA's attn_kv_b): wider with grouped KV heads, in the
/// layers [`use_more_bits`] picks for Q4_K_M and Q5_K_M, in the first ones for Q3_K_M and
/// Q4_K_S; Q5_K at least for a 70B; Q8_0 with 8 experts.
fn attn_v_type(m: &Mix, i_v: &mut u64) -> GgmlType {
    use GgmlType as T;
    use Quant as Q;
    let gqa4 = m.gqa >= 4;
    let mut ty = match m.ftype {
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
        _ => m.default,
    };
    if m.is_70b && matches!(ty, T::Q3K | T::Q4K) {
        ty = T::Q5K;
    }
    if m.experts == 8 {
        ty = T::Q8_0;
    }
    *i_v += 1;
    ty
}

/// attn_k: Q8_0 with 8 experts, IQ2_S in IQ3_XXS.
fn attn_k_type(m: &Mix) -> GgmlType {
    if m.experts == 8 {
        GgmlType::Q8_0
    } else if m.ftype == Quant::IQ3XXS {
        GgmlType::IQ2S
    } else {
        m.default
    }
}

/// ffn_down (dense or experts): wider in the first layers or those [`use_more_bits`] picks,
/// by mix.
fn ffn_down_type(m: &Mix, t: &Tensor, i_down: &mut u64) -> GgmlType {
    use GgmlType as T;
    use Quant as Q;
    // MoE files: the layer from the name (`layer_info`); dense ones: the running count.
    let (i, n) = if m.experts > 1 {
        (u64::from(t.layer.unwrap_or(0)), m.n_layers)
    } else {
        (*i_down, m.n_layers)
    };
    let n8 = m.experts == 8;
    let ty = match m.ftype {
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
        _ => m.default,
    };
    *i_down += 1;
    ty
}

/// attn_output: Q5_K with 8 experts in the mixes up to 4 bits; else wider in Q2_K, IQ3_XXS,
/// Q3_K_M, IQ3_M and Q3_K_L.
fn attn_output_type(m: &Mix) -> GgmlType {
    use GgmlType as T;
    use Quant as Q;
    let f = m.ftype;
    if m.experts == 8 {
        return if matches!(
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
            T::Q5K
        } else {
            m.default
        };
    }
    match f {
        Q::Q2K => T::Q3K,
        Q::IQ3XXS => T::IQ3S,
        Q::Q3KM | Q::IQ3M => T::Q4K,
        Q::Q3KL => T::Q5K,
        _ => m.default,
    }
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
