//! The contract of a streaming component.
//!
//! The GPU is built from components that pass work along queues: the SM, a cache slice (L1 or
//! L2), the interconnect, a memory partition, the memory system and its DRAM controllers. Each
//! keeps the same four verbs, so that the run loop, the closed loops and the co-simulation
//! harness drive them alike:
//!
//! * **offer**: hand the component one item. It answers with an [`Offer`]: accepted (the
//!   component owns it now) or refused (its input is full; offer the item again later). A
//!   refusal changes nothing.
//! * **cycle**: advance the component by one cycle of its clock.
//! * **take**: remove what the component has finished (replies, completions, packets), in the
//!   order it finished them.
//! * **next work** ([`Component::next_work`]): the first cycle at which cycling the component
//!   can change anything, given no further offers. Every cycle before it is quiet: the run
//!   loop may skip it, and the component's state after the skip equals its state after
//!   cycling through it. A component keeps the bookkeeping behind this bound itself (what
//!   wakes it, and when), so that its callers never track it for it.

/// What a component did with an item offered to it.
#[must_use = "a refused item is still the caller's: offer it again later"]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// The component owns the item now.
    Accepted,
    /// The component's input is full; nothing changed. Offer the item again later.
    Refused,
}

impl Offer {
    /// Whether the item was accepted.
    pub fn accepted(self) -> bool {
        self == Offer::Accepted
    }
}

/// The cycle at which a component with nothing to do has its next work: never.
pub const NEVER: u64 = u64::MAX;

/// A component's idle-skipping bound (see the module documentation).
pub trait Component {
    /// The first cycle, of the component's own clock, at which cycling it can change
    /// anything given no further offers; [`NEVER`] when nothing is pending. A bound may be
    /// early (the caller then cycles a quiet cycle) but never late.
    fn next_work(&self) -> u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offer_is_accepted_exactly_when_it_says_so() {
        assert!(Offer::Accepted.accepted());
        assert!(!Offer::Refused.accepted());
    }
}
