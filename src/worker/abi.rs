//! What the page's side and the importer's share: the build each message comes from, and a
//! property of a JS object.

use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// Which build made a message: the page and the importer must come from the same build. The
/// tag of the catalog file this build was made with, evaluated at compile time; the importer
/// reads the same file and checks it against this.
pub const ABI: u64 = fitcard_estimator::catalog::tag(include_bytes!(
    "../../crates/estimator/data/catalog.postcard"
));

/// The page's side and the importer's agree on a JS number: the low 52 bits of [`ABI`] (exact
/// up to 2^53).
pub fn abi_number() -> f64 {
    (ABI & ((1 << 52) - 1)) as f64
}

/// `v[k]`, or undefined.
pub fn prop(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}
