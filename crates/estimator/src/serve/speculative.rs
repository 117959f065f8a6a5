//! Speculative decoding by the model's own multi-token-prediction layers (`spec=mtp`), by an
//! EAGLE-3 head (`spec=eagle`) and by n-grams (`spec=ngram`): what they add on the cards, the
//! flags each engine takes, and their words. The draft model of `draft=` is sized with the target (`serve::sizing`).

use crate::catalog::engine::Engine;
use crate::catalog::{Arch, Format};
use crate::inputs::{Inputs, Spec};
use crate::terms::kv;
use crate::units::Bytes;

/// The draft terms (weights, KV cache) of a drafter that is not a model of its own: the
/// model's MTP layers (`spec=mtp`, [`mtp`]) or an EAGLE-3 head (`spec=eagle`, [`eagle`]).
/// `None` for the other methods (a draft model is sized in `serve::sizing`).
pub(crate) fn drafter(
    i: &Inputs,
    a: &Arch,
    f: &Format,
    k: &kv::KvSizing,
) -> Option<(Bytes, Bytes)> {
    match i.spec? {
        Spec::Mtp => mtp(i, a, f, k),
        Spec::Eagle if i.engine == Engine::LlamaCpp => llama_eagle(i, k),
        Spec::Eagle => eagle(i),
        Spec::Draft | Spec::Ngram => None,
    }
}

/// `spec=mtp` on llama.cpp: the MTP layer's weights and its KV cache.
///
/// llama-server with `--spec-type draft-mtp` loads the file's NextN block (`blk.N.nextn.*`
/// after the last layer) and creates a draft context on the same model with the target's
/// context parameters (same cells, sequences and cache types), whose KV cache holds only the
/// NextN layers (llama.cpp PR #22673; the layer filter `il >= n_main`). So: the KV of that
/// many full-attention layers at the target's cells and streams, by the same rule as the
/// target's ([`kv::llama`]); the weights of the block ([`crate::catalog::tensors::mtp_blocks`])
/// at the file's mean bytes per parameter (computed: the MTP file's own mix is not modelled).
/// `None` off llama.cpp and vLLM.
fn mtp(i: &Inputs, a: &Arch, f: &Format, k: &kv::KvSizing) -> Option<(Bytes, Bytes)> {
    if i.engine == Engine::Vllm {
        return vllm_mtp(i, f);
    }
    if i.engine == Engine::Sglang {
        return sglang_mtp(i, f);
    }
    let n = crate::inputs::llama_mtp_layers(&a.model_type);
    let l = k.llama.as_ref().filter(|_| i.engine == Engine::LlamaCpp)?;
    if n == 0 {
        return None;
    }
    // A file that keeps the block (GLM's, [`crate::catalog::tensors::stored_layers`]) counts it
    // in the weights already.
    let weights = if crate::catalog::tensors::stored_layers(a) > a.layers {
        0
    } else {
        let model = params(&crate::catalog::tensors::tensors(a, !a.tied_embeddings)).max(1);
        let block = params(&crate::catalog::tensors::mtp_blocks(a, n));
        (block as f64 * f.bytes.get() as f64 / model as f64).round() as u64
    };
    let (tk, tv) = i.kv_types();
    let (cell_g, _) = kv::cell_bytes_by_kind(a, tk, tv);
    let cache = l
        .cells
        .saturating_mul(l.streams)
        .saturating_mul(u64::from(n))
        .saturating_mul(cell_g);
    Some((Bytes(weights), Bytes(cache)))
}

/// The parameters of `ts`.
fn params(ts: &[crate::catalog::tensors::Tensor]) -> u64 {
    ts.iter()
        .map(|t| t.elements())
        .fold(0u64, u64::saturating_add)
}

/// `spec=mtp` on vLLM: the MTP layer's weights the drafter loads (its KV is the target's pool's,
/// [`crate::inputs::mtp_arch`]). The target alone skips the checkpoint's `mtp.*` tensors; the
/// drafter loads them and shares the target's embedding and LM head (`load_model` in
/// vllm/v1/spec_decode/eagle.py: "Sharing target model embedding weights with the draft model").
/// A size computed without the MTP layer gets its block (embedding and head left out) at the
/// format's mean bytes per parameter; a size that counts it (a published checkpoint, or a rule
/// that keeps the block, [`crate::catalog::tensors::stored_layers`]) already holds it: 0.
fn vllm_mtp(i: &Inputs, f: &Format) -> Option<(Bytes, Bytes)> {
    use crate::catalog::tensors;
    let (_, v) = crate::catalog::catalog().variant(&i.model)?;
    let a = &v.arch;
    let n = crate::inputs::checkpoint_mtp_layers(&a.model_type);
    let counted =
        f.size != crate::catalog::SizeKind::Computed || tensors::stored_layers(a) > a.layers;
    if n == 0 || counted {
        return Some((Bytes::ZERO, Bytes::ZERO));
    }
    let block: Vec<_> = tensors::mtp_blocks(a, n)
        .into_iter()
        .filter(|t| !t.name.contains("embed_tokens") && !t.name.contains("shared_head_head"))
        .collect();
    let model = params(&tensors::tensors(a, !a.tied_embeddings)).max(1);
    let w = (params(&block) as f64 * f.bytes.get() as f64 / model as f64).round() as u64;
    Some((Bytes(w), Bytes::ZERO))
}

/// `spec=mtp` on SGLang (0.5.14 on): the MTP layer's weights as vLLM's drafter loads them
/// ([`vllm_mtp`]: SGLang's target skips the MTP layer too and its NextN draft loads it, sharing the
/// target's embedding and LM head through `set_embed_and_head`, python/sglang/srt/speculative/
/// eagle_worker.py), plus the draft's own copies of the embedding and the LM head (2 × vocabulary
/// × hidden × 2 B, BF16), which it builds and loads before SGLang sizes the pool and frees only
/// after (`init_lm_head` in `alloc_memory_pool`; <https://github.com/sgl-project/sglang/issues/36452>:
/// "each tensor is 2.54 GiB, ~5.08 GiB total" for a 248,320 × 5,120 model), so the pool is that
/// much smaller. Its layer's KV is the pool's ([`crate::inputs::mtp_arch`]). `None` off the
/// models [`crate::inputs::sglang_mtp`] takes.
fn sglang_mtp(i: &Inputs, f: &Format) -> Option<(Bytes, Bytes)> {
    let (_, v) = crate::catalog::catalog().variant(&i.model)?;
    if !crate::inputs::sglang_mtp(i, &v.arch) {
        return None;
    }
    let (w, _) = vllm_mtp(i, f)?;
    let copies = 2u64
        .saturating_mul(v.arch.vocab)
        .saturating_mul(v.arch.hidden)
        .saturating_mul(2);
    Some((w + Bytes(copies), Bytes::ZERO))
}

/// `draft=` on vLLM (`--speculative-config` with a `model`): the draft model's checkpoint on the
/// cards and its attention layers in the target's KV pool. vLLM's draft-model proposer builds
/// the draft with the target's config objects, so its layers register in the same KV cache
/// spec and block pool (`load_model` in vllm/v1/spec_decode/eagle.py, which
/// vllm/v1/spec_decode/draft_model.py extends), each token holding the draft's K and V beside
/// the target's, at the same `--kv-cache-dtype`: [`kv::paged`] of the draft at the target's
/// context and sequences. The draft keeps its own embedding and head (a model of its own).
pub(crate) fn vllm_draft(i: &Inputs, a: &Arch, f: &Format) -> (Bytes, Bytes) {
    let step = crate::serve::placement::admission_step(i);
    let kv = kv::paged(a, u64::from(i.ctx), u64::from(i.par.max(1)), i.kv, 1, step);
    (f.bytes, kv)
}

/// `spec=eagle` on vLLM and SGLang: the EAGLE-3 head's checkpoint
/// ([`crate::inputs::Eagle3Head::bytes`], computed from its config; the target's embedding
/// shared by both engines, SGLang's `set_embed` in python/sglang/srt/speculative/eagle_worker.py).
/// Its layer's KV is the pool's ([`crate::inputs::eagle_arch`]). `None` without a head or on
/// another engine.
fn eagle(i: &Inputs) -> Option<(Bytes, Bytes)> {
    if !matches!(i.engine, Engine::Vllm | Engine::Sglang) {
        return None;
    }
    let h = crate::inputs::eagle3_head(&i.model)?;
    Some((Bytes(h.bytes()), Bytes::ZERO))
}

/// `spec=eagle` on llama.cpp: the EAGLE-3 head converted to a GGUF of its own
/// ([`crate::inputs::Eagle3Head::gguf_bytes`]) and its own KV cache. llama-server loads the head
/// (`-md`, `--spec-type draft-eagle3`) as a model of one layer and gives it a context of its own
/// whose parameters are the target's (`common_base_params_to_speculative` in
/// common/speculative.cpp copies the target's `-c`, `-np`, `-kvu` and batch sizes), so its cache
/// is one layer of the head's K/V heads at the target's cells and streams, at the draft's cache
/// types (`-ctkd`/`-ctvd`, F16 by default, not the target's). `None` without a head.
fn llama_eagle(i: &Inputs, k: &kv::KvSizing) -> Option<(Bytes, Bytes)> {
    let h = crate::inputs::eagle3_head(&i.model)?;
    let l = k.llama.as_ref()?;
    let cell = 2 * h.kv_heads * h.head_dim * 2;
    let cache = l.cells.saturating_mul(l.streams).saturating_mul(cell);
    Some((Bytes(h.gguf_bytes()), Bytes(cache)))
}

/// The line that makes llama-server's EAGLE-3 head: no repo publishes the heads as GGUF, so
/// the command converts the head's checkpoint with llama.cpp's converter, which needs the
/// target's config and tokenizer beside it (`--target-model-dir`, docs/speculative.md), at the
/// head's own 16-bit type (`--outtype auto`: float16 or bfloat16, 2 B a parameter either way). Empty off `spec=eagle`.
pub(crate) fn llama_eagle_prelude(i: &Inputs) -> String {
    match crate::inputs::eagle3_head(&i.model).filter(|_| i.spec == Some(Spec::Eagle)) {
        Some(h) => format!(
            "hf download {} --local-dir eagle3-head && hf download {} --include \"*.json\" --local-dir eagle3-target && python convert_hf_to_gguf.py eagle3-head --target-model-dir eagle3-target --outtype auto --outfile eagle3-head.gguf\n",
            h.repo, h.target
        ),
        None => String::new(),
    }
}

/// The llama-server flags of `spec=mtp` and `spec=ngram`, the draft tokens per step always
/// written (tools/server/README.md at
/// <https://github.com/ggml-org/llama.cpp/blob/00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b/tools/server/README.md>:
/// `--spec-type` none | draft-simple | draft-mtp | … | ngram-mod, `--spec-draft-n-max`,
/// `--spec-ngram-mod-n-max`).
pub(crate) fn llama_flags(i: &Inputs) -> String {
    let n = i.ndraft.unwrap_or(crate::inputs::DRAFT_MAX_DEFAULT);
    match i.spec {
        Some(Spec::Mtp) => format!(" --spec-type draft-mtp --spec-draft-n-max {n}"),
        Some(Spec::Ngram) => format!(" --spec-type ngram-mod --spec-ngram-mod-n-max {n}"),
        // The head made by [`llama_eagle_prelude`].
        Some(Spec::Eagle) => {
            format!(
                " -md eagle3-head.gguf -ngld 999 --spec-type draft-eagle3 --spec-draft-n-max {n}"
            )
        }
        _ => String::new(),
    }
}

/// The repo llama-server reads for `spec=mtp`: one whose files keep the MTP layer
/// ([`crate::inputs::MTP_REPOS`]), else the chosen file's (with a notice).
pub(crate) fn mtp_repo(i: &Inputs, repo: &str) -> String {
    match crate::inputs::mtp_repo(&i.model) {
        Some(r) if i.spec == Some(Spec::Mtp) => r.to_string(),
        _ => repo.to_string(),
    }
}

/// `spec=mtp` with a model whose MTP files are not in [`crate::inputs::MTP_REPOS`]: the command
/// reads the catalog's file, which may leave the layer out.
pub(crate) fn warning(i: &Inputs) -> Option<String> {
    let llama = i.engine == Engine::LlamaCpp;
    // GLM's GGUFs keep the nextn block.
    let kept = crate::catalog::catalog()
        .variant(&i.model)
        .is_some_and(|(_, v)| crate::catalog::tensors::stored_layers(&v.arch) > v.arch.layers);
    let known = kept || crate::inputs::mtp_repo(&i.model).is_some();
    (llama && i.spec == Some(Spec::Mtp) && !known).then(|| {
        format!(
            "--spec-type draft-mtp needs a GGUF that keeps the MTP layer (blk.N.nextn tensors); the command's file for {} may leave it out: run one that keeps it (unsloth's -MTP-GGUF repos do).",
            i.model
        )
    })
}

/// vLLM's `--speculative-config` for `spec=ngram` (docs/features/spec_decode.md: method
/// `ngram`, `num_speculative_tokens`, `prompt_lookup_max`), proposed on the CPU from the
/// request's own tokens, so nothing on the cards.
pub(crate) fn vllm_flags(i: &Inputs) -> String {
    let draft = i
        .draft
        .as_deref()
        .and_then(|d| d.file(Engine::Vllm))
        .filter(|f| !f.repo.is_empty());
    match (i.spec, i.ndraft) {
        (Some(Spec::Draft), Some(n)) => draft.map_or(String::new(), |f| {
            format!(
                " --speculative-config '{{\"model\":\"{}\",\"num_speculative_tokens\":{n}}}'",
                f.repo
            )
        }),
        // The checkpoint's own MTP layers (method `mtp`, vllm/config/speculative.py).
        (Some(Spec::Mtp), Some(n)) => format!(
            " --speculative-config '{{\"method\":\"mtp\",\"num_speculative_tokens\":{n}}}'"
        ),
        (Some(Spec::Ngram), Some(n)) => format!(
            " --speculative-config '{{\"method\":\"ngram\",\"num_speculative_tokens\":{n},\"prompt_lookup_max\":4}}'"
        ),
        // An EAGLE-3 head of its own repo (method `eagle3`, vllm/config/speculative.py).
        (Some(Spec::Eagle), Some(n)) => crate::inputs::eagle3_head(&i.model).map_or(String::new(), |h| {
            format!(
                " --speculative-config '{{\"method\":\"eagle3\",\"model\":\"{}\",\"num_speculative_tokens\":{n}}}'",
                h.repo
            )
        }),
        _ => String::new(),
    }
}

/// SGLang's n-gram drafter (`--speculative-algorithm NGRAM`, server_args.py), its draft tokens
/// per step (`--speculative-num-draft-tokens`), matched in a CPU-side cache; and its EAGLE-3
/// drafter (`--speculative-algorithm EAGLE3` with the head's repo as
/// `--speculative-draft-model-path`), written as a chain: `ndraft` steps of one token each
/// (`--speculative-eagle-topk 1`), which SGLang verifies as steps + 1 tokens (with topk 1 it sets
/// `--speculative-num-draft-tokens` to steps + 1 itself; docs/advanced_features/speculative_decoding.md).
/// All three are written: SGLang picks its own defaults only when none is given, and those differ
/// by model and version.
pub(crate) fn sglang_flags(i: &Inputs) -> String {
    match (i.spec, i.ndraft) {
        (Some(Spec::Ngram), Some(n)) => {
            format!(" --speculative-algorithm NGRAM --speculative-num-draft-tokens {n}")
        }
        // The model's own MTP layer: SGLang's EAGLE drafter reads it from the model's checkpoint
        // (NEXTN is its alias; docs/basic_usage/deepseek_v3.md).
        (Some(Spec::Mtp), Some(n)) => format!(" --speculative-algorithm EAGLE{}", sglang_chain(n)),
        (Some(Spec::Eagle), Some(n)) => {
            crate::inputs::eagle3_head(&i.model).map_or(String::new(), |h| {
                format!(
                    " --speculative-algorithm EAGLE3 --speculative-draft-model-path {}{}",
                    h.repo,
                    sglang_chain(n)
                )
            })
        }
        _ => String::new(),
    }
}

/// SGLang's draft as a chain of `n` steps of one token each, verified as `n` + 1 tokens (with
/// top-k 1 SGLang sets the draft tokens to steps + 1 itself: docs/advanced_features/
/// speculative_decoding.md); all three written, as its defaults differ by model and version.
fn sglang_chain(n: u32) -> String {
    format!(
        " --speculative-num-steps {n} --speculative-eagle-topk 1 --speculative-num-draft-tokens {}",
        n.saturating_add(1)
    )
}

/// The MTP layer's weights (`kv`: its KV cache) in words.
pub(crate) fn mtp_text(i: &Inputs, kv: bool) -> String {
    if i.engine == Engine::Sglang {
        return if kv {
            "the MTP layer's cache: one more layer per token in SGLang's pool".into()
        } else {
            "the checkpoint's MTP layer (its block at the format's mean bytes per parameter where the size left it out), and the draft's own BF16 copies of the embedding and the LM head, 2 × vocabulary × hidden × 2 B, held while SGLang sizes its pool".into()
        };
    }
    if i.engine == Engine::Vllm {
        return "the checkpoint's MTP layer, which vLLM loads only for its mtp drafter (the embedding and the LM head shared with the target), at the format's mean bytes per parameter; its KV cache is the pool's (one more full-attention layer per token)".into();
    }
    if kv {
        format!(
            "the MTP layer's own cache: one full-attention layer at the target's cells and cache types ({} slot(s))",
            i.par.max(1)
        )
    } else {
        "the file's MTP (NextN) layer, loaded by --spec-type draft-mtp: its parameters at the file's mean bytes per parameter".into()
    }
}

/// The EAGLE-3 head's weights (`kv`: its KV cache) in words.
pub(crate) fn eagle_text(i: &Inputs, kv: bool) -> String {
    let Some(h) = crate::inputs::eagle3_head(&i.model) else {
        return String::new();
    };
    if i.engine == Engine::LlamaCpp {
        return if kv {
            format!(
                "the head's own cache: one layer of {} K/V heads × {} at the target's cells and streams, F16 (-ctkd/-ctvd)",
                h.kv_heads, h.head_dim
            )
        } else {
            format!(
                "{} converted to GGUF at its own 16-bit type: {} parameters × 2 B and its draft-to-target map (d2t, 8 B per draft token; t2d dropped); the embedding is the target's",
                h.repo,
                h.params()
            )
        };
    }
    if kv {
        format!(
            "{}'s decoder layer: one more full-attention layer in the target's KV pool",
            h.repo
        )
    } else {
        format!(
            "{}: {} parameters (one decoder layer, its fc over three of the target's layers and a {}-token LM head; the embedding is the target's) × {} B, with its token maps (computed from its config)",
            h.repo,
            h.params(),
            h.draft_vocab,
            h.dtype_bytes
        )
    }
}

/// Where an EAGLE-3 head's memory comes from and where it was checked, on `engine` (vLLM or
/// SGLang).
pub(crate) fn eagle_words(engine: Engine) -> (&'static str, &'static str) {
    match engine {
        Engine::Sglang => (SGLANG_EAGLE_PROVENANCE, SGLANG_EAGLE_DOMAIN),
        Engine::LlamaCpp => (LLAMA_EAGLE_PROVENANCE, LLAMA_EAGLE_DOMAIN),
        _ => (EAGLE_PROVENANCE, EAGLE_DOMAIN),
    }
}

/// Where an EAGLE-3 head's memory comes from on llama.cpp.
const LLAMA_EAGLE_PROVENANCE: &str = prose!("llama-server -md HEAD.gguf --spec-type draft-eagle3 (https://github.com/ggml-org/llama.cpp/pull/18039, docs/speculative.md): the head converted by convert_hf_to_gguf.py --target-model-dir (fc, one decoder layer whose q/k/v read the embedding and the hidden state side by side, four norms, its LM head over the draft vocabulary, d2t as I64 target ids; t2d dropped; no token_embd, so the target's is used: src/models/eagle3.cpp), loaded as a model of its own with a context of its own whose parameters are the target's (common_base_params_to_speculative in common/speculative.cpp: the same -c, -np, -kvu and batch sizes), so its KV cache is one layer of the head's K/V heads at the target's cells and streams, at the draft cache types -ctkd/-ctvd (F16 by default).");

/// Where an EAGLE-3 head's memory was checked on llama.cpp.
const LLAMA_EAGLE_DOMAIN: &str = prose!("The rule read from llama.cpp's source after PR #18039 (master of July 2026); no startup log with the head compared yet. The weights computed from the head's config at 2 B a parameter (the command's --outtype auto keeps its float16 or bfloat16). Not counted: the head's compute buffer, which reserves full-vocabulary logits for a micro-batch (about -ub × vocabulary × 4 B, 250 MiB for Llama-3.1-8B at -ub 512, plus the draft vocabulary's), the target's three captured hidden states (at most 3 × hidden × -ub × 4 B in its compute buffer, and 3 × hidden × -b × 4 B in pinned host memory), and the extra logits rows the server reserves per slot for the draft tokens. Targets llama.cpp captures hidden states from: Llama, Qwen3, Qwen3-MoE, Qwen3.5/3.6, Qwen3-Next, Gemma 4, gpt-oss, MiniMax-M2.");

/// Where an EAGLE-3 head's memory comes from on SGLang.
const SGLANG_EAGLE_PROVENANCE: &str = prose!("SGLang --speculative-algorithm EAGLE3: the head's checkpoint (one Llama decoder layer, an fc layer over three of the target's hidden states, its own LM head over the draft vocabulary; python/sglang/srt/models/llama_eagle3.py, one layer only) with the target's embedding shared (set_embed, python/sglang/srt/speculative/eagle_worker.py). From 0.5.14 the KV pool is sized after both models' weights are loaded, so the head's weights come out of --mem-fraction-static (https://github.com/sgl-project/sglang/pull/28683), and its tokens are the free static share over the target's per-token bytes grown by the draft's layers, cell_size × (1 + draft layers / layers) (python/sglang/srt/model_executor/pool_configurator.py, https://github.com/sgl-project/sglang/pull/23862); the draft's own pool holds as many tokens at the same cache type: one more layer of the target's shape per token. The head's bytes are computed from its config and checked against the size its file list publishes (tests/eagle3.rs).");

/// Where an EAGLE-3 head's memory was checked on SGLang.
const SGLANG_EAGLE_DOMAIN: &str = prose!("SGLang 0.5.14 and later, the rule read from its source; no startup log with and without the head compared yet. Before 0.5.14 SGLang sized the target's pool without the head and loaded the head's weights and its pool afterwards in the 1 − --mem-fraction-static share (with a 2 to 4 GiB reserve in its automatic fraction), which this estimate does not check. Not counted: the draft's CUDA graphs and activations, which also live in that share. Heads whose layer matches the target's K/V heads and head size only.");

/// Where an EAGLE-3 head's memory comes from.
const EAGLE_PROVENANCE: &str = prose!("vLLM --speculative-config method eagle3: the head's checkpoint (one Llama decoder layer named after the target's last layer, an fc layer over three of the target's hidden states, its own LM head over the draft vocabulary and the draft-to-target token map; vllm/model_executor/models/llama_eagle3.py); a checkpoint without embed_tokens shares the target's embedding (vllm/v1/spec_decode/eagle.py, load_model); its attention layer joins the target's KV cache spec and block pool (one KV cache group asserted, validate_same_kv_cache_group), so the pool's per-token bytes count one more layer. The head's bytes are computed from its config and checked against the size its file list publishes (tests/eagle3.rs).");

/// Where an EAGLE-3 head's memory was checked.
const EAGLE_DOMAIN: &str = prose!("The rule read from vLLM's source; a head's size within 0.1 % of the size its file list shows where one is published (the Llama heads; the Qwen3-8B head's is computed from its training config only); no startup log with and without the head compared yet. Not counted: the proposer's buffers sized by --max-num-batched-tokens (hidden states and embeddings at the head's width), its profiled forward passes and CUDA graphs. Heads whose layer matches the target's K/V heads and head size only.");

/// Where the MTP layer's memory comes from and where it was checked, on `engine`.
pub(crate) fn mtp_words(engine: Engine) -> (&'static str, &'static str) {
    if engine == Engine::Sglang {
        (SGLANG_MTP_PROVENANCE, SGLANG_MTP_DOMAIN)
    } else {
        (MTP_PROVENANCE, MTP_DOMAIN)
    }
}

/// Where the MTP layer's memory comes from on SGLang.
const SGLANG_MTP_PROVENANCE: &str = prose!("SGLang --speculative-algorithm EAGLE on a model with an MTP layer (DeepSeek-V3, GLM-4.5 to 4.7; NEXTN is its alias, docs/basic_usage/deepseek_v3.md): the draft is read from the model's own checkpoint, its MTP layer loaded by the draft and skipped by the target, the target's embedding and LM head shared (set_embed_and_head, python/sglang/srt/speculative/eagle_worker.py). From 0.5.14 the pool is sized after both models' weights are loaded (https://github.com/sgl-project/sglang/pull/28683), each token's bytes grown by the draft's num_nextn_predict_layers over the target's layers (python/sglang/srt/model_executor/pool_configurator.py); the draft's own copies of the embedding and the LM head are built and loaded before that and freed only after it (https://github.com/sgl-project/sglang/issues/36452), so the pool is smaller by them.");

/// Where the MTP layer's memory was checked on SGLang.
const SGLANG_MTP_DOMAIN: &str = prose!("SGLang 0.5.14 to 0.5.23, the rule read from its source; no startup log with and without MTP compared yet. The copies of the embedding and LM head held while the pool is sized are SGLang's own behaviour in those versions (open fixes would free them first: https://github.com/sgl-project/sglang/pull/35996). Not counted: the draft's CUDA graphs and activations, in the 1 − --mem-fraction-static share. Before 0.5.14 the draft's weights and pool came out of that share instead. Hybrid models (Qwen3.5/3.6, Qwen3-Next) and DSA models (DeepSeek-V3.2, GLM-5) refused.");

/// Where the MTP layer's memory comes from.
const MTP_PROVENANCE: &str = prose!("vLLM --speculative-config method mtp: the target skips the checkpoint's mtp.* tensors and the drafter loads them, sharing the target's embedding and LM head (vllm/v1/spec_decode/eagle.py, load_model); the drafter's attention layers join the target's KV cache spec and block pool (gpu_model_runner.py get_kv_cache_spec; one KV cache group asserted), so the pool's per-token bytes count the MTP layers too. llama-server --spec-type draft-mtp (https://github.com/ggml-org/llama.cpp/pull/22673): the file's NextN block after the last layer (blk.N.nextn.*: a full-attention layer, its FFN, eh_proj and its norms) and a draft context on the same model with the target's context parameters, whose KV cache holds only the NextN layers; on a hybrid model llama-server keeps --spec-draft-n-max extra recurrent states per sequence for rollback (common/common.h, need_n_rs_seq: the rsseq key).");

/// Where the MTP layer's memory was checked.
const MTP_DOMAIN: &str = prose!("GLM-4.5 to 4.7 on llama.cpp: builds from PR #28630 on (earlier ones gave the draft context every layer's KV). vLLM: the rule read from its source, no startup log with and without MTP compared yet; not counted: the drafter's buffers sized by --max-num-batched-tokens, its profiled forward passes and CUDA graphs, the extra recurrent-state pages a hybrid model reserves per request for the draft tokens, and the lookahead slots the scheduler reserves at run time; a quantized checkpoint that dropped the MTP layer cannot run it. llama.cpp with a Qwen3.5, Qwen3.6 or Qwen3-Next GGUF that carries the MTP layer (unsloth's -MTP-GGUF repos), every layer on the GPU; the KV by the target's byte-exact rule; the weights computed at the file's mean bytes per parameter (the MTP file's per-tensor mix not modelled). Not counted: the MTP context's compute buffer. On several cards the layer's bytes are spread as the target's layers are (llama.cpp puts it with the last layer). No startup log with MTP compared yet.");

/// Where a vLLM draft model's memory comes from.
pub(crate) const VLLM_DRAFT_PROVENANCE: &str = prose!("vLLM --speculative-config with a draft model: the draft's checkpoint loaded beside the target, its attention layers registered in the same KV cache spec and block pool (vllm/v1/spec_decode/draft_model.py, eagle.py load_model; gpu_model_runner.py get_kv_cache_spec), so each token holds the draft's K and V beside the target's at the same --kv-cache-dtype; the draft keeps its own embedding and LM head.");

/// Where a vLLM draft model's memory was checked.
pub(crate) const VLLM_DRAFT_DOMAIN: &str = prose!("The rule read from vLLM's source; no startup log with a draft model compared yet. Counted at the requested context and requests (the pool's share the draft's layers take at that load); not counted: the draft's profiled forward passes and CUDA graphs, and its KV heads replicated when it has fewer than the tensor-parallel cards.");
