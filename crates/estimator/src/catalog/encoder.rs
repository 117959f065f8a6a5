//! Encoder-only models (BERT, XLM-RoBERTa, nomic-bert): attention over the whole input at once,
//! no KV cache (llama.cpp's `create_memory` gives their architectures none, src/llama-model.cpp),
//! one vector per input. What their tensor list and compute buffer need beyond [`Arch`], keyed by
//! the config's `model_type` or the GGUF's architecture, each from the model's llama.cpp loader
//! (src/models/bert.cpp, src/models/nomic-bert.cpp at ggml-org/llama.cpp@0c1e57098bba).

use super::Arch;

/// How an encoder's layers are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoder {
    /// A gated FFN (SwiGLU: `ffn_gate` beside `ffn_up`; nomic-bert) instead of BERT's GELU.
    pub gated: bool,
    /// Learned absolute positions (`position_embd`, one row per position: BERT, XLM-RoBERTa);
    /// nomic-bert rotates q and k instead (RoPE).
    pub positions: bool,
    /// Biases on the attention and FFN projections (BERT, XLM-RoBERTa; nomic-bert has none).
    pub biases: bool,
    /// q, k and v in one fused `attn_qkv` (nomic-bert's converter writes it so).
    pub fused_qkv: bool,
    /// Rows of `token_types` (`type_vocab_size`: 2 for BERT and nomic-bert, 1 for XLM-RoBERTa).
    pub token_types: u64,
    /// A sequence classifier starts with a hidden × hidden dense layer (RoBERTa's
    /// `classifier.dense`, which the converter names `cls`); BERT's classifier is the output row
    /// alone, since the converter drops BERT's pooler (conversion/bert.py).
    pub classifier_dense: bool,
}

impl Encoder {
    /// Rows of the learned position table (`position_embd`): one per position of the model
    /// ([`Arch::max_ctx`], XLM-RoBERTa's already cut by the converter's offset), none for an
    /// encoder that rotates q and k instead.
    pub fn position_rows(self, a: &Arch) -> u64 {
        if self.positions {
            u64::from(a.max_ctx)
        } else {
            0
        }
    }
}

/// The encoder a `model_type` (a config's, or a GGUF's architecture) names, in every build.
/// `bert` is also the GGUF architecture of every XLM-RoBERTa model (convert_hf_to_gguf.py's
/// `XLMRobertaModel`, `model_arch = BERT`); the GGUF does not say which, so it reads as BERT (two
/// token-type rows: one row of hidden more).
fn kind(model_type: &str) -> Option<Encoder> {
    let bert = Encoder {
        gated: false,
        positions: true,
        biases: true,
        fused_qkv: false,
        token_types: 2,
        classifier_dense: false,
    };
    Some(match model_type {
        "bert" => bert,
        "xlm-roberta" | "roberta" => Encoder {
            token_types: 1,
            classifier_dense: true,
            ..bert
        },
        "nomic_bert" | "nomic-bert" => Encoder {
            gated: true,
            positions: false,
            biases: false,
            fused_qkv: true,
            token_types: 2,
            classifier_dense: false,
        },
        _ => return None,
    })
}

/// Is `model_type` one of the encoders [`encoder`] models? In every build: the page's first
/// load, built without the `extras` feature, estimates no encoder and hands a link to one over
/// to the whole calculator.
pub fn is_encoder_type(model_type: &str) -> bool {
    kind(model_type).is_some()
}

/// The encoder `a` is, or `None` for a decoder (and in a build without the `extras` feature,
/// the page's first load: see [`is_encoder_type`]).
pub fn encoder(a: &Arch) -> Option<Encoder> {
    kind(&a.model_type).filter(|_| cfg!(feature = "extras"))
}

/// Is `a` an encoder-only model?
pub fn is_encoder(a: &Arch) -> bool {
    encoder(a).is_some()
}
