//! The C library's `rand()` as glibc computes it, so that a benchmark whose host code seeds
//! `srand` with a constant gets the very input it gets on Linux.
//!
//! Written here rather than taken from a crate: no maintained crate reproduces glibc's
//! generator, and calling the platform's `rand` would differ off glibc and share global state
//! between tests. glibc's `random_r` with the default state (`TYPE_3`): 31 words seeded by the
//! Park-Miller generator, then an additive lagged-Fibonacci generator `r[i] = r[i-3] + r[i-31]`
//! whose first 310 outputs are discarded; `rand()` returns `r[i] >> 1`.

/// The largest value `rand()` returns (glibc's `RAND_MAX`).
pub const RAND_MAX: u32 = 0x7fff_ffff;

/// glibc's `rand()` after `srand(seed)`.
pub struct CRand {
    r: [u32; 34],
    /// Index of the next word to compute, modulo 34.
    i: usize,
}

impl CRand {
    pub fn new(seed: u32) -> CRand {
        let mut r = [0u32; 34];
        r[0] = if seed == 0 { 1 } else { seed };
        for k in 1..31 {
            // 16807 * r[k-1] mod (2^31 - 1), by Schrage's method as glibc writes it (signed).
            let prev = i64::from(r[k - 1] as i32);
            let (hi, lo) = (prev / 127_773, prev % 127_773);
            let mut word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            r[k] = word as u32;
        }
        for k in 31..34 {
            r[k] = r[k - 31];
        }
        let mut g = CRand { r, i: 34 };
        for _ in 34..344 {
            g.step();
        }
        g
    }

    fn step(&mut self) -> u32 {
        let at = |back: usize| (self.i + 34 - back) % 34;
        let v = self.r[at(31)].wrapping_add(self.r[at(3)]);
        self.r[self.i % 34] = v;
        self.i += 1;
        v
    }

    /// The next `rand()`, in `0..=RAND_MAX`.
    pub fn rand(&mut self) -> u32 {
        self.step() >> 1
    }

    /// `(float) rand() / RAND_MAX`, as C computes it (both operands `float`).
    pub fn unit_f32(&mut self) -> f32 {
        self.rand() as f32 / RAND_MAX as f32
    }

    /// The CUDA samples' `RandFloat(low, high)`: `(1 - t) * low + t * high` in `float` for
    /// `t` the next [`CRand::unit_f32`].
    pub fn rand_float(&mut self, low: f32, high: f32) -> f32 {
        let t = self.unit_f32();
        (1.0 - t) * low + t * high
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_glibc() {
        // glibc's first values after srand(1) (the default seed), srand(7) and srand(9)
        // (printed by a C program on glibc 2.36).
        let mut g = CRand::new(1);
        let first: Vec<u32> = (0..4).map(|_| g.rand()).collect();
        assert_eq!(
            first,
            [1_804_289_383, 846_930_886, 1_681_692_777, 1_714_636_915]
        );
        let mut g = CRand::new(7);
        assert_eq!([g.rand(), g.rand()], [1_045_618_677, 1_863_967_299]);
        assert_eq!(CRand::new(9).rand(), 444_454_915);
        // srand(0) seeds as srand(1).
        assert_eq!(CRand::new(0).rand(), 1_804_289_383);
    }
}
