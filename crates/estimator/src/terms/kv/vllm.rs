//! vLLM's paged cache (vllm/v1/core/kv_cache_utils.py), which SGLang's pool shares: blocks,
//! page sizes made equal across layer kinds, layer slots and the pool at startup.

use super::cells::{layer_cells, pad, state_bytes};
use crate::catalog::engine::KvDtype;
use crate::catalog::Arch;
use crate::units::Bytes;
use serde::Serialize;

/// vLLM block size (tokens per block), its default.
pub const VLLM_BLOCK: u64 = 16;

/// vLLM's tokens per block of a global and of a sliding-window layer on one of `tp` cards.
///
/// vLLM's allocator hands out pages of one size only. When the two kinds of layers have pages
/// of different sizes (Gemma 4: global layers with their own head size and KV heads,
/// [`Arch::global_attn`]), it keeps the larger page and multiplies the block size of the
/// smaller kind by the ratio, so that kind holds more tokens per page; when the larger page is
/// not a multiple of the smaller it raises `NotImplementedError` at startup, the `Err` here
/// (`unify_kv_cache_spec_page_size` in vllm/v1/core/kv_cache_utils.py at
/// <https://github.com/vllm-project/vllm/blob/001cabc1be16a59a70d720ed61a13b678c060a18/vllm/v1/core/kv_cache_utils.py>;
/// Gemma 4 declares its global layers with `global_head_dim` and, with `attention_k_eq_v`,
/// `num_global_key_value_heads`, and caches K and V for both kinds: `Gemma4DecoderLayer` in
/// vllm/model_executor/models/gemma4.py at the same commit). The printed token count uses
/// the smallest block size, the larger page's 16 ([`vllm_pool`]).
pub fn vllm_block_sizes(arch: &Arch, dtype: KvDtype, tp: u64) -> Result<(u64, u64), String> {
    let (g, s) = arch.kv_layer_split();
    let (cell_g, cell_s) = layer_cells(arch, dtype, dtype, tp, true);
    if g == 0 || s == 0 || cell_g == cell_s || cell_g == 0 || cell_s == 0 {
        return Ok((VLLM_BLOCK, VLLM_BLOCK));
    }
    let (page_g, page_s) = (VLLM_BLOCK * cell_g, VLLM_BLOCK * cell_s);
    let (large, small) = (page_g.max(page_s), page_g.min(page_s));
    if !large.is_multiple_of(small) {
        return Err(format!(
            "vLLM cannot give its layer groups one page size: a global layer's 16-token page is {} and a sliding layer's {}, and the larger is not a multiple of the smaller (unify_kv_cache_spec_page_size raises NotImplementedError at startup)",
            Bytes(page_g),
            Bytes(page_s)
        ));
    }
    Ok((VLLM_BLOCK * (large / page_g), VLLM_BLOCK * (large / page_s)))
}

/// vLLM paged cache for `seqs` requests of `ctx` tokens, on one of `tp` tensor-parallel cards:
/// each kind of layer in whole blocks of its own size ([`vllm_block_sizes`]; 16 tokens unless
/// the page sizes had to be made equal). A sliding layer holds the window plus one block per
/// request, and one request more: what vLLM admits a request against while it prefills a step
/// of `batched` tokens (`--max-num-batched-tokens`, `serve::placement::default_batched_tokens`): the window
/// less one plus the step, at most the context, in whole blocks plus one (the window need not
/// start on a block: `SlidingWindowSpec.max_memory_usage_bytes` in
/// vllm/v1/kv_cache_interface.py, which vLLM's startup check holds one request to). A step is
/// shared by the requests it prefills, so `seqs` requests hold one step, not `seqs`. `batched`
/// 0: the window plus one block only (SGLang). Returns bytes **per card**.
pub fn paged(arch: &Arch, ctx: u64, seqs: u64, dtype: KvDtype, tp: u64, batched: u64) -> Bytes {
    let (cell_g, cell_s) = layer_cells(arch, dtype, dtype, tp, true);
    let (g, s) = arch.kv_layer_split();
    let (block_g, block_s) = vllm_block_sizes(arch, dtype, tp).unwrap_or((VLLM_BLOCK, VLLM_BLOCK));
    let tokens_g = pad(ctx, block_g);
    let (tokens_s, step) = match arch.swa {
        Some(w) => {
            let window = pad(ctx.min(w.window as u64 + block_s), block_s);
            let held = (w.window as u64).saturating_sub(1).saturating_add(batched);
            let admitted = pad(ctx.min(held), block_s).saturating_add(block_s);
            let step = if batched > 0 && seqs > 0 {
                admitted.saturating_sub(window)
            } else {
                0
            };
            (window, step)
        }
        None => (pad(ctx, block_s), 0),
    };
    let sliding = |tokens: u64| tokens.saturating_mul(s as u64).saturating_mul(cell_s);
    let per_seq = tokens_g
        .saturating_mul(g as u64)
        .saturating_mul(cell_g)
        .saturating_add(sliding(tokens_s));
    // The recurrent state's heads are split over the cards like the attention heads.
    let state = state_bytes(arch, 2) / tp.max(1);
    Bytes(
        per_seq
            .saturating_add(state)
            .saturating_mul(seqs)
            .saturating_add(sliding(step)),
    )
}

/// What vLLM's KV pool holds on the binding (fullest) card: vLLM takes `util × capacity`,
/// subtracts the weights, the profiled peak and non-torch memory (the overhead term), and cuts
/// the rest into 16-token blocks; it prints `GPU KV cache size: N tokens` and `Maximum
/// concurrency for M tokens per request: X×` at startup (`vllm/v1/core/kv_cache_utils.py`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct VllmPool {
    /// Bytes left for the KV cache on the binding card.
    pub bytes: Bytes,
    /// `⌊bytes / (block bytes × layer slots)⌋ × 16`, the token count vLLM prints.
    pub tokens: u64,
    /// Bytes one request of `ctx` tokens needs on that card (sliding layers capped at their
    /// window).
    pub per_request: Bytes,
    /// `tokens / ctx`, the concurrency vLLM prints.
    pub max_concurrency: f64,
}

/// Layer slots vLLM pages a token over. All layers alike: the layers. Global and sliding layers
/// together (the hybrid allocator): each kind is cut into groups of `min(global, sliding)`
/// layers, the last group of a kind padded, so `group × (⌈global/group⌉ + ⌈sliding/group⌉)`
/// (gemma-3-27b: 10 global + 52 sliding → 7 groups of 10 = 70 slots, which reproduces its log's
/// 36,560 tokens from 19.53 GiB).
///
/// The group is the fewer layers of one kind, or the more when those are under 1.5 × the fewer
/// (`_get_kv_cache_groups_uniform_page_size` in vllm/v1/core/kv_cache_utils.py at
/// <https://github.com/vllm-project/vllm/blob/001cabc1be16a59a70d720ed61a13b678c060a18/vllm/v1/core/kv_cache_utils.py>:
/// 12 sliding + 13 global pads to 13 + 13, not 12 + 24).
pub fn vllm_layer_slots(arch: &Arch) -> u64 {
    let (g, s) = arch.kv_layer_split();
    let (g, s) = (u64::from(g), u64::from(s));
    if g == 0 || s == 0 {
        return g + s;
    }
    let (few, many) = (g.min(s), g.max(s));
    let group = if 2 * many < 3 * few { many } else { few };
    group * (g.div_ceil(group) + s.div_ceil(group))
}

/// vLLM's pool on a card with `budget`, `fixed` bytes of weights and overhead on it, `slots`
/// layer slots ([`vllm_layer_slots`], scaled to the card's layers), `heads` KV heads per card,
/// one request of `ctx` tokens needing `per_request` bytes there.
/// `block` = tokens per page (vLLM 16; SGLang 1: it counts single tokens).
#[allow(clippy::too_many_arguments)]
pub fn vllm_pool(
    arch: &Arch,
    budget: Bytes,
    fixed: Bytes,
    slots: u64,
    heads: u64,
    dtype: KvDtype,
    ctx: u64,
    block: u64,
    per_request: Bytes,
) -> VllmPool {
    let bytes = budget.saturating_sub(fixed);
    // Global layers of their own shape: every layer slot takes the wider page (vLLM makes the
    // page sizes of its KV groups equal).
    let tp = (u64::from(arch.kv_heads) / heads.max(1)).max(1);
    let (cell_g, cell_s) = layer_cells(arch, dtype, dtype, tp, true);
    let page = block.saturating_mul(cell_g.max(cell_s));
    let per_block_all = page.saturating_mul(slots.max(1));
    let tokens = (bytes.get() / per_block_all.max(1)).saturating_mul(block);
    VllmPool {
        bytes,
        tokens,
        per_request,
        max_concurrency: tokens as f64 / ctx.max(1) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    fn arch(id: &str) -> Arch {
        catalog().variant(id).expect("catalog model").1.arch.clone()
    }

    /// vLLM's page unification as a table: (model, tp, K/V type) → tokens per block of a
    /// global and of a sliding layer. Gemma 4 31B: sliding 16 KV heads × 256 = 8 KiB per token
    /// and layer in BF16, global 4 × 512 = 4 KiB: the sliding page is twice the global one, so
    /// global layers hold 32 tokens per page. Gemma 4 E4B: the global page is the larger (2 ×
    /// 512 vs 2 × 256), so the sliding layers hold 32. Under 8-way tensor parallelism the 31B's
    /// 4 global KV heads are replicated (1 per card, 512 wide) and its sliding ones split to 2
    /// (512 wide): equal pages, 16 each. Gemma 3 has one shape: 16 each.
    #[test]
    fn vllm_unifies_page_sizes_by_block_size() {
        let rows: &[(&str, u64, KvDtype, (u64, u64))] = &[
            (
                "google/gemma-4-31B-it",
                1,
                KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
                (32, 16),
            ),
            (
                "google/gemma-4-31B-it",
                2,
                KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
                (32, 16),
            ),
            (
                "google/gemma-4-31B-it",
                8,
                KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
                (16, 16),
            ),
            ("google/gemma-4-31B-it", 1, KvDtype::Fp8, (32, 16)),
            (
                "google/gemma-4-26B-A4B-it",
                1,
                KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
                (32, 16),
            ),
            (
                "google/gemma-4-E4B-it",
                1,
                KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
                (16, 32),
            ),
            (
                "google/gemma-4-E2B-it",
                1,
                KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
                (16, 32),
            ),
            (
                "google/gemma-3-27b-it",
                1,
                KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
                (16, 16),
            ),
        ];
        for &(id, tp, dtype, want) in rows {
            let a = arch(id);
            assert_eq!(
                vllm_block_sizes(&a, dtype, tp),
                Ok(want),
                "{id} tp {tp} {dtype}"
            );
        }
        // A global head of 384 against sliding 256, same heads: pages 1.5 × apart, which vLLM
        // cannot unify: it does not start.
        let mut a = arch("google/gemma-4-E4B-it");
        if let Some(g) = a.global_attn.as_mut() {
            g.head_dim = 384;
        }
        let e = vllm_block_sizes(&a, KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16), 1)
            .expect_err("not a multiple");
        assert!(e.contains("NotImplementedError"), "{e}");
    }

    /// One request's blocks: global layers of Gemma 4 31B in pages of 32 tokens, so 8,200
    /// tokens take 257 × 32 = 8,224 slots there; the sliding layers stop at the 1,024 window
    /// plus one 16-token block.
    #[test]
    fn a_request_pads_each_kind_to_its_own_block() {
        let a = arch("google/gemma-4-31B-it");
        let (g, s) = a.kv_layer_split();
        let (cell_g, cell_s) = layer_cells(
            &a,
            KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
            KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
            1,
            true,
        );
        let want = 8224 * u64::from(g) * cell_g + 1040 * u64::from(s) * cell_s;
        assert_eq!(
            paged(
                &a,
                8200,
                1,
                KvDtype::Ggml(crate::catalog::quant::GgmlType::BF16),
                1,
                0
            ),
            Bytes(want)
        );
    }

    /// The layer group of vLLM's hybrid allocator: the fewer layers of a kind, or the more
    /// when under 1.5 × the fewer (Gemma 3 27B: 10 global + 52 sliding → groups of 10, 7
    /// groups; 12 + 13 → groups of 13, 2 groups).
    #[test]
    fn vllm_layer_groups() {
        let a = arch("google/gemma-3-27b-it");
        assert_eq!(vllm_layer_slots(&a), 70);
        let mut b = a.clone();
        b.layers = 25;
        b.global_override = Some(13);
        assert_eq!(b.kv_layer_split(), (13, 12));
        assert_eq!(vllm_layer_slots(&b), 26);
        b.global_override = Some(8);
        assert_eq!(b.kv_layer_split(), (8, 17));
        assert_eq!(vllm_layer_slots(&b), 8 * (1 + 3));
    }
}
