use super::*;
use proptest::prelude::*;

const FERMI: CoalesceRules = CoalesceRules {
    arch: 20,
    warp_parts: 1,
    skip_l1: false,
};
const VOLTA: CoalesceRules = CoalesceRules {
    arch: 70,
    warp_parts: 1,
    skip_l1: false,
};

fn strided(base: u64, stride: u64, mask: u32) -> Vec<(u32, u64)> {
    (0..32)
        .filter(|l| mask >> l & 1 != 0)
        .map(|l| (l, base + stride * u64::from(l)))
        .collect()
}

fn shape(a: &[Access]) -> Vec<(u64, u32)> {
    a.iter().map(|x| (x.addr, x.size)).collect()
}

#[test]
fn a_fully_coalesced_warp_is_one_line_through_a_fermi_l1_and_four_sectors_otherwise() {
    let lanes = strided(0x1000, 4, u32::MAX);
    let f = coalesce(FERMI, &lanes, 4, Space::Global, false);
    assert_eq!(shape(&f), [(0x1000, 128)]);
    assert_eq!(
        (f[0].lanes, f[0].chunks, f[0].bytes),
        (u32::MAX, 0b1111, u128::MAX)
    );
    let v = coalesce(VOLTA, &lanes, 4, Space::Global, false);
    assert_eq!(
        shape(&v),
        [(0x1000, 32), (0x1020, 32), (0x1040, 32), (0x1060, 32)]
    );
    assert_eq!(v[1].lanes, 0x0000_ff00);
    // Fermi skipping the L1 (by option or by the access's own operator) uses sectors too.
    let skip = CoalesceRules {
        skip_l1: true,
        ..FERMI
    };
    assert_eq!(coalesce(skip, &lanes, 4, Space::Global, false).len(), 4);
    assert_eq!(coalesce(FERMI, &lanes, 4, Space::Global, true).len(), 4);
}

#[test]
fn segments_shrink_to_the_half_that_is_touched() {
    // Lanes 0-7 (32 bytes at 0x1040): the upper half, then its lower quarter.
    let a = coalesce(FERMI, &strided(0x1040, 4, 0xff), 4, Space::Global, false);
    assert_eq!(shape(&a), [(0x1040, 32)]);
    // 64 bytes in the upper half.
    let a = coalesce(FERMI, &strided(0x1040, 4, 0xffff), 4, Space::Global, false);
    assert_eq!(shape(&a), [(0x1040, 64)]);
    // Chunks 0 and 2: both halves touched, the whole line.
    let lanes = [(0, 0x1000), (1, 0x1040)];
    assert_eq!(
        shape(&coalesce(FERMI, &lanes, 4, Space::Global, false)),
        [(0x1000, 128)]
    );
    // 2-byte accesses use 64-byte segments on Fermi: one segment's second 32 bytes.
    let a = coalesce(FERMI, &strided(0x10e0, 2, 0xffff), 2, Space::Global, false);
    assert_eq!(shape(&a), [(0x10e0, 32)]);
    // 1-byte accesses use 32-byte segments everywhere.
    let a = coalesce(
        FERMI,
        &strided(0x1000, 1, u32::MAX),
        1,
        Space::Global,
        false,
    );
    assert_eq!(shape(&a), [(0x1000, 32)]);
}

#[test]
fn scattered_lanes_are_one_access_each_in_address_order() {
    let lanes: Vec<(u32, u64)> = (0..32)
        .map(|l| (l, 0x10_0000 - 128 * u64::from(l)))
        .collect();
    let a = coalesce(FERMI, &lanes, 4, Space::Global, false);
    assert_eq!(a.len(), 32);
    assert!(a.windows(2).all(|w| w[0].addr < w[1].addr));
    assert!(a.iter().all(|x| x.size == 32 && x.lanes.count_ones() == 1));
}

#[test]
fn sub_warps_coalesce_apart() {
    let lanes = strided(0x1000, 4, u32::MAX);
    let two = CoalesceRules {
        warp_parts: 2,
        ..FERMI
    };
    let a = coalesce(two, &lanes, 4, Space::Global, false);
    assert_eq!(shape(&a), [(0x1000, 64), (0x1040, 64)]);
    assert_eq!((a[0].lanes, a[1].lanes), (0x0000_ffff, 0xffff_0000));
}

#[test]
fn a_lane_crossing_a_segment_touches_the_next() {
    // 16 bytes at 0x1078 on sectors: 0x1060 and 0x1080.
    let a = coalesce(VOLTA, &[(3, 0x1078)], 16, Space::Global, false);
    assert_eq!(shape(&a), [(0x1060, 32), (0x1080, 32)]);
    assert!(a.iter().all(|x| x.lanes == 1 << 3));
}

#[test]
fn wide_local_accesses_coalesce_as_four_bytes() {
    let lanes = strided(0x2000, 4, u32::MAX);
    let a = coalesce(FERMI, &lanes, 16, Space::Local, false);
    assert_eq!(shape(&a), [(0x2000, 128)]);
    assert_eq!(a[0].bytes, u128::MAX);
}

#[test]
fn addresses_keep_their_upper_bits() {
    // 4 GiB apart: two accesses (GPGPU-Sim's 32-bit segment address would merge them).
    let lanes = [(0, 0x7f00_0000_1000), (1, 0x7f01_0000_1000)];
    let a = coalesce(VOLTA, &lanes, 4, Space::Global, false);
    assert_eq!(shape(&a), [(0x7f00_0000_1000, 32), (0x7f01_0000_1000, 32)]);
}

proptest! {
    /// Every active lane's first byte lies in an access that names the lane; accesses are
    /// aligned to their size (32, 64 or 128), and within one sub-warp no two overlap.
    #[test]
    fn every_lane_is_served_and_accesses_are_aligned_and_apart(
        addrs in proptest::collection::vec(0u64..1 << 16, 32),
        mask in any::<u32>(),
        size_pick in 0usize..5,
        arch in prop::sample::select(vec![13u32, 20, 35, 70, 86]),
        parts in prop::sample::select(vec![1u32, 2, 4]),
        skip in any::<bool>(),
    ) {
        let size = [1u32, 2, 4, 8, 16][size_pick];
        let rules = CoalesceRules { arch, warp_parts: parts, skip_l1: skip };
        let lanes: Vec<(u32, u64)> = (0..32)
            .filter(|l| mask >> l & 1 != 0)
            .map(|l| (l, addrs[l as usize] / u64::from(size) * u64::from(size)))
            .collect();
        let acc = coalesce(rules, &lanes, size, Space::Global, false);
        for x in &acc {
            prop_assert!([32, 64, 128].contains(&x.size));
            prop_assert_eq!(x.addr % u64::from(x.size), 0);
        }
        for &(lane, addr) in &lanes {
            prop_assert!(
                acc.iter().any(|x| x.lanes >> lane & 1 != 0
                    && (x.addr..x.addr + u64::from(x.size)).contains(&addr)),
                "lane {} at {:#x} unserved: {:?}", lane, addr, acc
            );
        }
        let per = 32 / parts;
        for p in 0..parts {
            let own: Vec<&Access> = acc
                .iter()
                .filter(|x| x.lanes != 0 && x.lanes.trailing_zeros() / per == p)
                .collect();
            for (i, a) in own.iter().enumerate() {
                for b in &own[i + 1..] {
                    prop_assert!(
                        a.addr + u64::from(a.size) <= b.addr
                            || b.addr + u64::from(b.size) <= a.addr,
                        "{:?} and {:?} overlap",
                        a,
                        b
                    );
                }
            }
        }
        if lanes.is_empty() {
            prop_assert!(acc.is_empty());
        }
    }
}

proptest! {
    /// What an SM sends on is the full coalescing without the lanes and bytes it does not use.
    #[test]
    fn the_chunks_are_the_full_accesses_without_lanes_and_bytes(
        addrs in proptest::collection::vec(0u64..1 << 12, 32),
        mask in any::<u32>(),
        size_pick in 0usize..5,
        arch in prop::sample::select(vec![13u32, 20, 35, 70, 86]),
        parts in prop::sample::select(vec![1u32, 2, 4, 8]),
        skip in any::<bool>(),
        local in any::<bool>(),
        l2_only in any::<bool>(),
    ) {
        let size = [1u32, 2, 4, 8, 16][size_pick];
        let rules = CoalesceRules { arch, warp_parts: parts, skip_l1: skip };
        let space = if local { Space::Local } else { Space::Global };
        let lanes: Vec<(u32, u64)> = (0..32)
            .filter(|l| mask >> l & 1 != 0)
            .map(|l| (l, addrs[l as usize]))
            .collect();
        let full: Vec<Access> = coalesce(rules, &lanes, size, space, l2_only)
            .into_iter()
            .map(|a| Access { lanes: 0, bytes: 0, ..a })
            .collect();
        let lean = coalesce_chunks(rules, lanes.iter().copied(), size, space, l2_only);
        prop_assert_eq!(&lean[..], &full[..]);
    }
}

proptest! {
    /// Lanes that step by one stride give the accesses of the same lanes grouped one by one,
    /// whether or not the range shortcut applies (aligned lanes 1 to 32 bytes apart).
    #[test]
    fn strided_lanes_coalesce_as_their_lanes_do(
        base in prop_oneof![
            0u64..1 << 12,
            (0u64..1 << 8).prop_map(|b| b * 16),
            Just(u64::MAX - 100),
        ],
        stride in prop_oneof![
            0u64..40,
            prop::sample::select(vec![1u64, 2, 4, 8, 16, 32, 64, 4096]),
        ],
        n in 0usize..=32,
        mask in prop_oneof![any::<u32>(), Just(u32::MAX), Just(0xffff_0000u32)],
        size_pick in 0usize..6,
        arch in prop::sample::select(vec![13u32, 20, 35, 70, 86]),
        parts in prop::sample::select(vec![1u32, 2, 4, 8]),
        skip in any::<bool>(),
        local in any::<bool>(),
    ) {
        let size = [1u32, 2, 4, 8, 16, 12][size_pick];
        let rules = CoalesceRules { arch, warp_parts: parts, skip_l1: skip };
        let space = if local { Space::Local } else { Space::Global };
        let lanes: Vec<(u32, u64)> = (0..32u32)
            .filter(|l| mask >> l & 1 != 0)
            .zip((0..n as u64).map(|k| base.wrapping_add(k.wrapping_mul(stride))))
            .collect();
        let by_lanes = coalesce_chunks(rules, lanes.iter().copied(), size, space, false);
        let strided = coalesce_strided(rules, mask, base, stride, n, size, space, false);
        prop_assert_eq!(&strided[..], &by_lanes[..]);
    }
}

/// The byte mask is the bytes one by one, cut at the segment's end.
#[test]
fn byte_masks_are_the_bytes_one_by_one() {
    for first in 0..128u64 {
        for size in 1..=40u64 {
            let mut want = 0u128;
            for b in first..(first + size).min(128) {
                want |= 1 << b;
            }
            assert_eq!(byte_mask(first, size), want, "bytes {first}+{size}");
        }
    }
}
