//! vLLM's and SGLang's KV pool at startup, on the binding (fullest) card, and what would start
//! when it cannot hold one request: the longest `--max-model-len` (vLLM's own
//! `estimate_max_model_len`) and the smallest `--gpu-memory-utilization`.

use crate::catalog::engine::Engine;
use crate::catalog::Arch;
use crate::estimate::*;
use crate::inputs::Inputs;
use crate::serve::placement::*;
use crate::serve::sizing::Sizing;
use crate::terms::kv;
use crate::units::Bytes;

/// vLLM's KV pool on the binding (fullest) card: what is left of its budget after the weights
/// and the overhead there, for the layers and KV heads that card holds.
pub(crate) fn vllm_pool(i: &Inputs, a: &Arch, s: &Sizing, per_card: &[CardUse]) -> kv::VllmPool {
    let c = fullest(per_card);
    let k = c.index as usize;
    let fixed = c.bytes.saturating_sub(s.kv.per_card[k]);
    let ctx = u64::from(i.ctx);
    // vLLM pages tokens over its layer groups; SGLang keeps one token pool over every layer
    // that owns a KV cache.
    let slots = if i.engine == Engine::Sglang {
        u64::from(a.kv_owning_layers())
    } else {
        kv::vllm_layer_slots(a)
    };
    let cards = per_card.len() as u64;
    let (slots, heads) = match s.layout {
        Sharing::Tensor => (slots, kv::heads_per_card(a, cards)),
        Sharing::Single => (slots, u64::from(a.kv_heads)),
        // The card's stage: its share of the layers, with one of `tp` cards' KV heads.
        Sharing::Layer => (
            (s.stages[stage_of(s, k)] * slots).div_ceil(u64::from(a.layers.max(1))),
            kv::heads_per_card(a, u64::from(s.split.0.max(1))),
        ),
    };
    let block = if i.engine == Engine::Sglang {
        1
    } else {
        kv::VLLM_BLOCK
    };
    let per_request = per_request_at(i, a, s, cards, k, ctx);
    kv::vllm_pool(
        a,
        c.budget,
        fixed,
        slots,
        heads,
        i.kv,
        ctx,
        block,
        per_request,
    )
}

/// Card `k`'s pipeline stage (layer split: `tp` cards per stage).
fn stage_of(s: &Sizing, k: usize) -> usize {
    let tp = s.split.0.max(1) as usize;
    (k / tp).min(s.stages.len().saturating_sub(1))
}

/// The KV cache one request of `ctx` tokens needs on card `k` of `cards`: vLLM's
/// `max_memory_usage_bytes` over the layers that card holds (whole 16-token blocks, sliding
/// layers at the window plus the prefill step they are admitted with, [`kv::paged`]).
fn per_request_at(i: &Inputs, a: &Arch, s: &Sizing, cards: u64, k: usize, ctx: u64) -> Bytes {
    let step = admission_step(i);
    match s.layout {
        Sharing::Tensor => kv::paged(a, ctx, 1, i.kv, cards, step),
        Sharing::Single => kv::paged(a, ctx, 1, i.kv, 1, step),
        Sharing::Layer => kv::paged(a, ctx, 1, i.kv, u64::from(s.split.0.max(1)), step)
            .split(&s.stages)[stage_of(s, k)],
    }
}

/// vLLM's layer groups need one page size ([`kv::vllm_block_sizes`]); SGLang pages single
/// tokens per pool and has no such rule.
pub(crate) fn vllm_pages(i: &Inputs, a: &Arch, s: &Sizing) -> Result<(u64, u64), String> {
    if i.engine == Engine::Vllm {
        kv::vllm_block_sizes(a, i.kv, u64::from(s.split.0.max(1)))
    } else {
        Ok((kv::VLLM_BLOCK, kv::VLLM_BLOCK))
    }
}

/// What would start when the pool cannot hold one request of the context (`None` when it can).
///
/// - `max_model_len`: the longest context whose one request fits the pool there is, found as
///   vLLM finds it when it refuses (`estimate_max_model_len` in vllm/v1/core/kv_cache_utils.py:
///   a binary search over `max_model_len` for `max_memory_usage_bytes ≤ available memory`,
///   printed as "the estimated maximum model length is N"); `None` when not even one token fits.
/// - `util`: the smallest `--gpu-memory-utilization` (SGLang: `--mem-fraction-static`), in
///   hundredths, at which every card holds its weights, the overhead, the other models and one
///   request of the context: `(fixed + one request) / capacity` (SGLang: of the capacity less the
///   reserve), the largest over the cards; `None` when that exceeds what the card can give (1,
///   or with `reserve=` the share left free).
pub(crate) fn startup_fix(
    i: &Inputs,
    a: &Arch,
    s: &Sizing,
    per_card: &[CardUse],
    pool: &kv::VllmPool,
) -> Option<StartupFix> {
    if pool.per_request <= pool.bytes && pool.bytes > Bytes::ZERO {
        return None;
    }
    let cards = per_card.len() as u64;
    let k = fullest(per_card).index as usize;
    let fits = |len: u64| per_request_at(i, a, s, cards, k, len) <= pool.bytes;
    let max_model_len = if pool.bytes > Bytes::ZERO && fits(1) {
        let (mut lo, mut hi) = (1u64, u64::from(i.ctx));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    } else {
        None
    };
    let util = util_that_starts(i, a, s, per_card);
    let margin = util.filter(|_| i.engine == Engine::Vllm).and_then(|u| {
        let c = per_card.iter().min_by_key(|c| c.capacity)?;
        Some(c.capacity.saturating_sub(c.capacity.scale(u)))
    });
    Some(StartupFix {
        max_model_len,
        util,
        margin,
    })
}

/// The smallest utilization in hundredths that holds one request on every card (see
/// [`startup_fix`]).
fn util_that_starts(i: &Inputs, a: &Arch, s: &Sizing, per_card: &[CardUse]) -> Option<f64> {
    let reserve = Bytes::from_gib(i.reserved());
    let cards = per_card.len() as u64;
    let ctx = u64::from(i.ctx);
    let mut need = 0.0f64;
    for c in per_card {
        let k = c.index as usize;
        let fixed = c.bytes.saturating_sub(s.kv.per_card[k]);
        let wanted = fixed + per_request_at(i, a, s, cards, k, ctx);
        let base = match i.engine {
            Engine::Sglang => c.capacity.saturating_sub(reserve),
            _ => c.capacity,
        };
        need = need.max(wanted.0 as f64 / base.0.max(1) as f64);
    }
    let util = (need * 100.0 - 1e-9).ceil() / 100.0;
    // vLLM with a reserve: the share left free on the smallest card is the most it may take
    // (`vllm_free_memory`); otherwise the whole card.
    let most = match i.engine {
        Engine::Vllm if reserve > Bytes::ZERO => per_card
            .iter()
            .map(|c| c.capacity.saturating_sub(reserve).0 as f64 / c.capacity.0.max(1) as f64)
            .fold(1.0, f64::min),
        _ => 1.0,
    };
    (util <= most + 1e-9).then_some(util)
}
