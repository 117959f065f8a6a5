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
mod closest;
pub mod engine;
pub mod mmproj;
pub mod quant;
mod schema;
pub use arch::*;
pub use closest::*;
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
    set_imported(decode(bytes)?);
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
/// page the one [`install`] received.
#[cfg(target_arch = "wasm32")]
pub fn base() -> &'static Catalog {
    CATALOG
        .get()
        .expect("the page installs its catalog before it mounts")
}

/// Decode a postcard-encoded catalog (the page's `catalog.postcard`, or one with an import). Err
/// says why not in one line; a catalog without families or GPUs is refused.
pub fn decode(bytes: &[u8]) -> Result<Catalog, String> {
    let c: Catalog = postcard::from_bytes(bytes).map_err(|_| {
        "the catalog file cannot be read (damaged, or from another version)".to_string()
    })?;
    if c.families.is_empty() || c.gpus.is_empty() {
        return Err("the catalog file holds no models or no GPUs".into());
    }
    Ok(c)
}

/// Make the postcard-encoded `bytes` (the page's `catalog.postcard`) the catalog. Ok when it
/// decodes to a catalog with families and GPUs (or one is already in place); Err says why not in
/// one line.
pub fn install(bytes: &[u8]) -> Result<(), String> {
    if CATALOG.get().is_none() {
        let _ = CATALOG.set(decode(bytes)?);
    }
    Ok(())
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
