//! `warpsmith reproduce --quick`: every seed's section, every headline's plot with its bars and
//! the paper's line, figures that are the sweep's own rows, a resumed run, bad input; and (with
//! Chromium, `#[ignore]`d) the page opened in a real browser without a console error.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The text between `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text.find(start).unwrap_or_else(|| panic!("no `{start}`"));
    let rest = &text[from..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

#[test]
fn the_quick_report_has_every_seed_every_plot_and_the_runs_figures() {
    let d = scratch("reproduce-quick");
    let out = d.join("out");
    let o = warpsmith(&[
        "reproduce",
        "--quick",
        "-j",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let html = read(&out.join("report.html"));
    let report: Value = serde_json::from_str(&read(&out.join("report.json"))).unwrap();
    let seeds = report["seeds"].as_array().unwrap();
    assert_eq!(seeds.len(), 5);
    // Nothing fetched: no script, no external resource.
    for bad in ["<script", "src=\"http", "href=\"http", "@import"] {
        assert!(!html.contains(bad), "{bad}");
    }
    for s in seeds {
        let id = s["id"].as_str().unwrap();
        assert!(
            html.contains(&format!("<section id=\"seed-{id}\">")),
            "{id}"
        );
        let table = read(&out.join(format!("seed-{id}/table.jsonl")));
        let rows: Vec<Value> = table
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(rows.iter().all(|r| r["status"] == "ok"), "{id}");
        let headlines = s["headlines"].as_array().unwrap();
        assert!(!headlines.is_empty());
        for (k, h) in headlines.iter().enumerate() {
            // The plot: a bar per workload measured, the overall bar, the paper's line when
            // the paper gives a value.
            let svg = between(&html, &format!("<svg id=\"plot-{id}-{k}\""), "</svg>");
            let pairs = h["pairs"].as_array().unwrap();
            assert!(pairs.len() >= 2, "{id} {k}");
            let measured = pairs.iter().filter(|p| p["change"].is_number()).count();
            assert_eq!(
                svg.matches("<rect").count(),
                measured + 1,
                "{id} {k}: {svg}"
            );
            assert_eq!(svg.matches("bar overall").count(), 1, "{id} {k}");
            assert_eq!(
                svg.contains("class=\"paper\""),
                h["paper_value"].is_number(),
                "{id} {k}"
            );
            // Each workload's two figures are its rows' own: the metric of the row the
            // command names.
            for p in pairs {
                for (cmd, value) in [("baseline_command", "baseline"), ("command", "value")] {
                    let row = rows
                        .iter()
                        .find(|r| r["command"] == p[cmd])
                        .unwrap_or_else(|| panic!("{id}: no row runs {}", p[cmd]));
                    if h["metric"] == "Ipc" {
                        assert_eq!(row["statistics"]["ipc"], p[value], "{id} {k}");
                    }
                }
                // The command is in the page.
                let cmd = p["command"].as_str().unwrap().replace('\'', "&#39;");
                assert!(html.contains(&cmd), "{cmd}");
            }
            let change = h["change"].as_f64().unwrap();
            let verdict = h["reproduced"].as_bool().unwrap();
            let expect = &h["expect"];
            if expect == "Higher" {
                assert_eq!(verdict, change > 0.01, "{id} {k}");
            } else if expect == "Lower" {
                assert_eq!(verdict, change < -0.01, "{id} {k}");
            }
        }
    }
    // Statistics over time: a plot per field, a line per configuration, its samples those of
    // the run its command names.
    let mut timelines = 0;
    for s in seeds {
        let id = s["id"].as_str().unwrap();
        for (k, p) in s["timelines"].as_array().unwrap().iter().enumerate() {
            timelines += 1;
            let svg = between(&html, &format!("<svg id=\"timeline-{id}-{k}\""), "</svg>");
            let series = p["series"].as_array().unwrap();
            assert!(series.len() >= 2, "{id} {k}");
            for line in series {
                let points = line["points"].as_array().unwrap();
                assert!(points.len() >= 10, "{id} {k}: {} samples", points.len());
                let label = line["label"].as_str().unwrap();
                if points.iter().any(|p| p[1].is_number()) {
                    assert!(
                        svg.contains(&format!("<title>{label}</title></polyline>")),
                        "{id}"
                    );
                }
            }
            // Each line is a rerun of one of the sweep's jobs, to its end: its last sample is
            // at the cycle the job's row reports.
            let table = read(&out.join(format!("seed-{id}/table.jsonl")));
            for line in series {
                let cmd = line["command"].as_str().unwrap();
                let row: Value = table
                    .lines()
                    .map(|l| serde_json::from_str::<Value>(l).unwrap())
                    .find(|r| {
                        let job = r["command"].as_str().unwrap();
                        cmd.starts_with(job.strip_suffix(" --format json").unwrap())
                    })
                    .unwrap_or_else(|| panic!("{id}: no job is {cmd}"));
                let last = line["points"].as_array().unwrap().last().unwrap()[0].clone();
                assert_eq!(last.as_f64(), row["statistics"]["cycles"].as_f64(), "{cmd}");
            }
        }
    }
    assert!(timelines >= 8, "{timelines}");
    // Resumed, nothing runs again and the report is the same but for its command line.
    let o = warpsmith(&[
        "reproduce",
        "--quick",
        "--resume",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let again: Value = serde_json::from_str(&read(&out.join("report.json"))).unwrap();
    assert_eq!(again["seeds"], report["seeds"]);
    assert!(!stdout(&o).contains("] OK"), "{}", stdout(&o));
    // Without --resume, an earlier run's results are not overwritten.
    let o = warpsmith(&[
        "reproduce",
        "--quick",
        "004",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
}

#[test]
fn one_seed_alone_and_bad_seeds() {
    let d = scratch("reproduce-one");
    let out = d.join("out");
    let o = warpsmith(&["reproduce", "--quick", "4", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = read(&out.join("report.html"));
    assert!(html.contains("seed-004") && !html.contains("seed-000"));
    assert!(!out.join("seed-000").exists());
    exits_2_saying(&["reproduce", "--quick", "7"], "no seed `7`");
    exits_2_saying(&["reproduce", "--quick", "x"], "give 000, 001");
}

/// The page in headless Chromium (Debian's `chromium`; `scripts/report-check.sh` installs it):
/// it loads with no console message and every plot is drawn. Run with
/// `cargo test --profile release-tests --test reproduce -- --ignored`.
#[test]
#[ignore]
fn the_report_opens_in_headless_chromium_without_console_errors() {
    let d = scratch("reproduce-chromium");
    let out = d.join("out");
    let o = warpsmith(&[
        "reproduce",
        "--quick",
        "-j",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = Command::new("scripts/report-check.sh")
        .arg(out.join("report.html"))
        .arg(d.join("shots"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("0 console messages"), "{}", stdout(&o));
    for id in ["000", "001", "002", "003", "004"] {
        assert!(d.join(format!("shots/seed-{id}.png")).exists(), "{id}");
    }
}
