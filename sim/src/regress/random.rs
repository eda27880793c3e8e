//! Constrained-random configurations: legal configurations drawn from the key schema around a
//! preset, for finding generator bugs at parameter points nobody chose; and the shrinking of a
//! failing one to the fewest keys that differ from the preset.

use super::RegressError;
use crate::registry::BlockEntry;
use golden::rng::Rng;
use spec::schema::{KeyInfo, Legal};
use spec::{ConfigRequest, Spec, UserConfig};

/// Draws tried per configuration before giving up (a draw can break a rule between keys or
/// exceed the size bound).
const ATTEMPTS: usize = 400;

/// The keys drawn for `block`: those of its configuration sections.
pub fn keys_of(block: &BlockEntry) -> Vec<&'static KeyInfo> {
    UserConfig::keys()
        .into_iter()
        .filter(|k| {
            block
                .key_sections
                .iter()
                .any(|s| k.key.split_once('.').is_some_and(|(sec, _)| sec == *s))
        })
        .collect()
}

/// A value for `k`, biased to the edges of its range and to powers of two; `None` for free
/// text (its own parser's syntax is not drawn).
fn value(k: &KeyInfo, rng: &mut Rng) -> Option<String> {
    let int = |min: u64, max: u64, rng: &mut Rng, pow2_only: bool| -> u64 {
        let pow2s: Vec<u64> = (0..64)
            .map(|b| 1u64 << b)
            .filter(|&p| p >= min && p <= max)
            .collect();
        if pow2_only || (!pow2s.is_empty() && rng.chance(400)) {
            // Powers of two, the smallest and largest most often.
            return match rng.below(4) {
                0 => pow2s[0],
                1 => pow2s[pow2s.len() - 1],
                _ => *rng.pick(&pow2s),
            };
        }
        match rng.below(6) {
            0 => min,
            1 => max,
            2 => min.saturating_add(1).min(max),
            3 => max.saturating_sub(1).max(min),
            _ => min + rng.below((max - min).saturating_add(1)),
        }
    };
    Some(match k.legal {
        Legal::Range { min, max } => int(min, max, rng, false).to_string(),
        Legal::Pow2 { min, max } => int(min, max, rng, true).to_string(),
        Legal::OneOf(words) => rng.pick(words).to_string(),
        Legal::Bool => rng.chance(500).to_string(),
        Legal::Text => return None,
    })
}

/// The `--set` list of one draw: each key of the block changed with probability 1/2.
fn draw_one(keys: &[&'static KeyInfo], rng: &mut Rng) -> Vec<String> {
    keys.iter()
        .filter_map(|k| {
            if rng.chance(500) {
                value(k, rng).map(|v| format!("{}={v}", k.key))
            } else {
                None
            }
        })
        .collect()
}

fn resolve(preset: &str, sets: &[String]) -> Result<Spec, spec::SpecError> {
    ConfigRequest {
        preset: Some(preset.to_string()),
        overrides: sets.to_vec(),
        ..ConfigRequest::default()
    }
    .resolve()
}

/// The largest flip-flop count of `block` over the presets: draws above it are refused, so a
/// random configuration builds and simulates in about the time the presets do.
pub fn size_bound(block: &BlockEntry) -> u64 {
    spec::PRESETS
        .iter()
        .filter_map(|p| ConfigRequest::preset(p.name).resolve().ok())
        .map(|s| (block.cost)(&s).flip_flop_bits)
        .max()
        .unwrap_or(u64::MAX)
}

/// `n` legal configurations of `block` around `preset`, as `--set` lists, deterministic in
/// `seed`: every rule between keys holds (the spec validates each) and the block's flip-flops
/// stay within [`size_bound`]. Distinct and never the preset itself.
pub fn draw(
    block: &BlockEntry,
    preset: &str,
    seed: u64,
    n: usize,
) -> Result<Vec<Vec<String>>, RegressError> {
    let keys = keys_of(block);
    let bound = size_bound(block);
    let mut rng = Rng::new(seed ^ golden::rng::mix64(n as u64));
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut hashes = std::collections::HashSet::new();
    hashes.insert(
        resolve(preset, &[])
            .map_err(|e| RegressError::BadInput(e.to_string()))?
            .hash
            .to_string(),
    );
    while out.len() < n {
        let mut found = None;
        for _ in 0..ATTEMPTS {
            let sets = draw_one(&keys, &mut rng);
            let Ok(spec) = resolve(preset, &sets) else {
                continue;
            };
            if (block.cost)(&spec).flip_flop_bits > bound || !hashes.insert(spec.hash.to_string()) {
                continue;
            }
            found = Some(sets);
            break;
        }
        let Some(sets) = found else {
            return Err(RegressError::BadInput(format!(
                "{}: no new legal configuration of {} within {ATTEMPTS} draws after {}",
                preset,
                block.name,
                out.len()
            )));
        };
        out.push(sets);
    }
    Ok(out)
}

/// The fewest of `sets` that still make `fails` true: each key is dropped (left at the
/// preset's value) when the configuration without it still resolves and still fails, until
/// no key can go. `fails` is called at most `sets.len()` times per pass.
pub fn shrink(
    preset: &str,
    sets: &[String],
    mut fails: impl FnMut(&[String]) -> bool,
) -> Vec<String> {
    let mut cur = sets.to_vec();
    loop {
        let mut dropped = false;
        let mut i = 0;
        while i < cur.len() {
            let mut without = cur.clone();
            without.remove(i);
            if resolve(preset, &without).is_ok() && fails(&without) {
                cur = without;
                dropped = true;
            } else {
                i += 1;
            }
        }
        if !dropped {
            return cur;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::BLOCKS;

    #[test]
    fn draws_are_legal_bounded_distinct_and_repeatable() {
        for b in BLOCKS {
            for p in ["tiny", "turing-rtx2060s"] {
                let a = draw(b, p, 7, 12).unwrap();
                assert_eq!(a, draw(b, p, 7, 12).unwrap(), "{} {p}", b.name);
                assert_ne!(a, draw(b, p, 8, 12).unwrap());
                let bound = size_bound(b);
                let mut hashes = std::collections::HashSet::new();
                for sets in &a {
                    assert!(sets.iter().all(|kv| b
                        .key_sections
                        .iter()
                        .any(|s| kv.starts_with(&format!("{s}.")))));
                    let s = resolve(p, sets).unwrap();
                    assert!((b.cost)(&s).flip_flop_bits <= bound);
                    assert!(hashes.insert(s.hash.to_string()), "{sets:?}");
                }
            }
        }
    }

    #[test]
    fn draws_reach_the_edges_of_the_ranges() {
        // Over many draws each integer key of the OT takes its smallest legal value (when a rule
        // allows it on its own) and something other than the preset's.
        let b = crate::blocks::find("ot").unwrap();
        let all: Vec<String> = draw(b, "tiny", 1, 60).unwrap().concat();
        for k in keys_of(b) {
            if let Legal::Range { min, .. } | Legal::Pow2 { min, .. } = k.legal {
                let set = format!("{}={min}", k.key);
                if resolve("tiny", std::slice::from_ref(&set)).is_ok() {
                    assert!(all.contains(&set), "{set} never drawn");
                }
            }
        }
    }

    #[test]
    fn shrinking_keeps_only_the_keys_that_matter() {
        let sets: Vec<String> = [
            "ot.ways=2",
            "ot.addrs_per_entry=1",
            "ot.mispredict_threshold=1",
        ]
        .map(String::from)
        .to_vec();
        // A "bug" that shows whenever the threshold is 1.
        let got = shrink("tiny", &sets, |s| {
            s.iter().any(|kv| kv == "ot.mispredict_threshold=1")
        });
        assert_eq!(got, vec!["ot.mispredict_threshold=1".to_string()]);
        // A failure that needs any two keys keeps exactly two: a key goes only while the rest
        // still fails.
        let got = shrink("tiny", &sets, |s| s.len() >= 2);
        assert_eq!(got.len(), 2);
    }
}
