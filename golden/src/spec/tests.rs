use super::*;

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
    let schema: Vec<String> = keys::KEYS.iter().map(|k| k.key.to_string()).collect();
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
    });
    assert!(m.contains("ot.entrys"), "{m}");
    let broken = dir.join("broken.toml");
    std::fs::write(&broken, "[ot\n").unwrap();
    let m = err(ConfigRequest {
        preset: None,
        file: Some(broken),
        overrides: vec![],
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
