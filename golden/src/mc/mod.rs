pub mod checker;
pub mod dram;
pub mod gpgpusim;
pub mod mapping;
pub mod stimulus;
pub mod system;
pub mod timing;
pub mod warped;
