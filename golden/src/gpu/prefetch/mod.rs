//! An SM's prefetcher (seed 001): what to prefetch ([`Prefetcher`], one implementation per
//! file: StridePC, MT-HWP, Stream, GHB) and everything around it that every prefetcher shares
//! ([`PrefetchUnit`]: its training queue, prefetch cache, prefetches queued and in flight, and
//! the events its throttle counts). The SM trains the unit with every global load, asks it
//! about every demand access before the L1, sends its prefetches when the port has no demand
//! request, and fills it with their replies.
//!
//! * Training: one access per warp global load (its first request's address), queued (up to
//!   [`TRAIN_QUEUE`]) and offered to the prefetcher until it takes it.
//! * A prediction's prefetch addresses are line-aligned and dropped when the line is in the
//!   prefetch cache, the L1, in flight or already queued ("redundant"); the others wait in a
//!   queue of [`PREFETCH_QUEUE`] lines (a full queue drops them). A line is sent in requests
//!   of the L2's fetch unit (four sectors of a 128 B line on a sector L2), marked as
//!   prefetches down to the DRAM controllers.
//! * A demand load that finds its line in the prefetch cache is answered after the ALU
//!   latency (seed 001: "the same latency as other computational instructions"); the line's
//!   first such use is a useful prefetch. A demand load whose line is being prefetched (every
//!   part sent) waits for its part: an intra-core merge, and a late prefetch. A store
//!   invalidates the line.
//! * With `prefetch.into_l1` the prefetch cache is not used: a line whose parts are back is
//!   installed in the L1, and the unit keeps which of its lines the L1 still holds (the L1
//!   reports its evictions) to count useful prefetches and early evictions.
//! * A prefetched line evicted before any use is an early eviction.
//! * The throttle's events, one of each kind per cycle at most on the engine's ports, are
//!   counted here and fed as they come (a backlog is carried to later cycles): useful
//!   prefetches, early evictions, intra-core merges (a demand load merging in the L1's MSHRs or
//!   with a prefetch in flight) and requests (every request that entered the miss path: sent to
//!   the memory side, or merged).
//!
//! Each prefetcher is registered by one line in the `prefetchers!` list below, which makes
//! [`AnyPrefetcher`], the enum the unit holds and matches once per call (no `dyn` in the
//! cycle); the SM runs the one `prefetch.kind` names (`none`: no unit).

mod cache;
mod engine;
mod stats;
mod unit;

pub use stats::PrefetchStats;
pub use unit::{Demand, Filled, PrefetchUnit};

use crate::prefetch::{PfIn, PfOut};
use spec::Spec;

/// Training accesses waiting for the prefetcher.
pub const TRAIN_QUEUE: usize = 4;
/// Prefetch lines waiting for the port.
pub const PREFETCH_QUEUE: usize = 16;

/// A probe on an SM's MT-HWP engine (co-simulation in place): it sees the engine's inputs and
/// outputs every cycle the engine steps, and its error stops the run (a mismatch).
pub type PfProbe<'p> = dyn FnMut(&PfIn, &PfOut) -> Result<(), String> + 'p;

/// A warp global load that trains the prefetcher: its PC, its warp's slot, and its first
/// request's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Train {
    pub pc: u64,
    pub warp: u32,
    pub addr: u64,
}

/// The throttle's events in one cycle (one of each at most; more wait in the unit's backlog).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Events {
    /// A prefetched line's first demand use.
    pub useful: bool,
    /// A prefetched line evicted unused.
    pub early: bool,
    /// A demand load merged (in the L1's MSHRs or with a prefetch in flight).
    pub merge: bool,
    /// A request entered the miss path.
    pub request: bool,
}

/// What a prefetcher is given in one core cycle.
#[derive(Debug, Clone, Copy)]
pub struct Tick {
    /// A kernel was launched: forget what was learned (no training access this cycle).
    pub launch: bool,
    /// The oldest training access waiting, if any.
    pub train: Option<Train>,
    pub events: Events,
}

/// What a prefetcher did in one cycle.
#[derive(Debug)]
pub struct Predicted<'a> {
    /// It took the training access (the unit drops it from its queue).
    pub took: bool,
    /// The addresses to prefetch (the unit aligns them to lines).
    pub addrs: &'a [u64],
}

/// What to prefetch: trained by warp global loads, told of the throttle's events, it names
/// addresses to prefetch each cycle.
pub trait Prefetcher: Sized {
    /// Its `prefetch.kind` word.
    const NAME: &'static str;
    /// The prefetcher `spec.prefetch` describes, of this kind.
    fn new(spec: &Spec) -> Self;
    /// One core cycle; it counts its own figures (predictions, throttle) in `stats`. An error
    /// is a refused input of a co-simulated engine (never by construction).
    fn cycle(&mut self, t: &Tick, stats: &mut PrefetchStats) -> Result<Predicted<'_>, String>;
    /// Keep the engine's ports for a probe ([`Prefetcher::ports`]); false when it has no
    /// co-simulated engine.
    fn watch(&mut self) -> bool {
        false
    }
    /// The MT-HWP engine's inputs and outputs of its last cycle, when watched.
    fn ports(&self) -> Option<(&PfIn, &PfOut)> {
        None
    }
}

/// Put `entry` in a fully associative table of `capacity` entries: in a free entry, else in
/// place of the least recently used one (`used`: when an entry was last used). The Stream and
/// GHB prefetchers' tables and the CTA-aware predictor's replace so.
pub(crate) fn insert_replacing_lru<T>(
    table: &mut Vec<T>,
    capacity: usize,
    entry: T,
    used: fn(&T) -> u64,
) {
    if table.len() < capacity {
        table.push(entry);
    } else if let Some(lru) = table.iter_mut().min_by_key(|e| used(e)) {
        *lru = entry;
    }
}

/// The registry: `module::Type` of each prefetcher, one line each. Its module is declared
/// with a plain `mod` line above the registry, where rustfmt finds it.
macro_rules! prefetchers {
    ($( $(#[$m:meta])* $module:ident::$ty:ident, )*) => {
        /// A registered prefetcher.
        pub enum AnyPrefetcher {
            $( $(#[$m])* $ty($module::$ty), )*
        }

        /// Every registered prefetcher's name, in registration order (`none` is not one).
        pub const NAMES: &[&str] = &[$( $(#[$m])* <$module::$ty as Prefetcher>::NAME, )*];

        impl AnyPrefetcher {
            /// The prefetcher named `name` (if registered), as `spec` describes it.
            fn named(name: &str, spec: &Spec) -> Option<AnyPrefetcher> {
                $( $(#[$m])*
                if name == <$module::$ty as Prefetcher>::NAME {
                    return Some(AnyPrefetcher::$ty(<$module::$ty as Prefetcher>::new(spec)));
                } )*
                None
            }

            /// [`Prefetcher::cycle`].
            #[inline]
            pub fn cycle(
                &mut self,
                t: &Tick,
                stats: &mut PrefetchStats,
            ) -> Result<Predicted<'_>, String> {
                match self {
                    $( $(#[$m])* AnyPrefetcher::$ty(x) => x.cycle(t, stats), )*
                }
            }

            /// [`Prefetcher::watch`].
            pub fn watch(&mut self) -> bool {
                match self {
                    $( $(#[$m])* AnyPrefetcher::$ty(x) => x.watch(), )*
                }
            }

            /// [`Prefetcher::ports`].
            #[inline]
            pub fn ports(&self) -> Option<(&PfIn, &PfOut)> {
                match self {
                    $( $(#[$m])* AnyPrefetcher::$ty(x) => x.ports(), )*
                }
            }
        }
    };
}

mod ghb;
mod mt_hwp;
#[cfg(test)]
mod next_line;
mod stream;
mod stride_pc;

prefetchers! {
    stride_pc::StridePc,
    mt_hwp::MtHwp,
    mt_hwp::PwsGs,
    mt_hwp::PwsIp,
    stream::Stream,
    ghb::Ghb,
    #[cfg(test)] next_line::NextLine,
}

impl AnyPrefetcher {
    /// The prefetcher `prefetch.kind` names (in tests, the one [`with_prefetcher`] names, if
    /// any); `None` for `none`.
    pub fn of(spec: &Spec) -> Option<AnyPrefetcher> {
        let name = super::chosen::chosen(&CHOSEN).unwrap_or(spec.prefetch.kind.name());
        if name == spec::PrefetchKind::None.name() {
            return None;
        }
        Some(
            AnyPrefetcher::named(name, spec)
                .unwrap_or_else(|| panic!("prefetch.kind = {name} has no registered prefetcher")),
        )
    }
}

thread_local! {
    static CHOSEN: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// Run `f` with every SM built on this thread running the registered prefetcher `name` (or
/// none, for `none`), whatever `prefetch.kind` says: how the tests run every registered
/// prefetcher, test-only ones included.
#[cfg(test)]
pub(crate) fn with_prefetcher<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    assert!(
        name == "none" || NAMES.contains(&name),
        "{name} is not a registered prefetcher"
    );
    super::chosen::with_chosen(&CHOSEN, name, f)
}

/// What the prefetchers' worked examples share: a prefetcher on `tiny` with some keys set, and
/// one training access or launch at a time.
#[cfg(test)]
pub(crate) mod examples {
    use super::*;

    /// A prefetcher of kind `P` on the `tiny` preset with the `key=value` settings `sets`.
    pub fn on_tiny<P: Prefetcher>(sets: &[String]) -> P {
        let mut req = spec::ConfigRequest::preset("tiny");
        for set in sets {
            req = req.with(set);
        }
        P::new(&req.resolve().expect("tiny with the example's settings"))
    }

    /// The lines (address / `line_bytes`) `p` prefetches for warp `warp`'s access to a word of
    /// line `line`. It must take the access, and count a prediction exactly when it prefetches.
    pub fn access<P: Prefetcher>(p: &mut P, line_bytes: u64, warp: u32, line: u64) -> Vec<u64> {
        let t = Tick {
            launch: false,
            train: Some(Train {
                pc: 0x100,
                warp,
                addr: line * line_bytes + 4,
            }),
            events: Events::default(),
        };
        let mut stats = PrefetchStats::default();
        let predicted = p
            .cycle(&t, &mut stats)
            .expect("a golden prefetcher takes any access");
        assert!(predicted.took);
        let lines: Vec<u64> = predicted.addrs.iter().map(|a| a / line_bytes).collect();
        assert_eq!(stats.predictions, u64::from(!lines.is_empty()));
        lines
    }

    /// A launch: no training access is taken and nothing is prefetched.
    pub fn launch<P: Prefetcher>(p: &mut P) {
        let t = Tick {
            launch: true,
            train: None,
            events: Events::default(),
        };
        let predicted = p.cycle(&t, &mut PrefetchStats::default()).unwrap();
        assert!(!predicted.took && predicted.addrs.is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `prefetch.kind` value but `none` runs the registered prefetcher of its name.
    #[test]
    fn every_configurable_prefetcher_is_registered() {
        for &name in spec::PrefetchKind::NAMES {
            if name == "none" {
                continue;
            }
            let s = spec::ConfigRequest::preset("tiny")
                .resolve()
                .unwrap()
                .variant(&[&format!("prefetch.kind={name}")])
                .unwrap();
            assert!(NAMES.contains(&name), "{name}");
            assert!(AnyPrefetcher::named(name, &s).is_some());
        }
    }
}
