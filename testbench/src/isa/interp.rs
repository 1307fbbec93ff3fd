//! The reference interpreter, thread mode: every thread runs on its own, in order, with exact
//! `bar.sync` semantics. A block's threads run one after the other, each until it reaches a
//! `bar.sync` or exits; when every live thread of the block waits at the barrier, the barrier
//! completes and all of them go on. Threads that have exited count as arrived. Every live
//! thread must wait at the *same* `bar.sync` (same PC); threads waiting at different ones can
//! never be released together, and that is reported as a divergent barrier.
//!
//! [`Machine::step`] runs one named thread by one instruction and reports what it changed
//! ([`Retired`]): what SM-level lockstep calls for every retired instruction.
//!
//! Faults (out-of-bounds or misaligned access, divergent barrier, step limit, PC outside the
//! program, invalid launch) are [`Fault`]s: one line naming the thread, PC and instruction.

use std::collections::{HashMap, HashSet};
use std::fmt;

use warpforge_contract::isa::{Field, FieldUse, Format, Instr, Op, Special};

use super::alu;
use super::disasm::format_instr;
use super::launch::{Launch, MemFault, Memory, ParamValue};
use super::Program;

/// A runtime fault: one line, never a panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// "block (x,y,z) thread (x,y,z)" when a thread is at fault.
    pub thread: Option<String>,
    pub pc: Option<u32>,
    /// The instruction in assembly syntax.
    pub instr: Option<String>,
    pub msg: String,
}

impl Fault {
    pub fn launch(msg: impl Into<String>) -> Fault {
        Fault {
            thread: None,
            pc: None,
            instr: None,
            msg: format!("invalid launch: {}", msg.into()),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut head = Vec::new();
        if let Some(t) = &self.thread {
            head.push(t.clone());
        }
        if let Some(pc) = self.pc {
            head.push(format!("pc {pc}"));
        }
        if let Some(i) = &self.instr {
            head.push(format!("`{i}`"));
        }
        if !head.is_empty() {
            write!(f, "{}: ", head.join(" "))?;
        }
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Fault {}

/// What one instruction did to memory, when it faults.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ExecFault {
    pub kind: MemFault,
    pub shared: bool,
    pub addr: u32,
}

/// Where control goes after an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Next,
    Jump(u32),
    Exit,
    Barrier,
}

/// Special registers of one thread (index = [`Special`] code; the clock is passed apart).
pub(crate) type Sregs = [u32; 16];

/// Everything an instruction can touch besides its thread's registers.
pub(crate) struct Env<'a> {
    pub global: &'a mut Memory,
    pub shared: &'a mut [u32],
    pub params: &'a [u32],
}

#[inline(always)]
fn shared_index(shared: &[u32], addr: u32) -> Result<usize, ExecFault> {
    let kind = if addr & 3 != 0 {
        MemFault::Misaligned
    } else if ((addr >> 2) as usize) < shared.len() {
        return Ok((addr >> 2) as usize);
    } else {
        MemFault::OutOfBounds
    };
    Err(ExecFault {
        kind,
        shared: true,
        addr,
    })
}

#[inline(always)]
fn global_index(mem: &Memory, addr: u32) -> Result<usize, ExecFault> {
    mem.index(addr).map_err(|kind| ExecFault {
        kind,
        shared: false,
        addr,
    })
}

#[inline(always)]
fn atomic(op: Op, old: u32, b: u32) -> u32 {
    match op {
        Op::AtomGAdd | Op::AtomSAdd => old.wrapping_add(b),
        Op::AtomGMaxS | Op::AtomSMaxS => (old as i32).max(b as i32) as u32,
        Op::AtomGMaxU | Op::AtomSMaxU => old.max(b),
        _ => b, // exchange
    }
}

/// Executes one instruction (its guard already checked) for one thread.
#[inline(always)]
pub(crate) fn exec(
    ins: &Instr,
    regs: &mut [u32],
    preds: &mut u8,
    sregs: &Sregs,
    clock: u64,
    env: &mut Env,
) -> Result<Flow, ExecFault> {
    let a = if ins.a_sreg {
        if ins.a == Special::Clock as u8 {
            clock as u32
        } else {
            sregs[(ins.a & 15) as usize]
        }
    } else {
        // Predicate formats hold predicate numbers here, which may exceed the register count.
        regs.get(ins.a as usize).copied().unwrap_or(0)
    };
    let b = if ins.b_imm {
        ins.imm
    } else {
        regs.get(ins.b as usize).copied().unwrap_or(0)
    };
    let d = ins.d as usize;
    let p = |n: u8| (*preds >> n) & 1 == 1;
    macro_rules! set {
        ($v:expr) => {{
            regs[d] = $v;
        }};
    }
    macro_rules! setp {
        ($v:expr) => {{
            let v: bool = $v;
            let bit = 1u8 << ins.d;
            if v {
                *preds |= bit
            } else {
                *preds &= !bit
            }
        }};
    }
    match ins.op {
        Op::Nop | Op::BarPartner => {}
        op if alu::is_lane_op(op) => {
            // The lane semantics are written once, in `alu::lane`.
            let a = if op == Op::Mov && ins.b_imm {
                ins.imm
            } else {
                a
            };
            let fmt = op.format();
            let c = if fmt == Format::Alu3 {
                regs[ins.c() as usize]
            } else {
                0
            };
            // Predicate numbers are fields of these formats only (elsewhere they may be > 7).
            let preds_ab = matches!(fmt, Format::Pred1 | Format::Pred2);
            let pa = preds_ab && p(ins.a);
            let pb = fmt == Format::Pred2 && p(ins.b);
            let pc = fmt == Format::Selp && p(ins.c());
            let (r, pv) = alu::lane(op, a, b, c, pa, pb, pc);
            if alu::writes_pred(op) {
                setp!(pv)
            } else {
                set!(r)
            }
        }
        Op::LdGlobal => {
            let i = global_index(env.global, a.wrapping_add(ins.imm))?;
            set!(env.global.words[i])
        }
        Op::StGlobal => {
            let i = global_index(env.global, a.wrapping_add(ins.imm))?;
            env.global.words[i] = b;
        }
        Op::LdShared => {
            let i = shared_index(env.shared, a.wrapping_add(ins.imm))?;
            set!(env.shared[i])
        }
        Op::StShared => {
            let i = shared_index(env.shared, a.wrapping_add(ins.imm))?;
            env.shared[i] = b;
        }
        Op::LdParam => set!(env.params[(ins.imm >> 2) as usize]),
        Op::AtomGAdd | Op::AtomGMaxS | Op::AtomGMaxU | Op::AtomGExch => {
            let i = global_index(env.global, a.wrapping_add(ins.imm))?;
            let old = env.global.words[i];
            env.global.words[i] = atomic(ins.op, old, b);
            set!(old)
        }
        Op::AtomSAdd | Op::AtomSMaxS | Op::AtomSMaxU | Op::AtomSExch => {
            let i = shared_index(env.shared, a.wrapping_add(ins.imm))?;
            let old = env.shared[i];
            env.shared[i] = atomic(ins.op, old, b);
            set!(old)
        }
        Op::AtomGCas => {
            let i = global_index(env.global, a)?;
            let old = env.global.words[i];
            if old == b {
                env.global.words[i] = regs[ins.c() as usize];
            }
            set!(old)
        }
        Op::AtomSCas => {
            let i = shared_index(env.shared, a)?;
            let old = env.shared[i];
            if old == b {
                env.shared[i] = regs[ins.c() as usize];
            }
            set!(old)
        }
        Op::Bra => return Ok(Flow::Jump(ins.target())),
        Op::Exit => return Ok(Flow::Exit),
        Op::BarSync => return Ok(Flow::Barrier),
        _ => unreachable!("{:?} is a lane op, executed above", ins.op),
    }
    Ok(Flow::Next)
}

/// True when the guard lets the instruction run in a thread with predicates `preds`.
#[inline(always)]
pub(crate) fn guard_passes(ins: &Instr, preds: u8) -> bool {
    match ins.guard {
        None => true,
        Some(g) => ((preds >> g.pred) & 1 == 1) != g.negate,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Ready,
    Barrier,
    Exited,
}

/// The state of one resident block: every thread's registers, predicates, PC and status,
/// and the block's shared memory.
#[derive(Clone, Debug)]
pub(crate) struct BlockState {
    pub id: u64,
    pub ctaid: [u32; 3],
    pub regs: Vec<u32>,
    pub preds: Vec<u8>,
    pub pcs: Vec<u32>,
    pub status: Vec<Status>,
    pub steps: Vec<u64>,
    pub shared: Vec<u32>,
    /// Threads not exited.
    pub live: usize,
    /// Threads waiting at a `bar.sync`.
    pub waiting: usize,
}

/// Thread-mode counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadStats {
    /// Instructions executed by threads (guarded-off ones included).
    pub thread_instructions: u64,
    pub blocks: u64,
    pub threads: u64,
    /// Block barriers completed (one per block per `bar.sync` episode).
    pub barriers: u64,
    /// `bar.synch_partner` executions (counted in `thread_instructions` too).
    pub partner_barriers: u64,
}

/// Which memory a [`MemWrite`] went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    Shared,
}

/// A memory word written by a retired instruction (stores; atomics report the word after).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemWrite {
    pub space: Space,
    pub addr: u32,
    pub value: u32,
}

/// What a retired instruction did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    None,
    /// The thread arrived at `bar.sync`.
    Barrier,
    Exit,
}

/// One retired instruction of one thread ([`Machine::step`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retired {
    pub pc: u32,
    pub instr: Instr,
    /// The guard let it run.
    pub executed: bool,
    pub next_pc: u32,
    pub reg_write: Option<(u8, u32)>,
    pub pred_write: Option<(u8, bool)>,
    pub mem_write: Option<MemWrite>,
    pub event: Event,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepOutcome {
    Retired(Retired),
    /// The thread waits at a `bar.sync` that other threads have not reached.
    WaitingAtBarrier,
    /// The thread has exited.
    Exited,
}

/// A kernel launch ready to run: program, parameters, global memory.
#[derive(Clone, Debug)]
pub struct Machine {
    pub program: Program,
    pub(crate) params: Vec<u32>,
    pub memory: Memory,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub warp_size: u32,
    pub max_steps: u64,
    pub stats: ThreadStats,
    /// Blocks started by [`Machine::step`].
    resident: HashMap<u64, BlockState>,
    finished: HashSet<u64>,
}

impl Machine {
    /// Checks program and launch and lays out global memory.
    pub fn new(program: &Program, launch: &Launch) -> Result<Machine, Fault> {
        program.check().map_err(Fault::launch)?;
        launch.check(program).map_err(Fault::launch)?;
        let memory = Memory::new(&launch.buffers).map_err(Fault::launch)?;
        let params = program
            .params
            .iter()
            .map(|name| {
                let v = &launch.params.iter().find(|(n, _)| n == name).unwrap().1;
                match v {
                    ParamValue::Word(w) => *w,
                    ParamValue::Buffer(b) => memory.base_of(b).unwrap(),
                }
            })
            .collect();
        Ok(Machine {
            program: program.clone(),
            params,
            memory,
            grid: launch.grid,
            block: launch.block,
            warp_size: launch.warp_size,
            max_steps: launch.max_steps,
            stats: ThreadStats::default(),
            resident: HashMap::new(),
            finished: HashSet::new(),
        })
    }

    pub fn threads_per_block(&self) -> usize {
        (self.block[0] * self.block[1] * self.block[2]) as usize
    }

    pub fn num_blocks(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product()
    }

    /// A global buffer's words (after a run: its results).
    pub fn buffer(&self, name: &str) -> Option<&[u32]> {
        self.memory.buffer(name)
    }

    pub(crate) fn block_coords(&self, id: u64) -> [u32; 3] {
        let (gx, gy) = (self.grid[0] as u64, self.grid[1] as u64);
        [
            (id % gx) as u32,
            ((id / gx) % gy) as u32,
            (id / (gx * gy)) as u32,
        ]
    }

    pub(crate) fn thread_coords(&self, t: usize) -> [u32; 3] {
        let (bx, by) = (self.block[0] as usize, self.block[1] as usize);
        [
            (t % bx) as u32,
            ((t / bx) % by) as u32,
            (t / (bx * by)) as u32,
        ]
    }

    /// "block (x,y,z) thread (x,y,z)".
    pub(crate) fn thread_name(&self, ctaid: [u32; 3], t: usize) -> String {
        let c = self.thread_coords(t);
        format!(
            "block ({},{},{}) thread ({},{},{})",
            ctaid[0], ctaid[1], ctaid[2], c[0], c[1], c[2]
        )
    }

    /// Special registers of thread `t` of a block, with lanes and warps of `warp_size`.
    pub(crate) fn sregs(&self, ctaid: [u32; 3], t: usize, warp_size: u32) -> Sregs {
        let tid = self.thread_coords(t);
        let mut s = [0u32; 16];
        s[Special::TidX as usize] = tid[0];
        s[Special::TidY as usize] = tid[1];
        s[Special::TidZ as usize] = tid[2];
        s[Special::NtidX as usize] = self.block[0];
        s[Special::NtidY as usize] = self.block[1];
        s[Special::NtidZ as usize] = self.block[2];
        s[Special::CtaidX as usize] = ctaid[0];
        s[Special::CtaidY as usize] = ctaid[1];
        s[Special::CtaidZ as usize] = ctaid[2];
        s[Special::NctaidX as usize] = self.grid[0];
        s[Special::NctaidY as usize] = self.grid[1];
        s[Special::NctaidZ as usize] = self.grid[2];
        s[Special::LaneId as usize] = t as u32 % warp_size;
        s[Special::WarpId as usize] = t as u32 / warp_size;
        s[Special::SmId as usize] = 0;
        s
    }

    pub(crate) fn new_block(&self, id: u64) -> BlockState {
        let n = self.threads_per_block();
        BlockState {
            id,
            ctaid: self.block_coords(id),
            regs: vec![0; n * self.program.regs as usize],
            preds: vec![0; n],
            pcs: vec![0; n],
            status: vec![Status::Ready; n],
            steps: vec![0; n],
            shared: vec![0; (self.program.shared_bytes / 4) as usize],
            live: n,
            waiting: 0,
        }
    }

    /// A fault of thread `t` at `pc`.
    pub(crate) fn fault(&self, ctaid: [u32; 3], t: usize, pc: u32, msg: String) -> Fault {
        let instr = self
            .program
            .code
            .get(pc as usize)
            .map(|i| format_instr(i, &self.program.params, None));
        Fault {
            thread: Some(self.thread_name(ctaid, t)),
            pc: Some(pc),
            instr,
            msg,
        }
    }

    pub(crate) fn mem_fault(&self, ctaid: [u32; 3], t: usize, pc: u32, e: ExecFault) -> Fault {
        let what = match e.kind {
            MemFault::Misaligned => "misaligned",
            MemFault::OutOfBounds => "out-of-bounds",
        };
        let range = if e.shared {
            format!("shared memory is 0x0..{:#x}", self.program.shared_bytes)
        } else {
            format!("global buffers: {}", self.memory.describe())
        };
        let space = if e.shared { "shared" } else { "global" };
        self.fault(
            ctaid,
            t,
            pc,
            format!("{what} {space} access at address {:#x} ({range})", e.addr),
        )
    }

    pub(crate) fn step_limit_fault(&self, ctaid: [u32; 3], t: usize, pc: u32) -> Fault {
        self.fault(
            ctaid,
            t,
            pc,
            format!(
                "step limit of {} instructions reached (runaway loop?)",
                self.max_steps
            ),
        )
    }

    pub(crate) fn pc_fault(&self, ctaid: [u32; 3], t: usize, pc: u32) -> Fault {
        self.fault(
            ctaid,
            t,
            pc,
            format!(
                "PC outside the program of {} instructions",
                self.program.code.len()
            ),
        )
    }

    /// All live threads wait at a barrier: they must all wait at the same `bar.sync`.
    /// Returns its PC.
    pub(crate) fn barrier_pc(&self, bs: &BlockState) -> Result<u32, Fault> {
        let mut first: Option<(usize, u32)> = None;
        for t in 0..bs.status.len() {
            if bs.status[t] != Status::Barrier {
                continue;
            }
            match first {
                None => first = Some((t, bs.pcs[t])),
                Some((t0, pc0)) if bs.pcs[t] != pc0 => {
                    return Err(self.fault(
                        bs.ctaid,
                        t,
                        bs.pcs[t],
                        format!(
                            "divergent barrier: this thread waits here while {} waits at the bar.sync at pc {pc0}; the barrier can never complete",
                            self.thread_coords_text(t0)
                        ),
                    ))
                }
                _ => {}
            }
        }
        Ok(first.map_or(0, |f| f.1))
    }

    fn thread_coords_text(&self, t: usize) -> String {
        let c = self.thread_coords(t);
        format!("thread ({},{},{})", c[0], c[1], c[2])
    }

    /// Releases a completed barrier: waiting threads continue after it.
    fn release(&mut self, bs: &mut BlockState) -> Result<(), Fault> {
        self.barrier_pc(bs)?;
        for t in 0..bs.status.len() {
            if bs.status[t] == Status::Barrier {
                bs.status[t] = Status::Ready;
                bs.pcs[t] += 1;
            }
        }
        bs.waiting = 0;
        self.stats.barriers += 1;
        Ok(())
    }

    /// Runs the whole grid in thread mode, block after block (on a machine not used with
    /// [`Machine::step`]).
    pub fn run(&mut self) -> Result<ThreadStats, Fault> {
        let nblocks = self.num_blocks();
        let mut bs = self.new_block(0);
        for id in 0..nblocks {
            if id > 0 {
                self.reset_block(&mut bs, id);
            }
            self.run_block(&mut bs)?;
            self.stats.blocks += 1;
            self.stats.threads += bs.status.len() as u64;
        }
        Ok(self.stats.clone())
    }

    fn reset_block(&self, bs: &mut BlockState, id: u64) {
        bs.id = id;
        bs.ctaid = self.block_coords(id);
        bs.regs.fill(0);
        bs.preds.fill(0);
        bs.pcs.fill(0);
        bs.status.fill(Status::Ready);
        bs.steps.fill(0);
        bs.shared.fill(0);
        bs.live = bs.status.len();
        bs.waiting = 0;
    }

    fn run_block(&mut self, bs: &mut BlockState) -> Result<(), Fault> {
        let n = bs.status.len();
        loop {
            for t in 0..n {
                if bs.status[t] == Status::Ready {
                    self.run_thread(bs, t)?;
                }
            }
            if bs.waiting == 0 {
                return Ok(()); // every thread has exited
            }
            self.release(bs)?;
        }
    }

    /// Runs thread `t` until it reaches a barrier or exits.
    fn run_thread(&mut self, bs: &mut BlockState, t: usize) -> Result<(), Fault> {
        let nregs = self.program.regs as usize;
        let sregs = self.sregs(bs.ctaid, t, self.warp_size);
        let code = &self.program.code;
        let regs = &mut bs.regs[t * nregs..(t + 1) * nregs];
        let mut pc = bs.pcs[t];
        let mut preds = bs.preds[t];
        let mut steps = bs.steps[t];
        let max = self.max_steps;
        let start_steps = steps;
        let mut env = Env {
            global: &mut self.memory,
            shared: &mut bs.shared,
            params: &self.params,
        };
        let mut partner = 0u64;
        let result = loop {
            let Some(ins) = code.get(pc as usize) else {
                break Err(Stop::Pc);
            };
            if steps >= max {
                break Err(Stop::Limit);
            }
            steps += 1;
            if !guard_passes(ins, preds) {
                pc += 1;
                continue;
            }
            match exec(ins, regs, &mut preds, &sregs, steps - 1, &mut env) {
                Ok(Flow::Next) => {
                    if ins.op == Op::BarPartner {
                        partner += 1;
                    }
                    pc += 1
                }
                Ok(Flow::Jump(target)) => pc = target,
                Ok(Flow::Exit) => break Ok(Status::Exited),
                Ok(Flow::Barrier) => break Ok(Status::Barrier),
                Err(e) => break Err(Stop::Mem(e)),
            }
        };
        bs.pcs[t] = pc;
        bs.preds[t] = preds;
        bs.steps[t] = steps;
        self.stats.thread_instructions += steps - start_steps;
        self.stats.partner_barriers += partner;
        match result {
            Ok(Status::Exited) => {
                bs.status[t] = Status::Exited;
                bs.live -= 1;
                Ok(())
            }
            Ok(_) => {
                bs.status[t] = Status::Barrier;
                bs.waiting += 1;
                Ok(())
            }
            Err(Stop::Pc) => Err(self.pc_fault(bs.ctaid, t, pc)),
            Err(Stop::Limit) => Err(self.step_limit_fault(bs.ctaid, t, pc)),
            Err(Stop::Mem(e)) => Err(self.mem_fault(bs.ctaid, t, pc, e)),
        }
    }

    /// Executes the next instruction of one thread (block `block` in linear order, thread
    /// `thread` in linear order within the block). Blocks start on their first step.
    pub fn step(&mut self, block: u64, thread: u32) -> Result<StepOutcome, Fault> {
        if block >= self.num_blocks() || thread as usize >= self.threads_per_block() {
            return Err(Fault::launch(format!(
                "no thread {thread} in block {block}: the launch has {} blocks of {} threads",
                self.num_blocks(),
                self.threads_per_block()
            )));
        }
        if self.finished.contains(&block) {
            return Ok(StepOutcome::Exited);
        }
        let mut bs = match self.resident.remove(&block) {
            Some(b) => b,
            None => {
                self.stats.blocks += 1;
                self.stats.threads += self.threads_per_block() as u64;
                self.new_block(block)
            }
        };
        let r = self.step_in(&mut bs, thread as usize);
        if bs.live == 0 {
            self.finished.insert(block);
        } else {
            self.resident.insert(block, bs);
        }
        r
    }

    fn step_in(&mut self, bs: &mut BlockState, t: usize) -> Result<StepOutcome, Fault> {
        match bs.status[t] {
            Status::Exited => return Ok(StepOutcome::Exited),
            Status::Barrier => return Ok(StepOutcome::WaitingAtBarrier),
            Status::Ready => {}
        }
        let pc = bs.pcs[t];
        let Some(&ins) = self.program.code.get(pc as usize) else {
            return Err(self.pc_fault(bs.ctaid, t, pc));
        };
        if bs.steps[t] >= self.max_steps {
            return Err(self.step_limit_fault(bs.ctaid, t, pc));
        }
        let clock = bs.steps[t];
        bs.steps[t] += 1;
        self.stats.thread_instructions += 1;
        let mut r = Retired {
            pc,
            instr: ins,
            executed: guard_passes(&ins, bs.preds[t]),
            next_pc: pc + 1,
            reg_write: None,
            pred_write: None,
            mem_write: None,
            event: Event::None,
        };
        if !r.executed {
            bs.pcs[t] = pc + 1;
            return Ok(StepOutcome::Retired(r));
        }
        let nregs = self.program.regs as usize;
        let sregs = self.sregs(bs.ctaid, t, self.warp_size);
        let regs = &mut bs.regs[t * nregs..(t + 1) * nregs];
        // The address a store or atomic writes, read before the instruction runs (its
        // destination may be its base register).
        let base = if ins.a_sreg {
            sregs[(ins.a & 15) as usize]
        } else {
            regs.get(ins.a as usize).copied().unwrap_or(0)
        };
        let fmt = ins.op.format();
        let write_addr = match fmt {
            Format::Store | Format::Atom => Some(base.wrapping_add(ins.imm)),
            Format::Cas => Some(base),
            _ => None,
        };
        let mut env = Env {
            global: &mut self.memory,
            shared: &mut bs.shared,
            params: &self.params,
        };
        let flow = exec(&ins, regs, &mut bs.preds[t], &sregs, clock, &mut env);
        let flow = match flow {
            Ok(f) => f,
            Err(e) => return Err(self.mem_fault(bs.ctaid, t, pc, e)),
        };
        if ins.op == Op::BarPartner {
            self.stats.partner_barriers += 1;
        }
        let uses = FieldUse::of(fmt, ins.b_imm);
        if uses.d == Field::Reg {
            r.reg_write = Some((ins.d, bs.regs[t * nregs + ins.d as usize]));
        }
        if matches!(fmt, Format::Setp | Format::Pred1 | Format::Pred2) {
            r.pred_write = Some((ins.d, (bs.preds[t] >> ins.d) & 1 == 1));
        }
        if let Some(addr) = write_addr {
            let shared = matches!(
                ins.op,
                Op::StShared
                    | Op::AtomSAdd
                    | Op::AtomSMaxS
                    | Op::AtomSMaxU
                    | Op::AtomSExch
                    | Op::AtomSCas
            );
            let value = if shared {
                bs.shared[(addr >> 2) as usize]
            } else {
                self.memory.words[self.memory.index(addr).unwrap_or(0)]
            };
            r.mem_write = Some(MemWrite {
                space: if shared { Space::Shared } else { Space::Global },
                addr,
                value,
            });
        }
        match flow {
            Flow::Next => bs.pcs[t] = pc + 1,
            Flow::Jump(target) => {
                bs.pcs[t] = target;
                r.next_pc = target;
            }
            Flow::Exit => {
                r.event = Event::Exit;
                bs.status[t] = Status::Exited;
                bs.live -= 1;
                if bs.live > 0 && bs.waiting == bs.live {
                    self.release(bs)?;
                }
            }
            Flow::Barrier => {
                r.event = Event::Barrier;
                bs.status[t] = Status::Barrier;
                bs.waiting += 1;
                if bs.waiting == bs.live {
                    self.release(bs)?;
                }
            }
        }
        Ok(StepOutcome::Retired(r))
    }

    /// A register of a thread started by [`Machine::step`] (None if not resident).
    pub fn reg(&self, block: u64, thread: u32, r: u8) -> Option<u32> {
        let bs = self.resident.get(&block)?;
        let n = self.program.regs as usize;
        bs.regs.get(thread as usize * n + r as usize).copied()
    }

    /// Overwrites a register of a resident thread (lockstep takes values such as `%clock`
    /// from the hardware). Returns false if the thread is not resident.
    pub fn set_reg(&mut self, block: u64, thread: u32, r: u8, value: u32) -> bool {
        let n = self.program.regs as usize;
        if r as usize >= n {
            return false;
        }
        match self.resident.get_mut(&block) {
            Some(bs) if (thread as usize) < bs.status.len() => {
                bs.regs[thread as usize * n + r as usize] = value;
                true
            }
            _ => false,
        }
    }

    /// The next PC of a resident thread.
    pub fn pc(&self, block: u64, thread: u32) -> Option<u32> {
        self.resident.get(&block)?.pcs.get(thread as usize).copied()
    }

    /// Blocks whose every thread has exited.
    pub fn blocks_finished(&self) -> u64 {
        self.finished.len() as u64
    }

    /// The parameter words `ld.param` reads (buffer parameters resolved to base addresses).
    pub fn param_words(&self) -> &[u32] {
        &self.params
    }
}

enum Stop {
    Pc,
    Limit,
    Mem(ExecFault),
}
