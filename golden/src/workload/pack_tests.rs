use super::*;
use crate::workload::accelsim::KernelReader;
use proptest::prelude::*;

fn reference(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests-data/accelsim-traces")
        .join(dir)
}

fn lud() -> PathBuf {
    reference("rodinia2-lud-kernel8-volta-legacy-format").join("kernel-8.traceg")
}

/// The copy of `trace` in `dir` and its key, as a run finds them.
fn key_of(dir: &Path, trace: &Path) -> (PathBuf, Vec<u8>) {
    let r = KernelReader::open(trace).unwrap();
    copy_of(dir, trace, r.file()).unwrap()
}

/// Every block of a trace's text, with its opcodes and header, packed into `dir` on the way
/// as a run packs them.
fn read_text(trace: &Path, dir: &Path) -> (Vec<TraceBlock>, Vec<String>, PathBuf, Vec<u8>) {
    let mut r = KernelReader::open(trace).unwrap();
    let (copy, key) = copy_of(dir, trace, r.file()).unwrap();
    let mut w = PackWriter::create(&copy, &key).unwrap();
    let mut blocks = Vec::new();
    loop {
        let known = r.opcodes().len();
        match r.next_block().unwrap() {
            Some(b) => {
                w.block(&b, &r.opcodes()[known..]).unwrap();
                blocks.push(b);
            }
            None => break,
        }
    }
    w.finish().unwrap();
    (blocks, r.opcodes().to_vec(), copy, key)
}

fn header_of(trace: &Path) -> KernelHeader {
    KernelReader::open(trace).unwrap().header().clone()
}

/// Every block of a copy (the blocks read before an error, and the error).
fn read_copy_upto(
    copy: &Path,
    key: &[u8],
    h: &KernelHeader,
) -> Option<(Vec<TraceBlock>, Vec<String>, Option<TraceError>)> {
    let mut p = PackReader::open(copy, key, h)?;
    let mut blocks = Vec::new();
    loop {
        match p.next_block() {
            Ok(Some(b)) => blocks.push(b),
            Ok(None) => return Some((blocks, p.ops.clone(), None)),
            Err(e) => return Some((blocks, p.ops.clone(), Some(e))),
        }
    }
}

fn read_copy(
    copy: &Path,
    key: &[u8],
    h: &KernelHeader,
) -> Result<(Vec<TraceBlock>, Vec<String>), TraceError> {
    let (blocks, ops, err) = read_copy_upto(copy, key, h).expect("the copy opens");
    match err {
        None => Ok((blocks, ops)),
        Some(e) => Err(e),
    }
}

#[test]
fn the_reference_traces_read_back_from_their_copies_as_parsed() {
    for trace in [
        lud(),
        reference("pytorch-pow-kernel593-tracer-v5-excerpt")
            .join("kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1"),
    ] {
        let cache = tempfile::tempdir().unwrap();
        let (blocks, ops, copy, key) = read_text(&trace, cache.path());
        assert!(!blocks.is_empty(), "{}", trace.display());
        let (back, back_ops) = read_copy(&copy, &key, &header_of(&trace)).unwrap();
        assert_eq!(back, blocks, "{}", trace.display());
        assert_eq!(back_ops, ops, "{}", trace.display());
        // Nothing but the copy is left in the folder (no temporary file).
        assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 1);
    }
}

#[test]
fn a_changed_trace_is_not_read_from_its_old_copy() {
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let trace = work.path().join("kernel-8.traceg");
    std::fs::copy(lud(), &trace).unwrap();
    let h = header_of(&trace);
    let (_, _, copy, key) = read_text(&trace, cache.path());
    assert!(PackReader::open(&copy, &key, &h).is_some());
    // The same path, one byte longer: another key (the copy's name is the path's, so the
    // next packing replaces the stale copy); the old copy is not opened under it.
    let mut text = std::fs::read(&trace).unwrap();
    text.push(b'\n');
    std::fs::write(&trace, &text).unwrap();
    let (copy2, key2) = key_of(cache.path(), &trace);
    assert_ne!(key2, key);
    assert_eq!(copy2, copy);
    assert!(PackReader::open(&copy2, &key2, &h).is_none());
    // A copy under a foreign key (a file put in its place) is not read either.
    let foreign = cache.path().join("foreign.wspack");
    std::fs::copy(&copy, &foreign).unwrap();
    assert!(PackReader::open(&foreign, &key2, &h).is_none());
}

/// What the key held before it had the change time, device and inode: path, length,
/// modification time and the sampled text. The stale-copy test shows it is not enough.
fn key_without_ctime(trace: &Path) -> (u64, std::time::SystemTime, Vec<u8>) {
    let meta = std::fs::metadata(trace).unwrap();
    let text = std::fs::read(trace).unwrap();
    let n = text.len();
    let sample = [
        &text[..n.min(64 << 10)],
        &text[n.saturating_sub(64 << 10)..],
    ]
    .concat();
    (meta.len(), meta.modified().unwrap(), sample)
}

/// A trace of `blocks` blocks of one warp each, a load per block, long enough that its
/// middle is outside the sampled first and last 64 KiB.
fn long_trace(path: &Path, blocks: u32) {
    let mut t = format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = ({blocks},1,1)\n-block dim = (32,1,1)\n\
         -accelsim tracer version = 5\n\n#traces format = ...\n\n"
    );
    for b in 0..blocks {
        t += &format!(
            "#BEGIN_TB\nthread block = {b},0,0\nwarp = 0\ninsts = 2\n\
             0000 ffffffff 1 R4 LDG.E.SYS 1 R2 4 1 0x{:012x} 4 0\n\
             0010 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
            0x10_0000 + 128 * u64::from(b)
        );
    }
    std::fs::write(path, t).unwrap();
}

/// An edit at the same length with the modification time put back (`touch -r`, `cp -p`,
/// `rsync -t`, `tar x` all do that), outside the sampled text: the key changes (the change
/// time moved), so the copy of the old text is not read. The key without the change time
/// would not have changed: a stale copy would have been read.
#[test]
fn a_trace_edited_at_its_length_with_its_time_restored_is_not_read_from_its_copy() {
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let trace = work.path().join("kernel-1.traceg");
    long_trace(&trace, 3000);
    let h = header_of(&trace);
    let (blocks, _, copy, key) = read_text(&trace, cache.path());
    let before = key_without_ctime(&trace);
    let stamp = std::fs::metadata(&trace).unwrap().modified().unwrap();
    // Block 1500's address, one hex digit changed, in the middle of the file.
    let mut text = std::fs::read(&trace).unwrap();
    let at = text.len() / 2;
    let pos = at + text[at..].windows(2).position(|w| w == b"0x").unwrap() + 8;
    text[pos] = if text[pos] == b'7' { b'8' } else { b'7' };
    std::fs::write(&trace, &text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&trace)
        .unwrap()
        .set_modified(stamp)
        .unwrap();
    assert_eq!(
        key_without_ctime(&trace),
        before,
        "the old key's fields are unchanged: it would have read the stale copy"
    );
    let (copy2, key2) = key_of(cache.path(), &trace);
    assert_eq!(copy2, copy);
    assert_ne!(key2, key, "the change time tells the edit apart");
    assert!(PackReader::open(&copy, &key2, &h).is_none());
    // The text gives other blocks than the stale copy.
    let (edited, _, _, _) = read_text(&trace, cache.path());
    assert_ne!(edited, blocks);
}

/// The same trace under another inode (copied with its times kept): another key.
#[test]
fn a_trace_copied_over_with_its_times_kept_gets_another_key() {
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let trace = work.path().join("kernel-8.traceg");
    std::fs::copy(lud(), &trace).unwrap();
    let (_, key) = key_of(cache.path(), &trace);
    let stamp = std::fs::metadata(&trace).unwrap().modified().unwrap();
    let other = work.path().join("other");
    std::fs::copy(&trace, &other).unwrap();
    std::fs::rename(&other, &trace).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&trace)
        .unwrap()
        .set_modified(stamp)
        .unwrap();
    let (_, key2) = key_of(cache.path(), &trace);
    assert_ne!(key, key2);
}

#[test]
fn a_cut_copy_is_an_error_naming_it_and_an_unfinished_one_is_not_kept() {
    let cache = tempfile::tempdir().unwrap();
    let h = header_of(&lud());
    let (_, _, copy, key) = read_text(&lud(), cache.path());
    let bytes = std::fs::read(&copy).unwrap();
    for cut in [bytes.len() - 1, bytes.len() - 5, bytes.len() / 2] {
        std::fs::write(&copy, &bytes[..cut]).unwrap();
        let e = read_copy(&copy, &key, &h).unwrap_err();
        assert_eq!(e.file, copy);
    }
    // A writer dropped before its end leaves nothing behind.
    let other = cache.path().join("other.wspack");
    let mut w = PackWriter::create(&other, b"k").unwrap();
    w.block(
        &TraceBlock {
            id: [0; 3],
            warps: vec![],
        },
        &[],
    )
    .unwrap();
    drop(w);
    assert!(!other.exists());
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 1);
}

/// A temporary file whose writer died (unlocked, not changed for a minute) is deleted by the
/// next writer; a live writer's (locked) is not, however old.
#[test]
fn a_dead_writers_temporary_file_is_deleted_and_a_live_ones_kept() {
    let cache = tempfile::tempdir().unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
    let age = |p: &Path| {
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(old)
            .unwrap()
    };
    let dead = cache.path().join(".tmp-wspack-dead");
    std::fs::write(&dead, b"WSPACK02").unwrap();
    age(&dead);
    let fresh = cache.path().join(".tmpfresh");
    std::fs::write(&fresh, b"x").unwrap();
    let live = PackWriter::create(&cache.path().join("a.wspack"), b"k").unwrap();
    let live_tmp = live.out.get_ref().path().to_path_buf();
    assert!(!dead.exists(), "the dead writer's file is deleted");
    age(&live_tmp);
    let _next = PackWriter::create(&cache.path().join("b.wspack"), b"k").unwrap();
    assert!(live_tmp.exists(), "a live writer's file is kept");
    assert!(fresh.exists(), "a file changed within the minute is kept");
    live.finish().unwrap();
    assert!(cache.path().join("a.wspack").exists());
}

/// A kernel of `warps` warps a block (its last `last_lanes` wide) and the rules' header.
fn kernel(grid: u32, warps: u32, last_lanes: u32) -> KernelHeader {
    KernelHeader {
        name: "k".into(),
        grid: [grid, 1, 1],
        block: [32 * (warps - 1) + last_lanes, 1, 1],
        tracer_version: 5,
        ..KernelHeader::default()
    }
}

const OPS: [&str; 3] = ["LDG.E", "FFMA", "EXIT"];

/// A legal instruction of a warp whose lanes are `lanes`.
fn inst(lanes: u32) -> impl Strategy<Value = Inst> {
    (
        any::<u64>(),
        any::<u32>(),
        0u16..3,
        proptest::option::of(any::<u8>()),
        proptest::collection::vec(any::<u8>(), 0..=4),
        any::<u64>(),
        prop_oneof![Just(0u64), Just(4), any::<u64>()],
        proptest::collection::vec(any::<u64>(), 32),
    )
        .prop_map(move |(pc, mask, op, dest, srcs, base, stride, list)| {
            let mask = mask & lanes;
            let n = mask.count_ones() as usize;
            let (mem_bytes, addrs) = match (op, stride % 3) {
                (0, 0) => (4, LaneAddrs::new(&list[..n])),
                (0, _) => (4, LaneAddrs::strided(base, stride, n)),
                _ => (0, LaneAddrs::Empty),
            };
            Inst {
                pc,
                mask,
                op,
                dest,
                srcs: Srcs::from_vec(srcs),
                mem_bytes,
                addrs,
            }
        })
}

/// Legal blocks of `h` (distinct ids in the grid, each warp's lanes those of the block,
/// at least one instruction a block).
fn blocks(h: &KernelHeader) -> impl Strategy<Value = Vec<TraceBlock>> {
    let warps = h.warps() as usize;
    let lanes: Vec<u32> = (0..warps).map(|w| h.lanes(w)).collect();
    let grid = h.grid[0];
    let warp = move |w: usize| proptest::collection::vec(inst(lanes[w]), 1..5);
    let block = (0..warps).map(warp).collect::<Vec<_>>();
    proptest::collection::vec(block, 1..4).prop_flat_map(move |bs| {
        let n = bs.len();
        (
            Just(bs),
            proptest::sample::subsequence((0..grid).collect::<Vec<_>>(), n),
        )
            .prop_map(|(bs, ids)| {
                bs.into_iter()
                    .zip(ids)
                    .map(|(warps, x)| TraceBlock {
                        id: [x, 0, 0],
                        warps,
                    })
                    .collect()
            })
    })
}

/// `blocks` packed into a fresh copy under key `key`, every opcode with the first.
fn pack(path: &Path, blocks: &[TraceBlock]) {
    let ops: Vec<String> = OPS.map(String::from).to_vec();
    let mut w = PackWriter::create(path, b"key").unwrap();
    for (k, b) in blocks.iter().enumerate() {
        w.block(b, if k == 0 { &ops } else { &[] }).unwrap();
    }
    assert_eq!(w.blocks(), blocks.len() as u64);
    w.finish().unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Legal blocks read back as written, with the opcodes numbered as written.
    #[test]
    fn blocks_read_back_as_written(
        (h, bs) in (1u32..4, 1u32..=32).prop_map(|(w, l)| kernel(8, w, l))
            .prop_flat_map(|h| (Just(h.clone()), blocks(&h)))
    ) {
        let cache = tempfile::tempdir().unwrap();
        let copy = cache.path().join("c.wspack");
        pack(&copy, &bs);
        let (back, back_ops) = read_copy(&copy, b"key", &h).unwrap();
        prop_assert_eq!(back, bs);
        prop_assert_eq!(back_ops, OPS.map(String::from).to_vec());
    }
}

/// Read a copy whose byte `at` is `byte`: the blocks before an error and whether one came
/// (`None`: not opened, the key or magic no longer match). `checked`: the reader verifies
/// the checksums (off: the deliberately wrong variant).
fn read_corrupted(
    clean: &[u8],
    at: usize,
    byte: u8,
    h: &KernelHeader,
    checked: bool,
) -> Option<(Vec<TraceBlock>, bool)> {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("c.wspack");
    let mut bytes = clean.to_vec();
    bytes[at] = byte;
    std::fs::write(&copy, &bytes).unwrap();
    let mut p = PackReader::open(&copy, b"key", h)?;
    p.checked = checked;
    let mut out = Vec::new();
    loop {
        match p.next_block() {
            Ok(Some(b)) => out.push(b),
            Ok(None) => return Some((out, false)),
            Err(_) => return Some((out, true)),
        }
    }
}

/// Whether a corrupted copy read as `got` could pass for `clean`: every block it gave is the
/// clean one at its place, and it gave all of them or stopped at an error.
fn as_clean(got: &Option<(Vec<TraceBlock>, bool)>, clean: &[TraceBlock]) -> bool {
    match got {
        None => true,
        Some((blocks, failed)) => {
            blocks.len() <= clean.len()
                && blocks[..] == clean[..blocks.len()]
                && (*failed || blocks.len() == clean.len())
        }
    }
}

/// The LUD trace's copy and blocks, for the corruption tests.
fn lud_copy() -> (Vec<u8>, Vec<TraceBlock>, KernelHeader) {
    let cache = tempfile::tempdir().unwrap();
    let (blocks, _, copy, key) = read_text(&lud(), cache.path());
    // Re-keyed "key", so that the tests' copies open wherever they are written.
    let mut bytes = std::fs::read(&copy).unwrap();
    let body = bytes.split_off(12 + key.len());
    let mut out = MAGIC.to_vec();
    out.extend(3u32.to_le_bytes());
    out.extend(b"key");
    out.extend(body);
    (out, blocks, header_of(&lud()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// A copy with any one byte changed gives the clean blocks, or stops with an error (never
    /// a block that differs, never a panic): the run then reads the text.
    #[test]
    fn a_corrupted_copy_never_gives_a_block_the_text_does_not(
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let (clean, blocks, h) = lud_copy();
        let at = at.index(clean.len());
        prop_assume!(clean[at] != byte);
        let got = read_corrupted(&clean, at, byte, &h, true);
        prop_assert!(as_clean(&got, &blocks), "byte {} set to {:#x}", at, byte);
    }
}

/// Without the checksums, corruptions pass as other blocks: the check above catches that.
#[test]
fn a_reader_without_checksums_is_caught() {
    let (clean, blocks, h) = lud_copy();
    let caught = (0..clean.len()).step_by(97).any(|at| {
        !as_clean(
            &read_corrupted(&clean, at, clean[at] ^ 1, &h, false),
            &blocks,
        )
    });
    assert!(caught, "the unchecked reader was not caught");
    let passes = (0..clean.len()).step_by(97).all(|at| {
        as_clean(
            &read_corrupted(&clean, at, clean[at] ^ 1, &h, true),
            &blocks,
        )
    });
    assert!(passes);
}

/// A key check a reader skipped would read a stale trace: the key is checked before any
/// block is read, so a copy opened under a wrong key yields nothing.
#[test]
fn a_copy_is_opened_under_its_own_key_only() {
    let cache = tempfile::tempdir().unwrap();
    let copy = cache.path().join("c.wspack");
    let h = kernel(1, 1, 32);
    let w = PackWriter::create(&copy, b"path\0len\0time").unwrap();
    w.finish().unwrap();
    assert!(PackReader::open(&copy, b"path\0len\0time", &h).is_some());
    for wrong in [&b"path\0len\0tim3"[..], b"path\0len\0time2", b""] {
        assert!(PackReader::open(&copy, wrong, &h).is_none());
    }
}

/// Blocks no text could give (each breaking one of the kernel's rules) are refused when read
/// back from a copy, as the text reader refuses them.
#[test]
fn a_copy_holding_a_block_the_rules_refuse_is_an_error() {
    let h = kernel(4, 2, 8);
    let good = |id: u32| TraceBlock {
        id: [id, 0, 0],
        warps: vec![
            vec![Inst {
                pc: 0,
                mask: u32::MAX,
                op: 2,
                dest: None,
                srcs: Srcs::new(),
                mem_bytes: 0,
                addrs: LaneAddrs::Empty,
            }],
            vec![],
        ],
    };
    let with = |f: &dyn Fn(&mut TraceBlock)| {
        let mut b = good(1);
        f(&mut b);
        vec![good(0), b]
    };
    for (what, blocks) in [
        ("outside the grid", with(&|b| b.id = [4, 0, 0])),
        ("given twice", with(&|b| b.id = [0, 0, 0])),
        (
            "beyond the block's threads",
            with(&|b| b.warps[1] = b.warps[0].clone()),
        ),
        ("warps", with(&|b| b.warps.push(vec![]))),
        ("holds no instruction", with(&|b| b.warps[0].clear())),
        ("not known", with(&|b| b.warps[0][0].op = 3)),
        ("a memory access", with(&|b| b.warps[0][0].mem_bytes = 4)),
        (
            "a memory access",
            with(&|b| {
                b.warps[0][0].op = 0;
                b.warps[0][0].mem_bytes = 4;
                b.warps[0][0].addrs = LaneAddrs::strided(0, 4, 31);
            }),
        ),
        (
            "source registers",
            with(&|b| b.warps[0][0].srcs = Srcs::from_vec(vec![1; 5])),
        ),
    ] {
        let cache = tempfile::tempdir().unwrap();
        let copy = cache.path().join("c.wspack");
        pack(&copy, &blocks);
        let (got, _, err) = read_copy_upto(&copy, b"key", &h).unwrap();
        assert_eq!(got, blocks[..1], "{what}");
        let e = err.unwrap_or_else(|| panic!("{what}: no error"));
        assert!(e.message.contains(what), "{what}: {}", e.message);
    }
    // The good blocks pass.
    let cache = tempfile::tempdir().unwrap();
    let copy = cache.path().join("c.wspack");
    pack(&copy, &[good(0), good(1)]);
    assert!(read_copy(&copy, b"key", &h).is_ok());
}
