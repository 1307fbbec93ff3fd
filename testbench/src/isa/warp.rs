//! Warp-level mode: a block's threads run in warps of a chosen size, each warp following the
//! PDOM reconvergence stack ([`crate::simt_stack::Stack`], the same code as the `simt-stack`
//! unit model). Each issue runs the instruction at the top-of-stack PC for the TOS lanes whose
//! guard holds, then commits it to the stack:
//!
//! - `bra`: `taken` = TOS lanes whose guard holds; the stack splits the warp when they differ
//!   from the TOS mask (a divergent branch) and reconverges at the branch's RPC;
//! - `exit`: when every TOS lane's guard holds, the TOS lanes finish; when only some do, the
//!   warp splits as on a branch to the `exit` itself with the virtual exit as RPC, so the
//!   finishing lanes run it alone next (counted as a divergent branch);
//! - `bar.sync`: the warp waits until every live thread of the block has arrived. A warp that
//!   reaches it with lanes parked in lower stack entries can never complete it (its parked
//!   lanes cannot arrive): a divergent-barrier fault;
//! - anything else: the TOS path advances.
//!
//! Warps of a block take turns, each running until it waits at a barrier or finishes. The
//! counts are what the papers report: issued warp-instructions, active lane slots (SIMD
//! efficiency = active lanes / (issues × warp size)), divergent branches, barrier waits.

use warpforge_contract::isa::{Instr, Op};

use super::interp::{
    exec, guard_passes, BlockState, Env, ExecFault, Fault, Machine, Sregs, Status,
};
use super::launch::Memory;
use crate::simt_stack::{Commit, CommitKind, Entry, Stack};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpOptions {
    /// Threads per warp, 1..=64.
    pub warp_size: u32,
    /// Stack entries per warp.
    pub stack_depth: usize,
    /// Record every issue with the stack after its commit ([`TraceRow`]).
    pub trace: bool,
}

impl WarpOptions {
    /// Warps of `warp_size` with the default stack depth, no trace.
    pub fn new(warp_size: u32) -> WarpOptions {
        WarpOptions {
            warp_size,
            stack_depth: default_stack_depth(warp_size),
            trace: false,
        }
    }
}

/// Stack entries per warp unless given: a loop whose exit diverges adds one entry per
/// divergent iteration (each removes at least one lane), so nested loops need a few warp sizes
/// of entries.
pub fn default_stack_depth(warp_size: u32) -> usize {
    4 * warp_size as usize + 16
}

/// Warp-mode counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpStats {
    pub warp_size: u32,
    pub blocks: u64,
    pub warps: u64,
    /// Warp-instructions issued.
    pub warp_instructions: u64,
    /// Sum over issues of the TOS mask's lane count (thread-instructions).
    pub active_lanes: u64,
    /// Branches (and partial exits) that split a warp.
    pub divergent_branches: u64,
    /// Warp arrivals at `bar.sync` that had to wait for other warps.
    pub barrier_waits: u64,
    /// Block barriers completed.
    pub barriers: u64,
    /// `bar.synch_partner` issues (included in `warp_instructions`; DWR reports them apart).
    pub partner_barriers: u64,
    /// Deepest stack seen.
    pub max_stack_depth: usize,
}

impl WarpStats {
    /// Active lane slots over all lane slots issued.
    pub fn simd_efficiency(&self) -> f64 {
        if self.warp_instructions == 0 {
            0.0
        } else {
            self.active_lanes as f64 / (self.warp_instructions as f64 * self.warp_size as f64)
        }
    }
}

/// One issue of a traced run: the PC and mask issued and the stack after the commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceRow {
    pub block: u64,
    pub warp: u32,
    pub pc: u32,
    pub mask: u64,
    /// Bottom first.
    pub stack: Vec<Entry>,
}

struct Warp {
    stack: Stack,
    /// Lanes that have not exited.
    live: u64,
    at_barrier: bool,
    issued: u64,
}

/// Why a warp stopped with an error (turned into a [`Fault`] by the caller).
enum WarpErr {
    Pc(usize, u32),
    Limit(usize, u32),
    Mem(usize, u32, ExecFault),
    Overflow(usize, u32),
    DivergentBarrier(usize, u32, u64),
}

/// Runs the whole grid in warp mode on a fresh machine.
pub fn run_warps(m: &mut Machine, opts: &WarpOptions) -> Result<(WarpStats, Vec<TraceRow>), Fault> {
    if opts.warp_size == 0 || opts.warp_size > 64 {
        return Err(Fault::launch(format!(
            "warp size {} must be 1..=64",
            opts.warp_size
        )));
    }
    if opts.stack_depth == 0 {
        return Err(Fault::launch("stack depth must be at least 1"));
    }
    let mut stats = WarpStats {
        warp_size: opts.warp_size,
        ..WarpStats::default()
    };
    let mut trace = Vec::new();
    for id in 0..m.num_blocks() {
        run_block(m, id, opts, &mut stats, &mut trace)?;
    }
    Ok((stats, trace))
}

fn run_block(
    m: &mut Machine,
    id: u64,
    opts: &WarpOptions,
    stats: &mut WarpStats,
    trace: &mut Vec<TraceRow>,
) -> Result<(), Fault> {
    let w = opts.warp_size as usize;
    let mut bs = m.new_block(id);
    let n = bs.status.len();
    let sregs: Vec<Sregs> = (0..n)
        .map(|t| m.sregs(bs.ctaid, t, opts.warp_size))
        .collect();
    let nwarps = n.div_ceil(w);
    let mut warps: Vec<Warp> = (0..nwarps)
        .map(|k| {
            let lanes = (n - k * w).min(w);
            let mask = if lanes == 64 {
                u64::MAX
            } else {
                (1u64 << lanes) - 1
            };
            let mut stack = Stack::new(opts.stack_depth);
            stack.launch(0, mask);
            Warp {
                stack,
                live: mask,
                at_barrier: false,
                issued: 0,
            }
        })
        .collect();
    stats.blocks += 1;
    stats.warps += nwarps as u64;
    loop {
        for (k, warp) in warps.iter_mut().enumerate() {
            if warp.at_barrier || warp.stack.is_empty() {
                continue;
            }
            let r = run_warp(m, &mut bs, &sregs, warp, k, opts, stats, trace);
            if let Err(e) = r {
                return Err(to_fault(m, &bs, e));
            }
        }
        if bs.waiting == 0 {
            return Ok(());
        }
        // Every live thread waits at a barrier: release it (all at the same bar.sync).
        m.barrier_pc(&bs)?;
        for t in 0..n {
            if bs.status[t] == Status::Barrier {
                bs.status[t] = Status::Ready;
            }
        }
        bs.waiting = 0;
        for wp in warps.iter_mut() {
            wp.at_barrier = false;
        }
        stats.barriers += 1;
    }
}

fn to_fault(m: &Machine, bs: &BlockState, e: WarpErr) -> Fault {
    match e {
        WarpErr::Pc(t, pc) => m.pc_fault(bs.ctaid, t, pc),
        WarpErr::Limit(t, pc) => m.step_limit_fault(bs.ctaid, t, pc),
        WarpErr::Mem(t, pc, e) => m.mem_fault(bs.ctaid, t, pc, e),
        WarpErr::Overflow(t, pc) => m.fault(
            bs.ctaid,
            t,
            pc,
            "SIMT stack overflow: the divergent branch needs more stack entries than the warp has (raise the stack depth)".into(),
        ),
        WarpErr::DivergentBarrier(t, pc, parked) => m.fault(
            bs.ctaid,
            t,
            pc,
            format!(
                "divergent barrier: the warp reaches bar.sync with lanes {parked:#x} parked on its reconvergence stack; they can never arrive, so the barrier can never complete"
            ),
        ),
    }
}

/// Runs one warp until it waits at a barrier, finishes, or fails.
#[allow(clippy::too_many_arguments)]
fn run_warp(
    m: &mut Machine,
    bs: &mut BlockState,
    sregs: &[Sregs],
    warp: &mut Warp,
    k: usize,
    opts: &WarpOptions,
    stats: &mut WarpStats,
    trace: &mut Vec<TraceRow>,
) -> Result<(), WarpErr> {
    let w = opts.warp_size as usize;
    let first = k * w;
    let nregs = m.program.regs as usize;
    let code: &[Instr] = &m.program.code;
    let n_prog = code.len() as u64;
    let max = m.max_steps;
    let memory: &mut Memory = &mut m.memory;
    let params: &[u32] = &m.params;
    let lowest = |mask: u64| first + mask.trailing_zeros() as usize;
    loop {
        let Some(&top) = warp.stack.top() else {
            return Ok(());
        };
        let (pc, mask) = (top.pc as u32, top.mask);
        let Some(ins) = code.get(pc as usize) else {
            return Err(WarpErr::Pc(lowest(mask), pc));
        };
        if warp.issued >= max {
            return Err(WarpErr::Limit(lowest(mask), pc));
        }
        let clock = warp.issued;
        warp.issued += 1;
        stats.warp_instructions += 1;
        stats.active_lanes += mask.count_ones() as u64;
        // Lanes whose guard holds.
        let mut run = mask;
        if ins.guard.is_some() {
            let mut mm = mask;
            while mm != 0 {
                let lane = mm.trailing_zeros() as usize;
                mm &= mm - 1;
                if !guard_passes(ins, bs.preds[first + lane]) {
                    run &= !(1 << lane);
                }
            }
        }
        let next_pc = pc as u64 + 1;
        let mut stop = false;
        let commit = match ins.op {
            Op::Bra => {
                if run != 0 && run != mask {
                    stats.divergent_branches += 1;
                }
                CommitKind::Branch {
                    taken: run,
                    target: ins.target() as u64,
                    rpc: ins.rpc() as u64,
                }
            }
            Op::Exit if run == mask => {
                let mut mm = mask;
                while mm != 0 {
                    let t = first + mm.trailing_zeros() as usize;
                    mm &= mm - 1;
                    bs.status[t] = Status::Exited;
                }
                bs.live -= mask.count_ones() as usize;
                warp.live &= !mask;
                CommitKind::Exit
            }
            Op::Exit if run == 0 => CommitKind::Advance,
            Op::Exit => {
                // Some lanes finish: split so they run this exit alone next.
                stats.divergent_branches += 1;
                CommitKind::Branch {
                    taken: run,
                    target: pc as u64,
                    rpc: n_prog,
                }
            }
            Op::BarSync => {
                if mask != warp.live {
                    return Err(WarpErr::DivergentBarrier(
                        lowest(mask),
                        pc,
                        warp.live & !mask,
                    ));
                }
                let mut mm = mask;
                while mm != 0 {
                    let t = first + mm.trailing_zeros() as usize;
                    mm &= mm - 1;
                    bs.status[t] = Status::Barrier;
                    bs.pcs[t] = pc;
                }
                bs.waiting += mask.count_ones() as usize;
                if bs.waiting != bs.live {
                    stats.barrier_waits += 1;
                }
                warp.at_barrier = true;
                stop = true;
                CommitKind::Advance
            }
            _ => {
                if ins.op == Op::BarPartner {
                    stats.partner_barriers += 1;
                }
                let mut env = Env {
                    global: memory,
                    shared: &mut bs.shared,
                    params,
                };
                let mut mm = run;
                while mm != 0 {
                    let t = first + mm.trailing_zeros() as usize;
                    mm &= mm - 1;
                    let regs = &mut bs.regs[t * nregs..(t + 1) * nregs];
                    // Non-control instructions always go on to the next PC.
                    if let Err(e) = exec(ins, regs, &mut bs.preds[t], &sregs[t], clock, &mut env) {
                        return Err(WarpErr::Mem(t, pc, e));
                    }
                }
                CommitKind::Advance
            }
        };
        if warp
            .stack
            .commit(&Commit {
                next_pc,
                kind: commit,
            })
            .is_err()
        {
            return Err(WarpErr::Overflow(lowest(mask), pc));
        }
        stats.max_stack_depth = stats.max_stack_depth.max(warp.stack.depth());
        if opts.trace {
            trace.push(TraceRow {
                block: bs.id,
                warp: k as u32,
                pc,
                mask,
                stack: warp.stack.entries().to_vec(),
            });
        }
        if stop {
            return Ok(());
        }
    }
}
