//! The tensors a model file stores, enumerated from the architecture ([`Arch`]): llama.cpp's
//! tensor list of each architecture kind the catalog holds (the shapes its loaders ask for in
//! `load_tensors`, <https://github.com/ggml-org/llama.cpp/blob/master/src/llama-model.cpp> and
//! `src/models/*.cpp`), which is also the list the Hugging Face checkpoint stores under other
//! names (the converter, `convert_hf_to_gguf.py`, renames and fuses tensors without changing
//! their element counts). [`crate::catalog::size_rule`] sizes each tensor for a format.
//!
//! Shapes are in ggml order: `ne[0]` is the row length (the input dimension of a projection),
//! `ne[1]` the rows, `ne[2]` the experts of a merged expert tensor. Every product saturates: the
//! dimensions come from configs and headers, which are hostile input.

use super::Arch;

/// How a tensor is stored, whatever the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A weight matrix the format quantizes (projections, experts, embeddings, output).
    Weight,
    /// One-dimensional (norms, biases, per-head scalars): F32 in GGUF (`convert_hf_to_gguf.py`
    /// writes `n_dims <= 1` tensors and names not ending in `.weight` as F32), 16-bit in a
    /// checkpoint.
    Vector,
    /// The MoE router (`ffn_gate_inp`): F32 in GGUF (the converter's `FFN_GATE_INP` rule), never
    /// quantized (`tensor_allows_quantization` in src/llama-quant.cpp), 16-bit in a checkpoint.
    Router,
    /// A small matrix the converter forces to F32 (`ssm_conv1d`, Mamba-2's grouped `ssm_norm`
    /// and `ssm_a`/`ssm_d`).
    F32Matrix,
    /// A matrix llama-quantize leaves at the source's 16-bit type (`altup*`, `laurel*`,
    /// `per_layer_model_proj`: `tensor_allows_quantization` in src/llama-quant.cpp).
    Keep16,
    /// Expert matrices the publisher ships as MXFP4 (gpt-oss, whose checkpoint stores them so:
    /// <https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json>,
    /// `quantization_config`), kept so in every GGUF mix.
    Mxfp4Experts,
}

/// One stored tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// llama.cpp's GGUF name without the `blk.N.` prefix (`attn_v.weight`).
    pub name: &'static str,
    /// The block it belongs to (`blk.N.`), `None` for the global tensors.
    pub layer: Option<u32>,
    /// Shape in ggml order: row length, rows, experts (1 when not an expert tensor).
    pub ne: [u64; 3],
    /// Dimensions as stored (1, 2 or 3).
    pub dims: u8,
    /// How it is stored.
    pub kind: Kind,
}

impl Tensor {
    /// Elements (saturating).
    pub fn elements(&self) -> u64 {
        self.ne.iter().fold(1u64, |p, x| p.saturating_mul(*x))
    }

    /// Rows of `ne[0]` values (saturating).
    pub fn rows(&self) -> u64 {
        self.ne[1].saturating_mul(self.ne[2])
    }

    /// The full GGUF name's length (`blk.12.attn_v.weight`).
    pub fn name_len(&self) -> u64 {
        let prefix = self.layer.map_or(0, |l| {
            let digits = l.checked_ilog10().unwrap_or(0) as u64 + 1;
            "blk.".len() as u64 + digits + 1
        });
        prefix + self.name.len() as u64
    }

    /// A merged expert tensor (`ne[2] > 1`).
    pub fn is_experts(&self) -> bool {
        self.ne[2] > 1
    }
}

/// The tensor list being built.
struct List {
    t: Vec<Tensor>,
    layer: Option<u32>,
}

impl List {
    fn push(&mut self, name: &'static str, ne: [u64; 3], dims: u8, kind: Kind) {
        if ne.iter().all(|&x| x > 0) {
            self.t.push(Tensor {
                name,
                layer: self.layer,
                ne,
                dims,
                kind,
            });
        }
    }
    /// A weight matrix of `cols` inputs and `rows` outputs.
    fn w(&mut self, name: &'static str, cols: u64, rows: u64) {
        self.push(name, [cols, rows, 1], 2, Kind::Weight);
    }
    /// A merged expert tensor.
    fn e(&mut self, name: &'static str, cols: u64, rows: u64, experts: u64, kind: Kind) {
        self.push(name, [cols, rows, experts], 3, kind);
    }
    /// A vector of `n`.
    fn v(&mut self, name: &'static str, n: u64) {
        self.push(name, [n, 1, 1], 1, Kind::Vector);
    }
    /// A 2-D tensor stored like a vector (F32 in GGUF, 16-bit in a checkpoint): biases of merged experts.
    fn v2(&mut self, name: &'static str, cols: u64, rows: u64) {
        self.push(name, [cols, rows, 1], 2, Kind::Vector);
    }
}

/// Per-architecture facts the tensor list needs beyond [`Arch`], keyed by the config's
/// `model_type` (each from the model's llama.cpp loader).
#[derive(Clone, Copy, Debug, Default)]
struct Style {
    /// q/k/v projection biases (Qwen2 `qkv_bias`; GLM-4.5 `attention_bias`; gpt-oss also on the
    /// output projection).
    qkv_bias: bool,
    /// The attention output projection has a bias (gpt-oss).
    o_bias: bool,
    /// q/k RMS norms of one head's width (Qwen3, Gemma 3/3n/4, Qwen3-Next, Qwen3.5).
    qk_norm_head: bool,
    /// q/k RMS norms over the whole projection (OLMo 2, MiniMax-M2).
    qk_norm_full: bool,
    /// Fused `attn_qkv` and `ffn_up` (gate and up) projections (Phi-3/Phi-4).
    fused: bool,
    /// Norm vectors of `hidden` per layer (2: pre-attention and pre-FFN; Gemma 2/3/4: 4).
    norms: u64,
    /// An expert-score bias per MoE layer (`exp_probs_b`: DeepSeek-V3, Kimi K2, GLM-4.5, MiniMax-M2).
    expert_bias: bool,
    /// A sigmoid gate on the shared expert (`ffn_gate_inp_shexp`: Qwen3-Next, Qwen3.5).
    shared_gate: bool,
    /// The attention q projection also yields an output gate (twice the heads: Qwen3-Next, Qwen3.5).
    gated_q: bool,
    /// Multi-token-prediction blocks the GGUF keeps after the main stack (GLM-4.5's `nextn`).
    mtp_layers: u32,
    /// Gated DeltaNet layers named as llama.cpp's qwen35 loader names them (`attn_qkv`,
    /// `attn_gate`, `ssm_alpha`, `ssm_beta`) rather than qwen3next's (`ssm_in`, `ssm_ba`).
    qwen35_names: bool,
}

fn style(a: &Arch) -> Style {
    let base = Style {
        norms: 2,
        ..Style::default()
    };
    match a.model_type.as_str() {
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
        // src/models/olmo2.cpp: attn_q_norm {n_embd}, attn_k_norm {n_embd_k_gqa}; two post-norms.
        "olmo2" => Style {
            qk_norm_full: true,
            ..base
        },
        // src/models/minimax-m2.cpp: q/k norms over the projection; exp_probs_b.
        "minimax_m2" => Style {
            qk_norm_full: true,
            expert_bias: true,
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
        // src/models/deepseek2.cpp (also Kimi K2 and GLM-4.7-Flash, converted as deepseek2).
        "deepseek_v3" | "deepseek_v2" | "kimi_k2" | "glm4_moe_lite" => Style {
            expert_bias: true,
            ..base
        },
        // src/models/glm4-moe.cpp: bq/bk/bv, exp_probs_b, and the nextn block the converter keeps
        // (`num_nextn_predict_layers: 1`, https://huggingface.co/zai-org/GLM-4.5/blob/main/config.json).
        "glm4_moe" => Style {
            qkv_bias: true,
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
        _ => base,
    }
}

/// Vision tower of the Gemma 3 4B/12B/27B checkpoints (SigLIP so400m at 896 px: hidden 1152,
/// MLP 4304, 27 layers, patch 14; <https://huggingface.co/google/gemma-3-4b-it/blob/main/config.json>,
/// `vision_config`) with the multimodal projector into the text model's `hidden`: parameters the
/// Hugging Face repo stores beside the text model (the GGUF keeps them in a separate mmproj file).
pub fn gemma3_vision_params(hidden: u64) -> u64 {
    let (d, ff, layers, patch, npos) = (1152u64, 4304u64, 27u64, 14u64, (896u64 / 14).pow(2));
    let per_layer = 4 * (d * d + d) + (d * ff + ff) + (ff * d + d) + 4 * d;
    let embeddings = patch * patch * 3 * d + d + npos * d + 2 * d;
    let projector = d.saturating_mul(hidden).saturating_add(d);
    (layers * per_layer + embeddings).saturating_add(projector)
}

/// Does the Hugging Face checkpoint of `a` hold a vision tower beside the text model that its
/// text-only GGUF leaves out? (Gemma 3's multimodal repos: `model_type` `gemma3`.)
pub fn has_gemma3_vision(a: &Arch) -> bool {
    a.model_type == "gemma3"
}

/// Layers the GGUF stores: the decoder layers and any multi-token-prediction block kept after
/// them (llama.cpp's `n_layer_all`, the `block_count` of the file).
pub fn stored_layers(a: &Arch) -> u32 {
    a.layers.saturating_add(style(a).mtp_layers)
}

/// The tensors of `a` as llama.cpp stores them; `output` adds the output matrix (an untied model,
/// or a tied one whose file stores it anyway).
pub fn tensors(a: &Arch, output: bool) -> Vec<Tensor> {
    let s = style(a);
    let h = a.hidden;
    let mut l = List {
        t: Vec::new(),
        layer: None,
    };
    l.w("token_embd.weight", h, a.vocab);
    l.v("output_norm.weight", h);
    if output {
        l.w("output.weight", h, a.vocab);
    }
    if let Some(p) = a.ple {
        // gemma-3n / Gemma 4 E-models (src/models/gemma3n-iswa.cpp): per-layer embeddings, their
        // projection from the hidden state (kept 16-bit) and its norm.
        let width = p.dim.saturating_mul(u64::from(a.layers));
        l.w("per_layer_token_embd.weight", width, p.vocab);
        l.push(
            "per_layer_model_proj.weight",
            [h, width, 1],
            2,
            Kind::Keep16,
        );
        l.v("per_layer_proj_norm.weight", p.dim);
    }
    if a.model_type.starts_with("gemma3n") {
        // altup_num_inputs 4 (https://huggingface.co/google/gemma-3n-E2B-it/blob/main/config.json).
        l.push("altup_proj.weight", [h, h, 3], 3, Kind::Keep16);
        l.push("altup_unembd_proj.weight", [h, h, 3], 3, Kind::Keep16);
    }
    let all = stored_layers(a);
    for il in 0..all.min(1 << 16) {
        l.layer = Some(il);
        layer(&mut l, a, &s, il, il >= a.layers);
    }
    l.t
}

/// Is layer `il` a full-attention layer (not recurrent)?
fn is_attention(a: &Arch, il: u32) -> bool {
    a.recurrent
        .as_ref()
        .is_none_or(|r| r.attention_layers.contains(&il))
}

/// Is layer `il` a MoE layer (after the leading dense layers, one in `step`)?
fn is_moe(a: &Arch, il: u32) -> bool {
    if a.experts <= 1 {
        return false;
    }
    let m = a.moe.unwrap_or_default();
    il >= m.dense_layers && (m.step <= 1 || (il + 1).is_multiple_of(m.step))
}

fn layer(l: &mut List, a: &Arch, s: &Style, il: u32, mtp: bool) {
    let h = a.hidden;
    match a.model_type.as_str() {
        "olmo2" => {
            l.v("post_attention_norm.weight", h);
            l.v("post_ffw_norm.weight", h);
        }
        "gpt_oss" | "qwen3_next" | "qwen3_5" | "qwen3_5_moe" => {
            l.v("attn_norm.weight", h);
            l.v("post_attention_norm.weight", h);
        }
        _ => {
            const NORMS: [&str; 8] = [
                "attn_norm.weight",
                "ffn_norm.weight",
                "post_attention_norm.weight",
                "post_ffw_norm.weight",
                "altup_correct_scale.weight",
                "altup_router_norm.weight",
                "laurel_post_norm.weight",
                "post_norm.weight",
            ];
            for n in NORMS.iter().take(s.norms as usize) {
                l.v(n, h);
            }
        }
    }
    if is_attention(a, il) {
        attention(l, a, s, il);
    } else if let Some(r) = &a.recurrent {
        recurrent(l, a, s, r);
    }
    if is_moe(a, il) || (mtp && a.experts > 1) {
        moe(l, a, s);
    } else {
        dense_ffn(l, a, s, il);
    }
    if a.model_type.starts_with("gemma3n") {
        // altup (4 inputs) and laurel (rank 64) per layer, kept 16-bit; the per-layer input gate
        // and projection (quantized).
        let pd = a.ple.map_or(0, |p| p.dim);
        l.push("altup_correct_coef.weight", [4, 4, 1], 2, Kind::Keep16);
        l.push("altup_predict_coef.weight", [4, 16, 1], 2, Kind::Keep16);
        l.push("altup_router.weight", [h, 4, 1], 2, Kind::Keep16);
        l.push("laurel_l.weight", [h, 64, 1], 2, Kind::Keep16);
        l.push("laurel_r.weight", [64, h, 1], 2, Kind::Keep16);
        l.w("inp_gate.weight", h, pd);
        l.w("proj.weight", pd, h);
    }
    if a.model_type.starts_with("gemma4") {
        // src/models/gemma4.cpp: a per-layer output scale; with per-layer embeddings, the input
        // gate, projection and post norm of each layer.
        l.v("layer_output_scale.weight", 1);
        if let Some(p) = a.ple {
            l.w("inp_gate.weight", h, p.dim);
            l.w("proj.weight", p.dim, h);
            l.v("post_norm.weight", h);
        }
    }
    if mtp {
        // GLM-4.5's nextn block (src/models/glm4-moe.cpp): the projection of [embedding; hidden],
        // its norms, and its own embedding and output head.
        l.w("nextn.eh_proj.weight", 2u64.saturating_mul(h), h);
        l.v("nextn.enorm.weight", h);
        l.v("nextn.hnorm.weight", h);
        l.v("nextn.shared_head_norm.weight", h);
        l.w("nextn.embed_tokens.weight", h, a.vocab);
        l.w("nextn.shared_head_head.weight", h, a.vocab);
    }
}

fn attention(l: &mut List, a: &Arch, s: &Style, il: u32) {
    let h = a.hidden;
    let heads = u64::from(a.heads);
    if let Some(m) = a.mla {
        // Multi-head latent attention (src/models/deepseek2.cpp): q through its low-rank factor,
        // the shared kv_a down-projection with the rotary key, kv_b up to the heads' keys (nope
        // part) and values (one fused tensor, as the converters wrote it until mid-2025), output.
        let qk = a.head_dim;
        let nope = qk.saturating_sub(m.qk_rope_head_dim);
        let v = m.v_head_dim.unwrap_or(nope);
        match m.q_lora_rank {
            Some(r) => {
                l.w("attn_q_a.weight", h, r);
                l.v("attn_q_a_norm.weight", r);
                l.w("attn_q_b.weight", r, heads.saturating_mul(qk));
            }
            None => l.w("attn_q.weight", h, heads.saturating_mul(qk)),
        }
        l.w(
            "attn_kv_a_mqa.weight",
            h,
            m.kv_lora_rank.saturating_add(m.qk_rope_head_dim),
        );
        l.v("attn_kv_a_norm.weight", m.kv_lora_rank);
        l.w(
            "attn_kv_b.weight",
            m.kv_lora_rank,
            heads.saturating_mul(nope.saturating_add(v)),
        );
        l.w("attn_output.weight", heads.saturating_mul(v), h);
        return;
    }
    let global = !a.is_swa(il);
    let (kv_heads, hd) = a.kv_shape(global);
    let q = heads.saturating_mul(hd);
    let kv = kv_heads.saturating_mul(hd);
    let q_rows = if s.gated_q { q.saturating_mul(2) } else { q };
    // Gemma 4's global layers with `attention_k_eq_v` have no V projection.
    let has_v = !(global && a.global_attn.is_some_and(|g| g.k_eq_v));
    if s.fused {
        l.w("attn_qkv.weight", h, q.saturating_add(kv.saturating_mul(2)));
    } else {
        l.w("attn_q.weight", h, q_rows);
        l.w("attn_k.weight", h, kv);
        if has_v {
            l.w("attn_v.weight", h, kv);
        }
    }
    l.w("attn_output.weight", q, h);
    if s.qkv_bias {
        l.v("attn_q.bias", q);
        l.v("attn_k.bias", kv);
        l.v("attn_v.bias", kv);
    }
    if s.o_bias {
        l.v("attn_output.bias", h);
        l.v("attn_sinks.weight", heads);
    }
    if s.qk_norm_head {
        l.v("attn_q_norm.weight", hd);
        l.v("attn_k_norm.weight", hd);
    }
    if s.qk_norm_full {
        l.v("attn_q_norm.weight", q);
        l.v("attn_k_norm.weight", kv);
    }
}

fn recurrent(l: &mut List, a: &Arch, s: &Style, r: &super::Recurrent) {
    let h = a.hidden;
    let kdim = r.k_heads.saturating_mul(r.k_dim);
    let vdim = r.v_heads.saturating_mul(r.v_dim);
    let conv_ch = kdim.saturating_mul(2).saturating_add(vdim);
    if r.kind == "mamba2" {
        // Mamba-2 mixer (src/models/granite-hybrid.cpp, mamba2 layer): in-projection of z, x,
        // B, C and dt; the short convolution and its bias; A, D and dt bias per head; the
        // grouped norm; the out-projection. Here k_heads = groups, k_dim = state,
        // v_heads = heads, v_dim = head size (d_inner = v_heads × v_dim).
        let gs = kdim;
        let conv = vdim.saturating_add(gs.saturating_mul(2));
        l.w(
            "ssm_in.weight",
            h,
            vdim.saturating_mul(2)
                .saturating_add(gs.saturating_mul(2))
                .saturating_add(r.v_heads),
        );
        l.push(
            "ssm_conv1d.weight",
            [r.conv_kernel, conv, 1],
            2,
            Kind::F32Matrix,
        );
        l.v("ssm_conv1d.bias", conv);
        l.push("ssm_a", [1, r.v_heads, 1], 2, Kind::F32Matrix);
        l.push("ssm_d", [1, r.v_heads, 1], 2, Kind::F32Matrix);
        l.v("ssm_dt.bias", r.v_heads);
        let groups = r.k_heads.max(1);
        l.push(
            "ssm_norm.weight",
            [vdim / groups, groups, 1],
            2,
            Kind::F32Matrix,
        );
        l.w("ssm_out.weight", vdim, h);
        return;
    }
    // Gated DeltaNet (src/models/qwen3next.cpp; qwen35.cpp names the projections apart).
    if s.qwen35_names {
        l.w("attn_qkv.weight", h, conv_ch);
        l.w("attn_gate.weight", h, vdim);
        l.w("ssm_beta.weight", h, r.v_heads);
        l.w("ssm_alpha.weight", h, r.v_heads);
    } else {
        l.w(
            "ssm_in.weight",
            h,
            kdim.saturating_mul(2)
                .saturating_add(vdim.saturating_mul(2)),
        );
        l.w("ssm_ba.weight", h, r.v_heads.saturating_mul(2));
    }
    l.push(
        "ssm_conv1d.weight",
        [r.conv_kernel, conv_ch, 1],
        2,
        Kind::F32Matrix,
    );
    l.v("ssm_a", r.v_heads);
    l.v("ssm_dt.bias", r.v_heads);
    l.v("ssm_norm.weight", r.v_dim);
    l.w("ssm_out.weight", vdim, h);
}

fn dense_ffn(l: &mut List, a: &Arch, s: &Style, il: u32) {
    let h = a.hidden;
    let mut f = a.intermediate;
    // Gemma 4 E2B doubles the MLP of its KV-sharing layers (`use_double_wide_mlp`,
    // https://huggingface.co/google/gemma-4-E2B-it/blob/main/config.json): the one Gemma 4 whose
    // KV-sharing layers outnumber those with their own cache.
    if a.model_type.starts_with("gemma4") {
        if let Some(k) = a.kv_layers {
            if il >= k && k.saturating_mul(2) < a.layers {
                f = f.saturating_mul(2);
            }
        }
    }
    if s.fused {
        l.w("ffn_up.weight", h, f.saturating_mul(2));
    } else {
        l.w("ffn_gate.weight", h, f);
        l.w("ffn_up.weight", h, f);
    }
    l.w("ffn_down.weight", f, h);
}

fn moe(l: &mut List, a: &Arch, s: &Style) {
    let h = a.hidden;
    let e = u64::from(a.experts);
    let m = a.moe_intermediate.unwrap_or(a.intermediate);
    let shared = a.moe.map_or(0, |x| x.shared_ffn);
    l.push("ffn_gate_inp.weight", [h, e, 1], 2, Kind::Router);
    if a.model_type == "gpt_oss" {
        // src/models/openai-moe-iswa.cpp: router bias, expert biases; experts MXFP4.
        let k = Kind::Mxfp4Experts;
        l.v("ffn_gate_inp.bias", e);
        l.e("ffn_gate_exps.weight", h, m, e, k);
        l.e("ffn_up_exps.weight", h, m, e, k);
        l.e("ffn_down_exps.weight", m, h, e, k);
        l.v2("ffn_gate_exps.bias", m, e);
        l.v2("ffn_up_exps.bias", m, e);
        l.v2("ffn_down_exps.bias", h, e);
        return;
    }
    if a.model_type.starts_with("gemma4") {
        // src/models/gemma4.cpp: a dense MLP beside the experts (its width `intermediate`), the
        // router's input scale, fused gate/up experts with a per-expert output scale, and the
        // extra norms of the two branches.
        dense_ffn(l, a, s, 0);
        l.v("ffn_gate_inp.scale", h);
        l.v("pre_ffw_norm_2.weight", h);
        l.v("post_ffw_norm_1.weight", h);
        l.v("post_ffw_norm_2.weight", h);
        l.e(
            "ffn_gate_up_exps.weight",
            h,
            m.saturating_mul(2),
            e,
            Kind::Weight,
        );
        l.e("ffn_down_exps.weight", m, h, e, Kind::Weight);
        l.v("ffn_down_exps.scale", e);
        return;
    }
    if s.expert_bias {
        l.v("exp_probs_b.bias", e);
    }
    l.e("ffn_gate_exps.weight", h, m, e, Kind::Weight);
    l.e("ffn_up_exps.weight", h, m, e, Kind::Weight);
    l.e("ffn_down_exps.weight", m, h, e, Kind::Weight);
    if shared > 0 {
        if s.shared_gate {
            l.push("ffn_gate_inp_shexp.weight", [h, 1, 1], 2, Kind::Router);
        }
        l.w("ffn_gate_shexp.weight", h, shared);
        l.w("ffn_up_shexp.weight", h, shared);
        l.w("ffn_down_shexp.weight", shared, h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_their_layer_prefix() {
        let t = Tensor {
            name: "attn_v.weight",
            layer: Some(12),
            ne: [4096, 1024, 1],
            dims: 2,
            kind: Kind::Weight,
        };
        assert_eq!(t.name_len(), "blk.12.attn_v.weight".len() as u64);
        assert_eq!(t.elements(), 4096 * 1024);
    }

    #[test]
    fn the_vision_tower_is_siglip_so400m() {
        // SigLIP so400m has about 400 M parameters (the name); the 4B projector adds 1152 × 2560.
        let p = gemma3_vision_params(2560);
        assert!((410_000_000..=420_000_000).contains(&p), "{p}");
    }
}
