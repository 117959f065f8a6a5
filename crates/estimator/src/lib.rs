#![deny(missing_docs)]
//! fitcard estimator: will this model fit on this card?
//!
//! Data flows one way: query string → [`Inputs`] ([`inputs::permalink::from_query`]) → [`estimate()`] →
//! [`Estimate`] → [`rank()`]. Pure Rust, no web dependency: the CLI and the web page call the
//! same functions with the same query string.
//!
//! ```
//! use fitcard_estimator::{estimate, from_query};
//!
//! // A link's query string (any key left out keeps its default; a bad value becomes a notice).
//! let d = from_query("model=google/gemma-3-1b-it&quant=F16&ctx=4096&engine=llama.cpp&kv=f16");
//! assert!(d.notices.is_empty());
//! let e = estimate(&d.inputs);
//! for t in &e.terms {
//!     println!("{:>14} {}", t.name, t.bytes);
//! }
//! println!("{:?}: {} on the card", e.verdict, e.total_device_bytes);
//! // 4 global layers × 4096 cells + 22 sliding-window layers × 1024 cells, 1 KiB per cell.
//! let kv = e.terms.iter().find(|t| t.name.id() == "kv_cache").unwrap();
//! assert_eq!(kv.bytes.get(), 39_845_888);
//! assert!(e.fits);
//! ```
//!
//! ## Short names
//!
//! Functions that take the usual values name them by one letter: `i` the [`Inputs`], `e` an
//! [`Estimate`], `v` a catalog [`catalog::Variant`], `f` its [`catalog::Format`] (`fm` where `f`
//! is taken), `a` the variant's [`catalog::Arch`], `s` a sizing (the terms for one split of the
//! cards), `t` the training inputs or a term, `c` a card's use or a candidate, `g` a GPU.
//!
//! ## Layers
//!
//! A file uses only the files listed above it (`tests/layout.rs` holds this list to every
//! `crate::` path in the code), so each can be read knowing only what comes before it:
//!
//! - `units`: bytes, tokens and the float printer
//! - `order`: the stable sort
//! - `catalog`: weight formats and ggml types (`quant`: ggml's tensor types (ggml), the weight
//!   formats and their containers (format)), the engines and KV cache types (`engine`), families,
//!   variants, architectures, formats, cards, measured rows, vision projectors (`mmproj`), what an
//!   image costs of the context (`images`), the
//!   tensors a file stores (`tensors`: each architecture's differences (style), one layer's tensors
//!   (layers)), a file's bytes from the architecture and the format (`size_rule`: llama.cpp's
//!   per-tensor types of a GGUF mix (mix), the GGUF file (gguf), the safetensors or MLX checkpoint
//!   (safetensors)), the page's catalog cut into an index and one part per family (`parts`)
//! - `inputs`: everything a user sets; the query string's keys and what a notice is about
//!   (`key`); made consistent with the catalog and the engine, one rule each (`normalize`); the
//!   query string (`permalink`)
//! - `readers`: GGUF headers (`gguf`: the bytes to key/values, bounded (header), then the
//!   architecture (arch)), config.json and safetensors headers (`hf`: the headers and the index
//!   (safetensors), the format (format), the architecture (config)), read without trusting them;
//!   a Hugging Face Hub repo (`hub`: what the user typed, the Hub's URLs and a repo's files as
//!   formats (repo), a derivative named by its base (derive), the reads over the page's or the
//!   CLI's transport (client))
//! - `terms`: the memory terms (weights, KV cache, logits, overhead); the KV cache's folder
//!   (`kv/`) by allocator: the cell and the recurrent state (cells), llama.cpp (llama_cpp), vLLM
//!   (vllm), transformers and mlx-lm (dynamic)
//! - `estimate`: what an estimate says (verdict, cards, checks, speed, layouts)
//! - `serve`: the serve pipeline: card capacities, tensor parallelism and layer splits
//!   (`placement`), what each engine runs and the hardware predicates (`support`), pipeline
//!   stages (`stages`), the terms for a split, sharded (`sizing`), the other models of `with=`
//!   beside them (`set`), vLLM's and SGLang's pool at startup and what would start (`startup`),
//!   every hard constraint checked on them (`checks`), the splits weighed (`split`),
//!   every tensor × pipeline layout (`layouts`), each engine's command (`command`), the
//!   published measurement of a configuration (`measured`), decode and prefill speed
//!   (`speed`), each term's words (`describe`)
//! - `rank`: a family's variants and formats, ranked
//! - `best`: the best model for the cards, across families
//! - `train`: fine-tuning memory
//! - `evaluate`: the estimate in either mode
//! - `solve`: the limits of one input, every other held
//! - `cost`: what a plan costs to rent, from the dated public prices (`data/prices.json`)
//! - `badge`: the badge
//! - `frontier`: the context × concurrency frontier
//! - `measure`: global layers backed out of readings; the measuring loop of each engine (`script`)
//! - `accuracy`: the accuracy report over the measured rows: the published measurements (`rows`),
//!   the engines' startup logs (`logs`), vLLM's published startup outcomes (`startups`), the
//!   estimate beside them and the report (`report`)

/// A text the page does not carry (a term's domain or provenance): itself with the `prose`
/// feature, empty without it (the page's build, which links to the method page instead).
#[cfg(feature = "prose")]
macro_rules! prose {
    ($s:expr) => {
        $s
    };
}

/// A text the page does not carry (a term's domain or provenance): itself with the `prose`
/// feature, empty without it (the page's build, which links to the method page instead).
#[cfg(not(feature = "prose"))]
macro_rules! prose {
    ($s:expr) => {
        ""
    };
}

/// A closed set of identifiers with a stable spelling (query string, JSON): `id()` is the
/// spelling, `ALL` every value in order, `FromStr` reads the spelling (and the aliases a link
/// may carry), `Display` and `Serialize` write it.
macro_rules! ids {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $id:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $v),+ }

        impl $name {
            /// Every value, in order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];

            /// The spelling in the query string and the JSON.
            pub const fn id(self) -> &'static str {
                match self { $($name::$v => $id),+ }
            }
        }

        impl std::str::FromStr for $name {
            type Err = ();
            fn from_str(s: &str) -> Result<Self, ()> {
                match s { $($id $(| $alias)* => Ok($name::$v),)+ _ => Err(()) }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.id())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.id())
            }
        }
    };
}

#[cfg(not(target_arch = "wasm32"))]
pub mod accuracy;
pub mod badge;
pub mod best;
pub mod catalog;
#[cfg(feature = "extras")]
pub mod cost;
pub mod estimate;
pub mod evaluate;
pub mod frontier;
pub mod inputs;
pub mod measure;
pub mod order;
pub mod rank;
pub mod readers;
pub mod serve;
pub mod solve;
pub mod terms;
pub mod train;
pub mod units;

pub use catalog::catalog;
pub use catalog::engine::{Engine, KvDtype};
pub use catalog::quant::{GgmlType, Quant};
pub use estimate::{CardUse, Check, Estimate, Verdict};
pub use evaluate::evaluate;
pub use inputs::permalink::{encode, from_query, Parsed};
pub use inputs::{GpuChoice, Inputs, Mode, Notice};
pub use rank::{rank, Candidate};
pub use serve::estimate;
pub use units::Bytes;
