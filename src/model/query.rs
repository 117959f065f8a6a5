//! The link's raw parameters: a value read exactly as the query string writes it, replaced in
//! place, and percent-decoded. Pure: tested on the host.

/// The value of the first `key=` in a query string (a leading `?` is ignored), exactly as
/// written there (still percent-encoded).
pub fn raw_param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| match pair.split_once('=') {
            Some((k, v)) if k == key => Some(v),
            _ => None,
        })
}

/// `query` (no `?`) with the value of its first `key=` replaced by `raw` (already encoded).
pub fn with_raw_param(query: &str, key: &str, raw: &str) -> String {
    let mut done = false;
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if k == key && !done => {
                done = true;
                format!("{k}={raw}")
            }
            _ => pair.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Percent-decode a query value (`+` is a space); malformed escapes stay as written and
/// invalid UTF-8 becomes U+FFFD: the permalink decoder's own form decoding.
pub use fitcard_estimator::inputs::permalink::form_decode as percent_decode;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_parameter_is_read_and_replaced_as_written() {
        let q = "?v=1&model=meta-llama%2FLlama-3.3-70B-Instruct&ctx=4096&model=x";
        assert_eq!(
            raw_param(q, "model"),
            Some("meta-llama%2FLlama-3.3-70B-Instruct"),
            "the first one"
        );
        assert_eq!(raw_param(q, "gpu"), None);
        assert_eq!(raw_param("?modelx=1&model", "model"), None);
        assert_eq!(
            with_raw_param("v=1&model=google/gemma-3-12b-it&ctx=4096", "model", "a%2Fb"),
            "v=1&model=a%2Fb&ctx=4096"
        );
        assert_eq!(with_raw_param("v=1", "model", "a"), "v=1");
    }

    #[test]
    fn percent_decoding_keeps_malformed_escapes() {
        // (raw, decoded)
        let rows = [
            ("meta-llama%2FLlama-3.3-70B", "meta-llama/Llama-3.3-70B"),
            ("a+b", "a b"),
            ("%zz%4", "%zz%4"),
            ("%", "%"),
            ("100%25", "100%"),
            ("%C3%BC", "ü"),
            ("%FF", "\u{fffd}"),
        ];
        for (raw, want) in rows {
            assert_eq!(percent_decode(raw), want, "{raw}");
        }
    }
}
