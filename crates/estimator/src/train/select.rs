//! Multi-GPU pool and GPU selection (Unsloth Studio's `prepare_gpu_selection`).
//!
//! `usable = free[first] + Σ 0.85 × free[others]`: the first GPU of the selection counts fully,
//! every further one gives 85 % of its free memory (NCCL buffers, transfers, uneven shards).
//! Automatic selection ranks the GPUs by free memory (descending; ties by index) and adds them
//! until the estimate fits, i.e. the fewest GPUs. An explicit list is validated (index in range,
//! no repeats) and used as given, in the given order (its first GPU is the one counted fully).

use crate::units::Bytes;

/// Share of an additional GPU's free memory that counts toward the pool.
pub const EXTRA_GPU_SHARE: f64 = 0.85;

/// Pool weight of the `pos`-th GPU of a selection (0-based).
pub fn weight(pos: usize) -> f64 {
    if pos == 0 {
        1.0
    } else {
        EXTRA_GPU_SHARE
    }
}

/// Usable pool of the GPUs `picked` (indices into `free`), in that order.
pub fn usable(free: &[Bytes], picked: &[u32]) -> Bytes {
    picked
        .iter()
        .enumerate()
        .map(|(pos, &g)| free[g as usize].scale(weight(pos)))
        .sum()
}

/// GPU indices ordered by free memory, largest first (stable: ties keep index order).
pub fn by_free_desc(free: &[Bytes]) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..free.len() as u32).collect();
    crate::order::sort_by(&mut idx, |a, b| free[*b as usize].cmp(&free[*a as usize]));
    idx
}

/// Outcome of choosing GPUs for a `need`-byte estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// GPU indices used, in pool order.
    pub picked: Vec<u32>,
    /// Their usable pool.
    pub usable: Bytes,
    /// The pool holds the estimate (and an explicit list is valid).
    pub fits: bool,
    /// Problems with an explicit list (empty when valid or automatic).
    pub invalid: Vec<String>,
    /// The selection in words.
    pub message: String,
}

/// Automatic: the fewest GPUs (largest free first) whose pool holds `need`.
pub fn auto(free: &[Bytes], need: Bytes) -> Choice {
    let order = by_free_desc(free);
    for n in 1..=order.len() {
        let picked = order[..n].to_vec();
        let u = usable(free, &picked);
        if need <= u {
            let message = format!(
                "Needs {need}: {} ({n} of {}) {} {u} usable",
                gpus(&picked),
                free.len(),
                if n == 1 { "gives" } else { "give" }
            );
            return Choice {
                picked,
                usable: u,
                fits: true,
                invalid: Vec::new(),
                message,
            };
        }
    }
    let u = usable(free, &order);
    let message = if free.is_empty() {
        format!("Needs {need}, but no GPU is given")
    } else {
        format!(
            "Needs {need}, but all {} GPU{} together give only {u} usable: does not fit",
            free.len(),
            if free.len() == 1 { "" } else { "s" }
        )
    };
    Choice {
        picked: order,
        usable: u,
        fits: false,
        invalid: Vec::new(),
        message,
    }
}

/// Explicit: validate `pick` against `free`; the valid GPUs are used in the given order.
pub fn explicit(free: &[Bytes], pick: &[u32], need: Bytes) -> Choice {
    let mut picked = Vec::new();
    let mut invalid = Vec::new();
    for &g in pick {
        if g as usize >= free.len() {
            invalid.push(format!(
                "GPU {g} does not exist (GPUs 0–{} are given)",
                free.len().saturating_sub(1)
            ));
        } else if picked.contains(&g) {
            invalid.push(format!("GPU {g} is listed twice"));
        } else {
            picked.push(g);
        }
    }
    let u = usable(free, &picked);
    let fits = invalid.is_empty() && !picked.is_empty() && need <= u;
    let message = if need <= u {
        format!(
            "Needs {need}: the requested {} give {u} usable",
            gpus(&picked)
        )
    } else {
        format!(
            "Needs {need}, but the requested {} give only {u} usable: does not fit",
            gpus(&picked)
        )
    };
    Choice {
        picked,
        usable: u,
        fits,
        invalid,
        message,
    }
}

/// `0,1,2` (the `CUDA_VISIBLE_DEVICES` spelling).
/// "GPU 0" / "GPUs 0, 2" (indices as `CUDA_VISIBLE_DEVICES` counts them).
pub fn gpus(picked: &[u32]) -> String {
    let l = picked
        .iter()
        .map(|g| g.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    match picked.len() {
        0 => "no GPU".into(),
        1 => format!("GPU {l}"),
        _ => format!("GPUs {l}"),
    }
}

/// `0,1,2` (the `CUDA_VISIBLE_DEVICES` spelling).
pub fn list(picked: &[u32]) -> String {
    picked
        .iter()
        .map(|g| g.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Split `total` over the picked GPUs in proportion to what each adds to the pool
/// (`weight(pos) × free`), in whole bytes that sum exactly to `total`; a GPU that adds nothing
/// gets nothing (it is reported by the `gpu_room` check instead).
pub fn shares(free: &[Bytes], picked: &[u32], total: Bytes) -> Vec<Bytes> {
    let w: Vec<u64> = picked
        .iter()
        .enumerate()
        .map(|(pos, &g)| free[g as usize].scale(weight(pos)).get())
        .collect();
    total.split(&w)
}
