//! Shrinking a failing stimulus to a minimal reproducer, with proptest's runner driving a
//! delta-debugging value tree.

use proptest::strategy::{NewTree, Strategy, ValueTree};
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

/// Delta-debugging over a stimulus list, as a proptest value tree: `simplify` accepts the
/// current (still failing) candidate and proposes it minus the next chunk; `complicate` rejects
/// the current (passing) candidate and proposes the next chunk instead. Chunks halve from half
/// the list down to single transactions.
struct Shrinker<T> {
    accepted: Vec<T>,
    candidate: Vec<T>,
    chunk: usize,
    pos: usize,
    last_start: usize,
}

impl<T: Clone> Shrinker<T> {
    fn new(txns: Vec<T>) -> Shrinker<T> {
        Shrinker {
            chunk: (txns.len() / 2).max(1),
            candidate: txns.clone(),
            accepted: txns,
            pos: 0,
            last_start: 0,
        }
    }

    /// Propose the next candidate; when there is none, `current()` falls back to the last
    /// accepted (failing) list, which is what the runner reports.
    fn propose(&mut self) -> bool {
        loop {
            if self.chunk == 0 || self.accepted.len() <= 1 {
                self.candidate = self.accepted.clone();
                return false;
            }
            if self.pos >= self.accepted.len() {
                self.chunk /= 2;
                self.pos = 0;
                continue;
            }
            let end = (self.pos + self.chunk).min(self.accepted.len());
            let mut c = self.accepted[..self.pos].to_vec();
            c.extend_from_slice(&self.accepted[end..]);
            self.last_start = self.pos;
            self.pos = end;
            self.candidate = c;
            return true;
        }
    }
}

impl<T: Clone + std::fmt::Debug> ValueTree for Shrinker<T> {
    type Value = Vec<T>;

    fn current(&self) -> Vec<T> {
        self.candidate.clone()
    }

    fn simplify(&mut self) -> bool {
        self.accepted = std::mem::take(&mut self.candidate);
        self.pos = self.last_start;
        self.propose()
    }

    fn complicate(&mut self) -> bool {
        self.propose()
    }
}

#[derive(Debug)]
struct Failing<T>(Vec<T>);

impl<T: Clone + std::fmt::Debug> Strategy for Failing<T> {
    type Tree = Shrinker<T>;
    type Value = Vec<T>;

    fn new_tree(&self, _: &mut TestRunner) -> NewTree<Self> {
        Ok(Shrinker::new(self.0.clone()))
    }
}

/// The smallest sub-list of `failing` (bounded search: 4096 candidate runs or 60 s) for which
/// `fails` still holds; `failing` itself if no smaller one fails or the result would not
/// reproduce.
pub fn minimize<T: Clone + std::fmt::Debug>(
    failing: &[T],
    mut fails: impl FnMut(&[T]) -> bool,
) -> Vec<T> {
    let cell = std::cell::RefCell::new(&mut fails);
    let mut runner = TestRunner::new(Config {
        cases: 1,
        max_shrink_iters: 4096,
        max_shrink_time: 60_000,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&Failing(failing.to_vec()), |v| {
        if (cell.borrow_mut())(&v) {
            Err(TestCaseError::fail("still fails"))
        } else {
            Ok(())
        }
    });
    let minimal = match result {
        Err(TestError::Fail(_, minimal)) => minimal,
        _ => failing.to_vec(),
    };
    if (cell.into_inner())(&minimal) {
        minimal
    } else {
        failing.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_two_elements_that_matter() {
        let v: Vec<u32> = (0..200).collect();
        let m = minimize(&v, |c| c.contains(&17) && c.contains(&150));
        assert_eq!(m, vec![17, 150]);
    }

    #[test]
    fn keeps_the_input_when_nothing_smaller_fails() {
        let v = vec![1, 2, 3];
        assert_eq!(minimize(&v, |c| c.len() == 3), v);
    }
}
