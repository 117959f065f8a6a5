//! Which engine can run which architecture and format: a table of the architecture kinds whose
//! support differs between engines, each row with the engine version that added it (or the
//! reason it cannot) and the public source. A model an engine cannot run is a failed hard check
//! (`engine_supports`) naming the engine, the version when known, and the source; the ranking
//! skips it for that engine. Architectures without a row (dense and MoE transformers every
//! engine has run for a long time) carry no check.

use crate::catalog::{Arch, Format};
use crate::engine::Engine;
use crate::estimate::{Check, CheckName};
use crate::quant::{Container, Quant};

/// Whether an engine runs a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Runs it from the named version (or the release that carries the named change).
    Since(&'static str),
    /// Cannot run it (as fitcard's command loads it), with the reason.
    No(&'static str),
}

/// One row: an architecture kind (by the config's `model_type`, or a format) on one engine.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The kind, in words.
    pub kind: &'static str,
    /// The `model_type`s of the kind (empty for a format row).
    pub model_types: &'static [&'static str],
    /// A format row: the format and container it concerns.
    pub format: Option<(Quant, Container)>,
    /// The engine.
    pub engine: Engine,
    /// Runs it since, or why not.
    pub support: Support,
    /// Where it is published (release notes, pull request, docs page, issue).
    pub source: &'static str,
}

const QWEN35: &[&str] = &["qwen3_5", "qwen3_5_moe"];

/// The table.
pub const TABLE: &[Row] = &[
    Row {
        kind: "hybrid Gated DeltaNet attention (Qwen3-Next)",
        model_types: &["qwen3_next"],
        format: None,
        engine: Engine::LlamaCpp,
        support: Support::Since("b7186 (pull request #16095)"),
        source: "https://github.com/ggml-org/llama.cpp/pull/16095",
    },
    Row {
        kind: "hybrid Gated DeltaNet attention (Qwen3-Next)",
        model_types: &["qwen3_next"],
        format: None,
        engine: Engine::Ollama,
        support: Support::Since("the first release that vendors llama.cpp after b7186"),
        source: "https://github.com/ollama/ollama/issues/12349",
    },
    Row {
        kind: "hybrid Gated DeltaNet attention (Qwen3.5)",
        model_types: QWEN35,
        format: None,
        engine: Engine::LlamaCpp,
        support: Support::Since("the release carrying pull request #19468 (commit fc0fe40)"),
        source: "https://github.com/ggml-org/llama.cpp/pull/19468",
    },
    Row {
        kind: "hybrid Gated DeltaNet attention (Qwen3.5)",
        model_types: QWEN35,
        format: None,
        engine: Engine::Ollama,
        support: Support::No("Ollama 0.20.7 refuses Hugging Face GGUFs of this architecture (\"unknown model architecture: 'qwen35moe'\"); only its own library builds run"),
        source: "https://github.com/ollama/ollama/issues/15625",
    },
    Row {
        kind: "MiniMax-M2 (minimax-m2 GGUF)",
        model_types: &["minimax_m2"],
        format: None,
        engine: Engine::Ollama,
        support: Support::No("Ollama cannot load MiniMax-M2 GGUFs (open issue)"),
        source: "https://github.com/ollama/ollama/issues/13049",
    },
    Row {
        kind: "gpt-oss (attention sinks, MXFP4 experts)",
        model_types: &["gpt_oss"],
        format: None,
        engine: Engine::LlamaCpp,
        support: Support::Since("the release carrying pull request #15091 (2025-08-05)"),
        source: "https://github.com/ggml-org/llama.cpp/pull/15091",
    },
    Row {
        kind: "gpt-oss (attention sinks, MXFP4 experts)",
        model_types: &["gpt_oss"],
        format: None,
        engine: Engine::Vllm,
        support: Support::Since("0.10.1"),
        source: "https://docs.vllm.ai/projects/recipes/en/latest/OpenAI/GPT-OSS.html",
    },
    Row {
        kind: "gpt-oss (attention sinks, MXFP4 experts)",
        model_types: &["gpt_oss"],
        format: None,
        engine: Engine::Transformers,
        support: Support::Since("4.55.0"),
        source: "https://github.com/runpod-workers/worker-vllm/issues/206",
    },
    Row {
        kind: "GLM-4.5 MoE",
        model_types: &["glm4_moe"],
        format: None,
        engine: Engine::LlamaCpp,
        support: Support::Since("b6085"),
        source: "https://github.com/oobabooga/textgen/issues/7177",
    },
    Row {
        kind: "MXFP4 safetensors",
        model_types: &[],
        format: Some((Quant::MXFP4, Container::Safetensors)),
        engine: Engine::Transformers,
        support: Support::Since("4.55.0 with Triton ≥ 3.4, kernels and compute capability ≥ 7.5; without them transformers dequantizes the weights to BF16 (about four times the memory)"),
        source: "https://huggingface.co/docs/transformers/quantization/mxfp4",
    },
];

/// The rows that apply to `arch` in `format` on `engine`.
pub fn rows(engine: Engine, arch: &Arch, format: &Format) -> impl Iterator<Item = &'static Row> {
    let model_type = arch.model_type.clone();
    let (quant, container) = (format.id, format.container);
    TABLE.iter().filter(move |r| {
        r.engine == engine
            && (r.model_types.contains(&model_type.as_str())
                || r.format == Some((quant, container)))
    })
}

/// The support check for `arch` in `format` on `engine`: failed (hard) when the engine cannot
/// run it, information when a row says since when it can, `None` when no row applies.
pub fn check(engine: Engine, arch: &Arch, format: &Format) -> Option<Check> {
    let rows: Vec<&Row> = rows(engine, arch, format).collect();
    let refused = rows.iter().find(|r| matches!(r.support, Support::No(_)));
    if let Some(r) = refused {
        let Support::No(why) = r.support else {
            unreachable!()
        };
        return Some(Check::hard(
            CheckName::EngineSupports,
            false,
            format!(
                "{} cannot run {}: {why} ({})",
                engine.label(),
                r.kind,
                r.source
            ),
        ));
    }
    let words: Vec<String> = rows
        .iter()
        .filter_map(|r| match r.support {
            Support::Since(v) => Some(format!(
                "{} runs {} since {v} ({})",
                engine.label(),
                r.kind,
                r.source
            )),
            Support::No(_) => None,
        })
        .collect();
    (!words.is_empty()).then(|| Check::info(CheckName::EngineSupports, true, words.join("; ")))
}
