//! `fitcard catalog refresh [REPOS.toml [FAMILIES-DIR]]`: the catalog's facts read again from
//! the Hub, for the repos a hand-kept list names (`crates/estimator/data/repos.toml`: per
//! family, the vendor repo of each variant, the quantized repos to read, the capability
//! source). For each repo, the Hub's model info (`?blobs=true`: the commit and every file's
//! exact size):
//!
//! * a vendor repo: the safetensors row naming it gets the shards' exact total; its
//!   `config.json` at that commit is read by the estimator's own reader and compared with the
//!   variant's shapes, and when they agree the architecture's config link is pinned to the
//!   commit (when they do not, each difference is printed for a person to decide: the shapes
//!   were checked against a second copy, which a refresh cannot do);
//! * a quantized repo: each GGUF the listing names by format updates that format's row when
//!   the row names this repo, and becomes a new row when the variant has no such format.
//!
//! Every value written cites `https://huggingface.co/<repo>/…/<commit>`. A file's JSON is
//! rewritten only where a value changed ([`crate::ordered`]). Needs the Hub (or a mirror by
//! `HF_ENDPOINT`); `--offline` refuses.

use crate::hub;
use crate::ordered::Json;
use fitcard_estimator::readers::hub::client::Info;
use fitcard_estimator::readers::hub::repo::{self, PUBLIC_HUB};
use fitcard_estimator::Quant;
use std::path::{Path, PathBuf};

/// Largest list or family file read, bytes.
const MAX_FILE: u64 = 4 << 20;

/// The list's default place, from the repository's root.
const LIST: &str = "crates/estimator/data/repos.toml";
/// The family files' default folder.
const FAMILIES: &str = "crates/estimator/data/families";

/// The shapes compared between a fresh `config.json` and the catalog.
const SHAPES: [&str; 11] = [
    "hidden",
    "layers",
    "heads",
    "kv_heads",
    "head_dim",
    "intermediate",
    "moe_intermediate",
    "experts",
    "experts_active",
    "vocab",
    "tied_embeddings",
];

/// The hand-kept list.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct List {
    family: Vec<FamilyRepos>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FamilyRepos {
    /// The family file `<id>.json`.
    id: String,
    /// Where its capability figures come from, when published (the family's basis must name
    /// it).
    #[serde(default)]
    capability: Option<String>,
    variant: Vec<VariantRepos>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantRepos {
    /// The vendor repo: the variant's id.
    id: String,
    /// Repos of quantized files of it.
    #[serde(default)]
    quantized: Vec<String>,
}

/// What a refresh did and what it leaves to a person.
#[derive(Default)]
struct Report {
    /// One line per change.
    changed: Vec<String>,
    /// One line per fact a person should look at.
    review: Vec<String>,
    /// One line per repo that could not be read.
    failed: Vec<String>,
}

/// Run the refresh: the report; when a repo could not be read, the report on stdout and Err
/// naming the first failure (what could be read is written either way).
pub fn run(args: &[&str]) -> Result<String, String> {
    if hub::OFFLINE.load(std::sync::atomic::Ordering::Relaxed) {
        return Err("catalog refresh reads the Hub: it cannot run --offline".into());
    }
    let list_path = PathBuf::from(args.first().copied().unwrap_or(LIST));
    let dir = PathBuf::from(args.get(1).copied().unwrap_or(FAMILIES));
    let list: List = toml::from_str(&read_text(&list_path)?).map_err(|e| {
        let first = e.message().lines().next().unwrap_or_default().to_string();
        format!("{}: {first}", list_path.display())
    })?;
    let mut report = Report::default();
    for f in &list.family {
        family(f, &dir, &mut report)?;
    }
    let mut out = vec![format!(
        "catalog refresh: {} change{}, {} to review, {} repo{} not read",
        report.changed.len(),
        if report.changed.len() == 1 { "" } else { "s" },
        report.review.len(),
        report.failed.len(),
        if report.failed.len() == 1 { "" } else { "s" },
    )];
    out.extend(report.changed.iter().map(|l| format!("changed: {l}")));
    out.extend(report.review.iter().map(|l| format!("review: {l}")));
    out.extend(report.failed.iter().map(|l| format!("not read: {l}")));
    match report.failed.as_slice() {
        [] => Ok(out.join("\n")),
        [first, rest @ ..] => {
            // The report still goes to stdout (what was written is in it); the refusal is one
            // line.
            crate::print_out(&out.join("\n"), false);
            Err(match rest.len() {
                0 => format!("catalog refresh: {first}"),
                n => format!("catalog refresh: {first} (and {n} more not read)"),
            })
        }
    }
}

/// A regular file of at most [`MAX_FILE`] bytes, as text.
fn read_text(path: &Path) -> Result<String, String> {
    let meta =
        std::fs::symlink_metadata(path).map_err(|e| format!("{}: {}", path.display(), e.kind()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    if meta.len() > MAX_FILE {
        return Err(format!("{}: larger than {MAX_FILE} bytes", path.display()));
    }
    std::fs::read_to_string(path).map_err(|e| format!("{}: {}", path.display(), e.kind()))
}

/// Refresh one family file.
fn family(f: &FamilyRepos, dir: &Path, report: &mut Report) -> Result<(), String> {
    let ok_id = !f.id.is_empty()
        && f.id.len() <= 64
        && f.id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_');
    if !ok_id {
        return Err(format!(
            "{}: not a family file name",
            fitcard_estimator::inputs::quote(&f.id)
        ));
    }
    let path = dir.join(format!("{}.json", f.id));
    let text = read_text(&path)?;
    let mut doc: Json =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let basis = doc.get("capability_basis").and_then(Json::as_str);
    if let Some(cap) = &f.capability {
        if !basis.is_some_and(|b| b.contains(cap.as_str())) {
            report.review.push(format!(
                "{}: the capability basis does not name {cap}",
                f.id
            ));
        }
    }
    for v in &f.variant {
        let Some(variant) = doc.get_mut("variants").map(Json::items_mut).and_then(|vs| {
            vs.iter_mut()
                .find(|x| x.get("id").and_then(Json::as_str) == Some(&v.id))
        }) else {
            report.review.push(format!(
                "{}: {} is not in the family file (a new variant's shapes need a second copy: add it by hand)",
                f.id, v.id
            ));
            continue;
        };
        match hub::listing(&v.id) {
            Ok(info) => vendor(variant, &v.id, &info, report),
            Err(e) => report.failed.push(e),
        }
        for q in &v.quantized {
            match hub::listing(q) {
                Ok(info) => quantized(variant, q, &info, report),
                Err(e) => report.failed.push(e),
            }
        }
    }
    let new = doc.to_pretty() + if text.ends_with('\n') { "\n" } else { "" };
    if new != text {
        std::fs::write(&path, new).map_err(|e| format!("{}: {}", path.display(), e.kind()))?;
    }
    Ok(())
}

/// The commit of a listing, or a failure line.
fn commit<'a>(repo: &str, info: &'a Info, report: &mut Report) -> Option<&'a str> {
    if info.sha.is_none() {
        report
            .failed
            .push(format!("the Hub's file list for {repo} names no commit"));
    }
    info.sha.as_deref()
}

/// Set `key` of `row` to `v`, saying so when it changed.
fn put(row: &mut Json, key: &str, v: Json) -> bool {
    let changed = row.get(key) != Some(&v);
    row.set(key, v);
    changed
}

/// The vendor repo: its checkpoint's exact size, its config compared and pinned.
fn vendor(variant: &mut Json, repo: &str, info: &Info, report: &mut Report) {
    let Some(sha) = commit(repo, info, report) else {
        return;
    };
    let files = repo::classify(&info.siblings, None);
    let total = files.safetensors.iter().try_fold(0u64, |t, s| {
        (s.size > 0).then(|| t.checked_add(s.size)).flatten()
    });
    if let (false, Some(total)) = (files.safetensors.is_empty(), total) {
        let source = format!(
            "{PUBLIC_HUB}/{repo}/tree/{sha}: {} .safetensors file{} of {} bytes together in the Hub's file listing at that commit (read by fitcard catalog refresh)",
            files.safetensors.len(),
            if files.safetensors.len() == 1 { "" } else { "s" },
            total
        );
        let mut rows = formats(variant)
            .iter_mut()
            .filter(|f| {
                f.get("container").and_then(Json::as_str) == Some("safetensors")
                    && f.get("repo").and_then(Json::as_str) == Some(repo)
            })
            .peekable();
        if rows.peek().is_none() {
            report.review.push(format!(
                "{repo}: {total} bytes of safetensors, but no safetensors row names the repo"
            ));
        }
        for row in rows {
            let id = row
                .get("id")
                .and_then(Json::as_str)
                .unwrap_or("?")
                .to_string();
            let mut changed = put(row, "bytes", Json::Num(total.into()));
            changed |= put(row, "size", Json::Str("exact".into()));
            if changed {
                row.set("source", Json::Str(source.clone()));
                report
                    .changed
                    .push(format!("{repo} {id}: {total} bytes (exact)"));
            }
        }
    }
    if files.config {
        config(variant, repo, sha, report);
    }
}

/// The variant's format rows (none when the file has no list).
fn formats(variant: &mut Json) -> &mut [Json] {
    variant.get_mut("formats").map_or(&mut [], Json::items_mut)
}

/// Read `config.json` at `sha`, compare its shapes with the variant's, pin the link when they
/// agree.
fn config(variant: &mut Json, repo: &str, sha: &str, report: &mut Report) {
    use fitcard_estimator::readers::hf::{arch_of, MAX_CONFIG};
    let fresh = hub::file(repo, sha, "config.json", MAX_CONFIG)
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).map_err(|e| e.to_string()))
        .and_then(|v| arch_of(&v, ""))
        .and_then(|a| serde_json::to_value(a).map_err(|e| e.to_string()));
    let fresh = match fresh {
        Ok(f) => f,
        Err(e) => {
            report.failed.push(format!(
                "{repo}: config.json at {sha}: {}",
                fitcard_estimator::inputs::clean(&e)
            ));
            return;
        }
    };
    let Some(arch) = variant.get_mut("arch") else {
        return;
    };
    let differs: Vec<String> = SHAPES
        .iter()
        .filter_map(|k| {
            let (ours, theirs) = (
                dense(k, serde_json::to_value(arch.get(k)?).ok()?),
                dense(k, fresh.get(*k)?.clone()),
            );
            (!ours.is_null() && !theirs.is_null() && ours != theirs)
                .then(|| format!("{k} {theirs} (the catalog: {ours})"))
        })
        .collect();
    if !differs.is_empty() {
        report.review.push(format!(
            "{repo}: config.json at {sha} says {}",
            differs.join(", ")
        ));
        return;
    }
    let Some(source) = arch.get("source").and_then(Json::as_str) else {
        return;
    };
    if let Some(pinned) = pin_config(source, repo, sha) {
        arch.set("source", Json::Str(pinned));
        report.changed.push(format!(
            "{repo}: config.json pinned to {sha} (shapes agree)"
        ));
    }
}

/// A dense model's expert counts as one form: the catalog writes 0, the reader 1 (one FFN).
fn dense(key: &str, v: serde_json::Value) -> serde_json::Value {
    let experts = key == "experts" || key == "experts_active";
    match v.as_u64() {
        Some(1) if experts => 0.into(),
        _ => v,
    }
}

/// `source` with its link to `repo`'s `config.json` pointed at `sha` (`None` when it has no
/// such link or already points there).
fn pin_config(source: &str, repo: &str, sha: &str) -> Option<String> {
    let head = format!("{PUBLIC_HUB}/{repo}/blob/");
    let at = source.find(&head)? + head.len();
    let rest = &source[at..];
    let end = rest.find("/config.json")?;
    let rev = &rest[..end];
    (rev != sha && !rev.contains(char::is_whitespace))
        .then(|| format!("{}{sha}{}", &source[..at], &rest[end..]))
}

/// A quantized repo: each GGUF the listing names by format, into the variant's rows.
fn quantized(variant: &mut Json, repo: &str, info: &Info, report: &mut Report) {
    let Some(sha) = commit(repo, info, report) else {
        return;
    };
    let vid = variant
        .get("id")
        .and_then(Json::as_str)
        .unwrap_or("?")
        .to_string();
    for g in repo::classify(&info.siblings, None).gguf {
        let (Some(q), true) = (g.quant, g.bytes > 0) else {
            continue;
        };
        let id = q.id();
        let split = g.path.contains("-00001-of-");
        let source = format!(
            "{PUBLIC_HUB}/{repo}/blob/{sha}/{}: {} bytes{} in the Hub's file listing at that commit (read by fitcard catalog refresh)",
            repo::enc(&g.path),
            g.bytes,
            if split { ", the parts together" } else { "" }
        );
        let rows = formats(variant);
        let same = |f: &Json| {
            f.get("container").and_then(Json::as_str) == Some("gguf")
                && f.get("id").and_then(Json::as_str) == Some(id)
        };
        match rows.iter_mut().find(|f| same(f)) {
            Some(row) if row.get("repo").and_then(Json::as_str) == Some(repo) => {
                let mut changed = put(row, "bytes", Json::Num(g.bytes.into()));
                changed |= put(row, "size", Json::Str("exact".into()));
                if changed {
                    row.set("source", Json::Str(source));
                    report
                        .changed
                        .push(format!("{vid} {id}: {} bytes (exact, {repo})", g.bytes));
                }
            }
            // Another publisher's file of this format is the row: left as it is.
            Some(_) => {}
            None => {
                let row = Json::Obj(vec![
                    ("id".into(), Json::Str(id.into())),
                    ("container".into(), Json::Str("gguf".into())),
                    ("bytes".into(), Json::Num(g.bytes.into())),
                    ("size".into(), Json::Str("exact".into())),
                    ("repo".into(), Json::Str(repo.into())),
                    ("file".into(), Json::Str(g.path.clone())),
                    ("source".into(), Json::Str(source)),
                ]);
                if let Some(Json::Arr(list)) = variant.get_mut("formats") {
                    // The catalog lists a variant's formats by precision, highest first.
                    let bits = |f: &Json| {
                        f.get("id")
                            .and_then(Json::as_str)
                            .and_then(|id| id.parse::<Quant>().ok())
                            .map_or(f64::INFINITY, Quant::precision_bits)
                    };
                    let at = list
                        .iter()
                        .position(|f| bits(f) < q.precision_bits())
                        .unwrap_or(list.len());
                    list.insert(at, row);
                    report.changed.push(format!(
                        "{vid} {id}: new, {} bytes (exact, {repo})",
                        g.bytes
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept list names only what the catalog holds: each family file, each variant in it,
    /// each capability source in the family's basis (so a refresh has nothing to add by hand).
    #[test]
    fn the_kept_list_names_the_catalog() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let list: List = toml::from_str(&read_text(&Path::new(root).join(LIST)).unwrap()).unwrap();
        let mut variants = 0;
        for f in &list.family {
            let path = Path::new(root)
                .join(FAMILIES)
                .join(format!("{}.json", f.id));
            let doc: serde_json::Value = serde_json::from_str(&read_text(&path).unwrap()).unwrap();
            if let Some(cap) = &f.capability {
                let basis = doc["capability_basis"].as_str().unwrap_or_default();
                assert!(basis.contains(cap.as_str()), "{}: {cap}", f.id);
            }
            for v in &f.variant {
                let known = doc["variants"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| x["id"] == v.id.as_str());
                assert!(known, "{} is not in {}", v.id, f.id);
                assert!(
                    v.quantized.iter().all(|q| repo::is_repo_id(q)),
                    "{:?}",
                    v.quantized
                );
                variants += 1;
            }
        }
        assert!(list.family.len() > 30 && variants > 100, "{variants}");
    }

    #[test]
    fn a_config_link_is_pinned_once() {
        let s = "https://huggingface.co/o/m/blob/main/config.json (text_config); checked";
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let p = pin_config(s, "o/m", sha).unwrap();
        assert_eq!(
            p,
            format!("https://huggingface.co/o/m/blob/{sha}/config.json (text_config); checked")
        );
        assert_eq!(pin_config(&p, "o/m", sha), None);
        assert_eq!(pin_config(s, "o/other", sha), None);
    }
}
