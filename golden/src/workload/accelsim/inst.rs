//! A trace's warp instructions and thread blocks, as the reader hands them out.

/// A register number (`R<n>`, 0 to 255; R255 is the zero register, RZ): the type holds no
/// other, so a trace's register reaches the SM's 256-bit register sets in range.
pub type Reg = u8;

/// An instruction's source registers, up to four inline (an Accel-Sim trace line has at most
/// four; a built-in kernel's first arithmetic instruction after a group of loads reads every
/// loaded register), so that nearly no line of a trace allocates.
pub type Srcs = smallvec::SmallVec<[Reg; 4]>;

/// One warp instruction of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inst {
    /// Offset within the kernel.
    pub pc: u64,
    /// Active lanes (and true guard predicate).
    pub mask: u32,
    /// The opcode, an index into [`KernelReader::opcode`].
    pub op: u16,
    pub dest: Option<Reg>,
    pub srcs: Srcs,
    /// Bytes per lane of a memory instruction (from the opcode, as Accel-Sim derives it); 0
    /// for other instructions.
    pub mem_bytes: u32,
    /// A memory instruction's address per active lane, in lane order (empty otherwise).
    pub addrs: LaneAddrs,
}

/// A memory instruction's lane addresses, in lane order. Most warps' lanes step by one
/// stride: those are held as base and stride, with no allocation and no 8 bytes a lane (a
/// resident block's instructions stay small).
#[derive(Debug, Clone, Default)]
pub enum LaneAddrs {
    /// No lanes.
    #[default]
    Empty,
    /// `n` lanes (1 to 32), lane `k` at `base + k * stride` (wrapping).
    Strided { base: u64, stride: u64, n: u8 },
    /// Any other addresses.
    List(Box<[u64]>),
}

impl LaneAddrs {
    /// The addresses, held in the smaller form that gives them back in order.
    pub fn new(addrs: &[u64]) -> LaneAddrs {
        match addrs {
            [] => LaneAddrs::Empty,
            &[base, ..] if addrs.len() <= 32 => {
                let stride = addrs.get(1).map_or(0, |&a| a.wrapping_sub(base));
                if addrs.windows(2).all(|w| w[1].wrapping_sub(w[0]) == stride) {
                    LaneAddrs::strided(base, stride, addrs.len())
                } else {
                    LaneAddrs::List(addrs.into())
                }
            }
            _ => LaneAddrs::List(addrs.into()),
        }
    }

    /// `n` lanes (at most 32) stepping by `stride` from `base`: the form [`LaneAddrs::new`]
    /// gives those addresses, without listing them first.
    pub fn strided(base: u64, stride: u64, n: usize) -> LaneAddrs {
        debug_assert!(n <= 32, "{n} lanes");
        match n {
            0 => LaneAddrs::Empty,
            // (One lane has no stride: `new` holds it as 0.)
            1 => LaneAddrs::Strided {
                base,
                stride: 0,
                n: 1,
            },
            _ => LaneAddrs::Strided {
                base,
                stride,
                n: n as u8,
            },
        }
    }

    pub fn len(&self) -> usize {
        match self {
            LaneAddrs::Empty => 0,
            LaneAddrs::Strided { n, .. } => usize::from(*n),
            LaneAddrs::List(l) => l.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lane `k`'s address (the `k`-th active lane's).
    pub fn get(&self, k: usize) -> Option<u64> {
        match self {
            LaneAddrs::Empty => None,
            LaneAddrs::Strided { base, stride, n } => {
                (k < usize::from(*n)).then(|| base.wrapping_add((k as u64).wrapping_mul(*stride)))
            }
            LaneAddrs::List(l) => l.get(k).copied(),
        }
    }

    pub fn first(&self) -> Option<u64> {
        self.get(0)
    }

    /// The addresses in lane order.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).map(|k| match self {
            LaneAddrs::Strided { base, stride, .. } => {
                base.wrapping_add((k as u64).wrapping_mul(*stride))
            }
            LaneAddrs::List(l) => l[k],
            LaneAddrs::Empty => unreachable!("no lanes to iterate"),
        })
    }

    pub fn to_vec(&self) -> Vec<u64> {
        self.iter().collect()
    }

    /// Every address moved by `delta` (wrapping).
    pub fn shift(&mut self, delta: u64) {
        match self {
            LaneAddrs::Empty => {}
            LaneAddrs::Strided { base, .. } => *base = base.wrapping_add(delta),
            LaneAddrs::List(l) => l.iter_mut().for_each(|a| *a = a.wrapping_add(delta)),
        }
    }
}

/// Equal when they hold the same addresses, in whichever form.
impl PartialEq for LaneAddrs {
    fn eq(&self, other: &LaneAddrs) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for LaneAddrs {}

impl<const N: usize> PartialEq<[u64; N]> for LaneAddrs {
    fn eq(&self, other: &[u64; N]) -> bool {
        self.len() == N && self.iter().eq(other.iter().copied())
    }
}

impl PartialEq<Vec<u64>> for LaneAddrs {
    fn eq(&self, other: &Vec<u64>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl Inst {
    pub fn is_memory(&self) -> bool {
        self.mem_bytes > 0
    }
}

/// One thread block of a kernel: its index and every warp's instructions, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceBlock {
    pub id: [u32; 3],
    pub warps: Vec<Vec<Inst>>,
}

impl TraceBlock {
    /// Warp instructions in the block.
    pub fn instructions(&self) -> usize {
        self.warps.iter().map(Vec::len).sum()
    }
}

/// Bytes per lane a memory opcode moves, as Accel-Sim's trace parser derives them: the first
/// all-digit modifier in bits (`LDG.E.128` moves 16), else a `U<bits>` / `S<bits>` modifier,
/// else 4; constant loads (`LDC`) 4.
pub fn access_bytes(opcode: &str) -> u32 {
    let mut parts = opcode.split('.');
    if parts.next() == Some("LDC") {
        return 4;
    }
    let mods: Vec<&str> = parts.collect();
    let bits = |s: &str| s.parse::<u32>().ok().filter(|b| b % 8 == 0 && *b > 0);
    mods.iter()
        .find_map(|m| bits(m))
        .or_else(|| {
            mods.iter().find_map(|m| {
                m.strip_prefix('U')
                    .or_else(|| m.strip_prefix('S'))
                    .and_then(bits)
            })
        })
        .map_or(4, |b| b / 8)
}
