//! The observation-table predictor as a cycle-level model (seed 000 §III).
//!
//! Per clock edge the block takes at most one kernel launch, or one snooped request
//! (`observe`) and one prediction query (`predict`). Both results are registered: they appear on
//! the outputs after the edge. A query sees the table as it was before the same cycle's
//! observation. The semantics are written out in `docs/decisions/ot.md`.

use crate::block::{mask, Codec, CodecError, CycleModel, Frame, IllegalInput, PortNames};
use rustc_hash::FxHashMap;
use spec::{OtEvent, OtSpec, PortSpec, Replacement};

/// Most addresses an entry can hold (`ot.addrs_per_entry` is at most this).
pub const MAX_ADDRS: usize = 4;
/// Most grid dimensions.
pub const MAX_DIMS: usize = 3;

/// A kernel launch as the block sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Launch {
    /// Grid size - 1 per dimension.
    pub tb_last: [u32; MAX_DIMS],
    /// Warps per thread block - 1.
    pub warp_last: u32,
}

/// A snooped load request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Observe {
    pub pc: u64,
    pub lec: u32,
    pub tb: [u32; MAX_DIMS],
    pub warp: u32,
    pub addr: u64,
}

/// A prediction query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Query {
    pub pc: u64,
    pub lec: u32,
    pub tb: [u32; MAX_DIMS],
    pub warp: u32,
}

/// Inputs of one cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OtIn {
    pub launch: Option<Launch>,
    pub observe: Option<Observe>,
    pub predict: Option<Query>,
}

/// Registered outputs after one edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OtOut {
    pub pred_valid: bool,
    pub pred_hit: bool,
    pub pred_count: u32,
    pub pred_addrs: [u64; MAX_ADDRS],
    pub upd_valid: bool,
    pub upd_event: OtEvent,
    pub upd_slot: u32,
    pub upd_evict: bool,
    pub upd_ready: bool,
}

impl Default for OtOut {
    fn default() -> Self {
        OtOut {
            pred_valid: false,
            pred_hit: false,
            pred_count: 0,
            pred_addrs: [0; MAX_ADDRS],
            upd_valid: false,
            upd_event: OtEvent::None,
            upd_slot: 0,
            upd_evict: false,
            upd_ready: false,
        }
    }
}

/// One table entry. `stride[d]`/`iws` are meaningful only when their `known` flag is set
/// (they are zero otherwise, as in the RTL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    pub valid: bool,
    pub pc: u64,
    pub lec: u32,
    pub tb: [u32; MAX_DIMS],
    pub warp: u32,
    pub naddrs: u32,
    pub addrs: [u64; MAX_ADDRS],
    pub stride: [i64; MAX_DIMS],
    pub stride_known: [bool; MAX_DIMS],
    pub iws: i64,
    pub iws_known: bool,
    pub mispredicts: u32,
}

/// See [`OtModel::terms`].
#[derive(Debug, Clone, Copy, Default)]
struct Terms {
    known_sum: i128,
    unknowns: u32,
    last_unknown: Option<(usize, i128)>,
}

impl Terms {
    fn add(&mut self, field: usize, coef: i128, stride: Option<i64>) {
        if coef == 0 {
            return;
        }
        match stride {
            Some(v) => self.known_sum += coef * i128::from(v),
            None => {
                self.unknowns += 1;
                self.last_unknown = Some((field, coef));
            }
        }
    }
}

/// Replacement state of all sets.
#[derive(Debug, Clone)]
enum Repl {
    /// True LRU. Kept as last-touch stamps; the RTL keeps per-way ranks (ages). Both order the
    /// ways identically: the RTL resets way w to age w, i.e. way 0 most recent.
    Lru { stamp: Vec<u64>, now: u64 },
    /// Tree PLRU, `ways - 1` node bits per set, heap order (node n has children 2n+1, 2n+2);
    /// a bit of 0 sends the victim search left.
    Plru { bits: Vec<bool> },
}

/// The observation-table predictor.
#[derive(Debug, Clone)]
pub struct OtModel {
    spec: OtSpec,
    entries: Vec<Entry>,
    /// (pc, lec) -> slot of the valid entry holding it.
    /// (rustc-hash: a lookup per observation and query; SipHash's DoS resistance buys
    /// nothing for keys the model makes itself.)
    index: FxHashMap<(u64, u32), u32>,
    repl: Repl,
    shape: Launch,
    out: OtOut,
}

impl OtModel {
    pub fn new(spec: &OtSpec) -> OtModel {
        let repl = match spec.replacement {
            Replacement::Lru => Repl::Lru {
                stamp: Vec::new(),
                now: 0,
            },
            Replacement::Plru => Repl::Plru { bits: Vec::new() },
        };
        let mut m = OtModel {
            spec: spec.clone(),
            entries: Vec::new(),
            index: FxHashMap::default(),
            repl,
            shape: Launch::default(),
            out: OtOut::default(),
        };
        m.reset();
        m
    }

    pub fn spec(&self) -> &OtSpec {
        &self.spec
    }

    /// The grid shape in force (reset: the largest the fields can hold).
    pub fn shape(&self) -> Launch {
        self.shape
    }

    /// All slots, valid or not, in slot order (`set * ways + way`).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Whether an entry has every stride the launched grid needs.
    pub fn ready(&self, e: &Entry) -> bool {
        let dims_ok = (0..self.spec.grid_dims as usize)
            .all(|d| self.shape.tb_last[d] == 0 || e.stride_known[d]);
        dims_ok && (self.shape.warp_last == 0 || e.iws_known)
    }

    /// Set index: XOR-fold of the PC and the LEC into `set_bits` bits.
    pub fn set_index(&self, pc: u64, lec: u32) -> u32 {
        let k = self.spec.set_bits;
        if k == 0 {
            return 0;
        }
        let fold = |mut x: u64| {
            let mut acc = 0u64;
            while x != 0 {
                acc ^= x & mask(k);
                x >>= k;
            }
            acc
        };
        (fold(pc) ^ fold(u64::from(lec))) as u32
    }

    /// Check an input against the rules the RTL asserts.
    pub fn check(&self, input: &OtIn) -> Result<(), IllegalInput> {
        let s = &self.spec;
        if let Some(l) = &input.launch {
            if input.observe.is_some() || input.predict.is_some() {
                return Err(IllegalInput(
                    "a launch must have its cycle to itself (no observe or predict with it)".into(),
                ));
            }
            for d in 0..MAX_DIMS {
                let max = if d < s.grid_dims as usize {
                    mask(s.tb_bits)
                } else {
                    0
                };
                if u64::from(l.tb_last[d]) > max {
                    return Err(IllegalInput(format!(
                        "launch grid has {} blocks in dimension {}, the table supports {} \
                            (ot.tb_bits = {}, ot.grid_dims = {})",
                        u64::from(l.tb_last[d]) + 1,
                        dim_name(d),
                        max + 1,
                        s.tb_bits,
                        s.grid_dims
                    )));
                }
            }
            if u64::from(l.warp_last) > mask(s.warp_bits) {
                return Err(IllegalInput(format!(
                    "launch block has {} warps, the table supports {} (ot.warp_bits = {})",
                    u64::from(l.warp_last) + 1,
                    mask(s.warp_bits) + 1,
                    s.warp_bits
                )));
            }
        }
        if let Some(o) = &input.observe {
            self.check_fields("observe", o.pc, o.lec, &o.tb, o.warp)?;
            if o.addr > mask(s.addr_bits) {
                return Err(IllegalInput(format!(
                    "observe addr {:#x} does not fit ot.addr_bits = {}",
                    o.addr, s.addr_bits
                )));
            }
        }
        if let Some(q) = &input.predict {
            self.check_fields("predict", q.pc, q.lec, &q.tb, q.warp)?;
        }
        Ok(())
    }

    fn check_fields(
        &self,
        what: &str,
        pc: u64,
        lec: u32,
        tb: &[u32; MAX_DIMS],
        warp: u32,
    ) -> Result<(), IllegalInput> {
        let s = &self.spec;
        if pc > mask(s.pc_bits) {
            return Err(IllegalInput(format!(
                "{what} pc {pc:#x} does not fit ot.pc_bits = {}",
                s.pc_bits
            )));
        }
        if u64::from(lec) > mask(s.lec_bits) {
            return Err(IllegalInput(format!(
                "{what} lec {lec} does not fit ot.lec_bits = {}",
                s.lec_bits
            )));
        }
        for d in 0..MAX_DIMS {
            if tb[d] > self.shape.tb_last[d] {
                return Err(IllegalInput(format!(
                    "{what} thread block {:?} lies outside the launched grid {:?}",
                    tb,
                    self.shape.tb_last.map(|t| u64::from(t) + 1)
                )));
            }
        }
        if warp > self.shape.warp_last {
            return Err(IllegalInput(format!(
                "{what} warp {warp} lies outside the launched block of {} warps",
                u64::from(self.shape.warp_last) + 1
            )));
        }
        Ok(())
    }

    fn lookup(&self, pc: u64, lec: u32) -> Option<u32> {
        self.index.get(&(pc, lec)).copied()
    }

    /// The offset of (tb, warp) from the entry's reference, split into what the known strides
    /// contribute (exact arithmetic) and the unknown strides it involves: fields `0..dims` are
    /// grid dimensions, field `dims` is the inter-warp stride; `last_unknown` is the last
    /// unknown field with its coefficient (block or warp distance).
    fn terms(&self, e: &Entry, tb: &[u32; MAX_DIMS], warp: u32) -> Terms {
        let dims = self.spec.grid_dims as usize;
        let mut t = Terms::default();
        let deltas = tb
            .iter()
            .zip(&e.tb)
            .map(|(a, b)| i128::from(*a) - i128::from(*b));
        let known = e.stride_known.iter().zip(&e.stride);
        for (field, (dt, (known, stride))) in deltas.zip(known).enumerate().take(dims) {
            t.add(field, dt, known.then_some(*stride));
        }
        let dw = i128::from(warp) - i128::from(e.warp);
        t.add(dims, dw, e.iws_known.then_some(e.iws));
        t
    }

    /// The offset of (tb, warp) from the entry's reference if every stride it involves is known.
    fn offset(&self, e: &Entry, tb: &[u32; MAX_DIMS], warp: u32) -> Option<i128> {
        let t = self.terms(e, tb, warp);
        (t.unknowns == 0).then_some(t.known_sum)
    }

    fn wrap(&self, a: i128) -> u64 {
        (a as u64) & mask(self.spec.addr_bits)
    }

    fn predict(&self, q: &Query) -> (bool, u32, [u64; MAX_ADDRS]) {
        let mut addrs = [0u64; MAX_ADDRS];
        let Some(slot) = self.lookup(q.pc, q.lec) else {
            return (false, 0, addrs);
        };
        let e = &self.entries[slot as usize];
        if !self.ready(e) || e.mispredicts > self.spec.threshold {
            return (false, 0, addrs);
        }
        // A ready entry knows every stride a legal (in-grid) target needs.
        let Some(off) = self.offset(e, &q.tb, q.warp) else {
            return (false, 0, addrs);
        };
        for (out, a) in addrs.iter_mut().zip(&e.addrs[..e.naddrs as usize]) {
            *out = self.wrap(i128::from(*a) + off);
        }
        (true, e.naddrs, addrs)
    }

    /// Apply one observation; returns (event, slot, evicted).
    fn observe(&mut self, o: &Observe) -> (OtEvent, u32, bool) {
        if let Some(slot) = self.lookup(o.pc, o.lec) {
            let ev = self.update(slot, o);
            self.touch(slot);
            return (ev, slot, false);
        }
        let set = self.set_index(o.pc, o.lec);
        let ways = self.spec.ways;
        let base = set * ways;
        let way = (0..ways)
            .find(|w| !self.entries[(base + w) as usize].valid)
            .unwrap_or_else(|| self.victim(set));
        let slot = base + way;
        let old = self.entries[slot as usize];
        if old.valid {
            self.index.remove(&(old.pc, old.lec));
        }
        let mut e = Entry {
            valid: true,
            pc: o.pc,
            lec: o.lec,
            tb: o.tb,
            warp: o.warp,
            naddrs: 1,
            ..Entry::default()
        };
        e.addrs[0] = o.addr;
        self.entries[slot as usize] = e;
        self.index.insert((o.pc, o.lec), slot);
        self.touch(slot);
        (OtEvent::Alloc, slot, old.valid)
    }

    /// Update a matching entry (Fig. 6 steps 2-5 and 7).
    fn update(&mut self, slot: u32, o: &Observe) -> OtEvent {
        let s = &self.spec;
        let dims = s.grid_dims as usize;
        let e = self.entries[slot as usize];
        let n = e.naddrs as usize;
        let same_block = o.tb.iter().zip(&e.tb).take(dims).all(|(a, b)| a == b);
        if same_block && o.warp == e.warp {
            // Step 2: another request of the reference warp.
            if e.addrs[..n].contains(&o.addr) || n == s.addrs_per_entry as usize {
                return OtEvent::Ignore;
            }
            let e = &mut self.entries[slot as usize];
            e.addrs[n] = o.addr;
            e.naddrs += 1;
            return OtEvent::Append;
        }
        let Terms {
            known_sum,
            unknowns,
            last_unknown: unknown,
        } = self.terms(&e, &o.tb, o.warp);
        match (unknowns, unknown) {
            (0, _) => {
                // Every stride involved is known: the request checks the entry's prediction.
                let predicted =
                    (0..n).any(|i| self.wrap(i128::from(e.addrs[i]) + known_sum) == o.addr);
                if predicted {
                    OtEvent::Hit
                } else {
                    let max = s.counter_max;
                    let c = &mut self.entries[slot as usize].mispredicts;
                    *c = (*c + 1).min(max);
                    OtEvent::Mispredict
                }
            }
            (1, Some((field, coef))) => {
                // Steps 3, 4, 5, 7: solve for the one unknown against the first address.
                let rem = i128::from(o.addr) - i128::from(e.addrs[0]) - known_sum;
                if rem % coef != 0 {
                    return OtEvent::Ignore;
                }
                let q = rem / coef;
                let lim = 1i128 << (s.stride_bits - 1);
                if q < -lim || q >= lim {
                    return OtEvent::Ignore;
                }
                let e = &mut self.entries[slot as usize];
                if field == dims {
                    e.iws = q as i64;
                    e.iws_known = true;
                } else {
                    e.stride[field] = q as i64;
                    e.stride_known[field] = true;
                }
                OtEvent::Learn
            }
            _ => OtEvent::Ignore,
        }
    }

    fn touch(&mut self, slot: u32) {
        let ways = self.spec.ways;
        let set = slot / ways;
        let way = slot % ways;
        match &mut self.repl {
            Repl::Lru { stamp, now } => {
                *now += 1;
                stamp[slot as usize] = *now;
            }
            Repl::Plru { bits } => {
                let base = (set * (ways - 1)) as usize;
                let levels = self.spec.way_bits;
                let mut node = 0usize;
                for l in (0..levels).rev() {
                    let right = (way >> l) & 1 == 1;
                    // Point away from the way just used.
                    bits[base + node] = !right;
                    node = 2 * node + 1 + usize::from(right);
                }
            }
        }
    }

    fn victim(&self, set: u32) -> u32 {
        let ways = self.spec.ways;
        match &self.repl {
            Repl::Lru { stamp, .. } => {
                let base = (set * ways) as usize;
                (0..ways)
                    .min_by_key(|&w| stamp[base + w as usize])
                    .unwrap_or(0)
            }
            Repl::Plru { bits } => {
                let base = (set * (ways - 1)) as usize;
                let mut node = 0usize;
                let mut way = 0u32;
                for _ in 0..self.spec.way_bits {
                    let right = bits[base + node];
                    way = (way << 1) | u32::from(right);
                    node = 2 * node + 1 + usize::from(right);
                }
                way
            }
        }
    }

    fn flush(&mut self) {
        for e in &mut self.entries {
            e.valid = false;
        }
        self.index.clear();
    }
}

fn dim_name(d: usize) -> &'static str {
    ["x", "y", "z"][d]
}

impl CycleModel for OtModel {
    type In = OtIn;
    type Out = OtOut;

    fn reset(&mut self) {
        let s = &self.spec;
        self.entries = vec![Entry::default(); s.entries as usize];
        self.index.clear();
        match &mut self.repl {
            Repl::Lru { stamp, now } => {
                // Way 0 most recent, way ways-1 least recent (RTL: age[w] = w).
                *stamp = (0..s.entries)
                    .map(|i| u64::from(s.ways - 1 - i % s.ways))
                    .collect();
                *now = u64::from(s.ways);
            }
            Repl::Plru { bits } => *bits = vec![false; (s.sets * (s.ways - 1)) as usize],
        }
        let mut tb_last = [0u32; MAX_DIMS];
        for t in tb_last.iter_mut().take(s.grid_dims as usize) {
            *t = mask(s.tb_bits) as u32;
        }
        self.shape = Launch {
            tb_last,
            warp_last: mask(s.warp_bits) as u32,
        };
        self.out = OtOut::default();
    }

    fn step(&mut self, input: &OtIn) -> Result<&OtOut, IllegalInput> {
        self.check(input)?;
        let mut out = OtOut::default();
        if let Some(l) = &input.launch {
            self.flush();
            self.shape = *l;
        }
        if let Some(q) = &input.predict {
            let (hit, count, addrs) = self.predict(q);
            out.pred_valid = true;
            out.pred_hit = hit;
            out.pred_count = count;
            out.pred_addrs = addrs;
        }
        if let Some(o) = &input.observe {
            let (ev, slot, evict) = self.observe(o);
            out.upd_valid = true;
            out.upd_event = ev;
            out.upd_slot = slot;
            out.upd_evict = evict;
            out.upd_ready = self.ready(&self.entries[slot as usize]);
        }
        self.out = out;
        Ok(&self.out)
    }
}

/// The OT predictor's codec: its inputs and outputs on the ports of [`OtSpec::interface`].
#[derive(Debug, Clone)]
pub struct OtCodec {
    ports: Vec<PortSpec>,
    dims: u32,
    addrs: u32,
    launch_valid: usize,
    launch_tb_last: usize,
    launch_warp_last: usize,
    obs_valid: usize,
    obs_pc: usize,
    obs_lec: usize,
    obs_tb: usize,
    obs_warp: usize,
    obs_addr: usize,
    pred_valid: usize,
    pred_pc: usize,
    pred_lec: usize,
    pred_tb: usize,
    pred_warp: usize,
    pred_valid_o: usize,
    pred_hit: usize,
    pred_count: usize,
    pred_addr: usize,
    upd_valid: usize,
    upd_event: usize,
    upd_slot: usize,
    upd_evict: usize,
    upd_ready: usize,
}

impl OtCodec {
    pub fn new(spec: &OtSpec) -> Result<OtCodec, CodecError> {
        let ports = spec.ports();
        let mut n = PortNames::new("ot", &ports);
        let c = OtCodec {
            dims: spec.grid_dims,
            addrs: spec.addrs_per_entry,
            launch_valid: n.index("launch_valid_i"),
            launch_tb_last: n.index("launch_tb_last_i"),
            launch_warp_last: n.index("launch_warp_last_i"),
            obs_valid: n.index("obs_valid_i"),
            obs_pc: n.index("obs_pc_i"),
            obs_lec: n.index("obs_lec_i"),
            obs_tb: n.index("obs_tb_i"),
            obs_warp: n.index("obs_warp_i"),
            obs_addr: n.index("obs_addr_i"),
            pred_valid: n.index("pred_valid_i"),
            pred_pc: n.index("pred_pc_i"),
            pred_lec: n.index("pred_lec_i"),
            pred_tb: n.index("pred_tb_i"),
            pred_warp: n.index("pred_warp_i"),
            pred_valid_o: n.index("pred_valid_o"),
            pred_hit: n.index("pred_hit_o"),
            pred_count: n.index("pred_count_o"),
            pred_addr: n.index("pred_addr_o"),
            upd_valid: n.index("upd_valid_o"),
            upd_event: n.index("upd_event_o"),
            upd_slot: n.index("upd_slot_o"),
            upd_evict: n.index("upd_evict_o"),
            upd_ready: n.index("upd_ready_o"),
            ports: Vec::new(),
        };
        n.finish()?;
        Ok(OtCodec { ports, ..c })
    }
}

impl Codec for OtCodec {
    type In = OtIn;
    type Out = OtOut;

    fn ports(&self) -> &[PortSpec] {
        &self.ports
    }

    fn encode_in(&self, input: &OtIn, f: &mut Frame) {
        f.clear();
        let dims = self.dims as usize;
        let set_tb = |f: &mut Frame, port, tb: &[u32; MAX_DIMS]| {
            for (d, t) in tb.iter().enumerate().take(dims) {
                f.set_elem(port, d as u32, (*t).into());
            }
        };
        if let Some(l) = &input.launch {
            f.set(self.launch_valid, 1);
            set_tb(f, self.launch_tb_last, &l.tb_last);
            f.set(self.launch_warp_last, l.warp_last.into());
        }
        if let Some(o) = &input.observe {
            f.set(self.obs_valid, 1);
            f.set(self.obs_pc, o.pc);
            f.set(self.obs_lec, o.lec.into());
            set_tb(f, self.obs_tb, &o.tb);
            f.set(self.obs_warp, o.warp.into());
            f.set(self.obs_addr, o.addr);
        }
        if let Some(q) = &input.predict {
            f.set(self.pred_valid, 1);
            f.set(self.pred_pc, q.pc);
            f.set(self.pred_lec, q.lec.into());
            set_tb(f, self.pred_tb, &q.tb);
            f.set(self.pred_warp, q.warp.into());
        }
    }

    fn encode_out(&self, o: &OtOut, f: &mut Frame) {
        f.clear();
        f.set(self.pred_valid_o, o.pred_valid.into());
        f.set(self.pred_hit, o.pred_hit.into());
        f.set(self.pred_count, o.pred_count.into());
        for i in 0..self.addrs {
            f.set_elem(self.pred_addr, i, o.pred_addrs[i as usize]);
        }
        f.set(self.upd_valid, o.upd_valid.into());
        f.set(self.upd_event, o.upd_event.code().into());
        f.set(self.upd_slot, o.upd_slot.into());
        f.set(self.upd_evict, o.upd_evict.into());
        f.set(self.upd_ready, o.upd_ready.into());
    }
}

/// The OT predictor: its model and codec.
pub struct OtBlock;

impl crate::block::BlockModel for OtBlock {
    type Model = OtModel;
    type Codec = OtCodec;
    fn model(spec: &spec::Spec) -> OtModel {
        OtModel::new(&spec.ot)
    }
    fn codec(spec: &spec::Spec) -> Result<OtCodec, CodecError> {
        OtCodec::new(&spec.ot)
    }
}
