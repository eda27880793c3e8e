//! Built-in kernels: the regular kernels of seed 000 and a few more shapes.
//!
//! Each is also shipped as `golden/kernels/<name>.toml` (a test checks the file loads to exactly
//! the definition here). All fit both presets: at most 256 blocks per grid dimension, at most 16
//! warps per block, PCs below `0x1_0000` and addresses below `2^24`.
//!
//! Their `compute` (arithmetic instructions per group of loads, which the GPU runs and the
//! OT and the dispatcher ignore) is read from each source kernel's loop body, not from its
//! SASS (none is shipped): CP 48 (its atom loop, eight unrolled outputs per thread, runs
//! before the grid update it loads for), ScalarProd 3 (a multiply-add and the index update),
//! Stencil2D 6 (the weighted sum of five points), the gather 2, Matmul3D 3 (a multiply-add
//! and two index updates). They set how long a warp computes on what it loaded, and are a
//! knob to vary, not a measurement.

use super::kernel::{Affine, ArrayDesc, KernelDesc, LoadDesc};

/// Names of the built-in kernels.
pub const BUILTIN: &[&str] = &["cp", "scalarprod", "stencil2d", "irregular", "matmul3d"];

/// A built-in kernel by name.
pub fn builtin(name: &str) -> Option<KernelDesc> {
    match name {
        "cp" => Some(cp()),
        "scalarprod" => Some(scalarprod()),
        "stencil2d" => Some(stencil2d()),
        "irregular" => Some(irregular()),
        "matmul3d" => Some(matmul3d()),
        _ => None,
    }
}

fn array(name: &str, base: u64, elem_bytes: u32, row_pitch: u64, len: u64) -> ArrayDesc {
    ArrayDesc {
        name: name.into(),
        base,
        elem_bytes,
        row_pitch,
        len,
    }
}

fn load(pc: u64, array: &str, index: Affine, in_loop: bool) -> LoadDesc {
    LoadDesc {
        pc,
        array: array.into(),
        index,
        in_loop,
        irregular: false,
    }
}

fn gather(pc: u64, array: &str, in_loop: bool) -> LoadDesc {
    LoadDesc {
        pc,
        array: array.into(),
        index: Affine::default(),
        in_loop,
        irregular: true,
    }
}

/// CP (coulombic potential), seed 000 Fig. 5: grid (8, 32), block (16, 8), `UNROLLX` = 8,
/// `BLOCKSIZE_X` = 16, `float energygrid[]`.
///
/// ```text
/// xindex  = blockIdx.x*blockDim.x*UNROLLX + threadIdx.x     = 128*bx + tx
/// yindex  = blockIdx.y*blockDim.y + threadIdx.y              = 8*by + ty
/// outaddr = gridDim.x*blockDim.x*UNROLLX*yindex + xindex     = 1024*yindex + xindex
///         = 128*bx + 8192*by + tx + 1024*ty
/// ```
/// (The figure prints `blockDim.x * blockDim.x` for `blockIdx.x * blockDim.x`; the text's strides
/// confirm the latter.) So `energygrid[outaddr]` has coefficients bx = 128, by = 8192, tx = 1,
/// ty = 1024, and `energygrid[outaddr + 1*BLOCKSIZE_X]` the same plus c = 16. In elements the
/// thread-block strides are 128 along x and 8192 along y — the values seed 000 §III quotes; in
/// bytes (4-byte floats) 512 and 32768. A warp covers rows 2w and 2w+1 of 16 threads, so it
/// requests two lines and the inter-warp stride is 2*1024*4 = 8192 bytes. The grid is
/// 1024 elements wide (row pitch) and 32*8 = 256 rows high.
fn cp() -> KernelDesc {
    let idx = Affine {
        bx: 128,
        by: 8192,
        tx: 1,
        ty: 1024,
        ..Affine::default()
    };
    KernelDesc {
        name: "cp".into(),
        grid: [8, 32, 1],
        block: [16, 8, 1],
        loop_trips: 1,
        compute: 48,
        arrays: vec![array("energygrid", 0x0010_0000, 4, 1024, 1024 * 256)],
        loads: vec![
            load(0x100, "energygrid", idx, false),
            load(0x108, "energygrid", Affine { c: 16, ..idx }, false),
        ],
    }
}

/// ScalarProd, seed 000 Fig. 7 (CUDA SDK `scalarProd`): 128 blocks of 256 threads,
/// `ACCUM_N` = 1024, vectors of `ELEMENT_N` = 4096 floats, `vectorBase = blockIdx.x * 4096`.
/// The inner loop `for (pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)` runs
/// 4096 / 1024 = 4 times and loads `d_A[pos]` and `d_B[pos]`: with `iAccum = threadIdx.x` (the
/// first pass of the outer loop, which is what is modelled),
/// `pos = 4096*blockIdx.x + threadIdx.x + 1024*iter` — coefficients bx = 4096, tx = 1, it = 1024.
/// Each iteration is a separate LEC of the same PC, the case LEC exists for.
fn scalarprod() -> KernelDesc {
    let idx = Affine {
        bx: 4096,
        tx: 1,
        it: 1024,
        ..Affine::default()
    };
    KernelDesc {
        name: "scalarprod".into(),
        grid: [128, 1, 1],
        block: [256, 1, 1],
        loop_trips: 4,
        compute: 3,
        arrays: vec![
            array("d_A", 0x0020_0000, 4, 0, 128 * 4096),
            array("d_B", 0x0040_0000, 4, 0, 128 * 4096),
        ],
        loads: vec![load(0x200, "d_A", idx, true), load(0x208, "d_B", idx, true)],
    }
}

/// Stencil2D (SHOC, double precision), grid (64, 2), block (16, 16): one thread per point of a
/// 32 x 1024 interior of doubles with a one-element halo, loading the centre and its four edge
/// neighbours. The padded array has 34 rows with a pitch of 1056 elements (8448 bytes, a whole
/// number of 128-byte lines); the interior starts at row 1, column 16, so interior rows are
/// line-aligned. With `row = 16*blockIdx.y + threadIdx.y` and `col = 16*blockIdx.x +
/// threadIdx.x`, interior point (row, col) is element `(row + 1)*1056 + col + 16`:
/// centre c = 1072, west c = 1071, east c = 1073, north c = 16, south c = 2128, with
/// bx = 16, by = 16*1056 = 16896, tx = 1, ty = 1056. A warp is two rows of 16 doubles: one
/// 128-byte line per row for centre/north/south, two for the shifted west/east loads. Block
/// strides are 128 bytes along x and 16*8448 bytes along y. (With 4-byte floats a block row would
/// be half a line, and the line address would not be affine in `blockIdx.x`.)
fn stencil2d() -> KernelDesc {
    let at = |c: i64| Affine {
        c,
        bx: 16,
        by: 16896,
        tx: 1,
        ty: 1056,
        ..Affine::default()
    };
    KernelDesc {
        name: "stencil2d".into(),
        grid: [64, 2, 1],
        block: [16, 16, 1],
        loop_trips: 1,
        compute: 6,
        arrays: vec![array("data", 0x0080_0000, 8, 1056, 34 * 1056)],
        loads: vec![
            load(0x300, "data", at(1072), false),
            load(0x308, "data", at(1071), false),
            load(0x310, "data", at(1073), false),
            load(0x318, "data", at(16), false),
            load(0x320, "data", at(2128), false),
        ],
    }
}

/// A BFS-like gather (Rodinia `bfs` Kernel): one thread per node, 128 blocks of 256 threads.
/// Each thread reads `g_graph_mask[tid]` and `g_graph_nodes[tid]` (8-byte {start, degree}
/// records; tid = 256*blockIdx.x + threadIdx.x), then for each of 4 edges (the loop) reads
/// `g_graph_edges[i]` and `g_graph_visited[id]` at data-dependent places — irregular loads,
/// whose indices are hashes. Every thread is modelled as taking the branch.
fn irregular() -> KernelDesc {
    let tid = Affine {
        bx: 256,
        tx: 1,
        ..Affine::default()
    };
    KernelDesc {
        name: "irregular".into(),
        grid: [128, 1, 1],
        block: [256, 1, 1],
        loop_trips: 4,
        compute: 2,
        arrays: vec![
            array("g_graph_mask", 0x0090_0000, 1, 0, 32768),
            array("g_graph_nodes", 0x00a0_0000, 8, 0, 32768),
            array("g_graph_edges", 0x00b0_0000, 4, 0, 4 * 32768),
            array("g_graph_visited", 0x00c0_0000, 1, 0, 32768),
        ],
        loads: vec![
            load(0x400, "g_graph_mask", tid, false),
            load(0x408, "g_graph_nodes", tid, false),
            gather(0x410, "g_graph_edges", true),
            gather(0x418, "g_graph_visited", true),
        ],
    }
}

/// A batched tiled matrix multiply on a 3-D grid: 4 batches (z) of 32 x 32 float matrices,
/// 8 x 8 tiles (grid (4, 4, 4), block (8, 8)), 4 tile steps along k (the loop).
/// `A[z][row][k]` with row = 8*blockIdx.y + threadIdx.y, k = 8*iter + threadIdx.x:
/// index = 1024*bz + 256*by + 32*ty + 8*it + tx. `B[z][k][col]` with k = 8*iter + threadIdx.y,
/// col = 8*blockIdx.x + threadIdx.x: index = 1024*bz + 256*it + 32*ty + 8*bx + tx.
/// A warp covers four 32-byte row segments, 128 bytes apart: four lines per load.
fn matmul3d() -> KernelDesc {
    KernelDesc {
        name: "matmul3d".into(),
        grid: [4, 4, 4],
        block: [8, 8, 1],
        loop_trips: 4,
        compute: 3,
        arrays: vec![
            array("A", 0x00d0_0000, 4, 32, 4 * 1024),
            array("B", 0x00e0_0000, 4, 32, 4 * 1024),
        ],
        loads: vec![
            load(
                0x500,
                "A",
                Affine {
                    bz: 1024,
                    by: 256,
                    ty: 32,
                    it: 8,
                    tx: 1,
                    ..Affine::default()
                },
                true,
            ),
            load(
                0x508,
                "B",
                Affine {
                    bz: 1024,
                    it: 256,
                    ty: 32,
                    bx: 8,
                    tx: 1,
                    ..Affine::default()
                },
                true,
            ),
        ],
    }
}
