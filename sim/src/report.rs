//! What a failed co-simulation reports: the failing cycle, the port, every output's values,
//! the last stimulus, and how to reproduce it.

use crate::lockstep::StepFail;
use serde::Serialize;

/// One output port on the failing cycle.
#[derive(Debug, Clone, Serialize)]
pub struct PortValue {
    pub name: &'static str,
    pub expected: String,
    pub actual: String,
}

/// Why and where a co-simulation failed, and how to reproduce it.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// `mismatch` or `assertion`.
    pub kind: &'static str,
    pub cycle: u64,
    pub port: Option<&'static str>,
    pub expected: Option<String>,
    pub actual: Option<String>,
    pub ports: Vec<PortValue>,
    /// Assertion text for `assertion` failures.
    pub message: Option<String>,
    /// The last transactions before and on the failing cycle (JSON lines).
    pub last_transactions: Vec<String>,
    pub seed: u64,
    /// Re-runs the failing co-simulation exactly.
    pub reproduce: String,
    /// Minimal stimulus found by shrinking, and the command that runs it.
    pub reproducer: Option<String>,
    pub reproducer_transactions: Option<usize>,
    pub reproducer_command: Option<String>,
    /// Waves of the reproducer run.
    pub vcd: Option<String>,
}

impl Failure {
    /// A failure on `cycle`, before its kind and port values are recorded.
    pub fn new(
        cycle: u64,
        seed: u64,
        last_transactions: Vec<String>,
        reproduce: String,
    ) -> Failure {
        Failure {
            kind: "mismatch",
            cycle,
            port: None,
            expected: None,
            actual: None,
            ports: Vec::new(),
            message: None,
            last_transactions,
            seed,
            reproduce,
            reproducer: None,
            reproducer_transactions: None,
            reproducer_command: None,
            vcd: None,
        }
    }

    /// Record why a lockstep cycle failed: the differing port and every port's values, or the
    /// assertion or refusal message. Returns the mismatch's cycle (cycles completed), if any.
    pub fn record(&mut self, e: StepFail) -> Option<u64> {
        match e {
            StepFail::Mismatch(m) => {
                self.port = Some(m.port);
                self.expected = Some(m.expected);
                self.actual = Some(m.actual);
                self.ports = m
                    .ports
                    .into_iter()
                    .map(|(name, expected, actual)| PortValue {
                        name,
                        expected,
                        actual,
                    })
                    .collect();
                Some(m.cycle)
            }
            StepFail::Rtl(e) => {
                self.kind = "assertion";
                self.message = Some(e.to_string());
                None
            }
            StepFail::Illegal(i) => {
                self.message = Some(i.to_string());
                None
            }
        }
    }
}
