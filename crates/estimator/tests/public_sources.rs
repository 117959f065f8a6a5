//! Every source the product names is public: no text in the page, the CLI (its code and the
//! snapshots of its output), the catalog, the docs, the scripts or the comments refers to a
//! document a reader cannot open. The patterns are built from parts so that this file does not
//! match itself.

use std::path::{Path, PathBuf};

/// Words that point at working papers outside the repository.
fn patterns() -> Vec<(String, bool)> {
    // (pattern, case-sensitive)
    vec![
        (["GUI", "DE"].concat(), true),
        ("\u{a7}".to_string(), true),
        (["es", "say"].concat(), false),
        (["seed", " 1"].concat(), false),
        (["seed", " 2"].concat(), false),
        (["shared", "/data"].concat(), false),
        (["task", " brief"].concat(), false),
    ]
}

/// Text files of the repository that ship or document the product.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    const SKIP: [&str; 7] = [
        "target",
        "node_modules",
        ".tools",
        "dist",
        ".git",
        ".cargo",
        "gen-out",
    ];
    const EXT: [&str; 12] = [
        "rs", "md", "json", "toml", "html", "css", "mjs", "js", "sh", "py", "snap", "txt",
    ];
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if !SKIP.contains(&name.as_str()) {
                files(&p, out);
            }
        } else if name == "package-lock.json" || name == "Cargo.lock" {
            continue;
        } else if p
            .extension()
            .is_some_and(|x| EXT.contains(&x.to_string_lossy().as_ref()))
            || name == "run"
        {
            out.push(p);
        }
    }
}

#[test]
fn no_reference_to_documents_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut all = Vec::new();
    files(&root, &mut all);
    assert!(
        all.iter()
            .any(|p| p.ends_with("crates/estimator/data/gpus.json")),
        "the scan must reach the catalog"
    );
    assert!(all.len() > 50, "only {} files scanned", all.len());
    let mut hits = Vec::new();
    for p in &all {
        let Ok(text) = std::fs::read_to_string(p) else {
            continue;
        };
        let lower = text.to_lowercase();
        for (n, (line, lower_line)) in text.lines().zip(lower.lines()).enumerate() {
            for (pat, exact) in patterns() {
                let found = if exact {
                    line.contains(&pat)
                } else {
                    lower_line.contains(&pat)
                };
                if found {
                    hits.push(format!(
                        "{}:{}: {pat:?}: {}",
                        p.display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "{} references to documents a reader cannot open:\n{}",
        hits.len(),
        hits.join("\n")
    );
}
