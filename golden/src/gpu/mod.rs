//! The GPU in front of the memory side (issue 14), built from components: the coalescer
//! ([`coalesce`]: a warp memory instruction's lane addresses to the accesses an SM sends its L1),
//! the SM ([`sm`]: resident blocks, warp schedulers, scoreboard, LD/ST unit, L1; its prefetcher,
//! [`prefetch`], seed 001) and the run
//! of an Accel-Sim trace over every SM and one memory side ([`run`]).

pub mod coalesce;
pub mod kernel;
pub mod occupancy;
pub mod prefetch;
pub mod run;
pub mod sm;
