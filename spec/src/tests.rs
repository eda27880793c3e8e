use super::*;
use std::path::{Path, PathBuf};

#[test]
fn presets_resolve_and_share_one_key_set() {
    let mut key_sets = Vec::new();
    for p in PRESETS {
        let spec = ConfigRequest::preset(p.name).resolve().expect(p.name);
        assert_eq!(spec.name, p.name);
        let table: toml::Table = toml::from_str(p.toml).unwrap();
        key_sets.push(flatten(&table));
    }
    for ks in &key_sets[1..] {
        assert_eq!(ks, &key_sets[0], "presets must set identical keys");
    }
    let schema: Vec<String> = UserConfig::keys()
        .iter()
        .map(|k| k.key.to_string())
        .collect();
    let mut sorted = schema.clone();
    sorted.sort();
    let mut first = key_sets[0].clone();
    first.sort();
    assert_eq!(
        first, sorted,
        "the key table must describe exactly the config keys"
    );
}

fn flatten(t: &toml::Table) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in t {
        match v {
            toml::Value::Table(inner) => {
                out.extend(flatten(inner).into_iter().map(|s| format!("{k}.{s}")))
            }
            _ => out.push(k.clone()),
        }
    }
    out
}

#[test]
fn fermi_matches_seed_000_tables_ii_and_iii() {
    let s = ConfigRequest::preset("fermi-gtx480").resolve().unwrap();
    assert_eq!(
        (s.gpu.sms, s.gpu.warps_per_sm, s.gpu.ctas_per_sm),
        (15, 48, 8)
    );
    assert_eq!(s.ot.entries, 1024);
    assert_eq!(s.ot.threshold, 64);
    assert_eq!(s.ot.addrs_per_entry, 4);
    assert_eq!(s.ot.sets, 1, "the paper's table is fully associative");
    assert_eq!(s.ot.replacement, Replacement::Lru);
}

#[test]
fn overrides_apply_and_change_the_hash() {
    let base = ConfigRequest::preset("tiny").resolve().unwrap();
    let s = ConfigRequest::preset("tiny")
        .with("ot.entries=64")
        .with("ot.replacement=lru")
        .resolve()
        .unwrap();
    assert_eq!(s.ot.entries, 64);
    assert_eq!(s.ot.sets, 16);
    assert_eq!(s.ot.replacement, Replacement::Lru);
    assert_ne!(s.hash, base.hash);
    // Hash is stable for the same config.
    assert_eq!(
        ConfigRequest::preset("tiny").resolve().unwrap().hash,
        base.hash
    );
}

fn err(req: ConfigRequest) -> String {
    req.resolve().unwrap_err().to_string()
}

#[test]
fn bad_values_name_key_value_and_legal_range() {
    let m = err(ConfigRequest::preset("tiny").with("ot.entries=1000"));
    assert!(
        m.contains("ot.entries") && m.contains("1000") && m.contains("power of two"),
        "{m}"
    );
    let m = err(ConfigRequest::preset("tiny").with("ot.ways=0"));
    assert!(m.contains("ot.ways") && m.contains("= 0"), "{m}");
    let m = err(ConfigRequest::preset("tiny").with("ot.addr_bits=65"));
    assert!(
        m.contains("ot.addr_bits") && m.contains("65") && m.contains("8..=64"),
        "{m}"
    );
    let m = err(ConfigRequest::preset("tiny").with("ot.ways=32"));
    assert!(m.contains("ot.ways") && m.contains("ot.entries"), "{m}");
    let m = err(ConfigRequest::preset("tiny").with("ot.mispredict_threshold=7"));
    assert!(
        m.contains("ot.mispredict_threshold") && m.contains("ot.counter_bits"),
        "{m}"
    );
    let m = err(ConfigRequest::preset("tiny").with("ot.replacement=fifo"));
    assert!(
        m.contains("ot.replacement") && m.contains("lru, plru"),
        "{m}"
    );
    let m = err(ConfigRequest::preset("tiny").with("ot.entries=big"));
    assert!(m.contains("ot.entries") && m.contains("integer"), "{m}");
    let m = err(ConfigRequest::preset("tiny").with("ot.entires=4"));
    assert!(
        m.contains("ot.entires") && m.contains("did you mean `ot.entries`"),
        "{m}"
    );
    let m = err(ConfigRequest::preset("tiny").with("ot.entries"));
    assert!(m.contains("KEY=VALUE"), "{m}");
    let m = err(ConfigRequest::preset("tiny")
        .with("ot.pc_bits=1")
        .with("ot.lec_bits=1"));
    assert!(m.contains("ot.pc_bits") && m.contains("only 2 sets"), "{m}");
    let m = err(ConfigRequest::preset("nope"));
    assert!(m.contains("nope") && m.contains("fermi-gtx480"), "{m}");
}

#[test]
fn file_layer_overrides_preset_and_rejects_unknown_keys() {
    let dir = std::env::temp_dir().join(format!("ws-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.toml");
    std::fs::write(&good, "[ot]\nentries = 32\nways = 8\n").unwrap();
    let s = ConfigRequest {
        preset: Some("tiny".into()),
        file: Some(good.clone()),
        overrides: vec!["ot.ways=2".into()],
        ..Default::default()
    }
    .resolve()
    .unwrap();
    assert_eq!(
        (s.ot.entries, s.ot.ways),
        (32, 2),
        "--set wins over the file"
    );
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[ot]\nentrys = 32\n").unwrap();
    let m = err(ConfigRequest {
        preset: None,
        file: Some(bad),
        overrides: vec![],
        ..Default::default()
    });
    assert!(m.contains("ot.entrys"), "{m}");
    let broken = dir.join("broken.toml");
    std::fs::write(&broken, "[ot\n").unwrap();
    let m = err(ConfigRequest {
        preset: None,
        file: Some(broken),
        overrides: vec![],
        ..Default::default()
    });
    assert!(m.contains("not valid TOML"), "{m}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn emitted_config_round_trips() {
    let s = ConfigRequest::preset("tiny")
        .with("ot.stride_bits=33")
        .resolve()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("ws-emit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("r.toml");
    std::fs::write(&f, s.to_toml()).unwrap();
    let back = ConfigRequest {
        preset: Some("fermi-gtx480".into()),
        file: Some(f),
        overrides: vec![],
        ..Default::default()
    }
    .resolve()
    .unwrap();
    assert_eq!(back.config, s.config);
    assert_eq!(back.hash, s.hash);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn clog2_matches_systemverilog() {
    assert_eq!(
        [0, 1, 2, 3, 4, 5, 1024, 1025].map(clog2),
        [0, 0, 1, 2, 2, 3, 10, 11]
    );
}

#[test]
fn preset_hashes_are_those_of_earlier_releases() {
    // The canonical TOML (and so every config hash, RTL header and reproducer name) must not
    // change when the schema's Rust shape does (the DRAM timing is a flattened section). They
    // change when keys are added or a preset's value changes: last with the locality-aware warp
    // scheduler's section and CCWS's keys (`lws.*`, `dispatch.region_bits` and
    // `dispatch.subregion_bits` moved into it, `gpu.ccws_*`; before: a3298b9cc8027691,
    // 636532ded5eddd1f, 62d7e73b0c6465b0), before that with the programmable scheduler's group
    // (`gpu.priority_warps`; before: cc29598a2af8856f, 15fcab0c23eb07a5, fbac1f0aba26b3ea),
    // before that with the address
    // predictor's keys (`predictor.*`, `ot.lec`; before: 0bd5ed7c59a30ab6, f39d03d27e93cebf,
    // f05ccb71b90c990c), before that with the GHB prefetcher's
    // keys (`prefetch.ghb_*`; before: b5e7a486e2e55242, 185a349f8edc606a, 5c49b987f5f88d80),
    // before that with the Stream prefetcher's keys (`prefetch.stream_entries`,
    // `prefetch.stream_window`; before: 91fa5e45e237e434, 11cf652c62d88b19, fcefd60f49eda572),
    // before that with the DRAM's currents
    // (`dram.vdd_mv`, `dram.devices`, `dram.idd*_ma`; before: 42bccdf6dc9c5fd4, 3115c6346268c521,
    // 52e01e7c128572fd), before that with the blocks dispatched
    // a cycle (`dispatch.blocks_per_cycle`; before: 728f624668893848, a80106eb981e404d,
    // 60e67358567a1060), before that with the L1's banks
    // (`gpu.l1_banks`; before: ed1055c8676e8ad6, 5f1d9dd944092e82, db7cb61c3c32e343), before
    // that with the L1's share of the
    // storage it shares with shared memory (`gpu.unified_l1_kb`, `gpu.shmem_carveouts`; before:
    // f4cd113456c9e125, a76087a7ee4895ac, bf633cfe4d052ab4), before that with the kernel launch
    // latency and the L2 fill of host copies (`gpu.kernel_launch_latency`, `l2.fill_on_copy`;
    // before: fbc12ac808fc846d, 7c265a81b2f115ab, 4bada7d8eb37d244), before that with the idle
    // SMs' L1 invalidation (`gpu.flush_l1`; before: 060449f4abb23c49, a56b7390ce72be94,
    // 463843542c61fed2), before that with the two-level warp
    // scheduler's active set (`gpu.active_warps`; before: e48cae9663c6d493, d723e6329b1a0b4e,
    // 23c8cd14cee22ae1), before that with the execution units'
    // keys (`gpu.<class>_latency`, `gpu.<class>_initiation`; before: 27b5ea0bfd311de7,
    // d8300184b85f97a4, 03abeadb34210087), before that with the SM's occupancy
    // keys (`gpu.registers`, `gpu.shmem_bytes`; before: f2957fd62188cd45, 255c5e53b5123c2f,
    // bebbb63595ac8b10), before that with the interconnect's internal speedup (`icnt.speedup`) and
    // fermi-gtx480's GPGPU-Sim 4.x network (before:
    // c7351e8b451ac494, 9d7e79caf7d8a728, dcbecd293c23aed0), before that when the presets took
    // Table II's demand priority (`prefetch.demand_first = true`; before: e1797eeea5b516b6,
    // a14eb94d29619856, 2c286920af1ef725), before that with the prefetcher's keys
    // (`prefetch.*`, issue 16; before: 732a6251aad8d4b1, 43af7ba48c9adf59, 1d05bbabeca94d83),
    // before that with the SM's keys
    // (`gpu.l1_cache` ... of issue 14; before: ddebf28fe3e37a51, 88741691bc14b3ea,
    // d927e98ca6ce635d), and before that with
    // `dram.partition_indexing` (6357b84df1b4b1ba, 89b8e9719a5c4d91, 8458526dfec6c6f3) and the
    // memory partitions, interconnect and clock domains of issue 13 (8d3c348ddc952f94,
    // 5b831cf4d18acb2f, c8a06d8822da4d42).
    for (name, hash) in [
        ("fermi-gtx480", "a38b5938c60f8650"),
        ("turing-rtx2060s", "fb303b7cf74785ac"),
        ("tiny", "a65f5ffdde6099ea"),
    ] {
        let s = ConfigRequest::preset(name).resolve().unwrap();
        assert_eq!(s.hash.0, hash, "{name}");
    }
}

/// The value of an override for `key` at `v`.
fn set(key: &str, v: impl std::fmt::Display) -> ConfigRequest {
    ConfigRequest::preset("tiny").with(&format!("{key}={v}"))
}

/// The error of resolving, if any, as (is it about the range or type of `key`, message).
fn range_error(req: ConfigRequest, key: &str) -> Option<String> {
    match req.resolve() {
        Err(
            e @ (SpecError::OutOfRange { .. }
            | SpecError::NotInSet { .. }
            | SpecError::WrongType { .. }),
        ) => {
            let m = e.to_string();
            assert!(m.contains(key), "the message names the key: {m}");
            Some(m)
        }
        _ => None,
    }
}

#[test]
fn every_key_accepts_its_bounds_and_refuses_one_past_each() {
    // What `describe` prints (the schema's Legal) is exactly what validation enforces: both
    // bounds pass the range check (a rule between keys may still refuse them), one past each
    // fails it, naming the key and the legal range.
    let mut checked = 0;
    for k in UserConfig::keys() {
        match k.legal {
            schema::Legal::Range { min, max } | schema::Legal::Pow2 { min, max } => {
                for v in [min, max] {
                    assert_eq!(range_error(set(k.key, v), k.key), None, "{} = {v}", k.key);
                }
                if min > 0 {
                    let m = range_error(set(k.key, min - 1), k.key)
                        .unwrap_or_else(|| panic!("{} = {} passed", k.key, min - 1));
                    assert!(m.contains(&k.legal.to_string()), "{m}");
                }
                let m = range_error(set(k.key, max + 1), k.key)
                    .unwrap_or_else(|| panic!("{} = {} passed", k.key, max + 1));
                assert!(m.contains(&k.legal.to_string()), "{m}");
                // Far past the bound, beyond 32 bits and beyond 64: still the range message.
                for huge in ["4294967296", "18446744073709551616", "-1"] {
                    assert!(
                        range_error(set(k.key, huge), k.key).is_some(),
                        "{} = {huge}",
                        k.key
                    );
                }
                if let schema::Legal::Pow2 { .. } = k.legal {
                    if max >= 4 {
                        assert!(range_error(set(k.key, 3), k.key).is_some(), "{} = 3", k.key);
                    }
                }
                checked += 1;
            }
            schema::Legal::OneOf(words) => {
                for w in words {
                    assert_eq!(range_error(set(k.key, w), k.key), None, "{} = {w}", k.key);
                }
                let m = range_error(set(k.key, "nonsense"), k.key).unwrap();
                assert!(m.contains(&k.legal.to_string()), "{m}");
                assert!(!m.contains("not a word"), "{m}");
                checked += 1;
            }
            schema::Legal::Bool => {
                assert!(range_error(set(k.key, "maybe"), k.key).is_some());
                checked += 1;
            }
            schema::Legal::Text => {
                assert!(range_error(set(k.key, 5), k.key).is_some());
                checked += 1;
            }
        }
    }
    assert_eq!(checked, UserConfig::keys().len());
}

#[test]
fn rules_the_dram_model_needs_are_validated() {
    let rule = |req: ConfigRequest, words: &[&str]| {
        let m = req.resolve().unwrap_err().to_string();
        for w in words {
            assert!(m.contains(w), "{w} in {m}");
        }
    };
    // A same-bank-group ACT distance above the same-bank one.
    rule(
        ConfigRequest::preset("tiny")
            .with("dram.t_ras=5")
            .with("dram.t_rp=5")
            .with("dram.t_rc=10")
            .with("dram.t_rrds=20")
            .with("dram.t_rrdl=20"),
        &["dram.t_rrdl", "dram.t_rc"],
    );
    // No room between two refreshes for an activate and a column command.
    rule(
        ConfigRequest::preset("tiny")
            .with("dram.t_rfc=100")
            .with("dram.t_refi=103"),
        &["dram.t_refi", "no room", "dram.refresh = false"],
    );
    // ... which refresh off makes legal.
    ConfigRequest::preset("tiny")
        .with("dram.t_rfc=100")
        .with("dram.t_refi=110")
        .with("dram.refresh=false")
        .resolve()
        .unwrap();
    rule(
        ConfigRequest::preset("tiny").with("dram.t_cwl=0"),
        &["dram.t_cwl", "1..=1000"],
    );
}

#[test]
fn a_spec_is_changed_only_by_a_new_layer() {
    let base = ConfigRequest::preset("turing-rtx2060s").resolve().unwrap();
    let v = base.variant(&["mc.scheduler=warped"]).unwrap();
    assert_eq!(v.mc.scheduler, Scheduler::Warped);
    assert_eq!(
        base.mc.scheduler,
        Scheduler::Frfcfs,
        "the original is untouched"
    );
    assert_ne!(
        v.hash, base.hash,
        "the variant's hash describes the variant"
    );
    assert_eq!(v.name, "turing-rtx2060s+set");
    assert!(v.set_by_user("mc.scheduler") && !base.set_by_user("mc.scheduler"));
    // The variant equals the same configuration resolved from its layers.
    let direct = ConfigRequest::preset("turing-rtx2060s")
        .with("mc.scheduler=warped")
        .resolve()
        .unwrap();
    assert_eq!(
        (direct.hash.clone(), direct.config.clone()),
        (v.hash.clone(), v.config.clone())
    );
    // A variant is validated like any layer.
    assert!(base.variant(&["gpu.sms=0"]).is_err());
}

#[test]
fn toml_errors_name_line_and_column_and_spot_gpgpusim_files() {
    let dir = std::env::temp_dir().join(format!("ws-toml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[ot]\nentries = 32\nways = = 4\n").unwrap();
    let e = ConfigRequest {
        file: Some(bad.clone()),
        ..Default::default()
    }
    .resolve()
    .unwrap_err();
    match &e {
        SpecError::Toml { line, column, .. } => assert_eq!((*line, *column), (3, 8), "{e}"),
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("bad.toml:3:8"), "{e}");
    let g = dir.join("gpgpusim.config");
    std::fs::write(&g, "# a GPGPU-Sim file\n-gpgpu_n_mem 6\n").unwrap();
    let m = ConfigRequest {
        file: Some(g),
        ..Default::default()
    }
    .resolve()
    .unwrap_err()
    .to_string();
    assert!(m.contains("--gpgpusim-config"), "{m}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The reference configurations (copies of ../shared/reference/gpgpusim-configs).
fn reference_configs() -> Vec<(&'static str, Vec<PathBuf>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data/gpgpusim-configs");
    let one = |d: &str| vec![root.join(d).join("gpgpusim.config")];
    let two = |d: &str| {
        vec![
            root.join(d).join("gpgpusim.config"),
            root.join(d).join("trace.config"),
        ]
    };
    vec![
        ("GTX480/gpgpusim-3.2.2", one("GTX480/gpgpusim-3.2.2")),
        ("GTX480/gpgpusim-4.x", one("GTX480/gpgpusim-4.x")),
        ("QV100", two("QV100")),
        ("RTX2060", two("RTX2060")),
        ("RTX3070", two("RTX3070")),
    ]
}

#[test]
fn every_reference_gpgpusim_config_imports_as_a_layer() {
    for (name, files) in reference_configs() {
        let s = ConfigRequest {
            preset: Some("turing-rtx2060s".into()),
            gpgpusim: files,
            ..Default::default()
        }
        .resolve()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = s.import_report().unwrap();
        assert!(r.imported.len() >= 30, "{name}: {} keys", r.imported.len());
        assert!(
            !r.ignored.is_empty(),
            "{name}: the files hold options no key takes"
        );
        for k in &r.imported {
            assert!(s.set_by_user(k.key), "{name}: {}", k.key);
            assert!(
                k.from.contains(" line ") || k.from.contains("default"),
                "{}",
                k.from
            );
        }
        assert!(s.name.contains("+gpgpusim:"), "{}", s.name);
    }
    // GTX480 (4.x): the values of notes §1.5.
    let s = ConfigRequest {
        preset: Some("tiny".into()),
        gpgpusim: reference_configs()[1].1.clone(),
        ..Default::default()
    }
    .resolve()
    .unwrap();
    assert_eq!(
        (s.gpu.sms, s.gpu.warps_per_sm, s.gpu.ctas_per_sm),
        (15, 48, 8)
    );
    // Occupancy (-gpgpu_shader_registers, -gpgpu_shmem_size) and the .icnt's internal speedup.
    assert_eq!((s.gpu.registers, s.gpu.shmem_bytes), (32768, 49152));
    assert_eq!((s.icnt.flit_bytes, s.icnt.speedup), (40, 2));
    assert_eq!(
        (s.dram.channels, s.dram.banks, s.dram.atom_bytes),
        (6, 16, 64)
    );
    let t = &s.dram.timing;
    assert_eq!(
        (t.t_rcd, t.t_rcdwr, t.t_ras, t.t_rp, t.t_rc),
        (12, 7, 28, 12, 40)
    );
    assert_eq!((t.t_cl, t.t_cwl, t.t_bl, t.t_wr), (12, 4, 2, 12));
    // The layer below a TOML file and --set.
    let s = ConfigRequest {
        preset: Some("tiny".into()),
        gpgpusim: reference_configs()[1].1.clone(),
        overrides: vec!["dram.t_rcd=13".into()],
        ..Default::default()
    }
    .resolve()
    .unwrap();
    assert_eq!(s.dram.timing.t_rcd, 13);
}

#[test]
fn l2_cache_string_is_checked_when_the_spec_is_built() {
    let err = |v: &str| {
        ConfigRequest::preset("tiny")
            .with(&format!("l2.cache={v}"))
            .resolve()
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    assert!(err("\"S:8:128\"").contains("`l2.cache`: cache string `S:8:128`"));
    assert!(err("\"none\"").contains("the memory partitions need an L2 slice"));
    assert!(err("\"S:8:128:4,L:B:m:L:L,A:4:2,1:0,32\"").contains("a miss queue of 1"));
    let s = ConfigRequest::preset("turing-rtx2060s").resolve().unwrap();
    assert_eq!(s.l2.cache.size_bytes(), 128 * 1024);
    assert_eq!(
        (s.l2.fetch_bytes(), s.l2.rop_latency, s.l2.icnt_to_l2),
        (32, 194, 64)
    );
    assert_eq!(s.clocks.dram_khz, 3_500_000);
    let f = ConfigRequest::preset("fermi-gtx480").resolve().unwrap();
    assert_eq!(
        (f.l2.fetch_bytes(), f.l2.cache.size_bytes()),
        (128, 64 * 1024)
    );
}

#[test]
fn a_kernels_l1_is_what_its_carveout_leaves_of_the_unified_storage() {
    // QV100: 32 KB of 4 sets in 128 KB: 256 ways at most.
    let v = volta().resolve().unwrap();
    let u = v.gpu.unified_l1.as_ref().unwrap();
    assert_eq!((u.bytes, u.max_ways), (131072, 256));
    for (shmem, ways) in [
        (0, 256),
        (1, 240),
        (8192, 240),
        (8193, 224),
        (32768, 192),
        (65536, 128),
        (65537, 64),
        (98304, 64),
        // (Above every carve-out: the largest; the occupancy never asks for more.)
        (1 << 20, 64),
    ] {
        assert_eq!(u.l1_ways(shmem), ways, "{shmem}");
    }
    let with = |sets: &[&str]| {
        let mut r = ConfigRequest::preset("tiny");
        for s in sets {
            r = r.with(s);
        }
        r.resolve()
    };
    // RTX2060's: 32 KB in 96 KB (192 ways), carve-outs of 32 and 64 KB.
    let t = with(&[
        "gpu.l1_cache=S:4:128:64,L:T:m:L:L,A:256:32,16:0,32",
        "gpu.unified_l1_kb=96",
        "gpu.shmem_carveouts=32,64",
    ])
    .unwrap();
    let u = t.gpu.unified_l1.as_ref().unwrap();
    assert_eq!((u.l1_ways(0), u.l1_ways(40000)), (128, 64));
    // Ways of 2 KB (16 sets) in 8 KB: a 1 KB carve-out leaves 3.5 ways, rounded up to 4, as
    // GPGPU-Sim's `max_assoc * ratio + 0.5`; 3 KB leaves 2.5: 3.
    let h = with(&[
        "gpu.l1_cache=S:16:128:2,L:T:m:L:L,A:16:4,4:0,32",
        "gpu.unified_l1_kb=8",
        "gpu.shmem_carveouts=0,1,3",
        "gpu.shmem_bytes=3072",
    ])
    .unwrap();
    let u = h.gpu.unified_l1.as_ref().unwrap();
    assert_eq!((u.l1_ways(0), u.l1_ways(1024), u.l1_ways(1025)), (4, 4, 3));
    // Off, there is none; and the bad forms are refused, naming the key.
    assert!(ConfigRequest::preset("tiny")
        .resolve()
        .unwrap()
        .gpu
        .unified_l1
        .is_none());
    for (sets, says) in [
        (&["gpu.unified_l1_kb=3"][..], "gpu.unified_l1_kb = 3"),
        (
            &["gpu.unified_l1_kb=8", "gpu.shmem_carveouts=0,x"],
            "not a whole number",
        ),
        (
            &["gpu.unified_l1_kb=8", "gpu.shmem_carveouts=4,2"],
            "must increase",
        ),
        (
            &["gpu.unified_l1_kb=8", "gpu.shmem_carveouts=0,8"],
            "leaves no L1",
        ),
        (
            &["gpu.unified_l1_kb=8", "gpu.shmem_bytes=2048"],
            "below gpu.shmem_bytes",
        ),
        // Without carve-outs (as the presets without a unified L1 have): the key set is named.
        (
            &["gpu.unified_l1_kb=8", "gpu.shmem_carveouts="],
            "gpu.unified_l1_kb = 8 makes",
        ),
    ] {
        let mut all = vec!["gpu.shmem_bytes=1024", "gpu.shmem_carveouts=0,1"];
        all.extend_from_slice(sets);
        let e = with(&all).unwrap_err().to_string();
        assert!(e.contains(says) && e.contains("gpu."), "{sets:?}: {e}");
    }
}

/// The V100 configuration (`configs/volta-v100.toml`, every key set) on a preset it replaces.
pub(crate) fn volta() -> ConfigRequest {
    config_file("volta-v100.toml")
}

/// A GPU configuration of `configs/` (every key set) on a preset it replaces.
pub(crate) fn config_file(name: &str) -> ConfigRequest {
    let mut r = ConfigRequest::preset("tiny");
    r.file = Some(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../configs")
            .join(name),
    );
    r
}
