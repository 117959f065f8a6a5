//! Ready-to-run engine commands. The concurrency flag is always written, even at its default
//! (a flag written out is visible to the next reader; one left to its default is found
//! only after it bites).

use crate::catalog::engine::Engine;
use crate::catalog::quant::GgmlType;
use crate::catalog::{catalog, Format};
use crate::estimate::Sharing;
use crate::inputs::Inputs;
use crate::serve::placement::card_capacities;

/// `x` as `format!("{x:?}")` writes it for the factors a config holds (`4.0`, `2.5`: a JSON and
/// Python float literal), without core's float formatting in the page.
fn float_literal(x: f64) -> String {
    let s = crate::units::Shortest(x).to_string();
    if x.is_finite() && !s.contains('.') {
        s + ".0"
    } else {
        s
    }
}

/// The command line that runs `format` as configured by `i`, with the cards in `layout` (the
/// layout that starts: see [`crate::serve::placement::tensor_parallel`]) holding `shares` of the layers
/// under layer split.
pub fn command(
    i: &Inputs,
    format: &Format,
    layout: Sharing,
    shares: &[u64],
    split: (u32, u32),
) -> String {
    let yarn = catalog()
        .variant(&i.model)
        .and_then(|(_, v)| v.arch.yarn.as_ref().filter(|_| i.ctx > v.arch.max_ctx));
    // YaRN as each engine is told (the Qwen3 documentation's flags).
    let rope_json = yarn.map(|y| {
        format!(
            "{{\"rope_type\":\"yarn\",\"factor\":{},\"original_max_position_embeddings\":{}}}",
            float_literal(y.factor),
            y.original_ctx
        )
    });
    let ctx = i.ctx as u64;
    let par = i.par as u64;
    let (tk, tv) = i.kv_types();
    // A CPU-only machine: no layer on a GPU (llama.cpp `-ngl 0`, Ollama `num_gpu 0`).
    let pinned = if crate::serve::support::cpu_only(i) {
        Some(0)
    } else {
        i.ngl
    };
    let pick = pick(i, format);
    let (repo, file) = match &pick {
        Some((_, path)) => ("", path.as_str()),
        None => (format.repo.as_str(), format.file.as_str()),
    };
    let c = Cmd {
        i,
        format,
        repo,
        file,
        layout,
        shares,
        split,
        yarn,
        rope_json: rope_json.as_deref(),
        ctx,
        par,
        tk,
        tv,
        pinned,
    };
    let each = match i.engine {
        Engine::LlamaCpp => llama_cpp,
        Engine::Ollama => ollama,
        Engine::Vllm => vllm,
        Engine::Sglang => sglang,
        Engine::Mlx => mlx,
        Engine::Transformers => transformers,
    };
    match &pick {
        Some((line, _)) => format!("{line}\n{}", each(&c)),
        None => each(&c),
    }
}

/// A format no catalog repo publishes (its size computed by the size rule, no repo or file):
/// the line that says which file to pick, and the path the command reads it from in its place.
/// `None` for a catalog file or a local one.
fn pick(i: &Inputs, format: &Format) -> Option<(String, String)> {
    if !(format.repo.is_empty() && format.file.is_empty()) {
        return None;
    }
    let name = i.model.rsplit('/').next().unwrap_or(&i.model);
    let path = match format.container {
        crate::catalog::quant::Container::Gguf => format!("./{name}-{}.gguf", format.id),
        _ => format!("./{name}-{}", format.id),
    };
    let line = format!(
        "# no repo in fitcard's catalog publishes {} in {} {} (its size here is computed): pick one from https://huggingface.co/models?other=base_model:quantized:{} (or make one) and put it at {path}",
        i.model,
        format.id,
        format.container.label(),
        i.model
    );
    Some((line, path))
}

/// What every engine's command is written from: the inputs, the file and where it is, the split, YaRN (when
/// the context needs it) as each engine is told, the context and slots, the KV types, and the
/// layers pinned to the GPU.
#[derive(Clone, Copy)]
struct Cmd<'a> {
    i: &'a Inputs,
    format: &'a Format,
    /// The Hugging Face repo to pull from; empty for a path.
    repo: &'a str,
    /// The path of a file the command reads (a local file, or the one to pick).
    file: &'a str,
    layout: Sharing,
    shares: &'a [u64],
    split: (u32, u32),
    yarn: Option<&'a crate::catalog::Yarn>,
    rope_json: Option<&'a str>,
    ctx: u64,
    par: u64,
    tk: crate::catalog::engine::KvDtype,
    tv: crate::catalog::engine::KvDtype,
    pinned: Option<u32>,
}

impl Cmd<'_> {
    /// The model as vLLM, SGLang, mlx-lm and transformers take it: the repo, else the path.
    fn model(&self) -> &str {
        if self.repo.is_empty() {
            self.file
        } else {
            self.repo
        }
    }
}

/// `draft=`: llama-server's draft model from its Hugging Face repo (`-hfd repo:quant`), every
/// layer on the GPU (`-ngld 999`), speculative decoding by that model (`--spec-type
/// draft-simple`) and the draft tokens per step (`--spec-draft-n-max`), always written: the
/// spellings of llama-server since its speculative options were renamed, where `--draft-max`
/// "has been removed" and the type defaults to none (tools/server/README.md at
/// <https://github.com/ggml-org/llama.cpp/blob/00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b/tools/server/README.md>).
#[cfg(feature = "spec")]
fn draft_flags(s: &mut String, i: &Inputs) {
    s.insert_str(0, &crate::serve::speculative::llama_eagle_prelude(i));
    s.push_str(&crate::serve::speculative::llama_flags(i));
    let Some(d) = i.draft.as_deref() else {
        return;
    };
    let Some(f) = d.file(i.engine).filter(|f| !f.repo.is_empty()) else {
        return;
    };
    s.push_str(&format!(
        " -hfd {}:{} -ngld 999 --spec-type draft-simple --spec-draft-n-max {}",
        f.repo,
        f.id.id(),
        i.ndraft.unwrap_or(crate::inputs::DRAFT_MAX_DEFAULT)
    ));
}

#[cfg(not(feature = "spec"))]
fn draft_flags(_: &mut String, _: &Inputs) {}

/// The repo llama-server reads: with `spec=mtp`, the one whose files keep the MTP layer.
#[cfg(feature = "spec")]
fn spec_repo(i: &Inputs, repo: &str) -> String {
    crate::serve::speculative::mtp_repo(i, repo)
}

#[cfg(not(feature = "spec"))]
fn spec_repo(_: &Inputs, repo: &str) -> String {
    repo.to_string()
}

/// The speculative flags of vLLM (`vllm`) or SGLang.
#[cfg(feature = "spec")]
fn spec_server_flags(i: &Inputs, vllm: bool) -> String {
    if vllm {
        crate::serve::speculative::vllm_flags(i)
    } else {
        crate::serve::speculative::sglang_flags(i)
    }
}

#[cfg(not(feature = "spec"))]
fn spec_server_flags(_: &Inputs, _: bool) -> String {
    String::new()
}

/// llama-server's command line.
fn llama_cpp(c: &Cmd) -> String {
    let Cmd {
        i,
        format,
        repo,
        file,
        layout,
        yarn,
        ctx,
        par,
        tk,
        tv,
        pinned,
        ..
    } = *c;
    // A catalog file by its Hugging Face repo; a local file by its path.
    let source = if repo.is_empty() {
        format!("-m {file}")
    } else {
        format!("-hf {}:{}", spec_repo(i, repo), format.id)
    };
    // Every layer on the GPU unless `ngl` pins fewer (the rest stay in host RAM).
    let ngl = pinned.map_or_else(|| "999".to_string(), |n| n.to_string());
    let mut s = format!(
        "llama-server {source} -ngl {ngl} -c {} -np {}",
        ctx * par,
        par
    );
    if i.nkvo {
        s.push_str(" --no-kv-offload");
    }
    match i.ncmoe {
        Some(crate::inputs::CpuMoe::All) => s.push_str(" --cpu-moe"),
        Some(m) => s.push_str(&format!(" --n-cpu-moe {m}")),
        None => {}
    }
    if i.kvu {
        s.push_str(" -kvu");
    }
    draft_flags(&mut s, i);
    // One --lora per adapter file (their names are the user's).
    if let Some(l) = i.lora() {
        for k in 1..=l.count.min(8) {
            s.push_str(&format!(" --lora adapter-{k}.gguf"));
        }
        if l.count > 8 {
            s.push_str(" …");
        }
    }
    // llama.cpp's spelling; `auto` is its default f16. A quantized V cache needs flash
    // attention.
    let (gk, gv) = (tk.ggml().unwrap_or_default(), tv.ggml().unwrap_or_default());
    if gk != GgmlType::F16 || gv != GgmlType::F16 {
        s.push_str(&format!(" -fa on -ctk {gk} -ctv {gv}"));
    }
    batch_flags(&mut s, i);
    if i.swa_full {
        s.push_str(" --swa-full");
    }
    // Text only: -hf would also fetch the repo's projector and put it on the GPU.
    if !i.mmproj && crate::catalog::mmproj::for_repo(repo).is_some() {
        s.push_str(" --no-mmproj");
    }
    if let Some(y) = yarn {
        s.push_str(&format!(
            " --rope-scaling yarn --rope-scale {} --yarn-orig-ctx {}",
            crate::units::Shortest(y.factor),
            y.original_ctx
        ));
    }
    if i.cards > 1 {
        split_flags(&mut s, i, layout);
    }
    s
}

/// llama-server's logical batch (`-b`, `--batch-size`) when none is written (common/common.h,
/// `n_batch = 2048`).
const LLAMA_BATCH: u32 = 2048;

/// llama-server's micro-batch, and an embedding or reranking model's server. Such a server
/// pools each input in one micro-batch, so `-ub` holds the longest input (the server refuses a
/// longer one). The catalog's embedding models pool the last token (Qwen3-Embedding's card:
/// `--embedding --pooling last`); `--reranking` sets the embedding mode with rank pooling
/// itself (common/arg.cpp: `params.embedding = true; params.pooling_type =
/// LLAMA_POOLING_TYPE_RANK`), each query–document pair one input. A micro-batch over the
/// logical batch is cut to it (src/llama-context.cpp: `cparams.n_ubatch =
/// std::min(cparams.n_batch, params.n_ubatch)`), so a larger `-ub` comes with `-b` as large, as
/// Ollama writes both for its embedding servers (llm/llama_server.go, `appendBatchArgs`).
fn batch_flags(s: &mut String, i: &Inputs) {
    let Some((flags, ub)) = micro_batch(i) else {
        return;
    };
    s.push_str(flags);
    if ub > LLAMA_BATCH {
        s.push_str(&format!(" -b {ub}"));
    }
    s.push_str(&format!(" -ub {ub}"));
}

/// The task flags and the micro-batch of a llama-server that sets one ([`batch_flags`]).
fn micro_batch(i: &Inputs) -> Option<(&'static str, u32)> {
    match crate::catalog::task_of(&i.model) {
        // An encoder pools as its GGUF says (the converter writes the sentence-transformers
        // pooling: convert_hf_to_gguf.py, `_try_set_pooling_type`).
        Some(crate::catalog::Task::Embed) if encoder_model(i) => {
            Some((" --embedding", i.ubatch.max(i.ctx)))
        }
        Some(crate::catalog::Task::Embed) => {
            Some((" --embedding --pooling last", i.ubatch.max(i.ctx)))
        }
        Some(crate::catalog::Task::Rerank) => Some((" --reranking", i.ubatch.max(i.ctx))),
        None if i.ubatch != 512 => Some(("", i.ubatch)),
        None => None,
    }
}

/// Is the model of `i` an encoder ([`crate::catalog::is_encoder`])?
fn encoder_model(i: &Inputs) -> bool {
    let v = crate::catalog::catalog().variant(&i.model);
    v.is_some_and(|(_, v)| crate::catalog::is_encoder(&v.arch))
}

/// What a chat llama-server's micro-batch over 512 tokens adds to the compute buffer, at the
/// least, beyond the overhead term (measured at `-ub 512`): the fp16 attention mask of the rest
/// of it, n_kv cells × n_ubatch tokens (n_kv: one stream's cells, all of them with `-kvu`), which
/// every layer reads, so it stays in the compute buffer through the graph (src/llama-graph.cpp,
/// `build_attn_inp_kq_mask`: F16 under flash attention); without flash attention the fp32 mask
/// and the attention scores take more. A causal model's batch is at most its context
/// (src/llama-context.cpp). An embedding or reranking server's growth is counted instead
/// (`terms::batch`), an encoder's too (`terms::encoder`).
pub(crate) fn large_batch_warning(i: &Inputs) -> Option<String> {
    let chat = crate::catalog::task_of(&i.model).is_none();
    let (_, ub) = micro_batch(i).filter(|_| i.engine == Engine::LlamaCpp && chat)?;
    let slots = u64::from(i.par.max(1));
    let ub = u64::from(ub).min(u64::from(i.ctx).saturating_mul(slots));
    let n_kv = crate::terms::batch::cells(i);
    let more = ub.checked_sub(512).filter(|&m| m > 0)?;
    let floor = crate::units::Bytes(n_kv.saturating_mul(more).saturating_mul(2));
    Some(format!(
        "A {ub}-token micro-batch (-ub) makes llama.cpp's compute buffer larger than the overhead term, measured at 512: its fp16 attention mask alone takes at least {floor} more ({n_kv} cells × {more} tokens × 2 B, src/llama-graph.cpp), not counted in the total."
    ))
}

/// llama.cpp's split over several cards: by rows under tensor sharing, else by layers, in
/// equal parts (1,1,…) or, for mixed cards, in proportion to their memory (GiB).
fn split_flags(s: &mut String, i: &Inputs, layout: Sharing) {
    let split = if layout == Sharing::Tensor {
        "row"
    } else {
        "layer"
    };
    let ts = if i.gpus.is_empty() {
        vec!["1".to_string(); i.cards as usize]
    } else {
        card_capacities(i)
            .iter()
            .map(|c| crate::units::Fixed(c.gib(), 0).to_string())
            .collect()
    };
    s.push_str(&format!(" -sm {split} -ts {}", ts.join(",")));
}

/// Ollama: the Modelfile parameters and the run.
fn ollama(c: &Cmd) -> String {
    let Cmd {
        i,
        format,
        repo,
        file,
        ctx,
        par,
        tk,
        pinned,
        ..
    } = *c;
    let mut s = format!("OLLAMA_NUM_PARALLEL={par} OLLAMA_CONTEXT_LENGTH={ctx}");
    // `reserve=`: Ollama's own setting, bytes kept free per GPU (envconfig/config.go,
    // `OLLAMA_GPU_OVERHEAD`, "Reserve a portion of VRAM per GPU (bytes)").
    if i.reserved() > 0.0 {
        s.push_str(&format!(
            " OLLAMA_GPU_OVERHEAD={}",
            crate::units::Bytes::from_gib(i.reserved()).get()
        ));
    }
    let g = tk.ggml().unwrap_or_default();
    if g != GgmlType::F16 {
        s.push_str(&format!(
            " OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE={g}"
        ));
    }
    if repo.is_empty() || pinned.is_some() {
        // A local file, or layers pinned (`num_gpu`, a Modelfile parameter): Ollama
        // imports it through a Modelfile.
        let from = if repo.is_empty() {
            file.to_string()
        } else {
            format!("hf.co/{repo}:{}", format.id)
        };
        let num_gpu = pinned.map_or(String::new(), |n| format!("PARAMETER num_gpu {n}\\n"));
        s.push_str(&format!(
            " ollama serve\nprintf 'FROM {from}\\n{num_gpu}' > Modelfile && ollama create local -f Modelfile && ollama run local"
        ));
    } else {
        // An embedding model answers no prompt: it is pulled, then used through /api/embed.
        let verb = if crate::catalog::task_of(&i.model).is_some() {
            "pull"
        } else {
            "run"
        };
        s.push_str(&format!(
            " ollama serve\nollama {verb} hf.co/{repo}:{}",
            format.id
        ));
    }
    s
}

/// `vllm serve`.
fn vllm(c: &Cmd) -> String {
    let Cmd {
        i,
        layout,
        shares,
        split,
        rope_json,
        ctx,
        par,
        tk,
        ..
    } = *c;
    // The chosen tensor × pipeline split (crate::estimate::ParallelChoice).
    let parallel = parallel_flags(i, layout, split);
    // Uneven pipeline stages: the layers each card holds.
    let partition = if layout == Sharing::Layer && !i.gpus.is_empty() {
        let parts: Vec<String> = shares.iter().map(u64::to_string).collect();
        format!("VLLM_PP_LAYER_PARTITION={} ", parts.join(","))
    } else {
        String::new()
    };
    let mut s = format!(
        "{partition}vllm serve {} --max-model-len {} --max-num-seqs {} {parallel} --gpu-memory-utilization {}",
        c.model(), ctx, par, crate::units::Shortest(i.util)
    );
    // 16-bit caches are vLLM's default (`auto`, the model's dtype).
    if tk.is_quantized() {
        s.push_str(&format!(" --kv-cache-dtype {tk}"));
    }
    if let Some(j) = &rope_json {
        s.push_str(&format!(" --rope-scaling '{j}'"));
    }
    vllm_offload_flags(&mut s, c);
    s.push_str(&spec_server_flags(i, true));
    if let Some(l) = i.lora() {
        s.push_str(&format!(
            " --enable-lora --max-loras {} --max-lora-rank {}",
            l.count,
            l.rank()
        ));
    }
    // Images per prompt (vllm/config/multimodal.py, `limit_per_prompt`: a JSON object by
    // modality; V1 allows 999 of each unless told).
    if i.images() > 0 {
        s.push_str(&format!(
            " --limit-mm-per-prompt '{{\"image\": {}}}'",
            i.images()
        ));
    }
    s
}

/// `ncmoe=` on vLLM: the first N layers' routed experts on one card (`1/tp` of each under
/// tensor parallelism), in GiB as `--cpu-offload-gb` takes them, rounded down to 0.01 so that
/// vLLM's loop, which moves whole parameters until the budget is reached, stops at layer N's
/// end rather than taking layer N+1's first expert tensor (at least 0.01). Nothing under
/// pipeline stages (see `serve::sizing`).
fn vllm_offload_flags(s: &mut String, c: &Cmd) {
    if cfg!(not(feature = "cpu-moe")) {
        return;
    }
    let Some((_, v)) = catalog().variant(&c.i.model) else {
        return;
    };
    let Some((moved, _, _)) = crate::serve::sizing::vllm_moved(c.i, &v.arch, c.format)
        .filter(|_| c.layout != Sharing::Layer)
    else {
        return;
    };
    let card = moved.get() / u64::from(c.split.0.max(1));
    let hundredths = (card as f64 * 100.0 / (1u64 << 30) as f64).floor().max(1.0);
    s.push_str(&format!(
        " --cpu-offload-gb {} --cpu-offload-params experts",
        crate::units::Shortest(hundredths / 100.0)
    ));
}

/// `python -m sglang.launch_server`.
fn sglang(c: &Cmd) -> String {
    let Cmd {
        i,
        layout,
        split,
        rope_json,
        ctx,
        par,
        tk,
        ..
    } = *c;
    let parallel = parallel_flags(i, layout, split);
    let mut s = format!(
        "python -m sglang.launch_server --model-path {} --context-length {} --max-running-requests {} {parallel} --mem-fraction-static {}",
        c.model(), ctx, par, crate::units::Shortest(i.util)
    );
    if tk.is_quantized() {
        s.push_str(&format!(" --kv-cache-dtype {tk}"));
    }
    if let Some(j) = &rope_json {
        s.push_str(&format!(
            " --json-model-override-args '{{\"rope_scaling\":{j}}}'"
        ));
    }
    s.push_str(&spec_server_flags(i, false));
    s
}

/// `mlx_lm.server`.
fn mlx(c: &Cmd) -> String {
    let Cmd {
        i, ctx, par, tk, ..
    } = *c;
    // mlx_lm/server.py: --decode-concurrency (default 32) bounds the requests decoded
    // together; --prompt-cache-bytes bounds the KV caches it holds, the active ones
    // included (it trims the kept caches to the total less the active ones), so the
    // KV term of par requests of ctx tokens is written as that bound. mlx-lm takes no
    // context length: the requests' tokens decide.
    let kv = catalog()
        .variant(&i.model)
        .map(|(_, v)| crate::terms::kv::mlx(&v.arch, ctx, par.max(1), tk));
    let mut s = format!(
        "mlx_lm.server --model {} --decode-concurrency {par}",
        c.model()
    );
    if let Some(b) = kv {
        s.push_str(&format!(" --prompt-cache-bytes {}", b.get()));
    }
    s
}

/// A transformers pipeline.
fn transformers(c: &Cmd) -> String {
    let Cmd {
        i, yarn, ctx, par, ..
    } = *c;
    // YaRN: transformers takes the config's rope_scaling as a model keyword.
    let rope = yarn.map_or(String::new(), |y| {
        format!(
            ", model_kwargs={{'rope_scaling': {{'rope_type': 'yarn', 'factor': {}, 'original_max_position_embeddings': {}}}}}",
            float_literal(y.factor),
            y.original_ctx
        )
    });
    let s = format!(
        "python -c \"from transformers import pipeline; p = pipeline('text-generation', model='{}', torch_dtype='auto', device_map='auto'{rope}); print(p(['Hello'] * {par}, max_new_tokens={ctx}, batch_size={par}))\"",
        c.model()
    );
    spec_generate_args(s, i)
}

/// `spec=ngram` on transformers: prompt lookup decoding, `prompt_lookup_num_tokens` of
/// `generate` (docs/source/en/generation_strategies.md), nothing more on the card; written
/// into the pipeline call of `s`.
#[cfg(feature = "spec")]
fn spec_generate_args(mut s: String, i: &Inputs) -> String {
    if let (Some(crate::inputs::Spec::Ngram), Some(n), Some(k)) = (i.spec, i.ndraft, s.rfind("))"))
    {
        s.insert_str(k, &format!(", prompt_lookup_num_tokens={n}"));
    }
    s
}

#[cfg(not(feature = "spec"))]
fn spec_generate_args(s: String, _: &Inputs) -> String {
    s
}

/// vLLM's and SGLang's parallel flags for `split` = `(tp, pp)`: each size above 1 (the tensor
/// size also on one card); mixed cards are pipeline stages, one per card.
fn parallel_flags(i: &Inputs, layout: Sharing, split: (u32, u32)) -> String {
    let (tp, pp) = if !i.gpus.is_empty() && layout == Sharing::Layer {
        (1, i.cards)
    } else if split.0.saturating_mul(split.1) == i.cards.max(1) {
        split
    } else if layout == Sharing::Layer {
        (1, i.cards)
    } else {
        (i.cards, 1)
    };
    crate::serve::placement::parallel_words(i.engine, tp, pp)
}
