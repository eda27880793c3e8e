//! The dispatcher's decision unit's storage (thesis Table 5.2).

use super::*;

/// Storage cost of the dispatcher's decision unit (thesis Table 5.2).
pub fn dispatch_cost(spec: &Spec) -> BlockCost {
    let d = &spec.dispatch;
    let (a, w) = (d.arrays, d.coord_bits);
    let rect_fields = |has_meaning: &str| {
        vec![
            field("has", 1, a, has_meaning),
            field("x", w, a, "first line column of the rectangle, per array"),
            field("y", w, a, "first row, per array"),
            field("w", w, a, "width in lines, per array"),
            field("h", w, a, "height in rows, per array"),
        ]
    };
    let mut queue_fields = vec![field("id", d.id_bits, 1, "thread-block id")];
    queue_fields.extend(rect_fields("the block reads this array"));
    let mut run_fields = vec![field("valid", 1, 1, "a block runs in this slot")];
    run_fields.extend(rect_fields("the running block reads this array"));
    let tables = vec![
        table("block queue", d.queue_entries.into(), queue_fields),
        table(
            &format!("running-block table ({} SMs x {} slots)", d.sms, d.slots),
            u64::from(d.sms * d.slots),
            run_fields,
        ),
    ];
    // Index registers: a field that can only hold 0 (one SM, slot, chunk or entry) is constant
    // and synthesis removes it, so it counts log2 of the range, not the RTL's minimum width 1.
    let c = |n: u32| spec::clog2(n.into());
    let registers = vec![
        RegisterCost {
            name: "queue count".into(),
            bits: c(d.queue_entries + 1).into(),
            meaning: "valid entries (0..=queue_entries)".into(),
        },
        RegisterCost {
            name: "round robin".into(),
            bits: c(d.sms).into(),
            meaning: "SM after the one chosen last".into(),
        },
        RegisterCost {
            name: "scan".into(),
            bits: u64::from(1 + c(d.sms) + c(d.scan_cycles)),
            meaning: "scanning, target SM, chunk".into(),
        },
        RegisterCost {
            name: "best candidates".into(),
            bits: u64::from(2 + d.here_bits + d.else_bits + 2 * c(d.queue_entries)),
            meaning:
                "valid, score and queue index of the best entry on the target SM and elsewhere"
                    .into(),
        },
        RegisterCost {
            name: "offer".into(),
            bits: u64::from(1 + c(d.queue_entries) + c(d.sms) + c(d.slots)),
            meaning: "offered decision: valid, queue index, SM, slot".into(),
        },
    ];
    let comparison = table_5_2(spec);
    finish(spec, "dispatch", tables, registers, Some(comparison))
}

/// The block queue's entry beside the thesis's Table 5.2.
fn table_5_2(spec: &Spec) -> Comparison {
    let d = &spec.dispatch;
    let (a, w) = (d.arrays, d.coord_bits);
    let entry_bits = u64::from(d.id_bits + a * (1 + 4 * w));
    Comparison {
        source: "thesis (seed 002) Table 5.2: 15 B per block-queue entry".into(),
        unit: "block-queue entry".into(),
        paper_bytes_per_unit: 15.0,
        paper_units: d.queue_entries.into(),
        paper_total_bytes: 15.0 * f64::from(d.queue_entries),
        ours_bytes_per_unit: entry_bits as f64 / 8.0,
        ours_total_bytes: entry_bits as f64 / 8.0 * f64::from(d.queue_entries),
        note: format!(
            "The thesis gives 1 byte per rectangle element and 15 B per entry; we read it as {a} \
                arrays x (x, y, w, h) x 1 B + a 3 B block id (dispatch.arrays, \
                dispatch.coord_bits, dispatch.id_bits). The per-array `has` bit is ours: a block \
                need not read every array. Table 5.2's warp-queue rows are the lws block's.",
        ),
        rows: vec![
            ComparisonRow {
                field: "block id".into(),
                ours_bits: d.id_bits,
                paper_bits: 24,
                why: "dispatch.id_bits".into(),
            },
            ComparisonRow {
                field: "rectangles".into(),
                ours_bits: 4 * w * a,
                paper_bits: 96,
                why: format!("{a} arrays x 4 x {w} bits"),
            },
            ComparisonRow {
                field: "array present".into(),
                ours_bits: a,
                paper_bits: 0,
                why: "one bit per array: the thesis assumes every block reads every array".into(),
            },
        ],
    }
}
