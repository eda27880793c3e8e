//! A fast path for reading one request line of the JSON-lines stimulus format: the compact
//! object `{"cycle":0,"op":"req","sm":0,...}` that the format's writers produce (serde_json,
//! the DRAMsim3 kit's generator, `--emit` of the tools), keys in any order, no whitespace.
//!
//! serde_json spent about 2,800 instructions a line on these objects (callgrind, the DRAMsim3
//! comparison's random trace): a third of an FR-FCFS run, more than the controllers. This
//! reader reads the two layouts writers use straight through (serde's field order, and `cycle`
//! first), any other key order key by key, and takes a line only when it is certain of
//! serde's result; anything else (whitespace, an unknown or repeated key, a missing field, a
//! number that is too large or written with a sign, a fraction, an exponent or a leading zero,
//! an escape) returns `None`, and the caller parses the line with serde_json, which also gives
//! the error message. Its one promise: `fast_txn(l) == Some(t)` implies
//! `serde_json::from_str::<McTxn>(l) == Ok(t)` (proptests below, on the lines serde writes, in
//! the kit's layout and in any key order, and on those lines mutated byte by byte; a
//! deliberately lax variant that accepts leading zeros is caught by the same check in each
//! layout).

use super::stimulus::{McTxn, Op};

/// The fields of [`McTxn`], as bits of the set of keys seen.
const CYCLE: u16 = 1;
const OP: u16 = 1 << 1;
const SM: u16 = 1 << 2;
const WARP: u16 = 1 << 3;
const PC: u16 = 1 << 4;
const ADDR: u16 = 1 << 5;
const WRITE: u16 = 1 << 6;
const LOAD: u16 = 1 << 7;
const PREFETCH: u16 = 1 << 8;
/// The keys without a default.
const REQUIRED: u16 = CYCLE | OP | SM | WARP | PC | ADDR | WRITE;

/// The transaction of `line` (without its line end), when it is a compact object this reader
/// is certain of; `None` otherwise (then serde_json decides).
pub fn fast_txn(line: &[u8]) -> Option<McTxn> {
    fast_txn_with::<false>(line)
}

/// [`fast_txn`]; `LAX`: the deliberately wrong variant of the tests (takes leading zeros).
fn fast_txn_with<const LAX: bool>(line: &[u8]) -> Option<McTxn> {
    in_order::<LAX>(line).or_else(|| any_order::<LAX>(line))
}

/// The two layouts writers produce, read straight through: serde's field order (`op` first)
/// and `cycle` first (the DRAMsim3 kit's generator), the required keys only. A third fewer
/// instructions a line than [`any_order`], which reads every other line.
fn in_order<const LAX: bool>(line: &[u8]) -> Option<McTxn> {
    match in_order_at::<LAX>(line)? {
        (t, b"") => Some(t),
        _ => None,
    }
}

/// The transaction of a line in one of [`in_order`]'s layouts at the start of `text` (a
/// buffer of lines), and `text` after its `}`; `None` when `text` does not start with one.
/// Reading a buffer this way needs no search for the line's end first: the caller checks
/// what follows the `}` (the line end).
pub fn line_at(text: &[u8]) -> Option<(McTxn, &[u8])> {
    in_order_at::<false>(text)
}

/// [`line_at`] (`LAX`: see [`fast_txn_with`]).
fn in_order_at<const LAX: bool>(line: &[u8]) -> Option<(McTxn, &[u8])> {
    let (cycle, r) = match line.strip_prefix(b"{\"op\":\"req\",\"cycle\":") {
        Some(r) => number::<LAX>(r)?,
        None => {
            let (c, r) = number::<LAX>(line.strip_prefix(b"{\"cycle\":")?)?;
            (c, r.strip_prefix(b",\"op\":\"req\"")?)
        }
    };
    let (sm, r) = number::<LAX>(r.strip_prefix(b",\"sm\":")?)?;
    let (warp, r) = number::<LAX>(r.strip_prefix(b",\"warp\":")?)?;
    let (pc, r) = number::<LAX>(r.strip_prefix(b",\"pc\":")?)?;
    let (addr, r) = number::<LAX>(r.strip_prefix(b",\"addr\":")?)?;
    let mut write = false;
    let r = bool_value(r.strip_prefix(b",\"write\":")?, &mut write)?;
    let r = r.strip_prefix(b"}")?;
    let t = McTxn {
        op: Op::Req,
        cycle,
        sm: u32::try_from(sm).ok()?,
        warp: u32::try_from(warp).ok()?,
        pc,
        addr,
        write,
        load: None,
        prefetch: false,
    };
    Some((t, r))
}

/// A compact object with its keys in any order.
fn any_order<const LAX: bool>(line: &[u8]) -> Option<McTxn> {
    let mut t = McTxn {
        op: Op::Req,
        cycle: 0,
        sm: 0,
        warp: 0,
        pc: 0,
        addr: 0,
        write: false,
        load: None,
        prefetch: false,
    };
    let body = line.strip_prefix(b"{")?.strip_suffix(b"}")?;
    let mut seen = 0u16;
    let mut rest = body;
    loop {
        // "key": (told apart by its first letter, then matched whole with its quote and
        // colon: no search for the key's end).
        let (bit, after) = match *rest.get(1)? {
            b'c' => (CYCLE, rest.strip_prefix(b"\"cycle\":")),
            b'o' => (OP, rest.strip_prefix(b"\"op\":")),
            b's' => (SM, rest.strip_prefix(b"\"sm\":")),
            b'a' => (ADDR, rest.strip_prefix(b"\"addr\":")),
            b'l' => (LOAD, rest.strip_prefix(b"\"load\":")),
            b'w' => match rest.strip_prefix(b"\"warp\":") {
                Some(r) => (WARP, Some(r)),
                None => (WRITE, rest.strip_prefix(b"\"write\":")),
            },
            b'p' => match rest.strip_prefix(b"\"pc\":") {
                Some(r) => (PC, Some(r)),
                None => (PREFETCH, rest.strip_prefix(b"\"prefetch\":")),
            },
            _ => return None,
        };
        rest = after?;
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        rest = match bit {
            OP => rest.strip_prefix(b"\"req\"")?,
            WRITE => bool_value(rest, &mut t.write)?,
            PREFETCH => bool_value(rest, &mut t.prefetch)?,
            LOAD => match rest.strip_prefix(b"null") {
                Some(r) => r,
                None => {
                    let (v, r) = number::<LAX>(rest)?;
                    t.load = Some(v);
                    r
                }
            },
            _ => {
                let (v, r) = number::<LAX>(rest)?;
                match bit {
                    CYCLE => t.cycle = v,
                    SM => t.sm = u32::try_from(v).ok()?,
                    WARP => t.warp = u32::try_from(v).ok()?,
                    PC => t.pc = v,
                    _ => t.addr = v,
                }
                r
            }
        };
        if rest.is_empty() {
            break;
        }
        rest = rest.strip_prefix(b",")?;
    }
    (seen & REQUIRED == REQUIRED).then_some(t)
}

/// `true` or `false` at the start of `s` into `v`; the rest.
fn bool_value<'a>(s: &'a [u8], v: &mut bool) -> Option<&'a [u8]> {
    if let Some(r) = s.strip_prefix(b"true") {
        *v = true;
        Some(r)
    } else {
        *v = false;
        s.strip_prefix(b"false")
    }
}

/// A JSON integer in `0..=u64::MAX` at the start of `s` (digits, no leading zero) and the rest;
/// `None` for anything serde might read differently (a sign, a fraction, an exponent).
fn number<const LAX: bool>(s: &[u8]) -> Option<(u64, &[u8])> {
    // One pass over the digits (an iterator: no bounds check per digit): up to 19 cannot
    // overflow, more are checked, in a second loop (one loop testing the count at every digit
    // read the stream trace 2 % slower).
    let mut v = 0u64;
    let mut n = 0;
    for &c in s.iter().take(19) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v * 10 + u64::from(d);
        n += 1;
    }
    if n == 19 {
        for &c in &s[19..] {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(d))?;
            n += 1;
        }
    }
    if n == 0 || n > 1 && s[0] == b'0' && !LAX {
        return None;
    }
    if matches!(s.get(n), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    Some((v, &s[n..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn txn() -> impl Strategy<Value = McTxn> {
        (
            any::<u64>(),
            any::<u32>(),
            any::<u32>(),
            any::<u64>(),
            prop_oneof![any::<u64>(), 0u64..4096],
            any::<bool>(),
            proptest::option::of(any::<u64>()),
            any::<bool>(),
        )
            .prop_map(|(cycle, sm, warp, pc, addr, write, load, prefetch)| McTxn {
                op: Op::Req,
                cycle,
                sm,
                warp,
                pc,
                addr,
                write,
                load,
                prefetch,
            })
    }

    /// The line of `t` with its keys in the order `perm` gives, `null` for a missing load when
    /// `null_load`, and the prefetch flag written out when `explicit`.
    fn line_of(t: &McTxn, perm: &[usize], null_load: bool, explicit: bool) -> String {
        let mut kv = vec![
            format!("\"op\":\"req\""),
            format!("\"cycle\":{}", t.cycle),
            format!("\"sm\":{}", t.sm),
            format!("\"warp\":{}", t.warp),
            format!("\"pc\":{}", t.pc),
            format!("\"addr\":{}", t.addr),
            format!("\"write\":{}", t.write),
        ];
        match t.load {
            Some(l) => kv.push(format!("\"load\":{l}")),
            None if null_load => kv.push("\"load\":null".into()),
            None => {}
        }
        if t.prefetch || explicit {
            kv.push(format!("\"prefetch\":{}", t.prefetch));
        }
        let order: Vec<String> = perm
            .iter()
            .map(|&i| kv[i % kv.len()].clone())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        // Every key once: the permutation picks the order, the rest follow.
        let mut all: Vec<String> = order;
        for k in kv {
            if !all.contains(&k) {
                all.push(k);
            }
        }
        format!("{{{}}}", all.join(","))
    }

    /// The line of `t` as the DRAMsim3 kit's generator writes it (`cycle` first).
    fn kit_line(t: &McTxn) -> String {
        format!(
            "{{\"cycle\":{},\"op\":\"req\",\"sm\":{},\"warp\":{},\"pc\":{},\"addr\":{},\
             \"write\":{}}}",
            t.cycle, t.sm, t.warp, t.pc, t.addr, t.write
        )
    }

    /// The promise: what the fast path takes, serde_json reads the same.
    fn agrees(parse: fn(&[u8]) -> Option<McTxn>, line: &[u8]) -> Result<(), String> {
        let Some(t) = parse(line) else {
            return Ok(());
        };
        let text = std::str::from_utf8(line).map_err(|e| e.to_string())?;
        match serde_json::from_str::<McTxn>(text) {
            Ok(s) if s == t => Ok(()),
            other => Err(format!("{text:?}: fast {t:?}, serde {other:?}")),
        }
    }

    proptest! {
        /// Every line serde writes, and every compact line with the keys in any order, is
        /// taken, with serde's value.
        #[test]
        fn compact_lines_are_taken_as_serde_reads_them(
            t in txn(),
            perm in prop::collection::vec(0usize..9, 0..9),
            null_load in any::<bool>(),
            explicit in any::<bool>(),
        ) {
            let written = serde_json::to_string(&t).unwrap();
            prop_assert_eq!(fast_txn(written.as_bytes()), Some(t.clone()));
            // The two layouts read straight through are read so (not left to `any_order`).
            if t.load.is_none() && !t.prefetch {
                prop_assert_eq!(in_order::<false>(written.as_bytes()), Some(t.clone()));
                let kit = kit_line(&t);
                prop_assert_eq!(in_order::<false>(kit.as_bytes()), Some(t.clone()));
            }
            let line = line_of(&t, &perm, null_load, explicit);
            prop_assert_eq!(fast_txn(line.as_bytes()), Some(t.clone()));
            let back: McTxn = serde_json::from_str(&line).unwrap();
            prop_assert_eq!(back, t);
        }

        /// A line changed at one byte (replaced, inserted or removed) is either declined or
        /// read as serde reads it.
        #[test]
        fn mutated_lines_are_declined_or_read_as_serde_reads_them(
            t in txn(),
            at in any::<prop::sample::Index>(),
            byte in prop_oneof![
                Just(b'0'), Just(b'1'), Just(b'9'), Just(b'-'), Just(b'+'), Just(b'.'),
                Just(b'e'), Just(b' '), Just(b','), Just(b':'), Just(b'"'), Just(b'{'),
                Just(b'}'), Just(b'\\'), Just(b'n'), Just(b'u'), Just(b'x'), any::<u8>()
            ],
            how in 0u8..3,
            kit in any::<bool>(),
        ) {
            let mut line = if kit {
                kit_line(&t).into_bytes()
            } else {
                serde_json::to_string(&t).unwrap().into_bytes()
            };
            let i = at.index(line.len());
            match how {
                0 => line[i] = byte,
                1 => line.insert(i, byte),
                _ => {
                    line.remove(i);
                }
            }
            prop_assert!(
                agrees(fast_txn, &line).is_ok(),
                "{}",
                agrees(fast_txn, &line).unwrap_err()
            );
        }
    }

    /// The check above catches a deliberately lax reader (leading zeros taken: serde refuses
    /// them).
    #[test]
    fn a_lax_reader_is_caught() {
        for line in [
            &br#"{"op":"req","cycle":007,"sm":0,"warp":0,"pc":0,"addr":0,"write":false}"#[..],
            br#"{"cycle":1,"op":"req","sm":0,"warp":0,"pc":0,"addr":01,"write":false}"#,
            br#"{"sm":0,"op":"req","cycle":007,"warp":0,"pc":0,"addr":0,"write":false}"#,
        ] {
            assert_eq!(fast_txn(line), None);
            assert!(agrees(fast_txn_with::<true>, line).is_err());
        }
    }

    #[test]
    fn what_is_declined() {
        let ok = br#"{"op":"req","cycle":1,"sm":2,"warp":3,"pc":4,"addr":5,"write":true}"#;
        assert!(fast_txn(ok).is_some());
        for bad in [
            &br#"{"op":"req","cycle":1,"sm":2,"warp":3,"pc":4,"addr":5}"#[..],
            br#"{"op":"req","cycle":1,"sm":2,"warp":3,"pc":4,"addr":5,"write":true,"x":1}"#,
            br#"{"op":"req","cycle":1,"cycle":1,"sm":2,"warp":3,"pc":4,"addr":5,"write":true}"#,
            br#"{"op":"req","cycle":1,"sm":4294967296,"warp":3,"pc":4,"addr":5,"write":true}"#,
            b"{\"op\":\"req\",\"cycle\":18446744073709551616,\"sm\":2,\"warp\":3,\"pc\":4,\
              \"addr\":5,\"write\":true}",
            br#"{"op":"req","cycle":1.0,"sm":2,"warp":3,"pc":4,"addr":5,"write":true}"#,
            br#"{"op":"req","cycle":1e3,"sm":2,"warp":3,"pc":4,"addr":5,"write":true}"#,
            br#"{"op":"req","cycle":-1,"sm":2,"warp":3,"pc":4,"addr":5,"write":true}"#,
            br#"{"op": "req","cycle":1,"sm":2,"warp":3,"pc":4,"addr":5,"write":true}"#,
            br#"{"op":"rd","cycle":1,"sm":2,"warp":3,"pc":4,"addr":5,"write":true}"#,
            br#"{"o\u0070":"req","cycle":1,"sm":2,"warp":3,"pc":4,"addr":5,"write":true}"#,
            br#"{"op":"req","cycle":1,"sm":2,"warp":3,"pc":4,"addr":5,"write":1}"#,
            br#"{"op":"req","cycle":1,"sm":2,"warp":3,"pc":4,"addr":5,"write":true,}"#,
        ] {
            assert_eq!(fast_txn(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
