//! The CLI contract (the query string and JSON are a public API): JSON shape, exit codes, the same query string as the page.

use std::process::{Command, Output};

fn fitcard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fitcard"))
        // No network at test time: a Hub repo would be asked of a port nobody listens on.
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .args(args)
        .output()
        .expect("runs")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

#[test]
fn estimate_json_contract() {
    let out = fitcard(&[
        "estimate",
        "v=1&model=google/gemma-3-1b-it&quant=F16&ctx=4096&par=1&engine=llama.cpp&kv=f16",
        "--json",
    ]);
    let v = json(&out);
    let terms = v["terms"].as_array().unwrap();
    let kv = terms.iter().find(|t| t["name"] == "kv_cache").unwrap();
    assert_eq!(kv["bytes"], 39_845_888);
    assert_eq!(kv["where"], "device");
    assert!(terms.iter().any(|t| t["name"] == "weights"));
    assert!(terms.iter().any(|t| t["name"] == "overhead"));
    assert!(terms.iter().any(|t| t["where"] == "host"));
    assert!(v["per_card"][0]["bytes"].as_u64().unwrap() > 0);
    assert!(v["per_card"][0]["capacity"].as_u64().unwrap() > 0);
    assert!(v["total_device_bytes"].as_u64().unwrap() > 39_845_888);
    assert_eq!(v["fits"], true);
    assert!(v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["name"].is_string() && c["ok"].is_boolean() && c["message"].is_string()));
}

#[test]
fn rank_json_lists_reasons() {
    let out = fitcard(&[
        "rank",
        "model=google/gemma-3-27b-it&engine=llama.cpp&vram=24&ctx=8192&par=1",
        "--json",
    ]);
    let v = json(&out);
    let c = v.as_array().unwrap();
    assert!(c[0]["fits"].as_bool().unwrap());
    assert_eq!(c[0]["model"], "google/gemma-3-27b-it");
    let bad: Vec<_> = c.iter().filter(|x| x["fits"] == false).collect();
    assert!(
        !bad.is_empty()
            && bad
                .iter()
                .all(|x| !x["reasons"].as_array().unwrap().is_empty())
    );
}

#[test]
fn human_tables() {
    let out = fitcard(&["rank", "model=google/gemma-3-27b-it&vram=24"]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("google/gemma-3-27b-it") && s.contains("GiB"));
    let out = fitcard(&["estimate", "model=google/gemma-3-4b-it&par=2"]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("kv_cache") && s.contains("-np 2") && s.contains("verdict"));
}

#[test]
fn bad_input_exits_2_naming_the_key() {
    // (query, key the message must name)
    for (q, key) in [
        ("ctx=0", "ctx"),
        ("cards=1024", "cards"),
        ("vram=-1", "vram"),
        ("vram=NaN", "vram"),
        ("model=nope", "model"),
        ("model=acme/no/pe", "model"),
        ("gpu=nope", "gpu"),
        ("ctx=1&ctx=2", "ctx"),
        ("colour=blue", "colour"),
    ] {
        let out = fitcard(&["estimate", q, "--json"]);
        assert_eq!(out.status.code(), Some(2), "{q}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(key), "{q}: {err}");
    }
    assert_eq!(fitcard(&["frobnicate", "ctx=1"]).status.code(), Some(2));
    assert_eq!(fitcard(&[]).status.code(), Some(2));
}

#[test]
fn train_mode_terms() {
    let out = fitcard(&[
        "estimate",
        "mode=train&model=meta-llama/Llama-3.1-8B-Instruct&method=qlora&free=24",
        "--json",
    ]);
    let v = json(&out);
    let names: Vec<_> = v["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    for n in [
        "weights",
        "lora",
        "optimizer",
        "gradients",
        "activations",
        "cuda_overhead",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} in {names:?}");
    }
}

#[test]
fn measure_backs_out_global_layers() {
    // gemma-3-27b, f16 KV: 10 global layers × 8192 B/token = 80 KiB per token → +0.625 GiB per 8192 tokens.
    let out = fitcard(&[
        "measure",
        "model=google/gemma-3-27b-it&kv=f16",
        "8192:20",
        "16384:20.625",
        "32768:21.875",
        "--json",
    ]);
    let v = json(&out);
    assert!((v["global_layers"].as_f64().unwrap() - 10.0).abs() < 1e-9);
    assert_eq!(v["expected_global_layers"], 10);
    let out = fitcard(&[
        "measure",
        "model=google/gemma-3-27b-it",
        "8192:20",
        "16384:21",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("three"));
}

/// Bad bytes and hostile text are bad input like any other: exit 2, one line, nothing raw
/// echoed (defects: a non-UTF-8 argument aborted with exit 134; `%0A`/`%1B` in a key split the
/// message and wrote a raw ESC; measure printed NaN and exited 0; a pick out of range passed
/// when `cards` was given).
#[test]
fn hostile_input_gives_one_clean_line() {
    use std::os::unix::ffi::OsStrExt;
    let raw = Command::new(env!("CARGO_BIN_EXE_fitcard"))
        // No network at test time: a Hub repo would be asked of a port nobody listens on.
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .arg("estimate")
        .arg(std::ffi::OsStr::from_bytes(b"ctx=\xff"))
        .arg("--json")
        .output()
        .unwrap();
    // (argv, text the one line must contain)
    let rows: Vec<(Vec<&str>, &str)> = vec![
        (vec!["estimate", "ab%0Acd%1B=1"], "ab\\ncd\\u{1b}"),
        (
            vec![
                "measure",
                "model=google/gemma-3-27b-it",
                "0:0",
                "1:5e298",
                "2:1e299",
                "3:1.5e299",
            ],
            "point",
        ),
        (
            vec![
                "measure",
                "model=google/gemma-3-27b-it",
                "1:0",
                "2:5e298",
                "3:1e299",
                "4:1.5e299",
            ],
            "\"2:5e298\"",
        ),
        (
            vec!["estimate", "mode=train&free=24&cards=4&pick=3"],
            "pick",
        ),
        (vec!["estimate", "mode=train&free=24&pick=3"], "pick"),
    ];
    let mut outs = vec![(raw, "argument 2 is not valid UTF-8")];
    outs.extend(rows.iter().map(|(a, want)| (fitcard(a), *want)));
    for (out, want) in outs {
        assert_eq!(out.status.code(), Some(2), "{want}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            !err.contains('\x1b') && !err.contains("NaN") && !err.contains("inf"),
            "{err}"
        );
        assert!(err.contains(want), "{want}: {err}");
        assert!(out.stdout.is_empty());
    }
}

/// Checks carry a severity; `fits` is the AND of the hard ones (3 cards: tensor parallelism is
/// impossible, layer split fits).
#[test]
fn checks_have_a_severity() {
    let v = json(&fitcard(&[
        "estimate",
        "model=Qwen/Qwen3-8B&cards=3",
        "--json",
    ]));
    let checks = v["checks"].as_array().unwrap();
    assert!(checks
        .iter()
        .all(|c| c["severity"] == "hard" || c["severity"] == "info"));
    let tp = checks
        .iter()
        .find(|c| c["name"] == "tensor_parallel")
        .unwrap();
    assert_eq!(
        (tp["ok"].as_bool(), tp["severity"].as_str()),
        (Some(false), Some("info"))
    );
    assert_eq!(v["fits"], true);
    assert_eq!(v["layout"], "layer");
}

/// `fitcard solve`: every serve-mode limit, or one with `--for`; a bad target exits 2.
#[test]
fn solve_prints_limits() {
    let v = json(&fitcard(&[
        "solve",
        "model=google/gemma-3-27b-it&par=4",
        "--json",
    ]));
    let targets: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["target"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(targets, ["ctx", "par", "cards", "gpu"]);
    let one = json(&fitcard(&[
        "solve",
        "model=Qwen/Qwen3-8B",
        "--for",
        "par",
        "--json",
    ]));
    assert!(one[0]["value"].as_str().unwrap().parse::<u32>().unwrap() > 1);
    let bad = fitcard(&["solve", "model=Qwen/Qwen3-8B", "--for", "speed"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--for"));
}

/// `fitcard frontier`: JSON lines of `[context, slots]`, an SVG, and one-line refusals.
#[test]
fn frontier_json_svg_and_refusals() {
    let v = json(&fitcard(&[
        "frontier",
        "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpu=h100-sxm",
        "--json",
    ]));
    let lines = v["lines"].as_array().unwrap();
    assert_eq!(lines[0]["kv"], "auto");
    assert_eq!(lines[0]["points"][0][0], 512);
    assert!(lines[0]["points"][0][1].as_u64().unwrap() > 1);
    assert_eq!(v["current"], serde_json::json!([8192, 1]));
    assert_eq!(v["reason"], serde_json::Value::Null);
    let svg = fitcard(&["frontier", "model=Qwen/Qwen3-8B", "--svg"]);
    assert!(svg.status.success());
    assert!(String::from_utf8_lossy(&svg.stdout).starts_with("<svg "));
    for bad in [
        vec!["frontier", "model=Qwen/Qwen3-8B", "--png"],
        vec!["frontier", "model=Qwen/Qwen3-8B", "--svg", "--json"],
        vec!["frontier", "ctx=banana"],
    ] {
        let out = fitcard(&bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(out.stdout.is_empty(), "{bad:?}");
    }
    let out = fitcard(&["frontier", "ctx=banana"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

/// `fitcard solve` in train mode: the longest sequence and the largest batch under the trainer
/// profile, each with the estimate at the answer and one step past it.
#[test]
fn solve_train_limits_carry_their_proof() {
    for trainer in ["unsloth", "unsloth-formula", "transformers", "llamafactory"] {
        let q =
            format!("mode=train&model=meta-llama/Llama-3.1-8B-Instruct&free=24&trainer={trainer}");
        let v = json(&fitcard(&["solve", &q, "--json"]));
        let a = v.as_array().unwrap();
        assert_eq!(a.len(), 2);
        for (s, target) in a.iter().zip(["seq", "bsz"]) {
            assert_eq!(s["target"], target);
            let value: u64 = s["value"].as_str().unwrap().parse().unwrap();
            let p = &s["proof"];
            assert_eq!(p["value"].as_u64(), Some(value));
            assert_eq!(p["next"].as_u64(), Some(value + 1));
            assert_eq!(
                (p["fits"].as_bool(), p["next_fits"].as_bool()),
                (Some(true), Some(false))
            );
            assert!(p["total_bytes"].as_u64() <= p["usable_bytes"].as_u64());
            assert_eq!(p["trainer"], trainer);
        }
        let text = fitcard(&["solve", &q, "--for", "seq"]);
        let out = String::from_utf8_lossy(&text.stdout);
        assert!(out.starts_with("seq    sequences up to "), "{out}");
        assert!(
            out.contains("does not fit") && out.contains(trainer),
            "{out}"
        );
    }
    // Serve targets keep their shape; the proof is an addition, absent for cards and gpu.
    let v = json(&fitcard(&["solve", "model=Qwen/Qwen3-8B", "--json"]));
    assert!(v[1]["proof"]["next_fits"] == false);
    assert!(v[1]["proof"].get("trainer").is_none());
    assert!(v[2].get("proof").is_none() && v[3].get("proof").is_none());
}

/// `fitcard measure`: the fit in full (slope, R², residual per point, the catalog's assumption,
/// the `gl=` key to apply), a point off the line refused by name, and `--how` for the loop.
#[test]
fn measure_shows_its_work() {
    let args = [
        "measure",
        "model=google/gemma-3-27b-it&kv=f16",
        "8192:20",
        "16384:20.625",
        "32768:21.875",
        "65536:24.375",
    ];
    let v = json(&fitcard(&[&args[..], &["--json"]].concat()));
    assert!((v["r2"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    assert_eq!(v["gl"], "gl=10");
    assert_eq!(v["points"].as_array().unwrap().len(), 4);
    assert!(v["comparison"].as_str().unwrap().contains("they agree"));
    assert!(v["off_line"].is_null());
    let out = fitcard(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("R² 1.0000") && text.contains("&gl=10"),
        "{text}"
    );
    assert_eq!(text.matches(" tokens: ").count(), 4, "{text}");
    let out = fitcard(&[
        "measure",
        "model=google/gemma-3-27b-it&kv=f16",
        "8192:20",
        "16384:20.625",
        "32768:22.875",
        "65536:24.375",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("point at 32768 tokens") && err.contains("something else is active here"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    let how = fitcard(&[
        "measure",
        "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpu=h100-sxm",
        "--how",
    ]);
    assert_eq!(how.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&how.stdout).contains("--max-num-seqs 1"));
}

/// `fitcard measure` refuses readings taken with more than one slot (each slot multiplies the
/// slope).
#[test]
fn measure_refuses_concurrency() {
    let out = fitcard(&[
        "measure",
        "model=google/gemma-3-27b-it&par=2",
        "8192:20",
        "16384:20.625",
        "32768:21.875",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("concurrency pinned to 1"));
}

/// `--file PATH` estimates a local GGUF from its header (a header-only fixture of
/// Llama-3.2-1B F16, written by the GGUF specification): its KV cache is the catalog's 128 MiB
/// at 4096 tokens, and the command loads the file by path. Bad files exit 2 with one line.
#[test]
fn estimate_a_local_gguf() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/llama-3.2-1b-f16-header.gguf"
    );
    let v = json(&fitcard(&[
        "estimate", "ctx=4096", "--file", path, "--json",
    ]));
    let kv = v["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "kv_cache")
        .unwrap();
    assert_eq!(kv["bytes"], 128 << 20);
    assert_eq!(v["quant"], "F16");
    assert!(v["command"]
        .as_str()
        .unwrap()
        .contains(&format!("-m {path}")));
    for bad in [
        "/nonexistent/x.gguf",
        concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
    ] {
        let out = fitcard(&["estimate", "--file", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    }
}

/// `--file DIR`: a Hugging Face checkpoint folder (config.json and a header-only safetensors
/// fixture of Qwen3-0.6B): the KV cache follows the config.
#[test]
fn estimate_a_checkpoint_folder() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/Qwen3-0.6B");
    let v = json(&fitcard(&[
        "estimate",
        "engine=transformers&ctx=8192&kv=bf16",
        "--file",
        dir,
        "--json",
    ]));
    let kv = v["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "kv_cache")
        .unwrap();
    // 28 layers × 8192 tokens × 2 × 8 KV heads × 128 × 2 B.
    assert_eq!(kv["bytes"], 28 * 8192 * 2 * 8 * 128 * 2);
    assert_eq!(v["quant"], "BF16");
}

/// `fitcard inspect` reads headers only: the architecture, the format and the bytes per tensor
/// type (a GGUF file and a checkpoint folder); a missing file exits 2 with one line.
#[test]
fn inspect_prints_the_header() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let g = json(&fitcard(&[
        "inspect",
        &format!("{dir}/llama-3.2-1b-f16-header.gguf"),
        "--json",
    ]));
    assert_eq!(
        (
            &g["arch"]["layers"],
            &g["arch"]["kv_heads"],
            &g["format"]["id"]
        ),
        (&16.into(), &8.into(), &"F16".into())
    );
    let rows = g["tensor_types"].as_array().unwrap();
    let f16 = rows
        .iter()
        .find(|r| r["type"] == "f16")
        .expect("f16 tensors");
    // The fixture's one tensor: token_embd, 2048 × 128256 at 2 bytes.
    assert_eq!(f16["bytes"], 2 * 2048 * 128_256);
    let text = fitcard(&["inspect", &format!("{dir}/Qwen3-0.6B")]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("layers 28") && text.contains("BF16"),
        "{text}"
    );
    let missing = fitcard(&["inspect", &format!("{dir}/no-such.gguf")]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&missing.stderr).lines().count(), 1);
}

/// `best` never uses the default model, so an engine that model has no files for (MLX) is no
/// reason to refuse; a bad engine still is, naming every engine; `measure --how --json` is JSON.
#[test]
fn best_on_mlx_and_measure_how_as_json() {
    let v = json(&fitcard(&["best", "engine=mlx&gpu=m4-max-128gb", "--json"]));
    let rows = v["rows"].as_array().or(v.as_array()).expect("best rows");
    assert!(!rows.is_empty(), "{v}");
    let out = fitcard(&["best", "engine=bogus"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("mlx") && !err.contains("Mlx"), "{err}");
    let out = fitcard(&["estimate", "model=google/gemma-3-12b-it&engine=mlx"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no MLX files"), "{err}");
    let how = json(&fitcard(&[
        "measure",
        "model=google/gemma-3-27b-it&kv=f16",
        "--how",
        "--json",
    ]));
    assert!(how["script"].as_str().unwrap().contains("llama-server"));
    assert_eq!(how["engine"], "llama.cpp");
}

/// The usage text names every key the query string reads (`Key::ALL`).
#[test]
fn usage_names_every_query_key() {
    let out = fitcard(&[]);
    let usage = String::from_utf8_lossy(&out.stderr);
    let words: Vec<&str> = usage
        .split(|c: char| c.is_whitespace() || c == '|')
        .collect();
    for k in fitcard_estimator::inputs::Key::ALL {
        assert!(words.contains(&k.id()), "the usage text lacks {k}");
    }
}

/// The README's query-string table names every key the decoder reads (but `v`, said above it).
#[test]
fn readme_table_names_every_query_key() {
    let readme = include_str!("../../../README.md");
    let table = &readme[readme.find("## The query string").unwrap()..];
    for k in fitcard_estimator::inputs::Key::ALL
        .iter()
        .filter(|k| **k != fitcard_estimator::inputs::Key::V)
    {
        assert!(
            table.contains(&format!("`{k}`")),
            "the README's key table lacks {k}"
        );
    }
}

/// Flags may stand anywhere and take `=`: `solve --for=ctx '<query>'` is `solve '<query>' --for
/// ctx`; a word that only looks like a flag stays a word (`--png` is refused with the usage text).
#[test]
fn flags_stand_anywhere() {
    let q = "model=Qwen/Qwen3-8B";
    let a = fitcard(&["solve", q, "--for", "ctx", "--json"]);
    let b = fitcard(&["--json", "solve", "--for=ctx", q]);
    assert_eq!(json(&a), json(&b));
    let png = fitcard(&["frontier", q, "--png"]);
    assert_eq!(png.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&png.stderr).contains("usage: fitcard"));
}

// Any format of any variant: a format the catalog lists no file of is sized by the size rule
// (`catalog::size_rule`) and estimated as a `computed` format, with no invented repo; a format
// without a rule is refused naming the closest ones. Each of the four queries below is checked
// against a publicly printed size of that file where one could be found.

/// `fitcard estimate <query> --json`, its `format` object checked to be a computed one without
/// a repo; its bytes.
fn computed_bytes(query: &str, id: &str, container: &str) -> (u64, serde_json::Value) {
    let v = json(&fitcard(&["estimate", query, "--json"]));
    let f = &v["format"];
    assert_eq!(f["id"], id, "{query}");
    assert_eq!(f["container"], container, "{query}");
    assert_eq!(f["size"], "computed", "{query}");
    assert_eq!(f["repo"], "", "{query}: no repo is invented");
    assert_eq!(f["file"], "", "{query}");
    assert_eq!(v["quant"], id, "{query}: no fallback to another format");
    assert!(v["notices"].as_array().unwrap().is_empty(), "{query}");
    let command = v["command"].as_str().unwrap();
    assert!(
        command.contains("pick one from https://huggingface.co/models?other=base_model:quantized:"),
        "{command}"
    );
    (f["bytes"].as_u64().unwrap(), v)
}

fn within(got: u64, published: f64, tolerance: f64) -> bool {
    (got as f64 / published - 1.0).abs() <= tolerance
}

#[test]
fn gemma_3_27b_q4_0() {
    let (bytes, v) = computed_bytes("model=google/gemma-3-27b-it&quant=Q4_0", "Q4_0", "gguf");
    // No listing of unsloth/gemma-3-27b-it-GGUF's Q4_0 was found. The plain llama.cpp Q4_0 mix
    // of the same tensors (every matrix Q4_0, the tied embedding at Q6_K, no imatrix Q4_1) is
    // printed at 15.6 GB for the static Q4_0 of the QAT checkpoint (same shapes):
    // https://huggingface.co/stduhpf/google-gemma-3-27b-it-qat-q4_0-gguf-small (model card
    // table, "15.6 GB"). Tolerance 1 %: the print's rounding (±0.05 GB) is 0.3 %.
    assert!(within(bytes, 15.6e9, 0.01), "{bytes}");
    let command = v["command"].as_str().unwrap();
    assert!(
        command.contains("llama-server -m ./gemma-3-27b-it-Q4_0.gguf"),
        "{command}"
    );
    assert!(!command.contains("-hf "), "{command}");
}

#[test]
fn qwen3_8b_nvfp4() {
    let (bytes, v) = computed_bytes(
        "model=Qwen/Qwen3-8B&quant=NVFP4&engine=vllm",
        "NVFP4",
        "safetensors",
    );
    // No published size of an NVFP4 checkpoint of Qwen3-8B (nvidia/Qwen3-8B-NVFP4,
    // RedHatAI) was found, so none is asserted. The figure is checked against the layout
    // alone: 36 layers × 192,937,984 linear weights (config.json,
    // https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json) at 4.5 bits (E2M1 + an FP8
    // scale per 16) plus the BF16 embedding and lm_head (2 × 151,936 × 4,096 × 2 bytes).
    let linear = 36.0 * 192_937_984.0 * 0.5625;
    let embeddings = 2.0 * 151_936.0 * 4_096.0 * 2.0;
    assert!(within(bytes, linear + embeddings, 0.001), "{bytes}");
    assert!(v["command"]
        .as_str()
        .unwrap()
        .contains("vllm serve ./Qwen3-8B-NVFP4"));
}

#[test]
fn qwen3_0_6b_gptq_int8() {
    let (bytes, _) = computed_bytes(
        "model=Qwen/Qwen3-0.6B&quant=GPTQ-Int8&engine=vllm",
        "GPTQ-Int8",
        "safetensors",
    );
    // No published size of Qwen/Qwen3-0.6B-GPTQ-Int8 was found, so none is asserted. The
    // layout alone: 28 layers × 15,728,640 linear weights
    // (https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json) at 8 bits + an FP16
    // scale and an 8-bit zero per group of 128, plus the FP16 embedding and the lm_head these
    // checkpoints store (2 × 151,936 × 1,024 × 2 bytes); g_idx and norms are under 0.5 %.
    let linear = 28.0 * 15_728_640.0 * (1.0 + 3.0 / 128.0);
    let embeddings = 2.0 * 151_936.0 * 1_024.0 * 2.0;
    assert!(within(bytes, linear + embeddings, 0.005), "{bytes}");
}

#[test]
fn gpt_oss_20b_q4_k_m() {
    let (bytes, _) = computed_bytes("model=openai/gpt-oss-20b&quant=Q4_K_M", "Q4_K_M", "gguf");
    // https://huggingface.co/unsloth/gpt-oss-20b-GGUF/blob/main/gpt-oss-20b-Q4_K_M.gguf:
    // 11,624,759,488 bytes (the Hub's byte count as a public app's model list copies it). The
    // experts stay MXFP4 in every mix; only attention, embeddings and output follow Q4_K_M.
    assert!(within(bytes, 11_624_759_488.0, 0.005), "{bytes}");
}

#[test]
fn a_format_without_a_rule_is_refused_naming_the_closest() {
    let out = fitcard(&["estimate", "model=Qwen/Qwen3-8B&quant=UD-Q4_K_XL"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("quant") && err.contains("unpublished"),
        "{err}"
    );
    assert!(err.contains("Q4_K_M"), "{err}");
    // A format of another container: named, with the engine's closest ones.
    let out = fitcard(&["estimate", "model=Qwen/Qwen3-8B&quant=NVFP4"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("safetensors format") && err.contains("Q4_K_M"),
        "{err}"
    );
}

#[test]
fn rank_solve_and_badge_use_the_computed_format() {
    let q = "model=google/gemma-3-27b-it&quant=Q4_0&vram=24";
    let r = json(&fitcard(&["rank", q, "--json"]));
    let q4_0: Vec<_> = r
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["quant"] == "Q4_0")
        .map(|c| c["model"].as_str().unwrap().to_string())
        .collect();
    // Every Gemma 3 variant gets the computed format.
    assert!(q4_0.len() >= 4, "{q4_0:?}");
    assert!(q4_0.iter().any(|m| m == "google/gemma-3-27b-it"));
    let s = json(&fitcard(&["solve", q, "--for", "ctx", "--json"]));
    assert_eq!(s[0]["target"], "ctx");
    let b = fitcard(&["badge", "model=openai/gpt-oss-20b&quant=Q4_K_M"]);
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    assert!(String::from_utf8_lossy(&b.stdout).starts_with("<svg"));
}
