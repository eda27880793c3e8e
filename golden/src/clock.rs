//! Clock domains (`-gpgpu_clock_domains core:icnt:l2:dram`, in MHz) advanced by one
//! deterministic scheduler: each call of [`ClockDomains::advance`] is the next instant at which
//! some domain has an edge, with every domain that has one then. Domain `d`'s `k`-th edge is at
//! `k / f_d` (the first at time 0, all together), compared exactly: frequencies are integers in
//! kHz and times rationals, so equal instants tie exactly, where GPGPU-Sim's running sums of
//! floating-point periods can drift apart (decision MEM-11).

use thiserror::Error;

/// A frequency that is not a positive decimal number of MHz with at most three decimals.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "clock frequency `{0}` is not a positive number of MHz with at most 3 decimals (e.g. 1365 \
    or 3500.5)"
)]
pub struct BadFrequency(pub String);

/// Frequencies in kHz from MHz strings (`"3500.5"` -> 3,500,500 kHz).
pub fn khz(mhz: &str) -> Result<u64, BadFrequency> {
    let bad = || BadFrequency(mhz.to_string());
    let t = mhz.trim();
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    if int.is_empty()
        || frac.len() > 3
        || !(int.chars().chain(frac.chars())).all(|c| c.is_ascii_digit())
    {
        return Err(bad());
    }
    let frac = format!("{frac:0<3}");
    let v = int
        .parse::<u64>()
        .ok()
        .and_then(|i| i.checked_mul(1000))
        .and_then(|i| i.checked_add(frac.parse::<u64>().ok()?))
        .ok_or_else(bad)?;
    if v == 0 || v > 1_000_000_000 {
        return Err(bad());
    }
    Ok(v)
}

/// The domains and their next edges. Domains of equal frequency always have their edges
/// together, so they are kept as one group and compared once (a GPU's core, interconnect and
/// L2 clocks are often one frequency). Edges repeat with the period of the frequencies'
/// greatest common divisor; when a period holds few instants (139 for turing-rtx2060s'
/// 1365 and 3500 MHz), they are computed once and replayed from a table.
#[derive(Debug, Clone)]
pub struct ClockDomains {
    /// Per domain: its group.
    group_of: Vec<usize>,
    /// Per group: frequency (kHz), index of its next edge, its domains (bit set).
    khz: Vec<u64>,
    next: Vec<u64>,
    members: Vec<u32>,
    /// The last instant taken: (group, its edge index then).
    last: (usize, u64),
    /// One period's instants (bit set of groups each), empty when the period is too long;
    /// the next one's index; per instant, the edges of every group before it in the period
    /// (one more entry: the period's), which places a jump ([`ClockDomains::skip_to`]).
    period: Vec<u32>,
    at: usize,
    before: Vec<u32>,
    /// The frequencies' greatest common divisor (kHz): a period is `1 / gcd`.
    gcd: u64,
}

/// The most instants per period replayed from a table.
const MAX_PERIOD: u64 = 4096;

#[cfg(test)]
thread_local! {
    /// A deliberately wrong variant for the tests (on this thread): a jump goes one edge of
    /// its domain too far.
    pub(crate) static LAX_JUMP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl ClockDomains {
    /// Domains of the given frequencies (kHz, each at least 1).
    pub fn new(khz: &[u64]) -> ClockDomains {
        let mut c = ClockDomains {
            group_of: Vec::with_capacity(khz.len()),
            khz: Vec::new(),
            next: Vec::new(),
            members: Vec::new(),
            last: (0, 0),
            period: Vec::new(),
            at: 0,
            before: Vec::new(),
            gcd: 1,
        };
        for (d, &f) in khz.iter().enumerate() {
            let f = f.max(1);
            let g = c.khz.iter().position(|&x| x == f).unwrap_or_else(|| {
                c.khz.push(f);
                c.next.push(0);
                c.members.push(0);
                c.khz.len() - 1
            });
            c.members[g] |= 1 << d;
            c.group_of.push(g);
        }
        c.gcd = c.khz.iter().fold(0, |a, &b| gcd(a, b)).max(1);
        let per_period: Vec<u64> = c.khz.iter().map(|&f| f / c.gcd).collect();
        if per_period.iter().sum::<u64>() <= MAX_PERIOD {
            // One period: until every group has had its edges in it.
            let mut period = Vec::new();
            let mut before = vec![0];
            while c.next.iter().zip(&per_period).any(|(n, p)| n < p) {
                let now = c.exact();
                c.take(now);
                period.push(now);
                before.push(c.next.iter().sum::<u64>() as u32);
            }
            c.next.iter_mut().for_each(|n| *n = 0);
            c.period = period;
            c.before = before;
        }
        c
    }

    /// Whether group `a`'s next edge is before (Less), with (Equal) or after group `b`'s:
    /// `next_a / f_a` against `next_b / f_b`, exactly.
    fn cmp(&self, a: usize, b: usize) -> std::cmp::Ordering {
        (u128::from(self.next[a]) * u128::from(self.khz[b]))
            .cmp(&(u128::from(self.next[b]) * u128::from(self.khz[a])))
    }

    /// The groups with the next edge (a bit set), by exact comparison.
    fn exact(&self) -> u32 {
        let mut first = 0;
        for g in 1..self.khz.len() {
            if self.cmp(g, first).is_lt() {
                first = g;
            }
        }
        let mut now = 0u32;
        for g in 0..self.khz.len() {
            if g == first || self.cmp(g, first).is_eq() {
                now |= 1 << g;
            }
        }
        now
    }

    /// Take the edges of the groups in `now`: their domains (a bit set).
    fn take(&mut self, now: u32) -> u32 {
        let g = now.trailing_zeros() as usize;
        self.last = (g, self.next[g]);
        let mut mask = 0u32;
        let mut m = now;
        while m != 0 {
            let g = m.trailing_zeros() as usize;
            m &= m - 1;
            mask |= self.members[g];
            self.next[g] += 1;
        }
        mask
    }

    /// Take the next instant: a bit set of the domains with an edge then (bit `d` for domain
    /// `d`). Their edges are taken.
    pub fn advance(&mut self) -> u32 {
        let now = if self.period.is_empty() {
            self.exact()
        } else {
            let now = self.period[self.at];
            self.at += 1;
            if self.at == self.period.len() {
                self.at = 0;
            }
            now
        };
        self.take(now)
    }

    /// The instant last taken by [`ClockDomains::advance`], in picoseconds (rounded down).
    pub fn now_ps(&self) -> u64 {
        let (g, edge) = self.last;
        (u128::from(edge) * 1_000_000_000 / u128::from(self.khz[g])) as u64
    }

    /// Edges domain `d` has had.
    pub fn edges(&self, d: usize) -> u64 {
        self.next[self.group_of[d]]
    }

    /// The index of domain `r`'s last edge at or before domain `d`'s edge `e` (edge 0 of every
    /// domain is at time 0): `floor(e * f_r / f_d)`.
    pub fn last_edge_by(&self, r: usize, d: usize, e: u64) -> u64 {
        let (fr, fd) = (self.khz[self.group_of[r]], self.khz[self.group_of[d]]);
        // (At most 2^64 x 10^9 / 1: the quotient fits a u64 unless `e` is near 2^64.)
        u64::try_from(u128::from(e) * u128::from(fr) / u128::from(fd)).unwrap_or(u64::MAX)
    }

    /// Jump to domain `r`'s edge `k`: every edge of every domain before that instant is taken
    /// at once, and the next [`ClockDomains::advance`] is that instant (as if `advance` had
    /// been called until then). `k` is at least [`ClockDomains::edges`]`(r)`, the edge not yet
    /// taken. What each domain does on its skipped edges is its owner's business: the
    /// difference of [`ClockDomains::edges`] before and after says how many there were.
    pub fn skip_to(&mut self, r: usize, k: u64) {
        #[cfg(test)]
        let k = k + u64::from(LAX_JUMP.with(std::cell::Cell::get));
        let fr = u128::from(self.khz[self.group_of[r]]);
        // Group g's edges before k / f_r: ceil(k * f_g / f_r).
        let mut latest: Option<(usize, u64)> = None;
        for g in 0..self.khz.len() {
            let f = u128::from(self.khz[g]);
            let n = (u128::from(k) * f).div_ceil(fr);
            let n = u64::try_from(n).unwrap_or(u64::MAX);
            debug_assert!(n >= self.next[g], "a jump back in time");
            self.next[g] = n;
            // The instant last taken: the latest last edge of any group, (n - 1) / f_g.
            if n > 0 {
                let later = latest.is_none_or(|(h, m)| {
                    u128::from(n - 1) * u128::from(self.khz[h])
                        > u128::from(m - 1) * u128::from(self.khz[g])
                });
                if later {
                    latest = Some((g, n));
                }
            }
        }
        if let Some((g, n)) = latest {
            self.last = (g, n - 1);
        }
        if !self.period.is_empty() {
            // Whole periods before the instant, then the instants of the last one before it:
            // those before which its groups' edges in that period were taken.
            let periods = u128::from(k) * u128::from(self.gcd) / fr;
            let taken: u128 = self
                .next
                .iter()
                .zip(&self.khz)
                .map(|(&n, &f)| u128::from(n) - periods * u128::from(f / self.gcd))
                .sum();
            let i = self.before.partition_point(|&b| u128::from(b) < taken);
            self.at = if i >= self.period.len() { 0 } else { i };
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_parse_exactly() {
        assert_eq!(khz("3500.5"), Ok(3_500_500));
        assert_eq!(khz("1365"), Ok(1_365_000));
        assert_eq!(khz(" 700.0 "), Ok(700_000));
        for bad in ["", "0", "-5", "1.2345", "12a", "1e3", "."] {
            assert!(khz(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn each_domain_has_its_frequency_of_edges_and_equal_clocks_tick_together() {
        // RTX2060: core, interconnect and L2 at 1365 MHz, DRAM at 3500.5 MHz.
        let f: Vec<u64> = ["1365", "1365", "1365", "3500.5"]
            .iter()
            .map(|s| khz(s).unwrap())
            .collect();
        let mut c = ClockDomains::new(&f);
        let mut last = 0;
        // Every instant up to 100 us.
        loop {
            let mask = c.advance();
            let ps = c.now_ps();
            assert!(ps >= last, "time never goes back");
            last = ps;
            // The three equal clocks always tick together.
            assert!(
                matches!(mask & 0b111, 0 | 0b111),
                "mask {mask:#b} at {ps} ps"
            );
            if ps >= 100_000_000 {
                break;
            }
        }
        // Edges in [0, 100 us]: f x 100 us + 1 (the one at 0), and one more taken at the end.
        let e: Vec<u64> = (0..4).map(|d| c.edges(d)).collect();
        assert!((136_500..=136_502).contains(&e[0]), "{e:?}");
        assert!((350_050..=350_052).contains(&e[3]), "{e:?}");
        assert_eq!((e[0], e[1]), (e[1], e[2]));
    }

    #[test]
    fn commensurate_clocks_meet_exactly() {
        // 1000 and 1500 kHz meet every 2 us: edges 2 and 3 at 2 us, exactly together (a
        // floating-point running sum of 1/1.5 MHz periods would drift off it).
        let mut c = ClockDomains::new(&[1000, 1500]);
        let mut together = Vec::new();
        for _ in 0..1000 {
            if c.advance() == 0b11 {
                together.push(c.now_ps());
            }
        }
        assert!(together.len() > 100);
        assert!(
            together
                .iter()
                .enumerate()
                .all(|(i, &t)| t == i as u64 * 2_000_000),
            "{:?}",
            &together[..5]
        );
        // The deliberately wrong variant this guards against: GPGPU-Sim's running sums of
        // floating-point periods, compared with `<=`, lose some of those meetings.
        let (mut a, mut b) = (0f64, 0f64);
        let (pa, pb) = (1.0 / 1000e3, 1.0 / 1500e3);
        let mut float_together = 0;
        for _ in 0..1000 {
            let m = a.min(b);
            let (ta, tb) = (a <= m, b <= m);
            float_together += usize::from(ta && tb);
            if ta {
                a += pa;
            }
            if tb {
                b += pb;
            }
        }
        assert!(
            float_together < together.len(),
            "{float_together} vs {}",
            together.len()
        );
    }

    /// `c` stepped until its next instant is domain `r`'s edge `k`.
    fn stepped_to(mut c: ClockDomains, r: usize, k: u64) -> ClockDomains {
        loop {
            let mut next = c.clone();
            let mask = next.advance();
            if mask >> r & 1 != 0 && next.edges(r) == k + 1 {
                return c;
            }
            c = next;
        }
    }

    /// Whether `a` and `b` are at the same instant: the same edges per domain, the same
    /// last instant, and the same instants from here on.
    fn same_from_here(mut a: ClockDomains, mut b: ClockDomains, domains: usize) -> bool {
        let edges = |c: &ClockDomains| (0..domains).map(|d| c.edges(d)).collect::<Vec<_>>();
        if edges(&a) != edges(&b) || a.now_ps() != b.now_ps() {
            return false;
        }
        (0..300).all(|_| a.advance() == b.advance())
    }

    const CHOICES: [u64; 6] = [1_365_000, 3_500_000, 700_000, 924_000, 999_983, 3_500_500];

    #[test]
    fn a_jump_one_edge_too_far_is_caught() {
        let f = [700_000, 700_000, 700_000, 3_500_500];
        let mut c = ClockDomains::new(&f);
        for _ in 0..7 {
            c.advance();
        }
        let want = stepped_to(c.clone(), 0, 40);
        LAX_JUMP.with(|l| l.set(true));
        let mut lax = c.clone();
        lax.skip_to(0, 40);
        LAX_JUMP.with(|l| l.set(false));
        assert!(!same_from_here(lax, want.clone(), 4));
        c.skip_to(0, 40);
        assert!(same_from_here(c, want, 4));
    }

    proptest::proptest! {
        /// A jump to a domain's edge leaves every domain where stepping to that instant does:
        /// the same edges, the same last instant, the same instants after it (with and
        /// without a period table; a jump of 0 edges too).
        #[test]
        fn a_jump_is_stepping_to_its_edge(
            pick in proptest::collection::vec(0usize..6, 1..5),
            first in 0usize..50,
            r in 0usize..4,
            ahead in 0u64..3000,
        ) {
            let f: Vec<u64> = pick.iter().map(|&i| CHOICES[i]).collect();
            let r = r % f.len();
            let mut c = ClockDomains::new(&f);
            for _ in 0..first {
                c.advance();
            }
            let k = c.edges(r) + ahead;
            let want = stepped_to(c.clone(), r, k);
            c.skip_to(r, k);
            proptest::prop_assert!(same_from_here(c, want, f.len()));
        }

        /// Grouping equal clocks and replaying a period change nothing: every instant's
        /// domains are those a per-domain exact comparison finds (frequencies drawn from a
        /// few values, so that groups form; with 999,983 kHz, a prime, the period is too long
        /// for a table and the comparison runs each time).
        #[test]
        fn groups_take_the_edges_a_per_domain_scan_takes(
            pick in proptest::collection::vec(0usize..5, 1..6),
        ) {
            let choices = [1_365_000u64, 3_500_000, 700_000, 924_000, 999_983];
            let f: Vec<u64> = pick.iter().map(|&i| choices[i]).collect();
            let mut c = ClockDomains::new(&f);
            let mut next = vec![0u64; f.len()];
            for _ in 0..5000 {
                let time = |n: &[u64], d: usize, e: usize| u128::from(n[d]) * u128::from(f[e]);
                let first = (0..f.len())
                    .min_by(|&a, &b| time(&next, a, b).cmp(&time(&next, b, a)))
                    .unwrap();
                let mut want = 0u32;
                for d in 0..f.len() {
                    if time(&next, d, first) == time(&next, first, d) {
                        want |= 1 << d;
                    }
                }
                for (d, n) in next.iter_mut().enumerate() {
                    *n += u64::from(want >> d & 1);
                }
                proptest::prop_assert_eq!(c.advance(), want);
            }
        }
    }
}
