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
use crate::inputs::{GpuChoice, Inputs};
use crate::terms::{kv, Place, Term, TermName};
use crate::units::{Bytes, SignedBytes};

pub mod command;
mod describe;
pub mod layouts;
pub mod measured;
pub mod placement;
pub(crate) mod sizing;
pub mod speed;
pub(crate) mod split;
pub(crate) mod stages;
pub mod support;

pub use crate::estimate::*;
pub use placement::*;
pub(crate) use sizing::*;
pub(crate) use split::*;

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
                e.layouts = crate::serve::layouts::layouts(&i, &a, f, e.split());
                if let Some(w) = crate::serve::layouts::other_fits(&i, &e) {
                    e.warnings.push(w);
                }
            }
            e.commands = side_by_side(&i, v, f, &e);
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
    notices.retain(|n| n.key != "model" && n.key != "quant");
    i.model.clone_from(&v.id);
    i.quant = f.id;
    let mut e = if i.engine.container() == f.container {
        let s = size(&i, &v.arch, f);
        let mut e = assemble(&i, v, f, &s);
        describe::describe(&mut e, &i, v, f, &s);
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
    let s = size(i, &arch_for(i, v), f);
    assemble(i, v, f, &s)
}

/// Every hard constraint, and the layout as information.
pub(crate) fn checks(i: &Inputs, a: &Arch, s: &Sizing, per_card: &[CardUse]) -> Vec<Check> {
    let mut checks = Vec::with_capacity(3);
    checks.push(context_check(i, a));
    let vram = vram_check(i, s, per_card);
    let vram_ok = vram.ok;
    checks.push(vram);
    if let Some(tp) = &s.tp {
        checks.push(tp_info(i, s, tp, vram_ok));
    }
    checks
}

/// The context within the model's maximum, or within what YaRN rope scaling reaches on an
/// engine that can switch it on.
fn context_check(i: &Inputs, a: &Arch) -> Check {
    let yarn = a
        .yarn
        .as_ref()
        .filter(|y| i.ctx > a.max_ctx && i.ctx <= y.max_ctx());
    let ctx_ok = i.ctx <= a.max_ctx || (yarn.is_some() && i.engine != Engine::Ollama);
    Check::hard(
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
    )
}

/// The bytes on the card with the least headroom (the first one under even layer split)
/// within what that card may hold.
fn vram_check(i: &Inputs, s: &Sizing, per_card: &[CardUse]) -> Check {
    let fullest = fullest(per_card);
    let used = fullest.bytes;
    let (capacity, budget) = (fullest.capacity, fullest.budget);
    let vram_ok = used <= budget;
    let kept = (i.reserved() > 0.0 && i.engine != Engine::Vllm)
        .then(|| format!(" less {} kept free", Bytes::from_gib(i.reserved())));
    let budget_words = match (i.engine.preallocates(), kept) {
        (true, None) => format!(
            "{budget} (util {} × {capacity})",
            crate::units::Shortest(i.util)
        ),
        (true, Some(k)) => format!(
            "{budget} (util {} × ({capacity}{k}))",
            crate::units::Shortest(i.util)
        ),
        (false, Some(k)) => format!("{budget} ({capacity}{k})"),
        (false, None) => format!("{capacity}"),
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
            .and_then(|g| crate::serve::support::wired_limit_words(g, used)),
        _ => None,
    };
    Check::hard(
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
    )
}

/// Whether tensor parallelism runs over the cards, and what runs instead when it does not.
fn tp_info(i: &Inputs, s: &Sizing, tp: &Result<String, String>, vram_ok: bool) -> Check {
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
    Check::info(CheckName::TensorParallel, tp.is_ok(), message)
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
    if let Some((w, k)) = crate::serve::sizing::drafted(s) {
        terms.push(Term::new(TermName::DraftWeights, w, Place::Device));
        terms.push(Term::new(TermName::DraftKvCache, k, Place::Device));
    }
    let lora = crate::serve::sizing::adapters_of(s)
        .iter()
        .fold(Bytes::ZERO, |t, &b| t + b);
    if lora > Bytes::ZERO {
        terms.push(Term::new(TermName::LoraAdapters, lora, Place::Device));
    }
    terms
}

fn assemble(i: &Inputs, v: &Variant, f: &Format, s: &Sizing) -> Estimate {
    let a = &v.arch;
    let terms = terms_of(s);
    let per_card = shard(s);
    let mut checks = checks(i, a, s, &per_card);
    let pool = i
        .engine
        .preallocates()
        .then(|| vllm_pool(i, a, s, &per_card));
    if let Some(p) = &pool {
        checks.push(vllm_startup(i, fullest(&per_card).budget, p));
        checks.extend(vllm_free_memory(i, &per_card));
        if let Err(e) = vllm_pages(i, a, s) {
            checks.push(Check::hard(CheckName::VllmStartup, false, e));
        }
    }
    checks.extend(crate::serve::support::check(i.engine, a, f));
    checks.extend(crate::serve::support::device_check(i));
    let fits = checks.iter().all(Check::passes);
    let binding = fullest(&per_card);
    let headroom = SignedBytes::diff(binding.budget, binding.bytes);
    Estimate {
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
                .fold(Bytes::ZERO, |t, &b| t + b),
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
        let s = size(&j, &arch_for(&j, v), f);
        let o = assemble(&j, v, f, &s);
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

/// vLLM with `reserve=`: it refuses to start when the card's free memory is below `util ×
/// total` ("Free memory on device … on startup is less than desired GPU memory utilization",
/// vllm/v1/worker/utils.py, `request_memory`); the largest `--gpu-memory-utilization` that
/// starts leaves the reserve free. `None` without a reserve.
fn vllm_free_memory(i: &Inputs, per_card: &[CardUse]) -> Option<Check> {
    if i.engine != Engine::Vllm || i.reserved() <= 0.0 {
        return None;
    }
    let reserve = Bytes::from_gib(i.reserved());
    // One --gpu-memory-utilization for every card: the smallest card has the smallest share
    // free (1 − reserve / capacity), so it is the one that refuses first.
    let c = per_card.iter().min_by_key(|c| c.capacity)?;
    let free = c.capacity.saturating_sub(reserve);
    let wanted = c.capacity.scale(i.util);
    let ok = free >= wanted;
    let message = if ok {
        format!(
            "vLLM starts beside the {reserve} kept free: {free} free ≥ util {} × {}",
            crate::units::Shortest(i.util),
            c.capacity
        )
    } else {
        let util = (free.0 as f64 / c.capacity.0.max(1) as f64 * 100.0).floor() / 100.0;
        format!(
            "vLLM fails at startup: with {reserve} kept free, {free} is free, less than util {} × {} = {wanted}; --gpu-memory-utilization {} or less starts",
            crate::units::Shortest(i.util),
            c.capacity,
            crate::units::Shortest(util)
        )
    };
    Some(Check::hard(CheckName::VllmStartup, ok, message))
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
