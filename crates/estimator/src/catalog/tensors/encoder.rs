//! An encoder's tensors ([`crate::catalog::Encoder`]), as llama.cpp's loaders ask for them
//! (`load_arch_tensors` in src/models/bert.cpp and src/models/nomic-bert.cpp at
//! ggml-org/llama.cpp@0c1e57098bba): no output norm or output matrix (the vector is pooled from
//! the last hidden states); the converter drops BERT's pooler. `position_embd` and `token_types`
//! are F32 in every file: convert_hf_to_gguf.py (conversion/base.py) writes `POS_EMBD` and
//! `TOKEN_TYPES` as F32 and llama-quantize leaves them (src/llama-quant.cpp,
//! `tensor_allows_quantization`).

use super::{Kind, List};
use crate::catalog::{Arch, Encoder};

/// The tensors of encoder `a` shaped as `e` says.
pub(super) fn tensors(a: &Arch, e: Encoder) -> Vec<super::Tensor> {
    let h = a.hidden;
    let mut l = List {
        t: Vec::new(),
        layer: None,
    };
    l.w("token_embd.weight", h, a.vocab);
    l.push(
        "token_types.weight",
        [h, e.token_types, 1],
        2,
        Kind::F32Matrix,
    );
    // One row per position (none for a rotary encoder: `push` skips an empty tensor):
    // XLM-RoBERTa's checkpoint has `pad_token_id + 1` more, which the converter cuts
    // (conversion/bert.py, `_position_offset`), so its max_ctx rows remain.
    l.push(
        "position_embd.weight",
        [h, e.position_rows(a), 1],
        2,
        Kind::F32Matrix,
    );
    l.v("token_embd_norm.weight", h);
    l.v("token_embd_norm.bias", h);
    for il in 0..a.layers.min(1 << 16) {
        l.layer = Some(il);
        layer(&mut l, a, e);
    }
    l.layer = None;
    if let Some(n) = a.rank_labels {
        classifier(&mut l, h, u64::from(n), e.classifier_dense);
    }
    l.t
}

/// A reranker's sequence classifier (XLM-RoBERTa's `classifier.dense` and `out_proj`, which the
/// converter names `cls` and `cls.output`; BERT's `classifier` alone, as `cls.output`:
/// conversion/bert.py; src/models/bert.cpp loads them for rank pooling). One label's row is
/// one-dimensional to ggml, so llama-quantize keeps it in the source's 16-bit type
/// (`tensor_allows_quantization`: `ggml_n_dims < 2`).
fn classifier(l: &mut List, h: u64, labels: u64, dense: bool) {
    if dense {
        l.w("cls.weight", h, h);
        l.v("cls.bias", h);
    }
    if labels == 1 {
        l.push("cls.output.weight", [h, 1, 1], 2, Kind::Keep16);
    } else {
        l.w("cls.output.weight", h, labels);
    }
    l.v("cls.output.bias", labels);
}

/// One encoder layer: attention (post-norm), the FFN (post-norm).
fn layer(l: &mut List, a: &Arch, e: Encoder) {
    let (h, ff) = (a.hidden, a.intermediate);
    if e.fused_qkv {
        l.w("attn_qkv.weight", h, h.saturating_mul(3));
    } else {
        for (w, b) in [
            ("attn_q.weight", "attn_q.bias"),
            ("attn_k.weight", "attn_k.bias"),
            ("attn_v.weight", "attn_v.bias"),
        ] {
            l.w(w, h, h);
            if e.biases {
                l.v(b, h);
            }
        }
    }
    l.w("attn_output.weight", h, h);
    if e.biases {
        l.v("attn_output.bias", h);
    }
    l.v("attn_output_norm.weight", h);
    l.v("attn_output_norm.bias", h);
    l.w("ffn_up.weight", h, ff);
    if e.gated {
        l.w("ffn_gate.weight", h, ff);
    }
    if e.biases {
        l.v("ffn_up.bias", ff);
    }
    l.w("ffn_down.weight", ff, h);
    if e.biases {
        l.v("ffn_down.bias", h);
    }
    l.v("layer_output_norm.weight", h);
    l.v("layer_output_norm.bias", h);
}
