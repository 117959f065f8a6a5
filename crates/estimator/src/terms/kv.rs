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
//!
//! Three architecture kinds change the cell and add a state:
//! * Global layers of their own shape (Gemma 4): the full-attention layers cache
//!   `global kv_heads × global head_dim` per K and V row, the sliding layers `kv_heads ×
//!   head_dim` (llama.cpp: `n_embd_k_gqa(il)` from the per-layer `head_count_kv` and
//!   `n_embd_head_k(il) = is_swa(il) ? n_embd_head_k_swa : n_embd_head_k_full`,
//!   src/llama-hparams.cpp). Where keys double as values (`attention_k_eq_v`) the V row is still
//!   allocated (`Vcur = Kcur` in src/models/gemma4-iswa.cpp, `has_v = !is_mla` in
//!   src/llama-kv-cache.cpp). With flash attention off llama.cpp pads every layer's V row to the
//!   widest one (`n_embd_v_gqa_max()`, TAG_V_CACHE_VARIABLE); the estimate takes flash attention
//!   on, llama.cpp's `-fa auto` on GPUs. vLLM caches each layer kind in its own shape; its pool
//!   arithmetic ([`vllm_pool`]) takes the wider page for every layer slot.
//! * Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): a cell holds one row of
//!   `kv_lora_rank + qk_rope_head_dim` values and no V at all (llama.cpp:
//!   `has_v = !is_mla` in src/llama-kv-cache.cpp; vLLM: one latent "head" per token), and the
//!   latent is not split by heads, so tensor parallelism replicates it on every card. DeepSeek's
//!   sparse attention adds the indexer's key row of `index_head_dim` values per token and layer
//!   (llama.cpp: a second K-only cache of the K type, ggml-org/llama.cpp#23346; vLLM: FP8 values
//!   plus a 4-byte scale per 128, `index_head_dim + index_head_dim / 128 × 4` bytes in its
//!   DeepSeek-V3.2 indexer cache, vllm/model_executor/models/deepseek_v2.py).
//! * Hybrid recurrent layers (Gated DeltaNet, Mamba-2): only the attention layers own a KV
//!   cache; each recurrent layer keeps, per sequence, a convolution state of
//!   `(conv_kernel − 1) × (2·k_heads·k_dim + v_heads·v_dim)` values and a recurrent state of
//!   `v_heads · k_dim · v_dim` values ([`state_bytes`]). llama.cpp keeps both in F32, one per
//!   sequence (`n_embd_r()`/`n_embd_s()` in src/llama-hparams.cpp, src/llama-memory-recurrent.cpp);
//!   vLLM (`--mamba-ssm-cache-dtype auto` = the model's dtype) and transformers in the model's
//!   dtype, taken as 2 bytes (BF16 checkpoints). Not compared with a startup log yet.

use crate::catalog::engine::{Engine, KvDtype};
use crate::catalog::Arch;
use crate::inputs::Inputs;
use crate::units::Bytes;
use serde::Serialize;

/// Where the formula comes from.
pub const PROVENANCE: &str = prose!("Per layer that owns a cache: cells × (K row + V row); global layers grow with the context, sliding-window layers plateau at the window, layers that share another layer's cache add nothing; × concurrency slots. llama.cpp: its allocator's cells, 256-cell padding, streams and SWA rule (src/llama-kv-cache.cpp), byte-exact in tests/llama_kv.rs. vLLM: 16-token blocks, KV heads split or replicated under tensor parallelism (vllm/v1/core/kv_cache_utils.py). transformers: exactly the tokens of the dynamic cache (tests/measurements.rs). Latent attention: one K-only latent row per token and layer (llama.cpp src/llama-kv-cache.cpp, has_v = !is_mla), replicated under tensor parallelism. Hybrid recurrent layers: a fixed convolution + recurrent state per sequence (llama.cpp src/llama-hparams.cpp n_embd_r/n_embd_s, F32), KV only on the attention layers.");

/// Where the formula was checked.
pub const DOMAIN: &str = prose!("llama.cpp and Ollama: every architecture of the catalog (global, sliding-window, shared-KV layers; f16, q8_0, q4_0 and the other ggml cache types), byte-exact. vLLM 0.19: dense and sliding-window models on one card and under tensor parallelism (12 startup logs within 5 %). SGLang: five startup logs (four on one card, one under tensor parallelism), within 5 %. transformers: Qwen3 BF16 at 8K–32K tokens (within 40 MiB). Latent attention (DeepSeek, Kimi) and hybrid recurrent models (Gated DeltaNet, Mamba-2): llama.cpp's allocation rules reproduced in tests/llama_kv.rs; no startup log compared yet for any engine.");

/// `⌈x / n⌉ × n`.
pub fn pad(x: u64, n: u64) -> u64 {
    x.div_ceil(n).saturating_mul(n)
}

/// Bytes of one cell (one token) of one layer: K row + V row; with latent attention the latent
/// row (no V) plus the indexer's key row (see the module docs).
pub fn cell_bytes(arch: &Arch, k: KvDtype, v: KvDtype, kv_heads: u64) -> u64 {
    cell(arch, k, v, kv_heads, false)
}

/// [`cell_bytes`], with vLLM's FP8 indexer cache when `paged`.
fn cell(arch: &Arch, k: KvDtype, v: KvDtype, kv_heads: u64, paged: bool) -> u64 {
    if let Some(m) = arch.mla {
        let latent = k.row_bytes(m.kv_lora_rank.saturating_add(m.qk_rope_head_dim));
        let index = m.index_head_dim.map_or(0, |d| {
            if paged {
                d.saturating_add(d.div_ceil(128).saturating_mul(4))
            } else {
                k.row_bytes(d)
            }
        });
        return latent.saturating_add(index);
    }
    let n = kv_heads.saturating_mul(arch.head_dim);
    k.row_bytes(n).saturating_add(v.row_bytes(n))
}

/// KV heads one of `tp` tensor-parallel cards holds: split, replicated when fewer than the
/// cards; the latent of latent attention is one row that every card holds whole.
pub fn heads_per_card(arch: &Arch, tp: u64) -> u64 {
    (u64::from(arch.kv_heads) / tp.max(1)).max(1)
}

/// Bytes of one cell of a (global, sliding-window) layer on one of `tp` tensor-parallel cards:
/// equal unless the global layers have a shape of their own ([`Arch::global_attn`]).
fn layer_cells(arch: &Arch, k: KvDtype, v: KvDtype, tp: u64, paged: bool) -> (u64, u64) {
    let swa = cell(arch, k, v, heads_per_card(arch, tp), paged);
    let global = match arch.global_attn {
        Some(g) if arch.mla.is_none() => {
            let heads = (u64::from(g.kv_heads) / tp.max(1)).max(1);
            let n = heads.saturating_mul(g.head_dim);
            k.row_bytes(n).saturating_add(v.row_bytes(n))
        }
        _ => swa,
    };
    (global, swa)
}

/// Bytes of one cell of a global layer and of a sliding-window layer (K row + V row each), on
/// one card: what [`llama`] multiplies by its cells.
pub fn cell_bytes_by_kind(arch: &Arch, k: KvDtype, v: KvDtype) -> (u64, u64) {
    layer_cells(arch, k, v, 1, false)
}

/// Bytes of one sequence's recurrent state over all recurrent layers, `elem` bytes per value
/// (0 for models without recurrent layers; see the module docs).
pub fn state_bytes(arch: &Arch, elem: u64) -> u64 {
    let Some(r) = &arch.recurrent else {
        return 0;
    };
    let layers = u64::from(arch.layers.saturating_sub(arch.kv_owning_layers()));
    let channels = r
        .k_heads
        .saturating_mul(r.k_dim)
        .saturating_mul(2)
        .saturating_add(r.v_heads.saturating_mul(r.v_dim));
    let conv = r.conv_kernel.saturating_sub(1).saturating_mul(channels);
    let ssm = r.v_heads.saturating_mul(r.k_dim).saturating_mul(r.v_dim);
    layers
        .saturating_mul(conv.saturating_add(ssm))
        .saturating_mul(elem)
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
    /// Recurrent state of every sequence (F32, `max(1, n_seq)` sequences), included in `bytes`.
    pub state: Bytes,
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
    let (cell_g, cell_s) = cell_bytes_by_kind(arch, p.type_k, p.type_v);
    let per_stream = cells
        .saturating_mul(global_layers as u64)
        .saturating_mul(cell_g)
        .saturating_add(
            swa_cells
                .saturating_mul(swa_layers as u64)
                .saturating_mul(cell_s),
        );
    let state = state_bytes(arch, 4).saturating_mul(n_seq);
    LlamaKv {
        bytes: Bytes(per_stream.saturating_mul(streams).saturating_add(state)),
        state: Bytes(state),
        streams,
        cells,
        swa_cells,
        global_layers,
        swa_layers,
    }
}

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
/// the page sizes had to be made equal), sliding layers capped at the window plus one block.
/// Returns bytes **per card**.
pub fn paged(arch: &Arch, ctx: u64, seqs: u64, dtype: KvDtype, tp: u64) -> Bytes {
    let (cell_g, cell_s) = layer_cells(arch, dtype, dtype, tp, true);
    let (g, s) = arch.kv_layer_split();
    let (block_g, block_s) = vllm_block_sizes(arch, dtype, tp).unwrap_or((VLLM_BLOCK, VLLM_BLOCK));
    let tokens_g = pad(ctx, block_g);
    let tokens_s = match arch.swa {
        Some(w) => pad(ctx.min(w.window as u64 + block_s), block_s),
        None => pad(ctx, block_s),
    };
    let per_seq = tokens_g
        .saturating_mul(g as u64)
        .saturating_mul(cell_g)
        .saturating_add(tokens_s.saturating_mul(s as u64).saturating_mul(cell_s));
    // The recurrent state's heads are split over the cards like the attention heads.
    let state = state_bytes(arch, 2) / tp.max(1);
    Bytes(per_seq.saturating_add(state).saturating_mul(seqs))
}

/// transformers dynamic cache: `seqs × Σ_l tokens_l × cell`, sliding layers capped at the window.
pub fn dense(arch: &Arch, ctx: u64, seqs: u64, dtype: KvDtype) -> Bytes {
    let (g, s) = arch.kv_layer_split();
    let swa_tokens = arch.swa.map_or(ctx, |w| ctx.min(w.window as u64));
    let (cell_g, cell_s) = cell_bytes_by_kind(arch, dtype, dtype);
    let bytes = ctx
        .saturating_mul(g as u64)
        .saturating_mul(cell_g)
        .saturating_add(swa_tokens.saturating_mul(s as u64).saturating_mul(cell_s));
    Bytes(
        bytes
            .saturating_add(state_bytes(arch, 2))
            .saturating_mul(seqs),
    )
}

/// MLX's cache grows in steps of this many tokens (mlx_lm/models/cache.py: `KVCache.step`,
/// `RotatingKVCache.step`, `BatchKVCache.step` are all 256).
pub const MLX_STEP: u64 = 256;

/// Token slots one sequence holds in one layer of mlx-lm's cache after `ctx` tokens:
/// full-attention layers (`KVCache`) grow by whole steps of [`MLX_STEP`] tokens, so
/// `pad(ctx, 256)`; sliding-window layers (`RotatingKVCache(max_size=window)`, what the
/// model's `make_cache` builds for them) grow the same way but stop at the window:
/// `min(pad(ctx, 256), window)` (mlx_lm/models/cache.py, `_update_in_place`: `new_size =
/// min(step, max_size − prev)`).
pub fn mlx_cells(ctx: u64, window: Option<u64>) -> u64 {
    let full = pad(ctx, MLX_STEP);
    window.map_or(full, |w| full.min(w))
}

/// mlx-lm's KV cache for `seqs` sequences of `ctx` tokens: each sequence holds
/// [`mlx_cells`] slots per layer in the model's activation dtype (the server batches requests
/// into `BatchKVCache`, one row of the longest length per request), plus the recurrent state
/// of hybrid layers (`ArraysCache`, in the activation dtype).
pub fn mlx(arch: &Arch, ctx: u64, seqs: u64, dtype: KvDtype) -> Bytes {
    let (g, s) = arch.kv_layer_split();
    let window = arch.swa.map(|w| w.window as u64);
    let tokens = mlx_cells(ctx, None)
        .saturating_mul(u64::from(g))
        .saturating_add(mlx_cells(ctx, window).saturating_mul(u64::from(s)));
    Bytes(
        tokens
            .saturating_mul(cell_bytes(arch, dtype, dtype, arch.kv_heads as u64))
            .saturating_add(state_bytes(arch, 2))
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
/// for transformers, [`mlx`] for mlx-lm. `tensor` = tensor parallelism (each card holds its KV heads; vLLM
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
        Engine::Mlx => {
            let total = mlx(arch, ctx, par, i.kv);
            KvSizing {
                total,
                per_card: total.split(shares),
                cells: pad(ctx, MLX_STEP).saturating_mul(par),
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
                1
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
