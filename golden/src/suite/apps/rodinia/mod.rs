//! Rodinia 3.1 (accel-sim/gpu-app-collection, `src/cuda/rodinia/3.1/cuda/`): the applications
//! of AccelWattch's Volta validation set and those the seeds evaluate.

use super::super::{App, Args, Launch, Param, SuiteError, Workload};
use super::crand::CRand;
use super::microgpusim::{compare, launch, near, Fixed, Setup, Verify};
use super::{fault, words, Listing};
use crate::rng::Rng;
use crate::suite::mem::DeviceMemory;
use std::path::Path;

pub(super) static BACKPROP_SASS: Listing = Listing::new(
    "backprop.sass",
    include_str!("../../../../sass/backprop.sass"),
);
pub(super) static HOTSPOT_SASS: Listing = Listing::new(
    "hotspot.sass",
    include_str!("../../../../sass/hotspot.sass"),
);
pub(super) static PATHFINDER_SASS: Listing = Listing::new(
    "pathfinder.sass",
    include_str!("../../../../sass/pathfinder.sass"),
);
pub(super) static BFS_SASS: Listing =
    Listing::new("bfs.sass", include_str!("../../../../sass/bfs.sass"));
pub(super) static KMEANS_SASS: Listing =
    Listing::new("kmeans.sass", include_str!("../../../../sass/kmeans.sass"));
pub(super) static BT_FINDK_SASS: Listing = Listing::new(
    "b+tree-findk.sass",
    include_str!("../../../../sass/b+tree-findk.sass"),
);
pub(super) static BT_FINDRANGEK_SASS: Listing = Listing::new(
    "b+tree-findrangek.sass",
    include_str!("../../../../sass/b+tree-findrangek.sass"),
);
pub(super) static SRAD_SASS: Listing = Listing::new(
    "srad_v1.sass",
    include_str!("../../../../sass/srad_v1.sass"),
);

/// Read a file of one number per line (Rodinia's temperature and power files: `%f` per line),
/// `n` of them: each line's first word.
fn read_floats(path: &Path, n: usize) -> Result<Vec<f32>, SuiteError> {
    let io = SuiteError::in_file(path.display());
    let text = std::fs::read_to_string(path).map_err(|e| io(e.to_string()))?;
    let mut out = Vec::with_capacity(n);
    for (i, line) in text.lines().enumerate().take(n) {
        let word = line.split_whitespace().next().unwrap_or("");
        let v: f32 = word
            .parse()
            .map_err(|_| io(format!("line {}: `{word}` is not a number", i + 1)))?;
        out.push(v);
    }
    if out.len() < n {
        return Err(io(format!(
            "{} lines, the grid needs {n} (one value per cell, row by row)",
            out.len()
        )));
    }
    Ok(out)
}

mod backprop;
mod bfs;
mod bplustree;
mod hotspot;
mod kmeans;
mod pathfinder;
mod srad_v1;
pub(super) use backprop::*;
pub(super) use bfs::*;
pub(super) use bplustree::*;
pub(super) use hotspot::*;
pub(super) use kmeans::*;
pub(super) use pathfinder::*;
pub(super) use srad_v1::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_file_is_read_and_a_bad_one_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("t");
        std::fs::write(&good, "1.5\n2\t9\n-3e1\n4\n").unwrap();
        assert_eq!(read_floats(&good, 4).unwrap(), vec![1.5, 2.0, -30.0, 4.0]);
        let short = read_floats(&good, 5).unwrap_err().to_string();
        assert!(short.contains("4 lines, the grid needs 5"), "{short}");
        let bad = dir.path().join("b");
        std::fs::write(&bad, "1\nx\n").unwrap();
        let e = read_floats(&bad, 2).unwrap_err().to_string();
        assert!(e.contains("line 2: `x` is not a number"), "{e}");
        let e = read_floats(&dir.path().join("none"), 1).unwrap_err();
        assert!(matches!(e, SuiteError::Io { .. }));
    }

    #[test]
    fn a_rodinia_graph_file_is_read_and_a_bad_one_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.txt");
        // Three vertices, 0 - 1 - 2 (each edge both ways), source 0.
        std::fs::write(&p, "3\n0 1\n1 2\n3 1\n\n0\n\n4\n1 5\n0 5\n2 3\n1 3\n").unwrap();
        let g = Graph::read(&p).unwrap();
        assert_eq!(g.nodes, vec![(0, 1), (1, 2), (3, 1)]);
        assert_eq!(g.edges, vec![1, 0, 2, 1]);
        assert_eq!(g.levels(), (vec![0, 1, 2], vec![1, 1, 1]));
        for (text, needle) in [
            ("3\n0 1\n1 x\n", "line 3: the edge count of a vertex `x`"),
            ("3\n0 1\n1 2\n", "ends before the first edge of a vertex"),
            ("2\n0 1\n1 1\n0\n2\n1 1\n7 1\n", "an edge to vertex 7, of 2"),
            (
                "2\n0 3\n1 1\n0\n2\n1 1\n0 1\n",
                "vertex 0's edges 0..3 pass the 2 edges",
            ),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = Graph::read(&p).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_kmeans_file_is_read_and_a_bad_one_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.txt");
        std::fs::write(&p, "1 0.5 2\n2 3 4e-1\n\n").unwrap();
        assert_eq!(read_kmeans(&p).unwrap(), (vec![0.5, 2.0, 3.0, 0.4], 2));
        for (text, needle) in [
            ("1 0.5 2\n2 3\n", "line 2: 1 features, the first line has 2"),
            ("1 0.5 x\n", "line 1: `x` is not a number"),
            ("1\n", "line 1: no features"),
            ("", "no points"),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = read_kmeans(&p).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_generated_graph_has_graphgens_degrees() {
        let g = Graph::generate(10_000, 1);
        // Each vertex adds 2 to 4 edges both ways: 6 per vertex on average, at least 2 each.
        let mean = g.edges.len() as f64 / 10_000.0;
        assert!((5.8..6.2).contains(&mean), "{mean}");
        assert!(g.nodes.iter().all(|&(_, c)| c >= 2));
        assert_eq!(Graph::generate(10_000, 1), g);
        assert_ne!(Graph::generate(10_000, 2), g);
    }
}
