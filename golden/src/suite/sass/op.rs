//! What an instruction computes ([`Op`] and the kinds it is made of), decoded once from its
//! full opcode ([`decode`]).

/// What an instruction computes: its opcode's family, the modifiers that matter decoded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    Mov,
    S2r,
    /// `CS2R`: a register pair, or one register (`.32`).
    Cs2r {
        pair: bool,
    },
    /// `IMAD`: `.WIDE` (64-bit result), `.HI` (high half), `.U32` (unsigned), `.X` (with carry).
    Imad {
        wide: bool,
        hi: bool,
        unsigned: bool,
        x: bool,
    },
    /// `IADD3`: `.X` adds the carry predicates.
    Iadd3 {
        x: bool,
    },
    /// `LEA`: `.HI` (high half of the shifted 64-bit value), `.X` (with carry), `.SX32` (the
    /// high word is the low word's sign).
    Lea {
        hi: bool,
        x: bool,
        sx32: bool,
    },
    /// `SHF`: direction left, `.HI` (the high word), `.U64`/`.S64`/`.U32`/`.S32`.
    Shf {
        left: bool,
        hi: bool,
        wide: bool,
        signed: bool,
    },
    Shl,
    Shr {
        signed: bool,
    },
    Lop3,
    /// `ISETP`: comparison, how it combines with its predicate operand, unsigned, `.EX`.
    Isetp {
        cmp: Cmp,
        comb: Comb,
        unsigned: bool,
        ex: bool,
    },
    Fsetp {
        cmp: Cmp,
        comb: Comb,
    },
    Dsetp {
        cmp: Cmp,
        comb: Comb,
    },
    /// `FCHK P, a, b`: whether the fast single-precision division `a / b` is out of its
    /// range (the compiler's division then takes its exact slow path).
    Fchk,
    Plop3,
    Sel,
    Fsel,
    /// `FADD`, `FMUL`, `FFMA`, rounded to nearest or, FADD's `.RZ` (`trunc`), toward zero
    /// (FADD's `.RM`, `.RP` are refused; FMUL's and FFMA's directed rounding is taken as to
    /// nearest: decision WL-1); with `.SAT` the result is clamped to [0, 1], a NaN to 0 (as PTX's
    /// `.sat`).
    Fadd {
        trunc: bool,
        sat: bool,
    },
    Fmul {
        sat: bool,
    },
    Ffma {
        sat: bool,
    },
    Fmnmx,
    Dadd,
    Dmul,
    Dfma,
    Mufu(Mufu),
    /// `FRND`: a single-precision value rounded to an integral value, still a float (PTX
    /// `cvt.rni/rzi/rmi/rpi.f32.f32`): to nearest even, or `.TRUNC`, `.FLOOR`, `.CEIL`.
    Frnd(Round),
    /// `F2F`, `I2F`, `F2I` and their widths.
    Convert(Convert),
    Imnmx {
        unsigned: bool,
    },
    Iabs,
    Popc,
    /// `BREV`: the bits reversed.
    Brev,
    Flo {
        unsigned: bool,
        sh: bool,
    },
    Prmt,
    /// `R2P PR, Rn[.Bk], mask`: the predicates `Pi` whose `mask` bit `i` is set (`i` < 7) take
    /// bit `i` of byte `k` of `Rn`; the others keep their value.
    R2p,
    /// `P2R Rd, PR, Rn[.Bk], mask`: `Rn` with the bits of byte `k` that `mask` selects replaced
    /// by the predicates `P0` to `P6` (`Pi` at bit `i` of the byte).
    P2r,
    /// Loads and stores: where, which way, how many bytes, signed narrow load.
    Ld {
        space: Space,
        bytes: u32,
        signed: bool,
    },
    St {
        space: Space,
        bytes: u32,
    },
    /// Atomics and reductions on global or shared memory.
    Atom {
        space: Space,
        op: AtomOp,
        bytes: u32,
        ret: bool,
    },
    /// `LDC`: `bytes` of a constant bank (1 and 2 zero- or, `signed`, sign-extended).
    Ldc {
        bytes: u32,
        signed: bool,
    },
    Shfl(ShflMode),
    Vote(VoteMode),
    Bar,
    Bra,
    Bssy,
    Bsync,
    /// `BREAK Bn`: the lanes that run it leave convergence barrier `Bn` (a loop's or a
    /// region's early exit), so its `BSYNC` no longer waits for them.
    Break,
    /// `BMOV`; `.CLEAR` clears the barrier it reads.
    Bmov {
        clear: bool,
    },
    WarpSync,
    Call,
    Ret,
    /// `LEPC`: the instruction's own PC.
    Lepc,
    Exit,
    Nop,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    Global,
    Shared,
    Local,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// Floating point: unordered variants (`LTU`, ...) and `NAN`/`NUM`.
    Ltu,
    Leu,
    Gtu,
    Geu,
    Equ,
    Neu,
    Nan,
    Num,
    True,
    False,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comb {
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mufu {
    Rcp,
    Rsq,
    Sqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Rcp64h,
    Rsq64h,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Num {
    F32,
    F64,
    U32,
    S32,
    U64,
    S64,
    U16,
    S16,
    U8,
    S8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Convert {
    pub to: Num,
    pub from: Num,
    /// Float to integer rounds toward zero (`.TRUNC`), else to nearest; `.FLOOR`, `.CEIL`.
    pub round: Round,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    Nearest,
    Trunc,
    Floor,
    Ceil,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    FAdd,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflMode {
    Idx,
    Up,
    Down,
    Bfly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Ballot,
}

/// The semantic family of full opcode `opcode` (`None`: not modelled).
pub fn decode(opcode: &str) -> Option<Op> {
    let mut parts = opcode.split('.');
    let base = parts.next()?;
    let mods: Vec<&str> = parts.collect();
    alu(base, &mods)
        .or_else(|| memory(base, &mods))
        .or_else(|| control(base, &mods))
}

fn has(mods: &[&str], m: &str) -> bool {
    mods.contains(&m)
}

/// A comparison's kind: its first modifier.
fn cmp_of(mods: &[&str]) -> Option<Cmp> {
    Some(match *mods.first()? {
        "LT" => Cmp::Lt,
        "LE" => Cmp::Le,
        "GT" => Cmp::Gt,
        "GE" => Cmp::Ge,
        "EQ" => Cmp::Eq,
        "NE" => Cmp::Ne,
        "LTU" => Cmp::Ltu,
        "LEU" => Cmp::Leu,
        "GTU" => Cmp::Gtu,
        "GEU" => Cmp::Geu,
        "EQU" => Cmp::Equ,
        "NEU" => Cmp::Neu,
        "NAN" => Cmp::Nan,
        "NUM" => Cmp::Num,
        "T" => Cmp::True,
        "F" => Cmp::False,
        _ => return None,
    })
}

/// How a comparison combines with its predicate operand.
fn comb_of(mods: &[&str]) -> Option<Comb> {
    Some(if has(mods, "AND") {
        Comb::And
    } else if has(mods, "OR") {
        Comb::Or
    } else if has(mods, "XOR") {
        Comb::Xor
    } else {
        return None;
    })
}

/// The bytes a memory instruction moves per lane.
fn bytes_of(mods: &[&str]) -> u32 {
    if has(mods, "128") {
        16
    } else if has(mods, "64") {
        8
    } else if has(mods, "U16") || has(mods, "S16") {
        2
    } else if has(mods, "U8") || has(mods, "S8") {
        1
    } else {
        4
    }
}

/// Arithmetic, logic, comparison and conversion opcodes.
fn alu(base: &str, mods: &[&str]) -> Option<Op> {
    Some(match base {
        // (`R2UR`: a register moved to a uniform register, from the first lane that runs.)
        "MOV" | "UMOV" | "R2UR" => Op::Mov,
        "S2R" | "S2UR" => Op::S2r,
        "CS2R" => Op::Cs2r {
            pair: !has(mods, "32"),
        },
        "IMAD" | "UIMAD" => {
            // `.MOV`, `.IADD` and `.SHL` are IMAD used as a move, an add or a shift: the same
            // multiply-add with a constant operand.
            Op::Imad {
                wide: has(mods, "WIDE"),
                hi: has(mods, "HI"),
                unsigned: has(mods, "U32"),
                x: has(mods, "X"),
            }
        }
        "IADD3" | "UIADD3" => Op::Iadd3 { x: has(mods, "X") },
        "LEA" | "ULEA" => Op::Lea {
            hi: has(mods, "HI"),
            x: has(mods, "X"),
            sx32: has(mods, "SX32"),
        },
        "SHF" | "USHF" => Op::Shf {
            left: has(mods, "L"),
            hi: has(mods, "HI"),
            wide: has(mods, "U64") || has(mods, "S64"),
            signed: has(mods, "S32") || has(mods, "S64"),
        },
        "SHL" | "USHL" => Op::Shl,
        "SHR" | "USHR" => Op::Shr {
            signed: !has(mods, "U32"),
        },
        "LOP3" | "ULOP3" => Op::Lop3,
        "ISETP" | "UISETP" => Op::Isetp {
            cmp: cmp_of(mods)?,
            comb: comb_of(mods)?,
            unsigned: has(mods, "U32"),
            ex: has(mods, "EX"),
        },
        "FSETP" => Op::Fsetp {
            cmp: cmp_of(mods)?,
            comb: comb_of(mods)?,
        },
        "DSETP" => Op::Dsetp {
            cmp: cmp_of(mods)?,
            comb: comb_of(mods)?,
        },
        "FCHK" => Op::Fchk,
        "PLOP3" | "UPLOP3" => Op::Plop3,
        "SEL" | "USEL" => Op::Sel,
        "FSEL" => Op::Fsel,
        "FADD" if !has(mods, "RM") && !has(mods, "RP") => Op::Fadd {
            trunc: has(mods, "RZ"),
            sat: has(mods, "SAT"),
        },
        "FMUL" => Op::Fmul {
            sat: has(mods, "SAT"),
        },
        "FFMA" => Op::Ffma {
            sat: has(mods, "SAT"),
        },
        "FMNMX" => Op::Fmnmx,
        "DADD" => Op::Dadd,
        "DMUL" => Op::Dmul,
        "DFMA" => Op::Dfma,
        "MUFU" => Op::Mufu(match *mods.first()? {
            "RCP" => Mufu::Rcp,
            "RSQ" => Mufu::Rsq,
            "SQRT" => Mufu::Sqrt,
            "EX2" => Mufu::Ex2,
            "LG2" => Mufu::Lg2,
            "SIN" => Mufu::Sin,
            "COS" => Mufu::Cos,
            "RCP64H" => Mufu::Rcp64h,
            "RSQ64H" => Mufu::Rsq64h,
            _ => return None,
        }),
        "F2F" | "I2F" | "F2I" => Op::Convert(convert(base, mods)?),
        // (Only the single-precision form: `FRND.F64` is refused.)
        "FRND" if !has(mods, "F64") => Op::Frnd(round_of(mods)),
        "IMNMX" => Op::Imnmx {
            unsigned: has(mods, "U32"),
        },
        "IABS" => Op::Iabs,
        "POPC" => Op::Popc,
        "BREV" | "UBREV" => Op::Brev,
        "FLO" | "UFLO" => Op::Flo {
            unsigned: has(mods, "U32"),
            sh: has(mods, "SH"),
        },
        "PRMT" => Op::Prmt,
        "R2P" => Op::R2p,
        "P2R" => Op::P2r,
        _ => return None,
    })
}

/// Memory, constant and cross-lane opcodes.
fn memory(base: &str, mods: &[&str]) -> Option<Op> {
    Some(match base {
        "LDG" | "LD" => Op::Ld {
            space: Space::Global,
            bytes: bytes_of(mods),
            signed: has(mods, "S8") || has(mods, "S16"),
        },
        "LDS" => Op::Ld {
            space: Space::Shared,
            bytes: bytes_of(mods),
            signed: has(mods, "S8") || has(mods, "S16"),
        },
        "LDL" => Op::Ld {
            space: Space::Local,
            bytes: bytes_of(mods),
            signed: has(mods, "S8") || has(mods, "S16"),
        },
        "STG" | "ST" => Op::St {
            space: Space::Global,
            bytes: bytes_of(mods),
        },
        "STS" => Op::St {
            space: Space::Shared,
            bytes: bytes_of(mods),
        },
        "STL" => Op::St {
            space: Space::Local,
            bytes: bytes_of(mods),
        },
        "ATOMG" | "ATOM" | "RED" | "ATOMS" => {
            let space = if base == "ATOMS" {
                Space::Shared
            } else {
                Space::Global
            };
            let op = if has(mods, "CAS") {
                AtomOp::Cas
            } else if has(mods, "EXCH") {
                AtomOp::Exch
            } else if has(mods, "ADD") && (has(mods, "F32") || has(mods, "FTZ")) {
                AtomOp::FAdd
            } else if has(mods, "ADD") {
                AtomOp::Add
            } else if has(mods, "MIN") {
                AtomOp::Min
            } else if has(mods, "MAX") {
                AtomOp::Max
            } else if has(mods, "INC") {
                AtomOp::Inc
            } else if has(mods, "DEC") {
                AtomOp::Dec
            } else if has(mods, "AND") {
                AtomOp::And
            } else if has(mods, "OR") {
                AtomOp::Or
            } else if has(mods, "XOR") {
                AtomOp::Xor
            } else {
                return None;
            };
            Op::Atom {
                space,
                op,
                bytes: if has(mods, "64") { 8 } else { 4 },
                ret: base != "RED",
            }
        }
        "LDC" | "ULDC" => Op::Ldc {
            bytes: bytes_of(mods),
            signed: has(mods, "S8") || has(mods, "S16"),
        },
        "SHFL" => Op::Shfl(match *mods.first()? {
            "IDX" => ShflMode::Idx,
            "UP" => ShflMode::Up,
            "DOWN" => ShflMode::Down,
            "BFLY" => ShflMode::Bfly,
            _ => return None,
        }),
        "VOTE" | "VOTEU" => Op::Vote(match *mods.first()? {
            "ALL" => VoteMode::All,
            "ANY" => VoteMode::Any,
            _ => VoteMode::Ballot,
        }),
        _ => return None,
    })
}

/// Control-flow opcodes, and those that change nothing the model keeps.
fn control(base: &str, mods: &[&str]) -> Option<Op> {
    Some(match base {
        "BAR" => Op::Bar,
        "BRA" => Op::Bra,
        "BSSY" => Op::Bssy,
        "BSYNC" => Op::Bsync,
        "BREAK" => Op::Break,
        "BMOV" => Op::Bmov {
            clear: has(mods, "CLEAR"),
        },
        "WARPSYNC" => Op::WarpSync,
        "CALL" => Op::Call,
        "RET" => Op::Ret,
        "LEPC" => Op::Lepc,
        "EXIT" => Op::Exit,
        "NOP" | "DEPBAR" | "MEMBAR" | "CCTL" | "ERRBAR" | "YIELD" | "NANOSLEEP" => Op::Nop,
        _ => return None,
    })
}

fn num_of(m: &str) -> Option<Num> {
    Some(match m {
        "F32" => Num::F32,
        "F64" => Num::F64,
        "U32" => Num::U32,
        "S32" => Num::S32,
        "U64" => Num::U64,
        "S64" => Num::S64,
        "U16" => Num::U16,
        "S16" => Num::S16,
        "U8" => Num::U8,
        "S8" => Num::S8,
        _ => return None,
    })
}

/// The rounding to an integer the modifiers name (`.TRUNC`, `.FLOOR`, `.CEIL`; else to nearest).
fn round_of(mods: &[&str]) -> Round {
    if mods.contains(&"TRUNC") {
        Round::Trunc
    } else if mods.contains(&"FLOOR") {
        Round::Floor
    } else if mods.contains(&"CEIL") {
        Round::Ceil
    } else {
        Round::Nearest
    }
}

/// `F2F.F32.F64` (to, from), `I2F.U32` (to F32 from U32), `F2I.FTZ.U32.TRUNC` (to U32 from F32).
fn convert(base: &str, mods: &[&str]) -> Option<Convert> {
    let nums: Vec<Num> = mods.iter().filter_map(|m| num_of(m)).collect();
    let round = round_of(mods);
    let (to, from) = match (base, nums.as_slice()) {
        (_, [to, from]) => (*to, *from),
        ("I2F", [from]) => (Num::F32, *from),
        ("I2F", []) => (Num::F32, Num::S32),
        ("F2I", [to]) => (*to, Num::F32),
        ("F2I", []) => (Num::S32, Num::F32),
        ("F2F", [to]) => (*to, Num::F32),
        _ => return None,
    };
    Some(Convert { to, from, round })
}
