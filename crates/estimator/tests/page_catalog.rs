//! The page reads its catalog postcard-encoded (`data/catalog.postcard`, no JSON parser in the
//! wasm). This keeps that file equal to the catalog files: after changing a family, a GPU or the
//! evaluation, regenerate it with
//! `FITCARD_WRITE_CATALOG=1 cargo test -p fitcard-estimator --test page_catalog`.

use fitcard_estimator::catalog::{Catalog, PAGE_JSON, PAGE_POSTCARD};

#[test]
fn the_pages_catalog_encodes_the_catalog_files() {
    let c: Catalog = serde_json::from_str(PAGE_JSON).expect("the page's catalog parses");
    let bytes = postcard::to_allocvec(&c).expect("encodes");
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
    let back: Catalog = postcard::from_bytes(PAGE_POSTCARD).expect("decodes");
    assert_eq!(postcard::to_allocvec(&back).unwrap(), bytes);
    assert_eq!(back.families.len(), c.families.len());
    assert!(back.gpus.iter().all(|g| g.source.is_empty()));
}
