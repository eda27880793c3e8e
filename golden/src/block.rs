//! The contract every cycle-level block model meets, and the codec that puts its inputs and
//! outputs on the RTL's ports.
//!
//! A block model has exactly its RTL's interface: one call to [`CycleModel::step`] is one
//! rising clock edge with the given inputs; the returned outputs are the values the RTL's
//! outputs hold. The model knows nothing of port layouts: a [`Codec`] (one per block, built
//! from the spec's port list) encodes its inputs and outputs into [`Frame`]s by port name, so
//! a system can hold many model instances cheaply and reordering a port list cannot
//! mis-encode. Frames carry port values as 32-bit words in the layout of the generated C ABI
//! shim, so the co-simulation compares golden and RTL word for word without knowing the block.

use spec::{Dir, PortSpec};
use thiserror::Error;

/// An input the block's RTL would reject with an assertion. The golden model refuses it too,
/// so stimulus validation and RTL assertions agree.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("illegal input: {0}")]
pub struct IllegalInput(pub String);

/// A cycle-level block model.
pub trait CycleModel {
    /// Everything driven on the input ports in one cycle.
    type In: Clone;
    /// Everything visible on the output ports after one edge.
    type Out: Clone;

    /// Return to the reset state.
    fn reset(&mut self);
    /// One clock edge. Illegal inputs leave the state untouched.
    fn step(&mut self, input: &Self::In) -> Result<&Self::Out, IllegalInput>;
}

/// Puts a block's inputs and outputs on its ports: built from the spec's port list, it
/// resolves every port by name once ([`PortNames`]) and encodes frames by those indices.
pub trait Codec {
    /// The model's inputs.
    type In;
    /// The model's outputs.
    type Out;

    /// Whether the outputs are combinational functions of this cycle's inputs and the state
    /// before the edge (sampled before the rising edge), rather than registered (sampled after
    /// it).
    const COMB_OUTPUTS: bool = false;

    /// The port list (clock and reset excluded).
    fn ports(&self) -> &[PortSpec];
    /// Write `input` into a frame of the input ports.
    fn encode_in(&self, input: &Self::In, frame: &mut Frame);
    /// Write `output` into a frame of the output ports.
    fn encode_out(&self, output: &Self::Out, frame: &mut Frame);
}

/// A block as the co-simulation and the benchmarks see it: its model and its codec, built for
/// a configuration.
pub trait BlockModel {
    type Model: CycleModel;
    type Codec: Codec<In = <Self::Model as CycleModel>::In, Out = <Self::Model as CycleModel>::Out>;
    fn model(spec: &spec::Spec) -> Self::Model;
    fn codec(spec: &spec::Spec) -> Result<Self::Codec, CodecError>;
}

/// A codec and its port list disagree: a port it names is not there, or one is not encoded.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("the {block} codec and its port list disagree: {problem}")]
pub struct CodecError {
    pub block: &'static str,
    pub problem: String,
}

/// Resolves port names to their index in their direction's frame, and checks at the end that
/// every port was named exactly once: a codec cannot leave a port out or encode one twice.
pub struct PortNames<'a> {
    block: &'static str,
    ports: &'a [PortSpec],
    named: Vec<bool>,
    problems: Vec<String>,
}

impl<'a> PortNames<'a> {
    pub fn new(block: &'static str, ports: &'a [PortSpec]) -> PortNames<'a> {
        PortNames {
            block,
            ports,
            named: vec![false; ports.len()],
            problems: Vec::new(),
        }
    }

    /// The frame index of port `name` (0 when it is missing; `finish` reports it).
    pub fn index(&mut self, name: &str) -> usize {
        let Some(i) = self.ports.iter().position(|p| p.name == name) else {
            self.problems.push(format!("no port {name}"));
            return 0;
        };
        if std::mem::replace(&mut self.named[i], true) {
            self.problems.push(format!("port {name} named twice"));
        }
        let dir = self.ports[i].dir;
        self.ports[..i].iter().filter(|p| p.dir == dir).count()
    }

    /// Every port named once, or what is wrong.
    pub fn finish(self) -> Result<(), CodecError> {
        let mut problems = self.problems;
        for (p, named) in self.ports.iter().zip(&self.named) {
            if !named {
                problems.push(format!("port {} is not encoded", p.name));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(CodecError {
                block: self.block,
                problem: problems.join("; "),
            })
        }
    }
}

/// Port values of one direction for one cycle, each port as little-endian 32-bit words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    names: Vec<&'static str>,
    widths: Vec<u32>,
    elem_bits: Vec<u32>,
    offsets: Vec<usize>,
    words: Vec<u32>,
}

impl Frame {
    /// A zeroed frame holding the ports of direction `dir`, in port-list order.
    pub fn new(ports: &[PortSpec], dir: Dir) -> Frame {
        let mut f = Frame {
            names: Vec::new(),
            widths: Vec::new(),
            elem_bits: Vec::new(),
            offsets: Vec::new(),
            words: Vec::new(),
        };
        for p in ports.iter().filter(|p| p.dir == dir) {
            f.names.push(p.name);
            f.widths.push(p.width());
            f.elem_bits.push(p.elem_bits);
            f.offsets.push(f.words.len());
            f.words.resize(f.words.len() + words_for(p.width()), 0);
        }
        f
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn name(&self, port: usize) -> &'static str {
        self.names[port]
    }

    pub fn width(&self, port: usize) -> u32 {
        self.widths[port]
    }

    /// The words of one port.
    pub fn words(&self, port: usize) -> &[u32] {
        &self.words[self.offsets[port]..self.offsets[port] + words_for(self.widths[port])]
    }

    /// The words of one port, writable.
    pub fn words_mut(&mut self, port: usize) -> &mut [u32] {
        let n = words_for(self.widths[port]);
        let o = self.offsets[port];
        &mut self.words[o..o + n]
    }

    /// All words of all ports.
    pub fn all_words(&self) -> &[u32] {
        &self.words
    }

    /// Zero every port.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Set element `elem` (of `elem_bits` bits) of a packed-array port; bits above the element
    /// width are dropped, as a narrower RTL port would.
    pub fn set_elem(&mut self, port: usize, elem: u32, value: u64) {
        let bits = self.elem_bits[port];
        let value = value & mask(bits);
        let lsb = (elem * bits) as usize;
        let words = self.words_mut(port);
        // Up to 64 bits starting at `lsb`: touch at most three words.
        let (w0, sh) = (lsb / 32, lsb % 32);
        let span = u128::from(mask(bits)) << sh;
        let val = u128::from(value) << sh;
        for i in 0..3 {
            let Some(w) = words.get_mut(w0 + i) else {
                break;
            };
            let m = (span >> (32 * i)) as u32;
            if m == 0 {
                break;
            }
            *w = (*w & !m) | ((val >> (32 * i)) as u32 & m);
        }
    }

    /// Set a scalar port (element 0).
    pub fn set(&mut self, port: usize, value: u64) {
        let bits = self.elem_bits[port];
        let words = self.words_mut(port);
        let value = value & mask(bits);
        words[0] = value as u32;
        if words.len() > 1 {
            words[1] = (value >> 32) as u32;
        }
    }

    /// Read element `elem` of a port.
    pub fn get_elem(&self, port: usize, elem: u32) -> u64 {
        let bits = self.elem_bits[port];
        let lsb = (elem * bits) as usize;
        let words = self.words(port);
        let (w0, sh) = (lsb / 32, lsb % 32);
        let mut acc = 0u128;
        for i in 0..3 {
            if let Some(w) = words.get(w0 + i) {
                acc |= u128::from(*w) << (32 * i);
            }
        }
        ((acc >> sh) as u64) & mask(bits)
    }

    /// Read a scalar port.
    pub fn get(&self, port: usize) -> u64 {
        self.get_elem(port, 0)
    }

    /// Index of a port by name.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| *n == name)
    }

    /// A port's value as hexadecimal (for reports).
    pub fn hex(&self, port: usize) -> String {
        let words = self.words(port);
        let mut s = String::from("0x");
        let mut leading = true;
        for w in words.iter().rev() {
            if leading {
                if *w == 0 && words.len() > 1 {
                    continue;
                }
                s.push_str(&format!("{w:x}"));
                leading = false;
            } else {
                s.push_str(&format!("{w:08x}"));
            }
        }
        if leading {
            s.push('0');
        }
        s
    }

    /// The first port whose value differs from `other`'s (same layout assumed).
    pub fn first_difference(&self, other: &Frame) -> Option<usize> {
        if self.words == other.words {
            return None;
        }
        (0..self.len()).find(|&p| self.words(p) != other.words(p))
    }
}

/// 32-bit words for a port of `width` bits.
pub fn words_for(width: u32) -> usize {
    (width as usize).div_ceil(32).max(1)
}

/// Mask of the low `bits` bits.
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ports() -> Vec<PortSpec> {
        vec![
            PortSpec {
                name: "a_i",
                dir: Dir::In,
                elems: 1,
                elem_bits: 1,
                elems_param: None,
                elem: spec::Elem::Bit,
                meaning: "",
            },
            PortSpec {
                name: "b_i",
                dir: Dir::In,
                elems: 4,
                elem_bits: 33,
                elems_param: None,
                elem: spec::Elem::Bit,
                meaning: "",
            },
            PortSpec {
                name: "c_o",
                dir: Dir::Out,
                elems: 1,
                elem_bits: 40,
                elems_param: None,
                elem: spec::Elem::Bit,
                meaning: "",
            },
        ]
    }

    #[test]
    fn packed_elements_round_trip_across_word_boundaries() {
        let mut f = Frame::new(&ports(), Dir::In);
        assert_eq!(f.len(), 2);
        assert_eq!(f.words(1).len(), 5, "4 x 33 bits = 132 bits = 5 words");
        let vals = [0x1_2345_6789u64, 0x1_ffff_ffff, 0, 0xdead_beef];
        for (i, v) in vals.iter().enumerate() {
            f.set_elem(1, i as u32, *v);
        }
        for (i, v) in vals.iter().enumerate() {
            assert_eq!(f.get_elem(1, i as u32), *v & mask(33));
        }
        f.set(0, 3);
        assert_eq!(f.get(0), 1, "a 1-bit port keeps one bit");
    }

    proptest::proptest! {
        #[test]
        fn elements_round_trip_without_touching_neighbours(
            bits in 1u32..=64,
            elems in 1u32..6,
            vals in proptest::collection::vec(proptest::num::u64::ANY, 6),
        ) {
            let ports = vec![PortSpec {
                name: "p_i", dir: Dir::In, elems, elem_bits: bits,
                elems_param: None, elem: spec::Elem::Bit, meaning: "",
            }];
            let mut f = Frame::new(&ports, Dir::In);
            for e in 0..elems {
                f.set_elem(0, e, vals[e as usize]);
            }
            for e in 0..elems {
                proptest::prop_assert_eq!(f.get_elem(0, e), vals[e as usize] & mask(bits));
            }
            // Bits above the port width stay zero.
            let total = (bits * elems) as usize;
            let words = f.words(0);
            for b in total..words.len() * 32 {
                proptest::prop_assert_eq!((words[b / 32] >> (b % 32)) & 1, 0);
            }
        }
    }

    #[test]
    fn difference_names_the_port() {
        let mut a = Frame::new(&ports(), Dir::Out);
        let b = a.clone();
        assert_eq!(a.first_difference(&b), None);
        a.set(0, 0xab_0000_0001);
        assert_eq!(a.first_difference(&b), Some(0));
        assert_eq!(a.hex(0), "0xab00000001");
        assert_eq!(b.hex(0), "0x0");
    }
}
