//! The page links each serve-mode term to its section of the method page
//! (`method.html#<term id>`, rendered from `docs/method.md`): every such term has one.

use fitcard_estimator::terms::TermName;

#[test]
fn every_serve_term_has_its_section_on_the_method_page() {
    let method = include_str!("../../../docs/method.md");
    let train = [
        TermName::Lora,
        TermName::Optimizer,
        TermName::Gradients,
        TermName::Activations,
        TermName::CudaOverhead,
    ];
    for &t in TermName::ALL.iter().filter(|t| !train.contains(t)) {
        let anchor = format!("{{#{}}}", t.id());
        assert!(
            method.contains(&anchor),
            "docs/method.md lacks a section {anchor}"
        );
    }
    // Train mode's terms share one section.
    assert!(method.contains("{#train}"));
}
