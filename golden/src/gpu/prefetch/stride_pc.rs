//! StridePC (`stridepc`, seed 001's enhanced StridePC): the MT-HWP engine with its per-warp
//! stride (PWS) table alone, and its throttle.

pub type StridePc = super::engine::EnginePrefetcher<false, false>;
