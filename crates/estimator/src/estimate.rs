//! What an estimate says, below the pipeline that computes it ([`mod@crate::estimate`]): the
//! verdict, each card's use, the checks, the layout, the speed and the parallel layouts.

use crate::catalog::quant::{Container, Quant};
use crate::catalog::{Format, SizeKind};
use crate::inputs::Notice;
use crate::terms::{Term, TermName};
use crate::units::{Bytes, SignedBytes, GIB};
use serde::Serialize;

/// Headroom under which a fit is called tight (llama-server `--fit` margin).
pub const TIGHT_MARGIN: Bytes = Bytes(GIB);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
/// The answer in one word.
pub enum Verdict {
    /// Every hard constraint holds, with at least [`TIGHT_MARGIN`] to spare.
    Fits,
    /// Every hard constraint holds, with less than [`TIGHT_MARGIN`] to spare.
    Tight,
    /// A hard constraint fails.
    DoesNotFit,
}

impl Verdict {
    /// Does not fit when a constraint fails; tight under [`TIGHT_MARGIN`] of headroom; else fits.
    pub fn from_headroom(fits: bool, headroom: SignedBytes) -> Verdict {
        if !fits {
            Verdict::DoesNotFit
        } else if headroom < SignedBytes::diff(TIGHT_MARGIN, Bytes::ZERO) {
            Verdict::Tight
        } else {
            Verdict::Fits
        }
    }

    /// The verdict in words.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Fits => "fits",
            Verdict::Tight => "tight",
            Verdict::DoesNotFit => "does not fit",
        }
    }
}

/// One card's share.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CardUse {
    /// Card (or GPU) index.
    pub index: u32,
    /// Bytes on this card.
    pub bytes: Bytes,
    /// The card's memory (train mode: its free memory).
    pub capacity: Bytes,
    /// What the engine may use of the capacity (vLLM: util × capacity).
    pub budget: Bytes,
    /// (term, bytes on this card), in term order.
    pub terms: Vec<(TermName, Bytes)>,
}

/// What would start vLLM or SGLang when its pool cannot hold one request (each alone).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StartupFix {
    /// The longest `--max-model-len` (SGLang `--context-length`) whose one request fits the pool
    /// there is: vLLM's own `estimate_max_model_len`. Absent when not even one token fits.
    pub max_model_len: Option<u64>,
    /// The smallest `--gpu-memory-utilization` (SGLang `--mem-fraction-static`) that holds one
    /// request of the context, in hundredths. Absent when no share of the card does.
    pub util: Option<f64>,
    /// vLLM: what `util` leaves outside its share on the smallest card (its CUDA graphs' room).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin: Option<Bytes>,
}

/// One engine's command for the plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineCommand {
    /// The engine (`llama.cpp`, `ollama`, `vllm`, `sglang`, `transformers`).
    pub engine: &'static str,
    /// The command line (a short script for transformers).
    pub command: String,
    /// Bytes on the fullest card on that engine.
    pub device_bytes: Bytes,
    /// Whether the plan fits on that engine.
    pub fits: bool,
    /// What the plan on that engine leaves out or changes, in words: the settings it refuses
    /// (adapters, a draft model, experts in RAM …), each as its notice says. Empty for the
    /// chosen engine.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differs: Vec<String>,
}

/// Does a failed check decide the verdict?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A constraint: `fits` is the AND of the hard checks.
    Hard,
    /// A fact about the plan that does not stop it (tensor parallelism impossible, so the cards
    /// split by layer instead).
    Info,
}

ids! {
    /// The checks, by their stable machine names.
    CheckName {
        /// Serve: the engine can load a published format of the model.
        FormatAvailable = "format_available",
        /// Serve: the context fits the model's maximum.
        ContextLength = "context_length",
        /// Serve: the fullest card holds its bytes.
        VramPerCard = "vram_per_card",
        /// Serve (information): tensor parallelism or layer split.
        TensorParallel = "tensor_parallel",
        /// Serve, vLLM: the engine starts (room for the weights, the peak and one request).
        VllmStartup = "vllm_startup",
        /// Serve, SGLang: the engine starts (room for the weights and one request).
        SglangStartup = "sglang_startup",
        /// Serve with `with=`: each other model on the cards fits and starts by itself.
        WithModels = "with_models",
        /// Serve with `images=`: a request's images leave room for text in its context.
        ImagesInContext = "images_in_context",
        /// Serve: the engine runs the model's architecture and format ([`crate::serve::support`]).
        EngineSupports = "engine_supports",
        /// Train: the model's architecture is known.
        ModelKnown = "model_known",
        /// Train: the GPU pool holds the total.
        VramPool = "vram_pool",
        /// Train: every picked GPU holds its share.
        GpuRoom = "gpu_room",
        /// Train: an explicit GPU list is valid.
        ExplicitGpus = "explicit_gpus",
    }
}

/// One constraint or fact about the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    /// Which check.
    pub name: CheckName,
    /// Whether it holds.
    pub ok: bool,
    /// What was compared, in words.
    pub message: String,
    /// Whether a failure decides the verdict.
    pub severity: Severity,
}

impl Check {
    /// A hard constraint.
    pub fn hard(name: CheckName, ok: bool, message: String) -> Check {
        Check {
            name,
            ok,
            message,
            severity: Severity::Hard,
        }
    }

    /// An informational check.
    pub fn info(name: CheckName, ok: bool, message: String) -> Check {
        Check {
            name,
            ok,
            message,
            severity: Severity::Info,
        }
    }

    /// True unless this is a failed hard constraint.
    pub fn passes(&self) -> bool {
        self.ok || self.severity == Severity::Info
    }
}

/// How the cards share the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sharing {
    /// One card holds everything.
    Single,
    /// Tensor parallelism: every layer split by attention heads (llama.cpp `-sm row`, vLLM
    /// `--tensor-parallel-size`).
    Tensor,
    /// Layer split: each card holds whole layers (llama.cpp `-sm layer`, vLLM
    /// `--pipeline-parallel-size`, Ollama, transformers `device_map="auto"`): capacity without
    /// speed-up, and no divisibility constraint.
    Layer,
}

/// The `tensor_parallel × pipeline_parallel` split of vLLM and SGLang on `tp × pp` alike cards.
///
/// Unpinned (no `tp=`/`pp=`), it is chosen the way vLLM's documentation advises: tensor
/// parallel over the cards of a node (up to [`GPUS_PER_NODE`]), pipeline parallel across nodes,
/// whenever that fits. Otherwise, among the layouts
/// the engine can start ([`crate::serve::placement::tensor_parallel`], at least one layer per stage) that fit, the one
/// whose KV pool holds the most tokens (hence the highest "maximum concurrency"); layouts
/// within [`EQUAL_POOL_PERCENT`] % of the largest pool count as equal, and of those the largest
/// tensor-parallel size wins (pure tensor parallelism first: every card works on every token).
/// When none fits, the engine's default is shown: all tensor parallel when it can start, else
/// all pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParallelChoice {
    /// `--tensor-parallel-size` (SGLang `--tp-size`).
    pub tp: u32,
    /// `--pipeline-parallel-size` (SGLang `--pp-size`).
    pub pp: u32,
    /// Set by `tp=`/`pp=` rather than chosen.
    pub pinned: bool,
    /// Why this split, in words.
    pub why: String,
}

/// KV pools of two layouts that differ by less than this many percent count as equal when the
/// split is chosen: the estimate's own tolerance against published startup logs
/// (tests/vllm_logs.rs), below which it cannot tell two layouts apart.
pub const EQUAL_POOL_PERCENT: u64 = 5;

/// GPUs in one node (DGX/HGX servers hold 8): the largest tensor-parallel size chosen unpinned.
pub const GPUS_PER_NODE: u32 = 8;

/// Everything the page, the embed and the CLI show for one configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Repo id of the variant.
    pub model: String,
    /// Format estimated.
    pub quant: String,
    /// The file estimated: its format, how its size is known and where it is published (empty
    /// `repo` and `file` for a size the rule computed, which no catalog repo publishes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<FileUsed>,
    /// Engine (`unsloth` in train mode).
    pub engine: &'static str,
    /// Every memory term, device and host.
    pub terms: Vec<Term>,
    /// Each card's share; sums to the device totals.
    pub per_card: Vec<CardUse>,
    /// Sum of the device terms.
    pub total_device_bytes: Bytes,
    /// Sum of the host terms.
    pub total_host_bytes: Bytes,
    /// Layers and KV cache kept in host RAM by `ngl=` / `nkvo=1` (llama.cpp, Ollama).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offload: Option<Offload>,
    /// Every hard check passes.
    pub fits: bool,
    /// Fits, tight or does not fit.
    pub verdict: Verdict,
    /// How the cards share the model.
    pub layout: Sharing,
    /// llama.cpp: the repo's multimodal projector, part of the weights on the first card
    /// (absent when the repo has none, on other engines, and with `mmproj=0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mmproj_bytes: Option<Bytes>,
    /// vLLM: the KV pool on the binding card, in bytes (absent on other engines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_pool_bytes: Option<Bytes>,
    /// vLLM: the KV pool in tokens, as vLLM prints it at startup.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_pool_tokens: Option<u64>,
    /// vLLM: requests of `ctx` tokens the pool holds at once ("Maximum concurrency").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<f64>,
    /// vLLM and SGLang, when the pool cannot hold one request of the context: what would start
    /// (absent when it starts, and on other engines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_fix: Option<StartupFix>,
    /// vLLM and SGLang: every `tensor_parallel × pipeline_parallel = cards` layout with its
    /// memory per GPU and whether it starts and fits (absent on other engines and mixed cards).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub layouts: Vec<ParallelLayout>,
    /// vLLM and SGLang on several alike cards: the `tensor_parallel × pipeline_parallel` split
    /// the estimate, its bars and its command use, and why it was chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallel: Option<ParallelChoice>,
    /// Every constraint and fact checked.
    pub checks: Vec<Check>,
    /// Engine defaults and limits that change the answer.
    pub warnings: Vec<String>,
    /// The command that runs this configuration.
    pub command: String,
    /// Decode speed and prefill (absent when a card's memory bandwidth is unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// The same plan on every engine that loads this file, side by side (the chosen engine
    /// first), each with what it was planned for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<EngineCommand>,
    /// With `with=`: one object per model on the cards, this one first, each with its own
    /// terms and bytes per card; [`Estimate::per_card`] sums them all.
    #[cfg(feature = "extras")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelShare>,
    /// Inputs that were adjusted to be consistent (format/KV type not available …).
    pub notices: Vec<Notice>,
}

/// One model of a set on the same cards (`with=`), as its own engine instance holds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelShare {
    /// Repo id of the variant.
    pub model: String,
    /// Format estimated.
    pub quant: String,
    /// The engine instance that runs it.
    pub engine: &'static str,
    /// Its context per request.
    pub ctx: u32,
    /// Its concurrent requests.
    pub par: u32,
    /// Its memory terms, device and host, as its own estimate has them.
    pub terms: Vec<Term>,
    /// Its bytes on each card, in card order (vLLM: its `--gpu-memory-utilization` share of
    /// each card, which the instance takes whole).
    pub per_card: Vec<Bytes>,
    /// The sum of [`ModelShare::per_card`].
    pub device_bytes: Bytes,
    /// vLLM: the `--gpu-memory-utilization` its command gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub util: Option<f64>,
    /// Whether it fits and starts on the cards by itself.
    pub fits_alone: bool,
    /// Why not by itself (its failed hard checks, in words).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The command that starts it (empty on the ranking's path).
    pub command: String,
}

impl Estimate {
    /// An estimate that cannot be made: no terms, the failed `check` says why.
    pub fn refusal(
        model: &str,
        quant: &str,
        engine: &'static str,
        per_card: Vec<CardUse>,
        check: Check,
    ) -> Estimate {
        Estimate {
            model: model.to_string(),
            quant: quant.to_string(),
            format: None,
            engine,
            terms: Vec::new(),
            per_card,
            total_device_bytes: Bytes::ZERO,
            total_host_bytes: Bytes::ZERO,
            offload: None,
            fits: false,
            verdict: Verdict::DoesNotFit,
            layout: Sharing::Single,
            mmproj_bytes: None,
            kv_pool_bytes: None,
            kv_pool_tokens: None,
            max_concurrency: None,
            startup_fix: None,
            layouts: Vec::new(),
            parallel: None,
            checks: vec![check],
            warnings: Vec::new(),
            command: String::new(),
            speed: None,
            commands: Vec::new(),
            #[cfg(feature = "extras")]
            models: Vec::new(),
            notices: Vec::new(),
        }
    }

    /// `(tensor_parallel, pipeline_parallel)` the estimate runs: [`Estimate::parallel`], else
    /// `(1, 1)` on one card, all tensor or all pipeline by [`Estimate::layout`].
    pub fn split(&self) -> (u32, u32) {
        let cards = self.per_card.len().max(1) as u32;
        match (&self.parallel, self.layout) {
            (Some(p), _) => (p.tp, p.pp),
            (None, Sharing::Single) => (1, 1),
            (None, Sharing::Tensor) => (cards, 1),
            (None, Sharing::Layer) => (1, cards),
        }
    }

    /// The failed hard constraints, in words (empty when it fits).
    pub fn reasons(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter(|c| !c.passes())
            .map(|c| c.message.clone())
            .collect()
    }

    /// Would the engine start this plan? `false` when vLLM or SGLang refuse at startup, or the
    /// engine does not run the model's architecture, format or card: such a plan has no speed
    /// to show (its [`Estimate::speed`] is what it would run at if it started).
    pub fn starts(&self) -> bool {
        !self.checks.iter().any(|c| {
            !c.ok
                && matches!(
                    c.name,
                    CheckName::VllmStartup
                        | CheckName::SglangStartup
                        | CheckName::EngineSupports
                        | CheckName::FormatAvailable
                )
        })
    }

    /// The decode speed to show: none for a plan the engine would not start.
    pub fn shown_speed(&self) -> Option<&Speed> {
        self.speed.as_ref().filter(|_| self.starts())
    }

    /// Why a plan does not fit when its memory does: the first failed hard check other than
    /// the memory per card (the context past the model's limit, an engine that does not run
    /// the architecture, a startup refusal), to lead with instead of a positive headroom.
    /// `None` when it fits or when memory is a reason.
    pub fn lead_reason(&self) -> Option<&str> {
        let memory_fails = self
            .checks
            .iter()
            .any(|c| matches!(c.name, CheckName::VramPerCard | CheckName::VramPool) && !c.passes());
        if self.fits || memory_fails {
            return None;
        }
        self.checks
            .iter()
            .find(|c| !c.passes())
            .map(|c| c.message.as_str())
    }

    /// Smallest `budget − bytes` over the cards (negative = over).
    pub fn headroom(&self) -> SignedBytes {
        self.per_card
            .iter()
            .map(|c| SignedBytes::diff(c.budget, c.bytes))
            .min()
            .unwrap_or_default()
    }
}

/// The file an estimate starts from ([`Estimate::format`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileUsed {
    /// The format (`Q4_K_M`, `NVFP4`, …).
    pub id: Quant,
    /// `gguf`, `safetensors` or `mlx`.
    pub container: Container,
    /// `published`, `exact` or `computed`.
    pub size: SizeKind,
    /// File size (all shards), bytes.
    pub bytes: Bytes,
    /// The Hugging Face repo holding it; empty when none in the catalog does.
    pub repo: String,
    /// The file (or first shard) in that repo, or the local path; empty when unknown.
    pub file: String,
}

impl FileUsed {
    /// What the estimate says of `f`.
    pub fn of(f: &Format) -> FileUsed {
        FileUsed {
            id: f.id,
            container: f.container,
            size: f.size,
            bytes: f.bytes,
            repo: f.repo.clone(),
            file: f.file.clone(),
        }
    }
}

/// Layers and KV cache kept in host RAM by `-ngl N` / `--no-kv-offload` (llama.cpp, Ollama).
///
/// llama.cpp numbers `layers + 1` slots, the output layer last, and puts the last `ngl` of them
/// on the GPU (`i_gpu_start = max(n_layer + 1 − n_gpu_layers, 0)` in `load_tensors`,
/// `src/llama-model.cpp`): the output layer goes first, then the last `ngl − 1` blocks; the
/// first `layers + 1 − ngl` blocks stay on the CPU with their KV cache (the cache of a layer is
/// allocated on that layer's device, `src/llama-kv-cache.cpp`; `--no-kv-offload` keeps every
/// layer's there). The host share of the weights is the blocks' share of the file less the
/// output matrix (sized at the embedding's storage type); the KV cache's is the layers' share.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Offload {
    /// Transformer blocks on the CPU.
    pub cpu_layers: u32,
    /// Weight bytes of those blocks (and of the output layer at `ngl=0`) in host RAM.
    pub layers_host: Bytes,
    /// KV cache bytes in host RAM.
    pub kv_host: Bytes,
    /// Layers on the GPU whose routed experts `ncmoe=` keeps in host RAM (llama.cpp
    /// `--n-cpu-moe` / `--cpu-moe`; the experts of blocks already on the CPU are in
    /// [`Offload::layers_host`]).
    pub expert_layers: u32,
    /// Bytes of those experts in host RAM.
    pub experts_host: Bytes,
    /// Whether those bytes come from llama.cpp's per-tensor types for the file's mix (the size
    /// rule), not scaled from the nearest mix that has a rule (an Unsloth dynamic mix).
    pub experts_exact: bool,
}

/// The speed of one configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Speed {
    /// Tokens per second for each request, at the chosen context and concurrency: every
    /// request's cache full (each token reads the whole KV cache held for it).
    pub decode_tps: f64,
    /// Tokens per second for each request at the start of a conversation: the same step with
    /// no KV cache read yet (the weights and the fixed per-token time only). Attention kernels
    /// read only the cells in use (llama.cpp's `n_kv`, vLLM's block table), so a request's
    /// speed falls from this figure to [`Speed::decode_tps`] as its context fills.
    pub decode_tps_start: f64,
    /// Tokens per second over all concurrent requests.
    pub aggregate_tps: f64,
    /// Bytes that stay in system RAM and are read from there each token (llama.cpp, Ollama).
    pub offloaded_bytes: u64,
    /// Whole layers that stay in system RAM.
    pub offloaded_layers: u32,
    /// Decode speed if nothing spilled, per request (equal to `decode_tps` without a spill).
    pub on_card_tps: f64,
    /// Memory bandwidth of the card(s) used, GB/s (the slowest card when they differ).
    pub bandwidth_gbs: f64,
    /// Share of that bandwidth the fit reaches ([`crate::serve::speed::Fit::eff`]).
    pub efficiency: f64,
    /// Host RAM bandwidth used for layers and KV cache left in system RAM, GB/s (the theoretical
    /// peak).
    pub ram_bw_gbs: f64,
    /// Share of that bandwidth the CPU reads them at ([`crate::serve::speed::HOST_EFF`]).
    pub ram_efficiency: f64,
    /// Prompt tokens per second over a prompt that fills the chosen context, batch 1 (`None`
    /// when a card's FP16 throughput is unknown; see [`crate::serve::speed::prefill()`]).
    pub prefill_tps: Option<f64>,
    /// Time to first token for that prompt, seconds.
    pub ttft_s: Option<f64>,
    /// A published measurement of this very configuration, if one is known
    /// ([`crate::serve::measured`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<crate::catalog::MeasuredSpeed>,
    /// With a draft model (`draft=`): the decode speedup published speculative runs measured,
    /// a range with its sources (this configuration's own depends on how often the draft is
    /// accepted); [`Speed::decode_tps`] is the target alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec_speedup: Option<SpecSpeedup>,
}

/// Speculative decoding's measured decode speedup over the target alone, a range.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpecSpeedup {
    /// The smallest published speedup (below 1: slower).
    pub low: f64,
    /// The largest.
    pub high: f64,
    /// The runs, with their URLs.
    pub source: &'static str,
}

impl Speed {
    /// The prefill, when it is known.
    pub fn prefill(&self) -> Option<Prefill> {
        Some(Prefill {
            prefill_tps: self.prefill_tps?,
            ttft_s: self.ttft_s?,
        })
    }
}

/// Prompt processing of one configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prefill {
    /// Prompt tokens per second over a prompt that fills the context.
    pub prefill_tps: f64,
    /// Time to first token for that prompt at batch 1, seconds.
    pub ttft_s: f64,
}

/// One `tp × pp` layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParallelLayout {
    /// Tensor-parallel size (`--tensor-parallel-size`, SGLang `--tp-size`).
    pub tp: u32,
    /// Pipeline-parallel size (`--pipeline-parallel-size`, SGLang `--pp-size`).
    pub pp: u32,
    /// Layers per pipeline stage, first to last.
    pub stage_layers: Vec<u64>,
    /// Bytes on one GPU of each stage, first to last.
    pub stage_bytes: Vec<Bytes>,
    /// Bytes on the fullest GPU.
    pub per_gpu_bytes: Bytes,
    /// What the engine may use of each GPU (`util × capacity`).
    pub budget: Bytes,
    /// The engine can start this layout on this model (divisibility).
    pub valid: bool,
    /// Valid, and the fullest GPU stays within the budget.
    pub fits: bool,
    /// Why not, when it is invalid or does not fit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The layout the estimate, its per-card bars and its command use.
    pub chosen: bool,
}
