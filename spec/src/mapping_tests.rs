//! Tests of the GPGPU-Sim address mapping. The mapping strings come straight out of the real
//! configuration files (byte-identical copies in `spec/tests-data/gpgpusim-configs/`); the
//! expected masks and decodes are the worked examples of the reference notes (§1.6).

use std::collections::HashSet;

use proptest::prelude::*;

use super::*;
use crate::gpgpusim::GpgpusimOptions;

pub(crate) const GTX480_322: &str =
    include_str!("../tests-data/gpgpusim-configs/GTX480/gpgpusim-3.2.2/gpgpusim.config");
pub(crate) const GTX480_4X: &str =
    include_str!("../tests-data/gpgpusim-configs/GTX480/gpgpusim-4.x/gpgpusim.config");
pub(crate) const RTX2060: &str =
    include_str!("../tests-data/gpgpusim-configs/RTX2060/gpgpusim.config");
pub(crate) const RTX2060_TRACE: &str =
    include_str!("../tests-data/gpgpusim-configs/RTX2060/trace.config");
pub(crate) const QV100: &str = include_str!("../tests-data/gpgpusim-configs/QV100/gpgpusim.config");
pub(crate) const QV100_TRACE: &str =
    include_str!("../tests-data/gpgpusim-configs/QV100/trace.config");
pub(crate) const RTX3070: &str =
    include_str!("../tests-data/gpgpusim-configs/RTX3070/gpgpusim.config");
pub(crate) const RTX3070_TRACE: &str =
    include_str!("../tests-data/gpgpusim-configs/RTX3070/trace.config");

const GTX480_MAPPING: &str =
    "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS";

/// The address map of a config file, with its own channel and sub-partition counts.
fn map_of(config: &str, name: &str) -> AddressMap {
    let opts = GpgpusimOptions::parse(config, name).expect("config parses");
    let get = |o: &str| opts.get(o).unwrap_or_else(|| panic!("{name} sets {o}"));
    let channels = get("-gpgpu_n_mem").parse().expect("channel count");
    let subs = get("-gpgpu_n_sub_partition_per_mchannel")
        .parse()
        .expect("sub-partition count");
    AddressMap::parse_gpgpusim(get("-gpgpu_mem_addr_mapping"), channels, subs)
        .expect("mapping parses")
}

/// Mask with the listed bits set.
fn bits(list: &[u32]) -> u64 {
    list.iter().fold(0, |m, b| m | 1u64 << b)
}

/// Mask of bits `lo..=hi`.
fn range(lo: u32, hi: u32) -> u64 {
    (lo..=hi).fold(0, |m, b| m | 1u64 << b)
}

#[test]
fn gtx480_masks_and_worked_decodes() {
    for (config, name) in [(GTX480_322, "GTX480 3.2.2"), (GTX480_4X, "GTX480 4.x")] {
        let map = map_of(config, name);
        assert_eq!(
            map,
            AddressMap::parse_gpgpusim(GTX480_MAPPING, 6, 2).unwrap()
        );
        assert_eq!(map.channels(), 6);
        assert_eq!(map.channel_select(), ChannelSelect::Modulo { start: 8 });
        let m = map.masks();
        assert_eq!(m.row, range(16, 27), "{name} ROW");
        assert_eq!(m.bank, bits(&[8, 13, 14, 15]), "{name} BANK");
        assert_eq!(m.col, range(0, 7) | range(9, 12), "{name} COL");
        assert_eq!(m.burst, range(0, 5), "{name} BURST");
        assert_eq!(m.chip, 0, "modulo path has no chip mask");
        assert_eq!((map.banks(), map.rows(), map.columns()), (16, 4096, 4096));
        assert_eq!(map.burst_bytes(), 64);
        assert_eq!(map.sub_partitions(), 12);

        let d = map.decode(0x100);
        assert_eq!((d.channel, d.sub_partition), (1, 2), "{name} 0x100");
        let d = map.decode(0x1000);
        assert_eq!((d.channel, d.col), (4, 256), "{name} 0x1000");
        let d = map.decode(0x1234_5678);
        assert_eq!(
            d,
            Decoded {
                channel: 0,
                bank: 11,
                row: 776,
                col: 3192,
                burst: 0x38,
                sub_partition: 1
            },
            "{name} 0x12345678"
        );
        // The burst is the low 6 bits; bit 8 (the lowest bank bit) picks the sub-partition.
        assert_eq!(map.decode(0x3f).burst, 63);
    }
}

#[test]
fn gtx480_256_byte_chunks_rotate_over_six_channels() {
    let map = AddressMap::parse_gpgpusim(GTX480_MAPPING, 6, 2).unwrap();
    for chunk in 0..600u64 {
        let d = map.decode(chunk << 8 | 0x42);
        assert_eq!(u64::from(d.channel), chunk % 6);
        assert_eq!(d.burst, 0x02);
    }
}

#[test]
fn rtx2060_modulo_path_from_config() {
    let map = map_of(RTX2060, "RTX2060");
    assert_eq!(map.channels(), 12);
    assert_eq!(map.channel_select(), ChannelSelect::Modulo { start: 8 });
    let m = map.masks();
    assert_eq!(m.row, range(15, 27));
    assert_eq!(m.bank, bits(&[7, 12, 13, 14]));
    assert_eq!(m.col, range(0, 6) | range(8, 11));
    assert_eq!(m.burst, range(0, 4));
    assert_eq!((map.banks(), map.rows(), map.columns()), (16, 8192, 2048));
    assert_eq!(map.burst_bytes(), 32);
    // 256 B chunks over 12 channels; bit 7 is the lowest bank bit and picks the sub-partition.
    let d = map.decode(0x180);
    assert_eq!((d.channel, d.bank, d.sub_partition), (1, 1, 3));
    // chunk 12 wraps to channel 0 with rest = 1 << 8 (column bit 8 = column index 7).
    let d = map.decode(12 << 8);
    assert_eq!((d.channel, d.col, d.bank, d.row), (0, 1 << 7, 0, 0));
    for chunk in 0..1000u64 {
        assert_eq!(u64::from(map.decode(chunk << 8).channel), chunk % 12);
    }
}

#[test]
fn rtx3070_inserts_four_channel_bits_at_bit_8() {
    let map = map_of(RTX3070, "RTX3070");
    assert_eq!(map.channels(), 16);
    assert_eq!(
        map.channel_select(),
        ChannelSelect::Inserted { start: 8, bits: 4 }
    );
    let m = map.masks();
    assert_eq!(m.bank, 0x70080);
    assert_eq!(m.row, 0xfff8_0000);
    assert_eq!(m.col, 0xf07f);
    assert_eq!(m.chip, 0xf00);
    assert_eq!(m.burst, 0x1f);
    assert_eq!((map.banks(), map.rows(), map.columns()), (16, 8192, 2048));
    let d = map.decode(0x0000_0580);
    assert_eq!((d.channel, d.bank, d.sub_partition), (5, 1, 11));
    let d = map.decode(0x8000_f000 | 0x1f);
    assert_eq!(
        (d.channel, d.row, d.col, d.burst),
        (0, 1 << 12, 0xf << 7 | 0x1f, 0x1f)
    );
}

#[test]
fn qv100_inserts_five_channel_bits_at_bit_8() {
    let map = map_of(QV100, "QV100");
    assert_eq!(map.channels(), 32);
    assert_eq!(
        map.channel_select(),
        ChannelSelect::Inserted { start: 8, bits: 5 }
    );
    let m = map.masks();
    assert_eq!(m.chip, range(8, 12));
    assert_eq!(m.bank, bits(&[13, 17, 18, 19]));
    assert_eq!(m.col, range(0, 7) | range(14, 16));
    assert_eq!(m.row, range(20, 32));
    assert_eq!(m.burst, range(0, 4));
    let d = map.decode(31 << 8 | 1 << 13 | 1 << 32);
    assert_eq!(
        (d.channel, d.bank, d.row, d.sub_partition),
        (31, 1, 1 << 12, 63)
    );
}

#[test]
fn explicit_d_symbols_and_single_channel() {
    // 4 channels from two explicit D bits at 8-9 (bit 9 most significant).
    let text = format!("{}RRRRBBDD.CCSSSSSS", "0".repeat(48));
    let map = AddressMap::parse_gpgpusim(&text, 4, 2).unwrap();
    assert_eq!(map.channel_select(), ChannelSelect::Explicit);
    assert_eq!(map.masks().chip, 0x300);
    assert_eq!(map.masks().col, 0xff);
    let d = map.decode(0b1011_1001_1100_0001);
    assert_eq!(
        (d.channel, d.bank, d.row, d.col, d.burst),
        (1, 2, 0b1011, 0xc1, 1)
    );
    assert_eq!(d.sub_partition, 2);
    assert_eq!(map.encode(&d), Some(0b1011_1001_1100_0001));

    // One channel: neither dramid@ nor D needed; with dramid@ zero bits are inserted.
    let text = format!("{}RRRRBBCC.CCSSSSSS", "0".repeat(48));
    let plain = AddressMap::parse_gpgpusim(&text, 1, 1).unwrap();
    let with_id = AddressMap::parse_gpgpusim(&format!("dramid@5;{text}"), 1, 1).unwrap();
    assert_eq!(plain.masks(), with_id.masks());
    assert_eq!(plain.decode(0xffff).channel, 0);
    assert_eq!(plain.decode(0xffff), with_id.decode(0xffff));
}

#[test]
fn syntax_is_case_insensitive_and_ignores_separators() {
    let lower = GTX480_MAPPING.to_ascii_lowercase();
    let spaced = GTX480_MAPPING.replace('.', " | ");
    let a = AddressMap::parse_gpgpusim(GTX480_MAPPING, 6, 2).unwrap();
    assert_eq!(AddressMap::parse_gpgpusim(&lower, 6, 2).unwrap(), a);
    assert_eq!(AddressMap::parse_gpgpusim(&spaced, 6, 2).unwrap(), a);
    assert_eq!(
        AddressMap::parse_gpgpusim(&format!("  DRAMID@8 ;{}", &GTX480_MAPPING[9..]), 6, 2).unwrap(),
        a
    );
}

#[test]
fn bank_xor_hashes_the_bank_with_the_row_but_not_the_sub_partition() {
    let plain = AddressMap::parse_gpgpusim(GTX480_MAPPING, 6, 2).unwrap();
    let xor = plain.clone().with_bank_xor(true);
    assert!(xor.bank_xor() && !plain.bank_xor());
    for addr in [0x1234_5678u64, 0x0, 0xdead_beef, 0x0fff_ffff] {
        let p = plain.decode(addr);
        let x = xor.decode(addr);
        assert_eq!(x.bank, p.bank ^ (p.row as u32 & 15), "{addr:#x}");
        assert_eq!(x.sub_partition, p.sub_partition);
        assert_eq!((x.row, x.col, x.channel), (p.row, p.col, p.channel));
        assert_eq!(xor.encode(&x), plain.encode(&p));
    }
    // 0x12345678: bank 11, row 776 = 0x308 -> 11 ^ 8 = 3.
    assert_eq!(xor.decode(0x1234_5678).bank, 3);
}

/// GPGPU-Sim's `-gpgpu_mem_addr_test` idea: over 16 MB no two 32 B atoms alias.
#[test]
fn rtx3070_no_aliasing_over_16_mb() {
    let map = map_of(RTX3070, "RTX3070");
    let mut seen = HashSet::with_capacity(1 << 19);
    for addr in (0..16u64 << 20).step_by(32) {
        let d = map.decode(addr);
        assert_eq!(d.burst, 0);
        assert!(
            seen.insert((d.channel, d.bank, d.row, d.col)),
            "{addr:#x} aliases"
        );
        assert_eq!(map.encode(&d), Some(addr));
    }
}

#[test]
fn gtx480_no_aliasing_over_16_mb() {
    let map = AddressMap::parse_gpgpusim(GTX480_MAPPING, 6, 2).unwrap();
    let mut seen = HashSet::with_capacity(1 << 18);
    for addr in (0..16u64 << 20).step_by(64) {
        let d = map.decode(addr);
        assert!(
            seen.insert((d.channel, d.bank, d.row, d.col)),
            "{addr:#x} aliases"
        );
        assert_eq!(map.encode(&d), Some(addr));
    }
}

#[test]
fn uncovered_bits_are_dropped() {
    let map = map_of(RTX3070, "RTX3070");
    let covered = map.covered_mask();
    assert_eq!(covered, 0xffff_ffff);
    let a = 0x1234_5678u64;
    let b = a | 0x7f58_0000_0000_0000;
    assert_eq!(map.decode(a), map.decode(b));
    assert_eq!(map.encode(&map.decode(b)), Some(a));
}

#[test]
fn encode_rejects_out_of_range_fields() {
    let map = map_of(RTX3070, "RTX3070");
    let ok = map.decode(0x1234_5678);
    assert!(map.encode(&ok).is_some());
    for bad in [
        Decoded { channel: 16, ..ok },
        Decoded { bank: 16, ..ok },
        Decoded { row: 8192, ..ok },
        Decoded { col: 2048, ..ok },
    ] {
        assert_eq!(map.encode(&bad), None, "{bad:?}");
    }
}

fn err(text: &str, channels: u32, subs: u32) -> MappingError {
    match AddressMap::parse_gpgpusim(text, channels, subs) {
        Ok(map) => panic!("`{text}` parsed: {map:?}"),
        Err(e) => e,
    }
}

#[test]
fn malformed_strings_give_errors() {
    let body = &GTX480_MAPPING[9..];
    let short = body.replacen('0', "", 1);
    assert_eq!(
        err(&format!("dramid@8;{short}"), 6, 2),
        MappingError::SymbolCount { count: 63 }
    );
    assert_eq!(
        err(&format!("dramid@8;0{body}"), 6, 2),
        MappingError::SymbolCount { count: 65 }
    );
    assert_eq!(
        err(&format!("dramid@8;{body}").replacen('R', "X", 1), 6, 2),
        MappingError::UnknownSymbol {
            symbol: 'X',
            position: 50
        }
    );
    let e = err(&format!("dramid@8;{}", body.replacen('0', "x", 1)), 6, 2).to_string();
    assert_eq!(
        e.split(';').next().unwrap(),
        "unknown symbol `x` at position 10",
        "{e}"
    );
    let with_d = format!("dramid@8;{}", body.replacen('0', "D", 1));
    assert_eq!(
        err(&with_d, 8, 2),
        MappingError::DWithDramid { position: 10 }
    );
    assert_eq!(
        err(&with_d, 8, 2).to_string(),
        "`D` symbols cannot be combined with dramid@ (the first `D` is at position 10); use one \
            or the other"
    );
    let d_body = format!("{}DRRRRBBC.CCSSSSSS", "0".repeat(48));
    assert_eq!(
        err(&d_body, 6, 2),
        MappingError::DNeedsPowerOfTwo { channels: 6 }
    );
    assert!(err(&d_body, 6, 2)
        .to_string()
        .starts_with("`D` needs a power-of-two channel count, got 6"));
    assert_eq!(
        err(&d_body, 4, 2),
        MappingError::DCount {
            channels: 4,
            needed: 2,
            given: 1
        }
    );
    assert_eq!(
        err(body, 8, 1),
        MappingError::DCount {
            channels: 8,
            needed: 3,
            given: 0
        }
    );
    let no_bank = GTX480_MAPPING.replace('B', "C");
    assert_eq!(err(&no_bank, 6, 2), MappingError::NoBankBits);
    assert_eq!(
        err(&no_bank, 6, 2).to_string(),
        "no bank bits: the mapping string needs at least one `B` symbol"
    );
    assert_eq!(
        err(&format!("dramid@8;dramid@9;{body}"), 6, 2),
        MappingError::DuplicateDramid { position: 10 }
    );
    assert_eq!(
        err(&format!("dramid@64;{body}"), 6, 2),
        MappingError::DramidOutOfRange {
            position: 64,
            channel_bits: 0,
            max: 63
        }
    );
    assert_eq!(
        err(&format!("dramid@61;{body}"), 16, 2),
        MappingError::DramidOutOfRange {
            position: 61,
            channel_bits: 4,
            max: 60
        }
    );
    assert_eq!(
        err(&format!("dramid@99999999999999999999999;{body}"), 6, 2),
        MappingError::DramidOutOfRange {
            position: u64::MAX,
            channel_bits: 0,
            max: 63
        }
    );
    assert_eq!(
        err(&format!("dramid@;{body}"), 6, 2),
        MappingError::BadDramidPosition {
            text: String::new()
        }
    );
    assert_eq!(
        err(&format!("dramid@-1;{body}"), 6, 2),
        MappingError::BadDramidPosition { text: "-1".into() }
    );
    assert_eq!(
        err(&format!("chip@8;{body}"), 6, 2),
        MappingError::BadPrefix {
            prefix: "chip@8".into()
        }
    );
    assert_eq!(
        err(&format!("dramid@8{body}"), 6, 2),
        MappingError::MissingSemicolon
    );
    assert_eq!(
        err(&format!("dramid@8x;{body}"), 6, 2),
        MappingError::BadDramidPosition { text: "8x".into() }
    );
    assert_eq!(err("dramid@8", 6, 2), MappingError::MissingSemicolon);
    assert_eq!(err(GTX480_MAPPING, 0, 2), MappingError::ZeroChannels);
    assert_eq!(
        err(GTX480_MAPPING, 6, 3),
        MappingError::BadSubPartitions { subs: 3 }
    );
    assert_eq!(
        err(GTX480_MAPPING, 6, 0),
        MappingError::BadSubPartitions { subs: 0 }
    );
    assert_eq!(
        err(GTX480_MAPPING, 6, 32),
        MappingError::SubPartitionsExceedBanks {
            subs: 32,
            needed: 5,
            bits: 4
        }
    );
    assert_eq!(
        err(GTX480_MAPPING, u32::MAX, 2),
        MappingError::TooManySubPartitions {
            channels: u32::MAX,
            subs: 2
        }
    );
    // A row bit in the top symbol would be pushed out by 4 inserted channel bits.
    let top_row = format!("dramid@8;R{}", &body[1..]);
    assert_eq!(
        err(&top_row, 16, 2),
        MappingError::ShiftedOut {
            kind: "row",
            bit: 63,
            position: 10,
            channel_bits: 4,
            start: 8
        }
    );
    // ... but on the modulo path nothing moves.
    assert!(AddressMap::parse_gpgpusim(&top_row, 6, 2).is_ok());
    let many_banks = format!("dramid@8;{}BBSSSSSS", "B".repeat(56));
    assert_eq!(
        err(&many_banks, 6, 2),
        MappingError::TooManyBankBits { bits: 58 }
    );
    assert_eq!(err("", 1, 1), MappingError::SymbolCount { count: 0 });
    assert_eq!(
        err(&format!("dramid@8;{body};"), 6, 2),
        MappingError::UnknownSymbol {
            symbol: ';',
            position: 81
        }
    );
}

/// Copies in tests-data must equal the shared reference files whenever those are present.
#[test]
fn test_data_matches_shared_reference() {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/reference/gpgpusim-configs");
    if !shared.is_dir() {
        eprintln!("{} not present; nothing to compare", shared.display());
        return;
    }
    for (rel, copy) in [
        ("GTX480/gpgpusim-3.2.2/gpgpusim.config", GTX480_322),
        ("GTX480/gpgpusim-4.x/gpgpusim.config", GTX480_4X),
        ("RTX2060/gpgpusim.config", RTX2060),
        ("RTX2060/trace.config", RTX2060_TRACE),
        ("QV100/gpgpusim.config", QV100),
        ("QV100/trace.config", QV100_TRACE),
        ("RTX3070/gpgpusim.config", RTX3070),
        ("RTX3070/trace.config", RTX3070_TRACE),
        (
            "GTX480/gpgpusim-3.2.2/config_fermi_islip.icnt",
            include_str!(
                "../tests-data/gpgpusim-configs/GTX480/gpgpusim-3.2.2/config_fermi_islip.icnt"
            ),
        ),
        (
            "GTX480/gpgpusim-4.x/config_fermi_islip.icnt",
            include_str!(
                "../tests-data/gpgpusim-configs/GTX480/gpgpusim-4.x/config_fermi_islip.icnt"
            ),
        ),
        (
            "QV100/config_volta_islip.icnt",
            include_str!("../tests-data/gpgpusim-configs/QV100/config_volta_islip.icnt"),
        ),
        (
            "RTX2060/config_turing_islip.icnt",
            include_str!("../tests-data/gpgpusim-configs/RTX2060/config_turing_islip.icnt"),
        ),
        (
            "RTX3070/config_ampere_islip.icnt",
            include_str!("../tests-data/gpgpusim-configs/RTX3070/config_ampere_islip.icnt"),
        ),
    ] {
        let original = std::fs::read_to_string(shared.join(rel)).expect("reference file");
        assert!(
            original == copy,
            "tests-data copy of {rel} differs from the reference"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Property tests

/// A random valid mapping body: 64 symbols from R/B/C/S/0 with the top `zero_top` forced to `0`
/// and symbol 63 - `bank_at` forced to `B` (so there is a bank bit).
fn body_strategy(zero_top: usize) -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(
            prop_oneof![Just('R'), Just('B'), Just('C'), Just('S'), Just('0')],
            MAPPING_SYMBOLS,
        ),
        0..(MAPPING_SYMBOLS - zero_top),
    )
        .prop_map(move |(mut syms, bank_at)| {
            for s in syms.iter_mut().take(zero_top) {
                *s = '0';
            }
            syms[MAPPING_SYMBOLS - 1 - bank_at] = 'B';
            syms.into_iter().collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Power-of-two channel counts: decode is a bijection on the covered bits. Re-encoding the
    /// fields gives back the address restricted to the covered bits, so two addresses that
    /// differ in a covered bit never decode alike.
    #[test]
    fn pow2_decode_is_a_bijection_on_covered_bits(
        body in body_strategy(6),
        log_c in 0u32..=5,
        start in 0u32..=40,
        log_subs in 0u32..=1,
        xor in any::<bool>(),
        addrs in proptest::collection::vec(any::<u64>(), 16),
    ) {
        let channels = 1u32 << log_c;
        let spec = format!("dramid@{start};{body}");
        let map = AddressMap::parse_gpgpusim(&spec, channels, 1 << log_subs)
            .unwrap()
            .with_bank_xor(xor);
        let covered = map.covered_mask();
        let m = map.masks();
        prop_assert_eq!(m.chip & (m.bank | m.row | m.col), 0);
        prop_assert_eq!((m.bank & m.row) | (m.bank & m.col) | (m.row & m.col), 0);
        prop_assert_eq!(m.burst & !m.col, 0);
        for &a in &addrs {
            let d = map.decode(a);
            prop_assert!(d.channel < channels);
            prop_assert!(d.sub_partition < map.sub_partitions());
            prop_assert_eq!(map.route(a), (d.channel, d.sub_partition));
            let e = map.encode(&d);
            prop_assert_eq!(e, Some(a & covered));
            prop_assert_eq!(map.decode(a & covered), d);
            // Flipping any covered bit changes the decode.
            let bit = 1u64 << (a % 64);
            if covered & bit != 0 {
                prop_assert_ne!(map.decode(a ^ bit), d);
            } else {
                prop_assert_eq!(map.decode(a ^ bit), d);
            }
        }
    }

    /// Modulo path: every address maps to a channel < C, consecutive 2^S-byte chunks rotate
    /// through the channels, and fields -> encode -> decode is the identity.
    #[test]
    fn modulo_path_rotates_chunks_and_round_trips(
        body in body_strategy(16),
        channels in 3u32..=100,
        start in 0u32..=40,
        subs in prop_oneof![Just(1u32), Just(2u32)],
        addrs in proptest::collection::vec(any::<u64>(), 16),
        fields in proptest::collection::vec(any::<(u32, u32, u64, u64)>(), 16),
    ) {
        prop_assume!(!channels.is_power_of_two());
        let spec = format!("dramid@{start};{body}");
        let map = AddressMap::parse_gpgpusim(&spec, channels, subs).unwrap();
        prop_assert_eq!(map.channel_select(), ChannelSelect::Modulo { start });
        for &a in &addrs {
            let d = map.decode(a);
            prop_assert!(d.channel < channels);
            prop_assert!(d.sub_partition < channels * subs);
            prop_assert_eq!(map.route(a), (d.channel, d.sub_partition));
            prop_assert_eq!(u64::from(d.channel), (a >> start) % u64::from(channels));
            if let Some(next) = a.checked_add(1u64 << start) {
                prop_assert_eq!(map.decode(next).channel, (d.channel + 1) % channels);
            }
        }
        for &(c, b, r, col) in &fields {
            let want = Decoded {
                channel: c % channels,
                bank: b % map.banks(),
                row: r % map.rows(),
                col: col % map.columns(),
                burst: 0,
                sub_partition: 0,
            };
            let addr = map.encode(&want).expect("48-bit rest times <= 100 channels fits");
            let got = map.decode(addr);
            prop_assert_eq!(
                (got.channel, got.bank, got.row, got.col),
                (want.channel, want.bank, want.row, want.col)
            );
            prop_assert!(got.burst < map.burst_bytes());
            prop_assert_eq!(got.sub_partition, got.channel * subs + (got.bank & (subs - 1)));
        }
    }

    /// Arbitrary text never panics the parser.
    #[test]
    fn parse_never_panics_on_arbitrary_text(
        text in ".{0,100}",
        channels in prop_oneof![0u32..=70, any::<u32>()],
        subs in 0u32..=8,
    ) {
        let _ = AddressMap::parse_gpgpusim(&text, channels, subs);
    }

    /// Nearly valid text (the grammar's own characters) never panics, and what parses decodes
    /// within range.
    #[test]
    fn parse_never_panics_on_near_valid_text(
        prefix in "((dramid|DRAMID|dram)@[0-9]{0,3};){0,2}",
        body in "[RBCSD0rbcsd.| ;xX@]{0,90}",
        channels in 0u32..=70,
        subs in 0u32..=8,
        addr in any::<u64>(),
    ) {
        if let Ok(map) = AddressMap::parse_gpgpusim(&format!("{prefix}{body}"), channels, subs) {
            let d = map.decode(addr);
            prop_assert!(d.channel < channels);
            prop_assert!(d.bank < map.banks());
            prop_assert!(d.sub_partition < map.sub_partitions());
        }
    }

    /// Valid 64-symbol bodies with every prefix / channel combination never panic.
    #[test]
    fn parse_never_panics_on_valid_bodies(
        body in proptest::collection::vec(
            prop_oneof![Just('R'), Just('B'), Just('C'), Just('S'), Just('D'), Just('0')],
            MAPPING_SYMBOLS,
        ),
        start in proptest::option::of(0u64..=70),
        channels in 0u32..=70,
        subs in 0u32..=8,
        addr in any::<u64>(),
    ) {
        let body: String = body.into_iter().collect();
        let text = match start {
            Some(s) => format!("dramid@{s};{body}"),
            None => body,
        };
        if let Ok(map) = AddressMap::parse_gpgpusim(&text, channels, subs) {
            let d = map.decode(addr);
            prop_assert!(d.channel < channels);
            prop_assert!(d.sub_partition < map.sub_partitions());
            if !matches!(map.channel_select(), ChannelSelect::Modulo { .. }) {
                prop_assert_eq!(map.encode(&d), Some(addr & map.covered_mask()));
            }
        }
    }
}

/// GPGPU-Sim's IPOLY equations for 64 values (`ipoly_hash_function`, `bank_set_num == 64`),
/// written out bit by bit, independently of the spec's tap masks.
fn ipoly64(a: u64, index: u32) -> u32 {
    let bit = |k: u32| (a >> k & 1) as u32;
    let eq: [&[u32]; 6] = [
        &[18, 17, 16, 15, 12, 10, 6, 5, 0],
        &[15, 13, 12, 11, 10, 7, 5, 1, 0],
        &[16, 14, 13, 12, 11, 8, 6, 2, 1],
        &[17, 15, 14, 13, 12, 9, 7, 3, 2],
        &[18, 16, 15, 14, 13, 10, 8, 4, 3],
        &[17, 16, 15, 14, 11, 9, 5, 4],
    ];
    let mut out = 0;
    for (b, taps) in eq.iter().enumerate() {
        let x = taps.iter().fold(index >> b & 1, |p, &t| p ^ bit(t));
        out |= x << b;
    }
    out
}

#[test]
fn partition_hashing_follows_addrdec() {
    use crate::dram::PartitionHash;
    // QV100: dramid@8, 32 channels, 2 sub-partitions: the hashed bits are those above bit 14.
    let linear = map_of(QV100, "QV100");
    let ipoly = linear
        .clone()
        .with_partition_hash(PartitionHash::Ipoly)
        .unwrap();
    let xor = linear
        .clone()
        .with_partition_hash(PartitionHash::Xor)
        .unwrap();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let addr = x >> 20;
        let l = linear.decode(addr);
        let high = addr >> (8 + 5 + 1);
        let s = ipoly64(high, l.sub_partition);
        let p = ipoly.decode(addr);
        assert_eq!((p.channel, p.sub_partition), (s / 2, s), "{addr:#x}");
        assert_eq!((p.bank, p.row, p.col), (l.bank, l.row, l.col));
        let c = l.channel ^ (high as u32 & 31);
        let q = xor.decode(addr);
        assert_eq!(
            (q.channel, q.sub_partition),
            (c, c * 2 + (l.bank & 1)),
            "{addr:#x}"
        );
        // Encoding is exact: the hashed fields come back; routing names decode's channel and
        // sub-partition.
        for m in [&linear, &ipoly, &xor] {
            let d = m.decode(addr);
            assert_eq!(m.decode(m.encode(&d).unwrap()), d, "{addr:#x}");
            assert_eq!(m.route(addr), (d.channel, d.sub_partition), "{addr:#x}");
        }
    }
    // What the hashes need.
    let explicit =
        AddressMap::parse_gpgpusim(&format!("{}RRRRBBDD.CCSSSSSS", "0".repeat(48)), 4, 2).unwrap();
    let e = explicit
        .with_partition_hash(PartitionHash::Xor)
        .unwrap_err();
    assert!(e.contains("dramid@"), "{e}");
    let twelve = AddressMap::parse_gpgpusim(
        &format!("dramid@8;{}", "0".repeat(40) + "RRRRRRRR.RRBBBBCC.CCSSSSSS"),
        12,
        2,
    )
    .unwrap();
    assert!(twelve.with_partition_hash(PartitionHash::Ipoly).is_err());
    let eight = AddressMap::parse_gpgpusim(
        &format!("dramid@8;{}", "0".repeat(40) + "RRRRRRRR.RRBBBBCC.CCSSSSSS"),
        8,
        1,
    )
    .unwrap();
    let e = eight.with_partition_hash(PartitionHash::Ipoly).unwrap_err();
    assert!(e.contains("16, 32 or 64"), "{e}");
}
