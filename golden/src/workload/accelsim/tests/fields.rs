//! The fields of a line: hexadecimal numbers, lane addresses, lines as BufRead reads them,
//! addresses held whole, registers.

use super::*;

#[test]
fn hex_numbers_parse_as_from_str_radix_does() {
    for s in [
        "0",
        "10",
        "ff",
        "FF",
        "c0000000",
        "ffffffffffffffff",
        "0000000000000000001",
        "7fa0",
    ] {
        let want = u64::from_str_radix(s.trim_start_matches('0').max("0"), 16).ok();
        assert_eq!(super::hex(s), want, "{s}");
        assert_eq!(super::hex(&format!("0x{s}")), want, "0x{s}");
    }
    for bad in ["", "0x", "0xg1", "1 2", "1ffffffffffffffff", "-1"] {
        assert_eq!(super::hex(bad), None, "{bad}");
    }
}

/// Text of fields and separators: ASCII whitespace of every kind (and vertical tab, which is
/// not), hex digits of both cases, `0x` prefixes, near misses (`g`, `/`, `:`, `@`, `` ` ``)
/// and a non-ASCII letter.
fn field_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[0-9a-fA-F]{0,20}".prop_map(|s| s),
        2 => "(0x|0X)[0-9a-fA-F]{0,18}".prop_map(|s| s),
        1 => "[ \t\n\r\x0b\x0cgG/:@`xXé0-9]{1,4}".prop_map(|s| s),
    ];
    let sep = "[ \t\r\x0c]{1,3}";
    proptest::collection::vec((piece, sep), 0..12)
        .prop_map(|v| v.into_iter().map(|(p, s)| p + &s).collect::<String>())
}

/// Every field of `line` read by `next_hex` (hex fields) and `next` (the rest), as
/// `(field, hex value)`; `LAX` selects the deliberately wrong reader.
fn read_fields<const LAX: bool>(line: &str) -> Vec<(String, Option<u64>)> {
    let mut f = Fields::new(line);
    let mut out = Vec::new();
    loop {
        let before = f.at;
        match f.next_hex_with::<LAX>() {
            None => break,
            Some(Ok(v)) => out.push((line[before..f.at].trim_start().to_string(), Some(v))),
            Some(Err(s)) => out.push((s.to_string(), None)),
        }
        // Every other field is read plainly.
        if let Some(s) = f.next() {
            out.push((s.to_string(), None));
        }
    }
    out
}

/// The same fields as split_ascii_whitespace gives, each other one read as `hex` reads it.
fn expected_fields(line: &str) -> Vec<(String, Option<u64>)> {
    line.split_ascii_whitespace()
        .enumerate()
        .map(|(k, s)| (s.to_string(), if k % 2 == 0 { super::hex(s) } else { None }))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Fields split a line as `split_ascii_whitespace` does, and a lane address reads as
    /// `hex` reads the field (in one pass, eight bytes at a time).
    #[test]
    fn fields_and_lane_addresses_read_as_split_and_hex_do(line in field_text()) {
        prop_assert_eq!(read_fields::<false>(&line), expected_fields(&line));
        let mut f = Fields::new(&line);
        let split: Vec<&str> = line.split_ascii_whitespace().collect();
        let fields: Vec<&str> = std::iter::from_fn(|| f.next()).collect();
        prop_assert_eq!(fields, split);
    }
}

/// The check above catches a lane-address reader that takes `g` for a digit (eight bytes at
/// a time: 16 bytes of text from the field on).
#[test]
fn a_lax_lane_address_reader_is_caught() {
    for line in [
        "0x1g 0 0 0 0 0 0 0",
        "abcdefg 0 0 0 0 0",
        "1 2 fg 0 0 0 0 0 0 0 0 0",
    ] {
        assert_ne!(read_fields::<true>(line), expected_fields(line), "`{line}`");
        assert_eq!(
            read_fields::<false>(line),
            expected_fields(line),
            "`{line}`"
        );
    }
}

/// Lane addresses of every length up to 16 digits, at the line's end (digit by digit) and
/// before more text (eight bytes at a time), give their value; 17 digits only with a
/// leading zero.
#[test]
fn lane_addresses_of_every_length_read_whole() {
    let digits = "fedcba9876543210a";
    for n in 1..=17 {
        let d = &digits[..n];
        let want = super::hex(d);
        assert_eq!(want.is_some(), n <= 16, "{d}");
        for line in [
            d.to_string(),
            format!("0x{d}"),
            format!("{d} 0x1 0x2 0x3 R1"),
        ] {
            let mut f = Fields::new(&line);
            assert_eq!(f.next_hex().and_then(Result::ok), want, "`{line}`");
        }
        let padded = format!("0{d} tail-of-the-line");
        let mut f = Fields::new(&padded);
        assert_eq!(f.next_hex().and_then(Result::ok), want, "`{padded}`");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Lines read with `read_line` are those `BufRead::read_line` reads, through buffers of
    /// any size (lines across a buffer's end), and invalid UTF-8 fails both.
    #[test]
    fn lines_read_as_bufread_reads_them(
        text in proptest::collection::vec(
            prop_oneof![
                Just(b'\n'),
                Just(b'a'),
                Just(b' '),
                Just(0xc3u8),
                Just(0xa9u8),
                any::<u8>(),
            ],
            0..300,
        ),
        cap in 1usize..40,
    ) {
        let mut ours = std::io::BufReader::with_capacity(cap, &text[..]);
        let mut std_reader = std::io::BufReader::with_capacity(cap, &text[..]);
        loop {
            let (mut a, mut b) = (String::from("x"), String::from("x"));
            let ra = read_line(&mut ours, &mut a);
            let rb = std_reader.read_line(&mut b);
            match (&ra, &rb) {
                (Ok(x), Ok(y)) => {
                    prop_assert_eq!(x, y);
                    prop_assert_eq!(&a, &b);
                    if *x == 0 {
                        break;
                    }
                }
                (Err(x), Err(y)) => {
                    prop_assert_eq!(x.kind(), y.kind());
                    prop_assert_eq!(&a, "x");
                    break;
                }
                _ => prop_assert!(false, "{:?} against {:?}", ra, rb),
            }
        }
    }
}

/// Lane addresses that mostly step by one stride, some with one lane off it.
fn lane_addrs() -> impl Strategy<Value = Vec<u64>> {
    (
        any::<u64>(),
        prop_oneof![
            Just(4u64),
            Just(8),
            Just(0),
            Just(u64::MAX - 3),
            any::<u64>()
        ],
        0usize..=32,
        proptest::option::of((0usize..32, any::<u64>())),
    )
        .prop_map(|(base, stride, n, off)| {
            let mut v: Vec<u64> = (0..n as u64)
                .map(|k| base.wrapping_add(k.wrapping_mul(stride)))
                .collect();
            if let Some((k, a)) = off {
                if k < n {
                    v[k] = a;
                }
            }
            v
        })
}

/// Whether `held` gives back `v`, by every reader of it.
fn gives_back(held: &LaneAddrs, v: &[u64]) -> bool {
    held.len() == v.len()
        && held.to_vec() == v
        && (0..=v.len()).all(|k| held.get(k) == v.get(k).copied())
        && held.first() == v.first().copied()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The compact form gives the addresses back, is strided exactly when they step by one
    /// stride, and compares equal to any form holding the same addresses.
    #[test]
    fn lane_addresses_are_held_whole(v in lane_addrs(), delta in any::<u64>()) {
        let held = LaneAddrs::new(&v);
        prop_assert!(gives_back(&held, &v));
        let strided = v.windows(2).all(|w| w[1].wrapping_sub(w[0]) == v[1].wrapping_sub(v[0]));
        prop_assert_eq!(matches!(held, LaneAddrs::Strided { .. }), !v.is_empty() && strided);
        prop_assert_eq!(&held, &LaneAddrs::List(v.clone().into()));
        let mut moved = held.clone();
        moved.shift(delta);
        let want: Vec<u64> = v.iter().map(|a| a.wrapping_add(delta)).collect();
        prop_assert!(gives_back(&moved, &want));
    }
}

/// A compact form that trusted the first two lanes' stride for all of them would lose a lane
/// off the stride: the check above catches it.
#[test]
fn a_form_trusting_the_first_stride_is_caught() {
    fn lax(v: &[u64]) -> LaneAddrs {
        match v {
            [] => LaneAddrs::Empty,
            &[base, ..] => LaneAddrs::Strided {
                base,
                stride: v.get(1).map_or(0, |&a| a.wrapping_sub(base)),
                n: v.len() as u8,
            },
        }
    }
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let caught = runner.run(&lane_addrs(), |v| {
        prop_assert!(gives_back(&lax(&v), &v));
        Ok(())
    });
    assert!(caught.is_err(), "the lax form was not caught");
}

/// The register of `R<n>` as the reader reads it.
fn dest_of(n: u64, reg: fn(&str) -> Result<Reg, String>) -> Result<Reg, String> {
    reg(&format!("R{n}"))
}

/// A register reader that took any 16-bit number and kept its low byte (the deliberately
/// wrong variant: R256 would silently be R0).
fn lax_reg(s: &str) -> Result<Reg, String> {
    let n: u16 = s[1..].parse().map_err(|_| s.to_string())?;
    Ok(n.to_le_bytes()[0])
}

fn register_read_as_written(
    n: u64,
    reg: fn(&str) -> Result<Reg, String>,
) -> Result<(), TestCaseError> {
    match dest_of(n, reg) {
        Ok(r) => prop_assert_eq!(u64::from(r), n),
        Err(m) => prop_assert!(n > 255 && !m.is_empty(), "R{} refused: {}", n, m),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A register reads as its number when it is one of R0..R255, and is refused otherwise
    /// (never another register).
    #[test]
    fn registers_read_as_their_number_or_are_refused(
        n in prop_oneof![0u64..300, 0u64..70000, any::<u64>()],
    ) {
        register_read_as_written(n, reg)?;
    }
}

#[test]
fn a_register_reader_keeping_the_low_byte_is_caught() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let caught = runner.run(&(0u64..70000), |n| register_read_as_written(n, lax_reg));
    assert!(caught.is_err(), "the lax register reader was not caught");
}
