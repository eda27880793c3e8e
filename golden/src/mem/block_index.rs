//! A fixed-capacity map from block addresses to small slot numbers: the index of an MSHR
//! table.
//!
//! Open addressing with linear probing in a power-of-two table at most half full, removal by
//! backward shift (no tombstones). A cell holds a block number (any 64-bit address's) and its
//! slot. Blocks are homed in groups of four, side by side (a line's sectors share a host cache
//! line), the groups scattered by Fibonacci hashing. Written here rather than taken from a
//! crate because its size is fixed by the MSHR's entries (no growth, no rehash) and a probe
//! reads one small cell: hashbrown's general table (insert, remove, lookup) was 4 % of a
//! streaming GPU run's instructions, with a host cache miss per fill in the L2's 32 slices.

use crate::rng::GOLDEN;

/// The slot of an empty cell (slots are below 2^16: `spec::cache::MAX_WAYS`).
const EMPTY: u32 = u32::MAX;
// Every slot of the largest MSHR table a cache string may have is a slot, not `EMPTY`.
const _: () = assert!(spec::cache::MAX_WAYS <= 1 << 16);

/// A block number and its slot ([`EMPTY`]: no block).
#[derive(Debug, Clone, Copy)]
struct Cell {
    block: u64,
    slot: u32,
}

const FREE: Cell = Cell {
    block: 0,
    slot: EMPTY,
};

#[derive(Debug, Clone)]
pub struct BlockIndex {
    cells: Vec<Cell>,
    /// Bits of the table's size, and of a block (its address's low zero bits).
    bits: u32,
    block_bits: u32,
    len: usize,
}

impl BlockIndex {
    /// An index of at most `capacity` keys (and slots below 2^16), each a multiple of `block`
    /// (a power of two).
    pub fn new(capacity: usize, block: u64) -> BlockIndex {
        let size = (2 * capacity).next_power_of_two().max(8);
        BlockIndex {
            cells: vec![FREE; size],
            bits: size.trailing_zeros(),
            block_bits: block.trailing_zeros(),
            len: 0,
        }
    }

    /// The home cell of block number `b`.
    #[inline]
    fn home(&self, b: u64) -> usize {
        // Groups of four blocks (a line's sectors) scattered by Fibonacci hashing; the blocks
        // of a group side by side.
        let group = ((b >> 2).wrapping_mul(GOLDEN) >> (64 - self.bits)) as usize;
        (group << 2 | (b & 3) as usize) & self.mask()
    }

    #[inline]
    fn mask(&self) -> usize {
        self.cells.len() - 1
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cell holding block number `b`, if any: the probe from its home up to an empty
    /// cell.
    #[inline]
    fn find(&self, b: u64) -> Option<usize> {
        let mut i = self.home(b);
        loop {
            let c = self.cells[i];
            if c.slot == EMPTY {
                return None;
            }
            if c.block == b {
                return Some(i);
            }
            i = (i + 1) & self.mask();
        }
    }

    /// The slot of `key`, if present.
    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        self.find(key >> self.block_bits)
            .map(|i| self.cells[i].slot)
    }

    /// Add `key` (absent; the caller keeps at most the capacity) with slot `v`.
    pub fn insert(&mut self, key: u64, v: u32) {
        let b = key >> self.block_bits;
        debug_assert!(v < EMPTY && self.get(key).is_none());
        debug_assert!(2 * self.len < self.cells.len());
        let mut i = self.home(b);
        while self.cells[i].slot != EMPTY {
            i = (i + 1) & self.mask();
        }
        self.cells[i] = Cell { block: b, slot: v };
        self.len += 1;
    }

    /// Remove `key`, giving its slot (`None`: absent).
    pub fn remove(&mut self, key: u64) -> Option<u32> {
        let mask = self.mask();
        let mut hole = self.find(key >> self.block_bits)?;
        let v = self.cells[hole].slot;
        // Backward shift: a later key of the run moves into the hole if its home does not
        // lie after the hole (cyclically), so that every key stays reachable from its home.
        let mut j = (hole + 1) & mask;
        loop {
            let c = self.cells[j];
            if c.slot == EMPTY {
                break;
            }
            let h = self.home(c.block);
            if (j.wrapping_sub(h) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.cells[hole] = self.cells[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.cells[hole] = FREE;
        self.len -= 1;
        Some(v)
    }

    /// The slots present, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = u32> + '_ {
        self.cells
            .iter()
            .filter(|c| c.slot != EMPTY)
            .map(|c| c.slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Against a hash map, over inserts, removals and lookups of keys drawn from few
        /// blocks (long probe runs, wrapping around the table) and far apart ones.
        #[test]
        fn agrees_with_a_hash_map(
            cap in 1usize..40,
            block_bits in 1u32..8,
            ops in prop::collection::vec((0u8..3, 0u64..64, 0usize..4), 0..400),
        ) {
            let block = 1u64 << block_bits;
            let mut t = BlockIndex::new(cap, block);
            let mut m: HashMap<u64, u32> = HashMap::new();
            // Blocks near 0 and anywhere up to the top of the address space (an index that
            // kept 48 bits of the block number lost those above 2^53 with 32-byte sectors).
            let far = [0u64, 1 << 40, 1 << 53, u64::MAX - (1 << 14)];
            for (n, (op, b, at)) in ops.into_iter().enumerate() {
                let key = far[at].wrapping_add(b << block_bits) & !(block - 1);
                match op {
                    0 if m.len() < cap && !m.contains_key(&key) => {
                        t.insert(key, n as u32);
                        m.insert(key, n as u32);
                    }
                    1 => prop_assert_eq!(t.remove(key), m.remove(&key)),
                    _ => prop_assert_eq!(t.get(key), m.get(&key).copied()),
                }
                prop_assert_eq!(t.len(), m.len());
                for (&k, &v) in &m {
                    prop_assert_eq!(t.get(k), Some(v));
                }
                let mut a: Vec<u32> = t.values().collect();
                let mut b: Vec<u32> = m.values().copied().collect();
                a.sort_unstable();
                b.sort_unstable();
                prop_assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn a_removal_that_forgets_to_shift_loses_keys() {
        // Three keys in one run; removing the first must keep the others reachable.
        let mut t = BlockIndex::new(4, 2);
        let keys: Vec<u64> = (0..64u64)
            .map(|b| b << 1)
            .filter(|&k| t.home(k >> 1) == t.home(0))
            .take(3)
            .collect();
        assert_eq!(keys.len(), 3, "three keys with one home");
        for (i, &k) in keys.iter().enumerate() {
            t.insert(k, i as u32);
        }
        assert_eq!(t.remove(keys[0]), Some(0));
        assert_eq!((t.get(keys[1]), t.get(keys[2])), (Some(1), Some(2)));
        assert_eq!(t.remove(keys[0]), None);
    }
}
