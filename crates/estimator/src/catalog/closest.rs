//! The catalog entry nearest to a name a user typed or a repo carries.

use super::*;

/// The `n` catalog variants most like `id`, a Hugging Face repo id the catalog does not hold,
/// best first, for a page that cannot estimate `id` and offers these instead. Closeness: the
/// same model family name (`llama`, `qwen`, …), then the same publisher, then the nearest
/// parameter count (`70B`), then shared name parts; ties keep catalog order. Only the first
/// 200 characters of `id` are read.
pub fn closest(id: &str, n: usize) -> Vec<&'static Variant> {
    let want = &IdParts::parse(id);
    let mut scored: Vec<(f64, &'static Variant)> = catalog()
        .families
        .iter()
        .flat_map(|f| f.variants.iter().map(move |v| (want.similarity(f, v), v)))
        .collect();
    // The best n by selection (n is small): the first of equal scores wins.
    let mut out = Vec::with_capacity(n.min(scored.len()));
    while out.len() < n && !scored.is_empty() {
        let best = (1..scored.len()).fold(0, |b, k| if scored[k].0 > scored[b].0 { k } else { b });
        out.push(scored.remove(best).1);
    }
    out
}

/// The words that tell a release of a model from its sibling: an instruct or chat release
/// beside its base (`Llama-2-7b-chat-hf` ↔ `Llama-2-7b-hf`, `gemma-7b-it` ↔ `gemma-7b`,
/// `Mistral-7B-Instruct-v0.3` ↔ `Mistral-7B-v0.3`, `Qwen3-8B` ↔ `Qwen3-8B-Base`).
const RELEASE_WORDS: [&str; 4] = ["instruct", "chat", "it", "base"];

/// A repo name's `-`-separated words, lower case, `_` as `-`.
fn words(name: &str) -> Vec<String> {
    name.to_ascii_lowercase()
        .replace('_', "-")
        .split('-')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Are `a` and `b` one release word apart ([`RELEASE_WORDS`]), the rest in order?
fn one_release_word_apart(a: &[String], b: &[String]) -> bool {
    let (long, short) = if a.len() > b.len() { (a, b) } else { (b, a) };
    long.len() == short.len() + 1
        && (0..long.len()).any(|k| {
            RELEASE_WORDS.contains(&long[k].as_str())
                && long[..k] == short[..k]
                && long[k + 1..] == short[k..]
        })
}

/// The catalog variant `id` is a sibling release of (same publisher, names one release word
/// apart: the base of an instruct model, or the other way round), as a family of its own for
/// `id`: the sibling's architecture (base and instruct releases of one model share their
/// tensors; `id`'s own config is not read), its vendor checkpoint formats pointed at `id`
/// (their sizes the sibling's, marked computed), named so. `None` when the catalog holds `id`
/// or no sibling. Only the first 200 characters of `id` are read.
pub fn sibling(id: &str) -> Option<Family> {
    let id: String = id.chars().take(200).collect();
    let (org, name) = id.split_once('/')?;
    let cat = catalog();
    if cat.variant(&id).is_some() {
        return None;
    }
    let want = words(name);
    let (f, v) = cat.families.iter().find_map(|f| {
        f.variants
            .iter()
            .find(|v| {
                v.id.split_once('/').is_some_and(|(o, n)| {
                    o.eq_ignore_ascii_case(org) && one_release_word_apart(&words(n), &want)
                })
            })
            .map(|v| (f, v))
    })?;
    let mut out = v.clone();
    out.id = id.clone();
    out.name = format!("{name} (shapes of {})", v.name);
    out.capability = None;
    out.formats.retain(|fm| fm.repo.eq_ignore_ascii_case(&v.id));
    for fm in &mut out.formats {
        fm.repo = id.clone();
        fm.size = SizeKind::Computed;
        fm.source = format!(
            "the size of {}'s {} checkpoint: {id} is its sibling release, same tensors",
            v.id, fm.id
        );
    }
    if out.formats.is_empty() {
        return None;
    }
    Some(Family {
        id: format!("{IMPORTED_PREFIX}{id}"),
        name: format!("{name} (the architecture of {})", v.id),
        capability_basis: format!(
            "{id} is a sibling release of {} (base or instruct): its architecture, not its capability",
            f.name
        ),
        variants: vec![out],
        license: f.license.clone(),
        reasoning: f.reasoning,
        task: f.task,
    })
}

/// A model id taken apart for [`closest`]: publisher, name parts, parameter count.
struct IdParts {
    org: Option<String>,
    /// Runs of letters, and numbers with their decimal points (`llama`, `3.3`, `70`, `b`).
    tokens: Vec<String>,
    /// Billions of parameters written in the name (`70B`, `360M`), if any.
    params: Option<f64>,
}

impl IdParts {
    fn parse(id: &str) -> IdParts {
        let id: String = id
            .chars()
            .take(200)
            .collect::<String>()
            .to_ascii_lowercase();
        let (org, name) = match id.split_once('/') {
            Some((o, n)) => (Some(o.to_string()), n),
            None => (None, id.as_str()),
        };
        let tokens = name_tokens(name);
        IdParts {
            org,
            params: params_of(&tokens),
            tokens,
        }
    }

    fn similarity(&self, f: &Family, v: &Variant) -> f64 {
        let theirs = IdParts::parse(&v.id);
        let mut score = 0.0;
        // The family's own word: the first run of letters of its name (`Llama 3.1` → `llama`).
        if let Some(word) = name_tokens(&f.name.to_ascii_lowercase())
            .into_iter()
            .find(|t| t.chars().all(|c| c.is_ascii_alphabetic()))
        {
            if self.tokens.contains(&word) {
                score += 4.0;
            }
        }
        if self.org.is_some() && self.org == theirs.org {
            score += 2.0;
        }
        let params = theirs
            .params
            .or_else(|| params_of(&name_tokens(&v.name.to_ascii_lowercase())));
        if let (Some(a), Some(b)) = (self.params, params) {
            // Full marks for the same size, less the further apart (8× apart: about a third).
            score += 3.0 * (a.min(b) / a.max(b)).sqrt();
        }
        // Shared as multisets: a word counts as often as both names write it
        // (`gemma-2-2b-jpn-it` shares two `2`s with `gemma-2-2b-it`, one with `gemma-2b-it`).
        let mut left: Vec<&String> = theirs.tokens.iter().collect();
        let shared = self
            .tokens
            .iter()
            .filter(|t| {
                let at = left.iter().position(|u| u == t);
                at.map(|k| left.swap_remove(k)).is_some()
            })
            .count();
        let union = self.tokens.len() + theirs.tokens.len() - shared;
        if union > 0 {
            score += 2.0 * shared as f64 / union as f64;
        }
        score
    }
}

/// Runs of ASCII letters and of digits (with the dots between digits) of a lower-cased name;
/// anything else separates them.
fn name_tokens(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_digit = false;
    let chars: Vec<char> = s.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        let digit = c.is_ascii_digit()
            || (c == '.' && prev_digit && chars.get(k + 1).is_some_and(|d| d.is_ascii_digit()));
        let letter = c.is_ascii_alphabetic();
        if (digit || letter) && !cur.is_empty() && digit != prev_digit {
            out.push(std::mem::take(&mut cur));
        }
        if digit || letter {
            cur.push(c);
            prev_digit = digit;
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The first number followed by `b` (billions) or `m` (millions), in billions.
fn params_of(tokens: &[String]) -> Option<f64> {
    tokens.windows(2).find_map(|w| {
        let x = crate::units::parse_decimal(&w[0]).filter(|x| x.is_finite() && *x > 0.0)?;
        match w[1].as_str() {
            "b" => Some(x),
            "m" => Some(x / 1000.0),
            _ => None,
        }
    })
}

#[cfg(test)]
mod closest_tests {
    use super::*;

    fn ids(id: &str, n: usize) -> Vec<&'static str> {
        closest(id, n).into_iter().map(|v| v.id.as_str()).collect()
    }

    #[test]
    fn the_nearest_family_and_size_come_first() {
        // (requested id, expected first suggestion)
        let rows = [
            (
                "meta-llama/Meta-Llama-3-70B",
                "meta-llama/Meta-Llama-3-70B-Instruct",
            ),
            ("Qwen/Qwen2-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
            ("google/gemma-2-27b", "google/gemma-2-27b-it"),
            ("google/gemma-3-270m", "google/gemma-3-270m-it"),
            ("google/gemma-2-2b-jpn-it", "google/gemma-2-2b-it"),
            (
                "mistralai/Mixtral-8x7B-v0.1",
                "mistralai/Mixtral-8x7B-Instruct-v0.1",
            ),
            ("openai/gpt-oss-safeguard-20b", "openai/gpt-oss-20b"),
            (
                "microsoft/Phi-3.5-mini-instruct",
                "microsoft/Phi-4-mini-instruct",
            ),
            // An id the catalog holds is its own nearest entry.
            ("Qwen/Qwen3-14B", "Qwen/Qwen3-14B"),
        ];
        for (id, want) in rows {
            assert_eq!(ids(id, 3)[0], want, "{id}: {:?}", ids(id, 3));
        }
        // The nearest to a Llama are Llamas, the nearest size first.
        assert_eq!(
            ids("meta-llama/Meta-Llama-3-70B", 4),
            [
                "meta-llama/Meta-Llama-3-70B-Instruct",
                "meta-llama/Llama-3.3-70B-Instruct",
                "meta-llama/Llama-3.1-70B-Instruct",
                "meta-llama/Llama-2-70b-chat-hf",
            ]
        );
    }

    #[test]
    fn any_input_gives_n_distinct_entries_in_a_stable_order() {
        let total: usize = catalog().families.iter().map(|f| f.variants.len()).sum();
        let long = "x".repeat(100_000);
        for id in [
            "",
            "no such thing",
            "\u{0}\u{1b}[31m/\u{ffff}",
            "%zz",
            long.as_str(),
        ] {
            let got = ids(id, 4);
            assert_eq!(got.len(), 4.min(total), "{id:.20}");
            let mut d = got.clone();
            d.sort_unstable();
            d.dedup();
            assert_eq!(d.len(), got.len(), "{id:.20}");
            assert_eq!(got, ids(id, 4), "deterministic");
        }
        assert!(closest("meta-llama/Llama-3.3-70B-Instruct", 0).is_empty());
        assert_eq!(closest("x", total + 5).len(), total);
    }

    #[test]
    fn names_split_into_words_numbers_and_sizes() {
        let t = name_tokens("llama-3.3-70b-instruct");
        assert_eq!(t, ["llama", "3.3", "70", "b", "instruct"]);
        assert_eq!(params_of(&t), Some(70.0));
        assert_eq!(params_of(&name_tokens("qwen3-30b-a3b")), Some(30.0));
        assert_eq!(params_of(&name_tokens("gemma-3n-e4b-it")), Some(4.0));
        assert_eq!(params_of(&name_tokens("smollm2-360m")), Some(0.36));
        assert_eq!(params_of(&name_tokens("phi-4")), None);
        assert_eq!(name_tokens("v0.3."), ["v", "0.3"]);
    }
}

#[cfg(test)]
mod sibling_tests {
    use super::*;

    /// Base and instruct releases of one model find each other; other names do not.
    #[test]
    fn a_base_release_finds_its_instruct_sibling() {
        for (id, of) in [
            ("meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-7b-chat-hf"),
            (
                "meta-llama/Llama-2-70b-hf",
                "meta-llama/Llama-2-70b-chat-hf",
            ),
            (
                "mistralai/Mistral-7B-v0.3",
                "mistralai/Mistral-7B-Instruct-v0.3",
            ),
            ("Qwen/Qwen2.5-7B", "Qwen/Qwen2.5-7B-Instruct"),
            ("Qwen/Qwen3-8B-Base", "Qwen/Qwen3-8B"),
        ] {
            let f = sibling(id).unwrap_or_else(|| panic!("{id}"));
            let v = &f.variants[0];
            assert_eq!(v.id, id);
            assert!(f.name.contains(of), "{}", f.name);
            let base = catalog().variant(of).unwrap().1;
            assert_eq!(format!("{:?}", v.arch), format!("{:?}", base.arch), "{id}");
            assert!(
                !v.formats.is_empty()
                    && v.formats
                        .iter()
                        .all(|x| x.repo == id && x.size == SizeKind::Computed)
            );
            assert!(v.capability.is_none());
        }
        for id in [
            "meta-llama/Llama-2-7b-chat-hf",
            "someone/Llama-2-7b-hf",
            "meta-llama/Llama-2-7b-code-hf",
            "Qwen/Qwen3-8B-Instruct-Base",
            "no-slash",
        ] {
            assert!(sibling(id).is_none(), "{id}");
        }
    }
}
