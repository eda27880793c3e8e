//! `golden`: run a stimulus through the golden model.

use crate::args::{Format, GoldenArg, GoldenArgs};
use crate::{bad, CliResult};
use golden::block::CycleModel;
use golden::mc::system::MemSystem;
use golden::ot::{dump_state, response_json, OtModel, Packer};
use sim::ot::{Source, Stimulus};
use sim::wmc::McStimulus;
use std::io::Write;
use std::process::ExitCode;

pub fn run(a: &GoldenArgs) -> CliResult<ExitCode> {
    match a.block {
        GoldenArg::Ot => ot(a),
        GoldenArg::Mc => mc(a),
        GoldenArg::Dispatch => dispatch(a),
    }
}

/// The stimulus of a block that needs one.
fn stimulus(a: &GoldenArgs) -> CliResult<&str> {
    a.stimulus.as_deref().ok_or_else(|| {
        bad(anyhow::anyhow!(
            "--stimulus is required for --block {}",
            match a.block {
                GoldenArg::Ot => "ot",
                _ => "mc",
            }
        ))
    })
}

/// Thread-block dispatch: the order and the lines co-resident blocks share.
fn dispatch(a: &GoldenArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let name = a.kernel.as_deref().ok_or_else(|| {
        bad(anyhow::anyhow!(
            "--kernel is required for --block dispatch (a built-in name such as rowmajor, colmajor, cp, or a kernel TOML file)"
        ))
    })?;
    let k = golden::dispatch::kernel(name).map_err(bad)?;
    let sms = a.sms.unwrap_or(spec.gpu.sms);
    let slots = a.slots.unwrap_or(spec.gpu.ctas_per_sm);
    for (flag, v) in [("--sms", sms), ("--slots", slots)] {
        if !(1..=1024).contains(&v) {
            return Err(bad(anyhow::anyhow!(
                "{flag} = {v} is out of range: legal values are 1..=1024"
            )));
        }
    }
    let spec = if a.sms.is_some() || a.slots.is_some() {
        spec.variant(&[
            &format!("gpu.sms={sms}"),
            &format!("gpu.ctas_per_sm={slots}"),
        ])
        .map_err(bad)?
    } else {
        spec
    };
    let unit = spec.dispatch.clone();
    let rects = golden::dispatch::access_ranges(&k, spec.gpu.line_bytes).map_err(bad)?;
    let times = golden::dispatch::BlockTimes::Model {
        base: spec.dispatch.block_cycles.into(),
        seed: a.seed,
    };
    let r = golden::dispatch::dispatch(
        &k,
        &rects,
        &unit,
        spec.dispatch.policy,
        &times,
        spec.gpu.line_bytes,
    )
    .map_err(bad)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match a.format {
        Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?,
        Format::Text => {
            writeln!(
                out,
                "dispatch {}  kernel {} (grid {}x{}x{})  {} SMs x {} slots",
                r.policy, r.kernel, k.grid[0], k.grid[1], k.grid[2], r.sms, r.slots
            )?;
            if let (Some((x, y)), Some(d)) = (r.reuse, r.direction) {
                writeln!(out, "  reuse distance x {x}, y {y}: direction {d:?}")?;
            }
            writeln!(
                out,
                "  {:>8} {:>12} {:>4} {:>10} {:>7}",
                "block", "(x,y,z)", "sm", "cycle", "shared"
            )?;
            for d in &r.dispatches {
                writeln!(
                    out,
                    "  {:>8} {:>12} {:>4} {:>10} {:>7}",
                    d.block,
                    format!("({},{},{})", d.coords[0], d.coords[1], d.coords[2]),
                    d.sm,
                    d.cycle,
                    d.shared
                )?;
            }
            writeln!(out, "  shared lines between co-resident blocks, per SM:")?;
            for (s, v) in r.shared_per_sm.iter().enumerate() {
                writeln!(out, "    sm {s:>3}: {v}")?;
            }
            writeln!(
                out,
                "  total {}  (last block done at cycle {})",
                r.shared_total, r.cycles
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn ot(a: &GoldenArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let kind: Stimulus = stimulus(a)?.parse().map_err(bad)?;
    let source = Source::new(&spec, &kind, a.seed).map_err(bad)?;
    let limit = if source.is_finite() {
        u64::MAX
    } else {
        a.cycles
    };
    let mut model = OtModel::new(&spec.ot);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for c in Packer::new(source.iter()).take(usize::try_from(limit).unwrap_or(usize::MAX)) {
        let inp = c.input(spec.gpu.warp_size).map_err(bad)?;
        let o = *model.step(&inp).map_err(bad)?;
        for (_, t) in c.txns() {
            writeln!(out, "{}", response_json(t, &o))?;
        }
    }
    if a.dump_state {
        writeln!(out, "{}", dump_state(&model))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The memory system: every request's completion, then a summary.
fn mc(a: &GoldenArgs) -> CliResult<ExitCode> {
    let spec = a.config.resolve()?;
    let kind: McStimulus = stimulus(a)?.parse().map_err(bad)?;
    let reqs = sim::wmc::requests(&spec, &kind, a.cycles, a.seed).map_err(bad)?;
    let mut sys = MemSystem::new(&spec, reqs).map_err(bad)?;
    if a.command_trace.is_some() {
        sys.record_commands();
    }
    let start = std::time::Instant::now();
    sys.run(u64::MAX, None)?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &a.command_trace {
        let mut text = String::from("# cycle,channel,bank,command,row,col\n");
        for c in sys.commands() {
            text.push_str(&c.to_line());
            text.push('\n');
        }
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write command trace {}: {e}", path.display()))?;
    }
    let summary = sys.summary();
    match a.format {
        Format::Json => {
            let mut v = serde_json::to_value(&summary)?;
            v["config"] = serde_json::json!(spec.name);
            v["stimulus"] = serde_json::json!(kind.to_string());
            v["seconds"] = serde_json::json!(seconds);
            v["requests_per_second"] =
                serde_json::json!(summary.requests as f64 / seconds.max(1e-9));
            super::print_json(&v)?;
        }
        Format::Text => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            writeln!(
                out,
                "# request cycle sm warp load channel bank row write completed latency"
            )?;
            for (i, (r, d)) in sys.requests().iter().zip(sys.completions()).enumerate() {
                let dec = sys.address_map().decode(r.addr);
                writeln!(
                    out,
                    "{i} {} {} {} {} {} {} {} {} {d} {}",
                    r.cycle,
                    r.sm,
                    r.warp,
                    r.load,
                    dec.channel,
                    dec.bank,
                    dec.row,
                    u8::from(r.write),
                    d.saturating_sub(r.cycle)
                )?;
            }
            let s = &summary;
            writeln!(
                out,
                "# scheduler {}  requests {}  warp loads {}  cycles {}",
                s.scheduler, s.requests, s.warp_loads, s.cycles
            )?;
            writeln!(out, "# bandwidth_util {:.4}  row_hit_rate {:.4}  commands {}  activations {}  refreshes {}", s.bandwidth_util, s.row_hit_rate, s.commands, s.activations, s.refreshes)?;
            for (name, d) in [
                ("latency", s.latency),
                ("divergence", s.divergence),
                ("warp_time", s.warp_time),
            ] {
                writeln!(
                    out,
                    "# {name:10} mean {:9.1}  p50 {:6}  p95 {:6}  p99 {:6}  max {:6}",
                    d.mean, d.p50, d.p95, d.p99, d.max
                )?;
            }
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
