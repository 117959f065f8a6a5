//! The page's components. Each reads the [`AppState`](crate::app::AppState) from the context
//! ([`use_app`](crate::app::use_app)) and its memos; none computes a memory number.

mod bar;
mod controls;
mod panels;
mod ranking;
mod verdict;

pub use bar::MemoryBar;
pub use controls::Controls;
pub use panels::{CommandPanel, Notices, SharePanel};
pub use ranking::Ranking;
pub use verdict::{MiniVerdict, Verdict};
