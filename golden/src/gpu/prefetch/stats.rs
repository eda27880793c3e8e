//! What the prefetchers of the GPU did: the figures `warpsmith run` reports.

use serde::Serialize;

/// What the prefetcher of one SM (or the GPU) did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PrefetchStats {
    /// Training accesses taken by the engine, and those dropped because its queue was full.
    pub trained: u64,
    pub train_dropped: u64,
    /// Predictions the engine made, and those its throttle dropped.
    pub predictions: u64,
    pub throttled: u64,
    /// Prefetch addresses the engine issued; dropped as redundant or for a full queue.
    pub candidates: u64,
    pub redundant: u64,
    pub queue_dropped: u64,
    /// Prefetches sent to the memory side.
    pub issued: u64,
    /// Prefetched lines whose first demand use came after their fill (timely).
    pub useful: u64,
    /// Demand loads that merged with a prefetch in flight (late prefetches).
    pub late: u64,
    /// Prefetched lines evicted from the prefetch cache (or the L1) before any use.
    pub early_evicted: u64,
    /// Prefetched lines the L1 could not install (their dirty victim found its miss queue
    /// full; prefetching into the L1).
    pub fill_dropped: u64,
    /// Demand loads answered by the prefetch cache.
    pub hits: u64,
    /// Demand global loads (line requests) seen, and those that missed everything.
    pub demand: u64,
    /// Throttle updates, and cycles spent at each degree (summed over SMs).
    pub throttle_updates: u64,
    pub degree_cycles: [u64; 6],
    /// The throttle degree at each update, in order (one SM's, or every SM's in turn).
    pub degree_trace: Vec<u8>,
}

impl PrefetchStats {
    pub fn add(&mut self, o: &PrefetchStats) {
        self.trained += o.trained;
        self.train_dropped += o.train_dropped;
        self.predictions += o.predictions;
        self.throttled += o.throttled;
        self.candidates += o.candidates;
        self.redundant += o.redundant;
        self.queue_dropped += o.queue_dropped;
        self.issued += o.issued;
        self.useful += o.useful;
        self.late += o.late;
        self.early_evicted += o.early_evicted;
        self.fill_dropped += o.fill_dropped;
        self.hits += o.hits;
        self.demand += o.demand;
        self.throttle_updates += o.throttle_updates;
        for (a, b) in self.degree_cycles.iter_mut().zip(o.degree_cycles) {
            *a += b;
        }
    }

    /// Accuracy: prefetches a demand load used (timely or late) per prefetch issued.
    pub fn accuracy(&self) -> f64 {
        (self.useful + self.late) as f64 / self.issued.max(1) as f64
    }

    /// Coverage: demand line requests served by a prefetch (a hit or a late merge) per demand
    /// line request.
    pub fn coverage(&self) -> f64 {
        (self.hits + self.late) as f64 / self.demand.max(1) as f64
    }

    /// The mean throttle degree over the run.
    pub fn mean_degree(&self) -> f64 {
        let n: u64 = self.degree_cycles.iter().sum();
        let s: u64 = self
            .degree_cycles
            .iter()
            .enumerate()
            .map(|(d, c)| d as u64 * c)
            .sum();
        s as f64 / n.max(1) as f64
    }
}
