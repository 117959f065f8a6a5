//! Quantities as types, and their display.
//!
//! Binary units everywhere: 1 GiB = 2^30 bytes, 1 MiB = 2^20 bytes. Published file sizes are
//! decimal (1 GB = 10^9 bytes) and are converted to bytes once, in the catalog; from there on
//! only [`Bytes`] travels.

use serde::{Deserialize, Serialize};
use std::fmt::{self, Write as _};

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
            write!(f, "{} GiB", Fixed(self.gib(), 2))
        } else {
            write!(f, "{} MiB", Fixed(self.mib(), 1))
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

/// `x` with `d` decimals, exactly as `format!("{:.d$}", x)` writes it (the exact binary value
/// rounded half to even: 0.125 → `0.12`, 0.15 → `0.1`; `-0.0`, `NaN`, `inf`; the `+` flag, the
/// width, the fill and the `0` flag of the caller's `{}`), for every f64 and `d` ≤ 17 (larger
/// `d` are taken as 17). Written out so that the page's wasm carries no `core::num::flt2dec`
/// (dragon4 and grisu, about 14 KB): the product `x · 10^d` is split into its rounded value and
/// its exact error by Dekker's two-product (Veltkamp's split, no fused multiply-add), which
/// decides the rounding exactly; then only integers are printed. Tested against `format!` over
/// millions of values in `tests/fixed_format.rs`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fixed(pub f64, pub u8);

/// `x` as `format!("{x}")` writes it (the shortest decimal that reads back as `x`), for every f64
/// below 2^53 in magnitude and either 0 or at least 10^-5 (the numbers a link or a number box
/// holds); beyond 2^53 the exact integer is written, and below 10^-5 the value rounded to 17
/// decimals (both still read back as a number of the same size, never as an error). For the
/// page's permalink without `core::num::flt2dec`; tested against `format!` in
/// `tests/fixed_format.rs`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shortest(pub f64);

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
const TWO52: f64 = 4_503_599_627_370_496.0;
/// Below 2^64 − 2^12, so that the rounded integer and its corrections fit a u64.
const LIMIT: f64 = 1.8e19;

/// Veltkamp's split of `a` into a high and a low half of 26 bits each, `a = h + l` exactly.
fn split(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a; // 2^27 + 1
    let h = c - (c - a);
    (h, a - h)
}

/// Dekker's two-product: `(p, e)` with `p` = fl(a·b) and `a·b = p + e` exactly (no overflow).
fn two_product(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// Knuth's two-sum: `(s, r)` with `s` = fl(a+b) and `a + b = s + r` exactly.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// How [`round_scaled`] breaks an exact tie.
#[derive(Clone, Copy, PartialEq)]
enum Tie {
    /// To the even integer.
    Even,
    /// To the integer that is even once an odd integer is added (a split-off integer part).
    Odd,
    /// Up, as core's shortest form does.
    Up,
}

/// `a · 10^d` (a ≥ 0 finite, d ≤ 22) rounded to an integer `N` (ties as `tie` says), with
/// `N − a·10^d` as an unevaluated sum of two doubles, or None when `N` would not fit a u64.
fn round_scaled(a: f64, d: usize, tie: Tie) -> Option<(u64, f64, f64)> {
    let (y, e) = two_product(a, POW10[d]);
    // Between n and n + 1: up when n is odd (Even), even (Odd), always (Up).
    let up_on_tie = |n: u64| match tie {
        Tie::Even => n % 2 == 1,
        Tie::Odd => n.is_multiple_of(2),
        Tie::Up => true,
    };
    // a and 10^d are finite and a ≥ 0: y is never NaN.
    if y >= LIMIT {
        return None;
    }
    let (n, up) = if y < TWO52 {
        // ulp(y) ≤ 1/2, so 1/2 is a multiple of it and |e| ≤ ulp/2 only matters at t = 1/2.
        let f = y.floor();
        let t = y - f; // exact
        let n = f as u64;
        let tie_up = e > 0.0 || (e == 0.0 && up_on_tie(n));
        (n, t > 0.5 || (t == 0.5 && tie_up))
    } else {
        // y is an integer; the exact value is y + trunc(e) + frac(e), frac(e) in (-1, 1).
        let fe = e.trunc();
        let te = e - fe; // exact
        let n = (y as u64).wrapping_add_signed(fe as i64);
        if te < -0.5 || (te == -0.5 && !up_on_tie(n - 1)) {
            (n - 1, false)
        } else {
            (n, te > 0.5 || (te == 0.5 && up_on_tie(n)))
        }
    };
    let n = n + u64::from(up);
    // N − y: −t or 1 − t below 2^52, a small integer above; exact either way.
    let delta = if y < TWO52 {
        n as f64 - y
    } else if n >= y as u64 {
        (n - y as u64) as f64
    } else {
        -((y as u64 - n) as f64)
    };
    let (s, r) = two_sum(delta, -e);
    Some((n, s, r))
}

/// The decimal digits of the integer `a` (≥ 2^64, so an integer) exactly: mantissa × 2^k in
/// base 10^9 limbs.
fn big_integer(a: f64) -> String {
    let bits = a.to_bits();
    let mut k = ((bits >> 52) & 0x7ff) as i32 - 1075;
    let mut m = (bits & ((1 << 52) - 1)) | (1 << 52);
    while k < 0 {
        // Not reached for a ≥ 2^64; kept total.
        m >>= 1;
        k += 1;
    }
    let mut limbs: Vec<u32> = vec![(m % 1_000_000_000) as u32, (m / 1_000_000_000) as u32];
    for _ in 0..k {
        let mut carry = 0u32;
        for l in limbs.iter_mut() {
            let v = *l * 2 + carry;
            carry = u32::from(v >= 1_000_000_000);
            *l = v - carry * 1_000_000_000;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut s = String::new();
    for (i, l) in limbs.iter().rev().enumerate() {
        let t = l.to_string();
        if i > 0 {
            s.extend(std::iter::repeat_n('0', 9 - t.len()));
        }
        s.push_str(&t);
    }
    s
}

/// `int` then, with `d` > 0, `.` and `frac` on `d` digits.
fn join(int: &str, frac: u64, d: usize) -> String {
    let mut s = String::from(int);
    if d > 0 {
        s.push('.');
        let t = frac.to_string();
        s.extend(std::iter::repeat_n('0', d - t.len()));
        s.push_str(&t);
    }
    s
}

/// The digits of `N / 10^d` (no sign).
fn scaled_digits(n: u64, d: usize) -> String {
    // n < 1.8e19 < 10^20: no integer part beyond 19 decimals.
    match 10u64.checked_pow(d as u32) {
        Some(p) => join(&(n / p).to_string(), n % p, d),
        None => join("0", n, d),
    }
}

/// The digits of |x| (finite) with `d` ≤ 17 decimals, no sign.
fn fixed_digits(a: f64, d: usize) -> String {
    if let Some((n, _, _)) = round_scaled(a, d, Tie::Even) {
        return scaled_digits(n, d);
    }
    if a < LIMIT {
        // a ≥ 1.8e2: the integer part exactly, the fraction (< 1) scaled.
        let i = a.trunc();
        let iu = i as u64;
        let p = 10u64.pow(d as u32);
        let (f, _, _) = round_scaled(
            a - i,
            d,
            if d == 0 && iu % 2 == 1 {
                Tie::Odd
            } else {
                Tie::Even
            },
        )
        .unwrap_or((0, 0.0, 0.0));
        let (iu, f) = if f >= p { (iu + 1, f - p) } else { (iu, f) };
        return join(&iu.to_string(), f, d);
    }
    join(&big_integer(a), 0, d)
}

/// Writes `digits` with the sign of `x` and the caller's flags, as core writes floats.
fn pad(f: &mut fmt::Formatter<'_>, x: f64, digits: &str) -> fmt::Result {
    f.pad_integral(!x.is_sign_negative(), "", digits)
}

/// `NaN` as core writes it: never a sign (even with `+`), padded like a number.
fn pad_nan(f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let w = f.width().unwrap_or(0).saturating_sub(3);
    let (fill, before) = if f.sign_aware_zero_pad() {
        ('0', w)
    } else {
        let before = match f.align() {
            Some(fmt::Alignment::Left) => 0,
            Some(fmt::Alignment::Center) => w / 2,
            _ => w,
        };
        (f.fill(), before)
    };
    for _ in 0..before {
        f.write_char(fill)?;
    }
    f.write_str("NaN")?;
    for _ in before..w {
        f.write_char(fill)?;
    }
    Ok(())
}

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x.is_nan() {
            return pad_nan(f);
        }
        if x.is_infinite() {
            return pad(f, x, "inf");
        }
        pad(f, x, &fixed_digits(x.abs(), usize::from(self.1.min(17))))
    }
}

impl fmt::Display for Shortest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let a = x.abs();
        if !x.is_finite() || a == 0.0 || a >= TWO52 * 2.0 {
            return Fixed(x, 0).fmt(f);
        }
        // The neighbours' half-distances: below x, half the gap down (a quarter of an ulp at a
        // power of two), above, half an ulp. A candidate on either bound reads back as x when
        // x's mantissa is even (ties to even).
        let bits = a.to_bits();
        let up = f64::from_bits(bits + 1) - a;
        let down = a - f64::from_bits(bits - 1);
        let even = bits.is_multiple_of(2);
        for (d, &p) in POW10.iter().enumerate() {
            let Some((n, s, r)) = round_scaled(a, d, Tie::Up) else {
                break;
            };
            // N − a·10^d = s + r exactly; inside (−down/2, up/2)·10^d?
            let inside = |bound: f64, diff_s: f64, diff_r: f64| {
                let b = bound / 2.0 * p;
                diff_s < b || (diff_s == b && (diff_r < 0.0 || (diff_r == 0.0 && even)))
            };
            let ok = if s > 0.0 || (s == 0.0 && r >= 0.0) {
                inside(up, s, r)
            } else {
                inside(down, -s, -r)
            };
            if ok {
                return pad(f, x, &scaled_digits(n, d));
            }
        }
        let s = fixed_digits(a, 17);
        pad(f, x, s.trim_end_matches('0').trim_end_matches('.'))
    }
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
