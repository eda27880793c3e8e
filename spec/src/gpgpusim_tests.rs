//! Tests of the GPGPU-Sim option-file reader, the DRAM timing string and the import, on the real
//! configuration files (copies in `spec/tests-data/gpgpusim-configs/`, checked against the shared
//! reference by `mapping_tests::test_data_matches_shared_reference`).

use super::*;
use crate::mapping::tests::{
    GTX480_322, GTX480_4X, QV100, QV100_TRACE, RTX2060, RTX2060_TRACE, RTX3070, RTX3070_TRACE,
};
use crate::mapping::ChannelSelect;

fn opts(text: &str, name: &str) -> GpgpusimOptions {
    GpgpusimOptions::parse(text, name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A reference options file of tests-data, named by its full path (so that the `.icnt` file it
/// names is found next to it).
fn file_opts(rel: &str) -> GpgpusimOptions {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests-data/gpgpusim-configs")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    opts(&text, &path.display().to_string())
}

fn layered(config: &str, trace: &str) -> GpgpusimOptions {
    let mut o = opts(config, "gpgpusim.config");
    o.layer(opts(trace, "trace.config"));
    o
}

const GTX480_TIMING: GpgpusimDramTiming = GpgpusimDramTiming {
    nbk: 16,
    t_ccd: 2,
    t_rrd: 6,
    t_rcd: 12,
    t_ras: 28,
    t_rp: 12,
    t_rc: 40,
    cl: 12,
    wl: 4,
    t_cdlr: 5,
    t_wr: 12,
    nbkgrp: 4,
    t_ccdl: 3,
    t_rtpl: 2,
};

#[test]
fn all_reference_configs_parse() {
    for (text, name) in [
        (GTX480_322, "GTX480/gpgpusim-3.2.2/gpgpusim.config"),
        (GTX480_4X, "GTX480/gpgpusim-4.x/gpgpusim.config"),
        (RTX2060, "RTX2060/gpgpusim.config"),
        (QV100, "QV100/gpgpusim.config"),
        (RTX3070, "RTX3070/gpgpusim.config"),
        (RTX2060_TRACE, "RTX2060/trace.config"),
        (QV100_TRACE, "QV100/trace.config"),
        (RTX3070_TRACE, "RTX3070/trace.config"),
    ] {
        let o = opts(text, name);
        assert!(o.len() > 10, "{name}: only {} options", o.len());
        for (option, value) in o.iter() {
            assert!(
                !option.starts_with('-') && !option.is_empty(),
                "{name}: {option}"
            );
            assert!(
                !value.value.contains('"'),
                "{name}: {option} = {}",
                value.value
            );
            assert_eq!(value.source, name);
        }
    }
}

#[test]
fn option_file_syntax_on_the_gtx480_file() {
    let o = opts(GTX480_322, "gpgpusim.config");
    // The quoted timing string spans two lines: joined with one space, quotes removed.
    assert_eq!(
        o.get("-gpgpu_dram_timing_opt"),
        Some(
            "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40: \
            CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2"
        )
    );
    // Trailing blank and inline comments are not part of the value; with or without `-`.
    assert_eq!(o.get("gpgpu_n_sub_partition_per_mchannel"), Some("2"));
    assert_eq!(o.get("-dram_data_command_freq_ratio"), Some("4"));
    assert_eq!(
        o.get("gpgpu_clock_domains"),
        Some("700.0:700.0:700.0:924.0")
    );
    assert_eq!(o.get("gpgpu_no_such_option"), None);
    let n_mem = o.entry("gpgpu_n_mem").unwrap();
    assert_eq!((n_mem.value.as_str(), n_mem.line), ("6", 14));
    assert_eq!(o.entry("gpgpu_dram_timing_opt").unwrap().line, 107);
    // A commented-out option is absent.
    let q = opts(QV100, "QV100");
    assert_eq!(
        q.get("gpgpu_dram_timing_opt"),
        Some(
            "nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40: \
            CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:CCDL=2:RTPL=3"
        )
    );
    assert_eq!(q.get("dram_seperate_write_queue_enable"), None);
}

#[test]
fn option_file_syntax_rules() {
    let o = opts(
        "# header\n-a 1 -b \"x y\"   # comment \"ignored\n-c \"one\" -a 2\n-d \"p\n q  r\" -e \
            -5\r\n",
        "t",
    );
    assert_eq!(o.get("a"), Some("2"), "last one wins");
    assert_eq!(o.entry("a").unwrap().line, 3);
    assert_eq!(o.get("b"), Some("x y"));
    assert_eq!(o.get("c"), Some("one"));
    assert_eq!(o.get("d"), Some("p q r"));
    assert_eq!(o.get("e"), Some("-5"), "a value may start with `-`");
    assert_eq!(o.len(), 5);
    assert!(GpgpusimOptions::parse("", "empty").unwrap().is_empty());
    assert!(GpgpusimOptions::parse("# only\n  \n", "empty")
        .unwrap()
        .is_empty());

    assert_eq!(
        GpgpusimOptions::parse("-a 1\nb 2", "f.config"),
        Err(OptionsError::ExpectedOption {
            source_name: "f.config".into(),
            line: 2,
            token: "b".into(),
            previous: Some(("-a".into(), 1)),
        })
    );
    // A two-line value whose quotes are lost names the option it follows.
    let e = GpgpusimOptions::parse("-x 1\n-t 7\n   CL=12:WL=4\"\n", "g.config").unwrap_err();
    assert_eq!(
        e.to_string(),
        "g.config line 3: expected an option name starting with `-`, found `CL=12:WL=4\"` \
         after the value of `-t` (line 2); a value of several words is quoted, `\"...\"`"
    );
    assert_eq!(
        GpgpusimOptions::parse("-a 1\n- 2", "f")
            .unwrap_err()
            .to_string(),
        "f line 2: expected an option name starting with `-`, found `-`"
    );
    assert_eq!(
        GpgpusimOptions::parse("-a 1\n-b # no value", "f")
            .unwrap_err()
            .to_string(),
        "f line 2: option `-b` has no value"
    );
    assert_eq!(
        GpgpusimOptions::parse("-t \"nbk=16:\n CL=12 # \"closed only in a comment\n", "g"),
        Err(OptionsError::UnterminatedQuote {
            source_name: "g".into(),
            line: 1,
            option: "-t".into()
        })
    );
    // A quote left open runs into the next option (later closed by another value's quote):
    // refused where it opened, not read as one long value that swallows the options between.
    let open = "-a \"1\n-b 2\n-c \"x y\"\n";
    assert_eq!(
        GpgpusimOptions::parse(open, "h"),
        Err(OptionsError::QuoteRunsIntoOption {
            source_name: "h".into(),
            line: 1,
            option: "-a".into(),
            next: "-b".into(),
            next_line: 2,
        })
    );
    // A quoted value over lines, and a value with a dash inside it, stay legal.
    let p = GpgpusimOptions::parse("-m \"dramid@8;\n RRRR.BBBB\" -n \"a -b\"\n", "i").unwrap();
    assert_eq!(p.get("m"), Some("dramid@8; RRRR.BBBB"));
    assert_eq!(p.get("n"), Some("a -b"));
}

#[test]
fn layering_trace_config_over_gpgpusim_config() {
    for (config, trace) in [
        (RTX2060, RTX2060_TRACE),
        (QV100, QV100_TRACE),
        (RTX3070, RTX3070_TRACE),
    ] {
        let base = opts(config, "gpgpusim.config");
        let over = opts(trace, "trace.config");
        let all = layered(config, trace);
        for (name, v) in over.iter() {
            assert_eq!(all.entry(name), Some(v), "{name} comes from trace.config");
        }
        for (name, v) in base.iter() {
            if over.entry(name).is_none() {
                assert_eq!(
                    all.entry(name),
                    Some(v),
                    "{name} stays from gpgpusim.config"
                );
            }
        }
        assert_eq!(
            all.get("specialized_unit_1"),
            Some("1,4,4,4,4,BRA"),
            "trace.config adds the BRA unit"
        );
    }
    // An option set in both: the later layer wins.
    let mut o = opts(GTX480_4X, "gpgpusim.config");
    o.layer(opts(
        "-gpgpu_n_mem 8 # more channels\n-gpgpu_dram_burst_length 16",
        "override.config",
    ));
    assert_eq!(o.get("gpgpu_n_mem"), Some("8"));
    assert_eq!(o.entry("gpgpu_n_mem").unwrap().source, "override.config");
    assert_eq!(o.get("gpgpu_n_sub_partition_per_mchannel"), Some("2"));
    let imported = import(&o).unwrap();
    assert_eq!(imported.channels, 8);
    assert_eq!(
        imported.address_map.channel_select(),
        ChannelSelect::Inserted { start: 8, bits: 3 }
    );
    assert_eq!(imported.atom_size, 16 * 4 * 2);
}

#[test]
fn gtx480_timing_and_derived_values() {
    let o = opts(GTX480_4X, "gpgpusim.config");
    let t = GpgpusimDramTiming::parse(o.get("gpgpu_dram_timing_opt").unwrap()).unwrap();
    assert_eq!(t, GTX480_TIMING);
    let d = t.derived(8, 4).unwrap();
    assert_eq!(
        (d.t_rcdwr, d.t_rtw, d.t_wtr, d.t_wtp),
        (7, 12, 11, 18),
        "notes §1.5 GTX480"
    );
    assert_eq!((d.burst_cycles, d.t_rtp), (2, 2));
}

#[test]
fn rtx2060_and_qv100_derived_values() {
    let o = opts(RTX2060, "gpgpusim.config");
    let t = GpgpusimDramTiming::parse(o.get("gpgpu_dram_timing_opt").unwrap()).unwrap();
    let d = t.derived(16, 4).unwrap();
    assert_eq!((d.t_rcdwr, d.t_rtw, d.t_wtr, d.t_wtp), (15, 22, 22, 36));
    let o = opts(QV100, "gpgpusim.config");
    let t = GpgpusimDramTiming::parse(o.get("gpgpu_dram_timing_opt").unwrap()).unwrap();
    let d = t.derived(2, 2).unwrap();
    assert_eq!((d.t_rcdwr, d.t_rtw, d.t_wtr, d.t_wtp), (9, 13, 6, 13));
}

#[test]
fn timing_named_and_positional_forms_agree() {
    let positional = GpgpusimDramTiming::parse("16:2:6:12:28:12:40:12:4:5:12:4:3:2").unwrap();
    assert_eq!(positional, GTX480_TIMING);
    // Any of `=`, `:`, `;` separates, in any order, any case, whitespace tolerated.
    let shuffled = GpgpusimDramTiming::parse(
        "RTPL=2;CCDL=3:nbkgrp=4 ; \
            WR=12:CDLR=5;WL=4:cl=12:RC=40;RP=12:RAS=28:RCD=12;RRD=6:CCD=2:NBK=16",
    )
    .unwrap();
    assert_eq!(shuffled, GTX480_TIMING);
    // Last one wins.
    let twice = GpgpusimDramTiming::parse(
        "nbk=16:CCD=9:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL\
            =2:CCD=2",
    )
    .unwrap();
    assert_eq!(twice, GTX480_TIMING);
    // Defaults of the optional fields: nbkgrp 1, CCDL 0, RTPL 0, in both forms.
    let want = GpgpusimDramTiming {
        nbkgrp: 1,
        t_ccdl: 0,
        t_rtpl: 0,
        ..GTX480_TIMING
    };
    assert_eq!(
        GpgpusimDramTiming::parse(
            "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12"
        )
        .unwrap(),
        want
    );
    assert_eq!(
        GpgpusimDramTiming::parse("16:2:6:12:28:12:40:12:4:5:12").unwrap(),
        want
    );
    assert_eq!(
        GpgpusimDramTiming::parse(GpgpusimDramTiming::DEFAULT_OPTION).unwrap(),
        GpgpusimDramTiming::default()
    );
    assert_eq!(GpgpusimDramTiming::default().nbk, 4);
}

#[test]
fn timing_errors() {
    use TimingError::*;
    let p = GpgpusimDramTiming::parse;
    assert!(matches!(
        p("16:2:6:12:28:12:40:12:4:5"),
        Err(FieldCount { count: 10, .. })
    ));
    assert!(matches!(
        p("16:2:6:12:28:12:40:12:4:5:12:4:3:2:1"),
        Err(FieldCount { count: 15, .. })
    ));
    assert!(matches!(p(""), Err(FieldCount { count: 1, .. })));
    assert_eq!(
        p("16:2:6:12:28:x:40:12:4:5:12"),
        Err(NotANumber {
            field: "RP".into(),
            value: "x".into()
        })
    );
    assert_eq!(
        p("nbk=16:CCD=-2"),
        Err(NotANumber {
            field: "CCD".into(),
            value: "-2".into()
        })
    );
    assert_eq!(
        p("nbk=16:tCCD=2"),
        Err(UnknownField {
            field: "tCCD".into()
        })
    );
    assert_eq!(
        p("nbk=16:CCD"),
        Err(MissingValue {
            field: "CCD".into()
        })
    );
    let missing = p("nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5");
    assert!(
        matches!(missing, Err(MissingField { field: "WR", .. })),
        "{missing:?}"
    );
    assert_eq!(
        missing.unwrap_err().to_string(),
        "DRAM timing `nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5` does not \
            set `WR` (only nbkgrp, CCDL and RTPL have defaults)"
    );
    assert!(matches!(
        p("0:2:6:12:28:12:40:12:4:5:12"),
        Err(Invalid { .. })
    ));
    assert!(matches!(
        p("16:2:6:12:28:12:40:12:4:5:12:3"),
        Err(Invalid { .. })
    ));
    assert!(matches!(
        p("16:2:6:12:28:12:40:12:4:5:12:32"),
        Err(Invalid { .. })
    ));
    assert!(matches!(
        p("16:2:6:12:28:12:40:12:4:5:12:0"),
        Err(Invalid { .. })
    ));
    assert_eq!(GTX480_TIMING.derived(8, 0), Err(ZeroRatio));
    // Negative differences clamp to 0.
    let odd = GpgpusimDramTiming {
        t_rcd: 2,
        wl: 20,
        ..GTX480_TIMING
    };
    let d = odd.derived(8, 4).unwrap();
    assert_eq!((d.t_rcdwr, d.t_rtw), (0, 0));
}

#[test]
fn import_gtx480_both_versions() {
    for (text, name) in [(GTX480_322, "3.2.2"), (GTX480_4X, "4.x")] {
        let i = import(&opts(text, name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(i.channels, 6, "{name}");
        assert_eq!(i.sub_partitions_per_channel, 2);
        assert_eq!(i.atom_size, 64);
        assert_eq!(i.dram_clock_mhz, 924.0);
        assert_eq!(
            (i.burst_length, i.bus_width_bytes, i.chips_per_channel),
            (8, 4, 2)
        );
        assert_eq!(i.data_command_ratio, 4);
        assert_eq!(i.timing, GTX480_TIMING);
        assert_eq!(
            (
                i.derived.t_rcdwr,
                i.derived.t_rtw,
                i.derived.t_wtr,
                i.derived.t_wtp
            ),
            (7, 12, 11, 18)
        );
        assert_eq!(i.scheduler, DramScheduler::FrFcfs);
        assert_eq!(i.partition_indexing, PartitionIndexing::Linear);
        assert!(!i.dual_bus_interface);
        assert!(!i.address_map.bank_xor());
        assert_eq!(
            i.address_map.channel_select(),
            ChannelSelect::Modulo { start: 8 }
        );
        assert_eq!(u64::from(i.atom_size), i.address_map.burst_bytes());
        assert!(i.unmodelled.is_empty(), "{:?}", i.unmodelled);
    }
    assert_eq!(
        import(&opts(GTX480_322, "a")).unwrap().scheduler_queue_size,
        16
    );
    assert_eq!(
        import(&opts(GTX480_4X, "b")).unwrap().scheduler_queue_size,
        64
    );
}

#[test]
fn import_rtx2060_qv100_rtx3070() {
    let i = import(&layered(RTX2060, RTX2060_TRACE)).unwrap();
    assert_eq!(
        (i.channels, i.atom_size, i.dram_clock_mhz),
        (12, 32, 3500.5)
    );
    assert_eq!(
        (
            i.derived.t_rcdwr,
            i.derived.t_rtw,
            i.derived.t_wtr,
            i.derived.t_wtp
        ),
        (15, 22, 22, 36)
    );
    assert_eq!(i.scheduler_queue_size, 64);
    assert!(i.unmodelled.is_empty());

    let q = import(&layered(QV100, QV100_TRACE)).unwrap();
    assert_eq!((q.channels, q.atom_size, q.dram_clock_mhz), (32, 32, 850.0));
    assert!(q.dual_bus_interface);
    assert_eq!(q.partition_indexing, PartitionIndexing::Ipoly);
    // IPOLY over 32 channels x 2 sub-partitions is applied by the address map.
    assert_eq!(
        q.address_map.partition_hash(),
        crate::dram::PartitionHash::Ipoly
    );
    assert!(q.unmodelled.is_empty(), "{:?}", q.unmodelled);
    assert_eq!(
        (
            q.derived.t_rcdwr,
            q.derived.t_rtw,
            q.derived.t_wtr,
            q.derived.t_wtp
        ),
        (9, 13, 6, 13)
    );

    let r = import(&layered(RTX3070, RTX3070_TRACE)).unwrap();
    assert_eq!(
        (r.channels, r.atom_size, r.dram_clock_mhz),
        (16, 32, 3500.5)
    );
    assert_eq!(r.address_map.masks().bank, 0x70080);
    assert_eq!(r.partition_indexing, PartitionIndexing::Ipoly);
    assert_eq!(
        r.address_map.partition_hash(),
        crate::dram::PartitionHash::Ipoly
    );
    // Random indexing is a software table, not hardware: kept linear and reported.
    let random = import(&layered(
        &QV100.replace(
            "-gpgpu_memory_partition_indexing 2",
            "-gpgpu_memory_partition_indexing 4",
        ),
        QV100_TRACE,
    ))
    .unwrap();
    assert_eq!(
        random.address_map.partition_hash(),
        crate::dram::PartitionHash::Linear
    );
    assert!(
        random.unmodelled.iter().any(|u| u.contains("random")),
        "{:?}",
        random.unmodelled
    );
}

#[test]
fn import_defaults_and_errors() {
    // Only the mapping given: GPGPU-Sim defaults for the rest (default nbk = 4, so 2 bank bits).
    let mapping = "-gpgpu_mem_addr_mapping \
        dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RRBCCCCB.CCSSSSSS\n";
    assert!(matches!(
        import(&opts(&mapping.replace("RRB", "BBB"), "m")),
        Err(ImportError::Inconsistent { .. })
    ));
    let i = import(&opts(mapping, "m")).unwrap();
    assert_eq!((i.channels, i.sub_partitions_per_channel), (8, 1));
    assert_eq!(
        (i.burst_length, i.bus_width_bytes, i.chips_per_channel),
        (4, 4, 1)
    );
    assert_eq!(
        (i.data_command_ratio, i.atom_size, i.dram_clock_mhz),
        (2, 16, 2000.0)
    );
    assert_eq!(i.scheduler_queue_size, 0);
    assert_eq!(i.timing.nbk, 4);

    let with = |extra: &str| {
        let mut o = opts(GTX480_4X, "gpgpusim.config");
        o.layer(opts(extra, "extra.config"));
        import(&o)
    };
    assert!(matches!(
        import(&opts("-gpgpu_n_mem 6", "x")),
        Err(ImportError::MissingOption {
            option: "gpgpu_mem_addr_mapping",
            ..
        })
    ));
    let e = with("-gpgpu_n_mem six").unwrap_err();
    assert_eq!(
        e.to_string(),
        "`-gpgpu_n_mem` = `six` (extra.config line 1): expected an unsigned 32-bit integer"
    );
    // An option spelled in another case is not taken silently for an unknown one (the real
    // one would stay at its default).
    let e = with("-GPGPU_N_MEM 4").unwrap_err();
    assert_eq!(
        e.to_string(),
        "`-GPGPU_N_MEM` (extra.config line 1) is not an option: GPGPU-Sim's names are \
         case-sensitive; write `-gpgpu_n_mem`"
    );
    // More sub-partitions than the map's bank bits can pick: the error names the option
    // that set the count, not only the map.
    let e = with("-gpgpu_n_sub_partition_per_mchannel 65536").unwrap_err();
    assert!(
        e.to_string()
            .contains("-gpgpu_n_sub_partition_per_mchannel = 65536 (extra.config line 1)"),
        "{e}"
    );
    assert!(matches!(
        with("-gpgpu_dram_buswidth 0"),
        Err(ImportError::BadValue { .. })
    ));
    assert!(matches!(
        with("-gpgpu_dram_scheduler 2"),
        Err(ImportError::BadValue { .. })
    ));
    assert!(matches!(
        with("-gpgpu_clock_domains 700:700:700"),
        Err(ImportError::BadValue { .. })
    ));
    assert!(matches!(
        with("-gpgpu_clock_domains 700:700:700:fast"),
        Err(ImportError::BadValue { .. })
    ));
    let e = with("-gpgpu_mem_addr_mapping dramid@8;RRRR").unwrap_err();
    assert_eq!(
        e.to_string(),
        "`-gpgpu_mem_addr_mapping` (extra.config line 1): mapping string has 4 symbols, expected \
            64 (after removing separators)"
    );
    let e = with("-gpgpu_dram_timing_opt nbk=16:CCD=2").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("`-gpgpu_dram_timing_opt` (extra.config line 1): DRAM timing"),
        "{e}"
    );
    let e = with("-gpgpu_dram_timing_opt 8:2:6:12:28:12:40:12:4:5:12:4:3:2").unwrap_err();
    assert!(matches!(e, ImportError::Inconsistent { .. }), "{e}");
    assert!(matches!(
        with("-dram_bnk_indexing_policy 2"),
        Err(ImportError::Unsupported { value: 2, .. })
    ));
    let x = with("-dram_bnk_indexing_policy 1").unwrap();
    assert!(x.address_map.bank_xor());
    let x = with("-dram_elimnate_rw_turnaround 1").unwrap();
    assert_eq!(
        (x.derived.t_rtw, x.derived.t_wtr, x.derived.t_wtp),
        (0, 0, 18)
    );
    let x = with("-dram_seperate_write_queue_enable 1").unwrap();
    assert_eq!(x.unmodelled.len(), 1);
    assert!(matches!(
        with("-dram_dual_bus_interface 2"),
        Err(ImportError::BadValue { .. })
    ));
}

/// The value `layer` gives `key`.
fn imported(r: &ImportReport, key: &str) -> toml::Value {
    r.imported
        .iter()
        .find(|k| k.key == key)
        .unwrap_or_else(|| panic!("{key} not imported"))
        .value
        .clone()
}

#[test]
fn import_memory_partitions_and_clocks() {
    let int = |v: i64| toml::Value::Integer(v);
    // (config, dl2, rop, dram latency, queue depth, core kHz): the values of the files, and
    // GPGPU-Sim's defaults where a file leaves them (3.2.2: queues 8:8:8:8; its ROP latency is
    // the old name -rop_latency).
    for (o, dl2, rop, dlat, q, core) in [
        (
            file_opts("GTX480/gpgpusim-3.2.2/gpgpusim.config"),
            "64:128:8,L:B:m:W,A:32:4,4:0,32",
            120,
            100,
            8,
            700_000,
        ),
        (
            file_opts("GTX480/gpgpusim-4.x/gpgpusim.config"),
            "S:64:128:8,L:B:m:L:L,A:256:4,4:0,32",
            120,
            100,
            64,
            700_000,
        ),
        (
            layered(RTX2060, RTX2060_TRACE),
            "S:64:128:16,L:B:m:L:P,A:192:4,32:0,32",
            194,
            96,
            64,
            1_365_000,
        ),
        (
            layered(QV100, QV100_TRACE),
            "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32",
            160,
            100,
            64,
            1_132_000,
        ),
        (
            layered(RTX3070, RTX3070_TRACE),
            "S:64:128:16,L:B:m:L:P,A:192:4,32:0,32",
            187,
            254,
            64,
            1_132_000,
        ),
    ] {
        let r = layer(&o).unwrap();
        assert_eq!(imported(&r, "l2.cache"), toml::Value::String(dl2.into()));
        assert_eq!(imported(&r, "l2.rop_latency"), int(rop), "{dl2}");
        assert_eq!(imported(&r, "l2.dram_latency"), int(dlat), "{dl2}");
        for key in [
            "l2.icnt_to_l2",
            "l2.l2_to_dram",
            "l2.dram_to_l2",
            "l2.l2_to_icnt",
        ] {
            assert_eq!(imported(&r, key), int(q), "{dl2} {key}");
        }
        for key in ["clocks.core_khz", "clocks.icnt_khz", "clocks.l2_khz"] {
            assert_eq!(imported(&r, key), int(core), "{dl2} {key}");
        }
    }
    // Fields in order, and defaults (ROP 85, DRAM latency 30) when the file sets none.
    let with = |extra: &str| {
        let mut o = file_opts("GTX480/gpgpusim-4.x/gpgpusim.config");
        o.layer(opts(extra, "extra.config"));
        layer(&o)
    };
    let r =
        with("-gpgpu_dram_partition_queues 1:2:3:4\n-gpgpu_clock_domains 1000.5:2:3:4").unwrap();
    let depths = [
        "l2.icnt_to_l2",
        "l2.l2_to_dram",
        "l2.dram_to_l2",
        "l2.l2_to_icnt",
    ]
    .map(|k| imported(&r, k));
    assert_eq!(depths, [1, 2, 3, 4].map(int));
    assert_eq!(imported(&r, "clocks.core_khz"), int(1_000_500));
    let mapping = "-gpgpu_mem_addr_mapping \
        dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RRBCCCCB.CCSSSSSS\n-network\
        _mode 2\n";
    let r = layer(&opts(mapping, "m")).unwrap();
    assert_eq!(imported(&r, "l2.rop_latency"), int(85));
    assert_eq!(imported(&r, "l2.dram_latency"), int(30));
    assert!(
        r.kept.iter().any(|k| k.starts_with("l2.cache")),
        "{:?}",
        r.kept
    );
    // Bad values name the option, where it was set, and what was expected.
    for bad in ["8:8:8", "8:8:8:0", "8:8:x:8"] {
        let e = with(&format!("-gpgpu_dram_partition_queues {bad}")).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "`-gpgpu_dram_partition_queues` = `{bad}` (extra.config line 1): expected"
            )),
            "{e}"
        );
    }
    let e = with("-gpgpu_cache:dl2 S:64:128").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("`-gpgpu_cache:dl2` (extra.config line 1): cache string `S:64:128`"),
        "{e}"
    );
    assert!(matches!(
        with("-dram_latency -3"),
        Err(ImportError::BadValue { .. })
    ));
}

/// GPGPU-Sim's FR-FCFS queue holds the requests no bank has taken, and each bank holds the one
/// it serves: the pending queue, which holds both, gets the queue's size plus the banks. The
/// drain thresholds stay at 3/4 and 1/4 of GPGPU-Sim's queue.
#[test]
fn the_pending_queue_holds_the_scheduler_queue_and_one_request_a_bank() {
    let int = |v: i64| toml::Value::Integer(v);
    // (configuration, its queue size and banks): QV100 64 and 16, GTX480 (4.x) 64 and 16.
    for (o, q, nbk) in [
        (layered(QV100, QV100_TRACE), 64, 16),
        (file_opts("GTX480/gpgpusim-4.x/gpgpusim.config"), 64, 16),
    ] {
        let r = layer(&o).unwrap();
        assert_eq!(imported(&r, "mc.queue_entries"), int(q + nbk));
        assert_eq!(imported(&r, "mc.write_high"), int(q * 3 / 4));
        assert_eq!(imported(&r, "mc.write_low"), int(q / 4));
    }
    // The banks come from -gpgpu_dram_timing_opt: eight banks (three bank bits), a queue of 20.
    let mut o = file_opts("GTX480/gpgpusim-4.x/gpgpusim.config");
    o.layer(opts(
        "-gpgpu_frfcfs_dram_sched_queue_size 20\n-gpgpu_mem_addr_mapping dramid@8;00000000.\
            00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBCCCCB.CCSSSSSS\n\
            -gpgpu_dram_timing_opt \
            nbk=8:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=1:CCDL=0:\
            RTPL=0\n",
        "small.config",
    ));
    let r = layer(&o).unwrap();
    assert_eq!(imported(&r, "mc.queue_entries"), int(28));
    assert_eq!(imported(&r, "mc.write_high"), int(15));
}

#[test]
fn import_the_interconnect() {
    let s = |v: &str| toml::Value::String(v.into());
    let int = |v: i64| toml::Value::Integer(v);
    // (files, flit bytes, input and output buffer flits, arbiter, latency, internal speedup):
    // BookSim's .icnt for GTX480 (vc_buf_size x num_vcs, routing + VC + switch allocation
    // delays, internal_speedup), the built-in crossbar's options for the others.
    for (o, flit, inb, outb, arb, lat, speedup) in [
        (
            file_opts("GTX480/gpgpusim-3.2.2/gpgpusim.config"),
            32,
            8,
            8,
            "islip",
            2,
            1,
        ),
        (
            file_opts("GTX480/gpgpusim-4.x/gpgpusim.config"),
            40,
            64,
            64,
            "islip",
            2,
            2,
        ),
        (layered(RTX2060, RTX2060_TRACE), 40, 512, 512, "islip", 0, 1),
        (layered(QV100, QV100_TRACE), 40, 512, 512, "islip", 0, 1),
        (layered(RTX3070, RTX3070_TRACE), 40, 512, 512, "islip", 0, 1),
    ] {
        let r = layer(&o).unwrap();
        assert_eq!(imported(&r, "icnt.flit_bytes"), int(flit));
        assert_eq!(imported(&r, "icnt.in_buffer"), int(inb));
        assert_eq!(imported(&r, "icnt.out_buffer"), int(outb));
        assert_eq!(imported(&r, "icnt.arbiter"), s(arb));
        assert_eq!(imported(&r, "icnt.latency"), int(lat));
        assert_eq!(imported(&r, "icnt.speedup"), int(speedup));
        assert!(
            r.unmodelled.iter().any(|u| u.contains("network")),
            "{:?}",
            r.unmodelled
        );
    }
    let with = |extra: &str| {
        let mut o = file_opts("RTX2060/gpgpusim.config");
        o.layer(opts(extra, "extra.config"));
        layer(&o)
    };
    let r = with("-icnt_arbiter_algo 0").unwrap();
    assert_eq!(imported(&r, "icnt.arbiter"), s("rr"));
    assert!(matches!(
        with("-icnt_arbiter_algo 5"),
        Err(ImportError::BadValue { .. })
    ));
    assert!(matches!(
        with("-network_mode 3"),
        Err(ImportError::Unsupported { value: 3, .. })
    ));
    let e = with("-network_mode 1\n-inter_config_file nowhere.icnt").unwrap_err();
    assert!(
        e.to_string().starts_with("`-inter_config_file` = `")
            && e.to_string()
                .contains("nowhere.icnt` (extra.config line 2): cannot read it"),
        "{e}"
    );
    assert_eq!(
        parse_icnt("a = 1; b=two // c = 3\n// d = 4\n e = 5;"),
        [("a", "1"), ("b", "two"), ("e", "5")].map(|(k, v)| (k.to_string(), v.to_string()))
    );
}

#[test]
fn an_internal_speedup_is_taken_in_whole_steps_and_a_bad_one_is_refused() {
    let dir = std::env::temp_dir().join(format!("ws-icnt-speedup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let icnt = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests-data/gpgpusim-configs/GTX480/gpgpusim-4.x/config_fermi_islip.icnt"),
    )
    .unwrap();
    let with = |speedup: &str| {
        let text = icnt.replace(
            "internal_speedup  = 2.0;",
            &format!("internal_speedup = {speedup};"),
        );
        std::fs::write(dir.join("net.icnt"), text).unwrap();
        let config = dir.join("gpgpusim.config");
        let o = opts(
            &format!("{GTX480_4X}\n-inter_config_file net.icnt\n"),
            &config.display().to_string(),
        );
        layer(&o)
    };
    let r = with("3.0").unwrap();
    assert_eq!(imported(&r, "icnt.speedup"), toml::Value::Integer(3));
    let r = with("1.5").unwrap();
    assert_eq!(imported(&r, "icnt.speedup"), toml::Value::Integer(1));
    assert!(
        r.unmodelled.iter().any(|u| u.contains("rounded down to 1")),
        "{:?}",
        r.unmodelled
    );
    for bad in ["0.5", "9", "fast"] {
        let e = with(bad).unwrap_err().to_string();
        assert!(e.contains("internal_speedup"), "{bad}: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn import_the_execution_units() {
    // (options, per class [alu, sp, dp, sfu, tensor, branch, tex, uniform]: (latency,
    // initiation), or None for a class the files leave to the layers below)
    type Want = [Option<(i64, i64)>; 8];
    let trace_units = |alu, sp, dp, sfu, tensor, uniform| -> Want {
        [
            Some(alu),
            Some(sp),
            Some(dp),
            Some(sfu),
            Some(tensor),
            Some((4, 4)),
            Some((200, 4)),
            uniform,
        ]
    };
    let files = |config: &str, trace: Option<&str>| {
        let mut o = file_opts(config);
        if let Some(t) = trace {
            o.layer(file_opts(t));
        }
        o
    };
    let cases: [(GpgpusimOptions, Want); 5] = [
        // Trace-driven: trace.config's classes and specialized units (the TENSOR unit's
        // timing; Volta has no UDP unit).
        (
            files("RTX2060/gpgpusim.config", Some("RTX2060/trace.config")),
            trace_units((2, 2), (2, 2), (64, 64), (21, 8), (16, 16), Some((4, 1))),
        ),
        (
            files("QV100/gpgpusim.config", Some("QV100/trace.config")),
            trace_units((2, 2), (2, 2), (8, 4), (20, 8), (2, 2), None),
        ),
        (
            files("RTX3070/gpgpusim.config", Some("RTX3070/trace.config")),
            trace_units((2, 2), (2, 1), (64, 64), (21, 8), (32, 32), Some((4, 1))),
        ),
        // PTX-mode files: the first fields of their tables (GTX480 4.x sets no SFU or tensor
        // table).
        (
            files("GTX480/gpgpusim-4.x/gpgpusim.config", None),
            [
                Some((4, 1)),
                Some((4, 1)),
                Some((8, 8)),
                None,
                None,
                None,
                None,
                None,
            ],
        ),
        (
            files("RTX2060/gpgpusim.config", None),
            [
                Some((4, 2)),
                Some((4, 2)),
                Some((64, 64)),
                Some((21, 8)),
                Some((64, 64)),
                None,
                None,
                None,
            ],
        ),
    ];
    let classes = [
        "alu", "sp", "dp", "sfu", "tensor", "branch", "tex", "uniform",
    ];
    for (k, (o, want)) in cases.iter().enumerate() {
        let r = layer(o).unwrap();
        for (class, w) in classes.iter().zip(want) {
            let (lat, init) = (
                format!("gpu.{class}_latency"),
                format!("gpu.{class}_initiation"),
            );
            let got = r.imported.iter().find(|i| i.key == lat).map(|_| {
                let v = |key: &str| imported(&r, key).as_integer().unwrap();
                (v(&lat), v(&init))
            });
            assert_eq!(got, *w, "case {k}: {class}");
            if w.is_none() {
                assert!(
                    r.kept.iter().any(|m| m.starts_with(&lat)),
                    "case {k}: {class} kept"
                );
            }
        }
    }
    // A disabled specialized unit gives nothing; a malformed one or a bad field is an error.
    let mut o = files("RTX2060/gpgpusim.config", Some("RTX2060/trace.config"));
    o.layer(opts("-specialized_unit_4 0,4,4,4,4,UDP\n", "off.config"));
    let r = layer(&o).unwrap();
    assert!(!r.imported.iter().any(|i| i.key == "gpu.uniform_latency"));
    for bad in [
        "-specialized_unit_1 1,4,4\n",
        "-trace_opcode_latency_initiation_sfu 21\n",
        "-trace_opcode_latency_initiation_sp 2,x\n",
    ] {
        let mut o = files("RTX2060/gpgpusim.config", Some("RTX2060/trace.config"));
        o.layer(opts(bad, "bad.config"));
        let e = layer(&o).unwrap_err().to_string();
        assert!(e.contains("bad.config"), "{bad}: {e}");
    }
}

#[test]
fn import_the_two_level_scheduler() {
    let with = |v: &str| {
        let mut o = file_opts("GTX480/gpgpusim-4.x/gpgpusim.config");
        o.layer(opts(&format!("-gpgpu_scheduler {v}\n"), "sched.config"));
        layer(&o).unwrap()
    };
    // GTX480's commented-out example.
    let r = with("two_level_active:6:0:1");
    assert_eq!(imported(&r, "gpu.scheduler").as_str(), Some("two-level"));
    assert_eq!(imported(&r, "gpu.active_warps").as_integer(), Some(6));
    assert_eq!(
        imported(&with("two_level_active:12:0:1"), "gpu.active_warps").as_integer(),
        Some(12)
    );
    // Other inner or outer orders (GPGPU-Sim aborts on them) and other policies are kept.
    for v in [
        "two_level_active:6:2:1",
        "two_level_active:6:0:0",
        "two_level_active:x:0:1",
        "rrr",
    ] {
        let r = with(v);
        assert!(!r.imported.iter().any(|k| k.key == "gpu.scheduler"), "{v}");
        assert!(
            r.kept
                .iter()
                .any(|m| m.starts_with("gpu.scheduler") && m.contains(v)),
            "{v}: {:?}",
            r.kept
        );
    }
}

/// `-gpgpu_flush_l1_cache` sets `gpu.flush_l1` (every GPGPU-Sim 4.x reference config sets it);
/// GTX480's 3.2.2 file does not, and the key keeps its value.
#[test]
fn import_the_l1_flush() {
    for rel in [
        "GTX480/gpgpusim-4.x/gpgpusim.config",
        "QV100/gpgpusim.config",
        "RTX2060/gpgpusim.config",
        "RTX3070/gpgpusim.config",
    ] {
        let r = layer(&file_opts(rel)).unwrap();
        assert_eq!(imported(&r, "gpu.flush_l1").as_bool(), Some(true), "{rel}");
    }
    let r = layer(&file_opts("GTX480/gpgpusim-3.2.2/gpgpusim.config")).unwrap();
    assert!(!r.imported.iter().any(|k| k.key == "gpu.flush_l1"));
    assert!(
        r.kept.iter().any(|m| m.starts_with("gpu.flush_l1")),
        "{:?}",
        r.kept
    );
    let mut off = file_opts("RTX2060/gpgpusim.config");
    off.layer(opts("-gpgpu_flush_l1_cache 0\n", "off.config"));
    assert_eq!(
        imported(&layer(&off).unwrap(), "gpu.flush_l1").as_bool(),
        Some(false)
    );
}

/// `-gpgpu_kernel_launch_latency` sets `gpu.kernel_launch_latency`, GPGPU-Sim's default 0 where
/// a file does not set it; `-gpgpu_perf_sim_memcpy` sets `l2.fill_on_copy` (decisions GPU-30,
/// MEM-24), and where a file does not (3.2.2 has no such option) the key keeps its value and
/// the report says so.
#[test]
fn import_the_launch_latency_and_the_copies_filling_the_l2() {
    for (rel, latency, fill) in [
        ("GTX480/gpgpusim-4.x/gpgpusim.config", 0, Some(true)),
        ("GTX480/gpgpusim-3.2.2/gpgpusim.config", 0, None),
        ("QV100/gpgpusim.config", 5000, Some(true)),
        ("RTX2060/gpgpusim.config", 5000, Some(true)),
        ("RTX3070/gpgpusim.config", 5000, Some(true)),
    ] {
        let r = layer(&file_opts(rel)).unwrap();
        let l = imported(&r, "gpu.kernel_launch_latency");
        assert_eq!(l.as_integer(), Some(latency), "{rel}");
        match fill {
            Some(f) => assert_eq!(imported(&r, "l2.fill_on_copy").as_bool(), Some(f), "{rel}"),
            None => {
                assert!(!r.imported.iter().any(|k| k.key == "l2.fill_on_copy"));
                assert!(r.kept.iter().any(|m| m.starts_with("l2.fill_on_copy")));
            }
        }
    }
    let mut o = file_opts("QV100/gpgpusim.config");
    o.layer(opts(
        "-gpgpu_kernel_launch_latency 17\n-gpgpu_perf_sim_memcpy 0\n",
        "over.config",
    ));
    let r = layer(&o).unwrap();
    assert_eq!(
        imported(&r, "gpu.kernel_launch_latency").as_integer(),
        Some(17)
    );
    assert_eq!(imported(&r, "l2.fill_on_copy").as_bool(), Some(false));
    let mut bad = file_opts("QV100/gpgpusim.config");
    bad.layer(opts("-gpgpu_kernel_launch_latency -3\n", "bad.config"));
    let e = layer(&bad).unwrap_err().to_string();
    assert!(
        names_option(&e, "gpgpu_kernel_launch_latency", "bad.config", 1),
        "{e}"
    );
}

/// `-gpgpu_l1_banks` sets `gpu.l1_banks` (GPGPU-Sim's default 1 where a file does not set it;
/// decision GPU-34); the banks' interleaving and hashing are GPGPU-Sim's defaults or refused,
/// naming the option, its file and line.
#[test]
fn import_the_l1_banks() {
    for (rel, banks) in [
        ("GTX480/gpgpusim-4.x/gpgpusim.config", 1),
        ("QV100/gpgpusim.config", 4),
        ("RTX2060/gpgpusim.config", 4),
        ("RTX3070/gpgpusim.config", 4),
    ] {
        let r = layer(&file_opts(rel)).unwrap();
        assert_eq!(
            imported(&r, "gpu.l1_banks").as_integer(),
            Some(banks),
            "{rel}"
        );
    }
    let mut o = file_opts("QV100/gpgpusim.config");
    o.layer(opts(
        "-gpgpu_l1_banks 8\n-gpgpu_l1_banks_byte_interleaving 32\n\
            -gpgpu_l1_banks_hashing_function 0\n",
        "over.config",
    ));
    assert_eq!(
        imported(&layer(&o).unwrap(), "gpu.l1_banks").as_integer(),
        Some(8)
    );
    for (line, option) in [
        (
            "-gpgpu_l1_banks_byte_interleaving 64\n",
            "gpgpu_l1_banks_byte_interleaving",
        ),
        (
            "-gpgpu_l1_banks_hashing_function 1\n",
            "gpgpu_l1_banks_hashing_function",
        ),
        ("-gpgpu_l1_banks 0\n", "gpgpu_l1_banks"),
    ] {
        let mut bad = file_opts("QV100/gpgpusim.config");
        bad.layer(opts(line, "bad.config"));
        let e = layer(&bad).unwrap_err().to_string();
        assert!(names_option(&e, option, "bad.config", 1), "{e}");
    }
    // Three banks are no power of two: the key's rule refuses it.
    let e = crate::ConfigRequest::preset("turing-rtx2060s")
        .with("gpu.l1_banks=3")
        .resolve()
        .unwrap_err()
        .to_string();
    assert!(e.contains("gpu.l1_banks"), "{e}");
}

/// Whether an import error names the option `-option`, its file and its line (what every import
/// error must do).
fn names_option(err: &str, option: &str, file: &str, line: usize) -> bool {
    err.contains(&format!("-{option}")) && err.contains(&format!("{file} line {line}"))
}

#[test]
fn a_value_that_does_not_fit_names_its_option_and_is_never_saturated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gpgpusim.config");
    let mut text = RTX2060.to_string();
    text.push_str("\n-gpgpu_clock_domains 1365.0:1365.0:1365.0:1e308\n");
    std::fs::write(&path, &text).unwrap();
    let line = text.lines().count();
    let e = crate::ConfigRequest {
        preset: Some("turing-rtx2060s".into()),
        gpgpusim: vec![path.clone()],
        ..Default::default()
    }
    .resolve()
    .unwrap_err()
    .to_string();
    let file = path.display().to_string();
    assert!(names_option(&e, "gpgpu_clock_domains", &file, line), "{e}");
    assert!(e.contains("1e308") && e.contains("dram.clock_mhz"), "{e}");
    assert!(!e.contains(&i64::MAX.to_string()), "saturated: {e}");
    // The message warpsmith gave before names the derived key and a saturated value only: the
    // check refuses it.
    let old =
        "`dram.clock_mhz` = 9223372036854775807 is out of range: legal values are 100..=20000";
    assert!(!names_option(old, "gpgpu_clock_domains", &file, line));
}

mod option_values {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        /// Any value of any numeric field of any option of a real configuration: it imports, or
        /// the error names that option, its file and its line.
        #[test]
        fn any_option_value_imports_or_names_its_option_and_line(
            pick in 0usize..10_000,
            field in 0usize..16,
            value in prop_oneof![
                any::<u64>().prop_map(|v| v.to_string()),
                (0u64..100).prop_map(|v| v.to_string()),
                Just("4294967296".to_string()),
                Just("1e308".to_string()),
                Just("99999999999999999999999".to_string()),
                Just("0.5".to_string()),
                Just("-7".to_string()),
            ],
        ) {
            let lines: Vec<&str> = RTX2060.lines().collect();
            let options: Vec<usize> = lines
                .iter()
                .enumerate()
                .filter(|(_, l)| {
                    l.trim_start().starts_with('-') && l.chars().any(|c| c.is_ascii_digit())
                })
                .map(|(i, _)| i)
                .collect();
            let i = options[pick % options.len()];
            let (name, val) = lines[i].trim().split_once(char::is_whitespace).unwrap();
            let digits: Vec<(usize, usize)> = {
                let b = val.as_bytes();
                let mut v = Vec::new();
                let mut k = 0;
                while k < b.len() {
                    if b[k].is_ascii_digit() {
                        let s = k;
                        while k < b.len() && (b[k].is_ascii_digit() || b[k] == b'.') {
                            k += 1;
                        }
                        v.push((s, k));
                    } else {
                        k += 1;
                    }
                }
                v
            };
            prop_assume!(!digits.is_empty());
            let (s, e) = digits[field % digits.len()];
            let mutated = format!("{name} {}{value}{}", &val[..s], &val[e..]);
            let mut text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            text[i] = mutated;
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("gpgpusim.config");
            std::fs::write(&path, text.join("\n") + "\n").unwrap();
            std::fs::write(
                dir.path().join("config_turing_islip.icnt"),
                include_str!("../tests-data/gpgpusim-configs/RTX2060/config_turing_islip.icnt"),
            )
            .unwrap();
            let r = crate::ConfigRequest {
                preset: Some("turing-rtx2060s".into()),
                gpgpusim: vec![path.clone()],
                ..Default::default()
            }
            .resolve();
            if let Err(err) = r {
                let err = err.to_string();
                let option = name.trim_start_matches('-');
                prop_assert!(
                    names_option(&err, option, &path.display().to_string(), i + 1),
                    "{} -> {}", text[i], err
                );
            }
        }
    }
}

/// `-dram_dual_bus_interface 1` (HBM's row and column command buses) imports
/// `dram.standard = hbm2`, named in the report as coming from that option; without it the
/// standard is kept from the preset and the report says why (decision MEM-26).
#[test]
fn dual_bus_interface_imports_hbm2() {
    let q = layer(&layered(QV100, QV100_TRACE)).unwrap();
    assert_eq!(
        imported(&q, "dram.standard"),
        toml::Value::String("hbm2".into())
    );
    let from = &q
        .imported
        .iter()
        .find(|k| k.key == "dram.standard")
        .unwrap();
    assert!(
        from.from.contains("-dram_dual_bus_interface") && from.from.contains("gpgpusim.config"),
        "{}",
        from.from
    );
    assert!(!q.kept.iter().any(|k| k.starts_with("dram.standard")));
    assert!(
        !q.unmodelled.iter().any(|u| u.contains("dual_bus")),
        "{:?}",
        q.unmodelled
    );
    // Without the option (RTX2060's GDDR6, GTX480's GDDR5): nothing tells the standard.
    for o in [
        layered(RTX2060, RTX2060_TRACE),
        file_opts("GTX480/gpgpusim-4.x/gpgpusim.config"),
    ] {
        let r = layer(&o).unwrap();
        assert!(r.imported.iter().all(|k| k.key != "dram.standard"));
        assert!(r.kept.iter().any(|k| k.starts_with("dram.standard:")));
    }
    // The whole request: the preset's gddr6 becomes hbm2, with the QV100's timing.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data/gpgpusim-configs");
    let s = crate::ConfigRequest {
        preset: Some("turing-rtx2060s".into()),
        gpgpusim: vec![
            dir.join("QV100/gpgpusim.config"),
            dir.join("QV100/trace.config"),
        ],
        ..Default::default()
    }
    .resolve()
    .unwrap();
    assert_eq!(s.dram.standard, crate::DramStandard::Hbm2);
    assert!(s.dram.standard.dual_command_bus());
    assert!(s.set_by_user("dram.standard"));
    let t = &s.dram.timing;
    // -gpgpu_dram_timing_opt of QV100 at 850 MHz; tBL = BL 2 / ratio 2; tRCDWR = RCD - (WL + 1).
    assert_eq!(
        (s.dram.channels, s.dram.atom_bytes, s.dram.clock_mhz),
        (32, 32, 850)
    );
    assert_eq!(
        (t.t_bl, t.t_rcd, t.t_rcdwr, t.t_cl, t.t_cwl, t.t_ccds, t.t_ccdl),
        (1, 12, 9, 12, 2, 1, 2)
    );
    // A later --set names another standard: the import's no longer holds.
    let s = crate::ConfigRequest {
        preset: Some("turing-rtx2060s".into()),
        gpgpusim: vec![
            dir.join("QV100/gpgpusim.config"),
            dir.join("QV100/trace.config"),
        ],
        overrides: vec!["dram.standard=gddr6".into()],
        ..Default::default()
    }
    .resolve()
    .unwrap();
    assert_eq!(s.dram.standard, crate::DramStandard::Gddr6);
}

/// `-gpgpu_adaptive_cache_config 1` imports the storage the L1 shares with shared memory
/// (`-gpgpu_unified_l1d_size`) and its carve-outs (`-gpgpu_shmem_option`, spaces dropped);
/// without it (GPGPU-Sim's default 0) the L1 is the cache string for every kernel (GPU-32).
#[test]
fn import_the_unified_l1_and_its_carveouts() {
    for (rel, kb, carveouts) in [
        ("QV100/gpgpusim.config", 128, Some("0,8,16,32,64,96")),
        ("RTX2060/gpgpusim.config", 96, Some("32,64")),
        ("RTX3070/gpgpusim.config", 128, Some("0,8,16,32,64,100")),
        ("GTX480/gpgpusim-4.x/gpgpusim.config", 0, None),
        ("GTX480/gpgpusim-3.2.2/gpgpusim.config", 0, None),
    ] {
        let r = layer(&file_opts(rel)).unwrap();
        assert_eq!(
            imported(&r, "gpu.unified_l1_kb").as_integer(),
            Some(kb),
            "{rel}"
        );
        let c = r.imported.iter().find(|k| k.key == "gpu.shmem_carveouts");
        assert_eq!(
            c.map(|_| imported(&r, "gpu.shmem_carveouts")),
            carveouts.map(|s| toml::Value::String(s.into())),
            "{rel}"
        );
    }
    let mut o = file_opts("GTX480/gpgpusim-4.x/gpgpusim.config");
    o.layer(opts(
        "-gpgpu_adaptive_cache_config 1\n-gpgpu_shmem_option \"0, 16\"\n",
        "a.config",
    ));
    let r = layer(&o).unwrap();
    assert_eq!(
        imported(&r, "gpu.shmem_carveouts"),
        toml::Value::String("0,16".into())
    );
    assert!(r.kept.iter().any(|m| m.starts_with("gpu.unified_l1_kb")));
    let mut bad = file_opts("GTX480/gpgpusim-4.x/gpgpusim.config");
    bad.layer(opts("-gpgpu_adaptive_cache_config 2\n", "b.config"));
    let e = layer(&bad).unwrap_err().to_string();
    assert!(
        names_option(&e, "gpgpu_adaptive_cache_config", "b.config", 1),
        "{e}"
    );
}

/// `-gpgpu_n_clusters` is also the blocks GPGPU-Sim's `issue_block2core` places a cycle, one a
/// cluster (decision GPU-35).
#[test]
fn import_the_clusters_as_the_blocks_dispatched_a_cycle() {
    for (rel, clusters) in [
        ("QV100/gpgpusim.config", 80),
        ("RTX2060/gpgpusim.config", 30),
        ("GTX480/gpgpusim-4.x/gpgpusim.config", 15),
    ] {
        let r = layer(&file_opts(rel)).unwrap();
        assert_eq!(
            imported(&r, "dispatch.blocks_per_cycle").as_integer(),
            Some(clusters),
            "{rel}"
        );
    }
}

/// Each GPU configuration of `configs/` is its Accel-Sim configuration but for the latencies
/// calibrated on the pointer chase: every key the two GPGPU-Sim files import has the file's
/// value, the calibrated ones the GPGPU-Sim files' (and the file's own differ from them).
#[test]
fn gpu_configurations_are_their_gpgpusim_configurations() {
    let configs =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data/gpgpusim-configs");
    // A resolved configuration's keys, as the TOML it writes.
    let table = |s: &crate::Spec| -> toml::Table { toml::from_str(&s.to_toml()).unwrap() };
    let of = |t: &toml::Table, key: &str| {
        let (section, k) = key.split_once('.').unwrap();
        t[section][k].clone()
    };
    // (file, Accel-Sim's configuration, its values of the first keys of `keys`: those the file
    // calibrates). The RTX 2070's chase has no DRAM figure, so turing-rtx2060 keeps RTX2060's
    // DRAM latency.
    let keys = ["gpu.l1_latency", "l2.rop_latency", "l2.dram_latency"];
    let files: [(&str, &str, &[i64]); 3] = [
        ("volta-v100.toml", "QV100", &[20, 160, 100]),
        ("ampere-rtx3070.toml", "RTX3070", &[39, 187, 254]),
        ("turing-rtx2060.toml", "RTX2060", &[32, 194]),
    ];
    for (file, dir, values) in files {
        let calibrated: Vec<(&str, i64)> = keys.into_iter().zip(values.iter().copied()).collect();
        let dir = configs.join(dir);
        let ours = table(&crate::tests::config_file(file).resolve().unwrap());
        let mut req = crate::ConfigRequest::preset("turing-rtx2060s");
        req.gpgpusim = vec![dir.join("gpgpusim.config"), dir.join("trace.config")];
        let imported = req.resolve().unwrap();
        let report = imported.import_report().unwrap();
        assert!(
            report.imported.len() > 70,
            "{file}: {}",
            report.imported.len()
        );
        let imported = table(&imported);
        for k in &report.imported {
            match calibrated.iter().find(|(key, _)| *key == k.key) {
                Some((_, value)) => {
                    assert_eq!(
                        of(&imported, k.key).as_integer(),
                        Some(*value),
                        "{file}: {}",
                        k.key
                    );
                    assert_ne!(of(&ours, k.key), of(&imported, k.key), "{file}: {}", k.key);
                }
                None => assert_eq!(of(&imported, k.key), of(&ours, k.key), "{file}: {}", k.key),
            }
        }
    }
}
