//! The page's layout: every path in the code of `src/` that names a file of the crate
//! (`crate::`, `super::`, `self::` or a child module declared in the file; use lines and inline
//! paths; comments, doc comments, string and char literals and `#[cfg(test)]` items excluded)
//! goes from a file to one listed above it in the layer map of `src/lib.rs`, the files form no
//! cycle, and every file is on the map once. A file that uses one below it, or a cycle, fails
//! here, naming the edge.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod common;
use common::{is_ident, skip_literal};

/// The layer map: the backticked file names of `lib.rs`'s "## Layers" list, in order (a
/// folder's name stands for its `mod.rs`), each with whether its section lists it as pure
/// ("Pure, …") or as compiled for wasm32 only.
fn layer_map(lib: &str) -> Vec<(String, bool)> {
    let start = lib.find("//! ## Layers").expect("lib.rs has a layer map");
    let mut pure = None;
    let mut out = Vec::new();
    for l in lib[start..].lines().skip(1) {
        let Some(text) = l.strip_prefix("//!") else {
            break;
        };
        if text.starts_with(" Pure") {
            pure = Some(true);
        } else if text.starts_with(" Compiled for wasm32 only") {
            pure = Some(false);
        }
        if let Some(name) = text.strip_prefix(" - `").and_then(|t| t.split('`').next()) {
            let section = pure.unwrap_or_else(|| panic!("{name} is listed under no section"));
            out.push((name.to_string(), section));
        }
    }
    out
}

/// The index just past the item that starts at `k`: through its first `;` or its first `{…}`
/// block, whichever comes first.
fn item_end(c: &[char], k: usize) -> usize {
    let mut depth = 0;
    for (i, &ch) in c.iter().enumerate().skip(k) {
        match ch {
            ';' if depth == 0 => return i + 1,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    c.len()
}

/// `src` without comments and literals (a string becomes `""`).
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut k = 0;
    while k < c.len() {
        match skip_literal(&c, k) {
            Some(end) => {
                if c[k] != '/' && c[k] != '\'' {
                    out.push_str("\"\"");
                }
                k = end;
            }
            None => {
                out.push(c[k]);
                k += 1;
            }
        }
    }
    out
}

/// `src` as code only: without comments and literals, and without any item under
/// `#[cfg(test)]` (a test module, inline or declared, or a test-only use).
fn code(src: &str) -> String {
    let mut s = strip(src);
    while let Some(at) = s.find("#[cfg(test)]") {
        let c: Vec<char> = s.chars().collect();
        let from = s[..at].chars().count();
        let end = item_end(&c, from);
        s = c[..from].iter().chain(&c[end..]).collect();
    }
    s
}

/// The modules `src` declares in files of their own under `#[cfg(test)]` (`mod tests;`).
fn test_children(src: &str) -> Vec<String> {
    let stripped = strip(src);
    let mut out = Vec::new();
    let mut rest = stripped.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        rest = &rest[at + "#[cfg(test)]".len()..];
        let item = rest.trim_start();
        let item = item.strip_prefix("pub ").unwrap_or(item);
        if let Some(m) = item.strip_prefix("mod ") {
            let name: String = m.chars().take_while(|&c| is_ident(c)).collect();
            if m[name.len()..].trim_start().starts_with(';') {
                out.push(name);
            }
        }
    }
    out
}

/// The modules `code` declares in files of their own (`mod name;`, `pub mod name;`).
fn children(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (k, _) in code.match_indices("mod ") {
        if code[..k].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = &code[k + 4..];
        let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        if !name.is_empty() && rest[name.len()..].trim_start().starts_with(';') {
            out.insert(name);
        }
    }
    out
}

/// The paths of a use tree at the start of `s` (`a::b`, `a::{b, c::{self, D}}`, `a::*`), each
/// as its segments (`self` and `*` add none); where it ends in `s`.
fn tree(s: &[char], mut k: usize) -> (Vec<Vec<String>>, usize) {
    let ws = |k: &mut usize| {
        while *k < s.len() && s[*k].is_whitespace() {
            *k += 1;
        }
    };
    ws(&mut k);
    if s.get(k) == Some(&'{') {
        let mut all = Vec::new();
        k += 1;
        loop {
            ws(&mut k);
            match s.get(k) {
                Some('}') => return (all, k + 1),
                Some(',') => k += 1,
                None => return (all, k),
                _ => {
                    let (sub, end) = tree(s, k);
                    all.extend(sub);
                    k = end.max(k + 1);
                }
            }
        }
    }
    if s.get(k) == Some(&'*') {
        return (vec![Vec::new()], k + 1);
    }
    let start = k;
    while k < s.len() && is_ident(s[k]) {
        k += 1;
    }
    let seg: String = s[start..k].iter().collect();
    let head = if seg == "self" { Vec::new() } else { vec![seg] };
    // A rename (`self as geometry`, `X as Y`) adds no path.
    let mut after = k;
    ws(&mut after);
    if s[after..].starts_with(&['a', 's', ' ']) {
        after += 3;
        ws(&mut after);
        while after < s.len() && is_ident(s[after]) {
            after += 1;
        }
        return (vec![head], after);
    }
    if s.get(k) == Some(&':') && s.get(k + 1) == Some(&':') {
        let (subs, end) = tree(s, k + 2);
        let subs = if subs.is_empty() {
            vec![Vec::new()]
        } else {
            subs
        };
        let all = subs
            .into_iter()
            .map(|sub| head.iter().cloned().chain(sub).collect())
            .collect();
        return (all, end);
    }
    (vec![head], k)
}

/// Every module path `code` names from the file of module `here` (its segments from the crate
/// root): `crate::…`, `super::…` (as often as written), `self::…`, and `child::…` for a child
/// it declares.
fn paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let kids = children(code);
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < c.len() {
        if !is_ident(c[k]) || (k > 0 && (is_ident(c[k - 1]) || c[k - 1] == ':')) {
            k += 1;
            continue;
        }
        let end = (k..c.len()).find(|&i| !is_ident(c[i])).unwrap_or(c.len());
        let word: String = c[k..end].iter().collect();
        let path_follows = c.get(end) == Some(&':') && c.get(end + 1) == Some(&':');
        let base: Option<Vec<String>> = match word.as_str() {
            _ if !path_follows => None,
            "crate" => Some(Vec::new()),
            "self" => Some(here.to_vec()),
            "super" => Some(here[..here.len().saturating_sub(1)].to_vec()),
            w if kids.contains(w) => Some(here.iter().cloned().chain([w.to_string()]).collect()),
            _ => None,
        };
        let Some(mut base) = base else {
            k = end;
            continue;
        };
        let mut at = end + 2;
        // `super::super::…`
        while c[at..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
            base.pop();
            at += 7;
        }
        let (rel, stop) = tree(&c, at);
        out.extend(
            rel.into_iter()
                .map(|r| base.iter().cloned().chain(r).collect()),
        );
        k = stop.max(end);
    }
    out
}

/// The map's name of the file a module path names: its longest prefix on the map.
fn file_of(path: &[String], map: &BTreeMap<String, usize>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("/"))
        .find(|p| map.contains_key(p))
}

/// The crate's roots (the `[lib]` and `[[bin]]` paths of Cargo.toml): not modules of the map.
fn roots(manifest: &str) -> Vec<String> {
    manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("path = \"src/"))
        .filter_map(|l| l.strip_suffix('"'))
        .map(String::from)
        .collect()
}

/// Each module file under `dir` (`rel` its folder below `src/`): its map name (`a/b` for
/// `a/b.rs` and `a/b/mod.rs`), its module path and its source; test modules' files left out.
fn files(
    dir: &Path,
    rel: &[String],
    skip: &BTreeSet<Vec<String>>,
    out: &mut Vec<(String, Vec<String>, String)>,
) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let mut module = rel.to_vec();
        if p.is_dir() {
            module.push(name);
            files(&p, &module, skip, out);
            continue;
        }
        if p.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        if name != "mod" {
            module.push(name);
        }
        if module.is_empty() || skip.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        out.push((
            module.join("/"),
            module,
            std::fs::read_to_string(&p).unwrap(),
        ));
    }
}

/// The page's files and the files each one's code names (itself left out).
struct Graph {
    /// The layer map, in order.
    map: Vec<String>,
    /// The files the map lists as pure.
    pure: BTreeSet<String>,
    /// Each file's code (comments, literals and test items dropped).
    code: BTreeMap<String, String>,
    edges: BTreeMap<String, BTreeSet<String>>,
    unlisted: Vec<String>,
}

fn graph() -> Graph {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let listed = layer_map(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let pure = listed.iter().filter(|l| l.1).map(|l| l.0.clone()).collect();
    let map: Vec<String> = listed.into_iter().map(|l| l.0).collect();
    let at: BTreeMap<String, usize> = map.iter().cloned().zip(0..).collect();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut all = Vec::new();
    // The roots are skipped by name at the top of src/; the test modules wherever declared.
    let mut skip: BTreeSet<Vec<String>> = roots(&manifest)
        .iter()
        .map(|r| vec![r.trim_end_matches(".rs").to_string()])
        .collect();
    files(&src, &[], &skip, &mut all);
    for (_, module, text) in &all {
        for t in test_children(text) {
            skip.insert(module.iter().cloned().chain([t]).collect());
        }
    }
    all.retain(|(_, m, _)| !skip.iter().any(|t| m.starts_with(t)));
    let (mut edges, mut codes) = (BTreeMap::new(), BTreeMap::new());
    let mut unlisted = Vec::new();
    for (name, module, text) in &all {
        if !at.contains_key(name) {
            unlisted.push(name.clone());
        }
        let code = code(text);
        let used: BTreeSet<String> = paths(&code, module)
            .iter()
            .filter_map(|p| file_of(p, &at))
            .filter(|f| f != name)
            .collect();
        edges.insert(name.clone(), used);
        codes.insert(name.clone(), code);
    }
    Graph {
        map,
        pure,
        code: codes,
        edges,
        unlisted,
    }
}

/// A cycle of `edges` (its files in order, the first again at the end), if there is one.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit<'a>(
        n: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<&'a str>,
        stack: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(k) = stack.iter().position(|s| *s == n) {
            return Some(
                stack[k..]
                    .iter()
                    .chain([&n])
                    .map(|s| s.to_string())
                    .collect(),
            );
        }
        if !done.insert(n) {
            return None;
        }
        stack.push(n);
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, edges, done, stack) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut done, &mut Vec::new()))
}

/// What is wrong with the layer map: files off it, names on it that are no file or that come
/// twice, and every use of a file listed below the user.
fn upward(g: &Graph) -> Vec<String> {
    let at: BTreeMap<&str, usize> = g.map.iter().map(String::as_str).zip(0..).collect();
    let mut wrong: Vec<String> = g
        .unlisted
        .iter()
        .map(|f| format!("{f} is not on the layer map"))
        .collect();
    for (k, m) in g.map.iter().enumerate() {
        if !g.edges.contains_key(m) {
            wrong.push(format!("the layer map lists {m}, which is no file of src/"));
        }
        if g.map[..k].contains(m) {
            wrong.push(format!("the layer map lists {m} twice"));
        }
    }
    for (file, used) in &g.edges {
        for u in used {
            if let (Some(a), Some(b)) = (at.get(file.as_str()), at.get(u.as_str())) {
                if b > a {
                    wrong.push(format!("{file} uses {u}, listed below it"));
                }
            }
        }
    }
    wrong
}

#[test]
fn every_file_uses_only_files_above_it() {
    let g = graph();
    let wrong = upward(&g);
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(g.map.len() >= 40, "{:?}", g.map);
}

/// The pure files come first (none can use a wasm32-only one) and name no browser crate: they
/// build and are tested on the host.
#[test]
fn the_pure_files_are_host_code() {
    let g = graph();
    let first_wasm = g.map.iter().position(|m| !g.pure.contains(m)).unwrap();
    let late: Vec<&String> = g.map[first_wasm..]
        .iter()
        .filter(|m| g.pure.contains(*m))
        .collect();
    assert!(
        late.is_empty(),
        "pure files listed among the wasm32 ones: {late:?}"
    );
    for m in &g.pure {
        let words: BTreeSet<&str> = g.code[m].split(|c: char| !is_ident(c)).collect();
        for browser in [
            "leptos",
            "web_sys",
            "js_sys",
            "wasm_bindgen",
            "wasm_bindgen_futures",
        ] {
            assert!(
                !words.contains(browser),
                "{m} is listed as pure and names {browser}"
            );
        }
    }
    assert!(g.pure.len() >= 12, "{:?}", g.pure);
}

#[test]
fn the_files_form_no_cycle() {
    let g = graph();
    if let Some(c) = cycle(&g.edges) {
        panic!("a cycle: {}", c.join(" -> "));
    }
}

/// The checker sees what it must: a path in code, not in a comment, a string or a test module;
/// `super::` and `self::` from where the file stands; groups, nested.
#[test]
fn the_checker_reads_code_only() {
    let text = r##"use crate::a::X;
// crate::b
/// [`crate::c`]
let s = "crate::d \" crate::d2";
let r = r#"crate::d3 "# ;
let q = '"'; let l: &'static str = "";
/* crate::k /* nested crate::k2 */ crate::k3 */
fn f() { crate::e::g(); }
use crate::{f, h::{self as hh, I as J}};
use super::*;
use super::super::m::N;
use self::child::O;
use kid::P;
mod kid;
#[cfg(test)]
mod tests { use crate::t::T; }
#[cfg(test)]
use crate::t2::U;
"##;
    let here = ["x".to_string(), "y".to_string()];
    let got: Vec<String> = paths(&code(text), &here)
        .iter()
        .map(|p| p.join("/"))
        .collect();
    assert_eq!(
        got,
        [
            "a/X",
            "e/g",
            "f",
            "h",
            "h/I",
            "x",
            "m/N",
            "x/y/child/O",
            "x/y/kid/P"
        ]
    );
    assert_eq!(
        test_children("#[cfg(test)]\nmod tests;\nmod real;"),
        ["tests"]
    );
    let map: BTreeMap<String, usize> = [("a".to_string(), 0), ("a/b".to_string(), 1)].into();
    let path = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    assert_eq!(file_of(&path("a/b/C"), &map).as_deref(), Some("a/b"));
    assert_eq!(file_of(&path("a/C"), &map).as_deref(), Some("a"));
    assert_eq!(file_of(&path("z/C"), &map), None);
}

/// The checker finds a cycle, and an upward use, when there is one.
#[test]
fn the_checker_finds_cycles_and_upward_uses() {
    let edges = |pairs: &[(&str, &str)]| {
        let mut e: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            e.entry(a.to_string()).or_default().insert(b.to_string());
            e.entry(b.to_string()).or_default();
        }
        e
    };
    assert_eq!(cycle(&edges(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(
        cycle(&edges(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
    let g = Graph {
        map: ["low", "high"].map(String::from).to_vec(),
        pure: BTreeSet::new(),
        code: BTreeMap::new(),
        edges: edges(&[("low", "high")]),
        unlisted: Vec::new(),
    };
    assert_eq!(upward(&g), ["low uses high, listed below it"]);
}

/// The README's layout row of `src/` names every file of the layer map, in its order (a
/// folder's `mod.rs` as `mod`).
#[test]
fn the_readme_follows_the_layer_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map: Vec<String> = layer_map(&std::fs::read_to_string(root.join("src/lib.rs")).unwrap())
        .into_iter()
        .map(|l| l.0)
        .collect();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `src/`"))
        .expect("the README's layout row of the page");
    let words: Vec<&str> = row
        .split(|c: char| !is_ident(c))
        .filter(|w| !w.is_empty())
        .collect();
    let mut from = 0;
    for m in &map {
        let folder = map.iter().any(|o| o.starts_with(&format!("{m}/")));
        let name = if folder {
            "mod"
        } else {
            m.rsplit('/').next().unwrap()
        };
        let at = words[from..]
            .iter()
            .position(|w| *w == name)
            .unwrap_or_else(|| {
                panic!("the README's layout row lacks {name} ({m}) after word {from}")
            });
        from += at + 1;
    }
}
