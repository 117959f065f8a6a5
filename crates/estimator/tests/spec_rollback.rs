//! `rsseq=` (llama.cpp's `n_rs_seq`, the extra recurrent states each sequence keeps so that a
//! speculative step can be rolled back): every recurrent layer allocates
//! `mem_size × (1 + n_rs_seq)` rows of its convolution state `r` and recurrent state `s`
//! (`n_rows` in `llama_memory_recurrent`'s constructor, src/llama-memory-recurrent.cpp); the KV of
//! the attention layers does not change. llama-server sets it to the draft tokens per step (`--spec-draft-n-max`) when an MTP,
//! EAGLE-3 or DFlash head drafts (common/common.h, `need_n_rs_seq`), 0 otherwise.
//!
//! Expected bytes are written out by hand from IBM Granite 4.0-H-Tiny's public config (36 Mamba-2
//! layers, d_inner 3072 = 48 heads × 64, one group, d_state 128, d_conv 4:
//! <https://huggingface.co/ibm-granite/granite-4.0-h-tiny/blob/main/config.json>), and from the
//! allocation without `rsseq` that tests/llama_kv.rs holds byte-exact against llama.cpp.

use fitcard_estimator::catalog::catalog;
use fitcard_estimator::inputs::Key;
use fitcard_estimator::terms::kv::{llama, LlamaParams};
use fitcard_estimator::{estimate, from_query, KvDtype};

mod common;
use common::term;

/// One sequence's F32 state over the 36 Mamba-2 layers: `(d_conv − 1)·(d_inner + 2·d_state)`
/// convolution values and `d_state·d_inner` recurrent values per layer.
const STATE: u64 = 36 * ((4 - 1) * (3072 + 2 * 128) + 128 * 3072) * 4;

#[test]
fn each_sequence_keeps_one_state_more_per_rollback_step() {
    assert_eq!(STATE, 58_060_800);
    let tiny = &catalog()
        .variant("ibm-granite/granite-4.0-h-tiny")
        .expect("granite-4.0-h-tiny in the catalog")
        .1
        .arch;
    // 4,096 unified cells, 4 sequences, F16: 265,797,632 B without rollback (tests/llama_kv.rs).
    let base = LlamaParams::new(4096, 4, true, KvDtype::F16);
    assert_eq!(llama(tiny, &base).bytes.get(), 265_797_632);
    for rs in [1u64, 3, 16] {
        let k = llama(tiny, &LlamaParams { rs_seq: rs, ..base });
        assert_eq!(k.state.get(), 4 * (1 + rs) * STATE, "n_rs_seq={rs}");
        assert_eq!(k.bytes.get(), 265_797_632 + 4 * rs * STATE, "n_rs_seq={rs}");
    }
}

#[test]
fn the_link_carries_it_and_the_cache_term_grows_by_it() {
    let q =
        "model=ibm-granite/granite-4.0-h-tiny&engine=llama.cpp&gpu=rtx-4090&ctx=1024&par=4&kvu=1";
    let with = from_query(&format!("{q}&rsseq=3"));
    assert!(with.notices.is_empty(), "{:?}", with.notices);
    assert_eq!(with.inputs.rsseq, 3);
    let (a, b) = (estimate(&from_query(q).inputs), estimate(&with.inputs));
    assert_eq!(term(&b, "kv_cache"), term(&a, "kv_cache") + 4 * 3 * STATE);
    let t = b
        .terms
        .iter()
        .find(|t| t.name.id() == "kv_cache")
        .expect("kv term");
    assert!(
        t.formula.contains("× 4 states each (rsseq=3: n_rs_seq)"),
        "{}",
        t.formula
    );
    // Written back into the link, and read again the same.
    let link = fitcard_estimator::inputs::permalink::encode(&with.inputs);
    assert!(link.contains("&rsseq=3"), "{link}");
    assert_eq!(from_query(&link).inputs.rsseq, 3);
    assert!(!fitcard_estimator::inputs::permalink::encode(&from_query(q).inputs).contains("rsseq"));
}

#[test]
fn other_engines_and_models_without_recurrent_layers_refuse_it_by_name() {
    for (q, said) in [
        (
            "model=ibm-granite/granite-4.0-h-tiny&engine=vllm&rsseq=2",
            "vLLM keeps no extra recurrent states",
        ),
        (
            "model=Qwen/Qwen3-8B&engine=llama.cpp&rsseq=2",
            "has no recurrent layers",
        ),
    ] {
        let d = from_query(q);
        assert_eq!(d.inputs.rsseq, 0, "{q}");
        let n = d
            .notices
            .iter()
            .find(|n| n.key == Key::Rsseq)
            .expect("a notice");
        assert!(n.message.contains(said), "{}", n.message);
    }
    for bad in ["rsseq=257", "rsseq=-1", "rsseq=x"] {
        let d = from_query(&format!(
            "model=ibm-granite/granite-4.0-h-tiny&engine=llama.cpp&{bad}"
        ));
        assert_eq!(d.inputs.rsseq, 0, "{bad}");
        assert!(
            d.notices.iter().any(|n| n.key == Key::Rsseq),
            "{bad}: {:?}",
            d.notices
        );
    }
}
