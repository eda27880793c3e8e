//! The GPU in front of the memory side, built up component by component (issue 14): so far the
//! coalescer ([`coalesce`]), which turns a warp memory instruction's lane addresses into the
//! accesses an SM sends to its L1.

pub mod coalesce;
