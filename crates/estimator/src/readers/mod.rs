//! Readers of model files from outside: GGUF headers and Hugging Face `config.json` /
//! safetensors headers, read without trusting them (every length bounded before it allocates,
//! every number checked before it is used) into catalog types.

pub mod gguf;
pub mod hf;
pub mod hub;
