//! OT transaction stimulus: the public JSON-lines input format, and its packing into cycles.
//!
//! ```text
//! {"op":"launch","grid":[gx,gy,gz],"block":[bx,by,bz]}
//! {"op":"observe","pc":N,"lec":N,"tb":[x,y,z],"warp":N,"addr":N}
//! {"op":"predict","pc":N,"lec":N,"tb":[x,y,z],"warp":N}
//! ```
//! `tb`, `grid` and `block` take one to three elements (missing ones are 0 for `tb`, 1 for
//! `grid`/`block`). Blank lines are skipped.

use super::model::{Launch, Observe, OtIn, OtModel, Query, MAX_DIMS};
use crate::block::IllegalInput;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One transaction of the public stimulus format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum OtTxn {
    Launch {
        grid: Vec<u64>,
        block: Vec<u64>,
    },
    Observe {
        pc: u64,
        lec: u64,
        tb: Vec<u64>,
        warp: u64,
        addr: u64,
    },
    Predict {
        pc: u64,
        lec: u64,
        tb: Vec<u64>,
        warp: u64,
    },
}

impl OtTxn {
    pub fn is_predict(&self) -> bool {
        matches!(self, OtTxn::Predict { .. })
    }
    pub fn is_observe(&self) -> bool {
        matches!(self, OtTxn::Observe { .. })
    }
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A stimulus problem, with the 1-based line it was found on.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{source_name}:{line}: {message}")]
pub struct StimulusError {
    pub source_name: String,
    pub line: usize,
    pub message: String,
}

/// Parse a JSON-lines stimulus. Returns each transaction with its line number.
pub fn parse(text: &str, source_name: &str) -> Result<Vec<(usize, OtTxn)>, StimulusError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let err = |message: String| StimulusError {
            source_name: source_name.to_string(),
            line: i + 1,
            message,
        };
        let txn: OtTxn = serde_json::from_str(line).map_err(|e| {
            let hint = if e.to_string().contains("unknown variant") {
                " (ops are launch, observe, predict)"
            } else {
                ""
            };
            err(format!("{e}{hint}"))
        })?;
        let shape_ok = |v: &Vec<u64>| (1..=MAX_DIMS).contains(&v.len());
        let bad = match &txn {
            OtTxn::Launch { grid, block } => {
                if !shape_ok(grid) || !shape_ok(block) {
                    Some("`grid` and `block` need 1 to 3 elements".to_string())
                } else if grid.contains(&0) || block.contains(&0) {
                    Some("`grid` and `block` sizes must be at least 1".to_string())
                } else {
                    None
                }
            }
            OtTxn::Observe { tb, .. } | OtTxn::Predict { tb, .. } => {
                (!shape_ok(tb)).then(|| "`tb` needs 1 to 3 elements".to_string())
            }
        };
        if let Some(m) = bad {
            return Err(err(m));
        }
        out.push((i + 1, txn));
    }
    Ok(out)
}

/// Write transactions as JSON lines.
pub fn to_jsonl(txns: &[OtTxn]) -> String {
    let mut s = String::new();
    for t in txns {
        s.push_str(&t.to_json());
        s.push('\n');
    }
    s
}

fn dims3(v: &[u64], fill: u64) -> [u64; MAX_DIMS] {
    let mut a = [fill; MAX_DIMS];
    for (d, x) in v.iter().enumerate().take(MAX_DIMS) {
        a[d] = *x;
    }
    a
}

fn narrow(v: u64, what: &str) -> Result<u32, IllegalInput> {
    u32::try_from(v).map_err(|_| IllegalInput(format!("{what} {v} is too large")))
}

fn tb3(tb: &[u64]) -> Result<[u32; MAX_DIMS], IllegalInput> {
    let t = dims3(tb, 0);
    Ok([
        narrow(t[0], "tb")?,
        narrow(t[1], "tb")?,
        narrow(t[2], "tb")?,
    ])
}

/// Convert a launch to what the block sees: last block id per dimension, last warp id.
pub fn launch_of(grid: &[u64], block: &[u64], warp_size: u32) -> Result<Launch, IllegalInput> {
    let g = dims3(grid, 1);
    let b = dims3(block, 1);
    let threads = b[0]
        .checked_mul(b[1])
        .and_then(|x| x.checked_mul(b[2]))
        .ok_or_else(|| IllegalInput("block has too many threads".into()))?;
    let warps = threads.div_ceil(u64::from(warp_size));
    Ok(Launch {
        tb_last: [
            narrow(g[0] - 1, "grid")?,
            narrow(g[1] - 1, "grid")?,
            narrow(g[2] - 1, "grid")?,
        ],
        warp_last: narrow(warps - 1, "warps per block")?,
    })
}

/// Which transactions a cycle carries (indices into the transaction list).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CycleTxns {
    pub launch: Option<usize>,
    pub predict: Option<usize>,
    pub observe: Option<usize>,
}

/// Packs transactions into cycles: a launch takes a cycle alone; otherwise a cycle carries an
/// optional query followed by an optional observation. A query may share a cycle only with an
/// observation that comes after it, because the query sees the table before that cycle's
/// update — so packing never changes what any transaction sees.
pub fn next_cycle(txns: &[OtTxn], pos: &mut usize) -> Option<CycleTxns> {
    let first = txns.get(*pos)?;
    let mut c = CycleTxns::default();
    match first {
        OtTxn::Launch { .. } => {
            c.launch = Some(*pos);
            *pos += 1;
        }
        OtTxn::Predict { .. } => {
            c.predict = Some(*pos);
            *pos += 1;
            if txns.get(*pos).is_some_and(OtTxn::is_observe) {
                c.observe = Some(*pos);
                *pos += 1;
            }
        }
        OtTxn::Observe { .. } => {
            c.observe = Some(*pos);
            *pos += 1;
        }
    }
    Some(c)
}

/// Build one cycle's block inputs.
pub fn cycle_input(txns: &[OtTxn], c: &CycleTxns, warp_size: u32) -> Result<OtIn, IllegalInput> {
    let mut inp = OtIn::default();
    if let Some(i) = c.launch {
        if let OtTxn::Launch { grid, block } = &txns[i] {
            inp.launch = Some(launch_of(grid, block, warp_size)?);
        }
    }
    if let Some(i) = c.predict {
        if let OtTxn::Predict { pc, lec, tb, warp } = &txns[i] {
            inp.predict = Some(Query {
                pc: *pc,
                lec: narrow(*lec, "lec")?,
                tb: tb3(tb)?,
                warp: narrow(*warp, "warp")?,
            });
        }
    }
    if let Some(i) = c.observe {
        if let OtTxn::Observe {
            pc,
            lec,
            tb,
            warp,
            addr,
        } = &txns[i]
        {
            inp.observe = Some(Observe {
                pc: *pc,
                lec: narrow(*lec, "lec")?,
                tb: tb3(tb)?,
                warp: narrow(*warp, "warp")?,
                addr: *addr,
            });
        }
    }
    Ok(inp)
}

/// Check a whole stimulus against the block's input rules before running it, by replaying it
/// through a scratch model. `lines` gives each transaction's source line for the message.
pub fn validate(
    model: &OtModel,
    txns: &[OtTxn],
    lines: &[usize],
    warp_size: u32,
    source_name: &str,
) -> Result<(), StimulusError> {
    use crate::block::CycleModel;
    let mut scratch = model.clone();
    scratch.reset();
    let mut pos = 0;
    while let Some(c) = next_cycle(txns, &mut pos) {
        // Check each transaction of the cycle on its own so the message names its line.
        for (i, part) in [
            (
                c.launch,
                CycleTxns {
                    launch: c.launch,
                    ..Default::default()
                },
            ),
            (
                c.predict,
                CycleTxns {
                    predict: c.predict,
                    ..Default::default()
                },
            ),
            (
                c.observe,
                CycleTxns {
                    observe: c.observe,
                    ..Default::default()
                },
            ),
        ] {
            let Some(i) = i else { continue };
            let fail = |e: IllegalInput| StimulusError {
                source_name: source_name.to_string(),
                line: lines.get(i).copied().unwrap_or(i + 1),
                message: e.0,
            };
            let inp = cycle_input(txns, &part, warp_size).map_err(fail)?;
            scratch.check(&inp).map_err(fail)?;
        }
        let inp = cycle_input(txns, &c, warp_size).map_err(|e| StimulusError {
            source_name: source_name.to_string(),
            line: 0,
            message: e.0,
        })?;
        let _ = scratch.step(&inp);
    }
    Ok(())
}
