//! "What is the best model for my card?": the ranking across families (`best=1`).
//!
//! For every variant of the catalog that passes the filters, the highest-precision format of the
//! engine's container that passes every hard check on the chosen card(s), engine, context and
//! concurrency (the same estimate as the calculator). The variants with a
//! fitting format are then ordered by one public evaluation that covers many families
//! ([`crate::catalog::CommonEval`]), highest score first — except that within a family its own
//! capability order decides (a family's rows keep the places the score gave them, filled in
//! the family's order); variants the evaluation does not cover
//! follow, each with that reason, in their family's own capability order (its own source);
//! variants with no fitting format are counted, not listed.

use crate::catalog::quant::Quant;
use crate::catalog::{catalog, CommonEval, Family, Matched, Variant};
use crate::estimate::{Estimate, Verdict};
use crate::inputs::normalize::normalize;
use crate::inputs::Inputs;
use crate::serve::candidate;
use crate::units::{Bytes, SignedBytes};
use serde::Serialize;

/// One variant in its best fitting format.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BestRow {
    /// Family id.
    pub family: String,
    /// Repo id of the variant (the permalink's `model=`).
    pub model: String,
    /// Display name.
    pub name: String,
    /// The highest-precision format that fits.
    pub quant: Quant,
    /// The common evaluation's score (`None` = not covered).
    pub score: Option<f64>,
    /// How the score was matched to this variant.
    pub matched: Option<Matched>,
    /// The evaluation marks the score as estimated.
    pub estimated: bool,
    /// Why it has no score, when it has none.
    pub unscored: Option<String>,
    /// Rank within its family (1 = strongest, by the family's own source).
    pub capability_rank: u32,
    /// Fits or tight.
    pub verdict: Verdict,
    /// Smallest headroom over the cards.
    pub headroom: SignedBytes,
    /// Bytes on the cards.
    pub device_bytes: Bytes,
    /// Decode tokens/s per request of that format at the chosen context and concurrency
    /// ([`crate::serve::speed::decode`]; `None` when a card's bandwidth is unknown).
    pub decode_tps: Option<f64>,
}

/// The cross-family ranking.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Best {
    /// The evaluation that orders the rows: name, snapshot date, URL.
    pub evaluation: Option<(String, String, String)>,
    /// Variants with a fitting format: scored first (score descending), then unscored.
    pub rows: Vec<BestRow>,
    /// Variants passing the filters with no fitting format.
    pub not_fitting: usize,
    /// Variants the filters left out.
    pub filtered_out: usize,
}

/// The ranking across all families for the cards, engine, context and concurrency of `inputs`,
/// limited by `inputs.best`'s filters.
pub fn best(inputs: &Inputs) -> Best {
    let mut inputs = inputs.clone();
    normalize(&mut inputs);
    let cat = catalog();
    let f = &inputs.best;
    let eval = cat.common_eval.as_ref();
    let (mut rows, mut not_fitting, mut filtered_out) = (Vec::new(), 0, 0);
    for fam in &cat.families {
        // Chat models only (an embedding model answers no prompt): not a filter's doing, so
        // not counted among the variants the filters left out.
        if fam.task.is_some() {
            continue;
        }
        let family_ok = f.family.as_ref().is_none_or(|id| *id == fam.id)
            && f.license.as_ref().is_none_or(|l| {
                fam.license
                    .as_ref()
                    .is_some_and(|x| x.id.eq_ignore_ascii_case(l))
            })
            && f.reasoning.is_none_or(|r| fam.reasoning == Some(r));
        for v in &fam.variants {
            let longest = v.arch.longest_ctx(inputs.engine);
            if !family_ok || f.min_ctx.is_some_and(|c| longest < c) {
                filtered_out += 1;
                continue;
            }
            match first_fit(&inputs, v) {
                Some(fit) => rows.push(row(fam, v, fit, eval)),
                None => not_fitting += 1,
            }
        }
    }
    // Scored rows by score; unscored after them, in family order then the family's own rank.
    crate::order::sort_by(&mut rows, |a, b| match (a.score, b.score) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    // Within a family its own source decides: the family's rows keep the places the common
    // score gave them, filled in the family's capability order.
    let scored = rows.iter().take_while(|r| r.score.is_some()).count();
    family_order(&mut rows[..scored]);
    Best {
        evaluation: eval.map(|e| (e.name.clone(), e.date.clone(), e.url.clone())),
        rows,
        not_fitting,
        filtered_out,
    }
}

/// The first of `v`'s formats for the engine that fits (formats are stored highest precision
/// first, so it is the answer), its estimate and decode speed.
fn first_fit(inputs: &Inputs, v: &Variant) -> Option<(Quant, Estimate, Option<f64>)> {
    let container = inputs.engine.container();
    v.formats
        .iter()
        .filter(|fm| fm.container == container)
        .find_map(|fm| {
            let mut i = inputs.clone();
            i.model.clone_from(&v.id);
            i.quant = fm.id;
            let e = candidate(&i, v, fm);
            // Decode speed of the one format kept (microseconds: no cost to the ranking's
            // budget).
            e.fits.then(|| {
                let tps = crate::serve::speed::decode(&i, v, &e).map(|s| s.decode_tps);
                (fm.id, e, tps)
            })
        })
}

/// The row of `v` in family `fam` with the format that fits, scored by the cross-family
/// evaluation `eval` when it covers `v`.
fn row(
    fam: &Family,
    v: &Variant,
    (quant, e, decode_tps): (Quant, Estimate, Option<f64>),
    eval: Option<&CommonEval>,
) -> BestRow {
    let score = eval.and_then(|ev| {
        ev.scores
            .iter()
            .find(|s| s.model.eq_ignore_ascii_case(&v.id))
    });
    BestRow {
        family: fam.id.clone(),
        model: v.id.clone(),
        name: v.name.clone(),
        quant,
        score: score.map(|s| s.score),
        matched: score.map(|s| s.matched),
        estimated: score.is_some_and(|s| s.estimated),
        unscored: match (score, eval) {
            (Some(_), _) => None,
            (None, Some(ev)) => Some(format!("not covered by {}", ev.name)),
            (None, None) => Some("no cross-family evaluation in this build".into()),
        },
        capability_rank: v.capability_rank,
        verdict: e.verdict,
        headroom: e.headroom(),
        device_bytes: e.total_device_bytes,
        decode_tps,
    }
}

/// Reorder each family's rows among the places they hold, by the family's capability rank.
fn family_order(rows: &mut [BestRow]) {
    let mut done = vec![false; rows.len()];
    for k in 0..rows.len() {
        if done[k] {
            continue;
        }
        let slots: Vec<usize> = (k..rows.len())
            .filter(|&j| rows[j].family == rows[k].family)
            .collect();
        let mut members: Vec<BestRow> = slots.iter().map(|&j| rows[j].clone()).collect();
        crate::order::sort_by_key(&mut members, |r| r.capability_rank);
        for (&j, r) in slots.iter().zip(members) {
            rows[j] = r;
            done[j] = true;
        }
    }
}
