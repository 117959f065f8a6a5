//! Serve mode: the terms summed, sharded over the cards, and every hard constraint checked.
//!
//! Feasibility (seed 1, "enumerate every hard constraint first"):
//! 1. the format exists for the engine (GGUF for llama.cpp/Ollama, safetensors for vLLM/transformers);
//! 2. the context fits the model (`ctx ≤ max_position_embeddings`);
//! 3. bytes per card ≤ capacity (vLLM: ≤ `util × capacity`, which it preallocates and refuses to
//!    start without). Weights and KV are split evenly over the cards, the overhead too (it holds
//!    a per-card CUDA context term);
//! 4. with more than one card, tensor parallelism must be able to start: llama.cpp-style
//!    splitting needs `kv_heads % cards == 0`; vLLM needs `heads % tp == 0` and either
//!    `kv_heads % tp == 0` (kv ≥ tp) or `tp % kv_heads == 0` (KV heads replicated). Layer
//!    split (pipeline) has no head constraint: it fits the model but gives no speed-up.
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

/// One hard constraint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub message: String,
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
    pub checks: Vec<Check>,
    pub warnings: Vec<String>,
    pub command: String,
    /// Inputs that were adjusted to be consistent (format/KV type not available …).
    pub notices: Vec<Notice>,
}

impl Estimate {
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
        checks: vec![Check {
            name: "format_available",
            ok: false,
            message: format!(
                "{} publishes no {:?} files for {}",
                v.id,
                i.engine.container(),
                i.engine.label()
            ),
        }],
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

    // KV cache (total over cards, and per card).
    let (kv_total, kv_card, kv_formula, n_cells) = match i.engine {
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
                k.bytes.div_ceil(cards as u64),
                formula,
                k.cells * k.streams,
            )
        }
        Engine::Vllm => {
            let per_card = kv::paged(a, ctx, par, i.kv, cards as u64);
            let total = kv::paged(a, ctx, par, i.kv, 1);
            let formula = txt!("{par} request(s) × ⌈{ctx}/16⌉ blocks × 16 tokens per global layer (SWA layers capped at the window), {} per card", per_card);
            (
                per_card.times(cards as u64).max(total),
                per_card,
                formula,
                ctx * par,
            )
        }
        Engine::Transformers => {
            let b = kv::dense(a, ctx, par, i.kv);
            let formula = txt!(
                "{par} sequence(s) × {ctx} tokens × layers × {} B/token/layer",
                kv::cell_bytes(a, i.kv, i.kv, a.kv_heads as u64)
            );
            (b, b.div_ceil(cards as u64), formula, ctx * par)
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

    // Per card.
    let w_card = w.device.div_ceil(cards as u64);
    let o_card = o.bytes.div_ceil(cards as u64);
    let per_card: Vec<CardUse> = (0..cards)
        .map(|index| CardUse {
            index,
            bytes: w_card + kv_card + o_card,
            capacity,
            budget,
            terms: vec![
                ("weights", w_card),
                ("kv_cache", kv_card),
                ("overhead", o_card),
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
    checks.push(Check {
        name: "context_length",
        ok: i.ctx <= a.max_ctx,
        message: if i.ctx <= a.max_ctx {
            format!("context {} ≤ the model's maximum {}", i.ctx, a.max_ctx)
        } else {
            format!(
                "context {} exceeds the model's maximum {} tokens",
                i.ctx, a.max_ctx
            )
        },
    });
    let used = per_card[0].bytes;
    let vram_ok = used <= budget;
    let budget_words = if i.engine == Engine::Vllm {
        format!("{} (util {} × {})", budget, i.util, capacity)
    } else {
        format!("{}", capacity)
    };
    checks.push(Check {
        name: "vram_per_card",
        ok: vram_ok,
        message: if vram_ok {
            format!("{} per card ≤ {}", used, budget_words)
        } else {
            format!(
                "{} per card > {}: short by {}",
                used,
                budget_words,
                used.saturating_sub(budget)
            )
        },
    });
    if cards > 1 {
        let tp = tensor_parallel(i.engine, a, cards);
        let layer_note = if vram_ok {
            "layer split fits but gives no speed-up"
        } else {
            "layer split does not fit either"
        };
        let (ok, message) = match tp {
            Ok(m) => (true, m),
            Err(m) if matches!(i.engine, Engine::Ollama | Engine::Transformers) => {
                (true, format!("{m}; {layer_note}"))
            }
            Err(m) => (false, format!("{m}; {layer_note}")),
        };
        checks.push(Check {
            name: "tensor_parallel",
            ok,
            message,
        });
    }

    let fits = checks.iter().all(|c| c.ok);
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
        let pool = budget.saturating_sub(w_card + o_card);
        let per_request = kv::paged(a, ctx, 1, i.kv, cards as u64);
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
            command(i, f, a.kv_heads)
        } else {
            String::new()
        },
        terms,
        per_card,
        total_device_bytes,
        total_host_bytes,
        fits,
        verdict,
        checks,
        warnings,
        notices: Vec::new(),
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
            format!(
                ": the same -c would then allocate {} of KV for 4 slots sharing {} cells, not the {} budgeted here. The command writes -np {} explicitly",
                k.bytes, k.cells, kv_total, i.par
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
