//! CROWN execution mode: a kernel runs on an SM whose warps are regrouped by CROWN (spec
//! crown.md §3). A regrouping engine ([`crate::crown::Engine`]: the `crown` model, or its RTL
//! in lockstep with the model) decides which warp of ≤ w threads issues each cycle; this
//! driver executes those threads for one instruction on the interpreter ([`Machine::step`])
//! and feeds the outcome back as commit events after the pipeline latency:
//!
//! - `bra`: per-lane next PC (taken lanes at the target, the others at pc + 1) and the
//!   branch's reconvergence PC (none when it is the kernel exit, A16);
//! - `exit`: the lanes whose guard holds retire, the others go on;
//! - `ld.global` (the long-latency instruction, A12): a load event at commit time (the warp
//!   may join the Waiting Lookup), then its completion `mem_latency` cycles later;
//! - `bar.sync`: the warp waits (waiting-sync) until every CTA its threads belong to has
//!   released the barrier, then advances; a release is an advance event;
//! - anything else: an advance to pc + 1.
//!
//! Thread slot `t` (lane `t mod w`, thread index `t / w`) is fixed for the thread's life.
//! Resident blocks occupy regions of `ceil(B / w)·w` consecutive slots (with `cta_scope`,
//! `ceil(B / w)` rounded up to a power of two, aligned); a block is launched
//! (its warps enter the second level, T0) when a region is free, up to `max_blocks` at once.
//! Commit events are one per cycle, memory completions first (A19), then commits in issue
//! order, then releases, then launches.

use std::collections::VecDeque;

use warpforge_contract::isa::Op;
use warpforge_contract::units::crown::{kind, CrownConfig, Warp};

use super::interp::{Event, Fault, Machine, StepOutcome};
use crate::crown::{CommitEvent, CrownCounters, CrownIn, Engine};

/// Options of a CROWN run.
#[derive(Clone, Debug)]
pub struct CrownOptions {
    pub cfg: CrownConfig,
    /// Cycles from issue to commit (A21: 8).
    pub pipe_latency: u64,
    /// Cycles from a global load's dispatch to its completion.
    pub mem_latency: u64,
    /// Blocks resident at once (Table 6-1: 8).
    pub max_blocks: usize,
    /// Give up after this many cycles without an issue or a commit.
    pub stall_limit: u64,
    /// A14 `merge_scope = cta`: warps regroup only within a CTA. Each block then occupies an
    /// aligned power-of-two range of thread indices and the lookups get its `cta_mask`.
    pub cta_scope: bool,
}

impl CrownOptions {
    pub fn new(cfg: CrownConfig) -> CrownOptions {
        CrownOptions {
            cfg,
            pipe_latency: 8,
            mem_latency: 100,
            max_blocks: 8,
            stall_limit: 100_000,
            cta_scope: false,
        }
    }
}

/// What a CROWN run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrownStats {
    pub w: usize,
    pub cycles: u64,
    /// Cycles with no issue while some thread was unfinished.
    pub idle_cycles: u64,
    pub blocks: u64,
    pub sync_waits: u64,
    pub loads: u64,
    pub engine: CrownCounters,
}

impl CrownStats {
    /// Eq. 2-1 in percent.
    pub fn lane_activity(&self) -> f64 {
        self.engine.lane_activity(self.w)
    }
}

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum CrownError {
    /// The kernel does not fit the configuration (reported as skipped).
    Skip(String),
    /// The kernel faulted (as in the other modes).
    Fault(Fault),
    /// The engine broke an invariant, lockstep failed, or the run made no progress.
    Engine(String),
}

impl std::fmt::Display for CrownError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CrownError::Skip(s) => write!(f, "skipped: {s}"),
            CrownError::Fault(x) => write!(f, "{x}"),
            CrownError::Engine(s) => write!(f, "crown: {s}"),
        }
    }
}

/// A warp in the pipeline: what its commit will say.
#[derive(Clone, Debug)]
enum Pending {
    /// A ready-made event.
    Event(CommitEvent),
    /// `bar.sync` at `pc`: advance or wait, decided at commit.
    Sync(CommitEvent, u32),
}

/// A warp waiting at `bar.sync` in the second level.
struct SyncRow {
    ev: CommitEvent,
    bar_pc: u32,
}

struct Driver<'a> {
    m: &'a mut Machine,
    w: usize,
    bpad: usize,
    threads_per_block: usize,
    /// Region → resident block.
    region: Vec<Option<u64>>,
    /// Region → threads not yet retired in the engine.
    region_live: Vec<usize>,
    next_block: u64,
    launches: VecDeque<CommitEvent>,
    pipe: VecDeque<(u64, Pending)>,
    mem: VecDeque<(u64, CommitEvent)>,
    releases: VecDeque<CommitEvent>,
    sync_rows: Vec<SyncRow>,
    stats: CrownStats,
}

/// Runs the whole grid with `engine` making the regrouping decisions.
pub fn run_crown(
    m: &mut Machine,
    opts: &CrownOptions,
    engine: &mut dyn Engine,
) -> Result<CrownStats, CrownError> {
    let c = opts.cfg.common().clone();
    let w = c.w;
    let b = m.threads_per_block();
    // Thread slots per block region: whole warps; under `merge_scope = cta` a power of two
    // of thread indices, so that a thread's CTA is the high bits of its thread index.
    let warps_per_block = if opts.cta_scope {
        b.div_ceil(w).next_power_of_two()
    } else {
        b.div_ceil(w)
    };
    let bpad = warps_per_block * w;
    let cta_mask = if opts.cta_scope {
        (c.threads / w - 1) as u64 & !(warps_per_block as u64 - 1)
    } else {
        0
    };
    if bpad > c.threads {
        return Err(CrownError::Skip(format!(
            "a block of {b} threads needs {bpad} thread slots; the SM has threads = {}",
            c.threads
        )));
    }
    let nregions = (c.threads / bpad).min(opts.max_blocks.max(1));
    let mut d = Driver {
        m,
        w,
        bpad,
        threads_per_block: b,
        region: vec![None; nregions],
        region_live: vec![0; nregions],
        next_block: 0,
        launches: VecDeque::new(),
        pipe: VecDeque::new(),
        mem: VecDeque::new(),
        releases: VecDeque::new(),
        sync_rows: vec![],
        stats: CrownStats {
            w,
            ..CrownStats::default()
        },
    };
    let nblocks = d.m.num_blocks();
    let mut cycle = 0u64;
    let mut quiet = 0u64;
    loop {
        d.launch_blocks(nblocks);
        let done = d.next_block == nblocks
            && d.region.iter().all(|r| r.is_none())
            && d.pipe.is_empty()
            && d.mem.is_empty()
            && d.launches.is_empty()
            && d.releases.is_empty();
        if done {
            break;
        }
        // One commit event: memory completions, commits, releases, launches.
        let (src, ev) = if d.mem.front().is_some_and(|x| x.0 <= cycle) {
            (0, d.mem.front().map(|x| x.1.clone()))
        } else if d.pipe.front().is_some_and(|x| x.0 <= cycle) {
            let p = d.pipe.front().unwrap().1.clone();
            (1, Some(d.resolve(p)))
        } else if !d.releases.is_empty() {
            (2, d.releases.front().cloned())
        } else {
            (3, d.launches.front().cloned())
        };
        let inp = CrownIn {
            cmt: ev.clone(),
            iss_ready: true,
            cta_mask,
        };
        let out = engine.cycle(&inp).map_err(|e| {
            CrownError::Engine(format!("cycle {cycle}: {e} [{}]", engine.state_line()))
        })?;
        let mut progress = false;
        if out.cmt_ready {
            if let Some(e) = ev {
                progress = true;
                match src {
                    0 => {
                        d.mem.pop_front();
                    }
                    1 => {
                        d.pipe.pop_front();
                    }
                    2 => {
                        d.releases.pop_front();
                    }
                    _ => {
                        d.launches.pop_front();
                    }
                }
                d.committed(&e, out.tag, cycle, opts)?;
            }
        }
        if let Some((row, warp)) = out.issued {
            progress = true;
            let p = d.execute(row, &warp)?;
            d.pipe.push_back((cycle + opts.pipe_latency, p));
        } else if d.region.iter().any(|r| r.is_some()) {
            d.stats.idle_cycles += 1;
        }
        cycle += 1;
        quiet = if progress { 0 } else { quiet + 1 };
        if quiet > opts.stall_limit {
            return Err(CrownError::Engine(format!(
                "no issue and no commit for {} cycles at cycle {cycle} [{}]",
                opts.stall_limit,
                engine.state_line()
            )));
        }
    }
    if !engine.idle() {
        return Err(CrownError::Engine(format!(
            "the kernel finished but the tables are not empty [{}]",
            engine.state_line()
        )));
    }
    d.stats.cycles = cycle;
    d.stats.engine = engine.counters();
    Ok(d.stats)
}

impl Driver<'_> {
    /// The (block, thread) of slot `t`.
    fn thread_of(&self, t: usize) -> Option<(u64, u32)> {
        let r = t / self.bpad;
        let i = t % self.bpad;
        let b = (*self.region.get(r)?)?;
        (i < self.threads_per_block).then_some((b, i as u32))
    }

    /// Fills free regions with the next blocks (their warps queued as launch events).
    fn launch_blocks(&mut self, nblocks: u64) {
        for r in 0..self.region.len() {
            if self.region[r].is_some() || self.next_block == nblocks {
                continue;
            }
            let b = self.next_block;
            self.next_block += 1;
            self.region[r] = Some(b);
            self.region_live[r] = self.threads_per_block;
            self.stats.blocks += 1;
            let base = r * self.bpad;
            for k in 0..self.bpad / self.w {
                let first = base + k * self.w;
                let n = (self.threads_per_block.saturating_sub(k * self.w)).min(self.w);
                if n == 0 {
                    break;
                }
                let lanes = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
                let thi = vec![(first / self.w) as u64; self.w];
                let warp = Warp { pc: 0, lanes, thi }.normalized(self.w);
                self.launches
                    .push_back(CommitEvent::new(kind::LAUNCH, 0, 0, &warp));
            }
        }
    }

    /// The threads of warp `v` as (lane, block, thread).
    fn lanes_of(&self, v: &Warp) -> Result<Vec<(usize, u64, u32)>, CrownError> {
        let mut out = vec![];
        for l in (0..self.w).filter(|&l| v.lanes >> l & 1 == 1) {
            let t = v.thi[l] as usize * self.w + l;
            let Some((b, i)) = self.thread_of(t) else {
                return Err(CrownError::Engine(format!(
                    "issued thread slot {t} holds no resident thread"
                )));
            };
            out.push((l, b, i));
        }
        Ok(out)
    }

    /// Runs the issued warp's threads for one instruction; returns what its commit will be.
    fn execute(&mut self, row: usize, v: &Warp) -> Result<Pending, CrownError> {
        let pc = v.pc as u32;
        let Some(&ins) = self.m.program.code.get(pc as usize) else {
            return Err(CrownError::Engine(format!(
                "warp issued at pc {pc}, outside the program"
            )));
        };
        let lanes = self.lanes_of(v)?;
        let (mut exited, mut arrived, mut taken) = (0u64, 0u64, 0u64);
        for &(l, b, i) in &lanes {
            let r = match self.m.step(b, i).map_err(CrownError::Fault)? {
                StepOutcome::Retired(r) => r,
                other => {
                    return Err(CrownError::Engine(format!(
                        "block {b} thread {i} issued at pc {pc} but it is {other:?}"
                    )))
                }
            };
            if r.pc != pc {
                return Err(CrownError::Engine(format!(
                    "block {b} thread {i} issued at pc {pc} but its PC is {}",
                    r.pc
                )));
            }
            match r.event {
                Event::Exit => exited |= 1 << l,
                Event::Barrier => arrived |= 1 << l,
                Event::None => {}
            }
            if ins.op == Op::Bra && r.next_pc != pc + 1 {
                taken |= 1 << l;
            }
        }
        if exited != 0 || arrived != 0 {
            self.scan_releases();
        }
        let mut ev = CommitEvent::new(kind::ADVANCE, row, pc as u64 + 1, v);
        Ok(match ins.op {
            Op::Bra => {
                ev.kind = kind::BRANCH;
                ev.taken = taken;
                ev.target = ins.target() as u64;
                let rpc = ins.rpc() as usize;
                ev.rpc = (rpc < self.m.program.code.len()).then_some(rpc as u64);
                Pending::Event(ev)
            }
            Op::Exit => {
                ev.kind = kind::EXIT;
                ev.taken = exited;
                Pending::Event(ev)
            }
            Op::BarSync => {
                if arrived != v.lanes {
                    return Err(CrownError::Engine(format!(
                        "bar.sync at pc {pc} with lanes {:#x} guarded off",
                        v.lanes & !arrived
                    )));
                }
                self.stats.sync_waits += 1;
                Pending::Sync(ev, pc)
            }
            Op::LdGlobal => {
                ev.kind = kind::LOAD;
                ev.pc = pc as u64;
                self.stats.loads += 1;
                Pending::Event(ev)
            }
            _ => Pending::Event(ev),
        })
    }

    /// Has every thread of `ev` gone past the `bar.sync` at `bar_pc` (its CTA released it)?
    fn released(&self, ev: &CommitEvent, bar_pc: u32) -> bool {
        let v = ev.warp(ev.pc, ev.lanes);
        let Ok(lanes) = self.lanes_of(&v) else {
            return false;
        };
        lanes
            .iter()
            .all(|&(_, b, i)| self.m.pc(b, i).is_none_or(|p| p != bar_pc))
    }

    /// Rows waiting at `bar.sync` whose CTAs have all released it go on (release events).
    fn scan_releases(&mut self) {
        let mut k = 0;
        while k < self.sync_rows.len() {
            if self.released(&self.sync_rows[k].ev, self.sync_rows[k].bar_pc) {
                let s = self.sync_rows.swap_remove(k);
                let mut ev = s.ev;
                ev.kind = kind::ADVANCE;
                self.releases.push_back(ev);
            } else {
                k += 1;
            }
        }
    }

    /// The commit event of a pipeline entry, decided at commit time.
    fn resolve(&self, p: Pending) -> CommitEvent {
        match p {
            Pending::Event(e) => e,
            Pending::Sync(mut e, bar_pc) => {
                e.kind = if self.released(&e, bar_pc) {
                    kind::ADVANCE
                } else {
                    kind::SYNC
                };
                e
            }
        }
    }

    /// Book-keeping after the engine took event `e`.
    fn committed(
        &mut self,
        e: &CommitEvent,
        tag: Option<(bool, usize)>,
        cycle: u64,
        opts: &CrownOptions,
    ) -> Result<(), CrownError> {
        match e.kind {
            kind::SYNC => {
                let bar_pc = e.pc as u32 - 1;
                self.sync_rows.push(SyncRow {
                    ev: e.clone(),
                    bar_pc,
                });
                // A release between the decision and now.
                self.scan_releases();
            }
            kind::LOAD => {
                let Some((in_wl, row)) = tag else {
                    return Err(CrownError::Engine("a load event without a tag".into()));
                };
                let mut done = e.clone();
                if in_wl {
                    done.kind = kind::COMPLETE;
                    done.row = row;
                    done.taken = e.lanes;
                } else {
                    done.kind = kind::ADVANCE;
                    done.pc = e.pc + 1;
                }
                self.mem.push_back((cycle + opts.mem_latency, done));
            }
            kind::EXIT => {
                for l in (0..self.w).filter(|&l| (e.lanes & e.taken) >> l & 1 == 1) {
                    let t = e.thi[l] as usize * self.w + l;
                    let r = t / self.bpad;
                    self.region_live[r] -= 1;
                    if self.region_live[r] == 0 {
                        self.region[r] = None;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}
