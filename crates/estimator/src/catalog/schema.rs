//! The catalog's types: families, variants, formats, cards, evaluations and the measured
//! rows, as the JSON under `data/` spells them (the architecture: `arch.rs`).

use super::*;

#[derive(Clone, Debug, Deserialize, Serialize)]
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
    pub measured: Vec<MeasuredSpeed>,
}

/// One public evaluation covering many families: the cross-family order of `best=1`.
#[derive(Clone, Debug, Deserialize, Serialize)]
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
#[derive(Clone, Debug, Deserialize, Serialize)]
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
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct License {
    /// The Hugging Face licence id (`apache-2.0`, `mit`, `gemma`, `llama3.1`, …).
    pub id: String,
    /// Where it is stated (URL).
    #[serde(default)]
    pub source: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
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
    /// What the family is served for when it is not chat (`None`): its engines' flags, its
    /// output buffer and the best-model view (which lists chat models only) follow it.
    #[serde(default)]
    pub task: Option<Task>,
}

/// What a model is served for when it is not chat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// Text embeddings, one vector per input (llama-server `--embedding`, Ollama `/api/embed`).
    Embed,
    /// Relevance scores, one per query–document pair (llama-server `--reranking`, its `/rerank`
    /// endpoint).
    Rerank,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
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

impl Variant {
    /// A variant read from a file (a GGUF header, a checkpoint's `config.json`): first of its
    /// own family, without a published score, its formats for the reader to add.
    pub fn read(id: String, name: String, arch: Arch) -> Variant {
        Variant {
            id,
            name,
            capability_rank: 1,
            capability: None,
            arch,
            formats: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
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

#[derive(Clone, Debug, Deserialize, Serialize)]
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
    /// coverage is not uniform. Words for people: the page's catalog leaves them out.
    #[serde(default)]
    pub unquantized: Vec<String>,
    /// Anything a reader should know about this file.
    #[serde(default)]
    pub note: Option<String>,
    /// What the file holds, in its publisher's words, where the format's name alone misleads
    /// (gpt-oss's "F16" GGUF keeps its experts in MXFP4); shown beside the name on the page.
    #[serde(default)]
    pub holds: Option<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
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
    /// `gddr`, `hbm` or `unified`: the decode-speed fit differs by memory kind (see [`crate::serve::speed`]).
    #[serde(default)]
    pub memory_kind: MemoryKind,
    /// Dense FP16 tensor throughput, TFLOPS (10^12 per second), without 2:4 sparsity: the
    /// prefill roofline (see [`crate::serve::speed`]). GeForce cards: the FP16-accumulate rate, the one
    /// llama.cpp's cuBLAS path runs at. `None` where no specification was found.
    #[serde(default)]
    pub fp16_tflops: Option<f64>,
    /// Where the throughput comes from (URL; "computed:" when a sparse figure was halved).
    #[serde(default)]
    pub fp16_tflops_source: Option<String>,
    /// Unified-memory machines: the machine's whole RAM (`vram_bytes` is the GPU's default
    /// share of it; see [`crate::serve::support::default_wired_limit`]), from the same source.
    #[serde(default)]
    pub ram_bytes: Option<Bytes>,
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

impl Format {
    /// File size in bytes.
    pub fn size(&self) -> Bytes {
        self.bytes
    }
}

/// One published decode measurement of a catalog configuration (its lookup:
/// [`crate::serve::measured::find`]).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct MeasuredSpeed {
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

/// The measurement in words, as the page and the CLI print it: "130.58 tokens/s per request
/// (llama-bench tg512, Meta-Llama-3-8B Q4_K_M)".
impl std::fmt::Display for MeasuredSpeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} tokens/s per request (llama-bench {}, {} {})",
            crate::units::Shortest(self.decode_tps),
            self.test,
            self.model,
            self.quant.id()
        )
    }
}

/// A format's `repo` in the page's postcard catalog when it is the previous format's of the
/// same variant, and its `file` when it is the GGUF name the repo's publishers write
/// (`{repo name without -GGUF}-{format}.gguf`): [`Catalog::compact_files`] writes them,
/// [`Catalog::expand_files`] reads them back. The page's whole catalog is 1.6 KB gzip smaller
/// (measured on the catalog of 2026-12: 15,643 → 14,044 B); no repo id or file name is one
/// control character.
const SAME: &str = "\u{1}";

/// A format's `repo` in the page's postcard catalog when it is the variant's own id (a vendor
/// checkpoint), and the name part of `{publisher}/{variant name}-GGUF` (a GGUF repo named after
/// the variant): written by [`Catalog::compact_files`], read back by [`Catalog::expand_files`].
/// The whole catalog is 0.9 KB gzip smaller for them (measured 2026-12-05: 15,475 → 14,590 B).
const OWN: &str = "\u{2}";
const NAMED: &str = "\u{3}";

/// `repo` in its compact form for variant `id` (one of [`OWN`], `{publisher}/`[`NAMED`], or
/// as it is).
fn compact_repo(repo: &str, id: &str) -> String {
    if repo == id {
        return OWN.into();
    }
    let name = id.rsplit('/').next().unwrap_or(id);
    let gguf = repo.strip_suffix("-GGUF").unwrap_or_default();
    match gguf.strip_suffix(name) {
        Some(publisher) if publisher.ends_with('/') => {
            let mut s = publisher.to_string();
            s.push_str(NAMED);
            s
        }
        _ => repo.into(),
    }
}

/// [`compact_repo`] undone.
fn expand_repo(repo: &str, id: &str) -> String {
    if repo == OWN {
        return id.into();
    }
    match repo.strip_suffix(NAMED) {
        Some(publisher) => {
            let mut s = publisher.to_string();
            s.push_str(id.rsplit('/').next().unwrap_or(id));
            s.push_str("-GGUF");
            s
        }
        None => repo.into(),
    }
}

/// The file name the compact form leaves out for `repo`'s `quant`: a GGUF named after its repo,
/// or every shard of a checkpoint's `model*.safetensors`.
fn usual_file(repo: &str, quant: Quant, container: Container) -> String {
    if container != Container::Gguf {
        return "model*.safetensors (all shards)".into();
    }
    let name = repo.rsplit('/').next().unwrap_or(repo);
    let mut s = name.strip_suffix("-GGUF").unwrap_or(name).to_string();
    s.push('-');
    s.push_str(quant.id());
    s.push_str(".gguf");
    s
}

impl Catalog {
    /// The compact form of the formats' repos and files (what the page's postcard files hold):
    /// [`Catalog::expand_files`] gives back `self` as it was.
    pub fn compact_files(&mut self) {
        for v in self.families.iter_mut().flat_map(|f| f.variants.iter_mut()) {
            let mut prev: Option<String> = None;
            for f in &mut v.formats {
                if f.file == usual_file(&f.repo, f.id, f.container) {
                    f.file = SAME.into();
                }
                if prev.as_deref() == Some(f.repo.as_str()) {
                    f.repo = SAME.into();
                } else {
                    prev = Some(f.repo.clone());
                    f.repo = compact_repo(&f.repo, &v.id);
                }
            }
        }
    }

    /// Undo [`Catalog::compact_files`] (a catalog written in full is left as it is). A repo
    /// marked "as the previous one" on a variant's first format reads as no repo.
    pub fn expand_files(&mut self) {
        for v in self.families.iter_mut().flat_map(|f| f.variants.iter_mut()) {
            let mut prev = String::new();
            for f in &mut v.formats {
                if f.repo == SAME {
                    f.repo = prev.clone();
                } else {
                    f.repo = expand_repo(&f.repo, &v.id);
                    prev = f.repo.clone();
                }
                if f.file == SAME {
                    f.file = usual_file(&f.repo, f.id, f.container);
                }
            }
        }
    }
}
