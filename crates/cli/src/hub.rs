//! A Hub repo the catalog lacks, read by the CLI: the estimator's reader
//! (`fitcard_estimator::readers::hub::client`, the page importer's too) over a blocking HTTP
//! client, with the conventions of the Hugging Face tools: `HF_ENDPOINT` (a mirror, or a local
//! stand-in), `HF_TOKEN` (gated and private repos; sent to that Hub only, never to its file
//! hosts), `HF_HUB_DOWNLOAD_TIMEOUT` (seconds per request, default 30). What was read is kept
//! under `$XDG_CACHE_HOME/fitcard` (else `~/.cache/fitcard`) keyed by commit; `--offline`
//! reads the cache only.
//!
//! Every answer is hostile input: at most the bytes asked for are read, redirects are followed
//! by hand (at most [`MAX_REDIRECTS`]) and only to the Hub and its file hosts
//! ([`repo::may_read`]), each request within the timeout, and each failure is one line: a
//! repo the Hub does not have or a gated one without a token is the input's fault (exit 2), no
//! answer, a timeout or an offline cache miss the network's (exit 3).

use fitcard_estimator::catalog::quant::Container;
use fitcard_estimator::readers::hub::client::{self, Failure, Fault, Imported, Transport};
use fitcard_estimator::readers::hub::repo::{self, Endpoint, Target};
use fitcard_estimator::Engine;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Most redirects followed for one request (the Hub sends a file's bytes from its file host).
pub const MAX_REDIRECTS: u32 = 5;
/// Most bytes of a cached answer read back.
const MAX_CACHED: u64 = 64 << 20;
/// Seconds a request may take when `HF_HUB_DOWNLOAD_TIMEOUT` does not say.
const TIMEOUT_S: u64 = 30;

/// Set when a refusal was the network's fault (the exit code is then 3, not 2).
pub static NETWORK_FAILED: AtomicBool = AtomicBool::new(false);

/// `--offline` was given: the cache only.
pub static OFFLINE: AtomicBool = AtomicBool::new(false);

/// A failure as the CLI's refusal line, remembering whose fault it was.
fn refuse(f: Failure) -> String {
    if f.fault == Fault::Network {
        NETWORK_FAILED.store(true, Ordering::Relaxed);
    }
    f.line
}

/// The Hub the CLI reads: `HF_ENDPOINT`, else the public one; `FITCARD_HUB_CDN` names a
/// stand-in's file hosts (space-separated origins).
pub fn endpoint() -> Endpoint {
    let base = std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| repo::PUBLIC_HUB.into());
    Endpoint::new(&base, &std::env::var("FITCARD_HUB_CDN").unwrap_or_default())
}

/// The requests, by ureq (rustls).
struct Http {
    agent: ureq::Agent,
    hub: Endpoint,
    token: Option<String>,
    timeout: u64,
}

impl Http {
    fn new(hub: Endpoint) -> Http {
        let timeout = std::env::var("HF_HUB_DOWNLOAD_TIMEOUT")
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .filter(|s| (1..=3600).contains(s))
            .unwrap_or(TIMEOUT_S);
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(timeout)))
            .max_redirects(0)
            .http_status_as_error(false)
            .user_agent(concat!("fitcard/", env!("CARGO_PKG_VERSION")))
            .build();
        let token = std::env::var("HF_TOKEN")
            .ok()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_graphic()));
        Http {
            agent: config.into(),
            hub,
            token,
            timeout,
        }
    }

    /// One request to `url`, no redirect followed; the token only to the Hub itself.
    fn call(
        &self,
        url: &str,
        range: Option<u64>,
    ) -> Result<ureq::http::Response<ureq::Body>, Failure> {
        let mut req = self.agent.get(url);
        if let Some(n) = range {
            req = req.header("Range", format!("bytes=0-{}", n.saturating_sub(1)));
        }
        if let Some(t) = &self.token {
            if repo::origin(url) == Some(self.hub.base.as_str()) {
                req = req.header("Authorization", format!("Bearer {t}"));
            }
        }
        req.call().map_err(|e| self.network(&e))
    }

    /// A transport error as one line.
    fn network(&self, e: &ureq::Error) -> Failure {
        let hub = fitcard_estimator::inputs::clean(&self.hub.base);
        Failure::network(match e {
            ureq::Error::Timeout(_) => format!(
                "{hub} did not answer within {} s (HF_HUB_DOWNLOAD_TIMEOUT sets the limit): try again",
                self.timeout
            ),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                format!("{hub} could not be reached (offline? HF_ENDPOINT names a mirror; --offline reads the cache)")
            }
            ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => {
                format!("{hub} could not be reached (offline? HF_ENDPOINT names a mirror; --offline reads the cache)")
            }
            other => format!(
                "the request to {hub} failed: {}",
                fitcard_estimator::inputs::clean(&other.to_string())
            ),
        })
    }

    /// `status` for `repo` as a failure (with the Hub's `X-Error-Code`).
    fn status(&self, repo: &str, status: u16, code: Option<&str>) -> Failure {
        match code {
            Some("GatedRepo") => return self.gated(repo),
            Some("RepoNotFound") if status != 404 => {
                return Failure::locked(not_found(repo, self.token.is_some()).line)
            }
            Some("RepoNotFound") => return not_found(repo, self.token.is_some()),
            _ => {}
        }
        match status {
            404 => not_found(repo, self.token.is_some()),
            401 | 403 if self.token.is_some() => Failure::locked(format!(
                "the Hub refused HF_TOKEN for {repo} (HTTP {status}): check the token, or accept the repo's terms on its page"
            )),
            401 | 403 => Failure::locked(format!(
                "the Hub refused to send {repo}'s files (HTTP {status}): private or gated; set HF_TOKEN to a token that may read it"
            )),
            429 | 500..=599 => Failure::network(format!(
                "the Hub answered HTTP {status} for {repo}: try again later"
            )),
            _ => format!("the Hub answered HTTP {status} for {repo}").into(),
        }
    }
}

/// The line for a repo the Hub does not have.
fn not_found(repo: &str, token: bool) -> Failure {
    format!(
        "{repo} was not found on the Hugging Face Hub{}",
        if token {
            " (or HF_TOKEN may not read it)"
        } else {
            " (or it is private: set HF_TOKEN)"
        }
    )
    .into()
}

impl Transport for Http {
    async fn get(
        &self,
        repo: &str,
        url: &str,
        range: Option<u64>,
        limit: usize,
    ) -> Result<Vec<u8>, Failure> {
        let mut url = url.to_string();
        for _ in 0..=MAX_REDIRECTS {
            if !repo::may_read(&url, &self.hub) {
                return Err(format!(
                    "refused: {repo}'s request went to {}, outside the Hub and its file hosts",
                    fitcard_estimator::inputs::clean(repo::origin(&url).unwrap_or("another host"))
                )
                .into());
            }
            let resp = self.call(&url, range)?;
            let status = resp.status().as_u16();
            let header = |k: &str| {
                resp.headers()
                    .get(k)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            if (300..400).contains(&status) {
                let to = header("location").ok_or_else(|| {
                    Failure::from(format!("the Hub redirected {repo}'s request nowhere"))
                })?;
                url = absolute(&url, &to);
                continue;
            }
            if !(200..300).contains(&status) {
                return Err(self.status(repo, status, header("x-error-code").as_deref()));
            }
            let mut out = Vec::new();
            resp.into_body()
                .into_reader()
                .take(limit as u64)
                .read_to_end(&mut out)
                .map_err(|e| match timed_out(&e) {
                    true => Failure::network(format!(
                        "the Hub's answer for {repo} did not arrive within {} s: try again",
                        self.timeout
                    )),
                    false => Failure::network(format!("the Hub's answer for {repo} was cut short")),
                })?;
            return Ok(out);
        }
        Err(format!("the Hub redirected {repo}'s request more than {MAX_REDIRECTS} times").into())
    }

    fn logged_in(&self) -> bool {
        self.token.is_some()
    }

    fn gated(&self, repo: &str) -> Failure {
        Failure::locked(if self.token.is_some() {
            format!("{repo} is gated and HF_TOKEN may not read it: accept its terms on its Hugging Face page with that account")
        } else {
            format!("{repo} is gated: set HF_TOKEN to a Hugging Face token whose account accepted its terms, or use --file on downloaded files")
        })
    }
}

/// A body read that stopped at the timeout (ureq wraps its own error in the reader's).
fn timed_out(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::TimedOut
        || e.get_ref()
            .and_then(|i| i.downcast_ref::<ureq::Error>())
            .is_some_and(|u| matches!(u, ureq::Error::Timeout(_)))
}

/// `to` (a `Location`) as an absolute URL beside `from`.
fn absolute(from: &str, to: &str) -> String {
    if to.contains("://") {
        to.to_string()
    } else if to.starts_with('/') {
        format!("{}{to}", repo::origin(from).unwrap_or_default())
    } else {
        let dir = from.rsplit_once('/').map_or(from, |p| p.0);
        format!("{dir}/{to}")
    }
}

/// Run a future whose every step is ready at once (the blocking transport's): polled with a
/// waker nobody wakes, a pending step would never finish, so it is refused instead.
fn ready<F: std::future::Future>(f: F) -> Result<F::Output, Failure> {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => Ok(v),
        std::task::Poll::Pending => Err(Failure::network("the Hub reader did not finish")),
    }
}

/// The cache folder: `$XDG_CACHE_HOME/fitcard`, else `~/.cache/fitcard`; `None` without either.
fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("fitcard"))
}

/// A name safe as one path component (a revision may hold `/`).
fn component(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => b as char,
            _ => '%',
        })
        .collect()
}

/// Where a read of `repo` at `commit`, built for `container`, is kept, and where the commit a
/// revision named last time is.
fn cache_paths(hub: &Endpoint, t: &Target) -> Option<(PathBuf, String)> {
    let dir = cache_dir()?
        .join("hub")
        .join(component(hub.host()))
        .join(component(&t.repo.replace('/', "--")));
    let rev = component(t.rev.as_deref().unwrap_or("main"));
    Some((dir, rev))
}

/// What the cache keeps of one read.
#[derive(serde::Serialize, serde::Deserialize)]
struct Cached {
    rev: String,
    quant: fitcard_estimator::Quant,
    family: fitcard_estimator::catalog::Family,
}

/// A regular file of at most [`MAX_CACHED`] bytes, read.
fn read_cached(path: &std::path::Path) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_CACHED {
        return None;
    }
    let mut out = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_CACHED)
        .read_to_end(&mut out)
        .ok()?;
    Some(out)
}

fn entry_name(commit: &str, container: Container) -> String {
    format!("{}-{}.json", component(commit), container.label())
}

/// The cached read of `t` at `commit` (or at the commit its revision named last time).
fn from_cache(hub: &Endpoint, t: &Target, commit: Option<&str>, c: Container) -> Option<Imported> {
    let (dir, rev) = cache_paths(hub, t)?;
    let commit = match commit {
        Some(c) => c.to_string(),
        None => String::from_utf8(read_cached(&dir.join("refs").join(rev))?).ok()?,
    };
    let bytes = read_cached(&dir.join(entry_name(commit.trim(), c)))?;
    let k: Cached = serde_json::from_slice(&bytes).ok()?;
    (k.family.variants.first().is_some_and(|v| v.id == t.repo)).then_some(Imported {
        family: k.family,
        rev: k.rev,
        quant: k.quant,
    })
}

/// Keep `read` (best effort: a cache that cannot be written is no reason to refuse).
fn keep(hub: &Endpoint, t: &Target, read: &Imported, c: Container) {
    let Some((dir, rev)) = cache_paths(hub, t) else {
        return;
    };
    let k = Cached {
        rev: read.rev.clone(),
        quant: read.quant,
        family: read.family.clone(),
    };
    let Ok(json) = serde_json::to_vec(&k) else {
        return;
    };
    let _ = std::fs::create_dir_all(dir.join("refs"));
    let _ = std::fs::write(dir.join(entry_name(&read.rev, c)), json);
    let _ = std::fs::write(dir.join("refs").join(rev), &read.rev);
}

/// Progress lines on stderr when it is a terminal (scripts read stdout and the refusal only).
fn progress(line: String) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        eprintln!("fitcard: {}", crate::files::terminal_safe(&line));
    }
}

/// Read `t` for `engine` (the cache first: offline only it, online once the Hub names the
/// commit); a repo the Hub cannot give that is a sibling release of a catalog variant (the base
/// of an instruct model, gated or offline) is read as that variant's architecture
/// ([`client::sibling_instead`]); else why not, in one line.
pub fn read(t: &Target, engine: Engine) -> Result<Imported, String> {
    read_hub(t, engine)
        .or_else(|f| client::sibling_instead(&t.repo, f.fault).ok_or_else(|| refuse(f)))
}

/// [`read`] from the cache or the Hub only.
fn read_hub(t: &Target, engine: Engine) -> Result<Imported, Failure> {
    let hub = endpoint();
    let c = engine.container();
    if OFFLINE.load(Ordering::Relaxed) {
        return from_cache(&hub, t, None, c).ok_or_else(|| {
            Failure::network(format!(
                "{} is not in the cache (--offline): run the same command once without --offline",
                t.repo
            ))
        });
    }
    let http = Http::new(hub.clone());
    let info = ready(client::info(&http, &hub, t, &progress)).and_then(|r| r)?;
    let commit = client::commit(&info, t);
    if let Some(hit) = from_cache(&hub, t, Some(&commit), c) {
        return Ok(hit);
    }
    let read = ready(client::read_listed(
        &http,
        &hub,
        t,
        &info,
        Some(engine),
        progress,
    ))
    .and_then(|r| r)?;
    keep(&hub, t, &read, c);
    Ok(read)
}

/// The repo a query's `model=` names when the catalog lacks it and it reads as a Hub repo id
/// (with the query's `rev=` and `file=`), else `None`.
pub fn target(model: &str, rev: Option<&str>, file: Option<&str>) -> Option<Target> {
    let cat = fitcard_estimator::catalog();
    if !repo::is_repo_id(model) || cat.variant(model).is_some() || cat.family(model).is_some() {
        return None;
    }
    Some(Target {
        repo: model.to_string(),
        rev: rev.map(str::to_string),
        file: file.map(str::to_string),
        dir: None,
    })
}

/// Read the repo `t` and make it a catalog family, so the query that names it estimates it.
pub fn import(t: &Target, engine: Engine) -> Result<(), String> {
    let read = read(t, engine)?;
    fitcard_estimator::catalog::import(read.family).map_err(|e| format!("{}: {e}", t.repo))
}

/// The Hub's model info of `repo` (its commit and its files with their sizes), read now (never
/// the cache: a refresh wants what the Hub says today); a failure as one line.
pub fn listing(repo: &str) -> Result<client::Info, String> {
    let hub = endpoint();
    let t = Target {
        repo: repo.to_string(),
        rev: None,
        file: None,
        dir: None,
    };
    let http = Http::new(hub.clone());
    ready(client::info(&http, &hub, &t, &progress))
        .and_then(|r| r)
        .map_err(refuse)
}

/// The first `limit` bytes of `path` in `repo` at `rev`; a failure as one line.
pub fn file(repo: &str, rev: &str, path: &str, limit: usize) -> Result<Vec<u8>, String> {
    let hub = endpoint();
    let http = Http::new(hub.clone());
    let url = repo::file_url(&hub, repo, rev, path);
    ready(http.get(repo, &url, None, limit))
        .and_then(|r| r)
        .map_err(refuse)
}
