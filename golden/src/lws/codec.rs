//! The locality-aware warp scheduler's codec: its inputs and outputs on the ports of
//! [`spec::LwsSpec::interface`], and the block (model and codec) the co-simulation runs.

use super::{LwsIn, LwsOut, LwsUnit};
use crate::block::{BlockModel, Codec, CodecError, Frame, PortNames};
use spec::{LwsSpec, PortSpec};

#[derive(Debug, Clone)]
pub struct LwsCodec {
    ports: Vec<PortSpec>,
    warps: u32,
    set_valid: usize,
    set_slot: usize,
    set_first: usize,
    set_region: usize,
    set_sub: usize,
    ready: usize,
    long: usize,
    issue_valid: usize,
    issue_slot: usize,
    active: usize,
}

impl LwsCodec {
    pub fn new(spec: &LwsSpec) -> Result<LwsCodec, CodecError> {
        let ports = spec.ports();
        let mut n = PortNames::new("lws", &ports);
        let c = LwsCodec {
            warps: spec.warps,
            set_valid: n.index("set_valid_i"),
            set_slot: n.index("set_slot_i"),
            set_first: n.index("set_first_i"),
            set_region: n.index("set_region_i"),
            set_sub: n.index("set_sub_i"),
            ready: n.index("ready_i"),
            long: n.index("long_i"),
            issue_valid: n.index("issue_valid_o"),
            issue_slot: n.index("issue_slot_o"),
            active: n.index("active_o"),
            ports: Vec::new(),
        };
        n.finish()?;
        Ok(LwsCodec { ports, ..c })
    }

    /// One bit per warp slot of a packed per-warp port.
    fn set_bits(&self, f: &mut Frame, port: usize, bits: u128) {
        for i in crate::bitset::members128(bits) {
            if (i as u32) < self.warps {
                f.set_elem(port, i as u32, 1);
            }
        }
    }
}

impl Codec for LwsCodec {
    type In = LwsIn;
    type Out = LwsOut;

    /// The decision is combinational: the SM issues the warp it names in the same cycle.
    const COMB_OUTPUTS: bool = true;

    fn ports(&self) -> &[PortSpec] {
        &self.ports
    }

    fn encode_in(&self, inp: &LwsIn, f: &mut Frame) {
        f.clear();
        if let Some(w) = &inp.set {
            f.set(self.set_valid, 1);
            f.set(self.set_slot, w.slot.into());
            f.set(self.set_first, w.first.into());
            for (a, r) in w.vector.iter().enumerate() {
                if let Some(r) = r {
                    let a = a as u32;
                    f.set_elem(self.set_region, a, r.region);
                    f.set_elem(self.set_sub, a, r.subregions);
                }
            }
        }
        self.set_bits(f, self.ready, inp.ready);
        self.set_bits(f, self.long, inp.long);
    }

    fn encode_out(&self, out: &LwsOut, f: &mut Frame) {
        f.clear();
        if let Some(w) = out.issue {
            f.set(self.issue_valid, 1);
            f.set(self.issue_slot, w.into());
        }
        self.set_bits(f, self.active, out.active);
    }
}

/// The locality-aware warp scheduler's unit: its model and codec.
pub struct LwsBlock;

impl BlockModel for LwsBlock {
    type Model = LwsUnit;
    type Codec = LwsCodec;
    fn model(spec: &spec::Spec) -> LwsUnit {
        LwsUnit::new(&spec.lws)
    }
    fn codec(spec: &spec::Spec) -> Result<LwsCodec, CodecError> {
        LwsCodec::new(&spec.lws)
    }
}
