//! Reading a repo into a family, the one reader of the page's importer and the CLI: from the
//! Hub, the model info, then the first bytes of one GGUF file (closed ranges, grown while the
//! header continues), and for a safetensors checkpoint its `config.json` and the header of
//! each shard (closed ranges too); or the same headers from files on a disk. The requests go
//! through a [`Transport`] (the page: the browser's `fetch` in a worker; the CLI: a blocking
//! HTTP client), which bounds the time, checks where each answer came from
//! ([`super::repo::may_read`]) and says in one line why a request failed. Every length is
//! bounded here before it is asked for.

use super::derive;
use super::repo::{self, Endpoint, RepoFiles, Sibling, Target};
use crate::catalog::engine::Engine;
use crate::catalog::quant::{Container, Quant};
use crate::catalog::{Family, Format, Variant};
use crate::readers::gguf::{self, Error};
use crate::readers::hf;
use crate::units::Bytes;

/// Most bytes of model info read (a repo with thousands of files lists them all).
pub const MAX_INFO: usize = 16 << 20;
/// The first read of a GGUF header; it doubles while the header continues.
const FIRST: u64 = 1 << 20;
/// Most bytes of a GGUF header read.
const MAX_HEADER: u64 = gguf::MAX_HEADER;
/// The first read of a `.safetensors` header (a shard's is tens of KB); later shards start
/// from the length of the one before.
const FIRST_ST: u64 = 64 << 10;
/// Most `.safetensors` shards read (their headers one by one).
pub const MAX_SHARDS: usize = 2000;
/// Most bytes of `.safetensors` headers read, all shards together (one header may be up to
/// the format's 100 MB, [`hf::MAX_HEADER`]).
const MAX_HEADERS: u64 = hf::MAX_HEADERS;

/// Whose fault a failure is: the input's (a repo the Hub does not have, files that are not a
/// model), the reader's (a gated or private repo it may not read) or the network's (no answer,
/// a timeout, a cache miss offline).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The repo or its files: asking again does not help.
    Input,
    /// The repo is there, but not for this reader (gated, private): a login may help.
    Locked,
    /// The way to them: asking again may.
    Network,
}

/// Why a read failed, in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Whose fault.
    pub fault: Fault,
    /// What happened and, where it helps, what to do.
    pub line: String,
}

impl Failure {
    /// A failure of the network (or of the cache when offline).
    pub fn network(line: impl Into<String>) -> Failure {
        Failure {
            fault: Fault::Network,
            line: line.into(),
        }
    }

    /// A repo this reader may not read (gated, private).
    pub fn locked(line: impl Into<String>) -> Failure {
        Failure {
            fault: Fault::Locked,
            line: line.into(),
        }
    }
}

impl From<String> for Failure {
    fn from(line: String) -> Failure {
        Failure {
            fault: Fault::Input,
            line,
        }
    }
}

impl From<&str> for Failure {
    fn from(line: &str) -> Failure {
        Failure::from(line.to_string())
    }
}

/// The HTTP requests a Hub reader makes.
#[allow(async_fn_in_trait)]
pub trait Transport {
    /// GET `url` (for `repo`, named in messages), with `Range: bytes=0-{range-1}` when given;
    /// at most `limit` bytes of the body. A status other than 2xx, an answer from a host
    /// [`super::repo::may_read`] refuses, or no answer in time is a [`Failure`] (a gated or
    /// missing repo an input failure).
    async fn get(
        &self,
        repo: &str,
        url: &str,
        range: Option<u64>,
        limit: usize,
    ) -> Result<Vec<u8>, Failure>;

    /// Whether the requests carry a login (a gated repo whose terms it accepted can be read).
    fn logged_in(&self) -> bool;

    /// The line for a gated repo this transport cannot read.
    fn gated(&self, repo: &str) -> Failure;
}

/// Files whose first bytes can be read: a repo at a commit on the Hub, or files on a disk.
#[allow(async_fn_in_trait)]
pub trait Files {
    /// The first `want` bytes of `path` (fewer only when the file is shorter).
    async fn head(&self, path: &str, want: u64) -> Result<Vec<u8>, Failure>;
}

/// A repo at a commit on a Hub, read through a transport.
pub struct HubFiles<'a, T> {
    /// The requests.
    pub transport: &'a T,
    /// The Hub.
    pub hub: &'a Endpoint,
    /// `org/name`.
    pub repo: &'a str,
    /// The commit (or a branch).
    pub rev: &'a str,
}

impl<T: Transport> Files for HubFiles<'_, T> {
    async fn head(&self, path: &str, want: u64) -> Result<Vec<u8>, Failure> {
        let url = repo::file_url(self.hub, self.repo, self.rev, path);
        let limit = usize::try_from(want).unwrap_or(usize::MAX);
        self.transport.get(self.repo, &url, Some(want), limit).await
    }
}

/// What the Hub's model info says (`GET /api/models/{id}?blobs=true`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Info {
    /// The commit (`sha`), when it is one a link may carry.
    pub sha: Option<String>,
    /// The files, with their sizes (0 where none was given).
    pub siblings: Vec<Sibling>,
    /// `gated` is set (`"auto"`, `"manual"` or `true`).
    pub gated: bool,
    /// The repos its model card names as its base (`cardData.base_model`), at most
    /// [`MAX_BASES`].
    pub bases: Vec<String>,
    /// How it derives from them (`cardData.base_model_relation`).
    pub relation: Option<derive::Relation>,
}

/// Most base models read from a model card.
pub const MAX_BASES: usize = 8;

/// The model info's JSON read leniently: a file entry without a name is skipped, a size that is
/// not a non-negative number is 0, a `sha` that is not a commit id is dropped. Err when the body
/// is not a JSON object (an HTML page, a cut answer): `None`.
pub fn parse_info(body: &[u8]) -> Option<Info> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let o = v.as_object()?;
    let sha = o
        .get("sha")
        .and_then(|s| s.as_str())
        .filter(|s| crate::inputs::permalink::from_query(&format!("rev={s}")).clean())
        .map(str::to_string);
    let siblings = o
        .get("siblings")
        .and_then(|s| s.as_array())
        .map(|list| {
            list.iter()
                .filter_map(|s| {
                    Some(Sibling {
                        path: s.get("rfilename")?.as_str()?.to_string(),
                        size: s.get("size").and_then(|n| n.as_u64()).unwrap_or(0),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let gated = match o.get("gated") {
        Some(serde_json::Value::Bool(b)) => *b,
        Some(serde_json::Value::String(s)) => !s.is_empty() && s != "false",
        _ => false,
    };
    let card = o.get("cardData");
    let bases = match card.and_then(|c| c.get("base_model")) {
        Some(serde_json::Value::String(b)) => vec![b.as_str()],
        Some(serde_json::Value::Array(list)) => list.iter().filter_map(|b| b.as_str()).collect(),
        _ => Vec::new(),
    };
    let bases = bases
        .into_iter()
        .filter(|b| repo::is_repo_id(b))
        .take(MAX_BASES)
        .map(str::to_string)
        .collect();
    let relation = card
        .and_then(|c| c.get("base_model_relation"))
        .and_then(|r| r.as_str())
        .and_then(derive::Relation::read);
    Some(Info {
        sha,
        siblings,
        gated,
        bases,
        relation,
    })
}

/// A repo read, ready to join the catalog.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The family: the repo as one variant with its formats.
    pub family: Family,
    /// The commit read (empty for files on a disk).
    pub rev: String,
    /// The format of the file whose header was read.
    pub quant: Quant,
}

/// A repo the Hub could not give (`fault` not [`Fault::Input`]: gated, private, offline, no
/// answer) that is a sibling release of a catalog variant ([`crate::catalog::sibling`]):
/// read as that variant's architecture, no commit. `None` for any other.
pub fn sibling_instead(repo: &str, fault: Fault) -> Option<Imported> {
    if fault == Fault::Input {
        return None;
    }
    let family = crate::catalog::sibling(repo)?;
    let quant = family.variants.first()?.formats.first()?.id;
    Some(Imported {
        family,
        rev: String::new(),
        quant,
    })
}

/// The repo's model info from `hub`.
pub async fn info<T: Transport>(
    transport: &T,
    hub: &Endpoint,
    t: &Target,
    progress: &impl Fn(String),
) -> Result<Info, Failure> {
    let repo = t.repo.as_str();
    progress(format!("Reading the file list of {repo}…"));
    let body = transport
        .get(repo, &repo::info_url(hub, t), None, MAX_INFO)
        .await?;
    let info = parse_info(&body)
        .ok_or_else(|| format!("the Hub's file list for {repo} could not be read"))?;
    if info.gated && !transport.logged_in() {
        return Err(transport.gated(repo));
    }
    Ok(info)
}

/// Read `t` from `hub`: its files, then the header of one GGUF and/or the checkpoint's, the
/// model built on the one `engine` loads (see [`repo::pick`]). `progress` is told each step.
pub async fn read_repo<T: Transport>(
    transport: &T,
    hub: &Endpoint,
    t: &Target,
    engine: Option<Engine>,
    progress: impl Fn(String),
) -> Result<Imported, Failure> {
    let info = info(transport, hub, t, &progress).await?;
    read_listed(transport, hub, t, &info, engine, progress).await
}

/// The commit `info` was read at: its `sha`, else the revision asked for, else `main`.
pub fn commit(info: &Info, t: &Target) -> String {
    info.sha
        .clone()
        .or_else(|| t.rev.clone())
        .unwrap_or_else(|| "main".into())
}

/// [`read_repo`] once the model info is in (a reader with a cache keyed by commit reads the
/// info, then this only on a miss).
pub async fn read_listed<T: Transport>(
    transport: &T,
    hub: &Endpoint,
    t: &Target,
    info: &Info,
    engine: Option<Engine>,
    progress: impl Fn(String),
) -> Result<Imported, Failure> {
    let rev = commit(info, t);
    let src = HubFiles {
        transport,
        hub,
        repo: &t.repo,
        rev: &rev,
    };
    let files = repo::classify(&info.siblings, t.dir.as_deref());
    let (read, extra, header_bases) = read_model(&src, t, &files, engine, &progress).await?;
    let quant = read.1.id;
    let mut family = repo::family(&t.repo, &files, read, extra);
    // The model card says first; a GGUF header's own base models when the card names none.
    let bases = if info.bases.is_empty() {
        &header_bases
    } else {
        &info.bases
    };
    derive::follow_base(&mut family, bases, info.relation);
    Ok(Imported { family, rev, quant })
}

/// The model of a repo's `files`: a file or folder `t` names decides which (a `.safetensors`
/// file the checkpoint, a `.gguf` that GGUF); else `engine` decides which the model is built
/// on ([`repo::pick`]), and the other, when the repo has it, adds its format. With the base
/// models the GGUF header names ([`gguf::base_models`]).
async fn read_model(
    src: &impl Files,
    t: &Target,
    files: &RepoFiles,
    engine: Option<Engine>,
    progress: &impl Fn(String),
) -> Result<((Variant, Format), Vec<Format>, Vec<String>), Failure> {
    let repo = t.repo.as_str();
    let named = |ext: &str| t.file.as_deref().is_some_and(|f| f.ends_with(ext));
    let want_st = named(".safetensors");
    let container = if want_st {
        Container::Safetensors
    } else if named(".gguf") {
        Container::Gguf
    } else {
        engine.map_or(Container::Gguf, Engine::container)
    };
    // A network failure stops the read (a retry may do); a file that is no model leaves the
    // other format to try.
    let gguf = match repo::choose(files, t.file.as_deref()).filter(|_| !want_st) {
        Some(g) => Some(tolerate(read_gguf(src, g, progress).await)?),
        None => None,
    };
    let bases = match &gguf {
        Some(Ok(g)) => g.bases.clone(),
        _ => Vec::new(),
    };
    let gguf = gguf.map(|r| r.map(|g| g.model));
    let st = if files.safetensors.is_empty() {
        None
    } else if !files.config {
        Some(Err(format!(
            "{repo} holds .safetensors files without a config.json beside them: the \
architecture is unknown"
        )))
    } else {
        Some(tolerate(
            read_checkpoint(src, repo, t.dir.as_deref(), files, progress).await,
        )?)
    };
    let (model, extra) = repo::pick(gguf, st, container).map_err(|e| {
        Failure::from(if e.starts_with("no .gguf") {
            format!("{repo} holds {e}")
        } else {
            e
        })
    })?;
    Ok((model, extra, bases))
}

/// An input failure as the `Err` of a read the other format may stand in for; a network
/// failure as the `Err` that stops the whole read.
fn tolerate<T>(r: Result<T, Failure>) -> Result<Result<T, String>, Failure> {
    match r {
        Ok(x) => Ok(Ok(x)),
        Err(f) if f.fault == Fault::Input => Ok(Err(f.line)),
        Err(f) => Err(f),
    }
}

/// Files on a disk (`siblings`: their names and sizes): one GGUF (or the first part of a split
/// one, the other parts with it), or a checkpoint's `config.json` with its `.safetensors`
/// shards. The model joins the catalog under its file name, its formats naming the files.
pub async fn read_disk(
    src: &impl Files,
    siblings: &[Sibling],
    progress: impl Fn(String),
) -> Result<Imported, Failure> {
    let listed = repo::classify(siblings, None);
    let mut bases = Vec::new();
    let (name, read) = if let Some(g) = repo::choose(&listed, None) {
        let read = read_gguf(src, g, &progress).await?;
        bases = read.bases;
        (g.path.clone(), read.model)
    } else if !listed.safetensors.is_empty() && listed.config {
        let name = "checkpoint".to_string();
        let read = read_checkpoint(src, &name, None, &listed, &progress).await?;
        (name, read)
    } else if !listed.safetensors.is_empty() {
        return Err("pick the checkpoint's config.json together with its .safetensors files: the architecture is in config.json".into());
    } else {
        return Err(
            "pick a .gguf file, or a checkpoint's config.json with its .safetensors files".into(),
        );
    };
    let quant = read.1.id;
    let mut family = repo::family(&name, &listed, read, Vec::new());
    // A header naming a catalog base model (`general.base_model.*`): labelled and scored as
    // its derivative, by the file's name (before the ids become `file:` ones).
    let derived = derive::follow_base(&mut family, &bases, None).is_some();
    family.id = format!("file:{name}");
    family.name = if derived {
        format!("{}, from your disk", family.name)
    } else {
        format!("{name} (from your disk)")
    };
    for v in &mut family.variants {
        v.id = format!("file:{name}");
        for f in &mut v.formats {
            // Commands name the file itself (`-m FILE`; a checkpoint's folder for vLLM).
            f.source = format!("{} on your disk (its header read)", f.file);
            f.repo = match f.container {
                Container::Gguf => String::new(),
                _ => "./checkpoint".into(),
            };
        }
    }
    Ok(Imported {
        family,
        rev: String::new(),
        quant,
    })
}

/// A GGUF header read: the model, and the base models it names.
struct GgufRead {
    model: (Variant, Format),
    bases: Vec<String>,
}

/// The header of one GGUF model, read in growing closed ranges.
async fn read_gguf(
    src: &impl Files,
    g: &repo::GgufFile,
    progress: &impl Fn(String),
) -> Result<GgufRead, Failure> {
    let mut want = FIRST.min(g.bytes.max(8));
    loop {
        progress(format!(
            "Reading the header of {} ({} of {})…",
            g.path,
            Bytes(want),
            Bytes(g.bytes)
        ));
        let head = src.head(&g.path, want).await?;
        match gguf::parse(&head) {
            Ok(h) => {
                let model = gguf::to_variant(&h, &g.path, Bytes(g.bytes))
                    .map_err(|m| Failure::from(format!("{}: {m}", g.path)))?;
                let bases = gguf::base_models(&h);
                return Ok(GgufRead { model, bases });
            }
            Err(Error::NeedMore(_)) if (head.len() as u64) < want => {
                return Err(format!("the answer for {} was cut short", g.path).into());
            }
            Err(Error::NeedMore(n)) if n <= MAX_HEADER => {
                want = n.max(want.saturating_mul(2)).min(MAX_HEADER);
            }
            Err(e) => return Err(format!("{}: {e}", g.path).into()),
        }
    }
}

/// A checkpoint (`repo` names it in messages): its `config.json`, then the header of each
/// `.safetensors` shard, each read with one closed range (a second, exact one when the header
/// is longer than guessed). The size is the shards' listed sizes, exactly; the headers say
/// what they hold.
async fn read_checkpoint(
    src: &impl Files,
    repo: &str,
    dir: Option<&str>,
    files: &RepoFiles,
    progress: &impl Fn(String),
) -> Result<(Variant, Format), Failure> {
    let shards = &files.safetensors;
    if shards.len() > MAX_SHARDS {
        return Err(format!(
            "{repo} has {} .safetensors shards (fitcard reads at most {MAX_SHARDS})",
            shards.len()
        )
        .into());
    }
    let total = shards
        .iter()
        .map(|s| s.size)
        .fold(0u64, u64::saturating_add);
    if shards.iter().any(|s| s.size == 0) {
        return Err(format!("the file list for {repo} gave no .safetensors sizes").into());
    }
    let config = read_config(src, repo, dir, files, progress).await?;
    let mut tensors = Vec::new();
    // The first read's length, and the bytes of headers read so far.
    let (mut guess, mut read) = (FIRST_ST, 0u64);
    for (k, s) in shards.iter().enumerate() {
        progress(format!(
            "Reading the header of {} ({} of {})…",
            s.path,
            k + 1,
            shards.len()
        ));
        tensors.extend(read_shard(src, repo, s, &mut guess, &mut read).await?);
    }
    let (v, mut f) = hf::to_variant(repo, &config, Bytes(total), &tensors)
        .map_err(|m| format!("{repo}: {m}"))?;
    f.source = format!(
        "the {} .safetensors file{} of {repo} on the Hub (headers read; sizes from its file list)",
        shards.len(),
        if shards.len() == 1 { "" } else { "s" }
    );
    Ok((v, f))
}

/// The checkpoint's `config.json` (in `dir` when given), as text: at most
/// [`hf::MAX_CONFIG`] bytes, all of them when the listing gave its size.
async fn read_config(
    src: &impl Files,
    repo: &str,
    dir: Option<&str>,
    files: &RepoFiles,
    progress: &impl Fn(String),
) -> Result<String, Failure> {
    let config_path = dir.map_or("config.json".into(), |d| format!("{d}/config.json"));
    progress(format!("Reading {config_path} of {repo}…"));
    if files.config_bytes > hf::MAX_CONFIG as u64 {
        return Err(format!("{config_path} of {repo} is over {} bytes", hf::MAX_CONFIG).into());
    }
    // One byte more than accepted when the listing gave no size: a longer file is refused.
    let n = match files.config_bytes {
        0 => hf::MAX_CONFIG + 1,
        b => b as usize,
    };
    let body = src.head(&config_path, n as u64).await?;
    if files.config_bytes > 0 && body.len() < n {
        return Err(format!("the answer for {config_path} was cut short").into());
    }
    String::from_utf8(body).map_err(|_| format!("{config_path} of {repo} is not text").into())
}

/// The tensors of shard `s`, its header read from `guess` bytes (exactly when longer); `read`
/// counts the bytes of every header read (at most [`MAX_HEADERS`]), and `guess` becomes the
/// next shard's first read.
async fn read_shard(
    src: &impl Files,
    repo: &str,
    s: &Sibling,
    guess: &mut u64,
    read: &mut u64,
) -> Result<Vec<hf::Tensor>, Failure> {
    let mut want = (*guess).min(s.size).max(8);
    loop {
        *read = read.saturating_add(want);
        if *read > MAX_HEADERS {
            return Err(format!(
                "the .safetensors headers of {repo} are over {} together",
                Bytes(MAX_HEADERS)
            )
            .into());
        }
        let head = src.head(&s.path, want).await?;
        match hf::safetensors_header(&head) {
            Ok(t) => {
                // The next shard's header is likely about as long as this one's.
                let len = head
                    .get(..8)
                    .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
                *guess = len
                    .saturating_add(len / 4)
                    .saturating_add(8)
                    .clamp(FIRST_ST, 8 << 20);
                return Ok(t);
            }
            Err(hf::HeaderError::NeedMore(_)) if (head.len() as u64) < want => {
                return Err(format!("the answer for {} was cut short", s.path).into());
            }
            Err(hf::HeaderError::NeedMore(m)) if m > want && m <= s.size => want = m,
            Err(hf::HeaderError::NeedMore(_)) => {
                return Err(format!("{}: its header is longer than the file", s.path).into());
            }
            Err(hf::HeaderError::Bad(m)) => return Err(format!("{}: {m}", s.path).into()),
        }
    }
}
