//! The directed vectors of `crown-lookup`: spec/crown.md §3.11 C3 and C6, and the rules of the
//! contract the scenarios do not reach (bypass when full, the draining head, insert 1 seeing
//! insert 0, ready order and the pc + 1 wrap of the Waiting Lookup).

use crate::dwr::{pack_fields, Vb};
use crate::SpecVector;
use warpforge_contract::units::crown_lookup::NAME;

/// One row of an expected image: (pc, lanes, thi per lane, ord, pending).
type RowImg = (u64, u64, Vec<u64>, u64, u64);
/// A row as a vector lists it: (row, pc, lanes, [(lanes, thi)], ord).
type RowSpec = (usize, u64, u64, Vec<(u64, u64)>, u64);
/// A Waiting Lookup row as a vector lists it: [`RowSpec`] and pending.
type WaitRowSpec = (usize, u64, u64, Vec<(u64, u64)>, u64, u64);

/// A table image for expectations.
struct Img {
    w: usize,
    t: usize,
    p: usize,
    ob: usize,
    rows: Vec<Option<RowImg>>,
}

impl Img {
    fn new(rows: usize, w: usize, t: usize, p: usize, ob: usize) -> Img {
        Img {
            w,
            t,
            p,
            ob,
            rows: vec![None; rows],
        }
    }
    /// Row `r` = pc, lanes, with `thi[l]` for the lanes (by lane order), rank, pending.
    fn row(mut self, r: usize, pc: u64, lanes: u64, thi: &[(u64, u64)], ord: u64) -> Img {
        let mut t = vec![0; self.w];
        for &(mask, v) in thi {
            for (l, x) in t.iter_mut().enumerate() {
                if mask >> l & 1 == 1 {
                    *x = v;
                }
            }
        }
        self.rows[r] = Some((pc, lanes, t, ord, 0));
        self
    }
    fn pending(mut self, r: usize, pending: u64) -> Img {
        self.rows[r].as_mut().unwrap().4 = pending;
        self
    }
    fn expect(&self, waiting: bool) -> Vec<(&'static str, Vec<u64>)> {
        let f = |g: &dyn Fn(&RowImg) -> u64| -> Vec<u64> {
            self.rows.iter().map(|r| r.as_ref().map_or(0, g)).collect()
        };
        let thi: Vec<u64> = self
            .rows
            .iter()
            .flat_map(|r| r.as_ref().map_or(vec![0; self.w], |r| r.2.clone()))
            .collect();
        let mut e = vec![
            ("dbg_valid", pack_fields(1, &f(&|_| 1))),
            ("dbg_pc", pack_fields(self.p, &f(&|r| r.0))),
            ("dbg_lanes", pack_fields(self.w, &f(&|r| r.1))),
            ("dbg_thi", pack_fields(self.t, &thi)),
            ("dbg_ord", pack_fields(self.ob, &f(&|r| r.3))),
        ];
        if waiting {
            e.push(("dbg_pending", pack_fields(self.w, &f(&|r| r.4))));
        }
        let count = self.rows.iter().flatten().count() as u64;
        e.push(("count", vec![count]));
        e.push(("full", vec![(count as usize == self.rows.len()) as u64]));
        e
    }
}

/// Inputs of insert `k`: (pc, lanes, one thread index for every lane).
fn ins(k: usize, pc: u64, lanes: u64, thi: u64) -> Vec<(&'static str, Vec<u64>)> {
    let n: [[&'static str; 4]; 2] = [
        ["ins0_valid", "ins0_pc", "ins0_lanes", "ins0_thi"],
        ["ins1_valid", "ins1_pc", "ins1_lanes", "ins1_thi"],
    ];
    vec![
        (n[k][0], vec![1]),
        (n[k][1], vec![pc]),
        (n[k][2], vec![lanes]),
        // Every lane carries `thi`, also lanes outside the warp (the table must zero them).
        (n[k][3], pack_fields(7, &[thi; 8])),
    ]
}

fn thi8(mask: u64, v: u64) -> Vec<u64> {
    pack_fields(
        7,
        &(0..8)
            .map(|l| if mask >> l & 1 == 1 { v } else { 0 })
            .collect::<Vec<_>>(),
    )
}

pub fn spec_vectors() -> Vec<SpecVector> {
    let mut v = vec![];
    let img = |rows: usize| Img::new(rows, 8, 7, 32, 3);
    let cat = |a: Vec<(&'static str, Vec<u64>)>, b: Vec<(&'static str, Vec<u64>)>| {
        a.into_iter().chain(b).collect::<Vec<_>>()
    };

    // C3: four single inserts into an empty table; each step's rows as the spec lists them.
    // Step a's threads have thi 0, b's thi 1, c's thi 2, d's thi 3.
    let a = img(8).row(0, 0x40, 0x0F, &[(0x0F, 0)], 0);
    let b =
        img(8)
            .row(0, 0x40, 0x3F, &[(0x0F, 0), (0x30, 1)], 0)
            .row(1, 0x40, 0x0C, &[(0x0C, 1)], 1);
    let c = img(8)
        .row(0, 0x40, 0x3F, &[(0x0F, 0), (0x30, 1)], 0)
        .row(1, 0x40, 0x0C, &[(0x0C, 1)], 1)
        .row(2, 0x80, 0xFF, &[(0xFF, 2)], 2);
    let d = img(8)
        .row(0, 0x40, 0xFF, &[(0x0F, 0), (0x30, 1), (0xC0, 3)], 0)
        .row(1, 0x40, 0x0C, &[(0x0C, 1)], 1)
        .row(2, 0x80, 0xFF, &[(0xFF, 2)], 2)
        .row(3, 0x40, 0x04, &[(0x04, 3)], 3);
    v.push(
        Vb::new(
            "crown.md §3.11 C3: per-lane Ready Lookup merge (rows after each insert)",
            NAME,
            &["kind=ready"],
        )
        .reset()
        .cycle_words(
            &ins(0, 0x40, 0x0F, 0),
            &[
                ("ev_merge", vec![0]),
                ("ev_alloc", vec![1]),
                ("byp0_valid", vec![0]),
                ("count", vec![0]),
            ],
        )
        .cycle_words(
            &ins(0, 0x40, 0x3C, 1),
            &cat(
                a.expect(false),
                vec![("ev_merge", vec![2]), ("ev_alloc", vec![1])],
            ),
        )
        .cycle_words(
            &ins(0, 0x80, 0xFF, 2),
            &cat(
                b.expect(false),
                vec![("ev_merge", vec![0]), ("ev_alloc", vec![1])],
            ),
        )
        .cycle_words(
            &ins(0, 0x40, 0xC4, 3),
            &cat(
                c.expect(false),
                vec![("ev_merge", vec![2]), ("ev_alloc", vec![1])],
            ),
        )
        .cycle_words(
            &[],
            &cat(
                d.expect(false),
                vec![
                    ("head_valid", vec![1]),
                    ("head_row", vec![0]),
                    ("head_pc", vec![0x40]),
                    ("head_lanes", vec![0xFF]),
                    (
                        "head_thi",
                        thi8(0x0F, 0)
                            .iter()
                            .zip(thi8(0x30, 1))
                            .zip(thi8(0xC0, 3))
                            .map(|((a, b), c)| a | b | c)
                            .collect(),
                    ),
                ],
            ),
        )
        .done(),
    );

    // Two rows: both inserts of a cycle allocate (insert 1 after insert 0); a full table
    // bypasses the leftover lanes (A10) after merging what fits; the draining head is neither
    // a merge target nor free; its slot is free the next cycle, at the back of drain order.
    let two = ["kind=ready", "rows=2"];
    let im = |rows: Vec<RowSpec>| {
        let mut i = Img::new(2, 8, 7, 32, 1);
        for (r, pc, lanes, thi, ord) in rows {
            i = i.row(r, pc, lanes, &thi, ord);
        }
        i.expect(false)
    };
    v.push(
        Vb::new(
            "crown-lookup ready: bypass when full (A10), the draining head is no merge target",
            NAME,
            &two,
        )
        .reset()
        .cycle_words(
            &cat(ins(0, 0x10, 0x03, 0), ins(1, 0x20, 0x0C, 0)),
            &[
                ("ev_alloc", vec![3]),
                ("byp0_valid", vec![0]),
                ("byp1_valid", vec![0]),
            ],
        )
        .cycle_words(
            &cat(ins(0, 0x30, 0x01, 1), ins(1, 0x10, 0x05, 2)),
            &cat(
                im(vec![
                    (0, 0x10, 0x03, vec![(0x03, 0)], 0),
                    (1, 0x20, 0x0C, vec![(0x0C, 0)], 1),
                ]),
                vec![
                    ("ev_alloc", vec![0]),
                    ("ev_merge", vec![1]),
                    ("byp0_valid", vec![1]),
                    ("byp0_pc", vec![0x30]),
                    ("byp0_lanes", vec![0x01]),
                    ("byp0_thi", thi8(0x01, 1)),
                    ("byp1_valid", vec![1]),
                    ("byp1_pc", vec![0x10]),
                    ("byp1_lanes", vec![0x01]),
                    ("byp1_thi", thi8(0x01, 2)),
                ],
            ),
        )
        .cycle_words(
            &cat(ins(0, 0x10, 0x08, 2), vec![("drain", vec![1])]),
            &cat(
                im(vec![
                    (0, 0x10, 0x07, vec![(0x03, 0), (0x04, 2)], 0),
                    (1, 0x20, 0x0C, vec![(0x0C, 0)], 1),
                ]),
                vec![
                    ("head_valid", vec![1]),
                    ("head_row", vec![0]),
                    ("head_lanes", vec![0x07]),
                    ("ev_merge", vec![0]),
                    ("byp0_valid", vec![1]),
                    ("byp0_lanes", vec![0x08]),
                    ("byp0_thi", thi8(0x08, 2)),
                ],
            ),
        )
        .cycle_words(
            &ins(0, 0x10, 0x08, 2),
            &cat(
                im(vec![(1, 0x20, 0x0C, vec![(0x0C, 0)], 0)]),
                vec![
                    ("head_row", vec![1]),
                    ("ev_alloc", vec![1]),
                    ("byp0_valid", vec![0]),
                ],
            ),
        )
        .cycle_words(
            &[("drain", vec![1])],
            &im(vec![
                (0, 0x10, 0x08, vec![(0x08, 2)], 1),
                (1, 0x20, 0x0C, vec![(0x0C, 0)], 0),
            ]),
        )
        .cycle_words(
            &cat(ins(0, 0x50, 0x01, 5), ins(1, 0x50, 0x03, 6)),
            &cat(
                im(vec![(0, 0x10, 0x08, vec![(0x08, 2)], 0)]),
                vec![
                    ("ev_alloc", vec![1]),
                    ("ev_merge", vec![1]),
                    ("byp1_valid", vec![1]),
                    ("byp1_lanes", vec![0x01]),
                    ("byp1_thi", thi8(0x01, 6)),
                ],
            ),
        )
        .cycle_words(
            &[],
            &im(vec![
                (0, 0x10, 0x08, vec![(0x08, 2)], 0),
                (1, 0x50, 0x03, vec![(0x01, 5), (0x02, 6)], 1),
            ]),
        )
        .done(),
    );

    // C6: wA (0x100, lanes 0F, thi 2) and wB (0x100, F0, thi 5) dispatch and merge into r0;
    // a warp whose lanes overlap r0 takes r1; a full warp is refused; r0 is ready at 0x101
    // only after both completions, as one full warp, and a ready row is no merge target.
    let wimg = |rows: Vec<WaitRowSpec>| {
        let mut i = Img::new(8, 8, 7, 32, 3);
        for (r, pc, lanes, thi, ord, pend) in rows {
            i = i.row(r, pc, lanes, &thi, ord).pending(r, pend);
        }
        i.expect(true)
    };
    let r0 = |lanes, pend, pc| (0usize, pc, lanes, vec![(0x0F, 2), (0xF0, 5)], 0, pend);
    let r1 = (1usize, 0x100, 0x11, vec![(0x11, 6)], 0, 0x11);
    v.push(
        Vb::new(
            "crown.md §3.11 C6: Waiting Lookup merge, ready only after both completions",
            NAME,
            &["kind=waiting"],
        )
        .reset()
        .cycle_words(
            &ins(0, 0x100, 0x0F, 2),
            &[
                ("ins_ok", vec![1]),
                ("ins_row", vec![0]),
                ("ev_alloc", vec![1]),
            ],
        )
        .cycle_words(
            &ins(0, 0x100, 0xF0, 5),
            &[
                ("ins_ok", vec![1]),
                ("ins_row", vec![0]),
                ("ev_alloc", vec![0]),
                ("ev_merge", vec![4]),
            ],
        )
        .cycle_words(
            &cat(
                ins(0, 0x100, 0x11, 6),
                vec![
                    ("cpl_valid", vec![1]),
                    ("cpl_row", vec![0]),
                    ("cpl_lanes", vec![0x0F]),
                ],
            ),
            &cat(
                wimg(vec![r0(0xFF, 0xFF, 0x100)]),
                vec![
                    ("ins_ok", vec![1]),
                    ("ins_row", vec![1]),
                    ("head_valid", vec![0]),
                ],
            ),
        )
        .cycle_words(
            &cat(
                ins(0, 0x200, 0xFF, 7),
                vec![
                    ("cpl_valid", vec![1]),
                    ("cpl_row", vec![0]),
                    ("cpl_lanes", vec![0xF0]),
                ],
            ),
            &cat(
                wimg(vec![r0(0xFF, 0xF0, 0x100), r1.clone()]),
                vec![
                    ("ins_ok", vec![0]),
                    ("ins_row", vec![0]),
                    ("head_valid", vec![0]),
                ],
            ),
        )
        .cycle_words(
            &cat(ins(0, 0x101, 0x01, 7), vec![("drain", vec![1])]),
            &cat(
                wimg(vec![r0(0xFF, 0x00, 0x101), r1.clone()]),
                vec![
                    ("head_valid", vec![1]),
                    ("head_row", vec![0]),
                    ("head_pc", vec![0x101]),
                    ("head_lanes", vec![0xFF]),
                    (
                        "head_thi",
                        thi8(0x0F, 2)
                            .iter()
                            .zip(thi8(0xF0, 5))
                            .map(|(a, b)| a | b)
                            .collect(),
                    ),
                    ("ins_ok", vec![1]),
                    ("ins_row", vec![2]),
                    ("ev_merge", vec![0]),
                ],
            ),
        )
        .cycle_words(
            &[],
            &cat(
                wimg(vec![r1, (2, 0x101, 0x01, vec![(0x01, 7)], 0, 0x01)]),
                vec![("head_valid", vec![0])],
            ),
        )
        .done(),
    );

    // Ready order is the order rows became ready, not row order; pc + 1 wraps at pc_bits.
    v.push(
        Vb::new(
            "crown-lookup waiting: oldest-ready drain order, pc + 1 wraps",
            NAME,
            &["kind=waiting", "rows=2", "pc_bits=8"],
        )
        .reset()
        .cycle_words(&ins(0, 0xFF, 0x01, 0), &[("ins_row", vec![0])])
        .cycle_words(
            &ins(0, 0x10, 0x02, 0),
            &[("ins_row", vec![1]), ("full", vec![0])],
        )
        .cycle_words(
            &[
                ("cpl_valid", vec![1]),
                ("cpl_row", vec![1]),
                ("cpl_lanes", vec![0x02]),
            ],
            &[("full", vec![1]), ("head_valid", vec![0])],
        )
        .cycle_words(
            &[
                ("cpl_valid", vec![1]),
                ("cpl_row", vec![0]),
                ("cpl_lanes", vec![0x01]),
            ],
            &[
                ("head_valid", vec![1]),
                ("head_row", vec![1]),
                ("head_pc", vec![0x11]),
                ("dbg_ord", vec![0]),
            ],
        )
        .cycle_words(
            &[("drain", vec![1])],
            &[
                ("head_row", vec![1]),
                ("dbg_pc", vec![0x1100]),
                ("dbg_ord", vec![0b01]),
                ("dbg_pending", vec![0]),
            ],
        )
        .cycle_words(
            &[],
            &[
                ("head_valid", vec![1]),
                ("head_row", vec![0]),
                ("head_pc", vec![0x00]),
                ("dbg_ord", vec![0]),
                ("count", vec![1]),
            ],
        )
        .done(),
    );

    // A14 `merge_scope = cta`: with cta_mask 0x7C a CTA is 4 thread indices (thi >> 2).
    // Threads of CTA 1 at PC 0x40 do not join CTA 0's row there but take a row of their own;
    // later warps of each CTA merge into their own CTA's row, the two inserts of one cycle
    // each to theirs. The same inserts with cta_mask 0 (the thesis's rule) merge at once.
    let mask = |m: u64| vec![("cta_mask", vec![m])];
    let apart = img(8)
        .row(0, 0x40, 0x0F, &[(0x0F, 0)], 0)
        .row(1, 0x40, 0xF0, &[(0xF0, 4)], 1);
    let joined = img(8).row(0, 0x40, 0xFF, &[(0x0F, 0), (0xF0, 1)], 0).row(
        1,
        0x40,
        0xFF,
        &[(0xF0, 4), (0x0F, 5)],
        1,
    );
    v.push(
        Vb::new(
            "crown.md A14: merge_scope = cta, Ready Lookup rows merge only within a CTA",
            NAME,
            &["kind=ready"],
        )
        .reset()
        .cycle_words(
            &cat(mask(0x7C), ins(0, 0x40, 0x0F, 0)),
            &[("ev_merge", vec![0]), ("ev_alloc", vec![1])],
        )
        .cycle_words(
            &cat(mask(0x7C), ins(0, 0x40, 0xF0, 4)),
            &[
                ("ev_merge", vec![0]),
                ("ev_alloc", vec![1]),
                ("count", vec![1]),
            ],
        )
        .cycle_words(
            &cat(
                mask(0x7C),
                cat(ins(0, 0x40, 0xF0, 1), ins(1, 0x40, 0x0F, 5)),
            ),
            &cat(
                apart.expect(false),
                vec![("ev_merge", vec![8]), ("ev_alloc", vec![0])],
            ),
        )
        .cycle_words(&mask(0x7C), &joined.expect(false))
        .done(),
    );
    v.push(
        Vb::new(
            "crown.md A14: cta_mask 0 is the thesis's rule, the same inserts merge across CTAs",
            NAME,
            &["kind=ready"],
        )
        .reset()
        .cycle_words(
            &ins(0, 0x40, 0x0F, 0),
            &[("ev_merge", vec![0]), ("ev_alloc", vec![1])],
        )
        .cycle_words(
            &ins(0, 0x40, 0xF0, 4),
            &[
                ("ev_merge", vec![4]),
                ("ev_alloc", vec![0]),
                ("count", vec![1]),
            ],
        )
        .cycle_words(
            &[],
            &img(8)
                .row(0, 0x40, 0xFF, &[(0x0F, 0), (0xF0, 4)], 0)
                .expect(false),
        )
        .done(),
    );
    let wait_apart = img(8)
        .row(0, 0x40, 0x0F, &[(0x0F, 0)], 0)
        .pending(0, 0x0F)
        .row(1, 0x40, 0x30, &[(0x30, 4)], 0)
        .pending(1, 0x30);
    v.push(
        Vb::new(
            "crown.md A14: merge_scope = cta, a Waiting Lookup row takes only its CTA's warps",
            NAME,
            &["kind=waiting"],
        )
        .reset()
        .cycle_words(
            &cat(mask(0x7C), ins(0, 0x40, 0x0F, 0)),
            &[
                ("ins_ok", vec![1]),
                ("ins_row", vec![0]),
                ("ev_alloc", vec![1]),
            ],
        )
        .cycle_words(
            &cat(mask(0x7C), ins(0, 0x40, 0x30, 4)),
            &[
                ("ins_ok", vec![1]),
                ("ins_row", vec![1]),
                ("ev_alloc", vec![1]),
                ("ev_merge", vec![0]),
            ],
        )
        .cycle_words(
            &cat(mask(0x7C), ins(0, 0x40, 0xC0, 2)),
            &cat(
                wait_apart.expect(true),
                vec![
                    ("ins_ok", vec![1]),
                    ("ins_row", vec![0]),
                    ("ev_alloc", vec![0]),
                    ("ev_merge", vec![2]),
                ],
            ),
        )
        .done(),
    );
    v
}
