//! The sentences the page writes beside the verdict from what the estimator computed beyond the
//! memory terms: the KV pool of an engine that preallocates it, the decode speed and what a spill
//! to system RAM costs, and the limits solved with every other input held. Pure, tested on the
//! host.

use fitcard_estimator::catalog::catalog;
use fitcard_estimator::inputs::thousands;
use fitcard_estimator::serve::measured::MeasuredSpeed;
use fitcard_estimator::serve::speed::Speed;
use fitcard_estimator::solve::{Solution, Target};
use fitcard_estimator::units::{tokens_label, Fixed};
use fitcard_estimator::{Estimate, Inputs, Mode};

/// `58.13` → `58`, `3.14` → `3.1`: a count of requests or tokens per second as people read it.
pub fn about(x: f64) -> String {
    if !x.is_finite() {
        return "?".into();
    }
    if x >= 10.0 {
        thousands(x.round() as u64)
    } else {
        let s = Fixed(x, 1).to_string();
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    }
}

/// The numbers under a serve-mode verdict: the fullest card's memory against its capacity (or
/// its budget) and the headroom, led by the reason when the memory fits but the plan does not
/// (`None` without a card).
pub fn verdict_line(e: &Estimate) -> Option<String> {
    let c = e.per_card.iter().rev().max_by_key(|c| c.bytes)?;
    let limit = if c.budget < c.capacity {
        format!("{} budget of {}", c.budget, c.capacity)
    } else {
        c.capacity.to_string()
    };
    let per = if e.per_card.iter().all(|x| x.bytes == c.bytes) {
        "per card"
    } else {
        "on the fullest card"
    };
    let memory = format!("{} of {limit} {per} · headroom {}", c.bytes, e.headroom());
    Some(match e.lead_reason() {
        Some(why) => format!("{why} · {memory}"),
        None => memory,
    })
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

/// Decode speed per request and over all of them, and how long the first token of a prompt that
/// fills the context takes: "≈ 65 tokens/s per request · 262 tokens/s over 4 requests · first
/// token after ≈ 2.3 s for a prompt of 32K".
pub fn speed(s: &Speed, par: u32, ctx: u32) -> String {
    // A request reads more of its KV cache as its context fills: the start of a conversation
    // first, when it reads differently.
    let (start, full) = (about(s.decode_tps_start), about(s.decode_tps));
    let mut line = if start == full {
        format!("≈ {full} tokens/s per request")
    } else {
        format!(
            "≈ {start} tokens/s per request at the start, {full} with the {} context full",
            tokens_label(ctx)
        )
    };
    if par > 1 {
        line += &format!(" · {} tokens/s over {par} requests", about(s.aggregate_tps));
    }
    if let Some(t) = s.ttft_s {
        line += &format!(
            " · first token after ≈ {} for a prompt of {}",
            seconds(t),
            tokens_label(ctx)
        );
    }
    line
}

/// A published measurement of the configuration shown: "Measured: 130.58 tokens/s per request
/// (llama-bench tg512, Meta-Llama-3-8B Q4_K_M)".
pub fn measured(m: &MeasuredSpeed) -> String {
    format!("Measured: {m}")
}

/// `0.042` → `42 ms`, `2.34` → `2.3 s`, `754` → `13 min`.
pub fn seconds(t: f64) -> String {
    if t < 1.0 {
        format!("{} ms", about(t * 1000.0))
    } else if t < 120.0 {
        format!("{} s", about(t))
    } else {
        format!("{} min", about(t / 60.0))
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

/// What is solved for in each mode: the longest context, the most slots, the fewest cards and
/// the smallest catalog GPU when serving; the longest sequence and the largest batch when
/// training.
pub fn targets(mode: Mode) -> &'static [Target] {
    match mode {
        Mode::Serve => &[Target::Ctx, Target::Par, Target::Cards, Target::Gpu],
        Mode::Train => &[Target::Seq, Target::Bsz],
    }
}

/// `4 slots`, `1 slot`.
fn count(n: impl std::fmt::Display + PartialEq<u32>, what: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{n} {what}{s}")
}

/// One solved limit in words: "up to 47,104 tokens at 4 slots", "9 slots of 8K", "fewest
/// cards: 1", "smallest GPU: NVIDIA GeForce RTX 4060 Ti 16GB"; when nothing fits, the solver's
/// own sentence.
pub fn limit(s: &Solution, i: &Inputs) -> String {
    let n = s.value.as_deref().and_then(|v| v.parse::<u32>().ok());
    match (s.target, n, s.value.as_deref()) {
        (Target::Ctx, Some(c), _) => format!(
            "up to {} tokens at {}",
            thousands(c.into()),
            count(i.par, "slot")
        ),
        (Target::Par, Some(p), _) => format!("{} of {}", count(p, "slot"), tokens_label(i.ctx)),
        (Target::Cards, Some(c), _) => format!("fewest cards: {c}"),
        (Target::Gpu, _, Some(id)) => {
            let name = catalog().gpu(id).map_or(id, |g| g.name.as_str());
            format!("smallest GPU: {name}")
        }
        (Target::Seq, Some(q), _) => format!(
            "sequences up to {} tokens at batch {}",
            thousands(q.into()),
            i.train.bsz
        ),
        (Target::Bsz, Some(b), _) => format!(
            "batches up to {b} at {} tokens",
            thousands(i.train.seq.into())
        ),
        _ => s.message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fitcard_estimator::{estimate, from_query};

    #[test]
    fn the_verdict_line_names_the_fullest_card_and_its_budget() {
        let e = estimate(&from_query("model=google/gemma-3-12b-it&gpu=rtx-4090").inputs);
        let c = &e.per_card[0];
        assert!(e.lead_reason().is_none());
        assert_eq!(
            verdict_line(&e).unwrap(),
            format!(
                "{} of {} per card · headroom {}",
                c.bytes,
                c.capacity,
                e.headroom()
            )
        );
        // vLLM takes a share of each card: the line says the budget it leaves.
        let e = estimate(&from_query("model=Qwen/Qwen3-8B&engine=vllm&gpu=rtx-4090").inputs);
        let c = &e.per_card[0];
        assert!(c.budget < c.capacity);
        assert!(verdict_line(&e).unwrap().starts_with(&format!(
            "{} of {} budget of {} per card",
            c.bytes, c.budget, c.capacity
        )));
    }

    #[test]
    fn solved_limits_in_words() {
        use fitcard_estimator::solve::solve;
        let i = from_query("model=Qwen/Qwen3-8B&engine=sglang&quant=BF16&vram=80&ctx=8192&par=4")
            .inputs;
        let words: Vec<String> = targets(Mode::Serve)
            .iter()
            .map(|&t| limit(&solve(&i, t), &i))
            .collect();
        let n = |t| solve(&i, t).value.unwrap();
        let ctx: u32 = n(Target::Ctx).parse().unwrap();
        assert_eq!(
            words[0],
            format!("up to {} tokens at 4 slots", thousands(ctx.into()))
        );
        assert_eq!(words[1], format!("{} slots of 8K", n(Target::Par)));
        assert_eq!(words[2], "fewest cards: 1");
        let gpu = n(Target::Gpu);
        assert_eq!(
            words[3],
            format!("smallest GPU: {}", catalog().gpu(&gpu).unwrap().name)
        );
        // Train mode solves for the sequence and the batch.
        let t = from_query("mode=train&bsz=2&seq=2048").inputs;
        let words: Vec<String> = targets(Mode::Train)
            .iter()
            .map(|&g| limit(&solve(&t, g), &t))
            .collect();
        assert!(
            words[0].starts_with("sequences up to ") && words[0].ends_with(" tokens at batch 2")
        );
        assert!(words[1].starts_with("batches up to ") && words[1].ends_with(" at 2,048 tokens"));
        // Nothing fits: the solver says so.
        let s = Solution {
            target: Target::Par,
            value: None,
            message: "not even one request of 8192 tokens fits".into(),
            evaluations: 1,
        };
        assert_eq!(limit(&s, &i), s.message);
    }

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
            let e = estimate(&from_query(&q).inputs);
            let p = pool(&e, 8192).expect(engine);
            let tokens = thousands(e.kv_pool_tokens.unwrap());
            assert!(p.starts_with(&format!("KV pool {tokens} tokens · ")), "{p}");
            assert!(p.ends_with("× requests of 8K"), "{p}");
        }
        let e = estimate(&from_query("engine=llama.cpp").inputs);
        assert_eq!(pool(&e, 8192), None);
    }

    #[test]
    fn speed_per_request_and_over_all_of_them() {
        let mut s = Speed {
            decode_tps: 65.47,
            decode_tps_start: 65.2,
            aggregate_tps: 261.9,
            offloaded_bytes: 0,
            offloaded_layers: 0,
            on_card_tps: 65.47,
            bandwidth_gbs: 1008.0,
            efficiency: 0.81,
            ram_bw_gbs: 76.8,
            ram_efficiency: fitcard_estimator::serve::speed::HOST_EFF,
            prefill_tps: None,
            ttft_s: None,
            measured: None,
            spec_speedup: None,
        };
        assert_eq!(
            speed(&s, 4, 8192),
            "≈ 65 tokens/s per request · 262 tokens/s over 4 requests"
        );
        assert_eq!(speed(&s, 1, 8192), "≈ 65 tokens/s per request");
        assert_eq!(spill(&s), None);
        // With the prefill: the first token of a prompt that fills the context.
        s.ttft_s = Some(2.34);
        assert_eq!(
            speed(&s, 1, 32768),
            "≈ 65 tokens/s per request · first token after ≈ 2.3 s for a prompt of 32K"
        );
        assert_eq!(
            speed(&s, 4, 8192),
            "≈ 65 tokens/s per request · 262 tokens/s over 4 requests · first token after ≈ 2.3 s for a prompt of 8K"
        );
    }

    #[test]
    fn the_start_of_a_conversation_is_said_when_it_reads_faster() {
        let e = estimate(
            &from_query("model=google/gemma-3-27b-it&quant=Q4_K_M&ctx=131072&par=1&gpu=rtx-5090")
                .inputs,
        );
        let s = e.speed.expect("a catalog card with its bandwidth");
        assert!(s.decode_tps_start > s.decode_tps * 1.05, "{s:?}");
        let line = speed(&s, 1, 131072);
        assert!(
            line.starts_with(&format!(
                "≈ {} tokens/s per request at the start, {} with the 128K context full",
                about(s.decode_tps_start),
                about(s.decode_tps)
            )),
            "{line}"
        );
    }

    #[test]
    fn seconds_read_as_people_say_them() {
        // (seconds, words)
        for (t, want) in [
            (0.0423, "42 ms"),
            (2.34, "2.3 s"),
            (41.6, "42 s"),
            (754.0, "13 min"),
        ] {
            assert_eq!(seconds(t), want, "{t}");
        }
    }

    #[test]
    fn the_estimate_has_a_first_token_time_on_a_catalog_card() {
        // The default configuration (an RTX 4090): its FP16 throughput is known.
        let i = from_query("ctx=32768").inputs;
        let s = estimate(&i)
            .speed
            .expect("the RTX 4090's bandwidth is known");
        let w = speed(&s, i.par, i.ctx);
        assert!(w.contains(" · first token after ≈ "), "{w}");
        assert!(w.ends_with(" for a prompt of 32K"), "{w}");
    }

    #[test]
    fn a_spill_says_what_it_costs() {
        // Gemma 3 27B Q8_0 on one 24 GiB card: llama.cpp leaves layers in system RAM.
        let e =
            estimate(&from_query("model=google/gemma-3-27b-it&quant=Q8_0&ctx=8192&par=4").inputs);
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

    #[test]
    fn a_published_measurement_of_the_same_configuration_is_shown_with_its_source() {
        // Llama 3 8B Q4_K_M on one RTX 4090, one request, F16 cache: llama-bench's tg512 row
        // (the XiongjieDai notebooks, on the base checkpoint of the same shapes).
        let q = "model=meta-llama/Meta-Llama-3-8B-Instruct&quant=Q4_K_M&gpu=rtx-4090&ctx=8192";
        let e = estimate(&from_query(&format!("{q}&par=1")).inputs);
        let m = e.speed.and_then(|s| s.measured).expect("a published row");
        assert_eq!(
            measured(&m),
            "Measured: 130.58 tokens/s per request (llama-bench tg512, Meta-Llama-3-8B Q4_K_M)"
        );
        assert!(
            m.url.starts_with("https://github.com/XiongjieDai/"),
            "{}",
            m.url
        );
        // Another configuration of it is not "this very configuration".
        for other in [
            "&par=2",
            "&par=1&kv=q8_0",
            "&par=1&engine=ollama",
            "&par=1&cards=2",
        ] {
            let e = estimate(&from_query(&format!("{q}{other}")).inputs);
            assert_eq!(e.speed.and_then(|s| s.measured), None, "{other}");
        }
        // The DGX Spark depth sweep: the deepest measured cache up to the context.
        let q = "model=openai/gpt-oss-20b&quant=MXFP4&gpu=dgx-spark&par=1&ctx=12000";
        let m = estimate(&from_query(q).inputs)
            .speed
            .and_then(|s| s.measured)
            .expect("a row");
        assert_eq!((m.test.as_str(), m.decode_tps), ("tg32 @ d8192", 74.0));
    }
}
