//! StridePC (`stridepc`, seed 001's enhanced StridePC): the MT-HWP engine with its per-warp
//! stride (PWS) table alone, and its throttle.

use super::engine::Engine;
use super::{Predicted, PrefetchStats, Prefetcher, Tick};
use crate::prefetch::{PfIn, PfOut};
use spec::{PrefetchSpec, Spec};

pub struct StridePc(Engine);

impl Prefetcher for StridePc {
    const NAME: &'static str = "stridepc";

    fn new(spec: &Spec) -> StridePc {
        StridePc(Engine::new(&PrefetchSpec {
            pws_only: true,
            ..spec.prefetch.clone()
        }))
    }

    #[inline]
    fn cycle(&mut self, t: &Tick, stats: &mut PrefetchStats) -> Result<Predicted<'_>, String> {
        self.0.cycle(t, stats)
    }

    fn watch(&mut self) -> bool {
        self.0.watch()
    }

    fn ports(&self) -> Option<(&PfIn, &PfOut)> {
        self.0.ports()
    }
}
