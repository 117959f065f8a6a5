//! The measuring loop for each engine, as shell text, at contexts chosen for the slope.

use super::kv_rate;
use crate::catalog::engine::Engine;
use crate::catalog::{catalog, Variant};
use crate::inputs::{quote, Inputs};
use crate::units::Fixed;
use std::fmt::Write;

/// Contexts to measure at: four, evenly spaced, every one past the sliding window (where the
/// sliding layers have stopped growing, so the slope is the global layers' alone), the longest
/// at most 32,768 tokens and one that fits the chosen cards at concurrency 1.
pub fn measuring_contexts(i: &Inputs) -> Result<Vec<u32>, String> {
    use crate::solve::{solve, Target};
    let v = variant(i)?;
    let mut j = i.clone();
    j.par = 1;
    j.mode = crate::inputs::Mode::Serve;
    let fits: u32 = solve(&j, Target::Ctx)
        .value
        .and_then(|c| c.parse().ok())
        .ok_or("the model does not fit these cards at concurrency 1: nothing to measure")?;
    let top = fits.min(32768) / 1024 * 1024;
    // Past the window and one micro-batch (llama.cpp's sliding cache holds window + ubatch).
    let floor = v
        .arch
        .swa
        .map_or(0, |w| (w.window + i.ubatch.max(512)).div_ceil(1024) * 1024)
        .max(256);
    // Doubling up to the top (a wide spread keeps reading noise out of the slope) when the
    // window allows, else evenly spaced above it.
    if top / 8 >= floor {
        return Ok(vec![top / 8, top / 4, top / 2, top]);
    }
    if top < floor + 3 * 256 {
        return Err(format!(
            "the longest context that fits ({fits} tokens) leaves no room above {floor} tokens for three points"
        ));
    }
    let step = (top - floor) / 3;
    Ok((0..4).map(|k| (floor + k * step) / 256 * 256).collect())
}

/// The measuring loop for the chosen engine and model, as shell text: one fresh engine per
/// context with concurrency pinned to 1 (`-np 1`, `OLLAMA_NUM_PARALLEL=1`, `--max-num-seqs 1`,
/// `--max-running-requests 1`), wait for the model to load, run one inference, then read the
/// card. llama.cpp, Ollama and transformers print `CTX:GIB` lines for `fitcard measure`; vLLM and
/// SGLang allocate their KV pool up front (sized by the memory fraction, not the context), so
/// nvidia-smi reads the same at every context: their loop reads the pool's bytes and tokens
/// from the startup log instead, which give the KV bytes per token directly.
pub fn how_to_measure(i: &Inputs) -> Result<String, String> {
    let v = variant(i)?;
    let ctxs = measuring_contexts(i)?;
    let top = *ctxs.last().unwrap_or(&8192);
    let mut j = i.clone();
    j.par = 1;
    j.ctx = top;
    j.mode = crate::inputs::Mode::Serve;
    let e = crate::serve::estimate(&j);
    if e.command.is_empty() {
        return Err(format!("no {} command for {} {}", i.engine, v.id, i.quant));
    }
    let list: Vec<String> = ctxs.iter().map(u32::to_string).collect();
    let list = list.join(" ");
    let cmd = at_any_context(&e.command, top);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Measuring {} ({}, {}) on {}: concurrency pinned to 1, one fresh engine per context,",
        v.id, i.quant, i.kv, i.engine
    );
    let _ = writeln!(
        s,
        "# read after the model has loaded and answered one request. Nothing else on the card."
    );
    match i.engine {
        Engine::LlamaCpp => llama_loop(&mut s, &list, &cmd),
        Engine::Ollama => ollama_loop(&mut s, &list, &cmd),
        Engine::Vllm | Engine::Sglang => {
            pool_loop(&mut s, i.engine, &list, &cmd, kv_rate(&v.arch, i.kv));
        }
        Engine::Mlx => {
            let repo = e.command.split_whitespace().nth(2).unwrap_or(&v.id);
            mlx_loop(&mut s, &list, repo);
        }
        Engine::Transformers => transformers_loop(&mut s, &list, &v.id),
    }
    if matches!(
        i.engine,
        Engine::LlamaCpp | Engine::Ollama | Engine::Transformers | Engine::Mlx
    ) {
        then_fit(&mut s, i, &v.id);
    }
    Ok(s.trim_end().to_string())
}

/// The catalog's variant of `i.model`.
fn variant(i: &Inputs) -> Result<&'static Variant, String> {
    catalog()
        .variant(&i.model)
        .map(|(_, v)| v)
        .ok_or_else(|| format!("model {} is not in the catalog", quote(&i.model)))
}

/// The engine's command for context `top` with the context as the loop's `$C`.
fn at_any_context(command: &str, top: u32) -> String {
    command
        .replace(&format!(" -c {top} "), " -c $C ")
        .replace(
            &format!("OLLAMA_CONTEXT_LENGTH={top}"),
            "OLLAMA_CONTEXT_LENGTH=$C",
        )
        .replace(&format!("--max-model-len {top} "), "--max-model-len $C ")
        .replace(&format!("--context-length {top} "), "--context-length $C ")
}

/// All cards' memory in use, GiB, as nvidia-smi reports it.
const SMI: &str = "nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | awk '{s+=$1} END {printf \"%.3f\", s/1024}'";

/// The end of a loop that reads the card: a `CTX:GIB` line, then the engine stopped.
fn read_card_then_stop(s: &mut String) {
    let _ = writeln!(s, "  sleep 2; echo \"$C:$({SMI})\"");
    let _ = writeln!(s, "  kill $PID; wait $PID");
    let _ = writeln!(s, "done");
}

/// llama.cpp: one server per context, its health endpoint, one completion.
fn llama_loop(s: &mut String, list: &str, cmd: &str) {
    let _ = writeln!(s, "for C in {list}; do");
    let _ = writeln!(s, "  {cmd} --port 8080 &  # -np 1: one slot");
    let _ = writeln!(s, "  PID=$!");
    let _ = writeln!(
        s,
        "  until curl -sf localhost:8080/health >/dev/null; do sleep 1; done  # loaded"
    );
    let _ = writeln!(s, "  curl -s localhost:8080/completion -d '{{\"prompt\": \"Hello\", \"n_predict\": 16}}' >/dev/null  # one inference");
    read_card_then_stop(s);
}

/// Ollama: one server per context (the command is `ENV… ollama serve` then `ollama run MODEL`),
/// one run that loads the model and answers.
fn ollama_loop(s: &mut String, list: &str, cmd: &str) {
    let (serve, run) = cmd.split_once('\n').unwrap_or((cmd, ""));
    let _ = writeln!(s, "for C in {list}; do");
    let _ = writeln!(s, "  {serve} &  # OLLAMA_NUM_PARALLEL=1: one slot");
    let _ = writeln!(
        s,
        "  PID=$!; until curl -sf localhost:11434/api/version >/dev/null; do sleep 1; done"
    );
    let _ = writeln!(
        s,
        "  {run} 'Hello' >/dev/null  # loads the model, one inference"
    );
    read_card_then_stop(s);
}

/// vLLM and SGLang: the KV pool from the startup log at each context, and how it gives the
/// global layers (`per_layer`: one global layer's KV bytes per token).
fn pool_loop(s: &mut String, engine: Engine, list: &str, cmd: &str, per_layer: f64) {
    let (port, health, line, rate) = if engine == Engine::Vllm {
        (
            8000,
            "/health",
            "grep -E 'Available KV cache memory|GPU KV cache size' log.txt",
            "KV bytes per token = Available KV cache memory (GiB × 2^30) ÷ GPU KV cache size (tokens)",
        )
    } else {
        (
            30000,
            "/health",
            "grep 'KV Cache is allocated' log.txt",
            "KV bytes per token = (K size + V size) ÷ #tokens",
        )
    };
    let _ = writeln!(
        s,
        "# {engine} sizes its KV pool from the memory fraction, not the context: nvidia-smi reads the same"
    );
    let _ = writeln!(
        s,
        "# at every context. Read the pool from the startup log instead (one run is enough;"
    );
    let _ = writeln!(
        s,
        "# the loop checks that it does not depend on the context)."
    );
    let _ = writeln!(s, "for C in {list}; do");
    let _ = writeln!(
        s,
        "  {cmd} --port {port} > log.txt 2>&1 &  # one sequence at a time"
    );
    let _ = writeln!(
        s,
        "  PID=$!; until curl -sf localhost:{port}{health} >/dev/null; do sleep 2; done"
    );
    let _ = writeln!(s, "  echo \"context $C\"; {line}");
    let _ = writeln!(s, "  kill $PID; wait $PID");
    let _ = writeln!(s, "done");
    let _ = writeln!(s, "# {rate};");
    let _ = writeln!(
        s,
        "# one global layer costs {} bytes per token at this KV type, so gl = that ÷ {}.",
        Fixed(per_layer, 0),
        Fixed(per_layer, 0)
    );
}

/// MLX: a prompt of C tokens into `repo`'s model, its cache kept, Metal's memory read from MLX.
fn mlx_loop(s: &mut String, list: &str, repo: &str) {
    let _ = writeln!(
        s,
        "# MLX allocates the KV cache for the tokens it holds (in steps of 256): a prompt of C"
    );
    let _ = writeln!(
        s,
        "# tokens, its cache kept; Metal's memory is read from MLX itself, not nvidia-smi."
    );
    let _ = writeln!(s, "for C in {list}; do");
    let _ = writeln!(s, "  python - \"$C\" <<'PY'");
    let _ = writeln!(s, "import sys, mlx.core as mx");
    let _ = writeln!(s, "from mlx_lm import load");
    let _ = writeln!(s, "from mlx_lm.generate import generate_step");
    let _ = writeln!(s, "from mlx_lm.models.cache import make_prompt_cache");
    let _ = writeln!(s, "c = int(sys.argv[1])");
    let _ = writeln!(s, "m, _ = load('{repo}')");
    let _ = writeln!(s, "cache = make_prompt_cache(m)");
    let _ = writeln!(s, "next(generate_step(mx.ones((c,), dtype=mx.int32), m, prompt_cache=cache))  # one inference, one sequence");
    let _ = writeln!(s, "mx.clear_cache()");
    let _ = writeln!(s, "print(f'{{c}}:{{mx.get_active_memory() / 2**30:.3f}}')");
    let _ = writeln!(s, "PY");
    let _ = writeln!(s, "done");
}

/// transformers: one forward pass of C tokens through `model` with its cache kept, the card
/// read with nvidia-smi.
fn transformers_loop(s: &mut String, list: &str, model: &str) {
    let _ = writeln!(
        s,
        "# transformers allocates the KV cache for the tokens it holds: a prompt of C tokens,"
    );
    let _ = writeln!(
        s,
        "# its cache kept, the rest freed (needs transformers ≥ 4.50 for logits_to_keep)."
    );
    let _ = writeln!(s, "for C in {list}; do");
    let _ = writeln!(s, "  python - \"$C\" <<'PY'");
    let _ = writeln!(s, "import subprocess, sys, torch");
    let _ = writeln!(s, "from transformers import AutoModelForCausalLM");
    let _ = writeln!(s, "c = int(sys.argv[1])");
    let _ = writeln!(s, "m = AutoModelForCausalLM.from_pretrained('{model}', torch_dtype='auto', device_map='auto')");
    let _ = writeln!(s, "with torch.no_grad():  # one inference, one sequence");
    let _ = writeln!(s, "    out = m(torch.ones((1, c), dtype=torch.long, device=m.device), use_cache=True, logits_to_keep=1)");
    let _ = writeln!(
        s,
        "cache = out.past_key_values; del out; torch.cuda.empty_cache()"
    );
    let _ = writeln!(s, "used = sum(int(x) for x in subprocess.check_output(['nvidia-smi', '--query-gpu=memory.used', '--format=csv,noheader,nounits']).split())");
    let _ = writeln!(s, "print(f'{{c}}:{{used / 1024:.3f}}')");
    let _ = writeln!(s, "PY");
    let _ = writeln!(s, "done");
}

/// For the loops that print `CTX:GIB` lines: the `fitcard measure` call that fits them.
fn then_fit(s: &mut String, i: &Inputs, model: &str) {
    let _ = writeln!(
        s,
        "# Then: fitcard measure 'model={model}&quant={}&engine={}&kv={}&par=1' followed by the printed CTX:GIB points.",
        i.quant, i.engine, i.kv
    );
    let _ = writeln!(
        s,
        "# A constant on the card (a desktop, another process) only moves the intercept, not the slope."
    );
}
