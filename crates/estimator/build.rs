//! The embedded catalog, as compiled in: `data/families/*.json` (one family per file, in file-name
//! order), `data/gpus.json` and `data/common_eval.json` (the cross-family evaluation), assembled
//! into one minified document (`catalog.json`, read by the CLI and the tests), and the page's
//! version of it (`catalog-page.json`: without the source texts the page never shows, and only
//! the evaluation rows of catalog variants), which the page reads postcard-encoded from
//! `data/catalog.postcard`. Adding a family is adding one file.

use std::{env, fs, path::Path};

/// Fields that hold words for people, not numbers the estimator reads.
const TEXT: [&str; 5] = [
    "source",
    "note",
    "bandwidth_source",
    "capability_basis",
    "fp16_tflops_source",
];

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

fn read(path: &Path) -> serde_json::Value {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn main() {
    println!("cargo:rerun-if-changed=data/families");
    let mut files: Vec<_> = fs::read_dir("data/families")
        .expect("data/families")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let families: Vec<_> = files.iter().map(|p| read(p)).collect();
    let eval = Path::new("data/common_eval.json");
    println!("cargo:rerun-if-changed={}", eval.display());
    let common_eval = eval.exists().then(|| read(eval));
    let mut v = serde_json::json!({
        "families": families,
        "gpus": read(Path::new("data/gpus.json")),
        "common_eval": common_eval,
    });
    let out = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).to_path_buf();
    fs::write(
        out.join("catalog.json"),
        serde_json::to_string(&v).expect("serializes"),
    )
    .expect("write catalog");
    // The page's catalog: what the page reads, stored postcard-encoded in
    // data/catalog.postcard (tests/page_catalog.rs keeps it equal to this).
    {
        strip(&mut v);
        // The page needs the scores of catalog variants only.
        let ids: Vec<String> = v["families"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|f| f["variants"].as_array().into_iter().flatten())
            .filter_map(|x| x["id"].as_str().map(str::to_ascii_lowercase))
            .collect();
        if let Some(rows) = v["common_eval"]["scores"].as_array_mut() {
            rows.retain(|r| {
                r["model"]
                    .as_str()
                    .is_some_and(|m| ids.contains(&m.to_ascii_lowercase()))
            });
        }
    }
    fs::write(
        out.join("catalog-page.json"),
        serde_json::to_string(&v).expect("serializes"),
    )
    .expect("write the page's catalog");
}
