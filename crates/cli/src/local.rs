//! `fitcard inspect PATH` and `fitcard estimate --file PATH`: a local GGUF file or checkpoint
//! folder, read from its headers ([`crate::files`]).

use crate::*;
use fitcard_estimator::catalog::{Format, Variant};
use fitcard_estimator::inputs::Key;

/// One row of `fitcard inspect`: a tensor type, how many tensors have it, their bytes.
#[derive(serde::Serialize)]
struct TypeRow {
    #[serde(rename = "type")]
    kind: String,
    tensors: u64,
    /// `None` when the reader does not size this type.
    bytes: Option<u64>,
}

/// What `fitcard inspect` prints: the architecture and format read from the header, and the
/// bytes per tensor type.
#[derive(serde::Serialize)]
struct Inspection {
    arch: fitcard_estimator::catalog::Arch,
    format: fitcard_estimator::catalog::Format,
    tensor_types: Vec<TypeRow>,
}

/// A local model read from its headers.
struct Local {
    variant: Variant,
    format: Format,
    /// Each tensor's type and bytes (`None` where the reader does not size the type).
    tensors: Vec<(String, Option<u64>)>,
    /// Read from a GGUF file (else a checkpoint folder or one `.safetensors` file of it).
    gguf: bool,
}

/// `path` read from its headers: a checkpoint folder or `.safetensors` file, else a GGUF file;
/// `who` starts every message.
fn read_local(path: &str, who: &str) -> Result<Local, String> {
    let p = std::path::Path::new(path);
    if p.is_dir() || path.ends_with(".safetensors") {
        let (variant, format, tensors) = files::read_checkpoint(p, who)?;
        let tensors = tensors
            .iter()
            .map(|t| (t.dtype.clone(), Some(t.bytes)))
            .collect();
        return Ok(Local {
            variant,
            format,
            tensors,
            gguf: false,
        });
    }
    let (h, size) = files::read_gguf(p, who)?;
    let tensors = h
        .tensors
        .iter()
        .map(|t| (t.type_name(), t.bytes()))
        .collect();
    let name = p
        .file_name()
        .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
    let (variant, format) = fitcard_estimator::readers::gguf::to_variant(&h, &name, Bytes(size))
        .map_err(|e| format!("{who}: {e}"))?;
    Ok(Local {
        variant,
        format,
        tensors,
        gguf: true,
    })
}

/// What `fitcard inspect hf://org/name` prints: the architecture and the format read from the
/// repo's headers, the commit, and every format the repo's files hold.
#[derive(serde::Serialize)]
struct RepoInspection {
    /// The family's name ("… (fine-tune of …)" when its model card names a catalog base).
    name: String,
    /// Where its capability comes from.
    capability_basis: String,
    arch: fitcard_estimator::catalog::Arch,
    format: fitcard_estimator::catalog::Format,
    rev: String,
    formats: Vec<fitcard_estimator::catalog::Format>,
}

/// `fitcard inspect PATH`: a local GGUF file or checkpoint folder, headers only; a Hub repo
/// when `path` is written `hf://org/name`, or is `org/name` and no such path exists.
pub fn inspect(path: &str, json: bool) -> Result<String, String> {
    let repo = path.strip_prefix("hf://").or_else(|| {
        (!std::path::Path::new(path).exists()
            && fitcard_estimator::readers::hub::repo::is_repo_id(path))
        .then_some(path)
    });
    if let Some(repo) = repo {
        return inspect_repo(repo, json);
    }
    let who = format!("inspect {}", quote(path));
    let local = read_local(path, &who)?;
    let rows = type_rows(&local.tensors);
    if json {
        return Ok(to_json(&Inspection {
            arch: local.variant.arch,
            format: local.format,
            tensor_types: rows,
        }));
    }
    Ok(inspection_text(&local.variant, &local.format, &rows))
}

/// `fitcard inspect hf://org/name`: the repo read from the Hub (its GGUF header first, as
/// llama.cpp would load it), headers only.
fn inspect_repo(repo: &str, json: bool) -> Result<String, String> {
    let t = fitcard_estimator::readers::hub::repo::parse_target(repo, &crate::hub::endpoint())?;
    let read = crate::hub::read(&t, fitcard_estimator::Engine::LlamaCpp)?;
    let (name, basis) = (
        read.family.name.clone(),
        read.family.capability_basis.clone(),
    );
    let Some(v) = read.family.variants.into_iter().next() else {
        return Err(format!("{repo}: no model in the repo"));
    };
    let format = v
        .formats
        .iter()
        .find(|f| f.id == read.quant)
        .or(v.formats.first())
        .cloned()
        .ok_or_else(|| format!("{repo}: no format"))?;
    if json {
        return Ok(to_json(&RepoInspection {
            name,
            capability_basis: basis,
            arch: v.arch.clone(),
            format,
            rev: read.rev,
            formats: v.formats,
        }));
    }
    let mut s = format!("{name}\n");
    if !basis.is_empty() {
        s.push_str(&format!("capability: {basis}\n"));
    }
    s.push_str(&inspection_text(&v, &format, &[]).replace("tensor types:\n", ""));
    s.push_str(&format!("commit {}\nformats:\n", read.rev));
    for f in &v.formats {
        s.push_str(&format!(
            "  {:<10} {:<12} {:>12}  {}\n",
            f.id.id(),
            f.container.label(),
            Bytes(f.bytes.get()).to_string(),
            f.file
        ));
    }
    Ok(s)
}

/// The tensors counted and their bytes summed per type, in the order of the type's name; a type
/// with one unsized tensor is unsized.
fn type_rows(tensors: &[(String, Option<u64>)]) -> Vec<TypeRow> {
    let mut by_type: std::collections::BTreeMap<&str, (u64, Option<u64>)> = Default::default();
    for (kind, bytes) in tensors {
        let e = by_type.entry(kind).or_insert((0, Some(0)));
        e.0 += 1;
        e.1 = e.1.zip(*bytes).map(|(a, b)| a.saturating_add(b));
    }
    by_type
        .into_iter()
        .map(|(kind, (tensors, bytes))| TypeRow {
            kind: kind.to_string(),
            tensors,
            bytes,
        })
        .collect()
}

/// `fitcard inspect` as text: the model and format, the architecture, the tensor types.
fn inspection_text(v: &Variant, f: &Format, rows: &[TypeRow]) -> String {
    let a = &v.arch;
    let mut s = format!(
        "{} ({}, {})\nformat: {} in {}, {}\n",
        v.name,
        a.model_type,
        a.source,
        f.id,
        Bytes(f.bytes.get()),
        f.note.as_deref().unwrap_or("")
    );
    s.push_str(&format!(
        "layers {} · hidden {} · heads {} / KV {} × {} · vocab {} · context {}\n",
        a.layers, a.hidden, a.heads, a.kv_heads, a.head_dim, a.vocab, a.max_ctx
    ));
    s.push_str(&arch_features(a));
    s.push_str("tensor types:\n");
    for r in rows {
        s.push_str(&format!(
            "  {:<10} {:>6} tensors  {:>12}\n",
            r.kind,
            r.tensors,
            r.bytes.map_or("unsized".into(), |b| Bytes(b).to_string())
        ));
    }
    s
}

/// What sets the architecture apart, where it does: experts, sliding-window or chunked
/// attention, latent attention, recurrent layers.
fn arch_features(a: &fitcard_estimator::catalog::Arch) -> String {
    let mut s = String::new();
    if a.is_moe() {
        s.push_str(&format!(
            "experts: {} ({} routed per token)\n",
            a.experts, a.experts_active
        ));
    }
    if let Some(w) = a.swa {
        s.push_str(&format!(
            "{} attention: window {} tokens, one global layer in {}\n",
            if w.chunked {
                "chunked"
            } else {
                "sliding-window"
            },
            w.window,
            w.period
        ));
    }
    if let Some(m) = a.mla {
        s.push_str(&format!(
            "latent attention: kv_lora_rank {} + rope {} per token and layer{}\n",
            m.kv_lora_rank,
            m.qk_rope_head_dim,
            m.index_head_dim
                .map_or(String::new(), |d| format!(", indexer {d}"))
        ));
    }
    if let Some(r) = &a.recurrent {
        s.push_str(&format!(
            "recurrent ({}): {} of {} layers; attention on {} layers\n",
            r.kind,
            a.layers - a.kv_owning_layers(),
            a.layers,
            a.kv_owning_layers()
        ));
    }
    s.push_str(&task_line(a));
    s
}

/// What the model is served for when it is not chat, as its headers say
/// (`catalog::read_task`): an encoder's embeddings, or a classifier's relevance scores.
fn task_line(a: &fitcard_estimator::catalog::Arch) -> String {
    use fitcard_estimator::catalog::{is_encoder_type, read_task, Task};
    let kind = if is_encoder_type(&a.model_type) {
        "encoder-only, no KV cache"
    } else {
        "a decoder"
    };
    match (read_task(a), a.rank_labels) {
        (Some(Task::Rerank), Some(n)) => format!(
            "served for reranking: {kind}, a classifier of {n} label(s) (llama-server --reranking)\n"
        ),
        (Some(Task::Embed), _) => {
            format!("served for embeddings: {kind} (llama-server --embedding)\n")
        }
        _ => String::new(),
    }
}

/// The file's model joins the catalog as an import (as the page's importer adds a Hub repo), so
/// that what is read of a model by its id sees it: what it is served for (an embedder's or a
/// reranker's flags and buffers, `catalog::read_task`) and whether it is an encoder. A model the
/// catalog already holds under that id stays as it is.
fn join_catalog(v: &Variant, f: &Format) {
    use fitcard_estimator::catalog;
    if catalog::catalog().variant(&v.id).is_some() {
        return;
    }
    let mut v = v.clone();
    if v.formats.is_empty() {
        v.formats.push(f.clone());
    }
    let family = catalog::Family {
        id: format!("file {}", v.id),
        name: v.name.clone(),
        capability_basis: String::new(),
        variants: vec![v],
        license: None,
        reasoning: None,
        task: None,
    };
    let _ = catalog::import(family);
}

/// `fitcard estimate '<query>' --file PATH`: the model and format from the file's header (a GGUF
/// format names the file as given, for the command).
pub fn estimate_file(args: &[&str], path: &str, json: bool) -> Result<String, String> {
    let query = match args {
        ["estimate"] => "",
        ["estimate", q] => q,
        _ => return Err(format!("--file goes with estimate\n{USAGE}")),
    };
    if path.is_empty() {
        return Err("--file needs a path".into());
    }
    // The file names the model and its format.
    let i = checked_catalog_inputs(query, |n, _| n.key == Key::Model || n.key == Key::Quant)?;
    let mut local = read_local(path, &format!("--file {}", quote(path)))?;
    if local.gguf {
        local.format.file = path.to_string();
    }
    join_catalog(&local.variant, &local.format);
    let e = fitcard_estimator::serve::estimate_file(&i, &local.variant, &local.format);
    Ok(if json {
        to_json(&e)
    } else {
        human::estimate(&e)
    })
}
