//! The accuracy report and the regression gate over every measured row
//! (`fitcard_estimator::accuracy`).
//!
//! * `docs/accuracy.md` must be what `fitcard report` writes now: a change of any estimate
//!   shows up in review. Regenerate with
//!   `cargo run -p fitcard-cli -- report > docs/accuracy.md`.
//! * The gate: no change may move a row's estimate by more than 0.15 GiB from
//!   `tests/gate.txt` (id and estimate in MiB, one row per line) — update a line only together
//!   with the mechanism that explains the move. Rewrite with `FITCARD_WRITE_GATE=1`.

use fitcard_estimator::accuracy::{estimated_mib, report, GATE, ROWS};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn accuracy_report_is_current() {
    let path = root().join("docs/accuracy.md");
    let want = report();
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    // The CLI appends the decode-speed section (`crates/cli/tests/accuracy.rs` checks the
    // whole file); the size part is this crate's.
    assert!(
        have.starts_with(want.trim_end()),
        "docs/accuracy.md is stale: run `cargo run -p fitcard-cli -- report > docs/accuracy.md`"
    );
}

#[test]
fn no_estimate_moves_more_than_the_gate() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gate.txt");
    let now: Vec<(&str, f64)> = ROWS.iter().map(|r| (r.id, estimated_mib(r))).collect();
    if std::env::var_os("FITCARD_WRITE_GATE").is_some() {
        let text: String = now.iter().map(|(id, m)| format!("{id} {m:.1}\n")).collect();
        std::fs::write(&path, text).unwrap();
    }
    let text = std::fs::read_to_string(&path).expect("tests/gate.txt");
    let gate_mib = GATE.mib();
    let mut moved = Vec::new();
    let mut seen = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (id, mib) = line.split_once(' ').expect("id and MiB");
        let was: f64 = mib.parse().expect("MiB");
        let (_, is) = now
            .iter()
            .find(|(x, _)| *x == id)
            .unwrap_or_else(|| panic!("row {id} of tests/gate.txt no longer exists"));
        seen += 1;
        if (is - was).abs() > gate_mib {
            moved.push(format!("{id}: {was:.1} MiB → {is:.1} MiB"));
        }
    }
    assert_eq!(
        seen,
        ROWS.len(),
        "tests/gate.txt must hold every measured row"
    );
    assert!(
        moved.is_empty(),
        "estimates moved by more than {gate_mib:.1} MiB:\n{}",
        moved.join("\n")
    );
}
