//! The directed vectors of `crown-barrier`: spec/crown.md §3.11 C4 (dedup), C5 (set full),
//! C7 (mixed-group arrival) and the one-sided branch (§3.5, §7.2.11), at the thesis geometry
//! (16 sets × 8 ways, w = 8, N = 1024: a thread's set is thi >> 3, entry = set·8 + way).

use crate::dwr::{pack_fields, Vb};
use crate::SpecVector;
use warpforge_contract::units::crown_barrier::NAME;

type Io = Vec<(&'static str, Vec<u64>)>;

/// A reservation at `pc` of `lanes`, lane `l` with thread index `thi[l]`.
fn rsv(pc: u64, lanes: u64, thi: [u64; 8]) -> Io {
    vec![
        ("rsv_valid", vec![1]),
        ("rsv_pc", vec![pc]),
        ("rsv_lanes", vec![lanes]),
        ("rsv_thi", pack_fields(7, &thi)),
    ]
}

/// An arrival check of `lanes`, lane `l` at `pc[l]` with thread index `thi[l]`.
fn prb(lanes: u64, pc: [u64; 8], thi: [u64; 8]) -> Io {
    vec![
        ("prb_lanes", vec![lanes]),
        ("prb_pc", pack_fields(32, &pc)),
        ("prb_thi", pack_fields(7, &thi)),
    ]
}

/// `dbg_arrived` (or `dbg_expected`) with entry `e` holding `mask`, the others 0.
fn per_entry(list: &[(usize, u64)]) -> Vec<u64> {
    let mut v = vec![0u64; 128];
    for &(e, m) in list {
        v[e] = m;
    }
    pack_fields(8, &v)
}

fn valid(list: &[usize]) -> Vec<u64> {
    let mut v = vec![0u64; 2];
    for &e in list {
        v[e / 64] |= 1 << (e % 64);
    }
    v
}

fn cat(a: Io, b: Io) -> Io {
    a.into_iter().chain(b).collect()
}

fn out(list: &[(&'static str, u64)]) -> Io {
    list.iter().map(|&(n, v)| (n, vec![v])).collect()
}

pub fn spec_vectors() -> Vec<SpecVector> {
    let mut v = vec![];
    let j = 0x50;

    // C4: B = {pc J, exp FF, thi 0}; the path warp (lanes 0F, thi 0) diverging again with RPC
    // J reserves nothing (four lanes deduped). Its paths arrive at J and mark B, which then
    // completes. A complete barrier is not live: the same threads may reserve J again.
    v.push(
        Vb::new(
            "crown.md §3.11 C4: nested branch with the same IPDOM reserves no second barrier",
            NAME,
            &[],
        )
        .reset()
        .cycle_words(
            &rsv(j, 0xFF, [0; 8]),
            &out(&[
                ("rsv_new", 1),
                ("rsv_dedup", 0),
                ("rsv_fail", 0),
                ("used", 0),
            ]),
        )
        .cycle_words(
            &rsv(j, 0x0F, [0; 8]),
            &out(&[("rsv_new", 0), ("rsv_dedup", 4), ("used", 1), ("live", 1)]),
        )
        .cycle_words(
            &prb(0x0F, [j; 8], [0; 8]),
            &cat(
                out(&[("prb_hit", 0x0F), ("used", 1)]),
                vec![
                    ("dbg_valid", valid(&[0])),
                    ("dbg_expected", per_entry(&[(0, 0xFF)])),
                ],
            ),
        )
        .cycle_words(
            &prb(0xF0, [j; 8], [0; 8]),
            &cat(
                out(&[("prb_hit", 0xF0), ("head_valid", 0)]),
                vec![("dbg_arrived", per_entry(&[(0, 0x0F)]))],
            ),
        )
        .cycle_words(
            &cat(rsv(j, 0x01, [0; 8]), vec![("drain", vec![1])]),
            &cat(
                out(&[
                    ("head_valid", 1),
                    ("head_entry", 0),
                    ("head_pc", j),
                    ("head_lanes", 0xFF),
                    ("live", 0),
                    ("used", 1),
                    ("rsv_new", 1),
                    ("rsv_dedup", 0),
                ]),
                vec![
                    ("head_thi", pack_fields(7, &[0; 8])),
                    ("dbg_arrived", per_entry(&[(0, 0xFF)])),
                    ("dbg_complete", valid(&[0])),
                ],
            ),
        )
        .cycle_words(
            &[],
            &cat(
                out(&[("head_valid", 0), ("used", 1), ("live", 1)]),
                vec![
                    ("dbg_valid", valid(&[1])),
                    ("dbg_expected", per_entry(&[(1, 0x01)])),
                ],
            ),
        )
        .done(),
    );

    // C5: set 0 holds 8 live barriers (threads of lane 0 with thi 0..7, all in set 0). The
    // warp of tids 0-7 diverging at R = 0x20 finds set 0 full: bar_alloc_fail, no barrier,
    // and its paths pass R (no hit). A warp with half its threads in set 1 still gets that
    // half's barrier: failure is per group.
    let mut b = Vb::new(
        "crown.md §3.11 C5: set full, bar_alloc_fail, threads pass the RPC",
        NAME,
        &[],
    )
    .reset();
    for k in 0..8u64 {
        let mut t = [0; 8];
        t[0] = k;
        b = b.cycle_words(&rsv(0x10, 0x01, t), &out(&[("rsv_new", 1), ("used", k)]));
    }
    let ways0: Vec<usize> = (0..8).collect();
    b = b
        .cycle_words(
            &rsv(0x20, 0xFF, [0; 8]),
            &cat(
                out(&[
                    ("rsv_new", 0),
                    ("rsv_fail", 1),
                    ("rsv_dedup", 0),
                    ("used", 8),
                ]),
                vec![("dbg_valid", valid(&ways0))],
            ),
        )
        .cycle_words(
            &cat(
                prb(0xFF, [0x20; 8], [0; 8]),
                rsv(0x20, 0xFF, [0, 0, 0, 0, 8, 8, 8, 8]),
            ),
            &out(&[("prb_hit", 0), ("rsv_new", 1), ("rsv_fail", 1), ("used", 8)]),
        )
        .cycle_words(
            &prb(0xFF, [0x20; 8], [0, 0, 0, 0, 8, 8, 8, 8]),
            &cat(
                out(&[("prb_hit", 0xF0), ("used", 9), ("live", 9)]),
                vec![("dbg_expected", {
                    let mut l: Vec<(usize, u64)> = (0..8).map(|e| (e, 0x01)).collect();
                    l.push((8, 0xF0));
                    per_entry(&l)
                })],
            ),
        );
    v.push(b.done());

    // C7: w0 (tids 0-7, thi 0, set 0) and w9 (tids 72-79, thi 9, set 1) each reserved a
    // barrier at R. A merged warp (lanes 0-3 thi 0, lanes 4-7 thi 9) arrives: the probe
    // looks up both sets and each lane marks its own group's barrier. The complementary
    // merged warp completes both in one cycle; they drain in entry order.
    let r = 0x30;
    let mixed = [0, 0, 0, 0, 9, 9, 9, 9];
    let other = [9, 9, 9, 9, 0, 0, 0, 0];
    v.push(
        Vb::new(
            "crown.md §3.11 C7: mixed-group arrival probes set 0 and set 1",
            NAME,
            &[],
        )
        .reset()
        .cycle_words(&rsv(r, 0xFF, [0; 8]), &out(&[("rsv_new", 1)]))
        .cycle_words(&rsv(r, 0xFF, [9; 8]), &out(&[("rsv_new", 1)]))
        .cycle_words(
            &prb(0xFF, [r; 8], mixed),
            &cat(
                out(&[("prb_hit", 0xFF), ("live", 2)]),
                vec![("dbg_valid", valid(&[0, 8]))],
            ),
        )
        .cycle_words(
            &prb(0xFF, [r; 8], other),
            &cat(
                out(&[("prb_hit", 0xFF), ("head_valid", 0)]),
                vec![("dbg_arrived", per_entry(&[(0, 0x0F), (8, 0xF0)]))],
            ),
        )
        .cycle_words(
            &[("drain", vec![1])],
            &cat(
                out(&[
                    ("head_valid", 1),
                    ("head_entry", 0),
                    ("head_lanes", 0xFF),
                    ("live", 0),
                    ("used", 2),
                ]),
                vec![
                    ("dbg_arrived", per_entry(&[(0, 0xFF), (8, 0xFF)])),
                    ("dbg_complete", valid(&[0, 8])),
                    // Entry 8 completed second: rank 1 (7-bit ranks).
                    ("dbg_ord", {
                        let mut o = vec![0u64; 128];
                        o[8] = 1;
                        pack_fields(7, &o)
                    }),
                ],
            ),
        )
        .cycle_words(
            &[("drain", vec![1])],
            &cat(
                out(&[
                    ("head_valid", 1),
                    ("head_entry", 8),
                    ("head_pc", r),
                    ("used", 1),
                ]),
                vec![
                    ("head_thi", pack_fields(7, &[9; 8])),
                    ("dbg_ord", pack_fields(7, &[0; 128])),
                ],
            ),
        )
        .cycle_words(&[], &out(&[("head_valid", 0), ("used", 0)]))
        .done(),
    );

    // The one-sided branch: a warp (thi 3) diverges with R = 0x40; its lanes 0-4 go to R, lanes
    // 5-7 to 0x22. The probe in the reserving cycle sees the new barrier: lanes 0-4 are
    // absorbed at once (no path warp for them). Lanes 5-7 arrive later and complete it.
    let r = 0x40;
    let mut pcs = [r; 8];
    pcs[5..].copy_from_slice(&[0x22; 3]);
    v.push(
        Vb::new(
            "crown.md §3.5 one-sided branch: the path at R is absorbed in the reserving cycle",
            NAME,
            &[],
        )
        .reset()
        .cycle_words(
            &cat(rsv(r, 0xFF, [3; 8]), prb(0xFF, pcs, [3; 8])),
            &out(&[("rsv_new", 1), ("prb_hit", 0x1F)]),
        )
        .cycle_words(
            &prb(0xE0, [r; 8], [3; 8]),
            &cat(
                out(&[("prb_hit", 0xE0), ("live", 1)]),
                vec![("dbg_arrived", per_entry(&[(0, 0x1F)]))],
            ),
        )
        .cycle_words(
            &[],
            &out(&[
                ("head_valid", 1),
                ("head_pc", r),
                ("head_lanes", 0xFF),
                ("live", 0),
            ]),
        )
        .done(),
    );
    v
}
