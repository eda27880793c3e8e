use super::*;
use crate::mem::side::MemorySide;
use spec::ConfigRequest;

fn spec(name: &str) -> Spec {
    ConfigRequest::preset(name).resolve().unwrap()
}

fn read(tag: u64, addr: u64) -> MemRequest {
    MemRequest {
        tag,
        addr,
        write: false,
        sm: 1,
        warp: 2,
        pc: 0x80,
        prefetch: false,
    }
}

/// Offer `r` at the first core edge after `at` core cycles, then step until its reply comes
/// out: the core cycle of the offer (core edges passed), and the core cycles to the reply.
fn latency(p: &mut Partitions, r: MemRequest, at: u64) -> (u64, u64) {
    let (c, reply, _) = stages(p, r, at);
    (c, reply)
}

/// [`latency`], and the core cycles to the first step after which the controller holds a
/// request (the fetch entering the DRAM), if it ever does.
fn stages(p: &mut Partitions, r: MemRequest, at: u64) -> (u64, u64, Option<u64>) {
    while p.core_cycle() < at {
        p.cycle().unwrap();
    }
    // Offers happen after a core edge (the SM's phase).
    while p.cycle().unwrap() & CORE == 0 {}
    assert_eq!(p.offer(r), Offer::Accepted);
    let from = p.core_cycle();
    let s = p.sub_of(r.addr);
    let mut entered = None;
    loop {
        p.cycle().unwrap();
        if entered.is_none() && p.dram().outstanding() > 0 {
            entered = Some(p.core_cycle() - from);
        }
        if let Some((x, _)) = p.pop_reply(s) {
            assert_eq!(x, r);
            return (from, p.core_cycle() - from, entered);
        }
        assert!(p.core_cycle() < from + 100_000, "no reply");
    }
}

/// Clock edges as exact times: edge `k` of domain `d` is at `k * period[d]` (in units of
/// 1 / lcm of the frequencies), written independently of [`ClockDomains`].
struct Edges {
    period: [u128; 4],
}

const CORE_D: usize = 0;
const L2_D: usize = 2;
const DRAM_D: usize = 3;

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Edges {
    fn of(s: &Spec) -> Edges {
        let c = &s.clocks;
        let f = [c.core_khz, c.icnt_khz, c.l2_khz, c.dram_khz].map(u128::from);
        let lcm = f.iter().fold(1, |l, &x| l / gcd(l, x) * x);
        Edges {
            period: f.map(|x| lcm / x),
        }
    }
    fn at(&self, d: usize, k: u128) -> u128 {
        k * self.period[d]
    }
    /// The first edge of `d` strictly after `t`.
    fn after(&self, d: usize, t: u128) -> u128 {
        t / self.period[d] + 1
    }
    /// The first edge of `d` at or after `t`.
    fn from(&self, d: usize, t: u128) -> u128 {
        t.div_ceil(self.period[d])
    }
    /// Edges of `d` at or before `t`.
    fn upto(&self, d: usize, t: u128) -> u128 {
        t / self.period[d] + 1
    }
    /// Edges of `d` before `t`.
    fn before(&self, d: usize, t: u128) -> u128 {
        t.div_ceil(self.period[d])
    }
}

/// The documented unloaded latencies (module documentation, stage by stage; at one instant
/// the DRAM steps before the L2 and the core's edge comes last), in core cycles from an offer
/// made after core edge `c` (the `c`-th): `(hit, miss)` where the miss's DRAM request finds
/// its bank closed (`closed`) or its row open, and when the miss's fetch enters the controller.
fn documented(s: &Spec, c: u128, closed: bool) -> (u128, u128, u128) {
    let e = Edges::of(s);
    let (hit, miss, entered) = answers(s, c, closed);
    (
        e.upto(CORE_D, hit) - c,
        e.upto(CORE_D, miss) - c,
        e.upto(CORE_D, entered) - c,
    )
}

/// [`documented`] as times (units of [`Edges`]): when a hit's answer and a miss's answer
/// leave the slice, and when the miss's fetch enters the controller.
fn answers(s: &Spec, c: u128, closed: bool) -> (u128, u128, u128) {
    let e = Edges::of(s);
    let (rop, dlat) = (u128::from(s.l2.rop_latency), u128::from(s.l2.dram_latency));
    let t = &s.dram.timing;
    // The ROP queue lets it go at the first L2 edge after core edge c + rop - 1 (0-based
    // edges); the slice accesses it at the next L2 edge, and a hit's answer leaves then.
    let moved = e.after(L2_D, e.at(CORE_D, c + rop - 1));
    let access = moved + 1;
    let hit = e.at(L2_D, access);
    // A miss's fetch reaches the L2-to-DRAM queue one L2 cycle later; the next DRAM edge puts
    // it into the latency queue, ready dram_latency core cycles on; it is offered at the first
    // DRAM edge that sees it ready, after the controller's step (its now: edge index + 1).
    let queued = e.after(DRAM_D, e.at(L2_D, access + 1));
    let ready = e.before(CORE_D, e.at(DRAM_D, queued)) + dlat;
    let mut offered = queued;
    while e.before(CORE_D, e.at(DRAM_D, offered)) < ready {
        offered += 1;
    }
    // The controller enqueues it in cycle n (= offered + 1) and issues from cycle n + 1: ACT
    // (closed bank), RD tRCD later; the data ends tCL + tBL after the RD. A fetch of several
    // atoms (a 128 B line on 64 B atoms) is that many reads of the open row, each a column
    // command max(tCCDL, tBL) after the one before (same bank: same bank group); the fetch is
    // done with the last one's data.
    let n = offered + 1;
    let act = if closed { u128::from(t.t_rcd) } else { 0 };
    let parts = u128::from((s.l2.fetch_bytes() / s.dram.atom_bytes).max(1));
    let more = (parts - 1) * u128::from(t.t_ccdl.max(t.t_bl));
    let done = n + 1 + act + more + u128::from(t.t_cl + t.t_bl);
    // It returns at DRAM edge `done` (its now is then `done`), fills the slice at the L2 edge
    // at or after it, and the answer leaves in that L2 cycle.
    let fill = e.from(L2_D, e.at(DRAM_D, done));
    (hit, e.at(L2_D, fill), e.at(DRAM_D, offered))
}

const ICNT_D: usize = 1;

/// The documented unloaded latency through the networks, in core cycles from an offer at an
/// SM port after core edge `c`: the request packet (`kq` flits) is granted at the first
/// interconnect edge after the offer and lands `kq - 1 + latency` edges later, entering its
/// sub-partition then (at that instant's core count: the interconnect steps after the
/// partitions); the answer enters the reply network at the first interconnect edge at or after
/// the L2 edge that produced it and lands `kr - 1 + latency` edges later.
pub(crate) fn documented_side(s: &Spec, c: u128, closed: bool, hit: bool) -> u128 {
    let e = Edges::of(s);
    let l = u128::from(s.icnt.latency);
    let (kq, kr) = (
        u128::from(s.icnt.flits(0)),
        u128::from(s.icnt.flits(s.l2.fetch_bytes())),
    );
    let granted = e.after(ICNT_D, e.at(CORE_D, c - 1));
    let landed = e.at(ICNT_D, granted + kq - 1 + l);
    let (h, m, _) = answers(s, e.upto(CORE_D, landed), closed);
    let sent = e.from(ICNT_D, if hit { h } else { m });
    e.upto(CORE_D, e.at(ICNT_D, sent + kr - 1 + l)) - c
}

/// [`latency`] through the memory side's networks: offer `r` at its port at the first core
/// edge after `at`, step until its reply reaches the port. The core cycle of the offer, the
/// core cycles to the reply, and who served it.
fn through_side(m: &mut MemorySide, r: MemRequest, at: u64) -> (u64, u64, Served) {
    while m.core_cycle() < at {
        m.cycle().unwrap();
    }
    // Offers happen after a core edge (the SM's phase).
    while m.cycle().unwrap() & CORE == 0 {}
    assert_eq!(m.offer(r), Offer::Accepted);
    let from = m.core_cycle();
    let port = m.port_of(&r);
    loop {
        m.cycle().unwrap();
        if let Some((x, by)) = m.pop_reply(port) {
            assert_eq!(x, r);
            return (from, m.core_cycle() - from, by);
        }
        assert!(m.core_cycle() < from + 100_000, "no reply");
    }
}

#[test]
fn unloaded_latencies_through_the_networks_on_every_preset() {
    for name in ["tiny", "turing-rtx2060s", "fermi-gtx480"] {
        let s = spec(name).variant(&["dram.refresh=false"]).unwrap();
        let mut m = MemorySide::new(&s, 4);
        let (c, miss, by) = through_side(&mut m, read(1, 0x40000), 10);
        assert_eq!(by, Served::NextLevel, "{name}");
        assert_eq!(
            u128::from(miss),
            documented_side(&s, c.into(), true, false),
            "{name} miss"
        );
        let (c, hit, by) = through_side(&mut m, read(2, 0x40000), c + miss + 7);
        assert_eq!(by, Served::Slice, "{name}");
        assert_eq!(
            u128::from(hit),
            documented_side(&s, c.into(), true, true),
            "{name} hit"
        );
        // Equal clocks (tiny): one-flit packets cross in 1 + latency cycles each way, and the
        // partition adds its sums in closed form (rop + 2 for a hit; rop + DRAM latency + tRCD
        // + tCL + tBL + 6 for a miss to a closed bank).
        if name == "tiny" {
            let net = 1 + 2 * u64::from(s.icnt.latency);
            let (rop, dlat) = (u64::from(s.l2.rop_latency), u64::from(s.l2.dram_latency));
            let t = &s.dram.timing;
            assert_eq!(
                miss,
                net + rop + dlat + u64::from(t.t_rcd + t.t_cl + t.t_bl) + 6
            );
            assert_eq!(hit, net + rop + 2);
            // Packet sizes: a read is one header flit, its reply the header and a sector.
            assert_eq!(m.flits(&read(0, 0)), (1, 1));
        }
    }
}

/// An address in the same channel, bank and row as `a` but in another L2 line.
fn same_row(p: &Partitions, a: u64) -> u64 {
    let m = p.dram().address_map();
    let d = m.decode(a);
    (1..4096)
        .map(|k| a + k * 128)
        .find(|&x| {
            let y = m.decode(x);
            (y.channel, y.bank, y.row) == (d.channel, d.bank, d.row)
        })
        .expect("a row holds more than one line")
}

#[test]
fn unloaded_latencies_are_the_documented_sums() {
    for name in ["tiny", "turing-rtx2060s", "fermi-gtx480"] {
        // No refresh: a refresh would close the row or hold the bank at a time of its own.
        let s = spec(name).variant(&["dram.refresh=false"]).unwrap();
        let mut p = Partitions::new(&s);
        let base = 0x40000;
        // A read miss to a closed bank, a miss to the row it left open, then a hit.
        let (c, miss, entered) = stages(&mut p, read(1, base), 10);
        let (_, doc_miss, doc_entered) = documented(&s, c.into(), true);
        assert_eq!(u128::from(miss), doc_miss, "{name} miss");
        assert_eq!(
            entered.map(u128::from),
            Some(doc_entered),
            "{name} DRAM entry"
        );
        let other = same_row(&p, base);
        let at = p.core_cycle() + 5;
        let (c, open) = latency(&mut p, read(2, other), at);
        let (_, doc_open, _) = documented(&s, c.into(), false);
        assert_eq!(u128::from(open), doc_open, "{name} open-row miss");
        let at = p.core_cycle() + 7;
        let (c, hit) = latency(&mut p, read(3, base), at);
        let (doc_hit, _, _) = documented(&s, c.into(), true);
        assert_eq!(u128::from(hit), doc_hit, "{name} hit");
        assert!(hit < open && open < miss, "{name}: {hit} {open} {miss}");
        // Equal clocks (tiny): the sums in closed form.
        if name == "tiny" {
            let t = &s.dram.timing;
            let (rop, dlat) = (u64::from(s.l2.rop_latency), u64::from(s.l2.dram_latency));
            assert_eq!(hit, rop + 2);
            assert_eq!(miss, rop + dlat + u64::from(t.t_rcd + t.t_cl + t.t_bl) + 6);
        }
    }
}

/// One closed-loop run on `s`: `n` requests (reads and writes over a few lines, so that hits,
/// merges, evictions and write-backs all happen) offered one per core cycle when accepted
/// (a refused one is offered again), replies taken from each sub-partition with probability
/// `take` per step. Every step checks every queue against its size. The replies' tags in
/// order, per sub-partition.
fn closed_loop(s: &Spec, seed: u64, n: u64, take: u32) -> (Vec<Vec<u64>>, PartitionStats, u64) {
    let mut rng = crate::rng::Rng::new(seed);
    let mut p = Partitions::new(s);
    let lines = 256;
    let reqs: Vec<MemRequest> = (0..n)
        .map(|tag| MemRequest {
            tag,
            addr: rng.below(lines) * 128 + rng.below(4) * 32,
            write: rng.below(4) == 0,
            sm: rng.below(4) as u16,
            warp: rng.below(8) as u16,
            pc: 0x100 + rng.below(4) * 8,
            prefetch: false,
        })
        .collect();
    let mut next = 0;
    let mut answered = vec![0u32; n as usize];
    let mut out = vec![Vec::new(); p.len()];
    let mut steps = 0u64;
    let mut refused = 0u64;
    while out.iter().map(Vec::len).sum::<usize>() < n as usize {
        let mask = p.cycle().unwrap();
        steps += 1;
        assert!(steps < 2_000_000, "requests lost: {} inside", p.inside());
        for (sub, replies) in out.iter_mut().enumerate() {
            for (len, cap) in p.queue_fill(sub) {
                assert!(len <= cap, "sub-partition {sub}: {len} > {cap}");
            }
            if rng.below(100) < u64::from(take) {
                if let Some((r, _)) = p.pop_reply(sub) {
                    answered[r.tag as usize] += 1;
                    assert_eq!(r, reqs[r.tag as usize], "a reply is its request");
                    replies.push(r.tag);
                }
            }
        }
        if mask & CORE != 0 && next < reqs.len() {
            if p.offer(reqs[next]) == Offer::Accepted {
                next += 1;
            } else {
                refused += 1;
            }
        }
    }
    assert!(
        answered.iter().all(|&a| a == 1),
        "each request answered exactly once"
    );
    assert_eq!(p.inside(), 0);
    (out, p.stats(), refused)
}

#[test]
fn a_closed_loop_run_exercises_every_path() {
    // An L2 at a quarter of the DRAM's clock: fetches return faster than they fill.
    let s = spec("tiny").variant(&["clocks.l2_khz=250000"]).unwrap();
    let (_, st, refused) = closed_loop(&s, 7, 2000, 30);
    let x = &st.slices;
    assert!(x.hits > 0 && x.misses > 0 && x.sector_misses > 0, "{st:?}");
    assert!(x.mshr_merges > 0 && x.writebacks > 0, "{st:?}");
    assert!(!x.reservation_failures.is_empty(), "{st:?}");
    assert!(refused > 0 && st.l2_to_icnt_full > 0, "{st:?} {refused}");
    assert!(st.dram_to_l2_full > 0 && st.icnt_to_l2_full > 0, "{st:?}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
    #[test]
    fn closed_loop_is_sound(
        seed in 0u64..1_000_000,
        take in 5u32..100,
        sched in 0usize..4,
        l2_khz in proptest::sample::select(vec![250_000u32, 1_000_000, 1_700_000]),
        core_khz in proptest::sample::select(vec![600_000u32, 1_000_000]),
    ) {
        // Clock domains of their own: an L2 slower than the DRAM fills its DRAM-to-L2 queue.
        let name = spec::Scheduler::ALL[sched].name();
        let s = spec("tiny")
            .variant(&[
                &format!("mc.scheduler={name}"),
                &format!("clocks.l2_khz={l2_khz}"),
                &format!("clocks.core_khz={core_khz}"),
            ])
            .unwrap();
        let a = closed_loop(&s, seed, 400, take);
        // Same seed, same run.
        proptest::prop_assert_eq!(&a, &closed_loop(&s, seed, 400, take));
    }
}
