//! Reconvergence: one `simt-stack` block per warp slot (spec/crown.md §2.6), behind the small
//! interface every other stage uses — per slot the next PC, the active mask and whether the
//! warp has finished; one launch per cycle; one commit per cycle (the writeback stage's). A
//! different reconvergence mechanism (CROWN) replaces this block and keeps these ports.
//!
//! - `launch[w]` loads slot `w` with PC 0 and `launch_mask`.
//! - `commit` applies the retiring instruction of slot `c_slot`: uniform advance to
//!   `c_next_pc`, a branch (`c_branch`, `c_taken` = guard-passing lanes, `c_target`, `c_rpc`),
//!   or `c_exit` (the active lanes finish).
//! - `overflow` (combinational, from the committing stack) refuses a divergent commit that
//!   does not fit: the SM faults.

use super::{tpl, Dims};
use crate::primitives::Wire;
use crate::simt_stack::SimtStack;
use rust_hdl::prelude::*;
use warpforge_contract::units::simt_stack::SimtStackConfig;

#[derive(LogicBlock)]
pub struct Reconv {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub launch: Wire<In>,
    pub launch_mask: Wire<In>,
    pub commit: Signal<In, Bit>,
    pub c_slot: Wire<In>,
    pub c_next_pc: Wire<In>,
    pub c_branch: Signal<In, Bit>,
    pub c_taken: Wire<In>,
    pub c_target: Wire<In>,
    pub c_rpc: Wire<In>,
    pub c_exit: Signal<In, Bit>,
    /// Per slot (field w): the TOS PC, the TOS mask, the stack is empty.
    pub pc: Wire<Out>,
    pub mask: Wire<Out>,
    pub empty: Wire<Out>,
    pub overflow: Signal<Out, Bit>,
    stacks: Vec<SimtStack>,
    _d: Dims,
}

impl Reconv {
    pub fn new(d: &Dims) -> Reconv {
        let cfg = SimtStackConfig {
            warp_size: d.t,
            pc_bits: d.p,
            depth: d.depth,
        };
        Reconv {
            clock: Default::default(),
            reset: Default::default(),
            launch: Wire::new(d.w),
            launch_mask: Wire::new(d.t),
            commit: Default::default(),
            c_slot: Wire::new(d.sb),
            c_next_pc: Wire::new(d.p),
            c_branch: Default::default(),
            c_taken: Wire::new(d.t),
            c_target: Wire::new(d.p),
            c_rpc: Wire::new(d.p),
            c_exit: Default::default(),
            pc: Wire::new(d.w * d.p),
            mask: Wire::new(d.w * d.t),
            empty: Wire::new(d.w),
            overflow: Default::default(),
            stacks: (0..d.w).map(|_| SimtStack::new(&cfg)).collect(),
            _d: d.clone(),
        }
    }
}

impl Logic for Reconv {
    fn update(&mut self) {}
    fn connect(&mut self) {
        self.pc.connect();
        self.mask.connect();
        self.empty.connect();
        self.overflow.connect();
        for s in &mut self.stacks {
            s.clock.connect();
            s.reset.connect();
            s.launch.connect();
            s.launch_pc.connect();
            s.launch_mask.connect();
            s.commit.connect();
            s.next_pc.connect();
            s.branch.connect();
            s.taken.connect();
            s.target.connect();
            s.rpc.connect();
            s.exit.connect();
        }
    }
    fn hdl(&self) -> Verilog {
        let d = &self._d;
        let mut v = String::from("always @(*) begin\n");
        for i in 0..d.w {
            v += &tpl(
                "    stacks$#I#$clock = clock;
    stacks$#I#$reset = reset;
    stacks$#I#$launch = launch[#I#];
    stacks$#I#$launch_pc = #P#'d0;
    stacks$#I#$launch_mask = launch_mask;
    stacks$#I#$commit = commit && (c_slot == #I#);
    stacks$#I#$next_pc = c_next_pc;
    stacks$#I#$branch = c_branch;
    stacks$#I#$taken = c_taken;
    stacks$#I#$target = c_target;
    stacks$#I#$rpc = c_rpc;
    stacks$#I#$exit = c_exit;
",
                &[("I", i), ("P", d.p), ("T", d.t)],
            );
        }
        v += "end\n\nalways @(*) begin\n    overflow = 1'b0;\n";
        for i in 0..d.w {
            v += &tpl(
                "    pc[#I#*#P# +: #P#] = stacks$#I#$pc;
    mask[#I#*#T# +: #T#] = stacks$#I#$mask;
    empty[#I#] = stacks$#I#$empty;
    if (commit && (c_slot == #I#) && stacks$#I#$overflow) overflow = 1'b1;
",
                &[("I", i), ("P", d.p), ("T", d.t)],
            );
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}
