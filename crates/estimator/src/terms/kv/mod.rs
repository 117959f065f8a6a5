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
//!   `⌈ctx/16⌉` blocks per global layer and `⌈min(ctx, window − 1 + batched)/16⌉ + 1` per sliding
//!   layer (`batched`: `--max-num-batched-tokens`, 8192 or 2048 by card);
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
//!   LFM2's gated short convolutions (`shortconv`) keep no recurrent state, only the last
//!   `conv_kernel − 1` inputs of `hidden` values per convolution layer (llama.cpp `n_embd_r()`
//!   for LFM2, `n_embd_s() = 0`; vLLM `short_conv_state_shape`, the model's dtype); transformers'
//!   `Lfm2HybridConvCache` keeps `hidden × conv_kernel` on every layer
//!   ([`transformers_state_bytes`]). vLLM pads a hybrid's state pages to the attention page
//!   size; that padding is not modelled (a short-convolution state is a few KiB per layer).
//!   Where each layer holds ONE block (Nemotron-H's `hybrid_override_pattern`,
//!   [`Arch::blocks`]), only the attention blocks own a KV cache and only the Mamba-2 blocks a
//!   state; MLP and MoE blocks hold weights only (llama.cpp: recurrent iff `n_head_kv(il) == 0
//!   && n_ff(il) == 0`, src/models/nemotron-h.cpp; the hybrid memory filters its KV cache by
//!   `!is_recurrent(il)` and its recurrent memory by `is_recurrent(il)`,
//!   src/llama-memory-hybrid.cpp; the MLP and MoE layers have no KV heads, so no K or V row).

mod cells;
mod dynamic;
mod llama_cpp;
mod vllm;

pub use cells::*;
pub use dynamic::*;
pub use llama_cpp::*;
pub use vllm::*;

use crate::catalog::engine::Engine;
use crate::catalog::Arch;
use crate::inputs::Inputs;
use crate::units::Bytes;

/// Where the formula comes from.
pub const PROVENANCE: &str = prose!("Per layer that owns a cache: cells × (K row + V row); global layers grow with the context, sliding-window layers plateau at the window, layers that share another layer's cache add nothing; × concurrency slots. llama.cpp: its allocator's cells, 256-cell padding, streams and SWA rule (src/llama-kv-cache.cpp), byte-exact in tests/llama_kv.rs. vLLM: 16-token blocks, KV heads split or replicated under tensor parallelism (vllm/v1/core/kv_cache_utils.py). transformers: exactly the tokens of the dynamic cache (tests/measurements.rs). Latent attention: one K-only latent row per token and layer (llama.cpp src/llama-kv-cache.cpp, has_v = !is_mla), replicated under tensor parallelism. Hybrid recurrent layers (Gated DeltaNet, Mamba-2, LFM2's short convolutions): a fixed convolution + recurrent state per sequence (llama.cpp src/llama-hparams.cpp n_embd_r/n_embd_s, F32), KV only on the attention layers; where each layer is one block (Nemotron-H: Mamba-2, attention, MLP or MoE), KV only on the attention blocks and the state only on the Mamba-2 blocks (src/models/nemotron-h.cpp, src/llama-memory-hybrid.cpp).");

/// Where the formula was checked.
pub const DOMAIN: &str = prose!("llama.cpp and Ollama: every architecture of the catalog (global, sliding-window, shared-KV layers; f16, q8_0, q4_0 and the other ggml cache types), byte-exact. vLLM 0.19: dense and sliding-window models on one card and under tensor parallelism (12 startup logs within 5 %). SGLang: five startup logs (four on one card, one under tensor parallelism), within 5 %. transformers: Qwen3 BF16 at 8K–32K tokens (within 40 MiB). Latent attention (DeepSeek, Kimi) and hybrid recurrent models (Gated DeltaNet, Mamba-2, LFM2 short convolutions, Nemotron-H's one-block layers): llama.cpp's allocation rules reproduced in tests/llama_kv.rs, tests/shortconv.rs and tests/nemotron_h.rs; for LFM2 the KV part matches llama.cpp's printed 48.00 MiB at 4,096 cells; no other startup log compared yet.");

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
/// proportion to `shares`. `batched`: the prefill step vLLM admits a sliding layer with ([`paged`]).
pub fn for_engine(arch: &Arch, i: &Inputs, tensor: bool, shares: &[u64], batched: u64) -> KvSizing {
    let ctx = u64::from(i.ctx);
    let par = u64::from(i.par.max(1));
    let cards = shares.len().max(1) as u64;
    match i.engine {
        Engine::LlamaCpp | Engine::Ollama => {
            let unified = i.kvu && i.engine == Engine::LlamaCpp;
            let (type_k, type_v) = i.kv_types();
            let p = LlamaParams {
                n_ubatch: u64::from(i.ubatch),
                // The command raises `-b` to a larger `-ub` (serve::command, `batch_flags`).
                n_batch: u64::from(i.ubatch).max(2048),
                swa_full: i.swa_full,
                rs_seq: u64::from(i.rsseq),
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
                let one = paged(arch, ctx, par, i.kv, cards, batched);
                (one.times(cards), vec![one; cards as usize])
            } else {
                let total = paged(arch, ctx, par, i.kv, 1, batched);
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
