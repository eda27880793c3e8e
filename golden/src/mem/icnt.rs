//! The interconnect: a crossbar network ([`Crossbar`]) as a streaming component. Two of them
//! join the SM ports and the memory sub-partitions: requests one way, replies the other
//! (GPGPU-Sim's two subnets).
//!
//! A packet of `k` flits (`ceil(bytes / icnt.flit_bytes)`) is offered at an input port and
//! waits in that port's input buffer (refused when the buffer lacks room for all its flits).
//! Per interconnect cycle, the arbiter grants outputs to inputs whose head packet targets them:
//! an output is granted only when its output buffer has room for the whole packet and it is not
//! still receiving one, an input only when it is not still sending one. A granted packet
//! crosses at one flit per cycle (the port bandwidth): its input and output are busy for `k`
//! cycles, and it lands in the output buffer at the end of the cycle of its last flit plus
//! `icnt.latency` cycles, where the destination takes it ([`Crossbar::pop`]). Unloaded, a
//! packet offered before cycle `t` can be taken after cycle `t + k - 1 + latency`: one cycle
//! for a one-flit packet, as in GPGPU-Sim's crossbar.
//!
//! Internal speedup (`icnt.speedup`, BookSim's `internal_speedup`): the switch runs `s` steps
//! per interconnect cycle, each moving one flit per granted input-output pair, while the
//! channels into and out of it still carry one flit per cycle. A packet's flits reach its input
//! buffer one per cycle from its offer, after the packets before it; a granted packet holds its
//! input and the output's switch port for `k` steps, or until its last flit has arrived if
//! that is later; it then leaves through the output's channel at one flit per cycle, after the
//! packets before it there (the output buffer holds the backlog, its room reserved at the
//! grant). Unloaded latencies do not change; under contention, packets that queued behind a
//! blocked head cross the switch faster than they arrived, which lifts the head-of-line limit
//! of first-in-first-out input buffers (about 59 % of the ports' rate under uniform traffic).
//! With `s = 1` none of these channel bounds ever binds (a packet cannot cross before its
//! input's earlier packets have, nor leave before its switch port is free), which is the model
//! above.
//!
//! Arbitration, as GPGPU-Sim's built-in crossbar (`xbar_router`, local_interconnect.cc) does it:
//! * `rr`: inputs are visited round-robin from a pointer that moves on by one every cycle; each
//!   takes its head packet's output if that output is free.
//! * `islip`: each free output grants the first input, round-robin from its own pointer, whose
//!   head packet targets it, and its pointer moves past that input (one iteration of iSLIP; an
//!   input offers only its head packet, so it is granted at most once).
//!
//! GPGPU-Sim's crossbar moves every packet as one flit; with one-flit packets (every reference
//! configuration's 40-byte flits carry a 32-byte sector and its 8-byte header) this is that
//! crossbar. What BookSim's flit-level model does and this does not: virtual channels and their
//! allocation, credit-based flow control between routers, multi-hop topologies (the reference
//! `.icnt` files use a one-stage flattened butterfly, `fly` with `n = 1`, which is a crossbar),
//! fractional internal speedups, input and output speedups (with one virtual channel, BookSim
//! sends every flit of an input through the same switch input, so `input_speedup` changes
//! nothing there), and wormhole interleaving of flits of different packets at an output.

use crate::bitset::BitSet;
use crate::stream::{Component, Offer};
use std::collections::VecDeque;

/// A packet in the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<P> {
    /// The output port (32 bits: a packet is copied several times on its way).
    pub dest: u32,
    pub flits: u32,
    pub payload: P,
}

/// Arbitration between inputs for an output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arbiter {
    RoundRobin,
    Islip,
}

/// Counters of a network.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct IcntStats {
    pub packets: u64,
    pub flits: u64,
    /// Input-cycles in which a head packet could not be granted (its output busy, full or
    /// granted to another input).
    pub stalled: u64,
    /// Offers refused by a full input buffer.
    pub refused: u64,
}

/// One crossbar network.
#[derive(Debug, Clone)]
pub struct Crossbar<P> {
    /// Per input, its buffered packets, each with the cycle its last flit has arrived.
    inputs: Vec<VecDeque<(u64, Packet<P>)>>,
    /// Per input: the first cycle its channel is free of the packets offered to it.
    in_free: Vec<u64>,
    /// The inputs holding a packet, as a bit set (64 a word): the arbiter visits only these
    /// (scanning every input each cycle was a tenth of a memory-side run).
    holding: BitSet,
    /// Flits queued per input buffer.
    in_flits: Vec<u32>,
    /// Per input holding a packet: its head packet's output (the arbiter reads this, not the
    /// buffers).
    head_dest: Vec<usize>,
    in_cap: u32,
    /// Per output: packets landed, and flits landed or reserved for a packet crossing.
    outputs: Vec<VecDeque<Packet<P>>>,
    out_flits: Vec<u32>,
    out_cap: u32,
    /// Packets crossing: (cycle they land, packet).
    crossing: VecDeque<(u64, Packet<P>)>,
    /// Per port: the first switch step it is free again (steps: `speedup` per cycle).
    in_busy: Vec<u64>,
    out_busy: Vec<u64>,
    /// Per output: the first cycle its channel is free of the packets granted to it.
    out_free: Vec<u64>,
    /// Switch steps per cycle (`icnt.speedup`), and the current step.
    speedup: u64,
    step: u64,
    /// A deliberately wrong variant for the tests: packets cross the switch as fast as it
    /// runs, whether or not their flits have arrived through their input channel.
    #[cfg(test)]
    lax_channels: bool,
    arbiter: Arbiter,
    /// `rr`: the input visited first; `islip`: per output, the input it looks at first.
    rr: usize,
    grant_ptr: Vec<usize>,
    latency: u64,
    now: u64,
    stats: IcntStats,
    /// Packets in input buffers; packets landed in output buffers.
    queued: usize,
    landed: usize,
    /// Working storage of `arbitrate`, kept to avoid allocating every cycle.
    ready: Vec<usize>,
    granted: Vec<bool>,
    best: Vec<Option<(usize, usize)>>,
    touched: Vec<usize>,
}

impl<P: Copy> Crossbar<P> {
    /// `inputs` x `outputs` ports, buffers of `in_cap` and `out_cap` flits (a packet larger
    /// than a buffer is refused), `latency` cycles beyond the flits' serialisation.
    pub fn new(
        inputs: usize,
        outputs: usize,
        in_cap: u32,
        out_cap: u32,
        arbiter: Arbiter,
        latency: u64,
    ) -> Crossbar<P> {
        Crossbar {
            inputs: vec![VecDeque::new(); inputs],
            in_free: vec![0; inputs],
            holding: BitSet::new(inputs),
            in_flits: vec![0; inputs],
            head_dest: vec![0; inputs],
            in_cap,
            outputs: vec![VecDeque::new(); outputs],
            out_flits: vec![0; outputs],
            out_cap,
            crossing: VecDeque::new(),
            in_busy: vec![0; inputs],
            out_busy: vec![0; outputs],
            out_free: vec![0; outputs],
            speedup: 1,
            step: 0,
            #[cfg(test)]
            lax_channels: false,
            arbiter,
            rr: 0,
            grant_ptr: vec![0; outputs],
            latency,
            now: 0,
            stats: IcntStats::default(),
            queued: 0,
            landed: 0,
            ready: Vec::new(),
            granted: vec![false; outputs],
            best: vec![None; outputs],
            touched: Vec::new(),
        }
    }

    /// The same network with a switch `speedup` times as fast as its ports (at least 1).
    pub fn with_speedup(mut self, speedup: u32) -> Crossbar<P> {
        self.speedup = u64::from(speedup.max(1));
        self
    }

    pub fn stats(&self) -> IcntStats {
        self.stats
    }

    /// Whether input `i` has room for a packet of `flits`.
    pub fn has_room(&self, i: usize, flits: u32) -> bool {
        self.in_flits[i] + flits <= self.in_cap
    }

    /// Offer a packet at input `i`; refused (and nothing changes) when its buffer lacks room.
    pub fn offer(&mut self, i: usize, p: Packet<P>) -> Offer {
        if !self.has_room(i, p.flits) {
            self.stats.refused += 1;
            return Offer::Refused;
        }
        self.in_flits[i] += p.flits;
        // Offered before cycle `now`'s step: its flits arrive from then on, after the input's
        // earlier packets.
        let tail = self.now.max(self.in_free[i]) + u64::from(p.flits) - 1;
        self.in_free[i] = tail + 1;
        if self.inputs[i].is_empty() {
            self.head_dest[i] = p.dest as usize;
        }
        self.inputs[i].push_back((tail, p));
        self.holding.insert(i);
        self.queued += 1;
        Offer::Accepted
    }

    /// The oldest packet landed at output `o`, if any.
    pub fn peek(&self, o: usize) -> Option<&Packet<P>> {
        self.outputs[o].front()
    }

    /// Packets landed in the output buffers, over every output.
    pub fn landed(&self) -> usize {
        self.landed
    }

    /// Take the oldest packet landed at output `o`.
    pub fn pop(&mut self, o: usize) -> Option<Packet<P>> {
        let p = crate::ring::pop_front(&mut self.outputs[o])?;
        self.out_flits[o] -= p.flits;
        self.landed -= 1;
        Some(p)
    }

    /// Packets inside (buffered, crossing or landed).
    pub fn inside(&self) -> usize {
        let n = self.queued + self.crossing.len() + self.landed;
        // Unit tests check the counters against the buffers.
        #[cfg(test)]
        assert_eq!(
            n,
            self.inputs.iter().map(VecDeque::len).sum::<usize>()
                + self.crossing.len()
                + self.outputs.iter().map(VecDeque::len).sum::<usize>()
        );
        n
    }

    /// Flits in input buffer `i` and output buffer `o` (landed or reserved), for bounds checks.
    pub fn fill(&self, i: usize, o: usize) -> (u32, u32) {
        (self.in_flits[i], self.out_flits[o])
    }

    pub fn caps(&self) -> (u32, u32) {
        (self.in_cap, self.out_cap)
    }

    /// Whether output `o` can take `p` now.
    fn free_for(&self, o: usize, p: &Packet<P>, granted: &[bool]) -> bool {
        !granted[o] && self.out_busy[o] <= self.step && self.out_flits[o] + p.flits <= self.out_cap
    }

    fn grant(&mut self, i: usize) {
        let Some((tail, p)) = crate::ring::pop_front(&mut self.inputs[i]) else {
            return;
        };
        let dest = p.dest as usize;
        match self.inputs[i].front() {
            Some(&(_, next)) => self.head_dest[i] = next.dest as usize,
            None => self.holding.remove(i),
        }
        #[cfg(test)]
        let tail = if self.lax_channels { 0 } else { tail };
        self.queued -= 1;
        let k = u64::from(p.flits);
        self.in_flits[i] -= p.flits;
        self.out_flits[dest] += p.flits;
        // Its flits cross one per step, none before it has arrived.
        let crossed = (self.step + k).max((tail + 1) * self.speedup);
        self.in_busy[i] = crossed;
        self.out_busy[dest] = crossed;
        self.stats.packets += 1;
        self.stats.flits += k;
        // The output channel sends the packet's flits one per cycle, from this cycle (its head
        // is in the output buffer by its end) or once the packets before it are sent, and not
        // before they have arrived.
        let done = (self.now.max(self.out_free[dest]) + k - 1).max(tail);
        self.out_free[dest] = done + 1;
        // Landing times grow with the grant cycle for a fixed size; sizes differ, so keep the
        // list ordered.
        let at = done + self.latency;
        if at <= self.now && self.crossing.is_empty() {
            // It lands in this cycle's landing step, first: the same, now (a one-flit packet
            // without latency, every packet of the reference configurations).
            self.outputs[dest].push_back(p);
            self.landed += 1;
        } else if self.crossing.back().is_none_or(|&(t, _)| t <= at) {
            // (Mostly in order: the search only when it lands before the last one.)
            self.crossing.push_back((at, p));
        } else {
            let pos = self.crossing.partition_point(|&(t, _)| t <= at);
            self.crossing.insert(pos, (at, p));
        }
    }

    /// One interconnect cycle: the arbiter grants, then packets whose last flit has crossed
    /// (and whose latency has passed) land.
    pub fn cycle(&mut self) {
        for _ in 0..self.speedup {
            if self.queued > 0 {
                self.arbitrate();
            } else if self.arbiter == Arbiter::RoundRobin {
                // The pointer moves every step, busy or not (GPGPU-Sim's RR_Advance).
                self.rr = (self.rr + 1) % self.inputs.len().max(1);
            }
            self.step += 1;
        }
        while let Some(&(at, p)) = self.crossing.front() {
            if at > self.now {
                break;
            }
            crate::ring::pop_front(&mut self.crossing);
            self.outputs[p.dest as usize].push_back(p);
            self.landed += 1;
        }
        self.now += 1;
    }

    /// `n` cycles that only count ([`Crossbar::next_work`](Component::next_work) is at least `n`
    /// cycles away): each input holding a packet, free, is stalled at every switch step; the
    /// round-robin pointer moves on by one a step.
    pub fn repeat(&mut self, n: u64) {
        let steps = n * self.speedup;
        let step = self.now * self.speedup;
        let ready = self
            .holding
            .iter()
            .filter(|&i| self.in_busy[i] <= step)
            .count() as u64;
        self.stats.stalled += steps * ready;
        if self.arbiter == Arbiter::RoundRobin {
            let inputs = self.inputs.len().max(1) as u64;
            self.rr = ((self.rr as u64 + steps % inputs) % inputs) as usize;
        }
        self.step += steps;
        self.now += n;
    }

    /// `n` offers at an input refused for want of room (an offerer that slept through them
    /// counts them here, as [`Crossbar::offer`] would have).
    pub fn refused(&mut self, n: u64) {
        self.stats.refused += n;
    }

    /// The grants of one cycle. Work follows the inputs that can send (a head packet, a free
    /// port), not the port count squared.
    fn arbitrate(&mut self) {
        let n = self.inputs.len();
        let mut ready = std::mem::take(&mut self.ready);
        ready.clear();
        for k in 0..self.holding.words() {
            for i in self.holding.word_members(k) {
                if self.in_busy[i] <= self.step {
                    ready.push(i);
                }
            }
        }
        // Unit tests check the set against the buffers.
        #[cfg(test)]
        assert_eq!(
            ready,
            (0..n)
                .filter(|&i| !self.inputs[i].is_empty() && self.in_busy[i] <= self.step)
                .collect::<Vec<_>>()
        );
        let mut granted = std::mem::take(&mut self.granted);
        let mut sent = 0u64;
        match self.arbiter {
            Arbiter::RoundRobin => {
                // Inputs in round-robin order from the pointer.
                let split = ready.partition_point(|&i| i < self.rr);
                ready.rotate_left(split);
                for &i in &ready {
                    let Some(&(_, p)) = self.inputs[i].front() else {
                        continue;
                    };
                    let o = p.dest as usize;
                    if self.free_for(o, &p, &granted) {
                        granted[o] = true;
                        self.touched.push(o);
                        self.grant(i);
                        sent += 1;
                    }
                }
                for o in self.touched.drain(..) {
                    granted[o] = false;
                }
                self.rr = (self.rr + 1) % n.max(1);
            }
            Arbiter::Islip => {
                // Per output, the requesting input nearest after its pointer.
                let mut best = std::mem::take(&mut self.best);
                let mut outs = std::mem::take(&mut self.touched);
                outs.clear();
                for &i in &ready {
                    let o = self.head_dest[i];
                    // (i - pointer) modulo n, without a division.
                    let g = self.grant_ptr[o];
                    let d = if i >= g { i - g } else { i + n - g };
                    match best[o] {
                        Some((bd, _)) if bd <= d => {}
                        None => {
                            outs.push(o);
                            best[o] = Some((d, i));
                        }
                        Some(_) => best[o] = Some((d, i)),
                    }
                }
                for &o in &outs {
                    let Some((_, i)) = best[o].take() else {
                        continue;
                    };
                    let p = self.inputs[i][0].1;
                    if self.free_for(o, &p, &granted) {
                        self.grant(i);
                        self.grant_ptr[o] = if i + 1 == n { 0 } else { i + 1 };
                        sent += 1;
                    }
                }
                self.best = best;
                self.touched = outs;
            }
        }
        self.stats.stalled += ready.len() as u64 - sent;
        self.ready = ready;
        self.granted = granted;
    }
}

impl<P: Copy> Component for Crossbar<P> {
    /// The first cycle (from the current one) whose [`Crossbar::cycle`] may do more than count,
    /// if nothing is offered or popped before it: a packet may be granted (its input is free
    /// and its output free or about to be) or land. Before it, every head packet waits for
    /// room in its output buffer, which only a pop makes, or for its input, and a cycle only
    /// counts its stalled inputs and moves the round-robin pointer ([`Crossbar::repeat`]).
    /// `u64::MAX`: never.
    fn next_work(&self) -> u64 {
        let step = self.now * self.speedup;
        let mut at = self
            .crossing
            .front()
            .map_or(u64::MAX, |&(t, _)| t.max(self.now));
        for i in self.holding.iter() {
            let Some(&(_, p)) = self.inputs[i].front() else {
                continue;
            };
            let o = p.dest as usize;
            let when = if self.in_busy[i] > step {
                // Ready from this step on, the cycle holding it (then it is stalled or granted).
                self.in_busy[i] / self.speedup
            } else if self.out_flits[o] + p.flits > self.out_cap {
                continue;
            } else {
                // The output is free (a grant) or frees at this step.
                self.out_busy[o].max(step) / self.speedup
            };
            at = at.min(when);
        }
        at
    }
}

#[cfg(test)]
#[path = "icnt_tests.rs"]
mod tests;
