//! Block-agnostic lockstep: golden model and RTL take the same inputs every cycle and every
//! output port is compared, word for word, after every edge.

use crate::model::Model;
use crate::SimError;
use golden::block::{CycleModel, Frame, IllegalInput};
use golden::spec::Dir;

/// The first cycle on which RTL and golden model disagreed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    /// The first differing port (in port-list order).
    pub port: &'static str,
    pub expected: String,
    pub actual: String,
    /// Every output port on that cycle: (name, expected, actual).
    pub ports: Vec<(&'static str, String, String)>,
}

/// Why a lockstep cycle did not complete.
#[derive(Debug)]
pub enum StepFail {
    /// Outputs differ.
    Mismatch(Mismatch),
    /// The input breaks the block's interface rules (the golden model refused it; the RTL was
    /// not driven).
    Illegal(IllegalInput),
    /// The RTL raised an assertion or the simulator failed.
    Rtl(SimError),
}

/// Golden model and RTL in lockstep.
pub struct Lockstep<M: CycleModel> {
    pub golden: M,
    pub rtl: Model,
    inp: Frame,
    exp: Frame,
    act: Frame,
    /// Cycles completed since reset.
    pub cycle: u64,
}

impl<M: CycleModel> Lockstep<M>
where
    M::Out: Clone,
{
    /// Pair a golden model with its RTL and reset both.
    pub fn new(golden: M, rtl: Model) -> Result<Lockstep<M>, SimError> {
        let ports = golden.ports().to_vec();
        let mut l = Lockstep {
            inp: Frame::new(&ports, Dir::In),
            exp: Frame::new(&ports, Dir::Out),
            act: Frame::new(&ports, Dir::Out),
            golden,
            rtl,
            cycle: 0,
        };
        l.reset()?;
        Ok(l)
    }

    /// Reset both sides.
    pub fn reset(&mut self) -> Result<(), SimError> {
        self.golden.reset();
        self.cycle = 0;
        self.rtl.reset()
    }

    /// One cycle on both sides, then compare every output.
    #[inline]
    pub fn step(&mut self, input: &M::In) -> Result<M::Out, StepFail> {
        let out = self.golden.step(input).map_err(StepFail::Illegal)?.clone();
        self.golden.encode_in(input, &mut self.inp);
        self.golden.encode_out(&out, &mut self.exp);
        let stepped = if M::COMB_OUTPUTS {
            self.rtl.step_comb(&self.inp, &mut self.act)
        } else {
            self.rtl.step(&self.inp, &mut self.act)
        };
        stepped.map_err(StepFail::Rtl)?;
        self.cycle += 1;
        if let Some(p) = self.exp.first_difference(&self.act) {
            return Err(StepFail::Mismatch(Mismatch {
                cycle: self.cycle,
                port: self.exp.name(p),
                expected: self.exp.hex(p),
                actual: self.act.hex(p),
                ports: (0..self.exp.len())
                    .map(|i| (self.exp.name(i), self.exp.hex(i), self.act.hex(i)))
                    .collect(),
            }));
        }
        Ok(out)
    }

    /// Drive the RTL alone (no golden model, no compare): for the RTL-only speed figure and for
    /// driving illegal inputs at assertions.
    pub fn step_rtl_only(&mut self, inputs: &Frame) -> Result<&Frame, SimError> {
        self.rtl.step(inputs, &mut self.act)?;
        self.cycle += 1;
        Ok(&self.act)
    }

    /// An input frame laid out for this block.
    pub fn input_frame(&self) -> Frame {
        self.inp.clone()
    }
}
