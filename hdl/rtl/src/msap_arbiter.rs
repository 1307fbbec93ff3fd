//! RTL of msap-arbiter: MSAA's priority round-robin arbiter (spec/msap.md §2.6, ageing §2.7;
//! contract `warpforge_contract::units::msap_arbiter`).
//!
//! [`PrioArb`] is the reusable block: the router instantiates one per arbitration point
//! (every instance is its own Verilog module). [`MsapArbiter`] is the unit, the block with its
//! ports brought out. Per cycle, combinationally from `req`, `pl` and the registered state:
//! effective levels (PL, or the urgent level once a requester has lost `age_thresh` rounds),
//! their maximum `m` over the requesters, the start pointer `ptr[m]` (one multiplexer over
//! the levels), and the winner as "the lowest requester at level m above the pointer, else the
//! lowest at level m" — two priority chains rather than a rotator. On `commit` the pointer of
//! level m (or the one pointer) takes the winner and the loss counters move.

use crate::primitives::{emit, Concat, Fixed, SplitAny, Wire, WordReg, WordRegInit};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::msap_arbiter::ArbiterConfig;

/// The priority round-robin arbiter.
#[derive(LogicBlock)]
pub struct PrioArb {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub req: Wire<In>,
    pub pl: Wire<In>,
    pub commit: Signal<In, Bit>,
    pub gnt_valid: Signal<Out, Bit>,
    pub gnt: Wire<Out>,
    pub gnt_idx: Wire<Out>,
    pub gnt_lvl: Wire<Out>,
    pub dbg_ptr: Wire<Out>,
    pub dbg_lost: Wire<Out>,

    // State.
    ptr: Vec<WordRegInit>,
    lost: Vec<WordReg>,

    pls: SplitAny,
    ptr_pack: Concat,
    lost_pack: Concat,

    // This cycle.
    lvl: Vec<Wire<Local>>,
    m: Wire<Local>,
    start: Wire<Local>,
    found: Signal<Local, Bit>,
    g: Wire<Local>,
    upd: Signal<Local, Bit>,
    unit: Wire<Local>,
    msaa: Fixed,
    single_ptr: Fixed,
    thresh: Fixed,
    urgent_lvl: Fixed,
    lost_max: Fixed,
}

impl PrioArb {
    pub fn new(cfg: &ArbiterConfig) -> PrioArb {
        let (n, ib, lb, lob) = (cfg.n, cfg.idx_bits(), cfg.lvl_bits(), cfg.lost_bits());
        let nlost = if cfg.ageing() { n } else { 0 };
        PrioArb {
            clock: Default::default(),
            reset: Default::default(),
            req: Wire::new(n),
            pl: Wire::new(n * cfg.pl_bits),
            commit: Default::default(),
            gnt_valid: Default::default(),
            gnt: Wire::new(n),
            gnt_idx: Wire::new(ib),
            gnt_lvl: Wire::new(lb),
            dbg_ptr: Wire::new(cfg.ptrs() * ib),
            dbg_lost: Wire::new((n * lob).max(1)),
            ptr: (0..cfg.ptrs())
                .map(|_| WordRegInit::new(ib, (n - 1) as u64))
                .collect(),
            lost: (0..nlost).map(|_| WordReg::new(lob)).collect(),
            pls: SplitAny::new(&vec![cfg.pl_bits; n]),
            ptr_pack: Concat::new(&vec![ib; cfg.ptrs()]),
            lost_pack: Concat::new(&vec![lob.max(1); nlost.max(1)]),
            lvl: (0..n).map(|_| Wire::new(lb)).collect(),
            m: Wire::new(lb),
            start: Wire::new(ib),
            found: Default::default(),
            g: Wire::new(ib),
            upd: Default::default(),
            unit: Wire::new(n),
            msaa: Fixed::new(cfg.msaa_en as u64),
            single_ptr: Fixed::new((cfg.ptrs() == 1) as u64),
            thresh: Fixed::new(cfg.age_thresh as u64),
            urgent_lvl: Fixed::new(cfg.urgent_lvl() as u64),
            lost_max: Fixed::new(if lob > 0 { (1 << lob) - 1 } else { 0 }),
        }
    }
}

impl Logic for PrioArb {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..self.ptr.len() {
            self.ptr[k].clock.next = self.clock.val();
            self.ptr[k].reset.next = self.reset.val();
        }
        for i in 0..self.lost.len() {
            self.lost[i].clock.next = self.clock.val();
            self.lost[i].reset.next = self.reset.val();
        }
        self.pls.whole.next = self.pl.val();
        self.unit.next = 1.into();

        // Effective levels: 0 without MSAA, else the PL, or the urgent level (§2.7).
        for i in 0..self.lvl.len() {
            self.lvl[i].next = 0.into();
            if self.msaa.val().any() {
                self.lvl[i].next = self.pls.parts[i].val();
            }
        }
        for i in 0..self.lost.len() {
            if self.lost[i].q.val() >= self.thresh.val() {
                self.lvl[i].next = self.urgent_lvl.val();
            }
        }

        // The highest level requested, and its pointer.
        self.m.next = 0.into();
        for i in 0..self.lvl.len() {
            if self.req.val().get_bit(i) & (self.lvl[i].val() > self.m.val()) {
                self.m.next = self.lvl[i].val();
            }
        }
        self.start.next = self.ptr[0].q.val();
        for k in 1..self.ptr.len() {
            if self.m.val() == k {
                self.start.next = self.ptr[k].q.val();
            }
        }

        // The first requester at level m after the pointer, cyclically.
        self.found.next = false;
        self.g.next = 0.into();
        for i in 1..self.lvl.len() {
            if self.req.val().get_bit(i)
                & (self.lvl[i].val() == self.m.val())
                & (self.start.val() < i)
                & !self.found.val()
            {
                self.found.next = true;
                self.g.next = i.into();
            }
        }
        for i in 0..self.lvl.len() {
            if self.req.val().get_bit(i) & (self.lvl[i].val() == self.m.val()) & !self.found.val() {
                self.found.next = true;
                self.g.next = i.into();
            }
        }

        // Commit: the level's pointer (or the one pointer) takes the winner; losses count.
        self.upd.next = self.commit.val() & self.found.val();
        for k in 0..self.ptr.len() {
            self.ptr[k].d.next = self.ptr[k].q.val();
            if self.upd.val() & ((self.m.val() == k) | self.single_ptr.val().any()) {
                self.ptr[k].d.next = self.g.val();
            }
            self.ptr_pack.parts[k].next = self.ptr[k].q.val();
        }
        for i in 0..self.lost.len() {
            self.lost[i].d.next = self.lost[i].q.val();
            if self.upd.val() {
                if self.g.val() == i {
                    self.lost[i].d.next = 0.into();
                } else if self.req.val().get_bit(i) & (self.lost[i].q.val() != self.lost_max.val())
                {
                    self.lost[i].d.next = self.lost[i].q.val() + 1;
                }
            }
            self.lost_pack.parts[i].next = self.lost[i].q.val();
        }
        for i in self.lost.len()..self.lost_pack.parts.len() {
            self.lost_pack.parts[i].next = 0.into();
        }

        self.gnt_valid.next = self.found.val();
        self.gnt.next = 0.into();
        if self.found.val() {
            self.gnt.next = self.unit.val() << self.g.val();
        }
        self.gnt_idx.next = self.g.val();
        self.gnt_lvl.next = self.m.val();
        self.dbg_ptr.next = self.ptr_pack.whole.val();
        self.dbg_lost.next = self.lost_pack.whole.val();
    }
}

/// The `msap-arbiter` unit: one [`PrioArb`] with its ports brought out.
#[derive(LogicBlock)]
pub struct MsapArbiter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub req: Wire<In>,
    pub pl: Wire<In>,
    pub commit: Signal<In, Bit>,
    pub gnt_valid: Signal<Out, Bit>,
    pub gnt: Wire<Out>,
    pub gnt_idx: Wire<Out>,
    pub gnt_lvl: Wire<Out>,
    pub dbg_ptr: Wire<Out>,
    pub dbg_lost: Wire<Out>,
    arb: PrioArb,
}

impl MsapArbiter {
    pub fn new(cfg: &ArbiterConfig) -> MsapArbiter {
        let arb = PrioArb::new(cfg);
        MsapArbiter {
            clock: Default::default(),
            reset: Default::default(),
            req: Wire::new(arb.req.width()),
            pl: Wire::new(arb.pl.width()),
            commit: Default::default(),
            gnt_valid: Default::default(),
            gnt: Wire::new(arb.gnt.width()),
            gnt_idx: Wire::new(arb.gnt_idx.width()),
            gnt_lvl: Wire::new(arb.gnt_lvl.width()),
            dbg_ptr: Wire::new(arb.dbg_ptr.width()),
            dbg_lost: Wire::new(arb.dbg_lost.width()),
            arb,
        }
    }
}

impl Logic for MsapArbiter {
    #[hdl_gen]
    fn update(&mut self) {
        self.arb.clock.next = self.clock.val();
        self.arb.reset.next = self.reset.val();
        self.arb.req.next = self.req.val();
        self.arb.pl.next = self.pl.val();
        self.arb.commit.next = self.commit.val();
        self.gnt_valid.next = self.arb.gnt_valid.val();
        self.gnt.next = self.arb.gnt.val();
        self.gnt_idx.next = self.arb.gnt_idx.val();
        self.gnt_lvl.next = self.arb.gnt_lvl.val();
        self.dbg_ptr.next = self.arb.dbg_ptr.val();
        self.dbg_lost.next = self.arb.dbg_lost.val();
    }
}

/// Verilog of one msap-arbiter configuration.
pub fn generate(cfg: &ArbiterConfig) -> Design {
    let mut block = MsapArbiter::new(cfg);
    emit(&mut block, &cfg.module_name())
}
