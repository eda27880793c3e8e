//! DRAM commands ([`CmdKind`], [`Command`]) and the command trace: one line per issued command
//! (`--command-trace FILE`), written ([`CommandTrace`]) and read back ([`parse_trace`]) for
//! the independent checker.

use std::fmt;
use std::io::{self, Write};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A DRAM command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum CmdKind {
    /// Activate (open) a row.
    Act,
    /// Precharge (close) one bank.
    Pre,
    /// Precharge all banks.
    PreA,
    /// Read.
    Rd,
    /// Write.
    Wr,
    /// Read with auto-precharge.
    Rda,
    /// Write with auto-precharge.
    Wra,
    /// All-bank refresh.
    Ref,
}

impl CmdKind {
    /// Every command, in index order.
    pub const ALL: [CmdKind; 8] = [
        CmdKind::Act,
        CmdKind::Pre,
        CmdKind::PreA,
        CmdKind::Rd,
        CmdKind::Wr,
        CmdKind::Rda,
        CmdKind::Wra,
        CmdKind::Ref,
    ];

    /// Index into [`CmdKind::ALL`] and
    /// [`ChannelStats::commands`](super::dram::ChannelStats::commands).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The trace name (`ACT PRE PREA RD WR RDA WRA REF`).
    pub fn name(self) -> &'static str {
        match self {
            CmdKind::Act => "ACT",
            CmdKind::Pre => "PRE",
            CmdKind::PreA => "PREA",
            CmdKind::Rd => "RD",
            CmdKind::Wr => "WR",
            CmdKind::Rda => "RDA",
            CmdKind::Wra => "WRA",
            CmdKind::Ref => "REF",
        }
    }

    /// The command of a trace name (exact, upper case).
    pub fn from_name(name: &str) -> Option<CmdKind> {
        CmdKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// RD, WR, RDA or WRA.
    pub fn is_column(self) -> bool {
        matches!(
            self,
            CmdKind::Rd | CmdKind::Wr | CmdKind::Rda | CmdKind::Wra
        )
    }

    /// RD or RDA.
    pub fn is_read(self) -> bool {
        matches!(self, CmdKind::Rd | CmdKind::Rda)
    }

    /// WR or WRA.
    pub fn is_write(self) -> bool {
        matches!(self, CmdKind::Wr | CmdKind::Wra)
    }

    /// RDA or WRA.
    pub fn is_auto_precharge(self) -> bool {
        matches!(self, CmdKind::Rda | CmdKind::Wra)
    }

    /// PREA or REF: commands to every bank (their `bank` field is ignored).
    pub fn is_all_bank(self) -> bool {
        matches!(self, CmdKind::PreA | CmdKind::Ref)
    }
}

impl fmt::Display for CmdKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One command with its address. `row` is the row to open (ACT) or the row a column command
/// expects open (B3); `col` is carried for traces only. PREA and REF ignore every field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Command {
    pub kind: CmdKind,
    pub bank: u32,
    pub row: u32,
    pub col: u32,
}

impl Command {
    pub fn act(bank: u32, row: u32) -> Command {
        Command {
            kind: CmdKind::Act,
            bank,
            row,
            col: 0,
        }
    }
    pub fn pre(bank: u32) -> Command {
        Command {
            kind: CmdKind::Pre,
            bank,
            row: 0,
            col: 0,
        }
    }
    pub fn prea() -> Command {
        Command {
            kind: CmdKind::PreA,
            bank: 0,
            row: 0,
            col: 0,
        }
    }
    pub fn rd(bank: u32, row: u32, col: u32) -> Command {
        Command {
            kind: CmdKind::Rd,
            bank,
            row,
            col,
        }
    }
    pub fn wr(bank: u32, row: u32, col: u32) -> Command {
        Command {
            kind: CmdKind::Wr,
            bank,
            row,
            col,
        }
    }
    pub fn rda(bank: u32, row: u32, col: u32) -> Command {
        Command {
            kind: CmdKind::Rda,
            bank,
            row,
            col,
        }
    }
    pub fn wra(bank: u32, row: u32, col: u32) -> Command {
        Command {
            kind: CmdKind::Wra,
            bank,
            row,
            col,
        }
    }
    pub fn refresh() -> Command {
        Command {
            kind: CmdKind::Ref,
            bank: 0,
            row: 0,
            col: 0,
        }
    }
}

/// One line of a command trace (`--command-trace FILE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceCmd {
    pub cycle: u64,
    pub channel: u32,
    pub bank: u32,
    pub kind: CmdKind,
    pub row: u32,
    pub col: u32,
}

/// A trace line that does not parse; `line` is 1-based.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("command trace line {line}: {message}")]
pub struct TraceError {
    pub line: usize,
    pub message: String,
}

impl TraceCmd {
    /// The trace record of `cmd` issued at `cycle` on `channel`.
    pub fn new(cycle: u64, channel: u32, cmd: &Command) -> TraceCmd {
        TraceCmd {
            cycle,
            channel,
            bank: cmd.bank,
            kind: cmd.kind,
            row: cmd.row,
            col: cmd.col,
        }
    }

    /// The command of this record.
    pub fn command(&self) -> Command {
        Command {
            kind: self.kind,
            bank: self.bank,
            row: self.row,
            col: self.col,
        }
    }

    /// `cycle,channel,bank,CMD,row,col`, no newline.
    pub fn to_line(&self) -> String {
        format!(
            "{},{},{},{},{},{}",
            self.cycle,
            self.channel,
            self.bank,
            self.kind.name(),
            self.row,
            self.col
        )
    }

    /// Parse one line (`line_no` is 1-based, for the error). Surrounding white space is allowed.
    pub fn parse_line(line: &str, line_no: usize) -> Result<TraceCmd, TraceError> {
        let err = |message: String| TraceError {
            line: line_no,
            message,
        };
        let fields: Vec<&str> = line.trim().split(',').map(str::trim).collect();
        if fields.len() != 6 {
            return Err(err(format!(
                "expected 6 comma-separated fields `cycle,channel,bank,CMD,row,col`, found {}",
                fields.len()
            )));
        }
        let num = |i: usize, name: &str| -> Result<u64, TraceError> {
            fields[i]
                .parse::<u64>()
                .map_err(|e| err(format!("{name} `{}`: {e}", fields[i])))
        };
        let num32 = |i: usize, name: &str| -> Result<u32, TraceError> {
            let v = num(i, name)?;
            u32::try_from(v).map_err(|_| err(format!("{name} {v} does not fit 32 bits")))
        };
        let kind = CmdKind::from_name(fields[3]).ok_or_else(|| {
            err(format!(
                "unknown command `{}` (commands are ACT PRE PREA RD WR RDA WRA REF)",
                fields[3]
            ))
        })?;
        Ok(TraceCmd {
            cycle: num(0, "cycle")?,
            channel: num32(1, "channel")?,
            bank: num32(2, "bank")?,
            kind,
            row: num32(4, "row")?,
            col: num32(5, "col")?,
        })
    }
}

/// Parse a whole trace; blank lines and lines starting with `#` are skipped.
pub fn parse_trace(text: &str) -> Result<Vec<TraceCmd>, TraceError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim();
            !l.is_empty() && !l.starts_with('#')
        })
        .map(|(i, l)| TraceCmd::parse_line(l, i + 1))
        .collect()
}

/// Writes a command trace, one [`TraceCmd::to_line`] per command.
#[derive(Debug)]
pub struct CommandTrace<W: Write> {
    out: W,
    written: u64,
}

impl<W: Write> CommandTrace<W> {
    pub fn new(out: W) -> CommandTrace<W> {
        CommandTrace { out, written: 0 }
    }

    /// Append one command.
    pub fn record(&mut self, cmd: &TraceCmd) -> io::Result<()> {
        writeln!(self.out, "{}", cmd.to_line())?;
        self.written += 1;
        Ok(())
    }

    /// Commands written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flush and return the writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
