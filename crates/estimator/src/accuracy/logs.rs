//! The engines' published startup logs (`tests/data/engine-logs.json`) as permalinks beside
//! what each engine printed.

use crate::catalog::catalog;

/// The rows of one engine (`vllm`, `sglang`) in `tests/data/engine-logs.json`.
fn engine_rows(engine: &str) -> Vec<serde_json::Value> {
    let data: serde_json::Value =
        serde_json::from_str(include_str!("../../tests/data/engine-logs.json")).unwrap_or_default();
    data[engine].as_array().cloned().unwrap_or_default()
}

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
    engine_rows("vllm")
        .iter()
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
    engine_rows("sglang")
        .iter()
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
