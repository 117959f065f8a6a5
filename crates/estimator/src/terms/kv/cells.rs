//! A cache cell (one token of one layer: K and V rows, or the latent row of latent
//! attention), its share on a tensor-parallel card, and the recurrent state of hybrid layers,
//! which every allocator multiplies out.

use crate::catalog::engine::KvDtype;
use crate::catalog::Arch;

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
pub(super) fn cell(arch: &Arch, k: KvDtype, v: KvDtype, kv_heads: u64, paged: bool) -> u64 {
    if let Some(m) = arch.mla {
        let latent = k.row_bytes(m.kv_lora_rank.saturating_add(m.qk_rope_head_dim));
        let index = m
            .index_head_dim
            .filter(|_| paged || unpaged_indexer(arch))
            .map_or(0, |d| {
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

/// Does an unpaged allocator cache the indexer's key row? Read from llama.cpp (transformers and
/// mlx-lm are counted the same way, unmeasured for these models). llama.cpp makes its DSA cache
/// (`llama_kv_cache_dsa`) for DeepSeek-V3.2 only; GLM-5 (`glm_moe_dsa`, GGUF `glm-dsa`) runs the deepseek2 graph over the plain latent
/// cache, its indexer weights loaded but unused (src/llama-model.cpp, `create_memory`).
fn unpaged_indexer(arch: &Arch) -> bool {
    !matches!(arch.model_type.as_str(), "glm_moe_dsa" | "glm-dsa")
}

/// KV heads one of `tp` tensor-parallel cards holds: split, replicated when fewer than the
/// cards; the latent of latent attention is one row that every card holds whole.
pub fn heads_per_card(arch: &Arch, tp: u64) -> u64 {
    (u64::from(arch.kv_heads) / tp.max(1)).max(1)
}

/// Bytes of one cell of a (global, sliding-window) layer on one of `tp` tensor-parallel cards:
/// equal unless the global layers have a shape of their own ([`Arch::global_attn`]).
pub(super) fn layer_cells(arch: &Arch, k: KvDtype, v: KvDtype, tp: u64, paged: bool) -> (u64, u64) {
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
/// one card: what [`llama`](super::llama) multiplies by its cells.
pub fn cell_bytes_by_kind(arch: &Arch, k: KvDtype, v: KvDtype) -> (u64, u64) {
    layer_cells(arch, k, v, 1, false)
}

/// Bytes of one sequence's recurrent state over all recurrent layers, `elem` bytes per value
/// (0 for models without recurrent layers; see the module docs). LFM2's short convolution
/// (`shortconv`) keeps only its convolution's last `conv_kernel − 1` inputs of `hidden` values
/// per layer (llama.cpp `n_embd_r()`, `n_embd_s() = 0` in src/llama-hparams.cpp; vLLM
/// `short_conv_state_shape`: `(conv_kernel − 1, hidden / tp)` in
/// vllm/model_executor/layers/mamba/mamba_utils.py).
pub fn state_bytes(arch: &Arch, elem: u64) -> u64 {
    let Some(r) = &arch.recurrent else {
        return 0;
    };
    let layers = u64::from(arch.recurrent_layers());
    let (channels, ssm) = if r.kind == "shortconv" {
        (arch.hidden, 0)
    } else {
        let channels = r
            .k_heads
            .saturating_mul(r.k_dim)
            .saturating_mul(2)
            .saturating_add(r.v_heads.saturating_mul(r.v_dim));
        (
            channels,
            r.v_heads.saturating_mul(r.k_dim).saturating_mul(r.v_dim),
        )
    };
    let conv = r.conv_kernel.saturating_sub(1).saturating_mul(channels);
    layers
        .saturating_mul(conv.saturating_add(ssm))
        .saturating_mul(elem)
}
