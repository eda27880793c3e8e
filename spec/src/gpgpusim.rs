//! Reading GPGPU-Sim / Accel-Sim configuration files (`gpgpusim.config`, `trace.config`) and
//! importing the DRAM side of the memory system from them (notes §1.0, §1.2, §1.4-§1.6).
//!
//! * [`GpgpusimOptions`] is the option file: `#` comments, `-option value` pairs, quoted values
//!   spanning tokens, last one wins; files are layered with [`GpgpusimOptions::layer`] (Accel-Sim
//!   loads `trace.config` after `gpgpusim.config`).
//! * [`GpgpusimDramTiming`] is `-gpgpu_dram_timing_opt` in both forms, with the derived values
//!   ([`DerivedTiming`]).
//! * [`import`] gathers what warpsmith takes from a configuration ([`DramImport`]), with
//!   GPGPU-Sim's defaults for options a file does not set.
//!
//! Unknown options are kept, not rejected: GPGPU-Sim knows hundreds of options and only the
//! memory-system ones matter here (GPGPU-Sim itself treats an unknown option as fatal).

use std::collections::BTreeMap;

use thiserror::Error;

use crate::dram::DramStandard;
use crate::mapping::{AddressMap, MappingError};

/// A malformed option file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum OptionsError {
    #[error(
        "{source_name} line {line}: expected an option name starting with `-`, found \
         `{token}`{}",
        after_value(previous)
    )]
    ExpectedOption {
        source_name: String,
        line: usize,
        token: String,
        /// The option before the token and its line: the token may be the rest of its value.
        previous: Option<(String, usize)>,
    },
    #[error("{source_name} line {line}: option `{option}` has no value")]
    MissingValue {
        source_name: String,
        line: usize,
        option: String,
    },
    #[error(
        "{source_name} line {line}: the value of `{option}` opens a `\"` that is never closed"
    )]
    UnterminatedQuote {
        source_name: String,
        line: usize,
        option: String,
    },
    #[error(
        "{source_name} line {line}: the value of `{option}` opens a `\"` that is not closed \
            before the option `{next}` at line {next_line}; close the quote"
    )]
    QuoteRunsIntoOption {
        source_name: String,
        line: usize,
        option: String,
        next: String,
        next_line: usize,
    },
}

/// The hint of [`OptionsError::ExpectedOption`]: a stray token after an option's value is most
/// often the rest of a value spread over tokens without its quotes.
fn after_value(previous: &Option<(String, usize)>) -> String {
    match previous {
        Some((option, line)) => format!(
            " after the value of `{option}` (line {line}); a value of several words is \
             quoted, `\"...\"`"
        ),
        None => String::new(),
    }
}

/// One option's value and where it was set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionValue {
    /// The value, quotes removed (a quoted value's tokens joined with one space).
    pub value: String,
    /// The `source_name` given to [`GpgpusimOptions::parse`].
    pub source: String,
    /// 1-based line of the option name.
    pub line: usize,
}

/// The options of one or more layered GPGPU-Sim option files.
///
/// Syntax (GPGPU-Sim `OptionParser::ParseFile`): everything from the first `#` of a line is a
/// comment (even inside quotes), lines are joined, the text is split on whitespace and read as
/// `-option value` pairs. A value starting with `"` runs until a token ending with `"`; its parts
/// are joined with one space and the quotes removed. An option given twice keeps the last value.
/// A quoted value may go on over lines, but a line that starts with an option name (`-` and a
/// letter) inside it is an error: the quote was left open, and GPGPU-Sim would take the options
/// that follow as part of the value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpgpusimOptions {
    /// Keyed by the name without its leading `-`.
    options: BTreeMap<String, OptionValue>,
}

impl GpgpusimOptions {
    /// Parses one option file; `source_name` (e.g. the file name) appears in errors and in
    /// [`OptionValue::source`].
    pub fn parse(text: &str, source_name: &str) -> Result<GpgpusimOptions, OptionsError> {
        let mut tokens: Vec<(&str, usize)> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let code = line.find('#').map_or(line, |hash| &line[..hash]);
            tokens.extend(code.split_whitespace().map(|t| (t, index + 1)));
        }

        let mut options = BTreeMap::new();
        let mut previous = None;
        let mut i = 0;
        while i < tokens.len() {
            let (name_token, line) = tokens[i];
            let name = match name_token.strip_prefix('-') {
                Some(name) if !name.is_empty() => name,
                _ => {
                    return Err(OptionsError::ExpectedOption {
                        source_name: source_name.to_string(),
                        line,
                        token: name_token.to_string(),
                        // A lone `-` is a broken name, not the rest of a value.
                        previous: previous.filter(|_| !name_token.starts_with('-')),
                    });
                }
            };
            let Some(&(first, _)) = tokens.get(i + 1) else {
                return Err(OptionsError::MissingValue {
                    source_name: source_name.to_string(),
                    line,
                    option: name_token.to_string(),
                });
            };
            i += 2;
            let value = match first.strip_prefix('"') {
                None => first.to_string(),
                Some(rest) => {
                    if let Some(whole) = rest.strip_suffix('"') {
                        whole.to_string()
                    } else {
                        let mut parts = vec![rest];
                        let mut last_line = line;
                        loop {
                            let Some(&(token, token_line)) = tokens.get(i) else {
                                return Err(OptionsError::UnterminatedQuote {
                                    source_name: source_name.to_string(),
                                    line,
                                    option: name_token.to_string(),
                                });
                            };
                            let starts_option = token
                                .strip_prefix('-')
                                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_alphabetic()));
                            if token_line > last_line && starts_option {
                                return Err(OptionsError::QuoteRunsIntoOption {
                                    source_name: source_name.to_string(),
                                    line,
                                    option: name_token.to_string(),
                                    next: token.to_string(),
                                    next_line: token_line,
                                });
                            }
                            last_line = token_line;
                            i += 1;
                            if let Some(last) = token.strip_suffix('"') {
                                parts.push(last);
                                break;
                            }
                            parts.push(token);
                        }
                        parts.join(" ")
                    }
                }
            };
            previous = Some((name_token.to_string(), line));
            options.insert(
                name.to_string(),
                OptionValue {
                    value,
                    source: source_name.to_string(),
                    line,
                },
            );
        }
        Ok(GpgpusimOptions { options })
    }

    /// Layers `other` on top: its options override these (as `-config A -config B` does).
    pub fn layer(&mut self, other: GpgpusimOptions) {
        self.options.extend(other.options);
    }

    /// The value of an option, named with or without its leading `-`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entry(name).map(|v| v.value.as_str())
    }

    /// The value of an option and where it was set.
    pub fn entry(&self, name: &str) -> Option<&OptionValue> {
        self.options.get(name.strip_prefix('-').unwrap_or(name))
    }

    /// Every option, by name (without the leading `-`).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &OptionValue)> {
        self.options.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Number of distinct options.
    pub fn len(&self) -> usize {
        self.options.len()
    }

    /// Whether no option is set.
    pub fn is_empty(&self) -> bool {
        self.options.is_empty()
    }
}

/// A malformed `-gpgpu_dram_timing_opt` string, or a zero data/command ratio.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TimingError {
    #[error(
        "positional DRAM timing `{text}` has {count} fields; expected 11 to 14 \
            (nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR[:nbkgrp:tCCDL:tRTPL])"
    )]
    FieldCount { text: String, count: usize },
    #[error("DRAM timing field `{field}` = `{value}` is not an unsigned 32-bit integer")]
    NotANumber { field: String, value: String },
    #[error(
        "unknown DRAM timing field `{field}`; known fields: nbk, CCD, RRD, RCD, RAS, RP, RC, CL, \
            WL, CDLR, WR, nbkgrp, CCDL, RTPL"
    )]
    UnknownField { field: String },
    #[error("DRAM timing field `{field}` has no value (expected `{field}=<cycles>`)")]
    MissingValue { field: String },
    #[error(
        "DRAM timing `{text}` does not set `{field}` (only nbkgrp, CCDL and RTPL have defaults)"
    )]
    MissingField { text: String, field: &'static str },
    #[error("DRAM timing: {message}")]
    Invalid { message: String },
    #[error("the DRAM data/command frequency ratio must be at least 1, got 0")]
    ZeroRatio,
}

/// `-gpgpu_dram_timing_opt`: bank count and timing parameters in DRAM command cycles (notes §1.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GpgpusimDramTiming {
    /// Banks per channel.
    pub nbk: u32,
    /// Column-to-column delay (global across banks).
    pub t_ccd: u32,
    /// Activate-to-activate delay, different banks.
    pub t_rrd: u32,
    /// Activate to read.
    pub t_rcd: u32,
    /// Activate to precharge.
    pub t_ras: u32,
    /// Precharge period.
    pub t_rp: u32,
    /// Activate to activate, same bank.
    pub t_rc: u32,
    /// CAS (read) latency.
    pub cl: u32,
    /// Write latency.
    pub wl: u32,
    /// Last write data to read command.
    pub t_cdlr: u32,
    /// Write recovery: last write data to precharge.
    pub t_wr: u32,
    /// Bank groups (a power of two dividing `nbk`).
    pub nbkgrp: u32,
    /// Column-to-column delay within a bank group.
    pub t_ccdl: u32,
    /// Read to precharge within a bank group.
    pub t_rtpl: u32,
}

/// The values GPGPU-Sim derives from the timing, burst length and data/command ratio (§1.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DerivedTiming {
    /// Data-bus command cycles of one burst, `BL / ratio` (integer division, as GPGPU-Sim).
    pub burst_cycles: u32,
    /// `tRCDWR = RCD - (WL + 1)`: activate to write.
    pub t_rcdwr: u32,
    /// `tRTW = CL + BL/ratio + 2 - WL`: read to write turnaround.
    pub t_rtw: u32,
    /// `tWTR = WL + BL/ratio + CDLR`: write to read turnaround.
    pub t_wtr: u32,
    /// `tWTP = WL + BL/ratio + WR`: write to precharge.
    pub t_wtp: u32,
    /// Per-bank read to precharge, `RTPc = BL/ratio`.
    pub t_rtp: u32,
}

/// Field names of the named form, in positional order.
const TIMING_FIELDS: [&str; 14] = [
    "nbk", "CCD", "RRD", "RCD", "RAS", "RP", "RC", "CL", "WL", "CDLR", "WR", "nbkgrp", "CCDL",
    "RTPL",
];

/// Fields 0..11 are required; `nbkgrp`, `CCDL`, `RTPL` default to 1, 0, 0.
const TIMING_REQUIRED: usize = 11;
const TIMING_OPTIONAL_DEFAULTS: [u32; 3] = [1, 0, 0];

impl Default for GpgpusimDramTiming {
    /// GPGPU-Sim's default, [`GpgpusimDramTiming::DEFAULT_OPTION`].
    fn default() -> Self {
        GpgpusimDramTiming::from_fields([4, 2, 8, 12, 21, 13, 34, 9, 4, 5, 13, 1, 0, 0])
    }
}

impl GpgpusimDramTiming {
    /// GPGPU-Sim's default value of `-gpgpu_dram_timing_opt`.
    pub const DEFAULT_OPTION: &'static str = "4:2:8:12:21:13:34:9:4:5:13:1:0:0";

    fn from_fields(f: [u32; 14]) -> GpgpusimDramTiming {
        GpgpusimDramTiming {
            nbk: f[0],
            t_ccd: f[1],
            t_rrd: f[2],
            t_rcd: f[3],
            t_ras: f[4],
            t_rp: f[5],
            t_rc: f[6],
            cl: f[7],
            wl: f[8],
            t_cdlr: f[9],
            t_wr: f[10],
            nbkgrp: f[11],
            t_ccdl: f[12],
            t_rtpl: f[13],
        }
    }

    /// Parses `-gpgpu_dram_timing_opt`.
    ///
    /// * Named form (the string contains `=`): `name=value` pairs separated by any of `=`, `:`,
    ///   `;` (and whitespace, which a quoted value split over lines contains), in any order; names
    ///   are matched case-insensitively; a name given twice keeps the last value. All fields but
    ///   `nbkgrp`, `CCDL`, `RTPL` (defaults 1, 0, 0) are required.
    /// * Legacy positional form:
    ///   `nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR[:nbkgrp:tCCDL:tRTPL]`;
    ///   11 to 14 fields, missing trailing ones take the same defaults.
    ///
    /// Checks: `nbk >= 1`, `nbkgrp` a power of two dividing `nbk`.
    pub fn parse(text: &str) -> Result<GpgpusimDramTiming, TimingError> {
        let mut fields: [Option<u32>; 14] = [None; 14];
        let number = |field: &str, value: &str| {
            value
                .trim()
                .parse::<u32>()
                .map_err(|_| TimingError::NotANumber {
                    field: field.to_string(),
                    value: value.trim().to_string(),
                })
        };
        if text.contains('=') {
            let tokens: Vec<&str> = text
                .split(|c: char| matches!(c, '=' | ':' | ';') || c.is_whitespace())
                .filter(|t| !t.is_empty())
                .collect();
            for pair in tokens.chunks(2) {
                let name = pair[0];
                let Some(index) = TIMING_FIELDS
                    .iter()
                    .position(|f| f.eq_ignore_ascii_case(name))
                else {
                    return Err(TimingError::UnknownField {
                        field: name.to_string(),
                    });
                };
                let Some(value) = pair.get(1) else {
                    return Err(TimingError::MissingValue {
                        field: name.to_string(),
                    });
                };
                fields[index] = Some(number(TIMING_FIELDS[index], value)?);
            }
            if let Some(missing) = (0..TIMING_REQUIRED).find(|&i| fields[i].is_none()) {
                return Err(TimingError::MissingField {
                    text: text.trim().to_string(),
                    field: TIMING_FIELDS[missing],
                });
            }
        } else {
            let parts: Vec<&str> = text.trim().split(':').collect();
            if !(TIMING_REQUIRED..=TIMING_FIELDS.len()).contains(&parts.len()) {
                return Err(TimingError::FieldCount {
                    text: text.trim().to_string(),
                    count: parts.len(),
                });
            }
            for (i, part) in parts.iter().enumerate() {
                fields[i] = Some(number(TIMING_FIELDS[i], part)?);
            }
        }
        let mut values = [0u32; 14];
        for (i, v) in values.iter_mut().enumerate() {
            *v = fields[i].unwrap_or_else(|| {
                TIMING_OPTIONAL_DEFAULTS
                    .get(i.wrapping_sub(TIMING_REQUIRED))
                    .copied()
                    .unwrap_or(0)
            });
        }
        let timing = GpgpusimDramTiming::from_fields(values);
        if timing.nbk == 0 {
            return Err(TimingError::Invalid {
                message: "nbk (banks per channel) must be at least 1, got 0".to_string(),
            });
        }
        if timing.nbkgrp == 0
            || !timing.nbkgrp.is_power_of_two()
            || !timing.nbk.is_multiple_of(timing.nbkgrp)
        {
            return Err(TimingError::Invalid {
                message: format!(
                    "nbkgrp (bank groups) must be a power of two dividing nbk = {}, got {}",
                    timing.nbk, timing.nbkgrp
                ),
            });
        }
        Ok(timing)
    }

    /// The derived values of §1.5 for burst length `burst_length` and data/command frequency ratio
    /// `ratio`. A difference that would be negative (e.g. `RCD < WL + 1`) is 0: no extra wait
    /// (GPGPU-Sim would wrap an unsigned counter). `-dram_elimnate_rw_turnaround` is not applied
    /// here; [`import`] applies it.
    pub fn derived(&self, burst_length: u32, ratio: u32) -> Result<DerivedTiming, TimingError> {
        if ratio == 0 {
            return Err(TimingError::ZeroRatio);
        }
        let burst = i64::from(burst_length / ratio);
        let clamp = |v: i64| u32::try_from(v.max(0)).unwrap_or(u32::MAX);
        let (cl, wl) = (i64::from(self.cl), i64::from(self.wl));
        Ok(DerivedTiming {
            burst_cycles: clamp(burst),
            t_rcdwr: clamp(i64::from(self.t_rcd) - (wl + 1)),
            t_rtw: clamp(cl + burst + 2 - wl),
            t_wtr: clamp(wl + burst + i64::from(self.t_cdlr)),
            t_wtp: clamp(wl + burst + i64::from(self.t_wr)),
            t_rtp: clamp(burst),
        })
    }
}

/// `-gpgpu_dram_scheduler`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DramScheduler {
    /// 0: first in, first out.
    Fifo,
    /// 1: first-ready, first-come first-served (the default).
    FrFcfs,
}

/// `-gpgpu_memory_partition_indexing` (GPGPU-Sim 4.x): how channel and sub-partition are hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartitionIndexing {
    /// 0: linear (what [`AddressMap`] decodes).
    Linear,
    /// 1: XOR.
    Xor,
    /// 2: IPOLY.
    Ipoly,
    /// 4: random.
    Random,
    /// Any other value (3, PAE, asserts in GPGPU-Sim).
    Other(u32),
}

/// Problems importing a configuration.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ImportError {
    #[error(
        "`-{given}` ({location}) is not an option: GPGPU-Sim's names are case-sensitive; \
         write `-{known}`"
    )]
    OptionCase {
        given: String,
        known: &'static str,
        location: String,
    },
    #[error("`-{option}` is not set; warpsmith needs it{hint}")]
    MissingOption {
        option: &'static str,
        hint: &'static str,
    },
    #[error("`-{option}` = `{value}` ({location}): expected {expected}")]
    BadValue {
        option: &'static str,
        value: String,
        location: String,
        expected: &'static str,
    },
    #[error("`-gpgpu_mem_addr_mapping` ({location}): {error}")]
    Mapping {
        location: String,
        error: MappingError,
    },
    #[error("`-gpgpu_dram_timing_opt` ({location}): {error}")]
    Timing {
        location: String,
        error: TimingError,
    },
    #[error("`-{option}` = {value} ({location}) is not supported: {reason}")]
    Unsupported {
        option: &'static str,
        value: u32,
        location: String,
        reason: &'static str,
    },
    #[error("`-{option}` ({location}): {error}")]
    Cache {
        option: &'static str,
        location: String,
        error: crate::cache::CacheStringError,
    },
    #[error("`-inter_config_file` = `{path}` ({location}): {error}")]
    IcntFile {
        path: String,
        location: String,
        error: String,
    },
    #[error("inconsistent configuration: {message}")]
    Inconsistent { message: String },
    #[error("{sources} set `{key}` = {value}, out of its range ({legal}): fix the option's value")]
    OutOfRange {
        /// Each option the key comes from, with its value as written and where it was set.
        sources: String,
        key: String,
        /// The value they give the key (`a value beyond 64 bits` when it does not fit).
        value: String,
        legal: String,
    },
}

/// What warpsmith imports from a GPGPU-Sim configuration: the DRAM side of the memory system.
#[derive(Clone, Debug, PartialEq)]
pub struct DramImport {
    /// `-gpgpu_n_mem`: memory channels (controllers).
    pub channels: u32,
    /// `-gpgpu_n_sub_partition_per_mchannel`: L2 slices per channel.
    pub sub_partitions_per_channel: u32,
    /// `-gpgpu_mem_addr_mapping` (+ `-dram_bnk_indexing_policy 1` as XOR bank hashing). Linear
    /// partition indexing only: see [`DramImport::partition_indexing`].
    pub address_map: AddressMap,
    /// `-gpgpu_dram_timing_opt`.
    pub timing: GpgpusimDramTiming,
    /// Derived timing, with `-dram_elimnate_rw_turnaround 1` applied (tRTW = tWTR = 0).
    pub derived: DerivedTiming,
    /// `-gpgpu_dram_burst_length` (data-bus beats per column command).
    pub burst_length: u32,
    /// `-gpgpu_dram_buswidth`: bytes per chip per data beat.
    pub bus_width_bytes: u32,
    /// `-dram_data_command_freq_ratio`: data rate / command clock (4 GDDR5/6, 2 HBM).
    pub data_command_ratio: u32,
    /// `-gpgpu_n_mem_per_ctrlr`: DRAM chips per channel.
    pub chips_per_channel: u32,
    /// DRAM command clock in MHz: the 4th field of `-gpgpu_clock_domains`.
    pub dram_clock_mhz: f64,
    /// Core, interconnect and L2 clocks in MHz: the first three fields.
    pub clocks_mhz: [f64; 3],
    /// `-gpgpu_dram_scheduler`.
    pub scheduler: DramScheduler,
    /// `-gpgpu_frfcfs_dram_sched_queue_size`: scheduler entries per channel, 0 = unlimited.
    pub scheduler_queue_size: u32,
    /// Bytes moved by one column command: `burst_length * bus_width_bytes * chips_per_channel`.
    pub atom_size: u32,
    /// `-gpgpu_memory_partition_indexing`. `address_map` hashes by it when it is XOR or IPOLY
    /// and the map allows it; other values are listed in `unmodelled`.
    pub partition_indexing: PartitionIndexing,
    /// `-dram_dual_bus_interface` (HBM: a row and a column command per cycle).
    pub dual_bus_interface: bool,
    /// Options read whose effect the import does not model, one sentence each.
    pub unmodelled: Vec<String>,
}

/// Where an option was set, for messages: `"gpgpusim.config line 14"` or `"GPGPU-Sim default"`.
fn location(opts: &GpgpusimOptions, name: &str) -> String {
    opts.entry(name).map_or_else(
        || "GPGPU-Sim default".to_string(),
        |v| format!("{} line {}", v.source, v.line),
    )
}

/// An unsigned option with GPGPU-Sim's default.
fn uint(opts: &GpgpusimOptions, name: &'static str, default: u32) -> Result<u32, ImportError> {
    match opts.get(name) {
        None => Ok(default),
        Some(text) => text
            .trim()
            .parse::<u32>()
            .map_err(|_| ImportError::BadValue {
                option: name,
                value: text.to_string(),
                location: location(opts, name),
                expected: "an unsigned 32-bit integer",
            }),
    }
}

/// An unsigned option that must be at least 1.
fn positive(opts: &GpgpusimOptions, name: &'static str, default: u32) -> Result<u32, ImportError> {
    let v = uint(opts, name, default)?;
    if v == 0 {
        return Err(ImportError::BadValue {
            option: name,
            value: "0".to_string(),
            location: location(opts, name),
            expected: "an integer >= 1",
        });
    }
    Ok(v)
}

/// A 0/1 option.
fn flag(opts: &GpgpusimOptions, name: &'static str) -> Result<bool, ImportError> {
    match uint(opts, name, 0)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(ImportError::BadValue {
            option: name,
            value: v.to_string(),
            location: location(opts, name),
            expected: "0 or 1",
        }),
    }
}

/// Imports the DRAM side of a configuration. Options a file does not set take GPGPU-Sim's
/// defaults (`-gpgpu_n_mem` 8, `-gpgpu_n_sub_partition_per_mchannel` 1, `-gpgpu_n_mem_per_ctrlr`
/// 1, `-gpgpu_dram_buswidth` 4, `-gpgpu_dram_burst_length` 4, `-dram_data_command_freq_ratio` 2,
/// `-gpgpu_dram_timing_opt` [`GpgpusimDramTiming::DEFAULT_OPTION`], `-gpgpu_clock_domains`
/// `500.0:2000.0:2000.0:2000.0`, `-gpgpu_dram_scheduler` 1, `-gpgpu_frfcfs_dram_sched_queue_size`
/// 0, indexing policies 0), except `-gpgpu_mem_addr_mapping`, which is required: the built-in mask
/// sets of `-gpgpu_mem_address_mask` are not implemented.
pub fn import(opts: &GpgpusimOptions) -> Result<DramImport, ImportError> {
    check_option_case(opts)?;
    const MAPPING: &str = "gpgpu_mem_addr_mapping";
    const TIMING: &str = "gpgpu_dram_timing_opt";
    let mut unmodelled = Vec::new();

    let channels = positive(opts, "gpgpu_n_mem", 8)?;
    let subs = positive(opts, "gpgpu_n_sub_partition_per_mchannel", 1)?;
    let chips_per_channel = positive(opts, "gpgpu_n_mem_per_ctrlr", 1)?;
    let bus_width_bytes = positive(opts, "gpgpu_dram_buswidth", 4)?;
    let burst_length = positive(opts, "gpgpu_dram_burst_length", 4)?;
    let data_command_ratio = positive(opts, "dram_data_command_freq_ratio", 2)?;
    let scheduler_queue_size = uint(opts, "gpgpu_frfcfs_dram_sched_queue_size", 0)?;
    let scheduler = match uint(opts, "gpgpu_dram_scheduler", 1)? {
        0 => DramScheduler::Fifo,
        1 => DramScheduler::FrFcfs,
        v => {
            return Err(ImportError::BadValue {
                option: "gpgpu_dram_scheduler",
                value: v.to_string(),
                location: location(opts, "gpgpu_dram_scheduler"),
                expected: "0 (FIFO) or 1 (FR-FCFS)",
            })
        }
    };

    let clocks = opts
        .get("gpgpu_clock_domains")
        .unwrap_or("500.0:2000.0:2000.0:2000.0");
    let fields: Vec<f64> = clocks
        .split(':')
        .filter_map(|f| f.trim().parse::<f64>().ok())
        .filter(|mhz| mhz.is_finite() && *mhz > 0.0)
        .collect();
    let [core, icnt, l2, dram_clock_mhz] = fields[..] else {
        return Err(ImportError::BadValue {
            option: "gpgpu_clock_domains",
            value: clocks.to_string(),
            location: location(opts, "gpgpu_clock_domains"),
            expected: "<core>:<icnt>:<L2>:<DRAM> clocks in MHz, each a positive number",
        });
    };
    let clocks_mhz = [core, icnt, l2];

    let timing_text = opts
        .get(TIMING)
        .unwrap_or(GpgpusimDramTiming::DEFAULT_OPTION);
    let timing_err = |error| ImportError::Timing {
        location: location(opts, TIMING),
        error,
    };
    let timing = GpgpusimDramTiming::parse(timing_text).map_err(timing_err)?;
    let mut derived = timing
        .derived(burst_length, data_command_ratio)
        .map_err(timing_err)?;
    if flag(opts, "dram_elimnate_rw_turnaround")? {
        derived.t_rtw = 0;
        derived.t_wtr = 0;
    }

    let Some(mapping) = opts.get(MAPPING) else {
        return Err(ImportError::MissingOption {
            option: MAPPING,
            hint: " (the built-in mask sets of -gpgpu_mem_address_mask are not implemented)",
        });
    };
    let address_map = AddressMap::parse_gpgpusim(mapping, channels, subs).map_err(|error| {
        // An error about the channel or sub-partition count names the options giving them.
        let counts = matches!(
            error,
            MappingError::ZeroChannels
                | MappingError::BadSubPartitions { .. }
                | MappingError::TooManySubPartitions { .. }
                | MappingError::SubPartitionsExceedBanks { .. }
                | MappingError::DramidOutOfRange { .. }
                | MappingError::DNeedsPowerOfTwo { .. }
                | MappingError::DCount { .. }
        );
        let mut at = location(opts, MAPPING);
        if counts {
            at = format!(
                "{at}, with -gpgpu_n_mem = {channels} ({}) and \
                    -gpgpu_n_sub_partition_per_mchannel = {subs} ({})",
                location(opts, "gpgpu_n_mem"),
                location(opts, "gpgpu_n_sub_partition_per_mchannel")
            );
        }
        ImportError::Mapping {
            location: at,
            error,
        }
    })?;
    let bank_policy = uint(opts, "dram_bnk_indexing_policy", 0)?;
    let address_map = match bank_policy {
        0 => address_map,
        1 => address_map.with_bank_xor(true),
        v => {
            return Err(ImportError::Unsupported {
                option: "dram_bnk_indexing_policy",
                value: v,
                location: location(opts, "dram_bnk_indexing_policy"),
                reason: "only 0 (linear) and 1 (XOR with the row) are modelled",
            })
        }
    };
    if address_map.banks() > timing.nbk {
        return Err(ImportError::Inconsistent {
            message: format!(
                "the address mapping has {} bank bits ({} banks) but -gpgpu_dram_timing_opt has \
                    nbk = {}",
                address_map.banks().trailing_zeros(),
                address_map.banks(),
                timing.nbk
            ),
        });
    }
    if !timing.nbk.is_multiple_of(subs) {
        return Err(ImportError::Inconsistent {
            message: format!(
                "nbk = {} banks must be a multiple of -gpgpu_n_sub_partition_per_mchannel = {subs}",
                timing.nbk
            ),
        });
    }

    let partition_indexing = match uint(opts, "gpgpu_memory_partition_indexing", 0)? {
        0 => PartitionIndexing::Linear,
        1 => PartitionIndexing::Xor,
        2 => PartitionIndexing::Ipoly,
        4 => PartitionIndexing::Random,
        v => PartitionIndexing::Other(v),
    };
    // Linear, XOR and IPOLY hash the address map's channel and sub-partition; the software
    // hash table of RANDOM (4) and the asserting values are not hardware and stay linear.
    let hashed = match partition_indexing {
        PartitionIndexing::Xor => Some(crate::dram::PartitionHash::Xor),
        PartitionIndexing::Ipoly => Some(crate::dram::PartitionHash::Ipoly),
        _ => None,
    };
    let address_map = match hashed.map(|h| address_map.clone().with_partition_hash(h)) {
        Some(Ok(m)) => m,
        Some(Err(e)) => {
            unmodelled.push(format!(
                "-gpgpu_memory_partition_indexing ({}) = {:?}: {e}; linear indexing is used",
                location(opts, "gpgpu_memory_partition_indexing"),
                partition_indexing
            ));
            address_map
        }
        None => {
            if partition_indexing != PartitionIndexing::Linear {
                unmodelled.push(format!(
                    "-gpgpu_memory_partition_indexing ({}) = {:?}: not a hardware hash (random is \
                        a software table); linear indexing is used",
                    location(opts, "gpgpu_memory_partition_indexing"),
                    partition_indexing
                ));
            }
            address_map
        }
    };
    let dual_bus_interface = flag(opts, "dram_dual_bus_interface")?;
    if flag(opts, "dram_seperate_write_queue_enable")? {
        unmodelled.push(format!(
            "-dram_seperate_write_queue_enable ({}) = 1: the separate write queue is not imported",
            location(opts, "dram_seperate_write_queue_enable")
        ));
    }

    let atom_size = burst_length
        .checked_mul(bus_width_bytes)
        .and_then(|v| v.checked_mul(chips_per_channel))
        .ok_or_else(|| ImportError::Inconsistent {
            message: format!(
                "DRAM atom = -gpgpu_dram_burst_length {burst_length} ({}) x -gpgpu_dram_buswidth \
                    {bus_width_bytes} B ({}) x -gpgpu_n_mem_per_ctrlr {chips_per_channel} chips \
                    ({}) does not fit 32 bits",
                location(opts, "gpgpu_dram_burst_length"),
                location(opts, "gpgpu_dram_buswidth"),
                location(opts, "gpgpu_n_mem_per_ctrlr")
            ),
        })?;

    Ok(DramImport {
        channels,
        sub_partitions_per_channel: subs,
        address_map,
        timing,
        derived,
        burst_length,
        bus_width_bytes,
        data_command_ratio,
        chips_per_channel,
        dram_clock_mhz,
        clocks_mhz,
        scheduler,
        scheduler_queue_size,
        atom_size,
        partition_indexing,
        dual_bus_interface,
        unmodelled,
    })
}

/// One key a GPGPU-Sim layer sets, and the option it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedKey {
    pub key: &'static str,
    pub value: toml::Value,
    /// `-gpgpu_n_mem (gpgpusim.config line 14)` (each option, for a key derived from several).
    pub from: String,
    /// Each option with its value as written (or its GPGPU-Sim default) and where it was set:
    /// ``-gpgpu_n_mem` = `8` (gpgpusim.config line 14)`, for errors.
    pub sources: String,
}

impl ImportedKey {
    /// The error of this key's value out of the key's range (`legal`), naming the options,
    /// their values as written, their files and lines.
    pub fn out_of_range(&self, legal: String) -> ImportError {
        ImportError::OutOfRange {
            sources: self.sources.clone(),
            key: self.key.to_string(),
            value: self.value.to_string(),
            legal,
        }
    }
}

/// The keys a layer sets, each with the options it comes from.
struct Keys<'a> {
    opts: &'a GpgpusimOptions,
    imported: Vec<ImportedKey>,
}

impl Keys<'_> {
    /// Set `key` from `option`.
    fn put(&mut self, key: &'static str, value: Val, option: &str) -> Result<(), ImportError> {
        self.put_from(key, value, &[option])
    }

    /// Set `key` from a value derived from several options.
    fn put_from(
        &mut self,
        key: &'static str,
        value: Val,
        options: &[&str],
    ) -> Result<(), ImportError> {
        let opts = self.opts;
        let join = |each: &dyn Fn(&str) -> String| {
            options
                .iter()
                .map(|o| each(o))
                .collect::<Vec<_>>()
                .join(" and ")
        };
        let from = join(&|o| format!("-{o} ({})", location(opts, o)));
        let sources = join(&|o| {
            let written = opts.get(o).map_or_else(
                || "its GPGPU-Sim default".to_string(),
                |v| format!("`{}`", v.trim()),
            );
            format!("`-{o}` = {written} ({})", location(opts, o))
        });
        let value = match value {
            Val::Other(v) => v,
            Val::Int(v) => match v.and_then(|v| i64::try_from(v).ok()) {
                Some(v) => toml::Value::Integer(v),
                None => {
                    // No key takes a value beyond 64 bits: a range error here, never saturated.
                    let legal = crate::UserConfig::keys()
                        .into_iter()
                        .find(|k| k.key == key)
                        .map_or_else(String::new, |k| k.legal.to_string());
                    return Err(ImportError::OutOfRange {
                        sources,
                        key: key.to_string(),
                        value: "a value beyond 64 bits".into(),
                        legal,
                    });
                }
            },
        };
        self.imported.push(ImportedKey {
            key,
            value,
            from,
            sources,
        });
        Ok(())
    }
}

/// A value the import gives a key.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// An integer; `None` when the option's value does not fit 64 bits (no key takes it).
    Int(Option<u64>),
    Other(toml::Value),
}

impl From<u64> for Val {
    fn from(v: u64) -> Val {
        Val::Int(Some(v))
    }
}

impl From<toml::Value> for Val {
    fn from(v: toml::Value) -> Val {
        Val::Other(v)
    }
}

/// `x` rounded to a whole number, or `Int(None)` when it is not finite, is negative or does
/// not fit 64 bits: never saturated.
fn rounded(x: f64) -> Val {
    Val::Int(whole(x.round()))
}

/// A whole, finite, non-negative `x` below 2^64 as an integer (exact: `x` is whole and in
/// range, so the conversion neither rounds nor saturates).
fn whole(x: f64) -> Option<u64> {
    const TWO_TO_64: f64 = 18_446_744_073_709_551_616.0;
    if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < TWO_TO_64 {
        Some(x as u64)
    } else {
        None
    }
}

/// An option of the files that no key takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredOption {
    pub option: String,
    pub value: String,
    pub location: String,
}

/// What a GPGPU-Sim layer did: the keys it set, the keys it left to the layers below (with
/// why), what it read but does not model, and every option it ignored.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportReport {
    pub imported: Vec<ImportedKey>,
    pub kept: Vec<String>,
    pub unmodelled: Vec<String>,
    pub ignored: Vec<IgnoredOption>,
}

/// An option that is one warpsmith reads but for its letters' case (`-NETWORK_MODE`) is refused:
/// kept as an unknown option, it would leave the real one at its default without a word
/// (GPGPU-Sim itself stops at an unknown option).
fn check_option_case(opts: &GpgpusimOptions) -> Result<(), ImportError> {
    for (name, v) in opts.iter() {
        if READ.contains(&name) {
            continue;
        }
        if let Some(&known) = READ.iter().find(|r| r.eq_ignore_ascii_case(name)) {
            return Err(ImportError::OptionCase {
                given: name.to_string(),
                known,
                location: format!("{} line {}", v.source, v.line),
            });
        }
    }
    Ok(())
}

/// Options [`layer`] reads (some only to report them as not modelled), besides the execution
/// units' ([`EXEC_CLASSES`], [`SPEC_UNITS`]: [`exec_unit_option`]).
const READ: &[&str] = &[
    "gpgpu_n_mem",
    "gpgpu_n_sub_partition_per_mchannel",
    "gpgpu_n_mem_per_ctrlr",
    "gpgpu_dram_buswidth",
    "gpgpu_dram_burst_length",
    "dram_data_command_freq_ratio",
    "gpgpu_frfcfs_dram_sched_queue_size",
    "gpgpu_dram_scheduler",
    "gpgpu_clock_domains",
    "gpgpu_dram_timing_opt",
    "dram_elimnate_rw_turnaround",
    "gpgpu_mem_addr_mapping",
    "dram_bnk_indexing_policy",
    "gpgpu_memory_partition_indexing",
    "dram_dual_bus_interface",
    "dram_seperate_write_queue_enable",
    "dram_write_queue_size",
    "gpgpu_n_clusters",
    "gpgpu_n_cores_per_cluster",
    "gpgpu_shader_core_pipeline",
    "gpgpu_shader_cta",
    "gpgpu_shader_registers",
    "gpgpu_shmem_size",
    "gpgpu_cache:dl1",
    "gpgpu_cache:dl2",
    "gpgpu_l1_latency",
    "gpgpu_l1_banks",
    "gpgpu_l1_banks_byte_interleaving",
    "gpgpu_l1_banks_hashing_function",
    "gpgpu_num_sched_per_core",
    "gpgpu_scheduler",
    "gpgpu_coalesce_arch",
    "gpgpu_shmem_warp_parts",
    "gpgpu_gmem_skip_L1D",
    "gpgpu_flush_l1_cache",
    "gpgpu_adaptive_cache_config",
    "gpgpu_unified_l1d_size",
    "gpgpu_shmem_option",
    "gpgpu_kernel_launch_latency",
    "gpgpu_perf_sim_memcpy",
    "gpgpu_smem_latency",
    "gpgpu_l2_rop_latency",
    "rop_latency",
    "dram_latency",
    "gpgpu_dram_partition_queues",
    "network_mode",
    "inter_config_file",
    "icnt_flit_size",
    "icnt_in_buffer_limit",
    "icnt_out_buffer_limit",
    "icnt_arbiter_algo",
];

/// Accel-Sim's specialized units (`-specialized_unit_K enabled,units,max_latency,id_oc,oc_ex,NAME`
/// with `-trace_opcode_latency_initiation_spec_op_K latency,initiation`), K = 1..=8.
const SPEC_UNITS: [(&str, &str); 8] = [
    (
        "specialized_unit_1",
        "trace_opcode_latency_initiation_spec_op_1",
    ),
    (
        "specialized_unit_2",
        "trace_opcode_latency_initiation_spec_op_2",
    ),
    (
        "specialized_unit_3",
        "trace_opcode_latency_initiation_spec_op_3",
    ),
    (
        "specialized_unit_4",
        "trace_opcode_latency_initiation_spec_op_4",
    ),
    (
        "specialized_unit_5",
        "trace_opcode_latency_initiation_spec_op_5",
    ),
    (
        "specialized_unit_6",
        "trace_opcode_latency_initiation_spec_op_6",
    ),
    (
        "specialized_unit_7",
        "trace_opcode_latency_initiation_spec_op_7",
    ),
    (
        "specialized_unit_8",
        "trace_opcode_latency_initiation_spec_op_8",
    ),
];

/// An execution-unit class as the options give it: its keys (latency, initiation), its
/// trace-driven option, the name of its specialized unit, its PTX-mode tables (latency,
/// initiation).
type ExecOptions = (
    [&'static str; 2],
    Option<&'static str>,
    Option<&'static str>,
    Option<[&'static str; 2]>,
);

/// Per execution-unit class (`spec::gpu::ExecClass`), in its order.
const EXEC_CLASSES: [ExecOptions; 8] = [
    (
        ["gpu.alu_latency", "gpu.alu_initiation"],
        Some("trace_opcode_latency_initiation_int"),
        None,
        Some(["ptx_opcode_latency_int", "ptx_opcode_initiation_int"]),
    ),
    (
        ["gpu.sp_latency", "gpu.sp_initiation"],
        Some("trace_opcode_latency_initiation_sp"),
        None,
        Some(["ptx_opcode_latency_fp", "ptx_opcode_initiation_fp"]),
    ),
    (
        ["gpu.dp_latency", "gpu.dp_initiation"],
        Some("trace_opcode_latency_initiation_dp"),
        None,
        Some(["ptx_opcode_latency_dp", "ptx_opcode_initiation_dp"]),
    ),
    (
        ["gpu.sfu_latency", "gpu.sfu_initiation"],
        Some("trace_opcode_latency_initiation_sfu"),
        None,
        Some(["ptx_opcode_latency_sfu", "ptx_opcode_initiation_sfu"]),
    ),
    (
        ["gpu.tensor_latency", "gpu.tensor_initiation"],
        Some("trace_opcode_latency_initiation_tensor"),
        Some("TENSOR"),
        Some(["ptx_opcode_latency_tesnor", "ptx_opcode_initiation_tensor"]),
    ),
    (
        ["gpu.branch_latency", "gpu.branch_initiation"],
        None,
        Some("BRA"),
        None,
    ),
    (
        ["gpu.tex_latency", "gpu.tex_initiation"],
        None,
        Some("TEX"),
        None,
    ),
    (
        ["gpu.uniform_latency", "gpu.uniform_initiation"],
        None,
        Some("UDP"),
        None,
    ),
];

/// Whether `name` is an option of the execution units.
fn exec_unit_option(name: &str) -> bool {
    EXEC_CLASSES
        .iter()
        .flat_map(|(_, trace, _, ptx)| trace.iter().chain(ptx.iter().flatten()))
        .chain(SPEC_UNITS.iter().flat_map(|(u, t)| [u, t]))
        .any(|o| *o == name)
}

/// The first `n` comma-separated cycle counts of `option`, if it is set.
fn cycle_fields(
    opts: &GpgpusimOptions,
    option: &'static str,
    n: usize,
) -> Result<Option<Vec<u64>>, ImportError> {
    let Some(text) = opts.get(option) else {
        return Ok(None);
    };
    let fields: Option<Vec<u64>> = text
        .split(',')
        .take(n)
        .map(|f| f.trim().parse::<u64>().ok())
        .collect();
    match fields {
        Some(v) if v.len() == n => Ok(Some(v)),
        _ => Err(ImportError::BadValue {
            option,
            value: text.to_string(),
            location: location(opts, option),
            expected: "comma-separated cycle counts",
        }),
    }
}

/// The execution-unit keys (`gpu.<class>_latency`, `gpu.<class>_initiation`): per class, the
/// trace-driven option (`-trace_opcode_latency_initiation_*`, or the enabled specialized unit
/// of that name), else the PTX-mode tables' first fields (`-ptx_opcode_latency_*` and
/// `-ptx_opcode_initiation_*`); a class with neither keeps its value, and `kept` says so.
fn exec_units(
    opts: &GpgpusimOptions,
    keys: &mut Keys,
    kept: &mut Vec<String>,
) -> Result<(), ImportError> {
    // The enabled specialized units by name: (latency, initiation, option).
    let mut units: Vec<(String, [u64; 2], &'static str)> = Vec::new();
    for (unit, timing) in SPEC_UNITS {
        let Some(text) = opts.get(unit) else {
            continue;
        };
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        let enabled = match fields.first().map(|f| f.parse::<u64>()) {
            Some(Ok(e)) if fields.len() >= 6 => e != 0,
            _ => {
                return Err(ImportError::BadValue {
                    option: unit,
                    value: text.to_string(),
                    location: location(opts, unit),
                    expected: "enabled,units,max_latency,id_oc,oc_ex,NAME",
                })
            }
        };
        if !enabled {
            continue;
        }
        // Accel-Sim's default for a unit without its timing option: 4,4.
        let t = cycle_fields(opts, timing, 2)?.unwrap_or_else(|| vec![4, 4]);
        units.push((fields[5].to_ascii_uppercase(), [t[0], t[1]], timing));
    }
    for ([lat_key, init_key], trace, unit, ptx) in EXEC_CLASSES {
        // The specialized unit first: Turing's and Ampere's opcode tables send the tensor
        // opcodes to it rather than to the tensor class.
        if let Some((_, [l, i], option)) = unit.and_then(|n| units.iter().find(|u| u.0 == n)) {
            keys.put(lat_key, Val::from(*l), option)?;
            keys.put(init_key, Val::from(*i), option)?;
            continue;
        }
        if let Some(option) = trace {
            if let Some(v) = cycle_fields(opts, option, 2)? {
                keys.put(lat_key, Val::from(v[0]), option)?;
                keys.put(init_key, Val::from(v[1]), option)?;
                continue;
            }
        }
        if let Some([lat, init]) = ptx {
            if let Some(v) = cycle_fields(opts, lat, 1)? {
                keys.put(lat_key, Val::from(v[0]), lat)?;
                match cycle_fields(opts, init, 1)? {
                    Some(i) => keys.put(init_key, Val::from(i[0]), init)?,
                    None => kept.push(format!("{init_key}: -{init} is not set")),
                }
                continue;
            }
        }
        let from = [trace, ptx.map(|p| p[0])]
            .into_iter()
            .flatten()
            .map(|o| format!("-{o}"))
            .chain(unit.map(|n| format!("a specialized unit named {n}")))
            .collect::<Vec<_>>()
            .join(" or ");
        kept.push(format!("{lat_key}, {init_key}: no {from}"));
    }
    Ok(())
}

/// The value of cache-string key `key` from `option`, if the option names a cache; why not in
/// `kept` otherwise. A malformed string is an error.
fn cache_value(
    opts: &GpgpusimOptions,
    option: &'static str,
    key: &str,
    kept: &mut Vec<String>,
) -> Result<Option<toml::Value>, ImportError> {
    let Some(text) = opts.get(option) else {
        kept.push(format!("{key}: -{option} is not set"));
        return Ok(None);
    };
    match crate::cache::CacheString::parse(text) {
        Ok(Some(_)) => Ok(Some(toml::Value::String(text.trim().into()))),
        Ok(None) => {
            kept.push(format!("{key}: -{option} is none"));
            Ok(None)
        }
        Err(error) => Err(ImportError::Cache {
            option,
            location: location(opts, option),
            error,
        }),
    }
}

/// The `key = value;` settings of a BookSim `.icnt` file (`//` comments).
pub fn parse_icnt(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("");
        for stmt in line.split(';') {
            if let Some((k, v)) = stmt.split_once('=') {
                let (k, v) = (k.trim(), v.trim());
                if !k.is_empty() {
                    out.push((k.to_string(), v.to_string()));
                }
            }
        }
    }
    out
}

/// The interconnect keys: from GPGPU-Sim's built-in crossbar options (`-network_mode 2`) or
/// from the BookSim `.icnt` file (`-network_mode 1`, `-inter_config_file`, read relative to
/// the options file that names it). Notes on what is not modelled go to `notes`.
fn icnt_layer(
    opts: &GpgpusimOptions,
    keys: &mut Keys,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    let word = |w: &str| toml::Value::String(w.into());
    match uint(opts, "network_mode", 1)? {
        2 => {
            keys.put(
                "icnt.flit_bytes",
                Val::from(u64::from(positive(opts, "icnt_flit_size", 32)?)),
                "icnt_flit_size",
            )?;
            keys.put(
                "icnt.in_buffer",
                Val::from(u64::from(positive(opts, "icnt_in_buffer_limit", 64)?)),
                "icnt_in_buffer_limit",
            )?;
            keys.put(
                "icnt.out_buffer",
                Val::from(u64::from(positive(opts, "icnt_out_buffer_limit", 64)?)),
                "icnt_out_buffer_limit",
            )?;
            let arbiter = match uint(opts, "icnt_arbiter_algo", 1)? {
                0 => "rr",
                1 => "islip",
                v => {
                    return Err(ImportError::BadValue {
                        option: "icnt_arbiter_algo",
                        value: v.to_string(),
                        location: location(opts, "icnt_arbiter_algo"),
                        expected: "0 (round-robin) or 1 (iSLIP)",
                    })
                }
            };
            keys.put(
                "icnt.arbiter",
                Val::from(word(arbiter)),
                "icnt_arbiter_algo",
            )?;
            keys.put("icnt.latency", Val::from(0u64), "network_mode")?;
            keys.put("icnt.speedup", Val::from(1u64), "network_mode")?;
            notes.push(format!(
                "-network_mode 2 ({}): GPGPU-Sim's crossbar moves every packet as one flit and \
                    counts its buffers in packets; warpsmith serialises ceil(bytes / flit) flits \
                    and counts flits (the same for one-flit packets)",
                location(opts, "network_mode")
            ));
            Ok(())
        }
        1 => {
            const FILE: &str = "inter_config_file";
            let name = opts.get(FILE).unwrap_or("mesh").trim();
            let at = location(opts, FILE);
            let dir = opts
                .entry(FILE)
                .and_then(|e| {
                    std::path::Path::new(&e.source)
                        .parent()
                        .map(|p| p.to_path_buf())
                })
                .unwrap_or_default();
            let path = dir.join(name);
            let text = crate::input::read_to_string(&path).map_err(|e| ImportError::IcntFile {
                path: path.display().to_string(),
                location: at.clone(),
                error: format!(
                    "cannot read it: {e} (-network_mode 1 ({}) reads BookSim's network from it, \
                        relative to the options file that names it)",
                    location(opts, "network_mode")
                ),
            })?;
            let kv = parse_icnt(&text);
            let get = |k: &str| {
                kv.iter()
                    .rev()
                    .find(|(key, _)| key == k)
                    .map(|(_, v)| v.as_str())
            };
            let num = |k: &'static str| -> Result<Option<u64>, ImportError> {
                get(k)
                    .map(|v| {
                        v.parse::<f64>()
                            .ok()
                            .and_then(whole)
                            .ok_or_else(|| ImportError::IcntFile {
                                path: path.display().to_string(),
                                location: at.clone(),
                                error: format!("`{k} = {v}` is not a whole number"),
                            })
                    })
                    .transpose()
            };
            let need = |k: &'static str, v: Option<u64>| {
                v.ok_or_else(|| ImportError::IcntFile {
                    path: path.display().to_string(),
                    location: at.clone(),
                    error: format!("`{k}` is not set"),
                })
            };
            let flit = need("flit_size", num("flit_size")?)?;
            let vcs = num("num_vcs")?.unwrap_or(1).max(1);
            let vc_buf = num("vc_buf_size")?;
            // Sums and products of the file's values that do not fit 64 bits give a value no
            // key takes: `Int(None)`, a range error naming the option (never wrapped).
            let input = match num("input_buffer_size")? {
                Some(v) => Some(v),
                None => need("vc_buf_size", vc_buf)?.checked_mul(vcs),
            };
            let output = match num("ejection_buffer_size")? {
                Some(v) => Some(v),
                None => need("vc_buf_size", vc_buf)?.checked_mul(vcs),
            };
            let mut delay = Some(0u64);
            for k in ["routing_delay", "vc_alloc_delay", "sw_alloc_delay"] {
                let d = num(k)?.unwrap_or_default();
                delay = delay.and_then(|sum| sum.checked_add(d));
            }
            let arbiter = if get("sw_allocator") == Some("islip") {
                "islip"
            } else {
                "rr"
            };
            keys.put("icnt.flit_bytes", Val::from(flit), FILE)?;
            keys.put("icnt.in_buffer", Val::Int(input), FILE)?;
            keys.put("icnt.out_buffer", Val::Int(output), FILE)?;
            keys.put("icnt.arbiter", Val::from(word(arbiter)), FILE)?;
            keys.put("icnt.latency", Val::Int(delay), FILE)?;
            // BookSim's internal speedup is a real number; the crossbar takes whole steps.
            let internal = get("internal_speedup").unwrap_or("1");
            let speedup = internal
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite() && *f >= 1.0 && *f <= 8.0)
                .ok_or_else(|| ImportError::IcntFile {
                    path: path.display().to_string(),
                    location: at.clone(),
                    error: format!("`internal_speedup = {internal}` is not a number from 1 to 8"),
                })?;
            keys.put("icnt.speedup", rounded(speedup.floor()), FILE)?;
            let topology = (get("topology").unwrap_or("?"), get("n").unwrap_or("?"));
            notes.push(format!(
                "-inter_config_file {} ({at}): BookSim's network (topology {} n = {}, {} virtual \
                    channel(s), speedups in {} / out {} / internal {}) is modelled as one \
                    crossbar per direction with these buffers and delays and its internal \
                    speedup{}; virtual channels, credits and input and output speedups are not \
                    modelled",
                path.display(),
                topology.0,
                topology.1,
                vcs,
                get("input_speedup").unwrap_or("1"),
                get("output_speedup").unwrap_or("1"),
                internal,
                if speedup.fract() == 0.0 {
                    String::new()
                } else {
                    format!(" rounded down to {}", speedup.floor())
                },
            ));
            Ok(())
        }
        v => Err(ImportError::Unsupported {
            option: "network_mode",
            value: v,
            location: location(opts, "network_mode"),
            reason: "only 1 (BookSim, read from -inter_config_file) and 2 (the built-in crossbar) \
                are modelled",
        }),
    }
}

/// The configuration keys a GPGPU-Sim option set gives: the DRAM ([`import`]), the address
/// map, the controller's scheduler and queue, and the SM keys (`gpu.*`). Keys the options
/// have no equivalent for are left to the layers below and listed in
/// [`ImportReport::kept`]; every option that no key takes is listed in
/// [`ImportReport::ignored`]. Values are not range-checked here (a later layer may set the key
/// again): the spec checks them with every other key, and an error about a key this layer set
/// names its option ([`ImportedKey::out_of_range`]). A value that does not fit 64 bits is a
/// range error here, never saturated.
/// The boolean key `key` from the option `-option` where the files set it; else the key keeps
/// its value and `kept` says so.
fn flag_or_kept(
    keys: &mut Keys<'_>,
    kept: &mut Vec<String>,
    key: &'static str,
    option: &'static str,
) -> Result<(), ImportError> {
    if keys.opts.get(option).is_none() {
        kept.push(format!("{key}: -{option} is not set"));
        return Ok(());
    }
    let v = flag(keys.opts, option)?;
    keys.put(key, Val::from(toml::Value::Boolean(v)), option)
}

/// The L1's share of the storage it shares with shared memory (decision GPU-32): with
/// `-gpgpu_adaptive_cache_config 1`, `-gpgpu_unified_l1d_size` and `-gpgpu_shmem_option`; without
/// it (GPGPU-Sim's default 0), every kernel's L1 is `-gpgpu_cache:dl1`.
fn unified_l1(keys: &mut Keys<'_>, kept: &mut Vec<String>) -> Result<(), ImportError> {
    const ADAPTIVE: &str = "gpgpu_adaptive_cache_config";
    if !flag(keys.opts, ADAPTIVE)? {
        return keys.put("gpu.unified_l1_kb", Val::from(0u64), ADAPTIVE);
    }
    match keys.opts.get("gpgpu_unified_l1d_size") {
        Some(_) => {
            let kb = uint(keys.opts, "gpgpu_unified_l1d_size", 0)?;
            keys.put(
                "gpu.unified_l1_kb",
                Val::from(u64::from(kb)),
                "gpgpu_unified_l1d_size",
            )?;
        }
        None => kept.push(format!(
            "gpu.unified_l1_kb: -{ADAPTIVE} 1 without -gpgpu_unified_l1d_size"
        )),
    }
    match keys.opts.get("gpgpu_shmem_option") {
        Some(v) => {
            let list: String = v.chars().filter(|c| !c.is_whitespace()).collect();
            keys.put(
                "gpu.shmem_carveouts",
                Val::from(toml::Value::String(list)),
                "gpgpu_shmem_option",
            )?;
        }
        None => kept.push(format!(
            "gpu.shmem_carveouts: -{ADAPTIVE} 1 without -gpgpu_shmem_option"
        )),
    }
    Ok(())
}

pub fn layer(opts: &GpgpusimOptions) -> Result<ImportReport, ImportError> {
    let d = import(opts)?;
    let mut kept = Vec::new();
    let mut keys = Keys {
        opts,
        imported: Vec::new(),
    };

    // SMs.
    let clusters = positive(opts, "gpgpu_n_clusters", 10)?;
    let per_cluster = positive(opts, "gpgpu_n_cores_per_cluster", 3)?;
    keys.put_from(
        "gpu.sms",
        Val::from(u64::from(clusters) * u64::from(per_cluster)),
        &["gpgpu_n_clusters", "gpgpu_n_cores_per_cluster"],
    )?;
    // issue_block2core gives each cluster at most one block a cycle, to one of its cores: as
    // many blocks a cycle as clusters (to any SMs when a cluster has several; decision GPU-35).
    keys.put(
        "dispatch.blocks_per_cycle",
        Val::from(u64::from(clusters)),
        "gpgpu_n_clusters",
    )?;
    if let Some(pipe) = opts.get("gpgpu_shader_core_pipeline") {
        let mut it = pipe.trim().split(':').map(|f| f.trim().parse::<u64>());
        match (it.next(), it.next()) {
            (Some(Ok(threads)), Some(Ok(warp))) if warp > 0 => {
                keys.put(
                    "gpu.warps_per_sm",
                    Val::from(threads / warp),
                    "gpgpu_shader_core_pipeline",
                )?;
                keys.put(
                    "gpu.warp_size",
                    Val::from(warp),
                    "gpgpu_shader_core_pipeline",
                )?;
            }
            _ => {
                return Err(ImportError::BadValue {
                    option: "gpgpu_shader_core_pipeline",
                    value: pipe.to_string(),
                    location: location(opts, "gpgpu_shader_core_pipeline"),
                    expected: "<threads per SM>:<warp size>",
                })
            }
        }
    } else {
        kept.push("gpu.warps_per_sm, gpu.warp_size: -gpgpu_shader_core_pipeline is not set".into());
    }
    if opts.get("gpgpu_shader_cta").is_some() {
        keys.put(
            "gpu.ctas_per_sm",
            Val::from(u64::from(positive(opts, "gpgpu_shader_cta", 8)?)),
            "gpgpu_shader_cta",
        )?;
    } else {
        kept.push("gpu.ctas_per_sm: -gpgpu_shader_cta is not set".into());
    }
    // The line size: the L1's cache string `[S|N:]sets:line:assoc,...` (the L2's without one).
    let cache = ["gpgpu_cache:dl1", "gpgpu_cache:dl2"]
        .into_iter()
        .find_map(|o| opts.get(o).map(|v| (o, v)));
    match cache {
        Some((option, text)) => {
            let geometry = text.split(',').next().unwrap_or("");
            let fields: Vec<&str> = geometry.split(':').collect();
            let line = match fields.as_slice() {
                [kind, _, line, _] if kind.len() == 1 => line.trim().parse::<u64>().ok(),
                [_, line, _] => line.trim().parse::<u64>().ok(),
                _ => None,
            };
            let Some(line) = line else {
                return Err(ImportError::BadValue {
                    option: if option.ends_with("dl1") {
                        "gpgpu_cache:dl1"
                    } else {
                        "gpgpu_cache:dl2"
                    },
                    value: text.to_string(),
                    location: location(opts, option),
                    expected: "a cache string `[S|N:]<sets>:<line bytes>:<ways>,...`",
                });
            };
            keys.put("gpu.line_bytes", Val::from(line), option)?;
        }
        None => {
            kept.push("gpu.line_bytes: neither -gpgpu_cache:dl1 nor -gpgpu_cache:dl2 is set".into())
        }
    }

    // DRAM.
    let t = &d.timing;
    let x = &d.derived;
    keys.put(
        "dram.channels",
        Val::from(u64::from(d.channels)),
        "gpgpu_n_mem",
    )?;
    keys.put(
        "dram.sub_partitions",
        Val::from(u64::from(d.sub_partitions_per_channel)),
        "gpgpu_n_sub_partition_per_mchannel",
    )?;
    keys.put(
        "dram.address_map",
        Val::from(toml::Value::String(
            opts.get("gpgpu_mem_addr_mapping")
                .unwrap_or("")
                .trim()
                .to_string(),
        )),
        "gpgpu_mem_addr_mapping",
    )?;
    keys.put(
        "dram.bank_xor",
        Val::from(toml::Value::Boolean(d.address_map.bank_xor())),
        "dram_bnk_indexing_policy",
    )?;
    keys.put(
        "dram.partition_indexing",
        Val::from(toml::Value::String(
            d.address_map.partition_hash().name().to_string(),
        )),
        "gpgpu_memory_partition_indexing",
    )?;
    keys.put(
        "dram.banks",
        Val::from(u64::from(d.address_map.banks())),
        "gpgpu_mem_addr_mapping",
    )?;
    keys.put(
        "dram.bank_groups",
        Val::from(u64::from(t.nbkgrp)),
        "gpgpu_dram_timing_opt",
    )?;
    keys.put_from(
        "dram.atom_bytes",
        Val::from(u64::from(d.atom_size)),
        &[
            "gpgpu_dram_burst_length",
            "gpgpu_dram_buswidth",
            "gpgpu_n_mem_per_ctrlr",
        ],
    )?;
    keys.put(
        "dram.clock_mhz",
        rounded(d.dram_clock_mhz),
        "gpgpu_clock_domains",
    )?;
    let timing_opt = "gpgpu_dram_timing_opt";
    keys.put_from(
        "dram.t_bl",
        Val::from(u64::from(x.burst_cycles)),
        &["gpgpu_dram_burst_length", "dram_data_command_freq_ratio"],
    )?;
    keys.put("dram.t_rcd", Val::from(u64::from(t.t_rcd)), timing_opt)?;
    keys.put(
        "dram.t_rcdwr",
        Val::from(u64::from(x.t_rcdwr.max(1))),
        timing_opt,
    )?;
    keys.put("dram.t_rp", Val::from(u64::from(t.t_rp)), timing_opt)?;
    keys.put("dram.t_ras", Val::from(u64::from(t.t_ras)), timing_opt)?;
    keys.put("dram.t_rc", Val::from(u64::from(t.t_rc)), timing_opt)?;
    keys.put("dram.t_cl", Val::from(u64::from(t.cl)), timing_opt)?;
    keys.put("dram.t_cwl", Val::from(u64::from(t.wl)), timing_opt)?;
    keys.put("dram.t_ccds", Val::from(u64::from(t.t_ccd)), timing_opt)?;
    let ccdl = if t.nbkgrp > 1 && t.t_ccdl > 0 {
        t.t_ccdl
    } else {
        t.t_ccd
    };
    keys.put("dram.t_ccdl", Val::from(u64::from(ccdl)), timing_opt)?;
    keys.put("dram.t_rrds", Val::from(u64::from(t.t_rrd)), timing_opt)?;
    keys.put("dram.t_rrdl", Val::from(u64::from(t.t_rrd)), timing_opt)?;
    let eliminate = flag(opts, "dram_elimnate_rw_turnaround")?;
    let wtr = if eliminate { 0 } else { t.t_cdlr };
    keys.put("dram.t_wtrs", Val::from(u64::from(wtr)), timing_opt)?;
    keys.put("dram.t_wtrl", Val::from(u64::from(wtr)), timing_opt)?;
    keys.put(
        "dram.t_rtp",
        Val::from(u64::from(x.t_rtp.max(t.t_rtpl).max(1))),
        timing_opt,
    )?;
    keys.put("dram.t_wr", Val::from(u64::from(t.t_wr)), timing_opt)?;
    keys.put(
        "dram.t_rtw",
        Val::from(if eliminate { 0u64 } else { 2 }),
        "dram_elimnate_rw_turnaround",
    )?;
    // The one option that tells a standard apart: HBM's row and column command buses
    // (decision MEM-26). GDDR5, GDDR5X and GDDR6 differ in no option GPGPU-Sim has.
    if d.dual_bus_interface {
        keys.put(
            "dram.standard",
            Val::from(toml::Value::String(DramStandard::Hbm2.name().into())),
            "dram_dual_bus_interface",
        )?;
    } else {
        kept.push(
            "dram.standard: GPGPU-Sim's options do not name the DRAM standard (only \
                -dram_dual_bus_interface 1, HBM's two command buses, marks one: hbm2)"
                .into(),
        );
    }
    kept.push("dram.t_faw: GPGPU-Sim has no four-activate window".into());
    kept.push("dram.refresh, dram.t_refi, dram.t_rfc: GPGPU-Sim does not model refresh".into());
    kept.push(
        "dram.vdd_mv, dram.devices, dram.idd*_ma: GPGPU-Sim has no DRAM power model (set the \
            standard's datasheet values; docs/dram-timing.md lists DRAMsim3's)"
            .into(),
    );

    // The controller.
    keys.put(
        "mc.scheduler",
        Val::from(toml::Value::String(
            match d.scheduler {
                DramScheduler::Fifo => "fcfs",
                DramScheduler::FrFcfs => "frfcfs",
            }
            .into(),
        )),
        "gpgpu_dram_scheduler",
    )?;
    if d.scheduler_queue_size > 0 {
        let q = u64::from(d.scheduler_queue_size);
        // GPGPU-Sim's FR-FCFS queue holds the requests no bank has taken yet: each bank takes
        // the request it serves out of it (dram.cc, `bk[b]->mrq`), so a channel holds up to the
        // queue's size plus one request a bank. Our pending queue holds a request until its
        // column command: the same capacity is the queue plus the banks (decision CFG-5).
        keys.put(
            "mc.queue_entries",
            Val::from(q + u64::from(d.timing.nbk)),
            "gpgpu_frfcfs_dram_sched_queue_size",
        )?;
        // GPGPU-Sim's FR-FCFS queue serves reads and writes together; the drain thresholds
        // are placed at 3/4 and 1/4 of the queue (decision CFG-5).
        keys.put(
            "mc.write_high",
            Val::from((q * 3 / 4).max(1)),
            "gpgpu_frfcfs_dram_sched_queue_size",
        )?;
        keys.put(
            "mc.write_low",
            Val::from(q / 4),
            "gpgpu_frfcfs_dram_sched_queue_size",
        )?;
    } else {
        kept.push(
            "mc.queue_entries, mc.write_high, mc.write_low: -gpgpu_frfcfs_dram_sched_queue_size 0 \
                is unlimited"
                .into(),
        );
    }

    // The SM: its L1, schedulers, coalescer and latencies.
    if let Some(v) = cache_value(opts, "gpgpu_cache:dl1", "gpu.l1_cache", &mut kept)? {
        keys.put("gpu.l1_cache", Val::from(v), "gpgpu_cache:dl1")?;
    }
    for (key, option) in [
        ("gpu.l1_latency", "gpgpu_l1_latency"),
        ("gpu.schedulers", "gpgpu_num_sched_per_core"),
        ("gpu.coalesce_arch", "gpgpu_coalesce_arch"),
        ("gpu.warp_parts", "gpgpu_shmem_warp_parts"),
        ("gpu.shared_latency", "gpgpu_smem_latency"),
        ("gpu.registers", "gpgpu_shader_registers"),
        ("gpu.shmem_bytes", "gpgpu_shmem_size"),
    ] {
        if opts.get(option).is_some() {
            keys.put(key, Val::from(u64::from(uint(opts, option, 0)?)), option)?;
        } else {
            kept.push(format!("{key}: -{option} is not set"));
        }
    }
    let two_level = |v: &str| -> Option<u64> {
        let f: Vec<&str> = v.strip_prefix("two_level_active:")?.split(':').collect();
        match f[..] {
            [n, "0", "1"] => n.trim().parse().ok(),
            _ => None,
        }
    };
    match opts.get("gpgpu_scheduler").map(str::trim) {
        Some(v @ ("lrr" | "gto")) => keys.put(
            "gpu.scheduler",
            Val::from(toml::Value::String(v.into())),
            "gpgpu_scheduler",
        )?,
        Some(v) => match two_level(v) {
            Some(n) => {
                keys.put(
                    "gpu.scheduler",
                    Val::from(toml::Value::String("two-level".into())),
                    "gpgpu_scheduler",
                )?;
                keys.put("gpu.active_warps", Val::from(n), "gpgpu_scheduler")?;
            }
            None => kept.push(format!(
                "gpu.scheduler: -gpgpu_scheduler {v} is not modelled (lrr, gto and \
                    two_level_active:N:0:1 are)"
            )),
        },
        None => kept.push("gpu.scheduler: -gpgpu_scheduler is not set".into()),
    }
    if opts.get("gpgpu_gmem_skip_L1D").is_some() {
        keys.put(
            "gpu.skip_l1",
            Val::from(toml::Value::Boolean(flag(opts, "gpgpu_gmem_skip_L1D")?)),
            "gpgpu_gmem_skip_L1D",
        )?;
    }
    flag_or_kept(&mut keys, &mut kept, "gpu.flush_l1", "gpgpu_flush_l1_cache")?;
    unified_l1(&mut keys, &mut kept)?;
    // GPGPU-Sim's default is one bank; its banks interleave 32-byte sectors, linearly, which
    // is what gpu.l1_banks models (decision GPU-34).
    let banks = positive(opts, "gpgpu_l1_banks", 1)?;
    keys.put(
        "gpu.l1_banks",
        Val::from(u64::from(banks)),
        "gpgpu_l1_banks",
    )?;
    for (option, default, what) in [
        (
            "gpgpu_l1_banks_byte_interleaving",
            32,
            "32 (sectors interleaved)",
        ),
        ("gpgpu_l1_banks_hashing_function", 0, "0 (linear)"),
    ] {
        let v = uint(opts, option, default)?;
        if v != default {
            return Err(ImportError::BadValue {
                option,
                value: v.to_string(),
                location: location(opts, option),
                expected: what,
            });
        }
    }
    // GPGPU-Sim's default launch latency is 0: a file without the option launches at once.
    keys.put(
        "gpu.kernel_launch_latency",
        Val::from(u64::from(uint(opts, "gpgpu_kernel_launch_latency", 0)?)),
        "gpgpu_kernel_launch_latency",
    )?;
    // (Where unset, kept: GPGPU-Sim 4.x fills by default; 3.2.2 has no such option, no fill.)
    flag_or_kept(
        &mut keys,
        &mut kept,
        "l2.fill_on_copy",
        "gpgpu_perf_sim_memcpy",
    )?;
    // Execution units: what Accel-Sim's trace-driven model runs traces with, else the first
    // fields (add and the like) of a PTX-mode file's tables.
    exec_units(opts, &mut keys, &mut kept)?;

    // The memory partitions and the clock domains.
    if let Some(v) = cache_value(opts, "gpgpu_cache:dl2", "l2.cache", &mut kept)? {
        keys.put("l2.cache", Val::from(v), "gpgpu_cache:dl2")?;
    }
    // GPGPU-Sim 3.2.2 names the ROP latency `-rop_latency`; both default to 85.
    let rop = if opts.get("gpgpu_l2_rop_latency").is_some() || opts.get("rop_latency").is_none() {
        "gpgpu_l2_rop_latency"
    } else {
        "rop_latency"
    };
    keys.put(
        "l2.rop_latency",
        Val::from(u64::from(uint(opts, rop, 85)?)),
        rop,
    )?;
    keys.put(
        "l2.dram_latency",
        Val::from(u64::from(uint(opts, "dram_latency", 30)?)),
        "dram_latency",
    )?;
    const QUEUES: &str = "gpgpu_dram_partition_queues";
    let queues = opts.get(QUEUES).unwrap_or("8:8:8:8");
    let depths: Vec<u64> = queues
        .trim()
        .split(':')
        .filter_map(|f| f.trim().parse::<u64>().ok())
        .filter(|&v| v > 0)
        .collect();
    let [i2l, l2d, d2l, l2i] = depths[..] else {
        return Err(ImportError::BadValue {
            option: QUEUES,
            value: queues.to_string(),
            location: location(opts, QUEUES),
            expected: "<icnt-to-L2>:<L2-to-DRAM>:<DRAM-to-L2>:<L2-to-icnt> queue depths, each >= 1",
        });
    };
    keys.put("l2.icnt_to_l2", Val::from(i2l), QUEUES)?;
    keys.put("l2.l2_to_dram", Val::from(l2d), QUEUES)?;
    keys.put("l2.dram_to_l2", Val::from(d2l), QUEUES)?;
    keys.put("l2.l2_to_icnt", Val::from(l2i), QUEUES)?;
    for (key, mhz) in ["clocks.core_khz", "clocks.icnt_khz", "clocks.l2_khz"]
        .into_iter()
        .zip(&d.clocks_mhz)
    {
        keys.put(key, rounded(mhz * 1000.0), "gpgpu_clock_domains")?;
    }

    let mut icnt_notes = Vec::new();
    icnt_layer(opts, &mut keys, &mut icnt_notes)?;

    let mut unmodelled = d.unmodelled.clone();
    unmodelled.extend(icnt_notes);
    if t.nbk != d.address_map.banks() {
        unmodelled.push(format!(
            "-gpgpu_dram_timing_opt nbk = {} while the address map addresses {} banks: dram.banks \
                = {}",
            t.nbk,
            d.address_map.banks(),
            d.address_map.banks()
        ));
    }
    if t.t_rtpl > x.t_rtp {
        unmodelled.push(format!(
            "-gpgpu_dram_timing_opt RTPL = {} (read to precharge within a bank group) is applied \
                per bank: dram.t_rtp = {}",
            t.t_rtpl, t.t_rtpl
        ));
    }
    if x.t_rcdwr == 0 {
        unmodelled.push(
            "tRCDWR = RCD - (WL + 1) is 0: dram.t_rcdwr = 1 (the smallest legal value)".into(),
        );
    }
    let ignored = opts
        .iter()
        .filter(|(name, _)| !READ.contains(name) && !exec_unit_option(name))
        .map(|(name, v)| IgnoredOption {
            option: format!("-{name}"),
            value: v.value.clone(),
            location: format!("{} line {}", v.source, v.line),
        })
        .collect();
    Ok(ImportReport {
        imported: keys.imported,
        kept,
        unmodelled,
        ignored,
    })
}

#[cfg(test)]
#[path = "gpgpusim_tests.rs"]
mod tests;
