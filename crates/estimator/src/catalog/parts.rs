//! The page's catalog in parts, so that a first estimate downloads what it needs and no more:
//! for each catalog model, a catalog of its family alone (the cards, the family, the measured
//! rows of its variants; no cross-family evaluation), named from the model's repo id and the
//! whole catalog's tag. The page fetches the part of the model its link names, reads it as it
//! reads the whole catalog, estimates, then fetches the whole catalog for the rest (the
//! search, the family list, the best-model view). A part's name changes with the catalog, so a
//! cached part of an older build is never asked for; a model the catalog lacks has no part (its
//! page reads the landing view's part instead, [`lite`]).
//!
//! `data/parts/` holds the files (one per variant: the variants of a family share their bytes),
//! kept equal to `data/catalog.postcard` by `tests/page_catalog.rs`, which writes them with
//! `FITCARD_WRITE_CATALOG=1`.

use super::schema::Catalog;

/// The landing view's part (named for the empty model, [`part_name`]): `c` (the page catalog)
/// without what only a command or a measured line reads (the formats' repos and file names, the
/// measured rows), postcard-encoded. The best-model view ranks every model of it (the families,
/// their shapes and format sizes, the cards and the evaluation are all there); the page then
/// reads the whole catalog, as after a model's part. About a fifth smaller than the whole.
pub fn lite(c: &Catalog) -> Vec<u8> {
    let mut c = c.clone();
    for f in c.families.iter_mut().flat_map(|f| f.variants.iter_mut()) {
        for fm in &mut f.formats {
            fm.repo.clear();
            fm.file.clear();
        }
    }
    c.measured.clear();
    super::to_postcard(&c)
}

/// The file name of `model`'s part, for the whole catalog tagged `catalog_tag`: the
/// [`super::tag`] of both, in hex (the repo id is matched case-insensitively, as
/// [`Catalog::variant`] matches it).
///
/// The empty model names the landing view's part ([`lite`]: every model, no repos or files).
pub fn part_name(catalog_tag: u64, model: &str) -> String {
    if model.is_empty() {
        return format!("landing-{catalog_tag:x}.postcard");
    }
    let key = format!("{catalog_tag:x} {}", model.to_ascii_lowercase());
    format!("{:x}.postcard", super::tag(key.as_bytes()))
}

/// `c` (the page catalog, whose postcard bytes have tag `tag`) cut into parts: per variant, its
/// part's file name and bytes (postcard-encoded, a [`Catalog`] of one family).
pub fn split(c: &Catalog, tag: u64) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for f in &c.families {
        let part = Catalog {
            families: vec![f.clone()],
            gpus: c.gpus.clone(),
            common_eval: None,
            measured: c
                .measured
                .iter()
                .filter(|m| f.variants.iter().any(|v| v.id == m.variant))
                .cloned()
                .collect(),
        };
        let bytes = super::to_postcard(&part);
        for v in &f.variants {
            out.push((part_name(tag, &v.id), bytes.clone()));
        }
    }
    out.push((part_name(tag, ""), lite(c)));
    out
}

/// The catalog of `model`'s first estimate from its part's `bytes` (the empty model: the landing
/// view's, [`lite`]). Err in one line when the bytes do not read as a catalog with cards and
/// `model`'s family.
pub fn read_part(bytes: &[u8], model: &str) -> Result<Catalog, String> {
    let c = super::from_postcard(bytes)?;
    if !model.is_empty() && c.variant(model).is_none() {
        return Err(format!("the catalog part does not hold {model}"));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{tag, PAGE_POSTCARD};

    fn page() -> Catalog {
        crate::catalog::from_postcard(PAGE_POSTCARD).unwrap()
    }

    #[test]
    fn a_models_part_gives_its_family_as_the_whole_catalog_has_it() {
        let c = page();
        let t = tag(PAGE_POSTCARD);
        let parts = split(&c, t);
        let n: usize = c.families.iter().map(|f| f.variants.len()).sum();
        assert_eq!(
            parts.len(),
            n + 1,
            "one part per variant, and the landing view's"
        );
        let f = &c.families[c.families.len() / 2];
        let v = f.variants.last().unwrap();
        let name = part_name(t, &v.id.to_ascii_uppercase());
        let (_, bytes) = parts
            .iter()
            .find(|(n, _)| *n == name)
            .expect("named by the id");
        let one = read_part(bytes, &v.id).unwrap();
        assert_eq!(one.families.len(), 1);
        assert_eq!(one.families[0].id, f.id);
        assert_eq!(one.gpus.len(), c.gpus.len());
        let (_, got) = one.variant(&v.id).unwrap();
        assert_eq!(
            postcard::to_allocvec(got).unwrap(),
            postcard::to_allocvec(v).unwrap()
        );
        // Every measured row is in the parts of its variant's family, and only there.
        let rows: usize = c
            .families
            .iter()
            .map(|f| {
                let (_, b) = parts
                    .iter()
                    .find(|(n, _)| *n == part_name(t, &f.variants[0].id))
                    .unwrap();
                read_part(b, &f.variants[0].id).unwrap().measured.len()
            })
            .sum();
        assert_eq!(rows, c.measured.len());
        // Names are distinct, and change with the catalog.
        let mut names: Vec<&String> = parts.iter().map(|(n, _)| n).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n + 1);
        assert_ne!(part_name(t, &v.id), part_name(t ^ 1, &v.id));
    }

    #[test]
    fn the_tag_is_fnv_1a_64_as_the_sites_scripts_compute_it() {
        // scripts/finish-site.mjs and index.html compute the same hash in JavaScript (its
        // stand-in test, tests/e2e/finish-site.test.mjs, expects this value for "catalog").
        assert_eq!(tag(b"catalog"), 0xf992_8605_e9a2_ddd8);
        assert_eq!(tag(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(part_name(0xab, "Org/M"), part_name(0xab, "org/m"));
        assert_eq!(
            part_name(0xab, "org/m"),
            format!("{:x}.postcard", tag(b"ab org/m"))
        );
    }

    #[test]
    fn repos_and_file_names_read_back_from_their_compact_form() {
        let c = page();
        let mut small = c.clone();
        small.compact_files();
        let marks = |c: &Catalog| {
            c.families
                .iter()
                .flat_map(|f| &f.variants)
                .flat_map(|v| &v.formats)
                .filter(|f| {
                    f.repo == "\u{1}"
                        || f.file == "\u{1}"
                        || f.repo == "\u{2}"
                        || f.repo.ends_with('\u{3}')
                })
                .count()
        };
        assert!(
            marks(&small) > 300,
            "most repos and files are written short"
        );
        // The variant's own repo, and a GGUF repo named after the variant, are written short.
        let own = |c: &Catalog, m: &str| {
            c.families
                .iter()
                .flat_map(|f| &f.variants)
                .flat_map(|v| &v.formats)
                .filter(|f| f.repo.ends_with(m))
                .count()
        };
        assert!(own(&small, "\u{2}") > 50 && own(&small, "/\u{3}") > 50);
        let mut back = small.clone();
        back.expand_files();
        assert_eq!(marks(&back), 0);
        let same = |a: &Catalog, b: &Catalog| {
            postcard::to_allocvec(a).unwrap() == postcard::to_allocvec(b).unwrap()
        };
        assert!(same(&back, &c));
        // A catalog written in full (the importer's) reads as it is.
        let mut full = c.clone();
        full.expand_files();
        assert!(same(&full, &c));
        // "The previous repo" on a first format: no repo, never a panic.
        let mut odd = c.clone();
        let f = &mut odd.families[0].variants[0].formats[0];
        f.repo = "\u{1}".into();
        f.file = "\u{1}".into();
        odd.expand_files();
        let f = &odd.families[0].variants[0].formats[0];
        assert_eq!(f.repo, "");
        // The usual file of its container: a GGUF named after the (missing) repo, or every
        // shard of a checkpoint.
        assert!(
            f.file.ends_with(".gguf") || f.file == "model*.safetensors (all shards)",
            "{}",
            f.file
        );
    }

    #[test]
    fn a_damaged_or_wrong_part_is_refused_in_one_line() {
        let c = page();
        let parts = split(&c, tag(PAGE_POSTCARD));
        let other = &c.families[1].variants[0].id;
        let (_, first) = &parts[0];
        let e = read_part(first, other).unwrap_err();
        assert!(e.contains(other.as_str()) && !e.contains('\n'), "{e}");
        assert!(read_part(&first[..first.len() / 2], &c.families[0].variants[0].id).is_err());
        assert!(read_part(b"", "x").is_err());
    }
}
