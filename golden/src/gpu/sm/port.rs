//! The SM's port to the memory side: what a request's tag says its reply is for, the port's
//! register, the cycle's reply taken (step 1) and its request sent (step 2).

use super::warp::Payload;
use super::Sm;
use crate::mem::partition::MemRequest;
use crate::mem::side::MemorySide;
use crate::stream::Offer;

/// A request's tag (it comes back with the reply): a kind bit and, for an access answered by
/// the reply, its payload in the low 32 bits. The L1's own fetches carry tag 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tag(u64);

/// What a reply is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ReplyTo {
    /// The L1's fetch: it fills the L1 (or acknowledges its written-back data).
    L1,
    /// A prefetch (seed 001).
    Prefetch,
    /// An access that bypassed the L1, or a store the L1 wrote through: answered by the reply.
    Access(Payload),
}

impl Tag {
    /// An access that bypassed the L1.
    const BYPASS: u64 = 1 << 32;
    /// A prefetch.
    const PREFETCH: u64 = 1 << 33;
    /// A store the L1 wrote through, whose acknowledgement answers it.
    const WRITE_ACK: u64 = 1 << 34;

    pub const L1: Tag = Tag(0);
    pub const PREFETCH_LINE: Tag = Tag(Tag::PREFETCH);

    pub fn bypass(p: Payload) -> Tag {
        Tag(Tag::BYPASS | u64::from(p.bits()))
    }

    pub fn write_ack(p: Payload) -> Tag {
        Tag(Tag::WRITE_ACK | u64::from(p.bits()))
    }

    pub fn bits(self) -> u64 {
        self.0
    }

    #[inline]
    pub fn of(bits: u64) -> Tag {
        Tag(bits)
    }

    #[inline]
    pub fn is_prefetch(self) -> bool {
        self.0 & Tag::PREFETCH != 0
    }

    #[inline]
    pub fn is_bypass(self) -> bool {
        self.0 & Tag::BYPASS != 0
    }

    #[inline]
    pub fn reply_to(self) -> ReplyTo {
        if self.is_prefetch() {
            ReplyTo::Prefetch
        } else if self.0 & (Tag::BYPASS | Tag::WRITE_ACK) != 0 {
            ReplyTo::Access(Payload::from_bits(self.0 as u32))
        } else {
            ReplyTo::L1
        }
    }
}

/// The port's register: a request the memory side has not taken yet, and the access it is for
/// (none: the L1's fetch of a line, or a prefetch).
#[derive(Debug, Clone, Copy)]
pub(super) struct Held {
    pub req: MemRequest,
    pub origin: Option<Payload>,
}

/// A request of SM `sm` (of warp slot `warp`, 0 for none).
pub(super) fn request(sm: u32, tag: Tag, addr: u64, write: bool, warp: usize) -> MemRequest {
    MemRequest {
        tag: tag.bits(),
        addr,
        write,
        sm: sm as u16,
        warp: warp as u16,
        pc: 0,
        prefetch: tag.is_prefetch(),
    }
}

impl Sm<'_> {
    /// Step 1: a reply fills the L1, answers an access that bypassed it, or fills the prefetch
    /// cache (answering the loads that waited for the prefetch).
    pub(super) fn take_reply(&mut self, now: u64, side: &mut MemorySide) {
        let Some((r, _)) = side.pop_reply(self.id as usize) else {
            return;
        };
        self.stats.replies += 1;
        match Tag::of(r.tag).reply_to() {
            ReplyTo::Prefetch => {
                let filled = self.pf.as_mut().and_then(|p| p.fill(r.addr));
                if let (Some(f), Some(pf)) = (&filled, &mut self.pf) {
                    if f.complete && f.into_l1 {
                        pf.installed(f, self.l1.install(f.line));
                    }
                }
                for p in filled.map(|f| f.answer).unwrap_or_default() {
                    self.answered(p, now);
                }
            }
            ReplyTo::Access(p) => self.answered(p, now),
            ReplyTo::L1 if !r.write => self.l1.fill(r.addr),
            ReplyTo::L1 => {}
        }
    }

    /// Step 2: the port's register, else the L1's oldest miss, else a prefetch, is offered to
    /// the memory side.
    pub(super) fn send(&mut self, side: &mut MemorySide) {
        if self.held.is_none() {
            if let Some(f) = self.l1.pop_fetch() {
                let tag = match f.origin {
                    Some(p) if f.write => Tag::write_ack(p),
                    _ => Tag::L1,
                };
                let warp = f.origin.map_or(0, Payload::warp);
                let req = request(self.id, tag, f.addr, f.write, warp);
                self.held = Some(Held {
                    req,
                    origin: f.origin,
                });
            }
        }
        // A prefetch when no demand request waits for the port.
        if let (None, Some(pf)) = (&self.held, &self.pf) {
            if let Some(line) = pf.peek() {
                let req = request(self.id, Tag::PREFETCH_LINE, line, false, 0);
                self.held = Some(Held { req, origin: None });
            }
        }
        let Some(Held { req: m, origin }) = self.held else {
            return;
        };
        if side.offer(m) == Offer::Accepted {
            self.stats.sent += 1;
            self.held = None;
            if let (Some(p), false) = (origin, m.write) {
                self.observed(p, m.addr);
            }
            if let Some(pf) = &mut self.pf {
                let tag = Tag::of(m.tag);
                if tag.is_prefetch() {
                    pf.sent();
                } else if !m.write && !tag.is_bypass() {
                    pf.l1_events(0, 1);
                }
            }
        }
    }

    /// Whether something outside it ends its sleep ([`Sm::due`]) this core cycle: a reply
    /// landed at its port, or its port would take its held request.
    pub fn woken(&self, side: &MemorySide) -> bool {
        side.reply_at(self.id as usize) || self.held.is_some_and(|h| side.would_take(&h.req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_says_what_its_reply_is_for() {
        let p = Payload::pack(9, 300);
        assert_eq!(Tag::L1.reply_to(), ReplyTo::L1);
        assert_eq!(Tag::PREFETCH_LINE.reply_to(), ReplyTo::Prefetch);
        assert_eq!(Tag::bypass(p).reply_to(), ReplyTo::Access(p));
        assert_eq!(Tag::write_ack(p).reply_to(), ReplyTo::Access(p));
        assert!(Tag::bypass(p).is_bypass() && !Tag::write_ack(p).is_bypass());
        assert!(Tag::PREFETCH_LINE.is_prefetch() && !Tag::bypass(p).is_prefetch());
    }
}
