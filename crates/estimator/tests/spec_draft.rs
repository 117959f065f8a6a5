//! `draft=` (speculative decoding on llama.cpp, `-md` / `-hfd`): the draft model's weights and
//! one draft context per slot of the target's context per sequence, F16 (llama-server, `init`
//! in tools/server/server.cpp). The draft's KV is checked against its own estimate as a main
//! model (the llama.cpp KV there is byte-exact against its allocator, tests/llama_kv.rs) and by
//! hand from Qwen3-0.6B's public config (28 layers, 8 KV heads of 128,
//! <https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json>).

use fitcard_estimator::{estimate, from_query, Estimate};

const Q: &str = "model=Qwen/Qwen3-32B&quant=Q4_K_M&engine=llama.cpp&gpu=h100-sxm&ctx=8192";

mod common;
use common::term;

fn plan(q: &str) -> (Estimate, Vec<String>) {
    let d = from_query(q);
    let notes = d.notices.iter().map(|n| n.message.clone()).collect();
    (estimate(&d.inputs), notes)
}

#[test]
fn the_draft_brings_its_weights_and_one_context_per_slot() {
    let (e, notes) = plan(&format!("{Q}&par=2&draft=Qwen/Qwen3-0.6B&draftq=Q8_0"));
    assert!(notes.is_empty(), "{notes:?}");
    // Per slot: 28 layers × 8192 cells × (8 heads × 128) × 2 (K and V) × 2 B.
    let per_slot = 28 * 8192 * 8 * 128 * 2 * 2;
    assert_eq!(term(&e, "draft_kv_cache"), 2 * per_slot);
    // The same as the draft model's own KV cache at one slot, and its weights on the card.
    let (alone, _) =
        plan("model=Qwen/Qwen3-0.6B&quant=Q8_0&engine=llama.cpp&gpu=h100-sxm&ctx=8192&par=1");
    assert_eq!(term(&alone, "kv_cache"), per_slot);
    assert_eq!(term(&e, "draft_weights"), term(&alone, "weights"));
    // The target's own terms do not change; the card holds both.
    let (none, _) = plan(&format!("{Q}&par=2"));
    for t in ["weights", "kv_cache"] {
        assert_eq!(term(&e, t), term(&none, t), "{t}");
    }
    let card: u64 = e.per_card.iter().map(|c| c.bytes.get()).sum();
    assert_eq!(card, e.total_device_bytes.get());
    assert_eq!(
        e.total_device_bytes.get(),
        none.total_device_bytes.get() + term(&e, "draft_weights") + 2 * per_slot
    );
    assert!(
        e.command
            .contains(" -hfd bartowski/Qwen_Qwen3-0.6B-GGUF:Q8_0 -ngld 999 --spec-type draft-simple --spec-draft-n-max 3"),
        "{}",
        e.command
    );
}

#[test]
fn a_unified_cache_gives_each_draft_context_the_whole_context() {
    // With -kvu, llama_n_ctx_seq is the whole -c: each slot's draft context holds ctx × slots.
    let (e, _) = plan(&format!(
        "{Q}&par=2&kvu=1&draft=Qwen/Qwen3-0.6B&draftq=Q8_0"
    ));
    let per_slot = 28 * 16384 * 8 * 128 * 2 * 2;
    assert_eq!(term(&e, "draft_kv_cache"), 2 * per_slot);
}

#[test]
fn the_format_and_the_step_follow_the_link_or_the_main_model() {
    // No draftq: the main model's format when the draft has it.
    let (e, notes) = plan(&format!("{Q}&draft=Qwen/Qwen3-0.6B&ndraft=8"));
    assert!(notes.is_empty(), "{notes:?}");
    assert!(
        e.command.contains(
            "Qwen_Qwen3-0.6B-GGUF:Q4_K_M -ngld 999 --spec-type draft-simple --spec-draft-n-max 8"
        ),
        "{}",
        e.command
    );
    let d = from_query(&format!("{Q}&draft=Qwen/Qwen3-0.6B"));
    let link = fitcard_estimator::encode(&d.inputs);
    assert!(
        link.contains("&draft=Qwen/Qwen3-0.6B&draftq=Q4_K_M&ndraft=3"),
        "{link}"
    );
    assert_eq!(fitcard_estimator::encode(&from_query(&link).inputs), link);
    // A format the draft lacks: the main model's, said so.
    let (e, notes) = plan(&format!("{Q}&draft=Qwen/Qwen3-0.6B&draftq=IQ1_S"));
    assert!(notes.iter().any(|n| n.contains("IQ1_S")), "{notes:?}");
    assert!(term(&e, "draft_weights") > 0);
}

#[test]
fn engines_without_a_draft_setting_and_unknown_drafts_are_refused_by_name() {
    for (engine, says) in [
        ("sglang", "not estimated yet"),
        ("ollama", "no draft-model setting"),
    ] {
        let q = Q.replace("llama.cpp", engine).replace("Q4_K_M", "BF16");
        let (e, notes) = plan(&format!("{q}&draft=Qwen/Qwen3-0.6B"));
        assert!(
            notes.iter().any(|n| n.contains(says)),
            "{engine}: {notes:?}"
        );
        assert_eq!(term(&e, "draft_weights"), 0);
        assert!(!fitcard_estimator::encode(
            &from_query(&format!("{q}&draft=Qwen/Qwen3-0.6B")).inputs
        )
        .contains("draft"));
    }
    let (e, notes) = plan(&format!("{Q}&draft=nobody/none"));
    assert!(
        notes.iter().any(|n| n.contains("not in the catalog")),
        "{notes:?}"
    );
    assert_eq!(term(&e, "draft_kv_cache"), 0);
    let (_, notes) = plan(&format!("{Q}&draftq=Q8_0&ndraft=4"));
    assert!(
        notes.iter().any(|n| n.contains("needs a draft model")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("ndraft needs")),
        "{notes:?}"
    );
    let (_, notes) = plan(&format!("{Q}&draft=Qwen/Qwen3-0.6B&ndraft=0"));
    assert!(!notes.is_empty());
}

#[test]
fn the_speed_says_what_published_draft_runs_gained() {
    let (e, _) = plan(&format!("{Q}&draft=Qwen/Qwen3-0.6B"));
    let x = e
        .speed
        .as_ref()
        .and_then(|s| s.spec_speedup.clone())
        .expect("a range");
    assert!(x.low < 1.0 && x.high > 1.5, "{x:?}");
    assert!(
        x.source
            .matches("https://github.com/ggml-org/llama.cpp/")
            .count()
            == 2
    );
    let (none, _) = plan(Q);
    assert!(none.speed.and_then(|s| s.spec_speedup).is_none());
}
