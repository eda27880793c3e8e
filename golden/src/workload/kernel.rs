//! The kernel description (serde, TOML-loadable) and its validation.

use super::WorkloadError;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Most threads in one thread block (CUDA's limit).
pub const MAX_BLOCK_THREADS: u64 = 1024;

fn one() -> u32 {
    1
}

fn is_one(v: &u32) -> bool {
    *v == 1
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

fn is_zero32(v: &u32) -> bool {
    *v == 0
}

fn is_false(v: &bool) -> bool {
    !*v
}

/// A CUDA-like kernel: launch shape, the arrays it reads and its loads.
///
/// Every thread runs the same program: first each load with `in_loop = false` once, in
/// declaration order, then `loop_trips` iterations of every load with `in_loop = true`, in
/// declaration order. Only loads are described: they are what the memory system snoops.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelDesc {
    /// Kernel name (used in messages).
    pub name: String,
    /// `gridDim` (x, y, z), each at least 1.
    pub grid: [u32; 3],
    /// `blockDim` (x, y, z), each at least 1, at most [`MAX_BLOCK_THREADS`] threads in total.
    pub block: [u32; 3],
    /// Iterations of the kernel's loop (at least 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub loop_trips: u32,
    /// Arithmetic instructions after each group of loads, as the GPU runs the kernel
    /// ([`crate::gpu::kernel`]): after the loads before the loop, and after each iteration's
    /// loads. The first reads every register the group's loads wrote (so the warp waits for
    /// them there), the others form a dependent chain. 0: loads only (no warp waits on its
    /// loads but for the LD/ST unit). The OT stimulus and the dispatcher read loads only.
    #[serde(default, skip_serializing_if = "is_zero32")]
    pub compute: u32,
    /// The arrays the loads read.
    pub arrays: Vec<ArrayDesc>,
    /// The load instructions, in program order.
    pub loads: Vec<LoadDesc>,
}

/// An array in global memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrayDesc {
    pub name: String,
    /// Byte address of element 0 (a multiple of `elem_bytes`).
    pub base: u64,
    /// Bytes per element: a power of two in 1..=16.
    pub elem_bytes: u32,
    /// Elements per row when the array is viewed as 2-D (0 = 1-D). Informational: loads give
    /// their own index coefficients; the thread-block dispatcher's access rectangles (seed 002)
    /// will use it. Validated only (at most `len` when both are set).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub row_pitch: u64,
    /// Elements (0 = unbounded). Affine loads must stay inside `0..len`; irregular loads draw
    /// their indices from `0..len`, so they need `len > 0`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub len: u64,
}

/// One load instruction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadDesc {
    /// Byte PC of the load instruction (unique within the kernel).
    pub pc: u64,
    /// Name of the array it reads.
    pub array: String,
    /// Element index (affine loads; must be left zero for irregular loads).
    #[serde(default, skip_serializing_if = "Affine::is_zero")]
    pub index: Affine,
    /// Executed once per loop iteration (else once, before the loop).
    #[serde(default, skip_serializing_if = "is_false")]
    pub in_loop: bool,
    /// Index = hash(seed, pc, block, thread, iteration) % len instead of the affine form.
    #[serde(default, skip_serializing_if = "is_false")]
    pub irregular: bool,
}

/// An element index affine in the block id, the thread id and the loop iteration:
/// `c + bx*blockIdx.x + by*blockIdx.y + bz*blockIdx.z + tx*threadIdx.x + ty*threadIdx.y +
/// tz*threadIdx.z + it*iter`. Missing coefficients are 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Affine {
    pub c: i64,
    pub bx: i64,
    pub by: i64,
    pub bz: i64,
    pub tx: i64,
    pub ty: i64,
    pub tz: i64,
    pub it: i64,
}

impl Affine {
    /// All coefficients zero.
    pub fn is_zero(&self) -> bool {
        *self == Affine::default()
    }

    /// The index of thread `thread` of block `block` in iteration `iter`, exactly.
    pub fn eval(&self, block: [u32; 3], thread: [u32; 3], iter: u32) -> i128 {
        let t = |coef: i64, v: u32| i128::from(coef) * i128::from(v);
        i128::from(self.c)
            + t(self.bx, block[0])
            + t(self.by, block[1])
            + t(self.bz, block[2])
            + t(self.tx, thread[0])
            + t(self.ty, thread[1])
            + t(self.tz, thread[2])
            + t(self.it, iter)
    }

    /// Smallest and largest index over every block of `grid`, thread of `block` and iteration
    /// in `0..trips`. Each term is monotone in its variable and the variables range over a full
    /// box, so the extremes are exact.
    pub fn range(&self, grid: [u32; 3], block: [u32; 3], trips: u32) -> (i128, i128) {
        let terms = [
            (self.bx, grid[0]),
            (self.by, grid[1]),
            (self.bz, grid[2]),
            (self.tx, block[0]),
            (self.ty, block[1]),
            (self.tz, block[2]),
            (self.it, trips),
        ];
        let (mut lo, mut hi) = (i128::from(self.c), i128::from(self.c));
        for (coef, n) in terms {
            let last = i128::from(coef) * i128::from(n.saturating_sub(1));
            lo += last.min(0);
            hi += last.max(0);
        }
        (lo, hi)
    }
}

/// One load instruction as every warp executes it: which load, in which loop iteration, and
/// its load execution count (LEC, seed 000 §III): how many times the warp executed this PC
/// before (0 for the first time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LoadInstance {
    /// Index into [`KernelDesc::loads`].
    pub load: usize,
    /// Loop iteration (0 for loads before the loop).
    pub iter: u32,
    /// Load execution count.
    pub lec: u32,
}

impl KernelDesc {
    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block.iter().product()
    }

    /// Warps per block for a warp of `warp_size` threads (the last one may be partial).
    pub fn warps_per_block(&self, warp_size: u32) -> u32 {
        self.threads_per_block().div_ceil(warp_size)
    }

    /// Thread blocks in the grid.
    pub fn num_blocks(&self) -> u64 {
        self.grid.iter().map(|&g| u64::from(g)).product()
    }

    /// Block id of linear block number `linear` (`x + y*gx + z*gx*gy`).
    pub fn block_id(&self, linear: u32) -> [u32; 3] {
        let [gx, gy, _] = self.grid;
        [linear % gx, (linear / gx) % gy, linear / (gx * gy)]
    }

    /// Linear block number of block id `tb`.
    pub fn block_linear(&self, tb: [u32; 3]) -> u32 {
        let [gx, gy, _] = self.grid;
        tb[0] + tb[1] * gx + tb[2] * gx * gy
    }

    /// Thread id of linear thread number `tid` (`tx + ty*bx + tz*bx*by`).
    pub fn thread_id(&self, tid: u32) -> [u32; 3] {
        let [bx, by, _] = self.block;
        [tid % bx, (tid / bx) % by, tid / (bx * by)]
    }

    /// The array called `name`.
    pub fn array(&self, name: &str) -> Option<&ArrayDesc> {
        self.arrays.iter().find(|a| a.name == name)
    }

    /// The program every warp runs: each load outside the loop once, then `loop_trips`
    /// iterations of the loads in the loop, with their LECs.
    pub fn warp_program(&self) -> WarpProgram {
        // Per load: how many loads of its PC come before it in one pass of the program's
        // shape (the loads before the loop, then one iteration's, each in declaration order).
        let same_pc_before = |i: usize, in_loop: bool| {
            let pc = self.loads[i].pc;
            let before = |j: usize, m: &LoadDesc| match in_loop {
                true => !m.in_loop || j < i,
                false => !m.in_loop && j < i,
            };
            self.loads
                .iter()
                .enumerate()
                .filter(|&(j, m)| m.pc == pc && before(j, m))
                .count() as u32
        };
        let mut outside = Vec::new();
        let mut inside = Vec::new();
        for (i, l) in self.loads.iter().enumerate() {
            let step = ProgramLoad {
                load: i,
                lec: same_pc_before(i, l.in_loop),
                per_iter: self
                    .loads
                    .iter()
                    .filter(|m| m.in_loop && m.pc == l.pc)
                    .count() as u32,
            };
            if l.in_loop {
                inside.push(step);
            } else {
                outside.push(ProgramLoad {
                    per_iter: 0,
                    ..step
                });
            }
        }
        WarpProgram {
            outside,
            inside,
            trips: self.loop_trips,
        }
    }
}

/// A load of a [`WarpProgram`]: its index into [`KernelDesc::loads`], its LEC in the first
/// iteration (or before the loop), and how much its LEC grows each iteration (the loads of
/// its PC in the loop).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ProgramLoad {
    load: usize,
    lec: u32,
    per_iter: u32,
}

/// The program every warp of a kernel runs ([`KernelDesc::warp_program`]): each load outside
/// the loop once, then `loop_trips` iterations of the loads in the loop. Held as that shape
/// and each step computed from its number, so that memory does not grow with `loop_trips`.
/// Steps are grouped as the GPU's warps run them ([`crate::gpu::kernel`]): the loads before
/// the loop, then each iteration's loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpProgram {
    outside: Vec<ProgramLoad>,
    inside: Vec<ProgramLoad>,
    trips: u32,
}

impl WarpProgram {
    /// Steps in the program.
    pub fn len(&self) -> u64 {
        self.outside.len() as u64 + self.inside.len() as u64 * u64::from(self.trips)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Step `i` (`None` past the end).
    pub fn get(&self, i: u64) -> Option<LoadInstance> {
        let before = self.outside.len() as u64;
        if i < before {
            let p = self.outside[i as usize];
            return Some(LoadInstance {
                load: p.load,
                iter: 0,
                lec: p.lec,
            });
        }
        let n = self.inside.len() as u64;
        let j = i - before;
        let iter = u32::try_from(j.checked_div(n)?).ok()?;
        if iter >= self.trips {
            return None;
        }
        let p = self.inside[(j % n) as usize];
        Some(LoadInstance {
            load: p.load,
            iter,
            lec: p.lec + iter * p.per_iter,
        })
    }

    /// Step `i`'s place in its group (the loads before the loop, or one iteration's): its
    /// position from 0, and the group's size.
    pub fn place(&self, i: u64) -> (usize, usize) {
        let before = self.outside.len() as u64;
        if i < before {
            return (i as usize, self.outside.len());
        }
        let n = self.inside.len().max(1);
        (((i - before) % n as u64) as usize, n)
    }

    /// Loads in a group (before the loop, or in one iteration), at most.
    pub fn largest_group(&self) -> usize {
        self.outside.len().max(self.inside.len())
    }

    /// Every step in order.
    pub fn iter(&self) -> impl Iterator<Item = LoadInstance> + '_ {
        (0..self.len()).map_while(|i| self.get(i))
    }
}

/// How a load is named in messages: `loads[2] (pc 0x108)`.
pub(crate) fn load_label(i: usize, l: &LoadDesc) -> String {
    format!("loads[{i}] (pc {:#x})", l.pc)
}

/// Parse a TOML kernel description and validate it.
pub fn load_kernel_file(path: &Path) -> Result<KernelDesc, WorkloadError> {
    let text = spec::input::read_to_string(path).map_err(|error| WorkloadError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let k: KernelDesc = toml::from_str(&text).map_err(|e| WorkloadError::Toml {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    validate(&k)?;
    Ok(k)
}

/// Check a kernel description: shapes, arrays, loads, and that every element index and byte
/// address any thread can produce is legal (checked exactly, up front, so generating requests
/// never fails).
pub fn validate(k: &KernelDesc) -> Result<(), WorkloadError> {
    validate_shape(k)?;
    validate_arrays(k)?;
    if k.loads.is_empty() {
        return Err(WorkloadError::NoLoads {
            kernel: k.name.clone(),
        });
    }
    for (i, l) in k.loads.iter().enumerate() {
        validate_load(k, i, l)?;
    }
    Ok(())
}

/// Kernel `k`'s `field` = `value` is out of range; `legal` says what is legal.
fn out_of_range(k: &KernelDesc, field: String, value: String, legal: &str) -> WorkloadError {
    WorkloadError::OutOfRange {
        kernel: k.name.clone(),
        field,
        value,
        legal: legal.to_string(),
    }
}

/// The name, the grid and block shapes, and the loop's trips.
fn validate_shape(k: &KernelDesc) -> Result<(), WorkloadError> {
    let range = |field: String, value: String, legal: &str| out_of_range(k, field, value, legal);
    if k.name.trim().is_empty() {
        return Err(range(
            "name".into(),
            format!("{:?}", k.name),
            "a non-empty name",
        ));
    }
    for (d, axis) in ["x", "y", "z"].iter().enumerate() {
        if k.grid[d] == 0 {
            return Err(range(
                format!("grid[{d}] ({axis})"),
                "0".into(),
                "1 or more",
            ));
        }
        if k.block[d] == 0 {
            return Err(range(
                format!("block[{d}] ({axis})"),
                "0".into(),
                "1..=1024",
            ));
        }
    }
    let threads: u64 = k.block.iter().map(|&b| u64::from(b)).product();
    if threads > MAX_BLOCK_THREADS {
        return Err(range(
            "block".into(),
            format!("{:?} ({threads} threads)", k.block),
            "shapes of at most 1024 threads in total",
        ));
    }
    if k.num_blocks() > u64::from(u32::MAX) {
        return Err(range(
            "grid".into(),
            format!("{:?} ({} blocks)", k.grid, k.num_blocks()),
            "shapes of at most 4294967295 blocks in total",
        ));
    }
    if k.loop_trips == 0 {
        return Err(range("loop_trips".into(), "0".into(), "1 or more"));
    }
    Ok(())
}

/// The arrays: names given once, element sizes, aligned bases, row pitches.
fn validate_arrays(k: &KernelDesc) -> Result<(), WorkloadError> {
    for (i, a) in k.arrays.iter().enumerate() {
        let range = |f: &str, value: String, legal: &str| {
            out_of_range(k, format!("arrays[{i}] ({}).{f}", a.name), value, legal)
        };
        if k.arrays[..i].iter().any(|b| b.name == a.name) {
            return Err(WorkloadError::DuplicateArray {
                kernel: k.name.clone(),
                array: a.name.clone(),
            });
        }
        if !a.elem_bytes.is_power_of_two() || a.elem_bytes > 16 {
            return Err(range(
                "elem_bytes",
                a.elem_bytes.to_string(),
                "1, 2, 4, 8 or 16",
            ));
        }
        if a.base % u64::from(a.elem_bytes) != 0 {
            return Err(range(
                "base",
                format!("{:#x}", a.base),
                &format!("multiples of elem_bytes = {}", a.elem_bytes),
            ));
        }
        if a.len > 0 && a.row_pitch > a.len {
            return Err(range(
                "row_pitch",
                a.row_pitch.to_string(),
                &format!("0 (1-D) or 1..={} (at most len)", a.len),
            ));
        }
    }
    Ok(())
}

/// Load `i` (`l`): its PC given once, its array declared, its index and every byte address
/// it can produce within range.
fn validate_load(k: &KernelDesc, i: usize, l: &LoadDesc) -> Result<(), WorkloadError> {
    let kernel = || k.name.clone();
    let load = load_label(i, l);
    if let Some(other) = k.loads[..i].iter().position(|m| m.pc == l.pc) {
        return Err(WorkloadError::DuplicatePc {
            kernel: kernel(),
            load,
            other,
        });
    }
    let Some(a) = k.array(&l.array) else {
        let available = if k.arrays.is_empty() {
            "none (add `[[arrays]]` entries)".to_string()
        } else {
            k.arrays
                .iter()
                .map(|a| format!("`{}`", a.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(WorkloadError::UnknownArray {
            kernel: kernel(),
            load,
            array: l.array.clone(),
            available,
        });
    };
    let inconsistent = |message: &str| WorkloadError::Inconsistent {
        kernel: kernel(),
        load: load.clone(),
        message: message.to_string(),
    };
    let (lo, hi) = if l.irregular {
        if !l.index.is_zero() {
            return Err(inconsistent(
                "an irregular load takes its index from a hash; leave `index` out",
            ));
        }
        if a.len == 0 {
            return Err(WorkloadError::IrregularNeedsLen {
                kernel: kernel(),
                load,
                array: a.name.clone(),
            });
        }
        (0, i128::from(a.len) - 1)
    } else {
        if !l.in_loop && l.index.it != 0 {
            return Err(inconsistent(
                "`index.it` multiplies the loop iteration, but the load is not `in_loop`; set \
                    `in_loop = true` or `index.it = 0`",
            ));
        }
        let trips = if l.in_loop { k.loop_trips } else { 1 };
        let (lo, hi) = l.index.range(k.grid, k.block, trips);
        if a.len > 0 && (lo < 0 || hi >= i128::from(a.len)) {
            return Err(WorkloadError::IndexOutOfBounds {
                kernel: kernel(),
                load,
                array: a.name.clone(),
                lo,
                hi,
                len: a.len,
            });
        }
        (lo, hi)
    };
    let bytes = i128::from(a.elem_bytes);
    let (alo, ahi) = (
        i128::from(a.base) + lo * bytes,
        i128::from(a.base) + hi * bytes + (bytes - 1),
    );
    if alo < 0 || ahi > i128::from(u64::MAX) {
        return Err(WorkloadError::AddressOutOfRange {
            kernel: kernel(),
            load,
            array: a.name.clone(),
            lo: alo,
            hi: ahi,
        });
    }
    Ok(())
}
