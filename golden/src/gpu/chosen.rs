//! The policy a unit test chose for the SMs built on its thread, one slot per kind of policy
//! (warp scheduler, prefetcher): how the tests run every registered policy, test-only ones
//! (which have no configuration value) included. Outside unit tests nothing is ever chosen.

use std::cell::Cell;
use std::thread::LocalKey;

/// Where one kind of policy's choice is kept (a `thread_local!` of `Cell::new(None)`).
pub(super) type Slot = LocalKey<Cell<Option<&'static str>>>;

/// The name chosen in `slot` on this thread, if any (never outside unit tests).
#[inline(always)]
pub(super) fn chosen(slot: &'static Slot) -> Option<&'static str> {
    #[cfg(test)]
    return slot.with(|c| c.get());
    #[cfg(not(test))]
    {
        let _ = slot;
        None
    }
}

/// Run `f` with `name` chosen in `slot`, and the choice before put back however `f` ends (a
/// failing property test's case unwinds).
#[cfg(test)]
pub(super) fn with_chosen<T>(slot: &'static Slot, name: &'static str, f: impl FnOnce() -> T) -> T {
    struct Restore(&'static Slot, Option<&'static str>);
    impl Drop for Restore {
        fn drop(&mut self) {
            self.0.with(|c| c.set(self.1));
        }
    }
    let _restore = Restore(slot, slot.with(|c| c.replace(Some(name))));
    f()
}
