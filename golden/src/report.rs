//! What every JSON report carries, and its schema: the [`Provenance`] of a result (the tool,
//! its git revision, the configuration and the command line), and the JSON schema of a report
//! type, generated from the type (schemars) and closed, so that a report with a field the
//! schema does not name fails validation as one missing a field does.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a result comes from, at the top of every JSON report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Provenance {
    /// The report's schema, name and version (`warpsmith-run/1`): the version changes when a
    /// field is removed or changes meaning; fields may be added within a version.
    pub schema: String,
    /// warpsmith's version, and the git revision it was built from (`-dirty`: with changes to
    /// tracked files; `unknown` outside a git checkout).
    pub version: String,
    pub git_rev: String,
    /// The configuration: its name (the preset and the layers over it) and its hash.
    pub config: String,
    pub config_hash: String,
    /// The command line that produced the report.
    pub command_line: Vec<String>,
}

/// The build and the command line behind a report: with the report's schema and its
/// configuration, its [`Provenance`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// warpsmith's version and the git revision it was built from.
    pub version: String,
    pub git_rev: String,
    pub command_line: Vec<String>,
}

impl Origin {
    /// The provenance of a report of schema `schema` on `spec`.
    pub fn provenance(&self, schema: &str, spec: &spec::Spec) -> Provenance {
        Provenance {
            schema: schema.to_string(),
            version: self.version.clone(),
            git_rev: self.git_rev.clone(),
            config: spec.name.clone(),
            config_hash: spec.hash.to_string(),
            command_line: self.command_line.clone(),
        }
    }
}

/// A report: its provenance, then its figures, in one JSON object.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Report<T> {
    #[serde(flatten)]
    pub provenance: Provenance,
    #[serde(flatten)]
    pub figures: T,
}

/// The JSON schema (draft 2020-12) of reports of type `T`, closed: every object with named
/// properties allows no other (`additionalProperties: false`).
pub fn schema_of<T: JsonSchema>() -> serde_json::Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    close(&mut v);
    v
}

/// The schema of a string that is one of `members`' words (an enumeration's names, as a
/// report prints them), described by `description`.
pub fn words_schema(description: &str, members: &[(&'static str, u64)]) -> schemars::Schema {
    let words: Vec<&str> = members.iter().map(|(w, _)| *w).collect();
    schemars::json_schema!({
        "description": description,
        "type": "string",
        "enum": words,
    })
}

fn close(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            if m.contains_key("properties") && !m.contains_key("additionalProperties") {
                m.insert("additionalProperties".into(), false.into());
            }
            m.values_mut().for_each(close);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(close),
        _ => {}
    }
}
