//! Block-agnostic lockstep: the RTL takes the inputs the golden model took, and every output
//! port is compared, word for word, after every edge.

use crate::model::Model;
use crate::SimError;
use golden::block::{Codec, CycleModel, Frame, IllegalInput};
use spec::{Dir, PortSpec};

/// The first cycle on which RTL and golden model disagreed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// 1-based: the cycle whose outputs differ.
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
    /// The RTL raised an assertion (on 1-based cycle `cycle`) or the simulator failed.
    Rtl { cycle: u64, error: SimError },
}

/// The RTL half of a lockstep: an RTL model that follows a golden model owned elsewhere, checked
/// after every step.
pub struct Mirror {
    pub rtl: Model,
    inp: Frame,
    exp: Frame,
    act: Frame,
    /// Cycles driven since reset (the one being checked included).
    pub cycle: u64,
}

impl Mirror {
    /// An RTL model for a block with these ports; resets it.
    pub fn new(rtl: Model, ports: &[PortSpec]) -> Result<Mirror, SimError> {
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
    /// golden model produced for the same input.
    #[inline]
    pub fn check<C: Codec>(
        &mut self,
        codec: &C,
        input: &C::In,
        output: &C::Out,
    ) -> Result<(), StepFail> {
        codec.encode_in(input, &mut self.inp);
        codec.encode_out(output, &mut self.exp);
        self.cycle += 1;
        let stepped = if C::COMB_OUTPUTS {
            self.rtl.step_comb(&self.inp, &mut self.act)
        } else {
            self.rtl.step(&self.inp, &mut self.act)
        };
        stepped.map_err(|error| StepFail::Rtl {
            cycle: self.cycle,
            error,
        })?;
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
pub struct Lockstep<M: CycleModel, C: Codec<In = M::In, Out = M::Out>> {
    pub golden: M,
    pub codec: C,
    pub mirror: Mirror,
}

impl<M: CycleModel, C: Codec<In = M::In, Out = M::Out>> Lockstep<M, C> {
    /// Pair a golden model with its RTL and reset both.
    pub fn new(golden: M, codec: C, rtl: Model) -> Result<Lockstep<M, C>, SimError> {
        let mut l = Lockstep {
            mirror: Mirror::new(rtl, codec.ports())?,
            codec,
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
        self.mirror.check(&self.codec, input, &out)?;
        Ok(out)
    }
}
