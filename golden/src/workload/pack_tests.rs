use super::*;
use crate::workload::accelsim::KernelReader;
use proptest::prelude::*;

fn reference(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests-data/accelsim-traces")
        .join(dir)
}

/// Every block of a trace's text, with its opcodes, packed into `dir` on the way as a run
/// packs them.
fn read_text(trace: &Path, dir: &Path) -> (Vec<TraceBlock>, Vec<String>, PathBuf, Vec<u8>) {
    let (copy, key) = copy_of(dir, trace).unwrap();
    let mut w = PackWriter::create(&copy, &key).unwrap();
    let mut r = KernelReader::open(trace).unwrap();
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

fn read_copy(copy: &Path, key: &[u8]) -> Result<(Vec<TraceBlock>, Vec<String>), TraceError> {
    let mut p = PackReader::open(copy, key).expect("the copy opens");
    let mut blocks = Vec::new();
    while let Some(b) = p.next_block()? {
        blocks.push(b);
    }
    let ops = (0..p.ops.len() as u16)
        .map(|i| p.opcode(i).to_string())
        .collect();
    Ok((blocks, ops))
}

#[test]
fn the_reference_traces_read_back_from_their_copies_as_parsed() {
    for (dir, file) in [
        (
            "rodinia2-lud-kernel8-volta-legacy-format",
            "kernel-8.traceg",
        ),
        (
            "pytorch-pow-kernel593-tracer-v5-excerpt",
            "kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1",
        ),
    ] {
        let cache = tempfile::tempdir().unwrap();
        let (blocks, ops, copy, key) = read_text(&reference(dir).join(file), cache.path());
        assert!(!blocks.is_empty(), "{dir}");
        let (back, back_ops) = read_copy(&copy, &key).unwrap();
        assert_eq!(back, blocks, "{dir}");
        assert_eq!(back_ops, ops, "{dir}");
        // Nothing but the copy is left in the folder (no temporary file).
        assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 1);
    }
}

#[test]
fn a_changed_trace_is_not_read_from_its_old_copy() {
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let dir = reference("rodinia2-lud-kernel8-volta-legacy-format");
    let trace = work.path().join("kernel-8.traceg");
    std::fs::copy(dir.join("kernel-8.traceg"), &trace).unwrap();
    let (_, _, copy, key) = read_text(&trace, cache.path());
    assert!(PackReader::open(&copy, &key).is_some());
    // The same path, one byte longer: another key; the old copy is not opened under it.
    let mut text = std::fs::read(&trace).unwrap();
    text.push(b'\n');
    std::fs::write(&trace, &text).unwrap();
    let (copy2, key2) = copy_of(cache.path(), &trace).unwrap();
    assert_ne!(key2, key);
    assert!(copy2 != copy && PackReader::open(&copy2, &key2).is_none());
    // Rewritten at the same length and modification time (a coarse file-system clock), one
    // byte changed near its end: another key all the same.
    let stamp = std::fs::metadata(&trace).unwrap().modified().unwrap();
    let last = text.len() - 2;
    text[last] = if text[last] == b'0' { b'1' } else { b'0' };
    std::fs::write(&trace, &text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&trace)
        .unwrap()
        .set_modified(stamp)
        .unwrap();
    assert_eq!(
        std::fs::metadata(&trace).unwrap().modified().unwrap(),
        stamp
    );
    let (_, key3) = copy_of(cache.path(), &trace).unwrap();
    assert_ne!(key3, key2, "the sampled text tells the rewrite apart");
    // A copy under a foreign key (a file put in its place) is not read either.
    std::fs::copy(&copy, &copy2).unwrap();
    assert!(PackReader::open(&copy2, &key2).is_none());
}

#[test]
fn a_cut_copy_is_an_error_naming_it_and_an_unfinished_one_is_not_kept() {
    let cache = tempfile::tempdir().unwrap();
    let dir = reference("rodinia2-lud-kernel8-volta-legacy-format");
    let (_, _, copy, key) = read_text(&dir.join("kernel-8.traceg"), cache.path());
    let bytes = std::fs::read(&copy).unwrap();
    for cut in [bytes.len() - 1, bytes.len() - 5, bytes.len() / 2] {
        std::fs::write(&copy, &bytes[..cut]).unwrap();
        let e = read_copy(&copy, &key).unwrap_err();
        assert_eq!(e.file, copy);
        assert!(e.message.contains("delete the file"), "{}", e.message);
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

fn inst() -> impl Strategy<Value = Inst> {
    let addrs = prop_oneof![
        Just(Vec::new()),
        (any::<u64>(), any::<u64>(), 1u64..=32)
            .prop_map(|(b, s, n)| (0..n).map(|k| b.wrapping_add(k.wrapping_mul(s))).collect()),
        proptest::collection::vec(any::<u64>(), 0..=32),
    ];
    (
        any::<u64>(),
        any::<u32>(),
        0u16..3,
        proptest::option::of(0u16..300),
        proptest::collection::vec(0u16..300, 0..=4),
        prop_oneof![Just(0u32), Just(4), Just(16)],
        addrs,
    )
        .prop_map(|(pc, mask, op, dest, srcs, mem_bytes, a)| Inst {
            pc,
            mask,
            op,
            dest,
            srcs: Srcs::from_vec(srcs),
            mem_bytes,
            addrs: LaneAddrs::new(&a),
        })
}

fn block() -> impl Strategy<Value = TraceBlock> {
    (
        any::<[u32; 3]>(),
        proptest::collection::vec(proptest::collection::vec(inst(), 0..6), 0..5),
    )
        .prop_map(|(id, warps)| TraceBlock { id, warps })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Any blocks read back as written, with the opcodes numbered as written.
    #[test]
    fn blocks_read_back_as_written(blocks in proptest::collection::vec(block(), 1..4)) {
        let cache = tempfile::tempdir().unwrap();
        let copy = cache.path().join("c.wspack");
        let ops: Vec<String> = ["LDG.E", "FFMA", "EXIT"].map(String::from).to_vec();
        let mut w = PackWriter::create(&copy, b"key").unwrap();
        for (k, b) in blocks.iter().enumerate() {
            // Every opcode arrives with the first block.
            w.block(b, if k == 0 { &ops } else { &[] }).unwrap();
        }
        prop_assert_eq!(w.blocks(), blocks.len() as u64);
        w.finish().unwrap();
        let (back, back_ops) = read_copy(&copy, b"key").unwrap();
        prop_assert_eq!(back, blocks);
        prop_assert_eq!(back_ops, ops);
    }
}

/// A reader that took a copy of another key would read a stale trace: the key is checked
/// before any block is read, so a copy opened under a wrong key yields nothing.
#[test]
fn a_copy_is_opened_under_its_own_key_only() {
    let cache = tempfile::tempdir().unwrap();
    let copy = cache.path().join("c.wspack");
    let w = PackWriter::create(&copy, b"path\0len\0time").unwrap();
    w.finish().unwrap();
    assert!(PackReader::open(&copy, b"path\0len\0time").is_some());
    for wrong in [&b"path\0len\0tim3"[..], b"path\0len\0time2", b""] {
        assert!(PackReader::open(&copy, wrong).is_none());
    }
}
