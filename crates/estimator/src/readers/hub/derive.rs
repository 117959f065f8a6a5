//! A repo derived from a catalog model, named by it: a quantized copy or a fine-tune of the
//! base its model card names (`cardData.base_model`), the relation said or read from the names.

use crate::catalog::quant::Quant;
use crate::catalog::Family;

/// How a repo's model card says it derives from its base (`cardData.base_model_relation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// The base's weights, quantized (`quantized`; or unsaid, and the repo's name holds the
    /// base's).
    Quantized,
    /// Trained further (`finetune`, `adapter`, `merge`; or unsaid and the names differ).
    FineTune,
}

impl Relation {
    /// The relation a model card spells, `None` for one it does not (then the names decide).
    pub fn read(s: &str) -> Option<Relation> {
        match s {
            "quantized" => Some(Relation::Quantized),
            "finetune" | "adapter" | "merge" => Some(Relation::FineTune),
            _ => None,
        }
    }
}

/// The repo's name folded for comparison: lower case, `_` and `.` as `-`.
fn folded(s: &str) -> String {
    s.rsplit('/')
        .next()
        .unwrap_or(s)
        .to_ascii_lowercase()
        .replace(['_', '.'], "-")
}

/// Does the name of `repo` say "`base`, quantized": the base's name, before it nothing or an
/// organisation prefix ending in `_` (bartowski's `Qwen_Qwen3-8B`), after it only format words
/// (`GGUF`, `AWQ`, `FP8`, `Q4_K_M`, `4bit`, …)? (`…-abliterated-GGUF` is a fine-tune.)
fn is_quantized_name(repo: &str, base: &str) -> bool {
    let (name, base) = (folded(repo), folded(base));
    let Some(at) = name.find(&base) else {
        return false;
    };
    // `folded` replaces one character by one: the raw name has the same positions.
    let raw = repo.rsplit('/').next().unwrap_or(repo);
    let prefix_ok = at == 0 || raw.as_bytes().get(at - 1) == Some(&b'_');
    let words = [
        "gguf",
        "awq",
        "gptq",
        "fp8",
        "fp4",
        "nvfp4",
        "mxfp4",
        "mlx",
        "bnb",
        "int4",
        "int8",
        "w4a16",
        "w8a8",
        "w8a16",
        "4bit",
        "8bit",
        "3bit",
        "6bit",
        "imatrix",
        "quantized",
        "dynamic",
        "ud",
    ];
    let format_word = |w: &str| {
        words.contains(&w)
            || Quant::ALL
                .iter()
                .any(|q| folded(q.id()).split('-').any(|p| p == w))
    };
    prefix_ok
        && name[at + base.len()..]
            .split('-')
            .filter(|w| !w.is_empty())
            .all(format_word)
}

/// A repo whose model card names a catalog variant as its base (`cardData.base_model`, the
/// first of `bases` the catalog has): a quantized copy (bartowski's, unsloth's `…-GGUF`, a
/// `…-AWQ`) is that variant's model, named as it is and scored by its published capability; a
/// fine-tune is named "fine-tune of …" and borrows the base's capability, marked ≈ (its own
/// is unmeasured). The base's id, or `None` when no base is in the catalog.
pub fn follow_base(
    family: &mut Family,
    bases: &[String],
    relation: Option<Relation>,
) -> Option<String> {
    let cat = crate::catalog::catalog();
    let (base_family, base) = bases.iter().find_map(|b| {
        cat.variant(b)
            .filter(|(f, _)| !f.id.starts_with(crate::catalog::IMPORTED_PREFIX))
    })?;
    let v = family.variants.first_mut()?;
    let relation = relation.unwrap_or_else(|| {
        if is_quantized_name(&v.id, &base.id) {
            Relation::Quantized
        } else {
            Relation::FineTune
        }
    });
    let repo = v.name.clone();
    match relation {
        Relation::Quantized => {
            family.name = format!("{repo} (quantized {})", base.name);
            family.capability_basis = format!(
                "quantized from {} (its model card's base_model): {}",
                base.id, base_family.capability_basis
            );
            v.capability = base.capability.clone();
        }
        Relation::FineTune => {
            family.name = format!("{repo} (fine-tune of {})", base.name);
            family.capability_basis = format!(
                "fine-tune of {} (its model card's base_model): capability ≈ the base's, unmeasured",
                base.id
            );
            v.capability = base.capability.clone().map(|mut c| {
                c.benchmark = format!("≈ {} of its base {}", c.benchmark, base.id);
                c
            });
        }
    }
    Some(base.id.clone())
}
