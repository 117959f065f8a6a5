//! What the controls offer for the current inputs: the variants and formats of a model and
//! their slider positions, the train-mode choices and stops, the GPU pool as the editor shows
//! it, and the licences of the catalog. Pure functions over the catalog, tested on the host.

use fitcard_estimator::catalog::{catalog, Family, Format, Variant};
use fitcard_estimator::inputs::{GradCkpt, Method, Optim, Trainer};
use fitcard_estimator::{train, Engine, Inputs, Quant};

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
        train::free_per_gpu(i)
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

/// Does `engine` load any file of `v` (a format in its container)?
pub fn loads(v: &Variant, engine: Engine) -> bool {
    v.formats.iter().any(|f| f.container == engine.container())
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
        && family_of(&i.model).1.formats.iter().any(|f| {
            f.id == i.quant && fitcard_estimator::catalog::mmproj::for_repo(&f.repo).is_some()
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
