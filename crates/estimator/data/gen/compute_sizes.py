#!/usr/bin/env python3
"""Compute model-file sizes that no public listing gave us.

An independent cross-check of the estimator's size rule: the rule itself lives in Rust
(crates/estimator/src/catalog/size_rule/, with the tensor lists in catalog/tensors/) and
computes any format of any catalog variant at run time; this script made the catalog's
`computed` rows, and crates/estimator/tests/size_rule.rs compares the two implementations row
by row (they agree within 0.1 % except where a difference is listed there with its reason).

Not run by the build or CI: the catalog files (families/*.json) are committed. Run by hand:

    python3 crates/estimator/data/gen/compute_sizes.py            # table of every computed size
    python3 crates/estimator/data/gen/compute_sizes.py --validate # residuals against known sizes
    python3 crates/estimator/data/gen/compute_sizes.py --json     # machine-readable dump

Rules (the catalog "source" field names the rule a number came from):

GGUF (rule "gguf-mix"):
  * The tensor list of the llama.cpp architecture is built from the HF config
    (token_embd, optional output, per-layer attention / FFN / norms, MoE experts
    as one 3-D tensor per projection).  1-D tensors (norms, biases, sinks) are F32.
    Qwen2/Qwen2.5 (qkv_bias) add q/k/v projection biases.
  * Each 2-D/3-D weight gets the type llama.cpp's quantizer picks for the ftype
    (src/llama-quant.cpp, llama_tensor_get_type): base type Q4_K (Q4_K_M),
    Q5_K (Q5_K_M), Q6_K (Q6_K), Q8_0 (Q8_0);
      - output.weight, and token_embd.weight when the file has no output.weight
        (tied embeddings): Q6_K for every K-quant ftype, Q8_0 for Q8_0, and Q8_0
        whenever the row length is not a multiple of the block size;
      - untied token_embd: the base type;
      - Q4_K_M / Q5_K_M: attn_v (or fused attn_qkv) and ffn_down go to Q6_K in the
        "use_more_bits" layers: i < n/8 or i >= 7n/8 or (i - n/8) % 3 == 2;
      - row length not divisible by 256: Q4_K->Q5_0, Q5_K->Q5_1, Q6_K->Q8_0;
      - never quantised: *_norm, ffn_gate_inp (MoE router, kept F32 by the
        converter), altup*, laurel*, per_layer_model_proj (kept at the source 16-bit type);
      - MXFP4_MOE ftype: 3-D expert tensors MXFP4, every other matrix Q8_0.
  * Bytes per block: F32 4/1, F16/BF16 2/1, Q8_0 34/32, Q4_0 18/32, Q4_1 20/32,
    Q5_0 22/32, Q5_1 24/32, Q2_K 84/256, Q3_K 110/256, Q4_K 144/256, Q5_K 176/256,
    Q6_K 210/256, MXFP4 17/32.
  * Each tensor's data is padded to 32 bytes; each tensor-info record costs
    ~ (name + 4*ndim + 16) bytes; plus a per-tokenizer metadata allowance
    (vocabulary strings, scores/types, BPE merges, chat template), see META_BYTES.

Safetensors BF16 (rule "st-bf16"): 2 bytes x parameter count of the tensors the
official checkpoint stores (tied embeddings once, lm_head added when the repo
stores it; gemma-3 4b/12b/27b repos also hold the SigLIP vision tower and the
multimodal projector).  The JSON header (tens of KB) is ignored.

Safetensors FP8 (rule "st-fp8", Qwen/Qwen3-*-FP8): linear weights 1 byte, one
F32 scale per 128x128 block; embeddings, lm_head (stored even when tied) and norms BF16.

Safetensors AWQ (rule "st-awq", 4-bit, group 128, GEMM packing): per linear
weight element 0.5 B (int32-packed qweight) + 2/128 B (FP16 scales) + 1/256 B
(int32-packed zero points); embeddings, lm_head and norms 16-bit.
"""
import json
import math
import sys

# ----------------------------------------------------------------------------- types
BLOCK = {  # type: (block elements, bytes per block)
    "F32": (1, 4), "F16": (1, 2), "BF16": (1, 2),
    "Q8_0": (32, 34), "Q4_0": (32, 18), "Q4_1": (32, 20), "Q5_0": (32, 22), "Q5_1": (32, 24),
    "Q2_K": (256, 84), "Q3_K": (256, 110), "Q4_K": (256, 144), "Q5_K": (256, 176), "Q6_K": (256, 210),
    "MXFP4": (32, 17),
}
FALLBACK = {"Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0", "Q2_K": "Q4_0", "Q3_K": "Q4_0"}
BASE = {"Q4_K_M": "Q4_K", "Q5_K_M": "Q5_K", "Q6_K": "Q6_K", "Q8_0": "Q8_0", "Q4_0": "Q4_0",
        "F16": "F16", "BF16": "BF16", "F32": "F32", "MXFP4": "MXFP4"}

# GGUF metadata allowance per tokenizer family (bytes): vocab strings + scores/types
# + merges + chat template.  Estimated from the gap between published 16-bit GGUF
# sizes and their tensor data (+1 .. +11 MB over the published files checked).
META_BYTES = {
    "llama3": 8_000_000,     # 128256 tokens + ~280k merges
    "qwen": 7_000_000,       # 151936 tokens + ~151k merges
    "gemma": 10_500_000,     # 262k sentencepiece tokens with scores and types
    "mistral-v3": 1_500_000, # 32768 sentencepiece tokens
    "llama2": 1_500_000,     # 32000 sentencepiece tokens (same size class as mistral-v3)
    "tekken": 7_000_000,     # 131072 tokens + merges
    "phi4": 5_000_000,       # 100352 tokens + merges
    "o200k": 12_000_000,     # 201088 tokens + merges
    "glm4": 7_000_000,       # 151552 tokens + merges (same size class as qwen)
    "kimi": 7_000_000,       # DeepSeek-V3 129280 / Kimi K2 163840 tokens + merges (same size class as qwen)
    "granite3": 2_500_000,   # 49159 GPT-2-style BPE tokens + merges (the qwen allowance scaled by vocabulary)
    "lfm2": 3_276_800,       # LFM2's 65536 tokens: not fitted on a published file, 50 bytes a token
}


def nbytes(t, shape):
    ne0 = shape[0]
    rows = math.prod(shape[1:]) if len(shape) > 1 else 1
    be, bb = BLOCK[t]
    assert ne0 % be == 0, (t, shape)
    return rows * (ne0 // be) * bb


def pad32(n):
    return (n + 31) // 32 * 32


# ----------------------------------------------------------------------------- tensor lists
# A tensor is (name, shape, kind) with shape in ggml order (ne0 = row length = input dim).
# kind: 'w' quantisable matrix, 'n' 1-D (F32), 'keep' 2-D kept at the source 16-bit type,
#       'f32' 2-D forced F32 by the converter (MoE router).

def llama_like(c, *, qk_norm=False, fused=False, rope_freqs=False, qkv_bias=False):
    h, L = c["hidden"], c["layers"]
    q, kv = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
    f = c["intermediate"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n")]
    if c.get("has_output"):
        T.append(("output.weight", (h, c["vocab"]), "w"))
    if rope_freqs:
        T.append(("rope_freqs.weight", (c["head_dim"] // 2,), "n"))
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "ffn_norm.weight", (h,), "n")]
        if fused:
            T += [(p + "attn_qkv.weight", (h, q + 2 * kv), "w"), (p + "ffn_up.weight", (h, 2 * f), "w")]
        else:
            T += [(p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
                  (p + "attn_v.weight", (h, kv), "w"),
                  (p + "ffn_gate.weight", (h, f), "w"), (p + "ffn_up.weight", (h, f), "w")]
        T += [(p + "attn_output.weight", (q, h), "w"), (p + "ffn_down.weight", (f, h), "w")]
        if qk_norm:
            T += [(p + "attn_q_norm.weight", (c["head_dim"],), "n"), (p + "attn_k_norm.weight", (c["head_dim"],), "n")]
        if qkv_bias:  # Qwen2 / Qwen2.5: biases on the q, k, v projections (1-D, F32)
            T += [(p + "attn_q.bias", (q,), "n"), (p + "attn_k.bias", (kv,), "n"), (p + "attn_v.bias", (kv,), "n")]
    return T


def qwen3_moe(c):
    h, L, E, m = c["hidden"], c["layers"], c["experts"], c["moe_intermediate"]
    q, kv = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("output.weight", (h, c["vocab"]), "w")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "ffn_norm.weight", (h,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
              (p + "attn_v.weight", (h, kv), "w"), (p + "attn_output.weight", (q, h), "w"),
              (p + "attn_q_norm.weight", (c["head_dim"],), "n"), (p + "attn_k_norm.weight", (c["head_dim"],), "n"),
              (p + "ffn_gate_inp.weight", (h, E), "f32"),
              (p + "ffn_gate_exps.weight", (h, m, E), "w"), (p + "ffn_up_exps.weight", (h, m, E), "w"),
              (p + "ffn_down_exps.weight", (m, h, E), "w")]
    return T


def glm4_moe(c):
    """GLM-4.5/4.6 (glm4moe): q/k/v biases, optional q/k norms, the first `dense` layers with a
    dense FFN, the rest MoE (router F32, expert-score bias F32, one shared expert), plus the
    `nextn` multi-token-prediction layers the checkpoint and the converter keep as extra blocks
    (a full MoE block plus eh_proj, enorm/hnorm, its own embedding and output head)."""
    h, E, m = c["hidden"], c["experts"], c["moe_intermediate"]
    main, L = c["main_layers"], c["layers"]
    q, kv, f, d = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["intermediate"], c["head_dim"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("output.weight", (h, c["vocab"]), "w")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "ffn_norm.weight", (h,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
              (p + "attn_v.weight", (h, kv), "w"), (p + "attn_output.weight", (q, h), "w"),
              (p + "attn_q.bias", (q,), "n"), (p + "attn_k.bias", (kv,), "n"), (p + "attn_v.bias", (kv,), "n")]
        if c.get("qk_norm"):
            T += [(p + "attn_q_norm.weight", (d,), "n"), (p + "attn_k_norm.weight", (d,), "n")]
        if i < c["dense"]:
            T += [(p + "ffn_gate.weight", (h, f), "w"), (p + "ffn_up.weight", (h, f), "w"),
                  (p + "ffn_down.weight", (f, h), "w")]
        else:
            T += [(p + "ffn_gate_inp.weight", (h, E), "f32"), (p + "exp_probs_b.bias", (E,), "n"),
                  (p + "ffn_gate_exps.weight", (h, m, E), "w"), (p + "ffn_up_exps.weight", (h, m, E), "w"),
                  (p + "ffn_down_exps.weight", (m, h, E), "w"),
                  (p + "ffn_gate_shexp.weight", (h, m), "w"), (p + "ffn_up_shexp.weight", (h, m), "w"),
                  (p + "ffn_down_shexp.weight", (m, h), "w")]
        if i >= main:
            T += [(p + "nextn.eh_proj.weight", (2 * h, h), "w"), (p + "nextn.enorm.weight", (h,), "n"),
                  (p + "nextn.hnorm.weight", (h,), "n"), (p + "nextn.shared_head_norm.weight", (h,), "n"),
                  (p + "nextn.embed_tokens.weight", (h, c["vocab"]), "w"),
                  (p + "nextn.shared_head_head.weight", (h, c["vocab"]), "w")]
    return T


def minimax_m2(c):
    """MiniMax-M2 (minimax-m2): every layer MoE without a shared expert (router F32, expert-score
    bias F32); q/k RMS norms over the whole projection (heads*head_dim and kv_heads*head_dim)."""
    h, L, E, m = c["hidden"], c["layers"], c["experts"], c["moe_intermediate"]
    q, kv = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("output.weight", (h, c["vocab"]), "w")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "ffn_norm.weight", (h,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
              (p + "attn_v.weight", (h, kv), "w"), (p + "attn_output.weight", (q, h), "w"),
              (p + "attn_q_norm.weight", (q,), "n"), (p + "attn_k_norm.weight", (kv,), "n"),
              (p + "ffn_gate_inp.weight", (h, E), "f32"), (p + "exp_probs_b.bias", (E,), "n"),
              (p + "ffn_gate_exps.weight", (h, m, E), "w"), (p + "ffn_up_exps.weight", (h, m, E), "w"),
              (p + "ffn_down_exps.weight", (m, h, E), "w")]
    return T


def llama4(c):
    """Llama 4 text model (llama4): MoE layers every `moe_step` layers (il % step == step - 1) with
    routed experts (router F32) and one shared expert of the expert width; the other layers a
    dense FFN of `intermediate` (intermediate_size_mlp). The q/k norm is a weightless L2 norm.
    The vision tower is not part of the text GGUF (it ships as a separate mmproj file)."""
    h, L, E, m, step = c["hidden"], c["layers"], c["experts"], c["moe_intermediate"], c["moe_step"]
    q, kv, f = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["intermediate"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("output.weight", (h, c["vocab"]), "w")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "ffn_norm.weight", (h,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
              (p + "attn_v.weight", (h, kv), "w"), (p + "attn_output.weight", (q, h), "w")]
        if i % step == step - 1:
            T += [(p + "ffn_gate_inp.weight", (h, E), "f32"),
                  (p + "ffn_gate_exps.weight", (h, m, E), "w"), (p + "ffn_up_exps.weight", (h, m, E), "w"),
                  (p + "ffn_down_exps.weight", (m, h, E), "w"),
                  (p + "ffn_gate_shexp.weight", (h, m), "w"), (p + "ffn_up_shexp.weight", (h, m), "w"),
                  (p + "ffn_down_shexp.weight", (m, h), "w")]
        else:
            T += [(p + "ffn_gate.weight", (h, f), "w"), (p + "ffn_up.weight", (h, f), "w"),
                  (p + "ffn_down.weight", (f, h), "w")]
    return T


def qwen3next(c):
    """Qwen3-Next (qwen3next): every `interval`-th layer (il % interval == interval - 1) is gated full
    attention (q projection twice the heads for the output gate, q/k norms), the others Gated
    DeltaNet (in_proj_qkvz, in_proj_ba, a 4-wide causal conv kept F32, A/dt/norm F32, out_proj);
    every layer MoE with a gated shared expert. The checkpoint's MTP block is not converted."""
    h, L, E, m, sh = c["hidden"], c["layers"], c["experts"], c["moe_intermediate"], c["shared"]
    q, kv, d = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["head_dim"]
    kh, kd, vh, vd, ck = c["lin_k_heads"], c["lin_k_dim"], c["lin_v_heads"], c["lin_v_dim"], c["conv"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("output.weight", (h, c["vocab"]), "w")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "post_attention_norm.weight", (h,), "n")]
        if i % c["interval"] == c["interval"] - 1:
            T += [(p + "attn_q.weight", (h, 2 * q), "w"), (p + "attn_k.weight", (h, kv), "w"),
                  (p + "attn_v.weight", (h, kv), "w"), (p + "attn_output.weight", (q, h), "w"),
                  (p + "attn_q_norm.weight", (d,), "n"), (p + "attn_k_norm.weight", (d,), "n")]
        else:
            T += [(p + "ssm_in.weight", (h, 2 * kh * kd + 2 * vh * vd), "w"),
                  (p + "ssm_ba.weight", (h, 2 * vh), "w"),
                  (p + "ssm_conv1d.weight", (ck, 2 * kh * kd + vh * vd), "f32"),
                  (p + "ssm_a", (vh,), "n"), (p + "ssm_dt.bias", (vh,), "n"), (p + "ssm_norm.weight", (vd,), "n"),
                  (p + "ssm_out.weight", (vh * vd, h), "w")]
        T += [(p + "ffn_gate_inp.weight", (h, E), "f32"),
              (p + "ffn_gate_exps.weight", (h, m, E), "w"), (p + "ffn_up_exps.weight", (h, m, E), "w"),
              (p + "ffn_down_exps.weight", (m, h, E), "w"),
              (p + "ffn_gate_inp_shexp.weight", (h, 1), "f32"),
              (p + "ffn_gate_shexp.weight", (h, sh), "w"), (p + "ffn_up_shexp.weight", (h, sh), "w"),
              (p + "ffn_down_shexp.weight", (sh, h), "w")]
    return T


def granitehybrid(c):
    """Granite 4.0-H (granitehybrid): Mamba-2 mixers except on `attn_layers` (plain GQA attention, no
    biases, no positional encoding); every layer an FFN: MoE (router F32, `experts` routed of
    `moe_intermediate`, one shared expert of `shared`) or, with no experts, a dense FFN of `shared`.
    Mamba-2 tensors as llama.cpp's converter writes them: ssm_in (z, x, B, C, dt fused:
    2*d_inner + 2*groups*state + heads), ssm_conv1d over d_inner + 2*groups*state channels (F32) with
    its bias, ssm_a/ssm_d/ssm_dt.bias per head, a grouped ssm_norm (F32) and ssm_out."""
    h, L = c["hidden"], c["layers"]
    q, kv = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
    di, ng, ds, nh, ck = c["d_inner"], c["groups"], c["state"], c["ssm_heads"], c["conv"]
    E, m, sh = c.get("experts", 0), c.get("moe_intermediate", 0), c["shared"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "ffn_norm.weight", (h,), "n")]
        if i in c["attn_layers"]:
            T += [(p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
                  (p + "attn_v.weight", (h, kv), "w"), (p + "attn_output.weight", (q, h), "w")]
        else:
            T += [(p + "ssm_in.weight", (h, 2 * di + 2 * ng * ds + nh), "w"),
                  (p + "ssm_conv1d.weight", (ck, di + 2 * ng * ds), "f32"),
                  (p + "ssm_conv1d.bias", (di + 2 * ng * ds,), "n"),
                  (p + "ssm_a", (1, nh), "f32"), (p + "ssm_d", (1, nh), "f32"), (p + "ssm_dt.bias", (nh,), "n"),
                  (p + "ssm_norm.weight", (di // ng, ng), "f32"), (p + "ssm_out.weight", (di, h), "w")]
        if E:
            T += [(p + "ffn_gate_inp.weight", (h, E), "f32"),
                  (p + "ffn_gate_exps.weight", (h, m, E), "w"), (p + "ffn_up_exps.weight", (h, m, E), "w"),
                  (p + "ffn_down_exps.weight", (m, h, E), "w"),
                  (p + "ffn_gate_shexp.weight", (h, sh), "w"), (p + "ffn_up_shexp.weight", (h, sh), "w"),
                  (p + "ffn_down_shexp.weight", (sh, h), "w")]
        else:
            T += [(p + "ffn_gate.weight", (h, sh), "w"), (p + "ffn_up.weight", (h, sh), "w"),
                  (p + "ffn_down.weight", (sh, h), "w")]
    return T


def lfm2(c):
    """LFM2 (lfm2, src/models/lfm2.cpp): gated short convolutions except on `attn_layers` (GQA
    attention with per-head q/k norms); every layer a SwiGLU FFN, an operator norm and an FFN norm.
    A convolution layer holds shortconv.in_proj (B, C and x: 3 x hidden), the depthwise kernel of
    `conv` taps per channel (F32 in the GGUF) and shortconv.out_proj. Tied embeddings."""
    h, L, f, d = c["hidden"], c["layers"], c["intermediate"], c["head_dim"]
    q, kv = c["heads"] * d, c["kv_heads"] * d
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "ffn_norm.weight", (h,), "n")]
        if i in c["attn_layers"]:
            T += [(p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
                  (p + "attn_v.weight", (h, kv), "w"), (p + "attn_output.weight", (q, h), "w"),
                  (p + "attn_q_norm.weight", (d,), "n"), (p + "attn_k_norm.weight", (d,), "n")]
        else:
            T += [(p + "shortconv.in_proj.weight", (h, 3 * h), "w"),
                  (p + "shortconv.conv.weight", (c["conv"], h), "f32"),
                  (p + "shortconv.out_proj.weight", (h, h), "w")]
        T += [(p + "ffn_gate.weight", (h, f), "w"), (p + "ffn_up.weight", (h, f), "w"),
              (p + "ffn_down.weight", (f, h), "w")]
    return T


def deepseek2(c):
    """DeepSeek-V3 / Kimi K2 (deepseek2): multi-head latent attention (q_a/q_b with a q_lora norm,
    kv_a_mqa = kv_lora + rope, kv_b fused over heads as in the converters of early 2025), the first
    `dense` layers a dense FFN, the rest MoE (router F32, expert-score bias F32, one shared expert).
    The checkpoint's MTP layers are not converted."""
    h, L, E, m = c["hidden"], c["layers"], c["experts"], c["moe_intermediate"]
    H, nope, rope, vd = c["heads"], c["nope"], c["rope"], c["v_dim"]
    ql, kl, f = c["q_lora"], c["kv_lora"], c["intermediate"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("output.weight", (h, c["vocab"]), "w")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "ffn_norm.weight", (h,), "n"),
              (p + "attn_q_a.weight", (h, ql), "w"), (p + "attn_q_a_norm.weight", (ql,), "n"),
              (p + "attn_q_b.weight", (ql, H * (nope + rope)), "w"),
              (p + "attn_kv_a_mqa.weight", (h, kl + rope), "w"), (p + "attn_kv_a_norm.weight", (kl,), "n"),
              (p + "attn_kv_b.weight", (kl, H * (nope + vd)), "w"),
              (p + "attn_output.weight", (H * vd, h), "w")]
        if i < c["dense"]:
            T += [(p + "ffn_gate.weight", (h, f), "w"), (p + "ffn_up.weight", (h, f), "w"),
                  (p + "ffn_down.weight", (f, h), "w")]
        else:
            T += [(p + "ffn_gate_inp.weight", (h, E), "f32"), (p + "exp_probs_b.bias", (E,), "n"),
                  (p + "ffn_gate_exps.weight", (h, m, E), "w"), (p + "ffn_up_exps.weight", (h, m, E), "w"),
                  (p + "ffn_down_exps.weight", (m, h, E), "w"),
                  (p + "ffn_gate_shexp.weight", (h, m), "w"), (p + "ffn_up_shexp.weight", (h, m), "w"),
                  (p + "ffn_down_shexp.weight", (m, h), "w")]
    return T


def mixtral(c):
    """Mixtral 8x7B / 8x22B (llama arch with experts): every layer MoE with 8 experts (router F32),
    no shared expert, no q/k norms; experts as one 3-D tensor per projection (llama.cpp since the
    expert merge of April 2024). The n_expert == 8 rules of llama_tensor_get_type apply: attn_k and
    attn_v at Q8_0 in every K-quant mix, attn_output at Q5_K for Q4_K_M."""
    h, L, E, m = c["hidden"], c["layers"], c["experts"], c["moe_intermediate"]
    q, kv = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("output.weight", (h, c["vocab"]), "w")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "ffn_norm.weight", (h,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
              (p + "attn_v.weight", (h, kv), "w"), (p + "attn_output.weight", (q, h), "w"),
              (p + "ffn_gate_inp.weight", (h, E), "f32"),
              (p + "ffn_gate_exps.weight", (h, m, E), "w"), (p + "ffn_up_exps.weight", (h, m, E), "w"),
              (p + "ffn_down_exps.weight", (m, h, E), "w")]
    return T


def olmo2(c):
    """OLMo 2 (olmo2): post-norm blocks (post_attention_norm and post_ffw_norm, no pre-norms) and
    q/k RMS norms over the whole projection (heads*head_dim and kv_heads*head_dim); untied."""
    h, L, f = c["hidden"], c["layers"], c["intermediate"]
    q, kv = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("output.weight", (h, c["vocab"]), "w")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "post_attention_norm.weight", (h,), "n"), (p + "post_ffw_norm.weight", (h,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
              (p + "attn_v.weight", (h, kv), "w"), (p + "attn_output.weight", (q, h), "w"),
              (p + "attn_q_norm.weight", (q,), "n"), (p + "attn_k_norm.weight", (kv,), "n"),
              (p + "ffn_gate.weight", (h, f), "w"), (p + "ffn_up.weight", (h, f), "w"),
              (p + "ffn_down.weight", (f, h), "w")]
    return T


def gemma3(c):
    h, L = c["hidden"], c["layers"]
    q, kv, f, hd = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["intermediate"], c["head_dim"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + n, (h,), "n") for n in ("attn_norm.weight", "post_attention_norm.weight", "ffn_norm.weight", "post_ffw_norm.weight")]
        T += [(p + "attn_q_norm.weight", (hd,), "n"), (p + "attn_k_norm.weight", (hd,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"), (p + "attn_v.weight", (h, kv), "w"),
              (p + "attn_output.weight", (q, h), "w"),
              (p + "ffn_gate.weight", (h, f), "w"), (p + "ffn_up.weight", (h, f), "w"), (p + "ffn_down.weight", (f, h), "w")]
    return T


def gemma2(c):
    """Gemma 2: as gemma3 without the q/k norms (llama.cpp LLM_ARCH_GEMMA2 tensor list)."""
    return [t for t in gemma3(c) if not t[0].endswith(("attn_q_norm.weight", "attn_k_norm.weight"))]


def gemma3n(c):
    h, L = c["hidden"], c["layers"]
    q, kv, f, hd = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"], c["intermediate"], c["head_dim"]
    A, pd, lr = 4, c["ple"]["dim"], 64  # altup inputs, per-layer dim, laurel rank
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("per_layer_token_embd.weight", (pd * L, c["ple"]["vocab"]), "w"),
         ("per_layer_model_proj.weight", (h, pd * L), "keep"), ("per_layer_proj_norm.weight", (pd,), "n"),
         ("altup_proj.weight", (h, h, A - 1), "keep"), ("altup_unembd_proj.weight", (h, h, A - 1), "keep")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + n, (h,), "n") for n in ("attn_norm.weight", "post_attention_norm.weight", "ffn_norm.weight",
                                            "post_ffw_norm.weight", "altup_correct_scale.weight", "altup_router_norm.weight",
                                            "laurel_post_norm.weight", "post_norm.weight")]
        T += [(p + "attn_q_norm.weight", (hd,), "n"), (p + "attn_k_norm.weight", (hd,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"), (p + "attn_v.weight", (h, kv), "w"),
              (p + "attn_output.weight", (q, h), "w"),
              (p + "ffn_gate.weight", (h, f), "w"), (p + "ffn_up.weight", (h, f), "w"), (p + "ffn_down.weight", (f, h), "w"),
              (p + "altup_correct_coef.weight", (A, A), "keep"), (p + "altup_predict_coef.weight", (A, A * A), "keep"),
              (p + "altup_router.weight", (h, A), "keep"),
              (p + "laurel_l.weight", (h, lr), "keep"), (p + "laurel_r.weight", (lr, h), "keep"),
              (p + "inp_gate.weight", (h, pd), "w"), (p + "proj.weight", (pd, h), "w")]
    return T


def gemma4(c):
    """Gemma 4 (llama.cpp LLM_ARCH_GEMMA4, src/models/gemma4.cpp load_arch_tensors): sliding layers
    of `head_dim` with `kv_heads`, global layers (il % period == offset) of `global_head_dim`
    with `global_kv_heads` and, where `k_eq_v`, no attn_v; optional per-layer embeddings (E2B,
    E4B), double-wide MLP on the KV-shared layers (E2B), and MoE layers (26B-A4B) with a
    dense MLP beside fused gate/up experts and a router (F32, converter) with scales."""
    h, L, f = c["hidden"], c["layers"], c["intermediate"]
    period, off = c["swa_period"], c["swa_offset"]
    first_shared = L - c.get("shared_kv", 0)
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("rope_freqs.weight", (c["global_head_dim"] // 2,), "n")]
    pd = c.get("ple", {}).get("dim", 0)
    if pd:
        T += [("per_layer_token_embd.weight", (pd * L, c["ple"]["vocab"]), "w"),
              ("per_layer_model_proj.weight", (h, pd * L), "keep"), ("per_layer_proj_norm.weight", (pd,), "n")]
    for i in range(L):
        p = f"blk.{i}."
        glob = i % period == off
        hd = c["global_head_dim"] if glob else c["head_dim"]
        nkv = c["global_kv_heads"] if glob and c["k_eq_v"] else c["kv_heads"]
        q, kv = c["heads"] * hd, nkv * hd
        fi = 2 * f if c.get("double_wide") and i >= first_shared else f
        T += [(p + n, (h,), "n") for n in ("attn_norm.weight", "post_attention_norm.weight", "ffn_norm.weight",
                                            "post_ffw_norm.weight")]
        T += [(p + "layer_output_scale.weight", (1,), "n"),
              (p + "attn_q_norm.weight", (hd,), "n"), (p + "attn_k_norm.weight", (hd,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_k.weight", (h, kv), "w"),
              (p + "attn_output.weight", (q, h), "w"),
              (p + "ffn_gate.weight", (h, fi), "w"), (p + "ffn_up.weight", (h, fi), "w"), (p + "ffn_down.weight", (fi, h), "w")]
        if not (glob and c["k_eq_v"]):
            T.append((p + "attn_v.weight", (h, kv), "w"))
        if c.get("experts"):
            E, fe = c["experts"], c["moe_intermediate"]
            T += [(p + "ffn_gate_inp.weight", (h, E), "f32"), (p + "ffn_gate_inp.scale", (h,), "n"),
                  (p + "pre_ffw_norm_2.weight", (h,), "n"), (p + "post_ffw_norm_1.weight", (h,), "n"),
                  (p + "post_ffw_norm_2.weight", (h,), "n"),
                  (p + "ffn_gate_up_exps.weight", (h, 2 * fe, E), "w"), (p + "ffn_down_exps.weight", (fe, h, E), "w"),
                  (p + "ffn_down_exps.scale", (E,), "n")]
        if pd:
            T += [(p + "inp_gate.weight", (h, pd), "w"), (p + "proj.weight", (pd, h), "w"),
                  (p + "post_norm.weight", (h,), "n")]
    return T


def gpt_oss(c):
    h, L, E, f = c["hidden"], c["layers"], c["experts"], c["moe_intermediate"]
    q, kv = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]
    T = [("token_embd.weight", (h, c["vocab"]), "w"), ("output_norm.weight", (h,), "n"),
         ("output.weight", (h, c["vocab"]), "w")]
    for i in range(L):
        p = f"blk.{i}."
        T += [(p + "attn_norm.weight", (h,), "n"), (p + "post_attention_norm.weight", (h,), "n"),
              (p + "attn_q.weight", (h, q), "w"), (p + "attn_q.bias", (q,), "n"),
              (p + "attn_k.weight", (h, kv), "w"), (p + "attn_k.bias", (kv,), "n"),
              (p + "attn_v.weight", (h, kv), "w"), (p + "attn_v.bias", (kv,), "n"),
              (p + "attn_output.weight", (q, h), "w"), (p + "attn_output.bias", (h,), "n"),
              (p + "attn_sinks.weight", (c["heads"],), "n"),
              (p + "ffn_gate_inp.weight", (h, E), "f32"), (p + "ffn_gate_inp.bias", (E,), "n"),
              (p + "ffn_gate_exps.weight", (h, f, E), "exp"), (p + "ffn_gate_exps.bias", (f, E), "n"),
              (p + "ffn_up_exps.weight", (h, f, E), "exp"), (p + "ffn_up_exps.bias", (f, E), "n"),
              (p + "ffn_down_exps.weight", (f, h, E), "exp"), (p + "ffn_down_exps.bias", (h, E), "n")]
    return T


# ----------------------------------------------------------------------------- models
# Config facts from each model's config.json, https://huggingface.co/<model>/blob/main/config.json,
# each checked against a second public copy (the family file's "arch.source" names both).
M = {
    "meta-llama/Llama-3.2-1B-Instruct": dict(b=llama_like, kw=dict(rope_freqs=True), tok="llama3", hidden=2048, layers=16, heads=32, kv_heads=8, head_dim=64, intermediate=8192, vocab=128256, has_output=False),
    "meta-llama/Llama-3.2-3B-Instruct": dict(b=llama_like, kw=dict(rope_freqs=True), tok="llama3", hidden=3072, layers=28, heads=24, kv_heads=8, head_dim=128, intermediate=8192, vocab=128256, has_output=False),
    "meta-llama/Llama-3.1-8B-Instruct": dict(b=llama_like, kw=dict(rope_freqs=True), tok="llama3", hidden=4096, layers=32, heads=32, kv_heads=8, head_dim=128, intermediate=14336, vocab=128256, has_output=True),
    "meta-llama/Llama-3.1-70B-Instruct": dict(b=llama_like, kw=dict(rope_freqs=True), tok="llama3", hidden=8192, layers=80, heads=64, kv_heads=8, head_dim=128, intermediate=28672, vocab=128256, has_output=True, is70b=True),
    # Qwen3 0.6B/1.7B: config ties embeddings, but the released checkpoints carry lm_head
    # and the GGUF converter writes output.weight (bartowski's 1.7B BF16 file is 4.07 GB, see data/SOURCES.md).
    "Qwen/Qwen3-0.6B": dict(b=llama_like, kw=dict(qk_norm=True), tok="qwen", hidden=1024, layers=28, heads=16, kv_heads=8, head_dim=128, intermediate=3072, vocab=151936, has_output=True),
    "Qwen/Qwen3-1.7B": dict(b=llama_like, kw=dict(qk_norm=True), tok="qwen", hidden=2048, layers=28, heads=16, kv_heads=8, head_dim=128, intermediate=6144, vocab=151936, has_output=True),
    "Qwen/Qwen3-4B": dict(b=llama_like, kw=dict(qk_norm=True), tok="qwen", hidden=2560, layers=36, heads=32, kv_heads=8, head_dim=128, intermediate=9728, vocab=151936, has_output=False),
    "Qwen/Qwen3-8B": dict(b=llama_like, kw=dict(qk_norm=True), tok="qwen", hidden=4096, layers=36, heads=32, kv_heads=8, head_dim=128, intermediate=12288, vocab=151936, has_output=True),
    "Qwen/Qwen3-14B": dict(b=llama_like, kw=dict(qk_norm=True), tok="qwen", hidden=5120, layers=40, heads=40, kv_heads=8, head_dim=128, intermediate=17408, vocab=151936, has_output=True),
    "Qwen/Qwen3-32B": dict(b=llama_like, kw=dict(qk_norm=True), tok="qwen", hidden=5120, layers=64, heads=64, kv_heads=8, head_dim=128, intermediate=25600, vocab=151936, has_output=True),
    "Qwen/Qwen3-30B-A3B": dict(b=qwen3_moe, kw={}, tok="qwen", hidden=2048, layers=48, heads=32, kv_heads=4, head_dim=128, intermediate=6144, moe_intermediate=768, experts=128, vocab=151936, has_output=True),
    "meta-llama/Llama-3.3-70B-Instruct": dict(b=llama_like, kw=dict(rope_freqs=True), tok="llama3", hidden=8192, layers=80, heads=64, kv_heads=8, head_dim=128, intermediate=28672, vocab=128256, has_output=True, is70b=True),
    "Qwen/Qwen3-235B-A22B": dict(b=qwen3_moe, kw={}, tok="qwen", hidden=4096, layers=94, heads=64, kv_heads=4, head_dim=128, intermediate=12288, moe_intermediate=1536, experts=128, vocab=151936, has_output=True),
    "Qwen/Qwen3-Coder-30B-A3B-Instruct": dict(b=qwen3_moe, kw={}, tok="qwen", hidden=2048, layers=48, heads=32, kv_heads=4, head_dim=128, intermediate=6144, moe_intermediate=768, experts=128, vocab=151936, has_output=True),
    "mistralai/Mistral-Nemo-Instruct-2407": dict(b=llama_like, kw={}, tok="tekken", hidden=5120, layers=40, heads=32, kv_heads=8, head_dim=128, intermediate=14336, vocab=131072, has_output=True),
    "meta-llama/Llama-2-7b-chat-hf": dict(b=llama_like, kw={}, tok="llama2", hidden=4096, layers=32, heads=32, kv_heads=32, head_dim=128, intermediate=11008, vocab=32000, has_output=True),
    "meta-llama/Llama-2-13b-chat-hf": dict(b=llama_like, kw={}, tok="llama2", hidden=5120, layers=40, heads=40, kv_heads=40, head_dim=128, intermediate=13824, vocab=32000, has_output=True),
    "meta-llama/Llama-2-70b-chat-hf": dict(b=llama_like, kw={}, tok="llama2", hidden=8192, layers=80, heads=64, kv_heads=8, head_dim=128, intermediate=28672, vocab=32000, has_output=True, is70b=True),
    "mistralai/Mistral-7B-Instruct-v0.3": dict(b=llama_like, kw={}, tok="mistral-v3", hidden=4096, layers=32, heads=32, kv_heads=8, head_dim=128, intermediate=14336, vocab=32768, has_output=True),
    "mistralai/Mistral-Small-24B-Instruct-2501": dict(b=llama_like, kw={}, tok="tekken", hidden=5120, layers=40, heads=32, kv_heads=8, head_dim=128, intermediate=32768, vocab=131072, has_output=True),
    "microsoft/phi-4": dict(b=llama_like, kw=dict(fused=True), tok="phi4", hidden=5120, layers=40, heads=40, kv_heads=10, head_dim=128, intermediate=17920, vocab=100352, has_output=True),
    "google/gemma-3-1b-it": dict(b=gemma3, kw={}, tok="gemma", hidden=1152, layers=26, heads=4, kv_heads=1, head_dim=256, intermediate=6912, vocab=262144, has_output=False, vision=0),
    "google/gemma-3-4b-it": dict(b=gemma3, kw={}, tok="gemma", hidden=2560, layers=34, heads=8, kv_heads=4, head_dim=256, intermediate=10240, vocab=262208, has_output=False, vision=1),
    "google/gemma-3-12b-it": dict(b=gemma3, kw={}, tok="gemma", hidden=3840, layers=48, heads=16, kv_heads=8, head_dim=256, intermediate=15360, vocab=262208, has_output=False, vision=1),
    "google/gemma-3-27b-it": dict(b=gemma3, kw={}, tok="gemma", hidden=5376, layers=62, heads=32, kv_heads=16, head_dim=128, intermediate=21504, vocab=262208, has_output=False, vision=1),
    "google/gemma-3n-E2B-it": dict(b=gemma3n, kw={}, tok="gemma", hidden=2048, layers=30, heads=8, kv_heads=2, head_dim=256, intermediate=8192, vocab=262400, has_output=False, ple=dict(vocab=262144, dim=256)),
    # Gemma 4 (config.json text_config of each google/gemma-4-*-it repo).
    "google/gemma-4-31B-it": dict(b=gemma4, kw={}, tok="gemma", hidden=5376, layers=60, heads=32, kv_heads=16, head_dim=256, global_kv_heads=4, global_head_dim=512, k_eq_v=True, swa_period=6, swa_offset=5, intermediate=21504, vocab=262144, has_output=False),
    "google/gemma-4-26B-A4B-it": dict(b=gemma4, kw={}, tok="gemma", hidden=2816, layers=30, heads=16, kv_heads=8, head_dim=256, global_kv_heads=2, global_head_dim=512, k_eq_v=True, swa_period=6, swa_offset=5, intermediate=2112, experts=128, moe_intermediate=704, vocab=262144, has_output=False),
    "google/gemma-4-E4B-it": dict(b=gemma4, kw={}, tok="gemma", hidden=2560, layers=42, heads=8, kv_heads=2, head_dim=256, global_kv_heads=2, global_head_dim=512, k_eq_v=False, swa_period=6, swa_offset=5, shared_kv=18, intermediate=10240, vocab=262144, has_output=False, ple=dict(vocab=262144, dim=256)),
    "google/gemma-4-E2B-it": dict(b=gemma4, kw={}, tok="gemma", hidden=1536, layers=35, heads=8, kv_heads=1, head_dim=256, global_kv_heads=1, global_head_dim=512, k_eq_v=False, swa_period=5, swa_offset=4, shared_kv=20, double_wide=True, intermediate=6144, vocab=262144, has_output=False, ple=dict(vocab=262144, dim=256)),
    "google/gemma-3n-E4B-it": dict(b=gemma3n, kw={}, tok="gemma", hidden=2048, layers=35, heads=8, kv_heads=2, head_dim=256, intermediate=16384, vocab=262400, has_output=False, ple=dict(vocab=262144, dim=256)),
    "openai/gpt-oss-20b": dict(b=gpt_oss, kw={}, tok="o200k", hidden=2880, layers=24, heads=64, kv_heads=8, head_dim=64, moe_intermediate=2880, experts=32, vocab=201088, has_output=True),
    "openai/gpt-oss-120b": dict(b=gpt_oss, kw={}, tok="o200k", hidden=2880, layers=36, heads=64, kv_heads=8, head_dim=64, moe_intermediate=2880, experts=128, vocab=201088, has_output=True),
    # Qwen2.5 Instruct (model_type qwen2: q/k/v projection biases); 0.5B/1.5B/3B tie the embeddings.
    "Qwen/Qwen2.5-0.5B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=896, layers=24, heads=14, kv_heads=2, head_dim=64, intermediate=4864, vocab=151936, has_output=False),
    "Qwen/Qwen2.5-1.5B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=1536, layers=28, heads=12, kv_heads=2, head_dim=128, intermediate=8960, vocab=151936, has_output=False),
    "Qwen/Qwen2.5-3B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=2048, layers=36, heads=16, kv_heads=2, head_dim=128, intermediate=11008, vocab=151936, has_output=False),
    "Qwen/Qwen2.5-7B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=3584, layers=28, heads=28, kv_heads=4, head_dim=128, intermediate=18944, vocab=152064, has_output=True),
    "Qwen/Qwen2.5-14B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=5120, layers=48, heads=40, kv_heads=8, head_dim=128, intermediate=13824, vocab=152064, has_output=True),
    "Qwen/Qwen2.5-32B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=5120, layers=64, heads=40, kv_heads=8, head_dim=128, intermediate=27648, vocab=152064, has_output=True),
    "Qwen/Qwen2.5-72B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=8192, layers=80, heads=64, kv_heads=8, head_dim=128, intermediate=29568, vocab=152064, has_output=True, is70b=True),
    # DeepSeek-R1 distills: the shapes of their bases (R1-Distill-Qwen-1.5B, from Qwen2.5-Math-1.5B, unties the embeddings).
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=1536, layers=28, heads=12, kv_heads=2, head_dim=128, intermediate=8960, vocab=151936, has_output=True),
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=3584, layers=28, heads=28, kv_heads=4, head_dim=128, intermediate=18944, vocab=152064, has_output=True),
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=5120, layers=48, heads=40, kv_heads=8, head_dim=128, intermediate=13824, vocab=152064, has_output=True),
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=5120, layers=64, heads=40, kv_heads=8, head_dim=128, intermediate=27648, vocab=152064, has_output=True),
    "deepseek-ai/DeepSeek-R1-Distill-Llama-8B": dict(b=llama_like, kw=dict(rope_freqs=True), tok="llama3", hidden=4096, layers=32, heads=32, kv_heads=8, head_dim=128, intermediate=14336, vocab=128256, has_output=True),
    "deepseek-ai/DeepSeek-R1-Distill-Llama-70B": dict(b=llama_like, kw=dict(rope_freqs=True), tok="llama3", hidden=8192, layers=80, heads=64, kv_heads=8, head_dim=128, intermediate=28672, vocab=128256, has_output=True, is70b=True),
    # Gemma 2 (tied embeddings, vocabulary 256000, text only) and Gemma 3 270M (text only).
    "google/gemma-2-2b-it": dict(b=gemma2, kw={}, tok="gemma", hidden=2304, layers=26, heads=8, kv_heads=4, head_dim=256, intermediate=9216, vocab=256000, has_output=False),
    "google/gemma-2-9b-it": dict(b=gemma2, kw={}, tok="gemma", hidden=3584, layers=42, heads=16, kv_heads=8, head_dim=256, intermediate=14336, vocab=256000, has_output=False),
    "google/gemma-2-27b-it": dict(b=gemma2, kw={}, tok="gemma", hidden=4608, layers=46, heads=32, kv_heads=16, head_dim=128, intermediate=36864, vocab=256000, has_output=False),
    "google/gemma-3-270m-it": dict(b=gemma3, kw={}, tok="gemma", hidden=640, layers=18, heads=4, kv_heads=1, head_dim=256, intermediate=2048, vocab=262144, has_output=False, vision=0),
    # Qwen2.5-Coder Instruct: the Qwen2.5 shapes of the same size (1.5B ties the embeddings).
    "Qwen/Qwen2.5-Coder-1.5B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=1536, layers=28, heads=12, kv_heads=2, head_dim=128, intermediate=8960, vocab=151936, has_output=False),
    "Qwen/Qwen2.5-Coder-7B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=3584, layers=28, heads=28, kv_heads=4, head_dim=128, intermediate=18944, vocab=152064, has_output=True),
    "Qwen/Qwen2.5-Coder-14B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=5120, layers=48, heads=40, kv_heads=8, head_dim=128, intermediate=13824, vocab=152064, has_output=True),
    "Qwen/Qwen2.5-Coder-32B-Instruct": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=5120, layers=64, heads=40, kv_heads=8, head_dim=128, intermediate=27648, vocab=152064, has_output=True),
    # GLM-4.5 / GLM-4.6 / GLM-4.5-Air (glm4_moe): `layers` counts the MTP (nextn) block too.
    "zai-org/GLM-4.5": dict(b=glm4_moe, kw={}, tok="glm4", hidden=5120, main_layers=92, layers=93, heads=96, kv_heads=8, head_dim=128, intermediate=12288, moe_intermediate=1536, experts=160, dense=3, qk_norm=True, vocab=151552, has_output=True),
    "zai-org/GLM-4.6": dict(b=glm4_moe, kw={}, tok="glm4", hidden=5120, main_layers=92, layers=93, heads=96, kv_heads=8, head_dim=128, intermediate=12288, moe_intermediate=1536, experts=160, dense=3, qk_norm=True, vocab=151552, has_output=True),
    # GLM-4.7: the shapes of GLM-4.6 (config.json).
    "zai-org/GLM-4.7": dict(b=glm4_moe, kw={}, tok="glm4", hidden=5120, main_layers=92, layers=93, heads=96, kv_heads=8, head_dim=128, intermediate=12288, moe_intermediate=1536, experts=160, dense=3, qk_norm=True, vocab=151552, has_output=True),
    # Llama 4 (text_config): Scout all-MoE (step 1), Maverick MoE on odd layers (step 2); 202048-token vocabulary.
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": dict(b=llama4, kw={}, tok="o200k", hidden=5120, layers=48, heads=40, kv_heads=8, head_dim=128, intermediate=16384, moe_intermediate=8192, experts=16, moe_step=1, vocab=202048, has_output=True),
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct": dict(b=llama4, kw={}, tok="o200k", hidden=5120, layers=48, heads=40, kv_heads=8, head_dim=128, intermediate=16384, moe_intermediate=8192, experts=128, moe_step=2, vocab=202048, has_output=True),
    # Qwen3-Next-80B-A3B (qwen3_next): Gated DeltaNet hybrid, full attention every 4th layer; MTP block not counted.
    "Qwen/Qwen3-Next-80B-A3B-Instruct": dict(b=qwen3next, kw={}, tok="qwen", hidden=2048, layers=48, heads=16, kv_heads=2, head_dim=256, moe_intermediate=512, shared=512, experts=512, interval=4, lin_k_heads=16, lin_k_dim=128, lin_v_heads=32, lin_v_dim=128, conv=4, vocab=151936, has_output=True),
    "Qwen/Qwen3-Next-80B-A3B-Thinking": dict(b=qwen3next, kw={}, tok="qwen", hidden=2048, layers=48, heads=16, kv_heads=2, head_dim=256, moe_intermediate=512, shared=512, experts=512, interval=4, lin_k_heads=16, lin_k_dim=128, lin_v_heads=32, lin_v_dim=128, conv=4, vocab=151936, has_output=True),
    # DeepSeek-V3 (validation of the deepseek2 rule against bartowski's V3-0324 prints) and Kimi K2 (same layout:
    # 64 heads, 384 experts, one dense layer, 163840-token vocabulary).
    "deepseek-ai/DeepSeek-V3-0324": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=128, kv_heads=128, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=256, dense=3, vocab=129280, has_output=True),
    "moonshotai/Kimi-K2-Thinking": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=64, kv_heads=64, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=384, dense=1, vocab=163840, has_output=True),
    # Kimi K2.5 / K2.6 (kimi_k25): the text_config is Kimi K2 Thinking's; the vision tower is not counted.
    "moonshotai/Kimi-K2.5": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=64, kv_heads=64, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=384, dense=1, vocab=163840, has_output=True),
    "moonshotai/Kimi-K2.6": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=64, kv_heads=64, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=384, dense=1, vocab=163840, has_output=True),
    "moonshotai/Kimi-K2-Instruct-0905": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=64, kv_heads=64, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=384, dense=1, vocab=163840, has_output=True),
    # MiniMax-M2 (minimax_m2): MTP modules are declared in the config but not counted (228.7 B here, 230B on the card).
    "MiniMaxAI/MiniMax-M2": dict(b=minimax_m2, kw={}, tok="o200k", hidden=3072, layers=62, heads=48, kv_heads=8, head_dim=128, moe_intermediate=1536, experts=256, vocab=200064, has_output=True),
    # MiniMax-M2.5 / M2.7: MiniMax-M2's shapes (M2.7's context is 204,800; sizes do not depend on it).
    "MiniMaxAI/MiniMax-M2.5": dict(b=minimax_m2, kw={}, tok="o200k", hidden=3072, layers=62, heads=48, kv_heads=8, head_dim=128, moe_intermediate=1536, experts=256, vocab=200064, has_output=True),
    "MiniMaxAI/MiniMax-M2.7": dict(b=minimax_m2, kw={}, tok="o200k", hidden=3072, layers=62, heads=48, kv_heads=8, head_dim=128, moe_intermediate=1536, experts=256, vocab=200064, has_output=True),
    "zai-org/GLM-4.5-Air": dict(b=glm4_moe, kw={}, tok="glm4", hidden=4096, main_layers=46, layers=47, heads=96, kv_heads=8, head_dim=128, intermediate=10944, moe_intermediate=1408, experts=128, dense=1, qk_norm=False, vocab=151552, has_output=True),
    # --- added with the catalog extension (each from its config.json on the Hub, see the family files) ---
    # Qwen3 2507 updates: the shapes of the Qwen3 model of the same size (4B ties the embeddings), 262,144 context.
    "Qwen/Qwen3-4B-Instruct-2507": dict(b=llama_like, kw=dict(qk_norm=True), tok="qwen", hidden=2560, layers=36, heads=32, kv_heads=8, head_dim=128, intermediate=9728, vocab=151936, has_output=False),
    "Qwen/Qwen3-4B-Thinking-2507": dict(b=llama_like, kw=dict(qk_norm=True), tok="qwen", hidden=2560, layers=36, heads=32, kv_heads=8, head_dim=128, intermediate=9728, vocab=151936, has_output=False),
    "Qwen/Qwen3-30B-A3B-Instruct-2507": dict(b=qwen3_moe, kw={}, tok="qwen", hidden=2048, layers=48, heads=32, kv_heads=4, head_dim=128, intermediate=6144, moe_intermediate=768, experts=128, vocab=151936, has_output=True),
    "Qwen/Qwen3-30B-A3B-Thinking-2507": dict(b=qwen3_moe, kw={}, tok="qwen", hidden=2048, layers=48, heads=32, kv_heads=4, head_dim=128, intermediate=6144, moe_intermediate=768, experts=128, vocab=151936, has_output=True),
    "Qwen/Qwen3-235B-A22B-Instruct-2507": dict(b=qwen3_moe, kw={}, tok="qwen", hidden=4096, layers=94, heads=64, kv_heads=4, head_dim=128, intermediate=12288, moe_intermediate=1536, experts=128, vocab=151936, has_output=True),
    "Qwen/Qwen3-235B-A22B-Thinking-2507": dict(b=qwen3_moe, kw={}, tok="qwen", hidden=4096, layers=94, heads=64, kv_heads=4, head_dim=128, intermediate=12288, moe_intermediate=1536, experts=128, vocab=151936, has_output=True),
    "Qwen/Qwen3-Coder-480B-A35B-Instruct": dict(b=qwen3_moe, kw={}, tok="qwen", hidden=6144, layers=62, heads=96, kv_heads=8, head_dim=128, intermediate=8192, moe_intermediate=2560, experts=160, vocab=151936, has_output=True),
    # QwQ-32B: the Qwen2.5-32B shapes (qwen2, q/k/v biases).
    "Qwen/QwQ-32B": dict(b=llama_like, kw=dict(qkv_bias=True), tok="qwen", hidden=5120, layers=64, heads=40, kv_heads=8, head_dim=128, intermediate=27648, vocab=152064, has_output=True),
    # Mixtral (8 experts, top-2); the 8x22B base repo is the validation model of the rule.
    "mistralai/Mixtral-8x7B-Instruct-v0.1": dict(b=mixtral, kw={}, tok="llama2", hidden=4096, layers=32, heads=32, kv_heads=8, head_dim=128, moe_intermediate=14336, experts=8, vocab=32000, has_output=True),
    "mistralai/Mixtral-8x22B-Instruct-v0.1": dict(b=mixtral, kw={}, tok="mistral-v3", hidden=6144, layers=56, heads=48, kv_heads=8, head_dim=128, moe_intermediate=16384, experts=8, vocab=32768, has_output=True),
    "mistral-community/Mixtral-8x22B-v0.1": dict(b=mixtral, kw={}, tok="llama2", hidden=6144, layers=56, heads=48, kv_heads=8, head_dim=128, moe_intermediate=16384, experts=8, vocab=32000, has_output=True),
    # Mistral Small 3.1 / 3.2, Devstral Small, Magistral Small 1.2: the Mistral-Small-24B text decoder.
    "mistralai/Mistral-Small-3.2-24B-Instruct-2506": dict(b=llama_like, kw={}, tok="tekken", hidden=5120, layers=40, heads=32, kv_heads=8, head_dim=128, intermediate=32768, vocab=131072, has_output=True),
    "mistralai/Mistral-Small-3.1-24B-Instruct-2503": dict(b=llama_like, kw={}, tok="tekken", hidden=5120, layers=40, heads=32, kv_heads=8, head_dim=128, intermediate=32768, vocab=131072, has_output=True),
    "mistralai/Devstral-Small-2505": dict(b=llama_like, kw={}, tok="tekken", hidden=5120, layers=40, heads=32, kv_heads=8, head_dim=128, intermediate=32768, vocab=131072, has_output=True),
    "mistralai/Devstral-Small-2507": dict(b=llama_like, kw={}, tok="tekken", hidden=5120, layers=40, heads=32, kv_heads=8, head_dim=128, intermediate=32768, vocab=131072, has_output=True),
    "mistralai/Magistral-Small-2509": dict(b=llama_like, kw={}, tok="tekken", hidden=5120, layers=40, heads=32, kv_heads=8, head_dim=128, intermediate=32768, vocab=131072, has_output=True),
    # Granite 4.0 (GGUF metadata of the Ollama library files, granitehybrid.* / granite.*): the hybrids put
    # attention on layers 5, 15, 25, 35 of 40 and Mamba-2 elsewhere; 100352-token vocabulary, tied embeddings.
    "ibm-granite/granite-4.0-h-small": dict(b=granitehybrid, kw={}, tok="phi4", hidden=4096, layers=40, heads=32, kv_heads=8, head_dim=128, attn_layers=(5, 15, 25, 35), d_inner=8192, groups=1, state=128, ssm_heads=128, conv=4, experts=72, moe_intermediate=768, shared=1536, vocab=100352, has_output=False),
    "ibm-granite/granite-4.0-h-tiny": dict(b=granitehybrid, kw={}, tok="phi4", hidden=1536, layers=40, heads=12, kv_heads=4, head_dim=128, attn_layers=(5, 15, 25, 35), d_inner=3072, groups=1, state=128, ssm_heads=48, conv=4, experts=64, moe_intermediate=512, shared=1024, vocab=100352, has_output=False),
    "ibm-granite/granite-4.0-micro": dict(b=llama_like, kw={}, tok="phi4", hidden=2560, layers=40, heads=40, kv_heads=8, head_dim=64, intermediate=8192, vocab=100352, has_output=False),
    # Granite 3.3 (granite: the llama tensor list; tied embeddings).
    "ibm-granite/granite-3.3-8b-instruct": dict(b=llama_like, kw={}, tok="granite3", hidden=4096, layers=40, heads=32, kv_heads=8, head_dim=128, intermediate=12800, vocab=49159, has_output=False),
    "ibm-granite/granite-3.3-2b-instruct": dict(b=llama_like, kw={}, tok="granite3", hidden=2048, layers=40, heads=32, kv_heads=8, head_dim=64, intermediate=8192, vocab=49159, has_output=False),
    # OLMo 2 Instruct (untied; 100,352-token cl100k-style vocabulary as phi-4).
    "allenai/OLMo-2-0325-32B-Instruct": dict(b=olmo2, kw={}, tok="phi4", hidden=5120, layers=64, heads=40, kv_heads=8, head_dim=128, intermediate=27648, vocab=100352, has_output=True),
    "allenai/OLMo-2-1124-13B-Instruct": dict(b=olmo2, kw={}, tok="phi4", hidden=5120, layers=40, heads=40, kv_heads=40, head_dim=128, intermediate=13824, vocab=100352, has_output=True),
    "allenai/OLMo-2-1124-7B-Instruct": dict(b=olmo2, kw={}, tok="phi4", hidden=4096, layers=32, heads=32, kv_heads=32, head_dim=128, intermediate=11008, vocab=100352, has_output=True),
    # SmolLM3-3B (smollm3: the llama tensor list, tied; NoPE on every fourth layer changes no tensor).
    "HuggingFaceTB/SmolLM3-3B": dict(b=llama_like, kw={}, tok="llama3", hidden=2048, layers=36, heads=16, kv_heads=4, head_dim=128, intermediate=11008, vocab=128256, has_output=False),
    # Llama 3 (8,192 context) and Llama 3.1 405B.
    "meta-llama/Meta-Llama-3-8B-Instruct": dict(b=llama_like, kw={}, tok="llama3", hidden=4096, layers=32, heads=32, kv_heads=8, head_dim=128, intermediate=14336, vocab=128256, has_output=True),
    "meta-llama/Meta-Llama-3-70B-Instruct": dict(b=llama_like, kw={}, tok="llama3", hidden=8192, layers=80, heads=64, kv_heads=8, head_dim=128, intermediate=28672, vocab=128256, has_output=True, is70b=True),
    "nvidia/Llama-3.1-Nemotron-70B-Instruct-HF": dict(b=llama_like, kw=dict(rope_freqs=True), tok="llama3", hidden=8192, layers=80, heads=64, kv_heads=8, head_dim=128, intermediate=28672, vocab=128256, has_output=True, is70b=True),
    "meta-llama/Llama-3.1-405B-Instruct": dict(b=llama_like, kw=dict(rope_freqs=True), tok="llama3", hidden=16384, layers=126, heads=128, kv_heads=8, head_dim=128, intermediate=53248, vocab=128256, has_output=True),
    # DeepSeek V3 / V3.1 / R1: the V3-0324 layout (deepseek2 rule, validated on V3-0324).
    # GLM-4.7-Flash (glm4_moe_lite, converted to llama.cpp's deepseek2): multi-head latent attention
    # with 20 heads, 1 dense layer, 64 routed experts + 1 shared; the MTP layer is not converted.
    "zai-org/GLM-4.7-Flash": dict(b=deepseek2, kw={}, tok="glm4", hidden=2048, layers=47, heads=20, kv_heads=20, head_dim=256, nope=192, rope=64, v_dim=256, q_lora=768, kv_lora=512, intermediate=10240, moe_intermediate=1536, experts=64, dense=1, vocab=154880, has_output=True),
    "deepseek-ai/DeepSeek-V3.1-Terminus": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=128, kv_heads=128, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=256, dense=3, vocab=129280, has_output=True),
    "deepseek-ai/DeepSeek-V3.1": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=128, kv_heads=128, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=256, dense=3, vocab=129280, has_output=True),
    "deepseek-ai/DeepSeek-V3": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=128, kv_heads=128, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=256, dense=3, vocab=129280, has_output=True),
    "deepseek-ai/DeepSeek-R1-0528": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=128, kv_heads=128, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=256, dense=3, vocab=129280, has_output=True),
    "deepseek-ai/DeepSeek-R1": dict(b=deepseek2, kw={}, tok="kimi", hidden=7168, layers=61, heads=128, kv_heads=128, head_dim=192, nope=128, rope=64, v_dim=128, q_lora=1536, kv_lora=512, intermediate=18432, moe_intermediate=2048, experts=256, dense=3, vocab=129280, has_output=True),
    # DeepSeek-R1-0528-Qwen3-8B: the Qwen3-8B shapes.
    "deepseek-ai/DeepSeek-R1-0528-Qwen3-8B": dict(b=llama_like, kw=dict(qk_norm=True), tok="qwen", hidden=4096, layers=36, heads=32, kv_heads=8, head_dim=128, intermediate=12288, vocab=151936, has_output=True),
    # Phi-4-mini (phi3, fused qkv and gate_up, tied, 200,064-token o200k vocabulary) and Phi-4-reasoning (the phi-4 shapes).
    "microsoft/Phi-4-mini-instruct": dict(b=llama_like, kw=dict(fused=True), tok="o200k", hidden=3072, layers=32, heads=24, kv_heads=8, head_dim=128, intermediate=8192, vocab=200064, has_output=False),
    "microsoft/Phi-4-mini-reasoning": dict(b=llama_like, kw=dict(fused=True), tok="o200k", hidden=3072, layers=32, heads=24, kv_heads=8, head_dim=128, intermediate=8192, vocab=200064, has_output=False),
    "microsoft/Phi-4-reasoning-plus": dict(b=llama_like, kw=dict(fused=True), tok="phi4", hidden=5120, layers=40, heads=40, kv_heads=10, head_dim=128, intermediate=17920, vocab=100352, has_output=True),
    "microsoft/Phi-4-reasoning": dict(b=llama_like, kw=dict(fused=True), tok="phi4", hidden=5120, layers=40, heads=40, kv_heads=10, head_dim=128, intermediate=17920, vocab=100352, has_output=True),
    # LFM2 (lfm2): 16 layers, attention on 2, 5, 8, 10, 12, 14 (the GGUF head_count_kv arrays), 3-tap
    # short convolutions elsewhere; the FFN width is the config's intermediate_size after
    # block_auto_adjust_ff_dim (2/3, times block_ffn_dim_multiplier, rounded up to block_multiple_of).
    "LiquidAI/LFM2-350M": dict(b=lfm2, kw={}, tok="lfm2", hidden=1024, layers=16, heads=16, kv_heads=8, head_dim=64, intermediate=4608, vocab=65536, has_output=False, attn_layers=[2, 5, 8, 10, 12, 14], conv=3, attn_v_counter=True),
    "LiquidAI/LFM2-1.2B": dict(b=lfm2, kw={}, tok="lfm2", hidden=2048, layers=16, heads=32, kv_heads=8, head_dim=64, intermediate=8192, vocab=65536, has_output=False, attn_layers=[2, 5, 8, 10, 12, 14], conv=3, attn_v_counter=True),
}


def tensors(model):
    c = M[model]
    return c["b"](c, **c["kw"])


def use_more_bits(i, n):
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def layer_of(name):
    return int(name.split(".")[1]) if name.startswith("blk.") else -1


def tensor_type(model, name, shape, kind, ftype, src="BF16", ple_legacy=False, ple_override=None):
    """ggml type of one tensor in a GGUF file of the given ftype."""
    c = M[model]
    if ple_override and name == "per_layer_token_embd.weight":
        return ple_override
    if kind == "n" or kind == "f32":
        return "F32"
    if kind == "keep":
        return src if ftype not in ("F32",) else "F32"
    if ftype in ("F16", "BF16", "F32"):
        if kind == "exp":
            return "MXFP4"  # gpt-oss experts stay MXFP4 in every conversion
        return ftype
    if kind == "exp" and ftype == "MXFP4":
        return "MXFP4"
    if ftype == "MXFP4":
        return "Q8_0"
    base = BASE[ftype]
    t = base
    tied = not c["has_output"]
    ne0 = shape[0]
    is_output = name == "output.weight" or (tied and name == "token_embd.weight") or \
        (tied and name == "per_layer_token_embd.weight" and not ple_legacy)
    if is_output:
        if ne0 % BLOCK[base][0] != 0:
            return "Q8_0"
        return base if base == "Q8_0" else "Q6_K"
    if name in ("token_embd.weight", "per_layer_token_embd.weight"):
        t = base
    elif ("attn_v.weight" in name or "attn_qkv.weight" in name) and ftype in ("Q4_K_M", "Q5_K_M"):
        n, i = c["layers"], layer_of(name)
        if c.get("attn_v_counter"):
            # llama.cpp counts attn_v tensors (i_attention_wv of n_attention_wv), not layers: a
            # hybrid with attention on a few layers picks among those.
            n, i = len(c["attn_layers"]), sorted(c["attn_layers"]).index(i)
        if use_more_bits(i, n):
            t = "Q6_K"
        if c.get("is70b") and t in ("Q3_K", "Q4_K"):
            t = "Q5_K"
    elif "ffn_down" in name and ftype in ("Q4_K_M", "Q5_K_M"):
        if use_more_bits(layer_of(name), c["layers"]):
            t = "Q6_K"
    if c.get("experts") == 8 and ftype not in ("Q8_0",):
        # llama_tensor_get_type, n_expert == 8 (Mixtral): attn_k/attn_v to Q8_0 in every
        # K-quant mix; attn_output to Q5_K for Q4_K_M (and the lower mixes).
        if "attn_v.weight" in name or "attn_k.weight" in name:
            t = "Q8_0"
        elif "attn_output.weight" in name and ftype == "Q4_K_M":
            t = "Q5_K"
    if ne0 % BLOCK[t][0] != 0:
        t = FALLBACK[t]
        if ne0 % BLOCK[t][0] != 0:
            t = "F16"
    return t


def gguf_bytes(model, ftype, src="BF16", ple_legacy=False, detail=False, ple_override=None):
    total, info = 0, 0
    by_type = {}
    embd = None
    for name, shape, kind in tensors(model):
        t = tensor_type(model, name, shape, kind, ftype, src, ple_legacy, ple_override)
        b = nbytes(t, shape)
        total += pad32(b)
        info += len(name) + 8 + 4 + 8 * len(shape) + 4 + 8
        by_type[t] = by_type.get(t, 0) + b
        if name == "token_embd.weight":
            embd = t
    meta = META_BYTES[M[model]["tok"]]
    out = total + info + meta
    if detail:
        return out, embd, by_type
    return out


def embd_type(model, ftype, ple_legacy=False):
    for name, shape, kind in tensors(model):
        if name == "token_embd.weight":
            return tensor_type(model, name, shape, kind, ftype, ple_legacy=ple_legacy)


def ple_type(model, ftype, ple_legacy=False):
    for name, shape, kind in tensors(model):
        if name == "per_layer_token_embd.weight":
            return tensor_type(model, name, shape, kind, ftype, ple_legacy=ple_legacy)


# ----------------------------------------------------------------------------- parameter counts
def siglip_params(hidden_text):
    """SigLIP-so400m/14 @ 896 px vision tower + Gemma 3 projector (as in the HF gemma-3 4b/12b/27b repos)."""
    d, ff, L, patch, npos = 1152, 4304, 27, 14, (896 // 14) ** 2
    per_layer = 4 * (d * d + d) + (d * ff + ff) + (ff * d + d) + 4 * d
    emb = patch * patch * 3 * d + d + npos * d + 2 * d
    proj = d * hidden_text + d
    return L * per_layer + emb + proj


def params(model, with_lm_head=None, hf_biases=True):
    """Parameter count of the HF checkpoint's tensors (embedding counted once when tied)."""
    n = 0
    for name, shape, kind in tensors(model):
        if name == "output.weight" and with_lm_head is False:
            continue
        n += math.prod(shape)
    if "rope_freqs.weight" in [t[0] for t in tensors(model)]:
        n -= M[model]["head_dim"] // 2  # derived buffer, not in the HF checkpoint
    if M[model].get("vision"):
        n += siglip_params(M[model]["hidden"])
    return n


def st_bf16(model):
    return 2 * params(model)


def st_fp8(model):
    """Qwen3 FP8: 1 byte per linear weight + F32 scale per 128x128 block; the rest BF16.

    The FP8 repos store lm_head even for tied models (Qwen3-4B-FP8: shard 2 = 778 MB =
    one 151936 x 2560 BF16 matrix), so a tied model gets one extra BF16 vocab matrix."""
    b = 0
    c = M[model]
    if not c["has_output"]:
        b += 2 * c["hidden"] * c["vocab"]
    for name, shape, kind in tensors(model):
        n = math.prod(shape)
        if kind in ("w",) and name not in ("token_embd.weight", "output.weight"):
            blocks = math.ceil(shape[0] / 128) * math.ceil(shape[1] / 128) * (shape[2] if len(shape) > 2 else 1)
            b += n + 4 * blocks
        else:
            b += 2 * n
    return b


def st_mlx(model, bits, group=64):
    """MLX's own format (rule "st-mlx"): mlx_lm.convert quantizes every Linear and Embedding
    weight (mlx_lm/utils.py, quantize_model -> mlx.nn.quantize, default group size 64) to
    `bits` packed into uint32 with one scale and one bias per group in the model's dtype
    (bf16): bits + 32/group bits per weight. Norms stay bf16; a tied embedding is stored once."""
    b = 0
    for name, shape, kind in tensors(model):
        n = math.prod(shape)
        if kind == "w" and len(shape) >= 2:
            b += n * bits // 8 + (n // group) * 4
        else:
            b += 2 * n
    return b


def st_awq(model):
    b = 0
    for name, shape, kind in tensors(model):
        n = math.prod(shape)
        if kind == "w" and name not in ("token_embd.weight", "output.weight"):
            b += n // 2 + (n // 128) * 2 + n // 256
        else:
            b += 2 * n
    return b


# ----------------------------------------------------------------------------- validation
# Sizes known from public listings; each one's URL is in the "source" of its catalog row
# (cross-checks without a catalog row are described in data/SOURCES.md).
KNOWN = [  # (model, ftype, bytes, label) -- published (decimal GB as printed) or exact
    ("meta-llama/Llama-3.2-1B-Instruct", "F16", 2.48e9, "bartowski 2.48GB"),
    ("meta-llama/Llama-3.2-1B-Instruct", "Q8_0", 1.32e9, "bartowski 1.32GB"),
    ("meta-llama/Llama-3.2-1B-Instruct", "Q6_K", 1.02e9, "bartowski 1.02GB"),
    ("meta-llama/Llama-3.2-1B-Instruct", "Q5_K_M", 0.91e9, "bartowski 0.91GB"),
    ("meta-llama/Llama-3.2-1B-Instruct", "Q4_K_M", 0.81e9, "bartowski 0.81GB"),
    ("meta-llama/Llama-3.2-3B-Instruct", "Q4_K_M", 2019377440, "Hub file listing, exact"),
    ("meta-llama/Llama-3.2-3B-Instruct", "Q8_0", 3421899296, "Hub file listing, exact"),
    ("meta-llama/Llama-3.1-8B-Instruct", "Q8_0", 8.54e9, "bartowski 8.54GB"),
    ("meta-llama/Llama-3.1-8B-Instruct", "Q6_K", 6.60e9, "bartowski 6.60GB"),
    ("meta-llama/Llama-3.1-8B-Instruct", "Q4_K_M", 4.92e9, "bartowski 4.92GB"),
    ("meta-llama/Llama-3.1-70B-Instruct", "Q4_K_M", 42.52e9, "bartowski 42.52GB"),
    ("meta-llama/Llama-3.1-70B-Instruct", "Q5_K_M", 49.95e9, "bartowski 49.95GB"),
    ("meta-llama/Llama-3.1-70B-Instruct", "Q6_K", 57.89e9, "bartowski 57.89GB"),
    ("Qwen/Qwen3-1.7B", "BF16", 4.07e9, "bartowski 4.07GB"),
    ("Qwen/Qwen3-1.7B", "Q8_0", 2.17e9, "bartowski 2.17GB"),
    ("Qwen/Qwen3-1.7B", "Q6_K", 1.67e9, "bartowski 1.67GB"),
    ("Qwen/Qwen3-1.7B", "Q5_K_M", 1.47e9, "bartowski 1.47GB"),
    ("Qwen/Qwen3-4B", "Q4_K_M", 2.50e9, "bartowski 2.50GB"),
    ("Qwen/Qwen3-4B", "Q5_K_M", 2.89e9, "bartowski 2.89GB"),
    ("Qwen/Qwen3-8B", "Q6_K", 6.73e9, "bartowski 6.73GB"),
    ("Qwen/Qwen3-14B", "Q4_K_M", 9.00e9, "bartowski 9.00GB"),
    ("Qwen/Qwen3-14B", "Q5_K_M", 10.51e9, "bartowski 10.51GB"),
    ("Qwen/Qwen3-14B", "Q6_K", 12.12e9, "bartowski 12.12GB"),
    ("Qwen/Qwen3-32B", "Q8_0", 34.82e9, "bartowski 34.82GB"),
    ("Qwen/Qwen3-30B-A3B", "Q5_K_M", 21.74e9, "bartowski 21.74GB"),
    ("Qwen/Qwen3-30B-A3B", "Q6_K", 25.10e9, "bartowski 25.10GB"),
    ("Qwen/Qwen3-30B-A3B", "BF16", 61.10e9, "bartowski 61.10GB"),
    ("mistralai/Mistral-7B-Instruct-v0.3", "Q4_K_M", 4.37e9, "bartowski 4.37GB"),
    ("mistralai/Mistral-7B-Instruct-v0.3", "Q5_K_M", 5.13e9, "bartowski 5.13GB"),
    ("mistralai/Mistral-7B-Instruct-v0.3", "Q8_0", 7.70e9, "bartowski 7.70GB"),
    ("microsoft/phi-4", "Q4_K_M", 9.05e9, "bartowski 9.05GB (qkv fused; see note)"),
    ("microsoft/phi-4", "Q8_0", 15.58e9, "bartowski 15.58GB"),
    ("google/gemma-3-1b-it", "Q4_K_M", 0.81e9, "bartowski QAT 0.81GB"),
    ("google/gemma-3-1b-it", "Q8_0", 1.07e9, "bartowski QAT 1.07GB"),
    ("google/gemma-3-4b-it", "Q4_K_M", 2.49e9, "bartowski 2.49GB"),
    ("google/gemma-3-4b-it", "Q5_K_M", 2.83e9, "bartowski 2.83GB"),
    ("google/gemma-3-4b-it", "Q6_K", 3.19e9, "bartowski 3.19GB"),
    ("google/gemma-3-4b-it", "BF16", 7.77e9, "bartowski 7.77GB"),
    ("google/gemma-3-27b-it", "Q4_K_M", 16.55e9, "bartowski QAT 16.55GB"),
    ("google/gemma-3-27b-it", "Q5_K_M", 19.27e9, "bartowski QAT 19.27GB"),
    ("google/gemma-3-27b-it", "Q8_0", 28.71e9, "bartowski QAT 28.71GB"),
    ("google/gemma-3n-E2B-it", "Q4_K_M", 3026881888, "unsloth file, exact bytes"),
    ("google/gemma-4-E2B-it", "Q4_K_M", 3106736256, "unsloth file, exact bytes"),
    ("google/gemma-4-26B-A4B-it", "Q4_K_M", 16.796e9, "ggml-org 16.796 GB (TensorSharp table)"),
    ("google/gemma-4-26B-A4B-it", "Q8_0", 26.860e9, "ggml-org 26.860 GB (TensorSharp table)"),
    ("google/gemma-4-31B-it", "Q4_K_M", 18.687e9, "ggml-org 18.687 GB (TensorSharp table)"),
    ("google/gemma-4-31B-it", "Q8_0", 32.636e9, "ggml-org 32.636 GB (TensorSharp table)"),
    ("google/gemma-4-E4B-it", "Q8_0", 8.031e9, "ggml-org 8.031 GB (TensorSharp table)"),
    ("google/gemma-4-E2B-it", "Q8_0", 5048345984, "unsloth file, exact bytes (unsloth recipe, -1.7 %)"),
    ("zai-org/GLM-4.7", "Q8_0", round(354.79 * 2**30), "AesSedai 354.79 GiB (llama.cpp, tensor data)"),
    ("openai/gpt-oss-20b", "MXFP4", 12.1e9, "bartowski MXFP4 12.1GB"),
    ("openai/gpt-oss-120b", "MXFP4", 59.02 * 2**30, "ggml-org llama-bench 59.02 GiB (tensor data)"),
    ("openai/gpt-oss-120b", "F16", 60.87 * 2**30, "unsloth llama-bench 60.87 GiB (tensor data)"),
    ("openai/gpt-oss-20b", "F16", 13.8e9, "unsloth F16 13.8 GB"),
    ("google/gemma-2-9b-it", "Q8_0", 9.82e9, "bartowski 9.82GB"),
    ("zai-org/GLM-4.5-Air", "BF16", 205.811 * 2**30, "ubergarm BF16 205.811 GiB (tensor data)"),
    ("zai-org/GLM-4.5-Air", "Q8_0", 109.381 * 2**30, "ubergarm Q8_0 109.381 GiB (tensor data)"),
    ("deepseek-ai/DeepSeek-V3-0324", "Q8_0", 713.29e9, "bartowski 713.29GB"),
    ("zai-org/GLM-4.7-Flash", "Q8_0", 31.84e9, "bartowski 31.84GB"),
    ("zai-org/GLM-4.7-Flash", "BF16", 59.91e9, "bartowski BF16 GGUF 59.91GB"),
    ("deepseek-ai/DeepSeek-V3-0324", "Q4_K_M", 404.43e9, "bartowski 404.43GB"),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Q4_K_M", 48.5e9, "steampunque Qwen3-Coder-Next Q4_K_M 48.5e9 (same shapes)"),
    ("mistral-community/Mixtral-8x22B-v0.1", "Q4_K_M", 85.58e9, "bartowski 85.58GB (mixtral rule)"),
    ("mistral-community/Mixtral-8x22B-v0.1", "Q5_K_M", 99.96e9, "bartowski 99.96GB (mixtral rule)"),
] + [  # bartowski model-card file tables (Qwen2.5, Qwen2.5-Coder, Gemma 2, Llama 3 / 3.1 / 3.2)
    (m, ft, gb * 1e9, f"bartowski {gb:.2f}GB") for m, rows in [
        ("Qwen/Qwen2.5-72B-Instruct", [("Q8_0", 77.26), ("Q6_K", 64.35), ("Q5_K_M", 54.45), ("Q4_K_M", 47.42)]),
        ("Qwen/Qwen2.5-32B-Instruct", [("Q8_0", 34.82), ("Q6_K", 26.89), ("Q5_K_M", 23.26), ("Q4_K_M", 19.85)]),
        ("Qwen/Qwen2.5-14B-Instruct", [("Q8_0", 15.70), ("Q6_K", 12.12), ("Q5_K_M", 10.51), ("Q4_K_M", 8.99)]),
        ("Qwen/Qwen2.5-Coder-7B-Instruct", [("Q8_0", 8.10), ("Q6_K", 6.25), ("Q5_K_M", 5.44), ("Q4_K_M", 4.68)]),
        ("google/gemma-2-27b-it", [("Q8_0", 28.94), ("Q6_K", 22.34), ("Q5_K_M", 19.41), ("Q4_K_M", 16.65)]),
        ("google/gemma-2-9b-it", [("Q6_K", 7.59), ("Q5_K_M", 6.65), ("Q4_K_M", 5.76)]),
        ("google/gemma-2-2b-it", [("Q8_0", 2.78), ("Q6_K", 2.15), ("Q5_K_M", 1.92), ("Q4_K_M", 1.71)]),
        ("meta-llama/Meta-Llama-3-8B-Instruct", [("Q8_0", 8.54), ("Q6_K", 6.59), ("Q5_K_M", 5.73), ("Q4_K_M", 4.92)]),
        ("meta-llama/Llama-3.1-8B-Instruct", [("Q5_K_M", 5.73)]),
        ("meta-llama/Llama-3.2-3B-Instruct", [("Q6_K", 2.64), ("Q5_K_M", 2.32)]),
    ] for ft, gb in rows
]

PARAM_CHECKS = [  # (model, expected parameter count, label)
    ("meta-llama/Llama-3.1-8B-Instruct", 8030261248, "index.json total_size / 2"),
    ("meta-llama/Llama-3.1-70B-Instruct", 70553706496, "index.json total_size / 2"),
    ("meta-llama/Llama-3.2-3B-Instruct", 3212749824, "PEFT trainable params"),
    ("google/gemma-3-4b-it", 4300079472, "HF model-page count incl. vision, recalled not re-read (text part 3880263168)"),
    ("openai/gpt-oss-20b", 20.91e9, "llama.cpp '20.91 B'"),
    ("openai/gpt-oss-120b", 116.83e9, "llama.cpp '116.83 B'"),
    ("Qwen/Qwen3-30B-A3B", 30532122624, "llama.cpp '30.53 B'"),
]


def validate():
    rows = []
    for model, ft, known, label in KNOWN:
        got = gguf_bytes(model, ft, ple_override=ple_override_for(model, ft))
        rows.append((model, ft, label, known, got))
    print(f"{'model':42} {'ftype':7} {'known':>15} {'computed':>15} {'resid MB':>9} {'resid %':>8}  source")
    for model, ft, label, known, got in rows:
        r = got - known
        print(f"{model:42} {ft:7} {int(known):15d} {got:15d} {r/1e6:9.1f} {100*r/known:8.2f}  {label}")
    print("\nparameter counts (tensor list of this script vs. an independent figure):")
    for model, exp, label in PARAM_CHECKS:
        n = params(model, with_lm_head=None)
        if M[model].get("vision"):
            pass
        print(f"  {model:42} {n:15d} vs {int(exp):15d} ({label}) diff {n-exp:+.0f}")
    print("\nsafetensors checks:")
    print(f"  Qwen3-4B-FP8 computed {st_fp8('Qwen/Qwen3-4B')} vs published 4.41 GB + 778 MB = 5188000000")
    print(f"  Qwen3-8B BF16 computed {st_bf16('Qwen/Qwen3-8B')} vs published 16.4 GB")
    print(f"  Qwen3-32B BF16 computed {st_bf16('Qwen/Qwen3-32B')} vs published 65.5 GB (repo incl. tokenizer)")
    print(f"  Llama-3.1-8B BF16 computed {st_bf16('meta-llama/Llama-3.1-8B-Instruct')} vs index total_size 16060522496")
    print("\ngemma-3n E2B Q4_K_M, per_layer_token_embd type variants (known 3026881888):")
    print(f"  ple at Q5_K (calibrated rule): {gguf_bytes('google/gemma-3n-E2B-it', 'Q4_K_M', ple_override='Q5_K')}")
    for legacy in (False, True):
        print(f"  ple_legacy={legacy}: {gguf_bytes('google/gemma-3n-E2B-it', 'Q4_K_M', ple_legacy=legacy)}"
              f"  (ple type {ple_type('google/gemma-3n-E2B-it', 'Q4_K_M', legacy)})")


def _ext():
    """What the catalog extension (Qwen3 2507 … Phi-4-reasoning) needs computed."""
    dense = ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M")
    big = ("Q8_0", "Q4_K_M")
    w = []
    for m, fts in [
        ("Qwen/Qwen3-4B-Instruct-2507", dense), ("Qwen/Qwen3-4B-Thinking-2507", dense),
        ("Qwen/Qwen3-30B-A3B-Instruct-2507", dense), ("Qwen/Qwen3-30B-A3B-Thinking-2507", dense),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507", big), ("Qwen/Qwen3-235B-A22B-Thinking-2507", big),
        ("Qwen/Qwen3-Coder-480B-A35B-Instruct", big), ("Qwen/QwQ-32B", dense),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", dense), ("mistralai/Mixtral-8x22B-Instruct-v0.1", ("Q8_0", "Q5_K_M", "Q4_K_M")),
        ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", dense), ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", dense),
        ("mistralai/Devstral-Small-2505", dense), ("mistralai/Devstral-Small-2507", dense), ("mistralai/Magistral-Small-2509", dense),
        ("ibm-granite/granite-3.3-8b-instruct", dense), ("ibm-granite/granite-3.3-2b-instruct", dense),
        ("ibm-granite/granite-4.0-h-small", dense), ("ibm-granite/granite-4.0-h-tiny", dense), ("ibm-granite/granite-4.0-micro", dense),
        ("allenai/OLMo-2-0325-32B-Instruct", dense), ("allenai/OLMo-2-1124-13B-Instruct", dense), ("allenai/OLMo-2-1124-7B-Instruct", dense),
        ("HuggingFaceTB/SmolLM3-3B", dense), ("meta-llama/Meta-Llama-3-8B-Instruct", dense), ("meta-llama/Meta-Llama-3-70B-Instruct", dense),
        ("meta-llama/Llama-3.1-405B-Instruct", big), ("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", dense),
        ("deepseek-ai/DeepSeek-V3.1-Terminus", big), ("deepseek-ai/DeepSeek-V3.1", big), ("deepseek-ai/DeepSeek-V3", big),
        ("deepseek-ai/DeepSeek-R1-0528", big), ("deepseek-ai/DeepSeek-R1", big),
        ("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", dense),
        ("microsoft/Phi-4-mini-instruct", dense), ("microsoft/Phi-4-mini-reasoning", dense),
        ("microsoft/Phi-4-reasoning-plus", dense), ("microsoft/Phi-4-reasoning", dense),
        ("LiquidAI/LFM2-350M", ("F16", "Q8_0", "Q4_K_M")), ("LiquidAI/LFM2-1.2B", ("F16", "Q8_0", "Q4_K_M")),
        ("google/gemma-4-31B-it", dense), ("google/gemma-4-26B-A4B-it", dense),
        ("google/gemma-4-E4B-it", dense), ("google/gemma-4-E2B-it", dense),
    ]:
        w += [(m, "gguf", ft) for ft in fts]
    for m in ("Qwen/Qwen3-4B-Instruct-2507", "Qwen/Qwen3-4B-Thinking-2507", "Qwen/Qwen3-30B-A3B-Instruct-2507",
              "Qwen/Qwen3-30B-A3B-Thinking-2507", "Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-235B-A22B-Thinking-2507",
              "Qwen/Qwen3-Coder-480B-A35B-Instruct"):
        w.append((m, "st-fp8", None))
    w.append(("Qwen/QwQ-32B", "st-awq", None))
    return w

EXTENSION = _ext()


# what the catalog needs computed: (model, kind, ftype or None)
WANTED = [
    ("google/gemma-3-1b-it", "gguf", "F16"),
    ("google/gemma-3-12b-it", "gguf", "BF16"), ("google/gemma-3-12b-it", "gguf", "Q8_0"),
    ("google/gemma-3-12b-it", "gguf", "Q6_K"), ("google/gemma-3-12b-it", "gguf", "Q5_K_M"),
    ("google/gemma-3-12b-it", "gguf", "Q4_K_M"),
    ("google/gemma-3n-E2B-it", "gguf", "F16"), ("google/gemma-3n-E2B-it", "gguf", "Q8_0"),
    ("google/gemma-3n-E2B-it", "gguf", "Q6_K"), ("google/gemma-3n-E2B-it", "gguf", "Q5_K_M"),
    ("google/gemma-3n-E4B-it", "gguf", "F16"), ("google/gemma-3n-E4B-it", "gguf", "Q8_0"),
    ("google/gemma-3n-E4B-it", "gguf", "Q6_K"), ("google/gemma-3n-E4B-it", "gguf", "Q5_K_M"),
    ("google/gemma-3n-E4B-it", "gguf", "Q4_K_M"),
    ("meta-llama/Llama-3.2-3B-Instruct", "gguf", "F16"), ("meta-llama/Llama-3.2-3B-Instruct", "gguf", "Q6_K"),
    ("meta-llama/Llama-3.2-3B-Instruct", "gguf", "Q5_K_M"),
    ("meta-llama/Llama-3.1-8B-Instruct", "gguf", "Q5_K_M"),
    ("Qwen/Qwen3-0.6B", "gguf", "BF16"), ("Qwen/Qwen3-0.6B", "gguf", "Q8_0"), ("Qwen/Qwen3-0.6B", "gguf", "Q6_K"),
    ("Qwen/Qwen3-0.6B", "gguf", "Q5_K_M"), ("Qwen/Qwen3-0.6B", "gguf", "Q4_K_M"),
    ("Qwen/Qwen3-1.7B", "gguf", "Q4_K_M"),
    ("Qwen/Qwen3-8B", "gguf", "Q5_K_M"), ("Qwen/Qwen3-8B", "gguf", "Q4_K_M"),
    ("Qwen/Qwen3-32B", "gguf", "Q6_K"), ("Qwen/Qwen3-32B", "gguf", "Q5_K_M"), ("Qwen/Qwen3-32B", "gguf", "Q4_K_M"),
    ("Qwen/Qwen3-30B-A3B", "gguf", "Q4_K_M"),
    ("mistralai/Mistral-Small-24B-Instruct-2501", "gguf", "BF16"),
    ("mistralai/Mistral-Small-24B-Instruct-2501", "gguf", "Q8_0"),
    ("mistralai/Mistral-Small-24B-Instruct-2501", "gguf", "Q6_K"),
    ("mistralai/Mistral-Small-24B-Instruct-2501", "gguf", "Q5_K_M"),
    ("mistralai/Mistral-Small-24B-Instruct-2501", "gguf", "Q4_K_M"),
] + [(m, "gguf", ft) for m in ("meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-13b-chat-hf",
                               "meta-llama/Llama-2-70b-chat-hf") for ft in ("Q8_0", "Q4_K_M")] + [(m, "st-bf16", None) for m in M if M[m]["b"] not in (llama4, qwen3next, deepseek2)] + \
    [(m, "st-fp8", None) for m in ("Qwen/Qwen3-0.6B", "Qwen/Qwen3-1.7B", "Qwen/Qwen3-4B", "Qwen/Qwen3-8B",
                                    "Qwen/Qwen3-14B", "Qwen/Qwen3-32B", "Qwen/Qwen3-30B-A3B")] + \
    [(m, "gguf", ft) for m in ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "meta-llama/Llama-4-Scout-17B-16E-Instruct")
     for ft in ("Q8_0", "Q4_K_M")] + \
    [(m, "gguf", ft) for m in ("Qwen/Qwen3-Next-80B-A3B-Thinking", "Qwen/Qwen3-Next-80B-A3B-Instruct")
     for ft in ("Q8_0", "Q4_K_M")] + \
    [(m, "gguf", ft) for m in ("moonshotai/Kimi-K2-Thinking", "moonshotai/Kimi-K2-Instruct-0905", "moonshotai/Kimi-K2.5",
                               "moonshotai/Kimi-K2.6") for ft in ("Q8_0", "Q4_K_M")] + \
    [(m, "gguf", ft) for m in ("MiniMaxAI/MiniMax-M2", "MiniMaxAI/MiniMax-M2.5", "MiniMaxAI/MiniMax-M2.7") for ft in ("Q8_0", "Q4_K_M")] + \
    [(m, "st-fp8", None) for m in ("MiniMaxAI/MiniMax-M2", "MiniMaxAI/MiniMax-M2.5", "MiniMaxAI/MiniMax-M2.7")] + \
    [("zai-org/GLM-4.7-Flash", "gguf", ft) for ft in ("Q8_0", "Q6_K", "Q4_K_M")] + [("zai-org/GLM-4.7-Flash", "st-bf16", None)] + \
    [(m, "gguf", ft) for m in ("zai-org/GLM-4.7", "zai-org/GLM-4.6", "zai-org/GLM-4.5", "zai-org/GLM-4.5-Air") for ft in ("Q8_0", "Q4_K_M")] + \
    [(m, "st-awq", None) for m in ("Qwen/Qwen3-4B", "Qwen/Qwen3-8B", "Qwen/Qwen3-14B", "Qwen/Qwen3-32B")] + \
    [(m, "gguf", ft) for m in M if m.startswith(("Qwen/Qwen2.5-", "deepseek-ai/DeepSeek-R1-Distill-"))
     for ft in ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M")] + \
    [("meta-llama/Llama-3.3-70B-Instruct", "gguf", ft) for ft in ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M")] + \
    [(m, "gguf", ft) for m in ("Qwen/Qwen3-235B-A22B", "Qwen/Qwen3-Coder-30B-A3B-Instruct")
     for ft in ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M")] + \
    [(m, "st-fp8", None) for m in ("Qwen/Qwen3-235B-A22B", "Qwen/Qwen3-Coder-30B-A3B-Instruct")] + \
    [("mistralai/Mistral-Nemo-Instruct-2407", "gguf", ft) for ft in ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M")] + \
    [(m, "gguf", ft) for m in ("google/gemma-2-2b-it", "google/gemma-2-9b-it", "google/gemma-2-27b-it",
                               "google/gemma-3-270m-it") for ft in ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M")] + \
    [(m, "gguf", ft) for m in M if m.startswith("Qwen/Qwen2.5-Coder-") for ft in ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M")] + \
    EXTENSION




def ple_override_for(model, ft):
    """Per-layer-embedding table type of the published Q4_K_M files (calibrated, not llama.cpp's
    plain rule): gemma-3n E2B (unsloth, 3,026,881,888 B) and Gemma 4 E2B (unsloth, 3,106,736,256 B)
    both fit `per_layer_token_embd` at Q5_K (+17 MB, +5 MB) and neither the plain rule's Q6_K
    (+284 MB, +316 MB) nor Q4_K; every E2B/E4B Q4_K_M of both families is computed the same way."""
    if model.startswith(("google/gemma-3n", "google/gemma-4-E")) and ft == "Q4_K_M":
        return "Q5_K"
    return None


def compute_all():
    out = []
    for model, kind, ft in WANTED:
        if kind == "gguf":
            # gemma-3n Q4_K_M: the only real file (unsloth E2B Q4_K_M, 3,026,881,888 B) fits
            # per_layer_token_embd at ~5.5 bpw (Q5_K-sized) and not the plain rule (Q6_K:
            # +284 MB, or Q4_K: -235 MB); E4B Q4_K_M is computed the same way (calibrated).
            ovr = ple_override_for(model, ft)
            b, embd, _ = gguf_bytes(model, ft, detail=True, ple_override=ovr)
            out.append(dict(model=model, kind=kind, ftype=ft, bytes=b, embd_type=embd,
                            ple_type=ovr or ple_type(model, ft)))
        elif kind == "st-bf16":
            out.append(dict(model=model, kind=kind, ftype="BF16", bytes=st_bf16(model), params=params(model)))
        elif kind == "st-fp8":
            out.append(dict(model=model, kind=kind, ftype="FP8", bytes=st_fp8(model)))
        elif kind == "st-awq":
            out.append(dict(model=model, kind=kind, ftype="AWQ", bytes=st_awq(model)))
    return out


if __name__ == "__main__":
    if "--validate" in sys.argv:
        validate()
    elif "--json" in sys.argv:
        print(json.dumps(compute_all(), indent=1))
    else:
        for r in compute_all():
            print(f"{r['model']:44} {r['kind']:8} {r['ftype']:7} {r['bytes']:16d}  {r.get('embd_type','')}")
