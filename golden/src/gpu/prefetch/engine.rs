//! The MT-HWP engine (`crate::prefetch::MtHwp`, the very block model that is co-simulated) run
//! in an SM: each cycle's training access and throttle events put on its input ports, its
//! lookup's prefetch addresses and throttle figures taken from its outputs. StridePC, MT-HWP and
//! seed 001's two-table configurations are this engine with the tables they name.
//!
//! The engine holds `prefetch.addr_bits` of an address (Table VI: 4 B), narrower than a GPU
//! trace's 40 to 47-bit addresses. Its prefetch addresses are mapped back explicitly, never
//! wrapped: each is the full address of the training access it was predicted from plus the
//! signed difference of the two in `addr_bits` bits, as an adder on the full address beside
//! the tables would form it (decision HWP-16). The difference is exact while a prefetch lies
//! within 2^(addr_bits - 1) bytes of its access (20-bit strides at distance and degree 1 in
//! 32 bits, the presets': 2^20 bytes at most).

use super::{Predicted, PrefetchStats, Prefetcher, Tick};
use crate::block::CycleModel;
use crate::prefetch::{Access, MtHwp, PfIn, PfOut, MAX_DEGREE};
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
    /// The full address of the last training access taken: the outputs' prefetches are
    /// predicted from it (taken at the edge they appear, or, on the PWS path, the edge before,
    /// while no other is taken).
    base: u64,
    /// The outputs' prefetch addresses mapped to full addresses.
    addrs: [u64; MAX_DEGREE],
    /// Its inputs of the last cycle, kept when a probe watches it.
    watched: Option<PfIn>,
}

impl Engine {
    pub fn new(spec: &PrefetchSpec) -> Engine {
        Engine {
            model: MtHwp::new(spec),
            pc_mask: crate::block::mask(spec.pc_bits),
            addr_mask: crate::block::mask(spec.addr_bits),
            base: 0,
            addrs: [0; MAX_DEGREE],
            watched: None,
        }
    }

    /// One step of the engine: it takes the training access when its last outputs said it was
    /// ready for one.
    #[inline]
    pub fn cycle(&mut self, t: &Tick, s: &mut PrefetchStats) -> Result<Predicted<'_>, String> {
        let ready = self.model.out().acc_ready;
        if let (Some(a), true) = (t.train, ready) {
            self.base = a.addr;
        }
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
        let n = o.prefetches().len();
        for (full, &narrow) in self.addrs.iter_mut().zip(o.prefetches()) {
            *full = widen(narrow, self.base, self.addr_mask);
        }
        Ok(Predicted {
            took: inp.acc.is_some() && ready,
            addrs: &self.addrs[..n],
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

/// A prefetch address the engine gives in `mask`'s bits, as a full address: `base` (the full
/// address it was predicted from) plus their difference in those bits, taken as signed.
fn widen(narrow: u64, base: u64, mask: u64) -> u64 {
    let diff = narrow.wrapping_sub(base) & mask;
    // Sign-extend the difference from the mask's width (a full mask: already 64 bits).
    let sign = (mask >> 1).wrapping_add(1);
    let signed = if diff & sign != 0 { diff | !mask } else { diff };
    base.wrapping_add(signed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::prefetch::{Events, Train};

    /// The prefetch addresses of a strided stream of one warp's loads from `base`, through an
    /// engine holding `addr_bits` of an address.
    fn prefetched(addr_bits: u32, base: u64, stride: i64) -> Vec<u64> {
        let bits = format!("prefetch.addr_bits={addr_bits}");
        let s = spec::ConfigRequest::preset("fermi-gtx480")
            .resolve()
            .unwrap()
            .variant(&["prefetch.kind=stridepc", "prefetch.throttle=false", &bits])
            .unwrap();
        let mut e = Engine::new(&PrefetchSpec {
            pws_only: true,
            ..s.prefetch.clone()
        });
        let mut stats = PrefetchStats::default();
        let mut out = Vec::new();
        for i in 0..8 {
            let addr = base.wrapping_add_signed(stride * i);
            // An edge with the access, and one for the PWS lookup.
            for train in [
                Some(Train {
                    pc: 0x200,
                    warp: 3,
                    addr,
                }),
                None,
            ] {
                let t = Tick {
                    launch: false,
                    train,
                    events: Events::default(),
                };
                out.extend_from_slice(e.cycle(&t, &mut stats).expect("engine").addrs);
            }
        }
        out
    }

    #[test]
    fn prefetches_of_addresses_wider_than_the_engine_keep_their_upper_bits() {
        // A trace's 47-bit addresses, one stream crossing a 4 GiB boundary each way.
        for (base, stride) in [
            (0x7f12_3456_0000, 512),
            (0x7f12_ffff_fc00, 512),
            (0x7f13_0000_0400, -512),
        ] {
            let wide = prefetched(64, base, stride);
            assert!(!wide.is_empty(), "the stream trains the PWS table");
            assert!(wide.iter().all(|&a| a >> 32 >= 0x7f12), "{wide:x?}");
            assert_eq!(
                prefetched(32, base, stride),
                wide,
                "base {base:#x} stride {stride}"
            );
            assert_eq!(
                prefetched(20, base, stride),
                wide,
                "base {base:#x} stride {stride}"
            );
        }
    }

    #[test]
    fn widening_is_the_signed_difference_from_the_base() {
        let m = crate::block::mask(32);
        assert_eq!(widen(0x0000_0200, 0x7f12_ffff_fe00, m), 0x7f13_0000_0200);
        assert_eq!(widen(0xffff_fe00, 0x7f13_0000_0200, m), 0x7f12_ffff_fe00);
        assert_eq!(widen(0x1234, 0x1000, u64::MAX), 0x1234);
        // The wrong variant, a plain mask, loses the upper bits.
        assert_ne!(0x0000_0200 & m, 0x7f13_0000_0200);
    }
}
