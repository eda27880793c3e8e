//! Queues that stay where the host cache has them.
//!
//! A `VecDeque` is a ring: popping moves its front along the buffer, and nothing moves it
//! back, so a queue that once grew to hundreds of entries (an interconnect buffer of 512 flits,
//! a memory controller's wait list) walks its whole buffer even while it holds one or two, each
//! push landing on a line the host cache has long dropped. [`pop_front`] starts an emptied
//! queue again at the front of its buffer.

use std::collections::VecDeque;

/// `q.pop_front()`; an emptied queue starts again at the front of its buffer.
#[inline]
pub fn pop_front<T>(q: &mut VecDeque<T>) -> Option<T> {
    let x = q.pop_front();
    if q.is_empty() {
        q.clear();
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_emptied_queue_reuses_the_front_of_its_buffer() {
        let mut q: VecDeque<u32> = (0..100).collect();
        while pop_front(&mut q).is_some() {}
        q.push_back(7);
        // The element sits at the start of the buffer again: the first slice holds it.
        assert_eq!(q.as_slices(), (&[7][..], &[][..]));
        let mut plain: VecDeque<u32> = (0..100).collect();
        plain.extend(0..20);
        while plain.pop_front().is_some() {}
        plain.push_back(7);
        assert_eq!(
            (pop_front(&mut plain), pop_front(&mut plain)),
            (Some(7), None)
        );
    }
}
