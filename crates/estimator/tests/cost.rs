//! What a plan costs to rent: every price has its public source and date, a price over six
//! months old is stale, and each plan's query re-estimates as fitting where half as many cards
//! would not.

use fitcard_estimator::cost::{builtin, months, plan_line, plans, stale, Prices};
use fitcard_estimator::{catalog, from_query};

#[test]
fn every_price_has_its_source_and_a_date() {
    for r in &builtin().rental {
        assert!(r.source.starts_with("https://"), "{}", r.gpu);
        assert!(months(&r.date).is_some(), "{} {}", r.gpu, r.date);
        assert!(r.usd_per_hour > 0.0 && r.usd_per_hour < 100.0, "{}", r.gpu);
        assert!(
            catalog().gpu(&r.gpu).is_some(),
            "{} is not a catalog card",
            r.gpu
        );
        assert!(r.via.as_deref().is_none_or(|v| v.starts_with("http")));
    }
    for l in &builtin().launch {
        assert!(l.source.starts_with("https://") && months(&l.date).is_some());
        assert!(catalog().gpu(&l.gpu).is_some(), "{}", l.gpu);
    }
}

#[test]
fn a_price_over_six_months_old_is_stale() {
    let now = months("2026-12-03").unwrap();
    assert!(!stale("2026-06", now));
    assert!(stale("2026-05-28", now));
    assert!(stale("nonsense", now));
    assert_eq!(months("2026-13"), None);
}

/// The page's importer reads the price list it fetches: a damaged one is refused in one line.
#[test]
fn a_damaged_price_list_is_refused_in_one_line() {
    let e = Prices::parse("{\"rental\": [").err().unwrap();
    assert!(
        e.starts_with("the price list cannot be read") && !e.contains('\n'),
        "{e}"
    );
    let same = Prices::parse(include_str!("../data/prices.json")).unwrap();
    assert_eq!(same.rental.len(), builtin().rental.len());
}

#[test]
fn plans_are_cheapest_first_and_each_query_fits() {
    let i = from_query("model=Qwen/Qwen3-32B&quant=Q4_K_M&engine=llama.cpp&ctx=16384").inputs;
    let now = months("2026-12-03").unwrap();
    let p = plans(builtin(), &i, now);
    assert!(p.len() >= 5, "{p:?}");
    assert!(p.windows(2).all(|w| w[0].usd_per_hour <= w[1].usd_per_hour));
    for plan in &p {
        let e = fitcard_estimator::serve::estimate_full(&from_query(&plan.query).inputs);
        assert!(e.fits, "{}", plan.query);
        // Fewer cards of the same type would not fit.
        if plan.cards > 1 {
            let fewer = plan.query.replace(
                &format!("cards={}", plan.cards),
                &format!("cards={}", plan.cards / 2),
            );
            assert!(!fitcard_estimator::serve::estimate_full(&from_query(&fewer).inputs).fits);
        }
        let out = plan.usd_per_mtok_out.unwrap();
        assert!(out > 0.0 && out.is_finite());
        // Its line names the price's provider and date.
        let line = plan_line(plan, &plan.gpu, " · ");
        assert!(
            line.contains(&plan.provider) && line.contains(&plan.price_date),
            "{line}"
        );
    }
    // A 20 GB model needs two 16 GB-class cards or one of 24 GB and more: a 4090's plan is
    // one card, and it names its launch price's break-even.
    let r = p
        .iter()
        .find(|x| x.gpu == "rtx-4090")
        .expect("an rtx-4090 plan");
    assert_eq!(r.cards, 1);
    let h = r.breakeven_hours.unwrap();
    assert!((h - 1599.0 / r.usd_per_hour).abs() < 1e-9);
}
