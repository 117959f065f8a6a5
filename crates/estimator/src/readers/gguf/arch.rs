//! The header's key/values as the architecture the memory terms need.

use super::header::{Header, Value};
use crate::catalog::Recurrent;

/// The recurrent layers of a hybrid GGUF, from the `{arch}.ssm.*` keys llama.cpp sizes its
/// recurrent memory with (src/llama-hparams.cpp `n_embd_r`/`n_embd_s`): conv kernel, state size
/// (`k_dim`), group count (`k_heads`), inner size = `v_heads × v_dim` with `time_step_rank`
/// heads. The attention layers are those with KV heads in a per-layer `head_count_kv` array
/// (Mamba-2 hybrids), or every `full_attention_interval`-th layer (Gated DeltaNet).
pub(super) fn recurrent_of(
    h: &Header,
    arch: &str,
    layers: u32,
) -> Result<Option<Recurrent>, String> {
    let get = |k: &str| h.kv.get(&format!("{arch}.{k}"));
    let key = |k: &str| get(k).and_then(Value::int);
    let Some(conv_kernel) = key("ssm.conv_kernel") else {
        return Ok(None);
    };
    let need = |k: &str| key(k).ok_or_else(|| format!("no {arch}.{k}"));
    let attention_layers: Vec<u32> = match (
        get("attention.head_count_kv"),
        key("full_attention_interval"),
    ) {
        (Some(Value::Array(n, v)), _) if *n == u64::from(layers) && v.len() as u64 == *n => v
            .iter()
            .enumerate()
            .filter(|(_, &k)| k > 0)
            .map(|(il, _)| il as u32)
            .collect(),
        (_, Some(every)) => (0..layers)
            .filter(|il| (u64::from(*il) + 1) % every.max(1) == 0)
            .collect(),
        _ => {
            return Err(format!(
                "{arch}: which layers are recurrent is not modelled yet"
            ))
        }
    };
    let inner = need("ssm.inner_size")?;
    let v_heads = need("ssm.time_step_rank")?.max(1);
    Ok(Some(Recurrent {
        kind: if key("full_attention_interval").is_some() {
            "gated_deltanet".into()
        } else {
            "mamba2".into()
        },
        attention_layers,
        conv_kernel,
        k_heads: key("ssm.group_count").unwrap_or(1),
        k_dim: need("ssm.state_size")?,
        v_heads,
        v_dim: inner / v_heads,
    }))
}
