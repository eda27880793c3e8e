//! The git revision `warpsmith --version` and every result print (`WARPSMITH_GIT_REV`): the
//! commit, with `-dirty` when tracked files differ from it, or `unknown` outside a git checkout
//! (a source archive). Written by hand: the crates that do this (vergen, built) pull in a git
//! library for one `git` call.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let rev = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(rev) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            format!("{rev}{}", if dirty { "-dirty" } else { "" })
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=WARPSMITH_GIT_REV={rev}");
    // Run again when HEAD moves (a commit, a checkout) or a tracked file may have changed.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
    }
    if let (Some(common), Some(head)) = (
        git(&["rev-parse", "--git-common-dir"]),
        git(&["symbolic-ref", "-q", "HEAD"]),
    ) {
        println!("cargo:rerun-if-changed={common}/{head}");
        println!("cargo:rerun-if-changed={common}/packed-refs");
    }
    for path in [
        "Cargo.toml",
        "Cargo.lock",
        "spec",
        "golden",
        "rtlgen",
        "sim",
        "src",
        "templates",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
}
