use super::*;
use crate::rng::Rng;

fn pkt(dest: usize, flits: u32, payload: u64) -> Packet<u64> {
    Packet {
        dest: dest as u32,
        flits,
        payload,
    }
}

/// Cycles from an offer into an idle network until the packet can be taken.
fn unloaded(flits: u32, latency: u64, arbiter: Arbiter, speedup: u32) -> u64 {
    let mut x = Crossbar::new(3, 2, 8, 8, arbiter, latency).with_speedup(speedup);
    assert!(x.offer(2, pkt(1, flits, 7)).accepted());
    for t in 1..100 {
        x.cycle();
        if let Some(p) = x.pop(1) {
            assert_eq!(p.payload, 7);
            return t;
        }
    }
    panic!("never landed")
}

#[test]
fn unloaded_latency_is_serialisation_plus_latency() {
    for arbiter in [Arbiter::RoundRobin, Arbiter::Islip] {
        for speedup in 1..=3 {
            for (flits, latency) in [(1, 0), (4, 0), (1, 3), (4, 2), (5, 1)] {
                assert_eq!(
                    unloaded(flits, latency, arbiter, speedup),
                    u64::from(flits) + latency,
                    "{arbiter:?} {flits} flits, latency {latency}, speedup {speedup}"
                );
            }
        }
    }
}

/// Flits delivered per output per cycle by an `n` x `n` crossbar whose inputs always have
/// `flits`-flit packets to uniformly random outputs queued, with a switch `speedup` times as
/// fast as its ports (`lax`: the wrong variant that ignores the input channels).
fn saturated(n: usize, flits: u32, speedup: u32, lax: bool) -> f64 {
    let mut rng = Rng::new(5);
    let mut x = Crossbar::new(n, n, 64, 64, Arbiter::Islip, 2).with_speedup(speedup);
    x.lax_channels = lax;
    let cycles = 20_000;
    let mut got = 0u64;
    for _ in 0..cycles {
        for i in 0..n {
            while x.has_room(i, flits) {
                let _ = x.offer(i, pkt(rng.below(n as u64) as usize, flits, 0));
            }
        }
        x.cycle();
        for o in 0..n {
            while let Some(p) = x.pop(o) {
                got += u64::from(p.flits);
            }
        }
    }
    got as f64 / (cycles * n as u64) as f64
}

#[test]
fn internal_speedup_lifts_head_of_line_blocking() {
    // First-in-first-out inputs under uniform traffic saturate near 59 % of the ports' rate
    // (Karol et al.); a switch twice as fast as its ports lifts that limit to the ports' rate.
    let one = saturated(12, 4, 1, false);
    let two = saturated(12, 4, 2, false);
    eprintln!(
        "12 x 12, 4-flit packets: {one:.3} (speedup 1), {two:.3} (speedup 2) flits per port \
        per cycle"
    );
    assert!(
        (0.55..0.68).contains(&one),
        "speedup 1: {one:.3} flits per port per cycle"
    );
    assert!(
        (0.90..=1.0).contains(&two),
        "speedup 2: {two:.3} flits per port per cycle"
    );
}

/// Flits per cycle one input sends when it always has packets queued, alternately for two
/// outputs that are drained every cycle.
fn one_input(speedup: u32, lax: bool) -> f64 {
    let mut x = Crossbar::new(1, 2, 64, 64, Arbiter::Islip, 0).with_speedup(speedup);
    x.lax_channels = lax;
    let (cycles, mut got, mut k) = (10_000u64, 0u64, 0usize);
    for _ in 0..cycles {
        while x.has_room(0, 4) {
            let _ = x.offer(0, pkt(k % 2, 4, 0));
            k += 1;
        }
        x.cycle();
        for o in 0..2 {
            while let Some(p) = x.pop(o) {
                got += u64::from(p.flits);
            }
        }
    }
    got as f64 / cycles as f64
}

#[test]
fn ports_carry_one_flit_per_cycle_whatever_the_speedup() {
    for speedup in 1..=3 {
        // An input's channel: one flit per cycle, though its packets go to two outputs.
        let input = one_input(speedup, false);
        assert!(
            (0.99..=1.0).contains(&input),
            "speedup {speedup}: input sends {input:.3}"
        );
        // An output's channel: four senders share one flit per cycle.
        for arbiter in [Arbiter::RoundRobin, Arbiter::Islip] {
            let got = delivered_with(4, 4, arbiter, 1000, speedup);
            assert_eq!(
                got.iter().sum::<u64>(),
                250,
                "{arbiter:?} speedup {speedup}"
            );
        }
    }
    // The wrong variant, whose packets cross the switch before their flits arrive, sends two
    // flits per cycle from one input and is caught by the same check.
    let lax = one_input(2, true);
    eprintln!(
        "one input, speedup 2: {:.3} flits per cycle; lax variant {lax:.3}",
        one_input(2, false)
    );
    assert!(lax > 1.5, "the lax variant sends {lax:.3} flits per cycle");
    // And with it, the saturated crossbar's ports would carry more than they can.
    assert!(saturated(12, 4, 2, true) > 0.9);
}

/// Packets delivered at output 0 in `cycles` cycles when `senders` inputs always have a
/// `flits`-flit packet for it and the output is drained every cycle; per sender.
fn delivered(senders: usize, flits: u32, arbiter: Arbiter, cycles: u64) -> Vec<u64> {
    delivered_with(senders, flits, arbiter, cycles, 1)
}

/// [`delivered`] with a switch `speedup` times as fast as the ports.
fn delivered_with(
    senders: usize,
    flits: u32,
    arbiter: Arbiter,
    cycles: u64,
    speedup: u32,
) -> Vec<u64> {
    let mut x = Crossbar::new(senders, 1, 16, 16, arbiter, 0).with_speedup(speedup);
    let mut got = vec![0; senders];
    for _ in 0..cycles {
        for i in 0..senders {
            let _ = x.offer(i, pkt(0, flits, i as u64));
        }
        x.cycle();
        while let Some(p) = x.pop(0) {
            got[p.payload as usize] += 1;
        }
    }
    got
}

#[test]
fn an_output_takes_one_flit_per_cycle_shared_fairly() {
    for arbiter in [Arbiter::RoundRobin, Arbiter::Islip] {
        // One sender: a packet per cycle of one flit, one per four cycles of four.
        assert_eq!(delivered(1, 1, arbiter, 1000), vec![1000]);
        assert_eq!(delivered(1, 4, arbiter, 1000), vec![250]);
        // Four senders share the output's flit per cycle evenly.
        let got = delivered(4, 1, arbiter, 1000);
        assert_eq!(got.iter().sum::<u64>(), 1000, "{arbiter:?}");
        assert!(
            got.iter().all(|&g| g.abs_diff(250) <= 1),
            "{arbiter:?} {got:?}"
        );
    }
}

#[test]
fn a_full_output_buffer_holds_packets_back() {
    let mut x = Crossbar::new(2, 1, 8, 2, Arbiter::Islip, 0);
    for k in 0..6 {
        assert!(x.offer(k % 2, pkt(0, 1, k as u64)).accepted());
    }
    for _ in 0..10 {
        x.cycle();
    }
    // Two landed (the output buffer's size), the rest wait; nothing was lost.
    assert_eq!(x.fill(0, 0).1, 2);
    assert_eq!(x.inside(), 6);
    assert!(x.stats().stalled > 0);
    let mut got: Vec<u64> = Vec::new();
    for _ in 0..20 {
        x.cycle();
        got.extend(x.pop(0).map(|p| p.payload));
    }
    got.sort();
    assert_eq!(got, vec![0, 1, 2, 3, 4, 5]);
}

/// Random traffic with random draining: every packet arrives exactly once, in order per
/// input and output, and no buffer is ever over its size. The delivery order.
fn random_run(seed: u64, arbiter: Arbiter) -> Vec<(usize, u64)> {
    let mut rng = Rng::new(seed);
    let (ni, no) = (1 + rng.below(6) as usize, 1 + rng.below(6) as usize);
    let (ic, oc) = (1 + rng.below(8) as u32 * 2, 4 + rng.below(8) as u32);
    let mut x = Crossbar::new(ni, no, ic.max(4), oc, arbiter, rng.below(3))
        .with_speedup(1 + rng.below(3) as u32);
    let n = 2000u64;
    let mut pending: Vec<VecDeque<Packet<u64>>> = vec![VecDeque::new(); ni];
    for tag in 0..n {
        let i = rng.below(ni as u64) as usize;
        let p = pkt(rng.below(no as u64) as usize, 1 + rng.below(4) as u32, tag);
        pending[i].push_back(p);
    }
    let mut last = vec![vec![None::<u64>; no]; ni];
    let src: Vec<usize> = {
        let mut s = vec![0; n as usize];
        for (i, q) in pending.iter().enumerate() {
            for p in q {
                s[p.payload as usize] = i;
            }
        }
        s
    };
    let mut seen = vec![false; n as usize];
    let mut order = Vec::new();
    #[allow(clippy::needless_range_loop)]
    for _ in 0..1_000_000 {
        for (i, q) in pending.iter_mut().enumerate() {
            if let Some(&p) = q.front() {
                if rng.below(3) != 0 && x.offer(i, p).accepted() {
                    q.pop_front();
                }
            }
        }
        x.cycle();
        let (ic, oc) = x.caps();
        for i in 0..ni {
            for o in 0..no {
                let (a, b) = x.fill(i, o);
                assert!(a <= ic && b <= oc, "buffers over their sizes");
            }
        }
        for o in 0..no {
            if rng.below(4) != 0 {
                if let Some(p) = x.pop(o) {
                    let t = p.payload as usize;
                    assert!(!seen[t], "delivered twice");
                    seen[t] = true;
                    assert_eq!(p.dest as usize, o);
                    let i = src[t];
                    assert!(
                        last[i][o].is_none_or(|l| l < p.payload),
                        "order per input and output"
                    );
                    last[i][o] = Some(p.payload);
                    order.push((o, p.payload));
                }
            }
        }
        if order.len() == n as usize {
            assert_eq!(x.inside(), 0);
            return order;
        }
    }
    panic!("packets lost: {} inside", x.inside())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    #[test]
    fn every_packet_arrives_once_in_order(seed in 0u64..1_000_000, islip in proptest::bool::ANY) {
        let arbiter = if islip { Arbiter::Islip } else { Arbiter::RoundRobin };
        let a = random_run(seed, arbiter);
        proptest::prop_assert_eq!(a, random_run(seed, arbiter));
    }
}

#[test]
fn the_round_robin_pointer_moves_every_cycle() {
    // GPGPU-Sim's RR_Advance moves the pointer whether or not anything waits: after `idle`
    // empty cycles, the input at the pointer wins a contended output.
    for idle in 0..5u64 {
        let mut x = Crossbar::new(3, 1, 4, 4, Arbiter::RoundRobin, 0);
        for _ in 0..idle {
            x.cycle();
        }
        for i in 0..3 {
            assert!(x.offer(i, pkt(0, 1, i as u64)).accepted());
        }
        x.cycle();
        assert_eq!(
            x.pop(0).map(|p| p.payload),
            Some(idle % 3),
            "after {idle} idle cycles"
        );
    }
}
