//! fitcard web calculator: will this LLM fit on this GPU? Computed entirely in the browser.
//!
//! Data flows one way: the query string → [`Inputs`](fitcard_estimator::Inputs) (one signal) →
//! `estimate()` (a memo) → the view. Once the controls have been still for a moment the inputs
//! settle (a second signal): the ranking follows the settled inputs, and the URL is written back
//! from them (`history.replaceState`). The modules above the line are pure and tested on the host;
//! the Leptos components below it are compiled for wasm32 only.

pub mod bar_geometry;
pub mod bar_svg;
pub mod calibrate;
pub mod detect;
pub mod edit;
pub mod hub;
pub mod search;
pub mod share;
pub mod snap;
pub mod summary;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod boot;
#[cfg(target_arch = "wasm32")]
mod components;
#[cfg(target_arch = "wasm32")]
mod dom;
#[cfg(target_arch = "wasm32")]
pub mod import;
#[cfg(target_arch = "wasm32")]
mod importer;

#[cfg(target_arch = "wasm32")]
pub use app::{mount, App};
#[cfg(target_arch = "wasm32")]
pub use boot::start;
