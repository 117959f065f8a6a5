//! A stand-in for the Hugging Face Hub and its file hosts on 127.0.0.1, for every test that
//! reads the Hub: the CLI's tests start it in their process ([`server::StandIn`]), and the page's
//! end-to-end suite starts the `fitcard-standin` binary on the ports its build was pointed at.
//! Both can start the same fixture set ([`page::repos`]). Nothing here reaches the network.
//!
//! What it answers as the Hub does (huggingface_hub's `file_download.py` and `hf_api.py`, the
//! Hub's API docs at huggingface.co/docs/hub/api): the model info at `/api/models/{repo}`
//! (`siblings` with sizes, `sha`, `gated`, `cardData`), `resolve` redirecting to a file host,
//! a closed `Range` answered with 206 and `Content-Range`, `X-Error-Code` on refusals
//! (`RepoNotFound`, `GatedRepo`, `EntryNotFound`), and CORS headers on every answer. And what
//! a hostile or broken Hub may do: HTML for JSON, a redirect to another host, an endless body,
//! a slow drip, a body shorter than its length, a cut connection, an answer later than any
//! timeout.
//!
//! ## Layers
//! Each file uses only the files listed above it.
//! - `writers`: GGUF and safetensors header bytes.
//! - `server`: the HTTP server, its answers, and the log of what it was asked and sent.
//! - `repos`: a repo described (files, gated, slow …) as the routes of the Hub and its file host.
//! - `page`: the fixture repos of the page's import tests (also read by the CLI's).

pub mod page;
pub mod repos;
pub mod server;
pub mod writers;

pub use server::{Answer, Routes, StandIn, SHA};
