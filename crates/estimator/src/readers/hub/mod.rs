//! A Hugging Face Hub repo read into a catalog family, by the page's importer and the CLI
//! alike: what the user typed → a repo, its files → its formats (`repo`), and the reads
//! themselves over a transport each front end brings (`client`).

pub mod client;
pub mod derive;
pub mod repo;

#[cfg(test)]
mod tests;
