//! The MT-HWP prefetch engine's storage (seed 001 Table VI).

use super::*;

/// Storage cost of the MT-HWP prefetch engine (seed 001 Table VI): the three tables' Table VI
/// fields are the storage; valid bits, LRU ranks, the pending access, the registered outputs and
/// the throttle are the other registers of the generated RTL.
pub fn mthwp_cost(spec: &Spec) -> BlockCost {
    let p = &spec.prefetch;
    let mut tables = vec![table(
        "per-warp stride (PWS) table",
        p.pws_entries.into(),
        fields_of(p.pws_fields()),
    )];
    let mut valid = u64::from(p.pws_entries);
    let mut ranks = u64::from(p.pws_entries * p.pws_rank_bits);
    if !p.pws_only {
        tables.push(table(
            "global stride (GS) table",
            p.gs_entries.into(),
            fields_of(p.gs_fields()),
        ));
        tables.push(table(
            "inter-thread prefetching (IP) table",
            p.ip_entries.into(),
            fields_of(p.ip_fields()),
        ));
        valid += u64::from(p.gs_entries + p.ip_entries);
        ranks += u64::from(p.gs_entries * p.gs_rank_bits + p.ip_entries * p.ip_rank_bits);
    }
    let reg = |name: &str, bits: u64, meaning: &str| RegisterCost {
        name: name.into(),
        bits,
        meaning: meaning.into(),
    };
    let mut registers = vec![
        reg(
            "valid bits",
            valid,
            "one per table entry (a launch clears them)",
        ),
        reg(
            "LRU ranks",
            ranks,
            "true LRU: log2(entries) bits per entry of each table",
        ),
        reg(
            "pending access",
            u64::from(1 + p.pc_bits + p.wid_bits + p.addr_bits),
            "valid, PC, warp id and address of the access waiting for its PWS lookup",
        ),
        reg(
            "registered outputs",
            // pf_src: without GS and IP its two bits are equal (none or pws), one flip-flop;
            // pf_drop: only a throttle drops; pf_count is 0 or Degree, from one issue bit.
            u64::from(
                1 + if p.pws_only { 1 } else { spec::PfSource::BITS }
                    + u32::from(p.throttle)
                    + 1
                    + p.degree * p.addr_bits
                    + 1,
            ),
            "pf_valid, pf_src, pf_drop (with a throttle), pf_count (one issue bit), pf_addr, \
                pf_promote",
        ),
    ];
    if p.throttle {
        let t = spec::prefetch::THROTTLE_BITS;
        registers.push(reg(
            "throttle",
            u64::from(
                t + 3 // degree, drop counter (0..4)
                    + p.merge_bits
                    + p.period_bits
                    + 4 * p.count_bits // useful, early, merges, requests
                    + 2 // early-eviction class
                    + 2 * p.count_bits // divider remainder and divisor
                    + p.merge_frac_bits // quotient
                    + 2 // no request, ratio 1
                    + p.div_count_bits
                    + 1, // update pulse
            ),
            "degree, drop counter, merge ratio, period counter, four event counters, \
                early-eviction class, serial divider, update",
        ));
    }
    let comparison = table_vi(spec, &tables);
    finish(spec, "mt-hwp", tables, registers, Some(comparison))
}

/// The engine's storage beside seed 001 Table VI's, field by field, for the `tables` generated.
fn table_vi(spec: &Spec, tables: &[TableCost]) -> Comparison {
    let p = &spec.prefetch;
    // Table VI: per table, its entries and each field's bits (all instances of the field).
    type PaperTable = (&'static str, u32, &'static [(&'static str, u32)]);
    const TABLE_VI: [PaperTable; 3] = [
        (
            "PWS",
            32,
            &[
                ("pc", 32),
                ("wid", 8),
                ("train", 1),
                ("last", 32),
                ("stride", 20),
            ],
        ),
        ("GS", 8, &[("pc", 32), ("stride", 20)]),
        (
            "IP",
            8,
            &[
                ("pc", 32),
                ("stride", 20),
                ("train", 1),
                ("wid", 16),
                ("addr", 64),
            ],
        ),
    ];
    let paper_bits: u32 = TABLE_VI
        .iter()
        .map(|(_, n, f)| n * f.iter().map(|x| x.1).sum::<u32>())
        .sum();
    let ours = [
        (p.pws_fields(), p.pws_entries, true),
        (p.gs_fields(), p.gs_entries, !p.pws_only),
        (p.ip_fields(), p.ip_entries, !p.pws_only),
    ];
    let entry_bits = |v: &[spec::FieldSpec]| v.iter().map(spec::FieldSpec::total).sum::<u32>();
    let mut rows = Vec::new();
    for ((t, paper_entries, paper_fields), (fields, entries, on)) in TABLE_VI.iter().zip(&ours) {
        for f in fields {
            let pb = paper_fields
                .iter()
                .find(|(n, _)| *n == f.name)
                .map_or(0, |x| x.1);
            rows.push(ComparisonRow {
                field: format!("{t}.{} x {entries}", f.name),
                ours_bits: if *on { f.total() * entries } else { 0 },
                paper_bits: pb * paper_entries,
                why: format!(
                    "{} x {} bits{}",
                    f.count,
                    f.bits,
                    if *on {
                        ""
                    } else {
                        " (not generated: prefetch.kind = stridepc)"
                    }
                ),
            });
        }
    }
    // Table VI counts what our tables hold: the storage of the tables generated.
    let ours_bits: u64 = tables.iter().map(|t| t.total_bits).sum();
    let (pws, gs, ip) = (
        entry_bits(&ours[0].0),
        entry_bits(&ours[1].0),
        entry_bits(&ours[2].0),
    );
    Comparison {
        source: "seed 001 Table VI (PWS 93 bits, GS 52 bits, IP 133 bits; 32 x 93 + 8 x 52 + 8 x \
            133 bits = 557 B per SM)"
            .into(),
        unit: "SM".into(),
        paper_bytes_per_unit: f64::from(paper_bits) / 8.0,
        paper_units: spec.gpu.sms.into(),
        paper_total_bytes: f64::from(paper_bits) / 8.0 * f64::from(spec.gpu.sms),
        ours_bytes_per_unit: ours_bits as f64 / 8.0,
        ours_total_bytes: ours_bits as f64 / 8.0 * f64::from(spec.gpu.sms),
        note: format!(
            "ours: PWS {} x {pws} bits, GS {} x {gs} bits, IP {} x {ip} bits (prefetch.*_entries, \
                pc_bits, wid_bits, addr_bits, stride_bits). Table VI counts the fields only; the \
                valid bits and LRU ranks the tables need are listed with the other registers. The \
                prefetch cache ({} KiB, {}-way) is data storage beside the engine and not part of \
                either figure.",
            p.pws_entries, p.gs_entries, p.ip_entries, p.cache_kb, p.cache_ways
        ),
        rows,
    }
}
