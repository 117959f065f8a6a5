//! The published measurements, one row each with its source and the kind of reading it is.

/// What a measurement read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// PyTorch's allocator peak (`torch.cuda.max_memory_allocated`): no CUDA context.
    AllocatorPeak,
    /// nvidia-smi's memory in use: everything on the card.
    NvidiaSmi,
}

/// One published measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasuredMemory {
    /// Stable id of the row.
    pub id: &'static str,
    /// The configuration as a permalink.
    pub query: &'static str,
    /// What was measured, MiB.
    pub measured_mib: f64,
    /// What kind of reading it is.
    pub reading: Reading,
    /// Where it was published.
    pub source: &'static str,
    /// The setting in words.
    pub note: &'static str,
}

/// Qwen3 speed benchmark: transformers 4.51.3, torch 2.6.0, flash-attn 2.7.4, one H20, BF16,
/// "GPU Memory (MB)" peak during generation (the MB behave as MiB).
pub const QWEN3_BENCH: &str =
    "https://qwen.readthedocs.io/en/latest/getting_started/speed_benchmark.html";

/// Unsloth Studio's end-to-end validation of its estimator (Llama-3.2-1B, rank 16, all targets,
/// Unsloth checkpointing), the "Actual (nvsmi)" column.
pub const UNSLOTH_E2E: &str = "https://github.com/unslothai/unsloth/blob/main/studio/backend/utils/hardware/VRAM_ESTIMATION.md";

/// Every measured row the repository ships.
pub const ROWS: &[MeasuredMemory] = &[
    MeasuredMemory {
        id: "INF-HF-Qwen3-0.6B-BF16-1",
        query: "model=Qwen/Qwen3-0.6B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 1394.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-0.6B-BF16-6144",
        query: "model=Qwen/Qwen3-0.6B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 2066.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-0.6B-BF16-14336",
        query: "model=Qwen/Qwen3-0.6B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 2963.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-0.6B-BF16-30720",
        query: "model=Qwen/Qwen3-0.6B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 4755.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-1.7B-BF16-1",
        query: "model=Qwen/Qwen3-1.7B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 3412.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-1.7B-BF16-6144",
        query: "model=Qwen/Qwen3-1.7B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 4213.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-1.7B-BF16-14336",
        query: "model=Qwen/Qwen3-1.7B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 5109.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-1.7B-BF16-30720",
        query: "model=Qwen/Qwen3-1.7B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 6902.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-4B-BF16-1",
        query: "model=Qwen/Qwen3-4B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 7973.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-4B-BF16-6144",
        query: "model=Qwen/Qwen3-4B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 8860.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-4B-BF16-14336",
        query: "model=Qwen/Qwen3-4B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 10012.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-4B-BF16-30720",
        query: "model=Qwen/Qwen3-4B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 12317.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-8B-BF16-1",
        query: "model=Qwen/Qwen3-8B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 15947.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-8B-BF16-6144",
        query: "model=Qwen/Qwen3-8B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 16811.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-8B-BF16-14336",
        query: "model=Qwen/Qwen3-8B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 17963.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-8B-BF16-30720",
        query: "model=Qwen/Qwen3-8B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 20267.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-14B-BF16-1",
        query: "model=Qwen/Qwen3-14B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 28402.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-14B-BF16-6144",
        query: "model=Qwen/Qwen3-14B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 29495.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-14B-BF16-14336",
        query: "model=Qwen/Qwen3-14B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 30775.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-14B-BF16-30720",
        query: "model=Qwen/Qwen3-14B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 33336.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-32B-BF16-1",
        query: "model=Qwen/Qwen3-32B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 62751.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-32B-BF16-6144",
        query: "model=Qwen/Qwen3-32B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 64583.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-32B-BF16-14336",
        query: "model=Qwen/Qwen3-32B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 66632.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-32B-BF16-30720",
        query: "model=Qwen/Qwen3-32B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 70728.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-30B-A3B-BF16-1",
        query: "model=Qwen/Qwen3-30B-A3B&quant=BF16&engine=transformers&ctx=2049&par=1&vram=96&kv=bf16",
        measured_mib: 58462.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 1 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-30B-A3B-BF16-6144",
        query: "model=Qwen/Qwen3-30B-A3B&quant=BF16&engine=transformers&ctx=8192&par=1&vram=96&kv=bf16",
        measured_mib: 59037.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 6144 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-30B-A3B-BF16-14336",
        query: "model=Qwen/Qwen3-30B-A3B&quant=BF16&engine=transformers&ctx=16384&par=1&vram=96&kv=bf16",
        measured_mib: 59806.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 14336 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "INF-HF-Qwen3-30B-A3B-BF16-30720",
        query: "model=Qwen/Qwen3-30B-A3B&quant=BF16&engine=transformers&ctx=32768&par=1&vram=96&kv=bf16",
        measured_mib: 61342.0,
        reading: Reading::AllocatorPeak,
        source: QWEN3_BENCH,
        note: "input 30720 + 2048 generated tokens, batch 1",
    },
    MeasuredMemory {
        id: "TR-UNS-E2E-QLoRA-bsz-2-seq-512",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=qlora&rank=16&bsz=2&seq=512&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 2713.6,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "QLoRA bsz=2 seq=512; nvidia-smi on a B200 capped at 24 GB",
    },
    MeasuredMemory {
        id: "TR-UNS-E2E-QLoRA-bsz-2-seq-2048",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=qlora&rank=16&bsz=2&seq=2048&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 2713.6,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "QLoRA bsz=2 seq=2048; nvidia-smi on a B200 capped at 24 GB",
    },
    MeasuredMemory {
        id: "TR-UNS-E2E-QLoRA-bsz-4-seq-2048",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=qlora&rank=16&bsz=4&seq=2048&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 2713.6,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "QLoRA bsz=4 seq=2048; nvidia-smi on a B200 capped at 24 GB",
    },
    MeasuredMemory {
        id: "TR-UNS-E2E-LoRA-16-bit-bsz-2-seq-2048",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=lora&rank=16&bsz=2&seq=2048&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 3973.1,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "LoRA 16-bit bsz=2 seq=2048; nvidia-smi on a B200 capped at 24 GB",
    },
    MeasuredMemory {
        id: "TR-UNS-E2E-Full-FT-adamw-8bit",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=full&rank=16&bsz=2&seq=2048&gc=unsloth&optim=adamw_8bit&free=24",
        measured_mib: 11059.2,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "Full FT adamw_8bit; nvidia-smi on a B200 capped at 24 GB",
    },
    MeasuredMemory {
        id: "TR-UNS-E2E-Full-FT-adamw-torch",
        query: "mode=train&model=meta-llama/Llama-3.2-1B-Instruct&method=full&rank=16&bsz=2&seq=2048&gc=unsloth&optim=adamw_torch&free=24",
        measured_mib: 13240.3,
        reading: Reading::NvidiaSmi,
        source: UNSLOTH_E2E,
        note: "Full FT adamw_torch; nvidia-smi on a B200 capped at 24 GB",
    },
];
