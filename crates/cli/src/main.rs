//! `fitcard`: the estimator on the command line, reading the same query string as the page.
//!
//! ```text
//! fitcard estimate '<query>' [--json]
//! fitcard rank '<query>' [--json]
//! fitcard catalog [--json]
//! fitcard report                 (the accuracy report, docs/accuracy.md)
//! fitcard badge '<query>'        (an SVG badge for a model card)
//! fitcard docs OUT-DIR [DOCS-DIR] (docs/method.md and docs/accuracy.md as HTML pages)
//! fitcard solve '<query>' [--for ctx|par|cards|gpu|seq|bsz] [--json]
//! fitcard frontier '<query>' [--json|--svg]  (most slots per context, per KV cache type)
//! fitcard measure '<query>' CTX:GIB CTX:GIB CTX:GIB… [--json]
//! fitcard measure '<query>' --how  (the measuring loop for the engine and model)
//! ```
//! `measure` backs out the global-attention layer count from steady-state VRAM readings (GiB, as
//! nvidia-smi shows them) taken at concurrency 1 at three or more context lengths.
//! Unknown keys or bad values: a one-line message naming the key on stderr, exit code 2.

mod docs;
mod files;
mod speed_report;

use fitcard_estimator::inputs::{clean, limits, quote};
use fitcard_estimator::{catalog, decode, estimate, rank, Bytes, Mode};
use std::process::ExitCode;

const USAGE: &str = "usage: fitcard <estimate|rank|catalog> ['<query>'] [--json]\n\
       fitcard best '<query>' [--json]   (the best model for the cards, across families)\n\
       fitcard estimate ['<query>'] --file MODEL.gguf|CHECKPOINT-DIR [--json]\n\
       fitcard inspect MODEL.gguf|CHECKPOINT-DIR [--json]   (headers only)\n\
       fitcard report\n\
       fitcard badge '<query>' > fit.svg\n\
       fitcard docs OUT-DIR [DOCS-DIR]\n\
       fitcard solve '<query>' [--for ctx|par|cards|gpu|seq|bsz] [--json]\n\
       fitcard frontier '<query>' [--json|--svg]   (most slots per context, per KV cache type)\n\
       fitcard measure '<query>' CTX:GIB CTX:GIB CTX:GIB... [--json]\n\
       fitcard measure '<query>' --how   (how to take the readings)\n\
  query keys: v mode model quant ctx par cards gpu|vram gpus bw engine kv kvk kvv kvu ubatch\n\
              swafull mmproj util tp pp gl rev file embed\n\
              ngl nkvo ram_bw (llama.cpp, Ollama: layers and KV cache in host RAM)\n\
              method rank bsz seq gc optim trainer targets free pick (train mode)\n\
              best family license minctx reasoning (fitcard best)\n\
  example: fitcard estimate 'model=google/gemma-3-1b-it&quant=F16&ctx=4096&par=1&engine=llama.cpp&kv=f16' --json";

/// Print the answer (text through [`files::terminal_safe`]; JSON as its encoder wrote it); a
/// closed pipe (`fitcard … | head`) is not an error.
fn print_out(s: &str, json: bool) {
    use std::io::Write;
    let s = if json {
        s.into()
    } else {
        files::terminal_safe(s)
    };
    let _ = writeln!(std::io::stdout().lock(), "{s}");
}

/// A refusal on stderr: one line, terminal-safe.
fn print_err(msg: &str) {
    eprintln!("fitcard: {}", files::terminal_safe(msg));
}

fn main() -> ExitCode {
    // Arguments that are not UTF-8 are bad input like any other: one line, exit code 2.
    let args: Result<Vec<String>, String> = std::env::args_os()
        .skip(1)
        .enumerate()
        .map(|(n, a)| {
            a.into_string().map_err(|a| {
                format!(
                    "argument {} is not valid UTF-8: {}",
                    n + 1,
                    quote(&a.to_string_lossy())
                )
            })
        })
        .collect();
    let args = match args {
        Ok(a) => a,
        Err(msg) => {
            print_err(&msg);
            return ExitCode::from(2);
        }
    };
    let json = args.iter().any(|a| a == "--json");
    // `--file PATH`: estimate a local GGUF file instead of a catalog model.
    let file_at = args.iter().position(|a| a == "--file");
    let rest: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|(k, a)| {
            *a != "--json" && Some(*k) != file_at && Some(*k) != file_at.map(|f| f + 1)
        })
        .map(|(_, a)| a.as_str())
        .collect();
    if let Some(at) = file_at {
        let path = args.get(at + 1).map_or("", String::as_str);
        return match estimate_file(&rest, path, json) {
            Ok(o) => {
                print_out(&o, json);
                ExitCode::SUCCESS
            }
            Err(msg) => {
                print_err(&msg);
                ExitCode::from(2)
            }
        };
    }
    match run(&rest, json) {
        Ok(out) => {
            print_out(&out, json);
            ExitCode::SUCCESS
        }
        Err(msg) => {
            print_err(&msg);
            ExitCode::from(2)
        }
    }
}

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
fn inspect(path: &str, json: bool) -> Result<String, String> {
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
fn estimate_file(args: &[&str], path: &str, json: bool) -> Result<String, String> {
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
    let e = fitcard_estimator::estimate::estimate_file(&d.inputs, &v, &f);
    Ok(if json {
        to_json(&e)
    } else {
        human::estimate(&e)
    })
}

fn run(args: &[&str], json: bool) -> Result<String, String> {
    if let ["measure", query, points @ ..] = args {
        return measure(query, points, json);
    }
    if let ["solve", query, rest @ ..] = args {
        return solve(query, rest, json);
    }
    if let ["frontier", query, rest @ ..] = args {
        return frontier(query, rest, json);
    }
    if let ["docs", out, rest @ ..] = args {
        let src = rest.first().copied().unwrap_or("docs");
        return docs::write_all(std::path::Path::new(out), std::path::Path::new(src));
    }
    if let ["inspect", path] = args {
        return inspect(path, json);
    }
    let (cmd, query) = match args {
        [cmd] => (*cmd, ""),
        [cmd, q] => (*cmd, *q),
        _ => return Err(USAGE.into()),
    };
    if cmd == "badge" {
        let d = decode(query);
        if let Some(n) = d.notices.first() {
            return Err(format!("bad parameter {n}"));
        }
        let e = match d.inputs.mode {
            Mode::Serve => estimate(&d.inputs),
            Mode::Train => fitcard_estimator::training::estimate(&d.inputs).estimate,
        };
        return Ok(fitcard_estimator::badge::svg(&e, &d.inputs)
            .trim_end()
            .to_string());
    }
    if cmd == "report" && query.is_empty() {
        return Ok(format!(
            "{}\n\n{}",
            fitcard_estimator::baselines::report().trim_end(),
            speed_report::section().trim_end()
        ));
    }
    if cmd == "catalog" {
        return Ok(if json {
            to_json(catalog())
        } else {
            catalog_table()
        });
    }
    let d = decode(query);
    // `best` ranks every family: the model and format it would fall back to are not used, so
    // what the notices say of them (the default model has no MLX files) is no reason to refuse.
    let about_the_model = |n: &&fitcard_estimator::inputs::Notice| {
        cmd == "best"
            && (n.key == "model"
                || n.key == "quant"
                || n.key == "engine"
                    && n.message
                        .starts_with(&format!("{} has no ", d.inputs.model)))
    };
    if let Some(n) = d.notices.iter().find(|n| !about_the_model(n)) {
        // The library falls back to defaults; the CLI refuses, naming the key.
        return Err(format!("bad parameter {n}"));
    }
    let i = d.inputs;
    match (cmd, i.mode) {
        ("estimate", Mode::Serve) => {
            let e = fitcard_estimator::estimate::estimate_full(&i);
            Ok(if json {
                to_json(&e)
            } else {
                human::estimate(&e)
            })
        }
        ("estimate", Mode::Train) => {
            let e = fitcard_estimator::training::estimate(&i);
            Ok(if json { to_json(&e) } else { human::train(&e) })
        }
        ("best", _) => {
            let b = fitcard_estimator::best::best(&i);
            Ok(if json { to_json(&b) } else { human::best(&b) })
        }
        ("rank", Mode::Serve) => {
            let r = rank(&i);
            Ok(if json { to_json(&r) } else { human::rank(&r) })
        }
        ("rank", Mode::Train) => {
            let r = fitcard_estimator::training::rank(&i);
            Ok(if json {
                to_json(&r)
            } else {
                human::train_rank(&r)
            })
        }
        _ => Err(format!("unknown command {}\n{USAGE}", quote(cmd))),
    }
}

/// `solve '<query>' [--for ctx|par|cards|gpu|seq|bsz]`: the limit of one input, every other held
/// (all serve-mode limits when `--for` is not given).
fn solve(query: &str, rest: &[&str], json: bool) -> Result<String, String> {
    use fitcard_estimator::solve::{solve, Target};
    let d = decode(query);
    if let Some(n) = d.notices.first() {
        return Err(format!("bad parameter {n}"));
    }
    let targets: Vec<Target> = match rest {
        [] if d.inputs.mode == Mode::Train => vec![Target::Seq, Target::Bsz],
        [] => vec![Target::Ctx, Target::Par, Target::Cards, Target::Gpu],
        ["--for", t] => vec![t.parse().map_err(|_| {
            format!(
                "--for {} is not one of ctx, par, cards, gpu, seq, bsz",
                quote(t)
            )
        })?],
        _ => return Err(USAGE.into()),
    };
    let out: Vec<Solved> = targets
        .iter()
        .map(|&t| {
            let solution = solve(&d.inputs, t);
            let proof = fitcard_estimator::solve::proof(&d.inputs, &solution);
            Solved { solution, proof }
        })
        .collect();
    Ok(if json {
        to_json(&out)
    } else {
        out.iter()
            .map(|s| {
                let mut line = format!("{:<6} {}", s.solution.target, s.solution.message);
                if let Some(p) = &s.proof {
                    line.push_str(&proof_words(p));
                }
                line
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// `frontier '<query>' [--svg]`: the most concurrent slots at each context of a log-spaced grid,
/// one column per KV cache type (and, on llama.cpp, unified or per-slot cache).
fn frontier(query: &str, rest: &[&str], json: bool) -> Result<String, String> {
    use fitcard_estimator::frontier::{frontier, plot::ctx_label, svg};
    let d = decode(query);
    if let Some(n) = d.notices.first() {
        return Err(format!("bad parameter {n}"));
    }
    let svg_out = match rest {
        [] => false,
        ["--svg"] if !json => true,
        _ => return Err(USAGE.into()),
    };
    let f = frontier(&d.inputs);
    if json {
        return Ok(to_json(&f));
    }
    if svg_out {
        let (w, h) = svg::DEFAULT_SIZE;
        return Ok(svg::svg(&f, w, h));
    }
    let (c, p) = f.current;
    let mut out = format!(
        "chosen: {p} slot(s) of {} tokens, {}{}\n",
        ctx_label(c),
        if f.current_fits {
            "fits"
        } else {
            "does not fit"
        },
        f.current_line
            .map_or(String::new(), |k| format!(" (line {})", f.lines[k].label()))
    );
    if let Some(r) = &f.reason {
        out.push_str(r);
        return Ok(out);
    }
    let heads: Vec<(String, &str)> = f
        .lines
        .iter()
        .map(|l| {
            let kv: Vec<&str> = std::iter::once(l.kv.id())
                .chain(l.also.iter().map(|k| k.id()))
                .collect();
            let u = match l.unified {
                Some(true) => "unified",
                Some(false) => "per slot",
                None => "",
            };
            (kv.join("="), u)
        })
        .collect();
    let widths: Vec<usize> = heads
        .iter()
        .map(|(a, b)| a.len().max(b.len()).max(5))
        .collect();
    let row = |first: &str, cells: Vec<String>| {
        let mut r = format!("{first:>7}");
        for (c, w) in cells.iter().zip(&widths) {
            r.push_str(&format!("  {c:>w$}"));
        }
        r.trim_end().to_string()
    };
    out.push_str(&row("ctx", heads.iter().map(|h| h.0.clone()).collect()));
    out.push('\n');
    if heads.iter().any(|h| !h.1.is_empty()) {
        out.push_str(&row("", heads.iter().map(|h| h.1.to_string()).collect()));
        out.push('\n');
    }
    for &ctx in &f.grid {
        let cells = f
            .lines
            .iter()
            .map(|l| match l.slots_at(ctx) {
                Some(s) if s >= f.cap => format!("{s}+"),
                Some(s) => s.to_string(),
                None => "-".into(),
            })
            .collect();
        out.push_str(&row(&ctx_label(ctx), cells));
        out.push('\n');
    }
    out.push_str(&format!(
        "slots that fit per request context; - = not one; {}+ = the top of the search ({} estimates)",
        f.cap, f.evaluations
    ));
    Ok(out)
}

/// One answer of `fitcard solve`: the solution and, for a numeric limit, the estimate at it and
/// one step past it (`proof`, absent for `cards` and `gpu` and when nothing fits).
#[derive(serde::Serialize)]
struct Solved {
    #[serde(flatten)]
    solution: fitcard_estimator::solve::Solution,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<fitcard_estimator::solve::Proof>,
}

/// "\n       at 22726: 11.99 GiB of 12.00 GiB usable; at 22727: 12.00 GiB, does not fit".
fn proof_words(p: &fitcard_estimator::solve::Proof) -> String {
    let of = p
        .usable_bytes
        .map_or(String::new(), |u| format!(" of {u} usable"));
    let profile = p
        .trainer
        .map_or(String::new(), |t| format!(" (trainer profile {t})"));
    let next = match (p.next, p.next_total_bytes, p.next_fits) {
        (Some(n), Some(b), Some(f)) => {
            format!("; at {n}: {b}, {}", if f { "fits" } else { "does not fit" })
        }
        _ => "; the top of the range".to_string(),
    };
    format!(
        "\n       at {}: {}{of}{next}{profile}",
        p.value, p.total_bytes
    )
}

fn measure(query: &str, points: &[&str], json: bool) -> Result<String, String> {
    let d = decode(query);
    if let Some(n) = d.notices.first() {
        return Err(format!("bad parameter {n}"));
    }
    if points == ["--how"] {
        let how = fitcard_estimator::measure::how_to_measure(&d.inputs)?;
        return Ok(if json {
            // The loop as one JSON string, with what it measures.
            to_json(&serde_json::json!({
                "model": d.inputs.model,
                "engine": d.inputs.engine.id(),
                "script": how,
            }))
        } else {
            how
        });
    }
    if d.inputs.par != 1 {
        return Err(format!(
            "par={}: measure with concurrency pinned to 1 (each slot has its own KV cache, so the slope would be {} × the per-token KV)",
            d.inputs.par, d.inputs.par
        ));
    }
    let pts = points
        .iter()
        .map(|p| point(p))
        .collect::<Result<Vec<_>, String>>()?;
    let (_, v) = catalog()
        .variant(&d.inputs.model)
        .ok_or("model not in the catalog")?;
    let g = fitcard_estimator::measure::global_share(&pts, &v.arch, d.inputs.kv)?;
    Ok(if json {
        to_json(&g)
    } else {
        let gib = |b: f64| b / (1u64 << 30) as f64;
        let mut s = format!(
            "{}: {:.0} bytes/token over {} points (adjacent slopes {:?}), R² {:.4}, {:.2} GiB at context 0\n≈ {:.2} global layers = {:.1} % of {} KV layers (the catalog's layout says {})\n{}\n",
            v.id,
            g.bytes_per_token,
            pts.len(),
            g.slopes.iter().map(|s| s.round()).collect::<Vec<_>>(),
            g.r2,
            gib(g.intercept_bytes),
            g.global_layers,
            100.0 * g.share,
            v.arch.kv_owning_layers(),
            g.expected_global_layers,
            g.comparison
        );
        for r in &g.points {
            s.push_str(&format!(
                "  {:>8} tokens: {:8.3} GiB read, {:8.3} GiB on the line, residual {:+.3} GiB\n",
                r.ctx,
                gib(r.bytes),
                gib(r.fitted),
                gib(r.residual)
            ));
        }
        s.push_str(&format!("apply it: add &{} to the link", g.gl));
        s
    })
}

/// One `CTX:GIB` reading, refused by name when it is not a context and an amount of memory a
/// card can hold (the page's bounds: context 1…16M tokens, 0…4096 GiB).
fn point(p: &str) -> Result<fitcard_estimator::measure::Point, String> {
    let shown = quote(p);
    let (c, g) = p
        .split_once(':')
        .ok_or_else(|| format!("point {shown} is not CTX:GIB"))?;
    let ctx: u32 = c
        .parse()
        .map_err(|_| format!("point {shown}: context is not a whole number"))?;
    let (lo, hi) = limits::CTX;
    if ctx < lo || ctx > hi {
        return Err(format!("point {shown}: context is outside {lo}…{hi}"));
    }
    let gib: f64 = g
        .parse()
        .map_err(|_| format!("point {shown}: memory is not a number"))?;
    let (lo, hi) = (0.0, limits::VRAM_GIB.1);
    if !gib.is_finite() || !(lo..=hi).contains(&gib) {
        return Err(format!(
            "point {shown}: {} GiB is outside {lo}…{hi} GiB",
            clean(g)
        ));
    }
    Ok(fitcard_estimator::measure::Point {
        ctx: u64::from(ctx),
        bytes: gib * (1u64 << 30) as f64,
    })
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

fn catalog_table() -> String {
    let mut s = String::new();
    for f in &catalog().families {
        s.push_str(&format!("{} — {}\n", f.name, f.capability_basis));
        for v in &f.variants {
            let q: Vec<String> = v
                .formats
                .iter()
                .map(|m| {
                    let c = match m.container {
                        fitcard_estimator::quant::Container::Gguf => "GGUF",
                        fitcard_estimator::quant::Container::Safetensors => "safetensors",
                        fitcard_estimator::quant::Container::Mlx => "mlx",
                    };
                    format!("{} {c} {}", m.id, m.bytes)
                })
                .collect();
            s.push_str(&format!(
                "  {}. {}: {}\n",
                v.capability_rank,
                v.id,
                q.join(", ")
            ));
        }
    }
    s.push_str("GPUs:\n");
    for g in &catalog().gpus {
        s.push_str(&format!("  {:<16} {:<36} {}\n", g.id, g.name, g.vram_bytes));
    }
    s
}

mod human {
    //! Plain-text tables (binary units: 1 GiB = 2^30 bytes).
    use fitcard_estimator::training::{TrainCandidate, TrainEstimate};
    use fitcard_estimator::{Bytes, Candidate, Estimate};

    pub fn estimate(e: &Estimate) -> String {
        let mut s = format!("{} {} on {}\n", e.model, e.quant, e.engine);
        for t in &e.terms {
            let place = match t.place {
                fitcard_estimator::terms::Place::Device => "card",
                fitcard_estimator::terms::Place::Host => "host",
            };
            s.push_str(&format!(
                "  {:<14} {:>12}  [{place}]  {}\n",
                t.name,
                t.bytes.to_string(),
                t.formula
            ));
            if let Some(d) = &t.outside_domain {
                s.push_str(&format!("  {:<14} outside its checked domain: {d}\n", ""));
            }
        }
        for c in &e.per_card {
            s.push_str(&format!(
                "  card {}: {} of {}\n",
                c.index, c.bytes, c.budget
            ));
        }
        if !e.layouts.is_empty() {
            s.push_str("  layouts (tensor × pipeline parallel, memory on the fullest GPU):\n");
            for l in &e.layouts {
                let stages: Vec<String> = l.stage_layers.iter().map(u64::to_string).collect();
                s.push_str(&format!(
                    "    tp {} × pp {} (layers {}): {} of {}, {}{}{}\n",
                    l.tp,
                    l.pp,
                    stages.join("+"),
                    l.per_gpu_bytes,
                    l.budget,
                    if l.fits {
                        "fits"
                    } else if l.valid {
                        "does not fit"
                    } else {
                        "cannot start"
                    },
                    l.reason
                        .as_deref()
                        .map_or(String::new(), |r| format!(": {r}")),
                    if l.chosen { " [used]" } else { "" }
                ));
            }
        }
        s.push_str(&format!("verdict: {}", e.verdict.label()));
        if let Some(why) = e.lead_reason() {
            s.push_str(&format!(": {why}"));
        }
        s.push('\n');
        if let Some(sp) = e.shown_speed() {
            let basis = if e.engine == "mlx" {
                "median 7 % on mlx-lm's published dense-model runs; mixture-of-experts models run a third slower".to_string()
            } else if matches!(e.engine, "vllm" | "sglang") {
                "median 15 % on published single-request vLLM runs of dense BF16 models on HBM cards".to_string()
            } else if sp.efficiency == fitcard_estimator::speed::CPU.eff {
                format!(
                    "CPU only: the weights read at {} of the RAM's bandwidth, the median of published CPU-only llama.cpp runs",
                    fitcard_estimator::units::Shortest(fitcard_estimator::speed::HOST_EFF)
                )
            } else {
                "±20 % on the published llama.cpp runs".to_string()
            };
            s.push_str(&format!(
                "speed: ≈{:.0} tokens/s per request, {:.0} over all requests (decode at the full context; {basis})\n",
                sp.decode_tps,
                sp.aggregate_tps,
            ));
            if let Some(pf) = sp.prefill() {
                s.push_str(&format!(
                    "  prefill ≈{:.0} tokens/s, first token after ≈{:.2} s for a prompt that fills the context (batch 1)\n",
                    pf.prefill_tps, pf.ttft_s
                ));
            }
            if sp.offloaded_bytes > 0 {
                s.push_str(&format!(
                    "  {} layer(s) ({}) stay in system RAM, read at {} of {} GB/s: ≈{:.1} tokens/s instead of {:.0} with everything on the card\n",
                    sp.offloaded_layers,
                    fitcard_estimator::Bytes(sp.offloaded_bytes),
                    fitcard_estimator::units::Shortest(sp.ram_efficiency),
                    fitcard_estimator::units::Shortest(sp.ram_bw_gbs),
                    sp.decode_tps,
                    sp.on_card_tps
                ));
            }
            if let Some(m) = &sp.measured {
                s.push_str(&format!(
                    "  measured: {} tokens/s per request (llama-bench {}, {} {}): {}\n",
                    m.decode_tps,
                    m.test,
                    m.model,
                    m.quant.id(),
                    m.url
                ));
            }
        }
        for c in &e.checks {
            let mark = match (c.ok, c.severity) {
                (true, _) => "ok",
                (false, fitcard_estimator::estimate::Severity::Hard) => "FAIL",
                (false, fitcard_estimator::estimate::Severity::Info) => "info",
            };
            s.push_str(&format!("  [{mark}] {}: {}\n", c.name, c.message));
        }
        for w in &e.warnings {
            s.push_str(&format!("  warning: {w}\n"));
        }
        if !e.command.is_empty() {
            s.push_str(&format!(
                "command:\n  {}\n",
                e.command.replace('\n', "\n  ")
            ));
        }
        for c in e.commands.iter().skip(1) {
            s.push_str(&format!(
                "on {} ({} on the fullest card, {}):\n  {}\n",
                c.engine,
                c.device_bytes,
                if c.fits { "fits" } else { "does not fit" },
                c.command.replace('\n', "\n  ")
            ));
        }
        s
    }

    pub fn train(e: &TrainEstimate) -> String {
        let mut s = estimate(&e.estimate);
        s.push_str(&format!(
            "trainer profile: {}{}\n",
            e.trainer,
            if e.trainer == fitcard_estimator::inputs::Trainer::UnslothFormula {
                " (Unsloth's published formula)"
            } else {
                ""
            }
        ));
        s.push_str(&format!(
            "GPUs: {} (device_map {})\n",
            e.selection.message, e.selection.device_map
        ));
        s
    }

    pub fn rank(r: &[Candidate]) -> String {
        let mut s = format!(
            "{:>3}  {:<40} {:<8} {:>12} {:>11} {:>7}  reason\n",
            "#", "model", "format", "on card", "headroom", "tok/s"
        );
        for (n, c) in r.iter().enumerate() {
            s.push_str(&format!(
                "{:>3}  {:<40} {:<8} {:>12} {:>12} {:>7}  {}\n",
                n + 1,
                c.model,
                c.quant,
                c.device_bytes.to_string(),
                c.headroom.to_string(),
                c.decode_tps.map_or("?".to_string(), |t| format!("{t:.0}")),
                if c.fits {
                    c.verdict.label().to_string()
                } else {
                    c.reasons.join("; ")
                }
            ));
        }
        s
    }

    pub fn best(b: &fitcard_estimator::best::Best) -> String {
        let mut s = match &b.evaluation {
            Some((name, date, url)) => format!("ordered by {name} ({date}, {url})\n"),
            None => "no cross-family evaluation in this build: family order\n".to_string(),
        };
        s.push_str(&format!(
            "{:>3}  {:<44} {:<9} {:>7} {:>12} {:>12} {:>8}\n",
            "#", "model", "format", "score", "on card", "headroom", "tok/s"
        ));
        for (n, r) in b.rows.iter().enumerate() {
            s.push_str(&format!(
                "{:>3}  {:<44} {:<9} {:>7} {:>12} {:>12} {:>8}{}\n",
                n + 1,
                r.model,
                r.quant.to_string(),
                r.score.map_or("-".to_string(), |x| format!(
                    "{x:.1}{}",
                    if r.estimated { "*" } else { "" }
                )),
                r.device_bytes.to_string(),
                r.headroom.to_string(),
                r.decode_tps.map_or("-".to_string(), |t| format!("{t:.0}")),
                r.unscored
                    .as_ref()
                    .map_or(String::new(), |u| format!("  ({u})"))
            ));
        }
        if b.rows.iter().any(|r| r.estimated) {
            s.push_str("* the evaluation marks this score as estimated\n");
        }
        s.push_str(&format!(
            "{} more variant(s) do not fit; {} left out by the filters\n",
            b.not_fitting, b.filtered_out
        ));
        s
    }

    pub fn train_rank(r: &[TrainCandidate]) -> String {
        let mut s = String::new();
        for (n, c) in r.iter().enumerate() {
            s.push_str(&format!(
                "{:>3}  {:<40} {:<6} {:>12}  {}\n",
                n + 1,
                c.model,
                c.method,
                Bytes::to_string(&c.total),
                if c.fits {
                    "fits".to_string()
                } else {
                    c.reasons.join("; ")
                }
            ));
        }
        s
    }
}
