//! Everything a user can set: one plain value, no signals, no I/O (so it tests on the host).
//! The permalink codec ([`crate::permalink`]) turns it into a query string and back.

use crate::engine::{Engine, KvDtype};
use crate::quant::Quant;
use crate::units::Tokens;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Mode {
    Serve,
    Train,
}

/// The card(s): a catalog GPU, or a free-form VRAM size per card (GiB).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum GpuChoice {
    Catalog(String),
    VramGib(f64),
}

impl std::fmt::Display for GpuChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuChoice::Catalog(id) => f.write_str(id),
            GpuChoice::VramGib(g) => write!(f, "{g} GiB per card"),
        }
    }
}

/// Fine-tuning method (seed 2 §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Method {
    Qlora,
    Lora,
    Full,
}

/// Gradient-checkpointing mode (seed 2 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum GradCkpt {
    None,
    True,
    Unsloth,
}

/// Optimizer (seed 2 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Optim {
    Adamw8bit,
    AdamwTorch,
    PagedAdamw32bit,
    Sgd,
}

/// LoRA target modules (seed 2 §2), in the seed's order.
pub const TARGET_MODULES: [&str; 7] = ["q", "k", "v", "o", "gate", "up", "down"];

/// Train-mode inputs (seed 2).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrainInputs {
    pub method: Method,
    pub rank: u32,
    pub bsz: u32,
    pub seq: Tokens,
    pub gc: GradCkpt,
    pub optim: Optim,
    /// Bit i set = `TARGET_MODULES[i]` is adapted.
    pub targets: u8,
    /// Free VRAM per GPU in GiB; empty = `cards` × the chosen card's capacity.
    pub free: Vec<f64>,
    /// Explicit GPU indices into `free`; empty = automatic selection.
    pub pick: Vec<u32>,
}

impl TrainInputs {
    /// The selected target modules, in the seed's order.
    pub fn target_names(&self) -> Vec<&'static str> {
        TARGET_MODULES
            .iter()
            .enumerate()
            .filter(|(b, _)| self.targets & (1 << b) != 0)
            .map(|(_, m)| *m)
            .collect()
    }
}

impl Default for TrainInputs {
    fn default() -> Self {
        TrainInputs {
            method: Method::Qlora,
            rank: 16,
            bsz: 2,
            seq: 2048,
            gc: GradCkpt::Unsloth,
            optim: Optim::Adamw8bit,
            targets: 0b111_1111,
            free: Vec::new(),
            pick: Vec::new(),
        }
    }
}

/// One complete configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inputs {
    pub mode: Mode,
    /// Hugging Face repo id of the variant.
    pub model: String,
    pub quant: Quant,
    /// Context per request (tokens).
    pub ctx: Tokens,
    /// Concurrent slots (requests served at once, each with `ctx`).
    pub par: u32,
    pub cards: u32,
    pub gpu: GpuChoice,
    pub engine: Engine,
    pub kv: KvDtype,
    /// llama.cpp `-kvu`: one unified KV buffer shared by all slots.
    pub kvu: bool,
    /// llama.cpp `-ub` (physical batch).
    pub ubatch: u32,
    /// llama.cpp `--swa-full`: full-size cache for sliding-window layers.
    pub swa_full: bool,
    /// vLLM `--gpu-memory-utilization`.
    pub util: f64,
    pub embed: bool,
    pub train: TrainInputs,
}

impl Default for Inputs {
    fn default() -> Self {
        Inputs {
            mode: Mode::Serve,
            model: "google/gemma-3-12b-it".into(),
            quant: Quant::Q4KM,
            ctx: 8192,
            par: 1,
            cards: 1,
            gpu: GpuChoice::Catalog("rtx-4090".into()),
            engine: Engine::LlamaCpp,
            kv: KvDtype::F16,
            kvu: false,
            ubatch: 512,
            swa_full: false,
            util: 0.9,
            embed: false,
            train: TrainInputs::default(),
        }
    }
}

/// Accepted ranges (inclusive). Outside them a value is refused with a notice. These are input
/// sanity bounds, not facts about models: 4M tokens is 32× the longest context in the catalog (128K) and covers
/// 1M-token models; 64 cards is eight 8-GPU nodes; 4 TiB per card is far above any card made. Within
/// them every term stays finite (saturating `Bytes` arithmetic; property-tested).
pub mod limits {
    pub const CTX: (u32, u32) = (1, 4_194_304);
    pub const PAR: (u32, u32) = (1, 1024);
    pub const CARDS: (u32, u32) = (1, 64);
    pub const VRAM_GIB: (f64, f64) = (0.25, 4096.0);
    pub const UBATCH: (u32, u32) = (1, 65_536);
    pub const UTIL: (f64, f64) = (0.05, 1.0);
    pub const RANK: (u32, u32) = (1, 4096);
    pub const BSZ: (u32, u32) = (1, 4096);
    pub const SEQ: (u32, u32) = (1, 4_194_304);
    pub const FREE_GIB: (f64, f64) = (0.0, 4096.0);
    pub const GPUS: usize = 64;
}

/// A parameter that was refused and what was used instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Notice {
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}
