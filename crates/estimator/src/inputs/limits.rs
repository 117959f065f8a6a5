//! Accepted ranges (inclusive). Outside them a value is refused with a notice. These are input
//! sanity bounds, not facts about models: 16M tokens covers the longest context in the catalog (Llama 4
//! Scout's 10M); 64 cards is eight 8-GPU nodes; 4 TiB per card is far above any card made. Within
//! them every term stays finite (saturating `Bytes` arithmetic; property-tested).

/// Context per request (tokens).
pub const CTX: (u32, u32) = (1, 16_777_216);
/// Concurrent slots.
pub const PAR: (u32, u32) = (1, 1024);
/// Cards.
pub const CARDS: (u32, u32) = (1, 64);
/// VRAM per card (GiB).
pub const VRAM_GIB: (f64, f64) = (0.25, 4096.0);
/// llama.cpp physical batch.
pub const UBATCH: (u32, u32) = (1, 65_536);
/// vLLM memory utilisation.
pub const UTIL: (f64, f64) = (0.05, 1.0);
/// LoRA rank.
pub const RANK: (u32, u32) = (1, 4096);
/// Batch size.
pub const BSZ: (u32, u32) = (1, 4096);
/// Sequence length (tokens).
pub const SEQ: (u32, u32) = (1, 4_194_304);
/// Free memory per GPU (GiB).
pub const FREE_GIB: (f64, f64) = (0.0, 4096.0);
/// Memory bandwidth of a free-form card (GB/s): above any card made (HBM3e is ~8 TB/s).
pub const BW_GBS: (f64, f64) = (1.0, 100_000.0);
/// Host RAM bandwidth (GB/s): a single DDR3 channel to well past a 12-channel DDR5 socket.
pub const RAM_BW_GBS: (f64, f64) = (1.0, 10_000.0);
/// llama.cpp `-ngl` (layers on the GPU; anything above the model's layers + 1 means all).
pub const NGL: (u32, u32) = (0, 10_000);
/// Draft tokens per step (llama.cpp `--spec-draft-n-max`, formerly `--draft-max`).
pub const NDRAFT: (u32, u32) = (1, 256);
/// Extra recurrent states per sequence (`rsseq=`): llama-server's is the draft tokens per step (`--spec-draft-n-max`), which
/// `ndraft=` bounds the same way.
pub const RSSEQ: (u32, u32) = (0, 256);
/// GiB kept free per card (`reserve=`).
pub const RESERVE_GIB: (f64, f64) = (0.0, 4096.0);
/// Serve-time LoRA adapters at once (`loras=`).
pub const LORAS: (u32, u32) = (1, 256);
/// Other models on the same cards (`with=`).
pub const WITH: usize = 4;
/// Images per request (`images=`): vLLM's `--limit-mm-per-prompt` takes any count; 256
/// images of the smallest rule (Gemma's 256 tokens) already fill a 64K context.
pub const IMAGES: (u32, u32) = (0, 256);
/// Their largest rank (`lorarank=`): vLLM's largest allowed `--max-lora-rank`.
pub const LORA_RANK: (u32, u32) = (1, 512);
/// Most GPUs in a `free=` or `pick=` list.
pub const GPUS: usize = 64;
