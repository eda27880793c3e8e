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

// ---- Hostile input: values out of their domain, rules between them, mutated traces ------

/// A header of tracer version 5 with `extra` header lines appended, then `body`.
fn with_header(extra: &str, body: &str) -> String {
    format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n\
         {extra}#traces format = ...\n{body}"
    )
}

#[test]
fn header_values_out_of_their_domain_name_the_key_and_line() {
    for (extra, words) in [
        (
            "-shmem = 4294967296\n",
            "`-shmem = 4294967296`: a whole number from 0 to 4294967295",
        ),
        ("-nregs = 4294967296\n", "`-nregs = 4294967296`"),
        ("-nregs = -1\n", "`-nregs = -1`"),
        (
            "-binary version = 99999999999\n",
            "`-binary version = 99999999999`",
        ),
        (
            "-cuda stream id = 18446744073709551616\n",
            "from 0 to 18446744073709551615",
        ),
        (
            "-accelsim tracer version = 4294967301\n",
            "knows versions 3, 4, 5 and the legacy",
        ),
        ("-accelsim tracer version = 6\n", "knows versions 3, 4, 5"),
        ("-accelsim tracer version = 2\n", "knows versions 3, 4, 5"),
        ("-accelsim tracer version = 0\n", "knows versions 3, 4, 5"),
        ("-accelsim tracer version = 1.2\n", "knows versions 3, 4, 5"),
        ("-enable lineinfo = 2\n", "`-enable lineinfo = 2`: 0 or 1"),
        ("-shmem base_addr = 0xzz\n", "a hex address"),
        (
            "-grid dim = (2,1,1)\n",
            "`-grid dim` is given twice (first at line 3)",
        ),
    ] {
        let e = read(&with_header(extra, "")).expect_err(extra);
        assert_eq!(e.line, 5, "{extra}: {e}");
        assert!(e.to_string().contains(words), "{extra}: {e} lacks {words}");
    }
    for (grid, block, words) in [
        (
            "(0,1,1)",
            "(32,1,1)",
            "`-grid dim = (0,1,1)`: (x,y,z), each from 1 to 2147483647",
        ),
        (
            "(2147483648,1,1)",
            "(32,1,1)",
            "`-grid dim = (2147483648,1,1)`",
        ),
        ("(1,65536,1)", "(32,1,1)", "65535 (y)"),
        ("(4294967296,1,1)", "(32,1,1)", "`-grid dim"),
        (
            "(1,1,1)",
            "(65536,65537,1)",
            "`-block dim = (65536,65537,1)`: (x,y,z), each from 1 to 1024",
        ),
        ("(1,1,1)", "(1,1,65)", "64 (z)"),
        ("(1,1,1)", "(0,1,1)", "`-block dim = (0,1,1)`"),
        (
            "(1,1,1)",
            "(1024,2,1)",
            "2048 threads a block; CUDA's limit is 1024",
        ),
    ] {
        let text = format!("-kernel name = k\n-grid dim = {grid}\n-block dim = {block}\n#x\n");
        let e = read(&text).expect_err(&text);
        assert!(e.to_string().contains(words), "{e} lacks {words}");
        assert!(e.line >= 2, "{e}");
    }
    let e = read("-kernel name = k\n-block dim = (32,1,1)\n#x\n").unwrap_err();
    assert!(e.to_string().contains("no `-grid dim`"), "{e}");
    // The limits themselves are legal: a grid claiming 2^62 blocks reads (its one block's
    // id is remembered, not the grid).
    let t = "-kernel name = k\n-grid dim = (2147483647,65535,65535)\n-block dim = (1024,1,1)\n\
             -accelsim tracer version = 3\n#x\n#BEGIN_TB\nthread block = 2147483646,65534,65534\n\
             warp = 31\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n#END_TB\n";
    let b = read(t).unwrap();
    assert_eq!(b[0].id, [2147483646, 65534, 65534]);
    assert_eq!(b[0].warps.len(), 32);
}

#[test]
fn blocks_breaking_the_kernels_rules_are_refused_naming_the_line() {
    let exit = "0000 ffffffff 0 EXIT 0 0 0\n";
    let tb = |id: &str, body: &str| format!("#BEGIN_TB\nthread block = {id}\n{body}#END_TB\n");
    let w0 = format!("warp = 0\ninsts = 1\n{exit}");
    for (body, line, words) in [
        (
            tb("2,0,0", &w0),
            8,
            "thread block (2,0,0) is outside the grid (2,1,1)",
        ),
        (tb("0,1,0", &w0), 8, "outside the grid"),
        (
            format!("{}{}", tb("1,0,0", &w0), tb("1,0,0", &w0)),
            14,
            "thread block (1,0,0) is given twice",
        ),
        (
            tb("0,0,0", &format!("{w0}{w0}")),
            12,
            "`warp = 0` is given twice in the block (first at line 9)",
        ),
        (
            tb("0,0,0", "warp = 2\ninsts = 0\n"),
            9,
            "a block of 64 threads has 2 warps",
        ),
        (
            tb("0,0,0", "warp = 0\ninsts = 0\n"),
            11,
            "thread block (0,0,0) holds no instruction",
        ),
        (String::new(), 6, "the kernel holds no thread block"),
        ("\n\n".to_string(), 8, "the kernel holds no thread block"),
        (
            tb(
                "0,0,0",
                "warp = 0\ninsts = 1\n0000 ffffffff 1 R256 MOV 0 0 0\n",
            ),
            11,
            "`R256` is not a register (R0 to R255",
        ),
        (
            tb(
                "0,0,0",
                "warp = 0\ninsts = 1\n0000 ffffffff 0 IADD3 2 R1 R65536 0 0\n",
            ),
            11,
            "`R65536` is not a register",
        ),
        (
            tb(
                "0,0,0",
                "warp = 0\ninsts = 1\n0000 ffffffff 1 R1 MOV 5 R1 R1 R1 R1 R1 0 0\n",
            ),
            11,
            "register count from 0 to 4",
        ),
    ] {
        let e = read(&with_header("-accelsim tracer version = 5\n", &body)).expect_err(&body);
        assert_eq!(e.line, line, "{body}: {e}");
        assert!(e.to_string().contains(words), "{e} lacks {words}");
    }
    // A last warp of 8 lanes: a mask within them reads, one beyond them is refused.
    let forty = |mask: &str| {
        format!(
            "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (40,1,1)\n\
             -accelsim tracer version = 5\n#x\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 1\n\
             insts = 1\n0000 {mask} 0 STG.E 1 R2 4 1 0x100 4 0\n#END_TB\n"
        )
    };
    let b = read(&forty("000000ff")).unwrap();
    assert_eq!(b[0].warps[1][0].addrs.len(), 8);
    let e = read(&forty("000001ff")).unwrap_err();
    assert_eq!(e.line, 10);
    assert!(
        e.to_string().contains("lanes beyond the block's threads"),
        "{e}"
    );
    // Line numbers and legacy thread-block fields must be there; a line number is a number.
    let e = read(&format!(
        "{}#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\nx7 0040 ffffffff 0 EXIT 0 0\n#END_TB\n",
        header(4, true)
    ))
    .unwrap_err();
    assert!(e.to_string().contains("`x7` is not a line number"), "{e}");
}

/// The register of `R<n>` as the reader reads it.
fn dest_of(n: u64, reg: fn(&str) -> Result<Reg, String>) -> Result<Reg, String> {
    reg(&format!("R{n}"))
}

/// A register reader that took any 16-bit number and kept its low byte (the deliberately
/// wrong variant: R256 would silently be R0).
fn lax_reg(s: &str) -> Result<Reg, String> {
    let n: u16 = s[1..].parse().map_err(|_| s.to_string())?;
    Ok(n.to_le_bytes()[0])
}

fn register_read_as_written(
    n: u64,
    reg: fn(&str) -> Result<Reg, String>,
) -> Result<(), TestCaseError> {
    match dest_of(n, reg) {
        Ok(r) => prop_assert_eq!(u64::from(r), n),
        Err(m) => prop_assert!(n > 255 && !m.is_empty(), "R{} refused: {}", n, m),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A register reads as its number when it is one of R0..R255, and is refused otherwise
    /// (never another register).
    #[test]
    fn registers_read_as_their_number_or_are_refused(n in prop_oneof![0u64..300, 0u64..70000, any::<u64>()]) {
        register_read_as_written(n, super::reg)?;
    }
}

#[test]
fn a_register_reader_keeping_the_low_byte_is_caught() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let caught = runner.run(&(0u64..70000), |n| register_read_as_written(n, lax_reg));
    assert!(caught.is_err(), "the lax register reader was not caught");
}

/// A generated trace: `blocks` blocks of a grid of (gx, 2, 1), blocks of 40 threads (a last
/// warp of 8 lanes), every address mode, in tracer version `v` (0: legacy), line numbers on
/// or off.
fn generated(v: u32, lineinfo: bool, blocks: u32) -> String {
    let version = match v {
        0 => String::new(),
        v => format!(
            "-accelsim tracer version = {v}\n-enable lineinfo = {}\n",
            u8::from(lineinfo)
        ),
    };
    let gx = blocks.div_ceil(2);
    let mut t = format!(
        "-kernel name = gen\n-kernel id = 3\n-grid dim = ({gx},2,1)\n-block dim = (40,1,1)\n\
         -shmem = 256\n-nregs = 32\n{version}\n#traces format = ...\n\n"
    );
    for b in 0..blocks {
        let (x, y) = (b % gx, b / gx);
        t += &format!("#BEGIN_TB\nthread block = {x},{y},0\n");
        for w in 0..2u32 {
            let mask = if w == 0 { "ffffffff" } else { "000000f3" };
            let lanes = if w == 0 { 32 } else { 6 };
            let list: Vec<String> = (0..lanes)
                .map(|k| format!("0x{:x}", 0x4000 + 64 * k + b))
                .collect();
            let deltas: Vec<String> = (1..lanes)
                .map(|k| format!("{}", 8 * k as i64 - 20))
                .collect();
            let lines = [
                format!("0000 {mask} 1 R4 LDG.E.64 1 R2 8 0 {}", list.join(" ")),
                format!("0010 {mask} 0 STG.E 2 R2 R4 4 1 0x{:x} -4", 0x9000 + b),
                format!(
                    "0020 {mask} 1 R5 LDS.U16 1 R1 2 2 0x40 {}",
                    deltas.join(" ")
                ),
                format!("0030 {mask} 1 R7 IADD3 3 R4 R5 R255 0"),
                format!("0040 {mask} 0 BAR.SYNC 0 0"),
                format!("0050 {mask} 0 EXIT 0 0"),
            ];
            t += &format!("warp = {w}\ninsts = {}\n", lines.len());
            for (k, l) in lines.iter().enumerate() {
                let tbf = if v < 3 {
                    format!("{x} {y} 0 {w} ")
                } else {
                    String::new()
                };
                let li = if lineinfo && v >= 3 {
                    format!("{} ", 10 + k)
                } else {
                    String::new()
                };
                let imm = if v >= 5 { " 0" } else { "" };
                t += &format!("{tbf}{li}{l}{imm}\n");
            }
        }
        t += "#END_TB\n";
    }
    t
}

/// The traces the mutation tests start from: the two reference samples and generated ones.
fn seeds() -> Vec<String> {
    let lud = reference("rodinia2-lud-kernel8-volta-legacy-format").join("kernel-8.traceg");
    let pow = reference("pytorch-pow-kernel593-tracer-v5-excerpt")
        .join("kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1");
    let mut out: Vec<String> = [lud, pow]
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    out.extend([
        generated(5, false, 3),
        generated(4, true, 4),
        generated(0, false, 2),
        generated(3, false, 1),
    ]);
    out
}

/// What the SM relies on, checked independently of the reader's rules: the header within
/// CUDA's limits, every block's id in the grid and once in the kernel, its warps the block's,
/// every lane mask within the block's threads, a memory instruction's addresses one per
/// active lane (none for another), at most four sources, an instruction in every block.
fn invariants(h: &KernelHeader, blocks: &[TraceBlock]) -> Result<(), String> {
    let threads: u64 = h.block.iter().map(|&d| u64::from(d)).product();
    if h.block.contains(&0) || h.grid.contains(&0) || threads > 1024 || h.block[2] > 64 {
        return Err(format!("header {h:?}"));
    }
    if h.grid[0] >= 1 << 31 || h.grid[1] > 65535 || h.grid[2] > 65535 {
        return Err(format!("grid {:?}", h.grid));
    }
    if ![0, 3, 4, 5].contains(&h.tracer_version) {
        return Err(format!("version {}", h.tracer_version));
    }
    let mut ids = std::collections::HashSet::new();
    for b in blocks {
        if (0..3).any(|d| b.id[d] >= h.grid[d]) || !ids.insert(b.id) {
            return Err(format!("block id {:?} in grid {:?}", b.id, h.grid));
        }
        if b.warps.len() as u64 != threads.div_ceil(32) {
            return Err(format!("{} warps for {threads} threads", b.warps.len()));
        }
        if b.warps.iter().all(Vec::is_empty) {
            return Err("a block without instructions".into());
        }
        for (w, insts) in b.warps.iter().enumerate() {
            let live = threads - 32 * w as u64;
            for i in insts {
                if live < 32 && u64::from(i.mask) >> live != 0 {
                    return Err(format!(
                        "mask {:08x} in warp {w} of {threads} threads",
                        i.mask
                    ));
                }
                let n = i.mask.count_ones() as usize;
                let ok = if i.mem_bytes > 0 {
                    i.addrs.len() == n
                } else {
                    i.addrs.is_empty()
                };
                if !ok || i.srcs.len() > 4 {
                    return Err(format!("instruction {i:?}"));
                }
            }
        }
    }
    Ok(())
}

/// Read `text` whole, with `lax` rule left out: it must end in blocks that hold the
/// invariants, or in an error naming a line of the text, never a panic.
fn reads_safely(text: &[u8], lax: Option<Rule>) -> Result<(), TestCaseError> {
    let lines = text.iter().filter(|&&c| c == b'\n').count() + 1;
    let check = |e: &TraceError| {
        prop_assert!(
            e.line >= 1 && e.line <= lines,
            "line {} of {}: {}",
            e.line,
            lines,
            e
        );
        prop_assert!(e.to_string().starts_with("t.traceg:"), "{}", e);
        Ok(())
    };
    let mut r = match KernelReader::new(Path::new("t.traceg"), Cursor::new(text.to_vec())) {
        Ok(r) => r,
        Err(e) => return check(&e),
    };
    r.rules.lax = lax;
    let mut blocks = Vec::new();
    loop {
        match r.next_block() {
            Ok(Some(b)) => blocks.push(b),
            Ok(None) => break,
            Err(e) => return check(&e),
        }
    }
    let held = invariants(r.header(), &blocks);
    prop_assert!(held.is_ok(), "{:?}", held);
    Ok(())
}

/// Values that probe a field's domain.
const PROBES: [&str; 30] = [
    "0",
    "1",
    "2",
    "31",
    "32",
    "33",
    "64",
    "255",
    "256",
    "1024",
    "1025",
    "65535",
    "65536",
    "2147483648",
    "4294967295",
    "4294967296",
    "18446744073709551616",
    "-1",
    "R255",
    "R256",
    "R65536",
    "ffffffff",
    "fffffffff",
    "100",
    "0x0",
    "",
    "#END_TB",
    "=",
    "1,0,0",
    "(0,0,0)",
];

/// One mutation of a text: a byte set, deleted or inserted, or a field (text between
/// whitespace or commas) replaced by a probe.
#[derive(Debug, Clone)]
enum Mutation {
    Byte(prop::sample::Index, u8),
    Delete(prop::sample::Index),
    Insert(prop::sample::Index, u8),
    Field(prop::sample::Index, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop_oneof![
        prop::sample::select(b"0129afRx =#,-\n\t(".to_vec()),
        any::<u8>()
    ];
    prop_oneof![
        (any::<prop::sample::Index>(), byte.clone()).prop_map(|(i, b)| Mutation::Byte(i, b)),
        any::<prop::sample::Index>().prop_map(Mutation::Delete),
        (any::<prop::sample::Index>(), byte).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<prop::sample::Index>(), 0..PROBES.len()).prop_map(|(i, p)| Mutation::Field(i, p)),
    ]
}

/// The fields of `t`: (start, end) of each run of bytes that are not whitespace or commas.
fn fields(t: &[u8]) -> Vec<(usize, usize)> {
    let sep = |c: u8| c.is_ascii_whitespace() || c == b',' || c == b'(' || c == b')';
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if sep(t[i]) {
            i += 1;
            continue;
        }
        let s = i;
        while i < t.len() && !sep(t[i]) {
            i += 1;
        }
        out.push((s, i));
    }
    out
}

fn mutate(mut t: Vec<u8>, m: &Mutation) -> Vec<u8> {
    match *m {
        Mutation::Byte(i, b) => {
            let at = i.index(t.len());
            t[at] = b;
        }
        Mutation::Delete(i) => {
            t.remove(i.index(t.len()));
        }
        Mutation::Insert(i, b) => t.insert(i.index(t.len() + 1), b),
        Mutation::Field(i, p) => {
            let f = fields(&t);
            let (s, e) = f[i.index(f.len())];
            t.splice(s..e, PROBES[p].bytes());
        }
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Real and generated traces with up to three bytes or fields changed: the reader gives
    /// blocks the SM can rely on, or an error naming a line, and never panics.
    #[test]
    fn mutated_traces_read_safely_or_fail_naming_a_line(
        seed in 0usize..6,
        ms in proptest::collection::vec(mutation(), 1..=3),
    ) {
        let mut t = seeds()[seed].clone().into_bytes();
        for m in &ms {
            t = mutate(t, m);
        }
        reads_safely(&t, None)?;
    }
}

/// Each rule left out is caught by the invariants: a generated trace with one field set to
/// what the rule refuses reads without error, and the blocks break what the SM relies on.
#[test]
fn a_reader_without_a_rule_is_caught() {
    let base = generated(5, false, 4);
    // (pattern in the text, its replacement, the rule that refuses it)
    for (from, to, rule) in [
        ("thread block = 1,0,0", "thread block = 0,0,0", Rule::Twice),
        ("thread block = 1,1,0", "thread block = 2,1,0", Rule::Grid),
        ("0050 000000f3 0 EXIT", "0050 000001f3 0 EXIT", Rule::Mask),
    ] {
        assert!(base.contains(from), "{from}");
        let t = base.replacen(from, to, 1).into_bytes();
        let strict = reads_safely(&t, None);
        assert!(strict.is_ok(), "{rule:?}: {strict:?}");
        let lax = reads_safely(&t, Some(rule));
        assert!(
            lax.is_err(),
            "{rule:?}: the reader without the rule was not caught"
        );
        // And the strict reader refuses the text.
        assert!(read(std::str::from_utf8(&t).unwrap()).is_err(), "{rule:?}");
    }
}
