//! OT transaction stimulus: the public JSON-lines input format, and its packing into cycles.
//!
//! ```text
//! {"op":"launch","grid":[gx,gy,gz],"block":[bx,by,bz]}
//! {"op":"observe","pc":N,"lec":N,"tb":[x,y,z],"warp":N,"addr":N}
//! {"op":"predict","pc":N,"lec":N,"tb":[x,y,z],"warp":N}
//! ```
//! `tb`, `grid` and `block` take one to three elements (missing ones are 0 for `tb`, 1 for
//! `grid`/`block`). Blank lines and lines starting with `#` are skipped.

use super::model::{Launch, Observe, OtIn, OtModel, Query, MAX_DIMS};
use crate::block::IllegalInput;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A block's coordinates in a transaction: one to three (kept inline: the GPU sends one with
/// every load it issues and every line it observes).
pub type Tb = smallvec::SmallVec<[u64; MAX_DIMS]>;

/// The [`Tb`] of a block's three coordinates.
pub fn tb_of(tb: [u32; MAX_DIMS]) -> Tb {
    tb.map(u64::from).into_iter().collect()
}

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
        tb: Tb,
        warp: u64,
        addr: u64,
    },
    Predict {
        pc: u64,
        lec: u64,
        tb: Tb,
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

/// A transaction as the GPU's SMs make it: a query or an observation already in the block's
/// input types (its fields come from the SM's own narrower ones), a launch in the stimulus
/// form. [`GpuTxn::txn`] gives the stimulus form, which packs into the same cycles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuTxn {
    Launch(OtTxn),
    Predict(Query),
    Observe(Observe),
}

impl GpuTxn {
    /// The stimulus form (what an in-place co-simulation replays).
    pub fn txn(&self) -> OtTxn {
        match self {
            GpuTxn::Launch(t) => t.clone(),
            GpuTxn::Predict(q) => OtTxn::Predict {
                pc: q.pc,
                lec: q.lec.into(),
                tb: tb_of(q.tb),
                warp: q.warp.into(),
            },
            GpuTxn::Observe(o) => OtTxn::Observe {
                pc: o.pc,
                lec: o.lec.into(),
                tb: tb_of(o.tb),
                warp: o.warp.into(),
                addr: o.addr,
            },
        }
    }
}

/// Packs [`GpuTxn`]s into the block's cycle inputs: the inputs [`Packer`] and
/// [`CycleOps::input`] make of their stimulus forms ([`GpuTxn::txn`]), built in place.
pub struct GpuTxnPacker<I: Iterator<Item = GpuTxn>> {
    it: std::iter::Peekable<I>,
    warp_size: u32,
}

impl<I: Iterator<Item = GpuTxn>> GpuTxnPacker<I> {
    pub fn new(it: I, warp_size: u32) -> GpuTxnPacker<I> {
        GpuTxnPacker {
            it: it.peekable(),
            warp_size,
        }
    }
}

#[cfg(test)]
thread_local! {
    /// A deliberately wrong variant for the tests: a query never shares its cycle with the
    /// observation after it.
    pub(crate) static LAX_PAIRING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl<I: Iterator<Item = GpuTxn>> Iterator for GpuTxnPacker<I> {
    type Item = Result<OtIn, IllegalInput>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(Ok(match self.it.next()? {
            GpuTxn::Launch(t) => {
                let c = CycleOps {
                    launch: Some((0, t)),
                    ..CycleOps::default()
                };
                return Some(c.input(self.warp_size));
            }
            GpuTxn::Predict(q) => {
                #[cfg(test)]
                let paired = !LAX_PAIRING.with(std::cell::Cell::get);
                #[cfg(not(test))]
                let paired = true;
                OtIn {
                    predict: Some(q),
                    observe: match self.it.peek() {
                        Some(&GpuTxn::Observe(o)) if paired => {
                            self.it.next();
                            Some(o)
                        }
                        _ => None,
                    },
                    launch: None,
                }
            }
            GpuTxn::Observe(o) => OtIn {
                observe: Some(o),
                ..OtIn::default()
            },
        }))
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
        if line.is_empty() || line.starts_with('#') {
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
            err(format!("{}{hint}", crate::run::json_line_error(&e)))
        })?;
        let shape_ok = |v: &[u64]| (1..=MAX_DIMS).contains(&v.len());
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

/// The transactions one cycle carries, with their positions in the stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CycleOps {
    pub launch: Option<(usize, OtTxn)>,
    pub predict: Option<(usize, OtTxn)>,
    pub observe: Option<(usize, OtTxn)>,
}

impl CycleOps {
    /// The transactions of the cycle, in stream order.
    pub fn txns(&self) -> impl Iterator<Item = &(usize, OtTxn)> {
        self.launch
            .iter()
            .chain(self.predict.iter())
            .chain(self.observe.iter())
    }

    /// Position of the last transaction of the cycle.
    pub fn last_index(&self) -> usize {
        self.txns().map(|(i, _)| *i).max().unwrap_or(0)
    }

    /// The block inputs of this cycle.
    pub fn input(&self, warp_size: u32) -> Result<OtIn, IllegalInput> {
        let mut inp = OtIn::default();
        if let Some((_, OtTxn::Launch { grid, block })) = &self.launch {
            inp.launch = Some(launch_of(grid, block, warp_size)?);
        }
        if let Some((_, OtTxn::Predict { pc, lec, tb, warp })) = &self.predict {
            inp.predict = Some(Query {
                pc: *pc,
                lec: narrow(*lec, "lec")?,
                tb: tb3(tb)?,
                warp: narrow(*warp, "warp")?,
            });
        }
        if let Some((
            _,
            OtTxn::Observe {
                pc,
                lec,
                tb,
                warp,
                addr,
            },
        )) = &self.observe
        {
            inp.observe = Some(Observe {
                pc: *pc,
                lec: narrow(*lec, "lec")?,
                tb: tb3(tb)?,
                warp: narrow(*warp, "warp")?,
                addr: *addr,
            });
        }
        Ok(inp)
    }
}

/// Packs a transaction stream into cycles: a launch takes a cycle alone; otherwise a cycle
/// carries an optional query followed by an optional observation. A query may share a cycle
/// only with an observation that comes after it, because the query sees the table before that
/// cycle's update — so packing never changes what any transaction sees.
pub struct Packer<I: Iterator<Item = OtTxn>> {
    it: std::iter::Peekable<std::iter::Enumerate<I>>,
}

impl<I: Iterator<Item = OtTxn>> Packer<I> {
    pub fn new(it: I) -> Packer<I> {
        Packer {
            it: it.enumerate().peekable(),
        }
    }
}

impl<I: Iterator<Item = OtTxn>> Iterator for Packer<I> {
    type Item = CycleOps;

    fn next(&mut self) -> Option<CycleOps> {
        let first = self.it.next()?;
        let mut c = CycleOps::default();
        match first.1 {
            OtTxn::Launch { .. } => c.launch = Some(first),
            OtTxn::Predict { .. } => {
                c.predict = Some(first);
                if self.it.peek().is_some_and(|(_, t)| t.is_observe()) {
                    c.observe = self.it.next();
                }
            }
            OtTxn::Observe { .. } => c.observe = Some(first),
        }
        Some(c)
    }
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
    for c in Packer::new(txns.iter().cloned()) {
        // Check each transaction of the cycle on its own so the message names its line.
        for (i, t) in c.txns() {
            let fail = |e: IllegalInput| StimulusError {
                source_name: source_name.to_string(),
                line: lines.get(*i).copied().unwrap_or(i + 1),
                message: e.0,
            };
            let mut single = CycleOps::default();
            match t {
                OtTxn::Launch { .. } => single.launch = Some((*i, t.clone())),
                OtTxn::Predict { .. } => single.predict = Some((*i, t.clone())),
                OtTxn::Observe { .. } => single.observe = Some((*i, t.clone())),
            }
            scratch
                .check(&single.input(warp_size).map_err(fail)?)
                .map_err(fail)?;
        }
        if let Ok(inp) = c.input(warp_size) {
            let _ = scratch.step(&inp);
        }
    }
    Ok(())
}
