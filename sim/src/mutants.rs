//! Deliberately wrong RTL variants. Each is a textual patch on the generated module that must
//! apply exactly once (a test checks this for every preset), so the catalogue cannot silently go
//! stale when the template changes. Co-simulation must catch every one within the default cycle
//! budget.

use crate::SimError;
use golden::spec::Block;

/// One mutant: replace `find` by `replace` in file `file`.
#[derive(Debug, Clone, Copy)]
pub struct Mutant {
    pub block: Block,
    pub name: &'static str,
    pub description: &'static str,
    pub file: &'static str,
    pub find: &'static str,
    pub replace: &'static str,
}

/// The catalogue.
pub const MUTANTS: &[Mutant] = &[
    Mutant {
        block: Block::Ot,
        name: "lru-not-updated-on-hit",
        description: "replacement state is updated on allocation only, not when an entry is hit",
        file: "ws_ot_predictor.sv",
        find: "assign touch_valid = obs_do;",
        replace: "assign touch_valid = obs_do & ~obs_hit;",
    },
    Mutant {
        block: Block::Ot,
        name: "stride-sign-flipped",
        description: "a learned grid-dimension stride is stored negated",
        file: "ws_ot_predictor.sv",
        find: "obs_new.stride[d]       = StrideW'(obs_quot);",
        replace: "obs_new.stride[d]       = StrideW'(-obs_quot);",
    },
    Mutant {
        block: Block::Ot,
        name: "inter-warp-stride-not-subtracted",
        description: "step 4: the inter-warp offset is not subtracted before dividing by the block distance",
        file: "ws_ot_predictor.sv",
        find: "obs_known_sum = obs_known_sum + calc_t'(obs_dw) * signed_of(obs_e.iws);",
        replace: "obs_known_sum = obs_known_sum;",
    },
    Mutant {
        block: Block::Ot,
        name: "mispredict-counter-stuck",
        description: "the mispredict counter never increments",
        file: "ws_ot_predictor.sv",
        find: "obs_new.mispredicts = obs_e.mispredicts + CntW'(1);",
        replace: "obs_new.mispredicts = obs_e.mispredicts;",
    },
    Mutant {
        block: Block::Ot,
        name: "wrong-victim-way",
        description: "a full set replaces the way the policy did not choose",
        file: "ws_ot_predictor.sv",
        find: "(obs_free ? obs_free_way : victim_way);",
        replace: "(obs_free ? obs_free_way : ~victim_way);",
    },
    Mutant {
        block: Block::Ot,
        name: "predicted-address-one-bit-short",
        description: "predicted addresses are computed one bit narrower than AddrW (off-by-one width)",
        file: "ws_ot_predictor.sv",
        find: "pred_addr_d[i] = AddrW'(unsigned_of(pred_e.addr[i]) + pred_off);",
        replace: "pred_addr_d[i] = AddrW'((AddrW-1)'(unsigned_of(pred_e.addr[i]) + pred_off));",
    },
    Mutant {
        block: Block::Ot,
        name: "threshold-off-by-one",
        description: "an entry stops predicting when its counter reaches the threshold instead of exceeding it",
        file: "ws_ot_predictor.sv",
        find: "(32'(pred_e.mispredicts) <= Threshold);",
        replace: "(32'(pred_e.mispredicts) < Threshold);",
    },
    Mutant {
        block: Block::Ot,
        name: "launch-does-not-flush",
        description: "a kernel launch keeps the previous kernel's entries",
        file: "ws_ot_predictor.sv",
        find: "      valid_d     = '{default: '0};\n",
        replace: "      valid_d     = valid_q;\n",
    },
];

/// The mutants of one block.
pub fn for_block(block: Block) -> impl Iterator<Item = &'static Mutant> {
    MUTANTS.iter().filter(move |m| m.block == block)
}

/// Find a mutant by name.
pub fn find(block: Block, name: &str) -> Result<&'static Mutant, SimError> {
    for_block(block).find(|m| m.name == name).ok_or_else(|| {
        SimError::Io(format!(
            "unknown mutant `{name}` for block {block}; known: {}",
            for_block(block)
                .map(|m| m.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// Apply a mutant to generated files (name, contents).
pub fn apply(m: &Mutant, files: &[(String, String)]) -> Result<Vec<(String, String)>, SimError> {
    let mut out = files.to_vec();
    let f = out
        .iter_mut()
        .find(|(n, _)| n == m.file)
        .ok_or_else(|| SimError::Io(format!("mutant {}: no file {}", m.name, m.file)))?;
    let count = f.1.matches(m.find).count();
    if count != 1 {
        return Err(SimError::Io(format!(
            "mutant {} does not apply: its pattern occurs {count} times in {} (expected once)",
            m.name, m.file
        )));
    }
    f.1 = f.1.replacen(m.find, m.replace, 1);
    Ok(out)
}
