pub mod checker;
pub mod dram;
pub mod open_loop;
pub mod source;
pub mod stimulus;
pub mod system;
pub mod timing;
pub mod warped;
