//! The calibration panel's words: steady-state readings typed as `fitcard measure` takes them
//! (`context:GiB`), the estimator's fit through them (`measure::calibrate`), and the
//! global-layer count it applies (`gl=`). Pure, tested on the host.

use crate::text::share::capitalize;
use fitcard_estimator::catalog::catalog;
use fitcard_estimator::inputs::{limits, thousands};
use fitcard_estimator::measure::{calibrate, Point};
use fitcard_estimator::units::parse_decimal;
use fitcard_estimator::Inputs;

/// What the fit says, line by line, and the global-layer count to apply.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The slope, the global layers, the comparison with the catalog, each point's residual
    /// and the point off the line (when one is).
    pub lines: Vec<String>,
    /// Equivalent global layers, as `gl=` carries them.
    pub gl: f64,
}

const GIB: f64 = (1u64 << 30) as f64;

/// The readings of `text`: `CTX:GIB` items separated by spaces, commas or new lines; refused
/// by name when one is not a context and an amount of memory a card can hold (the permalink's
/// bounds).
pub fn points(text: &str) -> Result<Vec<Point>, String> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (c, g) = p
                .split_once(':')
                .ok_or_else(|| format!("{p} is not context:GiB"))?;
            let ctx = c
                .parse::<u32>()
                .ok()
                .filter(|c| (limits::CTX.0..=limits::CTX.1).contains(c))
                .ok_or_else(|| {
                    format!(
                        "{p}: the context is not a whole number in {}…{}",
                        limits::CTX.0,
                        limits::CTX.1
                    )
                })?;
            let gib = parse_decimal(g)
                .filter(|g| (0.0..=limits::VRAM_GIB.1).contains(g))
                .ok_or_else(|| {
                    format!(
                        "{p}: the memory is not a number of GiB in 0…{}",
                        limits::VRAM_GIB.1
                    )
                })?;
            Ok(Point {
                ctx: u64::from(ctx),
                bytes: gib * GIB,
            })
        })
        .collect()
}

/// The first words of a fit's text (a refusal starts otherwise).
pub const FITTED: &str = "Slope: ";

/// The panel's text: the fit's lines (starting with [`FITTED`]), or why it is refused.
pub fn summary(i: &Inputs, text: &str) -> String {
    match run(i, text) {
        Ok(c) => c.lines.join("\n"),
        Err(m) => m,
    }
}

/// Fit the readings of `text` for the model, format and KV type of `i`; refused (with the
/// reason) at a concurrency other than 1, as `fitcard measure` refuses it.
#[inline(never)]
pub fn run(i: &Inputs, text: &str) -> Result<Calibration, String> {
    if i.par != 1 {
        return Err(format!(
            "Set the concurrent requests to 1 to calibrate: each slot has its own KV cache, so at {} slots the slope would be {} × the KV per token.",
            i.par, i.par
        ));
    }
    let (_, v) = catalog()
        .variant(&i.model)
        .ok_or("This model is not in the catalog.")?;
    let g = calibrate(&points(text)?, &v.arch, i.kv).map_err(|m| capitalize(&m) + ".")?;
    let gib = |b: f64| format!("{:.2} GiB", b / GIB);
    let mut lines = vec![
        format!(
            "{FITTED}{} bytes/token, the KV cache of one token at concurrency 1 (R² {:.4}); {} at context 0",
            thousands(g.bytes_per_token.round() as u64),
            g.r2,
            gib(g.intercept_bytes)
        ),
        format!(
            "≈ {:.2} equivalent global layers: {:.1} % of the {} layers that hold a KV cache",
            g.global_layers,
            100.0 * g.share,
            v.arch.kv_owning_layers()
        ),
        capitalize(&g.comparison),
    ];
    for r in &g.points {
        lines.push(format!(
            "{} tokens: {} read, residual {:+.3} GiB{}",
            thousands(r.ctx),
            gib(r.bytes),
            r.residual / GIB,
            if r.off_line { " — off the line" } else { "" }
        ));
    }
    if let Some(o) = &g.off_line {
        lines.push(capitalize(&o.message) + ".");
    }
    let gl =
        g.gl.strip_prefix("gl=")
            .and_then(parse_decimal)
            .unwrap_or(0.0);
    Ok(Calibration { lines, gl })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fitcard_estimator::from_query;

    /// Four readings of the default model (Gemma 3 12B, F16 cache: 8,192 bytes per token and
    /// global layer) with 12 global layers: 0.09375 GiB more per 1,024 tokens.
    const TWELVE: &str = "8192:10.75\n16384:11.5\n24576:12.25\n32768:13";

    #[test]
    fn four_readings_give_the_slope_and_the_layers() {
        let c = run(&from_query("").inputs, TWELVE).expect("fits");
        assert_eq!(c.gl, 12.0);
        assert!(
            c.lines[0].starts_with("Slope: 98,304 bytes/token, "),
            "{}",
            c.lines[0]
        );
        assert!(c.lines[1].starts_with("≈ 12.00 equivalent global layers: 25.0 % of the 48 "));
        assert!(
            c.lines[2].contains("the catalog's layout assumes 8"),
            "{}",
            c.lines[2]
        );
        assert!(c.lines[3].starts_with("8,192 tokens: 10.75 GiB read, residual "));
        assert_eq!(c.lines.len(), 7, "no point off the line");
    }

    #[test]
    fn a_point_off_the_line_is_named() {
        let t = "8192:10.75 16384:11.5 24576:13.25 32768:13";
        let c = run(&from_query("").inputs, t).expect("flagged, not refused");
        assert!(c.lines[5].ends_with(" — off the line"), "{:?}", c.lines);
        assert!(
            c.lines[7].contains("the point at 24576 tokens"),
            "{:?}",
            c.lines
        );
    }

    #[test]
    fn the_panel_text_is_the_lines_or_the_refusal() {
        let i = from_query("").inputs;
        let t = summary(&i, TWELVE);
        assert!(t.starts_with(FITTED) && t.lines().count() == 7, "{t}");
        assert!(!summary(&i, "").starts_with(FITTED));
    }

    #[test]
    fn refusals_say_why() {
        let i = from_query("").inputs;
        let two = run(&i, "8192:10.75 16384:11.5").unwrap_err();
        assert!(two.starts_with("Take at least three points"), "{two}");
        let par = run(&from_query("par=4").inputs, TWELVE).unwrap_err();
        assert!(
            par.contains("concurrent requests to 1") && par.contains("4 ×"),
            "{par}"
        );
        assert_eq!(
            run(&i, "8192=10").unwrap_err(),
            "8192=10 is not context:GiB"
        );
        assert!(run(&i, "0:10 1:2 3:4").unwrap_err().contains("context"));
        assert!(run(&i, "512:inf 1024:2 2048:3")
            .unwrap_err()
            .contains("memory"));
        assert!(run(&i, "512:-1 1024:2 2048:3")
            .unwrap_err()
            .contains("memory"));
        assert!(run(&i, "").unwrap_err().starts_with("Take at least three"));
    }
}
