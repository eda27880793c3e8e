//! `warpsmith reproduce`: each seed's headline comparisons rerun as a sweep ([`crate::sweep`])
//! on the workload library's kernels of its kind, against its baselines, on the preset closest
//! to its paper's GPU ([`seeds::SEEDS`]), and held against the paper's figures ([`analyse`]):
//! per headline the per-workload change, its aggregate, the paper's value and the direction
//! verdict; [`html`] draws the report.

pub mod html;
pub mod seeds;
pub mod timeline;

use crate::sweep::table::{Row, Status};
use serde::Serialize;
use std::collections::BTreeMap;

pub use seeds::SEEDS;

/// A workload of a seed's experiment: its kind as an experiment key (`kernels`, `workloads`),
/// its name, and whether `--quick` runs it.
#[derive(Debug, Clone, Copy)]
pub struct Work {
    pub kind: &'static str,
    pub name: &'static str,
    pub quick: bool,
}

/// A configuration a seed compares: its label and its `--set` values over the preset.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    pub label: &'static str,
    pub sets: &'static [&'static str],
}

/// A figure of a run's report that a headline compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Metric {
    /// Warp instructions per core cycle.
    Ipc,
    /// (L1 misses + sector misses) / L1 accesses.
    L1MissRate,
    /// The address predictor's prediction coverage and accuracy (decision OT-12).
    Pcov,
    Pacc,
    /// Mean time of a global load, issue to last answer (core cycles): seed 004's load-warp
    /// time.
    LoadLatency,
    /// DRAM energy (nJ).
    DramEnergy,
    /// DRAM row-buffer hit rate.
    RowHitRate,
    /// (useful + late) / issued prefetches.
    PrefetchAccuracy,
    /// Prefetched lines evicted before use, per useful prefetch (Table I's early-eviction
    /// metric).
    EarlyPerUseful,
    /// The throttle's prefetch degree, averaged over the SMs' cycles (the engine reports 0
    /// when it is not throttled).
    MeanDegree,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Ipc => "IPC",
            Metric::L1MissRate => "L1 miss rate",
            Metric::Pcov => "PCOV",
            Metric::Pacc => "PACC",
            Metric::LoadLatency => "load time (cycles)",
            Metric::DramEnergy => "DRAM energy (nJ)",
            Metric::RowHitRate => "DRAM row hit rate",
            Metric::PrefetchAccuracy => "prefetch accuracy",
            Metric::EarlyPerUseful => "early evictions / useful",
            Metric::MeanDegree => "mean throttle degree (0: unthrottled)",
        }
    }

    /// The run report's statistics the metric is computed from (a key keeps its fields).
    pub fn statistics(self) -> &'static [&'static str] {
        match self {
            Metric::Ipc => &["ipc"],
            Metric::L1MissRate => &["l1.misses", "l1.sector_misses", "l1.accesses"],
            Metric::Pcov => &["ot.pcov"],
            Metric::Pacc => &["ot.pacc"],
            Metric::LoadLatency => &["load_latency.mean"],
            Metric::DramEnergy => &["dram.energy.total_nj"],
            Metric::RowHitRate => &["dram.row_hit_rate"],
            Metric::PrefetchAccuracy => &["prefetch.useful", "prefetch.late", "prefetch.issued"],
            Metric::EarlyPerUseful => &["prefetch.early_evicted", "prefetch.useful"],
            Metric::MeanDegree => &["prefetch.degree_cycles"],
        }
    }

    /// Its value in a row's statistics; `None` when the run does not have it (no prefetcher)
    /// or it is undefined (no accesses).
    pub fn of(self, stats: &BTreeMap<String, serde_json::Value>) -> Option<f64> {
        let get = |k: &str| stats.get(k).and_then(serde_json::Value::as_f64);
        let ratio = |a: f64, b: f64| (b > 0.0).then(|| a / b);
        match self {
            Metric::Ipc => get("ipc"),
            Metric::L1MissRate => ratio(
                get("l1.misses")? + get("l1.sector_misses")?,
                get("l1.accesses")?,
            ),
            Metric::Pcov => get("ot.pcov"),
            Metric::Pacc => get("ot.pacc"),
            Metric::LoadLatency => get("load_latency.mean"),
            Metric::DramEnergy => get("dram.energy.total_nj"),
            Metric::RowHitRate => get("dram.row_hit_rate"),
            Metric::PrefetchAccuracy => ratio(
                get("prefetch.useful")? + get("prefetch.late")?,
                get("prefetch.issued")?,
            ),
            Metric::EarlyPerUseful => {
                ratio(get("prefetch.early_evicted")?, get("prefetch.useful")?)
            }
            Metric::MeanDegree => {
                let cycles: Vec<f64> = (0..)
                    .map_while(|d| get(&format!("prefetch.degree_cycles.{d}")))
                    .collect();
                let weighted: f64 = cycles.iter().enumerate().map(|(d, c)| d as f64 * c).sum();
                ratio(weighted, cycles.iter().sum())
            }
        }
    }
}

/// The direction a headline claims, for its aggregate change (variant against baseline).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Expect {
    /// Above the baseline.
    Higher,
    /// Below it.
    Lower,
    /// Within this fraction of it, either way.
    Similar(f64),
    /// At most this fraction above it.
    NotHigher(f64),
    /// No workload's change below this fraction (negative: a loss).
    NeverWorseThan(f64),
}

impl Expect {
    pub fn describe(self) -> String {
        match self {
            Expect::Higher => format!("higher, by more than {:.0} %", NOISE * 100.0),
            Expect::Lower => format!("lower, by more than {:.0} %", NOISE * 100.0),
            Expect::Similar(t) => format!("within {:.0} %", t * 100.0),
            Expect::NotHigher(t) => format!("at most {:+.0} %", t * 100.0),
            Expect::NeverWorseThan(t) => format!("no workload below {:+.0} %", t * 100.0),
        }
    }
}

/// One headline claim of a paper.
#[derive(Debug, Clone, Copy)]
pub struct Headline {
    pub claim: &'static str,
    /// Where the paper states it.
    pub figure: &'static str,
    /// The paper's value as it states it, and as a change (0.25: +25 %) when it gives one.
    pub paper: &'static str,
    pub paper_value: Option<f64>,
    pub metric: Metric,
    /// The labels of the configuration and of the one it is held against.
    pub variant: &'static str,
    pub against: &'static str,
    pub expect: Expect,
}

/// A seed's reproduction: what runs and what is claimed.
#[derive(Debug, Clone, Copy)]
pub struct SeedDef {
    pub id: &'static str,
    pub title: &'static str,
    pub paper: &'static str,
    /// The GPU the paper simulated, and how the preset differs.
    pub paper_gpu: &'static str,
    pub preset: &'static str,
    pub workloads: &'static [Work],
    /// The configurations it compares; the first is its baseline.
    pub variants: &'static [Variant],
    pub headlines: &'static [Headline],
    /// Figures shown per configuration beside the headlines (the measurements that explain
    /// them).
    pub diagnostics: &'static [Metric],
    /// Why ours differs from the paper where it does: what was measured, and the commands
    /// that show it (docs/findings.md has the longer account).
    pub notes: &'static [&'static str],
    /// What is drawn over time (none: nothing its configurations change over time).
    pub timeline: Option<timeline::Timeline>,
}

/// The seed of id `id` (`000`..`004`, or `4`).
pub fn seed(id: &str) -> Option<&'static SeedDef> {
    let n: u32 = id.parse().ok()?;
    SEEDS.iter().find(|s| s.id.parse::<u32>().ok() == Some(n))
}

impl SeedDef {
    fn variant(&self, label: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.label == label)
    }

    /// Its workloads at a size: all, or those `--quick` runs.
    pub fn workloads(&self, quick: bool) -> impl Iterator<Item = &Work> {
        self.workloads.iter().filter(move |w| w.quick || !quick)
    }

    /// The statistics its headlines and diagnostics read.
    fn statistics(&self) -> Vec<&'static str> {
        let mut keys: Vec<&'static str> = self
            .headlines
            .iter()
            .map(|h| h.metric)
            .chain(self.diagnostics.iter().copied())
            .flat_map(|m| m.statistics().iter().copied())
            .chain(["cycles"])
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// Its experiment (TOML, for `warpsmith sweep`): one `[[run]]` per configuration over
    /// its workloads.
    pub fn experiment(&self, quick: bool) -> String {
        let list = |v: &mut dyn Iterator<Item = String>| {
            v.map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
        };
        let mut t = format!(
            "# Seed {}: {}\n# {}\n# {}\n",
            self.id, self.title, self.paper, self.paper_gpu
        );
        t.push_str(&format!(
            "description = {:?}\nstatistics = [{}]\n",
            format!("seed {} headline comparisons ({})", self.id, self.preset),
            list(&mut self.statistics().into_iter().map(str::to_string))
        ));
        for v in self.variants {
            t.push_str(&format!("\n# {}\n[[run]]\n", v.label));
            for kind in ["kernels", "workloads"] {
                let names: Vec<String> = self
                    .workloads(quick)
                    .filter(|w| w.kind == kind)
                    .map(|w| w.name.to_string())
                    .collect();
                if !names.is_empty() {
                    t.push_str(&format!("{kind} = [{}]\n", list(&mut names.into_iter())));
                }
            }
            t.push_str(&format!("presets = [{:?}]\n", self.preset));
            if !v.sets.is_empty() {
                let mut by_key: Vec<(String, String)> = v
                    .sets
                    .iter()
                    .filter_map(|kv| kv.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                by_key.sort();
                let cells: Vec<String> = by_key
                    .iter()
                    .map(|(k, v)| format!("{k:?} = [{}]", toml_value(v)))
                    .collect();
                t.push_str(&format!("set = {{ {} }}\n", cells.join(", ")));
            }
        }
        t
    }
}

/// A `--set` value as TOML: a boolean or a number as itself, anything else a string.
fn toml_value(v: &str) -> String {
    if v == "true" || v == "false" || v.parse::<i64>().is_ok() {
        v.to_string()
    } else {
        format!("{v:?}")
    }
}

/// One workload's figures under a headline's two configurations.
#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    pub workload: String,
    pub baseline: Option<f64>,
    pub value: Option<f64>,
    /// value / baseline - 1.
    pub change: Option<f64>,
    /// The commands that measured the two figures.
    pub baseline_command: String,
    pub command: String,
}

/// A configuration's label and a figure of it (`None`: no workload has it).
pub type Labelled = (String, Option<f64>);

/// A headline measured.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    pub claim: String,
    pub figure: String,
    pub paper: String,
    pub paper_value: Option<f64>,
    pub metric: Metric,
    pub variant: String,
    pub against: String,
    pub expect: Expect,
    pub pairs: Vec<Pair>,
    /// The aggregate change: the geometric mean of the workloads' ratios, less 1.
    pub change: Option<f64>,
    /// Whether the measured change goes the paper's way; `None` when nothing was measured.
    pub reproduced: Option<bool>,
}

/// A seed's reproduction measured: every headline, and every configuration's diagnostics per
/// workload.
#[derive(Debug, Clone, Serialize)]
pub struct SeedResult {
    pub id: String,
    pub title: String,
    pub paper: String,
    pub paper_gpu: String,
    pub preset: String,
    pub headlines: Vec<Measured>,
    /// Per metric, per configuration (in order), its mean over the workloads that have it.
    pub diagnostics: Vec<(Metric, Vec<Labelled>)>,
    pub notes: Vec<String>,
    /// Statistics over time ([`timeline::run`]; empty until it has run).
    pub timelines: Vec<timeline::Plot>,
    /// Rows that erred (the workload, configuration and message).
    pub errors: Vec<String>,
    pub rows: usize,
}

/// The label of the configuration a row ran, if it is one of the seed's.
fn variant_of<'a>(s: &'a SeedDef, row: &Row) -> Option<&'a Variant> {
    let mut sets = row.key.sets.clone();
    sets.sort();
    s.variants.iter().find(|v| {
        let mut want: Vec<String> = v.sets.iter().map(|x| x.to_string()).collect();
        want.sort();
        want == sets
    })
}

/// The geometric mean of `ratios` (all positive), less 1.
fn geomean_change(ratios: &[f64]) -> Option<f64> {
    if ratios.is_empty() || ratios.iter().any(|r| *r <= 0.0 || !r.is_finite()) {
        return None;
    }
    let mean_log = ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64;
    Some(mean_log.exp() - 1.0)
}

/// The smallest aggregate change that counts as higher or lower: below it, a configuration
/// made no difference (a +0.02 % is not a paper's +25 % "in direction").
pub const NOISE: f64 = 0.01;

/// Whether a measured change (aggregate, and every workload's) goes the way `e` claims.
pub fn verdict(e: Expect, change: f64, each: &[f64]) -> bool {
    match e {
        Expect::Higher => change > NOISE,
        Expect::Lower => change < -NOISE,
        Expect::Similar(t) => change.abs() <= t,
        Expect::NotHigher(t) => change <= t,
        Expect::NeverWorseThan(t) => each.iter().all(|c| *c >= t),
    }
}

/// Hold a seed's table (its sweep's rows) against its headlines.
pub fn analyse(s: &SeedDef, rows: &[Row]) -> SeedResult {
    let ok: Vec<(&Row, &Variant)> = rows
        .iter()
        .filter(|r| r.status == Status::Ok)
        .filter_map(|r| variant_of(s, r).map(|v| (r, v)))
        .collect();
    let find = |workload: &str, label: &str| {
        ok.iter()
            .find(|(r, v)| r.key.workload == workload && v.label == label)
            .map(|(r, _)| *r)
    };
    let workloads: Vec<String> = {
        let mut w: Vec<String> = Vec::new();
        for r in rows {
            if !w.contains(&r.key.workload) {
                w.push(r.key.workload.clone());
            }
        }
        w
    };
    let headlines = s
        .headlines
        .iter()
        .map(|h| {
            let pairs: Vec<Pair> = workloads
                .iter()
                .filter_map(|w| {
                    let (b, v) = (find(w, h.against)?, find(w, h.variant)?);
                    let (bv, vv) = (h.metric.of(&b.statistics), h.metric.of(&v.statistics));
                    let change = match (bv, vv) {
                        (Some(b), Some(v)) if b > 0.0 => Some(v / b - 1.0),
                        _ => None,
                    };
                    Some(Pair {
                        workload: w.clone(),
                        baseline: bv,
                        value: vv,
                        change,
                        baseline_command: b.command.clone(),
                        command: v.command.clone(),
                    })
                })
                .collect();
            let each: Vec<f64> = pairs.iter().filter_map(|p| p.change).collect();
            let ratios: Vec<f64> = each.iter().map(|c| 1.0 + c).collect();
            let change = geomean_change(&ratios);
            Measured {
                claim: h.claim.into(),
                figure: h.figure.into(),
                paper: h.paper.into(),
                paper_value: h.paper_value,
                metric: h.metric,
                variant: h.variant.into(),
                against: h.against.into(),
                expect: h.expect,
                reproduced: change.map(|c| verdict(h.expect, c, &each)),
                pairs,
                change,
            }
        })
        .collect();
    let diagnostics = s
        .diagnostics
        .iter()
        .map(|m| {
            let per = s
                .variants
                .iter()
                .map(|v| {
                    let xs: Vec<f64> = ok
                        .iter()
                        .filter(|(_, rv)| rv.label == v.label)
                        .filter_map(|(r, _)| m.of(&r.statistics))
                        .collect();
                    let mean = (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64);
                    (v.label.to_string(), mean)
                })
                .collect();
            (*m, per)
        })
        .collect();
    let errors = rows
        .iter()
        .filter(|r| r.status == Status::Error)
        .map(|r| {
            format!(
                "{} [{}]: {}",
                r.key.workload,
                r.key.sets.join(" "),
                r.message
            )
        })
        .collect();
    SeedResult {
        id: s.id.into(),
        title: s.title.into(),
        paper: s.paper.into(),
        paper_gpu: s.paper_gpu.into(),
        preset: s.preset.into(),
        headlines,
        diagnostics,
        notes: s.notes.iter().map(|n| n.to_string()).collect(),
        timelines: Vec::new(),
        errors,
        rows: rows.len(),
    }
}

/// Check the seeds' definitions: every headline names two of its seed's configurations, every
/// timeline configurations of its seed and workloads it runs at each size.
pub fn check_definitions() -> Result<(), String> {
    for s in SEEDS {
        if let Some(t) = s.timeline {
            for label in t.variants {
                if s.variant(label).is_none() {
                    return Err(format!("seed {}: timeline names `{label}`", s.id));
                }
            }
            let has = |w: Work, quick: bool| s.workloads(quick).any(|x| x.name == w.name);
            if !has(t.workload, false) || !has(t.quick_workload, true) {
                return Err(format!(
                    "seed {}: a timeline workload it does not run",
                    s.id
                ));
            }
        }
        for h in s.headlines {
            for label in [h.variant, h.against] {
                if s.variant(label).is_none() {
                    return Err(format!(
                        "seed {}: headline `{}` names `{label}`, not one of its configurations",
                        s.id, h.claim
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::{self, Experiment};
    use std::path::Path;

    #[test]
    fn every_seed_is_an_experiment_that_expands_and_names_real_statistics() {
        check_definitions().unwrap();
        for s in SEEDS {
            for quick in [true, false] {
                let text = s.experiment(quick);
                let x = Experiment::parse(&text, &format!("seed {}", s.id)).unwrap();
                x.statistics().unwrap();
                let jobs = sweep::expand(&x, Path::new(".")).unwrap();
                let n = s.workloads(quick).count();
                assert_eq!(jobs.len(), n * s.variants.len(), "{text}");
                // Every job is one of the seed's configurations.
                for j in &jobs {
                    let mut sets = j.key.sets.clone();
                    sets.sort();
                    assert!(
                        s.variants.iter().any(|v| {
                            let mut w: Vec<String> = v.sets.iter().map(|x| x.to_string()).collect();
                            w.sort();
                            w == sets
                        }),
                        "{sets:?}"
                    );
                }
            }
            assert!(s.workloads(true).count() >= 2, "seed {}", s.id);
        }
        assert_eq!(seed("4").unwrap().id, "004");
        assert!(seed("7").is_none());
    }

    #[test]
    fn verdicts_follow_the_claimed_direction() {
        assert!(verdict(Expect::Higher, 0.011, &[]));
        assert!(!verdict(Expect::Higher, -0.01, &[]));
        // No difference is not a direction.
        assert!(!verdict(Expect::Higher, 0.0002, &[]));
        assert!(!verdict(Expect::Lower, -0.009, &[]));
        assert!(verdict(Expect::Lower, -0.2, &[]));
        assert!(!verdict(Expect::Lower, 0.0, &[]));
        assert!(verdict(Expect::Similar(0.1), -0.09, &[]));
        assert!(!verdict(Expect::Similar(0.1), 0.11, &[]));
        assert!(verdict(Expect::NotHigher(0.01), 0.005, &[]));
        assert!(!verdict(Expect::NotHigher(0.01), 0.02, &[]));
        // One workload much worse fails it, whatever the aggregate.
        assert!(!verdict(Expect::NeverWorseThan(-0.05), 0.3, &[0.5, -0.06]));
        assert!(verdict(Expect::NeverWorseThan(-0.05), 0.3, &[0.5, -0.04]));
    }

    #[test]
    fn metrics_read_the_reports_figures() {
        let stats: BTreeMap<String, serde_json::Value> = [
            ("l1.misses", 30.0),
            ("l1.sector_misses", 10.0),
            ("l1.accesses", 200.0),
            ("prefetch.useful", 6.0),
            ("prefetch.late", 2.0),
            ("prefetch.issued", 10.0),
            ("prefetch.early_evicted", 3.0),
            ("prefetch.degree_cycles.0", 1.0),
            ("prefetch.degree_cycles.1", 0.0),
            ("prefetch.degree_cycles.2", 3.0),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
        .collect();
        assert_eq!(Metric::L1MissRate.of(&stats), Some(0.2));
        assert_eq!(Metric::PrefetchAccuracy.of(&stats), Some(0.8));
        assert_eq!(Metric::EarlyPerUseful.of(&stats), Some(0.5));
        assert_eq!(Metric::MeanDegree.of(&stats), Some(1.5));
        assert_eq!(Metric::Ipc.of(&stats), None);
        assert!((geomean_change(&[2.0, 0.5]).unwrap()).abs() < 1e-12);
        assert_eq!(geomean_change(&[]), None);
    }
}
