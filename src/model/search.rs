//! Model search: type-ahead over the catalog's variant names, repo ids and family names, and
//! what a pasted Hugging Face address or `org/name` stands for. Pure: tested on the host.

use fitcard_estimator::catalog::catalog;

/// One suggestion: a catalog variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// Repo id (the permalink's `model=`).
    pub model: String,
    /// Display name.
    pub name: String,
    /// Its family's display name.
    pub family: String,
}

/// What a typed or pasted text stands for once chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A catalog variant (its repo id as the catalog spells it).
    Catalog(String),
    /// A Hugging Face repo id the catalog does not hold: the page imports it from the Hub.
    Hub(String),
}

/// The longest text read (a pasted address is shorter).
const MAX_CHARS: usize = 200;

/// How well `q` (lower case, non-empty) matches `text`: 0 = prefix, 1 = at a word start,
/// 2 = anywhere; `None` = not at all.
fn rank_in(text: &str, q: &str) -> Option<u8> {
    let t = text.to_ascii_lowercase();
    let k = t.find(q)?;
    if k == 0 {
        return Some(0);
    }
    let at_word = t.match_indices(q).any(|(k, _)| {
        t[..k]
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_ascii_alphanumeric())
    });
    Some(if at_word { 1 } else { 2 })
}

/// Up to `n` catalog variants matching `query`, best first: a match in the name or repo id
/// before one in the family name, a prefix before a word start before anywhere; every word
/// of a query of several words must match somewhere. Ties keep catalog order.
pub fn suggest(query: &str, n: usize) -> Vec<Hit> {
    // ASCII case folding only: the catalog's names are ASCII, and the Unicode case tables
    // would weigh more in the page than the whole search.
    let q: String = query
        .trim()
        .chars()
        .take(MAX_CHARS)
        .collect::<String>()
        .to_ascii_lowercase();
    if q.is_empty() {
        return Vec::new();
    }
    let parts: Vec<&str> = q.split_ascii_whitespace().collect();
    let mut scored: Vec<(u8, Hit)> = Vec::new();
    for f in &catalog().families {
        for v in &f.variants {
            let whole = [&v.name, &v.id]
                .iter()
                .filter_map(|t| rank_in(t, &q))
                .min()
                .or_else(|| rank_in(&f.name, &q).map(|r| r + 3))
                .or_else(|| rank_in(&f.id, &q).map(|r| r + 3));
            let score = whole.or_else(|| {
                let all = format!("{} {} {}", v.name, v.id, f.name).to_ascii_lowercase();
                (parts.len() > 1 && parts.iter().all(|p| all.contains(p))).then_some(6)
            });
            if let Some(s) = score {
                scored.push((
                    s,
                    Hit {
                        model: v.id.clone(),
                        name: v.name.clone(),
                        family: f.name.clone(),
                    },
                ));
            }
        }
    }
    // Best score first; equal scores keep catalog order.
    (0..=6u8)
        .flat_map(|want| scored.iter().filter(move |(s, _)| *s == want))
        .take(n)
        .map(|(_, h)| h.clone())
        .collect()
}

/// The Hugging Face repo id in a pasted address (`https://huggingface.co/org/name/tree/main`,
/// `hf.co/org/name`) or a bare `org/name`; `None` when the text is not one.
pub fn hub_repo(text: &str) -> Option<String> {
    let t = text.trim();
    if t.chars().count() > MAX_CHARS {
        return None;
    }
    let rest = t
        .strip_prefix("https://")
        .or_else(|| t.strip_prefix("http://"))
        .unwrap_or(t);
    let rest = rest.strip_prefix("www.").unwrap_or(rest);
    let (rest, hosted) = match rest
        .strip_prefix("huggingface.co/")
        .or_else(|| rest.strip_prefix("hf.co/"))
    {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let mut segs = rest.split('/');
    let (org, name) = (segs.next()?, segs.next()?);
    // A bare `org/name` has nothing after the name; an address may go on (`/tree/main`, `/blob/…`).
    if !hosted && segs.next().is_some_and(|s| !s.is_empty()) {
        return None;
    }
    let ok = |s: &str| {
        !s.is_empty()
            && s.len() <= 96
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
            && !s.starts_with(['-', '.'])
    };
    // Hub paths that are not models.
    let reserved = [
        "datasets",
        "spaces",
        "docs",
        "blog",
        "models",
        "organizations",
    ];
    (ok(org) && ok(name) && !reserved.contains(&org)).then(|| format!("{org}/{name}"))
}

/// What choosing `text` opens: the catalog variant it names (a repo id or address of one, in
/// any letter case), or the Hub repo the catalog lacks; `None` for other text.
pub fn target(text: &str) -> Option<Target> {
    let repo = hub_repo(text)?;
    Some(match catalog().variant(&repo) {
        Some((_, v)) => Target::Catalog(v.id.clone()),
        None => catalog()
            .families
            .iter()
            .flat_map(|f| &f.variants)
            .find(|v| v.id.eq_ignore_ascii_case(&repo))
            .map_or(Target::Hub(repo), |v| Target::Catalog(v.id.clone())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ids_and_families_are_found_best_first() {
        let hits = suggest("gemma", 50);
        assert!(!hits.is_empty());
        assert!(hits.iter().all(|h| {
            let all = format!("{} {} {}", h.name, h.model, h.family).to_ascii_lowercase();
            all.contains("gemma")
        }));
        // A repo id typed exactly is the first suggestion.
        let first = &catalog().families[0].variants[0];
        assert_eq!(suggest(&first.id, 5)[0].model, first.id);
        assert_eq!(suggest(&first.id.to_uppercase(), 5)[0].model, first.id);
        // Every variant is found by its own name.
        for f in &catalog().families {
            for v in &f.variants {
                assert!(
                    suggest(&v.name, 200).iter().any(|h| h.model == v.id),
                    "{}",
                    v.name
                );
            }
        }
        // A family's name lists its variants.
        let f = &catalog().families[0];
        let hits = suggest(&f.name, 500);
        for v in &f.variants {
            assert!(hits.iter().any(|h| h.model == v.id), "{}", v.id);
        }
        assert!(suggest("   ", 5).is_empty());
        assert!(suggest("zzzz-no-such-model", 5).is_empty());
        assert_eq!(suggest("gemma", 3).len(), 3);
        assert!(suggest(&"q".repeat(100_000), 5).is_empty());
    }

    #[test]
    fn several_words_match_anywhere() {
        let hits = suggest("qwen 8b", 10);
        assert!(hits.iter().any(|h| h.model == "Qwen/Qwen3-8B"), "{hits:?}");
    }

    #[test]
    fn hub_addresses_and_repo_ids() {
        for (text, want) in [
            ("https://huggingface.co/org/name", Some("org/name")),
            (
                "https://huggingface.co/org/name/tree/main",
                Some("org/name"),
            ),
            ("huggingface.co/org/Name-7B.v2?x=1", Some("org/Name-7B.v2")),
            ("hf.co/org/name#readme", Some("org/name")),
            ("  org/name  ", Some("org/name")),
            ("org/name/extra", None),
            ("https://huggingface.co/datasets/org/name", None),
            ("https://huggingface.co/org", None),
            ("just words", None),
            ("org/na me", None),
            ("<script>/x", None),
            ("", None),
        ] {
            assert_eq!(hub_repo(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn a_chosen_text_opens_the_catalog_entry_or_says_it_is_missing() {
        let v = &catalog().families[0].variants[0];
        assert_eq!(target(&v.id), Some(Target::Catalog(v.id.clone())));
        assert_eq!(
            target(&format!("https://huggingface.co/{}", v.id.to_lowercase())),
            Some(Target::Catalog(v.id.clone()))
        );
        assert_eq!(
            target("someone/not-in-the-catalog"),
            Some(Target::Hub("someone/not-in-the-catalog".into()))
        );
        assert_eq!(target("gemma"), None);
    }
}
