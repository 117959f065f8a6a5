//! A GGUF file's header, read without trusting it: the metadata and the tensor table that the
//! estimate needs (architecture, sizes, the real storage type of each tensor), from the first
//! bytes of the file (the rest is tensor data). Layout per the GGUF specification
//! (github.com/ggml-org/ggml, docs/gguf.md): magic `GGUF`, version, tensor count, metadata count,
//! the metadata key/value pairs, then one entry per tensor (name, dimensions, type, offset).
//!
//! Every length read from the file is checked against the bytes at hand and against fixed
//! bounds before anything is allocated; a header that needs more bytes than given says how many
//! ([`Error::NeedMore`]), so a caller reading by HTTP range or from disk can fetch more.

mod arch;
mod header;

pub use header::*;

use crate::catalog::quant::{Container, Quant};
use crate::catalog::{Format, SizeKind, Variant};
use crate::units::Bytes;
use arch::arch_of;

/// The name of `general.file_type` (llama.cpp `llama_ftype` in include/llama.h) and the format
/// fitcard knows by that name (Q5_0/Q5_1, Q2_K_S and IQ3_XS: the nearest one).
pub fn file_type(ftype: u64) -> (&'static str, Quant) {
    match ftype {
        0 => ("F32", Quant::F32),
        1 => ("F16", Quant::F16),
        2 => ("Q4_0", Quant::Q4_0),
        3 => ("Q4_1", Quant::Q4_1),
        7 => ("Q8_0", Quant::Q8_0),
        8 => ("Q5_0", Quant::Q5KS),
        9 => ("Q5_1", Quant::Q5KS),
        10 => ("Q2_K", Quant::Q2K),
        11 => ("Q3_K_S", Quant::Q3KS),
        12 => ("Q3_K_M", Quant::Q3KM),
        13 => ("Q3_K_L", Quant::Q3KL),
        14 => ("Q4_K_S", Quant::Q4KS),
        15 => ("Q4_K_M", Quant::Q4KM),
        16 => ("Q5_K_S", Quant::Q5KS),
        17 => ("Q5_K_M", Quant::Q5KM),
        18 => ("Q6_K", Quant::Q6K),
        19 => ("IQ2_XXS", Quant::IQ2XXS),
        20 => ("IQ2_XS", Quant::IQ2XS),
        21 => ("Q2_K_S", Quant::Q2K),
        22 => ("IQ3_XS", Quant::IQ3XXS),
        23 => ("IQ3_XXS", Quant::IQ3XXS),
        24 => ("IQ1_S", Quant::IQ1S),
        25 => ("IQ4_NL", Quant::IQ4NL),
        26 => ("IQ3_S", Quant::IQ3S),
        27 => ("IQ3_M", Quant::IQ3M),
        28 => ("IQ2_S", Quant::IQ2S),
        29 => ("IQ2_M", Quant::IQ2M),
        30 => ("IQ4_XS", Quant::IQ4XS),
        31 => ("IQ1_M", Quant::IQ1M),
        32 => ("BF16", Quant::BF16),
        36 => ("TQ1_0", Quant::TQ1_0),
        37 => ("TQ2_0", Quant::TQ2_0),
        38 => ("MXFP4_MOE", Quant::MXFP4),
        _ => ("another quantization", Quant::Q4KM),
    }
}

/// The model a header describes, as a catalog variant with one format of `file_bytes` (the
/// file's size on disk; the input, never a parameter count). `file` names it in commands.
pub fn to_variant(h: &Header, file: &str, file_bytes: Bytes) -> Result<(Variant, Format), String> {
    let (arch, embd_type) = arch_of(h, file)?;
    let (ftype_name, quant) = file_type(key_general(h, "file_type").unwrap_or(u64::MAX));
    let name = match h.kv.get("general.name") {
        Some(Value::Str(s)) => crate::inputs::header_text(s, 120),
        _ => file.to_string(),
    };
    let variant = Variant::read(file.to_string(), name, arch);
    let format = Format {
        id: quant,
        container: Container::Gguf,
        bytes: file_bytes,
        size: SizeKind::Exact,
        repo: String::new(),
        file: file.to_string(),
        source: format!("the size of {file} on disk"),
        embd_type,
        duplicate_output: false,
        unquantized: Vec::new(),
        note: Some(format!("general.file_type {ftype_name}")),
        holds: None,
    };
    Ok((variant, format))
}

/// Most base models read from a header.
pub const MAX_BASE_MODELS: u64 = 8;

/// The Hugging Face repos a header names as its base models (`general.base_model.{i}.repo_url`,
/// `https://huggingface.co/<org>/<name>`, for `i` below `general.base_model.count`, at most
/// [`MAX_BASE_MODELS`]; llama.cpp's `convert_hf_to_gguf.py` copies them from the model card's
/// `base_model`, see `gguf-py/gguf/constants.py` `BASE_MODEL_REPO_URL`). A URL elsewhere, or
/// a path that is not one `org/name`, is skipped.
pub fn base_models(h: &Header) -> Vec<String> {
    let count = key_general(h, "base_model.count").unwrap_or(0);
    (0..count.min(MAX_BASE_MODELS))
        .filter_map(
            |i| match h.kv.get(&format!("general.base_model.{i}.repo_url")) {
                Some(Value::Str(url)) => {
                    let path = url.strip_prefix("https://huggingface.co/")?;
                    let path = path.trim_end_matches('/');
                    let ok = path.len() <= 96
                        && path.matches('/').count() == 1
                        && path.split('/').all(|p| {
                            !p.is_empty()
                                && !p.starts_with('.')
                                && p.bytes()
                                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
                        });
                    ok.then(|| path.to_string())
                }
                _ => None,
            },
        )
        .collect()
}

fn key_general(h: &Header, k: &str) -> Option<u64> {
    h.kv.get(&format!("general.{k}")).and_then(Value::int)
}
