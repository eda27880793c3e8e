//! DRAM request schedulers: one module per policy, each a [`Scheduler`] that owns its state
//! (per-bank counts, round-robin pointers, warp entry tables, candidate windows, Warped-MC
//! blocks: whatever only it reads), its pick and its wake bound. The controllers
//! ([`Controllers`]) hold no scheduler `match`: their cycle is compiled once per scheduler
//! ([`Controllers::cycle_with`]), and the memory system holds its scheduler as one variant of
//! [`Policies`], chosen when it is built, which calls the compiled cycle ([`Policies::visit`]).
//!
//! A scheduler is registered by one line of [`registry!`] below: its name (the value of
//! `mc.scheduler` that selects it), its module and its type. With `prefetch.demand_first`, a
//! scheduler that has a demand-first variant ([`Scheduler::DemandFirst`]) runs it from the
//! first prefetch offered on (until then every request is a demand request and the two pick
//! alike).

use super::controller::{Controller, Controllers, Entry, Issued, Pick};
use super::system::{GroupCycle, McError};
use spec::Spec;

mod counts;
mod groups;
#[cfg(test)]
mod reference;

/// A memory controller's request scheduler, for every controller of a memory system. The
/// controllers tell it of every change of what it may keep (a request joining the current
/// mode's queue, a command issued, a mode change) and ask it what to issue and when it could
/// next issue anything.
pub(super) trait Scheduler: Sized {
    /// Its demand-first variant (`prefetch.demand_first`; itself when it has none).
    type DemandFirst: Scheduler;
    /// Whether [`Scheduler::DemandFirst`] is a variant of its own.
    const HAS_DEMAND_FIRST: bool = false;
    /// It keeps state that a quiet busy cycle still changes (the Warped-MC warp entry tables
    /// commit every cycle), so busy quiet cycles are not jumped over, and a cycle's enqueues
    /// stay events until the next.
    const EVENTFUL: bool = false;
    /// It runs Warped-MC blocks that a co-simulation can watch ([`Scheduler::watch`]).
    const WATCHABLE: bool = false;
    /// With a row and a column command bus (HBM2), it is asked for a second pick in a cycle
    /// in which it issued a command: [`Scheduler::pick`] then finds only commands for the other
    /// bus ready. Off for the schedulers whose pick is the Warped-MC block's one selection a
    /// cycle (decision MEM-25).
    const DUAL_ISSUE: bool = true;

    /// Its state for the idle controllers of a validated spec.
    fn new(spec: &Spec) -> Self;

    /// Its demand-first variant, with its state (no request is a prefetch yet).
    fn into_demand_first(self) -> Self::DemandFirst;

    /// The command controller `c` (`x`) issues at `now` with no refresh due, and the index
    /// (among the requests of the current mode) of the request a column command serves.
    fn pick(&mut self, c: usize, x: &mut Controller, now: u64) -> Pick;

    /// A lower bound on the first cycle `>= from` at which [`Scheduler::pick`] could give
    /// controller `c` a command (or a refresh falls due), as long as its queue, mode and banks
    /// do not change ([`Controller::wake_bound`] from the banks of the commands it could
    /// pick).
    fn wake(&mut self, c: usize, x: &mut Controller, from: u64) -> u64;

    /// The cycle's start, after the enqueue step and before any controller picks; `run`: the
    /// controllers that run their scheduler this cycle.
    #[inline]
    fn prepare(&mut self, _ctl: &mut Controllers, _run: u128, _now: u64) -> Result<(), McError> {
        Ok(())
    }

    /// Request `e` joined controller `c`'s queue of the current mode.
    #[inline]
    fn joined(&mut self, _c: usize, _x: &Controller, _e: &Entry) {}

    /// A command issued on controller `c` (now `x`).
    #[inline]
    fn issued(&mut self, _c: usize, _x: &Controller, _ev: &Issued) {}

    /// Controller `c` changed its mode (read or write drain): its current queue is the other.
    #[inline]
    fn mode_changed(&mut self, _c: usize, _x: &Controller) {}

    /// Controller `c` changed (its queue, mode or banks); its wake bound follows.
    #[inline]
    fn changed(&mut self, _c: usize) {}

    /// It has events for the next cycle, which is then not quiet.
    #[inline]
    fn has_events(&self) -> bool {
        false
    }

    /// Watch Warped-MC group `g` (co-simulation), or none.
    fn watch(&mut self, _g: Option<usize>) {}

    /// The watched group's last cycle, if it stepped since the last call.
    fn take_watched(&mut self) -> Option<GroupCycle<'_>> {
        None
    }

    /// Unit tests check what it keeps of controller `c` against its definition, every cycle.
    #[cfg(test)]
    fn check(&self, _c: usize, _x: &Controller, _now: u64) {}
}

/// An operation on a memory system's scheduler, whatever its type: [`Policies::visit`] calls
/// it with the scheduler, so that it runs compiled for that type.
pub(super) trait Visit<'p> {
    type Out;
    fn visit<S: Scheduler>(self, s: &'p mut S) -> Self::Out;
}

/// A registered scheduler, or its demand-first variant.
pub(super) enum Variant<S: Scheduler> {
    Plain(S),
    DemandFirst(S::DemandFirst),
}

impl<S: Scheduler> Variant<S> {
    #[inline(always)]
    fn visit<'p, V: Visit<'p>>(&'p mut self, v: V) -> V::Out {
        match self {
            Variant::Plain(s) => v.visit(s),
            Variant::DemandFirst(s) => v.visit(s),
        }
    }

    /// Its demand-first variant (itself if it has none, or is one).
    fn demand_first(self) -> Variant<S> {
        match self {
            Variant::Plain(s) if S::HAS_DEMAND_FIRST => Variant::DemandFirst(s.into_demand_first()),
            v => v,
        }
    }
}

/// The registered schedulers: `"name" => Variant(module::Type);` per scheduler (a
/// `#[cfg(...)]` before it applies to the name and the variant). The name is the
/// `mc.scheduler` value that selects it. Each module is declared with a plain `mod` line
/// above the registry, where rustfmt finds it.
macro_rules! registry {
    ($($(#[$a:meta])* $name:literal => $v:ident($t:ty);)*) => {
        /// A memory system's scheduler: one variant per registered scheduler.
        pub(super) enum Policies {
            $($(#[$a])* $v(Variant<$t>),)*
        }

        /// The names of every registered scheduler, in registration order.
        pub(crate) const NAMES: &[&str] = &[$($(#[$a])* $name,)*];

        impl Policies {
            /// The scheduler named `name`, for the idle controllers of `spec`.
            pub fn of(name: &str, spec: &Spec) -> Option<Policies> {
                $($(#[$a])* if name == $name {
                    return Some(Policies::$v(Variant::Plain(<$t>::new(spec))));
                })*
                None
            }

            /// `v` run on the scheduler, compiled for its type.
            #[inline(always)]
            pub fn visit<'p, V: Visit<'p>>(&'p mut self, v: V) -> V::Out {
                match self {
                    $($(#[$a])* Policies::$v(s) => s.visit(v),)*
                }
            }

            /// Its demand-first variant (itself if it has none, or is one).
            fn demand_first(self) -> Policies {
                match self {
                    $($(#[$a])* Policies::$v(s) => Policies::$v(s.demand_first()),)*
                }
            }
        }
    };
}

impl Policies {
    /// Turn the scheduler into its demand-first variant (see [`Scheduler::DemandFirst`]).
    pub fn switch_to_demand_first(&mut self) {
        // (FCFS keeps no state: a placeholder that costs nothing while the state moves.)
        let placeholder = Policies::Fcfs(Variant::Plain(fcfs::Fcfs));
        *self = std::mem::replace(self, placeholder).demand_first();
    }
}

mod divfirst;
mod fcfs;
mod frfcfs;
#[cfg(test)]
mod oldest;
mod warped;

registry! {
    "fcfs" => Fcfs(fcfs::Fcfs<false>);
    "frfcfs" => FrFcfs(frfcfs::FrFcfs<false>);
    "warped" => Warped(warped::Warped);
    "divfirst" => DivFirst(divfirst::DivFirst<false>);
    #[cfg(test)] "oldest-ready" => OldestReady(oldest::OldestReady);
}

/// What a scheduler is, by its constants ([`Props::OF`] visits it for them).
#[derive(Debug, Clone, Copy)]
pub(super) struct Props {
    /// [`Scheduler::HAS_DEMAND_FIRST`].
    pub has_demand_first: bool,
    /// [`Scheduler::EVENTFUL`].
    pub eventful: bool,
    /// [`Scheduler::WATCHABLE`].
    pub watchable: bool,
}

impl Props {
    /// The visit that gives a scheduler's properties.
    pub const OF: PropsOf = PropsOf;
}

/// See [`Props::OF`].
pub(super) struct PropsOf;

impl Visit<'_> for PropsOf {
    type Out = Props;
    fn visit<S: Scheduler>(self, _: &mut S) -> Props {
        Props {
            has_demand_first: S::HAS_DEMAND_FIRST,
            eventful: S::EVENTFUL,
            watchable: S::WATCHABLE,
        }
    }
}
