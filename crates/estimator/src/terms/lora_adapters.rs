//! Serve-time LoRA adapters (`loras=` N at once, `lorarank=` R at most), on the cards.
//!
//! **vLLM** (`--enable-lora --max-loras N --max-lora-rank R`) preallocates, at load, before it
//! profiles and sizes the KV pool, one stack per wrapped linear module and per slice of a packed
//! one (`vllm/lora/layers/base_linear.py`, `create_lora_weights`): `lora_a` of
//! `[N, 1, R, input]` and `lora_b` of `[N, 1, output, R]` in the model's dtype (`lora_dtype`
//! auto, vllm/config/lora.py). Every supported linear module is wrapped unless
//! `--lora-target-modules` narrows them (`vllm/lora/model_manager.py`, `_create_lora_modules`):
//! per decoder layer the packed q/k/v (three slices), o, the packed gate/up (two slices) and
//! down. Under tensor parallelism a column-parallel module keeps `lora_a` whole and shards
//! `lora_b`'s output; a row-parallel one shards `lora_a`'s input and keeps `lora_b` whole. So per
//! layer and card, elements = N × R × (7·hidden + 2·q/tp + 2·kv/tp + 3·ffn/tp), with `kv/tp` the
//! card's KV heads (at least one) × head size.
//!
//! **llama.cpp** (`--lora FILE`, once per adapter) loads each adapter's tensors beside the base
//! tensors they patch, on the same device (`src/llama-adapter.cpp`, `llama_adapter_lora_init`):
//! an adapter's bytes are its file's. Without the file, an adapter is counted as PEFT writes one
//! that targets every linear projection (`target_modules="all-linear"`): `A` of R × input and `B`
//! of output × R per projection, converted at `convert_lora_to_gguf.py`'s default `--outtype f32`
//! (4 bytes): elements = N × R × (7·hidden + 2·q + 2·kv + 3·ffn) per layer.

use crate::catalog::Arch;
use crate::units::Bytes;

/// Where the formula comes from.
pub const PROVENANCE: &str = prose!("vLLM: one lora_a [max_loras, 1, rank, input] and one lora_b [max_loras, 1, output, rank] per wrapped linear module and slice, in the model dtype, allocated before the KV pool is sized (vllm/lora/layers/base_linear.py create_lora_weights; vllm/lora/model_manager.py _create_lora_modules). llama.cpp: each --lora adapter's tensors on the device of the tensor they patch (src/llama-adapter.cpp, llama_adapter_lora_init), counted as an all-linear PEFT adapter at convert_lora_to_gguf.py's default f32.");

/// Where the formula holds.
pub const DOMAIN: &str = prose!("Dense attention models (no mixture of experts, no recurrent or latent attention layers). vLLM: the linear modules of every decoder layer; the lm_head and embedding adapters of models that declare them, LoRA's punica metadata buffers and --max-cpu-loras adapters in host RAM are not counted. llama.cpp: an adapter targeting fewer modules, or converted to f16, takes less (its file size is the exact figure).");

/// One layer's adapter elements per unit of rank on one of `tp` cards.
fn layer_elems(a: &Arch, tp: u64) -> u64 {
    let tp = tp.max(1);
    let q = u64::from(a.heads).saturating_mul(a.head_dim) / tp;
    let kv = (u64::from(a.kv_heads) / tp)
        .max(1)
        .saturating_mul(a.head_dim);
    let ffn = a.intermediate / tp;
    a.hidden
        .saturating_mul(7)
        .saturating_add(q.saturating_mul(2))
        .saturating_add(kv.saturating_mul(2))
        .saturating_add(ffn.saturating_mul(3))
}

/// vLLM: the stacks one card holds for `layers` decoder layers under a tensor-parallel size
/// `tp`, `count` adapters of rank `rank`, 2-byte (16-bit model) elements.
pub fn vllm_card(a: &Arch, count: u32, rank: u32, tp: u32, layers: u64) -> Bytes {
    Bytes(
        layer_elems(a, u64::from(tp))
            .saturating_mul(layers)
            .saturating_mul(u64::from(count))
            .saturating_mul(u64::from(rank))
            .saturating_mul(2),
    )
}

/// llama.cpp: `count` all-linear adapters of rank `rank` in f32, every layer.
pub fn llama_cpp(a: &Arch, count: u32, rank: u32) -> Bytes {
    Bytes(
        layer_elems(a, 1)
            .saturating_mul(u64::from(a.layers))
            .saturating_mul(u64::from(count))
            .saturating_mul(u64::from(rank))
            .saturating_mul(4),
    )
}
