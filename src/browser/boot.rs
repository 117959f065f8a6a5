//! Start-up: the catalog is a separate, cached asset (`catalog.postcard`, copied next to the
//! page by trunk) fetched before the calculator mounts, so the wasm carries neither the data nor
//! a parser for it. A link that names a catalog model first reads only what its estimate needs
//! (`parts/`: its family's part, a few KB; the best-model view every model without its repos and
//! files), mounts, and then reads the whole catalog. The bytes are checked against the catalog
//! this build was made with; a stale cached
//! copy is fetched again past the HTTP cache; a failure is said in the start-up placeholder, in
//! one line.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{RequestCache, RequestInit, Response};

use crate::model::query;

/// The file, relative to the page (works from any sub-path, and in the embed).
const CATALOG_URL: &str = "catalog.postcard";

/// The catalog this build was made with (evaluated at compile time: the bytes are not in the
/// wasm).
const CATALOG_TAG: u64 = fitcard_estimator::catalog::tag(include_bytes!(
    "../../crates/estimator/data/catalog.postcard"
));

async fn fetch_bytes(url: &str, reload: bool) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let init = RequestInit::new();
    if reload {
        init.set_cache(RequestCache::Reload);
    }
    let fail = |what: &str| format!("the catalog could not be loaded ({what})");
    let resp = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .map_err(|_| fail("no network and no cached copy"))?;
    let resp: Response = resp.dyn_into().map_err(|_| fail("not a response"))?;
    if !resp.ok() {
        return Err(fail(&format!("HTTP {}", resp.status())));
    }
    let buf = JsFuture::from(resp.array_buffer().map_err(|_| fail("unreadable body"))?)
        .await
        .map_err(|_| fail("the download broke off"))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// Fetch, check and install the whole catalog.
pub async fn load_catalog() -> Result<(), String> {
    let mut bytes = fetch_bytes(CATALOG_URL, false).await?;
    if fitcard_estimator::catalog::tag(&bytes) != CATALOG_TAG {
        bytes = fetch_bytes(CATALOG_URL, true).await?;
    }
    if fitcard_estimator::catalog::tag(&bytes) != CATALOG_TAG {
        return Err(
            "the catalog file on the server does not belong to this version of the page: reload"
                .into(),
        );
    }
    fitcard_estimator::catalog::install(&bytes)
}

/// What the first estimate of `query` needs installed: the family of the catalog model its
/// link names (from that model's part); for the best-model view (a link without a model, or with
/// `best=`) and for a model the catalog lacks the landing view's part (every model without its
/// repos and files); for a link with other models the whole catalog. Until the whole one is in
/// (`catalog::is_whole` says), the page calls [`load_catalog`] once it has mounted.
pub async fn load_first(query: &str) -> Result<(), String> {
    // A link with other models (`with=`, `draft=`) names models of other families, whose
    // commands its first estimate writes.
    let whole = ["with", "draft"]
        .iter()
        .any(|k| query::raw_param(query, k).is_some());
    let model = query::raw_param(query, "model")
        .filter(|_| query::raw_param(query, "best").is_none())
        .map(|m| query::percent_decode(m).trim().to_string())
        .unwrap_or_default();
    if !whole {
        // A model the catalog lacks has no part: the landing view's (every model, no repos or
        // files) is all its page needs before it mounts (the closest entries, the import's
        // start), a fifth smaller than the whole catalog, which follows.
        let found = match first_part(&model).await {
            None if !model.is_empty() => first_part("").await,
            c => c,
        };
        if let Some(c) = found {
            fitcard_estimator::catalog::install_first(c);
            return Ok(());
        }
    }
    load_catalog().await
}

/// The one-family catalog of `model` from its part (the empty model: the landing view's part),
/// or None (a model the catalog lacks has no part; a part missing or damaged: the landing
/// view's or the whole catalog is read instead). A part's name changes with the catalog: a
/// cached one is always this build's.
async fn first_part(model: &str) -> Option<fitcard_estimator::catalog::Catalog> {
    use fitcard_estimator::catalog::parts;
    let url = format!("parts/{}", parts::part_name(CATALOG_TAG, model));
    let bytes = fetch_bytes(&url, false).await.ok()?;
    parts::read_part(&bytes, model).ok()
}
