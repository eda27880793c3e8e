//! A workload written as an Accel-Sim trace (tracer version 5): `kernelslist.g`, naming each
//! launch's `kernel-<id>.traceg` and the host's copies before it (`MemcpyHtoD`), and each
//! kernel's header and thread blocks, every warp's instructions as the emulation makes them
//! ([`super::launch::LaunchBlocks::whole`]). The trace reader reads it back, and Accel-Sim and
//! microgpusim can run it.

use super::launch::LaunchBlocks;
use super::mem::DeviceMemory;
use super::{make, start, SuiteError};
use crate::workload::accelsim::{Inst, KernelHeader, LaneAddrs, TraceBlock};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

/// What a written trace holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub kernels: u64,
    pub blocks: u64,
    pub instructions: u64,
}

/// Opens a file of the trace folder by name for writing.
pub type Open<'a> = dyn FnMut(&str) -> std::io::Result<Box<dyn Write>> + 'a;

/// Write workload `spec` (`NAME[:ARGS]`, inputs by `seed`) as a trace, each file through
/// `open`; the list last, once every kernel's file is whole. The application's results are
/// verified, as a run's are.
pub fn write_trace(spec: &str, seed: u64, open: &mut Open<'_>) -> Result<Written, SuiteError> {
    let (w, mut app) = make(spec, seed)?;
    let host = |message: String| SuiteError::Host {
        workload: w.name.into(),
        message,
    };
    let mem = Rc::new(RefCell::new(DeviceMemory::default()));
    let mut list = String::new();
    let mut n = Written {
        kernels: 0,
        blocks: 0,
        instructions: 0,
    };
    loop {
        let next = app.next(&mut mem.borrow_mut()).map_err(host)?;
        let Some(l) = next else { break };
        n.kernels += 1;
        for (addr, bytes) in mem.borrow_mut().take_copies() {
            list.push_str(&format!("MemcpyHtoD,{addr:#018x},{bytes}\n"));
        }
        let shared = start(&l, n.kernels, &mem).map_err(host)?;
        let name = format!("kernel-{}.traceg", n.kernels);
        let io = |e: std::io::Error| SuiteError::Io {
            path: name.clone(),
            message: e.to_string(),
        };
        let mut f = std::io::BufWriter::new(open(&name).map_err(io)?);
        write_header(&mut f, &shared.header).map_err(io)?;
        let blocks = LaunchBlocks::new(Rc::clone(&shared));
        for b in 0..shared.header.blocks() {
            let tb = blocks.whole(b)?;
            n.blocks += 1;
            n.instructions += tb.instructions() as u64;
            write_block(&mut f, &tb, &shared.env.code.opcodes).map_err(io)?;
        }
        f.flush().map_err(io)?;
        list.push_str(&name);
        list.push('\n');
    }
    let verified = app.verify(&mem.borrow());
    verified.map_err(|m| host(format!("wrong result: {m}")))?;
    let io = |e: std::io::Error| SuiteError::Io {
        path: "kernelslist.g".into(),
        message: e.to_string(),
    };
    let mut f = open("kernelslist.g").map_err(io)?;
    f.write_all(list.as_bytes()).map_err(io)?;
    f.flush().map_err(io)?;
    Ok(n)
}

fn write_header(f: &mut dyn Write, h: &KernelHeader) -> std::io::Result<()> {
    let [gx, gy, gz] = h.grid;
    let [bx, by, bz] = h.block;
    writeln!(f, "-kernel name = {}", h.name)?;
    writeln!(f, "-kernel id = {}", h.id)?;
    writeln!(f, "-grid dim = ({gx},{gy},{gz})")?;
    writeln!(f, "-block dim = ({bx},{by},{bz})")?;
    writeln!(f, "-shmem = {}", h.shmem)?;
    writeln!(f, "-nregs = {}", h.nregs)?;
    writeln!(f, "-binary version = {}", h.binary_version)?;
    writeln!(f, "-cuda stream id = 0")?;
    writeln!(f, "-accelsim tracer version = 5")?;
    writeln!(f, "-enable lineinfo = 0")?;
    writeln!(f)?;
    writeln!(
        f,
        "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width \
         [adrrescompress?] [mem_addresses] immediate"
    )?;
    writeln!(f)
}

fn write_block(f: &mut dyn Write, tb: &TraceBlock, opcodes: &[String]) -> std::io::Result<()> {
    let [x, y, z] = tb.id;
    writeln!(f, "#BEGIN_TB")?;
    writeln!(f)?;
    writeln!(f, "thread block = {x},{y},{z}")?;
    writeln!(f)?;
    for (w, insts) in tb.warps.iter().enumerate() {
        writeln!(f, "warp = {w}")?;
        writeln!(f, "insts = {}", insts.len())?;
        for i in insts {
            write_inst(f, i, &opcodes[usize::from(i.op)])?;
        }
        writeln!(f)?;
    }
    writeln!(f, "#END_TB")?;
    writeln!(f)
}

/// `PC mask dest_num [dest] opcode src_num [srcs] width [mode addresses] immediate`; the
/// addresses in mode 1 (base and stride) when the lanes step by one stride, else mode 0 (each
/// listed). A memory instruction no lane runs is written as Accel-Sim's tracer writes it, base
/// 0 and stride 0 in mode 1.
fn write_inst(f: &mut dyn Write, i: &Inst, opcode: &str) -> std::io::Result<()> {
    write!(f, "{:04x} {:08x} ", i.pc, i.mask)?;
    match i.dest {
        Some(r) => write!(f, "1 R{r} ")?,
        None => write!(f, "0 ")?,
    }
    write!(f, "{opcode} {}", i.srcs.len())?;
    for r in &i.srcs {
        write!(f, " R{r}")?;
    }
    if i.mem_bytes == 0 {
        return writeln!(f, " 0 0");
    }
    write!(f, " {}", i.mem_bytes)?;
    match &i.addrs {
        LaneAddrs::Empty => write!(f, " 1 0x{:016x} 0", 0)?,
        LaneAddrs::Strided { base, stride, .. } => {
            write!(f, " 1 0x{base:016x} {}", *stride as i64)?
        }
        a => {
            write!(f, " 0")?;
            for addr in a.iter() {
                write!(f, " 0x{addr:016x}")?;
            }
        }
    }
    writeln!(f, " 0")
}
