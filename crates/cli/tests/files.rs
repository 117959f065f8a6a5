//! Hostile local files given to `inspect` and `estimate --file`: devices, FIFOs, symlinks,
//! bogus header lengths, terminal escapes in header strings, truncated files. Each answer is one
//! bounded line on stderr and exit code 2, at once (the command runs under a timeout), or a
//! clean answer.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Run the CLI; fail if it takes over 20 s (a FIFO or `/dev/zero` used to block or grow).
fn fitcard(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fitcard"))
        // No network at test time: a Hub repo would be asked of a port nobody listens on.
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("fitcard {args:?} did not finish in 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A refusal: exit code 2 and one line on stderr that contains `want`.
fn refused(args: &[&str], want: &str) -> String {
    let out = fitcard(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err:?} lacks {want:?}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
    err
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A safetensors file of `header` (its declared length `declared`, the real one if `None`).
fn safetensors(path: &Path, header: &str, declared: Option<u64>) {
    let mut b = declared
        .unwrap_or(header.len() as u64)
        .to_le_bytes()
        .to_vec();
    b.extend(header.as_bytes());
    b.extend([0u8; 64]);
    std::fs::write(path, b).unwrap();
}

/// A checkpoint folder with Qwen3-0.6B's config and the given shard headers.
fn checkpoint(name: &str, shards: &[(&str, &str, Option<u64>)]) -> PathBuf {
    let d = scratch(name);
    std::fs::copy(data("Qwen3-0.6B/config.json"), d.join("config.json")).unwrap();
    for (file, header, declared) in shards {
        safetensors(&d.join(file), header, *declared);
    }
    d
}

const TENSOR: &str =
    r#"{"model.embed_tokens.weight":{"dtype":"BF16","shape":[2],"data_offsets":[0,64]}}"#;

#[cfg(unix)]
#[test]
fn devices_fifos_and_directories_are_refused_before_they_are_opened() {
    let d = scratch("devices");
    let fifo = d.join("model.gguf");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for cmd in [&["inspect"][..], &["estimate", "--file"][..]] {
        let mut args = cmd.to_vec();
        args.push(fifo.to_str().unwrap());
        refused(&args, "is not a regular file");
    }
    refused(&["inspect", "/dev/zero"], "is not a regular file");
    // config.json symlinked to /dev/zero: its size reads 0, its bytes never end.
    let ck = checkpoint("zero-config", &[("model.safetensors", TENSOR, None)]);
    std::fs::remove_file(ck.join("config.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", ck.join("config.json")).unwrap();
    refused(
        &["inspect", ck.to_str().unwrap()],
        "config.json is not a regular file",
    );
    // A config.json that is a FIFO would block open() forever.
    std::fs::remove_file(ck.join("config.json")).unwrap();
    assert!(Command::new("mkfifo")
        .arg(ck.join("config.json"))
        .status()
        .unwrap()
        .success());
    refused(
        &["inspect", ck.to_str().unwrap()],
        "config.json is not a regular file",
    );
    // A shard that is a FIFO.
    let ck = checkpoint("fifo-shard", &[]);
    assert!(Command::new("mkfifo")
        .arg(ck.join("model.safetensors"))
        .status()
        .unwrap()
        .success());
    refused(
        &["inspect", ck.to_str().unwrap()],
        "\"model.safetensors\": is not a regular file",
    );
}

#[cfg(unix)]
#[test]
fn a_shard_reached_through_two_names_counts_once() {
    let ck = checkpoint("two-names", &[("model.safetensors", TENSOR, None)]);
    let one = fitcard(&["inspect", ck.to_str().unwrap(), "--json"]);
    std::os::unix::fs::symlink(ck.join("model.safetensors"), ck.join("again.safetensors")).unwrap();
    std::fs::hard_link(ck.join("model.safetensors"), ck.join("hard.safetensors")).unwrap();
    let two = fitcard(&["inspect", ck.to_str().unwrap(), "--json"]);
    let v = |o: &Output| -> serde_json::Value {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let (one, two) = (v(&one), v(&two));
    assert_eq!(two["format"]["bytes"], one["format"]["bytes"]);
    assert_eq!(two["tensor_types"], one["tensor_types"]);
}

#[test]
fn a_bogus_header_length_is_refused_before_it_is_read() {
    // Declares 99,999,999 bytes (under the cap) in a 200-byte file: refused from the size,
    // not after reading; over the cap: refused by the cap.
    let ck = checkpoint(
        "bogus-length",
        &[("model.safetensors", TENSOR, Some(99_999_999))],
    );
    refused(&["inspect", ck.to_str().unwrap()], "ends inside its header");
    let ck = checkpoint(
        "over-cap",
        &[("model.safetensors", TENSOR, Some(100_000_001))],
    );
    refused(&["inspect", ck.to_str().unwrap()], "over 100000000");
    // Too short for its length prefix.
    let ck = checkpoint("short", &[]);
    std::fs::write(ck.join("model.safetensors"), b"abc").unwrap();
    let err = refused(&["inspect", ck.to_str().unwrap()], "\"model.safetensors\"");
    assert!(err.contains("ends inside its header"), "{err}");
    assert!(!err.contains("failed to fill"), "{err}");
}

/// `fitcard inspect PATH` as text: it succeeds, and no ESC, BEL or U+202E reaches the terminal.
fn inspect_text(p: &Path) -> String {
    let out = fitcard(&["inspect", p.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    text
}

#[test]
fn header_strings_reach_the_terminal_cleaned_and_bounded() {
    let esc = "\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7}\u{1b}[31m\u{202e}";
    let long = "X".repeat(10_000);
    let header = format!(
        r#"{{"model.embed_tokens.weight":{{"dtype":"{}{}","shape":[2],"data_offsets":[0,64]}}}}"#,
        esc.replace('\u{1b}', "\\u001b").replace('\u{7}', "\\u0007"),
        long
    );
    let ck = checkpoint("escapes", &[("model.safetensors", &header, None)]);
    let text = inspect_text(&ck);
    assert!(
        text.len() < 4_000,
        "a 10 KB dtype printed whole: {} bytes",
        text.len()
    );
    // The JSON keeps the (bounded) text, escaped by its encoder.
    let out = fitcard(&["inspect", ck.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kind = v["tensor_types"][0]["type"].as_str().unwrap();
    assert!(kind.chars().count() <= 16, "{kind:?}");
}

#[test]
fn a_gguf_name_with_escapes_prints_cleaned() {
    // The Llama fixture with general.name replaced by one carrying ESC, a newline, U+202E.
    let src = std::fs::read(data("llama-3.2-1b-f16-header.gguf")).unwrap();
    let key = b"general.name";
    let at = src
        .windows(key.len())
        .position(|w| w == key)
        .expect("the fixture names its model");
    // After the key: type (u32 = 8, string), length (u64), bytes.
    let len_at = at + key.len() + 4;
    let old = u64::from_le_bytes(src[len_at..len_at + 8].try_into().unwrap()) as usize;
    let name = "\u{1b}[2J\u{1b}]0;owned\u{7}evil\nline\u{202e}";
    let mut b = src[..len_at].to_vec();
    b.extend((name.len() as u64).to_le_bytes());
    b.extend(name.as_bytes());
    b.extend(&src[len_at + 8 + old..]);
    let d = scratch("gguf-name");
    let p = d.join("m.gguf");
    std::fs::write(&p, b).unwrap();
    let text = inspect_text(&p);
    assert!(text.lines().next().unwrap().contains("evil"), "{text:?}");
    assert!(!text.lines().any(|l| l.starts_with("line")), "{text:?}");
}

#[test]
fn a_truncated_or_empty_gguf_says_it_ends_inside_its_header() {
    let d = scratch("truncated");
    let src = std::fs::read(data("llama-3.2-1b-f16-header.gguf")).unwrap();
    for (name, bytes) in [
        ("empty.gguf", &src[..0]),
        ("cut.gguf", &src[..src.len() / 2]),
    ] {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        let err = refused(
            &["inspect", p.to_str().unwrap()],
            "ends inside its GGUF header",
        );
        assert!(err.starts_with("fitcard: inspect "), "{err}");
        assert!(!err.contains("need at least"), "{err}");
        refused(&["estimate", "--file", p.to_str().unwrap()], "--file ");
    }
}

#[test]
fn config_numbers_that_are_not_counts_are_named() {
    for (value, want) in [
        (
            "4096.0",
            "hidden_size is 4096.0 where a whole number is needed",
        ),
        (
            "\"4096\"",
            "hidden_size is \\\"4096\\\" where a whole number is needed",
        ),
    ] {
        let ck = checkpoint("not-count", &[("model.safetensors", TENSOR, None)]);
        let c = std::fs::read_to_string(ck.join("config.json")).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&c).unwrap();
        v["hidden_size"] = serde_json::from_str(value).unwrap();
        std::fs::write(ck.join("config.json"), v.to_string()).unwrap();
        refused(&["inspect", ck.to_str().unwrap()], want);
        v["hidden_size"] = 1024.into();
        v["max_position_embeddings"] = 0.into();
        std::fs::write(ck.join("config.json"), v.to_string()).unwrap();
        refused(
            &["inspect", ck.to_str().unwrap()],
            "max_position_embeddings is 0",
        );
    }
}

/// A GGUF header of `arch` with u32 `keys` and F16 `tensors` (name, dims).
fn gguf_header(arch: &str, keys: &[(&str, u32)], tensors: &[(&str, &[u64])]) -> Vec<u8> {
    let s = |b: &mut Vec<u8>, x: &str| {
        b.extend((x.len() as u64).to_le_bytes());
        b.extend(x.as_bytes());
    };
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend((tensors.len() as u64).to_le_bytes());
    b.extend((keys.len() as u64 + 1).to_le_bytes());
    s(&mut b, "general.architecture");
    b.extend(8u32.to_le_bytes());
    s(&mut b, arch);
    for (k, v) in keys {
        s(&mut b, k);
        b.extend(4u32.to_le_bytes());
        b.extend(v.to_le_bytes());
    }
    for (name, dims) in tensors {
        s(&mut b, name);
        b.extend((dims.len() as u32).to_le_bytes());
        for d in *dims {
            b.extend(d.to_le_bytes());
        }
        b.extend(1u32.to_le_bytes());
        b.extend(0u64.to_le_bytes());
    }
    b
}

/// An encoder's file is served as what it is, though the catalog lacks it: a BERT header with a
/// classifier (`cls.output`, rank pooling) is a reranker, without one an embedder, each with its
/// llama-server flag and a micro-batch of a whole input, and neither decodes; `inspect` names
/// what it is served for.
#[test]
fn an_encoder_file_is_served_as_its_task() {
    let keys = [
        ("bert.block_count", 2),
        ("bert.context_length", 512),
        ("bert.embedding_length", 384),
        ("bert.feed_forward_length", 1536),
        ("bert.attention.head_count", 12),
    ];
    let d = scratch("encoder-files");
    for (file, cls, flag, served) in [
        (
            "reranker.gguf",
            true,
            "--reranking -ub 512",
            "served for reranking",
        ),
        (
            "embedder.gguf",
            false,
            "--embedding -ub 512",
            "served for embeddings",
        ),
    ] {
        let mut tensors: Vec<(&str, &[u64])> = vec![("token_embd.weight", &[384, 1000])];
        if cls {
            tensors.push(("cls.output.weight", &[384, 1]));
        }
        let p = d.join(file);
        std::fs::write(&p, gguf_header("bert", &keys, &tensors)).unwrap();
        let out = fitcard(&["estimate", "ctx=512&par=2", "--file", p.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(text.contains(flag), "{file}: {text}");
        assert!(!text.contains("tokens/s"), "{file}: {text}");
        assert!(!text.contains("defaults to 4 slots"), "{file}: {text}");
        // `inspect` says what the headers make of it; its JSON carries the classifier.
        let out = fitcard(&["inspect", p.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(served), "{file}: {text}");
        let out = fitcard(&["inspect", p.to_str().unwrap(), "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["arch"]["rank_labels"].as_u64(),
            cls.then_some(1),
            "{file}"
        );
    }
}
