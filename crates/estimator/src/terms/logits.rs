//! Logits buffer (llama.cpp and Ollama), in host memory.
//!
//! Formula: `4 B × n_vocab × max(1, n_seq)`: llama.cpp's output buffer holds one fp32 row of
//! logits per sequence of the batch (`llama_context::output_reserve` in llama.cpp
//! `src/llama-context.cpp`, which sizes `logits_size = n_vocab × n_outputs_max` floats in a host
//! buffer).
//!
//! Domain: llama.cpp-family engines with full offload (the buffer is pinned host memory, not
//! on the card). vLLM and transformers compute logits on the card inside their activation
//! peak, which the overhead term covers.

use crate::catalog::Arch;
use crate::units::Bytes;

/// Where the formula comes from.
pub const PROVENANCE: &str = prose!("llama.cpp output buffer: 4 × n_vocab × max(1, n_seq) bytes of fp32 logits in host memory (llama.cpp src/llama-context.cpp, output_reserve).");

/// Where the formula was checked.
pub const DOMAIN: &str = prose!("llama.cpp and Ollama, full offload; the buffer is host memory.");

/// Where the output buffer of an embedding or reranking context comes from.
pub const EMBED_PROVENANCE: &str = prose!("llama.cpp output buffer of an embedding or reranking context (--embedding, --reranking): the logits rows and one fp32 row of n_embd per output, 4 × (n_vocab + n_embd) × max(1, n_seq) bytes at startup (llama_context::output_reserve: has_logits = true, has_embd = cparams.embeddings, logits_size = n_vocab × n_outputs_max, embd_size = n_embd_out × n_outputs_max; since ggml-org/llama.cpp#14208, June 2025; the same lines in Ollama's vendored llama/llama.cpp/src/llama-context.cpp at 04db8a0b). Pooled vectors and rank scores are kept apart, per sequence, in a few floats each.");

/// Host bytes of an embedding or reranking context's output buffer for `slots` sequences: a
/// row of logits and one fp32 row of `hidden` per sequence. (Before ggml-org/llama.cpp#14208 an
/// embedding context reserved no logits.)
pub fn embeddings(arch: &Arch, slots: u32) -> Bytes {
    Bytes(
        4u64.saturating_mul(arch.vocab.saturating_add(arch.hidden))
            .saturating_mul(u64::from(slots.max(1))),
    )
}

/// Host bytes of the logits buffer for `slots` sequences.
pub fn bytes(arch: &Arch, slots: u32) -> Bytes {
    Bytes(
        4u64.saturating_mul(arch.vocab)
            .saturating_mul(u64::from(slots.max(1))),
    )
}
