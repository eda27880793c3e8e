//! Where the OT predictor's transactions come from (`--stimulus`): the biased random generator,
//! built-in or TOML kernels, or a JSON-lines file; and the golden run over them.

use super::output::{self, Line, Response};
use super::random::RandomOt;
use super::{OtModel, OtTxn, Packer};
use crate::block::CycleModel;
pub use crate::run::Stimulus;
use crate::run::{BadInput, GoldenError, GoldenRun};
use serde_json::json;
use spec::Spec;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// The forms of `--stimulus` the OT block takes, for messages.
pub const FORMS: &str =
    "`random`, `kernel:NAME` (a built-in kernel, `all`, or a kernel TOML file) or a JSON-lines \
        file of transactions";

/// A validated stimulus source that can be replayed from the start any number of times.
#[derive(Clone)]
pub struct Source {
    spec: Spec,
    kind: Stimulus,
    seed: u64,
    /// A file's transactions and their lines.
    file: Option<Arc<(Vec<OtTxn>, Vec<usize>)>>,
    kernels: Vec<Arc<crate::workload::KernelDesc>>,
}

impl Source {
    /// Check the stimulus up front: a file is parsed and validated against the block's rules
    /// (errors name the line), a kernel is found and checked to fit the configuration.
    pub fn new(spec: &Spec, kind: &Stimulus, seed: u64) -> Result<Source, BadInput> {
        let mut s = Source {
            spec: spec.clone(),
            kind: kind.clone(),
            seed,
            file: None,
            kernels: Vec::new(),
        };
        match kind {
            Stimulus::Random => {}
            Stimulus::Kernel(name) => {
                let names: Vec<&str> = if name == "all" {
                    crate::workload::BUILTIN.to_vec()
                } else {
                    vec![name.as_str()]
                };
                for name in names {
                    let k = match crate::workload::builtin(name) {
                        Some(k) => k,
                        None if name.ends_with(".toml") => {
                            crate::workload::load_kernel_file(Path::new(name))
                                .map_err(|e| BadInput(e.to_string()))?
                        }
                        None => {
                            return Err(BadInput(format!(
                                "unknown kernel `{name}`; built-in kernels: {}, or all (or give a \
                                    kernel TOML file: kernel:path.toml)",
                                crate::workload::BUILTIN.join(", ")
                            )))
                        }
                    };
                    super::check_ot_fit(&k, spec).map_err(|e| BadInput(e.to_string()))?;
                    s.kernels.push(Arc::new(k));
                }
            }
            Stimulus::File(path) => {
                let text = spec::input::read_to_string(path).map_err(|e| {
                    BadInput(format!("cannot read stimulus {}: {e}", path.display()))
                })?;
                let name = path.display().to_string();
                let parsed = super::parse(&text, &name).map_err(|e| BadInput(e.to_string()))?;
                let (lines, txns): (Vec<usize>, Vec<OtTxn>) = parsed.into_iter().unzip();
                super::validate(
                    &OtModel::new(&spec.ot),
                    &txns,
                    &lines,
                    spec.gpu.warp_size,
                    &name,
                )
                .map_err(|e| BadInput(e.to_string()))?;
                if txns.is_empty() {
                    return Err(BadInput(format!(
                        "stimulus {name} holds no transactions: a run over it would check nothing"
                    )));
                }
                if !txns.iter().any(super::checks) {
                    return Err(BadInput(format!(
                        "stimulus {name} holds no {}: a run over it would check nothing (launches \
                            answer nothing); add a `predict` or `observe` line",
                        super::CHECKED
                    )));
                }
                s.file = Some(Arc::new((txns, lines)));
            }
        }
        Ok(s)
    }

    /// The transaction stream from its start.
    pub fn iter(&self) -> Box<dyn Iterator<Item = OtTxn> + '_> {
        match (&self.kind, &self.file, &self.kernels) {
            (Stimulus::File(_), Some(f), _) => Box::new(f.0.iter().cloned()),
            (Stimulus::Kernel(_), _, kernels) if !kernels.is_empty() => {
                // Each kernel in turn, each launch with the next scheduling seed.
                let (spec, seed) = (&self.spec, self.seed);
                Box::new((0u64..).flat_map(move |run| {
                    let k = &kernels[(run % kernels.len() as u64) as usize];
                    super::ot_stimulus(k, spec, seed.wrapping_add(run))
                        .into_iter()
                        .flatten()
                }))
            }
            _ => Box::new(RandomOt::new(&self.spec, self.seed)),
        }
    }

    /// Whether the stream ends by itself.
    pub fn is_finite(&self) -> bool {
        matches!(self.kind, Stimulus::File(_))
    }

    /// Where transaction `i` of the stream comes from, for messages: `FILE:LINE` for a file,
    /// else the stimulus and its index.
    pub fn origin(&self, i: usize) -> String {
        match (&self.kind, &self.file) {
            (Stimulus::File(p), Some(f)) => {
                format!("{}:{}", p.display(), f.1.get(i).copied().unwrap_or(i + 1))
            }
            (k, _) => format!("{k} transaction {}", i + 1),
        }
    }

    pub fn kind(&self) -> &Stimulus {
        &self.kind
    }
}

/// `warpsmith golden --block ot`: JSON lines: the provenance, one response per transaction,
/// then (with `--dump-state`) the final table ([`Line`]).
pub fn run_golden(spec: &Spec, r: &GoldenRun, out: &mut dyn Write) -> Result<(), GoldenError> {
    let stimulus = r.stimulus.ok_or_else(|| {
        BadInput(format!(
            "--stimulus is required for --block ot: give {FORMS}"
        ))
    })?;
    let source = Source::new(
        spec,
        &Stimulus::parse(stimulus, "the OT block", FORMS)?,
        r.seed,
    )?;
    let limit = if source.is_finite() {
        u64::MAX
    } else {
        r.cycles
    };
    let mut model = OtModel::new(&spec.ot);
    let mut cycles = 0u64;
    let mut checked = 0u64;
    let provenance = r.origin.provenance(output::SCHEMA, spec);
    writeln!(out, "{}", json!(Line::Provenance(provenance)))?;
    for c in Packer::new(source.iter()) {
        if cycles >= limit {
            break;
        }
        let fail = |e: crate::block::IllegalInput| {
            BadInput(format!("{}: {e}", source.origin(c.last_index())))
        };
        let inp = c.input(spec.gpu.warp_size).map_err(fail)?;
        let o = *model.step(&inp).map_err(fail)?;
        for (_, t) in c.txns() {
            writeln!(out, "{}", json!(Line::Response(Response::of(t, &o))))?;
            checked += u64::from(super::checks(t));
        }
        cycles += 1;
        if let Some(p) = r.progress {
            if cycles & 0xffff == 0 {
                p(cycles, limit);
            }
        }
    }
    if r.opts.flag("dump-state") {
        writeln!(out, "{}", json!(Line::Table(output::table(&model))))?;
    }
    if checked == 0 {
        return Err(BadInput(format!(
            "{}; give more cycles",
            crate::run::nothing_checked(super::CHECKED, cycles)
        ))
        .into());
    }
    Ok(())
}
