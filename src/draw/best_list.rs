//! The best-model list as HTML, every text escaped: the evaluation's line, one row a ranked
//! variant (a button that opens it in the calculator) and what was left out. Pure: tested on
//! the host; the page writes it in one DOM write.

use crate::text::summary::about;
use fitcard_estimator::badge::xml_escape;
use fitcard_estimator::best::{Best, BestRow};
use fitcard_estimator::catalog::Matched;
use fitcard_estimator::estimate::Verdict;
use fitcard_estimator::units::Fixed;

/// The evaluation's line, the rows (a button each, which opens it in the calculator) and what
/// was left out, as HTML (every text escaped).
pub fn list_html(b: &Best) -> String {
    let e = xml_escape;
    let mut h = match &b.evaluation {
        Some((name, date, url)) => format!(
            "<p class=\"best-eval\">Ordered by <a href=\"{}\" rel=\"noopener\" target=\"_blank\">{}</a> ({} snapshot), the number after each format. Each family keeps its own order (its variants by capability), so a lower score can sit above a higher one of the same family. * estimated by the evaluation · ≈ scored as the same model in another format.</p>",
            e(url),
            e(name),
            e(date)
        ),
        None => "<p class=\"best-eval\">No cross-family evaluation in this build.</p>".into(),
    };
    // The columns' names, for the eye (each row's button reads its own values out).
    if !b.rows.is_empty() {
        h.push_str("<p class=\"best-head\" aria-hidden=\"true\"><span class=\"best-name\">Model</span><span class=\"best-fmt\">format</span><span class=\"best-score\">score</span><span class=\"best-bytes\">memory on the card</span><span>verdict</span></p>");
    }
    h.push_str("<ol class=\"best-list\">");
    for (k, r) in b.rows.iter().enumerate() {
        h.push_str(&row_html(k, r));
    }
    h.push_str("</ol><p class=\"best-foot\">");
    let mut foot = Vec::new();
    if b.rows.is_empty() {
        foot.push("No model fits with these settings.".to_string());
    }
    if b.not_fitting > 0 {
        foot.push(format!(
            "{} more do{} not fit.",
            b.not_fitting,
            if b.not_fitting == 1 { "es" } else { "" }
        ));
    }
    if b.filtered_out > 0 {
        foot.push(format!("{} left out by the filters.", b.filtered_out));
    }
    // Why a row is only tight, once under the list (its chip says it on hover too).
    if b.rows.iter().any(|r| r.verdict == Verdict::Tight) {
        foot.push(crate::text::share::tight_note(true));
    }
    h.push_str(&foot.join(" "));
    h.push_str("</p>");
    h
}

/// One ranked variant: its `<li>` with the button that opens it.
fn row_html(k: usize, r: &BestRow) -> String {
    let e = xml_escape;
    let score = match (r.score, r.matched) {
        (Some(s), m) => format!(
            "<span class=\"sr\">score </span>{}{}{}",
            Fixed(s, 1),
            if r.estimated { "*" } else { "" },
            if m == Some(Matched::SameModel) {
                " ≈"
            } else {
                ""
            }
        ),
        (None, _) => "no score".to_string(),
    };
    let chip = match r.verdict {
        Verdict::Fits => "v-fits",
        Verdict::Tight => "v-tight",
        Verdict::DoesNotFit => "v-nofit",
    };
    let chip_title = if r.verdict == Verdict::Tight {
        format!(" title=\"{}\"", e(&crate::text::share::tight_note(true)))
    } else {
        String::new()
    };
    let why = r
        .unscored
        .as_deref()
        .map(|w| format!("<span class=\"why\">{}</span>", e(w)))
        .unwrap_or_default();
    format!(
        "<li data-model=\"{m}\" data-quant=\"{q}\" data-family=\"{f}\"><button type=\"button\" class=\"best-row\" id=\"best-{k}\"><span class=\"best-name\">{n}</span><span class=\"best-fmt\">{q}</span><span class=\"best-score\">{score}</span><span class=\"best-bytes\">{d} on the card · {free} free{tps}</span><span class=\"chip {chip}\"{chip_title}>{v}</span></button>{why}</li>",
        m = e(&r.model),
        q = e(&r.quant.to_string()),
        f = e(&r.family),
        n = e(&r.name),
        d = r.device_bytes,
        free = r.headroom,
        tps = r
            .decode_tps
            .map(|t| format!(" · ≈ {} tokens/s", about(t)))
            .unwrap_or_default(),
        v = r.verdict.label(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use fitcard_estimator::best::best;
    use fitcard_estimator::from_query;
    use fitcard_estimator::units::SignedBytes;
    use fitcard_estimator::Bytes;

    fn row(name: &str) -> BestRow {
        BestRow {
            family: "fam".into(),
            model: "org/m".into(),
            name: name.into(),
            quant: "Q4_K_M".parse().unwrap(),
            score: Some(61.4),
            matched: Some(Matched::SameModel),
            estimated: true,
            unscored: None,
            capability_rank: 1,
            verdict: Verdict::Tight,
            headroom: SignedBytes(1 << 30),
            device_bytes: Bytes(3 << 30),
            decode_tps: Some(41.6),
        }
    }

    #[test]
    fn a_row_is_a_button_with_its_numbers_every_text_escaped() {
        assert_eq!(
            row_html(2, &row("M <1> & \"2\"")),
            "<li data-model=\"org/m\" data-quant=\"Q4_K_M\" data-family=\"fam\"><button type=\"button\" class=\"best-row\" id=\"best-2\"><span class=\"best-name\">M &lt;1&gt; &amp; &quot;2&quot;</span><span class=\"best-fmt\">Q4_K_M</span><span class=\"best-score\"><span class=\"sr\">score </span>61.4* ≈</span><span class=\"best-bytes\">3.00 GiB on the card · +1.00 GiB free · ≈ 42 tokens/s</span><span class=\"chip v-tight\" title=\"Tight: it fits, with under 1 GiB of headroom on the fullest card; llama-server&apos;s --fit keeps a 1024 MiB margin per device (--fit-target), and real use moves with driver and engine versions: leave more room, or expect to lower the context.\">tight</span></button></li>"
        );
        let mut r = row("m");
        (r.score, r.matched, r.estimated, r.decode_tps) = (None, None, false, None);
        r.unscored = Some("not in <the> evaluation".into());
        r.verdict = Verdict::Fits;
        let h = row_html(0, &r);
        assert!(
            h.contains("<span class=\"best-score\">no score</span>"),
            "{h}"
        );
        assert!(h.contains("<span class=\"chip v-fits\">fits</span></button><span class=\"why\">not in &lt;the&gt; evaluation</span></li>"), "{h}");
        assert!(h.contains("+1.00 GiB free</span>"), "{h}");
    }

    #[test]
    fn the_list_has_a_row_per_variant_and_says_what_was_left_out() {
        let b = best(&from_query("best=1&gpu=rtx-4090").inputs);
        assert!(!b.rows.is_empty());
        let h = list_html(&b);
        assert!(h.starts_with("<p class=\"best-eval\">"), "{h}");
        assert_eq!(h.matches("<li data-model=").count(), b.rows.len());
        assert_eq!(h.matches("<ol class=\"best-list\">").count(), 1);
        assert!(h.ends_with("</p>"), "{h}");
        // A tight row (the 4090's list has several under 1 GiB free) is explained under it.
        assert!(b.rows.iter().any(|r| r.verdict == Verdict::Tight));
        assert!(
            h.contains("Tight: it fits, with under 1 GiB of headroom"),
            "{h}"
        );
        let none = Best {
            evaluation: None,
            rows: Vec::new(),
            not_fitting: 1,
            filtered_out: 3,
        };
        assert_eq!(
            list_html(&none),
            "<p class=\"best-eval\">No cross-family evaluation in this build.</p><ol class=\"best-list\"></ol><p class=\"best-foot\">No model fits with these settings. 1 more does not fit. 3 left out by the filters.</p>"
        );
        let two = Best {
            not_fitting: 2,
            filtered_out: 0,
            ..none
        };
        assert!(list_html(&two).ends_with("2 more do not fit.</p>"));
    }
}
