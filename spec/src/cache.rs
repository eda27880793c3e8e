//! GPGPU-Sim cache configuration strings (`-gpgpu_cache:dl1`, `-gpgpu_cache:dl2`, `il1`, ...),
//! every field decoded and checked: the 4.x format
//! `ct:nset:line:assoc,rp:wp:ap:wap:sif,mshr:N:merge[,mq[:rf]][,port]` and v3.2.2's
//! `nset:line:assoc,rp:wp:ap:wap,mshr:N:merge[,mq[:rf]][,port]` (no cache type: a line cache;
//! no set-index function: linear), or `none`. The rules are GPGPU-Sim's (`cache_config::init`,
//! `gpu-cache.h`; `../shared/notes/gpgpusim-formats.md` §1.3). Hand-written: the grammar is a
//! fixed list of single-letter and number fields, and the errors name the field.

use std::fmt;
use thiserror::Error;

/// What a single-letter field of a cache string can hold, each value with its letter, declared
/// once: parsing and printing both read [`Letter::LETTERS`].
pub trait Letter: Copy + 'static {
    const LETTERS: &'static [(Self, char)];

    /// The value's letter in a cache string.
    fn letter(self) -> char;
}

/// An enumeration of a cache-string field with the letter of each value.
macro_rules! letters {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$vm:meta])* $v:ident = $c:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vm])* $v,)*
        }

        impl Letter for $name {
            const LETTERS: &'static [($name, char)] = &[$(($name::$v, $c),)*];

            fn letter(self) -> char {
                match self {
                    $($name::$v => $c,)*
                }
            }
        }
    };
}

letters! {
    /// Whole lines, or 128 B lines of four 32 B sectors (GPGPU-Sim's `SECTOR_SIZE`,
    /// `SECTOR_CHUNCK_SIZE`).
    pub enum CacheKind {
        Line = 'N',
        Sector = 'S',
    }
}

letters! {
    pub enum CacheReplacement {
        Lru = 'L',
        Fifo = 'F',
    }
}

letters! {
    pub enum WritePolicy {
        ReadOnly = 'R',
        WriteBack = 'B',
        WriteThrough = 'T',
        WriteEvict = 'E',
        /// Write-back for local data, write-through for global data.
        LocalWbGlobalWt = 'L',
    }
}

letters! {
    pub enum Allocation {
        /// The line is reserved at the miss (which can fail: a reservation failure).
        OnMiss = 'm',
        OnFill = 'f',
        /// Streaming: allocates on fill, and the MSHRs follow the lines.
        Streaming = 's',
    }
}

letters! {
    pub enum WriteAllocate {
        No = 'N',
        /// GPGPU-Sim 3.x's: a write miss sends the write and a read of the line.
        Naive = 'W',
        FetchOnWrite = 'F',
        /// A byte-masked write that fetches the line only if a later read needs unwritten bytes.
        LazyFetchOnRead = 'L',
    }
}

letters! {
    pub enum SetIndex {
        /// `(addr >> log2(line)) & (sets - 1)`.
        Linear = 'L',
        /// Fermi's hash (32 or 64 sets).
        FermiHash = 'H',
        /// IPOLY hash (16, 32 or 64 sets).
        Ipoly = 'P',
        /// Bitwise XOR with the higher bits.
        Xor = 'X',
        /// GPGPU-Sim's unimplemented custom function (always set 0).
        Custom = 'C',
    }
}

letters! {
    pub enum MshrKind {
        Associative = 'A',
        SectorAssociative = 'S',
        /// Texture FIFO (`entries` fragment-FIFO entries, `merge` request-FIFO entries).
        TexFifo = 'F',
        SectorTexFifo = 'T',
    }
}

/// A decoded cache string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheString {
    pub kind: CacheKind,
    pub sets: u32,
    pub line_bytes: u32,
    pub ways: u32,
    pub replacement: CacheReplacement,
    pub write: WritePolicy,
    pub allocation: Allocation,
    pub write_allocate: WriteAllocate,
    pub set_index: SetIndex,
    pub mshr: MshrKind,
    /// Distinct outstanding line (or sector) addresses.
    pub mshr_entries: u32,
    /// Requests merged into one entry at most.
    pub mshr_merge: u32,
    /// Outgoing misses waiting for the next level (0 when not given).
    pub miss_queue: u32,
    /// Result FIFO entries (texture caches only; 0 when not given).
    pub result_fifo: u32,
    /// Data-port width in bytes per cycle (0 when not given: the line size).
    pub port_bytes: u32,
}

/// Sector size and sectors per line of a sector cache (GPGPU-Sim's hard-coded values).
pub const SECTOR_BYTES: u32 = 32;
/// The most ways a cache, and the most entries its MSHR table, may have: the golden model
/// keeps a way's neighbours in its set's replacement order, and an entry's slot, in 16 bits.
pub const MAX_WAYS: u32 = 1 << 16;
pub const SECTORS_PER_LINE: u32 = 4;

/// A cache string GPGPU-Sim would refuse, with the field and why.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "cache string `{text}`: {why} (format: \
    ct:sets:line:ways,rp:wp:ap:wap:sif,mshr:entries:merge[,mq[:rf]][,port], e.g. \
    S:64:128:16,L:B:m:L:P,A:192:4,32:0,32; or `none`)"
)]
pub struct CacheStringError {
    pub text: String,
    pub why: String,
}

/// The value of letter field `f` (`what`, for the message): one of `legal`, or of all values.
fn pick<E: Letter + PartialEq>(f: &str, what: &str, legal: Option<&[E]>) -> Result<E, String> {
    let allowed: Vec<(E, char)> = E::LETTERS
        .iter()
        .copied()
        .filter(|(v, _)| legal.is_none_or(|l| l.contains(v)))
        .collect();
    let mut cs = f.chars();
    let found = match (cs.next(), cs.next()) {
        (Some(c), None) => allowed.iter().find(|(_, l)| *l == c).map(|(v, _)| *v),
        _ => None,
    };
    found.ok_or_else(|| {
        let names: Vec<String> = allowed.iter().map(|(_, c)| c.to_string()).collect();
        format!("{what} `{f}` is not one of {}", names.join(", "))
    })
}

impl CacheString {
    /// Decode a cache string; `None` for `none` (no cache).
    pub fn parse(text: &str) -> Result<Option<CacheString>, CacheStringError> {
        let s = text.trim();
        if s == "none" {
            return Ok(None);
        }
        let err = |why: String| CacheStringError {
            text: s.to_string(),
            why,
        };
        let groups: Vec<Vec<&str>> = s.split(',').map(|g| g.split(':').collect()).collect();
        if groups.len() < 3 || groups.len() > 5 {
            return Err(err(format!(
                "{} comma-separated groups, expected 3 to 5",
                groups.len()
            )));
        }
        let v4 = groups[0]
            .first()
            .and_then(|f| f.chars().next())
            .is_some_and(|c| c.is_ascii_alphabetic());
        // Letter fields take any of their values, except those the 3.x format lacks.
        let number = |f: &str, what: &str| -> Result<u32, CacheStringError> {
            f.parse::<u32>()
                .map_err(|_| err(format!("{what} `{f}` is not an unsigned number")))
        };
        let expect = |g: usize, n: usize, what: &str| -> Result<(), CacheStringError> {
            if groups[g].len() == n {
                Ok(())
            } else {
                Err(err(format!(
                    "group {} ({what}) has {} fields, expected {n}",
                    g + 1,
                    groups[g].len()
                )))
            }
        };
        // Geometry.
        let (kind, geo) = if v4 {
            expect(0, 4, "type:sets:line:ways")?;
            let k = pick(groups[0][0], "cache type", None).map_err(err)?;
            (k, &groups[0][1..])
        } else {
            expect(0, 3, "sets:line:ways")?;
            (CacheKind::Line, &groups[0][..])
        };
        let sets = number(geo[0], "sets")?;
        let line_bytes = number(geo[1], "line size")?;
        let ways = number(geo[2], "ways")?;
        // Policies.
        expect(
            1,
            if v4 { 5 } else { 4 },
            "replacement:write:allocation:write-allocate[:set-index]",
        )?;
        let p = &groups[1];
        let replacement = pick(p[0], "replacement", None).map_err(err)?;
        let write = pick(p[1], "write policy", None).map_err(err)?;
        let allocation = pick(
            p[2],
            "allocation",
            (!v4).then_some(&[Allocation::OnMiss, Allocation::OnFill] as &[_]),
        )
        .map_err(err)?;
        let write_allocate = pick(
            p[3],
            "write-allocate",
            (!v4).then_some(&[WriteAllocate::No, WriteAllocate::Naive] as &[_]),
        )
        .map_err(err)?;
        let set_index = if v4 {
            pick(p[4], "set-index function", None).map_err(err)?
        } else {
            SetIndex::Linear
        };
        // MSHRs.
        expect(2, 3, "mshr:entries:merge")?;
        let m = &groups[2];
        let mshr = pick(
            m[0],
            "MSHR kind",
            (!v4).then_some(&[MshrKind::Associative, MshrKind::TexFifo] as &[_]),
        )
        .map_err(err)?;
        let mshr_entries = number(m[1], "MSHR entries")?;
        let mshr_merge = number(m[2], "MSHR merge limit")?;
        // Queues and port.
        let (mut miss_queue, mut result_fifo, mut port_bytes) = (0, 0, 0);
        if let Some(q) = groups.get(3) {
            if q.is_empty() || q.len() > 2 {
                return Err(err(format!(
                    "group 4 (miss-queue[:result-fifo]) has {} fields, expected 1 or 2",
                    q.len()
                )));
            }
            miss_queue = number(q[0], "miss queue")?;
            if let Some(r) = q.get(1) {
                result_fifo = number(r, "result FIFO")?;
            }
        }
        if groups.len() == 5 {
            expect(4, 1, "port")?;
            port_bytes = number(groups[4][0], "data port width")?;
        }
        let c = CacheString {
            kind,
            sets,
            line_bytes,
            ways,
            replacement,
            write,
            allocation,
            write_allocate,
            set_index,
            mshr,
            mshr_entries,
            mshr_merge,
            miss_queue,
            result_fifo,
            port_bytes,
        };
        c.check(v4, groups.iter().map(Vec::len).sum())
            .map_err(err)?;
        Ok(Some(c))
    }

    /// GPGPU-Sim's rules on a decoded string of `fields` fields.
    fn check(&self, v4: bool, fields: usize) -> Result<(), String> {
        for (what, v) in [
            ("sets", self.sets),
            ("line size", self.line_bytes),
            ("ways", self.ways),
        ] {
            if v == 0 {
                return Err(format!("{what} must be at least 1"));
            }
        }
        if !self.sets.is_power_of_two() {
            return Err(format!(
                "sets {} is not a power of two (the set index takes address bits)",
                self.sets
            ));
        }
        if !self.line_bytes.is_power_of_two() {
            return Err(format!(
                "line size {} is not a power of two",
                self.line_bytes
            ));
        }
        if self.kind == CacheKind::Sector && self.line_bytes != SECTOR_BYTES * SECTORS_PER_LINE {
            return Err(format!(
                "a sector cache has {SECTORS_PER_LINE} sectors of {SECTOR_BYTES} B, so its line \
                    is {} B, not {}",
                SECTOR_BYTES * SECTORS_PER_LINE,
                self.line_bytes
            ));
        }
        match self.set_index {
            SetIndex::FermiHash if !matches!(self.sets, 32 | 64) => {
                return Err(format!(
                    "the Fermi hash set index (H) needs 32 or 64 sets, not {}",
                    self.sets
                ))
            }
            SetIndex::Ipoly if !matches!(self.sets, 16 | 32 | 64) => {
                return Err(format!(
                    "the IPOLY set index (P) needs 16, 32 or 64 sets, not {}",
                    self.sets
                ))
            }
            _ => {}
        }
        let fifo = matches!(self.mshr, MshrKind::TexFifo | MshrKind::SectorTexFifo);
        let need = if v4 { 14 } else { 13 };
        if fifo && fields != need {
            return Err(format!(
                "a texture FIFO MSHR needs exactly {need} fields (with miss queue and result \
                    FIFO), not {fields}"
            ));
        }
        if self.mshr_entries == 0 || self.mshr_merge == 0 {
            return Err("MSHR entries and merge limit must be at least 1".into());
        }
        // The golden model indexes a set's ways and an MSHR table's entries with 16 bits
        // (decision GPU-27); GPGPU-Sim's configurations use at most a few hundred.
        if self.ways > MAX_WAYS || self.mshr_entries > MAX_WAYS {
            return Err(format!(
                "at most {MAX_WAYS} ways and {MAX_WAYS} MSHR entries, got {} and {}",
                self.ways, self.mshr_entries
            ));
        }
        Ok(())
    }

    /// The cache's atom, GPGPU-Sim's `m_atom_sz`: a 32 B sector in a sector cache, else the
    /// line. What one MSHR entry covers and what one fetch brings.
    pub fn atom_bytes(&self) -> u32 {
        match self.kind {
            CacheKind::Sector => SECTOR_BYTES,
            CacheKind::Line => self.line_bytes,
        }
    }

    /// Capacity in bytes: sets x line x ways.
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.sets) * u64::from(self.line_bytes) * u64::from(self.ways)
    }

    /// Data moved per cycle through the data port (the line when the port is not given).
    pub fn port(&self) -> u32 {
        if self.port_bytes == 0 {
            self.line_bytes
        } else {
            self.port_bytes
        }
    }
}

/// IPOLY taps (Rau, ISCA 1991; the polynomials GPGPU-Sim uses, after Khairy et al., TPDS
/// 2017): for 16, 32 and 64 sets, per set-index bit, the bits of the address above the index
/// that are XORed into it.
const IPOLY_16: [&[u32]; 4] = [
    &[11, 10, 9, 8, 6, 4, 3, 0],
    &[12, 8, 7, 6, 5, 3, 1, 0],
    &[9, 8, 7, 6, 4, 2, 1],
    &[10, 9, 8, 7, 5, 3, 2],
];
const IPOLY_32: [&[u32]; 5] = [
    &[13, 12, 11, 10, 9, 6, 5, 3, 0],
    &[14, 13, 12, 11, 10, 7, 6, 4, 1],
    &[14, 10, 9, 8, 7, 6, 3, 2, 0],
    &[11, 10, 9, 8, 7, 4, 3, 1],
    &[12, 11, 10, 9, 8, 5, 4, 2],
];
const IPOLY_64: [&[u32]; 6] = [
    &[18, 17, 16, 15, 12, 10, 6, 5, 0],
    &[15, 13, 12, 11, 10, 7, 5, 1, 0],
    &[16, 14, 13, 12, 11, 8, 6, 2, 1],
    &[17, 15, 14, 13, 12, 9, 7, 3, 2],
    &[18, 16, 15, 14, 13, 10, 8, 4, 3],
    &[17, 16, 15, 14, 11, 9, 5, 4],
];

/// The taps of each index bit as one mask over the bits above the index, so that a bit's
/// parity is one population count (the set index is on every cache access's path).
const fn tap_masks<const N: usize>(taps: [&[u32]; N]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut b = 0;
    while b < N {
        let mut i = 0;
        while i < taps[b].len() {
            out[b] |= 1 << taps[b][i];
            i += 1;
        }
        b += 1;
    }
    out
}
/// The IPOLY term XORed into an index of `n` values (16, 32 or 64; else `None`) by the bits
/// `higher` above it: GPGPU-Sim's `ipoly_hash_function(higher, index, n)` is `index ^` this,
/// for cache sets and for memory sub-partitions alike. The term is linear in `higher`'s bits
/// (each index bit the parity of its taps), so it is the XOR of one table entry per byte of
/// the taps' 24 bits, instead of six parities per call (docs/performance.md).
#[inline]
pub fn ipoly_xor(higher: u64, n: u32) -> Option<u32> {
    let t = match n {
        16 => &IPOLY_16_BYTES,
        32 => &IPOLY_32_BYTES,
        64 => &IPOLY_64_BYTES,
        _ => return None,
    };
    let byte = |k: usize| (higher >> (8 * k)) as u8 as usize;
    Some(u32::from(t[0][byte(0)] ^ t[1][byte(1)] ^ t[2][byte(2)]))
}

/// The IPOLY term of `higher` as the parities of its taps (the definition; the tables are
/// built from it).
const fn ipoly_parities(higher: u64, masks: &[u64]) -> u8 {
    let mut out = 0u8;
    let mut b = 0;
    while b < masks.len() {
        out |= (((higher & masks[b]).count_ones() & 1) as u8) << b;
        b += 1;
    }
    out
}

/// Per byte of the taps' 24 bits, the term of each of its values.
const fn ipoly_bytes(masks: &[u64]) -> [[u8; 256]; 3] {
    let mut out = [[0u8; 256]; 3];
    let mut b = 0;
    while b < masks.len() {
        // Every tap lies in the three bytes.
        assert!(masks[b] >> 24 == 0);
        b += 1;
    }
    let mut k = 0;
    while k < 3 {
        let mut v = 0;
        while v < 256 {
            out[k][v] = ipoly_parities((v as u64) << (8 * k), masks);
            v += 1;
        }
        k += 1;
    }
    out
}

const IPOLY_16_MASKS: [u64; 4] = tap_masks(IPOLY_16);
const IPOLY_32_MASKS: [u64; 5] = tap_masks(IPOLY_32);
const IPOLY_64_MASKS: [u64; 6] = tap_masks(IPOLY_64);
static IPOLY_16_BYTES: [[u8; 256]; 3] = ipoly_bytes(&IPOLY_16_MASKS);
static IPOLY_32_BYTES: [[u8; 256]; 3] = ipoly_bytes(&IPOLY_32_MASKS);
static IPOLY_64_BYTES: [[u8; 256]; 3] = ipoly_bytes(&IPOLY_64_MASKS);

impl CacheString {
    /// The cache string of key `key`, which must name a cache: `none` is refused, saying that
    /// `needed` ("the SM model needs an L1").
    pub(crate) fn required(text: &str, key: &str, needed: &str) -> Result<CacheString, String> {
        match CacheString::parse(text) {
            Ok(Some(s)) => Ok(s),
            Ok(None) => Err(format!("`{key}` = `none`: {needed} (a cache string)")),
            Err(e) => Err(format!("`{key}`: {e}")),
        }
    }

    /// The set of byte address `addr` (for an L2 slice, the address within its partition),
    /// by the string's set-index function.
    pub fn set_of(&self, addr: u64) -> u32 {
        let line_bits = self.line_bytes.trailing_zeros();
        let set_bits = self.sets.trailing_zeros();
        let index = ((addr >> line_bits) & u64::from(self.sets - 1)) as u32;
        let higher = addr >> (line_bits + set_bits);
        match self.set_index {
            SetIndex::Linear => index,
            SetIndex::Custom => 0,
            SetIndex::Xor => index ^ (higher & u64::from(self.sets - 1)) as u32,
            SetIndex::FermiHash => {
                // Bits 7-11 (above a 128 B line) XOR bits 13, 14, 15, 17 and 19; with 64 sets
                // bit 12 is the index's top bit (Nugteren et al., HPCA 2014).
                let lower = ((addr >> line_bits) & 0x1F) as u32;
                let upper =
                    ((addr >> 13) & 0x7) | ((addr >> 17) & 1) << 3 | ((addr >> 19) & 1) << 4;
                let mut set = lower ^ upper as u32;
                if self.sets == 64 {
                    set |= ((addr >> 12) & 1) as u32 * 32;
                }
                set
            }
            SetIndex::Ipoly => index ^ ipoly_xor(higher, self.sets).unwrap_or(0),
        }
    }
}

/// The 4.x form (which every GPGPU-Sim 4.x reads back to the same fields).
impl fmt::Display for CacheString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (ct, rp, wp, ap) = (
            self.kind.letter(),
            self.replacement.letter(),
            self.write.letter(),
            self.allocation.letter(),
        );
        let (wap, sif, mshr) = (
            self.write_allocate.letter(),
            self.set_index.letter(),
            self.mshr.letter(),
        );
        write!(
            f,
            "{ct}:{}:{}:{},{rp}:{wp}:{ap}:{wap}:{sif},{mshr}:{}:{},{}:{}",
            self.sets,
            self.line_bytes,
            self.ways,
            self.mshr_entries,
            self.mshr_merge,
            self.miss_queue,
            self.result_fifo,
        )?;
        // A port of 0 (the line) is left out, as texture FIFO strings must.
        if self.port_bytes != 0 {
            write!(f, ",{}", self.port_bytes)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> CacheString {
        CacheString::parse(s).unwrap().unwrap()
    }

    #[test]
    fn the_reference_l2_strings_decode() {
        // RTX2060 and RTX3070: 128 KB per sub-partition, IPOLY.
        let c = parse("S:64:128:16,L:B:m:L:P,A:192:4,32:0,32");
        assert_eq!(
            c,
            CacheString {
                kind: CacheKind::Sector,
                sets: 64,
                line_bytes: 128,
                ways: 16,
                replacement: CacheReplacement::Lru,
                write: WritePolicy::WriteBack,
                allocation: Allocation::OnMiss,
                write_allocate: WriteAllocate::LazyFetchOnRead,
                set_index: SetIndex::Ipoly,
                mshr: MshrKind::Associative,
                mshr_entries: 192,
                mshr_merge: 4,
                miss_queue: 32,
                result_fifo: 0,
                port_bytes: 32,
            }
        );
        assert_eq!(c.size_bytes(), 128 << 10);
        // QV100: 96 KB; GTX480 4.x: 64 KB, linear.
        assert_eq!(
            parse("S:32:128:24,L:B:m:L:P,A:192:4,32:0,32").size_bytes(),
            96 << 10
        );
        let g = parse("S:64:128:8,L:B:m:L:L,A:256:4,4:0,32");
        assert_eq!(
            (g.size_bytes(), g.set_index, g.miss_queue),
            (64 << 10, SetIndex::Linear, 4)
        );
        // GTX480 v3.2.2: a line cache, naive write-allocate, linear.
        let o = parse("64:128:8,L:B:m:W,A:32:4,4:0,32");
        assert_eq!(
            (
                o.kind,
                o.write_allocate,
                o.set_index,
                o.mshr_entries,
                o.port()
            ),
            (
                CacheKind::Line,
                WriteAllocate::Naive,
                SetIndex::Linear,
                32,
                32
            )
        );
    }

    #[test]
    fn the_reference_l1_strings_decode() {
        let f = parse("N:32:128:4,L:L:m:N:H,S:64:8,8");
        assert_eq!(
            (
                f.write,
                f.set_index,
                f.mshr,
                f.miss_queue,
                f.port(),
                f.size_bytes()
            ),
            (
                WritePolicy::LocalWbGlobalWt,
                SetIndex::FermiHash,
                MshrKind::SectorAssociative,
                8,
                128,
                16 << 10
            )
        );
        let v = parse("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32");
        assert_eq!(
            (v.write, v.mshr_entries, v.mshr_merge),
            (WritePolicy::WriteThrough, 512, 8)
        );
        assert_eq!(parse("S:4:128:256,L:T:m:L:L,A:384:48,16:0,32").ways, 256);
        assert_eq!(parse("32:128:4,L:L:m:N,A:32:8,8").size_bytes(), 16 << 10);
        let i = parse("N:4:128:4,L:R:f:N:L,S:2:32,4");
        assert_eq!(
            (i.write, i.allocation),
            (WritePolicy::ReadOnly, Allocation::OnFill)
        );
        assert_eq!(
            parse("4:128:4,L:R:f:N,A:2:32,4").allocation,
            Allocation::OnFill
        );
    }

    #[test]
    fn every_cache_string_of_the_reference_configs_decodes() {
        let files = [
            include_str!("../tests-data/gpgpusim-configs/GTX480/gpgpusim-3.2.2/gpgpusim.config"),
            include_str!("../tests-data/gpgpusim-configs/GTX480/gpgpusim-4.x/gpgpusim.config"),
            include_str!("../tests-data/gpgpusim-configs/RTX2060/gpgpusim.config"),
            include_str!("../tests-data/gpgpusim-configs/RTX3070/gpgpusim.config"),
            include_str!("../tests-data/gpgpusim-configs/QV100/gpgpusim.config"),
        ];
        let mut seen = 0;
        for text in files {
            for line in text.lines() {
                let mut w = line.split_whitespace();
                if let (Some(k), Some(v)) = (w.next(), w.next()) {
                    if k.starts_with("-gpgpu_cache:") && !k.ends_with("texture_only") {
                        CacheString::parse(v).unwrap_or_else(|e| panic!("{k}: {e}"));
                        seen += 1;
                    }
                }
            }
        }
        assert!(seen >= 15, "{seen} cache strings");
    }

    #[test]
    fn set_index_functions() {
        let with = |sets: u32, sif: char| parse(&format!("N:{sets}:128:4,L:B:m:L:{sif},A:8:4,4"));
        // Linear: the bits above the line.
        let l = with(64, 'L');
        assert_eq!(l.set_of(0x1234_5680), (0x1234_5680 >> 7) & 63);
        // XOR: the index with the bits above it.
        let x = with(16, 'X');
        assert_eq!(x.set_of((5 << 11) | (3 << 7)), 3 ^ 5);
        // Fermi hash, 32 sets: bits 7-11 XOR (13, 14, 15, 17, 19); 64 sets add bit 12 on top.
        let f = with(32, 'H');
        assert_eq!(f.set_of(1 << 13), 1);
        assert_eq!(f.set_of(1 << 17), 8);
        assert_eq!(f.set_of((1 << 19) | (1 << 11)), 16 ^ 16);
        assert_eq!(with(64, 'H').set_of((1 << 12) | (1 << 7)), 33);
        // IPOLY, 64 sets: the lowest bit above the index feeds index bits 0 and 1.
        let p = with(64, 'P');
        assert_eq!(p.set_of(1 << 13), 0b11);
        assert_eq!(p.set_of(5 << 7), 5, "no higher bits: linear");
        // The masks are the tap lists: each index bit XORs the parity of its taps.
        for (sets, taps) in [
            (16u32, &IPOLY_16[..]),
            (32, &IPOLY_32[..]),
            (64, &IPOLY_64[..]),
        ] {
            let c = with(sets, 'P');
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for _ in 0..10_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let addr = x >> 24;
                let index = ((addr >> 7) & u64::from(sets - 1)) as u32;
                let higher = addr >> (7 + sets.trailing_zeros());
                let walked = taps.iter().enumerate().fold(index, |set, (b, bits)| {
                    set ^ (bits.iter().fold(0, |p, &t| p ^ (higher >> t) & 1) as u32) << b
                });
                assert_eq!(c.set_of(addr), walked, "{sets} sets, address {addr:#x}");
            }
        }
    }

    #[test]
    fn ipoly_tables_give_the_taps_parities() {
        // Every 24-bit value (the taps' span), and bits above it, which no tap reads.
        for (n, masks) in [
            (16, &IPOLY_16_MASKS[..]),
            (32, &IPOLY_32_MASKS[..]),
            (64, &IPOLY_64_MASKS[..]),
        ] {
            for v in (0u64..1 << 24).step_by(7).chain([0xff_ffff]) {
                let x = v | (v.wrapping_mul(0x9E37_79B9) << 24);
                assert_eq!(
                    ipoly_xor(x, n),
                    Some(u32::from(ipoly_parities(x, masks))),
                    "{n}: {x:#x}"
                );
            }
        }
        assert_eq!(ipoly_xor(1, 8), None);
    }

    #[test]
    fn ipoly_is_conflict_free_for_power_of_two_strides() {
        // The property IPOLY is chosen for: `sets` lines at any power-of-two stride (in
        // lines) fall in `sets` different sets, as long as the strided bits are among those
        // the polynomial taps (up to bit 12, 14, 18 above the index). A wrong tap breaks it
        // for some stride.
        for (sets, most) in [(16u32, 13), (32, 15), (64, 19)] {
            let c = parse(&format!("N:{sets}:128:4,L:B:m:L:P,A:8:4,4"));
            for k in 0..=most {
                let mut seen = std::collections::HashSet::new();
                for i in 0..u64::from(sets) {
                    seen.insert(c.set_of((i << k) * 128));
                }
                assert_eq!(seen.len(), sets as usize, "{sets} sets, stride 2^{k} lines");
            }
        }
    }

    #[test]
    fn none_is_no_cache_and_the_4x_form_reads_back() {
        assert_eq!(CacheString::parse(" none ").unwrap(), None);
        for s in [
            "S:64:128:16,L:B:m:L:P,A:192:4,32:0,32",
            "N:32:128:4,L:L:m:N:H,S:64:8,8",
            "64:128:8,L:B:m:W,A:32:4,4:0,32",
            "N:16:64:2,F:E:s:F:X,T:4:4,2:3",
        ] {
            let c = parse(s);
            assert_eq!(parse(&c.to_string()), c, "{s} -> {c}");
        }
    }

    #[test]
    fn strings_gpgpusim_refuses_are_errors_naming_the_field() {
        for (s, key) in [
            ("S:64:128", "groups"),
            ("Q:64:128:16,L:B:m:L:P,A:192:4", "cache type"),
            ("S:64:128:16,L:B:m:L,A:192:4", "group 2"),
            ("S:64:128:16,L:Z:m:L:P,A:192:4", "write policy"),
            ("64:128:8,L:B:s:W,A:32:4", "allocation"),
            ("64:128:8,L:B:m:L,A:32:4", "write-allocate"),
            ("S:64:128:16,L:B:m:L:Q,A:192:4", "set-index"),
            ("S:64:64:16,L:B:m:L:L,A:192:4", "sector cache"),
            ("S:48:128:16,L:B:m:L:L,A:192:4", "power of two"),
            ("N:16:128:16,L:B:m:L:H,A:192:4", "Fermi hash"),
            ("N:128:128:16,L:B:m:L:P,A:192:4", "IPOLY"),
            ("N:16:128:x,L:B:m:L:L,A:192:4", "ways"),
            ("N:16:128:4,L:B:m:L:L,F:8:8,4", "texture FIFO"),
            ("N:16:128:4,L:B:m:L:L,A:0:8,4", "MSHR entries"),
            ("N:1:128:65537,L:B:m:L:L,A:8:8,4", "at most 65536 ways"),
            ("N:16:128:4,L:B:m:L:L,A:65537:8,4", "65536 MSHR entries"),
            ("N:16:128:4,L:B:m:L:L,A:8:8,4:0:1", "group 4"),
        ] {
            let e = CacheString::parse(s).unwrap_err().to_string();
            assert!(e.contains(key), "{s}: {e}");
        }
    }
}
