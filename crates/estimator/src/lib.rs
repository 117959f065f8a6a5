#![deny(missing_docs)]
//! fitcard estimator: will this model fit on this card?
//!
//! Data flows one way: query string → [`Inputs`] ([`permalink::decode`]) → [`estimate()`] →
//! [`Estimate`] → [`rank()`]. Pure Rust, no web dependency: the CLI and the web page call the
//! same functions with the same query string.

/// A text the page does not carry (a term's domain or provenance): itself with the `prose`
/// feature, empty without it (the page's build, which links to the method page instead).
#[cfg(feature = "prose")]
macro_rules! prose {
    ($s:expr) => {
        $s
    };
}

/// A text the page does not carry (a term's domain or provenance): itself with the `prose`
/// feature, empty without it (the page's build, which links to the method page instead).
#[cfg(not(feature = "prose"))]
macro_rules! prose {
    ($s:expr) => {
        ""
    };
}

/// A closed set of identifiers with a stable spelling (query string, JSON): `id()` is the
/// spelling, `ALL` every value in order, `FromStr` reads the spelling (and the aliases a link
/// may carry), `Display` and `Serialize` write it.
macro_rules! ids {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $id:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $v),+ }

        impl $name {
            /// Every value, in order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];

            /// The spelling in the query string and the JSON.
            pub const fn id(self) -> &'static str {
                match self { $($name::$v => $id),+ }
            }
        }

        impl std::str::FromStr for $name {
            type Err = ();
            fn from_str(s: &str) -> Result<Self, ()> {
                match s { $($id $(| $alias)* => Ok($name::$v),)+ _ => Err(()) }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.id())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.id())
            }
        }
    };
}

pub mod badge;
#[cfg(not(target_arch = "wasm32"))]
pub mod baselines;
pub mod best;
pub mod catalog;
pub mod command;
mod describe;
pub mod engine;
pub mod estimate;
pub mod frontier;
pub mod gguf;
pub mod hf;
pub mod inputs;
pub mod layouts;
pub mod measure;
pub mod measured;
pub mod mmproj;
pub mod order;
pub mod permalink;
pub mod quant;
pub mod rank;
pub mod solve;
pub mod speed;
pub mod support;
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
