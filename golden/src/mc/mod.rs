//! The DRAM memory controllers and the Warped-MC tables (seed 004).
//!
//! * [`system`]: the memory system, one controller per DRAM channel (pending queue, drain,
//!   refresh, a request scheduler: FCFS, FR-FCFS, Warped-MC or Div-First), a streaming
//!   component; [`open_loop`] drives it from a stimulus (`warpsmith golden --block mc`).
//! * [`dram`]: one GDDR channel at command level; [`timing`] its timing as the model reads it;
//!   [`checker`]: an independent checker of DRAM command traces.
//! * [`warped`]: the Warped-MC tables as a cycle-level block (co-simulated against its RTL).
//! * [`stimulus`], [`fastline`], [`source`]: request files (JSON lines) and the built-in
//!   traffic forms the memory system is driven by.

pub mod checker;
pub mod command;
mod controller;
pub mod dram;
pub mod energy;
pub mod fastline;
pub mod generate;
pub mod open_loop;
mod sched;
pub mod source;
pub mod stimulus;
pub mod system;
pub mod timing;
pub mod warped;
mod warped_codec;
mod wet;
