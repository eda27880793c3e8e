//! Each block's part of the co-simulation: its driver, statistics, mutants and registry entry.
//! Nothing outside these modules names a block.

pub mod dispatch;
pub mod ot;
pub mod wmc;
