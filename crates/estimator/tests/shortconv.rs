//! LFM2's gated short convolutions (`shortconv`): llama.cpp's allocator (KV on the attention
//! layers only, a small F32 convolution state per sequence on the others) and the tensor list
//! the size rule sizes, against published counts.

use fitcard_estimator::catalog::{Arch, Recurrent};
use fitcard_estimator::terms::kv::{llama, LlamaParams};
use fitcard_estimator::KvDtype;

/// LFM2-1.2B's shape (2048 wide, 16 layers, attention on 2, 5, 8, 10, 12, 14 with 8 KV heads ×
/// 64, gated short convolutions of 3 taps elsewhere: the `lfm2.attention.head_count_kv` array of
/// LiquidAI/LFM2-1.2B-GGUF quoted in https://github.com/gpustack/gguf-parser-go/issues/31).
fn lfm2_12b() -> Arch {
    lfm2(2048, 32, 8192)
}

/// An LFM2 of `hidden` width, `heads` query heads and an FFN `ffn` wide: 16 layers, the
/// attention layers of the released 350M and 1.2B files, 8 KV heads × 64, 3-tap convolutions.
fn lfm2(hidden: u64, heads: u32, ffn: u64) -> Arch {
    backbone("lfm2", hidden, 16, heads, ffn, vec![2, 5, 8, 10, 12, 14])
}

/// The LFM2 backbone both kinds share: `layers` layers of `hidden`, 8 KV heads × 64, an FFN
/// `ffn` wide, a 65,536-token tied vocabulary, 128,000 positions, 3-tap short convolutions on
/// every layer but `attention`.
fn backbone(
    kind: &str,
    hidden: u64,
    layers: u32,
    heads: u32,
    ffn: u64,
    attention: Vec<u32>,
) -> Arch {
    let mut a = Arch::read(kind.into(), hidden, layers, heads, 8).expect("plausible");
    a.head_dim = 64;
    a.intermediate = ffn;
    a.vocab = 65536;
    a.tied_embeddings = true;
    a.set_context(Some(128_000));
    a.recurrent = Some(Recurrent {
        kind: "shortconv".into(),
        attention_layers: attention,
        conv_kernel: 3,
        k_heads: 0,
        k_dim: 0,
        v_heads: 0,
        v_dim: 0,
    });
    a
}

/// llama.cpp on LFM2: the hybrid memory keeps K and V only on the layers with KV heads (the KV
/// cache's filter is `!is_recurrent(il)`, and LLM_ARCH_LFM2 sets `recurrent_layer_arr[il] =
/// n_head_kv(il) == 0`, src/llama-model.cpp), cells as for any model; the recurrent memory holds
/// `max(1, n_seq)` rows per layer (src/llama-memory-recurrent.cpp: `ggml_new_tensor_2d(type_r,
/// n_embd_r(), mem_size)`, F32 from the hybrid memory's call site) of `n_embd_r() = n_embd ·
/// (l_cache − 1)` values and `n_embd_s() = ssm_d_state · ssm_d_inner = 0` (src/llama-hparams.cpp
/// at ggml-org/llama.cpp 01b77b5793989e0a1508a2fe3757d4e743a7bbd1). Expected bytes are written out
/// from those rules: KV = streams × cells × 6 × (512 + 512) × type bytes, state = n_seq × 10 ×
/// 2 × 2048 × 4. At 4,096 cells the KV part is the 48.00 MiB llama.cpp prints for this backbone
/// (`llama_kv_cache: size = 48.00 MiB (4096 cells, ...)`,
/// https://github.com/ggml-org/llama.cpp/pull/18641).
#[test]
fn lfm2_short_convolutions_match_llama_cpp() {
    let a = lfm2_12b();
    let state_per_seq = 10 * 2 * 2048 * 4;
    let q8 = |n: u64| n / 32 * 34;
    // (n_ctx, n_seq, unified, streams, cells per stream)
    let rows: [(u64, u64, bool, u64, u64); 8] = [
        (4096, 1, false, 1, 4096),
        (4096, 4, true, 1, 4096),
        (4096, 4, false, 4, 1024),
        (32768, 1, false, 1, 32768),
        (32768, 8, false, 8, 4096),
        (32768, 8, true, 1, 32768),
        (100_000, 3, false, 3, 33536),
        (128_000, 1, true, 1, 128_000),
    ];
    for (n_ctx, n_seq, unified, streams, cells) in rows {
        for (kv, row) in [(KvDtype::F16, 512 * 2), ("q8_0".parse().unwrap(), q8(512))] {
            let got = llama(&a, &LlamaParams::new(n_ctx, n_seq, unified, kv));
            let kv_bytes = streams * cells * 6 * 2 * row;
            assert_eq!(
                (
                    got.bytes.get(),
                    got.state.get(),
                    got.global_layers,
                    got.cells
                ),
                (
                    kv_bytes + n_seq * state_per_seq,
                    n_seq * state_per_seq,
                    6,
                    cells
                ),
                "n_ctx={n_ctx} n_seq={n_seq} unified={unified} {kv:?}"
            );
        }
    }
    let one = llama(&a, &LlamaParams::new(4096, 1, false, KvDtype::F16));
    assert_eq!(one.bytes.get() - one.state.get(), 48 << 20);
}

/// LFM2's tensor list (src/models/lfm2.cpp: `shortconv.in_proj` 3 × hidden, the depthwise
/// kernel, `shortconv.out_proj` on the convolution layers; q/k/v/output and per-head q/k norms
/// on the attention layers; a SwiGLU FFN and two norms on every layer) against the parameter
/// counts the Hub reports for the safetensors checkpoints, as transcribed in
/// https://github.com/AlexsJones/llmfit/blob/a3e0eb27c57fe05298292f4c61699b9aed2824ea/llmfit-core/data/hf_models.json
/// (LiquidAI/LFM2-350M 354,483,968; LiquidAI/LFM2-1.2B 1,170,340,608), to the parameter; and
/// against llama.cpp's print of the LFM2-350M F16 file, `file size = 676.25 MiB` of tensor data
/// (https://github.com/ggml-org/llama.cpp/issues/14979): 16-bit matrices, F32 norms and
/// convolution kernels, within the print's ±0.005 MiB.
#[test]
fn lfm2_tensor_list_reproduces_the_published_counts() {
    use fitcard_estimator::catalog::tensors::{tensors, Kind};
    let params = |a: &Arch| -> u64 { tensors(a, false).iter().map(|t| t.elements()).sum() };
    let small = lfm2(1024, 16, 4608);
    assert_eq!(params(&small), 354_483_968);
    assert_eq!(params(&lfm2(2048, 32, 8192)), 1_170_340_608);
    let f16_data: u64 = tensors(&small, false)
        .iter()
        .map(|t| match t.kind {
            Kind::Vector | Kind::F32Matrix => 4 * t.elements(),
            _ => 2 * t.elements(),
        })
        .sum();
    let printed = 676.25 * 1_048_576.0;
    assert!(
        (f16_data as f64 - printed).abs() <= 0.005 * 1_048_576.0,
        "{f16_data} vs {printed}"
    );
}

/// LFM2-8B-A1B (`lfm2_moe`): LFM2's 24-layer backbone with 6 attention layers (the model card's
/// "24 (18 conv + 6 attn)"), the first 2 FFNs dense at 7,168 and 22 sparse blocks of 32 experts ×
/// 1,792 with a sigmoid router and its expert-score bias (src/models/lfm2moe.cpp at
/// https://github.com/ggml-org/llama.cpp/blob/623ac8d30a54433969bdd3e54d4487c3608d047c/src/models/lfm2moe.cpp).
fn lfm2_8b_a1b() -> Arch {
    let mut a = backbone("lfm2_moe", 2048, 24, 32, 7168, vec![2, 6, 10, 14, 18, 21]);
    a.set_experts(Some(32), Some(4), Some(1792))
        .expect("experts");
    a.moe = fitcard_estimator::catalog::MoeShape::read(Some(2), None, None, 24);
    a
}

/// LFM2-8B-A1B's tensor list against the parameters the Hub reports for its checkpoint,
/// 8,339,929,856 (as transcribed in
/// https://github.com/AlexsJones/llmfit/blob/a3e0eb27c57fe05298292f4c61699b9aed2824ea/llmfit-core/data/hf_models.json,
/// and llama-bench's "8.34 B" in https://github.com/ggml-org/llama.cpp/pull/19848): the list holds
/// 704 = 22 MoE layers × 32 more, the expert-score bias (`exp_probs_b`) llama.cpp's loader
/// requires on every MoE layer and the Hub's count of the checkpoint leaves out. The Q4_0 file
/// the same llama-bench run loads prints 4.41 GiB of tensor data: the rule's file, less its
/// metadata (a few MiB), lies in that print's rounding. KV on the 6 attention layers only, the
/// convolution state on the 18 others (llama.cpp's LFM2 rule, as for the dense models).
#[test]
fn lfm2_moe_tensor_list_reproduces_the_published_counts() {
    use fitcard_estimator::catalog::quant::{Container, Quant};
    use fitcard_estimator::catalog::size_rule;
    use fitcard_estimator::catalog::tensors::tensors;
    let a = lfm2_8b_a1b();
    let params: u64 = tensors(&a, false).iter().map(|t| t.elements()).sum();
    assert_eq!(params, 8_339_929_856 + 22 * 32);
    let q4_0: Quant = "Q4_0".parse().unwrap();
    let file = size_rule::computed(&a, q4_0, Container::Gguf, false)
        .unwrap()
        .bytes as f64;
    let gib = 1024.0_f64.powi(3);
    assert!(
        file >= 4.405 * gib && file <= 4.415 * gib + 8.0 * 1_048_576.0,
        "{} GiB",
        file / gib
    );
    let k = llama(&a, &LlamaParams::new(4096, 2, false, KvDtype::F16));
    let state_per_seq = 18 * 2 * 2048 * 4;
    assert_eq!(k.state.get(), 2 * state_per_seq);
    assert_eq!(
        k.bytes.get(),
        2 * 2048 * 6 * 2 * 512 * 2 + 2 * state_per_seq
    );
}
