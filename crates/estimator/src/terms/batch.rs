//! What a llama.cpp embedding or reranking server's compute buffer holds beyond the overhead
//! fit, which was measured at a 512-token micro-batch: the server takes each input whole in one
//! micro-batch (`-ub` of a whole input: serve::command), and reserves its prompt graph for that
//! many outputs, since an embedding server's output limit is the logical batch
//! (tools/server/server-context.cpp, `server_output_limits`: `{ n_batch, 1 }` with embeddings or
//! a pooling; src/llama-context.cpp reserves the prompt graph with `min(n_tokens,
//! n_outputs_max)` outputs), and every model graph ends in the LM head (src/models/qwen3.cpp:
//! `res->t_logits`, built whatever the pooling). So each token over 512 adds one fp32 row of
//! logits, one of the final norm's hidden states, and one fp16 column of the attention mask
//! (`self_kq_mask`, one stream's cells):
//! `(ub − 512) × (4 B × vocab + 4 B × hidden + 2 B × cells)`.
//! Read off llama.cpp's allocator at ggml-org/llama.cpp@0c1e57098bba (CPU backend,
//! Qwen3-Embedding-0.6B's shapes, 2 and 4 sequences, micro-batches of 512 to 4,096): within
//! 0.005 % of the measured growth (`tests/embeddings.rs`). A chat server's output limit is its
//! slots (and draft tokens), so its logits do not grow with the micro-batch.

use crate::catalog::engine::Engine;
use crate::catalog::Arch;
use crate::inputs::Inputs;
use crate::units::Bytes;

/// The micro-batch the overhead fit was measured at (`-ub` 512, llama.cpp's default).
pub const FIT_UBATCH: u64 = 512;

/// The micro-batch of a llama.cpp embedding or reranking server of a decoder (one whole input at
/// least, at most the context of every slot), `None` for any other plan (and without `extras`).
pub fn pooled_micro_batch(i: &Inputs, a: &Arch) -> Option<u64> {
    // Not in the page's first load (built without `extras`), which hands embedding and reranking
    // models over to the whole calculator.
    if !cfg!(feature = "extras") || i.engine != Engine::LlamaCpp || crate::catalog::is_encoder(a) {
        return None;
    }
    crate::catalog::task_of(&i.model)?;
    Some(whole_inputs(i))
}

/// The micro-batch of a server that takes each input whole (an embedding or reranking server;
/// an encoder, whose attention is non-causal): `-ub` at least one input of `ctx` tokens
/// (serve::command writes `-ub max(ubatch, ctx)`), at most the context of every slot, which
/// llama.cpp reserves the graph for (`min(n_ctx, n_ubatch)`, src/llama-context.cpp).
pub fn whole_inputs(i: &Inputs) -> u64 {
    let slots = u64::from(i.par.max(1));
    u64::from(i.ubatch.max(i.ctx)).min(u64::from(i.ctx).saturating_mul(slots))
}

/// One stream's cells (all of them with `-kvu`), as the attention mask holds them (padded to
/// 256: the KV cache's `n_kv`).
pub fn cells(i: &Inputs) -> u64 {
    let slots = if i.kvu { u64::from(i.par.max(1)) } else { 1 };
    u64::from(i.ctx)
        .saturating_mul(slots)
        .div_ceil(256)
        .saturating_mul(256)
}

/// Bytes per token of the micro-batch over 512.
fn per_token(i: &Inputs, a: &Arch) -> u64 {
    a.vocab
        .saturating_add(a.hidden)
        .saturating_mul(4)
        .saturating_add(cells(i).saturating_mul(2))
}

/// The compute buffer beyond the overhead fit (zero at a micro-batch of 512 or less, and for
/// any plan but a decoder's embedding or reranking server on llama.cpp).
pub fn pooled_extra(i: &Inputs, a: &Arch) -> Bytes {
    let over = pooled_micro_batch(i, a).map_or(0, |ub| ub.saturating_sub(FIT_UBATCH));
    Bytes(over.saturating_mul(per_token(i, a)))
}

/// [`pooled_extra`]'s formula with its values, or `None` where it is zero.
pub fn pooled_formula(i: &Inputs, a: &Arch) -> Option<String> {
    let ub = pooled_micro_batch(i, a).filter(|&ub| ub > FIT_UBATCH)?;
    Some(format!(
        " + the {ub}-token micro-batch's outputs {}: ({ub} − 512) × (4 B × (vocab {} + hidden {}) + 2 B × {} cells)",
        pooled_extra(i, a),
        a.vocab,
        a.hidden,
        cells(i)
    ))
}
