//! Regression baseline: llama.cpp's KV-cache allocation (src/llama-kv-cache.cpp) on each catalog
//! architecture. Expected bytes come from an independent Python re-implementation of the rules
//! (tests/gen/llama_kv.py), not from the Rust code under test. Defaults: n_ubatch 512,
//! n_batch 2048, swa_full off. Architectures are pinned here (and checked against the catalog).

use fitcard_estimator::catalog::{catalog, Arch, Mla, Ple, Recurrent, Swa};
use fitcard_estimator::terms::kv::{llama, LlamaParams};
use fitcard_estimator::KvDtype;

fn arch(name: &str) -> Arch {
    let base =
        |layers, kv_heads, head_dim, swa: Option<Swa>, kv_layers: Option<u32>, ple: Option<Ple>| {
            Arch {
                model_type: name.into(),
                hidden: 2048,
                layers,
                heads: kv_heads * 4,
                kv_heads,
                head_dim,
                intermediate: 8192,
                moe_intermediate: None,
                experts: 0,
                experts_active: 0,
                vocab: 128_256,
                tied_embeddings: true,
                max_ctx: 131_072,
                native_ctx: vec![],
                swa,
                kv_layers,
                ple,
                yarn: None,
                blocks: None,
                rank_labels: None,
                global_override: None,
                global_attn: None,
                mla: None,
                recurrent: None,
                moe: None,
                source: "test".into(),
            }
        };
    match name {
        // Llama-3.2-1B: 16 layers, 8 KV heads × 64.
        "llama" => base(16, 8, 64, None, None, None),
        // Qwen3-0.6B: 28 layers, 8 KV heads × 128.
        "qwen3" => base(28, 8, 128, None, None, None),
        // gemma-3-1b: 26 layers, 1 KV head × 256, global iff il % 6 == 5, window 512.
        "gemma3" => base(
            26,
            1,
            256,
            Some(Swa {
                window: 512,
                period: 6,
                global_offset: 5,
                chunked: false,
            }),
            None,
            None,
        ),
        // gemma-3n-E2B: 30 layers, only il < 20 own KV; 2 KV heads × 256; global iff il % 5 == 4.
        "gemma3n" => base(
            30,
            2,
            256,
            Some(Swa {
                window: 512,
                period: 5,
                global_offset: 4,
                chunked: false,
            }),
            Some(20),
            Some(Ple {
                vocab: 262_144,
                dim: 256,
            }),
        ),
        // Qwen3-30B-A3B: 48 layers, 4 KV heads × 128.
        "qwen3moe" => base(48, 4, 128, None, None, None),
        // Llama-4-Scout: 48 layers, 8 KV heads × 128, chunks of 8,192 tokens, global iff
        // il % 4 == 3 (at 16,384 tokens, one sequence, F16: 2,088,763,392 B, the 2.1 GB
        // llama.cpp allocates).
        "llama4" => base(48, 8, 128, Some(Swa::llama4_chunked(8192)), None, None),
        // DeepSeek-V3 / R1: 61 layers of latent attention, kv_lora_rank 512 + rope 64; V3.2
        // adds the sparse-attention indexer's 128-wide key row.
        "deepseek3" | "deepseek32" => Arch {
            mla: Some(Mla {
                kv_lora_rank: 512,
                qk_rope_head_dim: 64,
                index_head_dim: (name == "deepseek32").then_some(128),
                index_heads: (name == "deepseek32").then_some(64),
                q_lora_rank: None,
                v_head_dim: None,
            }),
            ..base(61, 128, 192, None, None, None)
        },
        // Qwen3-Next-80B-A3B: 48 layers, full attention every 4th (2 KV heads × 256), Gated
        // DeltaNet elsewhere (conv 4, 16 key heads × 128, 32 value heads × 128).
        "qwen3next" => Arch {
            recurrent: Some(Recurrent {
                kind: "gated_deltanet".into(),
                attention_layers: (0..48).filter(|il| il % 4 == 3).collect(),
                conv_kernel: 4,
                k_heads: 16,
                k_dim: 128,
                v_heads: 32,
                v_dim: 128,
            }),
            ..base(48, 2, 256, None, None, None)
        },
        // A Mamba-2 hybrid shape (synthetic): 40 layers, attention at 9/19/29/39 (8 KV heads ×
        // 64), one group of state 128, 48 heads × 64, conv 4.
        "mamba2" => Arch {
            recurrent: Some(Recurrent {
                kind: "mamba2".into(),
                attention_layers: vec![9, 19, 29, 39],
                conv_kernel: 4,
                k_heads: 1,
                k_dim: 128,
                v_heads: 48,
                v_dim: 64,
            }),
            ..base(40, 8, 64, None, None, None)
        },
        _ => unreachable!(),
    }
}

struct Row {
    arch: &'static str,
    n_ctx: u64,
    n_seq: u64,
    unified: bool,
    kv: &'static str,
    bytes: u64,
}

const fn row(
    arch: &'static str,
    n_ctx: u64,
    n_seq: u64,
    unified: bool,
    kv: &'static str,
    bytes: u64,
) -> Row {
    Row {
        arch,
        n_ctx,
        n_seq,
        unified,
        kv,
        bytes,
    }
}

#[rustfmt::skip]
const ROWS: &[Row] = &[
    //  arch, n_ctx (-c), n_seq (-np), unified (-kvu), type_k = type_v, expected bytes
    row("llama", 512, 1, true, "f16", 16777216), // 16.00 MiB, one sequence
    row("llama", 512, 1, true, "q8_0", 8912896), // 8.50 MiB, one sequence
    row("llama", 512, 1, false, "f16", 16777216), // 16.00 MiB, one sequence: one stream either way
    row("llama", 512, 1, false, "q8_0", 8912896), // 8.50 MiB, one sequence: one stream either way
    row("llama", 512, 4, true, "f16", 16777216), // 16.00 MiB, unified
    row("llama", 512, 4, true, "q8_0", 8912896), // 8.50 MiB, unified
    row("llama", 512, 4, false, "f16", 33554432), // 32.00 MiB, split
    row("llama", 512, 4, false, "q8_0", 17825792), // 17.00 MiB, split
    row("llama", 4096, 1, true, "f16", 134217728), // 128.00 MiB, one sequence
    row("llama", 4096, 1, true, "q8_0", 71303168), // 68.00 MiB, one sequence
    row("llama", 4096, 1, false, "f16", 134217728), // 128.00 MiB, one sequence: one stream either way
    row("llama", 4096, 1, false, "q8_0", 71303168), // 68.00 MiB, one sequence: one stream either way
    row("llama", 4096, 4, true, "f16", 134217728), // 128.00 MiB, unified
    row("llama", 4096, 4, true, "q8_0", 71303168), // 68.00 MiB, unified
    row("llama", 4096, 4, false, "f16", 134217728), // 128.00 MiB, split
    row("llama", 4096, 4, false, "q8_0", 71303168), // 68.00 MiB, split
    row("llama", 32768, 1, true, "f16", 1073741824), // 1024.00 MiB, one sequence
    row("llama", 32768, 1, true, "q8_0", 570425344), // 544.00 MiB, one sequence
    row("llama", 32768, 1, false, "f16", 1073741824), // 1024.00 MiB, one sequence: one stream either way
    row("llama", 32768, 1, false, "q8_0", 570425344), // 544.00 MiB, one sequence: one stream either way
    row("llama", 32768, 4, true, "f16", 1073741824), // 1024.00 MiB, unified
    row("llama", 32768, 4, true, "q8_0", 570425344), // 544.00 MiB, unified
    row("llama", 32768, 4, false, "f16", 1073741824), // 1024.00 MiB, split
    row("llama", 32768, 4, false, "q8_0", 570425344), // 544.00 MiB, split
    row("qwen3", 512, 1, true, "f16", 58720256), // 56.00 MiB, one sequence
    row("qwen3", 512, 1, true, "q8_0", 31195136), // 29.75 MiB, one sequence
    row("qwen3", 512, 1, false, "f16", 58720256), // 56.00 MiB, one sequence: one stream either way
    row("qwen3", 512, 1, false, "q8_0", 31195136), // 29.75 MiB, one sequence: one stream either way
    row("qwen3", 512, 4, true, "f16", 58720256), // 56.00 MiB, unified
    row("qwen3", 512, 4, true, "q8_0", 31195136), // 29.75 MiB, unified
    row("qwen3", 512, 4, false, "f16", 117440512), // 112.00 MiB, split
    row("qwen3", 512, 4, false, "q8_0", 62390272), // 59.50 MiB, split
    row("qwen3", 4096, 1, true, "f16", 469762048), // 448.00 MiB, one sequence
    row("qwen3", 4096, 1, true, "q8_0", 249561088), // 238.00 MiB, one sequence
    row("qwen3", 4096, 1, false, "f16", 469762048), // 448.00 MiB, one sequence: one stream either way
    row("qwen3", 4096, 1, false, "q8_0", 249561088), // 238.00 MiB, one sequence: one stream either way
    row("qwen3", 4096, 4, true, "f16", 469762048), // 448.00 MiB, unified
    row("qwen3", 4096, 4, true, "q8_0", 249561088), // 238.00 MiB, unified
    row("qwen3", 4096, 4, false, "f16", 469762048), // 448.00 MiB, split
    row("qwen3", 4096, 4, false, "q8_0", 249561088), // 238.00 MiB, split
    row("qwen3", 32768, 1, true, "f16", 3758096384), // 3584.00 MiB, one sequence
    row("qwen3", 32768, 1, true, "q8_0", 1996488704), // 1904.00 MiB, one sequence
    row("qwen3", 32768, 1, false, "f16", 3758096384), // 3584.00 MiB, one sequence: one stream either way
    row("qwen3", 32768, 1, false, "q8_0", 1996488704), // 1904.00 MiB, one sequence: one stream either way
    row("qwen3", 32768, 4, true, "f16", 3758096384), // 3584.00 MiB, unified
    row("qwen3", 32768, 4, true, "q8_0", 1996488704), // 1904.00 MiB, unified
    row("qwen3", 32768, 4, false, "f16", 3758096384), // 3584.00 MiB, split
    row("qwen3", 32768, 4, false, "q8_0", 1996488704), // 1904.00 MiB, split
    row("gemma3", 512, 1, true, "f16", 13631488), // 13.00 MiB, one sequence
    row("gemma3", 512, 1, true, "q8_0", 7241728), // 6.91 MiB, one sequence
    row("gemma3", 512, 1, false, "f16", 13631488), // 13.00 MiB, one sequence: one stream either way
    row("gemma3", 512, 1, false, "q8_0", 7241728), // 6.91 MiB, one sequence: one stream either way
    row("gemma3", 512, 4, true, "f16", 13631488), // 13.00 MiB, unified
    row("gemma3", 512, 4, true, "q8_0", 7241728), // 6.91 MiB, unified
    row("gemma3", 512, 4, false, "f16", 27262976), // 26.00 MiB, split
    row("gemma3", 512, 4, false, "q8_0", 14483456), // 13.81 MiB, split
    row("gemma3", 4096, 1, true, "f16", 39845888), // 38.00 MiB, one sequence
    row("gemma3", 4096, 1, true, "q8_0", 21168128), // 20.19 MiB, one sequence
    row("gemma3", 4096, 1, false, "f16", 39845888), // 38.00 MiB, one sequence: one stream either way
    row("gemma3", 4096, 1, false, "q8_0", 21168128), // 20.19 MiB, one sequence: one stream either way
    row("gemma3", 4096, 4, true, "f16", 74448896), // 71.00 MiB, unified
    row("gemma3", 4096, 4, true, "q8_0", 39550976), // 37.72 MiB, unified
    row("gemma3", 4096, 4, false, "f16", 109051904), // 104.00 MiB, split
    row("gemma3", 4096, 4, false, "q8_0", 57933824), // 55.25 MiB, split
    row("gemma3", 32768, 1, true, "f16", 157286400), // 150.00 MiB, one sequence
    row("gemma3", 32768, 1, true, "q8_0", 83558400), // 79.69 MiB, one sequence
    row("gemma3", 32768, 1, false, "f16", 157286400), // 150.00 MiB, one sequence: one stream either way
    row("gemma3", 32768, 1, false, "q8_0", 83558400), // 79.69 MiB, one sequence: one stream either way
    row("gemma3", 32768, 4, true, "f16", 191889408), // 183.00 MiB, unified
    row("gemma3", 32768, 4, true, "q8_0", 101941248), // 97.22 MiB, unified
    row("gemma3", 32768, 4, false, "f16", 226492416), // 216.00 MiB, split
    row("gemma3", 32768, 4, false, "q8_0", 120324096), // 114.75 MiB, split
    row("gemma3n", 512, 1, true, "f16", 20971520), // 20.00 MiB, one sequence
    row("gemma3n", 512, 1, true, "q8_0", 11141120), // 10.62 MiB, one sequence
    row("gemma3n", 512, 1, false, "f16", 20971520), // 20.00 MiB, one sequence: one stream either way
    row("gemma3n", 512, 1, false, "q8_0", 11141120), // 10.62 MiB, one sequence: one stream either way
    row("gemma3n", 512, 4, true, "f16", 20971520), // 20.00 MiB, unified
    row("gemma3n", 512, 4, true, "q8_0", 11141120), // 10.62 MiB, unified
    row("gemma3n", 512, 4, false, "f16", 41943040), // 40.00 MiB, split
    row("gemma3n", 512, 4, false, "q8_0", 22282240), // 21.25 MiB, split
    row("gemma3n", 4096, 1, true, "f16", 67108864), // 64.00 MiB, one sequence
    row("gemma3n", 4096, 1, true, "q8_0", 35651584), // 34.00 MiB, one sequence
    row("gemma3n", 4096, 1, false, "f16", 67108864), // 64.00 MiB, one sequence: one stream either way
    row("gemma3n", 4096, 1, false, "q8_0", 35651584), // 34.00 MiB, one sequence: one stream either way
    row("gemma3n", 4096, 4, true, "f16", 117440512), // 112.00 MiB, unified
    row("gemma3n", 4096, 4, true, "q8_0", 62390272), // 59.50 MiB, unified
    row("gemma3n", 4096, 4, false, "f16", 167772160), // 160.00 MiB, split
    row("gemma3n", 4096, 4, false, "q8_0", 89128960), // 85.00 MiB, split
    row("gemma3n", 32768, 1, true, "f16", 301989888), // 288.00 MiB, one sequence
    row("gemma3n", 32768, 1, true, "q8_0", 160432128), // 153.00 MiB, one sequence
    row("gemma3n", 32768, 1, false, "f16", 301989888), // 288.00 MiB, one sequence: one stream either way
    row("gemma3n", 32768, 1, false, "q8_0", 160432128), // 153.00 MiB, one sequence: one stream either way
    row("gemma3n", 32768, 4, true, "f16", 352321536), // 336.00 MiB, unified
    row("gemma3n", 32768, 4, true, "q8_0", 187170816), // 178.50 MiB, unified
    row("gemma3n", 32768, 4, false, "f16", 402653184), // 384.00 MiB, split
    row("gemma3n", 32768, 4, false, "q8_0", 213909504), // 204.00 MiB, split
    row("qwen3moe", 512, 1, true, "f16", 50331648), // 48.00 MiB, one sequence
    row("qwen3moe", 512, 1, true, "q8_0", 26738688), // 25.50 MiB, one sequence
    row("qwen3moe", 512, 1, false, "f16", 50331648), // 48.00 MiB, one sequence: one stream either way
    row("qwen3moe", 512, 1, false, "q8_0", 26738688), // 25.50 MiB, one sequence: one stream either way
    row("qwen3moe", 512, 4, true, "f16", 50331648), // 48.00 MiB, unified
    row("qwen3moe", 512, 4, true, "q8_0", 26738688), // 25.50 MiB, unified
    row("qwen3moe", 512, 4, false, "f16", 100663296), // 96.00 MiB, split
    row("qwen3moe", 512, 4, false, "q8_0", 53477376), // 51.00 MiB, split
    row("qwen3moe", 4096, 1, true, "f16", 402653184), // 384.00 MiB, one sequence
    row("qwen3moe", 4096, 1, true, "q8_0", 213909504), // 204.00 MiB, one sequence
    row("qwen3moe", 4096, 1, false, "f16", 402653184), // 384.00 MiB, one sequence: one stream either way
    row("qwen3moe", 4096, 1, false, "q8_0", 213909504), // 204.00 MiB, one sequence: one stream either way
    row("qwen3moe", 4096, 4, true, "f16", 402653184), // 384.00 MiB, unified
    row("qwen3moe", 4096, 4, true, "q8_0", 213909504), // 204.00 MiB, unified
    row("qwen3moe", 4096, 4, false, "f16", 402653184), // 384.00 MiB, split
    row("qwen3moe", 4096, 4, false, "q8_0", 213909504), // 204.00 MiB, split
    row("qwen3moe", 32768, 1, true, "f16", 3221225472), // 3072.00 MiB, one sequence
    row("qwen3moe", 32768, 1, true, "q8_0", 1711276032), // 1632.00 MiB, one sequence
    row("qwen3moe", 32768, 1, false, "f16", 3221225472), // 3072.00 MiB, one sequence: one stream either way
    row("qwen3moe", 32768, 1, false, "q8_0", 1711276032), // 1632.00 MiB, one sequence: one stream either way
    row("qwen3moe", 32768, 4, true, "f16", 3221225472), // 3072.00 MiB, unified
    row("qwen3moe", 32768, 4, true, "q8_0", 1711276032), // 1632.00 MiB, unified
    row("qwen3moe", 32768, 4, false, "f16", 3221225472), // 3072.00 MiB, split
    row("qwen3moe", 32768, 4, false, "q8_0", 1711276032), // 1632.00 MiB, split
    row("llama4", 4096, 1, true, "f16", 805306368), // 768.00 MiB, one sequence
    row("llama4", 4096, 1, true, "q8_0", 427819008), // 408.00 MiB, one sequence
    row("llama4", 4096, 1, false, "f16", 805306368), // 768.00 MiB, one sequence: one stream either way
    row("llama4", 4096, 1, false, "q8_0", 427819008), // 408.00 MiB, one sequence: one stream either way
    row("llama4", 4096, 4, true, "f16", 805306368), // 768.00 MiB, unified
    row("llama4", 4096, 4, true, "q8_0", 427819008), // 408.00 MiB, unified
    row("llama4", 4096, 4, false, "f16", 805306368), // 768.00 MiB, split
    row("llama4", 4096, 4, false, "q8_0", 427819008), // 408.00 MiB, split
    row("llama4", 16384, 1, true, "f16", 2088763392), // 1992.00 MiB, one sequence
    row("llama4", 16384, 1, true, "q8_0", 1109655552), // 1058.25 MiB, one sequence
    row("llama4", 16384, 1, false, "f16", 2088763392), // 1992.00 MiB, one sequence: one stream either way
    row("llama4", 16384, 1, false, "q8_0", 1109655552), // 1058.25 MiB, one sequence: one stream either way
    row("llama4", 16384, 4, true, "f16", 3221225472), // 3072.00 MiB, unified
    row("llama4", 16384, 4, true, "q8_0", 1711276032), // 1632.00 MiB, unified
    row("llama4", 16384, 4, false, "f16", 3221225472), // 3072.00 MiB, split
    row("llama4", 16384, 4, false, "q8_0", 1711276032), // 1632.00 MiB, split
    row("llama4", 32768, 1, true, "f16", 2894069760), // 2760.00 MiB, one sequence
    row("llama4", 32768, 1, true, "q8_0", 1537474560), // 1466.25 MiB, one sequence
    row("llama4", 32768, 1, false, "f16", 2894069760), // 2760.00 MiB, one sequence: one stream either way
    row("llama4", 32768, 1, false, "q8_0", 1537474560), // 1466.25 MiB, one sequence: one stream either way
    row("llama4", 32768, 4, true, "f16", 6442450944), // 6144.00 MiB, unified
    row("llama4", 32768, 4, true, "q8_0", 3422552064), // 3264.00 MiB, unified
    row("llama4", 32768, 4, false, "f16", 6442450944), // 6144.00 MiB, split
    row("llama4", 32768, 4, false, "q8_0", 3422552064), // 3264.00 MiB, split
    row("llama4", 131072, 1, true, "f16", 7725907968), // 7368.00 MiB, one sequence
    row("llama4", 131072, 1, true, "q8_0", 4104388608), // 3914.25 MiB, one sequence
    row("llama4", 131072, 1, false, "f16", 7725907968), // 7368.00 MiB, one sequence: one stream either way
    row("llama4", 131072, 1, false, "q8_0", 4104388608), // 3914.25 MiB, one sequence: one stream either way
    row("llama4", 131072, 4, true, "f16", 11349786624), // 10824.00 MiB, unified
    row("llama4", 131072, 4, true, "q8_0", 6029574144), // 5750.25 MiB, unified
    row("llama4", 131072, 4, false, "f16", 11576279040), // 11040.00 MiB, split
    row("llama4", 131072, 4, false, "q8_0", 6149898240), // 5865.00 MiB, split
    row("deepseek3", 512, 1, true, "f16", 35979264), // 34.31 MiB, one sequence
    row("deepseek3", 512, 1, true, "q8_0", 19113984), // 18.23 MiB, one sequence
    row("deepseek3", 512, 1, false, "f16", 35979264), // 34.31 MiB, one sequence: one stream either way
    row("deepseek3", 512, 1, false, "q8_0", 19113984), // 18.23 MiB, one sequence: one stream either way
    row("deepseek3", 512, 4, true, "f16", 35979264), // 34.31 MiB, unified
    row("deepseek3", 512, 4, true, "q8_0", 19113984), // 18.23 MiB, unified
    row("deepseek3", 512, 4, false, "f16", 71958528), // 68.62 MiB, split
    row("deepseek3", 512, 4, false, "q8_0", 38227968), // 36.46 MiB, split
    row("deepseek3", 4096, 1, true, "f16", 287834112), // 274.50 MiB, one sequence
    row("deepseek3", 4096, 1, true, "q8_0", 152911872), // 145.83 MiB, one sequence
    row("deepseek3", 4096, 1, false, "f16", 287834112), // 274.50 MiB, one sequence: one stream either way
    row("deepseek3", 4096, 1, false, "q8_0", 152911872), // 145.83 MiB, one sequence: one stream either way
    row("deepseek3", 4096, 4, true, "f16", 287834112), // 274.50 MiB, unified
    row("deepseek3", 4096, 4, true, "q8_0", 152911872), // 145.83 MiB, unified
    row("deepseek3", 4096, 4, false, "f16", 287834112), // 274.50 MiB, split
    row("deepseek3", 4096, 4, false, "q8_0", 152911872), // 145.83 MiB, split
    row("deepseek3", 32768, 1, true, "f16", 2302672896), // 2196.00 MiB, one sequence
    row("deepseek3", 32768, 1, true, "q8_0", 1223294976), // 1166.62 MiB, one sequence
    row("deepseek3", 32768, 1, false, "f16", 2302672896), // 2196.00 MiB, one sequence: one stream either way
    row("deepseek3", 32768, 1, false, "q8_0", 1223294976), // 1166.62 MiB, one sequence: one stream either way
    row("deepseek3", 32768, 4, true, "f16", 2302672896), // 2196.00 MiB, unified
    row("deepseek3", 32768, 4, true, "q8_0", 1223294976), // 1166.62 MiB, unified
    row("deepseek3", 32768, 4, false, "f16", 2302672896), // 2196.00 MiB, split
    row("deepseek3", 32768, 4, false, "q8_0", 1223294976), // 1166.62 MiB, split
    row("deepseek32", 512, 1, true, "f16", 43974656), // 41.94 MiB, one sequence
    row("deepseek32", 512, 1, true, "q8_0", 23361536), // 22.28 MiB, one sequence
    row("deepseek32", 512, 1, false, "f16", 43974656), // 41.94 MiB, one sequence: one stream either way
    row("deepseek32", 512, 1, false, "q8_0", 23361536), // 22.28 MiB, one sequence: one stream either way
    row("deepseek32", 512, 4, true, "f16", 43974656), // 41.94 MiB, unified
    row("deepseek32", 512, 4, true, "q8_0", 23361536), // 22.28 MiB, unified
    row("deepseek32", 512, 4, false, "f16", 87949312), // 83.88 MiB, split
    row("deepseek32", 512, 4, false, "q8_0", 46723072), // 44.56 MiB, split
    row("deepseek32", 4096, 1, true, "f16", 351797248), // 335.50 MiB, one sequence
    row("deepseek32", 4096, 1, true, "q8_0", 186892288), // 178.23 MiB, one sequence
    row("deepseek32", 4096, 1, false, "f16", 351797248), // 335.50 MiB, one sequence: one stream either way
    row("deepseek32", 4096, 1, false, "q8_0", 186892288), // 178.23 MiB, one sequence: one stream either way
    row("deepseek32", 4096, 4, true, "f16", 351797248), // 335.50 MiB, unified
    row("deepseek32", 4096, 4, true, "q8_0", 186892288), // 178.23 MiB, unified
    row("deepseek32", 4096, 4, false, "f16", 351797248), // 335.50 MiB, split
    row("deepseek32", 4096, 4, false, "q8_0", 186892288), // 178.23 MiB, split
    row("deepseek32", 32768, 1, true, "f16", 2814377984), // 2684.00 MiB, one sequence
    row("deepseek32", 32768, 1, true, "q8_0", 1495138304), // 1425.88 MiB, one sequence
    row("deepseek32", 32768, 1, false, "f16", 2814377984), // 2684.00 MiB, one sequence: one stream either way
    row("deepseek32", 32768, 1, false, "q8_0", 1495138304), // 1425.88 MiB, one sequence: one stream either way
    row("deepseek32", 32768, 4, true, "f16", 2814377984), // 2684.00 MiB, unified
    row("deepseek32", 32768, 4, true, "q8_0", 1495138304), // 1425.88 MiB, unified
    row("deepseek32", 32768, 4, false, "f16", 2814377984), // 2684.00 MiB, split
    row("deepseek32", 32768, 4, false, "q8_0", 1495138304), // 1425.88 MiB, split
    row("qwen3next", 512, 1, true, "f16", 91619328), // 87.38 MiB, one sequence
    row("qwen3next", 512, 1, true, "q8_0", 85721088), // 81.75 MiB, one sequence
    row("qwen3next", 512, 1, false, "f16", 91619328), // 87.38 MiB, one sequence: one stream either way
    row("qwen3next", 512, 1, false, "q8_0", 85721088), // 81.75 MiB, one sequence: one stream either way
    row("qwen3next", 512, 4, true, "f16", 328728576), // 313.50 MiB, unified
    row("qwen3next", 512, 4, true, "q8_0", 322830336), // 307.88 MiB, unified
    row("qwen3next", 512, 4, false, "f16", 341311488), // 325.50 MiB, split
    row("qwen3next", 512, 4, false, "q8_0", 329515008), // 314.25 MiB, split
    row("qwen3next", 4096, 1, true, "f16", 179699712), // 171.38 MiB, one sequence
    row("qwen3next", 4096, 1, true, "q8_0", 132513792), // 126.38 MiB, one sequence
    row("qwen3next", 4096, 1, false, "f16", 179699712), // 171.38 MiB, one sequence: one stream either way
    row("qwen3next", 4096, 1, false, "q8_0", 132513792), // 126.38 MiB, one sequence: one stream either way
    row("qwen3next", 4096, 4, true, "f16", 416808960), // 397.50 MiB, unified
    row("qwen3next", 4096, 4, true, "q8_0", 369623040), // 352.50 MiB, unified
    row("qwen3next", 4096, 4, false, "f16", 416808960), // 397.50 MiB, split
    row("qwen3next", 4096, 4, false, "q8_0", 369623040), // 352.50 MiB, split
    row("qwen3next", 32768, 1, true, "f16", 884342784), // 843.38 MiB, one sequence
    row("qwen3next", 32768, 1, true, "q8_0", 506855424), // 483.38 MiB, one sequence
    row("qwen3next", 32768, 1, false, "f16", 884342784), // 843.38 MiB, one sequence: one stream either way
    row("qwen3next", 32768, 1, false, "q8_0", 506855424), // 483.38 MiB, one sequence: one stream either way
    row("qwen3next", 32768, 4, true, "f16", 1121452032), // 1069.50 MiB, unified
    row("qwen3next", 32768, 4, true, "q8_0", 743964672), // 709.50 MiB, unified
    row("qwen3next", 32768, 4, false, "f16", 1121452032), // 1069.50 MiB, split
    row("qwen3next", 32768, 4, false, "q8_0", 743964672), // 709.50 MiB, split
    row("mamba2", 512, 1, true, "f16", 62255104), // 59.37 MiB, one sequence
    row("mamba2", 512, 1, true, "q8_0", 60289024), // 57.50 MiB, one sequence
    row("mamba2", 512, 1, false, "f16", 62255104), // 59.37 MiB, one sequence: one stream either way
    row("mamba2", 512, 1, false, "q8_0", 60289024), // 57.50 MiB, one sequence: one stream either way
    row("mamba2", 512, 4, true, "f16", 236437504), // 225.48 MiB, unified
    row("mamba2", 512, 4, true, "q8_0", 234471424), // 223.61 MiB, unified
    row("mamba2", 512, 4, false, "f16", 240631808), // 229.48 MiB, split
    row("mamba2", 512, 4, false, "q8_0", 236699648), // 225.73 MiB, split
    row("mamba2", 4096, 1, true, "f16", 91615232), // 87.37 MiB, one sequence
    row("mamba2", 4096, 1, true, "q8_0", 75886592), // 72.37 MiB, one sequence
    row("mamba2", 4096, 1, false, "f16", 91615232), // 87.37 MiB, one sequence: one stream either way
    row("mamba2", 4096, 1, false, "q8_0", 75886592), // 72.37 MiB, one sequence: one stream either way
    row("mamba2", 4096, 4, true, "f16", 265797632), // 253.48 MiB, unified
    row("mamba2", 4096, 4, true, "q8_0", 250068992), // 238.48 MiB, unified
    row("mamba2", 4096, 4, false, "f16", 265797632), // 253.48 MiB, split
    row("mamba2", 4096, 4, false, "q8_0", 250068992), // 238.48 MiB, split
    row("mamba2", 32768, 1, true, "f16", 326496256), // 311.37 MiB, one sequence
    row("mamba2", 32768, 1, true, "q8_0", 200667136), // 191.37 MiB, one sequence
    row("mamba2", 32768, 1, false, "f16", 326496256), // 311.37 MiB, one sequence: one stream either way
    row("mamba2", 32768, 1, false, "q8_0", 200667136), // 191.37 MiB, one sequence: one stream either way
    row("mamba2", 32768, 4, true, "f16", 500678656), // 477.48 MiB, unified
    row("mamba2", 32768, 4, true, "q8_0", 374849536), // 357.48 MiB, unified
    row("mamba2", 32768, 4, false, "f16", 500678656), // 477.48 MiB, split
    row("mamba2", 32768, 4, false, "q8_0", 374849536), // 357.48 MiB, split
];

#[test]
fn llama_cpp_kv_rules_on_every_architecture() {
    let mut failures = Vec::new();
    for r in ROWS {
        let kv: KvDtype = r.kv.parse().unwrap();
        let got = llama(
            &arch(r.arch),
            &LlamaParams::new(r.n_ctx, r.n_seq, r.unified, kv),
        )
        .bytes
        .get();
        if got != r.bytes {
            failures.push(format!(
                "{} n_ctx={} n_seq={} unified={} {}: got {got}, want {}",
                r.arch, r.n_ctx, r.n_seq, r.unified, r.kv, r.bytes
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(ROWS.len(), 248);
}

/// Exact examples (n_seq 1, f16 KV) read off llama.cpp's allocator.
#[test]
fn guide_exact_examples() {
    let f16 = KvDtype::F16;
    let one = |a: &str, n_ctx| llama(&arch(a), &LlamaParams::new(n_ctx, 1, false, f16));
    assert_eq!(one("llama", 4096).bytes.get(), 128 << 20); // Llama-3.2-1B @4096 = 128 MiB
    assert_eq!(one("qwen3", 4096).bytes.get(), 448 << 20); // Qwen3-0.6B @4096 = 448 MiB
    let g = one("gemma3", 4096); // gemma-3-1b @4096 = 38 MiB with 1024 SWA cells
    assert_eq!((g.bytes.get(), g.swa_cells), (38 << 20, 1024));
    // ... and 71 MiB with 4 unified slots (2560 SWA cells)
    let g4 = llama(&arch("gemma3"), &LlamaParams::new(4096, 4, true, f16));
    assert_eq!((g4.bytes.get(), g4.swa_cells), (71 << 20, 2560));
}

/// --swa-full gives the sliding layers the full cell count; ubatch enters the SWA plateau.
#[test]
fn swa_full_and_ubatch() {
    let a = arch("gemma3");
    let p = LlamaParams {
        swa_full: true,
        ..LlamaParams::new(4096, 1, false, KvDtype::F16)
    };
    assert_eq!(llama(&a, &p).bytes.get(), 26 * 4096 * 1024); // every layer 4096 cells × 1 KiB
    let p = LlamaParams {
        n_ubatch: 1024,
        ..LlamaParams::new(8192, 1, false, KvDtype::F16)
    };
    assert_eq!(llama(&a, &p).swa_cells, 1536); // pad(512 + 1024, 256)
}

/// The pinned architectures are those of the catalog entries they stand for.
#[test]
fn pinned_architectures_match_catalog() {
    for (name, id) in [
        ("llama", "meta-llama/Llama-3.2-1B-Instruct"),
        ("qwen3", "Qwen/Qwen3-0.6B"),
        ("gemma3", "google/gemma-3-1b-it"),
        ("gemma3n", "google/gemma-3n-E2B-it"),
        ("qwen3moe", "Qwen/Qwen3-30B-A3B"),
        ("llama4", "meta-llama/Llama-4-Scout-17B-16E-Instruct"),
    ] {
        let Some((_, v)) = catalog().variant(id) else {
            panic!("{id} missing from the catalog")
        };
        let (want, got) = (arch(name), &v.arch);
        assert_eq!(
            (
                want.layers,
                want.kv_heads,
                want.head_dim,
                want.swa,
                want.kv_owning_layers()
            ),
            (
                got.layers,
                got.kv_heads,
                got.head_dim,
                got.swa,
                got.kv_owning_layers()
            ),
            "{id}"
        );
    }
}

/// vLLM and transformers on the new kinds: the latent is one row that tensor parallelism
/// replicates on every card; vLLM's indexer cache is FP8 plus a 4-byte scale per 128 values;
/// the recurrent state is kept in the model's dtype (2 bytes) and split like the heads.
#[test]
fn latent_and_recurrent_caches_in_vllm_and_transformers() {
    use fitcard_estimator::terms::kv::{dense, paged, state_bytes};
    let auto = KvDtype::Auto;
    let ds = arch("deepseek3");
    let one = paged(&ds, 4096, 1, auto, 1, 0).get();
    assert_eq!(one, 4096 * 61 * 576 * 2);
    assert_eq!(
        paged(&ds, 4096, 1, auto, 8, 0).get(),
        one,
        "replicated, not split"
    );
    let ds32 = arch("deepseek32");
    assert_eq!(
        paged(&ds32, 4096, 1, auto, 1, 0).get(),
        4096 * 61 * (576 * 2 + 128 + 4)
    );
    let qn = arch("qwen3next");
    let state = 36 * 2 * (3 * (2 * 16 * 128 + 32 * 128) + 32 * 128 * 128);
    assert_eq!(state_bytes(&qn, 2), state);
    assert_eq!(
        dense(&qn, 1000, 2, auto).get(),
        2 * (1000 * 12 * 2 * 2 * 256 * 2 + state)
    );
    assert_eq!(
        paged(&qn, 1000, 1, auto, 2, 0).get(),
        1008 * 12 * 2 * 256 * 2 + state / 2
    );
    assert_eq!(state_bytes(&arch("llama"), 4), 0);
}

/// Granite 4.0-H from the catalog (Mamba-2 hybrids): llama.cpp keeps KV only on the 4 attention
/// layers and, per sequence, an F32 state on the 36 Mamba-2 layers of `r_s + s_s` values,
/// `r_s = (d_conv − 1)·(d_inner + 2·n_group·d_state)` and `s_s = d_state·d_inner`
/// (src/llama-hparams.cpp `n_embd_r`/`n_embd_s`, src/llama-memory-recurrent.cpp); vLLM's Mamba-2
/// state holds the same values (conv `(d_conv − 1) × (d_inner + 2·n_groups·d_state)`, temporal
/// `n_heads × head_dim × d_state`, vllm/model_executor/layers/mamba/mamba_utils.py) in the
/// model's dtype. Expected bytes are written out from those formulas, not from the code under test.
#[test]
fn granite_4_0_h_state_and_kv_match_llama_cpp_and_vllm() {
    use fitcard_estimator::terms::kv::{paged, state_bytes};
    let tiny = &catalog()
        .variant("ibm-granite/granite-4.0-h-tiny")
        .expect("granite-4.0-h-tiny in the catalog")
        .1
        .arch;
    let small = &catalog()
        .variant("ibm-granite/granite-4.0-h-small")
        .expect("granite-4.0-h-small in the catalog")
        .1
        .arch;
    // H-Tiny: d_inner 3072 (48 heads × 64), one group, d_state 128, d_conv 4; attention 4 × 128 × 4 heads.
    let tiny_state = 36 * ((4 - 1) * (3072 + 2 * 128) + 128 * 3072);
    assert_eq!(state_bytes(tiny, 4), tiny_state * 4);
    // H-Small: d_inner 8192 (128 heads × 64).
    let small_state = 36 * ((4 - 1) * (8192 + 2 * 128) + 128 * 8192);
    assert_eq!(state_bytes(small, 4), small_state * 4);
    // (n_ctx, n_seq, unified, f16 bytes, q8_0 bytes) for H-Tiny.
    let rows: [(u64, u64, bool, u64, u64); 8] = [
        (4096, 1, true, 91_615_232, 75_886_592),
        (4096, 4, true, 265_797_632, 250_068_992),
        (4096, 4, false, 265_797_632, 250_068_992),
        (32768, 1, false, 326_496_256, 200_667_136),
        (32768, 4, true, 500_678_656, 374_849_536),
        (131072, 1, true, 1_131_802_624, 628_486_144),
        (131072, 4, true, 1_305_985_024, 802_668_544),
        (131072, 4, false, 1_305_985_024, 802_668_544),
    ];
    for (n_ctx, n_seq, unified, f16, q8) in rows {
        for (kv, want) in [(KvDtype::F16, f16), ("q8_0".parse().unwrap(), q8)] {
            let got = llama(tiny, &LlamaParams::new(n_ctx, n_seq, unified, kv));
            assert_eq!(
                (got.bytes.get(), got.global_layers, got.state.get()),
                (want, 4, n_seq * tiny_state * 4),
                "h-tiny n_ctx={n_ctx} n_seq={n_seq} unified={unified} {kv:?}"
            );
        }
    }
    // H-Small at 4,096 tokens, one sequence: 4 layers × 4096 cells × (K + V of 8 × 128 f16) + state.
    let one = llama(small, &LlamaParams::new(4096, 1, false, KvDtype::F16));
    assert_eq!(one.bytes.get(), 4 * 4096 * 2 * 1024 * 2 + small_state * 4);
    // vLLM, one card: 16-token blocks on the attention layers + the state in BF16.
    assert_eq!(
        paged(small, 4096, 1, KvDtype::Auto, 1, 0).get(),
        4096 * 4 * 2 * 1024 * 2 + small_state * 2
    );
}

/// Gemma 4 from the catalog: full-attention layers of their own shape. llama.cpp sizes each
/// layer's K and V rows as `n_head_kv(il) × n_embd_head_k(il)`, the head size
/// `is_swa(il) ? key_length_swa : key_length` (src/llama-hparams.cpp, src/models/gemma4.cpp), and
/// keeps a V row where keys double as values (`Vcur = Kcur` in src/models/gemma4-iswa.cpp;
/// `has_v = !is_mla` in src/llama-kv-cache.cpp). Cells as for every SWA model above; E2B/E4B
/// cache only the layers before the KV-shared ones. Expected bytes are written out from those
/// rules (31B: 10 global layers × 4 heads × 512 and 50 sliding × 16 × 256, window 1024;
/// 26B-A4B: 5 × 2 × 512 and 25 × 8 × 256; E4B: of the first 24 layers, 4 × 2 × 512 and
/// 20 × 2 × 256, window 512; E2B: of the first 15, 3 × 1 × 512 and 12 × 1 × 256).
#[test]
fn gemma_4_global_layers_of_their_own_shape_match_llama_cpp() {
    use fitcard_estimator::terms::kv::{dense, paged};
    // (variant, n_ctx, n_seq, unified, f16 bytes, q8_0 bytes)
    let rows: [(&str, u64, u64, bool, u64, u64); 20] = [
        ("31B", 4096, 1, true, 1_593_835_520, 846_725_120),
        ("31B", 32768, 1, true, 3_942_645_760, 2_094_530_560),
        ("31B", 131072, 4, false, 15_770_583_040, 8_378_122_240),
        ("31B", 131072, 4, true, 14_512_291_840, 7_709_655_040),
        ("31B", 262144, 1, true, 22_733_127_680, 12_076_974_080),
        ("26B-A4B", 4096, 1, true, 398_458_880, 211_681_280),
        ("26B-A4B", 32768, 1, true, 985_661_440, 523_632_640),
        ("26B-A4B", 131072, 4, false, 3_942_645_760, 2_094_530_560),
        ("26B-A4B", 131072, 4, true, 3_628_072_960, 1_927_413_760),
        ("26B-A4B", 262144, 1, true, 5_683_281_920, 3_019_243_520),
        ("E4B", 4096, 1, true, 109_051_904, 57_933_824),
        ("E4B", 32768, 1, true, 578_813_952, 307_494_912),
        ("E4B", 131072, 4, false, 2_315_255_808, 1_229_979_648),
        ("E4B", 131072, 4, true, 2_252_341_248, 1_196_556_288),
        ("E4B", 262144, 1, true, 4_336_910_336, 2_303_983_616),
        ("E2B", 4096, 1, true, 37_748_736, 20_054_016),
        ("E2B", 32768, 1, true, 213_909_504, 113_639_424),
        ("E2B", 131072, 4, false, 855_638_016, 454_557_696),
        ("E2B", 131072, 4, true, 836_763_648, 444_530_688),
        ("E2B", 262144, 1, true, 1_623_195_648, 862_322_688),
    ];
    let arch_of = |v: &str| {
        &catalog()
            .variant(&format!("google/gemma-4-{v}-it"))
            .expect("gemma-4 in the catalog")
            .1
            .arch
    };
    for (v, n_ctx, n_seq, unified, f16, q8) in rows {
        for (kv, want) in [(KvDtype::F16, f16), ("q8_0".parse().unwrap(), q8)] {
            let got = llama(arch_of(v), &LlamaParams::new(n_ctx, n_seq, unified, kv));
            assert_eq!(
                got.bytes.get(),
                want,
                "{v} n_ctx={n_ctx} n_seq={n_seq} unified={unified} {kv:?}"
            );
        }
    }
    // vLLM (16-token blocks; sliding layers hold window + 16 tokens) and transformers (exact
    // tokens, sliding layers capped at the window) cache each layer kind in its own shape too.
    let big = arch_of("31B");
    assert_eq!(
        paged(big, 32768, 1, KvDtype::Auto, 1, 0).get(),
        32768 * 10 * 8192 + 1040 * 50 * 16384
    );
    // Tensor parallelism over 4 cards: 1 global and 4 sliding KV heads on each.
    assert_eq!(
        paged(big, 32768, 1, KvDtype::Auto, 4, 0).get(),
        32768 * 10 * 2048 + 1040 * 50 * 4096
    );
    assert_eq!(
        dense(big, 32768, 2, KvDtype::Auto).get(),
        2 * (32768 * 10 * 8192 + 1024 * 50 * 16384)
    );
}

/// GLM-5 (`glm_moe_dsa`) carries DeepSeek-V3.2's indexer, but llama.cpp caches its key row for
/// DeepSeek-V3.2 alone (`llama_kv_cache_dsa`, made for LLM_ARCH_DEEPSEEK32 in
/// `llama_model::create_memory`; glm-dsa builds the deepseek2 graph over the plain latent
/// cache): a GLM-5 cell is the latent and its rotary part only.
#[test]
fn glm_5s_cells_hold_no_indexer_row_in_llama_cpp() {
    use fitcard_estimator::terms::kv::cell_bytes;
    let cell = |id: &str| {
        let (_, v) = catalog().variant(id).unwrap();
        cell_bytes(&v.arch, KvDtype::F16, KvDtype::F16, 1)
    };
    assert_eq!(cell("zai-org/GLM-5"), 2 * (512 + 64));
    assert_eq!(cell("deepseek-ai/DeepSeek-V3.2"), 2 * (512 + 64 + 128));
    // vLLM's paged cache keeps the indexer's FP8 keys for GLM-5 too (its deepseek_v2 model
    // runs the indexer).
    let (_, glm) = catalog().variant("zai-org/GLM-5").unwrap();
    let mut plain = glm.arch.clone();
    plain.mla.as_mut().unwrap().index_head_dim = None;
    let paged = |a: &Arch| fitcard_estimator::terms::kv::paged(a, 4096, 1, KvDtype::F16, 1, 4096).0;
    assert!(paged(&glm.arch) > paged(&plain));
}
