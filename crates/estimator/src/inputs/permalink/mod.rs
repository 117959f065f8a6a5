//! The permalink codec: [`Inputs`] ⇄ query string (the public API of the page, the embed and the CLI), versioned `v=1`.
//!
//! [`encode`] writes every parameter in a fixed order, so a link always restores the whole
//! configuration. [`from_query`] is tolerant: an unknown key, a bad or out-of-range value, a
//! duplicate key or a model/format/GPU missing from the catalog falls back to the default and is
//! reported as a [`Notice`] naming the key. It never panics (property-tested).

use crate::catalog::engine::KvDtype;
pub use crate::inputs::normalize::normalize;
use crate::inputs::*;
use std::fmt::Write;
use std::str::FromStr;

mod form;
mod keys;
mod values;
use form::*;
pub use form::{first_value, form_decode, percent_encode};
use keys::apply;
use values::*;

/// Version of the query string written by [`encode`].
pub const VERSION: u32 = 1;

/// Result of reading a query string: the inputs to use, and what was refused on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// The inputs to use.
    pub inputs: Inputs,
    /// What was refused, capped at [`MAX_NOTICES`] (+ one "… and N more").
    pub notices: Vec<Notice>,
}

impl Parsed {
    /// True when every parameter was taken as given.
    pub fn clean(&self) -> bool {
        self.notices.is_empty()
    }
}

/// Query string for `inputs` (without a leading `?`). Every parameter is written.
pub fn encode(i: &Inputs) -> String {
    let mut s = String::with_capacity(256);
    encode_serve(&mut s, i);
    encode_train(&mut s, &i.train);
    encode_run(&mut s, i);
    encode_filters(&mut s, &i.best);
    s
}

/// The model, its format, the workload, the cards and the engine with its cache and layout.
fn encode_serve(s: &mut String, i: &Inputs) {
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
}

/// The fine-tuning inputs (the trainer and free memory only when set).
fn encode_train(s: &mut String, t: &TrainInputs) {
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
}

/// `spec=`, `draft=`, `draftq=`, `ndraft=`, `rsseq=` (none in a build without the `spec` feature,
/// which reads none of them).
#[cfg(feature = "spec")]
fn encode_draft(s: &mut String, i: &Inputs) {
    if i.rsseq > 0 {
        let _ = write!(s, "&rsseq={}", i.rsseq);
    }
    // `draft=` says `spec=draft` by itself.
    if let Some(m) = i.spec.filter(|m| *m != crate::inputs::Spec::Draft) {
        let _ = write!(s, "&spec={m}");
    }
    if let Some(d) = &i.draft {
        let _ = write!(s, "&draft={}", escape(&d.model));
        if let Some(q) = d.quant {
            let _ = write!(s, "&draftq={}", escape(q.id()));
        }
    }
    if let Some(n) = i.ndraft {
        let _ = write!(s, "&ndraft={n}");
    }
}

#[cfg(not(feature = "spec"))]
fn encode_draft(_: &mut String, _: &Inputs) {}

/// `loras=`, `lorarank=`, `with=`, `images=` (none in a build without the `extras` feature).
#[cfg(feature = "extras")]
fn encode_extras(s: &mut String, i: &Inputs) {
    if let Some(l) = i.lora {
        let _ = write!(s, "&loras={}", l.count);
        if let Some(r) = l.rank {
            let _ = write!(s, "&lorarank={r}");
        }
    }
    if !i.with.is_empty() {
        let _ = write!(s, "&with={}", co_models_text(&i.with));
    }
    if i.images > 0 {
        let _ = write!(s, "&images={}", i.images);
    }
}

/// `with=`'s value: `repo:format[:ctx[:par]][@engine]`, comma-separated (each field written only
/// with the ones before it: `repo::8192` keeps the format's place). The page's field shows it.
#[cfg(feature = "extras")]
pub fn co_models_text(with: &[CoModel]) -> String {
    let mut s = String::new();
    for (k, m) in with.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        s.push_str(&escape(&m.model));
        let fields = [
            m.quant.map(|q| escape(q.id())),
            m.ctx.map(|c| c.to_string()),
            m.par.map(|p| p.to_string()),
        ];
        let last = fields.iter().rposition(Option::is_some);
        for f in fields.iter().take(last.map_or(0, |l| l + 1)) {
            s.push(':');
            s.push_str(f.as_deref().unwrap_or(""));
        }
        if let Some(e) = m.engine {
            let _ = write!(s, "@{}", escape(e.id()));
        }
    }
    s
}

/// `with=`'s value read as the link reads it: the entries it could read, and why it left the
/// others out.
#[cfg(feature = "extras")]
pub fn co_models_from(val: &str) -> (Vec<CoModel>, Option<String>) {
    let mut out = Vec::new();
    let why = keys::co_models(val, &mut out).err();
    (out, why)
}

#[cfg(not(feature = "extras"))]
fn encode_extras(_: &mut String, _: &Inputs) {}

/// What is written only when it differs from the default: the projector, offload, bandwidths,
/// the draft, the adapters, the reserve, the picked cards, the embed view, the revision and the
/// file.
fn encode_run(s: &mut String, i: &Inputs) {
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
    if let Some(m) = i.ncmoe {
        let _ = write!(s, "&ncmoe={m}");
    }
    encode_draft(s, i);
    encode_extras(s, i);
    if i.reserve > 0.0 {
        let _ = write!(s, "&reserve={}", fmt_num(i.reserve));
    }
    if !i.train.pick.is_empty() {
        let v: Vec<String> = i.train.pick.iter().map(|g| g.to_string()).collect();
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
}

/// The best-model filters that are set.
fn encode_filters(s: &mut String, b: &BestFilters) {
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
}

/// Read a query string (a leading `?` is ignored). Never fails: see the module docs.
/// Keys and values are read as `application/x-www-form-urlencoded` (`+` is a space; a malformed
/// escape stays literal; invalid UTF-8 becomes U+FFFD). Notices echo at most
/// [`ECHO_CHARS`] characters of a value and are capped at [`MAX_NOTICES`].
pub fn from_query(query: &str) -> Parsed {
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
        let key = NoticeKey::of(&k);
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
        if let Err(message) = apply(&mut i, &k, val, &mut seen_keys) {
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
        if seen.contains(n.key.as_str()) {
            note(n, &mut notices);
        }
    }
    cap_notices(&mut notices, dropped);
    Parsed { inputs: i, notices }
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
/// What the size rule answered for the format a query names ([`from_query_computing`]).
pub type Computed = Option<(crate::catalog::quant::Quant, Result<bool, String>)>;

/// `query` decoded as the CLI and the accuracy report decode it: a known format it names
/// (`quant=`, its first value) that the catalog lacks for the model is computed by the size rule
/// and installed ([`crate::catalog::install_computed`]), and the query is decoded again. The
/// second value is what the rule answered for that format (`Ok(true)`: installed, `Ok(false)`:
/// the model had it, `Err`: why the rule has none); `None` when the query names no known format
/// or its model is refused.
pub fn from_query_computing(query: &str) -> (Parsed, Computed) {
    let d = from_query(query);
    let named = first_value(query, "quant").and_then(|q| q.parse().ok());
    let Some(q) = named.filter(|_| !d.notices.iter().any(|n| n.key == Key::Model)) else {
        return (d, None);
    };
    let answer = crate::catalog::install_computed(&d.inputs.model, q, d.inputs.engine.container());
    let d = if answer == Ok(true) {
        from_query(query)
    } else {
        d
    };
    (d, Some((q, answer)))
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
        let plain = from_query("model=Qwen/Qwen3-8B").inputs;
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
        let d = from_query(&q);
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
            let d = from_query(q);
            assert!(d.inputs.rev.is_none() && d.inputs.file.is_none(), "{q}");
            let key = &q[..q.find('=').unwrap()];
            assert!(
                d.notices.iter().any(|n| n.key.as_str() == key),
                "{q}: {:?}",
                d.notices
            );
        }
        let d = from_query(&format!("rev={}", "a".repeat(65)));
        assert!(d.inputs.rev.is_none());
        let d = from_query("rev=main&file=model.safetensors");
        assert!(d.clean());
        assert_eq!(d.inputs.rev.as_deref(), Some("main"));
    }
}
