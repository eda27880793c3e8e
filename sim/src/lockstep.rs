//! Block-agnostic lockstep: golden model and RTL take the same inputs every cycle and every
//! output port is compared, word for word, after every edge.

use crate::model::Model;
use crate::SimError;
use golden::block::{CycleModel, Frame, IllegalInput};
use spec::Dir;

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

/// The RTL half of a lockstep: an RTL model that follows a golden model owned elsewhere, checked
/// after every step.
pub struct Mirror {
    pub rtl: Model,
    inp: Frame,
    exp: Frame,
    act: Frame,
    /// Cycles completed since reset.
    pub cycle: u64,
}

impl Mirror {
    /// An RTL model for a block with these ports; resets it.
    pub fn new(rtl: Model, ports: &[spec::PortSpec]) -> Result<Mirror, SimError> {
        let mut m = Mirror {
            rtl,
            inp: Frame::new(ports, Dir::In),
            exp: Frame::new(ports, Dir::Out),
            act: Frame::new(ports, Dir::Out),
            cycle: 0,
        };
        m.reset()?;
        Ok(m)
    }

    pub fn reset(&mut self) -> Result<(), SimError> {
        self.cycle = 0;
        self.rtl.reset()
    }

    /// Drive the RTL with `input` for one cycle and compare its outputs with `output`, what the
    /// golden model `enc` produced for the same input.
    #[inline]
    pub fn check<M: CycleModel>(
        &mut self,
        enc: &M,
        input: &M::In,
        output: &M::Out,
    ) -> Result<(), StepFail> {
        enc.encode_in(input, &mut self.inp);
        enc.encode_out(output, &mut self.exp);
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
        Ok(())
    }
}

/// Golden model and RTL in lockstep.
pub struct Lockstep<M: CycleModel> {
    pub golden: M,
    pub mirror: Mirror,
}

impl<M: CycleModel> Lockstep<M>
where
    M::Out: Clone,
{
    /// Pair a golden model with its RTL and reset both.
    pub fn new(golden: M, rtl: Model) -> Result<Lockstep<M>, SimError> {
        let ports = golden.ports().to_vec();
        let mut l = Lockstep {
            mirror: Mirror::new(rtl, &ports)?,
            golden,
        };
        l.reset()?;
        Ok(l)
    }

    /// Reset both sides.
    pub fn reset(&mut self) -> Result<(), SimError> {
        self.golden.reset();
        self.mirror.reset()
    }

    /// Cycles completed since reset.
    pub fn cycle(&self) -> u64 {
        self.mirror.cycle
    }

    /// One cycle on both sides, then compare every output.
    #[inline]
    pub fn step(&mut self, input: &M::In) -> Result<M::Out, StepFail> {
        let out = self.golden.step(input).map_err(StepFail::Illegal)?.clone();
        self.mirror.check(&self.golden, input, &out)?;
        Ok(out)
    }
}
