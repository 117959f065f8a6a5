//! The importer's message loop ([`serve`]). This runs in the importer, a web worker with a
//! wasm of its own (`fitcard-import`, built by trunk next to the page's): the file readers and
//! the Hub client cost the calculator's first transfer nothing, and are downloaded on the first
//! import only. `crate::worker::importer` is the page's side.

use super::abi::abi_number;
use super::catalog::{computed, experts, join};
use super::extras::{best_list, calibration, detect_gpu, frontier, lines};
use super::fetch::take_over;
use super::read::{run, run_disk};
use crate::model::hub::Target;
use fitcard_estimator::Engine;
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

/// The importer's message loop (it first posts `{ready: true}`). Each message from the page is
/// `[id, abi, kind, ...args]` (`abi` = [`abi_number`]):
/// - `import` with `[repo, rev, dir, file, engine]` (empty = none; the engine decides which
///   of a GGUF and a checkpoint the model is built on), or `disk` with `[files]` (an
///   array of `File`s picked on the disk): `{id, progress: text}` while it works, then
///   `{id, ok: bytes, family, model, rev, quant}` (see [`join`]; `rev` empty for the disk);
/// - `computed` with `[model, quant, engine]`: the format's size by the rule for the model's
///   family joins the catalog; `{id, ok: bytes, family, model, rev: "", quant}` as `import`;
/// - `experts` with `[query]`: each layer's routed-expert bytes of its model and format,
///   `{id, text}` (`catalog::layer_experts_text`);
/// - `frontier` with `[query, width]`: `{id, svg}`;
/// - `calibrate` with `[query, readings]`: `{id, text, gl, how}` (`gl` absent when refused);
/// - `cancel`: the import under way stops (a new `import` or `disk` stops it too), unanswered;
///
/// and `{id, err: text}` when a request fails.
pub fn serve() {
    use wasm_bindgen::closure::Closure;
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let on = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(on_message);
    scope.set_onmessage(Some(on.as_ref().unchecked_ref()));
    on.forget();
    // The page waits for this before it sends anything.
    let o = js_sys::Object::new();
    let _ = Reflect::set(&o, &JsValue::from_str("ready"), &JsValue::TRUE);
    let _ = scope.post_message(&o);
}

/// One message from the page, `[id, abi, kind, ...args]`: a new read stops the one under way;
/// so does `cancel`, which has no arguments and no answer. Any other is answered once done.
fn on_message(e: web_sys::MessageEvent) {
    let data = js_sys::Array::from(&e.data());
    let id = data.get(0);
    let same_build = data.get(1).as_f64() == Some(abi_number());
    let kind = data.get(2).as_string().unwrap_or_default();
    match kind.as_str() {
        "cancel" => {
            take_over(false);
            return;
        }
        "import" | "disk" => {
            take_over(true);
        }
        _ => {}
    }
    wasm_bindgen_futures::spawn_local(async move {
        if !same_build {
            let m = "the importer belongs to another version of the page: reload the page";
            post(&id, &[("err", JsValue::from_str(m))]);
            return;
        }
        match answer(&kind, &data, &id).await {
            Ok(pairs) => post(&id, &pairs),
            Err(m) => post(&id, &[("err", JsValue::from_str(&m))]),
        }
    });
}

/// The answer's fields to request `kind` with the arguments `data[3..]`, or why it failed
/// (one line); a read tells its progress lines as request `id`.
async fn answer(
    kind: &str,
    data: &js_sys::Array,
    id: &JsValue,
) -> Result<Vec<(&'static str, JsValue)>, String> {
    let text = |s: &str| JsValue::from_str(s);
    let arg = |i: u32| data.get(3 + i).as_string().filter(|s| !s.is_empty());
    let (a, b) = (arg(0).unwrap_or_default(), arg(1).unwrap_or_default());
    match kind {
        "import" | "disk" => {
            let progress = |m: String| post(id, &[("progress", text(&m))]);
            let joined = if kind == "import" {
                let target = Target {
                    repo: a,
                    rev: arg(1),
                    dir: arg(2),
                    file: arg(3),
                };
                let engine: Option<Engine> = arg(4).and_then(|e| e.parse().ok());
                join(run(&target, engine, progress)).await
            } else {
                // Files picked on the disk: the first argument, an array of `File`s.
                let picked: Vec<web_sys::File> = js_sys::Array::from(&data.get(3))
                    .iter()
                    .filter_map(|f| f.dyn_into().ok())
                    .collect();
                join(run_disk(&picked, progress)).await
            };
            joined.map(|(bytes, family, model, rev, quant)| {
                vec![
                    ("ok", Uint8Array::from(&bytes[..]).into()),
                    ("family", text(&family)),
                    ("model", text(&model)),
                    ("rev", text(&rev)),
                    ("quant", text(quant.id())),
                ]
            })
        }
        "computed" => {
            let engine = arg(2).unwrap_or_default();
            computed(&a, &b, &engine)
                .await
                .map(|(bytes, family, model, rev, quant)| {
                    vec![
                        ("ok", Uint8Array::from(&bytes[..]).into()),
                        ("family", text(&family)),
                        ("model", text(&model)),
                        ("rev", text(&rev)),
                        ("quant", text(quant.id())),
                    ]
                })
        }
        "frontier" => {
            let width = data.get(4).as_f64().unwrap_or(0.0) as u32;
            frontier(&a, width)
                .await
                .map(|svg| vec![("svg", text(&svg))])
        }
        "limits" | "layouts" | "cost" => lines(kind, &a).await.map(|t| vec![("text", text(&t))]),
        "experts" => experts(&a).await.map(|t| vec![("text", text(&t))]),
        "best" => best_list(&a).await.map(|h| vec![("html", text(&h))]),
        "detect" => detect_gpu(&a).await.map(|g| vec![("gpu", text(&g))]),
        "calibrate" => calibration(&a, &b).await.map(|(t, gl, how)| {
            let mut v = vec![("text", text(&t)), ("how", text(&how))];
            if let Some(g) = gl {
                v.push(("gl", JsValue::from_f64(g)));
            }
            v
        }),
        _ => Err("the importer does not know this request".into()),
    }
}

/// Post `{id, ...pairs}` to the page.
fn post(id: &JsValue, pairs: &[(&str, JsValue)]) {
    let o = js_sys::Object::new();
    let _ = Reflect::set(&o, &JsValue::from_str("id"), id);
    for (k, v) in pairs {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let _ = scope.post_message(&o);
}
