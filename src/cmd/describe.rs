//! `presets` and `describe`.

use crate::args::{DescribeArgs, Format};
use crate::CliResult;
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
        println!("{:width$}  {}{default}", p.name, p.summary);
    }
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
    let d = defaults()?;
    match a.format {
        Format::Json => {
            let rows: Vec<_> = UserConfig::keys()
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
            super::print_json(&rows)?;
        }
        Format::Text => {
            println!("Configuration keys (defaults are preset `{DEFAULT_PRESET}`). Set them in a TOML file (--config) or with --set KEY=VALUE.\n");
            let kw = UserConfig::keys()
                .iter()
                .map(|k| k.key.len())
                .max()
                .unwrap_or(0);
            let lw = UserConfig::keys()
                .iter()
                .map(|k| k.legal.to_string().len())
                .max()
                .unwrap_or(0);
            println!(
                "{:kw$}  {:7}  {:>8}  {:lw$}  meaning",
                "key", "type", "default", "legal"
            );
            for k in UserConfig::keys() {
                println!(
                    "{:kw$}  {:7}  {:>8}  {:lw$}  {}",
                    k.key,
                    k.ty,
                    lookup(&d, k.key),
                    k.legal.to_string(),
                    k.meaning
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
