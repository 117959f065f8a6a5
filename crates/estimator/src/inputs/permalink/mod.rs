//! The permalink codec: [`Inputs`] ⇄ query string (the public API of the page, the embed and the CLI), versioned `v=1`.
//!
//! [`encode`] writes every parameter in a fixed order, so a link always restores the whole
//! configuration. [`decode`] is tolerant: an unknown key, a bad or out-of-range value, a
//! duplicate key or a model/format/GPU missing from the catalog falls back to the default and is
//! reported as a [`Notice`] naming the key. It never panics (property-tested).

use crate::catalog::catalog;
use crate::catalog::engine::{Engine, KvDtype};
use crate::catalog::quant::Quant;
pub use crate::inputs::normalize::normalize;
use crate::inputs::*;
use std::fmt::Write;
use std::str::FromStr;

mod form;
mod values;
use form::*;
use values::*;

/// Version of the query string written by [`encode`].
pub const VERSION: u32 = 1;

/// Result of decoding: the inputs to use, and what was refused on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// The inputs to use.
    pub inputs: Inputs,
    /// What was refused, capped at [`MAX_NOTICES`] (+ one "… and N more").
    pub notices: Vec<Notice>,
}

impl Decoded {
    /// True when every parameter was taken as given.
    pub fn clean(&self) -> bool {
        self.notices.is_empty()
    }
}

/// Query string for `inputs` (without a leading `?`). Every parameter is written.
pub fn encode(i: &Inputs) -> String {
    let mut s = String::with_capacity(256);
    let t = &i.train;
    let _ = write!(
        s,
        "v={VERSION}&mode={}&model={}&quant={}&ctx={}&par={}&cards={}",
        match i.mode {
            Mode::Serve => "serve",
            Mode::Train => "train",
        },
        escape(&i.model),
        i.quant,
        i.ctx,
        i.par,
        i.cards
    );
    match &i.gpu {
        GpuChoice::Catalog(id) => {
            let _ = write!(s, "&gpu={}", escape(id));
        }
        GpuChoice::VramGib(g) => {
            let _ = write!(s, "&vram={}", fmt_num(*g));
        }
    }
    if !i.gpus.is_empty() {
        let _ = write!(s, "&gpus={}", escape(&i.gpus.join(",")));
    }
    let _ = write!(s, "&engine={}", i.engine);
    match i.kv_v {
        None => {
            let _ = write!(s, "&kv={}", i.kv);
        }
        Some(v) => {
            let _ = write!(s, "&kvk={}&kvv={v}", i.kv);
        }
    }
    let _ = write!(
        s,
        "&kvu={}&ubatch={}&swafull={}&util={}",
        u8::from(i.kvu),
        i.ubatch,
        u8::from(i.swa_full),
        fmt_num(i.util)
    );
    if let Some(t) = i.tp {
        let _ = write!(s, "&tp={t}");
    }
    if let Some(p) = i.pp {
        let _ = write!(s, "&pp={p}");
    }
    let _ = write!(
        s,
        "&method={}&rank={}&bsz={}&seq={}&gc={}&optim={}&targets={}",
        t.method, t.rank, t.bsz, t.seq, t.gc, t.optim, t.targets
    );
    if t.trainer != Trainer::Unsloth {
        let _ = write!(s, "&trainer={}", t.trainer);
    }
    if !t.free.is_empty() {
        let v: Vec<String> = t.free.iter().map(|g| fmt_num(*g)).collect();
        let _ = write!(s, "&free={}", v.join(","));
    }
    if !i.mmproj {
        s.push_str("&mmproj=0");
    }
    if let Some(g) = i.gl {
        let _ = write!(s, "&gl={}", fmt_num(g));
    }
    if let Some(b) = i.bw {
        let _ = write!(s, "&bw={}", fmt_num(b));
    }
    if let Some(b) = i.ram_bw {
        let _ = write!(s, "&ram_bw={}", fmt_num(b));
    }
    if let Some(n) = i.ngl {
        let _ = write!(s, "&ngl={n}");
    }
    if i.nkvo {
        s.push_str("&nkvo=1");
    }
    if !t.pick.is_empty() {
        let v: Vec<String> = t.pick.iter().map(|g| g.to_string()).collect();
        let _ = write!(s, "&pick={}", v.join(","));
    }
    if i.embed {
        s.push_str("&embed=1");
    }
    if let Some(r) = &i.rev {
        let _ = write!(s, "&rev={}", escape(r));
    }
    if let Some(f) = &i.file {
        let _ = write!(s, "&file={}", escape(f));
    }
    let b = &i.best;
    if b.on {
        s.push_str("&best=1");
    }
    if let Some(f) = &b.family {
        let _ = write!(s, "&family={}", escape(f));
    }
    if let Some(l) = &b.license {
        let _ = write!(s, "&license={}", escape(l));
    }
    if let Some(c) = b.min_ctx {
        let _ = write!(s, "&minctx={c}");
    }
    if let Some(r) = b.reasoning {
        let _ = write!(s, "&reasoning={}", u8::from(r));
    }
    s
}

/// Decode a query string (a leading `?` is ignored). Never fails: see the module docs.
/// Keys and values are read as `application/x-www-form-urlencoded` (`+` is a space; a malformed
/// escape stays literal; invalid UTF-8 becomes U+FFFD). Notices echo at most
/// [`ECHO_CHARS`] characters of a value and are capped at [`MAX_NOTICES`].
pub fn decode(query: &str) -> Decoded {
    let mut i = Inputs::default();
    let mut notices = Vec::new();
    let mut dropped = 0usize;
    // The keys given so far, sorted (a `HashSet` would link a hasher into the page for this
    // one use; queries hold tens of keys).
    let mut seen = Seen::default();
    let mut seen_keys = Keys::default();
    let q = query.trim().trim_start_matches('?');
    let mut note = |n: Notice, notices: &mut Vec<Notice>| {
        if notices.len() < MAX_NOTICES {
            notices.push(n);
        } else {
            dropped += 1;
        }
    };
    for (k, v) in pairs(q) {
        let key = clean(&k);
        let val = v.trim();
        if !seen.insert(&k) {
            note(
                Notice {
                    key,
                    message: format!(
                        "given more than once; kept the first value, ignored {}",
                        quote(val)
                    ),
                },
                &mut notices,
            );
            continue;
        }
        if let Err(message) = apply(&mut i, &key, val, &mut seen_keys) {
            note(Notice { key, message }, &mut notices);
        }
    }
    // K and V types: `kvk`/`kvv` each override `kv` for their half.
    let k = seen_keys.k.or(seen_keys.kv);
    let v = seen_keys.v.or(seen_keys.kv);
    if k.is_some() || v.is_some() {
        // Notices about the cache type name `kv`, whichever key set it.
        seen.insert("kv");
        i.kv = k.unwrap_or(i.kv);
        i.kv_v = v.filter(|&v| v != i.kv);
    }
    // Adjustments of values the user did not give (the default format on an engine that cannot
    // load it, say) are made silently; adjustments of given values are reported.
    for n in normalize(&mut i) {
        if seen.contains(&n.key) {
            note(n, &mut notices);
        }
    }
    cap_notices(&mut notices, dropped);
    Decoded { inputs: i, notices }
}

/// A set of strings as a sorted list.
#[derive(Default)]
struct Seen(Vec<String>);

impl Seen {
    /// Add `k`; false when it was there already.
    fn insert(&mut self, k: &str) -> bool {
        match self.0.binary_search_by(|s| s.as_str().cmp(k)) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, k.to_string());
                true
            }
        }
    }

    fn contains(&self, k: &str) -> bool {
        self.0.binary_search_by(|s| s.as_str().cmp(k)).is_ok()
    }
}

/// Keys whose meaning depends on others given in the same query.
#[derive(Default)]
struct Keys {
    /// `gpu` or `vram` was given.
    gpu: bool,
    /// `kv`, `kvk`, `kvv` as given.
    kv: Option<KvDtype>,
    k: Option<KvDtype>,
    v: Option<KvDtype>,
}

/// Set one key. Err = why the value was refused (the default stays).
/// Every key the query string reads, in the order the decoder reads them (the CLI's usage text
/// names each one; a test holds both lists to the decoder).
pub const KEYS: [&str; 44] = [
    "v",
    "mode",
    "model",
    "quant",
    "ctx",
    "par",
    "cards",
    "gpu",
    "vram",
    "gpus",
    "engine",
    "kv",
    "kvk",
    "kvv",
    "kvu",
    "ubatch",
    "swafull",
    "mmproj",
    "util",
    "tp",
    "pp",
    "gl",
    "bw",
    "ram_bw",
    "ngl",
    "nkvo",
    "embed",
    "rev",
    "file",
    "best",
    "family",
    "license",
    "minctx",
    "reasoning",
    "method",
    "rank",
    "bsz",
    "seq",
    "gc",
    "optim",
    "trainer",
    "targets",
    "free",
    "pick",
];

fn apply(i: &mut Inputs, key: &str, val: &str, seen: &mut Keys) -> Result<(), String> {
    let kv_type = |val: &str| {
        KvDtype::from_str(val).map_err(|_| {
            bad(
                val,
                "auto, f16, bf16, f32, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl, bfloat16, fp8, fp8_e4m3, fp8_e5m2",
            )
        })
    };
    let t = &mut i.train;
    match key {
        "v" => {
            let v: u32 = num(val, (1, u32::MAX))?;
            if v != VERSION {
                return Err(format!(
                    "version {v} is not known; read as version {VERSION}"
                ));
            }
        }
        "mode" => {
            i.mode = match val {
                "serve" => Mode::Serve,
                "train" => Mode::Train,
                _ => return Err(bad(val, "serve, train")),
            }
        }
        "model" => {
            let (_, v) = catalog().variant(val).ok_or_else(|| {
                format!(
                    "model {} is not in the catalog; using {}",
                    quote(val),
                    i.model
                )
            })?;
            i.model = v.id.clone();
        }
        "quant" => {
            i.quant = Quant::from_str(val).map_err(|_| {
                format!(
                    "{} is not a format fitcard knows (closest: {}); kept the default",
                    quote(val),
                    Quant::closest(val, 3).join(", ")
                )
            })?
        }
        "ctx" => i.ctx = num(val, limits::CTX)?,
        "par" => i.par = num(val, limits::PAR)?,
        "cards" => i.cards = num(val, limits::CARDS)?,
        "gpu" | "vram" if seen.gpu => {
            return Err("both gpu and vram given; kept the first".into());
        }
        "gpu" => {
            let g = catalog().gpu(val).ok_or_else(|| {
                format!(
                    "GPU {} is not in the catalog; use vram=<GiB> for other cards",
                    quote(val)
                )
            })?;
            i.gpu = GpuChoice::Catalog(g.id.clone());
            seen.gpu = true;
        }
        "vram" => {
            i.gpu = GpuChoice::VramGib(fnum(val, limits::VRAM_GIB)?);
            seen.gpu = true;
        }
        "gpus" => {
            let ids = list(val, |id| {
                catalog().gpu(id).map(|g| g.id.clone()).ok_or_else(|| {
                    format!(
                        "GPU {} is not in the catalog; kept one kind of card",
                        quote(id)
                    )
                })
            })?;
            i.gpus = ids;
        }
        "engine" => {
            i.engine = Engine::from_str(val).map_err(|_| {
                let all: Vec<&str> = Engine::ALL.iter().map(|e| e.id()).collect();
                bad(val, &all.join(", "))
            })?
        }
        "kv" => seen.kv = Some(kv_type(val)?),
        "kvk" => seen.k = Some(kv_type(val)?),
        "kvv" => seen.v = Some(kv_type(val)?),
        "kvu" => i.kvu = flag(val)?,
        "ubatch" => i.ubatch = num(val, limits::UBATCH)?,
        "swafull" => i.swa_full = flag(val)?,
        "mmproj" => i.mmproj = flag(val)?,
        "util" => i.util = fnum(val, limits::UTIL)?,
        "tp" => i.tp = Some(num(val, limits::CARDS)?),
        "pp" => i.pp = Some(num(val, limits::CARDS)?),
        "gl" => i.gl = Some(fnum(val, (0.0, 4096.0))?),
        "bw" => i.bw = Some(fnum(val, limits::BW_GBS)?),
        "ram_bw" => i.ram_bw = Some(fnum(val, limits::RAM_BW_GBS)?),
        "ngl" => i.ngl = Some(num(val, limits::NGL)?),
        "nkvo" => i.nkvo = flag(val)?,
        "embed" => i.embed = flag(val)?,
        "rev" => i.rev = Some(revision(val)?),
        "file" => i.file = Some(repo_path(val)?),
        "best" => i.best.on = flag(val)?,
        "family" => {
            let cat = crate::catalog::catalog();
            if cat.family(val).is_none() {
                let ids: Vec<&str> = cat.families.iter().map(|f| f.id.as_str()).collect();
                return Err(bad(val, &closest_ids(val, &ids, 6)));
            }
            i.best.family = Some(val.to_string());
        }
        "license" => {
            if val.is_empty()
                || val.len() > 40
                || !val
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
            {
                return Err(bad(
                    val,
                    "a licence id such as apache-2.0, mit, gemma, llama3.1",
                ));
            }
            i.best.license = Some(val.to_ascii_lowercase());
        }
        "minctx" => i.best.min_ctx = Some(num(val, limits::CTX)?),
        "reasoning" => i.best.reasoning = Some(flag(val)?),
        "method" => t.method = ident(val)?,
        "rank" => t.rank = num(val, limits::RANK)?,
        "bsz" => t.bsz = num(val, limits::BSZ)?,
        "seq" => t.seq = num(val, limits::SEQ)?,
        "gc" => t.gc = ident(val)?,
        "optim" => t.optim = ident(val)?,
        "trainer" => t.trainer = ident(val)?,
        "targets" => {
            let mut set = TargetSet::EMPTY;
            for m in val.split(',').map(str::trim).filter(|m| !m.is_empty()) {
                set = set.with(ident(m)?, true);
            }
            if set.is_empty() {
                return Err("no target module given; adapting all seven".into());
            }
            t.targets = set;
        }
        "free" => {
            let v = list(val, |s| fnum(s, limits::FREE_GIB))?;
            t.free = v;
        }
        "pick" => {
            let v = list(val, |s| num(s, (0, limits::GPUS as u32 - 1)))?;
            t.pick = v;
        }
        _ => return Err("unknown parameter, ignored".into()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unescape(s: &str) -> String {
        form_decode(s)
    }

    #[test]
    fn form_decoding_follows_the_url_standard() {
        assert_eq!(form_decode("a+b%20c%2Fd"), "a b c/d");
        // Malformed escapes stay literal; a lone byte that is not UTF-8 becomes U+FFFD.
        assert_eq!(form_decode("%zz%4"), "%zz%4");
        assert_eq!(form_decode("%"), "%");
        assert_eq!(form_decode("x%FFy"), "x\u{FFFD}y");
        assert_eq!(form_decode("%E2%89%88"), "≈");
        let p: Vec<(String, String)> = pairs("&a=1&&b&c==2&").collect();
        assert_eq!(
            p,
            [("a", "1"), ("b", ""), ("c", "=2")].map(|(k, v)| (k.to_string(), v.to_string()))
        );
    }

    #[test]
    fn escape_round_trips() {
        for s in ["google/gemma-3-4b-it", "a b&c=d%+", "ü", "x\ny"] {
            assert_eq!(unescape(&escape(s)), s);
        }
        // Written byte for byte as before: `/`, `,`, `.`, `-`, `_`, `~` stay.
        assert_eq!(escape("org/a-b_c.d~e,f g"), "org/a-b_c.d~e,f%20g");
        // Malformed escapes stay literal, `%+A` included (a sign is not a hex digit).
        assert_eq!(unescape("%zz%4"), "%zz%4");
        assert_eq!(unescape("%+A"), "% A");
    }

    #[test]
    fn rev_and_file_are_written_only_when_set_and_read_back() {
        let plain = decode("model=Qwen/Qwen3-8B").inputs;
        assert!(plain.rev.is_none() && plain.file.is_none());
        let q = encode(&plain);
        assert!(!q.contains("rev=") && !q.contains("file="), "{q}");
        let mut i = plain.clone();
        i.rev = Some("0123456789abcdef0123456789abcdef01234567".into());
        i.file = Some("sub dir/model-Q4_K_M-00001-of-00002.gguf".into());
        let q = encode(&i);
        assert!(
            q.contains("&rev=0123456789abcdef0123456789abcdef01234567"),
            "{q}"
        );
        assert!(
            q.contains("&file=sub%20dir/model-Q4_K_M-00001-of-00002.gguf"),
            "{q}"
        );
        let d = decode(&q);
        assert!(d.clean(), "{:?}", d.notices);
        assert_eq!(d.inputs, i);
    }

    #[test]
    fn bad_rev_and_file_are_refused_by_name() {
        for q in [
            "rev=",
            "rev=a%2Fb",
            "rev=..",
            "file=/etc/passwd",
            "file=a/../b.gguf",
            "file=a//b",
            "file=x%0Ay.gguf",
            "file=a%5Cb",
        ] {
            let d = decode(q);
            assert!(d.inputs.rev.is_none() && d.inputs.file.is_none(), "{q}");
            let key = &q[..q.find('=').unwrap()];
            assert!(
                d.notices.iter().any(|n| n.key == key),
                "{q}: {:?}",
                d.notices
            );
        }
        let d = decode(&format!("rev={}", "a".repeat(65)));
        assert!(d.inputs.rev.is_none());
        let d = decode("rev=main&file=model.safetensors");
        assert!(d.clean());
        assert_eq!(d.inputs.rev.as_deref(), Some("main"));
    }
}
