//! The memory side of the GPU around the DRAM controllers, as streaming components.
//!
//! * [`cache`]: a cache's tag array; [`mshr`] its miss status holding registers, indexed by
//!   [`block_index`]; [`slice`]: a cache slice (an L1, or the L2 slice of a sub-partition), counted
//!   as [`slice_stats`] says.
//! * [`icnt`]: the interconnect's crossbars; [`partition`]: the memory partitions (L2 slices,
//!   GPGPU-Sim's queues, the DRAM controllers behind them); [`side`]: the memory side as one
//!   component (SM ports, request and reply networks, partitions).
//! * [`closed_loop`]: the memory side alone in a closed loop (`warpsmith golden --block
//!   memory`).

pub mod block_index;
pub mod cache;
pub mod closed_loop;
pub mod icnt;
pub mod mshr;
pub mod partition;
pub mod side;
pub mod slice;
pub mod slice_stats;
