//! Published measurements the estimator is checked against, one row each with its source, and
//! the accuracy report built from them (`fitcard report` writes `docs/accuracy.md`).
//!
//! Each row is a permalink (what a user would type), the number that was measured, and what kind
//! of reading it is, so the estimate is compared like with like:
//! * [`Reading::AllocatorPeak`]: PyTorch's allocator peak, which leaves the CUDA context out;
//!   the estimate's per-card context (0.7 GiB) is taken out again.
//! * [`Reading::NvidiaSmi`]: memory in use as nvidia-smi shows it: the whole estimate.
//!
//! Two naive baselines are reported beside the estimate, to show what the mechanisms buy:
//! * *params × bits + 20 %*: parameters (from the config) × the format's nominal bits, plus 20 %;
//! * *all heads, all layers*: the file size plus a KV cache for every layer with every attention
//!   head (no grouped-query attention, no sliding windows), at the same context and slots.

mod logs;
mod report;
mod rows;
mod startups;

pub use logs::{sglang_logs, vllm_logs, SglangLog, VllmLog, SGLANG_DEFAULT_FRACTION_TP1};
pub use report::{estimated_mib, naive_kv_mib, naive_params_mib, report, GATE};
pub use rows::{MeasuredMemory, Reading, QWEN3_BENCH, ROWS, UNSLOTH_E2E};
pub use startups::{decoded, startup_outcomes, StartupOutcome};
