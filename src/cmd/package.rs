//! `schema`, `completions` and `manpages`: the reports' JSON schemas, generated from their
//! types, and the shell completion scripts and manual pages, generated from the command-line
//! definition (with the block registry's help), so none drifts from what it describes.

use crate::args::{CompletionsArgs, ManpagesArgs, ReportKind, SchemaArgs};
use crate::CliResult;
use spec::output::Entry;
use std::process::ExitCode;

pub fn schema(a: &SchemaArgs) -> CliResult<ExitCode> {
    let schema = match a.report {
        ReportKind::Run => {
            golden::report::schema_of::<golden::report::Report<golden::gpu::run::RunSummary>>()
        }
        ReportKind::Sample => golden::report::schema_of::<golden::gpu::run::Sample>(),
        ReportKind::Sweep => golden::report::schema_of::<sim::sweep::table::Row>(),
        ReportKind::Correlate => {
            golden::report::schema_of::<golden::report::Report<sim::correlate::Report>>()
        }
    };
    super::print_json(&schema)?;
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
