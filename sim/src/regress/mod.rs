//! Co-simulation regressions: a list of what to run (TOML), expanded into jobs, each one
//! `warpsmith cosim` command line; run in parallel ([`run`]), results appended one JSON line per
//! finished job ([`results`]), sharded, resumed and merged.
//!
//! A list:
//! ```toml
//! [[entry]]
//! blocks = ["all"]            # block names, or "all"
//! presets = ["all"]           # preset names, or "all"
//! configs = ["my.toml"]       # optional --config files (relative to the list), each with each
//! preset
//! set = { "ot.ways" = [4, 16] }   # optional --set matrix: every combination of the values
//! stimuli = ["flow"]          # stimuli; "flow" is the block's own flow stimuli
//! seeds = [1, 2]              # or seed_count = 8 (seeds 1..=8)
//! cycles = 20000
//! mutants = true              # also one job per mutant (on mutant_stimulus, mutant_cycles:
//! default the block's)
//! ```

pub mod random;
pub mod results;
pub mod run;
pub mod slurm;

use crate::blocks::BLOCKS;
use crate::registry::BlockEntry;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use spec::ConfigRequest;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;
use toml::Spanned;

/// The built-in lists: name, what it is for, text.
pub const LISTS: &[(&str, &str, &str)] = &[
    (
        "smoke",
        "every block x preset x its flow stimuli, and every mutant (what CI runs)",
        include_str!("../../regress/smoke.toml"),
    ),
    (
        "random",
        "102 constrained-random configurations per block (34 around each preset), 20,000 cycles \
            each",
        include_str!("../../regress/random.toml"),
    ),
    (
        "nightly",
        "1,000,000 cycles per block x preset x flow stimulus, 8 seeds each, every mutant; 102 \
            random configurations per block",
        include_str!("../../regress/nightly.toml"),
    ),
];

/// Default seconds a job may run before it is stopped and reported as an error.
pub const JOB_TIMEOUT: u64 = 1800;

/// The most jobs a list may expand to. A list is expanded whole before anything runs (its
/// plan names every job), so its size is bounded: 100,000 co-simulations is far beyond a night
/// of a cluster, and the expanded list stays within tens of megabytes.
pub const MAX_JOBS: u64 = 100_000;

#[derive(Debug, Error)]
pub enum RegressError {
    /// A list that is not valid TOML or not a list: its file (or built-in name), the message.
    #[error("regression list {0}: {1}")]
    List(String, String),
    /// An input that cannot be read (a list, a results file, a plan): what, and why.
    #[error("cannot read {0}: {1}")]
    Read(String, std::io::Error),
    /// An output that cannot be written (a results file, a report, the output folder).
    #[error("{0} cannot be written: {1}")]
    Write(String, std::io::Error),
    /// Standard output cannot be written (the progress lines).
    #[error("standard output cannot be written: {0}")]
    Stdout(std::io::Error),
    #[error("{0}")]
    BadInput(String),
    /// A failure of warpsmith itself (a result that cannot be encoded).
    #[error("{0}")]
    Internal(String),
}

impl RegressError {
    /// Whether the error is the input's or the output's (exit 2), not warpsmith's own (exit 1).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, RegressError::Internal(_))
    }
}

/// A regression list as written.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct List {
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub entry: Vec<Spanned<Entry>>,
    /// Where the list comes from (its file, or `built-in list NAME`) and its text, for the
    /// line numbers of messages.
    #[serde(skip)]
    pub origin: String,
    #[serde(skip)]
    pub text: String,
}

impl List {
    /// Parse a list's text; `origin` names it in messages.
    pub fn parse(text: &str, origin: &str) -> Result<List, RegressError> {
        let mut l: List =
            toml::from_str(text).map_err(|e| RegressError::List(origin.into(), e.to_string()))?;
        l.origin = origin.to_string();
        l.text = text.to_string();
        Ok(l)
    }

    /// `FILE line N` of a byte offset of the list's text.
    fn at(&self, offset: usize) -> String {
        let before = self.text.get(..offset).unwrap_or(&self.text);
        format!("{} line {}", self.origin, before.matches('\n').count() + 1)
    }
}

/// One entry of a list: every combination of its fields is a job.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub blocks: Vec<String>,
    pub presets: Vec<String>,
    #[serde(default)]
    pub configs: Vec<PathBuf>,
    #[serde(default)]
    pub set: BTreeMap<String, Spanned<Vec<toml::Value>>>,
    #[serde(default)]
    pub stimuli: Vec<String>,
    #[serde(default)]
    pub seeds: Vec<u64>,
    #[serde(default)]
    pub seed_count: Option<Spanned<u64>>,
    pub cycles: u64,
    #[serde(default)]
    pub mutants: bool,
    #[serde(default)]
    pub mutant_stimulus: Option<String>,
    #[serde(default)]
    pub mutant_cycles: Option<u64>,
    /// Seconds per job before it is stopped (an error result).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Also co-simulate this many constrained-random configurations per block and preset
    /// ([`random::draw`]), each on the entry's stimuli and seeds; a failing one is shrunk to
    /// the fewest keys that differ from the preset.
    #[serde(default)]
    pub random_configs: Option<Spanned<u64>>,
    /// Seed of the random configurations (default 1).
    #[serde(default)]
    pub random_seed: Option<u64>,
}

/// What a job is: its identity, which its result repeats.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct JobKey {
    /// Hash of its fully resolved command line.
    pub id: String,
    pub block: String,
    pub preset: String,
    /// The configuration's name as the spec gives it (preset, `+file`, `+set`).
    pub config: String,
    pub config_hash: String,
    /// The `--set` list that differs from the preset (and config file), as given.
    pub sets: Vec<String>,
    pub stimulus: String,
    pub seed: u64,
    /// The cycle budget.
    pub cycles: u64,
    /// A mutant job passes when the mutant is caught.
    pub mutant: Option<String>,
}

/// One co-simulation to run: a `warpsmith` command line and what it is.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Job {
    #[serde(flatten)]
    pub key: JobKey,
    /// Its `sets` are a random configuration (shrunk when it fails).
    #[serde(default)]
    pub random: bool,
    pub timeout: u64,
    /// `warpsmith` arguments (without `--out-dir` and `--format`, which the runner adds).
    pub args: Vec<String>,
}

impl std::ops::Deref for Job {
    type Target = JobKey;
    fn deref(&self) -> &JobKey {
        &self.key
    }
}

impl Job {
    /// Its arguments with only `keep` of its `--set` values.
    pub fn args_with_sets(&self, keep: &[String]) -> Vec<String> {
        let mut out = Vec::with_capacity(self.args.len());
        let mut it = self.args.iter();
        while let Some(a) = it.next() {
            if a == "--set" {
                if let Some(kv) = it.next() {
                    if keep.contains(kv) {
                        out.push(a.clone());
                        out.push(kv.clone());
                    }
                }
            } else {
                out.push(a.clone());
            }
        }
        out
    }

    /// The command that runs it, quoted for the shell.
    pub fn command(&self) -> String {
        let argv = std::iter::once("warpsmith").chain(self.args.iter().map(String::as_str));
        shlex::try_join(argv).unwrap_or_else(|_| self.args.join(" "))
    }
}

/// Load a list: a built-in name or a TOML file. Returns the list and the folder its relative
/// paths are resolved against.
pub fn load(name_or_file: &str) -> Result<(List, PathBuf), RegressError> {
    let (text, origin, dir) = builtin_or_file(name_or_file, LISTS, "regression list")?;
    Ok((List::parse(&text, &origin)?, dir))
}

/// The text of a built-in input of `builtins` named `name_or_file`, or of the file: its text,
/// its name in messages (`built-in NOUN NAME`, or the path) and the folder its relative paths
/// are resolved against.
pub(crate) fn builtin_or_file(
    name_or_file: &str,
    builtins: &[(&str, &str, &str)],
    noun: &str,
) -> Result<(String, String, PathBuf), RegressError> {
    if let Some((_, _, text)) = builtins.iter().find(|(n, _, _)| *n == name_or_file) {
        let origin = format!("built-in {noun} {name_or_file}");
        return Ok((text.to_string(), origin, PathBuf::from(".")));
    }
    let path = Path::new(name_or_file);
    if !path.exists() {
        let names: Vec<_> = builtins.iter().map(|(n, _, _)| *n).collect();
        return Err(RegressError::BadInput(format!(
            "no {noun} `{name_or_file}`: give a built-in {noun} ({}) or a TOML file",
            names.join(", ")
        )));
    }
    let text = spec::input::read_to_string(path)
        .map_err(|e| RegressError::Read(format!("{noun} {}", path.display()), e))?;
    let dir = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    Ok((text, path.display().to_string(), dir))
}

fn blocks_of(names: &[String], what: &str) -> Result<Vec<&'static BlockEntry>, String> {
    if names.is_empty() {
        return Err(format!(
            "`{what}` is empty: name at least one block, or \"all\""
        ));
    }
    if names.iter().any(|n| n == "all") {
        return Ok(BLOCKS.iter().collect());
    }
    names
        .iter()
        .map(|n| crate::blocks::find(n).map_err(|e| format!("{what}: {e}")))
        .collect()
}

pub(crate) fn presets_of(names: &[String]) -> Result<Vec<String>, String> {
    if names.is_empty() {
        return Err("`presets` is empty: name at least one preset, or \"all\"".into());
    }
    if names.iter().any(|n| n == "all") {
        return Ok(spec::PRESETS.iter().map(|p| p.name.to_string()).collect());
    }
    for n in names {
        spec::preset(n).map_err(|e| e.to_string())?;
    }
    Ok(names.to_vec())
}

/// Every combination of the `--set` matrix, as `key=value` lists (one empty list without one).
pub(crate) fn set_matrix(
    set: &BTreeMap<String, Spanned<Vec<toml::Value>>>,
) -> Result<Vec<Vec<String>>, String> {
    let mut out = vec![Vec::new()];
    for (k, values) in set {
        if values.get_ref().is_empty() {
            return Err(format!("set.{k}: no values"));
        }
        let mut next = Vec::new();
        for combo in &out {
            for v in values.get_ref() {
                let v = match v {
                    toml::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let mut c: Vec<String> = combo.clone();
                c.push(format!("{k}={v}"));
                next.push(c);
            }
        }
        out = next;
    }
    Ok(out)
}

/// The error of a list that claims more than [`MAX_JOBS`] jobs, at `at` (`FILE line N`).
fn too_many(at: String, what: &str) -> RegressError {
    RegressError::BadInput(format!(
        "{at}: {what} makes more jobs than the {MAX_JOBS} a list may expand to: give fewer, or \
            split the list into several"
    ))
}

/// Check the counts an entry claims before anything is sized by them: each alone, then their
/// product (every combination is at least one job), against [`MAX_JOBS`]. An error names the
/// key, the list and the line.
fn bound_entry(list: &List, e: &Spanned<Entry>) -> Result<(), RegressError> {
    let entry = e.get_ref();
    let len = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    let mut factors: Vec<(u64, String, usize)> = Vec::new();
    if let Some(n) = &entry.seed_count {
        let v = *n.get_ref();
        factors.push((v, format!("`seed_count` = {v}"), n.span().start));
    }
    if let Some(n) = &entry.random_configs {
        let v = *n.get_ref();
        factors.push((v, format!("`random_configs` = {v}"), n.span().start));
    }
    for (k, v) in &entry.set {
        let n = v.get_ref().len();
        factors.push((len(n), format!("{n} values of `set.{k}`"), v.span().start));
    }
    for (n, what, at) in &factors {
        if *n > MAX_JOBS {
            return Err(too_many(list.at(*at), what));
        }
    }
    let product = factors
        .iter()
        .try_fold(1u64, |p, (n, _, _)| p.checked_mul((*n).max(1)));
    if product.is_none_or(|p| p > MAX_JOBS) {
        let what: Vec<&str> = factors.iter().map(|(_, w, _)| w.as_str()).collect();
        return Err(too_many(
            list.at(e.span().start),
            &format!("the entry's combinations ({})", what.join(" x ")),
        ));
    }
    Ok(())
}

/// A job's id: the first 8 bytes of the SHA-256 of its command line, in hex (a regression's
/// and a sweep's jobs alike).
pub(crate) fn job_id(args: &[String]) -> String {
    let mut h = Sha256::new();
    for a in args {
        h.update(a.as_bytes());
        h.update([0]);
    }
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Expand a list into its jobs, in a fixed order. Every configuration is resolved (an illegal
/// one is an error naming its entry); mutants equivalent under a configuration are left out.
pub fn expand(list: &List, dir: &Path) -> Result<Vec<Job>, RegressError> {
    let mut jobs = Vec::new();
    for (i, spanned) in list.entry.iter().enumerate() {
        let line = list.at(spanned.span().start);
        let at = |why: String| RegressError::BadInput(format!("entry {} ({line}): {why}", i + 1));
        bound_entry(list, spanned)?;
        let e = spanned.get_ref();
        let blocks = blocks_of(&e.blocks, "blocks").map_err(at)?;
        let presets = presets_of(&e.presets).map_err(at)?;
        let seeds: Vec<u64> = match (&e.seed_count, e.seeds.is_empty()) {
            (Some(_), false) => return Err(at("give `seeds` or `seed_count`, not both".into())),
            (Some(n), true) => (1..=*n.get_ref()).collect(),
            (None, true) => vec![1],
            (None, false) => e.seeds.clone(),
        };
        if seeds.is_empty() {
            return Err(at("no seeds (`seed_count` = 0)".into()));
        }
        if e.cycles == 0 {
            return Err(at("`cycles` must be at least 1".into()));
        }
        let matrix = set_matrix(&e.set).map_err(at)?;
        let random_configs = e.random_configs.as_ref().map_or(0, |n| *n.get_ref());
        if random_configs > 0 && !e.set.is_empty() {
            return Err(at("give `set` or `random_configs`, not both".into()));
        }
        let configs: Vec<Option<PathBuf>> = if e.configs.is_empty() {
            vec![None]
        } else {
            e.configs.iter().map(|c| Some(dir.join(c))).collect()
        };
        let timeout = e.timeout.unwrap_or(JOB_TIMEOUT);
        for block in &blocks {
            let stimuli: Vec<String> = if e.stimuli.is_empty() {
                block.flow.iter().map(|s| s.to_string()).collect()
            } else {
                let mut v = Vec::new();
                for s in &e.stimuli {
                    if s == "flow" {
                        v.extend(block.flow.iter().map(|s| s.to_string()));
                    } else {
                        v.push(s.clone());
                    }
                }
                v
            };
            for preset in &presets {
                let mut variants: Vec<(Vec<String>, bool)> =
                    matrix.iter().map(|m| (m.clone(), false)).collect();
                if random_configs > 0 {
                    let seed = e.random_seed.unwrap_or(1);
                    let n = usize::try_from(random_configs).unwrap_or(usize::MAX);
                    let drawn =
                        random::draw(block, preset, seed, n).map_err(|err| at(err.to_string()))?;
                    variants = drawn.into_iter().map(|d| (d, true)).collect();
                }
                for config in &configs {
                    for (sets, random) in &variants {
                        let req = ConfigRequest {
                            preset: Some(preset.clone()),
                            gpgpusim: Vec::new(),
                            file: config.clone(),
                            overrides: sets.clone(),
                        };
                        let spec = req.resolve().map_err(|err| {
                            at(format!(
                                "{preset}{}{}: {err}",
                                config
                                    .as_ref()
                                    .map(|c| format!(" + {}", c.display()))
                                    .unwrap_or_default(),
                                if sets.is_empty() {
                                    String::new()
                                } else {
                                    format!(" --set {}", sets.join(" --set "))
                                }
                            ))
                        })?;
                        let mut base = vec![
                            "cosim".to_string(),
                            "--block".into(),
                            block.name.into(),
                            "--preset".into(),
                            preset.clone(),
                        ];
                        if let Some(c) = config {
                            base.push("--config".into());
                            base.push(c.display().to_string());
                        }
                        for kv in sets {
                            base.push("--set".into());
                            base.push(kv.clone());
                        }
                        let mut push = |stimulus: &str, seed: u64, cycles: u64, m: Option<&str>| {
                            if jobs.len() >= MAX_JOBS as usize {
                                return Err(too_many(
                                    line.clone(),
                                    "this entry, with the entries before it,",
                                ));
                            }
                            let mut args = base.clone();
                            args.extend([
                                "--stimulus".into(),
                                stimulus.to_string(),
                                "--seed".into(),
                                seed.to_string(),
                                "--cycles".into(),
                                cycles.to_string(),
                            ]);
                            if let Some(m) = m {
                                args.extend([
                                    "--mutant".into(),
                                    m.to_string(),
                                    "--no-shrink".into(),
                                ]);
                            }
                            jobs.push(Job {
                                key: JobKey {
                                    id: job_id(&args),
                                    block: block.name.to_string(),
                                    preset: preset.clone(),
                                    config: spec.name.clone(),
                                    config_hash: spec.hash.to_string(),
                                    sets: sets.clone(),
                                    stimulus: stimulus.to_string(),
                                    seed,
                                    cycles,
                                    mutant: m.map(str::to_string),
                                },
                                random: *random,
                                timeout,
                                args,
                            });
                            Ok(())
                        };
                        for s in &stimuli {
                            for &seed in &seeds {
                                push(s, seed, e.cycles, None)?;
                            }
                        }
                        if e.mutants && !random {
                            let stimulus = e.mutant_stimulus.as_deref().unwrap_or("random");
                            let cycles = e.mutant_cycles.unwrap_or(block.mutant_cycles);
                            let all = block.mutants.mutants().map_err(|err| at(err.to_string()))?;
                            for m in all {
                                if block.mutants.equivalent(m, &spec).is_none() {
                                    push(stimulus, seeds[0], cycles, Some(&m.name))?;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    jobs.retain(|j| seen.insert(j.id.clone()));
    Ok(jobs)
}

/// Shard `i` of `n` (1-based): every `n`-th job from the `i`-th, so the shards are disjoint,
/// cover the list, and share out its kinds of job evenly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// Parse `I/N` (1 <= I <= N).
    pub fn parse(s: &str) -> Result<Shard, RegressError> {
        let bad = || {
            RegressError::BadInput(format!(
                "--shard `{s}`: give I/N with 1 <= I <= N, e.g. --shard 2/4"
            ))
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    pub fn select<J: Clone>(&self, jobs: &[J]) -> Vec<J> {
        jobs.iter()
            .enumerate()
            .filter(|(k, _)| k % self.count == self.index - 1)
            .map(|(_, j)| j.clone())
            .collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &str) -> Vec<Job> {
        expand(&List::parse(text, "test.toml").unwrap(), Path::new(".")).unwrap()
    }

    #[test]
    fn an_entry_expands_to_every_combination_once() {
        let jobs = list(
            r#"
            [[entry]]
            blocks = ["ot", "dispatch"]
            presets = ["tiny", "fermi-gtx480"]
            set = { "ot.ways" = [4, 16], "dispatch.queue_entries" = [8, 16, 32] }
            stimuli = ["random"]
            seed_count = 2
            cycles = 100
            "#,
        );
        assert_eq!(jobs.len(), 2 * 2 * 2 * 3 * 2);
        let ids: std::collections::HashSet<_> = jobs.iter().map(|j| &j.id).collect();
        assert_eq!(ids.len(), jobs.len());
        // Each job's configuration is its own: the hash follows the --set values.
        let hashes: std::collections::HashSet<_> = jobs
            .iter()
            .filter(|j| j.block == "ot" && j.preset == "tiny" && j.seed == 1)
            .map(|j| &j.config_hash)
            .collect();
        assert_eq!(hashes.len(), 6);
    }

    #[test]
    fn flow_stimuli_and_mutants_come_from_the_registry() {
        let jobs = list(
            r#"
            [[entry]]
            blocks = ["all"]
            presets = ["tiny"]
            cycles = 100
            mutants = true
            "#,
        );
        for b in BLOCKS {
            let plain = jobs
                .iter()
                .filter(|j| j.block == b.name && j.mutant.is_none());
            assert_eq!(
                plain.map(|j| j.stimulus.as_str()).collect::<Vec<_>>(),
                b.flow.to_vec()
            );
            let spec = ConfigRequest::preset("tiny").resolve().unwrap();
            let live = b
                .mutants
                .mutants()
                .unwrap()
                .iter()
                .filter(|m| b.mutants.equivalent(m, &spec).is_none())
                .count();
            let muts = jobs
                .iter()
                .filter(|j| j.block == b.name && j.mutant.is_some())
                .count();
            assert_eq!(muts, live, "{}", b.name);
        }
    }

    /// Whether shards made by `select` are disjoint and cover `jobs`, for N in {1, 2, 3, 7}.
    fn partitions(jobs: &[Job], select: impl Fn(Shard, &[Job]) -> Vec<Job>) -> bool {
        [1, 2, 3, 7].iter().all(|&n| {
            let mut ids: Vec<String> = (1..=n)
                .flat_map(|i| select(Shard { index: i, count: n }, jobs))
                .map(|j| j.key.id)
                .collect();
            let mut want: Vec<String> = jobs.iter().map(|j| j.id.clone()).collect();
            ids.sort();
            want.sort();
            ids == want
        })
    }

    #[test]
    fn shards_are_disjoint_and_cover_the_list() {
        let (l, d) = load("smoke").unwrap();
        let jobs = expand(&l, &d).unwrap();
        assert!(jobs.len() > 7);
        assert!(partitions(&jobs, |s, j| s.select(j)));
        // A wrong variant, shards as runs of N consecutive jobs, leaves jobs out.
        let runs = |s: Shard, j: &[Job]| -> Vec<Job> {
            j.iter()
                .enumerate()
                .filter(|(k, _)| k / s.count == s.index - 1)
                .map(|(_, x)| x.clone())
                .collect()
        };
        assert!(!partitions(&jobs, runs));
    }

    #[test]
    fn bad_lists_say_what_is_wrong() {
        let err = |text: &str| {
            expand(&List::parse(text, "test.toml").unwrap(), Path::new("."))
                .unwrap_err()
                .to_string()
        };
        let e = err("[[entry]]\nblocks = [\"nope\"]\npresets = [\"tiny\"]\ncycles = 1\n");
        assert!(e.contains("entry 1") && e.contains("nope"), "{e}");
        let e = err(
            "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\ncycles = 1\nset = { \
            \"ot.ways\" = [3] }\n",
        );
        assert!(e.contains("entry 1") && e.contains("ot.ways"), "{e}");
        // Counts beyond MAX_JOBS: refused before anything is sized by them, naming the key,
        // the list and the line.
        let e = err(
            "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\ncycles = 1\nseed_count = \
            100000000\n",
        );
        assert!(
            e.contains("test.toml line 5") && e.contains("`seed_count` = 100000000"),
            "{e}"
        );
        let values = (0..400)
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let e = err(&format!(
            "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\ncycles = 1\nseed_count = \
                300\nset = {{ \"ot.ways\" = [{values}] }}\n"
        ));
        assert!(
            e.contains("test.toml line 1")
                && e.contains("`seed_count` = 300 x 400 values of `set.ot.ways`"),
            "{e}"
        );
        let e = err(
            "[[entry]]\nblocks = [\"ot\"]\npresets = [\"tiny\"]\ncycles = \
            1\nrandom_configs = 18446744073709551615\n",
        );
        assert!(
            e.contains("`random_configs`") && e.contains("line 5"),
            "{e}"
        );
        assert!(Shard::parse("0/2").is_err() && Shard::parse("3/2").is_err());
        assert_eq!(Shard::parse("2/2").unwrap(), Shard { index: 2, count: 2 });
    }
}
