//! Tensor × pipeline parallel layouts of vLLM and SGLang: every way to write the card count as
//! `tensor_parallel × pipeline_parallel`, each with its memory on one GPU and whether it starts.
//!
//! Rules, per layout:
//! * Tensor parallelism over `tp` GPUs needs the attention heads divisible by `tp`, the KV heads
//!   divisible by `tp` or `tp` a multiple of them (the KV heads are then replicated), and the
//!   vocabulary padded to a multiple of 64 divisible by `tp` (`VocabParallelEmbedding` pads to
//!   `DEFAULT_VOCAB_PADDING_SIZE = 64` and `divide()`s the padded rows by `tp`, which asserts
//!   divisibility: vllm/model_executor/layers/vocab_parallel_embedding.py; SGLang's
//!   python/sglang/srt/layers/vocab_parallel_embedding.py is adapted from it):
//!   [`crate::serve::placement::tensor_parallel`].
//! * Pipeline parallelism over `pp` stages splits the layers as each engine's `get_pp_indices`
//!   does ([`pipeline_stages`]), at least one layer per stage. The first stage also holds the
//!   embedding and the last the LM head; a model that ties them keeps a copy of the embedding on
//!   the last stage as its head (vLLM's models build `embed_tokens` when
//!   `get_pp_group().is_first_rank or (config.tie_word_embeddings and
//!   get_pp_group().is_last_rank)`, e.g. vllm/model_executor/models/llama.py).
//! * Per GPU of a stage: that stage's weights over `tp`, the KV cache of its layers with the KV
//!   heads one of `tp` GPUs holds, and the engine's per-card overhead (with its
//!   tensor-parallel communication buffers when `tp > 1`); it fits when the fullest GPU stays
//!   within `util × capacity`.
//!
//! The estimate itself runs the split of [`crate::estimate::ParallelChoice`]: pinned by
//! `tp=`/`pp=`, else the one that fits with the largest KV pool (the largest tensor split of
//! those within a few percent of it); the list shows the others beside it, and [`summary`]
//! gives one line per layout for the page.

use crate::catalog::engine::Engine;
use crate::catalog::{Arch, Format};
pub use crate::estimate::ParallelLayout;
use crate::inputs::Inputs;
use crate::serve::placement::{admission_step, tensor_parallel};
pub use crate::serve::stages::pipeline_stages;
pub(crate) use crate::serve::stages::stage_weights;
use crate::terms::{kv, overhead, weights};
use crate::units::Bytes;
use serde::Serialize;

/// Every `tp × pp = cards` layout of `i` on `a` in `f` (vLLM and SGLang with alike cards; empty
/// otherwise), largest `tp` first; `chosen` = the estimate's own `(tp, pp)`.
pub fn layouts(i: &Inputs, a: &Arch, f: &Format, chosen: (u32, u32)) -> Vec<ParallelLayout> {
    if !i.engine.preallocates() || !i.gpus.is_empty() {
        return Vec::new();
    }
    let cards = i.cards.max(1);
    let capacity = crate::serve::placement::card_capacity(i);
    let budget = crate::serve::sizing::budgets(i, &[capacity])[0];
    // vLLM and SGLang run on cards (a CPU-only machine is refused by the device check).
    let device = weights::weights(a, f, i.engine, false).device;
    let ctx = u64::from(i.ctx);
    let par = u64::from(i.par.max(1));
    let mut out = Vec::new();
    for tp in (1..=cards).rev().filter(|t| cards.is_multiple_of(*t)) {
        let pp = cards / tp;
        let mut why = Vec::new();
        if tp > 1 {
            if let Err(e) = tensor_parallel(i.engine, a, tp) {
                why.push(e.to_string());
            }
        }
        if pp > a.layers {
            why.push(format!(
                "{pp} pipeline stages for {} layers: a stage would hold none",
                a.layers
            ));
        }
        let stage_layers = pipeline_stages(i.engine, a.layers, pp);
        let mut w = stage_weights(a, f, device, &stage_layers);
        // vLLM's `ncmoe=` offload, without pipeline stages (serve::sizing::vllm_experts).
        if let (Some((moved, _, _)), 1) = (crate::serve::sizing::vllm_moved(i, a, f), pp) {
            w[0] = w[0].saturating_sub(moved);
        }
        let kv_one = kv::paged(a, ctx, par, i.kv, u64::from(tp), admission_step(i));
        let kv = kv_one.split(&stage_layers);
        let o = overhead::overhead(i.engine, 1, Bytes::ZERO, 0, a.vocab, tp > 1, i.util).bytes;
        let stage_bytes: Vec<Bytes> = (0..pp as usize)
            .map(|s| {
                w[s].split(&vec![1; tp as usize])[0]
                    + kv[s]
                    + o
                    + crate::serve::sizing::adapters_on_stage(i, a, tp, stage_layers[s])
            })
            .collect();
        let per_gpu = stage_bytes.iter().copied().max().unwrap_or_default();
        let valid = why.is_empty();
        let fits = valid && per_gpu <= budget;
        if valid && !fits {
            // SGLang takes its share of what is free beside the reserve (sizing::budgets).
            let of = if i.engine == Engine::Sglang && i.reserved() > 0.0 {
                format!(
                    "{capacity} less {} kept free",
                    Bytes::from_gib(i.reserved())
                )
            } else {
                capacity.to_string()
            };
            why.push(format!(
                "{per_gpu} on the fullest GPU > {budget} (util {} × {of}): short by {}",
                crate::units::Shortest(i.util),
                per_gpu.saturating_sub(budget)
            ));
        }
        let is_chosen = (tp, pp) == chosen;
        out.push(ParallelLayout {
            tp,
            pp,
            stage_layers,
            stage_bytes,
            per_gpu_bytes: per_gpu,
            budget,
            valid,
            fits,
            reason: (!why.is_empty()).then(|| why.join("; ")),
            chosen: is_chosen,
        });
    }
    out
}

/// When the estimate's layout does not fit and another does: which, in words.
pub(crate) fn other_fits(i: &Inputs, e: &crate::estimate::Estimate) -> Option<String> {
    if e.fits {
        return None;
    }
    let l = e.layouts.iter().find(|l| l.fits && !l.chosen)?;
    Some(format!(
        "{} fits as {}: {} on the fullest GPU of {} (see the layouts).",
        i.engine.label(),
        crate::serve::placement::parallel_words(i.engine, l.tp, l.pp),
        l.per_gpu_bytes,
        l.budget
    ))
}

/// One line of [`summary`]: a `tp × pp` layout, its memory on the fullest GPU and whether it
/// fits, as the estimate would size it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LayoutLine {
    /// Tensor-parallel size.
    pub tp: u32,
    /// Pipeline-parallel size.
    pub pp: u32,
    /// Bytes on the fullest GPU.
    pub per_gpu: Bytes,
    /// What the engine may use of that GPU (`util × capacity`).
    pub budget: Bytes,
    /// The KV pool in tokens on that layout (0 when it cannot start).
    pub kv_tokens: u64,
    /// The engine can start it (divisibility, a layer per stage).
    pub valid: bool,
    /// Valid, within the budget, and the pool holds one request of the context.
    pub fits: bool,
    /// The layout the estimate runs ([`crate::estimate::ParallelChoice`]).
    pub chosen: bool,
    /// The line, ready to show: `tp 2 × pp 2: 20.31 GiB of 21.60 GiB per GPU, 61,440 tokens of
    /// KV: fits (chosen)`.
    pub text: String,
}

/// One line per `tp × pp = cards` layout of vLLM or SGLang on alike cards (largest `tp` first;
/// empty for other engines, mixed cards and models the catalog lacks), for the page: cheap
/// (no words beyond the line, no commands, no speed), no float formatting, no sorting.
pub fn summary(inputs: &Inputs) -> Vec<LayoutLine> {
    let mut i = inputs.clone();
    crate::inputs::normalize::normalize(&mut i);
    let Some((_, v)) = crate::catalog::catalog().variant(&i.model) else {
        return Vec::new();
    };
    let container = i.engine.container();
    match v
        .formats
        .iter()
        .find(|f| f.id == i.quant && f.container == container)
    {
        Some(f) => summary_with(&i, &v.arch, f),
        None => Vec::new(),
    }
}

/// [`summary`] for a model read from a file or the Hub (`i` already normalized, as
/// [`crate::serve::estimate_file`] does).
pub fn summary_with(i: &Inputs, a: &Arch, f: &Format) -> Vec<LayoutLine> {
    if !i.engine.preallocates() || !i.gpus.is_empty() {
        return Vec::new();
    }
    let cards = i.cards.max(1);
    let all = crate::serve::split::candidates(i, a, f, cards);
    let (k, _, _) = crate::serve::split::pick(i, &all, cards);
    all.iter()
        .enumerate()
        .map(|(n, c)| {
            let (tp, pp) = c.s.split;
            let (per_gpu, budget) = c.fullest;
            let chosen = n == k;
            let verdict = match &c.valid {
                Err(e) => format!("cannot start ({e})"),
                Ok(()) if c.fits => "fits".to_string(),
                Ok(()) if per_gpu > budget => {
                    format!("short by {}", per_gpu.saturating_sub(budget))
                }
                Ok(()) => "no room for one request of the context".to_string(),
            };
            let mark = if chosen { " (chosen)" } else { "" };
            let text = if c.valid.is_ok() {
                format!(
                    "tp {tp} × pp {pp}: {per_gpu} of {budget} per GPU, {} tokens of KV: {verdict}{mark}",
                    crate::inputs::thousands(c.tokens)
                )
            } else {
                format!("tp {tp} × pp {pp}: {verdict}{mark}")
            };
            LayoutLine {
                tp,
                pp,
                per_gpu,
                budget,
                kv_tokens: if c.valid.is_ok() { c.tokens } else { 0 },
                valid: c.valid.is_ok(),
                fits: c.fits,
                chosen,
                text,
            }
        })
        .collect()
}
