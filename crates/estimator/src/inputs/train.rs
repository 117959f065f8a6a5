//! What train mode reads: the method, the trainer and its arguments, the LoRA targets.

use crate::units::Tokens;
use serde::Serialize;

ids! {
    /// Fine-tuning method: full fine-tuning is the most precise, QLoRA the least.
    Method {
        /// All weights trained in 16 bit.
        Full = "full",
        /// 16-bit frozen weights plus LoRA adapters.
        Lora = "lora",
        /// 4-bit (NF4) frozen weights plus LoRA adapters.
        Qlora = "qlora",
    }
}

ids! {
    /// Gradient-checkpointing mode (`use_gradient_checkpointing`).
    GradCkpt {
        /// Every layer's activations kept.
        None = "none" | "false",
        /// Hugging Face checkpointing: one checkpoint per layer, recomputed.
        True = "true",
        /// Unsloth's checkpointing, offloading to host memory.
        Unsloth = "unsloth",
    }
}

ids! {
    /// Optimizer (`optim=` of the trainer arguments).
    Optim {
        /// bitsandbytes 8-bit AdamW.
        Adamw8bit = "adamw_8bit",
        /// PyTorch AdamW.
        AdamwTorch = "adamw_torch",
        /// bitsandbytes paged 32-bit AdamW.
        PagedAdamw32bit = "paged_adamw_32bit",
        /// Plain SGD.
        Sgd = "sgd",
    }
}

ids! {
    /// Trainer profile (`trainer=`): which trainer's memory mechanisms the estimate models.
    Trainer {
        /// Unsloth as it runs today: NF4 with double quantization, offloaded checkpoints, chunked
        /// cross-entropy, FlashAttention-2.
        Unsloth = "unsloth",
        /// Unsloth's published formula (Unsloth Studio's estimator), exactly.
        UnslothFormula = "unsloth-formula",
        /// Hugging Face Trainer/TRL with PEFT: SDPA attention, unchunked fp32 logits,
        /// non-quantized weights upcast to fp32 for QLoRA.
        Transformers = "transformers",
        /// LLaMA-Factory's defaults (Hugging Face Trainer + PEFT, FlashAttention-2).
        Llamafactory = "llamafactory",
    }
}

ids! {
    /// A LoRA target module (the projection's name without `_proj`).
    TargetModule {
        /// Query projection.
        Q = "q" | "q_proj",
        /// Key projection.
        K = "k" | "k_proj",
        /// Value projection.
        V = "v" | "v_proj",
        /// Attention output projection.
        O = "o" | "o_proj",
        /// MLP gate projection.
        Gate = "gate" | "gate_proj",
        /// MLP up projection.
        Up = "up" | "up_proj",
        /// MLP down projection.
        Down = "down" | "down_proj",
    }
}

impl TargetModule {
    /// The module name as PEFT's `target_modules` spells it.
    pub fn proj(self) -> String {
        format!("{}_proj", self.id())
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of LoRA target modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TargetSet(u8);

impl TargetSet {
    /// All seven projections.
    pub const ALL: TargetSet = TargetSet(0b111_1111);
    /// No module.
    pub const EMPTY: TargetSet = TargetSet(0);

    /// Is `m` in the set?
    pub const fn contains(self, m: TargetModule) -> bool {
        self.0 & m.bit() != 0
    }

    /// The set with `m` added (`on`) or removed.
    pub const fn with(self, m: TargetModule, on: bool) -> TargetSet {
        if on {
            TargetSet(self.0 | m.bit())
        } else {
            TargetSet(self.0 & !m.bit())
        }
    }

    /// True when no module is selected.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The selected modules, in [`TargetModule::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = TargetModule> {
        TargetModule::ALL
            .iter()
            .copied()
            .filter(move |m| self.contains(*m))
    }
}

impl std::fmt::Display for TargetSet {
    /// `q,k,v` (the query string's spelling).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (k, m) in self.iter().enumerate() {
            if k > 0 {
                f.write_str(",")?;
            }
            f.write_str(m.id())?;
        }
        Ok(())
    }
}

impl Serialize for TargetSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// Train-mode inputs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrainInputs {
    /// Full fine-tuning, LoRA or QLoRA.
    pub method: Method,
    /// LoRA rank.
    pub rank: u32,
    /// Per-device batch size.
    pub bsz: u32,
    /// Sequence length (tokens).
    pub seq: Tokens,
    /// Gradient checkpointing.
    pub gc: GradCkpt,
    /// Optimizer.
    pub optim: Optim,
    /// The adapted modules.
    pub targets: TargetSet,
    /// Free VRAM per GPU in GiB; empty = `cards` × the chosen card's capacity.
    pub free: Vec<f64>,
    /// Explicit GPU indices into `free`; empty = automatic selection.
    pub pick: Vec<u32>,
    /// Trainer profile.
    pub trainer: Trainer,
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
            targets: TargetSet::ALL,
            free: Vec::new(),
            pick: Vec::new(),
            trainer: Trainer::Unsloth,
        }
    }
}
