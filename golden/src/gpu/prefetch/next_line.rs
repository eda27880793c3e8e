//! Next line (`next-line`, tests only): each training access's next line. It exists to show
//! what adding a prefetcher takes (this file and its line in the registry) and that the tests
//! over every registered prefetcher run it.

use super::{Predicted, PrefetchStats, Prefetcher, Tick};
use spec::Spec;

pub struct NextLine {
    line_bytes: u64,
    /// The cycle's prefetch address, if any.
    next: [u64; 1],
}

impl Prefetcher for NextLine {
    const NAME: &'static str = "next-line";

    fn new(spec: &Spec) -> NextLine {
        NextLine {
            line_bytes: spec.gpu.line_bytes.into(),
            next: [0],
        }
    }

    fn cycle(&mut self, t: &Tick, stats: &mut PrefetchStats) -> Result<Predicted<'_>, String> {
        let Some(a) = t.train else {
            return Ok(Predicted {
                took: false,
                addrs: &[],
            });
        };
        stats.predictions += 1;
        self.next[0] = (a.addr & !(self.line_bytes - 1)).wrapping_add(self.line_bytes);
        Ok(Predicted {
            took: true,
            addrs: &self.next,
        })
    }
}
