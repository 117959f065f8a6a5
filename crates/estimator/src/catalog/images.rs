//! What an image costs of the context (`images=`, images per request). A vision-language model's
//! processor turns each image into placeholder tokens that the text model attends to like any
//! other token: they take cells of the KV cache and count against the context length, on every
//! engine. The count is the processor's, read from its published configuration and code; a
//! model whose processor has no rule here takes no images in fitcard (refused by name).
//!
//! Where a processor keeps the picture's aspect and size (a grid of patches), the rule gives the
//! most one image can cost: the picture at the processor's largest size. A smaller picture costs
//! less; the engines reserve for the largest.

/// One processor's rule.
#[derive(Clone, Copy, Debug)]
pub struct ImageRule {
    /// The catalog variants (repo ids) whose processor this is.
    pub models: &'static [&'static str],
    /// Context tokens of one image: the processor's placeholders and its begin/end markers, at
    /// the largest picture it makes.
    pub tokens: u32,
    /// Every image costs `tokens` (a fixed count), or at most that (a grid that follows the
    /// picture).
    pub fixed: bool,
    /// How the processor counts, in a few words (the checks print it).
    pub rule: &'static str,
    /// Where it is published (URLs).
    pub source: &'static str,
}

/// Gemma 3's 4B, 12B and 27B: a fixed 256 soft tokens per image between two markers.
const GEMMA3: ImageRule = ImageRule {
    models: &[
        "google/gemma-3-27b-it",
        "google/gemma-3-12b-it",
        "google/gemma-3-4b-it",
    ],
    tokens: 256 + 2,
    fixed: true,
    rule: "256 soft tokens (mm_tokens_per_image) between <start_of_image> and <end_of_image>; pan and scan off, its default",
    source: "https://huggingface.co/google/gemma-3-4b-it/blob/main/config.json, https://github.com/huggingface/transformers/blob/main/src/transformers/models/gemma3/processing_gemma3.py",
};

/// Gemma 4: a soft-token budget per image (70, 140, 280, 560 or 1120; 280 by default): the
/// picture, its aspect kept, is cut into 16-pixel patches pooled 3 × 3, at most budget × 9
/// patches, so (H/16)(W/16)/9 ≤ 280 soft tokens between two markers.
const GEMMA4: ImageRule = ImageRule {
    models: &[
        "google/gemma-4-31B-it",
        "google/gemma-4-26B-A4B-it",
        "google/gemma-4-E4B-it",
        "google/gemma-4-E2B-it",
    ],
    tokens: 280 + 2,
    fixed: false,
    rule: "(H/16)(W/16)/9 soft tokens, at most the default budget of 280 (70 to 1120 may be chosen), between two markers",
    source: "https://github.com/huggingface/transformers/blob/main/src/transformers/models/gemma4/image_processing_gemma4.py, https://github.com/huggingface/transformers/blob/main/src/transformers/models/gemma4/processing_gemma4.py, https://ai.google.dev/gemma/docs/capabilities/vision",
};

/// Llama 4: 336-pixel tiles of 14-pixel patches shuffled 2 × 2 (144 tokens a tile), at most 16
/// tiles plus a global tile, with a separator after each tile and three markers:
/// 17 × 144 + 16 + 3.
const LLAMA4: ImageRule = ImageRule {
    models: &[
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
    ],
    tokens: 17 * 144 + 16 + 3,
    fixed: false,
    rule: "144 tokens per 336-pixel tile, up to 16 tiles and a global tile, with separators and markers",
    source: "https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama4/processing_llama4.py, https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama4/image_processing_llama4.py, https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/models/mllama4.py",
};

/// Mistral Small 3.1 / 3.2 and Ministral 3 14B (a Pixtral encoder): the picture, longest edge at
/// most 1540 pixels, in 28-pixel cells (patch 14, merged 2 × 2), each row of cells closed by
/// [IMG_BREAK] and the last by [IMG_END]: 55 × 55 + 55 at most. The 14B's processor fields are
/// read from a fine-tune's copy of its processor_config.json.
const PIXTRAL: ImageRule = ImageRule {
    models: &[
        "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
        "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        "mistralai/Ministral-3-14B-Instruct-2512",
    ],
    tokens: 55 * 55 + 55,
    fixed: false,
    rule: "one token per 28-pixel cell plus one per row, longest edge at most 1540 pixels",
    source: "https://github.com/mistralai/mistral-common/blob/main/src/mistral_common/tokens/tokenizers/image.py, https://huggingface.co/mistralai/Mistral-Small-3.1-24B-Instruct-2503/blob/main/config.json, https://huggingface.co/hubertmarek/Ministral-3-14B-agent-diff-sft/blob/main/processor_config.json",
};

/// Qwen3.5 27B and 35B-A3B, Qwen3.6 35B-A3B (Qwen3-VL's processor): a picture resized to whole
/// 32-pixel cells (patch 16, merged 2 × 2) of 65,536 to 16,777,216 pixels, one token a cell,
/// between <|vision_start|> and <|vision_end|>: 16,384 + 2 at most (1,024 + 2 for a 1024 × 1024
/// picture). The pixel bounds are read from copies of the repos' preprocessor_config.json (a
/// derivative's for Qwen3.6).
const QWEN_VL: ImageRule = ImageRule {
    models: &[
        "Qwen/Qwen3.5-27B",
        "Qwen/Qwen3.5-35B-A3B",
        "Qwen/Qwen3.6-35B-A3B",
    ],
    tokens: 16_777_216 / (32 * 32) + 2,
    fixed: false,
    rule: "one token per 32-pixel cell, up to 16,777,216 pixels (1,026 for a 1024 × 1024 picture)",
    source: "https://github.com/huggingface/transformers/blob/main/src/transformers/models/qwen3_vl/processing_qwen3_vl.py, https://huggingface.co/Abc7347/3.5copy35bMoE/blob/main/preprocessor_config.json, https://huggingface.co/thoddnn/Qwen3.5-27B-4bit/blob/main/preprocessor_config.json, https://huggingface.co/0pentensor/b/blob/main/preprocessor_config.json",
};

/// The processors fitcard counts.
pub const RULES: &[ImageRule] = &[GEMMA3, GEMMA4, LLAMA4, PIXTRAL, QWEN_VL];

/// The rule of `model`'s processor (a catalog repo id, matched case-insensitively), if any.
pub fn rule(model: &str) -> Option<&'static ImageRule> {
    RULES
        .iter()
        .find(|r| r.models.iter().any(|m| m.eq_ignore_ascii_case(model)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::catalog;

    #[test]
    fn every_rule_names_catalog_models_and_a_source() {
        for r in RULES {
            assert!(r.source.starts_with("https://"), "{}", r.rule);
            assert!(r.tokens > 0);
            for m in r.models {
                assert!(catalog().variant(m).is_some(), "{m} is not in the catalog");
            }
        }
        assert!(rule("GOOGLE/gemma-3-4b-it").is_some());
        assert!(
            rule("google/gemma-3-1b-it").is_none(),
            "the 1B is text only"
        );
    }
}
