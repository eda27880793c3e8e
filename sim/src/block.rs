//! What the harness, the RTL build and the benchmarks need to know of a block: its name,
//! title, seed document, interface and RTL generator (the rest of its registry entry lives in
//! [`crate::registry::BlockEntry`]).

use rtlgen::{GenError, Generated, Target};
use spec::{Interface, PortSpec, Spec};

/// A block's identity, interface and RTL.
pub struct BlockInfo {
    /// Name on the command line (`--block NAME`).
    pub name: &'static str,
    /// One-line description (reports, file headers).
    pub title: &'static str,
    /// The source document, `../shared/seeds/NNN_*.txt`.
    pub seed: &'static str,
    /// The block's interface: parameters, enumerations, ports (clock and reset excluded).
    pub interface: fn(&Spec) -> Interface,
    /// Its RTL.
    pub render: fn(&Spec, &Target) -> Result<Generated, GenError>,
}

impl BlockInfo {
    /// The block's ports (clock and reset excluded).
    pub fn ports(&self, spec: &Spec) -> Vec<PortSpec> {
        (self.interface)(spec).ports
    }

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
}

impl std::fmt::Display for BlockInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}
