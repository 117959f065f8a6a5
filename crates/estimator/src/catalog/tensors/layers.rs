//! One layer's tensors ([`layer`]): its norms, the attention (or the recurrent mixer), the
//! dense FFN or the experts, and the architecture's extra per-layer tensors.

use super::style::Style;
use super::{Kind, List};
use crate::catalog::{Arch, Block, Mla, Recurrent};

/// Is layer `il` a full-attention layer (not recurrent)?
fn is_attention(a: &Arch, il: u32) -> bool {
    // A multi-token-prediction block after the stack is a full-attention layer (llama.cpp
    // src/models/qwen35_mtp.cpp builds attention for it on the hybrid Qwen3.5).
    il >= a.layers
        || a.recurrent
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

/// The tensors of layer `il` (`mtp`: a multi-token-prediction block after the stack).
pub(super) fn layer(l: &mut List, a: &Arch, s: &Style, il: u32, mtp: bool) {
    if let Some(b) = a.blocks.as_ref().and_then(|b| b.at(il)) {
        return one_block(l, a, s, b);
    }
    let h = a.hidden;
    match a.model_type.as_str() {
        // Olmo 3 is OLMo 2's block with sliding-window layers (src/models/olmo2.cpp builds both).
        "olmo2" | "olmo3" => {
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
        // GLM's nextn block (src/models/glm4-moe.cpp): the projection of [embedding; hidden],
        // its norms, and (GLM-4.5) its own embedding and output head.
        l.w("nextn.eh_proj.weight", 2u64.saturating_mul(h), h);
        l.v("nextn.enorm.weight", h);
        l.v("nextn.hnorm.weight", h);
        l.v("nextn.shared_head_norm.weight", h);
        if s.mtp_head {
            l.w("nextn.embed_tokens.weight", h, a.vocab);
            l.w("nextn.shared_head_head.weight", h, a.vocab);
        }
    }
}

/// The sparse-attention indexer of DeepSeek-V3.2 (`index_head_dim`, `index_n_heads`), as
/// llama.cpp's deepseek2 loader creates it (src/llama-model.cpp, "DSA indexer"): a query
/// up-projection from the compressed query, a key projection with its LayerNorm (weight and
/// bias), and the per-head weights projection. Nothing without a query rank (the query comes
/// from the compressed one).
fn indexer(l: &mut List, a: &Arch, m: Mla) {
    let (Some(d), Some(n), Some(r)) = (m.index_head_dim, m.index_heads, m.q_lora_rank) else {
        return;
    };
    l.w("indexer.attn_q_b.weight", r, n.saturating_mul(d));
    l.w("indexer.attn_k.weight", a.hidden, d);
    l.v("indexer.k_norm.weight", d);
    l.v("indexer.k_norm.bias", d);
    l.w("indexer.proj.weight", a.hidden, n);
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
        indexer(l, a, m);
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

fn recurrent(l: &mut List, a: &Arch, s: &Style, r: &Recurrent) {
    match r.kind.as_str() {
        "shortconv" => shortconv(l, a.hidden, r),
        "mamba2" => mamba2(l, a.hidden, r),
        _ => gated_deltanet(l, a.hidden, s, r),
    }
}

/// LFM2's gated short convolution (src/models/lfm2.cpp): the in-projection to B, C and x
/// (3 × hidden), the depthwise kernel of `conv_L_cache` taps per channel (F32 in the GGUF: the
/// LFM2-350M F16 file's 676.25 MiB of tensor data,
/// https://github.com/ggml-org/llama.cpp/issues/14979, holds it at 4 bytes), the out-projection.
fn shortconv(l: &mut List, h: u64, r: &Recurrent) {
    l.w("shortconv.in_proj.weight", h, h.saturating_mul(3));
    l.push(
        "shortconv.conv.weight",
        [r.conv_kernel, h, 1],
        2,
        Kind::F32Matrix,
    );
    l.w("shortconv.out_proj.weight", h, h);
}

/// Mamba-2 mixer (src/models/granite-hybrid.cpp, mamba2 layer): in-projection of z, x, B, C and
/// dt; the short convolution and its bias; A, D and dt bias per head; the grouped norm; the
/// out-projection. Here k_heads = groups, k_dim = state, v_heads = heads, v_dim = head size
/// (d_inner = v_heads × v_dim).
fn mamba2(l: &mut List, h: u64, r: &Recurrent) {
    let gs = r.k_heads.saturating_mul(r.k_dim);
    let vdim = r.v_heads.saturating_mul(r.v_dim);
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
}

/// Gated DeltaNet (src/models/qwen3next.cpp; qwen35.cpp names the projections apart).
fn gated_deltanet(l: &mut List, h: u64, s: &Style, r: &Recurrent) {
    let kdim = r.k_heads.saturating_mul(r.k_dim);
    let vdim = r.v_heads.saturating_mul(r.v_dim);
    let conv_ch = kdim.saturating_mul(2).saturating_add(vdim);
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
    let shared = a.moe.map_or(0, |x| x.shared_ffn);
    l.push("ffn_gate_inp.weight", [h, e, 1], 2, Kind::Router);
    if a.model_type == "gpt_oss" {
        // src/models/openai-moe-iswa.cpp: router bias, expert biases; experts MXFP4.
        l.v("ffn_gate_inp.bias", e);
        routed_experts(l, a);
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
        routed_experts(l, a);
        return;
    }
    if s.expert_bias {
        l.v("exp_probs_b.bias", e);
    }
    routed_experts(l, a);
    if shared > 0 {
        if s.shared_gate {
            l.push("ffn_gate_inp_shexp.weight", [h, 1, 1], 2, Kind::Router);
        }
        l.w("ffn_gate_shexp.weight", h, shared);
        l.w("ffn_up_shexp.weight", h, shared);
        l.w("ffn_down_shexp.weight", shared, h);
    }
}

/// The routed experts of one MoE layer, the tensors llama.cpp's `--n-cpu-moe` moves
/// (`ffn_*_exps`, with their biases and scales): gate, up and down over the hidden size;
/// gpt-oss's in MXFP4 with F32 biases; Gemma 4's gate and up fused, with a per-expert scale;
/// Nemotron-H's up and down only (squared ReLU), over the latent width where it has one.
pub(super) fn routed_experts(l: &mut List, a: &Arch) {
    let h = a.hidden;
    let e = u64::from(a.experts);
    let m = a.moe_intermediate.unwrap_or(a.intermediate);
    if a.blocks.is_some() {
        let shape = a.moe.unwrap_or_default();
        let width = if shape.latent > 0 { shape.latent } else { h };
        l.e("ffn_up_exps.weight", width, m, e, Kind::Weight);
        l.e("ffn_down_exps.weight", m, width, e, Kind::Weight);
        return;
    }
    if a.model_type == "gpt_oss" {
        let k = Kind::Mxfp4Experts;
        l.e("ffn_gate_exps.weight", h, m, e, k);
        l.e("ffn_up_exps.weight", h, m, e, k);
        l.e("ffn_down_exps.weight", m, h, e, k);
        l.v2("ffn_gate_exps.bias", m, e);
        l.v2("ffn_up_exps.bias", m, e);
        l.v2("ffn_down_exps.bias", h, e);
        return;
    }
    if a.model_type.starts_with("gemma4") {
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
    l.e("ffn_gate_exps.weight", h, m, e, Kind::Weight);
    l.e("ffn_up_exps.weight", h, m, e, Kind::Weight);
    l.e("ffn_down_exps.weight", m, h, e, Kind::Weight);
}

/// Does layer `il` hold routed experts?
pub(super) fn has_routed_experts(a: &Arch, il: u32) -> bool {
    match a.blocks.as_ref().and_then(|b| b.at(il)) {
        Some(b) => b == Block::Moe,
        None => is_moe(a, il),
    }
}

/// A layer that holds one block (Nemotron-H, llama.cpp's nemotron_h loader in
/// src/models/nemotron-h.cpp, `load_arch_tensors`): its one norm (`attn_norm` on every block),
/// then the Mamba-2 mixer, the attention, the non-gated MLP (`ffn_up`, `ffn_down`: squared ReLU,
/// no gate) or the experts.
fn one_block(l: &mut List, a: &Arch, s: &Style, b: Block) {
    let h = a.hidden;
    l.v("attn_norm.weight", h);
    match (b, &a.recurrent) {
        (Block::Mamba2, Some(r)) => recurrent(l, a, s, r),
        (Block::Mamba2, None) => {}
        (Block::Attention, _) => attention(l, a, s, 0),
        (Block::Mlp, _) => {
            l.w("ffn_up.weight", h, a.intermediate);
            l.w("ffn_down.weight", a.intermediate, h);
        }
        (Block::Moe, _) => relu2_moe(l, a),
    }
}

/// Nemotron-H's MoE block: the F32 router and its score bias (`exp_probs_b`, sigmoid routing),
/// the latent projections where the experts work in a narrower width (`ffn_latent_down`
/// {hidden, latent}, `ffn_latent_up` {latent, hidden}), up and down experts without a gate, and
/// the shared expert's up and down (src/models/nemotron-h.cpp, `load_arch_tensors` and
/// `build_ffn_layer`).
fn relu2_moe(l: &mut List, a: &Arch) {
    let h = a.hidden;
    let e = u64::from(a.experts);
    let shape = a.moe.unwrap_or_default();
    let width = if shape.latent > 0 { shape.latent } else { h };
    l.push("ffn_gate_inp.weight", [h, e, 1], 2, Kind::Router);
    l.v("exp_probs_b.bias", e);
    if shape.latent > 0 {
        l.w("ffn_latent_down.weight", h, width);
        l.w("ffn_latent_up.weight", width, h);
    }
    routed_experts(l, a);
    l.w("ffn_up_shexp.weight", h, shape.shared_ffn);
    l.w("ffn_down_shexp.weight", shape.shared_ffn, h);
}
