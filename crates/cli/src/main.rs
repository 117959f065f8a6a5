//! `fitcard`: the estimator on the command line, reading the same query string as the page.
//!
//! `report` prints the accuracy report (docs/accuracy.md), `badge` an SVG badge for a model
//! card, `docs` docs/method.md and docs/accuracy.md as HTML pages. `measure` backs out the
//! global-attention layer count from steady-state VRAM readings (GiB, as nvidia-smi shows them)
//! taken at concurrency 1 at three or more context lengths.
//! Unknown keys or bad values: a one-line message naming the key on stderr, exit code 2.
//!
//! The usage text ([`USAGE`]):
#![doc = concat!("```text\n", include_str!("usage.txt"), "```")]

mod args;
mod cost;
mod docs;
mod files;
mod frontier;
mod hub;
mod human;
mod local;
mod measure;
mod ordered;
mod refresh;
mod solve;
mod speed_report;

use fitcard_estimator::inputs::permalink::first_value;
use fitcard_estimator::inputs::{clean, limits, quote, Key};

use fitcard_estimator::{catalog, from_query, rank, Bytes, Inputs, Mode, Notice};

use args::Cli;
use std::process::ExitCode;

/// The usage text, printed (after the reason, where there is one) on a command line fitcard does
/// not read; the module documentation shows the same file.
const USAGE: &str = include_str!("usage.txt").trim_ascii_end();

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
    let answer = Cli::from_env().and_then(|cli| {
        hub::OFFLINE.store(cli.offline, std::sync::atomic::Ordering::Relaxed);
        Ok((run(&cli)?, cli.json))
    });
    match answer {
        Ok((out, json)) => {
            print_out(&out, json);
            ExitCode::SUCCESS
        }
        Err(msg) => {
            print_err(&msg);
            // 3: the network (or the cache offline) failed; 2: the input is refused.
            let network = hub::NETWORK_FAILED.load(std::sync::atomic::Ordering::Relaxed);
            ExitCode::from(if network { 3 } else { 2 })
        }
    }
}

/// The command line's answer (text or JSON), or why it is refused.
fn run(cli: &Cli) -> Result<String, String> {
    let words: Vec<&str> = cli.words.iter().map(String::as_str).collect();
    let json = cli.json;
    // `--file PATH`: estimate a local GGUF file instead of a catalog model.
    if let Some(path) = &cli.file {
        cli.only_flags_of("estimate")?;
        return local::estimate_file(&words, path, json);
    }
    cli.only_flags_of(words.first().copied().unwrap_or_default())?;
    match words.as_slice() {
        ["measure", query, points @ ..] => measure::measure(query, points, cli.how, json),
        ["solve", query, rest @ ..] => solve::solve(query, rest, cli.target.as_deref(), json),
        ["frontier", query, rest @ ..] => frontier::frontier(query, rest, cli.svg, json),
        ["docs", out, rest @ ..] => {
            let src = rest.first().copied().unwrap_or("docs");
            docs::write_all(std::path::Path::new(out), std::path::Path::new(src))
        }
        ["inspect", path] => local::inspect(path, json),
        ["cost", query] => cost::cost(query, json),
        ["catalog", "refresh", rest @ ..] if rest.len() <= 2 => refresh::run(rest),
        [cmd] => query_command(cmd, "", json),
        [cmd, query] => query_command(cmd, query, json),
        _ => Err(USAGE.into()),
    }
}

/// The commands that read one query or none: `badge`, `report`, `catalog`, and the estimates
/// ([`answer`]).
fn query_command(cmd: &str, query: &str, json: bool) -> Result<String, String> {
    match cmd {
        "badge" => badge(query),
        "report" if query.is_empty() => Ok(report()),
        "catalog" if json => Ok(to_json(catalog())),
        "catalog" => Ok(catalog_table()),
        _ => answer(cmd, query, json),
    }
}

/// `fitcard badge '<query>'`: the SVG badge of the estimate.
fn badge(query: &str) -> Result<String, String> {
    let i = inputs(query)?;
    let e = fitcard_estimator::evaluate(&i);
    Ok(fitcard_estimator::badge::svg(&e, &i).trim_end().to_string())
}

/// `fitcard report`: the accuracy report and the speed section.
fn report() -> String {
    format!(
        "{}\n\n{}",
        fitcard_estimator::accuracy::report().trim_end(),
        speed_report::section().trim_end()
    )
}

/// `estimate`, `rank` and `best` on the query's inputs; any other command is unknown (after the
/// query is checked, so a bad key is named first).
fn answer(cmd: &str, query: &str, json: bool) -> Result<String, String> {
    // `best` ranks every family: the model and format it would fall back to are not used, so
    // what the notices say of them (the default model has no MLX files) is no reason to refuse.
    let about_the_model = |n: &Notice, i: &Inputs| {
        cmd == "best"
            && (n.key == Key::Model
                || n.key == Key::Quant
                || n.key == Key::Engine && n.message.starts_with(&format!("{} has no ", i.model)))
    };
    let i = checked_inputs(query, about_the_model)?;
    match (cmd, i.mode) {
        ("estimate", Mode::Serve) => {
            let e = fitcard_estimator::serve::estimate_full(&i);
            Ok(if json {
                // The plan's rent where its card type has a published price (`cost`, last).
                #[derive(serde::Serialize)]
                struct WithCost<'a> {
                    #[serde(flatten)]
                    e: &'a fitcard_estimator::Estimate,
                    #[serde(skip_serializing_if = "Option::is_none")]
                    cost: Option<serde_json::Value>,
                }
                to_json(&WithCost {
                    cost: cost::of_estimate(&i, &e),
                    e: &e,
                })
            } else {
                let text = human::estimate(&e);
                match cost::line(&i, &e) {
                    Some(l) => format!("{}\n{l}", text.trim_end()),
                    None => text,
                }
            })
        }
        ("estimate", Mode::Train) => {
            let e = fitcard_estimator::train::estimate(&i);
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
            let r = fitcard_estimator::train::rank(&i);
            Ok(if json {
                to_json(&r)
            } else {
                human::train_rank(&r)
            })
        }
        _ => Err(format!("unknown command {}\n{USAGE}", quote(cmd))),
    }
}

/// The query's inputs. A notice (a bad key or value, which the library replaces with its
/// default) refuses the query, naming the key, unless `ignored` says it does not matter here.
fn checked_inputs(
    query: &str,
    ignored: impl Fn(&Notice, &Inputs) -> bool,
) -> Result<Inputs, String> {
    import_named_repo(query)?;
    checked_catalog_inputs(query, ignored)
}

/// [`checked_inputs`] on the catalog as it is (no Hub read: `--file` names the model).
fn checked_catalog_inputs(
    query: &str,
    ignored: impl Fn(&Notice, &Inputs) -> bool,
) -> Result<Inputs, String> {
    let (d, computed) = fitcard_estimator::inputs::permalink::from_query_computing(query);
    if let Some((q, Err(why))) = computed {
        let n = Notice {
            key: Key::Quant.into(),
            message: format!("{q} is not published for {}: {why}", d.inputs.model),
        };
        if !ignored(&n, &d.inputs) {
            return Err(format!("bad parameter {n}"));
        }
    }
    match d.notices.iter().find(|n| !ignored(n, &d.inputs)) {
        Some(n) => Err(format!("bad parameter {n}")),
        None => Ok(d.inputs),
    }
}

/// A `model=` the catalog lacks that reads as a Hub repo id (`org/name`) is read from the Hub
/// (its `rev=` and `file=` with it, for the query's engine) and joins the catalog, so the query
/// estimates it ([`hub::import`]); one line when it cannot be read.
fn import_named_repo(query: &str) -> Result<(), String> {
    let Some(model) = first_value(query, "model") else {
        return Ok(());
    };
    let (rev, file) = (first_value(query, "rev"), first_value(query, "file"));
    let Some(t) = hub::target(&model, rev.as_deref(), file.as_deref()) else {
        return Ok(());
    };
    hub::import(&t, from_query(query).inputs.engine)
}

/// The query's inputs, any notice a refusal ([`checked_inputs`]).
fn inputs(query: &str) -> Result<Inputs, String> {
    checked_inputs(query, |_, _| false)
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
                        fitcard_estimator::catalog::quant::Container::Gguf => "GGUF",
                        fitcard_estimator::catalog::quant::Container::Safetensors => "safetensors",
                        fitcard_estimator::catalog::quant::Container::Mlx => "mlx",
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
