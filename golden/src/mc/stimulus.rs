//! Memory-controller transaction stimulus: the public JSON-lines format, its validation, and
//! generators of warp-load traffic in the three classes of seed 004 (LOA, MOA, HOA).
//!
//! ```text
//! {"cycle":N,"op":"req","sm":N,"warp":N,"pc":N,"addr":N,"write":bool,"load":N,"prefetch":bool}
//! ```
//! `prefetch` (optional, false when absent) marks a prefetch (seed 001) rather than a demand
//! request: with `prefetch.demand_first` the schedulers serve demand requests first.
//! `cycle` is in controller (DRAM command) cycles, never decreases and is at most [`MAX_CYCLE`]
//! (2^62: the run's clocks count on past it to the request's completion). `load` names the warp
//! load (the requests one warp instruction produced). A warp load takes requests for
//! [`LOAD_WINDOW`] cycles after its first: a labelled request joins its label's load within that
//! window (a label used again later starts a new load); an unlabelled request joins the current
//! load of its (SM, warp) if it has the same PC and arrives within the window; otherwise it starts
//! a new one.
//! Blank lines and lines starting with `#` are skipped.

use serde::{Deserialize, Serialize};
use spec::Spec;
use std::collections::HashMap;
use thiserror::Error;

pub use super::generate::{random_service_rate, stress, warp_loads, LoadClass};

/// The last cycle a request may arrive at: far beyond any real run, and far enough below
/// 2^64 that every clock of the run (the DRAM's and the faster core's) counts on to the
/// request's completion without wrapping.
pub const MAX_CYCLE: u64 = 1 << 62;

/// Cycles after a load's first request during which an unlabelled request of the same SM, warp
/// and PC still belongs to it.
pub const LOAD_WINDOW: u64 = 256;

/// The operation of a transaction: a request is the only one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Req,
}

/// One transaction of the public stimulus format. A plain struct with an `op` field rather
/// than an internally tagged enum: serde buffers a tagged enum's fields before reading them,
/// which made reading the slowest part of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McTxn {
    pub op: Op,
    pub cycle: u64,
    pub sm: u32,
    pub warp: u32,
    pub pc: u64,
    pub addr: u64,
    pub write: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prefetch: bool,
}

/// A request with its warp load resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub cycle: u64,
    pub sm: u32,
    pub warp: u32,
    pub pc: u64,
    pub addr: u64,
    pub write: bool,
    /// Dense warp-load index (0, 1, ...).
    pub load: u32,
    /// A prefetch (seed 001), not a demand request.
    pub prefetch: bool,
}

/// A stimulus problem with its 1-based line.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{source_name}:{line}: {message}")]
pub struct McStimulusError {
    pub source_name: String,
    pub line: usize,
    pub message: String,
}

/// Parse and validate a whole stimulus text against a configuration.
pub fn parse(text: &str, source_name: &str, spec: &Spec) -> Result<Vec<Request>, McStimulusError> {
    Reader::new(text.as_bytes(), source_name, spec).collect()
}

/// Reads a JSON-lines stimulus one request at a time (memory does not grow with its length),
/// checking each against the configuration and resolving its warp load ([`Resolver`]).
/// Errors name the source and the 1-based line; after one, the reader ends.
pub struct Reader<R: std::io::BufRead> {
    input: R,
    source_name: String,
    resolver: Resolver,
    line: usize,
    buf: Vec<u8>,
    failed: bool,
}

impl<R: std::io::BufRead> Reader<R> {
    pub fn new(input: R, source_name: &str, spec: &Spec) -> Reader<R> {
        Reader {
            input,
            source_name: source_name.to_string(),
            resolver: Resolver::new(spec),
            line: 0,
            buf: Vec::new(),
            failed: false,
        }
    }

    fn error(&mut self, message: String) -> McStimulusError {
        self.failed = true;
        McStimulusError {
            source_name: self.source_name.clone(),
            line: self.line,
            message,
        }
    }
}

impl<R: std::io::BufRead> Iterator for Reader<R> {
    type Item = Result<Request, McStimulusError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.failed {
            self.line += 1;
            // A compact line wholly in the input's buffer is read there, without a copy
            // (the common case); any other line is copied out.
            let t = match self.input.fill_buf().ok().and_then(line_in_buffer) {
                Some((t, n)) => {
                    self.input.consume(n);
                    t
                }
                None => {
                    self.buf.clear();
                    match self.input.read_until(b'\n', &mut self.buf) {
                        Ok(0) => return None,
                        Ok(_) => {}
                        Err(e) => return Some(Err(self.error(format!("cannot read: {e}")))),
                    }
                    // The compact lines writers produce are read by the fast path (such a
                    // line is ASCII); serde_json reads the rest, as text, and gives the
                    // errors.
                    match super::fastline::fast_txn(self.buf.trim_ascii()) {
                        Some(t) => t,
                        None => {
                            let Ok(text) = std::str::from_utf8(&self.buf) else {
                                let m = "cannot read: stream did not contain valid UTF-8";
                                return Some(Err(self.error(m.to_string())));
                            };
                            let text = text.trim();
                            if text.is_empty() || text.starts_with('#') {
                                continue;
                            }
                            match serde_json::from_str(text) {
                                Ok(t) => t,
                                Err(e) => {
                                    let m = crate::run::json_line_error(&e);
                                    let m = if m.contains("unknown variant") {
                                        format!("{m} (the only op is req)")
                                    } else {
                                        m
                                    };
                                    return Some(Err(self.error(m)));
                                }
                            }
                        }
                    }
                }
            };
            return Some(self.resolver.push(&t).map_err(|m| self.error(m)));
        }
        None
    }
}

/// A request line wholly in `avail` (the start of a reader's buffer) that the fast path
/// takes, and the bytes it spans with its line feed; `None` leaves the line to be copied out.
/// A line in one of the writers' layouts ends at its `}` and a line feed, so it needs no
/// search for its end; any other line is found with `memchr`.
fn line_in_buffer(avail: &[u8]) -> Option<(McTxn, usize)> {
    if let Some((t, rest)) = super::fastline::line_at(avail) {
        if rest.first() == Some(&b'\n') {
            return Some((t, avail.len() - rest.len() + 1));
        }
    }
    let n = memchr::memchr(b'\n', avail)?;
    Some((super::fastline::fast_txn(avail[..n].trim_ascii())?, n + 1))
}

/// Check transactions and resolve their warp loads. Errors carry the transaction index.
pub fn resolve(txns: &[McTxn], spec: &Spec) -> Result<Vec<Request>, (usize, String)> {
    let mut r = Resolver::new(spec);
    txns.iter()
        .enumerate()
        .map(|(i, t)| r.push(t).map_err(|m| (i, m)))
        .collect()
}

/// Checks requests one at a time (cycles never decrease, SM, warp and PC in range) and gives
/// each its dense warp-load index. A warp load takes requests for [`LOAD_WINDOW`] cycles
/// after its first one: an unlabelled request joins the current load of its (SM, warp) if it
/// has the same PC and falls in that window; a labelled one joins the load of its label if it
/// falls in that load's window, and otherwise starts a new load. So no load is open for long
/// and the state stays small however long the stream.
pub struct Resolver {
    sms: u32,
    warps: u32,
    pc_bits: u32,
    pc_max: u64,
    /// label -> (load, first cycle), loads still in their window (pruned as they pass).
    explicit: HashMap<u64, (u32, u64)>,
    /// Size of `explicit` after its last pruning.
    kept: usize,
    /// Per (sm, warp), at `sm * warps + warp`: (pc, load, first cycle) of its open load. A
    /// table rather than a map: at most 256 x 128 entries (validated), indexed without
    /// hashing on every request read.
    open: Vec<Option<(u64, u32, u64)>>,
    next_load: u32,
    last_cycle: u64,
}

impl Resolver {
    pub fn new(spec: &Spec) -> Resolver {
        Resolver {
            sms: spec.gpu.sms,
            warps: spec.gpu.warps_per_sm,
            pc_bits: spec.wmc.pc_bits,
            pc_max: crate::block::mask(spec.wmc.pc_bits),
            explicit: HashMap::new(),
            kept: 0,
            open: vec![None; (spec.gpu.sms * spec.gpu.warps_per_sm) as usize],
            next_load: 0,
            last_cycle: 0,
        }
    }

    /// The next transaction as a request, or why it is refused.
    pub fn push(&mut self, t: &McTxn) -> Result<Request, String> {
        let McTxn {
            op: Op::Req,
            cycle,
            sm,
            warp,
            pc,
            addr,
            write,
            load,
            prefetch,
        } = *t;
        if cycle < self.last_cycle {
            return Err(format!(
                "cycle {cycle} is earlier than the previous request's {}: cycles never decrease",
                self.last_cycle
            ));
        }
        self.last_cycle = cycle;
        if cycle > MAX_CYCLE {
            return Err(format!(
                "cycle {cycle} is beyond the last cycle a run can reach, {MAX_CYCLE} (2^62)"
            ));
        }
        if sm >= self.sms {
            return Err(format!("sm {sm} is out of range: gpu.sms = {}", self.sms));
        }
        if warp >= self.warps {
            return Err(format!(
                "warp {warp} is out of range: gpu.warps_per_sm = {}",
                self.warps
            ));
        }
        if pc > self.pc_max {
            return Err(format!(
                "pc {pc:#x} does not fit warped_mc.pc_bits = {}",
                self.pc_bits
            ));
        }
        let in_window = |first: u64| cycle - first < LOAD_WINDOW;
        let load = match load {
            Some(l) => match self.explicit.get(&l) {
                Some(&(id, first)) if in_window(first) => id,
                _ => {
                    let id = self.fresh();
                    self.explicit.insert(l, (id, cycle));
                    if self.explicit.len() > 2 * self.kept.max(64) {
                        self.explicit
                            .retain(|_, (_, first)| cycle - *first < LOAD_WINDOW);
                        self.kept = self.explicit.len();
                    }
                    id
                }
            },
            None => {
                let slot = (sm * self.warps + warp) as usize;
                match self.open[slot] {
                    Some((p, id, first)) if p == pc && in_window(first) => id,
                    _ => {
                        let id = self.fresh();
                        self.open[slot] = Some((pc, id, cycle));
                        id
                    }
                }
            }
        };
        Ok(Request {
            cycle,
            sm,
            warp,
            pc,
            addr,
            write,
            load,
            prefetch,
        })
    }

    fn fresh(&mut self) -> u32 {
        self.next_load += 1;
        self.next_load - 1
    }
}

/// Serialize requests as the public format (with explicit `load`).
pub fn to_jsonl(reqs: &[Request]) -> String {
    let mut s = String::new();
    for t in to_txns(reqs) {
        s.push_str(&serde_json::to_string(&t).unwrap_or_default());
        s.push('\n');
    }
    s
}

/// Requests as transactions of the public format (with explicit `load`).
pub fn to_txns(reqs: &[Request]) -> Vec<McTxn> {
    reqs.iter()
        .map(|r| McTxn {
            op: Op::Req,
            cycle: r.cycle,
            sm: r.sm,
            warp: r.warp,
            pc: r.pc,
            addr: r.addr,
            write: r.write,
            load: Some(r.load.into()),
            prefetch: r.prefetch,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spec::ConfigRequest;

    fn spec() -> Spec {
        ConfigRequest::preset("tiny").resolve().unwrap()
    }

    #[test]
    fn unlabelled_requests_are_grouped_by_warp_pc_and_window() {
        let s = spec();
        let r = |cycle, warp, pc| McTxn {
            op: Op::Req,
            cycle,
            sm: 1,
            warp,
            pc,
            addr: 0,
            write: false,
            load: None,
            prefetch: false,
        };
        let txns = vec![
            r(0, 0, 8),
            r(1, 0, 8),
            r(2, 1, 8),
            r(3, 0, 16),
            r(4, 0, 16),
            r(300, 0, 16),
        ];
        let loads: Vec<u32> = resolve(&txns, &s).unwrap().iter().map(|x| x.load).collect();
        assert_eq!(loads, [0, 0, 1, 2, 2, 3]);
    }

    /// A request of SM 0, warp 0, PC 8 labelled `load`.
    fn labelled(cycle: u64, load: u64) -> McTxn {
        McTxn {
            op: Op::Req,
            cycle,
            sm: 0,
            warp: 0,
            pc: 8,
            addr: 0,
            write: false,
            load: Some(load),
            prefetch: false,
        }
    }

    fn loads_of(txns: &[McTxn]) -> Vec<u32> {
        resolve(txns, &spec())
            .unwrap()
            .iter()
            .map(|x| x.load)
            .collect()
    }

    #[test]
    fn explicit_loads_are_kept() {
        let t = labelled;
        assert_eq!(loads_of(&[t(0, 77), t(1, 5), t(2, 77)]), [0, 1, 0]);
    }

    #[test]
    fn a_label_used_again_after_its_window_starts_a_new_load() {
        let (t, w) = (labelled, LOAD_WINDOW);
        assert_eq!(
            loads_of(&[t(0, 7), t(w - 1, 7), t(w, 7), t(w + 1, 7)]),
            [0, 0, 1, 1]
        );
    }

    #[test]
    fn the_resolver_forgets_labels_past_their_window() {
        // A long stream of distinct labels: the label map is pruned, not grown without bound.
        let s = spec();
        let mut r = Resolver::new(&s);
        for i in 0..100_000u64 {
            r.push(&labelled(i, i)).unwrap();
        }
        assert!(
            r.explicit.len() < 4 * LOAD_WINDOW as usize,
            "{}",
            r.explicit.len()
        );
    }

    #[test]
    fn the_reader_streams_and_names_the_line_of_a_bad_request() {
        let s = spec();
        let good = "{\"cycle\":5,\"op\":\"req\",\"sm\":0,\"warp\":0,\"pc\":8,\"addr\":0,\
                    \"write\":false}\n";
        let text = format!("# header\n{good}\n{good}{{\"cycle\":1,\"op\":\"req\"}}\n{good}");
        let out: Vec<_> = Reader::new(text.as_bytes(), "f.jsonl", &s).collect();
        assert_eq!(out.len(), 3, "two requests, then the error, then nothing");
        assert!(out[0].is_ok() && out[1].is_ok());
        let e = out[2].as_ref().unwrap_err();
        assert_eq!((e.source_name.as_str(), e.line), ("f.jsonl", 5));
        assert!(e.message.contains("missing field"), "{e}");
    }

    /// Lines read by the fast path and by serde_json (spaces, CRLF ends, a comment) give the
    /// same requests; a line that is not UTF-8 is an error naming it, a comment line too.
    #[test]
    fn the_fast_path_and_serde_read_the_same_requests() {
        let s = spec();
        let compact =
            "{\"cycle\":5,\"op\":\"req\",\"sm\":1,\"warp\":2,\"pc\":8,\"addr\":64,\"write\":true}";
        let spaced = "{ \"cycle\": 5, \"op\": \"req\", \"sm\": 1, \"warp\": 2, \"pc\": 8, \
                      \"addr\": 64, \"write\": true }";
        let text = format!("  {compact} \r\n# note\r\n{spaced}\r\n{compact}");
        let out: Vec<_> = Reader::new(text.as_bytes(), "f", &s)
            .map(Result::unwrap)
            .collect();
        assert_eq!(out.len(), 3);
        assert!(out
            .iter()
            .all(|r| (r.cycle, r.sm, r.warp, r.addr, r.write) == (5, 1, 2, 64, true)));
        for bad in [&b"# caf\xe9\n"[..], b"{\"cycle\":5,\"op\":\"r\xe9q\"}\n"] {
            let mut input = compact.as_bytes().to_vec();
            input.push(b'\n');
            input.extend_from_slice(bad);
            let out: Vec<_> = Reader::new(&input[..], "f", &s).collect();
            let e = out[1].as_ref().unwrap_err();
            assert_eq!(e.line, 2);
            assert!(e.message.contains("valid UTF-8"), "{e}");
        }
    }

    /// Lines are read in the input's buffer when they are wholly in it, and copied out when
    /// they straddle its end (or end the file without a line end): any buffer size gives the
    /// same requests, and an error names the same line.
    #[test]
    fn lines_across_buffer_ends_read_alike() {
        let s = spec();
        let mut text = String::new();
        for i in 0..40u64 {
            text.push_str(&format!(
                "{{\"cycle\":{i},\"op\":\"req\",\"sm\":{},\"warp\":1,\"pc\":8,\"addr\":{},\
                 \"write\":{}}}\n",
                i % 3,
                64 * i * i,
                i % 5 == 0
            ));
            if i % 7 == 3 {
                text.push_str(
                    "# comment\r\n{ \"cycle\": 40, \"op\": \"req\", \"sm\": 0, \"warp\": 0, \
                     \"pc\": 8, \"addr\": 0, \"write\": false }\n"
                        .replace("40", &i.to_string())
                        .as_str(),
                );
            }
        }
        text.push_str(
            "{\"cycle\":99,\"op\":\"req\",\"sm\":0,\"warp\":0,\"pc\":8,\"addr\":0,\"write\":true}",
        );
        let whole: Vec<_> = Reader::new(text.as_bytes(), "f", &s)
            .map(Result::unwrap)
            .collect();
        assert_eq!(whole.len(), 40 + 6 + 1);
        let bad = format!("{text}\n{{\"cycle\":1,\"op\":\"req\"}}\n");
        for cap in [1, 7, 64, 100, 4096] {
            let r = std::io::BufReader::with_capacity(cap, text.as_bytes());
            let got: Vec<_> = Reader::new(r, "f", &s).map(Result::unwrap).collect();
            assert_eq!(got, whole, "buffer of {cap} bytes");
            let r = std::io::BufReader::with_capacity(cap, bad.as_bytes());
            let e = Reader::new(r, "f", &s).find_map(Result::err).unwrap();
            assert_eq!(e.line, whole.len() + 6 + 1, "buffer of {cap} bytes");
        }
    }

    #[test]
    fn bad_lines_are_named() {
        let s = spec();
        let e = parse(
            "{\"cycle\":5,\"op\":\"req\",\"sm\":0,\"warp\":0,\"pc\":8,\"addr\":0,\"write\":false}\n\
             {\"cycle\":4,\"op\":\"req\",\"sm\":0,\"warp\":0,\"pc\":8,\"addr\":0,\"write\":false}",
            "f",
            &s,
        )
        .unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("never decrease"), "{e}");
        let e = parse(
            "{\"cycle\":0,\"op\":\"req\",\"sm\":9,\"warp\":0,\"pc\":8,\"addr\":0,\"write\":false}",
            "f",
            &s,
        )
        .unwrap_err();
        assert!(e.message.contains("gpu.sms"), "{e}");
        let e = parse("{\"cycle\":0,\"op\":\"read\"}", "f", &s).unwrap_err();
        assert!(e.message.contains("only op is req"), "{e}");
        let e = parse("{\"cycle\":0,\"op\":\"req\",\"sm\":0}", "f", &s).unwrap_err();
        assert!(e.message.contains("missing field"), "{e}");
    }

    #[test]
    fn classes_have_their_request_counts() {
        let s = spec();
        for (class, lo, hi) in [
            (LoadClass::Loa, 1, 1),
            (LoadClass::Moa, 2, 8),
            (LoadClass::Hoa, 9, 32),
        ] {
            let reqs = warp_loads(&s, class, 200, 0.9, 3);
            let mut per: HashMap<u32, usize> = HashMap::new();
            for r in &reqs {
                *per.entry(r.load).or_default() += 1;
            }
            assert_eq!(per.len(), 200);
            assert!(per.values().all(|&n| (lo..=hi).contains(&n)), "{class:?}");
            assert!(reqs.windows(2).all(|w| w[0].cycle <= w[1].cycle));
        }
    }

    #[test]
    fn jsonl_round_trips() {
        let s = spec();
        let reqs = warp_loads(&s, LoadClass::Moa, 20, 0.9, 1);
        let back = parse(&to_jsonl(&reqs), "x", &s).unwrap();
        assert_eq!(back, reqs);
    }
}
