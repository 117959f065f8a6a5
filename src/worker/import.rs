//! Importing a Hub repo, the requests: the model info, then the first bytes of one GGUF file
//! (a single closed `Range`, grown while the header continues; no other header is sent, so the
//! browser needs no preflight), read from a stream that is cancelled once enough has arrived;
//! and for a safetensors checkpoint its `config.json` and the header of each shard (closed
//! ranges too). Every failure is one line.
//!
//! This runs in the importer, a web worker with a wasm of its own (`fitcard-import`, built by
//! trunk next to the page's): the file readers and the Hub client cost the calculator's first
//! transfer nothing, and are downloaded on the first import only. [`serve`] answers the page;
//! `crate::worker::importer` is the page's side.

use crate::model::hub::{self, Sibling, Target};
use fitcard_estimator::catalog::{Family, Format, Variant};
use fitcard_estimator::gguf::{self, Error};
use fitcard_estimator::hf;
use fitcard_estimator::quant::Container;
use fitcard_estimator::{Bytes, Engine, Quant};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

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

/// How long the Hub may take to answer a request, or to send the next part of its answer,
/// before the import stops (milliseconds). A build pointed at a stand-in Hub may set a shorter
/// one at compile time (`FITCARD_IMPORT_TIMEOUT_MS`), so that its tests need not wait.
const TIMEOUT_MS: i32 = match option_env!("FITCARD_IMPORT_TIMEOUT_MS") {
    Some(ms) => digits(ms),
    None => 30_000,
};

/// The number `s` spells in decimal digits (a compile-time setting; anything else stops the
/// build).
const fn digits(s: &str) -> i32 {
    let b = s.as_bytes();
    let mut n = 0i32;
    let mut k = 0;
    while k < b.len() {
        assert!(
            b[k].is_ascii_digit(),
            "FITCARD_IMPORT_TIMEOUT_MS: digits only"
        );
        n = n * 10 + (b[k] - b'0') as i32;
        k += 1;
    }
    assert!(n > 0, "FITCARD_IMPORT_TIMEOUT_MS: more than 0");
    n
}

thread_local! {
    /// The import under way: a new one, or the page's `cancel`, aborts its requests (its
    /// answer, an error, is no longer awaited), and the number tells a stale read from the
    /// current one.
    static CURRENT: std::cell::RefCell<(u32, Option<web_sys::AbortController>)> =
        const { std::cell::RefCell::new((0, None)) };
}

/// Abort the import under way, if any; a fresh controller for the next one (with `start`)
/// and its number.
fn take_over(start: bool) -> u32 {
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(old) = c.1.take() {
            old.abort();
        }
        c.0 = c.0.wrapping_add(1);
        c.1 = if start {
            web_sys::AbortController::new().ok()
        } else {
            None
        };
        c.0
    })
}

/// The abort signal of the import under way.
fn signal() -> Option<web_sys::AbortSignal> {
    CURRENT.with(|c| c.borrow().1.as_ref().map(web_sys::AbortController::signal))
}

/// `p`, unless [`TIMEOUT_MS`] pass first: then the import under way is aborted, and the line
/// says so. `what` says what failed otherwise.
async fn within(p: js_sys::Promise, what: impl Fn() -> String) -> Result<JsValue, String> {
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let timer = js_sys::Promise::new(&mut |done, _| {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&done, TIMEOUT_MS);
    });
    let v = JsFuture::from(js_sys::Promise::race(&js_sys::Array::of2(&p, &timer)))
        .await
        .map_err(|_| what())?;
    if v.is_undefined() {
        take_over(false);
        return Err(format!(
            "the Hugging Face Hub did not answer within {} s: try again",
            TIMEOUT_MS / 1000
        ));
    }
    Ok(v)
}

/// A repo read from the Hub, ready to join the catalog.
pub struct Imported {
    /// The family: the repo as one variant with its formats.
    pub family: Family,
    /// The commit read.
    pub rev: String,
    /// The format of the file whose header was read.
    pub quant: Quant,
}

/// Which build made a message: the page and the importer must come from the same build. The
/// tag of the catalog file this build was made with, evaluated at compile time; the importer
/// reads the same file and checks it against this.
pub const ABI: u64 = fitcard_estimator::catalog::tag(include_bytes!(
    "../../crates/estimator/data/catalog.postcard"
));

/// The page's side and the importer's agree on a JS number: the low 52 bits of [`ABI`] (exact
/// up to 2^53).
pub fn abi_number() -> f64 {
    (ABI & ((1 << 52) - 1)) as f64
}

/// `v[k]`, or undefined.
pub(crate) fn prop(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

/// The gated-repo message: what happened, and what works instead.
fn gated(repo: &str) -> String {
    format!(
        "{repo} is gated: its files need a Hugging Face login with its terms accepted, which this \
page never sends. Download its files, then run fitcard estimate with --file on them (it reads \
the headers only), or import an ungated copy of the same model."
    )
}

/// GET `url` (with `Range: bytes=0-{range-1}` when given); the status and at most `limit`
/// bytes of the body.
async fn get(
    repo: &str,
    url: &str,
    range: Option<u64>,
    limit: usize,
) -> Result<(u16, Vec<u8>), String> {
    let init = web_sys::RequestInit::new();
    if let Some(n) = range {
        let h = web_sys::Headers::new().map_err(|_| "the browser refused a request".to_string())?;
        let _ = h.set("Range", &format!("bytes=0-{}", n.saturating_sub(1)));
        init.set_headers(&h);
    }
    init.set_signal(signal().as_ref());
    let req = web_sys::Request::new_with_str_and_init(url, &init)
        .map_err(|_| "the browser refused a request".to_string())?;
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let resp: web_sys::Response = within(scope.fetch_with_request(&req), || {
        "the Hugging Face Hub could not be reached (offline, or blocked)".to_string()
    })
    .await?
    .unchecked_into();
    // The page's policy reads only the Hub and its file hosts (connect-src); a worker's fetch
    // follows redirects wherever they lead, so where the answer came from is checked here.
    let from = resp.url();
    if !hub::may_read(&from) {
        return Err(format!(
            "refused: the Hub {} {repo}'s request to {}, outside the Hub and its file hosts",
            if resp.redirected() {
                "redirected"
            } else {
                "answered"
            },
            fitcard_estimator::inputs::clean(hub::origin(&from).unwrap_or("another host"))
        ));
    }
    let status = resp.status();
    if status == 401 || status == 403 || status == 404 {
        let code = resp.headers().get("X-Error-Code").ok().flatten();
        return Err(match code.as_deref() {
            Some("GatedRepo") => gated(repo),
            _ if status == 404 || code.as_deref() == Some("RepoNotFound") => {
                format!("{repo} was not found on the Hugging Face Hub (or it is private)")
            }
            _ => {
                format!("the Hub refused to send {repo}'s files (HTTP {status}): private or gated")
            }
        });
    }
    if !(200..300).contains(&status) {
        return Err(format!("the Hub answered HTTP {status} for {repo}"));
    }
    let cut = || format!("the Hub's answer for {repo} was cut short");
    let Some(body) = resp.body() else {
        return Ok((status, Vec::new()));
    };
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut out = Vec::new();
    loop {
        let chunk = within(reader.read(), cut).await?;
        if prop(&chunk, "done").as_bool().unwrap_or(true) {
            break;
        }
        let bytes = Uint8Array::new(&prop(&chunk, "value"));
        let take = (limit - out.len()).min(bytes.length() as usize);
        let start = out.len();
        out.resize(start + take, 0);
        bytes.subarray(0, take as u32).copy_to(&mut out[start..]);
        if out.len() >= limit {
            let _ = reader.cancel();
            break;
        }
    }
    Ok((status, out))
}

/// Where model files are read from: the Hub (closed ranges of a repo's files at a commit) or
/// files picked on the visitor's disk (`File.slice`: only the bytes asked for are read).
enum Source<'a> {
    Hub { repo: &'a str, rev: &'a str },
    Disk(&'a [web_sys::File]),
}

impl Source<'_> {
    /// The first `want` bytes of `path` (fewer only when the file is shorter).
    async fn head(&self, path: &str, want: u64) -> Result<Vec<u8>, String> {
        match self {
            Source::Hub { repo, rev } => {
                let url = hub::file_url(repo, rev, path);
                Ok(get(repo, &url, Some(want), want as usize).await?.1)
            }
            Source::Disk(files) => {
                let unread = || format!("{path} could not be read from the disk");
                let f = files.iter().find(|f| f.name() == path).ok_or_else(unread)?;
                let part = f
                    .slice_with_f64_and_f64(0.0, want as f64)
                    .map_err(|_| unread())?;
                let buf = JsFuture::from(part.array_buffer())
                    .await
                    .map_err(|_| unread())?;
                Ok(Uint8Array::new(&buf).to_vec())
            }
        }
    }
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
                fitcard_estimator::quant::Container::Gguf => String::new(),
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
        .filter(|s| fitcard_estimator::decode(&format!("rev={s}")).clean())
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
    let config =
        String::from_utf8(body).map_err(|_| format!("{config_path} of {repo} is not text"))?;
    let mut tensors = Vec::new();
    let mut guess = FIRST_ST;
    let mut read = 0u64;
    for (k, s) in shards.iter().enumerate() {
        progress(format!(
            "Reading the header of {} ({} of {})…",
            s.path,
            k + 1,
            shards.len()
        ));
        let mut want = guess.min(s.size).max(8);
        loop {
            read = read.saturating_add(want);
            if read > MAX_HEADERS {
                return Err(format!(
                    "the .safetensors headers of {repo} are over {} together",
                    Bytes(MAX_HEADERS)
                ));
            }
            let head = src.head(&s.path, want).await?;
            match hf::safetensors_header(&head) {
                Ok(t) => {
                    tensors.extend(t);
                    // The next shard's header is likely about as long as this one's.
                    let len = head
                        .get(..8)
                        .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
                    guess = (len + len / 4 + 8).clamp(FIRST_ST, 8 << 20);
                    break;
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
    let (v, mut f) = hf::to_variant(repo, &config, Bytes(total), &tensors)
        .map_err(|m| format!("{repo}: {m}"))?;
    f.source = format!(
        "the {} .safetensors file{} of {repo} on the Hub (headers read; sizes from its file list)",
        shards.len(),
        if shards.len() == 1 { "" } else { "s" }
    );
    Ok((v, f))
}

/// The catalog file next to the importer, checked against the one this build was made with.
async fn catalog_bytes() -> Result<Vec<u8>, String> {
    let fail = "the importer could not read the catalog: reload the page".to_string();
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let resp: web_sys::Response = JsFuture::from(scope.fetch_with_str("catalog.postcard"))
        .await
        .map_err(|_| fail.clone())?
        .unchecked_into();
    let buf = JsFuture::from(resp.array_buffer().map_err(|_| fail.clone())?)
        .await
        .map_err(|_| fail.clone())?;
    let bytes = Uint8Array::new(&buf).to_vec();
    if fitcard_estimator::catalog::tag(&bytes) != ABI {
        return Err("the importer belongs to another version of the page: reload the page".into());
    }
    Ok(bytes)
}

/// The importer's own copy of the built-in catalog, fetched and installed on the first request
/// (the readers, the link checks and the extras consult it); its bytes.
async fn installed() -> Result<Vec<u8>, String> {
    let bytes = catalog_bytes().await?;
    fitcard_estimator::catalog::install(&bytes)?;
    Ok(bytes)
}

/// A model read (from the Hub or the disk by `read`, which runs once the importer's catalog is
/// in place) joins the importer's copy of the built-in catalog as its last family; the
/// importer keeps that catalog from then on, as the page does, so that the extras see the
/// model. The answer: that catalog postcard-encoded (the page decodes it as it decodes its
/// own), the model's family and variant ids, the commit read (empty for a file on the disk)
/// and its format.
async fn join(
    read: impl std::future::Future<Output = Result<Imported, String>>,
) -> Result<(Vec<u8>, String, String, String, Quant), String> {
    let mine = CURRENT.with(|c| c.borrow().0);
    let bytes = installed().await?;
    let imp = read.await?;
    if CURRENT.with(|c| c.borrow().0) != mine {
        return Err("a later import replaced this one".into());
    }
    let family = imp.family.id.clone();
    let model = imp
        .family
        .variants
        .first()
        .map(|v| v.id.clone())
        .unwrap_or_default();
    // A repo the catalog holds (its entry lacked the files the engine loads) is replaced by
    // what the Hub holds.
    let mut base = fitcard_estimator::catalog::decode(&bytes)?;
    let read = |id: &str| {
        imp.family
            .variants
            .iter()
            .any(|v| v.id.eq_ignore_ascii_case(id))
    };
    for f in &mut base.families {
        f.variants.retain(|v| !read(&v.id));
    }
    base.families.retain(|f| !f.variants.is_empty());
    let c = fitcard_estimator::catalog::with_import(base, imp.family)?;
    let bytes = postcard::to_allocvec(&c).map_err(|_| "the model read could not be sent")?;
    fitcard_estimator::catalog::replace(&bytes)?;
    Ok((bytes, family, model, imp.rev, imp.quant))
}

/// Widest and narrowest frontier plot drawn (CSS pixels); its height.
const PLOT_WIDTH: (u32, u32) = (300, 1200);
const PLOT_HEIGHT: f64 = 340.0;

/// The frontier of the configuration `query` as SVG markup, `width` pixels wide.
async fn frontier(query: &str, width: u32) -> Result<String, String> {
    installed().await?;
    let i = fitcard_estimator::decode(query).inputs;
    let mut f = fitcard_estimator::frontier::frontier(&i);
    // llama.cpp: the lines of the chosen KV layout only (unified or one per slot), seven
    // instead of fourteen; the other layout is one switch away.
    if let Some(c) = f.current_line.and_then(|k| f.lines.get(k).cloned()) {
        f.lines.retain(|l| l.unified == c.unified);
        f.current_line = f.lines.iter().position(|l| *l == c);
    }
    let w = f64::from(width.clamp(PLOT_WIDTH.0, PLOT_WIDTH.1));
    Ok(fitcard_estimator::frontier::svg::svg(&f, w, PLOT_HEIGHT))
}

/// The lines of a list the page shows when it is opened, for the configuration `query`, one per
/// line as `key<TAB>text`: `limits`, each limit solved with every other input held (key: the
/// target); `layouts`, every tensor × pipeline split of vLLM or SGLang cards (key: `chosen` for
/// the one the estimate uses).
async fn lines(kind: &str, query: &str) -> Result<String, String> {
    installed().await?;
    let i = fitcard_estimator::decode(query).inputs;
    let rows: Vec<String> = if kind == "limits" {
        crate::text::summary::targets(i.mode)
            .iter()
            .map(|&t| {
                let s = fitcard_estimator::solve::solve(&i, t);
                format!("{}\t{}", t.id(), crate::text::summary::limit(&s, &i))
            })
            .collect()
    } else {
        fitcard_estimator::layouts::summary(&i)
            .into_iter()
            .map(|l| format!("{}\t{}", if l.chosen { "chosen" } else { "" }, l.text))
            .collect()
    };
    Ok(rows.join("\n"))
}

/// The calibration panel's answer for `readings` under the configuration `query`: the fit's
/// text or its refusal, the global-layer count when fitted, and the measuring loop.
async fn calibration(query: &str, readings: &str) -> Result<(String, Option<f64>, String), String> {
    installed().await?;
    let i = fitcard_estimator::decode(query).inputs;
    let how = fitcard_estimator::measure::how_to_measure(&i).unwrap_or_else(|m| m);
    Ok(match crate::text::calibrate::run(&i, readings) {
        Ok(c) => (c.lines.join("\n"), Some(c.gl), how),
        Err(m) => (m, None, how),
    })
}

/// The importer's message loop (it first posts `{ready: true}`). Each message from the page is
/// `[id, abi, kind, ...args]` (`abi` = [`abi_number`]):
/// - `import` with `[repo, rev, dir, file, engine]` (empty = none; the engine decides which
///   of a GGUF and a checkpoint the model is built on), or `disk` with `[files]` (an
///   array of `File`s picked on the disk): `{id, progress: text}` while it works, then
///   `{id, ok: bytes, family, model, rev, quant}` (see [`join`]; `rev` empty for the disk);
/// - `frontier` with `[query, width]`: `{id, svg}`;
/// - `calibrate` with `[query, readings]`: `{id, text, gl, how}` (`gl` absent when refused);
/// - `cancel`: the import under way stops (a new `import` or `disk` stops it too), unanswered;
///
/// and `{id, err: text}` when a request fails.
pub fn serve() {
    use wasm_bindgen::closure::Closure;
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let on = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let data = js_sys::Array::from(&e.data());
        let id = data.get(0);
        let same_build = data.get(1).as_f64() == Some(abi_number());
        let kind = data.get(2).as_string().unwrap_or_default();
        // A new read stops the one under way; so does `cancel`, which has no arguments.
        match kind.as_str() {
            "cancel" => {
                take_over(false);
                return;
            }
            "import" | "disk" => {
                take_over(true);
            }
            _ => {}
        }
        let arg = |i: u32| data.get(3 + i).as_string().filter(|s| !s.is_empty());
        let num = data.get(4).as_f64().unwrap_or(0.0) as u32;
        let target = Target {
            repo: arg(0).unwrap_or_default(),
            rev: arg(1),
            dir: arg(2),
            file: arg(3),
        };
        let engine: Option<Engine> = arg(4).and_then(|e| e.parse().ok());
        let (a, b) = (arg(0).unwrap_or_default(), arg(1).unwrap_or_default());
        // Files picked on the disk: the first argument, an array of `File`s.
        let picked: Vec<web_sys::File> = js_sys::Array::from(&data.get(3))
            .iter()
            .filter_map(|f| f.dyn_into().ok())
            .collect();
        wasm_bindgen_futures::spawn_local(async move {
            let post = |pairs: &[(&str, JsValue)]| {
                let o = js_sys::Object::new();
                let _ = Reflect::set(&o, &JsValue::from_str("id"), &id);
                for (k, v) in pairs {
                    let _ = Reflect::set(&o, &JsValue::from_str(k), v);
                }
                let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
                let _ = scope.post_message(&o);
            };
            let text = |s: &str| JsValue::from_str(s);
            if !same_build {
                let m = "the importer belongs to another version of the page: reload the page";
                post(&[("err", text(m))]);
                return;
            }
            let answer = match kind.as_str() {
                "import" | "disk" => {
                    let progress = |m: String| post(&[("progress", text(&m))]);
                    let joined = if kind == "import" {
                        join(run(&target, engine, progress)).await
                    } else {
                        join(run_disk(&picked, progress)).await
                    };
                    joined.map(|(bytes, family, model, rev, quant)| {
                        vec![
                            ("ok", Uint8Array::from(&bytes[..]).into()),
                            ("family", text(&family)),
                            ("model", text(&model)),
                            ("rev", text(&rev)),
                            ("quant", text(quant.id())),
                        ]
                    })
                }
                "frontier" => frontier(&a, num).await.map(|svg| vec![("svg", text(&svg))]),
                "limits" | "layouts" => lines(&kind, &a).await.map(|t| vec![("text", text(&t))]),
                "calibrate" => calibration(&a, &b).await.map(|(t, gl, how)| {
                    let mut v = vec![("text", text(&t)), ("how", text(&how))];
                    if let Some(g) = gl {
                        v.push(("gl", JsValue::from_f64(g)));
                    }
                    v
                }),
                _ => Err("the importer does not know this request".into()),
            };
            match answer {
                Ok(pairs) => post(&pairs),
                Err(m) => post(&[("err", text(&m))]),
            }
        });
    });
    scope.set_onmessage(Some(on.as_ref().unchecked_ref()));
    on.forget();
    // The page waits for this before it sends anything.
    let o = js_sys::Object::new();
    let _ = Reflect::set(&o, &JsValue::from_str("ready"), &JsValue::TRUE);
    let _ = scope.post_message(&o);
}
