//! The parameter schema: every configuration key with its type, legal range and meaning.
//!
//! This table is the one place legal ranges are written. Validation checks every key of a
//! resolved configuration against it, `warpsmith describe` prints it, and a test checks that it
//! names exactly the keys of [`super::UserConfig`].

use super::SpecError;

/// What values a key accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Legal {
    /// An integer in `min..=max`.
    Range { min: u64, max: u64 },
    /// A power of two in `min..=max`.
    Pow2 { min: u64, max: u64 },
    /// One of the listed words.
    OneOf(&'static [&'static str]),
}

impl std::fmt::Display for Legal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Legal::Range { min, max } => write!(f, "{min}..={max}"),
            Legal::Pow2 { min, max } => write!(f, "a power of two in {min}..={max}"),
            Legal::OneOf(words) => write!(f, "one of {}", words.join(", ")),
        }
    }
}

/// One configuration key.
#[derive(Debug, Clone, Copy)]
pub struct KeyInfo {
    pub key: &'static str,
    pub ty: &'static str,
    pub legal: Legal,
    pub meaning: &'static str,
}

const INT: &str = "integer";
const WORD: &str = "string";

/// Every key of [`super::UserConfig`], in file order.
pub const KEYS: &[KeyInfo] = &[
    KeyInfo {
        key: "gpu.sms",
        ty: INT,
        legal: Legal::Range { min: 1, max: 256 },
        meaning: "streaming multiprocessors (SMs) in the GPU",
    },
    KeyInfo {
        key: "gpu.warps_per_sm",
        ty: INT,
        legal: Legal::Range { min: 1, max: 128 },
        meaning: "maximum resident warps per SM",
    },
    KeyInfo {
        key: "gpu.ctas_per_sm",
        ty: INT,
        legal: Legal::Range { min: 1, max: 64 },
        meaning: "maximum resident thread blocks (CTAs) per SM",
    },
    KeyInfo {
        key: "gpu.warp_size",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 64 },
        meaning: "threads per warp",
    },
    KeyInfo {
        key: "gpu.line_bytes",
        ty: INT,
        legal: Legal::Pow2 { min: 16, max: 1024 },
        meaning: "cache-line (memory request) size in bytes; the coalescer merges a warp's accesses into requests of this size",
    },
    KeyInfo {
        key: "ot.entries",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 65536 },
        meaning: "observation-table entries (seed 000 Table III: 1024)",
    },
    KeyInfo {
        key: "ot.ways",
        ty: INT,
        legal: Legal::Pow2 { min: 1, max: 65536 },
        meaning: "associativity: ways per set; ways = entries is fully associative (the paper's table), 1 is direct-mapped",
    },
    KeyInfo {
        key: "ot.replacement",
        ty: WORD,
        legal: Legal::OneOf(super::Replacement::NAMES),
        meaning: "replacement policy within a set: true LRU (as in the paper) or tree pseudo-LRU",
    },
    KeyInfo {
        key: "ot.addrs_per_entry",
        ty: INT,
        legal: Legal::Range { min: 1, max: 4 },
        meaning: "request addresses stored per entry (the reference warp's line requests; the paper stores up to 4)",
    },
    KeyInfo {
        key: "ot.mispredict_threshold",
        ty: INT,
        legal: Legal::Range { min: 0, max: 65534 },
        meaning: "an entry stops predicting once its mispredict counter exceeds this (paper: 64); must be below 2^counter_bits - 1",
    },
    KeyInfo {
        key: "ot.grid_dims",
        ty: INT,
        legal: Legal::Range { min: 1, max: 3 },
        meaning: "grid dimensions the table stores thread-block ids and strides for (1-D, 2-D or 3-D grids)",
    },
    KeyInfo {
        key: "ot.pc_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 64 },
        meaning: "width of the load PC field",
    },
    KeyInfo {
        key: "ot.lec_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 32 },
        meaning: "width of the load execution count (LEC) field; the per-warp count wraps at 2^lec_bits",
    },
    KeyInfo {
        key: "ot.tb_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 31 },
        meaning: "width of each thread-block id component; grids may have up to 2^tb_bits blocks per dimension",
    },
    KeyInfo {
        key: "ot.warp_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 10 },
        meaning: "width of the local warp id (warp within its thread block)",
    },
    KeyInfo {
        key: "ot.addr_bits",
        ty: INT,
        legal: Legal::Range { min: 8, max: 64 },
        meaning: "width of a stored request address (byte address; predictions wrap modulo 2^addr_bits)",
    },
    KeyInfo {
        key: "ot.stride_bits",
        ty: INT,
        legal: Legal::Range { min: 2, max: 64 },
        meaning: "width of each signed stride (per grid dimension and inter-warp); strides that do not fit are not learned",
    },
    KeyInfo {
        key: "ot.counter_bits",
        ty: INT,
        legal: Legal::Range { min: 1, max: 16 },
        meaning: "width of the saturating mispredict counter",
    },
];

/// Look a key up by its dotted name.
pub fn key_info(key: &str) -> Option<&'static KeyInfo> {
    KEYS.iter().find(|k| k.key == key)
}

/// The closest known key to a misspelt one (for "did you mean" hints).
pub fn closest_key(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .map(|k| (edit_distance(k.key, key), k.key))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Check one integer value against its key's legal range.
pub fn check_int(key: &'static str, value: u64) -> Result<u64, SpecError> {
    let info = key_info(key).ok_or(SpecError::UnknownKey {
        key: key.to_string(),
        hint: String::new(),
    })?;
    let ok = match info.legal {
        Legal::Range { min, max } => (min..=max).contains(&value),
        Legal::Pow2 { min, max } => value.is_power_of_two() && (min..=max).contains(&value),
        Legal::OneOf(_) => false,
    };
    if ok {
        Ok(value)
    } else {
        Err(SpecError::OutOfRange {
            key,
            value: value.to_string(),
            legal: info.legal.to_string(),
        })
    }
}
