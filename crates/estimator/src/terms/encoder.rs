//! An encoder-only model's overhead on llama.cpp and Ollama: the CUDA context of each card (as a
//! decoder's on one card, [`super::overhead::LLAMA_CUDA_CONTEXT`]) plus its compute buffer,
//! which has no KV cache beside it and grows with the square of the micro-batch: every token of a
//! micro-batch attends to every other (src/llama-graph.cpp, `build_attn_inp_no_cache`: the mask
//! is n_tokens × n_tokens), and a non-causal model takes each input whole in one micro-batch
//! (src/llama-context.cpp, "non-causal attention requires n_ubatch >= n_tokens").
//!
//! The compute buffer llama.cpp's scheduler reserves for `T` tokens and `n_seq` sequences, flash
//! attention on (llama-server's `-fa auto` where the backend has a kernel):
//! `2 B × T²` (the fp16 mask) `+ 4 B × T × max(F, 5.5 × hidden)` (the widest step: the FFN, `F` =
//! its width + 3 × hidden, a gated FFN three times its width + 3 × hidden; or the attention step)
//! `+ 12 B × T` (token ids, positions, output ids) `+ 4 B × T × n_seq` (mean pooling's matrix; a
//! reranker's rank pooling holds 32 B instead, as CLS pooling does).
//! Byte-exact against llama.cpp's own allocator (ggml-org/llama.cpp@0c1e57098bba, CPU backend) on
//! 320 configurations: BERT and nomic-bert shapes, 512 to 4,096 tokens, 2 and 8 sequences, mean,
//! CLS and rank pooling (a classifier of one label, with or without its dense layer), read by `tests/gen/encoder_buffers.py` and
//! held by `tests/encoders.rs`.
//! Without flash attention the scores take `4 B × heads × T²` more (and the mask 4 B a cell).

use crate::catalog::{Arch, Encoder};
use crate::inputs::Inputs;
use crate::units::Bytes;

/// The encoder `a` is, where the engine is llama.cpp or Ollama (the others refuse embedding
/// models: serve::support).
pub fn on_llama(i: &Inputs, a: &Arch) -> Option<Encoder> {
    crate::catalog::encoder(a).filter(|_| i.engine.llama_family())
}

/// The overhead of `i` on `cards` cards for an encoder on llama.cpp or Ollama, else `None`.
pub fn engine_overhead(i: &Inputs, a: &Arch, cards: u32) -> Option<Bytes> {
    let e = on_llama(i, a)?;
    Some(overhead(a, e, cards, tokens(i), u64::from(i.par.max(1))))
}

/// [`engine_overhead`]'s formula with its values, else `None`.
pub fn engine_formula(i: &Inputs, a: &Arch) -> Option<String> {
    let e = on_llama(i, a)?;
    Some(formula(
        a,
        e,
        i.cards.max(1),
        tokens(i),
        u64::from(i.par.max(1)),
    ))
}

/// Tokens the compute buffer is reserved for: the micro-batch of whole inputs
/// ([`super::batch::whole_inputs`]), rounded up to a multiple of the sequences
/// (src/llama-context.cpp, `graph_reserve`).
pub fn tokens(i: &Inputs) -> u64 {
    let par = u64::from(i.par.max(1));
    super::batch::whole_inputs(i)
        .div_ceil(par)
        .saturating_mul(par)
}

/// Bytes one token of the micro-batch takes, besides the mask: `4 × max(F, 5.5 × hidden) + 12`.
fn per_token(a: &Arch, e: Encoder) -> u64 {
    let ffn = if e.gated {
        a.intermediate.saturating_mul(3)
    } else {
        a.intermediate
    };
    let widest = ffn
        .saturating_add(a.hidden.saturating_mul(3))
        .max(a.hidden.saturating_mul(11) / 2);
    widest.saturating_mul(4).saturating_add(12)
}

/// The compute buffer for `t` tokens of `n_seq` sequences, flash attention on. An embedder is
/// counted with mean pooling's `T × n_seq` matrix of fp32 weights (the larger of the two
/// poolings: CLS pooling holds a 32-byte vector of row ids instead); a reranker
/// ([`Arch::rank_labels`]) pools its CLS row into the classifier, whose few rows reuse freed
/// memory, so it holds the 32 bytes (measured equal to CLS pooling on all 128 rank rows).
pub fn compute_buffer(a: &Arch, e: Encoder, t: u64, n_seq: u64) -> Bytes {
    let mask = t.saturating_mul(t).saturating_mul(2);
    let steps = t.saturating_mul(per_token(a, e));
    Bytes(
        mask.saturating_add(steps)
            .saturating_add(pooling(a, t, n_seq)),
    )
}

/// The pooling's input: mean pooling's weights, or a reranker's row ids ([`compute_buffer`]).
fn pooling(a: &Arch, t: u64, n_seq: u64) -> u64 {
    if a.rank_labels.is_some() {
        32
    } else {
        t.saturating_mul(n_seq).saturating_mul(4)
    }
}

/// The overhead: the per-card CUDA context and the compute buffer.
pub fn overhead(a: &Arch, e: Encoder, cards: u32, t: u64, n_seq: u64) -> Bytes {
    super::overhead::LLAMA_CUDA_CONTEXT.times(u64::from(cards)) + compute_buffer(a, e, t, n_seq)
}

/// The overhead's formula with these values filled in.
pub fn formula(a: &Arch, e: Encoder, cards: u32, t: u64, n_seq: u64) -> String {
    format!(
        "330 MiB × {cards} CUDA context + compute buffer {}: 2 B × {t}² tokens (mask) + {t} × {} B per token + {}",
        compute_buffer(a, e, t, n_seq),
        per_token(a, e),
        if a.rank_labels.is_some() {
            "32 B (the classifier's row ids)".to_string()
        } else {
            format!("4 B × {t} × {n_seq} (pooling)")
        }
    )
}

/// Where the formula comes from.
pub const PROVENANCE: &str = prose!("Read off llama.cpp's allocator: the compute buffer its scheduler reserves for an encoder (src/llama-graph.cpp, build_attn_inp_no_cache; src/models/bert.cpp, nomic-bert.cpp), byte-exact on 320 configurations at ggml-org/llama.cpp@0c1e57098bba (tests/gen/encoder_buffers.py, tests/encoders.rs); the CUDA context per card is a decoder's on one card (terms/overhead.rs, LLAMA_CUDA_CONTEXT: about 330 MiB per process measured per PID, https://github.com/unslothai/unsloth/pull/6718).");

/// Where the formula was checked.
pub const DOMAIN: &str = prose!("BERT, XLM-RoBERTa and nomic-bert graphs (and an XLM-RoBERTa reranker's rank pooling) with flash attention on, llama.cpp's CPU backend (its allocator's buffer; on a GPU the token-embedding lookup's share, 4 B × hidden × tokens, sits in the host's compute buffer instead and is counted on the card here); without flash attention the scores take 4 B × heads × tokens² more.");
