//! warpsmith configuration: one source of truth for parameters.
//!
//! A configuration is assembled from layers — a built-in preset, then GPGPU-Sim option files
//! (`--gpgpusim-config`), then a TOML file (`--config`), then `--set key=value` overrides — and
//! validated once into a [`Spec`]: every key against its legal range ([`schema`], declared next
//! to its field), then the rules between keys, then every derived width. Everything downstream
//! (golden models, RTL generation, co-simulation, cost) reads the `Spec`; nothing re-derives. A
//! `Spec` that exists is legal, and it cannot be changed: a variant (another scheduler, another
//! SM count) is a new layer on top ([`Spec::variant`]), so its name and hash describe it.
//!
//! Modules: [`schema`] (every key's type, range and meaning), one module per section of the
//! configuration ([`ot`], [`predictor`], [`prefetch`], [`dispatch`], [`lws`], [`mc`], [`dram`],
//! [`mem`], [`gpu`], [`cache`] for GPGPU-Sim cache strings, [`mapping`] for the address map),
//! [`port`] (block interfaces, declared once), [`gpgpusim`] (importing GPGPU-Sim option files),
//! [`input`] and [`output`] (reading users' files, writing without losing any).

pub mod cache;
pub mod dispatch;
pub mod dram;
pub mod gpgpusim;
pub mod gpu;
pub mod input;
pub mod lws;
pub mod mapping;
pub mod mc;
pub mod mem;
pub mod ot;
pub mod output;
pub mod port;
pub mod predictor;
pub mod prefetch;
pub mod schema;

pub use dispatch::{DispatchConfig, DispatchPolicy, DispatchSpec};
pub use dram::{DramConfig, DramPower, DramSpec, DramStandard, Timing};
pub use gpu::{GpuConfig, GpuSpec};
pub use lws::{LwsConfig, LwsSpec};
pub use mc::{BankCmd, Class, McConfig, McSpec, Scheduler, WarpedMcConfig, WarpedMcSpec};
pub use mem::{ClockConfig, ClockSpec, IcntArbiter, IcntConfig, IcntSpec, L2Config, L2Spec};
pub use ot::{FieldSpec, OtConfig, OtEvent, OtSpec, Replacement};
pub use port::{Dir, Elem, EnumDecl, Interface, Param, ParamValue, PortSpec, Role};
pub use predictor::{PredictorConfig, PredictorKind, PredictorSpec};
pub use prefetch::{PfSource, PrefetchConfig, PrefetchKind, PrefetchSpec};

use schema::{KeyInfo, Rule, Section};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// Why a configuration was rejected. Every variant names the key (or file and line), the value
/// and what is legal.
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
    #[error("`{key}` = `{value}` is not a legal value: {legal}")]
    NotInSet {
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
    #[error("cannot read {what} {path}: {error}")]
    Io {
        what: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}:{line}:{column}: not valid TOML: {message}{hint}")]
    Toml {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
        hint: &'static str,
    },
    /// The option error names the file (as its `source_name`) and the line.
    #[error("{error}")]
    GpgpusimOptions {
        path: PathBuf,
        /// Boxed: the option file's errors are large and rare.
        error: Box<gpgpusim::OptionsError>,
    },
    #[error("importing {path}: {error}")]
    GpgpusimImport {
        path: PathBuf,
        error: gpgpusim::ImportError,
    },
}

/// The complete user configuration. Presets give every key; the other layers override keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserConfig {
    pub gpu: GpuConfig,
    pub ot: OtConfig,
    pub dram: DramConfig,
    pub mc: McConfig,
    pub l2: L2Config,
    pub icnt: IcntConfig,
    pub clocks: ClockConfig,
    pub warped_mc: WarpedMcConfig,
    pub dispatch: DispatchConfig,
    pub lws: LwsConfig,
    pub prefetch: PrefetchConfig,
    pub predictor: PredictorConfig,
}

impl UserConfig {
    /// Every key, in file order.
    pub fn keys() -> Vec<&'static KeyInfo> {
        let mut v = GpuConfig::keys();
        v.extend(OtConfig::keys());
        v.extend(DramConfig::keys());
        v.extend(McConfig::keys());
        v.extend(L2Config::keys());
        v.extend(IcntConfig::keys());
        v.extend(ClockConfig::keys());
        v.extend(WarpedMcConfig::keys());
        v.extend(DispatchConfig::keys());
        v.extend(LwsConfig::keys());
        v.extend(PrefetchConfig::keys());
        v.extend(PredictorConfig::keys());
        v
    }

    /// Every rule between keys, in the order they are checked.
    pub fn rules() -> impl Iterator<Item = &'static Rule> {
        gpu::RULES
            .iter()
            .chain(ot::RULES)
            .chain(dram::RULES)
            .chain(mc::MC_RULES)
            .chain(mem::RULES)
            .chain(mem::ICNT_RULES)
            .chain(mc::WMC_RULES)
            .chain(dispatch::RULES)
            .chain(prefetch::RULES)
    }
}

/// A key by its dotted name.
pub fn key_info(key: &str) -> Option<&'static KeyInfo> {
    UserConfig::keys().into_iter().find(|k| k.key == key)
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
        summary: "seed 000 Table II/III: GTX480, 15 SMs x 48 warps, 1024-entry fully associative \
            LRU OT, threshold 64, 4 addresses/entry",
        toml: include_str!("../presets/fermi-gtx480.toml"),
    },
    Preset {
        name: "turing-rtx2060s",
        summary: "seed 004 Table 2/3: RTX 2060 Super-like, 32 SMs x 32 warps, 16 GDDR6 channels x \
            16 banks, 1 KB rows; Warped-MC tables 1,408 B per controller",
        toml: include_str!("../presets/turing-rtx2060s.toml"),
    },
    Preset {
        name: "tiny",
        summary: "small tables for fast tests: 16-entry 4-way tree-PLRU OT, 2 addresses/entry, \
            threshold 3",
        toml: include_str!("../presets/tiny.toml"),
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

/// Where a configuration comes from, in layer order: preset, GPGPU-Sim option files, a TOML
/// file, then overrides.
#[derive(Debug, Clone, Default)]
pub struct ConfigRequest {
    pub preset: Option<String>,
    /// GPGPU-Sim option files (`gpgpusim.config`, then `trace.config`), read as one layered
    /// option set.
    pub gpgpusim: Vec<PathBuf>,
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
        let mut table = parse_toml(base.toml, Path::new(&format!("<preset {}>", base.name)))?;
        let mut name = base.name.to_string();
        let mut user_keys = BTreeSet::new();
        let mut import = None;
        if !self.gpgpusim.is_empty() {
            let mut opts = gpgpusim::GpgpusimOptions::default();
            for path in &self.gpgpusim {
                let text = read(path, "GPGPU-Sim config")?;
                let layer = gpgpusim::GpgpusimOptions::parse(&text, &path.display().to_string())
                    .map_err(|error| SpecError::GpgpusimOptions {
                        path: path.clone(),
                        error: Box::new(error),
                    })?;
                opts.layer(layer);
            }
            let first = &self.gpgpusim[0];
            let report = gpgpusim::layer(&opts).map_err(|error| SpecError::GpgpusimImport {
                path: first.clone(),
                error,
            })?;
            for k in &report.imported {
                set_key(&mut table, k.key, k.value.clone())?;
                user_keys.insert(k.key.to_string());
            }
            name = format!("{name}+gpgpusim:{}", gpgpusim_label(first));
            import = Some(report);
        }
        // Keys the layers above the GPGPU-Sim files set: their values are no longer the import's.
        let mut later = BTreeSet::new();
        if let Some(path) = &self.file {
            let text = read(path, "config file")?;
            let file = parse_toml(&text, path)?;
            merge_file(&mut table, &file, "", &mut later)?;
            name = format!("{name}+{}", file_stem(path));
        }
        for kv in &self.overrides {
            let key = apply_override(&mut table, kv)?;
            later.insert(key);
        }
        if !self.overrides.is_empty() {
            name.push_str("+set");
        }
        user_keys.extend(later.iter().cloned());
        let from_import: Vec<gpgpusim::ImportedKey> = import
            .as_ref()
            .map(|r| {
                r.imported
                    .iter()
                    .filter(|k| !later.contains(k.key))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        Spec::from_table(name, table, user_keys, import)
            .map_err(|e| self.imported_error(e, &from_import))
    }

    /// An error about keys a GPGPU-Sim file set names the option, its value as written, its
    /// file and line (the key's value alone may be derived from it, or one of several).
    fn imported_error(&self, e: SpecError, imported: &[gpgpusim::ImportedKey]) -> SpecError {
        let Some(first) = self.gpgpusim.first() else {
            return e;
        };
        let import = |error| SpecError::GpgpusimImport {
            path: first.clone(),
            error,
        };
        let by_key = |key: &str| imported.iter().find(|k| k.key == key);
        match &e {
            SpecError::OutOfRange { key, legal, .. } | SpecError::NotInSet { key, legal, .. } => {
                match by_key(key) {
                    Some(k) => import(k.out_of_range(legal.clone())),
                    None => e,
                }
            }
            SpecError::WrongType { key, legal, .. } => match by_key(key) {
                Some(k) => import(k.out_of_range(legal.clone())),
                None => e,
            },
            SpecError::Inconsistent { message } => {
                // The keys a rule names, each with the option that set it.
                let from: Vec<String> = imported
                    .iter()
                    .filter(|k| mentions(message, k.key))
                    .map(|k| format!("`{}` from {}", k.key, k.sources))
                    .collect();
                if from.is_empty() {
                    e
                } else {
                    import(gpgpusim::ImportError::Inconsistent {
                        message: format!("{message} ({}); fix the options", from.join("; ")),
                    })
                }
            }
            _ => e,
        }
    }
}

/// Whether `message` names the key `key` (as a whole word: `dram.t_rc` is not `dram.t_rcd`).
fn mentions(message: &str, key: &str) -> bool {
    let part =
        |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    message.match_indices(key).any(|(i, _)| {
        let next = message[i + key.len()..].chars().next();
        !part(message[..i].chars().next_back())
            && !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn read(path: &Path, what: &'static str) -> Result<String, SpecError> {
    input::read_to_string(path).map_err(|error| SpecError::Io {
        what,
        path: path.to_path_buf(),
        error,
    })
}

/// A TOML document, with line and column on error (and a hint when it looks like a GPGPU-Sim
/// option file).
fn parse_toml(text: &str, path: &Path) -> Result<toml::Table, SpecError> {
    toml::from_str(text).map_err(|e: toml::de::Error| {
        let (line, column) = e.span().map_or((0, 0), |s| line_col(text, s.start));
        let looks_gpgpusim = text
            .lines()
            .map(str::trim_start)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .is_some_and(|l| l.starts_with('-'));
        SpecError::Toml {
            path: path.to_path_buf(),
            line,
            column,
            message: e.message().to_string(),
            hint: if looks_gpgpusim {
                " (this looks like a GPGPU-Sim option file: give it with --gpgpusim-config)"
            } else {
                ""
            },
        }
    })
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into())
}

/// `RTX2060` for `.../RTX2060/gpgpusim.config`: the folder names the GPU; the file rarely does.
fn gpgpusim_label(path: &Path) -> String {
    path.canonicalize()
        .ok()
        .and_then(|p| p.parent().and_then(Path::file_name).map(|n| n.to_owned()))
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file_stem(path))
}

/// Overlay a file's keys on the table; every key must already exist.
fn merge_file(
    base: &mut toml::Table,
    file: &toml::Table,
    prefix: &str,
    set: &mut BTreeSet<String>,
) -> Result<(), SpecError> {
    for (k, v) in file {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(f)) => merge_file(b, f, &path, set)?,
            (Some(slot), _) if !slot.is_table() && !v.is_table() => {
                *slot = v.clone();
                set.insert(path);
            }
            _ => return Err(unknown_key(&path)),
        }
    }
    Ok(())
}

fn unknown_key(key: &str) -> SpecError {
    let keys = UserConfig::keys();
    let hint = schema::closest(keys.iter().map(|k| k.key), key)
        .map(|k| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    SpecError::UnknownKey {
        key: key.to_string(),
        hint,
    }
}

/// Set one existing key of the table.
fn set_key(table: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), SpecError> {
    key_info(key).ok_or_else(|| unknown_key(key))?;
    let mut node = table;
    let mut parts = key.split('.').peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            node.insert(part.to_string(), value);
            return Ok(());
        }
        node = match node.get_mut(part) {
            Some(toml::Value::Table(t)) => t,
            _ => return Err(unknown_key(key)),
        };
    }
    Err(unknown_key(key))
}

/// Apply one `key=value` override to the table; returns the key.
fn apply_override(table: &mut toml::Table, kv: &str) -> Result<String, SpecError> {
    let (key, raw) = kv.split_once('=').ok_or_else(|| SpecError::BadOverride {
        text: kv.to_string(),
    })?;
    let (key, raw) = (key.trim(), raw.trim());
    if key.is_empty() {
        return Err(SpecError::BadOverride {
            text: kv.to_string(),
        });
    }
    // A TOML literal if it parses as one (numbers, booleans, quoted strings), else a bare word.
    let value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    set_key(table, key, value)?;
    Ok(key.to_string())
}

/// The value of a dotted key in a table.
fn lookup<'a>(table: &'a toml::Table, key: &str) -> Option<&'a toml::Value> {
    let mut node = table;
    let mut parts = key.split('.').peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            return node.get(part);
        }
        node = node.get(part)?.as_table()?;
    }
    None
}

/// A short, stable hash of the resolved configuration (SHA-256 of its canonical TOML).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConfigHash(pub String);

impl std::fmt::Display for ConfigHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A validated configuration with every derived width. Construct it with
/// [`ConfigRequest::resolve`]; a `Spec` that exists is legal and cannot be changed (it reads
/// as [`Resolved`]; clones share it).
#[derive(Debug, Clone)]
pub struct Spec(Arc<Resolved>);

/// What a [`Spec`] holds.
#[derive(Debug)]
pub struct Resolved {
    /// Preset name plus the layers applied (`fermi-gtx480+myfile+set`).
    pub name: String,
    pub config: UserConfig,
    pub hash: ConfigHash,
    pub gpu: GpuSpec,
    pub ot: OtSpec,
    pub dram: DramSpec,
    pub mc: McSpec,
    pub l2: L2Spec,
    pub icnt: IcntSpec,
    pub clocks: ClockSpec,
    pub wmc: WarpedMcSpec,
    pub dispatch: DispatchSpec,
    pub lws: LwsSpec,
    pub prefetch: PrefetchSpec,
    pub predictor: PredictorSpec,
    /// Keys a layer above the preset set.
    user_keys: BTreeSet<String>,
    /// What a GPGPU-Sim layer imported and ignored.
    import: Option<gpgpusim::ImportReport>,
}

impl Deref for Spec {
    type Target = Resolved;
    fn deref(&self) -> &Resolved {
        &self.0
    }
}

impl Spec {
    /// Check every key of a complete table (type and range), deserialise, check the rules
    /// between keys and derive every width.
    fn from_table(
        name: String,
        table: toml::Table,
        user_keys: BTreeSet<String>,
        import: Option<gpgpusim::ImportReport>,
    ) -> Result<Spec, SpecError> {
        for info in UserConfig::keys() {
            let Some(value) = lookup(&table, info.key) else {
                return Err(SpecError::Inconsistent {
                    message: format!("key `{}` is missing", info.key),
                });
            };
            info.check(value)?;
        }
        let config: UserConfig =
            toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| SpecError::Inconsistent {
                    message: e.to_string(),
                })?;
        for rule in UserConfig::rules() {
            (rule.check)(&config).map_err(|message| SpecError::Inconsistent { message })?;
        }
        let gpu =
            GpuSpec::new(&config.gpu).map_err(|message| SpecError::Inconsistent { message })?;
        let ot = OtSpec::new(&config.ot);
        let dram =
            DramSpec::new(&config.dram).map_err(|message| SpecError::Inconsistent { message })?;
        let mc = McSpec::new(&config.mc);
        let l2 = L2Spec::new(&config).map_err(|message| SpecError::Inconsistent { message })?;
        let icnt = IcntSpec::new(&config);
        let clocks = ClockSpec::new(&config);
        let wmc = WarpedMcSpec::new(&config.warped_mc, &gpu, &dram, &mc);
        let dispatch = DispatchSpec::new(&config.dispatch, &gpu);
        let lws = LwsSpec::new(&config.lws, &gpu);
        let prefetch = PrefetchSpec::new(&config.prefetch, &gpu);
        let predictor = config.predictor.clone();
        let hash = ConfigHash(hash_config(&config));
        Ok(Spec(Arc::new(Resolved {
            name,
            config,
            hash,
            gpu,
            ot,
            dram,
            mc,
            l2,
            icnt,
            clocks,
            wmc,
            dispatch,
            lws,
            prefetch,
            predictor,
            user_keys,
            import,
        })))
    }

    /// Validate a complete configuration (every key is checked as if it came from a layer).
    pub fn from_config(name: impl Into<String>, config: &UserConfig) -> Result<Spec, SpecError> {
        let table = toml::Table::try_from(config).map_err(|e| SpecError::Inconsistent {
            message: e.to_string(),
        })?;
        Spec::from_table(name.into(), table, BTreeSet::new(), None)
    }

    /// This configuration with `overrides` (`key=value`) as one more layer on top. The
    /// variant's name ends in `+set` and its hash is its own.
    pub fn variant(&self, overrides: &[&str]) -> Result<Spec, SpecError> {
        let mut table =
            toml::Table::try_from(&self.config).map_err(|e| SpecError::Inconsistent {
                message: e.to_string(),
            })?;
        let mut user_keys = self.user_keys.clone();
        for kv in overrides {
            user_keys.insert(apply_override(&mut table, kv)?);
        }
        let name = if self.name.ends_with("+set") {
            self.name.clone()
        } else {
            format!("{}+set", self.name)
        };
        Spec::from_table(name, table, user_keys, self.import.clone())
    }

    /// Whether a layer above the preset (GPGPU-Sim file, TOML file, `--set`) set `key`.
    pub fn set_by_user(&self, key: &str) -> bool {
        self.user_keys.contains(key)
    }

    /// What the GPGPU-Sim layer imported and ignored, if there was one.
    pub fn import_report(&self) -> Option<&gpgpusim::ImportReport> {
        self.import.as_ref()
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
    // Serializing a plain struct of integers, words and strings cannot fail.
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
