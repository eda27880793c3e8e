//! The block registry: one entry per hardware block, which every command looks up. An entry
//! says what the block is (name, title, seed document) and where each of its parts lives: its
//! interface (from the spec), its RTL generator (rtlgen), its storage cost (golden), its mutant
//! catalogue and its co-simulation. Adding a block is adding an entry (docs/architecture.md,
//! "Adding a block").

use crate::mutants::Mutant;
use golden::cost::BlockCost;
use rtlgen::{GenError, Generated, Target};
use spec::{PortSpec, Spec};

/// One hardware block.
pub struct BlockEntry {
    /// Name on the command line (`--block NAME`).
    pub name: &'static str,
    /// One-line description (reports, file headers).
    pub title: &'static str,
    /// The source document, `../shared/seeds/NNN_*.txt`.
    pub seed: &'static str,
    /// The block's ports (clock and reset excluded).
    pub ports: fn(&Spec) -> Vec<PortSpec>,
    /// Its RTL.
    pub render: fn(&Spec, &Target) -> Result<Generated, GenError>,
    /// Its storage cost.
    pub cost: fn(&Spec) -> BlockCost,
    /// Deliberately wrong RTL variants co-simulation must catch.
    pub mutants: &'static [Mutant],
}

impl BlockEntry {
    /// The block's RTL, module and package names prefixed with `prefix` (may be empty).
    pub fn generate(&self, spec: &Spec, prefix: &str) -> Result<Generated, GenError> {
        (self.render)(
            spec,
            &Target {
                block: self.name,
                title: self.title,
                prefix,
            },
        )
    }

    /// A mutant by name.
    pub fn mutant(&self, name: &str) -> Result<&'static Mutant, UnknownName> {
        self.mutants
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| UnknownName {
                what: "mutant",
                name: name.to_string(),
                of: format!(" of block {}", self.name),
                known: self.mutants.iter().map(|m| m.name).collect(),
            })
    }
}

impl std::fmt::Display for BlockEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl std::fmt::Debug for BlockEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BlockEntry({})", self.name)
    }
}

/// A name that is not in a list (a block, a mutant).
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown {what} `{name}`{of}; known: {}", known.join(", "))]
pub struct UnknownName {
    pub what: &'static str,
    pub name: String,
    pub of: String,
    pub known: Vec<&'static str>,
}

/// Every block, in the order `flow` runs them.
pub static BLOCKS: &[BlockEntry] = &[crate::ot::ENTRY, crate::wmc::ENTRY, crate::dispatch::ENTRY];

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
