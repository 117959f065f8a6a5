//! The embedded catalog, as compiled in: `data/catalog.json` minified, and for the web page
//! (wasm32) without the source texts (URLs and notes) the page never shows — they stay in the
//! repository, the CLI and the tests. Keeps the page's initial transfer small.

use std::{env, fs, path::Path};

/// Fields that hold words for people, not numbers the estimator reads.
const TEXT: [&str; 4] = ["source", "note", "bandwidth_source", "capability_basis"];

fn strip(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| !TEXT.contains(&k.as_str()));
            m.values_mut().for_each(strip);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
        _ => {}
    }
}

fn main() {
    println!("cargo:rerun-if-changed=data/catalog.json");
    let text = fs::read_to_string("data/catalog.json").expect("data/catalog.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("catalog.json is JSON");
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        strip(&mut v);
    }
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("catalog.json");
    fs::write(out, serde_json::to_string(&v).expect("serializes")).expect("write catalog");
}
