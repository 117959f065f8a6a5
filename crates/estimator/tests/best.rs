//! The ranking across families: every row is its variant's highest-precision format that fits
//! (the same answer the family's own ranking gives), scored rows come first by score, and the
//! filters keep exactly what they name.

use fitcard_estimator::best::best;
use fitcard_estimator::{catalog, from_query, rank};

fn q(s: &str) -> fitcard_estimator::Inputs {
    let d = from_query(s);
    assert!(d.notices.is_empty(), "{s}: {:?}", d.notices);
    d.inputs
}

#[test]
fn each_row_is_the_family_rankings_best_fitting_format() {
    for base in [
        "gpu=rtx-4090&ctx=8192",
        "gpu=rtx-3060-12gb&ctx=32768&par=2",
        "gpu=h100-sxm&engine=vllm&ctx=32768&par=8",
    ] {
        let b = best(&q(&format!("best=1&{base}")));
        assert!(!b.rows.is_empty(), "{base}: nothing fits");
        // Every chat model is a row, does not fit or was filtered out (embedding models are
        // not listed).
        let variants: usize = catalog()
            .families
            .iter()
            .filter(|f| f.task.is_none())
            .map(|f| f.variants.len())
            .sum();
        assert_eq!(b.rows.len() + b.not_fitting + b.filtered_out, variants);
        for r in &b.rows {
            let fam = rank(&q(&format!("{base}&model={}", r.model)));
            let first = fam
                .iter()
                .filter(|c| c.model == r.model)
                .find(|c| c.fits)
                .expect("the family ranking has it fitting too");
            assert_eq!(first.quant, r.quant, "{base}: {}", r.model);
        }
        // Scored rows first, unscored after; the scored places go by score, family by family
        // (the families at each place are those of a plain score sort), and within a family
        // its own capability order holds.
        let scores: Vec<Option<f64>> = b.rows.iter().map(|r| r.score).collect();
        let first_none = scores
            .iter()
            .position(Option::is_none)
            .unwrap_or(scores.len());
        assert!(
            first_none > 0,
            "{base}: the evaluation covers nothing that fits"
        );
        assert!(scores[first_none..].iter().all(Option::is_none));
        let mut by_score = b.rows[..first_none].to_vec();
        by_score.sort_by(|x, y| y.score.unwrap().total_cmp(&x.score.unwrap()));
        let fams = |v: &[fitcard_estimator::best::BestRow]| -> Vec<String> {
            v.iter().map(|r| r.family.clone()).collect()
        };
        assert_eq!(fams(&b.rows[..first_none]), fams(&by_score), "{base}");
        for f in &catalog().families {
            let ranks: Vec<u32> = b.rows[..first_none]
                .iter()
                .filter(|r| r.family == f.id)
                .map(|r| r.capability_rank)
                .collect();
            assert!(
                ranks.windows(2).all(|w| w[0] < w[1]),
                "{base}: {} {ranks:?}",
                f.id
            );
        }
        assert!(b
            .rows
            .iter()
            .all(|r| r.score.is_some() != r.unscored.is_some()));
    }
}

#[test]
fn filters_keep_what_they_name() {
    let all = best(&q("best=1&gpu=h200&ctx=4096"));
    let fam = best(&q("best=1&gpu=h200&ctx=4096&family=qwen3"));
    assert!(!fam.rows.is_empty() && fam.rows.iter().all(|r| r.family == "qwen3"));
    assert!(fam.rows.len() < all.rows.len());
    let mit = best(&q("best=1&gpu=h200&ctx=4096&license=MIT"));
    assert!(!mit.rows.is_empty());
    for r in &mit.rows {
        let f = catalog().family(&r.family).unwrap();
        assert_eq!(f.license.as_ref().unwrap().id, "mit");
    }
    let long = best(&q("best=1&gpu=h200&ctx=4096&minctx=131072"));
    for r in &long.rows {
        let (_, v) = catalog().variant(&r.model).unwrap();
        let most = v.arch.yarn.as_ref().map_or(v.arch.max_ctx, |y| y.max_ctx());
        assert!(v.arch.max_ctx.max(most) >= 131_072, "{}", r.model);
    }
    assert!(long.filtered_out > 0);
    let thinking = best(&q("best=1&gpu=h200&ctx=4096&reasoning=1"));
    let plain = best(&q("best=1&gpu=h200&ctx=4096&reasoning=0"));
    assert!(!thinking.rows.is_empty() && !plain.rows.is_empty());
    assert!(thinking
        .rows
        .iter()
        .all(|r| { catalog().family(&r.family).unwrap().reasoning == Some(true) }));
    assert!(plain
        .rows
        .iter()
        .all(|r| catalog().family(&r.family).unwrap().reasoning == Some(false)));
}

#[test]
fn the_filters_round_trip_and_refuse_nonsense() {
    let s = "best=1&family=qwen3&license=apache-2.0&minctx=32768&reasoning=1";
    let i = q(s);
    let again = q(&fitcard_estimator::encode(&i));
    assert_eq!(again.best, i.best);
    for bad in [
        "family=nope",
        "license=a%20b",
        "minctx=0",
        "reasoning=maybe",
    ] {
        let d = from_query(bad);
        assert_eq!(d.notices.len(), 1, "{bad}");
        assert!(d.inputs.best.is_default(), "{bad}: kept the default");
    }
}
