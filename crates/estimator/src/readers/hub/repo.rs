//! A Hugging Face Hub repo, the pure part: what the user typed or pasted → a repo id (and a
//! file or folder), the Hub's URLs, the repo's files → its formats, and the imported family.
//! The requests are made by [`super::client`] over the page's or the CLI's transport.
//!
//! The Hub's public API (huggingface.co/docs/hub/api): `GET /api/models/{id}` lists the files
//! (`siblings`, with `size` when `?blobs=true`), the commit (`sha`) and `gated`; a file is read
//! at `/{id}/resolve/{rev}/{path}`.

use crate::catalog::quant::{Container, Quant};
use crate::catalog::{Family, Format, SizeKind, Variant};
use crate::inputs::permalink::{form_decode, percent_encode};
use crate::order::{sort_by, sort_by_key};
use crate::units::Bytes;

/// The public Hub.
pub const PUBLIC_HUB: &str = "https://huggingface.co";

/// The Hub a reader talks to: its address (`https://huggingface.co`, a mirror, a local
/// stand-in: `HF_ENDPOINT` for the CLI, a compile-time setting for the page) and, for a Hub
/// other than the public one, the origins of its file hosts (the public Hub's are `*.hf.co`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// `scheme://host[:port]`, no trailing `/`.
    pub base: String,
    /// The origins its answers may also come from (redirects to its file hosts).
    pub cdn: Vec<String>,
}

impl Endpoint {
    /// The Hub at `base` (a trailing `/` dropped) with the file hosts `cdn`
    /// (space-separated origins).
    pub fn new(base: &str, cdn: &str) -> Endpoint {
        Endpoint {
            base: base.trim().trim_end_matches('/').to_string(),
            cdn: cdn.split_whitespace().map(str::to_string).collect(),
        }
    }

    /// The host (and port) of [`Endpoint::base`].
    pub fn host(&self) -> &str {
        self.base.split("://").nth(1).unwrap_or(&self.base)
    }
}

impl Default for Endpoint {
    fn default() -> Endpoint {
        Endpoint::new(PUBLIC_HUB, "")
    }
}

/// The origin (`scheme://host[:port]`) of the absolute URL `url`.
pub fn origin(url: &str) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    (!scheme.is_empty() && !host.is_empty()).then(|| &url[..scheme.len() + 3 + host.len()])
}

/// May a reader take an answer from `url`? Only from the public Hub and its file hosts (the
/// page's Content-Security-Policy allows the same: `connect-src https://huggingface.co
/// https://*.hf.co`, see scripts/finish-site.mjs), or from the Hub `hub` names and its file
/// hosts.
pub fn may_read(url: &str, hub: &Endpoint) -> bool {
    let Some(o) = origin(url) else { return false };
    let public = match o.strip_prefix("https://") {
        Some(host) => {
            host == "huggingface.co"
                || host
                    .strip_suffix(".hf.co")
                    .is_some_and(|sub| !sub.is_empty() && !sub.contains([':', '@']))
        }
        None => false,
    };
    public || o == hub.base || hub.cdn.iter().any(|c| c == o)
}

/// The longest input read as a repo or address.
const MAX_INPUT: usize = 600;

/// What to import: a repo, and optionally one file or one folder of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// `org/name`.
    pub repo: String,
    /// A revision named by the address (`/blob/main/…`) or the link (`rev=`).
    pub rev: Option<String>,
    /// A file of the repo (`/blob/…/x.gguf`, or the link's `file=`).
    pub file: Option<String>,
    /// A folder of the repo (`/tree/…/sub`): only its files count.
    pub dir: Option<String>,
}

/// Is `s` a Hub repo id `org/name`?
pub fn is_repo_id(s: &str) -> bool {
    let part = |p: &str| {
        (1..=96).contains(&p.len())
            && !p.starts_with(['.', '-'])
            && !p.contains("..")
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    matches!(s.split_once('/'), Some((o, n)) if part(o) && part(n))
}

/// Read what the user typed: `org/name`, or an address on the Hub:
/// `https://huggingface.co/org/name`, `…/blob/<rev>/<file>`, `…/resolve/<rev>/<file>`,
/// `…/tree/<rev>/<folder>` (or the same on `hub`'s host). Err is a one-line reason.
pub fn parse_target(input: &str, hub: &Endpoint) -> Result<Target, String> {
    let s = input.trim();
    if s.is_empty() {
        return Err("type a repo id such as org/name, or paste its Hugging Face address".into());
    }
    if s.len() > MAX_INPUT {
        return Err("that is too long for a repo id or a Hugging Face address".into());
    }
    let s = s.split(['?', '#']).next().unwrap_or_default();
    let hub_host = hub.host();
    let path = match s.split_once("://") {
        Some((scheme, rest)) => {
            let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
            let known = ["huggingface.co", "www.huggingface.co", "hf.co", hub_host];
            if !matches!(scheme, "http" | "https") || !known.contains(&host) {
                return Err("not a Hugging Face address (huggingface.co/org/name)".into());
            }
            path
        }
        None => s
            .strip_prefix("huggingface.co/")
            .or_else(|| s.strip_prefix("hf.co/"))
            .unwrap_or(s),
    };
    let segs: Vec<String> = path
        .split('/')
        .filter(|p| !p.is_empty())
        .map(form_decode)
        .collect();
    let (Some(org), Some(name)) = (segs.first(), segs.get(1)) else {
        return Err("a repo id has two parts: org/name".into());
    };
    let repo = format!("{org}/{name}");
    if !is_repo_id(&repo) {
        return Err(format!(
            "{} is not a Hugging Face repo id (org/name: letters, digits, - _ .)",
            crate::inputs::clean(&repo)
        ));
    }
    let mut t = Target {
        repo,
        rev: None,
        file: None,
        dir: None,
    };
    let rest = segs.get(4..).unwrap_or_default().join("/");
    match (segs.get(2).map(String::as_str), segs.get(3)) {
        (None, _) => {}
        (Some("blob" | "resolve"), Some(rev)) if !rest.is_empty() => {
            t.rev = Some(rev.clone());
            t.file = Some(rest);
        }
        (Some("tree"), Some(rev)) => {
            t.rev = Some(rev.clone());
            t.dir = (!rest.is_empty()).then_some(rest);
        }
        _ => {
            return Err(
                "read the repo's address, or a file's (/blob/…) or a folder's (/tree/…)".into(),
            )
        }
    }
    // The same checks as the link's own `rev=` and `file=`.
    let q = format!(
        "rev={}&file={}",
        t.rev.as_deref().unwrap_or("main"),
        enc(t.file.as_deref().or(t.dir.as_deref()).unwrap_or("x"))
    );
    let d = crate::inputs::permalink::from_query(&q);
    if let Some(n) = d.notices.first() {
        return Err(format!("{}: {}", n.key, n.message));
    }
    Ok(t)
}

/// Percent-encode a path for a URL, keeping `/` (the permalink's encoder, with the unreserved
/// characters and `/` literal).
pub fn enc(path: &str) -> String {
    percent_encode(path, b"-_.~/")
}

/// The model-info request: files with their sizes, the commit, `gated`.
pub fn info_url(hub: &Endpoint, t: &Target) -> String {
    let base = &hub.base;
    match &t.rev {
        Some(rev) => format!(
            "{base}/api/models/{}/revision/{}?blobs=true",
            t.repo,
            enc(rev)
        ),
        None => format!("{base}/api/models/{}?blobs=true", t.repo),
    }
}

/// A file of the repo at revision `rev`.
pub fn file_url(hub: &Endpoint, repo: &str, rev: &str, path: &str) -> String {
    format!("{}/{repo}/resolve/{}/{}", hub.base, enc(rev), enc(path))
}

/// A file the model-info lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sibling {
    /// Path in the repo.
    pub path: String,
    /// Bytes (0 when the listing gave none).
    pub size: u64,
}

/// One GGUF model in the repo: a single file, or the parts of a split one.
#[derive(Clone, Debug, PartialEq)]
pub struct GgufFile {
    /// The file, or the first part (`…-00001-of-0000N.gguf`): its header is the one read.
    pub path: String,
    /// All parts together.
    pub bytes: u64,
    /// The format its name says (the header's `general.file_type` decides for the one read).
    pub quant: Option<Quant>,
}

/// The model files of a repo (in `dir` when given).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RepoFiles {
    /// GGUF models, largest first.
    pub gguf: Vec<GgufFile>,
    /// The `.safetensors` files of the checkpoint (its shards): those beside `config.json`,
    /// `model.safetensors` or its `model-0000k-of-0000n` shards when the folder holds other
    /// sets too (Mistral's `consolidated`, adapters).
    pub safetensors: Vec<Sibling>,
    /// `config.json` is there.
    pub config: bool,
    /// Its size (0 when the listing gave none).
    pub config_bytes: u64,
}

/// The `-00001-of-00003` of a split GGUF's name: (stem without it, part, parts).
fn split_part(path: &str) -> Option<(&str, u32, u32)> {
    split_part_of(path, ".gguf")
}

/// The `-00001-of-00003` of a split file's name ending in `ext`: (stem without it, part, parts).
fn split_part_of<'a>(path: &'a str, ext: &str) -> Option<(&'a str, u32, u32)> {
    let stem = path.strip_suffix(ext)?;
    let (head, of) = stem.rsplit_once("-of-")?;
    let (head, part) = head.rsplit_once('-')?;
    let ok = |s: &str| s.len() == 5 && s.bytes().all(|b| b.is_ascii_digit());
    (ok(part) && ok(of)).then(|| (head, part.parse().unwrap_or(0), of.parse().unwrap_or(0)))
}

/// The format a GGUF file's name spells (`…-Q4_K_M.gguf`, `…-UD-Q4_K_XL-00001-of-00002.gguf`,
/// lower case too): the longest format id the name holds between separators.
pub fn quant_of_name(path: &str) -> Option<Quant> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = split_part(name).map_or(name.strip_suffix(".gguf").unwrap_or(name), |s| s.0);
    let up = stem.to_ascii_uppercase();
    let mut best: Option<Quant> = None;
    for q in Quant::ALL.iter().copied() {
        let id = q.id().to_ascii_uppercase();
        let hit = up.match_indices(&id).any(|(at, _)| {
            let before = up[..at].chars().next_back();
            let after = up[at + id.len()..].chars().next();
            !before.is_some_and(|c| c.is_ascii_alphanumeric())
                && !after.is_some_and(|c| c.is_ascii_alphanumeric())
        });
        if hit && best.is_none_or(|b| b.id().len() < q.id().len()) {
            best = Some(q);
        }
    }
    best
}

/// Sort the repo's files into its formats. Vision projectors (`mmproj`) are not the model.
pub fn classify(siblings: &[Sibling], dir: Option<&str>) -> RepoFiles {
    let mut out = RepoFiles::default();
    let inside = |p: &str| match dir {
        Some(d) => p
            .strip_prefix(d)
            .is_some_and(|r| r.starts_with('/') || d.is_empty()),
        None => true,
    };
    let mut groups: Vec<(String, GgufFile)> = Vec::new();
    let mut st: Vec<(String, Vec<Sibling>)> = Vec::new();
    for s in siblings.iter().filter(|s| inside(&s.path)) {
        let name = s.path.rsplit('/').next().unwrap_or(&s.path);
        if name == "config.json"
            && s.path == dir.map_or("config.json".into(), |d| format!("{d}/config.json"))
        {
            out.config = true;
            out.config_bytes = s.size;
        } else if name.ends_with(".safetensors") {
            // The checkpoint's own folder only (not `original/`, `onnx/`, …).
            if s.path.rsplit_once('/').map_or("", |p| p.0) == dir.unwrap_or("") {
                let stem = split_part_of(name, ".safetensors")
                    .map_or(name.strip_suffix(".safetensors").unwrap_or(name), |p| p.0);
                match st.iter_mut().find(|(k, _)| k == stem) {
                    Some((_, g)) => g.push(s.clone()),
                    None => st.push((stem.to_string(), vec![s.clone()])),
                }
            }
        } else if name.ends_with(".gguf") && !name.to_ascii_lowercase().contains("mmproj") {
            let (key, first) = match split_part(&s.path) {
                Some((head, part, _)) => (head.to_string(), part == 1),
                None => (s.path.clone(), true),
            };
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, g)) => {
                    g.bytes += s.size;
                    if first {
                        g.path.clone_from(&s.path);
                    }
                }
                None => groups.push((
                    key,
                    GgufFile {
                        path: s.path.clone(),
                        bytes: s.size,
                        quant: quant_of_name(&s.path),
                    },
                )),
            }
        }
    }
    // One set of safetensors: transformers' own name (`model`), else the largest set that is
    // not an adapter.
    st.retain(|(k, _)| !k.starts_with("adapter"));
    let total = |g: &Vec<Sibling>| g.iter().map(|s| s.size).fold(0u64, u64::saturating_add);
    sort_by_key(&mut st, |(k, g)| {
        (k != "model", std::cmp::Reverse(total(g)))
    });
    if let Some((_, mut g)) = st.into_iter().next() {
        sort_by(&mut g, |a, b| a.path.cmp(&b.path));
        out.safetensors = g;
    }
    out.gguf = groups.into_iter().map(|(_, g)| g).collect();
    sort_by_key(&mut out.gguf, |g| std::cmp::Reverse(g.bytes));
    out
}

/// Which GGUF to read the header of: the one asked for, else the common middle (Q4_K_M), else
/// the smallest.
pub fn choose<'a>(files: &'a RepoFiles, want: Option<&str>) -> Option<&'a GgufFile> {
    let g = &files.gguf;
    want.and_then(|w| {
        g.iter().find(|f| {
            f.path == w
                || split_part(w).is_some_and(|s| split_part(&f.path).is_some_and(|t| t.0 == s.0))
        })
    })
    .or_else(|| g.iter().find(|f| f.quant == Some(Quant::Q4KM)))
    .or_else(|| g.last())
}

/// A model read two ways (a GGUF header, a checkpoint's config.json and shard headers), or one:
/// which one the family is built on, and the other's format beside it. The checkpoint for the
/// engines that load safetensors (vLLM, SGLang, transformers: their architecture is the
/// config.json's and their format the checkpoint's), a GGUF for the others; the one read wins
/// when the other could not be (a failure of both says the preferred one's reason).
pub fn pick(
    gguf: Option<Result<(Variant, Format), String>>,
    checkpoint: Option<Result<(Variant, Format), String>>,
    container: Container,
) -> Result<((Variant, Format), Vec<Format>), String> {
    let (first, second) = match container {
        Container::Safetensors => (checkpoint, gguf),
        Container::Gguf | Container::Mlx => (gguf, checkpoint),
    };
    match (first, second) {
        (Some(Ok(a)), b) => Ok((a, b.and_then(Result::ok).map(|b| b.1).into_iter().collect())),
        (_, Some(Ok(b))) => Ok((b, Vec::new())),
        (Some(Err(e)), _) | (None, Some(Err(e))) => Err(e),
        (None, None) => Err("no .gguf or .safetensors model file".into()),
    }
}

/// Keep `rev=` and `file=` in step with the model: an imported model carries the commit it was
/// read at and the file of the chosen format; a catalog model carries neither.
pub fn pin(i: &mut crate::inputs::Inputs, rev: Option<&str>) {
    let cat = crate::catalog::catalog();
    let v = cat
        .variant(&i.model)
        .filter(|(f, _)| f.id == family_id(&i.model))
        .map(|(_, v)| v);
    match (v, rev) {
        (Some(v), Some(rev)) => {
            i.rev = Some(rev.to_string());
            i.file = v
                .formats
                .iter()
                .find(|f| f.id == i.quant && f.container == i.engine.container())
                .map(|f| f.file.clone())
                .filter(|f| !f.is_empty());
        }
        _ => {
            i.rev = None;
            i.file = None;
        }
    }
}

/// The id of an imported family.
pub fn family_id(repo: &str) -> String {
    format!("{}{repo}", crate::catalog::IMPORTED_PREFIX)
}

/// The imported repo as a family of one variant: the architecture read from `read` (the header
/// of `read.1.file`), one format per GGUF file of the repo (each its own size; the format its
/// name spells, the header's for the file read), plus `extra` formats (a checkpoint's).
/// Highest precision first; one file per format (the one read wins).
pub fn family(
    repo: &str,
    files: &RepoFiles,
    read: (Variant, Format),
    extra: Vec<Format>,
) -> Family {
    let (mut v, f) = read;
    let on_hub = |f: Format| Format {
        repo: repo.to_string(),
        source: match f.container {
            Container::Gguf => format!("{} on the Hub (its header read)", f.file),
            Container::Safetensors | Container::Mlx => f.source.clone(),
        },
        ..f
    };
    let mut formats = vec![on_hub(f)];
    let extra: Vec<Format> = extra.into_iter().map(on_hub).collect();
    // The GGUF read (the model's, or beside a checkpoint) lends the others its embeddings' type.
    let like = formats
        .iter()
        .chain(&extra)
        .find(|x| x.container == Container::Gguf)
        .unwrap_or(&formats[0]);
    let (embd_type, duplicate_output) = (like.embd_type, like.duplicate_output);
    for g in &files.gguf {
        let Some(q) = g.quant else { continue };
        if formats
            .iter()
            .chain(&extra)
            .any(|x| x.container == Container::Gguf && (x.id == q || x.file == g.path))
        {
            continue;
        }
        formats.push(Format {
            id: q,
            container: Container::Gguf,
            bytes: Bytes(g.bytes),
            size: SizeKind::Exact,
            repo: repo.to_string(),
            file: g.path.clone(),
            source: format!("{} on the Hub (its format from the name)", g.path),
            embd_type,
            duplicate_output,
            unquantized: Vec::new(),
            note: None,
            holds: None,
        });
    }
    formats.extend(extra);
    sort_by(&mut formats, |a, b| {
        b.id.precision_bits().total_cmp(&a.id.precision_bits())
    });
    v.id = repo.to_string();
    v.name = repo
        .rsplit('/')
        .next()
        .unwrap_or(repo)
        .chars()
        .take(80)
        .collect();
    v.formats = formats;
    Family {
        id: family_id(repo),
        name: format!("{} (imported)", v.name),
        capability_basis: String::new(),
        variants: vec![v],
        license: None,
        reasoning: None,
        task: None,
    }
}
