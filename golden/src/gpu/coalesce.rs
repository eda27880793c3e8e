//! The coalescer: a warp memory instruction's per-lane addresses turned into the memory
//! accesses an SM sends to its L1, by GPGPU-Sim's rules (`warp_inst_t::memory_coalescing_arch`
//! and `memory_coalescing_arch_reduce_and_send`, `-gpgpu_coalesce_arch`).
//!
//! * Segment size: 32 bytes for 1-byte accesses; for 2-byte ones 64 bytes, for 4-, 8- and
//!   16-byte ones 128 bytes — on architectures below 40 when the access goes through the L1;
//!   32 bytes (a sector) when it skips the L1 (`-gpgpu_gmem_skip_L1D`, or a `.cg` / L2-only
//!   access) on Fermi and Kepler (20 to 38), and always from 40 (Maxwell on).
//! * Per sub-warp (`-gpgpu_shmem_warp_parts` parts), the active lanes' addresses are grouped by
//!   segment; a lane whose bytes cross a segment boundary also touches the next one.
//! * Each segment becomes one access, reduced from 128 to 64 to 32 bytes while only one half
//!   of it is touched, with its lanes, its 32-byte chunks (sectors) of the 128-byte block, and
//!   its bytes. Accesses leave in sub-warp order, then by address.
//!
//! Local-memory accesses of 4 bytes or more are 4-byte accesses at each lane's address: in
//! GPGPU-Sim a wider local access is split into 4-byte parts, and a trace gives only the first
//! part's address, so trace mode coalesces that one.
//!
//! One departure: GPGPU-Sim keeps a segment's address in a 32-bit `unsigned`, so a trace's
//! 64-bit addresses lose their upper half there (two segments 4 GiB apart would merge); here
//! addresses keep their 64 bits (decision GPU-6).

use crate::bitset::members;
use smallvec::SmallVec;

/// What decides the coalescing of an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoalesceRules {
    /// `-gpgpu_coalesce_arch` (13 GT200, 20 Fermi, 35-38 Kepler, 40+ Maxwell on).
    pub arch: u32,
    /// `-gpgpu_shmem_warp_parts`: sub-warps coalesced apart (1, 2, 4, ... up to 32).
    pub warp_parts: u32,
    /// `-gpgpu_gmem_skip_L1D`: global accesses bypass the L1.
    pub skip_l1: bool,
}

pub use crate::workload::opcode::Space;

/// One access to the memory hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Aligned to its size.
    pub addr: u64,
    /// 32, 64 or 128 bytes.
    pub size: u32,
    /// The lanes it serves.
    pub lanes: u32,
    /// The 32-byte chunks of its 128-byte block that lanes touch (bit `k`: bytes `32k..32k+32`).
    pub chunks: u8,
    /// The bytes of its 128-byte block that lanes touch.
    pub bytes: u128,
}

/// A memory instruction's accesses: held inline up to eight (most instructions touch a few
/// segments, so no allocation per instruction).
pub type Accesses = SmallVec<[Access; 8]>;

/// The accesses of one warp instruction: `lanes` holds `(lane, address)` for each active lane
/// (any order), each moving `data_size` bytes (1, 2, 4, 8 or 16); `l2_only` marks an access
/// that skips the L1 by its own cache operator (`.cg`).
pub fn coalesce(
    rules: CoalesceRules,
    lanes: &[(u32, u64)],
    data_size: u32,
    space: Space,
    l2_only: bool,
) -> Accesses {
    group::<true>(rules, lanes.iter().copied(), data_size, space, l2_only)
}

/// The same accesses as [`coalesce`] with their addresses, sizes and chunks only (`lanes` and
/// `bytes` 0): what an SM sends on. `lanes` is an iterator here, so an SM need not list its
/// lanes first, and the lane lists and the lane and byte masks it does not need are not built.
pub fn coalesce_chunks(
    rules: CoalesceRules,
    lanes: impl Iterator<Item = (u32, u64)> + Clone,
    data_size: u32,
    space: Space,
    l2_only: bool,
) -> Accesses {
    group::<false>(rules, lanes, data_size, space, l2_only)
}

/// [`coalesce_chunks`] of lanes whose addresses step by one stride: the `k`-th active lane of
/// `mask`, of the first `n`, at `base + k * stride`. When the stride is 1 to 32 bytes and every
/// lane is aligned to its size, each lane touches one chunk and a sub-warp every chunk from
/// its first lane's to its last's: its accesses come from that range alone, not lane by lane
/// (a streaming warp's lanes are not grouped one by one). Otherwise by lanes.
#[allow(clippy::too_many_arguments)]
pub fn coalesce_strided(
    rules: CoalesceRules,
    mask: u32,
    base: u64,
    stride: u64,
    n: usize,
    data_size: u32,
    space: Space,
    l2_only: bool,
) -> Accesses {
    let (segment, size) = shape(rules, data_size, space, l2_only);
    let n = n.min(mask.count_ones() as usize) as u64;
    let aligned = size.is_power_of_two()
        && size <= 16
        && base.is_multiple_of(size)
        && (n <= 1 || ((1..=32).contains(&stride) && stride.is_multiple_of(size)));
    let end = n
        .checked_sub(1)
        .and_then(|k| k.checked_mul(stride))
        .and_then(|d| base.checked_add(d))
        .and_then(|last| last.checked_add(segment));
    if !aligned || end.is_none() {
        let addrs = (0..n).map(|k| base.wrapping_add(k.wrapping_mul(stride)));
        return coalesce_chunks(
            rules,
            members(u64::from(mask)).zip(addrs),
            data_size,
            space,
            l2_only,
        );
    }
    let parts = rules.warp_parts.clamp(1, 32);
    let per_part = 32 / parts;
    // Active lanes below lane `l`, of the first `n`.
    let before = |l: u32| {
        (u64::from(mask) & ((1u64 << l) - 1))
            .count_ones()
            .min(n as u32)
    };
    let mut out = Accesses::new();
    for part in 0..parts {
        let (k0, k1) = (before(part * per_part), before((part + 1) * per_part));
        if k1 <= k0 {
            continue;
        }
        let first = base + u64::from(k0) * stride;
        let last = base + u64::from(k1 - 1) * stride;
        let mut seg = first & !(segment - 1);
        while seg <= last {
            // The chunks of this segment from `first`'s to `last`'s.
            let lo = seg.max(first & !31);
            let hi = (seg + segment - 32).min(last & !31);
            let mut chunks = 0u8;
            let mut c = lo;
            while c <= hi {
                chunks |= 1 << ((c & 127) / 32);
                c += 32;
            }
            out.push(reduce(seg, segment as u32, 0, chunks, 0));
            seg += segment;
        }
    }
    out
}

/// The segment size and the bytes a lane moves, of an access of `data_size` bytes.
fn shape(rules: CoalesceRules, data_size: u32, space: Space, l2_only: bool) -> (u64, u64) {
    let sector = match rules.arch {
        20..=38 => rules.skip_l1 || l2_only,
        40.. => true,
        _ => false,
    };
    let segment: u64 = match data_size {
        1 => 32,
        2 if !sector => 64,
        4 | 8 | 16 if !sector => 128,
        _ => 32,
    };
    let size = if space == Space::Local && data_size >= 4 {
        4
    } else {
        u64::from(data_size.max(1))
    };
    (segment, size)
}

/// The rules above, once for both: `FULL` keeps each access's lanes and bytes.
fn group<const FULL: bool>(
    rules: CoalesceRules,
    lanes: impl Iterator<Item = (u32, u64)> + Clone,
    data_size: u32,
    space: Space,
    l2_only: bool,
) -> Accesses {
    let (segment, size) = shape(rules, data_size, space, l2_only);
    let parts = rules.warp_parts.clamp(1, 32);
    let per_part = 32 / parts;
    let mut out = Accesses::new();
    // Per segment of the sub-warp: (segment address, lanes, chunks, bytes), kept sorted.
    let mut segments: SmallVec<[Segment; 8]> = SmallVec::new();
    for part in 0..parts {
        segments.clear();
        let range = part * per_part..(part + 1) * per_part;
        // The segment the previous lane touched, gathered apart: neighbouring lanes mostly
        // share one, and it joins the sorted list only when another is touched.
        let mut cur: Segment = (u64::MAX, 0, 0, 0);
        let mut touch = |lane: u32, a: u64| {
            let seg = a & !(segment - 1);
            if seg != cur.0 {
                merge(&mut segments, cur);
                cur = (seg, 0, 0, 0);
            }
            cur.2 |= 1 << ((a & 127) / 32);
            if FULL {
                cur.1 |= 1 << lane;
                cur.3 |= byte_mask(a & 127, size);
            }
        };
        for (lane, addr) in lanes.clone() {
            if !range.contains(&lane) {
                continue;
            }
            touch(lane, addr);
            let last = addr.wrapping_add(size - 1);
            if last & !(segment - 1) != addr & !(segment - 1) {
                touch(lane, last);
            }
        }
        merge(&mut segments, cur);
        for &(seg, lanes, chunks, bytes) in &segments {
            out.push(reduce(seg, segment as u32, lanes, chunks, bytes));
        }
    }
    out
}

/// A segment being gathered: its address, lanes, chunks and bytes.
type Segment = (u64, u32, u8, u128);

/// `s` into the sorted list (joined to the entry of its address, if there is one); a segment
/// that no lane touched (no chunk) is left out.
fn merge(list: &mut SmallVec<[Segment; 8]>, s: Segment) {
    if s.2 == 0 {
        return;
    }
    match list.binary_search_by_key(&s.0, |x| x.0) {
        Ok(i) => {
            let x = &mut list[i];
            x.1 |= s.1;
            x.2 |= s.2;
            x.3 |= s.3;
        }
        Err(i) => list.insert(i, s),
    }
}

/// Bytes `first..first + size` of a 128-byte segment (`first` < 128), as bits; bytes past the
/// segment are left out. (One shift, not a bit set per byte.)
fn byte_mask(first: u64, size: u64) -> u128 {
    let n = size.min(128 - first) as u32;
    let ones = u128::MAX.checked_shr(128 - n).unwrap_or(0);
    ones << first
}

/// A segment's access, halved while only one half is touched (128 -> 64 -> 32 bytes).
fn reduce(mut addr: u64, segment: u32, lanes: u32, chunks: u8, bytes: u128) -> Access {
    let mut size = segment;
    // The two 32-byte chunks of the 64-byte half in question (bits 0 and 1).
    let mut halves = 0u8;
    if segment == 128 {
        let (low, high) = (chunks & 0b0011 != 0, chunks & 0b1100 != 0);
        if low && !high {
            size = 64;
            halves = chunks & 0b11;
        } else if high && !low {
            addr += 64;
            size = 64;
            halves = chunks >> 2 & 0b11;
        }
    } else if segment == 64 {
        halves = if addr.is_multiple_of(128) {
            chunks & 0b11
        } else {
            chunks >> 2 & 0b11
        };
    }
    if size == 64 {
        match halves {
            0b01 => size = 32,
            0b10 => {
                addr += 32;
                size = 32;
            }
            _ => {}
        }
    }
    Access {
        addr,
        size,
        lanes,
        chunks,
        bytes,
    }
}

#[cfg(test)]
#[path = "coalesce_tests.rs"]
mod tests;
