//! What the OT predictor (seed 000) sees of an SM: a query for every global load a warp
//! issues, and an observation of every line a load's requests to the memory partitions name
//! (once per line per instruction), with the load's PC, LEC, block and warp, narrowed to the
//! predictor's fields as `ot_stimulus` narrows them.

use super::warp::Payload;
use super::Sm;
use crate::ot::{GpuTxn, Observe, Query};

/// The OT predictor's view of an SM: its transactions since they were last taken.
pub(super) struct OtTap {
    txns: Vec<GpuTxn>,
    /// What the predictor is told of a LEC ([`spec::OtSpec::lec_mask`]) and its address
    /// field, as masks.
    lec_mask: u32,
    addr_mask: u64,
    /// Clears the offset within a line.
    line_mask: u64,
}

impl OtTap {
    /// A warp global load issued: its PC and LEC, its warp's block and index in it.
    pub fn query(&mut self, pc: u64, lec: u32, tb: [u32; 3], warp: u32) {
        self.txns.push(GpuTxn::Predict(Query {
            pc,
            lec: lec & self.lec_mask,
            tb,
            warp,
        }));
    }
}

impl Sm<'_> {
    /// Let the OT predictor see this SM.
    pub fn observe_ot(&mut self, ot: &spec::OtSpec, line_bytes: u32) {
        self.ot = Some(OtTap {
            txns: Vec::new(),
            lec_mask: ot.lec_mask(),
            addr_mask: crate::block::mask(ot.addr_bits),
            line_mask: !(u64::from(line_bytes.max(1)) - 1),
        });
    }

    /// The OT transactions since the last call, in the order they happened (`None` when there
    /// are none).
    pub fn take_ot(&mut self) -> Option<std::vec::Drain<'_, GpuTxn>> {
        self.ot
            .as_mut()
            .filter(|t| !t.txns.is_empty())
            .map(|t| t.txns.drain(..))
    }

    /// A request for access `p` at `addr` entered the memory side: the OT observes its line.
    pub(super) fn observed(&mut self, p: Payload, addr: u64) {
        let Some(t) = &mut self.ot else {
            return;
        };
        let Some(x) = self.warps[p.warp()].as_mut() else {
            return;
        };
        let Some(e) = x.outstanding.iter_mut().find(|e| e.id == p.id()) else {
            return;
        };
        let line = addr & t.line_mask;
        if e.observed.contains(&line) {
            return;
        }
        e.observed.push(line);
        t.txns.push(GpuTxn::Observe(Observe {
            pc: e.pc,
            lec: e.lec & t.lec_mask,
            tb: x.tb,
            warp: x.in_block,
            addr: line & t.addr_mask,
        }));
    }
}
