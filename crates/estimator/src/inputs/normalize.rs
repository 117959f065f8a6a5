//! The inputs made consistent with the catalog and the engine, one rule per function: a model
//! or card the catalog lacks, a format the model does not publish for the engine's container, a
//! KV type the engine cannot use, a pin the engine has no setting for, is replaced by the nearest
//! valid value, and each change is said as a [`Notice`]. Run by the permalink decoder, the
//! estimator's entry points and the page after each edit.

use crate::catalog::catalog;
use crate::catalog::engine::{Engine, KvDtype};
use crate::catalog::quant::Quant;
use crate::inputs::{quote, GpuChoice, Inputs, Key, Mode, Notice};

/// Make the inputs consistent with the catalog and the engine (the rules below, in order).
/// Returns what it changed.
pub fn normalize(i: &mut Inputs) -> Vec<Notice> {
    let mut notices = Vec::new();
    for rule in [
        known_model_and_card,
        format_for_the_engine,
        kv_types,
        global_layers,
        offload_and_bandwidth_pins,
        experts_in_ram,
        crate::inputs::spec::speculation,
        serve_adapters,
        co_models,
        images,
        mixed_cards,
        parallel_pins,
        train_gpus,
    ] {
        rule(i, &mut notices);
    }
    notices
}

/// A model or card the catalog lacks: the default one.
fn known_model_and_card(i: &mut Inputs, notices: &mut Vec<Notice>) {
    if catalog().variant(&i.model).is_none() {
        let d = Inputs::default().model;
        notices.push(Notice {
            key: Key::Model.into(),
            message: format!("{} is not in the catalog; using {d}", quote(&i.model)),
        });
        i.model = d;
    }
    if let GpuChoice::Catalog(id) = &i.gpu {
        if catalog().gpu(id).is_none() {
            let d = Inputs::default().gpu;
            notices.push(Notice {
                key: Key::Gpu.into(),
                message: format!("{} is not in the catalog; using {d}", quote(id)),
            });
            i.gpu = d;
        }
    }
}

/// A format the model does not publish for the engine's container: the nearest precision it
/// does publish, or say it has none.
fn format_for_the_engine(i: &mut Inputs, notices: &mut Vec<Notice>) {
    let Some((_, v)) = catalog().variant(&i.model) else {
        return;
    };
    let container = i.engine.container();
    let has = |q: Quant| {
        v.formats
            .iter()
            .any(|f| f.id == q && f.container == container)
    };
    if !has(i.quant) {
        // Nearest precision among the formats this engine can load.
        let best = v
            .formats
            .iter()
            .filter(|f| f.container == container)
            .min_by(|a, b| {
                let da = (a.id.precision_bits() - i.quant.precision_bits()).abs();
                let db = (b.id.precision_bits() - i.quant.precision_bits()).abs();
                da.total_cmp(&db)
            });
        match best {
            Some(f) => {
                notices.push(Notice {
                    key: Key::Quant.into(),
                    message: format!(
                        "{} is not published for {} on {}; using {}",
                        i.quant, v.id, i.engine, f.id
                    ),
                });
                i.quant = f.id;
            }
            None => notices.push(Notice {
                key: Key::Engine.into(),
                message: format!("{} has no {} files in the catalog", v.id, container.label()),
            }),
        }
    }
}

/// KV cache types the engine can use (its own default for `auto`); V apart only where the
/// engine splits them.
fn kv_types(i: &mut Inputs, notices: &mut Vec<Notice>) {
    // The engine's own default: llama.cpp-family engines spell the model's dtype f16.
    let default_kv = if i.engine.llama_family() {
        KvDtype::F16
    } else {
        KvDtype::Auto
    };
    if let Err(why) = i.engine.accepts_kv(i.kv) {
        notices.push(Notice {
            key: Key::Kv.into(),
            message: format!("{why}; using {default_kv}"),
        });
        i.kv = default_kv;
    }
    if i.kv == KvDtype::Auto {
        i.kv = default_kv;
    }
    if let Some(v) = i.kv_v {
        let problem = if !i.engine.splits_kv() {
            Some(format!(
                "{} uses one type for K and V; using {} for both",
                i.engine.label(),
                i.kv
            ))
        } else {
            i.engine
                .accepts_kv(v)
                .err()
                .map(|why| format!("{why}; using {} for V too", i.kv))
        };
        if let Some(message) = problem {
            notices.push(Notice {
                key: Key::Kv.into(),
                message,
            });
            i.kv_v = None;
        } else if v == i.kv {
            i.kv_v = None;
        }
    }
}

/// A measured global-layer count above the layers that hold a KV cache: the catalog's layout.
fn global_layers(i: &mut Inputs, notices: &mut Vec<Notice>) {
    if let (Some(g), Some((_, v))) = (i.gl, catalog().variant(&i.model)) {
        let n = v.arch.kv_owning_layers();
        if g > f64::from(n) {
            notices.push(Notice {
                key: Key::Gl.into(),
                message: format!(
                    "{} global layers is more than the {n} layers of {} that hold a KV cache; using the catalog's layout",
                    crate::units::Shortest(g),
                    v.id
                ),
            });
            i.gl = None;
        }
    }
}

/// Offload pins (llama.cpp and Ollama only) and `bw=` (a free-form card only).
fn offload_and_bandwidth_pins(i: &mut Inputs, notices: &mut Vec<Notice>) {
    // Offload pins: llama.cpp and Ollama only; `bw=` describes a free-form card.
    if (i.ngl.is_some() || i.nkvo) && !i.engine.llama_family() {
        let key = if i.ngl.is_some() { Key::Ngl } else { Key::Nkvo };
        notices.push(Notice {
            key: key.into(),
            message: format!(
                "{} keeps every layer and its KV cache on the cards; ignored",
                i.engine.label()
            ),
        });
        i.ngl = None;
        i.nkvo = false;
    }
    if i.nkvo && i.engine == Engine::Ollama {
        notices.push(Notice {
            key: Key::Nkvo.into(),
            message: "Ollama has no setting that keeps the KV cache in host RAM; ignored".into(),
        });
        i.nkvo = false;
    }
    if i.bw.is_some() && (!matches!(i.gpu, GpuChoice::VramGib(_)) || !i.gpus.is_empty()) {
        notices.push(Notice {
            key: Key::Bw.into(),
            message: "applies to a vram= card; the catalog card's bandwidth is used".into(),
        });
        i.bw = None;
    }
}

/// `loras=`, `lorarank=` (serve-time LoRA adapters): on vLLM and llama.cpp, for the
/// architectures [`crate::terms::lora_adapters`] counts; vLLM's rank is one it accepts
/// (`MaxLoRARanks`: 1, 8, 16, 32, 64, 128, 256, 320, 512, vllm/config/lora.py), the next one up.
#[cfg(feature = "extras")]
fn serve_adapters(i: &mut Inputs, notices: &mut Vec<Notice>) {
    const VLLM_RANKS: [u32; 9] = [1, 8, 16, 32, 64, 128, 256, 320, 512];
    let Some(l) = i.lora.as_mut() else {
        return;
    };
    let mut say = |key: Key, message: String| {
        notices.push(Notice {
            key: key.into(),
            message,
        })
    };
    if l.count == 0 {
        say(Key::Lorarank, "lorarank needs loras=; ignored".into());
        i.lora = None;
        return;
    }
    let arch = catalog().variant(&i.model).map(|(_, v)| &v.arch);
    if let Some(why) = arch.and_then(|a| adapters_refusal(i.engine, a)) {
        say(Key::Loras, why);
        i.lora = None;
        return;
    }
    if i.engine == Engine::Vllm {
        let r = l.rank();
        let up = VLLM_RANKS.iter().copied().find(|&v| v >= r).unwrap_or(512);
        if up != r {
            say(Key::Lorarank,
                format!("vLLM's --max-lora-rank takes 1, 8, 16, 32, 64, 128, 256, 320 or 512; using {up}"),
            );
            l.rank = Some(up);
        }
    }
}

#[cfg(feature = "extras")]
/// Why serve-time adapters ([`crate::terms::lora_adapters`]) on `engine` for `a` are not estimated, if they are not.
fn adapters_refusal(engine: Engine, a: &crate::catalog::Arch) -> Option<String> {
    let why = match engine {
        Engine::Vllm | Engine::LlamaCpp => {
            if a.experts > 1 {
                "on a mixture of experts (vLLM's per-expert FusedMoEWithLoRA stacks, llama.cpp's expert adapters)"
            } else if a.recurrent.is_some() || a.blocks.is_some() {
                "on a model with recurrent layers"
            } else if a.mla.is_some() {
                "on latent attention (MLA)"
            } else {
                return None;
            }
        }
        _ => return Some(format!("serve-time LoRA adapters on {} are not estimated yet (vLLM's and llama.cpp's are); no adapters", engine.label())),
    };
    Some(format!(
        "serve-time LoRA adapters {why} are not estimated yet; no adapters"
    ))
}

#[cfg(not(feature = "extras"))]
fn serve_adapters(_: &mut Inputs, _: &mut Vec<Notice>) {}

/// `images=`: only for a model whose image processor has a rule ([`crate::catalog::images`]).
#[cfg(feature = "extras")]
fn images(i: &mut Inputs, notices: &mut Vec<Notice>) {
    if i.images > 0 && crate::catalog::images::rule(&i.model).is_none() {
        let message = format!("{} takes no images here: fitcard has no published token count for its image processor (text only)", i.model);
        notices.push(Notice {
            key: Key::Images.into(),
            message,
        });
        i.images = 0;
    }
}

#[cfg(not(feature = "extras"))]
fn images(_: &mut Inputs, _: &mut Vec<Notice>) {}

/// `with=` (other models on the same cards): each run by llama.cpp, Ollama or vLLM beside a
/// main model on one of those; a model on the main model's Ollama server shares its
/// `OLLAMA_NUM_PARALLEL` (a server-wide setting, envconfig/config.go).
#[cfg(feature = "extras")]
fn co_models(i: &mut Inputs, notices: &mut Vec<Notice>) {
    if i.with.is_empty() {
        return;
    }
    let runs = |e: Engine| matches!(e, Engine::LlamaCpp | Engine::Ollama | Engine::Vllm);
    if !runs(i.engine) {
        notices.push(Notice {
            key: Key::With.into(),
            message: format!(
                "other models beside one on {} are not estimated yet (llama.cpp, Ollama and vLLM are); left out",
                i.engine.label()
            ),
        });
        i.with.clear();
        return;
    }
    let (main, par, ctx) = (i.engine, i.par, i.ctx);
    i.with.retain_mut(|m| {
        let e = m.engine.unwrap_or(main);
        if !runs(e) {
            notices.push(Notice {
                key: Key::With.into(),
                message: format!(
                    "{} on {} beside other models is not estimated yet (llama.cpp, Ollama and vLLM are); left out",
                    m.model,
                    e.label()
                ),
            });
            return false;
        }
        let shared = e == Engine::Ollama && main == Engine::Ollama;
        if shared && m.par.is_some_and(|p| p != par) {
            notices.push(Notice {
                key: Key::With.into(),
                message: format!(
                    "{} shares the Ollama server's OLLAMA_NUM_PARALLEL={par}",
                    m.model
                ),
            });
            m.par = None;
        }
        if shared && m.ctx.is_some_and(|c| c != ctx) {
            notices.push(Notice {
                key: Key::With.into(),
                message: format!(
                    "{} shares the Ollama server's OLLAMA_CONTEXT_LENGTH={ctx}",
                    m.model
                ),
            });
            m.ctx = None;
        }
        true
    });
    // Each model's own inputs made consistent as the plan's are (a format its engine does not
    // load becomes the nearest it does), said under `with`.
    let plan = i.clone();
    for m in &mut i.with {
        let mut j = m.inputs(&plan);
        for n in normalize(&mut j) {
            notices.push(Notice {
                key: Key::With.into(),
                message: format!("{}: {}", m.model, n.message),
            });
        }
        m.quant = Some(j.quant);
    }
}

#[cfg(not(feature = "extras"))]
fn co_models(_: &mut Inputs, _: &mut Vec<Notice>) {}

/// `ncmoe=` (llama.cpp `--n-cpu-moe` / `--cpu-moe`, vLLM `--cpu-offload-params experts`), on
/// a mixture of experts; 0 layers is no flag.
fn experts_in_ram(i: &mut Inputs, notices: &mut Vec<Notice>) {
    let Some(m) = i.ncmoe else {
        return;
    };
    if m == crate::inputs::CpuMoe::Layers(0) {
        i.ncmoe = None;
        return;
    }
    let moe = catalog()
        .variant(&i.model)
        .is_some_and(|(_, v)| v.arch.experts > 1);
    let why = if !matches!(i.engine, Engine::LlamaCpp | Engine::Vllm) {
        format!(
            "{} has no setting that keeps the experts in system RAM (llama.cpp's --n-cpu-moe, vLLM's --cpu-offload-params experts); ignored",
            i.engine.label()
        )
    } else if !moe {
        format!("{} is not a mixture of experts; ignored", i.model)
    } else {
        return;
    };
    notices.push(Notice {
        key: Key::Ncmoe.into(),
        message: why,
    });
    i.ncmoe = None;
}

/// Mixed cards: the list is the cards.
fn mixed_cards(i: &mut Inputs, notices: &mut Vec<Notice>) {
    // Mixed cards: the list is the cards.
    if !i.gpus.is_empty() {
        let n = i.gpus.len() as u32;
        if i.cards != n && i.cards != 1 {
            notices.push(Notice {
                key: Key::Cards.into(),
                message: format!("ignored: gpus= lists {n} cards"),
            });
        }
        i.cards = n;
        i.gpu = GpuChoice::Catalog(i.gpus[0].clone());
    }
}

/// vLLM and SGLang: a pinned `tp=`/`pp=` must multiply to the cards; `tp=` wins over `pp=`.
fn parallel_pins(i: &mut Inputs, notices: &mut Vec<Notice>) {
    // vLLM and SGLang: a pinned `tp=`/`pp=` must multiply to the cards; `tp=` wins over `pp=`.
    if i.tp.is_some() || i.pp.is_some() {
        let cards = i.cards.max(1);
        let problem = if !i.engine.preallocates() {
            Some(format!(
                "{} has no tensor × pipeline parallel sizes; the pin is ignored",
                i.engine.label()
            ))
        } else if !i.gpus.is_empty() {
            Some("mixed cards run pipeline stages only; the pin is ignored".to_string())
        } else {
            match (i.tp, i.pp) {
                (Some(t), Some(p)) if t.saturating_mul(p) != cards => Some(format!(
                    "tp {t} × pp {p} is not the {cards} cards; using tp {}",
                    if cards.is_multiple_of(t) { t } else { 1 }
                )),
                (Some(t), _) if !cards.is_multiple_of(t) => Some(format!(
                    "tp {t} does not divide the {cards} cards; the split is chosen"
                )),
                (None, Some(p)) if !cards.is_multiple_of(p) => Some(format!(
                    "pp {p} does not divide the {cards} cards; the split is chosen"
                )),
                _ => None,
            }
        };
        if let Some(message) = problem {
            let key = if i.tp.is_some() { Key::Tp } else { Key::Pp };
            notices.push(Notice {
                key: key.into(),
                message,
            });
            match (i.tp, i.pp) {
                (Some(t), Some(_))
                    if i.engine.preallocates() && i.gpus.is_empty() && cards.is_multiple_of(t) =>
                {
                    i.pp = None;
                }
                _ => {
                    i.tp = None;
                    i.pp = None;
                }
            }
        } else if let (Some(_), Some(_)) = (i.tp, i.pp) {
            i.pp = None;
        }
    }
}

/// Train mode: `free` lists the GPUs when given, else `cards` cards do; a pick names each of
/// them at most once.
fn train_gpus(i: &mut Inputs, notices: &mut Vec<Notice>) {
    // Train mode: `free` lists the GPUs when given, else `cards` cards do. A pick must name
    // each of those GPUs at most once.
    let n = if i.train.free.is_empty() {
        i.cards as usize
    } else {
        i.train.free.len()
    };
    if i.mode == Mode::Train && !i.train.pick.is_empty() {
        let out = i.train.pick.iter().find(|&&p| p as usize >= n);
        let twice = i
            .train
            .pick
            .iter()
            .enumerate()
            .find(|(k, p)| i.train.pick[..*k].contains(p));
        let problem = match (out, twice) {
            (Some(p), _) => Some(format!(
                "GPU {p} does not exist (there {} {n}: {}); selecting automatically",
                if n == 1 { "is" } else { "are" },
                if n == 1 {
                    "GPU 0".to_string()
                } else {
                    format!("GPUs 0–{}", n - 1)
                }
            )),
            (None, Some((_, p))) => {
                Some(format!("GPU {p} is listed twice; selecting automatically"))
            }
            (None, None) => None,
        };
        if let Some(message) = problem {
            notices.push(Notice {
                key: Key::Pick.into(),
                message,
            });
            i.train.pick.clear();
        }
    }
    // `cards` is then ignored (left as it is, so that links round-trip); saying so is worth it
    // only when it asked for something else than the default one card.
    if i.mode == Mode::Train && !i.train.free.is_empty() && i.cards != 1 && i.cards as usize != n {
        notices.push(Notice {
            key: Key::Cards.into(),
            message: format!("ignored in train mode: free= lists the GPUs ({n})"),
        });
    }
}
