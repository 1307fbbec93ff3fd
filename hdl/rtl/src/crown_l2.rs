//! RTL of crown-l2: CROWN's second-level warp table (spec/crown.md §3.4.2; contract
//! `warpforge_contract::units::crown_l2`).
//!
//! Storage:
//! - the payload in two RAM primitives (block RAM): `pl_ram` = {lanes, pc} of every row,
//!   written by an insert or a commit update with `upd_wr`; `thi_ram` = the thread indices,
//!   written only by an insert (a commit never changes them; lanes it drops are masked off
//!   when the row is read). One write port each, and the one-payload-write rule makes one
//!   write address enough;
//! - per-row state (2 bits) and in-pool bit in flip-flops ([`RegPlanes`] written at the
//!   insert, update, pop and issue rows);
//! - the ready FIFO as a ring of `n2` row indices in two RAM primitives, even and odd slots:
//!   a cycle pushes at most two rows, at slots `tail` and `tail + 1`, which fall in different
//!   banks, so each bank takes at most one write. Head, tail and count are flip-flops, and so
//!   are the first two entries (`h0` = slot `head`, `h1` = slot `head + 1`): the head is used
//!   in the cycle of a pop, and a RAM answers a cycle late. A pop reads slot `head + 2` (the
//!   entry after the new `h1`) from its bank; until it is copied, `h1` is that bank's read
//!   register (`h1_ram`). Pushes into the slots `h0` / `h1` stand for are bypassed into them;
//! - a free-row counter (so `free_count` / `full` need no population count).
//!
//! Per cycle, from the registered state: the lowest free row ([`LowestZero`] over the OR of
//! the two state planes), the FIFO head (`h0`), the two pushes in ascending row order. A
//! pop reads the head row from both RAMs; `out_*` show the RAM outputs the next cycle, masked
//! by `out_valid` and by the row's lanes.
//!
//! The `crown` top instantiates [`L2`] as is.

use crate::crown_pool::LaneSpread;
use crate::primitives::{emit, Concat, Fixed, Split, Wire, WordReg, WordRegInit};
use crate::ram::Ram;
use crate::regfile::{LowestZero, RegPlanes};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::crown_l2::L2Config;
use warpforge_contract::units::ram::RamConfig;

/// The second-level table.
#[derive(LogicBlock)]
pub struct L2 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ins_valid: Signal<In, Bit>,
    pub ins_pc: Wire<In>,
    pub ins_lanes: Wire<In>,
    pub ins_thi: Wire<In>,
    pub upd_valid: Signal<In, Bit>,
    pub upd_row: Wire<In>,
    pub upd_state: Wire<In>,
    pub upd_wr: Signal<In, Bit>,
    pub upd_pc: Wire<In>,
    pub upd_lanes: Wire<In>,
    pub pop: Signal<In, Bit>,
    pub iss_valid: Signal<In, Bit>,
    pub iss_row: Wire<In>,
    pub ins_row: Wire<Out>,
    pub full: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_row: Wire<Out>,
    pub out_pc: Wire<Out>,
    pub out_lanes: Wire<Out>,
    pub out_thi: Wire<Out>,
    pub ready_count: Wire<Out>,
    pub free_count: Wire<Out>,
    pub occupancy: Wire<Out>,
    pub dbg_state: Wire<Out>,
    pub dbg_in_pool: Wire<Out>,
    pub dbg_head: Wire<Out>,

    // Payload RAMs.
    pl_ram: Ram,
    thi_ram: Ram,
    // The ready FIFO's ring: even and odd slots.
    ring_even: Ram,
    ring_odd: Ram,
    // Flip-flop state: per-row state (ports: insert, update, issue), in-pool bit (insert,
    // pop, issue), the ring's first two entries, pointers and counters.
    state: RegPlanes,
    in_pool: RegPlanes,
    h0: WordReg,
    h1: WordReg,
    h1_ram: WordReg,
    head: WordReg,
    tail: WordReg,
    count: WordReg,
    nfree: WordRegInit,
    rd_valid: WordReg,
    rd_row: WordReg,
    lowest_free: LowestZero,
    state_planes: Split,

    ins_word: Concat,
    upd_word: Concat,
    rd_word: Split,
    ins_mask: LaneSpread,
    out_mask: LaneSpread,

    // Decisions of this cycle.
    popping: Signal<Local, Bit>,
    inserting: Signal<Local, Bit>,
    upd_ready: Signal<Local, Bit>,
    upd_frees: Signal<Local, Bit>,
    first: Wire<Local>,
    second: Wire<Local>,
    npush: Wire<Local>,
    // Slot `head + 1`'s row (`h1` or the bank read register), slots `tail + 1` and
    // `head + 2`, and the entries kept from the start of the cycle (count − pop).
    h1_now: Wire<Local>,
    tail_next: Wire<Local>,
    head_after: Wire<Local>,
    kept: Wire<Local>,
    // Bit 0 of a slot (its bank) as a mask: a 1-bit slot (n2 = 2) has no bit select.
    odd: Fixed,
    rows: Fixed,
}

impl L2 {
    pub fn new(cfg: &L2Config) -> L2 {
        let c = &cfg.common;
        let (n, rb, cb, p, w, tv) = (
            cfg.n2,
            cfg.row_bits(),
            cfg.count_bits(),
            c.pc_bits,
            c.w,
            c.thi_vec_bits(),
        );
        let ram = |width: usize| {
            Ram::new(&RamConfig {
                depth: n,
                width,
                ports: 2,
                byte_write: false,
            })
        };
        // Banks of n2 / 2 rows (two for n2 = 2: the primitive's smallest depth; the address
        // is then always 0).
        let bank = || {
            Ram::new(&RamConfig {
                depth: (n / 2).max(2),
                width: rb,
                ports: 2,
                byte_write: false,
            })
        };
        L2 {
            clock: Default::default(),
            reset: Default::default(),
            ins_valid: Default::default(),
            ins_pc: Wire::new(p),
            ins_lanes: Wire::new(w),
            ins_thi: Wire::new(tv),
            upd_valid: Default::default(),
            upd_row: Wire::new(rb),
            upd_state: Wire::new(2),
            upd_wr: Default::default(),
            upd_pc: Wire::new(p),
            upd_lanes: Wire::new(w),
            pop: Default::default(),
            iss_valid: Default::default(),
            iss_row: Wire::new(rb),
            ins_row: Wire::new(rb),
            full: Default::default(),
            out_valid: Default::default(),
            out_row: Wire::new(rb),
            out_pc: Wire::new(p),
            out_lanes: Wire::new(w),
            out_thi: Wire::new(tv),
            ready_count: Wire::new(cb),
            free_count: Wire::new(cb),
            occupancy: Wire::new(cb),
            dbg_state: Wire::new(2 * n),
            dbg_in_pool: Wire::new(n),
            dbg_head: Wire::new(rb),
            pl_ram: ram(p + w),
            thi_ram: ram(tv),
            ring_even: bank(),
            ring_odd: bank(),
            state: RegPlanes::new(n, 2, 3),
            in_pool: RegPlanes::new(n, 1, 3),
            h0: WordReg::new(rb),
            h1: WordReg::new(rb),
            h1_ram: WordReg::new(1),
            head: WordReg::new(rb),
            tail: WordReg::new(rb),
            count: WordReg::new(cb),
            nfree: WordRegInit::new(cb, n as u64),
            rd_valid: WordReg::new(1),
            rd_row: WordReg::new(rb),
            lowest_free: LowestZero::new(n),
            state_planes: Split::new(&[n, n]),
            ins_word: Concat::new(&[p, w]),
            upd_word: Concat::new(&[p, w]),
            rd_word: Split::new(&[p, w]),
            ins_mask: LaneSpread::new(w, c.thi_bits()),
            out_mask: LaneSpread::new(w, c.thi_bits()),
            popping: Default::default(),
            inserting: Default::default(),
            upd_ready: Default::default(),
            upd_frees: Default::default(),
            first: Wire::new(rb),
            second: Wire::new(rb),
            npush: Wire::new(2),
            h1_now: Wire::new(rb),
            tail_next: Wire::new(rb),
            head_after: Wire::new(rb),
            kept: Wire::new(cb),
            odd: Fixed::new(1),
            rows: Fixed::new(n as u64),
        }
    }
}

impl Logic for L2 {
    #[hdl_gen]
    fn update(&mut self) {
        self.state.clock.next = self.clock.val();
        self.state.reset.next = self.reset.val();
        self.in_pool.clock.next = self.clock.val();
        self.in_pool.reset.next = self.reset.val();
        // The ring's RAMs need no reset: head, tail and count say which slots count.
        self.ring_even.clock.next = self.clock.val();
        self.ring_odd.clock.next = self.clock.val();
        self.h0.clock.next = self.clock.val();
        self.h0.reset.next = self.reset.val();
        self.h1.clock.next = self.clock.val();
        self.h1.reset.next = self.reset.val();
        self.h1_ram.clock.next = self.clock.val();
        self.h1_ram.reset.next = self.reset.val();
        self.head.clock.next = self.clock.val();
        self.head.reset.next = self.reset.val();
        self.tail.clock.next = self.clock.val();
        self.tail.reset.next = self.reset.val();
        self.count.clock.next = self.clock.val();
        self.count.reset.next = self.reset.val();
        self.nfree.clock.next = self.clock.val();
        self.nfree.reset.next = self.reset.val();
        self.rd_valid.clock.next = self.clock.val();
        self.rd_valid.reset.next = self.reset.val();
        self.rd_row.clock.next = self.clock.val();
        self.rd_row.reset.next = self.reset.val();
        self.pl_ram.clock.next = self.clock.val();
        self.thi_ram.clock.next = self.clock.val();

        // Start-of-cycle decisions: the lowest free row, the FIFO head.
        // A free row has both state planes zero.
        self.state_planes.whole.next = self.state.q.val();
        self.lowest_free.x.next =
            self.state_planes.parts[0].val() | self.state_planes.parts[1].val();
        self.popping.next = self.pop.val() & self.count.q.val().any();
        self.inserting.next = self.ins_valid.val() & self.nfree.q.val().any();
        self.upd_ready.next = self.upd_valid.val() & (self.upd_state.val() == 1);
        self.upd_frees.next = self.upd_valid.val() & (self.upd_state.val() == 0);

        // Row state: insert → ready, commit update → its state, issue → waiting-exec.
        self.state.we[0].next = self.inserting.val();
        self.state.waddr[0].next = self.lowest_free.idx.val();
        self.state.wdata[0].next = 1.into();
        self.state.we[1].next = self.upd_valid.val();
        self.state.waddr[1].next = self.upd_row.val();
        self.state.wdata[1].next = self.upd_state.val();
        self.state.we[2].next = self.iss_valid.val();
        self.state.waddr[2].next = self.iss_row.val();
        self.state.wdata[2].next = 2.into();
        self.state.raddr.next = 0.into();
        // In the pool: an inserted row is not, a popped row is, an issued row leaves.
        self.in_pool.we[0].next = self.inserting.val();
        self.in_pool.waddr[0].next = self.lowest_free.idx.val();
        self.in_pool.wdata[0].next = 0.into();
        self.in_pool.we[1].next = self.popping.val();
        self.in_pool.waddr[1].next = self.h0.q.val();
        self.in_pool.wdata[1].next = 1.into();
        self.in_pool.we[2].next = self.iss_valid.val();
        self.in_pool.waddr[2].next = self.iss_row.val();
        self.in_pool.wdata[2].next = 0.into();
        self.in_pool.raddr.next = 0.into();

        // Rows becoming ready this cycle, ascending index, at the ring's tail.
        self.first.next = self.upd_row.val();
        self.second.next = self.upd_row.val();
        if self.inserting.val() {
            self.first.next = self.lowest_free.idx.val();
            if self.upd_ready.val() & (self.upd_row.val() < self.lowest_free.idx.val()) {
                self.first.next = self.upd_row.val();
                self.second.next = self.lowest_free.idx.val();
            }
        }
        self.npush.next = 0.into();
        if self.inserting.val() & self.upd_ready.val() {
            self.npush.next = 2.into();
        } else if self.inserting.val() | self.upd_ready.val() {
            self.npush.next = 1.into();
        }
        // Pushes: slot tail (first) and tail + 1 (second), always in different banks.
        self.tail_next.next = self.tail.q.val() + 1;
        self.ring_even.we.next = false;
        self.ring_odd.we.next = false;
        self.ring_even.waddr.next = self.tail.q.val() >> 1;
        self.ring_odd.waddr.next = self.tail.q.val() >> 1;
        self.ring_even.wdata.next = self.first.val();
        self.ring_odd.wdata.next = self.first.val();
        self.ring_even.wbe.next = 1.into();
        self.ring_odd.wbe.next = 1.into();
        if (self.tail.q.val() & self.odd.val()).any() {
            self.ring_odd.we.next = self.npush.val().any();
            self.ring_even.we.next = self.npush.val() == 2;
            self.ring_even.waddr.next = self.tail_next.val() >> 1;
            self.ring_even.wdata.next = self.second.val();
        } else {
            self.ring_even.we.next = self.npush.val().any();
            self.ring_odd.we.next = self.npush.val() == 2;
            self.ring_odd.wdata.next = self.second.val();
        }
        // The entries after this cycle: the new head is slot head + pop, the next one
        // slot head + pop + 1. Each is an entry kept from the start of the cycle (a
        // register, or for slot head + 2 a read of its bank now) or this cycle's push.
        self.h1_now.next = self.h1.q.val();
        if self.h1_ram.q.val().any() {
            // Slot head + 1 is in the bank head is not in.
            if (self.head.q.val() & self.odd.val()).any() {
                self.h1_now.next = self.ring_even.rdata.val();
            } else {
                self.h1_now.next = self.ring_odd.rdata.val();
            }
        }
        self.kept.next = self.count.q.val();
        if self.popping.val() {
            self.kept.next = self.count.q.val() - 1;
        }
        self.h0.d.next = self.first.val();
        if self.kept.val().any() {
            self.h0.d.next = self.h0.q.val();
            if self.popping.val() {
                self.h0.d.next = self.h1_now.val();
            }
        }
        self.h1.d.next = self.second.val();
        self.h1_ram.d.next = 0.into();
        if self.kept.val() == 1 {
            self.h1.d.next = self.first.val();
        }
        if self.kept.val() >= 2 {
            self.h1.d.next = self.h1_now.val();
            if self.popping.val() {
                self.h1.d.next = self.h1.q.val();
                self.h1_ram.d.next = 1.into();
            }
        }
        // Slot head + 2 is in head's bank; read only when it becomes h1.
        self.head_after.next = self.head.q.val() + 2;
        self.ring_even.raddr.next = self.head_after.val() >> 1;
        self.ring_odd.raddr.next = self.head_after.val() >> 1;
        self.ring_even.re.next = false;
        self.ring_odd.re.next = false;
        if self.popping.val() & (self.kept.val() >= 2) {
            if (self.head.q.val() & self.odd.val()).any() {
                self.ring_odd.re.next = true;
            } else {
                self.ring_even.re.next = true;
            }
        }
        self.tail.d.next = self.tail.q.val() + self.npush.val();
        self.head.d.next = self.head.q.val();
        self.count.d.next = self.count.q.val() + self.npush.val();
        if self.popping.val() {
            self.head.d.next = self.head.q.val() + 1;
            self.count.d.next = self.count.q.val() + self.npush.val() - 1;
        }
        self.nfree.d.next = self.nfree.q.val();
        if self.upd_frees.val() & !self.inserting.val() {
            self.nfree.d.next = self.nfree.q.val() + 1;
        }
        if self.inserting.val() & !self.upd_frees.val() {
            self.nfree.d.next = self.nfree.q.val() - 1;
        }
        self.rd_valid.d.next = self.popping.val().into();
        self.rd_row.d.next = self.rd_row.q.val();
        if self.popping.val() {
            self.rd_row.d.next = self.h0.q.val();
        }

        // The payload: one write address (an insert, else the commit's), one read (a pop).
        self.ins_word.parts[0].next = self.ins_pc.val();
        self.ins_word.parts[1].next = self.ins_lanes.val();
        self.upd_word.parts[0].next = self.upd_pc.val();
        self.upd_word.parts[1].next = self.upd_lanes.val();
        self.ins_mask.lanes.next = self.ins_lanes.val();
        self.pl_ram.we.next = self.inserting.val() | (self.upd_valid.val() & self.upd_wr.val());
        self.pl_ram.waddr.next = self.upd_row.val();
        self.pl_ram.wdata.next = self.upd_word.whole.val();
        if self.inserting.val() {
            self.pl_ram.waddr.next = self.lowest_free.idx.val();
            self.pl_ram.wdata.next = self.ins_word.whole.val();
        }
        self.pl_ram.wbe.next = 1.into();
        self.pl_ram.re.next = self.popping.val();
        self.pl_ram.raddr.next = self.h0.q.val();
        self.thi_ram.we.next = self.inserting.val();
        self.thi_ram.waddr.next = self.lowest_free.idx.val();
        self.thi_ram.wdata.next = self.ins_thi.val() & self.ins_mask.mask.val();
        self.thi_ram.wbe.next = 1.into();
        self.thi_ram.re.next = self.popping.val();
        self.thi_ram.raddr.next = self.h0.q.val();

        // Outputs.
        self.rd_word.whole.next = self.pl_ram.rdata.val();
        self.out_mask.lanes.next = self.rd_word.parts[1].val();
        self.out_valid.next = self.rd_valid.q.val().any();
        self.out_row.next = 0.into();
        self.out_pc.next = 0.into();
        self.out_lanes.next = 0.into();
        self.out_thi.next = 0.into();
        if self.rd_valid.q.val().any() {
            self.out_row.next = self.rd_row.q.val();
            self.out_pc.next = self.rd_word.parts[0].val();
            self.out_lanes.next = self.rd_word.parts[1].val();
            self.out_thi.next = self.thi_ram.rdata.val() & self.out_mask.mask.val();
        }
        self.ins_row.next = self.lowest_free.idx.val();
        self.full.next = !self.nfree.q.val().any();
        self.ready_count.next = self.count.q.val();
        self.free_count.next = self.nfree.q.val();
        self.occupancy.next = self.rows.val() - self.nfree.q.val();
        self.dbg_state.next = self.state.q.val();
        self.dbg_in_pool.next = self.in_pool.q.val();
        self.dbg_head.next = 0.into();
        if self.count.q.val().any() {
            self.dbg_head.next = self.h0.q.val();
        }
    }
}

/// Verilog of one crown-l2 configuration.
pub fn generate(cfg: &L2Config) -> Design {
    let mut block = L2::new(cfg);
    emit(&mut block, &cfg.module_name())
}
