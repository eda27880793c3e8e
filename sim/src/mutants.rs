//! Deliberately wrong RTL variants. Each is a textual patch on the generated module that must
//! apply exactly once (a test checks this for every preset), so the catalogue cannot silently go
//! stale when the template changes. Co-simulation must catch every one within the default cycle
//! budget.

use crate::report::{CosimReport, FailureKind, Verdict};
use crate::SimError;
use serde::Serialize;
use spec::Spec;

/// One mutant: replace `find` by `replace` in file `file` (named without the module prefix).
#[derive(Debug, Clone, Copy)]
pub struct Mutant {
    pub name: &'static str,
    pub description: &'static str,
    pub file: &'static str,
    pub find: &'static str,
    pub replace: &'static str,
    /// For a configuration on which no stimulus can tell the mutant from the original (an
    /// equivalent mutant), the reason; such a run reports "equivalent" instead of co-simulating.
    pub unreachable: fn(&Spec) -> Option<String>,
}

/// Every configuration can expose the mutant.
pub fn always_reachable(_: &Spec) -> Option<String> {
    None
}

/// Apply a mutant to generated files (name, contents).
pub fn apply(m: &Mutant, files: &[(String, String)]) -> Result<Vec<(String, String)>, SimError> {
    let mut out = files.to_vec();
    let f = out
        .iter_mut()
        .find(|(n, _)| n.ends_with(m.file))
        .ok_or_else(|| SimError::Mutant {
            name: m.name,
            why: format!("the generated RTL has no file {}", m.file),
        })?;
    let count = f.1.matches(m.find).count();
    if count != 1 {
        return Err(SimError::Mutant {
            name: m.name,
            why: format!(
                "its pattern occurs {count} times in {} (expected once)",
                m.file
            ),
        });
    }
    f.1 = f.1.replacen(m.find, m.replace, 1);
    Ok(out)
}

/// What co-simulating one mutant found.
#[derive(Debug, Clone, Serialize)]
pub struct MutantResult {
    pub name: &'static str,
    pub description: &'static str,
    pub caught: bool,
    /// Why no stimulus can catch the mutant on this configuration (then `caught` is false and
    /// the mutant was not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equivalent: Option<String>,
    /// Why the run checked nothing that matters (a run that cannot catch anything).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nothing_checked: Option<String>,
    pub cycle: Option<u64>,
    pub port: Option<&'static str>,
    pub kind: Option<FailureKind>,
}

impl MutantResult {
    /// The result for a mutant that is equivalent on `spec`, if it is.
    pub fn equivalent(m: &Mutant, spec: &Spec) -> Option<MutantResult> {
        (m.unreachable)(spec).map(|why| MutantResult {
            name: m.name,
            description: m.description,
            caught: false,
            equivalent: Some(why),
            nothing_checked: None,
            cycle: None,
            port: None,
            kind: None,
        })
    }

    /// The result of a co-simulation of the mutant: caught if it failed.
    pub fn of(m: &Mutant, r: &CosimReport) -> MutantResult {
        let f = r.failure.as_ref();
        MutantResult {
            name: m.name,
            description: m.description,
            caught: r.verdict == Verdict::Fail,
            equivalent: None,
            nothing_checked: r.nothing_checked.clone(),
            cycle: f.map(|f| f.cycle),
            port: f.and_then(|f| f.port),
            kind: f.map(|f| f.kind),
        }
    }
}
