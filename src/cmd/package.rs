//! `schema`, `completions` and `manpages`: the reports' JSON schemas, generated from their
//! types, and the shell completion scripts and manual pages, generated from the command-line
//! definition (with the block registry's help), so none drifts from what it describes.

use crate::args::{CompletionsArgs, ManpagesArgs, SchemaArgs};
use crate::CliResult;
use golden::report::{schema_of, Report};
use serde_json::Value;
use spec::output::Entry;
use std::process::ExitCode;

/// A JSON report with a schema: its name in `warpsmith schema NAME`, what prints it, and its
/// schema.
pub struct SchemaReport {
    pub name: String,
    pub help: String,
    pub schema: fn() -> Value,
}

/// Every report with a schema: `run`'s, its samples', a sweep table's rows, `correlate`'s,
/// and each golden run's (`golden-<name>`, from the block registry).
pub fn schema_reports() -> Vec<SchemaReport> {
    let fixed = |name: &str, help: &str, schema: fn() -> Value| SchemaReport {
        name: name.to_string(),
        help: help.to_string(),
        schema,
    };
    let fixed = [
        fixed(
            "run",
            "`warpsmith run --format json`",
            schema_of::<Report<golden::gpu::run::RunSummary>>,
        ),
        fixed(
            "sample",
            "a line of `warpsmith run --stats-out`",
            schema_of::<golden::gpu::run::Sample>,
        ),
        fixed(
            "sweep",
            "a row of `warpsmith sweep`'s table (table.jsonl)",
            schema_of::<sim::sweep::table::Row>,
        ),
        fixed(
            "correlate",
            "`warpsmith correlate --format json` (and its --out report.json)",
            schema_of::<Report<sim::correlate::Report>>,
        ),
    ];
    let goldens = sim::blocks::goldens().map(|(_, g)| SchemaReport {
        name: format!("golden-{}", g.name),
        help: format!("`warpsmith golden --block {}`: {}", g.name, g.output),
        schema: g.schema,
    });
    fixed.into_iter().chain(goldens).collect()
}

pub fn schema(a: &SchemaArgs) -> CliResult<ExitCode> {
    let reports = schema_reports();
    let Some(r) = reports.iter().find(|r| r.name == a.report) else {
        let names: Vec<&str> = reports.iter().map(|r| r.name.as_str()).collect();
        return Err(crate::bad(anyhow::anyhow!(
            "no report `{}` has a schema; give one of {}",
            a.report,
            names.join(", ")
        )));
    };
    super::print_json(&(r.schema)())?;
    Ok(ExitCode::SUCCESS)
}

pub fn completions(a: &CompletionsArgs) -> CliResult<ExitCode> {
    let mut cmd = crate::args::command();
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "warpsmith", &mut script);
    crate::out::stdout(format_args!("{}", String::from_utf8_lossy(&script)))?;
    Ok(ExitCode::SUCCESS)
}

pub fn manpages(a: &ManpagesArgs) -> CliResult<ExitCode> {
    let cmd = crate::args::command().version(crate::VERSION);
    let mut pages = vec![page("warpsmith.1", cmd.clone())?];
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("warpsmith-{}", sub.get_name());
        let sub = sub.clone().name(name.clone()).version(crate::VERSION);
        pages.push(page(&format!("{name}.1"), sub)?);
    }
    crate::out::check_folder(&a.out, &pages, "--out")?;
    crate::out::replace_folder(&a.out, &pages, "--out")?;
    outln!(
        "wrote {} manual pages to {} (read one with `man -l {}/warpsmith-run.1`)",
        pages.len(),
        a.out.display(),
        a.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// One page in roff.
fn page(file: &str, cmd: clap::Command) -> CliResult<(String, Entry)> {
    let mut roff = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut roff)?;
    Ok((file.to_string(), Entry::File(roff)))
}
