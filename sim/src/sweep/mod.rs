//! Sweeps: an experiment (TOML) names workloads, presets or configuration files, a `--set`
//! matrix and the statistics to collect; it expands into `warpsmith run` jobs, run on the
//! regression runner ([`crate::regress::run::pool`], [`crate::regress::run::child`]: parallel,
//! time limits, resume, shards, Slurm job arrays), and its results make one table ([`table`]),
//! a row per job with its configuration hash and keys, the tool's version and every statistic.
//!
//! An experiment:
//! ```toml
//! description = "Warped-MC against FR-FCFS"
//! statistics = ["ipc", "cycles", "l1", "dram.reads"]  # optional: run report keys (a key
//!                                                     # names its subtree); default: all
//! [[run]]
//! kernels = ["cp", "matmul3d"]      # built-in kernels, or kernel TOML files
//! workloads = ["vectoradd:n=4096"]  # workload library applications, with arguments
//! traces = ["traces/bfs"]           # Accel-Sim trace folders
//! presets = ["fermi-gtx480"]        # preset names, or "all"
//! configs = ["my.toml"]             # optional --config files, each with each preset
//! set = { "mc.scheduler" = ["frfcfs", "warped"] }  # every combination
//! seeds = [1, 2]                    # default [1]
//! max_cycles = 100000000            # optional, as `run --max-cycles`
//! timeout = 600                     # seconds per job (default 1800)
//! ```
//! Relative paths are the experiment file's; they are made absolute, so a job is the same job
//! (its id, the hash of its command line) from whatever folder it is run.

pub mod run;
pub mod table;

use crate::regress::{job_id, RegressError, MAX_JOBS};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spec::ConfigRequest;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The built-in experiments: name, what it is for, text. (`reproduce` adds one per seed.)
pub const EXPERIMENTS: &[(&str, &str, &str)] = &[(
    "example",
    "the four DRAM schedulers on three built-in kernels (4 x 3 jobs, a second on 2 cores)",
    include_str!("../../experiments/example.toml"),
)];

/// Default seconds a job may run before it is stopped and recorded as an error.
pub const JOB_TIMEOUT: u64 = crate::regress::JOB_TIMEOUT;

/// An experiment as written.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    #[serde(default)]
    pub description: String,
    /// The run report's keys to keep in the table (a key keeps its subtree); none: every one.
    #[serde(default)]
    pub statistics: Vec<Spanned<String>>,
    #[serde(default)]
    pub run: Vec<Spanned<RunEntry>>,
    /// Where it comes from (its file, or `built-in experiment NAME`) and its text, for the
    /// line numbers of messages.
    #[serde(skip)]
    pub origin: String,
    #[serde(skip)]
    pub text: String,
}

/// One `[[run]]` of an experiment: every combination of its fields is a job.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunEntry {
    #[serde(default)]
    pub kernels: Vec<String>,
    #[serde(default)]
    pub workloads: Vec<String>,
    #[serde(default)]
    pub traces: Vec<PathBuf>,
    pub presets: Vec<String>,
    #[serde(default)]
    pub configs: Vec<PathBuf>,
    #[serde(default)]
    pub set: BTreeMap<String, Spanned<Vec<toml::Value>>>,
    #[serde(default)]
    pub seeds: Vec<u64>,
    #[serde(default)]
    pub max_cycles: Option<u64>,
    #[serde(default)]
    pub timeout: Option<u64>,
}

impl Experiment {
    /// Parse an experiment's text; `origin` names it in messages.
    pub fn parse(text: &str, origin: &str) -> Result<Experiment, RegressError> {
        let mut x: Experiment =
            toml::from_str(text).map_err(|e| RegressError::BadInput(format!("{origin}: {e}")))?;
        x.origin = origin.to_string();
        x.text = text.to_string();
        Ok(x)
    }

    /// `FILE line N` of a byte offset of the experiment's text.
    fn at(&self, offset: usize) -> String {
        let before = self.text.get(..offset).unwrap_or(&self.text);
        format!("{} line {}", self.origin, before.matches('\n').count() + 1)
    }

    /// The statistics it keeps (none: every one), each checked to be a key of the run report
    /// (`warpsmith schema run`): a misspelt one is refused before anything runs.
    pub fn statistics(&self) -> Result<Vec<String>, RegressError> {
        let schema = table::run_schema();
        self.statistics
            .iter()
            .map(|s| {
                let key = s.get_ref();
                if table::is_statistic(&schema, key) {
                    Ok(key.clone())
                } else {
                    Err(RegressError::BadInput(format!(
                        "{}: `statistics` names `{key}`, which is not a statistic of the run \
                            report (`warpsmith schema run` lists them; a key with dots names a \
                            field inside another, e.g. `l1.hits` or `sms.0.ipc`)",
                        self.at(s.span().start)
                    )))
                }
            })
            .collect()
    }
}

/// Load an experiment: a built-in name or a TOML file. Returns it and the folder its relative
/// paths are resolved against.
pub fn load(name_or_file: &str) -> Result<(Experiment, PathBuf), RegressError> {
    let (text, origin, dir) =
        crate::regress::builtin_or_file(name_or_file, EXPERIMENTS, "experiment")?;
    Ok((Experiment::parse(&text, &origin)?, dir))
}

/// What a sweep job is: its identity, which its row repeats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JobKey {
    /// Hash of its command line.
    pub id: String,
    /// What it runs: `kernel`, `workload` or `trace`.
    pub kind: String,
    /// The kernel, workload or trace as the experiment names it.
    pub workload: String,
    pub preset: String,
    /// The configuration's name as the spec gives it (preset, `+file`, `+set`).
    pub config: String,
    /// The configuration's hash (as `warpsmith run` reports it).
    pub config_hash: String,
    /// The `--set` values of its row of the matrix, as given.
    pub sets: Vec<String>,
    pub seed: u64,
}

/// One `warpsmith run` to make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    #[serde(flatten)]
    pub key: JobKey,
    pub timeout: u64,
    /// `warpsmith` arguments (without `--format`, which the runner adds).
    pub args: Vec<String>,
}

impl crate::regress::results::Planned for Job {
    fn id(&self) -> &str {
        &self.key.id
    }
}

impl Job {
    /// The command that runs it, quoted for the shell.
    pub fn command(&self) -> String {
        let argv = std::iter::once("warpsmith")
            .chain(self.args.iter().map(String::as_str))
            .chain(["--format", "json"]);
        shlex::try_join(argv).unwrap_or_else(|_| self.args.join(" "))
    }
}

/// `path` relative to `dir`, made absolute and canonical (no `..`, no symbolic link), so that
/// one file is one job id from whatever folder the experiment is named.
fn absolute(dir: &Path, path: &Path) -> Result<PathBuf, String> {
    let p = dir.join(path);
    std::fs::canonicalize(&p).map_err(|e| format!("`{}` ({}): {e}", path.display(), p.display()))
}

/// An entry's workloads: (kind, name as given, the `run` arguments), each checked.
fn workloads_of(e: &RunEntry, dir: &Path) -> Result<Vec<(String, String, Vec<String>)>, String> {
    let mut out = Vec::new();
    for k in &e.kernels {
        let file = dir.join(k);
        let arg = if golden::dispatch::kernel(k).is_ok() && !file.is_file() {
            k.clone()
        } else {
            let p = absolute(dir, Path::new(k)).map_err(|e| format!("kernels: {e}"))?;
            golden::dispatch::kernel(&p.display().to_string())
                .map_err(|err| format!("kernels: `{k}`: {err}"))?;
            p.display().to_string()
        };
        out.push(("kernel".into(), k.clone(), vec!["--kernel".into(), arg]));
    }
    for w in &e.workloads {
        golden::suite::make(w, 1).map_err(|err| format!("workloads: `{w}`: {err}"))?;
        out.push((
            "workload".into(),
            w.clone(),
            vec!["--workload".into(), w.clone()],
        ));
    }
    for t in &e.traces {
        let p = absolute(dir, t).map_err(|e| format!("traces: {e}"))?;
        let arg = p.display().to_string();
        out.push((
            "trace".into(),
            t.display().to_string(),
            vec!["--trace".into(), arg],
        ));
    }
    if out.is_empty() {
        return Err("name at least one of `kernels`, `workloads` and `traces`".into());
    }
    Ok(out)
}

/// Expand an experiment into its jobs, in a fixed order (entry, workload, preset, configuration
/// file, `--set` row, seed). Every configuration is resolved and every workload checked (an
/// illegal one is an error naming its entry); a job named twice is kept once.
pub fn expand(x: &Experiment, dir: &Path) -> Result<Vec<Job>, RegressError> {
    let mut jobs = Vec::new();
    if x.run.is_empty() {
        return Err(RegressError::BadInput(format!(
            "{}: no [[run]] entry: nothing would run",
            x.origin
        )));
    }
    for (i, spanned) in x.run.iter().enumerate() {
        let line = x.at(spanned.span().start);
        let at = |why: String| RegressError::BadInput(format!("run {} ({line}): {why}", i + 1));
        let e = spanned.get_ref();
        let workloads = workloads_of(e, dir).map_err(at)?;
        let presets = crate::regress::presets_of(&e.presets).map_err(at)?;
        let matrix = crate::regress::set_matrix(&e.set).map_err(at)?;
        let seeds = if e.seeds.is_empty() {
            vec![1]
        } else {
            e.seeds.clone()
        };
        let configs: Vec<Option<PathBuf>> = if e.configs.is_empty() {
            vec![None]
        } else {
            e.configs
                .iter()
                .map(|c| {
                    absolute(dir, c)
                        .map(Some)
                        .map_err(|e| format!("configs: {e}"))
                })
                .collect::<Result<_, _>>()
                .map_err(at)?
        };
        let count = [
            workloads.len(),
            presets.len(),
            configs.len(),
            matrix.len(),
            seeds.len(),
        ]
        .iter()
        .try_fold(jobs.len(), |n, f| n.checked_mul(*f));
        if count.is_none_or(|n| n as u64 > MAX_JOBS) {
            return Err(at(format!(
                "the experiment makes more than the {MAX_JOBS} jobs a sweep may have: give \
                    fewer values, or split it"
            )));
        }
        let timeout = e.timeout.unwrap_or(JOB_TIMEOUT);
        if timeout == 0 {
            return Err(at("`timeout` must be at least 1 second".into()));
        }
        for (kind, name, wargs) in &workloads {
            for preset in &presets {
                for config in &configs {
                    for sets in &matrix {
                        let req = ConfigRequest {
                            preset: Some(preset.clone()),
                            gpgpusim: Vec::new(),
                            file: config.clone(),
                            overrides: sets.clone(),
                        };
                        let spec = req
                            .resolve()
                            .map_err(|err| at(format!("{preset}: {err}")))?;
                        for &seed in &seeds {
                            let mut args = vec!["run".to_string(), "--preset".into()];
                            args.push(preset.clone());
                            if let Some(c) = config {
                                args.extend(["--config".into(), c.display().to_string()]);
                            }
                            for kv in sets {
                                args.extend(["--set".into(), kv.clone()]);
                            }
                            args.extend(wargs.iter().cloned());
                            args.extend(["--seed".into(), seed.to_string()]);
                            if let Some(m) = e.max_cycles {
                                args.extend(["--max-cycles".into(), m.to_string()]);
                            }
                            jobs.push(Job {
                                key: JobKey {
                                    id: job_id(&args),
                                    kind: kind.clone(),
                                    workload: name.clone(),
                                    preset: preset.clone(),
                                    config: spec.name.clone(),
                                    config_hash: spec.hash.to_string(),
                                    sets: sets.clone(),
                                    seed,
                                },
                                timeout,
                                args,
                            });
                        }
                    }
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    jobs.retain(|j| seen.insert(j.key.id.clone()));
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_text(text: &str) -> Result<Vec<Job>, String> {
        let x = Experiment::parse(text, "x.toml").map_err(|e| e.to_string())?;
        expand(&x, Path::new(".")).map_err(|e| e.to_string())
    }

    #[test]
    fn an_experiment_expands_to_every_combination_once() {
        let jobs = expand_text(
            r#"
            [[run]]
            kernels = ["cp", "matmul3d"]
            presets = ["tiny", "fermi-gtx480"]
            set = { "mc.scheduler" = ["fcfs", "frfcfs", "warped"] }
            seeds = [1, 2]

            [[run]]
            kernels = ["cp"]
            presets = ["tiny"]
            set = { "mc.scheduler" = ["fcfs"] }
            "#,
        )
        .unwrap();
        // The second entry's only job is one of the first's: kept once.
        assert_eq!(jobs.len(), 2 * 2 * 3 * 2);
        let ids: std::collections::HashSet<_> = jobs.iter().map(|j| &j.key.id).collect();
        assert_eq!(ids.len(), jobs.len());
        let hashes: std::collections::HashSet<_> = jobs
            .iter()
            .filter(|j| j.key.preset == "tiny" && j.key.seed == 1 && j.key.workload == "cp")
            .map(|j| &j.key.config_hash)
            .collect();
        assert_eq!(hashes.len(), 3);
        let j = &jobs[0];
        assert_eq!(
            j.args,
            [
                "run",
                "--preset",
                "tiny",
                "--set",
                "mc.scheduler=fcfs",
                "--kernel",
                "cp",
                "--seed",
                "1"
            ]
        );
    }

    #[test]
    fn bad_experiments_say_what_is_wrong_and_where() {
        let e = expand_text("[[run]]\nkernels = [\"nope\"]\npresets = [\"tiny\"]\n").unwrap_err();
        assert!(
            e.contains("run 1 (x.toml line 1)") && e.contains("nope"),
            "{e}"
        );
        let e = expand_text("[[run]]\npresets = [\"tiny\"]\n").unwrap_err();
        assert!(e.contains("at least one of `kernels`"), "{e}");
        let e = expand_text(
            "[[run]]\nkernels = [\"cp\"]\npresets = [\"tiny\"]\nset = { \"mc.scheduler\" \
                = [\"lifo\"] }\n",
        )
        .unwrap_err();
        assert!(e.contains("mc.scheduler") && e.contains("lifo"), "{e}");
        let e = expand_text("description = \"x\"\n").unwrap_err();
        assert!(e.contains("no [[run]]"), "{e}");
        let e = expand_text("[[run]]\nkernel = [\"cp\"]\npresets = [\"tiny\"]\n").unwrap_err();
        assert!(e.contains("kernel"), "{e}");
        let x = Experiment::parse(
            "statistics = [\"ipc\", \"l1.hitz\"]\n[[run]]\nkernels = [\"cp\"]\npresets = \
                [\"tiny\"]\n",
            "x.toml",
        )
        .unwrap();
        let e = x.statistics().unwrap_err().to_string();
        assert!(
            e.contains("x.toml line 1") && e.contains("`l1.hitz`"),
            "{e}"
        );
    }

    #[test]
    fn the_builtin_experiments_expand() {
        for (name, _, _) in EXPERIMENTS {
            let (x, dir) = load(name).unwrap();
            assert!(!expand(&x, &dir).unwrap().is_empty(), "{name}");
            x.statistics().unwrap();
        }
    }
}
