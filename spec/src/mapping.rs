//! Physical address → DRAM coordinates (channel, bank, row, column, burst, L2 sub-partition),
//! exactly as GPGPU-Sim's `addrdec_tlx` decodes them (`src/gpgpu-sim/addrdec.cc`, notes §1.6).
//!
//! The map is built from GPGPU-Sim's `-gpgpu_mem_addr_mapping` string
//! ([`AddressMap::parse_gpgpusim`]):
//!
//! ```text
//! [dramid@S;]<64 symbols, bit 63 first>      symbols: R row, B bank, C column,
//!                                              S burst offset (also a column bit),
//!                                              D channel (only without dramid@), 0 unused;
//!                                              `.`, `|` and space are ignored; any case
//! ```
//!
//! * **Power-of-two channel count C with `dramid@S`:** log2(C) channel bits are inserted at bit S;
//!   every row/bank/column/burst bit at or above S moves up by log2(C).
//! * **Other channel counts (the modulo path):** `chip = (addr >> S) % C` and the remaining fields
//!   are read from `rest = ((addr >> S) / C) << S | (addr & (2^S - 1))` with the unshifted masks,
//!   so consecutive 2^S-byte chunks rotate through the channels.
//! * **`D` symbols (no `dramid@`):** the channel bits are given explicitly; C must be a power
//!   of two and there must be exactly log2(C) of them.
//! * `sub_partition = channel * subs + (bank & (subs - 1))`, from the bank *before* the optional
//!   XOR bank hashing ([`AddressMap::with_bank_xor`]), as in GPGPU-Sim where the hashing happens
//!   later, when the DRAM request is built.
//!
//! **Address bits that no symbol covers are dropped**, as GPGPU-Sim drops them: two addresses that
//! differ only there decode to the same coordinates (on the modulo path the bits above the channel
//! field still take part in the `% C`, as in GPGPU-Sim). [`AddressMap::covered_mask`] tells which
//! bits count, and [`AddressMap::encode`] is the exact inverse on them.
//!
//! Decoding is a few shift-and-mask steps per field: every mask is precomputed as a list of
//! contiguous bit runs (a software `pext`).

use thiserror::Error;

pub use crate::dram::PartitionHash;

/// Number of symbols a mapping string must have (one per address bit, bit 63 first).
pub const MAPPING_SYMBOLS: usize = 64;

/// Most bank bits a map may have (so that [`Decoded::bank`] and [`AddressMap::banks`] fit a `u32`).
pub const MAX_BANK_BITS: u32 = 31;

/// One decoded address.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Decoded {
    /// Memory channel (GPGPU-Sim "chip"), `< channels()`.
    pub channel: u32,
    /// Bank within the channel, `< banks()`; XOR-hashed with the row when
    /// [`AddressMap::with_bank_xor`] is on.
    pub bank: u32,
    /// Row within the bank, `< rows()`.
    pub row: u64,
    /// Column, `< columns()`. It includes the burst-offset bits (`S` symbols are column bits too).
    pub col: u64,
    /// Byte offset within the DRAM burst (the `S` bits alone), `< burst_bytes()`.
    pub burst: u64,
    /// L2 sub-partition (slice): `channel * subs + (unhashed bank & (subs - 1))`.
    pub sub_partition: u32,
}

/// The bit masks of a map, in address-bit positions (after channel-bit insertion).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Masks {
    /// Channel bits (zero on the modulo path, where the channel is `(addr >> S) % C`).
    pub chip: u64,
    pub bank: u64,
    pub row: u64,
    /// Column bits, including the burst bits.
    pub col: u64,
    pub burst: u64,
}

/// How the channel is taken from the address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelSelect {
    /// Power-of-two channel count with `dramid@start`: `bits` = log2(C) channel bits at
    /// `start..start + bits` (0 bits for a single channel).
    Inserted { start: u32, bits: u32 },
    /// Power-of-two channel count with explicit `D` symbols (the chip mask), or a single channel
    /// with neither `D` nor `dramid@`.
    Explicit,
    /// Non-power-of-two channel count: `chip = (addr >> start) % C`.
    Modulo { start: u32 },
}

/// A malformed mapping string or an inconsistent channel / sub-partition count.
///
/// Positions are 1-based character positions in the whole mapping text as given.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MappingError {
    #[error("the channel count must be at least 1, got 0")]
    ZeroChannels,
    #[error("the number of sub-partitions per channel must be a power of two >= 1, got {subs}")]
    BadSubPartitions { subs: u32 },
    #[error(
        "{channels} channels x {subs} sub-partitions = more than 2^32 L2 sub-partitions in total"
    )]
    TooManySubPartitions { channels: u32, subs: u32 },
    #[error("text before `;` must be `dramid@<bit>`, found `{prefix}`")]
    BadPrefix { prefix: String },
    #[error("`dramid@` must be followed by `<bit>;` and the 64 symbols, but there is no `;`")]
    MissingSemicolon,
    #[error("`dramid@` is given twice (second one at position {position}); give it once")]
    DuplicateDramid { position: usize },
    #[error("`dramid@{text}`: the channel bit position must be a decimal number")]
    BadDramidPosition { text: String },
    #[error(
        "`dramid@{position}` is out of range: with {channel_bits} channel bit(s) the position \
            must be 0..={max}"
    )]
    DramidOutOfRange {
        position: u64,
        channel_bits: u32,
        max: u32,
    },
    #[error(
        "unknown symbol `{symbol}` at position {position}; legal symbols are R (row), B (bank), C \
            (column), S (burst), D (channel), 0 (unused) and the separators `.`, `|`, space"
    )]
    UnknownSymbol { symbol: char, position: usize },
    #[error("mapping string has {count} symbols, expected 64 (after removing separators)")]
    SymbolCount { count: usize },
    #[error(
        "`D` symbols cannot be combined with dramid@ (the first `D` is at position {position}); \
            use one or the other"
    )]
    DWithDramid { position: usize },
    #[error(
        "`D` needs a power-of-two channel count, got {channels}; use `dramid@<bit>;` for other \
            counts"
    )]
    DNeedsPowerOfTwo { channels: u32 },
    #[error(
        "{channels} channel(s) need exactly {needed} `D` symbol(s) (or a `dramid@<bit>;` prefix), \
            the string has {given}"
    )]
    DCount {
        channels: u32,
        needed: u32,
        given: u32,
    },
    #[error("no bank bits: the mapping string needs at least one `B` symbol")]
    NoBankBits,
    #[error("{bits} bank bits: at most {max} are supported", max = MAX_BANK_BITS)]
    TooManyBankBits { bits: u32 },
    #[error(
        "{subs} sub-partitions per channel need at least {needed} bank bit(s) (the lowest bank \
            bits pick the sub-partition), the map has {bits}"
    )]
    SubPartitionsExceedBanks { subs: u32, needed: u32, bits: u32 },
    #[error(
        "{kind} bit at address bit {bit} (symbol position {position}) would move past bit 63 when \
            {channel_bits} channel bit(s) are inserted at bit {start}; make the top \
            {channel_bits} symbol(s) `0`"
    )]
    ShiftedOut {
        kind: &'static str,
        bit: u32,
        position: usize,
        channel_bits: u32,
        start: u32,
    },
}

/// One contiguous run of mask bits: source bits `mask` move down by `shift`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Run {
    mask: u64,
    shift: u32,
}

/// A precomputed software `pext`/`pdep` for one mask. The first run is kept inline: fields
/// are usually one contiguous run, and every request decodes five of them, so the common case
/// takes no loop (docs/performance.md).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct BitField {
    mask: u64,
    /// The lowest run (`mask` 0: an empty field).
    first: Run,
    /// The runs above it.
    more: Vec<Run>,
}

impl BitField {
    fn new(mask: u64) -> BitField {
        let mut runs = Vec::new();
        let mut rest = mask;
        let mut dst = 0u32;
        while rest != 0 {
            let lo = rest.trailing_zeros();
            let len = (rest >> lo).trailing_ones();
            let run_mask = if len == 64 {
                u64::MAX
            } else {
                ((1u64 << len) - 1) << lo
            };
            runs.push(Run {
                mask: run_mask,
                shift: lo - dst,
            });
            dst += len;
            rest &= !run_mask;
        }
        let first = if runs.is_empty() {
            Run { mask: 0, shift: 0 }
        } else {
            runs.remove(0)
        };
        BitField {
            mask,
            first,
            more: runs,
        }
    }

    fn bits(&self) -> u32 {
        self.mask.count_ones()
    }

    /// `pext(x, mask)`: the selected bits packed toward bit 0, lowest first.
    #[inline]
    fn extract(&self, x: u64) -> u64 {
        let mut out = (x & self.first.mask) >> self.first.shift;
        for r in &self.more {
            out |= (x & r.mask) >> r.shift;
        }
        out
    }

    /// `pdep(v, mask)`: the inverse of [`BitField::extract`] (bits of `v` beyond the mask's
    /// population are dropped).
    #[inline]
    fn deposit(&self, v: u64) -> u64 {
        let mut out = (v << self.first.shift) & self.first.mask;
        for r in &self.more {
            out |= (v << r.shift) & r.mask;
        }
        out
    }
}

/// Symbol kinds of a mapping string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    Row,
    Bank,
    Col,
    Burst,
    Chip,
    Unused,
}

impl Sym {
    fn from_char(c: char) -> Option<Sym> {
        Some(match c.to_ascii_uppercase() {
            'R' => Sym::Row,
            'B' => Sym::Bank,
            'C' => Sym::Col,
            'S' => Sym::Burst,
            'D' => Sym::Chip,
            '0' => Sym::Unused,
            _ => return None,
        })
    }
}

/// Address decoder: GPGPU-Sim's `linear_to_raw_address_translation` for linear partition
/// indexing (`-gpgpu_memory_partition_indexing 0`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AddressMap {
    channels: u32,
    subs: u32,
    select: ChannelSelect,
    chip: BitField,
    bank: BitField,
    row: BitField,
    col: BitField,
    burst: BitField,
    bank_xor: bool,
    /// Channel / sub-partition hashing (`-gpgpu_memory_partition_indexing`), and the shift that
    /// gives the address bits above the channel and sub-partition fields it hashes with.
    hash: PartitionHash,
    hash_shift: u32,
}

/// Case-insensitive `strip_prefix` for an ASCII prefix.
fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    if head.eq_ignore_ascii_case(prefix) {
        text.get(prefix.len()..)
    } else {
        None
    }
}

/// 1-based character position of byte offset `byte` in `text`.
fn char_position(text: &str, byte: usize) -> usize {
    text.get(..byte).map_or(0, |s| s.chars().count()) + 1
}

/// Case-insensitive search for an ASCII needle; returns the byte offset.
fn find_ci(haystack: &str, needle: &str) -> Option<usize> {
    let h = haystack.as_bytes();
    let n = needle.as_bytes();
    if n.is_empty() || h.len() < n.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

impl AddressMap {
    /// Parses GPGPU-Sim's `-gpgpu_mem_addr_mapping` string for `channels` memory channels
    /// (`-gpgpu_n_mem`) with `sub_partitions_per_channel` L2 slices each
    /// (`-gpgpu_n_sub_partition_per_mchannel`). See the module documentation for the grammar and
    /// the decoding rules. Never panics; every malformed input is a [`MappingError`].
    ///
    /// Stricter than GPGPU-Sim (which would silently misbehave): without `dramid@` the number of
    /// `D` symbols must be exactly log2(channels); a row/bank/column bit that the channel-bit
    /// insertion would push past bit 63 is an error rather than lost; at least one bank bit and
    /// at least log2(sub-partitions) bank bits are required.
    pub fn parse_gpgpusim(
        text: &str,
        channels: u32,
        sub_partitions_per_channel: u32,
    ) -> Result<AddressMap, MappingError> {
        let subs = sub_partitions_per_channel;
        if channels == 0 {
            return Err(MappingError::ZeroChannels);
        }
        if subs == 0 || !subs.is_power_of_two() {
            return Err(MappingError::BadSubPartitions { subs });
        }
        if channels.checked_mul(subs).is_none() {
            return Err(MappingError::TooManySubPartitions { channels, subs });
        }

        // Split off `dramid@S;`.
        let (dramid, body, body_offset) = match text.find(';') {
            Some(semi) => {
                let prefix = &text[..semi];
                let trimmed = prefix.trim();
                let Some(number) = strip_prefix_ci(trimmed, "dramid@") else {
                    return Err(MappingError::BadPrefix {
                        prefix: trimmed.to_string(),
                    });
                };
                if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(MappingError::BadDramidPosition {
                        text: number.to_string(),
                    });
                }
                // Too many digits for a u64 is simply out of range.
                let position = number.parse::<u64>().unwrap_or(u64::MAX);
                (Some(position), &text[semi + 1..], semi + 1)
            }
            None => {
                if strip_prefix_ci(text.trim_start(), "dramid@").is_some() {
                    return Err(MappingError::MissingSemicolon);
                }
                (None, text, 0)
            }
        };
        if dramid.is_some() {
            if let Some(at) = find_ci(body, "dramid@") {
                return Err(MappingError::DuplicateDramid {
                    position: char_position(text, body_offset + at),
                });
            }
        }

        // Symbols, bit 63 first.
        let mut symbols: Vec<(Sym, usize)> = Vec::with_capacity(MAPPING_SYMBOLS);
        for (byte, c) in body.char_indices() {
            if matches!(c, '.' | '|' | ' ') {
                continue;
            }
            let position = char_position(text, body_offset + byte);
            match Sym::from_char(c) {
                Some(sym) => symbols.push((sym, position)),
                None => {
                    return Err(MappingError::UnknownSymbol {
                        symbol: c,
                        position,
                    })
                }
            }
        }
        if dramid.is_some() {
            if let Some(&(_, position)) = symbols.iter().find(|(s, _)| *s == Sym::Chip) {
                return Err(MappingError::DWithDramid { position });
            }
        }
        if symbols.len() != MAPPING_SYMBOLS {
            return Err(MappingError::SymbolCount {
                count: symbols.len(),
            });
        }

        let mut chip = 0u64;
        let mut bank = 0u64;
        let mut row = 0u64;
        let mut col = 0u64;
        let mut burst = 0u64;
        // Symbol position of each address bit (for error messages).
        let mut position_of_bit = [0usize; MAPPING_SYMBOLS];
        for (i, &(sym, position)) in symbols.iter().enumerate() {
            let bit = (MAPPING_SYMBOLS - 1 - i) as u32;
            position_of_bit[bit as usize] = position;
            let m = 1u64 << bit;
            match sym {
                Sym::Row => row |= m,
                Sym::Bank => bank |= m,
                Sym::Col => col |= m,
                Sym::Burst => {
                    burst |= m;
                    col |= m;
                }
                Sym::Chip => chip |= m,
                Sym::Unused => {}
            }
        }

        let select = match dramid {
            Some(start) if channels.is_power_of_two() => {
                let bits = channels.trailing_zeros();
                let max = 64 - bits - u32::from(bits == 0);
                if start > u64::from(max) {
                    return Err(MappingError::DramidOutOfRange {
                        position: start,
                        channel_bits: bits,
                        max,
                    });
                }
                let start = start as u32;
                if bits > 0 {
                    let low = (1u64 << start) - 1;
                    let lost = !(u64::MAX >> bits); // the top `bits` address bits
                    for (kind, m) in [
                        ("row", &mut row),
                        ("bank", &mut bank),
                        ("column", &mut col),
                        ("burst", &mut burst),
                    ] {
                        let upper = *m & !low;
                        if upper & lost != 0 {
                            let bit = 63 - (upper & lost).leading_zeros();
                            return Err(MappingError::ShiftedOut {
                                kind,
                                bit,
                                position: position_of_bit[bit as usize],
                                channel_bits: bits,
                                start,
                            });
                        }
                        *m = (upper << bits) | (*m & low);
                    }
                    chip = ((1u64 << bits) - 1) << start;
                }
                ChannelSelect::Inserted { start, bits }
            }
            Some(start) => {
                if start > 63 {
                    return Err(MappingError::DramidOutOfRange {
                        position: start,
                        channel_bits: 0,
                        max: 63,
                    });
                }
                ChannelSelect::Modulo {
                    start: start as u32,
                }
            }
            None => {
                let given = chip.count_ones();
                if !channels.is_power_of_two() {
                    return Err(MappingError::DNeedsPowerOfTwo { channels });
                }
                let needed = channels.trailing_zeros();
                if given != needed {
                    return Err(MappingError::DCount {
                        channels,
                        needed,
                        given,
                    });
                }
                ChannelSelect::Explicit
            }
        };

        let bank_bits = bank.count_ones();
        if bank_bits == 0 {
            return Err(MappingError::NoBankBits);
        }
        if bank_bits > MAX_BANK_BITS {
            return Err(MappingError::TooManyBankBits { bits: bank_bits });
        }
        let needed = subs.trailing_zeros();
        if needed > bank_bits {
            return Err(MappingError::SubPartitionsExceedBanks {
                subs,
                needed,
                bits: bank_bits,
            });
        }

        Ok(AddressMap {
            channels,
            subs,
            select,
            chip: BitField::new(chip),
            bank: BitField::new(bank),
            row: BitField::new(row),
            col: BitField::new(col),
            burst: BitField::new(burst),
            bank_xor: false,
            hash: PartitionHash::Linear,
            hash_shift: 0,
        })
    }

    /// Turns XOR bank hashing on or off (GPGPU-Sim `-dram_bnk_indexing_policy 1`):
    /// `bank ^= row & (banks - 1)`, applied after decoding. The sub-partition still comes from the
    /// unhashed bank, as in GPGPU-Sim (where the hashing happens when the DRAM request is built).
    pub fn with_bank_xor(mut self, on: bool) -> AddressMap {
        self.bank_xor = on;
        self
    }

    /// Whether XOR bank hashing is on.
    pub fn bank_xor(&self) -> bool {
        self.bank_xor
    }

    /// Hash the channel and sub-partition as GPGPU-Sim's `-gpgpu_memory_partition_indexing`
    /// does (`addrdec_tlx`), with `high` = the address bits above the channel field and the
    /// sub-partition's bank bits (`addr >> (S + log2 channels + log2 subs)` for `dramid@S`):
    /// * `xor` (1): `channel ^= high & (channels - 1)`, the sub-partition from that channel;
    /// * `ipoly` (2): the sub-partition `channel * subs + (bank & (subs - 1))` is IPOLY-hashed
    ///   with `high` over `channels x subs` (16, 32 or 64) values, and the channel is its
    ///   quotient by `subs` (the bank keeps its bits).
    ///
    /// Both need a `dramid@S` map with a power-of-two channel count (GPGPU-Sim asserts the
    /// first; the second keeps [`AddressMap::encode`] exact), and `ipoly` 16, 32 or 64
    /// sub-partitions in all. The hashed fields depend on every address bit above the channel
    /// field, covered or not.
    pub fn with_partition_hash(mut self, hash: PartitionHash) -> Result<AddressMap, String> {
        if hash == PartitionHash::Linear {
            self.hash = hash;
            return Ok(self);
        }
        let ChannelSelect::Inserted { start, bits } = self.select else {
            return Err(format!(
                "partition indexing `{}` needs a `dramid@S;` address map and a power-of-two \
                    channel count ({} channels{})",
                hash.name(),
                self.channels,
                if self.channels.is_power_of_two() {
                    ", explicit D bits"
                } else {
                    ""
                }
            ));
        };
        let n = self.channels * self.subs;
        if hash == PartitionHash::Ipoly && crate::cache::ipoly_xor(0, n).is_none() {
            return Err(format!(
                "partition indexing `ipoly` hashes 16, 32 or 64 sub-partitions, not {} ({} \
                    channels x {})",
                n, self.channels, self.subs
            ));
        }
        self.hash = hash;
        self.hash_shift = start + bits + self.subs.trailing_zeros();
        Ok(self)
    }

    /// The channel / sub-partition hashing.
    pub fn partition_hash(&self) -> PartitionHash {
        self.hash
    }

    /// The (channel, sub-partition) of an address whose unhashed channel is `channel` and
    /// unhashed bank `raw_bank`.
    #[inline]
    fn hashed(&self, addr: u64, channel: u32, raw_bank: u32) -> (u32, u32) {
        let low = raw_bank & (self.subs - 1);
        match self.hash {
            PartitionHash::Linear => (channel, channel * self.subs + low),
            PartitionHash::Xor => {
                let c = channel ^ ((addr >> self.hash_shift) as u32 & (self.channels - 1));
                (c, c * self.subs + low)
            }
            PartitionHash::Ipoly => {
                let n = self.channels * self.subs;
                let s = (channel * self.subs + low)
                    ^ crate::cache::ipoly_xor(addr >> self.hash_shift, n).unwrap_or(0);
                (s / self.subs, s)
            }
        }
    }

    /// The chip (before hashing) of `addr`, and the address the other fields are read from.
    #[inline]
    fn split(&self, addr: u64) -> (u32, u64) {
        match self.select {
            ChannelSelect::Modulo { start } => {
                let c = u64::from(self.channels);
                let hi = addr >> start;
                let low = addr & ((1u64 << start) - 1);
                ((hi % c) as u32, ((hi / c) << start) | low)
            }
            ChannelSelect::Inserted { .. } | ChannelSelect::Explicit => {
                (self.chip.extract(addr) as u32, addr)
            }
        }
    }

    /// The channel and global sub-partition of `addr`: [`AddressMap::decode`]'s, without the
    /// bank, row and column (a memory side routes every request by them).
    #[inline]
    pub fn route(&self, addr: u64) -> (u32, u32) {
        let (channel, rest) = self.split(addr);
        self.hashed(addr, channel, self.bank.extract(rest) as u32)
    }

    /// Decodes one physical address. Bits not covered by any symbol are ignored.
    #[inline]
    pub fn decode(&self, addr: u64) -> Decoded {
        let (channel, rest) = self.split(addr);
        let raw_bank = self.bank.extract(rest) as u32;
        let row = self.row.extract(rest);
        let (channel, sub_partition) = self.hashed(addr, channel, raw_bank);
        let bank = if self.bank_xor {
            raw_bank ^ (row as u32 & (self.banks() - 1))
        } else {
            raw_bank
        };
        Decoded {
            channel,
            bank,
            row,
            col: self.col.extract(rest),
            burst: self.burst.extract(rest),
            sub_partition,
        }
    }

    /// The address (with every uncovered bit 0) that decodes to `d`'s channel, bank, row and
    /// column; `d.burst` and `d.sub_partition` are derived from those and ignored. `None` when a
    /// field is out of range or (modulo path) the address would not fit 64 bits.
    /// `decode(encode(d)) == d` for every in-range `d`, and `encode(decode(a))` is `a` restricted
    /// to [`AddressMap::covered_mask`] (power-of-two channel counts).
    pub fn encode(&self, d: &Decoded) -> Option<u64> {
        if d.channel >= self.channels
            || d.bank >= self.banks()
            || d.row >= self.rows()
            || d.col >= self.columns()
        {
            return None;
        }
        let raw_bank = if self.bank_xor {
            d.bank ^ (d.row as u32 & (self.banks() - 1))
        } else {
            d.bank
        };
        let rest = self.bank.deposit(u64::from(raw_bank))
            | self.row.deposit(d.row)
            | self.col.deposit(d.col);
        match self.select {
            ChannelSelect::Modulo { start } => {
                let hi = (rest >> start)
                    .checked_mul(u64::from(self.channels))?
                    .checked_add(u64::from(d.channel))?;
                if hi > u64::MAX >> start {
                    return None;
                }
                Some((hi << start) | (rest & ((1u64 << start) - 1)))
            }
            ChannelSelect::Inserted { .. } | ChannelSelect::Explicit => {
                // The channel field that hashes to `d.channel` with the bits above it (which
                // hold no channel bits).
                let high = rest >> self.hash_shift;
                let raw = match self.hash {
                    PartitionHash::Linear => d.channel,
                    PartitionHash::Xor => d.channel ^ (high as u32 & (self.channels - 1)),
                    PartitionHash::Ipoly => {
                        let n = self.channels * self.subs;
                        let f = crate::cache::ipoly_xor(high, n).unwrap_or(0);
                        d.channel ^ (f >> self.subs.trailing_zeros())
                    }
                };
                Some(rest | self.chip.deposit(u64::from(raw)))
            }
        }
    }

    /// Number of memory channels.
    pub fn channels(&self) -> u32 {
        self.channels
    }

    /// L2 sub-partitions per channel.
    pub fn sub_partitions_per_channel(&self) -> u32 {
        self.subs
    }

    /// L2 sub-partitions in total (`channels * sub_partitions_per_channel`).
    pub fn sub_partitions(&self) -> u32 {
        self.channels * self.subs
    }

    /// Banks per channel implied by the bank mask (2^bank bits).
    pub fn banks(&self) -> u32 {
        1u32 << self.bank.bits()
    }

    /// Rows per bank implied by the row mask (2^row bits).
    pub fn rows(&self) -> u64 {
        1u64 << self.row.bits()
    }

    /// Columns per row implied by the column mask, burst bits included (2^column bits).
    pub fn columns(&self) -> u64 {
        1u64 << self.col.bits()
    }

    /// Bytes addressed by the burst-offset bits (2^burst bits): the DRAM atom of the mapping.
    pub fn burst_bytes(&self) -> u64 {
        1u64 << self.burst.bits()
    }

    /// How the channel is chosen.
    pub fn channel_select(&self) -> ChannelSelect {
        self.select
    }

    /// The masks in address-bit positions (after the channel bits are inserted).
    pub fn masks(&self) -> Masks {
        Masks {
            chip: self.chip.mask,
            bank: self.bank.mask,
            row: self.row.mask,
            col: self.col.mask,
            burst: self.burst.mask,
        }
    }

    /// Address bits that influence the decode on the power-of-two paths (chip, bank, row and
    /// column bits); every other bit is dropped. On the modulo path the masks refer to the
    /// channel-stripped `rest`, and every bit at or above the `dramid@` position feeds the `% C`.
    pub fn covered_mask(&self) -> u64 {
        self.chip.mask | self.bank.mask | self.row.mask | self.col.mask
    }
}

#[cfg(test)]
#[path = "mapping_tests.rs"]
pub(crate) mod tests;
