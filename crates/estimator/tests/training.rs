//! Train mode (Unsloth Studio's `VRAM_ESTIMATION.md`, github.com/unslothai/unsloth) as reviewed tables: one commented row per
//! case. Architectures are built here from published configs, so Unsloth's tables do not depend on
//! the catalog.

use fitcard_estimator::catalog::Arch;
use fitcard_estimator::estimate::CheckName;
use fitcard_estimator::inputs::Key;
use fitcard_estimator::inputs::{
    GradCkpt, Inputs, Method, Mode, Optim, TargetModule, TargetSet, TrainInputs, Trainer,
};
use fitcard_estimator::train::{self, estimate_arch, estimate_arch_with, Floors};
use fitcard_estimator::units::{Bytes, GIB};
use fitcard_estimator::{GpuChoice, Verdict};

// ---------------------------------------------------------------------------------------------
// Architectures (config.json facts the formulas use).
// ---------------------------------------------------------------------------------------------

#[allow(clippy::too_many_arguments)]
fn arch(
    hidden: u64,
    layers: u32,
    heads: u32,
    kv_heads: u32,
    intermediate: u64,
    vocab: u64,
    tied: bool,
    source: &str,
) -> Arch {
    Arch {
        model_type: "llama".into(),
        hidden,
        layers,
        heads,
        kv_heads,
        head_dim: hidden / u64::from(heads),
        intermediate,
        moe_intermediate: None,
        experts: 0,
        experts_active: 0,
        vocab,
        tied_embeddings: tied,
        max_ctx: 131072,
        native_ctx: vec![],
        swa: None,
        kv_layers: None,
        ple: None,
        yarn: None,
        blocks: None,
        rank_labels: None,
        global_override: None,
        global_attn: None,
        mla: None,
        recurrent: None,
        moe: None,
        source: source.into(),
    }
}

/// Qwen2.5-0.5B: 896 / 24 L / 14 H / 2 KV / 4864 / vocab 151936 / tied. Copies of its HF
/// config.json in public code (code-index ids 3034731578, 71045005072).
fn qwen25_05b() -> Arch {
    arch(
        896,
        24,
        14,
        2,
        4864,
        151936,
        true,
        "Qwen/Qwen2.5-0.5B config.json",
    )
}
/// Llama-3.2-1B: 2048 / 16 L / 32 H / 8 KV / 8192 / 128256 / tied (https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json,
/// mlc-llm preset `llama3_2_1b`).
fn llama32_1b() -> Arch {
    arch(2048, 16, 32, 8, 8192, 128256, true, "models.json")
}
/// Llama-3.2-3B: 3072 / 28 L / 24 H / 8 KV / 8192 / 128256 / tied (models.json).
fn llama32_3b() -> Arch {
    arch(3072, 28, 24, 8, 8192, 128256, true, "models.json")
}
/// Llama-3.1-8B: 4096 / 32 L / 32 H / 8 KV / 14336 / 128256 / untied (models.json).
fn llama31_8b() -> Arch {
    arch(4096, 32, 32, 8, 14336, 128256, false, "models.json")
}
/// Llama-3.1-70B (= Llama-3.3-70B architecture): 8192 / 80 L / 64 H / 8 KV / 28672 / 128256 /
/// untied (models.json).
fn llama31_70b() -> Arch {
    arch(8192, 80, 64, 8, 28672, 128256, false, "models.json")
}
/// Qwen2.5-32B: 5120 / 64 L / 40 H / 8 KV / 27648 / vocab 152064 / untied (config copies in
/// public code, e.g. code-index id 69304953106). The document's "32B" row is this model: Qwen3-32B
/// (25600 ffn, 64 heads) gives 56.8 GiB of weights, not the printed 61.0.
fn qwen25_32b() -> Arch {
    arch(
        5120,
        64,
        40,
        8,
        27648,
        152064,
        false,
        "Qwen/Qwen2.5-32B config.json",
    )
}
/// Qwen2.5-72B: 8192 / 80 L / 64 H / 8 KV / 29568 / vocab 152064 / untied (config copies, e.g.
/// code-index ids 67101837756, 56256934914).
fn qwen25_72b() -> Arch {
    arch(
        8192,
        80,
        64,
        8,
        29568,
        152064,
        false,
        "Qwen/Qwen2.5-72B config.json",
    )
}
/// Llama-2-7B: 4096 / 32 L / 32 H / 32 KV (MHA) / vocab 32000 / untied (the measurement row's
/// note); intermediate 11008 from meta-llama/Llama-2-7b-hf config.json.
fn llama2_7b() -> Arch {
    arch(
        4096,
        32,
        32,
        32,
        11008,
        32000,
        false,
        "meta-llama/Llama-2-7b-hf config.json",
    )
}
/// Qwen3-30B-A3B: 2048 / 48 L / 32 H / 4 KV / head_dim 128 / 128 experts × 768 (8 active) /
/// vocab 151936 / untied (models.json).
fn qwen3_30b_a3b() -> Arch {
    Arch {
        model_type: "qwen3_moe".into(),
        head_dim: 128,
        moe_intermediate: Some(768),
        experts: 128,
        experts_active: 8,
        ..arch(2048, 48, 32, 4, 6144, 151936, false, "models.json")
    }
}

fn train(method: Method, rank: u32, bsz: u32, seq: u32, gc: GradCkpt, optim: Optim) -> TrainInputs {
    TrainInputs {
        method,
        rank,
        bsz,
        seq,
        gc,
        optim,
        targets: TargetSet::ALL,
        free: vec![],
        pick: vec![],
        trainer: Trainer::UnslothFormula,
    }
}

fn gib(b: Bytes) -> f64 {
    b.gib()
}

/// (row, arch, method, printed cells).
type RefRow = (&'static str, fn() -> Arch, Method, [&'static str; 7]);
/// (row, arch, method, printed total, total with 15 % floors).
type SeedFloorRow = (
    &'static str,
    fn() -> Arch,
    Method,
    &'static str,
    &'static str,
);
/// (knob, inputs, what must hold).
type KnobCase<'a> = (
    &'static str,
    TrainInputs,
    &'a dyn Fn(&train::Breakdown) -> bool,
);
/// (case, free × need, pick, fits, picked, device_map).
type SelRow = (
    &'static str,
    &'static [f64],
    &'static [u32],
    bool,
    &'static [u32],
    &'static str,
);

/// `{:.1}` of a byte count in GiB (Rust rounds exact ties to even, as Python's `round` did for
/// the document's table: 32B LoRA = exactly 0.25 GiB prints 0.2).
fn p1(b: Bytes) -> String {
    format!("{:.1}", b.gib())
}

// ---------------------------------------------------------------------------------------------
// Seed reference table: bsz 2, seq 2048, rank 16, GC unsloth, adamw_8bit, all seven targets.
// ---------------------------------------------------------------------------------------------

/// (row, arch, method, [weights, lora, optim, grad, act, cuda, total]) exactly as printed.
/// Reproduced with the 20 % floors the table was printed with ([`Floors::TABLE`]); see
/// `reference_table_with_seed_floors` for what the 15 % of the document's text gives.
#[test]
fn reference_table() {
    use Method::*;
    #[rustfmt::skip]
    let rows: [RefRow; 8] = [
        // 0.5B = Qwen2.5-0.5B (4.62e8-param layers + tied 151936×896 embedding)
        ("0.5B QLoRA",   qwen25_05b, Qlora, ["0.5", "0.0", "0.0", "0.1", "0.1", "1.4", "2.1"]),
        // 1B = Llama-3.2-1B
        ("1B QLoRA",     llama32_1b, Qlora, ["1.1", "0.0", "0.0", "0.2", "0.2", "1.4", "2.9"]),
        // 3B = Llama-3.2-3B (grad/act 0.475 = 0.20 × 2.375)
        ("3B QLoRA",     llama32_3b, Qlora, ["2.4", "0.0", "0.1", "0.5", "0.5", "1.4", "4.9"]),
        // 8B = Llama-3.1-8B
        ("8B QLoRA",     llama31_8b, Qlora, ["6.0", "0.1", "0.2", "1.2", "1.2", "1.4", "10.1"]),
        ("8B LoRA fp16", llama31_8b, Lora,  ["15.0", "0.1", "0.2", "3.0", "3.0", "1.4", "22.6"]),
        // full FT: LoRA "—" (zero), optimizer 4 B × 8.03e9, gradients computed (above the floor)
        ("8B Full FT",   llama31_8b, Full,  ["15.0", "—", "29.9", "15.0", "3.0", "1.4", "64.2"]),
        // 32B = Qwen2.5-32B (LoRA params = 2^27 exactly → 0.25 GiB, printed 0.2)
        ("32B LoRA fp16", qwen25_32b, Lora, ["61.0", "0.2", "0.5", "12.2", "12.2", "1.4", "87.6"]),
        // 72B = Qwen2.5-72B
        ("72B QLoRA",    qwen25_72b, Qlora, ["45.5", "0.4", "0.8", "9.1", "9.1", "1.4", "66.3"]),
    ];
    for (row, a, method, want) in rows {
        let t = train(method, 16, 2, 2048, GradCkpt::Unsloth, Optim::Adamw8bit);
        let b = estimate_arch_with(&a(), &t, Floors::TABLE);
        let lora = if method == Full {
            assert_eq!(b.lora, Bytes::ZERO, "{row}: full FT has no adapters");
            "—".to_string()
        } else {
            p1(b.lora)
        };
        let got = [
            p1(b.weights),
            lora,
            p1(b.optimizer),
            p1(b.gradients),
            p1(b.activations),
            p1(b.cuda_overhead),
            p1(b.total()),
        ];
        assert_eq!(got, want.map(String::from), "{row}");
    }
}

/// The same rows with the document's stated 15 % floors (what the product uses): the floor-bound
/// cells drop to 0.15/0.20 of the printed value; the two rows not bound by a floor keep their
/// totals. Documents the table/text inconsistency rather than hiding it.
#[test]
fn reference_table_with_seed_floors() {
    use Method::*;
    #[rustfmt::skip]
    let rows: [SeedFloorRow; 8] = [
        // (row, arch, method, total printed by Unsloth, total with 15 % floors)
        ("0.5B QLoRA",    qwen25_05b, Qlora, "2.1",  "2.1"),   // floors below 0.05 GiB either way
        ("1B QLoRA",      llama32_1b, Qlora, "2.9",  "2.9"),   // 2.94 → 2.86
        ("3B QLoRA",      llama32_3b, Qlora, "4.9",  "4.6"),
        ("8B QLoRA",      llama31_8b, Qlora, "10.1", "9.5"),
        ("8B LoRA fp16",  llama31_8b, Lora,  "22.6", "21.1"),
        ("8B Full FT",    llama31_8b, Full,  "64.2", "63.5"),  // only the activation floor binds
        ("32B LoRA fp16", qwen25_32b, Lora,  "87.6", "81.5"),
        ("72B QLoRA",     qwen25_72b, Qlora, "66.3", "61.7"),
    ];
    for (row, a, method, printed, seed) in rows {
        let t = train(method, 16, 2, 2048, GradCkpt::Unsloth, Optim::Adamw8bit);
        assert_eq!(
            p1(estimate_arch_with(&a(), &t, Floors::TABLE).total()),
            printed,
            "{row}"
        );
        let b = estimate_arch(&a(), &t);
        assert_eq!(b.floors, Floors::SEED);
        assert_eq!(p1(b.total()), seed, "{row}");
    }
}

// ---------------------------------------------------------------------------------------------
// Seed E2E validation: Llama-3.2-1B, B200 emulating 24 GB, GC unsloth, rank 16, all targets.
// ---------------------------------------------------------------------------------------------

/// The E2E numbers "predate the 15 % floors", so they are compared without floors
/// ([`Floors::NONE`]); with floors the LoRA rows would sit 7–16 % above the measurement. Compared
/// with the *Actual (nvsmi)* column, tolerance ±4 %, except one documented miss.
#[test]
fn e2e_validation() {
    use Method::*;
    #[rustfmt::skip]
    let rows = [
        // (config, method, bsz, seq, optim, seed estimate, actual, seed error %, our error % ±0.3)
        ("QLoRA bsz=2 seq=512",  Qlora, 2, 512,  Optim::Adamw8bit,  2.55, 2.65, -3.7, -2.4),
        ("QLoRA bsz=2 seq=2048", Qlora, 2, 2048, Optim::Adamw8bit,  2.60, 2.65, -1.8, 2.8),
        // MISS (+9.8 %): our activations 0.37 GiB (1 layer × S·B) vs a flat measured 2.65 GiB.
        // The document's own estimates rise only 0.05 GiB per doubling of S·B (≈ 1/4 of the activation formula's per-layer
        // formula) — they were printed by an earlier activation rule; the measurement does not
        // move at all, i.e. Unsloth's offloaded checkpointing keeps less than one layer's
        // activations resident at this size. Not tuned.
        ("QLoRA bsz=4 seq=2048", Qlora, 4, 2048, Optim::Adamw8bit,  2.65, 2.65, 0.0, 9.8),
        ("LoRA fp16 bsz=2",      Lora,  2, 2048, Optim::Adamw8bit,  3.84, 3.88, -1.0, 2.3),
        // full FT reproduces the document's estimate to the printed 0.01 (10.886 / 13.188 GiB)
        ("Full FT adamw_8bit",   Full,  2, 2048, Optim::Adamw8bit,  10.89, 10.80, 0.8, 0.8),
        ("Full FT adamw_torch",  Full,  2, 2048, Optim::AdamwTorch, 13.19, 12.93, 2.0, 2.0),
    ];
    for (cfg, method, bsz, seq, optim, seed_est, actual, seed_err, our_err) in rows {
        let t = train(method, 16, bsz, seq, GradCkpt::Unsloth, optim);
        let ours = gib(estimate_arch_with(&llama32_1b(), &t, Floors::NONE).total());
        let err = (ours - actual) / actual * 100.0;
        let seed_err_now = (seed_est - actual) / actual * 100.0;
        assert!(
            (seed_err_now - seed_err).abs() < 0.1,
            "{cfg}: seed error {seed_err_now:.1}"
        );
        assert!(
            (err - our_err).abs() < 0.3,
            "{cfg}: our error {err:.2} % (estimate {ours:.3})"
        );
        if our_err.abs() < 4.0 {
            assert!(err.abs() <= 4.0, "{cfg}: {err:.2} % outside ±4 %");
        } else {
            assert!(
                err > 4.0,
                "{cfg}: the documented miss changed sign: {err:.2} %"
            );
        }
        // Full fine-tuning has no floor to differ by: the document's number exactly.
        assert!(
            method != Full || (ours - seed_est).abs() < 0.005,
            "{cfg}: {ours:.3} vs seed {seed_est}"
        );
    }
}

/// Why floors are off for the E2E comparison: with the 15 % floors the QLoRA/LoRA rows overshoot
/// the measurement by more than 4 % (gradient floor 0.16 GiB vs 0.02 computed; LoRA 16-bit
/// gradient/activation floors 0.35 GiB each).
#[test]
fn e2e_with_floors_overshoots() {
    use Method::*;
    #[rustfmt::skip]
    let rows = [
        // (config, method, bsz, seq, actual, error % with floors ±0.3)
        ("QLoRA bsz=2 seq=512", Qlora, 2, 512,  2.65, 7.0),
        ("LoRA fp16 bsz=2",     Lora,  2, 2048, 3.88, 14.8),
    ];
    for (cfg, method, bsz, seq, actual, want) in rows {
        let t = train(method, 16, bsz, seq, GradCkpt::Unsloth, Optim::Adamw8bit);
        let ours = gib(estimate_arch(&llama32_1b(), &t).total());
        let err = (ours - actual) / actual * 100.0;
        assert!((err - want).abs() < 0.3, "{cfg}: {err:.2} %");
    }
}

// ---------------------------------------------------------------------------------------------
// measurements-public.json, category "training". Tiers and peaks are read as GiB (the vendors'
// "GB" on 2^30 cards; LLaMA-Factory prints torch's GiB). Settings not stated → defaults:
// adamw_8bit; "unsloth (offloaded)" → GC unsloth; HF / LLaMA-Factory GC on → GC true.
// ---------------------------------------------------------------------------------------------

/// Estimate ÷ measured memory (or ÷ the VRAM tier for "max context that fits" / OOM rows).
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Agrees: |ratio − 1| ≤ tol.
    Near(f64),
    /// Documented miss or documented OOM agreement: ratio in [lo, hi], above 1.
    Above(f64, f64),
    /// Documented miss: ratio in [lo, hi], below 1.
    Below(f64, f64),
}

#[test]
fn measurements_training() {
    use Expect::*;
    use GradCkpt::{True as Hf, Unsloth as Uns};
    use Method::*;
    let q = |r, b, s, gc| train(Qlora, r, b, s, gc, Optim::Adamw8bit);
    #[rustfmt::skip]
    let rows: Vec<(&str, Arch, TrainInputs, f64, Expect)> = vec![
        // Unsloth README, Llama-3.1-8B QLoRA r32 B1, longest context that fits a tier. The
        // published contexts are exactly linear (4719 tokens per GB ≈ 222 KiB/token); the activation formula keeps one
        // layer, 85 KiB/token (Unsloth's offloaded checkpoints sit in host RAM, correctly absent).
        // MISSING: the backward of the recomputed layer (gate/up/act outputs and their gradients,
        // ~4–6 MLP-wide tensors vs the 2 counted) and chunked logits/cross-entropy buffers — a
        // seq-length-dependent term; the undershoot grows with S.
        // 8 GB: OVER — the 15 % floors (gradients 0.90 vs 0.16 computed) + 1.4 GiB fixed overhead;
        // without floors 8.29 GiB, +3.6 %.
        ("TR-UNS-L8B-8",  llama31_8b(), q(32, 1, 2972, Uns),   8.0,  Above(1.13, 1.18)),
        ("TR-UNS-L8B-12", llama31_8b(), q(32, 1, 21848, Uns),  12.0, Below(0.85, 0.91)),
        ("TR-UNS-L8B-16", llama31_8b(), q(32, 1, 40724, Uns),  16.0, Below(0.73, 0.79)),
        ("TR-UNS-L8B-24", llama31_8b(), q(32, 1, 78475, Uns),  24.0, Below(0.60, 0.66)),
        ("TR-UNS-L8B-40", llama31_8b(), q(32, 1, 153977, Uns), 40.0, Below(0.50, 0.56)),
        ("TR-UNS-L8B-48", llama31_8b(), q(32, 1, 191728, Uns), 48.0, Below(0.48, 0.54)),
        ("TR-UNS-L8B-80", llama31_8b(), q(32, 1, 342733, Uns), 80.0, Below(0.43, 0.49)),
        // HF + FA2 baseline, same table. 8 GB: OOM at any length — AGREES: the estimate at S = 1
        // is already over 8 GiB (9.24; 8.05 without floors).
        ("TR-HF-L8B-8",   llama31_8b(), q(32, 1, 1, Hf),       8.0,  Above(1.13, 1.18)),
        // MISSING (HF): the L per-layer checkpoints stay on the GPU (L·H·2 B = 256 KiB/token) and
        // the logits/cross-entropy are not chunked (vocab 128256 in fp32: ≥ 0.5 MiB/token per
        // copy). Measured slope ≈ 2.5 MiB/token vs the formula's 85 KiB.
        ("TR-HF-L8B-12",  llama31_8b(), q(32, 1, 932, Hf),     12.0, Below(0.74, 0.80)),
        ("TR-HF-L8B-16",  llama31_8b(), q(32, 1, 2551, Hf),    16.0, Below(0.55, 0.61)),
        ("TR-HF-L8B-24",  llama31_8b(), q(32, 1, 5789, Hf),    24.0, Below(0.36, 0.42)),
        ("TR-HF-L8B-40",  llama31_8b(), q(32, 1, 12264, Hf),   40.0, Below(0.22, 0.27)),
        ("TR-HF-L8B-48",  llama31_8b(), q(32, 1, 15502, Hf),   48.0, Below(0.18, 0.24)),
        ("TR-HF-L8B-80",  llama31_8b(), q(32, 1, 28454, Hf),   80.0, Below(0.11, 0.17)),
        // Llama-3.3-70B (Llama-3.1-70B architecture), A100 80GB. 48 GB: OVER — gradient floor
        // 6.56 GiB (0.15 × 43.8) vs 0.77 computed, activation floor 3.28; without floors +4.5 %.
        ("TR-UNS-L70B-48", llama31_70b(), q(32, 1, 12106, Uns), 48.0, Above(1.16, 1.22)),
        // 80 GB: UNDER — the same missing seq-length term as the 8B rows.
        ("TR-UNS-L70B-80", llama31_70b(), q(32, 1, 89389, Uns), 80.0, Below(0.82, 0.88)),
        // HF 48 GB: OOM — AGREES (57.3 GiB at S = 1).
        ("TR-HF-L70B-48",  llama31_70b(), q(32, 1, 1, Hf),      48.0, Above(1.16, 1.22)),
        // HF 80 GB at 6916: UNDER — on-GPU checkpoints + unchunked logits, as above.
        ("TR-HF-L70B-80",  llama31_70b(), q(32, 1, 6916, Hf),   80.0, Below(0.69, 0.75)),
        // "Qwen3-30B-A3B fits on 17.5GB", settings unknown (defaults: r16 B2 S2048). OVER: the
        // weights alone are 18.3 GiB — the weights formula charges 5 bits per quantized parameter (factor 3.2;
        // NF4 is 4.5 bits, ≈4.1 with double quantization) over all 128 experts; the LoRA formula puts LoRA on
        // every expert (1.6 GiB + 3.1 GiB optimizer); the floors add 5.5 GiB. The claim likely
        // adapts attention only: still 25.3 GiB (asserted below).
        ("TR-UNS-Q3-30B-A3B-17.5GB", qwen3_30b_a3b(), q(16, 2, 2048, Uns), 17.5, Above(1.67, 1.74)),
        // LLaMA-Factory wiki, Llama-2-7B QLoRA r8 B1, A100 40GB, peak "GB, rounded" (±0.5).
        // Short contexts: OVER — floors (gradients 0.64 vs 0.01 computed) and the fixed 1.4 GiB
        // (the wiki's peak is an allocator figure without the CUDA context). Long contexts: UNDER
        // — Unsloth: the missing backward/logits term (measured slope ≈ 290–370 KiB/token vs 85);
        // FA2: plus the on-GPU checkpoints (L·H·2 = 256 KiB/token) and unchunked logits.
        ("TR-LF-L2-7B-QLORA-UNS-1024",   llama2_7b(), q(8, 1, 1024, Uns),   5.0,  Above(1.31, 1.38)),
        ("TR-LF-L2-7B-QLORA-FA2-1024",   llama2_7b(), q(8, 1, 1024, Hf),    6.0,  Above(1.09, 1.15)),
        ("TR-LF-L2-7B-QLORA-UNS-2048",   llama2_7b(), q(8, 1, 2048, Uns),   6.0,  Above(1.09, 1.15)),
        // AGREES within ±4 % (the measured value's rounding alone is ±7 %).
        ("TR-LF-L2-7B-QLORA-FA2-2048",   llama2_7b(), q(8, 1, 2048, Hf),    7.0,  Near(0.04)),
        ("TR-LF-L2-7B-QLORA-UNS-4096",   llama2_7b(), q(8, 1, 4096, Uns),   7.0,  Near(0.04)),
        ("TR-LF-L2-7B-QLORA-FA2-4096",   llama2_7b(), q(8, 1, 4096, Hf),    9.0,  Below(0.72, 0.78)),
        ("TR-LF-L2-7B-QLORA-UNS-8192",   llama2_7b(), q(8, 1, 8192, Uns),   8.0,  Below(0.85, 0.91)),
        ("TR-LF-L2-7B-QLORA-FA2-8192",   llama2_7b(), q(8, 1, 8192, Hf),    12.0, Below(0.56, 0.62)),
        ("TR-LF-L2-7B-QLORA-UNS-16384",  llama2_7b(), q(8, 1, 16384, Uns),  10.0, Below(0.74, 0.80)),
        ("TR-LF-L2-7B-QLORA-FA2-16384",  llama2_7b(), q(8, 1, 16384, Hf),   19.0, Below(0.38, 0.44)),
        ("TR-LF-L2-7B-QLORA-UNS-32768",  llama2_7b(), q(8, 1, 32768, Uns),  16.0, Below(0.53, 0.60)),
        ("TR-LF-L2-7B-QLORA-FA2-32768",  llama2_7b(), q(8, 1, 32768, Hf),   32.0, Below(0.25, 0.31)),
        ("TR-LF-L2-7B-QLORA-UNS-65536",  llama2_7b(), q(8, 1, 65536, Uns),  25.0, Below(0.44, 0.50)),
        // FA2 65536 and 100000: OOM on 40 GB — MISSED: the formula says 11.6 / 14.4 GiB fits.
        ("TR-LF-L2-7B-QLORA-FA2-65536",  llama2_7b(), q(8, 1, 65536, Hf),   40.0, Below(0.26, 0.32)),
        ("TR-LF-L2-7B-QLORA-UNS-100000", llama2_7b(), q(8, 1, 100000, Uns), 37.0, Below(0.36, 0.42)),
        ("TR-LF-L2-7B-QLORA-FA2-100000", llama2_7b(), q(8, 1, 100000, Hf),  40.0, Below(0.33, 0.39)),
        // Same wiki, B4 × 1024, r8 (16-bit LoRA and QLoRA). HF 16-bit: OVER by the 16-bit floors
        // (gradients 1.88, activations 3.77 GiB vs 0.02 / 0.39 computed); without floors 14.4 GiB,
        // i.e. UNDER — eager attention scores (B·heads·S² per layer) are not in the formula.
        ("TR-LF-L2-7B-HF-16BIT-1024",         llama2_7b(), train(Lora, 8, 4, 1024, Hf, Optim::Adamw8bit),  18.0, Above(1.06, 1.13)),
        ("TR-LF-L2-7B-HF_FA2-16BIT-1024",     llama2_7b(), train(Lora, 8, 4, 1024, Hf, Optim::Adamw8bit),  17.0, Above(1.13, 1.19)),
        ("TR-LF-L2-7B-Unsloth_FA2-16BIT-1024", llama2_7b(), train(Lora, 8, 4, 1024, Uns, Optim::Adamw8bit), 16.0, Above(1.20, 1.26)),
        ("TR-LF-L2-7B-HF-4BIT-1024",          llama2_7b(), q(8, 4, 1024, Hf),  9.0, Below(0.82, 0.88)),
        ("TR-LF-L2-7B-Unsloth_FA2-4BIT-1024", llama2_7b(), q(8, 4, 1024, Uns), 7.0, Above(1.07, 1.13)),
    ];
    for (id, a, t, measured, expect) in rows {
        let est = gib(estimate_arch(&a, &t).total());
        let r = est / measured;
        let ok = match expect {
            Near(tol) => (r - 1.0).abs() <= tol,
            Above(lo, hi) => r > 1.0 && (lo..=hi).contains(&r),
            Below(lo, hi) => r < 1.0 && (lo..=hi).contains(&r),
        };
        assert!(
            ok,
            "{id}: estimate {est:.2} GiB / measured {measured} = {r:.3}, expected {expect:?}"
        );
    }
    // Qwen3-30B-A3B with attention-only LoRA: still over the 17.5 GB claim.
    let t = TrainInputs {
        // q, k, v, o
        targets: TargetSet::ALL
            .with(TargetModule::Gate, false)
            .with(TargetModule::Up, false)
            .with(TargetModule::Down, false),
        ..q(16, 2, 2048, Uns)
    };
    let est = gib(estimate_arch(&qwen3_30b_a3b(), &t).total());
    assert!((25.0..25.5).contains(&est), "{est}");
}

/// MoE terms by hand for Qwen3-30B-A3B (Unsloth's formula: MLP × E, router E·H, LoRA MLP × E).
#[test]
fn moe_terms() {
    let t = train(
        Method::Qlora,
        16,
        2,
        2048,
        GradCkpt::Unsloth,
        Optim::Adamw8bit,
    );
    let b = estimate_arch(&qwen3_30b_a3b(), &t);
    let d = b.dims;
    // K = (2048 / 32) × 4 = 256 (the document's K, not head_dim 128 × 4 = 512).
    assert_eq!((d.k, d.m, d.e), (256, 768, 128));
    // per layer: QKVO (2·2048 + 2·256)·2048 = 9_437_184; MLP 2048·768·3·128 = 603_979_776;
    // router 128·2048 = 262_144 → 613_679_104 × 48 layers.
    assert_eq!(d.quantizable(), 29_456_596_992);
    // norms 2·2048·48 + embeddings and LM head 2 × 151936·2048
    assert_eq!(d.non_quantizable(), 622_526_464);
    // LoRA per layer: q,o 65_536 each; k,v 36_864 each; MLP (45_056 × 3) × 128 = 17_301_504.
    assert_eq!(b.lora_params, (2 * 65_536 + 2 * 36_864 + 17_301_504) * 48);
    assert_eq!(b.trainable_params, b.lora_params);
    assert_eq!(b.optimizer, Bytes(b.lora_params * 4));
}

/// Every knob moves the term it should, and only it.
#[test]
fn knobs() {
    use Method::*;
    let a = llama31_8b();
    let base = train(Lora, 16, 2, 2048, GradCkpt::Unsloth, Optim::Adamw8bit);
    let e = |t: &TrainInputs| estimate_arch_with(&a, t, Floors::NONE);
    let b0 = e(&base);
    #[rustfmt::skip]
    let cases: [KnobCase; 7] = [
        // optimizer bytes/param: 4 → 6 → 8
        ("adamw_torch", TrainInputs { optim: Optim::AdamwTorch, ..base.clone() }, &|b| b.optimizer.get() * 4 == b0.optimizer.get() * 6),
        ("paged_32bit", TrainInputs { optim: Optim::PagedAdamw32bit, ..base.clone() }, &|b| b.optimizer.get() == b0.optimizer.get() * 2),
        // rank doubles every LoRA-derived term
        ("rank 32", TrainInputs { rank: 32, ..base.clone() }, &|b| b.lora.get() == 2 * b0.lora.get() && b.weights == b0.weights),
        // q only: A+B = 4096·16·2 per layer
        ("targets q", TrainInputs { targets: TargetSet::EMPTY.with(TargetModule::Q, true), ..base.clone() }, &|b| b.lora_params == 4096 * 16 * 2 * 32),
        // GC off keeps all 32 layers; HF GC keeps 1 for LoRA
        ("gc none", TrainInputs { gc: GradCkpt::None, ..base.clone() }, &|b| b.activations_computed.get().abs_diff(b0.activations_computed.get() * 32) < 32),
        ("gc true", TrainInputs { gc: GradCkpt::True, ..base.clone() }, &|b| b.activations == b0.activations),
        // full FT: HF GC 2.0 layers vs Unsloth 1.5
        ("full gc true", TrainInputs { method: Full, gc: GradCkpt::True, ..base.clone() }, &|b| b.activation_layers == 2.0 && b.lora == Bytes::ZERO && b.trainable_params == b.total_params),
    ];
    for (name, t, ok) in cases {
        assert!(ok(&e(&t)), "{name}");
    }
    assert_eq!(b0.cuda_overhead, Bytes((1.4 * GIB as f64) as u64));
}

// ---------------------------------------------------------------------------------------------
// GPU selection through `train::estimate` (the default catalog model; free memory is set
// relative to its estimate, so the rows do not depend on the catalog's numbers).
// ---------------------------------------------------------------------------------------------

fn train_inputs(free_x_need: &[f64], pick: &[u32]) -> (Inputs, f64) {
    let mut i = Inputs {
        mode: Mode::Train,
        gpu: GpuChoice::VramGib(24.0),
        ..Inputs::default()
    };
    let need = train::estimate(&i).estimate.total_device_bytes.gib();
    assert!(need > 1.0, "estimate for {} is {need} GiB", i.model);
    i.train.free = free_x_need.iter().map(|x| x * need).collect();
    i.train.pick = pick.to_vec();
    (i, need)
}

#[test]
fn gpu_selection() {
    #[rustfmt::skip]
    let rows: [SelRow; 6] = [
        // (case, free per GPU × need, explicit pick, fits, picked, device_map)
        // fits on one GPU: the largest one alone
        ("one GPU",        &[2.0],                 &[],     true,  &[0],       "sequential"),
        // needs 2 of 4, picks the two largest: 0.6 + 0.85 × 0.55 = 1.07 ≥ 1 (0.6 alone < 1)
        ("2 of 4 mixed",   &[0.3, 0.6, 0.2, 0.55], &[],     true,  &[1, 3],    "balanced"),
        // cannot fit: 0.2 + 0.85 × 0.2 × 2 = 0.54 of the need with all three
        ("cannot fit",     &[0.2, 0.2, 0.2],       &[],     false, &[0, 1, 2], "balanced"),
        // explicit list honoured in its order even though GPU 1 alone would fit
        ("explicit",       &[0.7, 2.0, 0.7],       &[2, 0], true,  &[2, 0],    "balanced"),
        // explicit list too small: reported, not replaced by auto selection
        ("explicit short", &[0.7, 2.0, 0.7],       &[0],    false, &[0],       "sequential"),
        // invalid index 7: the one gate (normalize) reports it and selects automatically
        ("invalid index",  &[2.0, 2.0],            &[0, 7], true,  &[0],       "sequential"),
    ];
    for (case, free, pick, fits, picked, map) in rows {
        let (i, need) = train_inputs(free, pick);
        let e = train::estimate(&i);
        let s = &e.selection;
        assert_eq!(e.estimate.fits, fits, "{case}: {:?}", e.estimate.checks);
        assert_eq!(s.picked, picked, "{case}");
        assert_eq!(s.device_map.id(), map, "{case}");
        assert_eq!(s.auto, pick.is_empty() || case == "invalid index", "{case}");
        // usable = first + 0.85 × others, over the picked order
        let want: f64 = picked
            .iter()
            .enumerate()
            .map(|(k, &g)| free[g as usize] * need * if k == 0 { 1.0 } else { 0.85 })
            .sum();
        assert!(
            (s.usable.gib() - want).abs() < 1e-6,
            "{case}: usable {}",
            s.usable
        );
        // one CardUse per picked GPU, shares sum to the total, proportional to the pool weights
        let pc = &e.estimate.per_card;
        assert_eq!(
            pc.iter().map(|c| c.index).collect::<Vec<_>>(),
            picked,
            "{case}"
        );
        assert_eq!(
            pc.iter().map(|c| c.bytes).sum::<Bytes>(),
            e.estimate.total_device_bytes
        );
        for c in pc {
            assert_eq!(
                c.terms.iter().map(|t| t.1).sum::<Bytes>(),
                c.bytes,
                "{case}"
            );
            assert_eq!(
                c.bytes <= c.budget,
                s.usable >= e.estimate.total_device_bytes,
                "{case}"
            );
        }
        let pool = e
            .estimate
            .checks
            .iter()
            .find(|c| c.name == CheckName::VramPool)
            .unwrap();
        let explicit = e
            .estimate
            .checks
            .iter()
            .find(|c| c.name == CheckName::ExplicitGpus);
        assert_eq!(explicit.is_some(), !s.auto, "{case}");
        match case {
            "cannot fit" => {
                assert!(!pool.ok);
                assert!(
                    s.message.contains("all 3 GPUs together give only"),
                    "{}",
                    s.message
                );
                assert!(s.message.starts_with("Needs "), "{}", s.message);
                assert_eq!(e.estimate.verdict, Verdict::DoesNotFit);
            }
            "invalid index" => {
                let n = &e.estimate.notices;
                assert!(
                    n.iter()
                        .any(|n| n.key == Key::Pick && n.message.contains("GPU 7 does not exist")),
                    "{n:?}"
                );
                assert!(pool.ok, "GPU 0 alone holds it; only the index is wrong");
            }
            "explicit short" => assert!(!pool.ok && explicit.unwrap().ok),
            _ => assert!(pool.ok, "{case}: {}", pool.message),
        }
        let cvd = format!("CUDA_VISIBLE_DEVICES={} ", train::select::list(picked));
        assert!(
            e.estimate.command.starts_with(&cvd),
            "{case}: {}",
            e.estimate.command
        );
    }
}

/// Verdict: tight under 1 GiB of pool headroom.
#[test]
fn verdicts() {
    let (mut i, need) = train_inputs(&[1.0], &[]);
    #[rustfmt::skip]
    let rows = [
        // (free GiB on one GPU, verdict)
        (need + 0.5, Verdict::Tight),
        (need + 1.5, Verdict::Fits),
        (need - 0.5, Verdict::DoesNotFit),
    ];
    for (free, v) in rows {
        i.train.free = vec![free];
        assert_eq!(train::estimate(&i).estimate.verdict, v, "free {free}");
    }
}

/// Terms, engine and command of a train-mode estimate; `cards` × capacity when `free` is empty.
#[test]
fn estimate_shape() {
    let i = Inputs {
        mode: Mode::Train,
        cards: 2,
        gpu: GpuChoice::VramGib(80.0),
        // The published formula's terms (every provenance names Unsloth's estimator).
        train: TrainInputs {
            trainer: Trainer::UnslothFormula,
            ..TrainInputs::default()
        },
        ..Inputs::default()
    };
    let e = train::estimate(&i);
    let names: Vec<&str> = e.estimate.terms.iter().map(|t| t.name.id()).collect();
    assert_eq!(
        names,
        [
            "weights",
            "lora",
            "optimizer",
            "gradients",
            "activations",
            "cuda_overhead"
        ]
    );
    assert!(e
        .estimate
        .terms
        .iter()
        .all(|t| !t.formula.is_empty() && t.provenance.contains("Unsloth")));
    assert_eq!(e.estimate.engine, "unsloth");
    assert_eq!(e.selection.free, vec![Bytes(80 * GIB); 2]);
    assert_eq!(
        e.estimate.terms.iter().map(|t| t.bytes).sum::<Bytes>(),
        e.estimate.total_device_bytes
    );
    let c = &e.estimate.command;
    for part in [
        "FastLanguageModel.from_pretrained(",
        "max_seq_length=2048",
        "load_in_4bit=True",
        "get_peft_model(model, r=16, target_modules=[\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\", \"gate_proj\", \"up_proj\", \"down_proj\"]",
        "use_gradient_checkpointing=\"unsloth\"",
        "per_device_train_batch_size=2",
        "optim=\"adamw_8bit\"",
    ] {
        assert!(c.contains(part), "missing {part:?} in\n{c}");
    }
    let json = serde_json::to_value(&e).unwrap();
    assert!(
        json.get("terms").is_some() && json.get("selection").is_some(),
        "flattened"
    );
}

/// Ranking: fitting candidates first, then capability rank, then full > lora > qlora.
#[test]
fn rank_order() {
    let i = Inputs {
        mode: Mode::Train,
        gpu: GpuChoice::VramGib(24.0),
        ..Inputs::default()
    };
    let r = train::rank(&i);
    assert!(!r.is_empty() && r.len().is_multiple_of(3));
    let key = |c: &train::TrainCandidate| {
        let m = ["full", "lora", "qlora"]
            .iter()
            .position(|m| *m == c.method.id())
            .unwrap();
        (!c.fits, c.capability_rank, m)
    };
    assert!(r.windows(2).all(|w| key(&w[0]) <= key(&w[1])), "{r:#?}");
    for c in &r {
        assert_eq!(c.gpus_needed.is_some(), c.fits, "{c:?}");
        assert_eq!(c.reasons.is_empty(), c.fits, "{c:?}");
    }
}
