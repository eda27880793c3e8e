//! Deliberately wrong RTL variants. Each is a textual patch on the generated module that must
//! apply exactly once (a test checks this for every preset), so the catalogue cannot silently go
//! stale when the template changes. Co-simulation must catch every one within the default cycle
//! budget.

use crate::report::{CosimReport, FailureKind, Verdict};
use crate::SimError;
use serde::{Deserialize, Serialize};
use spec::Spec;
use std::sync::OnceLock;

/// One mutant, as its block's catalogue (`sim/mutants/<block>.toml`) lists it: replace `find`
/// by `replace` in file `file` (named without the module prefix).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mutant {
    pub name: String,
    pub description: String,
    pub file: String,
    pub find: String,
    pub replace: String,
    /// The block's [`Condition`] under which no stimulus can tell the mutant from the original
    /// (an equivalent mutant); such a run reports "equivalent" instead of co-simulating.
    #[serde(default)]
    pub equivalent_when: Option<String>,
}

/// A property of a configuration that makes some mutant equivalent: `holds` gives the reason
/// when it holds.
#[derive(Clone, Copy)]
pub struct Condition {
    pub name: &'static str,
    pub holds: fn(&Spec) -> Option<String>,
}

/// A block's mutant catalogue: data, not code (the TOML file is compiled into the binary and
/// parsed and checked on first use: names unique, every `equivalent_when` one of
/// `conditions`). Whether each pattern applies exactly once is checked per preset by the tests.
pub struct Catalogue {
    /// The file it came from, for messages.
    pub path: &'static str,
    text: &'static str,
    pub conditions: &'static [Condition],
    parsed: OnceLock<Result<Vec<Mutant>, String>>,
}

impl Catalogue {
    pub const fn new(
        path: &'static str,
        text: &'static str,
        conditions: &'static [Condition],
    ) -> Catalogue {
        Catalogue {
            path,
            text,
            conditions,
            parsed: OnceLock::new(),
        }
    }

    /// The mutants, in catalogue order.
    pub fn mutants(&'static self) -> Result<&'static [Mutant], SimError> {
        self.parsed
            .get_or_init(|| self.parse())
            .as_deref()
            .map_err(|why| SimError::Catalogue {
                path: self.path,
                why: why.clone(),
            })
    }

    fn parse(&self) -> Result<Vec<Mutant>, String> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            mutant: Vec<Mutant>,
        }
        let f: File = toml::from_str(self.text).map_err(|e| e.to_string())?;
        let mut seen = std::collections::BTreeSet::new();
        for m in &f.mutant {
            if !seen.insert(m.name.as_str()) {
                return Err(format!("mutant {} is listed twice", m.name));
            }
            if let Some(c) = &m.equivalent_when {
                if !self.conditions.iter().any(|k| k.name == c) {
                    let known: Vec<&str> = self.conditions.iter().map(|k| k.name).collect();
                    return Err(format!(
                        "mutant {}: unknown condition `{c}` in equivalent_when (the block's: {})",
                        m.name,
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ));
                }
            }
        }
        Ok(f.mutant)
    }

    /// Why `m` cannot be told from the original RTL on `spec`, if it cannot.
    pub fn equivalent(&self, m: &Mutant, spec: &Spec) -> Option<String> {
        let c = m.equivalent_when.as_deref()?;
        self.conditions
            .iter()
            .find(|k| k.name == c)
            .and_then(|k| (k.holds)(spec))
    }
}

/// Apply a mutant to generated files (name, contents).
pub fn apply(m: &Mutant, files: &[(String, String)]) -> Result<Vec<(String, String)>, SimError> {
    let mut out = files.to_vec();
    let f = out
        .iter_mut()
        .find(|(n, _)| n.ends_with(m.file.as_str()))
        .ok_or_else(|| SimError::Mutant {
            name: m.name.clone(),
            why: format!("the generated RTL has no file {}", m.file),
        })?;
    let count = f.1.matches(m.find.as_str()).count();
    if count != 1 {
        return Err(SimError::Mutant {
            name: m.name.clone(),
            why: format!(
                "its pattern occurs {count} times in {} (expected once)",
                m.file
            ),
        });
    }
    f.1 = f.1.replacen(m.find.as_str(), &m.replace, 1);
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
    /// The result for a mutant of catalogue `c` that is equivalent on `spec`, if it is.
    pub fn equivalent(c: &Catalogue, m: &'static Mutant, spec: &Spec) -> Option<MutantResult> {
        c.equivalent(m, spec).map(|why| MutantResult {
            name: &m.name,
            description: &m.description,
            caught: false,
            equivalent: Some(why),
            nothing_checked: None,
            cycle: None,
            port: None,
            kind: None,
        })
    }

    /// The result of a co-simulation of the mutant: caught if it failed.
    pub fn of(m: &'static Mutant, r: &CosimReport) -> MutantResult {
        let f = r.failure.as_ref();
        MutantResult {
            name: &m.name,
            description: &m.description,
            caught: r.verdict == Verdict::Fail,
            equivalent: None,
            nothing_checked: r.nothing_checked.clone(),
            cycle: f.map(|f| f.cycle),
            port: f.and_then(|f| f.port),
            kind: f.map(|f| f.kind),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never(_: &Spec) -> Option<String> {
        None
    }

    const ONE: &str = r#"
[[mutant]]
name = "a"
description = "d"
file = "f.sv"
find = "x"
replace = "y"
"#;

    fn parse(text: &'static str, conditions: &'static [Condition]) -> Result<Vec<Mutant>, String> {
        Catalogue::new("test.toml", text, conditions).parse()
    }

    #[test]
    fn a_catalogue_parses_in_order() {
        let two: &'static str = Box::leak(format!("{ONE}{}", ONE.replace("\"a\"", "\"b\"")).into());
        let m = parse(two, &[]).unwrap();
        assert_eq!(
            m.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(m[0].find, "x");
        assert_eq!(m[0].equivalent_when, None);
    }

    #[test]
    fn a_wrong_catalogue_is_refused() {
        let twice: &'static str = Box::leak(format!("{ONE}{ONE}").into());
        assert!(parse(twice, &[]).unwrap_err().contains("listed twice"));
        let unknown_condition: &'static str =
            Box::leak(format!("{ONE}equivalent_when = \"sometimes\"\n").into());
        let e = parse(unknown_condition, &[]).unwrap_err();
        assert!(e.contains("unknown condition `sometimes`"), "{e}");
        let known = &[Condition {
            name: "sometimes",
            holds: never,
        }];
        assert!(parse(unknown_condition, known).is_ok());
        let typo: &'static str = Box::leak(ONE.replace("replace", "replce").into());
        assert!(parse(typo, &[]).unwrap_err().contains("replce"));
    }

    #[test]
    fn every_block_catalogue_is_well_formed() {
        for b in crate::blocks::BLOCKS {
            let m = b.mutants().unwrap_or_else(|e| panic!("{b}: {e}"));
            assert!(!m.is_empty(), "{b}");
        }
    }
}
