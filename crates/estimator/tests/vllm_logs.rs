//! Published vLLM startup logs as regression rows (`tests/data/engine-logs.json`, each with its
//! URL): the KV pool, its size in tokens and the maximum concurrency vLLM prints, within 5 %.

use fitcard_estimator::baselines::vllm_logs;
use fitcard_estimator::{decode, estimate};

#[test]
fn vllm_startup_numbers_within_five_percent() {
    let logs = vllm_logs();
    assert!(logs.len() >= 10, "only {} rows in the domain", logs.len());
    let mut bad = Vec::new();
    for l in &logs {
        let d = decode(&l.query);
        assert!(d.clean(), "{}: {:?}", l.query, d.notices);
        let e = estimate(&d.inputs);
        let rel = |a: f64, b: f64| (a - b).abs() / b;
        let pool = e.kv_pool_bytes.expect("vLLM pool").gib();
        let tokens = e.kv_pool_tokens.expect("tokens") as f64;
        let conc = e.max_concurrency.expect("concurrency");
        let worst = rel(pool, l.kv_gib)
            .max(rel(tokens, l.tokens as f64))
            .max(rel(conc, l.concurrency));
        if worst > 0.05 {
            bad.push(format!(
                "{} ({}): pool {pool:.2} vs {:.2} GiB, tokens {tokens} vs {}, concurrency {conc:.2} vs {:.2}",
                l.query, l.url, l.kv_gib, l.tokens, l.concurrency
            ));
        }
    }
    assert!(bad.is_empty(), "outside 5 %:\n{}", bad.join("\n"));
}
