//! MT-HWP (`mt-hwp`, seed 001): the engine with its PWS, GS and IP tables and its throttle; and
//! seed 001 Fig. 14's configurations with two of them (`pws-gs`, `pws-ip`).

pub type MtHwp = super::engine::EnginePrefetcher<true, true>;
/// MT-HWP without its IP table.
pub type PwsGs = super::engine::EnginePrefetcher<true, false>;
/// MT-HWP without its GS table.
pub type PwsIp = super::engine::EnginePrefetcher<false, true>;
