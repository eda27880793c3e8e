//! warpsmith SystemVerilog generator.
//!
//! Reads a validated [`spec::Spec`] (and nothing of the golden model): a block's interface —
//! parameters, enumerations, ports — comes from its spec section; this crate decides how each is
//! spelt in SystemVerilog ([`view`]) and renders the askama templates in `templates/`: one
//! package template shared by every block, each block's module, the primitives it instantiates
//! (`templates/prim/`, [`Prim`]) and the assertion macros (`ws_assert.svh`), plus a Verilator
//! filelist and a FuseSoC core of them. Templates hold no arithmetic and no decisions. Output is
//! deterministic: the same spec gives byte-identical files, each opening with a header that
//! names the generator version, the configuration and its hash; no line is wider than
//! [`MAX_COLUMNS`].
//!
//! [`sv`]: SystemVerilog identifiers and literals that cannot be malformed.

pub mod sv;
mod view;

pub use view::{sv_enum_type, sv_param, MAX_COLUMNS};

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

/// Whether a generated RTL file is a source to compile (`.sv`) rather than a file the sources
/// include (`ws_assert.svh`, found through the include path: the sources' own folder).
pub fn is_source(name: &str) -> bool {
    name.ends_with(".sv")
}

/// The RTL of one block for one spec.
#[derive(Debug, Clone)]
pub struct Generated {
    pub block: String,
    /// Top module name.
    pub top: String,
    /// The package's file name.
    pub package: String,
    /// RTL files in compilation order: the assertion macros (an include file), the package, the
    /// primitives (each after those it instantiates), the module.
    pub files: Vec<GeneratedFile>,
    /// `<block>.f`: the sources in compilation order for `verilator -f` / `-F`.
    pub filelist: GeneratedFile,
    /// `<block>.core`: a FuseSoC (CAPI2) core of the same files.
    pub core: GeneratedFile,
    /// The core's VLNV name (`warpsmith:tiny:ot:0.1.0`).
    pub core_name: String,
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
    /// Every file written beside the manifest: RTL in compilation order, filelist, core.
    files: Vec<ManifestFile<'a>>,
    filelist: &'a str,
    core: &'a str,
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
    header_titled(spec, t, file, t.title)
}

fn header_titled(spec: &Spec, t: &Target, file: &str, title: &str) -> HeaderView {
    HeaderView {
        file: file.to_string(),
        title: title.to_string(),
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

/// A primitive of the library in `templates/prim/`: a parameterized module that blocks
/// instantiate (lowRISC-style `prim_` modules under the `ws_` convention). Each block's output
/// holds the primitives it uses, named with its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prim {
    /// `ws_prim_first_one`: the lowest set bit of a vector (priority encoder).
    FirstOne,
    /// `ws_prim_match`: fully associative lookup (valid and tag equal to a key): match vector,
    /// hit and the lowest matching entry.
    Match,
    /// `ws_prim_rank_lru`: true-LRU ranks of NumSets x NumWays ways with victim selection
    /// (first invalid way, else the least recently used).
    RankLru,
    /// `ws_prim_rr_first`: round-robin search, the first set bit from a pointer, wrapping.
    RrFirst,
}

impl Prim {
    /// Every primitive, each after the primitives it instantiates (compilation order).
    pub const ALL: [Prim; 4] = [Prim::FirstOne, Prim::Match, Prim::RankLru, Prim::RrFirst];

    /// The module name without a prefix.
    pub const fn base(self) -> &'static str {
        match self {
            Prim::FirstOne => "ws_prim_first_one",
            Prim::Match => "ws_prim_match",
            Prim::RankLru => "ws_prim_rank_lru",
            Prim::RrFirst => "ws_prim_rr_first",
        }
    }

    const fn title(self) -> &'static str {
        match self {
            Prim::FirstOne => "primitive: lowest set bit (priority encoder)",
            Prim::Match => "primitive: fully associative lookup",
            Prim::RankLru => "primitive: true-LRU ranks with victim selection",
            Prim::RrFirst => "primitive: round-robin search",
        }
    }

    /// The primitives this one instantiates.
    pub const fn uses(self) -> &'static [Prim] {
        match self {
            Prim::Match | Prim::RankLru => &[Prim::FirstOne],
            Prim::FirstOne | Prim::RrFirst => &[],
        }
    }
}

/// The names the templates instantiate the primitives by (`{{ prim.first_one }}`), prefixed
/// like the module.
struct PrimNames {
    first_one: SvIdent,
    matcher: SvIdent,
    rank_lru: SvIdent,
    rr_first: SvIdent,
}

impl PrimNames {
    fn new(prefix: &str) -> Result<PrimNames, GenError> {
        let name = |p: Prim| SvIdent::new(&format!("{prefix}{}", p.base()));
        Ok(PrimNames {
            first_one: name(Prim::FirstOne)?,
            matcher: name(Prim::Match)?,
            rank_lru: name(Prim::RankLru)?,
            rr_first: name(Prim::RrFirst)?,
        })
    }
}

/// Declares a primitive's template view.
macro_rules! prim_view {
    ($name:ident, $path:literal) => {
        #[derive(Template)]
        #[template(path = $path, escape = "none")]
        struct $name {
            h: HeaderView,
            module: SvIdent,
            // Not every primitive instantiates another.
            #[allow(dead_code)]
            prim: PrimNames,
        }
    };
}

prim_view!(FirstOneView, "prim/ws_prim_first_one.sv");
prim_view!(MatchView, "prim/ws_prim_match.sv");
prim_view!(RankLruView, "prim/ws_prim_rank_lru.sv");
prim_view!(RrFirstView, "prim/ws_prim_rr_first.sv");

/// Render one primitive.
fn render_prim(p: Prim, h: HeaderView, prefix: &str) -> Result<String, GenError> {
    let module = SvIdent::new(&format!("{prefix}{}", p.base()))?;
    let prim = PrimNames::new(prefix)?;
    Ok(match p {
        Prim::FirstOne => FirstOneView { h, module, prim }.render()?,
        Prim::Match => MatchView { h, module, prim }.render()?,
        Prim::RankLru => RankLruView { h, module, prim }.render()?,
        Prim::RrFirst => RrFirstView { h, module, prim }.render()?,
    })
}

/// The assertion macros (`templates/prim/ws_assert.svh`).
#[derive(Template)]
#[template(path = "prim/ws_assert.svh", escape = "none")]
struct AssertView {
    h: HeaderView,
    /// Include guard, prefixed like the module.
    guard: String,
}

/// The Verilator filelist (`templates/common/filelist.f`).
#[derive(Template)]
#[template(path = "common/filelist.f", escape = "none")]
struct FilelistView {
    h: HeaderView,
    top: String,
    sources: Vec<String>,
}

/// The FuseSoC core (`templates/common/block.core`).
#[derive(Template)]
#[template(path = "common/block.core", escape = "none")]
struct CoreView {
    h: HeaderView,
    top: String,
    vlnv: String,
    /// A YAML double-quoted string (JSON's quoting).
    description: String,
    includes: Vec<String>,
    sources: Vec<String>,
}

/// A VLNV part (FuseSoC: letters, digits, `.`, `-`, `_`): anything else becomes `_`.
fn vlnv_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
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
            assert_svh: String,
            prim: PrimNames,
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
                    assert_svh: p.assert_svh,
                    prim: p.prim,
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
    /// The primitives its module instantiates (with those they instantiate: [`Prim::uses`]).
    prims: &'static [Prim],
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
    prims: &[Prim::Match, Prim::FirstOne, Prim::RankLru],
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
    prims: &[Prim::RrFirst],
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
    prims: &[Prim::RrFirst, Prim::FirstOne],
};

const MT_HWP: BlockRtl = BlockRtl {
    pkg: "ws_mt_hwp_pkg",
    top: "ws_mt_hwp",
    description: "Package of the MT-HWP prefetch engine: the configuration it was generated for \
        and the types on\n// its interface.",
    naming: Naming {
        param_prefix: "Hwp",
        enum_prefixes: &[("pf_src", "PfSrc")],
    },
    prims: &[Prim::Match, Prim::RankLru],
};

/// The primitives a block's output holds: those its module instantiates and those they do, in
/// compilation order.
fn prims_of(b: &BlockRtl) -> Vec<Prim> {
    Prim::ALL
        .into_iter()
        .filter(|p| b.prims.iter().any(|q| q == p || q.uses().contains(p)))
        .collect()
}

/// The parts of a block's module view.
struct ModuleParts {
    h: HeaderView,
    module: SvIdent,
    pkg: SvIdent,
    params: Vec<ParamView>,
    derived: Vec<ParamView>,
    ports: Vec<PortView>,
    /// The macro that leaves the assertions out (`WS_ASSERTS_OFF`, prefixed like the module).
    asserts_off: String,
    /// The assertion macros' file (`ws_assert.svh`, prefixed like the module).
    assert_svh: String,
    prim: PrimNames,
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
    let assert_svh = format!("{}ws_assert.svh", t.prefix);
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
        assert_svh: assert_svh.clone(),
        prim: PrimNames::new(t.prefix)?,
    };
    let asserts = AssertView {
        h: header_titled(spec, t, &assert_svh, "assertion macros"),
        guard: SvIdent::new(&format!("{}WS_ASSERT_SVH", t.prefix.to_ascii_uppercase()))?
            .to_string(),
    };
    let mut files = vec![
        GeneratedFile {
            name: assert_svh.clone(),
            contents: asserts.render()? + "\n",
        },
        GeneratedFile {
            name: pkg_file.clone(),
            contents: pkg.render()? + "\n",
        },
    ];
    for p in prims_of(b) {
        let name = format!("{}{}.sv", t.prefix, p.base());
        let h = header_titled(spec, t, &name, p.title());
        files.push(GeneratedFile {
            contents: render_prim(p, h, t.prefix)? + "\n",
            name,
        });
    }
    files.push(GeneratedFile {
        name: top_file,
        contents: module(parts)? + "\n",
    });
    let sources: Vec<String> = files
        .iter()
        .filter(|f| is_source(&f.name))
        .map(|f| f.name.clone())
        .collect();
    let includes: Vec<String> = files
        .iter()
        .filter(|f| !is_source(&f.name))
        .map(|f| f.name.clone())
        .collect();
    let stem = format!("{}{}", t.prefix, t.block);
    let filelist_name = format!("{stem}.f");
    let filelist = GeneratedFile {
        contents: FilelistView {
            h: header_titled(spec, t, &filelist_name, "Verilator filelist"),
            top: top_name.clone(),
            sources: sources.clone(),
        }
        .render()?
            + "\n",
        name: filelist_name,
    };
    let core_name = format!(
        "warpsmith:{}:{}:{VERSION}",
        vlnv_part(&spec.name),
        vlnv_part(&stem)
    );
    let core_file = format!("{stem}.core");
    let core = GeneratedFile {
        contents: CoreView {
            h: header(spec, t, &core_file),
            top: top_name.clone(),
            vlnv: core_name.clone(),
            // A JSON string is a YAML double-quoted scalar.
            description: serde_json::to_string(t.title).unwrap_or_default(),
            includes,
            sources,
        }
        .render()?
            + "\n",
        name: core_file,
    };
    Ok(finish(
        spec,
        t,
        Outputs {
            top: top_name,
            package: pkg_file,
            files,
            filelist,
            core,
            core_name,
        },
        iface,
    ))
}

/// What [`finish`] adds the manifest to.
struct Outputs {
    top: String,
    package: String,
    files: Vec<GeneratedFile>,
    filelist: GeneratedFile,
    core: GeneratedFile,
    core_name: String,
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

fn finish(spec: &Spec, t: &Target, o: Outputs, iface: &Interface) -> Generated {
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
        top: &o.top,
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
        files: o
            .files
            .iter()
            .chain([&o.filelist, &o.core])
            .map(|f| ManifestFile {
                name: &f.name,
                sha256: sha256_hex(f.contents.as_bytes()),
            })
            .collect(),
        filelist: &o.filelist.name,
        core: &o.core_name,
        resolved_config: spec.to_toml(),
    };
    // Serializing plain strings and numbers cannot fail.
    let manifest = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";
    Generated {
        block: t.block.to_string(),
        top: o.top,
        package: o.package,
        files: o.files,
        filelist: o.filelist,
        core: o.core,
        core_name: o.core_name,
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

    /// Every file of the block's folder, as (name, contents): the RTL, the filelist, the core
    /// and the manifest.
    pub fn all_files(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .files
            .iter()
            .chain([&self.filelist, &self.core])
            .map(|f| (f.name.clone(), f.contents.clone()))
            .collect();
        v.push(("manifest.json".into(), self.manifest.clone()));
        v
    }

    /// The RTL files as (name, contents), in compilation order (the include file first: a tool
    /// compiles the [`is_source`] ones with the folder they are written to on its include path).
    pub fn rtl(&self) -> Vec<(String, String)> {
        self.files
            .iter()
            .map(|f| (f.name.clone(), f.contents.clone()))
            .collect()
    }
}
