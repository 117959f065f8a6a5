//! Helpers shared by the integration tests that include this module (`mod common;`).

/// xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators"):
/// a fixed, reproducible stream, so a failure names its input by its number. Each test adds
/// the draws it needs in an `impl common::Rng` of its own.
#[allow(dead_code)]
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// The bytes of the terms named `name` in `e` (0 when it has none).
#[allow(dead_code)]
pub fn term(e: &fitcard_estimator::Estimate, name: &str) -> u64 {
    e.terms
        .iter()
        .filter(|t| t.name.id() == name)
        .map(|t| t.bytes.get())
        .sum()
}
