//! Where the memory system's requests come from (`--stimulus`): the LOA/MOA/HOA warp-load
//! generators, the table-stress generator, or a JSON-lines file; and the golden run over them
//! (`warpsmith golden --block mc`).

use super::open_loop::OpenLoop;
use super::stimulus::{self, LoadClass, Request};
use super::system::{Completion, McError, McSummary};
use crate::report::Report;
use crate::run::{BadInput, GoldenError, GoldenRun};
use schemars::JsonSchema;
use serde::Serialize;
use spec::Spec;
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The forms of `--stimulus` the memory system takes, for messages.
pub const FORMS: &str = "`loa`, `moa`, `hoa` (warp loads; `hoa@2.5` offers 2.5x the random-row \
    service rate), `random` (table stress) or a JSON-lines file of requests";

/// Offered load of the class generators, relative to the random-row service rate.
pub const INTENSITY: f64 = 1.3;

/// Legal offered intensities of the class generators.
pub const INTENSITY_RANGE: std::ops::RangeInclusive<f64> = 0.05..=20.0;

/// Where requests come from.
#[derive(Debug, Clone, PartialEq)]
pub enum McStimulus {
    /// Traffic that stresses the tables ([`stimulus::stress`]).
    Random,
    /// Warp loads of one class ([`stimulus::warp_loads`]) offered at an intensity (relative to
    /// the random-row service rate; `hoa` is [`INTENSITY`], `hoa@2.5` is 2.5).
    Class(LoadClass, f64),
    /// A JSON-lines request file.
    File(PathBuf),
}

impl McStimulus {
    /// Warp loads of one class at the default intensity.
    pub fn class(c: LoadClass) -> McStimulus {
        McStimulus::Class(c, INTENSITY)
    }

    /// Parse `--stimulus`.
    pub fn parse(s: &str) -> Result<McStimulus, BadInput> {
        if s == "random" {
            return Ok(McStimulus::Random);
        }
        let (name, level) = match s.split_once('@') {
            Some((n, l)) => (n, Some(l)),
            None => (s, None),
        };
        match (LoadClass::from_name(name), level) {
            (Some(c), None) => Ok(McStimulus::class(c)),
            (Some(c), Some(l)) => match l.parse::<f64>() {
                Ok(x) if INTENSITY_RANGE.contains(&x) => Ok(McStimulus::Class(c, x)),
                _ => Err(BadInput(format!(
                    "stimulus `{s}`: the intensity after `@` must be a number in {}..={} \
                     (offered load relative to the random-row service rate; default {INTENSITY})",
                    INTENSITY_RANGE.start(),
                    INTENSITY_RANGE.end()
                ))),
            },
            _ if Path::new(s).is_file() => Ok(McStimulus::File(PathBuf::from(s))),
            _ => Err(BadInput(format!(
                "stimulus `{s}` is not one the memory system takes: give {FORMS} (there is no \
                    file `{s}`)"
            ))),
        }
    }

    /// Whether the requests end by themselves (a file).
    pub fn is_finite(&self) -> bool {
        matches!(self, McStimulus::File(_))
    }
}

impl std::fmt::Display for McStimulus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McStimulus::Random => write!(f, "random"),
            McStimulus::Class(c, x) if *x == INTENSITY => write!(f, "{}", c.name()),
            McStimulus::Class(c, x) => write!(f, "{}@{x}", c.name()),
            McStimulus::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// The requests of a stimulus, enough for `cycles` cycles (a file gives what it holds).
pub fn requests(
    spec: &Spec,
    kind: &McStimulus,
    cycles: u64,
    seed: u64,
) -> Result<Vec<Request>, BadInput> {
    Ok(match kind {
        McStimulus::Random => stimulus::stress(spec, cycles.max(64) as usize, seed),
        McStimulus::Class(c, intensity) => {
            // Enough loads to keep the channels busy for `cycles` cycles.
            let mean = match c {
                LoadClass::Loa => 1.0,
                LoadClass::Moa => 5.0,
                LoadClass::Hoa => 20.5,
            };
            let per_cycle =
                stimulus::random_service_rate(spec) * f64::from(spec.dram.channels) * intensity;
            let loads = ((cycles as f64 * per_cycle / mean) as usize).max(1);
            stimulus::warp_loads(spec, *c, loads, *intensity, seed)
        }
        McStimulus::File(path) => {
            let text = spec::input::read_to_string(path)
                .map_err(|e| BadInput(format!("cannot read stimulus {}: {e}", path.display())))?;
            let reqs = stimulus::parse(&text, &path.display().to_string(), spec)
                .map_err(|e| BadInput(e.to_string()))?;
            if reqs.is_empty() {
                return Err(no_requests(path.display()));
            }
            reqs
        }
    })
}

/// A stimulus without requests: a run over it would check nothing.
fn no_requests(name: impl std::fmt::Display) -> BadInput {
    BadInput(format!(
        "stimulus {name} holds no requests: a run over it would check nothing"
    ))
}

/// The schema of `golden --block mc --format json`, name and version.
pub const SCHEMA: &str = "warpsmith-golden-mc/1";

/// `golden --block mc --format json`: the memory system's summary, the stimulus and the
/// wall-clock time, after the provenance.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct McReport {
    #[serde(flatten)]
    pub summary: McSummary,
    /// The stimulus, as `--stimulus` gave it.
    pub stimulus: String,
    pub timing: Timing,
}

/// How long the run took on this machine (differs between runs).
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct Timing {
    pub seconds: f64,
    pub requests_per_second: f64,
}

/// Cycles the golden run advances between progress reports.
const PROGRESS_CYCLES: u64 = 1 << 20;

/// `warpsmith golden --block mc`: every request's completion and a summary (text), or one
/// summary object (JSON); with `--command-trace FILE` every DRAM command.
pub fn run_golden(spec: &Spec, r: &GoldenRun, out: &mut dyn Write) -> Result<(), GoldenError> {
    let stimulus = r.stimulus.ok_or_else(|| {
        BadInput(format!(
            "--stimulus is required for --block mc: give {FORMS}"
        ))
    })?;
    let kind = McStimulus::parse(stimulus)?;
    // A file is read as the run goes (memory does not grow with its length); a generator's
    // requests are made up front. (Each drives a run of its own source type: a boxed
    // iterator cost a dynamic call per request.)
    match &kind {
        McStimulus::File(path) => {
            let f = spec::input::open(path)
                .map_err(|e| BadInput(format!("cannot read stimulus {}: {e}", path.display())))?;
            let reader = stimulus::Reader::new(
                std::io::BufReader::with_capacity(1 << 16, f),
                &path.display().to_string(),
                spec,
            );
            let src = UntilBad { reader, bad: None };
            let sys = OpenLoop::new(spec, src, Some(stimulus::LOAD_WINDOW));
            drive(spec, r, out, &kind, sys, |s| s.bad.take())
        }
        _ => {
            let src = requests(spec, &kind, r.cycles, r.seed)?.into_iter();
            drive(spec, r, out, &kind, OpenLoop::new(spec, src, None), |_| {
                None
            })
        }
    }
}

/// The requests of a stimulus file up to its first bad line, which ends them (kept in `bad`).
struct UntilBad<R: std::io::BufRead> {
    reader: stimulus::Reader<R>,
    bad: Option<BadInput>,
}

impl<R: std::io::BufRead> Iterator for UntilBad<R> {
    type Item = Request;

    fn next(&mut self) -> Option<Request> {
        match self.reader.next()? {
            Ok(q) => Some(q),
            Err(e) => {
                self.bad = Some(BadInput(e.to_string()));
                None
            }
        }
    }
}

/// [`run_golden`] over the open-loop system `sys`; `bad` takes the error that ended its
/// source early, if one did.
fn drive<S: Iterator<Item = Request>>(
    spec: &Spec,
    r: &GoldenRun,
    out: &mut dyn Write,
    kind: &McStimulus,
    mut sys: OpenLoop<S>,
    bad: impl FnOnce(&mut S) -> Option<BadInput>,
) -> Result<(), GoldenError> {
    let trace = r.opts.get("command-trace").map(PathBuf::from);
    if trace.is_some() {
        sys.system_mut().record_commands();
    }
    if !r.json {
        writeln!(
            out,
            "# request cycle sm warp load channel bank row write completed latency"
        )?;
    }
    // One line per request, in request order: completions arrive out of order and wait here
    // (by tag, from the next line to write on) until every earlier request has its line.
    let map = sys.system().address_map().clone();
    let mut waiting: VecDeque<Option<Completion>> = VecDeque::new();
    let mut next_line = 0u64;
    let mut written: std::io::Result<()> = Ok(());
    let start = std::time::Instant::now();
    while !sys.finished() {
        // A stretch of work per progress report (idle time is skipped, not counted).
        let until = sys.idle_until().saturating_add(PROGRESS_CYCLES);
        let mut each = |c: &Completion, _: &Request| {
            if r.json || written.is_err() {
                return;
            }
            let at = (c.tag - next_line) as usize;
            if at >= waiting.len() {
                waiting.resize(at + 1, None);
            }
            waiting[at] = Some(*c);
            while let Some(Some(c)) = waiting.front() {
                let q = &c.req;
                let dec = map.decode(q.addr);
                written = writeln!(
                    out,
                    "{} {} {} {} {} {} {} {} {} {} {}",
                    c.tag,
                    q.cycle,
                    q.sm,
                    q.warp,
                    q.load,
                    dec.channel,
                    dec.bank,
                    dec.row,
                    u8::from(q.write),
                    c.done,
                    c.done.saturating_sub(q.cycle)
                );
                waiting.pop_front();
                next_line += 1;
            }
        };
        sys.run(until, None, &mut each).map_err(|e| match e {
            // A request the address map cannot place is bad input.
            McError::Request { .. } => GoldenError::from(BadInput(e.to_string())),
            e => GoldenError::Failed(e.to_string()),
        })?;
        std::mem::replace(&mut written, Ok(()))?;
        if let Some(p) = r.progress {
            p(sys.now(), u64::MAX);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    if let Some(e) = bad(sys.source_mut()) {
        return Err(e.into());
    }
    if sys.offered() == 0 {
        return Err(no_requests(kind).into());
    }
    if let Some(path) = &trace {
        write_trace(path, sys.system().commands())?;
    }
    write_summary(spec, r, kind, &sys.summary(), seconds, out)
}

/// Write a command trace to `path`.
fn write_trace(
    path: &std::path::Path,
    commands: &[super::command::TraceCmd],
) -> Result<(), GoldenError> {
    let mut text = String::from("# cycle,channel,bank,command,row,col\n");
    for c in commands {
        text.push_str(&c.to_line());
        text.push('\n');
    }
    crate::run::write_file(path, text.as_bytes()).map_err(|e| {
        BadInput(format!(
            "cannot write command trace {}: {e}",
            path.display()
        ))
    })?;
    Ok(())
}

/// The run's summary: JSON (with the provenance, the stimulus and the wall-clock time), or
/// comment lines after the request lines.
fn write_summary(
    spec: &Spec,
    r: &GoldenRun,
    kind: &McStimulus,
    summary: &McSummary,
    seconds: f64,
    out: &mut dyn Write,
) -> Result<(), GoldenError> {
    if r.json {
        let report = Report {
            provenance: r.origin.provenance(SCHEMA, spec),
            figures: McReport {
                summary: summary.clone(),
                stimulus: kind.to_string(),
                timing: Timing {
                    seconds,
                    requests_per_second: summary.requests as f64 / seconds.max(1e-9),
                },
            },
        };
        // Through a JSON value: its keys in name order.
        let text = serde_json::to_value(&report)
            .and_then(|v| serde_json::to_string_pretty(&v))
            .map_err(|e| GoldenError::Failed(e.to_string()))?;
        writeln!(out, "{text}")?;
        return Ok(());
    }
    let s = summary;
    writeln!(
        out,
        "# scheduler {}  requests {}  warp loads {}  cycles {}",
        s.scheduler, s.requests, s.warp_loads, s.cycles
    )?;
    writeln!(
        out,
        "# bandwidth_util {:.4}  row_hit_rate {:.4}  commands {}  activations {}  refreshes {}",
        s.bandwidth_util, s.row_hit_rate, s.commands, s.activations, s.refreshes
    )?;
    writeln!(out, "# DRAM energy {}", s.energy)?;
    let classes = s.demand_latency.zip(s.prefetch_latency);
    // (The names' column is as wide as before when there are no classes to show.)
    let w = if classes.is_some() { 14 } else { 10 };
    let classes = classes
        .into_iter()
        .flat_map(|(d, p)| [("  demand reads", d), ("  prefetches", p)]);
    for (name, d) in [("latency", s.latency)]
        .into_iter()
        .chain(classes)
        .chain([("divergence", s.divergence), ("warp_time", s.warp_time)])
    {
        writeln!(
            out,
            "# {name:w$} mean {:9.1}  p50 {:6}  p95 {:6}  p99 {:6}  max {:6}",
            d.mean, d.p50, d.p95, d.p99, d.max
        )?;
    }
    Ok(())
}
