//! `docs/accuracy.md` is what `fitcard report` writes now (the size rows of the estimator's
//! baselines and the decode-speed rows run end to end): a change of any estimate shows in
//! review. Regenerate with `cargo run -p fitcard-cli -- report > docs/accuracy.md`.

use std::process::Command;

#[test]
fn accuracy_report_is_current() {
    let out = Command::new(env!("CARGO_BIN_EXE_fitcard"))
        // No network at test time: a Hub repo would be asked of a port nobody listens on.
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .env("XDG_CACHE_HOME", env!("CARGO_TARGET_TMPDIR"))
        .arg("report")
        .output()
        .expect("fitcard runs");
    assert!(out.status.success());
    let want = String::from_utf8(out.stdout).expect("UTF-8");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/accuracy.md");
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have.trim_end() == want.trim_end(),
        "docs/accuracy.md is stale: run `cargo run -p fitcard-cli -- report > docs/accuracy.md`"
    );
    assert!(want.contains("## Decode speed") && want.contains("partial offload"));
}
