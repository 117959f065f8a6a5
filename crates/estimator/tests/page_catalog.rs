//! The page reads its catalog postcard-encoded (`data/catalog.postcard`, no JSON parser in the
//! wasm). This keeps that file equal to the catalog files: after changing a family, a GPU or the
//! evaluation, regenerate it with
//! `FITCARD_WRITE_CATALOG=1 cargo test -p fitcard-estimator --test page_catalog`.

use fitcard_estimator::catalog::{to_postcard, Catalog, PAGE_JSON, PAGE_POSTCARD};

#[test]
fn the_pages_catalog_encodes_the_catalog_files() {
    let c: Catalog = serde_json::from_str(PAGE_JSON).expect("the page's catalog parses");
    let bytes = to_postcard(&c);
    if std::env::var_os("FITCARD_WRITE_CATALOG").is_some() {
        let p = concat!(env!("CARGO_MANIFEST_DIR"), "/data/catalog.postcard");
        std::fs::write(p, &bytes).expect("write data/catalog.postcard");
        return;
    }
    assert!(
        bytes == PAGE_POSTCARD,
        "data/catalog.postcard is stale ({} bytes, the catalog files give {}): run \
         FITCARD_WRITE_CATALOG=1 cargo test -p fitcard-estimator --test page_catalog",
        PAGE_POSTCARD.len(),
        bytes.len()
    );
    // It decodes to the same catalog, and without the source texts.
    let back = fitcard_estimator::catalog::from_postcard(PAGE_POSTCARD).expect("decodes");
    assert_eq!(to_postcard(&back), bytes);
    // Every repo and file name reads back as the catalog files write it.
    assert_eq!(
        postcard::to_allocvec(&back).unwrap(),
        postcard::to_allocvec(&c).unwrap()
    );
    assert_eq!(back.families.len(), c.families.len());
    assert!(back.gpus.iter().all(|g| g.source.is_empty()));
}

/// The page's first estimate reads the catalog in parts (`data/parts/`: per variant, a catalog
/// of its family, cut from `data/catalog.postcard` by `catalog::parts::split`); they are kept
/// equal to it here, and written with the same `FITCARD_WRITE_CATALOG=1`.
#[test]
fn the_catalog_parts_are_cut_from_the_pages_catalog() {
    use fitcard_estimator::catalog::{from_postcard, parts, tag};
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data/parts"));
    let c = from_postcard(PAGE_POSTCARD).expect("the page's catalog decodes");
    let want = parts::split(&c, tag(PAGE_POSTCARD));
    if std::env::var_os("FITCARD_WRITE_CATALOG").is_some() {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).expect("create data/parts");
        for (name, bytes) in &want {
            std::fs::write(dir.join(name), bytes).expect("write a catalog part");
        }
        return;
    }
    let fix = "run FITCARD_WRITE_CATALOG=1 cargo test -p fitcard-estimator --test page_catalog";
    let mut have: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|_| panic!("data/parts is missing: {fix}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    have.sort();
    let mut names: Vec<String> = want.iter().map(|(n, _)| n.clone()).collect();
    names.sort();
    assert!(
        have == names,
        "data/parts holds other files than the catalog's parts: {fix}"
    );
    for (name, bytes) in &want {
        assert!(
            std::fs::read(dir.join(name)).ok().as_ref() == Some(bytes),
            "data/parts/{name} is stale: {fix}"
        );
    }
}

/// The landing view's part (`data/parts/landing-<tag>.postcard`: the page catalog without repos,
/// file names and measured rows, `catalog::parts::lite`): every model, about a fifth smaller.
#[test]
fn the_landing_part_is_the_pages_catalog_without_its_files() {
    use fitcard_estimator::catalog::{from_postcard, parts, tag};
    if std::env::var_os("FITCARD_WRITE_CATALOG").is_some() {
        return; // written by the_catalog_parts_are_cut_from_the_pages_catalog
    }
    let c = from_postcard(PAGE_POSTCARD).expect("the page's catalog decodes");
    let name = parts::part_name(tag(PAGE_POSTCARD), "");
    assert!(name.starts_with("landing-"), "{name}");
    let bytes = std::fs::read(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data/parts")).join(&name),
    )
    .expect("the landing part is written with the others");
    let lite = parts::read_part(&bytes, "").expect("the landing part decodes");
    // Every family, variant, format size, card and evaluation row; no repo, file or measured row.
    assert_eq!(lite.families.len(), c.families.len());
    assert_eq!(lite.gpus.len(), c.gpus.len());
    assert_eq!(lite.common_eval.is_some(), c.common_eval.is_some());
    let formats = |c: &Catalog| -> Vec<(String, u64)> {
        c.families
            .iter()
            .flat_map(|f| &f.variants)
            .flat_map(|v| {
                v.formats
                    .iter()
                    .map(|f| (format!("{} {}", v.id, f.id), f.bytes.0))
            })
            .collect()
    };
    assert_eq!(formats(&lite), formats(&c));
    let files = lite
        .families
        .iter()
        .flat_map(|f| &f.variants)
        .flat_map(|v| &v.formats)
        .filter(|f| !f.repo.is_empty() || !f.file.is_empty())
        .count();
    assert_eq!(files, 0);
    assert!(lite.measured.is_empty() && !c.measured.is_empty());
    assert!(
        bytes.len() * 5 < PAGE_POSTCARD.len() * 4,
        "{} vs {}",
        bytes.len(),
        PAGE_POSTCARD.len()
    );
}
