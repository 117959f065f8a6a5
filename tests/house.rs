//! The house's size rules for production code (`src/`, `crates/*/src/`; test modules, tests and
//! scripts excluded): no file over 600 lines, no function over 80 lines from its `fn` to its
//! closing brace. Functions are found by brace matching on the code with comments, string and
//! char literals blanked (line breaks kept) and every `#[cfg(test)]` item dropped; a `view!`
//! inside a component counts as the component's lines. Only data tables (a `const`/`static`
//! list of rows) may be long, and they are not functions.

#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

mod common;
use common::{is_ident, skip_literal};

const MAX_FILE_LINES: usize = 600;
const MAX_FN_LINES: usize = 80;

/// Every `.rs` file under `dir`, test module files (`tests.rs`, `tests/`) left out.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "tests" {
                sources(&p, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(p);
        }
    }
}

fn production_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    sources(&root.join("src"), &mut out);
    for krate in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let src = krate.path().join("src");
        if src.is_dir() {
            sources(&src, &mut out);
        }
    }
    assert!(out.len() > 50, "the source trees were not found");
    out
}

/// `src` with comments and literals blanked, line breaks kept.
fn blank_literals(src: &str) -> Vec<char> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::with_capacity(c.len());
    let mut k = 0;
    while k < c.len() {
        match skip_literal(&c, k) {
            Some(end) => {
                let end = end.min(c.len());
                out.extend(
                    c[k..end]
                        .iter()
                        .map(|&x| if x == '\n' { '\n' } else { ' ' }),
                );
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

/// The index of the `}` closing the block opened at `open`, or of the `;` that ends an item
/// with no block (from `k`), whichever the item has.
fn block_end(c: &[char], k: usize) -> usize {
    let mut depth = 0;
    for (i, &ch) in c.iter().enumerate().skip(k) {
        match ch {
            ';' if depth == 0 => return i,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    c.len().saturating_sub(1)
}

/// The code of `src` with every `#[cfg(test)]` item blanked.
fn production_code(src: &str) -> Vec<char> {
    let mut c = blank_literals(src);
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut k = 0;
    while k + marker.len() <= c.len() {
        if c[k..].starts_with(&marker) {
            let end = block_end(&c, k);
            for x in &mut c[k..=end] {
                if *x != '\n' {
                    *x = ' ';
                }
            }
            k = end;
        }
        k += 1;
    }
    c
}

/// Each function with a body in `code`: its name and its lines, `fn` to closing brace.
fn functions(code: &[char]) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for k in 0..code.len().saturating_sub(3) {
        let starts = code[k] == 'f'
            && code[k + 1] == 'n'
            && code[k + 2].is_whitespace()
            && (k == 0 || !is_ident(code[k - 1]));
        if !starts {
            continue;
        }
        let name: String = code[k + 2..]
            .iter()
            .skip_while(|c| c.is_whitespace())
            .take_while(|&&c| is_ident(c))
            .collect();
        let Some(open) = (k..code.len()).find(|&i| code[i] == '{' || code[i] == ';') else {
            continue;
        };
        if code[open] == ';' || name.is_empty() {
            continue;
        }
        let end = block_end(code, open);
        let lines = code[k..=end].iter().filter(|&&c| c == '\n').count() + 1;
        out.push((name, lines));
    }
    out
}

#[test]
fn no_production_file_is_over_600_lines() {
    let long: Vec<String> = production_files()
        .iter()
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).unwrap().lines().count();
            (n > MAX_FILE_LINES).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these files: {long:#?}");
}

#[test]
fn no_production_function_is_over_80_lines() {
    let mut long = Vec::new();
    for p in production_files() {
        let code = production_code(&std::fs::read_to_string(&p).unwrap());
        for (name, lines) in functions(&code) {
            if lines > MAX_FN_LINES {
                long.push(format!("{}: fn {name} ({lines} lines)", p.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "split these functions into named steps: {long:#?}"
    );
}

#[test]
fn the_counter_reads_code_only() {
    let src = "fn a() {\n    let s = \"}\n}\";\n    // }\n    let c = '}';\n}\n\
               #[cfg(test)]\nmod tests {\n    fn hidden() {\n    }\n}\n\
               fn b(x: u8) -> u8 { let r = r#\"{\"#; x }\nfn decl();\n";
    let code = production_code(src);
    assert_eq!(
        functions(&code),
        vec![("a".to_string(), 6), ("b".to_string(), 1)]
    );
}

#[test]
fn the_counter_catches_a_long_function() {
    let body = "    let x = 1;\n".repeat(MAX_FN_LINES);
    let src = format!("pub fn long() {{\n{body}}}\n");
    let found = functions(&production_code(&src));
    assert_eq!(found, vec![("long".to_string(), MAX_FN_LINES + 2)]);
}
