//! The memory side of the GPU as one streaming component ([`MemorySide`]): SM ports, a request
//! and a reply crossbar ([`Crossbar`]), and the memory partitions ([`Partitions`]) with their
//! DRAM controllers. What an SM sees: offer a request at its port (refused when the port's
//! input buffer is full), step, take replies at its port.
//!
//! Per interconnect cycle, after the partitions' DRAM and L2 work of the instant: each
//! sub-partition's oldest reply enters the reply network if its input buffer has room; both
//! networks step; each sub-partition takes the oldest request landed at its output if its ROP
//! queue accepts it (else it waits there, holding the output buffer: back-pressure into the
//! network and on to the SMs).
//!
//! Packets: a read request is its header alone (8 bytes), a write request the header and the
//! data, a read reply the header and the data, a write acknowledgement the header alone; the
//! data is one L2 fetch unit (a 32-byte sector, or the line of a line L2). A request's SM is
//! its port (modulo the ports).

use super::icnt::{Arbiter, Crossbar, IcntStats, Packet};
use super::partition::{MemRequest, PartitionStats, Partitions, ICNT, ICNT_CLOCK};
use super::slice::Served;
use crate::mc::system::{McError, MemSystem};
use crate::stream::{Component, Offer};
use spec::{IcntArbiter, Spec};

pub struct MemorySide {
    parts: Partitions,
    req: Crossbar<MemRequest>,
    rep: Crossbar<(MemRequest, Served)>,
    ports: usize,
    /// Flits of a packet without data and of one with a fill's data (`icnt.flits`, taken
    /// once: a division per packet otherwise).
    flits_bare: u32,
    flits_data: u32,
    /// `l2.fill_on_copy`: [`MemorySide::host_copy`] fills the L2.
    fill_on_copy: bool,
}

impl MemorySide {
    /// The idle memory side of a validated spec with `ports` SM ports (at least 1).
    pub fn new(spec: &Spec, ports: usize) -> MemorySide {
        let parts = Partitions::new(spec);
        let i = spec.icnt;
        let arbiter = match i.arbiter {
            IcntArbiter::Rr => Arbiter::RoundRobin,
            IcntArbiter::Islip => Arbiter::Islip,
        };
        let ports = ports.max(1);
        let subs = parts.len();
        let lat = u64::from(i.latency);
        MemorySide {
            req: Crossbar::new(ports, subs, i.in_buffer, i.out_buffer, arbiter, lat)
                .with_speedup(i.speedup),
            rep: Crossbar::new(subs, ports, i.in_buffer, i.out_buffer, arbiter, lat)
                .with_speedup(i.speedup),
            parts,
            ports,
            flits_bare: i.flits(0),
            flits_data: i.flits(spec.l2.fetch_bytes()),
            fill_on_copy: spec.l2.fill_on_copy,
        }
    }

    pub fn ports(&self) -> usize {
        self.ports
    }

    pub fn port_of(&self, r: &MemRequest) -> usize {
        let sm = r.sm as usize;
        // (One port per SM, usually: no division then.)
        if sm < self.ports {
            sm
        } else {
            sm % self.ports
        }
    }

    /// Flits of `r`'s request packet and of its reply.
    pub fn flits(&self, r: &MemRequest) -> (u32, u32) {
        if r.write {
            (self.flits_data, self.flits_bare)
        } else {
            (self.flits_bare, self.flits_data)
        }
    }

    /// Offer `r` at its SM's port at the current core cycle. Its SM and warp are ones the GPU
    /// has (`gpu.sms`, `gpu.warps_per_sm`; the stimulus readers check them): a Warped-MC
    /// controller indexes its warp tables by them.
    pub fn offer(&mut self, r: MemRequest) -> Offer {
        let port = self.port_of(&r);
        let p = Packet {
            dest: self.parts.sub_of(r.addr) as u32,
            flits: self.flits(&r).0,
            payload: r,
        };
        if self.req.offer(port, p).accepted() {
            Offer::Accepted
        } else {
            Offer::Refused
        }
    }

    /// Advance to the next clock edge (see [`Partitions::cycle`], also for a watched group);
    /// the interconnect moves on its edges. Returns the domains that had an edge.
    pub fn cycle(&mut self) -> Result<u32, McError> {
        let mask = self.parts.cycle()?;
        if mask & ICNT != 0 {
            for k in 0..self.parts.replying_words() {
                for s in self.parts.replying(k) {
                    let Some(&(r, by)) = self.parts.peek_reply(s) else {
                        continue;
                    };
                    let p = Packet {
                        dest: self.port_of(&r) as u32,
                        flits: self.flits(&r).1,
                        payload: (r, by),
                    };
                    if self.rep.offer(s, p).accepted() {
                        self.parts.pop_reply(s);
                    }
                }
            }
            self.req.cycle();
            self.rep.cycle();
            let with_requests = if self.req.landed() > 0 {
                self.parts.len()
            } else {
                0
            };
            for s in 0..with_requests {
                let Some(p) = self.req.peek(s) else {
                    continue;
                };
                if self.parts.offer_to(s, p.payload) == Offer::Accepted {
                    self.req.pop(s);
                }
            }
        }
        Ok(mask)
    }

    /// Whether the port of `r`'s SM would take it now ([`MemorySide::offer`] accepts).
    pub fn would_take(&self, r: &MemRequest) -> bool {
        self.req.has_room(self.port_of(r), self.flits(r).0)
    }

    /// `n` offers refused at the ports (an SM that slept through its retries counts them, as
    /// [`MemorySide::offer`] would have).
    pub fn refused(&mut self, n: u64) {
        self.req.refused(n);
    }

    /// Jump to core cycle count `n - 1`, at most [`MemorySide::next_work`](Component::next_work)
    /// (see [`Partitions::skip_to`]): the next [`MemorySide::cycle`] is the core's edge `n - 1`.
    /// The networks count their skipped cycles.
    pub fn skip_to(&mut self, n: u64) {
        #[cfg(test)]
        assert!(
            n <= self.next_work(),
            "a jump past the memory side's next change"
        );
        let icnt = self.parts.skip_to(n)[ICNT_CLOCK];
        self.req.repeat(icnt);
        self.rep.repeat(icnt);
    }

    /// The host copied `bytes` bytes to `addr` on: under `l2.fill_on_copy` (decision MEM-24)
    /// every 32-byte sector the copy touches is filled into its sub-partition's slice, as
    /// GPGPU-Sim's `perf_memcpy_to_gpu` does, in address order and taking no time; otherwise
    /// nothing changes.
    pub fn host_copy(&mut self, addr: u64, bytes: u64) {
        if !self.fill_on_copy {
            return;
        }
        let sector = u64::from(spec::cache::SECTOR_BYTES);
        let end = addr.saturating_add(bytes);
        let mut a = addr - addr % sector;
        while a < end {
            let s = self.parts.sub_of(a);
            self.parts.slice_mut(s).fill_copied(a);
            a = a.saturating_add(sector);
        }
    }

    /// Invalidate every L2 line, dirty ones dropped without a write-back (a profiler's cache
    /// flush before a kernel, decision GPU-33): the flush's own write-backs are not the
    /// kernel's traffic. Requests in flight are untouched.
    pub fn invalidate_l2(&mut self) {
        for s in 0..self.parts.len() {
            self.parts.slice_mut(s).invalidate();
        }
    }

    /// Replies landed at the ports, over every port (none: no port has one to pop).
    pub fn replies_landed(&self) -> usize {
        self.rep.landed()
    }

    /// Whether a reply has landed at `port`.
    pub fn reply_at(&self, port: usize) -> bool {
        self.rep.peek(port).is_some()
    }

    /// The oldest reply landed at `port`, and whether the L2 served it.
    pub fn pop_reply(&mut self, port: usize) -> Option<(MemRequest, Served)> {
        self.rep.pop(port).map(|p| p.payload)
    }

    pub fn core_cycle(&self) -> u64 {
        self.parts.core_cycle()
    }

    /// Requests inside (networks and partitions).
    pub fn inside(&self) -> usize {
        self.req.inside() + self.rep.inside() + self.parts.inside()
    }

    pub fn partitions(&self) -> &Partitions {
        &self.parts
    }

    pub fn dram(&self) -> &MemSystem {
        self.parts.dram()
    }

    pub fn dram_mut(&mut self) -> &mut MemSystem {
        self.parts.dram_mut()
    }

    /// Counters: the partitions', the request network's and the reply network's.
    pub fn stats(&self) -> (PartitionStats, IcntStats, IcntStats) {
        (self.parts.stats(), self.req.stats(), self.rep.stats())
    }

    /// Flits in each network's buffers against their sizes (for bounds checks): per port pair.
    pub fn network_fill(&self) -> Vec<((u32, u32), (u32, u32))> {
        let mut v = Vec::new();
        for port in 0..self.ports {
            for s in 0..self.parts.len() {
                v.push((self.req.fill(port, s), self.rep.fill(s, port)));
            }
        }
        v
    }

    pub fn network_caps(&self) -> (u32, u32) {
        self.req.caps()
    }
}

impl Component for MemorySide {
    /// A core cycle count `n` such that, if nothing is offered at a port and no reply taken,
    /// every instant before the core edge that makes the count `n` only counts, in the
    /// networks and the partitions ([`MemorySide::skip_to`] jumps there). At most the current
    /// count when the next instant may change something; `u64::MAX` when nothing ever would.
    ///
    /// Each interconnect cycle repeats when no landed request finds room in its sub-partition, each
    /// network only counts ([`Crossbar::next_work`](Component::next_work)), and no reply is on its
    /// way out: a reply waiting in a sub-partition or landed at a port is a change (the SMs take
    /// one a cycle as they land, so the reply network does not hold them back).
    fn next_work(&self) -> u64 {
        let core = self.core_cycle();
        if self.rep.landed() > 0 || self.parts.any_replying() {
            return core;
        }
        if self.req.landed() > 0
            && (0..self.parts.len()).any(|s| self.req.peek(s).is_some() && self.parts.has_room(s))
        {
            return core;
        }
        let n = self.parts.next_work();
        if n <= core + 1 {
            return n;
        }
        match self.req.next_work().min(self.rep.next_work()) {
            u64::MAX => n,
            icnt => n.min(self.parts.core_count_by(ICNT_CLOCK, icnt)),
        }
    }
}

#[cfg(test)]
mod soundness {
    use super::*;
    use crate::mem::partition::CORE;
    use crate::rng::Rng;
    use spec::ConfigRequest;

    /// Random traffic from every port, offered whenever a port accepts, replies taken with
    /// probability `take` percent per port and core cycle; every step checks every buffer and
    /// queue against its size. The replies in order.
    fn run(s: &Spec, seed: u64, ports: usize, take: u64) -> Vec<(u64, Served)> {
        let mut rng = Rng::new(seed);
        let mut m = MemorySide::new(s, ports);
        let n = 600u64;
        let reqs: Vec<MemRequest> = (0..n)
            .map(|tag| MemRequest {
                tag,
                addr: rng.below(512) * 32,
                write: rng.below(5) == 0,
                // SMs and warps the GPU has (the stimulus readers check this).
                sm: rng.below(u64::from(s.gpu.sms)) as u16,
                warp: rng.below(8) as u16,
                pc: 0x200 + rng.below(4) * 8,
                prefetch: false,
            })
            .collect();
        let mut queues: Vec<VecDeque<MemRequest>> = vec![VecDeque::new(); ports];
        for r in &reqs {
            queues[m.port_of(r)].push_back(*r);
        }
        let mut seen = vec![false; n as usize];
        let mut out = Vec::new();
        let (ic, oc) = m.network_caps();
        for _ in 0..5_000_000u64 {
            let mask = m.cycle().unwrap();
            for ((a, b), (c, d)) in m.network_fill() {
                assert!(
                    a <= ic && b <= oc && c <= ic && d <= oc,
                    "a network buffer overflowed"
                );
            }
            for sub in 0..m.partitions().len() {
                for (len, cap) in m.partitions().queue_fill(sub) {
                    assert!(len <= cap, "a partition queue overflowed");
                }
            }
            if mask & CORE == 0 {
                continue;
            }
            for (port, queue) in queues.iter_mut().enumerate() {
                if rng.below(100) < take {
                    if let Some((r, by)) = m.pop_reply(port) {
                        assert!(!std::mem::replace(&mut seen[r.tag as usize], true), "twice");
                        assert_eq!(r, reqs[r.tag as usize]);
                        out.push((r.tag, by));
                    }
                }
                if let Some(&r) = queue.front() {
                    if m.offer(r) == Offer::Accepted {
                        queue.pop_front();
                    }
                }
            }
            if out.len() == n as usize {
                assert_eq!(m.inside(), 0);
                return out;
            }
        }
        panic!("requests lost: {} inside", m.inside())
    }

    use std::collections::VecDeque;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]
        #[test]
        fn the_memory_side_loses_nothing_and_overflows_nothing(
            seed in 0u64..1_000_000,
            ports in 1usize..6,
            take in 10u64..100,
            sched in 0usize..4,
            islip in proptest::bool::ANY,
            icnt_khz in proptest::sample::select(vec![400_000u32, 1_000_000, 2_000_000]),
        ) {
            let name = spec::Scheduler::ALL[sched].name();
            let s = ConfigRequest::preset("tiny")
                .with(&format!("mc.scheduler={name}"))
                .with(&format!("icnt.arbiter={}", if islip { "islip" } else { "rr" }))
                .with(&format!("clocks.icnt_khz={icnt_khz}"))
                .resolve()
                .unwrap();
            let a = run(&s, seed, ports, take);
            proptest::prop_assert_eq!(a, run(&s, seed, ports, take));
        }
    }
}
