//! llama.cpp's overhead on one card (`terms::overhead::llama_one_card`: the CUDA context and the
//! compute buffer llama-server reserves) against published CUDA measurements.
//!
//! - The CUDA0 compute buffers Unsloth Studio measured under llama-server at 262,144 cells with a
//!   q8_0 cache and `-ub 512` (its test table `TestContextLinearBuffer._MEASURED`,
//!   <https://github.com/unslothai/unsloth/blob/015bdef0d94a241bcd94eec7a405b1700632180d/studio/backend/tests/test_compute_buffer.py#L178-L185>):
//!   the formula (the buffer: the estimate's overhead less the CUDA context) sits 1.5–2.9 % below
//!   each, the rest being small tensors the formula does not name (up to 184 B per cell).
//! - The f16 KQ mask's slope, 1024 B per cell at `-ub 512`, measured per device on Qwen3.5-9B
//!   from 8,192 to 262,144 cells (96 → 344 MiB, <https://github.com/unslothai/unsloth/pull/6718>).
//! - The single-slot chat buffer, 36 MiB for Qwen3.6-27B at `-ub 512`
//!   (<https://github.com/unslothai/unsloth/pull/6312>), against the activation scratch.

use fitcard_estimator::accuracy::decoded;
use fitcard_estimator::terms::kv::{llama, LlamaParams};
use fitcard_estimator::terms::overhead::{llama_one_card, LlamaOneCard, LLAMA_CUDA_CONTEXT};
use fitcard_estimator::terms::TermName;
use fitcard_estimator::{estimate, Estimate};

const MIB: f64 = (1u64 << 20) as f64;

fn est(query: &str) -> Estimate {
    let d = decoded(query);
    assert!(d.clean(), "{query}: {:?}", d.notices);
    estimate(&d.inputs)
}

fn overhead(e: &Estimate) -> u64 {
    e.terms
        .iter()
        .find(|t| t.name == TermName::Overhead)
        .map(|t| t.bytes.get())
        .expect("an overhead term")
}

/// (catalog model, measured CUDA0 compute buffer MiB at 262,144 cells, q8_0 cache, -ub 512).
const Q8_AT_256K: [(&str, f64); 5] = [
    ("Qwen/Qwen3.5-2B", 796.0),
    ("Qwen/Qwen3.5-4B", 1330.0),
    ("Qwen/Qwen3.5-9B", 1336.0),
    ("Qwen/Qwen3.6-27B", 1360.0),
    ("google/gemma-4-31B-it", 2392.0),
];

#[test]
fn one_cards_compute_buffer_sits_within_three_percent_of_the_published_ones() {
    let mut lines = Vec::new();
    for (model, measured) in Q8_AT_256K {
        let e = est(&format!(
            "model={model}&quant=Q8_0&engine=llama.cpp&ctx=262144&kv=q8_0&ubatch=512&gpu=b200"
        ));
        let buffer = (overhead(&e) - LLAMA_CUDA_CONTEXT.get()) as f64 / MIB;
        let err = buffer / measured - 1.0;
        lines.push(format!(
            "{model}: {buffer:.1} MiB vs {measured} ({:+.1} %)",
            err * 100.0
        ));
        assert!(
            (-0.035..=0.0).contains(&err),
            "{model}: {buffer:.1} MiB against a measured {measured} MiB ({:+.2} %)",
            err * 100.0
        );
    }
    // The dequantization copy is most of it: without it (f16) the same settings hold a fraction.
    let f16 =
        est("model=Qwen/Qwen3.5-9B&quant=Q8_0&engine=llama.cpp&ctx=262144&ubatch=512&gpu=b200");
    let f16 = (overhead(&f16) - LLAMA_CUDA_CONTEXT.get()) as f64 / MIB;
    assert!(f16 < 1336.0 / 4.0, "{f16} MiB; {lines:?}");
}

#[test]
fn the_kq_mask_grows_two_bytes_per_cell_per_micro_batch_token() {
    let at = |ctx: u64, ub: u64| {
        overhead(&est(&format!(
            "model=Qwen/Qwen3.5-9B&quant=Q4_K_M&engine=llama.cpp&ctx={ctx}&ubatch={ub}&gpu=b200"
        )))
    };
    // 1024 B per cell at -ub 512, as measured (96 → 344 MiB per device from 8,192 to 262,144).
    assert_eq!(at(262_144, 512) - at(8192, 512), 1024 * (262_144 - 8192));
    assert_eq!(
        (at(262_144, 512) - at(8192, 512)) as f64 / MIB,
        344.0 - 96.0
    );
    assert_eq!(at(65_536, 1024) - at(32_768, 1024), 2048 * 32_768);
}

/// The one-card mechanism for `query` at `ctx` cells, one sequence, an f16 cache.
fn one_card(query: &str, ctx: u64) -> Option<LlamaOneCard> {
    let d = decoded(query);
    let (_, v) = fitcard_estimator::catalog()
        .variant(&d.inputs.model)
        .expect("a catalog model");
    let p = LlamaParams::new(ctx, 1, false, fitcard_estimator::KvDtype::F16);
    llama_one_card(&d.inputs, &v.arch, 1, Some(&llama(&v.arch, &p)), true)
}

#[test]
fn the_activation_scratch_is_the_single_slot_buffer() {
    let q = "model=Qwen/Qwen3.6-27B&quant=Q4_K_M&engine=llama.cpp&ctx=4096&ubatch=512&gpu=rtx-3090";
    let one = one_card(q, 4096).expect("one card");
    assert_eq!(one.total().get(), overhead(&est(q)));
    // 16 B × 5120 × 512 = 40 MiB against the 36 MiB measured: within 12 %.
    let act = one.act.get() as f64 / MIB;
    assert!((act / 36.0 - 1.0).abs() < 0.12, "{act}");
}

#[test]
fn several_cards_other_engines_and_latent_attention_keep_their_own() {
    let two = est("model=meta-llama/Llama-3.2-1B-Instruct&quant=Q4_K_M&engine=llama.cpp&cards=4&ctx=131072&vram=24");
    let o = overhead(&two) as f64 / (1u64 << 30) as f64;
    assert!((o - (0.7 * 4.0 + 0.35)).abs() < 1e-6, "{o}");
    let vllm = "model=meta-llama/Llama-3.2-1B-Instruct&quant=BF16&engine=vllm&ctx=4096&vram=24";
    assert!(one_card(vllm, 4096).is_none(), "vLLM");
    let mla = "model=deepseek-ai/DeepSeek-V3&quant=Q4_K_M&engine=llama.cpp&ctx=4096&vram=640";
    assert!(one_card(mla, 4096).is_none(), "latent attention");
}

/// Builds before ggml-org/llama.cpp#23861 reserved a row of logits per micro-batch token: a b5781
/// log of Llama-3.1-8B at 16,384 cells and `-ub 1024`, flash attention on, prints a 613.01 MiB
/// compute buffer (Vulkan0; mainline posted in
/// <https://github.com/ikawrakow/ik_llama.cpp/discussions/562>, "build: 5781 (ba3ef86c5)"): the
/// formula plus `4 B × vocab × 1024` sits within 3 % of it.
#[test]
fn older_builds_add_a_row_of_logits_per_micro_batch_token() {
    let q = "model=meta-llama/Llama-3.1-8B-Instruct&quant=Q4_K_M&engine=llama.cpp&ctx=16384&ubatch=1024&gpu=rtx-4080";
    let one = one_card(q, 16384).expect("one card");
    let (_, v) = fitcard_estimator::catalog()
        .variant("meta-llama/Llama-3.1-8B-Instruct")
        .expect("in the catalog");
    let logits = 4 * v.arch.vocab * 1024;
    let old = (one.total().get() - one.context.get() + logits) as f64 / MIB;
    assert!((old / 613.01 - 1.0).abs() < 0.03, "{old} MiB");
}

/// With a stream per slot the mask spans one stream's cells, its micro-batch split among the
/// streams (src/llama-graph.cpp, `build_attn_inp_kq_mask`: `[n_kv, n_tokens / n_stream, 1,
/// n_stream]`); the f16 copy of a quantized cache spans every stream's cells.
#[test]
fn the_mask_spans_one_streams_cells() {
    let q = "model=Qwen/Qwen3-8B&quant=Q4_K_M&engine=llama.cpp&ctx=4096&par=4&kv=q8_0&gpu=rtx-4090";
    let d = decoded(q);
    let (_, v) = fitcard_estimator::catalog()
        .variant(&d.inputs.model)
        .expect("in the catalog");
    let mut p = LlamaParams::new(16384, 4, false, fitcard_estimator::KvDtype::F16);
    (p.type_k, p.type_v) = d.inputs.kv_types();
    let kv = llama(&v.arch, &p);
    assert_eq!((kv.streams, kv.cells), (4, 4096));
    let one = llama_one_card(&d.inputs, &v.arch, 1, Some(&kv), true).expect("one card");
    assert_eq!(one.mask.get(), 2 * 512 * 4096);
    // K and V rows of KV heads × head size at f16, over 4 × 4096 cells.
    let row = u64::from(v.arch.kv_heads) * v.arch.head_dim;
    assert_eq!(one.dequant.get(), row * 2 * 2 * 16384);
}
