//! The reference the per-bank schedulers' picks are checked against in unit tests: the scan of
//! every request each call.

use super::super::controller::{hits, Controller, Pick};
use super::super::warped::Wet;
use super::counts::RoundRobin;

/// Per bank, the request a GPGPU-Sim-style scheduler serves next: with `urgent` (the scope's
/// warp entry table: Div-First) a warp's last pending request first, else (FR-FCFS) the oldest
/// hit on the open row, else the bank's oldest request. Banks are scanned round-robin from
/// `rr`; the first bank whose command can issue wins. With demand-first scheduling (`df`), the
/// pick among the demand requests comes first.
pub(super) fn per_bank(
    x: &mut Controller,
    rr: RoundRobin,
    urgent: Option<&Wet>,
    now: u64,
    df: bool,
) -> Pick {
    if df {
        let pick = per_bank_of(x, rr, urgent, now, true);
        if pick.is_some() {
            return pick;
        }
    }
    per_bank_of(x, rr, urgent, now, false)
}

/// [`per_bank`] among every request, or the demand requests (`demand`).
fn per_bank_of(
    x: &mut Controller,
    rr: RoundRobin,
    urgent: Option<&Wet>,
    now: u64,
    demand: bool,
) -> Pick {
    // Per bank (dram.banks <= 64, validated): the entry index picked (valid where `has` has
    // the bank's bit), and whether it is preferred (bit of `pref`). Queues hold at most 256
    // entries (validated).
    let mut pick = [0u16; 64];
    let (mut has, mut pref) = (0u64, 0u64);
    for (i, e) in x.mode_queue().iter().enumerate() {
        let bit = 1u64 << e.bank();
        if pref & bit != 0 || demand && e.prefetch {
            continue;
        }
        let p = match urgent {
            Some(w) => w.get(e.gwid) <= 1,
            None => hits(&x.ch, e.bank(), e.row),
        };
        if has & bit == 0 || p {
            pick[e.bank() as usize] = i as u16;
            has |= bit;
            if p {
                pref |= bit;
            }
        }
    }
    // The banks whose picked request's command can issue now (the bounds of the bank's state,
    // see `bank_times`), then the first from the pointer.
    let mut ready = 0u64;
    let mut m = has;
    while m != 0 {
        let b = m.trailing_zeros();
        m &= m - 1;
        let row = x.mode_queue()[usize::from(pick[b as usize])].row;
        let [first, pre] = x.bank_times(b);
        let t = match x.ch.open_row(b) {
            Some(r) if r != row => pre,
            _ => first,
        };
        ready |= u64::from(t <= now) << b;
    }
    if ready == 0 {
        return None;
    }
    let b = rr.first(ready);
    x.serve(usize::from(pick[b as usize]))
}
