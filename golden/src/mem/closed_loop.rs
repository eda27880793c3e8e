//! The memory side alone in a closed loop (`warpsmith golden --block memory`): every SM port
//! keeps at most `outstanding` requests in flight and offers its next request (its requests in
//! stimulus order, by SM) as soon as it has room and its port's input buffer accepts it. The
//! requests' cycles are not used: the loop, not a schedule, sets the pace. Latency counts core
//! cycles from the accepted offer to the reply's arrival at the port.

use super::partition::{MemRequest, CORE};
use super::side::MemorySide;
use super::slice::{Served, SliceStats};
use crate::bitset::BitSet;
use crate::mc::open_loop::Hist;
use crate::mc::source::{requests, McStimulus, FORMS};
use crate::mc::stimulus::Request;
use crate::mc::system::{Dist, DramTotals, Hook, McError, STALL_CYCLES};
use crate::report::Report;
use crate::run::{BadInput, GoldenError, GoldenRun};
use crate::stream::Offer;
use schemars::JsonSchema;
use serde::Serialize;
use spec::Spec;
use std::collections::BTreeMap;
use std::io::Write;

/// Requests each SM port keeps in flight unless `--outstanding` says otherwise.
pub const DEFAULT_OUTSTANDING: usize = 8;

/// The schema of `golden --block memory --format json`, name and version.
pub const SCHEMA: &str = "warpsmith-golden-memory/1";

/// What a closed-loop run measured.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MemorySummary {
    /// Requests of the stimulus, and of them those whose reply came back.
    pub requests: u64,
    pub completed: u64,
    /// SM ports, and requests each keeps in flight (`--ports`, `--outstanding`).
    pub ports: usize,
    pub outstanding: usize,
    /// Core cycles.
    pub cycles: u64,
    /// The L2 slices' counts, together.
    pub l2: SliceStats,
    /// Cycles a full queue held something back, by queue (and DRAM requests refused).
    pub queue_full: BTreeMap<&'static str, u64>,
    pub icnt: IcntSummary,
    pub dram: DramTotals,
    /// Core cycles from offer to reply: every request, those the L2 served, those that waited
    /// for the DRAM.
    pub latency: LatencySummary,
    /// Per warp load: first offer to last reply, core cycles.
    pub warp_time: Dist,
}

/// One network's traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct NetSummary {
    pub packets: u64,
    pub flits: u64,
    /// Input-cycles a head packet waited for its output.
    pub stall_cycles: u64,
    /// Offers refused by a full input buffer.
    pub refused: u64,
}

/// The interconnect's two networks: SMs to partitions, and back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct IcntSummary {
    pub request: NetSummary,
    pub reply: NetSummary,
}

/// Latencies, core cycles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
pub struct LatencySummary {
    pub all: Dist,
    pub l2_hit: Dist,
    pub dram: Dist,
}

/// How a closed-loop run is shaped and bounded.
#[derive(Debug, Clone, Copy)]
pub struct LoopShape {
    pub ports: usize,
    pub outstanding: usize,
    /// Stop after this many core cycles, or this many DRAM cycles (a co-simulation's budget).
    pub max_core_cycles: u64,
    pub max_dram_cycles: u64,
}

impl LoopShape {
    pub fn new(ports: usize, outstanding: usize, max_core_cycles: u64) -> LoopShape {
        LoopShape {
            ports,
            outstanding,
            max_core_cycles,
            max_dram_cycles: u64::MAX,
        }
    }
}

/// Run `reqs` through the memory side of `spec` in a closed loop
/// shaped by `shape`. `progress` sees the core cycle now and then; with a hook `(g, f)`, the
/// controllers' Warped-MC group `g` is watched and `f` sees each of its cycles
/// ([`MemSystem::probe`](crate::mc::system::MemSystem::probe)): a co-simulation of the block.
pub fn run(
    spec: &Spec,
    reqs: &[Request],
    shape: LoopShape,
    progress: Option<&dyn Fn(u64, u64)>,
    mut hook: Option<(usize, &mut Hook<'_>)>,
) -> Result<MemorySummary, McError> {
    let max_cycles = shape.max_core_cycles;
    let mut side = MemorySide::new(spec, shape.ports);
    side.dram_mut().watch_group(hook.as_ref().map(|(g, _)| *g));
    let mut lp = Loop::new(reqs, side.ports(), shape.outstanding.max(1));
    while (lp.completed as usize) < reqs.len()
        && side.core_cycle() < max_cycles
        && side.dram().now() < shape.max_dram_cycles
    {
        let mask = side.cycle()?;
        if let Some((_, f)) = hook.as_mut() {
            side.dram_mut().probe(&mut **f)?;
        }
        if mask & CORE == 0 {
            continue;
        }
        let now = side.core_cycle();
        if side.replies_landed() > 0 {
            lp.take_replies(&mut side, now);
        }
        lp.offer(&mut side, now);
        // Unit tests check the set against the ports' state.
        #[cfg(test)]
        lp.check(now);
        if now.is_multiple_of(1 << 16) {
            if let Some(p) = progress {
                p(now, max_cycles);
            }
        }
        let pending = lp.offered - lp.completed;
        if pending > 0 && now - lp.last_reply.max(1) > STALL_CYCLES {
            return Err(McError::Stalled {
                pending: pending as usize,
                since: lp.last_reply,
                now,
            });
        }
    }
    Ok(lp.summary(&side))
}

/// The closed loop's state: per port its requests, how many it offered and has in flight;
/// the requests in flight; the statistics.
struct Loop<'r> {
    reqs: &'r [Request],
    ports: usize,
    outstanding: usize,
    /// Per port, its requests' indices in stimulus order, and how many it has offered.
    queues: Vec<Vec<u32>>,
    next: Vec<usize>,
    in_flight: Vec<usize>,
    /// The ports that may offer (a request left and room in flight), as a bit set: a cycle
    /// visits only these, in port order (a latency-bound loop has few such ports a cycle).
    may_offer: BitSet,
    /// Requests in flight, by tag: (offer cycle, warp load); free tags are reused, so that
    /// what a reply needs is in a table of `ports x outstanding` entries, not per request.
    flight: Vec<(u64, u32)>,
    free: Vec<u32>,
    /// Latency of every request, of those the L2 served, of those that waited for the DRAM.
    all: Hist,
    hit: Hist,
    dram: Hist,
    /// Per warp load (dense ids): (first offer, last reply); u64::MAX until offered.
    loads: Vec<(u64, u64)>,
    offered: u64,
    completed: u64,
    last_reply: u64,
}

impl Loop<'_> {
    fn new(reqs: &[Request], ports: usize, outstanding: usize) -> Loop<'_> {
        let mut queues: Vec<Vec<u32>> = vec![Vec::new(); ports];
        for (i, r) in reqs.iter().enumerate() {
            queues[r.sm as usize % ports].push(i as u32);
        }
        let mut may_offer = BitSet::new(ports);
        for (port, q) in queues.iter().enumerate() {
            if !q.is_empty() {
                may_offer.insert(port);
            }
        }
        Loop {
            reqs,
            ports,
            outstanding,
            queues,
            next: vec![0; ports],
            in_flight: vec![0; ports],
            may_offer,
            flight: Vec::new(),
            free: Vec::new(),
            all: Hist::default(),
            hit: Hist::default(),
            dram: Hist::default(),
            loads: Vec::new(),
            offered: 0,
            completed: 0,
            last_reply: 0,
        }
    }

    /// Every reply at the ports, at core cycle `now`.
    fn take_replies(&mut self, side: &mut MemorySide, now: u64) {
        for port in 0..self.ports {
            while let Some((r, by)) = side.pop_reply(port) {
                let (at, load) = self.flight[r.tag as usize];
                self.free.push(r.tag as u32);
                let lat = now - at;
                self.all.add(lat);
                match by {
                    Served::Slice => self.hit.add(lat),
                    Served::NextLevel => self.dram.add(lat),
                }
                let l = &mut self.loads[load as usize];
                l.1 = l.1.max(now);
                self.in_flight[port] -= 1;
                if self.next[port] < self.queues[port].len() {
                    self.may_offer.insert(port);
                }
                self.completed += 1;
                self.last_reply = now;
            }
        }
    }

    /// Every port that may offers its next request, at core cycle `now`.
    fn offer(&mut self, side: &mut MemorySide, now: u64) {
        for k in 0..self.may_offer.words() {
            for port in self.may_offer.word_members(k) {
                let q = &self.queues[port];
                let Some(&i) = q.get(self.next[port]) else {
                    continue;
                };
                let r = &self.reqs[i as usize];
                let tag = self
                    .free
                    .last()
                    .copied()
                    .unwrap_or(self.flight.len() as u32);
                let m = MemRequest {
                    tag: u64::from(tag),
                    addr: r.addr,
                    write: r.write,
                    sm: r.sm as u16,
                    warp: r.warp as u16,
                    pc: r.pc,
                    prefetch: false,
                };
                if side.offer(m) != Offer::Accepted {
                    continue;
                }
                self.next[port] += 1;
                self.in_flight[port] += 1;
                if self.in_flight[port] >= self.outstanding || self.next[port] == q.len() {
                    self.may_offer.remove(port);
                }
                self.offered += 1;
                if self.free.pop().is_some() {
                    self.flight[tag as usize] = (now, r.load);
                } else {
                    self.flight.push((now, r.load));
                }
                let l = r.load as usize;
                if l >= self.loads.len() {
                    self.loads.resize(l + 1, (u64::MAX, 0));
                }
                self.loads[l].0 = self.loads[l].0.min(now);
            }
        }
    }

    /// The ports that may offer are those with a request left and room in flight.
    #[cfg(test)]
    fn check(&self, now: u64) {
        for (port, q) in self.queues.iter().enumerate() {
            let may = self.next[port] < q.len() && self.in_flight[port] < self.outstanding;
            assert_eq!(self.may_offer.contains(port), may, "port {port} at {now}");
        }
    }

    /// What the run measured.
    fn summary(&self, side: &MemorySide) -> MemorySummary {
        let (p, rq, rp) = side.stats();
        let net = |x: super::icnt::IcntStats| NetSummary {
            packets: x.packets,
            flits: x.flits,
            stall_cycles: x.stalled,
            refused: x.refused,
        };
        MemorySummary {
            requests: self.reqs.len() as u64,
            completed: self.completed,
            ports: self.ports,
            outstanding: self.outstanding,
            cycles: side.core_cycle(),
            l2: p.slices.clone(),
            queue_full: BTreeMap::from([
                ("icnt_to_l2", p.icnt_to_l2_full),
                ("l2_to_dram", p.l2_to_dram_full),
                ("dram_to_l2", p.dram_to_l2_full),
                ("l2_to_icnt", p.l2_to_icnt_full),
                ("dram_refused", p.dram_refused),
            ]),
            icnt: IcntSummary {
                request: net(rq),
                reply: net(rp),
            },
            dram: side.dram().dram_totals(),
            latency: LatencySummary {
                all: self.all.dist(),
                l2_hit: self.hit.dist(),
                dram: self.dram.dist(),
            },
            warp_time: Dist::of(
                self.loads
                    .iter()
                    .filter(|&&(a, _)| a != u64::MAX)
                    .map(|&(a, b)| b.saturating_sub(a))
                    .collect(),
            ),
        }
    }
}

/// `warpsmith golden --block memory`: the closed-loop run of a stimulus, a summary (text or
/// JSON). Options: `ports` (default: the GPU's SMs), `outstanding` (default
/// [`DEFAULT_OUTSTANDING`]); `--cycles` sizes the generators' traffic and bounds the run.
pub fn run_golden(spec: &Spec, r: &GoldenRun, out: &mut dyn Write) -> Result<(), GoldenError> {
    let stimulus = r.stimulus.ok_or_else(|| {
        BadInput(format!(
            "--stimulus is required for --block memory: give {FORMS}"
        ))
    })?;
    let kind = McStimulus::parse(stimulus)?;
    let number = |name: &str, default: usize| -> Result<usize, BadInput> {
        match r.opts.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse::<usize>()
                .ok()
                .filter(|&n| (1..=4096).contains(&n))
                .ok_or_else(|| {
                    BadInput(format!("--{name} {v}: give a whole number from 1 to 4096"))
                }),
        }
    };
    let ports = number("ports", spec.gpu.sms as usize)?;
    let outstanding = number("outstanding", DEFAULT_OUTSTANDING)?;
    let reqs = requests(spec, &kind, r.cycles, r.seed)?;
    // Generators size their traffic in DRAM cycles; the loop may take longer in core cycles.
    let max_cycles = r.cycles.saturating_mul(64).max(1 << 20);
    let shape = LoopShape::new(ports, outstanding, max_cycles);
    let s = run(spec, &reqs, shape, r.progress, None)
        .map_err(|e| GoldenError::Failed(e.to_string()))?;
    if r.json {
        let report = Report {
            provenance: r.origin.provenance(SCHEMA, spec),
            figures: s,
        };
        serde_json::to_writer_pretty(&mut *out, &report)
            .map_err(|e| GoldenError::Failed(e.to_string()))?;
        writeln!(out)?;
        return Ok(());
    }
    write_text(&s, out)?;
    Ok(())
}

fn write_text(s: &MemorySummary, out: &mut dyn Write) -> std::io::Result<()> {
    let pct = |a: u64, b: u64| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let dist = |d: &Dist| {
        format!(
            "mean {:.1}  p50 {}  p95 {}  p99 {}",
            d.mean, d.p50, d.p95, d.p99
        )
    };
    writeln!(
        out,
        "memory side: {} of {} requests completed in {} core cycles ({} ports x {} outstanding)",
        s.completed, s.requests, s.cycles, s.ports, s.outstanding
    )?;
    let l = &s.l2;
    writeln!(
        out,
        "L2: {} accesses, {} hits ({:.1}%), {} sector misses, {} misses, {} MSHR merges, {} \
            write-backs",
        l.accesses,
        l.hits,
        pct(l.hits, l.accesses),
        l.sector_misses,
        l.misses,
        l.mshr_merges,
        l.writebacks
    )?;
    let fails: Vec<String> = l
        .reservation_failures
        .iter()
        .map(|(k, v)| format!("{k:?} {v}"))
        .collect();
    writeln!(
        out,
        "L2 reservation failures (cycles): {}",
        if fails.is_empty() {
            "none".to_string()
        } else {
            fails.join(", ")
        }
    )?;
    let full: Vec<String> = s
        .queue_full
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    writeln!(out, "partition queues full (cycles): {}", full.join(", "))?;
    for (name, n) in [("request", &s.icnt.request), ("reply", &s.icnt.reply)] {
        writeln!(
            out,
            "{name} network: {} packets, {} flits, {} stall cycles, {} refused offers",
            n.packets, n.flits, n.stall_cycles, n.refused
        )?;
    }
    let d = &s.dram;
    writeln!(
        out,
        "DRAM ({}): {} cycles, bandwidth {:.1}%, row hits {:.1}%, {} commands, {} activations",
        d.scheduler,
        d.cycles,
        100.0 * d.bandwidth_util,
        100.0 * d.row_hit_rate,
        d.commands,
        d.activations
    )?;
    writeln!(out, "DRAM energy: {}", d.energy)?;
    writeln!(out, "latency (core cycles): all {}", dist(&s.latency.all))?;
    writeln!(out, "  L2 hits {}", dist(&s.latency.l2_hit))?;
    writeln!(out, "  DRAM    {}", dist(&s.latency.dram))?;
    writeln!(out, "warp-load time (core cycles): {}", dist(&s.warp_time))?;
    Ok(())
}
