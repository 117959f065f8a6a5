//! Importing a Hub repo, the requests: the model info, then the first bytes of one GGUF file
//! (a single closed `Range`, grown while the header continues; no other header is sent, so the
//! browser needs no preflight), read from a stream that is cancelled once enough has arrived.
//! Every failure is one line.

use crate::hub::{self, Sibling, Target};
use fitcard_estimator::catalog::Family;
use fitcard_estimator::gguf::{self, Error};
use fitcard_estimator::{Bytes, Quant};
use js_sys::{Reflect, Uint8Array};
use leptos::prelude::window;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Most bytes of model info read (a repo with thousands of files lists them all).
const MAX_INFO: usize = 16 << 20;
/// The first read of a GGUF header; it doubles while the header continues.
const FIRST: u64 = 1 << 20;
/// Most bytes of a GGUF header read (a 262K-token vocabulary is a few MB).
const MAX_HEADER: u64 = 48 << 20;

/// A repo read from the Hub, ready to join the catalog.
pub struct Imported {
    /// The family: the repo as one variant with its formats.
    pub family: Family,
    /// The commit read.
    pub rev: String,
    /// The format of the file whose header was read.
    pub quant: Quant,
}

fn prop(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

/// The gated-repo message: what happened, and what works instead.
fn gated(repo: &str) -> String {
    format!(
        "{repo} is gated: its files need a Hugging Face login with its terms accepted, which this \
page never sends. Download the files, then open them here (Open local files)."
    )
}

/// GET `url` (with `Range: bytes=0-{range-1}` when given); the status and at most `limit`
/// bytes of the body.
async fn get(
    repo: &str,
    url: &str,
    range: Option<u64>,
    limit: usize,
) -> Result<(u16, Vec<u8>), String> {
    let init = web_sys::RequestInit::new();
    if let Some(n) = range {
        let h = web_sys::Headers::new().map_err(|_| "the browser refused a request".to_string())?;
        let _ = h.set("Range", &format!("bytes=0-{}", n.saturating_sub(1)));
        init.set_headers(&h);
    }
    let req = web_sys::Request::new_with_str_and_init(url, &init)
        .map_err(|_| "the browser refused a request".to_string())?;
    let resp: web_sys::Response = JsFuture::from(window().fetch_with_request(&req))
        .await
        .map_err(|_| "the Hugging Face Hub could not be reached (offline, or blocked)".to_string())?
        .unchecked_into();
    let status = resp.status();
    if status == 401 || status == 403 || status == 404 {
        let code = resp.headers().get("X-Error-Code").ok().flatten();
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
        let chunk = JsFuture::from(reader.read()).await.map_err(|_| cut())?;
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

/// Read `t` from the Hub: its files, then the header of one GGUF. `progress` is told each step.
pub async fn run(t: &Target, progress: impl Fn(String)) -> Result<Imported, String> {
    let repo = t.repo.as_str();
    progress(format!("Reading the file list of {repo}…"));
    let (_, body) = get(repo, &hub::info_url(t), None, MAX_INFO).await?;
    let bad = || format!("the Hub's file list for {repo} could not be read");
    let text = String::from_utf8(body).map_err(|_| bad())?;
    let info = js_sys::JSON::parse(&text).map_err(|_| bad())?;
    let rev = prop(&info, "sha")
        .as_string()
        .filter(|s| fitcard_estimator::decode(&format!("rev={s}")).clean())
        .or_else(|| t.rev.clone())
        .unwrap_or_else(|| "main".into());
    let list = prop(&info, "siblings");
    let list = if js_sys::Array::is_array(&list) {
        js_sys::Array::from(&list)
    } else {
        js_sys::Array::new()
    };
    let siblings: Vec<Sibling> = list
        .iter()
        .filter_map(|s| {
            Some(Sibling {
                path: prop(&s, "rfilename").as_string()?,
                size: prop(&s, "size").as_f64().unwrap_or(0.0).max(0.0) as u64,
            })
        })
        .collect();
    let gate = prop(&info, "gated");
    if gate.is_truthy() {
        return Err(gated(repo));
    }
    let files = hub::classify(&siblings, t.dir.as_deref());
    let Some(g) = hub::choose(&files, t.file.as_deref()) else {
        return Err(if files.safetensors.is_empty() {
            format!("{repo} holds no .gguf or .safetensors model file")
        } else {
            format!("{repo} holds safetensors only; this page imports GGUF files for now")
        });
    };
    let url = hub::file_url(repo, &rev, &g.path);
    let mut want = FIRST.min(g.bytes.max(8));
    loop {
        progress(format!(
            "Reading the header of {} ({} of {})…",
            g.path,
            Bytes(want),
            Bytes(g.bytes)
        ));
        let (_, head) = get(repo, &url, Some(want), want as usize).await?;
        match gguf::parse(&head) {
            Ok(h) => {
                let read = gguf::to_variant(&h, &g.path, Bytes(g.bytes))
                    .map_err(|m| format!("{}: {m}", g.path))?;
                let quant = read.1.id;
                return Ok(Imported {
                    family: hub::family(repo, &files, read, Vec::new()),
                    rev,
                    quant,
                });
            }
            Err(Error::NeedMore(_)) if (head.len() as u64) < want => {
                return Err(format!("the Hub's answer for {} was cut short", g.path));
            }
            Err(Error::NeedMore(n)) if n <= MAX_HEADER => {
                want = n.max(want * 2).min(MAX_HEADER);
            }
            Err(e) => return Err(format!("{}: {e}", g.path)),
        }
    }
}
