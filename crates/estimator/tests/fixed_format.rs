//! `units::Fixed` and `units::Shortest` write exactly what `format!("{:.d$}")` and
//! `format!("{}")` write: hand-picked ties and edge values, then millions of random doubles
//! (uniform bit patterns, values a few ulps from the ties k/10^d, typical GiB and
//! bytes-per-token values), then proptest for shrinking.

use fitcard_estimator::units::{Fixed, Shortest};
use proptest::prelude::*;

fn check_fixed(x: f64, d: u8) {
    let want = format!("{:.*}", usize::from(d), x);
    let got = Fixed(x, d).to_string();
    assert_eq!(got, want, "Fixed({x:e}, {d}) (bits {:#x})", x.to_bits());
}

fn check_shortest(x: f64) {
    let want = format!("{x}");
    let got = Shortest(x).to_string();
    assert_eq!(got, want, "Shortest({x:e}) (bits {:#x})", x.to_bits());
}

mod common;
use common::Rng;

impl Rng {
    /// A double with uniform bits whose magnitude is below `max`.
    fn bits_below(&mut self, max: f64) -> f64 {
        loop {
            let x = f64::from_bits(self.next());
            if x.is_finite() && x.abs() < max {
                return x;
            }
        }
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn step(x: f64, k: i64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let b = x.to_bits() as i64 + k;
    f64::from_bits(b as u64)
}

#[test]
fn hand_picked_ties_and_edges() {
    let rows: [(f64, u8, &str); 14] = [
        (0.125, 2, "0.12"),
        (0.375, 2, "0.38"),
        (1.25, 1, "1.2"),
        (1.35, 1, "1.4"), // 1.350000000000000088…
        (0.15, 1, "0.1"), // 0.149999999999999994…
        (2.5, 0, "2"),
        (3.5, 0, "4"),
        (0.5, 0, "0"),
        (-0.0, 1, "-0.0"),
        (-0.01, 1, "-0.0"),
        (f64::NAN, 2, "NaN"),
        (f64::INFINITY, 1, "inf"),
        (f64::NEG_INFINITY, 1, "-inf"),
        (1e300, 0, "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160"),
    ];
    for (x, d, want) in rows {
        assert_eq!(Fixed(x, d).to_string(), want, "{x} {d}");
        check_fixed(x, d);
    }
    let specials = [
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        4_503_599_627_370_496.5,
        9_007_199_254_740_991.0,
        9_007_199_254_740_992.0,
        1.8e15,
        1.8e19,
        18_446_744_073_709_551_615.0,
        1e15 - 0.5,
        999_999_999_999_999.9,
        0.05,
        0.005,
        0.0005,
        0.00005,
        1.0 / 3.0,
        2.0 / 3.0,
    ];
    for x in specials {
        for d in 0..=17 {
            check_fixed(x, d);
            check_fixed(-x, d);
        }
        if x == 0.0 || (1e-5..9e15).contains(&x) {
            check_shortest(x);
            check_shortest(-x);
        }
    }
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        check_shortest(x);
    }
    // Every k/10^d ± a few ulps, for small k (where ties are exact: k·5/10^(d+1) with k odd).
    for d in 0..=4u8 {
        let p = 10f64.powi(i32::from(d));
        for k in 0..20_000 {
            let t = (f64::from(k) + 0.5) / p;
            for u in -3..=3 {
                check_fixed(step(t, u), d);
                check_fixed(-step(t, u), d);
            }
        }
    }
    // Exact binary ties: j/2^m.
    for m in 1..=12 {
        for j in 0..(1 << m) {
            let x = j as f64 / (1u64 << m) as f64 + 7.0;
            for d in 0..=12 {
                check_fixed(x, d);
            }
        }
    }
}

#[test]
fn flags_as_core_writes_them() {
    for x in [
        1.25,
        -1.25,
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let f = Fixed(x, 1);
        assert_eq!(format!("{f:+}"), format!("{x:+.1}"));
        assert_eq!(format!("{f:08}"), format!("{x:08.1}"));
        assert_eq!(format!("{f:>8}"), format!("{x:>8.1}"));
        assert_eq!(format!("{f:<8}|"), format!("{x:<8.1}|"));
        assert_eq!(format!("{f:^9}|"), format!("{x:^9.1}|"));
        assert_eq!(format!("{f:+09}"), format!("{x:+09.1}"));
    }
}

#[test]
fn millions_of_random_doubles() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..1_000_000u32 {
        let d = (i % 5) as u8;
        // Uniform bit patterns below 1e15.
        check_fixed(r.bits_below(1e15), d);
        // A few ulps from a tie k/10^d + 1/(2·10^d).
        let p = 10f64.powi(i32::from(d));
        let k = (r.next() % 10_000_000) as f64;
        let t = (k + 0.5) / p;
        check_fixed(step(t, (r.next() % 7) as i64 - 3), d);
        // GiB and MiB values of byte counts, bytes per token, ratios.
        let bytes = r.next() % (1 << 44);
        check_fixed(bytes as f64 / (1u64 << 30) as f64, 2);
        check_fixed(bytes as f64 / (1u64 << 20) as f64, 1);
        check_fixed(r.unit() * 100.0, 1);
        // Any precision up to 17 on any magnitude.
        check_fixed(r.bits_below(1e20), (r.next() % 18) as u8);
    }
}

#[test]
fn shortest_on_random_and_typed_values() {
    let mut r = Rng(0xD1B5_4A32_D192_ED03);
    for _ in 0..1_000_000u32 {
        // Uniform bits in the documented range.
        let x = r.bits_below(9.007_199_254_740_992e15);
        if x == 0.0 || x.abs() >= 1e-5 {
            check_shortest(x);
        }
        // What people type: up to 15 significant digits, up to 6 decimals.
        let digits = r.next() % 1_000_000_000_000_000;
        let scale = 10f64.powi((r.next() % 7) as i32);
        check_shortest(digits as f64 / scale);
        check_shortest((r.next() % 100_000) as f64 / 1000.0);
        // Computed values of the estimator's size.
        check_shortest(r.unit() * 4096.0);
        check_shortest(step(r.unit() * 64.0, (r.next() % 5) as i64 - 2));
    }
    // Powers of two (the gap below is half the gap above).
    for k in -16..=52 {
        let x = 2f64.powi(k);
        for u in -2..=2 {
            check_shortest(step(x, u));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, .. ProptestConfig::default() })]

    /// Any finite double below 1e15 and any precision up to 4.
    #[test]
    fn fixed_matches_core(x in -1e15..1e15f64, d in 0u8..=4) {
        check_fixed(x, d);
    }

    /// Any bit pattern, any precision up to 17.
    #[test]
    fn fixed_matches_core_on_any_bits(bits in any::<u64>(), d in 0u8..=17) {
        check_fixed(f64::from_bits(bits), d);
    }

    /// The shortest form on the documented range.
    #[test]
    fn shortest_matches_core(x in 1e-5..9e15f64, neg in any::<bool>()) {
        check_shortest(if neg { -x } else { x });
    }
}
