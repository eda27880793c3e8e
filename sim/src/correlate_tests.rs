use super::*;

const V100: &str = "\
Benchmark,Kernel,L1_RH,L1_RM,DRAM_Rd,Elapsed_Cycles,Chip Voltage
b+tree-rodinia-3.1,findRangeK,100.0,50.0,10.0,1000.0,1.0
dct8x8,_Z14CUDAkernel1DCTPfiiiy,,20.0,0.0,400.0,1.0
";

fn sim(name: &str, values: &[(usize, f64)]) -> SimKernel {
    let mut v = vec![0.0; METRICS.len()];
    for (m, x) in values {
        v[*m] = *x;
    }
    SimKernel {
        name: name.into(),
        workload: "w".into(),
        launches: 1,
        instructions: 0.0,
        values: v,
    }
}

#[test]
fn pearson_on_hand_worked_pairs() {
    let r = pearson(&[(1.0, 2.0), (2.0, 4.0), (3.0, 6.0)]).unwrap();
    assert!((r - 1.0).abs() < 1e-12);
    let r = pearson(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]).unwrap();
    assert!((r + 1.0).abs() < 1e-12);
    // x = 1, 2, 3, 4; y = 1, 3, 2, 4: deviations give sxy = 4, sxx = syy = 5, r = 4 / 5.
    let r = pearson(&[(1.0, 1.0), (2.0, 3.0), (3.0, 2.0), (4.0, 4.0)]).unwrap();
    assert!((r - 0.8).abs() < 1e-12, "{r}");
    assert_eq!(pearson(&[(1.0, 1.0)]), None);
    assert_eq!(pearson(&[(1.0, 1.0), (2.0, 1.0)]), None, "constant");
}

#[test]
fn the_v100_table_is_read_by_its_own_column_names() {
    let rows = parse_table(V100, Path::new("t.csv")).unwrap();
    let ix = metric_index();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].benchmark, "b+tree-rodinia-3.1");
    assert_eq!(rows[0].kernel, "findRangeK");
    assert_eq!(rows[0].line, 2);
    assert_eq!(rows[0].values[ix["cycles"]], Some(1000.0));
    assert_eq!(rows[0].values[ix["l1_read_hits"]], Some(100.0));
    assert_eq!(rows[0].values[ix["dram_write_sectors"]], None, "no column");
    assert_eq!(rows[1].values[ix["l1_read_hits"]], None, "empty cell");
    // The simple form: this project's metric names.
    let simple = "kernel,cycles,l2_read_hits\nk,5,7\n";
    let rows = parse_table(simple, Path::new("s.csv")).unwrap();
    assert_eq!(rows[0].values[ix["l2_read_hits"]], Some(7.0));
}

#[test]
fn a_bad_table_names_its_file_line_and_column() {
    let e = |t: &str| parse_table(t, Path::new("hw.csv")).unwrap_err().to_string();
    let bad = V100.replace("400.0", "fast");
    let m = e(&bad);
    assert!(
        m.starts_with("hw.csv line 3:") && m.contains("Elapsed_Cycles"),
        "{m}"
    );
    let m = e(&V100.replace("100.0", "-1"));
    assert!(
        m.starts_with("hw.csv line 2:") && m.contains("L1_RH"),
        "{m}"
    );
    let m = e("Benchmark,Name,cycles\na,b,1\n");
    assert!(m.contains("line 1") && m.contains("Kernel"), "{m}");
    let m = e("kernel,speed\nk,1\n");
    assert!(m.contains("line 1") && m.contains("Elapsed_Cycles"), "{m}");
    let m = e("kernel,cycles\n");
    assert!(m.contains("no kernel"), "{m}");
    let m = e("kernel,cycles\n,3\n");
    assert!(m.contains("line 2") && m.contains("empty"), "{m}");
    let m = e("kernel,cycles\nk,1,2\n");
    assert!(m.contains("line 2"), "{m}");
}

#[test]
fn base_names_of_mangled_and_plain_kernels() {
    assert_eq!(base_name("_Z14CUDAkernel1DCTPfiiiy"), "CUDAkernel1DCT");
    assert_eq!(base_name("_Z4sradfiilPiS_S_S_PfS0_S0_S0_fS0_S0_"), "srad");
    assert_eq!(base_name("findRangeK"), "findRangeK");
    assert_eq!(base_name("vecAdd(float*, int)"), "vecAdd");
    // Not a well-formed mangled name: taken as it is.
    assert_eq!(base_name("_Z99x"), "_Z99x");
}

#[test]
fn kernels_are_matched_by_name_and_compared_exactly() {
    let ix = metric_index();
    let (cycles, l1h, l1m, dram) = (
        ix["cycles"],
        ix["l1_read_hits"],
        ix["l1_read_misses"],
        ix["dram_read_sectors"],
    );
    let hw = parse_table(V100, Path::new("t.csv")).unwrap();
    // The same kernel under its mangled name (matched by its base name), one the table lacks.
    let s = [
        sim(
            "findRangeK",
            &[(cycles, 1100.0), (l1h, 100.0), (dram, 10.0)],
        ),
        sim(
            "_Z14CUDAkernel1DCTPfiiiy",
            &[(cycles, 300.0), (l1m, 25.0), (dram, 3.0)],
        ),
        sim("_Z5otheri", &[]),
    ];
    let r = compare("cfg", "t.csv", &hw, &s, false);
    assert_eq!(r.pairs.len(), 2);
    assert_eq!(r.unmatched_simulated, vec!["_Z5otheri (w)".to_string()]);
    assert!(r.unmatched_hardware.is_empty());
    let e = |p: usize, m: usize| r.pairs[p].figures[m].error;
    assert_eq!(e(0, cycles), Some(0.1));
    assert_eq!(e(1, cycles), Some(-0.25));
    assert_eq!(e(1, l1m), Some(0.25));
    assert_eq!(e(1, dram), None, "measured 0: no relative error");
    let c = &r.metrics[cycles];
    assert_eq!(
        (c.kernels, c.nonzero, c.within_10, c.within_25),
        (2, 2, 1, 2)
    );
    assert!((c.mape.unwrap() - 17.5).abs() < 1e-9);
    let d = &r.metrics[dram];
    assert_eq!((d.kernels, d.nonzero), (2, 1));
    assert_eq!(d.mape, Some(0.0));
    // Nothing measured: no figures.
    let w = &r.metrics[ix["l2_write_hits"]];
    assert_eq!((w.kernels, w.mape, w.pearson), (0, None, None));
    // A kernel of another name is not matched: the table's row is reported.
    let r = compare("cfg", "t.csv", &hw, &s[1..], false);
    assert_eq!(
        r.unmatched_hardware,
        vec!["b+tree-rodinia-3.1 findRangeK (line 2)"]
    );
}

#[test]
fn the_plot_and_the_gpgpusim_names_carry_every_kernel() {
    let ix = metric_index();
    let hw = parse_table(V100, Path::new("t.csv")).unwrap();
    let s = [
        sim("findRangeK", &[(ix["cycles"], 1100.0)]),
        sim("_Z14CUDAkernel1DCTPfiiiy", &[(ix["cycles"], 0.0)]),
    ];
    let r = compare("cfg", "t.csv", &hw, &s, false);
    let svg = scatter_svg(&r, ix["cycles"]);
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    assert_eq!(svg.matches("<circle").count(), 1);
    assert!(svg.contains("1 kernel(s) with a zero figure not drawn"));
    assert!(svg.contains("findRangeK: measured 1000, simulated 1100"));
    let g = gpgpusim_stats(&s);
    assert!(g.contains("kernel_name = findRangeK\nkernel_launch_uid = 1\n"));
    assert!(g.contains("\tgpu_sim_cycle = 1100\n"));
    assert!(g.contains("\tL2_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = 0\n"));
    assert!(g.contains("kernel_launch_uid = 2\n") && g.contains("gpu_tot_sim_cycle = 1100\n"));
}
