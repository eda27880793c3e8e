//! What a co-simulation reports: its verdict, the block's statistics, and for a failure the
//! failing cycle, the port, every output's values, the last stimulus, and how to reproduce it.
//! Wall-clock figures live apart, in [`Timing`], so the rest is identical run to run.

use crate::lockstep::StepFail;
use crate::SimError;
use serde::Serialize;

/// What a co-simulation found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every output port matched every cycle, and the run checked something that matters.
    Pass,
    /// An output differed, or the RTL raised an assertion.
    Fail,
    /// The run compared no cycle that exercises the block (no prediction compared, no request
    /// completed, ...): it is not a pass.
    NothingChecked,
}

impl Verdict {
    /// The one rule of a run that ended without a failure: it passes if it had at least one
    /// of the events that make a run of its block count (`checked`, each block's
    /// [`crate::harness::CosimStats::checked`]), else it checked nothing.
    pub fn of_run(checked: u64) -> Verdict {
        if checked == 0 {
            Verdict::NothingChecked
        } else {
            Verdict::Pass
        }
    }

    /// The exit code of a run with this verdict: 0 pass, 1 fail, 2 nothing checked.
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Pass => 0,
            Verdict::Fail => 1,
            Verdict::NothingChecked => 2,
        }
    }

    /// The verdict of several runs (`flow`): a failure first, then a run that checked nothing;
    /// a pass only when every run passed (and there was one).
    pub fn of_all(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
        let worst = |a: Verdict, b: Verdict| match (a, b) {
            (Verdict::Fail, _) | (_, Verdict::Fail) => Verdict::Fail,
            (Verdict::NothingChecked, _) | (_, Verdict::NothingChecked) => Verdict::NothingChecked,
            _ => Verdict::Pass,
        };
        verdicts
            .into_iter()
            .reduce(worst)
            .unwrap_or(Verdict::NothingChecked)
    }

    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::NothingChecked => "NOTHING CHECKED",
        }
    }
}

/// How a failure showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// An output port differed from the golden model's.
    Mismatch,
    /// The RTL raised an assertion (`$error`, `$fatal`, a failed `assert`).
    Assertion,
}

/// One output port on the failing cycle.
#[derive(Debug, Clone, Serialize)]
pub struct PortValue {
    pub name: &'static str,
    pub expected: String,
    pub actual: String,
}

/// A minimal stimulus that still fails, found by shrinking, and how to run it.
#[derive(Debug, Clone, Serialize)]
pub struct Reproducer {
    pub path: String,
    /// Stimulus items (lines) it holds, and what they are (`transactions`, `requests`, ...).
    pub items: usize,
    pub unit: &'static str,
    /// Runs it (quoted for the shell).
    pub command: String,
    /// Waves of a run of it.
    pub vcd: Option<String>,
}

/// Why and where a co-simulation failed, and how to reproduce it.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub kind: FailureKind,
    /// 1-based: the cycle whose outputs (or assertion) failed.
    pub cycle: u64,
    pub port: Option<&'static str>,
    pub expected: Option<String>,
    pub actual: Option<String>,
    /// Every output port on that cycle (mismatches).
    pub ports: Vec<PortValue>,
    /// The assertion's text (assertions).
    pub message: Option<String>,
    /// The last stimulus items before and on the failing cycle, one JSON object each.
    pub last_items: Vec<String>,
    pub seed: u64,
    /// Re-runs the failing co-simulation exactly (quoted for the shell).
    pub reproduce: String,
    pub reproducer: Option<Reproducer>,
    /// Why no reproducer was written (the report stands without it).
    pub reproducer_error: Option<String>,
}

impl Failure {
    /// The failure a lockstep step ended with; `None` for a refused input (not an RTL failure)
    /// or a simulator error.
    pub fn of(fail: &StepFail, seed: u64) -> Option<Failure> {
        let mut f = Failure {
            kind: FailureKind::Mismatch,
            cycle: 0,
            port: None,
            expected: None,
            actual: None,
            ports: Vec::new(),
            message: None,
            last_items: Vec::new(),
            seed,
            reproduce: String::new(),
            reproducer: None,
            reproducer_error: None,
        };
        match fail {
            StepFail::Mismatch(m) => {
                f.cycle = m.cycle;
                f.port = Some(m.port);
                f.expected = Some(m.expected.clone());
                f.actual = Some(m.actual.clone());
                f.ports = m
                    .ports
                    .iter()
                    .map(|(name, expected, actual)| PortValue {
                        name,
                        expected: expected.clone(),
                        actual: actual.clone(),
                    })
                    .collect();
            }
            StepFail::Rtl {
                cycle,
                error: SimError::Assertion(m),
            } => {
                f.kind = FailureKind::Assertion;
                f.cycle = *cycle;
                f.message = Some(m.clone());
            }
            StepFail::Rtl { .. } | StepFail::Illegal(_) => return None,
        }
        Some(f)
    }
}

/// Wall-clock figures of a run (apart from the results, which repeat exactly).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timing {
    pub seconds: f64,
    pub cycles_per_second: f64,
    pub build_seconds: f64,
    /// The Verilated model came from the cache (not built by this run).
    pub model_cached: bool,
}

/// The result of a co-simulation, the same for every block.
#[derive(Debug, Clone, Serialize)]
pub struct CosimReport {
    pub block: &'static str,
    pub config: String,
    pub config_hash: String,
    pub stimulus: String,
    pub seed: u64,
    pub mutant: Option<&'static str>,
    /// Cycles compared (the failing one included).
    pub cycles: u64,
    pub verdict: Verdict,
    /// Why nothing that matters was checked, with [`Verdict::NothingChecked`].
    pub nothing_checked: Option<String>,
    /// The block's statistics.
    pub stats: serde_json::Value,
    /// The block's statistics as lines of the text report.
    #[serde(skip)]
    pub summary: Vec<String>,
    pub failure: Option<Failure>,
    pub timing: Timing,
}

#[cfg(test)]
mod tests {
    use super::Verdict::{self, Fail, NothingChecked, Pass};

    #[test]
    fn a_run_that_checked_nothing_is_never_a_pass() {
        assert_eq!(Verdict::of_run(0), NothingChecked);
        assert_eq!(Verdict::of_run(1), Pass);
        assert_eq!(Verdict::of_all([Pass, Pass]), Pass);
        assert_eq!(Verdict::of_all([]), NothingChecked);
        for order in [[NothingChecked, Pass], [Pass, NothingChecked]] {
            assert_eq!(Verdict::of_all(order), NothingChecked);
        }
        assert_eq!(Verdict::of_all([NothingChecked, Fail, Pass]), Fail);
        assert_eq!(
            [Pass, Fail, NothingChecked].map(Verdict::exit_code),
            [0, 1, 2]
        );
        // A wrong variant, "the last run's verdict unless one failed", passes a flow whose
        // first run checked nothing; the rule above does not.
        let last_unless_failed = |vs: &[Verdict]| {
            if vs.contains(&Fail) {
                Fail
            } else {
                *vs.last().unwrap_or(&NothingChecked)
            }
        };
        assert_eq!(last_unless_failed(&[NothingChecked, Pass]), Pass);
    }
}
