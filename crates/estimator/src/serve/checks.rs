//! Every hard constraint of a serve plan, checked on its sizing: the context within the
//! model's maximum, the fullest card within what it may hold, vLLM's and SGLang's startup, and
//! the layout as information. The pipeline ([`mod@crate::estimate`]) adds the engine's own
//! support checks.

use crate::catalog::engine::Engine;
use crate::catalog::{catalog, Arch};
use crate::estimate::*;
use crate::inputs::{GpuChoice, Inputs};
use crate::serve::placement::*;
use crate::serve::sizing::Sizing;
use crate::terms::{kv, overhead};
use crate::units::Bytes;

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

/// vLLM refuses to start when the weights and the profiled peak leave no room, or when the
/// pool cannot hold one request of `--max-model-len` tokens
/// (`_check_enough_kv_cache_memory` in vllm/v1/core/kv_cache_utils.py); the words then name
/// the limit and what would start instead ([`StartupFix`]).
pub(crate) fn vllm_startup(
    i: &Inputs,
    fullest_budget: Bytes,
    p: &kv::VllmPool,
    fix: Option<&StartupFix>,
) -> Check {
    let ok = p.per_request <= p.bytes && p.bytes > Bytes::ZERO;
    let (name, len_flag, util_flag, check) = match i.engine {
        Engine::Sglang => (
            "SGLang",
            "--context-length",
            "--mem-fraction-static",
            CheckName::SglangStartup,
        ),
        _ => (
            "vLLM",
            "--max-model-len",
            "--gpu-memory-utilization",
            CheckName::VllmStartup,
        ),
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
            "{name} fails at startup: the weights (and the profiled peak) exceed its budget of {}{}",
            fullest_budget,
            instead(fix, len_flag, util_flag, i.ctx)
        )
    } else {
        format!(
            "{name} fails at startup: {} of KV cache cannot hold one request of {len_flag} {} ({} needed){}",
            p.bytes,
            i.ctx,
            p.per_request,
            instead(fix, len_flag, util_flag, i.ctx)
        )
    };
    Check::hard(check, ok, message)
}

/// "; --max-model-len L starts (the longest that fits), or --gpu-memory-utilization U", each
/// alone, or that no setting of them does.
fn instead(fix: Option<&StartupFix>, len_flag: &str, util_flag: &str, ctx: u32) -> String {
    let Some(f) = fix else {
        return String::new();
    };
    let len = f
        .max_model_len
        .map(|l| format!("{len_flag} {l} starts (the longest that fits)"));
    let util = f.util.map(|u| {
        let eager = match f.margin {
            Some(m) if m < overhead::VLLM_CUDA_GRAPHS_MAX => format!(
                " with --enforce-eager ({m} left for CUDA graphs, under the {} they may take)",
                overhead::VLLM_CUDA_GRAPHS_MAX
            ),
            _ => String::new(),
        };
        format!(
            "{util_flag} {} at {ctx} tokens{eager}",
            crate::units::Shortest(u)
        )
    });
    match (len, util) {
        (Some(l), Some(u)) => format!("; {l}, or {u}"),
        (Some(l), None) => format!("; {l}; no {util_flag} holds {ctx}"),
        (None, Some(u)) => format!("; it starts with {u}"),
        (None, None) => format!(
            "; no {len_flag} or {util_flag} starts it: fewer bytes per card needed (more cards, a smaller format)"
        ),
    }
}

/// vLLM with `reserve=`: it refuses to start when the card's free memory is below `util ×
/// total` ("Free memory on device … on startup is less than desired GPU memory utilization",
/// vllm/v1/worker/utils.py, `request_memory`); the largest `--gpu-memory-utilization` that
/// starts leaves the reserve free. `None` without a reserve.
pub(crate) fn vllm_free_memory(i: &Inputs, per_card: &[CardUse]) -> Option<Check> {
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

#[cfg(feature = "extras")]
/// `with=`: every other model of the set fits and starts by itself as its own instance; the
/// words say what each model holds on the fullest card and, when the set is over, whether this
/// plan alone would fit there. `None` without other models.
pub(crate) fn with_check(s: &Sizing, per_card: &[CardUse]) -> Option<Check> {
    if s.with.is_empty() {
        return None;
    }
    let c = fullest(per_card);
    let k = c.index as usize;
    let others = crate::serve::sizing::with_on(s, k);
    let own = c.bytes.saturating_sub(others);
    let mut shares = vec![format!("this model {own}")];
    for m in &s.with {
        let util = m.util.map_or(String::new(), |u| {
            format!(" (--gpu-memory-utilization {})", crate::units::Shortest(u))
        });
        let b = m.per_card.get(k).copied().unwrap_or_default();
        shares.push(format!("{} {} on {} {b}{util}", m.model, m.quant, m.engine));
    }
    let place = if per_card.len() > 1 {
        format!(" on card {k}")
    } else {
        String::new()
    };
    let mut message = format!("{} models{place}: {}", s.with.len() + 1, shares.join(", "));
    if c.bytes > c.budget {
        message.push_str(&if own <= c.budget {
            format!(
                "; together {} > {}: this model alone fits, the others take {others}",
                c.bytes, c.budget
            )
        } else {
            format!("; this model alone does not fit ({own} > {})", c.budget)
        });
    }
    let alone: Vec<String> = s
        .with
        .iter()
        .filter(|m| !m.fits_alone)
        .map(|m| {
            format!(
                "{} does not fit or start by itself: {}",
                m.model,
                m.reasons.first().map_or("", String::as_str)
            )
        })
        .collect();
    if !alone.is_empty() {
        message.push_str(&format!("; {}", alone.join("; ")));
    }
    Some(Check::hard(
        CheckName::WithModels,
        alone.is_empty(),
        message,
    ))
}

#[cfg(feature = "extras")]
/// `images=`: one request's images take tokens of its context (each by its processor's rule,
/// [`crate::catalog::images`]); they must leave room for text. `None` without images.
pub(crate) fn images_check(i: &Inputs) -> Option<Check> {
    if i.images == 0 {
        return None;
    }
    let r = crate::catalog::images::rule(&i.model)?;
    let tokens = u64::from(i.images) * u64::from(r.tokens);
    let ctx = u64::from(i.ctx);
    let (up_to, each) = if r.fixed {
        ("", "")
    } else {
        ("up to ", "at most ")
    };
    let ok = tokens < ctx;
    let message = if ok {
        format!(
            "{} image(s) per request take {up_to}{tokens} of the {ctx}-token context ({each}{} each: {}), leaving {} for text",
            i.images,
            r.tokens,
            r.rule,
            ctx - tokens
        )
    } else {
        format!(
            "{} image(s) per request take {up_to}{tokens} tokens ({each}{} each: {}), more than the {ctx}-token context: raise the context above {tokens} or send fewer images",
            i.images, r.tokens, r.rule
        )
    };
    Some(Check::hard(CheckName::ImagesInContext, ok, message))
}
