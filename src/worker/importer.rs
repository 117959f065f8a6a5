//! The page's side of the importer, a web worker with a wasm of its own (`crate::worker::import`),
//! started on first use: it reads Hub repos, and computes the extras the page shows only on
//! request (the context × concurrency frontier, the calibration fit), so that their code costs
//! the calculator's first transfer nothing. This side numbers each request, relays progress
//! lines and hands each answer to the request that asked.

use super::abi::{abi_number, prop};
use crate::model::hub::Target;
use fitcard_estimator::Quant;
use js_sys::{Array, Function, Promise, Uint8Array};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::str::FromStr;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// The importer's start script, next to the page (trunk's loader shim for the `fitcard-import`
/// worker binary).
const SCRIPT: &str = "fitcard-import_loader.js";

/// A request waiting for its answer: its number, the promise's resolve function, and what to
/// do with progress lines.
type Pending = (f64, Function, Option<Rc<dyn Fn(String)>>);

thread_local! {
    /// The importer once started (one per page), with a promise that settles when it can take
    /// a message: a module worker loads its wasm asynchronously, and a message sent before
    /// its handler exists would be lost.
    static WORKER: RefCell<Option<(Worker, Promise)>> = const { RefCell::new(None) };
    /// Requests sent and not yet answered (request 0 is the worker's `{ready}`).
    static PENDING: RefCell<Vec<Pending>> = const { RefCell::new(Vec::new()) };
    /// The last request number used.
    static LAST: Cell<f64> = const { Cell::new(0.0) };
}

/// Settle every waiting request with `{err: why}` and forget the worker (the next request
/// starts a fresh one).
fn fail_all(why: &str) {
    WORKER.with(|slot| slot.borrow_mut().take());
    let o = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&o, &"err".into(), &why.into());
    for (_, resolve, _) in PENDING.with(|p| p.take()) {
        let _ = resolve.call1(&JsValue::NULL, &o);
    }
}

/// One message from the worker: a progress line for its request, or its answer.
fn dispatch(e: MessageEvent) {
    let d = e.data();
    let id = prop(&d, "id").as_f64().unwrap_or(0.0);
    let progress = prop(&d, "progress").as_string();
    let found = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        let k = p.iter().position(|(n, ..)| *n == id)?;
        Some(match progress {
            Some(m) => (p[k].1.clone(), p[k].2.clone().map(|f| (f, m))),
            None => (p.remove(k).1, None),
        })
    });
    match found {
        Some((_, Some((f, m)))) => f(m),
        Some((resolve, None)) => {
            let _ = resolve.call1(&JsValue::NULL, &d);
        }
        None => {}
    }
}

/// A promise for the answer to request `id`, registered before the request is sent.
fn expect(id: f64, progress: Option<Rc<dyn Fn(String)>>) -> Promise {
    Promise::new(&mut |resolve, _| {
        PENDING.with(|p| p.borrow_mut().push((id, resolve, progress.clone())));
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
        let r = expect(0.0, None);
        let on = Closure::<dyn FnMut(MessageEvent)>::new(dispatch);
        w.set_onmessage(Some(on.as_ref().unchecked_ref()));
        on.forget();
        // A fault (the wasm did not load, or it stopped): every waiting request is told.
        let failed = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            fail_all("the importer stopped on a fault (offline?): try again")
        });
        w.set_onerror(Some(failed.as_ref().unchecked_ref()));
        failed.forget();
        *slot.borrow_mut() = Some((w.clone(), r.clone()));
        Ok((w, r))
    })?;
    let first = JsFuture::from(ready).await.unwrap_or(JsValue::UNDEFINED);
    if prop(&first, "ready").is_truthy() {
        Ok(w)
    } else {
        WORKER.with(|slot| slot.borrow_mut().take());
        Err(prop(&first, "err")
            .as_string()
            .unwrap_or_else(|| "the importer could not be loaded (offline?): try again".into()))
    }
}

/// Send request `kind` with its arguments, `[id, abi, kind, ...args]`; the answer object,
/// or the worker's `err` line. `progress` is told each progress line.
async fn ask(
    kind: &str,
    args: &[JsValue],
    progress: Option<Rc<dyn Fn(String)>>,
) -> Result<JsValue, String> {
    let w = worker().await?;
    let id = LAST.with(|n| {
        n.set(n.get() + 1.0);
        n.get()
    });
    let answer = expect(id, progress);
    let msg = Array::of3(&id.into(), &abi_number().into(), &kind.into());
    for a in args {
        msg.push(a);
    }
    if w.post_message(&msg).is_err() {
        PENDING.with(|p| p.borrow_mut().retain(|(n, ..)| *n != id));
        return Err("the importer could not be reached".into());
    }
    let d = JsFuture::from(answer)
        .await
        .map_err(|_| "the importer stopped".to_string())?;
    match prop(&d, "err").as_string() {
        Some(m) => Err(m),
        None => Ok(d),
    }
}

/// A model the importer read: it has joined the catalog (as its last family).
pub struct Joined {
    /// Its family's id.
    pub family: String,
    /// Its variant's id (the permalink's `model=`).
    pub model: String,
    /// The commit read, for a Hub repo.
    pub rev: Option<String>,
    /// The format of the file whose header was read.
    pub quant: Quant,
    /// The catalog with the model, postcard-encoded (installed by [`Joined::install`]).
    catalog: Vec<u8>,
}

impl Joined {
    /// The catalog with the model becomes the page's.
    pub fn install(&self) -> Result<(), String> {
        fitcard_estimator::catalog::replace(&self.catalog)
    }
}

/// What the importer answered: the model read and the catalog it joined.
fn joined(d: &JsValue) -> Result<Joined, String> {
    let text = |k: &str| prop(d, k).as_string().unwrap_or_default();
    let quant = Quant::from_str(&text("quant"))
        .map_err(|_| "the importer sent an unknown format".to_string())?;
    Ok(Joined {
        family: text("family"),
        model: text("model"),
        rev: Some(text("rev")).filter(|r| !r.is_empty()),
        quant,
        catalog: Uint8Array::new(&prop(d, "ok")).to_vec(),
    })
}

/// Tell the importer, when it runs, to stop the read under way (its answer is an error,
/// which nobody waits for any more).
pub fn cancel() {
    WORKER.with(|slot| {
        if let Some((w, _)) = slot.borrow().as_ref() {
            let _ = w.post_message(&Array::of3(
                &0.into(),
                &abi_number().into(),
                &"cancel".into(),
            ));
        }
    });
}

/// Read `t` from the Hub in the importer, built on the files `engine` loads; `progress` is
/// told each step.
pub async fn run(
    t: &Target,
    engine: fitcard_estimator::Engine,
    progress: impl Fn(String) + 'static,
) -> Result<Joined, String> {
    let opt = |s: &Option<String>| JsValue::from_str(s.as_deref().unwrap_or(""));
    let args = [
        t.repo.as_str().into(),
        opt(&t.rev),
        opt(&t.dir),
        opt(&t.file),
        engine.id().into(),
    ];
    joined(&ask("import", &args, Some(Rc::new(progress))).await?)
}

/// Read the model in `files` (picked on the disk: a GGUF, or a checkpoint's config.json with
/// its .safetensors) in the importer, headers only; `progress` is told each step.
pub async fn disk(
    files: &[web_sys::File],
    progress: impl Fn(String) + 'static,
) -> Result<Joined, String> {
    let list: Array = files.iter().collect();
    joined(&ask("disk", &[list.into()], Some(Rc::new(progress))).await?)
}

/// `quant` for `model` computed by the size rule in the importer (for the files `engine`
/// loads), joined to the catalog as an import is.
pub async fn computed(
    model: &str,
    quant: Quant,
    engine: fitcard_estimator::Engine,
) -> Result<Joined, String> {
    let args = [model.into(), quant.id().into(), engine.id().into()];
    joined(&ask("computed", &args, None).await?)
}

/// The context × concurrency frontier of the configuration `query` (a permalink query), drawn
/// `width` pixels wide: SVG markup made by the estimator in the importer.
pub async fn frontier(query: &str, width: u32) -> Result<String, String> {
    let d = ask("frontier", &[query.into(), width.into()], None).await?;
    prop(&d, "svg")
        .as_string()
        .ok_or_else(|| "the importer sent no plot".into())
}

/// The id of the catalog card the browser's renderer string names, matched in the importer
/// (the matcher is not in the page's first load); None when no card matches.
pub async fn detect_gpu(renderer: &str) -> Result<Option<String>, String> {
    let d = ask("detect", &[renderer.into()], None).await?;
    Ok(prop(&d, "gpu").as_string().filter(|g| !g.is_empty()))
}

/// The best-model list of the configuration `query` (a permalink query) as HTML, ranked and
/// written by the estimator in the importer.
pub async fn best(query: &str) -> Result<String, String> {
    let d = ask("best", &[query.into()], None).await?;
    prop(&d, "html")
        .as_string()
        .ok_or_else(|| "the importer sent no list".into())
}

/// The lines of the list `kind` (`limits`, `layouts`) for the configuration `query`, each
/// `key<TAB>text` (see the importer's `lines`); with `experts`, the line of each layer's
/// routed-expert bytes of its model and format (`catalog::layer_experts_text`).
pub async fn lines(kind: &str, query: &str) -> Result<String, String> {
    let d = ask(kind, &[query.into()], None).await?;
    prop(&d, "text")
        .as_string()
        .ok_or_else(|| "the importer sent no list".into())
}

/// What the calibration panel shows for `readings` under the configuration `query`: the fit's
/// text (or why it is refused), the global-layer count to apply when there is one, and the
/// measuring loop for this engine and model.
pub async fn calibrate(
    query: &str,
    readings: &str,
) -> Result<(String, Option<f64>, String), String> {
    let d = ask("calibrate", &[query.into(), readings.into()], None).await?;
    Ok((
        prop(&d, "text").as_string().unwrap_or_default(),
        prop(&d, "gl").as_f64(),
        prop(&d, "how").as_string().unwrap_or_default(),
    ))
}
