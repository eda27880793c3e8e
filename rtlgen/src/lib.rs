//! warpsmith SystemVerilog generator.
//!
//! Reads a validated [`spec::Spec`] (and nothing of the golden model): a block's interface —
//! parameters, enumerations, ports — comes from its spec section; this crate decides how each is
//! spelt in SystemVerilog ([`view`]) and renders the askama templates in `templates/`: one
//! package template shared by every block, and each block's module. Templates hold no
//! arithmetic and no decisions. Output is deterministic: the same spec gives byte-identical
//! files, each opening with a header that names the generator version, the configuration and
//! its hash.
//!
//! [`sv`]: SystemVerilog identifiers and literals that cannot be malformed.

pub mod sv;
mod view;

pub use view::{sv_enum_type, sv_param};

use askama::Template;
use serde::Serialize;
use sha2::{Digest, Sha256};
use spec::{Dir, Interface, Role, Spec};
use std::path::Path;
use sv::SvIdent;
use thiserror::Error;
use view::{EnumView, Naming, ParamView, PortView};

/// Generator version written into every header.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Debug, Error)]
pub enum GenError {
    #[error("`{0}` is not a legal SystemVerilog identifier")]
    BadIdentifier(String),
    #[error("value {value} does not fit a {width}-bit literal")]
    LiteralTooWide { width: u32, value: u64 },
    #[error("template rendering failed: {0}")]
    Render(#[from] askama::Error),
    #[error("cannot write {path}: {error}")]
    Io { path: String, error: std::io::Error },
}

/// What the caller (the block registry) says of the block being generated.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The block's name on the command line (`ot`).
    pub block: &'a str,
    /// One-line description for file headers.
    pub title: &'a str,
    /// Prepended to module and package names, so that two configurations of one block can be
    /// elaborated together (`cfg_a_` gives `cfg_a_ws_ot_predictor`). Empty: none.
    pub prefix: &'a str,
}

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    pub name: String,
    pub contents: String,
}

/// The RTL of one block for one spec.
#[derive(Debug, Clone)]
pub struct Generated {
    pub block: String,
    /// Top module name.
    pub top: String,
    /// Files in compilation order (package first).
    pub files: Vec<GeneratedFile>,
    /// `manifest.json` contents.
    pub manifest: String,
}

#[derive(Serialize)]
struct ManifestFile<'a> {
    name: &'a str,
    sha256: String,
}

#[derive(Serialize)]
struct ManifestPort {
    name: &'static str,
    dir: &'static str,
    width: u32,
}

#[derive(Serialize)]
struct Manifest<'a> {
    generator: String,
    block: &'a str,
    config: &'a str,
    config_hash: String,
    top: &'a str,
    parameters: serde_json::Map<String, serde_json::Value>,
    ports: Vec<ManifestPort>,
    files: Vec<ManifestFile<'a>>,
    resolved_config: String,
}

/// What the header every generated file opens with says (`templates/partials/header.sv`).
struct HeaderView {
    file: String,
    title: String,
    version: &'static str,
    config: String,
    hash: String,
    block: String,
}

fn header(spec: &Spec, t: &Target, file: &str) -> HeaderView {
    HeaderView {
        file: file.to_string(),
        title: t.title.to_string(),
        version: VERSION,
        config: spec.name.clone(),
        hash: spec.hash.to_string(),
        block: t.block.to_string(),
    }
}

#[derive(Template)]
#[template(path = "common/pkg.sv", escape = "none")]
struct PkgView {
    h: HeaderView,
    description: &'static str,
    pkg: SvIdent,
    top: SvIdent,
    enums: Vec<EnumView>,
    params: Vec<ParamView>,
}

/// Declares a block's module template view; every block's has the same fields.
macro_rules! module_view {
    ($name:ident, $path:literal) => {
        #[derive(Template)]
        #[template(path = $path, escape = "none")]
        struct $name {
            h: HeaderView,
            module: SvIdent,
            pkg: SvIdent,
            params: Vec<ParamView>,
            derived: Vec<ParamView>,
            ports: Vec<PortView>,
            asserts_off: String,
        }

        impl $name {
            fn of(p: ModuleParts) -> $name {
                $name {
                    h: p.h,
                    module: p.module,
                    pkg: p.pkg,
                    params: p.params,
                    derived: p.derived,
                    ports: p.ports,
                    asserts_off: p.asserts_off,
                }
            }
        }
    };
}

module_view!(OtModule, "ot/ws_ot_predictor.sv");
module_view!(WmcModule, "wmc/ws_warped_mc.sv");
module_view!(DispatchModule, "dispatch/ws_dispatch.sv");
module_view!(MtHwpModule, "mthwp/ws_mt_hwp.sv");

/// How rtlgen spells one block.
struct BlockRtl {
    pkg: &'static str,
    top: &'static str,
    description: &'static str,
    naming: Naming,
}

const OT: BlockRtl = BlockRtl {
    pkg: "ws_ot_pkg",
    top: "ws_ot_predictor",
    description: "Package of the observation-table (OT) address predictor: the configuration it \
        was generated\n// for and the types on its interface.",
    naming: Naming {
        param_prefix: "Ot",
        enum_prefixes: &[("ot_repl", "OtRepl"), ("ot_event", "OtEv")],
    },
};

const WMC: BlockRtl = BlockRtl {
    pkg: "ws_wmc_pkg",
    top: "ws_warped_mc",
    description: "Package of the Warped-MC tables: the configuration they were generated for and \
        the types on\n// their interface.",
    naming: Naming {
        param_prefix: "Wmc",
        enum_prefixes: &[("wmc_class", "Wmc"), ("wmc_cmd", "Wmc")],
    },
};

const DISPATCH: BlockRtl = BlockRtl {
    pkg: "ws_dispatch_pkg",
    top: "ws_dispatch",
    description: "Package of the locality-aware thread-block dispatcher: the configuration it was \
        generated for.",
    naming: Naming {
        param_prefix: "Disp",
        enum_prefixes: &[],
    },
};

/// The parts of a block's module view.
const MT_HWP: BlockRtl = BlockRtl {
    pkg: "ws_mt_hwp_pkg",
    top: "ws_mt_hwp",
    description: "Package of the MT-HWP prefetch engine: the configuration it was generated for \
        and the types on\n// its interface.",
    naming: Naming {
        param_prefix: "Hwp",
        enum_prefixes: &[("pf_src", "PfSrc")],
    },
};

struct ModuleParts {
    h: HeaderView,
    module: SvIdent,
    pkg: SvIdent,
    params: Vec<ParamView>,
    derived: Vec<ParamView>,
    ports: Vec<PortView>,
    /// The macro that leaves the assertions out (`WS_ASSERTS_OFF`, prefixed like the module).
    asserts_off: String,
}

/// Render a block: its package through the shared template, its module through `module`.
fn render(
    spec: &Spec,
    t: &Target,
    b: &BlockRtl,
    iface: &Interface,
    module: impl FnOnce(ModuleParts) -> Result<String, askama::Error>,
) -> Result<Generated, GenError> {
    let pkg_name = format!("{}{}", t.prefix, b.pkg);
    let top_name = format!("{}{}", t.prefix, b.top);
    let pkg_file = format!("{pkg_name}.sv");
    let top_file = format!("{top_name}.sv");
    let pkg = PkgView {
        h: header(spec, t, &pkg_file),
        description: b.description,
        pkg: SvIdent::new(&pkg_name)?,
        top: SvIdent::new(&top_name)?,
        enums: view::enums(iface, &b.naming)?,
        params: view::package_params(iface, &b.naming)?,
    };
    let parts = ModuleParts {
        h: header(spec, t, &top_file),
        module: SvIdent::new(&top_name)?,
        pkg: SvIdent::new(&pkg_name)?,
        params: view::params(iface, Role::Key, &b.naming)?,
        derived: view::params(iface, Role::Derived, &b.naming)?,
        ports: view::ports(&iface.ports)?,
        asserts_off: SvIdent::new(&format!("{}WS_ASSERTS_OFF", t.prefix.to_ascii_uppercase()))?
            .to_string(),
    };
    let files = vec![
        GeneratedFile {
            name: pkg_file,
            contents: pkg.render()? + "\n",
        },
        GeneratedFile {
            name: top_file,
            contents: module(parts)? + "\n",
        },
    ];
    Ok(finish(spec, t, top_name, files, iface))
}

/// The observation-table predictor (seed 000).
pub fn ot(spec: &Spec, t: &Target) -> Result<Generated, GenError> {
    render(spec, t, &OT, &spec.ot.interface(), |p| {
        OtModule::of(p).render()
    })
}

/// The Warped-MC tables (seed 004).
pub fn warped_mc(spec: &Spec, t: &Target) -> Result<Generated, GenError> {
    render(spec, t, &WMC, &spec.wmc.interface(), |p| {
        WmcModule::of(p).render()
    })
}

/// The locality-aware dispatcher's decision unit (seed 002).
pub fn dispatch(spec: &Spec, t: &Target) -> Result<Generated, GenError> {
    render(spec, t, &DISPATCH, &spec.dispatch.interface(), |p| {
        DispatchModule::of(p).render()
    })
}

/// The MT-HWP prefetch engine (seed 001).
pub fn mt_hwp(spec: &Spec, t: &Target) -> Result<Generated, GenError> {
    render(spec, t, &MT_HWP, &spec.prefetch.interface(), |p| {
        MtHwpModule::of(p).render()
    })
}

fn finish(
    spec: &Spec,
    t: &Target,
    top: String,
    files: Vec<GeneratedFile>,
    iface: &Interface,
) -> Generated {
    let mut parameters = serde_json::Map::new();
    let mut derived = serde_json::Map::new();
    for p in &iface.params {
        let v = match p.value {
            spec::ParamValue::Int(v) => serde_json::json!(v),
            spec::ParamValue::Word { word, .. } => serde_json::json!(word),
        };
        match p.role {
            Role::Key => parameters.insert(sv_param(p.name), v),
            Role::Derived | Role::Info => derived.insert(sv_param(p.name), v),
        };
    }
    parameters.insert("derived".into(), serde_json::Value::Object(derived));
    let manifest = Manifest {
        generator: format!("warpsmith {VERSION}"),
        block: t.block,
        config: &spec.name,
        config_hash: spec.hash.to_string(),
        top: &top,
        parameters,
        ports: iface
            .ports
            .iter()
            .map(|p| ManifestPort {
                name: p.name,
                dir: match p.dir {
                    Dir::In => "input",
                    Dir::Out => "output",
                },
                width: p.width(),
            })
            .collect(),
        files: files
            .iter()
            .map(|f| ManifestFile {
                name: &f.name,
                sha256: sha256_hex(f.contents.as_bytes()),
            })
            .collect(),
        resolved_config: spec.to_toml(),
    };
    // Serializing plain strings and numbers cannot fail.
    let manifest = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";
    Generated {
        block: t.block.to_string(),
        top,
        files,
        manifest,
    }
}

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Generated {
    /// Write the files and `manifest.json` into `dir` (created if missing).
    pub fn write_to(&self, dir: &Path) -> Result<(), GenError> {
        let io = |path: &Path, error| GenError::Io {
            path: path.display().to_string(),
            error,
        };
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        for (name, text) in self.all_files() {
            let p = dir.join(name);
            std::fs::write(&p, text).map_err(|e| io(&p, e))?;
        }
        Ok(())
    }

    /// All files including the manifest, as (name, contents).
    pub fn all_files(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .files
            .iter()
            .map(|f| (f.name.clone(), f.contents.clone()))
            .collect();
        v.push(("manifest.json".into(), self.manifest.clone()));
        v
    }

    /// The RTL files as (name, contents), in compilation order.
    pub fn rtl(&self) -> Vec<(String, String)> {
        self.files
            .iter()
            .map(|f| (f.name.clone(), f.contents.clone()))
            .collect()
    }
}
