//! Host cache hints: a model structure about to be read after a long time away (an MSHR entry
//! at its fill, hundreds of simulated cycles after its miss) is asked for ahead of its use, so
//! that the read finds it in the host cache. A hint changes no result.

/// Ask the host to bring `x`'s cache line closer (a no-op off x86-64).
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of x86-64's baseline, so the instruction exists on every host
        // this builds for; a prefetch reads nothing the program sees and never faults.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
