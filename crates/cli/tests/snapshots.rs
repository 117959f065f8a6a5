//! Golden snapshots of `fitcard estimate` (JSON and text) over the reviewed corpus in
//! `tests/corpus/permalinks.txt`: any change of a number or a word shows up as a snapshot diff
//! to review (`cargo insta review`, or accept with `INSTA_UPDATE=always`).

use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fitcard"))
        // No network at test time: a Hub repo would be asked of a port nobody listens on.
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"))
        // Prices are marked stale against this day (2026-12-01), not the clock.
        .env("SOURCE_DATE_EPOCH", "1796083200")
        .args(args)
        .output()
        .expect("runs");
    format!(
        "exit {}\n{}{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn estimate_corpus() {
    let corpus = include_str!("corpus/permalinks.txt");
    let queries: Vec<&str> = corpus
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(queries.len() >= 20, "the corpus lost its rows");
    let mut names: Vec<String> = queries.iter().map(|q| slug(q)).collect();
    names.sort();
    names.dedup();
    assert_eq!(
        names.len(),
        queries.len(),
        "two corpus rows share a snapshot name"
    );
    for q in &queries {
        let text = run(&["estimate", q]);
        let json = run(&["estimate", q, "--json"]);
        insta::with_settings!({ description => *q, omit_expression => true }, {
            insta::assert_snapshot!(format!("estimate_{}", slug(q)), format!("{text}\n{json}"));
        });
    }
}

/// A snapshot's name from its query, so that inserting a row renames nothing: the model's name
/// without its publisher, then each other `key-value` (the version key left out), separated by
/// `_`; any character but an ASCII letter, digit, `.` or `-` becomes `-`.
fn slug(q: &str) -> String {
    let parts: Vec<String> = q
        .trim_start_matches('?')
        .split('&')
        .filter(|kv| !kv.is_empty() && !kv.starts_with("v="))
        .map(|kv| match kv.split_once('=') {
            Some(("model", m)) => m.rsplit('/').next().unwrap_or(m).to_string(),
            Some((k, v)) => format!("{k}-{v}"),
            None => kv.to_string(),
        })
        .collect();
    parts
        .join("_")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

#[test]
fn snapshot_names_follow_the_query() {
    assert_eq!(
        slug("v=1&model=google/gemma-3-1b-it&quant=F16&gpus=rtx-4090,rtx-3090"),
        "gemma-3-1b-it_quant-f16_gpus-rtx-4090-rtx-3090"
    );
    assert_eq!(slug("?ctx=8192&par=2"), "ctx-8192_par-2");
}

/// The cross-family ranking for three cards (a small, a large consumer card and a data-centre
/// card), reviewed as a table: which variant in which format comes first, and why.
#[test]
fn best_for_three_cards() {
    for (name, q) in [
        ("rtx_3060", "best=1&gpu=rtx-3060-12gb&ctx=8192"),
        ("rtx_4090", "best=1&gpu=rtx-4090&ctx=8192"),
        (
            "h100_vllm",
            "best=1&gpu=h100-sxm&engine=vllm&ctx=32768&par=8",
        ),
    ] {
        insta::with_settings!({ description => q, omit_expression => true }, {
            insta::assert_snapshot!(format!("best_{name}"), run(&["best", q]));
        });
    }
}

/// The picks on the cards people run models on in late 2026, llama.cpp at 16K with one slot
/// (the data-centre card is the vLLM case above), reviewed as tables: the 8 GB card's first pick
/// is Qwen3.5-9B at Q6_K, the 16 GB cards' Qwen3.5-9B at Q8_0, the 24 GB card's Qwen3.6-27B at
/// Q6_K, the 96 GB unified machine's Qwen3.6-27B at Q8_0.
#[test]
fn best_for_the_cards_of_late_2026() {
    for gpu in [
        "rtx-4060",
        "rtx-3060-12gb",
        "rtx-5060-ti-16gb",
        "rtx-4090",
        "m4-max-36gb",
        "ryzen-ai-max-395-128gb",
    ] {
        let q = format!("best=1&gpu={gpu}&ctx=16384");
        insta::with_settings!({ description => q.as_str(), omit_expression => true }, {
            insta::assert_snapshot!(format!("best_16k_{gpu}"), run(&["best", &q]));
        });
    }
}

/// `fitcard frontier`: the table (context rows × KV configurations), its JSON, and the SVG of
/// the smallest one, per engine family.
#[test]
fn frontier_per_engine() {
    for (name, q) in [
        ("llama_cpp", "model=google/gemma-3-12b-it&par=4&kvu=1"),
        (
            "vllm",
            "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpu=h100-sxm&ctx=8192&par=16",
        ),
        (
            "ollama",
            "model=meta-llama/Llama-3.1-8B-Instruct&engine=ollama&par=2",
        ),
        (
            "never_fits",
            "model=deepseek-ai/DeepSeek-R1-Distill-Llama-70B&quant=Q8_0&vram=8",
        ),
    ] {
        let text = run(&["frontier", q]);
        let json = run(&["frontier", q, "--json"]);
        insta::with_settings!({ description => q, omit_expression => true }, {
            insta::assert_snapshot!(format!("frontier_{name}"), format!("{text}\n{json}"));
        });
    }
    let q = "model=meta-llama/Llama-3.1-8B-Instruct&engine=ollama&par=2";
    insta::with_settings!({ description => q, omit_expression => true }, {
        insta::assert_snapshot!("frontier_ollama_svg", run(&["frontier", q, "--svg"]));
    });
}
