//! One stable sort for every list the estimator and the page order (candidates, ranked
//! variants, close matches, cards by memory), and the one scorer of names nearest to a typed
//! one ([`nearest_names`]: format names, family ids).
//!
//! Why not `slice::sort_by`: the standard library's stable sort (driftsort) is compiled once
//! per element type and comparator, 3–4 KB of WebAssembly each; seven of them made up 29 KB of
//! the page's code. Here the comparisons run in one non-generic bottom-up merge sort over
//! indices (compiled once), and only the few lines that move the elements into place are
//! generic. The lists are short (at most a few thousand candidates), so the index vectors cost
//! nothing that matters. Same result as `sort_by`, property-tested below.

use core::cmp::Ordering;

/// The stable order of `0..n` under `cmp`: position `k` of the result names the element that
/// goes to position `k` (bottom-up merge sort: O(n log n) comparisons, two index buffers).
fn permutation(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut b = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                // Strictly less takes the right run first: equal elements keep their order.
                if cmp(a[j], a[i]) == Ordering::Less {
                    b[k] = a[j];
                    j += 1;
                } else {
                    b[k] = a[i];
                    i += 1;
                }
                k += 1;
            }
            b[k..k + (mid - i)].copy_from_slice(&a[i..mid]);
            k += mid - i;
            b[k..hi].copy_from_slice(&a[j..hi]);
            lo = hi;
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

/// Sort `v` stably by `cmp`, like `slice::sort_by`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let mut perm = permutation(v.len(), &mut |i, j| cmp(&v[i], &v[j]));
    // Follow each cycle of the permutation with swaps: position `cur` takes the element at
    // `perm[cur]`; a visited position is marked by pointing at itself.
    for start in 0..perm.len() {
        let mut cur = start;
        loop {
            let next = perm[cur];
            perm[cur] = cur;
            if next == start || next == cur {
                break;
            }
            v.swap(cur, next);
            cur = next;
        }
    }
}

/// Sort `v` stably by the key `key` gives, like `slice::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Longest typed name [`nearest_names`] reads, in characters (the edit distance is
/// quadratic in it).
pub const NAME_CHARS: usize = 64;

/// Up to `n` of `names` nearest to `typed`, best first: the same name ignoring case and
/// separators, then a name inside the other (`Q4_K_XL` in `UD-Q4_K_XL`: one edit), then the
/// fewest edits (Levenshtein, over ASCII letters and digits, upper-cased), a shared prefix of up
/// to four characters breaking ties; equal scores keep the list's order. Only the first
/// [`NAME_CHARS`] characters of `typed` are read.
pub fn nearest_names<'a>(typed: &str, names: &[&'a str], n: usize) -> Vec<&'a str> {
    let norm = |x: &str| -> Vec<u8> {
        x.bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_uppercase())
            .collect()
    };
    let typed: String = typed.chars().take(NAME_CHARS).collect();
    let want = norm(&typed);
    let mut scored: Vec<(usize, &'a str)> = names
        .iter()
        .map(|name| {
            let id = norm(name);
            let prefix = id.iter().zip(&want).take_while(|(a, b)| a == b).count();
            let inside = contains(&id, &want) || contains(&want, &id);
            let d = edit_distance(&id, &want);
            let d = if inside { d.min(1) } else { d };
            (d * 4 + 4usize.saturating_sub(prefix.min(4)), *name)
        })
        .collect();
    sort_by_key(&mut scored, |&(k, _)| k);
    scored.into_iter().take(n).map(|(_, id)| id).collect()
}

/// Does `hay` hold `needle` as a run of bytes?
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// Levenshtein distance between two byte strings.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_nearest_name_is_the_same_name_written_otherwise_then_the_fewest_edits() {
        let names = [
            "Q4_K_M",
            "Q4_K_S",
            "IQ2_XXS",
            "UD-Q3_K_XL",
            "qwen3",
            "qwen3.5",
        ];
        assert_eq!(nearest_names("q4km", &names, 1), vec!["Q4_K_M"]);
        assert_eq!(nearest_names("iq2xxs", &names, 1), vec!["IQ2_XXS"]);
        assert_eq!(nearest_names("Q3_K_XL", &names, 1), vec!["UD-Q3_K_XL"]);
        assert_eq!(
            nearest_names("qwen3.6", &names, 2),
            vec!["qwen3", "qwen3.5"]
        );
        assert_eq!(nearest_names("x", &names, 0), Vec::<&str>::new());
        // A long typed name is cut, not read whole.
        let long = "Q".repeat(100_000);
        assert_eq!(nearest_names(&long, &names, 6).len(), 6);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The same order as the standard library's stable sort, ties included.
        #[test]
        fn agrees_with_the_standard_stable_sort(keys in proptest::collection::vec(0u8..6, 0..200)) {
            let items: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std_order = items.clone();
            std_order.sort_by_key(|a| a.0);
            prop_assert_eq!(&ours, &std_order);
            let mut desc = items.clone();
            sort_by_key(&mut desc, |x| std::cmp::Reverse(x.0));
            let mut std_desc = items;
            std_desc.sort_by_key(|x| std::cmp::Reverse(x.0));
            prop_assert_eq!(desc, std_desc);
        }
    }

    #[test]
    fn floats_by_total_order() {
        let mut v = [3.5, -1.0, f64::NAN, 0.0, -0.0, 2.0];
        sort_by(&mut v, f64::total_cmp);
        let bits: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
        let mut w = [3.5, -1.0, f64::NAN, 0.0, -0.0, 2.0];
        w.sort_by(f64::total_cmp);
        assert_eq!(bits, w.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    }
}
