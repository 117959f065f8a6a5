//! KV cache.
//!
//! Per layer that owns a cache: `cells_l × (row(type_k, n_kv × head_dim) + row(type_v, n_kv ×
//! head_dim))`. Global layers grow with context; sliding-window layers plateau at the window
//! (only the global layers grow); layers that reuse another layer's cache
//! (gemma-3n KV sharing) add nothing. The concurrency slots multiply it.
//!
//! Three allocators are modelled:
//! * [`llama`] — llama.cpp / Ollama, exactly as llama.cpp's allocator (src/llama-kv-cache.cpp) sizes it:
//!   `n_ctx_pad = pad(n_ctx, 256)`; unified or one sequence → 1 stream of `n_ctx_pad` cells;
//!   split → `n_seq` streams of `pad(⌊n_ctx_pad / n_seq⌋, 256)` cells; SWA layers hold
//!   `pad(min(cells, n_swa × (unified ? n_seq : 1) + n_ubatch_eff), 256)` cells unless
//!   `--swa-full`; quantized K/V types apply to the SWA cache too. Exact on every architecture of
//!   the catalog (regression table in `tests/llama_kv.rs`).
//! * [`paged`] — vLLM's paged cache: blocks of 16 tokens, a request at `ctx` holds
//!   `⌈ctx/16⌉` blocks per global layer and about `⌈min(ctx, window + 16)/16⌉` per sliding layer;
//!   with tensor parallelism each card holds `max(1, kv_heads / tp)` heads (KV heads are
//!   replicated when tp > kv_heads). Domain: vLLM ≥ 0.6 defaults (block size 16).
//! * [`dense`] — transformers' dynamic cache: exactly `ctx` tokens per sequence, sliding layers
//!   capped at the window. Validated against the Qwen3 speed benchmark (measurement table).

use crate::catalog::Arch;
use crate::engine::{Engine, KvDtype};
use crate::inputs::Inputs;
use crate::units::Bytes;
use serde::Serialize;

/// Where the formula comes from.
pub const PROVENANCE: &str = "Per layer that owns a cache: cells × (K row + V row); global layers grow with the context, sliding-window layers plateau at the window, layers that share another layer's cache add nothing; × concurrency slots. llama.cpp: its allocator's cells, 256-cell padding, streams and SWA rule (src/llama-kv-cache.cpp), byte-exact in tests/llama_kv.rs. vLLM: 16-token blocks, KV heads split or replicated under tensor parallelism (vllm/v1/core/kv_cache_utils.py). transformers: exactly the tokens of the dynamic cache (tests/measurements.rs).";

/// Where the formula was checked.
pub const DOMAIN: &str = "llama.cpp and Ollama: every architecture of the catalog (global, sliding-window, shared-KV layers; f16, q8_0, q4_0 and the other ggml cache types), byte-exact. vLLM 0.19: dense and sliding-window models on one card and under tensor parallelism (12 startup logs within 5 %). SGLang: one startup log. transformers: Qwen3 BF16 at 8K–32K tokens (within 40 MiB).";

/// `⌈x / n⌉ × n`.
pub fn pad(x: u64, n: u64) -> u64 {
    x.div_ceil(n).saturating_mul(n)
}

/// Bytes of one cell (one token) of one layer: K row + V row.
pub fn cell_bytes(arch: &Arch, k: KvDtype, v: KvDtype, kv_heads: u64) -> u64 {
    let n = kv_heads.saturating_mul(arch.head_dim);
    k.row_bytes(n).saturating_add(v.row_bytes(n))
}

/// llama.cpp context parameters that shape the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LlamaParams {
    /// `-c`: total cells over all sequences.
    pub n_ctx: u64,
    /// `-np`: sequences (slots).
    pub n_seq: u64,
    /// `-kvu`.
    pub unified: bool,
    /// K cache type.
    pub type_k: KvDtype,
    /// V cache type.
    pub type_v: KvDtype,
    /// `-ub` (default 512).
    pub n_ubatch: u64,
    /// `-b` (default 2048).
    pub n_batch: u64,
    /// `--swa-full`.
    pub swa_full: bool,
}

impl LlamaParams {
    /// `-c n_ctx` for `n_seq` sequences, both caches of type `kv`, default batch sizes.
    pub fn new(n_ctx: u64, n_seq: u64, unified: bool, kv: KvDtype) -> Self {
        LlamaParams {
            n_ctx,
            n_seq: n_seq.max(1),
            unified,
            type_k: kv,
            type_v: kv,
            n_ubatch: 512,
            n_batch: 2048,
            swa_full: false,
        }
    }
}

/// The layout llama.cpp allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LlamaKv {
    /// KV bytes over all streams.
    pub bytes: Bytes,
    /// Streams (one per sequence unless unified).
    pub streams: u64,
    /// Cells per stream of a global layer.
    pub cells: u64,
    /// Cells per stream of a sliding-window layer.
    pub swa_cells: u64,
    /// Layers with a full-context cache.
    pub global_layers: u32,
    /// Layers with a sliding-window cache.
    pub swa_layers: u32,
}

/// llama.cpp's KV cache for `arch` with `p` (see the module docs).
pub fn llama(arch: &Arch, p: &LlamaParams) -> LlamaKv {
    let n_seq = p.n_seq.max(1);
    let unified = p.unified || n_seq == 1;
    let n_ctx_pad = pad(p.n_ctx.max(1), 256);
    let (streams, cells) = if unified {
        (1, n_ctx_pad)
    } else {
        (n_seq, pad(n_ctx_pad / n_seq, 256))
    };
    let n_ubatch_eff = p.n_ubatch.min(p.n_ctx).min(p.n_batch);
    let swa_cells = match arch.swa {
        Some(_) if p.swa_full => cells,
        Some(s) => {
            let per = (s.window as u64).saturating_mul(if unified { n_seq } else { 1 });
            pad(cells.min(per.saturating_add(n_ubatch_eff)), 256)
        }
        None => cells,
    };
    let (global_layers, swa_layers) = arch.kv_layer_split();
    let cell = cell_bytes(arch, p.type_k, p.type_v, arch.kv_heads as u64);
    let per_stream = cell.saturating_mul(
        cells
            .saturating_mul(global_layers as u64)
            .saturating_add(swa_cells.saturating_mul(swa_layers as u64)),
    );
    LlamaKv {
        bytes: Bytes(per_stream.saturating_mul(streams)),
        streams,
        cells,
        swa_cells,
        global_layers,
        swa_layers,
    }
}

/// vLLM block size (tokens per block), its default.
pub const VLLM_BLOCK: u64 = 16;

/// vLLM paged cache for `seqs` requests of `ctx` tokens, on one of `tp` tensor-parallel cards.
/// Returns bytes **per card**.
pub fn paged(arch: &Arch, ctx: u64, seqs: u64, dtype: KvDtype, tp: u64) -> Bytes {
    let heads = (arch.kv_heads as u64 / tp.max(1)).max(1);
    let (g, s) = arch.kv_layer_split();
    let blocks_g = ctx.div_ceil(VLLM_BLOCK);
    let blocks_s = match arch.swa {
        Some(w) => ctx.min(w.window as u64 + VLLM_BLOCK).div_ceil(VLLM_BLOCK),
        None => blocks_g,
    };
    let blocks = blocks_g
        .saturating_mul(g as u64)
        .saturating_add(blocks_s.saturating_mul(s as u64));
    Bytes(
        blocks
            .saturating_mul(VLLM_BLOCK)
            .saturating_mul(cell_bytes(arch, dtype, dtype, heads))
            .saturating_mul(seqs),
    )
}

/// transformers dynamic cache: `seqs × Σ_l tokens_l × cell`, sliding layers capped at the window.
pub fn dense(arch: &Arch, ctx: u64, seqs: u64, dtype: KvDtype) -> Bytes {
    let (g, s) = arch.kv_layer_split();
    let swa_tokens = arch.swa.map_or(ctx, |w| ctx.min(w.window as u64));
    let tokens = ctx
        .saturating_mul(g as u64)
        .saturating_add(swa_tokens.saturating_mul(s as u64));
    Bytes(
        tokens
            .saturating_mul(cell_bytes(arch, dtype, dtype, arch.kv_heads as u64))
            .saturating_mul(seqs),
    )
}

/// The KV cache of one configuration: total, per card, and what shaped it.
#[derive(Clone, Debug, PartialEq)]
pub struct KvSizing {
    /// Over all cards.
    pub total: Bytes,
    /// On each card; sums to `total`.
    pub per_card: Vec<Bytes>,
    /// Cells (token slots) the engine allocates over all sequences, for the overhead's context
    /// slope.
    pub cells: u64,
    /// llama.cpp's allocator details (llama.cpp and Ollama only).
    pub llama: Option<LlamaKv>,
}

/// The engine's allocator for `i` on `arch`: [`llama`] for llama.cpp (`-c ctx×par -np par`,
/// `-kvu`) and Ollama (`num_ctx × num_parallel`, never unified), [`paged`] for vLLM, [`dense`]
/// for transformers. `tensor` = tensor parallelism (each card holds its KV heads; vLLM
/// replicates them when fewer than the cards); otherwise the cards hold whole layers in
/// proportion to `shares`.
pub fn for_engine(arch: &Arch, i: &Inputs, tensor: bool, shares: &[u64]) -> KvSizing {
    let ctx = u64::from(i.ctx);
    let par = u64::from(i.par.max(1));
    let cards = shares.len().max(1) as u64;
    match i.engine {
        Engine::LlamaCpp | Engine::Ollama => {
            let unified = i.kvu && i.engine == Engine::LlamaCpp;
            let (type_k, type_v) = i.kv_types();
            let p = LlamaParams {
                n_ubatch: u64::from(i.ubatch),
                swa_full: i.swa_full,
                type_k,
                type_v,
                ..LlamaParams::new(ctx.saturating_mul(par), par, unified, i.kv)
            };
            let k = llama(arch, &p);
            KvSizing {
                total: k.bytes,
                per_card: k.bytes.split(shares),
                cells: k.cells.saturating_mul(k.streams),
                llama: Some(k),
            }
        }
        Engine::Vllm | Engine::Sglang => {
            let (total, per_card) = if tensor {
                let one = paged(arch, ctx, par, i.kv, cards);
                (one.times(cards), vec![one; cards as usize])
            } else {
                let total = paged(arch, ctx, par, i.kv, 1);
                (total, total.split(shares))
            };
            KvSizing {
                total,
                per_card,
                cells: ctx.saturating_mul(par),
                llama: None,
            }
        }
        Engine::Transformers => {
            let total = dense(arch, ctx, par, i.kv);
            KvSizing {
                total,
                per_card: total.split(shares),
                cells: ctx.saturating_mul(par),
                llama: None,
            }
        }
    }
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
pub fn vllm_layer_slots(arch: &Arch) -> u64 {
    let (g, s) = arch.kv_layer_split();
    let (g, s) = (u64::from(g), u64::from(s));
    if g == 0 || s == 0 {
        return g + s;
    }
    let group = g.min(s);
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
    let page = block.saturating_mul(cell_bytes(arch, dtype, dtype, heads));
    let per_block_all = page.saturating_mul(slots.max(1));
    let tokens = (bytes.get() / per_block_all.max(1)).saturating_mul(block);
    VllmPool {
        bytes,
        tokens,
        per_request,
        max_concurrency: tokens as f64 / ctx.max(1) as f64,
    }
}
