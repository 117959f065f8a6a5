//! The embedded catalog: model families → variants (ranked by capability) → formats (with real
//! file sizes), plus GPUs. Compiled in from `data/families/*.json` and `data/gpus.json`; every entry carries its source.
//! `data/SOURCES.md` explains how it was assembled and which sizes are computed.

use crate::catalog::quant::{Container, GgmlType, Quant};
use crate::units::{Bytes, Tokens};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// The id prefix of a family imported from the Hub (`hub:org/name`), beside the built-in ones.
pub const IMPORTED_PREFIX: &str = "hub:";

mod arch;
mod blocks;
mod closest;
mod encoder;
pub mod engine;
pub mod images;
pub mod mmproj;
pub mod parts;
pub mod quant;
mod schema;
pub mod size_rule;
pub mod tensors;
pub use arch::*;
pub use blocks::*;
pub use closest::*;
pub use encoder::*;
pub use schema::*;

static CATALOG: OnceLock<Catalog> = OnceLock::new();

/// The catalog as compiled in for the CLI and the tests: one minified JSON document assembled
/// by `build.rs` from `data/families/*.json`, `data/gpus.json` and `data/common_eval.json`.
#[cfg(not(target_arch = "wasm32"))]
pub const EMBEDDED_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/catalog.json"));

/// The page's catalog as JSON (no source texts; only the evaluation rows of catalog variants):
/// what [`PAGE_POSTCARD`] must encode.
#[cfg(not(target_arch = "wasm32"))]
pub const PAGE_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/catalog-page.json"));

/// The page's catalog, postcard-encoded (`data/catalog.postcard`, kept equal to [`PAGE_JSON`] by
/// `tests/page_catalog.rs`). The page does not compile it in: it fetches the file as a separate,
/// cached asset and hands it to [`install`] before it mounts (the wasm carries neither the data
/// nor a JSON parser).
#[cfg(not(target_arch = "wasm32"))]
pub const PAGE_POSTCARD: &[u8] = include_bytes!("../../data/catalog.postcard");

/// The catalog: the built-in one, or the one with an imported family ([`import`],
/// [`replace`]).
pub fn catalog() -> &'static Catalog {
    catalog_data()
}

/// What a catalog model is served for when it is not chat (its family's [`Task`]; an encoder's
/// is embedding, [`is_encoder`], however it was read); `None` for a chat model or a model the
/// catalog lacks, and in a build without the `extras` feature (the page's first load, which hands
/// embedding and reranking models over to the whole calculator: it reads the family's `task`
/// itself).
pub fn task_of(model: &str) -> Option<Task> {
    if !cfg!(feature = "extras") {
        return None;
    }
    let (f, v) = catalog().variant(model)?;
    family_task(f, v)
}

/// What variant `v` of family `f` is served for, in every build: the family's [`Task`], else
/// what the variant's files say ([`read_task`]: an import has no family task). [`task_of`]
/// answers it by model id where the build estimates task models; the page's first load asks it
/// to hand them over.
pub fn family_task(f: &Family, v: &Variant) -> Option<Task> {
    f.task.or_else(|| read_task(&v.arch))
}

/// What a model read from its files is served for: a reranker where it carries a classifier
/// ([`Arch::rank_labels`]), else embedding for an encoder, else chat (`None`). In every build:
/// the page's first load hands the first two over to the whole calculator.
pub fn read_task(a: &Arch) -> Option<Task> {
    if a.rank_labels.is_some() {
        Some(Task::Rerank)
    } else {
        is_encoder_type(&a.model_type).then_some(Task::Embed)
    }
}

fn catalog_data() -> &'static Catalog {
    let imported = *IMPORTED
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    imported.unwrap_or_else(base)
}

/// `base` with `family` (a Hub repo read by the page) added last. Refused (Err names why) when
/// the family is empty or its id or one of its variant ids is already taken.
pub fn with_import(mut base: Catalog, family: Family) -> Result<Catalog, String> {
    let taken = |id: &str| base.variant(id).is_some() || base.family(id).is_some();
    if family.variants.is_empty() || family.variants.iter().any(|v| v.formats.is_empty()) {
        return Err("nothing to estimate: no variant with a format".into());
    }
    if let Some(v) = family.variants.iter().find(|v| taken(&v.id)) {
        return Err(format!("{} is already in the catalog", v.id));
    }
    if taken(&family.id) {
        return Err(format!("family {} is already in the catalog", family.id));
    }
    base.families.push(family);
    Ok(base)
}

/// The built-in catalog plus `family` becomes the catalog, replacing any earlier import: from
/// then on [`catalog()`] returns it, so the estimate, the ranking and the permalink treat the
/// import as a catalog family. Refused as [`with_import`] refuses.
#[cfg(not(target_arch = "wasm32"))]
pub fn import(family: Family) -> Result<(), String> {
    let fresh: Catalog =
        serde_json::from_str(EMBEDDED_JSON).expect("embedded catalog is valid (checked by tests)");
    set_imported(with_import(fresh, family)?);
    Ok(())
}

/// Make the postcard-encoded `bytes` (a catalog with an imported family, as the page's importer
/// sends it) the catalog, replacing any earlier import. Err says why not in one line.
pub fn replace(bytes: &[u8]) -> Result<(), String> {
    set_imported(from_postcard(bytes)?);
    Ok(())
}

fn set_imported(c: Catalog) {
    // Each import keeps its catalog for the life of the process (a page imports a handful):
    // references handed out before stay valid.
    let c: &'static Catalog = Box::leak(Box::new(c));
    *IMPORTED
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(c);
}

/// The catalog with an imported family, when one was imported.
static IMPORTED: std::sync::RwLock<Option<&'static Catalog>> = std::sync::RwLock::new(None);

/// The built-in catalog, without imports: natively the embedded JSON (parsed once); on the web
/// page the one [`install`] received.
#[cfg(not(target_arch = "wasm32"))]
pub fn base() -> &'static Catalog {
    CATALOG.get_or_init(|| {
        // The JSON is compiled in and validated by tests; a parse failure is a build defect.
        serde_json::from_str(EMBEDDED_JSON).expect("embedded catalog is valid (checked by tests)")
    })
}

/// The built-in catalog, without imports: natively the embedded JSON (parsed once); on the web
/// page the one [`install`] received, or until then the one family [`install_first`] received.
#[cfg(target_arch = "wasm32")]
pub fn base() -> &'static Catalog {
    CATALOG.get().unwrap_or_else(|| {
        FIRST
            .get()
            .expect("the page installs its catalog before it mounts")
    })
}

/// The catalog of the page's first estimate (one family: [`parts::Index::with_part`]), until
/// the whole one is installed.
static FIRST: OnceLock<Catalog> = OnceLock::new();

/// Make `c` (one family of the catalog and its cards, read from [`parts`]) the catalog until
/// [`install`] gives the whole one: the page estimates its link's model with it before the rest
/// of the catalog has arrived.
pub fn install_first(c: Catalog) {
    let _ = FIRST.set(c);
}

/// Is the whole built-in catalog installed (not only [`install_first`]'s family)? Natively
/// always.
pub fn is_whole() -> bool {
    cfg!(not(target_arch = "wasm32")) || CATALOG.get().is_some()
}

/// The bytes of each of `a`'s layers' routed experts (0 on a layer without them) in `model`'s
/// GGUF file in mix `q`, and whether exact ([`size_rule::experts_by_layer`]): what llama.cpp's
/// `--n-cpu-moe` moves to system RAM; for a format only a safetensors checkpoint has, its
/// layout's bytes ([`size_rule::checkpoint_experts_by_layer`]: what vLLM offloads). What [`install_layer_experts`] gave for `model` and `q`
/// (one per layer) comes first: a build without the `cpu-moe` feature (the page's first load)
/// has no rule and answers only that (the page's importer computes them), None until then.
pub fn layer_experts(model: &str, a: &Arch, q: Quant) -> Option<(Vec<u64>, bool)> {
    let given = LAYER_EXPERTS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .find(|e| e.0.eq_ignore_ascii_case(model) && e.1 == q && e.2.len() == a.layers as usize)
        .map(|e| (e.2.clone(), e.3));
    if given.is_some() || cfg!(not(feature = "cpu-moe")) {
        return given;
    }
    // A safetensors-only format (FP8, NVFP4, AWQ, GPTQ …) has no GGUF mix: its checkpoint's
    // layout gives the bytes (what vLLM offloads).
    size_rule::experts_by_layer(a, q)
        .or_else(|| size_rule::checkpoint_experts_by_layer(a, q).map(|l| (l, true)))
}

/// Per-layer routed-expert bytes given to a build without the rule: (model, mix, bytes by
/// layer, exact).
type GivenExperts = Vec<(String, Quant, Vec<u64>, bool)>;
static LAYER_EXPERTS: std::sync::RwLock<GivenExperts> = std::sync::RwLock::new(Vec::new());

/// Give [`layer_experts`] the per-layer bytes of `model` in `q` (computed elsewhere by
/// [`size_rule::experts_by_layer`]); a later answer for the same pair replaces the earlier.
pub fn install_layer_experts(model: &str, q: Quant, layers: Vec<u64>, exact: bool) {
    let mut given = LAYER_EXPERTS
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    given.retain(|e| !(e.0.eq_ignore_ascii_case(model) && e.1 == q));
    given.push((model.to_string(), q, layers, exact));
}

/// [`layer_experts`]'s answer as one line of text (`exact` or `approx`, then each layer's bytes),
/// the form in which the page's importer sends it to the page; [`layer_experts_from_text`]
/// reads it back.
pub fn layer_experts_text(layers: &[u64], exact: bool) -> String {
    let mut s = String::from(if exact { "exact" } else { "approx" });
    for b in layers {
        s.push(' ');
        s.push_str(&b.to_string());
    }
    s
}

/// The most layers [`layer_experts_from_text`] reads (a model has a few hundred at most).
const MOST_LAYERS: usize = 4096;

/// Read [`layer_experts_text`]'s line back; None when it is not one (bounded: at most
/// 4,096 numbers, each a u64).
pub fn layer_experts_from_text(s: &str) -> Option<(Vec<u64>, bool)> {
    let mut words = s.split(' ');
    let exact = match words.next()? {
        "exact" => true,
        "approx" => false,
        _ => return None,
    };
    let mut layers = Vec::new();
    for w in words {
        if layers.len() == MOST_LAYERS {
            return None;
        }
        layers.push(w.parse().ok()?);
    }
    Some((layers, exact))
}

/// Decode a postcard-encoded catalog (the page's `catalog.postcard`, or one with an import). Err
/// says why not in one line; a catalog without families or GPUs is refused.
pub fn from_postcard(bytes: &[u8]) -> Result<Catalog, String> {
    let mut c: Catalog = postcard::from_bytes(bytes).map_err(|_| {
        "the catalog file cannot be read (damaged, or from another version)".to_string()
    })?;
    if c.families.is_empty() || c.gpus.is_empty() {
        return Err("the catalog file holds no models or no GPUs".into());
    }
    c.expand_files();
    Ok(c)
}

/// `c` postcard-encoded as the page's catalog files hold it (repos and file names in their
/// compact form, [`Catalog::compact_files`]); [`from_postcard`] reads it back.
pub fn to_postcard(c: &Catalog) -> Vec<u8> {
    let mut c = c.clone();
    c.compact_files();
    postcard::to_allocvec(&c).expect("a catalog encodes")
}

/// Make the postcard-encoded `bytes` (the page's `catalog.postcard`) the catalog. Ok when it
/// reads as a catalog with families and GPUs (or one is already in place); Err says why not in
/// one line.
pub fn install(bytes: &[u8]) -> Result<(), String> {
    if CATALOG.get().is_none() {
        let _ = CATALOG.set(from_postcard(bytes)?);
    }
    Ok(())
}

/// The [`Format`] the size rule computes for `v` in `quant` and `container` (`size: computed`,
/// no repo or file: none in the catalog publishes it). The file stores an output matrix when the
/// model is untied or when the variant's other files in that container do although the config
/// ties it ([`Format::duplicate_output`]). Err says why the rule has none.
pub fn computed_format(v: &Variant, quant: Quant, container: Container) -> Result<Format, String> {
    let duplicate = v.arch.tied_embeddings
        && v.formats
            .iter()
            .any(|f| f.container == container && f.duplicate_output);
    let output = !v.arch.tied_embeddings || duplicate;
    let c = size_rule::computed(&v.arch, quant, container, output)?;
    let from = if v.arch.source.is_empty() {
        "the model's config".to_string()
    } else {
        v.arch.source.clone()
    };
    Ok(Format {
        id: quant,
        container,
        bytes: Bytes(c.bytes),
        size: SizeKind::Computed,
        repo: String::new(),
        file: String::new(),
        source: format!("computed by fitcard's size rule ({}) from {from}", c.rule),
        embd_type: c.embd_type,
        duplicate_output: duplicate,
        unquantized: c.unquantized,
        note: Some(
            "no repo in fitcard's catalog publishes this format: its size is computed by the size rule, not read from a file"
                .into(),
        ),
        holds: None,
    })
}

/// `base` with `quant` in `container` computed ([`computed_format`]) for `model` and for every
/// other variant of its family that lacks it and that the rule covers, each inserted where its
/// precision puts it. `Ok(None)` when `model` already has the format; Err when `model` is not
/// in `base` or the rule has none for it.
pub fn with_computed(
    base: &Catalog,
    model: &str,
    quant: Quant,
    container: Container,
) -> Result<Option<Catalog>, String> {
    let has = |v: &Variant| {
        v.formats
            .iter()
            .any(|f| f.id == quant && f.container == container)
    };
    let Some((family, v)) = base.variant(model) else {
        return Err(format!("{model} is not in the catalog"));
    };
    if has(v) {
        return Ok(None);
    }
    if let Err(why) = computed_format(v, quant, container) {
        return Err(format!("{why}; {}", closest_formats(v, quant, container)));
    }
    let family = family.id.clone();
    let mut out = base.clone();
    for v in out
        .families
        .iter_mut()
        .filter(|f| f.id == family)
        .flat_map(|f| f.variants.iter_mut())
        .filter(|v| !has(v))
    {
        if let Ok(f) = computed_format(v, quant, container) {
            let at = v
                .formats
                .iter()
                .position(|g| g.id.precision_bits() < quant.precision_bits())
                .unwrap_or(v.formats.len());
            v.formats.insert(at, f);
        }
    }
    Ok(Some(out))
}

/// The formats of `v` in `container` closest in precision to `quant`, in words (for a refusal).
fn closest_formats(v: &Variant, quant: Quant, container: Container) -> String {
    let mut near: Vec<&Format> = v
        .formats
        .iter()
        .filter(|f| f.container == container)
        .collect();
    crate::order::sort_by(&mut near, |a, b| {
        let d = |f: &Format| (f.id.precision_bits() - quant.precision_bits()).abs();
        d(a).total_cmp(&d(b))
    });
    let ids: Vec<&str> = near.iter().take(3).map(|f| f.id.id()).collect();
    if ids.is_empty() {
        format!("the catalog has no {} files of {}", container.label(), v.id)
    } else {
        format!(
            "the closest {} formats of {} with a size: {}",
            container.label(),
            v.id,
            ids.join(", ")
        )
    }
}

/// Make the catalog [`with_computed`] `quant` in `container` for `model`'s family (keeping any
/// imported family): from then on the estimate, the ranking and the solver find the computed
/// format as a catalog one. `Ok(true)` when it was added, `Ok(false)` when `model` already had
/// it; Err says why the rule has none. The native front end calls it before estimating; the page
/// does not (its estimate never runs the rule).
pub fn install_computed(model: &str, quant: Quant, container: Container) -> Result<bool, String> {
    match with_computed(catalog(), model, quant, container)? {
        Some(c) => {
            set_imported(c);
            Ok(true)
        }
        None => Ok(false),
    }
}

/// FNV-1a (64-bit) of `bytes`: the page compares the catalog file it fetched with the one it
/// was built with (`tag(include_bytes!(…))` is evaluated at compile time).
pub const fn tag(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut k = 0;
    while k < bytes.len() {
        h ^= bytes[k] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        k += 1;
    }
    h
}

impl Catalog {
    /// The variant with repo id `id` (case-insensitive) and its family.
    pub fn variant(&self, id: &str) -> Option<(&Family, &Variant)> {
        self.families.iter().find_map(|f| {
            f.variants
                .iter()
                .find(|v| v.id.eq_ignore_ascii_case(id))
                .map(|v| (f, v))
        })
    }

    /// The family with id `id`.
    pub fn family(&self, id: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.id == id)
    }

    /// The GPU with id `id`.
    pub fn gpu(&self, id: &str) -> Option<&Gpu> {
        self.gpus.iter().find(|g| g.id.eq_ignore_ascii_case(id))
    }

    /// Problems in the data (empty when consistent). Checked by a test, shown nowhere else.
    pub fn validate(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for f in &self.families {
            for (i, v) in f.variants.iter().enumerate() {
                if !seen.insert(v.id.to_ascii_lowercase()) {
                    errs.push(format!("duplicate variant {}", v.id));
                }
                if v.capability_rank != i as u32 + 1 {
                    errs.push(format!(
                        "{}: capability_rank {} at position {}",
                        v.id,
                        v.capability_rank,
                        i + 1
                    ));
                }
                let a = &v.arch;
                if a.layers == 0
                    || a.kv_heads == 0
                    || a.heads == 0
                    || a.head_dim == 0
                    || a.hidden == 0
                {
                    errs.push(format!("{}: zero dimension", v.id));
                }
                if a.kv_heads == 0 || !a.heads.is_multiple_of(a.kv_heads) {
                    errs.push(format!("{}: heads not a multiple of kv_heads", v.id));
                }
                if let Some(g) = a.global_attn {
                    if g.kv_heads == 0 || g.head_dim == 0 || !a.heads.is_multiple_of(g.kv_heads) {
                        errs.push(format!("{}: global KV heads or head size", v.id));
                    }
                }
                if a.native_ctx.iter().any(|&c| c > a.max_ctx)
                    || a.native_ctx.windows(2).any(|w| w[0] >= w[1])
                {
                    errs.push(format!("{}: native_ctx not ascending within max_ctx", v.id));
                }
                if v.formats.is_empty() {
                    errs.push(format!("{}: no formats", v.id));
                }
                for w in v.formats.windows(2) {
                    if w[0].id.precision_bits() < w[1].id.precision_bits() {
                        errs.push(format!(
                            "{}: formats not ordered by precision ({} before {})",
                            v.id, w[0].id, w[1].id
                        ));
                    }
                }
                let mut fseen = std::collections::HashSet::new();
                for fm in &v.formats {
                    if !fseen.insert((fm.id, fm.container)) {
                        errs.push(format!("{}: duplicate format {}", v.id, fm.id));
                    }
                    if fm.bytes == Bytes::ZERO || fm.source.is_empty() {
                        errs.push(format!("{}: {} has no size or source", v.id, fm.id));
                    }
                }
            }
        }
        for g in &self.gpus {
            if g.vram_bytes == Bytes::ZERO || g.source.is_empty() {
                errs.push(format!("gpu {}: no VRAM or source", g.id));
            }
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_computed_format_joins_the_family_in_precision_order() {
        let c = with_computed(
            base(),
            "google/gemma-3-27b-it",
            Quant::Q4_0,
            Container::Gguf,
        )
        .unwrap()
        .expect("the catalog has no Q4_0 of it");
        assert!(c.validate().is_empty(), "{:?}", c.validate());
        let (_, v) = c.variant("google/gemma-3-27b-it").unwrap();
        let f = v.formats.iter().find(|f| f.id == Quant::Q4_0).unwrap();
        assert_eq!(f.size, SizeKind::Computed);
        assert!(f.repo.is_empty() && f.file.is_empty());
        // Every other Gemma 3 variant gets it too.
        let fam = c
            .family(&c.variant("google/gemma-3-4b-it").unwrap().0.id)
            .unwrap();
        assert!(fam
            .variants
            .iter()
            .all(|v| v.formats.iter().any(|f| f.id == Quant::Q4_0)));
        // A format the model has already: nothing to add.
        assert!(with_computed(
            base(),
            "google/gemma-3-27b-it",
            Quant::Q8_0,
            Container::Gguf
        )
        .unwrap()
        .is_none());
        // No rule: refused with the reason.
        let e = with_computed(
            base(),
            "google/gemma-3-27b-it",
            Quant::UDQ4KXL,
            Container::Gguf,
        )
        .unwrap_err();
        assert!(e.contains("unpublished"), "{e}");
        let e = with_computed(base(), "Qwen/Qwen3-8B", Quant::NVFP4, Container::Gguf).unwrap_err();
        assert!(e.contains("safetensors"), "{e}");
    }
}
