//! The size rule: the bytes of a model file computed from the architecture ([`Arch`]) and the
//! format ([`Quant`]), for a format no public listing gives a size of. Every tensor the file
//! stores ([`tensors`](super::tensors::tensors)) is sized at the storage type the format gives it:
//!
//! - **GGUF** (rule `gguf-mix`): the ggml type llama.cpp's quantizer picks for each tensor in
//!   the named mix (`llama_tensor_get_type` and `llama_tensor_get_type_impl` in
//!   <https://github.com/ggml-org/llama.cpp/blob/master/src/llama-quant.cpp>: the default type
//!   of the ftype, `llama_ftype_get_default_type`; the output matrix, and the token embedding
//!   of a file without one; attn_v, ffn_down and attn_output by layer; the fallback when a row
//!   length is not a multiple of the block, `tensor_type_fallback`), at ggml's block sizes
//!   ([`GgmlType::block`]), each tensor's data aligned to 32 bytes, plus the header: one
//!   tensor-info record per tensor and the key/value metadata (most of it the tokenizer).
//! - **safetensors** (rules `st-16bit`, `st-fp8`, `st-nvfp4`, `st-mxfp4`, `st-awq`, `st-gptq`,
//!   `st-bnb`, `st-int8`): the checkpoint's tensors at 2 (or 4) bytes, the linear layers
//!   quantized with their scales (and zero points) per the format's published layout; the
//!   embeddings, the output head, norms and the MoE router left at 16 bits. The JSON header
//!   (tens of KB) is not counted, like the publishers' own totals (`total_size` of
//!   `model.safetensors.index.json`).
//! - **MLX** (rule `mlx`): `mlx_lm.convert` quantizes every Linear and Embedding weight to
//!   `bits` with a 16-bit scale and bias per group of 64
//!   (<https://github.com/ml-explore/mlx-lm/blob/main/mlx_lm/utils.py>, `quantize_model`; group
//!   size 64 by default); norms stay 16-bit.
//!
//! A format without a rule (Unsloth's dynamic `UD-` mixes, whose per-tensor recipe is
//! unpublished; MXFP4 of a dense model; a format in another container) is refused with the
//! reason. `data/gen/compute_sizes.py` computes the catalog's `computed` rows by the same rules
//! and stays as an independent cross-check (`tests/size_rule.rs` compares the two).

mod gguf;
mod mix;
mod safetensors;

pub use gguf::is_cpu_moe_tensor;
pub use mix::counts_ffn_down;

use super::quant::{Container, GgmlType, Quant};
use super::Arch;

/// A file size the rule computed, with what the catalog's [`super::Format`] records of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Computed {
    /// File size (all shards), bytes.
    pub bytes: u64,
    /// Storage type of the token embedding.
    pub embd_type: GgmlType,
    /// Tensors left at (near) original precision, with their type.
    pub unquantized: Vec<String>,
    /// The rule (`gguf-mix`, `st-fp8`, …) and what it does, for the format's `source`.
    pub rule: &'static str,
}

/// Why `q` has no size rule.
fn no_rule(q: Quant) -> String {
    match q {
        Quant::UDQ8KXL | Quant::UDQ4KXL | Quant::UDQ3KXL | Quant::UDQ2KXL => format!(
            "{q} is an Unsloth dynamic mix whose per-tensor recipe is unpublished, so its size has no rule"
        ),
        _ => format!("{q} has no size rule in this container"),
    }
}

/// The bytes of `a`'s file in format `q` and container `c`. `output`: the file stores an output
/// matrix (the model is untied, or its files store one although the config ties it). Err says
/// why there is no rule (an Unsloth dynamic mix, MXFP4 of a dense model, a format of another
/// container, dimensions beyond any model).
pub fn computed(a: &Arch, q: Quant, c: Container, output: bool) -> Result<Computed, String> {
    if let Some(why) = a.absurd() {
        return Err(why);
    }
    if q.container().is_some_and(|qc| qc != c) {
        return Err(format!(
            "{q} is a {} format, not a {} one",
            q.container().map_or("", Container::label),
            c.label()
        ));
    }
    match c {
        Container::Gguf => gguf::gguf(a, q, output),
        Container::Mlx if q.container() != Some(Container::Mlx) => {
            Err(format!("{q} is not an MLX format"))
        }
        Container::Safetensors | Container::Mlx => safetensors::checkpoint(a, q, output),
    }
}

/// The bytes of each layer's routed experts in `a`'s GGUF file in mix `q` (by layer, 0 where a
/// layer has none): what llama.cpp's `--n-cpu-moe` keeps in system RAM
/// ([`is_cpu_moe_tensor`]). Err when the mix has no rule (an Unsloth dynamic mix).
pub fn expert_layer_bytes(a: &Arch, q: Quant, output: bool) -> Result<Vec<u64>, String> {
    if let Some(why) = a.absurd() {
        return Err(why);
    }
    gguf::expert_layer_bytes(a, q, output)
}

/// The bytes of layer `il`'s routed experts in `a`'s GGUF file in mix `q` (0 on a layer without
/// experts), from that layer's expert tensors alone: [`expert_layer_bytes`] without the rest of
/// the tensor list. `None` when the mix has no rule for one layer (the 1- and 2-bit i-quants,
/// [`counts_ffn_down`]) or none at all.
pub fn layer_expert_bytes(a: &Arch, q: Quant, il: u32) -> Option<u64> {
    gguf::layer_expert_bytes(a, q, il)
}

/// The bytes of every layer's routed experts in `a`'s safetensors checkpoint in format `q` (0
/// on a layer without experts), at the format's published layout (the rules `st-*` above):
/// what vLLM's `--cpu-offload-params experts` moves to host memory. `None` for a format
/// without a safetensors rule.
pub fn checkpoint_experts_by_layer(a: &Arch, q: Quant) -> Option<Vec<u64>> {
    (0..a.layers)
        .map(|il| safetensors::layer_expert_bytes(a, q, il))
        .collect()
}

/// The bytes of every layer's routed experts in `a`'s GGUF file in mix `q` (0 on a layer
/// without experts), by [`layer_expert_bytes`], and whether they are exact: a mix without a
/// rule of its own takes the k-quant mix it is built on (approximate) — Unsloth's dynamic `UD-`
/// mixes (recipe unpublished), and the 1- and 2-bit i-quants, which type ffn_down by a running
/// count, at Q2_K's types. `None` when the mix has no rule (not a GGUF mix) or a layer has none.
pub fn experts_by_layer(a: &Arch, q: Quant) -> Option<(Vec<u64>, bool)> {
    let (q, exact) = match q {
        Quant::UDQ8KXL => (Quant::Q8_0, false),
        Quant::UDQ4KXL => (Quant::Q4KM, false),
        Quant::UDQ3KXL => (Quant::Q3KM, false),
        Quant::UDQ2KXL => (Quant::Q2K, false),
        q if counts_ffn_down(q) => (Quant::Q2K, false),
        q => (q, true),
    };
    let layers = (0..a.layers)
        .map(|il| layer_expert_bytes(a, q, il))
        .collect::<Option<Vec<u64>>>()?;
    Some((layers, exact))
}
