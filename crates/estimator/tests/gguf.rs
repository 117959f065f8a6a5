//! GGUF headers: a file written here by the specification is read back into the same model the
//! catalog holds (same KV cache and host-resident bytes), truncated headers ask for more bytes,
//! and hostile lengths are refused before anything is allocated.

use fitcard_estimator::readers::gguf::{base_models, parse, to_variant, Error, MAX_STRING};
use fitcard_estimator::{catalog, estimate, from_query, serve::estimate_file, Bytes};
use proptest::prelude::*;

enum V<'a> {
    U32(u32),
    Str(&'a str),
    Strings(usize),
    U32s(Vec<u32>),
}

/// A GGUF v3 header with `kv` metadata and `tensors` (name, dims, ggml type).
fn gguf(kv: &[(&str, V)], tensors: &[(&str, &[u64], u32)]) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    let s = |b: &mut Vec<u8>, x: &str| {
        b.extend((x.len() as u64).to_le_bytes());
        b.extend(x.as_bytes());
    };
    b.extend(3u32.to_le_bytes());
    b.extend((tensors.len() as u64).to_le_bytes());
    b.extend((kv.len() as u64).to_le_bytes());
    for (k, v) in kv {
        s(&mut b, k);
        match v {
            V::U32(x) => {
                b.extend(4u32.to_le_bytes());
                b.extend(x.to_le_bytes());
            }
            V::Str(x) => {
                b.extend(8u32.to_le_bytes());
                s(&mut b, x);
            }
            V::U32s(xs) => {
                b.extend(9u32.to_le_bytes());
                b.extend(4u32.to_le_bytes());
                b.extend((xs.len() as u64).to_le_bytes());
                for x in xs {
                    b.extend(x.to_le_bytes());
                }
            }
            V::Strings(n) => {
                b.extend(9u32.to_le_bytes());
                b.extend(8u32.to_le_bytes());
                b.extend((*n as u64).to_le_bytes());
                for _ in 0..*n {
                    s(&mut b, "t");
                }
            }
        }
    }
    for (name, dims, t) in tensors {
        s(&mut b, name);
        b.extend((dims.len() as u32).to_le_bytes());
        for d in *dims {
            b.extend(d.to_le_bytes());
        }
        b.extend(t.to_le_bytes());
        b.extend(0u64.to_le_bytes());
    }
    b
}

/// Llama-3.2-1B F16 as llama.cpp writes it (tied: no `output.weight`), with `tokens` entries in
/// the vocabulary array.
fn llama_1b_with(tokens: usize) -> Vec<u8> {
    gguf(
        &[
            ("general.architecture", V::Str("llama")),
            ("general.name", V::Str("Llama 3.2 1B Instruct")),
            ("general.file_type", V::U32(1)),
            ("llama.block_count", V::U32(16)),
            ("llama.context_length", V::U32(131_072)),
            ("llama.embedding_length", V::U32(2048)),
            ("llama.feed_forward_length", V::U32(8192)),
            ("llama.attention.head_count", V::U32(32)),
            ("llama.attention.head_count_kv", V::U32(8)),
            ("llama.attention.key_length", V::U32(64)),
            ("tokenizer.ggml.tokens", V::Strings(tokens)),
        ],
        &[
            ("token_embd.weight", &[2048, 128_256], 1),
            ("blk.0.attn_q.weight", &[2048, 2048], 1),
        ],
    )
}

fn llama_1b() -> Vec<u8> {
    llama_1b_with(128_256)
}

#[test]
fn a_written_header_reads_back_as_the_catalog_model() {
    let bytes = llama_1b();
    let h = parse(&bytes).expect("header");
    assert_eq!(h.tensors.len(), 2);
    let (_, cat) = catalog()
        .variant("meta-llama/Llama-3.2-1B-Instruct")
        .unwrap();
    let f16 = cat.formats.iter().find(|f| f.id.id() == "F16").unwrap();
    let (v, f) = to_variant(&h, "Llama-3.2-1B-Instruct-F16.gguf", f16.bytes).unwrap();
    assert_eq!(
        (
            v.arch.layers,
            v.arch.kv_heads,
            v.arch.head_dim,
            v.arch.vocab,
            v.arch.tied_embeddings
        ),
        (16, 8, 64, 128_256, true)
    );
    let i = from_query("ctx=4096").inputs;
    let from_file = estimate_file(&i, &v, &f);
    let from_catalog =
        estimate(&from_query("model=meta-llama/Llama-3.2-1B-Instruct&quant=F16&ctx=4096").inputs);
    let term = |e: &fitcard_estimator::Estimate, n: &str| {
        e.terms.iter().find(|t| t.name.id() == n).unwrap().bytes
    };
    assert_eq!(term(&from_file, "kv_cache"), Bytes(128 << 20));
    assert_eq!(
        term(&from_file, "kv_cache"),
        term(&from_catalog, "kv_cache")
    );
    assert_eq!(
        term(&from_file, "weights_host"),
        term(&from_catalog, "weights_host")
    );
    assert_eq!(term(&from_file, "weights"), term(&from_catalog, "weights"));
    assert_eq!(from_file.quant, "F16");
    assert!(
        from_file
            .command
            .contains("-m Llama-3.2-1B-Instruct-F16.gguf"),
        "{}",
        from_file.command
    );
}

#[test]
fn a_truncated_header_asks_for_more() {
    let bytes = llama_1b();
    for cut in [3, 40, 200, bytes.len() - 1] {
        match parse(&bytes[..cut]) {
            Err(Error::NeedMore(n)) => assert!(n as usize > cut, "{cut}: {n}"),
            other => panic!("{cut}: {other:?}"),
        }
    }
}

#[test]
fn hostile_lengths_are_refused_before_allocating() {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    // A key claiming 2^40 bytes.
    b.extend((1u64 << 40).to_le_bytes());
    match parse(&b) {
        Err(Error::Bad(m)) => assert!(m.contains(&MAX_STRING.to_string()), "{m}"),
        other => panic!("{other:?}"),
    }
    // 2^60 tensors.
    let mut c = b"GGUF".to_vec();
    c.extend(3u32.to_le_bytes());
    c.extend((1u64 << 60).to_le_bytes());
    c.extend(0u64.to_le_bytes());
    assert!(matches!(parse(&c), Err(Error::Bad(_))));
    assert!(matches!(parse(b"GGML0000"), Err(Error::Bad(_))));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, .. ProptestConfig::default() })]

    /// Any bytes after the magic: an answer or a refusal, never a panic.
    #[test]
    fn any_bytes_are_safe(tail in proptest::collection::vec(any::<u8>(), 0..256)) {
        let mut b = b"GGUF\x03\x00\x00\x00".to_vec();
        b.extend(tail);
        let _ = parse(&b);
    }

    /// Any cut of a real header, and any flipped byte in it: no panic.
    #[test]
    fn damaged_headers_are_safe(cut in 0usize..1200, at in 0usize..1200, byte in any::<u8>()) {
        let mut b = llama_1b_with(64);
        b.truncate(cut.min(b.len()));
        if let Some(x) = b.get_mut(at) {
            *x = byte;
        }
        if let Ok(h) = parse(&b) {
            let _ = to_variant(&h, "x.gguf", Bytes(1 << 30));
        }
    }
}

/// Latent attention and Mamba-2 hybrids read from their GGUF keys give the cache llama.cpp
/// allocates (the independent rows of tests/llama_kv.rs: one sequence, 4096 cells, f16).
#[test]
fn latent_and_hybrid_headers() {
    use fitcard_estimator::terms::kv::{llama, LlamaParams};
    use fitcard_estimator::KvDtype;
    let f16 = |a: &fitcard_estimator::catalog::Arch| {
        llama(a, &LlamaParams::new(4096, 1, true, KvDtype::F16))
            .bytes
            .get()
    };
    let embd: &[(&str, &[u64], u32)] = &[("token_embd.weight", &[2048, 1000], 1)];
    let ds = gguf(
        &[
            ("general.architecture", V::Str("deepseek2")),
            ("deepseek2.block_count", V::U32(61)),
            ("deepseek2.embedding_length", V::U32(7168)),
            ("deepseek2.attention.head_count", V::U32(128)),
            ("deepseek2.attention.head_count_kv", V::U32(1)),
            ("deepseek2.attention.key_length", V::U32(576)),
            ("deepseek2.attention.kv_lora_rank", V::U32(512)),
            ("deepseek2.rope.dimension_count", V::U32(64)),
        ],
        embd,
    );
    let (v, _) = to_variant(&parse(&ds).unwrap(), "ds.gguf", Bytes(1)).unwrap();
    assert_eq!(f16(&v.arch), 287_834_112);
    let mut heads = vec![0u32; 40];
    for il in [9, 19, 29, 39] {
        heads[il] = 8;
    }
    let m2 = gguf(
        &[
            ("general.architecture", V::Str("granitehybrid")),
            ("granitehybrid.block_count", V::U32(40)),
            ("granitehybrid.embedding_length", V::U32(1536)),
            ("granitehybrid.attention.head_count", V::U32(12)),
            ("granitehybrid.attention.head_count_kv", V::U32s(heads)),
            ("granitehybrid.attention.key_length", V::U32(64)),
            ("granitehybrid.ssm.conv_kernel", V::U32(4)),
            ("granitehybrid.ssm.state_size", V::U32(128)),
            ("granitehybrid.ssm.group_count", V::U32(1)),
            ("granitehybrid.ssm.inner_size", V::U32(3072)),
            ("granitehybrid.ssm.time_step_rank", V::U32(48)),
        ],
        embd,
    );
    let (v, _) = to_variant(&parse(&m2).unwrap(), "m2.gguf", Bytes(1)).unwrap();
    assert_eq!(v.arch.kv_owning_layers(), 4);
    assert_eq!(f16(&v.arch), 91_615_232);
    // ssm keys without a way to tell the recurrent layers: refused, not guessed.
    let odd = gguf(
        &[
            ("general.architecture", V::Str("mamba9")),
            ("mamba9.block_count", V::U32(4)),
            ("mamba9.embedding_length", V::U32(64)),
            ("mamba9.attention.head_count", V::U32(1)),
            ("mamba9.ssm.conv_kernel", V::U32(4)),
        ],
        embd,
    );
    let e = to_variant(&parse(&odd).unwrap(), "x.gguf", Bytes(1)).unwrap_err();
    assert!(e.contains("not modelled yet"), "{e}");
}

/// A Nemotron-H header as llama.cpp's converter writes it: per-layer `head_count_kv` (KV heads
/// on the attention layers only) and `feed_forward_length` (0 on the Mamba-2 and attention
/// layers) arrays, which name each layer's block (llama.cpp's nemotron_h loader), the `ssm.*`
/// keys, and the experts. It reads back as the catalog's Nemotron 3 Nano 30B-A3B (same blocks,
/// the same KV cache and state); without the arrays it is refused, not guessed.
#[test]
fn a_nemotron_h_header_reads_back_as_the_catalog_model() {
    use fitcard_estimator::terms::kv::{llama, LlamaParams};
    use fitcard_estimator::KvDtype;
    let pattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
    let kv: Vec<u32> = pattern
        .chars()
        .map(|c| if c == '*' { 2 } else { 0 })
        .collect();
    let ff: Vec<u32> = pattern
        .chars()
        .map(|c| if c == 'E' { 1856 } else { 0 })
        .collect();
    let a = "nemotron_h_moe";
    let keys = |arrays: bool| {
        let mut k = vec![
            ("general.architecture".to_string(), V::Str(a)),
            (format!("{a}.block_count"), V::U32(52)),
            (format!("{a}.context_length"), V::U32(262144)),
            (format!("{a}.embedding_length"), V::U32(2688)),
            (format!("{a}.attention.head_count"), V::U32(32)),
            (format!("{a}.attention.key_length"), V::U32(128)),
            (format!("{a}.ssm.conv_kernel"), V::U32(4)),
            (format!("{a}.ssm.state_size"), V::U32(128)),
            (format!("{a}.ssm.group_count"), V::U32(8)),
            (format!("{a}.ssm.inner_size"), V::U32(4096)),
            (format!("{a}.ssm.time_step_rank"), V::U32(64)),
            (format!("{a}.expert_count"), V::U32(128)),
            (format!("{a}.expert_used_count"), V::U32(6)),
            (format!("{a}.expert_feed_forward_length"), V::U32(1856)),
            (
                format!("{a}.expert_shared_feed_forward_length"),
                V::U32(3712),
            ),
        ];
        if arrays {
            k.push((format!("{a}.attention.head_count_kv"), V::U32s(kv.clone())));
            k.push((format!("{a}.feed_forward_length"), V::U32s(ff.clone())));
        }
        k
    };
    let embd: &[(&str, &[u64], u32)] = &[
        ("token_embd.weight", &[2688, 131072], 1),
        ("output.weight", &[2688, 131072], 1),
    ];
    let bytes = |arrays: bool| {
        let k = keys(arrays);
        let kv: Vec<(&str, V)> = k
            .into_iter()
            .map(|(n, v)| (&*Box::leak(n.into_boxed_str()), v))
            .collect();
        gguf(&kv, embd)
    };
    let (v, _) = to_variant(&parse(&bytes(true)).unwrap(), "n3.gguf", Bytes(1)).unwrap();
    let want = &catalog()
        .variant("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
        .unwrap()
        .1
        .arch;
    assert_eq!(v.arch.blocks, want.blocks);
    assert_eq!(v.arch.recurrent, want.recurrent);
    assert_eq!(v.arch.moe.map(|m| m.shared_ffn), Some(3712));
    let p = LlamaParams::new(32768, 2, false, KvDtype::F16);
    assert_eq!(llama(&v.arch, &p), llama(want, &p));
    let e = to_variant(&parse(&bytes(false)).unwrap(), "x.gguf", Bytes(1)).unwrap_err();
    assert!(e.contains("not modelled yet") && !e.contains('\n'), "{e}");
}

#[path = "../benches/support/headers.rs"]
mod bench_headers;

/// The benchmark's header (a 262,144-token vocabulary, its scores and token types, 444
/// tensors) reads into its model; the vocabulary's arrays are kept as their lengths only, and
/// a header cut inside them asks for the bytes up to the array's end at once.
#[test]
fn a_262k_vocabulary_is_skipped_not_kept() {
    use fitcard_estimator::readers::gguf::Value;
    let (b, n_kv) = bench_headers::gguf_262k();
    let h = parse(&b).expect("reads");
    assert_eq!(h.kv.len() as u64, n_kv);
    assert_eq!(h.tensors.len() as u64, bench_headers::TENSORS);
    for k in [
        "tokenizer.ggml.tokens",
        "tokenizer.ggml.scores",
        "tokenizer.ggml.token_type",
    ] {
        assert_eq!(
            h.kv.get(k),
            Some(&Value::Array(bench_headers::VOCAB, Vec::new())),
            "{k}"
        );
    }
    let (v, f) = to_variant(&h, "gemma-3-4b-it-Q4_K_M.gguf", Bytes(1)).expect("model");
    assert_eq!(
        (v.arch.layers, v.arch.vocab, v.arch.kv_heads, f.id.id()),
        (34, bench_headers::VOCAB, 4, "Q4_K_M")
    );
    // Cut inside the scores (f32s): the answer is the end of the whole array.
    let scores = b
        .windows(21)
        .position(|w| w == b"tokenizer.ggml.scores")
        .expect("scores key");
    let end = scores + 21 + 4 + 4 + 8 + 4 * bench_headers::VOCAB as usize;
    match parse(&b[..scores + 1000]) {
        Err(Error::NeedMore(n)) => assert_eq!(n as usize, end),
        other => panic!("{other:?}"),
    }
}

/// A Llama 4 GGUF without a chunk key is chunked as llama.cpp chunks every `llama4` file
/// (src/llama-model.cpp: `n_swa = 8192`, one global layer in four): Scout's 48 layers at 16K
/// hold 12 global layers × 16,384 cells + 36 chunked layers × (8,192 + the 512-token batch)
/// cells, not 48 × 16,384 (3.2 GB). `attention.sliding_window = 0` turns the chunks off.
#[test]
fn a_llama4_file_is_chunked_without_a_chunk_key() {
    use fitcard_estimator::terms::kv::{llama, LlamaParams};
    use fitcard_estimator::KvDtype;
    let scout = |swa: Option<u32>| {
        let mut kv = vec![
            ("general.architecture", V::Str("llama4")),
            ("llama4.block_count", V::U32(48)),
            ("llama4.context_length", V::U32(10_485_760)),
            ("llama4.embedding_length", V::U32(5120)),
            ("llama4.feed_forward_length", V::U32(16384)),
            ("llama4.attention.head_count", V::U32(40)),
            ("llama4.attention.head_count_kv", V::U32(8)),
            ("llama4.attention.key_length", V::U32(128)),
            ("llama4.expert_count", V::U32(16)),
            ("llama4.expert_used_count", V::U32(1)),
            ("llama4.expert_feed_forward_length", V::U32(8192)),
            ("llama4.interleave_moe_layer_step", V::U32(1)),
        ];
        if let Some(w) = swa {
            kv.push(("llama4.attention.sliding_window", V::U32(w)));
        }
        let b = gguf(&kv, &[("token_embd.weight", &[5120, 1000], 1)]);
        to_variant(&parse(&b).unwrap(), "scout.gguf", Bytes(1))
            .unwrap()
            .0
            .arch
    };
    let a = scout(None);
    let w = a.swa.expect("chunked");
    assert!(w.chunked);
    assert_eq!((w.window, w.period), (8192, 4));
    // The same bytes as the catalog's Scout (config.json: attention_chunk_size 8192).
    let cat = catalog()
        .variant("meta-llama/Llama-4-Scout-17B-16E-Instruct")
        .unwrap()
        .1
        .arch
        .clone();
    let types = KvDtype::ALL.iter().filter(|k| k.ggml().is_some());
    for kv in types {
        for (ctx, par) in [
            (512, 1),
            (4096, 1),
            (16_384, 1),
            (131_072, 4),
            (1_048_576, 2),
        ] {
            for unified in [true, false] {
                let p = LlamaParams::new(ctx, par, unified, *kv);
                assert_eq!(
                    llama(&a, &p).bytes,
                    llama(&cat, &p).bytes,
                    "ctx {ctx} par {par} unified {unified} {kv}"
                );
            }
        }
    }
    // 16K, one slot, f16: 12 × 16,384 + 36 × 8,704 cells of 2 × 8 × 128 × 2 B = 4 KiB.
    let p = LlamaParams::new(16_384, 1, true, KvDtype::F16);
    assert_eq!(llama(&a, &p).bytes.get(), (12 * 16_384 + 36 * 8_704) * 4096);
    // sliding_window = 0: every layer global.
    assert!(scout(Some(0)).swa.is_none());
    // A chunk key of another size is not what llama.cpp uses.
    assert_eq!(scout(Some(4096)).swa.map(|w| w.window), Some(8192));
}

/// `general.base_model.*`: the repos a converted fine-tune names as its base, read from their
/// Hugging Face URLs; another host, a path that is not one `org/name` and entries past the
/// count or past eight are not read.
#[test]
fn base_models_are_read_from_their_hub_urls() {
    let base = |count: u32, urls: &[&str]| {
        let mut kv = vec![("general.architecture", V::Str("llama"))];
        let keys: Vec<String> = (0..urls.len())
            .map(|i| format!("general.base_model.{i}.repo_url"))
            .collect();
        kv.push(("general.base_model.count", V::U32(count)));
        for (k, u) in keys.iter().zip(urls) {
            kv.push((k.as_str(), V::Str(u)));
        }
        base_models(&parse(&gguf(&kv, &[])).unwrap())
    };
    let urls = [
        "https://huggingface.co/meta-llama/Llama-3.2-1B-Instruct",
        "https://example.org/meta-llama/Llama-3.2-1B",
        "https://huggingface.co/just-a-name",
        "https://huggingface.co/a/b/c",
        "https://huggingface.co/Qwen/Qwen3-8B/",
    ];
    assert_eq!(
        base(5, &urls),
        vec!["meta-llama/Llama-3.2-1B-Instruct", "Qwen/Qwen3-8B"]
    );
    assert_eq!(base(1, &urls), vec!["meta-llama/Llama-3.2-1B-Instruct"]);
    assert!(base(0, &urls).is_empty());
    // A count no header holds reads at most eight keys.
    let many = [urls[0]; 12];
    assert_eq!(base(u32::MAX, &many).len(), 8);
}

/// LFM2's header (the keys llama.cpp's LLM_ARCH_LFM2 loader reads, src/llama-model.cpp): the
/// short-convolution kernel `lfm2.shortconv.l_cache` and a per-layer `attention.head_count_kv`
/// whose 0 entries are the convolution layers. LFM2-350M's array, `[0, 0, 8, 0, 0, 8, 0, 0, 8,
/// 0, 8, 0, 8, 0, 8, 0]`, is llama.cpp's own print of the released file
/// (https://github.com/ggml-org/llama.cpp/issues/14979). KV only on the 6 attention layers (8 ×
/// 64 wide), an F32 state of 2 × 1024 values on each of the 10 others.
#[test]
fn lfm2_header_reads_as_short_convolutions() {
    use fitcard_estimator::terms::kv::{llama, LlamaParams};
    use fitcard_estimator::KvDtype;
    let embd: &[(&str, &[u64], u32)] = &[("token_embd.weight", &[1024, 65536], 1)];
    let heads = vec![0u32, 0, 8, 0, 0, 8, 0, 0, 8, 0, 8, 0, 8, 0, 8, 0];
    let header = |arch: &'static str| {
        let key = |k: &str| -> &'static str { Box::leak(format!("{arch}.{k}").into_boxed_str()) };
        gguf(
            &[
                ("general.architecture", V::Str(arch)),
                (key("block_count"), V::U32(16)),
                (key("context_length"), V::U32(128_000)),
                (key("embedding_length"), V::U32(1024)),
                (key("feed_forward_length"), V::U32(4608)),
                (key("attention.head_count"), V::U32(16)),
                (key("attention.head_count_kv"), V::U32s(heads.clone())),
                (key("shortconv.l_cache"), V::U32(3)),
            ],
            embd,
        )
    };
    let (v, _) = to_variant(&parse(&header("lfm2")).unwrap(), "lfm2.gguf", Bytes(1)).unwrap();
    let r = v.arch.recurrent.as_ref().expect("short convolutions");
    assert_eq!(r.kind, "shortconv");
    assert_eq!(r.attention_layers, vec![2, 5, 8, 10, 12, 14]);
    assert_eq!(
        (r.conv_kernel, v.arch.kv_heads, v.arch.head_dim),
        (3, 8, 64)
    );
    assert_eq!((v.arch.intermediate, v.arch.max_ctx), (4608, 128_000));
    let k = llama(&v.arch, &LlamaParams::new(4096, 1, false, KvDtype::F16));
    assert_eq!(k.state.get(), 10 * 2 * 1024 * 4);
    assert_eq!(k.bytes.get(), 6 * 4096 * 2 * 512 * 2 + 10 * 2 * 1024 * 4);
    // LFM2-MoE (LLM_ARCH_LFM2MOE, src/models/lfm2moe.cpp) reads its layers the same way; another
    // architecture with a short convolution is refused by name.
    let (m, _) = to_variant(&parse(&header("lfm2moe")).unwrap(), "m.gguf", Bytes(1)).unwrap();
    assert_eq!(m.arch.recurrent, v.arch.recurrent);
    let e = to_variant(&parse(&header("lfm3")).unwrap(), "x.gguf", Bytes(1)).unwrap_err();
    assert!(e.contains("lfm3") && e.contains("not modelled yet"), "{e}");
    // DeepSeek-V4 (llama.cpp's deepseek4) is refused by name whatever its keys say.
    let e = to_variant(&parse(&header("deepseek4")).unwrap(), "v4.gguf", Bytes(1)).unwrap_err();
    assert!(e.contains("deepseek4") && e.contains("DeepSeek-V4"), "{e}");
    // An encoder whose graph is not modelled (BERT, XLM-RoBERTa and nomic-bert are:
    // tests/encoders.rs) has no KV cache in llama.cpp: it is refused by name, not sized as a
    // decoder with a cache it never allocates; so is a diffusion model.
    for (arch, what) in [
        ("jina-bert-v2", "encoder-only"),
        ("neo-bert", "encoder-only"),
        ("llada", "diffusion"),
    ] {
        let e = to_variant(&parse(&header(arch)).unwrap(), "e.gguf", Bytes(1)).unwrap_err();
        assert!(
            e.starts_with(&format!("{arch}: ")) && e.contains(what),
            "{e}"
        );
        assert!(e.contains("no KV cache") && !e.contains('\n'), "{e}");
    }
}

/// A GGUF header of bge-m3's shapes (llama.cpp's `bert`: 24 layers of 1024, FFN 4096, 16 heads,
/// 8192 positions, a 250,002-token embedding) with `pooling` and the `more` tensors.
fn bge_m3(pooling: u32, more: &[(&str, &[u64], u32)]) -> Vec<u8> {
    let mut tensors: Vec<(&str, &[u64], u32)> = vec![("token_embd.weight", &[1024, 250_002], 1)];
    tensors.extend_from_slice(more);
    gguf(
        &[
            ("general.architecture", V::Str("bert")),
            ("bert.block_count", V::U32(24)),
            ("bert.context_length", V::U32(8192)),
            ("bert.embedding_length", V::U32(1024)),
            ("bert.feed_forward_length", V::U32(4096)),
            ("bert.attention.head_count", V::U32(16)),
            ("bert.pooling_type", V::U32(pooling)),
        ],
        &tensors,
    )
}

/// bge-m3's GGUF header (llama.cpp's `bert` architecture, as convert_hf_to_gguf.py writes an
/// XLM-RoBERTa model: 24 layers of 1024, FFN 4096, 16 heads, 8192 positions) reads as an encoder:
/// no KV cache, and an overhead of the CUDA context and the compute buffer of one whole 8192-token
/// input (tests/encoders.rs holds that buffer to llama.cpp's allocator).
#[test]
fn a_bert_header_reads_as_an_encoder() {
    let h = bge_m3(2, &[]);
    let (v, f) = to_variant(&parse(&h).unwrap(), "bge-m3-F16.gguf", Bytes(1_157_670_784)).unwrap();
    assert!(catalog::is_encoder(&v.arch), "{}", v.arch.model_type);
    let i = from_query("ctx=8192&engine=llama.cpp").inputs;
    let e = estimate_file(&i, &v, &f);
    let term = |n: &str| e.terms.iter().find(|t| t.name.id() == n).map(|t| t.bytes);
    assert_eq!(term("kv_cache").unwrap_or_default(), Bytes(0));
    // 2 B × 8192² + 8192 × (4 × (4096 + 3 × 1024) + 12) + 4 × 8192 (one sequence, mean pooling).
    let buffer = 2 * 8192 * 8192 + 8192 * (4 * (4096 + 3 * 1024) + 12) + 4 * 8192;
    let fixed = 330u64 << 20;
    let o = term("overhead").unwrap().get();
    assert_eq!(o, fixed + buffer);
}

/// A reranker's GGUF (bge-reranker-v2-m3: llama.cpp's `bert` with rank pooling and the
/// converter's `cls` and `cls.output` classifier, one label) reads as a reranker, its classifier
/// sized like the catalog row's; bge-m3's header without the classifier stays an embedding model.
#[test]
fn a_bert_header_with_a_classifier_reads_as_a_reranker() {
    use fitcard_estimator::catalog::{read_task, Task};
    let h = bge_m3(
        4,
        &[
            ("cls.weight", &[1024, 1024], 1),
            ("cls.output.weight", &[1024, 1], 1),
        ],
    );
    let (v, _) = to_variant(&parse(&h).unwrap(), "r.gguf", Bytes(1 << 30)).unwrap();
    assert_eq!(v.arch.rank_labels, Some(1));
    assert_eq!(read_task(&v.arch), Some(Task::Rerank));
    let (_, m3) = catalog::base().variant("BAAI/bge-m3").unwrap();
    let (_, r) = catalog::base().variant("BAAI/bge-reranker-v2-m3").unwrap();
    assert_eq!((m3.arch.rank_labels, r.arch.rank_labels), (None, Some(1)));
    let (v, _) = to_variant(&parse(&bge_m3(2, &[])).unwrap(), "e.gguf", Bytes(1 << 30)).unwrap();
    assert_eq!(
        (v.arch.rank_labels, read_task(&v.arch)),
        (None, Some(Task::Embed))
    );
}
