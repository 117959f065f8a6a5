//! Quantities as types, and their display.
//!
//! Binary units everywhere: 1 GiB = 2^30 bytes, 1 MiB = 2^20 bytes. Published file sizes are
//! decimal (1 GB = 10^9 bytes) and are converted to bytes once, in the catalog; from there on
//! only [`Bytes`] travels.

use serde::{Deserialize, Serialize};
use std::fmt;

/// 2^20 bytes.
pub const MIB: u64 = 1 << 20;
/// 2^30 bytes.
pub const GIB: u64 = 1 << 30;

/// A count of bytes. Saturating arithmetic: no estimate can overflow or wrap.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Bytes(pub u64);

impl Bytes {
    /// No bytes.
    pub const ZERO: Bytes = Bytes(0);

    /// Bytes from a (finite, non-negative) number of GiB, rounded to the nearest byte.
    pub fn from_gib(gib: f64) -> Bytes {
        Bytes::from_f64(gib * GIB as f64)
    }

    /// Bytes from a real number, rounded; negative or NaN become 0, huge values saturate.
    pub fn from_f64(x: f64) -> Bytes {
        if x.is_nan() || x <= 0.0 {
            Bytes(0)
        } else if x >= u64::MAX as f64 {
            Bytes(u64::MAX)
        } else {
            Bytes(x.round() as u64)
        }
    }

    /// The count.
    pub fn get(self) -> u64 {
        self.0
    }
    /// The count as a float.
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }
    /// In GiB (2^30 bytes).
    pub fn gib(self) -> f64 {
        self.0 as f64 / GIB as f64
    }
    /// In MiB (2^20 bytes).
    pub fn mib(self) -> f64 {
        self.0 as f64 / MIB as f64
    }
    /// `self − o`, at least 0.
    pub fn saturating_sub(self, o: Bytes) -> Bytes {
        Bytes(self.0.saturating_sub(o.0))
    }
    /// `self × k`, saturating.
    pub fn times(self, k: u64) -> Bytes {
        Bytes(self.0.saturating_mul(k))
    }
    /// Ceiling division (shards of a total across `n` cards).
    pub fn div_ceil(self, n: u64) -> Bytes {
        if n == 0 {
            self
        } else {
            Bytes(self.0.div_ceil(n))
        }
    }
    /// `self × k`, rounded (negative or NaN → 0).
    pub fn scale(self, k: f64) -> Bytes {
        Bytes::from_f64(self.0 as f64 * k)
    }

    /// Split `self` into parts proportional to `weights`, in whole bytes that sum exactly to
    /// `self` (largest-remainder rounding: the first parts take the leftover bytes, one each).
    /// All-zero weights put the whole total on the first part, so the parts still sum to it;
    /// empty weights give no part.
    pub fn split(self, weights: &[u64]) -> Vec<Bytes> {
        let sum: u128 = weights.iter().map(|&w| w as u128).sum();
        if sum == 0 {
            let mut parts = vec![Bytes::ZERO; weights.len()];
            if let Some(first) = parts.first_mut() {
                *first = self;
            }
            return parts;
        }
        let total = self.0 as u128;
        let mut parts: Vec<u64> = weights
            .iter()
            .map(|&w| (total * w as u128 / sum) as u64)
            .collect();
        let mut left = self.0 - parts.iter().sum::<u64>();
        // At most `weights.len()` bytes are left over; give them to the positive weights in order.
        let mut k = 0;
        while left > 0 {
            if weights[k % weights.len()] > 0 {
                parts[k % weights.len()] += 1;
                left -= 1;
            }
            k += 1;
        }
        parts.into_iter().map(Bytes).collect()
    }
}

impl std::ops::Add for Bytes {
    type Output = Bytes;
    fn add(self, o: Bytes) -> Bytes {
        Bytes(self.0.saturating_add(o.0))
    }
}

impl std::ops::AddAssign for Bytes {
    fn add_assign(&mut self, o: Bytes) {
        *self = *self + o;
    }
}

impl std::iter::Sum for Bytes {
    fn sum<I: Iterator<Item = Bytes>>(it: I) -> Bytes {
        it.fold(Bytes::ZERO, |a, b| a + b)
    }
}

/// Display: GiB with two decimals (binary units), MiB below 1 GiB.
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= GIB {
            write!(f, "{:.2} GiB", self.gib())
        } else {
            write!(f, "{:.1} MiB", self.mib())
        }
    }
}

/// A signed difference of bytes (headroom: budget minus use), displayed like [`Bytes`] with an
/// explicit sign: `+1.25 GiB`, `−512.0 MiB`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct SignedBytes(pub i128);

impl SignedBytes {
    /// `a − b`, exact.
    pub fn diff(a: Bytes, b: Bytes) -> SignedBytes {
        SignedBytes(i128::from(a.0) - i128::from(b.0))
    }
}

impl fmt::Display for SignedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "−" } else { "+" };
        let m = Bytes(u64::try_from(self.0.unsigned_abs()).unwrap_or(u64::MAX));
        write!(f, "{sign}{m}")
    }
}

/// Tokens (context lengths).
pub type Tokens = u32;

/// Writes a token count the way people say it: 4096 → "4K", 131072 → "128K", 1000 → "1000".
pub fn tokens_label(t: Tokens) -> String {
    if t >= 1024 && t.is_multiple_of(1024) {
        format!("{}K", t / 1024)
    } else {
        t.to_string()
    }
}

/// A decimal number as people type it (`24`, `0.9`, `-1.5`, `.5`, `2e3`), or None. Exact (the
/// nearest double, as `str::parse::<f64>` gives) whenever the digits form an integer below 2^53
/// scaled by a power of ten up to 10^22 — every value a link or a number box holds — by the
/// correctly rounded fast path of Clinger (1990, "How to read floating point numbers
/// accurately"); longer inputs are rounded in a few steps. `inf` and `NaN` are not numbers
/// here. Written out so that the page's wasm carries no 10 KB table of powers of five
/// (`core::num::dec2flt`).
pub fn parse_decimal(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut k = 0;
    let neg = match b.first() {
        Some(b'-') => {
            k = 1;
            true
        }
        Some(b'+') => {
            k = 1;
            false
        }
        _ => false,
    };
    let (mut mant, mut exp, mut digits, mut dropped) = (0u64, 0i32, 0usize, 0i32);
    let mut seen_dot = false;
    while k < b.len() {
        match b[k] {
            c @ b'0'..=b'9' => {
                digits += 1;
                if mant < (u64::MAX - 9) / 10 {
                    mant = mant * 10 + u64::from(c - b'0');
                    if seen_dot {
                        exp -= 1;
                    }
                } else if !seen_dot {
                    dropped += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            b'e' | b'E' => break,
            _ => return None,
        }
        k += 1;
    }
    if digits == 0 {
        return None;
    }
    if k < b.len() {
        let e: i32 = s[k + 1..].parse().ok().filter(|e: &i32| e.abs() <= 400)?;
        exp += e;
    }
    exp += dropped;
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    // Within the fast path (mantissa below 2^53, |exp| ≤ 22) the loops do nothing and one
    // correctly rounded operation on two exact operands gives the nearest double; beyond it,
    // a few steps of rounding.
    let (mut x, mut e) = (mant as f64, exp);
    while e > 22 {
        x *= 1e22;
        e -= 22;
    }
    while e < -22 {
        x /= 1e22;
        e += 22;
    }
    let x = if e >= 0 {
        x * POW10[e as usize]
    } else {
        x / POW10[(-e) as usize]
    };
    Some(if neg { -x } else { x })
}

#[cfg(test)]
mod tests {
    #[test]
    fn split_sums_exactly() {
        use super::Bytes;
        let cases: [(u64, &[u64]); 6] = [
            (10, &[1, 1, 1]),
            (u64::MAX, &[11, 11, 10]),
            (7, &[0, 1, 0, 2]),
            (0, &[1, 2]),
            (9, &[0, 0]),
            (5, &[3]),
        ];
        for (total, w) in cases {
            let p = Bytes(total).split(w);
            assert_eq!(
                p.iter().map(|b| b.get() as u128).sum::<u128>(),
                total as u128
            );
            for (b, &wi) in p.iter().zip(w) {
                if wi == 0 && w.iter().any(|&x| x > 0) {
                    assert_eq!(b.get(), 0, "{total} {w:?}");
                }
            }
        }
        assert_eq!(
            Bytes(10).split(&[1, 1, 1]),
            vec![Bytes(4), Bytes(3), Bytes(3)]
        );
    }
    use super::*;

    #[test]
    fn display_is_binary() {
        assert_eq!(Bytes(GIB).to_string(), "1.00 GiB");
        assert_eq!(Bytes(39_845_888).to_string(), "38.0 MiB");
        assert_eq!(Bytes(2_490_000_000).to_string(), "2.32 GiB");
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(Bytes(u64::MAX) + Bytes(5), Bytes(u64::MAX));
        assert_eq!(Bytes(3).saturating_sub(Bytes(5)), Bytes(0));
        assert_eq!(Bytes::from_f64(f64::NAN), Bytes(0));
        assert_eq!(Bytes::from_f64(-1.0), Bytes(0));
        assert_eq!(Bytes::from_f64(1e300), Bytes(u64::MAX));
        assert_eq!(Bytes(7).div_ceil(2), Bytes(4));
    }

    #[test]
    fn signed_display() {
        // (bytes, text)
        let rows = [
            (GIB as i128 * 5 / 4, "+1.25 GiB"),
            (-(512 << 20), "−512.0 MiB"),
            (0, "+0.0 MiB"),
            (-(3 * GIB as i128), "−3.00 GiB"),
            (i128::MIN, "−17179869184.00 GiB"),
        ];
        for (b, want) in rows {
            assert_eq!(SignedBytes(b).to_string(), want);
        }
    }

    #[test]
    fn token_labels() {
        assert_eq!(tokens_label(131072), "128K");
        assert_eq!(tokens_label(1000), "1000");
    }
}
