//! The fields of a trace's lines: split, hexadecimal and decimal numbers, dimensions,
//! registers.

use super::inst::Reg;

/// The fields of an instruction line, split at ASCII whitespace as
/// [`str::split_ascii_whitespace`] splits it, and lane addresses read while they are split.
/// (A trace's text is mostly lane addresses, 32 to a memory instruction: splitting a line and
/// then reading each address walked its bytes twice, with a branch on each digit's kind
/// that mispredicts on hex text: half of a run on a trace with address lists.)
pub(super) struct Fields<'a> {
    line: &'a str,
    /// Where the next field is looked for.
    pub(super) at: usize,
}

/// Per byte: its value as a hex digit, or [`NOT_HEX`].
static HEX: [u8; 256] = {
    let mut t = [NOT_HEX; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = match c as u8 {
            b'0'..=b'9' => c as u8 - b'0',
            b'a'..=b'f' => c as u8 - b'a' + 10,
            b'A'..=b'F' => c as u8 - b'A' + 10,
            _ => NOT_HEX,
        };
        c += 1;
    }
    t
};
pub(super) const NOT_HEX: u8 = 0xff;

impl<'a> Fields<'a> {
    pub(super) fn new(line: &'a str) -> Fields<'a> {
        Fields { line, at: 0 }
    }

    /// Skip whitespace; whether a field follows.
    #[inline]
    pub(super) fn skip_space(&mut self) -> bool {
        let b = self.line.as_bytes();
        while self.at < b.len() && b[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        self.at < b.len()
    }

    /// The next field.
    #[inline]
    pub(super) fn next(&mut self) -> Option<&'a str> {
        if !self.skip_space() {
            return None;
        }
        let b = self.line.as_bytes();
        let start = self.at;
        while self.at < b.len() && !b[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        // (Both ends are at ASCII bytes or the line's ends: character boundaries.)
        Some(&self.line[start..self.at])
    }

    /// The next field, or an error naming `what` is missing.
    pub(super) fn need(&mut self, what: &str) -> Result<&'a str, String> {
        self.next()
            .ok_or_else(|| format!("`{}`: no {what}", self.line))
    }

    /// The next field as [`hex`] reads it (`Err`: the field, which is not a hex number),
    /// split and read in one pass, its digits eight bytes at a time ([`hex_run`]).
    #[inline]
    pub(super) fn next_hex(&mut self) -> Option<Result<u64, &'a str>> {
        self.next_hex_with::<false>()
    }

    /// [`Fields::next_hex`]; `LAX`: the deliberately wrong variant of the tests (takes `g`
    /// for a digit).
    #[inline]
    pub(super) fn next_hex_with<const LAX: bool>(&mut self) -> Option<Result<u64, &'a str>> {
        if !self.skip_space() {
            return None;
        }
        let b = self.line.as_bytes();
        let start = self.at;
        let mut i = start;
        if matches!(b.get(i..i + 2), Some(b"0x" | b"0X")) {
            i += 2;
        }
        if let Some(w) = b.get(i..i + 16).and_then(|w| <[u8; 16]>::try_from(w).ok()) {
            let (n, v) = hex_run::<LAX>(u128::from_le_bytes(w));
            let end = i + n;
            if n > 0 && b.get(end).is_none_or(u8::is_ascii_whitespace) {
                self.at = end;
                return Some(Ok(v));
            }
        }
        // Fewer than 16 bytes left in the line, more than 16 digits (leading zeros are
        // allowed) or not a number: the field whole, as `hex` reads it.
        self.at = start;
        let f = self.next()?;
        Some(hex(f).ok_or(f))
    }
}

/// The hex digits at the start of 16 bytes (`w`, the first in its lowest byte): how many
/// (0 to 16), and their value. Eight bytes at once (SWAR): a digit-by-digit loop waits on
/// the previous digit at each one, two cycles a digit.
#[inline]
pub(super) fn hex_run<const LAX: bool>(w: u128) -> (usize, u64) {
    let (lo, hi) = (
        hex_digits8::<LAX>(w as u64),
        hex_digits8::<LAX>((w >> 64) as u64),
    );
    let n = if lo.0 < 8 { lo.0 } else { 8 + hi.0 };
    let v = if n <= 8 {
        hex_value8(lo.1, n)
    } else {
        hex_value8(lo.1, 8) << (4 * (n - 8)) | hex_value8(hi.1, n - 8)
    };
    (n, v)
}

/// The count of hex digits at the start of 8 bytes (`x`, the first in its lowest byte), and
/// every byte's value as a digit (meaningful for the digits only).
#[inline]
pub(super) fn hex_digits8<const LAX: bool>(x: u64) -> (usize, u64) {
    const fn rep(b: u8) -> u64 {
        u64::from_le_bytes([b; 8])
    }
    // Per byte, bit 7 set when the byte's low 7 bits (`t`: no carry between bytes) are at
    // least `k`: t + (0x80 - k) < 0x100.
    let t = x & rep(0x7f);
    let ge = |y: u64, k: u8| (y + rep(0x80 - k)) & rep(0x80);
    let digit = ge(t, b'0') & !ge(t, b'9' + 1);
    let l = t | rep(0x20);
    let letter = ge(l, b'a') & !ge(l, b'f' + 1 + u8::from(LAX));
    let not_hex = !(digit | letter) & rep(0x80) | x & rep(0x80);
    // A digit's value is its low nibble, plus 9 for a letter (bit 6 set).
    let values = (t & rep(0x0f)) + ((t >> 6) & rep(0x01)) * 9;
    ((not_hex.trailing_zeros() / 8) as usize, values)
}

/// The number the first `n` (0 to 8) digit values of `v` (one a byte, the most significant
/// lowest) make.
#[inline]
pub(super) fn hex_value8(v: u64, n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    // The digits moved to the top bytes (zeros below: leading zeros), then joined pairwise.
    let v = v << (8 * (8 - n));
    let v = ((v << 4) | (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    let v = ((v << 8) | (v >> 16)) & 0x0000_ffff_0000_ffff;
    ((v << 16) | (v >> 32)) & 0xffff_ffff
}

/// A hexadecimal number, `0x` optional. (By hand rather than `u64::from_str_radix`: a trace
/// holds one per active lane of every memory instruction.)
pub(super) fn hex(s: &str) -> Option<u64> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s)
        .as_bytes();
    let start = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    if digits.is_empty() || digits.len() - start > 16 {
        return None;
    }
    let (mut v, mut bad) = (0u64, 0u8);
    for &c in digits {
        let d = HEX[usize::from(c)];
        bad |= d;
        v = v << 4 | u64::from(d & 15);
    }
    (bad != NOT_HEX).then_some(v)
}

/// `(x,y,z)` as three numbers.
pub(super) fn dims(s: &str) -> Option<[u32; 3]> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    let v: Vec<u32> = inner
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()?;
    v.try_into().ok()
}

/// `(x,y,z)`, each dimension from 1 to `most`'s; `Err`: the legal values.
pub(super) fn dims_within(s: &str, most: [u32; 3]) -> Result<[u32; 3], String> {
    let legal = || {
        format!(
            "(x,y,z), each from 1 to {} (x), {} (y) and {} (z), CUDA's limits",
            most[0], most[1], most[2]
        )
    };
    let d = dims(s).ok_or_else(legal)?;
    if d.iter().zip(&most).any(|(&v, &m)| v == 0 || v > m) {
        return Err(legal());
    }
    Ok(d)
}

/// A decimal number of the field's type (at most `max`); `Err`: its range.
pub(super) fn decimal<T: std::str::FromStr + std::fmt::Display>(
    s: &str,
    max: T,
) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("a whole number from 0 to {max}"))
}

/// The number of `key = N`.
pub(super) fn field(line: &str, key: &str) -> Option<u64> {
    let (k, v) = line.split_once('=')?;
    (k.trim() == key).then(|| v.trim().parse().ok())?
}

pub(super) fn count(s: &str, most: usize) -> Result<usize, String> {
    s.parse::<usize>()
        .ok()
        .filter(|&n| n <= most)
        .ok_or_else(|| format!("`{s}` is not a register count from 0 to {most}"))
}

pub(super) fn reg(s: &str) -> Result<Reg, String> {
    s.strip_prefix('R')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("`{s}` is not a register (R0 to R255; R255 is RZ)"))
}
