//! The cycle model of the `simt-stack` unit: one [`Stack`] per warp behind the contract's
//! ports.

use super::stack::*;
use crate::words::{low_bits, port_offset};
use crate::{words, Model};
use warpforge_contract::units::simt_stack::SimtStackConfig;
use warpforge_contract::Layout;

#[derive(Clone, Copy, Debug)]
pub(super) struct InPorts {
    pub(super) reset: usize,
    pub(super) launch: usize,
    pub(super) launch_pc: usize,
    pub(super) launch_mask: usize,
    pub(super) commit: usize,
    pub(super) next_pc: usize,
    pub(super) branch: usize,
    pub(super) taken: usize,
    pub(super) target: usize,
    pub(super) rpc: usize,
    pub(super) exit: usize,
}

impl InPorts {
    pub(super) fn new(l: &Layout) -> InPorts {
        let o = |n| port_offset(&l.inputs, "simt-stack", n);
        InPorts {
            reset: o("reset"),
            launch: o("launch"),
            launch_pc: o("launch_pc"),
            launch_mask: o("launch_mask"),
            commit: o("commit"),
            next_pc: o("next_pc"),
            branch: o("branch"),
            taken: o("taken"),
            target: o("target"),
            rpc: o("rpc"),
            exit: o("exit"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct OutPorts {
    pub(super) pc: usize,
    pub(super) mask: usize,
    pub(super) tos_rpc: usize,
    pub(super) tos_rpc_valid: usize,
    pub(super) depth: usize,
    pub(super) empty: usize,
    pub(super) overflowed: usize,
    pub(super) overflow: usize,
    pub(super) dbg_stack: usize,
    pub(super) dbg_words: usize,
}

impl OutPorts {
    pub(super) fn new(l: &Layout) -> OutPorts {
        let o = |n| port_offset(&l.outputs, "simt-stack", n);
        OutPorts {
            pc: o("pc"),
            mask: o("mask"),
            tos_rpc: o("tos_rpc"),
            tos_rpc_valid: o("tos_rpc_valid"),
            depth: o("depth"),
            empty: o("empty"),
            overflowed: o("overflowed"),
            overflow: o("overflow"),
            dbg_stack: o("dbg_stack"),
            dbg_words: l.output("dbg_stack").map_or(0, |s| s.words),
        }
    }
}

/// A deliberate model bug, to show that `check_invariants` catches wrong stack updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimtStackFault {
    /// The pushed taken path gets the whole TOS mask instead of the taken lanes.
    TakenGetsWholeMask,
    /// A commit that does not fit is pushed anyway, past the capacity.
    PushPastCapacity,
}

/// What the random runs exercised (counted by the model).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimtStackStats {
    pub cycles: u64,
    pub resets: u64,
    pub launches: u64,
    pub commits: u64,
    pub advances: u64,
    pub uniform_branches: u64,
    pub divergent_branches: u64,
    /// Divergent branches with exactly one push (one path starts at the RPC).
    pub one_sided: u64,
    pub exits: u64,
    /// Commits refused for lack of entries.
    pub refused: u64,
    pub pops: u64,
    /// Commits that popped two or more entries.
    pub cascades: u64,
    pub max_depth: usize,
    /// Cycles that started with every entry in use.
    pub full_cycles: u64,
}

/// The unit-level action of one cycle, after priorities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Idle,
    Reset,
    Launch { pc: u64, mask: u64 },
    Commit(Commit),
}

#[derive(Clone, Copy, Debug)]
struct LastCycle {
    action: Action,
    refused: bool,
    depth: usize,
    top: Option<Entry>,
    bottom: Option<Entry>,
    overflowed: bool,
}

/// The cycle model of `simt-stack`: one warp's [`Stack`] behind the unit's ports.
#[derive(Clone, Debug)]
pub struct SimtStackModel {
    cfg: SimtStackConfig,
    stack: Stack,
    inp: InPorts,
    out: OutPorts,
    pc_mask: u64,
    lanes: u64,
    entry_bits: usize,
    last: Option<LastCycle>,
    stats: SimtStackStats,
    fault: Option<SimtStackFault>,
}

impl SimtStackModel {
    pub fn new(cfg: &SimtStackConfig) -> Self {
        let layout = Layout::new(&cfg.ports());
        SimtStackModel {
            stack: Stack::new(cfg.depth),
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            pc_mask: low_bits(cfg.pc_bits),
            lanes: low_bits(cfg.warp_size),
            entry_bits: cfg.entry_bits(),
            last: None,
            stats: SimtStackStats::default(),
            fault: None,
            cfg: cfg.clone(),
        }
    }

    /// Make the model deliberately wrong (tests of the invariant checker only).
    pub fn inject_fault(&mut self, fault: Option<SimtStackFault>) {
        self.fault = fault;
    }

    pub fn stack(&self) -> &Stack {
        &self.stack
    }

    pub fn stats(&self) -> &SimtStackStats {
        &self.stats
    }

    fn write_state(&self, outputs: &mut [u64]) {
        let o = self.out;
        let (pc, mask, rpc, rpc_valid) = match self.stack.top() {
            Some(t) => (t.pc, t.mask, t.rpc.unwrap_or(0), t.rpc.is_some() as u64),
            None => (0, 0, 0, 0),
        };
        outputs[o.pc] = pc;
        outputs[o.mask] = mask;
        outputs[o.tos_rpc] = rpc;
        outputs[o.tos_rpc_valid] = rpc_valid;
        outputs[o.depth] = self.stack.depth() as u64;
        outputs[o.empty] = self.stack.is_empty() as u64;
        outputs[o.overflowed] = self.stack.overflowed() as u64;
        let dbg = &mut outputs[o.dbg_stack..o.dbg_stack + o.dbg_words];
        dbg.iter_mut().for_each(|w| *w = 0);
        let (p, w) = (self.cfg.pc_bits, self.cfg.warp_size);
        for (k, e) in self.stack.entries().iter().enumerate() {
            let at = k * self.entry_bits;
            words::set(dbg, at, p, e.pc);
            words::set(dbg, at + p, w, e.mask);
            if let Some(r) = e.rpc {
                words::set(dbg, at + p + w, p, r);
                words::set(dbg, at + 2 * p + w, 1, 1);
            }
        }
    }
}

impl Model for SimtStackModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let i = self.inp;
        let bit = |off: usize| inputs[off] & 1 != 0;
        let pcm = self.pc_mask;
        self.write_state(outputs);
        let action = if bit(i.reset) {
            Action::Reset
        } else if bit(i.launch) {
            Action::Launch {
                pc: inputs[i.launch_pc] & pcm,
                mask: inputs[i.launch_mask] & self.lanes,
            }
        } else if bit(i.commit) && !self.stack.is_empty() {
            let kind = if bit(i.exit) {
                CommitKind::Exit
            } else if bit(i.branch) {
                CommitKind::Branch {
                    taken: inputs[i.taken] & self.lanes,
                    target: inputs[i.target] & pcm,
                    rpc: inputs[i.rpc] & pcm,
                }
            } else {
                CommitKind::Advance
            };
            Action::Commit(Commit {
                next_pc: inputs[i.next_pc] & pcm,
                kind,
            })
        } else {
            Action::Idle
        };
        let before = self.stack.top().copied();
        let mut last = LastCycle {
            action,
            refused: false,
            depth: self.stack.depth(),
            top: before,
            bottom: self.stack.entries().first().copied(),
            overflowed: self.stack.overflowed(),
        };
        let st = &mut self.stats;
        st.cycles += 1;
        st.full_cycles += (self.stack.depth() == self.cfg.depth) as u64;
        match action {
            Action::Idle => {}
            Action::Reset => {
                self.stack.reset();
                st.resets += 1;
            }
            Action::Launch { pc, mask } => {
                self.stack.launch(pc, mask);
                st.launches += 1;
            }
            Action::Commit(c) => {
                st.commits += 1;
                let tos = before.expect("commit only on a non-empty stack");
                match c.kind {
                    CommitKind::Advance => st.advances += 1,
                    CommitKind::Exit => st.exits += 1,
                    CommitKind::Branch { taken, target, rpc } => {
                        let act = taken & tos.mask;
                        if act == 0 || act == tos.mask {
                            st.uniform_branches += 1;
                        } else {
                            st.divergent_branches += 1;
                            st.one_sided += ((c.next_pc == rpc) != (target == rpc)) as u64;
                        }
                    }
                }
                last.refused = self.stack.commit(&c).is_err();
                st.refused += last.refused as u64;
                let pops = self.stack.last_pops();
                st.pops += pops as u64;
                st.cascades += (pops >= 2) as u64;
                if let (Some(f), CommitKind::Branch { taken, target, rpc }) = (self.fault, c.kind) {
                    let act = taken & tos.mask;
                    match f {
                        SimtStackFault::TakenGetsWholeMask => {
                            let diverged = act != 0 && act != tos.mask && !last.refused;
                            if diverged && target != rpc {
                                let e = self.stack.entries_mut();
                                let top = e.len() - 1;
                                e[top].mask = tos.mask;
                            }
                        }
                        SimtStackFault::PushPastCapacity => {
                            if last.refused {
                                last.refused = false;
                                let e = self.stack.entries_mut();
                                let top = e.len() - 1;
                                e[top].pc = rpc;
                                e.push(Entry {
                                    pc: target,
                                    mask: act,
                                    rpc: Some(rpc),
                                });
                            }
                        }
                    }
                }
            }
        }
        self.stats.max_depth = self.stats.max_depth.max(self.stack.depth());
        outputs[self.out.overflow] = last.refused as u64;
        self.last = Some(last);
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let st = &self.stats;
        vec![
            ("commits", st.commits),
            // Divergent branches that were not refused: their paths replaced the TOS path
            // (0 to 2 entries pushed). Only divergent branches are ever refused.
            (
                "divergences",
                st.divergent_branches.saturating_sub(st.refused),
            ),
            ("pops", st.pops),
            ("exits", st.exits),
            ("launches", st.launches),
            ("refused", st.refused),
        ]
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.stack.check()?;
        let Some(l) = self.last else {
            return Ok(());
        };
        let s = &self.stack;
        let unchanged = s.depth() == l.depth && s.top().copied() == l.top;
        match l.action {
            Action::Idle => {
                if !unchanged || s.overflowed() != l.overflowed {
                    return Err(
                        "the stack changed in a cycle without reset, launch or commit".into(),
                    );
                }
            }
            Action::Reset => {
                if !s.is_empty() || s.overflowed() {
                    return Err("the stack is not empty and clear after reset".into());
                }
            }
            Action::Launch { pc, mask } => {
                let want = (mask != 0).then_some(Entry {
                    pc,
                    mask,
                    rpc: None,
                });
                if s.depth() != want.is_some() as usize
                    || s.top().copied() != want
                    || s.overflowed()
                {
                    return Err(format!(
                        "after launch ({pc:#x}, {mask:#x}) the stack is {:?} (overflowed {})",
                        s.entries(),
                        s.overflowed()
                    ));
                }
            }
            Action::Commit(c) => {
                let tos = l.top.expect("commit on a non-empty stack");
                // Refusal, recomputed: a divergent branch whose pushes do not fit.
                let should_refuse = match c.kind {
                    CommitKind::Branch { taken, target, rpc } => {
                        let act = taken & tos.mask;
                        let pushes = (c.next_pc != rpc) as usize + (target != rpc) as usize;
                        // A TOS already reconverging at this rpc is replaced by its paths.
                        let freed = (tos.rpc == Some(rpc)) as usize;
                        act != 0 && act != tos.mask && l.depth - freed + pushes > s.capacity()
                    }
                    _ => false,
                };
                if l.refused != should_refuse {
                    return Err(format!(
                        "overflow = {} but the commit {c:?} at depth {} {} fit",
                        l.refused as u8,
                        l.depth,
                        if should_refuse { "does not" } else { "does" }
                    ));
                }
                if l.refused {
                    if !unchanged || !s.overflowed() {
                        return Err(
                            "a refused commit changed the stack or left overflowed clear".into(),
                        );
                    }
                    return Ok(());
                }
                if s.overflowed() != l.overflowed {
                    return Err("overflowed changed on an accepted commit".into());
                }
                if s.depth() > l.depth + 2 {
                    return Err(format!(
                        "one commit grew the stack from {} to {}",
                        l.depth,
                        s.depth()
                    ));
                }
                // Thread conservation: only exit removes threads, and only the TOS threads.
                let live_before = l.bottom.map_or(0, |b| b.mask);
                let live_after = s.entries().first().map_or(0, |b| b.mask);
                let want = match c.kind {
                    CommitKind::Exit => live_before & !tos.mask,
                    _ => live_before,
                };
                if live_after != want {
                    return Err(format!(
                        "live threads {live_after:#x} after {c:?}, expected {want:#x}"
                    ));
                }
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let mut s = format!(
            "depth {}/{} overflowed={} stack(bottom first)=",
            self.stack.depth(),
            self.stack.capacity(),
            self.stack.overflowed() as u8
        );
        for e in self.stack.entries() {
            match e.rpc {
                Some(r) => s.push_str(&format!("({:#x},{:#x},{:#x})", e.pc, e.mask, r)),
                None => s.push_str(&format!("({:#x},{:#x},-)", e.pc, e.mask)),
            }
        }
        s
    }
}
