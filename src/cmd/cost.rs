//! `cost`.

use crate::args::{CostArgs, CostFormat};
use crate::CliResult;
use golden::cost::BlockCost;
use std::process::ExitCode;

fn bytes(b: f64) -> String {
    if b >= 1024.0 {
        format!("{b:.0} B ({:.2} KiB)", b / 1024.0)
    } else {
        format!("{b:.1} B")
    }
}

pub fn print_table(c: &BlockCost) -> CliResult {
    outln!(
        "storage cost: {}  config {} (hash {})",
        c.block,
        c.config,
        c.config_hash
    )?;
    print_tables(&c.tables)?;
    print_rest(c)?;
    if !c.related.is_empty() {
        outln!("\n  related storage the paper counts, not part of this block's RTL:")?;
        print_tables(&c.related)?;
    }
    Ok(())
}

fn print_tables(tables: &[golden::cost::TableCost]) -> CliResult {
    for t in tables {
        outln!(
            "\n  {}: {} entries x {} bits",
            t.name,
            t.entries,
            t.bits_per_entry
        )?;
        outln!(
            "    {:18} {:>6} {:>6} {:>9}  meaning",
            "field",
            "width",
            "count",
            "bits"
        )?;
        for f in &t.fields {
            outln!(
                "    {:18} {:>6} {:>6} {:>9}  {}",
                f.name,
                f.width,
                f.count,
                f.bits,
                f.meaning
            )?;
        }
        outln!(
            "    {:18} {:>6} {:>6} {:>9}  per entry; x {} entries = {} bits = {}",
            "total",
            "",
            "",
            t.bits_per_entry,
            t.entries,
            t.total_bits,
            bytes(t.total_bytes)
        )?;
    }
    Ok(())
}

fn print_rest(c: &BlockCost) -> CliResult {
    outln!(
        "\n  table storage: {} bits = {}",
        c.storage_bits,
        bytes(c.storage_bytes)
    )?;
    outln!("  other registers of the generated RTL:")?;
    for r in &c.registers {
        outln!("    {:20} {:>6} bits  {}", r.name, r.bits, r.meaning)?;
    }
    outln!("  flip-flops in all: {} bits", c.flip_flop_bits)?;
    if let Some(cmp) = &c.comparison {
        outln!("\n  compared with {}:", cmp.source)?;
        outln!(
            "    {:28} {:>6} {:>6} {:>6}  why",
            "field",
            "ours",
            "paper",
            "diff"
        )?;
        for r in &cmp.rows {
            let d = i64::from(r.ours_bits) - i64::from(r.paper_bits);
            outln!(
                "    {:28} {:>6} {:>6} {:>+6}  {}",
                r.field,
                r.ours_bits,
                r.paper_bits,
                d,
                r.why
            )?;
        }
        let ours: u32 = cmp.rows.iter().map(|r| r.ours_bits).sum();
        let paper: u32 = cmp.rows.iter().map(|r| r.paper_bits).sum();
        outln!(
            "    {:28} {:>6} {:>6} {:>+6}  bits per unit",
            "total",
            ours,
            paper,
            i64::from(ours) - i64::from(paper)
        )?;
        outln!(
            "    per {}: ours {:.2} B, paper {:.2} B; in all: ours {}, paper {} ({} {})",
            cmp.unit,
            cmp.ours_bytes_per_unit,
            cmp.paper_bytes_per_unit,
            bytes(cmp.ours_total_bytes),
            bytes(cmp.paper_total_bytes),
            cmp.paper_units,
            plural(&cmp.unit, cmp.paper_units)
        )?;
        outln!("    note: {}", cmp.note)?;
    }
    Ok(())
}

pub fn run(a: &CostArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let costs: Vec<BlockCost> = crate::args::blocks(&a.block)?
        .iter()
        .map(|b| (b.cost)(&spec))
        .collect();
    match a.format {
        CostFormat::Json => {
            if costs.len() == 1 {
                super::print_json(&costs[0])?
            } else {
                super::print_json(&costs)?
            }
        }
        CostFormat::Table => {
            for (i, c) in costs.iter().enumerate() {
                if i > 0 {
                    outln!()?;
                }
                print_table(c)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `entry` -> `entries`, `controller` -> `controllers` (unless one).
fn plural(unit: &str, n: u64) -> String {
    if n == 1 {
        unit.to_string()
    } else if let Some(stem) = unit.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{unit}s")
    }
}
