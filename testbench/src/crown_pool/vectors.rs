//! Spec vectors of `crown-pool`: refill into the lowest free entry (T1), loose round-robin
//! selection starting after the last issued entry (§3.4.1 [R], A15) including wrap-around
//! and skipping empty entries, an issued entry freed at the edge and refillable the next
//! cycle (§3.9 step 5), `has_free` when full. Expected values are written by hand from the
//! contract.

use crate::dwr::Vb;
use crate::SpecVector;
use warpforge_contract::units::crown::pack_thi;
use warpforge_contract::units::crown_pool::NAME;

/// Thread-index word of a w = 8, 7-bit warp with `each` on the lanes of `lanes`.
fn thi(lanes: u64, each: u64) -> u64 {
    let v: Vec<u64> = (0..8)
        .map(|l| if lanes >> l & 1 == 1 { each } else { 0 })
        .collect();
    pack_thi(&v, 7)[0]
}

/// Inputs of a refill of warp (pc, lanes, thi `t` on every lane) from second-level row `slot`.
fn refill(pc: u64, lanes: u64, t: u64, slot: u64) -> Vec<(&'static str, u64)> {
    vec![
        ("ref_valid", 1),
        ("ref_pc", pc),
        ("ref_lanes", lanes),
        ("ref_thi", thi(lanes, t)),
        ("ref_slot", slot),
    ]
}

fn issue() -> Vec<(&'static str, u64)> {
    vec![("issue", 1)]
}

/// The selected entry: index, pc, lanes, thi word, slot.
fn sel(idx: u64, pc: u64, lanes: u64, t: u64, slot: u64) -> Vec<(&'static str, u64)> {
    vec![
        ("sel_valid", 1),
        ("sel_idx", idx),
        ("sel_pc", pc),
        ("sel_lanes", lanes),
        ("sel_thi", thi(lanes, t)),
        ("sel_slot", slot),
    ]
}

fn none() -> Vec<(&'static str, u64)> {
    vec![
        ("sel_valid", 0),
        ("sel_idx", 0),
        ("sel_pc", 0),
        ("sel_lanes", 0),
        ("sel_thi", 0),
        ("sel_slot", 0),
    ]
}

fn cat(parts: &[Vec<(&'static str, u64)>]) -> Vec<(&'static str, u64)> {
    parts.concat()
}

/// LRR over four entries with refills into freed entries.
fn lrr_order() -> SpecVector {
    Vb::new(
        "crown §3.4.1 issue pool: LRR after the last issued, lowest-free refill (pool=4, n2=16)",
        NAME,
        &["pool=4", "n2=16"],
    )
    .reset()
    .cycle(
        &refill(0xa0, 0xff, 1, 5),
        &cat(&[none(), vec![("has_free", 1), ("count", 0), ("dbg_last", 3)]]),
    )
    // After reset the search starts at entry 0.
    .cycle(
        &refill(0xb0, 0x0f, 2, 9),
        &cat(&[sel(0, 0xa0, 0xff, 1, 5), vec![("count", 1)]]),
    )
    .cycle(
        &refill(0xc0, 0xf0, 3, 2),
        &cat(&[
            sel(0, 0xa0, 0xff, 1, 5),
            vec![("count", 2), ("dbg_valid", 0b11)],
        ]),
    )
    .cycle(
        &issue(),
        &cat(&[
            sel(0, 0xa0, 0xff, 1, 5),
            vec![
                ("count", 3),
                ("dbg_valid", 0b111),
                ("dbg_slot", 2 << 8 | 9 << 4 | 5),
            ],
        ]),
    )
    // Entry 0 was freed at the last edge: the refill takes it (lowest free); selection
    // continues after the last issued entry (0), not from the new warp.
    .cycle(
        &cat(&[issue(), refill(0xd0, 0x3c, 4, 7)]),
        &cat(&[
            sel(1, 0xb0, 0x0f, 2, 9),
            vec![("count", 2), ("dbg_valid", 0b110), ("dbg_last", 0)],
        ]),
    )
    .cycle(
        &issue(),
        &cat(&[
            sel(2, 0xc0, 0xf0, 3, 2),
            vec![("dbg_valid", 0b101), ("dbg_last", 1)],
        ]),
    )
    // After entry 2 the search wraps: entry 3 is empty, entry 0 is next.
    .cycle(
        &issue(),
        &cat(&[
            sel(0, 0xd0, 0x3c, 4, 7),
            vec![("dbg_valid", 0b001), ("dbg_last", 2)],
        ]),
    )
    .cycle(
        &refill(0xe0, 0x01, 5, 1),
        &cat(&[none(), vec![("count", 0), ("has_free", 1), ("dbg_last", 0)]]),
    )
    .cycle(&refill(0xe1, 0x02, 5, 3), &sel(0, 0xe0, 0x01, 5, 1))
    .cycle(&refill(0xe2, 0x04, 5, 4), &[("count", 2)])
    .cycle(&refill(0xe3, 0x08, 5, 6), &[("count", 3), ("has_free", 1)])
    // Full: no free entry this cycle; the issued entry (1, after last = 0) is freed at the
    // edge and refillable in the next cycle.
    .cycle(
        &issue(),
        &cat(&[
            sel(1, 0xe1, 0x02, 5, 3),
            vec![("count", 4), ("has_free", 0), ("dbg_valid", 0b1111)],
        ]),
    )
    .cycle(
        &refill(0xf0, 0x80, 6, 8),
        &cat(&[
            sel(2, 0xe2, 0x04, 5, 4),
            vec![("count", 3), ("has_free", 1), ("dbg_valid", 0b1101)],
        ]),
    )
    .cycle(&issue(), &sel(2, 0xe2, 0x04, 5, 4))
    .cycle(&issue(), &sel(3, 0xe3, 0x08, 5, 6))
    .cycle(&issue(), &sel(0, 0xe0, 0x01, 5, 1))
    .cycle(&issue(), &sel(1, 0xf0, 0x80, 6, 8))
    .cycle(&[], &cat(&[none(), vec![("count", 0), ("dbg_last", 1)]]))
    .done()
}

/// The thesis pool (8 entries, Table 4-1 widths): the widest values round-trip, thread
/// indices outside the lanes are stored as 0, and a full pool issues round-robin.
fn thesis_pool() -> SpecVector {
    let mut dirty = refill(0xffff_ffff, 0x81, 0x7f, 511);
    // Lanes 1-6 carry thread indices the lane mask excludes: they read back 0.
    dirty[3] = ("ref_thi", thi(0xff, 0x7f));
    let mut v = Vb::new(
        "crown §3.4.1 issue pool: 8 entries, Table 4-1 widths, round-robin (defaults)",
        NAME,
        &[],
    )
    .reset()
    .cycle(&dirty, &none());
    for k in 1..8u64 {
        v = v.cycle(&refill(0x100 + k, 1 << k, k, k), &[("count", k)]);
    }
    v = v
        .cycle(
            &issue(),
            &cat(&[sel(0, 0xffff_ffff, 0x81, 0x7f, 511), vec![("has_free", 0)]]),
        )
        // A full pool issues in entry order after the last issued one.
        .cycle(&issue(), &sel(1, 0x101, 0x02, 1, 1))
        .cycle(&issue(), &sel(2, 0x102, 0x04, 2, 2))
        .cycle(&issue(), &sel(3, 0x103, 0x08, 3, 3))
        .cycle(&issue(), &sel(4, 0x104, 0x10, 4, 4))
        .cycle(&issue(), &sel(5, 0x105, 0x20, 5, 5))
        .cycle(&issue(), &sel(6, 0x106, 0x40, 6, 6))
        .cycle(&issue(), &sel(7, 0x107, 0x80, 7, 7))
        .cycle(&[], &cat(&[none(), vec![("count", 0), ("dbg_last", 7)]]));
    v.done()
}

/// The directed vectors of `crown-pool`.
pub fn spec_vectors() -> Vec<SpecVector> {
    vec![lrr_order(), thesis_pool()]
}
