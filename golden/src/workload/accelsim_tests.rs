use super::*;
use proptest::prelude::*;
use std::io::Cursor;

/// The reference trace samples (copies of ../shared/reference/accelsim-traces, with their
/// SOURCES.md).
fn reference(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests-data/accelsim-traces")
        .join(dir)
}

/// Every block of a trace file.
fn blocks(path: &Path) -> (KernelHeader, Vec<TraceBlock>, Vec<String>) {
    let mut r = KernelReader::open(path).unwrap();
    let mut out = Vec::new();
    while let Some(b) = r.next_block().unwrap() {
        out.push(b);
    }
    let ops = (0..r.ops.len() as u16)
        .map(|i| r.opcode(i).to_string())
        .collect();
    (r.header().clone(), out, ops)
}

/// Instruction lines counted from the text alone: neither blank, nor a marker (`#`), nor a
/// header or section line (`-key = value`, `warp = N`, ...), written independently of the
/// reader.
fn text_instructions(path: &Path) -> (usize, u64) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = 0;
    let mut declared = 0;
    for l in text.lines().map(str::trim) {
        if let Some(n) = l.strip_prefix("insts = ") {
            declared += n.parse::<u64>().unwrap();
        } else if !(l.is_empty() || l.starts_with('#') || l.starts_with('-') || l.contains('=')) {
            lines += 1;
        }
    }
    (lines, declared)
}

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

fn header(version: u32, lineinfo: bool) -> String {
    format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n\
         -accelsim tracer version = {version}\n-enable lineinfo = {}\n\n#traces format = ...\n\n",
        u8::from(lineinfo)
    )
}

fn read(text: &str) -> Result<Vec<TraceBlock>, TraceError> {
    let mut r = KernelReader::new(Path::new("t.traceg"), Cursor::new(text.as_bytes().to_vec()))?;
    let mut out = Vec::new();
    while let Some(b) = r.next_block()? {
        out.push(b);
    }
    Ok(out)
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
        "{}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n17 0040 ffffffff 0 EXIT 0 0\n#END_TB\n",
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
            "not a legal value",
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
        "pytorch-pow-kernel593-tracer-v5-excerpt/kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1",
        "pytorch-pow-kernel593-tracer-v5-excerpt/kernelslist.g",
    ] {
        let a = std::fs::read(shared.join(rel)).unwrap();
        let b = std::fs::read(reference("").join(rel)).unwrap();
        assert!(a == b, "{rel} differs from the shared reference");
    }
}

#[test]
fn hex_numbers_parse_as_from_str_radix_does() {
    for s in [
        "0",
        "10",
        "ff",
        "FF",
        "c0000000",
        "ffffffffffffffff",
        "0000000000000000001",
        "7fa0",
    ] {
        let want = u64::from_str_radix(s.trim_start_matches('0').max("0"), 16).ok();
        assert_eq!(super::hex(s), want, "{s}");
        assert_eq!(super::hex(&format!("0x{s}")), want, "0x{s}");
    }
    for bad in ["", "0x", "0xg1", "1 2", "1ffffffffffffffff", "-1"] {
        assert_eq!(super::hex(bad), None, "{bad}");
    }
}

/// Text of fields and separators: ASCII whitespace of every kind (and vertical tab, which is
/// not), hex digits of both cases, `0x` prefixes, near misses (`g`, `/`, `:`, `@`, `` ` ``)
/// and a non-ASCII letter.
fn field_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[0-9a-fA-F]{0,20}".prop_map(|s| s),
        2 => "(0x|0X)[0-9a-fA-F]{0,18}".prop_map(|s| s),
        1 => "[ \t\n\r\x0b\x0cgG/:@`xXé0-9]{1,4}".prop_map(|s| s),
    ];
    let sep = "[ \t\r\x0c]{1,3}";
    proptest::collection::vec((piece, sep), 0..12)
        .prop_map(|v| v.into_iter().map(|(p, s)| p + &s).collect::<String>())
}

/// Every field of `line` read by `next_hex` (hex fields) and `next` (the rest), as
/// `(field, hex value)`; `LAX` selects the deliberately wrong reader.
fn read_fields<const LAX: bool>(line: &str) -> Vec<(String, Option<u64>)> {
    let mut f = super::Fields::new(line);
    let mut out = Vec::new();
    loop {
        let before = f.at;
        match f.next_hex_with::<LAX>() {
            None => break,
            Some(Ok(v)) => out.push((line[before..f.at].trim_start().to_string(), Some(v))),
            Some(Err(s)) => out.push((s.to_string(), None)),
        }
        // Every other field is read plainly.
        if let Some(s) = f.next() {
            out.push((s.to_string(), None));
        }
    }
    out
}

/// The same fields as split_ascii_whitespace gives, each other one read as `hex` reads it.
fn expected_fields(line: &str) -> Vec<(String, Option<u64>)> {
    line.split_ascii_whitespace()
        .enumerate()
        .map(|(k, s)| (s.to_string(), if k % 2 == 0 { super::hex(s) } else { None }))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Fields split a line as `split_ascii_whitespace` does, and a lane address reads as
    /// `hex` reads the field (in one pass, eight bytes at a time).
    #[test]
    fn fields_and_lane_addresses_read_as_split_and_hex_do(line in field_text()) {
        prop_assert_eq!(read_fields::<false>(&line), expected_fields(&line));
        let mut f = super::Fields::new(&line);
        let split: Vec<&str> = line.split_ascii_whitespace().collect();
        let fields: Vec<&str> = std::iter::from_fn(|| f.next()).collect();
        prop_assert_eq!(fields, split);
    }
}

/// The check above catches a lane-address reader that takes `g` for a digit (eight bytes at
/// a time: 16 bytes of text from the field on).
#[test]
fn a_lax_lane_address_reader_is_caught() {
    for line in [
        "0x1g 0 0 0 0 0 0 0",
        "abcdefg 0 0 0 0 0",
        "1 2 fg 0 0 0 0 0 0 0 0 0",
    ] {
        assert_ne!(read_fields::<true>(line), expected_fields(line), "`{line}`");
        assert_eq!(
            read_fields::<false>(line),
            expected_fields(line),
            "`{line}`"
        );
    }
}

/// Lane addresses of every length up to 16 digits, at the line's end (digit by digit) and
/// before more text (eight bytes at a time), give their value; 17 digits only with a
/// leading zero.
#[test]
fn lane_addresses_of_every_length_read_whole() {
    let digits = "fedcba9876543210a";
    for n in 1..=17 {
        let d = &digits[..n];
        let want = super::hex(d);
        assert_eq!(want.is_some(), n <= 16, "{d}");
        for line in [
            d.to_string(),
            format!("0x{d}"),
            format!("{d} 0x1 0x2 0x3 R1"),
        ] {
            let mut f = super::Fields::new(&line);
            assert_eq!(f.next_hex().and_then(Result::ok), want, "`{line}`");
        }
        let padded = format!("0{d} tail-of-the-line");
        let mut f = super::Fields::new(&padded);
        assert_eq!(f.next_hex().and_then(Result::ok), want, "`{padded}`");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Lines read with `read_line` are those `BufRead::read_line` reads, through buffers of
    /// any size (lines across a buffer's end), and invalid UTF-8 fails both.
    #[test]
    fn lines_read_as_bufread_reads_them(
        text in proptest::collection::vec(
            prop_oneof![Just(b'\n'), Just(b'a'), Just(b' '), Just(0xc3u8), Just(0xa9u8), any::<u8>()],
            0..300,
        ),
        cap in 1usize..40,
    ) {
        let mut ours = std::io::BufReader::with_capacity(cap, &text[..]);
        let mut std_reader = std::io::BufReader::with_capacity(cap, &text[..]);
        loop {
            let (mut a, mut b) = (String::from("x"), String::from("x"));
            let ra = super::read_line(&mut ours, &mut a);
            let rb = std_reader.read_line(&mut b);
            match (&ra, &rb) {
                (Ok(x), Ok(y)) => {
                    prop_assert_eq!(x, y);
                    prop_assert_eq!(&a, &b);
                    if *x == 0 {
                        break;
                    }
                }
                (Err(x), Err(y)) => {
                    prop_assert_eq!(x.kind(), y.kind());
                    prop_assert_eq!(&a, "x");
                    break;
                }
                _ => prop_assert!(false, "{:?} against {:?}", ra, rb),
            }
        }
    }
}

/// Lane addresses that mostly step by one stride, some with one lane off it.
fn lane_addrs() -> impl Strategy<Value = Vec<u64>> {
    (
        any::<u64>(),
        prop_oneof![
            Just(4u64),
            Just(8),
            Just(0),
            Just(u64::MAX - 3),
            any::<u64>()
        ],
        0usize..=32,
        proptest::option::of((0usize..32, any::<u64>())),
    )
        .prop_map(|(base, stride, n, off)| {
            let mut v: Vec<u64> = (0..n as u64)
                .map(|k| base.wrapping_add(k.wrapping_mul(stride)))
                .collect();
            if let Some((k, a)) = off {
                if k < n {
                    v[k] = a;
                }
            }
            v
        })
}

/// Whether `held` gives back `v`, by every reader of it.
fn gives_back(held: &LaneAddrs, v: &[u64]) -> bool {
    held.len() == v.len()
        && held.to_vec() == v
        && (0..=v.len()).all(|k| held.get(k) == v.get(k).copied())
        && held.first() == v.first().copied()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The compact form gives the addresses back, is strided exactly when they step by one
    /// stride, and compares equal to any form holding the same addresses.
    #[test]
    fn lane_addresses_are_held_whole(v in lane_addrs(), delta in any::<u64>()) {
        let held = LaneAddrs::new(&v);
        prop_assert!(gives_back(&held, &v));
        let strided = v.windows(2).all(|w| w[1].wrapping_sub(w[0]) == v[1].wrapping_sub(v[0]));
        prop_assert_eq!(matches!(held, LaneAddrs::Strided { .. }), !v.is_empty() && strided);
        prop_assert_eq!(&held, &LaneAddrs::List(v.clone().into()));
        let mut moved = held.clone();
        moved.shift(delta);
        let want: Vec<u64> = v.iter().map(|a| a.wrapping_add(delta)).collect();
        prop_assert!(gives_back(&moved, &want));
    }
}

/// A compact form that trusted the first two lanes' stride for all of them would lose a lane
/// off the stride: the check above catches it.
#[test]
fn a_form_trusting_the_first_stride_is_caught() {
    fn lax(v: &[u64]) -> LaneAddrs {
        match v {
            [] => LaneAddrs::Empty,
            &[base, ..] => LaneAddrs::Strided {
                base,
                stride: v.get(1).map_or(0, |&a| a.wrapping_sub(base)),
                n: v.len() as u8,
            },
        }
    }
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let caught = runner.run(&lane_addrs(), |v| {
        prop_assert!(gives_back(&lax(&v), &v));
        Ok(())
    });
    assert!(caught.is_err(), "the lax form was not caught");
}
