//! The locality-aware warp scheduler's storage (thesis Table 5.2, warp queue rows).

use super::*;

/// Storage cost of one warp scheduler's locality unit; the comparison counts an SM's
/// `gpu.schedulers` units against the thesis's one warp queue per SM.
pub fn lws_cost(spec: &Spec) -> BlockCost {
    let l = &spec.lws;
    let a = l.arrays;
    let tables = vec![
        table(
            "warp queue",
            l.warps.into(),
            vec![
                field("region", l.region_bits, a, "region index, per array"),
                field(
                    "subregions",
                    l.subregion_bits,
                    a,
                    "sub-regions of that region the warp touches, per array",
                ),
                field(
                    "age",
                    l.age_bits,
                    1,
                    "blocks placed since the warp's own, saturating past the starve limit",
                ),
            ],
        ),
        table(
            "locality degree table (Fig. 3.13)",
            l.pairs(),
            vec![field(
                "degree",
                l.deg_bits,
                1,
                "sub-regions a pair of warps (i < j) both touch",
            )],
        ),
    ];
    // A slot index that can only hold 0 (one warp slot) is constant and synthesis removes it.
    let slot = spec::clog2(l.warps.into());
    let registers = vec![
        RegisterCost {
            name: "active group".into(),
            bits: l.warps.into(),
            meaning: "one bit per warp slot".into(),
        },
        RegisterCost {
            name: "last issued".into(),
            bits: u64::from(1 + slot),
            meaning: "valid, warp slot".into(),
        },
    ];
    let comparison = table_5_2(spec, &tables);
    finish(spec, "lws", tables, registers, Some(comparison))
}

/// An SM's units beside the thesis's warp queue (48 warps).
fn table_5_2(spec: &Spec, tables: &[TableCost]) -> Comparison {
    let l = &spec.lws;
    let units = l.units;
    let per_sm = |t: &TableCost, f: &str| {
        let bits: u64 = t
            .fields
            .iter()
            .filter(|x| x.name == f || f.is_empty())
            .map(|x| u64::from(x.bits))
            .sum();
        u32::try_from(bits * t.entries * u64::from(units)).unwrap_or(u32::MAX)
    };
    let (queue, degrees) = (&tables[0], &tables[1]);
    let ranges = per_sm(queue, "region") + per_sm(queue, "subregions");
    let rows = vec![
        ComparisonRow {
            field: "locality degree table".into(),
            ours_bits: per_sm(degrees, ""),
            paper_bits: 48 * 48 / 2 * 8,
            why: format!(
                "{units} schedulers x {} pairs of their {} warps x {} bits (the thesis: one byte \
                    for each of 48 x 48 / 2 pairs of the SM's warps)",
                l.pairs(),
                l.warps,
                l.deg_bits
            ),
        },
        ComparisonRow {
            field: "warp access ranges".into(),
            ours_bits: ranges,
            paper_bits: 48 * 16 * 8,
            why: format!(
                "{units} x {} warps x {a} arrays x ({} + {} bits) (the thesis: 48 warps x 16 B)",
                l.warps,
                l.region_bits,
                l.subregion_bits,
                a = l.arrays
            ),
        },
        ComparisonRow {
            field: "block ages".into(),
            ours_bits: per_sm(queue, "age"),
            paper_bits: 0,
            why: "the starvation timeout's ages; the thesis does not count them".into(),
        },
    ];
    let ours: u64 = rows.iter().map(|r| u64::from(r.ours_bits)).sum();
    let paper = f64::from(48 * 48 / 2 + 48 * 16);
    Comparison {
        source: "thesis (seed 002) Table 5.2: warp queue, 1.1 KB locality degree table + 1 KB \
            warp access ranges per SM"
            .into(),
        unit: "SM".into(),
        paper_bytes_per_unit: paper,
        paper_units: 1,
        paper_total_bytes: paper,
        ours_bytes_per_unit: ours as f64 / 8.0,
        ours_total_bytes: ours as f64 / 8.0,
        note: format!(
            "One unit per warp scheduler over its own {} warp slots (decision LWS-1): the \
                thesis's per-SM table would also hold degrees between warps of different \
                schedulers, which no decision reads. A degree is {} bits, enough for {} arrays x \
                {} sub-regions (the thesis: 1 B).",
            l.warps, l.deg_bits, l.arrays, l.subregion_bits
        ),
        rows,
    }
}
