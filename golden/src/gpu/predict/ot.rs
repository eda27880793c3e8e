//! The observation table (OT) of seed 000 as the GPU runs it: the very block model that is
//! co-simulated, fed the GPU's stream packed into cycles ([`crate::ot::OtRun`]).

use super::AddressPredictor;
use crate::ot::{GpuTxn, OtFigures, OtRun};
use spec::Spec;

pub struct Ot(OtRun);

impl AddressPredictor for Ot {
    const NAME: &'static str = "ot";

    fn new(spec: &Spec) -> Ot {
        Ot(OtRun::new(spec))
    }

    fn feed(&mut self, txns: impl Iterator<Item = GpuTxn>) {
        self.0.feed(txns);
    }

    fn figures(&self) -> OtFigures {
        self.0.figures()
    }
}
