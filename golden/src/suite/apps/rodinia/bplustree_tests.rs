//! b+tree's host program: the tree, its CUDA layout, the input files and the queries.

use super::*;

#[test]
fn the_tree_of_a_million_increasing_keys_has_mil_txts_published_shape() {
    // The suite's run prints knodes_elem=7874 for mil.txt (1,000,000 records).
    let keys: Vec<i32> = (1..=1_000_000).collect();
    let tree = Tree::build(&keys);
    let kn = Knodes::of(&tree, keys.len());
    assert_eq!((kn.count, tree.height()), (7874, 2));
    assert_eq!(kn.bytes.len(), 7874 * 2068);
    assert_eq!(kn.records, keys);
    assert!(kn.count as u64 <= max_nodes(1_000_000));
}

#[test]
fn knodes_are_laid_out_as_transform_to_cuda_writes_them() {
    let word = |kn: &Knodes, node: usize, at: usize| {
        let a = node * KNODE_BYTES + at;
        i32::from_le_bytes(kn.bytes[a..a + 4].try_into().unwrap())
    };
    // One leaf: its keys between INT_MIN and INT_MAX, record indices beside them, the
    // next node's index after them.
    let kn = Knodes::of(&Tree::build(&[3, 1, 2, 2]), 4);
    assert_eq!(kn.count, 1);
    assert_eq!(word(&kn, 0, NUM_KEYS_AT), 5);
    assert_eq!(kn.bytes[IS_LEAF_AT], 1);
    let keys: Vec<i32> = (0..7).map(|i| word(&kn, 0, KEYS_AT + 4 * i)).collect();
    assert_eq!(keys, [i32::MIN, 1, 2, 3, i32::MAX, i32::MAX, i32::MAX]);
    let idx: Vec<i32> = (0..5).map(|i| word(&kn, 0, INDICES_AT + 4 * i)).collect();
    assert_eq!(idx, [0, 0, 1, 2, 1]);
    assert_eq!(kn.records, [1, 2, 3, 0]);
    // 256 keys split the leaf at cut(255) = 128: a root over two leaves, children 1 and 2.
    let keys: Vec<i32> = (0..256).map(|k| k * 10).collect();
    let t = Tree::build(&keys);
    let kn = Knodes::of(&t, 256);
    assert_eq!((kn.count, t.height()), (3, 1));
    assert_eq!(word(&kn, 0, KEYS_AT + 4), 1280);
    assert_eq!(word(&kn, 0, INDICES_AT), 1);
    assert_eq!(word(&kn, 0, INDICES_AT + 4), 2);
    assert_eq!(word(&kn, 0, INDICES_AT + 8), 1);
    assert_eq!(
        (word(&kn, 1, NUM_KEYS_AT), word(&kn, 2, NUM_KEYS_AT)),
        (130, 130)
    );
    assert_eq!(word(&kn, 2, INDICES_AT + 4), 128);
    assert_eq!(
        word(&kn, 2, KEYS_AT + 4 * 256),
        0,
        "keys[256] is never written"
    );
    // A full internal node (255 keys) splits at cut(256) = 128: 127 keys stay.
    let t = Tree::build(&(0..128 * 257).collect::<Vec<_>>());
    let root = t.root.unwrap();
    assert_eq!(t.nodes[root].children.len(), 2);
    let left = t.nodes[root].children[0];
    assert_eq!(t.nodes[left].keys.len(), 127);
    for k in [0, 5000, 128 * 257 - 1] {
        assert_eq!(t.find(k), Some(k));
    }
    assert_eq!(t.find(-1), None);
}

#[test]
fn the_queries_are_glibcs_unseeded_rand_scaled_as_floats() {
    let cmds = [
        Command::J {
            count: 2,
            range: 6000,
        },
        Command::K { count: 1 },
    ];
    let q = queries(&cmds, 1_000_000);
    let Queries::Range { start, end } = &q[0] else {
        panic!()
    };
    // rand() = 1804289383, 846930886, 1681692777: 0.8401877 * 1e6 in floats...
    assert_eq!(start, &[840187, 394382]);
    assert_eq!(end, &[846187, 400382]);
    let Queries::Find { keys } = &q[1] else {
        panic!()
    };
    assert_eq!(keys, &[783099]);
    // A range past the last key is moved back: [size - range, size - 1].
    let q = queries(
        &[Command::J {
            count: 1,
            range: 10,
        }],
        1,
    );
    let Queries::Range { start, end } = &q[0] else {
        panic!()
    };
    assert_eq!((start[0], end[0]), (-9, 0));
}

#[test]
fn a_command_file_is_read_as_main_c_reads_it_and_a_bad_one_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("command.txt");
    let read = |text: &str| {
        std::fs::write(&p, text).unwrap();
        read_commands(&p)
    };
    // The suite's command.txt: the pointer stays at the space before 6000, so the range
    // size is read as 6000 too (its run prints "j count=6000, rSize=6000").
    let suite = vec![
        Command::J {
            count: 6000,
            range: 6000,
        },
        Command::K { count: 10000 },
    ];
    assert_eq!(read("j 6000 3000\nk 10000\n").unwrap(), suite);
    assert_eq!(
        read("j6000 3000\n").unwrap(),
        vec![Command::J {
            count: 6000,
            range: 3000
        }]
    );
    // `k10` moves the pointer past the newline to the next space: the `j` is not seen.
    assert_eq!(
        read("k10\nj 5 5\n").unwrap(),
        vec![Command::K { count: 10 }]
    );
    for (text, needle) in [
        ("j 6000 3000\nk 70000\n", "line 2: `k` with 70000 queries"),
        (
            "\n\nf 5\n",
            "line 3: command `f` reads its operands from the terminal",
        ),
        ("k x\n", "line 1: the `k` command's count is not an integer"),
        ("j\n", "line 1: the `j` command's count is not an integer"),
        ("k 0\n", "line 1: `k` with 0 queries"),
        ("5 5\n", "has no `j` or `k` command"),
    ] {
        let e = read(text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
    assert!(matches!(
        read_commands(&dir.path().join("none")),
        Err(SuiteError::Io { .. })
    ));
}

#[test]
fn a_keys_file_is_read_and_a_bad_one_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("keys.txt");
    std::fs::write(&p, "4\n3\n-1\n2\n2\n").unwrap();
    assert_eq!(read_keys(&p).unwrap(), (4, vec![3, -1, 2, 2]));
    for (text, needle) in [
        ("4\n3\nx\n", "line 3: the key `x` is not a 32-bit integer"),
        ("4\n3\n3000000000\n", "line 3: the key `3000000000`"),
        ("y\n", "line 1: the key count `y` is not an integer"),
        ("0\n1\n", "line 1: 0 keys"),
        ("3\n", "has a key count but no keys"),
        ("", "is empty"),
    ] {
        std::fs::write(&p, text).unwrap();
        let e = read_keys(&p).unwrap_err().to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
    // More distinct keys than the count would overflow the source's records.
    std::fs::write(&p, "2\n1\n2\n3\n").unwrap();
    let spec = format!("b+tree:file={},j=0,k=1", p.display());
    let e = crate::suite::make(&spec, 1).err().unwrap().to_string();
    assert!(
        e.contains("3 distinct keys, more than the 2 records"),
        "{e}"
    );
    let c = dir.path().join("c.txt");
    std::fs::write(&c, "j 3 3\n").unwrap();
    std::fs::write(&p, "2\n1\n2\n").unwrap();
    let spec = format!("b+tree:file={},command={}", p.display(), c.display());
    let e = crate::suite::make(&spec, 1).err().unwrap().to_string();
    assert!(e.contains("a `j` range of 3 keys"), "{e}");
}

#[test]
fn a_tree_of_keys_in_random_order_is_searched_as_the_host_searches_it() {
    // Keys with gaps and repeats, in random order: fuller leaves than increasing keys
    // give, queries that miss, and a `j` range whose end moves back to the last record.
    let mut rng = Rng::new(5);
    let keys: Vec<i32> = (0..9000).map(|_| rng.below(12_000) as i32 - 100).collect();
    let dir = tempfile::tempdir().unwrap();
    let (kp, cp) = (dir.path().join("keys.txt"), dir.path().join("command.txt"));
    let text: String = keys.iter().map(|k| format!("{k}\n")).collect();
    std::fs::write(&kp, format!("12000\n{text}")).unwrap();
    std::fs::write(&cp, "j 40 300\nk 50\n").unwrap();
    let spec = format!("b+tree:file={},command={}", kp.display(), cp.display());
    let (w, mut app) = crate::suite::make(&spec, 1).unwrap();
    let mut launches = Vec::new();
    crate::suite::emulate(w.name, app.as_mut(), |h, _| launches.push(h.name.clone())).unwrap();
    launches.dedup();
    assert_eq!(launches, ["findRangeK", "findK"]);
}
