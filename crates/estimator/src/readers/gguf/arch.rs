//! The header's key/values as the architecture the memory terms need, one step per concern:
//! the attention shape (and Gemma 4's global layers), sliding windows, latent attention,
//! recurrent layers, experts.

use super::header::{ggml_type, Header, Tensor, Value};
use crate::catalog::quant::GgmlType;
use crate::catalog::{Arch, Blocks, GlobalAttn, Mla, MoeShape, Recurrent, Swa};

/// The header's keys of one architecture (`{arch}.{key}`) and its tensors.
struct Keys<'a> {
    h: &'a Header,
    arch: &'a str,
}

impl Keys<'_> {
    fn get(&self, k: &str) -> Option<&Value> {
        self.h.kv.get(&format!("{}.{k}", self.arch))
    }

    fn key(&self, k: &str) -> Option<u64> {
        self.get(k).and_then(Value::int)
    }

    /// A key the architecture needs: missing, or not a whole number, each said as such.
    fn need(&self, k: &str) -> Result<u64, String> {
        self.key(k).ok_or_else(|| match self.get(k) {
            None => format!("no {}.{k}", self.arch),
            Some(_) => format!("{}.{k} is not a whole number", self.arch),
        })
    }

    /// A per-layer array (Gemma 4's `attention.sliding_window_pattern`, true = sliding, and
    /// `attention.head_count_kv`): one entry per layer, else `None`.
    fn per_layer(&self, k: &str, layers: u32) -> Option<&[i128]> {
        match self.get(k) {
            Some(Value::Array(n, v)) if *n == u64::from(layers) && v.len() as u64 == *n => Some(v),
            _ => None,
        }
    }

    fn tensor(&self, name: &str) -> Option<&Tensor> {
        self.h.tensors.iter().find(|t| t.name == name)
    }
}

/// `general.architecture`, the prefix of the architecture's keys.
fn arch_name(h: &Header) -> Result<&str, String> {
    match h.kv.get("general.architecture") {
        Some(Value::Str(s))
            if !s.is_empty()
                && s.len() <= 64
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b)) =>
        {
            Ok(s)
        }
        Some(Value::Str(s)) => Err(format!(
            "general.architecture {} is not an architecture name",
            crate::inputs::quote(s)
        )),
        _ => Err("no general.architecture".into()),
    }
}

/// The architecture a header describes (`file` names it in the source), and the type its token
/// embedding is stored in.
pub(super) fn arch_of(h: &Header, file: &str) -> Result<(Arch, GgmlType), String> {
    let k = Keys {
        h,
        arch: arch_name(h)?,
    };
    if let Some(why) = crate::catalog::not_modelled(k.arch) {
        return Err(format!("{}: {why}", k.arch));
    }
    let mut arch = attention(&k)?;
    let pattern = k.per_layer("attention.sliding_window_pattern", arch.layers);
    global_layers(&k, &mut arch, pattern);
    let embd = k
        .tensor("token_embd.weight")
        .ok_or("no token_embd.weight tensor")?;
    arch.vocab = embd.dims.get(1).copied().unwrap_or(0);
    let embd_type = ggml_type(embd.ggml_type).ok_or("token_embd of an unknown type")?;
    arch.set_context(k.key("context_length"))
        .ok_or_else(|| format!("{}.context_length is 0 (no context)", k.arch))?;
    arch.swa = sliding_window(&k, pattern);
    arch.mla = mla(&k)?;
    arch.recurrent = recurrent_of(&k, arch.layers)?;
    experts(&k, &mut arch)?;
    arch.intermediate = k.key("feed_forward_length").unwrap_or(arch.intermediate);
    blocks_of(&k, &mut arch)?;
    arch.tied_embeddings = k.tensor("output.weight").is_none();
    // A reranker's classifier (rank pooling reads `cls.output`): its rows are the labels.
    arch.rank_labels = k
        .tensor("cls.output.weight")
        .map(|t| t.dims.get(1).copied().unwrap_or(1).clamp(1, 4096) as u32);
    arch.source = format!("the GGUF header of {file}");
    // KV sharing (Gemma 4): the last `attention.shared_kv_layers` layers own no cache
    // (`n_layer_kv_from_start` in src/models/gemma4.cpp).
    arch.set_shared_kv(k.key("attention.shared_kv_layers"));
    arch.set_ple(k.key("embedding_length_per_layer_input"), None);
    Ok((arch.checked()?, embd_type))
}

/// The attention shape: layers, hidden size, heads and KV heads, checked by [`Arch::read`], and
/// the head size (`attention.key_length`, else `hidden / heads`).
fn attention(k: &Keys) -> Result<Arch, String> {
    let layers = u32::try_from(k.need("block_count")?).map_err(|_| "block_count too large")?;
    let hidden = k.need("embedding_length")?;
    let heads =
        u32::try_from(k.need("attention.head_count")?).map_err(|_| "head_count too large")?;
    let kv_heads = k.key("attention.head_count_kv").map_or(Ok(heads), |n| {
        u32::try_from(n).map_err(|_| "head_count_kv too large")
    })?;
    let mut arch = Arch::read(k.arch.to_string(), hidden, layers, heads, kv_heads)
        .ok_or("zero or absurd dimensions")?;
    arch.head_dim = k.key("attention.key_length").unwrap_or(arch.head_dim);
    Ok(arch)
}

/// Gemma 4's global layers: their head size is `attention.key_length`, the sliding layers'
/// `attention.key_length_swa`; their KV heads the per-layer `attention.head_count_kv` entry at a
/// global layer (src/models/gemma4.cpp, `n_embd_head_k(il)` in src/llama-hparams.cpp). The
/// shape [`attention`] read is then the sliding layers'.
fn global_layers(k: &Keys, arch: &mut Arch, pattern: Option<&[i128]>) {
    let (Some(p), Some(swa_dim)) = (pattern, k.key("attention.key_length_swa")) else {
        return;
    };
    if !p.contains(&0) || p.iter().all(|&x| x == 0) {
        return;
    }
    let layers = arch.layers;
    let heads_at = |want_swa: bool| {
        let il = p.iter().position(|&x| (x != 0) == want_swa)?;
        let v = k.per_layer("attention.head_count_kv", layers)?;
        u32::try_from(v[il]).ok().filter(|&n| n > 0)
    };
    let swa_heads = heads_at(true).unwrap_or(arch.kv_heads);
    let g = GlobalAttn {
        kv_heads: heads_at(false).unwrap_or(swa_heads),
        head_dim: arch.head_dim,
        // No V projection where the file stores none on a global layer.
        k_eq_v: p.iter().position(|&x| x == 0).is_some_and(|il| {
            k.tensor(&format!("blk.{il}.attn_k.weight")).is_some()
                && k.tensor(&format!("blk.{il}.attn_v.weight")).is_none()
        }),
    };
    let differs = g.kv_heads != swa_heads || g.head_dim != swa_dim;
    arch.kv_heads = swa_heads;
    arch.head_dim = swa_dim;
    arch.global_attn = differs.then_some(g);
}

/// The chunk of Llama 4's local attention, which llama.cpp sets for every `llama4` file
/// whatever chunk key it carries (src/llama-model.cpp, `LLM_ARCH_LLAMA4`: `n_swa = 8192`).
const LLAMA4_CHUNK: u64 = 8192;

/// Sliding-window layouts llama.cpp fixes per architecture (src/llama-model.cpp), else the
/// per-layer pattern's, else Llama 4's chunks. `llama4` is chunked unless the file says
/// `attention.sliding_window = 0` (`found_swa && n_swa == 0` → `LLAMA_SWA_TYPE_NONE`; else
/// `LLAMA_SWA_TYPE_CHUNKED`, `n_swa = 8192`, `set_swa_pattern(4)`): a file need not carry a
/// chunk key for llama.cpp to chunk it.
fn sliding_window(k: &Keys, pattern: Option<&[i128]>) -> Option<Swa> {
    if k.arch == "llama4" {
        return match k.key("attention.sliding_window") {
            Some(0) => None,
            _ => Some(Swa::llama4_chunked(LLAMA4_CHUNK)),
        };
    }
    let swa = k
        .key("attention.sliding_window")
        .and_then(|w| match (k.arch, pattern) {
            ("gemma3", _) => Some(Swa::every(w, 6)),
            ("gpt-oss", _) => Some(Swa::every(w, 2)),
            (_, Some(p)) => Swa::pattern(w, p.iter().map(|&x| x == 0)),
            _ => None,
        });
    swa.or_else(|| k.key("attention.chunk_size").map(Swa::llama4_chunked))
}

/// Latent attention (deepseek2 and the architectures built on it): the cache row is
/// kv_lora_rank + the rotary dimensions (src/llama-kv-cache.cpp, has_v = !is_mla).
fn mla(k: &Keys) -> Result<Option<Mla>, String> {
    let Some(kv_lora_rank) = k.key("attention.kv_lora_rank") else {
        return Ok(None);
    };
    Ok(Some(Mla {
        kv_lora_rank,
        qk_rope_head_dim: k.need("rope.dimension_count")?,
        index_head_dim: k.key("attention.indexer.key_length"),
        index_heads: k.key("attention.indexer.head_count"),
        q_lora_rank: k.key("attention.q_lora_rank"),
        v_head_dim: k.key("attention.value_length_mla"),
    }))
}

/// The experts, and what a decode step reads besides the routed ones (llama.cpp's hparams of
/// the same names): leading dense blocks, Llama 4's interleave step and the shared experts.
fn experts(k: &Keys, arch: &mut Arch) -> Result<(), String> {
    arch.set_experts(
        k.key("expert_count"),
        k.key("expert_used_count"),
        k.key("expert_feed_forward_length"),
    )
    .ok_or("expert_count too large")?;
    if arch.is_moe() {
        let shared = k.key("expert_shared_feed_forward_length").or_else(|| {
            k.key("expert_shared_count")
                .zip(k.key("expert_feed_forward_length"))
                .map(|(n, w)| n.saturating_mul(w))
        });
        // Gemma 4: a dense FFN of `feed_forward_length` beside the experts on every layer.
        let shared = shared.or_else(|| {
            (k.arch == "gemma4")
                .then(|| k.key("feed_forward_length"))
                .flatten()
        });
        arch.moe = MoeShape::read(
            k.key("leading_dense_block_count"),
            k.key("interleave_moe_layer_step"),
            shared,
            arch.layers,
        );
    }
    Ok(())
}

/// The recurrent layers of a hybrid GGUF, from the `{arch}.ssm.*` keys llama.cpp sizes its
/// recurrent memory with (src/llama-hparams.cpp `n_embd_r`/`n_embd_s`): conv kernel, state size
/// (`k_dim`), group count (`k_heads`), inner size = `v_heads × v_dim` with `time_step_rank`
/// heads. The attention layers are those with KV heads in a per-layer `head_count_kv` array
/// (Mamba-2 hybrids), or every `full_attention_interval`-th layer (Gated DeltaNet).
fn recurrent_of(k: &Keys, layers: u32) -> Result<Option<Recurrent>, String> {
    if let Some(l_cache) = k.key("shortconv.l_cache") {
        return shortconv(k, layers, l_cache).map(Some);
    }
    let Some(conv_kernel) = k.key("ssm.conv_kernel") else {
        return Ok(None);
    };
    let need = |x: &str| k.key(x).ok_or_else(|| format!("no {}.{x}", k.arch));
    let every = k.key("full_attention_interval");
    let attention_layers: Vec<u32> = match (k.per_layer("attention.head_count_kv", layers), every) {
        (Some(v), _) => v
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(il, _)| il as u32)
            .collect(),
        (_, Some(every)) => (0..layers)
            .filter(|il| (u64::from(*il) + 1) % every.max(1) == 0)
            .collect(),
        _ => {
            return Err(format!(
                "{}: which layers are recurrent is not modelled yet",
                k.arch
            ))
        }
    };
    let inner = need("ssm.inner_size")?;
    let v_heads = need("ssm.time_step_rank")?.max(1);
    Ok(Some(Recurrent {
        kind: if every.is_some() {
            "gated_deltanet".into()
        } else {
            "mamba2".into()
        },
        attention_layers,
        conv_kernel,
        k_heads: k.key("ssm.group_count").unwrap_or(1),
        k_dim: need("ssm.state_size")?,
        v_heads,
        v_dim: inner / v_heads,
    }))
}

/// LFM2's short-convolution layers: llama.cpp's LLM_ARCH_LFM2 loader reads the kernel from
/// `shortconv.l_cache` and makes layer `il` recurrent iff its entry of the per-layer
/// `attention.head_count_kv` is 0 (`recurrent_layer_arr[il] = n_head_kv(il) == 0`,
/// src/llama-model.cpp); LLM_ARCH_LFM2MOE the same (src/models/lfm2moe.cpp). Other
/// architectures with a short convolution are refused by name.
fn shortconv(k: &Keys, layers: u32, l_cache: u64) -> Result<Recurrent, String> {
    if k.arch != "lfm2" && k.arch != "lfm2moe" {
        return Err(format!(
            "{}: this short-convolution architecture is not modelled yet",
            k.arch
        ));
    }
    let heads = k
        .per_layer("attention.head_count_kv", layers)
        .ok_or_else(|| format!("{}: no per-layer attention.head_count_kv", k.arch))?;
    Ok(Recurrent {
        kind: "shortconv".into(),
        attention_layers: heads
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(il, _)| il as u32)
            .collect(),
        conv_kernel: l_cache,
        k_heads: 0,
        k_dim: 0,
        v_heads: 0,
        v_dim: 0,
    })
}

/// Nemotron-H (`nemotron_h`, `nemotron_h_moe`): which block each layer holds, from the
/// per-layer `attention.head_count_kv` and `feed_forward_length` arrays (llama.cpp's nemotron_h
/// loader: recurrent iff both are 0, attention iff only the FFN width is 0, else the FFN, MoE
/// when the file has experts; src/models/nemotron-h.cpp), the MLP width the largest entry, and
/// the experts' latent width (`moe_latent_size`).
fn blocks_of(k: &Keys, arch: &mut Arch) -> Result<(), String> {
    if !k.arch.starts_with("nemotron_h") {
        return Ok(());
    }
    let layers = arch.layers;
    let (Some(kv), Some(ff)) = (
        k.per_layer("attention.head_count_kv", layers),
        k.per_layer("feed_forward_length", layers),
    ) else {
        return Err(format!(
            "{}: no per-layer head_count_kv and feed_forward_length arrays",
            k.arch
        ));
    };
    if arch.recurrent.is_none() {
        return Err(format!("{}: no ssm.* keys for its Mamba-2 layers", k.arch));
    }
    let blocks = Blocks::from_layers(kv, ff, arch.is_moe());
    let widest = ff.iter().copied().max().unwrap_or(0).clamp(0, 1 << 40) as u64;
    if !arch.is_moe() && widest > 0 {
        arch.intermediate = widest;
    }
    if let Some(m) = arch.moe.as_mut() {
        m.latent = k.key("moe_latent_size").unwrap_or(0);
    }
    // The attention heads of an attention layer (the scalar key is absent or 0 in these files).
    if let Some(&n) = kv.iter().find(|&&n| n > 0) {
        arch.kv_heads = u32::try_from(n).unwrap_or(arch.kv_heads);
    }
    arch.blocks = Some(blocks);
    Ok(())
}
