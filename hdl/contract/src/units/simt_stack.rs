//! `simt-stack`: the per-warp PDOM (SBR) reconvergence stack (spec/crown.md §2.6).
//!
//! Entries are `{pc, mask, rpc}` (plus an rpc-valid bit: the bottom entry has no RPC). Each
//! cycle at most one instruction of the top-of-stack (TOS) path commits:
//! - non-branch, or a branch on which all active lanes agree: TOS.pc ← next PC (uniform);
//! - divergent branch: TOS.pc ← rpc, then push the fall-through path (next_pc, active ∧ ¬taken)
//!   and the taken path (target, active ∧ taken) — each only if its PC differs from the rpc —
//!   taken last, so it runs first (spec A17). When the TOS's own RPC already equals the rpc,
//!   the rewritten TOS would only wait at its own RPC (its parent holds those lanes), so the
//!   pushes replace it instead: a loop whose exit diverges every iteration keeps a constant
//!   depth instead of growing by one entry per iteration;
//! - exit: the active lanes finish and leave every entry's mask.
//!
//! Afterwards entries are popped from the top while the top has an empty mask or has reached
//! its RPC (pc == rpc), so nested reconvergence at one PC unwinds in the same cycle.
//!
//! Overflow: a divergent commit whose pushes do not fit in `depth` entries is refused — the
//! stack keeps its state, `overflow` is high in that cycle and the sticky `overflowed` flag is
//! set until reset or launch. The pipeline must treat a refused commit as not having happened.

use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "simt-stack";

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int("warp_size", 2, 64, 32, "threads per warp (mask width)"),
    ParamSpec::int("pc_bits", 4, 32, 32, "width of a PC"),
    ParamSpec::int("depth", 2, 64, 32, "stack entries"),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimtStackConfig {
    pub warp_size: usize,
    pub pc_bits: usize,
    pub depth: usize,
}

impl SimtStackConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        Ok(SimtStackConfig {
            warp_size: p.usize("warp_size"),
            pc_bits: p.usize("pc_bits"),
            depth: p.usize("depth"),
        })
    }

    /// Bits of one entry in `dbg_stack`: pc, mask, rpc, rpc_valid (from bit 0 up).
    pub fn entry_bits(&self) -> usize {
        2 * self.pc_bits + self.warp_size + 1
    }

    /// Bits of the `depth` output (0..=depth).
    pub fn depth_bits(&self) -> usize {
        crate::index_bits(self.depth + 1)
    }

    pub fn module_name(&self) -> String {
        format!(
            "simt_stack_w{}_p{}_d{}",
            self.warp_size, self.pc_bits, self.depth
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (w, p) = (self.warp_size, self.pc_bits);
        vec![
            Port::input("reset", 1, "synchronous reset: stack empty, overflowed cleared"),
            Port::input("launch", 1, "load a new warp: the stack becomes one entry {launch_pc, launch_mask}"),
            Port::input("launch_pc", p, "first PC of the launched warp"),
            Port::input("launch_mask", w, "live threads of the launched warp"),
            Port::input("commit", 1, "an instruction of the TOS path commits (ignored when launch or empty)"),
            Port::input("next_pc", p, "PC after the committed instruction (fall-through)"),
            Port::input("branch", 1, "the committed instruction is a conditional branch"),
            Port::input("taken", w, "lanes that take the branch (only TOS-active lanes count)"),
            Port::input("target", p, "branch target PC"),
            Port::input("rpc", p, "the branch's reconvergence PC (its immediate post-dominator)"),
            Port::input("exit", 1, "the committed instruction is exit: the active lanes finish"),
            Port::output("pc", p, false, "TOS PC: the warp's next PC"),
            Port::output("mask", w, false, "TOS active mask"),
            Port::output("tos_rpc", p, false, "TOS reconvergence PC"),
            Port::output("tos_rpc_valid", 1, false, "TOS has a reconvergence PC"),
            Port::output("depth", self.depth_bits(), false, "entries in use"),
            Port::output("empty", 1, false, "no entry: the warp has finished (or was never launched)"),
            Port::output("overflowed", 1, false, "sticky: a commit was refused for lack of entries"),
            Port::output("overflow", 1, true, "this cycle's commit is refused: its pushes do not fit"),
            Port::debug(
                "dbg_stack",
                self.depth * self.entry_bits(),
                "live entries bottom first, each {pc, mask, rpc, rpc_valid} from bit 0; zero above depth",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        vec![
            Table::new(
                "stack",
                self.depth,
                self.entry_bits(),
                "entries {pc, mask, rpc, rpc_valid}",
            ),
            Table::new(
                "stack_pointer",
                1,
                self.depth_bits() + 1,
                "depth and the sticky overflow flag",
            ),
        ]
    }

    pub fn manifest(&self, params: &Params) -> Manifest {
        Manifest {
            unit: NAME.into(),
            module: self.module_name(),
            params: params.clone(),
            ports: self.ports(),
            tables: self.tables(),
        }
    }
}
