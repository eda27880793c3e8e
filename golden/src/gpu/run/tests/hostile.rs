//! Addresses anywhere in the 64-bit space, and hostile kernels.

use super::*;

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Loads and stores anywhere in the 64-bit address space pass every level (coalescer,
    /// L1 and its MSHRs, the request crossbar, an L2 slice and its MSHR index, the partition's
    /// queues, the DRAM's address decode and controller) and back: every instruction issues,
    /// every request is answered once, on every preset, whatever the dispatch and the L1's
    /// write policy.
    #[test]
    fn every_request_completes_anywhere_in_the_64_bit_address_space(
        seed in 0u64..1 << 32,
        blocks in 1u32..6,
        preset_pick in 0usize..3,
    ) {
        let s = preset(spec::PRESETS[preset_pick].name);
        let dir = tempfile::tempdir().unwrap();
        let (total, memory) = far_trace(dir.path(), seed, blocks);
        let mut o = RunOptions { check_bounds: true, ..RunOptions::default() };
        let a = run_with(&s, Workload::Trace(dir.path()), &mut o).unwrap();
        proptest::prop_assert_eq!(a.instructions, total);
        proptest::prop_assert_eq!(a.requests, a.replies);
        proptest::prop_assert_eq!(a.requests > 0, memory > 0);
    }
}

/// A built-in kernel with one of its values changed to a hostile one: a grid, block, loop,
/// arithmetic count, array base, element size, length or pitch, a load's PC, index
/// coefficient or flags, at the edges of their types and beyond what is legal.
fn hostile_kernel(pick: usize, field: usize, at: usize, value: u64) -> KernelDesc {
    let mut k = crate::workload::builtin(crate::workload::BUILTIN[pick]).unwrap();
    let u32s = [
        0,
        1,
        2,
        31,
        32,
        33,
        1024,
        1025,
        65535,
        65536,
        1 << 31,
        u32::MAX,
    ];
    let u64s = [
        0,
        1,
        3,
        4096,
        1 << 32,
        1 << 53,
        1 << 63,
        u64::MAX - 15,
        u64::MAX,
    ];
    let i64s = [0, 1, -1, 1 << 20, i64::MAX, i64::MIN];
    let v32 = u32s[value as usize % u32s.len()];
    let v64 = u64s[value as usize % u64s.len()];
    let vi = i64s[value as usize % i64s.len()];
    let a = at % k.arrays.len();
    let l = at % k.loads.len();
    match field {
        0 => k.grid[at % 3] = v32,
        1 => k.block[at % 3] = v32,
        2 => k.loop_trips = v32,
        3 => k.compute = v32,
        4 => k.arrays[a].base = v64,
        5 => k.arrays[a].elem_bytes = v32,
        6 => k.arrays[a].len = v64,
        7 => k.arrays[a].row_pitch = v64,
        8 => k.loads[l].pc = k.loads[(l + 1) % k.loads.len()].pc,
        9 => k.loads[l].index.bx = vi,
        10 => k.loads[l].index.tx = vi,
        11 => k.loads[l].index.it = vi,
        12 => k.loads[l].in_loop = !k.loads[l].in_loop,
        _ => k.loads[l].irregular = !k.loads[l].irregular,
    }
    k
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// A kernel with a hostile value is refused by validation with the field named, or runs:
    /// to its end or to the run's cycle bound, never to a panic, a stall or an internal error.
    #[test]
    fn a_hostile_kernel_is_refused_naming_its_field_or_runs_to_an_end(
        pick in 0usize..5,
        field in 0usize..14,
        at in 0usize..8,
        value in 0u64..64,
    ) {
        let k = hostile_kernel(pick, field, at, value);
        let s = preset("tiny");
        if let Err(e) = crate::workload::validate(&k) {
            let text = e.to_string();
            proptest::prop_assert!(text.contains(&k.name), "{}", text);
            return Ok(());
        }
        let mut o = RunOptions { max_cycles: Some(20_000), ..RunOptions::default() };
        match run_with(&s, Workload::Kernel { kernel: &k, seed: 1 }, &mut o) {
            Ok(r) => proptest::prop_assert_eq!(r.requests, r.replies),
            Err(e) => proptest::prop_assert!(!e.is_internal(), "{:?}: {}", k, e),
        }
    }
}
