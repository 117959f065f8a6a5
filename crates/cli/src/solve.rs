//! `fitcard solve`: the limit of one input, every other held.

use crate::*;

/// `solve '<query>' [--for ctx|par|cards|gpu|seq|bsz|ncmoe]`: the limit of one input, every other held
/// (all serve-mode limits when `--for` is not given).
pub fn solve(
    query: &str,
    rest: &[&str],
    target: Option<&str>,
    json: bool,
) -> Result<String, String> {
    use fitcard_estimator::solve::{solve, Target};
    let i = inputs(query)?;
    if !rest.is_empty() {
        return Err(USAGE.into());
    }
    let targets: Vec<Target> = match target {
        None if i.mode == Mode::Train => vec![Target::Seq, Target::Bsz],
        None => vec![Target::Ctx, Target::Par, Target::Cards, Target::Gpu],
        Some(t) => vec![t.parse().map_err(|_| {
            format!(
                "--for {} is not one of ctx, par, cards, gpu, seq, bsz, ncmoe",
                quote(t)
            )
        })?],
    };
    let out: Vec<Solved> = targets
        .iter()
        .map(|&t| {
            let solution = solve(&i, t);
            let proof = fitcard_estimator::solve::proof(&i, &solution);
            Solved { solution, proof }
        })
        .collect();
    Ok(if json {
        to_json(&out)
    } else {
        out.iter()
            .map(|s| {
                let mut line = format!("{:<6} {}", s.solution.target, s.solution.message);
                if let Some(p) = &s.proof {
                    line.push_str(&proof_words(p));
                }
                line
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// One answer of `fitcard solve`: the solution and, for a numeric limit, the estimate at it and
/// one step past it (`proof`, absent for `cards` and `gpu` and when nothing fits).
#[derive(serde::Serialize)]
struct Solved {
    #[serde(flatten)]
    solution: fitcard_estimator::solve::Solution,
    #[serde(skip_serializing_if = "Option::is_none")]
    proof: Option<fitcard_estimator::solve::Proof>,
}

/// "\n       at 22726: 11.99 GiB of 12.00 GiB usable; at 22727: 12.00 GiB, does not fit".
fn proof_words(p: &fitcard_estimator::solve::Proof) -> String {
    let of = p
        .usable_bytes
        .map_or(String::new(), |u| format!(" of {u} usable"));
    let profile = p
        .trainer
        .map_or(String::new(), |t| format!(" (trainer profile {t})"));
    let next = match (p.next, p.next_total_bytes, p.next_fits) {
        (Some(n), Some(b), Some(f)) => {
            format!("; at {n}: {b}, {}", if f { "fits" } else { "does not fit" })
        }
        _ => "; the top of the range".to_string(),
    };
    format!(
        "\n       at {}: {}{of}{next}{profile}",
        p.value, p.total_bytes
    )
}
