//! Trace opcodes classified: what a warp instruction is to the SM ([`Kind`], [`kind_of`]), the
//! execution unit an arithmetic opcode runs on ([`exec_class`], Accel-Sim's trace-driven
//! tables), and the memory space of an access ([`Space`]).

use super::accelsim::{Inst, KernelHeader};
use spec::gpu::ExecClass;

/// The memory space of an access (what changes its coalescing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Global,
    Local,
}

/// What an instruction is to the SM: its class of execution, from its opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Arithmetic and control, on an execution unit of this class.
    Alu(ExecClass),
    /// Shared memory or constant: a fixed latency, no memory traffic.
    Shared,
    /// Through the L1 and the memory side; `l2_only`: atomics and reductions.
    Global {
        space: Space,
        write: bool,
        l2_only: bool,
    },
    Barrier,
    Exit,
}

/// The kind of a trace instruction, from its opcode (Accel-Sim's `trace_driven.cc` classes) and,
/// for generic `LD`/`ST`, the kernel's shared and local windows.
pub fn kind_of(op: &str, inst: &Inst, h: &KernelHeader) -> Kind {
    let base = op.split('.').next().unwrap_or(op);
    match base {
        "EXIT" => Kind::Exit,
        "BAR" => Kind::Barrier,
        _ if !inst.is_memory() => Kind::Alu(exec_class(base)),
        "LDS" | "STS" | "ATOMS" | "LDSM" | "LDC" => Kind::Shared,
        "LDL" | "STL" => Kind::Global {
            space: Space::Local,
            write: base == "STL",
            l2_only: false,
        },
        "ATOM" | "ATOMG" | "RED" => Kind::Global {
            space: Space::Global,
            write: true,
            l2_only: true,
        },
        "LD" | "ST" => {
            // Generic: shared below the local window's base, local above it (Accel-Sim
            // treats generic accesses as shared when a base is not given).
            let a = inst.addrs.first().unwrap_or(0);
            let no_windows = h.shmem_base == 0 || h.local_base == 0;
            if no_windows || (a >= h.shmem_base && a < h.local_base) {
                Kind::Shared
            } else {
                Kind::Global {
                    space: if a >= h.local_base {
                        Space::Local
                    } else {
                        Space::Global
                    },
                    write: base == "ST",
                    l2_only: false,
                }
            }
        }
        _ => Kind::Global {
            space: Space::Global,
            write: base.starts_with("ST"),
            l2_only: false,
        },
    }
}

/// The execution unit of a (non-memory) SASS opcode, without its modifiers: the classes of
/// Accel-Sim's trace-driven opcode tables (Volta, Turing and Ampere alike; its tables send the
/// tensor opcodes to the tensor class or to the specialized unit named TENSOR, both taken as
/// [`ExecClass::Tensor`], and `KILL` to a specialized unit, taken as control flow). An opcode
/// none lists, as integer and ALU opcodes, is [`ExecClass::Alu`] (decision GPU-5).
pub fn exec_class(base: &str) -> ExecClass {
    match base {
        "FADD" | "FADD32I" | "FCHK" | "FFMA32I" | "FFMA" | "FMNMX" | "FMUL" | "FMUL32I"
        | "FSEL" | "FSET" | "FSETP" | "FSWZADD" | "HADD2" | "HADD2_32I" | "HFMA2" | "HFMA2_32I"
        | "HMUL2" | "HMUL2_32I" | "HSET2" | "HSETP2" | "HMNMX2" => ExecClass::Sp,
        "DADD" | "DFMA" | "DMUL" | "DSETP" => ExecClass::Dp,
        "MUFU" => ExecClass::Sfu,
        "HMMA" | "BMMA" | "IMMA" | "DMMA" => ExecClass::Tensor,
        "BMOV" | "BPT" | "BRA" | "BREAK" | "BRX" | "BRXU" | "BSSY" | "BSYNC" | "CALL" | "JMP"
        | "JMX" | "JMXU" | "KILL" | "NANOSLEEP" | "RET" | "RPCMOV" | "RTT" | "WARPSYNC"
        | "YIELD" => ExecClass::Branch,
        "TEX" | "TLD" | "TLD4" | "TMML" | "TXD" | "TXQ" => ExecClass::Tex,
        "R2UR" | "S2UR" | "UBMSK" | "UBREV" | "UCLEA" | "UFLO" | "UIADD3" | "UIMAD" | "UISETP"
        | "ULDC" | "ULEA" | "ULOP" | "ULOP3" | "ULOP32I" | "UMOV" | "UP2UR" | "UPLOP3"
        | "UPOPC" | "UPRMT" | "UPSETP" | "UR2UP" | "USEL" | "USGXT" | "USHF" | "USHL" | "USHR"
        | "VOTEU" => ExecClass::Uniform,
        _ => ExecClass::Alu,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::accelsim::{LaneAddrs, Srcs};

    #[test]
    fn opcodes_take_the_class_of_accel_sims_tables() {
        let table: &[(&str, ExecClass)] = &[
            ("IADD3", ExecClass::Alu),
            ("IMAD", ExecClass::Alu),
            ("LOP3", ExecClass::Alu),
            ("ISETP", ExecClass::Alu),
            ("MOV", ExecClass::Alu),
            ("SHFL", ExecClass::Alu),
            ("F2I", ExecClass::Alu),
            ("S2R", ExecClass::Alu),
            ("NOT_AN_OPCODE", ExecClass::Alu),
            ("FADD", ExecClass::Sp),
            ("FFMA", ExecClass::Sp),
            ("FSETP", ExecClass::Sp),
            ("HFMA2", ExecClass::Sp),
            ("DADD", ExecClass::Dp),
            ("DSETP", ExecClass::Dp),
            ("MUFU", ExecClass::Sfu),
            ("HMMA", ExecClass::Tensor),
            ("IMMA", ExecClass::Tensor),
            ("BRA", ExecClass::Branch),
            ("BSYNC", ExecClass::Branch),
            ("WARPSYNC", ExecClass::Branch),
            ("RET", ExecClass::Branch),
            ("TEX", ExecClass::Tex),
            ("TLD4", ExecClass::Tex),
            ("ULDC", ExecClass::Uniform),
            ("S2UR", ExecClass::Uniform),
            ("VOTEU", ExecClass::Uniform),
        ];
        for &(op, class) in table {
            assert_eq!(exec_class(op), class, "{op}");
        }
        // Modifiers do not change the class; memory, barrier and exit opcodes are not arithmetic.
        let h = KernelHeader::default();
        let alu = Inst {
            pc: 0,
            mask: u32::MAX,
            op: 0,
            dest: Some(1),
            srcs: Srcs::from_slice(&[2]),
            mem_bytes: 0,
            addrs: LaneAddrs::Empty,
        };
        assert_eq!(kind_of("MUFU.RSQ", &alu, &h), Kind::Alu(ExecClass::Sfu));
        assert_eq!(kind_of("BAR.SYNC", &alu, &h), Kind::Barrier);
    }
}
