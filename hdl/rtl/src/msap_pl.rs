//! RTL of msap-pl: the MSHR-occupancy counter and PL quantiser (spec/msap.md §2.2, §3.1;
//! contract `warpforge_contract::units::msap_pl`).
//!
//! Two registers. The quantiser is a compare against the constant `top << pl_shift` and a
//! constant shift (for the paper's numbers `occ[5] ? 7 : occ[4:2]` after synthesis), fed from
//! the registered counter, so `pl` is one cycle behind `mshr_occ` as §3.1 has it.

use crate::primitives::{emit, Fixed, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::msap::max_pl;
use warpforge_contract::units::msap_pl::PlConfig;

#[derive(LogicBlock)]
pub struct MsapPl {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub miss: Signal<In, Bit>,
    pub merge: Signal<In, Bit>,
    pub fill: Signal<In, Bit>,
    pub accept: Signal<Out, Bit>,
    pub rsv_fail: Signal<Out, Bit>,
    pub mshr_occ: Wire<Out>,
    pub pl: Wire<Out>,

    occ: WordReg,
    pl_reg: WordReg,
    full: Signal<Local, Bit>,
    alloc: Signal<Local, Bit>,
    free: Signal<Local, Bit>,
    entries: Fixed,
    shift: Fixed,
    top: Fixed,
    top_occ: Fixed,
}

impl MsapPl {
    pub fn new(cfg: &PlConfig) -> MsapPl {
        let top = max_pl(cfg.pl_bits);
        MsapPl {
            clock: Default::default(),
            reset: Default::default(),
            miss: Default::default(),
            merge: Default::default(),
            fill: Default::default(),
            accept: Default::default(),
            rsv_fail: Default::default(),
            mshr_occ: Wire::new(cfg.occ_bits()),
            pl: Wire::new(cfg.pl_bits),
            occ: WordReg::new(cfg.occ_bits()),
            pl_reg: WordReg::new(cfg.pl_bits),
            full: Default::default(),
            alloc: Default::default(),
            free: Default::default(),
            entries: Fixed::new(cfg.mshr_entries as u64),
            shift: Fixed::new(cfg.pl_shift as u64),
            top: Fixed::new(top),
            top_occ: Fixed::new(top << cfg.pl_shift),
        }
    }
}

impl Logic for MsapPl {
    #[hdl_gen]
    fn update(&mut self) {
        self.occ.clock.next = self.clock.val();
        self.occ.reset.next = self.reset.val();
        self.pl_reg.clock.next = self.clock.val();
        self.pl_reg.reset.next = self.reset.val();

        self.full.next = self.occ.q.val() == self.entries.val();
        self.alloc.next = self.miss.val() & !self.merge.val() & !self.full.val();
        // A fill of an empty table breaks the protocol; ignoring it keeps the count in range.
        self.free.next = self.fill.val() & self.occ.q.val().any();
        self.occ.d.next = self.occ.q.val();
        if self.alloc.val() & !self.free.val() {
            self.occ.d.next = self.occ.q.val() + 1;
        } else if self.free.val() & !self.alloc.val() {
            self.occ.d.next = self.occ.q.val() - 1;
        }
        self.pl_reg.d.next = self.occ.q.val() >> self.shift.val();
        if self.occ.q.val() >= self.top_occ.val() {
            self.pl_reg.d.next = self.top.val();
        }

        self.accept.next = self.miss.val() & (self.merge.val() | !self.full.val());
        self.rsv_fail.next = self.miss.val() & !self.merge.val() & self.full.val();
        self.mshr_occ.next = self.occ.q.val();
        self.pl.next = self.pl_reg.q.val();
    }
}

/// Verilog of one msap-pl configuration.
pub fn generate(cfg: &PlConfig) -> Design {
    let mut block = MsapPl::new(cfg);
    emit(&mut block, &cfg.module_name())
}
