//! The importer's own copy of the built-in catalog: the file next to the importer, checked
//! against the one this build was made with, installed on the first request, and joined by
//! each model read.

use super::abi::ABI;
use super::fetch::CURRENT;
use super::read::Imported;
use fitcard_estimator::Quant;
use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Most bytes a file of the site next to the importer may have (the whole catalog and the price
/// list are under 100 KB).
const SIBLING_MAX: u32 = 8 << 20;

/// A file of the site next to the importer (`name`), its bytes; `fail` the words when it cannot
/// be read (a refused request, an error status, more than [`SIBLING_MAX`] bytes).
pub(super) async fn sibling(name: &str, fail: &str) -> Result<Vec<u8>, String> {
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let resp: web_sys::Response = JsFuture::from(scope.fetch_with_str(name))
        .await
        .map_err(|_| fail.to_string())?
        .unchecked_into();
    if !resp.ok() {
        return Err(fail.into());
    }
    let buf = JsFuture::from(resp.array_buffer().map_err(|_| fail.to_string())?)
        .await
        .map_err(|_| fail.to_string())?;
    let bytes = Uint8Array::new(&buf);
    if bytes.length() > SIBLING_MAX {
        return Err(fail.into());
    }
    Ok(bytes.to_vec())
}

/// The catalog file next to the importer, checked against the one this build was made with.
async fn catalog_bytes() -> Result<Vec<u8>, String> {
    let bytes = sibling(
        "catalog.postcard",
        "the importer could not read the catalog: reload the page",
    )
    .await?;
    if fitcard_estimator::catalog::tag(&bytes) != ABI {
        return Err("the importer belongs to another version of the page: reload the page".into());
    }
    Ok(bytes)
}

/// The importer's own copy of the built-in catalog, fetched and installed on the first request
/// (the readers, the link checks and the extras consult it); its bytes.
pub(super) async fn installed() -> Result<Vec<u8>, String> {
    let bytes = catalog_bytes().await?;
    fitcard_estimator::catalog::install(&bytes)?;
    Ok(bytes)
}

/// A model read (from the Hub or the disk by `read`, which runs once the importer's catalog is
/// in place) joins the importer's copy of the built-in catalog as its last family; the
/// importer keeps that catalog from then on, as the page does, so that the extras see the
/// model. The answer: that catalog postcard-encoded (the page decodes it as it decodes its
/// own), the model's family and variant ids, the commit read (empty for a file on the disk)
/// and its format.
pub(super) async fn join(
    read: impl std::future::Future<Output = Result<Imported, String>>,
) -> Result<(Vec<u8>, String, String, String, Quant), String> {
    let mine = CURRENT.with(|c| c.borrow().0);
    let bytes = installed().await?;
    let imp = read.await?;
    if CURRENT.with(|c| c.borrow().0) != mine {
        return Err("a later import replaced this one".into());
    }
    let family = imp.family.id.clone();
    let model = imp
        .family
        .variants
        .first()
        .map(|v| v.id.clone())
        .unwrap_or_default();
    // A repo the catalog holds (its entry lacked the files the engine loads) is replaced by
    // what the Hub holds.
    let mut base = fitcard_estimator::catalog::from_postcard(&bytes)?;
    let read = |id: &str| {
        imp.family
            .variants
            .iter()
            .any(|v| v.id.eq_ignore_ascii_case(id))
    };
    for f in &mut base.families {
        f.variants.retain(|v| !read(&v.id));
    }
    base.families.retain(|f| !f.variants.is_empty());
    let c = fitcard_estimator::catalog::with_import(base, imp.family)?;
    let bytes = postcard::to_allocvec(&c).map_err(|_| "the model read could not be sent")?;
    fitcard_estimator::catalog::replace(&bytes)?;
    Ok((bytes, family, model, imp.rev, imp.quant))
}

/// `quant` for `model` computed by the size rule ([`fitcard_estimator::catalog::with_computed`]:
/// for every variant of its family that lacks it) joins the importer's catalog, for the files
/// `engine` loads. The answer as [`join`]'s: the catalog, the family and variant ids, no commit,
/// the format. Err when the catalog lacks the model or the rule has no such format for it.
pub(super) async fn computed(
    model: &str,
    quant: &str,
    engine: &str,
) -> Result<(Vec<u8>, String, String, String, Quant), String> {
    installed().await?;
    let q: Quant = quant
        .parse()
        .map_err(|_| format!("{quant} is not a format fitcard knows"))?;
    let engine: fitcard_estimator::Engine = engine
        .parse()
        .unwrap_or(fitcard_estimator::Engine::LlamaCpp);
    let cat = fitcard_estimator::catalog();
    let c = fitcard_estimator::catalog::with_computed(cat, model, q, engine.container())?;
    let bytes = match c {
        Some(c) => {
            let b = postcard::to_allocvec(&c).map_err(|_| "the format could not be sent")?;
            fitcard_estimator::catalog::replace(&b)?;
            b
        }
        None => postcard::to_allocvec(cat).map_err(|_| "the format could not be sent")?,
    };
    let (family, variant) = fitcard_estimator::catalog()
        .variant(model)
        .map(|(f, v)| (f.id.clone(), v.id.clone()))
        .ok_or_else(|| format!("{model} is not in the catalog"))?;
    Ok((bytes, family, variant, String::new(), q))
}

/// Each layer's routed-expert bytes of the model and format of the configuration `query` (what
/// `--n-cpu-moe` moves to system RAM), by the size rule this build carries, as
/// [`fitcard_estimator::catalog::layer_experts_text`] writes them: the page's first load has no
/// rule of its own. Err when the catalog lacks the model or the format has no rule for them.
pub(super) async fn experts(query: &str) -> Result<String, String> {
    use fitcard_estimator::catalog;
    installed().await?;
    let i = fitcard_estimator::from_query(query).inputs;
    let (_, v) = catalog::catalog()
        .variant(&i.model)
        .ok_or_else(|| format!("{} is not in the catalog", i.model))?;
    let (layers, exact) = catalog::layer_experts(&i.model, &v.arch, i.quant)
        .ok_or_else(|| format!("{} has no rule for the types of its experts", i.quant))?;
    Ok(catalog::layer_experts_text(&layers, exact))
}
