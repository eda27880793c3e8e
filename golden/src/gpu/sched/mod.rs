//! Warp schedulers: which of its warps a warp scheduler of an SM issues from in a cycle.
//!
//! Each policy is a [`WarpScheduler`] in a file of its own, holding its own state (one
//! instance per warp scheduler of an SM), and is registered by one line in the
//! `schedulers!` list below, which makes [`Scheduler`], the enum the SM holds and matches
//! once per pick (no `dyn` in the cycle). The SM runs the policy `gpu.scheduler` names.
//!
//! A policy sees the SM through [`Ready`]: the scheduler's candidate warps (those that may
//! issue but for time), whether one of them can issue now, and each warp's state.

use crate::bitset::members128;
use crate::gpu::sm::warp::{Gates, Warp};
use crate::workload::opcode::Kind;
use spec::gpu::ExecClass;
use spec::{GpuSpec, Spec};

#[cfg(test)]
pub(crate) use two_level::LAX_TWO_LEVEL;

/// How a warp scheduling policy is made for warp scheduler `s` of an SM of `spec`'s GPU (its
/// warp slots: `s`, `s + gpu.schedulers`, ...). A policy that takes nothing from them derives
/// `Default`, which makes it.
pub trait FromSpec {
    fn from_spec(spec: &Spec, s: usize) -> Self;
}

impl<T: Default> FromSpec for T {
    fn from_spec(_: &Spec, _: usize) -> T {
        T::default()
    }
}

/// A warp scheduler's own warp slots (the SM's slot `w` belongs to scheduler
/// `w mod gpu.schedulers`), numbered from 0: its local slot `i` is the SM's slot
/// `s + i * gpu.schedulers`. What the policies that keep state per slot of their own index by.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OwnSlots {
    first: usize,
    stride: usize,
    count: usize,
}

impl OwnSlots {
    /// Warp scheduler `s`'s slots of an SM of `g`'s GPU.
    pub(crate) fn of(g: &GpuSpec, s: usize) -> OwnSlots {
        let stride = g.schedulers as usize;
        OwnSlots {
            first: s,
            stride,
            count: (g.warps_per_sm as usize).saturating_sub(s).div_ceil(stride),
        }
    }

    /// How many there are.
    pub(crate) fn count(self) -> usize {
        self.count
    }

    /// The SM's slot of local slot `i`.
    pub(crate) fn sm(self, i: usize) -> usize {
        self.first + i * self.stride
    }

    /// The local slot of the SM's slot `w` (one of them).
    pub(crate) fn local(self, w: usize) -> usize {
        (w - self.first) / self.stride
    }

    /// The SM's slots, in local order.
    pub(crate) fn iter(self) -> impl Iterator<Item = usize> {
        (0..self.count).map(move |i| self.sm(i))
    }
}

/// A warp scheduling policy (one instance per warp scheduler of an SM), its own state made by
/// [`FromSpec`].
pub trait WarpScheduler: FromSpec + Sized {
    /// Its `gpu.scheduler` word.
    const NAME: &'static str;
    /// Whether it may sleep after finding no warp to issue, until an event or a time the SM
    /// tracks (a result maturing, a unit freeing) can ready one. False for a policy whose
    /// choice changes every cycle, events or not.
    const SLEEPS: bool = true;
    /// The warp slot it issues from this cycle, if any: one of `v`'s ready warps.
    fn pick(&mut self, v: &Ready<'_>) -> Option<usize>;
    /// Warp slot `w`, its pick, issued.
    fn issued(&mut self, w: usize);
    /// Whether it reads each warp's access range ([`WarpScheduler::placed`]): the GPU computes
    /// them only for such a policy, and runs it only on kernels that describe them.
    const READS_RANGES: bool = false;
    /// A warp entered slot `w` (one of the scheduler's) with access range `range`; `first`:
    /// the first of its block's warps this scheduler holds.
    fn placed(&mut self, _w: usize, _range: &crate::lws::Vector, _first: bool) {}
    /// Whether it watches the L1 ([`WarpScheduler::l1_miss`], [`WarpScheduler::l1_evicted`]):
    /// the SM reports them only to such a policy.
    const WATCHES_L1: bool = false;
    /// A read of warp slot `w` (one of the scheduler's) missed in the L1 and allocated line
    /// `line`.
    fn l1_miss(&mut self, _w: usize, _line: u64) {}
    /// Line `line` left the L1 (every scheduler of the SM is told).
    fn l1_evicted(&mut self, _line: u64) {}
}

/// What a warp scheduler sees of its SM in one cycle.
pub struct Ready<'a> {
    pub(crate) warps: &'a [Option<Warp>],
    pub(crate) gates: Gates,
    /// The scheduler's warp slots.
    pub(crate) own: u128,
    /// The LD/ST unit holds a memory instruction.
    pub(crate) unit_busy: bool,
    /// Per execution-unit class, the first cycle the scheduler's unit takes another
    /// instruction.
    pub(crate) busy: &'a [u64; ExecClass::COUNT],
    pub(crate) now: u64,
}

impl Ready<'_> {
    /// The scheduler's warps that may issue but for time: eligible ones, without those whose
    /// global memory instruction waits for the busy LD/ST unit (it frees with an event).
    #[inline]
    pub fn candidates(&self) -> u128 {
        let mut c = self.gates.eligible & self.own;
        if self.unit_busy {
            c &= !self.gates.global;
        }
        c
    }

    /// Whether warp slot `w` can issue its next instruction now.
    #[inline]
    pub fn ready(&self, w: usize) -> bool {
        // (The tests check the kept bit against the warp's state.)
        #[cfg(test)]
        {
            let mut g = self.gates;
            g.set(w, self.warps[w].as_ref());
            assert_eq!(
                (g.eligible ^ self.gates.eligible | g.global ^ self.gates.global) >> w & 1,
                0,
                "warp slot {w}'s gates at {}",
                self.now
            );
        }
        if self.gates.eligible >> w & 1 == 0 {
            return false;
        }
        let Some(x) = &self.warps[w] else {
            return false;
        };
        let Some(kind) = x.next_kind else {
            return false;
        };
        if x.ready_at > self.now {
            return false;
        }
        match kind {
            Kind::Global { .. } => !self.unit_busy,
            Kind::Alu(c) => self.busy[c.index()] <= self.now || lax_initiation(),
            _ => true,
        }
    }

    /// The warp in slot `w`, if any.
    #[inline]
    pub(crate) fn warp(&self, w: usize) -> Option<&Warp> {
        self.warps[w].as_ref()
    }

    /// The first cycle after now at which one of the candidates may become ready without an
    /// event: its arithmetic inputs readable, or one of the scheduler's execution units free
    /// again (`u64::MAX`: none). (A warp that is not a candidate needs an event first, and
    /// every such event wakes its scheduler.)
    pub fn next_change(&self) -> u64 {
        members128(self.candidates())
            .filter_map(|w| self.warps[w].as_ref())
            .map(|x| x.ready_at)
            .chain(self.busy.iter().copied())
            .filter(|&t| t > self.now)
            .min()
            .unwrap_or(u64::MAX)
    }

    /// The scheduler's slots that are not candidates cannot issue (the tests' check).
    #[cfg(test)]
    pub(crate) fn check_candidates(&self) {
        for w in members128(self.own & !self.candidates()) {
            assert!(!self.ready(w), "warp slot {w} is ready but no candidate");
        }
    }
}

#[cfg(test)]
thread_local! {
    /// A deliberately wrong variant for the tests: warps issue to a busy execution unit
    /// (initiation intervals ignored).
    pub(crate) static LAX_INITIATION: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the tests' wrong variant ignores initiation intervals (never outside unit tests).
#[inline(always)]
fn lax_initiation() -> bool {
    #[cfg(test)]
    return LAX_INITIATION.with(|l| l.get());
    #[cfg(not(test))]
    false
}

/// The registry: `module::Type` of each policy, one line each. Its module is declared with a
/// plain `mod` line above the registry, where rustfmt finds it.
macro_rules! schedulers {
    ($( $(#[$m:meta])* $module:ident::$ty:ident, )*) => {
        /// One warp scheduler of an SM, of a registered policy. (A few per SM: a policy's
        /// size does not matter, so none is boxed.)
        #[derive(Debug, Clone)]
        #[allow(clippy::large_enum_variant)]
        pub enum Scheduler {
            $( $(#[$m])* $ty($module::$ty), )*
        }

        /// Every registered policy's name, in registration order.
        pub const NAMES: &[&str] = &[$( $(#[$m])* <$module::$ty as WarpScheduler>::NAME, )*];

        impl Scheduler {
            /// Warp scheduler `s` of an SM, of the policy named `name` (if registered).
            fn named(name: &str, spec: &Spec, s: usize) -> Option<Scheduler> {
                $( $(#[$m])*
                if name == <$module::$ty as WarpScheduler>::NAME {
                    return Some(Scheduler::$ty(<$module::$ty as FromSpec>::from_spec(spec, s)));
                } )*
                None
            }

            /// Its pick ([`WarpScheduler::pick`]).
            #[inline]
            pub fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
                match self {
                    $( $(#[$m])* Scheduler::$ty(x) => x.pick(v), )*
                }
            }

            /// [`WarpScheduler::issued`].
            #[inline]
            pub fn issued(&mut self, w: usize) {
                match self {
                    $( $(#[$m])* Scheduler::$ty(x) => x.issued(w), )*
                }
            }

            /// [`WarpScheduler::SLEEPS`].
            #[inline]
            pub fn sleeps(&self) -> bool {
                match self {
                    $( $(#[$m])* Scheduler::$ty(_) => <$module::$ty as WarpScheduler>::SLEEPS, )*
                }
            }

            /// [`WarpScheduler::READS_RANGES`].
            pub fn reads_ranges(&self) -> bool {
                match self {
                    $( $(#[$m])*
                    Scheduler::$ty(_) => <$module::$ty as WarpScheduler>::READS_RANGES, )*
                }
            }

            /// [`WarpScheduler::WATCHES_L1`].
            pub fn watches_l1(&self) -> bool {
                match self {
                    $( $(#[$m])*
                    Scheduler::$ty(_) => <$module::$ty as WarpScheduler>::WATCHES_L1, )*
                }
            }

            /// [`WarpScheduler::l1_miss`].
            pub fn l1_miss(&mut self, w: usize, line: u64) {
                match self {
                    $( $(#[$m])* Scheduler::$ty(x) => x.l1_miss(w, line), )*
                }
            }

            /// [`WarpScheduler::l1_evicted`].
            pub fn l1_evicted(&mut self, line: u64) {
                match self {
                    $( $(#[$m])* Scheduler::$ty(x) => x.l1_evicted(line), )*
                }
            }

            /// [`WarpScheduler::placed`].
            pub fn placed(&mut self, w: usize, range: &crate::lws::Vector, first: bool) {
                match self {
                    $( $(#[$m])* Scheduler::$ty(x) => x.placed(w, range, first), )*
                }
            }
        }
    };
}

mod ccws;
mod cta_aware;
mod gto;
mod locality;
#[cfg(test)]
mod lowest_first;
mod lrr;
mod programmable;
mod two_level;

schedulers! {
    lrr::Lrr,
    gto::Gto,
    two_level::TwoLevel,
    cta_aware::CtaAware,
    programmable::Programmable,
    locality::Locality,
    ccws::Ccws,
    #[cfg(test)] lowest_first::LowestFirst,
}

impl Scheduler {
    /// Warp scheduler `s` of an SM of `spec`'s GPU, of the policy `gpu.scheduler` names (in
    /// tests, of the one [`with_policy`] names, if any).
    pub fn of(spec: &Spec, s: usize) -> Scheduler {
        let name = super::chosen::chosen(&CHOSEN).unwrap_or(spec.gpu.scheduler.name());
        Scheduler::named(name, spec, s)
            .unwrap_or_else(|| panic!("gpu.scheduler = {name} has no registered scheduler"))
    }
}

impl Scheduler {
    /// The locality unit's inputs and outputs of the cycle it last stepped, if not taken yet
    /// (what a co-simulation in place checks); `None` under another policy.
    pub fn take_lws_cycle(&mut self) -> Option<(crate::lws::LwsIn, crate::lws::LwsOut)> {
        match self {
            Scheduler::Locality(x) => x.take_cycle(),
            _ => None,
        }
    }
}

thread_local! {
    static CHOSEN: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// Run `f` with every SM built on this thread running the registered policy `name`, whatever
/// `gpu.scheduler` says: how the tests run every registered policy, test-only ones included.
#[cfg(test)]
pub(crate) fn with_policy<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    assert!(
        NAMES.contains(&name),
        "{name} is not a registered scheduler"
    );
    super::chosen::with_chosen(&CHOSEN, name, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `gpu.scheduler` value runs the registered policy of its name.
    #[test]
    fn every_configurable_policy_is_registered() {
        let s = spec::ConfigRequest::preset("tiny").resolve().unwrap();
        for &name in spec::gpu::WarpScheduler::NAMES {
            assert!(NAMES.contains(&name), "{name}");
            assert!(Scheduler::named(name, &s, 0).is_some());
        }
    }
}
