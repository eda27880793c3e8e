use super::*;

// ---- spmv -----------------------------------------------------------------------------------

pub(in crate::suite::apps) static SPMV_SASS: Listing =
    Listing::new("spmv.sass", include_str!("../../../../sass/spmv.sass"));

pub(in crate::suite::apps) const SPMV: Workload = Workload {
    name: "spmv",
    suite: "Parboil",
    source: parboil_src!(
        "spmv",
        "main.cu, jds_kernels.cu (spmv_jds), gpu_info.cc; ../../common_src/convert-dataset"
    ),
    args: &[
        (
            "rows",
            "146689",
            "rows (and columns) of the generated symmetric matrix (the large data set \
             AccelWattch ran, Dubcova3: 146689; medium, bcsstk18: 11948)",
        ),
        (
            "nnz",
            "1891666",
            "entries of its stored lower triangle, diagonal included, as its .mtx holds them \
             (Dubcova3: 1891666 of 3636643 nonzeros; bcsstk18: 80519)",
        ),
        (
            "iters",
            "1",
            "launches of the kernel (the source makes 50, each computing the same product)",
        ),
        (
            "sms",
            "80",
            "the GPU's multiprocessor count, which the host's block size depends on \
             (compute_active_thread; 80: the QV100 AccelWattch modelled)",
        ),
        (
            "file",
            "",
            "a Matrix Market .mtx file (coordinate, real or integer) in place of rows and nnz",
        ),
        (
            "vector",
            "",
            "Parboil's vector.bin (little-endian floats, one per row) in place of the generated x",
        ),
    ],
    input: "a symmetric sparse matrix with the data set's rows and nonzeros (row lengths \
            uniform around its mean, columns within a band), x uniform in [0, 1], by seed; or \
            a Matrix Market file",
    small: "rows=700,nnz=2000",
    make: spmv,
};

/// The host's `pad` (the kernel's warp size) and the length of the kernel's `__constant__`
/// arrays `jds_ptr_int` and `sh_zcnt_int`.
pub(super) const JDS_PAD: usize = 32;
pub(super) const JDS_CONST_LEN: usize = 5000;

/// A Matrix Market coordinate matrix: its rows (the header's) and its entries, 0-based, in the
/// file's order.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Coo {
    pub(super) rows: usize,
    pub(super) entries: Vec<(usize, usize, f32)>,
}

/// Matrix Market file `path`, as Parboil's `coo_to_jds` reads it.
pub(super) fn read_mtx(path: &str) -> Result<Coo, SuiteError> {
    parse_mtx(path, &read_text(path)?)
}

pub(super) fn parse_mtx(path: &str, text: &str) -> Result<Coo, SuiteError> {
    let io = |line: usize, message: String| SuiteError::Io {
        path: path.into(),
        message: format!("line {line}: {message}"),
    };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let banner = lines.next().map_or("", |l| l.1).to_ascii_lowercase();
    let b: Vec<&str> = banner.split_whitespace().collect();
    if b.len() != 5 || b[0] != "%%matrixmarket" || b[1] != "matrix" || b[2] != "coordinate" {
        return Err(io(
            1,
            "not a Matrix Market banner `%%MatrixMarket matrix coordinate <field> <symmetry>`"
                .into(),
        ));
    }
    // (coo_to_jds reads a value from every line: a pattern file, without values, is misread
    // by it, and it refuses complex ones.)
    if !matches!(b[3], "real" | "integer") {
        return Err(io(
            1,
            format!("field `{}`: Parboil reads real or integer", b[3]),
        ));
    }
    let mut data = lines.filter(|(_, l)| !l.trim_start().starts_with('%') && !l.trim().is_empty());
    let (n, size) = data
        .next()
        .ok_or_else(|| io(1, "the file ends before its size line".into()))?;
    let dims: Vec<usize> = size
        .split_whitespace()
        .map(|w| w.parse().ok().filter(|&v| v > 0))
        .collect::<Option<_>>()
        .filter(|d: &Vec<usize>| d.len() == 3)
        .ok_or_else(|| io(n, format!("`{size}` is not `rows columns nonzeros`")))?;
    let (rows, cols, nz) = (dims[0], dims[1], dims[2]);
    if rows > 1 << 24 || cols > 1 << 24 || nz > 1 << 26 {
        return Err(io(
            n,
            format!("{rows} x {cols} with {nz} nonzeros is too large"),
        ));
    }
    let mut entries = Vec::with_capacity(nz);
    for (n, line) in data.by_ref().take(nz) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let index = |s: &str, hi: usize| s.parse::<usize>().ok().filter(|v| (1..=hi).contains(v));
        let entry = match w.as_slice() {
            [i, j, v] => index(i, rows)
                .zip(index(j, cols))
                .zip(v.parse::<f32>().ok())
                .map(|((i, j), v)| (i - 1, j - 1, v)),
            _ => None,
        };
        entries.push(entry.ok_or_else(|| {
            io(
                n,
                format!("`{line}` is not `row column value` within the {rows} x {cols} matrix"),
            )
        })?);
    }
    if entries.len() != nz {
        return Err(io(
            text.lines().count(),
            format!("{} entries, the size line says {nz}", entries.len()),
        ));
    }
    if let Some((n, _)) = data.next() {
        return Err(io(
            n,
            format!("more than the {nz} entries the size line says"),
        ));
    }
    Ok(Coo { rows, entries })
}

/// A symmetric matrix of the data set's shape, its lower triangle in a .mtx file's order
/// (column by column): `rows` diagonal entries and `nnz - rows` below it, each row's count
/// uniform in [0, twice the mean], its columns within a band of width about sqrt(rows) (as a
/// 2-D mesh's numbering gives), values uniform in [-1, 1).
pub(super) fn generate_symmetric(rows: usize, nnz: usize, seed: u64) -> Coo {
    let mut rng = Rng::new(seed);
    let below = nnz - rows;
    // (At most 2^18 rows and 2^22 entries: the float arithmetic below is exact enough.)
    let mean = below as f64 / rows as f64;
    let band = ((rows as f64).sqrt() as usize).max(2 * mean.ceil() as usize + 2);
    let value = |rng: &mut Rng| rng.bits(24) as f32 / (1u32 << 23) as f32 - 1.0;
    let mut entries = Vec::with_capacity(nnz);
    let mut left = below;
    for r in 0..rows {
        entries.push((r, r, value(&mut rng)));
        // Spread what is left over the rows left, around the mean.
        let rows_left = rows - r;
        let want = left as f64 / rows_left as f64;
        // (The last row keeps one: alone in its row, the file's last entry would be counted
        // in the row before by the conversion.)
        let count = if r + 1 == rows {
            left
        } else {
            (rng.below((2.0 * want) as u64 + 1) as usize).min(left - 1)
        }
        .min(r);
        left -= count;
        // `count` distinct columns in [r - band, r).
        let lo = r.saturating_sub(band.max(count));
        let mut cols: Vec<usize> = Vec::with_capacity(count);
        while cols.len() < count {
            let c = lo + rng.below((r - lo) as u64) as usize;
            if !cols.contains(&c) {
                cols.push(c);
            }
        }
        entries.extend(cols.into_iter().map(|c| (r, c, value(&mut rng))));
    }
    // A .mtx file of a symmetric matrix lists its lower triangle column by column.
    entries.sort_by_key(|&(r, c, _)| (c, r));
    Coo { rows, entries }
}

/// The matrix in Parboil's JDS layout, as `coo_to_jds` makes it (row padding 1, warp size 32,
/// pack size 1, mirrored): rows sorted by length, longest first, in groups of 32 padded to
/// their first row's length.
#[derive(Debug, Clone)]
pub(super) struct Jds {
    pub(super) data: Vec<f32>,
    pub(super) index: Vec<i32>,
    /// Where each JDS column starts in `data` (`jds_ptr_int`; `depth` entries).
    pub(super) ptr: Vec<i32>,
    /// Each group's length (`sh_zcnt_int`).
    pub(super) nzcnt: Vec<i32>,
    /// Each sorted row's row (`d_perm`).
    pub(super) perm: Vec<i32>,
}

/// What `coo_to_jds` keeps of a row: its row, length and first entry in the sorted entries.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RowStats {
    pub(super) index: usize,
    pub(super) size: usize,
    pub(super) start: usize,
    pub(super) padding: usize,
}

/// `coo_to_jds`, step by step (its quirks kept: every matrix is mirrored whatever its banner
/// says, and the last entry, when alone in its row, is counted in the row before).
pub(super) fn coo_to_jds(coo: &Coo) -> Result<Jds, String> {
    let mut entries: Vec<(usize, usize, f32)> = Vec::with_capacity(2 * coo.entries.len());
    for &(r, c, v) in &coo.entries {
        entries.push((r, c, v));
        if r != c {
            entries.push((c, r, v));
        }
    }
    let nz = entries.len();
    if nz < 2 {
        return Err("the conversion needs at least two entries".into());
    }
    // (glibc's qsort sorts these arrays by merging: stable.)
    entries.sort_by_key(|e| e.0);
    let rows = (entries[nz - 1].0 + 1).next_multiple_of(JDS_PAD);
    let mut stats = vec![RowStats::default(); rows];
    let (mut irow, mut icol, mut istart) = (entries[0].0, 0, 0);
    for i in 0..nz {
        if entries[i].0 != irow || i == nz - 1 {
            if i == nz - 1 {
                icol += 1;
            }
            stats[irow] = RowStats {
                index: entries[i - 1].0,
                size: icol,
                start: istart,
                padding: 0,
            };
            icol = 0;
            irow = entries[i].0;
            istart = i;
        }
        icol += 1;
    }
    let groups = rows / JDS_PAD;
    stats.sort_by_key(|s| std::cmp::Reverse(s.size));
    let mut nzcnt = vec![0; groups];
    let mut perm = vec![0; rows];
    let (mut total, mut pad_to) = (0, 0);
    for (i, s) in stats.iter_mut().enumerate() {
        perm[i] = s.index;
        if i % JDS_PAD == 0 {
            pad_to = s.size;
            nzcnt[i / JDS_PAD] = s.size;
            total += pad_to * JDS_PAD;
        } else {
            s.padding = pad_to - s.size;
        }
    }
    let depth_max = stats[0].size + stats[0].padding;
    if depth_max + 1 > JDS_CONST_LEN || groups > JDS_CONST_LEN {
        return Err(format!(
            "{depth_max} entries in the longest row and {groups} groups of 32 rows: the kernel's \
             __constant__ arrays hold {JDS_CONST_LEN}"
        ));
    }
    let mut data = vec![0.0; total];
    let mut index = vec![0; total];
    let mut ptr = Vec::with_capacity(depth_max + 1);
    let mut idata = 0;
    for irow in 0.. {
        ptr.push(idata);
        if depth_max <= irow {
            break;
        }
        for s in &stats {
            if s.size > irow {
                let e = entries[s.start + irow];
                data[idata] = e.2;
                index[idata] = e.1 as i32;
            } else if s.size + s.padding > irow {
                index[idata] = -1;
            } else {
                break;
            }
            idata += 1;
        }
    }
    // (Below 2^26 entries and 2^24 rows, by the parser's and the generator's bounds.)
    let int = |v: Vec<usize>| v.into_iter().map(|x| x as i32).collect();
    Ok(Jds {
        data,
        index,
        ptr: int(ptr),
        nzcnt: int(nzcnt),
        perm: int(perm),
    })
}

/// The host's `compute_active_thread` for a GPU of compute capability 2.0 or later with `sms`
/// multiprocessors: (threads per block, blocks).
pub(super) fn active_threads(task: usize, sms: usize) -> (usize, usize) {
    let (max_thread, max_block) = (1536, 8);
    if task * JDS_PAD > sms * max_thread {
        let thread = max_thread / max_block;
        (thread, (task * JDS_PAD).div_ceil(thread))
    } else {
        (JDS_PAD, task)
    }
}

pub(super) fn spmv(args: &Args, seed: u64) -> Result<Box<dyn App>, SuiteError> {
    let iters = args.int("iters", 1, 1, 50)? as usize;
    let sms = args.int("sms", 80, 1, 1024)? as usize;
    let coo = match path_arg(args, "file") {
        Some(path) => read_mtx(path)?,
        None => {
            let rows = args.int("rows", 146689, 32, 1 << 18)? as usize;
            let nnz = args.int("nnz", 1891666, 1, 1 << 22)? as usize;
            if nnz < rows + 1 || nnz - rows > rows * 64 {
                return Err(args.err(
                    "nnz",
                    format!("{nnz}: the diagonal's {rows} entries and 1 to 64 per row below it"),
                ));
            }
            generate_symmetric(rows, nnz, seed)
        }
    };
    let dim = coo.rows;
    let host = |message: String| SuiteError::Host {
        workload: "spmv".into(),
        message,
    };
    let jds = coo_to_jds(&coo).map_err(host)?;
    if jds.perm.len() < dim {
        return Err(host(format!(
            "the matrix's last rows are empty: the conversion's row map has {} of its {dim} rows",
            jds.perm.len()
        )));
    }
    let x: Vec<f32> = match path_arg(args, "vector") {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| SuiteError::Io {
                path: path.into(),
                message: e.to_string(),
            })?;
            if bytes.len() < 4 * dim {
                return Err(SuiteError::Io {
                    path: path.into(),
                    message: format!("{} bytes, {dim} floats expected", bytes.len()),
                });
            }
            bytes[..4 * dim]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        }
        // As the source's (unused) generate_vector: rand() / RAND_MAX.
        None => unit_floats(dim, seed ^ 0x5eed),
    };
    // The host's reference: each thread's sum in the kernel's order (a fused multiply-add per
    // JDS column, up to its group's length), stored at its row. A padded entry
    // (index -1) adds 0 times x[-1].
    let mut want = vec![0.0; dim];
    for ix in 0..dim {
        // An empty row among the first `dim` sorted rows would be mapped to row 0, and its
        // thread would read its group's first column past its end.
        // (A row's first JDS entry is a padded one, index -1, exactly when the row is empty.)
        if jds.nzcnt[ix / JDS_PAD] == 0 || jds.index[jds.ptr[0] as usize + ix] < 0 {
            return Err(host(format!(
                "the matrix has an empty row (Parboil's conversion maps it to row 0): {} \
                 rows hold entries",
                ix
            )));
        }
        let bound = jds.nzcnt[ix / JDS_PAD] as usize;
        let mut sum = 0.0f32;
        for k in 0..bound {
            let j = jds.ptr[k] as usize + ix;
            let i = jds.index[j];
            let t = usize::try_from(i).map_or(0.0, |i| x[i]);
            sum = jds.data[j].mul_add(t, sum);
        }
        want[jds.perm[ix] as usize] = f64::from(sum);
    }
    let kernel = SPMV_SASS.kernel("_Z8spmv_jdsPfPKfPKiS3_S1_S3_i")?;
    let (block, grid) = active_threads(jds.nzcnt.len(), sms);
    let setup: Setup = Box::new(move |mem: &mut DeviceMemory| {
        let len = jds.data.len() as u64;
        let nzcnt_len = jds.nzcnt.len() as u64;
        let d = vec![
            mem.alloc(len * 4),
            mem.alloc(len * 4),
            mem.alloc(jds.ptr.len() as u64 * 4),
            mem.alloc(dim as u64 * 4),
            // The kernel reads x[-1] for a padded entry (index -1), four bytes before x: on the
            // GPU the allocator's padding after this array, here the array's slot allocated
            // whole (the allocator's 512-byte granule) so that the read lands inside it.
            mem.alloc((nzcnt_len * 4).next_multiple_of(crate::suite::mem::SMALL_ALIGN)),
            mem.alloc(dim as u64 * 4),
            mem.alloc(dim as u64 * 4),
        ];
        let u32s = |v: &[i32]| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
        mem.write_f32(d[0], &jds.data).map_err(fault)?;
        mem.write_u32(d[1], &u32s(&jds.index)).map_err(fault)?;
        mem.write_u32(d[3], &u32s(&jds.perm[..dim]))
            .map_err(fault)?;
        mem.write_f32(d[5], &x).map_err(fault)?;
        let bytes = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        mem.write_symbol("jds_ptr_int", &bytes(&jds.ptr));
        mem.write_symbol("sh_zcnt_int", &bytes(&jds.nzcnt));
        // (Sizes bounded by the parser and the generator: the casts are exact.)
        let params = vec![
            Param::Ptr(d[6]),
            Param::Ptr(d[0]),
            Param::Ptr(d[1]),
            Param::Ptr(d[3]),
            Param::Ptr(d[5]),
            Param::Ptr(d[4]),
            Param::I32(dim as i32),
        ];
        let l = launch(&kernel, [grid as u32, 1, 1], [block as u32, 1, 1], params);
        Ok((d, vec![l; iters]))
    });
    let verify: Verify =
        Box::new(move |mem, d| compare("Ax", &Elem::F32.read(mem, d[6], dim)?, &want, 0.0));
    Ok(Fixed::boxed(setup, verify))
}
