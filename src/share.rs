//! Links and snippets built from a configuration, and the few display helpers the page needs
//! beyond [`Bytes`]' own `Display`.

use fitcard_estimator::{encode, Inputs};

/// Message type the embed posts to its parent with its height in CSS pixels.
pub const HEIGHT_MESSAGE: &str = "fitcard:height";

/// Query string (with `?`) of the full calculator for `i`: the same configuration, no embed.
pub fn full_query(i: &Inputs) -> String {
    let mut full = i.clone();
    full.embed = false;
    format!("?{}", encode(&full))
}

/// Query string (with `?`) of the compact embed for `i`.
pub fn embed_query(i: &Inputs) -> String {
    let mut e = i.clone();
    e.embed = true;
    format!("?{}", encode(&e))
}

/// The `<iframe>` snippet for the page at `page_url` (origin and path, no query), with a
/// listener that resizes the frame when the embed reports its height.
pub fn iframe_snippet(page_url: &str, i: &Inputs) -> String {
    let src = format!("{page_url}{}", embed_query(i));
    let src = html_attr(&src);
    format!(
        "<iframe src=\"{src}\" title=\"fitcard: will this model fit?\" width=\"100%\" height=\"460\" \
style=\"border:0;max-width:42rem\" loading=\"lazy\"></iframe>\n\
<script>addEventListener(\"message\",function(e){{var d=e.data;if(!d||d.type!==\"{HEIGHT_MESSAGE}\")return;\
document.querySelectorAll(\"iframe\").forEach(function(f){{if(f.contentWindow===e.source)f.style.height=d.height+\"px\"}})}});</script>"
    )
}

fn html_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

/// A context length as people say it, with the exact count: `8K (8192)`, `1000`.
pub fn tokens(t: u32) -> String {
    let short = fitcard_estimator::units::tokens_label(t);
    if short == t.to_string() {
        short
    } else {
        format!("{short} ({t})")
    }
}

/// Text with its first letter upper-cased, to start a sentence: `fits` → `Fits`.
pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fitcard_estimator::decode;

    #[test]
    fn full_and_embed_links_differ_only_in_embed() {
        let i = decode("model=google/gemma-3-1b-it&quant=F16&ctx=4096&embed=1").inputs;
        let full = full_query(&i);
        let emb = embed_query(&i);
        assert!(!full.contains("embed"));
        assert!(emb.ends_with("&embed=1"));
        assert_eq!(
            full.trim_start_matches('?'),
            emb.trim_start_matches('?').trim_end_matches("&embed=1")
        );
        // Both restore the same configuration.
        let a = decode(&full).inputs;
        let mut b = decode(&emb).inputs;
        assert!(b.embed);
        b.embed = false;
        assert_eq!(a, b);
    }

    #[test]
    fn snippet_points_at_the_embed_and_escapes_ampersands() {
        let i = decode("").inputs;
        let s = iframe_snippet("https://example.org/fit/", &i);
        assert!(s.starts_with("<iframe src=\"https://example.org/fit/?v=1&amp;mode=serve"));
        assert!(s.contains("&amp;embed=1\""));
        assert!(s.contains(HEIGHT_MESSAGE));
        assert!(!s.contains("&mode"), "raw & inside the attribute");
    }

    #[test]
    fn token_labels_keep_the_exact_count() {
        assert_eq!(tokens(8192), "8K (8192)");
        assert_eq!(tokens(1000), "1000");
    }

    #[test]
    fn capitalize_starts_a_sentence() {
        assert_eq!(capitalize("needs 2 GiB"), "Needs 2 GiB");
        assert_eq!(capitalize("does not fit"), "Does not fit");
        assert_eq!(capitalize(""), "");
    }
}
