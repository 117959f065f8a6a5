#![deny(missing_docs)]
//! fitcard estimator: will this model fit on this card?
//!
//! Data flows one way: query string → [`Inputs`] ([`permalink::decode`]) → [`estimate()`] →
//! [`Estimate`] → [`rank()`]. Pure Rust, no web dependency: the CLI and the web page call the
//! same functions with the same query string.

pub mod catalog;
pub mod command;
mod describe;
pub mod engine;
pub mod estimate;
pub mod inputs;
pub mod measure;
pub mod permalink;
pub mod quant;
pub mod rank;
pub mod terms;
pub mod training;
pub mod units;

pub use catalog::catalog;
pub use engine::{Engine, KvDtype};
pub use estimate::{estimate, CardUse, Check, Estimate, Verdict};
pub use inputs::{GpuChoice, Inputs, Mode, Notice};
pub use permalink::{decode, encode, Decoded};
pub use quant::{GgmlType, Quant};
pub use rank::{rank, Candidate};
pub use units::Bytes;
