//! Reading real and small traces: both formats, address modes, access sizes, errors naming the file
//! and line, kernel lists.

use super::*;

#[test]
fn the_legacy_lud_trace_reads_whole() {
    let dir = reference("rodinia2-lud-kernel8-volta-legacy-format");
    let list = read_list(&dir).unwrap();
    assert_eq!(list, [ListEntry::Kernel(dir.join("kernel-8.traceg"))]);
    let ListEntry::Kernel(path) = &list[0] else {
        unreachable!()
    };
    let (h, blocks, ops) = blocks(path);
    assert_eq!(h.name, "_Z13lud_perimeterPfii");
    assert_eq!((h.id, h.grid, h.block), (8, [1, 1, 1], [32, 1, 1]));
    assert_eq!(
        (h.shmem, h.nregs, h.binary_version, h.tracer_version),
        (3072, 166, 70, 0)
    );
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].id, [0, 0, 0]);
    let insts = blocks[0].instructions();
    // 1,027 warp instructions, 272 of them memory instructions (SOURCES.md, from upstream).
    assert_eq!(insts, 1027);
    assert_eq!(text_instructions(path), (1027, 1027));
    let mem: Vec<&Inst> = blocks[0].warps[0]
        .iter()
        .filter(|i| i.is_memory())
        .collect();
    assert_eq!(mem.len(), 272);
    // Every memory instruction has one address per active lane.
    assert!(mem
        .iter()
        .all(|i| i.addrs.len() == i.mask.count_ones() as usize));
    // `0 0 0 0 0290 ffff0000 1 R8 LDG.E.SYS 1 R2 4 1 0x00007fe033702880 4` (the notes' example).
    let i = blocks[0].warps[0].iter().find(|i| i.pc == 0x290).unwrap();
    assert_eq!(ops[usize::from(i.op)], "LDG.E.SYS");
    assert_eq!(
        (i.mask, i.dest, &i.srcs[..], i.mem_bytes),
        (0xffff_0000, Some(8), &[2][..], 4)
    );
    assert_eq!(i.addrs.len(), 16);
    assert_eq!(i.addrs.get(0), Some(0x7fe0_3370_2880));
    assert_eq!(i.addrs.get(15), Some(0x7fe0_3370_2880 + 15 * 4));
}

#[test]
fn the_v5_excerpt_reads_block_by_block() {
    let dir = reference("pytorch-pow-kernel593-tracer-v5-excerpt");
    let path = dir.join("kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1");
    let (h, blocks, ops) = blocks(&path);
    assert_eq!(
        (h.id, h.grid, h.block, h.tracer_version),
        (593, [55, 1, 1], [128, 1, 1], 5)
    );
    assert_eq!(
        (h.shmem_base, h.local_base),
        (0x7f59_dd00_0000, 0x7f59_db00_0000)
    );
    assert!(!h.lineinfo);
    // The excerpt holds blocks 0 and 1 of 55, four warps each.
    let ids: Vec<[u32; 3]> = blocks.iter().map(|b| b.id).collect();
    assert_eq!(ids, [[0, 0, 0], [1, 0, 0]]);
    assert!(blocks.iter().all(|b| b.warps.len() == 4));
    let total: usize = blocks.iter().map(TraceBlock::instructions).sum();
    let (lines, declared) = text_instructions(&path);
    assert_eq!((total, total as u64), (lines, declared));
    // `00a0 ffffffff 1 R12 LDG.E.128.SYS 1 R2 16 1 0x7f580face400 16 0`: 32 lanes x 16 B.
    let i = &blocks[0].warps[0][10];
    assert_eq!(
        (i.pc, ops[usize::from(i.op)].as_str()),
        (0xa0, "LDG.E.128.SYS")
    );
    assert_eq!(i.mem_bytes, 16);
    let want: Vec<u64> = (0..32).map(|k| 0x7f58_0fac_e400 + 16 * k).collect();
    assert_eq!(i.addrs, want);
}

#[test]
fn address_modes_expand_per_active_lane() {
    let t = format!(
        "{}#BEGIN_TB\nthread block = 1,0,0\nwarp = 1\ninsts = 3\n\
         0010 0000000f 1 R4 LDG.E.64 1 R2 8 0 0x100 0x200 0x180 0x0 0\n\
         0020 000000f0 0 STG.E 2 R2 R4 4 1 0x1000 -8 0\n\
         0030 00000007 1 R5 LDS.U16 1 R1 2 2 0x40 6 -2 0\n#END_TB\n",
        header(5, false)
    );
    let b = read(&t).unwrap();
    assert_eq!(b.len(), 1);
    assert_eq!((b[0].id, b[0].warps.len()), ([1, 0, 0], 2));
    assert!(b[0].warps[0].is_empty());
    let w = &b[0].warps[1];
    assert_eq!(w[0].addrs, [0x100, 0x200, 0x180, 0x0]);
    assert_eq!(w[0].mem_bytes, 8);
    assert_eq!(w[1].addrs, [0x1000, 0xff8, 0xff0, 0xfe8]);
    assert_eq!((w[1].dest, &w[1].srcs[..]), (None, &[2, 4][..]));
    assert_eq!(w[2].addrs, [0x40, 0x46, 0x44]);
    assert_eq!(w[2].mem_bytes, 2);
}

#[test]
fn line_numbers_are_skipped_when_lineinfo_is_on() {
    let t = format!(
        "{}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n\
         17 0040 ffffffff 0 EXIT 0 0\n#END_TB\n",
        header(4, true)
    );
    let b = read(&t).unwrap();
    assert_eq!(b[0].warps[0][0].pc, 0x40);
}

#[test]
fn access_sizes_follow_the_opcode() {
    for (op, bytes) in [
        ("LDG.E.128.SYS", 16),
        ("LDG.E.64", 8),
        ("LDG.E.SYS", 4),
        ("LDS.U8", 1),
        ("STS.U16", 2),
        ("LDG.E.S16", 2),
        ("LDC.64", 4),
        ("ATOMG.E.ADD.STRONG.GPU", 4),
    ] {
        assert_eq!(access_bytes(op), bytes, "{op}");
    }
}

#[test]
fn bad_traces_name_the_file_line_and_what_was_expected() {
    let h = header(5, false);
    let tb = "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n";
    for (text, line, words) in [
        (
            format!("{h}{tb}insts = 2\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n"),
            15,
            "has 1 instruction lines, but `insts = 2`",
        ),
        (
            format!("{h}{tb}insts = 1\n0000 fffffffg 0 EXIT 0 0 0\n#END_TB\n"),
            14,
            "not a 32-bit hex mask",
        ),
        (
            format!("{h}{tb}insts = 1\n0000 ffffffff 1 P0 ISETP 0 0 0\n#END_TB\n"),
            14,
            "not a register",
        ),
        (
            format!("{h}{tb}insts = 1\n0000 ffffffff 0 LDG.E 1 R2 4 7 0x10 0\n#END_TB\n"),
            14,
            "address mode 7",
        ),
        (
            format!("{h}{tb}insts = 1\n0000 ffffffff 0 LDG.E 1 R2 4 1 0x10\n#END_TB\n"),
            14,
            "no stride",
        ),
        (
            format!("{h}{tb}insts = 1\n0000 ffffffff 0 EXIT 0 0 0 9\n#END_TB\n"),
            14,
            "after the instruction's last field",
        ),
        (
            format!("{h}{tb}insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n"),
            14,
            "no `#END_TB`",
        ),
        (
            format!("{h}#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\n"),
            12,
            "a block of 64 threads has 2 warps",
        ),
        (
            format!("{h}thread block = 0,0,0\n"),
            10,
            "expected `#BEGIN_TB`",
        ),
        (
            "-kernel name = k\n-block dim = (32,1,1)\n".to_string(),
            2,
            "ends inside the header",
        ),
        (
            "-kernel name = k\n-grid dim = 4\n#x\n".to_string(),
            2,
            "`-grid dim = 4`: (x,y,z)",
        ),
        (
            "-kernel id = 3\n-block dim = (32,1,1)\n#x\n".to_string(),
            3,
            "no `-kernel name`",
        ),
    ] {
        let e = read(&text).expect_err(&text);
        assert_eq!(e.line, line, "{e}");
        let shown = e.to_string();
        assert!(shown.starts_with(&format!("t.traceg:{line}: ")), "{shown}");
        assert!(shown.contains(words), "{shown} lacks {words}");
    }
}

#[test]
fn lists_give_copies_and_kernels_and_missing_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("kernelslist.g"),
        "MemcpyHtoD,0x00007efe7b500000,2052\nkernel-1.traceg\n\nsomething else\n",
    )
    .unwrap();
    assert_eq!(
        read_list(dir.path()).unwrap(),
        [
            ListEntry::Memcpy {
                addr: 0x7efe_7b50_0000,
                bytes: 2052
            },
            ListEntry::Kernel(dir.path().join("kernel-1.traceg")),
        ]
    );
    let e = KernelReader::open(&dir.path().join("kernel-1.traceg"))
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("cannot open the kernel trace"),
        "{e}"
    );
    let e = KernelReader::open(&dir.path().join("kernel-1.traceg.xz"))
        .err()
        .unwrap();
    assert!(e.to_string().contains("xz -dk"), "{e}");
    std::fs::write(dir.path().join("kernelslist.g"), "MemcpyHtoD,zz,1\n").unwrap();
    let e = read_list(dir.path()).unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.to_string().contains("not a hex address"), "{e}");
    let e = read_list(&dir.path().join("nothing")).unwrap_err();
    assert!(e.to_string().contains("cannot read the kernel list"), "{e}");
    // A list naming no kernel would run nothing: an error. A kernel trace is its own list.
    std::fs::write(
        dir.path().join("kernelslist.g"),
        "MemcpyHtoD,0x10,4
",
    )
    .unwrap();
    let e = read_list(dir.path()).unwrap_err();
    assert!(e.to_string().contains("names no kernel trace"), "{e}");
    let k = dir.path().join("kernel-9.traceg");
    std::fs::write(&k, "-kernel name = k\n-kernel id = 9\n").unwrap();
    assert_eq!(read_list(&k).unwrap(), [ListEntry::Kernel(k.clone())]);
}

/// The copies in tests-data equal the shared reference files whenever those are present.
#[test]
fn test_data_matches_shared_reference() {
    let shared =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/reference/accelsim-traces");
    if !shared.is_dir() {
        eprintln!("{} not present; nothing to compare", shared.display());
        return;
    }
    for rel in [
        "SOURCES.md",
        "rodinia2-lud-kernel8-volta-legacy-format/kernel-8.traceg",
        "rodinia2-lud-kernel8-volta-legacy-format/kernelslist.g",
        "pytorch-pow-kernel593-tracer-v5-excerpt/\
         kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1",
        "pytorch-pow-kernel593-tracer-v5-excerpt/kernelslist.g",
    ] {
        let a = std::fs::read(shared.join(rel)).unwrap();
        let b = std::fs::read(reference("").join(rel)).unwrap();
        assert!(a == b, "{rel} differs from the shared reference");
    }
}
