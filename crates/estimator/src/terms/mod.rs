//! The memory terms of serve mode, one module each. Every module's doc comment gives the
//! formula, its provenance and its domain; the page shows that text beside the number.

pub mod kv;
pub mod overhead;
pub mod weights;

use crate::units::Bytes;
use serde::Serialize;

/// Where a term's bytes live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Place {
    Device,
    Host,
}

/// One memory term as shown and printed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Term {
    /// Stable machine name (`weights`, `kv_cache`, `overhead`, …).
    pub name: &'static str,
    /// Words for people.
    pub label: &'static str,
    /// Total over all cards (device terms) or in host memory.
    pub bytes: Bytes,
    #[serde(rename = "where")]
    pub place: Place,
    /// The formula with this configuration's numbers filled in.
    pub formula: String,
    /// Where the formula comes from and where it holds.
    pub provenance: &'static str,
}
