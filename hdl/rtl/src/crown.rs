//! RTL of crown: the CROWN top (spec/crown.md §3.3–§3.10; contract
//! `warpforge_contract::units::crown`, whose cycle the comments follow). It instantiates the
//! sub-unit blocks as they are — [`Pool`], [`L2`], the Ready and Waiting Lookups and the
//! [`BarrierTable`] — and adds the commit decode, the second level's one-write arbitration
//! (holding register → commit → one transfer, WL > barrier > RL) and the refill/issue glue.
//! Every decision reads start-of-cycle state: the sub-blocks' registered outputs and this
//! cycle's inputs; the sub-blocks' combinational results (probe hits, bypasses, the Waiting
//! Lookup's tag) feed only the second level's write and the outputs.

use crate::crown_barrier::BarrierTable;
use crate::crown_l2::L2;
use crate::crown_lookup::{ReadyLookup, WaitingLookup};
use crate::crown_pool::{LaneSpread, Pool};
use crate::primitives::{emit, Concat, Fixed, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::crown::CrownConfig;

/// Per-lane PC: field `l` (of `pc_bits`) is `a` where `sel[l]`, else `b`.
#[derive(LogicBlock)]
pub struct LanePcMux {
    pub sel: Wire<In>,
    pub a: Wire<In>,
    pub b: Wire<In>,
    pub out: Wire<Out>,
}

impl LanePcMux {
    pub fn new(w: usize, p: usize) -> LanePcMux {
        LanePcMux {
            sel: Wire::new(w),
            a: Wire::new(p),
            b: Wire::new(p),
            out: Wire::new(w * p),
        }
    }
}

impl Logic for LanePcMux {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        let w = self.sel.width();
        let parts: Vec<String> = (0..w)
            .rev()
            .map(|l| format!("(sel[{l}] ? a : b)"))
            .collect();
        Verilog::Custom(format!("always @(*) out = {{{}}};\n", parts.join(", ")))
    }
}

/// The CROWN top.
#[derive(LogicBlock)]
pub struct Crown {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub cmt_valid: Signal<In, Bit>,
    pub cmt_kind: Wire<In>,
    pub cmt_row: Wire<In>,
    pub cmt_pc: Wire<In>,
    pub cmt_lanes: Wire<In>,
    pub cmt_thi: Wire<In>,
    pub cmt_taken: Wire<In>,
    pub cmt_target: Wire<In>,
    pub cmt_rpc: Wire<In>,
    pub cmt_rpc_valid: Signal<In, Bit>,
    pub iss_ready: Signal<In, Bit>,
    pub cta_mask: Wire<In>,
    pub cmt_ready: Signal<Out, Bit>,
    pub cmt_tag_wl: Signal<Out, Bit>,
    pub cmt_tag_row: Wire<Out>,
    pub iss_valid: Signal<Out, Bit>,
    pub iss_row: Wire<Out>,
    pub iss_pc: Wire<Out>,
    pub iss_lanes: Wire<Out>,
    pub iss_thi: Wire<Out>,
    pub ready_count: Wire<Out>,
    pub l2_occupancy: Wire<Out>,
    pub bar_live: Wire<Out>,
    pub hold_valid: Signal<Out, Bit>,
    pub ev_rl_merge: Wire<Out>,
    pub ev_wl_merge: Wire<Out>,
    pub ev_bar_fail: Wire<Out>,
    pub ev_arrive: Wire<Out>,
    pub ev_transfer: Wire<Out>,
    pub dbg_hold: Wire<Out>,
    pub l2_dbg_state: Wire<Out>,
    pub l2_dbg_in_pool: Wire<Out>,
    pub l2_dbg_head: Wire<Out>,
    pub pool_dbg_valid: Wire<Out>,
    pub pool_dbg_last: Wire<Out>,
    pub pool_dbg_slot: Wire<Out>,
    pub rl_dbg_valid: Wire<Out>,
    pub rl_dbg_pc: Wire<Out>,
    pub rl_dbg_lanes: Wire<Out>,
    pub rl_dbg_thi: Wire<Out>,
    pub rl_dbg_ord: Wire<Out>,
    pub wl_dbg_valid: Wire<Out>,
    pub wl_dbg_pc: Wire<Out>,
    pub wl_dbg_lanes: Wire<Out>,
    pub wl_dbg_thi: Wire<Out>,
    pub wl_dbg_ord: Wire<Out>,
    pub wl_dbg_pending: Wire<Out>,
    pub bar_dbg_valid: Wire<Out>,
    pub bar_dbg_complete: Wire<Out>,
    pub bar_dbg_pc: Wire<Out>,
    pub bar_dbg_expected: Wire<Out>,
    pub bar_dbg_arrived: Wire<Out>,
    pub bar_dbg_thi: Wire<Out>,
    pub bar_dbg_ord: Wire<Out>,

    l2: L2,
    pool: Pool,
    rl: ReadyLookup,
    wl: WaitingLookup,
    bar: BarrierTable,
    // The holding register (a second bypass warp).
    h_valid: WordReg,
    h_pc: WordReg,
    h_lanes: WordReg,
    h_thi: WordReg,
    hold_pack: Concat,
    cmt_mask: LaneSpread,
    prb_mux: LanePcMux,
    pool_rows: Fixed,

    // The commit event, decoded.
    taken: Wire<Local>,
    k_launch: Signal<Local, Bit>,
    k_adv: Signal<Local, Bit>,
    k_exit: Signal<Local, Bit>,
    k_load: Signal<Local, Bit>,
    k_cpl: Signal<Local, Bit>,
    k_sync: Signal<Local, Bit>,
    div: Signal<Local, Bit>,
    adv_pc: Wire<Local>,
    thi_m: Wire<Local>,
    ready: Signal<Local, Bit>,
    acc: Signal<Local, Bit>,
    // Arbitration.
    claimed: Signal<Local, Bit>,
    probes: Signal<Local, Bit>,
    x_wl: Signal<Local, Bit>,
    x_bar: Signal<Local, Bit>,
    x_rl: Signal<Local, Bit>,
    hit: Wire<Local>,
    rem: Wire<Local>,
    wl_rem: Wire<Local>,
    issuing: Signal<Local, Bit>,
}

impl Crown {
    pub fn new(cfg: &CrownConfig) -> Crown {
        let c = cfg.common();
        let (w, p, tb, tv) = (c.w, c.pc_bits, c.thi_bits(), c.thi_vec_bits());
        let (rb, l2rb, cb) = (cfg.row_bits(), cfg.l2.row_bits(), cfg.l2.count_bits());
        let (e, n2, pool) = (cfg.bar.entries(), cfg.l2.n2, cfg.pool.pool);
        let (rr, wr) = (cfg.rl.rows, cfg.wl.rows);
        Crown {
            clock: Default::default(),
            reset: Default::default(),
            cmt_valid: Default::default(),
            cmt_kind: Wire::new(3),
            cmt_row: Wire::new(rb),
            cmt_pc: Wire::new(p),
            cmt_lanes: Wire::new(w),
            cmt_thi: Wire::new(tv),
            cmt_taken: Wire::new(w),
            cmt_target: Wire::new(p),
            cmt_rpc: Wire::new(p),
            cmt_rpc_valid: Default::default(),
            iss_ready: Default::default(),
            cta_mask: Wire::new(c.thi_bits()),
            cmt_ready: Default::default(),
            cmt_tag_wl: Default::default(),
            cmt_tag_row: Wire::new(rb),
            iss_valid: Default::default(),
            iss_row: Wire::new(l2rb),
            iss_pc: Wire::new(p),
            iss_lanes: Wire::new(w),
            iss_thi: Wire::new(tv),
            ready_count: Wire::new(cb),
            l2_occupancy: Wire::new(cb),
            bar_live: Wire::new(cfg.bar.count_bits()),
            hold_valid: Default::default(),
            ev_rl_merge: Wire::new(cfg.rl.merge_bits()),
            ev_wl_merge: Wire::new(cfg.wl.merge_bits()),
            ev_bar_fail: Wire::new(cfg.bar.lane_count_bits()),
            ev_arrive: Wire::new(w),
            ev_transfer: Wire::new(2),
            dbg_hold: Wire::new(1 + p + w + tv),
            l2_dbg_state: Wire::new(2 * n2),
            l2_dbg_in_pool: Wire::new(n2),
            l2_dbg_head: Wire::new(l2rb),
            pool_dbg_valid: Wire::new(pool),
            pool_dbg_last: Wire::new(cfg.pool.idx_bits()),
            pool_dbg_slot: Wire::new(pool * cfg.pool.slot_bits()),
            rl_dbg_valid: Wire::new(rr),
            rl_dbg_pc: Wire::new(rr * p),
            rl_dbg_lanes: Wire::new(rr * w),
            rl_dbg_thi: Wire::new(rr * tv),
            rl_dbg_ord: Wire::new(rr * cfg.rl.ord_bits()),
            wl_dbg_valid: Wire::new(wr),
            wl_dbg_pc: Wire::new(wr * p),
            wl_dbg_lanes: Wire::new(wr * w),
            wl_dbg_thi: Wire::new(wr * tv),
            wl_dbg_ord: Wire::new(wr * cfg.wl.ord_bits()),
            wl_dbg_pending: Wire::new(wr * w),
            bar_dbg_valid: Wire::new(e),
            bar_dbg_complete: Wire::new(e),
            bar_dbg_pc: Wire::new(e * p),
            bar_dbg_expected: Wire::new(e * w),
            bar_dbg_arrived: Wire::new(e * w),
            bar_dbg_thi: Wire::new(e * tv),
            bar_dbg_ord: Wire::new(e * cfg.bar.ord_bits()),
            l2: L2::new(&cfg.l2),
            pool: Pool::new(&cfg.pool),
            rl: ReadyLookup::new(&cfg.rl),
            wl: WaitingLookup::new(&cfg.wl),
            bar: BarrierTable::new(&cfg.bar),
            h_valid: WordReg::new(1),
            h_pc: WordReg::new(p),
            h_lanes: WordReg::new(w),
            h_thi: WordReg::new(tv),
            hold_pack: Concat::new(&[1, p, w, tv]),
            cmt_mask: LaneSpread::new(w, tb),
            prb_mux: LanePcMux::new(w, p),
            pool_rows: Fixed::new(pool as u64),
            taken: Wire::new(w),
            k_launch: Default::default(),
            k_adv: Default::default(),
            k_exit: Default::default(),
            k_load: Default::default(),
            k_cpl: Default::default(),
            k_sync: Default::default(),
            div: Default::default(),
            adv_pc: Wire::new(p),
            thi_m: Wire::new(tv),
            ready: Default::default(),
            acc: Default::default(),
            claimed: Default::default(),
            probes: Default::default(),
            x_wl: Default::default(),
            x_bar: Default::default(),
            x_rl: Default::default(),
            hit: Wire::new(w),
            rem: Wire::new(w),
            wl_rem: Wire::new(w),
            issuing: Default::default(),
        }
    }
}

impl Logic for Crown {
    #[hdl_gen]
    fn update(&mut self) {
        self.l2.clock.next = self.clock.val();
        self.l2.reset.next = self.reset.val();
        self.pool.clock.next = self.clock.val();
        self.pool.reset.next = self.reset.val();
        self.rl.clock.next = self.clock.val();
        self.rl.reset.next = self.reset.val();
        self.wl.clock.next = self.clock.val();
        self.wl.reset.next = self.reset.val();
        self.bar.clock.next = self.clock.val();
        self.bar.reset.next = self.reset.val();
        self.h_valid.clock.next = self.clock.val();
        self.h_valid.reset.next = self.reset.val();
        self.h_pc.clock.next = self.clock.val();
        self.h_pc.reset.next = self.reset.val();
        self.h_lanes.clock.next = self.clock.val();
        self.h_lanes.reset.next = self.reset.val();
        self.h_thi.clock.next = self.clock.val();
        self.h_thi.reset.next = self.reset.val();

        // 1. The commit event: a branch whose lanes all go one way is an advance.
        self.cmt_mask.lanes.next = self.cmt_lanes.val();
        self.thi_m.next = self.cmt_thi.val() & self.cmt_mask.mask.val();
        self.taken.next = self.cmt_taken.val() & self.cmt_lanes.val();
        self.div.next = (self.cmt_kind.val() == 2)
            & self.taken.val().any()
            & (self.taken.val() != self.cmt_lanes.val());
        self.k_launch.next = self.cmt_kind.val() == 0;
        self.k_adv.next =
            (self.cmt_kind.val() == 1) | ((self.cmt_kind.val() == 2) & !self.div.val());
        self.k_exit.next = self.cmt_kind.val() == 3;
        self.k_load.next = self.cmt_kind.val() == 4;
        self.k_cpl.next = self.cmt_kind.val() == 5;
        self.k_sync.next = self.cmt_kind.val() == 6;
        self.adv_pc.next = self.cmt_pc.val();
        if (self.cmt_kind.val() == 2) & self.taken.val().any() & !self.div.val() {
            self.adv_pc.next = self.cmt_target.val();
        }
        self.ready.next = !self.h_valid.q.val().any()
            & !((self.k_launch.val() | self.div.val()) & self.l2.full.val());
        self.acc.next = self.cmt_valid.val() & self.ready.val();
        self.cmt_ready.next = self.acc.val();

        // 2. Who writes the second level; one transfer when nobody else does.
        self.claimed.next = self.h_valid.q.val().any()
            | (self.acc.val()
                & (self.k_launch.val()
                    | self.k_adv.val()
                    | self.k_exit.val()
                    | self.k_sync.val()
                    | self.div.val()));
        self.probes.next = self.acc.val() & (self.k_adv.val() | self.k_exit.val() | self.div.val());
        self.x_wl.next = !self.claimed.val()
            & !self.l2.full.val()
            & self.wl.head_valid.val()
            & !self.probes.val();
        self.x_bar.next = !self.claimed.val()
            & !self.l2.full.val()
            & !self.x_wl.val()
            & self.bar.head_valid.val()
            & (self.l2.ready_count.val() == 0);
        self.x_rl.next = !self.claimed.val()
            & !self.l2.full.val()
            & !self.x_wl.val()
            & !self.x_bar.val()
            & self.rl.head_valid.val()
            & (self.l2.ready_count.val() < 2);
        self.ev_transfer.next = 0.into();
        if self.x_wl.val() {
            self.ev_transfer.next = 1.into();
        }
        if self.x_bar.val() {
            self.ev_transfer.next = 2.into();
        }
        if self.x_rl.val() {
            self.ev_transfer.next = 3.into();
        }

        // 3. Barriers: reserve for a divergent branch, the arrival check, the drain.
        self.bar.rsv_valid.next = self.acc.val() & self.div.val() & self.cmt_rpc_valid.val();
        self.bar.rsv_pc.next = self.cmt_rpc.val();
        self.bar.rsv_lanes.next = self.cmt_lanes.val();
        self.bar.rsv_thi.next = self.thi_m.val();
        self.prb_mux.sel.next = 0.into();
        self.prb_mux.a.next = self.cmt_target.val();
        self.prb_mux.b.next = self.adv_pc.val();
        self.bar.prb_lanes.next = 0.into();
        self.bar.prb_thi.next = self.thi_m.val();
        if self.probes.val() {
            self.bar.prb_lanes.next = self.cmt_lanes.val();
            if self.k_exit.val() {
                self.bar.prb_lanes.next = self.cmt_lanes.val() & !self.taken.val();
            }
            if self.div.val() {
                self.prb_mux.sel.next = self.taken.val();
            }
        } else if self.x_wl.val() {
            self.bar.prb_lanes.next = self.wl.head_lanes.val();
            self.bar.prb_thi.next = self.wl.head_thi.val();
            self.prb_mux.b.next = self.wl.head_pc.val();
        }
        self.bar.prb_pc.next = self.prb_mux.out.val();
        self.bar.drain.next = self.x_bar.val();
        self.hit.next = self.bar.prb_hit.val();
        self.ev_arrive.next = self.bar.prb_hit.val();
        self.ev_bar_fail.next = self.bar.rsv_fail.val();

        // 4. Ready Lookup: the surviving paths, fall-through first.
        self.rl.ins0_valid.next = self.acc.val()
            & self.div.val()
            & (self.cmt_lanes.val() & !self.taken.val() & !self.hit.val()).any();
        self.rl.ins0_pc.next = self.cmt_pc.val();
        self.rl.ins0_lanes.next = self.cmt_lanes.val() & !self.taken.val() & !self.hit.val();
        self.rl.ins0_thi.next = self.thi_m.val();
        self.rl.ins1_valid.next =
            self.acc.val() & self.div.val() & (self.taken.val() & !self.hit.val()).any();
        self.rl.ins1_pc.next = self.cmt_target.val();
        self.rl.ins1_lanes.next = self.taken.val() & !self.hit.val();
        self.rl.ins1_thi.next = self.thi_m.val();
        self.rl.drain.next = self.x_rl.val();
        self.rl.cta_mask.next = self.cta_mask.val();
        self.ev_rl_merge.next = self.rl.ev_merge.val();

        // 5. Waiting Lookup: a load's insert, a completion, the drain.
        self.wl.ins0_valid.next = self.acc.val() & self.k_load.val();
        self.wl.ins0_pc.next = self.cmt_pc.val();
        self.wl.ins0_lanes.next = self.cmt_lanes.val();
        self.wl.ins0_thi.next = self.thi_m.val();
        self.wl.cpl_valid.next = self.acc.val() & self.k_cpl.val();
        self.wl.cpl_row.next = self.cmt_row.val();
        self.wl.cpl_lanes.next = self.cmt_taken.val();
        self.wl.drain.next = self.x_wl.val();
        self.wl.cta_mask.next = self.cta_mask.val();
        self.ev_wl_merge.next = self.wl.ev_merge.val();
        self.cmt_tag_wl.next = self.acc.val() & self.k_load.val() & self.wl.ins_ok.val();
        self.cmt_tag_row.next = 0.into();
        if self.acc.val() & self.k_load.val() {
            self.cmt_tag_row.next = self.cmt_row.val();
            if self.wl.ins_ok.val() {
                self.cmt_tag_row.next = self.wl.ins_row.val();
            }
        }

        // 6. The second level: one insert (hold, commit, bypass or transfer), one update.
        self.rem.next = self.cmt_lanes.val() & !self.hit.val();
        if self.k_exit.val() {
            self.rem.next = self.cmt_lanes.val() & !self.taken.val() & !self.hit.val();
        }
        self.wl_rem.next = self.wl.head_lanes.val() & !self.hit.val();
        self.l2.ins_valid.next = false;
        self.l2.ins_pc.next = self.cmt_pc.val();
        self.l2.ins_lanes.next = self.cmt_lanes.val();
        self.l2.ins_thi.next = self.thi_m.val();
        self.h_valid.d.next = 0.into();
        self.h_pc.d.next = self.h_pc.q.val();
        self.h_lanes.d.next = self.h_lanes.q.val();
        self.h_thi.d.next = self.h_thi.q.val();
        if self.h_valid.q.val().any() {
            self.l2.ins_valid.next = true;
            self.l2.ins_pc.next = self.h_pc.q.val();
            self.l2.ins_lanes.next = self.h_lanes.q.val();
            self.l2.ins_thi.next = self.h_thi.q.val();
        } else if self.acc.val() & self.k_launch.val() {
            self.l2.ins_valid.next = true;
        } else if self.acc.val() & self.div.val() & self.rl.byp0_valid.val() {
            self.l2.ins_valid.next = true;
            self.l2.ins_pc.next = self.rl.byp0_pc.val();
            self.l2.ins_lanes.next = self.rl.byp0_lanes.val();
            self.l2.ins_thi.next = self.rl.byp0_thi.val();
            if self.rl.byp1_valid.val() {
                self.h_valid.d.next = 1.into();
                self.h_pc.d.next = self.rl.byp1_pc.val();
                self.h_lanes.d.next = self.rl.byp1_lanes.val();
                self.h_thi.d.next = self.rl.byp1_thi.val();
            }
        } else if self.acc.val() & self.div.val() & self.rl.byp1_valid.val() {
            self.l2.ins_valid.next = true;
            self.l2.ins_pc.next = self.rl.byp1_pc.val();
            self.l2.ins_lanes.next = self.rl.byp1_lanes.val();
            self.l2.ins_thi.next = self.rl.byp1_thi.val();
        } else if self.x_wl.val() {
            self.l2.ins_valid.next = self.wl_rem.val().any();
            self.l2.ins_pc.next = self.wl.head_pc.val();
            self.l2.ins_lanes.next = self.wl_rem.val();
            self.l2.ins_thi.next = self.wl.head_thi.val();
        } else if self.x_bar.val() {
            self.l2.ins_valid.next = true;
            self.l2.ins_pc.next = self.bar.head_pc.val();
            self.l2.ins_lanes.next = self.bar.head_lanes.val();
            self.l2.ins_thi.next = self.bar.head_thi.val();
        } else if self.x_rl.val() {
            self.l2.ins_valid.next = true;
            self.l2.ins_pc.next = self.rl.head_pc.val();
            self.l2.ins_lanes.next = self.rl.head_lanes.val();
            self.l2.ins_thi.next = self.rl.head_thi.val();
        }
        self.l2.upd_valid.next = self.acc.val()
            & (self.k_adv.val()
                | self.k_exit.val()
                | self.div.val()
                | self.k_sync.val()
                | (self.k_load.val() & self.wl.ins_ok.val()));
        self.l2.upd_row.next = self.cmt_row.val();
        self.l2.upd_state.next = 0.into();
        self.l2.upd_wr.next = false;
        self.l2.upd_pc.next = self.adv_pc.val();
        self.l2.upd_lanes.next = self.rem.val();
        if (self.k_adv.val() | self.k_exit.val()) & self.rem.val().any() {
            self.l2.upd_state.next = 1.into();
            self.l2.upd_wr.next = true;
        }
        if self.k_sync.val() {
            self.l2.upd_state.next = 3.into();
            self.l2.upd_wr.next = true;
            self.l2.upd_pc.next = self.cmt_pc.val();
            self.l2.upd_lanes.next = self.cmt_lanes.val();
        }

        // 7. Refill (last cycle's read into the pool) and issue.
        self.l2.pop.next = (self.l2.ready_count.val() != 0)
            & (self.pool.count.val() < self.pool_rows.val())
            & (!self.l2.out_valid.val() | ((self.pool.count.val() + 1) < self.pool_rows.val()));
        self.pool.ref_valid.next = self.l2.out_valid.val();
        self.pool.ref_pc.next = self.l2.out_pc.val();
        self.pool.ref_lanes.next = self.l2.out_lanes.val();
        self.pool.ref_thi.next = self.l2.out_thi.val();
        self.pool.ref_slot.next = self.l2.out_row.val();
        self.issuing.next = self.iss_ready.val() & self.pool.sel_valid.val();
        self.pool.issue.next = self.issuing.val();
        self.l2.iss_valid.next = self.issuing.val();
        self.l2.iss_row.next = self.pool.sel_slot.val();

        // Outputs.
        self.iss_valid.next = self.pool.sel_valid.val();
        self.iss_row.next = self.pool.sel_slot.val();
        self.iss_pc.next = self.pool.sel_pc.val();
        self.iss_lanes.next = self.pool.sel_lanes.val();
        self.iss_thi.next = self.pool.sel_thi.val();
        self.ready_count.next = self.l2.ready_count.val();
        self.l2_occupancy.next = self.l2.occupancy.val();
        self.bar_live.next = self.bar.live.val();
        self.hold_valid.next = self.h_valid.q.val().any();
        self.hold_pack.parts[0].next = self.h_valid.q.val();
        self.hold_pack.parts[1].next = self.h_pc.q.val();
        self.hold_pack.parts[2].next = self.h_lanes.q.val();
        self.hold_pack.parts[3].next = self.h_thi.q.val();
        self.dbg_hold.next = 0.into();
        if self.h_valid.q.val().any() {
            self.dbg_hold.next = self.hold_pack.whole.val();
        }
        self.l2_dbg_state.next = self.l2.dbg_state.val();
        self.l2_dbg_in_pool.next = self.l2.dbg_in_pool.val();
        self.l2_dbg_head.next = self.l2.dbg_head.val();
        self.pool_dbg_valid.next = self.pool.dbg_valid.val();
        self.pool_dbg_last.next = self.pool.dbg_last.val();
        self.pool_dbg_slot.next = self.pool.dbg_slot.val();
        self.rl_dbg_valid.next = self.rl.dbg_valid.val();
        self.rl_dbg_pc.next = self.rl.dbg_pc.val();
        self.rl_dbg_lanes.next = self.rl.dbg_lanes.val();
        self.rl_dbg_thi.next = self.rl.dbg_thi.val();
        self.rl_dbg_ord.next = self.rl.dbg_ord.val();
        self.wl_dbg_valid.next = self.wl.dbg_valid.val();
        self.wl_dbg_pc.next = self.wl.dbg_pc.val();
        self.wl_dbg_lanes.next = self.wl.dbg_lanes.val();
        self.wl_dbg_thi.next = self.wl.dbg_thi.val();
        self.wl_dbg_ord.next = self.wl.dbg_ord.val();
        self.wl_dbg_pending.next = self.wl.dbg_pending.val();
        self.bar_dbg_valid.next = self.bar.dbg_valid.val();
        self.bar_dbg_complete.next = self.bar.dbg_complete.val();
        self.bar_dbg_pc.next = self.bar.dbg_pc.val();
        self.bar_dbg_expected.next = self.bar.dbg_expected.val();
        self.bar_dbg_arrived.next = self.bar.dbg_arrived.val();
        self.bar_dbg_thi.next = self.bar.dbg_thi.val();
        self.bar_dbg_ord.next = self.bar.dbg_ord.val();
    }
}

/// Verilog of one crown configuration. The glue between the tables drives their inputs and
/// reads their outputs in one `update`; its blocks are split into independent ones so that
/// Verilator sees no loop through the tables (`comb_split`).
pub fn generate(cfg: &CrownConfig) -> Design {
    let mut block = Crown::new(cfg);
    let mut d = emit(&mut block, &cfg.module_name());
    d.verilog = crate::comb_split::split_comb_blocks(&d.verilog);
    d
}
