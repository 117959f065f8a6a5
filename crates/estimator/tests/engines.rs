//! KV cache types as each engine spells them: what each accepts, what it refuses and why, K and
//! V apart on llama.cpp, and the flags the commands write.

use fitcard_estimator::inputs::Key;
use fitcard_estimator::{estimate, from_query, Estimate};

fn est(q: &str) -> Estimate {
    let d = from_query(q);
    assert!(d.clean(), "{q}: {:?}", d.notices);
    estimate(&d.inputs)
}

fn kv(e: &Estimate) -> u64 {
    e.terms
        .iter()
        .find(|t| t.name.id() == "kv_cache")
        .unwrap()
        .bytes
        .get()
}

/// vLLM and transformers keep the cache in the model's dtype (bf16 today): `kv=bf16` is their
/// most common question and is accepted, as are `auto`, vLLM's `bfloat16`, and the 16-bit `f16`
/// of older links; all are the same 2 bytes per value.
#[test]
fn sixteen_bit_caches_are_accepted_where_engines_use_them() {
    let base = "model=Qwen/Qwen3-8B&quant=BF16&ctx=8192";
    for engine in ["vllm", "transformers"] {
        let sizes: Vec<u64> = ["auto", "bf16", "f16"]
            .iter()
            .map(|k| kv(&est(&format!("{base}&engine={engine}&kv={k}"))))
            .collect();
        assert!(
            sizes.windows(2).all(|w| w[0] == w[1]),
            "{engine}: {sizes:?}"
        );
        // 36 layers × 8192 tokens × 2 × 8 KV heads × 128 × 2 B = 1.125 GiB.
        assert_eq!(sizes[0], 36 * 8192 * 2 * 8 * 128 * 2, "{engine}");
    }
    assert!(from_query(&format!("{base}&engine=vllm&kv=bfloat16")).clean());
    // vLLM writes no --kv-cache-dtype for a 16-bit cache (its default `auto`).
    assert!(!est(&format!("{base}&engine=vllm&kv=bf16"))
        .command
        .contains("--kv-cache-dtype"));
}

/// fp8 formats halve vLLM's cache and are written in vLLM's spelling.
#[test]
fn vllm_fp8_formats() {
    let base = "model=Qwen/Qwen3-8B&quant=BF16&ctx=8192&engine=vllm";
    let full = kv(&est(&format!("{base}&kv=auto")));
    for k in ["fp8", "fp8_e4m3", "fp8_e5m2"] {
        let e = est(&format!("{base}&kv={k}"));
        assert_eq!(kv(&e) * 2, full, "{k}");
        assert!(
            e.command.contains(&format!("--kv-cache-dtype {k}")),
            "{}",
            e.command
        );
    }
}

/// What an engine cannot do is refused with the reason, and the engine's default is used.
#[test]
fn refusals_say_why() {
    // (query, words the notice must hold, the type used instead)
    let rows = [
        ("engine=vllm&quant=BF16&kv=q8_0", "--kv-cache-dtype", "auto"),
        ("engine=ollama&kv=q5_1", "OLLAMA_KV_CACHE_TYPE", "f16"),
        (
            "engine=transformers&quant=BF16&kv=fp8",
            "model's dtype",
            "auto",
        ),
        (
            "engine=ollama&kvk=q8_0&kvv=q4_0",
            "one type for K and V",
            "q8_0",
        ),
    ];
    for (q, why, used) in rows {
        let d = from_query(&format!("model=Qwen/Qwen3-8B&{q}"));
        let n = d.notices.iter().find(|n| n.key == Key::Kv);
        assert!(
            n.is_some_and(|n| n.message.contains(why)),
            "{q}: {:?}",
            d.notices
        );
        assert_eq!(d.inputs.kv.id(), used, "{q}");
        assert_eq!(d.inputs.kv_v, None, "{q}");
    }
}

/// llama.cpp sizes K and V apart: cells × (row(K) + row(V)); the command passes both types and
/// turns flash attention on (a quantized V cache needs it).
#[test]
fn llama_cpp_k_and_v_apart() {
    let base = "model=Qwen/Qwen3-8B&ctx=4096";
    let e = est(&format!("{base}&kvk=q8_0&kvv=q4_0"));
    // 36 layers × 4096 cells × (34/32 + 18/32) × 8 × 128 B.
    let n = 8 * 128;
    assert_eq!(kv(&e), 36 * 4096 * (n / 32 * 34 + n / 32 * 18));
    assert!(
        e.command.contains("-fa on -ctk q8_0 -ctv q4_0"),
        "{}",
        e.command
    );
    // iq4_nl: 18 bytes per 32 values, like q4_0.
    let a = kv(&est(&format!("{base}&kvk=q8_0&kvv=iq4_nl")));
    assert_eq!(a, kv(&e));
    // Equal halves are written as one `kv`.
    let d = from_query(&format!("{base}&kvk=q4_1&kvv=q4_1"));
    assert_eq!((d.inputs.kv.id(), d.inputs.kv_v), ("q4_1", None));
}

/// vLLM's startup numbers are in the JSON: the pool on the binding card, its size in tokens
/// (whole 16-token blocks of every layer), and how many requests of `ctx` tokens it holds.
#[test]
fn vllm_pool_numbers() {
    let e =
        est("model=meta-llama/Llama-3.1-8B-Instruct&engine=vllm&quant=BF16&gpu=h100-sxm&ctx=8192");
    let pool = e.kv_pool_bytes.unwrap().get();
    let tokens = e.kv_pool_tokens.unwrap();
    // Llama-3.1-8B: 32 layers × 2 × 8 KV heads × 128 × 2 B = 128 KiB per token.
    let per_token = 32 * 2 * 8 * 128 * 2;
    assert_eq!(tokens % 16, 0);
    assert!(tokens * per_token <= pool && pool < (tokens + 16) * per_token);
    // vLLM prints tokens / max-model-len.
    let conc = e.max_concurrency.unwrap();
    assert!((conc - tokens as f64 / 8192.0).abs() < 1e-9);
    let start = e
        .checks
        .iter()
        .find(|c| c.name.id() == "vllm_startup")
        .unwrap();
    assert!(
        start.ok && start.message.contains(&tokens.to_string()),
        "{}",
        start.message
    );
    // Other engines carry no pool.
    let l = est("model=meta-llama/Llama-3.1-8B-Instruct");
    assert!(l.kv_pool_bytes.is_none() && l.max_concurrency.is_none());
}

/// vLLM refuses to start in two ways, each said as such.
#[test]
fn vllm_startup_failures() {
    // (query, words of the failure)
    let rows = [
        // 16 GiB × 0.9 cannot hold 15 GiB of weights plus the peak.
        ("vram=16", "the weights (and the profiled peak) exceed"),
        // 3.7 GiB of pool cannot hold one 128K-token request (16 GiB).
        (
            "gpu=rtx-4090&ctx=131072",
            "cannot hold one request of --max-model-len 131072",
        ),
    ];
    for (q, words) in rows {
        let e = est(&format!(
            "model=meta-llama/Llama-3.1-8B-Instruct&engine=vllm&quant=BF16&{q}"
        ));
        let c = e
            .checks
            .iter()
            .find(|c| c.name.id() == "vllm_startup")
            .unwrap();
        assert!(!c.ok && c.message.contains(words), "{q}: {}", c.message);
        assert!(!e.fits);
    }
}

/// The same plan on every engine that loads the file, the chosen one first, each with its
/// concurrency flag written even at the default.
#[test]
fn commands_side_by_side() {
    // (query, engines in order, the concurrency flag each writes)
    let rows: [(&str, &[(&str, &str)]); 2] = [
        (
            "model=Qwen/Qwen3-8B&par=1",
            &[("llama.cpp", "-np 1"), ("ollama", "OLLAMA_NUM_PARALLEL=1")],
        ),
        (
            "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&par=3",
            &[
                ("vllm", "--max-num-seqs 3"),
                ("sglang", "--max-running-requests 3"),
                ("transformers", "batch_size=3"),
            ],
        ),
    ];
    for (q, want) in rows {
        let e = est(q);
        let got: Vec<&str> = e.commands.iter().map(|c| c.engine).collect();
        let names: Vec<&str> = want.iter().map(|w| w.0).collect();
        assert_eq!(got, names, "{q}");
        assert_eq!(e.commands[0].command, e.command);
        for (c, (_, flag)) in e.commands.iter().zip(want) {
            assert!(c.command.contains(flag), "{q}: {}", c.command);
            assert!(c.device_bytes.get() > 0);
        }
    }
}

/// SGLang fills `--mem-fraction-static` of each card with the weights and a token pool:
/// `pool = fraction × total − weights − context`, `tokens = pool / bytes per token`
/// (`profile_max_num_token`). Its docs' startup log (Llama-3.1-8B BF16, fraction 0.88, 78.81 GiB
/// free before loading on an 80 GB card, taken as an H100 of 79.19 GiB): "KV Cache is allocated.
/// K size: 27.13 GB, V size: 27.13 GB", "max_total_num_tokens=444500"
/// (https://docs.sglang.ai/start/send_request.html, kept in tests/data/engine-logs.json).
#[test]
fn sglang_pool_matches_its_log() {
    let e = est("model=meta-llama/Llama-3.1-8B-Instruct&engine=sglang&quant=BF16&vram=79.19&util=0.88&ctx=131072");
    let pool = e.kv_pool_bytes.unwrap().gib();
    let tokens = e.kv_pool_tokens.unwrap() as f64;
    assert!((pool - 54.26).abs() / 54.26 < 0.01, "{pool}");
    assert!((tokens - 444_500.0).abs() / 444_500.0 < 0.01, "{tokens}");
    assert!(e.command.starts_with("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 131072 --max-running-requests 1 --tp-size 1 --mem-fraction-static 0.88"), "{}", e.command);
    let start = e
        .checks
        .iter()
        .find(|c| c.name.id() == "sglang_startup")
        .unwrap();
    assert!(start.ok, "{}", start.message);
    // SGLang refuses a cache type it lacks, with its reason.
    let d = from_query("model=Qwen/Qwen3-8B&engine=sglang&quant=BF16&kv=q8_0");
    assert!(
        d.notices.iter().any(|n| n.message.contains("SGLang")),
        "{:?}",
        d.notices
    );
}

/// Mixed cards (`gpus=`): each card against its own memory, layers in proportion to it, the
/// cards summing to the totals; tensor parallelism refused with the reason; llama.cpp `-ts` in
/// proportion, vLLM's pipeline stages given the same layers.
#[test]
fn mixed_cards() {
    let e = est("model=Qwen/Qwen3-32B&gpus=rtx-4090,rtx-3060-12gb&ctx=16384");
    assert_eq!(e.per_card.len(), 2);
    assert!(e.per_card[0].capacity > e.per_card[1].capacity);
    let sum: u64 = e.per_card.iter().map(|c| c.bytes.get()).sum();
    assert_eq!(sum, e.total_device_bytes.get());
    assert!(e.per_card[0].bytes > e.per_card[1].bytes);
    let tp = e
        .checks
        .iter()
        .find(|c| c.name.id() == "tensor_parallel")
        .unwrap();
    assert!(
        !tp.ok && tp.message.contains("different sizes"),
        "{}",
        tp.message
    );
    assert!(e.command.contains("-sm layer -ts 24,12"), "{}", e.command);
    let v = est("model=Qwen/Qwen3-14B&engine=vllm&quant=AWQ&gpus=rtx-4090,rtx-3060-12gb&ctx=16384");
    // 40 layers in proportion to 24 and 12 GiB.
    assert!(
        v.command
            .starts_with("VLLM_PP_LAYER_PARTITION=27,13 vllm serve"),
        "{}",
        v.command
    );
    assert!(v.command.contains("--pipeline-parallel-size 2"));
    // The list is the cards: a contradicting `cards` is reported, and the link round-trips.
    let d = from_query("model=Qwen/Qwen3-8B&gpus=rtx-4090,rtx-4090,l4&cards=2");
    assert!(
        d.notices.iter().any(|n| n.key == Key::Cards),
        "{:?}",
        d.notices
    );
    assert_eq!(d.inputs.cards, 3);
    let again = from_query(&fitcard_estimator::encode(&d.inputs));
    assert!(again.clean(), "{:?}", again.notices);
    assert_eq!(again.inputs, d.inputs);
    // An unknown card in the list is refused by name.
    let bad = from_query("gpus=rtx-4090,rtx-9999");
    assert!(bad
        .notices
        .iter()
        .any(|n| n.key == Key::Gpus && n.message.contains("rtx-9999")));
    assert!(bad.inputs.gpus.is_empty());
}

/// Qwen3 runs to 131,072 tokens with YaRN (its documentation): the context check passes and
/// says so, every engine that can enables it in its own spelling, Ollama cannot and says why,
/// and beyond the YaRN limit the context fails.
#[test]
fn yarn_extends_qwen3_context() {
    let base = "model=Qwen/Qwen3-8B&ctx=131072";
    let l = est(&format!("{base}&vram=48"));
    let c = l
        .checks
        .iter()
        .find(|c| c.name.id() == "context_length")
        .unwrap();
    assert!(c.ok && c.message.contains("YaRN"), "{}", c.message);
    assert!(
        l.command
            .contains("--rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768"),
        "{}",
        l.command
    );
    let v = est(&format!("{base}&engine=vllm&quant=BF16&gpu=h100-sxm"));
    assert!(v.command.contains("--rope-scaling '{\"rope_type\":\"yarn\",\"factor\":4.0,\"original_max_position_embeddings\":32768}'"), "{}", v.command);
    let o = est(&format!("{base}&engine=ollama&vram=48"));
    let c = o
        .checks
        .iter()
        .find(|c| c.name.id() == "context_length")
        .unwrap();
    assert!(!c.ok && c.message.contains("Ollama"), "{}", c.message);
    // Within the native context no rope flag is written.
    assert!(!est("model=Qwen/Qwen3-8B&ctx=32768")
        .command
        .contains("rope"));
    let over = est("model=Qwen/Qwen3-8B&ctx=200000&vram=96");
    assert!(
        !over
            .checks
            .iter()
            .find(|c| c.name.id() == "context_length")
            .unwrap()
            .ok
    );
}

/// A term used outside where its formula was checked says so, next to the term.
#[test]
fn terms_say_when_they_leave_their_domain() {
    let outside = |q: &str, term: &str| {
        est(q)
            .terms
            .iter()
            .find(|t| t.name.id() == term)
            .unwrap()
            .outside_domain
            .clone()
    };
    assert_eq!(outside("model=Qwen/Qwen3-8B", "overhead"), None);
    assert!(outside("model=Qwen/Qwen3-8B&par=4", "overhead")
        .unwrap()
        .contains("one slot"));
    assert!(outside(
        "model=Qwen/Qwen3-8B&engine=transformers&quant=BF16&ctx=2048",
        "kv_cache"
    )
    .unwrap()
    .contains("8K"));
    assert_eq!(
        outside(
            "model=Qwen/Qwen3-8B&engine=vllm&quant=BF16&gpu=h100-sxm",
            "overhead"
        ),
        None
    );
    assert!(outside(
        "model=google/gemma-3-12b-it&engine=vllm&quant=BF16&gpu=h100-sxm",
        "kv_cache"
    )
    .is_some());
}

/// Every cache type a refusal lists reads back as itself, and a refusal lists every one (the
/// list is `KvDtype::ALL`, not typed twice).
#[test]
fn every_listed_cache_type_reads_back() {
    use fitcard_estimator::KvDtype;
    use std::str::FromStr;
    for k in KvDtype::ALL {
        assert_eq!(KvDtype::from_str(k.id()), Ok(k), "{k}");
    }
    let d = fitcard_estimator::from_query("kv=q3_x");
    let msg = &d.notices[0].message;
    for k in KvDtype::ALL {
        assert!(msg.contains(k.id()), "{msg} lacks {k}");
    }
}

/// llama.cpp cuts a micro-batch to the logical batch (src/llama-context.cpp: `cparams.n_ubatch =
/// std::min(cparams.n_batch, params.n_ubatch)`, `-b` 2048 by default), so a `-ub` over 2048 is
/// written with `-b` as large, and the sliding-window cache keeps the larger micro-batch's cells
/// (`n_swa + n_ubatch`, padded to 256): gemma-3-12b's 40 sliding layers of 8 KV heads × 256 hold
/// 1024 + 4096 cells at `-ub 4096`, not the 1024 + 2048 a command without `-b` would run.
#[test]
fn a_micro_batch_over_the_logical_batch_raises_it() {
    let q = |ub: u32| format!("model=google/gemma-3-12b-it&ctx=32768&gpu=h100-sxm&ubatch={ub}");
    let (big, small) = (est(&q(4096)), est(&q(2048)));
    assert!(
        big.command.ends_with(" -b 4096 -ub 4096"),
        "{}",
        big.command
    );
    assert!(
        small.command.ends_with(" -ub 2048") && !small.command.contains(" -b "),
        "{}",
        small.command
    );
    assert_eq!(kv(&big) - kv(&small), 40 * (5120 - 3072) * 8 * 256 * 2 * 2);
    // A model without sliding layers keeps the same cache.
    let dense = |ub: u32| {
        est(&format!(
            "model=Qwen/Qwen3-8B&ctx=32768&gpu=h100-sxm&ubatch={ub}"
        ))
    };
    assert_eq!(kv(&dense(4096)), kv(&dense(2048)));
    // The compute buffer the overhead term (measured at -ub 512) leaves out is said, at its
    // least: the fp16 attention mask of the other 3,584 tokens over 32,768 cells
    // (src/llama-graph.cpp), 32768 × 3584 × 2 B = 224 MiB; none at 512, none on Ollama (which
    // runs its own -ub 512).
    let said = |e: &Estimate| {
        e.warnings
            .iter()
            .find(|w| w.contains("micro-batch"))
            .cloned()
    };
    let w = said(&big).expect("a warning for -ub 4096");
    assert!(
        w.contains("at least 224.0 MiB more (32768 cells × 3584 tokens × 2 B"),
        "{w}"
    );
    assert!(said(&est("model=google/gemma-3-12b-it&ctx=32768&gpu=h100-sxm")).is_none());
    let ollama =
        est("model=google/gemma-3-12b-it&ctx=32768&gpu=h100-sxm&ubatch=4096&engine=ollama");
    assert!(said(&ollama).is_none());
}
