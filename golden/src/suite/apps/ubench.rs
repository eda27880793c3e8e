//! The calibration microbenchmarks (suite `ubench`, issue 39): warpsmith's own CUDA sources
//! (`golden/cuda/ubench/`), a pointer chase for the load-to-use latency of each level and
//! coalesced streams for the bandwidth of each level, as Accel-Sim's tuner measures a GPU.
//! `scripts/ubench.py` runs them on a preset and turns their cycles into latencies and
//! bandwidths (decision WL-7).

use super::microgpusim::{launch, Fixed, Setup, Verify};
use super::{fault, Listing};
use crate::suite::{App, Args, Param, SuiteError, Workload};

pub(super) static CHASE_SASS: Listing = Listing::new(
    "ubench-chase.sass",
    include_str!("../../../sass/ubench-chase.sass"),
);
pub(super) static BW_SASS: Listing = Listing::new(
    "ubench-bw.sass",
    include_str!("../../../sass/ubench-bw.sass"),
);

/// The largest footprint either benchmark takes (bytes): 256 MiB, far beyond any L2.
const MAX_FOOTPRINT: u64 = 1 << 28;

// ---- ubench-chase ----------------------------------------------------------------------------

pub(super) const CHASE: Workload = Workload {
    name: "ubench-chase",
    suite: "ubench",
    source: "warpsmith golden/cuda/ubench/chase.cu (chase_ca, chase_cg)",
    args: &[
        (
            "cache",
            "ca",
            "ca: ordinary loads, cached in the L1; cg: __ldcg, L2 only",
        ),
        ("footprint", "8192", "bytes the ring of indices spans"),
        (
            "stride",
            "128",
            "bytes between consecutive elements of the ring (a multiple of 4 dividing footprint)",
        ),
        ("warm", "1", "laps of the ring chased first (warm-up)"),
        ("steps", "256", "steps chased after the warm-up"),
    ],
    input: "a[i] = (i + stride/4) mod footprint/4: a ring through every stride-th word; one \
            thread chases it from index 0",
    small: "footprint=2048,steps=32",
    make: chase,
};

/// The chase's arguments, checked.
struct ChaseArgs {
    cache_global: bool,
    /// Words in the array.
    words: u64,
    /// Words between consecutive elements of the ring.
    step: u64,
    /// Steps in all: the warm-up laps and the measured steps.
    total: u64,
}

fn chase_args(args: &Args) -> Result<ChaseArgs, SuiteError> {
    let cache_global = args.choice("cache", &["ca", "cg"])? == "cg";
    let footprint = args.int("footprint", 8192, 4, MAX_FOOTPRINT)?;
    let stride = args.int("stride", 128, 4, MAX_FOOTPRINT)?;
    args.multiple_of("stride", stride, 4, "the ring holds 4-byte indices")?;
    args.multiple_of("footprint", footprint, stride, "the ring closes on itself")?;
    let warm = args.int("warm", 1, 0, 64)?;
    let steps = args.int("steps", 256, 1, 1 << 24)?;
    let lap = footprint / stride;
    let total = warm * lap + steps;
    if total > u64::from(u32::MAX) {
        return Err(args.err("steps", format!("{total} steps in all exceed 2^32 - 1")));
    }
    Ok(ChaseArgs {
        cache_global,
        words: footprint / 4,
        step: stride / 4,
        total,
    })
}

/// The ring's element `i` (a word index): where the chase goes from `i`.
fn ring_next(i: u64, step: u64, words: u64) -> u64 {
    (i + step) % words
}

fn chase(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let c = chase_args(args)?;
    let kernel = CHASE_SASS.kernel(if c.cache_global {
        "chase_cg"
    } else {
        "chase_ca"
    })?;
    // (Every word the ring passes through is a multiple of `step`: the chase after `total`
    // steps stands at (total * step) mod words.)
    let want = (u128::from(c.total) * u128::from(c.step) % u128::from(c.words)) as u64;
    let (words, step, total) = (c.words, c.step, c.total);
    let setup: Setup = Box::new(move |mem| {
        let ring: Vec<u32> = (0..words)
            .map(|i| u32::try_from(ring_next(i, step, words)).map_err(fault))
            .collect::<Result<_, _>>()?;
        let d = vec![mem.alloc(words * 4), mem.alloc(4)];
        mem.write_u32(d[0], &ring).map_err(fault)?;
        let params = vec![
            Param::Ptr(d[0]),
            Param::U32(0),
            Param::U32(u32::try_from(total).map_err(fault)?),
            Param::Ptr(d[1]),
        ];
        Ok((d, vec![launch(&kernel, [1, 1, 1], [1, 1, 1], params)]))
    });
    let verify: Verify = Box::new(move |mem, d| {
        let got = mem.read_u32(d[1], 1).map_err(fault)?[0];
        if u64::from(got) != want {
            return Err(format!(
                "the chase ends at index {got}, the ring after {total} steps at {want}"
            ));
        }
        Ok(())
    });
    Ok(Fixed::boxed(setup, verify))
}

// ---- ubench-bw -------------------------------------------------------------------------------

pub(super) const BW: Workload = Workload {
    name: "ubench-bw",
    suite: "ubench",
    source: "warpsmith golden/cuda/ubench/bw.cu (bw_block, bw_grid_cg, bw_grid, copy)",
    args: &[
        (
            "level",
            "l1",
            "l1: every block reads the same footprint (bw_block); l2: the grid reads it once \
             between its threads with __ldcg (bw_grid_cg); dram: the same with ordinary loads \
             (bw_grid); copy: b[i] = a[i] over the footprint (copy, launched reps times)",
        ),
        (
            "footprint",
            "8192",
            "bytes read (copy: read, and as many written); a multiple of 16 x threads \
             (l2, dram, copy: x blocks)",
        ),
        ("reps", "2", "passes over the footprint (copy: launches)"),
        ("blocks", "16", "thread blocks"),
        ("threads", "256", "threads per block, a multiple of 32"),
    ],
    input: "the footprint's words w[k] = k * 2654435761 + seed (wrapping), 16 bytes a thread \
            per load",
    small: "footprint=4096,reps=1,blocks=2,threads=64",
    make: bw,
};

/// The level a bandwidth run streams from: its kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    L1,
    L2,
    Dram,
    Copy,
}

fn bw(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let level = match args.choice("level", &["l1", "l2", "dram", "copy"])? {
        "l2" => Level::L2,
        "dram" => Level::Dram,
        "copy" => Level::Copy,
        _ => Level::L1,
    };
    let footprint = args.int("footprint", 8192, 16, MAX_FOOTPRINT)?;
    let reps = args.int("reps", 2, 1, 1 << 16)?;
    let blocks = args.int("blocks", 16, 1, 1 << 16)?;
    let threads = args.int("threads", 256, 32, 1024)?;
    args.multiple_of("threads", threads, 32, "whole warps")?;
    // Every thread runs the same number of iterations: no partial pass, no divergence.
    let per_pass = if level == Level::L1 {
        threads
    } else {
        threads * blocks
    };
    args.multiple_of(
        "footprint",
        footprint,
        16 * per_pass,
        "16 bytes a thread in every pass",
    )?;
    let n = footprint / 16;
    let words = footprint / 4;
    let data: Vec<u32> = (0..words).map(|k| word(k, seed)).collect();
    let kernel = BW_SASS.kernel(match level {
        Level::L1 => "bw_block",
        Level::L2 => "bw_grid_cg",
        Level::Dram => "bw_grid",
        Level::Copy => "copy",
    })?;
    let (blocks32, threads32) = (
        u32::try_from(blocks).map_err(|e| args.err("blocks", e.to_string()))?,
        u32::try_from(threads).map_err(|e| args.err("threads", e.to_string()))?,
    );
    let n32 = u32::try_from(n).map_err(|e| args.err("footprint", e.to_string()))?;
    let reps32 = u32::try_from(reps).map_err(|e| args.err("reps", e.to_string()))?;
    let want = if level == Level::Copy {
        data.clone()
    } else {
        sums(&data, level, blocks, threads, reps)
    };
    let setup: Setup = Box::new(move |mem| {
        let a = mem.alloc(footprint);
        mem.write_u32(a, &data).map_err(fault)?;
        let out_bytes = if level == Level::Copy {
            footprint
        } else {
            4 * blocks * threads
        };
        let out = mem.alloc(out_bytes);
        let (grid, block) = ([blocks32, 1, 1], [threads32, 1, 1]);
        let launches = if level == Level::Copy {
            let params = vec![Param::Ptr(a), Param::Ptr(out), Param::U32(n32)];
            (0..reps)
                .map(|_| launch(&kernel, grid, block, params.clone()))
                .collect()
        } else {
            let params = vec![
                Param::Ptr(a),
                Param::U32(n32),
                Param::U32(reps32),
                Param::Ptr(out),
            ];
            vec![launch(&kernel, grid, block, params)]
        };
        Ok((vec![a, out], launches))
    });
    let verify: Verify = Box::new(move |mem, d| {
        let got = mem.read_u32(d[1], want.len()).map_err(fault)?;
        match got.iter().zip(&want).position(|(g, w)| g != w) {
            None => Ok(()),
            Some(i) => Err(format!(
                "out[{i}] = {}, the host computes {}",
                got[i], want[i]
            )),
        }
    });
    Ok(Fixed::boxed(setup, verify))
}

/// Word `k` of the footprint (the low 32 bits of the product and sum, by design).
fn word(k: u64, seed: u64) -> u32 {
    (k.wrapping_mul(2_654_435_761).wrapping_add(seed) & 0xffff_ffff) as u32
}

/// Each thread's wrapping sum of the words of the 16-byte elements it reads, in the order of
/// `out` (block by block): every block reads elements `tid, tid + threads, ...` (L1), or the
/// grid's thread `t` reads `t, t + blocks x threads, ...` (L2, DRAM); `reps` passes.
fn sums(data: &[u32], level: Level, blocks: u64, threads: u64, reps: u64) -> Vec<u32> {
    let n = data.len() as u64 / 4;
    let elem = |i: u64| -> u32 {
        let at = 4 * i as usize;
        data[at..at + 4]
            .iter()
            .fold(0u32, |s, w| s.wrapping_add(*w))
    };
    (0..blocks * threads)
        .map(|t| {
            let (first, gap) = match level {
                Level::L1 => (t % threads, threads),
                _ => (t, blocks * threads),
            };
            let pass = (first..n)
                .step_by(gap as usize)
                .fold(0u32, |s, i| s.wrapping_add(elem(i)));
            (0..reps).fold(0u32, |s, _| s.wrapping_add(pass))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ring of 4 words, one a stride: 0 -> 1 -> 2 -> 3 -> 0 -> 1. A stride of 12 bytes in a
    /// footprint of 32 does not close the ring: refused.
    #[test]
    fn the_ring_steps_by_the_stride_and_closes() {
        let step = 1;
        let words = 4;
        let walk: Vec<u64> = (0..5)
            .scan(0, |j, _| {
                *j = ring_next(*j, step, words);
                Some(*j)
            })
            .collect();
        assert_eq!(walk, vec![1, 2, 3, 0, 1]);
        // 32 words, 8 a stride (32 bytes): 0 -> 8 -> 16 -> 24 -> 0.
        assert_eq!(ring_next(24, 8, 32), 0);
        let refused = Args::parse("ubench-chase", "footprint=32,stride=12", &CHASE.keys()).unwrap();
        assert!(chase_args(&refused).is_err());
    }

    /// Two blocks of 32 threads over 128 elements (2,048 bytes) whose words are all 1, so an
    /// element sums to 4: at level l1 thread 1 of either block (out[1], out[33]) reads
    /// elements 1, 33, 65, 97 (16 a pass); at level l2 the grid's thread 1 reads 1 and 65,
    /// thread 33 reads 33 and 97 (8 a pass, 24 in 3 passes).
    #[test]
    fn each_thread_sums_the_elements_it_reads() {
        let data = vec![1u32; 4 * 128];
        let l1 = sums(&data, Level::L1, 2, 32, 1);
        assert_eq!((l1[1], l1[33], l1.len()), (16, 16, 64));
        let l2 = sums(&data, Level::L2, 2, 32, 3);
        assert_eq!((l2[1], l2[33]), (24, 24));
    }

    /// The chase's default ends where the ring puts it: one lap (64 steps of 32 words in
    /// 2,048) and 256 steps: 320 x 32 mod 2048 = 0; with 255 steps, 319 x 32 mod 2048 =
    /// 2016. A wrong final index is refused.
    #[test]
    fn the_chase_is_verified_by_its_final_index() {
        for (spec, ok) in [("", true), ("steps=255", true)] {
            let (w, mut app) = crate::suite::make(&format!("ubench-chase:{spec}"), 1).unwrap();
            let r = crate::suite::emulate(w.name, app.as_mut(), |_, _| {});
            assert_eq!(r.is_ok(), ok, "{spec}: {r:?}");
        }
        let mut mem = crate::suite::mem::DeviceMemory::default();
        let (_, mut app) = crate::suite::make("ubench-chase:steps=255", 1).unwrap();
        app.next(&mut mem).unwrap().unwrap();
        // The result word: the second allocation, after the ring's 8,192 bytes. Written wrong.
        let out = crate::suite::mem::HEAP_BASE + 8192;
        mem.write(out, &2015u32.to_le_bytes()).unwrap();
        let e = app.verify(&mem).unwrap_err();
        assert!(e.contains("at 2016"), "{e}");
    }

    /// The bandwidth run at each level computes its sums (or its copy), verified; without its
    /// kernels run, the result array is zero and the check names its first element.
    #[test]
    fn the_streams_are_verified_by_their_sums() {
        for level in ["l1", "l2", "dram", "copy"] {
            let spec = format!("ubench-bw:level={level},footprint=8192,blocks=2,threads=64");
            let (w, mut app) = crate::suite::make(&spec, 5).unwrap();
            crate::suite::emulate(w.name, app.as_mut(), |_, _| {})
                .unwrap_or_else(|e| panic!("{spec}: {e}"));
            let (_, mut app) = crate::suite::make(&spec, 5).unwrap();
            let mut mem = crate::suite::mem::DeviceMemory::default();
            app.next(&mut mem).unwrap().unwrap();
            let e = app.verify(&mem).unwrap_err();
            assert!(e.starts_with("out[0] = 0"), "{spec}: {e}");
        }
    }
}
