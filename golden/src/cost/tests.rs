use super::*;
use spec::ConfigRequest;

#[test]
fn reconstruction_of_table_iii_sums_to_46_bytes() {
    let s = ConfigRequest::preset("fermi-gtx480").resolve().unwrap();
    let c = ot_cost(&s).comparison.unwrap();
    let paper: u32 = c.rows.iter().map(|r| r.paper_bits).sum();
    assert_eq!(paper, 46 * 8);
    assert_eq!(c.paper_total_bytes, 47104.0, "46 KB = 46 x 1024 B");
}

#[test]
fn fermi_breakdown_adds_up_field_by_field() {
    let s = ConfigRequest::preset("fermi-gtx480").resolve().unwrap();
    let c = ot_cost(&s);
    let ot = &c.tables[0];
    assert_eq!(ot.entries, 1024);
    // valid 1, pc 32, lec 8, tb 3x16, warp 5, naddrs 3, addr 4x32, stride 3x32, known 3,
    // iws 32, iws_known 1, counter 7.
    assert_eq!(
        ot.bits_per_entry,
        1 + 32 + 8 + 48 + 5 + 3 + 128 + 96 + 3 + 32 + 1 + 7
    );
    assert_eq!(ot.total_bits, 364 * 1024);
    let repl = &c.tables[1];
    assert_eq!((repl.entries, repl.bits_per_entry), (1, 1024 * 10));
    let cmp = c.comparison.unwrap();
    let ours: u32 = cmp.rows.iter().map(|r| r.ours_bits).sum();
    assert_eq!(
        ours,
        364 + 10,
        "comparison rows cover every bit of an entry"
    );
    assert!((cmp.ours_bytes_per_unit - 46.75).abs() < 1e-9);
}

#[test]
fn turing_warped_mc_reproduces_table_3() {
    let s = ConfigRequest::preset("turing-rtx2060s").resolve().unwrap();
    let c = wmc_cost(&s);
    let bits: Vec<(u64, u64)> = c
        .tables
        .iter()
        .map(|t| (t.entries, t.bits_per_entry))
        .collect();
    assert_eq!(bits, [(1024, 6), (16, 256), (16, 64)]);
    let cmp = c.comparison.unwrap();
    assert_eq!(cmp.ours_bytes_per_unit, 1408.0);
    assert_eq!(cmp.paper_bytes_per_unit, 1408.0);
    assert_eq!(c.storage_bits, 11264);
}

#[test]
fn row_scores_cost_only_when_they_can_decide() {
    let rs_bits = |queue: &str| {
        let s = ConfigRequest::preset("tiny")
            .with(&format!("mc.queue_entries={queue}"))
            .with("mc.write_high=1")
            .with("mc.write_low=0")
            .resolve()
            .unwrap();
        let w = &s.wmc;
        let c = wmc_cost(&s);
        let rs = &c.tables[1];
        assert!(rs.name.starts_with("row scoreboard"), "{}", rs.name);
        (
            rs.total_bits,
            u64::from(w.banks * w.rows_tracked * w.score_bits * w.controllers_per_wet),
        )
    };
    let (one, _) = rs_bits("1");
    assert_eq!(one, 0, "one candidate: the scores are never read");
    let (two, full) = rs_bits("2");
    assert!(full > 0);
    assert_eq!(two, full);
}

#[test]
fn registers_and_plru_state_follow_the_spec() {
    let s = ConfigRequest::preset("tiny").resolve().unwrap();
    let c = ot_cost(&s);
    assert_eq!(c.tables[1].total_bits, 4 * 3, "4 sets x 3 PLRU node bits");
    let regs: u64 = c.registers.iter().map(|r| r.bits).sum();
    // launch shape 3x8+4, prediction 2+2+2x24, update 3+3+4.
    assert_eq!(regs, 28 + 52 + 10);
    assert_eq!(c.flip_flop_bits, c.storage_bits + regs);
    let direct = ConfigRequest::preset("tiny")
        .with("ot.ways=1")
        .resolve()
        .unwrap();
    assert_eq!(
        ot_cost(&direct).tables.len(),
        1,
        "direct-mapped: no replacement state"
    );
}
