//! Speculative decoding as the link gives it (`spec=`, `draft=`, `draftq=`, `ndraft=`,
//! `rsseq=`), made consistent with the model and the engine: what each engine drafts with, and
//! the recurrent states a hybrid model keeps for rollback.

use crate::inputs::{Inputs, Notice};

ids! {
    /// How the next tokens are drafted (`spec=`).
    Spec {
        /// A draft model of its own (`draft=`; llama.cpp `--spec-type draft-simple`).
        Draft = "draft",
        /// The model's own multi-token-prediction layers (llama.cpp `--spec-type draft-mtp`).
        Mtp = "mtp",
        /// An EAGLE-3 head trained for the model.
        Eagle = "eagle",
        /// Tokens looked up in the prompt and the text so far (llama.cpp `--spec-type ngram-mod`).
        Ngram = "ngram",
    }
}

/// Draft tokens per step of llama.cpp's n-gram drafter when `ndraft=` is not given: its own
/// `--spec-ngram-mod-n-max` default, 64 (tools/server/README.md at
/// <https://github.com/ggml-org/llama.cpp/blob/00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b/tools/server/README.md>).
pub const NGRAM_MAX_DEFAULT: u32 = 64;

/// The multi-token-prediction layers llama.cpp's `draft-mtp` runs for `model_type`: the one
/// NextN layer of Qwen3.5/3.6 (`qwen35`, `qwen35moe`: llama.cpp PR #22673,
/// <https://github.com/ggml-org/llama.cpp/pull/22673>) and Qwen3-Next (PR #25589,
/// <https://github.com/ggml-org/llama.cpp/pull/25589>), each config's `mtp_num_hidden_layers: 1`
/// (e.g. <https://huggingface.co/Qwen/Qwen3.6-27B/blob/main/config.json>), and GLM-4.5/4.6/4.7
/// (`glm4moe`, whose GGUFs keep the nextn block; its draft context holds the NextN layer's KV
/// only since PR #28630, <https://github.com/ggml-org/llama.cpp/pull/28630>, earlier builds every
/// layer's). 0 for the rest.
pub fn llama_mtp_layers(model_type: &str) -> u32 {
    match model_type {
        "qwen3_5" | "qwen3_5_moe" | "qwen3_next" | "glm4_moe" => 1,
        _ => 0,
    }
}

/// The multi-token-prediction layers a Hugging Face checkpoint of `model_type` carries (its
/// config's `num_nextn_predict_layers` or `mtp_num_hidden_layers`), which vLLM's `mtp` drafter
/// runs: 1 for Qwen3.5/3.6 (`mtp_num_hidden_layers: 1`,
/// <https://huggingface.co/Qwen/Qwen3.6-27B/blob/main/config.json>), Qwen3-Next
/// (`num_nextn_predict_layers: 1`,
/// <https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json>), GLM-4.5/4.6/4.7
/// and GLM-4.7-Flash (`num_nextn_predict_layers: 1`,
/// <https://huggingface.co/zai-org/GLM-4.5/blob/main/config.json>), GLM-5
/// (<https://huggingface.co/zai-org/GLM-5/blob/main/config.json>) and DeepSeek-V3/V3.2
/// (`num_nextn_predict_layers: 1`, <https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json>);
/// vLLM maps each to its MTP model (`MTPModelTypes`, vllm/config/speculative.py). 0 for the rest.
pub fn checkpoint_mtp_layers(model_type: &str) -> u32 {
    match model_type {
        "qwen3_5" | "qwen3_5_moe" | "qwen3_next" | "glm4_moe" | "glm4_moe_lite" | "glm_moe_dsa"
        | "deepseek_v3" | "deepseek_v32" => 1,
        _ => 0,
    }
}

/// `spec=mtp` on vLLM: `a` with the drafter's MTP layers as more full-attention layers, for the
/// KV cache. vLLM registers the drafter's attention layers in the same KV cache spec and block
/// pool as the target's (`load_model` in vllm/v1/spec_decode/eagle.py collects them;
/// `get_kv_cache_spec` in vllm/v1/worker/gpu_model_runner.py emits a spec per layer), so each
/// token's KV grows by the MTP layers' share; on a hybrid model the MTP layer is one more
/// full-attention layer (`Qwen3NextDecoderLayer(layer_type="full_attention")`,
/// vllm/model_executor/models/qwen3_next_mtp.py). None otherwise.
#[cfg(feature = "spec")]
pub fn mtp_arch(i: &Inputs, a: &crate::catalog::Arch) -> Option<crate::catalog::Arch> {
    let n = checkpoint_mtp_layers(&a.model_type);
    let vllm = i.engine == crate::catalog::engine::Engine::Vllm;
    let served = vllm || sglang_mtp(i, a);
    if !served || i.spec != Some(Spec::Mtp) || n == 0 || a.swa.is_some() || a.kv_layers.is_some() {
        return None;
    }
    let mut m = a.clone();
    if let Some(r) = m.recurrent.as_mut() {
        r.attention_layers
            .extend(a.layers..a.layers.saturating_add(n));
    }
    m.layers = a.layers.saturating_add(n);
    Some(m)
}

/// SGLang's MTP (`--speculative-algorithm EAGLE`, its NEXTN) for `a`, as estimated: DeepSeek-V3's
/// and GLM-4.5 to 4.7's, whose draft SGLang reads from the model's own checkpoint and whose draft
/// layer its pool budgets (0.5.14 on: the draft's `num_nextn_predict_layers` grow each token's
/// bytes, python/sglang/srt/model_executor/pool_configurator.py). Hybrid models' native MTP leaves
/// that layer out of the budget (<https://github.com/sgl-project/sglang/pull/35566>) and DSA models
/// add an indexer cache: refused.
#[cfg(feature = "spec")]
pub fn sglang_mtp(i: &Inputs, a: &crate::catalog::Arch) -> bool {
    i.engine == crate::catalog::engine::Engine::Sglang
        && matches!(a.model_type.as_str(), "deepseek_v3" | "glm4_moe")
}

/// An EAGLE-3 draft head trained for a target model (vLLM `--speculative-config` method
/// `eagle3`): one decoder layer fed the target's hidden states of three layers, its own LM head
/// over a smaller draft vocabulary, the target's embedding shared. Its shapes are its
/// `config.json`'s; its bytes are computed from them ([`Eagle3Head::bytes`]) and checked against
/// the size its file list publishes (`tests/eagle3.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eagle3Head {
    /// The model it drafts for (a catalog id).
    pub target: &'static str,
    /// Its repo on the Hub.
    pub repo: &'static str,
    /// `hidden_size` (the draft layer's width).
    pub hidden: u64,
    /// The target's hidden size (the `fc` layer reads three of its layers' outputs).
    pub target_hidden: u64,
    /// `intermediate_size`.
    pub intermediate: u64,
    /// `num_attention_heads`.
    pub heads: u64,
    /// `num_key_value_heads`.
    pub kv_heads: u64,
    /// `head_dim`.
    pub head_dim: u64,
    /// `draft_vocab_size` (its LM head's rows).
    pub draft_vocab: u64,
    /// `vocab_size` (the target's: the `t2d` map has one byte per entry).
    pub vocab: u64,
    /// Bytes per parameter of `torch_dtype`.
    pub dtype_bytes: u64,
    /// Where the shapes are published.
    pub config_source: &'static str,
    /// The checkpoint's size as its file list prints it (rounded to three digits), and where;
    /// `None` where no list was found (the size is then computed only).
    pub published: Option<(u64, &'static str)>,
}

impl Eagle3Head {
    /// Parameters: `fc` 3·Ht·H, q/k/v reading the embedding and the hidden state side by side
    /// 2H·(heads + 2·kv_heads)·head_dim, o heads·head_dim·H, the MLP 3·H·I, the LM head
    /// draft_vocab·H and four norms 4H (the layer's two, the hidden-state norm, the final one);
    /// no embedding (the checkpoint leaves it out and vLLM shares the target's: `load_model` in
    /// vllm/v1/spec_decode/eagle.py).
    pub fn params(&self) -> u64 {
        let (h, ht) = (self.hidden, self.target_hidden);
        3 * ht * h
            + 2 * h * (self.heads + 2 * self.kv_heads) * self.head_dim
            + self.heads * self.head_dim * h
            + 3 * h * self.intermediate
            + self.draft_vocab * h
            + 4 * h
    }

    /// The checkpoint's bytes (computed): the parameters in `torch_dtype`, the draft-to-target
    /// token map (`d2t`, 8 B per draft token) and the target-to-draft mask (`t2d`, 1 B per
    /// target token).
    pub fn bytes(&self) -> u64 {
        self.params() * self.dtype_bytes + self.draft_vocab * 8 + self.vocab
    }

    /// The head as llama.cpp's converter writes it at its own 16-bit type (computed): the parameters at 2 B and
    /// the draft-to-target map as I64 target ids (`d2t`, 8 B per draft token); the
    /// target-to-draft mask is dropped (conversion/llama.py, `convert_hf_to_gguf.py
    /// --target-model-dir`). The GGUF's metadata (the target's tokenizer) stays on the host.
    pub fn gguf_bytes(&self) -> u64 {
        self.params() * 2 + self.draft_vocab * 8
    }
}

/// The EAGLE-3 heads the estimate knows, by target.
pub const EAGLE3_HEADS: &[Eagle3Head] = &[
    Eagle3Head {
        target: "meta-llama/Llama-3.1-8B-Instruct",
        // vLLM's own example and test head for method eagle3
        // (examples/offline_inference/spec_decode.py in vllm-project/vllm).
        repo: "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        hidden: 4096,
        target_hidden: 4096,
        intermediate: 14336,
        heads: 32,
        kv_heads: 8,
        head_dim: 128,
        draft_vocab: 32000,
        vocab: 128256,
        dtype_bytes: 2,
        // head_dim: hidden_size / num_attention_heads (the config leaves it out).
        config_source: "https://github.com/SafeAILab/EAGLE/blob/9666a8182d9bed8b5b637fd4a126c90d9b9c3db2/eagle/traineagle3/config.json (the EAGLE authors' EAGLE-3 config for LLaMA-3.1-8B, 591 B like the head's config.json in https://huggingface.co/yuhuili/EAGLE3-LLaMA3.1-Instruct-8B/tree/main)",
        published: Some((
            850_000_000,
            "https://huggingface.co/yuhuili/EAGLE3-LLaMA3.1-Instruct-8B/tree/main (pytorch_model.bin, 850 MB)",
        )),
    },
    Eagle3Head {
        target: "meta-llama/Llama-3.3-70B-Instruct",
        // SGLang's SpecForge head, its card's command `--speculative-algorithm EAGLE3
        // --speculative-draft-model-path` this repo.
        repo: "lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge",
        hidden: 8192,
        target_hidden: 8192,
        intermediate: 28672,
        heads: 64,
        kv_heads: 8,
        head_dim: 128,
        draft_vocab: 32000,
        vocab: 128256,
        dtype_bytes: 2,
        config_source: "https://github.com/sgl-project/SpecForge/blob/82b62f6ebe950866925384d4c90f62aa3594934f/configs/llama3-70B-ealge3.json (SpecForge's training config of the head: LlamaForCausalLMEagle3, one layer, float16)",
        published: Some((
            2_810_000_000,
            "https://huggingface.co/lmsys/SGLang-EAGLE3-Llama-3.3-70B-Instruct-SpecForge/tree/main (model.safetensors, 2.81 GB)",
        )),
    },
    Eagle3Head {
        target: "Qwen/Qwen3-8B",
        // Tencent AngelSlim's head, listed for Qwen3-8B by the EAGLE authors
        // (https://github.com/SafeAILab/EAGLE/blob/cb7e0841fe0c206c6ed74a197ad5e2a1f13f5a2b/README.md)
        // and named by llama.cpp's docs/speculative.md.
        repo: "AngelSlim/Qwen3-8B_eagle3",
        hidden: 4096,
        target_hidden: 4096,
        intermediate: 12288,
        heads: 32,
        kv_heads: 8,
        head_dim: 128,
        draft_vocab: 32000,
        vocab: 151936,
        dtype_bytes: 2,
        config_source: "https://github.com/Tencent/AngelSlim/blob/1c786f257908ea4c45b058c33816732f6cd35e6f/angelslim/compressor/speculative/train/configs/qwen3-8b-eagle3.json (AngelSlim's training config of its Qwen3-8B head: Eagle3LlamaForCausalLM, one layer, bfloat16)",
        published: None,
    },
];

/// The head of [`EAGLE3_HEADS`] for `model`.
pub fn eagle3_head(model: &str) -> Option<&'static Eagle3Head> {
    EAGLE3_HEADS.iter().find(|h| h.target == model)
}

/// `spec=eagle` on vLLM and SGLang: `a` (the architecture of `id`) with the head's decoder layer
/// as one more full-attention layer, for the KV cache. vLLM names it after the target's layers
/// (`layers.{target_layer_num}`, vllm/model_executor/models/llama_eagle3.py) and registers it in
/// the target's KV cache spec and block pool, one group asserted (`validate_same_kv_cache_group`
/// in vllm/v1/spec_decode/eagle.py). SGLang (0.5.14 on) sizes its pool's tokens with the
/// target's per-token bytes grown by the draft's layers over the target's
/// (`cell_size × (1 + draft layers / layers)`, python/sglang/srt/model_executor/pool_configurator.py)
/// and gives the draft's own pool as many tokens at the same cache type: the same bytes. Only a
/// head whose K/V heads and head size are the target's (its KV then one more of the target's
/// layers). None otherwise.
#[cfg(feature = "spec")]
pub fn eagle_arch(i: &Inputs, id: &str, a: &crate::catalog::Arch) -> Option<crate::catalog::Arch> {
    use crate::catalog::engine::Engine;
    let served = matches!(i.engine, Engine::Vllm | Engine::Sglang);
    let h = eagle3_head(id).filter(|_| served && i.spec == Some(Spec::Eagle))?;
    let same = h.kv_heads == u64::from(a.kv_heads) && h.head_dim == a.head_dim;
    if !same || a.swa.is_some() || a.kv_layers.is_some() || a.recurrent.is_some() {
        return None;
    }
    let mut m = a.clone();
    m.layers = a.layers.saturating_add(1);
    Some(m)
}

/// The GGUF repos whose files keep the MTP layer, by model: the usual GGUFs of Qwen3.5/3.6
/// leave it out, unsloth publishes the files that keep it beside them (model, repo, source).
pub const MTP_REPOS: &[(&str, &str, &str)] = &[
    (
        "Qwen/Qwen3.6-27B",
        "unsloth/Qwen3.6-27B-MTP-GGUF",
        "https://huggingface.co/unsloth/Qwen3.6-27B-MTP-GGUF (described at https://thelgtm.dev/unsloths-qwen3-6-mtp-ggufs-make-local-coding-agents-less-theoretical/)",
    ),
    (
        "Qwen/Qwen3.5-27B",
        "unsloth/Qwen3.5-27B-MTP-GGUF",
        "https://github.com/ggml-org/llama.cpp/issues/28196 ('the unsloth file with the head is Qwen3.5-27B-MTP-GGUF')",
    ),
];

/// The repo of [`MTP_REPOS`] for `model`.
pub fn mtp_repo(model: &str) -> Option<&'static str> {
    MTP_REPOS.iter().find(|r| r.0 == model).map(|r| r.1)
}

/// A build without the `spec` feature reads none of these keys.
#[cfg(not(feature = "spec"))]
pub(super) fn speculation(_: &mut Inputs, _: &mut Vec<Notice>) {}

#[cfg(feature = "spec")]
pub(super) use rules::speculation;

/// The rules (a build without the `spec` feature leaves them out).
#[cfg(feature = "spec")]
mod rules {
    use super::*;
    use crate::catalog::catalog;
    use crate::catalog::engine::Engine;
    use crate::catalog::quant::Quant;
    use crate::inputs::Key;

    /// Speculative decoding made consistent: the method (`spec=`, `draft` when `draft=` is given),
    /// the draft model ([`draft_model`]), the draft tokens per step (the engine's default when
    /// not given) and the rollback states ([`rollback_states`]).
    pub(in crate::inputs) fn speculation(i: &mut Inputs, notices: &mut Vec<Notice>) {
        let asked = i.spec.is_some() || i.draft.as_ref().is_some_and(|d| !d.model.is_empty());
        method(i, notices);
        draft_model(i, notices);
        // A draft model refused is no speculative decoding.
        if i.spec == Some(Spec::Draft) && i.draft.is_none() {
            i.spec = None;
        }
        match i.spec {
            None => {
                // Said already when a method was asked for and refused.
                if i.ndraft.take().is_some() && !asked {
                    say(
                        notices,
                        Key::Ndraft,
                        "ndraft needs spec= or draft=; ignored".into(),
                    );
                }
            }
            Some(s) => {
                let default = if s == Spec::Ngram && i.engine == Engine::LlamaCpp {
                    NGRAM_MAX_DEFAULT
                } else {
                    crate::inputs::DRAFT_MAX_DEFAULT
                };
                i.ndraft = Some(i.ndraft.unwrap_or(default));
            }
        }
        // llama-server keeps `--spec-draft-n-max` extra states per sequence when the model's own
        // MTP layers or an EAGLE-3 head draft on a hybrid model (common/common.h,
        // `need_n_rs_seq`), unless set.
        let eagle = i.spec == Some(Spec::Eagle) && i.engine == Engine::LlamaCpp;
        if (i.spec == Some(Spec::Mtp) || eagle) && i.rsseq == 0 && recurrent(i) {
            i.rsseq = i.ndraft.unwrap_or(crate::inputs::DRAFT_MAX_DEFAULT);
        }
        rollback_states(i, notices);
    }

    fn say(notices: &mut Vec<Notice>, key: Key, message: String) {
        notices.push(Notice {
            key: key.into(),
            message,
        });
    }

    fn recurrent(i: &Inputs) -> bool {
        catalog()
            .variant(&i.model)
            .is_some_and(|(_, v)| v.arch.recurrent_layers() > 0)
    }

    /// `spec=` against `draft=`, the engine and the model: what each engine drafts with here.
    fn method(i: &mut Inputs, notices: &mut Vec<Notice>) {
        let has_draft = i.draft.as_ref().is_some_and(|d| !d.model.is_empty());
        let spec = match (i.spec, has_draft) {
            (None, true) => Spec::Draft,
            (None, false) => return,
            (Some(Spec::Draft), false) => {
                say(
                    notices,
                    Key::Spec,
                    "spec=draft needs a draft model (draft=); no speculative decoding".into(),
                );
                i.spec = None;
                return;
            }
            (Some(s), true) if s != Spec::Draft => {
                say(
                    notices,
                    Key::Draft,
                    format!("spec={s} drafts without a draft model; draft= ignored"),
                );
                i.draft = None;
                s
            }
            (Some(s), _) => s,
        };
        i.spec = Some(spec);
        if let Some(why) = refusal(i, spec) {
            say(
                notices,
                Key::Spec,
                format!("{why}; no speculative decoding"),
            );
            i.spec = None;
            i.draft = None;
        }
    }

    /// Why `spec` cannot be estimated for this engine and model, if it cannot.
    fn refusal(i: &Inputs, spec: Spec) -> Option<String> {
        let engine = i.engine;
        match (spec, engine) {
            (Spec::Draft, _) => None,
            (_, Engine::Ollama) => Some("Ollama has no speculative decoding setting".into()),
            (Spec::Eagle, Engine::Vllm | Engine::Sglang | Engine::LlamaCpp) => eagle_refusal(i),
            (Spec::Eagle, _) => Some(format!(
                "an EAGLE-3 head on {} is not estimated (llama.cpp's draft-eagle3, vLLM's eagle3 and SGLang's EAGLE3 are)",
                engine.label()
            )),
            // transformers' prompt lookup (`prompt_lookup_num_tokens`) is assisted generation,
            // which takes one sequence at a time (generation/utils.py: "assisted generate is
            // only supported for batch_size = 1").
            (Spec::Ngram, Engine::Transformers) if i.par > 1 => {
                Some("transformers' prompt lookup decodes one request at a time (par=1)".into())
            }
            (Spec::Ngram, Engine::Transformers) => None,
            (_, Engine::Transformers | Engine::Mlx) => Some(format!(
                "spec={spec} on {} is not estimated (llama.cpp's, vLLM's and SGLang's servers are)",
                engine.label()
            )),
            (Spec::Ngram, _) => None,
            (Spec::Mtp, Engine::LlamaCpp) => {
                let t = catalog()
                    .variant(&i.model)
                    .map_or("", |(_, v)| v.arch.model_type.as_str());
                (llama_mtp_layers(t) == 0).then(|| {
                    format!(
                        "llama.cpp's draft-mtp runs the MTP layer of Qwen3.5, Qwen3.6, Qwen3-Next and \
                         GLM-4.5 to 4.7, not {}",
                        i.model
                    )
                })
            }
            (Spec::Mtp, Engine::Vllm) => {
                let t = catalog()
                    .variant(&i.model)
                    .map_or("", |(_, v)| v.arch.model_type.as_str());
                (checkpoint_mtp_layers(t) == 0)
                    .then(|| format!("{} has no MTP layer for vLLM's mtp drafter", i.model))
            }
            (Spec::Mtp, Engine::Sglang) => {
                let a = &catalog().variant(&i.model)?.1.arch;
                (!sglang_mtp(i, a)).then(|| {
                    format!(
                        "SGLang's MTP of {} is not estimated (DeepSeek-V3's and GLM-4.5 to 4.7's are; a hybrid model's leaves its draft layer out of SGLang's pool budget, sgl-project/sglang#35566)",
                        i.model
                    )
                })
            }
        }
    }

    /// Why vLLM's eagle3 or SGLang's EAGLE3 cannot be estimated for `i.model`: no head in [`EAGLE3_HEADS`], or one
    /// whose layer is not one more of the target's ([`eagle_arch`]).
    fn eagle_refusal(i: &Inputs) -> Option<String> {
        let Some(h) = eagle3_head(&i.model) else {
            let known: Vec<&str> = EAGLE3_HEADS.iter().map(|h| h.target).collect();
            return Some(format!(
                "the catalog holds no EAGLE-3 head for {} (heads for: {})",
                i.model,
                known.join(", ")
            ));
        };
        let a = &catalog().variant(&i.model)?.1.arch;
        // llama.cpp gives the head a cache of its own: any target whose hidden states it
        // captures (`t_layer_inp` in its graph: src/models/*.cpp after PR #18039).
        if i.engine == Engine::LlamaCpp {
            const CAPTURED: [&str; 10] = [
                "llama",
                "qwen3",
                "qwen3_moe",
                "qwen3_5",
                "qwen3_5_moe",
                "qwen3_next",
                "gemma4",
                "gemma4_text",
                "gpt_oss",
                "minimax_m2",
            ];
            return (!CAPTURED.contains(&a.model_type.as_str())).then(|| {
                format!(
                    "llama.cpp's draft-eagle3 does not read {}'s hidden states",
                    i.model
                )
            });
        }
        eagle_arch(i, &i.model, a).is_none().then(|| {
            format!(
                "{}'s layer is not shaped like {}'s, which the estimate needs",
                h.repo, i.model
            )
        })
    }

    /// `draft=` (speculative decoding, llama.cpp `-md`): llama.cpp's draft model, in a GGUF
    /// format it has: `draftq=` when the draft has it, else the main model's format, else the
    /// draft's first GGUF (the catalog lists each variant's formats most precise first); without a draft model,
    /// `draftq=` means nothing.
    fn draft_model(i: &mut Inputs, notices: &mut Vec<Notice>) {
        let mut say = |key: Key, message: String| {
            notices.push(Notice {
                key: key.into(),
                message,
            })
        };
        let Some(d) = i.draft.as_deref_mut() else {
            return;
        };
        if d.model.is_empty() {
            if d.quant.is_some() {
                say(
                    Key::Draftq,
                    "draftq needs a draft model (draft=); ignored".into(),
                );
            }
            i.draft = None;
            return;
        }
        let why = match i.engine {
            Engine::LlamaCpp | Engine::Vllm => None,
            Engine::Ollama => Some("Ollama has no draft-model setting".to_string()),
            e => Some(format!(
                "a draft model on {} is not estimated yet (llama.cpp's -md and vLLM's are)",
                e.label()
            )),
        };
        if let Some(w) = why {
            say(Key::Draft, format!("{w}; no draft"));
            i.draft = None;
            return;
        }
        // The engine's container: a GGUF for llama.cpp, a checkpoint for vLLM.
        let container = i.engine.container();
        let kind = if i.engine == Engine::LlamaCpp {
            "GGUF"
        } else {
            "checkpoint"
        };
        let formats = catalog()
            .variant(&d.model)
            .map_or(&[][..], |(_, v)| &v.formats[..]);
        let has = |q: Quant| {
            formats
                .iter()
                .any(|f| f.id == q && f.container == container)
        };
        let Some(first) = formats
            .iter()
            .find(|f| f.container == container)
            .map(|f| f.id)
        else {
            say(
                Key::Draft,
                format!("{} has no {kind} file in the catalog; no draft", d.model),
            );
            i.draft = None;
            return;
        };
        let q = match d.quant {
            Some(q) if has(q) => q,
            asked => {
                let q = if has(i.quant) { i.quant } else { first };
                if let Some(a) = asked {
                    say(
                        Key::Draftq,
                        format!("{} has no {a} {kind} in the catalog; using {q}", d.model),
                    );
                }
                q
            }
        };
        d.quant = Some(q);
    }

    /// `rsseq=` (llama.cpp's `n_rs_seq`): extra states of the recurrent layers, so llama.cpp only
    /// and a model with recurrent layers; 0 is none.
    fn rollback_states(i: &mut Inputs, notices: &mut Vec<Notice>) {
        if i.rsseq == 0 {
            return;
        }
        let why = if i.engine != Engine::LlamaCpp {
            format!(
                "{} keeps no extra recurrent states for rollback (llama.cpp's n_rs_seq); ignored",
                i.engine.label()
            )
        } else if !recurrent(i) {
            format!(
                "{} has no recurrent layers, so no states to keep; ignored",
                i.model
            )
        } else {
            return;
        };
        notices.push(Notice {
            key: Key::Rsseq.into(),
            message: why,
        });
        i.rsseq = 0;
    }
}
