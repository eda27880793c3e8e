//! One source of truth for parameters.
//!
//! A [`UserConfig`] is assembled from layers — a built-in preset, then an optional TOML file,
//! then `--set key=value` overrides — and validated once into a [`Spec`] that holds every
//! derived width. Everything downstream (golden models, RTL generation, co-simulation, cost)
//! reads the `Spec`; nothing re-derives. A `Spec` that exists is legal: rendering it cannot fail.

mod config;
mod dispatch;
pub mod keys;
mod mc;
mod ot;

pub use config::{GpuConfig, OtConfig, Replacement, UserConfig};
pub use dispatch::{DispatchConfig, DispatchPolicy, DispatchSpec};
pub use mc::{
    BankCmd, Class, DramConfig, DramSpec, DramStandard, DramTiming, McConfig, McSpec, Scheduler,
    WarpedMcConfig, WarpedMcSpec,
};
pub use ot::{Dir, FieldSpec, OtEvent, OtSpec, PortSpec, SvWidth};

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a configuration was rejected. Every variant names the key, the value and what is legal.
#[derive(Debug, Error)]
pub enum SpecError {
    #[error("unknown preset `{name}`; available presets: {available}")]
    UnknownPreset { name: String, available: String },
    #[error("unknown configuration key `{key}`{hint} (run `warpsmith describe` for the list)")]
    UnknownKey { key: String, hint: String },
    #[error("`{key}` = {value} is out of range: legal values are {legal}")]
    OutOfRange {
        key: &'static str,
        value: String,
        legal: String,
    },
    #[error("`{key}` = {value} is not a {expected} (legal values are {legal})")]
    WrongType {
        key: String,
        value: String,
        expected: &'static str,
        legal: String,
    },
    #[error("inconsistent configuration: {message}")]
    Inconsistent { message: String },
    #[error("malformed override `{text}`: expected KEY=VALUE, e.g. `--set ot.entries=256`")]
    BadOverride { text: String },
    #[error("cannot read config file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path} is not valid TOML: {message}")]
    Toml { path: PathBuf, message: String },
}

/// The hardware blocks warpsmith generates, models and co-simulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Block {
    /// Observation-table address predictor (seed 000).
    Ot,
    /// Warped-MC scheduling tables (seed 004).
    WarpedMc,
    /// Locality-aware thread-block dispatcher, decision unit (seed 002).
    Dispatch,
}

impl Block {
    pub const ALL: &'static [Block] = &[Block::Ot, Block::WarpedMc, Block::Dispatch];

    /// Name on the command line (`--block NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Block::Ot => "ot",
            Block::WarpedMc => "warped-mc",
            Block::Dispatch => "dispatch",
        }
    }

    pub fn from_name(name: &str) -> Option<Block> {
        Block::ALL.iter().copied().find(|b| b.name() == name)
    }

    /// One-line description.
    pub fn title(self) -> &'static str {
        match self {
            Block::Ot => "observation-table address predictor (seed 000)",
            Block::WarpedMc => "Warped-MC warp-aware memory-controller tables (seed 004)",
            Block::Dispatch => "locality-aware thread-block dispatcher (seed 002)",
        }
    }
}

impl std::fmt::Display for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A built-in named configuration.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    pub toml: &'static str,
}

/// The preset used when none is named.
pub const DEFAULT_PRESET: &str = "fermi-gtx480";

/// All built-in presets. Each gives every key (a test checks the key sets are identical).
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "fermi-gtx480",
        summary: "seed 000 Table II/III: GTX480, 15 SMs x 48 warps, 1024-entry fully associative LRU OT, threshold 64, 4 addresses/entry",
        toml: include_str!("../../presets/fermi-gtx480.toml"),
    },
    Preset {
        name: "turing-rtx2060s",
        summary: "seed 004 Table 2/3: RTX 2060 Super-like, 32 SMs x 32 warps, 16 GDDR6 channels x 16 banks, 1 KB rows; Warped-MC tables 1,408 B per controller",
        toml: include_str!("../../presets/turing-rtx2060s.toml"),
    },
    Preset {
        name: "tiny",
        summary: "small tables for fast tests: 16-entry 4-way tree-PLRU OT, 2 addresses/entry, threshold 3",
        toml: include_str!("../../presets/tiny.toml"),
    },
];

/// Find a preset by name.
pub fn preset(name: &str) -> Result<&'static Preset, SpecError> {
    PRESETS
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| SpecError::UnknownPreset {
            name: name.to_string(),
            available: PRESETS
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Where a configuration comes from: preset, then file, then overrides.
#[derive(Debug, Clone, Default)]
pub struct ConfigRequest {
    pub preset: Option<String>,
    pub file: Option<PathBuf>,
    pub overrides: Vec<String>,
}

impl ConfigRequest {
    pub fn preset(name: &str) -> Self {
        ConfigRequest {
            preset: Some(name.to_string()),
            ..Default::default()
        }
    }

    /// Add one `key=value` override.
    pub fn with(mut self, kv: &str) -> Self {
        self.overrides.push(kv.to_string());
        self
    }

    /// Assemble the layers into a validated [`Spec`].
    pub fn resolve(&self) -> Result<Spec, SpecError> {
        let preset_name = self.preset.as_deref().unwrap_or(DEFAULT_PRESET);
        let base = preset(preset_name)?;
        let mut table: toml::Table = toml::from_str(base.toml).map_err(|e| SpecError::Toml {
            path: PathBuf::from(format!("<preset {}>", base.name)),
            message: e.to_string(),
        })?;
        let mut name = base.name.to_string();
        if let Some(path) = &self.file {
            let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
                path: path.clone(),
                source,
            })?;
            let file: toml::Table = toml::from_str(&text).map_err(|e| SpecError::Toml {
                path: path.clone(),
                message: e.to_string(),
            })?;
            merge_file(&mut table, &file, "")?;
            name = format!("{name}+{}", file_stem(path));
        }
        for kv in &self.overrides {
            apply_override(&mut table, kv)?;
        }
        if !self.overrides.is_empty() {
            name.push_str("+set");
        }
        let config = config_from_table(table)?;
        Spec::new(name, config)
    }
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into())
}

/// Overlay a file's keys on the preset table; every key must already exist.
fn merge_file(base: &mut toml::Table, file: &toml::Table, prefix: &str) -> Result<(), SpecError> {
    for (k, v) in file {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(f)) => merge_file(b, f, &path)?,
            (Some(slot), _) if !slot.is_table() && !v.is_table() => *slot = v.clone(),
            _ => return Err(unknown_key(&path)),
        }
    }
    Ok(())
}

fn unknown_key(key: &str) -> SpecError {
    let hint = keys::closest_key(key)
        .map(|k| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    SpecError::UnknownKey {
        key: key.to_string(),
        hint,
    }
}

/// Apply one `key=value` override to the table.
fn apply_override(table: &mut toml::Table, kv: &str) -> Result<(), SpecError> {
    let (key, raw) = kv.split_once('=').ok_or_else(|| SpecError::BadOverride {
        text: kv.to_string(),
    })?;
    let (key, raw) = (key.trim(), raw.trim());
    if key.is_empty() {
        return Err(SpecError::BadOverride {
            text: kv.to_string(),
        });
    }
    keys::key_info(key).ok_or_else(|| unknown_key(key))?;
    // A TOML literal if it parses as one (numbers, booleans, quoted strings), else a bare word.
    let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let mut node = table;
    let mut parts = key.split('.').peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            node.insert(part.to_string(), value);
            break;
        }
        node = match node.get_mut(part) {
            Some(toml::Value::Table(t)) => t,
            _ => return Err(unknown_key(key)),
        };
    }
    Ok(())
}

/// Check value types against the schema (for messages naming the key), then deserialize.
fn config_from_table(table: toml::Table) -> Result<UserConfig, SpecError> {
    for info in keys::KEYS {
        let mut node = Some(&table);
        let mut value = None;
        let mut parts = info.key.split('.').peekable();
        while let Some(part) = parts.next() {
            let Some(t) = node else { break };
            if parts.peek().is_none() {
                value = t.get(part);
            } else {
                node = t.get(part).and_then(|v| v.as_table());
            }
        }
        let Some(value) = value else {
            return Err(SpecError::Inconsistent {
                message: format!("key `{}` is missing", info.key),
            });
        };
        let ok = match info.legal {
            keys::Legal::OneOf(words) => value.as_str().is_some_and(|s| words.contains(&s)),
            keys::Legal::Bool => value.as_bool().is_some(),
            keys::Legal::Text => value.as_str().is_some(),
            _ => value.as_integer().is_some_and(|i| i >= 0),
        };
        if !ok {
            let expected = match info.legal {
                keys::Legal::OneOf(_) => "word",
                keys::Legal::Bool => "boolean",
                keys::Legal::Text => "string",
                _ => "non-negative integer",
            };
            return Err(SpecError::WrongType {
                key: info.key.to_string(),
                value: value.to_string(),
                expected,
                legal: info.legal.to_string(),
            });
        }
    }
    toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| SpecError::Inconsistent {
            message: e.to_string(),
        })
}

/// A short, stable hash of the resolved configuration (SHA-256 of its canonical TOML).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConfigHash(pub String);

impl std::fmt::Display for ConfigHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Derived GPU-level parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuSpec {
    pub sms: u32,
    pub warps_per_sm: u32,
    pub ctas_per_sm: u32,
    pub warp_size: u32,
    pub line_bytes: u32,
    pub line_bits: u32,
}

/// A validated configuration with every derived width. Construct with [`ConfigRequest::resolve`]
/// or [`Spec::new`]; a `Spec` that exists is legal.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Preset name plus the layers applied (`fermi-gtx480+myfile+set`).
    pub name: String,
    pub config: UserConfig,
    pub hash: ConfigHash,
    pub gpu: GpuSpec,
    pub ot: OtSpec,
    pub dram: DramSpec,
    pub mc: McSpec,
    pub wmc: WarpedMcSpec,
    pub dispatch: DispatchSpec,
}

impl Spec {
    /// Validate a configuration and derive every width.
    pub fn new(name: String, config: UserConfig) -> Result<Spec, SpecError> {
        let g = &config.gpu;
        let gpu = GpuSpec {
            sms: keys::check_int("gpu.sms", g.sms.into())? as u32,
            warps_per_sm: keys::check_int("gpu.warps_per_sm", g.warps_per_sm.into())? as u32,
            ctas_per_sm: keys::check_int("gpu.ctas_per_sm", g.ctas_per_sm.into())? as u32,
            warp_size: keys::check_int("gpu.warp_size", g.warp_size.into())? as u32,
            line_bytes: keys::check_int("gpu.line_bytes", g.line_bytes.into())? as u32,
            line_bits: g.line_bytes.trailing_zeros(),
        };
        let ot = OtSpec::new(&config.ot)?;
        let dram = DramSpec::new(&config.dram)?;
        let mc = McSpec::new(&config.mc)?;
        let wmc = WarpedMcSpec::new(&config.warped_mc, gpu.sms, gpu.warps_per_sm, &dram, &mc)?;
        let dispatch = DispatchSpec::new(&config.dispatch, gpu.sms, gpu.ctas_per_sm)?;
        let hash = ConfigHash(hash_config(&config));
        Ok(Spec {
            name,
            config,
            hash,
            gpu,
            ot,
            dram,
            mc,
            wmc,
            dispatch,
        })
    }

    /// The interface of a block's golden model and RTL.
    pub fn ports(&self, block: Block) -> Vec<PortSpec> {
        match block {
            Block::Ot => self.ot.ports(),
            Block::WarpedMc => self.wmc.ports(),
            Block::Dispatch => self.dispatch.ports(),
        }
    }

    /// The resolved configuration as TOML (what `--emit-config` writes; loadable with `--config`).
    pub fn to_toml(&self) -> String {
        format!(
            "# warpsmith resolved configuration `{}`, config hash {}\n{}",
            self.name,
            self.hash,
            canonical_toml(&self.config)
        )
    }
}

fn canonical_toml(config: &UserConfig) -> String {
    // Serializing a plain struct of integers and words cannot fail.
    toml::to_string(config).unwrap_or_default()
}

fn hash_config(config: &UserConfig) -> String {
    let digest = Sha256::digest(canonical_toml(config).as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Smallest `w` with `2^w >= n` (0 for n <= 1): the SystemVerilog `$clog2`.
pub fn clog2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

#[cfg(test)]
mod tests;
