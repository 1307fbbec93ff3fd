//! RTL of msap-mc: MSAR, the memory-side request buffer (spec/msap.md §2.8, §3.5; contract
//! `warpforge_contract::units::msap_mc`).
//!
//! Storage split. The selection looks at every entry every cycle — its PL, its line (the
//! same-line guard compares it with every older entry's), its age and its bypass count — so
//! those are flip-flops. The request's other fields (`meta`) are read one row at a time, only
//! for the entry that leaves, so they live in the RAM primitive (block RAM); L2 gets them one
//! cycle after the dequeue, with the line (which the tag lookup needs first) on time.
//!
//! Age order: slots do not move (a RAM row cannot shift); each slot keeps the set of entries
//! older than it (an age matrix row), written at insert from the valid vector and cleared
//! column-wise when an entry leaves. "Oldest of a set S" is then the member whose row has no
//! bit of S — no comparators. Per cycle: eligibility (guard), keys, their maximum over the
//! eligible entries, the candidates at that key, the oldest candidate.

use crate::primitives::{emit, Concat, Fixed, Wire, WordReg};
use crate::ram::Ram;
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::msap_mc::McConfig;

#[derive(LogicBlock)]
pub struct MsapMc {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_line: Wire<In>,
    pub in_pl: Wire<In>,
    pub in_meta: Wire<In>,
    pub l2_ready: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_idx: Wire<Out>,
    pub out_line: Wire<Out>,
    pub out_pl: Wire<Out>,
    pub out_urgent: Signal<Out, Bit>,
    pub meta_valid: Signal<Out, Bit>,
    pub meta: Wire<Out>,
    pub count: Wire<Out>,
    pub dbg_valid: Wire<Out>,
    pub dbg_elig: Wire<Out>,
    pub dbg_pl: Wire<Out>,
    pub dbg_line: Wire<Out>,
    pub dbg_older: Wire<Out>,
    pub dbg_bypass: Wire<Out>,

    // State.
    valid: Vec<WordReg>,
    line: Vec<WordReg>,
    pl: Vec<WordReg>,
    older: Vec<WordReg>,
    bypass: Vec<WordReg>,
    meta_v: WordReg,
    meta_ram: Ram,

    valid_pack: Concat,
    elig_pack: Concat,
    pl_pack: Concat,
    line_pack: Concat,
    older_pack: Concat,
    bypass_pack: Concat,

    // This cycle.
    elig: Vec<Signal<Local, Bit>>,
    key: Vec<Wire<Local>>,
    urg: Vec<Signal<Local, Bit>>,
    blocked: Signal<Local, Bit>,
    m: Wire<Local>,
    cand: Wire<Local>,
    vvec: Wire<Local>,
    found: Signal<Local, Bit>,
    sel: Wire<Local>,
    sel_older: Wire<Local>,
    free_found: Signal<Local, Bit>,
    free_idx: Wire<Local>,
    cnt: Wire<Local>,
    deq: Signal<Local, Bit>,
    ins: Signal<Local, Bit>,
    deq_mask: Wire<Local>,
    unit: Wire<Local>,
    msar: Fixed,
    guard: Fixed,
    thresh: Fixed,
    urgent_key: Fixed,
}

impl MsapMc {
    pub fn new(cfg: &McConfig) -> MsapMc {
        let (d, ib, pb, lb, bb) = (
            cfg.depth,
            cfg.idx_bits(),
            cfg.pl_bits,
            cfg.line_bits,
            cfg.bypass_bits(),
        );
        let regs = |n: usize, w: usize| (0..n).map(|_| WordReg::new(w)).collect::<Vec<_>>();
        let nb = if cfg.ageing() { d } else { 0 };
        MsapMc {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_line: Wire::new(lb),
            in_pl: Wire::new(pb),
            in_meta: Wire::new(cfg.meta_bits),
            l2_ready: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_idx: Wire::new(ib),
            out_line: Wire::new(lb),
            out_pl: Wire::new(pb),
            out_urgent: Default::default(),
            meta_valid: Default::default(),
            meta: Wire::new(cfg.meta_bits),
            count: Wire::new(cfg.count_bits()),
            dbg_valid: Wire::new(d),
            dbg_elig: Wire::new(d),
            dbg_pl: Wire::new(d * pb),
            dbg_line: Wire::new(d * lb),
            dbg_older: Wire::new(d * d),
            dbg_bypass: Wire::new((d * bb).max(1)),
            valid: regs(d, 1),
            line: regs(d, lb),
            pl: regs(d, pb),
            older: regs(d, d),
            bypass: regs(nb, bb.max(1)),
            meta_v: WordReg::new(1),
            meta_ram: Ram::new(&cfg.ram()),
            valid_pack: Concat::new(&vec![1; d]),
            elig_pack: Concat::new(&vec![1; d]),
            pl_pack: Concat::new(&vec![pb; d]),
            line_pack: Concat::new(&vec![lb; d]),
            older_pack: Concat::new(&vec![d; d]),
            bypass_pack: Concat::new(&vec![bb.max(1); nb.max(1)]),
            elig: (0..d).map(|_| Default::default()).collect(),
            key: (0..d).map(|_| Wire::new(pb + 1)).collect(),
            urg: (0..d).map(|_| Default::default()).collect(),
            blocked: Default::default(),
            m: Wire::new(pb + 1),
            cand: Wire::new(d),
            vvec: Wire::new(d),
            found: Default::default(),
            sel: Wire::new(ib),
            sel_older: Wire::new(d),
            free_found: Default::default(),
            free_idx: Wire::new(ib),
            cnt: Wire::new(cfg.count_bits()),
            deq: Default::default(),
            ins: Default::default(),
            deq_mask: Wire::new(d),
            unit: Wire::new(d),
            msar: Fixed::new(cfg.msar_en as u64),
            guard: Fixed::new(cfg.line_guard as u64),
            thresh: Fixed::new(cfg.age_thresh as u64),
            urgent_key: Fixed::new(cfg.urgent_key()),
        }
    }
}

impl Logic for MsapMc {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..self.valid.len() {
            self.valid[i].clock.next = self.clock.val();
            self.valid[i].reset.next = self.reset.val();
            self.line[i].clock.next = self.clock.val();
            self.line[i].reset.next = self.reset.val();
            self.pl[i].clock.next = self.clock.val();
            self.pl[i].reset.next = self.reset.val();
            self.older[i].clock.next = self.clock.val();
            self.older[i].reset.next = self.reset.val();
        }
        for i in 0..self.bypass.len() {
            self.bypass[i].clock.next = self.clock.val();
            self.bypass[i].reset.next = self.reset.val();
        }
        self.meta_v.clock.next = self.clock.val();
        self.meta_v.reset.next = self.reset.val();
        self.meta_ram.clock.next = self.clock.val();
        self.unit.next = 1.into();

        // Eligibility (the same-line guard) and keys.
        for i in 0..self.valid.len() {
            self.blocked.next = false;
            for j in 0..self.valid.len() {
                if self.older[i].q.val().get_bit(j) & (self.line[j].q.val() == self.line[i].q.val())
                {
                    self.blocked.next = true;
                }
            }
            self.elig[i].next =
                self.valid[i].q.val().any() & !(self.guard.val().any() & self.blocked.val());
            self.urg[i].next = false;
            self.key[i].next = 0.into();
            if self.msar.val().any() {
                self.key[i].next = self.pl[i].q.val();
            }
        }
        for i in 0..self.bypass.len() {
            if self.bypass[i].q.val() >= self.thresh.val() {
                self.urg[i].next = true;
                self.key[i].next = self.urgent_key.val();
            }
        }

        // The maximum key, its eligible entries, and the oldest of them.
        self.m.next = 0.into();
        for i in 0..self.valid.len() {
            if self.elig[i].val() & (self.key[i].val() > self.m.val()) {
                self.m.next = self.key[i].val();
            }
        }
        // Vectors are built here rather than read back from a Concat: a block that writes a
        // Concat's parts and reads its whole is a combinational loop to Verilator.
        self.cand.next = 0.into();
        self.vvec.next = 0.into();
        for i in 0..self.valid.len() {
            if self.elig[i].val() & (self.key[i].val() == self.m.val()) {
                self.cand.next = self.cand.val() | (self.unit.val() << i);
            }
            if self.valid[i].q.val().any() {
                self.vvec.next = self.vvec.val() | (self.unit.val() << i);
            }
        }
        self.found.next = false;
        self.sel.next = 0.into();
        self.sel_older.next = 0.into();
        self.out_line.next = 0.into();
        self.out_pl.next = 0.into();
        self.out_urgent.next = false;
        for i in 0..self.valid.len() {
            if self.cand.val().get_bit(i) & !(self.older[i].q.val() & self.cand.val()).any() {
                self.found.next = true;
                self.sel.next = i.into();
                self.sel_older.next = self.older[i].q.val();
                self.out_line.next = self.line[i].q.val();
                self.out_pl.next = self.pl[i].q.val();
                self.out_urgent.next = self.urg[i].val();
            }
        }

        // The lowest free slot and the count.
        self.free_found.next = false;
        self.free_idx.next = 0.into();
        self.cnt.next = 0.into();
        for i in 0..self.valid.len() {
            if self.valid[i].q.val().any() {
                self.cnt.next = self.cnt.val() + 1;
            } else if !self.free_found.val() {
                self.free_found.next = true;
                self.free_idx.next = i.into();
            }
        }

        self.deq.next = self.l2_ready.val() & self.found.val();
        self.ins.next = self.in_valid.val() & self.free_found.val();
        self.deq_mask.next = 0.into();
        if self.deq.val() {
            self.deq_mask.next = self.unit.val() << self.sel.val();
        }
        for i in 0..self.valid.len() {
            self.valid[i].d.next = self.valid[i].q.val();
            self.line[i].d.next = self.line[i].q.val();
            self.pl[i].d.next = self.pl[i].q.val();
            // The leaving entry is no longer older than anyone.
            self.older[i].d.next = self.older[i].q.val() & !self.deq_mask.val();
            if self.deq.val() & (self.sel.val() == i) {
                self.valid[i].d.next = false.into();
                self.older[i].d.next = 0.into();
            }
            if self.ins.val() & (self.free_idx.val() == i) {
                self.valid[i].d.next = true.into();
                self.line[i].d.next = self.in_line.val();
                self.pl[i].d.next = self.in_pl.val();
                self.older[i].d.next = self.vvec.val() & !self.deq_mask.val();
            }
        }
        // Ageing: every eligible entry older than the leaving one was bypassed.
        for i in 0..self.bypass.len() {
            self.bypass[i].d.next = self.bypass[i].q.val();
            if self.deq.val() & self.elig[i].val() & self.sel_older.val().get_bit(i) {
                self.bypass[i].d.next = self.bypass[i].q.val() + 1;
            }
            // A free slot's counter is 0.
            if self.deq.val() & (self.sel.val() == i) {
                self.bypass[i].d.next = 0.into();
            }
        }

        // Meta: written at insert, read for the leaving entry.
        self.meta_ram.we.next = self.ins.val();
        self.meta_ram.wbe.next = 1.into();
        self.meta_ram.waddr.next = self.free_idx.val();
        self.meta_ram.wdata.next = self.in_meta.val();
        self.meta_ram.re.next = self.deq.val();
        self.meta_ram.raddr.next = self.sel.val();
        self.meta_v.d.next = self.deq.val().into();
        self.meta.next = 0.into();
        if self.meta_v.q.val().any() {
            self.meta.next = self.meta_ram.rdata.val();
        }

        for i in 0..self.valid.len() {
            self.valid_pack.parts[i].next = self.valid[i].q.val();
            self.elig_pack.parts[i].next = self.elig[i].val().into();
            self.pl_pack.parts[i].next = 0.into();
            self.line_pack.parts[i].next = 0.into();
            if self.valid[i].q.val().any() {
                self.pl_pack.parts[i].next = self.pl[i].q.val();
                self.line_pack.parts[i].next = self.line[i].q.val();
            }
            self.older_pack.parts[i].next = self.older[i].q.val();
        }
        for i in 0..self.bypass.len() {
            self.bypass_pack.parts[i].next = self.bypass[i].q.val();
        }
        for i in self.bypass.len()..self.bypass_pack.parts.len() {
            self.bypass_pack.parts[i].next = 0.into();
        }

        self.in_ready.next = self.free_found.val();
        self.out_valid.next = self.found.val();
        self.out_idx.next = self.sel.val();
        self.meta_valid.next = self.meta_v.q.val().any();
        self.count.next = self.cnt.val();
        self.dbg_valid.next = self.valid_pack.whole.val();
        self.dbg_elig.next = self.elig_pack.whole.val();
        self.dbg_pl.next = self.pl_pack.whole.val();
        self.dbg_line.next = self.line_pack.whole.val();
        self.dbg_older.next = self.older_pack.whole.val();
        self.dbg_bypass.next = self.bypass_pack.whole.val();
    }
}

/// Verilog of one msap-mc configuration.
pub fn generate(cfg: &McConfig) -> Design {
    let mut block = MsapMc::new(cfg);
    emit(&mut block, &cfg.module_name())
}
