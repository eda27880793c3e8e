//! The report of `warpsmith reproduce`: one self-contained HTML page (inline CSS, inline SVG,
//! no script, nothing fetched), a section per seed: the paper and its GPU beside the preset,
//! per headline a bar plot of the change per workload and overall with the paper's value as a
//! line, the verdict, the figures and the commands that measured them, and the configurations'
//! diagnostics. The SVG is written here, not drawn by a plotting crate: bar plots with a zero
//! line and a reference line are a few dozen lines, and the page stays free of fonts and
//! scripts a crate would embed.

use super::timeline::Plot;
use super::{Measured, SeedResult};
use std::fmt::Write;

/// Text for HTML (element content and attribute values).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A change as a signed percentage.
fn pct(c: Option<f64>) -> String {
    c.map_or_else(|| "n/a".into(), |c| format!("{:+.1} %", c * 100.0))
}

fn num(v: Option<f64>) -> String {
    match v {
        None => "n/a".into(),
        Some(v) if v.abs() >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.3}"),
    }
}

/// The verdict's word and CSS class.
fn verdict(m: &Measured) -> (&'static str, &'static str) {
    match m.reproduced {
        Some(true) => ("reproduced", "yes"),
        Some(false) => ("not reproduced", "no"),
        None => ("not measured", "none"),
    }
}

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 240.0;
const LEFT: f64 = 56.0;
const BOTTOM: f64 = 56.0;
const TOP: f64 = 16.0;

/// A plot's SVG opened: its element (id, accessible label) and five gridlines across
/// `range` of values, placed by `y` and labelled by `tick`. The caller draws and closes it.
fn frame(
    id: &str,
    label: &str,
    (lo, hi): (f64, f64),
    y: impl Fn(f64) -> f64,
    tick: impl Fn(f64) -> String,
) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg id=\"{}\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" \
         height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{}\">",
        escape(id),
        escape(label)
    );
    for k in 0..=4 {
        let v = lo + (hi - lo) * f64::from(k) / 4.0;
        let _ = write!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{yv:.1}\" y2=\"{yv:.1}\" class=\"grid\"/>\
             <text x=\"{}\" y=\"{:.1}\" class=\"tick\">{}</text>",
            WIDTH - 4.0,
            LEFT - 6.0,
            y(v) + 4.0,
            tick(v),
            yv = y(v)
        );
    }
    s
}

/// A bar plot of `m`'s change per workload, then overall, with the paper's value dashed.
pub fn plot(id: &str, m: &Measured) -> String {
    let mut bars: Vec<(String, Option<f64>, bool)> = m
        .pairs
        .iter()
        .map(|p| (p.workload.clone(), p.change, false))
        .collect();
    bars.push(("overall".into(), m.change, true));
    let values = bars
        .iter()
        .filter_map(|b| b.1)
        .chain(m.paper_value)
        .chain([0.0]);
    let (lo, hi) = values.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    // Room above and below, and at least +-10 %.
    let (lo, hi) = ((lo * 1.15).min(-0.1), (hi * 1.15).max(0.1));
    let plot_h = HEIGHT - TOP - BOTTOM;
    let y = |v: f64| TOP + (hi - v) / (hi - lo) * plot_h;
    let slot = (WIDTH - LEFT - 8.0) / bars.len() as f64;
    let label = format!("{}: {} against {}", m.metric.name(), m.variant, m.against);
    let mut s = frame(id, &label, (lo, hi), y, |v| format!("{:+.0} %", v * 100.0));
    for (i, (label, v, overall)) in bars.iter().enumerate() {
        let x = LEFT + slot * i as f64 + slot * 0.15;
        let w = slot * 0.7;
        if let Some(v) = v {
            let (top, bottom) = (y(v.max(0.0)), y(v.min(0.0)));
            let class = match (overall, *v >= 0.0) {
                (true, _) => "bar overall",
                (false, true) => "bar up",
                (false, false) => "bar down",
            };
            let _ = write!(
                s,
                "<rect x=\"{x:.1}\" y=\"{top:.1}\" width=\"{w:.1}\" height=\"{:.1}\" \
                 class=\"{class}\"><title>{}: {}</title></rect>",
                (bottom - top).max(0.5),
                escape(label),
                pct(Some(*v))
            );
        }
        let cx = x + w / 2.0;
        let ly = HEIGHT - BOTTOM + 14.0;
        let _ = write!(
            s,
            "<text x=\"{cx:.1}\" y=\"{ly:.1}\" class=\"label\" \
             transform=\"rotate(20 {cx:.1} {ly:.1})\">{}</text>",
            escape(label)
        );
    }
    let _ = write!(
        s,
        "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{z:.1}\" y2=\"{z:.1}\" class=\"zero\"/>",
        WIDTH - 4.0,
        z = y(0.0)
    );
    if let Some(p) = m.paper_value {
        let _ = write!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{py:.1}\" y2=\"{py:.1}\" class=\"paper\"/>\
             <text x=\"{}\" y=\"{:.1}\" class=\"paperlabel\">paper {}</text>",
            WIDTH - 4.0,
            WIDTH - 8.0,
            y(p) - 4.0,
            pct(Some(p)),
            py = y(p)
        );
    }
    s.push_str("</svg>");
    s
}

/// Line colours of a plot over time, one per configuration in order.
const COLOURS: [&str; 5] = ["#4a7fb5", "#c8553d", "#2e8540", "#8a5ab5", "#a06a00"];

/// A plot over time: a line per configuration (a gap where a sample has no value), a legend.
pub fn line_plot(id: &str, p: &Plot) -> String {
    let points = p.series.iter().flat_map(|s| s.points.iter());
    let x_max = points.clone().map(|(x, _)| *x).fold(1.0f64, f64::max);
    let y_max = points.filter_map(|(_, y)| *y).fold(0.0f64, f64::max);
    let y_max = if y_max > 0.0 { y_max * 1.1 } else { 1.0 };
    let plot_h = HEIGHT - TOP - BOTTOM;
    let plot_w = WIDTH - LEFT - 8.0;
    let x = |v: f64| LEFT + v / x_max * plot_w;
    let y = |v: f64| TOP + (1.0 - v / y_max) * plot_h;
    let label = format!("{} over time, {}", p.title, p.workload);
    let mut s = frame(id, &label, (0.0, y_max), y, |v| num(Some(v)));
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"label\">core cycle (last: {x_max:.0})</text>",
        LEFT + plot_w / 2.0 - 60.0,
        HEIGHT - BOTTOM + 20.0
    );
    for (i, series) in p.series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        // Contiguous runs of samples with a value, one polyline each.
        for run in series.points.split(|(_, v)| v.is_none()) {
            let pts: Vec<String> = run
                .iter()
                .filter_map(|(px, py)| py.map(|py| format!("{:.1},{:.1}", x(*px), y(py))))
                .collect();
            if !pts.is_empty() {
                let _ = write!(
                    s,
                    "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" \
                     stroke-width=\"1.5\"><title>{}</title></polyline>",
                    pts.join(" "),
                    escape(&series.label)
                );
            }
        }
        let ly = HEIGHT - BOTTOM + 36.0;
        let lx = LEFT + 150.0 * i as f64;
        let _ = write!(
            s,
            "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"12\" height=\"4\" fill=\"{colour}\"/>\
             <text x=\"{:.1}\" y=\"{ly:.1}\" class=\"label\">{}</text>",
            ly - 4.0,
            lx + 16.0,
            escape(&series.label)
        );
    }
    s.push_str("</svg>");
    s
}

const STYLE: &str = "body{font-family:sans-serif;max-width:72rem;margin:1rem auto;padding:0 1rem;\
color:#222}h1{font-size:1.5rem}h2{border-top:2px solid #ccc;padding-top:1rem}\
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;\
text-align:left;vertical-align:top}\
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
.yes{color:#176317;font-weight:bold}.no{color:#a31515;font-weight:bold}.none{color:#777}\
code{font-size:.8rem;word-break:break-all}details{margin:.3rem 0}\
.plot .grid{stroke:#e4e4e4}.plot .zero{stroke:#444}.plot .tick{font-size:11px;text-anchor:end}\
.plot .label{font-size:11px}.plot .up{fill:#4a7fb5}.plot .down{fill:#c8553d}\
.plot .overall{fill:#333}.plot .paper{stroke:#d08b00;stroke-dasharray:6 4;stroke-width:2}\
.plot .paperlabel{font-size:11px;fill:#a06a00;text-anchor:end}";

/// The headline's block: plot, verdict, figures, commands.
fn headline(out: &mut String, seed: &str, k: usize, m: &Measured) {
    let (word, class) = verdict(m);
    let _ = write!(
        out,
        "<h3 id=\"h-{seed}-{k}\">{}</h3><p>{} of <b>{}</b> against <b>{}</b>. Paper: <b>{}</b> \
         ({}). Ours: <b>{}</b> (geometric mean over the workloads; claimed: {}). \
         <span class=\"{class}\">{word}</span></p>",
        escape(&m.claim),
        escape(m.metric.name()),
        escape(&m.variant),
        escape(&m.against),
        escape(&m.paper),
        escape(&m.figure),
        pct(m.change),
        escape(&m.expect.describe()),
    );
    out.push_str(&plot(&format!("plot-{seed}-{k}"), m));
    out.push_str(
        "<table><tr><th>workload</th><th>baseline</th><th>configuration</th><th>change</th>\
         <th>commands</th></tr>",
    );
    for p in &m.pairs {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td><details><summary>the two runs</summary><code>{}</code><br><code>{}</code>\
             </details></td></tr>",
            escape(&p.workload),
            num(p.baseline),
            num(p.value),
            pct(p.change),
            escape(&p.baseline_command),
            escape(&p.command)
        );
    }
    out.push_str("</table>");
}

/// The page. `command` is the one that made it; `provenance` names the build.
pub fn page(results: &[SeedResult], command: &str, provenance: &str, quick: bool) -> String {
    let mut out = String::from("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">");
    let _ = write!(
        out,
        "<title>warpsmith reproduce</title><style>{STYLE}</style></head><body>\
         <h1>warpsmith reproduce: the seeds' headline results</h1>\
         <p>{}. Made by <code>{}</code>{}. Each number below is the geometric mean over the \
         workloads of the ratio of the configuration's figure to its baseline's, less 1; each \
         workload's two runs are listed with the commands that measured them. A verdict says \
         whether our change goes the way the paper's does, not whether it is as large.</p>",
        escape(provenance),
        escape(command),
        if quick {
            " (<b>--quick</b>: fewer workloads)"
        } else {
            ""
        }
    );
    out.push_str(
        "<table><tr><th>seed</th><th>headline</th><th>paper</th><th>ours</th><th>verdict</th>\
         </tr>",
    );
    for r in results {
        for (k, m) in r.headlines.iter().enumerate() {
            let (word, class) = verdict(m);
            let _ = write!(
                out,
                "<tr><td><a href=\"#seed-{id}\">{id}</a></td><td><a href=\"#h-{id}-{k}\">{}</a>\
                 </td><td>{}</td><td class=\"n\">{}</td><td class=\"{class}\">{word}</td></tr>",
                escape(&m.claim),
                escape(&m.paper),
                pct(m.change),
                id = escape(&r.id),
            );
        }
    }
    out.push_str("</table>");
    for r in results {
        let _ = write!(
            out,
            "<section id=\"seed-{id}\"><h2>Seed {id}: {}</h2><p>{}.<br>Paper's GPU: {}.<br>\
             Ours: preset <b>{}</b>, {} runs (<code>warpsmith sweep --experiment \
             seed-{id}/experiment.toml</code> runs them again).</p>",
            escape(&r.title),
            escape(&r.paper),
            escape(&r.paper_gpu),
            escape(&r.preset),
            r.rows,
            id = escape(&r.id),
        );
        if !r.errors.is_empty() {
            out.push_str("<p class=\"no\">Runs that erred:</p><ul>");
            for e in &r.errors {
                let _ = write!(out, "<li><code>{}</code></li>", escape(e));
            }
            out.push_str("</ul>");
        }
        for (k, m) in r.headlines.iter().enumerate() {
            headline(&mut out, &r.id, k, m);
        }
        out.push_str("<h3>Measurements per configuration</h3><table><tr><th>mean of</th>");
        if let Some((_, per)) = r.diagnostics.first() {
            for (label, _) in per {
                let _ = write!(out, "<th>{}</th>", escape(label));
            }
        }
        out.push_str("</tr>");
        for (metric, per) in &r.diagnostics {
            let _ = write!(out, "<tr><td>{}</td>", escape(metric.name()));
            for (_, v) in per {
                let _ = write!(out, "<td class=\"n\">{}</td>", num(*v));
            }
            out.push_str("</tr>");
        }
        out.push_str("</table>");
        if !r.timelines.is_empty() {
            let _ = write!(
                out,
                "<h3>Over time: {}</h3><p>Samples of one run per configuration \
                 (<code>--stats-interval</code>; schema <code>warpsmith schema sample</code>):</p>",
                escape(&r.timelines[0].workload)
            );
            for (k, p) in r.timelines.iter().enumerate() {
                let _ = write!(out, "<p>{}</p>", escape(&p.title));
                out.push_str(&line_plot(&format!("timeline-{}-{k}", r.id), p));
            }
            out.push_str("<details><summary>the runs</summary>");
            if let Some(p) = r.timelines.first() {
                for series in &p.series {
                    let _ = write!(out, "<code>{}</code><br>", escape(&series.command));
                }
            }
            out.push_str("</details>");
        }
        if !r.notes.is_empty() {
            out.push_str("<h3>Where ours differs, and why</h3><ul>");
            for n in &r.notes {
                let _ = write!(out, "<li>{}</li>", escape(n));
            }
            out.push_str("</ul>");
        }
        out.push_str("</section>");
    }
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::{Expect, Metric, Pair};

    fn measured(changes: &[Option<f64>], paper: Option<f64>) -> Measured {
        Measured {
            claim: "A <beats> B".into(),
            figure: "Fig. 1".into(),
            paper: "+10 %".into(),
            paper_value: paper,
            metric: Metric::Ipc,
            variant: "A".into(),
            against: "B".into(),
            expect: Expect::Higher,
            pairs: changes
                .iter()
                .enumerate()
                .map(|(i, c)| Pair {
                    workload: format!("w{i}"),
                    baseline: Some(1.0),
                    value: c.map(|c| 1.0 + c),
                    change: *c,
                    baseline_command: "warpsmith run --kernel 'a b'".into(),
                    command: "warpsmith run".into(),
                })
                .collect(),
            change: Some(0.05),
            reproduced: Some(true),
        }
    }

    #[test]
    fn a_plot_has_a_bar_per_measured_workload_the_overall_bar_and_the_papers_line() {
        let m = measured(&[Some(0.2), Some(-0.1), None], Some(0.5));
        let svg = plot("p", &m);
        assert_eq!(svg.matches("<rect").count(), 3);
        assert_eq!(svg.matches("class=\"bar overall\"").count(), 1);
        assert_eq!(svg.matches("class=\"paper\"").count(), 1);
        assert!(svg.contains("paper +50.0 %"), "{svg}");
        // Every bar lies inside the plot, the paper's line too.
        for part in svg.split("y=\"").skip(1) {
            let v: f64 = part.split('"').next().unwrap().parse().unwrap();
            assert!((0.0..=HEIGHT).contains(&v), "{v}");
        }
        let svg = plot("p", &measured(&[Some(0.2)], None));
        assert!(!svg.contains("class=\"paper\""));
    }

    #[test]
    fn a_line_plot_has_a_line_per_run_of_values_and_a_legend_entry_per_configuration() {
        let series = |label: &str, ys: &[Option<f64>]| crate::reproduce::timeline::Series {
            label: label.into(),
            command: "warpsmith run".into(),
            points: ys
                .iter()
                .enumerate()
                .map(|(i, y)| (i as f64 * 10.0, *y))
                .collect(),
        };
        let p = Plot {
            field: "ipc".into(),
            title: "IPC".into(),
            workload: "w".into(),
            series: vec![
                series("a", &[Some(1.0), Some(2.0), Some(1.5)]),
                // A gap: two lines.
                series("b", &[Some(1.0), None, Some(3.0), Some(2.0)]),
            ],
        };
        let svg = line_plot("t", &p);
        assert_eq!(svg.matches("<polyline").count(), 3);
        assert_eq!(svg.matches("<title>b</title>").count(), 2);
        assert_eq!(svg.matches("class=\"label\">a<").count(), 1);
        // Every point inside the plot.
        for pts in svg.split("points=\"").skip(1) {
            for xy in pts.split('"').next().unwrap().split(' ') {
                let (x, y) = xy.split_once(',').unwrap();
                let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                assert!(
                    (LEFT..=WIDTH).contains(&x) && (0.0..=HEIGHT).contains(&y),
                    "{xy}"
                );
            }
        }
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let r = SeedResult {
            id: "000".into(),
            title: "T".into(),
            paper: "P".into(),
            paper_gpu: "G".into(),
            preset: "tiny".into(),
            headlines: vec![measured(&[Some(0.1)], Some(0.1))],
            diagnostics: vec![(Metric::Ipc, vec![("A".into(), Some(1.0))])],
            notes: vec!["n < 1".into()],
            timelines: Vec::new(),
            errors: vec![],
            rows: 2,
        };
        let html = page(&[r], "warpsmith reproduce", "v", true);
        assert!(html.contains("A &lt;beats&gt; B") && !html.contains("A <beats> B"));
        assert!(html.contains("<li>n &lt; 1</li>"));
        assert!(html.contains("--kernel &#39;a b&#39;"));
        assert_eq!(html.matches("<svg").count(), 1);
    }
}
