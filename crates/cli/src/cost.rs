//! `fitcard cost '<query>' [--json]`: the rentable plans for a serve configuration, cheapest
//! first. For each card type with a published on-demand price (`data/prices.json`: each row
//! the provider, the figure, the date it held and the page it was read from), the fewest cards
//! of 1, 2, 4 or 8 on which the configuration fits; per plan the dollars per hour, per million
//! output tokens at the configuration's concurrency (the speed estimate's decode rate over all
//! requests) and per million prompt tokens (its prefill rate), and, where a launch price is
//! published, the hours of rent that would buy the cards. A price older than six months is
//! marked stale; a plan is never shown without its price's source and date.

use crate::*;
use serde::{Deserialize, Serialize};

/// The prices, as the data file holds them.
#[derive(Deserialize)]
struct Prices {
    rental: Vec<Rental>,
    launch: Vec<Launch>,
}

#[derive(Deserialize)]
struct Rental {
    gpu: String,
    provider: String,
    usd_per_hour: f64,
    date: String,
    source: String,
    #[serde(default)]
    via: Option<String>,
}

#[derive(Deserialize)]
struct Launch {
    gpu: String,
    usd: f64,
    date: String,
    source: String,
}

fn prices() -> &'static Prices {
    static P: std::sync::OnceLock<Prices> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        serde_json::from_str(include_str!("../data/prices.json")).expect("data/prices.json reads")
    })
}

/// One rentable plan.
#[derive(Serialize, Debug)]
pub struct Plan {
    /// Catalog GPU id.
    pub gpu: String,
    /// How many of them.
    pub cards: u32,
    /// Who rents them at this price.
    pub provider: String,
    /// Dollars per hour for all the cards.
    pub usd_per_hour: f64,
    /// Dollars per million output tokens at the configuration's concurrency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usd_per_mtok_out: Option<f64>,
    /// Dollars per million prompt tokens at the prefill rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usd_per_mtok_in: Option<f64>,
    /// Hours of rent that would pay for the cards at their launch price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakeven_hours: Option<f64>,
    /// When the price held.
    pub price_date: String,
    /// The page it was read from.
    pub price_source: String,
    /// The provider's own page, where the price was read from a public copy of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_via: Option<String>,
    /// Older than six months.
    pub price_stale: bool,
    /// Where the launch price comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch_source: Option<String>,
    /// The query that re-estimates this plan (it fits).
    pub query: String,
}

/// Months since year 0 of a `YYYY-MM[-DD]` date.
fn months(date: &str) -> Option<i64> {
    let mut it = date.split('-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    (1..=12).contains(&m).then_some(y * 12 + m - 1)
}

/// Months since year 0 of today (UTC): the system clock, or `SOURCE_DATE_EPOCH` when set (the
/// reproducible-builds convention, <https://reproducible-builds.org/specs/source-date-epoch/>:
/// the snapshot tests fix the day with it), by the civil-from-days rule of Howard Hinnant's
/// date algorithms.
fn months_now() -> i64 {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        })
        .min(1 << 40);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    y * 12 + m - 1
}

/// A price more than six months before `now` (months since year 0) is stale.
fn stale(date: &str, now: i64) -> bool {
    months(date).is_none_or(|m| now - m > 6)
}

/// The cheapest on-demand price of each card type: of the prices at most six months old when
/// there are any (the newest of equals), else of the older ones.
fn cheapest(now: i64) -> Vec<&'static Rental> {
    let key = |r: &Rental| {
        (
            stale(&r.date, now),
            r.usd_per_hour,
            -months(&r.date).unwrap_or(0),
        )
    };
    let mut best: std::collections::BTreeMap<&str, &Rental> = Default::default();
    for r in &prices().rental {
        let keep = best
            .get(r.gpu.as_str())
            .is_none_or(|b| key(r).partial_cmp(&key(b)) == Some(std::cmp::Ordering::Less));
        if keep {
            best.insert(&r.gpu, r);
        }
    }
    best.into_values().collect()
}

/// The plans for `i`, cheapest first.
pub fn plans(i: &Inputs, now: i64) -> Vec<Plan> {
    let mut out: Vec<Plan> = cheapest(now)
        .into_iter()
        .filter_map(|r| plan(i, r, now))
        .collect();
    out.sort_by(|a, b| a.usd_per_hour.total_cmp(&b.usd_per_hour));
    out
}

/// The fewest cards of `r`'s type (1, 2, 4 or 8) on which `i` fits, priced.
fn plan(i: &Inputs, r: &Rental, now: i64) -> Option<Plan> {
    [1u32, 2, 4, 8].into_iter().find_map(|cards| {
        let mut j = i.clone();
        j.gpu = fitcard_estimator::GpuChoice::Catalog(r.gpu.clone());
        j.gpus.clear();
        j.cards = cards;
        j.tp = None;
        j.pp = None;
        let query = fitcard_estimator::encode(&j);
        let d = from_query(&query);
        let e = fitcard_estimator::serve::estimate_full(&d.inputs);
        if !e.fits {
            return None;
        }
        let usd = r.usd_per_hour * f64::from(cards);
        let per_mtok = |tps: f64| (tps > 0.0).then(|| usd / (tps * 3600.0) * 1e6);
        let launch = prices().launch.iter().find(|l| l.gpu == r.gpu);
        Some(Plan {
            gpu: r.gpu.clone(),
            cards,
            provider: r.provider.clone(),
            usd_per_hour: usd,
            usd_per_mtok_out: e.speed.as_ref().and_then(|s| per_mtok(s.aggregate_tps)),
            usd_per_mtok_in: e
                .speed
                .as_ref()
                .and_then(|s| s.prefill_tps)
                .and_then(per_mtok),
            breakeven_hours: launch.map(|l| l.usd * f64::from(cards) / usd),
            price_date: r.date.clone(),
            price_source: r.source.clone(),
            price_via: r.via.clone(),
            price_stale: stale(&r.date, now),
            launch_source: launch.map(|l| format!("{} ({}, {})", l.source, l.usd, l.date)),
            query,
        })
    })
}

/// The `cost` of an estimate's own plan (its card type's cheapest on-demand price, all its
/// cards), for `estimate --json`; `None` for a plan that does not fit, a card nobody prices,
/// mixed cards.
pub fn of_estimate(i: &Inputs, e: &fitcard_estimator::Estimate) -> Option<serde_json::Value> {
    if !e.fits {
        return None;
    }
    let fitcard_estimator::GpuChoice::Catalog(id) = &i.gpu else {
        return None;
    };
    if !i.gpus.is_empty() {
        return None;
    }
    let r = cheapest(months_now()).into_iter().find(|r| &r.gpu == id)?;
    let usd = r.usd_per_hour * f64::from(i.cards.max(1));
    let per_mtok = |tps: f64| (tps > 0.0).then(|| usd / (tps * 3600.0) * 1e6);
    let launch = prices().launch.iter().find(|l| &l.gpu == id);
    let mut v = serde_json::json!({
        "usd_per_hour": usd,
        "provider": r.provider,
        "price_date": r.date,
        "price_source": r.source,
        "price_stale": stale(&r.date, months_now()),
    });
    let speed = e.speed.as_ref();
    if let Some(o) = speed.and_then(|s| per_mtok(s.aggregate_tps)) {
        v["usd_per_mtok_out"] = o.into();
    }
    if let Some(x) = speed.and_then(|s| s.prefill_tps).and_then(per_mtok) {
        v["usd_per_mtok_in"] = x.into();
    }
    if let Some(l) = launch {
        v["breakeven_hours"] = (l.usd * f64::from(i.cards.max(1)) / usd).into();
    }
    Some(v)
}

/// [`of_estimate`] in one line for the text of `fitcard estimate`.
pub fn line(i: &Inputs, e: &fitcard_estimator::Estimate) -> Option<String> {
    let c = of_estimate(i, e)?;
    let money = |x: f64| format!("${}", fitcard_estimator::units::Fixed(x, 2));
    let mut s = format!(
        "rent: {}/h for {} × {} ({}, {}{})",
        money(c["usd_per_hour"].as_f64()?),
        i.cards.max(1),
        i.gpu,
        c["provider"].as_str()?,
        c["price_date"].as_str()?,
        if c["price_stale"].as_bool()? {
            ", stale"
        } else {
            ""
        }
    );
    if let Some(o) = c["usd_per_mtok_out"].as_f64() {
        s.push_str(&format!(", {} per 1M output tokens", money(o)));
    }
    s.push_str("; fitcard cost compares card types");
    Some(s)
}

/// `fitcard cost '<query>' [--json]`.
pub fn cost(query: &str, json: bool) -> Result<String, String> {
    let i = inputs(query)?;
    if i.mode == Mode::Train {
        return Err("cost plans serve mode; a training run's cost needs its hours".into());
    }
    let plans = plans(&i, months_now());
    if json {
        return Ok(to_json(&serde_json::json!({ "plans": plans })));
    }
    if plans.is_empty() {
        return Ok("no priced card type fits this configuration on 8 cards or fewer".into());
    }
    let mut lines: Vec<String> = plans.iter().map(plan_line).collect();
    lines.push(
        "prices: on-demand list prices from each provider's page (marketplaces and from-prices left out); --json gives each one's source"
            .into(),
    );
    Ok(lines.join("\n"))
}

fn plan_line(p: &Plan) -> String {
    let money = |x: f64| format!("${}", fitcard_estimator::units::Fixed(x, 2));
    let mut s = format!(
        "{:<24} × {}  {}/h  ({}, {}{})",
        p.gpu,
        p.cards,
        money(p.usd_per_hour),
        p.provider,
        p.price_date,
        if p.price_stale { ", stale" } else { "" }
    );
    if let Some(o) = p.usd_per_mtok_out {
        s.push_str(&format!("  {} per 1M output tokens", money(o)));
    }
    if let Some(h) = p.breakeven_hours {
        s.push_str(&format!("  buying pays off after {} h", h.round()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_price_has_its_source_and_a_date() {
        for r in &prices().rental {
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
        for l in &prices().launch {
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
        if std::env::var_os("SOURCE_DATE_EPOCH").is_none() {
            assert!(months_now() >= now);
        }
    }

    #[test]
    fn plans_are_cheapest_first_and_each_query_fits() {
        let i = inputs("model=Qwen/Qwen3-32B&quant=Q4_K_M&engine=llama.cpp&ctx=16384").unwrap();
        let now = months("2026-12-03").unwrap();
        let p = plans(&i, now);
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
}
