//! Importing a model, the reads: from the Hub, the model info, then the first bytes of one
//! GGUF file (closed ranges, grown while the header continues), and for a safetensors
//! checkpoint its `config.json` and the header of each shard (closed ranges too); or the same
//! headers from files picked on the visitor's disk. Every failure is one line.

use super::abi::prop;
use super::fetch::{gated, get, Source};
use crate::model::hub::{self, Sibling, Target};
use fitcard_estimator::catalog::quant::Container;
use fitcard_estimator::catalog::{Family, Format, Variant};
use fitcard_estimator::readers::gguf::{self, Error};
use fitcard_estimator::readers::hf;
use fitcard_estimator::{Bytes, Engine, Quant};

/// Most bytes of model info read (a repo with thousands of files lists them all).
const MAX_INFO: usize = 16 << 20;
/// The first read of a GGUF header; it doubles while the header continues.
const FIRST: u64 = 1 << 20;
/// Most bytes of a GGUF header read: the CLI's cap too.
const MAX_HEADER: u64 = gguf::MAX_HEADER;
/// The first read of a `.safetensors` header (a shard's is tens of KB); later shards start
/// from the length of the one before.
const FIRST_ST: u64 = 64 << 10;
/// Most `.safetensors` shards read (their headers one by one).
const MAX_SHARDS: usize = 2000;
/// Most bytes of `.safetensors` headers read, all shards together (one header may be up to
/// the format's 100 MB, [`hf::MAX_HEADER`]): the CLI's cap too.
const MAX_HEADERS: u64 = hf::MAX_HEADERS;

/// A repo read from the Hub, ready to join the catalog.
pub struct Imported {
    /// The family: the repo as one variant with its formats.
    pub family: Family,
    /// The commit read.
    pub rev: String,
    /// The format of the file whose header was read.
    pub quant: Quant,
}

/// Most files picked at once (a checkpoint's shards and its config.json).
const MAX_PICKED: usize = MAX_SHARDS + 2;

/// Files picked on the visitor's disk: one GGUF (or the first part of a split one, the other
/// parts picked with it), or a checkpoint's `config.json` with its `.safetensors` shards. The
/// model joins the catalog under its file name.
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
    let listed = hub::classify(&siblings, None);
    let src = Source::Disk(files);
    let (name, read) = if let Some(g) = hub::choose(&listed, None) {
        (g.path.clone(), read_gguf(&src, g, &progress).await?)
    } else if !listed.safetensors.is_empty() && listed.config {
        let name = "checkpoint".to_string();
        (
            name.clone(),
            read_checkpoint(&src, &name, None, &listed, &progress).await?,
        )
    } else if !listed.safetensors.is_empty() {
        return Err("pick the checkpoint's config.json together with its .safetensors files: the architecture is in config.json".into());
    } else {
        return Err(
            "pick a .gguf file, or a checkpoint's config.json with its .safetensors files".into(),
        );
    };
    let quant = read.1.id;
    let mut family = hub::family(&name, &listed, read, Vec::new());
    family.id = format!("file:{name}");
    family.name = format!("{name} (from your disk)");
    for v in &mut family.variants {
        v.id = format!("file:{name}");
        for f in &mut v.formats {
            // Commands name the file itself (`-m FILE`; a checkpoint's folder for vLLM).
            f.source = format!("{} on your disk (its header read)", f.file);
            f.repo = match f.container {
                fitcard_estimator::catalog::quant::Container::Gguf => String::new(),
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

/// Read `t` from the Hub: its files, then the header of one GGUF and/or the checkpoint's, the
/// model built on the one `engine` loads (see [`hub::pick`]). `progress` is told each step.
pub async fn run(
    t: &Target,
    engine: Option<Engine>,
    progress: impl Fn(String),
) -> Result<Imported, String> {
    let repo = t.repo.as_str();
    progress(format!("Reading the file list of {repo}…"));
    let (_, body) = get(repo, &hub::info_url(t), None, MAX_INFO).await?;
    let bad = || format!("the Hub's file list for {repo} could not be read");
    let text = String::from_utf8(body).map_err(|_| bad())?;
    let info = js_sys::JSON::parse(&text).map_err(|_| bad())?;
    let rev = prop(&info, "sha")
        .as_string()
        .filter(|s| fitcard_estimator::from_query(&format!("rev={s}")).clean())
        .or_else(|| t.rev.clone())
        .unwrap_or_else(|| "main".into());
    let list = prop(&info, "siblings");
    let list = if js_sys::Array::is_array(&list) {
        js_sys::Array::from(&list)
    } else {
        js_sys::Array::new()
    };
    let siblings: Vec<Sibling> = list
        .iter()
        .filter_map(|s| {
            Some(Sibling {
                path: prop(&s, "rfilename").as_string()?,
                size: prop(&s, "size").as_f64().unwrap_or(0.0).max(0.0) as u64,
            })
        })
        .collect();
    let gate = prop(&info, "gated");
    if gate.is_truthy() {
        return Err(gated(repo));
    }
    let files = hub::classify(&siblings, t.dir.as_deref());
    // A link or address naming a .safetensors file asks for the checkpoint, one naming a .gguf
    // that GGUF; else the engine decides which the model is built on (`hub::pick`), and the
    // other, when the repo has it, adds its format.
    let named = |ext: &str| t.file.as_deref().is_some_and(|f| f.ends_with(ext));
    let want_st = named(".safetensors");
    let container = if want_st {
        Container::Safetensors
    } else if named(".gguf") {
        Container::Gguf
    } else {
        engine.map_or(Container::Gguf, Engine::container)
    };
    let src = Source::Hub { repo, rev: &rev };
    let gguf = match hub::choose(&files, t.file.as_deref()).filter(|_| !want_st) {
        Some(g) => Some(read_gguf(&src, g, &progress).await),
        None => None,
    };
    let st = if files.safetensors.is_empty() {
        None
    } else if !files.config {
        Some(Err(format!(
            "{repo} holds .safetensors files without a config.json beside them: the \
architecture is unknown"
        )))
    } else {
        Some(read_checkpoint(&src, repo, t.dir.as_deref(), &files, &progress).await)
    };
    let (read, extra) = hub::pick(gguf, st, container).map_err(|e| {
        if e.starts_with("no .gguf") {
            format!("{repo} holds {e}")
        } else {
            e
        }
    })?;
    let quant = read.1.id;
    Ok(Imported {
        family: hub::family(repo, &files, read, extra),
        rev,
        quant,
    })
}

/// The header of one GGUF model, read in growing closed ranges.
async fn read_gguf(
    src: &Source<'_>,
    g: &hub::GgufFile,
    progress: &impl Fn(String),
) -> Result<(Variant, Format), String> {
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
                return gguf::to_variant(&h, &g.path, Bytes(g.bytes))
                    .map_err(|m| format!("{}: {m}", g.path))
            }
            Err(Error::NeedMore(_)) if (head.len() as u64) < want => {
                return Err(format!("the answer for {} was cut short", g.path));
            }
            Err(Error::NeedMore(n)) if n <= MAX_HEADER => {
                want = n.max(want * 2).min(MAX_HEADER);
            }
            Err(e) => return Err(format!("{}: {e}", g.path)),
        }
    }
}

/// A checkpoint (`repo` names it in messages): its `config.json`, then the header of each
/// `.safetensors` shard, each read with one closed range (a second, exact one when the header
/// is longer than guessed). The size is the shards' listed sizes, exactly; the headers say
/// what they hold.
async fn read_checkpoint(
    src: &Source<'_>,
    repo: &str,
    dir: Option<&str>,
    files: &hub::RepoFiles,
    progress: &impl Fn(String),
) -> Result<(Variant, Format), String> {
    let shards = &files.safetensors;
    if shards.len() > MAX_SHARDS {
        return Err(format!(
            "{repo} has {} .safetensors shards (this page reads at most {MAX_SHARDS})",
            shards.len()
        ));
    }
    let total = shards
        .iter()
        .map(|s| s.size)
        .fold(0u64, u64::saturating_add);
    if shards.iter().any(|s| s.size == 0) {
        return Err(format!(
            "the Hub's file list for {repo} gave no .safetensors sizes"
        ));
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
    src: &Source<'_>,
    repo: &str,
    dir: Option<&str>,
    files: &hub::RepoFiles,
    progress: &impl Fn(String),
) -> Result<String, String> {
    let config_path = dir.map_or("config.json".into(), |d| format!("{d}/config.json"));
    progress(format!("Reading {config_path} of {repo}…"));
    if files.config_bytes > hf::MAX_CONFIG as u64 {
        return Err(format!(
            "{config_path} of {repo} is over {} bytes",
            hf::MAX_CONFIG
        ));
    }
    // One byte more than accepted when the listing gave no size: a longer file is refused.
    let n = match files.config_bytes {
        0 => hf::MAX_CONFIG + 1,
        b => b as usize,
    };
    let body = src.head(&config_path, n as u64).await?;
    if files.config_bytes > 0 && body.len() < n {
        return Err(format!("the answer for {config_path} was cut short"));
    }
    String::from_utf8(body).map_err(|_| format!("{config_path} of {repo} is not text"))
}

/// The tensors of shard `s`, its header read from `guess` bytes (exactly when longer); `read`
/// counts the bytes of every header read (at most [`MAX_HEADERS`]), and `guess` becomes the
/// next shard's first read.
async fn read_shard(
    src: &Source<'_>,
    repo: &str,
    s: &Sibling,
    guess: &mut u64,
    read: &mut u64,
) -> Result<Vec<hf::Tensor>, String> {
    let mut want = (*guess).min(s.size).max(8);
    loop {
        *read = read.saturating_add(want);
        if *read > MAX_HEADERS {
            return Err(format!(
                "the .safetensors headers of {repo} are over {} together",
                Bytes(MAX_HEADERS)
            ));
        }
        let head = src.head(&s.path, want).await?;
        match hf::safetensors_header(&head) {
            Ok(t) => {
                // The next shard's header is likely about as long as this one's.
                let len = head
                    .get(..8)
                    .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
                *guess = (len + len / 4 + 8).clamp(FIRST_ST, 8 << 20);
                return Ok(t);
            }
            Err(hf::HeaderError::NeedMore(_)) if (head.len() as u64) < want => {
                return Err(format!("the answer for {} was cut short", s.path));
            }
            Err(hf::HeaderError::NeedMore(m)) if m > want && m <= s.size => want = m,
            Err(hf::HeaderError::NeedMore(_)) => {
                return Err(format!("{}: its header is longer than the file", s.path));
            }
            Err(hf::HeaderError::Bad(m)) => return Err(format!("{}: {m}", s.path)),
        }
    }
}
