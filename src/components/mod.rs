//! The page's components. Each reads the [`AppState`](crate::app::AppState) from the context
//! ([`use_app`](crate::app::use_app)) and its memos; none computes a memory number.

mod best;
mod controls;
mod fields;
mod import_status;
mod memory_bar;
mod panels;
mod ranking;
mod verdict;

pub use best::{BestView, ModelSearch};
pub use controls::Controls;
pub use import_status::ImportStatus;
pub use memory_bar::MemoryBar;
pub use panels::{CalibratePanel, CommandPanel, FrontierPanel, Notices, SharePanel};
pub use ranking::Ranking;
pub use verdict::{MiniVerdict, Verdict};
