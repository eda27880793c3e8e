//! `presets` and `describe`.

use crate::args::{DescribeArgs, Format};
use crate::{bad, CliResult};
use serde_json::json;
use spec::{ConfigRequest, UserConfig, DEFAULT_PRESET, PRESETS};
use std::process::ExitCode;

pub fn presets() -> CliResult<ExitCode> {
    let width = PRESETS.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in PRESETS {
        let default = if p.name == DEFAULT_PRESET {
            " (default)"
        } else {
            ""
        };
        outln!("{:width$}  {}{default}", p.name, p.summary)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The workload library: each application, its suite and source, its arguments (with their
/// defaults) and its input.
pub fn workloads() -> CliResult<ExitCode> {
    for w in golden::suite::apps::ALL {
        outln!("{}  ({}; {})", w.name, w.suite, w.source)?;
        for (key, default, meaning) in w.args {
            let arg = format!("{key}={default}");
            outln!("    {arg:<22} {meaning}")?;
        }
        outln!("    input: {}", w.input)?;
        outln!("    a small run: --workload {}:{}", w.name, w.small)?;
    }
    outln!("Run one with: warpsmith run --workload NAME[:KEY=VALUE,...]")?;
    Ok(ExitCode::SUCCESS)
}

/// The default value of every key, read from the default preset.
fn defaults() -> CliResult<toml::Table> {
    let spec = ConfigRequest::preset(DEFAULT_PRESET).resolve()?;
    Ok(toml::from_str(&spec.to_toml())?)
}

fn lookup(t: &toml::Table, key: &str) -> String {
    let mut node = t;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, p) in parts.iter().enumerate() {
        match node.get(*p) {
            Some(toml::Value::Table(inner)) if i + 1 < parts.len() => node = inner,
            Some(v) if i + 1 == parts.len() => return v.to_string().trim_matches('"').to_string(),
            _ => break,
        }
    }
    String::new()
}

pub fn describe(a: &DescribeArgs) -> CliResult<ExitCode> {
    if !a.gpgpusim.is_empty() {
        return import(a);
    }
    let d = defaults()?;
    let keys = UserConfig::keys();
    let rules: Vec<&str> = UserConfig::rules().map(|r| r.text).collect();
    match a.format {
        Format::Json => {
            let rows: Vec<_> = keys
                .iter()
                .map(|k| {
                    json!({
                        "key": k.key,
                        "type": k.ty,
                        "default": lookup(&d, k.key),
                        "legal": k.legal.to_string(),
                        "meaning": k.meaning,
                    })
                })
                .collect();
            super::print_json(&json!({"keys": rows, "rules": rules}))?;
        }
        Format::Text => {
            outln!(
                "Configuration keys (defaults are preset `{DEFAULT_PRESET}`). Set them in a \
                TOML file (--config) or with --set KEY=VALUE.\n"
            )?;
            let kw = keys.iter().map(|k| k.key.len()).max().unwrap_or(0);
            let lw = keys
                .iter()
                .map(|k| k.legal.to_string().len())
                .max()
                .unwrap_or(0);
            outln!(
                "{:kw$}  {:7}  {:>8}  {:lw$}  meaning",
                "key",
                "type",
                "default",
                "legal"
            )?;
            for k in &keys {
                outln!(
                    "{:kw$}  {:7}  {:>8}  {:lw$}  {}",
                    k.key,
                    k.ty,
                    lookup(&d, k.key),
                    k.legal.to_string(),
                    k.meaning
                )?;
            }
            outln!("\nRules between keys (checked after every key is in its range):")?;
            for r in rules {
                outln!("  {r}")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What GPGPU-Sim option files import on top of a preset.
fn import(a: &DescribeArgs) -> CliResult<ExitCode> {
    let spec = ConfigRequest {
        preset: Some(a.preset.clone()),
        gpgpusim: a.gpgpusim.clone(),
        ..Default::default()
    }
    .resolve()
    .map_err(bad)?;
    let Some(r) = spec.import_report() else {
        return Ok(ExitCode::SUCCESS);
    };
    match a.format {
        Format::Json => super::print_json(&json!({
            "config": spec.name,
            "config_hash": spec.hash.to_string(),
            "imported": r
                .imported
                .iter()
                .map(|k| json!({"key": k.key, "value": k.value.to_string(), "from": k.from}))
                .collect::<Vec<_>>(),
            "kept": r.kept,
            "unmodelled": r.unmodelled,
            "ignored": r
                .ignored
                .iter()
                .map(|o| json!({"option": o.option, "value": o.value, "location": o.location}))
                .collect::<Vec<_>>(),
        }))?,
        Format::Text => {
            outln!(
                "{} on preset {}: configuration {} (hash {})",
                a.gpgpusim
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" + "),
                a.preset,
                spec.name,
                spec.hash
            )?;
            outln!("\nimported ({} keys):", r.imported.len())?;
            let w = r.imported.iter().map(|k| k.key.len()).max().unwrap_or(0);
            for k in &r.imported {
                outln!(
                    "  {:w$} = {:<28} from {}",
                    k.key,
                    k.value.to_string(),
                    k.from
                )?;
            }
            outln!("\nkept from the preset ({}):", r.kept.len())?;
            for k in &r.kept {
                outln!("  {k}")?;
            }
            outln!("\nread but not modelled ({}):", r.unmodelled.len())?;
            for u in &r.unmodelled {
                outln!("  {u}")?;
            }
            outln!("\nignored: no key takes them ({}):", r.ignored.len())?;
            for o in &r.ignored {
                outln!("  {} {}  ({})", o.option, o.value, o.location)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
