//! warpsmith golden model.
//!
//! * [`spec`]: configuration layers and the validated [`spec::Spec`] (every derived width).
//! * [`ot`]: the observation-table address predictor of seed 000, a cycle-level block model with
//!   exactly the generated RTL's interface.
//! * [`workload`]: kernels described as grid/block shapes and affine loads, turned into the
//!   request streams the blocks see.
//! * [`cost`]: storage cost derived from the spec.
//!
//! `golden` depends on neither `rtlgen` nor `sim`.

pub mod bitset;
pub mod block;
pub mod clock;
pub mod cost;
pub mod dispatch;
pub mod gpu;
pub mod hint;
pub mod mc;
pub mod mem;
pub mod ot;
pub mod prefetch;
pub mod ring;
pub mod rng;
pub mod run;
pub mod stream;
pub mod workload;
