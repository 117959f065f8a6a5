//! fitcard web calculator: will this LLM fit on this GPU? Computed entirely in the browser.
//!
//! Data flows one way: the query string → [`Inputs`](fitcard_estimator::Inputs) (one signal) →
//! `estimate()` (a memo) → the view. Once the controls have been still for a moment the inputs
//! settle (a second signal): the ranking follows the settled inputs, and the URL is written back
//! from them (`history.replaceState`). The folders `model/`, `text/` and `draw/` are pure and
//! tested on the host; the others are compiled for wasm32 only.

/// What the page's inputs offer and how an action changes them: the edits, the choices of the
/// controls, the search, the GPU detection and the Hub's addresses and files.
pub mod model {
    pub mod choices;
    pub mod detect;
    pub mod edit;
    pub mod hub;
    pub mod query;
    pub mod search;
    pub mod snap;
}

/// The page's words: links and snippets, the summary lines, the calibration's text.
pub mod text {
    pub mod calibrate;
    pub mod share;
    pub mod summary;
}

/// Drawings as markup: the memory bar's geometry and its SVG.
pub mod draw {
    pub mod bar_geometry;
    pub mod bar_svg;
}

/// The browser calls and the start-up.
#[cfg(target_arch = "wasm32")]
mod browser {
    pub mod boot;
    pub mod dom;
}

/// The importer, a web worker with a wasm of its own: the page's side (`importer`) and the
/// worker's (`import`).
#[cfg(target_arch = "wasm32")]
pub mod worker {
    mod abi;
    mod catalog;
    mod extras;
    mod fetch;
    pub mod import;
    pub(crate) mod importer;
    mod read;
}

#[cfg(target_arch = "wasm32")]
mod app;
/// The page's components. Each reads the [`AppState`](crate::app::state::AppState) from the
/// context ([`use_app`](crate::app::state::use_app)) and its memos; none computes a memory
/// number.
#[cfg(target_arch = "wasm32")]
mod components {
    pub mod best;
    pub mod controls;
    pub mod fields;
    pub mod import_status;
    pub mod memory_bar;
    /// The panels of the full page: notices, command, sharing, calibration, frontier.
    pub mod panels {
        pub mod calibrate;
        pub mod command;
        pub mod copy;
        pub mod frontier;
        pub mod notices;
        pub mod share;
    }
    pub mod ranking;
    pub mod verdict;
}

#[cfg(target_arch = "wasm32")]
pub use app::{mount, start, App};
