//! The ranking's lists as HTML: each candidate's row (the button that puts it on screen, its
//! verdict, its size and, when it does not fit, why), serve candidates (variant × format) and
//! train candidates (variant × method) alike. Tested on the host; the page draws a list once and
//! then patches only the numbers that change ([`crate::draw::tree`]), and its container takes
//! the rows' clicks.

use crate::model::edit::Edit;
use fitcard_estimator::badge::xml_escape;
use fitcard_estimator::inputs::Method;
#[cfg(feature = "train")]
use fitcard_estimator::train::TrainCandidate;
use fitcard_estimator::units::SignedBytes;
use fitcard_estimator::{Bytes, Candidate, Inputs, Quant, Verdict};
use std::fmt::Write;

/// What differs between a serve and a train candidate.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(feature = "train"), allow(dead_code))]
pub enum Kind {
    /// A variant × format: its headroom on the fullest card and the bytes it needs there.
    Serve {
        quant: Quant,
        headroom: SignedBytes,
        needs: Bytes,
        /// Decode tokens/s per request, when known.
        tps: Option<f64>,
    },
    /// A variant × method: the total the training needs and on how many GPUs.
    Train {
        method: Method,
        total: Bytes,
        gpus: Option<u32>,
    },
}

/// One ranked candidate as its row shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RowData {
    /// Element id of its button (`use:model:tag`), which is also its key in the list.
    pub key: String,
    /// Repo id of the variant.
    pub model: String,
    /// Display name of the variant.
    pub name: String,
    /// Fits, tight or does not fit.
    pub verdict: Verdict,
    /// Every hard check passes.
    pub fits: bool,
    /// Failed constraints in words (empty when it fits).
    pub reasons: Vec<String>,
    /// It is the configuration on screen now.
    pub current: bool,
    /// Format or method, and the numbers shown.
    pub kind: Kind,
}

impl RowData {
    pub fn serve(c: &Candidate, i: &Inputs) -> RowData {
        let (quant, headroom, needs) = (c.quant, c.headroom, c.device_bytes);
        let current = c.model == i.model && quant == i.quant;
        let kind = Kind::Serve {
            quant,
            headroom,
            needs,
            tps: c.decode_tps,
        };
        RowData::new(
            &c.model, &c.name, c.verdict, c.fits, &c.reasons, current, kind,
        )
    }

    #[cfg(feature = "train")]
    pub fn train(c: &TrainCandidate, i: &Inputs) -> RowData {
        let (method, total, gpus) = (c.method, c.total, c.gpus_needed);
        let current = c.model == i.model && method == i.train.method;
        let kind = Kind::Train {
            method,
            total,
            gpus,
        };
        RowData::new(
            &c.model, &c.name, c.verdict, c.fits, &c.reasons, current, kind,
        )
    }

    fn new(
        model: &str,
        name: &str,
        verdict: Verdict,
        fits: bool,
        reasons: &[String],
        current: bool,
        kind: Kind,
    ) -> RowData {
        let mut row = RowData {
            key: String::new(),
            model: model.to_string(),
            name: name.to_string(),
            verdict,
            fits,
            reasons: reasons.to_vec(),
            current,
            kind,
        };
        row.key = format!("use:{model}:{}", row.tag());
        row
    }

    /// The format (serve) or the method (train).
    pub fn tag(&self) -> &'static str {
        match self.kind {
            Kind::Serve { quant, .. } => quant.id(),
            Kind::Train { method, .. } => method.id(),
        }
    }

    /// The edit that puts it on screen.
    pub fn apply(&self) -> Edit {
        let model = self.model.clone();
        match self.kind {
            Kind::Serve { quant, .. } => Edit::Candidate { model, quant },
            Kind::Train { method, .. } => Edit::TrainCandidate { model, method },
        }
    }

    /// Its button's accessible name.
    /// (It holds the visible text, name and tag, as WCAG 2.5.3 "label in name" asks.)
    fn aria(&self) -> String {
        format!("Use {} {}", self.name, self.tag())
    }

    /// The size shown, what it is, and the note beside it.
    fn size(&self) -> (String, &'static str, Option<String>) {
        match self.kind {
            Kind::Serve {
                headroom,
                needs,
                tps,
                ..
            } => (
                headroom.to_string(),
                "Headroom on the fullest card",
                Some(match tps {
                    Some(t) => format!(
                        "needs {needs} of VRAM · ≈ {} tokens/s",
                        crate::text::summary::about(t)
                    ),
                    None => format!("needs {needs} of VRAM"),
                }),
            ),
            Kind::Train { total, gpus, .. } => (
                total.to_string(),
                "Total the training needs",
                gpus.map(|n| format!("on {n} GPU{}", if n == 1 { "" } else { "s" })),
            ),
        }
    }
}

/// CSS class of a verdict chip.
fn chip_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Fits => "chip v-fits",
        Verdict::Tight => "chip v-tight",
        Verdict::DoesNotFit => "chip v-nofit",
    }
}

/// One row: `<li>` with its button, its verdict chip, its numbers and, when it does not fit,
/// why. The configuration on screen is marked and its button `aria-disabled` (it stays
/// focusable, so a keyboard user who just chose it keeps the focus on it).
fn row(s: &mut String, d: &RowData) {
    let (attr, tag) = match d.kind {
        Kind::Serve { .. } => ("data-quant", d.tag()),
        Kind::Train { .. } => ("data-method", d.tag()),
    };
    let current = if d.current { r#" class="current""# } else { "" };
    let _ = write!(
        s,
        r#"<li{current} data-model="{}" {attr}="{tag}"><button type="button" class="apply" id="{}"{} aria-label="{}"><span class="cand-name">{}</span> <span class="cand-quant">{tag}</span></button>"#,
        xml_escape(&d.model),
        xml_escape(&d.key),
        if d.current {
            r#" aria-disabled="true""#
        } else {
            ""
        },
        xml_escape(&d.aria()),
        xml_escape(&d.name),
    );
    let (size, size_title, note) = d.size();
    let _ = write!(s, r#"<span class="{}""#, chip_class(d.verdict));
    if d.verdict == Verdict::Tight {
        let _ = write!(
            s,
            r#" title="{}""#,
            xml_escape(&crate::text::share::tight_note(true))
        );
    }
    let _ = write!(
        s,
        r#">{}</span><span class="num" title="{size_title}">{}</span><span class="num muted">{}</span>"#,
        d.verdict.label(),
        xml_escape(&size),
        xml_escape(note.as_deref().unwrap_or_default())
    );
    if d.current {
        s.push_str(r#"<span class="muted">(current)</span>"#);
    }
    if !d.fits {
        s.push_str(r#"<ul class="why">"#);
        for r in &d.reasons {
            let _ = write!(s, "<li>{}</li>", xml_escape(r));
        }
        s.push_str("</ul>");
    }
    s.push_str("</li>");
}

/// A list of rows: `<{tag} class="{class}">`.
pub fn list<'a>(tag: &str, class: &str, rows: impl Iterator<Item = &'a RowData>) -> String {
    let mut s = format!(r#"<{tag} class="{class}">"#);
    for d in rows {
        row(&mut s, d);
    }
    let _ = write!(s, "</{tag}>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::tree::{patch, Tree};
    use fitcard_estimator::{from_query, rank};

    fn rows(q: &str) -> Vec<RowData> {
        let i = from_query(q).inputs;
        rank(&i).iter().map(|c| RowData::serve(c, &i)).collect()
    }

    #[test]
    fn a_row_has_its_button_chip_and_numbers() {
        let r = rows("model=Qwen/Qwen3-8B&gpu=rtx-4090&ctx=8192");
        let m = list("ol", "cands fit", r.iter().filter(|x| x.fits));
        assert!(m.starts_with(r#"<ol class="cands fit"><li"#), "{m}");
        let cur = r
            .iter()
            .find(|x| x.current)
            .expect("the configuration on screen is ranked");
        assert!(
            m.contains(&format!(
                r#"<li class="current" data-model="{}" data-quant="{}">"#,
                cur.model,
                cur.tag()
            )),
            "{m}"
        );
        assert!(
            m.contains(r#" aria-disabled="true" aria-label="Use "#),
            "{m}"
        );
        assert!(m.contains(r#"<span class="muted">(current)</span>"#));
        assert!(m.contains(r#"<span class="num" title="Headroom on the fullest card">"#));
        assert_eq!(
            m.matches("<li").count(),
            r.iter().filter(|x| x.fits).count()
        );
        let nofit = list("ul", "cands", r.iter().filter(|x| !x.fits));
        assert!(
            nofit.contains(r#"<span class="chip v-nofit">"#)
                && nofit.contains(r#"<ul class="why"><li>"#),
            "{nofit}"
        );
        assert!(Tree::parse(&m).is_some() && Tree::parse(&nofit).is_some());
    }

    #[test]
    fn a_tick_rewrites_numbers_not_rows() {
        let at = |q: &str| {
            let r = rows(q);
            Tree::parse(&list("ol", "cands fit", r.iter().filter(|x| x.fits))).expect("parses")
        };
        let (a, b) = (
            at("model=Qwen/Qwen3-8B&gpu=rtx-4090&ctx=8192"),
            at("model=Qwen/Qwen3-8B&gpu=rtx-4090&ctx=9216"),
        );
        let changes = patch(&a, &b).expect("the same rows fit");
        assert!(!changes.is_empty());
        assert!(
            changes
                .iter()
                .all(|c| c.name.is_empty() || c.name == "title"),
            "{changes:?}"
        );
    }
}
