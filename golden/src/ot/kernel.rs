//! The observation-table adapter: a kernel's schedule as OT transactions.

use super::OtTxn;
use crate::block::mask;
use crate::workload::{load_label, schedule, validate, KernelDesc, WarpLoad, WorkloadError};
use spec::{OtSpec, Spec};

/// Check that a (valid) kernel fits the observation table's fields: every grid dimension in
/// `2^ot.tb_bits` blocks, no blocks along a dimension `>= ot.grid_dims`, at most
/// `2^ot.warp_bits` warps per block, and every PC in `ot.pc_bits` bits.
pub fn check_ot_fit(k: &KernelDesc, spec: &Spec) -> Result<(), WorkloadError> {
    let ot = &spec.ot;
    let limit = |what: String, value: String, key: &'static str, setting: u32, legal: String| {
        WorkloadError::Limit {
            kernel: k.name.clone(),
            what,
            value,
            key,
            setting,
            legal,
        }
    };
    for (d, axis) in ["x", "y", "z"].iter().enumerate() {
        let g = u64::from(k.grid[d]);
        if d >= ot.grid_dims as usize && g > 1 {
            return Err(limit(
                format!("grid[{d}] ({axis})"),
                g.to_string(),
                "ot.grid_dims",
                ot.grid_dims,
                format!(
                    "only the first {} grid dimension(s); grid[{d}] must be 1",
                    ot.grid_dims
                ),
            ));
        }
        if g > mask(ot.tb_bits) + 1 {
            return Err(limit(
                format!("grid[{d}] ({axis})"),
                g.to_string(),
                "ot.tb_bits",
                ot.tb_bits,
                format!("at most {} blocks per dimension", mask(ot.tb_bits) + 1),
            ));
        }
    }
    let warps = u64::from(k.warps_per_block(spec.gpu.warp_size));
    if warps > mask(ot.warp_bits) + 1 {
        return Err(limit(
            format!(
                "warps per block ({} threads / gpu.warp_size {})",
                k.threads_per_block(),
                spec.gpu.warp_size
            ),
            warps.to_string(),
            "ot.warp_bits",
            ot.warp_bits,
            format!("at most {} warps per block", mask(ot.warp_bits) + 1),
        ));
    }
    for (i, l) in k.loads.iter().enumerate() {
        if l.pc > mask(ot.pc_bits) {
            return Err(limit(
                format!("the pc of {}", load_label(i, l)),
                format!("{:#x}", l.pc),
                "ot.pc_bits",
                ot.pc_bits,
                format!("PCs up to {:#x}", mask(ot.pc_bits)),
            ));
        }
    }
    Ok(())
}

/// The OT transactions of one warp load: a prediction query for the warp, then one observation
/// per line request.
fn warp_txns(w: &WarpLoad, ot: &OtSpec) -> impl Iterator<Item = OtTxn> {
    let lec = u64::from(w.lec & ot.lec_mask());
    let addr_mask = mask(ot.addr_bits);
    let (pc, tb, warp) = (w.pc, super::txn::tb_of(w.tb), u64::from(w.warp));
    let predict = OtTxn::Predict {
        pc,
        lec,
        tb: tb.clone(),
        warp,
    };
    let observes: Vec<OtTxn> = w
        .lines
        .iter()
        .map(|&line| OtTxn::Observe {
            pc,
            lec,
            tb: tb.clone(),
            warp,
            addr: line & addr_mask,
        })
        .collect();
    std::iter::once(predict).chain(observes)
}

/// A kernel run as observation-table stimulus: first `Launch { grid, block }`, then for every
/// [`WarpLoad`] of [`schedule`] (same seed, same order) a `Predict` for its (pc, lec, tb, warp)
/// followed by one `Observe` per line request. (Packed into cycles, the query shares a cycle with
/// the warp's first observation and sees the table before it.)
///
/// Two fields are narrowed the way the hardware narrows them:
/// * the **LEC wraps modulo `2^ot.lec_bits`**: the per-warp load execution counter is an
///   `lec_bits`-wide hardware counter, so iteration `2^lec_bits` of a loop shares its LEC (and
///   its table entry) with iteration 0 (and without `ot.lec`, every load has LEC 0);
/// * **addresses are reduced modulo `2^ot.addr_bits`**: the predictor snoops and stores only the
///   low `addr_bits` bits of each line address.
///
/// Errors if the kernel is invalid or does not fit the table's fields ([`check_ot_fit`]).
pub fn ot_stimulus(
    k: &KernelDesc,
    spec: &Spec,
    seed: u64,
) -> Result<impl Iterator<Item = OtTxn>, WorkloadError> {
    validate(k)?;
    check_ot_fit(k, spec)?;
    let sched = schedule(k, &spec.gpu, seed)?;
    let launch = OtTxn::Launch {
        grid: k.grid.map(u64::from).to_vec(),
        block: k.block.map(u64::from).to_vec(),
    };
    let ot = spec.ot.clone();
    Ok(std::iter::once(launch).chain(sched.flat_map(move |w| warp_txns(&w, &ot))))
}

#[cfg(test)]
#[path = "kernel_tests.rs"]
mod tests;
