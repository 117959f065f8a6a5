//! Where the model goes on the cards: each card's capacity, whether tensor parallelism can
//! start, how layers split over cards or pipeline stages, and the words for a split. Below the
//! sizing, which calls them for every split it weighs.

use crate::catalog::engine::Engine;
use crate::catalog::{catalog, Arch, Variant};
use crate::estimate::CardUse;
use crate::inputs::{GpuChoice, Inputs};
use crate::terms::kv;
use crate::units::{Bytes, SignedBytes};

/// Capacity of each card: the `gpus=` list, or `cards` × the chosen card.
pub fn card_capacities(i: &Inputs) -> Vec<Bytes> {
    if i.gpus.is_empty() {
        vec![card_capacity(i); i.cards.max(1) as usize]
    } else {
        i.gpus
            .iter()
            .map(|id| catalog().gpu(id).map_or(Bytes::ZERO, |g| g.vram_bytes))
            .collect()
    }
}

/// Capacity of one card for these inputs.
pub fn card_capacity(i: &Inputs) -> Bytes {
    match &i.gpu {
        // `normalize` admits only catalog GPUs; an unchecked id holds nothing rather than an
        // invented card.
        GpuChoice::Catalog(id) => catalog().gpu(id).map_or(Bytes::ZERO, |g| g.vram_bytes),
        GpuChoice::VramGib(g) => Bytes::from_gib(*g),
    }
}

/// `vllm serve`'s default `--max-num-batched-tokens`: 8192 when the first card has 70 GiB or
/// more and is not an A100, else 2048 (`EngineArgs.get_batch_defaults` in
/// vllm/engine/arg_utils.py, the OpenAI server's row; vLLM reads the first device).
pub fn default_batched_tokens(i: &Inputs) -> u64 {
    let first = card_capacities(i).first().copied().unwrap_or_default();
    let name = match (i.gpus.first(), &i.gpu) {
        (Some(id), _) | (None, GpuChoice::Catalog(id)) => id.as_str(),
        (None, GpuChoice::VramGib(_)) => "",
    };
    if first >= Bytes(70 * crate::units::GIB) && !name.contains("a100") {
        8192
    } else {
        2048
    }
}

/// The prefill step a sliding layer is admitted with beyond its window per request
/// ([`kv::paged`]): vLLM's default `--max-num-batched-tokens`; 0 on other engines (SGLang: the
/// window plus one block).
pub fn admission_step(i: &Inputs) -> u64 {
    if i.engine == Engine::Vllm {
        default_batched_tokens(i)
    } else {
        0
    }
}

/// How a tensor-parallel split shards attention ([`tensor_parallel`]'s answer when it can start).
/// Fields: `tp` cards, `kv_heads` of the model, `per_card` KV heads on each card.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TpSplit {
    /// vLLM / SGLang: `per_card` KV heads on each of `tp` cards.
    Sharded { tp: u32, per_card: u32 },
    /// vLLM / SGLang: fewer KV heads than cards, each replicated (`per_card` on each).
    Replicated {
        tp: u32,
        kv_heads: u32,
        per_card: u32,
    },
    /// llama.cpp `-sm row`: `per_card` KV heads on each of `tp` cards.
    Rows { tp: u32, per_card: u32 },
}

impl std::fmt::Display for TpSplit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            TpSplit::Sharded { tp, per_card } => {
                write!(f, "{tp}-way tensor parallel: {per_card} KV heads per card")
            }
            TpSplit::Replicated {
                tp,
                kv_heads,
                per_card,
            } => write!(
                f,
                "{tp}-way tensor parallel; the {kv_heads} KV heads are replicated ({per_card} per card)"
            ),
            TpSplit::Rows { tp, per_card } => write!(
                f,
                "{tp}-way split by rows (-sm row): {per_card} KV heads per card"
            ),
        }
    }
}

/// Why tensor parallelism over `tp` cards cannot start ([`tensor_parallel`]'s refusal). Fields:
/// the `engine`, `tp` cards, the model's attention `heads`, `kv_heads` (the global layers' own in
/// `GlobalKvHeads`) and padded vocabulary `rows`.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TpRefusal {
    /// vLLM / SGLang: the attention heads do not divide.
    Heads { engine: Engine, heads: u32, tp: u32 },
    /// vLLM / SGLang: the vocabulary padded to 64 rows does not divide.
    Vocab { engine: Engine, rows: u64, tp: u32 },
    /// vLLM / SGLang: Gemma 4's global layers' own KV heads neither divide nor replicate.
    GlobalKvHeads {
        engine: Engine,
        kv_heads: u32,
        tp: u32,
    },
    /// The KV heads do not divide (vLLM / SGLang at `kv_heads ≥ tp`; llama.cpp always).
    KvHeads {
        engine: Engine,
        kv_heads: u32,
        tp: u32,
    },
    /// vLLM / SGLang: fewer KV heads than cards, and the cards are not a multiple of them.
    NoEvenReplica {
        engine: Engine,
        kv_heads: u32,
        tp: u32,
    },
    /// Ollama, transformers, MLX: layer split only.
    LayersOnly { engine: Engine, tp: u32 },
}

impl std::fmt::Display for TpRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            TpRefusal::Heads { engine, heads, tp } => write!(
                f,
                "attention heads ({heads}) not divisible by {tp} cards: {} tensor parallelism cannot start",
                engine.label()
            ),
            TpRefusal::Vocab { engine, rows, tp } => write!(
                f,
                "the vocabulary padded to a multiple of 64 ({rows} rows) is not divisible by {tp} cards: {} cannot shard the embedding",
                engine.label()
            ),
            TpRefusal::GlobalKvHeads {
                engine,
                kv_heads,
                tp,
            } => write!(
                f,
                "the global layers' KV heads ({kv_heads}) cannot be split or replicated evenly over {tp} cards: {} tensor parallelism cannot start",
                engine.label()
            ),
            TpRefusal::KvHeads {
                engine: Engine::LlamaCpp,
                kv_heads,
                tp,
            } => write!(
                f,
                "KV heads ({kv_heads}) not divisible by {tp} cards: tensor parallelism cannot start"
            ),
            TpRefusal::KvHeads {
                engine,
                kv_heads,
                tp,
            } => write!(
                f,
                "KV heads ({kv_heads}) not divisible by {tp} cards: {} tensor parallelism cannot start",
                engine.label()
            ),
            TpRefusal::NoEvenReplica {
                engine,
                kv_heads,
                tp,
            } => write!(
                f,
                "{tp} cards is not a multiple of the KV heads ({kv_heads}): {} cannot replicate them evenly",
                engine.label()
            ),
            TpRefusal::LayersOnly { engine, tp } => write!(
                f,
                "{} splits by layer only: no tensor parallelism on {tp} cards",
                engine.label()
            ),
        }
    }
}

/// Is tensor parallelism possible over `tp` cards: how it shards, or why it cannot start.
pub fn tensor_parallel(engine: Engine, arch: &Arch, tp: u32) -> Result<TpSplit, TpRefusal> {
    let (h, kvh) = (arch.heads, arch.kv_heads);
    match engine {
        // SGLang shards attention the same way (heads divisible; KV heads divisible or
        // replicated).
        Engine::Vllm | Engine::Sglang => {
            let rows = kv::pad(arch.vocab, 64);
            if !h.is_multiple_of(tp) {
                Err(TpRefusal::Heads {
                    engine,
                    heads: h,
                    tp,
                })
            } else if !rows.is_multiple_of(u64::from(tp)) {
                Err(TpRefusal::Vocab { engine, rows, tp })
            } else if let Some(g) = arch.global_attn.filter(|g| {
                g.kv_heads != kvh
                    && (if g.kv_heads >= tp {
                        !g.kv_heads.is_multiple_of(tp)
                    } else {
                        !tp.is_multiple_of(g.kv_heads.max(1))
                    })
            }) {
                // Gemma 4: the global layers' own KV heads are sharded the same way
                // (`Gemma4Attention` asserts it, vllm/model_executor/models/gemma4.py).
                Err(TpRefusal::GlobalKvHeads {
                    engine,
                    kv_heads: g.kv_heads,
                    tp,
                })
            } else if kvh >= tp && !kvh.is_multiple_of(tp) {
                Err(TpRefusal::KvHeads {
                    engine,
                    kv_heads: kvh,
                    tp,
                })
            } else if kvh < tp && !tp.is_multiple_of(kvh) {
                Err(TpRefusal::NoEvenReplica {
                    engine,
                    kv_heads: kvh,
                    tp,
                })
            } else if kvh < tp {
                Ok(TpSplit::Replicated {
                    tp,
                    kv_heads: kvh,
                    per_card: (kvh / tp).max(1),
                })
            } else {
                Ok(TpSplit::Sharded {
                    tp,
                    per_card: kvh / tp,
                })
            }
        }
        Engine::LlamaCpp => {
            if !kvh.is_multiple_of(tp) {
                Err(TpRefusal::KvHeads {
                    engine,
                    kv_heads: kvh,
                    tp,
                })
            } else {
                Ok(TpSplit::Rows {
                    tp,
                    per_card: kvh / tp,
                })
            }
        }
        Engine::Ollama | Engine::Transformers | Engine::Mlx => {
            Err(TpRefusal::LayersOnly { engine, tp })
        }
    }
}

/// [`tensor_parallel`] in words, as the estimate carries it.
pub fn tensor_parallel_words(engine: Engine, arch: &Arch, tp: u32) -> Result<String, String> {
    tensor_parallel(engine, arch, tp)
        .map(|s| s.to_string())
        .map_err(|e| e.to_string())
}

/// The variant's architecture, with the measured global-layer count of `gl=` when it is the
/// model measured (other variants of the family keep their own layout).
/// With `spec=mtp` on vLLM, the drafter's MTP layers join the KV cache
/// ([`crate::inputs::mtp_arch`]); with `spec=eagle`, the EAGLE-3 head's layer
/// ([`crate::inputs::eagle_arch`]).
pub(crate) fn arch_for<'a>(i: &Inputs, v: &'a Variant) -> std::borrow::Cow<'a, Arch> {
    let a = match i.gl {
        Some(g) if v.id == i.model => {
            let mut a = v.arch.clone();
            a.global_override = Some(g.round() as u32);
            std::borrow::Cow::Owned(a)
        }
        _ => std::borrow::Cow::Borrowed(&v.arch),
    };
    #[cfg(feature = "spec")]
    if let Some(m) =
        crate::inputs::mtp_arch(i, &a).or_else(|| crate::inputs::eagle_arch(i, &v.id, &a))
    {
        return std::borrow::Cow::Owned(m);
    }
    a
}

/// Blocks that `ngl` leaves on the CPU on a model of `layers` blocks.
pub fn cpu_layers(layers: u32, ngl: u32) -> u32 {
    (layers.saturating_add(1)).saturating_sub(ngl).min(layers)
}

/// `--tensor-parallel-size T --pipeline-parallel-size P` (SGLang `--tp-size`, `--pp-size`),
/// each written when above 1 (`--tensor-parallel-size 1` on one card).
pub fn parallel_words(engine: Engine, tp: u32, pp: u32) -> String {
    let (tp_flag, pp_flag) = match engine {
        Engine::Sglang => ("--tp-size", "--pp-size"),
        _ => ("--tensor-parallel-size", "--pipeline-parallel-size"),
    };
    match (tp, pp) {
        (t, 1) => format!("{tp_flag} {t}"),
        (1, p) => format!("{pp_flag} {p}"),
        (t, p) => format!("{tp_flag} {t} {pp_flag} {p}"),
    }
}

/// The card with the least headroom (`budget − bytes`; the first of equals): on alike cards,
/// the one holding the most bytes.
pub fn fullest(per_card: &[CardUse]) -> &CardUse {
    per_card
        .iter()
        .min_by_key(|c| SignedBytes::diff(c.budget, c.bytes))
        .expect("at least one card")
}

/// Whole layers per card under layer split: `layers / cards` each, the first `layers % cards`
/// cards one more: fitcard's split for llama.cpp's even `-ts`, Ollama and transformers. vLLM and
/// SGLang place the remainder on later stages ([`crate::serve::layouts::pipeline_stages`]).
pub fn layers_per_card(layers: u32, cards: u32) -> Vec<u64> {
    let cards = cards.max(1);
    (0..cards)
        .map(|k| u64::from(layers / cards + u32::from(k < layers % cards)))
        .collect()
}

/// How an engine is told to split by layer.
pub(crate) fn layer_split_words(engine: Engine, cards: u32) -> String {
    match engine {
        Engine::LlamaCpp => "-sm layer".into(),
        Engine::Vllm => format!("--pipeline-parallel-size {cards}"),
        Engine::Sglang => format!("--pp-size {cards}"),
        Engine::Ollama => "Ollama spreads whole layers over the cards".into(),
        Engine::Transformers => "device_map=\"auto\" places whole layers".into(),
        Engine::Mlx => {
            "mlx-lm runs on one Apple GPU; its --pipeline mode spreads whole layers over machines"
                .into()
        }
    }
}
