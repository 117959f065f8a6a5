//! Multimodal projectors. `llama-server -hf <repo>` also downloads the repo's vision projector
//! (`mmproj-*.gguf`) and puts it on the GPU by default (`--no-mmproj` leaves it out,
//! `--no-mmproj-offload` keeps it in host memory; llama.cpp tools/server README, "-hf" and
//! "--mmproj-auto"). fitcard budgets it on the first card when the repo has one and `mmproj=0`
//! (text only) is not set. Ollama's `hf.co/` pulls run Hugging Face GGUFs text-only (Google's
//! Gemma 3 QAT GGUF model card: "ollama (text only) … Using GGUFs with Ollama via Hugging Face
//! does not support image inputs at the moment",
//! <https://huggingface.co/google/gemma-3-27b-it-qat-q4_0-gguf>), so no projector is budgeted
//! there. Not modelled: the vision encoder's compute buffer while an image is encoded.

use crate::catalog::engine::Engine;
use crate::units::Bytes;

/// One repo's projector.
#[derive(Clone, Copy, Debug)]
pub struct Projector {
    /// The GGUF repo (as in the catalog's formats).
    pub repo: &'static str,
    /// The projector file in it (F16).
    pub file: &'static str,
    /// Its size in bytes.
    pub bytes: u64,
    /// `published` (printed by the publisher) or `computed` (how is in `note`).
    pub size: &'static str,
    /// Where the size (or what it is computed from) is published.
    pub source: &'static str,
    /// How a computed size was obtained.
    pub note: &'static str,
}

/// Gemma 3 4B's projector as printed (851 MB). The 12B and 27B share its SigLIP vision tower
/// (hidden size 1152) and differ only in the projection into the text model's hidden size
/// (`mm_input_projection_weight`, 1152 × hidden, F16): 851 MB + 1152 × (hidden − 2560) × 2 bytes.
const GEMMA3_4B: u64 = 851_000_000;

const fn gemma3(hidden: u64) -> u64 {
    GEMMA3_4B + 1152 * (hidden - 2560) * 2
}

/// The projectors of the catalog's multimodal GGUF repos.
pub const PROJECTORS: &[Projector] = &[
    Projector {
        repo: "bartowski/google_gemma-3-4b-it-GGUF",
        file: "mmproj-google_gemma-3-4b-it-f16.gguf",
        bytes: GEMMA3_4B,
        size: "published",
        source: "https://mygguf.com/models/bartowski_google_gemma-3-4b-it-GGUF",
        note: "printed 851MB",
    },
    Projector {
        repo: "bartowski/google_gemma-3-12b-it-GGUF",
        file: "mmproj-google_gemma-3-12b-it-f16.gguf",
        bytes: gemma3(3840),
        size: "computed",
        source: "https://huggingface.co/google/gemma-3-12b-it/blob/main/config.json",
        note: "the 4B projector (851 MB) + 1152 × (3840 − 2560) × 2 bytes of projection",
    },
    Projector {
        repo: "bartowski/google_gemma-3-27b-it-qat-GGUF",
        file: "mmproj-google_gemma-3-27b-it-qat-f16.gguf",
        bytes: gemma3(5376),
        size: "computed",
        source: "https://huggingface.co/google/gemma-3-27b-it/blob/main/config.json",
        note: "the 4B projector (851 MB) + 1152 × (5376 − 2560) × 2 bytes of projection",
    },
];

/// The projector of a GGUF repo, when it has one.
pub fn for_repo(repo: &str) -> Option<&'static Projector> {
    PROJECTORS.iter().find(|p| p.repo == repo)
}

/// Bytes of projector `engine` puts on the GPU for `repo` (`on` = `mmproj=1`, the default).
pub fn device_bytes(engine: Engine, repo: &str, on: bool) -> Bytes {
    match for_repo(repo) {
        Some(p) if on && engine == Engine::LlamaCpp => Bytes(p.bytes),
        _ => Bytes::ZERO,
    }
}
