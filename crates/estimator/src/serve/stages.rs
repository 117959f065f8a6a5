//! Pipeline stages: how an engine splits the layers over stages and what weights each holds
//! (below the sizing and the layouts, which both use them).

use crate::catalog::engine::Engine;
use crate::catalog::{Arch, Format};
use crate::units::Bytes;

/// Layers per pipeline stage, first to last, as `engine` splits `layers` over `stages` when no
/// partition is given. vLLM gives the remainder one layer each to the stages before the last,
/// from the second-to-last backwards (the last holds the final norm and the LM head;
/// `get_pp_indices` in vllm/distributed/utils.py, overridden by `VLLM_PP_LAYER_PARTITION`).
/// SGLang gives it to the last `remainder` stages (`get_pp_indices` in
/// python/sglang/srt/distributed/utils.py, overridden by `SGLANG_PP_LAYER_PARTITION`). Other
/// engines: [`crate::serve::placement::layers_per_card`].
pub fn pipeline_stages(engine: Engine, layers: u32, stages: u32) -> Vec<u64> {
    let n = stages.max(1) as usize;
    let base = u64::from(layers) / n as u64;
    let rem = (u64::from(layers) % n as u64) as usize;
    let mut parts = vec![base; n];
    match engine {
        Engine::Vllm => {
            for k in 2..rem + 2 {
                parts[n - k] += 1;
            }
        }
        Engine::Sglang => {
            for p in parts.iter_mut().skip(n - rem) {
                *p += 1;
            }
        }
        _ => return crate::serve::placement::layers_per_card(layers, stages),
    }
    parts
}

/// Bytes of the embedding table (and of the LM head, its size) in `f`.
pub(crate) fn embedding_bytes(a: &Arch, f: &Format) -> Bytes {
    Bytes(f.embd_type.row_bytes(a.vocab.saturating_mul(a.hidden)))
}

/// Weights over all GPUs of each stage: the layers by `stage_layers`, the embedding on the
/// first stage, the LM head (or the tied copy) on the last. `device` = the weights on the
/// cards with one stage (a tied head not yet copied).
pub(crate) fn stage_weights(
    a: &Arch,
    f: &Format,
    device: Bytes,
    stage_layers: &[u64],
) -> Vec<Bytes> {
    let embed = embedding_bytes(a, f);
    let n = stage_layers.len();
    if n <= 1 {
        return vec![device; n.max(1)];
    }
    // Untied: the file holds the head, the size of the embedding; tied: the last stage adds
    // its own copy.
    let head_in_file = if a.tied_embeddings {
        Bytes::ZERO
    } else {
        embed
    };
    let body = device.saturating_sub(embed).saturating_sub(head_in_file);
    let mut w = body.split(stage_layers);
    w[0] += embed;
    w[n - 1] += embed;
    w
}
