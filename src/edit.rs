//! The edit reducer: one user action ([`Edit`]) applied to the [`Inputs`] ([`apply`]), and what
//! the controls offer (variants, formats, stops) for the current inputs.
//!
//! Pure functions over the catalog and one `Inputs` value, so the page's behaviour is tested on
//! the host: the components only turn DOM events into an [`Edit`] and call [`apply`]. Nothing
//! here computes a memory number; choosing a variant on a family change asks the estimator.
//! Every bound comes from [`limits`], the permalink's own.

use fitcard_estimator::catalog::{catalog, Family, Format, Variant};
use fitcard_estimator::inputs::{limits, GradCkpt, Method, Optim, TargetModule, Trainer};
use fitcard_estimator::permalink::normalize;
use fitcard_estimator::units::Shortest;
use fitcard_estimator::{
    estimate, training, Engine, GpuChoice, Inputs, KvDtype, Mode, Notice, Quant,
};

/// One user action.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Switch to another family (catalog id).
    Family(String),
    /// Variant by slider position: 0 = weakest of the family.
    Variant(usize),
    /// Format by slider position: 0 = lowest precision the engine can load.
    Quant(usize),
    Ctx(u32),
    Par(u32),
    Cards(u32),
    /// A catalog GPU by id, or `None` for a free VRAM size (starts at the current capacity).
    Gpu(Option<String>),
    /// VRAM per card in GiB (free-form card).
    Vram(f64),
    Engine(Engine),
    Kv(KvDtype),
    Kvu(bool),
    Ubatch(u32),
    SwaFull(bool),
    Util(f64),
    /// Load the repo's vision projector (`mmproj=`).
    Mmproj(bool),
    /// Measured equivalent global layers (`gl=`), or `None` for the catalog's layout.
    Gl(Option<f64>),
    /// Take a ranked candidate: variant id and format id.
    Candidate {
        model: String,
        quant: Quant,
    },
    /// Serve or train.
    Mode(Mode),
    Method(Method),
    Bsz(u32),
    Seq(u32),
    Rank(u32),
    Optim(Optim),
    /// Trainer profile.
    Trainer(Trainer),
    Gc(GradCkpt),
    /// Adapt a target module or not (at least one stays selected).
    Target(TargetModule, bool),
    /// Free GiB of GPU `k` in the training pool.
    Free(usize, f64),
    /// Add a GPU to the pool (a copy of the last one).
    AddGpu,
    /// Remove GPU `k` from the pool (one always stays).
    RemoveGpu(usize),
    /// Forget the per-GPU list: the pool is `cards` × the chosen card again.
    ResetGpus,
    /// Let the estimator choose the GPUs (clears an explicit `pick=`).
    AutoPick,
    /// Take a ranked train candidate: variant id and method.
    TrainCandidate {
        model: String,
        method: Method,
    },
    /// Show the best-model view (`best=1`) or the calculator.
    ShowBest(bool),
    /// Open a variant in the calculator (leaving the best-model view), in this format when
    /// given (else the nearest to the current one the engine loads).
    Open {
        model: String,
        quant: Option<Quant>,
    },
    /// Best-model filters: one family (catalog id), one licence id, a least context, reasoning
    /// models or the others; `None` = any.
    BestFamily(Option<String>),
    BestLicense(Option<String>),
    MinCtx(Option<u32>),
    Reasoning(Option<bool>),
}

/// Train-mode choices, in the order the selectors list them.
pub const METHODS: [(Method, &str); 3] = [
    (Method::Qlora, "QLoRA (4-bit base + adapters)"),
    (Method::Lora, "LoRA (16-bit base + adapters)"),
    (Method::Full, "Full fine-tuning"),
];
pub const OPTIMS: [(Optim, &str); 4] = [
    (Optim::Adamw8bit, "adamw_8bit"),
    (Optim::AdamwTorch, "adamw_torch"),
    (Optim::PagedAdamw32bit, "paged_adamw_32bit"),
    (Optim::Sgd, "sgd"),
];
pub const TRAINERS: [(Trainer, &str); 4] = [
    (
        Trainer::Unsloth,
        "Unsloth (its mechanisms, checked on measurements)",
    ),
    (Trainer::UnslothFormula, "Unsloth's published formula"),
    (Trainer::Transformers, "Hugging Face Trainer / TRL + PEFT"),
    (Trainer::Llamafactory, "LLaMA-Factory"),
];
pub const GCS: [(GradCkpt, &str); 3] = [
    (GradCkpt::Unsloth, "Unsloth (offloaded)"),
    (GradCkpt::True, "Hugging Face (true)"),
    (GradCkpt::None, "Off"),
];

/// Batch-size stops.
pub const BSZ_STOPS: [u32; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/// LoRA rank stops.
pub const RANK_STOPS: [u32; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/// Free GiB per GPU of the training pool as the editor shows it: the explicit list, or `cards`
/// copies of the chosen card's capacity.
pub fn pool_gib(i: &Inputs) -> Vec<f64> {
    if i.train.free.is_empty() {
        training::free_per_gpu(i)
            .iter()
            .map(|b| (b.gib() * 100.0).round() / 100.0)
            .collect()
    } else {
        i.train.free.clone()
    }
}

/// The family and variant of `model` (the default model's if unknown).
pub fn family_of(model: &str) -> (&'static Family, &'static Variant) {
    let cat = catalog();
    cat.variant(model)
        .or_else(|| cat.variant(&Inputs::default().model))
        .unwrap_or_else(|| {
            let f = &cat.families[0];
            (f, &f.variants[0])
        })
}

/// Variants of a family, weakest first (slider order: right is more capable).
pub fn variants(f: &'static Family) -> Vec<&'static Variant> {
    f.variants.iter().rev().collect()
}

/// Where a variant stands in its family of `n`, in words that cannot be misread: `rank` 1 is
/// the most capable (the slider runs from the weakest on the left to the most capable on the
/// right). `most capable of 4`, `2nd most capable of 4`, `least capable of 4`.
pub fn capability_words(rank: u32, n: usize) -> String {
    let n32 = u32::try_from(n).unwrap_or(u32::MAX);
    if n32 <= 1 {
        return "the only size in its family".into();
    }
    if rank <= 1 {
        return format!("most capable of {n}");
    }
    if rank >= n32 {
        return format!("least capable of {n}");
    }
    let suffix = match (rank % 10, rank % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{rank}{suffix} most capable of {n}")
}

/// Slider position of `model` within its family.
pub fn variant_pos(model: &str) -> usize {
    let (f, v) = family_of(model);
    variants(f).iter().position(|x| x.id == v.id).unwrap_or(0)
}

/// Formats of a variant the engine can load, lowest precision first.
pub fn formats(v: &'static Variant, engine: Engine) -> Vec<&'static Format> {
    let c = engine.container();
    v.formats
        .iter()
        .rev()
        .filter(|f| f.container == c)
        .collect()
}

/// Slider position of `quant` among [`formats`] (0 when absent).
pub fn format_pos(v: &'static Variant, engine: Engine, quant: Quant) -> usize {
    formats(v, engine)
        .iter()
        .position(|f| f.id == quant)
        .unwrap_or(0)
}

/// Whether the vision-projector switch applies: llama.cpp, and a format whose repo has one.
pub fn has_projector(i: &Inputs) -> bool {
    i.engine == Engine::LlamaCpp
        && family_of(&i.model)
            .1
            .formats
            .iter()
            .any(|f| f.id == i.quant && fitcard_estimator::mmproj::for_repo(&f.repo).is_some())
}

/// Apply `e` to `i`, then make the result consistent. Returns what had to be adjusted.
pub fn apply(i: &mut Inputs, e: Edit) -> Vec<Notice> {
    let mut notes = Vec::new();
    match e {
        Edit::Family(id) => {
            if let Some(f) = catalog().family(&id) {
                let (cur, _) = family_of(&i.model);
                if cur.id != f.id {
                    // An engine that cannot load any file of the new family gives way to one
                    // that can (a family published as GGUF only runs on llama.cpp).
                    let loads = |e: Engine| {
                        f.variants
                            .iter()
                            .any(|v| v.formats.iter().any(|x| x.container == e.container()))
                    };
                    if !loads(i.engine) {
                        if let Some(e) = [Engine::LlamaCpp, Engine::Vllm]
                            .into_iter()
                            .find(|&e| loads(e))
                        {
                            notes.push(Notice {
                                key: "engine".into(),
                                message: format!(
                                    "{} has no file {} loads in the catalog; switched to {e}",
                                    f.name, i.engine
                                ),
                            });
                            i.engine = e;
                        }
                    }
                    i.model.clone_from(&pick_variant(i, f).id);
                    notes.extend(clamp_ctx(i));
                }
            }
        }
        Edit::Variant(pos) => {
            let (f, _) = family_of(&i.model);
            let vs = variants(f);
            if let Some(v) = vs.get(pos.min(vs.len().saturating_sub(1))) {
                i.model.clone_from(&v.id);
                notes.extend(clamp_ctx(i));
            }
        }
        Edit::Quant(pos) => {
            let (_, v) = family_of(&i.model);
            let fs = formats(v, i.engine);
            if let Some(f) = fs.get(pos.min(fs.len().saturating_sub(1))) {
                i.quant = f.id;
            }
        }
        Edit::Ctx(c) => i.ctx = c.clamp(limits::CTX.0, limits::CTX.1),
        Edit::Par(p) => i.par = p.clamp(limits::PAR.0, limits::PAR.1),
        Edit::Cards(c) => i.cards = c.clamp(limits::CARDS.0, limits::CARDS.1),
        Edit::Gpu(Some(id)) => {
            if let Some(g) = catalog().gpu(&id) {
                i.gpu = GpuChoice::Catalog(g.id.clone());
            }
        }
        Edit::Gpu(None) => {
            if let GpuChoice::Catalog(_) = i.gpu {
                let cap = fitcard_estimator::estimate::card_capacity(i).gib();
                i.gpu = GpuChoice::VramGib((cap * 4.0).round() / 4.0);
            }
        }
        Edit::Vram(g) => {
            let (lo, hi) = limits::VRAM_GIB;
            if g.is_finite() && (lo..=hi).contains(&g) {
                i.gpu = GpuChoice::VramGib(g);
            } else {
                notes.push(Notice {
                    key: "vram".into(),
                    message: format!(
                        "{} GiB is outside {}…{}; kept the previous size",
                        Shortest(g),
                        Shortest(lo),
                        Shortest(hi)
                    ),
                });
            }
        }
        Edit::Engine(en) => i.engine = en,
        Edit::Kv(k) => {
            i.kv = k;
            i.kv_v = None;
        }
        Edit::Kvu(b) => i.kvu = b,
        Edit::Ubatch(u) => i.ubatch = u.clamp(limits::UBATCH.0, limits::UBATCH.1),
        Edit::SwaFull(b) => i.swa_full = b,
        Edit::Mmproj(b) => i.mmproj = b,
        Edit::Gl(g) => i.gl = g.filter(|g| g.is_finite()).map(|g| g.clamp(0.0, 4096.0)),
        Edit::Util(u) => {
            let (lo, hi) = limits::UTIL;
            i.util = u.clamp(lo, hi);
        }
        Edit::Candidate { model, quant } => {
            if catalog().variant(&model).is_some() {
                i.model = model;
                i.quant = quant;
                notes.extend(clamp_ctx(i));
            }
        }
        Edit::Mode(m) => i.mode = m,
        Edit::Method(m) => i.train.method = m,
        Edit::Bsz(b) => i.train.bsz = b.clamp(limits::BSZ.0, limits::BSZ.1),
        Edit::Seq(q) => i.train.seq = q.clamp(limits::SEQ.0, limits::SEQ.1),
        Edit::Rank(r) => i.train.rank = r.clamp(limits::RANK.0, limits::RANK.1),
        Edit::Optim(o) => i.train.optim = o,
        Edit::Trainer(t) => i.train.trainer = t,
        Edit::Gc(g) => i.train.gc = g,
        Edit::Target(m, on) => {
            let set = i.train.targets.with(m, on);
            if set.is_empty() {
                notes.push(Notice {
                    key: "targets".into(),
                    message: "at least one target module stays selected".into(),
                });
            } else {
                i.train.targets = set;
            }
        }
        Edit::Free(k, g) => {
            let (lo, hi) = limits::FREE_GIB;
            let mut pool = pool_gib(i);
            if k < pool.len() && g.is_finite() && (lo..=hi).contains(&g) {
                pool[k] = g;
                i.train.free = pool;
            } else {
                notes.push(Notice {
                    key: "free".into(),
                    message: format!(
                        "{} GiB is outside {}…{}; kept the previous value",
                        Shortest(g),
                        Shortest(lo),
                        Shortest(hi)
                    ),
                });
            }
        }
        Edit::AddGpu => {
            let mut pool = pool_gib(i);
            if pool.len() < limits::GPUS {
                let last = pool.last().copied().unwrap_or(24.0);
                pool.push(last);
                i.train.free = pool;
            }
        }
        Edit::RemoveGpu(k) => {
            let mut pool = pool_gib(i);
            if pool.len() > 1 && k < pool.len() {
                pool.remove(k);
                i.train.free = pool;
                // An explicit selection named positions in the old list.
                i.train.pick.clear();
            }
        }
        Edit::ResetGpus => {
            i.train.free.clear();
            i.train.pick.clear();
        }
        Edit::AutoPick => i.train.pick.clear(),
        Edit::TrainCandidate { model, method } => {
            if catalog().variant(&model).is_some() {
                i.model = model;
                i.train.method = method;
            }
        }
        Edit::ShowBest(on) => i.best.on = on,
        Edit::Open { model, quant } => {
            if catalog().variant(&model).is_some() {
                i.model = model;
                if let Some(q) = quant {
                    i.quant = q;
                }
                i.mode = Mode::Serve;
                i.best.on = false;
                notes.extend(clamp_ctx(i));
            }
        }
        Edit::BestFamily(f) => {
            i.best.family = f.filter(|id| catalog().family(id).is_some());
        }
        Edit::BestLicense(l) => i.best.license = l.map(|l| l.to_ascii_lowercase()),
        Edit::MinCtx(c) => i.best.min_ctx = c.map(|c| c.clamp(limits::CTX.0, limits::CTX.1)),
        Edit::Reasoning(r) => i.best.reasoning = r,
    }
    notes.extend(normalize(i));
    notes
}

/// On a family change: the most capable variant that fits with every other setting kept, or
/// the weakest when none does (the estimator of the current mode decides what fits).
fn pick_variant(i: &Inputs, f: &'static Family) -> &'static Variant {
    f.variants
        .iter()
        .find(|v| {
            let mut t = i.clone();
            t.model.clone_from(&v.id);
            let _ = clamp_ctx(&mut t);
            let _ = normalize(&mut t);
            match t.mode {
                Mode::Serve => estimate(&t).fits,
                Mode::Train => training::estimate(&t).estimate.fits,
            }
        })
        .or_else(|| f.variants.last())
        .expect("a catalog family has variants")
}

/// A context beyond the longest the model runs at on the engine ([`fitcard_estimator::catalog::Arch::longest_ctx`]: with
/// YaRN where validated) no longer applies: bring it down, and say so. (Train
/// mode's sequence length is left alone: the estimator reports what it implies.)
fn clamp_ctx(i: &mut Inputs) -> Option<Notice> {
    let (_, v) = catalog().variant(&i.model)?;
    let longest = v.arch.longest_ctx(i.engine);
    (i.ctx > longest).then(|| {
        let was = i.ctx;
        i.ctx = longest;
        Notice {
            key: "ctx".into(),
            message: format!(
                "{} reads at most {longest} tokens on {}; context lowered from {was}",
                v.name,
                i.engine.label()
            ),
        }
    })
}

/// The licence ids of the catalog's families, sorted, each once (the best view's filter).
pub fn licenses() -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for l in catalog().families.iter().filter_map(|f| f.license.as_ref()) {
        let id = l.id.to_ascii_lowercase();
        if let Err(k) = v.binary_search(&id) {
            v.insert(k, id);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use fitcard_estimator::permalink::{decode, encode};

    #[test]
    fn opening_a_model_leaves_the_best_view_and_keeps_the_cards() {
        let mut i =
            decode("best=1&gpu=rtx-3090&cards=2&engine=vllm&ctx=4096&par=3&minctx=32768").inputs;
        assert!(i.best.on);
        let before = i.clone();
        let q = encode(&i);
        assert!(q.contains("best=1") && q.contains("minctx=32768"), "{q}");
        apply(
            &mut i,
            Edit::Open {
                model: "Qwen/Qwen3-8B".into(),
                quant: Some(Quant::BF16),
            },
        );
        assert!(!i.best.on);
        assert_eq!(i.model, "Qwen/Qwen3-8B");
        assert_eq!(i.quant, Quant::BF16);
        assert_eq!(
            (i.gpu.clone(), i.cards, i.engine, i.ctx, i.par),
            (before.gpu, 2, Engine::Vllm, 4096, 3)
        );
        let q = encode(&i);
        assert!(
            q.contains("model=Qwen/Qwen3-8B") && !q.contains("best=1"),
            "{q}"
        );
        // Not in the catalog: nothing changes.
        let was = i.clone();
        apply(
            &mut i,
            Edit::Open {
                model: "no/such".into(),
                quant: None,
            },
        );
        assert_eq!(i, was);
        // And back.
        apply(&mut i, Edit::ShowBest(true));
        assert!(encode(&i).contains("best=1"));
    }

    #[test]
    fn best_filters_round_trip_and_refuse_unknown_families() {
        let mut i = base();
        let fam = catalog().families[0].id.clone();
        apply(&mut i, Edit::BestFamily(Some(fam.clone())));
        apply(&mut i, Edit::BestLicense(Some("Apache-2.0".into())));
        apply(&mut i, Edit::MinCtx(Some(32768)));
        apply(&mut i, Edit::Reasoning(Some(false)));
        let d = decode(&encode(&i));
        assert!(d.notices.is_empty(), "{:?}", d.notices);
        assert_eq!(d.inputs.best, i.best);
        assert_eq!(i.best.license.as_deref(), Some("apache-2.0"));
        apply(&mut i, Edit::BestFamily(Some("no-such-family".into())));
        assert_eq!(i.best.family, None);
        apply(&mut i, Edit::MinCtx(Some(0)));
        assert_eq!(i.best.min_ctx, Some(limits::CTX.0));
        let l = licenses();
        assert!(!l.is_empty() && l.windows(2).all(|w| w[0] < w[1]));
    }

    fn base() -> Inputs {
        decode("").inputs
    }

    #[test]
    fn variant_and_format_orders_put_the_strongest_right() {
        for f in &catalog().families {
            let vs = variants(f);
            assert_eq!(vs.last().unwrap().capability_rank, 1, "{}", f.id);
            for v in vs {
                for e in Engine::ALL {
                    let fs = formats(v, e);
                    for w in fs.windows(2) {
                        assert!(w[0].id.precision_bits() <= w[1].id.precision_bits());
                    }
                    assert!(fs.iter().all(|x| x.container == e.container()));
                }
            }
        }
    }

    #[test]
    fn positions_round_trip_through_edits() {
        let mut i = base();
        let (f, _) = family_of(&i.model);
        for (pos, v) in variants(f).iter().enumerate() {
            apply(&mut i, Edit::Variant(pos));
            assert_eq!(i.model, v.id);
            assert_eq!(variant_pos(&i.model), pos);
            let fs = formats(v, i.engine);
            for (q, fm) in fs.iter().enumerate() {
                apply(&mut i, Edit::Quant(q));
                assert_eq!(i.quant, fm.id);
                assert_eq!(format_pos(v, i.engine, i.quant), q);
            }
        }
        // Out-of-range positions clamp to the strongest / most precise.
        apply(&mut i, Edit::Variant(99));
        assert_eq!(variant_pos(&i.model), variants(f).len() - 1);
    }

    #[test]
    fn family_change_keeps_every_setting_that_applies() {
        let cat = catalog();
        for f in &cat.families {
            let mut i = base();
            apply(&mut i, Edit::Ctx(4096));
            apply(&mut i, Edit::Par(3));
            apply(&mut i, Edit::Cards(2));
            apply(&mut i, Edit::Engine(Engine::Vllm));
            apply(&mut i, Edit::Util(0.8));
            let before = i.clone();
            let notes = apply(&mut i, Edit::Family(f.id.clone()));
            let (now, _) = family_of(&i.model);
            assert_eq!(now.id, f.id);
            // A family without safetensors files moves to an engine that loads its GGUFs,
            // and says so; every other setting stays.
            let vllm = f
                .variants
                .iter()
                .any(|v| !formats(v, Engine::Vllm).is_empty());
            let engine = if vllm {
                Engine::Vllm
            } else {
                assert!(notes.iter().any(|n| n.key == "engine"), "family {}", f.id);
                Engine::LlamaCpp
            };
            assert_eq!(
                (
                    i.ctx.min(4096),
                    i.par,
                    i.cards,
                    i.engine,
                    i.util,
                    &i.gpu,
                    i.kv
                ),
                (4096, 3, 2, engine, 0.8, &before.gpu, before.kv),
                "family {}",
                f.id
            );
            // The format is one the engine can load for the new model.
            let (_, v) = family_of(&i.model);
            assert!(formats(v, i.engine).iter().any(|x| x.id == i.quant));
        }
    }

    #[test]
    fn the_vision_projector_switch_applies_to_llama_cpp_repos_that_have_one() {
        // The default model (Gemma 3 12B, Q4_K_M GGUF on llama.cpp) has a projector.
        let mut i = base();
        assert!(has_projector(&i));
        let with = estimate(&i);
        assert!(with.mmproj_bytes.is_some());
        apply(&mut i, Edit::Mmproj(false));
        assert!(
            !i.mmproj && has_projector(&i),
            "the switch stays to turn it back on"
        );
        let without = estimate(&i);
        assert_eq!(without.mmproj_bytes, None);
        assert!(
            without.command.contains(" --no-mmproj"),
            "{}",
            without.command
        );
        assert!(fitcard_estimator::encode(&i).contains("mmproj=0"));
        assert!(without.total_device_bytes < with.total_device_bytes);
        apply(&mut i, Edit::Mmproj(true));
        assert!(!fitcard_estimator::encode(&i).contains("mmproj="));
        // Not on an engine that runs text only, nor on a model without a projector.
        apply(&mut i, Edit::Engine(Engine::Ollama));
        assert!(!has_projector(&i));
        let q = decode("model=Qwen/Qwen3-8B&quant=Q4_K_M").inputs;
        assert!(!has_projector(&q));
    }

    #[test]
    fn a_measured_global_layer_count_applies_and_is_carried_in_the_link() {
        let mut i = base();
        let before = estimate(&i).total_device_bytes;
        apply(&mut i, Edit::Gl(Some(12.0)));
        assert_eq!(i.gl, Some(12.0));
        assert!(fitcard_estimator::encode(&i).contains("gl=12"));
        assert!(
            estimate(&i).total_device_bytes > before,
            "12 global layers, not 8"
        );
        // More than the model's KV layers: refused by the permalink's own rule.
        let n = apply(&mut i, Edit::Gl(Some(1000.0)));
        assert!(n.iter().any(|n| n.key == "gl") && i.gl.is_none());
        apply(&mut i, Edit::Gl(Some(f64::NAN)));
        assert_eq!(i.gl, None);
        apply(&mut i, Edit::Gl(Some(12.0)));
        apply(&mut i, Edit::Gl(None));
        assert!(!fitcard_estimator::encode(&i).contains("gl="));
    }

    #[test]
    fn capability_reads_one_way() {
        // (rank, family size, words)
        let rows = [
            (1, 4, "most capable of 4"),
            (2, 4, "2nd most capable of 4"),
            (3, 4, "3rd most capable of 4"),
            (4, 4, "least capable of 4"),
            (1, 1, "the only size in its family"),
            (11, 20, "11th most capable of 20"),
            (21, 30, "21st most capable of 30"),
        ];
        for (r, n, want) in rows {
            assert_eq!(capability_words(r, n), want, "rank {r} of {n}");
        }
    }

    #[test]
    fn unknown_family_or_gpu_changes_nothing() {
        let mut i = base();
        let before = i.clone();
        assert!(apply(&mut i, Edit::Family("no-such".into())).is_empty());
        assert!(apply(&mut i, Edit::Gpu(Some("no-such".into()))).is_empty());
        assert_eq!(i, before);
    }

    #[test]
    fn custom_vram_starts_at_the_current_card_and_is_checked() {
        let mut i = base();
        let cap = fitcard_estimator::estimate::card_capacity(&i).gib();
        apply(&mut i, Edit::Gpu(None));
        match i.gpu {
            GpuChoice::VramGib(g) => assert!((g - cap).abs() <= 0.125),
            ref other => panic!("{other:?}"),
        }
        apply(&mut i, Edit::Vram(48.0));
        assert_eq!(i.gpu, GpuChoice::VramGib(48.0));
        let n = apply(&mut i, Edit::Vram(-1.0));
        assert_eq!(n[0].key, "vram");
        assert_eq!(i.gpu, GpuChoice::VramGib(48.0));
    }

    #[test]
    fn engine_change_moves_quant_and_kv_to_what_it_supports() {
        let mut i = base();
        apply(&mut i, Edit::Kv("q8_0".parse().unwrap()));
        apply(&mut i, Edit::Engine(Engine::Vllm));
        assert!(Engine::Vllm.kv_choices().contains(&i.kv));
        let (_, v) = family_of(&i.model);
        if !formats(v, Engine::Vllm).is_empty() {
            assert!(formats(v, Engine::Vllm).iter().any(|f| f.id == i.quant));
        }
    }

    #[test]
    fn candidate_applies_model_and_format() {
        let mut i = base();
        let c = fitcard_estimator::rank(&i);
        let last = c.last().expect("candidates");
        apply(
            &mut i,
            Edit::Candidate {
                model: last.model.clone(),
                quant: last.quant,
            },
        );
        assert_eq!(
            (i.model.as_str(), i.quant),
            (last.model.as_str(), last.quant)
        );
    }

    #[test]
    fn context_beyond_the_new_model_is_lowered_with_a_notice() {
        let cat = catalog();
        let (v, big) = cat
            .families
            .iter()
            .flat_map(|f| f.variants.iter())
            .map(|v| (v, v.arch.max_ctx))
            .min_by_key(|x| x.1)
            .map(|(v, m)| (v, m + 1))
            .expect("the catalog has variants");
        let mut i = base();
        i.ctx = big;
        let n = apply(
            &mut i,
            Edit::Candidate {
                model: v.id.clone(),
                quant: v.formats[0].id,
            },
        );
        assert_eq!(i.ctx, v.arch.longest_ctx(i.engine));
        assert!(n.iter().any(|n| n.key == "ctx"));
    }

    /// One context limit: a link at 131,072 tokens on Qwen3-8B (40,960 native, 131,072 with
    /// YaRN) keeps its context on llama.cpp, where the checks pass and the command enables
    /// YaRN, and is lowered to the native maximum on Ollama, which cannot switch YaRN on.
    #[test]
    fn a_yarn_context_is_kept_where_the_engine_can_run_it() {
        for (engine, want) in [(Engine::LlamaCpp, 131_072), (Engine::Ollama, 40_960)] {
            let mut i = base();
            i.engine = engine;
            i.ctx = 131_072;
            apply(
                &mut i,
                Edit::Candidate {
                    model: "Qwen/Qwen3-8B".into(),
                    quant: Quant::Q4KM,
                },
            );
            assert_eq!(i.ctx, want, "{engine}");
        }
    }

    #[test]
    fn train_edits_set_the_train_inputs() {
        let mut i = base();
        // (edit, check)
        apply(&mut i, Edit::Mode(Mode::Train));
        apply(&mut i, Edit::Method(Method::Lora));
        apply(&mut i, Edit::Bsz(8));
        apply(&mut i, Edit::Seq(4096));
        apply(&mut i, Edit::Rank(64));
        apply(&mut i, Edit::Optim(Optim::Sgd));
        apply(&mut i, Edit::Trainer(Trainer::Llamafactory));
        assert_eq!(i.train.trainer, Trainer::Llamafactory);
        assert!(fitcard_estimator::encode(&i).contains("trainer=llamafactory"));
        apply(&mut i, Edit::Gc(GradCkpt::None));
        let t = &i.train;
        assert_eq!(i.mode, Mode::Train);
        assert_eq!(
            (t.method, t.bsz, t.seq, t.rank),
            (Method::Lora, 8, 4096, 64)
        );
        assert_eq!((t.optim, t.gc), (Optim::Sgd, GradCkpt::None));
        // Out-of-range values clamp to the permalink's limits.
        apply(&mut i, Edit::Bsz(0));
        assert_eq!(i.train.bsz, limits::BSZ.0);
    }

    #[test]
    fn target_modules_toggle_but_one_always_stays() {
        let mut i = base();
        for &m in &TargetModule::ALL[1..] {
            assert!(apply(&mut i, Edit::Target(m, false)).is_empty());
        }
        assert_eq!(i.train.targets.to_string(), "q");
        let n = apply(&mut i, Edit::Target(TargetModule::Q, false));
        assert_eq!(n[0].key, "targets");
        assert_eq!(i.train.targets.to_string(), "q");
        apply(&mut i, Edit::Target(TargetModule::Down, true));
        assert_eq!(i.train.targets.to_string(), "q,down");
    }

    #[test]
    fn the_gpu_pool_editor_materialises_then_edits_the_list() {
        let mut i = base();
        apply(&mut i, Edit::Cards(2));
        let cap = pool_gib(&i)[0];
        assert_eq!(pool_gib(&i), vec![cap, cap], "cards × the chosen card");
        assert!(i.train.free.is_empty());
        apply(&mut i, Edit::Free(1, 10.5));
        assert_eq!(i.train.free, vec![cap, 10.5]);
        apply(&mut i, Edit::AddGpu);
        assert_eq!(i.train.free, vec![cap, 10.5, 10.5]);
        i.train.pick = vec![2];
        apply(&mut i, Edit::RemoveGpu(0));
        assert_eq!(i.train.free, vec![10.5, 10.5]);
        assert!(
            i.train.pick.is_empty(),
            "positions changed: back to automatic"
        );
        assert_eq!(apply(&mut i, Edit::Free(0, -3.0))[0].key, "free");
        apply(&mut i, Edit::RemoveGpu(0));
        apply(&mut i, Edit::RemoveGpu(0));
        assert_eq!(i.train.free, vec![10.5], "one GPU always stays");
        apply(&mut i, Edit::ResetGpus);
        assert!(i.train.free.is_empty());
        assert_eq!(pool_gib(&i), vec![cap, cap]);
    }

    #[test]
    fn train_candidate_sets_model_and_method() {
        let mut i = base();
        apply(&mut i, Edit::Mode(Mode::Train));
        let c = training::rank(&i);
        let last = c.last().expect("candidates");
        let m = last.method;
        apply(
            &mut i,
            Edit::TrainCandidate {
                model: last.model.clone(),
                method: m,
            },
        );
        assert_eq!(i.model, last.model);
        assert_eq!(i.train.method, m);
    }
}
