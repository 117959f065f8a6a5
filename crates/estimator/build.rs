//! The embedded catalog, as compiled in: `data/families/*.json` (one family per file, in file-name
//! order), `data/gpus.json` and `data/common_eval.json` (the cross-family evaluation), assembled
//! into one minified document (`catalog.json`, read by the CLI and the tests), and the page's
//! version of it (`catalog-page.json`: without the source texts the page never shows, and only
//! the evaluation rows of catalog variants), which the page reads postcard-encoded from
//! `data/catalog.postcard`. Adding a family is adding one file.

use std::{env, fs, path::Path};

/// Fields that hold words for people, not numbers the estimator reads (`unquantized`: the
/// tensors a format leaves wide, in words; the CLI's catalog keeps them, the page shows none).
const TEXT: [&str; 6] = [
    "source",
    "note",
    "bandwidth_source",
    "capability_basis",
    "fp16_tflops_source",
    "unquantized",
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

/// The published decode measurements of catalog configurations (`measured::MeasuredSpeed`): the
/// llama-bench rows of `data/speed.json` (the regression rows of `tests/speed.rs`, each
/// with its URL) whose model is a catalog variant (its repo id, or its name without an
/// `-Instruct`/`-it` suffix: a base checkpoint and its instruction-tuned release share every
/// tensor shape), whose format is one of that variant's GGUF files, on a catalog card, with every
/// layer on the card.
fn measured(
    families: &[serde_json::Value],
    gpus: &serde_json::Value,
    speed: &serde_json::Value,
) -> Vec<serde_json::Value> {
    let arr = |v: &serde_json::Value| v.as_array().cloned().unwrap_or_default();
    let gpu_ids: Vec<String> = arr(gpus)
        .iter()
        .filter_map(|g| g["id"].as_str().map(str::to_string))
        .collect();
    let variants: Vec<serde_json::Value> =
        families.iter().flat_map(|f| arr(&f["variants"])).collect();
    let variant = |model: &str, quant: &str| {
        variants.iter().find_map(|v| {
            let id = v["id"].as_str()?;
            let name = id.rsplit('/').next()?;
            let base = name.trim_end_matches("-Instruct").trim_end_matches("-it");
            let same = id.eq_ignore_ascii_case(model) || base.eq_ignore_ascii_case(model);
            let gguf = arr(&v["formats"])
                .iter()
                .any(|f| f["id"] == quant && f["container"] == "gguf");
            (same && gguf).then(|| id.to_string())
        })
    };
    let mut out = Vec::new();
    for section in ["llama_bench", "depth"] {
        for r in arr(&speed[section]) {
            let (Some(model), Some(quant), Some(gpu), Some(test), Some(tps), Some(url)) = (
                r["model"].as_str(),
                r["quant"].as_str(),
                r["gpu"].as_str(),
                r["test"].as_str(),
                r["tokens_per_s"].as_f64(),
                r["url"].as_str(),
            ) else {
                continue;
            };
            let all_layers = r["ngl"].as_u64().is_some_and(|n| n >= 99)
                || r["flags"].as_str().is_some_and(|f| f.contains("ngl 99"));
            let on_gpu = matches!(
                r["backend"].as_str(),
                Some("CUDA" | "Metal" | "ROCm" | "Vulkan")
            );
            let Some(id) = variant(model, quant) else {
                continue;
            };
            if !test.starts_with("tg")
                || !all_layers
                || !on_gpu
                || !gpu_ids.iter().any(|g| g == gpu)
            {
                continue;
            }
            let depth = r["depth"].as_u64().unwrap_or(0);
            let test = if section == "depth" && !test.contains('@') {
                format!("{test} @ d{depth}")
            } else {
                test.to_string()
            };
            out.push(serde_json::json!({
                "variant": id,
                "model": model,
                "quant": quant,
                "gpu": gpu,
                "depth": depth,
                "test": test,
                "decode_tps": tps,
                "url": url,
            }));
        }
    }
    out
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
    let gpus = read(Path::new("data/gpus.json"));
    let measured = measured(&families, &gpus, &read(Path::new("data/speed.json")));
    let mut v = serde_json::json!({
        "families": families,
        "gpus": gpus,
        "common_eval": common_eval,
        "measured": measured,
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
