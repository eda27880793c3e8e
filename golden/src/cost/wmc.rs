//! The Warped-MC tables' storage (seed 004 Table 3).

use super::*;

/// Storage cost of the Warped-MC tables (seed 004 Table 3).
pub fn wmc_cost(spec: &Spec) -> BlockCost {
    let w = &spec.wmc;
    let c = w.controllers_per_wet;
    let scope = if w.wet_ctrls == c {
        String::new()
    } else {
        format!(", counting the requests of {} controllers", w.wet_ctrls)
    };
    let shared = if c == 1 {
        format!("one per controller{scope}")
    } else {
        format!("shared by {c} controllers{scope}")
    };
    // With one candidate per controller the scores never decide: no row scoreboard is built.
    let rs_entries = if w.scores_decide() { w.banks * c } else { 0 };
    let rs_title = if w.scores_decide() {
        format!("row scoreboard (x {c} controllers)")
    } else {
        "row scoreboard (none: with one candidate per controller no score is ever read)".into()
    };
    let tables = vec![
        table(
            &format!("warp entry table ({shared})"),
            w.wet_entries.into(),
            vec![field(
                "n_pending",
                w.pending_bits,
                1,
                "pending requests of a global warp id (saturating)",
            )],
        ),
        table(
            &rs_title,
            rs_entries.into(),
            vec![field(
                "score",
                w.score_bits,
                w.rows_tracked,
                "saturating score per tracked row of the bank",
            )],
        ),
        table(
            &format!("priority table (x {c} controllers)"),
            u64::from(w.banks * c),
            vec![field(
                "slot",
                1,
                w.pt_slots,
                "a priority-H request waits in this column slot of the open row",
            )],
        ),
    ];
    let registers = vec![
        RegisterCost {
            name: "bank round robin".into(),
            bits: u64::from(w.bank_bits * c),
            meaning: "next bank to consider, per controller".into(),
        },
        RegisterCost {
            name: "last serviced warp".into(),
            bits: u64::from((w.gwid_bits + 1) * c),
            meaning:
                "valid + global warp id of the request each controller serviced last (priority M)"
                    .into(),
        },
    ];
    let comparison = table_3(spec);
    finish(spec, "warped-mc", tables, registers, Some(comparison))
}

/// The tables of one controller beside seed 004's Table 3.
fn table_3(spec: &Spec) -> Comparison {
    let w = &spec.wmc;
    let c = w.controllers_per_wet;
    let wet_bits = u64::from(w.wet_entries * w.pending_bits);
    let rs_bits = if w.scores_decide() {
        u64::from(w.banks * w.rows_tracked * w.score_bits)
    } else {
        0
    };
    let pt_bits = u64::from(w.banks * w.pt_slots);
    let per_ctrl_bits = wet_bits as f64 / f64::from(c) + (rs_bits + pt_bits) as f64;
    Comparison {
        source: "seed 004 Table 3 (WET 1024 x 6 bits, RS 16 x 256 bits, PT 16 x 64 bits; 1,408 B \
            per memory controller)"
            .into(),
        unit: "controller".into(),
        paper_bytes_per_unit: 1408.0,
        paper_units: spec.dram.channels.into(),
        paper_total_bytes: 1408.0 * f64::from(spec.dram.channels),
        ours_bytes_per_unit: per_ctrl_bits / 8.0,
        ours_total_bytes: per_ctrl_bits / 8.0 * f64::from(spec.dram.channels),
        note: format!(
            "WET = 2^(log2 {sms} SMs + log2 {warps} warps) = {} entries x warped_mc.pending_bits; \
                RS = dram.banks x warped_mc.rows_tracked x warped_mc.score_bits; PT = dram.banks \
                x warped_mc.pt_slots. Table 3 counts one WET per controller \
                (warped_mc.controllers_per_wet = 1: each controller's block holds its own copy, \
                which with warped_mc.wet_scope = 0 counts every controller's requests, the global \
                WET of section 4.2); a WET shared by several controllers' block is divided among \
                them.",
            w.wet_entries,
            sms = spec.gpu.sms,
            warps = spec.gpu.warps_per_sm
        ),
        rows: vec![
            ComparisonRow {
                field: "warp entry table".into(),
                ours_bits: (wet_bits / u64::from(c)) as u32,
                paper_bits: 1024 * 6,
                why: format!(
                    "{} entries x {} bits / {c} controllers",
                    w.wet_entries, w.pending_bits
                ),
            },
            ComparisonRow {
                field: "row scoreboard".into(),
                ours_bits: rs_bits as u32,
                paper_bits: 16 * 256,
                why: if w.scores_decide() {
                    format!(
                        "{} banks x {} rows x {} bits",
                        w.banks, w.rows_tracked, w.score_bits
                    )
                } else {
                    "one candidate per controller: no score is ever read".into()
                },
            },
            ComparisonRow {
                field: "priority table".into(),
                ours_bits: pt_bits as u32,
                paper_bits: 16 * 64,
                why: format!("{} banks x {} slots", w.banks, w.pt_slots),
            },
        ],
    }
}
