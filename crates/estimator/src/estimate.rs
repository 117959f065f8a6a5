//! Serve mode: the terms summed, sharded over the cards, and every hard constraint checked.
//!
//! Feasibility (every hard constraint is enumerated first):
//! 1. the format exists for the engine (GGUF for llama.cpp/Ollama, safetensors for vLLM/transformers);
//! 2. the context fits the model (`ctx ≤ max_position_embeddings`);
//! 3. bytes on the fullest card ≤ capacity (vLLM: ≤ `util × capacity`, which it preallocates and
//!    refuses to start without). Each term is split over the cards so that they sum exactly to
//!    the total: evenly under tensor parallelism, by whole layers under layer split; the overhead
//!    evenly (it holds a per-card CUDA context term).
//!
//! With more than one card the layout is a second question, not a constraint: tensor
//! parallelism when it can start (llama.cpp `-sm row` needs `kv_heads % cards == 0`; vLLM needs
//! `heads % tp == 0`, the vocabulary padded to a multiple of 64 divisible by `tp`, and either
//! `kv_heads % tp == 0` or `tp % kv_heads == 0`, replicating the KV heads), else layer split
//! (llama.cpp `-sm layer`, vLLM pipeline parallelism), which has no head constraint and adds
//! capacity but no speed. The `tensor_parallel` check reports which, with [`Severity::Info`]:
//! `fits` is the AND of the [`Severity::Hard`] checks only. vLLM and SGLang also list every
//! `tp × pp` layout of the cards ([`crate::layouts`]).
//!
//! Verdict: *does not fit* when a constraint fails; *tight* when the smallest headroom on a card
//! is under 1 GiB (llama-server `--fit` keeps a 1024 MiB margin per device: llama.cpp `llama_params_fit`, `--fit-target` default 1024 MiB); else *fits*.

use crate::catalog::{catalog, Arch, Format, Variant};
use crate::describe;
use crate::engine::Engine;
use crate::inputs::{thousands, GpuChoice, Inputs, Notice};
use crate::permalink::normalize;
use crate::terms::{kv, logits, overhead, weights, Place, Term, TermName};
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
        /// Serve: the engine runs the model's architecture and format ([`crate::support`]).
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
pub enum Layout {
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
/// the engine can start ([`tensor_parallel`], at least one layer per stage) that fit, the one
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
    pub layout: Layout,
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
    /// vLLM and SGLang: every `tensor_parallel × pipeline_parallel = cards` layout with its
    /// memory per GPU and whether it starts and fits (absent on other engines and mixed cards).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub layouts: Vec<crate::layouts::ParallelLayout>,
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
    pub speed: Option<crate::speed::Speed>,
    /// The same plan on every engine that loads this file, side by side (the chosen engine
    /// first), each with what it was planned for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<EngineCommand>,
    /// Inputs that were adjusted to be consistent (format/KV type not available …).
    pub notices: Vec<Notice>,
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
            engine,
            terms: Vec::new(),
            per_card,
            total_device_bytes: Bytes::ZERO,
            total_host_bytes: Bytes::ZERO,
            offload: None,
            fits: false,
            verdict: Verdict::DoesNotFit,
            layout: Layout::Single,
            mmproj_bytes: None,
            kv_pool_bytes: None,
            kv_pool_tokens: None,
            max_concurrency: None,
            layouts: Vec::new(),
            parallel: None,
            checks: vec![check],
            warnings: Vec::new(),
            command: String::new(),
            speed: None,
            commands: Vec::new(),
            notices: Vec::new(),
        }
    }

    /// `(tensor_parallel, pipeline_parallel)` the estimate runs: [`Estimate::parallel`], else
    /// `(1, 1)` on one card, all tensor or all pipeline by [`Estimate::layout`].
    pub fn split(&self) -> (u32, u32) {
        let cards = self.per_card.len().max(1) as u32;
        match (&self.parallel, self.layout) {
            (Some(p), _) => (p.tp, p.pp),
            (None, Layout::Single) => (1, 1),
            (None, Layout::Tensor) => (cards, 1),
            (None, Layout::Layer) => (1, cards),
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
    pub fn shown_speed(&self) -> Option<&crate::speed::Speed> {
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

/// Capacity of each card: the `gpus=` list, or `cards` × the chosen card.
pub fn card_capacities(i: &Inputs) -> Vec<Bytes> {
    if i.gpus.is_empty() {
        vec![card_capacity(i); i.cards.max(1) as usize]
    } else {
        i.gpus
            .iter()
            .map(|id| catalog().gpu(id).map_or(Bytes::ZERO, |g| g.vram_bytes))
            .collect()
    }
}

/// Capacity of one card for these inputs.
pub fn card_capacity(i: &Inputs) -> Bytes {
    match &i.gpu {
        // `normalize` admits only catalog GPUs; an unchecked id holds nothing rather than an
        // invented card.
        GpuChoice::Catalog(id) => catalog().gpu(id).map_or(Bytes::ZERO, |g| g.vram_bytes),
        GpuChoice::VramGib(g) => Bytes::from_gib(*g),
    }
}

/// Estimate serve-mode memory for `inputs` (what the page shows; [`estimate_full`] adds the
/// parallel layouts).
pub fn estimate(inputs: &Inputs) -> Estimate {
    estimate_with::<false>(inputs)
}

/// [`estimate`] plus every tensor × pipeline parallel layout of the cards
/// ([`Estimate::layouts`]) and the warning when another layout than the chosen one fits: the
/// CLI's report. Computed apart so that the page, which does not show the list, neither links
/// nor runs it on each input change.
pub fn estimate_full(inputs: &Inputs) -> Estimate {
    estimate_with::<true>(inputs)
}

/// Does `inputs` fit? The same answer as [`estimate`]`(inputs).fits` (the checks are all made
/// when the terms are assembled), without the words, the commands and the speed: the inverse
/// solver and the frontier ask it hundreds of times.
pub(crate) fn fits(inputs: &Inputs) -> bool {
    let mut i = inputs.clone();
    normalize(&mut i);
    let Some((_, v)) = catalog().variant(&i.model) else {
        return false;
    };
    let container = i.engine.container();
    match v
        .formats
        .iter()
        .find(|f| f.id == i.quant && f.container == container)
    {
        Some(f) => {
            let a = arch_for(&i, v);
            assemble(&i, v, f, &size(&i, &a, f)).fits
        }
        None => false,
    }
}

fn estimate_with<const LAYOUTS: bool>(inputs: &Inputs) -> Estimate {
    let mut i = inputs.clone();
    let notices = normalize(&mut i);
    let cat = catalog();
    let (_, v) = cat
        .variant(&i.model)
        .expect("normalize guarantees a catalog model");
    let container = i.engine.container();
    let format = v
        .formats
        .iter()
        .find(|f| f.id == i.quant && f.container == container);
    let mut e = match format {
        Some(f) => {
            let a = arch_for(&i, v);
            let s = size(&i, &a, f);
            let mut e = assemble(&i, v, f, &s);
            describe::describe(&mut e, &i, v, f, &s);
            if LAYOUTS {
                e.layouts = crate::layouts::layouts(&i, &a, f, e.split());
                if let Some(w) = crate::layouts::other_fits(&i, &e) {
                    e.warnings.push(w);
                }
            }
            e.commands = side_by_side(&i, v, f, &e);
            crate::speed::attach(&i, v, &mut e);
            e
        }
        None => unavailable(&i, v),
    };
    e.notices = notices;
    e
}

/// Estimate serve-mode memory for a model that is not in the catalog: a variant and format read
/// from a file's header ([`crate::gguf`]). Every other input goes through [`normalize`] as
/// usual; the file's name and format replace `model` and `quant`.
pub fn estimate_file(inputs: &Inputs, v: &Variant, f: &Format) -> Estimate {
    let mut i = inputs.clone();
    let mut notices = normalize(&mut i);
    notices.retain(|n| n.key != "model" && n.key != "quant");
    i.model.clone_from(&v.id);
    i.quant = f.id;
    let mut e = if i.engine.container() == f.container {
        let s = size(&i, &v.arch, f);
        let mut e = assemble(&i, v, f, &s);
        describe::describe(&mut e, &i, v, f, &s);
        e.layouts = crate::layouts::layouts(&i, &v.arch, f, e.split());
        crate::speed::attach(&i, v, &mut e);
        e
    } else {
        unavailable(&i, v)
    };
    // The file's own format name (`Q3_K_M`, …), not the nearest catalog one.
    if let Some(name) = f
        .note
        .as_deref()
        .and_then(|n| n.strip_prefix("general.file_type "))
    {
        e.quant = name.to_string();
    }
    e.notices = notices;
    e
}

fn unavailable(i: &Inputs, v: &Variant) -> Estimate {
    let capacity = card_capacity(i);
    let per_card = (0..i.cards.max(1))
        .map(|index| CardUse {
            index,
            bytes: Bytes::ZERO,
            capacity,
            budget: capacity,
            terms: Vec::new(),
        })
        .collect();
    Estimate::refusal(
        &v.id,
        i.quant.id(),
        i.engine.id(),
        per_card,
        Check::hard(
            CheckName::FormatAvailable,
            false,
            format!(
                "the catalog lists no {} files of {} for {} (import the repo from the Hub to \
                 read the files it publishes)",
                i.engine.container().label(),
                v.id,
                i.engine.label()
            ),
        ),
    )
}

/// Is tensor parallelism possible over `tp` cards, and if not, why.
pub fn tensor_parallel(engine: Engine, arch: &Arch, tp: u32) -> Result<String, String> {
    let (h, kvh) = (arch.heads, arch.kv_heads);
    match engine {
        // SGLang shards attention the same way (heads divisible; KV heads divisible or
        // replicated).
        Engine::Vllm | Engine::Sglang => {
            let name = engine.label();
            if !h.is_multiple_of(tp) {
                Err(format!("attention heads ({h}) not divisible by {tp} cards: {name} tensor parallelism cannot start"))
            } else if !kv::pad(arch.vocab, 64).is_multiple_of(u64::from(tp)) {
                Err(format!(
                    "the vocabulary padded to a multiple of 64 ({} rows) is not divisible by {tp} cards: {name} cannot shard the embedding",
                    kv::pad(arch.vocab, 64)
                ))
            } else if let Some(g) = arch.global_attn.filter(|g| {
                g.kv_heads != kvh
                    && (if g.kv_heads >= tp {
                        !g.kv_heads.is_multiple_of(tp)
                    } else {
                        !tp.is_multiple_of(g.kv_heads.max(1))
                    })
            }) {
                // Gemma 4: the global layers' own KV heads are sharded the same way
                // (`Gemma4Attention` asserts it, vllm/model_executor/models/gemma4.py).
                Err(format!(
                    "the global layers' KV heads ({}) cannot be split or replicated evenly over {tp} cards: {name} tensor parallelism cannot start",
                    g.kv_heads
                ))
            } else if kvh >= tp && !kvh.is_multiple_of(tp) {
                Err(format!("KV heads ({kvh}) not divisible by {tp} cards: {name} tensor parallelism cannot start"))
            } else if kvh < tp && !tp.is_multiple_of(kvh) {
                Err(format!("{tp} cards is not a multiple of the KV heads ({kvh}): {name} cannot replicate them evenly"))
            } else if kvh < tp {
                Ok(format!(
                    "{tp}-way tensor parallel; the {kvh} KV heads are replicated ({} per card)",
                    (kvh / tp).max(1)
                ))
            } else {
                Ok(format!(
                    "{tp}-way tensor parallel: {} KV heads per card",
                    kvh / tp
                ))
            }
        }
        Engine::LlamaCpp => {
            if !kvh.is_multiple_of(tp) {
                Err(format!(
                    "KV heads ({kvh}) not divisible by {tp} cards: tensor parallelism cannot start"
                ))
            } else {
                Ok(format!(
                    "{tp}-way split by rows (-sm row): {} KV heads per card",
                    kvh / tp
                ))
            }
        }
        Engine::Ollama | Engine::Transformers | Engine::Mlx => Err(format!(
            "{} splits by layer only: no tensor parallelism on {tp} cards",
            engine.label()
        )),
    }
}

/// Estimate one catalog candidate without formula texts, warnings and command line (the
/// ranking's path: the pair is valid by construction, so no normalisation either).
pub(crate) fn candidate(i: &Inputs, v: &Variant, f: &Format) -> Estimate {
    let s = size(i, &arch_for(i, v), f);
    assemble(i, v, f, &s)
}

/// The variant's architecture, with the measured global-layer count of `gl=` when it is the
/// model measured (other variants of the family keep their own layout).
pub(crate) fn arch_for<'a>(i: &Inputs, v: &'a Variant) -> std::borrow::Cow<'a, Arch> {
    match i.gl {
        Some(g) if v.id == i.model => {
            let mut a = v.arch.clone();
            a.global_override = Some(g.round() as u32);
            std::borrow::Cow::Owned(a)
        }
        _ => std::borrow::Cow::Borrowed(&v.arch),
    }
}

/// Every term's bytes and how the cards share them: the numbers, no words.
pub(crate) struct Sizing {
    /// Weights on the card and in host memory.
    pub weights: weights::Weights,
    /// The KV cache, total and per card.
    pub kv: kv::KvSizing,
    /// Runtime overhead.
    pub overhead: overhead::Overhead,
    /// Host logits buffer (llama.cpp family), else zero.
    pub logits: Bytes,
    /// Whether tensor parallelism starts (`None` on one card), and the words why.
    pub tp: Option<Result<String, String>>,
    /// How the cards share the model.
    pub layout: Layout,
    /// Each card's share under `layout` (whole layers, or 1 each).
    pub shares: Vec<u64>,
    /// Each card's capacity.
    pub capacities: Vec<Bytes>,
    /// The multimodal projector on the first card (part of the weights), else zero.
    pub mmproj: Bytes,
    /// What the engine may use of each card (vLLM, SGLang: util × capacity).
    pub budgets: Vec<Bytes>,
    /// vLLM and SGLang pipeline stages: the weights on each card (embedding first, head last).
    pub stage_weights: Option<Vec<Bytes>>,
    /// `(tensor_parallel, pipeline_parallel)`: `(cards, 1)` under tensor parallelism, `(1,
    /// cards)` under layer split, `(1, 1)` on one card.
    pub split: (u32, u32),
    /// Layers of each pipeline stage (`[1]` without stages).
    pub stages: Vec<u64>,
    /// vLLM and SGLang on several alike cards: the split chosen and why.
    pub choice: Option<ParallelChoice>,
    /// llama.cpp and Ollama with `ngl=` or `nkvo=1`: what stays in host RAM.
    pub offload: Option<Offload>,
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
}

/// Blocks that `ngl` leaves on the CPU on a model of `layers` blocks.
pub fn cpu_layers(layers: u32, ngl: u32) -> u32 {
    (layers.saturating_add(1)).saturating_sub(ngl).min(layers)
}

/// The most layers on the GPU (`-ngl`, the output layer counting as one) with which every card
/// fits, when the model does not fit with all of them (llama.cpp and Ollama); `None` when it
/// fits or nothing does.
pub(crate) fn fitted_ngl(i: &Inputs, a: &Arch, f: &Format) -> Option<u32> {
    if !crate::support::spills(i) || i.ngl.is_some() {
        return None;
    }
    let fits_with = |ngl: Option<u32>| {
        let j = Inputs { ngl, ..i.clone() };
        shard(&size(&j, a, f)).iter().all(|c| c.bytes <= c.budget)
    };
    let all = shard(&size(i, a, f));
    if all.iter().all(|c| c.bytes <= c.budget) {
        return None;
    }
    // Fewer layers on the GPU never need more of it: the answer is the last ngl that fits. A
    // first guess from the bytes over the budget and the bytes per layer (weights and cache
    // alike), checked with its next one: most ticks end there, two estimates instead of a
    // bisection's eight (the page computes this on every input change of a spilling model).
    // Saturating sums: per-card bytes from a hostile header can each be near u64::MAX.
    let over = all.iter().fold(0u64, |s, c| {
        s.saturating_add(c.bytes.get().saturating_sub(c.budget.get()))
    });
    let per_layer = all
        .iter()
        .fold(0u64, |s, c| s.saturating_add(c.bytes.get()))
        / (u64::from(a.layers) + 1);
    let shed = u32::try_from(over.div_ceil(per_layer.max(1))).unwrap_or(u32::MAX);
    let guess = (a.layers + 1).saturating_sub(shed).min(a.layers);
    if fits_with(Some(guess)) && (guess == a.layers || !fits_with(Some(guess + 1))) {
        return Some(guess);
    }
    // Else bisect on [0, layers].
    let (mut lo, mut hi) = (0u32, a.layers);
    if !fits_with(Some(lo)) {
        return Some(0);
    }
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits_with(Some(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

/// Move the host part of `ngl=` / `nkvo=1` out of the device terms.
fn offload(
    i: &Inputs,
    a: &Arch,
    f: &Format,
    w: &mut weights::Weights,
    kv: &mut kv::KvSizing,
    mmproj: Bytes,
) -> Option<Offload> {
    if !i.engine.llama_family() || (i.ngl.is_none() && !i.nkvo) {
        return None;
    }
    let n = a.layers.max(1);
    let ngl = i.ngl.unwrap_or(u32::MAX);
    let cpu = cpu_layers(n, ngl);
    let frac = f64::from(cpu) / f64::from(n);
    let output = Bytes(f.embd_type.row_bytes(a.vocab.saturating_mul(a.hidden)));
    let model = w.device.saturating_sub(mmproj);
    let body = model.saturating_sub(output);
    let layers_host = (body.scale(frac) + if ngl == 0 { output } else { Bytes::ZERO }).min(model);
    w.device = w.device.saturating_sub(layers_host);
    let keep = if i.nkvo { 0.0 } else { 1.0 - frac };
    let before = kv.total;
    kv.per_card = kv.per_card.iter().map(|b| b.scale(keep)).collect();
    kv.total = kv.per_card.iter().fold(Bytes::ZERO, |t, &b| t + b);
    Some(Offload {
        cpu_layers: cpu,
        layers_host,
        kv_host: before.saturating_sub(kv.total),
    })
}

/// Size every term for `i` on `arch` in format `f`: each term module applies its engine's rule.
/// vLLM and SGLang on several alike cards run the `tp × pp` split of [`ParallelChoice`].
pub(crate) fn size(i: &Inputs, a: &Arch, f: &Format) -> Sizing {
    let cards = i.cards.max(1);
    if i.engine.preallocates() && cards > 1 && i.gpus.is_empty() {
        return choose(i, a, f, cards);
    }
    size_at(i, a, f, None)
}

/// One candidate split of [`choose`]: its sizing, whether the engine can start it, whether it
/// fits, and its KV pool in tokens.
pub(crate) struct Candidate {
    pub s: Sizing,
    pub valid: Result<(), String>,
    pub fits: bool,
    pub tokens: u64,
    /// Bytes on the fullest GPU, and that GPU's budget.
    pub fullest: (Bytes, Bytes),
}

/// Every `tp × pp = cards` split of vLLM or SGLang, largest `tp` first, each sized as the
/// estimate would size it.
pub(crate) fn candidates(i: &Inputs, a: &Arch, f: &Format, cards: u32) -> Vec<Candidate> {
    let mut all: Vec<Candidate> = Vec::new();
    for tp in (1..=cards).rev().filter(|t| cards.is_multiple_of(*t)) {
        let pp = cards / tp;
        let valid = if pp > a.layers.max(1) {
            Err(format!(
                "{pp} pipeline stages for {} layers: a stage would hold none",
                a.layers
            ))
        } else if tp > 1 {
            tensor_parallel(i.engine, a, tp).map(|_| ())
        } else {
            Ok(())
        };
        let s = size_at(i, a, f, Some((tp, pp)));
        let per_card = shard(&s);
        let pool = vllm_pool(i, a, &s, &per_card);
        let full = fullest(&per_card);
        let fits = valid.is_ok()
            && vllm_pages(i, a, &s).is_ok()
            && per_card.iter().all(|c| c.bytes <= c.budget)
            && pool.bytes > Bytes::ZERO
            && pool.per_request <= pool.bytes;
        all.push(Candidate {
            fullest: (full.bytes, full.budget),
            s,
            valid,
            fits,
            tokens: pool.tokens,
        });
    }
    all
}

/// Which of `all` ([`candidates`]) the estimate runs, whether it was pinned, and why.
pub(crate) fn pick(i: &Inputs, all: &[Candidate], cards: u32) -> (usize, bool, String) {
    let words = |c: &Candidate| parallel_words(i.engine, c.s.split.0, c.s.split.1);
    // Pinned by tp= / pp= (normalize keeps only a pin that divides the cards).
    let pin = i.tp.or_else(|| i.pp.map(|p| cards / p.max(1)));
    let full_tp = &all[0];
    match pin.and_then(|t| all.iter().position(|c| c.s.split.0 == t)) {
        Some(k) => {
            let why = match &all[k].valid {
                Ok(()) => format!("{} as pinned by the link", words(&all[k])),
                Err(e) => format!("{} as pinned by the link: {e}", words(&all[k])),
            };
            (k, true, why)
        }
        None => {
            // vLLM's documented practice: tensor parallel over the GPUs of a node (up to 8),
            // pipeline parallel across nodes
            // (<https://docs.vllm.ai/en/v0.8.3/serving/distributed_serving.html>, "How to decide
            // the distributed inference strategy"). Taken whenever it fits.
            let node_tp = (1..=cards.min(GPUS_PER_NODE))
                .rev()
                .find(|t| cards.is_multiple_of(*t))
                .unwrap_or(1);
            if let Some(k) = all.iter().position(|c| c.s.split.0 == node_tp && c.fits) {
                let why = format!(
                    "{}: tensor parallel within a node of up to {GPUS_PER_NODE} GPUs{}, as vLLM's documentation advises, and it fits ({} tokens of KV)",
                    words(&all[k]),
                    if node_tp < cards { ", pipeline parallel across nodes" } else { "" },
                    thousands(all[k].tokens)
                );
                return (k, false, why);
            }
            let fitting = all.iter().filter(|c| c.fits).count();
            let best = all
                .iter()
                .filter(|c| c.fits)
                .map(|c| c.tokens)
                .max()
                .unwrap_or(0);
            // Largest tp first, so the first within the margin is the largest tensor split.
            match all.iter().position(|c| {
                c.fits
                    && c.tokens.saturating_mul(100) >= best.saturating_mul(100 - EQUAL_POOL_PERCENT)
            }) {
                Some(k) => {
                    let c = &all[k];
                    let mut why = format!(
                        "{}: of the {fitting} layouts that fit, the largest KV pool ({} tokens",
                        words(c),
                        thousands(c.tokens)
                    );
                    if c.tokens < best {
                        why.push_str(&format!(
                            "; the largest is {} tokens, within {EQUAL_POOL_PERCENT} %, and the larger tensor split is faster",
                            thousands(best)
                        ));
                    }
                    why.push(')');
                    if k > 0 {
                        match &full_tp.valid {
                            Err(e) => why.push_str(&format!("; {e}")),
                            Ok(()) if !full_tp.fits => {
                                why.push_str(&format!("; {} does not fit", words(full_tp)))
                            }
                            Ok(()) => why.push_str(&format!(
                                "; {} holds {} tokens",
                                words(full_tp),
                                thousands(full_tp.tokens)
                            )),
                        }
                    }
                    (k, false, why)
                }
                None => {
                    // The engine's default: all tensor parallel when it can start, else all
                    // pipeline.
                    let k = if full_tp.valid.is_ok() {
                        0
                    } else {
                        all.len() - 1
                    };
                    let why = format!(
                        "{}: no layout of {cards} cards fits, so the engine's default is shown ({})",
                        words(&all[k]),
                        if k == 0 {
                            "all tensor parallel".to_string()
                        } else {
                            format!(
                                "all pipeline: {}",
                                full_tp.valid.as_ref().err().map_or("", String::as_str)
                            )
                        }
                    );
                    (k, false, why)
                }
            }
        }
    }
}

/// Size every `tp × pp = cards` split and keep the one [`ParallelChoice`] describes.
fn choose(i: &Inputs, a: &Arch, f: &Format, cards: u32) -> Sizing {
    let mut all = candidates(i, a, f, cards);
    let split = |c: &Candidate| (c.s.split.0, c.s.split.1);
    let (k, pinned, why) = pick(i, &all, cards);
    let (tp, pp) = split(&all[k]);
    let mut s = all.swap_remove(k).s;
    s.choice = Some(ParallelChoice {
        tp,
        pp,
        pinned,
        why,
    });
    // The tensor-parallel check says what the full split would do when it is not the one run.
    if tp != cards {
        let full = tensor_parallel(i.engine, a, cards);
        s.tp = Some(match full {
            Err(e) => Err(e),
            // It can start: the check passes and says what runs instead.
            Ok(m) => Ok(format!(
                "{m}; {} runs instead (see the chosen layout)",
                parallel_words(i.engine, tp, pp)
            )),
        });
    }
    s
}

/// `--tensor-parallel-size T --pipeline-parallel-size P` (SGLang `--tp-size`, `--pp-size`),
/// each written when above 1 (`--tensor-parallel-size 1` on one card).
pub fn parallel_words(engine: Engine, tp: u32, pp: u32) -> String {
    let (tp_flag, pp_flag) = match engine {
        Engine::Sglang => ("--tp-size", "--pp-size"),
        _ => ("--tensor-parallel-size", "--pipeline-parallel-size"),
    };
    match (tp, pp) {
        (t, 1) => format!("{tp_flag} {t}"),
        (1, p) => format!("{pp_flag} {p}"),
        (t, p) => format!("{tp_flag} {t} {pp_flag} {p}"),
    }
}

/// [`size`] with the split `(tp, pp)` of vLLM and SGLang given (`None`: the engine's own
/// rule, one card or mixed cards).
fn size_at(i: &Inputs, a: &Arch, f: &Format, split: Option<(u32, u32)>) -> Sizing {
    let capacities = card_capacities(i);
    let cards = capacities.len() as u32;
    let budgets: Vec<Bytes> = capacities
        .iter()
        .map(|&c| {
            if i.engine.preallocates() {
                c.scale(i.util)
            } else {
                c
            }
        })
        .collect();
    let mixed = capacities.iter().any(|&c| c != capacities[0]);
    // How the cards share the model: tensor parallelism when it can start (and the cards are
    // alike: it gives every card an equal shard), else layer split; vLLM and SGLang run the
    // split they are given.
    let tp = match split {
        Some((t, _)) if t > 1 => Some(tensor_parallel(i.engine, a, t)),
        Some(_) => (cards > 1).then(|| {
            Err(format!(
                "tensor parallelism not used over {cards} cards: {}",
                parallel_words(i.engine, 1, cards)
            ))
        }),
        None => (cards > 1).then(|| {
            if mixed {
                Err(format!(
                    "cards of different sizes: tensor parallelism would give each an equal shard, so the smallest would limit all {cards}"
                ))
            } else {
                tensor_parallel(i.engine, a, cards)
            }
        }),
    };
    let (tp_size, pp_size) = match (split, &tp) {
        (Some(sp), _) => sp,
        (None, None) => (1, 1),
        (None, Some(Ok(_))) => (cards, 1),
        (None, Some(Err(_))) => (1, cards),
    };
    let layout = if cards <= 1 {
        Layout::Single
    } else if pp_size == 1 {
        Layout::Tensor
    } else {
        Layout::Layer
    };
    // Layers of each pipeline stage (vLLM and SGLang: their `get_pp_indices`); mixed cards:
    // whole layers in proportion to each card's memory (llama.cpp `-ts`); llama.cpp's even
    // `-ts 1,1,…`: the first cards one layer more when the count does not divide.
    let stages: Vec<u64> = match layout {
        Layout::Layer if mixed => {
            let mib: Vec<u64> = capacities.iter().map(|c| c.get() >> 20).collect();
            Bytes(u64::from(a.layers))
                .split(&mib)
                .into_iter()
                .map(Bytes::get)
                .collect()
        }
        Layout::Layer => crate::layouts::pipeline_stages(i.engine, a.layers, pp_size),
        Layout::Single | Layout::Tensor => vec![1],
    };
    // Share of each card: equal under tensor parallelism (every layer split by heads), its
    // stage's layers under pipeline parallelism (each of a stage's `tp` cards holds them all,
    // split by heads).
    let shares: Vec<u64> = match layout {
        Layout::Layer => (0..cards as usize)
            .map(|k| stages[(k / tp_size as usize).min(stages.len() - 1)])
            .collect(),
        Layout::Single | Layout::Tensor => vec![1; cards as usize],
    };
    let tensor = tp_size > 1;
    let cpu_only = crate::support::cpu_only(i);
    let mut w = weights::weights(a, f, i.engine, cpu_only);
    // vLLM and SGLang pipeline stages: the embedding on the first, the LM head (a tied model's
    // copy of the embedding) on the last; each of a stage's cards holds `1/tp` of it.
    let stage_weights = (layout == Layout::Layer && i.engine.preallocates()).then(|| {
        let sw = crate::layouts::stage_weights(a, f, w.device, &stages);
        w.device = sw.iter().fold(Bytes::ZERO, |t, &b| t + b);
        sw.iter()
            .flat_map(|b| b.split(&vec![1; tp_size as usize]))
            .collect::<Vec<Bytes>>()
    });
    let mmproj = crate::mmproj::device_bytes(i.engine, &f.repo, i.mmproj);
    w.device += mmproj;
    let kv = if layout == Layout::Layer && tensor {
        // Each stage's layers with one of `tp` cards' KV heads.
        let ctx = u64::from(i.ctx);
        let per_stage =
            kv::paged(a, ctx, u64::from(i.par.max(1)), i.kv, u64::from(tp_size)).split(&stages);
        let per_card: Vec<Bytes> = (0..cards as usize)
            .map(|k| per_stage[k / tp_size as usize])
            .collect();
        kv::KvSizing {
            total: per_card.iter().fold(Bytes::ZERO, |t, &b| t + b),
            per_card,
            cells: ctx.saturating_mul(u64::from(i.par.max(1))),
            llama: None,
        }
    } else {
        kv::for_engine(a, i, layout == Layout::Tensor, &shares)
    };
    let mut kv = kv;
    // `ngl=` and `nkvo=1` move layers between a card and the RAM: nothing to move without a
    // card.
    let offload = if cpu_only {
        None
    } else {
        offload(i, a, f, &mut w, &mut kv, mmproj)
    };
    let o = if i.engine == Engine::Mlx {
        overhead::mlx(a, i.par)
    } else {
        overhead::overhead(
            i.engine,
            cards,
            w.device.saturating_sub(mmproj),
            kv.cells,
            a.vocab,
            tensor,
            i.util,
        )
    };
    let logits = if i.engine.llama_family() {
        logits::bytes(a, i.par)
    } else {
        Bytes::ZERO
    };
    Sizing {
        offload,
        weights: w,
        kv,
        overhead: o,
        logits,
        tp,
        layout,
        shares,
        capacities,
        budgets,
        mmproj,
        stage_weights,
        split: (tp_size, pp_size),
        stages,
        choice: None,
    }
}

/// Spread the device terms over the cards so that they sum exactly to the totals: weights by
/// `shares`, the KV cache as its allocator places it, the overhead evenly.
pub(crate) fn shard(s: &Sizing) -> Vec<CardUse> {
    let n = s.shares.len();
    // The projector sits on the first card; the model's weights are split by the shares.
    let w = match &s.stage_weights {
        Some(sw) => sw.clone(),
        None => {
            let mut w = s.weights.device.saturating_sub(s.mmproj).split(&s.shares);
            w[0] += s.mmproj;
            w
        }
    };
    let o = s.overhead.bytes.split(&vec![1; n]);
    (0..n)
        .map(|k| CardUse {
            index: k as u32,
            bytes: w[k] + s.kv.per_card[k] + o[k],
            capacity: s.capacities[k],
            budget: s.budgets[k],
            terms: vec![
                (TermName::Weights, w[k]),
                (TermName::KvCache, s.kv.per_card[k]),
                (TermName::Overhead, o[k]),
            ],
        })
        .collect()
}

/// Every hard constraint, and the layout as information.
pub(crate) fn checks(i: &Inputs, a: &Arch, s: &Sizing, per_card: &[CardUse]) -> Vec<Check> {
    let mut checks = Vec::with_capacity(3);
    let yarn = a
        .yarn
        .as_ref()
        .filter(|y| i.ctx > a.max_ctx && i.ctx <= y.max_ctx());
    let ctx_ok = i.ctx <= a.max_ctx || (yarn.is_some() && i.engine != Engine::Ollama);
    checks.push(Check::hard(
        CheckName::ContextLength,
        ctx_ok,
        match (i.ctx <= a.max_ctx, yarn) {
            (true, _) => format!("context {} ≤ the model's maximum {}", i.ctx, a.max_ctx),
            (false, Some(y)) if ctx_ok => format!(
                "context {} needs YaRN rope scaling (×{} over {} tokens, validated by the publisher up to {}): the command enables it",
                i.ctx,
                crate::units::Shortest(y.factor),
                y.original_ctx,
                y.max_ctx()
            ),
            (false, Some(y)) => format!(
                "context {} needs YaRN rope scaling, which Ollama cannot switch on (llama.cpp, vLLM, SGLang and transformers can, up to {})",
                i.ctx, y.max_ctx()
            ),
            (false, None) => format!(
                "context {} exceeds the model's maximum {} tokens",
                i.ctx,
                a.longest_ctx(i.engine)
            ),
        },
    ));
    // The card with the least headroom decides (the first one under even layer split).
    let fullest = fullest(per_card);
    let used = fullest.bytes;
    let (capacity, budget) = (fullest.capacity, fullest.budget);
    let vram_ok = used <= budget;
    let budget_words = if i.engine.preallocates() {
        format!(
            "{budget} (util {} × {capacity})",
            crate::units::Shortest(i.util)
        )
    } else {
        format!("{capacity}")
    };
    let alike = s.shares.iter().all(|&x| x == s.shares[0])
        && s.capacities.iter().all(|&c| c == s.capacities[0]);
    let where_words = if alike {
        "per card".to_string()
    } else {
        format!("on card {} (the least headroom)", fullest.index)
    };
    // An Apple machine's capacity is the GPU's default share of its RAM, which a sysctl raises.
    let wired = match &i.gpu {
        GpuChoice::Catalog(id) if !vram_ok && i.gpus.is_empty() => catalog()
            .gpu(id)
            .and_then(|g| crate::support::wired_limit_words(g, used)),
        _ => None,
    };
    checks.push(Check::hard(
        CheckName::VramPerCard,
        vram_ok,
        if vram_ok {
            format!("{used} {where_words} ≤ {budget_words}")
        } else {
            format!(
                "{used} {where_words} > {budget_words}: short by {}{}",
                used.saturating_sub(budget),
                wired.map_or(String::new(), |w| format!("; {w}"))
            )
        },
    ));
    if let Some(tp) = &s.tp {
        let message = match tp {
            Ok(m) => m.clone(),
            Err(m) => format!(
                "{m}; {} used instead ({}): {}",
                if s.split.0 > 1 {
                    "tensor parallelism within pipeline stages"
                } else {
                    "layer split"
                },
                if i.engine.preallocates() && i.gpus.is_empty() {
                    parallel_words(i.engine, s.split.0, s.split.1)
                } else {
                    layer_split_words(i.engine, i.cards)
                },
                if vram_ok {
                    "it fits, but the extra cards add capacity, not speed"
                } else {
                    "it does not fit that way either"
                }
            ),
        };
        checks.push(Check::info(CheckName::TensorParallel, tp.is_ok(), message));
    }
    checks
}

/// The card with the least headroom (`budget − bytes`; the first of equals): on alike cards,
/// the one holding the most bytes.
pub fn fullest(per_card: &[CardUse]) -> &CardUse {
    per_card
        .iter()
        .min_by_key(|c| SignedBytes::diff(c.budget, c.bytes))
        .expect("at least one card")
}

/// The numbers of one configuration as an [`Estimate`], without words beyond the checks'.
fn assemble(i: &Inputs, v: &Variant, f: &Format, s: &Sizing) -> Estimate {
    let a = &v.arch;
    let mut terms = vec![
        Term::new(TermName::Weights, s.weights.device, Place::Device),
        Term::new(TermName::KvCache, s.kv.total, Place::Device),
        Term::new(TermName::Overhead, s.overhead.bytes, Place::Device),
    ];
    if s.weights.host > Bytes::ZERO {
        terms.push(Term::new(
            TermName::WeightsHost,
            s.weights.host,
            Place::Host,
        ));
    }
    if let Some(o) = &s.offload {
        if o.layers_host > Bytes::ZERO {
            terms.push(Term::new(TermName::LayersHost, o.layers_host, Place::Host));
        }
        if o.kv_host > Bytes::ZERO {
            terms.push(Term::new(TermName::KvHost, o.kv_host, Place::Host));
        }
    }
    if s.logits > Bytes::ZERO {
        terms.push(Term::new(TermName::Logits, s.logits, Place::Host));
    }
    let per_card = shard(s);
    let mut checks = checks(i, a, s, &per_card);
    let pool = i
        .engine
        .preallocates()
        .then(|| vllm_pool(i, a, s, &per_card));
    if let Some(p) = &pool {
        checks.push(vllm_startup(i, fullest(&per_card).budget, p));
        if let Err(e) = vllm_pages(i, a, s) {
            checks.push(Check::hard(CheckName::VllmStartup, false, e));
        }
    }
    checks.extend(crate::support::check(i.engine, a, f));
    checks.extend(crate::support::device_check(i));
    let fits = checks.iter().all(Check::passes);
    let binding = fullest(&per_card);
    let headroom = SignedBytes::diff(binding.budget, binding.bytes);
    Estimate {
        model: v.id.clone(),
        quant: f.id.to_string(),
        engine: i.engine.id(),
        total_device_bytes: s.weights.device + s.kv.total + s.overhead.bytes,
        total_host_bytes: s.weights.host
            + s.logits
            + s.offload.map_or(Bytes::ZERO, |o| o.layers_host + o.kv_host),
        offload: s.offload,
        terms,
        per_card,
        fits,
        verdict: Verdict::from_headroom(fits, headroom),
        layout: s.layout,
        mmproj_bytes: (s.mmproj > Bytes::ZERO).then_some(s.mmproj),
        kv_pool_bytes: pool.map(|p| p.bytes),
        kv_pool_tokens: pool.map(|p| p.tokens),
        max_concurrency: pool.map(|p| p.max_concurrency),
        layouts: Vec::new(),
        parallel: s.choice.clone(),
        checks,
        warnings: Vec::new(),
        command: String::new(),
        speed: None,
        commands: Vec::new(),
        notices: Vec::new(),
    }
}

/// The plan on every engine that loads `f`, the chosen one first.
fn side_by_side(i: &Inputs, v: &Variant, f: &Format, e: &Estimate) -> Vec<EngineCommand> {
    let mut out = vec![EngineCommand {
        engine: i.engine.id(),
        command: e.command.clone(),
        device_bytes: fullest(&e.per_card).bytes,
        fits: e.fits,
    }];
    for &other in Engine::ALL.iter().filter(|&&x| x != i.engine) {
        if other.container() != f.container {
            continue;
        }
        let mut j = Inputs {
            engine: other,
            ..i.clone()
        };
        normalize(&mut j);
        let s = size(&j, &arch_for(&j, v), f);
        let o = assemble(&j, v, f, &s);
        out.push(EngineCommand {
            engine: other.id(),
            command: crate::command::command(&j, f, s.layout, &s.shares, s.split),
            device_bytes: fullest(&o.per_card).bytes,
            fits: o.fits,
        });
    }
    out
}

/// vLLM's KV pool on the binding (fullest) card: what is left of its budget after the weights
/// and the overhead there, for the layers and KV heads that card holds.
fn vllm_pool(i: &Inputs, a: &Arch, s: &Sizing, per_card: &[CardUse]) -> kv::VllmPool {
    let c = fullest(per_card);
    let k = c.index as usize;
    let fixed = c.bytes.saturating_sub(s.kv.per_card[k]);
    let ctx = u64::from(i.ctx);
    let cards = per_card.len() as u64;
    // vLLM pages tokens over its layer groups; SGLang keeps one token pool over every layer
    // that owns a KV cache.
    let slots = if i.engine == Engine::Sglang {
        u64::from(a.kv_owning_layers())
    } else {
        kv::vllm_layer_slots(a)
    };
    let (slots, heads, per_request) = match s.layout {
        Layout::Tensor => (
            slots,
            kv::heads_per_card(a, cards),
            kv::paged(a, ctx, 1, i.kv, cards),
        ),
        Layout::Single => (slots, u64::from(a.kv_heads), kv::paged(a, ctx, 1, i.kv, 1)),
        // The card's stage: its share of the layers, with one of `tp` cards' KV heads.
        Layout::Layer => {
            let tp = u64::from(s.split.0.max(1));
            let stage = (k / tp as usize).min(s.stages.len() - 1);
            (
                (s.stages[stage] * slots).div_ceil(u64::from(a.layers.max(1))),
                kv::heads_per_card(a, tp),
                kv::paged(a, ctx, 1, i.kv, tp).split(&s.stages)[stage],
            )
        }
    };
    let block = if i.engine == Engine::Sglang {
        1
    } else {
        kv::VLLM_BLOCK
    };
    kv::vllm_pool(
        a,
        c.budget,
        fixed,
        slots,
        heads,
        i.kv,
        ctx,
        block,
        per_request,
    )
}

/// vLLM's layer groups need one page size ([`kv::vllm_block_sizes`]); SGLang pages single
/// tokens per pool and has no such rule.
fn vllm_pages(i: &Inputs, a: &Arch, s: &Sizing) -> Result<(u64, u64), String> {
    if i.engine == Engine::Vllm {
        kv::vllm_block_sizes(a, i.kv, u64::from(s.split.0.max(1)))
    } else {
        Ok((kv::VLLM_BLOCK, kv::VLLM_BLOCK))
    }
}

/// vLLM refuses to start when the weights and the profiled peak leave no room, or when the
/// pool cannot hold one request of `--max-model-len` tokens.
fn vllm_startup(i: &Inputs, fullest_budget: Bytes, p: &kv::VllmPool) -> Check {
    let ok = p.per_request <= p.bytes && p.bytes > Bytes::ZERO;
    let (name, len_flag, check) = match i.engine {
        Engine::Sglang => ("SGLang", "--context-length", CheckName::SglangStartup),
        _ => ("vLLM", "--max-model-len", CheckName::VllmStartup),
    };
    let message = if ok {
        format!(
            "{name} starts: {} of KV cache = {} tokens, {}× requests of {} tokens",
            p.bytes,
            p.tokens,
            crate::units::Fixed(p.max_concurrency, 1),
            i.ctx
        )
    } else if p.bytes == Bytes::ZERO {
        format!(
            "{name} fails at startup: the weights (and the profiled peak) exceed its budget of {}",
            fullest_budget
        )
    } else {
        format!(
            "{name} fails at startup: {} of KV cache cannot hold one request of {len_flag} {} ({} needed)",
            p.bytes, i.ctx, p.per_request
        )
    };
    Check::hard(check, ok, message)
}

/// Whole layers per card under layer split: `layers / cards` each, the first `layers % cards`
/// cards one more: fitcard's split for llama.cpp's even `-ts`, Ollama and transformers. vLLM and
/// SGLang place the remainder on later stages ([`crate::layouts::pipeline_stages`]).
pub fn layers_per_card(layers: u32, cards: u32) -> Vec<u64> {
    let cards = cards.max(1);
    (0..cards)
        .map(|k| u64::from(layers / cards + u32::from(k < layers % cards)))
        .collect()
}

/// How an engine is told to split by layer.
fn layer_split_words(engine: Engine, cards: u32) -> String {
    match engine {
        Engine::LlamaCpp => "-sm layer".into(),
        Engine::Vllm => format!("--pipeline-parallel-size {cards}"),
        Engine::Sglang => format!("--pp-size {cards}"),
        Engine::Ollama => "Ollama spreads whole layers over the cards".into(),
        Engine::Transformers => "device_map=\"auto\" places whole layers".into(),
        Engine::Mlx => {
            "mlx-lm runs on one Apple GPU; its --pipeline mode spreads whole layers over machines"
                .into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permalink::decode;

    #[test]
    fn the_verdict_alone_is_the_estimate_verdict() {
        for q in [
            "",
            "par=40",
            "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpu=rtx-4090&par=8",
            "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpu=rtx-4090&ctx=40960&par=1",
            "model=meta-llama/Llama-3.1-8B-Instruct&engine=sglang&quant=BF16&cards=2&par=64",
            "model=Qwen/Qwen3-14B&engine=transformers&quant=BF16&gpu=h100-sxm&par=2",
            "model=meta-llama/Llama-3.1-8B-Instruct&engine=ollama&par=4&ctx=131072",
            "model=deepseek-ai/DeepSeek-R1-Distill-Llama-70B&quant=Q8_0&vram=8",
            "model=google/gemma-3-12b-it&engine=vllm&quant=Q4_K_M",
        ] {
            for ctx in [512, 8192, 131_072] {
                for par in [1, 7, 300] {
                    let i = Inputs {
                        ctx,
                        par,
                        ..decode(q).inputs
                    };
                    assert_eq!(fits(&i), estimate(&i).fits, "{q} ctx={ctx} par={par}");
                }
            }
        }
    }
}
