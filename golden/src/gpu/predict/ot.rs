//! The observation table (OT) of seed 000 as the GPU runs it: the very block model that is
//! co-simulated, fed the GPU's stream packed into cycles ([`crate::ot::OtRun`]).

use super::{AddressPredictor, SmTxn};
use crate::ot::{OtFigures, OtRun};
use spec::Spec;

pub struct Ot(OtRun);

impl AddressPredictor for Ot {
    const NAME: &'static str = "ot";

    fn new(spec: &Spec) -> Ot {
        Ot(OtRun::new(spec))
    }

    /// One table shared by every SM: which SM made a transaction does not matter.
    fn feed(&mut self, txns: impl Iterator<Item = SmTxn>) {
        self.0.feed(txns.map(|(_, t)| t));
    }

    fn figures(&self) -> OtFigures {
        self.0.figures()
    }
}
