//! `with=`: other models on the same cards, each run by its own engine instance.
//!
//! The set is checked against each model estimated alone (the same cards, its own engine):
//! the set's bytes per card are this plan's plus each other model's, exactly; a vLLM instance
//! takes its `--gpu-memory-utilization` share whole (vllm/v1/worker/gpu_worker.py,
//! `determine_available_memory`) and this plan's vLLM pool shrinks by it; a shared Ollama server
//! holds every model with one `OLLAMA_NUM_PARALLEL` and `OLLAMA_CONTEXT_LENGTH`. One figure by hand
//! from Qwen3-0.6B's public config (28 layers, 8 KV heads of 128:
//! <https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json>).

use fitcard_estimator::{encode, estimate, from_query, Estimate};

mod common;
use common::term;

fn plan(q: &str) -> (Estimate, Vec<String>) {
    let d = from_query(q);
    let notes = d.notices.iter().map(|n| n.to_string()).collect();
    (estimate(&d.inputs), notes)
}

fn check<'a>(e: &'a Estimate, name: &str) -> &'a fitcard_estimator::Check {
    e.checks
        .iter()
        .find(|c| c.name.id() == name)
        .unwrap_or_else(|| panic!("no {name} check in {:?}", e.checks))
}

const MAIN: &str = "model=Qwen/Qwen3-8B&quant=Q4_K_M&ctx=16384&gpu=rtx-4090";

#[test]
fn each_card_holds_this_plan_and_every_other_model_as_each_runs_alone() {
    let (set, notes) = plan(&format!(
        "{MAIN}&with=Qwen/Qwen3-0.6B:Q8_0:8192:2,google/gemma-3-1b-it:Q4_K_M"
    ));
    assert!(notes.is_empty(), "{notes:?}");
    let (alone, _) = plan(MAIN);
    let (small, _) = plan("model=Qwen/Qwen3-0.6B&quant=Q8_0&ctx=8192&par=2&gpu=rtx-4090");
    let (gemma, _) = plan("model=google/gemma-3-1b-it&quant=Q4_K_M&ctx=16384&gpu=rtx-4090");
    let others = small.per_card[0].bytes.get() + gemma.per_card[0].bytes.get();
    assert_eq!(term(&set, "with_models"), others);
    assert_eq!(
        set.per_card[0].bytes.get(),
        alone.per_card[0].bytes.get() + others
    );
    assert_eq!(
        set.total_device_bytes.get(),
        alone.total_device_bytes.get() + others
    );
    // The JSON's models: this plan first with its own terms, then the others.
    assert_eq!(set.models.len(), 3);
    assert_eq!(set.models[0].model, "Qwen/Qwen3-8B");
    assert_eq!(set.models[0].per_card[0], alone.per_card[0].bytes);
    assert!(set.models[0]
        .terms
        .iter()
        .all(|t| t.name.id() != "with_models"));
    assert_eq!(set.models[1].per_card[0], small.per_card[0].bytes);
    // By hand: 2 slots × 8192 cells × 28 layers × 8 KV heads × 128 × (K + V) × 2 B (f16).
    let kv = set.models[1]
        .terms
        .iter()
        .find(|t| t.name.id() == "kv_cache")
        .unwrap();
    assert_eq!(kv.bytes.get(), 2 * 8192 * 28 * 8 * 128 * 2 * 2);
    assert_eq!(set.models[2].ctx, 16384, "the context follows the plan's");
    assert_eq!(set.models[2].par, 1, "one request unless given");
    assert!(check(&set, "with_models").ok);
    // Each model's own server: this plan's on the default port, the others on ports of their
    // own; the set's command runs them all under one router.
    assert!(!set.models[0].command.contains("--port"));
    assert!(set.models[1].command.contains("-c 16384 -np 2"));
    assert!(set.models[1].command.ends_with("--port 8081"));
    assert!(set.models[2].command.ends_with("--port 8082"));
    assert!(set
        .command
        .ends_with("\nllama-server --models-preset models.ini --models-max 3"));
}

/// The router's preset file (llama.cpp tools/server/README.md, "Model presets"): one section
/// per model, named by its `-hf`, whose keys are exactly the arguments of that model's own
/// server without their dashes (its port left to the router), read back here by the INI rules
/// of common/preset.cpp (a flag without a value is `true`).
#[test]
fn llama_cpp_instances_run_under_one_router_with_each_ones_own_arguments() {
    let (set, _) = plan(&format!(
        "{MAIN}&with=Qwen/Qwen3-0.6B:Q8_0:16384:2,Qwen/Qwen3-Embedding-0.6B:Q8_0"
    ));
    let ini = set
        .command
        .strip_prefix("cat > models.ini <<'EOF'\n")
        .and_then(|s| s.split_once("\nEOF\n"))
        .map(|(ini, _)| ini)
        .unwrap_or_else(|| panic!("{}", set.command));
    let sections: Vec<&str> = ini.split("\n\n").collect();
    assert_eq!(sections.len(), set.models.len());
    for (section, m) in sections.iter().zip(&set.models) {
        let mut lines = section.lines();
        let name = lines.next().unwrap();
        let mut args = vec!["llama-server".to_string()];
        for l in lines {
            let (k, v) = l.split_once(" = ").unwrap();
            if k == "load-on-startup" {
                assert_eq!(v, "true");
                continue;
            }
            // This plan's flags: the short ones (-hf, -c, -ub …) have one dash.
            let dashes = if k.len() <= 3 { "-" } else { "--" };
            args.push(format!("{dashes}{k}"));
            if v != "true" {
                args.push(v.to_string());
            }
        }
        let own = m.command.split(" --port ").next().unwrap();
        assert_eq!(args.join(" "), own, "{name}");
        let hf = own.split(' ').nth(2).unwrap();
        assert_eq!(name, format!("[{hf}]"));
    }
    // The same file twice (another context of this model) is a second model of the router.
    let (twice, _) = plan(&format!(
        "{MAIN}&with=Qwen/Qwen3-8B:Q4_K_M:4096,Qwen/Qwen3-8B:Q4_K_M:2048"
    ));
    assert!(twice
        .command
        .contains("[bartowski/Qwen_Qwen3-8B-GGUF:Q4_K_M#3]\n"));
    assert!(twice
        .command
        .contains("[bartowski/Qwen_Qwen3-8B-GGUF:Q4_K_M]\nhf = "));
    assert!(
        twice
            .command
            .contains("[bartowski/Qwen_Qwen3-8B-GGUF:Q4_K_M#2]\nhf = bartowski/Qwen_Qwen3-8B-GGUF:Q4_K_M\nngl = 999\nc = 4096"),
        "{}",
        twice.command
    );
    // A set with one llama-server keeps its ports (vLLM's instance beside it).
    let (mixed, _) = plan(&format!("{MAIN}&with=Qwen/Qwen3-0.6B:BF16@vllm"));
    assert!(!mixed.command.contains("models.ini"), "{}", mixed.command);
}

#[test]
fn the_verdict_names_the_model_that_does_not_fit() {
    let (e, _) = plan(&format!("{MAIN}&with=Qwen/Qwen3-32B:Q4_K_M:40960"));
    assert!(!e.fits);
    assert!(!check(&e, "vram_per_card").ok);
    let w = check(&e, "with_models");
    assert!(!w.ok);
    assert!(
        w.message.contains("this model alone fits")
            && w.message
                .contains("Qwen/Qwen3-32B does not fit or start by itself"),
        "{}",
        w.message
    );
    // Two that fit alone but not together: the set's check holds, the card's fails.
    let (e, _) = plan(&format!("{MAIN}&with=Qwen/Qwen3-14B:Q8_0:32768"));
    assert!(!e.fits, "{:?}", e.per_card);
    assert!(check(&e, "with_models").ok);
    assert!(check(&e, "with_models")
        .message
        .contains("this model alone fits, the others take"));
}

#[test]
fn a_vllm_instance_takes_its_utilization_share_and_the_plan_gets_the_rest() {
    let q = "model=Qwen/Qwen3-8B&quant=BF16&engine=vllm&ctx=16384&gpu=h100-sxm";
    let (set, notes) = plan(&format!("{q}&with=Qwen/Qwen3-0.6B:BF16:8192:4"));
    assert!(notes.is_empty(), "{notes:?}");
    let (alone, _) = plan(q);
    let (small, _) =
        plan("model=Qwen/Qwen3-0.6B&quant=BF16&engine=vllm&ctx=8192&par=4&gpu=h100-sxm");
    let cap = set.per_card[0].capacity.get();
    let need = small.per_card[0].bytes.get();
    let util = set.models[1].util.unwrap();
    // The smallest utilization in hundredths that holds the instance's own plan.
    assert!(util * cap as f64 >= need as f64 && (util - 0.01) * (cap as f64) < need as f64);
    let share = set.models[1].per_card[0].get();
    assert!(share.abs_diff((cap as f64 * util) as u64) <= 1);
    // This plan's pool shrinks by that share (to within the pool's page rounding).
    let shrunk = alone.kv_pool_bytes.unwrap().get() - set.kv_pool_bytes.unwrap().get();
    let page = 36 * 16 * 8 * 128 * 2 * 2;
    assert!(shrunk.abs_diff(share) < page, "{shrunk} vs {share}");
    // The commands: this plan's vLLM gets what the other leaves of 0.9.
    let main_util = set.models[0].util.unwrap();
    assert!(
        (main_util - (0.9 - util)).abs() < 0.011,
        "{main_util} {util}"
    );
    let lines: Vec<&str> = set.command.lines().collect();
    assert!(lines[0].contains(&format!("--gpu-memory-utilization {main_util}")));
    assert!(lines[1].contains(&format!("--gpu-memory-utilization {util} --port 8001")));
}

#[test]
fn one_ollama_server_holds_every_model_it_runs() {
    let (e, notes) = plan(
        "model=Qwen/Qwen3-8B&engine=ollama&ctx=8192&par=2&gpu=rtx-4090&with=Qwen/Qwen3-0.6B:Q8_0",
    );
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!((e.models[1].ctx, e.models[1].par), (8192, 2));
    assert_eq!(
        e.command.matches("ollama serve").count(),
        1,
        "{}",
        e.command
    );
    assert!(e.command.starts_with("OLLAMA_MAX_LOADED_MODELS=2 "));
    assert!(e
        .command
        .ends_with("ollama run hf.co/bartowski/Qwen_Qwen3-0.6B-GGUF:Q8_0"));
    // A slot count or context of its own is said and replaced by the server's.
    let (_, notes) = plan("model=Qwen/Qwen3-8B&engine=ollama&with=Qwen/Qwen3-0.6B:Q8_0:4096:3");
    assert_eq!(
        notes,
        [
            "with: Qwen/Qwen3-0.6B shares the Ollama server's OLLAMA_NUM_PARALLEL=1",
            "with: Qwen/Qwen3-0.6B shares the Ollama server's OLLAMA_CONTEXT_LENGTH=8192"
        ]
    );
}

#[test]
fn links_round_trip_and_old_links_are_unchanged() {
    let q =
        "model=Qwen/Qwen3-8B&with=Qwen/Qwen3-0.6B:Q8_0:8192:4,google/gemma-3-1b-it::2048@ollama";
    let d = from_query(q);
    let back = encode(&d.inputs);
    assert!(
        back.contains("&with=Qwen/Qwen3-0.6B:Q8_0:8192:4,google/gemma-3-1b-it:Q4_K_M:2048@ollama"),
        "{back}"
    );
    assert_eq!(from_query(&back).inputs, d.inputs);
    let plain = encode(&from_query("model=Qwen/Qwen3-8B").inputs);
    assert!(!plain.contains("with="), "{plain}");
}

#[test]
fn what_is_not_estimated_is_refused_by_name_and_the_rest_kept() {
    let (e, notes) = plan(
        "model=Qwen/Qwen3-8B&with=nope/x,Qwen/Qwen3-0.6B:Q8_0:abc,Qwen/Qwen3-0.6B:Q8_0@sglang,google/gemma-3-1b-it,a,b",
    );
    let all = notes.join(" | ");
    assert!(
        all.contains("\"nope/x\" is not in the catalog; left out"),
        "{all}"
    );
    assert!(
        all.contains("\"abc\" is not a whole number; left out"),
        "{all}"
    );
    assert!(
        all.contains("more than 4 models; the rest left out"),
        "{all}"
    );
    assert!(
        all.contains("on SGLang beside other models is not estimated yet"),
        "{all}"
    );
    assert_eq!(e.models.len(), 2, "the gemma entry kept");
    let (e, notes) = plan("model=Qwen/Qwen3-8B&engine=sglang&quant=BF16&with=Qwen/Qwen3-0.6B");
    assert!(e.models.is_empty());
    assert!(
        notes[0].contains("beside one on SGLang are not estimated yet"),
        "{notes:?}"
    );
    // A format the other model's engine does not load: the nearest, said.
    let (e, notes) = plan("model=Qwen/Qwen3-8B&with=Qwen/Qwen3-0.6B:Q8_0@vllm");
    assert_eq!(e.models[1].quant, "FP8");
    assert!(
        notes[0].starts_with("with: Qwen/Qwen3-0.6B: Q8_0"),
        "{notes:?}"
    );
}

#[test]
fn on_two_cards_each_other_model_splits_as_it_would_alone() {
    let q = "model=Qwen/Qwen3-14B&quant=Q8_0&ctx=16384&gpu=rtx-4090&cards=2";
    let (set, _) = plan(&format!("{q}&with=Qwen/Qwen3-8B:Q8_0"));
    let (alone, _) = plan(q);
    let (other, _) = plan("model=Qwen/Qwen3-8B&quant=Q8_0&ctx=16384&gpu=rtx-4090&cards=2");
    for k in 0..2 {
        assert_eq!(
            set.per_card[k].bytes.get(),
            alone.per_card[k].bytes.get() + other.per_card[k].bytes.get()
        );
    }
    // Its command splits it over both cards as its own would.
    assert!(set.models[1].command.contains("-ts 1,1 --port 8081"));
    assert!(
        set.command.contains("\nsm = row\nts = 1,1\n"),
        "{}",
        set.command
    );
}

/// The set holds at least what its parts hold alone, on every card: exactly their sum where
/// each instance allocates its own plan (llama.cpp), at least it where a vLLM instance takes a
/// rounded-up share of the card.
#[test]
fn a_set_never_holds_less_than_its_parts_alone() {
    let mains = [
        "model=Qwen/Qwen3-8B&quant=Q4_K_M",
        "model=google/gemma-3-12b-it&quant=Q4_K_M",
        "model=Qwen/Qwen3-30B-A3B&quant=Q4_K_M",
    ];
    let others = [
        ("Qwen/Qwen3-0.6B", "Q8_0", "llama.cpp"),
        ("Qwen/Qwen3-Embedding-0.6B", "Q8_0", "llama.cpp"),
        ("Qwen/Qwen3-0.6B", "BF16", "vllm"),
        ("google/gemma-3-1b-it", "Q4_K_M", "llama.cpp"),
    ];
    let mut checked = 0;
    for main in mains {
        for cards in [
            "gpu=rtx-4090&cards=1",
            "gpu=rtx-3090&cards=2",
            "gpu=h100-sxm&cards=1",
        ] {
            for &(model, quant, engine) in &others {
                for (ctx, par) in [(4096, 1), (16384, 3)] {
                    let base = format!("{main}&{cards}&ctx=8192");
                    let (set, notes) =
                        plan(&format!("{base}&with={model}:{quant}:{ctx}:{par}@{engine}"));
                    assert!(notes.is_empty(), "{notes:?}");
                    let (alone, _) = plan(&base);
                    let (part, _) = plan(&format!(
                        "model={model}&quant={quant}&{cards}&ctx={ctx}&par={par}&engine={engine}"
                    ));
                    for k in 0..set.per_card.len() {
                        let sum = alone.per_card[k].bytes.get() + part.per_card[k].bytes.get();
                        let got = set.per_card[k].bytes.get();
                        if engine == "vllm" {
                            // The share, in hundredths of the card, holds the plan: at most one
                            // hundredth above it.
                            let cap = set.per_card[k].capacity.get();
                            assert!(
                                got >= sum && got - sum <= cap / 100 + 1,
                                "{base} {model}: {got} vs {sum}"
                            );
                        } else {
                            assert_eq!(got, sum, "{base} with {model} card {k}");
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked >= 80, "{checked}");
}

#[test]
fn this_plan_fits_alone_exactly_when_its_estimate_without_the_others_fits() {
    // Qwen3-32B BF16 on one H100 at 40,960 tokens: vLLM's pool (util 0.9 of the card less the
    // weights and the profiled peak) cannot hold one request of that length, so vLLM refuses
    // to start even with the card to itself; at 8,192 it starts alone.
    for q in [
        "model=Qwen/Qwen3-32B&quant=BF16&engine=vllm&gpu=h100-sxm&ctx=40960",
        "model=Qwen/Qwen3-32B&quant=BF16&engine=vllm&gpu=h100-sxm&ctx=8192",
        MAIN,
        "model=Qwen/Qwen3-8B&quant=BF16&ctx=131072&gpu=rtx-4090",
    ] {
        let (alone, _) = plan(q);
        let (set, _) = plan(&format!("{q}&with=Qwen/Qwen3-0.6B:Q8_0:4096"));
        assert_eq!(set.models[0].fits_alone, alone.fits, "{q}");
    }
    let (starts, _) = plan("model=Qwen/Qwen3-32B&quant=BF16&engine=vllm&gpu=h100-sxm&ctx=40960");
    assert!(!check(&starts, "vllm_startup").ok);
}

/// The same set under llama-swap (github.com/mostlygeek/llama-swap, docs/config.example.yaml):
/// one `models` entry per model whose `cmd` is that model's own llama-server command with the
/// port llama-swap gives (`${PORT}`), one group of them all that runs together (`swap: false`),
/// each preloaded at start; the memory is the set's, as under llama.cpp's router. Read back line
/// by line here; a set with a model on another engine has none.
#[test]
fn llama_cpp_instances_run_together_under_llama_swap() {
    let (set, _) = plan(&format!(
        "{MAIN}&with=Qwen/Qwen3-0.6B:Q8_0:16384:2,Qwen/Qwen3-Embedding-0.6B:Q8_0,Qwen/Qwen3-0.6B:Q8_0:4096"
    ));
    let swap = set
        .commands
        .iter()
        .find(|c| c.engine == "llama-swap")
        .unwrap_or_else(|| panic!("{:?}", set.commands));
    assert_eq!(swap.device_bytes, set.commands[0].device_bytes);
    assert_eq!(swap.fits, set.fits);
    let (yaml, start) = swap
        .command
        .strip_prefix("cat > config.yaml <<'EOF'\n")
        .and_then(|s| s.split_once("EOF\n"))
        .unwrap_or_else(|| panic!("{}", swap.command));
    assert_eq!(start, "llama-swap --config config.yaml --listen :8080");
    let lines: Vec<&str> = yaml.lines().collect();
    let cmds: Vec<&str> = lines
        .windows(2)
        .filter(|w| w[0] == "    cmd: |")
        .map(|w| w[1].trim_start())
        .collect();
    let ids: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("  \"") && l.ends_with("\":"))
        .map(|l| l.trim().trim_end_matches(':').to_string())
        .collect();
    assert_eq!(cmds.len(), set.models.len());
    for (cmd, m) in cmds.iter().zip(&set.models) {
        let own = m.command.split(" --port ").next().unwrap();
        let rest = own.strip_prefix("llama-server ").unwrap();
        assert_eq!(*cmd, format!("llama-server --port ${{PORT}} {rest}"));
    }
    // Names without the owner, the same file's second copy numbered.
    assert_eq!(ids[0], "\"Qwen_Qwen3-8B-GGUF:Q4_K_M\"");
    assert_eq!(ids[3], format!("{}-2\"", ids[1].trim_end_matches('"')));
    let list = format!("[{}]", ids.join(", "));
    assert!(yaml.contains(&format!(
        "        together:\n          swap: false\n          exclusive: true\n          members: {list}\n"
    )));
    assert!(yaml.ends_with(&format!("hooks:\n  on_startup:\n    preload: {list}\n")));
    // One model alone, or a set with a vLLM instance: no llama-swap entry.
    for q in [
        MAIN.to_string(),
        format!("{MAIN}&with=Qwen/Qwen3-0.6B:BF16@vllm"),
    ] {
        let (e, _) = plan(&q);
        assert!(e.commands.iter().all(|c| c.engine != "llama-swap"), "{q}");
    }
}
