//! The embedded catalog: model families → variants (ranked by capability) → formats (with real
//! file sizes), plus GPUs. Compiled in from `data/families/*.json` and `data/gpus.json`; every entry carries its source.
//! `data/SOURCES.md` explains how it was assembled and which sizes are computed.

use crate::quant::{Container, GgmlType, Quant};
use crate::units::{Bytes, Tokens};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
/// The embedded catalog: model families and GPUs, every entry with its source.
pub struct Catalog {
    /// Model families, each with its variants ranked by capability.
    pub families: Vec<Family>,
    /// GPUs with their memory as the driver reports it.
    pub gpus: Vec<Gpu>,
    /// The one public evaluation that orders variants across families (`best=1`).
    #[serde(default)]
    pub common_eval: Option<CommonEval>,
    /// Published decode measurements of catalog configurations, shown beside the estimate.
    #[serde(default)]
    pub measured: Vec<Measured>,
}

/// One public evaluation covering many families: the cross-family order of `best=1`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CommonEval {
    /// The evaluation and its metric.
    pub name: String,
    /// Date of the snapshot read (YYYY-MM-DD).
    pub date: String,
    /// Where the snapshot is published.
    pub url: String,
    /// One score per model that the evaluation covers.
    pub scores: Vec<CommonScore>,
}

/// How an evaluated model was matched to a catalog variant.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Matched {
    /// This exact checkpoint was evaluated.
    Exact,
    /// The same model in another format or another publisher's copy.
    SameModel,
}

/// A model's score in the common evaluation.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CommonScore {
    /// Hugging Face repo id of the model evaluated (a catalog variant id).
    pub model: String,
    /// The score (higher is better).
    pub score: f64,
    /// How it was matched.
    pub matched: Matched,
    /// The evaluation marks the score as estimated (not every component was run).
    #[serde(default)]
    pub estimated: bool,
    /// Where the row is printed (URL).
    #[serde(default)]
    pub source: String,
    /// How the match was made, when not obvious.
    #[serde(default)]
    pub note: Option<String>,
}

/// A family's licence as its model cards state it.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct License {
    /// The Hugging Face licence id (`apache-2.0`, `mit`, `gemma`, `llama3.1`, …).
    pub id: String,
    /// Where it is stated (URL).
    #[serde(default)]
    pub source: String,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
/// A model family: variants of one release, comparable by one published evaluation.
pub struct Family {
    /// Stable id of the family.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Which published evaluation orders the variants, and its caveats.
    #[serde(default)]
    pub capability_basis: String,
    /// Strongest first (`capability_rank` 1, 2, …).
    pub variants: Vec<Variant>,
    /// The licence of the family's weights (`license=` filter); `None` = not recorded.
    #[serde(default)]
    pub license: Option<License>,
    /// Trained to reason before answering (a thinking mode); `None` = not recorded.
    #[serde(default)]
    pub reasoning: Option<bool>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
/// One variant: a Hugging Face repo, its architecture and its formats.
pub struct Variant {
    /// The Hugging Face repo id (the permalink's `model=`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// 1 = strongest in its family.
    pub capability_rank: u32,
    /// The published score behind `capability_rank` (`None` when none is comparable).
    pub capability: Option<Score>,
    /// Architecture facts from the model's config.
    pub arch: Arch,
    /// Highest precision first.
    pub formats: Vec<Format>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
/// A published evaluation score.
pub struct Score {
    /// The benchmark and setting, as published.
    pub benchmark: String,
    /// The score.
    pub score: f64,
    /// Where it was published (URL).
    #[serde(default)]
    pub source: String,
}

/// Architecture facts the memory terms need (from the model's `config.json`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Arch {
    /// `model_type` of the config.
    pub model_type: String,
    /// Hidden size.
    pub hidden: u64,
    /// Number of decoder layers.
    pub layers: u32,
    /// Attention (query) heads.
    pub heads: u32,
    /// Key/value heads.
    pub kv_heads: u32,
    /// Dimension of one attention head.
    pub head_dim: u64,
    /// MLP intermediate size (dense layers).
    pub intermediate: u64,
    /// Intermediate size of one expert (MoE models).
    pub moe_intermediate: Option<u64>,
    /// 0 for dense models.
    pub experts: u32,
    /// Experts routed per token (MoE models; 1 for dense).
    pub experts_active: u32,
    /// Vocabulary size.
    pub vocab: u64,
    /// The output matrix is tied to the token embedding.
    pub tied_embeddings: bool,
    /// Longest context the model supports (tokens).
    pub max_ctx: Tokens,
    /// Trained / documented context lengths, ascending (slider snap points).
    pub native_ctx: Vec<Tokens>,
    /// Sliding-window attention layout, if any.
    pub swa: Option<Swa>,
    /// Only layers `il < kv_layers` own a KV cache; later layers reuse one (gemma-3n).
    pub kv_layers: Option<u32>,
    /// Per-layer token embeddings (gemma-3n): a `vocab × layers × dim` lookup table.
    pub ple: Option<Ple>,
    /// Where the config facts come from (URL).
    #[serde(default)]
    pub source: String,
    /// Context extension by YaRN rope scaling, where the publisher validated it.
    #[serde(default)]
    pub yarn: Option<Yarn>,
    /// Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): one compressed latent per token
    /// and layer is cached instead of keys and values per head.
    #[serde(default)]
    pub mla: Option<Mla>,
    /// Hybrid recurrent layers (Gated DeltaNet in Qwen3-Next/Qwen3.5, Mamba-2 in Granite 4.0-H):
    /// a fixed state per sequence on those layers, KV only on `attention_layers`.
    #[serde(default)]
    pub recurrent: Option<Recurrent>,
    /// Where a MoE model's layers are not all alike: leading dense layers, interleaved MoE layers
    /// and shared experts (decode reads them on every token). `None` = every layer routes through
    /// `experts` only (or the model is dense).
    #[serde(default)]
    pub moe: Option<MoeLayout>,
    /// Full-attention layers with their own KV heads and head size (Gemma 4:
    /// `num_global_key_value_heads`, `global_head_dim`); `kv_heads` and `head_dim` above are then
    /// the sliding-window layers'. `None` = every layer has the same shape.
    #[serde(default)]
    pub global_attn: Option<GlobalAttn>,
    /// Measured equivalent global layers (`gl=` in the permalink, from `fitcard measure` or the
    /// calibration panel), replacing the layout above for the KV cache when set. Never read
    /// from or written to the catalog file.
    #[serde(skip)]
    pub global_override: Option<u32>,
}

/// Sliding-window attention layout: layer `il` is global iff `il % period == global_offset`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Swa {
    /// Window of a sliding layer (tokens).
    pub window: Tokens,
    /// One global layer every `period` layers.
    pub period: u32,
    /// Index within the period of the global layer.
    pub global_offset: u32,
    /// Chunked local attention (Llama 4): a token sees only its own `window`-sized chunk. The
    /// cache holds the same number of cells as a sliding window of that size.
    #[serde(default)]
    pub chunked: bool,
}

impl Swa {
    /// Llama 4's chunked local attention: chunks of `chunk` tokens, one global (NoPE) layer in
    /// four, the last of each group (llama.cpp's llama4 pattern, `set_swa_pattern(4)` in
    /// src/llama-model.cpp).
    pub fn llama4_chunked(chunk: u64) -> Swa {
        Swa {
            window: chunk.min(u64::from(u32::MAX)) as Tokens,
            period: 4,
            global_offset: 3,
            chunked: true,
        }
    }
}

/// The attention shape of the full-attention (global) layers where it differs from the
/// sliding-window layers' (Gemma 4). llama.cpp reads it from the GGUF's per-layer
/// `attention.head_count_kv` array and `attention.key_length` (global) beside
/// `attention.key_length_swa` (`n_embd_head_k(il)` in src/llama-hparams.cpp).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct GlobalAttn {
    /// KV heads of a global layer (`num_global_key_value_heads`; the sliding layers' count
    /// when the config gives none).
    pub kv_heads: u32,
    /// Head size of a global layer (`global_head_dim`).
    pub head_dim: u64,
    /// Keys double as values (`attention_k_eq_v`): the layer has no V projection. Engines still
    /// cache a V row: llama.cpp copies K into V (`Vcur = Kcur` in src/models/gemma4-iswa.cpp)
    /// and allocates both (`has_v = !is_mla` in src/llama-kv-cache.cpp), so the cache size does
    /// not change; the weights do (no `attn_v` on those layers).
    #[serde(default)]
    pub k_eq_v: bool,
}

/// Multi-head latent attention, from the config's `kv_lora_rank` and `qk_rope_head_dim`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Mla {
    /// Rank of the compressed key/value latent (`kv_lora_rank`).
    pub kv_lora_rank: u64,
    /// Rotary part of a key head, cached beside the latent (`qk_rope_head_dim`).
    pub qk_rope_head_dim: u64,
    /// Head size of the sparse-attention indexer's key cache (`index_head_dim`, DeepSeek-V3.2),
    /// when the model has one.
    #[serde(default)]
    pub index_head_dim: Option<u64>,
    /// Rank of the compressed query (`q_lora_rank`); `None` = full-rank query projection.
    #[serde(default)]
    pub q_lora_rank: Option<u64>,
    /// Size of one value head (`v_head_dim`); `None` = the key head without its rotary part.
    #[serde(default)]
    pub v_head_dim: Option<u64>,
}

/// The layer layout of a MoE model beyond "every layer routes through `experts`", from its
/// `config.json` (or the GGUF header): what a decode step reads besides the routed experts.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct MoeLayout {
    /// Leading layers with a dense FFN of `intermediate` (`first_k_dense_replace` in DeepSeek-V3,
    /// Kimi K2 and GLM-4.5; GGUF `leading_dense_block_count`).
    #[serde(default)]
    pub dense_layers: u32,
    /// One MoE layer every `step` layers after the dense ones, the others dense (Llama 4
    /// `interleave_moe_layer_step`; GGUF `interleave_moe_layer_step`); 0 or 1 = every layer.
    #[serde(default)]
    pub step: u32,
    /// Total FFN width of the shared expert(s) on each MoE layer, run for every token:
    /// `n_shared_experts × moe_intermediate_size` (DeepSeek-V3, Kimi K2, GLM-4.5; GGUF
    /// `expert_shared_count × expert_feed_forward_length`), `shared_expert_intermediate_size`
    /// (Qwen-MoE, Qwen3-Next, Qwen3.5; GGUF `expert_shared_feed_forward_length`), the
    /// `intermediate_size` of Llama 4's shared expert.
    #[serde(default)]
    pub shared_ffn: u64,
}

impl MoeLayout {
    /// The layout a file's header or `config.json` spells (`dense` leading dense layers, one MoE
    /// layer every `step`, shared experts `shared` wide), bounded by the model's `layers`; `None`
    /// for the plain layout (every layer routed, nothing shared), which is what no layout means.
    /// One reader for both file kinds ([`crate::gguf`], [`crate::hf`]).
    pub fn read(
        dense: Option<u64>,
        step: Option<u64>,
        shared: Option<u64>,
        layers: u32,
    ) -> Option<MoeLayout> {
        let layout = MoeLayout {
            dense_layers: dense.unwrap_or(0).min(u64::from(layers)) as u32,
            step: step.unwrap_or(1).min(1024) as u32,
            shared_ffn: shared.unwrap_or(0),
        };
        let plain = MoeLayout {
            step: 1,
            ..MoeLayout::default()
        };
        (layout != plain).then_some(layout)
    }
}

/// Recurrent (linear-attention or state-space) layers of a hybrid model. One shape covers both
/// kinds: a short causal convolution over `k_heads·k_dim·2 + v_heads·v_dim` channels and a state of
/// `v_heads · k_dim · v_dim` values per sequence and layer.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Recurrent {
    /// `gated_deltanet` or `mamba2`.
    pub kind: String,
    /// Indices of the full-attention layers (every other layer is recurrent).
    pub attention_layers: Vec<u32>,
    /// Convolution kernel width (`linear_conv_kernel_dim`, `mamba_d_conv`).
    pub conv_kernel: u64,
    /// Key heads (`linear_num_key_heads`; Mamba-2: `mamba_n_groups`).
    pub k_heads: u64,
    /// Key head size (`linear_key_head_dim`; Mamba-2: `mamba_d_state`).
    pub k_dim: u64,
    /// Value heads (`linear_num_value_heads`; Mamba-2: `mamba_n_heads`).
    pub v_heads: u64,
    /// Value head size (`linear_value_head_dim`; Mamba-2: `mamba_d_head`).
    pub v_dim: u64,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
/// gemma-3n per-layer embeddings.
pub struct Ple {
    /// Vocabulary of the per-layer embeddings.
    pub vocab: u64,
    /// Width per layer.
    pub dim: u64,
}

/// How a format's byte count was obtained.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SizeKind {
    /// Printed by the publisher (decimal GB × 10^9; carries the print's rounding).
    Published,
    /// An exact byte count.
    Exact,
    /// Computed from tensor shapes and the format's block layout (no published size found).
    Computed,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
/// One published file (or set of shards) of a variant in one format.
pub struct Format {
    /// The format as the ecosystem spells it.
    pub id: Quant,
    /// GGUF or safetensors.
    pub container: Container,
    /// File size (all shards), the input the estimate starts from.
    pub bytes: Bytes,
    /// How the size is known.
    pub size: SizeKind,
    /// Hugging Face repo holding the file.
    pub repo: String,
    /// The file (or the first shard) in that repo.
    pub file: String,
    /// Where the size comes from (URL).
    #[serde(default)]
    pub source: String,
    /// Storage type of `token_embd` (and per-layer embeddings) in this file.
    pub embd_type: GgmlType,
    /// The file stores a separate output matrix although the config ties it to the embedding
    /// (Qwen3-0.6B/1.7B checkpoints and their GGUFs; Qwen3-4B FP8/AWQ).
    #[serde(default)]
    pub duplicate_output: bool,
    /// Tensors the format leaves at (near) original precision, with their type: quantisation
    /// coverage is not uniform.
    pub unquantized: Vec<String>,
    /// Anything a reader should know about this file.
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
/// A GPU model and its memory.
pub struct Gpu {
    /// Stable id (`rtx-4090`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Total memory as the driver reports it (nvidia-smi `memory.total`), in bytes.
    pub vram_bytes: Bytes,
    /// Where the memory size comes from (URL).
    #[serde(default)]
    pub source: String,
    /// Memory bandwidth, GB/s (10^9 bytes per second), as the vendor's specification prints it.
    #[serde(default)]
    pub bandwidth_gbs: Option<f64>,
    /// Where the bandwidth comes from (URL).
    #[serde(default)]
    pub bandwidth_source: Option<String>,
    /// `gddr`, `hbm` or `unified`: the decode-speed fit differs by memory kind (see [`crate::speed`]).
    #[serde(default)]
    pub memory_kind: MemoryKind,
    /// Dense FP16 tensor throughput, TFLOPS (10^12 per second), without 2:4 sparsity: the
    /// prefill roofline (see [`crate::speed`]). GeForce cards: the FP16-accumulate rate, the one
    /// llama.cpp's cuBLAS path runs at. `None` where no specification was found.
    #[serde(default)]
    pub fp16_tflops: Option<f64>,
    /// Where the throughput comes from (URL; "computed:" when a sparse figure was halved).
    #[serde(default)]
    pub fp16_tflops_source: Option<String>,
    /// Unified-memory machines: the machine's whole RAM (`vram_bytes` is the GPU's default
    /// share of it; see [`crate::support::default_wired_limit`]), from the same source.
    #[serde(default)]
    pub ram_bytes: Option<Bytes>,
}

/// YaRN rope scaling: the model's context stretched `factor` times beyond `original_ctx`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Yarn {
    /// Scaling factor (`--rope-scale`).
    pub factor: f64,
    /// The pre-training context it scales (`--yarn-orig-ctx`).
    pub original_ctx: Tokens,
    /// Where the publisher says so (URL).
    #[serde(default)]
    pub source: String,
}

impl Yarn {
    /// The longest context with YaRN.
    pub fn max_ctx(&self) -> Tokens {
        (f64::from(self.original_ctx) * self.factor) as Tokens
    }
}

/// The kind of memory a GPU has.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    /// GDDR6/6X/7 (consumer and workstation cards).
    #[default]
    Gddr,
    /// HBM2/2e/3/3e (data-centre cards).
    Hbm,
    /// LPDDR shared by CPU and GPU (Apple M-series, Ryzen AI Max, DGX Spark): `vram_bytes` is
    /// what the GPU may use by default, not the machine's total.
    Unified,
    /// No GPU: the CPU runs the model from system RAM (llama.cpp, Ollama); `vram_bytes` is the
    /// RAM and `bandwidth_gbs` its theoretical peak (`ram_bw=` overrides it).
    Host,
}

impl Arch {
    /// A dimension outside what any model has (read from a file header or a config, which are
    /// hostile input), named; `None` when every dimension is plausible. The bounds are sanity
    /// limits far above any published model (the widest hidden size is 16,384, the largest
    /// vocabulary about a million, the deepest model under 200 layers), so that every term
    /// stays meaningful instead of saturating.
    pub fn absurd(&self) -> Option<String> {
        let r = self.recurrent.as_ref();
        let m = self.mla.as_ref();
        let g = self.global_attn.as_ref();
        // Each dimension bounded on its own: a sum of two hostile values could wrap to a small
        // one and pass.
        let checks: [(&str, u64, u64); 19] = [
            ("hidden size", self.hidden, 1 << 20),
            ("layers", u64::from(self.layers), 4096),
            ("attention heads", u64::from(self.heads), 1 << 16),
            ("KV heads", u64::from(self.kv_heads), 1 << 16),
            ("head size", self.head_dim, 1 << 16),
            ("intermediate size", self.intermediate, 1 << 24),
            ("expert width", self.moe_intermediate.unwrap_or(0), 1 << 24),
            ("experts", u64::from(self.experts), 1 << 16),
            ("vocabulary", self.vocab, 1 << 24),
            ("latent rank", m.map_or(0, |m| m.kv_lora_rank), 1 << 20),
            (
                "rotary head size",
                m.map_or(0, |m| m.qk_rope_head_dim),
                1 << 16,
            ),
            (
                "query rank",
                m.and_then(|m| m.q_lora_rank).unwrap_or(0),
                1 << 20,
            ),
            (
                "value head size",
                m.and_then(|m| m.v_head_dim).unwrap_or(0),
                1 << 16,
            ),
            (
                "indexer head",
                m.and_then(|m| m.index_head_dim).unwrap_or(0),
                1 << 16,
            ),
            (
                "recurrent heads",
                r.map_or(0, |r| r.k_heads.max(r.v_heads)),
                1 << 16,
            ),
            (
                "recurrent head size",
                r.map_or(0, |r| r.k_dim.max(r.v_dim)),
                1 << 16,
            ),
            ("convolution kernel", r.map_or(0, |r| r.conv_kernel), 1024),
            (
                "global KV heads",
                g.map_or(0, |g| u64::from(g.kv_heads)),
                1 << 16,
            ),
            ("global head size", g.map_or(0, |g| g.head_dim), 1 << 16),
        ];
        checks
            .iter()
            .find(|(_, v, max)| v > max)
            .map(|(name, v, max)| format!("{name} {v} is beyond any model (at most {max})"))
    }

    /// The longest context `engine` runs this model at, defined once for the checks, the solver,
    /// the best-model filter and the page's slider: the native maximum (`max_ctx`), or the
    /// longest with YaRN rope scaling where the publisher validated it (`yarn`), except on
    /// Ollama, which cannot switch YaRN on.
    pub fn longest_ctx(&self, engine: crate::engine::Engine) -> Tokens {
        match &self.yarn {
            Some(y) if engine != crate::engine::Engine::Ollama => y.max_ctx().max(self.max_ctx),
            _ => self.max_ctx,
        }
    }

    /// Is layer `il` a sliding-window layer?
    pub fn is_swa(&self, il: u32) -> bool {
        match self.swa {
            Some(s) if s.period > 0 => il % s.period != s.global_offset,
            _ => false,
        }
    }

    /// Layers that own a KV cache (all, unless KV sharing or recurrent layers).
    pub fn kv_owning_layers(&self) -> u32 {
        let attention = self.recurrent.as_ref().map_or(self.layers, |r| {
            r.attention_layers
                .iter()
                .filter(|&&l| l < self.layers)
                .count() as u32
        });
        self.kv_layers.unwrap_or(attention).min(attention)
    }

    /// (global, sliding) counts among the layers that own a KV cache.
    pub fn kv_layer_split(&self) -> (u32, u32) {
        let n = self.kv_owning_layers();
        if let Some(g) = self.global_override {
            let g = g.min(n);
            return (g, n - g);
        }
        let swa = (0..n).filter(|&il| self.is_swa(il)).count() as u32;
        (n - swa, swa)
    }

    /// (KV heads, head size) of a global layer (`global`) or of a sliding-window layer: the
    /// same unless [`Arch::global_attn`] is set.
    pub fn kv_shape(&self, global: bool) -> (u64, u64) {
        match self.global_attn {
            Some(g) if global => (u64::from(g.kv_heads), g.head_dim),
            _ => (u64::from(self.kv_heads), self.head_dim),
        }
    }

    /// Mixture of experts?
    pub fn is_moe(&self) -> bool {
        self.experts > 1
    }
}

impl Format {
    /// File size in bytes.
    pub fn size(&self) -> Bytes {
        self.bytes
    }
}

static CATALOG: OnceLock<Catalog> = OnceLock::new();

/// The catalog as compiled in for the CLI and the tests: one minified JSON document assembled
/// by `build.rs` from `data/families/*.json`, `data/gpus.json` and `data/common_eval.json`.
#[cfg(not(target_arch = "wasm32"))]
pub const EMBEDDED_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/catalog.json"));

/// The page's catalog as JSON (no source texts; only the evaluation rows of catalog variants):
/// what [`PAGE_POSTCARD`] must encode.
#[cfg(not(target_arch = "wasm32"))]
pub const PAGE_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/catalog-page.json"));

/// The page's catalog, postcard-encoded (`data/catalog.postcard`, kept equal to [`PAGE_JSON`] by
/// `tests/page_catalog.rs`). The page does not compile it in: it fetches the file as a separate,
/// cached asset and hands it to [`install`] before it mounts (the wasm carries neither the data
/// nor a JSON parser).
#[cfg(not(target_arch = "wasm32"))]
pub const PAGE_POSTCARD: &[u8] = include_bytes!("../data/catalog.postcard");

/// The catalog: the built-in one, or the one with an imported family ([`import`],
/// [`replace`]).
pub fn catalog() -> &'static Catalog {
    let imported = *IMPORTED
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    imported.unwrap_or_else(base)
}

/// `base` with `family` (a Hub repo read by the page) added last. Refused (Err names why) when
/// the family is empty or its id or one of its variant ids is already taken.
pub fn with_import(mut base: Catalog, family: Family) -> Result<Catalog, String> {
    let taken = |id: &str| base.variant(id).is_some() || base.family(id).is_some();
    if family.variants.is_empty() || family.variants.iter().any(|v| v.formats.is_empty()) {
        return Err("nothing to estimate: no variant with a format".into());
    }
    if let Some(v) = family.variants.iter().find(|v| taken(&v.id)) {
        return Err(format!("{} is already in the catalog", v.id));
    }
    if taken(&family.id) {
        return Err(format!("family {} is already in the catalog", family.id));
    }
    base.families.push(family);
    Ok(base)
}

/// The built-in catalog plus `family` becomes the catalog, replacing any earlier import: from
/// then on [`catalog()`] returns it, so the estimate, the ranking and the permalink treat the
/// import as a catalog family. Refused as [`with_import`] refuses.
#[cfg(not(target_arch = "wasm32"))]
pub fn import(family: Family) -> Result<(), String> {
    let fresh: Catalog =
        serde_json::from_str(EMBEDDED_JSON).expect("embedded catalog is valid (checked by tests)");
    set_imported(with_import(fresh, family)?);
    Ok(())
}

/// Make the postcard-encoded `bytes` (a catalog with an imported family, as the page's importer
/// sends it) the catalog, replacing any earlier import. Err says why not in one line.
pub fn replace(bytes: &[u8]) -> Result<(), String> {
    set_imported(decode(bytes)?);
    Ok(())
}

fn set_imported(c: Catalog) {
    // Each import keeps its catalog for the life of the process (a page imports a handful):
    // references handed out before stay valid.
    let c: &'static Catalog = Box::leak(Box::new(c));
    *IMPORTED
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(c);
}

/// The catalog with an imported family, when one was imported.
static IMPORTED: std::sync::RwLock<Option<&'static Catalog>> = std::sync::RwLock::new(None);

/// The built-in catalog, without imports: natively the embedded JSON (parsed once); on the web
/// page the one [`install`] received.
#[cfg(not(target_arch = "wasm32"))]
pub fn base() -> &'static Catalog {
    CATALOG.get_or_init(|| {
        // The JSON is compiled in and validated by tests; a parse failure is a build defect.
        serde_json::from_str(EMBEDDED_JSON).expect("embedded catalog is valid (checked by tests)")
    })
}

/// The built-in catalog, without imports: natively the embedded JSON (parsed once); on the web
/// page the one [`install`] received.
#[cfg(target_arch = "wasm32")]
pub fn base() -> &'static Catalog {
    CATALOG
        .get()
        .expect("the page installs its catalog before it mounts")
}

/// Decode a postcard-encoded catalog (the page's `catalog.postcard`, or one with an import). Err
/// says why not in one line; a catalog without families or GPUs is refused.
pub fn decode(bytes: &[u8]) -> Result<Catalog, String> {
    let c: Catalog = postcard::from_bytes(bytes).map_err(|_| {
        "the catalog file cannot be read (damaged, or from another version)".to_string()
    })?;
    if c.families.is_empty() || c.gpus.is_empty() {
        return Err("the catalog file holds no models or no GPUs".into());
    }
    Ok(c)
}

/// Make the postcard-encoded `bytes` (the page's `catalog.postcard`) the catalog. Ok when it
/// decodes to a catalog with families and GPUs (or one is already in place); Err says why not in
/// one line.
pub fn install(bytes: &[u8]) -> Result<(), String> {
    if CATALOG.get().is_none() {
        let _ = CATALOG.set(decode(bytes)?);
    }
    Ok(())
}

/// FNV-1a (64-bit) of `bytes`: the page compares the catalog file it fetched with the one it
/// was built with (`tag(include_bytes!(…))` is evaluated at compile time).
pub const fn tag(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut k = 0;
    while k < bytes.len() {
        h ^= bytes[k] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        k += 1;
    }
    h
}

impl Catalog {
    /// The variant with repo id `id` (case-insensitive) and its family.
    pub fn variant(&self, id: &str) -> Option<(&Family, &Variant)> {
        self.families.iter().find_map(|f| {
            f.variants
                .iter()
                .find(|v| v.id.eq_ignore_ascii_case(id))
                .map(|v| (f, v))
        })
    }

    /// The family with id `id`.
    pub fn family(&self, id: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.id == id)
    }

    /// The GPU with id `id`.
    pub fn gpu(&self, id: &str) -> Option<&Gpu> {
        self.gpus.iter().find(|g| g.id.eq_ignore_ascii_case(id))
    }

    /// Problems in the data (empty when consistent). Checked by a test, shown nowhere else.
    pub fn validate(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for f in &self.families {
            for (i, v) in f.variants.iter().enumerate() {
                if !seen.insert(v.id.to_ascii_lowercase()) {
                    errs.push(format!("duplicate variant {}", v.id));
                }
                if v.capability_rank != i as u32 + 1 {
                    errs.push(format!(
                        "{}: capability_rank {} at position {}",
                        v.id,
                        v.capability_rank,
                        i + 1
                    ));
                }
                let a = &v.arch;
                if a.layers == 0
                    || a.kv_heads == 0
                    || a.heads == 0
                    || a.head_dim == 0
                    || a.hidden == 0
                {
                    errs.push(format!("{}: zero dimension", v.id));
                }
                if a.kv_heads == 0 || !a.heads.is_multiple_of(a.kv_heads) {
                    errs.push(format!("{}: heads not a multiple of kv_heads", v.id));
                }
                if let Some(g) = a.global_attn {
                    if g.kv_heads == 0 || g.head_dim == 0 || !a.heads.is_multiple_of(g.kv_heads) {
                        errs.push(format!("{}: global KV heads or head size", v.id));
                    }
                }
                if a.native_ctx.iter().any(|&c| c > a.max_ctx)
                    || a.native_ctx.windows(2).any(|w| w[0] >= w[1])
                {
                    errs.push(format!("{}: native_ctx not ascending within max_ctx", v.id));
                }
                if v.formats.is_empty() {
                    errs.push(format!("{}: no formats", v.id));
                }
                for w in v.formats.windows(2) {
                    if w[0].id.precision_bits() < w[1].id.precision_bits() {
                        errs.push(format!(
                            "{}: formats not ordered by precision ({} before {})",
                            v.id, w[0].id, w[1].id
                        ));
                    }
                }
                let mut fseen = std::collections::HashSet::new();
                for fm in &v.formats {
                    if !fseen.insert((fm.id, fm.container)) {
                        errs.push(format!("{}: duplicate format {}", v.id, fm.id));
                    }
                    if fm.bytes == Bytes::ZERO || fm.source.is_empty() {
                        errs.push(format!("{}: {} has no size or source", v.id, fm.id));
                    }
                }
            }
        }
        for g in &self.gpus {
            if g.vram_bytes == Bytes::ZERO || g.source.is_empty() {
                errs.push(format!("gpu {}: no VRAM or source", g.id));
            }
        }
        errs
    }
}

/// The `n` catalog variants most like `id`, a Hugging Face repo id the catalog does not hold,
/// best first, for a page that cannot estimate `id` and offers these instead. Closeness: the
/// same model family name (`llama`, `qwen`, …), then the same publisher, then the nearest
/// parameter count (`70B`), then shared name parts; ties keep catalog order. Only the first
/// 200 characters of `id` are read.
pub fn closest(id: &str, n: usize) -> Vec<&'static Variant> {
    let want = &IdParts::parse(id);
    let mut scored: Vec<(f64, &'static Variant)> = catalog()
        .families
        .iter()
        .flat_map(|f| f.variants.iter().map(move |v| (want.similarity(f, v), v)))
        .collect();
    // The best n by selection (n is small): the first of equal scores wins.
    let mut out = Vec::with_capacity(n.min(scored.len()));
    while out.len() < n && !scored.is_empty() {
        let best = (1..scored.len()).fold(0, |b, k| if scored[k].0 > scored[b].0 { k } else { b });
        out.push(scored.remove(best).1);
    }
    out
}

/// A model id taken apart for [`closest`]: publisher, name parts, parameter count.
struct IdParts {
    org: Option<String>,
    /// Runs of letters, and numbers with their decimal points (`llama`, `3.3`, `70`, `b`).
    tokens: Vec<String>,
    /// Billions of parameters written in the name (`70B`, `360M`), if any.
    params: Option<f64>,
}

impl IdParts {
    fn parse(id: &str) -> IdParts {
        let id: String = id
            .chars()
            .take(200)
            .collect::<String>()
            .to_ascii_lowercase();
        let (org, name) = match id.split_once('/') {
            Some((o, n)) => (Some(o.to_string()), n),
            None => (None, id.as_str()),
        };
        let tokens = name_tokens(name);
        IdParts {
            org,
            params: params_of(&tokens),
            tokens,
        }
    }

    fn similarity(&self, f: &Family, v: &Variant) -> f64 {
        let theirs = IdParts::parse(&v.id);
        let mut score = 0.0;
        // The family's own word: the first run of letters of its name (`Llama 3.1` → `llama`).
        if let Some(word) = name_tokens(&f.name.to_ascii_lowercase())
            .into_iter()
            .find(|t| t.chars().all(|c| c.is_ascii_alphabetic()))
        {
            if self.tokens.contains(&word) {
                score += 4.0;
            }
        }
        if self.org.is_some() && self.org == theirs.org {
            score += 2.0;
        }
        let params = theirs
            .params
            .or_else(|| params_of(&name_tokens(&v.name.to_ascii_lowercase())));
        if let (Some(a), Some(b)) = (self.params, params) {
            // Full marks for the same size, less the further apart (8× apart: about a third).
            score += 3.0 * (a.min(b) / a.max(b)).sqrt();
        }
        let shared = self
            .tokens
            .iter()
            .filter(|t| theirs.tokens.contains(t))
            .count();
        let union = self.tokens.len() + theirs.tokens.len() - shared;
        if union > 0 {
            score += 2.0 * shared as f64 / union as f64;
        }
        score
    }
}

/// Runs of ASCII letters and of digits (with the dots between digits) of a lower-cased name;
/// anything else separates them.
fn name_tokens(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_digit = false;
    let chars: Vec<char> = s.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        let digit = c.is_ascii_digit()
            || (c == '.' && prev_digit && chars.get(k + 1).is_some_and(|d| d.is_ascii_digit()));
        let letter = c.is_ascii_alphabetic();
        if (digit || letter) && !cur.is_empty() && digit != prev_digit {
            out.push(std::mem::take(&mut cur));
        }
        if digit || letter {
            cur.push(c);
            prev_digit = digit;
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The first number followed by `b` (billions) or `m` (millions), in billions.
fn params_of(tokens: &[String]) -> Option<f64> {
    tokens.windows(2).find_map(|w| {
        let x = crate::units::parse_decimal(&w[0]).filter(|x| x.is_finite() && *x > 0.0)?;
        match w[1].as_str() {
            "b" => Some(x),
            "m" => Some(x / 1000.0),
            _ => None,
        }
    })
}

/// One published decode measurement of a catalog configuration (its lookup:
/// [`crate::measured::find`]).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Measured {
    /// The catalog variant it measures.
    pub variant: String,
    /// The model as the source names it (a base checkpoint may stand for its instruct release).
    pub model: String,
    /// The GGUF format.
    pub quant: Quant,
    /// The catalog card.
    pub gpu: String,
    /// Tokens in the cache when the test started (0: an empty cache).
    pub depth: u32,
    /// The llama-bench test as printed (`tg128`, `tg32 @ d4096`).
    pub test: String,
    /// Tokens per second, the mean llama-bench printed.
    pub decode_tps: f64,
    /// Where it was published.
    pub url: String,
}

#[cfg(test)]
mod closest_tests {
    use super::*;

    fn ids(id: &str, n: usize) -> Vec<&'static str> {
        closest(id, n).into_iter().map(|v| v.id.as_str()).collect()
    }

    #[test]
    fn the_nearest_family_and_size_come_first() {
        // (requested id, expected first suggestion)
        let rows = [
            (
                "meta-llama/Meta-Llama-3-70B",
                "meta-llama/Meta-Llama-3-70B-Instruct",
            ),
            ("Qwen/Qwen2-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
            ("google/gemma-2-27b", "google/gemma-2-27b-it"),
            ("google/gemma-3-270m", "google/gemma-3-270m-it"),
            ("google/gemma-2-2b-jpn-it", "google/gemma-2-2b-it"),
            (
                "mistralai/Mixtral-8x7B-v0.1",
                "mistralai/Mixtral-8x7B-Instruct-v0.1",
            ),
            ("openai/gpt-oss-safeguard-20b", "openai/gpt-oss-20b"),
            (
                "microsoft/Phi-3.5-mini-instruct",
                "microsoft/Phi-4-mini-instruct",
            ),
            // An id the catalog holds is its own nearest entry.
            ("Qwen/Qwen3-14B", "Qwen/Qwen3-14B"),
        ];
        for (id, want) in rows {
            assert_eq!(ids(id, 3)[0], want, "{id}: {:?}", ids(id, 3));
        }
        // The nearest to a Llama are Llamas, the nearest size first.
        assert_eq!(
            ids("meta-llama/Meta-Llama-3-70B", 4),
            [
                "meta-llama/Meta-Llama-3-70B-Instruct",
                "meta-llama/Llama-3.3-70B-Instruct",
                "meta-llama/Llama-3.1-70B-Instruct",
                "meta-llama/Llama-2-70b-chat-hf",
            ]
        );
    }

    #[test]
    fn any_input_gives_n_distinct_entries_in_a_stable_order() {
        let total: usize = catalog().families.iter().map(|f| f.variants.len()).sum();
        let long = "x".repeat(100_000);
        for id in [
            "",
            "no such thing",
            "\u{0}\u{1b}[31m/\u{ffff}",
            "%zz",
            long.as_str(),
        ] {
            let got = ids(id, 4);
            assert_eq!(got.len(), 4.min(total), "{id:.20}");
            let mut d = got.clone();
            d.sort_unstable();
            d.dedup();
            assert_eq!(d.len(), got.len(), "{id:.20}");
            assert_eq!(got, ids(id, 4), "deterministic");
        }
        assert!(closest("meta-llama/Llama-3.3-70B-Instruct", 0).is_empty());
        assert_eq!(closest("x", total + 5).len(), total);
    }

    #[test]
    fn names_split_into_words_numbers_and_sizes() {
        let t = name_tokens("llama-3.3-70b-instruct");
        assert_eq!(t, ["llama", "3.3", "70", "b", "instruct"]);
        assert_eq!(params_of(&t), Some(70.0));
        assert_eq!(params_of(&name_tokens("qwen3-30b-a3b")), Some(30.0));
        assert_eq!(params_of(&name_tokens("gemma-3n-e4b-it")), Some(4.0));
        assert_eq!(params_of(&name_tokens("smollm2-360m")), Some(0.36));
        assert_eq!(params_of(&name_tokens("phi-4")), None);
        assert_eq!(name_tokens("v0.3."), ["v", "0.3"]);
    }
}
