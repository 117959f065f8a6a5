//! One stable sort for every list the estimator and the page order (candidates, ranked
//! variants, close matches, cards by memory).
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
