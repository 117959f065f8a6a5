//! What the page shows only on request, computed in the importer (their code costs the
//! calculator's first transfer nothing): the context × concurrency frontier, the lists of
//! limits and layouts, the calibration fit, the best-model list (off the page's main thread
//! too: it estimates every catalog variant) and the card a renderer string names.

use super::catalog::installed;

/// Widest and narrowest frontier plot drawn (CSS pixels); its height.
const PLOT_WIDTH: (u32, u32) = (300, 1200);
const PLOT_HEIGHT: f64 = 340.0;

/// The frontier of the configuration `query` as SVG markup, `width` pixels wide.
pub(super) async fn frontier(query: &str, width: u32) -> Result<String, String> {
    installed().await?;
    let i = fitcard_estimator::from_query(query).inputs;
    let mut f = fitcard_estimator::frontier::frontier(&i);
    // llama.cpp: the lines of the chosen KV layout only (unified or one per slot), seven
    // instead of fourteen; the other layout is one switch away.
    if let Some(c) = f.current_line.and_then(|k| f.lines.get(k).cloned()) {
        f.lines.retain(|l| l.unified == c.unified);
        f.current_line = f.lines.iter().position(|l| *l == c);
    }
    let w = f64::from(width.clamp(PLOT_WIDTH.0, PLOT_WIDTH.1));
    Ok(fitcard_estimator::frontier::svg::svg(&f, w, PLOT_HEIGHT))
}

/// The lines of a list the page shows when it is opened, for the configuration `query`, one per
/// line as `key<TAB>text`: `limits`, each limit solved with every other input held (key: the
/// target); `layouts`, every tensor × pipeline split of vLLM or SGLang cards (key: `chosen` for
/// the one the estimate uses); `cost`, what renting it costs ([`cost_lines`]).
pub(super) async fn lines(kind: &str, query: &str) -> Result<String, String> {
    installed().await?;
    let i = fitcard_estimator::from_query(query).inputs;
    let rows: Vec<String> = if kind == "limits" {
        crate::text::summary::targets(i.mode)
            .iter()
            .map(|&t| {
                let s = fitcard_estimator::solve::solve(&i, t);
                format!("{}\t{}", t.id(), crate::text::summary::limit(&s, &i))
            })
            .collect()
    } else if kind == "cost" {
        cost_lines(&i).await?
    } else {
        fitcard_estimator::serve::layouts::summary(&i)
            .into_iter()
            .map(|l| format!("{}\t{}", if l.chosen { "chosen" } else { "" }, l.text))
            .collect()
    };
    Ok(rows.join("\n"))
}

/// `cost`: each rentable plan, cheapest first (key: the card's id), with its price's provider,
/// date and source ([`fitcard_estimator::cost`]; "now" is the browser's clock, for the prices'
/// age).
#[cfg(feature = "extras")]
async fn cost_lines(i: &fitcard_estimator::Inputs) -> Result<Vec<String>, String> {
    if i.mode == fitcard_estimator::Mode::Train {
        return Ok(vec![
            "\tRent is planned for serving; a training run's cost needs its hours.".into(),
        ]);
    }
    let prices = fitcard_estimator::cost::Prices::parse(&price_list().await?)?;
    let d = js_sys::Date::new_0();
    let now = i64::from(d.get_utc_full_year()) * 12 + i64::from(d.get_utc_month());
    let plans = fitcard_estimator::cost::plans(&prices, i, now);
    if plans.is_empty() {
        return Ok(vec![
            "\tNo priced card type fits this configuration on 8 cards or fewer.".into(),
        ]);
    }
    Ok(plans
        .iter()
        .map(|p| {
            let name = fitcard_estimator::catalog()
                .gpu(&p.gpu)
                .map_or(p.gpu.as_str(), |g| g.name.as_str());
            let line = fitcard_estimator::cost::plan_line(p, name, " · ");
            format!("{}\t{line} · source: {}", p.gpu, p.price_source)
        })
        .collect())
}

/// The price list beside the importer (`prices.json`, fetched when the rent is first asked for,
/// so that it costs the importer's download nothing).
#[cfg(feature = "extras")]
async fn price_list() -> Result<String, String> {
    let fail = "the price list could not be read: reload the page";
    let bytes = super::catalog::sibling("prices.json", fail).await?;
    String::from_utf8(bytes).map_err(|_| fail.to_string())
}

/// The importer is built with the prices; a build without them says so.
#[cfg(not(feature = "extras"))]
async fn cost_lines(_: &fitcard_estimator::Inputs) -> Result<Vec<String>, String> {
    Ok(vec!["\tNo prices in this build.".into()])
}

/// The calibration panel's answer for `readings` under the configuration `query`: the fit's
/// text or its refusal, the global-layer count when fitted, and the measuring loop.
pub(super) async fn calibration(
    query: &str,
    readings: &str,
) -> Result<(String, Option<f64>, String), String> {
    installed().await?;
    let i = fitcard_estimator::from_query(query).inputs;
    let how = fitcard_estimator::measure::how_to_measure(&i).unwrap_or_else(|m| m);
    Ok(match crate::text::calibrate::run(&i, readings) {
        Ok(c) => (c.lines.join("\n"), Some(c.gl), how),
        Err(m) => (m, None, how),
    })
}

/// The id of the catalog card the browser's renderer string `renderer` names ("Detect my GPU",
/// [`crate::model::detect::match_gpu`]), empty when none matches.
pub(super) async fn detect_gpu(renderer: &str) -> Result<String, String> {
    installed().await?;
    Ok(crate::model::detect::match_gpu(renderer)
        .map(|g| g.id.clone())
        .unwrap_or_default())
}

/// The best-model list of the configuration `query` as HTML (the page writes it in one DOM
/// write and reads a row's click on the list).
pub(super) async fn best_list(query: &str) -> Result<String, String> {
    installed().await?;
    let i = fitcard_estimator::from_query(query).inputs;
    Ok(crate::draw::best_list::list_html(
        &fitcard_estimator::best::best(&i),
    ))
}
