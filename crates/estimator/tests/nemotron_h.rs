//! Nemotron-H (each layer ONE block: `M` Mamba-2, `*` attention, `-` MLP, `E` MoE) from the
//! catalog: what llama.cpp and vLLM allocate, and the tensor list against the published
//! parameter counts. Expected bytes are written out from the engines' rules, not from the code
//! under test:
//!
//! - llama.cpp keeps a KV cache only on the layers its hybrid memory does not mark recurrent
//!   and that have KV heads (`llama_memory_hybrid` filters the KV cache by `!is_recurrent(il)`
//!   and the recurrent memory by `is_recurrent(il)`, src/llama-memory-hybrid.cpp; the
//!   nemotron_h loader marks a layer recurrent iff `n_head_kv(il) == 0 && n_ff(il) == 0`, so the
//!   MLP and MoE layers hold neither; src/models/nemotron-h.cpp at
//!   <https://github.com/ggml-org/llama.cpp/blob/0aebd861b88e36990c8f5e4665c33673e20e9b65/src/models/nemotron-h.cpp>
//!   builds attention only where `n_ff(il) == 0` and the layer is not recurrent). Each Mamba-2
//!   layer keeps, per sequence, `n_embd_r = (d_conv − 1)·(d_inner + 2·n_group·d_state)` and
//!   `n_embd_s = d_state·d_inner` F32 values (src/llama-hparams.cpp). Cells as for every model
//!   (256-cell padding, streams; src/llama-kv-cache.cpp).
//! - vLLM pages the attention layers in 16-token blocks and keeps the Mamba-2 conv state
//!   `(conv_dim, d_conv − 1)` and temporal state `(heads, head_dim, d_state)` per request in the
//!   model's dtype (MambaMixer2 with `intermediate_size = mamba_num_heads × mamba_head_dim`,
//!   vllm/model_executor/models/nemotron_h.py at
//!   <https://github.com/vllm-project/vllm/blob/00b08dc44519a82cbdd9061d92d1226985094622/vllm/model_executor/models/nemotron_h.py>).

use fitcard_estimator::catalog::{catalog, tensors, Arch, Block};
use fitcard_estimator::terms::kv::{llama, paged, state_bytes, LlamaParams};
use fitcard_estimator::KvDtype;

fn arch(id: &str) -> &'static Arch {
    &catalog().variant(id).expect("catalog model").1.arch
}

/// The layers of each block kind `a`'s pattern holds: (Mamba-2, attention, MoE).
fn mamba_attention_moe(a: &Arch) -> (u32, u32, u32) {
    let b = a.blocks.as_ref().expect("a block pattern");
    (
        b.count(Block::Mamba2),
        b.count(Block::Attention),
        b.count(Block::Moe),
    )
}

const NANO3: &str = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16";
const NANO2: &str = "nvidia/NVIDIA-Nemotron-Nano-9B-v2";

/// Nemotron 3 Nano 30B-A3B: 6 attention layers of 2 KV heads × 128 (1,024 B of f16 K + V per
/// cell and layer, 544 B in q8_0: 256 values = 8 blocks of 34 B, twice), 23 Mamba-2 layers of
/// d_inner 4,096 (64 heads × 64), 8 groups, d_state 128, d_conv 4: (3 × 6,144 + 128 × 4,096) ×
/// 4 B = 2,170,880 B each per sequence; the 23 MoE layers hold nothing.
#[test]
fn nemotron_3_nano_kv_and_state_match_llama_cpp() {
    let a = arch(NANO3);
    assert_eq!(mamba_attention_moe(a), (23, 6, 23));
    assert_eq!(a.kv_owning_layers(), 6);
    let state = 23 * 2_170_880u64;
    assert_eq!(state_bytes(a, 4), state);
    // (n_ctx, n_seq, unified, f16 bytes, q8_0 bytes)
    let rows: [(u64, u64, bool, u64, u64); 5] = [
        (
            4096,
            1,
            true,
            6 * 4096 * 1024 + state,
            6 * 4096 * 544 + state,
        ),
        (
            32768,
            1,
            false,
            6 * 32768 * 1024 + state,
            6 * 32768 * 544 + state,
        ),
        (
            131072,
            4,
            true,
            6 * 131072 * 1024 + 4 * state,
            6 * 131072 * 544 + 4 * state,
        ),
        // Split: 4 streams of pad(131072 / 4) = 32,768 cells, the same cells in all.
        (
            131072,
            4,
            false,
            6 * 131072 * 1024 + 4 * state,
            6 * 131072 * 544 + 4 * state,
        ),
        // pad(1000) = 1024; 3 streams of pad(341) = 512 cells.
        (
            1000,
            3,
            false,
            6 * 1536 * 1024 + 3 * state,
            6 * 1536 * 544 + 3 * state,
        ),
    ];
    for (n_ctx, n_seq, unified, f16, q8) in rows {
        for (kv, want) in [(KvDtype::F16, f16), ("q8_0".parse().unwrap(), q8)] {
            let got = llama(a, &LlamaParams::new(n_ctx, n_seq, unified, kv));
            assert_eq!(
                (got.bytes.get(), got.global_layers, got.state.get()),
                (want, 6, n_seq * state),
                "n_ctx={n_ctx} n_seq={n_seq} unified={unified} {kv:?}"
            );
        }
    }
    // vLLM, one card, one request of 4,096 tokens: 256 blocks × 6 layers + the state in BF16.
    assert_eq!(
        paged(a, 4096, 1, KvDtype::Auto, 1, 0).get(),
        4096 * 6 * 1024 + 23 * 542_720 * 2
    );
}

/// Nemotron Nano 9B v2: 4 attention layers of 8 KV heads × 128 (4,096 B f16 per cell and
/// layer), 27 Mamba-2 layers of d_inner 10,240 (128 heads × 80), 8 groups, d_state 128,
/// d_conv 4: (3 × 12,288 + 128 × 10,240) × 4 B = 5,390,336 B each; the 25 MLP layers hold
/// neither a cache nor a state (not 52 recurrent layers, as "every non-attention layer" would
/// say).
#[test]
fn nemotron_nano_2_kv_and_state_match_llama_cpp() {
    let a = arch(NANO2);
    assert_eq!(a.recurrent_layers(), 27);
    let state = 27 * 5_390_336u64;
    assert_eq!(state_bytes(a, 4), state);
    for (n_ctx, n_seq, unified, want) in [
        (4096, 1, true, 4 * 4096 * 4096 + state),
        (131072, 1, true, 4 * 131072 * 4096 + state),
        (65536, 2, false, 4 * 65536 * 4096 + 2 * state),
    ] {
        let got = llama(a, &LlamaParams::new(n_ctx, n_seq, unified, KvDtype::F16));
        assert_eq!(got.bytes.get(), want, "n_ctx={n_ctx} n_seq={n_seq}");
    }
}

/// The tensor lists against the parameter counts the llmfit transcription lists for the vendor
/// checkpoints (<https://github.com/AlexsJones/llmfit/blob/a3e0eb27c57fe05298292f4c61699b9aed2824ea/llmfit-core/data/hf_models.json>):
/// 9B v2 8,888,227,328 (exact), 30B-A3B 31,577,937,344 (the list counts 2,944 = 23 × 128 more,
/// within 0.00001 %). The tensor list follows llama.cpp's nemotron_h loader: one norm per
/// layer, Mamba-2 mixers with conv bias and grouped norm, attention without biases, MLP up +
/// down without a gate, MoE with router, score bias, up/down experts and a shared expert.
#[test]
fn the_tensor_lists_reproduce_the_published_parameter_counts() {
    let count = |id: &str| -> u64 {
        tensors::tensors(arch(id), true)
            .iter()
            .map(|t| t.elements())
            .sum()
    };
    assert_eq!(count(NANO2), 8_888_227_328);
    let n3 = count(NANO3);
    assert_eq!(n3 - 31_577_937_344, 2_944);
    // No gate projection anywhere: the MLP and the experts are squared-ReLU up + down.
    let names: Vec<&str> = tensors::tensors(arch(NANO3), true)
        .iter()
        .map(|t| t.name)
        .collect();
    assert!(!names
        .iter()
        .any(|n| n.contains("gate_exps") || n.contains("gate_shexp")));
    assert!(names.contains(&"exp_probs_b.bias") && names.contains(&"ffn_up_shexp.weight"));
}

/// Nemotron 3 Ultra 550B-A55B (its config lists the blocks by name): 48 Mamba-2, 12 attention
/// and 48 MoE layers; the 12 attention layers of 2 KV heads × 128 hold 1,024 B of f16 K + V per
/// cell each; each Mamba-2 layer of d_inner 16,384 (256 heads × 64), 8 groups, d_state 128,
/// d_conv 4 keeps (3 × (16,384 + 2 × 8 × 128) + 128 × 16,384) × 4 B = 8,609,792 B per sequence.
#[test]
fn nemotron_3_ultra_kv_and_state_by_hand() {
    let a = arch("nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16");
    assert_eq!(mamba_attention_moe(a), (48, 12, 48));
    assert_eq!(a.kv_owning_layers(), 12);
    assert_eq!(state_bytes(a, 4), 48 * 8_609_792);
    let got = llama(a, &LlamaParams::new(8192, 1, true, KvDtype::F16));
    assert_eq!(
        (got.bytes.get(), got.global_layers, got.state.get()),
        (12 * 8192 * 1024 + 48 * 8_609_792, 12, 48 * 8_609_792)
    );
}
