//! A regression or a sweep on Slurm: one job-array task per shard, each `warpsmith regress
//! --shard I/N` (or `sweep`) into its own folder; after the array, the folders are merged
//! ([`super::results::merge`], `crate::sweep::merge`).

use std::path::{Path, PathBuf};

/// What the job-array script runs.
pub struct SlurmJob<'a> {
    /// The `warpsmith` binary (absolute: the tasks run on other machines' view of the same file
    /// system).
    pub exe: &'a Path,
    /// The subcommand (`regress`, `sweep`) and the option naming what it runs (`--list`,
    /// `--experiment`).
    pub command: &'a str,
    pub input_flag: &'a str,
    /// What it runs: a built-in name, or an absolute file path.
    pub input: &'a str,
    /// The run's folder (absolute); shard I writes `out/shard-I`.
    pub out: &'a Path,
    pub shards: usize,
    /// `#SBATCH` lines the user asked for (`--partition=gpu`, `--time=2:00:00`, ...).
    pub args: &'a [String],
    /// Seconds per job, if given.
    pub timeout: Option<u64>,
}

/// The folder of shard `i` (1-based), in the run's folder.
pub fn shard_name(i: usize) -> String {
    format!("shard-{i}")
}

/// The folder of shard `i` (1-based).
pub fn shard_dir(out: &Path, i: usize) -> PathBuf {
    out.join(shard_name(i))
}

fn q(s: &str) -> String {
    shlex::try_quote(s).map_or_else(|_| format!("'{s}'"), |c| c.into_owned())
}

/// The job-array script. Each task resumes its folder, so a requeued task finishes what an
/// earlier attempt started; it uses the CPUs Slurm gave it (`--cpus-per-task`, default 1).
pub fn script(j: &SlurmJob) -> String {
    let out = j.out.display().to_string();
    let mut s = format!(
        "#!/bin/bash\n# Written by `warpsmith {} --slurm`: one array task per shard.\n",
        j.command
    );
    s.push_str(&format!("#SBATCH --job-name=warpsmith-{}\n", j.command));
    s.push_str(&format!("#SBATCH --array=1-{}\n", j.shards));
    s.push_str(&format!(
        "#SBATCH --output={}\n",
        Path::new(&out).join("slurm").join("shard-%a.log").display()
    ));
    for a in j.args {
        s.push_str(&format!("#SBATCH {a}\n"));
    }
    s.push_str("set -eu\n");
    s.push_str(&format!(
        "exec {} {} {} {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --out \
            {}/shard-\"$SLURM_ARRAY_TASK_ID\" -j \"${{SLURM_CPUS_PER_TASK:-1}}\" --resume{}\n",
        q(&j.exe.display().to_string()),
        j.command,
        j.input_flag,
        q(j.input),
        j.shards,
        q(&out),
        j.timeout
            .map(|t| format!(" --timeout {t}"))
            .unwrap_or_default()
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_runs_one_quoted_shard_per_array_task() {
        let args = vec!["--partition=long jobs".to_string(), "--time=1:00:00".into()];
        let s = script(&SlurmJob {
            exe: Path::new("/opt/ws bin/warpsmith"),
            command: "regress",
            input_flag: "--list",
            input: "/lists/my list.toml",
            out: Path::new("/scratch/run 1"),
            shards: 7,
            args: &args,
            timeout: Some(60),
        });
        assert!(s.contains("#SBATCH --array=1-7\n"), "{s}");
        assert!(s.contains("#SBATCH --partition=long jobs\n"), "{s}");
        assert!(
            s.contains("#SBATCH --output=/scratch/run 1/slurm/shard-%a.log\n"),
            "{s}"
        );
        assert!(
            s.contains(
                "exec '/opt/ws bin/warpsmith' regress --list '/lists/my list.toml' --shard \
                \"$SLURM_ARRAY_TASK_ID/7\" --out '/scratch/run 1'/shard-\"$SLURM_ARRAY_TASK_ID\" \
                -j \"${SLURM_CPUS_PER_TASK:-1}\" --resume --timeout 60\n"
            ),
            "{s}"
        );
    }
}
