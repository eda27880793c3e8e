//! The adversarial suite's short version (`scripts/adversarial.py --quick`): a few hundred
//! generated hostile inputs of every class (traces, packed copies, kernel files, `--set`
//! values, GPGPU-Sim files, regression lists, output paths, results files, huge sizes,
//! stimuli), each run under a 6 GiB address-space limit and a time limit, each judged by the
//! script's own oracle. It passes when no case panicked, ran out of memory, hung, gave a
//! wrong result or a bad message, simulated nothing, failed internally, refused valid input
//! or lost a file (README, "Adversarial suite").

use std::process::Command;

#[test]
fn the_quick_adversarial_suite_finds_no_failure() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::path::Path::new(root).join("target/adversarial-quick");
    let o = Command::new("python3")
        .arg(format!("{root}/scripts/adversarial.py"))
        .args(["--quick", "--bin", env!("CARGO_BIN_EXE_warpsmith"), "--out"])
        .arg(&out)
        .current_dir(root)
        .output()
        .expect("run python3 scripts/adversarial.py");
    let summary = std::fs::read_to_string(out.join("summary.txt"))
        .unwrap_or_else(|_| String::from_utf8_lossy(&o.stdout).into_owned());
    assert!(
        o.status.success(),
        "the adversarial suite failed ({}); reproducers under {}:\n{summary}\n{}",
        o.status,
        out.join("failures").display(),
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
