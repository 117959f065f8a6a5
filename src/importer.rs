//! The page's side of an import: the Hub client and the file readers run in the importer, a web
//! worker with a wasm of its own (`crate::import`), started on the first import. This side sends
//! the target, relays the progress lines and decodes the answer.

use crate::hub::Target;
use crate::import::abi_number;
use fitcard_estimator::Quant;
use js_sys::{Array, Promise, Reflect, Uint8Array};
use std::cell::RefCell;
use std::str::FromStr;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// The importer's start script, next to the page (trunk's loader shim for the `fitcard-import`
/// worker binary).
const SCRIPT: &str = "fitcard-import_loader.js";

thread_local! {
    /// The importer, once started (one per page; imports run one at a time).
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

fn prop(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

fn worker() -> Result<Worker, String> {
    WORKER.with(|w| {
        if let Some(w) = w.borrow().as_ref() {
            return Ok(w.clone());
        }
        let opts = WorkerOptions::new();
        opts.set_type(WorkerType::Module);
        let started = Worker::new_with_options(SCRIPT, &opts)
            .map_err(|_| "this browser cannot start the importer (module workers)".to_string())?;
        *w.borrow_mut() = Some(started.clone());
        Ok(started)
    })
}

/// Read `t` from the Hub in the importer; `progress` is told each step. On success the repo
/// has joined the catalog (as its last family); the answer is the commit read and the format of
/// the file whose header was read.
pub async fn run(
    t: &Target,
    progress: impl Fn(String) + 'static,
) -> Result<(String, Quant), String> {
    let w = worker()?;
    let progress = std::rc::Rc::new(progress);
    let answer = Promise::new(&mut |resolve, _| {
        let done = resolve.clone();
        let progress = progress.clone();
        let on = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let d = e.data();
            match prop(&d, "progress").as_string() {
                Some(m) => progress(m),
                None => {
                    let _ = done.call1(&JsValue::NULL, &d);
                }
            }
        });
        w.set_onmessage(Some(on.as_ref().unchecked_ref()));
        on.forget();
        // The worker's script failed to load or start (offline, or a stale copy).
        let failed = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            let o = js_sys::Object::new();
            let _ = Reflect::set(
                &o,
                &JsValue::from_str("err"),
                &JsValue::from_str("the importer could not be loaded (offline?): try again online"),
            );
            let _ = resolve.call1(&JsValue::NULL, &o);
        });
        w.set_onerror(Some(failed.as_ref().unchecked_ref()));
        failed.forget();
    });
    let opt = |s: &Option<String>| JsValue::from_str(s.as_deref().unwrap_or(""));
    let msg = Array::of5(
        &JsValue::from_str(&t.repo),
        &opt(&t.rev),
        &opt(&t.dir),
        &opt(&t.file),
        &JsValue::from_f64(abi_number()),
    );
    w.post_message(&msg)
        .map_err(|_| "the importer could not be reached".to_string())?;
    let d = JsFuture::from(answer)
        .await
        .map_err(|_| "the importer stopped".to_string())?;
    if let Some(m) = prop(&d, "err").as_string() {
        if m.contains("could not be loaded") {
            // Start afresh next time.
            WORKER.with(|w| w.borrow_mut().take());
        }
        return Err(m);
    }
    let bytes = Uint8Array::new(&prop(&d, "ok")).to_vec();
    let rev = prop(&d, "rev").as_string().unwrap_or_default();
    let quant = prop(&d, "quant").as_string().unwrap_or_default();
    let quant =
        Quant::from_str(&quant).map_err(|_| "the importer sent an unknown format".to_string())?;
    fitcard_estimator::catalog::replace(&bytes)?;
    Ok((rev, quant))
}
