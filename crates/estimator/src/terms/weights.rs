//! Weights on the device.
//!
//! Formula: `device = file_size − host_resident + tied_output_copy`, where on llama.cpp and
//! Ollama with a GGUF file
//!   `host_resident = row(embd_type, vocab × hidden) + row(embd_type, ple_vocab × layers × ple_dim)`
//! (`token_embd`, and gemma-3n's `per_layer_token_embd`), and
//!   `tied_output_copy = row(embd_type, vocab × hidden)` when the model ties its output matrix to
//!   the embedding (the output projection then needs its own copy on the card); an encoder
//!   (BERT, XLM-RoBERTa, nomic-bert) has no output matrix, and also keeps its F32 position and
//!   token-type tables on the host (input-layer tensors).
//! On vLLM and transformers (safetensors) nothing stays in host memory:
//!   `device = file_size − stored_duplicate_output`,
//! where a checkpoint that stores `lm_head` although the config ties it loses that copy on load
//! (both engines tie the output to the embedding and skip the stored tensor). On llama.cpp such a
//! file's output matrix is a real tensor already, so no tied copy is added.
//!
//! Provenance: the file size is the input, never a parameter count (vendors count parameters
//! differently; the bytes on disk are unambiguous). llama.cpp assigns the input layer to the CPU
//! (src/llama-model.cpp, load_tensors), so with full offload `token_embd` stays in host memory,
//! and a tied output matrix becomes a real tensor on the card: a llama.cpp load of Llama-3.2-1B
//! F16 reports CUDA0 2357.26 MiB and CPU_Mapped 501.00 MiB (`tests/serve.rs`). The
//! `CPU-resident = (vocab × layers × perLayerDim + vocab × hidden) × bytesPerParam` rule without a
//! tied-copy term undercounts the card by exactly that copy, so it is added back.
//!
//! Domain: the deduction is an engine choice, so it is gated on engine *and* container: only
//! llama.cpp/Ollama with GGUF. A format that quantizes embeddings is handled through `embd_type`
//! (the real storage type of the table in that file). Vision towers and other tensors in the
//! file count as weights on the device.
//! The stored-duplicate rule was found by the transformers regression rows (Qwen3 speed
//! benchmark): without it Qwen3-0.6B/1.7B were over by exactly `vocab × hidden × 2 B` (297 and
//! 594 MiB), the size of the `lm_head` the checkpoint carries.

use crate::catalog::engine::Engine;
use crate::catalog::quant::Container;
use crate::catalog::{Arch, Format};
use crate::units::Bytes;

/// How the file's bytes divide between card and host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// The file's size.
    pub file: Bytes,
    /// Bytes on the card(s).
    pub device: Bytes,
    /// Bytes kept in host memory.
    pub host: Bytes,
    /// Part of `device` that is the tied output copy (0 when not tied or not deducted).
    pub tied_copy: Bytes,
    /// Per-layer-embedding part of `host`.
    pub ple: Bytes,
}

/// Where the device formula comes from, per engine.
#[cfg_attr(not(feature = "prose"), allow(unused_variables))]
pub fn provenance(engine: Engine) -> &'static str {
    prose!(if engine.llama_family() {
        "The file size, never a parameter count (the format's size on its Hugging Face repo). llama.cpp and Ollama assign the input layer (token_embd, and gemma-3n's per-layer embeddings) to host memory and create a tied output matrix as its own tensor on the card (llama.cpp src/llama-model.cpp, load_tensors); checked against a llama.cpp load of Llama-3.2-1B F16 (tests/serve.rs). Deduction gated on engine and GGUF."
    } else {
        "The file size, never a parameter count (the format's size on its Hugging Face repo). vLLM and transformers load every tensor on the card (no host-resident deduction); a stored duplicate of a tied lm_head is skipped on load (tie_word_embeddings), as the transformers measurements in tests/measurements.rs show."
    })
}

/// Where the formulas were checked.
pub const DOMAIN: &str = prose!("llama.cpp and Ollama with GGUF files (host-resident embeddings deducted); vLLM, SGLang and transformers with safetensors (everything on the card, a stored duplicate of a tied lm_head dropped). Vision towers and other tensors count as weights on the card.");

/// Where the host-resident formula comes from.
pub const HOST_PROVENANCE: &str = prose!("llama.cpp and Ollama keep token_embd (and gemma-3n's per_layer_token_embd) in host memory with full offload: the input layer is assigned to the CPU (llama.cpp src/llama-model.cpp, load_tensors); Llama-3.2-1B F16 keeps 501.00 MiB there (tests/serve.rs).");

/// Does `engine` keep the embedding tables of a file in `container` in host memory?
pub fn host_resident_applies(engine: Engine, container: Container) -> bool {
    engine.llama_family() && container == Container::Gguf
}

/// An encoder's other input-layer tables, F32 in every file (tensors/encoder.rs): the position
/// and token-type embeddings, which llama.cpp also keeps in host memory
/// (`LLM_TENSOR_LAYER_INPUT` in src/llama-arch.cpp).
fn encoder_inputs(arch: &Arch) -> Bytes {
    Bytes(crate::catalog::encoder(arch).map_or(0, |e| {
        e.position_rows(arch)
            .saturating_add(e.token_types)
            .saturating_mul(arch.hidden)
            .saturating_mul(4)
    }))
}

/// How `format`'s bytes divide between card and host on `engine`. `cpu_only`: the machine has
/// no card (the device is the system RAM), so nothing is kept apart from it and a tied output
/// needs no second copy.
pub fn weights(arch: &Arch, format: &Format, engine: Engine, cpu_only: bool) -> Weights {
    let file = format.size();
    let t = format.embd_type;
    let embd = Bytes(t.row_bytes(arch.vocab.saturating_mul(arch.hidden)));
    if cpu_only || !host_resident_applies(engine, format.container) {
        let dropped = if arch.tied_embeddings && format.duplicate_output {
            embd
        } else {
            Bytes::ZERO
        };
        return Weights {
            file,
            device: file.saturating_sub(dropped),
            host: Bytes::ZERO,
            tied_copy: Bytes::ZERO,
            ple: Bytes::ZERO,
        };
    }
    let ple = match arch.ple {
        Some(p) => Bytes(
            t.row_bytes(
                p.vocab
                    .saturating_mul(arch.layers as u64)
                    .saturating_mul(p.dim),
            ),
        ),
        None => Bytes::ZERO,
    };
    let host = (embd + ple + encoder_inputs(arch)).min(file);
    // A file that already stores the output matrix needs no extra copy of the embedding; an
    // encoder has no output matrix at all.
    let output = !crate::catalog::is_encoder(arch);
    let tied_copy = if output && arch.tied_embeddings && !format.duplicate_output {
        embd
    } else {
        Bytes::ZERO
    };
    Weights {
        file,
        device: file.saturating_sub(host) + tied_copy,
        host,
        tied_copy,
        ple,
    }
}
