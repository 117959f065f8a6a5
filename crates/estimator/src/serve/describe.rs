//! Words for the numbers of serve mode: each term's formula with this configuration's values,
//! its provenance, the engine-default warnings, and the command line. Kept apart from the
//! arithmetic ([`crate::estimate`]) so that the ranking, which needs only numbers, never builds
//! a sentence.

use crate::catalog::engine::Engine;
use crate::catalog::{Arch, Format, SizeKind, Variant};
use crate::estimate::Estimate;
use crate::inputs::Inputs;
use crate::serve::command::command;
use crate::serve::sizing::Sizing;
use crate::terms::{encoder, kv, logits, overhead, weights, TermName};
use crate::units::Bytes;

/// Fill in the formulas, provenance, warnings and command of `e`, sized as `s`.
pub(crate) fn describe(e: &mut Estimate, i: &Inputs, v: &Variant, f: &Format, s: &Sizing) {
    for t in &mut e.terms {
        let (formula, provenance) = term_text(t.name, i, v, f, s);
        t.formula = formula;
        t.provenance = provenance;
        t.domain = match t.name {
            TermName::Weights | TermName::WeightsHost => weights::DOMAIN,
            TermName::KvCache => kv::DOMAIN,
            TermName::Overhead if encoder::on_llama(i, &v.arch).is_some() => encoder::DOMAIN,
            TermName::Overhead => overhead::domain(i.engine),
            TermName::Logits => logits::DOMAIN,
            TermName::LayersHost | TermName::KvHost | TermName::ExpertsHost => weights::DOMAIN,
            TermName::DraftWeights | TermName::DraftKvCache => draft_words(i).1,
            #[cfg(feature = "extras")]
            TermName::LoraAdapters => crate::terms::lora_adapters::DOMAIN,
            TermName::WithModels => WITH_DOMAIN,
            _ => "",
        };
        t.outside_domain = outside_domain(t.name, i, v, s);
    }
    e.warnings = warnings(e, i, v, f, s);
    // A model that spills runs with the layers that fit pinned (`-ngl N`, Ollama `num_gpu`).
    let pinned = if e.fits || i.ngl.is_some() {
        i.ngl
    } else {
        crate::serve::split::fitted_ngl(i, &crate::serve::placement::arch_for(i, v), f).or(i.ngl)
    };
    // Beside the models of `with=`, vLLM's instance is given what they leave of its budget.
    #[cfg(feature = "extras")]
    let util = if s.with.is_empty() || !i.engine.preallocates() {
        i.util
    } else {
        crate::serve::set::main_util(i, s)
    };
    #[cfg(not(feature = "extras"))]
    let util = i.util;
    let j = if pinned != i.ngl || util != i.util {
        std::borrow::Cow::Owned(Inputs {
            ngl: pinned,
            util,
            ..i.clone()
        })
    } else {
        std::borrow::Cow::Borrowed(i)
    };
    e.command = command(&j, f, s.layout, &s.shares, s.split);
}

/// One term's formula with this configuration's values, and its provenance.
fn term_text(
    name: TermName,
    i: &Inputs,
    v: &Variant,
    f: &Format,
    s: &Sizing,
) -> (String, &'static str) {
    let a = &v.arch;
    match name {
        TermName::Weights => (weights_text(a, f, s), weights::provenance(i.engine)),
        TermName::KvCache => (kv_text(i, a, s), kv::PROVENANCE),
        TermName::Overhead if encoder::on_llama(i, a).is_some() => {
            (overhead_text(i, a, s), encoder::PROVENANCE)
        }
        TermName::Overhead => (overhead_text(i, a, s), overhead::provenance(i.engine)),
        TermName::WeightsHost => (host_weights_text(a, f, s), weights::HOST_PROVENANCE),
        TermName::Logits if crate::catalog::task_of(&i.model).is_some() => (
            format!(
                "4 B × (vocab {} + hidden {}) × {} slot(s) (a logits row and an embedding row each)",
                a.vocab,
                a.hidden,
                i.par.max(1)
            ),
            logits::EMBED_PROVENANCE,
        ),
        TermName::Logits => (
            format!("4 B × vocab {} × {} slot(s)", a.vocab, i.par.max(1)),
            logits::PROVENANCE,
        ),
        TermName::LayersHost => (host_layers_text(i, a, s), OFFLOAD_PROVENANCE),
        TermName::KvHost => (host_kv_text(i, a, s), OFFLOAD_PROVENANCE),
        TermName::ExpertsHost => (host_experts_text(i, s), EXPERTS_PROVENANCE),
        TermName::DraftWeights => (draft_text(i, false), draft_words(i).0),
        TermName::DraftKvCache => (draft_text(i, true), draft_words(i).0),
        TermName::LoraAdapters => adapters_text(i, a, s),
        TermName::WithModels => (with_text(s), WITH_PROVENANCE),
        // Train-mode terms are described by the training module.
        TermName::Lora
        | TermName::Optimizer
        | TermName::Gradients
        | TermName::Activations
        | TermName::CudaOverhead => (String::new(), ""),
    }
}

/// The other models of `with=`, each with what it holds on the cards.
#[cfg(feature = "extras")]
fn with_text(s: &Sizing) -> String {
    let each: Vec<String> = s
        .with
        .iter()
        .map(|m| {
            let util = m.util.map_or(String::new(), |u| {
                format!(", --gpu-memory-utilization {}", crate::units::Shortest(u))
            });
            format!(
                "{} {} on {} ({} × {} tokens{util}) {}",
                m.model, m.quant, m.engine, m.par, m.ctx, m.device_bytes
            )
        })
        .collect();
    each.join(" + ")
}

/// A build without the `extras` feature has no other models on the cards.
#[cfg(not(feature = "extras"))]
fn with_text(_: &Sizing) -> String {
    String::new()
}

const WITH_PROVENANCE: &str = prose!("each model sized as an estimate of its own on the same cards (its weights, KV cache and overhead as its engine allocates them: one engine instance per model, each with its own CUDA context); a vLLM instance takes its whole --gpu-memory-utilization share of each card (vllm/v1/worker/gpu_worker.py, determine_available_memory), given the smallest share in hundredths that holds its plan; several models on one Ollama server share its OLLAMA_NUM_PARALLEL and OLLAMA_CONTEXT_LENGTH (envconfig/config.go)");

const WITH_DOMAIN: &str = prose!("llama.cpp, Ollama and vLLM instances side by side, each model as its own estimate's domain; not counted: what instances share (nothing is shared between processes), the bandwidth they compete for when both are busy (each speed is its own model's alone), Ollama evicting an idle model after OLLAMA_KEEP_ALIVE (5 minutes by default) or when a new one needs the room");

/// The serve-time adapters' bytes in words, and their provenance.
#[cfg(feature = "extras")]
fn adapters_text(i: &Inputs, a: &Arch, s: &Sizing) -> (String, &'static str) {
    let Some(l) = i.lora() else {
        return (String::new(), "");
    };
    let dims = format!(
        "(7 × hidden {} + 2 × q {} + 2 × kv {} + 3 × ffn {})",
        a.hidden,
        u64::from(a.heads) * a.head_dim,
        u64::from(a.kv_heads) * a.head_dim,
        a.intermediate
    );
    let text = if i.engine.preallocates() {
        let tp = s.split.0.max(1);
        let shard = if tp > 1 {
            format!(" (q, kv, ffn ÷ tp {tp}) per card")
        } else {
            String::new()
        };
        format!(
            "--max-loras {} × --max-lora-rank {} × 2 B × {dims}{shard} × layers ({} layers)",
            l.count,
            l.rank(),
            a.layers
        )
    } else {
        format!(
            "{} adapter(s) × rank {} × 4 B (f32) × {dims} × {} layers",
            l.count,
            l.rank(),
            a.layers
        )
    };
    (text, crate::terms::lora_adapters::PROVENANCE)
}

#[cfg(not(feature = "extras"))]
fn adapters_text(_: &Inputs, _: &Arch, _: &Sizing) -> (String, &'static str) {
    (String::new(), "")
}

/// The weights on the cards: the file (less what stays on the host), and the vision projector.
fn weights_text(a: &Arch, f: &Format, s: &Sizing) -> String {
    let w = &s.weights;
    (if w.host > Bytes::ZERO {
        format!("file {} − host-resident {}", w.file, w.host)
            + &if crate::catalog::is_encoder(a) {
                String::new() // no output matrix
            } else {
                format!(" + tied output copy {}", w.tied_copy)
            }
    } else {
        format!("file size {}", w.file)
    }) + &match crate::catalog::mmproj::for_repo(&f.repo).filter(|_| s.mmproj > Bytes::ZERO) {
        Some(p) => format!(
            " + vision projector {} ({}, {} size: {}) on card 0; mmproj=0 for text only",
            s.mmproj, p.file, p.size, p.source
        ),
        None => String::new(),
    }
}

/// A KV cell's bytes (global and sliding-window when they differ) and the cache types, in words.
fn kv_cell_text(i: &Inputs, a: &Arch) -> (String, String) {
    let (tk, tv) = i.kv_types();
    let (cell_g, cell_s) = kv::cell_bytes_by_kind(a, tk, tv);
    let cell = if cell_g == cell_s {
        cell_s.to_string()
    } else {
        format!("{cell_g} (global) / {cell_s} (SWA)")
    };
    let types = if tk == tv {
        tk.to_string()
    } else {
        format!("K {tk}, V {tv}")
    };
    let types = if a.mla.is_some() {
        format!("{types}, latent row, no V")
    } else {
        types
    };
    (cell, types)
}

/// The KV cache: llama.cpp's cells per stream, vLLM's and SGLang's blocks, or tokens × layers.
fn kv_text(i: &Inputs, a: &Arch, s: &Sizing) -> String {
    if crate::catalog::is_encoder(a) {
        return "none: an encoder-only model keeps no KV cache (llama.cpp's create_memory allocates it none)".into();
    }
    let (cell, types) = kv_cell_text(i, a);
    match (&s.kv.llama, i.engine) {
        (Some(k), _) => format!(
            "{} stream(s) × ({} global layers × {} cells + {} SWA layers × {} cells) × {} B/cell ({types}){}",
            k.streams,
            k.global_layers,
            k.cells,
            k.swa_layers,
            k.swa_cells,
            cell,
            if k.state > Bytes::ZERO {
                let rollback = match i.rsseq {
                    0 => String::new(),
                    n => format!(" × {} states each (rsseq={n}: n_rs_seq)", n + 1),
                };
                format!(
                    " + recurrent state {} (F32, {} sequence(s){rollback})",
                    k.state,
                    i.par.max(1)
                )
            } else {
                String::new()
            }
        ),
        (None, Engine::Vllm | Engine::Sglang) => format!(
            "{} request(s) × ⌈{}/16⌉ blocks × 16 tokens per global layer ({}), {} on the fullest card",
            i.par,
            i.ctx,
            match (a.swa.is_some(), crate::serve::placement::admission_step(i)) {
                (false, _) => "every layer global".to_string(),
                (true, 0) => "SWA layers capped at the window".to_string(),
                (true, step) => format!("SWA layers hold the window − 1 + {step} batched tokens, one block more"),
            },
            s.kv.per_card.iter().max().copied().unwrap_or_default()
        ),
        (None, _) => format!(
            "{} sequence(s) × ({} tokens × layers × {} B/token/layer{})",
            i.par,
            i.ctx,
            cell,
            match kv::state_bytes(a, 2) {
                0 => String::new(),
                b => format!(" + recurrent state {}", Bytes(b)),
            }
        ),
    }
}

/// The engine's overhead: MLX's own formula, else the engine's fit.
fn overhead_text(i: &Inputs, a: &Arch, s: &Sizing) -> String {
    if i.engine == Engine::Mlx {
        return overhead::mlx_formula(a, i.par);
    }
    if let Some(text) = crate::terms::encoder::engine_formula(i, a) {
        return text;
    }
    let batch = crate::terms::batch::pooled_formula(i, a).unwrap_or_default();
    if let Some(one) = &s.overhead.one_card {
        return overhead::llama_one_card_formula(one) + &batch;
    }
    overhead::formula(
        i.engine,
        i.cards.max(1),
        s.weights.device.saturating_sub(s.mmproj),
        s.kv.cells,
        a.vocab,
        s.split.0 > 1,
        i.util,
    ) + &batch
}

/// What stays in host memory: the token embeddings (and per-layer embeddings).
fn host_weights_text(a: &Arch, f: &Format, s: &Sizing) -> String {
    format!(
        "row({}, vocab {} × hidden {}){}",
        f.embd_type,
        a.vocab,
        a.hidden,
        if s.weights.ple > Bytes::ZERO {
            format!(" + per-layer embeddings {}", s.weights.ple)
        } else if let Some(e) = crate::catalog::encoder(a) {
            let pos = if e.positions { "position and " } else { "" };
            format!(" + the F32 {pos}token-type tables")
        } else {
            String::new()
        }
    )
}

/// The blocks `-ngl` leaves on the CPU.
fn host_layers_text(i: &Inputs, a: &Arch, s: &Sizing) -> String {
    match s.offload {
        Some(o) => format!(
            "{} of {} blocks (-ngl {}: the output layer and the last blocks on the GPU) × the blocks' share of the file{}",
            o.cpu_layers,
            a.layers,
            i.ngl.map_or_else(|| "all".to_string(), |n| n.to_string()),
            if i.ngl == Some(0) { " + the output layer" } else { "" }
        ),
        None => String::new(),
    }
}

/// The KV cache on the CPU: all of it with `--no-kv-offload`, else the CPU layers' share.
fn host_kv_text(i: &Inputs, a: &Arch, s: &Sizing) -> String {
    if i.nkvo {
        "the whole KV cache (--no-kv-offload)".to_string()
    } else {
        format!(
            "{} of {} layers' share of the KV cache",
            s.offload.map_or(0, |o| o.cpu_layers),
            a.layers
        )
    }
}

/// The experts `--n-cpu-moe` / `--cpu-moe` keep on the CPU.
fn host_experts_text(i: &Inputs, s: &Sizing) -> String {
    let Some(o) = s.offload else {
        return String::new();
    };
    if cfg!(feature = "cpu-moe") && i.engine == Engine::Vllm {
        return format!(
            "the routed experts (the fused MoE's w13 and w2 with their scales) of {} layers, {} per card, in pinned host memory read over PCIe (--cpu-offload-gb --cpu-offload-params experts), at the checkpoint's layout",
            o.expert_layers,
            if s.split.0 > 1 { "1/tp of each" } else { "all" }
        );
    }
    let flag = match i.ncmoe {
        Some(crate::inputs::CpuMoe::All) => "--cpu-moe".to_string(),
        Some(m) => format!("--n-cpu-moe {m}"),
        None => String::new(),
    };
    format!(
        "the routed experts (ffn_*_exps) of {} layers on the GPU ({flag}){}",
        o.expert_layers,
        if o.experts_exact {
            ", each tensor at the type llama.cpp's mix gives it"
        } else {
            ", at the types of the k-quant mix this dynamic mix is built on (approximate: its recipe is unpublished)"
        }
    )
}

/// The draft model's weights (`kv`: its KV cache) in words (none in a build without the `spec`
/// feature, which has no draft).
#[cfg(not(feature = "spec"))]
fn draft_text(_: &Inputs, _: bool) -> String {
    String::new()
}

/// The draft's provenance and domain: the MTP layer's with `spec=mtp`, else the draft model's.
fn draft_words(i: &Inputs) -> (&'static str, &'static str) {
    #[cfg(feature = "spec")]
    if i.spec == Some(crate::inputs::Spec::Mtp) {
        return crate::serve::speculative::mtp_words(i.engine);
    } else if i.spec == Some(crate::inputs::Spec::Eagle) {
        return crate::serve::speculative::eagle_words(i.engine);
    } else if i.engine == Engine::Vllm {
        use crate::serve::speculative::{VLLM_DRAFT_DOMAIN, VLLM_DRAFT_PROVENANCE};
        return (VLLM_DRAFT_PROVENANCE, VLLM_DRAFT_DOMAIN);
    }
    let _ = i;
    (DRAFT_PROVENANCE, DRAFT_DOMAIN)
}

/// The draft model's weights (`kv`: its KV cache) in words.
#[cfg(feature = "spec")]
fn draft_text(i: &Inputs, kv: bool) -> String {
    if i.spec == Some(crate::inputs::Spec::Mtp) {
        return crate::serve::speculative::mtp_text(i, kv);
    }
    if i.spec == Some(crate::inputs::Spec::Eagle) {
        return crate::serve::speculative::eagle_text(i, kv);
    }
    let Some((d, q)) = i.draft.as_deref().and_then(|d| Some((&d.model, d.quant?))) else {
        return String::new();
    };
    if i.engine == Engine::Vllm {
        return if kv {
            format!("{d}'s layers in the target's KV pool: {} request(s) of {} tokens, at the target's cache type", i.par.max(1), i.ctx)
        } else {
            format!("the {d} {q} checkpoint, split over the cards as the target's")
        };
    }
    if !kv {
        return format!("the {d} {q} file, every layer on the GPU (-ngld), less its token embedding in host RAM");
    }
    let cells = i.draft_cells();
    format!(
        "{} slot(s) × one draft context each of {cells} cells (the target's context per sequence), K and V at f16, {d}'s layers as its own KV cache counts them",
        i.par.max(1)
    )
}

/// Where the draft model's memory comes from.
const DRAFT_PROVENANCE: &str = prose!("llama-server loads the draft model (-md) once and creates one draft context per slot (tools/server/server.cpp, init: slot.ctx_dft = llama_init_from_model(model_dft, cparams_dft)), of -cd cells or else the target's context per sequence (llama_n_ctx_seq), its cache at -ctkd/-ctvd (F16 by default), -ngld layers on the GPU, the target's other context parameters copied (params_dft = params_base).");

/// Where the draft model's memory was checked.
const DRAFT_DOMAIN: &str = prose!("llama.cpp's llama-server with a catalog draft model in a GGUF file, every draft layer on the GPU, its cache at F16; its weights and KV cache by the same rules as the target's (byte-exact KV). Not counted: each draft context's compute buffer (a few hundred MiB per slot at the default batch for a large vocabulary), -cd, -ngld and -devd set otherwise. No startup log with a draft model compared yet.");

/// Where the `--n-cpu-moe` placement comes from.
const EXPERTS_PROVENANCE: &str = prose!("llama.cpp's --n-cpu-moe N adds a CPU buffer-type override for blk.i.ffn_(up|down|gate|gate_up)_(ch|)exps of each layer i < N, --cpu-moe for every layer (common/arg.cpp; LLM_FFN_EXPS_REGEX and llm_ffn_exps_block_regex in common/common.h); the router, the shared experts, attention and the KV cache stay on the GPU; the tensors' bytes by llama.cpp's per-tensor types for the mix (src/llama-quant.cpp, llama_tensor_get_type). vLLM (--cpu-offload-params since https://github.com/vllm-project/vllm/pull/34535): each GPU moves whole parameters named *.experts.* of its layers in order to pinned host memory until --cpu-offload-gb GiB are moved (vllm/model_executor/offloader/uva.py), the command's figure being the first N layers' experts on one card rounded down to 0.01 GiB; the card reads them through unified addressing each forward pass; pipeline stages are not modelled (each would move the figure from its own first layers).");

/// Where the `-ngl` / `--no-kv-offload` placement comes from.
const OFFLOAD_PROVENANCE: &str = prose!("llama.cpp puts the last n_gpu_layers of layers + 1 slots (the output layer last) on the GPU and keeps the first blocks, with their KV cache, on the CPU (src/llama-model.cpp, load_tensors: i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0); src/llama-kv-cache.cpp: each layer's cache on its layer's device, all on the CPU with --no-kv-offload).");

/// Weights beyond the largest consumer card (32 GiB): there the llama.cpp overhead fit's weight
/// arm is unverified.
const LLAMA_FIT_WEIGHTS: Bytes = Bytes(32 * crate::units::GIB);

/// Where a term's formula was checked, compared with this configuration: `Some(what differs)`
/// when it lies outside (each term module's domain).
fn outside_domain(name: TermName, i: &Inputs, v: &Variant, s: &Sizing) -> Option<String> {
    let a = &v.arch;
    if name == TermName::Overhead && encoder::on_llama(i, a).is_some() {
        return None;
    }
    if name == TermName::Overhead && !crate::serve::support::cpu_only(i) {
        if let Some((card, backend)) = crate::serve::support::non_cuda_card(i) {
            return Some(format!(
                "the overhead was measured on NVIDIA cards (CUDA); the {card} runs through {backend}, whose context and compute buffers were not measured"
            ));
        }
    }
    match (name, i.engine) {
        // No card: no CUDA context; the compute buffer was measured on CUDA.
        (TermName::Overhead, Engine::LlamaCpp | Engine::Ollama) if crate::serve::support::cpu_only(i) => Some(
            "the compute buffer was measured on CUDA cards; the CPU backend has no CUDA context and its own graph (it keeps more activations)".into(),
        ),
        // One card, several slots: the compute buffer was measured at one slot.
        (TermName::Overhead, Engine::LlamaCpp | Engine::Ollama) if s.overhead.one_card.is_some() => (i.par > 1).then(|| format!(
            "the compute buffer was measured at one slot; here {} slots (a published single-card measurement, Qwen3.6-27B with its MTP head, grew by about 450 MiB per extra slot: https://github.com/unslothai/unsloth/pull/6312)", i.par
        )),
        // The fit (several cards, latent attention): measured at one slot on one card, on models
        // that fit one consumer card; its weight-proportional arm grows without bound.
        (TermName::Overhead, Engine::LlamaCpp | Engine::Ollama)
            if i.par > 1 || i.cards > 1 || s.weights.device > LLAMA_FIT_WEIGHTS =>
        {
            let mut why = Vec::new();
            if i.par > 1 || i.cards > 1 {
                why.push(format!(
                    "the overhead fit was measured with one slot on one card; here {} slot(s) on {} card(s)",
                    i.par, i.cards
                ));
            }
            if s.weights.device > LLAMA_FIT_WEIGHTS {
                why.push(format!(
                    "its 10 % weight arm is an empirical fit of four single-card configurations, unverified for {} of weights on the cards (llama.cpp prints its real compute buffers at load)",
                    s.weights.device
                ));
            }
            Some(why.join("; "))
        }
        // vLLM's profile was fitted on its 0.19 startup logs of dense and MoE models up to 70B;
        // pipeline stages hold less than one card's peak.
        (TermName::Overhead, Engine::Vllm) if s.layout == crate::estimate::Sharing::Layer => Some(
            "vLLM's overhead was fitted on one card and on tensor parallelism; pipeline stages other than the last hold less".into(),
        ),
        (TermName::Overhead, Engine::Sglang) if s.layout == crate::estimate::Sharing::Layer => Some(
            "SGLang's profile was compared with startup logs on one card and under tensor parallelism, not with pipeline stages".into(),
        ),
        (TermName::Overhead, Engine::Sglang) if s.layout == crate::estimate::Sharing::Tensor => Some(
            "SGLang's tensor-parallel buffers are sized from vLLM's H100 logs and checked on one SGLang log (4 × H100); other cards and interconnects differ".into(),
        ),
        (TermName::Overhead, Engine::Transformers) if a.experts > 1 => Some(
            "the transformers residual was measured on dense Qwen3 and Qwen3-30B-A3B only".into(),
        ),
        // The transformers cache was checked at contexts of 8K and more.
        (TermName::KvCache, Engine::Transformers) if i.ctx < 8192 => Some(format!(
            "the transformers cache was checked at 8K tokens and more; at {} tokens generation may stop earlier than the budget",
            i.ctx
        )),
        // vLLM's hybrid allocator: sliding-window models are paged in groups.
        (TermName::KvCache, Engine::Vllm | Engine::Sglang) if a.swa.is_some() => Some(
            "sliding-window layers: the token pool follows vLLM's hybrid groups, checked on gemma-3 only".into(),
        ),
        _ => None,
    }
}

/// What the engine's default concurrency would change, where the command's explicit slot count
/// matters (`None` where the default is one request, or an encoder on llama.cpp).
fn default_slots(i: &Inputs, a: &crate::catalog::Arch, s: &Sizing) -> Option<String> {
    let (def, why) = i.engine.default_concurrency();
    // An encoder keeps no KV cache for the default slots to share.
    let no_kv = i.engine == Engine::LlamaCpp && crate::catalog::is_encoder(a);
    if (def == 1 && i.engine != Engine::Ollama) || no_kv {
        return None;
    }
    let extra = match i.engine {
        Engine::LlamaCpp => {
            // What the defaults would allocate with `-c ctx` and no -np: 4 slots, one
            // unified KV.
            let (type_k, type_v) = i.kv_types();
            let k = kv::llama(
                a,
                &kv::LlamaParams {
                    n_ubatch: u64::from(i.ubatch),
                    swa_full: i.swa_full,
                    type_k,
                    type_v,
                    ..kv::LlamaParams::new(u64::from(i.ctx), 4, true, i.kv)
                },
            );
            let same = if k.bytes == s.kv.total {
                // Equal when nothing depends on the slot count (no sliding-window layers,
                // one stream either way): the size holds, but the cells are shared.
                format!(
                    " the same {} of KV as budgeted here, but shared by 4 slots, so no request could count on its {} tokens",
                    k.bytes, i.ctx
                )
            } else {
                format!(" {} of KV, not the {} budgeted here", k.bytes, s.kv.total)
            };
            format!(
                ": the same -c would then give 4 slots sharing {} cells and allocate{same}. The command writes -np {} explicitly",
                k.cells, i.par
            )
        }
        Engine::Ollama => format!(
            ": the command sets OLLAMA_NUM_PARALLEL={} explicitly",
            i.par
        ),
        Engine::Vllm => format!(": the command writes --max-num-seqs {}", i.par),
        Engine::Sglang => format!(": the command writes --max-running-requests {}", i.par),
        Engine::Transformers => String::new(),
        Engine::Mlx => format!(
            ": the command writes --decode-concurrency {} and caps the KV caches it keeps with --prompt-cache-bytes",
            i.par
        ),
    };
    Some(format!("{why}{extra}."))
}

/// Engine defaults that would change the answer, and what the estimate cannot see.
fn warnings(e: &Estimate, i: &Inputs, v: &Variant, f: &Format, s: &Sizing) -> Vec<String> {
    let fits = e.fits;
    let a = &v.arch;
    let mut out = Vec::new();
    out.extend(default_slots(i, a, s));
    if let Some(w) = crate::serve::support::vllm_encoder_warning(i.engine, &a.model_type) {
        out.push(w);
    }
    #[cfg(feature = "spec")]
    out.extend(crate::serve::speculative::warning(i));
    if i.engine == Engine::Ollama && !fits {
        out.push("Ollama does not refuse a model that does not fit: it moves layers to system RAM and runs 10–100× slower without an error.".into());
    }
    if i.engine == Engine::Ollama && i.kv.is_quantized() {
        out.push("OLLAMA_KV_CACHE_TYPE needs flash attention (OLLAMA_FLASH_ATTENTION=1).".into());
    }
    if f.size == SizeKind::Computed {
        out.push(format!("No published size was found for {} {}; its size is computed from tensor shapes and block layouts.", v.id, f.id));
    }
    if a.swa.is_some() && i.swa_full && i.engine.llama_family() {
        out.push("--swa-full keeps a full-size cache for the sliding-window layers.".into());
    }
    out.extend(crate::serve::command::large_batch_warning(i));
    if let (Some(pool), Some(conc)) = (e.kv_pool_bytes, e.max_concurrency) {
        out.push(format!(
            "{} will take {} per card and give the KV cache about {pool} of it: room for ≈{} requests of {} tokens at once (you asked for {}).",
            i.engine.label(),
            crate::serve::placement::fullest(&e.per_card).budget,
            crate::units::Fixed(conc, 1),
            i.ctx,
            i.par
        ));
    }
    out
}
