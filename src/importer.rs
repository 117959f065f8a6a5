//! The page's side of an import: the Hub client and the file readers run in the importer, a web
//! worker with a wasm of its own (`crate::import`), started on the first import. This side sends
//! the target, relays the progress lines and decodes the answer.

use crate::hub::Target;
use crate::import::{abi_number, prop};
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
    /// The importer, once started (one per page; imports run one at a time), and a promise
    /// that settles when it can take a message: a module worker loads its wasm asynchronously,
    /// and a message sent before its handler exists would be lost.
    static WORKER: RefCell<Option<(Worker, Promise)>> = const { RefCell::new(None) };
}

/// A promise resolved by the worker's first message (`{ready}`) or by its load failing.
fn ready(w: &Worker) -> Promise {
    Promise::new(&mut |resolve, _| {
        let first = resolve.clone();
        let on = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let _ = first.call1(&JsValue::NULL, &e.data());
        });
        w.set_onmessage(Some(on.as_ref().unchecked_ref()));
        on.forget();
        let failed = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            let _ = resolve.call1(&JsValue::NULL, &JsValue::UNDEFINED);
        });
        w.set_onerror(Some(failed.as_ref().unchecked_ref()));
        failed.forget();
    })
}

/// The importer, started on the first call, once it can take a message.
async fn worker() -> Result<Worker, String> {
    let (w, ready) = WORKER.with(|slot| {
        if let Some(w) = slot.borrow().as_ref() {
            return Ok::<_, String>(w.clone());
        }
        let opts = WorkerOptions::new();
        opts.set_type(WorkerType::Module);
        let w = Worker::new_with_options(SCRIPT, &opts)
            .map_err(|_| "this browser cannot start the importer (module workers)".to_string())?;
        let r = ready(&w);
        *slot.borrow_mut() = Some((w.clone(), r.clone()));
        Ok((w, r))
    })?;
    let first = JsFuture::from(ready).await.unwrap_or(JsValue::UNDEFINED);
    if prop(&first, "ready").is_truthy() {
        Ok(w)
    } else {
        // Start afresh next time.
        WORKER.with(|slot| slot.borrow_mut().take());
        Err("the importer could not be loaded (offline?): try again online".into())
    }
}

/// Read `t` from the Hub in the importer; `progress` is told each step. On success the repo
/// has joined the catalog (as its last family); the answer is the commit read and the format of
/// the file whose header was read.
pub async fn run(
    t: &Target,
    progress: impl Fn(String) + 'static,
) -> Result<(String, Quant), String> {
    let w = worker().await?;
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
        // The worker failed while importing: drop it (the next import starts a fresh one).
        let failed = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            WORKER.with(|slot| slot.borrow_mut().take());
            let o = js_sys::Object::new();
            let _ = Reflect::set(
                &o,
                &JsValue::from_str("err"),
                &JsValue::from_str("the importer stopped on a fault: try again"),
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
