//! Published vLLM startup outcomes as regression rows (`tests/data/vllm-startups.json`, each with
//! its URL): the estimate's verdict for the same setting agrees with what vLLM did, or the row
//! names the mechanism it misses, and then really misses (so the note goes when the mechanism is
//! modelled).

use fitcard_estimator::accuracy::{decoded, startup_outcomes};
use fitcard_estimator::estimate;

#[test]
fn startup_outcomes_agree_or_name_the_miss() {
    let rows = startup_outcomes();
    let raw: serde_json::Value =
        serde_json::from_str(include_str!("data/vllm-startups.json")).expect("valid JSON");
    assert_eq!(
        rows.len(),
        raw["rows"].as_array().map_or(0, Vec::len),
        "a row is missing a field"
    );
    let failed = rows.iter().filter(|r| !r.started).count();
    assert!(
        failed >= 10 && rows.len() - failed >= 10,
        "{failed} failed of {}",
        rows.len()
    );
    let mut wrong = Vec::new();
    for r in &rows {
        assert!(r.url.starts_with("https://"), "{}", r.query);
        let d = decoded(&r.query);
        assert!(d.clean(), "{}: {:?}", r.query, d.notices);
        let e = estimate(&d.inputs);
        let agrees = e.fits == r.started;
        match (&r.miss, agrees) {
            (None, false) => wrong.push(format!(
                "{} ({}): vLLM {}, the estimate {}",
                r.query,
                r.url,
                if r.started { "started" } else { "failed" },
                if e.fits { "starts" } else { "fails" }
            )),
            (Some(m), true) => wrong.push(format!("{}: agrees now; drop the miss: {m}", r.query)),
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}
