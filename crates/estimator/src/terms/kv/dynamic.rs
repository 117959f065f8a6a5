//! Caches that grow with the tokens: transformers' dynamic cache and mlx-lm's, which grows in
//! steps.

use super::cells::{cell_bytes, cell_bytes_by_kind, pad, state_bytes};
use crate::catalog::engine::KvDtype;
use crate::catalog::Arch;
use crate::units::Bytes;

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
            .saturating_add(transformers_state_bytes(arch))
            .saturating_mul(seqs),
    )
}

/// One sequence's recurrent state in transformers, in the model's dtype (2 bytes): LFM2's
/// `Lfm2HybridConvCache` allocates a `[batch, hidden, conv_L_cache]` convolution state on every
/// layer, attention layers included (src/transformers/models/lfm2/modeling_lfm2.py at
/// <https://github.com/huggingface/transformers/blob/0096ba4f66d4f5f7b1d4e162f8a75d0894b40ea8/src/transformers/models/lfm2/modeling_lfm2.py>);
/// the other hybrids the conv + recurrent state of their recurrent layers ([`state_bytes`]).
pub fn transformers_state_bytes(arch: &Arch) -> u64 {
    match &arch.recurrent {
        Some(r) if r.kind == "shortconv" => u64::from(arch.layers)
            .saturating_mul(arch.hidden)
            .saturating_mul(r.conv_kernel)
            .saturating_mul(2),
        _ => state_bytes(arch, 2),
    }
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
