//! MT-HWP (`mt-hwp`, seed 001): the engine with its PWS, GS and IP tables and its throttle.

pub type MtHwp = super::engine::EnginePrefetcher<false>;
