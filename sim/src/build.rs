//! Building a Verilator model into a shared library with a generated C ABI shim.
//!
//! `verilator --cc` turns the RTL into C++; we compile that, a small generated shim (one setter
//! and getter per port, wide ports as 32-bit word arrays, clocking, VCD, assertion status) and
//! the Verilator runtime into `libws_<key>.so`, which [`crate::model::Model`] loads with
//! `libloading`. Builds are cached under [`cache_root`] keyed by a SHA-256 of the RTL (less
//! the header lines naming the configuration, [`rtlgen::without_provenance`]), the ports, the
//! flags, the shim and the tool versions, and locked so that parallel tests neither collide nor
//! build twice. The runtime objects (`verilated*.o`) are cached separately
//! and shared by every model.

use crate::toolchain::{cxx_version, Verilator};
use crate::SimError;
use sha2::{Digest, Sha256};
use spec::{Dir, PortSpec};
use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Bumped whenever the shim or the build recipe changes (invalidates every cached model).
const RECIPE: &str = "ws-shim-6";

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildRequest<'a> {
    /// RTL files (name, contents) in compilation order.
    pub files: &'a [(String, String)],
    pub top: &'a str,
    /// The ports the model must have (clock `clk_i` and reset `rst_ni` are implied).
    pub ports: &'a [PortSpec],
    /// Build with VCD tracing (about 3x slower to simulate).
    pub trace: bool,
}

/// A built (or cached) model library.
#[derive(Debug, Clone)]
pub struct BuiltModel {
    pub lib: PathBuf,
    /// Its top module.
    pub top: String,
    pub key: String,
    /// Whether this call compiled it (false: found in the cache).
    pub built_now: bool,
    /// Of the C++ units this call compiled, how many objects came from the object cache
    /// (unchanged units of another build: a mutant's, or an earlier version's).
    pub units_reused: usize,
    pub seconds: f64,
}

/// Cache folder of built models, lint and synthesis results: `$WARPSMITH_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/warpsmith`, else `$HOME/.cache/warpsmith` (the per-user cache directory),
/// else `warpsmith-cache` in the system's temporary folder. Never the source tree.
pub fn cache_root() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("WARPSMITH_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("warpsmith")))
        .or_else(|| env("HOME").map(|d| d.join(".cache/warpsmith")))
        .unwrap_or_else(|| std::env::temp_dir().join("warpsmith-cache"))
}

fn cxx() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "g++".into())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn io_err(what: &str, path: &Path, e: std::io::Error) -> SimError {
    SimError::Build(format!("{what} {}: {e}", path.display()))
}

fn run(cmd: &mut Command, what: &str) -> Result<(), SimError> {
    let out = cmd
        .output()
        .map_err(|e| SimError::Build(format!("cannot run {what}: {e}")))?;
    if !out.status.success() {
        let mut msg = String::from_utf8_lossy(&out.stderr).to_string();
        msg.push_str(&String::from_utf8_lossy(&out.stdout));
        let tail: Vec<&str> = msg.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(SimError::Build(format!(
            "{what} failed:\n{}",
            tail.join("\n")
        )));
    }
    Ok(())
}

/// An exclusive lock on a file, released on drop.
struct Lock(File);

impl Lock {
    fn take(path: &Path) -> Result<Lock, SimError> {
        let f = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| io_err("cannot open lock", path, e))?;
        f.lock().map_err(|e| io_err("cannot lock", path, e))?;
        Ok(Lock(f))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// Flags every C++ unit is compiled with.
fn cxx_flags(v: &Verilator, trace: bool) -> Vec<String> {
    let inc = v.include();
    let mut f: Vec<String> = [
        "-std=gnu++17",
        "-fPIC",
        "-O2",
        "-faligned-new",
        "-fcf-protection=none",
        "-w",
        "-DVM_COVERAGE=0",
        "-DVM_SC=0",
        "-DVM_TRACE_FST=0",
        "-DVL_USER_FATAL",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    f.push(format!("-DVM_TRACE={}", u8::from(trace)));
    f.push(format!("-DVM_TRACE_VCD={}", u8::from(trace)));
    f.push(format!("-I{}", inc.display()));
    f.push(format!("-I{}", inc.join("vltstd").display()));
    f
}

/// Forced into every unit: routes Verilator's printing into the shim's per-thread log, so that
/// assertion messages reach Rust instead of only stdout.
const PRELUDE: &str = r#"#pragma once
#ifdef __cplusplus
extern "C" int ws_vl_printf(const char* fmt, ...);
#define VL_PRINTF ws_vl_printf
#endif
"#;

/// Feed RTL files (name, contents) into a cache key: names and texts less the header lines
/// naming the configuration ([`rtlgen::without_provenance`]), so that a block a configuration
/// change leaves alone keeps its cached builds, lint and synthesis.
pub(crate) fn hash_rtl(h: &mut Sha256, files: &[(String, String)]) {
    for (name, text) in files {
        h.update(name.as_bytes());
        h.update([0]);
        h.update(rtlgen::without_provenance(text).as_bytes());
        h.update([0]);
    }
}

/// Build (or fetch from the cache) a model library.
pub fn build(v: &Verilator, req: &BuildRequest) -> Result<BuiltModel, SimError> {
    let start = Instant::now();
    let shim = shim_source(req.top, req.ports, req.trace);
    let mut h = Sha256::new();
    for part in [
        RECIPE,
        &v.version_text,
        &cxx_version(&cxx()),
        req.top,
        PRELUDE,
        &shim,
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    h.update([u8::from(req.trace)]);
    hash_rtl(&mut h, req.files);
    let key = hex(&h.finalize()[..12]);
    let root = cache_root();
    std::fs::create_dir_all(&root).map_err(|e| io_err("cannot create", &root, e))?;
    let _lock = Lock::take(&root.join(format!("{key}.lock")))?;
    let dir = root.join(&key);
    let lib = dir.join(format!("libws_{key}.so"));
    if lib.exists() {
        // The same RTL may be bound to another port list: check on every bind.
        check_ports(&dir.join("obj").join(format!("V{}.h", req.top)), req.ports)?;
        return Ok(BuiltModel {
            lib,
            top: req.top.to_string(),
            key,
            built_now: false,
            units_reused: 0,
            seconds: start.elapsed().as_secs_f64(),
        });
    }
    let tmp = root.join(format!("{key}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    let src = tmp.join("src");
    let obj = tmp.join("obj");
    std::fs::create_dir_all(&src).map_err(|e| io_err("cannot create", &src, e))?;
    let mut sv_names = Vec::new();
    for (name, text) in req.files {
        let p = src.join(name);
        std::fs::write(&p, text).map_err(|e| io_err("cannot write", &p, e))?;
        // Include files (the assertion macros) are found through the include path.
        if rtlgen::is_source(name) {
            sv_names.push(name);
        }
    }
    // Verilator runs in the sources' folder and is given their bare names: the names it writes
    // into the model (assertion messages) are then the same in every build of the same RTL, so a
    // unit's object can be reused, and a message names the file as the user has it.
    let obj = std::path::absolute(&obj).map_err(|e| io_err("cannot resolve", &obj, e))?;
    let mut cmd = Command::new(&v.bin);
    cmd.current_dir(&src);
    cmd.args([
        "--cc",
        "--assert",
        "-O3",
        "--x-assign",
        "fast",
        "--x-initial",
        "0",
    ])
    .args([
        "-Wno-fatal",
        "-Wno-lint",
        "-Wno-style",
        "--top-module",
        req.top,
    ])
    .arg("-I.")
    .arg("--Mdir")
    .arg(&obj);
    if req.trace {
        cmd.arg("--trace");
    }
    cmd.args(&sv_names);
    run(&mut cmd, "verilator")?;

    check_ports(&obj.join(format!("V{}.h", req.top)), req.ports)?;

    let prelude = tmp.join("ws_prelude.h");
    std::fs::write(&prelude, PRELUDE).map_err(|e| io_err("cannot write", &prelude, e))?;
    let shim_path = tmp.join("ws_shim.cpp");
    std::fs::write(&shim_path, &shim).map_err(|e| io_err("cannot write", &shim_path, e))?;

    let classes = read_classes(&obj)?;
    let runtime = runtime_objects(v, req.trace, &classes)?;
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&obj)
        .map_err(|e| io_err("cannot list", &obj, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    sources.sort();
    sources.push(shim_path);
    let slow = [
        make_list(&classes, "VM_CLASSES_SLOW"),
        make_list(&classes, "VM_SUPPORT_SLOW"),
    ]
    .concat();
    let mut flags = cxx_flags(v, req.trace);
    let context = unit_context(&flags, &obj)?;
    flags.push("-include".into());
    flags.push(prelude.display().to_string());
    flags.push(format!("-I{}", obj.display()));
    let units = sources
        .into_iter()
        .map(|src| {
            let stem = src.file_stem().map(|s| s.to_string_lossy().to_string());
            let slow = stem.is_some_and(|s| slow.contains(&s));
            Unit::cached(src, slow, &context)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (objs, units_reused) = compile_parallel(&units, &flags)?;
    let tmp_lib = tmp.join(format!("libws_{key}.so"));
    let mut link = Command::new(cxx());
    link.arg("-shared")
        .arg("-o")
        .arg(&tmp_lib)
        .args(&objs)
        .args(&runtime)
        .args(["-pthread", "-latomic"]);
    run(&mut link, "linking the model library")?;
    std::fs::rename(&tmp, &dir).map_err(|e| io_err("cannot move", &dir, e))?;
    Ok(BuiltModel {
        lib,
        top: req.top.to_string(),
        key,
        built_now: true,
        units_reused,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// One C++ unit to compile.
struct Unit {
    src: PathBuf,
    /// Verilator's slow code (construction, initial and settle blocks, run once) is compiled
    /// without optimisation, as Verilator's own makefile does (`OPT_SLOW` is empty there): it
    /// is up to half the compile time of a large model and none of its simulation time.
    slow: bool,
    /// Its key in the object cache (`<cache>/objects`), or `None` when it is not cached there.
    cache_key: Option<String>,
}

impl Unit {
    fn uncached(src: PathBuf) -> Unit {
        Unit {
            src,
            slow: false,
            cache_key: None,
        }
    }

    /// A model unit whose object is cached by its content in `context` ([`unit_context`]): a
    /// mutant changes one or two of a model's units, and every other unit's object is reused.
    fn cached(src: PathBuf, slow: bool, context: &[u8]) -> Result<Unit, SimError> {
        let text = std::fs::read(&src).map_err(|e| io_err("cannot read", &src, e))?;
        let mut h = Sha256::new();
        h.update(context);
        h.update([u8::from(slow)]);
        h.update(src.file_name().unwrap_or_default().as_encoded_bytes());
        h.update([0]);
        h.update(&text);
        Ok(Unit {
            src,
            slow,
            cache_key: Some(hex(&h.finalize()[..16])),
        })
    }
}

/// What every unit of a model is compiled against, as a digest: the recipe, the tool versions,
/// the flags, the prelude and every header Verilator wrote into `obj` (a unit may include any
/// of them). The paths of `obj` and of the prelude, which differ per build, are not part of it.
fn unit_context(flags: &[String], obj: &Path) -> Result<Vec<u8>, SimError> {
    let mut h = Sha256::new();
    for part in [RECIPE, &cxx_version(&cxx()), PRELUDE] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    for f in flags {
        h.update(f.as_bytes());
        h.update([0]);
    }
    let mut headers: Vec<PathBuf> = std::fs::read_dir(obj)
        .map_err(|e| io_err("cannot list", obj, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "h"))
        .collect();
    headers.sort();
    for p in headers {
        let text = std::fs::read(&p).map_err(|e| io_err("cannot read", &p, e))?;
        h.update(p.file_name().unwrap_or_default().as_encoded_bytes());
        h.update([0]);
        h.update(&text);
        h.update([0]);
    }
    Ok(h.finalize().to_vec())
}

/// Put `from` at `to`: a hard link where the file system allows, else a copy.
fn link_or_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    let _ = std::fs::remove_file(to);
    std::fs::hard_link(from, to).or_else(|_| std::fs::copy(from, to).map(|_| ()))
}

/// Compile one unit into `obj`, or take its object from the object cache (then true).
fn compile_unit(unit: &Unit, flags: &[String], obj: &Path) -> Result<bool, SimError> {
    let objects = cache_root().join("objects");
    let cached = unit
        .cache_key
        .as_ref()
        .map(|k| objects.join(format!("{k}.o")));
    if let Some(c) = cached.as_ref().filter(|c| c.exists()) {
        if link_or_copy(c, obj).is_ok() {
            return Ok(true);
        }
    }
    let mut cmd = Command::new(cxx());
    cmd.args(flags);
    if unit.slow {
        cmd.arg("-O0");
    }
    cmd.arg("-c").arg(&unit.src).arg("-o").arg(obj);
    run(&mut cmd, &format!("compiling {}", unit.src.display()))?;
    if let Some(c) = cached {
        // Best effort: a unit that cannot be cached is compiled again next time. Placed under a
        // fresh temporary name and renamed, so that a concurrent reader never sees half an
        // object; a temporary that cannot be renamed is removed.
        if std::fs::create_dir_all(&objects).is_ok() {
            let placed = tempfile::Builder::new()
                .suffix(".tmp")
                .make_in(&objects, |tmp| link_or_copy(obj, tmp));
            if let Ok(t) = placed {
                let _ = t.persist(&c);
            }
        }
    }
    Ok(false)
}

/// Compile C++ units, as many at a time as there are cores: their objects, and how many of
/// them came from the object cache.
fn compile_parallel(units: &[Unit], flags: &[String]) -> Result<(Vec<PathBuf>, usize), SimError> {
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let objs: Vec<PathBuf> = units.iter().map(|u| u.src.with_extension("o")).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let reused = std::sync::atomic::AtomicUsize::new(0);
    let errors = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(unit) = units.get(i) else { break };
                match compile_unit(unit, flags, &objs[i]) {
                    Ok(true) => {
                        reused.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                    Ok(false) => {}
                    Err(e) => {
                        errors.lock().map(|mut v| v.push(e.to_string())).ok();
                    }
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap_or_default();
    if let Some(e) = errors.into_iter().next() {
        return Err(SimError::Build(e));
    }
    Ok((objs, reused.into_inner()))
}

/// A model's `_classes.mk`: Verilator's lists of the units it wrote and the runtime it needs.
fn read_classes(obj: &Path) -> Result<String, SimError> {
    let classes = std::fs::read_dir(obj)
        .map_err(|e| io_err("cannot list", obj, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.to_string_lossy().ends_with("_classes.mk"))
        .ok_or_else(|| SimError::Build("verilator wrote no _classes.mk".into()))?;
    std::fs::read_to_string(&classes).map_err(|e| io_err("cannot read", &classes, e))
}

/// The names a `_classes.mk` list holds: `VAR += \` followed by one name per continued line.
fn make_list(classes: &str, var: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut lines = classes.lines().map(str::trim);
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix(var) else {
            continue;
        };
        if !rest.trim_start().starts_with("+=") || !line.ends_with('\\') {
            continue;
        }
        for item in lines.by_ref() {
            let name = item.trim_end_matches('\\').trim();
            if !name.is_empty() {
                names.push(name.to_string());
            }
            if !item.ends_with('\\') {
                break;
            }
        }
    }
    names
}

/// The Verilator runtime units a model needs (read from its `_classes.mk`), compiled once per
/// Verilator version and flag set.
fn runtime_objects(v: &Verilator, trace: bool, classes: &str) -> Result<Vec<PathBuf>, SimError> {
    let mut names = [
        make_list(classes, "VM_GLOBAL_FAST"),
        make_list(classes, "VM_GLOBAL_SLOW"),
    ]
    .concat();
    if trace && !names.iter().any(|n| n == "verilated_vcd_c") {
        names.push("verilated_vcd_c".into());
    }
    names.sort();
    names.dedup();
    let flags = cxx_flags(v, trace);
    let mut h = Sha256::new();
    for part in [RECIPE, &v.version_text, &cxx_version(&cxx()), PRELUDE] {
        h.update(part.as_bytes());
    }
    for f in flags.iter().chain(names.iter()) {
        h.update(f.as_bytes());
        h.update([0]);
    }
    let rkey = hex(&h.finalize()[..8]);
    let root = cache_root();
    let _lock = Lock::take(&root.join(format!("runtime-{rkey}.lock")))?;
    let dir = root.join(format!("runtime-{rkey}"));
    let objs: Vec<PathBuf> = names.iter().map(|n| dir.join(format!("{n}.o"))).collect();
    if objs.iter().all(|o| o.exists()) {
        return Ok(objs);
    }
    let tmp = root.join(format!("runtime-{rkey}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| io_err("cannot create", &tmp, e))?;
    let prelude = tmp.join("ws_prelude.h");
    std::fs::write(&prelude, PRELUDE).map_err(|e| io_err("cannot write", &prelude, e))?;
    let units: Vec<PathBuf> = names
        .iter()
        .map(|n| {
            let src = v.include().join(format!("{n}.cpp"));
            let local = tmp.join(format!("{n}.cpp"));
            std::fs::copy(&src, &local)
                .map(|_| local)
                .map_err(|e| io_err("cannot copy", &src, e))
        })
        .collect::<Result<_, _>>()?;
    let mut f = flags;
    f.push("-include".into());
    f.push(prelude.display().to_string());
    let units: Vec<Unit> = units.into_iter().map(Unit::uncached).collect();
    compile_parallel(&units, &f)?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&tmp, &dir).map_err(|e| io_err("cannot move", &dir, e))?;
    Ok(objs)
}

/// A port as Verilator declared it in the model header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderPort {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
}

/// Read the `VL_IN*/VL_OUT*` declarations of a Verilated model header.
pub fn header_ports(text: &str) -> Vec<HeaderPort> {
    let mut v = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        let dir = if t.starts_with("VL_IN") {
            Dir::In
        } else if t.starts_with("VL_OUT") {
            Dir::Out
        } else {
            continue;
        };
        let (Some(open), Some(close)) = (t.find("(&"), t.rfind(')')) else {
            continue;
        };
        let args: Vec<&str> = t[open + 2..close].split(',').map(str::trim).collect();
        if args.len() < 3 {
            continue;
        }
        let (Ok(msb), Ok(lsb)) = (args[1].parse::<u32>(), args[2].parse::<u32>()) else {
            continue;
        };
        v.push(HeaderPort {
            name: args[0].to_string(),
            dir,
            width: msb - lsb + 1,
        });
    }
    v
}

/// Check the model's ports against the spec's, by name, direction and width, before anything
/// is simulated.
fn check_ports(header: &Path, ports: &[PortSpec]) -> Result<(), SimError> {
    let text = std::fs::read_to_string(header).map_err(|e| io_err("cannot read", header, e))?;
    let found = header_ports(&text);
    let mut problems = Vec::new();
    let mut expected: Vec<(String, Dir, u32)> =
        vec![("clk_i".into(), Dir::In, 1), ("rst_ni".into(), Dir::In, 1)];
    expected.extend(ports.iter().map(|p| (p.name.to_string(), p.dir, p.width())));
    for (name, dir, width) in &expected {
        match found.iter().find(|f| &f.name == name) {
            None => problems.push(format!("port {name} is missing from the RTL")),
            Some(f) if f.dir != *dir || f.width != *width => problems.push(format!(
                "port {name}: spec says {dir:?} {width} bits, RTL has {:?} {} bits",
                f.dir, f.width
            )),
            Some(_) => {}
        }
    }
    for f in &found {
        if !expected.iter().any(|(n, _, _)| n == &f.name) {
            problems.push(format!("RTL port {} is not in the spec", f.name));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(SimError::PortMismatch(problems.join("; ")))
    }
}

/// The generated C ABI shim for one model.
pub fn shim_source(top: &str, ports: &[PortSpec], trace: bool) -> String {
    let class = format!("V{top}");
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// warpsmith C ABI shim for {top} (generated; {RECIPE})."
    );
    let _ = writeln!(s, "#include \"{class}.h\"");
    s.push_str("#include \"verilated.h\"\n");
    if trace {
        s.push_str("#include \"verilated_vcd_c.h\"\n");
    }
    s.push_str(
        r#"#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static thread_local std::string ws_log;

extern "C" int ws_vl_printf(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = std::vsnprintf(nullptr, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        std::vector<char> buf(static_cast<size_t>(n) + 1);
        std::vsnprintf(buf.data(), buf.size(), fmt, ap2);
        ws_log.append(buf.data(), static_cast<size_t>(n));
    }
    va_end(ap2);
    return n;
}

// $fatal and internal errors: record and stop the run from Rust instead of aborting the process.
void vl_fatal(const char* filename, int linenum, const char* hier, const char* msg) {
    (void)hier;
    char buf[64];
    std::snprintf(buf, sizeof buf, ":%d: ", linenum);
    ws_log += "%Fatal: ";
    ws_log += filename ? filename : "";
    ws_log += buf;
    ws_log += msg ? msg : "";
    ws_log += "\n";
    Verilated::threadContextp()->gotError(true);
    Verilated::threadContextp()->gotFinish(true);
}

"#,
    );
    let _ = writeln!(
        s,
        "struct WsModel {{\n    VerilatedContext* ctx;\n    {class}* top;"
    );
    if trace {
        s.push_str("    VerilatedVcdC* vcd;\n");
    }
    s.push_str("    uint64_t time;\n};\n\n");
    // Verilator routes scope teardown, $stop/$error and $fatal through the thread's *current*
    // context: make this model's context current before anything can reach them, so that
    // several models on one thread neither mix up their errors nor touch a deleted context.
    s.push_str(
        "static inline WsModel* ws_enter(void* p) {\n    WsModel* m = \
        static_cast<WsModel*>(p);\n    Verilated::threadContextp(m->ctx);\n    return m;\n}\n\n",
    );
    s.push_str("extern \"C\" {\n\n");
    let _ = writeln!(
        s,
        "void* ws_new() {{\n    WsModel* m = new WsModel();\n    m->ctx = new \
            VerilatedContext();\n    m->ctx->fatalOnError(false);\n    \
            m->ctx->traceEverOn({});\n    m->top = new {class}(m->ctx, \"TOP\");",
        if trace { "true" } else { "false" }
    );
    if trace {
        s.push_str("    m->vcd = nullptr;\n");
    }
    s.push_str("    m->time = 0;\n    return m;\n}\n\n");
    s.push_str("void ws_delete(void* p) {\n    WsModel* m = ws_enter(p);\n");
    if trace {
        s.push_str("    if (m->vcd) { m->vcd->close(); delete m->vcd; }\n");
    }
    s.push_str(
        "    m->top->final();\n    delete m->top;\n    delete m->ctx;\n    \
            Verilated::threadContextp(nullptr);\n    delete m;\n}\n\n",
    );
    // Clocking: inputs were set while the clock is low; evaluate, rise, evaluate.
    s.push_str("static inline void ws_dump(WsModel* m) {\n");
    if trace {
        s.push_str("    if (m->vcd) m->vcd->dump(m->time);\n");
    }
    s.push_str("    m->time += 5;\n}\n\n");
    s.push_str(
        "void ws_tick(void* p) {\n    WsModel* m = ws_enter(p);\n    m->top->clk_i = 0;\n    \
            m->top->eval();\n    ws_dump(m);\n    m->top->clk_i = 1;\n    m->top->eval();\n    \
            ws_dump(m);\n}\n\n",
    );
    // Two halves of a cycle, for blocks whose outputs are sampled before the edge.
    s.push_str(
        "void ws_settle(void* p) {\n    WsModel* m = ws_enter(p);\n    m->top->clk_i = 0;\n    \
            m->top->eval();\n    ws_dump(m);\n}\n\n",
    );
    s.push_str(
        "void ws_rise(void* p) {\n    WsModel* m = ws_enter(p);\n    m->top->clk_i = 1;\n    \
            m->top->eval();\n    ws_dump(m);\n}\n\n",
    );
    s.push_str(
        "void ws_reset(void* p, uint32_t cycles) {\n    WsModel* m = ws_enter(p);\n    \
            m->top->rst_ni = 1;\n    m->top->clk_i = 0;\n    m->top->eval();\n    m->top->rst_ni \
            = 0;\n    for (uint32_t i = 0; i < cycles; i++) ws_tick(p);\n    m->top->rst_ni = \
            1;\n    m->top->clk_i = 0;\n    m->top->eval();\n}\n\n",
    );
    s.push_str(
        "int ws_status(void* p) {\n    WsModel* m = ws_enter(p);\n    return \
        (m->ctx->gotError() ? 1 : 0) | (m->ctx->gotFinish() ? 2 : 0);\n}\n\n",
    );
    s.push_str(
        "void ws_clear_status(void* p) {\n    WsModel* m = ws_enter(p);\n    \
        m->ctx->gotError(false);\n    m->ctx->gotFinish(false);\n    \
        m->ctx->errorCount(0);\n}\n\n",
    );
    s.push_str(
        "size_t ws_take_log(char* buf, size_t cap) {\n    size_t n = ws_log.size() < cap ? \
        ws_log.size() : cap;\n    std::memcpy(buf, ws_log.data(), n);\n    ws_log.erase(0, \
        n);\n    return n;\n}\n\n",
    );
    if trace {
        s.push_str(
            "int ws_trace_open(void* p, const char* path) {\n    WsModel* m = \
            ws_enter(p);\n    if (m->vcd) return 0;\n    m->vcd = new VerilatedVcdC();\n    \
            m->top->trace(m->vcd, 99);\n    m->vcd->open(path);\n    return m->vcd->isOpen() ? 1 \
            : 0;\n}\n\n",
        );
        s.push_str(
            "void ws_trace_close(void* p) {\n    WsModel* m = ws_enter(p);\n    if \
            (m->vcd) { m->vcd->close(); delete m->vcd; m->vcd = nullptr; }\n}\n\n",
        );
    }
    for p in ports {
        let w = p.width();
        let words = golden::block::words_for(w);
        match p.dir {
            Dir::In => {
                let body = if w > 64 {
                    (0..words)
                        .map(|i| format!("    m->top->{}[{i}] = w[{i}];\n", p.name))
                        .collect::<String>()
                } else if w > 32 {
                    format!(
                        "    m->top->{} = (static_cast<uint64_t>(w[1]) << 32) | w[0];\n",
                        p.name
                    )
                } else {
                    format!("    m->top->{} = w[0];\n", p.name)
                };
                let _ = writeln!(
                    s,
                    "void ws_set_{}(void* p, const uint32_t* w) {{\n    WsModel* m = \
                        static_cast<WsModel*>(p);\n{body}}}\n",
                    p.name
                );
            }
            Dir::Out => {
                let body = if w > 64 {
                    (0..words)
                        .map(|i| format!("    w[{i}] = m->top->{}[{i}];\n", p.name))
                        .collect::<String>()
                } else if w > 32 {
                    format!(
                        "    uint64_t v = m->top->{};\n    w[0] = static_cast<uint32_t>(v);\n    \
                            w[1] = static_cast<uint32_t>(v >> 32);\n",
                        p.name
                    )
                } else {
                    format!("    w[0] = m->top->{};\n", p.name)
                };
                let _ = writeln!(
                    s,
                    "void ws_get_{}(void* p, uint32_t* w) {{\n    WsModel* m = \
                        static_cast<WsModel*>(p);\n{body}}}\n",
                    p.name
                );
            }
        }
    }
    s.push_str("}  // extern \"C\"\n");
    s
}

/// A plain C++ program that drives the same compiled model over a binary file of input frames
/// (the speed ceiling for `warpsmith bench`). Prints `cycles seconds checksum`.
pub fn bench_executable(
    v: &Verilator,
    built: &BuiltModel,
    ports: &[PortSpec],
) -> Result<PathBuf, SimError> {
    let top = built.top.as_str();
    let dir = built
        .lib
        .parent()
        .ok_or_else(|| SimError::Build("model library has no folder".into()))?
        .to_path_buf();
    let exe = dir.join("ws_bench");
    let _lock = Lock::take(&dir.join("bench.lock"))?;
    if exe.exists() {
        return Ok(exe);
    }
    let obj = dir.join("obj");
    let class = format!("V{top}");
    let mut src = String::new();
    let _ = writeln!(
        src,
        "// warpsmith plain C++ bench loop for {top} (generated)."
    );
    let _ = writeln!(src, "#include \"{class}.h\"\n#include \"verilated.h\"");
    src.push_str("#include <chrono>\n#include <cstdint>\n#include <cstdio>\n#include <vector>\n\n");
    src.push_str(
        "int main(int argc, char** argv) {\n    if (argc < 2) { std::fprintf(stderr, \
        \"usage: ws_bench FRAMES\\n\"); return 2; }\n",
    );
    src.push_str(
        "    std::FILE* f = std::fopen(argv[1], \"rb\");\n    if (!f) { \
        std::perror(argv[1]); return 2; }\n    std::vector<uint32_t> data;\n    uint32_t \
        buf[4096];\n    size_t n;\n    while ((n = std::fread(buf, 4, 4096, f)) > 0) \
        data.insert(data.end(), buf, buf + n);\n    std::fclose(f);\n",
    );
    let in_words: usize = ports
        .iter()
        .filter(|p| p.dir == Dir::In)
        .map(|p| golden::block::words_for(p.width()))
        .sum();
    let _ = writeln!(
        src,
        "    const size_t W = {in_words};\n    const size_t cycles = data.size() / W;"
    );
    let _ = writeln!(
        src,
        "    VerilatedContext ctx;\n    ctx.fatalOnError(false);\n    {class} top(&ctx, \"TOP\");"
    );
    src.push_str(
        "    top.clk_i = 0; top.rst_ni = 0; top.eval();\n    for (int i = 0; i < 2; i++) \
        { top.clk_i = 1; top.eval(); top.clk_i = 0; top.eval(); }\n    top.rst_ni = 1; \
        top.eval();\n    uint64_t sum = 0;\n    auto t0 = std::chrono::steady_clock::now();\n    \
        for (size_t c = 0; c < cycles; c++) {\n        const uint32_t* w = &data[c * W];\n",
    );
    let mut off = 0usize;
    for p in ports.iter().filter(|p| p.dir == Dir::In) {
        let words = golden::block::words_for(p.width());
        let w = p.width();
        if w > 64 {
            for i in 0..words {
                let _ = writeln!(src, "        top.{}[{i}] = w[{}];", p.name, off + i);
            }
        } else if w > 32 {
            let _ = writeln!(
                src,
                "        top.{} = (static_cast<uint64_t>(w[{}]) << 32) | w[{off}];",
                p.name,
                off + 1
            );
        } else {
            let _ = writeln!(src, "        top.{} = w[{off}];", p.name);
        }
        off += words;
    }
    src.push_str("        top.clk_i = 0; top.eval();\n        top.clk_i = 1; top.eval();\n");
    for p in ports.iter().filter(|p| p.dir == Dir::Out) {
        let w = p.width();
        if w > 64 {
            for i in 0..golden::block::words_for(w) {
                let _ = writeln!(src, "        sum += top.{}[{i}];", p.name);
            }
        } else {
            let _ = writeln!(src, "        sum += top.{};", p.name);
        }
    }
    src.push_str(
        "    }\n    double s = \
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();\n    \
        std::printf(\"%zu %.9f %llu\\n\", cycles, s, static_cast<unsigned long long>(sum));\n    \
        top.final();\n    return 0;\n}\n",
    );
    let main = dir.join("ws_bench_main.cpp");
    std::fs::write(&main, &src).map_err(|e| io_err("cannot write", &main, e))?;
    let runtime = runtime_objects(v, false, &read_classes(&obj)?)?;
    let model_objs: Vec<PathBuf> = std::fs::read_dir(&obj)
        .map_err(|e| io_err("cannot list", &obj, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "o"))
        .collect();
    let mut flags = cxx_flags(v, false);
    flags.push("-include".into());
    flags.push(dir.join("ws_prelude.h").display().to_string());
    flags.push(format!("-I{}", obj.display()));
    let mut cmd = Command::new(cxx());
    cmd.args(&flags)
        .arg(&main)
        .args(&model_objs)
        .arg(dir.join("ws_shim.o"))
        .args(&runtime)
        .args(["-pthread", "-latomic", "-o"])
        .arg(&exe);
    run(&mut cmd, "building the C++ bench loop")?;
    Ok(exe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_lists_are_read_by_name() {
        let mk = "VM_TRACE = 0\nVM_CLASSES_FAST += \\\n\tVx \\\n\tVx__1 \\\n\n\
            VM_CLASSES_SLOW += \\\n\tVx__Slow \\\n\tVx__0__Slow \\\n\n\
            VM_SUPPORT_SLOW += \\\n\tVx__Syms \\\n\nVM_GLOBAL_FAST += \\\n\tverilated \\\n\n\
            VM_GLOBAL_SLOW += \\\n\n";
        assert_eq!(make_list(mk, "VM_CLASSES_FAST"), ["Vx", "Vx__1"]);
        assert_eq!(
            make_list(mk, "VM_CLASSES_SLOW"),
            ["Vx__Slow", "Vx__0__Slow"]
        );
        assert_eq!(make_list(mk, "VM_SUPPORT_SLOW"), ["Vx__Syms"]);
        assert_eq!(make_list(mk, "VM_GLOBAL_FAST"), ["verilated"]);
        assert!(make_list(mk, "VM_GLOBAL_SLOW").is_empty());
        assert!(make_list(mk, "VM_TRACE").is_empty());
    }

    #[test]
    fn header_ports_are_parsed_with_widths() {
        let h = "    VL_IN8(&clk_i,0,0);\n    VL_INW(&wide_i,127,0,4);\n    \
            VL_OUT64(&q_o,47,0);\n    VL_IN(&x_i,23,0);\n";
        let p = header_ports(h);
        assert_eq!(p.len(), 4);
        assert_eq!(
            p[1],
            HeaderPort {
                name: "wide_i".into(),
                dir: Dir::In,
                width: 128
            }
        );
        assert_eq!(p[2].width, 48);
        assert_eq!(p[2].dir, Dir::Out);
    }
}
