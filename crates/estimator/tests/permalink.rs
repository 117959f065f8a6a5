//! The permalink codec: round trips, tolerant decoding with reported fallbacks, and no panic or
//! overflow on any input (property-tested over random query strings).

use fitcard_estimator::inputs::limits;
use fitcard_estimator::inputs::Key;
use fitcard_estimator::{encode, estimate, from_query, rank, GpuChoice, Inputs};
use proptest::prelude::*;

fn keys(q: &str) -> Vec<&str> {
    q.split('&').map(|p| p.split('=').next().unwrap()).collect()
}

#[test]
fn encode_writes_every_parameter_in_order() {
    let q = encode(&Inputs::default());
    assert_eq!(
        keys(&q),
        [
            "v", "mode", "model", "quant", "ctx", "par", "cards", "gpu", "engine", "kv", "kvu",
            "ubatch", "swafull", "util", "method", "rank", "bsz", "seq", "gc", "optim", "targets"
        ]
    );
    assert!(q.starts_with("v=1&mode=serve&model=google/gemma-3-12b-it&quant=Q4_K_M&ctx=8192&par=1&cards=1&gpu=rtx-4090"));
}

#[test]
fn round_trip_restores_everything() {
    // One row per kind of value: catalog GPU vs free VRAM, flags, floats, train keys, embed.
    let queries = [
        "v=1&mode=serve&model=google/gemma-3-1b-it&quant=F16&ctx=4096&par=4&cards=2&vram=22.5&engine=llama.cpp&kv=q8_0&kvu=1&ubatch=1024&swafull=1&util=0.9",
        "v=1&mode=train&model=google/gemma-3-12b-it&quant=Q4_K_M&ctx=8192&par=1&cards=1&gpu=rtx-4090&engine=llama.cpp&kv=f16&method=lora&rank=64&bsz=4&seq=4096&gc=true&optim=sgd&targets=q,v&free=24,11.5&pick=1&embed=1",
        // Offload and bandwidth keys.
        "v=1&model=Qwen/Qwen3-32B&vram=12&bw=360&ram_bw=89.6&ngl=30&nkvo=1&engine=llama.cpp",
        "v=1&model=Qwen/Qwen3-32B&gpu=rtx-3060-12gb&ngl=0&engine=ollama",
    ];
    for q in queries {
        let d = from_query(q);
        assert!(d.clean(), "{q}: {:?}", d.notices);
        let again = from_query(&encode(&d.inputs));
        assert!(again.clean(), "{:?}", again.notices);
        assert_eq!(again.inputs, d.inputs);
    }
}

#[test]
fn bad_values_fall_back_and_name_the_key() {
    // (query, key reported, the query it reads as: the refused value left out, so the key keeps
    // its default or its first value)
    let cases: &[(&str, &str, &str)] = &[
        ("ctx=0", "ctx", ""),                              // zero context
        ("ctx=1000000000", "ctx", ""),                     // 10^9 tokens
        ("cards=0", "cards", ""),                          // no card
        ("cards=1024", "cards", ""),                       // absurd card count
        ("vram=-1", "vram", ""),                           // negative VRAM
        ("vram=NaN", "vram", ""),                          // not a number
        ("vram=inf", "vram", ""),                          // infinite
        ("par=abc", "par", ""),                            // not a number
        ("model=acme/unknown-9b", "model", ""),            // not in the catalog
        ("quant=Q3_K_XL", "quant", ""),                    // unknown format
        ("gpu=rtx-9999", "gpu", ""),                       // unknown GPU
        ("engine=tgi", "engine", ""),                      // unknown engine
        ("kv=q2_k", "kv", ""),                             // unknown KV type
        ("wat=1", "wat", ""),                              // unknown key
        ("ctx=4096&ctx=8192", "ctx", "ctx=4096"),          // duplicate key: the first wins
        ("v=2", "v", ""),                                  // unknown version
        ("vram=24&bw=0", "bw", "vram=24"),                 // no bandwidth
        ("vram=24&bw=1e9", "bw", "vram=24"),               // absurd bandwidth
        ("gpu=rtx-4090&bw=900", "bw", "gpu=rtx-4090"),     // bw= describes a vram= card only
        ("ram_bw=abc", "ram_bw", ""),                      // not a number
        ("ram_bw=-5", "ram_bw", ""),                       // negative
        ("ngl=-1", "ngl", ""),                             // negative layer count
        ("ngl=99999", "ngl", ""),                          // beyond the bound
        ("ngl=2.5", "ngl", ""),                            // not whole
        ("engine=vllm&ngl=10", "ngl", "engine=vllm"),      // vLLM does not offload layers
        ("nkvo=2", "nkvo", ""),                            // not a flag
        ("engine=ollama&nkvo=1", "nkvo", "engine=ollama"), // Ollama has no such setting
        ("util=1.5", "util", ""),                          // out of range
        ("targets=q,zz", "targets", ""),                   // unknown module
        ("gpu=rtx-4090&vram=24", "vram", "gpu=rtx-4090"),  // both card forms
    ];
    for (q, key, kept) in cases {
        let d = from_query(q);
        assert!(
            d.notices.iter().any(|n| n.key.as_str() == *key),
            "{q}: {:?}",
            d.notices
        );
        assert!(!d.notices[0].message.is_empty());
        // The library keeps a safe default for the refused key, and everything else as given.
        let want = from_query(kept);
        assert!(want.clean(), "{kept}: {:?}", want.notices);
        assert_eq!(d.inputs, want.inputs, "{q} reads as {kept}");
    }
}

#[test]
fn format_missing_for_engine_is_replaced_by_nearest() {
    // Q4_K_M is a GGUF format; vLLM loads safetensors.
    let d = from_query("model=google/gemma-3-1b-it&quant=Q4_K_M&engine=vllm");
    assert!(
        d.notices.iter().any(|n| n.key == Key::Quant),
        "{:?}",
        d.notices
    );
    let e = estimate(&d.inputs);
    assert!(!e.terms.is_empty());
}

/// Inputs built in code (not decoded) are checked too: an unknown GPU id is reported and replaced.
#[test]
fn normalize_checks_programmatic_inputs() {
    let mut i = Inputs {
        gpu: GpuChoice::Catalog("rtx-9999".into()),
        ..Inputs::default()
    };
    let n = fitcard_estimator::inputs::permalink::normalize(&mut i);
    assert!(n.iter().any(|n| n.key == Key::Gpu), "{n:?}");
    assert_eq!(i.gpu, Inputs::default().gpu);
}

/// A default the user never wrote is adjusted silently: `engine=vllm` alone is a clean link.
#[test]
fn unstated_defaults_adjust_silently() {
    let d = from_query("engine=vllm");
    assert!(d.clean(), "{:?}", d.notices);
    assert_eq!(d.inputs.quant.to_string(), "BF16");
}

#[test]
fn leading_question_mark_and_escapes() {
    let d = from_query("?model=google%2Fgemma-3-1b-it&quant=f16&engine=llama.cpp");
    assert!(d.clean(), "{:?}", d.notices);
    assert_eq!(d.inputs.model, "google/gemma-3-1b-it");
}

#[test]
fn limits_are_inclusive() {
    let q = format!(
        "ctx={}&par={}&cards={}",
        limits::CTX.1,
        limits::PAR.1,
        limits::CARDS.1
    );
    let d = from_query(&q);
    assert!(d.clean(), "{:?}", d.notices);
    // Extreme but accepted values still estimate without overflow.
    let e = estimate(&d.inputs);
    assert!(!e.fits);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// Any string decodes without panic, and what it decodes to estimates, ranks and round-trips.
    #[test]
    fn any_query_is_safe(q in "[a-z0-9=&%.,_/+-]{0,80}") {
        let d = from_query(&q);
        let e = estimate(&d.inputs);
        prop_assert!(e.total_device_bytes.get() < u64::MAX);
        let back = from_query(&encode(&d.inputs));
        prop_assert!(back.clean(), "{:?}", back.notices);
        prop_assert_eq!(back.inputs, d.inputs);
    }

    /// Structured queries with extreme numbers: never panic, never overflow.
    #[test]
    fn extreme_numbers_are_safe(
        key in prop::sample::select(vec!["ctx", "par", "cards", "vram", "ubatch", "util", "rank", "bsz", "seq", "free"]),
        val in prop_oneof![
            any::<i64>().prop_map(|x| x.to_string()),
            any::<f64>().prop_map(|x| x.to_string()),
            Just("1e309".to_string()), Just("-0".to_string()), Just("".to_string()),
        ],
        ctx in 1u32..=4_194_304, par in 1u32..=1024, cards in 1u32..=64,
    ) {
        let d = from_query(&format!("{key}={val}&engine=vllm"));
        let _ = estimate(&d.inputs);
        let i = Inputs { ctx, par, cards, ..d.inputs };
        let e = estimate(&i);
        prop_assert_eq!(e.per_card.len() as u32, cards);
        let _ = rank(&Inputs { ctx, par, cards, ..Inputs::default() });
    }
}

/// `Key::ALL` is the decoder's list: each key is read (no "unknown parameter" notice, whatever its
/// value), and a key outside it is not.
#[test]
fn keys_lists_every_key_the_decoder_reads() {
    use fitcard_estimator::inputs::Key;
    for k in Key::ALL {
        let d = fitcard_estimator::from_query(&format!("{k}=x"));
        assert!(
            d.notices
                .iter()
                .all(|n| !n.message.contains("unknown parameter")),
            "{k}: {:?}",
            d.notices
        );
    }
    let d = fitcard_estimator::from_query("nosuchkey=1");
    assert!(d
        .notices
        .iter()
        .any(|n| n.message.contains("unknown parameter")));
    // The decoder's match arms (`apply` and its groups of keys), read from its source: every
    // one is a Key.
    let src = include_str!("../src/inputs/permalink/keys.rs");
    let body = &src[src.find("fn apply(").unwrap()..src.find("fn version(").unwrap()];
    let mut arms: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("        \"")?.split('"').next())
        .collect();
    arms.dedup();
    assert!(arms.len() >= 40, "{arms:?}");
    for a in &arms {
        assert!(a.parse::<Key>().is_ok(), "{a} is read but not a Key");
    }
    assert_eq!(arms.len(), Key::ALL.len(), "{arms:?}");
}
