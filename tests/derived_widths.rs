//! Derived widths are computed once, by the spec, and carried by each block's package; a
//! module only checks at elaboration that its parameters give the package's values. Each check
//! fires: for every block and every derived width, a package with that one value off by one
//! fails `verilator --lint-only` with the check's message.

mod common;
use common::*;
use sim::blocks::BLOCKS;
use sim::toolchain::Verilator;
use spec::Role;

#[test]
fn every_derived_width_check_fires_on_a_wrong_package() {
    let v = Verilator::find().expect("Verilator >= 5.006 (run scripts/setup.sh)");
    let spec = spec("tiny", &[]);
    let mut fired = 0;
    for block in BLOCKS {
        let g = block.generate(&spec, "").unwrap();
        let files = g.rtl();
        let clean = sim::tools::lint(&v, &files, &g.top).unwrap();
        assert!(clean.clean, "{block}: {}", clean.messages);
        let iface = (block.interface)(&spec);
        // The package constants' prefix, read off the first module parameter's default
        // (`parameter int unsigned NumEntries = OtNumEntries,`).
        let first = rtlgen::sv_param(iface.params[0].name);
        let top_file = format!("{}.sv", g.top);
        let module = &files.iter().find(|(n, _)| *n == top_file).unwrap().1;
        let at = module.find(&format!(" {first} = ")).unwrap() + first.len() + 4;
        let default: String = module[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .collect();
        let prefix = default.strip_suffix(&first).unwrap().to_string();
        for p in iface.params.iter().filter(|p| p.role == Role::Derived) {
            let name = rtlgen::sv_param(p.name);
            let value = p.int().unwrap();
            let mut wrong = files.clone();
            let pkg = &mut wrong.iter_mut().find(|(n, _)| *n == g.package).unwrap().1;
            let line = format!(" {prefix}{name} = {value};");
            let hits = pkg.matches(&line).count();
            assert_eq!(hits, 1, "{block}: `{line}` in the package");
            *pkg = pkg.replace(&line, &format!(" {prefix}{name} = {};", value + 1));
            let r = sim::tools::lint(&v, &wrong, &g.top).unwrap();
            let expect = format!("the package's {name} (");
            assert!(
                !r.clean && r.messages.contains(&expect),
                "{block}: {name} + 1 was not caught:\n{}",
                r.messages
            );
            fired += 1;
        }
    }
    eprintln!("{fired} derived-width checks fired");
    assert!(fired >= 30, "{fired}");
}

/// `verilator --lint-only -Wall` of `files` (written into `dir`, their include path) with each of
/// `tops` in turn; the other tops' packages are unused there (-Wno-UNUSEDPARAM). Verilator's
/// messages, empty when clean.
fn lint_tops(
    v: &Verilator,
    dir: &std::path::Path,
    files: &[(String, String)],
    tops: &[&str],
) -> String {
    let paths: Vec<_> = files
        .iter()
        .filter_map(|(n, t)| {
            let p = dir.join(n);
            std::fs::write(&p, t).unwrap();
            rtlgen::is_source(n).then_some(p)
        })
        .collect();
    let mut msgs = String::new();
    for top in tops {
        let o = std::process::Command::new(&v.bin)
            .args([
                "--lint-only",
                "-Wall",
                "-Wno-UNUSEDPARAM",
                "--top-module",
                top,
            ])
            .arg(format!("-I{}", dir.display()))
            .args(&paths)
            .output()
            .unwrap();
        if !o.status.success() {
            msgs.push_str(&String::from_utf8_lossy(&o.stderr));
        }
    }
    msgs
}

#[test]
fn two_configurations_of_a_block_elaborate_together_under_prefixes() {
    // Module and package names carry the prefix, so two configurations of one block can be
    // compiled into one design; without prefixes their names collide.
    let v = Verilator::find().expect("Verilator >= 5.006 (run scripts/setup.sh)");
    let dir = scratch("prefixes");
    for block in BLOCKS {
        let a = block.generate(&spec("tiny", &[]), "cfg_a_").unwrap();
        let b = block
            .generate(&spec("fermi-gtx480", &[]), "cfg_b_")
            .unwrap();
        assert!(a.top.starts_with("cfg_a_") && b.top.starts_with("cfg_b_"));
        assert!(a.files.iter().all(|f| f.name.starts_with("cfg_a_")));
        assert!(a.filelist.name.starts_with("cfg_a_") && a.core.name.starts_with("cfg_a_"));
        let top = a.files.iter().find(|f| f.name == format!("{}.sv", a.top));
        assert!(top
            .unwrap()
            .contents
            .contains("`ifndef CFG_A_WS_ASSERTS_OFF"));
        let mut both = a.rtl();
        both.extend(b.rtl());
        let m = lint_tops(&v, &dir, &both, &[&a.top, &b.top]);
        assert!(m.is_empty(), "{block}:\n{m}");
        let plain = block.generate(&spec("tiny", &[]), "").unwrap();
        let mut clash = plain.rtl();
        clash.extend(
            block
                .generate(&spec("fermi-gtx480", &[]), "")
                .unwrap()
                .rtl()
                .into_iter()
                .map(|(n, t)| (format!("other_{n}"), t)),
        );
        let m = lint_tops(&v, &dir, &clash, &[&plain.top]);
        assert!(
            m.contains("Duplicate"),
            "{block}: unprefixed twins should collide:\n{m}"
        );
    }
}
