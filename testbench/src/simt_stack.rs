//! The PDOM (SBR) reconvergence stack of one warp (spec/crown.md §2.6), as a plain reusable
//! type, and the cycle model of the `simt-stack` unit built on it.
//!
//! [`Stack`] is shared by the unit model and by the ISA interpreter's warp-level mode, so the
//! reconvergence rules live in exactly one place on the model side.

use crate::rng::Rng;
use crate::warp_sched::density_mask;
use crate::{words, Model, SpecVector, Stimulus, VectorCycle};
use warpforge_contract::units::simt_stack::SimtStackConfig;
use warpforge_contract::Layout;

/// One stack entry: a path's next PC, its threads, and where it reconverges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub pc: u64,
    pub mask: u64,
    /// Reconvergence PC; `None` only for the bottom entry (the whole warp).
    pub rpc: Option<u64>,
}

/// What the committed instruction of the TOS path did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitKind {
    /// A non-branch instruction: the path moves on to `next_pc`.
    Advance,
    /// A conditional branch: `taken` lanes go to `target`, the others to `next_pc`; the paths
    /// reconverge at `rpc` (the branch's immediate post-dominator).
    Branch { taken: u64, target: u64, rpc: u64 },
    /// `exit`: the active lanes finish.
    Exit,
}

/// One committed instruction of the TOS path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commit {
    /// The fall-through PC (the PC after the instruction).
    pub next_pc: u64,
    pub kind: CommitKind,
}

/// A divergent commit whose pushes do not fit; the stack was left unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

/// A warp's reconvergence stack with a fixed capacity.
#[derive(Clone, Debug)]
pub struct Stack {
    /// Bottom first. Never grows past `capacity` (allocated once).
    entries: Vec<Entry>,
    capacity: usize,
    overflowed: bool,
    /// Entries popped by the last `commit` or `launch` (for coverage counters).
    last_pops: usize,
}

impl Stack {
    /// An empty stack of `depth` entries.
    pub fn new(depth: usize) -> Stack {
        Stack {
            entries: Vec::with_capacity(depth),
            capacity: depth,
            overflowed: false,
            last_pops: 0,
        }
    }

    /// Start a warp: one entry `{pc, mask}` without RPC. Clears the overflowed flag. A launch
    /// with an empty mask leaves the stack empty (nothing live).
    pub fn launch(&mut self, pc: u64, mask: u64) {
        self.entries.clear();
        self.overflowed = false;
        if self.capacity > 0 {
            self.entries.push(Entry {
                pc,
                mask,
                rpc: None,
            });
        }
        self.last_pops = self.pop_finished();
    }

    /// Empty the stack and clear the overflowed flag (the unit's reset).
    pub fn reset(&mut self) {
        self.entries.clear();
        self.overflowed = false;
        self.last_pops = 0;
    }

    /// Apply one committed instruction of the TOS path. No effect on an empty stack. A
    /// divergent branch whose pushes do not fit is refused: only the sticky overflowed flag
    /// changes.
    pub fn commit(&mut self, c: &Commit) -> Result<(), Overflow> {
        self.last_pops = 0;
        let Some(tos) = self.entries.last().copied() else {
            return Ok(());
        };
        let top = self.entries.len() - 1;
        match c.kind {
            CommitKind::Advance => self.entries[top].pc = c.next_pc,
            CommitKind::Branch { taken, target, rpc } => {
                let active_taken = taken & tos.mask;
                if active_taken == tos.mask {
                    self.entries[top].pc = target;
                } else if active_taken == 0 {
                    self.entries[top].pc = c.next_pc;
                } else {
                    // Divergent: a path that starts at the RPC needs no entry (one-sided).
                    let push_fall = c.next_pc != rpc;
                    let push_taken = target != rpc;
                    let pushes = push_fall as usize + push_taken as usize;
                    // A TOS that already reconverges at this rpc would only wait at its own
                    // RPC once rewritten (its parent holds those lanes), so the paths replace
                    // it: a loop whose exit diverges every iteration keeps a constant depth.
                    let replace = tos.rpc == Some(rpc);
                    if self.entries.len() - replace as usize + pushes > self.capacity {
                        self.overflowed = true;
                        return Err(Overflow);
                    }
                    if replace {
                        self.entries.pop();
                    } else {
                        self.entries[top].pc = rpc;
                    }
                    // Fall-through first, taken last: the taken path runs first (A17).
                    if push_fall {
                        self.entries.push(Entry {
                            pc: c.next_pc,
                            mask: tos.mask & !taken,
                            rpc: Some(rpc),
                        });
                    }
                    if push_taken {
                        self.entries.push(Entry {
                            pc: target,
                            mask: active_taken,
                            rpc: Some(rpc),
                        });
                    }
                }
            }
            CommitKind::Exit => {
                for e in self.entries.iter_mut() {
                    e.mask &= !tos.mask;
                }
            }
        }
        self.last_pops = self.pop_finished();
        Ok(())
    }

    /// Pop while the top has no threads left or has reached its reconvergence PC; returns how
    /// many entries went.
    fn pop_finished(&mut self) -> usize {
        let mut pops = 0;
        while let Some(t) = self.entries.last() {
            if t.mask == 0 || t.rpc == Some(t.pc) {
                self.entries.pop();
                pops += 1;
            } else {
                break;
            }
        }
        pops
    }

    /// Raw access for the model's fault injection (tests of the invariant checker).
    pub(crate) fn entries_mut(&mut self) -> &mut Vec<Entry> {
        &mut self.entries
    }

    pub fn top(&self) -> Option<&Entry> {
        self.entries.last()
    }

    /// Live entries, bottom first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Entries in use.
    pub fn depth(&self) -> usize {
        self.entries.len()
    }

    /// Capacity in entries.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Sticky: a commit was refused since the last launch or reset.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Entries popped by the last `commit` (or `launch`).
    pub fn last_pops(&self) -> usize {
        self.last_pops
    }

    /// Check the stack invariants of crown.md §7.1 item 9 plus the structural ones the
    /// rules guarantee; `Err` names the first one that fails.
    pub fn check(&self) -> Result<(), String> {
        let e = &self.entries;
        if e.len() > self.capacity {
            return Err(format!(
                "depth {} exceeds capacity {}",
                e.len(),
                self.capacity
            ));
        }
        let Some(bottom) = e.first() else {
            return Ok(());
        };
        if bottom.rpc.is_some() {
            return Err("the bottom entry has an RPC".into());
        }
        let top = e[e.len() - 1];
        if top.mask == 0 {
            return Err("the top entry has an empty mask (should have been popped)".into());
        }
        if top.rpc == Some(top.pc) {
            return Err("the top entry is at its RPC (should have been popped)".into());
        }
        // Per entry: the threads of its children seen so far (siblings must be disjoint).
        // Children of one parent all carry the parent's PC as RPC.
        let mut small = [0u64; 64];
        let mut large = Vec::new();
        let children: &mut [u64] = if e.len() <= small.len() {
            &mut small[..e.len()]
        } else {
            large.resize(e.len(), 0);
            &mut large
        };
        for i in 1..e.len() {
            let Some(rpc) = e[i].rpc else {
                return Err(format!("entry {i} (not the bottom) has no RPC"));
            };
            // The parent: nearest lower entry whose PC equals this entry's RPC.
            let p = (0..i).rev().find(|&j| e[j].pc == rpc).ok_or_else(|| {
                format!("entry {i}: no lower entry is at its RPC {rpc:#x} (no parent)")
            })?;
            if e[i].mask & !e[p].mask != 0 {
                return Err(format!(
                    "entry {i} mask {:#x} is not a subset of its parent {p} mask {:#x}",
                    e[i].mask, e[p].mask
                ));
            }
            if e[i].mask & !bottom.mask != 0 {
                return Err(format!(
                    "entry {i} mask {:#x} holds threads the bottom entry {:#x} lacks",
                    e[i].mask, bottom.mask
                ));
            }
            if children[p] & e[i].mask != 0 {
                return Err(format!(
                    "entry {i} shares threads {:#x} with a sibling (RPC {rpc:#x})",
                    children[p] & e[i].mask
                ));
            }
            children[p] |= e[i].mask;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// The simt-stack unit model

fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

fn offset(slots: &[warpforge_contract::manifest::Slot], name: &str) -> usize {
    slots
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("simt-stack contract has no port `{name}`"))
        .offset
}

#[derive(Clone, Copy, Debug)]
struct InPorts {
    reset: usize,
    launch: usize,
    launch_pc: usize,
    launch_mask: usize,
    commit: usize,
    next_pc: usize,
    branch: usize,
    taken: usize,
    target: usize,
    rpc: usize,
    exit: usize,
}

impl InPorts {
    fn new(l: &Layout) -> InPorts {
        let o = |n| offset(&l.inputs, n);
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
struct OutPorts {
    pc: usize,
    mask: usize,
    tos_rpc: usize,
    tos_rpc_valid: usize,
    depth: usize,
    empty: usize,
    overflowed: usize,
    overflow: usize,
    dbg_stack: usize,
    dbg_words: usize,
}

impl OutPorts {
    fn new(l: &Layout) -> OutPorts {
        let o = |n| offset(&l.outputs, n);
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

// ---------------------------------------------------------------------------------------
// Stimulus

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// A program-like walk: advances, uniform and divergent branches, exits.
    Walk,
    /// Diverge as deep as the lanes allow (towards overflow).
    Deep,
    /// Run paths to their RPCs (pops and pop cascades).
    Unwind,
}

/// A random program-like walk for `simt-stack`, steering by the previous cycle's outputs.
#[derive(Clone, Debug)]
pub struct SimtStackStimulus {
    rng: Rng,
    pc_mask: u64,
    lanes: u64,
    warp_size: usize,
    inp: InPorts,
    out: OutPorts,
    /// PCs recently seen on `pc` and `tos_rpc`.
    recent: [u64; 8],
    recent_at: usize,
    mode: Mode,
    phase_left: u64,
    /// The last cycle may have changed the state, so `prev_outputs` may be one step behind.
    changed: bool,
    launched: bool,
}

impl SimtStackStimulus {
    pub fn new(cfg: &SimtStackConfig, seed: u64) -> Self {
        let layout = Layout::new(&cfg.ports());
        SimtStackStimulus {
            rng: Rng::new(seed),
            pc_mask: low_bits(cfg.pc_bits),
            lanes: low_bits(cfg.warp_size),
            warp_size: cfg.warp_size,
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            recent: [0; 8],
            recent_at: 0,
            mode: Mode::Walk,
            phase_left: 0,
            changed: true,
            launched: false,
        }
    }

    fn remember(&mut self, pc: u64) {
        self.recent[self.recent_at] = pc;
        self.recent_at = (self.recent_at + 1) % self.recent.len();
    }

    fn recent_pc(&mut self) -> u64 {
        self.recent[self.rng.below(self.recent.len() as u64) as usize]
    }

    fn random_pc(&mut self) -> u64 {
        self.rng.next_u64() & self.pc_mask
    }

    fn launch_mask(&mut self) -> u64 {
        let m = match self.rng.below(20) {
            0..=7 => u64::MAX,
            8..=12 => density_mask(&mut self.rng, 1),
            13..=17 => self.some_lanes(),
            18 => 0,
            _ => 1 << self.rng.below(self.warp_size as u64),
        };
        m & self.lanes
    }

    /// Lanes with a random density from 1/8 to 7/8.
    fn some_lanes(&mut self) -> u64 {
        let level = 1 + self.rng.below(7) as u8;
        density_mask(&mut self.rng, level) & self.lanes
    }

    /// A random lane set in `m` (m != 0).
    fn random_lane(&mut self, m: u64) -> u64 {
        let mut k = self.rng.below(m.count_ones() as u64);
        let mut m = m;
        while k > 0 {
            m &= m - 1;
            k -= 1;
        }
        m & m.wrapping_neg()
    }

    /// A PC different from `avoid`.
    fn pc_not(&mut self, pc: u64, avoid: u64) -> u64 {
        if pc & self.pc_mask == avoid {
            (pc ^ 1) & self.pc_mask
        } else {
            pc & self.pc_mask
        }
    }
}

impl Stimulus for SimtStackStimulus {
    fn next(&mut self, cycle: u64, prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        let (i, o) = (self.inp, self.out);
        let prev = |off: usize| prev_outputs.get(off).copied().unwrap_or(0);
        let (pc, mask, tos_rpc) = (prev(o.pc), prev(o.mask), prev(o.tos_rpc));
        let rpc_valid = prev(o.tos_rpc_valid) != 0;
        let empty = cycle == 0 || prev(o.empty) != 0;
        if !empty {
            self.remember(pc);
            if rpc_valid {
                self.remember(tos_rpc);
            }
        }
        if self.phase_left == 0 {
            self.phase_left = 30 + self.rng.below(300);
            self.mode = match self.rng.below(8) {
                0..=3 => Mode::Walk,
                4 | 5 => Mode::Deep,
                _ => Mode::Unwind,
            };
        }
        self.phase_left -= 1;
        let (was_changed, was_launch) = (self.changed, self.launched);
        self.changed = true;
        self.launched = false;

        if cycle < 2 || self.rng.chance(1, 5000) {
            inputs[i.reset] = 1;
            // Junk on the other inputs: reset has priority.
            inputs[i.commit] = self.rng.below(2);
            inputs[i.launch] = self.rng.below(2);
            return;
        }
        let relaunch = self.rng.chance(1, 700);
        let deep_restart = self.mode == Mode::Deep && !was_changed && mask.count_ones() < 2;
        if (empty && !was_launch && self.rng.chance(3, 4)) || relaunch || deep_restart {
            inputs[i.launch] = 1;
            inputs[i.launch_pc] = if self.rng.chance(1, 2) {
                self.recent_pc()
            } else {
                self.random_pc()
            };
            inputs[i.launch_mask] = if deep_restart {
                self.lanes
            } else {
                self.launch_mask()
            };
            // Sometimes a commit in the same cycle: launch wins.
            if self.rng.chance(1, 4) {
                inputs[i.commit] = 1;
                inputs[i.branch] = 1;
                inputs[i.taken] = self.rng.next_u64() & self.lanes;
                inputs[i.next_pc] = self.random_pc();
                inputs[i.target] = self.random_pc();
                inputs[i.rpc] = self.random_pc();
            }
            self.launched = true;
            return;
        }
        // Idle cycles (with junk on the commit fields), and in Deep mode wait for exact
        // outputs before each divergence.
        if self.rng.chance(1, 8) || (self.mode == Mode::Deep && was_changed) {
            inputs[i.next_pc] = self.random_pc();
            inputs[i.taken] = self.rng.next_u64() & self.lanes;
            inputs[i.branch] = self.rng.below(2);
            inputs[i.exit] = self.rng.chance(1, 8) as u64;
            self.changed = false;
            return;
        }
        inputs[i.commit] = 1;
        let pcm = self.pc_mask;
        match self.mode {
            Mode::Deep => {
                // Split one lane off the TOS path: two pushes per commit, until the lanes
                // run out or the stack overflows.
                let rpc = self.random_pc();
                let taken = mask & !self.random_lane(mask);
                inputs[i.branch] = 1;
                inputs[i.taken] = taken;
                inputs[i.rpc] = rpc;
                let np = pc.wrapping_add(1);
                inputs[i.next_pc] = self.pc_not(np, rpc);
                let t = self.random_pc();
                inputs[i.target] = self.pc_not(t, rpc);
            }
            Mode::Unwind => {
                // Go to the RPC (pop); now and then an exit or a uniform branch.
                if self.rng.chance(1, 30) {
                    inputs[i.exit] = 1;
                } else if rpc_valid && self.rng.chance(7, 8) {
                    inputs[i.next_pc] = tos_rpc;
                } else {
                    inputs[i.next_pc] = pc.wrapping_add(1) & pcm;
                }
            }
            Mode::Walk => {
                let r = self.rng.below(100);
                if r < 3 {
                    inputs[i.exit] = 1;
                    inputs[i.next_pc] = pc.wrapping_add(1) & pcm;
                } else if r < 40 {
                    inputs[i.branch] = 1;
                    inputs[i.taken] = match self.rng.below(20) {
                        0..=2 => self.lanes,
                        3..=5 => 0,
                        6..=7 => mask & self.rng.next_u64(),
                        _ => self.some_lanes(),
                    };
                    let rpc = match self.rng.below(20) {
                        0..=6 if rpc_valid => tos_rpc,
                        0..=14 => pc.wrapping_add(2 + self.rng.below(6)) & pcm,
                        _ => self.recent_pc(),
                    };
                    inputs[i.rpc] = rpc;
                    inputs[i.target] = match self.rng.below(10) {
                        0 | 1 => rpc,
                        2..=6 => pc.wrapping_add(1 + self.rng.below(4)) & pcm,
                        7 | 8 => self.recent_pc(),
                        _ => self.random_pc(),
                    };
                    inputs[i.next_pc] = if self.rng.chance(3, 20) {
                        rpc
                    } else {
                        pc.wrapping_add(1) & pcm
                    };
                } else {
                    inputs[i.next_pc] = match self.rng.below(20) {
                        0..=6 if rpc_valid => tos_rpc,
                        0..=15 => pc.wrapping_add(1) & pcm,
                        _ => self.recent_pc(),
                    };
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Spec vectors

/// A stack snapshot in the spec's notation: (pc, mask, rpc), bottom first.
type Snapshot<'a> = &'a [(u64, u64, Option<u64>)];

/// Builder for one simt-stack spec vector (pc_bits 8 so PCs read as in the spec).
struct Sb {
    v: SpecVector,
    warp_size: usize,
    pc_bits: usize,
    depth: usize,
}

impl Sb {
    fn new(name: &str, warp_size: usize, depth: usize) -> Sb {
        let pc_bits = 8;
        Sb {
            v: SpecVector {
                name: name.into(),
                unit: "simt-stack",
                sets: vec![
                    format!("warp_size={warp_size}"),
                    format!("pc_bits={pc_bits}"),
                    format!("depth={depth}"),
                ],
                cycles: vec![],
            },
            warp_size,
            pc_bits,
            depth,
        }
    }

    /// `dbg_stack` for a snapshot: entry k at bit k·E, fields pc, mask, rpc, rpc_valid.
    fn image(&self, s: Snapshot) -> Vec<u64> {
        let e = 2 * self.pc_bits + self.warp_size + 1;
        let mut w = vec![0u64; (self.depth * e).div_ceil(64)];
        for (k, &(pc, mask, rpc)) in s.iter().enumerate() {
            let mut put = |at: usize, width: usize, v: u64| {
                for b in 0..width {
                    if v >> b & 1 != 0 {
                        w[(at + b) / 64] |= 1 << ((at + b) % 64);
                    }
                }
            };
            put(k * e, self.pc_bits, pc);
            put(k * e + self.pc_bits, self.warp_size, mask);
            if let Some(r) = rpc {
                put(k * e + self.pc_bits + self.warp_size, self.pc_bits, r);
                put(k * e + 2 * self.pc_bits + self.warp_size, 1, 1);
            }
        }
        w
    }

    /// Expected outputs for a cycle that starts with the stack `s`.
    fn state(&self, s: Snapshot, overflowed: bool) -> Vec<(&'static str, Vec<u64>)> {
        let top = s.last().copied();
        let (pc, mask, rpc) = top.unwrap_or((0, 0, None));
        vec![
            ("pc", vec![pc]),
            ("mask", vec![mask]),
            ("tos_rpc", vec![rpc.unwrap_or(0)]),
            ("tos_rpc_valid", vec![rpc.is_some() as u64]),
            ("depth", vec![s.len() as u64]),
            ("empty", vec![s.is_empty() as u64]),
            ("overflowed", vec![overflowed as u64]),
            ("dbg_stack", self.image(s)),
        ]
    }

    fn push(&mut self, inputs: &[(&'static str, u64)], expect: Vec<(&'static str, Vec<u64>)>) {
        self.v.cycles.push(VectorCycle {
            inputs: inputs.iter().map(|&(n, v)| (n, vec![v])).collect(),
            expect,
        });
    }

    fn reset(mut self) -> Sb {
        self.push(&[("reset", 1)], vec![]);
        self
    }

    /// A cycle starting with stack `s` (overflowed clear) that drives `inputs`; `overflow`
    /// is this cycle's expected refusal.
    fn step(self, s: Snapshot, inputs: &[(&'static str, u64)], overflow: bool) -> Sb {
        self.step_of(s, false, inputs, overflow)
    }

    fn step_of(
        mut self,
        s: Snapshot,
        overflowed: bool,
        inputs: &[(&'static str, u64)],
        overflow: bool,
    ) -> Sb {
        let mut e = self.state(s, overflowed);
        e.push(("overflow", vec![overflow as u64]));
        self.push(inputs, e);
        self
    }

    fn done(self) -> SpecVector {
        self.v
    }
}

fn launch(pc: u64, mask: u64) -> [(&'static str, u64); 3] {
    [("launch", 1), ("launch_pc", pc), ("launch_mask", mask)]
}

fn advance(next_pc: u64) -> [(&'static str, u64); 2] {
    [("commit", 1), ("next_pc", next_pc)]
}

fn branch(next_pc: u64, taken: u64, target: u64, rpc: u64) -> [(&'static str, u64); 6] {
    [
        ("commit", 1),
        ("branch", 1),
        ("next_pc", next_pc),
        ("taken", taken),
        ("target", target),
        ("rpc", rpc),
    ]
}

fn exit(next_pc: u64) -> [(&'static str, u64); 3] {
    [("commit", 1), ("exit", 1), ("next_pc", next_pc)]
}

const NO: Option<u64> = None;

/// crown.md §2.7, Fig 2-3: one 8-thread warp, `if (a > 4) … else …`, IPDOM at PC5.
/// Cycles 2..=8 issue the 7 instructions (the `mask` output is the issuing mask).
fn fig_2_3() -> SpecVector {
    Sb::new("crown.md §2.7 Fig 2-3 SBR trace", 8, 4)
        .reset()
        .step(&[], &launch(0, 0xff), false)
        // PC0: a = tid
        .step(&[(0, 0xff, NO)], &advance(1), false)
        // PC1: @(a<=4) bra PC4, rpc PC5: lanes 0-4 take the else path.
        .step(&[(1, 0xff, NO)], &branch(2, 0x1f, 4, 5), false)
        // PC4 (else path, runs first): f -= g*h, then falls into PC5 = its RPC.
        .step(
            &[(5, 0xff, NO), (2, 0xe0, Some(5)), (4, 0x1f, Some(5))],
            &advance(5),
            false,
        )
        // PC2: f += g*h
        .step(&[(5, 0xff, NO), (2, 0xe0, Some(5))], &advance(3), false)
        // PC3: bra PC5 (uniform jump to the RPC)
        .step(
            &[(5, 0xff, NO), (3, 0xe0, Some(5))],
            &branch(4, 0xff, 5, 5),
            false,
        )
        // PC5: k[a] = f
        .step(&[(5, 0xff, NO)], &advance(6), false)
        // PC6: exit
        .step(&[(6, 0xff, NO)], &exit(7), false)
        .step(&[], &[], false)
        .done()
}

/// crown.md §2.8, Fig 2-4: SBR on one warp with the reconstructed masks (W0: B 0F, C 03,
/// D 0C; W1 mirrors it: B F0, C 30, D C0). Blocks A..F are single instructions at PCs
/// 0xA..0xF; A's branch is one-sided (its other lanes go straight to F).
fn fig_2_4(warp: &str, b: u64, c: u64, d: u64) -> SpecVector {
    let (pa, pb, pc, pd, pe, pf) = (0xa, 0xb, 0xc, 0xd, 0xe, 0xf);
    let full = 0xff;
    Sb::new(
        &format!("crown.md §2.8 Fig 2-4 stack snapshots ({warp})"),
        8,
        4,
    )
    .reset()
    .step(&[], &launch(pa, full), false)
    // (b) A's last instruction: lanes !b jump to F (= the RPC), lanes b fall into B.
    .step(&[(pa, full, NO)], &branch(pb, full & !b, pf, pf), false)
    // (c) B's branch: d lanes take D (runs first), c lanes fall into C; IPDOM E.
    .step(
        &[(pf, full, NO), (pb, b, Some(pf))],
        &branch(pc, d, pd, pe),
        false,
    )
    // (d)/(e) D runs and reaches E.
    .step(
        &[
            (pf, full, NO),
            (pe, b, Some(pf)),
            (pc, c, Some(pe)),
            (pd, d, Some(pe)),
        ],
        &advance(pe),
        false,
    )
    // (f) pop; C runs and reaches E.
    .step(
        &[(pf, full, NO), (pe, b, Some(pf)), (pc, c, Some(pe))],
        &advance(pe),
        false,
    )
    // (f') E runs with B's lanes and reaches F.
    .step(&[(pf, full, NO), (pe, b, Some(pf))], &advance(pf), false)
    // (g) full warp at F.
    .step(&[(pf, full, NO)], &exit(pf + 1), false)
    .step(&[], &[], false)
    .done()
}

/// One-sided branches: either the taken or the fall-through lanes start at the RPC and get
/// no entry; uniform branches (all active lanes agree, inactive lanes ignored) push nothing.
fn one_sided() -> SpecVector {
    Sb::new("simt-stack one-sided and uniform branches", 8, 4)
        .reset()
        .step(&[], &launch(0x10, 0xff), false)
        // Taken lanes 0-3 jump to the RPC 0x20: only the fall-through path is pushed.
        .step(&[(0x10, 0xff, NO)], &branch(0x11, 0x0f, 0x20, 0x20), false)
        .step(
            &[(0x20, 0xff, NO), (0x11, 0xf0, Some(0x20))],
            &advance(0x12),
            false,
        )
        .step(
            &[(0x20, 0xff, NO), (0x12, 0xf0, Some(0x20))],
            &advance(0x20),
            false,
        )
        // Fall-through is the RPC: only the taken path (lanes 0, 7) is pushed.
        .step(&[(0x20, 0xff, NO)], &branch(0x21, 0x81, 0x30, 0x21), false)
        .step(
            &[(0x21, 0xff, NO), (0x30, 0x81, Some(0x21))],
            // Uniform not taken: only inactive lanes (1-6) have their taken bit set.
            &branch(0x31, 0x7e, 0x40, 0x50),
            false,
        )
        .step(
            &[(0x21, 0xff, NO), (0x31, 0x81, Some(0x21))],
            // Uniform taken: every active lane (0 and 7) takes it; to the RPC, pop.
            &branch(0x32, 0xff, 0x21, 0x60),
            false,
        )
        // Uniform not taken with the whole warp.
        .step(&[(0x21, 0xff, NO)], &branch(0x22, 0x00, 0x40, 0x50), false)
        .step(&[(0x22, 0xff, NO)], &[], false)
        .done()
}

/// A nested branch whose inner IPDOM equals the outer one: the inner paths replace the
/// outer path's entry (it would only wait at its own RPC, where its parent already holds its
/// lanes), so the depth does not grow; then a loop whose exit diverges every iteration runs at
/// a constant depth.
fn nested_same_ipdom() -> SpecVector {
    Sb::new(
        "simt-stack nested branch with the same IPDOM (inner paths replace their parent path)",
        8,
        8,
    )
    .reset()
    .step(&[], &launch(0, 0xff), false)
    .step(&[(0, 0xff, NO)], &branch(5, 0x0f, 1, 9), false)
    // Inner branch on the taken path, also reconverging at 9; taken bits of inactive
    // lanes (0xf0) do not count. The entry (1, 0x0f, 9) is replaced by its two paths.
    .step(
        &[(9, 0xff, NO), (5, 0xf0, Some(9)), (1, 0x0f, Some(9))],
        &branch(3, 0xf3, 2, 9),
        false,
    )
    .step(
        &[
            (9, 0xff, NO),
            (5, 0xf0, Some(9)),
            (3, 0x0c, Some(9)),
            (2, 0x03, Some(9)),
        ],
        &advance(9),
        false,
    )
    .step(
        &[(9, 0xff, NO), (5, 0xf0, Some(9)), (3, 0x0c, Some(9))],
        &advance(9),
        false,
    )
    // A loop at 5..6 whose exit (to 9) diverges each iteration: `@p bra 5` with rpc 9.
    .step(&[(9, 0xff, NO), (5, 0xf0, Some(9))], &advance(6), false)
    .step(
        &[(9, 0xff, NO), (6, 0xf0, Some(9))],
        &branch(9, 0x70, 5, 9),
        false,
    )
    .step(&[(9, 0xff, NO), (5, 0x70, Some(9))], &advance(6), false)
    .step(
        &[(9, 0xff, NO), (6, 0x70, Some(9))],
        &branch(9, 0x30, 5, 9),
        false,
    )
    .step(&[(9, 0xff, NO), (5, 0x30, Some(9))], &advance(6), false)
    // The last iteration: no lane loops back; the path reaches its RPC and pops.
    .step(
        &[(9, 0xff, NO), (6, 0x30, Some(9))],
        &branch(9, 0x00, 5, 9),
        false,
    )
    .step(&[(9, 0xff, NO)], &exit(10), false)
    .step(&[], &[], false)
    .done()
}

/// Overflow with depth 2: the refused commit raises `overflow` in its cycle and leaves the
/// stack as it was; `overflowed` stays set until a launch.
fn overflow() -> SpecVector {
    let full = 0xff;
    Sb::new("simt-stack overflow (depth 2)", 8, 2)
        .reset()
        .step(&[], &launch(0, full), false)
        // Two pushes onto one entry: 3 > 2, refused.
        .step(&[(0, full, NO)], &branch(1, 0x0f, 4, 8), true)
        // Same state, now overflowed. A one-sided divergence (one push) fits.
        .step_of(&[(0, full, NO)], true, &branch(1, 0x0f, 8, 8), false)
        // Full: a one-sided divergence of the TOS path is refused.
        .step_of(
            &[(8, full, NO), (1, 0xf0, Some(8))],
            true,
            &branch(2, 0x30, 7, 7),
            true,
        )
        // A divergent branch whose paths both start at the RPC needs no entry: accepted even
        // when full; the TOS reaches its own RPC and pops.
        .step_of(
            &[(8, full, NO), (1, 0xf0, Some(8))],
            true,
            &branch(8, 0x30, 8, 8),
            false,
        )
        // Launch wins over a commit that would be refused: no overflow, flag cleared.
        .step_of(
            &[(8, full, NO)],
            true,
            &[
                ("launch", 1),
                ("launch_pc", 0x40),
                ("launch_mask", 0x0f),
                ("commit", 1),
                ("branch", 1),
                ("next_pc", 9),
                ("taken", 0x0f),
                ("target", 0x20),
                ("rpc", 0x30),
            ],
            false,
        )
        .step(&[(0x40, 0x0f, NO)], &advance(0x41), false)
        .step(&[(0x41, 0x0f, NO)], &[], false)
        .done()
}

/// Exit of one path: its lanes leave every entry; the sibling path runs on; exiting the
/// last lanes pops everything (a cascade); commits on an empty stack do nothing.
fn exit_of_a_path() -> SpecVector {
    Sb::new("simt-stack exit of a path", 8, 4)
        .reset()
        .step(&[], &launch(0, 0xff), false)
        .step(&[(0, 0xff, NO)], &branch(1, 0x0f, 4, 8), false)
        // The taken path (lanes 0-3) exits.
        .step(
            &[(8, 0xff, NO), (1, 0xf0, Some(8)), (4, 0x0f, Some(8))],
            &exit(5),
            false,
        )
        .step(&[(8, 0xf0, NO), (1, 0xf0, Some(8))], &advance(8), false)
        .step(&[(8, 0xf0, NO)], &exit(9), false)
        // Empty: a commit is ignored, a launch with no threads leaves it empty.
        .step(&[], &advance(3), false)
        .step(&[], &launch(3, 0), false)
        .step(&[], &launch(0, 0x0f), false)
        .step(&[(0, 0x0f, NO)], &branch(1, 0x0c, 2, 3), false)
        .step(
            &[(3, 0x0f, NO), (1, 0x03, Some(3)), (2, 0x0c, Some(3))],
            &exit(3),
            false,
        )
        // The last live lanes exit inside a divergent region: both entries pop.
        .step(&[(3, 0x03, NO), (1, 0x03, Some(3))], &exit(2), false)
        .step(&[], &[], false)
        .done()
}

/// The directed vectors of simt-stack (crown.md §2.7, §2.8 and the stack corner cases).
pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        fig_2_3(),
        fig_2_4("W0", 0x0f, 0x03, 0x0c),
        fig_2_4("W1", 0xf0, 0x30, 0xc0),
        one_sided(),
        nested_same_ipdom(),
        overflow(),
        exit_of_a_path(),
    ]
}

#[cfg(test)]
mod stack_tests {
    use super::*;

    fn br(next_pc: u64, taken: u64, target: u64, rpc: u64) -> Commit {
        Commit {
            next_pc,
            kind: CommitKind::Branch { taken, target, rpc },
        }
    }

    #[test]
    fn divergent_push_order_and_pop_at_rpc() {
        let mut s = Stack::new(4);
        s.launch(1, 0xff);
        s.commit(&br(2, 0x1f, 4, 5)).unwrap();
        let e = s.entries();
        assert_eq!(e.len(), 3);
        assert_eq!(
            e[0],
            Entry {
                pc: 5,
                mask: 0xff,
                rpc: None
            }
        );
        assert_eq!(
            e[1],
            Entry {
                pc: 2,
                mask: 0xe0,
                rpc: Some(5)
            }
        );
        assert_eq!(
            e[2],
            Entry {
                pc: 4,
                mask: 0x1f,
                rpc: Some(5)
            }
        );
        s.check().unwrap();
        s.commit(&Commit {
            next_pc: 5,
            kind: CommitKind::Advance,
        })
        .unwrap();
        assert_eq!(s.depth(), 2);
        assert_eq!(s.last_pops(), 1);
    }

    #[test]
    fn refused_commit_changes_only_the_flag() {
        let mut s = Stack::new(2);
        s.launch(0, 0xf);
        let before = s.entries().to_vec();
        assert_eq!(s.commit(&br(1, 0x3, 2, 3)), Err(Overflow));
        assert_eq!(s.entries(), &before[..]);
        assert!(s.overflowed());
        s.launch(0, 0xf);
        assert!(!s.overflowed());
    }

    #[test]
    fn empty_stack_ignores_commits_and_zero_mask_launch_is_empty() {
        let mut s = Stack::new(2);
        assert_eq!(s.commit(&br(1, 1, 2, 3)), Ok(()));
        s.launch(7, 0);
        assert!(s.is_empty());
    }
}
