//! MT-HWP (`mt-hwp`, seed 001): the engine with its PWS, GS and IP tables and its throttle.

use super::engine::Engine;
use super::{Predicted, PrefetchStats, Prefetcher, Tick};
use crate::prefetch::{PfIn, PfOut};
use spec::{PrefetchSpec, Spec};

pub struct MtHwp(Engine);

impl Prefetcher for MtHwp {
    const NAME: &'static str = "mt-hwp";

    fn new(spec: &Spec) -> MtHwp {
        MtHwp(Engine::new(&PrefetchSpec {
            pws_only: false,
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
