//! The estimator's layout: every `crate::` path in the code (use lines and inline paths;
//! comments, doc comments, strings and `#[cfg(test)]` modules excluded) goes from a file to one
//! listed above it in the layer map of `src/lib.rs`, and every file is on the map. A file that
//! uses one below it, or a cycle, fails here, naming the edge.

use std::collections::BTreeMap;
use std::path::Path;

/// The layer map: the backticked module names of `lib.rs`'s "## Layers" list, in order.
fn layer_map(lib: &str) -> Vec<String> {
    let start = lib.find("//! ## Layers").expect("lib.rs has a layer map");
    lib[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("//!"))
        .filter_map(|l| l.strip_prefix("//! - `"))
        .filter_map(|l| l.split('`').next())
        .map(String::from)
        .collect()
}

/// `src` without comments, string and char literals, and its `#[cfg(test)]` module.
fn code(src: &str) -> String {
    let src = match src.find("#[cfg(test)]\nmod tests") {
        Some(k) => &src[..k],
        None => src,
    };
    let b = src.as_bytes();
    let (mut out, mut k) = (String::with_capacity(src.len()), 0);
    while k < b.len() {
        match (b[k], b.get(k + 1)) {
            (b'/', Some(b'/')) => {
                while k < b.len() && b[k] != b'\n' {
                    k += 1;
                }
            }
            (b'/', Some(b'*')) => {
                k += 2;
                while k + 1 < b.len() && !(b[k] == b'*' && b[k + 1] == b'/') {
                    k += 1;
                }
                k += 2;
            }
            (b'"', _) => {
                k += 1;
                while k < b.len() && b[k] != b'"' {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
                k += 1;
                out.push_str("\"\"");
            }
            // A char literal ('x', '\n'), not a lifetime ('a).
            (b'\'', _) if b.get(k + 2) == Some(&b'\'') || b.get(k + 1) == Some(&b'\\') => {
                k += 1;
                while k < b.len() && b[k] != b'\'' {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
                k += 1;
            }
            (c, _) => {
                out.push(c as char);
                k += 1;
            }
        }
    }
    out
}

/// The top-level modules `src` names through `crate::` (grouped `crate::{a, b::c}` too).
fn uses(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (k, _) in src.match_indices("crate::") {
        let before = src[..k].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `fitcard_estimator::`-like paths end in "crate::" only by accident
        }
        let rest = &src[k + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out.push(name);
            }
        } else {
            out.push(
                rest.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect(),
            );
        }
    }
    out
}

/// (file's top module, its source) for every file under `dir`.
fn files(dir: &Path, top: Option<&str>, out: &mut Vec<(String, String, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let module = top.map_or(name.clone(), String::from);
        if p.is_dir() {
            files(&p, Some(&module), out);
        } else if p.extension().is_some_and(|x| x == "rs") && !(top.is_none() && name == "lib") {
            let shown = p.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&p);
            out.push((
                module,
                shown.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
}

/// The folders' own order: for each module of the map, the backticked names in its entry (its
/// files, in the order they may use each other), e.g. `serve`'s `placement` … `describe`.
fn sub_maps(lib: &str) -> BTreeMap<String, Vec<String>> {
    let start = lib.find("//! ## Layers").expect("lib.rs has a layer map");
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut top = None;
    for l in lib[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("//!"))
    {
        let rest = if let Some(entry) = l.strip_prefix("//! - `") {
            let (name, rest) = entry.split_once('`').unwrap_or((entry, ""));
            top = Some(name.to_string());
            rest
        } else if l.starts_with("//!   ") {
            l
        } else {
            continue;
        };
        let Some(top) = &top else { continue };
        let names = rest.split('`').skip(1).step_by(2).map(String::from);
        out.entry(top.clone()).or_default().extend(names);
    }
    out
}

/// The files a folder's file names through `crate::top::x` or, one level down, `super::x`.
fn sub_uses(src: &str, top: &str, direct: bool) -> Vec<String> {
    let name = |rest: &str| -> String {
        rest.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let own = format!("crate::{top}::");
    let mut out: Vec<String> = src
        .match_indices(&own)
        .map(|(k, _)| name(&src[k + own.len()..]))
        .collect();
    if direct {
        out.extend(
            src.match_indices("super::")
                .map(|(k, _)| name(&src[k + "super::".len()..])),
        );
    }
    out
}

#[test]
fn every_folder_file_uses_only_files_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let subs = sub_maps(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (module, file, text) in {
        let mut all = Vec::new();
        files(&src, None, &mut all);
        all
    } {
        let Some(order) = subs.get(&module) else {
            continue;
        };
        let inner = file
            .trim_start_matches("src/")
            .trim_start_matches(&format!("{module}/"));
        let parts: Vec<&str> = inner.split('/').collect();
        if parts.len() < 2 && parts[0] == format!("{module}.rs") {
            continue; // the folder's own file (`frontier.rs` beside `frontier/`)
        }
        let here = parts[0].trim_end_matches(".rs");
        let Some(at) = order.iter().position(|s| s == here) else {
            continue;
        };
        checked += 1;
        for used in sub_uses(&code(&text), &module, parts.len() == 1) {
            if let Some(u) = order.iter().position(|s| *s == used) {
                if u > at {
                    wrong.push(format!(
                        "{file} ({module}::{here}) uses {module}::{used}, listed below it"
                    ));
                }
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "{} upward uses:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(checked >= 15, "only {checked} folder files on the map");
}

#[test]
fn every_file_uses_only_files_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let map = layer_map(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let at: BTreeMap<&str, usize> = map
        .iter()
        .enumerate()
        .map(|(k, m)| (m.as_str(), k))
        .collect();
    let mut all = Vec::new();
    files(&src, None, &mut all);
    let mut wrong = Vec::new();
    for (module, file, text) in &all {
        let Some(&here) = at.get(module.as_str()) else {
            wrong.push(format!("{file}: module {module} is not on the layer map"));
            continue;
        };
        for used in uses(&code(text)) {
            if used == *module || !at.contains_key(used.as_str()) {
                continue; // itself, or a name lib.rs re-exports (`crate::Bytes`)
            }
            if at[used.as_str()] > here {
                wrong.push(format!("{file} ({module}) uses {used}, listed below it"));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "{} upward uses:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(map.len() >= 15, "{map:?}");
}

/// The checker sees what it must: a path in code, not in a comment or a string.
#[test]
fn the_checker_reads_code_only() {
    let text = "use crate::a::X;\n// crate::b\n/// [`crate::c`]\nlet s = \"crate::d\";\nfn f() { crate::e::g(); }\nuse crate::{f, h::I};\n";
    assert_eq!(uses(&code(text)), ["a", "e", "f", "h"]);
}

/// The README's layout section names every module of the layer map, in its order.
#[test]
fn the_readme_follows_the_layer_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = layer_map(&std::fs::read_to_string(root.join("src/lib.rs")).unwrap());
    let readme = std::fs::read_to_string(root.join("../../README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `crates/estimator/src`"))
        .expect("the README's layout row of the estimator");
    let mut from = 0;
    for m in &map {
        let at = row[from..]
            .find(&format!(" {m}"))
            .or_else(|| row[from..].find(&format!("`{m}/`")))
            .unwrap_or_else(|| panic!("the README's layout row lacks {m} after position {from}"));
        from += at + 1;
    }
}
