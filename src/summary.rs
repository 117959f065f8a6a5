//! The sentences the page writes beside the verdict from what the estimator computed beyond the
//! memory terms: the KV pool of an engine that preallocates it, the decode speed and what a spill
//! to system RAM costs. Pure, tested on the host.

use fitcard_estimator::inputs::thousands;
use fitcard_estimator::speed::Speed;
use fitcard_estimator::units::tokens_label;
use fitcard_estimator::Estimate;

/// `58.13` → `58`, `3.14` → `3.1`: a count of requests or tokens per second as people read it.
pub fn about(x: f64) -> String {
    if !x.is_finite() {
        return "?".into();
    }
    if x >= 10.0 {
        thousands(x.round() as u64)
    } else {
        let s = format!("{x:.1}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    }
}

/// vLLM and SGLang: the KV pool the engine will allocate and how many requests of `ctx` tokens
/// it holds at once, "KV pool 476,240 tokens · 58× requests of 8K" (`None` on other engines).
pub fn pool(e: &Estimate, ctx: u32) -> Option<String> {
    let tokens = e.kv_pool_tokens?;
    let mut s = format!("KV pool {} tokens", thousands(tokens));
    if let Some(c) = e.max_concurrency {
        s += &format!(" · {}× requests of {}", about(c), tokens_label(ctx));
    }
    Some(s)
}

/// Decode speed per request and over all of them: "≈ 65 tokens/s per request · 262 tokens/s
/// over 4 requests".
pub fn speed(s: &Speed, par: u32) -> String {
    let one = format!("≈ {} tokens/s per request", about(s.decode_tps));
    if par > 1 {
        format!(
            "{one} · {} tokens/s over {par} requests",
            about(s.aggregate_tps)
        )
    } else {
        one
    }
}

/// The cost of layers left in system RAM (llama.cpp and Ollama keep running, slower): "19 layers
/// stay in system RAM: ≈ 5.7 tokens/s instead of 34" (`None` when nothing spills).
pub fn spill(s: &Speed) -> Option<String> {
    (s.offloaded_layers > 0).then(|| {
        format!(
            "{} layer{} stay in system RAM: ≈ {} tokens/s instead of {}",
            s.offloaded_layers,
            if s.offloaded_layers == 1 { "" } else { "s" },
            about(s.decode_tps),
            about(s.on_card_tps)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fitcard_estimator::{decode, estimate};

    #[test]
    fn counts_read_as_people_say_them() {
        // (value, words)
        let rows = [
            (58.13, "58"),
            (3.12, "3.1"),
            (3.0, "3"),
            (0.04, "0"),
            (1234.5, "1,235"),
        ];
        for (x, want) in rows {
            assert_eq!(about(x), want, "{x}");
        }
        assert_eq!(about(f64::NAN), "?");
    }

    #[test]
    fn the_pool_is_said_for_engines_that_preallocate() {
        for engine in ["vllm", "sglang"] {
            let q =
                format!("engine={engine}&model=Qwen/Qwen3-8B&quant=BF16&vram=80&ctx=8192&par=4");
            let e = estimate(&decode(&q).inputs);
            let p = pool(&e, 8192).expect(engine);
            let tokens = thousands(e.kv_pool_tokens.unwrap());
            assert!(p.starts_with(&format!("KV pool {tokens} tokens · ")), "{p}");
            assert!(p.ends_with("× requests of 8K"), "{p}");
        }
        let e = estimate(&decode("engine=llama.cpp").inputs);
        assert_eq!(pool(&e, 8192), None);
    }

    #[test]
    fn speed_per_request_and_over_all_of_them() {
        let s = Speed {
            decode_tps: 65.47,
            aggregate_tps: 261.9,
            offloaded_bytes: 0,
            offloaded_layers: 0,
            on_card_tps: 65.47,
        };
        assert_eq!(
            speed(&s, 4),
            "≈ 65 tokens/s per request · 262 tokens/s over 4 requests"
        );
        assert_eq!(speed(&s, 1), "≈ 65 tokens/s per request");
        assert_eq!(spill(&s), None);
    }

    #[test]
    fn a_spill_says_what_it_costs() {
        // Gemma 3 27B Q8_0 on one 24 GiB card: llama.cpp leaves layers in system RAM.
        let e = estimate(&decode("model=google/gemma-3-27b-it&quant=Q8_0&ctx=8192&par=4").inputs);
        let s = e.speed.expect("the RTX 4090's bandwidth is known");
        assert!(s.offloaded_layers > 0);
        let w = spill(&s).unwrap();
        assert!(
            w.starts_with(&format!(
                "{} layers stay in system RAM: ≈ ",
                s.offloaded_layers
            )),
            "{w}"
        );
        assert!(
            w.ends_with(&format!("tokens/s instead of {}", about(s.on_card_tps))),
            "{w}"
        );
    }
}
