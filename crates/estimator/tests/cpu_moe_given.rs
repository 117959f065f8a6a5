//! `ncmoe=` with the experts' bytes given rather than computed: the page's first load has no
//! size rule for them and is given each layer's bytes by its importer
//! (`catalog::install_layer_experts`). Its own test binary: the bytes given are process-wide.

use fitcard_estimator::catalog::{
    install_layer_experts, layer_experts, layer_experts_from_text, layer_experts_text, size_rule,
};
use fitcard_estimator::{estimate, from_query, Estimate, Quant};

const Q: &str = "model=Qwen/Qwen3-30B-A3B&quant=Q4_K_M&engine=llama.cpp&gpu=rtx-4090&ctx=8192";

fn host_experts(extra: &str) -> (u64, u32) {
    let d = from_query(&format!("{Q}&{extra}"));
    assert!(d.notices.is_empty(), "{:?}", d.notices);
    let e = estimate(&d.inputs);
    (host_bytes(&e), e.offload.map_or(0, |o| o.expert_layers))
}

fn host_bytes(e: &Estimate) -> u64 {
    e.terms
        .iter()
        .filter(|t| t.name.id() == "experts_host")
        .map(|t| t.bytes.get())
        .sum()
}

#[test]
fn the_bytes_given_for_a_model_and_mix_are_the_ones_moved() {
    let c = fitcard_estimator::catalog::catalog();
    let (_, v) = c.variant("Qwen/Qwen3-30B-A3B").unwrap();
    let (rule, exact) = size_rule::experts_by_layer(&v.arch, Quant::Q4KM).expect("a rule");
    assert!(exact);
    assert_eq!(rule.len(), v.arch.layers as usize);
    let (by_rule, n) = host_experts("ncmoe=10");
    assert_eq!(n, 10);
    assert_eq!(by_rule, rule[..10].iter().sum::<u64>());
    // Given bytes (one per layer) replace the rule's; a list of the wrong length is not used.
    let given: Vec<u64> = (1..=v.arch.layers as u64).map(|l| l * 1_000_000).collect();
    install_layer_experts("Qwen/Qwen3-30B-A3B", Quant::Q4KM, vec![7; 3], true);
    assert_eq!(host_experts("ncmoe=10").0, by_rule);
    install_layer_experts("qwen/qwen3-30b-a3b", Quant::Q4KM, given.clone(), false);
    assert_eq!(
        layer_experts("Qwen/Qwen3-30B-A3B", &v.arch, Quant::Q4KM),
        Some((given.clone(), false))
    );
    let (host, n) = host_experts("ncmoe=10");
    assert_eq!((host, n), (given[..10].iter().sum::<u64>(), 10));
    // Layers ngl= leaves on the CPU (the first 4: ngl counts the output layer too, as
    // llama.cpp's -ngl does) are not counted twice; another mix keeps the rule.
    let layers = v.arch.layers;
    let (host, n) = host_experts(&format!("ncmoe=10&ngl={}", layers + 1 - 4));
    assert_eq!((host, n), (given[4..10].iter().sum::<u64>(), 6));
    let d = from_query(
        &Q.replace("Q4_K_M", "Q8_0")
            .replace("ctx=", "ncmoe=all&ctx="),
    );
    let (q8, _) = size_rule::experts_by_layer(&v.arch, Quant::Q8_0).unwrap();
    assert_eq!(host_bytes(&estimate(&d.inputs)), q8.iter().sum::<u64>());
}

#[test]
fn the_importers_line_reads_back_and_nothing_else_does() {
    let v = vec![0, 391_643_136, u64::MAX];
    for exact in [true, false] {
        let t = layer_experts_text(&v, exact);
        assert_eq!(layer_experts_from_text(&t), Some((v.clone(), exact)));
    }
    assert_eq!(layer_experts_from_text("exact"), Some((vec![], true)));
    for bad in [
        "",
        "sure 1 2",
        "exact 1  2",
        "exact -1",
        "exact 18446744073709551616",
        "exact 1,2",
    ] {
        assert_eq!(layer_experts_from_text(bad), None, "{bad:?}");
    }
    let long = format!("exact{}", " 1".repeat(4097));
    assert_eq!(layer_experts_from_text(&long), None);
    let most = format!("exact{}", " 1".repeat(4096));
    assert_eq!(
        layer_experts_from_text(&most).map(|v| v.0.len()),
        Some(4096)
    );
}
