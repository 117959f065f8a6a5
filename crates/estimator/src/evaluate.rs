//! One entry for either mode: the estimate of the inputs, serve or train as `mode` says.

use crate::estimate::Estimate;
use crate::inputs::{Inputs, Mode};

/// The estimate of `i` in its mode: [`crate::serve::estimate`] or [`crate::train::estimate`]'s
/// estimate (the training breakdown dropped).
pub fn evaluate(i: &Inputs) -> Estimate {
    match i.mode {
        Mode::Serve => crate::serve::estimate(i),
        Mode::Train => crate::train::estimate(i).estimate,
    }
}
