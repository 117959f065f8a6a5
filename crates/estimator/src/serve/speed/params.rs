//! Parameters by group (attention, dense FFN, routed and shared experts, router, embedding
//! and output), counted from the architecture: what a decode step reads.

use super::*;

/// Parameters of a model by what one decode step does with them (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ParamCounts {
    /// Token embedding (and gemma-3n's per-layer embeddings): a lookup, not read.
    pub embedding: u64,
    /// Output head (`vocab × hidden`), read every token (also when tied to the embedding).
    pub output: u64,
    /// Attention (or recurrent-mixer) projections of every layer.
    pub attention: u64,
    /// Dense FFN layers.
    pub dense_ffn: u64,
    /// Routed experts, all of them.
    pub routed: u64,
    /// Routed experts a token goes through (`top-k` per MoE layer).
    pub routed_active: u64,
    /// Shared experts (every token).
    pub shared: u64,
    /// Routers.
    pub router: u64,
}

impl ParamCounts {
    /// Every parameter (embedding and output counted apart even when tied).
    pub fn total(&self) -> u64 {
        [
            self.output,
            self.attention,
            self.dense_ffn,
            self.routed,
            self.shared,
            self.router,
        ]
        .iter()
        .fold(self.embedding, |s, x| s.saturating_add(*x))
    }

    /// Parameters a token goes through, embedding included (the vendors' "active" count).
    pub fn active(&self) -> u64 {
        (self.total() - self.routed.min(self.total())).saturating_add(self.routed_active)
    }
}

/// Attention projections of one layer.
fn attention_params(a: &Arch) -> u64 {
    let h = a.hidden;
    let heads = u64::from(a.heads);
    match a.mla {
        Some(m) => {
            // Multi-head latent attention (DeepSeek-V2/V3): q (through its low-rank factor if
            // any), the shared kv_a down-projection with the rotary key, kv_b up to per-head
            // keys (nope part) and values, and the output.
            let qk = a.head_dim;
            let nope = qk.saturating_sub(m.qk_rope_head_dim);
            let v = m.v_head_dim.unwrap_or(nope);
            // Saturating throughout: the dimensions are bounded one by one
            // ([`Arch::absurd`]), their products are not.
            let mul = |xs: &[u64]| xs.iter().fold(1u64, |p, x| p.saturating_mul(*x));
            let q = match m.q_lora_rank {
                Some(r) => mul(&[h, r]).saturating_add(mul(&[r, heads, qk])),
                None => mul(&[h, heads, qk]),
            };
            let kv_a = mul(&[h, m.kv_lora_rank.saturating_add(m.qk_rope_head_dim)]);
            let kv_b = mul(&[m.kv_lora_rank, heads, nope.saturating_add(v)]);
            [kv_a, kv_b, mul(&[heads, v, h])]
                .iter()
                .fold(q, |s, x| s.saturating_add(*x))
        }
        None => {
            let q = heads.saturating_mul(a.head_dim);
            let kv = u64::from(a.kv_heads).saturating_mul(a.head_dim);
            2u64.saturating_mul(h).saturating_mul(q.saturating_add(kv))
        }
    }
}

/// Count the parameters of `a` by group (see the module docs). Saturating: a hostile header
/// gives a large number, never a panic.
pub fn param_counts(a: &Arch) -> ParamCounts {
    if let Some(b) = &a.blocks {
        return block_counts(a, b);
    }
    if let Some(e) = crate::catalog::encoder(a) {
        return encoder_counts(a, e);
    }
    let h = a.hidden;
    let layers = u64::from(a.layers);
    let embedding = a.vocab.saturating_mul(h).saturating_add(
        a.ple
            .map_or(0, |p| p.vocab.saturating_mul(layers).saturating_mul(p.dim)),
    );
    let mixer = match &a.recurrent {
        Some(r) => {
            // Recurrent layers: in-projections to q, k (k_heads × k_dim each), v and the gate
            // (v_heads × v_dim each) plus two per-head scalars, the out-projection, and the
            // short convolution over q, k, v.
            let kdim = r.k_heads.saturating_mul(r.k_dim);
            let vdim = r.v_heads.saturating_mul(r.v_dim);
            let two = |x: u64| x.saturating_mul(2);
            // LFM2's gated short convolution (`shortconv`): an in-projection to three streams of
            // `hidden`, a depthwise convolution of `conv_kernel` taps, the out-projection
            // (transformers' `Lfm2ShortConv`: in_proj hidden → 3·hidden, conv hidden ×
            // L_cache, out_proj hidden → hidden).
            let rec = if r.kind == "shortconv" {
                h.saturating_mul(h)
                    .saturating_mul(4)
                    .saturating_add(h.saturating_mul(r.conv_kernel))
            } else {
                h.saturating_mul(
                    two(kdim)
                        .saturating_add(two(vdim))
                        .saturating_add(two(r.v_heads)),
                )
                .saturating_add(vdim.saturating_mul(h))
                .saturating_add(two(kdim).saturating_add(vdim).saturating_mul(r.conv_kernel))
            };
            let att = r.attention_layers.len() as u64;
            att.saturating_mul(attention_params(a))
                .saturating_add(layers.saturating_sub(att).saturating_mul(rec))
        }
        None => layers.saturating_mul(attention_params(a)),
    };
    let ffn = |width: u64| 3u64.saturating_mul(h).saturating_mul(width);
    let mut p = ParamCounts {
        embedding,
        output: a.vocab.saturating_mul(h),
        attention: mixer,
        ..ParamCounts::default()
    };
    if a.experts <= 1 {
        p.dense_ffn = layers.saturating_mul(ffn(a.intermediate));
        return p;
    }
    let layout = a.moe.unwrap_or_default();
    let dense_first = u64::from(layout.dense_layers).min(layers);
    let moe_layers = (layers - dense_first) / u64::from(layout.step.max(1));
    let e = u64::from(a.experts);
    let k = u64::from(a.experts_active).min(e);
    let expert = ffn(a.moe_intermediate.unwrap_or(a.intermediate));
    p.dense_ffn = (layers - moe_layers).saturating_mul(ffn(a.intermediate));
    p.routed = moe_layers.saturating_mul(e).saturating_mul(expert);
    p.routed_active = moe_layers.saturating_mul(k).saturating_mul(expert);
    p.shared = moe_layers.saturating_mul(ffn(layout.shared_ffn));
    p.router = moe_layers.saturating_mul(h).saturating_mul(e);
    p
}

/// Share of the weights on the cards that one decode step reads. `held_bytes`: the weight bytes
/// on the cards; `expert_bits`: bits per weight of the format's expert tensors, capped at the
/// file's average (gpt-oss stores its experts in MXFP4 and the rest at 8–16 bits, so skipping an
/// expert saves less than the file's average; `INFINITY` = the average: a GGUF recipe's mix).
/// `embedding_on_card`: the engine keeps the token embedding with the weights (vLLM,
/// transformers) rather than in host memory (llama.cpp and Ollama with GGUF); a lookup reads one
/// row of it, so it is held but not read. A tied output reuses the embedding matrix, which is
/// then read in full.
pub fn active_share(
    v: &Variant,
    held_bytes: f64,
    expert_bits: f64,
    embedding_on_card: bool,
) -> f64 {
    let p = param_counts(&v.arch);
    let lookup_only = embedding_on_card && !v.arch.tied_embeddings;
    let held = p.total() - if lookup_only { 0 } else { p.embedding };
    if held == 0 || held_bytes <= 0.0 {
        return 1.0;
    }
    let avg = held_bytes / held as f64;
    let per_expert_param = (expert_bits / 8.0).min(avg);
    let skipped = (p.routed - p.routed_active) as f64 * per_expert_param
        + if lookup_only {
            p.embedding as f64 * avg
        } else {
            0.0
        };
    (1.0 - skipped / held_bytes).clamp(0.0, 1.0)
}

/// [`param_counts`] of a model whose layers each hold one block (Nemotron-H), counted per
/// block kind as the tensor list lays them out (`catalog::tensors`, `tests/size_rule.rs` holds
/// the two within 1 %; computed here, not listed, so that the page's estimate does not carry
/// the tensor list): a Mamba-2 mixer (in-projection to z, x, B, C and dt, the short
/// convolution, the out-projection), attention, a non-gated MLP (up, down), and the MoE block:
/// routed experts of `moe_intermediate` over the hidden or latent width (a token goes through
/// `experts_active` of them), the shared expert, the latent projections and the router.
fn block_counts(a: &Arch, b: &crate::catalog::Blocks) -> ParamCounts {
    use crate::catalog::Block;
    let h = a.hidden;
    let mul = |xs: &[u64]| xs.iter().fold(1u64, |p, x| p.saturating_mul(*x));
    let n = |k: Block| u64::from(b.count(k));
    let mamba = a.recurrent.as_ref().map_or(0, |r| {
        let inner = r.v_heads.saturating_mul(r.v_dim);
        let gs = r.k_heads.saturating_mul(r.k_dim).saturating_mul(2);
        let conv = inner.saturating_add(gs);
        mul(&[
            h,
            inner
                .saturating_mul(2)
                .saturating_add(gs)
                .saturating_add(r.v_heads),
        ])
        .saturating_add(mul(&[conv, r.conv_kernel]))
        .saturating_add(mul(&[inner, h]))
    });
    let shape = a.moe.unwrap_or_default();
    let width = if shape.latent > 0 { shape.latent } else { h };
    let e = u64::from(a.experts.max(1));
    let k = u64::from(a.experts_active).min(e);
    let expert = mul(&[2, width, a.moe_intermediate.unwrap_or(a.intermediate)]);
    let latent = if shape.latent > 0 {
        mul(&[2, h, width])
    } else {
        0
    };
    let moe = n(Block::Moe);
    ParamCounts {
        embedding: mul(&[a.vocab, h]),
        output: mul(&[a.vocab, h]),
        attention: mul(&[n(Block::Mamba2), mamba])
            .saturating_add(mul(&[n(Block::Attention), attention_params(a)])),
        dense_ffn: mul(&[n(Block::Mlp), 2, h, a.intermediate]),
        routed: mul(&[moe, e, expert]),
        routed_active: mul(&[moe, k, expert]),
        shared: mul(&[moe, mul(&[2, h, shape.shared_ffn]).saturating_add(latent)]),
        router: mul(&[moe, h.saturating_add(1), e]),
    }
}

/// An encoder ([`crate::catalog::Encoder`]): the token (and position) embeddings, attention,
/// a GELU FFN of two matrices or a gated one of three, and no output matrix (the vector is
/// pooled from the hidden states).
fn encoder_counts(a: &Arch, e: crate::catalog::Encoder) -> ParamCounts {
    let h = a.hidden;
    let layers = u64::from(a.layers);
    let positions = e.position_rows(a);
    let matrices: u64 = if e.gated { 3 } else { 2 };
    ParamCounts {
        embedding: a.vocab.saturating_add(positions).saturating_mul(h),
        attention: layers.saturating_mul(attention_params(a)),
        dense_ffn: layers
            .saturating_mul(matrices)
            .saturating_mul(h)
            .saturating_mul(a.intermediate),
        ..ParamCounts::default()
    }
}
