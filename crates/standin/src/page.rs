//! The fixture repos of the page's import tests (`tests/e2e/import.test.mjs`), also read by the
//! CLI's: GGUF repos (a Llama-3.2-1B-shaped header whose tokenizer makes the first 1 MB read
//! too short), a checkpoint in two safetensors shards with its `config.json` (the first header
//! padded past a first 64 KB read), FP8 weights beside GGUF files, and repos that are slow,
//! gated, locked, cut short, or redirected outside the Hub.

use crate::repos::{Away, Repo};
use crate::writers::{gguf, safetensors, Value};
use std::sync::Arc;

/// `LLAMA_FTYPE_MOSTLY_Q4_K_M` (llama.h).
const FTYPE_Q4_K_M: u32 = 15;
/// `LLAMA_FTYPE_MOSTLY_Q8_0`.
const FTYPE_Q8_0: u32 = 7;
/// `GGML_TYPE_Q6_K` (ggml.h).
const GGML_Q6_K: u32 = 14;

/// A Llama-3.2-1B-shaped GGUF header of file type `ftype` (its shapes: the model's config,
/// huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json), with a 120,000-word
/// tokenizer (about 1.3 MB).
fn header(ftype: u32) -> Arc<Vec<u8>> {
    let s = |v: &str| Value::Str(v.into());
    Arc::new(gguf(
        &[
            ("general.architecture", s("llama")),
            ("general.name", s("Tiny")),
            ("general.file_type", Value::U32(ftype)),
            ("llama.block_count", Value::U32(16)),
            ("llama.context_length", Value::U32(131_072)),
            ("llama.embedding_length", Value::U32(2048)),
            ("llama.feed_forward_length", Value::U32(8192)),
            ("llama.attention.head_count", Value::U32(32)),
            ("llama.attention.head_count_kv", Value::U32(8)),
            ("tokenizer.ggml.tokens", Value::Tokens(120_000)),
        ],
        &[("token_embd.weight", &[2048, 128_256], GGML_Q6_K)],
    ))
}

/// Layer `i`'s tensors in dtype `w` (the norm in BF16).
fn layer(i: u32, w: &'static str) -> Vec<(String, &'static str, Vec<u64>)> {
    let t = |n: &str, d: &'static str, s: &[u64]| (format!("model.layers.{i}.{n}"), d, s.to_vec());
    vec![
        t("self_attn.q_proj.weight", w, &[2048, 2048]),
        t("self_attn.k_proj.weight", w, &[512, 2048]),
        t("self_attn.v_proj.weight", w, &[512, 2048]),
        t("self_attn.o_proj.weight", w, &[2048, 2048]),
        t("mlp.gate_proj.weight", w, &[8192, 2048]),
        t("mlp.up_proj.weight", w, &[8192, 2048]),
        t("mlp.down_proj.weight", w, &[2048, 8192]),
        t("input_layernorm.weight", "BF16", &[2048]),
    ]
}

fn layers(a: u32, b: u32, w: &'static str) -> Vec<(String, &'static str, Vec<u64>)> {
    (a..b).flat_map(|i| layer(i, w)).collect()
}

fn embed() -> (String, &'static str, Vec<u64>) {
    (
        "model.embed_tokens.weight".into(),
        "BF16",
        vec![128_256, 2048],
    )
}

/// Llama-3.2-1B's config.json fields, with `extra` fields added (JSON members, or empty).
fn config(extra: &str) -> Arc<Vec<u8>> {
    let sep = if extra.is_empty() { "" } else { "," };
    Arc::new(
        format!(
            r#"{{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":2048,"num_hidden_layers":16,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":64,"intermediate_size":8192,"vocab_size":128256,"max_position_embeddings":131072,"tie_word_embeddings":true,"torch_dtype":"bfloat16"{sep}{extra}}}"#
        )
        .into_bytes(),
    )
}

/// The GGUF repo: a Q4_K_M file, a Q8_0 file in two parts, a vision projector.
fn gguf_repo() -> Repo {
    Repo::of(vec![
        ("README.md", 1200, None),
        (
            "Tiny-Q4_K_M.gguf",
            4_920_000_000,
            Some(header(FTYPE_Q4_K_M)),
        ),
        (
            "Tiny-Q8_0-00001-of-00002.gguf",
            4_000_000_000,
            Some(header(FTYPE_Q8_0)),
        ),
        ("Tiny-Q8_0-00002-of-00002.gguf", 4_530_000_000, None),
        ("mmproj-F16.gguf", 800_000_000, None),
    ])
}

/// The checkpoint repo: config.json and two BF16 shards (and a file no reader needs).
fn checkpoint_repo() -> Repo {
    let cfg = config("");
    let mut first = vec![embed()];
    first.extend(layers(0, 8, "BF16"));
    let mut second = layers(8, 16, "BF16");
    second.push(("model.norm.weight".into(), "BF16", vec![2048]));
    Repo::of(vec![
        ("README.md", 900, None),
        ("config.json", cfg.len() as u64, Some(cfg)),
        ("model.safetensors.index.json", 25_000, None),
        (
            "model-00001-of-00002.safetensors",
            1_500_000_000,
            Some(Arc::new(safetensors(&first, 80_000))),
        ),
        (
            "model-00002-of-00002.safetensors",
            971_000_000,
            Some(Arc::new(safetensors(&second, 0))),
        ),
        ("original/consolidated.00.pth", 2_471_000_000, None),
    ])
}

/// FP8 weights (`quantization_config` fp8, F8_E4M3 tensors) beside the GGUF files.
fn both_repo() -> Repo {
    let cfg =
        config(r#""quantization_config":{"quant_method":"fp8","weight_block_size":[128,128]}"#);
    let mut t = vec![embed()];
    t.extend(layers(0, 16, "F8_E4M3"));
    let mut r = gguf_repo();
    r.files.extend(
        Repo::of(vec![
            ("config.json", cfg.len() as u64, Some(cfg)),
            (
                "model.safetensors",
                1_500_000_000,
                Some(Arc::new(safetensors(&t, 0))),
            ),
        ])
        .files,
    );
    r
}

/// Every repo of the page's import tests, by id.
pub fn repos() -> Vec<(String, Repo)> {
    let (g, st) = (gguf_repo(), checkpoint_repo());
    let with = |f: &dyn Fn(&mut Repo)| {
        let mut r = g.clone();
        f(&mut r);
        r
    };
    let mut no_config = st.clone();
    no_config.files.retain(|f| f.name != "config.json");
    let out = vec![
        ("fx/Tiny-ST", st.clone()),
        ("fx/Both", both_repo()),
        ("fx/NoConfig-ST", no_config),
        ("fx/Tiny-GGUF", g.clone()),
        ("fx/Slow-GGUF", with(&|r| r.slow_ms = 1500)),
        ("fx/Gated", with(&|r| r.gated = Some("manual"))),
        // The base release of a catalog chat model, gated: the page reads its sibling's shapes.
        (
            "meta-llama/Llama-2-7b-hf",
            with(&|r| r.gated = Some("manual")),
        ),
        ("fx/Locked-GGUF", with(&|r| r.locked = true)),
        ("fx/Cut-GGUF", with(&|r| r.cut = true)),
        // Slow, slower, and one that would answer long after the import's timeout.
        ("fx/Slower-GGUF", with(&|r| r.slow_ms = 2500)),
        (
            "fx/Slow-Gated",
            with(&|r| {
                r.gated = Some("manual");
                r.slow_ms = 2500;
            }),
        ),
        ("fx/Hung-GGUF", with(&|r| r.slow_ms = 20_000)),
        // Redirected outside the Hub and its file hosts: the file, or the model info.
        ("fx/Away-GGUF", with(&|r| r.away = Away::File)),
        ("fx/AwayInfo-GGUF", with(&|r| r.away = Away::Info)),
        // A catalog entry (GGUF files only in the catalog) whose repo holds a checkpoint.
        ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", st),
    ];
    out.into_iter().map(|(k, r)| (k.to_string(), r)).collect()
}
