//! llama.cpp's allocator (src/llama-kv-cache.cpp), which Ollama shares: padded cells, streams,
//! the sliding-window rule.

use super::cells::{cell_bytes_by_kind, pad, state_bytes};
use crate::catalog::engine::KvDtype;
use crate::catalog::Arch;
use crate::units::Bytes;

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
    /// Extra recurrent states per sequence for speculative rollback (the context's `n_rs_seq`).
    pub rs_seq: u64,
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
            rs_seq: 0,
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
    /// Recurrent state of every sequence (F32, `max(1, n_seq)` sequences, `1 + n_rs_seq` states
    /// each), included in `bytes`.
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
    // llama_memory_recurrent: `n_rows = mem_size * (1 + n_rs_seq)` rows of r and s per layer,
    // mem_size = max(1, n_seq_max) (src/llama-memory-recurrent.cpp, src/llama-model.cpp).
    let state = state_bytes(arch, 4)
        .saturating_mul(n_seq)
        .saturating_mul(p.rs_seq.saturating_add(1));
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
