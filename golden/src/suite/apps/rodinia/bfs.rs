use super::*;

// ---- bfs -----------------------------------------------------------------------------------

pub(in crate::suite::apps) const BFS: Workload = Workload {
    name: "bfs",
    suite: "Rodinia 3.1",
    source: "rodinia/3.1/cuda/bfs (bfs.cu, kernel.cu, kernel2.cu)",
    args: &[
        (
            "nodes",
            "65536",
            "vertices of the generated graph (the suite's graph65536; graph1MW_6 has 1000000)",
        ),
        (
            "file",
            "",
            "a graph in Rodinia's format (graphgen's output) in place of the generated one",
        ),
    ],
    input: "a graph as Rodinia's graphgen makes it: each vertex joined to 2 to 4 uniformly \
        chosen others, both ways (mean degree 6), by seed; or a Rodinia graph file",
    small: "nodes=2000",
    make: bfs,
};

/// The source's `MAX_THREADS_PER_BLOCK`.
pub(super) const BFS_BLOCK: usize = 512;

/// A graph in Rodinia's form: per vertex its first edge and edge count, and the edge list.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::suite::apps) struct Graph {
    pub nodes: Vec<(u32, u32)>,
    pub edges: Vec<u32>,
}

impl Graph {
    /// As Rodinia's graphgen makes one: vertex `i` gets 2 to 4 edges to uniformly chosen
    /// vertices, each added in both directions (weights are drawn and dropped, as BFS reads
    /// none).
    pub fn generate(n: usize, seed: u64) -> Graph {
        let mut rng = Rng::new(seed);
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        for i in 0..n {
            let k = 2 + rng.below(3);
            for _ in 0..k {
                let j = rng.below(n as u64) as usize;
                adj[i].push(j as u32);
                adj[j].push(i as u32);
            }
        }
        let mut nodes = Vec::with_capacity(n);
        let mut edges = Vec::new();
        for a in adj {
            nodes.push((edges.len() as u32, a.len() as u32));
            edges.extend(a);
        }
        Graph { nodes, edges }
    }

    /// Read a graph file in Rodinia's format: the vertex count, a `start count` pair per
    /// vertex, the source vertex, the edge count, a `destination weight` pair per edge.
    pub fn read(path: &Path) -> Result<Graph, SuiteError> {
        let io = SuiteError::in_file(path.display());
        let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
        let mut words = words(&text);
        let mut next = |what: &str| -> Result<u64, SuiteError> {
            let (line, w) = words
                .next()
                .ok_or_else(|| io(format!("ends before the {what}")))?;
            w.parse().map_err(|_| {
                io(format!(
                    "line {line}: the {what} `{w}` is not a whole number"
                ))
            })
        };
        let n = next("vertex count")?;
        if n == 0 || n > 1 << 26 {
            return Err(io(format!("line 1: {n} vertices (1 to 2^26 are accepted)")));
        }
        let mut nodes = Vec::new();
        for _ in 0..n {
            let start = next("first edge of a vertex")?;
            let count = next("edge count of a vertex")?;
            nodes.push((start, count));
        }
        next("source vertex")?;
        let m = next("edge count")?;
        if m > 1 << 28 {
            return Err(io(format!("{m} edges (at most 2^28 are accepted)")));
        }
        let mut edges = Vec::new();
        for _ in 0..m {
            let dest = next("edge's destination")?;
            next("edge's weight")?;
            if dest >= n {
                return Err(io(format!("an edge to vertex {dest}, of {n}")));
            }
            edges.push(dest as u32);
        }
        let nodes = nodes
            .into_iter()
            .enumerate()
            .map(|(i, (s, c))| {
                if s + c > m {
                    return Err(io(format!(
                        "vertex {i}'s edges {s}..{} pass the {m} edges",
                        s + c
                    )));
                }
                Ok((s as u32, c as u32))
            })
            .collect::<Result<_, _>>()?;
        Ok(Graph { nodes, edges })
    }

    /// Each vertex's BFS level from vertex 0 (`-1`: unreachable), and the frontier's size at
    /// each level: the host's reference run.
    pub fn levels(&self) -> (Vec<i32>, Vec<usize>) {
        let mut cost = vec![-1i32; self.nodes.len()];
        cost[0] = 0;
        let mut frontier = vec![0u32];
        let mut sizes = Vec::new();
        while !frontier.is_empty() {
            sizes.push(frontier.len());
            let mut next = Vec::new();
            for &v in &frontier {
                let (s, c) = self.nodes[v as usize];
                for &u in &self.edges[s as usize..(s + c) as usize] {
                    if cost[u as usize] < 0 {
                        cost[u as usize] = cost[v as usize] + 1;
                        next.push(u);
                    }
                }
            }
            frontier = next;
        }
        (cost, sizes)
    }
}

/// bfs's host program: the two kernels once per level until no vertex was updated (the
/// `over` flag read back after each pair).
pub(super) struct Bfs {
    pub(super) graph: Graph,
    /// nodes, edges, mask, updating mask, visited, cost, over.
    pub(super) d: Vec<u64>,
    /// The next launch: 0 the first kernel, 1 the second.
    pub(super) phase: u8,
    pub(super) levels: usize,
}

pub(super) fn bfs(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let graph = match args.path("file") {
        Some(p) => Graph::read(&p)?,
        None => Graph::generate(args.int("nodes", 65536, 1, 1 << 24)? as usize, seed),
    };
    BFS_SASS.kernels()?;
    Ok(Box::new(Bfs {
        graph,
        d: Vec::new(),
        phase: 0,
        levels: 0,
    }))
}

impl App for Bfs {
    fn next(&mut self, mem: &mut DeviceMemory) -> Result<Option<Launch>, String> {
        let n = self.graph.nodes.len();
        if self.d.is_empty() {
            let nodes: Vec<u32> = self.graph.nodes.iter().flat_map(|&(s, c)| [s, c]).collect();
            let d_nodes = mem.alloc(n as u64 * 8);
            mem.write_u32(d_nodes, &nodes).map_err(fault)?;
            let d_edges = mem.alloc(self.graph.edges.len().max(1) as u64 * 4);
            mem.write_u32(d_edges, &self.graph.edges).map_err(fault)?;
            let mut flags = vec![0u8; n];
            flags[0] = 1;
            let mask = mem.alloc(n as u64);
            mem.copy_in(mask, &flags).map_err(fault)?;
            let updating = mem.alloc(n as u64);
            mem.copy_in(updating, &vec![0; n]).map_err(fault)?;
            let visited = mem.alloc(n as u64);
            mem.copy_in(visited, &flags).map_err(fault)?;
            let mut cost = vec![u32::MAX; n];
            cost[0] = 0;
            let d_cost = mem.alloc(n as u64 * 4);
            mem.write_u32(d_cost, &cost).map_err(fault)?;
            let over = mem.alloc(1);
            self.d = vec![d_nodes, d_edges, mask, updating, visited, d_cost, over];
        }
        let d = &self.d;
        let (blocks, threads) = if n > BFS_BLOCK {
            (n.div_ceil(BFS_BLOCK) as u32, BFS_BLOCK as u32)
        } else {
            (1, n as u32)
        };
        let (grid, block) = ([blocks, 1, 1], [threads, 1, 1]);
        if self.phase == 0 {
            if self.levels > 0 {
                let mut over = [0u8];
                mem.read(d[6], &mut over).map_err(fault)?;
                if over[0] == 0 {
                    return Ok(None);
                }
            }
            mem.copy_in(d[6], &[0]).map_err(fault)?;
            self.phase = 1;
            self.levels += 1;
            let k = BFS_SASS
                .kernel("_Z6KernelP4NodePiPbS2_S2_S1_i")
                .map_err(fault)?;
            let params = [d[0], d[1], d[2], d[3], d[4], d[5]].map(Param::Ptr);
            let mut params = params.to_vec();
            params.push(Param::I32(n as i32));
            Ok(Some(launch(&k, grid, block, params)))
        } else {
            self.phase = 0;
            let k = BFS_SASS.kernel("_Z7Kernel2PbS_S_S_i").map_err(fault)?;
            let mut params = [d[2], d[3], d[4], d[6]].map(Param::Ptr).to_vec();
            params.push(Param::I32(n as i32));
            Ok(Some(launch(&k, grid, block, params)))
        }
    }

    fn verify(&self, mem: &DeviceMemory) -> Result<(), String> {
        let (want, sizes) = self.graph.levels();
        // The device runs one level more than the frontier has: the last finds nothing new.
        if self.levels != sizes.len() {
            return Err(format!(
                "the host loop ran {} levels, the reference BFS has {} (frontiers {sizes:?})",
                self.levels,
                sizes.len()
            ));
        }
        let got = mem.read_u32(self.d[5], want.len()).map_err(fault)?;
        match got.iter().zip(&want).position(|(g, w)| *g as i32 != *w) {
            None => Ok(()),
            Some(i) => Err(format!(
                "cost[{i}] = {}, the reference BFS gives {}",
                got[i] as i32, want[i]
            )),
        }
    }
}
