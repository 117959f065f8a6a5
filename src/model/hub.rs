//! The Hub the page reads, and what it types or pastes read as a repo: the pure part lives in
//! the estimator (`fitcard_estimator::readers::hub::repo`, shared with the CLI); here the page's
//! Hub address is fixed at compile time.

use fitcard_estimator::readers::hub::repo::{self, Endpoint};
pub use fitcard_estimator::readers::hub::repo::{
    choose, classify, family, family_id, is_repo_id, origin, pick, pin, quant_of_name, GgufFile,
    RepoFiles, Sibling, Target,
};

/// The Hub the page reads from. Release builds read the public Hub; the end-to-end suite builds
/// its own copy pointed at a local fixture server (`FITCARD_HUB` at compile time, never a
/// link parameter).
pub const HUB: &str = match option_env!("FITCARD_HUB") {
    Some(h) => h,
    None => repo::PUBLIC_HUB,
};

/// The file hosts of a stand-in [`HUB`] (origins, space-separated; `FITCARD_HUB_CDN` at
/// compile time, for the end-to-end suite's); none for the public Hub, whose file hosts are
/// `*.hf.co`.
const HUB_CDN: &str = match option_env!("FITCARD_HUB_CDN") {
    Some(h) => h,
    None => "",
};

/// The page's Hub.
pub fn endpoint() -> Endpoint {
    Endpoint::new(HUB, HUB_CDN)
}

/// What the user typed or pasted, as a repo of the page's Hub ([`repo::parse_target`]).
pub fn parse_target(input: &str) -> Result<Target, String> {
    repo::parse_target(input, &endpoint())
}

/// May the importer read an answer from `url` ([`repo::may_read`] for the page's Hub)?
pub fn may_read(url: &str) -> bool {
    repo::may_read(url, &endpoint())
}
