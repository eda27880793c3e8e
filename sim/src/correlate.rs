//! Simulated counters held against a table of hardware counters (`warpsmith correlate`,
//! decision GPU-31): the table's kernels matched with a run's by name, and per metric each
//! kernel's error, the mean absolute percentage error and Pearson's correlation coefficient
//! over the kernels, as Accel-Sim's correlation plots give them; an SVG scatter plot per metric
//! and the counters in GPGPU-Sim's names, which Accel-Sim's own scripts read.
//!
//! The table is CSV with a header: a `Kernel` column (or `kernel`), an optional `Benchmark`
//! column, and a column per metric it measures, named as AccelWattch's Nsight table
//! (`../shared/reference/hardware/volta-v100-kernels.csv`: `Elapsed_Cycles`, `L1_RH`, ...) or
//! by the metric's own name ([`METRICS`]: `cycles`, `l1_read_hits`, ...). Each row is one
//! kernel's mean over its launches; an empty cell is a figure not measured.

use golden::gpu::run::KernelSummary;
use golden::mem::slice::{AccessKind, KindStats, SliceStats};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum CorrelateError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} line {line}: {message}", path.display())]
    Bad {
        path: PathBuf,
        line: u64,
        message: String,
    },
}

/// A figure compared: its name, the hardware table's columns it is read from, what it counts,
/// GPGPU-Sim's name for it, and how a simulated kernel gives it.
pub struct Metric {
    pub name: &'static str,
    pub columns: &'static [&'static str],
    pub what: &'static str,
    pub gpgpusim: &'static str,
    sim: fn(&KernelSummary) -> f64,
}

/// A cache's counts of one kind of access (none seen: zeros).
fn kind(s: &SliceStats, k: AccessKind) -> KindStats {
    s.by_kind.get(&k).copied().unwrap_or_default()
}

/// Lookups that did not find their sector: misses, sector misses, and merges into a fetch
/// already on its way (Nsight's lookup misses count each sector looked up and not present).
fn missed(k: &KindStats) -> f64 {
    (k.misses + k.sector_misses + k.mshr_merges) as f64
}

/// 32-byte sectors of `bytes`.
fn sectors(bytes: u64) -> f64 {
    bytes as f64 / 32.0
}

/// Every metric, in report order.
pub const METRICS: &[Metric] = &[
    Metric {
        name: "cycles",
        columns: &["Elapsed_Cycles", "cycles"],
        what: "core cycles of one launch",
        gpgpusim: "gpu_sim_cycle",
        sim: |k| k.cycles as f64,
    },
    Metric {
        name: "l1_read_hits",
        columns: &["L1_RH", "l1_read_hits"],
        what: "L1 sectors of global loads that hit",
        gpgpusim: "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT]",
        sim: |k| kind(&k.l1, AccessKind::GlobalRead).hits as f64,
    },
    Metric {
        name: "l1_read_misses",
        columns: &["L1_RM", "l1_read_misses"],
        what: "L1 sectors of global loads that missed",
        gpgpusim: "Total_core_cache_stats_breakdown[GLOBAL_ACC_R][MISS]",
        sim: |k| missed(&kind(&k.l1, AccessKind::GlobalRead)),
    },
    Metric {
        name: "l1_write_hits",
        columns: &["L1_WH", "l1_write_hits"],
        what: "L1 sectors of global stores that hit",
        gpgpusim: "Total_core_cache_stats_breakdown[GLOBAL_ACC_W][HIT]",
        sim: |k| kind(&k.l1, AccessKind::GlobalWrite).hits as f64,
    },
    Metric {
        name: "l1_write_misses",
        columns: &["L1_WM", "l1_write_misses"],
        what: "L1 sectors of global stores that missed",
        gpgpusim: "Total_core_cache_stats_breakdown[GLOBAL_ACC_W][MISS]",
        sim: |k| missed(&kind(&k.l1, AccessKind::GlobalWrite)),
    },
    Metric {
        name: "l2_read_hits",
        columns: &["L2_RH", "l2_read_hits"],
        what: "L2 sectors read from the L1s that hit",
        gpgpusim: "L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT]",
        sim: |k| kind(&k.l2, AccessKind::Read).hits as f64,
    },
    Metric {
        name: "l2_read_misses",
        columns: &["L2_RM", "l2_read_misses"],
        what: "L2 sectors read from the L1s that missed",
        gpgpusim: "L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS]",
        sim: |k| missed(&kind(&k.l2, AccessKind::Read)),
    },
    Metric {
        name: "l2_write_hits",
        columns: &["L2_WH", "l2_write_hits"],
        what: "L2 sectors written from the L1s that hit",
        gpgpusim: "L2_cache_stats_breakdown[GLOBAL_ACC_W][HIT]",
        sim: |k| kind(&k.l2, AccessKind::Write).hits as f64,
    },
    Metric {
        name: "l2_write_misses",
        columns: &["L2_WM", "l2_write_misses"],
        what: "L2 sectors written from the L1s that missed",
        gpgpusim: "L2_cache_stats_breakdown[GLOBAL_ACC_W][MISS]",
        sim: |k| missed(&kind(&k.l2, AccessKind::Write)),
    },
    Metric {
        name: "dram_read_sectors",
        columns: &["DRAM_Rd", "dram_read_sectors"],
        what: "32-byte sectors the DRAM read",
        gpgpusim: "total dram reads",
        sim: |k| sectors(k.dram_read_bytes),
    },
    Metric {
        name: "dram_write_sectors",
        columns: &["DRAM_Wr", "dram_write_sectors"],
        what: "32-byte sectors the DRAM wrote",
        gpgpusim: "total dram writes",
        sim: |k| sectors(k.dram_write_bytes),
    },
];

/// One kernel of the hardware table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HwKernel {
    pub benchmark: String,
    pub kernel: String,
    /// Its line in the table.
    pub line: u64,
    /// Per metric of [`METRICS`], the figure (`None`: not in the table, or empty).
    pub values: Vec<Option<f64>>,
}

/// Read a hardware counter table (see the module's documentation).
pub fn read_table(path: &Path) -> Result<Vec<HwKernel>, CorrelateError> {
    let text = spec::input::read_to_string(path).map_err(|source| CorrelateError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_table(&text, path)
}

/// [`read_table`] of `text`, named `path` in errors.
pub fn parse_table(text: &str, path: &Path) -> Result<Vec<HwKernel>, CorrelateError> {
    let bad = |line: u64, message: String| CorrelateError::Bad {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut r = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header = r
        .headers()
        .map_err(|e| bad(1, format!("not a CSV table: {e}")))?
        .clone();
    let col = |names: &[&str]| header.iter().position(|h| names.contains(&h));
    let kernel = col(&["Kernel", "kernel"])
        .ok_or_else(|| bad(1, "no `Kernel` (or `kernel`) column in the header".into()))?;
    let benchmark = col(&["Benchmark", "benchmark"]);
    let columns: Vec<Option<usize>> = METRICS.iter().map(|m| col(m.columns)).collect();
    if columns.iter().all(Option::is_none) {
        let names: Vec<&str> = METRICS
            .iter()
            .flat_map(|m| m.columns.iter().copied())
            .collect();
        return Err(bad(
            1,
            format!(
                "no metric column in the header; expected some of {}",
                names.join(", ")
            ),
        ));
    }
    let mut rows = Vec::new();
    for record in r.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            bad(line, format!("not a CSV record: {e}"))
        })?;
        let line = record.position().map_or(0, |p| p.line());
        let cell = |i: usize| record.get(i).unwrap_or("");
        let name = cell(kernel);
        if name.is_empty() {
            return Err(bad(line, "the kernel's name is empty".into()));
        }
        let mut values = Vec::with_capacity(METRICS.len());
        for (m, c) in METRICS.iter().zip(&columns) {
            let v = match c.map(cell).filter(|t| !t.is_empty()) {
                None => None,
                Some(t) => match t.parse::<f64>() {
                    Ok(v) if v.is_finite() && v >= 0.0 => Some(v),
                    _ => {
                        return Err(bad(
                            line,
                            format!(
                                "{} = {t:?}: not a count (a number, 0 or more)",
                                header.get(c.unwrap_or(0)).unwrap_or(m.name)
                            ),
                        ))
                    }
                },
            };
            values.push(v);
        }
        rows.push(HwKernel {
            benchmark: benchmark.map(cell).unwrap_or("").to_string(),
            kernel: name.to_string(),
            line,
            values,
        });
    }
    if rows.is_empty() {
        return Err(bad(1, "the table has no kernel".into()));
    }
    Ok(rows)
}

/// The name a kernel is matched by: an Itanium-mangled name's identifier (`_Z4sradfiil...` ->
/// `srad`), else the name up to a parameter list.
pub fn base_name(name: &str) -> &str {
    if let Some(rest) = name.strip_prefix("_Z") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if let Ok(len) = rest[..digits].parse::<usize>() {
            if let Some(id) = rest.get(digits..digits + len) {
                return id;
            }
        }
    }
    name.split('(').next().unwrap_or(name).trim()
}

/// One simulated kernel: its launches' mean figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimKernel {
    pub name: String,
    /// The workload that ran it.
    pub workload: String,
    pub launches: u64,
    pub instructions: f64,
    /// Per metric of [`METRICS`].
    pub values: Vec<f64>,
}

/// The kernels of one run, by name in first-launch order, each its launches' mean.
pub fn sim_kernels(workload: &str, kernels: &[KernelSummary]) -> Vec<SimKernel> {
    let mut out: Vec<SimKernel> = Vec::new();
    for k in kernels {
        let i = match out.iter().position(|s| s.name == k.name) {
            Some(i) => i,
            None => {
                out.push(SimKernel {
                    name: k.name.clone(),
                    workload: workload.to_string(),
                    launches: 0,
                    instructions: 0.0,
                    values: vec![0.0; METRICS.len()],
                });
                out.len() - 1
            }
        };
        let s = &mut out[i];
        s.launches += 1;
        s.instructions += k.instructions as f64;
        for (v, m) in s.values.iter_mut().zip(METRICS) {
            *v += (m.sim)(k);
        }
    }
    for s in &mut out {
        let n = s.launches as f64;
        s.instructions /= n;
        s.values.iter_mut().for_each(|v| *v /= n);
    }
    out
}

/// A hardware kernel and the simulated kernel matched with it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Pair {
    pub benchmark: String,
    pub kernel: String,
    pub workload: String,
    pub launches: u64,
    /// Per metric: (simulated, measured, relative error (sim − hw) / hw where hw > 0).
    pub figures: Vec<Figure>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Figure {
    pub metric: &'static str,
    pub simulated: f64,
    pub measured: Option<f64>,
    pub error: Option<f64>,
}

/// Per metric, over the kernels with a measured figure.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MetricSummary {
    pub metric: &'static str,
    pub what: &'static str,
    /// Kernels with a measured figure; of them, with a measured figure above 0 (an error is
    /// relative to it).
    pub kernels: usize,
    pub nonzero: usize,
    /// Mean absolute percentage error over the nonzero ones, in percent.
    pub mape: Option<f64>,
    /// Of the nonzero ones, those within 10 % and within 25 %.
    pub within_10: usize,
    pub within_25: usize,
    /// Pearson's correlation coefficient over every kernel with a measured figure.
    pub pearson: Option<f64>,
}

/// The schema name and version of `correlate`'s JSON report (its provenance's `schema`).
pub const SCHEMA: &str = "warpsmith-correlate/1";

/// The whole comparison.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// The configuration's name (the JSON report's provenance carries it).
    #[serde(skip)]
    pub config: String,
    pub table: String,
    pub pairs: Vec<Pair>,
    pub metrics: Vec<MetricSummary>,
    /// Hardware kernels no simulated kernel matched ("benchmark kernel (line N)").
    pub unmatched_hardware: Vec<String>,
    /// Simulated kernels the table does not have.
    pub unmatched_simulated: Vec<String>,
    /// Whether every kernel started with cold caches (`--cache-control all`, decision GPU-33).
    pub cold_caches: bool,
}

/// Pearson's correlation coefficient of `(x, y)` pairs (`None`: fewer than two, or either
/// constant).
pub fn pearson(xy: &[(f64, f64)]) -> Option<f64> {
    let n = xy.len() as f64;
    if xy.len() < 2 {
        return None;
    }
    let (mx, my) = (
        xy.iter().map(|p| p.0).sum::<f64>() / n,
        xy.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xy {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Match the table's kernels with the simulated ones (by full name, else by
/// [`base_name`]) and compare them; `cold_caches`: how the simulated kernels were run.
pub fn compare(
    config: &str,
    table: &str,
    hw: &[HwKernel],
    sim: &[SimKernel],
    cold_caches: bool,
) -> Report {
    let mut pairs = Vec::new();
    let mut unmatched_hardware = Vec::new();
    let mut used = vec![false; sim.len()];
    for h in hw {
        let found = sim.iter().position(|s| s.name == h.kernel).or_else(|| {
            sim.iter()
                .position(|s| base_name(&s.name) == base_name(&h.kernel))
        });
        let Some(i) = found else {
            unmatched_hardware.push(format!("{} {} (line {})", h.benchmark, h.kernel, h.line));
            continue;
        };
        used[i] = true;
        let s = &sim[i];
        let figures = METRICS
            .iter()
            .enumerate()
            .map(|(m, metric)| Figure {
                metric: metric.name,
                simulated: s.values[m],
                measured: h.values[m],
                error: h.values[m]
                    .filter(|v| *v > 0.0)
                    .map(|v| (s.values[m] - v) / v),
            })
            .collect();
        pairs.push(Pair {
            benchmark: h.benchmark.clone(),
            kernel: h.kernel.clone(),
            workload: s.workload.clone(),
            launches: s.launches,
            figures,
        });
    }
    let metrics = METRICS
        .iter()
        .enumerate()
        .map(|(m, metric)| summarize(metric, m, &pairs))
        .collect();
    let unmatched_simulated = sim
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(s, _)| format!("{} ({})", s.name, s.workload))
        .collect();
    Report {
        config: config.to_string(),
        table: table.to_string(),
        pairs,
        metrics,
        unmatched_hardware,
        unmatched_simulated,
        cold_caches,
    }
}

fn summarize(metric: &Metric, m: usize, pairs: &[Pair]) -> MetricSummary {
    let measured: Vec<&Figure> = pairs
        .iter()
        .map(|p| &p.figures[m])
        .filter(|f| f.measured.is_some())
        .collect();
    let errors: Vec<f64> = measured.iter().filter_map(|f| f.error).collect();
    let xy: Vec<(f64, f64)> = measured
        .iter()
        .map(|f| (f.measured.unwrap_or(0.0), f.simulated))
        .collect();
    MetricSummary {
        metric: metric.name,
        what: metric.what,
        kernels: measured.len(),
        nonzero: errors.len(),
        mape: (!errors.is_empty())
            .then(|| 100.0 * errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64),
        within_10: errors.iter().filter(|e| e.abs() <= 0.10).count(),
        within_25: errors.iter().filter(|e| e.abs() <= 0.25).count(),
        pearson: pearson(&xy),
    }
}

/// The simulated kernels' counters in GPGPU-Sim's names, a block per kernel as GPGPU-Sim
/// prints at a kernel's end (`kernel_name`, `kernel_launch_uid`, then `name = value` lines),
/// which Accel-Sim's `get_stats.py` and correlation scripts read.
pub fn gpgpusim_stats(sim: &[SimKernel]) -> String {
    let mut t = String::new();
    let mut total = 0.0;
    for (uid, s) in sim.iter().enumerate() {
        total += s.values[0];
        t += &format!(
            "kernel_name = {}\nkernel_launch_uid = {}\n",
            s.name,
            uid + 1
        );
        t += &format!("gpu_sim_insn = {:.0}\n", s.instructions);
        for (m, v) in METRICS.iter().zip(&s.values) {
            t += &format!("\t{} = {v:.0}\n", m.gpgpusim);
        }
        t += &format!("gpu_tot_sim_cycle = {total:.0}\n\n");
    }
    t
}

/// An SVG scatter plot of one metric: simulated against measured on log axes, with the y = x
/// line (kernels with a zero figure cannot be drawn on them and are counted in the caption).
pub fn scatter_svg(report: &Report, m: usize) -> String {
    const SIZE: f64 = 420.0;
    const PAD: f64 = 60.0;
    let metric = &METRICS[m];
    let points: Vec<(f64, f64, &str)> = report
        .pairs
        .iter()
        .filter_map(|p| {
            let f = &p.figures[m];
            f.measured.map(|h| (h, f.simulated, p.kernel.as_str()))
        })
        .collect();
    let drawn: Vec<&(f64, f64, &str)> = points
        .iter()
        .filter(|(h, s, _)| *h > 0.0 && *s > 0.0)
        .collect();
    let (lo, hi) = drawn
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), (h, s, _)| {
            (lo.min(h.min(*s)), hi.max(h.max(*s)))
        });
    let (lo, hi) = if drawn.is_empty() {
        (0.0, 1.0)
    } else {
        (
            lo.log10().floor(),
            hi.log10().ceil().max(lo.log10().floor() + 1.0),
        )
    };
    let at = |v: f64| PAD + (v.log10() - lo) / (hi - lo) * SIZE;
    let (w, h) = (SIZE + 2.0 * PAD, SIZE + 2.0 * PAD);
    let mut t = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"white\"/>\n"
    );
    let s = report.metrics.get(m);
    let stats = s
        .map(|s| {
            format!(
                "MAPE {}  r {}  n {}",
                s.mape.map_or("-".into(), |v| format!("{v:.1}%")),
                s.pearson.map_or("-".into(), |v| format!("{v:.3}")),
                s.kernels
            )
        })
        .unwrap_or_default();
    t += &format!(
        "<text x=\"{PAD}\" y=\"20\" font-size=\"13\">{}: simulated against measured ({})</text>\n\
         <text x=\"{PAD}\" y=\"38\">{} on {}  {stats}</text>\n",
        metric.name,
        metric.what,
        xml(&report.config),
        xml(&report.table)
    );
    // The frame, the decades and the y = x line.
    let (x0, x1) = (PAD, PAD + SIZE);
    let flip = |y: f64| h - y;
    t += &format!(
        "<rect x=\"{x0}\" y=\"{PAD}\" width=\"{SIZE}\" height=\"{SIZE}\" fill=\"none\" \
         stroke=\"black\"/>\n"
    );
    let mut d = lo;
    while d <= hi && !drawn.is_empty() {
        let v = 10f64.powf(d);
        let p = at(v);
        t += &format!(
            "<line x1=\"{p:.1}\" y1=\"{:.1}\" x2=\"{p:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\n\
             <line x1=\"{x0:.1}\" y1=\"{:.1}\" x2=\"{x1:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>\n\
             <text x=\"{p:.1}\" y=\"{:.1}\" text-anchor=\"middle\">1e{d}</text>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">1e{d}</text>\n",
            flip(x0),
            flip(x1),
            flip(p),
            flip(p),
            flip(x0) + 14.0,
            x0 - 4.0,
            flip(p) + 4.0
        );
        d += 1.0;
    }
    t += &format!(
        "<line x1=\"{x0}\" y1=\"{:.1}\" x2=\"{x1}\" y2=\"{:.1}\" stroke=\"gray\" \
         stroke-dasharray=\"4 3\"/>\n",
        flip(x0),
        flip(x1)
    );
    for (hw, sim, name) in &drawn {
        t += &format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"#1f77b4\"><title>{}: measured \
             {hw:.0}, simulated {sim:.0}</title></circle>\n",
            at(*hw),
            flip(at(*sim)),
            xml(name)
        );
    }
    t += &format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">measured</text>\n\
         <text x=\"14\" y=\"{:.1}\" transform=\"rotate(-90 14 {:.1})\" \
         text-anchor=\"middle\">simulated</text>\n",
        PAD + SIZE / 2.0,
        h - 16.0,
        h / 2.0,
        h / 2.0
    );
    let hidden = points.len() - drawn.len();
    if hidden > 0 {
        t += &format!(
            "<text x=\"{PAD}\" y=\"{:.1}\">{hidden} kernel(s) with a zero figure not drawn (log \
             axes)</text>\n",
            h - 2.0
        );
    }
    t + "</svg>\n"
}

/// `text` with XML's special characters escaped.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Per metric name, its index in [`METRICS`].
pub fn metric_index() -> BTreeMap<&'static str, usize> {
    METRICS
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name, i))
        .collect()
}

#[cfg(test)]
#[path = "correlate_tests.rs"]
mod tests;
