//! `fitcard frontier`: the most slots at each context, per KV cache type.

use crate::*;
use fitcard_estimator::frontier::{plot::ctx_label, Frontier};

/// `frontier '<query>' [--svg]`: the most concurrent slots at each context of a log-spaced grid,
/// one column per KV cache type (and, on llama.cpp, unified or per-slot cache).
pub fn frontier(query: &str, rest: &[&str], svg_out: bool, json: bool) -> Result<String, String> {
    use fitcard_estimator::frontier::{frontier, svg};
    let i = inputs(query)?;
    if !rest.is_empty() || svg_out && json {
        return Err(USAGE.into());
    }
    let f = frontier(&i);
    if json {
        return Ok(to_json(&f));
    }
    if svg_out {
        let (w, h) = svg::DEFAULT_SIZE;
        return Ok(svg::svg(&f, w, h));
    }
    Ok(table(&f))
}

/// The text answer: the chosen point, then the table (or why there is none).
fn table(f: &Frontier) -> String {
    let mut out = chosen(f);
    if let Some(r) = &f.reason {
        out.push_str(r);
        return out;
    }
    let heads = column_heads(f);
    let widths: Vec<usize> = heads
        .iter()
        .map(|(a, b)| a.len().max(b.len()).max(5))
        .collect();
    let row = |first: &str, cells: Vec<String>| {
        let mut r = format!("{first:>7}");
        for (c, w) in cells.iter().zip(&widths) {
            r.push_str(&format!("  {c:>w$}"));
        }
        r.trim_end().to_string()
    };
    out.push_str(&row("ctx", heads.iter().map(|h| h.0.clone()).collect()));
    out.push('\n');
    if heads.iter().any(|h| !h.1.is_empty()) {
        out.push_str(&row("", heads.iter().map(|h| h.1.to_string()).collect()));
        out.push('\n');
    }
    for &ctx in &f.grid {
        let cells = f
            .lines
            .iter()
            .map(|l| match l.slots_at(ctx) {
                Some(s) if s >= f.cap => format!("{s}+"),
                Some(s) => s.to_string(),
                None => "-".into(),
            })
            .collect();
        out.push_str(&row(&ctx_label(ctx), cells));
        out.push('\n');
    }
    out.push_str(&format!(
        "slots that fit per request context; - = not one; {}+ = the top of the search ({} estimates)",
        f.cap, f.evaluations
    ));
    out
}

/// "chosen: 1 slot(s) of 8K tokens, fits (line auto)": the query's own point.
fn chosen(f: &Frontier) -> String {
    let (c, p) = f.current;
    format!(
        "chosen: {p} slot(s) of {} tokens, {}{}\n",
        ctx_label(c),
        if f.current_fits {
            "fits"
        } else {
            "does not fit"
        },
        f.current_line
            .map_or(String::new(), |k| format!(" (line {})", f.lines[k].label()))
    )
}

/// Each line's heading: its KV cache type and the others with the same points
/// (`q4_0=iq4_nl`) and, on llama.cpp, `unified` or `per slot`.
fn column_heads(f: &Frontier) -> Vec<(String, &'static str)> {
    f.lines
        .iter()
        .map(|l| {
            let kv: Vec<&str> = std::iter::once(l.kv.id())
                .chain(l.also.iter().map(|k| k.id()))
                .collect();
            let u = match l.unified {
                Some(true) => "unified",
                Some(false) => "per slot",
                None => "",
            };
            (kv.join("="), u)
        })
        .collect()
}
