//! Each key of the query string read into the inputs: one function per group of keys (the
//! serve workload, the engine, the best-model filters, fine-tuning) and one per value that needs
//! more than a bounded number.

use super::values::*;
use super::{Keys, VERSION};
use crate::catalog::catalog;
use crate::catalog::engine::{Engine, KvDtype};
use crate::catalog::quant::Quant;
use crate::inputs::*;
use std::str::FromStr;

/// Applies one `key=val` pair to `i` (`seen` remembers what a later key depends on), or says why
/// it was not applied. Each group of keys has its own function, `None` for a key not its own.
pub(super) fn apply(i: &mut Inputs, key: &str, val: &str, seen: &mut Keys) -> Result<(), String> {
    apply_serve(i, key, val, seen)
        .or_else(|| apply_engine(i, key, val, seen))
        .or_else(|| apply_spec(i, key, val))
        .or_else(|| apply_extras(i, key, val))
        .or_else(|| apply_filter(i, key, val))
        .or_else(|| apply_train(&mut i.train, key, val))
        .unwrap_or_else(|| Err("unknown parameter, ignored".into()))
}

/// The version, the mode, the model, its format, the workload and the cards.
fn apply_serve(
    i: &mut Inputs,
    key: &str,
    val: &str,
    seen: &mut Keys,
) -> Option<Result<(), String>> {
    Some(match key {
        "v" => version(val),
        "mode" => mode(val).map(|m| i.mode = m),
        "model" => model(val, &i.model).map(|m| i.model = m),
        "quant" => quant(val).map(|q| i.quant = q),
        "ctx" => num(val, limits::CTX).map(|v| i.ctx = v),
        "par" => num(val, limits::PAR).map(|v| i.par = v),
        "cards" => num(val, limits::CARDS).map(|v| i.cards = v),
        "gpu" | "vram" if seen.gpu => Err("both gpu and vram given; kept the first".into()),
        "gpu" => gpu(val).map(|g| {
            i.gpu = GpuChoice::Catalog(g);
            seen.gpu = true;
        }),
        "vram" => fnum(val, limits::VRAM_GIB).map(|g| {
            i.gpu = GpuChoice::VramGib(g);
            seen.gpu = true;
        }),
        "gpus" => list(val, gpus_entry).map(|ids| i.gpus = ids),
        _ => return None,
    })
}

/// The engine and how it is run: cache types, offload, parallel layout, bandwidths, the file.
fn apply_engine(
    i: &mut Inputs,
    key: &str,
    val: &str,
    seen: &mut Keys,
) -> Option<Result<(), String>> {
    Some(match key {
        "engine" => engine(val).map(|e| i.engine = e),
        "kv" => kv_type(val).map(|k| seen.kv = Some(k)),
        "kvk" => kv_type(val).map(|k| seen.k = Some(k)),
        "kvv" => kv_type(val).map(|k| seen.v = Some(k)),
        "kvu" => flag(val).map(|b| i.kvu = b),
        "ubatch" => num(val, limits::UBATCH).map(|v| i.ubatch = v),
        "swafull" => flag(val).map(|b| i.swa_full = b),
        "mmproj" => flag(val).map(|b| i.mmproj = b),
        "util" => fnum(val, limits::UTIL).map(|v| i.util = v),
        "reserve" => fnum(val, limits::RESERVE_GIB).map(|v| i.reserve = v),
        "tp" => num(val, limits::CARDS).map(|v| i.tp = Some(v)),
        "pp" => num(val, limits::CARDS).map(|v| i.pp = Some(v)),
        "gl" => fnum(val, (0.0, 4096.0)).map(|v| i.gl = Some(v)),
        "bw" => fnum(val, limits::BW_GBS).map(|v| i.bw = Some(v)),
        "ram_bw" => fnum(val, limits::RAM_BW_GBS).map(|v| i.ram_bw = Some(v)),
        "ngl" => num(val, limits::NGL).map(|v| i.ngl = Some(v)),
        "nkvo" => flag(val).map(|b| i.nkvo = b),
        "ncmoe" => cpu_moe(val).map(|m| i.ncmoe = Some(m)),
        "embed" => flag(val).map(|b| i.embed = b),
        "rev" => revision(val).map(|r| i.rev = Some(r)),
        "file" => repo_path(val).map(|f| i.file = Some(f)),
        _ => return None,
    })
}

/// Speculative decoding (a build without the `spec` feature, the page's first load, reads none
/// of them: it hands a link with `draft=` or `rsseq=` to the whole calculator).
#[cfg(feature = "spec")]
fn apply_spec(i: &mut Inputs, key: &str, val: &str) -> Option<Result<(), String>> {
    Some(match key {
        "draft" => draft(val).map(|m| i.draft.get_or_insert_default().model = m),
        "draftq" => quant(val).map(|q| i.draft.get_or_insert_default().quant = Some(q)),
        "ndraft" => num(val, limits::NDRAFT).map(|v| i.ndraft = Some(v)),
        "spec" => ident(val).map(|s| i.spec = Some(s)),
        "rsseq" => num(val, limits::RSSEQ).map(|v| i.rsseq = v),
        _ => return None,
    })
}

#[cfg(not(feature = "spec"))]
fn apply_spec(_: &mut Inputs, _: &str, _: &str) -> Option<Result<(), String>> {
    None
}

/// Serve-time LoRA adapters, other models on the cards and images per request (a build without
/// the `extras` feature, the page's first load, reads none of these keys: it hands such a link to
/// the whole calculator).
#[cfg(feature = "extras")]
fn apply_extras(i: &mut Inputs, key: &str, val: &str) -> Option<Result<(), String>> {
    fn lora(i: &mut Inputs) -> &mut ServeLora {
        i.lora.get_or_insert(ServeLora {
            count: 0,
            rank: None,
        })
    }
    Some(match key {
        "loras" => num(val, limits::LORAS).map(|v| lora(i).count = v),
        "lorarank" => num(val, limits::LORA_RANK).map(|v| lora(i).rank = Some(v)),
        "with" => co_models(val, &mut i.with),
        "images" => num(val, limits::IMAGES).map(|v| i.images = v),
        _ => return None,
    })
}

#[cfg(not(feature = "extras"))]
fn apply_extras(_: &mut Inputs, _: &str, _: &str) -> Option<Result<(), String>> {
    None
}

/// `with=`: a comma list of `repo:format[:ctx[:par]][@engine]`, at most [`limits::WITH`]
/// entries. Each entry is read alone: a bad one is left out and said, the others kept.
#[cfg(feature = "extras")]
pub(super) fn co_models(val: &str, out: &mut Vec<CoModel>) -> Result<(), String> {
    out.clear();
    let mut refused = Vec::new();
    let mut entries = val.split(',').map(str::trim).filter(|s| !s.is_empty());
    for entry in entries.by_ref().take(limits::WITH) {
        match co_model(entry) {
            Ok(m) => out.push(m),
            Err(e) => refused.push(e.replace("; kept the default", "; left out")),
        }
    }
    if entries.next().is_some() {
        refused.push(format!(
            "more than {} models; the rest left out",
            limits::WITH
        ));
    }
    if refused.is_empty() {
        Ok(())
    } else {
        Err(refused.join("; "))
    }
}

/// One `with=` entry: `repo:format[:ctx[:par]][@engine]`.
#[cfg(feature = "extras")]
fn co_model(entry: &str) -> Result<CoModel, String> {
    let (spec, engine_id) = match entry.rsplit_once('@') {
        Some((spec, e)) => (spec, Some(e)),
        None => (entry, None),
    };
    let mut parts = spec.split(':');
    let repo = parts.next().unwrap_or_default();
    let (_, v) = catalog()
        .variant(repo)
        .ok_or_else(|| format!("{} is not in the catalog; left out", quote(repo)))?;
    fn opt(p: Option<&str>) -> Option<&str> {
        p.filter(|s| !s.is_empty())
    }
    let within = |e: String| format!("{}: {e}", v.id);
    let m = CoModel {
        model: v.id.clone(),
        quant: opt(parts.next()).map(quant).transpose().map_err(within)?,
        ctx: opt(parts.next())
            .map(|x| num(x, limits::CTX))
            .transpose()
            .map_err(within)?,
        par: opt(parts.next())
            .map(|x| num(x, limits::PAR))
            .transpose()
            .map_err(within)?,
        engine: engine_id.map(engine).transpose().map_err(within)?,
    };
    if parts.next().is_some() {
        return Err(within(format!(
            "{} has more than repo:format:ctx:par; left out",
            quote(entry)
        )));
    }
    Ok(m)
}

/// A draft model: a catalog variant's id.
#[cfg(feature = "spec")]
fn draft(val: &str) -> Result<String, String> {
    let (_, v) = catalog()
        .variant(val)
        .ok_or_else(|| format!("draft model {} is not in the catalog; no draft", quote(val)))?;
    Ok(v.id.clone())
}

/// The best-model filters.
fn apply_filter(i: &mut Inputs, key: &str, val: &str) -> Option<Result<(), String>> {
    let b = &mut i.best;
    Some(match key {
        "best" => flag(val).map(|on| b.on = on),
        "family" => family(val).map(|f| b.family = Some(f)),
        "license" => license(val).map(|l| b.license = Some(l)),
        "minctx" => num(val, limits::CTX).map(|v| b.min_ctx = Some(v)),
        "reasoning" => flag(val).map(|r| b.reasoning = Some(r)),
        _ => return None,
    })
}

/// The fine-tuning inputs.
fn apply_train(t: &mut TrainInputs, key: &str, val: &str) -> Option<Result<(), String>> {
    Some(match key {
        "method" => ident(val).map(|m| t.method = m),
        "rank" => num(val, limits::RANK).map(|v| t.rank = v),
        "bsz" => num(val, limits::BSZ).map(|v| t.bsz = v),
        "seq" => num(val, limits::SEQ).map(|v| t.seq = v),
        "gc" => ident(val).map(|g| t.gc = g),
        "optim" => ident(val).map(|o| t.optim = o),
        "trainer" => ident(val).map(|r| t.trainer = r),
        "targets" => targets(val).map(|s| t.targets = s),
        "free" => list(val, |s| fnum(s, limits::FREE_GIB)).map(|v| t.free = v),
        "pick" => list(val, |s| num(s, (0, limits::GPUS as u32 - 1))).map(|v| t.pick = v),
        _ => return None,
    })
}

/// `v`: only the version this reader knows.
fn version(val: &str) -> Result<(), String> {
    let v: u32 = num(val, (1, u32::MAX))?;
    if v == VERSION {
        Ok(())
    } else {
        Err(format!(
            "version {v} is not known; read as version {VERSION}"
        ))
    }
}

fn mode(val: &str) -> Result<Mode, String> {
    match val {
        "serve" => Ok(Mode::Serve),
        "train" => Ok(Mode::Train),
        _ => Err(bad(val, "serve, train")),
    }
}

/// A catalog variant's id (`current` is kept, and named, when `val` is not one).
fn model(val: &str, current: &str) -> Result<String, String> {
    let (_, v) = catalog().variant(val).ok_or_else(|| {
        format!(
            "model {} is not in the catalog; using {}",
            quote(val),
            current
        )
    })?;
    Ok(v.id.clone())
}

fn quant(val: &str) -> Result<Quant, String> {
    Quant::from_str(val).map_err(|_| {
        format!(
            "{} is not a format fitcard knows (closest: {}); kept the default",
            quote(val),
            Quant::closest(val, 3).join(", ")
        )
    })
}

fn gpu(val: &str) -> Result<String, String> {
    let g = catalog().gpu(val).ok_or_else(|| {
        format!(
            "GPU {} is not in the catalog; use vram=<GiB> for other cards",
            quote(val)
        )
    })?;
    Ok(g.id.clone())
}

/// One card of `gpus=` (a list of catalog cards).
fn gpus_entry(id: &str) -> Result<String, String> {
    catalog().gpu(id).map(|g| g.id.clone()).ok_or_else(|| {
        format!(
            "GPU {} is not in the catalog; kept one kind of card",
            quote(id)
        )
    })
}

fn engine(val: &str) -> Result<Engine, String> {
    Engine::from_str(val).map_err(|_| {
        let all: Vec<&str> = Engine::ALL.iter().map(|e| e.id()).collect();
        bad(val, &all.join(", "))
    })
}

fn kv_type(val: &str) -> Result<KvDtype, String> {
    KvDtype::from_str(val).map_err(|_| {
        let all: Vec<&str> = KvDtype::ALL.iter().map(|k| k.id()).collect();
        bad(val, &all.join(", "))
    })
}

fn family(val: &str) -> Result<String, String> {
    let cat = catalog();
    if cat.family(val).is_none() {
        let ids: Vec<&str> = cat.families.iter().map(|f| f.id.as_str()).collect();
        return Err(bad(val, &closest_ids(val, &ids, 6)));
    }
    Ok(val.to_string())
}

/// A licence id: ASCII letters, digits and `-._`, at most 40 bytes; kept lower-case.
fn license(val: &str) -> Result<String, String> {
    let ok = !val.is_empty()
        && val.len() <= 40
        && val
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b));
    if !ok {
        return Err(bad(
            val,
            "a licence id such as apache-2.0, mit, gemma, llama3.1",
        ));
    }
    Ok(val.to_ascii_lowercase())
}

/// `targets=`: the adapted modules, comma-separated; at least one.
fn targets(val: &str) -> Result<TargetSet, String> {
    let mut set = TargetSet::EMPTY;
    for m in val.split(',').map(str::trim).filter(|m| !m.is_empty()) {
        set = set.with(ident(m)?, true);
    }
    if set.is_empty() {
        return Err("no target module given; adapting all seven".into());
    }
    Ok(set)
}
