//! RTL of simt-stack: the per-warp PDOM (SBR) reconvergence stack (spec/crown.md §2.6).
//!
//! State: `depth` entries `{pc, mask, rpc, rpc_valid}`, the stack pointer `sp` (entries in
//! use) and the sticky `overflowed` flag. One combinational pass per cycle:
//! 1. read the top of stack (TOS, entry `sp - 1`);
//! 2. compute every entry's updated value — launch (entry 0 reloaded) has priority over a
//!    commit (uniform: TOS.pc moves on; divergent: TOS.pc ← rpc and up to two pushes at `sp`,
//!    or, when the TOS already reconverges at that rpc, up to two pushes replacing the TOS;
//!    exit: the TOS lanes leave every mask);
//! 3. pop: the new `sp` is one above the highest entry below the post-push height that
//!    neither has an empty mask nor stands at its own reconvergence PC, so nested
//!    reconvergence at one PC unwinds in the same cycle.
//!
//! A divergent commit whose pushes do not fit is refused: nothing changes, `overflow` is high
//! in that cycle and `overflowed` stays set until reset or launch.
//!
//! Widths follow the configuration at run time (`Wire`, `WordReg`), so one block serves every
//! (warp_size, pc_bits, depth).

use crate::primitives::{emit, Concat, Fixed, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::simt_stack::SimtStackConfig;

#[derive(LogicBlock)]
pub struct SimtStack {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub launch: Signal<In, Bit>,
    pub launch_pc: Wire<In>,
    pub launch_mask: Wire<In>,
    pub commit: Signal<In, Bit>,
    pub next_pc: Wire<In>,
    pub branch: Signal<In, Bit>,
    pub taken: Wire<In>,
    pub target: Wire<In>,
    pub rpc: Wire<In>,
    pub exit: Signal<In, Bit>,
    pub pc: Wire<Out>,
    pub mask: Wire<Out>,
    pub tos_rpc: Wire<Out>,
    pub tos_rpc_valid: Signal<Out, Bit>,
    pub depth: Wire<Out>,
    pub empty: Signal<Out, Bit>,
    pub overflowed: Signal<Out, Bit>,
    pub overflow: Signal<Out, Bit>,
    pub dbg_stack: Wire<Out>,

    // State: the entries (bottom first), the stack pointer and the sticky overflow flag.
    stack_pc: Vec<WordReg>,
    stack_mask: Vec<WordReg>,
    stack_rpc: Vec<WordReg>,
    stack_rpc_valid: Vec<WordReg>,
    sp: WordReg,
    sticky_overflow: WordReg,

    // Generation-time constant: the number of entries.
    capacity: Fixed,
    // Packs the live entries into dbg_stack.
    dbg_pack: Concat,

    // The TOS as registered.
    tos_pc: Wire<Local>,
    tos_mask: Wire<Local>,
    tos_rpc_l: Wire<Local>,
    tos_rpc_valid_l: Signal<Local, Bit>,
    // Decoding of this cycle's commit.
    live_commit: Signal<Local, Bit>,
    active_taken: Wire<Local>,
    active_fall: Wire<Local>,
    uniform_taken: Signal<Local, Bit>,
    divergent: Signal<Local, Bit>,
    push_fall: Signal<Local, Bit>,
    push_taken: Signal<Local, Bit>,
    tos_replaced: Signal<Local, Bit>,
    push_at: Wire<Local>,
    sp_pushed: Wire<Local>,
    refused: Signal<Local, Bit>,
    // Entries after launch/commit, before popping, and the height they reach.
    upd_pc: Vec<Wire<Local>>,
    upd_mask: Vec<Wire<Local>>,
    upd_rpc: Vec<Wire<Local>>,
    upd_rpc_valid: Vec<Wire<Local>>,
    sp_before_pop: Wire<Local>,
    pops: Vec<Signal<Local, Bit>>,
    sp_after_pop: Wire<Local>,
}

impl SimtStack {
    pub fn new(cfg: &SimtStackConfig) -> SimtStack {
        let (w, p, d) = (cfg.warp_size, cfg.pc_bits, cfg.depth);
        debug_assert_eq!(cfg.entry_bits(), 2 * p + w + 1);
        let db = cfg.depth_bits();
        let regs = |width: usize| (0..d).map(|_| WordReg::new(width)).collect::<Vec<_>>();
        let locals = |width: usize| (0..d).map(|_| Wire::new(width)).collect::<Vec<_>>();
        SimtStack {
            clock: Default::default(),
            reset: Default::default(),
            launch: Default::default(),
            launch_pc: Wire::new(p),
            launch_mask: Wire::new(w),
            commit: Default::default(),
            next_pc: Wire::new(p),
            branch: Default::default(),
            taken: Wire::new(w),
            target: Wire::new(p),
            rpc: Wire::new(p),
            exit: Default::default(),
            pc: Wire::new(p),
            mask: Wire::new(w),
            tos_rpc: Wire::new(p),
            tos_rpc_valid: Default::default(),
            depth: Wire::new(db),
            empty: Default::default(),
            overflowed: Default::default(),
            overflow: Default::default(),
            dbg_stack: Wire::new(d * cfg.entry_bits()),
            stack_pc: regs(p),
            stack_mask: regs(w),
            stack_rpc: regs(p),
            stack_rpc_valid: regs(1),
            sp: WordReg::new(db),
            sticky_overflow: WordReg::new(1),
            capacity: Fixed::new(d as u64),
            dbg_pack: Concat::new(&[p, w, p, 1].repeat(d)),
            tos_pc: Wire::new(p),
            tos_mask: Wire::new(w),
            tos_rpc_l: Wire::new(p),
            tos_rpc_valid_l: Default::default(),
            live_commit: Default::default(),
            active_taken: Wire::new(w),
            active_fall: Wire::new(w),
            uniform_taken: Default::default(),
            divergent: Default::default(),
            push_fall: Default::default(),
            push_taken: Default::default(),
            tos_replaced: Default::default(),
            push_at: Wire::new(db),
            // Room for sp + 2 (at most depth + 2).
            sp_pushed: Wire::new(db + 1),
            refused: Default::default(),
            upd_pc: locals(p),
            upd_mask: locals(w),
            upd_rpc: locals(p),
            upd_rpc_valid: locals(1),
            sp_before_pop: Wire::new(db),
            pops: (0..d).map(|_| Default::default()).collect(),
            sp_after_pop: Wire::new(db),
        }
    }
}

impl Logic for SimtStack {
    #[hdl_gen]
    fn update(&mut self) {
        // Clock and reset of every register. Entries reset to zero too, though only the
        // entries below sp are ever read.
        for i in 0..self.stack_pc.len() {
            self.stack_pc[i].clock.next = self.clock.val();
            self.stack_pc[i].reset.next = self.reset.val();
            self.stack_mask[i].clock.next = self.clock.val();
            self.stack_mask[i].reset.next = self.reset.val();
            self.stack_rpc[i].clock.next = self.clock.val();
            self.stack_rpc[i].reset.next = self.reset.val();
            self.stack_rpc_valid[i].clock.next = self.clock.val();
            self.stack_rpc_valid[i].reset.next = self.reset.val();
        }
        self.sp.clock.next = self.clock.val();
        self.sp.reset.next = self.reset.val();
        self.sticky_overflow.clock.next = self.clock.val();
        self.sticky_overflow.reset.next = self.reset.val();

        // 1. The registered TOS (all zero when the stack is empty).
        self.tos_pc.next = 0.into();
        self.tos_mask.next = 0.into();
        self.tos_rpc_l.next = 0.into();
        self.tos_rpc_valid_l.next = false;
        for i in 0..self.stack_pc.len() {
            if self.sp.q.val() == (i + 1) {
                self.tos_pc.next = self.stack_pc[i].q.val();
                self.tos_mask.next = self.stack_mask[i].q.val();
                self.tos_rpc_l.next = self.stack_rpc[i].q.val();
                self.tos_rpc_valid_l.next = self.stack_rpc_valid[i].q.val().any();
            }
        }

        // 2a. What the commit does. A launch overrides it; an empty stack ignores it.
        self.live_commit.next =
            self.commit.val() & !self.launch.val() & !self.reset.val() & (self.sp.q.val() != 0);
        self.active_taken.next = self.taken.val() & self.tos_mask.val();
        self.active_fall.next = self.tos_mask.val() & !self.taken.val();
        self.uniform_taken.next = self.active_taken.val() == self.tos_mask.val();
        self.divergent.next =
            (self.active_taken.val() != self.tos_mask.val()) & self.active_taken.val().any();
        // A path that starts at the reconvergence PC has nothing to run: no entry.
        self.push_fall.next = self.next_pc.val() != self.rpc.val();
        self.push_taken.next = self.target.val() != self.rpc.val();
        // A TOS that already waits for this rpc would only wait at its own RPC (its parent
        // holds the lanes there): the paths replace it, so loops with a divergent exit keep
        // a constant depth.
        self.tos_replaced.next =
            self.tos_rpc_valid_l.val() & (self.tos_rpc_l.val() == self.rpc.val());
        self.push_at.next = self.sp.q.val();
        if self.tos_replaced.val() {
            self.push_at.next = self.sp.q.val() - 1;
        }
        self.sp_pushed.next = self.push_at.val();
        if self.push_fall.val() & self.push_taken.val() {
            self.sp_pushed.next = self.push_at.val() + 2;
        } else if self.push_fall.val() | self.push_taken.val() {
            self.sp_pushed.next = self.push_at.val() + 1;
        }
        self.refused.next = self.live_commit.val()
            & !self.exit.val()
            & self.branch.val()
            & self.divergent.val()
            & (self.sp_pushed.val() > self.capacity.val());

        // 2b. Every entry after launch or commit, before popping.
        for i in 0..self.stack_pc.len() {
            self.upd_pc[i].next = self.stack_pc[i].q.val();
            self.upd_mask[i].next = self.stack_mask[i].q.val();
            self.upd_rpc[i].next = self.stack_rpc[i].q.val();
            self.upd_rpc_valid[i].next = self.stack_rpc_valid[i].q.val();
        }
        self.sp_before_pop.next = self.sp.q.val();
        if self.launch.val() {
            self.upd_pc[0].next = self.launch_pc.val();
            self.upd_mask[0].next = self.launch_mask.val();
            self.upd_rpc[0].next = 0.into();
            self.upd_rpc_valid[0].next = false.into();
            self.sp_before_pop.next = 1.into();
        } else if self.live_commit.val() {
            if self.exit.val() {
                // The TOS lanes finish: they leave every entry.
                for i in 0..self.stack_pc.len() {
                    self.upd_mask[i].next = self.stack_mask[i].q.val() & !self.tos_mask.val();
                }
            } else if self.branch.val() & self.divergent.val() {
                if !self.refused.val() {
                    // TOS waits at the reconvergence PC (unless replaced); fall-through pushed
                    // first, taken on top (runs first).
                    for i in 0..self.stack_pc.len() {
                        if self.sp.q.val() == (i + 1) {
                            self.upd_pc[i].next = self.rpc.val();
                        }
                        if (self.push_at.val() == i)
                            & (self.push_fall.val() | self.push_taken.val())
                        {
                            if self.push_fall.val() {
                                self.upd_pc[i].next = self.next_pc.val();
                                self.upd_mask[i].next = self.active_fall.val();
                            } else {
                                self.upd_pc[i].next = self.target.val();
                                self.upd_mask[i].next = self.active_taken.val();
                            }
                            self.upd_rpc[i].next = self.rpc.val();
                            self.upd_rpc_valid[i].next = true.into();
                        }
                        if ((self.push_at.val() + 1) == i)
                            & self.push_fall.val()
                            & self.push_taken.val()
                        {
                            self.upd_pc[i].next = self.target.val();
                            self.upd_mask[i].next = self.active_taken.val();
                            self.upd_rpc[i].next = self.rpc.val();
                            self.upd_rpc_valid[i].next = true.into();
                        }
                    }
                    self.sp_before_pop.next = self.sp_pushed.val();
                }
            } else {
                // Uniform: the whole TOS path moves on together.
                for i in 0..self.stack_pc.len() {
                    if self.sp.q.val() == (i + 1) {
                        if self.branch.val() & self.uniform_taken.val() {
                            self.upd_pc[i].next = self.target.val();
                        } else {
                            self.upd_pc[i].next = self.next_pc.val();
                        }
                    }
                }
            }
        }

        // 3. Pop: keep everything up to the highest entry that stays.
        self.sp_after_pop.next = 0.into();
        for i in 0..self.stack_pc.len() {
            self.pops[i].next = !self.upd_mask[i].val().any()
                | (self.upd_rpc_valid[i].val().any()
                    & (self.upd_pc[i].val() == self.upd_rpc[i].val()));
            if (self.sp_before_pop.val() > i) & !self.pops[i].val() {
                self.sp_after_pop.next = (i + 1).into();
            }
        }

        // Next state.
        for i in 0..self.stack_pc.len() {
            self.stack_pc[i].d.next = self.upd_pc[i].val();
            self.stack_mask[i].d.next = self.upd_mask[i].val();
            self.stack_rpc[i].d.next = self.upd_rpc[i].val();
            self.stack_rpc_valid[i].d.next = self.upd_rpc_valid[i].val();
        }
        self.sp.d.next = self.sp_after_pop.val();
        self.sticky_overflow.d.next = (self.sticky_overflow.q.val() | self.refused.val().into())
            & (!self.launch.val()).into();

        // Outputs: registered state, except `overflow`.
        self.pc.next = self.tos_pc.val();
        self.mask.next = self.tos_mask.val();
        self.tos_rpc.next = self.tos_rpc_l.val();
        self.tos_rpc_valid.next = self.tos_rpc_valid_l.val();
        self.depth.next = self.sp.q.val();
        self.empty.next = self.sp.q.val() == 0;
        self.overflowed.next = self.sticky_overflow.q.val().any();
        self.overflow.next = self.refused.val();
        // dbg_stack: live entries, bottom first, each {pc, mask, rpc, rpc_valid} from bit 0.
        for i in 0..self.stack_pc.len() {
            self.dbg_pack.parts[4 * i].next = 0.into();
            self.dbg_pack.parts[4 * i + 1].next = 0.into();
            self.dbg_pack.parts[4 * i + 2].next = 0.into();
            self.dbg_pack.parts[4 * i + 3].next = 0.into();
            if self.sp.q.val() > i {
                self.dbg_pack.parts[4 * i].next = self.stack_pc[i].q.val();
                self.dbg_pack.parts[4 * i + 1].next = self.stack_mask[i].q.val();
                self.dbg_pack.parts[4 * i + 2].next = self.stack_rpc[i].q.val();
                self.dbg_pack.parts[4 * i + 3].next = self.stack_rpc_valid[i].q.val();
            }
        }
        self.dbg_stack.next = self.dbg_pack.whole.val();
    }
}

/// Verilog of one simt-stack configuration.
pub fn generate(cfg: &SimtStackConfig) -> Design {
    let mut block = SimtStack::new(cfg);
    emit(&mut block, &cfg.module_name())
}
