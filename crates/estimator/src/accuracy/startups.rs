//! Published vLLM startup outcomes (`tests/data/vllm-startups.json`, each with its URL and,
//! where the source states it, the vLLM version): whether vLLM started or refused for lack of
//! memory, beside the estimate's verdict for the same setting.

use std::fmt::Write;

/// One published startup: what vLLM did with a setting, and the setting as a permalink.
#[derive(Clone, Debug, PartialEq)]
pub struct StartupOutcome {
    /// Where it is published.
    pub url: String,
    /// The vLLM version, when the source states it.
    pub version: Option<String>,
    /// The setting as a permalink.
    pub query: String,
    /// Whether vLLM started.
    pub started: bool,
    /// "Available KV cache memory", GiB, when printed.
    pub kv_gib: Option<f64>,
    /// How the setting was read from the source.
    pub how: String,
    /// When the estimate's verdict differs: the mechanism, named.
    pub miss: Option<String>,
}

/// Every row of `tests/data/vllm-startups.json` (a row missing a field is left out; the test
/// counts them).
pub fn startup_outcomes() -> Vec<StartupOutcome> {
    let data: serde_json::Value =
        serde_json::from_str(include_str!("../../tests/data/vllm-startups.json"))
            .unwrap_or_default();
    let text = |r: &serde_json::Value, k: &str| r[k].as_str().map(String::from);
    data["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter_map(|r| {
                    Some(StartupOutcome {
                        url: text(r, "url")?,
                        version: text(r, "version"),
                        query: text(r, "query")?,
                        started: match r["outcome"].as_str()? {
                            "started" => true,
                            "failed" => false,
                            _ => return None,
                        },
                        kv_gib: r["kv_gib"].as_f64(),
                        how: text(r, "how")?,
                        miss: text(r, "miss"),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A row's setting decoded as the CLI decodes it: a format the catalog lacks for the model
/// (an FP8 or a bitsandbytes checkpoint) is computed by the size rule first
/// ([`crate::inputs::permalink::from_query_computing`]).
pub fn decoded(query: &str) -> crate::inputs::permalink::Parsed {
    crate::inputs::permalink::from_query_computing(query).0
}

/// The startup outcomes against the estimate's verdict, and the misses named.
pub(crate) fn startup_section(s: &mut String) {
    let rows = startup_outcomes();
    let _ = writeln!(s, "\n## vLLM startup outcomes\n");
    let _ = writeln!(
        s,
        "Whether vLLM started or refused for lack of memory, as published, against the estimate's \
         verdict for the same setting (`fits`: every hard check, vLLM's startup included). The \
         rows near the edge matter most: a pool of one or two requests, or a refusal. Each row \
         with its vLLM version where the source states it (`tests/data/vllm-startups.json`).\n"
    );
    let _ = writeln!(
        s,
        "| configuration | vLLM | logged | estimated | KV GiB logged | estimated | source |"
    );
    let _ = writeln!(s, "|---|---|---|---|---:|---:|---|");
    let mut agree = 0;
    let mut misses = Vec::new();
    for r in &rows {
        let e = crate::serve::estimate(&decoded(&r.query).inputs);
        let word = |ok: bool| if ok { "started" } else { "failed" };
        if e.fits == r.started {
            agree += 1;
        }
        if let Some(m) = &r.miss {
            misses.push(format!("- `{}`: {m}", r.query));
        }
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} | {} | {:.2} | [source]({}) |",
            r.query,
            r.version.as_deref().unwrap_or("not stated"),
            word(r.started),
            if e.fits { "starts" } else { "fails" },
            r.kv_gib.map_or("—".to_string(), |k| format!("{k:.2}")),
            e.kv_pool_bytes.unwrap_or_default().gib(),
            r.url
        );
    }
    let _ = writeln!(
        s,
        "\nThe verdict agrees on {agree} of {} outcomes ({} refusals). Where it does not:\n",
        rows.len(),
        rows.iter().filter(|r| !r.started).count()
    );
    for m in misses {
        let _ = writeln!(s, "{m}");
    }
}

/// For each engine, the versions its rows cover, and what is out of the domain.
pub(crate) fn versions_section(s: &mut String) {
    let mut vllm: Vec<String> = startup_outcomes()
        .into_iter()
        .filter_map(|r| r.version)
        .map(|v| v.split(".dev").next().unwrap_or(&v).to_string())
        .chain(std::iter::once("0.19.0".to_string()))
        .collect();
    crate::order::sort_by(&mut vllm, |a, b| version_key(a).cmp(&version_key(b)));
    vllm.dedup();
    let _ = writeln!(s, "\n## Engine versions the rows cover\n");
    let _ = writeln!(s, "| engine | versions | rows |\n|---|---|---|");
    let rows: [(&str, String, &str); 7] = [
        (
            "vLLM",
            vllm.join(", "),
            "KV pools: 0.19.0 logs only (the profile's domain); startup outcomes: each row's version, several not stated; decode: 0.6.3 (the Qwen speed benchmark)",
        ),
        (
            "SGLang",
            "not stated by the sources".into(),
            "five startup logs",
        ),
        (
            "transformers",
            "4.51 with FlashAttention-2".into(),
            "the Qwen3 speed benchmark's memory rows",
        ),
        (
            "Unsloth",
            "not stated by the source".into(),
            "the Studio VRAM estimation page's end-to-end runs",
        ),
        (
            "llama.cpp",
            "allocation rules read from its source; decode rows build 6918 (DGX Spark); encoder compute buffers read off its allocator at 0c1e57098bba (CPU backend); one card's compute buffer against published CUDA0 buffers of llama-server (b9464 and later: Unsloth Studio's measurements, 2026) and a b5781 log".into(),
            "KV cache byte-exact in tests/llama_kv.rs; an encoder's compute buffer (BERT, XLM-RoBERTa, nomic-bert; mean, CLS and a reranker's rank pooling) byte-exact on 160 configurations with flash attention in tests/encoders.rs; a chat model's compute buffer on one card within 1.5–2.9 % of five published CUDA0 buffers (q8_0 cache, 262,144 cells) and its KQ mask's slope exact (tests/llama_compute.rs); decode tables below",
        ),
        (
            "Ollama",
            "0.30 and later (llama-server for every GGUF model)".into(),
            "llama.cpp's allocation rules; 0.24 and earlier are a named miss",
        ),
        (
            "MLX",
            "mlx 0.29.2 (mlx-lm's BENCHMARKS.md)".into(),
            "decode rows; peaks of Qwen3-4B and Qwen3-30B-A3B at 4, 5, 6 and 8 bits within 2 % (`tests/mlx_peaks.rs`: one prefill step's activations plus the inputs of the 11 Metal command buffers MLX keeps in flight)",
        ),
    ];
    for (engine, versions, what) in rows {
        let _ = writeln!(s, "| {engine} | {versions} | {what} |");
    }
    let _ = writeln!(s, "\nOut of the domain, named:\n");
    for line in OUT_OF_DOMAIN {
        let _ = writeln!(s, "- {line}");
    }
}

/// What the rows do not cover, each with its evidence.
const OUT_OF_DOMAIN: [&str; 8] = [
    "**vLLM 0.21 and later: CUDA graphs inside the pool's accounting**: since 0.21.0 vLLM estimates its CUDA graph pool while it profiles and leaves it out of the KV cache (\"CUDA graph memory profiling is enabled (default since v0.21.0)\"). In a 0.29.0 log of Qwen3-14B on one L40S ([base.startup.log](https://github.com/samilazrak/vllm-optimization-lab/blob/a7b193a33a718b3cb3f95476791932afdf599c2b/results/raw/base.startup.log)) \"--gpu-memory-utilization=0.9200 is equivalent to --gpu-memory-utilization=0.9086 without CUDA graph memory profiling\": 0.51 GiB of its 44.39 GiB, the \"0.51 GiB (estimated)\" graph pool it prints. Its 11.06 GiB pool is 11.57 GiB in 0.19's accounting, against the estimate's 11.40 (its startup row above): the estimate keeps 0.19's accounting, so on 0.21 and later its pool is high by that graph estimate, which no formula here computes yet.",
    "**vLLM at a smaller `--max-num-seqs`**: the profile's sampler warm-up runs on min(max_num_tokens, max_num_reqs) rows of logits ([`_dummy_sampler_run`](https://github.com/vllm-project/vllm/blob/main/vllm/v1/worker/gpu_model_runner.py)), so fewer sequences lower the peak the estimate holds at the default's 3,950 rows; below about 128 sequences the forward at `--max-num-batched-tokens` sets it instead (V0 printed 1.71, 1.10 and 1.10 GiB at 256, 128 and 1 sequences, [#9003](https://github.com/vllm-project/vllm/pull/9003)). No V1 log at a small `--max-num-seqs` with its peak was found, so what would start names `--max-model-len` and `--gpu-memory-utilization`, not `--max-num-seqs`; for the commands fitcard writes (`--max-num-seqs` = the requests planned) the overhead errs high (the default's peak holds both warm-ups).",
    "**vLLM's Mamba cache blocks (hybrid models)**: recent vLLM refuses a hybrid model (Gated DeltaNet or Mamba layers beside attention) whose `--max-num-seqs` exceeds the state blocks its pool holds, after the KV check passed: \"max_num_seqs (1024) exceeds available Mamba cache blocks (969)\" for a 64-layer Qwen3.8-27B at 132,000 tokens on an H100 (0.28.0) and \"max_num_seqs (256) exceeds available Mamba cache blocks (161)\" on two 20 GiB cards (0.23.1) ([#49064](https://github.com/vllm-project/vllm/issues/49064)), \"max_num_seqs (1024) exceeds available Mamba cache blocks (614)\" for Qwen3.6-27B on an H100 (0.25.1, [kaito #2319](https://github.com/kaito-project/kaito/issues/2319)). Every decode sequence needs one state block; vLLM's default `--max-num-seqs` (256, 1024 on large cards) trips it. The commands fitcard writes set `--max-num-seqs` to the requests planned, which the pool holds, so they start; the block count at vLLM's default is not computed, and those rows are not in the table (their `--max-model-len` or card is not stated in full).",
    "**AMD and Intel cards**: every memory row above was measured on NVIDIA cards (CUDA). On an AMD or Intel card the engines run other backends (llama.cpp's HIP/ROCm, Vulkan or SYCL; vLLM's and SGLang's ROCm or XPU builds) whose context and compute buffers no row covers: the estimate marks its overhead outside the measured domain there, naming the card. Their KV cache and weights follow the same allocation rules.",
    "**vLLM before 0.19**: the profiled peak differs by version. An H100 log set whose version is not stated ([llm-d-benchmark](https://github.com/llm-d/llm-d-benchmark/blob/259334868c5075da530cc6c90b43fceb11b6e6a7/config_explorer/empirical-vllm-memory-results.md)) prints peaks of 4.76–7.38 GiB where the 0.19 profile (4 B × vocabulary × 3,950 rows) gives 1.9–3.0 GiB, so its pools are 2.8–5.0 GiB smaller than estimated (its outcomes still agree, above); V0 engines profiled a forward of the whole `--max-model-len` (the miss above).",
    "**Ollama 0.24 and earlier**: those releases ran gemma3, gemma3n, gemma4, gpt-oss, qwen3, llama4 and others on Ollama's own Go engine ([OllamaEngineRequired](https://github.com/ollama/ollama/blob/c28ddc0a7b273cd286b680a6db0bef0c17bc0ec0/fs/ggml/ggml.go#L277)), which put the output group (per-layer embeddings, a copy of tied token embeddings, the vision tower) on the card — 6.1 GB for gemma4:e4b ([#15634](https://github.com/ollama/ollama/issues/15634)) — and counted CPU-resident buffers in `ollama ps`: gemma4:31b at 262,144 tokens read 44.8 GB on 0.24.0 and 22 GB on 0.30.8 ([#16763](https://github.com/ollama/ollama/issues/16763)). Ollama 0.30 serves every GGUF model on llama-server ([9db4bdbad](https://github.com/ollama/ollama/commit/9db4bdbad6a4981ad761aa2b603e69e8fb83212c)), the engine the estimate models.",
    "**Trainers without gradient checkpointing**: PEFT's method comparison (Llama-3.2-3B on an L40S, pure bf16, batch 4, samples truncated at 768 tokens, torch AdamW, no checkpointing, its own training loop; transformers 5.13.1, torch 2.13.0) reports reserved peaks of 20.76 GiB for LoRA r 32 on q,v ([result](https://github.com/huggingface/peft/blob/5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40/method_comparison/MetaMathQA/results/lora--llama-3.2-3B-rank32.json)) and 36.20 GiB for full fine-tuning ([result](https://github.com/huggingface/peft/blob/5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40/method_comparison/MetaMathQA/results/full-finetuning--llama-3.2-3B-lr_0.00001.json)), `torch.cuda.max_memory_reserved` over the whole run (no CUDA context); the transformers profile at 4 × 768 tokens gives 21.81 and 39.63 GiB without its 1.4 GiB context: 5 % and 9 % high. What the run's code shows ([run.py](https://github.com/huggingface/peft/blob/5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40/method_comparison/MetaMathQA/run.py), [data.py](https://github.com/huggingface/peft/blob/5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40/method_comparison/MetaMathQA/data.py), [utils.py](https://github.com/huggingface/peft/blob/5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40/method_comparison/MetaMathQA/utils.py)): samples over 1,300 characters are dropped before tokenizing so that truncation at 768 rarely fires, and batches of 4 are padded to their longest sample, whose length is not published (the mean sample is 210 tokens: 4,198,051 tokens over 20,000 samples), so the longest batch need not reach 768; `zero_grad` sets the gradients to None at each step's start and each step is one batch, so at the loss's backward, where every layer's saved tensors are alive, no gradient exists yet (the profile adds 5.98 GiB of bf16 gradients to every activation for the full fine-tune); and the full fine-tune saves more per layer than the profile's (7H+2K+4M) × 2 B (its trainable Linears and norms keep their inputs, and SDPA with a padding mask repeats K/V to every head). The two full fine-tuning errors run in opposite directions; not modelled while the longest batch is unknown.",
    "**transformers peaks read from PyTorch's allocator**: `torch.cuda.max_memory_allocated` (or `max_memory_reserved`) leaves out the CUDA context, which the card holds and the estimate counts (0.7 GiB per card, the overhead's fixed arm); against such a peak a small model's estimate reads high by that much, most at short contexts: Qwen3-0.6B BF16 on transformers gives 2.23 GB at 2,048 tokens and 1.48 GB without the context arm (+51 %), 5.75 against 5.00 GB at 32,768 (+15 %), the 15–52 % held-out gap on Qwen3-0.6B and 1.7B. Compare an allocator peak with the estimate less 0.7 GiB per card, as `tests/measurements.rs` does with the Qwen speed benchmark's rows (within 1–4 % from 2,049 tokens); no allocator peak of these models below 2K tokens is published.",
];

/// A version's numeric parts, for ordering ("0.8.5" before "0.19.0").
fn version_key(v: &str) -> Vec<u64> {
    v.split('.').filter_map(|p| p.parse().ok()).collect()
}
