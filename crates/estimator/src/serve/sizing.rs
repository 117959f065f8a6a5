//! The sizing of a serve plan: every term for the chosen split, sharded over the cards, the
//! tensor × pipeline splits weighed and picked, the layers llama.cpp leaves in host RAM, and
//! vLLM's KV pool. The pipeline ([`mod@crate::estimate`]) adds the checks, words and commands.

use crate::catalog::engine::Engine;
use crate::catalog::{Arch, Format};
use crate::estimate::*;
use crate::inputs::{thousands, Inputs};
use crate::serve::placement::*;
use crate::terms::{kv, logits, overhead, weights, TermName};
use crate::units::Bytes;

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

/// The most layers on the GPU (`-ngl`, the output layer counting as one) with which every card
/// fits, when the model does not fit with all of them (llama.cpp and Ollama); `None` when it
/// fits or nothing does.
pub(crate) fn fitted_ngl(i: &Inputs, a: &Arch, f: &Format) -> Option<u32> {
    if !crate::serve::support::spills(i) || i.ngl.is_some() {
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
        Layout::Layer => crate::serve::stages::pipeline_stages(i.engine, a.layers, pp_size),
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
    let cpu_only = crate::serve::support::cpu_only(i);
    let mut w = weights::weights(a, f, i.engine, cpu_only);
    // vLLM and SGLang pipeline stages: the embedding on the first, the LM head (a tied model's
    // copy of the embedding) on the last; each of a stage's cards holds `1/tp` of it.
    let stage_weights = (layout == Layout::Layer && i.engine.preallocates()).then(|| {
        let sw = crate::serve::stages::stage_weights(a, f, w.device, &stages);
        w.device = sw.iter().fold(Bytes::ZERO, |t, &b| t + b);
        sw.iter()
            .flat_map(|b| b.split(&vec![1; tp_size as usize]))
            .collect::<Vec<Bytes>>()
    });
    let mmproj = crate::catalog::mmproj::device_bytes(i.engine, &f.repo, i.mmproj);
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

/// vLLM's KV pool on the binding (fullest) card: what is left of its budget after the weights
/// and the overhead there, for the layers and KV heads that card holds.
pub(crate) fn vllm_pool(i: &Inputs, a: &Arch, s: &Sizing, per_card: &[CardUse]) -> kv::VllmPool {
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
pub(crate) fn vllm_pages(i: &Inputs, a: &Arch, s: &Sizing) -> Result<(u64, u64), String> {
    if i.engine == Engine::Vllm {
        kv::vllm_block_sizes(a, i.kv, u64::from(s.split.0.max(1)))
    } else {
        Ok((kv::VLLM_BLOCK, kv::VLLM_BLOCK))
    }
}
