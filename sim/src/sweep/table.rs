//! A sweep's table: one [`Row`] per job (its key, the tool's version, its status and its
//! statistics, the run report's figures flattened to dotted keys), written as JSON lines
//! (`table.jsonl`, schema `warpsmith schema sweep`) and CSV (`table.csv`, a column per
//! statistic any row has); and the merge of shard folders into one table.

use super::{Job, JobKey};
use crate::regress::results::{self, Record, RESULTS};
use crate::regress::RegressError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The table's schema name and version (as [`golden::report::Provenance::schema`]).
pub const SCHEMA: &str = "warpsmith-sweep/1";
pub const TABLE_CSV: &str = "table.csv";
pub const TABLE_JSONL: &str = "table.jsonl";

/// The run report's keys that say where it comes from, not what it measured: a row carries
/// them as its own fields (the command line is the job's).
const PROVENANCE: [&str; 6] = [
    "schema",
    "version",
    "git_rev",
    "config",
    "config_hash",
    "command_line",
];

/// How a job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The run finished and reported its figures.
    Ok,
    /// It did not: bad input, a run stopped at its cycle limit, a crash, a timeout.
    Error,
}

/// One job's line of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Row {
    /// [`SCHEMA`].
    pub schema: String,
    #[serde(flatten)]
    pub key: JobKey,
    /// The version and git revision of the warpsmith that ran the job.
    pub version: String,
    pub git_rev: String,
    pub status: Status,
    /// Why it erred (empty when it did not).
    pub message: String,
    /// The command that runs the job again (quoted for the shell).
    pub command: String,
    /// The run report's figures (`warpsmith schema run`) by dotted key (`l1.hits`,
    /// `sms.0.ipc`): every one, or the experiment's `statistics` and their fields. None when
    /// the job erred.
    pub statistics: BTreeMap<String, Value>,
}

/// A line of a sweep's `results.jsonl`: a row, and the job's wall-clock time (kept out of the
/// table, which is the same wherever and however fast it was run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finished {
    #[serde(flatten)]
    pub row: Row,
    pub seconds: f64,
}

impl Record for Finished {
    fn id(&self) -> &str {
        &self.row.key.id
    }
}

/// The schema of the run report (the statistics' names).
pub fn run_schema() -> Value {
    golden::report::schema_of::<golden::report::Report<golden::gpu::run::RunSummary>>()
}

/// What `node` stands for: itself, or what its `$ref` and its alternatives (an `Option`'s
/// `anyOf` with null) stand for.
fn resolve<'a>(node: &'a Value, defs: &'a Value, out: &mut Vec<&'a Value>) {
    if let Some(r) = node["$ref"].as_str() {
        if let Some(def) = r.strip_prefix("#/$defs/").and_then(|n| defs.get(n)) {
            resolve(def, defs, out);
        }
    }
    for alt in ["anyOf", "oneOf", "allOf"] {
        for n in node[alt].as_array().into_iter().flatten() {
            resolve(n, defs, out);
        }
    }
    out.push(node);
}

/// Whether `key` (dotted; a number indexes a list) names a field of the run report, a figure
/// or a group of them, that is not one of its provenance fields.
pub fn is_statistic(schema: &Value, key: &str) -> bool {
    let defs = &schema["$defs"];
    if key.is_empty() || PROVENANCE.contains(&key.split('.').next().unwrap_or_default()) {
        return false;
    }
    let mut nodes = vec![schema];
    for seg in key.split('.') {
        let mut here = Vec::new();
        for n in nodes {
            resolve(n, defs, &mut here);
        }
        nodes = Vec::new();
        for n in here {
            if let Some(p) = n["properties"].get(seg) {
                nodes.push(p);
            }
            if seg.parse::<usize>().is_ok() && n["items"].is_object() {
                nodes.push(&n["items"]);
            }
            if n["additionalProperties"].is_object() {
                nodes.push(&n["additionalProperties"]);
            }
        }
        if nodes.is_empty() {
            return false;
        }
    }
    true
}

/// Every leaf of `v` under `prefix`, by dotted key (an object's fields by name, a list's items
/// by index).
fn flatten(prefix: &str, v: &Value, out: &mut BTreeMap<String, Value>) {
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(m) => m.iter().for_each(|(k, v)| flatten(&key(k), v, out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, v)| flatten(&key(&i.to_string()), v, out)),
        leaf => {
            out.insert(prefix.to_string(), leaf.clone());
        }
    }
}

/// A run report's statistics: its figures flattened, only those under `keep` if it names any.
pub fn statistics(report: &Value, keep: &[String]) -> BTreeMap<String, Value> {
    let mut all = BTreeMap::new();
    if let Value::Object(m) = report {
        for (k, v) in m.iter().filter(|(k, _)| !PROVENANCE.contains(&k.as_str())) {
            flatten(k, v, &mut all);
        }
    }
    if keep.is_empty() {
        return all;
    }
    all.into_iter()
        .filter(|(k, _)| {
            keep.iter().any(|s| {
                k == s
                    || k.strip_prefix(s.as_str())
                        .is_some_and(|r| r.starts_with('.'))
            })
        })
        .collect()
}

/// A value in a CSV cell: a string as itself, a number or a boolean as JSON writes it, null
/// empty.
fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The table as CSV: the key's columns, then one per statistic any row has (sorted).
pub fn csv(rows: &[Row]) -> Result<String, RegressError> {
    let stats: BTreeSet<&String> = rows.iter().flat_map(|r| r.statistics.keys()).collect();
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let fixed = [
        "id",
        "kind",
        "workload",
        "preset",
        "config",
        "config_hash",
        "sets",
        "seed",
        "version",
        "git_rev",
        "status",
        "message",
        "command",
    ];
    let head = fixed
        .iter()
        .copied()
        .chain(stats.iter().map(|s| s.as_str()));
    let internal = |e: ::csv::Error| RegressError::Internal(format!("cannot write the CSV: {e}"));
    w.write_record(head).map_err(internal)?;
    for r in rows {
        let k = &r.key;
        let mut line = vec![
            k.id.clone(),
            k.kind.clone(),
            k.workload.clone(),
            k.preset.clone(),
            k.config.clone(),
            k.config_hash.clone(),
            k.sets.join(" "),
            k.seed.to_string(),
            r.version.clone(),
            r.git_rev.clone(),
            cell(&serde_json::to_value(r.status).unwrap_or_default()),
            r.message.clone(),
            r.command.clone(),
        ];
        line.extend(
            stats
                .iter()
                .map(|s| r.statistics.get(*s).map(cell).unwrap_or_default()),
        );
        w.write_record(line).map_err(internal)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| RegressError::Internal(format!("cannot write the CSV: {e}")))?;
    String::from_utf8(bytes)
        .map_err(|e| RegressError::Internal(format!("the CSV is not UTF-8: {e}")))
}

/// The table as JSON lines, a row a line.
pub fn jsonl(rows: &[Row]) -> Result<String, RegressError> {
    let mut text = String::new();
    for r in rows {
        let line = serde_json::to_string(r)
            .map_err(|e| RegressError::Internal(format!("cannot encode a row: {e}")))?;
        text.push_str(&line);
        text.push('\n');
    }
    Ok(text)
}

/// Write `table.csv` and `table.jsonl` of `rows` in `dir`.
pub fn write(dir: &Path, rows: &[Row]) -> Result<(), RegressError> {
    results::write_file(&dir.join(TABLE_CSV), &csv(rows)?)?;
    results::write_file(&dir.join(TABLE_JSONL), &jsonl(rows)?)
}

/// The rows of `finished` in the order of `ids` (the experiment's), those with a result.
pub fn in_order(ids: &[String], finished: &[Finished]) -> Vec<Row> {
    let by_id: HashMap<&str, &Row> = finished.iter().map(|f| (f.id(), &f.row)).collect();
    ids.iter()
        .filter_map(|id| by_id.get(id.as_str()).map(|r| (*r).clone()))
        .collect()
}

/// What merging shard folders found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MergeReport {
    pub folders: usize,
    pub rows: usize,
    /// Jobs of the experiment with no result in any folder.
    pub missing: Vec<String>,
    /// Jobs with a result in more than one folder (the first is kept).
    pub duplicated: Vec<String>,
    /// Rows that are errors.
    pub errors: usize,
}

/// Merge the results of shard folders (each with `results.jsonl` and `plan.json` of one
/// experiment) into `out`: its `results.jsonl` and its table, rows in the experiment's order.
/// Returns what it found and the table's rows.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<(MergeReport, Vec<Row>), RegressError> {
    let names = [RESULTS, TABLE_CSV, TABLE_JSONL];
    let writing = |e| RegressError::Write(out.display().to_string(), e);
    spec::output::check_claim(out, &names).map_err(writing)?;
    let g = results::gather::<Job, Finished>(dirs, "sweep", "experiment")?;
    let recorded: HashSet<&str> = g.results.iter().map(Record::id).collect();
    let rows = in_order(&g.list_ids, &g.results);
    let rep = MergeReport {
        folders: dirs.len(),
        rows: rows.len(),
        missing: g
            .list_ids
            .iter()
            .filter(|id| !recorded.contains(id.as_str()))
            .cloned()
            .collect(),
        duplicated: g.duplicated,
        errors: rows.iter().filter(|r| r.status == Status::Error).count(),
    };
    spec::output::claim(out, &names).map_err(writing)?;
    results::write_file(&out.join(RESULTS), &results::lines(&g.results)?)?;
    write(out, &rows)?;
    Ok((rep, rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn statistics_are_the_reports_figures_by_dotted_key() {
        let report = json!({
            "schema": "warpsmith-run/1", "config_hash": "ab", "command_line": ["run"],
            "ipc": 1.5, "l1": {"hits": 3, "kinds": {"load": 2}},
            "sms": [{"ipc": 1.0}, {"ipc": 2.0}], "prefetch": null, "l1x": 7
        });
        let all = statistics(&report, &[]);
        let keys: Vec<&str> = all.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "ipc",
                "l1.hits",
                "l1.kinds.load",
                "l1x",
                "prefetch",
                "sms.0.ipc",
                "sms.1.ipc"
            ]
        );
        // A kept key keeps its fields, not a key it is only the start of (`l1x`).
        let some = statistics(&report, &["l1".into(), "sms.1".into()]);
        let keys: Vec<&str> = some.keys().map(String::as_str).collect();
        assert_eq!(keys, ["l1.hits", "l1.kinds.load", "sms.1.ipc"]);
    }

    #[test]
    fn statistic_names_are_checked_against_the_run_reports_schema() {
        let s = run_schema();
        for good in [
            "ipc",
            "l1",
            "l1.hits",
            "sms.3.l1.misses",
            "dram.reads",
            "prefetch",
        ] {
            assert!(is_statistic(&s, good), "{good}");
        }
        for bad in [
            "",
            "ipcs",
            "l1.hitz",
            "sms.x",
            "config_hash",
            "command_line",
            "ipc.x",
        ] {
            assert!(!is_statistic(&s, bad), "{bad}");
        }
    }

    #[test]
    fn the_csv_has_a_column_per_statistic_any_row_has() {
        let key = |id: &str| JobKey {
            id: id.into(),
            kind: "kernel".into(),
            workload: "cp".into(),
            preset: "tiny".into(),
            config: "tiny".into(),
            config_hash: "h".into(),
            sets: vec!["a=1".into(), "b=x y".into()],
            seed: 1,
        };
        let row = |id: &str, stats: &[(&str, Value)], status| Row {
            schema: SCHEMA.into(),
            key: key(id),
            version: "1".into(),
            git_rev: "r".into(),
            status,
            message: String::new(),
            command: "warpsmith run".into(),
            statistics: stats
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        };
        let rows = [
            row(
                "a",
                &[("ipc", json!(1.5)), ("name", json!("x,y"))],
                Status::Ok,
            ),
            row("b", &[("cycles", json!(10))], Status::Ok),
            row("c", &[], Status::Error),
        ];
        let text = csv(&rows).unwrap();
        let mut r = ::csv::Reader::from_reader(text.as_bytes());
        let head: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
        assert_eq!(&head[13..], ["cycles", "ipc", "name"]);
        let lines: Vec<Vec<String>> = r
            .records()
            .map(|l| l.unwrap().iter().map(str::to_string).collect())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0][6], "a=1 b=x y");
        assert_eq!(&lines[0][13..], ["", "1.5", "x,y"]);
        assert_eq!(&lines[1][13..], ["10", "", ""]);
        assert_eq!(lines[2][10], "error");
        // The JSON lines read back as the rows.
        let back: Vec<Row> = jsonl(&rows)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(back, rows);
    }
}
