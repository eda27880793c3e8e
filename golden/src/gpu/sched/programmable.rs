//! Programmable (`programmable`): seed 003's programmable warp scheduler (decision GPU-36).
//! Its compiler sizes a high-priority warp group per kernel so that the group's data stays in
//! the L1; here that size is `gpu.priority_warps`, the same for every kernel of a run. The
//! group is the SM's oldest resident blocks (by their oldest warp) whose warps fit in it, and
//! always the oldest block: whole blocks, so that no warp of the group waits at a barrier for
//! one outside it. Only the group's warps issue, greedy then oldest; as a block ends, the next
//! oldest joins.

use super::gto::oldest_ready;
use super::{FromSpec, Ready, WarpScheduler};
use spec::Spec;

#[derive(Debug, Clone)]
pub struct Programmable {
    /// The group's size, in warps.
    group: u32,
    /// The warp slot it issued from last.
    last: Option<usize>,
    /// Scratch: the SM's resident blocks as (age, block slot, warps), kept to reuse its room.
    blocks: Vec<(u64, usize, u32)>,
}

impl FromSpec for Programmable {
    fn from_spec(spec: &Spec, _: usize) -> Programmable {
        Programmable {
            group: spec.gpu.priority_warps,
            last: None,
            blocks: Vec::new(),
        }
    }
}

impl WarpScheduler for Programmable {
    const NAME: &'static str = "programmable";

    fn pick(&mut self, v: &Ready<'_>) -> Option<usize> {
        // The SM's blocks, oldest first.
        self.blocks.clear();
        for x in v.warps.iter().flatten() {
            match self.blocks.iter_mut().find(|b| b.1 == x.slot) {
                Some(b) => {
                    b.0 = b.0.min(x.age);
                    b.2 += 1;
                }
                None => self.blocks.push((x.age, x.slot, 1)),
            }
        }
        self.blocks.sort_unstable();
        // The group: the oldest block, then each next one while its warps fit.
        let mut room = self.group;
        let mut in_group = 0;
        for (i, &(_, _, n)) in self.blocks.iter().enumerate() {
            if i > 0 && n > room {
                break;
            }
            room = room.saturating_sub(n);
            in_group = i + 1;
        }
        let group = &self.blocks[..in_group];
        let member = |w: usize| {
            v.warp(w)
                .is_some_and(|x| group.iter().any(|b| b.1 == x.slot))
        };
        if let Some(w) = self.last.filter(|&w| member(w) && v.ready(w)) {
            return Some(w);
        }
        oldest_ready(v, member)
    }

    fn issued(&mut self, w: usize) {
        self.last = Some(w);
    }
}
