//! Ranking: among the candidates (variant × format) that pass
//! every constraint, the most capable variant first, then the highest precision within it —
//! never by size alone (size and capability correlate within a variant, not across variants).
//! Non-fitting candidates follow in the same order, each with its reasons.

use crate::catalog::catalog;
use crate::catalog::quant::Quant;
use crate::estimate::Verdict;
use crate::inputs::normalize::normalize;
use crate::inputs::Inputs;
use crate::serve::candidate;
use crate::units::{Bytes, SignedBytes};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
/// One variant × format of the family, estimated on the user's engine and cards.
pub struct Candidate {
    /// Repo id of the variant.
    pub model: String,
    /// Display name of the variant.
    pub name: String,
    /// The format.
    pub quant: Quant,
    /// 1 = the family's most capable variant.
    pub capability_rank: u32,
    /// Nominal bits per weight of the format.
    pub precision_bits: f64,
    /// Every hard check passes.
    pub fits: bool,
    /// Fits, tight or does not fit.
    pub verdict: Verdict,
    /// Smallest headroom over the cards, bytes (negative = over).
    pub headroom: SignedBytes,
    /// Bytes on the cards.
    pub device_bytes: Bytes,
    /// Failed constraints in words (empty when it fits).
    pub reasons: Vec<String>,
    /// Decode speed per request, tokens/s ([`crate::serve::speed::decode`]; layers left in system RAM
    /// included), when the cards' bandwidth is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_tps: Option<f64>,
}

/// Candidates of the family of `inputs.model`, on the engine and cards of `inputs`.
pub fn rank(inputs: &Inputs) -> Vec<Candidate> {
    let mut inputs = inputs.clone();
    normalize(&mut inputs);
    let inputs = &inputs;
    let cat = catalog();
    let Some((fam, _)) = cat.variant(&inputs.model) else {
        return Vec::new();
    };
    let container = inputs.engine.container();
    let mut out = Vec::new();
    for v in &fam.variants {
        for f in v.formats.iter().filter(|f| f.container == container) {
            let mut i = inputs.clone();
            i.model.clone_from(&v.id);
            i.quant = f.id;
            let e = candidate(&i, v, f);
            out.push(Candidate {
                model: v.id.clone(),
                name: v.name.clone(),
                quant: f.id,
                capability_rank: v.capability_rank,
                precision_bits: f.id.precision_bits(),
                fits: e.fits,
                verdict: e.verdict,
                headroom: e.headroom(),
                device_bytes: e.total_device_bytes,
                reasons: e.reasons(),
                decode_tps: crate::serve::speed::decode(&i, v, &e)
                    .filter(|_| e.starts())
                    .map(|s| s.decode_tps),
            });
        }
    }
    sort(&mut out);
    out
}

/// Fitting first; then capability rank ascending; then precision descending.
pub fn sort(c: &mut [Candidate]) {
    crate::order::sort_by(c, |a, b| {
        b.fits
            .cmp(&a.fits)
            .then(a.capability_rank.cmp(&b.capability_rank))
            .then(b.precision_bits.total_cmp(&a.precision_bits))
    });
}
