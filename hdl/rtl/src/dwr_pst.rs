//! RTL of dwr-pst: DWR's Partner-Synch Table (spec/dwr.md §2.7, §3.4, §3.5; contract
//! `warpforge_contract::units::dwr_pst`).
//!
//! One row per partner group: `valid`, `pc`, `lock[W]`. Per cycle, for every row `n` in
//! parallel:
//! 1. arrival (one read-modify-write port): the acting `bar.synch_partner` of sub-warp
//!    `arr_sw` (group `arr_sw / W`, bit `arr_sw mod W`) unless its PC hit in the ILT: an
//!    invalid row opens with `arr_pc`; a valid row sets the lock bit, and a PC different from
//!    the row's (the one 32-bit comparator of §2.7) is a mismatch;
//! 2. release, Eq. 5-1 as corrected (A1) with rule D4: the row as left by step 1 releases when
//!    it is valid and every member has arrived (`¬sw_valid ∨ lock ∨ sw_blockbar`, a W-input
//!    AND); its locked members are released and the row is cleared.
//!
//! The composite `dwr` unit embeds this block and drives `sw_valid`/`sw_blockbar` from its
//! sub-warp states after the cycle's issue, writebacks, block releases and launches.

use crate::primitives::{emit, Concat, Fixed, Split, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::dwr::Geometry;
use warpforge_contract::units::dwr_pst::PstConfig;

#[derive(LogicBlock)]
pub struct Pst {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub arr_valid: Signal<In, Bit>,
    pub arr_sw: Wire<In>,
    pub arr_pc: Wire<In>,
    pub arr_hit: Signal<In, Bit>,
    pub sw_valid: Wire<In>,
    pub sw_blockbar: Wire<In>,
    pub arr_mismatch: Signal<Out, Bit>,
    pub rel: Wire<Out>,
    pub rel_d4: Wire<Out>,
    pub released: Wire<Out>,
    pub dbg_valid: Wire<Out>,
    pub dbg_pc: Wire<Out>,
    pub dbg_lock: Wire<Out>,

    // State: the rows.
    row_valid: Vec<WordReg>,
    row_pc: Vec<WordReg>,
    row_lock: Vec<WordReg>,

    // Generation-time constants.
    subwarps: Fixed,
    member_shift: Fixed,
    member_mask: Fixed,
    one: Fixed,

    // Per-group views of the per-sub-warp inputs, and packing of the per-row results.
    valid_rows: Split,
    blockbar_rows: Split,
    rel_pack: Concat,
    rel_d4_pack: Concat,
    released_pack: Concat,
    dbg_valid_pack: Concat,
    dbg_pc_pack: Concat,
    dbg_lock_pack: Concat,

    // The arrival, decoded.
    arriving: Signal<Local, Bit>,
    arr_group: Wire<Local>,
    arr_bit: Wire<Local>,
    mismatch: Signal<Local, Bit>,
    // Row n after step 1, and its members' arrival; reused for every row in turn.
    here: Signal<Local, Bit>,
    valid1: Signal<Local, Bit>,
    pc1: Wire<Local>,
    lock1: Wire<Local>,
    arrived: Wire<Local>,
    releasing: Signal<Local, Bit>,
}

impl Pst {
    pub fn new(g: &Geometry) -> Pst {
        let (n, m, w, p) = (g.subwarps(), g.groups(), g.group_size, g.pc_bits);
        let regs = |width: usize| (0..m).map(|_| WordReg::new(width)).collect::<Vec<_>>();
        Pst {
            clock: Default::default(),
            reset: Default::default(),
            arr_valid: Default::default(),
            arr_sw: Wire::new(g.subwarp_bits()),
            arr_pc: Wire::new(p),
            arr_hit: Default::default(),
            sw_valid: Wire::new(n),
            sw_blockbar: Wire::new(n),
            arr_mismatch: Default::default(),
            rel: Wire::new(m),
            rel_d4: Wire::new(m),
            released: Wire::new(n),
            dbg_valid: Wire::new(m),
            dbg_pc: Wire::new(m * p),
            dbg_lock: Wire::new(m * w),
            row_valid: regs(1),
            row_pc: regs(p),
            row_lock: regs(w),
            subwarps: Fixed::new(n as u64),
            member_shift: Fixed::new(g.member_bits() as u64),
            member_mask: Fixed::new(w as u64 - 1),
            one: Fixed::new(1),
            valid_rows: Split::new(&vec![w; m]),
            blockbar_rows: Split::new(&vec![w; m]),
            rel_pack: Concat::new(&vec![1; m]),
            rel_d4_pack: Concat::new(&vec![1; m]),
            released_pack: Concat::new(&vec![w; m]),
            dbg_valid_pack: Concat::new(&vec![1; m]),
            dbg_pc_pack: Concat::new(&vec![p; m]),
            dbg_lock_pack: Concat::new(&vec![w; m]),
            arriving: Default::default(),
            arr_group: Wire::new(g.group_bits()),
            arr_bit: Wire::new(w),
            mismatch: Default::default(),
            here: Default::default(),
            valid1: Default::default(),
            pc1: Wire::new(p),
            lock1: Wire::new(w),
            arrived: Wire::new(w),
            releasing: Default::default(),
        }
    }
}

impl Logic for Pst {
    #[hdl_gen]
    fn update(&mut self) {
        for n in 0..self.row_valid.len() {
            self.row_valid[n].clock.next = self.clock.val();
            self.row_valid[n].reset.next = self.reset.val();
            self.row_pc[n].clock.next = self.clock.val();
            self.row_pc[n].reset.next = self.reset.val();
            self.row_lock[n].clock.next = self.clock.val();
            self.row_lock[n].reset.next = self.reset.val();
        }
        self.valid_rows.whole.next = self.sw_valid.val();
        self.blockbar_rows.whole.next = self.sw_blockbar.val();

        // The arrival: an ILT hit bypasses the table (I-BYPASS); a sub-warp ≥ N is none.
        self.arriving.next =
            self.arr_valid.val() & !self.arr_hit.val() & (self.arr_sw.val() < self.subwarps.val());
        self.arr_group.next = self.arr_sw.val() >> self.member_shift.val();
        self.arr_bit.next = self.one.val() << (self.arr_sw.val() & self.member_mask.val());
        self.mismatch.next = false;

        self.here.next = false;
        self.valid1.next = false;
        self.pc1.next = 0.into();
        self.lock1.next = 0.into();
        self.arrived.next = 0.into();
        self.releasing.next = false;
        for n in 0..self.row_valid.len() {
            // 1. Arrival: open, lock, or lock with a PC mismatch (row PC kept, A4).
            self.here.next = self.arriving.val() & (self.arr_group.val() == n);
            self.valid1.next = self.row_valid[n].q.val().any() | self.here.val();
            self.pc1.next = self.row_pc[n].q.val();
            self.lock1.next = self.row_lock[n].q.val();
            if self.here.val() {
                self.lock1.next = self.row_lock[n].q.val() | self.arr_bit.val();
                if self.row_valid[n].q.val().any() {
                    if self.row_pc[n].q.val() != self.arr_pc.val() {
                        self.mismatch.next = true;
                    }
                } else {
                    self.pc1.next = self.arr_pc.val();
                }
            }
            // 2. Release (Eq. 5-1 with D4): every member exited, locked or in __syncthreads.
            self.arrived.next = !self.valid_rows.parts[n].val()
                | self.lock1.val()
                | self.blockbar_rows.parts[n].val();
            self.releasing.next = self.valid1.val() & self.arrived.val().all();
            self.rel_pack.parts[n].next = self.releasing.val().into();
            self.rel_d4_pack.parts[n].next = (self.releasing.val()
                & (self.valid_rows.parts[n].val()
                    & self.blockbar_rows.parts[n].val()
                    & !self.lock1.val())
                .any())
            .into();
            self.released_pack.parts[n].next = 0.into();
            self.row_valid[n].d.next = self.valid1.val().into();
            self.row_pc[n].d.next = self.pc1.val();
            self.row_lock[n].d.next = self.lock1.val();
            if self.releasing.val() {
                // Locked members become COMBINE_READY; the episode ends (A6).
                self.released_pack.parts[n].next = self.lock1.val();
                self.row_valid[n].d.next = false.into();
                self.row_lock[n].d.next = 0.into();
            }

            // State digest: an invalid row reads 0.
            self.dbg_valid_pack.parts[n].next = self.row_valid[n].q.val();
            self.dbg_pc_pack.parts[n].next = 0.into();
            self.dbg_lock_pack.parts[n].next = 0.into();
            if self.row_valid[n].q.val().any() {
                self.dbg_pc_pack.parts[n].next = self.row_pc[n].q.val();
                self.dbg_lock_pack.parts[n].next = self.row_lock[n].q.val();
            }
        }

        self.arr_mismatch.next = self.mismatch.val();
        self.rel.next = self.rel_pack.whole.val();
        self.rel_d4.next = self.rel_d4_pack.whole.val();
        self.released.next = self.released_pack.whole.val();
        self.dbg_valid.next = self.dbg_valid_pack.whole.val();
        self.dbg_pc.next = self.dbg_pc_pack.whole.val();
        self.dbg_lock.next = self.dbg_lock_pack.whole.val();
    }
}

/// Verilog of one dwr-pst configuration.
pub fn generate(cfg: &PstConfig) -> Design {
    let mut block = Pst::new(&cfg.geometry);
    emit(&mut block, &cfg.module_name())
}
