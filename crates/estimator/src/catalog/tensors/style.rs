//! How an architecture's tensor list differs by the config's `model_type` ([`Style`]): biases,
//! norms, fused projections and the MoE extras, each from the model's llama.cpp loader
//! (<https://github.com/ggml-org/llama.cpp/tree/master/src/models>).

use crate::catalog::Arch;

/// Per-architecture facts the tensor list needs beyond [`Arch`], keyed by the config's
/// `model_type` (each from the model's llama.cpp loader).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Style {
    /// q/k/v projection biases (Qwen2 `qkv_bias`; GLM-4.5 `attention_bias`; gpt-oss also on the
    /// output projection).
    pub(super) qkv_bias: bool,
    /// The attention output projection has a bias (gpt-oss).
    pub(super) o_bias: bool,
    /// q/k RMS norms of one head's width (Qwen3, Gemma 3/3n/4, Qwen3-Next, Qwen3.5).
    pub(super) qk_norm_head: bool,
    /// q/k RMS norms over the whole projection (OLMo 2, MiniMax-M2).
    pub(super) qk_norm_full: bool,
    /// Fused `attn_qkv` and `ffn_up` (gate and up) projections (Phi-3/Phi-4).
    pub(super) fused: bool,
    /// Norm vectors of `hidden` per layer (2: pre-attention and pre-FFN; Gemma 2/3/4: 4).
    pub(super) norms: u64,
    /// An expert-score bias per MoE layer (`exp_probs_b`: DeepSeek-V3, Kimi K2, GLM-4.5, MiniMax-M2).
    pub(super) expert_bias: bool,
    /// A sigmoid gate on the shared expert (`ffn_gate_inp_shexp`: Qwen3-Next, Qwen3.5).
    pub(super) shared_gate: bool,
    /// The attention q projection also yields an output gate (twice the heads: Qwen3-Next, Qwen3.5).
    pub(super) gated_q: bool,
    /// Multi-token-prediction blocks the GGUF keeps after the main stack (GLM-4.5's `nextn`).
    pub(super) mtp_layers: u32,
    /// The `nextn` block stores an embedding and an output head of its own (GLM-4.5; GLM-5's
    /// shares the model's, as the Hub's parameter count of its checkpoint shows:
    /// tests/size_rule.rs).
    pub(super) mtp_head: bool,
    /// Gated DeltaNet layers named as llama.cpp's qwen35 loader names them (`attn_qkv`,
    /// `attn_gate`, `ssm_alpha`, `ssm_beta`) rather than qwen3next's (`ssm_in`, `ssm_ba`).
    pub(super) qwen35_names: bool,
}

/// The style of `a`'s `model_type`: two norms of `hidden` per layer and nothing else unless
/// its loader says so.
pub(super) fn style(a: &Arch) -> Style {
    let base = Style {
        norms: 2,
        ..Style::default()
    };
    let t = a.model_type.as_str();
    dense_style(t, base)
        .or_else(|| moe_style(t, base))
        .unwrap_or(base)
}

/// The dense families (and the MoE ones that differ from their dense kin in the FFN only):
/// biases, norms and fused projections.
fn dense_style(model_type: &str, base: Style) -> Option<Style> {
    Some(match model_type {
        // src/models/qwen2.cpp: bq, bk, bv.
        "qwen2" => Style {
            qkv_bias: true,
            ..base
        },
        // src/models/qwen3.cpp, qwen3moe.cpp: attn_q_norm / attn_k_norm of n_embd_head_k.
        "qwen3" | "qwen3_moe" => Style {
            qk_norm_head: true,
            ..base
        },
        // src/models/lfm2.cpp: attn_q_norm / attn_k_norm of n_embd_head_k on the attention
        // layers; operator and FFN norms.
        "lfm2" => Style {
            qk_norm_head: true,
            ..base
        },
        // src/models/olmo2.cpp: attn_q_norm {n_embd}, attn_k_norm {n_embd_k_gqa}; two post-norms
        // (Olmo 3 too: the same graph with sliding-window layers).
        "olmo2" | "olmo3" => Style {
            qk_norm_full: true,
            ..base
        },
        // src/models/phi3.cpp: wqkv {n_embd, n_embd + 2 n_embd_gqa}, ffn_up {n_embd, 2 n_ff}.
        "phi3" => Style {
            fused: true,
            ..base
        },
        // src/models/gemma2-iswa.cpp: attn_norm, attn_post_norm, ffn_norm, ffn_post_norm.
        "gemma2" => Style { norms: 4, ..base },
        // src/models/gemma3.cpp, gemma4.cpp: the four norms and q/k norms of a head.
        "gemma3" | "gemma3_text" | "gemma4" | "gemma4_text" => Style {
            norms: 4,
            qk_norm_head: true,
            ..base
        },
        // src/models/gemma3n-iswa.cpp: eight norms per layer (the laurel and altup ones too).
        "gemma3n" | "gemma3n_text" => Style {
            norms: 8,
            qk_norm_head: true,
            ..base
        },
        _ => return None,
    })
}

/// The MoE families with their own extras: expert-score biases, the shared-expert gate, gated
/// q, the multi-token-prediction block.
fn moe_style(model_type: &str, base: Style) -> Option<Style> {
    Some(match model_type {
        // src/models/lfm2moe.cpp: LFM2's attention layers (per-head q/k norms) and, on the MoE
        // layers, a sigmoid router with its expert-score bias (`exp_probs_b`, always loaded).
        "lfm2_moe" => Style {
            qk_norm_head: true,
            expert_bias: true,
            ..base
        },
        // src/models/minimax-m2.cpp: q/k norms over the projection; exp_probs_b.
        "minimax_m2" => Style {
            qk_norm_full: true,
            expert_bias: true,
            ..base
        },
        // src/models/deepseek2.cpp (also DeepSeek-V3.2, Kimi K2 and GLM-4.7-Flash, converted as
        // deepseek2; V3.2's indexer tensors follow its `index_*` fields, layers.rs).
        "deepseek_v3" | "deepseek_v32" | "deepseek_v2" | "kimi_k2" | "glm4_moe_lite" => Style {
            expert_bias: true,
            ..base
        },
        // src/models/glm4-moe.cpp: bq/bk/bv, exp_probs_b, and the nextn block the converter keeps
        // (`num_nextn_predict_layers: 1`, https://huggingface.co/zai-org/GLM-4.5/blob/main/config.json).
        "glm4_moe" => Style {
            qkv_bias: true,
            expert_bias: true,
            mtp_layers: 1,
            mtp_head: true,
            ..base
        },
        // GLM-5 (`glm_moe_dsa`, llama.cpp's glm-dsa, which builds the deepseek2 graph): latent
        // attention with DeepSeek-V3.2's indexer (layers.rs), exp_probs_b, and the nextn block of
        // `num_nextn_predict_layers: 1`
        // (https://huggingface.co/zai-org/GLM-5/blob/main/config.json) without a head of its own.
        "glm_moe_dsa" => Style {
            expert_bias: true,
            mtp_layers: 1,
            ..base
        },
        // src/models/openai-moe-iswa.cpp: biases on q, k, v and the output, attention sinks.
        "gpt_oss" => Style {
            qkv_bias: true,
            o_bias: true,
            ..base
        },
        // src/models/qwen3next.cpp: gated q, q/k norms, shared-expert gate.
        "qwen3_next" => Style {
            qk_norm_head: true,
            shared_gate: true,
            gated_q: true,
            ..base
        },
        // src/models/qwen35.cpp, qwen35moe.cpp: as qwen3next, linear attention named attn_qkv/attn_gate.
        "qwen3_5" | "qwen3_5_moe" | "qwen3_5_text" | "qwen3_5_moe_text" => Style {
            qk_norm_head: true,
            shared_gate: true,
            gated_q: true,
            qwen35_names: true,
            ..base
        },
        _ => return None,
    })
}
