//! Tensor element types and weight formats.
//!
//! [`GgmlType`] is a storage type of one tensor (a KV cache row, an embedding table): its bytes
//! come from the block layout in ggml (`ggml/src/ggml-common.h`: `block_q8_0` = 2-byte scale + 32
//! int8 = 34 bytes per 32 values, and so on). [`Quant`] is a *file* format as the ecosystem names
//! it (`Q4_K_M`, `BF16`, `AWQ`…): a mix of tensor types whose real size is looked up, never derived
//! from it; its nominal bits per weight only orders precision within a variant.

mod format;
mod ggml;

pub use format::{Container, Quant};
pub use ggml::GgmlType;
