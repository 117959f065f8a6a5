//! An imported family (a Hub repo the page has read) joins the catalog: the estimate, the
//! ranking and the permalink then treat it like any catalog family; a later import replaces it.
//! (Its own test binary: the import changes the process-wide catalog.)

use fitcard_estimator::catalog::quant::Container;
use fitcard_estimator::catalog::{base, import, Family, Format, SizeKind, Variant};
use fitcard_estimator::{catalog, encode, estimate, from_query, rank, Bytes, GgmlType, Quant};

fn family(id: &str, quants: &[(Quant, f64)]) -> Family {
    let arch = base().variant("Qwen/Qwen3-8B").unwrap().1.arch.clone();
    Family {
        id: format!("hub:{id}"),
        name: id.into(),
        capability_basis: String::new(),
        variants: vec![Variant {
            id: id.into(),
            name: id.into(),
            capability_rank: 1,
            capability: None,
            arch,
            formats: quants
                .iter()
                .map(|&(q, gb)| Format {
                    id: q,
                    container: Container::Gguf,
                    bytes: Bytes((gb * 1e9) as u64),
                    size: SizeKind::Exact,
                    repo: id.into(),
                    file: format!("m-{q}.gguf"),
                    source: String::new(),
                    embd_type: GgmlType::Q6K,
                    duplicate_output: false,
                    unquantized: Vec::new(),
                    note: None,
                    holds: None,
                })
                .collect(),
        }],
        license: None,
        reasoning: None,
        task: None,
    }
}

#[test]
fn an_import_behaves_like_a_catalog_family_and_the_next_one_replaces_it() {
    let n = base().families.len();
    import(family(
        "someone/Thing-8B-GGUF",
        &[(Quant::Q8_0, 8.7), (Quant::Q4KM, 5.0)],
    ))
    .unwrap();
    assert_eq!(catalog().families.len(), n + 1);
    let d = from_query("model=someone/Thing-8B-GGUF&quant=Q4_K_M&ctx=4096");
    assert!(d.clean(), "{:?}", d.notices);
    let e = estimate(&d.inputs);
    assert!(e.total_device_bytes > Bytes(5_000_000_000), "{e:?}");
    assert!(
        e.command.contains("-hf someone/Thing-8B-GGUF:Q4_K_M"),
        "{}",
        e.command
    );
    assert!(encode(&d.inputs).contains("model=someone/Thing-8B-GGUF"));
    let r = rank(&d.inputs);
    assert!(r.iter().any(|c| c.quant == Quant::Q8_0), "{r:?}");

    import(family("other/Else", &[(Quant::Q4KM, 5.0)])).unwrap();
    assert_eq!(catalog().families.len(), n + 1);
    assert!(catalog().variant("someone/Thing-8B-GGUF").is_none());
    assert!(!from_query("model=someone/Thing-8B-GGUF").clean());

    // A catalog id cannot be shadowed, and an empty family is refused.
    assert!(import(family("Qwen/Qwen3-8B", &[(Quant::Q4KM, 5.0)])).is_err());
    assert!(import(family("x/y", &[])).is_err());
    assert!(
        catalog().variant("other/Else").is_some(),
        "a refused import changes nothing"
    );
}
