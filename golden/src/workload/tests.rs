use super::*;
use proptest::prelude::*;
use spec::{ConfigRequest, GpuSpec, Spec};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

pub(crate) fn spec(preset: &str, sets: &[&str]) -> Spec {
    let mut r = ConfigRequest::preset(preset);
    for s in sets {
        r = r.with(s);
    }
    r.resolve().unwrap()
}

pub(crate) fn gpu(
    sms: u32,
    warps_per_sm: u32,
    ctas_per_sm: u32,
    warp_size: u32,
    line_bytes: u32,
) -> GpuSpec {
    GpuSpec {
        sms,
        warps_per_sm,
        ctas_per_sm,
        warp_size,
        line_bytes,
        line_bits: line_bytes.trailing_zeros(),
        ..fermi()
    }
}

pub(crate) fn fermi() -> GpuSpec {
    spec("fermi-gtx480", &[]).gpu.clone()
}

/// A one-array, one-load kernel.
pub(crate) fn simple(
    grid: [u32; 3],
    block: [u32; 3],
    elem_bytes: u32,
    index: Affine,
) -> KernelDesc {
    KernelDesc {
        name: "simple".into(),
        grid,
        block,
        loop_trips: 1,
        compute: 0,
        arrays: vec![ArrayDesc {
            name: "a".into(),
            base: 0x1000,
            elem_bytes,
            row_pitch: 0,
            len: 0,
        }],
        loads: vec![LoadDesc {
            pc: 0x40,
            array: "a".into(),
            index,
            in_loop: false,
            irregular: false,
        }],
    }
}

pub(crate) fn tx(coef: i64) -> Affine {
    Affine {
        tx: coef,
        ..Affine::default()
    }
}

/// (block, warp) -> its line requests, for a one-load kernel.
fn lines_by_warp(k: &KernelDesc, g: &GpuSpec) -> HashMap<(u32, u32), Vec<u64>> {
    schedule(k, g, 1)
        .unwrap()
        .map(|w| ((w.block_linear, w.warp), w.lines))
        .collect()
}

#[test]
fn unit_stride_float_warp_is_one_line() {
    let k = simple([1, 1, 1], [32, 1, 1], 4, tx(1));
    let l = lines_by_warp(&k, &fermi());
    assert_eq!(l.len(), 1);
    assert_eq!(l[&(0, 0)], vec![0x1000]);
}

#[test]
fn stride_two_float_warp_is_two_lines() {
    let k = simple([1, 1, 1], [32, 1, 1], 4, tx(2));
    assert_eq!(lines_by_warp(&k, &fermi())[&(0, 0)], vec![0x1000, 0x1080]);
    // A misaligned window: 32 floats starting 64 bytes into a line touch two lines.
    let k = simple(
        [1, 1, 1],
        [32, 1, 1],
        4,
        Affine {
            c: 16,
            tx: 1,
            ..Affine::default()
        },
    );
    assert_eq!(lines_by_warp(&k, &fermi())[&(0, 0)], vec![0x1000, 0x1080]);
}

#[test]
fn partial_last_warp_requests_only_its_active_threads() {
    // 40 threads of 16-byte elements: warp 0 covers 512 bytes (4 lines), warp 1 only threads
    // 32..40, i.e. bytes 512..640 (one line).
    let k = simple([1, 1, 1], [40, 1, 1], 16, tx(1));
    assert_eq!(k.warps_per_block(32), 2);
    let l = lines_by_warp(&k, &fermi());
    assert_eq!(l[&(0, 0)], vec![0x1000, 0x1080, 0x1100, 0x1180]);
    assert_eq!(l[&(0, 1)], vec![0x1200]);
}

#[test]
fn thread_ids_follow_cuda_linearisation() {
    // Block (4, 2, 2): linear tid = tx + 4*ty + 8*tz. Index = tid via (tx, ty, tz) coefficients.
    let idx = Affine {
        tx: 1,
        ty: 4,
        tz: 8,
        ..Affine::default()
    };
    let k = simple([1, 1, 1], [4, 2, 2], 16, idx);
    // Warps of 4 threads on 64-byte lines: warp w covers exactly line w.
    let l = lines_by_warp(&k, &gpu(1, 8, 1, 4, 64));
    for w in 0..4u32 {
        assert_eq!(l[&(0, w)], vec![0x1000 + 64 * u64::from(w)], "warp {w}");
    }
    assert_eq!(k.thread_id(13), [1, 1, 1]);
    let k3 = KernelDesc {
        grid: [3, 4, 5],
        ..k
    };
    assert_eq!(k3.block_id(3 + 2 * 3 + 4 * 12), [0, 3, 4]);
    assert_eq!(k3.block_linear([0, 3, 4]), 57);
}

#[test]
fn cp_addresses_follow_the_derived_strides() {
    let k = builtin("cp").unwrap();
    let loads: Vec<WarpLoad> = schedule(&k, &fermi(), 7).unwrap().collect();
    assert_eq!(
        loads.len(),
        8 * 32 * 4 * 2,
        "256 blocks x 4 warps x 2 loads"
    );
    let by_key: HashMap<(u64, [u32; 3], u32), Vec<u64>> = loads
        .iter()
        .map(|w| ((w.pc, w.tb, w.warp), w.lines.clone()))
        .collect();
    let shifted = |v: &[u64], d: i64| v.iter().map(|&a| (a as i64 + d) as u64).collect::<Vec<_>>();
    // In bytes: stride_x = 128 floats, stride_y = 8192 floats, inter-warp = 2 rows of 1024.
    let (stride_x, stride_y, iws) = (128 * 4, 8192 * 4, 2 * 1024 * 4);
    let mut checked = 0;
    for (&(pc, tb, warp), lines) in &by_key {
        assert_eq!(lines.len(), 2, "two rows of 16 floats per warp");
        assert_eq!(lines[1] - lines[0], 1024 * 4);
        if let Some(next) = by_key.get(&(pc, [tb[0] + 1, tb[1], 0], warp)) {
            assert_eq!(*next, shifted(lines, stride_x));
            checked += 1;
        }
        if let Some(next) = by_key.get(&(pc, [tb[0], tb[1] + 1, 0], warp)) {
            assert_eq!(*next, shifted(lines, stride_y));
            checked += 1;
        }
        if let Some(next) = by_key.get(&(pc, tb, warp + 1)) {
            assert_eq!(*next, shifted(lines, iws));
            checked += 1;
        }
    }
    assert!(checked > 4000);
    // The second load is BLOCKSIZE_X = 16 floats further along, within the same lines.
    let a = &by_key[&(0x100, [3, 5, 0], 2)];
    let b = &by_key[&(0x108, [3, 5, 0], 2)];
    assert_eq!(a, b);
    assert_eq!(a[0], 0x10_0000 + 4 * (128 * 3 + 8192 * 5 + 1024 * 4));
}

#[test]
fn lec_counts_loop_iterations() {
    let k = builtin("scalarprod").unwrap();
    let mut seen: HashMap<(u32, u32, u64), Vec<u32>> = HashMap::new();
    for w in schedule(&k, &fermi(), 3).unwrap() {
        seen.entry((w.block_linear, w.warp, w.pc))
            .or_default()
            .push(w.lec);
    }
    assert_eq!(seen.len(), 128 * 8 * 2);
    for v in seen.values() {
        assert_eq!(v, &[0, 1, 2, 3]);
    }
    // A PC before the loop and the same program shape: LECs are per PC.
    let p = builtin("irregular").unwrap().warp_program();
    let lecs: Vec<(usize, u32, u32)> = p.iter().map(|i| (i.load, i.iter, i.lec)).collect();
    assert_eq!(
        lecs,
        vec![
            (0, 0, 0),
            (1, 0, 0),
            (2, 0, 0),
            (3, 0, 0),
            (2, 1, 1),
            (3, 1, 1),
            (2, 2, 2),
            (3, 2, 2),
            (2, 3, 3),
            (3, 3, 3)
        ]
    );
}

#[test]
fn scalarprod_iterations_stride_by_accum_n() {
    let k = builtin("scalarprod").unwrap();
    let mut lines: HashMap<(u32, u32, u64, u32), Vec<u64>> = HashMap::new();
    for w in schedule(&k, &fermi(), 3).unwrap() {
        lines.insert((w.block_linear, w.warp, w.pc, w.lec), w.lines);
    }
    // Warp w of block b, iteration i: 32 consecutive floats at 4*(4096b + 32w + 1024i).
    for (&(b, w, pc, i), l) in &lines {
        let base = if pc == 0x200 { 0x20_0000 } else { 0x40_0000 };
        let addr = base + 4 * (4096 * u64::from(b) + 32 * u64::from(w) + 1024 * u64::from(i));
        assert_eq!(l, &vec![addr & !127]);
    }
}

#[test]
fn irregular_loads_stay_in_their_array_and_follow_the_seed() {
    let k = builtin("irregular").unwrap();
    let g = fermi();
    let edges = |seed| -> Vec<Vec<u64>> {
        schedule(&k, &g, seed)
            .unwrap()
            .filter(|w| w.pc == 0x410)
            .map(|w| w.lines)
            .collect()
    };
    let (a, b) = (edges(1), edges(2));
    assert_eq!(a.len(), 128 * 8 * 4);
    for l in a.iter().flatten() {
        assert!((0xb0_0000..0xb0_0000 + 4 * 131072).contains(l));
    }
    // Scattered: a warp touches many lines, and another seed gives other lines.
    let mean = a.iter().map(Vec::len).sum::<usize>() as f64 / a.len() as f64;
    assert!(mean > 20.0, "mean lines per warp {mean}");
    assert_ne!(a, b);
}

#[test]
fn dispatch_refills_the_sm_that_freed_a_slot() {
    // One CTA per SM (ctas_per_sm = 1), 2 SMs, 6 blocks: blocks 0 and 1 start on SMs 0 and 1;
    // every later block runs on the SM whose previous block finished just before.
    let k = simple([6, 1, 1], [32, 1, 1], 4, tx(1));
    let g = gpu(2, 48, 1, 32, 128);
    let mut s = schedule(&k, &g, 9).unwrap();
    assert_eq!(s.cta_limit(), 1);
    assert_eq!((s.resident(0), s.resident(1)), (vec![0], vec![1]));
    let loads: Vec<WarpLoad> = s.by_ref().collect();
    assert!(s.resident(0).is_empty() && s.resident(1).is_empty());
    let (mut first, mut last): (HashMap<u32, (u64, u32)>, HashMap<u32, u64>) = Default::default();
    for w in &loads {
        first.entry(w.block_linear).or_insert((w.cycle, w.sm));
        last.insert(w.block_linear, w.cycle);
    }
    for b in 2..6u32 {
        let (cycle, sm) = first[&b];
        // The block before it on the same SM has finished: its last load's latency elapsed.
        let prev = (0..b).rev().find(|p| first[p].1 == sm).unwrap();
        assert!(
            cycle >= last[&prev] + LATENCY_MIN,
            "block {b} starts at {cycle}, block {prev} last issued at {}",
            last[&prev]
        );
    }
    // Warp limit: 48 warps per SM and 32-warp blocks allow one CTA per SM.
    let big = simple([4, 1, 1], [1024, 1, 1], 4, tx(1));
    let s = schedule(&big, &gpu(2, 48, 8, 32, 128), 1).unwrap();
    assert_eq!(s.cta_limit(), 1);
    // ... and a block larger than the SM's warp budget still runs, one at a time.
    let s = schedule(&big, &gpu(2, 16, 8, 32, 128), 1).unwrap();
    assert_eq!(s.cta_limit(), 1);
    assert_eq!(s.count(), 4 * 32);
}

#[test]
fn schedule_is_lazy_for_large_grids() {
    // A million blocks: only resident blocks exist; taking a few loads is immediate.
    let k = simple([1 << 20, 1, 1], [256, 1, 1], 4, tx(1));
    let g = fermi();
    let mut s = schedule(&k, &g, 1).unwrap();
    let first: Vec<WarpLoad> = s.by_ref().take(1000).collect();
    assert_eq!(first.len(), 1000);
    let resident: usize = (0..g.sms).map(|sm| s.resident(sm).len()).sum();
    assert_eq!(resident, (g.sms * s.cta_limit()) as usize);
    assert!(first.iter().all(|w| w.block_linear < 200));
}

#[test]
fn one_sm_issues_one_load_per_cycle_oldest_warp_first() {
    // One SM, one block of two warps, a long program: warp 0 (oldest) issues at cycle 0, warp 1
    // at cycle 1, and the SM never issues twice in a cycle. (The full GTO rule is checked by the
    // property `warps_are_chosen_greedy_then_oldest`.)
    let mut k = simple([1, 1, 1], [64, 1, 1], 4, tx(1));
    k.loads[0].in_loop = true;
    k.loop_trips = 50;
    let loads: Vec<WarpLoad> = schedule(&k, &gpu(1, 48, 8, 32, 128), 5).unwrap().collect();
    assert_eq!(loads.len(), 100);
    assert_eq!((loads[0].warp, loads[0].cycle), (0, 0));
    assert_eq!((loads[1].warp, loads[1].cycle), (1, 1));
    let cycles: Vec<u64> = loads.iter().map(|w| w.cycle).collect();
    assert!(
        cycles.windows(2).all(|c| c[0] < c[1]),
        "one SM issues one load per cycle"
    );
}

#[test]
fn builtin_kernel_files_load_to_the_builtin_definitions() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    let mut names: Vec<String> = BUILTIN.iter().map(|n| format!("{n}.toml")).collect();
    names.sort();
    assert_eq!(files, names, "one file per built-in kernel");
    for name in BUILTIN {
        let k = builtin(name).unwrap();
        validate(&k).unwrap();
        assert_eq!(k.name, *name);
        let loaded = load_kernel_file(&dir.join(format!("{name}.toml"))).unwrap();
        assert_eq!(loaded, k, "{name}.toml differs from builtin(\"{name}\")");
        let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
        assert!(
            text.starts_with('#'),
            "{name}.toml starts with a comment header"
        );
        // Serializing and parsing back is the identity too.
        let again: KernelDesc = toml::from_str(&toml::to_string(&k).unwrap()).unwrap();
        assert_eq!(again, k);
    }
    assert!(builtin("nope").is_none());
    let dims: HashSet<usize> = BUILTIN
        .iter()
        .map(|n| builtin(n).unwrap().grid.iter().filter(|&&g| g > 1).count())
        .collect();
    assert_eq!(dims, HashSet::from([1, 2, 3]), "1-D, 2-D and 3-D grids");
}

fn err(k: &KernelDesc) -> String {
    validate(k).unwrap_err().to_string()
}

#[test]
fn validation_names_kernel_field_and_legal_values() {
    let good = builtin("cp").unwrap();
    let check = |k: KernelDesc, needles: &[&str]| {
        let m = err(&k);
        assert!(m.contains("`cp`"), "{m}");
        for n in needles {
            assert!(m.contains(n), "`{m}` lacks `{n}`");
        }
    };
    let mut k = good.clone();
    k.loads[1].array = "energy".into();
    check(k, &["loads[1] (pc 0x108)", "`energy`", "`energygrid`"]);
    let mut k = good.clone();
    k.grid[1] = 0;
    check(k, &["grid[1] (y)", "1 or more"]);
    let mut k = good.clone();
    k.block = [64, 32, 1];
    check(k, &["`block`", "2048 threads", "1024"]);
    let mut k = good.clone();
    k.block[2] = 0;
    check(k, &["block[2] (z)"]);
    let mut k = good.clone();
    k.arrays[0].elem_bytes = 3;
    check(
        k,
        &[
            "arrays[0] (energygrid).elem_bytes",
            "= 3",
            "1, 2, 4, 8 or 16",
        ],
    );
    let mut k = good.clone();
    k.arrays[0].base = 0x1002;
    check(
        k,
        &["arrays[0] (energygrid).base", "multiples of elem_bytes = 4"],
    );
    let mut k = good.clone();
    k.arrays[0].row_pitch = 1 << 20;
    check(k, &["row_pitch", "at most len"]);
    let mut k = good.clone();
    k.loads.clear();
    check(k, &["no loads", "[[loads]]"]);
    let mut k = good.clone();
    k.loop_trips = 0;
    check(k, &["loop_trips", "1 or more"]);
    let mut k = good.clone();
    k.loads[1].pc = 0x100;
    check(k, &["loads[1]", "loads[0]", "own PC"]);
    let mut k = good.clone();
    k.arrays.push(k.arrays[0].clone());
    check(k, &["`energygrid`", "unique"]);
    let mut k = good.clone();
    k.arrays[0].len = 0;
    k.loads[0].irregular = true;
    k.loads[0].index = Affine::default();
    check(
        k,
        &[
            "loads[0] (pc 0x100)",
            "irregular",
            "`len` = 0",
            "at least 1",
        ],
    );
    let mut k = good.clone();
    k.loads[0].irregular = true;
    check(k, &["loads[0]", "leave `index` out"]);
    let mut k = good.clone();
    k.loads[0].index.it = 4;
    check(k, &["loads[0]", "`in_loop = true`"]);
    let mut k = good.clone();
    k.loads[1].index.c = 200;
    check(k, &["loads[1]", "elements 200..=262231", "`len` = 262144"]);
    // Without a length, the index is unbounded but the address must stay >= 0.
    let mut k = good.clone();
    k.arrays[0].len = 0;
    k.loads[0].index.c = -(0x10_0000 / 4) - 1;
    check(k, &["loads[0]", "byte addresses -4..=", "0..2^64"]);
    let mut k = good.clone();
    k.arrays[0].len = 0;
    k.arrays[0].base = u64::MAX - 3;
    check(k, &["loads[0]", "0..2^64"]);
    let mut k = good;
    k.name = " ".into();
    assert!(err(&k).contains("non-empty"));
}

fn scratch_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpsmith-workload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn kernel_file_errors_name_the_file() {
    let p = scratch_file(
        "typo.toml",
        "name = \"x\"\ngrid = [1,1,1]\nblok = [1,1,1]\n",
    );
    let m = load_kernel_file(&p).unwrap_err().to_string();
    assert!(m.contains("typo.toml") && m.contains("blok"), "{m}");
    let p = scratch_file("syntax.toml", "name = \n");
    let e = load_kernel_file(&p).unwrap_err();
    assert!(matches!(e, WorkloadError::Toml { .. }));
    assert!(e.to_string().contains("syntax.toml"));
    let p = scratch_file(
        "affine.toml",
        "name = \"x\"\ngrid = [1,1,1]\nblock = [1,1,1]\narrays = []\n\
         [[loads]]\npc = 1\narray = \"a\"\nindex = { tq = 1 }\n",
    );
    let m = load_kernel_file(&p).unwrap_err().to_string();
    assert!(m.contains("tq"), "{m}");
    // Parsed fine, then rejected by validation.
    let p = scratch_file(
        "invalid.toml",
        "name = \"x\"\ngrid = [1,1,1]\nblock = [1,1,1]\narrays = []\n\
         [[loads]]\npc = 1\narray = \"a\"\n",
    );
    let m = load_kernel_file(&p).unwrap_err().to_string();
    assert!(m.contains("`a`") && m.contains("none"), "{m}");
    let e = load_kernel_file(&p.with_file_name("missing.toml")).unwrap_err();
    assert!(matches!(e, WorkloadError::Io { .. }));
    assert!(e.to_string().contains("missing.toml"));
}

// ---------------------------------------------------------------------------------------------
// Properties over random small kernels and GPU shapes.

pub(crate) fn arb_gpu() -> impl Strategy<Value = GpuSpec> {
    (
        1u32..=4,
        1u32..=8,
        1u32..=4,
        prop::sample::select(vec![4u32, 8, 16, 32]),
        prop::sample::select(vec![16u32, 32, 64, 128]),
    )
        .prop_map(|(sms, w, c, ws, lb)| gpu(sms, w, c, ws, lb))
}

pub(crate) fn arb_load() -> impl Strategy<Value = (bool, bool, usize, [i64; 8])> {
    (
        any::<bool>(),
        prop::bool::weighted(0.15),
        0usize..2,
        prop::array::uniform8(-3i64..=3),
    )
}

pub(crate) fn arb_kernel() -> impl Strategy<Value = KernelDesc> {
    (
        prop::array::uniform3(1u32..=3),
        (1u32..=40, 1u32..=3, 1u32..=2),
        1u32..=3,
        prop::sample::select(vec![1u32, 2, 4, 8, 16]),
        prop::collection::vec(arb_load(), 1..=3),
    )
        .prop_map(|(grid, (bx, by, bz), trips, eb, loads)| KernelDesc {
            name: "random".into(),
            grid,
            block: [bx, by, bz],
            loop_trips: trips,
            compute: 0,
            arrays: vec![
                ArrayDesc {
                    name: "a".into(),
                    base: 0x1_0000,
                    elem_bytes: eb,
                    row_pitch: 0,
                    len: 0,
                },
                ArrayDesc {
                    name: "b".into(),
                    base: 0x8_0000,
                    elem_bytes: 8,
                    row_pitch: 64,
                    len: 4096,
                },
            ],
            loads: loads
                .into_iter()
                .enumerate()
                .map(|(i, (in_loop, irregular, arr, c))| LoadDesc {
                    pc: 0x100 + 8 * i as u64,
                    // Irregular loads need a length: array `b`.
                    array: (if irregular { "b" } else { ["a", "b"][arr] }).into(),
                    // |index - 200| <= 3*(2*3 + 39 + 2 + 1 + 2) < 200: always in 0..4096.
                    index: if irregular {
                        Affine::default()
                    } else {
                        Affine {
                            c: 200 + c[0],
                            bx: c[1],
                            by: c[2],
                            bz: c[3],
                            tx: c[4],
                            ty: c[5],
                            tz: c[6],
                            it: if in_loop { c[7] } else { 0 },
                        }
                    },
                    in_loop,
                    irregular,
                })
                .collect(),
        })
}

/// The line requests of one warp load, computed independently from the kernel: every thread
/// (tx, ty, tz) of the block whose linear id falls in the warp.
fn reference_lines(k: &KernelDesc, g: &GpuSpec, w: &WarpLoad, iter: u32) -> Option<Vec<u64>> {
    let l = k.loads.iter().find(|l| l.pc == w.pc)?;
    if l.irregular {
        return None;
    }
    let a = k.array(&l.array)?;
    let mut set = BTreeSet::new();
    for tz in 0..k.block[2] {
        for ty in 0..k.block[1] {
            for tx in 0..k.block[0] {
                let tid = tx + ty * k.block[0] + tz * k.block[0] * k.block[1];
                if tid / g.warp_size != w.warp {
                    continue;
                }
                let i = l.index.eval(w.tb, [tx, ty, tz], iter);
                let addr = i128::from(a.base) + i * i128::from(a.elem_bytes);
                set.insert((addr as u64) / u64::from(g.line_bytes) * u64::from(g.line_bytes));
            }
        }
    }
    Some(set.into_iter().collect())
}

/// The warp program listed whole, by its definition: the loads before the loop, then each
/// iteration's, a load's LEC the times its PC ran before.
fn program_listed(k: &KernelDesc) -> Vec<LoadInstance> {
    let mut runs: HashMap<u64, u32> = HashMap::new();
    let mut out = Vec::new();
    let mut push = |load: usize, iter: u32| {
        let n = runs.entry(k.loads[load].pc).or_default();
        out.push(LoadInstance {
            load,
            iter,
            lec: *n,
        });
        *n += 1;
    };
    for (i, _) in k.loads.iter().enumerate().filter(|(_, l)| !l.in_loop) {
        push(i, 0);
    }
    for iter in 0..k.loop_trips {
        for (i, _) in k.loads.iter().enumerate().filter(|(_, l)| l.in_loop) {
            push(i, iter);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The program computed step by step from its shape is the program listed whole, PCs
    /// shared between loads (before and in the loop) included.
    #[test]
    fn the_warp_program_is_its_listing(mut k in arb_kernel(), shared in any::<bool>()) {
        if shared && k.loads.len() > 1 {
            let pc = k.loads[0].pc;
            k.loads.last_mut().unwrap().pc = pc;
        }
        let p = k.warp_program();
        let listed = program_listed(&k);
        prop_assert_eq!(p.len(), listed.len() as u64);
        prop_assert_eq!(p.iter().collect::<Vec<_>>(), listed);
        prop_assert_eq!(p.get(p.len()), None);
    }

    /// Every (block, warp, load instance) is issued exactly once, in program order per warp,
    /// in (cycle, SM) order overall, with the coalesced lines of exactly its active threads.
    #[test]
    fn schedule_issues_each_warp_load_once_with_its_lines(
        k in arb_kernel(),
        g in arb_gpu(),
        seed in any::<u64>(),
    ) {
        let s = schedule(&k, &g, seed).unwrap();
        let program = k.warp_program();
        let warps = k.warps_per_block(g.warp_size);
        let loads: Vec<WarpLoad> = s.collect();
        prop_assert_eq!(loads.len() as u64, k.num_blocks() * u64::from(warps) * program.len());
        let mut seen: HashMap<(u32, u32), Vec<(u64, u32)>> = HashMap::new();
        let mut last_issue: HashMap<(u32, u32), u64> = HashMap::new();
        for pair in loads.windows(2) {
            prop_assert!((pair[0].cycle, pair[0].sm) < (pair[1].cycle, pair[1].sm));
        }
        for w in &loads {
            prop_assert!(w.sm < g.sms);
            prop_assert!(w.warp < warps);
            prop_assert_eq!(w.tb, k.block_id(w.block_linear));
            if let Some(prev) = last_issue.insert((w.block_linear, w.warp), w.cycle) {
                prop_assert!(w.cycle >= prev + LATENCY_MIN);
            }
            let step = seen.entry((w.block_linear, w.warp)).or_default();
            let inst = program.get(step.len() as u64).unwrap();
            step.push((w.pc, w.lec));
            prop_assert_eq!(w.pc, k.loads[inst.load].pc);
            prop_assert_eq!(w.lec, inst.lec);
            prop_assert!(!w.lines.is_empty());
            prop_assert!(w.lines.windows(2).all(|p| p[0] < p[1]));
            prop_assert!(w.lines.iter().all(|l| l % u64::from(g.line_bytes) == 0));
            if let Some(want) = reference_lines(&k, &g, w, inst.iter) {
                prop_assert_eq!(&w.lines, &want);
            } else {
                let a = k.array(&k.loads[inst.load].array).unwrap();
                let end = a.base + a.len * u64::from(a.elem_bytes);
                prop_assert!(w
                    .lines
                    .iter()
                    .all(|&l| l + u64::from(g.line_bytes) > a.base && l < end));
            }
        }
        prop_assert_eq!(seen.len() as u64, k.num_blocks() * u64::from(warps));
        for steps in seen.values() {
            prop_assert_eq!(steps.len() as u64, program.len());
        }
    }

    /// CTAs start round-robin over the SMs, a block runs on one SM only, and no SM ever holds
    /// more CTAs than its limit.
    #[test]
    fn dispatch_is_round_robin_and_respects_the_cta_limit(
        k in arb_kernel(),
        g in arb_gpu(),
        seed in any::<u64>(),
    ) {
        let mut s = schedule(&k, &g, seed).unwrap();
        let warps = k.warps_per_block(g.warp_size);
        let limit = g.ctas_per_sm.min(g.warps_per_sm / warps).max(1);
        prop_assert_eq!(s.cta_limit(), limit);
        let mut sm_of: HashMap<u32, u32> = HashMap::new();
        // Blocks in the order they became resident (those appearing together in id order): a
        // block's first load may come after a younger block's, so loads do not show the order.
        let mut first: Vec<u32> = Vec::new();
        let mut known: std::collections::HashSet<u32> = std::collections::HashSet::new();
        while let Some(w) = s.next() {
            let mut new: Vec<u32> = Vec::new();
            for sm in 0..g.sms {
                prop_assert!(s.resident(sm).len() as u32 <= limit);
                new.extend(s.resident(sm).into_iter().filter(|b| known.insert(*b)));
            }
            new.sort_unstable();
            first.extend(new);
            // A load is handed out while its block is still resident on the SM that issued it.
            prop_assert!(s.resident(w.sm).contains(&w.block_linear));
            if let Some(&sm) = sm_of.get(&w.block_linear) {
                prop_assert_eq!(sm, w.sm, "block {} moved", w.block_linear);
            } else {
                sm_of.insert(w.block_linear, w.sm);
            }
        }
        let initial = u64::from(g.sms * limit).min(k.num_blocks()) as u32;
        for b in 0..initial {
            prop_assert_eq!(sm_of[&b], b % g.sms, "block {} of the initial fill", b);
        }
        // Blocks start in block-id order.
        let mut sorted = first.clone();
        sorted.sort_unstable();
        prop_assert_eq!(first, sorted);
    }

    /// Each SM issues the greedy warp (the one it issued last) when that is ready, else the
    /// oldest ready warp (earliest dispatched block, then lowest warp id). Readiness is
    /// reconstructed from the outside: latencies are drawn from `Rng::new(seed)` in issue order.
    #[test]
    fn warps_are_chosen_greedy_then_oldest(
        k in arb_kernel(),
        g in arb_gpu(),
        seed in any::<u64>(),
    ) {
        let loads: Vec<WarpLoad> = schedule(&k, &g, seed).unwrap().collect();
        let plen = k.warp_program().len();
        let warps = k.warps_per_block(g.warp_size);
        let mut sm_of: HashMap<u32, u32> = HashMap::new();
        for w in &loads {
            sm_of.entry(w.block_linear).or_insert(w.sm);
        }
        let mut rng = crate::rng::Rng::new(seed);
        // (block, warp) -> (loads issued, ready from cycle); absent = never issued (ready).
        let mut st: HashMap<(u32, u32), (usize, u64)> = HashMap::new();
        let mut greedy: HashMap<u32, (u32, u32)> = HashMap::new();
        for w in &loads {
            let c = w.cycle;
            let ready = |st: &HashMap<(u32, u32), (usize, u64)>, key: (u32, u32)| {
                st.get(&key).is_none_or(|&(n, r)| (n as u64) < plen && r <= c)
            };
            let key = (w.block_linear, w.warp);
            prop_assert!(ready(&st, key), "warp {:?} issued before it was ready", key);
            match greedy.get(&w.sm) {
                Some(&gk) if ready(&st, gk) => {
                    prop_assert_eq!(key, gk, "greedy warp skipped at cycle {}", c)
                }
                _ => {
                    // No older warp on this SM may be ready.
                    for b in (0..=w.block_linear).filter(|b| sm_of.get(b) == Some(&w.sm)) {
                        for v in 0..warps {
                            if (b, v) < key {
                                prop_assert!(
                                    !ready(&st, (b, v)),
                                    "older warp {:?} was ready at cycle {} but {:?} issued",
                                    (b, v),
                                    c,
                                    key
                                );
                            }
                        }
                    }
                }
            }
            let lat = rng.range(LATENCY_MIN, LATENCY_MAX);
            let e = st.entry(key).or_insert((0, 0));
            *e = (e.0 + 1, c + lat);
            greedy.insert(w.sm, key);
        }
    }

    /// The same seed gives the same stream.
    #[test]
    fn schedules_are_deterministic_per_seed(
        k in arb_kernel(),
        g in arb_gpu(),
        seed in any::<u64>(),
    ) {
        let a: Vec<WarpLoad> = schedule(&k, &g, seed).unwrap().collect();
        let b: Vec<WarpLoad> = schedule(&k, &g, seed).unwrap().collect();
        prop_assert_eq!(a, b);
    }

}
