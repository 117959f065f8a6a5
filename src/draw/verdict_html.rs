//! The verdict's panels as HTML: the banner, the failed checks,
//! the warnings, the one-line verdict kept in view on a phone, and the detail of the term under
//! the pointer. Words in, markup out, tested on the host; the page draws each once and then
//! patches only the texts and attributes that change ([`crate::draw::tree`]).

use fitcard_estimator::badge::xml_escape;
use fitcard_estimator::{Estimate, Inputs, Mode, Verdict};
use std::fmt::Write;

/// The method page of the site (rendered from `docs/method.md` at build time), one section per
/// term id.
pub const METHOD_PAGE: &str = "method.html";

/// CSS modifier of a verdict (`v-fits`, `v-tight`, `v-nofit`).
pub fn slug(v: Verdict) -> &'static str {
    match v {
        Verdict::Fits => "fits",
        Verdict::Tight => "tight",
        Verdict::DoesNotFit => "nofit",
    }
}

/// What the banner shows: the verdict, the numbers that decide it, and the notes on a tight
/// fit and on Unsloth's published formula.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Banner {
    /// CSS modifier of the verdict (`fits`, `tight`, `nofit`).
    pub slug: &'static str,
    pub title: String,
    pub line: Option<String>,
    pub tight: Option<String>,
    pub formula: Option<String>,
}

impl Banner {
    /// The banner of `e` estimated from `i`, with the numbers under the verdict (`line`: they
    /// differ by mode, see `text::summary::verdict_line`). One constructor for the calculator's
    /// banner and the first estimate drawn before it mounts.
    pub fn new(e: &Estimate, i: &Inputs, line: Option<String>) -> Banner {
        use crate::text::share;
        Banner {
            slug: slug(e.verdict),
            title: share::capitalize(e.verdict.label()),
            line,
            tight: (e.verdict == Verdict::Tight).then(|| share::tight_note(i.mode == Mode::Serve)),
            formula: share::formula_note(i, e.total_device_bytes),
        }
    }

    pub fn markup(&self) -> String {
        let mut s = format!(
            r#"<div class="verdict v-{0}" data-verdict="{0}""#,
            self.slug
        );
        if let Some(tight) = &self.tight {
            let _ = write!(s, r#" title="{}""#, xml_escape(tight));
        }
        let _ = write!(
            s,
            r#"><strong class="verdict-label">{}</strong><span class="verdict-line">{}</span>"#,
            xml_escape(&self.title),
            xml_escape(self.line.as_deref().unwrap_or_default())
        );
        for (class, text) in [("tight-note", &self.tight), ("formula-note", &self.formula)] {
            if let Some(text) = text {
                let _ = write!(s, r#"<p class="{class}">{}</p>"#, xml_escape(text));
            }
        }
        s.push_str("</div>");
        s
    }
}

/// A list: `<ul class="{class}">`, one item per `(class, data-check, words)`.
pub fn list(class: &str, items: &[(&'static str, Option<&'static str>, String)]) -> String {
    let mut s = format!(r#"<ul class="{class}">"#);
    for (class, check, words) in items {
        let _ = write!(s, r#"<li class="{class}""#);
        if let Some(check) = check {
            let _ = write!(s, r#" data-check="{check}""#);
        }
        let _ = write!(s, ">{}</li>", xml_escape(words));
    }
    s.push_str("</ul>");
    s
}

/// The verdict in one line (hidden from assistive technology: the full verdict is the live
/// region).
pub fn mini(slug: &str, title: &str, headroom: &str) -> String {
    format!(
        r#"<div class="mini-verdict v-{slug}" aria-hidden="true"><strong>{}</strong><span class="num">· headroom {}</span></div>"#,
        xml_escape(title),
        xml_escape(headroom)
    )
}

/// What the detail of one term shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detail {
    /// The swatch's classes (`swatch t-…`).
    pub swatch: String,
    pub label: &'static str,
    pub bytes: String,
    /// On several cards, what one card holds (` (… per card)`).
    pub per_card: Option<String>,
    /// Held in host RAM.
    pub host: bool,
    pub formula: String,
    pub provenance: &'static str,
    /// Its section of the method page.
    pub section: &'static str,
    /// Used outside what its formula was checked on.
    pub outside: Option<String>,
}

impl Detail {
    /// The heading, the formula and the source, with links to the method page (in a new tab
    /// when `new_tab`, from an embed).
    pub fn markup(&self, new_tab: bool) -> String {
        let target = if new_tab { r#" target="_blank""# } else { "" };
        let mut s = format!(
            r#"<h3><span class="{}"></span><span>{}: </span><span class="num">{}</span>"#,
            self.swatch,
            xml_escape(self.label),
            xml_escape(&self.bytes)
        );
        let tail = format!(
            "{}{}",
            self.per_card.as_deref().unwrap_or_default(),
            if self.host { " in host RAM" } else { "" }
        );
        if !tail.is_empty() {
            let _ = write!(s, "<span>{}</span>", xml_escape(&tail));
        }
        let _ = write!(
            s,
            r#"</h3><p class="formula"><span class="k">Formula </span><code>{}</code></p><p class="provenance"><span class="k">Source </span><span>{} </span><a class="method-link" href="{METHOD_PAGE}#{}"{target}>How this term is computed</a><span> · </span><a href="{METHOD_PAGE}#sources"{target}>its sources, per engine</a></p>"#,
            xml_escape(&self.formula),
            xml_escape(self.provenance),
            self.section
        );
        if let Some(w) = &self.outside {
            let _ = write!(
                s,
                r#"<p class="outside-domain"><span class="k">Outside its checked domain </span><span>{}</span></p>"#,
                xml_escape(w)
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::tree::{patch, Tree};

    fn tree(m: &str) -> Tree {
        Tree::parse(m).expect("our own markup parses")
    }

    fn banner(line: &str, tight: Option<&str>) -> Banner {
        Banner {
            slug: if tight.is_some() { "tight" } else { "fits" },
            title: "Fits".into(),
            line: Some(line.into()),
            tight: tight.map(Into::into),
            formula: None,
        }
    }

    #[test]
    fn the_banner_patches_its_numbers_and_redraws_for_a_note() {
        let m = banner("9.1 GiB of 24 GiB", None).markup();
        let a = tree(&m);
        assert_eq!(
            m,
            r#"<div class="verdict v-fits" data-verdict="fits"><strong class="verdict-label">Fits</strong><span class="verdict-line">9.1 GiB of 24 GiB</span></div>"#
        );
        let b = tree(&banner("9.3 GiB of 24 GiB", None).markup());
        let changes = patch(&a, &b).expect("same shape");
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].value, "9.3 GiB of 24 GiB");
        // A tight fit adds its note (and the banner's title): drawn anew.
        let m = banner("23.5 GiB of 24 GiB", Some("a <margin>")).markup();
        assert_eq!(patch(&a, &tree(&m)), None);
        assert!(m.contains(r#"title="a &lt;margin&gt;""#), "{m}");
        assert!(
            m.contains(r#"<p class="tight-note">a &lt;margin&gt;</p>"#),
            "{m}"
        );
    }

    #[test]
    fn lists_and_the_one_line_verdict() {
        let items = vec![
            ("failed", Some("vram"), "Needs 30 GiB".to_string()),
            ("info", None, "Layer split used".to_string()),
        ];
        assert_eq!(
            list("reasons", &items),
            r#"<ul class="reasons"><li class="failed" data-check="vram">Needs 30 GiB</li><li class="info">Layer split used</li></ul>"#
        );
        assert_eq!(list("warnings", &[]), r#"<ul class="warnings"></ul>"#);
        assert_eq!(
            mini("nofit", "Does not fit", "-2 GiB"),
            r#"<div class="mini-verdict v-nofit" aria-hidden="true"><strong>Does not fit</strong><span class="num">· headroom -2 GiB</span></div>"#
        );
    }

    #[test]
    fn the_detail_links_its_method_section() {
        let d = Detail {
            swatch: "swatch t-kv".into(),
            label: "KV cache",
            bytes: "1.50 GiB".into(),
            per_card: Some(" (0.75 GiB per card)".into()),
            host: false,
            formula: "2 × layers × ctx".into(),
            provenance: "llama.cpp src/llama-kv-cache.cpp",
            section: "kv_cache",
            outside: Some("past 128K".into()),
        };
        let m = d.markup(false);
        assert!(m.starts_with(r#"<h3><span class="swatch t-kv"></span><span>KV cache: </span><span class="num">1.50 GiB</span><span> (0.75 GiB per card)</span></h3>"#), "{m}");
        assert!(m.contains(r#"<a class="method-link" href="method.html#kv_cache">How this term is computed</a>"#), "{m}");
        assert!(m.contains(r#"<p class="outside-domain"><span class="k">Outside its checked domain </span><span>past 128K</span></p>"#), "{m}");
        assert!(!m.contains("_blank"));
        assert!(d
            .markup(true)
            .contains(r#"href="method.html#sources" target="_blank""#));
        // A tick that changes the bytes only rewrites them.
        let e = Detail {
            bytes: "1.75 GiB".into(),
            ..d.clone()
        };
        assert_eq!(
            patch(&tree(&d.markup(false)), &tree(&e.markup(false))).map(|c| c.len()),
            Some(1)
        );
    }
}
