//! A model's architecture: the facts of its config.json the memory terms need (attention,
//! sliding windows, latent attention, experts, recurrent layers), and their sanity bounds.

use super::*;

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
    pub moe: Option<MoeShape>,
    /// Full-attention layers with their own KV heads and head size (Gemma 4:
    /// `num_global_key_value_heads`, `global_head_dim`); `kv_heads` and `head_dim` above are then
    /// the sliding-window layers'. `None` = every layer has the same shape.
    #[serde(default)]
    pub global_attn: Option<GlobalAttn>,
    /// Layers that each hold ONE block, a Mamba-2 mixer, attention, an MLP or the experts
    /// (Nemotron-H's `hybrid_override_pattern`); `recurrent.attention_layers` are then its
    /// attention layers. `None` = every layer has attention (or its recurrent mixer) and an FFN.
    #[serde(default)]
    pub blocks: Option<Blocks>,
    /// A reranker's classification head, the scores it writes per input (llama.cpp's `cls`
    /// tensors, read by rank pooling): an encoder's sequence classifier (XLM-RoBERTa's
    /// `classifier.dense`, hidden × hidden with its bias, then `classifier.out_proj`, this many
    /// rows of hidden with their biases; `cls` and `cls.output` in the GGUF). `None` = no head. A
    /// decoder reranker's yes/no rows, which llama.cpp's converter cuts from its LM head (2 ×
    /// hidden), are read from a GGUF (so that an import is served as a reranker) but not sized.
    #[serde(default)]
    pub rank_labels: Option<u32>,
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
    /// A window of `window` tokens (at most `u32::MAX`) with one global layer every `period`, the
    /// `global_offset`-th of each.
    pub fn sliding(window: u64, period: u32, global_offset: u32) -> Swa {
        Swa {
            window: window.min(u64::from(u32::MAX)) as Tokens,
            period,
            global_offset,
            chunked: false,
        }
    }

    /// A window where every `period`-th layer is global (the last of each `period`).
    pub fn every(window: u64, period: u32) -> Swa {
        Swa::sliding(window, period, period.saturating_sub(1))
    }

    /// A window over a per-layer list of which layers are global, in layer order: one global
    /// layer every `period` = the distance between the first two; `None` with fewer than two.
    pub fn pattern(window: u64, global: impl IntoIterator<Item = bool>) -> Option<Swa> {
        let mut full = global
            .into_iter()
            .enumerate()
            .filter(|(_, g)| *g)
            .map(|(k, _)| k);
        let (a, b) = (full.next()?, full.next()?);
        let period = (b - a) as u32;
        Some(Swa::sliding(window, period, a as u32 % period))
    }

    /// Llama 4's chunked local attention: chunks of `chunk` tokens, one global (NoPE) layer in
    /// four, the last of each group (llama.cpp's llama4 pattern, `set_swa_pattern(4)` in
    /// src/llama-model.cpp).
    pub fn llama4_chunked(chunk: u64) -> Swa {
        Swa {
            chunked: true,
            ..Swa::every(chunk, 4)
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
    /// Query heads of the sparse-attention indexer (`index_n_heads`, GGUF
    /// `attention.indexer.head_count`), when the model has one: they size its weights, not
    /// the cache.
    #[serde(default)]
    pub index_heads: Option<u64>,
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
pub struct MoeShape {
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
    /// Width the routed experts work in when it is not the hidden size (Nemotron 3 Super's
    /// `moe_latent_size`; GGUF `moe_latent_size`): a down-projection into it before the
    /// experts and an up-projection after them. 0 = the hidden size.
    #[serde(default)]
    pub latent: u64,
}

impl MoeShape {
    /// The layout a file's header or `config.json` spells (`dense` leading dense layers, one MoE
    /// layer every `step`, shared experts `shared` wide), bounded by the model's `layers`; `None`
    /// for the plain layout (every layer routed, nothing shared), which is what no layout means.
    /// One reader for both file kinds ([`crate::readers::gguf`], [`crate::readers::hf`]).
    pub fn read(
        dense: Option<u64>,
        step: Option<u64>,
        shared: Option<u64>,
        layers: u32,
    ) -> Option<MoeShape> {
        let layout = MoeShape {
            dense_layers: dense.unwrap_or(0).min(u64::from(layers)) as u32,
            step: step.unwrap_or(1).min(1024) as u32,
            shared_ffn: shared.unwrap_or(0),
            latent: 0,
        };
        let plain = MoeShape {
            step: 1,
            ..MoeShape::default()
        };
        (layout != plain).then_some(layout)
    }
}

/// Recurrent (linear-attention, state-space or short-convolution) layers of a hybrid model.
/// Gated DeltaNet and Mamba-2 share one shape: a short causal convolution over
/// `k_heads·k_dim·2 + v_heads·v_dim` channels and a state of `v_heads · k_dim · v_dim` values per
/// sequence and layer. LFM2's gated short convolution (`shortconv`) has no heads and no recurrent
/// state: its convolution runs over the hidden size, so its four head fields are 0 (llama.cpp:
/// `n_embd_r() = n_embd · (n_shortconv_l_cache − 1)`, `n_embd_s() = 0`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Recurrent {
    /// `gated_deltanet`, `mamba2` or `shortconv` (LFM2).
    pub kind: String,
    /// Indices of the full-attention layers (every other layer is recurrent).
    pub attention_layers: Vec<u32>,
    /// Convolution kernel width (`linear_conv_kernel_dim`, `mamba_d_conv`, LFM2's `conv_L_cache`).
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

/// The widest hidden size [`Arch::absurd`] allows (the widest published model's is 16,384).
pub const MAX_HIDDEN: u64 = 1 << 20;

/// Why an architecture the readers know by name is not estimated: its memory follows rules
/// this estimator does not implement yet, so the generic fields would give a wrong answer.
/// `model_type` is the config's (`deepseek_v4`) or the GGUF's (`deepseek4`).
pub fn not_modelled(model_type: &str) -> Option<&'static str> {
    match model_type {
        // https://huggingface.co/deepseek-ai/DeepSeek-V4-Flash/blob/main/config.json:
        // `compress_ratios`, `hc_mult`, `o_lora_rank`, `num_hash_layers`.
        "deepseek_v4" | "deepseek4" => Some(
            "DeepSeek-V4's compressed sparse attention (per-layer KV compression with its own \
             compressor state, an indexer over the compressed blocks, hyper-connections) is not \
             modelled yet",
        ),
        // llama.cpp's create_memory gives these no KV cache (src/llama-model.cpp at 00342301:
        // JINA_BERT_V2/V3, NOMIC_BERT_MOE, NEO_BERT, GEMMA_EMBEDDING, …, named as
        // src/llama-arch.cpp names them); the config names of the same encoders beside them.
        // BERT, XLM-RoBERTa and nomic-bert are modelled (`encoder`); these build other graphs.
        "modern-bert" | "nomic-bert-moe" | "neo-bert" | "jina-bert-v2" | "jina-bert-v3"
        | "eurobert" | "gemma-embedding" | "modernbert" | "neobert" => Some(
            "an encoder-only model (attention over the whole input, no KV cache: llama.cpp's \
             create_memory allocates it none) whose graph is not modelled yet (BERT, \
             XLM-RoBERTa and nomic-bert are)",
        ),
        "dream" | "llada" | "llada-moe" | "rnd1" | "Dream" => Some(
            "a diffusion language model (llama.cpp's create_memory allocates it no KV cache; it \
             denoises the whole sequence at once); not modelled yet",
        ),
        _ => None,
    }
}

/// The one constructor of the two readers of model files ([`crate::readers::gguf`],
/// [`crate::readers::hf`]): a reader starts from [`Arch::read`], sets what its file says (through
/// the `set_` steps where a value needs a rule), and ends with [`Arch::checked`].
impl Arch {
    /// An architecture read from a file (a GGUF header or a `config.json`, hostile input): its
    /// attention shape, checked before anything is derived from it (`None` when a count is 0 or
    /// there are over 100,000 layers), and every other field as a file that says no more means
    /// it: one head size, `hidden / heads`; an MLP `4 × hidden` wide; one expert; an untied
    /// output; a 4,096-token context; no sliding window, latent attention, recurrent layers or
    /// shared KV.
    pub fn read(
        model_type: String,
        hidden: u64,
        layers: u32,
        heads: u32,
        kv_heads: u32,
    ) -> Option<Arch> {
        if hidden == 0 || layers == 0 || heads == 0 || kv_heads == 0 || layers > 100_000 {
            return None;
        }
        Some(Arch {
            model_type,
            hidden,
            layers,
            heads,
            kv_heads,
            head_dim: hidden / u64::from(heads),
            intermediate: hidden.saturating_mul(4),
            moe_intermediate: None,
            experts: 1,
            experts_active: 1,
            vocab: 0,
            tied_embeddings: false,
            max_ctx: 4096,
            native_ctx: vec![4096],
            swa: None,
            kv_layers: None,
            ple: None,
            source: String::new(),
            yarn: None,
            mla: None,
            recurrent: None,
            moe: None,
            global_attn: None,
            blocks: None,
            rank_labels: None,
            global_override: None,
        })
    }

    /// Sets the longest context the file gives (`None`: 4,096 tokens; at most `u32::MAX`), also
    /// its one native length; `None`, and nothing set, for a context of 0.
    pub fn set_context(&mut self, max_ctx: Option<u64>) -> Option<Tokens> {
        let max_ctx = max_ctx.unwrap_or(4096).min(u64::from(u32::MAX)) as Tokens;
        if max_ctx == 0 {
            return None;
        }
        self.max_ctx = max_ctx;
        self.native_ctx = vec![max_ctx];
        Some(max_ctx)
    }

    /// Sets `experts` routed experts (`None`, 0 or 1: a dense model), `active` of them per token
    /// (`None`: 1), each `width` wide; `None`, and nothing set, for a count beyond `u32`.
    pub fn set_experts(
        &mut self,
        experts: Option<u64>,
        active: Option<u64>,
        width: Option<u64>,
    ) -> Option<u32> {
        let experts = experts.map_or(Some(1), |n| u32::try_from(n).ok())?.max(1);
        self.experts = experts;
        self.experts_active = active.unwrap_or(1).min(u64::from(u32::MAX)) as u32;
        self.moe_intermediate = width;
        Some(experts)
    }

    /// Sets the last `shared` layers to reuse earlier layers' caches, owning none (`None` or 0:
    /// every layer owns one).
    pub fn set_shared_kv(&mut self, shared: Option<u64>) {
        let layers = self.layers;
        self.kv_layers = shared
            .filter(|&n| n > 0)
            .map(|n| layers.saturating_sub(n.min(u64::from(layers)) as u32));
    }

    /// Sets per-layer token embeddings `dim` wide (`None` or 0: none) over `vocab` tokens
    /// (`None`: the model's vocabulary).
    pub fn set_ple(&mut self, dim: Option<u64>, vocab: Option<u64>) {
        let vocab = vocab.unwrap_or(self.vocab);
        self.ple = dim.filter(|&d| d > 0).map(|dim| Ple { vocab, dim });
    }

    /// The architecture, every dimension plausible; Err names the one that is not
    /// ([`Arch::absurd`]).
    pub fn checked(self) -> Result<Arch, String> {
        match self.absurd() {
            Some(why) => Err(why),
            None => Ok(self),
        }
    }
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
        let checks: [(&str, u64, u64); 21] = [
            ("hidden size", self.hidden, MAX_HIDDEN),
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
                "indexer heads",
                m.and_then(|m| m.index_heads).unwrap_or(0),
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
            (
                "expert latent size",
                self.moe.map_or(0, |x| x.latent),
                MAX_HIDDEN,
            ),
        ];
        let bad_blocks = self.blocks.as_ref().and_then(|b| {
            (b.len() != self.layers as usize)
                .then(|| format!("{} layer blocks for {} layers", b.len(), self.layers))
        });
        checks
            .iter()
            .find(|(_, v, max)| v > max)
            .map(|(name, v, max)| format!("{name} {v} is beyond any model (at most {max})"))
            .or(bad_blocks)
    }

    /// Layers with a recurrent state: the Mamba-2 blocks of a block pattern, else every layer
    /// that is not an attention layer of a hybrid model (0 for a plain transformer).
    pub fn recurrent_layers(&self) -> u32 {
        match (&self.blocks, &self.recurrent) {
            (Some(b), Some(_)) => b.count(Block::Mamba2),
            (_, Some(_)) => self.layers.saturating_sub(self.kv_owning_layers()),
            _ => 0,
        }
    }

    /// The longest context `engine` runs this model at, defined once for the checks, the solver,
    /// the best-model filter and the page's slider: the native maximum (`max_ctx`), or the
    /// longest with YaRN rope scaling where the publisher validated it (`yarn`), except on
    /// Ollama, which cannot switch YaRN on.
    pub fn longest_ctx(&self, engine: crate::catalog::engine::Engine) -> Tokens {
        match &self.yarn {
            Some(y) if engine != crate::catalog::engine::Engine::Ollama => {
                y.max_ctx().max(self.max_ctx)
            }
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

    /// Layers that own a KV cache (all, unless KV sharing or recurrent layers; none in an
    /// encoder, [`crate::catalog::encoder`]).
    pub fn kv_owning_layers(&self) -> u32 {
        if crate::catalog::is_encoder(self) {
            return 0;
        }
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
