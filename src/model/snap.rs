//! Slider stops. A range input moves over an index; these functions turn the index into a
//! value and back. The context slider is logarithmic: its stops are the powers of two from
//! [`MIN_CTX`] to the model's maximum plus the model's own documented context lengths, so every
//! step doubles the context and the lengths people actually use are always reachable.

use fitcard_estimator::units::Tokens;

/// Smallest context the slider offers.
pub const MIN_CTX: Tokens = 512;

/// Context stops for a model: powers of two in `MIN_CTX..=max_ctx`, the model's `native` lengths
/// and `max_ctx` itself, ascending without duplicates.
pub fn ctx_stops(max_ctx: Tokens, native: &[Tokens]) -> Vec<Tokens> {
    let top = max_ctx.max(1);
    let mut v: Vec<Tokens> = std::iter::successors(Some(MIN_CTX), |&c| c.checked_mul(2))
        .take_while(|&c| c <= top)
        .chain(native.iter().copied().filter(|&c| c <= top))
        .chain(std::iter::once(top))
        .collect();
    fitcard_estimator::order::sort_by(&mut v, Ord::cmp);
    v.dedup();
    v
}

/// Index of the stop nearest to `value` on a log scale (ties go to the smaller stop). A value
/// from a permalink that is not a stop puts the thumb at its nearest stop; the label still shows
/// the exact value.
pub fn nearest(stops: &[Tokens], value: Tokens) -> usize {
    let lv = f64::from(value.max(1)).ln();
    let mut best = 0;
    let mut dist = f64::INFINITY;
    for (k, &s) in stops.iter().enumerate() {
        let d = (f64::from(s.max(1)).ln() - lv).abs();
        if d < dist - 1e-12 {
            best = k;
            dist = d;
        }
    }
    best
}

/// Upper end of a linear slider: `default_max`, widened to hold a larger current value.
pub fn linear_max(default_max: u32, value: u32) -> u32 {
    default_max.max(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_are_powers_of_two_plus_native_lengths() {
        // (max_ctx, native, expected stops)
        let rows: [(Tokens, &[Tokens], &[Tokens]); 4] = [
            // gemma-3-1b: 32K max, 32K native.
            (
                32768,
                &[32768],
                &[512, 1024, 2048, 4096, 8192, 16384, 32768],
            ),
            // Qwen3-style: native 32K and 40K, max 40960 (not a power of two).
            (
                40960,
                &[32768, 40960],
                &[512, 1024, 2048, 4096, 8192, 16384, 32768, 40960],
            ),
            // A native length above max_ctx is ignored; max_ctx is always a stop.
            (3000, &[8192], &[512, 1024, 2048, 3000]),
            // A model smaller than the minimum offers only its maximum.
            (256, &[], &[256]),
        ];
        for (max, native, want) in rows {
            assert_eq!(ctx_stops(max, native), want, "max {max}");
        }
    }

    #[test]
    fn nearest_is_logarithmic() {
        let s = ctx_stops(131072, &[32768, 131072]);
        // (value, expected stop)
        let rows = [
            (8192, 8192),     // exact
            (5000, 4096),     // log2 5000 = 12.29: nearer 4096
            (6000, 8192),     // log2 6000 = 12.55: nearer 8192
            (1, 512),         // below the first stop
            (999999, 131072), // beyond the last stop
        ];
        for (v, want) in rows {
            assert_eq!(s[nearest(&s, v)], want, "value {v}");
        }
        assert_eq!(nearest(&[], 5), 0);
    }

    #[test]
    fn linear_max_widens_for_large_values() {
        assert_eq!(linear_max(64, 3), 64);
        assert_eq!(linear_max(64, 256), 256);
    }
}
