//! How many blocks of a kernel an SM holds at once, as GPGPU-Sim's `max_cta` (shader.cc)
//! computes it: the fewest of
//! * the SM's block slots (`gpu.ctas_per_sm`, `-gpgpu_shader_cta`);
//! * its warp slots over the block's warps (`gpu.warps_per_sm`; GPGPU-Sim divides its threads,
//!   `-gpgpu_shader_core_pipeline`, by the block's threads padded to whole warps: the same);
//! * its registers (`gpu.registers`, `-gpgpu_shader_registers`) over the block's: its threads
//!   padded to whole warps times the kernel's registers per thread rounded up to a multiple
//!   of 4;
//! * its shared memory (`gpu.shmem_bytes`, `-gpgpu_shmem_size`) over the block's (the kernel's
//!   `-shmem`), when the kernel uses any.
//!
//! Every block of a kernel needs the same, and kernels run one after another, so this count
//! bounds an SM's resident blocks exactly as tracking each resource would. A trace header's
//! registers per thread above [`MAX_REGS_PER_THREAD`] cannot be a real kernel's (the Accel-Sim
//! sample `pytorch-pow` says 21,955): such a value is not used, and the summary says so.

use super::run::GpuError;
use crate::workload::accelsim::KernelHeader;
use serde::Serialize;
use spec::GpuSpec;

/// Registers a thread can address on every NVIDIA GPU since Kepler (Fermi: 63).
pub const MAX_REGS_PER_THREAD: u32 = 255;

/// The resource that bounds a kernel's resident blocks per SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    BlockSlots,
    WarpSlots,
    Registers,
    SharedMemory,
}

impl Limit {
    pub fn name(self) -> &'static str {
        match self {
            Limit::BlockSlots => "block slots",
            Limit::WarpSlots => "warp slots",
            Limit::Registers => "registers",
            Limit::SharedMemory => "shared memory",
        }
    }
}

/// A kernel's occupancy of an SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Occupancy {
    /// Resident blocks per SM at most.
    pub blocks: u32,
    /// What bounds it (the first of block slots, warp slots, registers and shared memory that
    /// does, when several do).
    pub limit: Limit,
    /// Registers and shared-memory bytes a block takes (registers 0 when the kernel gives
    /// none or an impossible count).
    pub block_registers: u32,
    pub block_shmem: u32,
    /// The header's registers per thread, when it is above [`MAX_REGS_PER_THREAD`] and so
    /// not used.
    pub ignored_regs: Option<u32>,
}

impl Occupancy {
    /// Shared-memory bytes of an SM its blocks take at most, what sizes a unified L1's
    /// carve-out (decision GPU-32): GPGPU-Sim's `smem * max_cta`, where `max_cta` is cut to the
    /// blocks a grid of `grid_blocks` gives each of `sms` SMs when it is too small to fill them
    /// all (`max_cta`'s `num_blocks() < result * num_shader()` rule: a 512-block kernel on 80
    /// SMs takes 7 blocks' shared memory, not 25).
    pub fn shmem_per_sm(&self, grid_blocks: u64, sms: u32) -> u64 {
        let share = grid_blocks.div_ceil(u64::from(sms.max(1)));
        u64::from(self.blocks).min(share) * u64::from(self.block_shmem)
    }
}

/// The occupancy of kernel `h` on an SM of `g`; an error when one block does not fit an
/// empty SM.
pub fn occupancy(g: &GpuSpec, h: &KernelHeader) -> Result<Occupancy, GpuError> {
    let warps = h.warps();
    let padded_threads = warps * 32;
    let (regs, ignored_regs) = match h.nregs {
        r if r > MAX_REGS_PER_THREAD => (0, Some(r)),
        r => (r.next_multiple_of(4), None),
    };
    let block_registers = padded_threads.saturating_mul(regs);
    let block_shmem = h.shmem;
    let per = |have: u32, need: u32| have.checked_div(need).unwrap_or(u32::MAX);
    let bounds = [
        (g.ctas_per_sm, Limit::BlockSlots),
        (per(g.warps_per_sm, warps), Limit::WarpSlots),
        (per(g.registers, block_registers), Limit::Registers),
        (per(g.shmem_bytes, block_shmem), Limit::SharedMemory),
    ];
    let (blocks, limit) = bounds
        .into_iter()
        .fold((u32::MAX, Limit::BlockSlots), |best, b| {
            if b.0 < best.0 {
                b
            } else {
                best
            }
        });
    if blocks == 0 {
        let (what, need, have, key) = match limit {
            Limit::WarpSlots => ("warps", warps, g.warps_per_sm, "gpu.warps_per_sm"),
            Limit::Registers => ("registers", block_registers, g.registers, "gpu.registers"),
            _ => (
                "bytes of shared memory",
                block_shmem,
                g.shmem_bytes,
                "gpu.shmem_bytes",
            ),
        };
        return Err(GpuError::BlockTooLarge {
            kernel: h.name.clone(),
            what,
            need,
            have,
            key,
        });
    }
    Ok(Occupancy {
        blocks,
        limit,
        block_registers,
        block_shmem,
        ignored_regs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::ConfigRequest;

    fn gpu(sets: &[&str]) -> GpuSpec {
        let mut r = ConfigRequest::preset("turing-rtx2060s");
        for s in sets {
            r = r.with(s);
        }
        r.resolve().unwrap().gpu.clone()
    }

    fn kernel(threads: u32, nregs: u32, shmem: u32) -> KernelHeader {
        KernelHeader {
            name: "k".into(),
            block: [threads, 1, 1],
            grid: [1, 1, 1],
            nregs,
            shmem,
            ..KernelHeader::default()
        }
    }

    /// GPGPU-Sim's max_cta written out once more, on the turing preset's SM (32 block slots,
    /// 32 warps, 65,536 registers, 64 KB).
    fn reference(threads: u32, nregs: u32, shmem: u32) -> u32 {
        let padded = threads.div_ceil(32) * 32;
        let by_threads = 32 * 32 / padded;
        let by_shmem = 65536u32.checked_div(shmem).unwrap_or(u32::MAX);
        let by_regs = if nregs > 0 && nregs <= 255 {
            65536 / (padded * ((nregs + 3) & !3))
        } else {
            u32::MAX
        };
        by_threads.min(by_shmem).min(by_regs).min(32)
    }

    #[test]
    fn each_resource_bounds_the_blocks() {
        let g = gpu(&[]);
        let cases = [
            // (threads, registers per thread, shared memory): blocks, limit.
            ((32, 0, 0), (32, Limit::BlockSlots)),
            ((256, 16, 0), (4, Limit::WarpSlots)),
            // 256 threads x 64 registers = 16,384: 4 blocks, as the warps allow: slots first.
            ((256, 64, 0), (4, Limit::WarpSlots)),
            ((128, 64, 0), (8, Limit::WarpSlots)),
            ((128, 65, 0), (7, Limit::Registers)),
            // 166 registers round up to 168: 32 threads take 5,376 (LUD's kernel 8).
            ((32, 166, 3072), (12, Limit::Registers)),
            ((64, 8, 16384), (4, Limit::SharedMemory)),
            // A thread count that is not a whole number of warps is padded: 48 threads are
            // 64 in registers, 2 warps in slots.
            ((48, 128, 0), (8, Limit::Registers)),
        ];
        for ((t, r, s), (blocks, limit)) in cases {
            let o = occupancy(&g, &kernel(t, r, s)).unwrap();
            assert_eq!(
                (o.blocks, o.limit),
                (blocks, limit),
                "{t} threads, {r} regs, {s} B"
            );
            assert_eq!(o.blocks, reference(t, r, s), "{t} threads, {r} regs, {s} B");
        }
    }

    proptest::proptest! {
        #[test]
        fn it_is_gpgpusims_max_cta(
            threads in 1u32..=1024,
            nregs in 0u32..300,
            shmem in 0u32..70000,
        ) {
            let g = gpu(&[]);
            let want = reference(threads, nregs, shmem);
            match occupancy(&g, &kernel(threads, nregs, shmem)) {
                Ok(o) => proptest::prop_assert_eq!(o.blocks, want),
                Err(_) => proptest::prop_assert_eq!(want, 0),
            }
        }
    }

    #[test]
    fn the_rounding_and_the_padding_matter() {
        // Cases where leaving out either step gives another count: the check above would
        // catch a model without it.
        let g = gpu(&[]);
        let unrounded = |t: u32, r: u32| 65536 / (t.div_ceil(32) * 32 * r);
        let unpadded = |t: u32, r: u32| 65536 / (t * r.next_multiple_of(4));
        let got = occupancy(&g, &kernel(32, 101, 0)).unwrap().blocks;
        assert_eq!((got, unrounded(32, 101)), (19, 20));
        let got = occupancy(&g, &kernel(40, 200, 0)).unwrap().blocks;
        assert_eq!((got, unpadded(40, 200)), (5, 8));
    }

    #[test]
    fn an_impossible_register_count_is_not_used() {
        let g = gpu(&[]);
        // The Accel-Sim pytorch-pow sample's header: 128 threads, 21,955 registers a thread.
        let o = occupancy(&g, &kernel(128, 21955, 1)).unwrap();
        assert_eq!(o.ignored_regs, Some(21955));
        assert_eq!((o.blocks, o.limit), (8, Limit::WarpSlots));
        assert_eq!(o.block_registers, 0);
    }

    #[test]
    fn a_block_that_fits_no_sm_is_an_error_naming_the_key() {
        let g = gpu(&["gpu.registers=4096"]);
        let e = occupancy(&g, &kernel(64, 128, 0)).unwrap_err().to_string();
        assert!(
            e.contains("8192 registers") && e.contains("gpu.registers = 4096"),
            "{e}"
        );
        let e = occupancy(&g, &kernel(64, 8, 70000))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("shared memory") && e.contains("gpu.shmem_bytes"),
            "{e}"
        );
        let e = occupancy(&gpu(&[]), &kernel(2048, 8, 0))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("64 warps") && e.contains("gpu.warps_per_sm"),
            "{e}"
        );
    }
}
