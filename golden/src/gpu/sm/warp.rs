//! Warps as an SM runs them: each warp's instructions and the step the schedulers read of the
//! next one, its register scoreboard (registers awaiting a load, arithmetic results not yet
//! readable), its outstanding memory instructions; resident blocks' counts; and the gates that
//! say which warp slots may issue.

use crate::gpu::kernel::WarpGen;
use crate::workload::accelsim::{Inst, Reg};
use crate::workload::opcode::Kind;

/// The zero register: never waits.
pub(crate) const RZ: Reg = 255;

/// A set of registers (R0 to R254; `RZ` is never held), a bit each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RegSet([u64; 4]);

impl RegSet {
    #[inline]
    pub fn insert(&mut self, r: Reg) {
        self.0[usize::from(r / 64)] |= 1 << (r % 64);
    }

    #[inline]
    pub fn remove(&mut self, r: Reg) {
        self.0[usize::from(r / 64)] &= !(1 << (r % 64));
    }

    #[inline]
    pub fn contains(&self, r: Reg) -> bool {
        self.0[usize::from(r / 64)] >> (r % 64) & 1 != 0
    }

    /// Whether the two sets share a register.
    #[inline]
    pub fn meets(&self, o: &RegSet) -> bool {
        (0..4).any(|k| self.0[k] & o.0[k] != 0)
    }
}

/// Which access an answer is for: a warp slot and the id of one of its outstanding memory
/// instructions, packed into 32 bits (the L1's payload, and the low bits of a request's tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payload(u32);

impl Payload {
    #[inline]
    pub fn pack(warp: usize, id: u16) -> Payload {
        Payload((warp as u32) << 16 | u32::from(id))
    }

    #[inline]
    pub fn warp(self) -> usize {
        (self.0 >> 16) as usize
    }

    #[inline]
    pub fn id(self) -> u16 {
        self.0 as u16
    }

    #[inline]
    pub fn bits(self) -> u32 {
        self.0
    }

    #[inline]
    pub fn from_bits(bits: u32) -> Payload {
        Payload(bits)
    }
}

/// A memory instruction of a warp whose accesses are not all answered.
#[derive(Debug, Clone)]
pub(crate) struct Outstanding {
    /// Its id among its warp's outstanding instructions.
    pub id: u16,
    /// The register its answer writes (a load's, an atomic's), which waits until then.
    pub dest: Option<Reg>,
    /// A load (its latency and divergence are counted), not an atomic.
    pub load: bool,
    /// Accesses not yet answered.
    pub left: u32,
    /// The cycle it issued.
    pub issued: u64,
    /// The cycle its first access was answered.
    pub first: Option<u64>,
    /// Its PC and load execution count (what the OT predictor is told of it).
    pub pc: u64,
    pub lec: u32,
    /// The lines the OT predictor has observed of it (inline: most loads touch one or two).
    pub observed: smallvec::SmallVec<[u64; 2]>,
}

/// An arithmetic result not yet readable.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Writing {
    pub reg: Reg,
    /// The cycle from which it is readable.
    pub at: u64,
}

/// How many times a warp executed the load at one PC (the load execution count, seed 000).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoadCount {
    pub pc: u64,
    pub count: u32,
}

/// What the schedulers and the issue stage read of an instruction, built at launch (when the
/// block's instructions were just read), 16 bytes: the next instruction's first read through
/// its 80-byte [`Inst`] in the warp's own vector mostly missed the host's caches.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step {
    pub kind: Kind,
    /// Its destination (`RZ`: none).
    pub dest: Reg,
    /// Its first four sources (`RZ` where there is none).
    pub srcs: [Reg; 4],
    /// It has more sources (a built-in kernel's sum over its loads), read from the instruction.
    pub more: bool,
}

impl Step {
    pub fn of(i: &Inst, kind: Kind) -> Step {
        let mut srcs = [RZ; 4];
        for (s, &r) in srcs.iter_mut().zip(&i.srcs) {
            *s = r;
        }
        Step {
            kind,
            dest: i.dest.unwrap_or(RZ),
            srcs,
            more: i.srcs.len() > 4,
        }
    }
}

/// One warp of a resident block.
#[derive(Debug)]
pub(crate) struct Warp {
    /// Its instructions held (a generated kernel's warp: the next
    /// [`CHUNK`](crate::gpu::kernel::CHUNK) of them).
    pub insts: Vec<Inst>,
    /// What the schedulers read of each of `insts`.
    pub steps: Vec<Step>,
    /// The generator of its later instructions (a generated kernel's warp that has more).
    pub more: Option<Box<WarpGen>>,
    /// The index in `insts` of its next instruction.
    pub next: usize,
    /// Its launch order on the SM (GTO's age).
    pub age: u64,
    /// Past its last instruction.
    pub done: bool,
    /// Waiting at a barrier.
    pub at_barrier: bool,
    /// Registers awaiting a load.
    pub loading: RegSet,
    /// Arithmetic results not yet readable.
    pub writing: Vec<Writing>,
    /// The registers the next instruction reads or writes (`RZ` not), kept by
    /// [`Warp::prepare`] when `next` or `writing` changes (at launch and at issue).
    pub need: RegSet,
    /// The cycle from which none of `need` awaits an arithmetic result ([`Warp::prepare`]).
    pub ready_at: u64,
    /// The next instruction's kind (`None`: no next instruction).
    pub next_kind: Option<Kind>,
    /// The next instruction's destination (`RZ` not).
    pub next_dest: Option<Reg>,
    /// Its memory instructions not yet answered.
    pub outstanding: Vec<Outstanding>,
    /// The id its next memory instruction takes.
    pub next_id: u16,
    /// Its block's coordinates, and its index in the block (what the OT predictor is told).
    pub tb: [u32; 3],
    pub in_block: u32,
    /// Per load PC, the times it executed it.
    pub lec: Vec<LoadCount>,
    /// Its block's slot.
    pub slot: usize,
}

impl Warp {
    /// A warp at its first instruction, launched `age`-th, warp `in_block` of block `tb`.
    pub fn new(
        insts: Vec<Inst>,
        steps: Vec<Step>,
        more: Option<WarpGen>,
        age: u64,
        tb: [u32; 3],
        in_block: u32,
    ) -> Warp {
        let mut w = Warp {
            done: insts.is_empty(),
            insts,
            steps,
            more: more.filter(|g| !g.ended()).map(Box::new),
            next: 0,
            age,
            at_barrier: false,
            loading: RegSet::default(),
            writing: Vec::new(),
            need: RegSet::default(),
            ready_at: 0,
            next_kind: None,
            next_dest: None,
            outstanding: Vec::new(),
            next_id: 0,
            tb,
            in_block,
            lec: Vec::new(),
            slot: 0,
        };
        w.prepare();
        w
    }

    /// Take a retired warp's buffers (emptied) for this new one's.
    pub fn reuse(&mut self, mut old: Warp) {
        old.outstanding.clear();
        old.lec.clear();
        old.writing.clear();
        self.outstanding = old.outstanding;
        self.lec = old.lec;
        self.writing = old.writing;
    }

    /// Past its last instruction held: the next ones from its generator, if it has more.
    /// (`kinds` is scratch space.)
    pub fn refill(&mut self, kinds: &mut Vec<Kind>) {
        let Some(g) = self.more.as_mut() else {
            return;
        };
        self.insts.clear();
        kinds.clear();
        g.fill(&mut self.insts, kinds);
        self.steps.clear();
        self.steps.extend(
            self.insts
                .iter()
                .zip(kinds.iter())
                .map(|(i, &k)| Step::of(i, k)),
        );
        self.next = 0;
        if g.ended() {
            self.more = None;
        }
    }

    /// Set `need`, `ready_at`, `next_kind` and `next_dest` for the instruction at `next`.
    pub fn prepare(&mut self) {
        self.need = RegSet::default();
        self.ready_at = 0;
        self.next_kind = None;
        self.next_dest = None;
        let Some(&step) = self.steps.get(self.next) else {
            return;
        };
        self.next_kind = Some(step.kind);
        self.next_dest = Some(step.dest).filter(|&r| r != RZ);
        let more = match step.more {
            true => &self.insts[self.next].srcs[4..],
            false => &[],
        };
        for &r in step.srcs.iter().chain(more).chain([&step.dest]) {
            if r != RZ {
                self.need.insert(r);
            }
        }
        let need = self.need;
        self.ready_at = self
            .writing
            .iter()
            .filter(|w| need.contains(w.reg))
            .map(|w| w.at)
            .max()
            .unwrap_or(0);
    }

    /// Whether the next instruction reads or writes a register a load will write, or one an
    /// arithmetic result not readable at `now` will.
    #[cfg(test)]
    pub fn waits(&self, now: u64) -> bool {
        self.loading.meets(&self.need) || self.ready_at > now
    }

    /// Whether it could issue but for time (an arithmetic input not yet readable, a busy
    /// unit): it has a next instruction, is not at a barrier, and no register of that
    /// instruction awaits a load. Only events change this (see [`Gates`]).
    pub fn eligible(&self) -> bool {
        self.next_kind.is_some()
            && !self.done
            && !self.at_barrier
            && !self.loading.meets(&self.need)
    }

    /// Register `r` awaits a load.
    pub fn loads_into(&self, r: Reg) -> bool {
        r != RZ && self.loading.contains(r)
    }

    /// The next execution of the load at `pc`: its load execution count (from 0).
    pub fn count_load(&mut self, pc: u64) -> u32 {
        match self.lec.iter_mut().find(|e| e.pc == pc) {
            Some(e) => {
                e.count += 1;
                e.count - 1
            }
            None => {
                self.lec.push(LoadCount { pc, count: 1 });
                0
            }
        }
    }
}

/// A resident thread block: its warps' slots and counts kept at the events that change them,
/// so that the block step does not visit every warp of every block.
#[derive(Debug)]
pub(crate) struct Block {
    pub warps: Vec<usize>,
    /// Its warps not ended.
    pub live: u32,
    /// Of those, the ones at the barrier.
    pub waiting: u32,
    /// Its warps not ended or with a memory instruction unanswered (the block is finished at 0).
    pub unfinished: u32,
}

/// Warp slots (a bit per slot, at most 128) whose warp is [`Warp::eligible`], and those whose
/// next instruction is a global memory one (it waits for the LD/ST unit too). Kept at the
/// events that change them; the schedulers look only at these.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Gates {
    pub eligible: u128,
    pub global: u128,
}

impl Gates {
    /// Slot `w`'s bits from its warp (`None`: no warp).
    pub fn set(&mut self, w: usize, x: Option<&Warp>) {
        let bit = 1u128 << w;
        self.eligible &= !bit;
        self.global &= !bit;
        if let Some(x) = x {
            if x.eligible() {
                self.eligible |= bit;
            }
            if matches!(x.next_kind, Some(Kind::Global { .. })) {
                self.global |= bit;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::accelsim::Srcs;
    use proptest::prelude::*;
    use spec::gpu::ExecClass;

    /// A warp whose next instruction is `i`, prepared; `lax`: its step built without the
    /// sources past the fourth (a deliberately wrong variant).
    fn warp(i: Inst, writing: Vec<(Reg, u64)>, lax: bool) -> Warp {
        let mut step = Step::of(&i, Kind::Alu(ExecClass::Alu));
        step.more &= !lax;
        let mut w = Warp::new(vec![i], vec![step], None, 0, [0; 3], 0);
        w.writing = writing
            .into_iter()
            .map(|(reg, at)| Writing { reg, at })
            .collect();
        w.prepare();
        w
    }

    type Case = (Vec<Reg>, Option<Reg>, Vec<(Reg, u64)>, u64);

    fn case() -> impl Strategy<Value = Case> {
        (
            proptest::collection::vec(prop_oneof![0u8..8, Just(RZ)], 0..9),
            proptest::option::of(prop_oneof![0u8..8, Just(RZ)]),
            proptest::collection::vec((0u8..12, 0u64..50), 0..6),
            0u64..60,
        )
    }

    /// What `prepare` keeps of the next instruction is what reading the instruction gives:
    /// every register it reads or writes (`RZ` not, sources past the fourth included), whether
    /// an arithmetic result for one of them is in flight at `now`, and its destination.
    fn prepared_as_read((srcs, dest, writing, now): Case, lax: bool) -> Result<(), TestCaseError> {
        let i = Inst {
            pc: 0,
            mask: 1,
            op: 0,
            dest,
            srcs: Srcs::from_vec(srcs.clone()),
            mem_bytes: 0,
            addrs: Default::default(),
        };
        let w = warp(i, writing.clone(), lax);
        let regs: Vec<Reg> = srcs
            .iter()
            .chain(&dest)
            .copied()
            .filter(|&r| r != RZ)
            .collect();
        for r in 0..=Reg::MAX {
            prop_assert_eq!(w.need.contains(r), regs.contains(&r), "register {}", r);
        }
        let waits = writing.iter().any(|&(r, t)| regs.contains(&r) && t > now);
        prop_assert_eq!(w.waits(now), waits);
        prop_assert_eq!(w.next_dest, dest.filter(|&r| r != RZ));
        Ok(())
    }

    proptest! {
        #[test]
        fn the_prepared_instruction_is_the_instruction(c in case()) {
            prepared_as_read(c, false)?;
        }
    }

    /// Without the sources past the fourth (a built-in kernel's sum over its loads), a warp
    /// would issue before its fifth load's register is written: the check above catches it.
    #[test]
    fn a_step_without_its_fifth_source_is_caught() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let caught = runner.run(&case(), |c| prepared_as_read(c, true));
        assert!(caught.is_err(), "the lax step was not caught");
    }

    #[test]
    fn a_payload_unpacks_to_what_was_packed() {
        for (w, id) in [(0, 0), (127, 0xffff), (5, 3)] {
            let p = Payload::pack(w, id);
            assert_eq!((p.warp(), p.id()), (w, id));
            assert_eq!(Payload::from_bits(p.bits()), p);
        }
    }
}
