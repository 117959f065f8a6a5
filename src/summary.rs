//! The sentences the page writes beside the verdict from what the estimator computed beyond the
//! memory terms: the KV pool of an engine that preallocates it. Pure, tested on the host.

use fitcard_estimator::inputs::thousands;
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

#[cfg(test)]
mod tests {
    use super::*;
    use fitcard_estimator::{decode, estimate};

    #[test]
    fn counts_read_as_people_say_them() {
        // (value, words)
        let rows = [
            (58.13, "58"),
            (3.14, "3.1"),
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
}
