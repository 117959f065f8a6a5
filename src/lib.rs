//! fitcard web calculator: will this LLM fit on this GPU? Computed entirely in the browser.
//!
//! Data flows one way: the query string → [`Inputs`](fitcard_estimator::Inputs) (one signal) →
//! `estimate()` (a memo) → the view. Once the controls have been still for a moment the inputs
//! settle (a second signal): the ranking follows the settled inputs, and the URL is written back
//! from them (`history.replaceState`).
//!
//! ## Layers
//!
//! A file uses only the files listed above it (`tests/layout.rs` holds this list to every
//! `crate::`, `super::` and `self::` path in the code), so each can be read knowing only what
//! comes before it. A folder's name stands for its `mod.rs`.
//!
//! Pure, tested on the host (`model/`, `text/`, `draw/`):
//!
//! - `model/query`: the link's raw parameters, read and replaced as written, percent-decoded
//! - `model/snap`: the token stops of the context and sequence sliders
//! - `model/choices`: what the controls offer: variants, formats, positions, train-mode tables
//! - `model/edit`: one user action applied to the inputs, made consistent
//! - `model/search`: type-ahead over the catalog, and what a pasted address stands for
//! - `model/detect`: the catalog GPU a browser's renderer string names
//! - `model/hub`: the Hub the page reads (fixed at compile time) over the estimator's repo reader
//! - `text/share`: links, the embed snippet, the title, and the page's display words
//! - `text/summary`: the lines beside the verdict (KV pool, speed, spill, measurement, limits)
//! - `text/calibrate`: the calibration fit of the visitor's readings, in words
//! - `draw/tree`: markup as elements in document order, and the patch between two of one shape
//! - `draw/bar_geometry`: the memory bar's geometry, in bytes and units
//! - `draw/bar_svg`: the memory bar as SVG markup
//! - `draw/best_list`: the best-model list as HTML
//! - `draw/ranking_html`: the ranking's rows as HTML
//! - `draw/search_options`: the model search's suggestions as HTML
//! - `draw/verdict_html`: the verdict, its checks and warnings and the term's detail as HTML
//!
//! Compiled for wasm32 only (`browser/`, `worker/`, `app/`, `components/`):
//!
//! - `browser/dom`: the few browser calls (query, title, focus, size, clipboard)
//! - `browser/boot`: the catalog fetched and checked before the page mounts
//! - `worker/abi`: what both sides of the importer share (the build tag, a property read)
//! - `worker/importer`: the page's side of the importer: requests sent, answers handed back
//! - `worker/fetch`: the importer's requests to the Hub, and where model files are read from
//! - `worker/read`: the readers of a Hub repo or of files picked on the disk
//! - `worker/catalog`: the importer's copy of the catalog, joined by each model read
//! - `worker/extras`: the frontier, the limits and layouts, the calibration, on request
//! - `worker/import`: the importer's message loop
//! - `app/state`: the page's state: the input signal, the memos, the edits and imports
//! - `components/fields`: the generic fields: sliders, selects, number boxes, disclosures
//! - `components/import_status`: the import's status line and its buttons
//! - `components/controls/shared`: the controls both modes and the best-model view share
//! - `components/controls/serve`: the serve-mode controls
//! - `components/controls/train`: the train-mode controls
//! - `components/controls`: the configuration panel
//! - `components/memory_bar`: the memory figure, its legend and the term's detail
//! - `components/verdict`: the verdict, the failed checks and the lines beside it
//! - `components/ranking`: the best fit in this family
//! - `components/best`: the best model for the cards, the model search, GPU detection
//! - `components/panels/copy`: the copy button
//! - `components/panels/notices`: the notices above the page
//! - `components/panels/command`: the command panel
//! - `components/panels/share`: permalink, embed snippet and badge
//! - `components/panels/calibrate`: calibration with the visitor's readings
//! - `components/panels/frontier`: the context × concurrency frontier
//! - `app/views`: the full, best-model, embed and missing-model views
//! - `app`: the view switch, the URL and title, mount and start

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

/// Drawings as markup: the memory bar's geometry and its SVG, the best-model list, the
/// search's suggestions and the verdict's panels as HTML.
pub mod draw {
    pub mod bar_geometry;
    pub mod bar_svg;
    pub mod best_list;
    pub mod ranking_html;
    pub mod search_options;
    pub mod tree;
    pub mod verdict_html;
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
