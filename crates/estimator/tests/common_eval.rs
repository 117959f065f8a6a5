//! The cross-family capability table (`data/common_eval.json`): one public evaluation, with its
//! name, snapshot date and URL, and per model (a Hugging Face repo id) a finite score, how it was
//! matched to the checkpoint (`exact` or `same_model`) and the `https://` URL that prints it.
//! `data/SOURCES.md` ("Cross-family capability") says which evaluation and why.

use serde_json::Value;
use std::collections::BTreeSet;

const DATA: &str = include_str!("../data/common_eval.json");

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// An `https://` URL with a host.
fn is_https(s: &str) -> bool {
    s.strip_prefix("https://")
        .is_some_and(|rest| rest.split('/').next().is_some_and(|h| h.contains('.')))
        && !s.contains(char::is_whitespace)
}

#[test]
fn common_eval_is_complete_and_sourced() {
    let doc: Value = serde_json::from_str(DATA).expect("common_eval.json parses");
    let mut bad = Vec::new();
    for key in ["name", "date", "url"] {
        if text(&doc, key).is_none() {
            bad.push(format!("top level: `{key}` missing or empty"));
        }
    }
    if let Some(date) = text(&doc, "date") {
        let parts: Vec<&str> = date.split('-').collect();
        let shape = [4, 2, 2];
        if parts.len() != 3
            || parts
                .iter()
                .zip(shape)
                .any(|(p, n)| p.len() != n || !p.chars().all(|c| c.is_ascii_digit()))
        {
            bad.push(format!("top level: date `{date}` is not YYYY-MM-DD"));
        }
    }
    if let Some(url) = text(&doc, "url") {
        if !is_https(url) {
            bad.push(format!("top level: url `{url}` is not https"));
        }
    }
    let rows = doc
        .get("scores")
        .and_then(Value::as_array)
        .expect("`scores` is an array");
    assert!(!rows.is_empty(), "no scores");
    let mut seen = BTreeSet::new();
    for (i, row) in rows.iter().enumerate() {
        let Some(model) = text(row, "model") else {
            bad.push(format!("row {i}: no model id"));
            continue;
        };
        let who = format!("row {i} ({model})");
        let parts: Vec<&str> = model.split('/').collect();
        if parts.len() != 2 || parts.iter().any(|p| p.is_empty() || p.contains(' ')) {
            bad.push(format!("{who}: not a Hugging Face `owner/name` id"));
        }
        if !seen.insert(model.to_string()) {
            bad.push(format!("{who}: duplicate model id"));
        }
        match row.get("score").and_then(Value::as_f64) {
            Some(s) if s.is_finite() => {}
            other => bad.push(format!("{who}: score {other:?} is not a finite number")),
        }
        match text(row, "matched") {
            Some("exact" | "same_model") => {}
            other => bad.push(format!("{who}: unknown matched value {other:?}")),
        }
        match text(row, "source") {
            Some(s) if is_https(s) => {}
            other => bad.push(format!("{who}: source {other:?} is not an https URL")),
        }
        if row.get("estimated").is_some_and(|e| !e.is_boolean()) {
            bad.push(format!("{who}: `estimated` is not a boolean"));
        }
        if row.get("note").is_some_and(|n| !n.is_string()) {
            bad.push(format!("{who}: `note` is not a string"));
        }
    }
    assert!(bad.is_empty(), "common_eval.json:\n{}", bad.join("\n"));
}
