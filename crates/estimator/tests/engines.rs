//! KV cache types as each engine spells them: what each accepts, what it refuses and why, K and
//! V apart on llama.cpp, and the flags the commands write.

use fitcard_estimator::{decode, estimate, Estimate};

fn est(q: &str) -> Estimate {
    let d = decode(q);
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
    assert!(decode(&format!("{base}&engine=vllm&kv=bfloat16")).clean());
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
        let d = decode(&format!("model=Qwen/Qwen3-8B&{q}"));
        let n = d.notices.iter().find(|n| n.key == "kv");
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
    let d = decode(&format!("{base}&kvk=q4_1&kvv=q4_1"));
    assert_eq!((d.inputs.kv.id(), d.inputs.kv_v), ("q4_1", None));
}
