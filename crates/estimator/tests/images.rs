//! `images=` (images per request): each image takes its processor's tokens of the context
//! (`catalog::images`), the check `images_in_context` says what is left for text, vLLM's command
//! allows that many images per prompt, and a model without a processor rule is refused by name.

use fitcard_estimator::estimate::CheckName;
use fitcard_estimator::{encode, estimate, from_query, Estimate};

fn plan(q: &str) -> (Estimate, Vec<String>) {
    let d = from_query(q);
    let notes = d.notices.iter().map(|n| n.to_string()).collect();
    (estimate(&d.inputs), notes)
}

fn images_check(e: &Estimate) -> Option<&fitcard_estimator::estimate::Check> {
    e.checks
        .iter()
        .find(|c| c.name == CheckName::ImagesInContext)
}

/// The images check of `q` failed, saying `words`.
fn images_fail(q: &str, words: &str) {
    let (e, _) = plan(q);
    let c = images_check(&e).expect("the images check");
    assert!(!c.ok && c.message.contains(words), "{q}: {}", c.message);
    assert!(!e.fits, "{q}");
}

#[test]
fn gemma3_images_take_258_tokens_each() {
    let q = "model=google/gemma-3-12b-it&quant=Q4_K_M&engine=llama.cpp&gpu=rtx-4090";
    let (e, notes) = plan(&format!("{q}&ctx=4096&images=3"));
    assert!(notes.is_empty(), "{notes:?}");
    let c = images_check(&e).expect("the images check");
    assert!(c.ok, "{}", c.message);
    assert!(
        c.message.contains("take 774 of the 4096-token context")
            && c.message.contains("3322 for text"),
        "{}",
        c.message
    );
    // Over the context: the verdict fails on this check alone.
    images_fail(
        &format!("{q}&ctx=1024&images=4"),
        "raise the context above 1032",
    );
    // The images' memory is that of their tokens, in the KV cache at the context: unchanged.
    let (plain, _) = plan(&format!("{q}&ctx=4096"));
    let (with, _) = plan(&format!("{q}&ctx=4096&images=3"));
    assert_eq!(plain.total_device_bytes, with.total_device_bytes);
    assert!(images_check(&plain).is_none());
}

#[test]
fn a_grid_processor_is_counted_at_its_largest_picture() {
    let q = "model=Qwen/Qwen3.5-27B&quant=Q4_K_M&engine=llama.cpp&gpu=rtx-4090";
    images_fail(&format!("{q}&ctx=8192&images=1"), "up to 16386 tokens");
    let (e, _) = plan(&format!("{q}&ctx=32768&images=1"));
    assert!(images_check(&e).unwrap().ok);
}

#[test]
fn vllm_allows_that_many_images_per_prompt() {
    let (e, _) = plan("model=google/gemma-3-4b-it&quant=BF16&engine=vllm&gpu=h100-sxm&images=2");
    let cmd = &e.command;
    assert!(
        cmd.contains("--limit-mm-per-prompt '{\"image\": 2}'"),
        "{cmd}"
    );
    let (e, _) = plan("model=google/gemma-3-4b-it&quant=BF16&engine=vllm&gpu=h100-sxm");
    assert!(!e.command.contains("limit-mm"), "{}", e.command);
    let (e, _) = plan("model=google/gemma-3-4b-it&engine=llama.cpp&images=2");
    assert!(!e.command.contains("limit-mm"), "{}", e.command);
}

#[test]
fn a_model_without_a_processor_rule_is_refused_by_name() {
    for m in ["Qwen/Qwen3-8B", "google/gemma-3-1b-it"] {
        let d = from_query(&format!("model={m}&images=2"));
        assert_eq!(d.inputs.images, 0, "{m}");
        assert!(
            d.notices
                .iter()
                .any(|n| n.message.contains(&format!("{m} takes no images"))),
            "{m}: {:?}",
            d.notices
        );
    }
}

#[test]
fn the_link_keeps_the_images() {
    let d = from_query("model=google/gemma-3-12b-it&ctx=4096&images=3");
    let link = encode(&d.inputs);
    assert!(link.contains("&images=3"), "{link}");
    assert_eq!(from_query(&link).inputs, d.inputs);
    assert!(!encode(&from_query("model=google/gemma-3-12b-it").inputs).contains("images"));
}
