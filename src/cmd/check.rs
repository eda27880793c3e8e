//! `check`: lint and synthesize the generated RTL.

use crate::args::{CheckArgs, Format};
use crate::CliResult;
use serde_json::json;
use sim::toolchain::Verilator;
use sim::tools::{lint, synth, Yosys};
use std::process::ExitCode;

pub fn run(a: &CheckArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let v = Verilator::find()?;
    let yosys = if a.synth { Some(Yosys::find()?) } else { None };
    let mut ok = true;
    let mut rows = Vec::new();
    for block in crate::args::blocks(&a.block)? {
        let g = block.generate(&spec, "")?;
        let files = g.rtl();
        let l = lint(&v, &files, &g.top)?;
        ok &= l.clean;
        if a.format == Format::Text {
            outln!(
                "{block}: verilator --lint-only -Wall ({}): {}",
                v.version_text,
                if l.clean { "clean" } else { "WARNINGS" }
            )?;
            if !l.clean {
                outln!("{}", l.messages)?;
            }
        }
        let mut synth_row = serde_json::Value::Null;
        if let Some(y) = &yosys {
            if a.format == Format::Text {
                outln!(
                    "{block}: synthesizing with {} (slang front-end) ...",
                    y.version
                )?;
            }
            let r = synth(y, &files, &g.top)?;
            let estimate = (block.cost)(&spec).flip_flop_bits;
            let diff = r.flip_flops as i64 - estimate as i64;
            let clean = r.warnings.is_empty() && r.latches == 0 && r.memory_bits == 0;
            ok &= clean && diff == 0;
            if a.format == Format::Text {
                outln!(
                    "{block}: yosys: {} cells, {} flip-flops, {} latches, {} warnings ({:.0} s; \
                        log {})",
                    r.cells,
                    r.flip_flops,
                    r.latches,
                    r.warnings.len(),
                    r.seconds,
                    r.log
                )?;
                for w in &r.warnings {
                    outln!("  {w}")?;
                }
                outln!(
                    "{block}: flip-flops: synthesized {} vs estimated {} (cost model): difference \
                        {diff:+}",
                    r.flip_flops,
                    estimate
                )?;
            }
            let mut report = serde_json::to_value(&r)?;
            let seconds = report
                .as_object_mut()
                .and_then(|o| o.remove("seconds"))
                .unwrap_or_default();
            synth_row = json!({
                "report": report,
                "estimated_flip_flops": estimate,
                "difference": diff,
                "timing": {"seconds": seconds},
            });
        }
        rows.push(json!({"block": block.name, "lint": l, "synth": synth_row}));
    }
    if a.format == Format::Json {
        super::print_json(&json!({
            "config": spec.name,
            "config_hash": spec.hash.to_string(),
            "ok": ok,
            "blocks": rows,
        }))?;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
