//! Inference engines and the facts about them that change the answer.

use crate::quant::{Container, GgmlType};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
/// An inference engine whose allocation is modelled.
pub enum Engine {
    /// llama.cpp's `llama-server`.
    LlamaCpp,
    /// Ollama (llama.cpp underneath).
    Ollama,
    /// vLLM.
    Vllm,
    /// Hugging Face transformers.
    Transformers,
}

/// KV cache element type as an engine names it. llama.cpp/Ollama take ggml types
/// (`--cache-type-k/-v`); vLLM takes `auto` (the model dtype, 2 bytes) or `fp8` (1 byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum KvDtype {
    /// A ggml type (llama.cpp `--cache-type-k/-v`).
    Ggml(GgmlType),
    /// vLLM `--kv-cache-dtype fp8` (1 byte per value).
    Fp8,
}

impl KvDtype {
    /// 16-bit floats, llama.cpp's default.
    pub const F16: KvDtype = KvDtype::Ggml(GgmlType::F16);

    /// Bytes of `n` K (or V) values.
    pub fn row_bytes(self, n: u64) -> u64 {
        match self {
            KvDtype::Ggml(t) => t.row_bytes(n),
            KvDtype::Fp8 => n,
        }
    }

    /// The spelling in the query string and in commands.
    pub fn id(self) -> &'static str {
        match self {
            KvDtype::Ggml(t) => t.name(),
            KvDtype::Fp8 => "fp8",
        }
    }

    /// A block-quantized type (not f16, bf16 or f32)?
    pub fn is_quantized(self) -> bool {
        !matches!(
            self,
            KvDtype::Ggml(GgmlType::F16 | GgmlType::BF16 | GgmlType::F32)
        )
    }
}

impl FromStr for KvDtype {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s.to_ascii_lowercase().as_str() {
            "fp8" | "fp8_e4m3" => Ok(KvDtype::Fp8),
            "auto" => Ok(KvDtype::F16),
            other => other.parse().map(KvDtype::Ggml),
        }
    }
}

impl fmt::Display for KvDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id())
    }
}

impl Engine {
    /// Every engine.
    pub const ALL: [Engine; 4] = [
        Engine::LlamaCpp,
        Engine::Ollama,
        Engine::Vllm,
        Engine::Transformers,
    ];

    /// The spelling in the query string.
    pub const fn id(self) -> &'static str {
        match self {
            Engine::LlamaCpp => "llama.cpp",
            Engine::Ollama => "ollama",
            Engine::Vllm => "vllm",
            Engine::Transformers => "transformers",
        }
    }

    /// Words for people.
    pub const fn label(self) -> &'static str {
        match self {
            Engine::LlamaCpp => "llama.cpp (llama-server)",
            Engine::Ollama => "Ollama",
            Engine::Vllm => "vLLM",
            Engine::Transformers => "transformers",
        }
    }

    /// The file container the engine loads.
    pub const fn container(self) -> Container {
        match self {
            Engine::LlamaCpp | Engine::Ollama => Container::Gguf,
            Engine::Vllm | Engine::Transformers => Container::Safetensors,
        }
    }

    /// Does this engine build its KV cache by llama.cpp's allocator rules?
    pub const fn llama_family(self) -> bool {
        matches!(self, Engine::LlamaCpp | Engine::Ollama)
    }

    /// KV dtypes the engine accepts.
    pub fn kv_choices(self) -> Vec<KvDtype> {
        match self {
            Engine::LlamaCpp | Engine::Ollama => GgmlType::KV_CHOICES
                .iter()
                .map(|&t| KvDtype::Ggml(t))
                .collect(),
            Engine::Vllm => vec![KvDtype::F16, KvDtype::Fp8],
            Engine::Transformers => vec![KvDtype::F16, KvDtype::Ggml(GgmlType::F32)],
        }
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
            Engine::Transformers => (1, "transformers generates for the batch you pass"),
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id())
    }
}

impl FromStr for Engine {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s.to_ascii_lowercase().as_str() {
            "llama.cpp" | "llamacpp" | "llama-server" | "llama_cpp" => Ok(Engine::LlamaCpp),
            "ollama" => Ok(Engine::Ollama),
            "vllm" => Ok(Engine::Vllm),
            "transformers" | "hf" => Ok(Engine::Transformers),
            _ => Err(()),
        }
    }
}
