//! What a serve plan costs to rent: for each card type with a published on-demand price
//! (`data/prices.json`: each row the provider, the figure, the date it held and the page it was
//! read from), the fewest cards of 1, 2, 4 or 8 on which the configuration fits; per plan the
//! dollars per hour, per million output tokens at the configuration's concurrency (the speed
//! estimate's decode rate over all requests) and per million prompt tokens (its prefill rate),
//! and, where a launch price is published, the hours of rent that would buy the cards. A price
//! older than six months is stale; a plan always carries its price's source and date. The CLI
//! (`fitcard cost`) and the page (its cost list, computed in the importer) read this module;
//! "now" is theirs to give (the system clock, or the browser's).

use crate::inputs::{GpuChoice, Inputs};
use serde::{Deserialize, Serialize};

/// The prices, as the data file holds them.
#[derive(Deserialize)]
pub struct Prices {
    /// Every on-demand price (`tests/cost.rs` holds each to its source and date).
    pub rental: Vec<Rental>,
    /// Every launch price.
    pub launch: Vec<Launch>,
}

impl Prices {
    /// The price list from its JSON (the page's importer fetches `prices.json` beside it, so
    /// that the prices cost the importer's download nothing until asked for).
    pub fn parse(json: &str) -> Result<Prices, String> {
        serde_json::from_str(json).map_err(|e| format!("the price list cannot be read: {e}"))
    }

    /// The launch price of catalog card `gpu`, where one is published.
    pub fn launch(&self, gpu: &str) -> Option<&Launch> {
        self.launch.iter().find(|l| l.gpu == gpu)
    }
}

/// One on-demand price of one card.
#[derive(Deserialize)]
pub struct Rental {
    /// Catalog GPU id.
    pub gpu: String,
    /// Who rents it at this price.
    pub provider: String,
    /// Dollars per hour for one card.
    pub usd_per_hour: f64,
    /// When the price held (`YYYY-MM[-DD]`).
    pub date: String,
    /// The page it was read from.
    pub source: String,
    /// The provider's own page, where the price was read from a public copy of it.
    #[serde(default)]
    pub via: Option<String>,
}

/// A card's launch price.
#[derive(Deserialize)]
pub struct Launch {
    /// Catalog GPU id.
    pub gpu: String,
    /// Dollars at launch.
    pub usd: f64,
    /// When it was announced.
    pub date: String,
    /// Where it is published.
    pub source: String,
}

/// The prices this build was made with (the CLI's and the tests'; the page fetches the same
/// file instead of carrying it).
#[cfg(not(target_arch = "wasm32"))]
pub fn builtin() -> &'static Prices {
    static P: std::sync::OnceLock<Prices> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        Prices::parse(include_str!("../data/prices.json")).expect("data/prices.json reads")
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
pub fn months(date: &str) -> Option<i64> {
    let mut it = date.split('-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    (1..=12).contains(&m).then_some(y * 12 + m - 1)
}

/// A price more than six months before `now` (months since year 0) is stale.
pub fn stale(date: &str, now: i64) -> bool {
    months(date).is_none_or(|m| now - m > 6)
}

/// The cheapest on-demand price of each card type: of the prices at most six months old when
/// there are any (the newest of equals), else of the older ones.
pub fn cheapest(p: &Prices, now: i64) -> Vec<&Rental> {
    let key = |r: &Rental| {
        (
            stale(&r.date, now),
            r.usd_per_hour,
            -months(&r.date).unwrap_or(0),
        )
    };
    let mut best: std::collections::BTreeMap<&str, &Rental> = Default::default();
    for r in &p.rental {
        let keep = best
            .get(r.gpu.as_str())
            .is_none_or(|b| key(r).partial_cmp(&key(b)) == Some(std::cmp::Ordering::Less));
        if keep {
            best.insert(&r.gpu, r);
        }
    }
    best.into_values().collect()
}

/// The plans for `i` at the prices `p`, cheapest first (`now`: months since year 0).
pub fn plans(p: &Prices, i: &Inputs, now: i64) -> Vec<Plan> {
    let mut out: Vec<Plan> = cheapest(p, now)
        .into_iter()
        .filter_map(|r| plan(p, i, r, now))
        .collect();
    out.sort_by(|a, b| a.usd_per_hour.total_cmp(&b.usd_per_hour));
    out
}

/// The fewest cards of `r`'s type (1, 2, 4 or 8) on which `i` fits, priced.
fn plan(p: &Prices, i: &Inputs, r: &Rental, now: i64) -> Option<Plan> {
    [1u32, 2, 4, 8].into_iter().find_map(|cards| {
        let mut j = i.clone();
        j.gpu = GpuChoice::Catalog(r.gpu.clone());
        j.gpus.clear();
        j.cards = cards;
        j.tp = None;
        j.pp = None;
        let query = crate::inputs::permalink::encode(&j);
        let d = crate::inputs::permalink::from_query(&query);
        let e = crate::serve::estimate_full(&d.inputs);
        if !e.fits {
            return None;
        }
        let usd = r.usd_per_hour * f64::from(cards);
        let per_mtok = |tps: f64| (tps > 0.0).then(|| usd / (tps * 3600.0) * 1e6);
        let launch = p.launch(&r.gpu);
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

/// A plan in one line: the card as `name` shows it and how many, the price per hour with its
/// provider and date (and "stale"), the price per million output tokens, and when buying would
/// pay off, the figures `sep` apart (the CLI's columns, the page's dots).
pub fn plan_line(p: &Plan, name: &str, sep: &str) -> String {
    let money = |x: f64| format!("${}", crate::units::Fixed(x, 2));
    let mut s = format!(
        "{name} × {}{sep}{}/h ({}, {}{})",
        p.cards,
        money(p.usd_per_hour),
        p.provider,
        p.price_date,
        if p.price_stale { ", stale" } else { "" }
    );
    if let Some(o) = p.usd_per_mtok_out {
        s.push_str(&format!("{sep}{} per 1M output tokens", money(o)));
    }
    if let Some(h) = p.breakeven_hours {
        s.push_str(&format!("{sep}buying pays off after {} h", h.round()));
    }
    s
}
