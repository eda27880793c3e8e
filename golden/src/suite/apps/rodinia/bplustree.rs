use super::*;

// ---- b+tree --------------------------------------------------------------------------------

pub(in crate::suite::apps) const BPLUSTREE: Workload = Workload {
    name: "b+tree",
    suite: "Rodinia 3.1",
    source: "rodinia/3.1/cuda/b+tree (main.c; kernel/kernel_gpu_cuda_wrapper.cu with \
        kernel_gpu_cuda.cu, kernel_gpu_cuda_wrapper_2.cu with kernel_gpu_cuda_2.cu)",
    args: &[
        (
            "keys",
            "1000000",
            "keys 1 to N, inserted in increasing order (AccelWattch's mil.txt: 1,000,000; \
            its tree, 7,874 nodes of height 2, is the one this builds)",
        ),
        (
            "j",
            "600",
            "queries of the `j` command: findRangeK's blocks (command.txt: `j 6000 3000`); 0: \
            no `j` command",
        ),
        (
            "range",
            "",
            "the `j` command's range size; empty: the query count, which is what the source \
            reads from `j 6000 3000` (its pointer does not pass the first number)",
        ),
        (
            "k",
            "1000",
            "queries of the `k` command: findK's blocks (command.txt: `k 10000`); 0: no `k` \
            command",
        ),
        (
            "file",
            "",
            "keys in Rodinia's format (mil.txt: their count, then one key a line) in place of \
            the generated ones",
        ),
        (
            "command",
            "",
            "a command file in Rodinia's format (command.txt: `j COUNT RANGE`, `k COUNT`), \
            read as the source reads it, in place of j, range and k",
        ),
    ],
    input: "keys 1 to N in increasing order, as in the suite's mil.txt (the order its tree's \
        published node count shows), or a Rodinia keys file; the queries are the source's own \
        (glibc rand(), never seeded), a `j` command then a `k` command",
    small: "keys=40000,j=3,k=4",
    make: bplustree,
};

/// The source's `DEFAULT_ORDER`: the tree's order and the kernels' threads per block.
pub(super) const BT_ORDER: usize = 256;
/// `sizeof(knode)`: `location`, `indices[ORDER + 1]`, `keys[ORDER + 1]`, `is_leaf` (padded to
/// 4 bytes), `num_keys`.
pub(super) const KNODE_BYTES: usize = 4 + 2 * 4 * (BT_ORDER + 1) + 4 + 4;
/// Where a knode's `indices` and `keys` start.
const INDICES_AT: usize = 4;
const KEYS_AT: usize = INDICES_AT + 4 * (BT_ORDER + 1);
const IS_LEAF_AT: usize = KEYS_AT + 4 * (BT_ORDER + 1);
const NUM_KEYS_AT: usize = IS_LEAF_AT + 4;
/// The `k` command's limit ("limited by # of CUDA blocks"); the `j` command has none in the
/// source, this bound keeps its arrays in memory.
const MAX_K: u64 = 65_535;
const MAX_J: u64 = 1 << 20;

/// A node of main.c's pointer B+ tree (`node`): its keys and, for an internal node, its
/// children (`pointers[0..=num_keys]`); a leaf's records hold their own key as value
/// (`insert(root, input, input)`), so they are not stored.
#[derive(Debug, Clone)]
struct Node {
    keys: Vec<i32>,
    children: Vec<usize>,
    parent: Option<usize>,
    leaf: bool,
}

/// main.c's B+ tree of order [`BT_ORDER`], built by its `insert`.
#[derive(Debug, Clone, Default)]
pub(super) struct Tree {
    nodes: Vec<Node>,
    root: Option<usize>,
}

/// main.c's `cut`: where a node of `length` entries is split.
fn cut(length: usize) -> usize {
    length.div_ceil(2)
}

impl Tree {
    /// The tree main.c builds by inserting `keys` in order (duplicates ignored).
    pub fn build(keys: &[i32]) -> Tree {
        let mut t = Tree::default();
        for &k in keys {
            t.insert(k);
        }
        t
    }

    /// `find_leaf`: the leaf whose range holds `key` (each internal node's child `i` is the
    /// number of its keys at most `key`; its keys are sorted, so a binary search finds the
    /// same as main.c's scan).
    fn find_leaf(&self, key: i32) -> Option<usize> {
        let mut c = self.root?;
        while !self.nodes[c].leaf {
            let i = self.nodes[c].keys.partition_point(|&k| k <= key);
            c = self.nodes[c].children[i];
        }
        Some(c)
    }

    /// main.c's `find`: the record (its value) under `key`, if any.
    pub fn find(&self, key: i32) -> Option<i32> {
        let leaf = self.find_leaf(key)?;
        self.nodes[leaf].keys.contains(&key).then_some(key)
    }

    /// Edges from the root to a leaf (main.c's `height`).
    pub fn height(&self) -> u64 {
        let Some(mut c) = self.root else { return 0 };
        let mut h = 0;
        while !self.nodes[c].leaf {
            c = self.nodes[c].children[0];
            h += 1;
        }
        h
    }

    fn push(&mut self, n: Node) -> usize {
        self.nodes.push(n);
        self.nodes.len() - 1
    }

    /// main.c's `insert` (and `start_new_tree`, `insert_into_leaf`,
    /// `insert_into_leaf_after_splitting`).
    fn insert(&mut self, key: i32) {
        if self.find(key).is_some() {
            return;
        }
        let Some(leaf) = self.find_leaf(key) else {
            let root = self.push(Node {
                keys: vec![key],
                children: Vec::new(),
                parent: None,
                leaf: true,
            });
            self.root = Some(root);
            return;
        };
        let at = self.nodes[leaf].keys.partition_point(|&k| k < key);
        self.nodes[leaf].keys.insert(at, key);
        // (At most order - 1 keys fit: main.c splits when the leaf already has that many.)
        if self.nodes[leaf].keys.len() < BT_ORDER {
            return;
        }
        // Split: the first cut(order - 1) keys stay, the rest (with the new one) move to a new
        // leaf to the right, whose first key goes up.
        let right = self.nodes[leaf].keys.split_off(cut(BT_ORDER - 1));
        let up = right[0];
        let parent = self.nodes[leaf].parent;
        let new_leaf = self.push(Node {
            keys: right,
            children: Vec::new(),
            parent,
            leaf: true,
        });
        self.insert_into_parent(leaf, up, new_leaf);
    }

    /// main.c's `insert_into_parent` (with `insert_into_new_root`, `insert_into_node` and
    /// `insert_into_node_after_splitting`): `right` goes right of `left` under key `key`.
    fn insert_into_parent(&mut self, left: usize, key: i32, right: usize) {
        let Some(parent) = self.nodes[left].parent else {
            let root = self.push(Node {
                keys: vec![key],
                children: vec![left, right],
                parent: None,
                leaf: false,
            });
            self.nodes[left].parent = Some(root);
            self.nodes[right].parent = Some(root);
            self.root = Some(root);
            return;
        };
        let p = &mut self.nodes[parent];
        let left_index = p.children.iter().position(|&c| c == left).unwrap_or(0);
        p.children.insert(left_index + 1, right);
        p.keys.insert(left_index, key);
        if p.keys.len() < BT_ORDER {
            return;
        }
        // Split: cut(order) - 1 keys and cut(order) children stay; the next key goes up; the
        // rest move to a new node to the right.
        let split = cut(BT_ORDER);
        let moved_children = p.children.split_off(split);
        let mut moved_keys = p.keys.split_off(split - 1);
        let k_prime = moved_keys.remove(0);
        let grand = p.parent;
        let new_node = self.push(Node {
            keys: moved_keys,
            children: moved_children,
            parent: grand,
            leaf: false,
        });
        for i in 0..self.nodes[new_node].children.len() {
            let c = self.nodes[new_node].children[i];
            self.nodes[c].parent = Some(new_node);
        }
        self.insert_into_parent(parent, k_prime, new_node);
    }
}

/// The tree as the kernels read it: main.c's `transform_to_cuda`, the nodes in breadth-first
/// order as `knode`s (keys between `INT_MIN` and `INT_MAX`, `INT_MAX` up to the order; each
/// child's or record's index beside it, then the next node's index) and the records (each
/// leaf key's value, in the leaves' order) — `records_elem` of them, the file's count.
#[derive(Debug, Clone)]
pub(super) struct Knodes {
    pub bytes: Vec<u8>,
    pub count: usize,
    pub records: Vec<i32>,
}

fn put(bytes: &mut [u8], at: usize, v: i32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

impl Knodes {
    pub fn of(tree: &Tree, records_elem: usize) -> Knodes {
        let mut bytes = Vec::new();
        let mut records = vec![0; records_elem];
        let mut queue = std::collections::VecDeque::from_iter(tree.root);
        // The next node's index (children are numbered as they are queued) and record's.
        let (mut node_index, mut record_index) = (1usize, 0usize);
        let mut count = 0usize;
        while let Some(n) = queue.pop_front() {
            let node = &tree.nodes[n];
            let mut k = vec![0u8; KNODE_BYTES];
            // Indices and counts are below 2^31: the nodes of a tree of at most 2^26 keys.
            let idx = |i: usize| INDICES_AT + 4 * i;
            let key = |i: usize| KEYS_AT + 4 * i;
            let num_keys = node.keys.len() + 2;
            put(&mut k, 0, count as i32);
            k[IS_LEAF_AT] = u8::from(node.leaf);
            put(&mut k, NUM_KEYS_AT, num_keys as i32);
            put(&mut k, key(0), i32::MIN);
            put(&mut k, key(num_keys - 1), i32::MAX);
            for i in num_keys..BT_ORDER {
                put(&mut k, key(i), i32::MAX);
            }
            for (i, &kv) in node.keys.iter().enumerate() {
                put(&mut k, key(i + 1), kv);
            }
            if node.leaf {
                put(&mut k, idx(0), 0);
                for (i, &kv) in node.keys.iter().enumerate() {
                    if let Some(r) = records.get_mut(record_index) {
                        *r = kv;
                    }
                    put(&mut k, idx(i + 1), record_index as i32);
                    record_index += 1;
                }
            } else {
                for (i, &c) in node.children.iter().enumerate() {
                    put(&mut k, idx(i), node_index as i32);
                    node_index += 1;
                    queue.push_back(c);
                }
            }
            count += 1;
            put(&mut k, idx(num_keys - 1), count as i32);
            bytes.extend(k);
        }
        Knodes {
            bytes,
            count,
            records,
        }
    }
}

/// main.c's `max_nodes`: the knodes its buffer holds, `order^(log size / log(order/2) - 1)
/// + 1` (a larger tree would overflow it).
fn max_nodes(size: u64) -> u64 {
    let order = BT_ORDER as f64;
    // (The float is positive and far below 2^63.)
    (order.powf((size as f64).ln() / (order / 2.0).ln() - 1.0) + 1.0) as u64
}

/// Read a keys file in Rodinia's format: the record count (`size`), then the keys, one a line
/// (`fscanf("%d\n")`, so any whitespace separates them). The count and the keys.
pub(super) fn read_keys(path: &Path) -> Result<(u64, Vec<i32>), SuiteError> {
    let io = SuiteError::in_file(path.display());
    let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
    let mut words = words(&text);
    let (line, w) = words.next().ok_or_else(|| io("is empty".into()))?;
    let size: i64 = w.parse().map_err(|_| {
        io(format!(
            "line {line}: the key count `{w}` is not an integer"
        ))
    })?;
    if !(1..=1 << 26).contains(&size) {
        return Err(io(format!(
            "line {line}: {size} keys (1 to 2^26 are accepted)"
        )));
    }
    let keys = words
        .map(|(line, w)| {
            w.parse::<i32>().map_err(|_| {
                io(format!(
                    "line {line}: the key `{w}` is not a 32-bit integer"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if keys.is_empty() {
        return Err(io("has a key count but no keys".into()));
    }
    Ok((size as u64, keys))
}

/// A command of the command file the kernels serve: `j` (findRangeK: `count` ranges of
/// `range` keys) or `k` (findK: `count` keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Command {
    J { count: u64, range: i64 },
    K { count: u64 },
}

/// `sscanf(text + at, "%d")`: the integer after optional whitespace, if there is one.
fn scan_int(text: &[u8], at: usize) -> Option<i64> {
    let s = std::str::from_utf8(&text[at.min(text.len())..]).ok()?;
    let s = s.trim_start();
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(s.len(), |(i, _)| i);
    s[..end].parse().ok()
}

/// Read a command file as main.c does: character by character, `k` reading its count and `j`
/// its count and range size, each number read from where the pointer is, which then moves
/// only to the next space (so `j 6000 3000` reads 6000 twice); any other character is
/// skipped. The commands that read their operands from the terminal (`i f p d x l t v q r`)
/// are refused.
pub(super) fn read_commands(path: &Path) -> Result<Vec<Command>, SuiteError> {
    let io = SuiteError::in_file(path.display());
    let text = std::fs::read(path).map_err(|e| io(e.to_string()))?;
    let line = |at: usize| {
        1 + text[..at.min(text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    };
    // The pointer moves to the next space (or the end).
    let to_space = |mut at: usize| {
        while at < text.len() && text[at] != b' ' {
            at += 1;
        }
        at
    };
    let number = |at: usize, what: &str, here: usize| {
        scan_int(&text, at).ok_or_else(|| io(format!("line {here}: the {what} is not an integer")))
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let (c, here) = (text[at], line(at));
        at += 1;
        match c {
            b'k' => {
                let count = number(at, "`k` command's count", here)?;
                at = to_space(at);
                if !(1..=MAX_K as i64).contains(&count) {
                    return Err(io(format!(
                        "line {here}: `k` with {count} queries (1 to {MAX_K}, the source's \
                         limit)"
                    )));
                }
                out.push(Command::K {
                    count: count as u64,
                });
            }
            b'j' => {
                let count = number(at, "`j` command's count", here)?;
                at = to_space(at);
                let range = number(at, "`j` command's range size", here)?;
                at = to_space(at);
                if !(1..=MAX_J as i64).contains(&count) {
                    return Err(io(format!(
                        "line {here}: `j` with {count} queries (1 to {MAX_J} are accepted)"
                    )));
                }
                out.push(Command::J {
                    count: count as u64,
                    range,
                });
            }
            b'i' | b'f' | b'p' | b'd' | b'x' | b'l' | b't' | b'v' | b'q' | b'r' => {
                return Err(io(format!(
                    "line {here}: command `{}` reads its operands from the terminal, not \
                     this file; only `j` and `k` are run",
                    char::from(c)
                )));
            }
            _ => {}
        }
    }
    if out.is_empty() {
        return Err(io("has no `j` or `k` command".into()));
    }
    Ok(out)
}

/// One command's queries as the source draws them (`rand() / (float)RAND_MAX * size`).
#[derive(Debug, Clone)]
pub(super) enum Queries {
    Range { start: Vec<i32>, end: Vec<i32> },
    Find { keys: Vec<i32> },
}

/// `(rand() / (float)RAND_MAX) * size` converted to `int`, all in `float` as C computes it.
fn draw(r: &mut CRand, size: u64) -> i32 {
    // (size is at most 2^26: exact in a float; the product is in [0, size], so the truncation
    // toward zero fits an i32.)
    (r.unit_f32() * size as f32) as i32
}

/// The queries of `commands`, drawn in order from glibc's `rand()` unseeded (seed 1).
pub(super) fn queries(commands: &[Command], size: u64) -> Vec<Queries> {
    let mut r = CRand::new(1);
    let size_i = size as i64;
    commands
        .iter()
        .map(|c| match *c {
            Command::K { count } => Queries::Find {
                keys: (0..count).map(|_| draw(&mut r, size)).collect(),
            },
            Command::J { count, range } => {
                let (mut start, mut end) = (Vec::new(), Vec::new());
                for _ in 0..count {
                    let mut s = i64::from(draw(&mut r, size));
                    let mut e = s + range;
                    if e >= size_i {
                        s -= e - size_i;
                        e = size_i - 1;
                    }
                    // (s and e are in [-size, size]: range is at most size.)
                    start.push(s as i32);
                    end.push(e as i32);
                }
                Queries::Range { start, end }
            }
        })
        .collect()
}

/// b+tree's host program: the tree built and transformed, then per command its wrapper's
/// allocations and copies and one launch (the library's allocator does not reuse the memory
/// the wrapper frees, so each command's arrays follow the previous command's).
pub(super) struct BPlusTree {
    tree: Tree,
    knodes: Knodes,
    height: u64,
    queries: Vec<Queries>,
    /// Per command launched, its device arrays (the wrapper's `cudaMalloc`s in order).
    d: Vec<Vec<u64>>,
}

pub(super) fn bplustree(args: &Args, _seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let (size, keys, origin) = match args.path("file") {
        Some(p) => {
            let (size, keys) = read_keys(&p)?;
            (size, keys, Some(p))
        }
        None => {
            let n = args.int("keys", 1_000_000, 1, 1 << 24)?;
            // (n is at most 2^24: the keys fit an i32.)
            (n, (1..=n as i32).collect(), None)
        }
    };
    let fail = |message: String| match &origin {
        Some(p) => SuiteError::Io {
            path: p.display().to_string(),
            message,
        },
        None => args.err("keys", message),
    };
    let commands = match args.path("command") {
        Some(p) => read_commands(&p)?,
        None => {
            let j = args.int("j", 600, 0, MAX_J)?;
            let k = args.int("k", 1000, 0, MAX_K)?;
            let range = match args.text("range").filter(|t| !t.is_empty()) {
                None => j,
                Some(_) => args.int("range", j, 0, size)?,
            };
            if j + k == 0 {
                return Err(args.err("k", "j=0 and k=0: no command to run".into()));
            }
            let mut c = Vec::new();
            if j > 0 {
                c.push(Command::J {
                    count: j,
                    range: range as i64,
                });
            }
            if k > 0 {
                c.push(Command::K { count: k });
            }
            c
        }
    };
    for c in &commands {
        if let Command::J { range, .. } = c {
            if *range < 0 || *range > size as i64 {
                let m = format!(
                    "a `j` range of {range} keys: 0 to the {size} records (the source's limit)"
                );
                return Err(match args.path("command") {
                    Some(p) => SuiteError::Io {
                        path: p.display().to_string(),
                        message: m,
                    },
                    None => args.err("range", m),
                });
            }
        }
    }
    let tree = Tree::build(&keys);
    let distinct = tree
        .nodes
        .iter()
        .filter(|n| n.leaf)
        .map(|n| n.keys.len())
        .sum::<usize>();
    if distinct as u64 > size {
        return Err(fail(format!(
            "{distinct} distinct keys, more than the {size} records the count gives"
        )));
    }
    let knodes = Knodes::of(&tree, size as usize);
    if knodes.count as u64 > max_nodes(size) {
        return Err(fail(format!(
            "the tree has {} nodes, more than the {} the source's buffer holds",
            knodes.count,
            max_nodes(size)
        )));
    }
    BT_FINDK_SASS.kernels()?;
    BT_FINDRANGEK_SASS.kernels()?;
    Ok(Box::new(BPlusTree {
        height: tree.height(),
        queries: queries(&commands, size),
        tree,
        knodes,
        d: Vec::new(),
    }))
}

/// Copy `values` as C `int`s.
fn write_i32(mem: &mut DeviceMemory, addr: u64, values: &[i32]) -> Result<(), String> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    mem.copy_in(addr, &bytes).map_err(fault)
}

/// The `int`s at `addr`.
fn read_i32(mem: &DeviceMemory, addr: u64, n: usize) -> Result<Vec<i32>, String> {
    let mut b = vec![0; n * 4];
    mem.read(addr, &mut b).map_err(fault)?;
    Ok(b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

impl App for BPlusTree {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        let Some(q) = self.queries.get(self.d.len()) else {
            return Ok(None);
        };
        let kn = &self.knodes;
        let knodes_mem = kn.bytes.len() as u64;
        let knodes_elem = Param::U64(kn.count as u64);
        let height = Param::U64(self.height);
        // threadsPerBlock = order < 1024 ? order : 1024; a block per query.
        let block = [BT_ORDER.min(1024) as u32, 1, 1];
        match q {
            Queries::Find { keys } => {
                let n = keys.len() as u64;
                let records: Vec<u8> = kn.records.iter().flat_map(|v| v.to_le_bytes()).collect();
                let d = [records.len() as u64, knodes_mem, n * 8, n * 8, n * 4, n * 4]
                    .map(|b| mem.alloc(b));
                mem.copy_in(d[0], &records).map_err(fault)?;
                mem.copy_in(d[1], &kn.bytes).map_err(fault)?;
                mem.copy_in(d[2], &vec![0; n as usize * 8]).map_err(fault)?;
                mem.copy_in(d[3], &vec![0; n as usize * 8]).map_err(fault)?;
                write_i32(mem, d[4], keys)?;
                write_i32(mem, d[5], &vec![-1; keys.len()])?;
                self.d.push(d.to_vec());
                let k = BT_FINDK_SASS.kernel("findK").map_err(fault)?;
                let params = vec![
                    height,
                    Param::Ptr(d[1]),
                    knodes_elem,
                    Param::Ptr(d[0]),
                    Param::Ptr(d[2]),
                    Param::Ptr(d[3]),
                    Param::Ptr(d[4]),
                    Param::Ptr(d[5]),
                ];
                // (A block per query: at most 65,535.)
                let grid = [keys.len() as u32, 1, 1];
                Ok(Some(launch(&k, grid, block, params)))
            }
            Queries::Range { start, end } => {
                let n = start.len() as u64;
                let sizes = [
                    knodes_mem,
                    n * 8,
                    n * 8,
                    n * 8,
                    n * 8,
                    n * 4,
                    n * 4,
                    n * 4,
                    n * 4,
                ];
                let d = sizes.map(|b| mem.alloc(b));
                mem.copy_in(d[0], &kn.bytes).map_err(fault)?;
                for &a in &d[1..5] {
                    mem.copy_in(a, &vec![0; n as usize * 8]).map_err(fault)?;
                }
                write_i32(mem, d[5], start)?;
                write_i32(mem, d[6], end)?;
                write_i32(mem, d[7], &vec![0; start.len()])?;
                write_i32(mem, d[8], &vec![0; start.len()])?;
                self.d.push(d.to_vec());
                let k = BT_FINDRANGEK_SASS.kernel("findRangeK").map_err(fault)?;
                let mut params = vec![height, Param::Ptr(d[0]), knodes_elem];
                params.extend(d[1..].iter().map(|&a| Param::Ptr(a)));
                // (A block per query: at most 2^20.)
                let grid = [start.len() as u32, 1, 1];
                Ok(Some(launch(&k, grid, block, params)))
            }
        }
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        if self.d.len() != self.queries.len() {
            return Err("the host program did not run every command".into());
        }
        // The records are the leaves' keys in order (breadth-first, every leaf at the same
        // depth): a key's record index is its rank among the keys.
        let mut sorted: Vec<i32> = self.knodes.records.clone();
        sorted.truncate(
            self.tree
                .nodes
                .iter()
                .filter(|n| n.leaf)
                .map(|n| n.keys.len())
                .sum(),
        );
        if sorted.windows(2).any(|w| w[0] >= w[1]) {
            return Err("the records are not the keys in increasing order".into());
        }
        let rank = |k: i32| sorted.binary_search(&k).ok().map(|i| i as i32);
        for (c, (q, d)) in self.queries.iter().zip(&self.d).enumerate() {
            match q {
                Queries::Find { keys } => {
                    let ans = read_i32(mem, d[5], keys.len())?;
                    for (i, (&got, &key)) in ans.iter().zip(keys).enumerate() {
                        let want = self.tree.find(key).unwrap_or(-1);
                        if got != want {
                            return Err(format!(
                                "command {c} (k): ans[{i}] = {got} for key {key}, the host's \
                                 find gives {want}"
                            ));
                        }
                    }
                }
                Queries::Range { start, end } => {
                    let n = start.len();
                    let (rs, rl) = (read_i32(mem, d[7], n)?, read_i32(mem, d[8], n)?);
                    for i in 0..n {
                        let s = rank(start[i]).unwrap_or(0);
                        let len = rank(end[i]).map_or(0, |e| e - s + 1);
                        if (rs[i], rl[i]) != (s, len) {
                            return Err(format!(
                                "command {c} (j): range {}..={} gives record {} length {}, the \
                                 host's search {s} length {len}",
                                start[i], end[i], rs[i], rl[i]
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "bplustree_tests.rs"]
mod tests;
