//! Start-up: the catalog is a separate, cached asset (`catalog.postcard`, copied next to the
//! page by trunk) fetched before the calculator mounts, so the wasm carries neither the data nor
//! a parser for it. The bytes are checked against the catalog this build was made with; a stale
//! cached copy is fetched again past the HTTP cache; a failure is said in the start-up
//! placeholder, in one line.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{RequestCache, RequestInit, Response};

/// The file, relative to the page (works from any sub-path, and in the embed).
const CATALOG_URL: &str = "catalog.postcard";

/// The catalog this build was made with (evaluated at compile time: the bytes are not in the
/// wasm).
const CATALOG_TAG: u64 = fitcard_estimator::catalog::tag(include_bytes!(
    "../../crates/estimator/data/catalog.postcard"
));

async fn fetch_bytes(reload: bool) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let init = RequestInit::new();
    if reload {
        init.set_cache(RequestCache::Reload);
    }
    let fail = |what: &str| format!("the catalog could not be loaded ({what})");
    let resp = JsFuture::from(window.fetch_with_str_and_init(CATALOG_URL, &init))
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

/// Fetch, check and install the catalog.
pub async fn load_catalog() -> Result<(), String> {
    let mut bytes = fetch_bytes(false).await?;
    if fitcard_estimator::catalog::tag(&bytes) != CATALOG_TAG {
        bytes = fetch_bytes(true).await?;
    }
    if fitcard_estimator::catalog::tag(&bytes) != CATALOG_TAG {
        return Err(
            "the catalog file on the server does not belong to this version of the page: reload"
                .into(),
        );
    }
    fitcard_estimator::catalog::install(&bytes)
}
