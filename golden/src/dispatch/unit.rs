//! The locality-aware dispatcher's decision unit (seed 002 §3.3) as a cycle-level block with the
//! RTL's interface: a block queue of `queue_entries` entries (id and one rectangle per array),
//! the running-block table (`sms` x `slots` rectangles), and a decision engine that scores
//! `scored_per_cycle` queue entries per cycle.
//!
//! Per edge, from the state before it:
//! 1. an offered decision (`disp_valid_o`) with `disp_ready_i` is committed: the block's
//!    rectangles enter the running table at (`disp_sm_o`, `disp_slot_o`) and it leaves the
//!    queue (younger entries move up one place);
//! 2. `done_valid_i` frees a running slot;
//! 3. `enq_valid_i` (only while `enq_ready_o`) appends a block to the queue;
//! 4. the engine: idle with a waiting block and an SM with a free slot → it starts scanning for
//!    the first such SM round-robin from the one after the SM it last chose; scanning → it scores
//!    queue entries `k*P .. k*P+P-1` against the running table (sum of line overlaps with the
//!    target SM's blocks, and with all other SMs' blocks) and keeps the best of each kind; after
//!    the last chunk it offers the entry with the highest score on the target SM, or if every
//!    score there was 0 the one with the lowest score elsewhere (oldest on ties), into the
//!    target SM's first free slot.
//!
//! Outputs are registered: a decision takes 1 + ceil(queue_entries / scored_per_cycle) edges
//! before it is offered, and is committed at the first edge with `disp_ready_i`.

use super::ranges::Rect;
use crate::block::{mask, Codec, CodecError, CycleModel, Frame, IllegalInput, PortNames};
use spec::{DispatchSpec, PortSpec};

/// A block with its rectangles, as the queue and the running table hold it.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: u32,
    /// Per array; `None` where the block does not read the array.
    pub rects: Vec<Option<Rect>>,
}

/// Inputs of one cycle.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitIn {
    #[serde(default)]
    pub enq: Option<Entry>,
    /// (SM, slot) of a block that finished.
    #[serde(default)]
    pub done: Option<(u32, u32)>,
    #[serde(default)]
    pub disp_ready: bool,
}

/// Outputs after an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UnitOut {
    pub enq_ready: bool,
    /// (block id, SM, slot) offered.
    pub disp: Option<(u32, u32, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scan {
    sm: u32,
    chunk: u32,
    /// (score, queue index): highest on the target SM, lowest elsewhere.
    here: Option<(u64, u32)>,
    elsewhere: Option<(u64, u32)>,
}

/// The decision unit.
#[derive(Debug, Clone)]
pub struct DispatchUnit {
    spec: DispatchSpec,
    queue: Vec<Entry>,
    /// [sm][slot].
    running: Vec<Vec<Option<Vec<Option<Rect>>>>>,
    rr: u32,
    scan: Option<Scan>,
    /// (queue index, SM, slot).
    offer: Option<(u32, u32, u32)>,
    out: UnitOut,
}

/// Whether a rectangle fits the unit's coordinate width.
pub fn fits(spec: &DispatchSpec, r: &Rect) -> bool {
    let m = mask(spec.coord_bits);
    r.x <= m && r.y <= m && r.w <= m && r.h <= m
}

/// Block `block`'s rectangles as the unit holds them: one per array slot (`dispatch.arrays`;
/// missing arrays `None`), every coordinate within `dispatch.coord_bits`. The error says which
/// key to raise.
pub fn unit_rects(
    spec: &DispatchSpec,
    block: u64,
    rects: &[Option<Rect>],
) -> Result<Vec<Option<Rect>>, String> {
    if rects.len() > spec.arrays as usize {
        return Err(format!(
            "{} arrays, the dispatcher holds {} rectangles per block (raise dispatch.arrays)",
            rects.len(),
            spec.arrays
        ));
    }
    if let Some(bad) = rects.iter().flatten().find(|r| !fits(spec, r)) {
        return Err(format!(
            "block {block}'s rectangle {bad:?} does not fit {}-bit coordinates (raise \
                dispatch.coord_bits)",
            spec.coord_bits
        ));
    }
    let mut out = rects.to_vec();
    out.resize(spec.arrays as usize, None);
    Ok(out)
}

/// Lines two rectangle lists share, in the unit's arithmetic (coordinates of `coord_bits`).
pub fn unit_overlap(a: &[Option<Rect>], b: &[Option<Rect>]) -> u64 {
    super::ranges::overlap(a, b)
}

impl DispatchUnit {
    pub fn new(spec: &DispatchSpec) -> DispatchUnit {
        let mut u = DispatchUnit {
            spec: spec.clone(),
            queue: Vec::new(),
            running: Vec::new(),
            rr: 0,
            scan: None,
            offer: None,
            out: UnitOut::default(),
        };
        u.reset();
        u
    }

    pub fn spec(&self) -> &DispatchSpec {
        &self.spec
    }

    /// The outputs after the last edge (after a reset: ready, nothing offered).
    pub fn last_out(&self) -> UnitOut {
        self.out
    }

    /// Blocks waiting in the queue.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Whether a rectangle fits the unit's coordinate width.
    pub fn fits(&self, r: &Rect) -> bool {
        fits(&self.spec, r)
    }

    /// Check inputs against what the RTL asserts.
    pub fn check(&self, inp: &UnitIn) -> Result<(), IllegalInput> {
        let s = &self.spec;
        if let Some(e) = &inp.enq {
            if self.queue.len() >= s.queue_entries as usize {
                return Err(IllegalInput("enqueue while the block queue is full".into()));
            }
            if e.rects.len() != s.arrays as usize {
                return Err(IllegalInput(format!(
                    "{} rectangles given, the unit has {} arrays",
                    e.rects.len(),
                    s.arrays
                )));
            }
            if u64::from(e.id) > mask(s.id_bits) {
                return Err(IllegalInput(format!(
                    "block id {} exceeds {} bits",
                    e.id, s.id_bits
                )));
            }
            if let Some(r) = e.rects.iter().flatten().find(|r| !self.fits(r)) {
                return Err(IllegalInput(format!(
                    "rectangle {r:?} does not fit {}-bit coordinates",
                    s.coord_bits
                )));
            }
        }
        if let Some((sm, slot)) = inp.done {
            let running = self
                .running
                .get(sm as usize)
                .and_then(|v| v.get(slot as usize))
                .is_some_and(Option::is_some);
            if !running {
                return Err(IllegalInput(format!(
                    "block done on SM {sm} slot {slot}, which runs no block"
                )));
            }
        }
        Ok(())
    }

    fn score(&self, e: &Entry, sm: u32) -> (u64, u64) {
        let mut here = 0;
        let mut elsewhere = 0;
        for (s, slots) in self.running.iter().enumerate() {
            for r in slots.iter().flatten() {
                let o = unit_overlap(&e.rects, r);
                if s as u32 == sm {
                    here += o;
                } else {
                    elsewhere += o;
                }
            }
        }
        (here, elsewhere)
    }

    /// One edge without [`DispatchUnit::check`].
    pub fn step_trusted(&mut self, inp: &UnitIn) -> &UnitOut {
        let s = self.spec.clone();
        let pre_queue_len = self.queue.len();
        let free_sm = |running: &Vec<Vec<Option<Vec<Option<Rect>>>>>, rr: u32| {
            (0..s.sms)
                .map(|i| (rr + i) % s.sms)
                .find(|&sm| running[sm as usize].iter().any(Option::is_none))
        };
        // The engine decides from the state before the edge.
        let mut next_scan = self.scan;
        let mut next_offer = self.offer;
        let mut next_rr = self.rr;
        match (self.offer, self.scan) {
            (Some(_), _) => {}
            (None, None) => {
                if pre_queue_len > 0 {
                    if let Some(sm) = free_sm(&self.running, self.rr) {
                        next_scan = Some(Scan {
                            sm,
                            chunk: 0,
                            here: None,
                            elsewhere: None,
                        });
                        next_rr = (sm + 1) % s.sms;
                    }
                }
            }
            (None, Some(mut sc)) => {
                let lo = sc.chunk * s.scored_per_cycle;
                for q in lo..(lo + s.scored_per_cycle).min(s.queue_entries) {
                    let Some(e) = self.queue.get(q as usize) else {
                        continue;
                    };
                    let (h, o) = self.score(e, sc.sm);
                    if sc.here.is_none_or(|(b, _)| h > b) {
                        sc.here = Some((h, q));
                    }
                    if sc.elsewhere.is_none_or(|(b, _)| o < b) {
                        sc.elsewhere = Some((o, q));
                    }
                }
                if (sc.chunk + 1) * s.scored_per_cycle >= s.queue_entries {
                    let pick = match (sc.here, sc.elsewhere) {
                        (Some((h, q)), _) if h > 0 => Some(q),
                        (_, Some((_, q))) => Some(q),
                        _ => None,
                    };
                    let slot = self.running[sc.sm as usize]
                        .iter()
                        .position(Option::is_none)
                        .map(|x| x as u32);
                    next_offer = pick.zip(slot).map(|(q, slot)| (q, sc.sm, slot));
                    next_scan = None;
                } else {
                    sc.chunk += 1;
                    next_scan = Some(sc);
                }
            }
        }
        // 1. Commit an offered decision.
        if let (Some((q, sm, slot)), true) = (self.offer, inp.disp_ready) {
            let e = self.queue.remove(q as usize);
            self.running[sm as usize][slot as usize] = Some(e.rects);
            next_offer = None;
        }
        // 2. A finished block frees its slot.
        if let Some((sm, slot)) = inp.done {
            self.running[sm as usize][slot as usize] = None;
        }
        // 3. Enqueue.
        if let Some(e) = &inp.enq {
            self.queue.push(e.clone());
        }
        self.scan = next_scan;
        self.offer = next_offer;
        self.rr = next_rr;
        self.out = UnitOut {
            enq_ready: self.queue.len() < s.queue_entries as usize,
            disp: self
                .offer
                .map(|(q, sm, slot)| (self.queue[q as usize].id, sm, slot)),
        };
        &self.out
    }
}

impl CycleModel for DispatchUnit {
    type In = UnitIn;
    type Out = UnitOut;

    fn reset(&mut self) {
        let s = &self.spec;
        self.queue = Vec::with_capacity(s.queue_entries as usize);
        self.running = vec![vec![None; s.slots as usize]; s.sms as usize];
        self.rr = 0;
        self.scan = None;
        self.offer = None;
        self.out = UnitOut {
            enq_ready: true,
            disp: None,
        };
    }

    fn step(&mut self, inp: &UnitIn) -> Result<&UnitOut, IllegalInput> {
        self.check(inp)?;
        Ok(self.step_trusted(inp))
    }
}

/// The decision unit's codec: its inputs and outputs on the ports of
/// [`DispatchSpec::interface`].
#[derive(Debug, Clone)]
pub struct UnitCodec {
    ports: Vec<PortSpec>,
    enq_valid: usize,
    enq_id: usize,
    enq_has: usize,
    enq_x: usize,
    enq_y: usize,
    enq_w: usize,
    enq_h: usize,
    done_valid: usize,
    done_sm: usize,
    done_slot: usize,
    disp_ready: usize,
    enq_ready: usize,
    disp_valid: usize,
    disp_id: usize,
    disp_sm: usize,
    disp_slot: usize,
}

impl UnitCodec {
    pub fn new(spec: &DispatchSpec) -> Result<UnitCodec, CodecError> {
        let ports = spec.ports();
        let mut n = PortNames::new("dispatch", &ports);
        let c = UnitCodec {
            enq_valid: n.index("enq_valid_i"),
            enq_id: n.index("enq_id_i"),
            enq_has: n.index("enq_has_i"),
            enq_x: n.index("enq_x_i"),
            enq_y: n.index("enq_y_i"),
            enq_w: n.index("enq_w_i"),
            enq_h: n.index("enq_h_i"),
            done_valid: n.index("done_valid_i"),
            done_sm: n.index("done_sm_i"),
            done_slot: n.index("done_slot_i"),
            disp_ready: n.index("disp_ready_i"),
            enq_ready: n.index("enq_ready_o"),
            disp_valid: n.index("disp_valid_o"),
            disp_id: n.index("disp_id_o"),
            disp_sm: n.index("disp_sm_o"),
            disp_slot: n.index("disp_slot_o"),
            ports: Vec::new(),
        };
        n.finish()?;
        Ok(UnitCodec { ports, ..c })
    }
}

impl Codec for UnitCodec {
    type In = UnitIn;
    type Out = UnitOut;

    fn ports(&self) -> &[PortSpec] {
        &self.ports
    }

    fn encode_in(&self, inp: &UnitIn, f: &mut Frame) {
        f.clear();
        if let Some(e) = &inp.enq {
            f.set(self.enq_valid, 1);
            f.set(self.enq_id, e.id.into());
            for (a, r) in e.rects.iter().enumerate() {
                if let Some(r) = r {
                    let a = a as u32;
                    f.set_elem(self.enq_has, a, 1);
                    f.set_elem(self.enq_x, a, r.x);
                    f.set_elem(self.enq_y, a, r.y);
                    f.set_elem(self.enq_w, a, r.w);
                    f.set_elem(self.enq_h, a, r.h);
                }
            }
        }
        if let Some((sm, slot)) = inp.done {
            f.set(self.done_valid, 1);
            f.set(self.done_sm, sm.into());
            f.set(self.done_slot, slot.into());
        }
        f.set(self.disp_ready, inp.disp_ready.into());
    }

    fn encode_out(&self, out: &UnitOut, f: &mut Frame) {
        f.clear();
        f.set(self.enq_ready, out.enq_ready.into());
        if let Some((id, sm, slot)) = out.disp {
            f.set(self.disp_valid, 1);
            f.set(self.disp_id, id.into());
            f.set(self.disp_sm, sm.into());
            f.set(self.disp_slot, slot.into());
        }
    }
}

/// The dispatcher's decision unit: its model and codec.
pub struct UnitBlock;

impl crate::block::BlockModel for UnitBlock {
    type Model = DispatchUnit;
    type Codec = UnitCodec;
    fn model(spec: &spec::Spec) -> DispatchUnit {
        DispatchUnit::new(&spec.dispatch)
    }
    fn codec(spec: &spec::Spec) -> Result<UnitCodec, CodecError> {
        UnitCodec::new(&spec.dispatch)
    }
}
