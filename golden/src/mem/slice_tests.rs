//! Cache slice tests: exact unloaded latencies, reads of a sector being filled wait for it,
//! nothing lost or duplicated under random back-pressure.

use super::*;
use crate::rng::Rng;
use proptest::prelude::*;

fn cfg(s: &str) -> CacheString {
    CacheString::parse(s).unwrap().unwrap()
}

const L2: &str = "S:64:128:16,L:B:m:L:P,A:192:4,32:0,32";

#[test]
fn unloaded_hit_and_miss_latencies_are_exact() {
    let mut s: Slice<u32> = Slice::new(cfg(L2), 120, 8);
    let mut out = Vec::new();
    // A read miss at cycle 0: its fetch leaves; the fill arrives at cycle 300.
    assert_eq!(
        s.offer(SliceRequest {
            addr: 0x4000,
            write: false,
            payload: 1,
            kind: AccessKind::of(false)
        }),
        Offer::Accepted
    );
    s.cycle();
    assert_eq!(
        s.pop_fetch(),
        Some(Fetch {
            addr: 0x4000,
            write: false,
            bytes: 32,
            origin: Some(1),
        })
    );
    while s.now() < 300 {
        s.cycle();
    }
    s.fill(0x4000);
    let filled_at = s.now();
    // The same sector again at cycle 300: a hit, answered 120 cycles after its access.
    let offered = s.offer(SliceRequest {
        addr: 0x4010,
        write: false,
        payload: 2,
        kind: AccessKind::of(false),
    });
    assert_eq!(offered, Offer::Accepted);
    let hit_at = s.now();
    s.cycle();
    let mut when = Vec::new();
    while s.now() < 1000 {
        s.take_answers(&mut out);
        while when.len() < out.len() {
            when.push(s.now());
        }
        s.cycle();
    }
    assert_eq!(out, vec![1, 2]);
    assert_eq!(when, vec![filled_at + 120, hit_at + 120]);
    assert_eq!((s.stats().misses, s.stats().hits), (1, 1));
    let reads = KindStats {
        accesses: 2,
        hits: 1,
        misses: 1,
        ..KindStats::default()
    };
    assert_eq!(
        s.stats().by_kind.iter().collect::<Vec<_>>(),
        [(&AccessKind::Read, &reads)]
    );
}

#[test]
fn a_read_of_a_sector_being_filled_waits_for_the_fill() {
    let mut s: Slice<u32> = Slice::new(cfg(L2), 10, 8);
    let offered = s.offer(SliceRequest {
        addr: 0x8000,
        write: false,
        payload: 1,
        kind: AccessKind::of(false),
    });
    assert_eq!(offered, Offer::Accepted);
    let offered = s.offer(SliceRequest {
        addr: 0x8008,
        write: false,
        payload: 2,
        kind: AccessKind::of(false),
    });
    assert_eq!(offered, Offer::Accepted);
    s.cycle();
    s.cycle();
    assert_eq!(s.stats().mshr_merges, 1, "the second read merged");
    assert_eq!(s.pop_fetch().map(|f| f.addr), Some(0x8000));
    assert_eq!(s.pop_fetch(), None, "one fetch for both");
    let mut out = Vec::new();
    for _ in 0..100 {
        s.cycle();
        s.take_answers(&mut out);
    }
    assert!(out.is_empty(), "answered before the fill: {out:?}");
    s.fill(0x8000);
    for _ in 0..10 {
        s.cycle();
        s.take_answers(&mut out);
    }
    assert_eq!(out, vec![1, 2]);
}

proptest! {
    /// Random traffic from a requester that retries refused offers, against a next level
    /// that takes fetches when it likes and fills reads after random delays: every accepted
    /// request is answered exactly once, no queue or MSHR table exceeds its size, the same
    /// seed gives the same run, and no cycle before the slice's next work does any.
    #[test]
    fn the_slice_loses_and_duplicates_nothing(seed in any::<u64>(), small in any::<bool>()) {
        let c = if small { "N:4:128:2,L:B:m:F:L,A:2:2,2" } else { L2 };
        let run = |seed: u64| {
            let mut rng = Rng::new(seed);
            let mut s: Slice<u32> = Slice::new(cfg(c), 20, 4);
            let mut next = 0u32;
            let mut pending: Option<SliceRequest<u32>> = None;
            let mut fills: Vec<(u64, u64)> = Vec::new();
            let mut answers = Vec::new();
            let mut log = Vec::new();
            // Traffic for 20,000 cycles, then up to 20,000 more to drain.
            for cycle in 0..40_000 {
                if cycle >= 20_000
                    && pending.is_none()
                    && fills.is_empty()
                    && s.busy() == 0
                    && s.peek_fetch().is_none()
                {
                    break;
                }
                if cycle < 20_000 && pending.is_none() && next < 2000 && rng.chance(600) {
                    let addr = rng.below(64) * 32 + rng.below(4) * 4096;
                    let write = rng.chance(200);
                    // Kinds of both levels, as the statistics by kind must add up whatever
                    // they are.
                    let kinds = [
                        AccessKind::of(write),
                        AccessKind::LocalRead,
                        AccessKind::Prefetch,
                    ];
                    let kind = kinds[next as usize % 3];
                    pending = Some(SliceRequest { addr, write, payload: next, kind });
                    next += 1;
                }
                if let Some(r) = pending {
                    if s.offer(r) == Offer::Accepted {
                        pending = None;
                    }
                }
                if rng.chance(500) {
                    if let Some(f) = s.pop_fetch() {
                        if !f.write {
                            fills.push((s.now() + 10 + rng.below(100), f.addr));
                        }
                    }
                }
                let now = s.now();
                fills.retain(|&(at, a)| {
                    if at <= now {
                        s.fill(a);
                        false
                    } else {
                        true
                    }
                });
                // Before its next work a cycle only counts its head's refusal, and nothing
                // is there to take.
                let quiet = s.next_work() > s.now();
                let before = (s.input_len(), s.miss_queue_len(), s.stats().accesses);
                s.cycle();
                if quiet {
                    let after = (s.input_len(), s.miss_queue_len(), s.stats().accesses);
                    assert_eq!(after, before, "a cycle before the next work did work");
                }
                let quiet = s.next_work() > s.now();
                let taken = answers.len();
                s.take_answers(&mut answers);
                assert!(!quiet || answers.len() == taken, "an answer before the next work");
                assert!(s.input_len() <= s.input_cap());
                assert!(s.miss_queue_len() <= s.miss_queue_cap());
                assert!(s.mshr().used() <= cfg(c).mshr_entries as usize);
                log.push(answers.len());
            }
            (next, pending, answers, s.stats().clone(), log)
        };
        let (offered, left, mut answers, stats, log) = run(seed);
        prop_assert_eq!(left, None, "a refused request was never taken");
        let n = answers.len();
        answers.sort_unstable();
        answers.dedup();
        prop_assert_eq!(answers.len(), n, "an answer came twice");
        prop_assert_eq!(n as u32, offered, "every request is answered");
        // The counts by kind add up to the totals.
        let all = [
            AccessKind::Read,
            AccessKind::Write,
            AccessKind::LocalRead,
            AccessKind::Prefetch,
        ];
        prop_assert_eq!(stats.kinds_add_up(&all), Ok(()));
        prop_assert!(stats.kinds_add_up(&all[1..]).is_err() || stats.accesses == 0);
        let again = run(seed);
        prop_assert_eq!(&again.3, &stats);
        prop_assert_eq!(&again.4, &log);
    }
}

/// A banked slice (decision GPU-34): after its head, it takes in the same cycle the next
/// requests in order while each goes to another bank (32-byte sectors interleaved) and would be
/// taken; a request to a bank already used, or one that would be refused, waits for the next
/// cycle, and so does everything behind it.
#[test]
fn a_banked_slice_takes_one_request_a_bank_a_cycle_in_order() {
    // Sectors 0x00, 0x20, 0x40, 0x60 are banks 0..3 of four; 0x80 is bank 0 again.
    let read = |addr, payload| SliceRequest {
        addr,
        write: false,
        payload,
        kind: AccessKind::of(false),
    };
    // (requests, banks) -> requests left in the input queue after each cycle.
    let left_after_cycles = |addrs: &[u64], banks: u32| {
        let mut s: Slice<u32> = Slice::new(cfg(L2), 0, 8);
        s.set_banks(banks);
        for (i, &a) in addrs.iter().enumerate() {
            assert_eq!(s.offer(read(a, i as u32)), Offer::Accepted);
        }
        let mut left = Vec::new();
        while s.input_len() > 0 {
            s.cycle();
            left.push(s.input_len());
            while s.pop_fetch().is_some() {}
        }
        left
    };
    let four = [0x00, 0x20, 0x40, 0x60];
    assert_eq!(left_after_cycles(&four, 4), vec![0]);
    assert_eq!(left_after_cycles(&four, 2), vec![2, 0]);
    assert_eq!(left_after_cycles(&four, 1), vec![3, 2, 1, 0]);
    // Bank 0 twice: the second waits, and bank 1 behind it too.
    assert_eq!(left_after_cycles(&[0x00, 0x80, 0x20], 4), vec![2, 0]);
    // A request that would be refused waits for its turn as the head, uncounted: two misses
    // on a miss queue with room for one fetch (a fetch and a possible write-back need 2 places).
    let tight = cfg("S:64:128:16,L:B:m:L:P,A:192:4,2:0,32");
    let mut s: Slice<u32> = Slice::new(tight, 0, 8);
    s.set_banks(4);
    assert_eq!(s.offer(read(0x00, 0)), Offer::Accepted);
    assert_eq!(s.offer(read(0x20, 1)), Offer::Accepted);
    s.cycle();
    assert_eq!(s.input_len(), 1);
    assert!(s.stats().reservation_failures.is_empty());
    assert_eq!(s.bank_of(0x20), 1);
    assert_eq!(s.bank_of(0xa0), 1);
}

/// Decision MEM-29: a prefetch refused at the head (its sector's MSHR entry holds the most
/// merges) does not hold back the demand reads behind it, which are served in order past it,
/// while a refused demand read keeps every request behind it waiting (GPGPU-Sim's queue); the
/// refused prefetch is counted once a cycle and served after the fill.
#[test]
fn a_refused_prefetch_does_not_hold_back_the_requests_behind_it() {
    let req = |addr, payload, kind| SliceRequest {
        addr,
        write: false,
        payload,
        kind,
    };
    // Four reads of sector 0x8000 fill its entry (merges 4); then `first` to it, and two
    // demand reads to other sectors.
    let run = |first: AccessKind| {
        let mut s: Slice<u32> = Slice::new(cfg(L2), 0, 16);
        for p in 0..4 {
            assert_eq!(s.offer(req(0x8000, p, AccessKind::Read)), Offer::Accepted);
        }
        assert_eq!(s.offer(req(0x8000, 4, first)), Offer::Accepted);
        assert_eq!(s.offer(req(0x9000, 5, AccessKind::Read)), Offer::Accepted);
        assert_eq!(s.offer(req(0x9020, 6, AccessKind::Read)), Offer::Accepted);
        for _ in 0..4 {
            assert_eq!(s.head(), Head::Taken);
            s.cycle();
        }
        let mut served = Vec::new();
        for _ in 0..3 {
            let head = s.head();
            s.cycle();
            served.push((head, s.input_len()));
        }
        (s, served)
    };
    let full = Stall::MshrMergeFull;
    let (mut s, served) = run(AccessKind::Prefetch);
    assert_eq!(
        served,
        [
            (Head::Taken, 2),
            (Head::Taken, 1),
            (Head::Refused(full, AccessKind::Prefetch), 1)
        ]
    );
    assert_eq!(
        s.stats().by_kind[&AccessKind::Prefetch].reservation_failures,
        3
    );
    assert_eq!(s.stats().by_kind[&AccessKind::Read].reservation_failures, 0);
    let fetched: Vec<u64> = std::iter::from_fn(|| s.pop_fetch().map(|f| f.addr)).collect();
    assert_eq!(
        fetched,
        [0x8000, 0x9000, 0x9020],
        "the demands' fetches in order"
    );
    s.fill(0x8000);
    s.cycle();
    assert_eq!(s.input_len(), 0, "the prefetch served after the fill");
    // A demand read in its place holds the queue.
    let (s, served) = run(AccessKind::Read);
    let refused = Head::Refused(full, AccessKind::Read);
    assert_eq!(served, [(refused, 3), (refused, 3), (refused, 3)]);
    assert_eq!(s.stats().by_kind[&AccessKind::Read].reservation_failures, 3);
}
