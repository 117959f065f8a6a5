//! `fitcard cost '<query>' [--json]`: the rentable plans for a serve configuration, cheapest
//! first ([`fitcard_estimator::cost`]: the prices, with their sources and dates, and the plans),
//! with today's date from the system clock; and the rent of `estimate`'s own plan.

use crate::*;
use fitcard_estimator::cost::{builtin, cheapest, plan_line, plans, stale};

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
    let r = cheapest(builtin(), months_now())
        .into_iter()
        .find(|r| &r.gpu == id)?;
    let usd = r.usd_per_hour * f64::from(i.cards.max(1));
    let per_mtok = |tps: f64| (tps > 0.0).then(|| usd / (tps * 3600.0) * 1e6);
    let launch = builtin().launch(id);
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
    let plans = plans(builtin(), &i, months_now());
    if json {
        return Ok(to_json(&serde_json::json!({ "plans": plans })));
    }
    if plans.is_empty() {
        return Ok("no priced card type fits this configuration on 8 cards or fewer".into());
    }
    let mut lines: Vec<String> = plans
        .iter()
        .map(|p| plan_line(p, &format!("{:<24}", p.gpu), "  "))
        .collect();
    lines.push(
        "prices: on-demand list prices from each provider's page (marketplaces and from-prices left out); --json gives each one's source"
            .into(),
    );
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_is_not_before_the_prices_were_read() {
        let read = fitcard_estimator::cost::months("2026-12-03").unwrap();
        if std::env::var_os("SOURCE_DATE_EPOCH").is_none() {
            assert!(months_now() >= read);
        }
    }
}
