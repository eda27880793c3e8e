//! The many-thread-aware hardware prefetcher of seed 001 (MT-HWP): the per-SM prefetch engine
//! as a cycle model ([`MtHwp`]), its codec and its block.

mod model;
pub mod output;
pub mod stimulus;
#[cfg(test)]
mod tests;

pub use model::{
    Access, Early, GsEntry, IpEntry, Lru, MtHwp, PfIn, PfOut, PwsEntry, Throttle, MAX_DEGREE,
};
pub use stimulus::{run_golden, Inputs, Traffic, FORMS};

use crate::block::{BlockModel, Codec, CodecError, Frame, PortNames};
use spec::PortSpec;

/// Puts the engine's inputs and outputs on its ports.
pub struct PfCodec {
    ports: Vec<PortSpec>,
    launch: usize,
    acc_valid: usize,
    acc_pc: usize,
    acc_wid: usize,
    acc_addr: usize,
    useful: usize,
    early: usize,
    merge_ev: usize,
    request: usize,
    ready: usize,
    pf_valid: usize,
    src: usize,
    drop: usize,
    count: usize,
    addrs: usize,
    promote: usize,
    degree: usize,
    update: usize,
    merge: usize,
}

impl PfCodec {
    pub fn new(spec: &spec::PrefetchSpec) -> Result<PfCodec, CodecError> {
        let ports = spec.ports();
        let mut n = PortNames::new("mt-hwp", &ports);
        let c = PfCodec {
            launch: n.index("launch_i"),
            acc_valid: n.index("acc_valid_i"),
            acc_pc: n.index("acc_pc_i"),
            acc_wid: n.index("acc_wid_i"),
            acc_addr: n.index("acc_addr_i"),
            useful: n.index("ev_useful_i"),
            early: n.index("ev_early_i"),
            merge_ev: n.index("ev_merge_i"),
            request: n.index("ev_request_i"),
            ready: n.index("acc_ready_o"),
            pf_valid: n.index("pf_valid_o"),
            src: n.index("pf_src_o"),
            drop: n.index("pf_drop_o"),
            count: n.index("pf_count_o"),
            addrs: n.index("pf_addr_o"),
            promote: n.index("pf_promote_o"),
            degree: n.index("thr_degree_o"),
            update: n.index("thr_update_o"),
            merge: n.index("thr_merge_o"),
            ports: Vec::new(),
        };
        n.finish()?;
        Ok(PfCodec { ports, ..c })
    }
}

impl Codec for PfCodec {
    type In = PfIn;
    type Out = PfOut;

    fn ports(&self) -> &[PortSpec] {
        &self.ports
    }

    fn encode_in(&self, inp: &PfIn, f: &mut Frame) {
        f.clear();
        f.set(self.launch, inp.launch.into());
        if let Some(a) = &inp.acc {
            f.set(self.acc_valid, 1);
            f.set(self.acc_pc, a.pc);
            f.set(self.acc_wid, a.wid.into());
            f.set(self.acc_addr, a.addr);
        }
        f.set(self.useful, inp.useful.into());
        f.set(self.early, inp.early.into());
        f.set(self.merge_ev, inp.merge.into());
        f.set(self.request, inp.request.into());
    }

    fn encode_out(&self, o: &PfOut, f: &mut Frame) {
        f.clear();
        f.set(self.ready, o.acc_ready.into());
        f.set(self.pf_valid, o.pf_valid.into());
        f.set(self.src, o.src.code().into());
        f.set(self.drop, o.drop.into());
        f.set(self.count, o.count.into());
        for (k, a) in o.prefetches().iter().enumerate() {
            f.set_elem(self.addrs, k as u32, *a);
        }
        f.set(self.promote, o.promote.into());
        f.set(self.degree, o.degree.into());
        f.set(self.update, o.update.into());
        f.set(self.merge, o.merge);
    }
}

/// The MT-HWP engine as the co-simulation sees it.
pub struct PfBlock;

impl BlockModel for PfBlock {
    type Model = MtHwp;
    type Codec = PfCodec;
    fn model(spec: &spec::Spec) -> MtHwp {
        MtHwp::new(&spec.prefetch)
    }
    fn codec(spec: &spec::Spec) -> Result<PfCodec, CodecError> {
        PfCodec::new(&spec.prefetch)
    }
}
