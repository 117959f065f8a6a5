//! Which engine can run which architecture and format: a table of the architecture kinds whose
//! support differs between engines, each row with the engine version that added it (or the
//! reason it cannot) and the public source. A model an engine cannot run is a failed hard check
//! (`engine_supports`) naming the engine, the version when known, and the source; the ranking
//! skips it for that engine. Architectures without a row (dense and MoE transformers every
//! engine has run for a long time) carry no check.

use crate::catalog::engine::Engine;
use crate::catalog::quant::{Container, Quant};
use crate::catalog::{Arch, Format};
use crate::estimate::{Check, CheckName};

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

/// Is the device of `i` a CPU-only machine (a catalog entry of memory kind `host`)? Then the
/// whole model sits in system RAM and nothing spills anywhere.
pub fn cpu_only(i: &crate::inputs::Inputs) -> bool {
    let host = |id: &str| {
        crate::catalog::catalog()
            .gpu(id)
            .is_some_and(|g| g.memory_kind == crate::catalog::MemoryKind::Host)
    };
    match (&i.gpu, i.gpus.first()) {
        (_, Some(id)) => host(id),
        (crate::inputs::GpuChoice::Catalog(id), None) => host(id),
        (crate::inputs::GpuChoice::VramGib(_), None) => false,
    }
}

/// The first AMD or Intel card of the plan, by its catalog name, and the backend the plan's
/// engine reaches it through: not CUDA, so no overhead measurement here covers its context and
/// compute buffers.
pub fn non_cuda_card(i: &crate::inputs::Inputs) -> Option<(&'static str, &'static str)> {
    let cat = crate::catalog::catalog();
    let named = |id: &str| {
        cat.gpu(id)
            .map(|g| g.name.as_str())
            .filter(|n| n.starts_with("AMD") || n.starts_with("Intel"))
    };
    let card = match (&i.gpu, i.gpus.is_empty()) {
        (crate::inputs::GpuChoice::Catalog(id), true) => named(id),
        (_, false) => i.gpus.iter().find_map(|id| named(id)),
        (crate::inputs::GpuChoice::VramGib(_), true) => None,
    }?;
    Some((card, backend(i.engine, card.starts_with("AMD"))))
}

/// The backend an engine runs an AMD (`amd`) or Intel card through.
fn backend(engine: Engine, amd: bool) -> &'static str {
    match (engine, amd) {
        // https://github.com/ggml-org/llama.cpp/blob/master/docs/build.md (HIP, Vulkan, SYCL).
        (Engine::LlamaCpp, true) => "llama.cpp's HIP (ROCm) or Vulkan backend",
        (Engine::LlamaCpp, false) => "llama.cpp's SYCL or Vulkan backend",
        // https://docs.ollama.com/gpu: AMD Radeon through ROCm, more cards through Vulkan.
        (Engine::Ollama, true) => "Ollama's ROCm or Vulkan library",
        (Engine::Ollama, false) => "Ollama's Vulkan library",
        // https://docs.vllm.ai/en/v0.14.0/getting_started/installation/gpu/ (AMD ROCm: MI200s,
        // MI300, MI350, Radeon RX 7900 and 9000, Ryzen AI MAX; Intel XPU: Arc GPUs);
        // https://docs.sglang.io/platforms/amd_gpu.html, https://docs.sglang.io/platforms/xpu.html.
        (Engine::Vllm | Engine::Sglang, true) => "its ROCm build",
        (Engine::Vllm | Engine::Sglang, false) => "its XPU build",
        // PyTorch's ROCm and XPU builds (https://pytorch.org/get-started/locally/,
        // https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html); MLX runs on Apple
        // GPUs only (its own hard check).
        (_, true) => "PyTorch's ROCm build",
        (_, false) => "PyTorch's XPU build",
    }
}

/// Does a model that does not fit the cards keep running with layers in system RAM (llama.cpp
/// and Ollama on a GPU)? Not on a CPU-only machine: there the RAM is the device.
pub fn spills(i: &crate::inputs::Inputs) -> bool {
    i.engine.llama_family() && !cpu_only(i)
}

/// Is `gpu` an Apple silicon GPU (Metal, unified memory)?
pub fn is_apple(gpu: &crate::catalog::Gpu) -> bool {
    gpu.memory_kind == crate::catalog::MemoryKind::Unified && gpu.name.starts_with("Apple")
}

/// The device check MLX needs: mlx-lm's Metal backend runs on Apple silicon only, on one GPU.
/// An embedding model ([`crate::catalog::Task`]) runs on llama.cpp (`--embedding`) and Ollama
/// (`/api/embed`), a reranking model on llama.cpp (`--reranking`) only: Ollama has no reranking
/// endpoint (ollama/ollama#3368, open). The other engines run them on runners of their own
/// (vLLM's pooling runner, SGLang's `--is-embedding`, sentence-transformers) whose memory is not
/// estimated yet. A failed hard check there, `None` otherwise.
pub fn task_check(i: &crate::inputs::Inputs) -> Option<Check> {
    use crate::catalog::Task;
    let task = crate::catalog::task_of(&i.model)?;
    let why = match (task, i.engine) {
        (_, Engine::LlamaCpp) | (Task::Embed, Engine::Ollama) => return None,
        (Task::Rerank, Engine::Ollama) => {
            "Ollama has no reranking endpoint (ollama/ollama#3368); llama.cpp's --reranking serves it"
        }
        _ => "its runner's memory is not estimated yet (llama.cpp's --embedding and --reranking are)",
    };
    let kind = match task {
        Task::Embed => "an embedding",
        Task::Rerank => "a reranking",
    };
    Some(Check::hard(
        CheckName::EngineSupports,
        false,
        format!("{} is {kind} model: on {} {why}", i.model, i.engine.label()),
    ))
}

/// A failed hard check on a catalog card that is not an Apple GPU and on more than one card;
/// `None` otherwise (other engines, Apple machines, and a free-form `vram=` device, which may be
/// a Mac the catalog lacks).
pub fn device_check(i: &crate::inputs::Inputs) -> Option<Check> {
    if cpu_only(i) {
        let cards = i.cards.max(i.gpus.len() as u32);
        return (!i.engine.llama_family() || cards > 1).then(|| {
            Check::hard(
                CheckName::EngineSupports,
                false,
                if cards > 1 {
                    "a CPU-only machine is one pool of system RAM: set one card (cards=1)".to_string()
                } else {
                    format!(
                        "{} is planned on GPUs here; on a CPU-only machine use llama.cpp or Ollama (their CPU backend)",
                        i.engine.label()
                    )
                },
            )
        });
    }
    if i.engine != Engine::Mlx {
        return None;
    }
    let cat = crate::catalog::catalog();
    let named: Vec<&str> = if i.gpus.is_empty() {
        match &i.gpu {
            crate::inputs::GpuChoice::Catalog(id) => vec![id.as_str()],
            crate::inputs::GpuChoice::VramGib(_) => Vec::new(),
        }
    } else {
        i.gpus.iter().map(String::as_str).collect()
    };
    if let Some(g) = named
        .iter()
        .filter_map(|id| cat.gpu(id))
        .find(|g| !is_apple(g))
    {
        return Some(Check::hard(
            CheckName::EngineSupports,
            false,
            format!(
                "{} runs MLX-format weights on Apple silicon GPUs (Metal, unified memory); the {} is not one: use llama.cpp, vLLM or SGLang on it (https://github.com/ml-explore/mlx-lm#readme)",
                Engine::Mlx.label(),
                g.name
            ),
        ));
    }
    let cards = if i.gpus.is_empty() {
        i.cards
    } else {
        i.gpus.len() as u32
    };
    (cards > 1).then(|| {
        Check::hard(
            CheckName::EngineSupports,
            false,
            format!(
                "{} serves from one Apple GPU; {cards} cards cannot be pooled (its distributed mode spreads a model over several Macs, which fitcard does not plan)",
                Engine::Mlx.label()
            ),
        )
    })
}

/// The share of a Mac's RAM the GPU may wire by default (Metal's
/// `recommendedMaxWorkingSetSize`, what llama.cpp prints at startup and MLX's
/// `mx.device_info()["max_recommended_working_set_size"]` reports): two thirds of the RAM up to
/// 36 GiB, three quarters above, as printed on
/// 16 GiB (10922.67 MiB, <https://github.com/abetlen/llama-cpp-python/issues/687>),
/// 32 GiB (21845.34 MiB, <https://github.com/ollama/ollama/issues/434>),
/// 64 GiB (49152 MiB, <https://github.com/ggml-org/llama.cpp/issues/1870>),
/// 96 GiB (73728 MiB, <https://github.com/ggml-org/llama.cpp/issues/3213>),
/// 128 and 192 GiB (96 and 144 GiB, <https://github.com/raullenchai/Rapid-MLX/pull/183>).
/// No print of a 36 or 48 GiB machine was found, so where between 32 and 64 GiB the share
/// changes is not pinned; 36 GiB is taken as the last two-thirds size. macOS 26 gives more
/// (107.52 GiB of 128 GiB, <https://github.com/antirez/ds4/pull/893>): a catalog machine
/// measured there keeps its measured share.
pub fn default_wired_limit(ram: crate::units::Bytes) -> crate::units::Bytes {
    use crate::units::{Bytes, GIB};
    let r = ram.get();
    if r <= 36 * GIB {
        Bytes(r / 3 * 2)
    } else {
        Bytes(r / 4 * 3)
    }
}

/// RAM macOS keeps for itself when the wired limit is raised: 6 GB (raising a 96 GB Mac to
/// `iogpu.wired_limit_mb=92000` "leaving 6 for macOS", <https://github.com/antirez/ds4/issues/46>;
/// a 64 GB Mac's sysctl cap of 58 GB, <https://github.com/jundot/omlx/issues/1533>).
pub const MACOS_RESERVE: crate::units::Bytes = crate::units::Bytes(6 * crate::units::GIB);

/// Words for a plan that needs `needed` bytes on an Apple machine `gpu` whose default GPU share
/// (`gpu.vram_bytes`) it exceeds: how to raise the wired limit, or why raising does not help.
/// `None` when `gpu` is not an Apple machine with a known RAM size.
pub fn wired_limit_words(gpu: &crate::catalog::Gpu, needed: crate::units::Bytes) -> Option<String> {
    use crate::units::MIB;
    let ram = gpu.ram_bytes.filter(|_| is_apple(gpu))?;
    let ceiling = ram.saturating_sub(MACOS_RESERVE);
    // Whole MiB, rounded up to the next GiB so the plan keeps a little room.
    let mb = needed.get().div_ceil(MIB).div_ceil(1024) * 1024;
    Some(if mb * MIB <= ceiling.get() {
        format!(
            "macOS lets the GPU wire {} of this machine's {ram} by default; raise it with `sudo sysctl iogpu.wired_limit_mb={mb}` (until the next reboot), which leaves macOS {}",
            gpu.vram_bytes,
            ram.saturating_sub(crate::units::Bytes(mb * MIB))
        )
    } else {
        format!(
            "macOS lets the GPU wire {} of this machine's {ram} by default; even `sudo sysctl iogpu.wired_limit_mb` cannot give it {needed} while leaving macOS {MACOS_RESERVE}",
            gpu.vram_bytes
        )
    })
}

/// Multimodal architectures of the catalog (a vision or audio encoder in the checkpoint).
const MULTIMODAL_TYPES: &[&str] = &[
    "gemma3",
    "gemma3n",
    "llama4",
    "mistral3",
    "qwen3_5",
    "qwen3_5_moe",
];

/// vLLM profiles a multimodal model's encoder at startup (`profile_run` in
/// vllm/v1/worker/gpu_model_runner.py: dummy items of the maximum feature size filling the
/// encoder-cache budget, before it sizes the KV cache). The source gives no closed form for the
/// encoder's activation peak, so it is not a term: the gemma-3 0.19 logs bound it by the
/// sampler's warm-up at vLLM's defaults, and every other multimodal family is unchecked.
pub(crate) fn vllm_encoder_warning(engine: Engine, model_type: &str) -> Option<String> {
    if engine != Engine::Vllm || !MULTIMODAL_TYPES.contains(&model_type) {
        return None;
    }
    let checked = if model_type == "gemma3" {
        "In the vLLM 0.19 startup logs of gemma-3 4B, 12B and 27B (H100, default budget) the profiled peak is the sampler warm-up the overhead term models, so the encoder stays under it there; a larger --max-num-batched-tokens or --limit-mm-per-prompt budget is not checked"
    } else {
        "No startup log of this family was compared, so the encoder's peak may exceed the overhead term"
    };
    Some(format!(
        "vLLM profiles this model's multimodal encoder at startup with dummy inputs of the maximum size filling its encoder-cache budget (vllm/v1/worker/gpu_model_runner.py, profile_run; --limit-mm-per-prompt and --max-num-batched-tokens set it), before it sizes the KV cache; fitcard has no separate term for that peak. {checked}. --skip-mm-profiling skips the profiling, and then the first large image is not budgeted."
    ))
}
