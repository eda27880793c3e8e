//! The memory side of the GPU around the DRAM controllers: caches (and, next, their MSHRs,
//! the L2 slices of the memory partitions and the interconnect), as streaming components.

pub mod block_index;
pub mod cache;
pub mod closed_loop;
pub mod icnt;
pub mod mshr;
pub mod partition;
pub mod side;
pub mod slice;
