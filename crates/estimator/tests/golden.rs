//! Golden file of permalinks → decoded inputs (`tests/golden/permalinks.txt`): every link
//! there must keep decoding to the same configuration and notices.

use fitcard_estimator::inputs::Key;
use fitcard_estimator::{encode, from_query};

#[test]
fn permalinks_keep_decoding() {
    let mut out = String::new();
    for q in include_str!("golden/permalinks.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let d = from_query(q);
        out.push_str(&format!("{q}\n  → {}\n", encode(&d.inputs)));
        for n in &d.notices {
            out.push_str(&format!("  ! {n}\n"));
        }
        // Canonical links are fixed points. (A train-mode `cards` that contradicts `free` stays
        // in the link, ignored, and is reported again each time.)
        let again = from_query(&encode(&d.inputs));
        assert!(
            again.notices.iter().all(|n| n.key == Key::Cards),
            "{q}: {:?}",
            again.notices
        );
        assert_eq!(again.inputs, d.inputs, "{q}");
    }
    insta::assert_snapshot!("permalinks", out);
}
