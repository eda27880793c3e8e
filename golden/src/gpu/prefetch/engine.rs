//! The MT-HWP engine (`crate::prefetch::MtHwp`, the very block model that is co-simulated) run
//! in an SM: each cycle's training access and throttle events put on its input ports, its
//! lookup's prefetch addresses and throttle figures taken from its outputs. StridePC, MT-HWP and
//! seed 001's two-table configurations are this engine with the tables they name.

use super::{Predicted, PrefetchStats, Prefetcher, Tick};
use crate::block::CycleModel;
use crate::prefetch::{Access, MtHwp, PfIn, PfOut};
use spec::{PrefetchSpec, Spec};

/// The engine as a prefetcher: its PWS table, with its GS table if `GS` and its IP table if
/// `IP` (StridePC: neither; MT-HWP: both).
pub struct EnginePrefetcher<const GS: bool, const IP: bool>(Engine);

impl<const GS: bool, const IP: bool> Prefetcher for EnginePrefetcher<GS, IP> {
    const NAME: &'static str = match (GS, IP) {
        (false, false) => "stridepc",
        (true, false) => "pws-gs",
        (false, true) => "pws-ip",
        (true, true) => "mt-hwp",
    };

    fn new(spec: &Spec) -> Self {
        EnginePrefetcher(Engine::new(&PrefetchSpec {
            pws_only: !GS && !IP,
            gs_table: GS,
            ip_table: IP,
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

pub(super) struct Engine {
    model: MtHwp,
    /// The widths of the engine's PC and address inputs, as masks.
    pc_mask: u64,
    addr_mask: u64,
    /// Its inputs of the last cycle, kept when a probe watches it.
    watched: Option<PfIn>,
}

impl Engine {
    pub fn new(spec: &PrefetchSpec) -> Engine {
        Engine {
            model: MtHwp::new(spec),
            pc_mask: crate::block::mask(spec.pc_bits),
            addr_mask: crate::block::mask(spec.addr_bits),
            watched: None,
        }
    }

    /// One step of the engine: it takes the training access when its last outputs said it was
    /// ready for one.
    #[inline]
    pub fn cycle(&mut self, t: &Tick, s: &mut PrefetchStats) -> Result<Predicted<'_>, String> {
        let ready = self.model.out().acc_ready;
        let inp = PfIn {
            launch: t.launch,
            acc: t.train.map(|a| Access {
                pc: a.pc & self.pc_mask,
                wid: a.warp,
                addr: a.addr & self.addr_mask,
            }),
            useful: t.events.useful,
            early: t.events.early,
            merge: t.events.merge,
            request: t.events.request,
        };
        if self.watched.is_some() {
            self.watched = Some(inp);
        }
        let o = self
            .model
            .step(&inp)
            .map_err(|e| format!("the MT-HWP engine refused its input: {e}"))?;
        s.degree_cycles[(o.degree as usize).min(5)] += 1;
        if o.update {
            s.throttle_updates += 1;
            s.degree_trace.push(o.degree as u8);
        }
        if o.pf_valid && o.src != spec::PfSource::None {
            s.predictions += 1;
            s.throttled += u64::from(o.drop);
        }
        Ok(Predicted {
            took: inp.acc.is_some() && ready,
            addrs: o.prefetches(),
        })
    }

    pub fn watch(&mut self) -> bool {
        self.watched = Some(PfIn::default());
        true
    }

    pub fn ports(&self) -> Option<(&PfIn, &PfOut)> {
        self.watched.as_ref().map(|i| (i, self.model.out()))
    }
}
