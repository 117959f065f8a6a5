//! The other models of `with=` on the cards (each sized by the pipeline as an estimate of its
//! own, kept in [`Sizing`]'s list): what they hold on each card, and what a vLLM instance of
//! this plan is given beside them.

#[cfg(feature = "extras")]
use crate::inputs::Inputs;
#[cfg(feature = "extras")]
use crate::serve::sizing::with_on;
use crate::serve::sizing::Sizing;
use crate::units::Bytes;

/// The bytes the other models of `with=` hold on every card together.
#[cfg(feature = "extras")]
pub(crate) fn with_total(s: &Sizing) -> Bytes {
    (0..s.capacities.len()).fold(Bytes::ZERO, |t, k| t + with_on(s, k))
}

/// A build without the `extras` feature has no other models on the cards.
#[cfg(not(feature = "extras"))]
pub(crate) fn with_total(_: &Sizing) -> Bytes {
    Bytes::ZERO
}

/// vLLM and SGLang beside the models of `with=`: the `--gpu-memory-utilization` this plan's
/// instance is given, its budget less the largest share of a card the others take (in
/// hundredths, rounded down), so that its pool is what is left to it.
#[cfg(feature = "extras")]
pub(crate) fn main_util(i: &Inputs, s: &Sizing) -> f64 {
    let taken = (0..s.capacities.len())
        .map(|k| with_on(s, k).0 as f64 / s.capacities[k].0.max(1) as f64)
        .fold(0.0, f64::max);
    (((i.util - taken) * 100.0 + 1e-9).floor() / 100.0).max(0.0)
}
