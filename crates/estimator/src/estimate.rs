//! Serve mode: the terms summed, sharded over the cards, and every hard constraint checked.
//!
//! Feasibility (seed 1, "enumerate every hard constraint first"):
//! 1. the format exists for the engine (GGUF for llama.cpp/Ollama, safetensors for vLLM/transformers);
//! 2. the context fits the model (`ctx ≤ max_position_embeddings`);
//! 3. bytes on the fullest card ≤ capacity (vLLM: ≤ `util × capacity`, which it preallocates and
//!    refuses to start without). Each term is split over the cards so that they sum exactly to
//!    the total: evenly under tensor parallelism, by whole layers under layer split; the overhead
//!    evenly (it holds a per-card CUDA context term).
//!
//! With more than one card the layout is a second question, not a constraint: tensor
//! parallelism when it can start (llama.cpp `-sm row` needs `kv_heads % cards == 0`; vLLM needs
//! `heads % tp == 0` and either `kv_heads % tp == 0` or `tp % kv_heads == 0`, replicating the KV
//! heads), else layer split (llama.cpp `-sm layer`, vLLM pipeline parallelism), which has no
//! head constraint and adds capacity but no speed. The `tensor_parallel` check reports which,
//! with [`Severity::Info`]: `fits` is the AND of the [`Severity::Hard`] checks only.
//!
//! Verdict: *does not fit* when a constraint fails; *tight* when the smallest headroom on a card
//! is under 1 GiB (llama-server `--fit` keeps a 1024 MiB margin per device, GUIDE §3); else *fits*.

use crate::catalog::{catalog, Arch, Format, SizeKind, Variant};
use crate::command::command;
use crate::engine::Engine;
use crate::inputs::{GpuChoice, Inputs, Notice};
use crate::permalink::normalize;
use crate::terms::{kv, overhead, weights, Place, Term};
use crate::units::{Bytes, GIB};
use serde::Serialize;

/// Headroom under which a fit is called tight (llama-server `--fit` margin).
pub const TIGHT_MARGIN: Bytes = Bytes(GIB);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Fits,
    Tight,
    DoesNotFit,
}

impl Verdict {
    /// Does not fit when a constraint fails; tight under [`TIGHT_MARGIN`] of headroom; else fits.
    pub fn from_headroom(fits: bool, headroom: i128) -> Verdict {
        if !fits {
            Verdict::DoesNotFit
        } else if headroom < TIGHT_MARGIN.get() as i128 {
            Verdict::Tight
        } else {
            Verdict::Fits
        }
    }

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
    pub index: u32,
    pub bytes: Bytes,
    pub capacity: Bytes,
    /// What the engine may use of the capacity (vLLM: util × capacity).
    pub budget: Bytes,
    /// (term name, bytes on this card), in term order.
    pub terms: Vec<(&'static str, Bytes)>,
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

/// One constraint or fact about the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub message: String,
    pub severity: Severity,
}

impl Check {
    /// A hard constraint.
    pub fn hard(name: &'static str, ok: bool, message: String) -> Check {
        Check {
            name,
            ok,
            message,
            severity: Severity::Hard,
        }
    }

    /// An informational check.
    pub fn info(name: &'static str, ok: bool, message: String) -> Check {
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

/// Everything the page, the embed and the CLI show for one configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    pub model: String,
    pub quant: String,
    pub engine: &'static str,
    pub terms: Vec<Term>,
    pub per_card: Vec<CardUse>,
    pub total_device_bytes: Bytes,
    pub total_host_bytes: Bytes,
    pub fits: bool,
    pub verdict: Verdict,
    /// How the cards share the model.
    pub layout: Layout,
    pub checks: Vec<Check>,
    pub warnings: Vec<String>,
    pub command: String,
    /// Inputs that were adjusted to be consistent (format/KV type not available …).
    pub notices: Vec<Notice>,
}

impl Estimate {
    /// The failed hard constraints, in words (empty when it fits).
    pub fn reasons(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter(|c| !c.passes())
            .map(|c| c.message.clone())
            .collect()
    }

    /// Smallest `budget − bytes` over the cards (negative = over).
    pub fn headroom(&self) -> i128 {
        self.per_card
            .iter()
            .map(|c| c.budget.get() as i128 - c.bytes.get() as i128)
            .min()
            .unwrap_or(0)
    }
}

/// Capacity of one card for these inputs.
pub fn card_capacity(i: &Inputs) -> Bytes {
    match &i.gpu {
        GpuChoice::Catalog(id) => catalog()
            .gpu(id)
            .map_or(Bytes(24 * GIB), |g| Bytes(g.vram_bytes)),
        GpuChoice::VramGib(g) => Bytes::from_gib(*g),
    }
}

/// Estimate serve-mode memory for `inputs`.
pub fn estimate(inputs: &Inputs) -> Estimate {
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
        Some(f) => compute(&i, v, f, true),
        None => unavailable(&i, v),
    };
    e.notices = notices;
    e
}

fn unavailable(i: &Inputs, v: &Variant) -> Estimate {
    let capacity = card_capacity(i);
    Estimate {
        model: v.id.clone(),
        quant: i.quant.to_string(),
        engine: i.engine.id(),
        terms: Vec::new(),
        per_card: (0..i.cards.max(1))
            .map(|index| CardUse {
                index,
                bytes: Bytes::ZERO,
                capacity,
                budget: capacity,
                terms: Vec::new(),
            })
            .collect(),
        total_device_bytes: Bytes::ZERO,
        total_host_bytes: Bytes::ZERO,
        fits: false,
        verdict: Verdict::DoesNotFit,
        layout: Layout::Single,
        checks: vec![Check::hard(
            "format_available",
            false,
            format!(
                "{} publishes no {:?} files for {}",
                v.id,
                i.engine.container(),
                i.engine.label()
            ),
        )],
        warnings: Vec::new(),
        command: String::new(),
        notices: Vec::new(),
    }
}

/// Is tensor parallelism possible over `tp` cards, and if not, why.
pub fn tensor_parallel(engine: Engine, arch: &Arch, tp: u32) -> Result<String, String> {
    let (h, kvh) = (arch.heads, arch.kv_heads);
    match engine {
        Engine::Vllm => {
            if !h.is_multiple_of(tp) {
                Err(format!("attention heads ({h}) not divisible by {tp} cards: vLLM tensor parallelism cannot start"))
            } else if kvh >= tp && !kvh.is_multiple_of(tp) {
                Err(format!("KV heads ({kvh}) not divisible by {tp} cards: vLLM tensor parallelism cannot start"))
            } else if kvh < tp && !tp.is_multiple_of(kvh) {
                Err(format!("{tp} cards is not a multiple of the KV heads ({kvh}): vLLM cannot replicate them evenly"))
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
        Engine::Ollama | Engine::Transformers => Err(format!(
            "{} splits by layer only: no tensor parallelism on {tp} cards",
            engine.label()
        )),
    }
}

/// Estimate one catalog candidate without the command line and warnings (the ranking's path:
/// the pair is valid by construction, so no normalisation either).
pub(crate) fn candidate(i: &Inputs, v: &Variant, f: &Format) -> Estimate {
    compute(i, v, f, false)
}

fn compute(i: &Inputs, v: &Variant, f: &Format, detail: bool) -> Estimate {
    // Formula texts are for people; the ranking path skips them.
    macro_rules! txt {
        ($($t:tt)*) => { if detail { format!($($t)*) } else { String::new() } };
    }
    let a = &v.arch;
    let cards = i.cards.max(1);
    let ctx = i.ctx as u64;
    let par = i.par.max(1) as u64;
    let capacity = card_capacity(i);
    let budget = if i.engine == Engine::Vllm {
        capacity.scale(i.util)
    } else {
        capacity
    };

    // Weights.
    let w = weights::weights(a, f, i.engine);
    let mut terms = vec![Term {
        name: "weights",
        label: "Weights on the card",
        bytes: w.device,
        place: Place::Device,
        formula: if w.host.get() > 0 {
            txt!(
                "file {} − host-resident {} + tied output copy {}",
                w.file,
                w.host,
                w.tied_copy
            )
        } else {
            txt!("file size {}", w.file)
        },
        provenance: if w.host.get() > 0 || i.engine.llama_family() {
            "File size, never a parameter count (essay); llama.cpp/Ollama keep token_embd and per-layer embeddings in host memory and copy a tied output matrix to the card (GUIDE §3). Deduction gated on engine and GGUF."
        } else {
            "File size, never a parameter count (essay); vLLM and transformers load every tensor on the card (no host-resident deduction), and a stored duplicate of a tied lm_head is dropped on load."
        },
    }];

    // How the cards share the model: tensor parallelism when it can start, else layer split.
    let tp = (cards > 1).then(|| tensor_parallel(i.engine, a, cards));
    let layout = match &tp {
        None => Layout::Single,
        Some(Ok(_)) => Layout::Tensor,
        Some(Err(_)) => Layout::Layer,
    };
    // Share of each card: equal under tensor parallelism (every layer split by heads), by whole
    // layers under layer split (llama.cpp `-ts 1,1,…` and vLLM's pipeline stages give the first
    // cards one layer more when the count does not divide).
    let shares: Vec<u64> = match layout {
        Layout::Layer => layers_per_card(a.layers, cards),
        Layout::Single | Layout::Tensor => vec![1; cards as usize],
    };

    // KV cache (total over cards, and per card).
    let (kv_total, kv_cards, kv_formula, n_cells) = match i.engine {
        Engine::LlamaCpp | Engine::Ollama => {
            let unified = i.kvu && i.engine == Engine::LlamaCpp;
            let p = kv::LlamaParams {
                n_ubatch: i.ubatch as u64,
                swa_full: i.swa_full,
                ..kv::LlamaParams::new(ctx.saturating_mul(par), par, unified, i.kv)
            };
            let k = kv::llama(a, &p);
            let formula = txt!(
                "{} stream(s) × ({} global layers × {} cells + {} SWA layers × {} cells) × {} B/cell ({})",
                k.streams, k.global_layers, k.cells, k.swa_layers, k.swa_cells,
                kv::cell_bytes(a, i.kv, i.kv, a.kv_heads as u64), i.kv
            );
            (
                k.bytes,
                k.bytes.split(&shares),
                formula,
                k.cells * k.streams,
            )
        }
        Engine::Vllm => {
            let (total, per_card) = if layout == Layout::Tensor {
                // Every card holds its KV heads (replicated when fewer than the cards).
                let per_card = kv::paged(a, ctx, par, i.kv, cards as u64);
                (per_card.times(cards as u64), vec![per_card; cards as usize])
            } else {
                let total = kv::paged(a, ctx, par, i.kv, 1);
                (total, total.split(&shares))
            };
            let formula = txt!("{par} request(s) × ⌈{ctx}/16⌉ blocks × 16 tokens per global layer (SWA layers capped at the window), {} on the fullest card", per_card[0]);
            (total, per_card, formula, ctx * par)
        }
        Engine::Transformers => {
            let b = kv::dense(a, ctx, par, i.kv);
            let formula = txt!(
                "{par} sequence(s) × {ctx} tokens × layers × {} B/token/layer",
                kv::cell_bytes(a, i.kv, i.kv, a.kv_heads as u64)
            );
            (b, b.split(&shares), formula, ctx * par)
        }
    };
    terms.push(Term {
        name: "kv_cache",
        label: "KV cache",
        bytes: kv_total,
        place: Place::Device,
        formula: kv_formula,
        provenance: "Global layers grow with context, sliding-window layers plateau, shared-KV layers add nothing, × concurrency slots (essay); llama.cpp cells/padding/streams exactly per GUIDE §3; vLLM 16-token blocks with KV-head replication under TP.",
    });

    // Overhead.
    let o = overhead::overhead(i.engine, cards, w.device, n_cells);
    terms.push(Term {
        name: "overhead",
        label: "Runtime overhead",
        bytes: o.bytes,
        place: Place::Device,
        formula: o.formula,
        provenance: if i.engine == Engine::Transformers {
            "CUDA context per card (the essay's fixed arm, 0.7 GiB) plus the largest allocator residual of the Qwen3 transformers benchmark (33–48 MiB, measured)."
        } else {
            "Empirical fit from the essay (±0.15 GiB on four measured configurations; driver/engine-version specific): CUDA context per card vs weight-proportional activations, plus a context slope."
        },
    });

    // Host terms.
    if w.host.get() > 0 {
        terms.push(Term {
            name: "weights_host",
            label: "Embeddings kept in host RAM",
            bytes: w.host,
            place: Place::Host,
            formula: txt!("row({}, vocab {} × hidden {}){}", f.embd_type, a.vocab, a.hidden,
                if w.ple.get() > 0 { txt!(" + per-layer embeddings {}", w.ple) } else { String::new() }),
            provenance: "llama.cpp/Ollama keep token_embd (and gemma-3n per-layer embeddings) in host memory with full offload (GUIDE §3, essay).",
        });
    }
    if i.engine.llama_family() {
        terms.push(Term {
            name: "logits",
            label: "Logits buffer (host)",
            bytes: Bytes(4 * a.vocab * par),
            place: Place::Host,
            formula: txt!("4 B × vocab {} × {par} slot(s)", a.vocab),
            provenance:
                "llama.cpp output buffer: 4 × n_vocab × max(1, n_seq), in host memory (GUIDE §3).",
        });
    }

    // Per card: each term split so that the cards sum exactly to the totals.
    let w_cards = w.device.split(&shares);
    let o_cards = o.bytes.split(&vec![1; cards as usize]);
    let per_card: Vec<CardUse> = (0..cards as usize)
        .map(|k| CardUse {
            index: k as u32,
            bytes: w_cards[k] + kv_cards[k] + o_cards[k],
            capacity,
            budget,
            terms: vec![
                ("weights", w_cards[k]),
                ("kv_cache", kv_cards[k]),
                ("overhead", o_cards[k]),
            ],
        })
        .collect();
    let total_device_bytes = w.device + kv_total + o.bytes;
    let total_host_bytes = terms
        .iter()
        .filter(|t| t.place == Place::Host)
        .map(|t| t.bytes)
        .sum();

    // Checks.
    let mut checks = Vec::new();
    checks.push(Check::hard(
        "context_length",
        i.ctx <= a.max_ctx,
        if i.ctx <= a.max_ctx {
            format!("context {} ≤ the model's maximum {}", i.ctx, a.max_ctx)
        } else {
            format!(
                "context {} exceeds the model's maximum {} tokens",
                i.ctx, a.max_ctx
            )
        },
    ));
    // The fullest card decides (the first one under layer split).
    let fullest = per_card
        .iter()
        .max_by_key(|c| c.bytes)
        .expect("at least one card");
    let used = fullest.bytes;
    let vram_ok = used <= budget;
    let budget_words = if i.engine == Engine::Vllm {
        format!("{} (util {} × {})", budget, i.util, capacity)
    } else {
        format!("{}", capacity)
    };
    let where_words = if shares.iter().all(|&s| s == shares[0]) {
        "per card".to_string()
    } else {
        format!("on card {} (the fullest)", fullest.index)
    };
    checks.push(Check::hard(
        "vram_per_card",
        vram_ok,
        if vram_ok {
            format!("{used} {where_words} ≤ {budget_words}")
        } else {
            format!(
                "{used} {where_words} > {budget_words}: short by {}",
                used.saturating_sub(budget)
            )
        },
    ));
    if let Some(tp) = tp {
        let message = match tp {
            Ok(m) => m,
            Err(m) => format!(
                "{m}; layer split used instead ({}): {}",
                layer_split_words(i.engine, cards),
                if vram_ok {
                    "it fits, but the extra cards add capacity, not speed"
                } else {
                    "it does not fit that way either"
                }
            ),
        };
        checks.push(Check::info(
            "tensor_parallel",
            layout == Layout::Tensor,
            message,
        ));
    }

    let fits = checks.iter().all(Check::passes);
    let verdict = Verdict::from_headroom(fits, budget.get() as i128 - used.get() as i128);

    let mut warnings = if detail {
        warnings(i, v, f, fits, &kv_total)
    } else {
        Vec::new()
    };
    if detail && i.engine == Engine::Vllm {
        // vLLM gives the KV cache what is left of util × capacity after weights and the
        // profiling peak, and reports `Maximum concurrency for N tokens per request: X×`
        // = pool / per-request KV (GUIDE §3).
        // The fullest card binds: its pool over its share of one request's KV.
        let c = &per_card[fullest.index as usize];
        let pool = budget.saturating_sub(c.bytes.saturating_sub(kv_cards[c.index as usize]));
        let per_request = if layout == Layout::Tensor {
            kv::paged(a, ctx, 1, i.kv, cards as u64)
        } else {
            let one = kv::paged(a, ctx, 1, i.kv, 1);
            one.split(&shares)[c.index as usize]
        };
        if per_request.get() > 0 {
            warnings.push(format!(
                "vLLM will take {} per card and give the KV cache about {pool} of it: room for ≈{:.1} requests of {ctx} tokens at once (you asked for {par}).",
                budget,
                pool.as_f64() / per_request.as_f64()
            ));
        }
    }
    Estimate {
        model: v.id.clone(),
        quant: f.id.to_string(),
        engine: i.engine.id(),
        command: if detail {
            command(i, f, layout)
        } else {
            String::new()
        },
        terms,
        per_card,
        total_device_bytes,
        total_host_bytes,
        fits,
        verdict,
        layout,
        checks,
        warnings,
        notices: Vec::new(),
    }
}

/// Whole layers per card under layer split: `layers / cards` each, the first `layers % cards`
/// cards one more (the order llama.cpp's even `-ts` and vLLM's pipeline partition use).
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
        Engine::Ollama => "Ollama spreads whole layers over the cards".into(),
        Engine::Transformers => "device_map=\"auto\" places whole layers".into(),
    }
}

fn warnings(i: &Inputs, v: &Variant, f: &Format, fits: bool, kv_total: &Bytes) -> Vec<String> {
    let a = &v.arch;
    let mut out = Vec::new();
    let (def, why) = i.engine.default_concurrency();
    if def != 1 || i.engine == Engine::Ollama {
        let extra = if i.engine == Engine::LlamaCpp {
            // What the defaults would allocate with `-c ctx` and no -np: 4 slots, one unified KV.
            let k = kv::llama(
                a,
                &kv::LlamaParams {
                    n_ubatch: i.ubatch as u64,
                    swa_full: i.swa_full,
                    ..kv::LlamaParams::new(i.ctx as u64, 4, true, i.kv)
                },
            );
            let same = if k.bytes == *kv_total {
                // Equal when nothing depends on the slot count (no sliding-window layers, one
                // stream either way): the size holds, but the cells are shared.
                format!(
                    " the same {} of KV as budgeted here, but shared by 4 slots, so no request could count on its {} tokens",
                    k.bytes, i.ctx
                )
            } else {
                format!(" {} of KV, not the {} budgeted here", k.bytes, kv_total)
            };
            format!(
                ": the same -c would then give 4 slots sharing {} cells and allocate{same}. The command writes -np {} explicitly",
                k.cells, i.par
            )
        } else if i.engine == Engine::Ollama {
            format!(
                ": the command sets OLLAMA_NUM_PARALLEL={} explicitly",
                i.par
            )
        } else if i.engine == Engine::Vllm {
            format!(": the command writes --max-num-seqs {}", i.par)
        } else {
            String::new()
        };
        out.push(format!("{why}{extra}."));
    }
    if i.engine == Engine::Ollama && !fits {
        out.push("Ollama does not refuse a model that does not fit: it moves layers to system RAM and runs 10–100× slower without an error.".into());
    }
    if i.engine == Engine::Ollama && i.kv.is_quantized() {
        out.push("OLLAMA_KV_CACHE_TYPE needs flash attention (OLLAMA_FLASH_ATTENTION=1).".into());
    }
    if f.size == SizeKind::Computed {
        out.push(format!("No published size was found for {} {}; its size is computed from tensor shapes and block layouts.", v.id, f.id));
    }
    if a.swa.is_some() && i.swa_full && i.engine.llama_family() {
        out.push("--swa-full keeps a full-size cache for the sliding-window layers.".into());
    }
    out
}
