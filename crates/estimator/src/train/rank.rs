//! Train-mode ranking: every variant of the family × method, fitting first; within each group
//! the most capable variant first, then the more precise method (full > LoRA > QLoRA).

use super::{compute, free_per_gpu};
use crate::catalog::catalog;
use crate::estimate::Verdict;
use crate::inputs::{Inputs, Method};
use crate::units::{Bytes, SignedBytes};
use serde::Serialize;

/// A family variant × method, for the train-mode ranking.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrainCandidate {
    /// Repo id of the variant.
    pub model: String,
    /// Display name of the variant.
    pub name: String,
    /// `qlora`, `lora` or `full`.
    pub method: Method,
    /// 1 = the family's most capable variant.
    pub capability_rank: u32,
    /// True when every hard check passes.
    pub fits: bool,
    /// Fits, tight or does not fit.
    pub verdict: Verdict,
    /// Usable pool minus the total (negative = short).
    pub headroom: SignedBytes,
    /// Total over the GPUs.
    pub total: Bytes,
    /// GPUs used when it fits (`None` when it does not).
    pub gpus_needed: Option<u32>,
    /// Failed checks in words (empty when it fits).
    pub reasons: Vec<String>,
}

/// Every variant of `i.model`'s family × method on the GPUs of `i` (see the module docs).
pub fn rank(i: &Inputs) -> Vec<TrainCandidate> {
    let Some((fam, _)) = catalog().variant(&i.model) else {
        return Vec::new();
    };
    let free = free_per_gpu(i);
    let mut out = Vec::with_capacity(fam.variants.len() * Method::ALL.len());
    for v in &fam.variants {
        for &m in Method::ALL {
            let mut j = i.clone();
            j.train.method = m;
            let e = compute(&j, v, free.clone());
            out.push(TrainCandidate {
                model: v.id.clone(),
                name: v.name.clone(),
                method: m,
                capability_rank: v.capability_rank,
                fits: e.estimate.fits,
                verdict: e.estimate.verdict,
                headroom: e.headroom(),
                total: e.estimate.total_device_bytes,
                gpus_needed: e.estimate.fits.then_some(e.selection.picked.len() as u32),
                reasons: e.estimate.reasons(),
            });
        }
    }
    // `Method` orders full < lora < qlora: the more precise method first.
    crate::order::sort_by(&mut out, |a, b| {
        b.fits
            .cmp(&a.fits)
            .then(a.capability_rank.cmp(&b.capability_rank))
            .then(a.method.cmp(&b.method))
    });
    out
}
