use super::*;
use crate::workload::accelsim::{Inst, KernelHeader, TraceBlock};

/// Every block of `spec` emulated whole (and the results verified): (header, block) pairs.
fn blocks_of(spec: &str) -> Vec<(KernelHeader, TraceBlock)> {
    let (w, mut app) = make(spec, 1).unwrap();
    let mut out = Vec::new();
    emulate(w.name, app.as_mut(), |h, b| out.push((h.clone(), b))).unwrap();
    out
}

#[test]
fn every_listing_parses() {
    for l in apps::listings() {
        let kernels = l.kernels().unwrap();
        assert!(!kernels.is_empty());
        assert!(kernels.iter().all(|k| !k.insts.is_empty() && k.regs > 0));
    }
}

#[test]
fn vectoradd_computes_the_sum_and_touches_each_element_once() {
    // 1,500 elements: two blocks of 1,024 threads, the second partly past the end.
    let blocks = blocks_of("vectoradd:n=1500");
    assert_eq!(blocks.len(), 2);
    let (h, _) = &blocks[0];
    assert_eq!(h.grid, [2, 1, 1]);
    assert_eq!(h.block, [1024, 1, 1]);
    // Each warp of block 1 past element 1,500 exits after the bounds check; the others load
    // a and b and store c: three memory instructions of 32 (or, at the edge, 1500 - 1472 =
    // 28) lanes.
    let mut lanes_loaded = 0u32;
    for (_, b) in &blocks {
        assert_eq!(b.warps.len(), 32);
        for w in &b.warps {
            let mem: Vec<&Inst> = w.iter().filter(|i| i.mem_bytes > 0).collect();
            if mem.is_empty() {
                continue;
            }
            assert_eq!(mem.len(), 3, "two loads and a store");
            assert!(mem.iter().all(|i| i.mem_bytes == 4));
            lanes_loaded += mem[0].mask.count_ones();
            // The lanes' addresses are consecutive words.
            let a = mem[0].addrs.to_vec();
            assert!(a.windows(2).all(|p| p[1] == p[0] + 4));
        }
    }
    assert_eq!(lanes_loaded, 1500);
}

/// Every workload at its default size, and at a second size, emulated and verified.
#[test]
fn every_workload_computes_its_results() {
    let extra = [
        "vectoradd:n=3000,dtype=f64",
        "matrixmul:rows=64",
        "matrixmul:dtype=f64",
        "simple_matrixmul:m=40,n=33,p=70",
        "simple_matrixmul:dtype=f64",
        "transpose:variant=coalesced,dim=48",
        "transpose:reps=1",
        "babelstream:times=2",
        "babelstream:dtype=f64",
        "b+tree:keys=200,j=5,range=7,k=6",
        "b+tree:keys=3000,j=4,k=5",
        "sgemm:m=256,n=48,k=24",
        "spmv:rows=11948,nnz=80519,iters=2,sms=34",
        "stencil:nx=100,ny=30,nz=5,iters=3",
        "histogram:bytes=1000000,runs=1",
        "fastwalshtransform:log2data=13",
        "mergesort:n=5120",
        "sobolqrng:vectors=3000,dimensions=100,sms=2",
        "scalarprod:vectors=300,elements=100",
        "convolutionseparable:width=256,height=192,iterations=1",
        "quasirandomgenerator:n=3000,iterations=1",
        "blackscholes:options=3002,iterations=2",
        "dct8x8:width=96,height=64,dct1_runs=2,dct2_runs=2",
        "sad:width=48,height=32",
    ];
    for spec in apps::ALL.iter().map(|w| w.name).chain(extra) {
        let (w, mut app) = make(spec, 3).unwrap();
        let mut n = 0;
        emulate(w.name, app.as_mut(), |_, b| n += b.instructions())
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert!(n > 0, "{spec}");
    }
}

/// Workload `spec` written as a trace into a new folder: the folder.
fn trace_of(spec: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let mut open = |name: &str| -> std::io::Result<Box<dyn std::io::Write>> {
        Ok(Box::new(std::fs::File::create(path.join(name))?))
    };
    trace::write_trace(spec, 1, &mut open).unwrap();
    dir
}

/// A memory instruction no lane runs (backprop's shared-memory reduction steps past a warp's
/// lanes) is written as Accel-Sim's tracer writes it: its width and an empty base-and-stride
/// record. Accel-Sim stops (`assert(data_size > 0)`) on a memory opcode written without a width.
#[test]
fn a_memory_instruction_no_lane_runs_keeps_its_width_in_the_written_trace() {
    let dir = trace_of("backprop:in=512");
    let memory = [
        "LDG", "STG", "LDS", "STS", "LDL", "STL", "LD", "ST", "ATOM", "ATOMG", "RED",
    ];
    let mut laneless = 0;
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "traceg") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let t: Vec<&str> = line.split_whitespace().collect();
            // PC mask dest_num [dest] opcode src_num [srcs] width ...
            if t.len() < 5 || t[0].len() != 4 || t[1].len() != 8 {
                continue;
            }
            let op_at = if t[2] == "1" { 4 } else { 3 };
            let base = t[op_at].split('.').next().unwrap();
            if !memory.contains(&base) {
                continue;
            }
            let srcs: usize = t[op_at + 1].parse().unwrap();
            let width = t[op_at + 2 + srcs];
            assert_ne!(width, "0", "{line}");
            if t[1] == "00000000" {
                laneless += 1;
                assert_eq!(
                    &t[op_at + 3 + srcs..],
                    ["1", "0x0000000000000000", "0", "0"],
                    "{line}"
                );
            }
        }
    }
    assert!(
        laneless > 0,
        "backprop:in=512 has memory instructions no lane runs"
    );
}

/// Each workload's small run and the run of its written trace give the same figures, on
/// every preset whose SM holds the workload's blocks (a preset that cannot is refused with the
/// key to raise; every workload runs on turing-rtx2060s).
#[test]
fn a_written_trace_runs_as_the_workload() {
    use crate::gpu::run::{run, GpuError, Workload};
    for preset in spec::PRESETS.iter().map(|p| p.name) {
        let s = spec::ConfigRequest::preset(preset).resolve().unwrap();
        for w in apps::ALL {
            let spec = format!("{}:{}", w.name, w.small);
            let direct = match run(
                &s,
                Workload::Suite {
                    spec: &spec,
                    seed: 1,
                },
                None,
            ) {
                Err(GpuError::BlockTooLarge { .. }) if preset != "turing-rtx2060s" => continue,
                r => r.unwrap_or_else(|e| panic!("{preset} {spec}: {e}")),
            };
            let dir = trace_of(&spec);
            let traced = run(&s, Workload::Trace(dir.path()), None).unwrap();
            assert!(direct.kernels.iter().all(|k| k.instructions > 0), "{spec}");
            assert_eq!(
                serde_json::to_value(&direct).unwrap(),
                serde_json::to_value(&traced).unwrap(),
                "{preset} {spec}"
            );
        }
    }
}

/// A kernel reading `__constant__` variable `tab` (its fourth word) sees the host's write to it,
/// and the initial value of a variable the host did not write.
#[test]
fn constant_variables_hold_the_hosts_writes() {
    let text = "\
.kernel k
.regs 8
.shared 0
.local 0
.stack 0
.param_base 0x160
.param 0x0 8
.const 3 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000
.const 3 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000
.const 3 0x00000001 0x00000002 0x00000003 0x00000004
.symbol tab 0x0 64
.symbol tab2 0x40 16
0000 MOV R1, c[0x0][0x28]
0010 S2R R2, SR_TID.X
0020 MOV R3, 0x4
0030 MOV R5, c[0x3][0xc]
0040 IADD3 R5, R5, c[0x3][0x44], RZ
0050 IMAD.WIDE.U32 R2, R2, R3, c[0x0][0x160]
0060 STG.E.SYS [R2], R5
0070 EXIT
";
    let code = Arc::new(sass::parse("k.sass", text).unwrap().kernels.remove(0));
    assert_eq!(code.symbol("tab2"), Some((0x40, 16)));
    let run = |write: Option<u32>| -> Result<Vec<u32>, String> {
        let mut mem = DeviceMemory::default();
        let out = mem.alloc(128);
        if let Some(v) = write {
            mem.write_symbol("tab", &[0, 0, 0, v].map(u32::to_le_bytes).concat());
        }
        let l = Launch {
            kernel: Arc::clone(&code),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            dyn_shared: 0,
            params: vec![Param::Ptr(out)],
        };
        let mem = std::rc::Rc::new(std::cell::RefCell::new(mem));
        let shared = start(&l, 1, &mem)?;
        launch::LaunchBlocks::new(shared)
            .whole(0)
            .map_err(|e| e.to_string())?;
        let got = mem.borrow().read_u32(out, 32).map_err(|e| e.to_string());
        got
    };
    // tab[3] + tab2[1]: 0 + 2 unwritten, 40 + 2 after the host's write.
    assert_eq!(run(None).unwrap(), vec![2; 32]);
    assert_eq!(run(Some(40)).unwrap(), vec![42; 32]);
    // A write to a variable the module does not have, or past one's end, is refused.
    let mut mem = DeviceMemory::default();
    mem.write_symbol("nope", &[0; 4]);
    let l = Launch {
        kernel: Arc::clone(&code),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dyn_shared: 0,
        params: vec![Param::Ptr(0)],
    };
    assert!(l.env(&mem).unwrap_err().contains("nope"));
    let mut mem = DeviceMemory::default();
    mem.write_symbol("tab2", &[0; 20]);
    assert!(l.env(&mem).unwrap_err().contains("holds 16"));
}

/// A `gpu:NAME` stimulus is a built-in kernel when NAME is one, else a workload of the
/// library: every workload is reachable (with a colon when it shares a kernel's name).
#[test]
fn every_workload_is_a_gpu_target() {
    use crate::gpu::run::Target;
    for w in apps::ALL {
        let text = format!("{}:", w.name);
        assert!(
            matches!(Target::parse(&text), Ok(Target::Suite(_))),
            "{text}"
        );
        let bare = Target::parse(w.name);
        if crate::dispatch::kernel(w.name).is_err() {
            assert!(matches!(bare, Ok(Target::Suite(_))), "{}", w.name);
        } else {
            // (The built-in kernel keeps its name.)
            assert!(matches!(bare, Ok(Target::Kernel(_))), "{}", w.name);
        }
    }
    assert!(matches!(Target::parse("stencil2d"), Ok(Target::Kernel(_))));
    assert!(matches!(Target::parse("scalarprod"), Ok(Target::Kernel(_))));
    assert!(matches!(
        Target::parse("scalarprod:vectors=4"),
        Ok(Target::Suite(_))
    ));
    assert!(Target::parse("bfs:nodes=x").is_err());
}

/// The words a one-block kernel `text` of `threads` threads stores from its one pointer
/// parameter on (`words` of them).
fn stored_words(text: &str, threads: u32, words: usize) -> Vec<u32> {
    let code = Arc::new(sass::parse("k.sass", text).unwrap().kernels.remove(0));
    let mut mem = DeviceMemory::default();
    let out = mem.alloc(words as u64 * 4);
    let l = Launch {
        kernel: code,
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        dyn_shared: 0,
        params: vec![Param::Ptr(out)],
    };
    let mem = std::rc::Rc::new(std::cell::RefCell::new(mem));
    let shared = start(&l, 1, &mem).unwrap();
    launch::LaunchBlocks::new(shared).whole(0).unwrap();
    let got = mem.borrow().read_u32(out, words).unwrap();
    got
}

/// `R2P` sets the predicates its mask selects from a register's byte and keeps the others;
/// `P2R` puts them back into the byte its operand selects, under its mask.
#[test]
fn r2p_and_p2r_move_predicates_to_and_from_a_registers_byte() {
    let text = "\
.kernel k
.regs 10
.shared 0
.local 0
.stack 0
.param_base 0x160
.param 0x0 8
0000 MOV R1, c[0x0][0x28]
0010 S2R R2, SR_TID.X
0020 ISETP.NE.AND P0, PT, RZ, 0x1, PT
0030 SHF.L.U32 R4, R2, 0x8, RZ
0040 R2P PR, R4.B1, 0x7e
0050 P2R R5, PR, RZ, 0x7f
0060 MOV R7, 0xffffffff
0070 P2R R6, PR, R7.B2, 0xf
0080 MOV R3, 0x8
0090 IMAD.WIDE.U32 R2, R2, R3, c[0x0][0x160]
00a0 STG.E.SYS [R2], R5
00b0 STG.E.SYS [R2+0x4], R6
00c0 EXIT
";
    let got = stored_words(text, 32, 64);
    for l in 0..32u32 {
        // P1 to P6 are bits 1 to 6 of the lane's number; P0 kept its value, true.
        let preds = (l & 0x7e) | 1;
        assert_eq!(got[2 * l as usize], preds, "lane {l}");
        assert_eq!(
            got[2 * l as usize + 1],
            !(0xf << 16) | (preds & 0xf) << 16,
            "lane {l}"
        );
    }
}

/// A kernel storing through a `__device__` variable's address (constant bank 4, as the driver
/// puts it there) writes the variable the host program allocated; a launch of it without the
/// variable is refused, naming it.
#[test]
fn device_variables_are_addressed_through_bank_4() {
    let text = "\
.kernel k
.regs 8
.shared 0
.local 0
.stack 0
.param_base 0x160
.device d_out 0x0 128
0000 MOV R1, c[0x0][0x28]
0010 S2R R2, SR_TID.X
0020 MOV R3, 0x4
0030 ULDC.64 UR4, c[0x4][0x0]
0040 IMAD.WIDE.U32 R4, R2, R3, UR4
0050 STG.E.SYS [R4], R2
0060 EXIT
";
    let code = Arc::new(sass::parse("k.sass", text).unwrap().kernels.remove(0));
    assert_eq!(code.devices, vec![("d_out".to_string(), 0, 128)]);
    let l = Launch {
        kernel: Arc::clone(&code),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dyn_shared: 0,
        params: vec![],
    };
    let mut mem = DeviceMemory::default();
    mem.alloc(100);
    let var = mem.device_var("d_out", 128);
    assert_eq!(mem.device_address("d_out"), Some(var));
    let mem = std::rc::Rc::new(std::cell::RefCell::new(mem));
    let shared = start(&l, 1, &mem).unwrap();
    launch::LaunchBlocks::new(shared).whole(0).unwrap();
    let got = mem.borrow().read_u32(var, 32).unwrap();
    assert_eq!(got, (0..32).collect::<Vec<u32>>());
    let err = l.env(&DeviceMemory::default()).unwrap_err();
    assert!(err.contains("d_out"), "{err}");
}

/// `.SAT` clamps FADD's, FMUL's and FFMA's results to [0, 1] and a NaN to 0; without it they
/// are unclamped. (srad_v1's `extract` relies on it: `exp` of a very negative argument.)
#[test]
fn saturated_float_results_are_clamped_to_zero_and_one() {
    let text = "\
.kernel k
.regs 10
.shared 0
.local 0
.stack 0
.param_base 0x160
.param 0x0 8
0000 MOV R1, c[0x0][0x28]
0010 S2R R2, SR_TID.X
0020 I2F.U32 R4, R2
0030 FFMA.SAT R5, R4, 0.125, -1
0040 FADD.SAT R6, R4, -2
0050 FMUL R7, R4, 0.125
0060 FMUL.SAT R8, R4, +INF
0070 MOV R3, 0x10
0080 IMAD.WIDE.U32 R2, R2, R3, c[0x0][0x160]
0090 STG.E.SYS [R2], R5
00a0 STG.E.SYS [R2+0x4], R6
00b0 STG.E.SYS [R2+0x8], R7
00c0 STG.E.SYS [R2+0xc], R8
00d0 EXIT
";
    let got = stored_words(text, 32, 128);
    for l in 0..32usize {
        let x = l as f32;
        let word = |k: usize| f32::from_bits(got[4 * l + k]);
        assert_eq!(word(0), (x * 0.125 - 1.0).clamp(0.0, 1.0), "lane {l}");
        assert_eq!(word(1), (x - 2.0).clamp(0.0, 1.0), "lane {l}");
        assert_eq!(word(2), x * 0.125, "lane {l}");
        // 0 times infinity is NaN, saturated to 0; x times infinity, to 1.
        assert_eq!(word(3), if l == 0 { 0.0 } else { 1.0 }, "lane {l}");
    }
}
