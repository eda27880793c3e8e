//! The GPU in front of the memory side (issue 14), built from components: the coalescer
//! ([`coalesce`]: a warp memory instruction's lane addresses to the accesses an SM sends its L1),
//! the SM ([`sm`]: resident blocks, scoreboard, LD/ST unit, L1), its warp schedulers
//! ([`sched`]), its prefetcher ([`prefetch`], seed 001), the address predictors that watch the
//! SMs' loads ([`predict`], seed 000) and the run of a trace or kernel over every SM and one
//! memory side ([`run`]).

mod chosen;
pub mod coalesce;
pub mod kernel;
pub mod occupancy;
pub mod predict;
pub mod prefetch;
pub mod run;
pub mod sched;
pub mod sm;
