//! Everything a user can set: one plain value, no signals, no I/O (so it tests on the host).
//! The permalink codec ([`crate::inputs::permalink`]) turns it into a query string and back.

use crate::catalog::engine::{Engine, KvDtype};
use crate::catalog::quant::Quant;
use crate::units::Tokens;
use serde::Serialize;

mod key;
pub mod limits;
pub mod normalize;
pub mod permalink;
mod spec;
mod train;

pub use key::{Key, NoticeKey};
#[cfg(feature = "spec")]
pub use spec::eagle_arch;
#[cfg(feature = "spec")]
pub use spec::mtp_arch;
#[cfg(feature = "spec")]
pub use spec::sglang_mtp;
pub use spec::{
    checkpoint_mtp_layers, llama_mtp_layers, mtp_repo, Spec, MTP_REPOS, NGRAM_MAX_DEFAULT,
};
pub use spec::{eagle3_head, Eagle3Head, EAGLE3_HEADS};

pub use train::{GradCkpt, Method, Optim, TargetModule, TargetSet, TrainInputs, Trainer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
/// Serve (inference) or train (fine-tuning).
pub enum Mode {
    /// Inference memory.
    Serve,
    /// Fine-tuning memory.
    Train,
}

/// The card(s): a catalog GPU, or a free-form VRAM size per card (GiB).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum GpuChoice {
    /// A catalog GPU id.
    Catalog(String),
    /// VRAM per card, GiB.
    VramGib(f64),
}

impl std::fmt::Display for GpuChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuChoice::Catalog(id) => f.write_str(id),
            GpuChoice::VramGib(g) => write!(f, "{} GiB per card", crate::units::Shortest(*g)),
        }
    }
}

/// One complete configuration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inputs {
    /// Serve or train.
    pub mode: Mode,
    /// Hugging Face repo id of the variant.
    pub model: String,
    /// Format of the weights.
    pub quant: Quant,
    /// Context per request (tokens).
    pub ctx: Tokens,
    /// Concurrent slots (requests served at once, each with `ctx`).
    pub par: u32,
    /// Number of cards.
    pub cards: u32,
    /// The card(s).
    pub gpu: GpuChoice,
    /// Cards of different models (catalog ids, `gpus=`): when given, they are the cards, in
    /// order, and `cards`, `gpu` and `vram` follow them.
    pub gpus: Vec<String>,
    /// The inference engine.
    pub engine: Engine,
    /// KV cache type: of K, and of V too unless [`Inputs::kv_v`] says otherwise.
    pub kv: KvDtype,
    /// A different type for V (llama.cpp `--cache-type-v`); `None` = the same as K.
    pub kv_v: Option<KvDtype>,
    /// llama.cpp `-kvu`: one unified KV buffer shared by all slots.
    pub kvu: bool,
    /// llama.cpp `-ub` (physical batch).
    pub ubatch: u32,
    /// llama.cpp `--swa-full`: full-size cache for sliding-window layers.
    pub swa_full: bool,
    /// vLLM `--gpu-memory-utilization`.
    pub util: f64,
    /// vLLM and SGLang: the tensor-parallel size pinned by `tp=` (`None`: chosen, see
    /// [`crate::estimate::ParallelChoice`]); the pipeline size is `cards / tp`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tp: Option<u32>,
    /// vLLM and SGLang: the pipeline-parallel size pinned by `pp=` (when `tp=` is not given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pp: Option<u32>,
    /// Load the repo's multimodal projector (llama-server's default for `-hf`); `false` =
    /// text only (`mmproj=0`, `--no-mmproj`).
    pub mmproj: bool,
    /// Measured equivalent global-attention layers of this model (`gl=`), replacing the
    /// catalog's layer layout for the KV cache; `None` = the catalog's.
    pub gl: Option<f64>,
    /// Memory bandwidth of a free-form (`vram=`) card, GB/s (`bw=`): gives it a decode speed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw: Option<f64>,
    /// Host RAM bandwidth, GB/s (`ram_bw=`), for layers and KV left in system RAM; `None` =
    /// [`crate::serve::speed::DEFAULT_RAM_BW_GBS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ram_bw: Option<f64>,
    /// llama.cpp `-ngl` / Ollama `num_gpu` (`ngl=`): layers on the GPU, the output layer
    /// counting as one of them; the first `layers + 1 − ngl` blocks stay in host RAM. `None` =
    /// every layer on the card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ngl: Option<u32>,
    /// llama.cpp `--no-kv-offload` (`nkvo=1`): the KV cache stays in host RAM.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nkvo: bool,
    /// llama.cpp `--n-cpu-moe N` / `--cpu-moe` (`ncmoe=N`, `ncmoe=all`): the routed experts of
    /// the first N layers stay in system RAM. `None` = every expert on the cards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ncmoe: Option<CpuMoe>,
    /// Speculative decoding with a draft model (`draft=`, `draftq=`, `ndraft=`; llama.cpp
    /// `-md`). `None` = no draft. (Boxed: the inputs are cloned often, a draft seldom set.)
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub draft: Option<Box<Draft>>,
    /// Draft tokens per step (`ndraft=`; llama.cpp `--spec-draft-n-max`, or
    /// `--spec-ngram-mod-n-max` for n-grams): the engine's default once a method is set.
    #[cfg(feature = "spec")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ndraft: Option<u32>,
    /// How the next tokens are drafted (`spec=`; `draft` when `draft=` is given). `None` = no
    /// speculative decoding.
    #[cfg(feature = "spec")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<Spec>,
    /// llama.cpp's extra recurrent states kept per sequence for speculative rollback (`rsseq=`,
    /// the context's `n_rs_seq`; 0 = none): each recurrent layer holds `1 + rsseq` states per
    /// sequence (src/llama-memory-recurrent.cpp). llama-server sets it to the draft tokens per step (`--spec-draft-n-max`) when an
    /// MTP, EAGLE-3 or DFlash head drafts (common/common.h, `need_n_rs_seq`).
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub rsseq: u32,
    /// Serve-time LoRA adapters (`loras=`, `lorarank=`; vLLM `--enable-lora --max-loras
    /// --max-lora-rank`, llama.cpp `--lora`). `None` = none.
    #[cfg(feature = "extras")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lora: Option<ServeLora>,
    /// Other models resident on the same cards (`with=`: an embedder, a reranker, a second
    /// chat model), each run by its own engine instance beside this one. Empty = none.
    #[cfg(feature = "extras")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub with: Vec<CoModel>,
    /// Images per request (`images=`): each costs tokens of the context by its model's image
    /// processor ([`crate::catalog::images`]). 0 = text only (the default).
    #[cfg(feature = "extras")]
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub images: u32,
    /// GiB kept free on each card for a desktop or other programs (`reserve=`; 0 = none).
    #[serde(skip_serializing_if = "is_zero")]
    pub reserve: f64,
    /// Compact view for iframes.
    pub embed: bool,
    /// The Hub revision (commit sha) an imported model was read at (`rev=`): a shared link
    /// reads the same files again. `None` for catalog models.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rev: Option<String>,
    /// The file of an imported repo the format was read from (`file=`, a path in the repo,
    /// not a local path). `None` for catalog models.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The cross-family view (`best=1`) and its filters (absent from the JSON when unset).
    #[serde(skip_serializing_if = "BestFilters::is_default")]
    pub best: BestFilters,
    /// Train-mode inputs.
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
            gpus: Vec::new(),
            engine: Engine::LlamaCpp,
            kv: KvDtype::F16,
            kv_v: None,
            kvu: false,
            ubatch: 512,
            swa_full: false,
            util: 0.9,
            tp: None,
            pp: None,
            mmproj: true,
            gl: None,
            bw: None,
            ram_bw: None,
            ngl: None,
            nkvo: false,
            ncmoe: None,
            draft: None,
            #[cfg(feature = "spec")]
            ndraft: None,
            #[cfg(feature = "spec")]
            spec: None,
            rsseq: 0,
            #[cfg(feature = "extras")]
            lora: None,
            #[cfg(feature = "extras")]
            with: Vec::new(),
            #[cfg(feature = "extras")]
            images: 0,
            reserve: 0.0,
            embed: false,
            rev: None,
            file: None,
            best: BestFilters::default(),
            train: TrainInputs::default(),
        }
    }
}

/// "Best model for my card": the cross-family ranking (`best=1`) and what it is limited to.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BestFilters {
    /// Show the cross-family ranking (`best=1`).
    pub on: bool,
    /// Only this family (`family=`, a catalog family id).
    pub family: Option<String>,
    /// Only this licence (`license=`, a Hugging Face licence id such as `apache-2.0`).
    pub license: Option<String>,
    /// Only variants that reach this context (`minctx=`, tokens).
    pub min_ctx: Option<Tokens>,
    /// Only reasoning models (`reasoning=1`) or only others (`reasoning=0`).
    pub reasoning: Option<bool>,
}

impl BestFilters {
    /// Anything to write into the permalink?
    pub fn is_default(&self) -> bool {
        *self == BestFilters::default()
    }
}

impl Inputs {
    /// The K and V cache types.
    pub fn kv_types(&self) -> (KvDtype, KvDtype) {
        (self.kv, self.kv_v.unwrap_or(self.kv))
    }
}

/// Speculative decoding's draft model, as the link gives it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Draft {
    /// A catalog variant id (`draft=`); empty when only `draftq=` or `ndraft=` were given.
    #[serde(rename = "draft")]
    pub model: String,
    /// Its format (`draftq=`); `None` = chosen from the main model's.
    #[serde(rename = "draftq", skip_serializing_if = "Option::is_none")]
    pub quant: Option<Quant>,
}

/// The draft tokens per step when `ndraft=` is not given, always written into the command:
/// current llama-server's own default for `--spec-draft-n-max` ("default: 3",
/// <https://github.com/ggml-org/llama.cpp/blob/00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b/tools/server/README.md>;
/// the former `--draft-max` defaulted to 16, common/common.h).
pub const DRAFT_MAX_DEFAULT: u32 = 3;

#[cfg(feature = "spec")]
impl Draft {
    /// The draft's file in its chosen format for `engine`'s container (a GGUF for llama.cpp, a
    /// checkpoint for vLLM), from the catalog (None before the inputs are normalized, or for a
    /// format the draft lacks).
    pub fn file(&self, engine: Engine) -> Option<&'static crate::catalog::Format> {
        let q = self.quant?;
        let (_, v) = crate::catalog::catalog().variant(&self.model)?;
        v.formats
            .iter()
            .find(|f| f.id == q && f.container == engine.container())
    }
}

#[cfg(feature = "spec")]
impl Inputs {
    /// The cells of each draft context: llama-server gives it the target's context per
    /// sequence (`llama_n_ctx_seq`: the whole `-c` with `-kvu`, `-c / -np` without), written
    /// here as the context per request times the slots sharing a unified cache.
    pub fn draft_cells(&self) -> u32 {
        if self.kvu {
            self.ctx.saturating_mul(self.par)
        } else {
            self.ctx
        }
    }
}

fn is_zero_u32(x: &u32) -> bool {
    *x == 0
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Inputs {
    /// The serve-time adapters (`loras=`; none in a build without the `extras` feature).
    pub fn lora(&self) -> Option<ServeLora> {
        #[cfg(feature = "extras")]
        return self.lora;
        #[cfg(not(feature = "extras"))]
        None
    }

    /// Images per request (`images=`; 0 in a build without the `extras` feature).
    pub fn images(&self) -> u32 {
        #[cfg(feature = "extras")]
        return self.images;
        #[cfg(not(feature = "extras"))]
        0
    }

    /// The other models on the same cards (`with=`; none in a build without the `extras`
    /// feature).
    pub fn co_models(&self) -> &[CoModel] {
        #[cfg(feature = "extras")]
        return &self.with;
        #[cfg(not(feature = "extras"))]
        &[]
    }

    /// The GiB kept free per card (`reserve=`).
    pub fn reserved(&self) -> f64 {
        self.reserve
    }
}

/// One more model on the same cards (`with=repo:format[:ctx[:par]][@engine]`), as the link
/// gives it: what is not given follows the main model's plan (its format, its context, one
/// slot, its engine).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CoModel {
    /// A catalog variant id.
    pub model: String,
    /// Its format; `None` = the main model's (or the nearest the model publishes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quant: Option<Quant>,
    /// Its context per request; `None` = the main model's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ctx: Option<Tokens>,
    /// Its concurrent requests; `None` = one (Ollama: the server's `OLLAMA_NUM_PARALLEL`,
    /// the main model's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub par: Option<u32>,
    /// The engine that runs it; `None` = the main model's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
}

impl CoModel {
    /// The inputs of this model's own instance beside the plan `i`: its model, format, context,
    /// slots and engine, with `i`'s cards, reserve, bandwidths and `--gpu-memory-utilization`,
    /// and `i`'s cache settings when it runs on `i`'s engine; everything else at its default.
    /// On the plan's own Ollama server it shares the server's `OLLAMA_NUM_PARALLEL` and
    /// `OLLAMA_CONTEXT_LENGTH` (server-wide settings, envconfig/config.go).
    pub fn inputs(&self, i: &Inputs) -> Inputs {
        let engine = self.engine.unwrap_or(i.engine);
        let shared = engine == Engine::Ollama && i.engine == Engine::Ollama;
        let mut j = Inputs {
            model: self.model.clone(),
            quant: self.quant.unwrap_or(i.quant),
            ctx: self.ctx.filter(|_| !shared).unwrap_or(i.ctx),
            par: if shared { i.par } else { self.par.unwrap_or(1) },
            engine,
            ..Inputs::default()
        };
        (j.gpu, j.gpus, j.cards, j.reserve) = (i.gpu.clone(), i.gpus.clone(), i.cards, i.reserve);
        (j.util, j.bw, j.ram_bw) = (i.util, i.bw, i.ram_bw);
        if engine == i.engine {
            (j.kv, j.kv_v, j.kvu) = (i.kv, i.kv_v, i.kvu);
            (j.ubatch, j.swa_full) = (i.ubatch, i.swa_full);
        }
        j
    }
}

/// Serve-time LoRA adapters: how many are resident at once and the largest rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ServeLora {
    /// Adapters at once (`loras=`): vLLM's `--max-loras` slots, llama.cpp's `--lora` files.
    #[serde(rename = "loras")]
    pub count: u32,
    /// The largest rank (`lorarank=`; `None` = [`LORA_RANK_DEFAULT`]).
    #[serde(rename = "lorarank", skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
}

/// vLLM's default `--max-lora-rank` (vllm/config/lora.py, `LoRAConfig.max_lora_rank = 16`),
/// used for llama.cpp too when no rank is given.
pub const LORA_RANK_DEFAULT: u32 = 16;

impl ServeLora {
    /// The rank the estimate uses.
    pub fn rank(&self) -> u32 {
        self.rank.unwrap_or(LORA_RANK_DEFAULT)
    }
}

/// The layers whose routed experts llama.cpp keeps in system RAM (`ncmoe=`): the first N
/// (`--n-cpu-moe N`) or every one (`--cpu-moe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuMoe {
    /// The first N layers (`--n-cpu-moe N`).
    Layers(u32),
    /// Every layer (`--cpu-moe`).
    All,
}

impl CpuMoe {
    /// The layers it covers on a model of `layers` layers.
    pub fn layers(self, layers: u32) -> u32 {
        match self {
            CpuMoe::Layers(n) => n.min(layers),
            CpuMoe::All => layers,
        }
    }
}

impl std::fmt::Display for CpuMoe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CpuMoe::Layers(n) => write!(f, "{n}"),
            CpuMoe::All => f.write_str("all"),
        }
    }
}

impl Serialize for CpuMoe {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CpuMoe::Layers(n) => s.serialize_u32(*n),
            CpuMoe::All => s.serialize_str("all"),
        }
    }
}

/// A parameter that was refused and what was used instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Notice {
    /// The key it is about (an unknown one as [`clean`] prints it); none for the "… and N more"
    /// summary.
    pub key: NoticeKey,
    /// What was refused and what is used instead.
    pub message: String,
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.key == NoticeKey::Summary {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.key, self.message)
        }
    }
}

/// Most notices shown for one query or edit; the rest are counted in a last "… and N more".
pub const MAX_NOTICES: usize = 8;

/// Cap `notices` at [`MAX_NOTICES`], given that `dropped` more were already left out.
pub fn cap_notices(notices: &mut Vec<Notice>, dropped: usize) {
    let more = dropped + notices.len().saturating_sub(MAX_NOTICES);
    notices.truncate(MAX_NOTICES);
    if more > 0 {
        notices.push(Notice {
            key: NoticeKey::Summary,
            message: format!("… and {} more", thousands(more as u64)),
        });
    }
}

/// Longest echo of an input value, in characters.
pub const ECHO_CHARS: usize = 60;

/// An input echoed in a message: at most [`ECHO_CHARS`] characters (then "…"), with control
/// and bidirectional-formatting characters escaped, so it stays on one line and prints as
/// written.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(4 * ECHO_CHARS));
    for (n, c) in s.chars().enumerate() {
        if n == ECHO_CHARS {
            out.push('…');
            break;
        }
        match c {
            '\\' | '"' => out.extend(c.escape_default()),
            c if c.is_control()
                || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') =>
            {
                out.extend(c.escape_default())
            }
            c => out.push(c),
        }
    }
    out
}

/// A name read from a file header, kept to display: at most `max` characters, each control
/// or bidirectional-formatting character (a newline, ESC, U+202E) replaced by U+FFFD, so it
/// stays one line and prints as it reads wherever it goes.
pub fn header_text(s: &str, max: usize) -> String {
    s.chars()
        .take(max)
        .map(|c| {
            if c.is_control()
                || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

/// [`clean`] in double quotes.
pub fn quote(s: &str) -> String {
    format!("\"{}\"", clean(s))
}

/// `2992` → `2,992`.
pub fn thousands(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::with_capacity(d.len() + d.len() / 3);
    for (k, c) in d.chars().enumerate() {
        if k > 0 && (d.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoes_are_one_bounded_line() {
        assert_eq!(quote("a\nb\u{1b}[2J"), "\"a\\nb\\u{1b}[2J\"");
        let long = "x".repeat(100_000);
        assert_eq!(quote(&long).chars().count(), ECHO_CHARS + 3);
        assert!(quote(&long).ends_with("…\""));
        assert_eq!(clean("\u{202E}abc"), "\\u{202e}abc");
        assert_eq!(thousands(2992), "2,992");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn notices_are_capped() {
        let mut v: Vec<Notice> = (0..20)
            .map(|k| Notice {
                key: NoticeKey::Unknown(format!("k{k}")),
                message: "x".into(),
            })
            .collect();
        cap_notices(&mut v, 2972);
        assert_eq!(v.len(), MAX_NOTICES + 1);
        assert_eq!(v[MAX_NOTICES].to_string(), "… and 2,984 more");
    }
}
