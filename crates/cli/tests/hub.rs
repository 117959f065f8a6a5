//! The CLI reading the Hub, against the stand-in Hub on 127.0.0.1 (crates/standin, the one the
//! page's import tests start; no network at test time):
//! a GGUF repo and a checkpoint repo the catalog lacks are estimated from their headers, the
//! cache answers `--offline`, and every hostile answer (a missing or gated repo, HTML for
//! JSON, a redirect to another host, an endless body, a slow drip, a body shorter than its
//! length, a server error) is one line with exit code 2 (the input) or 3 (the network).

use fitcard_standin::repos::{self, Repo};
use fitcard_standin::server::{ok, redirect, status, Answer, StandIn, SHA};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// The model info of a repo holding `files` (name, size).
fn info(files: &[(&str, u64)], gated: bool) -> Answer {
    info_card(files, gated, "{}")
}

/// [`info`] with a model card's metadata (`cardData`): the stand-in's own model info.
fn info_card(files: &[(&str, u64)], gated: bool, card: &str) -> Answer {
    let mut r = Repo::of(files.iter().map(|&(n, s)| (n, s, None)).collect());
    r.gated = gated.then_some("auto");
    r.card = Some(card.to_string());
    fitcard_standin::server::json(repos::info("x", &r))
}

/// The listed size of the stand-in GGUF (Llama 3.2 1B's F16 file; the header is what is read).
const GGUF_BYTES: u64 = 2_479_595_136;

/// The stand-in Hub: every repo the tests read.
fn hub(cdn: Option<&str>) -> StandIn {
    let mut r = HashMap::new();
    let gguf = "Llama-3.2-1B-F16.gguf";
    r.insert(
        "/api/models/fx/Tiny-GGUF?blobs=true".into(),
        info(&[(gguf, GGUF_BYTES), ("README.md", 10)], false),
    );
    r.insert(
        format!("/fx/Tiny-GGUF/resolve/{SHA}/{gguf}"),
        ok(data("llama-3.2-1b-f16-header.gguf")),
    );
    let config = data("Qwen3-0.6B/config.json");
    r.insert(
        "/api/models/fx/Tiny-Checkpoint?blobs=true".into(),
        info(
            &[
                ("config.json", config.len() as u64),
                ("model.safetensors", 1_503_300_328),
            ],
            false,
        ),
    );
    r.insert(
        format!("/fx/Tiny-Checkpoint/resolve/{SHA}/config.json"),
        ok(config),
    );
    r.insert(
        format!("/fx/Tiny-Checkpoint/resolve/{SHA}/model.safetensors"),
        ok(data("Qwen3-0.6B/model.safetensors")),
    );
    r.insert(
        "/api/models/fx/Gone?blobs=true".into(),
        status(404, Some("RepoNotFound")),
    );
    r.insert(
        "/api/models/fx/Gated?blobs=true".into(),
        info(&[(gguf, GGUF_BYTES)], true),
    );
    // The gated repo's file is on a file host when the token is right.
    let file = format!("/fx/Gated/resolve/{SHA}/{gguf}");
    r.insert(
        file,
        match cdn {
            Some(c) => redirect(&format!("{c}/blob/{gguf}")),
            None => status(401, Some("GatedRepo")),
        },
    );
    r.insert(
        "/api/models/fx/Html?blobs=true".into(),
        ok("<!doctype html><p>Sign in"),
    );
    r.insert(
        "/api/models/fx/Away?blobs=true".into(),
        redirect("http://127.0.0.2:9/api"),
    );
    r.insert("/api/models/fx/Endless?blobs=true".into(), Answer::Endless);
    r.insert("/api/models/fx/Drip?blobs=true".into(), Answer::Drip);
    r.insert("/api/models/fx/Broken?blobs=true".into(), status(503, None));
    r.insert(
        "/api/models/fx/Short-GGUF?blobs=true".into(),
        info(&[(gguf, GGUF_BYTES)], false),
    );
    r.insert(
        format!("/fx/Short-GGUF/resolve/{SHA}/{gguf}"),
        Answer::Short(data("llama-3.2-1b-f16-header.gguf")[..100].to_vec()),
    );
    // The base release of a catalog chat model, gated.
    r.insert(
        "/api/models/meta-llama/Llama-2-7b-hf?blobs=true".into(),
        status(401, Some("GatedRepo")),
    );
    // Derivatives of a catalog model: a fine-tune and a quantized copy (by name).
    let base = r#"{"base_model":["meta-llama/Llama-3.2-1B-Instruct"]}"#;
    for repo in ["Tiny-Finetune-GGUF", "Llama-3.2-1B-Instruct-GGUF"] {
        r.insert(
            format!("/api/models/fx/{repo}?blobs=true"),
            info_card(&[(gguf, GGUF_BYTES)], false, base),
        );
        r.insert(
            format!("/fx/{repo}/resolve/{SHA}/{gguf}"),
            ok(data("llama-3.2-1b-f16-header.gguf")),
        );
    }
    StandIn::start(r)
}

/// A fresh cache folder.
fn cache(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hub-cache")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run the CLI against `endpoint` with the cache `cache` and extra `env`; fail past 30 s.
fn fitcard(endpoint: &str, cache: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fitcard"));
    c.args(args)
        .env("HF_ENDPOINT", endpoint)
        .env("XDG_CACHE_HOME", cache)
        .env_remove("HF_TOKEN")
        .env_remove("FITCARD_HUB_CDN")
        .env("HF_HUB_DOWNLOAD_TIMEOUT", "3")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "fitcard {args:?} did not finish in 30 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A refusal: exit `code`, one line on stderr holding `want`.
fn refused(out: &Output, code: i32, want: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(want), "{err:?} lacks {want:?}");
}

fn json(out: &Output) -> serde_json::Value {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A GGUF repo the catalog lacks is estimated from its header: the weights are the listed file,
/// the command names the repo and the file, and `rank` ranks it; then the cache answers offline,
/// with the stand-in gone.
#[test]
fn a_gguf_repo_is_read_then_cached() {
    let h = hub(None);
    let dir = cache("gguf");
    let q = "model=fx/Tiny-GGUF&quant=F16&ctx=4096&engine=llama.cpp";
    let e = json(&fitcard(&h.base, &dir, &[], &["estimate", q, "--json"]));
    assert_eq!(e["model"], "fx/Tiny-GGUF");
    assert_eq!(e["format"]["bytes"], GGUF_BYTES);
    assert_eq!(e["format"]["file"], "Llama-3.2-1B-F16.gguf");
    let cmd = e["command"].as_str().unwrap();
    assert!(
        cmd.contains("fx/Tiny-GGUF") && cmd.contains("-np 1"),
        "{cmd}"
    );
    // Llama 3.2 1B: 16 layers × 8 KV heads × 64 × 2 (K, V) × 2 B × 4096 cells.
    let kv = e["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "kv_cache")
        .unwrap();
    assert_eq!(kv["bytes"], 16 * 8 * 64 * 2 * 2 * 4096);
    let asked = h.seen().len();
    assert!(asked >= 2, "{:?}", h.seen());
    // Offline: the cache (one per Hub), no request.
    let off = json(&fitcard(
        &h.base,
        &dir,
        &[],
        &["estimate", q, "--json", "--offline"],
    ));
    assert_eq!(off["terms"], e["terms"]);
    assert_eq!(h.seen().len(), asked, "{:?}", h.seen());
    // Online again: the model info names the same commit, so the headers are not read again.
    let again = json(&fitcard(&h.base, &dir, &[], &["rank", q, "--json"]));
    assert!(again.as_array().is_some_and(|r| !r.is_empty()), "{again}");
    assert_eq!(h.seen().len(), asked + 1, "{:?}", h.seen());
}

/// A checkpoint repo for vLLM: config.json and the shard's header, the listed bytes.
#[test]
fn a_checkpoint_repo_is_read_for_vllm() {
    let h = hub(None);
    let q = "model=fx/Tiny-Checkpoint&engine=vllm&ctx=4096";
    let e = json(&fitcard(
        &h.base,
        &cache("ckpt"),
        &[],
        &["estimate", q, "--json"],
    ));
    assert_eq!(e["format"]["id"], "BF16");
    assert_eq!(e["format"]["bytes"], 1_503_300_328u64);
    assert!(
        e["command"]
            .as_str()
            .unwrap()
            .contains("vllm serve fx/Tiny-Checkpoint"),
        "{}",
        e["command"]
    );
}

/// Every command that takes a model reads it: badge, solve, frontier.
#[test]
fn every_model_command_reads_the_hub() {
    let h = hub(None);
    let dir = cache("commands");
    let q = "model=fx/Tiny-GGUF&quant=F16&ctx=4096";
    for args in [
        vec!["badge", q],
        vec!["solve", q, "--for", "ctx"],
        vec!["frontier", q],
    ] {
        let out = fitcard(&h.base, &dir, &[], &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// What the input is to blame for: exit 2, one line.
#[test]
fn missing_gated_and_hostile_repos_are_the_inputs_fault() {
    let h = hub(None);
    let dir = cache("refused");
    let run = |repo: &str| fitcard(&h.base, &dir, &[], &["estimate", &format!("model={repo}")]);
    refused(
        &run("fx/Gone"),
        2,
        "fx/Gone was not found on the Hugging Face Hub",
    );
    refused(&run("fx/Gated"), 2, "fx/Gated is gated: set HF_TOKEN");
    refused(
        &run("fx/Html"),
        2,
        "the Hub's file list for fx/Html could not be read",
    );
    refused(&run("fx/Away"), 2, "outside the Hub and its file hosts");
    // 10 GB announced: at most the info's bound is read, then it is no JSON.
    refused(&run("fx/Endless"), 2, "could not be read");
}

/// What the network is to blame for: exit 3, one line, within the timeout.
#[test]
fn timeouts_errors_and_offline_misses_are_the_networks_fault() {
    let h = hub(None);
    let dir = cache("network");
    let t0 = Instant::now();
    refused(
        &fitcard(&h.base, &dir, &[], &["estimate", "model=fx/Drip"]),
        3,
        "did not",
    );
    assert!(t0.elapsed() < Duration::from_secs(15), "{:?}", t0.elapsed());
    refused(
        &fitcard(&h.base, &dir, &[], &["estimate", "model=fx/Broken"]),
        3,
        "HTTP 503",
    );
    refused(
        &fitcard(
            &h.base,
            &dir,
            &[],
            &["estimate", "model=fx/Short-GGUF&quant=F16"],
        ),
        3,
        "cut short",
    );
    refused(
        &fitcard(
            "http://127.0.0.1:9",
            &dir,
            &[],
            &["estimate", "model=fx/Tiny-GGUF"],
        ),
        3,
        "could not be reached",
    );
    refused(
        &fitcard(
            &h.base,
            &dir,
            &[],
            &["estimate", "model=fx/Tiny-GGUF", "--offline"],
        ),
        3,
        "not in the cache (--offline)",
    );
}

/// With HF_TOKEN a gated repo is read: the token goes to the Hub, never to its file host.
#[test]
fn a_token_reads_a_gated_repo_and_stays_on_the_hub() {
    let mut r = HashMap::new();
    r.insert(
        "/blob/Llama-3.2-1B-F16.gguf".to_string(),
        ok(data("llama-3.2-1b-f16-header.gguf")),
    );
    let cdn = StandIn::start(r);
    let h = hub(Some(&cdn.base));
    let env = [
        ("HF_TOKEN", "hf_test"),
        ("FITCARD_HUB_CDN", cdn.base.as_str()),
    ];
    let e = json(&fitcard(
        &h.base,
        &cache("gated"),
        &env,
        &["estimate", "model=fx/Gated&quant=F16", "--json"],
    ));
    assert_eq!(e["model"], "fx/Gated");
    assert!(
        h.seen()
            .iter()
            .all(|(_, a)| a.as_deref() == Some("Bearer hf_test")),
        "{:?}",
        h.seen()
    );
    assert!(
        !cdn.seen().is_empty() && cdn.seen().iter().all(|(_, a)| a.is_none()),
        "{:?}",
        cdn.seen()
    );
    // Without the stand-in's file host listed, the redirect is refused.
    let env = [("HF_TOKEN", "hf_test")];
    let out = fitcard(
        &h.base,
        &cache("gated2"),
        &env,
        &["estimate", "model=fx/Gated&quant=F16"],
    );
    refused(&out, 2, "outside the Hub and its file hosts");
}

/// A cache entry that is not what was written (garbage, a folder, a link) is a miss, never a
/// panic.
#[test]
fn a_broken_cache_is_a_miss() {
    let h = hub(None);
    let dir = cache("broken");
    let q = "model=fx/Tiny-GGUF&quant=F16";
    json(&fitcard(&h.base, &dir, &[], &["estimate", q, "--json"]));
    let repo = dir.join("fitcard/hub");
    let mut entries = Vec::new();
    let mut stack = vec![repo];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else if e.path().extension().is_some_and(|x| x == "json") {
                entries.push(e.path());
            }
        }
    }
    assert_eq!(entries.len(), 1, "{entries:?}");
    std::fs::write(&entries[0], b"{not json").unwrap();
    refused(
        &fitcard(&h.base, &dir, &[], &["estimate", q, "--offline"]),
        3,
        "not in the cache",
    );
    // Online, the broken entry is read again from the Hub.
    json(&fitcard(&h.base, &dir, &[], &["estimate", q, "--json"]));
    let mut bytes = Vec::new();
    std::fs::File::open(&entries[0])
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    assert!(bytes.starts_with(b"{\""), "rewritten");
}

/// `inspect hf://org/name` (or `org/name` where no such path exists) reads the repo's headers:
/// the architecture, the format read, the commit and every format of the repo.
#[test]
fn inspect_reads_a_repo() {
    let h = hub(None);
    let dir = cache("inspect");
    let j = json(&fitcard(
        &h.base,
        &dir,
        &[],
        &["inspect", "hf://fx/Tiny-GGUF", "--json"],
    ));
    assert_eq!(j["arch"]["layers"], 16);
    assert_eq!(j["format"]["id"], "F16");
    assert_eq!(j["rev"], SHA);
    assert_eq!(j["formats"].as_array().map(Vec::len), Some(1));
    let out = fitcard(&h.base, &dir, &[], &["inspect", "fx/Tiny-GGUF"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("layers 16") && text.contains(SHA), "{text}");
    refused(
        &fitcard(&h.base, &dir, &[], &["inspect", "hf://fx/Gone"]),
        2,
        "not found",
    );
}

/// A repo id the Hub does not have is the input's fault (exit 2), as a model name that is no
/// repo id is.
#[test]
fn a_repo_the_hub_lacks_exits_2() {
    let h = hub(None);
    refused(
        &fitcard(
            &h.base,
            &cache("lacks"),
            &[],
            &["estimate", "model=acme/nope", "--json"],
        ),
        2,
        "acme/nope was not found",
    );
}

/// A repo whose model card names a catalog model as its base is labelled by it: a fine-tune
/// borrows the base's capability marked ≈; a quantized copy (its name holds the base's) is the
/// base's model.
#[test]
fn derivatives_follow_their_base() {
    let h = hub(None);
    let dir = cache("derived");
    let j = json(&fitcard(
        &h.base,
        &dir,
        &[],
        &["inspect", "hf://fx/Tiny-Finetune-GGUF", "--json"],
    ));
    let name = j["name"].as_str().unwrap();
    assert!(name.contains("fine-tune of Llama 3.2 1B"), "{name}");
    assert!(
        j["capability_basis"]
            .as_str()
            .unwrap()
            .contains("meta-llama/Llama-3.2-1B-Instruct"),
        "{j}"
    );
    let j = json(&fitcard(
        &h.base,
        &dir,
        &[],
        &["inspect", "hf://fx/Llama-3.2-1B-Instruct-GGUF", "--json"],
    ));
    assert!(
        j["name"]
            .as_str()
            .unwrap()
            .contains("(quantized Llama 3.2 1B"),
        "{}",
        j["name"]
    );
    // A repo without a catalog base keeps its own name.
    let j = json(&fitcard(
        &h.base,
        &dir,
        &[],
        &["inspect", "hf://fx/Tiny-GGUF", "--json"],
    ));
    assert_eq!(j["name"], "Tiny-GGUF (imported)");
}

/// A base release the Hub cannot give (gated without a token, or no network) whose instruct
/// sibling is in the catalog is estimated with the sibling's architecture, its checkpoint
/// pointed at the repo asked for; a repo the Hub says does not exist is never stood in for.
#[test]
fn a_gated_or_unreachable_base_release_takes_its_siblings_shapes() {
    let h = hub(None);
    let dir = cache("sibling");
    let q = "model=meta-llama/Llama-2-7b-hf&engine=vllm&ctx=4096";
    let e = json(&fitcard(&h.base, &dir, &[], &["estimate", q, "--json"]));
    assert_eq!(e["model"], "meta-llama/Llama-2-7b-hf");
    assert_eq!(e["format"]["size"], "computed");
    assert!(
        e["command"]
            .as_str()
            .unwrap()
            .contains("vllm serve meta-llama/Llama-2-7b-hf"),
        "{}",
        e["command"]
    );
    // The chat release's KV: 32 layers × 32 KV heads × 128 × 2 × 2 B per token.
    let chat = json(&fitcard(
        &h.base,
        &dir,
        &[],
        &[
            "estimate",
            "model=meta-llama/Llama-2-7b-chat-hf&engine=vllm&ctx=4096",
            "--json",
        ],
    ));
    assert_eq!(e["format"]["bytes"], chat["format"]["bytes"]);
    // No network at all: the same.
    let off = json(&fitcard(
        "http://127.0.0.1:9",
        &dir,
        &[],
        &[
            "estimate",
            "model=mistralai/Mistral-7B-v0.3&engine=vllm",
            "--json",
        ],
    ));
    assert_eq!(off["model"], "mistralai/Mistral-7B-v0.3");
    // A repo the Hub does not have is not stood in for.
    let mut r = HashMap::new();
    r.insert(
        "/api/models/meta-llama/Llama-2-7b-hf?blobs=true".to_string(),
        status(404, Some("RepoNotFound")),
    );
    let gone = StandIn::start(r);
    refused(
        &fitcard(&gone.base, &cache("sibling2"), &[], &["estimate", q]),
        2,
        "was not found",
    );
}

/// `fitcard catalog refresh` against the stand-in: the vendor checkpoint's size and config
/// link pinned to the commit, a listed GGUF's size updated, a new format added, another
/// publisher's file left alone, a hostile answer reported in one line (exit 2) with the rest
/// still written; a second run changes nothing.
#[test]
fn a_refresh_pins_the_catalog_to_the_hubs_commit() {
    let mut r = HashMap::new();
    let config = data("Qwen3-0.6B/config.json");
    r.insert(
        "/api/models/Qwen/Qwen3-0.6B?blobs=true".to_string(),
        info(
            &[
                ("config.json", config.len() as u64),
                ("model.safetensors", 1_503_300_328),
            ],
            false,
        ),
    );
    r.insert(
        format!("/Qwen/Qwen3-0.6B/resolve/{SHA}/config.json"),
        ok(config),
    );
    r.insert(
        "/api/models/bartowski/Qwen_Qwen3-0.6B-GGUF?blobs=true".to_string(),
        info(
            &[
                ("Qwen_Qwen3-0.6B-Q4_K_M.gguf", 484_220_320),
                ("Qwen_Qwen3-0.6B-IQ4_XS.gguf", 400_123_456),
                ("README.md", 10),
            ],
            false,
        ),
    );
    r.insert(
        "/api/models/fx/Other-GGUF?blobs=true".to_string(),
        info(&[("Qwen3-0.6B-Q8_0.gguf", 1)], false),
    );
    r.insert(
        "/api/models/fx/Html?blobs=true".to_string(),
        ok("<!doctype html><p>Sign in"),
    );
    let h = StandIn::start(r);
    let dir = cache("refresh");
    let families = dir.join("families");
    std::fs::create_dir_all(&families).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../estimator/data/families/qwen3.json");
    let before = std::fs::read_to_string(&src).unwrap();
    let file = families.join("qwen3.json");
    std::fs::write(&file, &before).unwrap();
    let list = dir.join("repos.toml");
    let write_list = |quantized: &str| {
        std::fs::write(
            &list,
            format!(
                "[[family]]\nid = \"qwen3\"\ncapability = \"https://example.org/no-such-table\"\n\
                 [[family.variant]]\nid = \"Qwen/Qwen3-0.6B\"\nquantized = [{quantized}]\n\
                 [[family.variant]]\nid = \"Qwen/Qwen3-999B\"\n"
            ),
        )
        .unwrap()
    };
    write_list(r#""bartowski/Qwen_Qwen3-0.6B-GGUF", "fx/Other-GGUF", "fx/Html""#);
    let args = [
        "catalog",
        "refresh",
        list.to_str().unwrap(),
        families.to_str().unwrap(),
    ];
    let out = fitcard(&h.base, &dir, &[], &args);
    refused(&out, 2, "fx/Html");
    let report = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        report.starts_with("catalog refresh: 4 changes, 2 to review, 1 repo not read"),
        "{report}"
    );
    assert!(
        report.contains("review: qwen3: the capability basis does not name"),
        "{report}"
    );
    assert!(
        report.contains("review: qwen3: Qwen/Qwen3-999B is not in the family file"),
        "{report}"
    );

    // What the file says now: exactly the old file with these values set.
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut want: serde_json::Value = serde_json::from_str(&before).unwrap();
    let v = want["variants"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|v| v["id"] == "Qwen/Qwen3-0.6B")
        .unwrap();
    let pinned = v["arch"]["source"].as_str().unwrap().replace(
        "Qwen/Qwen3-0.6B/blob/main/config.json",
        &format!("Qwen/Qwen3-0.6B/blob/{SHA}/config.json"),
    );
    v["arch"]["source"] = pinned.into();
    let formats = v["formats"].as_array_mut().unwrap();
    for f in formats.iter_mut() {
        let key = (f["id"].as_str().unwrap(), f["container"].as_str().unwrap());
        let (bytes, source) = match key {
            ("BF16", "safetensors") => (
                1_503_300_328u64,
                format!("https://huggingface.co/Qwen/Qwen3-0.6B/tree/{SHA}: 1 .safetensors file of 1503300328 bytes together in the Hub's file listing at that commit (read by fitcard catalog refresh)"),
            ),
            ("Q4_K_M", "gguf") => (
                484_220_320,
                format!("https://huggingface.co/bartowski/Qwen_Qwen3-0.6B-GGUF/blob/{SHA}/Qwen_Qwen3-0.6B-Q4_K_M.gguf: 484220320 bytes in the Hub's file listing at that commit (read by fitcard catalog refresh)"),
            ),
            _ => continue,
        };
        f["bytes"] = bytes.into();
        f["size"] = "exact".into();
        f["source"] = source.into();
    }
    // Where its precision puts it: after Q4_K_M, the last of the catalog's rows above it.
    let at = formats
        .iter()
        .position(|f| f["id"] == "Q4_K_M" && f["container"] == "gguf")
        .unwrap()
        + 1;
    formats.insert(at, serde_json::json!({
        "id": "IQ4_XS", "container": "gguf", "bytes": 400_123_456u64, "size": "exact",
        "repo": "bartowski/Qwen_Qwen3-0.6B-GGUF", "file": "Qwen_Qwen3-0.6B-IQ4_XS.gguf",
        "source": format!("https://huggingface.co/bartowski/Qwen_Qwen3-0.6B-GGUF/blob/{SHA}/Qwen_Qwen3-0.6B-IQ4_XS.gguf: 400123456 bytes in the Hub's file listing at that commit (read by fitcard catalog refresh)"),
    }));
    assert_eq!(after, want);

    // Again, without the hostile repo: nothing to change, the file as it was.
    let written = std::fs::read(&file).unwrap();
    write_list(r#""bartowski/Qwen_Qwen3-0.6B-GGUF", "fx/Other-GGUF""#);
    let out = fitcard(&h.base, &dir, &[], &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("catalog refresh: 0 changes"));
    assert_eq!(std::fs::read(&file).unwrap(), written);

    // Offline, a bad list, a missing family file: one line each, exit 2.
    refused(
        &fitcard(&h.base, &dir, &[], &[&args[..], &["--offline"]].concat()),
        2,
        "--offline",
    );
    std::fs::write(&list, "[[family]]\nid = 3\n").unwrap();
    refused(&fitcard(&h.base, &dir, &[], &args), 2, "repos.toml");
    std::fs::write(
        &list,
        "[[family]]\nid = \"../x\"\ncapability = \"\"\nvariant = []\n",
    )
    .unwrap();
    refused(
        &fitcard(&h.base, &dir, &[], &args),
        2,
        "not a family file name",
    );
}

/// The page's fixture repos (the stand-in the page's import tests start,
/// crates/standin/src/page.rs) on a Hub whose files come from a file host on another port:
/// the CLI reads the same repos as the page does, headers only.
fn page_hub() -> (StandIn, StandIn) {
    use fitcard_standin::repos::{cdn, hub, Hosts};
    use fitcard_standin::server::Shared;
    let repos = fitcard_standin::page::repos();
    let log = Shared::default();
    let files = StandIn::on(0, cdn(&repos), "cdn:", log.clone()).unwrap();
    let hosts = Hosts {
        cdn: files.base.clone(),
        // Outside the Hub and its file host: never asked.
        away: "http://127.0.0.2:9".into(),
    };
    (
        StandIn::on(0, hub(&repos, &hosts, false), "", log).unwrap(),
        files,
    )
}

#[test]
fn the_pages_fixture_repos_read_in_the_cli() {
    let (h, files) = page_hub();
    let dir = cache("page");
    let env = [("FITCARD_HUB_CDN", files.base.as_str())];
    let run = |q: &str| fitcard(&h.base, &dir, &env, &["estimate", q, "--json"]);
    // Two safetensors shards (the first header longer than a first read) and config.json.
    let e = json(&run("model=fx/Tiny-ST&ctx=4096&engine=vllm"));
    assert_eq!(e["format"]["bytes"], 2_471_000_000u64, "{e}");
    assert!(e["command"]
        .as_str()
        .unwrap()
        .contains("vllm serve fx/Tiny-ST "));
    // A GGUF header with a 1.3 MB tokenizer; FP8 weights beside GGUF files.
    let e = json(&run(
        "model=fx/Tiny-GGUF&quant=Q4_K_M&ctx=4096&engine=llama.cpp",
    ));
    assert_eq!(e["format"]["bytes"], 4_920_000_000u64, "{e}");
    assert!(e["command"]
        .as_str()
        .unwrap()
        .contains("-hf fx/Tiny-GGUF:Q4_K_M"));
    let e = json(&run("model=fx/Both&quant=FP8&ctx=4096&engine=vllm"));
    assert_eq!(e["format"]["bytes"], 1_500_000_000u64, "{e}");
    assert!(
        files.sent() < 8_000_000,
        "{} bytes sent: headers only",
        files.sent()
    );
    let seen = h.seen();
    assert!(
        seen.iter().all(|(p, _)| !p.contains("consolidated")),
        "{seen:?}"
    );
    for (repo, code, said) in [
        ("fx/Locked-GGUF", 2, "gated"),
        ("fx/Cut-GGUF", 3, "cut short"),
        (
            "fx/Away-GGUF",
            2,
            "went to http://127.0.0.2:9, outside the Hub",
        ),
    ] {
        let out = run(&format!(
            "model={repo}&quant=Q4_K_M&ctx=4096&engine=llama.cpp"
        ));
        refused(&out, code, said);
    }
}
