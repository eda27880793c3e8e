//! Each block's part of the co-simulation (its driver, statistics, mutants and registry entry),
//! and the registry itself: [`BLOCKS`]. Nothing outside these modules names a block.

pub mod dispatch;
pub mod ot;
pub mod wmc;

use crate::registry::{BlockEntry, UnknownName};

/// Every block, in the order `flow` runs them.
pub static BLOCKS: &[BlockEntry] = &[ot::ENTRY, wmc::ENTRY, dispatch::ENTRY];

/// A block by name.
pub fn find(name: &str) -> Result<&'static BlockEntry, UnknownName> {
    BLOCKS
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| UnknownName {
            what: "block",
            name: name.to_string(),
            of: String::new(),
            known: BLOCKS.iter().map(|b| b.name).collect(),
        })
}

/// A block by the name of its golden run (`mc` for Warped-MC's memory system).
pub fn find_golden(name: &str) -> Result<&'static BlockEntry, UnknownName> {
    BLOCKS
        .iter()
        .find(|b| b.golden.name == name)
        .ok_or_else(|| UnknownName {
            what: "golden model",
            name: name.to_string(),
            of: String::new(),
            known: BLOCKS.iter().map(|b| b.golden.name).collect(),
        })
}
