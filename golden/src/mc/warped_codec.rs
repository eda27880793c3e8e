//! The Warped-MC block's codec (its ports, as the RTL has them) and its [`BlockModel`]
//! (`WmcBlock`).
//!
//! [`BlockModel`]: crate::block::BlockModel

use super::warped::{WarpedMc, WmcIn, WmcOut};
use crate::block::{Codec, CodecError, Frame, PortNames};
use spec::{PortSpec, WarpedMcSpec};

/// The Warped-MC block's codec: its inputs and outputs on the ports of
/// [`WarpedMcSpec::interface`]. The outputs are combinational (sampled before the edge).
#[derive(Debug, Clone)]
pub struct WmcCodec {
    ports: Vec<PortSpec>,
    candidates: u32,
    banks: u32,
    enq_valid: usize,
    enq_sm: usize,
    enq_warp: usize,
    enq_pc: usize,
    svc_valid: usize,
    svc_gwid: usize,
    act_valid: usize,
    act_bank: usize,
    act_row: usize,
    cand_valid: usize,
    cand_gwid: usize,
    cand_bank: usize,
    cand_row: usize,
    cand_slot: usize,
    cand_hit: usize,
    bank_open: usize,
    cas_ready: usize,
    pre_ready: usize,
    act_ready: usize,
    cand_class: usize,
    open_valid: usize,
    open_row: usize,
    open_cand: usize,
    sel_valid: usize,
    sel_bank: usize,
    sel_cmd: usize,
    sel_cand: usize,
    sel_row: usize,
}

impl WmcCodec {
    pub fn new(spec: &WarpedMcSpec) -> Result<WmcCodec, CodecError> {
        let ports = spec.ports();
        let mut n = PortNames::new("warped-mc", &ports);
        let c = WmcCodec {
            candidates: spec.candidates,
            banks: spec.banks,
            enq_valid: n.index("enq_valid_i"),
            enq_sm: n.index("enq_sm_i"),
            enq_warp: n.index("enq_warp_i"),
            enq_pc: n.index("enq_pc_i"),
            svc_valid: n.index("svc_valid_i"),
            svc_gwid: n.index("svc_gwid_i"),
            act_valid: n.index("act_valid_i"),
            act_bank: n.index("act_bank_i"),
            act_row: n.index("act_row_i"),
            cand_valid: n.index("cand_valid_i"),
            cand_gwid: n.index("cand_gwid_i"),
            cand_bank: n.index("cand_bank_i"),
            cand_row: n.index("cand_row_i"),
            cand_slot: n.index("cand_slot_i"),
            cand_hit: n.index("cand_hit_i"),
            bank_open: n.index("bank_open_i"),
            cas_ready: n.index("cas_ready_i"),
            pre_ready: n.index("pre_ready_i"),
            act_ready: n.index("act_ready_i"),
            cand_class: n.index("cand_class_o"),
            open_valid: n.index("open_valid_o"),
            open_row: n.index("open_row_o"),
            open_cand: n.index("open_cand_o"),
            sel_valid: n.index("sel_valid_o"),
            sel_bank: n.index("sel_bank_o"),
            sel_cmd: n.index("sel_cmd_o"),
            sel_cand: n.index("sel_cand_o"),
            sel_row: n.index("sel_row_o"),
            ports: Vec::new(),
        };
        n.finish()?;
        Ok(WmcCodec { ports, ..c })
    }
}

impl Codec for WmcCodec {
    type In = WmcIn;
    type Out = WmcOut;

    const COMB_OUTPUTS: bool = true;

    fn ports(&self) -> &[PortSpec] {
        &self.ports
    }

    fn encode_in(&self, inp: &WmcIn, f: &mut Frame) {
        f.clear();
        let (k, b) = (self.candidates, self.banks);
        for (c, e) in inp.enq.iter().enumerate() {
            if let Some(e) = e {
                let c = c as u32;
                f.set_elem(self.enq_valid, c, 1);
                f.set_elem(self.enq_sm, c, e.sm.into());
                f.set_elem(self.enq_warp, c, e.warp.into());
                f.set_elem(self.enq_pc, c, e.pc);
            }
        }
        for (c, g) in inp.svc.iter().enumerate() {
            if let Some(g) = g {
                f.set_elem(self.svc_valid, c as u32, 1);
                f.set_elem(self.svc_gwid, c as u32, (*g).into());
            }
        }
        for (c, ci) in inp.ctrl.iter().enumerate() {
            let c = c as u32;
            if let Some((bank, row)) = ci.act {
                f.set_elem(self.act_valid, c, 1);
                f.set_elem(self.act_bank, c, bank.into());
                f.set_elem(self.act_row, c, row.into());
            }
            for (i, x) in ci.cands.iter().enumerate() {
                let e = c * k + i as u32;
                if let Some(x) = x {
                    f.set_elem(self.cand_valid, e, 1);
                    f.set_elem(self.cand_gwid, e, x.gwid.into());
                    f.set_elem(self.cand_bank, e, x.bank.into());
                    f.set_elem(self.cand_row, e, x.row.into());
                    f.set_elem(self.cand_slot, e, x.slot.into());
                    f.set_elem(self.cand_hit, e, x.hit.into());
                }
            }
            for i in 0..b {
                let e = c * b + i;
                f.set_elem(self.bank_open, e, ci.bank_open >> i & 1);
                f.set_elem(self.cas_ready, e, ci.cas_ready >> i & 1);
                f.set_elem(self.pre_ready, e, ci.pre_ready >> i & 1);
                f.set_elem(self.act_ready, e, ci.act_ready >> i & 1);
            }
        }
    }

    fn encode_out(&self, o: &WmcOut, f: &mut Frame) {
        f.clear();
        let (k, b) = (self.candidates, self.banks);
        for (c, co) in o.ctrl.iter().enumerate() {
            let c = c as u32;
            for (i, cl) in co.class.iter().enumerate() {
                f.set_elem(self.cand_class, c * k + i as u32, *cl as u64);
            }
            for (i, op) in co.open.iter().enumerate() {
                let e = c * b + i as u32;
                if let Some((row, cand)) = op {
                    f.set_elem(self.open_valid, e, 1);
                    f.set_elem(self.open_row, e, (*row).into());
                    f.set_elem(self.open_cand, e, (*cand).into());
                }
            }
            if let Some((bank, cmd, cand, row)) = co.sel {
                f.set_elem(self.sel_valid, c, 1);
                f.set_elem(self.sel_bank, c, bank.into());
                f.set_elem(self.sel_cmd, c, cmd as u64);
                f.set_elem(self.sel_cand, c, cand.into());
                f.set_elem(self.sel_row, c, row.into());
            }
        }
    }
}

/// The Warped-MC block: its model and codec.
pub struct WmcBlock;

impl crate::block::BlockModel for WmcBlock {
    type Model = WarpedMc;
    type Codec = WmcCodec;
    fn model(spec: &spec::Spec) -> WarpedMc {
        WarpedMc::new(&spec.wmc)
    }
    fn codec(spec: &spec::Spec) -> Result<WmcCodec, CodecError> {
        WmcCodec::new(&spec.wmc)
    }
}
