//! Importing a model, the reads: a Hub repo or files picked on the visitor's disk, read by the
//! estimator's reader (`fitcard_estimator::readers::hub::client`, the CLI's too) over the
//! worker's requests ([`super::fetch`]).

use super::fetch::{Disk, PageHub};
use crate::model::hub::{self, Sibling, Target};
use fitcard_estimator::readers::hub::client;
use fitcard_estimator::Engine;

pub use fitcard_estimator::readers::hub::client::Imported;

/// Most files picked at once (a checkpoint's shards and its config.json).
const MAX_PICKED: usize = client::MAX_SHARDS + 2;

/// Files picked on the visitor's disk: one GGUF (or the first part of a split one, the other
/// parts picked with it), or a checkpoint's `config.json` with its `.safetensors` shards. The
/// model joins the catalog under its file name ([`client::read_disk`]).
pub async fn run_disk(
    files: &[web_sys::File],
    progress: impl Fn(String),
) -> Result<Imported, String> {
    if files.is_empty() {
        return Err("no file was picked".into());
    }
    if files.len() > MAX_PICKED {
        return Err(format!(
            "{} files picked: at most {MAX_PICKED}",
            files.len()
        ));
    }
    let siblings: Vec<Sibling> = files
        .iter()
        .map(|f| Sibling {
            path: f.name(),
            size: f.size().max(0.0) as u64,
        })
        .collect();
    client::read_disk(&Disk(files), &siblings, progress)
        .await
        .map_err(|f| f.line)
}

/// Read `t` from the page's Hub ([`client::read_repo`]); a repo it cannot give that is a
/// sibling release of a catalog variant (the base of an instruct model, gated) is read as that
/// variant's architecture ([`client::sibling_instead`]). `progress` is told each step.
pub async fn run(
    t: &Target,
    engine: Option<Engine>,
    progress: impl Fn(String),
) -> Result<Imported, String> {
    match client::read_repo(&PageHub, &hub::endpoint(), t, engine, progress).await {
        Ok(i) => Ok(i),
        Err(f) => client::sibling_instead(&t.repo, f.fault).ok_or(f.line),
    }
}
