//! Inference engines and the facts about them that change the answer.

use crate::catalog::quant::{Container, GgmlType};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// An inference engine whose allocation is modelled. Serialized by its id (`llama.cpp`), as the
/// query string spells it.
pub enum Engine {
    /// llama.cpp's `llama-server`.
    LlamaCpp,
    /// Ollama (llama.cpp underneath).
    Ollama,
    /// vLLM.
    Vllm,
    /// SGLang.
    Sglang,
    /// Hugging Face transformers.
    Transformers,
    /// Apple's MLX (`mlx_lm.server`, also LM Studio's MLX runtime), on Apple silicon GPUs.
    Mlx,
}

/// KV cache element type as an engine names it. llama.cpp takes ggml types for K and V
/// apart (`--cache-type-k/-v`); Ollama one of f16, q8_0, q4_0 for both
/// (`OLLAMA_KV_CACHE_TYPE`); vLLM `auto` (the model's dtype), `bfloat16` or an fp8 format
/// (`--kv-cache-dtype`); transformers the model's dtype. Serialized by its id (`q8_0`), as the
/// query string spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KvDtype {
    /// The model's dtype (`auto`): 16 bit for the checkpoints in the catalog (bf16/f16), and
    /// llama.cpp's default f16 on GGUF engines.
    Auto,
    /// A ggml type (llama.cpp `--cache-type-k/-v`).
    Ggml(GgmlType),
    /// vLLM `--kv-cache-dtype fp8` (1 byte per value; e4m3 on CUDA).
    Fp8,
    /// vLLM `--kv-cache-dtype fp8_e4m3`.
    Fp8E4m3,
    /// vLLM `--kv-cache-dtype fp8_e5m2`.
    Fp8E5m2,
}

impl KvDtype {
    /// 16-bit floats, llama.cpp's default.
    pub const F16: KvDtype = KvDtype::Ggml(GgmlType::F16);
    /// bfloat16.
    pub const BF16: KvDtype = KvDtype::Ggml(GgmlType::BF16);

    /// Every type a link may choose, in the order a refusal lists them: llama.cpp's
    /// `--cache-type-k/-v` values (`common/arg.cpp` `kv_cache_types`) and vLLM's fp8
    /// `--kv-cache-dtype` values. Read aliases (`bfloat16`, `float16`, `half`, `float32`) are
    /// not listed.
    pub const ALL: [KvDtype; 13] = [
        KvDtype::Auto,
        KvDtype::F16,
        KvDtype::BF16,
        KvDtype::Ggml(GgmlType::F32),
        KvDtype::Ggml(GgmlType::Q8_0),
        KvDtype::Ggml(GgmlType::Q5_1),
        KvDtype::Ggml(GgmlType::Q5_0),
        KvDtype::Ggml(GgmlType::Q4_1),
        KvDtype::Ggml(GgmlType::Q4_0),
        KvDtype::Ggml(GgmlType::IQ4NL),
        KvDtype::Fp8,
        KvDtype::Fp8E4m3,
        KvDtype::Fp8E5m2,
    ];

    /// Bytes of `n` K (or V) values.
    pub fn row_bytes(self, n: u64) -> u64 {
        match self {
            KvDtype::Auto => n.saturating_mul(2),
            KvDtype::Ggml(t) => t.row_bytes(n),
            KvDtype::Fp8 | KvDtype::Fp8E4m3 | KvDtype::Fp8E5m2 => n,
        }
    }

    /// The spelling in the query string.
    pub fn id(self) -> &'static str {
        match self {
            KvDtype::Auto => "auto",
            KvDtype::Ggml(t) => t.name(),
            KvDtype::Fp8 => "fp8",
            KvDtype::Fp8E4m3 => "fp8_e4m3",
            KvDtype::Fp8E5m2 => "fp8_e5m2",
        }
    }

    /// The ggml type a llama.cpp-family engine stores (`auto` is its default f16).
    pub fn ggml(self) -> Option<GgmlType> {
        match self {
            KvDtype::Auto => Some(GgmlType::F16),
            KvDtype::Ggml(t) => Some(t),
            KvDtype::Fp8 | KvDtype::Fp8E4m3 | KvDtype::Fp8E5m2 => None,
        }
    }

    /// A block-quantized or 8-bit type (not 16 or 32 bit)?
    pub fn is_quantized(self) -> bool {
        !matches!(
            self,
            KvDtype::Auto | KvDtype::Ggml(GgmlType::F16 | GgmlType::BF16 | GgmlType::F32)
        )
    }
}

impl FromStr for KvDtype {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(KvDtype::Auto),
            "fp8" => Ok(KvDtype::Fp8),
            "fp8_e4m3" => Ok(KvDtype::Fp8E4m3),
            "fp8_e5m2" => Ok(KvDtype::Fp8E5m2),
            "bfloat16" => Ok(KvDtype::BF16),
            "float16" | "half" => Ok(KvDtype::F16),
            "float32" => Ok(KvDtype::Ggml(GgmlType::F32)),
            other => other.parse().map(KvDtype::Ggml),
        }
    }
}

impl fmt::Display for KvDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id())
    }
}

impl Serialize for KvDtype {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl Engine {
    /// Every engine.
    pub const ALL: [Engine; 6] = [
        Engine::LlamaCpp,
        Engine::Ollama,
        Engine::Vllm,
        Engine::Sglang,
        Engine::Transformers,
        Engine::Mlx,
    ];

    /// The spelling in the query string.
    pub const fn id(self) -> &'static str {
        match self {
            Engine::LlamaCpp => "llama.cpp",
            Engine::Ollama => "ollama",
            Engine::Vllm => "vllm",
            Engine::Sglang => "sglang",
            Engine::Transformers => "transformers",
            Engine::Mlx => "mlx",
        }
    }

    /// Words for people.
    pub const fn label(self) -> &'static str {
        match self {
            Engine::LlamaCpp => "llama.cpp (llama-server)",
            Engine::Ollama => "Ollama",
            Engine::Vllm => "vLLM",
            Engine::Sglang => "SGLang",
            Engine::Transformers => "transformers",
            Engine::Mlx => "MLX (mlx-lm)",
        }
    }

    /// The file container the engine loads.
    pub const fn container(self) -> Container {
        match self {
            Engine::LlamaCpp | Engine::Ollama => Container::Gguf,
            Engine::Vllm | Engine::Sglang | Engine::Transformers => Container::Safetensors,
            Engine::Mlx => Container::Mlx,
        }
    }

    /// Does this engine build its KV cache by llama.cpp's allocator rules?
    pub const fn llama_family(self) -> bool {
        matches!(self, Engine::LlamaCpp | Engine::Ollama)
    }

    /// KV dtypes the engine offers, most precise first (what the page lists). `auto` (the
    /// model's dtype) is accepted everywhere besides these.
    pub fn kv_choices(self) -> Vec<KvDtype> {
        match self {
            Engine::LlamaCpp => GgmlType::KV_CHOICES
                .iter()
                .map(|&t| KvDtype::Ggml(t))
                .collect(),
            // OLLAMA_KV_CACHE_TYPE: f16, q8_0, q4_0 (Ollama docs/faq.md, "How can I set the
            // quantization type for the K/V cache?").
            Engine::Ollama => vec![
                KvDtype::F16,
                KvDtype::Ggml(GgmlType::Q8_0),
                KvDtype::Ggml(GgmlType::Q4_0),
            ],
            // --kv-cache-dtype (vllm/config/cache.py, CacheDType); f16 stays accepted as the
            // 16-bit cache older links asked for.
            Engine::Vllm => vec![
                KvDtype::Auto,
                KvDtype::BF16,
                KvDtype::F16,
                KvDtype::Fp8,
                KvDtype::Fp8E4m3,
                KvDtype::Fp8E5m2,
            ],
            // --kv-cache-dtype (python/sglang/srt/server_args.py): auto, bf16, fp8_e4m3,
            // fp8_e5m2; f16 is the same 16-bit cache as `auto` for a 16-bit model.
            Engine::Sglang => vec![
                KvDtype::Auto,
                KvDtype::BF16,
                KvDtype::F16,
                KvDtype::Fp8E4m3,
                KvDtype::Fp8E5m2,
            ],
            // The model's dtype (torch_dtype), or one given explicitly.
            Engine::Transformers => vec![
                KvDtype::Auto,
                KvDtype::BF16,
                KvDtype::F16,
                KvDtype::Ggml(GgmlType::F32),
            ],
            // mlx_lm.server keeps K and V in the model's activation dtype (mlx_lm/models/cache.py,
            // KVCache allocates `mx.zeros(..., keys.dtype)`); its quantized cache (`--kv-bits`)
            // is an mlx_lm.generate option the server does not offer.
            Engine::Mlx => vec![KvDtype::Auto, KvDtype::BF16, KvDtype::F16],
        }
    }

    /// Can the engine store the cache as `kv`? Err = why not, in words.
    pub fn accepts_kv(self, kv: KvDtype) -> Result<(), String> {
        if kv == KvDtype::Auto || self.kv_choices().contains(&kv) {
            return Ok(());
        }
        let list: Vec<&str> = self.kv_choices().iter().map(|k| k.id()).collect();
        let why = match self {
            Engine::LlamaCpp => "llama.cpp's --cache-type-k/-v take ggml types",
            Engine::Ollama => "OLLAMA_KV_CACHE_TYPE has three settings",
            Engine::Vllm => "vLLM's --kv-cache-dtype takes the model dtype or fp8",
            Engine::Sglang => "SGLang's --kv-cache-dtype takes the model dtype, bf16 or fp8",
            Engine::Transformers => "transformers keeps the cache in the model's dtype",
            Engine::Mlx => "mlx_lm.server keeps the cache in the model's activation dtype (--kv-bits is an mlx_lm.generate option only)",
        };
        Err(format!(
            "{} cannot store the KV cache as {kv} ({why}: {})",
            self.label(),
            list.join(", ")
        ))
    }

    /// Does the engine take a fixed share of each card up front and give the KV cache what
    /// remains (vLLM `--gpu-memory-utilization`, SGLang `--mem-fraction-static`, both `util=`)?
    pub const fn preallocates(self) -> bool {
        matches!(self, Engine::Vllm | Engine::Sglang)
    }

    /// Can the engine give K and V different types? (llama.cpp only.)
    pub const fn splits_kv(self) -> bool {
        matches!(self, Engine::LlamaCpp)
    }

    /// The engine's concurrency when the flag is left unset, and what that means.
    /// llama-server: `--parallel` unset → 4 slots sharing one unified KV of n_ctx cells (llama.cpp tools/server/server.cpp: `--parallel` auto → `n_parallel = 4`, `kv_unified = true`).
    /// Ollama: `OLLAMA_NUM_PARALLEL` 1 in current releases; earlier releases used 4 or chose by
    /// free memory (Ollama's docs/faq.md, "How does Ollama handle concurrent requests?"). vLLM: `--max-num-seqs` 256 (it sizes the KV pool from
    /// `--gpu-memory-utilization`, not from the slot count). transformers: the batch you pass.
    pub const fn default_concurrency(self) -> (u32, &'static str) {
        match self {
            Engine::LlamaCpp => (
                4,
                "llama-server defaults to 4 slots with a unified KV cache when -np is unset",
            ),
            Engine::Ollama => (
                1,
                "Ollama's OLLAMA_NUM_PARALLEL is 1 in current releases, but earlier ones used 4 or picked it from free memory, and every slot multiplies num_ctx",
            ),
            Engine::Vllm => (
                256,
                "vLLM admits up to --max-num-seqs 256 sequences by default and shares one KV pool among them",
            ),
            Engine::Sglang => (
                2048,
                "SGLang admits up to --max-running-requests requests (sized from its KV pool when unset) and shares one pool among them",
            ),
            Engine::Transformers => (1, "transformers generates for the batch you pass"),
            Engine::Mlx => (
                32,
                "mlx_lm.server decodes up to --decode-concurrency 32 batchable requests at once, each with its own KV cache, and keeps up to --prompt-cache-size 10 finished caches for prefix reuse",
            ),
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id())
    }
}

impl Serialize for Engine {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl FromStr for Engine {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s.to_ascii_lowercase().as_str() {
            "llama.cpp" | "llamacpp" | "llama-server" | "llama_cpp" => Ok(Engine::LlamaCpp),
            "ollama" => Ok(Engine::Ollama),
            "vllm" => Ok(Engine::Vllm),
            "sglang" => Ok(Engine::Sglang),
            "transformers" | "hf" => Ok(Engine::Transformers),
            "mlx" | "mlx-lm" | "mlx_lm" => Ok(Engine::Mlx),
            _ => Err(()),
        }
    }
}
