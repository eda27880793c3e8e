//! warpsmith golden model.
//!
//! Models of the blocks warpsmith generates RTL for, and of the GPU around them:
//! * [`ot`]: the observation-table address predictor of seed 000; [`prefetch`]: MT-HWP, the
//!   many-thread-aware prefetcher of seed 001; [`dispatch`]: the locality-aware thread-block
//!   dispatcher (seed 002) and CTA mapping (seed 003); [`lws`]: seed 002's locality-aware warp
//!   scheduler; [`mc`]: the DRAM controllers and the
//!   Warped-MC tables (seed 004). Each block is a [`block`] (a cycle model with exactly its
//!   RTL's interface, and a codec onto the RTL's ports).
//! * [`gpu`]: SMs, warp schedulers, coalescer and L1 in front of [`mem`], the memory side
//!   (interconnect, L2 partitions, the controllers); [`workload`]: kernels and Accel-Sim traces
//!   that drive them; [`suite`]: benchmark applications run from their compiled SASS.
//! * [`stream`]: the contract of a streaming component (offer, cycle, take, next work);
//!   [`clock`]: the clock domains; [`run`]: what every `warpsmith golden` run takes.
//! * [`cost`]: storage cost derived from the spec; [`report`]: what every JSON report
//!   carries (its provenance) and the schema of a report type.
//! * Helpers: [`bitset`] (sets of small indices), [`ring`] (queues that stay in the host
//!   cache), [`hint`] (host cache hints), [`rng`] (a deterministic PRNG).
//!
//! `golden` depends on neither `rtlgen` nor `sim`.

pub mod bitset;
pub mod block;
pub mod clock;
pub mod cost;
pub mod dispatch;
pub mod gpu;
pub mod hint;
pub mod lws;
pub mod mc;
pub mod mem;
pub mod ot;
pub mod prefetch;
pub mod report;
pub mod ring;
pub mod rng;
pub mod run;
pub mod stream;
pub mod suite;
pub mod workload;
