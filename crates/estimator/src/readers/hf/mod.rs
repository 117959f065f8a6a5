//! A Hugging Face checkpoint read without trusting it: `config.json` into the architecture the
//! terms need, a `.safetensors` header into its tensor table, and the `quantization_config`
//! into the format. The file sizes stay the input (never a parameter count); the headers only
//! say what the sizes hold.

mod config;
mod format;
mod safetensors;

pub use config::*;
pub use format::*;
pub use safetensors::*;

use crate::catalog::quant::{Container, GgmlType};
use crate::catalog::{Format, SizeKind, Variant};
use crate::units::Bytes;
use serde_json::Value;

/// A checkpoint as a variant and format: its `config.json` text, the total size of its
/// `.safetensors` files (the input), and their tensors (to see a stored duplicate `lm_head`).
pub fn to_variant(
    id: &str,
    config_json: &str,
    total: Bytes,
    tensors: &[Tensor],
) -> Result<(Variant, Format), String> {
    if config_json.len() > MAX_CONFIG {
        return Err(format!(
            "config.json of {} bytes (over {MAX_CONFIG})",
            config_json.len()
        ));
    }
    let config: Value =
        serde_json::from_str(config_json).map_err(|e| format!("config.json is not JSON ({e})"))?;
    let arch = arch_of(&config, &format!("the config.json of {id}"))?;
    let (quant, words) = format_with(&config, tensors);
    let duplicate_output =
        arch.tied_embeddings && tensors.iter().any(|t| t.name == "lm_head.weight");
    let embd_type = tensors
        .iter()
        .find(|t| t.name.ends_with("embed_tokens.weight"))
        .map_or(GgmlType::BF16, |t| match t.dtype.as_str() {
            "F32" => GgmlType::F32,
            "F16" => GgmlType::F16,
            _ => GgmlType::BF16,
        });
    let name = id.rsplit('/').next().unwrap_or(id).to_string();
    let variant = Variant::read(id.to_string(), name, arch);
    let format = Format {
        id: quant,
        container: Container::Safetensors,
        bytes: total,
        size: SizeKind::Exact,
        repo: id.to_string(),
        file: String::new(),
        source: format!("the .safetensors files of {id}"),
        embd_type,
        duplicate_output,
        unquantized: Vec::new(),
        note: Some(note(&words, tensors)),
        holds: None,
    };
    Ok((variant, format))
}

/// The format's note: the words for the format, and the bytes per dtype the headers hold.
fn note(words: &str, tensors: &[Tensor]) -> String {
    let mut s = format!("config.json: {words}");
    for (k, (dtype, bytes)) in bytes_per_dtype(tensors).iter().take(6).enumerate() {
        s.push_str(if k == 0 { "; headers: " } else { ", " });
        let dtype: String = dtype.chars().take(16).collect();
        s.push_str(&format!(
            "{} {}",
            crate::inputs::clean(&dtype),
            Bytes(*bytes)
        ));
    }
    s
}
