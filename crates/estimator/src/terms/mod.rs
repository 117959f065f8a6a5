//! The memory terms of serve mode, one module each. Every module's doc comment gives the
//! formula, its provenance and its domain; the page shows that text beside the number.

pub mod batch;
pub mod encoder;
pub mod kv;
pub mod logits;
#[cfg(feature = "extras")]
pub mod lora_adapters;
pub mod overhead;
pub mod weights;

use crate::units::Bytes;
use serde::Serialize;

/// Where a term's bytes live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    /// On the card(s).
    Device,
    /// In host memory.
    Host,
}

ids! {
    /// The memory terms, serve and train, by their stable machine names (`weights`,
    /// `kv_cache`, …), which scripts read.
    TermName {
        /// Weights on the card (serve and train).
        Weights = "weights",
        /// KV cache (serve).
        KvCache = "kv_cache",
        /// Runtime overhead (serve).
        Overhead = "overhead",
        /// Embedding tables the engine keeps in host memory (serve, llama.cpp family).
        WeightsHost = "weights_host",
        /// Host logits buffer (serve, llama.cpp family).
        Logits = "logits",
        /// Transformer blocks left in host RAM by `-ngl` (serve, llama.cpp family).
        LayersHost = "layers_host",
        /// KV cache in host RAM: of the blocks left there, or all of it with
        /// `--no-kv-offload` (serve, llama.cpp).
        KvHost = "kv_cache_host",
        /// Routed experts of the first layers kept in host RAM by `--n-cpu-moe` / `--cpu-moe`
        /// (serve, llama.cpp).
        ExpertsHost = "experts_host",
        /// The draft model of speculative decoding, its weights on the cards (serve, llama.cpp
        /// `-md`).
        DraftWeights = "draft_weights",
        /// The draft model's KV cache: one context per slot (serve, llama.cpp `-md`).
        DraftKvCache = "draft_kv_cache",
        /// Serve-time LoRA adapters on the cards (vLLM `--enable-lora`, llama.cpp `--lora`).
        LoraAdapters = "lora_adapters",
        /// Other models on the same cards (`with=`), each its own engine instance (serve).
        WithModels = "with_models",
        /// LoRA adapters (train).
        Lora = "lora",
        /// Optimizer states (train).
        Optimizer = "optimizer",
        /// Gradients (train).
        Gradients = "gradients",
        /// Activations (train).
        Activations = "activations",
        /// CUDA context and runtime (train).
        CudaOverhead = "cuda_overhead",
    }
}

impl TermName {
    /// Words for people.
    pub const fn label(self) -> &'static str {
        match self {
            TermName::Weights => "Weights on the card",
            TermName::KvCache => "KV cache",
            TermName::Overhead => "Runtime overhead",
            TermName::WeightsHost => "Embeddings kept in host RAM",
            TermName::Logits => "Logits buffer (host)",
            TermName::LayersHost => "Layers kept in host RAM (-ngl)",
            TermName::KvHost => "KV cache in host RAM",
            TermName::ExpertsHost => "Experts kept in host RAM (ncmoe)",
            TermName::DraftWeights => "Draft weights (-md or MTP)",
            TermName::DraftKvCache => "Draft KV cache",
            TermName::LoraAdapters => "LoRA adapters (serving)",
            TermName::WithModels => "Other models on the cards",
            TermName::Lora => "LoRA adapters",
            TermName::Optimizer => "Optimizer states",
            TermName::Gradients => "Gradients",
            TermName::Activations => "Activations",
            TermName::CudaOverhead => "CUDA overhead",
        }
    }
}

/// One memory term as shown and printed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Term {
    /// Stable machine name (`weights`, `kv_cache`, `overhead`, …).
    pub name: TermName,
    /// Words for people.
    pub label: &'static str,
    /// Total over all cards (device terms) or in host memory.
    pub bytes: Bytes,
    #[serde(rename = "where")]
    /// Card or host memory.
    pub place: Place,
    /// The formula with this configuration's numbers filled in.
    pub formula: String,
    /// Where the formula comes from.
    pub provenance: &'static str,
    /// Where the formula was checked (engines, architectures, formats, versions).
    pub domain: &'static str,
    /// Set when this configuration lies outside where the formula was checked: what differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outside_domain: Option<String>,
}

impl Term {
    /// A term with its bytes; the words ([`Term::formula`], [`Term::provenance`]) are added by
    /// whoever shows it.
    pub fn new(name: TermName, bytes: Bytes, place: Place) -> Term {
        Term {
            name,
            label: name.label(),
            bytes,
            place,
            formula: String::new(),
            provenance: "",
            domain: "",
            outside_domain: None,
        }
    }
}
