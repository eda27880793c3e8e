//! CCWS (`ccws`): Rogers et al.'s cache-conscious wavefront scheduling (MICRO 2012), the
//! baseline seed 003 sets beside its programmable scheduler (decision GPU-37).
//!
//! Each warp keeps victim tags: the lines it brought into the L1 (its read missed and allocated
//! them) that were evicted since, the most recent `gpu.ccws_vta_entries`. A read of a warp that
//! misses in the L1 and finds its line among the warp's own victim tags is lost intra-warp
//! locality: the warp's lost-locality score gains `gpu.ccws_hit_points` (and the tag goes). A
//! score above the base, `gpu.ccws_base_score`, loses one point a core cycle. Each cycle the
//! scheduler's live warps are stacked, highest score first (the lowest slot on ties), until
//! their scores reach live warps x base: only the warps in the stack may issue loads, so a warp
//! that lost locality takes the room of several and fewer warps share the L1. Among the warps
//! allowed, greedy then oldest. Each warp scheduler keeps its own warps' scores and tags.

use super::gto::oldest_ready;
use super::{FromSpec, OwnSlots, Ready, WarpScheduler};
use crate::gpu::sm::warp::Warp;
use crate::workload::opcode::Kind;
use spec::Spec;
use std::collections::{HashMap, VecDeque};

/// One warp slot of the scheduler.
#[derive(Debug, Clone, Default)]
struct Slot {
    /// The launch order of the warp it holds (`None`: none seen yet).
    warp: Option<u64>,
    /// Its lost-locality score.
    score: u64,
    /// Its victim tags, oldest first.
    victims: VecDeque<u64>,
}

#[derive(Debug, Clone)]
pub struct Ccws {
    /// The scheduler's warp slots (`slots` and `owner` index them locally).
    own: OwnSlots,
    /// Clears the offset of an address within its L1 line.
    line_mask: u64,
    vta_entries: usize,
    base: u64,
    hit_points: u64,
    slots: Vec<Slot>,
    /// The L1's lines this scheduler's warps brought in: line → local slot.
    owner: HashMap<u64, usize>,
    /// The warp slot it issued from last.
    last: Option<usize>,
    /// The core cycle the scores have decayed to.
    now: u64,
    /// Warp slots that may issue loads this cycle (the stack).
    may_load: u128,
    /// Scratch: the live warps as (score, local slot), kept to reuse its room.
    order: Vec<(u64, usize)>,
}

impl FromSpec for Ccws {
    fn from_spec(spec: &Spec, s: usize) -> Ccws {
        let g = &spec.gpu;
        let own = OwnSlots::of(g, s);
        Ccws {
            own,
            line_mask: !(u64::from(g.l1.line_bytes) - 1),
            vta_entries: g.ccws_vta_entries as usize,
            base: g.ccws_base_score.into(),
            hit_points: g.ccws_hit_points.into(),
            slots: vec![Slot::default(); own.count()],
            owner: HashMap::new(),
            last: None,
            now: 0,
            may_load: 0,
            order: Vec::new(),
        }
    }
}

/// Whether the warp's next instruction is a load through the L1 (global or local).
fn loads(x: &Warp) -> bool {
    matches!(
        x.next_kind,
        Some(Kind::Global {
            write: false,
            l2_only: false,
            ..
        })
    )
}

/// How many of the live warps `order` (score and slot, highest score first) may load: stacked
/// in that order until their scores reach `base` for each live warp (all of them when every
/// score is at rest).
fn stacked(order: &[(u64, usize)], base: u64) -> usize {
    let cutoff = base * order.len() as u64;
    let mut sum = 0;
    for (k, &(score, _)) in order.iter().enumerate() {
        sum += score;
        if sum >= cutoff {
            return k + 1;
        }
    }
    order.len()
}

impl Ccws {
    /// The scores decayed to `now`, new warps at rest, and the stack of the warps that may
    /// load.
    fn update(&mut self, v: &Ready<'_>) {
        let dt = v.now.saturating_sub(self.now);
        self.now = self.now.max(v.now);
        self.order.clear();
        for i in 0..self.slots.len() {
            let Some(x) = v.warp(self.own.sm(i)).filter(|x| !x.done) else {
                continue;
            };
            let s = &mut self.slots[i];
            if s.warp != Some(x.age) {
                // A new warp: at rest, without tags; the lines the old one brought are no
                // longer its.
                *s = Slot {
                    warp: Some(x.age),
                    score: self.base,
                    victims: VecDeque::new(),
                };
                self.owner.retain(|_, &mut o| o != i);
            }
            s.score = s.score.saturating_sub(dt).max(self.base);
            self.order.push((s.score, i));
        }
        self.order
            .sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.may_load = 0;
        for &(_, i) in &self.order[..stacked(&self.order, self.base)] {
            self.may_load |= 1 << self.own.sm(i);
        }
    }
}

impl WarpScheduler for Ccws {
    const NAME: &'static str = "ccws";
    // Scores decay and the stack changes with time, events or not.
    const SLEEPS: bool = false;
    const WATCHES_L1: bool = true;

    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        self.update(v);
        let may_load = self.may_load;
        let admitted = |w: usize| may_load >> w & 1 == 1 || v.warp(w).is_some_and(|x| !loads(x));
        if let Some(w) = self.last.filter(|&w| admitted(w) && v.ready(w)) {
            return Some(w);
        }
        oldest_ready(v, admitted)
    }

    fn issued(&mut self, w: usize) {
        self.last = Some(w);
    }

    fn l1_miss(&mut self, w: usize, line: u64) {
        let (i, line) = (self.own.local(w), line & self.line_mask);
        self.owner.insert(line, i);
        let Some(s) = self.slots.get_mut(i) else {
            return;
        };
        if let Some(k) = s.victims.iter().position(|&l| l == line) {
            s.victims.remove(k);
            s.score += self.hit_points;
        }
    }

    fn l1_evicted(&mut self, line: u64) {
        let line = line & self.line_mask;
        let Some(i) = self.owner.remove(&line) else {
            return;
        };
        let s = &mut self.slots[i];
        s.victims.push_back(line);
        if s.victims.len() > self.vta_entries {
            s.victims.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scheduler 0 of a tiny SM (slots 0, 2, 4, ...; 128-byte lines, 8 victim tags, base 100,
    /// 400 points a victim-tag hit), its first four slots holding warps at rest.
    fn ccws() -> Ccws {
        let spec = spec::ConfigRequest::preset("tiny").resolve().unwrap();
        let mut c = Ccws::from_spec(&spec, 0);
        for (i, s) in c.slots.iter_mut().take(4).enumerate() {
            s.warp = Some(i as u64);
            s.score = c.base;
        }
        c
    }

    #[test]
    fn a_victim_tag_hit_raises_the_warps_score() {
        let mut c = ccws();
        // Warp slot 2 (local 1) brings line 0x1000 in; a miss elsewhere in it is the same line.
        c.l1_miss(2, 0x1000);
        assert_eq!(c.slots[1].score, 100, "a first miss is no lost locality");
        c.l1_evicted(0x1000);
        assert_eq!(c.slots[1].victims, [0x1000]);
        // Another warp missing on the line does not find it among its own tags.
        c.l1_miss(4, 0x1040);
        assert_eq!(c.slots[2].score, 100);
        // Slot 4 brought it in this time: evicted again, it is slot 4's victim, not slot 2's.
        c.l1_evicted(0x1000);
        assert_eq!(c.slots[2].victims, [0x1000]);
        assert_eq!(c.slots[1].victims, [0x1000]);
        c.l1_miss(2, 0x1010);
        assert_eq!(
            c.slots[1].score, 500,
            "slot 2 lost the line it had: 400 points"
        );
        assert!(c.slots[1].victims.is_empty(), "the tag that hit goes");
        // A line evicted that no warp of this scheduler brought is not a victim of any.
        c.l1_evicted(0x9000);
        assert!(c.slots.iter().all(|s| !s.victims.contains(&0x9000)));
    }

    #[test]
    fn victim_tags_keep_the_most_recent_lines() {
        let mut c = ccws();
        for k in 0..10u64 {
            c.l1_miss(0, k << 7);
            c.l1_evicted(k << 7);
        }
        assert_eq!(
            c.slots[0].victims,
            (2..10u64).map(|k| k << 7).collect::<Vec<_>>()
        );
        c.l1_miss(0, 1 << 7);
        assert_eq!(c.slots[0].score, 100, "line 1's tag was pushed out");
        c.l1_miss(0, 2 << 7);
        assert_eq!(c.slots[0].score, 500);
    }

    #[test]
    fn a_high_score_limits_the_warps_that_may_load() {
        // Six live warps at rest: the stack reaches 6 x 100 only with all six.
        let rest: Vec<(u64, usize)> = (0..6).map(|i| (100, i)).collect();
        assert_eq!(stacked(&rest, 100), 6);
        // One warp lost locality (500): it and one more reach 600; four may not load.
        let mut hit = rest.clone();
        hit[3].0 = 500;
        hit.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        assert_eq!(stacked(&hit, 100), 2);
        assert_eq!(&hit[..2], &[(500, 3), (100, 0)]);
        // As the score decays the limit lifts: at 300, three more warps' room.
        hit[0].0 = 300;
        assert_eq!(stacked(&hit, 100), 4);
        // With a score of its own past the cutoff a warp loads alone.
        assert_eq!(stacked(&[(700, 0), (100, 1)], 100), 1);
        assert_eq!(stacked(&[], 100), 0);
    }
}
