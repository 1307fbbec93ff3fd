//! RTL of crown-lookup: CROWN's Ready Lookup and Waiting Lookup (spec/crown.md §3.4.3,
//! §3.4.4, §3.5 step 4, §3.7; contract `warpforge_contract::units::crown_lookup`).
//!
//! Each row field is one register for the whole table (row `r` at field `r`), read through a
//! `Split` and written through a `Concat`; the per-lane thread indices are rebuilt every cycle
//! by a [`LaneMerge`] from the lanes each insert placed in each row. An invalid row holds
//! zeros, so the registers are the state digest as they stand.
//!
//! The Ready Lookup places an insert's lanes by walking the rows in index order, each row
//! taking the lanes still unplaced that it has empty (same PC, valid, not the draining head):
//! that is each lane's lowest-index compatible row (A9). The leftover lanes take the first
//! invalid row, or leave on the bypass port (A10). Insert 1 runs on the rows as insert 0 left
//! them. Drain order is a rank per row: allocation appends at the count, a drain decrements.
//!
//! Both kinds compare CTA tags too (A14, `merge_scope = cta`): a [`CtaTag`] per table gives
//! every row's and every insert's `thi & cta_mask`; with `cta_mask` 0 all tags are equal.
//!
//! The Waiting Lookup takes a partial warp into the first pending row at its PC with disjoint
//! lanes, or the first invalid row; a completion clears pending bits; the row whose pending
//! bits all clear gets pc + 1 and the next ready rank.
//!
//! The `crown` top instantiates [`ReadyLookup`] and [`WaitingLookup`] directly.

use crate::crown_bits::{CtaTag, LaneMerge, PopCount};
use crate::primitives::{emit, Concat, Fixed, Split, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::crown_lookup::{LookupConfig, LookupKind};

/// Constant `w`-lane mask of all ones.
fn all_lanes(w: usize) -> Fixed {
    Fixed::new(if w >= 64 { u64::MAX } else { (1u64 << w) - 1 })
}

/// Per-row registers, views and next-state packers of one table (both kinds).
fn rows_of<const N: usize>(widths: [usize; N], rows: usize) -> [(WordReg, Split, Concat); N] {
    widths.map(|f| {
        (
            WordReg::new(rows * f),
            Split::new(&vec![f; rows]),
            Concat::new(&vec![f; rows]),
        )
    })
}

fn locals(rows: usize, width: usize) -> Vec<Wire<Local>> {
    (0..rows).map(|_| Wire::new(width)).collect()
}

/// The Ready Lookup.
#[derive(LogicBlock)]
pub struct ReadyLookup {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ins0_valid: Signal<In, Bit>,
    pub ins0_pc: Wire<In>,
    pub ins0_lanes: Wire<In>,
    pub ins0_thi: Wire<In>,
    pub ins1_valid: Signal<In, Bit>,
    pub ins1_pc: Wire<In>,
    pub ins1_lanes: Wire<In>,
    pub ins1_thi: Wire<In>,
    pub drain: Signal<In, Bit>,
    pub cta_mask: Wire<In>,
    pub byp0_valid: Signal<Out, Bit>,
    pub byp0_pc: Wire<Out>,
    pub byp0_lanes: Wire<Out>,
    pub byp0_thi: Wire<Out>,
    pub byp1_valid: Signal<Out, Bit>,
    pub byp1_pc: Wire<Out>,
    pub byp1_lanes: Wire<Out>,
    pub byp1_thi: Wire<Out>,
    pub ev_merge: Wire<Out>,
    pub ev_alloc: Wire<Out>,
    pub head_valid: Signal<Out, Bit>,
    pub head_row: Wire<Out>,
    pub head_pc: Wire<Out>,
    pub head_lanes: Wire<Out>,
    pub head_thi: Wire<Out>,
    pub count: Wire<Out>,
    pub full: Signal<Out, Bit>,
    pub dbg_valid: Wire<Out>,
    pub dbg_pc: Wire<Out>,
    pub dbg_lanes: Wire<Out>,
    pub dbg_thi: Wire<Out>,
    pub dbg_ord: Wire<Out>,

    // State: one register per field for the whole table; row r at field r.
    r_valid: WordReg,
    r_pc: WordReg,
    r_lanes: WordReg,
    r_thi: WordReg,
    r_ord: WordReg,
    s_valid: Split,
    s_pc: Split,
    s_lanes: Split,
    s_thi: Split,
    s_ord: Split,
    c_valid: Concat,
    c_pc: Concat,
    c_lanes: Concat,
    c_ord: Concat,
    // Per row: lanes whose thread index stays, lanes written from insert 0 and insert 1.
    c_keep: Concat,
    c_a: Concat,
    c_b: Concat,
    merge: LaneMerge,
    byp0_merge: LaneMerge,
    byp1_merge: LaneMerge,
    pop0: PopCount,
    pop1: PopCount,
    // CTA tags (A14): of the start-of-cycle rows and of each insert.
    row_tag: CtaTag,
    s_tag: Split,
    ins0_tag: CtaTag,
    ins1_tag: CtaTag,
    rows: Fixed,
    one: Fixed,
    two: Fixed,

    // The table as the inserts so far left it.
    cur_valid: Vec<Wire<Local>>,
    cur_pc: Vec<Wire<Local>>,
    cur_lanes: Vec<Wire<Local>>,
    cur_ord: Vec<Wire<Local>>,
    cur_tag: Vec<Wire<Local>>,
    cur_a: Vec<Wire<Local>>,
    cur_b: Vec<Wire<Local>>,
    cnt: Wire<Local>,
    draining: Signal<Local, Bit>,
    rank: Wire<Local>,
    left: Wire<Local>,
    take: Wire<Local>,
    placed: Signal<Local, Bit>,
    bl0: Wire<Local>,
    bl1: Wire<Local>,
    ev: Wire<Local>,
}

impl ReadyLookup {
    pub fn new(cfg: &LookupConfig) -> ReadyLookup {
        assert_eq!(cfg.kind, LookupKind::Ready);
        let (r, p, w, t, ob) = (
            cfg.rows,
            cfg.pc_bits(),
            cfg.w(),
            cfg.thi_bits(),
            cfg.ord_bits(),
        );
        let [valid, pc, lanes, thi, ord, keep, a, b] = rows_of([1, p, w, w * t, ob, w, w, w], r);
        ReadyLookup {
            clock: Default::default(),
            reset: Default::default(),
            ins0_valid: Default::default(),
            ins0_pc: Wire::new(p),
            ins0_lanes: Wire::new(w),
            ins0_thi: Wire::new(w * t),
            ins1_valid: Default::default(),
            ins1_pc: Wire::new(p),
            ins1_lanes: Wire::new(w),
            ins1_thi: Wire::new(w * t),
            drain: Default::default(),
            cta_mask: Wire::new(t),
            byp0_valid: Default::default(),
            byp0_pc: Wire::new(p),
            byp0_lanes: Wire::new(w),
            byp0_thi: Wire::new(w * t),
            byp1_valid: Default::default(),
            byp1_pc: Wire::new(p),
            byp1_lanes: Wire::new(w),
            byp1_thi: Wire::new(w * t),
            ev_merge: Wire::new(cfg.merge_bits()),
            ev_alloc: Wire::new(2),
            head_valid: Default::default(),
            head_row: Wire::new(cfg.row_bits()),
            head_pc: Wire::new(p),
            head_lanes: Wire::new(w),
            head_thi: Wire::new(w * t),
            count: Wire::new(cfg.count_bits()),
            full: Default::default(),
            dbg_valid: Wire::new(r),
            dbg_pc: Wire::new(r * p),
            dbg_lanes: Wire::new(r * w),
            dbg_thi: Wire::new(r * w * t),
            dbg_ord: Wire::new(r * ob),
            r_valid: valid.0,
            s_valid: valid.1,
            c_valid: valid.2,
            r_pc: pc.0,
            s_pc: pc.1,
            c_pc: pc.2,
            r_lanes: lanes.0,
            s_lanes: lanes.1,
            c_lanes: lanes.2,
            r_thi: thi.0,
            s_thi: thi.1,
            r_ord: ord.0,
            s_ord: ord.1,
            c_ord: ord.2,
            c_keep: keep.2,
            c_a: a.2,
            c_b: b.2,
            merge: LaneMerge::new(r, w, t),
            byp0_merge: LaneMerge::new(1, w, t),
            byp1_merge: LaneMerge::new(1, w, t),
            pop0: PopCount::new(w),
            pop1: PopCount::new(w),
            row_tag: CtaTag::new(r, w, t),
            s_tag: Split::new(&vec![t; r]),
            ins0_tag: CtaTag::new(1, w, t),
            ins1_tag: CtaTag::new(1, w, t),
            rows: Fixed::new(r as u64),
            one: Fixed::new(1),
            two: Fixed::new(2),
            cur_valid: locals(r, 1),
            cur_pc: locals(r, p),
            cur_lanes: locals(r, w),
            cur_ord: locals(r, ob),
            cur_tag: locals(r, t),
            cur_a: locals(r, w),
            cur_b: locals(r, w),
            cnt: Wire::new(cfg.count_bits()),
            draining: Default::default(),
            rank: Wire::new(cfg.count_bits()),
            left: Wire::new(w),
            take: Wire::new(w),
            placed: Default::default(),
            bl0: Wire::new(w),
            bl1: Wire::new(w),
            ev: Wire::new(2),
        }
    }
}

impl Logic for ReadyLookup {
    #[hdl_gen]
    fn update(&mut self) {
        self.r_valid.clock.next = self.clock.val();
        self.r_valid.reset.next = self.reset.val();
        self.r_pc.clock.next = self.clock.val();
        self.r_pc.reset.next = self.reset.val();
        self.r_lanes.clock.next = self.clock.val();
        self.r_lanes.reset.next = self.reset.val();
        self.r_thi.clock.next = self.clock.val();
        self.r_thi.reset.next = self.reset.val();
        self.r_ord.clock.next = self.clock.val();
        self.r_ord.reset.next = self.reset.val();
        self.s_valid.whole.next = self.r_valid.q.val();
        self.s_pc.whole.next = self.r_pc.q.val();
        self.s_lanes.whole.next = self.r_lanes.q.val();
        self.s_thi.whole.next = self.r_thi.q.val();
        self.s_ord.whole.next = self.r_ord.q.val();
        self.row_tag.thi.next = self.r_thi.q.val();
        self.row_tag.lanes.next = self.r_lanes.q.val();
        self.row_tag.mask.next = self.cta_mask.val();
        self.s_tag.whole.next = self.row_tag.tag.val();
        self.ins0_tag.thi.next = self.ins0_thi.val();
        self.ins0_tag.lanes.next = self.ins0_lanes.val();
        self.ins0_tag.mask.next = self.cta_mask.val();
        self.ins1_tag.thi.next = self.ins1_thi.val();
        self.ins1_tag.lanes.next = self.ins1_lanes.val();
        self.ins1_tag.mask.next = self.cta_mask.val();

        // Start of cycle: count and head (the valid row of rank 0).
        self.cnt.next = 0.into();
        self.head_row.next = 0.into();
        self.head_pc.next = 0.into();
        self.head_lanes.next = 0.into();
        self.head_thi.next = 0.into();
        for r in 0..self.cur_valid.len() {
            if self.s_valid.parts[r].val().any() {
                self.cnt.next = self.cnt.val() + 1usize;
                if !self.s_ord.parts[r].val().any() {
                    self.head_row.next = r.into();
                    self.head_pc.next = self.s_pc.parts[r].val();
                    self.head_lanes.next = self.s_lanes.parts[r].val();
                    self.head_thi.next = self.s_thi.parts[r].val();
                }
            }
        }
        self.count.next = self.cnt.val();
        self.head_valid.next = self.cnt.val().any();
        self.full.next = self.cnt.val() == self.rows.val();
        self.draining.next = self.drain.val() & self.cnt.val().any();
        self.rank.next = self.cnt.val();
        if self.draining.val() {
            self.rank.next = self.cnt.val() - 1usize;
        }
        for r in 0..self.cur_valid.len() {
            self.cur_valid[r].next = self.s_valid.parts[r].val();
            self.cur_pc[r].next = self.s_pc.parts[r].val();
            self.cur_lanes[r].next = self.s_lanes.parts[r].val();
            self.cur_ord[r].next = self.s_ord.parts[r].val();
            self.cur_tag[r].next = self.s_tag.parts[r].val();
            self.cur_a[r].next = 0.into();
            self.cur_b[r].next = 0.into();
        }

        // Insert 0: each row in index order takes the unplaced lanes it has empty (A9).
        self.left.next = 0.into();
        if self.ins0_valid.val() {
            self.left.next = self.ins0_lanes.val();
        }
        self.bl0.next = self.left.val();
        for r in 0..self.cur_valid.len() {
            self.take.next = 0.into();
            if self.cur_valid[r].val().any()
                & (self.cur_pc[r].val() == self.ins0_pc.val())
                & (self.cur_tag[r].val() == self.ins0_tag.tag.val())
                & !(self.draining.val()
                    & self.s_valid.parts[r].val().any()
                    & !self.s_ord.parts[r].val().any())
            {
                self.take.next = self.left.val() & !self.cur_lanes[r].val();
            }
            self.cur_lanes[r].next = self.cur_lanes[r].val() | self.take.val();
            self.cur_a[r].next = self.take.val();
            self.left.next = self.left.val() & !self.take.val();
        }
        self.pop0.x.next = self.bl0.val() & !self.left.val();
        // The leftover lanes: the first invalid row, else the bypass (A10).
        self.placed.next = false;
        for r in 0..self.cur_valid.len() {
            if self.left.val().any() & !self.placed.val() & !self.cur_valid[r].val().any() {
                self.cur_valid[r].next = true.into();
                self.cur_pc[r].next = self.ins0_pc.val();
                self.cur_tag[r].next = self.ins0_tag.tag.val();
                self.cur_lanes[r].next = self.left.val();
                self.cur_ord[r].next = self.rank.val();
                self.cur_a[r].next = self.left.val();
                self.placed.next = true;
            }
        }
        self.ev.next = 0.into();
        if self.placed.val() {
            self.rank.next = self.rank.val() + 1usize;
            self.ev.next = self.one.val();
        }
        self.byp0_valid.next = self.left.val().any() & !self.placed.val();
        self.bl0.next = 0.into();
        self.byp0_pc.next = 0.into();
        if self.byp0_valid.val() {
            self.bl0.next = self.left.val();
            self.byp0_pc.next = self.ins0_pc.val();
        }

        // Insert 1, on the rows as insert 0 left them.
        self.left.next = 0.into();
        if self.ins1_valid.val() {
            self.left.next = self.ins1_lanes.val();
        }
        self.bl1.next = self.left.val();
        for r in 0..self.cur_valid.len() {
            self.take.next = 0.into();
            if self.cur_valid[r].val().any()
                & (self.cur_pc[r].val() == self.ins1_pc.val())
                & (self.cur_tag[r].val() == self.ins1_tag.tag.val())
                & !(self.draining.val()
                    & self.s_valid.parts[r].val().any()
                    & !self.s_ord.parts[r].val().any())
            {
                self.take.next = self.left.val() & !self.cur_lanes[r].val();
            }
            self.cur_lanes[r].next = self.cur_lanes[r].val() | self.take.val();
            self.cur_b[r].next = self.take.val();
            self.left.next = self.left.val() & !self.take.val();
        }
        self.pop1.x.next = self.bl1.val() & !self.left.val();
        self.placed.next = false;
        for r in 0..self.cur_valid.len() {
            if self.left.val().any() & !self.placed.val() & !self.cur_valid[r].val().any() {
                self.cur_valid[r].next = true.into();
                self.cur_pc[r].next = self.ins1_pc.val();
                self.cur_tag[r].next = self.ins1_tag.tag.val();
                self.cur_lanes[r].next = self.left.val();
                self.cur_ord[r].next = self.rank.val();
                self.cur_b[r].next = self.left.val();
                self.placed.next = true;
            }
        }
        if self.placed.val() {
            self.ev.next = self.ev.val() | self.two.val();
        }
        self.byp1_valid.next = self.left.val().any() & !self.placed.val();
        self.bl1.next = 0.into();
        self.byp1_pc.next = 0.into();
        if self.byp1_valid.val() {
            self.bl1.next = self.left.val();
            self.byp1_pc.next = self.ins1_pc.val();
        }
        self.byp0_lanes.next = self.bl0.val();
        self.byp1_lanes.next = self.bl1.val();
        self.byp0_merge.base.next = 0.into();
        self.byp0_merge.keep.next = 0.into();
        self.byp0_merge.a.next = self.ins0_thi.val();
        self.byp0_merge.a_lanes.next = self.bl0.val();
        self.byp0_merge.b.next = 0.into();
        self.byp0_merge.b_lanes.next = 0.into();
        self.byp0_thi.next = self.byp0_merge.merged.val();
        self.byp1_merge.base.next = 0.into();
        self.byp1_merge.keep.next = 0.into();
        self.byp1_merge.a.next = self.ins1_thi.val();
        self.byp1_merge.a_lanes.next = self.bl1.val();
        self.byp1_merge.b.next = 0.into();
        self.byp1_merge.b_lanes.next = 0.into();
        self.byp1_thi.next = self.byp1_merge.merged.val();
        self.ev_merge.next = self.pop0.count.val() + self.pop1.count.val();
        self.ev_alloc.next = self.ev.val();

        // Next state. The drain clears the head row; every other row valid at the start moves
        // up one place in drain order.
        for r in 0..self.cur_valid.len() {
            self.c_valid.parts[r].next = self.cur_valid[r].val();
            self.c_pc.parts[r].next = self.cur_pc[r].val();
            self.c_lanes.parts[r].next = self.cur_lanes[r].val();
            self.c_ord.parts[r].next = self.cur_ord[r].val();
            self.c_keep.parts[r].next = self.s_lanes.parts[r].val();
            self.c_a.parts[r].next = self.cur_a[r].val();
            self.c_b.parts[r].next = self.cur_b[r].val();
            if self.draining.val() & self.s_valid.parts[r].val().any() {
                self.c_ord.parts[r].next = self.s_ord.parts[r].val() - 1usize;
                if !self.s_ord.parts[r].val().any() {
                    self.c_valid.parts[r].next = false.into();
                    self.c_pc.parts[r].next = 0.into();
                    self.c_lanes.parts[r].next = 0.into();
                    self.c_ord.parts[r].next = 0.into();
                    self.c_keep.parts[r].next = 0.into();
                }
            }
        }
        self.merge.base.next = self.r_thi.q.val();
        self.merge.keep.next = self.c_keep.whole.val();
        self.merge.a.next = self.ins0_thi.val();
        self.merge.a_lanes.next = self.c_a.whole.val();
        self.merge.b.next = self.ins1_thi.val();
        self.merge.b_lanes.next = self.c_b.whole.val();
        self.r_valid.d.next = self.c_valid.whole.val();
        self.r_pc.d.next = self.c_pc.whole.val();
        self.r_lanes.d.next = self.c_lanes.whole.val();
        self.r_thi.d.next = self.merge.merged.val();
        self.r_ord.d.next = self.c_ord.whole.val();

        self.dbg_valid.next = self.r_valid.q.val();
        self.dbg_pc.next = self.r_pc.q.val();
        self.dbg_lanes.next = self.r_lanes.q.val();
        self.dbg_thi.next = self.r_thi.q.val();
        self.dbg_ord.next = self.r_ord.q.val();
    }
}

/// The Waiting Lookup.
#[derive(LogicBlock)]
pub struct WaitingLookup {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ins0_valid: Signal<In, Bit>,
    pub ins0_pc: Wire<In>,
    pub ins0_lanes: Wire<In>,
    pub ins0_thi: Wire<In>,
    pub cpl_valid: Signal<In, Bit>,
    pub cpl_row: Wire<In>,
    pub cpl_lanes: Wire<In>,
    pub drain: Signal<In, Bit>,
    pub cta_mask: Wire<In>,
    pub ins_ok: Signal<Out, Bit>,
    pub ins_row: Wire<Out>,
    pub ev_merge: Wire<Out>,
    pub ev_alloc: Signal<Out, Bit>,
    pub head_valid: Signal<Out, Bit>,
    pub head_row: Wire<Out>,
    pub head_pc: Wire<Out>,
    pub head_lanes: Wire<Out>,
    pub head_thi: Wire<Out>,
    pub count: Wire<Out>,
    pub full: Signal<Out, Bit>,
    pub dbg_valid: Wire<Out>,
    pub dbg_pc: Wire<Out>,
    pub dbg_lanes: Wire<Out>,
    pub dbg_thi: Wire<Out>,
    pub dbg_ord: Wire<Out>,
    pub dbg_pending: Wire<Out>,

    r_valid: WordReg,
    r_pc: WordReg,
    r_lanes: WordReg,
    r_thi: WordReg,
    r_ord: WordReg,
    r_pending: WordReg,
    s_valid: Split,
    s_pc: Split,
    s_lanes: Split,
    s_thi: Split,
    s_ord: Split,
    s_pending: Split,
    c_valid: Concat,
    c_pc: Concat,
    c_lanes: Concat,
    c_ord: Concat,
    c_pending: Concat,
    c_keep: Concat,
    c_a: Concat,
    merge: LaneMerge,
    pop: PopCount,
    // CTA tags (A14): of the start-of-cycle rows and of the insert.
    row_tag: CtaTag,
    s_tag: Split,
    ins0_tag: CtaTag,
    rows: Fixed,
    all: Fixed,

    placed_in: Vec<Wire<Local>>,
    cnt: Wire<Local>,
    draining: Signal<Local, Bit>,
    head_found: Signal<Local, Bit>,
    ready_rows: Wire<Local>,
    ready_count: Wire<Local>,
    partial: Signal<Local, Bit>,
    placed: Signal<Local, Bit>,
    merging: Signal<Local, Bit>,
    pend: Wire<Local>,
}

impl WaitingLookup {
    pub fn new(cfg: &LookupConfig) -> WaitingLookup {
        assert_eq!(cfg.kind, LookupKind::Waiting);
        let (r, p, w, t, ob) = (
            cfg.rows,
            cfg.pc_bits(),
            cfg.w(),
            cfg.thi_bits(),
            cfg.ord_bits(),
        );
        let [valid, pc, lanes, thi, ord, pending, keep, a] =
            rows_of([1, p, w, w * t, ob, w, w, w], r);
        WaitingLookup {
            clock: Default::default(),
            reset: Default::default(),
            ins0_valid: Default::default(),
            ins0_pc: Wire::new(p),
            ins0_lanes: Wire::new(w),
            ins0_thi: Wire::new(w * t),
            cpl_valid: Default::default(),
            cpl_row: Wire::new(cfg.row_bits()),
            cpl_lanes: Wire::new(w),
            drain: Default::default(),
            cta_mask: Wire::new(t),
            ins_ok: Default::default(),
            ins_row: Wire::new(cfg.row_bits()),
            ev_merge: Wire::new(cfg.merge_bits()),
            ev_alloc: Default::default(),
            head_valid: Default::default(),
            head_row: Wire::new(cfg.row_bits()),
            head_pc: Wire::new(p),
            head_lanes: Wire::new(w),
            head_thi: Wire::new(w * t),
            count: Wire::new(cfg.count_bits()),
            full: Default::default(),
            dbg_valid: Wire::new(r),
            dbg_pc: Wire::new(r * p),
            dbg_lanes: Wire::new(r * w),
            dbg_thi: Wire::new(r * w * t),
            dbg_ord: Wire::new(r * ob),
            dbg_pending: Wire::new(r * w),
            r_valid: valid.0,
            s_valid: valid.1,
            c_valid: valid.2,
            r_pc: pc.0,
            s_pc: pc.1,
            c_pc: pc.2,
            r_lanes: lanes.0,
            s_lanes: lanes.1,
            c_lanes: lanes.2,
            r_thi: thi.0,
            s_thi: thi.1,
            r_ord: ord.0,
            s_ord: ord.1,
            c_ord: ord.2,
            r_pending: pending.0,
            s_pending: pending.1,
            c_pending: pending.2,
            c_keep: keep.2,
            c_a: a.2,
            merge: LaneMerge::new(r, w, t),
            pop: PopCount::new(w),
            row_tag: CtaTag::new(r, w, t),
            s_tag: Split::new(&vec![t; r]),
            ins0_tag: CtaTag::new(1, w, t),
            rows: Fixed::new(r as u64),
            all: all_lanes(w),
            placed_in: locals(r, w),
            cnt: Wire::new(cfg.count_bits()),
            draining: Default::default(),
            head_found: Default::default(),
            ready_rows: Wire::new(cfg.count_bits()),
            ready_count: Wire::new(cfg.count_bits()),
            partial: Default::default(),
            placed: Default::default(),
            merging: Default::default(),
            pend: Wire::new(w),
        }
    }
}

impl Logic for WaitingLookup {
    #[hdl_gen]
    fn update(&mut self) {
        self.r_valid.clock.next = self.clock.val();
        self.r_valid.reset.next = self.reset.val();
        self.r_pc.clock.next = self.clock.val();
        self.r_pc.reset.next = self.reset.val();
        self.r_lanes.clock.next = self.clock.val();
        self.r_lanes.reset.next = self.reset.val();
        self.r_thi.clock.next = self.clock.val();
        self.r_thi.reset.next = self.reset.val();
        self.r_ord.clock.next = self.clock.val();
        self.r_ord.reset.next = self.reset.val();
        self.r_pending.clock.next = self.clock.val();
        self.r_pending.reset.next = self.reset.val();
        self.s_valid.whole.next = self.r_valid.q.val();
        self.s_pc.whole.next = self.r_pc.q.val();
        self.s_lanes.whole.next = self.r_lanes.q.val();
        self.s_thi.whole.next = self.r_thi.q.val();
        self.s_ord.whole.next = self.r_ord.q.val();
        self.s_pending.whole.next = self.r_pending.q.val();
        self.row_tag.thi.next = self.r_thi.q.val();
        self.row_tag.lanes.next = self.r_lanes.q.val();
        self.row_tag.mask.next = self.cta_mask.val();
        self.s_tag.whole.next = self.row_tag.tag.val();
        self.ins0_tag.thi.next = self.ins0_thi.val();
        self.ins0_tag.lanes.next = self.ins0_lanes.val();
        self.ins0_tag.mask.next = self.cta_mask.val();

        // Start of cycle: count, ready rows, head (the ready row of rank 0).
        self.cnt.next = 0.into();
        self.ready_rows.next = 0.into();
        self.head_found.next = false;
        self.head_row.next = 0.into();
        self.head_pc.next = 0.into();
        self.head_lanes.next = 0.into();
        self.head_thi.next = 0.into();
        for r in 0..self.placed_in.len() {
            if self.s_valid.parts[r].val().any() {
                self.cnt.next = self.cnt.val() + 1usize;
                if !self.s_pending.parts[r].val().any() {
                    self.ready_rows.next = self.ready_rows.val() + 1usize;
                    if !self.s_ord.parts[r].val().any() {
                        self.head_found.next = true;
                        self.head_row.next = r.into();
                        self.head_pc.next = self.s_pc.parts[r].val();
                        self.head_lanes.next = self.s_lanes.parts[r].val();
                        self.head_thi.next = self.s_thi.parts[r].val();
                    }
                }
            }
        }
        self.head_valid.next = self.head_found.val();
        self.count.next = self.cnt.val();
        self.full.next = self.cnt.val() == self.rows.val();
        // The count after the drain is its own variable, so the scan above (which the
        // parent's transfer choice reads through `head_valid`) does not depend on `drain`.
        self.draining.next = self.drain.val() & self.head_found.val();
        self.ready_count.next = self.ready_rows.val();
        if self.draining.val() {
            self.ready_count.next = self.ready_rows.val() - 1usize;
        }

        // The insert: a partial warp goes to the first pending row at its PC with disjoint
        // lanes, else to the first invalid row (A11).
        self.partial.next = self.ins0_valid.val()
            & self.ins0_lanes.val().any()
            & (self.ins0_lanes.val() != self.all.val());
        self.placed.next = false;
        self.merging.next = false;
        self.ins_row.next = 0.into();
        for r in 0..self.placed_in.len() {
            self.placed_in[r].next = 0.into();
            if self.partial.val()
                & !self.placed.val()
                & self.s_valid.parts[r].val().any()
                & (self.s_pc.parts[r].val() == self.ins0_pc.val())
                & (self.s_tag.parts[r].val() == self.ins0_tag.tag.val())
                & self.s_pending.parts[r].val().any()
                & !(self.s_lanes.parts[r].val() & self.ins0_lanes.val()).any()
            {
                self.placed.next = true;
                self.merging.next = true;
                self.ins_row.next = r.into();
                self.placed_in[r].next = self.ins0_lanes.val();
            }
        }
        for r in 0..self.placed_in.len() {
            if self.partial.val() & !self.placed.val() & !self.s_valid.parts[r].val().any() {
                self.placed.next = true;
                self.ins_row.next = r.into();
                self.placed_in[r].next = self.ins0_lanes.val();
            }
        }
        self.ins_ok.next = self.placed.val();
        self.ev_alloc.next = self.placed.val() & !self.merging.val();
        self.pop.x.next = 0.into();
        if self.merging.val() {
            self.pop.x.next = self.ins0_lanes.val();
        }
        self.ev_merge.next = self.pop.count.val();

        // Next state: the completion clears start-of-cycle pending bits, the insert ORs its
        // lanes in; a row whose pending bits all cleared is ready at pc + 1 with the next
        // ready rank; the drain clears the head and moves the other ready rows up.
        for r in 0..self.placed_in.len() {
            self.pend.next = self.s_pending.parts[r].val();
            if self.cpl_valid.val() & (self.cpl_row.val() == r) {
                self.pend.next = self.pend.val() & !self.cpl_lanes.val();
            }
            self.pend.next = self.pend.val() | self.placed_in[r].val();
            self.c_pending.parts[r].next = self.pend.val();
            self.c_keep.parts[r].next = self.s_lanes.parts[r].val();
            self.c_a.parts[r].next = self.placed_in[r].val();
            self.c_valid.parts[r].next = self.s_valid.parts[r].val();
            self.c_pc.parts[r].next = self.s_pc.parts[r].val();
            if self.placed_in[r].val().any() {
                self.c_valid.parts[r].next = true.into();
                self.c_pc.parts[r].next = self.ins0_pc.val();
            }
            self.c_lanes.parts[r].next = self.s_lanes.parts[r].val() | self.placed_in[r].val();
            self.c_ord.parts[r].next = self.s_ord.parts[r].val();
            if self.s_valid.parts[r].val().any()
                & self.s_pending.parts[r].val().any()
                & !self.pend.val().any()
            {
                self.c_pc.parts[r].next = self.s_pc.parts[r].val() + 1usize;
                self.c_ord.parts[r].next = self.ready_count.val();
            }
            if self.draining.val()
                & self.s_valid.parts[r].val().any()
                & !self.s_pending.parts[r].val().any()
            {
                self.c_ord.parts[r].next = self.s_ord.parts[r].val() - 1usize;
                if !self.s_ord.parts[r].val().any() {
                    self.c_valid.parts[r].next = false.into();
                    self.c_pc.parts[r].next = 0.into();
                    self.c_lanes.parts[r].next = 0.into();
                    self.c_ord.parts[r].next = 0.into();
                    self.c_keep.parts[r].next = 0.into();
                }
            }
        }
        self.merge.base.next = self.r_thi.q.val();
        self.merge.keep.next = self.c_keep.whole.val();
        self.merge.a.next = self.ins0_thi.val();
        self.merge.a_lanes.next = self.c_a.whole.val();
        self.merge.b.next = 0.into();
        self.merge.b_lanes.next = 0.into();
        self.r_valid.d.next = self.c_valid.whole.val();
        self.r_pc.d.next = self.c_pc.whole.val();
        self.r_lanes.d.next = self.c_lanes.whole.val();
        self.r_thi.d.next = self.merge.merged.val();
        self.r_ord.d.next = self.c_ord.whole.val();
        self.r_pending.d.next = self.c_pending.whole.val();

        self.dbg_valid.next = self.r_valid.q.val();
        self.dbg_pc.next = self.r_pc.q.val();
        self.dbg_lanes.next = self.r_lanes.q.val();
        self.dbg_thi.next = self.r_thi.q.val();
        self.dbg_ord.next = self.r_ord.q.val();
        self.dbg_pending.next = self.r_pending.q.val();
    }
}

/// Verilog of one crown-lookup configuration.
pub fn generate(cfg: &LookupConfig) -> Design {
    match cfg.kind {
        LookupKind::Ready => emit(&mut ReadyLookup::new(cfg), &cfg.module_name()),
        LookupKind::Waiting => emit(&mut WaitingLookup::new(cfg), &cfg.module_name()),
    }
}
