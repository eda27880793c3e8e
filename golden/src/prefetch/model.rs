//! The MT-HWP prefetch engine of one SM (seed 001 section III.B and V) as a cycle model: the
//! PWS, GS and IP tables with their training, promotion and lookup, and the adaptive throttle.
//! Semantics, edge by edge (docs/decisions/mthwp.md):
//!
//! * An access taken at an edge (`acc_valid_i` while `acc_ready_o` was high) looks up the GS and
//!   IP tables by PC in parallel; the IP table trains on it. A GS hit predicts with the GS
//!   stride (GS first on a double hit), else a trained IP entry predicts with its stride; the
//!   result is on the outputs after that edge. With neither, the PWS table is looked up at the
//!   next edge (`acc_ready_o` is low meanwhile), trains, may promote the PC's stride to the GS
//!   table, and predicts if its entry is trained.
//! * A prediction issues `degree` prefetches at `addr + stride * (distance + k)`, unless the
//!   throttle drops it: of every five predictions, the first `degree` (the throttle degree) are
//!   dropped.
//! * The throttle counts events per period; at the period's last edge it classifies the
//!   early-eviction rate (eq. 5, 7) and latches the merge counts; a serial divider takes
//!   `merge_frac_bits` more edges to give the monitored merge ratio, and at the edge after those
//!   the ratio is averaged (eq. 8) and the degree updated by Table I.

use crate::block::{mask, CycleModel, IllegalInput};
use spec::prefetch::{THROTTLE_BITS, THROTTLE_MAX};

const _: () = assert!(THROTTLE_MAX < 1 << THROTTLE_BITS);
use spec::{PfSource, PrefetchSpec};

/// Most prefetches one prediction issues (`prefetch.degree` at most).
pub const MAX_DEGREE: usize = 8;

/// A warp's global load as the engine sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Access {
    pub pc: u64,
    pub wid: u32,
    pub addr: u64,
}

/// The engine's inputs of one cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PfIn {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub launch: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acc: Option<Access>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub useful: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub early: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub merge: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub request: bool,
}

/// The engine's outputs after an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PfOut {
    pub acc_ready: bool,
    /// A taken access's lookup finished.
    pub pf_valid: bool,
    pub src: PfSource,
    pub drop: bool,
    /// Prefetch addresses issued (`addrs[..count]`).
    pub count: u32,
    pub addrs: [u64; MAX_DEGREE],
    pub promote: bool,
    pub degree: u32,
    pub update: bool,
    pub merge: u64,
}

impl PfOut {
    fn reset(degree: u32) -> PfOut {
        PfOut {
            acc_ready: true,
            pf_valid: false,
            src: PfSource::None,
            drop: false,
            count: 0,
            addrs: [0; MAX_DEGREE],
            promote: false,
            degree,
            update: false,
            merge: 0,
        }
    }

    /// The issued prefetch addresses.
    pub fn prefetches(&self) -> &[u64] {
        &self.addrs[..self.count as usize]
    }
}

/// A PWS entry (Table VI: PC, warp id, train, last address, stride).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PwsEntry {
    pub valid: bool,
    pub pc: u64,
    pub wid: u32,
    pub train: bool,
    pub last: u64,
    pub stride: i64,
}

/// A GS entry (PC, promoted stride).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GsEntry {
    pub valid: bool,
    pub pc: u64,
    pub stride: i64,
}

/// An IP entry (PC, stride, train, the last two accesses' warp ids and addresses, newest first).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IpEntry {
    pub valid: bool,
    pub pc: u64,
    pub stride: i64,
    pub train: bool,
    pub wid: [u32; 2],
    pub addr: [u64; 2],
}

/// A fully associative table with true LRU kept as per-entry ranks (0 = most recent).
#[derive(Debug, Clone)]
pub struct Lru<E> {
    pub entries: Vec<E>,
    pub rank: Vec<u32>,
}

impl<E: Default + Clone> Lru<E> {
    fn new(n: u32) -> Lru<E> {
        Lru {
            entries: vec![E::default(); n as usize],
            rank: (0..n).collect(),
        }
    }

    /// Make entry `i` the most recent.
    fn touch(&mut self, i: usize) {
        let r = self.rank[i];
        for x in &mut self.rank {
            if *x < r {
                *x += 1;
            }
        }
        self.rank[i] = 0;
    }

    /// The first invalid entry, else the least recently used.
    fn victim(&self, valid: impl Fn(&E) -> bool) -> usize {
        if let Some(i) = self.entries.iter().position(|e| !valid(e)) {
            return i;
        }
        let last = self.rank.len() as u32 - 1;
        self.rank.iter().position(|&r| r == last).unwrap_or(0)
    }
}

/// Where the throttle's early-eviction rate fell at the period's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Early {
    High,
    Medium,
    Low,
}

/// The adaptive throttle's state.
#[derive(Debug, Clone)]
pub struct Throttle {
    pub degree: u32,
    /// The current merge ratio, `merge_frac_bits` fraction bits.
    pub merge: u64,
    /// Cycle within the period.
    pub cycle: u32,
    pub useful: u64,
    pub early: u64,
    pub merges: u64,
    pub requests: u64,
    /// A period's update in progress: edges left, the monitored merge ratio, the rate's class.
    pub pending: Option<(u32, u64, Early)>,
    /// Predictions seen modulo 5: the first `degree` of every five are dropped.
    pub drop_count: u32,
}

impl Throttle {
    /// At reset: `degree`, nothing counted.
    fn new(degree: u32) -> Throttle {
        Throttle {
            degree,
            merge: 0,
            cycle: 0,
            useful: 0,
            early: 0,
            merges: 0,
            requests: 0,
            pending: None,
            drop_count: 0,
        }
    }
}

/// The MT-HWP engine of one SM.
#[derive(Debug, Clone)]
pub struct MtHwp {
    spec: PrefetchSpec,
    pub pws: Lru<PwsEntry>,
    pub gs: Lru<GsEntry>,
    pub ip: Lru<IpEntry>,
    /// An access waiting for its PWS lookup.
    pub pending: Option<Access>,
    pub throttle: Throttle,
    out: PfOut,
}

/// `v` as a signed `bits`-bit number.
fn signed(v: u64, bits: u32) -> i64 {
    let sh = 64 - bits;
    ((v << sh) as i64) >> sh
}

impl MtHwp {
    pub fn new(spec: &PrefetchSpec) -> MtHwp {
        let mut m = MtHwp {
            spec: spec.clone(),
            pws: Lru::new(spec.pws_entries),
            gs: Lru::new(spec.gs_entries),
            ip: Lru::new(spec.ip_entries),
            pending: None,
            throttle: Throttle::new(0),
            out: PfOut::reset(0),
        };
        m.reset();
        m
    }

    pub fn spec(&self) -> &PrefetchSpec {
        &self.spec
    }

    /// The outputs after the last edge.
    pub fn out(&self) -> &PfOut {
        &self.out
    }

    /// The address difference `to - from` as a stride, if it fits `stride_bits` signed bits.
    fn stride_of(&self, to: u64, from: u64) -> Option<i64> {
        let s = &self.spec;
        let d = signed(to.wrapping_sub(from) & mask(s.addr_bits), s.addr_bits);
        let half = 1i64 << (s.stride_bits - 1);
        (-half..half).contains(&d).then_some(d)
    }

    /// Look up and train the IP table with a taken access; its stride if the entry predicts: it
    /// is trained and this access, from a third warp, kept its stride.
    fn ip_lookup(&mut self, a: &Access) -> Option<i64> {
        let addr_mask = mask(self.spec.addr_bits);
        let Some(i) = self.ip.entries.iter().position(|e| e.valid && e.pc == a.pc) else {
            let v = self.ip.victim(|e| e.valid);
            self.ip.entries[v] = IpEntry {
                valid: true,
                pc: a.pc,
                stride: 0,
                train: false,
                wid: [a.wid; 2],
                addr: [a.addr; 2],
            };
            self.ip.touch(v);
            return None;
        };
        self.ip.touch(i);
        let d = self.stride_of(a.addr, self.ip.entries[i].addr[0]);
        let e = &mut self.ip.entries[i];
        if a.wid == e.wid[0] || a.wid == e.wid[1] {
            // A warp among the last two (a loop's next iteration): no inter-thread evidence,
            // no prediction; the PWS table sees it.
            return None;
        }
        // Three accesses from three warps in a row with the same (non-zero) difference.
        let same = a.addr.wrapping_sub(e.addr[0]) & addr_mask
            == e.addr[0].wrapping_sub(e.addr[1]) & addr_mask;
        e.train = same && d.is_some_and(|d| d != 0);
        e.stride = d.unwrap_or(0);
        e.wid = [a.wid, e.wid[0]];
        e.addr = [a.addr, e.addr[0]];
        e.train.then_some(e.stride)
    }

    /// Look up and train the PWS table (the edge after a GS and IP miss); its stride if the
    /// entry predicts, and whether the stride was promoted.
    fn pws_lookup(&mut self, a: &Access) -> (Option<i64>, bool) {
        let i = match self
            .pws
            .entries
            .iter()
            .position(|e| e.valid && e.pc == a.pc && e.wid == a.wid)
        {
            Some(i) => {
                let d = self.stride_of(a.addr, self.pws.entries[i].last);
                let e = &mut self.pws.entries[i];
                match d {
                    Some(d) if d != 0 && d == e.stride => e.train = true,
                    d => {
                        e.train = false;
                        e.stride = d.unwrap_or(0);
                    }
                }
                e.last = a.addr;
                i
            }
            None => {
                let v = self.pws.victim(|e| e.valid);
                self.pws.entries[v] = PwsEntry {
                    valid: true,
                    pc: a.pc,
                    wid: a.wid,
                    train: false,
                    last: a.addr,
                    stride: 0,
                };
                v
            }
        };
        self.pws.touch(i);
        let e = self.pws.entries[i];
        if !e.train {
            return (None, false);
        }
        let mut promoted = false;
        if self.spec.gs_table {
            let agree = self
                .pws
                .entries
                .iter()
                .filter(|x| x.valid && x.train && x.pc == a.pc && x.stride == e.stride)
                .count() as u32;
            let in_gs = self.gs.entries.iter().any(|g| g.valid && g.pc == a.pc);
            if agree >= self.spec.promote_count && !in_gs {
                let v = self.gs.victim(|g| g.valid);
                self.gs.entries[v] = GsEntry {
                    valid: true,
                    pc: a.pc,
                    stride: e.stride,
                };
                self.gs.touch(v);
                promoted = true;
            }
        }
        (Some(e.stride), promoted)
    }

    /// A finished lookup on the outputs: the prediction, throttled, and its prefetches.
    fn emit(&mut self, o: &mut PfOut, a: &Access, src: PfSource, stride: i64) {
        o.pf_valid = true;
        o.src = src;
        if src == PfSource::None {
            return;
        }
        let s = &self.spec;
        if s.throttle {
            let t = &mut self.throttle;
            o.drop = t.drop_count < t.degree;
            t.drop_count = (t.drop_count + 1) % (THROTTLE_MAX);
            if o.drop {
                return;
            }
        }
        o.count = s.degree;
        for k in 0..s.degree {
            let steps = i128::from(s.distance + k);
            let target = i128::from(a.addr) + i128::from(stride) * steps;
            o.addrs[k as usize] = (target as u64) & mask(s.addr_bits);
        }
    }

    /// The throttle's part of an edge.
    fn throttle_edge(&mut self, inp: &PfIn, o: &mut PfOut) {
        let s = &self.spec;
        let t = &mut self.throttle;
        if !s.throttle {
            return;
        }
        t.useful += u64::from(inp.useful);
        t.early += u64::from(inp.early);
        t.merges += u64::from(inp.merge);
        t.requests += u64::from(inp.request);
        if let Some((left, q, class)) = &mut t.pending {
            *left -= 1;
            if *left == 0 {
                let (q, class) = (*q, *class);
                t.pending = None;
                // Eq. 8: the current merge ratio averages the previous and the monitored one.
                t.merge = (t.merge + q) >> 1;
                let merge_high = t.merge > s.merge_high_thr;
                // Table I.
                t.degree = match (class, merge_high) {
                    (Early::High, _) => THROTTLE_MAX,
                    (Early::Medium, _) => (t.degree + 1).min(THROTTLE_MAX),
                    (Early::Low, true) => t.degree.saturating_sub(1),
                    (Early::Low, false) => THROTTLE_MAX,
                };
                o.update = true;
            }
        }
        if t.cycle + 1 == s.period {
            t.cycle = 0;
            // Eq. 5 and 7: the monitored early-eviction rate is the current one.
            let class = if t.early * 1000 > u64::from(s.early_high_permille) * t.useful {
                Early::High
            } else if t.early == 0 || t.early * 1000 < u64::from(s.early_low_permille) * t.useful {
                Early::Low
            } else {
                Early::Medium
            };
            // Eq. 6: intra-core merges over requests (0 with no request, at most 1).
            let f = s.merge_frac_bits;
            let q = if t.requests == 0 {
                0
            } else if t.merges >= t.requests {
                1 << f
            } else {
                (t.merges << f) / t.requests
            };
            // A serial divider: one fraction bit a cycle, then the update.
            t.pending = Some((f + 1, q, class));
            (t.useful, t.early, t.merges, t.requests) = (0, 0, 0, 0);
        } else {
            t.cycle += 1;
        }
    }

    fn check(&self, inp: &PfIn) -> Result<(), IllegalInput> {
        let s = &self.spec;
        if let Some(a) = &inp.acc {
            if inp.launch {
                return Err(IllegalInput(
                    "an access in the cycle of a kernel launch (launch_i with acc_valid_i)".into(),
                ));
            }
            for (what, v, bits) in [
                ("PC", a.pc, s.pc_bits),
                ("warp id", u64::from(a.wid), s.wid_bits),
                ("address", a.addr, s.addr_bits),
            ] {
                if v > mask(bits) {
                    return Err(IllegalInput(format!(
                        "access {what} {v:#x} does not fit {bits} bits"
                    )));
                }
            }
        }
        Ok(())
    }
}

impl CycleModel for MtHwp {
    type In = PfIn;
    type Out = PfOut;

    fn reset(&mut self) {
        let s = &self.spec;
        self.pws = Lru::new(s.pws_entries);
        self.gs = Lru::new(s.gs_entries);
        self.ip = Lru::new(s.ip_entries);
        self.pending = None;
        let degree = if s.throttle { s.initial_throttle } else { 0 };
        self.throttle = Throttle::new(degree);
        self.out = PfOut::reset(degree);
    }

    fn step(&mut self, inp: &PfIn) -> Result<&PfOut, IllegalInput> {
        self.check(inp)?;
        let mut o = PfOut::reset(0);
        if inp.launch {
            if self.pending.take().is_some() {
                o.pf_valid = true;
            }
            for e in &mut self.pws.entries {
                e.valid = false;
            }
            for e in &mut self.gs.entries {
                e.valid = false;
            }
            for e in &mut self.ip.entries {
                e.valid = false;
            }
        } else if let Some(a) = self.pending.take() {
            let (hit, promoted) = self.pws_lookup(&a);
            o.promote = promoted;
            match hit {
                Some(stride) => self.emit(&mut o, &a, PfSource::Pws, stride),
                None => self.emit(&mut o, &a, PfSource::None, 0),
            }
        } else if let Some(a) = inp.acc {
            if !self.spec.gs_table && !self.spec.ip_table {
                self.pending = Some(a);
            } else {
                let gs = if self.spec.gs_table {
                    self.gs.entries.iter().position(|e| e.valid && e.pc == a.pc)
                } else {
                    None
                };
                let ip = if self.spec.ip_table {
                    self.ip_lookup(&a)
                } else {
                    None
                };
                match (gs, ip) {
                    (Some(g), _) => {
                        self.gs.touch(g);
                        let stride = self.gs.entries[g].stride;
                        self.emit(&mut o, &a, PfSource::Gs, stride);
                    }
                    (None, Some(stride)) => self.emit(&mut o, &a, PfSource::Ip, stride),
                    (None, None) => self.pending = Some(a),
                }
            }
        }
        self.throttle_edge(inp, &mut o);
        o.acc_ready = self.pending.is_none();
        o.degree = self.throttle.degree;
        o.merge = self.throttle.merge;
        self.out = o;
        Ok(&self.out)
    }
}
