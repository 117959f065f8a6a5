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
//! `tp × pp` layout of the cards ([`crate::serve::layouts`]).
//!
//! Verdict: *does not fit* when a constraint fails; *tight* when the smallest headroom on a card
//! is under 1 GiB (llama-server `--fit` keeps a 1024 MiB margin per device: llama.cpp `llama_params_fit`, `--fit-target` default 1024 MiB); else *fits*.

use crate::catalog::engine::Engine;
use crate::catalog::{catalog, Arch, Format, Variant};
use crate::inputs::normalize::normalize;
#[cfg(feature = "extras")]
use crate::inputs::CoModel;
use crate::inputs::{Inputs, Key};
use crate::terms::{Place, Term, TermName};
use crate::units::{Bytes, SignedBytes};

pub(crate) mod checks;
pub mod command;
mod describe;
pub mod layouts;
pub mod measured;
pub mod placement;
pub(crate) mod set;
pub(crate) mod sizing;
#[cfg(feature = "spec")]
pub(crate) mod speculative;
pub mod speed;
pub(crate) mod split;
pub(crate) mod stages;
pub(crate) mod startup;
pub mod support;

pub use crate::estimate::*;
pub(crate) use checks::*;
pub use placement::*;
pub(crate) use set::*;
pub(crate) use sizing::*;
pub(crate) use split::*;
pub(crate) use startup::*;

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
            assemble(&i, v, &a, f, &sized(&i, &a, f, false)).fits
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
            let s = sized(&i, &a, f, true);
            let mut e = assemble(&i, v, &a, f, &s);
            describe::describe(&mut e, &i, v, f, &s);
            #[cfg(feature = "extras")]
            set_command(&mut e);
            if LAYOUTS {
                e.layouts = crate::serve::layouts::layouts(&i, &a, f, e.split());
                if let Some(w) = crate::serve::layouts::other_fits(&i, &e) {
                    e.warnings.push(w);
                }
            }
            e.commands = side_by_side(&i, v, f, &e);
            #[cfg(feature = "extras")]
            e.commands.extend(set::under_llama_swap(&e));
            crate::serve::speed::attach(&i, v, &mut e);
            e
        }
        None => unavailable(&i, v),
    };
    e.notices = notices;
    e
}

/// Estimate serve-mode memory for a model that is not in the catalog: a variant and format read
/// from a file's header ([`crate::readers::gguf`]). Every other input goes through [`normalize`] as
/// usual; the file's name and format replace `model` and `quant`.
pub fn estimate_file(inputs: &Inputs, v: &Variant, f: &Format) -> Estimate {
    let mut i = inputs.clone();
    let mut notices = normalize(&mut i);
    notices.retain(|n| n.key != Key::Model && n.key != Key::Quant);
    i.model.clone_from(&v.id);
    i.quant = f.id;
    let mut e = if i.engine.container() == f.container {
        let s = sized(&i, &v.arch, f, true);
        let mut e = assemble(&i, v, &v.arch, f, &s);
        describe::describe(&mut e, &i, v, f, &s);
        #[cfg(feature = "extras")]
        set_command(&mut e);
        e.layouts = crate::serve::layouts::layouts(&i, &v.arch, f, e.split());
        crate::serve::speed::attach(&i, v, &mut e);
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

/// Why there is no format for the engine: a built-in catalog entry lists none (the repo may
/// publish them: the page offers the import); an imported repo or a file publishes none.
fn no_files(i: &Inputs, v: &Variant) -> String {
    let imported = catalog()
        .variant(&v.id)
        .is_none_or(|(f, _)| f.id.starts_with(crate::catalog::IMPORTED_PREFIX));
    let (kind, engine) = (i.engine.container().label(), i.engine.label());
    if imported {
        format!("{} publishes no {kind} files for {engine}", v.id)
    } else {
        format!(
            "fitcard's catalog lists no {kind} files of {} for {engine}; the repo may publish them.",
            v.id
        )
    }
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
        Check::hard(CheckName::FormatAvailable, false, no_files(i, v)),
    )
}

/// Estimate one catalog candidate without formula texts, warnings and command line (the
/// ranking's path: the pair is valid by construction, so no normalisation either).
pub(crate) fn candidate(i: &Inputs, v: &Variant, f: &Format) -> Estimate {
    let a = arch_for(i, v);
    let s = sized(i, &a, f, false);
    assemble(i, v, &a, f, &s)
}

/// [`size`] with the other models of `with=` on the cards (their commands written when
/// `commands`).
fn sized(i: &Inputs, a: &Arch, f: &Format, commands: bool) -> Sizing {
    #[allow(unused_mut)]
    let mut s = size(i, a, f);
    #[cfg(feature = "extras")]
    {
        s.with = co_resident(i, commands);
    }
    #[cfg(not(feature = "extras"))]
    let _ = commands;
    s
}

/// `with=`: each other model sized on the same cards as an estimate of its own (its own
/// engine instance: normalized, sized and checked as if it ran alone), the cards, their
/// reserve and the cache settings of this plan kept. What it holds on each card is what its
/// estimate puts there; a vLLM instance takes its whole `--gpu-memory-utilization` share of
/// each card (vLLM preallocates `util × total` and fills it with its KV pool,
/// vllm/v1/worker/gpu_worker.py `determine_available_memory`), so it is given the smallest
/// share, in hundredths, that holds its plan.
#[cfg(feature = "extras")]
fn co_resident(i: &Inputs, commands: bool) -> Vec<ModelShare> {
    let mut ollama_up = i.engine == Engine::Ollama;
    (0u32..)
        .zip(i.co_models())
        .map(|(k, m)| {
            let mut share = co_model(i, m, k, commands, ollama_up);
            ollama_up |= share.engine == Engine::Ollama.id();
            if !commands {
                share.command.clear();
            }
            share
        })
        .collect()
}

/// One `with=` model (the `k`-th) as its own instance; `ollama_up`: an Ollama server is
/// already started by the lines before (its model is then only run on it).
#[cfg(feature = "extras")]
fn co_model(i: &Inputs, m: &CoModel, k: u32, commands: bool, ollama_up: bool) -> ModelShare {
    let engine = m.engine.unwrap_or(i.engine);
    let mut j = m.inputs(i);
    // Normalized already with the plan (its notices said under `with`): no change here.
    normalize(&mut j);
    let (_, v) = catalog()
        .variant(&j.model)
        .expect("normalize guarantees a catalog model");
    let Some(f) = v
        .formats
        .iter()
        .find(|f| f.id == j.quant && f.container == engine.container())
    else {
        return share_of(&j, unavailable(&j, v), None, String::new());
    };
    let a = arch_for(&j, v);
    let s = size(&j, &a, f);
    let e = assemble(&j, v, &a, f, &s);
    let util = (engine == Engine::Vllm).then(|| {
        let need = e
            .per_card
            .iter()
            .map(|c| c.bytes.0 as f64 / c.capacity.0.max(1) as f64)
            .fold(0.0, f64::max);
        ((need * 100.0).ceil() / 100.0).clamp(0.01, 1.0)
    });
    let command = if commands {
        let run = Inputs {
            util: util.unwrap_or(j.util),
            ..j.clone()
        };
        instance_command(
            &crate::serve::command::command(&run, f, s.layout, &s.shares, s.split),
            engine,
            k,
            ollama_up,
        )
    } else {
        String::new()
    };
    share_of(&j, e, util, command)
}

/// The command of a `with=` model beside the plan's: llama-server and vLLM on a port of
/// their own (the plan's own keep 8080 and 8000, their defaults), an Ollama model only run
/// when a server is already up.
#[cfg(feature = "extras")]
fn instance_command(c: &str, engine: Engine, k: u32, ollama_up: bool) -> String {
    match engine {
        Engine::LlamaCpp => format!("{c} --port {}", 8081 + k),
        Engine::Vllm => format!("{c} --port {}", 8001 + k),
        _ if ollama_up => c
            .split_once("ollama serve\n")
            .map_or(c, |(_, run)| run)
            .to_string(),
        _ => c.to_string(),
    }
}

/// What a model's own estimate `e` holds on the cards, as one share of the set (`util`: a
/// vLLM instance's `--gpu-memory-utilization`, which it takes whole).
#[cfg(feature = "extras")]
fn share_of(j: &Inputs, e: Estimate, util: Option<f64>, command: String) -> ModelShare {
    let per_card: Vec<Bytes> = e
        .per_card
        .iter()
        .map(|c| util.map_or(c.bytes, |u| c.capacity.scale(u)))
        .collect();
    ModelShare {
        fits_alone: e.fits,
        reasons: e.reasons(),
        device_bytes: per_card.iter().fold(Bytes::ZERO, |t, &b| t + b),
        per_card,
        model: e.model,
        quant: e.quant,
        engine: e.engine,
        ctx: j.ctx,
        par: j.par,
        terms: e.terms,
        util,
        command,
    }
}

/// The numbers of one configuration as an [`Estimate`], without words beyond the checks'.
/// The estimate's terms: the weights, the KV cache and the overhead, then each nonzero part of
/// the sizing.
fn terms_of(s: &Sizing) -> Vec<Term> {
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
        if o.experts_host > Bytes::ZERO {
            terms.push(Term::new(
                TermName::ExpertsHost,
                o.experts_host,
                Place::Host,
            ));
        }
    }
    if s.logits > Bytes::ZERO {
        terms.push(Term::new(TermName::Logits, s.logits, Place::Host));
    }
    // (vLLM's MTP layer may add neither: its KV is the pool's, its weights the checkpoint's.)
    if let Some((w, k)) = crate::serve::sizing::drafted(s) {
        for (name, b) in [(TermName::DraftWeights, w), (TermName::DraftKvCache, k)] {
            if b > Bytes::ZERO {
                terms.push(Term::new(name, b, Place::Device));
            }
        }
    }
    let lora = crate::serve::sizing::adapters_of(s)
        .iter()
        .fold(Bytes::ZERO, |t, &b| t + b);
    if lora > Bytes::ZERO {
        terms.push(Term::new(TermName::LoraAdapters, lora, Place::Device));
    }
    let with = with_total(s);
    if with > Bytes::ZERO {
        terms.push(Term::new(TermName::WithModels, with, Place::Device));
    }
    terms
}

/// With `with=`: this plan as the first model of the set (its own bytes on each card, its own
/// terms), then the others.
#[cfg(feature = "extras")]
fn set_of(i: &Inputs, v: &Variant, f: &Format, e: &Estimate, s: &Sizing) -> Vec<ModelShare> {
    if s.with.is_empty() {
        return Vec::new();
    }
    let per_card: Vec<Bytes> = (0..e.per_card.len())
        .map(|k| e.per_card[k].bytes.saturating_sub(with_on(s, k)))
        .collect();
    let mut set = vec![ModelShare {
        model: e.model.clone(),
        quant: e.quant.clone(),
        engine: e.engine,
        ctx: i.ctx,
        par: i.par,
        terms: e
            .terms
            .iter()
            .filter(|t| t.name != TermName::WithModels)
            .cloned()
            .collect(),
        device_bytes: per_card.iter().fold(Bytes::ZERO, |t, &b| t + b),
        per_card,
        util: i.engine.preallocates().then(|| main_util(i, s)),
        // This plan as it would run with the cards to itself: every check of its own (vLLM's
        // startup at its whole `--gpu-memory-utilization` too), not only its bytes.
        fits_alone: {
            let alone = Inputs {
                with: Vec::new(),
                ..i.clone()
            };
            assemble(&alone, v, &v.arch, f, &sized(&alone, &v.arch, f, true)).fits
        },
        reasons: Vec::new(),
        command: String::new(),
    }];
    set.extend(s.with.iter().cloned());
    set
}

/// The estimate of `v` in format `f` from its sizing `s`. `pa` is the architecture the sizing
/// read ([`arch_for`]: `gl=`'s global layers, a drafter's MTP or EAGLE-3 layers), which vLLM's
/// and SGLang's pool holds per token as the KV cache term counts it; the checks read the
/// variant's own.
fn assemble(i: &Inputs, v: &Variant, pa: &Arch, f: &Format, s: &Sizing) -> Estimate {
    let a = &v.arch;
    let terms = terms_of(s);
    let per_card = shard(s);
    let mut checks = checks(i, a, s, &per_card);
    let pool = i
        .engine
        .preallocates()
        .then(|| vllm_pool(i, pa, s, &per_card));
    let fix = pool.and_then(|p| startup_fix(i, pa, s, &per_card, &p));
    if let Some(p) = &pool {
        checks.push(vllm_startup(i, fullest(&per_card).budget, p, fix.as_ref()));
        checks.extend(vllm_free_memory(i, &per_card));
        if let Err(e) = vllm_pages(i, pa, s) {
            checks.push(Check::hard(CheckName::VllmStartup, false, e));
        }
    }
    checks.extend(crate::serve::support::check(i.engine, a, f));
    checks.extend(crate::serve::support::device_check(i));
    checks.extend(crate::serve::support::task_check(i));
    #[cfg(feature = "extras")]
    checks.extend(with_check(s, &per_card));
    #[cfg(feature = "extras")]
    checks.extend(images_check(i));
    let fits = checks.iter().all(Check::passes);
    let binding = fullest(&per_card);
    let headroom = SignedBytes::diff(binding.budget, binding.bytes);
    #[allow(unused_mut)]
    let mut e = Estimate {
        model: v.id.clone(),
        quant: f.id.to_string(),
        format: Some(FileUsed::of(f)),
        engine: i.engine.id(),
        total_device_bytes: s.weights.device
            + s.kv.total
            + s.overhead.bytes
            + crate::serve::sizing::drafted(s).map_or(Bytes::ZERO, |(w, k)| w + k)
            + crate::serve::sizing::adapters_of(s)
                .iter()
                .fold(Bytes::ZERO, |t, &b| t + b)
            + with_total(s),
        total_host_bytes: s.weights.host
            + s.logits
            + s.offload
                .map_or(Bytes::ZERO, |o| o.layers_host + o.kv_host + o.experts_host),
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
        startup_fix: fix,
        layouts: Vec::new(),
        parallel: s.choice.clone(),
        checks,
        warnings: Vec::new(),
        command: String::new(),
        speed: None,
        commands: Vec::new(),
        #[cfg(feature = "extras")]
        models: Vec::new(),
        notices: Vec::new(),
    };
    #[cfg(feature = "extras")]
    {
        e.models = set_of(i, v, f, &e, s);
    }
    e
}

/// The plan on every engine that loads `f`, the chosen one first.
fn side_by_side(i: &Inputs, v: &Variant, f: &Format, e: &Estimate) -> Vec<EngineCommand> {
    let mut out = vec![EngineCommand {
        engine: i.engine.id(),
        command: e.command.clone(),
        device_bytes: fullest(&e.per_card).bytes,
        fits: e.fits,
        differs: Vec::new(),
    }];
    for &other in Engine::ALL.iter().filter(|&&x| x != i.engine) {
        if other.container() != f.container {
            continue;
        }
        let mut j = Inputs {
            engine: other,
            ..i.clone()
        };
        let differs = normalize(&mut j).into_iter().map(|n| n.message).collect();
        let a = arch_for(&j, v);
        let s = sized(&j, &a, f, false);
        let o = assemble(&j, v, &a, f, &s);
        out.push(EngineCommand {
            engine: other.id(),
            command: crate::serve::command::command(&j, f, s.layout, &s.shares, s.split),
            device_bytes: fullest(&o.per_card).bytes,
            fits: o.fits,
            differs,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::permalink::from_query;

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
            "model=Qwen/Qwen3-8B&quant=Q4_K_M&with=Qwen/Qwen3-14B:Q4_K_M,Qwen/Qwen3-0.6B:BF16@vllm",
            "model=Qwen/Qwen3-8B&quant=BF16&engine=vllm&gpu=h100-sxm&with=Qwen/Qwen3-0.6B:BF16::8",
        ] {
            for ctx in [512, 8192, 131_072] {
                for par in [1, 7, 300] {
                    let i = Inputs {
                        ctx,
                        par,
                        ..from_query(q).inputs
                    };
                    assert_eq!(fits(&i), estimate(&i).fits, "{q} ctx={ctx} par={par}");
                }
            }
        }
    }
}
