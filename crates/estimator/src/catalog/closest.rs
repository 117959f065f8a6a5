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
        let shared = self
            .tokens
            .iter()
            .filter(|t| theirs.tokens.contains(t))
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
