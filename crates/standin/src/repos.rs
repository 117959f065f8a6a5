//! A repo described (its files, gated or not, slow, …) as the routes of the Hub and of its file
//! host: the model info (`/api/models/{repo}`, any revision), `resolve` redirecting to the file
//! host, and the file host's ranges.

use crate::server::{json, redirect, status, Answer, Routes, SHA};
use std::sync::Arc;

/// Where a repo's answers lead outside the Hub and its file host.
#[derive(Clone, Copy, Default, PartialEq)]
pub enum Away {
    /// Nowhere.
    #[default]
    No,
    /// Its files redirect to the host outside.
    File,
    /// Its model info redirects to the host outside.
    Info,
}

/// One file of a repo.
#[derive(Clone)]
pub struct File {
    /// Its name in the repo.
    pub name: String,
    /// Its size in the listing.
    pub size: u64,
    /// Its first bytes (`None`: the file host has no bytes for it, 404).
    pub head: Head,
}

/// First bytes of a fixture file, shared by the routes that answer with them.
pub type Head = Option<Arc<Vec<u8>>>;

/// A repo on the stand-in Hub.
#[derive(Clone, Default)]
pub struct Repo {
    /// Its files.
    pub files: Vec<File>,
    /// `gated` in its model info (`"manual"`, `"auto"`).
    pub gated: Option<&'static str>,
    /// Milliseconds before its model info is answered.
    pub slow_ms: u64,
    /// Its files answer 401 `GatedRepo` (a gated repo without a login).
    pub locked: bool,
    /// Its file ranges are cut off half-way.
    pub cut: bool,
    /// Where its answers lead outside.
    pub away: Away,
    /// Its model card's metadata (`cardData`), JSON.
    pub card: Option<String>,
}

impl Repo {
    /// A repo holding `files` (name, size, first bytes).
    pub fn of(files: Vec<(&str, u64, Head)>) -> Repo {
        Repo {
            files: files
                .into_iter()
                .map(|(name, size, head)| File {
                    name: name.into(),
                    size,
                    head,
                })
                .collect(),
            ..Repo::default()
        }
    }
}

/// The Hub's model info for `id` (`?blobs=true` shape: each sibling with its size).
pub fn info(id: &str, r: &Repo) -> String {
    let siblings: Vec<String> = r
        .files
        .iter()
        .map(|f| {
            format!(
                r#"{{"rfilename":"{}","size":{},"blobId":"b"}}"#,
                f.name, f.size
            )
        })
        .collect();
    let gated = r.gated.map_or("false".into(), |g| format!("\"{g}\""));
    format!(
        r#"{{"_id":"x","id":"{id}","modelId":"{id}","sha":"{SHA}","private":false,"gated":{gated},"cardData":{},"siblings":[{}]}}"#,
        r.card.as_deref().unwrap_or("{}"),
        siblings.join(",")
    )
}

/// The hosts a stand-in Hub answers on (base URLs).
pub struct Hosts {
    /// The Hub's file host.
    pub cdn: String,
    /// A host outside the Hub and its file host.
    pub away: String,
}

/// The Hub's routes for `repos`: model info and `resolve`. On the host outside (`outside`),
/// nothing redirects there again.
pub fn hub(repos: &[(String, Repo)], hosts: &Hosts, outside: bool) -> Routes {
    let mut out = Routes::new();
    for (id, r) in repos {
        let info_answer = if r.away == Away::Info && !outside {
            redirect(&format!("{}/api/models/{id}", hosts.away))
        } else {
            let a = json(info(id, r));
            if r.slow_ms > 0 {
                Answer::After(r.slow_ms, Box::new(a))
            } else {
                a
            }
        };
        out.insert(format!("/api/models/{id}"), info_answer);
        for f in &r.files {
            let to = if r.away == Away::File {
                &hosts.away
            } else {
                &hosts.cdn
            };
            let answer = if r.locked {
                status(401, Some("GatedRepo"))
            } else {
                redirect(&format!("{to}/cdn/{id}/{}", f.name))
            };
            out.insert(format!("/{id}/resolve/*/{}", f.name), answer);
        }
    }
    out
}

/// The file host's routes for `repos`: `/cdn/{repo}/{file}`, each with its bytes.
pub fn cdn(repos: &[(String, Repo)]) -> Routes {
    let mut out = Routes::new();
    for (id, r) in repos {
        for f in &r.files {
            if let Some(head) = &f.head {
                out.insert(
                    format!("/cdn/{id}/{}", f.name),
                    Answer::File {
                        size: f.size,
                        head: head.clone(),
                        cut: r.cut,
                    },
                );
            }
        }
    }
    out
}
