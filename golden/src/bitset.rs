//! Sets of small indices as bit words, for the loops that visit only the members of a set
//! (busy sub-partitions, crossbar inputs holding a packet, ports that may offer, banks with a
//! request). Written here rather than taken from a crate: the loops remove members while they
//! visit a set (one word at a time, from a copy of the word), which an iterator borrowing the
//! set (`fixedbitset`'s `ones`) does not allow, and the controllers' fixed-width masks need
//! only [`members`].

/// The members of one word, in ascending order.
#[inline]
pub fn members(mut word: u64) -> impl Iterator<Item = u32> + Clone {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let b = word.trailing_zeros();
            word &= word - 1;
            b
        })
    })
}

/// The members of a 128-bit set (controllers, warp slots), in ascending order.
#[inline]
pub fn members128(mut set: u128) -> impl Iterator<Item = usize> + Clone {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let b = set.trailing_zeros() as usize;
            set &= set - 1;
            b
        })
    })
}

/// The set `{i : i >= from}` of a 128-bit set's indices (empty when `from` >= 128).
#[inline]
pub fn from128(from: usize) -> u128 {
    u128::MAX.checked_shl(from as u32).unwrap_or(0)
}

/// A set of indices below a size fixed at its making.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitSet(Vec<u64>);

impl BitSet {
    /// The empty set of indices below `n`.
    pub fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }

    #[inline]
    pub fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub fn remove(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }

    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }

    /// Words of 64 indices.
    #[inline]
    pub fn words(&self) -> usize {
        self.0.len()
    }

    /// The members of word `k` as it is now, in ascending order; the set may change while
    /// they are visited (what changes in word `k` is not seen).
    #[inline]
    pub fn word_members(&self, k: usize) -> impl Iterator<Item = usize> {
        let base = k * 64;
        members(self.0[k]).map(move |b| base + b as usize)
    }

    /// Every member, in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.words()).flat_map(|k| self.word_members(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_come_in_order_and_changes_during_a_word_are_not_seen() {
        let mut s = BitSet::new(130);
        for i in [0, 5, 63, 64, 127, 129] {
            s.insert(i);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), [0, 5, 63, 64, 127, 129]);
        let mut seen = Vec::new();
        for k in 0..s.words() {
            for i in s.word_members(k) {
                seen.push(i);
                s.remove(i);
                s.insert(i ^ 1);
            }
        }
        assert_eq!(seen, [0, 5, 63, 64, 127, 129]);
        assert_eq!(s.iter().collect::<Vec<_>>(), [1, 4, 62, 65, 126, 128]);
        assert!(s.contains(128) && !s.contains(129));
        assert_eq!(members(0b1010_0001).collect::<Vec<_>>(), [0, 5, 7]);
    }
}
