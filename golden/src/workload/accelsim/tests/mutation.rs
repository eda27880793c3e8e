//! Generated and real traces mutated byte by byte and field by field read safely or fail naming a
//! line.

use super::*;

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
