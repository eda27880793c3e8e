//! The reference traces, the policies a trace runs under, and packed copies of traces.

use super::*;

#[test]
fn the_reference_traces_run_to_completion_instruction_for_instruction() {
    let lud = traces("rodinia2-lud-kernel8-volta-legacy-format");
    let excerpt = traces("pytorch-pow-kernel593-tracer-v5-excerpt")
        .join("kernel-593-ctx_0x55c28dad19e0.traceg.excerpt-TB0-TB1");
    // The excerpt's own list names the whole trace, which is not there: list the excerpt.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("kernelslist.g"),
        format!("{}\n", excerpt.display()),
    )
    .unwrap();
    for p in spec::PRESETS.iter().map(|p| p.name) {
        let s = preset(p);
        let r = run_trace(&s, &lud, None).unwrap();
        assert_eq!(r.kernels.len(), 1);
        assert_eq!(r.instructions, counted(&lud.join("kernel-8.traceg")), "{p}");
        assert_eq!((r.kernels[0].blocks, r.instructions), (1, 1027), "{p}");
        assert!(r.l1.accesses > 0 && r.cycles > 0, "{p}");
        let x = run_trace(&s, dir.path(), None).unwrap();
        assert_eq!(x.instructions, counted(&excerpt), "{p}");
        assert_eq!((x.kernels[0].blocks, x.instructions), (2, 264), "{p}");
    }
}

#[test]
fn a_trace_runs_under_rr_or_bcs_only() {
    let lud = traces("rodinia2-lud-kernel8-volta-legacy-format");
    for p in spec::DispatchPolicy::ALL {
        let s = ConfigRequest::preset("tiny")
            .with(&format!("dispatch.policy={}", p.name()))
            .resolve()
            .unwrap();
        let r = run_trace(&s, &lud, None);
        match p {
            spec::DispatchPolicy::Rr | spec::DispatchPolicy::Bcs => {
                assert_eq!(r.unwrap().instructions, 1027, "{p:?}");
            }
            _ => assert!(matches!(r, Err(GpuError::TracePolicy { .. })), "{p:?}"),
        }
    }
}

/// A run with a trace cache packs the trace and gives the same figures as a run of the text;
/// the next run reads the copy (a doctored copy, its first load moved, changes the figures)
/// and gives them again from an untouched one.
#[test]
fn a_packed_copy_runs_as_its_text_and_is_what_the_next_run_reads() {
    let lud = traces("rodinia2-lud-kernel8-volta-legacy-format");
    let s = preset("fermi-gtx480");
    let cache = tempfile::tempdir().unwrap();
    let with_cache = || {
        let mut o = RunOptions {
            trace_cache: Some(cache.path().to_path_buf()),
            ..RunOptions::default()
        };
        run_with(&s, Workload::Trace(&lud), &mut o).unwrap()
    };
    let text = run_trace(&s, &lud, None).unwrap();
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
    assert_eq!(with_cache(), text, "the run that packs");
    let copies: Vec<_> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(copies.len(), 1, "one copy, no temporary file");
    assert_eq!(with_cache(), text, "the run that reads the copy");
    // Doctor the copy: every load of the first warp moved 1 MiB away.
    let kernel = lud.join("kernel-8.traceg");
    let text_reader = crate::workload::accelsim::KernelReader::open(&kernel).unwrap();
    let (copy, key) =
        crate::workload::pack::copy_of(cache.path(), &kernel, text_reader.file()).unwrap();
    assert_eq!(copy, copies[0]);
    let mut r = PackReader::open(&copy, &key, text_reader.header()).unwrap();
    let mut blocks = Vec::new();
    while let Some(b) = r.next_block().unwrap() {
        blocks.push(b);
    }
    let ops = r.opcodes().to_vec();
    for i in &mut blocks[0].warps[0] {
        i.addrs.shift(1 << 20);
    }
    let mut w = PackWriter::create(&copy, &key).unwrap();
    for (k, b) in blocks.iter().enumerate() {
        w.block(b, if k == 0 { &ops } else { &[] }).unwrap();
    }
    w.finish().unwrap();
    assert_ne!(with_cache(), text, "the doctored copy is what runs");
    assert_eq!(
        run_trace(&s, &lud, None).unwrap(),
        text,
        "no cache: the text"
    );
}

/// A random trace's run with its packed copy corrupted at one byte: the same figures as the
/// run of its text (the copy is read up to its bad record, then the text from that block on),
/// and the copy is rebuilt whole.
struct Corrupted {
    _dir: tempfile::TempDir,
    trace: PathBuf,
    cache: tempfile::TempDir,
    copy: PathBuf,
    clean: Vec<u8>,
    text: RunSummary,
    spec: Spec,
}

impl Corrupted {
    fn new() -> Corrupted {
        let dir = tempfile::tempdir().unwrap();
        random_kernel(dir.path(), 7, 6, 2);
        let spec = preset("tiny");
        let trace = dir.path().to_path_buf();
        let text = run_trace(&spec, &trace, None).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let c = Corrupted {
            _dir: dir,
            trace,
            cache,
            copy: PathBuf::new(),
            clean: Vec::new(),
            text,
            spec,
        };
        let (r, _) = c.run();
        assert_eq!(r, c.text, "the run that packs");
        let copies: Vec<PathBuf> = std::fs::read_dir(c.cache.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(copies.len(), 1);
        let clean = std::fs::read(&copies[0]).unwrap();
        Corrupted {
            copy: copies[0].clone(),
            clean,
            ..c
        }
    }

    fn run(&self) -> (RunSummary, Vec<String>) {
        let mut o = RunOptions {
            trace_cache: Some(self.cache.path().to_path_buf()),
            ..RunOptions::default()
        };
        let r = run_with(&self.spec, Workload::Trace(&self.trace), &mut o).unwrap();
        (r, o.notes)
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    #[test]
    fn a_run_from_a_corrupted_copy_gives_the_texts_figures(
        at in proptest::prelude::any::<proptest::sample::Index>(),
        byte in proptest::prelude::any::<u8>(),
    ) {
        thread_local!(static C: Corrupted = Corrupted::new());
        C.with(|c| {
            let at = at.index(c.clean.len());
            let mut bad = c.clean.clone();
            bad[at] ^= byte.max(1);
            std::fs::write(&c.copy, &bad).unwrap();
            let (r, notes) = c.run();
            proptest::prop_assert_eq!(&r, &c.text, "byte {} changed", at);
            // A bad record is noted; a changed key or magic only makes the copy foreign.
            proptest::prop_assert!(notes.len() <= 1, "{:?}", notes);
            proptest::prop_assert_eq!(
                std::fs::read(&c.copy).unwrap(),
                c.clean.clone(),
                "the copy is rebuilt"
            );
            proptest::prop_assert_eq!(std::fs::read_dir(c.cache.path()).unwrap().count(), 1);
            Ok(())
        })?;
    }
}

/// A copy bad at its last block record: the blocks before it come from the copy, the rest
/// from the text, and the note names the copy and the trace.
#[test]
fn a_copy_bad_midway_is_left_for_the_text_at_the_same_block() {
    let c = Corrupted::new();
    let mut bad = c.clean.clone();
    // The end record is the last 17 bytes (length, checksum, tag, count): the byte before
    // them is the last block's.
    let at = bad.len() - 18;
    bad[at] ^= 0x40;
    std::fs::write(&c.copy, &bad).unwrap();
    let (r, notes) = c.run();
    assert_eq!(r, c.text);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("checksum") && notes[0].contains("kernel-1.traceg"),
        "{}",
        notes[0]
    );
    assert_eq!(std::fs::read(&c.copy).unwrap(), c.clean);
}

/// A copy bad only in its end record (read after the grid's last block): found all the same,
/// and the copy rebuilt (without the check after the last block it stayed bad for ever).
#[test]
fn a_copy_bad_in_its_end_record_is_rebuilt() {
    let c = Corrupted::new();
    let mut bad = c.clean.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    std::fs::write(&c.copy, &bad).unwrap();
    let (r, notes) = c.run();
    assert_eq!(r, c.text);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(std::fs::read(&c.copy).unwrap(), c.clean);
}
