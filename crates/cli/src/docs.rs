//! `fitcard docs <out-dir> [<docs-dir>]`: the method page and the accuracy report as static
//! HTML pages of the site (rendered at build time by trunk's post-build hook, outside the wasm:
//! they cost the calculator nothing and work offline like the rest of the site).

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag};
use std::path::Path;

/// The pages: (Markdown file in the docs folder, HTML file written, title).
pub const PAGES: [(&str, &str, &str); 2] = [
    ("method.md", "method.html", "How fitcard estimates"),
    ("accuracy.md", "accuracy.html", "fitcard accuracy report"),
];

/// Render one Markdown text to a standalone page. Links to `*.md` become `*.html`, so the pages
/// link to each other on the site.
pub fn page(markdown: &str, title: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_HEADING_ATTRIBUTES;
    let events = Parser::new_ext(markdown, opts).map(|e| match e {
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) if dest_url.ends_with(".md") || dest_url.contains(".md#") => {
            let url = dest_url.replacen(".md", ".html", 1);
            Event::Start(Tag::Link {
                link_type,
                dest_url: CowStr::from(url),
                title,
                id,
            })
        }
        e => e,
    });
    let mut body = String::new();
    html::push_html(&mut body, events);
    // Table cells align by class, not by a style attribute: the site's Content-Security-Policy
    // allows no inline style attribute.
    for (side, class) in ALIGN {
        body = body.replace(
            &format!(" style=\"text-align: {side}\""),
            &format!(" class=\"{class}\""),
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n\
         <meta name=\"color-scheme\" content=\"light dark\" />\n<title>{title}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<nav><a href=\"./\">← the calculator</a> · \
         <a href=\"method.html\">method</a> · <a href=\"accuracy.html\">accuracy</a></nav>\n\
         <main>\n{body}</main>\n</body>\n</html>\n"
    )
}

/// The column alignments of a Markdown table and the class each becomes.
const ALIGN: [(&str, &str); 3] = [("left", "al"), ("center", "ac"), ("right", "ar")];

const STYLE: &str = "body{font:16px/1.55 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.25rem;color:#1b1f24;background:#fff}\
@media (prefers-color-scheme:dark){body{color:#e6e8eb;background:#14171a}a{color:#8ab4ff}th,td{border-color:#3a4048}}\
nav{margin-bottom:1rem}code{font-size:.9em}table{border-collapse:collapse;display:block;overflow-x:auto;font-size:.85rem}\
th,td{border:1px solid #cdd3da;padding:.2rem .45rem;vertical-align:top}h2{margin-top:2rem}\
.al{text-align:left}.ac{text-align:center}.ar{text-align:right}";

/// The method page's last section: the source of every term's formula, per engine and per
/// trainer profile, as the estimator states it (the calculator links here instead of carrying
/// these texts in its wasm).
pub fn sources() -> String {
    use fitcard_estimator::{estimate, from_query, train, Engine};
    let mut md = String::from(
        "\n## Sources of each term {#sources}\n\nWhere each term's formula comes from, per engine \
         (and per trainer profile in train mode), as the estimator states it in `fitcard estimate \
         --json` (`terms[].provenance`).\n",
    );
    let mut section = |title: String, terms: &[fitcard_estimator::terms::Term]| {
        md.push_str(&format!("\n### {title}\n\n"));
        for t in terms.iter().filter(|t| !t.provenance.is_empty()) {
            md.push_str(&format!("- **{}**: {}\n", t.label, t.provenance));
        }
    };
    for e in Engine::ALL {
        let i = from_query(&format!("model=Qwen/Qwen3-8B&engine={}&cards=1", e.id())).inputs;
        section(e.label().to_string(), &estimate(&i).terms);
    }
    for &t in fitcard_estimator::inputs::Trainer::ALL {
        let i = from_query(&format!("mode=train&trainer={}", t.id())).inputs;
        section(
            format!("Train mode: trainer={}", t.id()),
            &train::estimate(&i).estimate.terms,
        );
    }
    md
}

/// Write every page from `docs` into `out`.
pub fn write_all(out: &Path, docs: &Path) -> Result<String, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut done = Vec::new();
    for (md, html_name, title) in PAGES {
        let src = docs.join(md);
        let mut text = std::fs::read_to_string(&src)
            .map_err(|e| format!("cannot read {}: {e}", src.display()))?;
        if md == "method.md" {
            text.push_str(&sources());
        }
        let dst = out.join(html_name);
        std::fs::write(&dst, page(&text, title))
            .map_err(|e| format!("cannot write {}: {e}", dst.display()))?;
        done.push(dst.display().to_string());
    }
    Ok(format!("wrote {}", done.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_keep_their_ids_and_md_links_become_html() {
        let p = page(
            "## KV cache {#kv_cache}\n\nSee [the report](accuracy.md#summary).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            "t",
        );
        assert!(p.contains("<h2 id=\"kv_cache\">KV cache</h2>"), "{p}");
        assert!(p.contains("href=\"accuracy.html#summary\""), "{p}");
        assert!(p.contains("<table>"), "{p}");
    }

    #[test]
    fn aligned_columns_use_classes_not_style_attributes() {
        let p = page("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n", "t");
        assert!(!p.contains("style=\""), "{p}");
        for class in ["al", "ac", "ar"] {
            assert!(
                p.contains(&format!("<td class=\"{class}\">")),
                "{class}: {p}"
            );
            assert!(STYLE.contains(&format!(".{class}{{text-align:")), "{class}");
        }
    }

    /// Every term the estimator names has its section on the method page (the page's "Source"
    /// links point there).
    #[test]
    fn method_page_has_a_section_per_term() {
        let md = include_str!("../../../docs/method.md");
        let html = page(md, "t");
        for t in fitcard_estimator::terms::TermName::ALL.iter().take(5) {
            assert!(
                html.contains(&format!("id=\"{}\"", t.id())),
                "no section for {t}"
            );
        }
        for id in ["engines", "feasibility", "ranking", "solving", "train"] {
            assert!(html.contains(&format!("id=\"{id}\"")), "no section {id}");
        }
    }
}
