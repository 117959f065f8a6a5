//! The other models of `with=` on the cards (each sized by the pipeline as an estimate of its
//! own, kept in [`Sizing`]'s list): what they hold on each card, and what a vLLM instance of
//! this plan is given beside them.

#[cfg(feature = "extras")]
use crate::inputs::Inputs;
#[cfg(feature = "extras")]
use crate::serve::sizing::with_on;
use crate::serve::sizing::Sizing;
use crate::units::Bytes;

/// The bytes the other models of `with=` hold on every card together.
#[cfg(feature = "extras")]
pub(crate) fn with_total(s: &Sizing) -> Bytes {
    (0..s.capacities.len()).fold(Bytes::ZERO, |t, k| t + with_on(s, k))
}

/// A build without the `extras` feature has no other models on the cards.
#[cfg(not(feature = "extras"))]
pub(crate) fn with_total(_: &Sizing) -> Bytes {
    Bytes::ZERO
}

/// vLLM and SGLang beside the models of `with=`: the `--gpu-memory-utilization` this plan's
/// instance is given, its budget less the largest share of a card the others take (in
/// hundredths, rounded down), so that its pool is what is left to it.
#[cfg(feature = "extras")]
pub(crate) fn main_util(i: &Inputs, s: &Sizing) -> f64 {
    let taken = (0..s.capacities.len())
        .map(|k| with_on(s, k).0 as f64 / s.capacities[k].0.max(1) as f64)
        .fold(0.0, f64::max);
    (((i.util - taken) * 100.0 + 1e-9).floor() / 100.0).max(0.0)
}

/// The set's commands: this plan's, then each other model's; on a shared Ollama server,
/// `OLLAMA_MAX_LOADED_MODELS` (envconfig/config.go; its default of three per GPU may not
/// count a set on one card the way it is planned) set to the models it holds; two or more
/// llama-server instances under one router ([`under_router`]).
#[cfg(feature = "extras")]
pub(crate) fn set_command(e: &mut crate::estimate::Estimate) {
    use crate::catalog::engine::Engine;
    let Some(main) = e.models.first_mut() else {
        return;
    };
    main.command.clone_from(&e.command);
    let on_ollama = e
        .models
        .iter()
        .filter(|m| m.engine == Engine::Ollama.id())
        .count();
    let mut lines: Vec<String> = e.models.iter().map(|m| m.command.clone()).collect();
    if on_ollama > 1 {
        if let Some(l) = lines.iter_mut().find(|l| l.contains("ollama serve")) {
            *l = l.replacen(
                "OLLAMA_NUM_PARALLEL",
                &format!("OLLAMA_MAX_LOADED_MODELS={on_ollama} OLLAMA_NUM_PARALLEL"),
                1,
            );
        }
    }
    let servers: Vec<usize> = (0..lines.len())
        .filter(|&k| e.models[k].engine == Engine::LlamaCpp.id())
        .collect();
    if servers.len() > 1 {
        let own: Vec<&str> = servers.iter().map(|&k| lines[k].as_str()).collect();
        if let Some(router) = under_router(&own) {
            let first = servers[0];
            for &k in servers.iter().rev().filter(|&&k| k != first) {
                lines.remove(k);
            }
            lines[first] = router;
        }
    }
    e.command = lines.join("\n");
}

/// Several llama-server instances as llama.cpp's router mode starts them (tools/server/README.md,
/// "Using multiple models"): one `llama-server --models-preset FILE` that runs each model of the
/// preset file in a process of its own, so each holds on the cards what its own server would
/// (the router itself loads no model; its own footprint is not counted). The preset file is an
/// INI file with one section per model whose keys are the command's arguments without their
/// leading dashes, short forms included, a flag written `= true` and a negated flag by its own
/// name (common/preset.cpp `get_map_key_opt`, `parse_bool_arg`); `load-on-startup` loads each
/// at start, and `--models-max` (default 4, least recently used unloaded beyond it) keeps them
/// all. The ports the instances had are the router's to give. `None` when a line is not one
/// llama-server command of flags and values (the instances then keep their own ports).
#[cfg(feature = "extras")]
pub(crate) fn under_router(commands: &[&str]) -> Option<String> {
    let mut sections = commands
        .iter()
        .map(|c| preset_section(c))
        .collect::<Option<Vec<_>>>()?;
    // Each section names one model of the router: the same file twice (two contexts of one
    // model) gets a second name, or the file's later section would replace the first.
    let names: Vec<String> = sections
        .iter()
        .map(|s| s.lines().next().unwrap_or_default().to_string())
        .collect();
    for (k, name) in names.iter().enumerate() {
        let seen = names[..k].iter().filter(|n| *n == name).count();
        if seen > 0 {
            let renamed = format!("{}#{}]", name.trim_end_matches(']'), seen + 1);
            sections[k] = sections[k].replacen(name.as_str(), &renamed, 1);
        }
    }
    let ini = sections.join("\n");
    Some(format!(
        "cat > models.ini <<'EOF'\n{ini}EOF\nllama-server --models-preset models.ini --models-max {}",
        commands.len()
    ))
}

/// One model's section of the router's preset file, named by its Hugging Face repo and format
/// (`-hf`) or its file (`-m`), as the router lists it.
#[cfg(feature = "extras")]
fn preset_section(command: &str) -> Option<String> {
    let mut words = command.strip_prefix("llama-server ")?.split(' ').peekable();
    let mut keys: Vec<(&str, String)> = Vec::new();
    while let Some(w) = words.next() {
        let key = w.trim_start_matches('-');
        if !w.starts_with('-') || key.is_empty() || w.contains(['\n', '[', ']', '=']) {
            return None;
        }
        let value = match words.peek() {
            Some(v) if !v.starts_with('-') => words.next()?.to_string(),
            _ => "true".to_string(),
        };
        if key == "port" {
            continue;
        }
        // A repeated argument (`--lora a --lora b`) takes a comma-separated list.
        match keys.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => {
                v.push(',');
                v.push_str(&value);
            }
            None => keys.push((key, value)),
        }
    }
    let name = keys
        .iter()
        .find(|(k, _)| matches!(*k, "hf" | "m"))
        .map(|(_, v)| v.clone())?;
    let mut s = format!("[{name}]\n");
    for (k, v) in keys {
        s.push_str(&format!("{k} = {v}\n"));
    }
    s.push_str("load-on-startup = true\n");
    Some(s)
}

/// The set's llama-server processes under llama-swap (github.com/mostlygeek/llama-swap), a proxy
/// that starts each model's own command on a port it gives (`${PORT}`, README "Getting
/// started"): one group whose members run together (`swap: false`; `exclusive: true` keeps any
/// other model of the file from joining them), each loaded at start (`hooks.on_startup.preload`),
/// as docs/config.example.yaml and docs/kb/guides/routing/groups-and-matrix.md write them (the
/// `routing.router.settings.groups` form; releases before the `routing` section took the same
/// group as a top-level `groups:`). Each process holds on the cards what its own llama-server
/// would, as under llama.cpp's router; llama-swap loads no model itself. The command sits in a
/// literal block (`cmd: |`), so no character of it needs escaping; a command with a macro of
/// its own (`${`) or of more than one line is not written. `None` unless every model of the set
/// runs on llama-server.
#[cfg(feature = "extras")]
pub(crate) fn under_llama_swap(
    e: &crate::estimate::Estimate,
) -> Option<crate::estimate::EngineCommand> {
    use crate::catalog::engine::Engine;
    if e.models.len() < 2 || e.models.iter().any(|m| m.engine != Engine::LlamaCpp.id()) {
        return None;
    }
    let mut ids: Vec<String> = Vec::new();
    let mut bases: Vec<&str> = Vec::new();
    let mut entries = String::new();
    for m in &e.models {
        let rest = m.command.strip_prefix("llama-server ")?;
        if rest.contains(['\n', '\r']) || rest.contains("${") {
            return None;
        }
        let mut words: Vec<&str> = rest.split(' ').collect();
        if let Some(p) = words.iter().position(|w| *w == "--port") {
            words.drain(p..(p + 2).min(words.len()));
        }
        let file = words
            .windows(2)
            .find(|w| matches!(w[0], "-hf" | "-m"))
            .map(|w| w[1])?;
        // The model's name in requests: its file or repo and format, without the owner (a
        // slash names a peer's model in llama-swap); a second copy of one file is numbered.
        let base = file.rsplit('/').next().unwrap_or(file);
        let id = match bases.iter().filter(|b| **b == base).count() {
            0 => base.to_string(),
            n => format!("{base}-{}", n + 1),
        };
        bases.push(base);
        entries.push_str(&format!(
            "  \"{id}\":\n    cmd: |\n      llama-server --port ${{PORT}} {}\n",
            words.join(" ")
        ));
        ids.push(id);
    }
    let list = ids
        .iter()
        .map(|i| format!("\"{i}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let yaml = format!(
        "models:\n{entries}routing:\n  router:\n    use: group\n    settings:\n      groups:\n        \
         together:\n          swap: false\n          exclusive: true\n          members: [{list}]\n\
         hooks:\n  on_startup:\n    preload: [{list}]\n"
    );
    Some(crate::estimate::EngineCommand {
        engine: "llama-swap",
        command: format!(
            "cat > config.yaml <<'EOF'\n{yaml}EOF\nllama-swap --config config.yaml --listen :8080"
        ),
        device_bytes: e.commands.first()?.device_bytes,
        fits: e.fits,
        differs: vec![
            "the same llama-server processes as the router's, started and kept loaded together \
             by llama-swap"
                .to_string(),
        ],
    })
}
