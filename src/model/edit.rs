//! The edit reducer: one user action ([`Edit`]) applied to the [`Inputs`] ([`apply`]).
//!
//! Pure functions over the catalog and one `Inputs` value, so the page's behaviour is tested on
//! the host: the components only turn DOM events into an [`Edit`] and call [`apply`]. Nothing
//! here computes a memory number; choosing a variant on a family change asks the estimator.
//! Every bound comes from [`limits`], the permalink's own.

use super::choices::{family_of, formats, loads, pool_gib, variants};
use fitcard_estimator::catalog::{catalog, Family, Variant};
use fitcard_estimator::inputs::permalink::normalize;
use fitcard_estimator::inputs::{limits, GradCkpt, Key, Method, Optim, TargetModule, Trainer};
use fitcard_estimator::units::Shortest;
use fitcard_estimator::{estimate, Engine, GpuChoice, Inputs, KvDtype, Mode, Notice, Quant};
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
    /// Layers whose routed experts stay in system RAM (`ncmoe=`; 0: none).
    CpuMoe(u32),
    SwaFull(bool),
    Util(f64),
    /// GiB kept free on each card (`reserve=`; 0: none).
    Reserve(f64),
    /// Other models on the cards, as `with=` spells them (the whole calculator only).
    #[cfg(feature = "extras")]
    With(String),
    /// Images per request (`images=`; the whole calculator only).
    #[cfg(feature = "extras")]
    Images(u32),
    /// How the next tokens are drafted (`spec=`; `None`: off; the whole calculator only).
    #[cfg(feature = "spec")]
    Spec(Option<fitcard_estimator::inputs::Spec>),
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

/// The other models on the cards as the link spells them; what was left out is said.
#[cfg(feature = "extras")]
fn set_with(i: &mut Inputs, text: &str, notes: &mut Vec<Notice>) {
    let (with, why) = fitcard_estimator::inputs::permalink::co_models_from(text);
    i.with = with;
    notes.extend(why.map(|message| Notice {
        key: Key::With.into(),
        message,
    }));
}

/// Apply `e` to `i`, then make the result consistent. Returns what had to be adjusted.
pub fn apply(i: &mut Inputs, e: Edit) -> Vec<Notice> {
    let mut notes = Vec::new();
    match e {
        Edit::Family(id) => switch_family(i, &id, &mut notes),
        Edit::Variant(pos) => set_variant(i, pos, &mut notes),
        Edit::Quant(pos) => set_format(i, pos),
        Edit::Ctx(c) => i.ctx = c.clamp(limits::CTX.0, limits::CTX.1),
        Edit::Par(p) => i.par = p.clamp(limits::PAR.0, limits::PAR.1),
        Edit::Cards(c) => i.cards = c.clamp(limits::CARDS.0, limits::CARDS.1),
        Edit::Gpu(id) => set_gpu(i, id),
        Edit::Vram(g) if in_bounds(g, limits::VRAM_GIB) => i.gpu = GpuChoice::VramGib(g),
        Edit::Vram(g) => notes.push(outside(Key::Vram, g, limits::VRAM_GIB, "size")),
        Edit::Engine(en) => i.engine = en,
        Edit::Kv(k) => {
            i.kv = k;
            i.kv_v = None;
        }
        Edit::Kvu(b) => i.kvu = b,
        Edit::Ubatch(u) => i.ubatch = u.clamp(limits::UBATCH.0, limits::UBATCH.1),
        // More layers than the model has are all of them (`CpuMoe::layers`).
        Edit::CpuMoe(n) => {
            i.ncmoe = (n > 0).then_some(fitcard_estimator::inputs::CpuMoe::Layers(n))
        }
        Edit::SwaFull(b) => i.swa_full = b,
        Edit::Mmproj(b) => i.mmproj = b,
        Edit::Gl(g) => i.gl = g.filter(|g| g.is_finite()).map(|g| g.clamp(0.0, 4096.0)),
        Edit::Util(u) => i.util = u.clamp(limits::UTIL.0, limits::UTIL.1),
        Edit::Reserve(r) => i.reserve = r.clamp(limits::RESERVE_GIB.0, limits::RESERVE_GIB.1),
        #[cfg(feature = "extras")]
        Edit::With(text) => set_with(i, &text, &mut notes),
        #[cfg(feature = "extras")]
        Edit::Images(n) => i.images = n.clamp(limits::IMAGES.0, limits::IMAGES.1),
        #[cfg(feature = "spec")]
        Edit::Spec(m) => set_spec(i, m),
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
        Edit::Target(m, on) => set_target(i, m, on, &mut notes),
        Edit::Free(k, g) => set_free(i, k, g, &mut notes),
        Edit::AddGpu => add_gpu(i),
        Edit::RemoveGpu(k) => remove_gpu(i, k),
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
        Edit::Open { model, quant } => open(i, model, quant, &mut notes),
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

/// `spec=` from the engine settings: another method drafts its own way, so its draft tokens
/// and rollback states are set anew (the inputs' rules fill them in), and a draft model goes
/// unless the method is the draft model's.
#[cfg(feature = "spec")]
fn set_spec(i: &mut Inputs, m: Option<fitcard_estimator::inputs::Spec>) {
    if m != Some(fitcard_estimator::inputs::Spec::Draft) {
        i.draft = None;
    }
    i.spec = m;
    i.ndraft = None;
    i.rsseq = 0;
}

/// Another family (catalog id): its most capable variant that fits ([`pick_variant`]), on an
/// engine that loads its files.
fn switch_family(i: &mut Inputs, id: &str, notes: &mut Vec<Notice>) {
    let Some(f) = catalog().family(id) else {
        return;
    };
    let (cur, _) = family_of(&i.model);
    if cur.id == f.id {
        return;
    }
    // An engine that cannot load any file of the new family gives way to one that can (a
    // family published as GGUF only runs on llama.cpp).
    let any_loads = |e: Engine| f.variants.iter().any(|v| loads(v, e));
    if !any_loads(i.engine) {
        if let Some(e) = [Engine::LlamaCpp, Engine::Vllm]
            .into_iter()
            .find(|&e| any_loads(e))
        {
            notes.push(Notice {
                key: Key::Engine.into(),
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

/// The variant at slider position `pos` of the model's family (the last one beyond it).
fn set_variant(i: &mut Inputs, pos: usize, notes: &mut Vec<Notice>) {
    let (f, _) = family_of(&i.model);
    let vs = variants(f);
    if let Some(v) = vs.get(pos.min(vs.len().saturating_sub(1))) {
        i.model.clone_from(&v.id);
        notes.extend(clamp_ctx(i));
    }
}

/// The format at slider position `pos` among those the engine loads (the last one beyond it).
fn set_format(i: &mut Inputs, pos: usize) {
    let (_, v) = family_of(&i.model);
    let fs = formats(v, i.engine);
    if let Some(f) = fs.get(pos.min(fs.len().saturating_sub(1))) {
        i.quant = f.id;
    }
}

/// A catalog GPU by id, or a free VRAM size that starts at the current card's capacity.
fn set_gpu(i: &mut Inputs, id: Option<String>) {
    match id {
        Some(id) => {
            if let Some(g) = catalog().gpu(&id) {
                i.gpu = GpuChoice::Catalog(g.id.clone());
            }
        }
        None => {
            if let GpuChoice::Catalog(_) = i.gpu {
                let cap = fitcard_estimator::serve::card_capacity(i).gib();
                i.gpu = GpuChoice::VramGib((cap * 4.0).round() / 4.0);
            }
        }
    }
}

/// Is `g` GiB a finite size within `(lo, hi)`?
fn in_bounds(g: f64, (lo, hi): (f64, f64)) -> bool {
    g.is_finite() && (lo..=hi).contains(&g)
}

/// The notice of a GiB figure outside its bounds, which kept the previous `what`.
fn outside(key: Key, g: f64, (lo, hi): (f64, f64), what: &str) -> Notice {
    Notice {
        key: key.into(),
        message: format!(
            "{} GiB is outside {}…{}; kept the previous {what}",
            Shortest(g),
            Shortest(lo),
            Shortest(hi)
        ),
    }
}

/// Adapt a target module or not; the last one selected stays.
fn set_target(i: &mut Inputs, m: TargetModule, on: bool, notes: &mut Vec<Notice>) {
    let set = i.train.targets.with(m, on);
    if set.is_empty() {
        notes.push(Notice {
            key: Key::Targets.into(),
            message: "at least one target module stays selected".into(),
        });
    } else {
        i.train.targets = set;
    }
}

/// Free GiB of GPU `k` in the training pool (the pool becomes an explicit list).
fn set_free(i: &mut Inputs, k: usize, g: f64, notes: &mut Vec<Notice>) {
    let mut pool = pool_gib(i);
    if k < pool.len() && in_bounds(g, limits::FREE_GIB) {
        pool[k] = g;
        i.train.free = pool;
    } else {
        notes.push(outside(Key::Free, g, limits::FREE_GIB, "value"));
    }
}

/// Add a GPU to the training pool (a copy of the last one), up to the most the link holds.
fn add_gpu(i: &mut Inputs) {
    let mut pool = pool_gib(i);
    if pool.len() < limits::GPUS {
        let last = pool.last().copied().unwrap_or(24.0);
        pool.push(last);
        i.train.free = pool;
    }
}

/// Remove GPU `k` from the training pool (one always stays).
fn remove_gpu(i: &mut Inputs, k: usize) {
    let mut pool = pool_gib(i);
    if pool.len() > 1 && k < pool.len() {
        pool.remove(k);
        i.train.free = pool;
        // An explicit selection named positions in the old list.
        i.train.pick.clear();
    }
}

/// Open a variant in the calculator (serve mode, out of the best-model view), in `quant` when
/// given.
fn open(i: &mut Inputs, model: String, quant: Option<Quant>, notes: &mut Vec<Notice>) {
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

/// On a family change: the most capable variant the engine loads that fits with every other
/// setting kept, or the weakest it loads when none does (the estimator of the current mode
/// decides what fits).
fn pick_variant(i: &Inputs, f: &'static Family) -> &'static Variant {
    // Only the variants with a file the engine loads (a family can mix GGUF-only variants
    // with ones the vendor ships as safetensors).
    let loadable = |v: &&'static Variant| loads(v, i.engine);
    f.variants
        .iter()
        .filter(loadable)
        .find(|v| {
            let mut t = i.clone();
            t.model.clone_from(&v.id);
            let _ = clamp_ctx(&mut t);
            let _ = normalize(&mut t);
            match t.mode {
                Mode::Serve => estimate(&t).fits,
                #[cfg(feature = "train")]
                Mode::Train => fitcard_estimator::train::estimate(&t).estimate.fits,
                // The page without train mode never edits in it (it hands over first).
                #[cfg(not(feature = "train"))]
                Mode::Train => false,
            }
        })
        .or_else(|| f.variants.iter().rfind(loadable))
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
            key: Key::Ctx.into(),
            message: format!(
                "{} reads at most {longest} tokens on {}; context lowered from {was}",
                v.name,
                i.engine.label()
            ),
        }
    })
}

#[cfg(test)]
mod tests;
