//! Helpers shared by the integration tests that include this module (`mod common;`).

/// xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators"):
/// a fixed, reproducible stream, so a failure names its input by its number. Each test adds
/// the draws it needs in an `impl common::Rng` of its own.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}
