//! Published measurements the estimator is checked against, one row each with its source, and
//! the accuracy report built from them (`fitcard report` writes `docs/accuracy.md`).
//!
//! Each row is a permalink (what a user would type), the number that was measured, and what kind
//! of reading it is, so the estimate is compared like with like:
//! * [`Reading::AllocatorPeak`]: PyTorch's allocator peak, which leaves the CUDA context out;
//!   the estimate's per-card context (0.7 GiB) is taken out again.
//! * [`Reading::NvidiaSmi`]: memory in use as nvidia-smi shows it: the whole estimate.
//!
//! Two naive baselines are reported beside the estimate, to show what the mechanisms buy:
//! * *params × bits + 20 %*: parameters (from the config) × the format's nominal bits, plus 20 %;
//! * *all heads, all layers*: the file size plus a KV cache for every layer with every attention
//!   head (no grouped-query attention, no sliding windows), at the same context and slots.

use crate::catalog::catalog;
use crate::inputs::permalink::decode;
use crate::inputs::Mode;
use crate::serve::estimate;
use crate::terms::overhead::PER_CARD_GIB;
use crate::train;
use crate::units::{Bytes, GIB, MIB};
use std::fmt::Write;

/// What a measurement read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// PyTorch's allocator peak (`torch.cuda.max_memory_allocated`): no CUDA context.
    AllocatorPeak,
    /// nvidia-smi's memory in use: everything on the card.
    NvidiaSmi,
}

/// One published measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Stable id of the row.
    pub id: &'static str,
    /// The configuration as a permalink.
    pub query: &'static str,
    /// What was measured, MiB.
    pub measured_mib: f64,
    /// What kind of reading it is.
    pub reading: Reading,
    /// Where it was published.
    pub source: &'static str,
    /// The setting in words.
    pub note: &'static str,
}

/// Qwen3 speed benchmark: transformers 4.51.3, torch 2.6.0, flash-attn 2.7.4, one H20, BF16,
/// "GPU Memory (MB)" peak during generation (the MB behave as MiB).
pub const QWEN3_BENCH: &str =
    "https://qwen.readthedocs.io/en/latest/getting_started/speed_benchmark.html";

/// Unsloth Studio's end-to-end validation of its estimator (Llama-3.2-1B, rank 16, all targets,
/// Unsloth checkpointing), the "Actual (nvsmi)" column.
pub const UNSLOTH_E2E: &str = "https://github.com/unslothai/unsloth/blob/main/studio/backend/utils/hardware/VRAM_ESTIMATION.md";

/// Every measured row the repository ships.
pub const ROWS: &[Measured] = &[
    Measured {
        id: "INF-HF-Qwen3-0.6B-BF16-1",
        query: "model=Qwen/Qwen3-0.6B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 1394.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-0.6B-BF16-6144",
        query: "model=Qwen/Qwen3-0.6B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 2066.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-0.6B-BF16-14336",
        query: "model=Qwen/Qwen3-0.6B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 2963.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-0.6B-BF16-30720",
        query: "model=Qwen/Qwen3-0.6B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 4755.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-1.7B-BF16-1",
        query: "model=Qwen/Qwen3-1.7B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 3412.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-1.7B-BF16-6144",
        query: "model=Qwen/Qwen3-1.7B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 4213.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-1.7B-BF16-14336",
        query: "model=Qwen/Qwen3-1.7B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 5109.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-1.7B-BF16-30720",
        query: "model=Qwen/Qwen3-1.7B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 6902.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-4B-BF16-1",
        query: "model=Qwen/Qwen3-4B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 7973.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-4B-BF16-6144",
        query: "model=Qwen/Qwen3-4B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 8860.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-4B-BF16-14336",
        query: "model=Qwen/Qwen3-4B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 10012.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-4B-BF16-30720",
        query: "model=Qwen/Qwen3-4B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 12317.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-8B-BF16-1",
        query: "model=Qwen/Qwen3-8B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 15947.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-8B-BF16-6144",
        query: "model=Qwen/Qwen3-8B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 16811.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-8B-BF16-14336",
        query: "model=Qwen/Qwen3-8B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 17963.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-8B-BF16-30720",
        query: "model=Qwen/Qwen3-8B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 20267.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-14B-BF16-1",
        query: "model=Qwen/Qwen3-14B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 28402.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-14B-BF16-6144",
        query: "model=Qwen/Qwen3-14B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 29495.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-14B-BF16-14336",
        query: "model=Qwen/Qwen3-14B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 30775.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-14B-BF16-30720",
        query: "model=Qwen/Qwen3-14B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 33336.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-32B-BF16-1",
        query: "model=Qwen/Qwen3-32B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 62751.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-32B-BF16-6144",
        query: "model=Qwen/Qwen3-32B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 64583.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-32B-BF16-14336",
        query: "model=Qwen/Qwen3-32B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 66632.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-32B-BF16-30720",
        query: "model=Qwen/Qwen3-32B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 70728.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-30B-A3B-BF16-1",
        query: "model=Qwen/Qwen3-30B-A3B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 58462.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-30B-A3B-BF16-6144",
        query: "model=Qwen/Qwen3-30B-A3B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 59037.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-30B-A3B-BF16-14336",
        query: "model=Qwen/Qwen3-30B-A3B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 59806.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "INF-HF-Qwen3-30B-A3B-BF16-30720",
        query: "model=Qwen/Qwen3-30B-A3B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 61342.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    Measured {
        id: "TR-UNS-E2E-QLoRA-bsz-2-seq-512",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=qlora&rank=16&bsz=2&seq=512&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 2713.6,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "QLoRA bsz=2 seq=512; nvidia-smi on a B200 capped at 24 GB",
    },
    Measured {
        id: "TR-UNS-E2E-QLoRA-bsz-2-seq-2048",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=qlora&rank=16&bsz=2&seq=2048&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 2713.6,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "QLoRA bsz=2 seq=2048; nvidia-smi on a B200 capped at 24 GB",
    },
    Measured {
        id: "TR-UNS-E2E-QLoRA-bsz-4-seq-2048",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=qlora&rank=16&bsz=4&seq=2048&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 2713.6,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "QLoRA bsz=4 seq=2048; nvidia-smi on a B200 capped at 24 GB",
    },
    Measured {
        id: "TR-UNS-E2E-LoRA-16-bit-bsz-2-seq-2048",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=lora&rank=16&bsz=2&seq=2048&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 3973.1,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "LoRA 16-bit bsz=2 seq=2048; nvidia-smi on a B200 capped at 24 GB",
    },
    Measured {
        id: "TR-UNS-E2E-Full-FT-adamw-8bit",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=full&rank=16&bsz=2&seq=2048&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 11059.2,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "Full FT adamw_8bit; nvidia-smi on a B200 capped at 24 GB",
    },
    Measured {
        id: "TR-UNS-E2E-Full-FT-adamw-torch",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=full&rank=16&bsz=2&seq=2048&gc=unsloth&optim=adamw_torch&free=24",
        measured_mib: 13240.3,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "Full FT adamw_torch; nvidia-smi on a B200 capped at 24 GB",
    },
];

/// One vLLM startup log: what vLLM printed, and the permalink of the same setting.
#[derive(Clone, Debug, PartialEq)]
pub struct VllmLog {
    /// Where the log is published.
    pub url: String,
    /// The setting as a permalink.
    pub query: String,
    /// "Available KV cache memory", GiB.
    pub kv_gib: f64,
    /// "GPU KV cache size", tokens.
    pub tokens: u64,
    /// "Maximum concurrency for N tokens per request".
    pub concurrency: f64,
}

/// The published vLLM startup logs the estimator's vLLM profile is checked against
/// (`tests/data/engine-logs.json`, each with its URL), within its domain: vLLM 0.19 on one
/// card, tensor or pipeline parallelism (the log's split pinned with `tp=`, since the
/// estimator would otherwise choose its own), a catalog model in a catalog format.
pub fn vllm_logs() -> Vec<VllmLog> {
    let data: serde_json::Value =
        serde_json::from_str(include_str!("../../tests/data/engine-logs.json")).unwrap_or_default();
    let rows = data["vllm"].as_array().cloned().unwrap_or_default();
    rows.iter()
        .filter_map(|r| {
            let model = r["model"].as_str()?;
            let (_, v) = catalog().variant(model)?;
            if r["engine_version"].as_str()? != "0.19.0" || r["status"].as_str()? != "ok" {
                return None;
            }
            let tp = r["tensor_parallel_size"].as_u64()?;
            let pp = r["pipeline_parallel_size"].as_u64().unwrap_or(1);
            let quant = match r["quantization"].as_str() {
                None => "BF16",
                Some("mxfp4") => "MXFP4",
                Some(_) => return None,
            };
            if !v.formats.iter().any(|f| f.id.id() == quant) {
                return None;
            }
            let kv = match r["kv_cache_dtype"].as_str() {
                Some("fp8") => "fp8",
                _ => "auto",
            };
            let query = format!(
                "model={model}&engine=vllm&quant={quant}&cards={}&tp={tp}&vram={}&util={}&ctx={}&kv={kv}",
                tp * pp,
                r["gpu_total_memory_gib"].as_f64()?,
                r["gpu_memory_utilization"].as_f64()?,
                r["max_model_len"].as_u64()?,
            );
            Some(VllmLog {
                url: r["url"].as_str()?.to_string(),
                query,
                kv_gib: r["available_kv_cache_gib"].as_f64()?,
                tokens: r["gpu_kv_cache_tokens"].as_u64()?,
                concurrency: r["max_concurrency"].as_f64()?,
            })
        })
        .collect()
}

/// One SGLang startup log: the token pool SGLang printed, and the permalink of the same setting.
#[derive(Clone, Debug, PartialEq)]
pub struct SglangLog {
    /// Where the log is published.
    pub url: String,
    /// The setting as a permalink.
    pub query: String,
    /// "KV Cache is allocated. #tokens: N" / "max_total_num_tokens=N".
    pub tokens: u64,
    /// K size + V size as printed (SGLang's "GB" is GiB), per card.
    pub kv_gib: f64,
    /// What the log leaves out and how it was filled in (empty when nothing was).
    pub inferred: String,
    /// A mechanism the SGLang profile lacks that this log shows, named, when the row is
    /// outside 5 % because of it.
    pub gap: Option<&'static str>,
}

/// SGLang's default `--mem-fraction-static` on one card in the releases these logs come from
/// (python/sglang/srt/server_args.py, `__post_init__`: 0.88 below tp 2).
pub const SGLANG_DEFAULT_FRACTION_TP1: f64 = 0.88;

/// The published SGLang startup logs (`tests/data/engine-logs.json`, each with its URL) the
/// estimator's SGLang profile is checked against. A log that does not print the card or the
/// fraction gets the card its free memory implies and SGLang's default fraction, said in
/// `inferred`; the context is the model's maximum (SGLang's default `--context-length`).
pub fn sglang_logs() -> Vec<SglangLog> {
    let data: serde_json::Value =
        serde_json::from_str(include_str!("../../tests/data/engine-logs.json")).unwrap_or_default();
    let rows = data["sglang"].as_array().cloned().unwrap_or_default();
    rows.iter()
        .filter_map(|r| {
            let url = r["url"].as_str()?;
            // The catalog's id for the log's checkpoint, its format, and the card: printed, or
            // the smallest catalog card that holds the free memory printed before loading.
            let (model, quant) = match r["model"].as_str()? {
                "meta-llama/Meta-Llama-3.1-8B-Instruct" | "meta-llama/Llama-3.1-8B-Instruct" => {
                    ("meta-llama/Llama-3.1-8B-Instruct", "BF16")
                }
                "Qwen/Qwen3-235B-A22B-FP8" => ("Qwen/Qwen3-235B-A22B", "FP8"),
                "Qwen/Qwen3-14B" => ("Qwen/Qwen3-14B", "BF16"),
                _ => return None,
            };
            let (_, v) = catalog().variant(model)?;
            let cards = r["tensor_parallel_size"].as_u64().unwrap_or(1);
            let free_before = r["gpu_avail_mem_before_load_gb"].as_f64().or_else(|| {
                Some(r["avail_mem_after_load_gb"].as_f64()? + r["load_weight_mem_usage_gb"].as_f64()?)
            });
            let mut inferred = Vec::new();
            let gpu = match (r["gpu_model"].as_str(), free_before) {
                (Some(g), _) if g.starts_with("NVIDIA H100") => "h100-sxm",
                (_, Some(f)) => {
                    let g = catalog()
                        .gpus
                        .iter()
                        .filter(|g| g.vram_bytes.gib() >= f)
                        .min_by_key(|g| g.vram_bytes)?;
                    inferred.push(format!("card: {} (the smallest that holds the {f:.2} GiB free before loading)", g.name));
                    g.id.as_str()
                }
                _ => "h100-sxm",
            };
            let util = match r["mem_fraction_static"].as_f64() {
                Some(u) => u,
                None if cards == 1 => {
                    inferred.push(format!(
                        "--mem-fraction-static: SGLang's default {SGLANG_DEFAULT_FRACTION_TP1}"
                    ));
                    SGLANG_DEFAULT_FRACTION_TP1
                }
                None => return None,
            };
            let ctx = r["context_length"].as_u64().unwrap_or(u64::from(v.arch.max_ctx));
            let tokens = r["kv_cache_tokens"]
                .as_u64()
                .or_else(|| r["max_total_num_tokens"].as_u64())?;
            Some(SglangLog {
                url: url.to_string(),
                query: format!(
                    "model={model}&engine=sglang&quant={quant}&cards={cards}&tp={cards}&gpu={gpu}&util={util}&ctx={ctx}"
                ),
                tokens,
                kv_gib: r["k_size_gb"].as_f64()? + r["v_size_gb"].as_f64()?,
                inferred: inferred.join("; "),
                gap: None,
            })
        })
        .collect()
}

/// The estimate comparable with `row`'s reading, MiB.
pub fn estimated_mib(row: &Measured) -> f64 {
    let i = decode(row.query).inputs;
    let total = match i.mode {
        Mode::Serve => estimate(&i).total_device_bytes,
        Mode::Train => train::estimate(&i).estimate.total_device_bytes,
    };
    let context = match (row.reading, i.mode) {
        (Reading::AllocatorPeak, Mode::Serve) => PER_CARD_GIB * f64::from(i.cards) * 1024.0,
        _ => 0.0,
    };
    total.mib() - context
}

/// Naive baseline 1: parameters × the format's bits + 20 % (serve rows only).
pub fn naive_params_mib(row: &Measured) -> Option<f64> {
    let i = decode(row.query).inputs;
    if i.mode != Mode::Serve {
        return None;
    }
    let (_, v) = catalog().variant(&i.model)?;
    let params = train::terms::Dims::of(&v.arch).total_params() as f64;
    Some(params * i.quant.precision_bits() / 8.0 * 1.2 / MIB as f64)
}

/// Naive baseline 2: the file plus a KV cache of every layer with every attention head
/// (serve rows only).
pub fn naive_kv_mib(row: &Measured) -> Option<f64> {
    let i = decode(row.query).inputs;
    if i.mode != Mode::Serve {
        return None;
    }
    let (_, v) = catalog().variant(&i.model)?;
    let f = v
        .formats
        .iter()
        .find(|f| f.id == i.quant && f.container == i.engine.container())?;
    let a = &v.arch;
    let kv = 2.0
        * f64::from(a.layers)
        * f64::from(a.heads)
        * a.head_dim as f64
        * 2.0
        * f64::from(i.ctx)
        * f64::from(i.par);
    Some((f.bytes.as_f64() + kv) / MIB as f64)
}

/// Errors of one engine or family (GiB): the estimate's, and the two naive baselines'.
type Group = (String, Vec<f64>, Vec<f64>, Vec<f64>);

/// Median and worst absolute error of `errs`, GiB.
fn stats(errs: &[f64]) -> (f64, f64) {
    let mut a: Vec<f64> = errs.iter().map(|e| e.abs()).collect();
    a.sort_by(f64::total_cmp);
    let med = if a.is_empty() {
        0.0
    } else if a.len() % 2 == 1 {
        a[a.len() / 2]
    } else {
        (a[a.len() / 2 - 1] + a[a.len() / 2]) / 2.0
    };
    (med, a.last().copied().unwrap_or(0.0))
}

fn gib(mib: f64) -> f64 {
    mib / 1024.0
}

/// The accuracy report as Markdown (what `docs/accuracy.md` holds).
pub fn report() -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Accuracy\n");
    let _ = writeln!(
        s,
        "Generated by `fitcard report` from the measured rows the repository ships \
         (`crates/estimator/src/accuracy.rs`); CI fails when this file is stale. Sizes in GiB \
         (2^30 bytes); error = estimate − measured.\n"
    );
    let _ = writeln!(
        s,
        "Naive baselines beside the estimate: **A** = parameters × the format's bits + 20 %; \
         **B** = the file plus a KV cache of every layer with every attention head (no \
         grouped-query attention, no sliding window).\n"
    );
    // Groups: engine and family.
    let mut groups: Vec<Group> = Vec::new();
    let _ = writeln!(
        s,
        "| row | configuration | measured | estimate | error | error % | A error | B error | source |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---|");
    for r in ROWS {
        let est = estimated_mib(r);
        let err = gib(est - r.measured_mib);
        let a = naive_params_mib(r).map(|x| gib(x - r.measured_mib));
        let b = naive_kv_mib(r).map(|x| gib(x - r.measured_mib));
        let fmt = |x: Option<f64>| x.map_or("—".to_string(), |x| format!("{x:+.2}"));
        let _ = writeln!(
            s,
            "| {} | `{}` ({}) | {:.2} | {:.2} | {err:+.2} | {:+.1} % | {} | {} | [source]({}) |",
            r.id,
            r.query,
            r.note,
            gib(r.measured_mib),
            gib(est),
            100.0 * (est - r.measured_mib) / r.measured_mib,
            fmt(a),
            fmt(b),
            r.source
        );
        let i = decode(r.query).inputs;
        let engine = match i.mode {
            Mode::Serve => i.engine.id().to_string(),
            Mode::Train => "unsloth".to_string(),
        };
        let family = catalog()
            .variant(&i.model)
            .map_or("?".to_string(), |(f, _)| f.name.clone());
        for key in [format!("engine {engine}"), format!("family {family}")] {
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => {
                    g.1.push(err);
                    g.2.extend(a);
                    g.3.extend(b);
                }
                None => groups.push((
                    key,
                    vec![err],
                    a.into_iter().collect(),
                    b.into_iter().collect(),
                )),
            }
        }
    }
    let _ = writeln!(s, "\n## vLLM startup logs\n");
    let _ = writeln!(
        s,
        "What vLLM prints at startup against the estimate's `kv_pool_bytes`, `kv_pool_tokens` and \
         `max_concurrency` (vLLM 0.19, H100 80GB; one row per log).\n"
    );
    let _ = writeln!(
        s,
        "| configuration | KV GiB logged | estimated | error % | tokens logged | estimated | concurrency logged | estimated | source |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---|");
    let mut vllm_errs = Vec::new();
    for l in vllm_logs() {
        let e = estimate(&decode(&l.query).inputs);
        let pool = e.kv_pool_bytes.unwrap_or_default().gib();
        let err = 100.0 * (pool - l.kv_gib) / l.kv_gib;
        vllm_errs.push(pool - l.kv_gib);
        let _ = writeln!(
            s,
            "| `{}` | {:.2} | {pool:.2} | {err:+.1} % | {} | {} | {:.2} | {:.2} | [log]({}) |",
            l.query,
            l.kv_gib,
            l.tokens,
            e.kv_pool_tokens.unwrap_or_default(),
            l.concurrency,
            e.max_concurrency.unwrap_or_default(),
            l.url
        );
    }
    groups.push((
        "engine vllm (KV pool)".to_string(),
        vllm_errs,
        Vec::new(),
        Vec::new(),
    ));
    let _ = writeln!(s, "\n## SGLang startup logs\n");
    let _ = writeln!(
        s,
        "What SGLang prints at startup (\"KV Cache is allocated. #tokens: N, K size: …, V size: …\", \
         per card) against the estimate's `kv_pool_bytes` and `kv_pool_tokens`; what a log leaves \
         out and how it was filled in, and a mechanism the profile lacks, are named per row.\n"
    );
    let _ = writeln!(
        s,
        "| configuration | KV GiB logged | estimated | error % | tokens logged | estimated | filled in | gap | source |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---|---|---|");
    let mut sglang_errs = Vec::new();
    for l in sglang_logs() {
        let e = estimate(&decode(&l.query).inputs);
        let pool = e.kv_pool_bytes.unwrap_or_default().gib();
        let err = 100.0 * (pool - l.kv_gib) / l.kv_gib;
        sglang_errs.push(pool - l.kv_gib);
        let dash = |x: &str| {
            if x.is_empty() {
                "—".to_string()
            } else {
                x.to_string()
            }
        };
        let _ = writeln!(
            s,
            "| `{}` | {:.2} | {pool:.2} | {err:+.1} % | {} | {} | {} | {} | [log]({}) |",
            l.query,
            l.kv_gib,
            l.tokens,
            e.kv_pool_tokens.unwrap_or_default(),
            dash(&l.inferred),
            dash(l.gap.unwrap_or_default()),
            l.url
        );
    }
    groups.push((
        "engine sglang (KV pool)".to_string(),
        sglang_errs,
        Vec::new(),
        Vec::new(),
    ));
    let _ = writeln!(s, "\n## Summary\n");
    let _ = writeln!(
        s,
        "| group | rows | median abs error | worst abs error | A median / worst | B median / worst |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|");
    for (key, e, a, b) in &groups {
        let (m, w) = stats(e);
        let pair = |x: &[f64]| {
            if x.is_empty() {
                "—".to_string()
            } else {
                let (m, w) = stats(x);
                format!("{m:.2} / {w:.2}")
            }
        };
        let _ = writeln!(
            s,
            "| {key} | {} | {m:.2} | {w:.2} | {} | {} |",
            e.len(),
            pair(a),
            pair(b)
        );
    }
    let _ = writeln!(
        s,
        "\nA regression gate (`crates/estimator/tests/baselines.rs`) fails when a change moves \
         any row's estimate by more than {:.2} GiB from `crates/estimator/tests/gate.txt`.",
        GATE.as_f64() / GIB as f64
    );
    s
}

/// Largest move of an estimate on a measured row that a change may make without updating the
/// gate's baseline together with the mechanism that explains it.
pub const GATE: Bytes = Bytes(GIB * 15 / 100);
