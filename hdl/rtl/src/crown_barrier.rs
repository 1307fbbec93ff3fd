//! RTL of crown-barrier: CROWN's reconvergence-barrier table (spec/crown.md §3.4.5, §3.6;
//! contract `warpforge_contract::units::crown_barrier`).
//!
//! Each entry field is one register for the whole table (entry `e = set·ways + way` at field
//! `e`), read through a `Split`, written through a `Concat`; an invalid entry holds zeros, so
//! the registers are the state digest. The tag compare of §3.4.5 uses the per-lane set read:
//! a lane's thread can only match an entry of its own set (A7: an entry's expected lanes hold
//! threads of its set), so each lane reads its set's `ways` entries ([`SetRead`], a `sets`:1
//! multiplexer per field) and compares those, R against the lane's next PC and the in-set
//! bits of the thread index ([`LaneEq`]): `ways × W` comparators instead of `entries × W`.
//! [`SetScatter`] maps the results back to entries, gated by the lane's set ([`SetMasks`]).
//! The reservation's duplicate check reads the same way; the entries a reservation writes
//! this cycle all carry `rsv_pc`, so their arrival compare is `W` comparators. Counts are
//! population counts and the head a one-hot read ([`OrSelect`]; one complete entry has
//! rank 0), not chains through the entries. One cycle, in the contract's order:
//! 1. reserve: lanes covered by a live entry at R with the same thread are dropped (A8); each
//!    set's group (lanes whose thread maps to it, [`SetMasks`]) claims the set's first invalid
//!    way, walking the entries in index order with a claimed-set mask; a group with no way
//!    counts as a failure;
//! 2. arrival check on the table as step 1 left it: a new entry matches on R = the lane's PC
//!    and its reserved thread index (the one-sided branch is absorbed at creation);
//! 3. completion: an entry whose arrived lanes reach its expected lanes takes the next
//!    completion rank, in entry order;
//! 4. drain: the rank-0 complete entry is cleared, other complete entries move up.
//!
//! The `crown` top instantiates [`BarrierTable`] directly.

use crate::crown_bits::{
    CrossEq, LaneEq, LaneMerge, OrSelect, PopCount, SetMasks, SetRead, SetScatter,
};
use crate::primitives::{emit, Concat, Fixed, Split, SplitAny, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::crown_barrier::BarrierConfig;

#[derive(LogicBlock)]
pub struct BarrierTable {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rsv_valid: Signal<In, Bit>,
    pub rsv_pc: Wire<In>,
    pub rsv_lanes: Wire<In>,
    pub rsv_thi: Wire<In>,
    pub prb_lanes: Wire<In>,
    pub prb_pc: Wire<In>,
    pub prb_thi: Wire<In>,
    pub drain: Signal<In, Bit>,
    pub prb_hit: Wire<Out>,
    pub rsv_new: Wire<Out>,
    pub rsv_dedup: Wire<Out>,
    pub rsv_fail: Wire<Out>,
    pub head_valid: Signal<Out, Bit>,
    pub head_entry: Wire<Out>,
    pub head_pc: Wire<Out>,
    pub head_lanes: Wire<Out>,
    pub head_thi: Wire<Out>,
    pub live: Wire<Out>,
    pub used: Wire<Out>,
    pub dbg_valid: Wire<Out>,
    pub dbg_complete: Wire<Out>,
    pub dbg_pc: Wire<Out>,
    pub dbg_expected: Wire<Out>,
    pub dbg_arrived: Wire<Out>,
    pub dbg_thi: Wire<Out>,
    pub dbg_ord: Wire<Out>,

    // State, one register per field; entry e at field e.
    r_valid: WordReg,
    r_complete: WordReg,
    r_pc: WordReg,
    r_exp: WordReg,
    r_arr: WordReg,
    r_thi: WordReg,
    r_ord: WordReg,
    s_valid: SplitAny,
    s_complete: SplitAny,
    s_pc: SplitAny,
    s_exp: SplitAny,
    s_arr: SplitAny,
    s_thi: SplitAny,
    s_ord: SplitAny,
    c_valid: Concat,
    c_complete: Concat,
    c_pc: Concat,
    c_exp: Concat,
    c_arr: Concat,
    c_ord: Concat,
    /// Per entry: lanes whose thread index stays, lanes written from the reservation.
    c_keep: Concat,
    c_new: Concat,
    merge: LaneMerge,

    // The tag compare: per-lane set reads, per-way compares, back to entries.
    rsv_thi_read: SetRead,
    rsv_thi_eq: LaneEq,
    rsv_match: SetScatter,
    prb_pc_read: SetRead,
    prb_thi_read: SetRead,
    prb_pc_eq: LaneEq,
    prb_thi_eq: LaneEq,
    prb_sets: SetMasks,
    prb_match: SetScatter,
    new_thi_eq: LaneEq,
    new_pc_eq: CrossEq,
    sets: SetMasks,
    s_rsv_match: Split,
    s_prb_match: Split,
    s_sets: Split,
    dedup_pop: PopCount,
    new_pop: PopCount,
    fail_pop: PopCount,
    used_pop: PopCount,
    done_pop: PopCount,
    /// Per entry: complete with rank 0 (the head).
    c_head: Concat,
    head_pc_sel: OrSelect,
    head_exp_sel: OrSelect,
    head_thi_sel: OrSelect,

    /// Per entry: its set as a one-hot constant.
    set_bit: Vec<Fixed>,

    new_lanes: Vec<Wire<Local>>,
    n_done: Wire<Local>,
    draining: Signal<Local, Bit>,
    covered: Wire<Local>,
    remaining: Wire<Local>,
    group: Wire<Local>,
    present: Wire<Local>,
    claimed: Wire<Local>,
    hit: Wire<Local>,
    m: Wire<Local>,
    arr: Wire<Local>,
    exp: Wire<Local>,
    rank: Wire<Local>,
}

impl BarrierTable {
    pub fn new(cfg: &BarrierConfig) -> BarrierTable {
        let (e, p, w, t, ob) = (
            cfg.entries(),
            cfg.pc_bits(),
            cfg.w(),
            cfg.thi_bits(),
            cfg.ord_bits(),
        );
        let per = |f: usize| {
            (
                WordReg::new(e * f),
                SplitAny::new(&vec![f; e]),
                Concat::new(&vec![f; e]),
            )
        };
        let (pc, exp, arr, thi, ord) = (per(p), per(w), per(w), per(w * t), per(ob));
        // One entry makes these one-bit vectors (SplitAny passes a scalar through, as for a
        // one-entry table's one-bit ranks).
        let bit = || {
            (
                WordReg::new(e),
                SplitAny::new(&vec![1; e]),
                Concat::new(&vec![1; e]),
            )
        };
        let (valid, complete) = (bit(), bit());
        let cb = cfg.count_bits();
        let (sets, ways, sb) = (cfg.sets, cfg.ways, cfg.set_bits());
        // In-set bits of a thread index (at least one: with one thread per set the compare
        // is of a set bit, equal in the lane's own set).
        let lo = t.saturating_sub(sb).max(1);
        let thi_read = || SetRead::new(sets, ways, w, w * t, t, lo, t, sb);
        BarrierTable {
            clock: Default::default(),
            reset: Default::default(),
            rsv_valid: Default::default(),
            rsv_pc: Wire::new(p),
            rsv_lanes: Wire::new(w),
            rsv_thi: Wire::new(w * t),
            prb_lanes: Wire::new(w),
            prb_pc: Wire::new(w * p),
            prb_thi: Wire::new(w * t),
            drain: Default::default(),
            prb_hit: Wire::new(w),
            rsv_new: Wire::new(cfg.lane_count_bits()),
            rsv_dedup: Wire::new(cfg.lane_count_bits()),
            rsv_fail: Wire::new(cfg.lane_count_bits()),
            head_valid: Default::default(),
            head_entry: Wire::new(cfg.entry_bits()),
            head_pc: Wire::new(p),
            head_lanes: Wire::new(w),
            head_thi: Wire::new(w * t),
            live: Wire::new(cb),
            used: Wire::new(cb),
            dbg_valid: Wire::new(e),
            dbg_complete: Wire::new(e),
            dbg_pc: Wire::new(e * p),
            dbg_expected: Wire::new(e * w),
            dbg_arrived: Wire::new(e * w),
            dbg_thi: Wire::new(e * w * t),
            dbg_ord: Wire::new(e * ob),
            r_valid: valid.0,
            s_valid: valid.1,
            c_valid: valid.2,
            r_complete: complete.0,
            s_complete: complete.1,
            c_complete: complete.2,
            r_pc: pc.0,
            s_pc: pc.1,
            c_pc: pc.2,
            r_exp: exp.0,
            s_exp: exp.1,
            c_exp: exp.2,
            r_arr: arr.0,
            s_arr: arr.1,
            c_arr: arr.2,
            r_thi: thi.0,
            s_thi: thi.1,
            r_ord: ord.0,
            s_ord: ord.1,
            c_ord: ord.2,
            c_keep: Concat::new(&vec![w; e]),
            c_new: Concat::new(&vec![w; e]),
            merge: LaneMerge::new(e, w, t),
            rsv_thi_read: thi_read(),
            rsv_thi_eq: LaneEq::strided(ways, w, lo, t),
            rsv_match: SetScatter::new(e, ways, w),
            prb_pc_read: SetRead::new(sets, ways, w, p, 0, p, t, sb),
            prb_thi_read: thi_read(),
            prb_pc_eq: LaneEq::new(ways, w, p),
            prb_thi_eq: LaneEq::strided(ways, w, lo, t),
            prb_sets: SetMasks::new(e, ways, w, t, sb),
            prb_match: SetScatter::new(e, ways, w),
            new_thi_eq: LaneEq::new(1, w, t),
            new_pc_eq: CrossEq::new(1, w, p),
            sets: SetMasks::new(e, ways, w, t, sb),
            s_rsv_match: Split::new(&vec![w; e]),
            s_prb_match: Split::new(&vec![w; e]),
            s_sets: Split::new(&vec![w; e]),
            dedup_pop: PopCount::new(w),
            new_pop: PopCount::new(cfg.sets),
            fail_pop: PopCount::new(cfg.sets),
            used_pop: PopCount::new(e),
            done_pop: PopCount::new(e),
            c_head: Concat::new(&vec![1; e]),
            head_pc_sel: OrSelect::new(e, p),
            head_exp_sel: OrSelect::new(e, w),
            head_thi_sel: OrSelect::new(e, w * t),
            set_bit: (0..e).map(|x| Fixed::new(1u64 << (x / cfg.ways))).collect(),
            new_lanes: (0..e).map(|_| Wire::new(w)).collect(),
            n_done: Wire::new(cb),
            draining: Default::default(),
            covered: Wire::new(w),
            remaining: Wire::new(w),
            group: Wire::new(w),
            present: Wire::new(cfg.sets),
            claimed: Wire::new(cfg.sets),
            hit: Wire::new(w),
            m: Wire::new(w),
            arr: Wire::new(w),
            exp: Wire::new(w),
            rank: Wire::new(cb),
        }
    }
}

impl Logic for BarrierTable {
    #[hdl_gen]
    fn update(&mut self) {
        self.r_valid.clock.next = self.clock.val();
        self.r_valid.reset.next = self.reset.val();
        self.r_complete.clock.next = self.clock.val();
        self.r_complete.reset.next = self.reset.val();
        self.r_pc.clock.next = self.clock.val();
        self.r_pc.reset.next = self.reset.val();
        self.r_exp.clock.next = self.clock.val();
        self.r_exp.reset.next = self.reset.val();
        self.r_arr.clock.next = self.clock.val();
        self.r_arr.reset.next = self.reset.val();
        self.r_thi.clock.next = self.clock.val();
        self.r_thi.reset.next = self.reset.val();
        self.r_ord.clock.next = self.clock.val();
        self.r_ord.reset.next = self.reset.val();
        self.s_valid.whole.next = self.r_valid.q.val();
        self.s_complete.whole.next = self.r_complete.q.val();
        self.s_pc.whole.next = self.r_pc.q.val();
        self.s_exp.whole.next = self.r_exp.q.val();
        self.s_arr.whole.next = self.r_arr.q.val();
        self.s_thi.whole.next = self.r_thi.q.val();
        self.s_ord.whole.next = self.r_ord.q.val();

        self.rsv_thi_read.fields.next = self.r_thi.q.val();
        self.rsv_thi_read.thi.next = self.rsv_thi.val();
        self.rsv_thi_eq.fields.next = self.rsv_thi_read.read.val();
        self.rsv_thi_eq.v.next = self.rsv_thi.val();
        self.rsv_match.a.next = self.rsv_thi_eq.eq.val();
        self.rsv_match.b.next = self.rsv_thi_eq.eq.val();
        self.rsv_match.masks.next = self.sets.masks.val();
        self.prb_pc_read.fields.next = self.r_pc.q.val();
        self.prb_pc_read.thi.next = self.prb_thi.val();
        self.prb_thi_read.fields.next = self.r_thi.q.val();
        self.prb_thi_read.thi.next = self.prb_thi.val();
        self.prb_pc_eq.fields.next = self.prb_pc_read.read.val();
        self.prb_pc_eq.v.next = self.prb_pc.val();
        self.prb_thi_eq.fields.next = self.prb_thi_read.read.val();
        self.prb_thi_eq.v.next = self.prb_thi.val();
        self.prb_sets.thi.next = self.prb_thi.val();
        self.prb_match.a.next = self.prb_pc_eq.eq.val();
        self.prb_match.b.next = self.prb_thi_eq.eq.val();
        self.prb_match.masks.next = self.prb_sets.masks.val();
        self.new_thi_eq.fields.next = self.rsv_thi.val();
        self.new_thi_eq.v.next = self.prb_thi.val();
        self.new_pc_eq.rows.next = self.rsv_pc.val();
        self.new_pc_eq.v.next = self.prb_pc.val();
        self.sets.thi.next = self.rsv_thi.val();
        self.s_rsv_match.whole.next = self.rsv_match.hit.val();
        self.s_prb_match.whole.next = self.prb_match.hit.val();
        self.s_sets.whole.next = self.sets.masks.val();

        // Start of cycle: counts and the head (the complete entry of rank 0).
        self.used_pop.x.next = self.r_valid.q.val();
        self.done_pop.x.next = self.r_valid.q.val() & self.r_complete.q.val();
        self.n_done.next = self.done_pop.count.val();
        self.used.next = self.used_pop.count.val();
        self.live.next = self.used_pop.count.val() - self.done_pop.count.val();
        for e in 0..self.new_lanes.len() {
            self.c_head.parts[e].next = false.into();
            if self.s_valid.parts[e].val().any()
                & self.s_complete.parts[e].val().any()
                & !self.s_ord.parts[e].val().any()
            {
                self.c_head.parts[e].next = true.into();
            }
        }
        self.head_pc_sel.sel.next = self.c_head.whole.val();
        self.head_pc_sel.data.next = self.r_pc.q.val();
        self.head_exp_sel.sel.next = self.c_head.whole.val();
        self.head_exp_sel.data.next = self.r_exp.q.val();
        self.head_thi_sel.sel.next = self.c_head.whole.val();
        self.head_thi_sel.data.next = self.r_thi.q.val();
        self.head_valid.next = self.c_head.whole.val().any();
        self.head_entry.next = self.head_pc_sel.index.val();
        self.head_pc.next = self.head_pc_sel.out.val();
        self.head_lanes.next = self.head_exp_sel.out.val();
        self.head_thi.next = self.head_thi_sel.out.val();
        self.draining.next = self.drain.val() & self.n_done.val().any();
        self.rank.next = self.n_done.val();
        if self.draining.val() {
            self.rank.next = self.n_done.val() - 1usize;
        }

        // 1. Reserve. Covered lanes: a live entry at R expects the same thread (A8).
        self.covered.next = 0.into();
        for e in 0..self.new_lanes.len() {
            if self.s_valid.parts[e].val().any()
                & !self.s_complete.parts[e].val().any()
                & (self.s_pc.parts[e].val() == self.rsv_pc.val())
            {
                self.covered.next = self.covered.val()
                    | (self.s_exp.parts[e].val() & self.s_rsv_match.parts[e].val());
            }
        }
        self.remaining.next = 0.into();
        if self.rsv_valid.val() {
            self.remaining.next = self.rsv_lanes.val();
        }
        self.dedup_pop.x.next = self.remaining.val() & self.covered.val();
        self.remaining.next = self.remaining.val() & !self.covered.val();
        // Each set's group claims the set's first invalid way.
        self.present.next = 0.into();
        self.claimed.next = 0.into();
        for e in 0..self.new_lanes.len() {
            self.group.next = self.remaining.val() & self.s_sets.parts[e].val();
            self.new_lanes[e].next = 0.into();
            if self.group.val().any() {
                self.present.next = self.present.val() | self.set_bit[e].val();
                if !self.s_valid.parts[e].val().any()
                    & !(self.claimed.val() & self.set_bit[e].val()).any()
                {
                    self.claimed.next = self.claimed.val() | self.set_bit[e].val();
                    self.new_lanes[e].next = self.group.val();
                }
            }
        }
        self.new_pop.x.next = self.claimed.val();
        self.fail_pop.x.next = self.present.val() & !self.claimed.val();
        self.rsv_new.next = self.new_pop.count.val();
        self.rsv_fail.next = self.fail_pop.count.val();
        self.rsv_dedup.next = self.dedup_pop.count.val();

        // 2–4. Arrival check on the table as the reservation left it, completion in entry
        // order, drain.
        self.hit.next = 0.into();
        for e in 0..self.new_lanes.len() {
            self.m.next = 0.into();
            self.arr.next = self.s_arr.parts[e].val();
            self.exp.next = self.s_exp.parts[e].val();
            if self.s_valid.parts[e].val().any() & !self.s_complete.parts[e].val().any() {
                self.m.next = self.prb_lanes.val()
                    & self.s_exp.parts[e].val()
                    & !self.s_arr.parts[e].val()
                    & self.s_prb_match.parts[e].val();
            }
            if self.new_lanes[e].val().any() {
                self.m.next = self.prb_lanes.val()
                    & self.new_lanes[e].val()
                    & self.new_thi_eq.eq.val()
                    & self.new_pc_eq.eq.val();
                self.exp.next = self.new_lanes[e].val();
            }
            self.hit.next = self.hit.val() | self.m.val();
            self.arr.next = self.arr.val() | self.m.val();

            self.c_valid.parts[e].next = self.s_valid.parts[e].val();
            self.c_complete.parts[e].next = self.s_complete.parts[e].val();
            self.c_pc.parts[e].next = self.s_pc.parts[e].val();
            self.c_exp.parts[e].next = self.exp.val();
            self.c_arr.parts[e].next = self.arr.val();
            self.c_ord.parts[e].next = self.s_ord.parts[e].val();
            self.c_keep.parts[e].next = self.s_exp.parts[e].val();
            self.c_new.parts[e].next = self.new_lanes[e].val();
            if self.new_lanes[e].val().any() {
                self.c_valid.parts[e].next = true.into();
                self.c_pc.parts[e].next = self.rsv_pc.val();
            }
            if self.m.val().any() & (self.arr.val() == self.exp.val()) {
                self.c_complete.parts[e].next = true.into();
                self.c_ord.parts[e].next = self.rank.val();
                self.rank.next = self.rank.val() + 1usize;
            }
            if self.draining.val() & self.s_complete.parts[e].val().any() {
                self.c_ord.parts[e].next = self.s_ord.parts[e].val() - 1usize;
                if !self.s_ord.parts[e].val().any() {
                    self.c_valid.parts[e].next = false.into();
                    self.c_complete.parts[e].next = false.into();
                    self.c_pc.parts[e].next = 0.into();
                    self.c_exp.parts[e].next = 0.into();
                    self.c_arr.parts[e].next = 0.into();
                    self.c_ord.parts[e].next = 0.into();
                    self.c_keep.parts[e].next = 0.into();
                }
            }
        }
        self.prb_hit.next = self.hit.val();

        self.merge.base.next = self.r_thi.q.val();
        self.merge.keep.next = self.c_keep.whole.val();
        self.merge.a.next = self.rsv_thi.val();
        self.merge.a_lanes.next = self.c_new.whole.val();
        self.merge.b.next = 0.into();
        self.merge.b_lanes.next = 0.into();
        self.r_valid.d.next = self.c_valid.whole.val();
        self.r_complete.d.next = self.c_complete.whole.val();
        self.r_pc.d.next = self.c_pc.whole.val();
        self.r_exp.d.next = self.c_exp.whole.val();
        self.r_arr.d.next = self.c_arr.whole.val();
        self.r_thi.d.next = self.merge.merged.val();
        self.r_ord.d.next = self.c_ord.whole.val();

        self.dbg_valid.next = self.r_valid.q.val();
        self.dbg_complete.next = self.r_complete.q.val();
        self.dbg_pc.next = self.r_pc.q.val();
        self.dbg_expected.next = self.r_exp.q.val();
        self.dbg_arrived.next = self.r_arr.q.val();
        self.dbg_thi.next = self.r_thi.q.val();
        self.dbg_ord.next = self.r_ord.q.val();
    }
}

/// Verilog of one crown-barrier configuration.
pub fn generate(cfg: &BarrierConfig) -> Design {
    emit(&mut BarrierTable::new(cfg), &cfg.module_name())
}
