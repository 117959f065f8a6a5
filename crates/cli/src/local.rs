//! `fitcard inspect PATH` and `fitcard estimate --file PATH`: a local GGUF file or checkpoint
//! folder, read from its headers ([`crate::files`]).

use crate::*;

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

/// `fitcard inspect PATH`: a local GGUF file or checkpoint folder, headers only.
pub fn inspect(path: &str, json: bool) -> Result<String, String> {
    use std::collections::BTreeMap;
    let p = std::path::Path::new(path);
    let who = format!("inspect {}", quote(path));
    let mut by_type: BTreeMap<String, (u64, Option<u64>)> = BTreeMap::new();
    let mut add = |kind: String, bytes: Option<u64>| {
        let e = by_type.entry(kind).or_insert((0, Some(0)));
        e.0 += 1;
        e.1 = e.1.zip(bytes).map(|(a, b)| a.saturating_add(b));
    };
    let (v, f) = if p.is_dir() || path.ends_with(".safetensors") {
        let (v, f, tensors) = files::read_checkpoint(p, &who)?;
        for t in &tensors {
            add(t.dtype.clone(), Some(t.bytes));
        }
        (v, f)
    } else {
        let (h, size) = files::read_gguf(p, &who)?;
        for t in &h.tensors {
            add(t.type_name(), t.bytes());
        }
        let name = p
            .file_name()
            .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
        fitcard_estimator::gguf::to_variant(&h, &name, fitcard_estimator::Bytes(size))
            .map_err(|e| format!("{who}: {e}"))?
    };
    let rows: Vec<TypeRow> = by_type
        .into_iter()
        .map(|(kind, (tensors, bytes))| TypeRow {
            kind,
            tensors,
            bytes,
        })
        .collect();
    if json {
        return Ok(to_json(&Inspection {
            arch: v.arch,
            format: f,
            tensor_types: rows,
        }));
    }
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
    s.push_str("tensor types:\n");
    for r in &rows {
        s.push_str(&format!(
            "  {:<10} {:>6} tensors  {:>12}\n",
            r.kind,
            r.tensors,
            r.bytes.map_or("unsized".into(), |b| Bytes(b).to_string())
        ));
    }
    Ok(s)
}

/// `fitcard estimate '<query>' --file PATH`: the model and format from the file's header.
pub fn estimate_file(args: &[&str], path: &str, json: bool) -> Result<String, String> {
    let query = match args {
        ["estimate"] => "",
        ["estimate", q] => q,
        _ => return Err(format!("--file goes with estimate\n{USAGE}")),
    };
    if path.is_empty() {
        return Err("--file needs a path".into());
    }
    let d = decode(query);
    if let Some(n) = d
        .notices
        .iter()
        .find(|n| n.key != "model" && n.key != "quant")
    {
        return Err(format!("bad parameter {n}"));
    }
    let p = std::path::Path::new(path);
    let who = format!("--file {}", quote(path));
    let (v, f) = if p.is_dir() || path.ends_with(".safetensors") {
        let (v, f, _) = files::read_checkpoint(p, &who)?;
        (v, f)
    } else {
        let (h, size) = files::read_gguf(p, &who)?;
        let name = p
            .file_name()
            .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
        let (v, f) = fitcard_estimator::gguf::to_variant(&h, &name, fitcard_estimator::Bytes(size))
            .map_err(|e| format!("{who}: {e}"))?;
        let f = fitcard_estimator::catalog::Format {
            file: path.to_string(),
            ..f
        };
        (v, f)
    };
    let e = fitcard_estimator::serve::estimate_file(&d.inputs, &v, &f);
    Ok(if json {
        to_json(&e)
    } else {
        human::estimate(&e)
    })
}
