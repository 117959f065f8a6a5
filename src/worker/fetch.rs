//! The importer's requests, through gloo-net: one GET (with a single closed `Range` when asked;
//! no other header is sent, so the browser needs no preflight), read from a stream that is
//! cancelled once enough has arrived, each step within a timeout, and answered by the Hub and
//! its file hosts only (the estimator reader's [`Transport`]); the import under way, which a new
//! one or the page's `cancel` aborts; and files on the visitor's disk ([`Files`]). Every failure
//! is one line.

use super::abi::prop;
use crate::model::hub;
use fitcard_estimator::readers::hub::client::{Failure, Files, Transport};
use js_sys::Uint8Array;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// How long the Hub may take to answer a request, or to send the next part of its answer,
/// before the import stops (milliseconds). A build pointed at a stand-in Hub may set a shorter
/// one at compile time (`FITCARD_IMPORT_TIMEOUT_MS`), so that its tests need not wait.
const TIMEOUT_MS: i32 = match option_env!("FITCARD_IMPORT_TIMEOUT_MS") {
    Some(ms) => digits(ms),
    None => 30_000,
};

/// The number `s` spells in decimal digits (a compile-time setting; anything else stops the
/// build).
const fn digits(s: &str) -> i32 {
    let b = s.as_bytes();
    let mut n = 0i32;
    let mut k = 0;
    while k < b.len() {
        assert!(
            b[k].is_ascii_digit(),
            "FITCARD_IMPORT_TIMEOUT_MS: digits only"
        );
        n = n * 10 + (b[k] - b'0') as i32;
        k += 1;
    }
    assert!(n > 0, "FITCARD_IMPORT_TIMEOUT_MS: more than 0");
    n
}

thread_local! {
    /// The import under way: a new one, or the page's `cancel`, aborts its requests (its
    /// answer, an error, is no longer awaited), and the number tells a stale read from the
    /// current one.
    pub(super) static CURRENT: std::cell::RefCell<(u32, Option<web_sys::AbortController>)> =
        const { std::cell::RefCell::new((0, None)) };
}

/// Abort the import under way, if any; a fresh controller for the next one (with `start`)
/// and its number.
pub(super) fn take_over(start: bool) -> u32 {
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(old) = c.1.take() {
            old.abort();
        }
        c.0 = c.0.wrapping_add(1);
        c.1 = if start {
            web_sys::AbortController::new().ok()
        } else {
            None
        };
        c.0
    })
}

/// The abort signal of the import under way.
fn signal() -> Option<web_sys::AbortSignal> {
    CURRENT.with(|c| c.borrow().1.as_ref().map(web_sys::AbortController::signal))
}

/// `p`, unless [`TIMEOUT_MS`] pass first: then the import under way is aborted, and the line
/// says so. `what` says what failed otherwise.
async fn within(p: js_sys::Promise, what: impl Fn() -> String) -> Result<JsValue, String> {
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let timer = js_sys::Promise::new(&mut |done, _| {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&done, TIMEOUT_MS);
    });
    let v = JsFuture::from(js_sys::Promise::race(&js_sys::Array::of2(&p, &timer)))
        .await
        .map_err(|_| what())?;
    if v.is_undefined() {
        take_over(false);
        return Err(format!(
            "the Hugging Face Hub did not answer within {} s: try again",
            TIMEOUT_MS / 1000
        ));
    }
    Ok(v)
}

/// The gated-repo message: what happened, and what works instead.
pub(super) fn gated(repo: &str) -> String {
    format!(
        "{repo} is gated: its files need a Hugging Face login with its terms accepted, which this \
page never sends. Download its files, then run fitcard estimate with --file on them (it reads \
the headers only), or import an ungated copy of the same model."
    )
}

/// GET `url` (with `Range: bytes=0-{range-1}` when given) under the import's abort signal,
/// within [`TIMEOUT_MS`]: the answer's head.
async fn send(url: &str, range: Option<u64>) -> Result<gloo_net::http::Response, String> {
    // gloo-net joins a URL's own query and its builder's with `&`, leaving `?q&` when the
    // builder has none: the query goes through the builder instead.
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")));
    let mut req = gloo_net::http::Request::get(path)
        .query(pairs)
        .abort_signal(signal().as_ref());
    if let Some(n) = range {
        req = req.header("Range", &format!("bytes=0-{}", n.saturating_sub(1)));
    }
    let sent = async move {
        req.send()
            .await
            .map(|r| JsValue::from(web_sys::Response::from(r)))
            .map_err(|_| JsValue::NULL)
    };
    Ok(web_sys::Response::from(
        within(wasm_bindgen_futures::future_to_promise(sent), || {
            "the Hugging Face Hub could not be reached (offline, or blocked)".to_string()
        })
        .await?,
    )
    .into())
}

/// GET `url` (with `Range: bytes=0-{range-1}` when given); the status and at most `limit`
/// bytes of the body.
pub(super) async fn get(
    repo: &str,
    url: &str,
    range: Option<u64>,
    limit: usize,
) -> Result<(u16, Vec<u8>), String> {
    let resp = send(url, range).await?;
    // The page's policy reads only the Hub and its file hosts (connect-src); a worker's fetch
    // follows redirects wherever they lead, so where the answer came from is checked here.
    let from = resp.url();
    if !hub::may_read(&from) {
        return Err(format!(
            "refused: the Hub {} {repo}'s request to {}, outside the Hub and its file hosts",
            if resp.redirected() {
                "redirected"
            } else {
                "answered"
            },
            fitcard_estimator::inputs::clean(hub::origin(&from).unwrap_or("another host"))
        ));
    }
    let status = resp.status();
    if status == 401 || status == 403 || status == 404 {
        let code = resp.headers().get("X-Error-Code");
        return Err(match code.as_deref() {
            Some("GatedRepo") => gated(repo),
            _ if status == 404 || code.as_deref() == Some("RepoNotFound") => {
                format!("{repo} was not found on the Hugging Face Hub (or it is private)")
            }
            _ => {
                format!("the Hub refused to send {repo}'s files (HTTP {status}): private or gated")
            }
        });
    }
    if !(200..300).contains(&status) {
        return Err(format!("the Hub answered HTTP {status} for {repo}"));
    }
    let cut = || format!("the Hub's answer for {repo} was cut short");
    let Some(body) = resp.body() else {
        return Ok((status, Vec::new()));
    };
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut out = Vec::new();
    loop {
        let chunk = within(reader.read(), cut).await?;
        if prop(&chunk, "done").as_bool().unwrap_or(true) {
            break;
        }
        let bytes = Uint8Array::new(&prop(&chunk, "value"));
        let take = (limit - out.len()).min(bytes.length() as usize);
        let start = out.len();
        out.resize(start + take, 0);
        bytes.subarray(0, take as u32).copy_to(&mut out[start..]);
        if out.len() >= limit {
            let _ = reader.cancel();
            break;
        }
    }
    Ok((status, out))
}

/// The page's requests to its Hub, for the estimator's reader.
pub(super) struct PageHub;

impl Transport for PageHub {
    async fn get(
        &self,
        repo: &str,
        url: &str,
        range: Option<u64>,
        limit: usize,
    ) -> Result<Vec<u8>, Failure> {
        Ok(get(repo, url, range, limit).await?.1)
    }

    fn logged_in(&self) -> bool {
        false
    }

    fn gated(&self, repo: &str) -> Failure {
        Failure::locked(gated(repo))
    }
}

/// Files picked on the visitor's disk (`File.slice`: only the bytes asked for are read).
pub(super) struct Disk<'a>(pub &'a [web_sys::File]);

impl Files for Disk<'_> {
    async fn head(&self, path: &str, want: u64) -> Result<Vec<u8>, Failure> {
        let unread = || format!("{path} could not be read from the disk");
        let f = self
            .0
            .iter()
            .find(|f| f.name() == path)
            .ok_or_else(unread)?;
        let part = f
            .slice_with_f64_and_f64(0.0, want as f64)
            .map_err(|_| unread())?;
        let buf = JsFuture::from(part.array_buffer())
            .await
            .map_err(|_| unread())?;
        Ok(Uint8Array::new(&buf).to_vec())
    }
}
