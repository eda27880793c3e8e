//! Deliberately wrong RTL variants. Each is a textual patch on the generated module that must
//! apply exactly once (a test checks this for every preset), so the catalogue cannot silently go
//! stale when the template changes. Co-simulation must catch every one within the default cycle
//! budget.

use crate::ot::Failure;
use crate::SimError;
use golden::spec::{Block, Spec};
use serde::Serialize;

/// One mutant: replace `find` by `replace` in file `file`.
#[derive(Debug, Clone, Copy)]
pub struct Mutant {
    pub block: Block,
    pub name: &'static str,
    pub description: &'static str,
    pub file: &'static str,
    pub find: &'static str,
    pub replace: &'static str,
    /// For a configuration on which no stimulus can tell the mutant from the original (an
    /// equivalent mutant), the reason; such a run reports "equivalent" instead of co-simulating.
    pub unreachable: fn(&Spec) -> Option<String>,
}

/// Every configuration can expose the mutant.
fn always_reachable(_: &Spec) -> Option<String> {
    None
}

/// A warp entry table counter can only saturate if its controllers can hold more pending
/// requests than the counter's maximum.
fn counter_never_saturates(s: &Spec) -> Option<String> {
    let most = s.mc.queue_entries * s.wmc.wet_ctrls;
    (most <= s.wmc.pending_max).then(|| {
        format!(
            "equivalent on this configuration: at most {most} requests are pending per warp entry table \
             (mc.queue_entries {} x {} controllers in its scope), so a {}-bit counter never passes {}",
            s.mc.queue_entries, s.wmc.wet_ctrls, s.wmc.pending_bits, s.wmc.pending_max
        )
    })
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
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Ot,
        name: "stride-sign-flipped",
        description: "a learned grid-dimension stride is stored negated",
        file: "ws_ot_predictor.sv",
        find: "obs_new.stride[d]       = StrideW'(obs_quot);",
        replace: "obs_new.stride[d]       = StrideW'(-obs_quot);",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Ot,
        name: "inter-warp-stride-not-subtracted",
        description: "step 4: the inter-warp offset is not subtracted before dividing by the block distance",
        file: "ws_ot_predictor.sv",
        find: "obs_known_sum = obs_known_sum + calc_t'(obs_dw) * signed_of(obs_e.iws);",
        replace: "obs_known_sum = obs_known_sum;",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Ot,
        name: "mispredict-counter-stuck",
        description: "the mispredict counter never increments",
        file: "ws_ot_predictor.sv",
        find: "obs_new.mispredicts = obs_e.mispredicts + CntW'(1);",
        replace: "obs_new.mispredicts = obs_e.mispredicts;",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Ot,
        name: "wrong-victim-way",
        description: "a full set replaces the way the policy did not choose",
        file: "ws_ot_predictor.sv",
        find: "(obs_free ? obs_free_way : victim_way);",
        replace: "(obs_free ? obs_free_way : ~victim_way);",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Ot,
        name: "predicted-address-one-bit-short",
        description: "predicted addresses are computed one bit narrower than AddrW (off-by-one width)",
        file: "ws_ot_predictor.sv",
        find: "pred_addr_d[i] = AddrW'(unsigned_of(pred_e.addr[i]) + pred_off);",
        replace: "pred_addr_d[i] = AddrW'((AddrW-1)'(unsigned_of(pred_e.addr[i]) + pred_off));",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Ot,
        name: "threshold-off-by-one",
        description: "an entry stops predicting when its counter reaches the threshold instead of exceeding it",
        file: "ws_ot_predictor.sv",
        find: "(32'(pred_e.mispredicts) <= Threshold);",
        replace: "(32'(pred_e.mispredicts) < Threshold);",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Ot,
        name: "launch-does-not-flush",
        description: "a kernel launch keeps the previous kernel's entries",
        file: "ws_ot_predictor.sv",
        find: "      valid_d     = '{default: '0};\n",
        replace: "      valid_d     = valid_q;\n",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "wet-service-ignored",
        description: "serviced requests never decrement the warp entry table",
        file: "ws_warped_mc.sv",
        find: "port_valid[2 * c + 1] = svc_valid_i[c];",
        replace: "port_valid[2 * c + 1] = 1'b0;",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "class-h-at-two-pending",
        description: "a row hit counts as a warp's last request while two are still pending",
        file: "ws_warped_mc.sv",
        find: "<= PendW'(1)) ? WmcH :",
        replace: "<= PendW'(2)) ? WmcH :",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "score-kept-on-activate",
        description: "activating a row does not clear its row score",
        file: "ws_warped_mc.sv",
        find: "rs_d[rs_idx(c, act_bank_i[c], RowIdxW'(act_row_i[c]))] = '0;",
        replace: "rs_d[rs_idx(c, act_bank_i[c], RowIdxW'(act_row_i[c]))] = rs_q[rs_idx(c, act_bank_i[c], RowIdxW'(act_row_i[c]))];",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "round-robin-stuck",
        description: "the bank round-robin pointer never moves",
        file: "ws_warped_mc.sv",
        find: "BankW'((32'(sel_bank_o[c]) + 1) % NumBanks) : rr_q[c];",
        replace: "rr_q[c] : rr_q[c];",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "priority-pool-ignored",
        description: "banks in the priority table's high pool get no precedence",
        file: "ws_warped_mc.sv",
        find: "pt_q[c * NumBanks + 32'(b)] != '0) begin",
        replace: "1'b0) begin",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "lowest-score-row-opened",
        description: "a row miss opens the lowest-scoring pending row",
        file: "ws_warped_mc.sv",
        find: "cand_score[c * NumCand + k] > miss_score) begin",
        replace: "cand_score[c * NumCand + k] < miss_score) begin",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "pending-counter-wraps",
        description: "the pending-request counter wraps instead of saturating",
        file: "ws_warped_mc.sv",
        find: "(count > int'(PendMax)) ? PendMax : PendW'(count);",
        replace: "PendW'(count);",
        unreachable: counter_never_saturates,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "m-before-h",
        description: "among a bank's row hits, other requests go before a warp's last one",
        file: "ws_warped_mc.sv",
        find: "cand_class[c * NumCand + k] > hit_cls) begin",
        replace: "cand_class[c * NumCand + k] < hit_cls) begin",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "last-warp-not-recorded",
        description: "a service does not record its warp, so that warp's further hits stay L",
        file: "ws_warped_mc.sv",
        find: "last_gwid_d[c]  = svc_valid_i[c] ? svc_gwid_i[c] : last_gwid_q[c];",
        replace: "last_gwid_d[c]  = last_gwid_q[c];",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::WarpedMc,
        name: "remote-service-as-own",
        description: "services of other controllers of the WET scope count as the controller's own",
        file: "ws_warped_mc.sv",
        find: "last_gwid_d[c]  = svc_valid_i[c] ? svc_gwid_i[c] : last_gwid_q[c];",
        replace: "last_gwid_d[c]  = svc_valid_i[NumWetCtrl - 1 - c] ? svc_gwid_i[NumWetCtrl - 1 - c] : last_gwid_q[c];",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Dispatch,
        name: "here-lowest-wins",
        description: "the entry sharing the fewest lines with the target SM wins",
        file: "ws_dispatch.sv",
        find: "if (!here_valid_n || here > here_best_n) begin",
        replace: "if (!here_valid_n || here < here_best_n) begin",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Dispatch,
        name: "ties-go-to-youngest",
        description: "among entries sharing as many lines, the youngest wins",
        file: "ws_dispatch.sv",
        find: "if (!here_valid_n || here > here_best_n) begin",
        replace: "if (!here_valid_n || here >= here_best_n) begin",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Dispatch,
        name: "fallback-most-shared-elsewhere",
        description: "without overlap on the target SM, the entry sharing the most with other SMs wins",
        file: "ws_dispatch.sv",
        find: "if (!else_valid_n || elsewhere < else_best_n) begin",
        replace: "if (!else_valid_n || elsewhere > else_best_n) begin",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Dispatch,
        name: "no-zero-overlap-fallback",
        description: "with no overlap anywhere on the target SM, the fallback rule is skipped",
        file: "ws_dispatch.sv",
        find: "(here_valid_n && here_best_n != '0) ? here_idx_n : else_idx_n;",
        replace: "here_idx_n;",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Dispatch,
        name: "sm-round-robin-stuck",
        description: "the SM round-robin pointer never moves",
        file: "ws_dispatch.sv",
        find: "rr_sm_d      = SmW'((32'(free_sm) + 1) % NumSms);",
        replace: "rr_sm_d      = rr_sm_q;",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Dispatch,
        name: "queue-not-compacted",
        description: "a dispatched entry's younger neighbours do not move up",
        file: "ws_dispatch.sv",
        find: "if (q >= 32'(offer_idx_q)) begin",
        replace: "if (q >= 32'(offer_idx_q) + NumQueue) begin",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Dispatch,
        name: "done-ignored",
        description: "a finished block never frees its slot",
        file: "ws_dispatch.sv",
        find: "run_valid_d[32'(done_sm_i) * NumSlots + 32'(done_slot_i)] = 1'b0;",
        replace: "run_valid_d[32'(done_sm_i) * NumSlots + 32'(done_slot_i)] = 1'b1;",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Dispatch,
        name: "overlap-not-clipped",
        description: "disjoint rectangles count a wrapped-around overlap",
        file: "ws_dispatch.sv",
        find: "ix = (hi_x > lo_x) ? CoordW'(hi_x - lo_x) : '0;",
        replace: "ix = CoordW'(hi_x - lo_x);",
        unreachable: always_reachable,
    },
    Mutant {
        block: Block::Dispatch,
        name: "last-free-slot",
        description: "the decision takes the SM's last free slot instead of its first",
        file: "ws_dispatch.sv",
        find: "if (!slot_found && !run_valid_q[32'(scan_sm_q) * NumSlots + k]) begin",
        replace: "if (!run_valid_q[32'(scan_sm_q) * NumSlots + k]) begin",
        unreachable: always_reachable,
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

/// What co-simulating one mutant found.
#[derive(Debug, Clone, Serialize)]
pub struct MutantResult {
    pub name: &'static str,
    pub description: &'static str,
    pub caught: bool,
    /// Why no stimulus can catch the mutant on this configuration (then `caught` is false and
    /// the mutant was not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equivalent: Option<String>,
    pub cycle: Option<u64>,
    pub port: Option<&'static str>,
    pub kind: Option<&'static str>,
}

impl MutantResult {
    /// The result for a mutant that is equivalent on `spec`, if it is.
    pub fn equivalent(m: &Mutant, spec: &Spec) -> Option<MutantResult> {
        (m.unreachable)(spec).map(|why| MutantResult {
            name: m.name,
            description: m.description,
            caught: false,
            equivalent: Some(why),
            cycle: None,
            port: None,
            kind: None,
        })
    }

    /// The result of a run that ended with `failure` (caught) or without (missed).
    pub fn of(m: &Mutant, failure: Option<&Failure>) -> MutantResult {
        MutantResult {
            name: m.name,
            description: m.description,
            caught: failure.is_some(),
            equivalent: None,
            cycle: failure.map(|f| f.cycle),
            port: failure.and_then(|f| f.port),
            kind: failure.map(|f| f.kind),
        }
    }
}
