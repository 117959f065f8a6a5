//! The sizing of a serve plan: every term for the chosen split, sharded over the cards, the
//! tensor × pipeline splits weighed and picked, the layers llama.cpp leaves in host RAM, and
//! vLLM's KV pool. The pipeline ([`mod@crate::estimate`]) adds the checks, words and commands.

use crate::catalog::engine::Engine;
use crate::catalog::{Arch, Format};
use crate::estimate::*;
use crate::inputs::Inputs;
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
    pub layout: Sharing,
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
    /// `ncmoe=`: the routed-expert bytes each card's layers gave up to system RAM (they sum to
    /// [`Offload::experts_host`]; empty without an offload).
    pub experts_moved: Vec<Bytes>,
    /// Speculative decoding's draft model (`draft=`): its weights and KV cache on the cards.
    pub draft: Option<(Bytes, Bytes)>,
    /// Serve-time LoRA adapters (`loras=`): their bytes on each card (empty without).
    pub lora: Vec<Bytes>,
    /// `with=`: the other models on the same cards, each with its bytes per card (empty
    /// without; set by the pipeline, which sizes each as an estimate of its own).
    #[cfg(feature = "extras")]
    pub with: Vec<ModelShare>,
    /// Layers of each pipeline stage (`[1]` without stages).
    pub stages: Vec<u64>,
    /// vLLM and SGLang on several alike cards: the split chosen and why.
    pub choice: Option<ParallelChoice>,
    /// llama.cpp and Ollama with `ngl=` or `nkvo=1`: what stays in host RAM.
    pub offload: Option<Offload>,
}

/// Move the host part of `ngl=` / `nkvo=1` / `ncmoe=` out of the device terms.
fn offload(
    i: &Inputs,
    a: &Arch,
    f: &Format,
    w: &mut weights::Weights,
    kv: &mut kv::KvSizing,
    mmproj: Bytes,
    shares: &[u64],
) -> Option<(Offload, Vec<Bytes>)> {
    if !i.engine.llama_family() || (i.ngl.is_none() && !i.nkvo && i.ncmoe.is_none()) {
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
    let (expert_layers, by_card, experts_exact) = experts_in_ram(i, a, f, cpu, shares);
    let experts = Bytes(by_card.iter().fold(0u64, |t, &b| t.saturating_add(b)));
    let experts_host = experts.min(model.saturating_sub(layers_host));
    let by_card = experts_host.split(&by_card);
    w.device = w.device.saturating_sub(layers_host + experts_host);
    let keep = if i.nkvo { 0.0 } else { 1.0 - frac };
    let before = kv.total;
    kv.per_card = kv.per_card.iter().map(|b| b.scale(keep)).collect();
    kv.total = kv.per_card.iter().fold(Bytes::ZERO, |t, &b| t + b);
    let o = Offload {
        cpu_layers: cpu,
        layers_host,
        kv_host: before.saturating_sub(kv.total),
        expert_layers,
        experts_host,
        experts_exact,
    };
    Some((o, by_card))
}

/// `ncmoe=` on vLLM (`--cpu-offload-gb X --cpu-offload-params experts`, selective offload since
/// <https://github.com/vllm-project/vllm/pull/34535>): each worker wraps its decoder layers in
/// order and moves whole parameters whose name has the segment `experts` (the fused MoE's
/// `w13_*`, `w2_*`) to pinned host memory until X GiB are moved (`vllm/config/offload.py`,
/// `vllm/model_executor/offloader/uva.py`: per GPU, per-parameter, stopping once the bytes
/// reach the budget), read by the card over PCIe through unified addressing. With X the first N
/// layers' experts on one card (the command writes it), those are the parameters that move:
/// each of `tp` cards holds `1/tp` of every layer's experts. Pipeline stages would each move X
/// from their own first layers: not modelled, nothing moves there (the words say so).
fn vllm_experts(
    i: &Inputs,
    a: &Arch,
    f: &Format,
    w: &mut weights::Weights,
    layout: Sharing,
    cards: u32,
) -> (Option<Offload>, Vec<Bytes>) {
    let Some((total, layers, exact)) = vllm_moved(i, a, f).filter(|_| layout != Sharing::Layer)
    else {
        return (None, Vec::new());
    };
    let total = total.min(w.device);
    w.device = w.device.saturating_sub(total);
    let o = Offload {
        cpu_layers: 0,
        layers_host: Bytes::ZERO,
        kv_host: Bytes::ZERO,
        expert_layers: layers,
        experts_host: total,
        experts_exact: exact,
    };
    (Some(o), total.split(&vec![1; cards.max(1) as usize]))
}

/// `ncmoe=` on vLLM: the bytes of the first N layers' routed experts (over every card), the
/// layers among them that have experts, and whether exact. None on another engine, without
/// `ncmoe=`, without a rule for the format's experts, or without the `cpu-moe` feature.
pub(crate) fn vllm_moved(i: &Inputs, a: &Arch, f: &Format) -> Option<(Bytes, u32, bool)> {
    let m = i
        .ncmoe
        .filter(|_| cfg!(feature = "cpu-moe") && i.engine == Engine::Vllm)?;
    let (layers, exact) = crate::catalog::layer_experts(&i.model, a, f.id)?;
    let moved = &layers[..(m.layers(a.layers) as usize).min(layers.len())];
    Some((
        Bytes(moved.iter().fold(0u64, |t, &b| t.saturating_add(b))),
        moved.iter().filter(|&&b| b > 0).count() as u32,
        exact,
    ))
}

/// `ncmoe=`: the routed experts of the first N layers in host RAM (llama.cpp `--n-cpu-moe N`:
/// a buffer-type override to the CPU for each `blk.i.ffn_*_exps` tensor, i < N, common/arg.cpp),
/// counting only the layers `ngl=` left on the GPU (the first `cpu` blocks are on the CPU
/// whole). `(layers on the GPU whose experts moved, their bytes by card, exact)`: each layer's
/// expert bytes by llama.cpp's per-tensor types for the file's mix ([`crate::catalog::layer_experts`];
/// a mix without a rule at its k-quant base's types, not exact); none known: nothing moves.
///
/// The cards: llama.cpp gives each a run of consecutive layers, the first layers to the first
/// cards (`get_layer_buft_list` in src/llama-model.cpp picks a layer's device by
/// `std::upper_bound` over the cumulative split of the layers offloaded), in proportion to
/// `shares` here; so the first N layers' experts leave the first cards first.
fn experts_in_ram(
    i: &Inputs,
    a: &Arch,
    f: &Format,
    cpu: u32,
    shares: &[u64],
) -> (u32, Vec<u64>, bool) {
    let mut by_card = vec![0u64; shares.len().max(1)];
    let Some(m) = i.ncmoe else {
        return (0, by_card, true);
    };
    let Some((layers, exact)) = crate::catalog::layer_experts(&i.model, a, f.id) else {
        return (0, by_card, false);
    };
    let on_cards = u64::from(a.layers.saturating_sub(cpu).max(1));
    let sum = shares.iter().sum::<u64>().max(1);
    let (mut k, mut upto, mut count) = (0, shares.first().copied().unwrap_or(0), 0);
    let last = (m.layers(a.layers) as usize).min(layers.len());
    let moved = layers.get(cpu as usize..last).unwrap_or_default();
    for (j, &b) in (0u64..).zip(moved) {
        // The layer's place among those on the cards, on the scale of the shares.
        let at = j.saturating_mul(sum) / on_cards;
        while at >= upto && k + 1 < shares.len() {
            k += 1;
            upto += shares[k];
        }
        if b > 0 {
            count += 1;
            by_card[k] = by_card[k].saturating_add(b);
        }
    }
    (count, by_card, exact)
}

/// `draft=` (llama.cpp `-md`): the draft model's weights on the cards and its KV cache. llama-
/// server loads the draft once and gives every slot its own draft context of one sequence
/// (`init` in tools/server/server.cpp: `slot.ctx_dft = llama_init_from_model(model_dft,
/// cparams_dft)` per slot), of `-cd` cells or else the target's context per sequence
/// (`llama_n_ctx_seq`: the whole `-c` with `-kvu`, `-c / -np` without), its K and V at the
/// draft's cache types (`-ctkd`/`-ctvd`, F16 by default), every layer on the GPU (`-ngld`), the
/// target's other context settings copied (`params_dft = params_base`). So: the draft sized as
/// a model of its own at that context and one slot, its KV times the slots. The draft
/// contexts' compute buffers are not counted (see the term's domain).
/// `spec=mtp`, `spec=eagle`: the MTP layer or EAGLE-3 head ([`crate::serve::speculative::drafter`]).
#[cfg(feature = "spec")]
fn draft(i: &Inputs, a: &Arch, f: &Format, k: &kv::KvSizing) -> Option<(Bytes, Bytes)> {
    if let Some(m) = crate::serve::speculative::drafter(i, a, f, k) {
        return Some(m);
    }
    let dr = i.draft.as_deref()?;
    let f = dr.file(i.engine)?;
    let (_, v) = crate::catalog::catalog().variant(&dr.model)?;
    if i.engine == Engine::Vllm {
        return Some(crate::serve::speculative::vllm_draft(i, &v.arch, f));
    }
    let d = Inputs {
        model: v.id.clone(),
        quant: f.id,
        ctx: i.draft_cells(),
        par: 1,
        kv: crate::catalog::engine::KvDtype::F16,
        kv_v: None,
        kvu: false,
        ngl: None,
        ncmoe: None,
        gl: None,
        mmproj: false,
        draft: None,
        spec: None,
        ndraft: None,
        rsseq: 0,
        ..i.clone()
    };
    let s = size_at(&d, &v.arch, f, None);
    Some((s.weights.device, s.kv.total.times(u64::from(i.par.max(1)))))
}

/// A build without the `spec` feature has no draft model.
#[cfg(not(feature = "spec"))]
fn draft(_: &Inputs, _: &Arch, _: &Format, _: &kv::KvSizing) -> Option<(Bytes, Bytes)> {
    None
}

/// The draft model's weights and KV cache of `s` (none in a build without the `spec` feature:
/// its code then leaves the build).
pub(crate) fn drafted(s: &Sizing) -> Option<(Bytes, Bytes)> {
    if cfg!(feature = "spec") {
        s.draft
    } else {
        None
    }
}

/// `loras=`: the adapters' bytes on each card ([`crate::terms::lora_adapters`]). vLLM: each
/// card holds its stage's layers (all of them without pipeline stages) at the tensor-parallel
/// size; llama.cpp: the adapters' tensors follow the layers they patch, split as the layers are.
#[cfg(feature = "extras")]
fn adapters(i: &Inputs, a: &Arch, layout: Sharing, shares: &[u64], tp: u32) -> Vec<Bytes> {
    let Some(l) = i.lora() else {
        return Vec::new();
    };
    if !i.engine.preallocates() {
        return crate::terms::lora_adapters::llama_cpp(a, l.count, l.rank()).split(shares);
    }
    // Under pipeline stages a card's share is its stage's layers ([`card_shares`]).
    shares
        .iter()
        .map(|&n| {
            let layers = if layout == Sharing::Layer {
                n
            } else {
                u64::from(a.layers)
            };
            adapters_on_stage(i, a, tp, layers)
        })
        .collect()
}

/// vLLM: the adapters on one card of a stage of `layers` layers under tensor-parallel size `tp`
/// (zero without `loras=`).
pub(crate) fn adapters_on_stage(i: &Inputs, a: &Arch, tp: u32, layers: u64) -> Bytes {
    #[cfg(feature = "extras")]
    if let Some(l) = i.lora() {
        return crate::terms::lora_adapters::vllm_card(a, l.count, l.rank(), tp, layers);
    }
    let _ = (i, a, tp, layers);
    Bytes::ZERO
}

/// The adapters' bytes on each card of `s` (none in a build without the `extras` feature).
pub(crate) fn adapters_of(s: &Sizing) -> &[Bytes] {
    if cfg!(feature = "extras") {
        &s.lora
    } else {
        &[]
    }
}

/// A build without the `extras` feature has no serve-time adapters.
#[cfg(not(feature = "extras"))]
fn adapters(_: &Inputs, _: &Arch, _: Sharing, _: &[u64], _: u32) -> Vec<Bytes> {
    Vec::new()
}

/// How `cards` cards share a model split into `pp` pipeline stages.
fn sharing(cards: u32, pp: u32) -> Sharing {
    if cards <= 1 {
        Sharing::Single
    } else if pp == 1 {
        Sharing::Tensor
    } else {
        Sharing::Layer
    }
}

/// [`size`] with the split `(tp, pp)` of vLLM and SGLang given (`None`: the engine's own
/// rule, one card or mixed cards).
pub(crate) fn size_at(i: &Inputs, a: &Arch, f: &Format, split: Option<(u32, u32)>) -> Sizing {
    let capacities = card_capacities(i);
    let cards = capacities.len() as u32;
    let budgets = budgets(i, &capacities);
    let mixed = capacities.iter().any(|&c| c != capacities[0]);
    let tp = tp_check(i, a, split, cards, mixed);
    let (tp_size, pp_size) = match (split, &tp) {
        (Some(sp), _) => sp,
        (None, None) => (1, 1),
        (None, Some(Ok(_))) => (cards, 1),
        (None, Some(Err(_))) => (1, cards),
    };
    let layout = sharing(cards, pp_size);
    let stages = stage_layers(i, a, layout, mixed, &capacities, pp_size);
    let shares = card_shares(layout, &stages, cards, tp_size);
    let tensor = tp_size > 1;
    let cpu_only = crate::serve::support::cpu_only(i);
    let mut w = weights::weights(a, f, i.engine, cpu_only);
    // vLLM and SGLang pipeline stages: the embedding on the first, the LM head (a tied model's
    // copy of the embedding) on the last; each of a stage's cards holds `1/tp` of it.
    let stage_weights = (layout == Sharing::Layer && i.engine.preallocates()).then(|| {
        let sw = crate::serve::stages::stage_weights(a, f, w.device, &stages);
        w.device = sw.iter().fold(Bytes::ZERO, |t, &b| t + b);
        sw.iter()
            .flat_map(|b| b.split(&vec![1; tp_size as usize]))
            .collect::<Vec<Bytes>>()
    });
    let mmproj = crate::catalog::mmproj::device_bytes(i.engine, &f.repo, i.mmproj);
    w.device += mmproj;
    let mut kv = if layout == Sharing::Layer && tensor {
        staged_kv(i, a, tp_size, cards, &stages)
    } else {
        kv::for_engine(a, i, layout == Sharing::Tensor, &shares, admission_step(i))
    };
    // `ngl=`, `nkvo=1` and `ncmoe=` move layers between a card and the RAM: nothing to move
    // without a card.
    let (offload, experts_moved) = if cpu_only {
        (None, Vec::new())
    } else if i.engine == Engine::Vllm {
        vllm_experts(i, a, f, &mut w, layout, cards)
    } else {
        offload(i, a, f, &mut w, &mut kv, mmproj, &shares)
            .map_or((None, Vec::new()), |(o, by_card)| (Some(o), by_card))
    };
    let draft = draft(i, a, f, &kv);
    let o = engine_overhead(i, a, cards, w.device.saturating_sub(mmproj), &kv, tensor);
    Sizing {
        offload,
        weights: w,
        kv,
        overhead: o,
        logits: host_logits(i, a),
        tp,
        layout,
        lora: adapters(i, a, layout, &shares, tp_size),
        shares,
        capacities,
        budgets,
        mmproj,
        stage_weights,
        split: (tp_size, pp_size),
        experts_moved,
        draft,
        #[cfg(feature = "extras")]
        with: Vec::new(),
        stages,
        choice: None,
    }
}

/// The host logits buffer of the llama.cpp family, else nothing.
fn host_logits(i: &Inputs, a: &Arch) -> Bytes {
    match (i.engine.llama_family(), crate::catalog::task_of(&i.model)) {
        (false, _) => Bytes::ZERO,
        (true, Some(_)) => logits::embeddings(a, i.par),
        (true, None) => logits::bytes(a, i.par),
    }
}

/// The engine's own memory beside weights and KV: MLX's, an encoder's, or the fit of the others.
fn engine_overhead(
    i: &Inputs,
    a: &Arch,
    cards: u32,
    on_card: Bytes,
    kv: &kv::KvSizing,
    tensor: bool,
) -> overhead::Overhead {
    if i.engine == Engine::Mlx {
        overhead::mlx(a, i.par)
    } else if let Some(bytes) = crate::terms::encoder::engine_overhead(i, a, cards) {
        overhead::Overhead::of(bytes)
    } else {
        let cuda = !crate::serve::support::cpu_only(i);
        let mut o = match overhead::llama_one_card(i, a, cards, kv.llama.as_ref(), cuda) {
            Some(one) => overhead::Overhead::one_card(one),
            None => overhead::overhead(i.engine, cards, on_card, kv.cells, a.vocab, tensor, i.util),
        };
        o.bytes += crate::terms::batch::pooled_extra(i, a);
        o
    }
}

/// Share of each card: equal under tensor parallelism (every layer split by heads), its stage's
/// layers under pipeline parallelism (each of a stage's `tp` cards holds them all, split by
/// heads).
fn card_shares(layout: Sharing, stages: &[u64], cards: u32, tp_size: u32) -> Vec<u64> {
    match layout {
        Sharing::Layer => (0..cards as usize)
            .map(|k| stages[(k / tp_size as usize).min(stages.len() - 1)])
            .collect(),
        Sharing::Single | Sharing::Tensor => vec![1; cards as usize],
    }
}

/// What each card may hold: its capacity less the `reserve=` kept free, or for an engine that
/// preallocates the `util` share: vLLM of the whole card (`requested_memory = total × util`,
/// vllm/v1/worker/utils.py; a reserve only decides whether it starts, see the startup check),
/// SGLang of what is free before it loads (`pre_model_load_memory × mem_fraction_static`, its
/// `_profile_available_bytes`: the reserve comes off first).
pub(crate) fn budgets(i: &Inputs, capacities: &[Bytes]) -> Vec<Bytes> {
    let reserve = Bytes::from_gib(i.reserved());
    capacities
        .iter()
        .map(|&c| match i.engine {
            Engine::Vllm => c.scale(i.util),
            Engine::Sglang => c.saturating_sub(reserve).scale(i.util),
            _ => c.saturating_sub(reserve),
        })
        .collect()
}

/// How the cards share the model: tensor parallelism when it can start (and the cards are
/// alike: it gives every card an equal shard), else layer split; vLLM and SGLang run the split
/// they are given. `None` on one card.
fn tp_check(
    i: &Inputs,
    a: &Arch,
    split: Option<(u32, u32)>,
    cards: u32,
    mixed: bool,
) -> Option<Result<String, String>> {
    match split {
        Some((t, _)) if t > 1 => Some(tensor_parallel_words(i.engine, a, t)),
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
                tensor_parallel_words(i.engine, a, cards)
            }
        }),
    }
}

/// Layers of each pipeline stage (vLLM and SGLang: their `get_pp_indices`); mixed cards: whole
/// layers in proportion to each card's memory (llama.cpp `-ts`); llama.cpp's even `-ts 1,1,…`:
/// the first cards one layer more when the count does not divide.
fn stage_layers(
    i: &Inputs,
    a: &Arch,
    layout: Sharing,
    mixed: bool,
    capacities: &[Bytes],
    pp_size: u32,
) -> Vec<u64> {
    match layout {
        Sharing::Layer if mixed => {
            let mib: Vec<u64> = capacities.iter().map(|c| c.get() >> 20).collect();
            Bytes(u64::from(a.layers))
                .split(&mib)
                .into_iter()
                .map(Bytes::get)
                .collect()
        }
        Sharing::Layer => crate::serve::stages::pipeline_stages(i.engine, a.layers, pp_size),
        Sharing::Single | Sharing::Tensor => vec![1],
    }
}

/// The KV cache of a tensor × pipeline split: each stage's layers with one of `tp` cards' KV
/// heads.
fn staged_kv(i: &Inputs, a: &Arch, tp_size: u32, cards: u32, stages: &[u64]) -> kv::KvSizing {
    let ctx = u64::from(i.ctx);
    let per_stage = kv::paged(
        a,
        ctx,
        u64::from(i.par.max(1)),
        i.kv,
        u64::from(tp_size),
        admission_step(i),
    )
    .split(stages);
    let per_card: Vec<Bytes> = (0..cards as usize)
        .map(|k| per_stage[k / tp_size as usize])
        .collect();
    kv::KvSizing {
        total: per_card.iter().fold(Bytes::ZERO, |t, &b| t + b),
        per_card,
        cells: ctx.saturating_mul(u64::from(i.par.max(1))),
        llama: None,
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
            let moved = s.experts_moved.iter().fold(Bytes::ZERO, |t, &b| t + b);
            let mut w = (s.weights.device.saturating_sub(s.mmproj) + moved).split(&s.shares);
            // The experts `ncmoe=` moved leave the cards that held their layers (a card
            // emptier than its share passes the rest on to the next).
            let mut owed = Bytes::ZERO;
            for (k, &m) in s.experts_moved.iter().enumerate() {
                owed += m;
                let take = owed.min(w[k]);
                w[k] = w[k].saturating_sub(take);
                owed = owed.saturating_sub(take);
            }
            w[0] += s.mmproj;
            w
        }
    };
    let o = s.overhead.bytes.split(&vec![1; n]);
    // The draft model's layers split over the cards as the target's are.
    let (dw, dk) = drafted(s).map_or((Vec::new(), Vec::new()), |(w, k)| {
        (w.split(&s.shares), k.split(&s.shares))
    });
    (0..n)
        .map(|k| {
            let mut terms = vec![
                (TermName::Weights, w[k]),
                (TermName::KvCache, s.kv.per_card[k]),
                (TermName::Overhead, o[k]),
            ];
            if let (Some(&dw), Some(&dk)) = (dw.get(k), dk.get(k)) {
                for (name, b) in [(TermName::DraftWeights, dw), (TermName::DraftKvCache, dk)] {
                    if b > Bytes::ZERO {
                        terms.push((name, b));
                    }
                }
            }
            if let Some(&l) = adapters_of(s).get(k) {
                terms.push((TermName::LoraAdapters, l));
            }
            #[cfg(feature = "extras")]
            if !s.with.is_empty() {
                terms.push((TermName::WithModels, with_on(s, k)));
            }
            CardUse {
                index: k as u32,
                bytes: terms.iter().fold(Bytes::ZERO, |t, &(_, b)| t + b),
                capacity: s.capacities[k],
                budget: s.budgets[k],
                terms,
            }
        })
        .collect()
}

/// The bytes the other models of `with=` hold on card `k`.
#[cfg(feature = "extras")]
pub(crate) fn with_on(s: &Sizing, k: usize) -> Bytes {
    s.with
        .iter()
        .filter_map(|m| m.per_card.get(k))
        .fold(Bytes::ZERO, |t, &b| t + b)
}
