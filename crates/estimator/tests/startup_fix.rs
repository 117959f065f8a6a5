//! When vLLM's or SGLang's pool cannot hold one request of the context, the verdict says what
//! would start (`startup_fix`): the longest `--max-model-len` (vLLM's own
//! `estimate_max_model_len`: the longest whose one request fits the pool) and the smallest
//! `--gpu-memory-utilization`. Each is checked by running the estimate again with it.

use fitcard_estimator::{estimate, from_query, Estimate};

fn run(q: &str) -> Estimate {
    let d = from_query(q);
    assert!(d.clean(), "{q}: {:?}", d.notices);
    estimate(&d.inputs)
}

/// `q` with `key` set to `value` (replaced, or added).
fn set(q: &str, key: &str, value: &str) -> String {
    let mut parts: Vec<String> = q
        .split('&')
        .filter(|p| p.split('=').next() != Some(key))
        .map(String::from)
        .collect();
    parts.push(format!("{key}={value}"));
    parts.join("&")
}

fn starts(e: &Estimate) -> bool {
    e.checks
        .iter()
        .filter(|c| matches!(c.name.id(), "vllm_startup" | "sglang_startup"))
        .all(|c| c.ok)
}

fn startup_text(e: &Estimate) -> String {
    e.checks
        .iter()
        .filter(|c| matches!(c.name.id(), "vllm_startup" | "sglang_startup"))
        .map(|c| c.message.clone())
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Plans whose pool is too small for one request, over engines, cards and layouts.
const SHORT: &[&str] = &[
    "model=Qwen/Qwen3-8B&quant=BF16&engine=vllm&gpu=rtx-4090&ctx=40960",
    "model=Qwen/Qwen3-14B&quant=FP8&engine=vllm&gpu=rtx-4090&ctx=40960",
    "model=meta-llama/Llama-3.1-8B-Instruct&quant=BF16&engine=vllm&gpu=l4&ctx=131072",
    "model=google/gemma-3-27b-it&quant=BF16&engine=vllm&gpu=a100-80gb&ctx=131072&util=0.8",
    "model=meta-llama/Llama-3.3-70B-Instruct&quant=BF16&engine=vllm&gpu=h100-sxm&cards=2&ctx=131072&util=0.9",
    "model=meta-llama/Llama-3.3-70B-Instruct&quant=BF16&engine=vllm&gpu=a100-80gb&cards=2&tp=1&pp=2&ctx=131072&util=0.85",
    "model=Qwen/Qwen3-8B&quant=BF16&engine=sglang&gpu=rtx-4090&ctx=40960&util=0.8",
];

#[test]
fn each_setting_named_starts_and_one_step_more_does_not() {
    for q in SHORT {
        let e = run(q);
        assert!(!starts(&e), "{q} should not start: {}", startup_text(&e));
        let fix = e
            .startup_fix
            .unwrap_or_else(|| panic!("{q}: no startup_fix"));
        let len = fix
            .max_model_len
            .unwrap_or_else(|| panic!("{q}: no length"));
        let ctx = from_query(q).inputs.ctx as u64;
        assert!(len < ctx, "{q}: {len}");
        // The layout the command writes stays: another context may choose another split.
        let pinned = match &e.parallel {
            Some(p) => set(q, "tp", &p.tp.to_string()),
            None => q.to_string(),
        };
        let at = |l: u64| run(&set(&pinned, "ctx", &l.to_string()));
        assert!(
            starts(&at(len)),
            "{q}: {len} does not start: {}",
            startup_text(&at(len))
        );
        assert!(!starts(&at(len + 1)), "{q}: {} starts too", len + 1);
        let text = startup_text(&e);
        let flag = if q.contains("sglang") {
            "--context-length"
        } else {
            "--max-model-len"
        };
        assert!(text.contains(&format!("{flag} {len}")), "{q}: {text}");
        if let Some(u) = fix.util {
            let with = |u: f64| run(&set(&pinned, "util", &u.to_string()));
            assert!(starts(&with(u)), "{q}: util {u} does not start");
            let less = ((u * 100.0).round() - 1.0) / 100.0;
            assert!(!starts(&with(less)), "{q}: util {less} starts too");
        }
        assert!(!e.fits);
    }
}

/// The longest length by hand: Qwen3-8B keeps 36 layers × 8 KV heads × 128 × (K + V) × 2 B =
/// 147,456 B per token (its config.json), in 16-token blocks: the pool's whole blocks.
#[test]
fn longest_length_is_the_pools_whole_blocks() {
    let e = run(SHORT[0]);
    let pool = e.kv_pool_bytes.expect("pool").0;
    let block = 16 * 36 * 8 * 128 * 2 * 2u64;
    let want = pool / block * 16;
    assert_eq!(e.startup_fix.and_then(|f| f.max_model_len), Some(want));
    // It is the token count vLLM prints for the pool too.
    assert_eq!(e.kv_pool_tokens, Some(want));
}

/// A plan whose weights alone exceed the card: neither setting starts it, and the words say so.
#[test]
fn no_setting_starts_weights_over_the_card() {
    let e = run("model=openai/gpt-oss-120b&engine=vllm&gpu=rtx-4090&ctx=131072");
    let fix = e.startup_fix.expect("fix");
    assert_eq!((fix.max_model_len, fix.util), (None, None));
    assert!(
        startup_text(&e).contains("no --max-model-len or --gpu-memory-utilization starts it"),
        "{}",
        startup_text(&e)
    );
}

/// A plan that starts has no fix, and a plan on llama.cpp never has one.
#[test]
fn no_fix_when_it_starts() {
    for q in [
        "model=Qwen/Qwen3-8B&quant=BF16&engine=vllm&gpu=h100-sxm&ctx=40960",
        "model=Qwen/Qwen3-8B&quant=Q4_K_M&engine=llama.cpp&gpu=rtx-4090&ctx=40960",
    ] {
        assert_eq!(run(q).startup_fix, None, "{q}");
    }
}

/// One request's need as vLLM prints it when it refuses: gpt-oss-120b at 131,072 tokens with
/// `--max-num-batched-tokens 1024` "needs 4.54 GiB" (vllm-project/vllm#27508): 18 global layers
/// × 131,072 tokens and 18 sliding layers × (⌈(128 − 1 + 1024)/16⌉ + 1) × 16 tokens, × 8 KV
/// heads × 64 × (K + V) × 2 B.
#[test]
fn one_requests_need_matches_vllms_refusal() {
    use fitcard_estimator::terms::kv;
    let d = from_query("model=openai/gpt-oss-120b&engine=vllm&quant=MXFP4&gpu=h100-sxm");
    let a = &fitcard_estimator::catalog()
        .variant(&d.inputs.model)
        .expect("catalog model")
        .1
        .arch;
    let need = kv::paged(a, 131_072, 1, d.inputs.kv, 1, 1024);
    assert_eq!(format!("{:.2}", need.gib()), "4.54");
    assert_eq!(need.0, (18 * 131_072 + 18 * 73 * 16) * 8 * 64 * 2 * 2);
    // The default step on an H100 (8192) is what `vllm serve` admits a request against.
    assert_eq!(
        fitcard_estimator::serve::placement::default_batched_tokens(&d.inputs),
        8192
    );
    let small = from_query("model=openai/gpt-oss-120b&engine=vllm&gpu=rtx-4090").inputs;
    assert_eq!(
        fitcard_estimator::serve::placement::default_batched_tokens(&small),
        2048
    );
    let a100 = from_query("model=openai/gpt-oss-120b&engine=vllm&gpu=a100-80gb").inputs;
    assert_eq!(
        fitcard_estimator::serve::placement::default_batched_tokens(&a100),
        2048
    );
}

/// Several requests hold one prefill step between them, not one each: gemma-3-27b (52 sliding
/// layers, window 1024) at 32,768 tokens and 3 requests on an H100 (step 8192) holds three
/// window-sized requests plus (⌈(1023 + 8192)/16⌉ + 1 − ⌈(1024 + 16)/16⌉) × 16 tokens more on
/// each sliding layer.
#[test]
fn requests_share_one_prefill_step() {
    use fitcard_estimator::terms::kv;
    let d = from_query("model=google/gemma-3-27b-it&engine=vllm&gpu=h100-sxm");
    let a = &fitcard_estimator::catalog()
        .variant(&d.inputs.model)
        .expect("catalog model")
        .1
        .arch;
    let (_, sliding) = a.kv_layer_split();
    let window = kv::paged(a, 32_768, 3, d.inputs.kv, 1, 0);
    let held = kv::paged(a, 32_768, 3, d.inputs.kv, 1, 8192);
    let one_window = kv::paged(a, 32_768, 1, d.inputs.kv, 1, 0);
    assert_eq!(window.0, 3 * one_window.0);
    let extra_tokens = ((1023 + 8192u64).div_ceil(16) + 1 - (1024 + 16u64).div_ceil(16)) * 16;
    // One token of one sliding layer: 16 KV heads × 128 × (K + V) × 2 B (BF16).
    assert_eq!(sliding, 52);
    assert_eq!(
        held.0 - window.0,
        extra_tokens * u64::from(sliding) * 16 * 128 * 2 * 2
    );
}
