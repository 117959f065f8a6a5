//! Tests of `repo`.

use super::derive::*;
use super::repo::*;
use crate::catalog::quant::{Container, Quant};
use crate::catalog::{Format, Variant};
use crate::units::Bytes;

const HUB: &str = PUBLIC_HUB;

fn hub() -> Endpoint {
    Endpoint::default()
}

#[test]
fn answers_are_read_from_the_hub_and_its_file_hosts_only() {
    for ok in [
        "https://huggingface.co/api/models/a/b?blobs=true",
        "https://cdn-lfs.hf.co/repos/x",
        "https://cas-bridge.xethub.hf.co/xet-bridge-us/y?X-Amz=1",
    ] {
        assert!(may_read(ok, &hub()), "{ok}");
    }
    for no in [
        "http://huggingface.co/a",
        "https://huggingface.co:8443/a",
        "https://hf.co/a",
        "https://evil.example/x.hf.co",
        "https://x.hf.co.evil.example/a",
        "https://huggingface.co.evil.example/a",
        "https://a.hf.co:444/b",
        "http://127.0.0.1:47833/cdn",
        "",
        "no scheme",
    ] {
        assert!(!may_read(no, &hub()), "{no}");
    }
    assert_eq!(origin("http://127.0.0.1:1/a?b"), Some("http://127.0.0.1:1"));
    assert_eq!(
        origin("https://huggingface.co"),
        Some("https://huggingface.co")
    );
}

fn t(repo: &str) -> Target {
    Target {
        repo: repo.into(),
        rev: None,
        file: None,
        dir: None,
    }
}

#[test]
fn ids_and_addresses_are_read() {
    let rows: [(&str, Target); 7] = [
        ("Qwen/Qwen3-8B-GGUF", t("Qwen/Qwen3-8B-GGUF")),
        (
            " https://huggingface.co/Qwen/Qwen3-8B-GGUF ",
            t("Qwen/Qwen3-8B-GGUF"),
        ),
        ("huggingface.co/org/name?x=1#frag", t("org/name")),
        ("https://hf.co/org/name/", t("org/name")),
        (
            "https://huggingface.co/unsloth/Qwen3-8B-GGUF/blob/main/Qwen3-8B-UD-Q4_K_XL.gguf",
            Target {
                rev: Some("main".into()),
                file: Some("Qwen3-8B-UD-Q4_K_XL.gguf".into()),
                ..t("unsloth/Qwen3-8B-GGUF")
            },
        ),
        (
            "https://huggingface.co/org/name/resolve/abc123/sub/x%20y.gguf",
            Target {
                rev: Some("abc123".into()),
                file: Some("sub/x y.gguf".into()),
                ..t("org/name")
            },
        ),
        (
            "https://huggingface.co/org/name/tree/main/Q4_K_M",
            Target {
                rev: Some("main".into()),
                dir: Some("Q4_K_M".into()),
                ..t("org/name")
            },
        ),
    ];
    for (input, want) in rows {
        assert_eq!(parse_target(input, &hub()), Ok(want), "{input}");
    }
}

#[test]
fn bad_input_gets_one_line() {
    for bad in [
        "",
        "gemma",
        "https://example.com/org/name",
        "ftp://huggingface.co/org/name",
        "org/na me",
        "../x",
        "org/.hidden",
        "https://huggingface.co/org/name/blob/main",
        "https://huggingface.co/org/name/discussions/3",
        "https://huggingface.co/org/name/blob/main/../../x",
        &"a".repeat(700),
    ] {
        let e = parse_target(bad, &hub()).unwrap_err();
        assert!(!e.is_empty() && !e.contains('\n'), "{bad}: {e}");
    }
}

#[test]
fn urls_point_at_the_hub() {
    let mut x = t("org/name");
    assert_eq!(
        info_url(&hub(), &x),
        format!("{HUB}/api/models/org/name?blobs=true")
    );
    x.rev = Some("abc".into());
    assert_eq!(
        info_url(&hub(), &x),
        format!("{HUB}/api/models/org/name/revision/abc?blobs=true")
    );
    assert_eq!(
        file_url(&hub(), "org/name", "abc", "sub/a b#.gguf"),
        format!("{HUB}/org/name/resolve/abc/sub/a%20b%23.gguf")
    );
    assert!(HUB.starts_with("http"));
}

#[test]
fn formats_are_read_from_file_names() {
    let rows = [
        ("gemma-3-4b-it-Q4_K_M.gguf", Some(Quant::Q4KM)),
        ("Qwen3-8B-UD-Q4_K_XL.gguf", Some(Quant::UDQ4KXL)),
        ("sub/model-q8_0-00001-of-00002.gguf", Some(Quant::Q8_0)),
        ("Model-BF16.gguf", Some(Quant::BF16)),
        ("Model-F16.gguf", Some(Quant::F16)),
        ("model.gguf", None),
    ];
    for (p, q) in rows {
        assert_eq!(quant_of_name(p), q, "{p}");
    }
}

fn sib(path: &str, size: u64) -> Sibling {
    Sibling {
        path: path.into(),
        size,
    }
}

#[test]
fn split_ggufs_add_up_and_projectors_are_skipped() {
    let s = [
        sib("README.md", 10),
        sib("config.json", 500),
        sib("m-Q8_0-00002-of-00002.gguf", 3_000),
        sib("m-Q8_0-00001-of-00002.gguf", 5_000),
        sib("m-Q4_K_M.gguf", 4_000),
        sib("mmproj-F16.gguf", 900),
        sib("model-00001-of-00002.safetensors", 7),
        sib("model-00002-of-00002.safetensors", 8),
        sib("sub/m-Q2_K.gguf", 1_000),
    ];
    let f = classify(&s, None);
    assert!(f.config);
    assert_eq!(f.safetensors.len(), 2);
    assert_eq!(
        f.gguf,
        vec![
            GgufFile {
                path: "m-Q8_0-00001-of-00002.gguf".into(),
                bytes: 8_000,
                quant: Some(Quant::Q8_0)
            },
            GgufFile {
                path: "m-Q4_K_M.gguf".into(),
                bytes: 4_000,
                quant: Some(Quant::Q4KM)
            },
            GgufFile {
                path: "sub/m-Q2_K.gguf".into(),
                bytes: 1_000,
                quant: Some(Quant::Q2K)
            },
        ]
    );
    assert_eq!(choose(&f, None).unwrap().path, "m-Q4_K_M.gguf");
    assert_eq!(
        choose(&f, Some("m-Q8_0-00002-of-00002.gguf")).unwrap().path,
        "m-Q8_0-00001-of-00002.gguf"
    );
    let sub = classify(&s, Some("sub"));
    assert_eq!(sub.gguf.len(), 1);
    assert!(!sub.config && sub.safetensors.is_empty());
    assert_eq!(choose(&sub, None).unwrap().path, "sub/m-Q2_K.gguf");
    assert!(choose(&RepoFiles::default(), None).is_none());
}

/// One checkpoint per import: the shards beside config.json, transformers' `model` set
/// before Mistral's `consolidated` one, never an adapter or a subfolder's copy.
#[test]
fn one_set_of_safetensors_is_the_checkpoint() {
    let s = [
        sib("config.json", 700),
        sib("consolidated.safetensors", 16_000),
        sib("model-00002-of-00002.safetensors", 6_000),
        sib("model-00001-of-00002.safetensors", 10_000),
        sib("model.safetensors.index.json", 30),
        sib("original/model.safetensors", 16_000),
        sib("adapter_model.safetensors", 90),
    ];
    let f = classify(&s, None);
    assert_eq!((f.config, f.config_bytes), (true, 700));
    let paths: Vec<&str> = f.safetensors.iter().map(|x| x.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "model-00001-of-00002.safetensors",
            "model-00002-of-00002.safetensors"
        ]
    );
    // Without the `model` set, the largest that is not an adapter.
    let f = classify(&s[1..2], None);
    assert_eq!(f.safetensors, vec![sib("consolidated.safetensors", 16_000)]);
    assert!(!f.config);
    assert!(classify(&s[6..], None).safetensors.is_empty());
    // A folder: its own files only.
    let f = classify(&s, Some("original"));
    assert_eq!(
        f.safetensors,
        vec![sib("original/model.safetensors", 16_000)]
    );
    assert!(!f.config);
}

/// A checkpoint read from its headers joins as a safetensors format, next to the repo's
/// GGUF files named by their file names.
#[test]
fn a_checkpoint_is_a_safetensors_format() {
    use crate::readers::hf;
    let config = r#"{"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
        "intermediate_size": 8192, "max_position_embeddings": 131072,
        "torch_dtype": "bfloat16", "tie_word_embeddings": true}"#;
    let tensors = [hf::Tensor {
        name: "model.embed_tokens.weight".into(),
        dtype: "BF16".into(),
        bytes: 2 * 2048 * 128_256,
    }];
    let files = classify(
        &[
            sib("config.json", 700),
            sib("model.safetensors", 2_471_645_608),
            sib("m-Q4_K_M.gguf", 800_000_000),
        ],
        None,
    );
    let (v, mut f) = hf::to_variant("o/m", config, Bytes(2_471_645_608), &tensors).expect("reads");
    f.source = "the .safetensors files of o/m on the Hub (headers read)".into();
    let fam = family("o/m", &files, (v, f), Vec::new());
    let v = &fam.variants[0];
    assert_eq!(v.arch.layers, 16);
    let ids: Vec<(&str, Container)> = v.formats.iter().map(|f| (f.id.id(), f.container)).collect();
    assert_eq!(
        ids,
        [
            ("BF16", Container::Safetensors),
            ("Q4_K_M", Container::Gguf)
        ]
    );
    assert_eq!(v.formats[0].bytes, Bytes(2_471_645_608));
    assert!(v.formats[0].source.contains("headers read"));
    assert_eq!(v.formats[0].repo, "o/m");
}

/// A repo with GGUF files and a checkpoint: vLLM, SGLang and transformers get the
/// checkpoint (its config.json's architecture, its format), llama.cpp and Ollama the GGUF;
/// the other stays a format beside it, and the GGUF formats named by file name take the
/// embeddings' type of the GGUF header read. One read failing leaves the other.
#[test]
fn the_engine_picks_the_checkpoint_or_the_gguf() {
    use crate::catalog::engine::Engine;
    use crate::catalog::quant::GgmlType;
    use crate::readers::hf;
    let config = r#"{"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
        "intermediate_size": 8192, "max_position_embeddings": 131072,
        "torch_dtype": "bfloat16", "tie_word_embeddings": true}"#;
    let st = || hf::to_variant("o/m", config, Bytes(2_471_645_608), &[]).expect("reads");
    // The GGUF's own reading: the same shapes, Q6_K embeddings, 20 layers to tell it apart.
    let gg = || {
        let (mut v, f) = st();
        v.arch.layers = 20;
        let f = Format {
            id: Quant::Q4KM,
            container: Container::Gguf,
            file: "m-Q4_K_M.gguf".into(),
            embd_type: GgmlType::Q6K,
            ..f
        };
        (v, f)
    };
    let files = classify(
        &[
            sib("config.json", 700),
            sib("model.safetensors", 2_471_645_608),
            sib("m-Q4_K_M.gguf", 800_000_000),
            sib("m-Q8_0.gguf", 1_300_000_000),
        ],
        None,
    );
    let both = || (Some(Ok(gg())), Some(Ok(st())));
    for (engine, layers, quant) in [
        (Engine::Vllm, 16, Quant::BF16),
        (Engine::Sglang, 16, Quant::BF16),
        (Engine::Transformers, 16, Quant::BF16),
        (Engine::LlamaCpp, 20, Quant::Q4KM),
        (Engine::Ollama, 20, Quant::Q4KM),
    ] {
        let (g, s) = both();
        let (read, extra) = pick(g, s, engine.container()).expect("picks");
        assert_eq!((read.0.arch.layers, read.1.id), (layers, quant), "{engine}");
        let fam = family("o/m", &files, read, extra);
        let fs = &fam.variants[0].formats;
        let ids: Vec<(&str, Container)> = fs.iter().map(|f| (f.id.id(), f.container)).collect();
        assert_eq!(
            ids,
            [
                ("BF16", Container::Safetensors),
                ("Q8_0", Container::Gguf),
                ("Q4_K_M", Container::Gguf)
            ],
            "{engine}"
        );
        for f in fs.iter().filter(|f| f.container == Container::Gguf) {
            assert_eq!(f.embd_type, GgmlType::Q6K, "{engine} {}", f.file);
            assert_eq!(f.repo, "o/m");
        }
        let q4 = fs.iter().find(|f| f.id == Quant::Q4KM).expect("Q4_K_M");
        assert!(q4.source.contains("header read"), "{}", q4.source);
    }
    // One failed: the other is the model; both failed: the preferred one's reason.
    let bad = || Some(Err::<(Variant, Format), String>("cut short".into()));
    let (read, extra) = pick(bad(), Some(Ok(st())), Container::Gguf).expect("picks");
    assert_eq!((read.1.id, extra.len()), (Quant::BF16, 0));
    let (read, _) = pick(Some(Ok(gg())), bad(), Container::Safetensors).expect("picks");
    assert_eq!(read.1.id, Quant::Q4KM);
    let e = pick(
        Some(Err("a".into())),
        Some(Err("b".into())),
        Container::Safetensors,
    );
    assert_eq!(e.map(|_| ()), Err("b".into()));
    assert!(pick(None, None, Container::Gguf).is_err());
}

/// The model info read leniently: names without a file skipped, sizes that are no count 0, a
/// `sha` that is no commit dropped, `cardData.base_model` a string or a list (repo ids only, at
/// most `MAX_BASES`), its relation when spelled; HTML is no info.
#[test]
fn model_info_is_read_leniently() {
    use crate::readers::hub::client::{parse_info, MAX_BASES};
    let many: Vec<String> = (0..50).map(|k| format!("\"o/m{k}\"")).collect();
    let body = format!(
        r#"{{"sha":"not a commit!","gated":"manual","siblings":[{{"rfilename":"a.gguf","size":-4}},{{"size":3}},{{"rfilename":"b.gguf","size":7}}],
        "cardData":{{"base_model":[{}, "no id", 5],"base_model_relation":"finetune"}}}}"#,
        many.join(",")
    );
    let i = parse_info(body.as_bytes()).unwrap();
    assert_eq!(i.sha, None);
    assert!(i.gated);
    assert_eq!(
        i.siblings,
        [
            Sibling {
                path: "a.gguf".into(),
                size: 0
            },
            Sibling {
                path: "b.gguf".into(),
                size: 7
            }
        ]
    );
    assert_eq!(i.bases.len(), MAX_BASES);
    assert_eq!(i.relation, Some(Relation::FineTune));
    let one = parse_info(br#"{"cardData":{"base_model":"Qwen/Qwen3-8B"},"gated":false}"#).unwrap();
    assert_eq!(
        (one.bases, one.relation, one.gated),
        (vec!["Qwen/Qwen3-8B".to_string()], None, false)
    );
    assert!(parse_info(b"<!doctype html>").is_none());
    assert!(parse_info(b"[1,2]").is_none());
}

/// A derivative of a catalog variant: quantized (said, or by its name) keeps the base's
/// capability as it is; a fine-tune borrows it marked ≈; a base the catalog lacks changes
/// nothing.
#[test]
fn a_derivative_follows_its_catalog_base() {
    let base = crate::catalog::catalog()
        .variant("meta-llama/Llama-3.2-1B-Instruct")
        .map(|(_, v)| v.clone())
        .unwrap();
    let imported = |repo: &str| {
        let mut v = base.clone();
        v.id = repo.into();
        v.name = repo.rsplit('/').next().unwrap().into();
        v.capability = None;
        let f = v.formats[0].clone();
        family(repo, &RepoFiles::default(), (v, f), Vec::new())
    };
    let bases = vec![
        "someone/unknown".to_string(),
        "meta-llama/Llama-3.2-1B-Instruct".to_string(),
    ];
    let mut q = imported("bartowski/Llama-3.2-1B-Instruct-GGUF");
    assert_eq!(
        follow_base(&mut q, &bases, None).as_deref(),
        Some("meta-llama/Llama-3.2-1B-Instruct")
    );
    assert!(
        q.name.contains("(quantized Llama 3.2 1B Instruct"),
        "{}",
        q.name
    );
    assert_eq!(
        q.variants[0].capability.as_ref().map(|c| c.score),
        base.capability.as_ref().map(|c| c.score)
    );
    let mut t = imported("someone/Llama-3.2-1B-abliterated");
    follow_base(&mut t, &bases, Some(Relation::FineTune));
    assert!(
        t.name.contains("fine-tune of Llama 3.2 1B Instruct"),
        "{}",
        t.name
    );
    assert!(
        base.capability.is_some(),
        "the test's base has a published capability"
    );
    let c = t.variants[0].capability.as_ref().unwrap();
    assert!(c.benchmark.starts_with('≈'), "{}", c.benchmark);
    // By its name alone: the base's name and format words only is quantized.
    for (repo, quantized) in [
        ("unsloth/Llama-3.2-1B-Instruct-GGUF", true),
        ("bartowski/meta-llama_Llama-3.2-1B-Instruct-GGUF", true),
        ("x/Llama-3.2-1B-Instruct-Q4_K_M-GGUF", true),
        ("x/Llama-3.2-1B-Instruct-AWQ-INT4", true),
        ("x/Llama-3.2-1B-Instruct-abliterated-GGUF", false),
        ("x/Llama-3.2-1B-Instruct-uncensored", false),
        ("x/My-Llama-3.2-1B-Instruct-GGUF", false),
        ("x/Very-Own-Llama-3.2-1B-Instruct", false),
    ] {
        let mut f = imported(repo);
        follow_base(&mut f, &bases, None);
        assert_eq!(
            f.name.contains("(quantized"),
            quantized,
            "{repo}: {}",
            f.name
        );
    }
    let mut n = imported("someone/Other");
    assert_eq!(follow_base(&mut n, &["x/y".to_string()], None), None);
    assert_eq!(n.name, "Other (imported)");
}
