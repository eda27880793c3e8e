//! Stream (`stream`): seed 001's Stream baseline (Table V: "Stream prefetcher [29]",
//! 512-entry; [29] is POWER5's), trained per warp as seed 001's enhanced prefetchers are
//! (section VII: "all prefetchers should be trained using the warp id"). Decision HWP-13.
//!
//! Each entry follows one stream of one warp: the last line it touched and its direction
//! (none yet, up or down). A warp's access within `prefetch.stream_window` lines of one of its
//! streams trains the nearest such stream. The first step away from the last line sets the
//! direction, and the stream prefetches from then on; each later step the same way moves it
//! on. Each time it moves, it prefetches `prefetch.degree` lines from `prefetch.distance`
//! lines ahead of the access, in its direction. A step the other way clears the direction: the
//! next step sets it again. An access to the last line itself changes nothing. An access near
//! none of the warp's streams starts a new one, replacing the least recently trained stream
//! when every entry is taken. A launch forgets every stream.

use super::{insert_replacing_lru, Predicted, PrefetchStats, Prefetcher, Tick};
use spec::Spec;

/// One warp's stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    warp: u32,
    /// The line last accessed (address / line size).
    line: u64,
    /// +1 up, -1 down, 0 not yet known.
    dir: i8,
    /// When it was last trained (for LRU replacement).
    used: u64,
}

pub struct Stream {
    entries: Vec<Entry>,
    capacity: usize,
    /// `prefetch.stream_window`, in lines.
    window: u64,
    distance: u64,
    degree: u64,
    line_bytes: u64,
    /// Training accesses taken so far: the LRU clock.
    clock: u64,
    /// This cycle's prefetch addresses.
    out: Vec<u64>,
}

impl Stream {
    /// Train with warp `warp`'s access to line `line`; the lines to prefetch go to `out`.
    fn train(&mut self, warp: u32, line: u64) {
        self.clock += 1;
        self.out.clear();
        let nearest = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.warp == warp && e.line.abs_diff(line) <= self.window)
            .min_by_key(|(_, e)| (e.line.abs_diff(line), u64::MAX - e.used))
            .map(|(i, _)| i);
        let Some(i) = nearest else {
            let fresh = Entry {
                warp,
                line,
                dir: 0,
                used: self.clock,
            };
            insert_replacing_lru(&mut self.entries, self.capacity, fresh, |e| e.used);
            return;
        };
        let e = &mut self.entries[i];
        e.used = self.clock;
        if line == e.line {
            return;
        }
        let dir = if line > e.line { 1 } else { -1 };
        e.line = line;
        if e.dir != 0 && e.dir != dir {
            e.dir = 0;
            return;
        }
        e.dir = dir;
        for k in 0..self.degree {
            let ahead = self.distance + k;
            let target = if dir > 0 {
                line.checked_add(ahead)
            } else {
                line.checked_sub(ahead)
            };
            if let Some(addr) = target.and_then(|l| l.checked_mul(self.line_bytes)) {
                self.out.push(addr);
            }
        }
    }
}

impl Prefetcher for Stream {
    const NAME: &'static str = "stream";

    fn new(spec: &Spec) -> Stream {
        let p = &spec.prefetch;
        let capacity = usize::try_from(p.stream_entries).unwrap_or(usize::MAX);
        Stream {
            entries: Vec::with_capacity(capacity),
            capacity,
            window: p.stream_window.into(),
            distance: p.distance.into(),
            degree: p.degree.into(),
            line_bytes: spec.gpu.line_bytes.into(),
            clock: 0,
            out: Vec::new(),
        }
    }

    fn cycle(&mut self, t: &Tick, stats: &mut PrefetchStats) -> Result<Predicted<'_>, String> {
        if t.launch {
            self.entries.clear();
        }
        let Some(a) = t.train else {
            return Ok(Predicted {
                took: false,
                addrs: &[],
            });
        };
        self.train(a.warp, a.addr / self.line_bytes);
        if !self.out.is_empty() {
            stats.predictions += 1;
        }
        Ok(Predicted {
            took: true,
            addrs: &self.out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::prefetch::examples;

    fn stream(entries: u32, window: u32, distance: u32, degree: u32) -> Stream {
        examples::on_tiny(&[
            format!("prefetch.stream_entries={entries}"),
            format!("prefetch.stream_window={window}"),
            format!("prefetch.distance={distance}"),
            format!("prefetch.degree={degree}"),
        ])
    }

    /// The lines `s` prefetches for warp `warp`'s access to line `line`.
    fn access(s: &mut Stream, warp: u32, line: u64) -> Vec<u64> {
        let line_bytes = s.line_bytes;
        examples::access(s, line_bytes, warp, line)
    }

    #[test]
    fn the_second_step_sets_the_direction_up_or_down() {
        let mut s = stream(16, 4, 1, 1);
        assert_eq!(access(&mut s, 0, 100), Vec::<u64>::new());
        assert_eq!(access(&mut s, 0, 101), vec![102]);
        assert_eq!(access(&mut s, 0, 102), vec![103]);
        // Two lines on, within the window: the stream moves on.
        assert_eq!(access(&mut s, 0, 104), vec![105]);
        let mut s = stream(16, 4, 1, 1);
        assert_eq!(access(&mut s, 3, 500), Vec::<u64>::new());
        assert_eq!(access(&mut s, 3, 499), vec![498]);
        assert_eq!(access(&mut s, 3, 497), vec![496]);
    }

    #[test]
    fn distance_and_degree_place_the_prefetches() {
        let mut s = stream(16, 4, 3, 2);
        access(&mut s, 0, 10);
        assert_eq!(access(&mut s, 0, 11), vec![14, 15]);
        let mut s = stream(16, 4, 3, 2);
        access(&mut s, 0, 10);
        assert_eq!(access(&mut s, 0, 9), vec![6, 5]);
        // Below line 0 nothing is prefetched.
        let mut s = stream(16, 4, 1, 2);
        access(&mut s, 0, 2);
        assert_eq!(access(&mut s, 0, 1), vec![0]);
    }

    #[test]
    fn a_reversal_clears_the_direction_and_the_same_line_changes_nothing() {
        let mut s = stream(16, 4, 1, 1);
        access(&mut s, 0, 50);
        assert_eq!(access(&mut s, 0, 51), vec![52]);
        assert_eq!(access(&mut s, 0, 51), Vec::<u64>::new());
        assert_eq!(access(&mut s, 0, 50), Vec::<u64>::new());
        assert_eq!(access(&mut s, 0, 49), vec![48]);
    }

    /// Seed 001's point: warps interleaved each keep their own stream, in opposite directions.
    #[test]
    fn interleaved_warps_train_their_own_streams() {
        let mut s = stream(16, 4, 1, 1);
        access(&mut s, 1, 1000);
        access(&mut s, 2, 1002);
        assert_eq!(access(&mut s, 1, 1001), vec![1002]);
        assert_eq!(access(&mut s, 2, 1001), vec![1000]);
        assert_eq!(access(&mut s, 1, 1002), vec![1003]);
        assert_eq!(access(&mut s, 2, 1000), vec![999]);
    }

    #[test]
    fn a_far_access_starts_a_stream_and_the_least_recent_is_replaced() {
        let mut s = stream(2, 4, 1, 1);
        access(&mut s, 0, 100);
        // Five lines away: outside the window, a second stream.
        assert_eq!(access(&mut s, 0, 105), Vec::<u64>::new());
        assert_eq!(s.entries.len(), 2);
        // Train the first (100), so the second (105) is the least recent.
        assert_eq!(access(&mut s, 0, 101), vec![102]);
        access(&mut s, 0, 300);
        let mut lines: Vec<u64> = s.entries.iter().map(|e| e.line).collect();
        lines.sort_unstable();
        assert_eq!(lines, vec![101, 300]);
        // 101's stream still runs.
        assert_eq!(access(&mut s, 0, 102), vec![103]);
        let mut s = stream(2, 4, 1, 1);
        access(&mut s, 0, 100);
        access(&mut s, 0, 200);
        assert_eq!(access(&mut s, 0, 101), vec![102]);
    }

    #[test]
    fn a_launch_forgets_every_stream() {
        let mut s = stream(16, 4, 1, 1);
        access(&mut s, 0, 100);
        access(&mut s, 0, 101);
        examples::launch(&mut s);
        assert_eq!(access(&mut s, 0, 102), Vec::<u64>::new());
    }
}
