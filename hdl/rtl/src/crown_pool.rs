//! RTL of crown-pool: CROWN's issue pool (spec/crown.md §3.4.1, §3.9 steps 4–5; contract
//! `warpforge_contract::units::crown_pool`).
//!
//! `pool` entries in flip-flops (at most 16). Per cycle, from the registered entries:
//! - the lowest free entry takes a refill (`ref_*`, thread indices of lanes outside the
//!   mask zeroed by [`LaneSpread`]);
//! - loose round-robin: the selected entry is the first valid one after `last` (the entry
//!   issued most recently), found as "the lowest valid entry above `last`, else the lowest
//!   valid entry" — two priority chains rather than a rotate;
//! - `issue` frees the selected entry at the edge and makes it `last`.
//!
//! The `crown` top instantiates [`Pool`] as is.

use crate::primitives::{emit, Concat, Fixed, Wire, WordReg, WordRegInit};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::crown_pool::PoolConfig;

/// Per-lane thread-index mask of a lane mask: `mask` has `lanes[l]` replicated over bits
/// `l·tb … l·tb+tb−1`. Used to store thread indices as zero outside a warp's lanes.
#[derive(LogicBlock)]
pub struct LaneSpread {
    pub lanes: Wire<In>,
    pub mask: Wire<Out>,
}

impl LaneSpread {
    pub fn new(w: usize, tb: usize) -> LaneSpread {
        LaneSpread {
            lanes: Wire::new(w),
            mask: Wire::new(w * tb),
        }
    }
}

impl Logic for LaneSpread {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.mask.connect();
    }
    fn hdl(&self) -> Verilog {
        let w = self.lanes.width();
        let tb = self.mask.width() / w;
        let parts: Vec<String> = (0..w)
            .rev()
            .map(|l| format!("{{{tb}{{lanes[{l}]}}}}"))
            .collect();
        Verilog::Custom(format!("always @(*) mask = {{{}}};\n", parts.join(", ")))
    }
}

/// The issue pool.
#[derive(LogicBlock)]
pub struct Pool {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ref_valid: Signal<In, Bit>,
    pub ref_pc: Wire<In>,
    pub ref_lanes: Wire<In>,
    pub ref_thi: Wire<In>,
    pub ref_slot: Wire<In>,
    pub issue: Signal<In, Bit>,
    pub has_free: Signal<Out, Bit>,
    pub sel_valid: Signal<Out, Bit>,
    pub sel_idx: Wire<Out>,
    pub sel_pc: Wire<Out>,
    pub sel_lanes: Wire<Out>,
    pub sel_thi: Wire<Out>,
    pub sel_slot: Wire<Out>,
    pub count: Wire<Out>,
    pub dbg_valid: Wire<Out>,
    pub dbg_last: Wire<Out>,
    pub dbg_slot: Wire<Out>,

    // State.
    ent_valid: Vec<WordReg>,
    ent_pc: Vec<WordReg>,
    ent_lanes: Vec<WordReg>,
    ent_thi: Vec<WordReg>,
    ent_slot: Vec<WordReg>,
    last: WordRegInit,

    ref_mask: LaneSpread,
    valid_pack: Concat,
    slot_pack: Concat,

    // Decisions of this cycle.
    free_found: Signal<Local, Bit>,
    free_idx: Wire<Local>,
    found: Signal<Local, Bit>,
    sel: Wire<Local>,
    filling: Signal<Local, Bit>,
    issuing: Signal<Local, Bit>,
    cnt: Wire<Local>,
    zero_idx: Fixed,
}

impl Pool {
    pub fn new(cfg: &PoolConfig) -> Pool {
        let c = &cfg.common;
        let (e, ib, sb, p, w, tv) = (
            cfg.pool,
            cfg.idx_bits(),
            cfg.slot_bits(),
            c.pc_bits,
            c.w,
            c.thi_vec_bits(),
        );
        let regs = |width: usize| (0..e).map(|_| WordReg::new(width)).collect::<Vec<_>>();
        Pool {
            clock: Default::default(),
            reset: Default::default(),
            ref_valid: Default::default(),
            ref_pc: Wire::new(p),
            ref_lanes: Wire::new(w),
            ref_thi: Wire::new(tv),
            ref_slot: Wire::new(sb),
            issue: Default::default(),
            has_free: Default::default(),
            sel_valid: Default::default(),
            sel_idx: Wire::new(ib),
            sel_pc: Wire::new(p),
            sel_lanes: Wire::new(w),
            sel_thi: Wire::new(tv),
            sel_slot: Wire::new(sb),
            count: Wire::new(cfg.count_bits()),
            dbg_valid: Wire::new(e),
            dbg_last: Wire::new(ib),
            dbg_slot: Wire::new(e * sb),
            ent_valid: regs(1),
            ent_pc: regs(p),
            ent_lanes: regs(w),
            ent_thi: regs(tv),
            ent_slot: regs(sb),
            last: WordRegInit::new(ib, (e - 1) as u64),
            ref_mask: LaneSpread::new(w, c.thi_bits()),
            valid_pack: Concat::new(&vec![1; e]),
            slot_pack: Concat::new(&vec![sb; e]),
            free_found: Default::default(),
            free_idx: Wire::new(ib),
            found: Default::default(),
            sel: Wire::new(ib),
            filling: Default::default(),
            issuing: Default::default(),
            cnt: Wire::new(cfg.count_bits()),
            zero_idx: Fixed::new(0),
        }
    }
}

impl Logic for Pool {
    #[hdl_gen]
    fn update(&mut self) {
        for e in 0..self.ent_valid.len() {
            self.ent_valid[e].clock.next = self.clock.val();
            self.ent_valid[e].reset.next = self.reset.val();
            self.ent_pc[e].clock.next = self.clock.val();
            self.ent_pc[e].reset.next = self.reset.val();
            self.ent_lanes[e].clock.next = self.clock.val();
            self.ent_lanes[e].reset.next = self.reset.val();
            self.ent_thi[e].clock.next = self.clock.val();
            self.ent_thi[e].reset.next = self.reset.val();
            self.ent_slot[e].clock.next = self.clock.val();
            self.ent_slot[e].reset.next = self.reset.val();
        }
        self.last.clock.next = self.clock.val();
        self.last.reset.next = self.reset.val();
        self.ref_mask.lanes.next = self.ref_lanes.val();

        // The lowest free entry, and the count of valid ones.
        self.free_found.next = false;
        self.free_idx.next = self.zero_idx.val();
        self.cnt.next = self.zero_idx.val();
        for e in 0..self.ent_valid.len() {
            if self.ent_valid[e].q.val().any() {
                self.cnt.next = self.cnt.val() + 1;
            } else if !self.free_found.val() {
                self.free_found.next = true;
                self.free_idx.next = e.into();
            }
        }

        // LRR: the lowest valid entry above `last`, else the lowest valid entry.
        self.found.next = false;
        self.sel.next = self.zero_idx.val();
        self.sel_pc.next = 0.into();
        self.sel_lanes.next = 0.into();
        self.sel_thi.next = 0.into();
        self.sel_slot.next = 0.into();
        // (Entry 0 is never above `last`.)
        for e in 1..self.ent_valid.len() {
            if self.ent_valid[e].q.val().any() & (self.last.q.val() < e) & !self.found.val() {
                self.found.next = true;
                self.sel.next = e.into();
                self.sel_pc.next = self.ent_pc[e].q.val();
                self.sel_lanes.next = self.ent_lanes[e].q.val();
                self.sel_thi.next = self.ent_thi[e].q.val();
                self.sel_slot.next = self.ent_slot[e].q.val();
            }
        }
        for e in 0..self.ent_valid.len() {
            if self.ent_valid[e].q.val().any() & !self.found.val() {
                self.found.next = true;
                self.sel.next = e.into();
                self.sel_pc.next = self.ent_pc[e].q.val();
                self.sel_lanes.next = self.ent_lanes[e].q.val();
                self.sel_thi.next = self.ent_thi[e].q.val();
                self.sel_slot.next = self.ent_slot[e].q.val();
            }
        }

        self.filling.next = self.ref_valid.val() & self.free_found.val();
        self.issuing.next = self.issue.val() & self.found.val();
        self.last.d.next = self.last.q.val();
        if self.issuing.val() {
            self.last.d.next = self.sel.val();
        }
        for e in 0..self.ent_valid.len() {
            self.ent_valid[e].d.next = self.ent_valid[e].q.val();
            self.ent_pc[e].d.next = self.ent_pc[e].q.val();
            self.ent_lanes[e].d.next = self.ent_lanes[e].q.val();
            self.ent_thi[e].d.next = self.ent_thi[e].q.val();
            self.ent_slot[e].d.next = self.ent_slot[e].q.val();
            if self.filling.val() & (self.free_idx.val() == e) {
                self.ent_valid[e].d.next = true.into();
                self.ent_pc[e].d.next = self.ref_pc.val();
                self.ent_lanes[e].d.next = self.ref_lanes.val();
                self.ent_thi[e].d.next = self.ref_thi.val() & self.ref_mask.mask.val();
                self.ent_slot[e].d.next = self.ref_slot.val();
            }
            if self.issuing.val() & (self.sel.val() == e) {
                self.ent_valid[e].d.next = false.into();
            }
            self.valid_pack.parts[e].next = self.ent_valid[e].q.val();
            self.slot_pack.parts[e].next = 0.into();
            if self.ent_valid[e].q.val().any() {
                self.slot_pack.parts[e].next = self.ent_slot[e].q.val();
            }
        }

        self.has_free.next = self.free_found.val();
        self.sel_valid.next = self.found.val();
        self.sel_idx.next = self.sel.val();
        self.count.next = self.cnt.val();
        self.dbg_valid.next = self.valid_pack.whole.val();
        self.dbg_last.next = self.last.q.val();
        self.dbg_slot.next = self.slot_pack.whole.val();
    }
}

/// Verilog of one crown-pool configuration.
pub fn generate(cfg: &PoolConfig) -> Design {
    let mut block = Pool::new(cfg);
    emit(&mut block, &cfg.module_name())
}
