//! Statistics over time in the report: a seed's representative workload rerun under some of its
//! configurations with `--stats-interval` (the very job of its sweep, by the row's command),
//! each sample field a line per configuration.

use super::{SeedDef, Work};
use crate::regress::run::{child, tail, Ended};
use crate::regress::RegressError;
use crate::sweep::table::{Row, Status};
use serde::Serialize;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What a seed plots over time.
#[derive(Debug, Clone, Copy)]
pub struct Timeline {
    /// The workload, at the default size and at `--quick`.
    pub workload: Work,
    pub quick_workload: Work,
    /// The configurations drawn (labels of the seed's).
    pub variants: &'static [&'static str],
    /// The sample fields plotted (`warpsmith schema sample`), each with its axis title.
    pub fields: &'static [(&'static str, &'static str)],
}

/// Samples a run is cut into (its cycles over this is the interval).
const SAMPLES: u64 = 60;

/// One configuration's line.
#[derive(Debug, Clone, Serialize)]
pub struct Series {
    pub label: String,
    /// The run, with `--stats-interval` and `--stats-out`.
    pub command: String,
    /// (core cycle, value) of each sample; `None` where the sample has no value.
    pub points: Vec<(f64, Option<f64>)>,
}

/// One field over time.
#[derive(Debug, Clone, Serialize)]
pub struct Plot {
    pub field: String,
    pub title: String,
    pub workload: String,
    pub series: Vec<Series>,
}

/// The arguments of the sweep job that ran `workload` under `label` (from its row's command,
/// without `warpsmith` and `--format json`), and its cycles.
fn job_of(s: &SeedDef, rows: &[Row], workload: &str, label: &str) -> Option<(Vec<String>, u64)> {
    let row = rows.iter().find(|r| {
        r.status == Status::Ok
            && r.key.workload == workload
            && super::variant_of(s, r).is_some_and(|v| v.label == label)
    })?;
    let mut args = shlex::split(&row.command)?;
    args.remove(0);
    args.truncate(args.len().saturating_sub(2));
    let cycles = row
        .statistics
        .get("cycles")
        .and_then(serde_json::Value::as_u64);
    Some((args, cycles.unwrap_or(100_000)))
}

/// Rerun the seed's timeline configurations with samples into `dir` (a folder per
/// configuration: the samples, the report, its standard error) and read them back. A run that
/// fails is an error naming it and its folder.
pub fn run(
    s: &SeedDef,
    rows: &[Row],
    quick: bool,
    dir: &Path,
    exe: &Path,
    stop: &AtomicBool,
) -> Result<Vec<Plot>, RegressError> {
    let Some(t) = s.timeline else {
        return Ok(Vec::new());
    };
    let w = if quick { t.quick_workload } else { t.workload };
    let mut series: Vec<(String, String, Vec<serde_json::Value>)> = Vec::new();
    for (k, label) in t.variants.iter().enumerate() {
        let Some((mut args, cycles)) = job_of(s, rows, w.name, label) else {
            continue;
        };
        let out = dir.join(format!("{k}"));
        spec::output::claim(dir, &[&format!("{k}")])
            .map_err(|e| RegressError::Write(dir.display().to_string(), e))?;
        let samples = out.join("samples.jsonl");
        args.extend([
            "--stats-interval".into(),
            (cycles / SAMPLES).max(1).to_string(),
            "--stats-out".into(),
            samples.display().to_string(),
            "--format".into(),
            "json".into(),
        ]);
        let command =
            shlex::try_join(std::iter::once("warpsmith").chain(args.iter().map(String::as_str)))
                .unwrap_or_default();
        match child(exe, &args, &out, Duration::from_secs(3600), stop) {
            Ended::Exited(st) if st.success() => {}
            Ended::Stopped => return Ok(Vec::new()),
            _ => {
                return Err(RegressError::BadInput(format!(
                    "the timeline run `{command}` failed ({}): {}",
                    out.display(),
                    tail(&out.join("stderr.txt"))
                )))
            }
        }
        let text = spec::input::read_to_string(&samples)
            .map_err(|e| RegressError::Read(samples.display().to_string(), e))?;
        let lines = text
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<Vec<serde_json::Value>, _>>()
            .map_err(|e| RegressError::Internal(format!("{}: {e}", samples.display())))?;
        series.push((label.to_string(), command, lines));
    }
    Ok(t.fields
        .iter()
        .map(|(field, title)| Plot {
            field: field.to_string(),
            title: title.to_string(),
            workload: w.name.to_string(),
            series: series
                .iter()
                .map(|(label, command, samples)| Series {
                    label: label.clone(),
                    command: command.clone(),
                    points: samples
                        .iter()
                        .filter_map(|x| {
                            let c = x["cycle"].as_f64()?;
                            Some((c, x[*field].as_f64()))
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect())
}
