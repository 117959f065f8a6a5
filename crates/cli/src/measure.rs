//! `fitcard measure`: global-attention layers backed out of readings, and how to take them.

use crate::*;

/// `measure '<query>' CTX:GIB…` (the fit) or `measure '<query>' --how` (the loop, no readings).
pub fn measure(query: &str, points: &[&str], how: bool, json: bool) -> Result<String, String> {
    let i = inputs(query)?;
    if how && !points.is_empty() {
        return Err(USAGE.into());
    }
    if how {
        let how = fitcard_estimator::measure::how_to_measure(&i)?;
        return Ok(if json {
            // The loop as one JSON string, with what it measures.
            to_json(&serde_json::json!({
                "model": i.model,
                "engine": i.engine.id(),
                "script": how,
            }))
        } else {
            how
        });
    }
    if i.par != 1 {
        return Err(format!(
            "par={}: measure with concurrency pinned to 1 (each slot has its own KV cache, so the slope would be {} × the per-token KV)",
            i.par, i.par
        ));
    }
    let pts = points
        .iter()
        .map(|p| point(p))
        .collect::<Result<Vec<_>, String>>()?;
    let (_, v) = catalog()
        .variant(&i.model)
        .ok_or("model not in the catalog")?;
    let g = fitcard_estimator::measure::global_share(&pts, &v.arch, i.kv)?;
    Ok(if json {
        to_json(&g)
    } else {
        let gib = |b: f64| b / (1u64 << 30) as f64;
        let mut s = format!(
            "{}: {:.0} bytes/token over {} points (adjacent slopes {:?}), R² {:.4}, {:.2} GiB at context 0\n≈ {:.2} global layers = {:.1} % of {} KV layers (the catalog's layout says {})\n{}\n",
            v.id,
            g.bytes_per_token,
            pts.len(),
            g.slopes.iter().map(|s| s.round()).collect::<Vec<_>>(),
            g.r2,
            gib(g.intercept_bytes),
            g.global_layers,
            100.0 * g.share,
            v.arch.kv_owning_layers(),
            g.expected_global_layers,
            g.comparison
        );
        for r in &g.points {
            s.push_str(&format!(
                "  {:>8} tokens: {:8.3} GiB read, {:8.3} GiB on the line, residual {:+.3} GiB\n",
                r.ctx,
                gib(r.bytes),
                gib(r.fitted),
                gib(r.residual)
            ));
        }
        s.push_str(&format!("apply it: add &{} to the link", g.gl));
        s
    })
}

/// One `CTX:GIB` reading, refused by name when it is not a context and an amount of memory a
/// card can hold (the page's bounds: context 1…16M tokens, 0…4096 GiB).
fn point(p: &str) -> Result<fitcard_estimator::measure::Point, String> {
    let shown = quote(p);
    let (c, g) = p
        .split_once(':')
        .ok_or_else(|| format!("point {shown} is not CTX:GIB"))?;
    let ctx: u32 = c
        .parse()
        .map_err(|_| format!("point {shown}: context is not a whole number"))?;
    let (lo, hi) = limits::CTX;
    if ctx < lo || ctx > hi {
        return Err(format!("point {shown}: context is outside {lo}…{hi}"));
    }
    let gib: f64 = g
        .parse()
        .map_err(|_| format!("point {shown}: memory is not a number"))?;
    let (lo, hi) = (0.0, limits::VRAM_GIB.1);
    if !gib.is_finite() || !(lo..=hi).contains(&gib) {
        return Err(format!(
            "point {shown}: {} GiB is outside {lo}…{hi} GiB",
            clean(g)
        ));
    }
    Ok(fitcard_estimator::measure::Point {
        ctx: u64::from(ctx),
        bytes: gib * (1u64 << 30) as f64,
    })
}
