//! DTM execution mode: a kernel's warps run on the interpreter (PDOM stack per warp, as in
//! warp mode) with an SM's DTM@GPU tables (spec/dtm.md §3.5) deciding, per warp instruction,
//! which lanes reuse a memoized trace or result and which execute. Every warp instruction is
//! presented to the `dtm` top (an [`DtmEngine`]: the `dtm` model, or its RTL in lockstep with
//! the model): its eligibility (§2.6 on this ISA), per-lane operands and guards; the driver
//! answers the top's operand-collector reads from the threads' registers, then
//!
//! - trace lanes take the trace's output context (their registers), skip-masked lanes are
//!   not executed until the warp reaches `resume_pc` (the top keeps the skip region);
//! - MTG-hit lanes take the stored result — it is not recomputed;
//! - the other active, guard-true lanes execute on the interpreter, and their results go
//!   back to the top at writeback (the MTG upserts and trace formation use them).
//!
//! A whole-warp trace hit jumps the warp to `npc` (when the stack's reconvergence PC is not
//! inside the trace; otherwise the driver walks the stack over the trace with those lanes
//! skipped, so reconvergence stays exact).
//!
//! Checks: every reused value against executing the instruction (I2, the shadow check: an
//! MTG result against the lane's execution; a trace's output context against running its
//! instructions from the lane's registers, every register compared); after the kernel the
//! host reference (I1, by the caller), and the counts against warp mode on the same launch
//! (I7: the same thread-instructions and warp-instructions as without DTM).
//!
//! Cycle model (A20, saved cycles measured, not estimated): an in-order SM issuing one warp
//! instruction per issue slot; each warp instruction occupies the functional unit for
//! `G = ceil(warp / fu_width)` cycles (1 by default: `fu_width` = the top's `simd_width`).
//! DTM saves the G cycles of the warp instructions no lane executes: FU-bypassed ones
//! (every active lane reuses, §3.5 rule 3), the instructions a whole-warp trace hit jumps
//! over, and those whose active lanes are all inside a skip region; with `group_skip`
//! (A10) also one cycle per `fu_width`-lane group that has a reused lane and no executed one.
//!
//! Analysis modes (model only, spec A1, A5, A7): with `lane_serial` or `table_scope = lane`
//! each active lane is presented alone, in ascending order (§3.3's per-thread order; lane
//! tables: one top per lane); with `branch_eligible` a branch is presented as eligible with
//! its condition as input, "taken" as result and `BRANCH_DST` as destination.

use warpforge_contract::isa::{Format, Instr, Op};
use warpforge_contract::units::dtm_top::{DtmConfig, DtmModes, BRANCH_DST};
use warpforge_contract::Layout;

use super::alu;
use super::interp::{exec, guard_passes, BlockState, Env, Fault, Machine, Sregs, Status};
use crate::dtm::{DtmModel, Io};
use crate::simt_stack::{Commit, CommitKind, Stack};
use crate::Model;

/// Decides for the driver: one cycle of the `dtm` top's ports.
pub trait DtmEngine {
    /// One cycle; Err when an invariant or a lockstep comparison fails.
    fn cycle(&mut self, inputs: &[u64], outputs: &mut [u64]) -> Result<(), String>;
    /// A5's analysis mode (`branch_eligible`): only the model has it.
    fn analysis(&mut self, branch_eligible: bool) -> Result<(), String> {
        if branch_eligible {
            return Err("branch_eligible = 1: analysis only, with --model-only".into());
        }
        Ok(())
    }
    /// The tables' state as one hash (the model's: in lockstep its tables are the RTL's, I8).
    fn table_digest(&self) -> u64;
}

/// Makes the engine for a configuration (the execution mode sizes the top per kernel).
pub type MakeEngine<'a> = dyn FnMut(&DtmConfig) -> Result<Box<dyn DtmEngine>, String> + 'a;

/// The `dtm` model alone, its invariants checked every cycle.
pub struct ModelEngine {
    pub model: DtmModel,
}

impl ModelEngine {
    pub fn new(cfg: &DtmConfig) -> ModelEngine {
        ModelEngine {
            model: DtmModel::new(cfg),
        }
    }
}

impl DtmEngine for ModelEngine {
    fn cycle(&mut self, inputs: &[u64], outputs: &mut [u64]) -> Result<(), String> {
        self.model.step(inputs, outputs);
        self.model.check_invariants()
    }
    fn analysis(&mut self, branch_eligible: bool) -> Result<(), String> {
        self.model.set_branch_eligible(branch_eligible);
        Ok(())
    }
    fn table_digest(&self) -> u64 {
        self.model.table_digest()
    }
}

/// What a DTM run measured (thread-instructions are lane slots, as in warp mode).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct DtmStats {
    pub warp_size: usize,
    /// Lanes the functional unit runs per cycle (a warp instruction takes
    /// `ceil(warp_size / fu_width)` cycles).
    pub fu_width: usize,
    /// Warp instructions of the baseline (issued + jumped over by whole-warp trace hits).
    pub warp_instructions: u64,
    /// Thread-instructions (active lanes), identical with DTM off (I7).
    pub itot: u64,
    pub inter: u64,
    pub intra: u64,
    /// Thread-instructions covered by reused traces.
    pub trace: u64,
    /// Warp instructions presented to the tables.
    pub requests: u64,
    /// Warp instructions whose active lanes all reused (the FU was bypassed).
    pub bypassed: u64,
    pub full_trace_hits: u64,
    pub partial_trace_hits: u64,
    /// Warp instructions a whole-warp trace hit jumped over.
    pub jumped: u64,
    /// Warp instructions whose active lanes were all inside a skip region.
    pub skipped: u64,
    /// A10 (`group_skip`): FU cycles saved by lane groups whose active lanes all reused, in
    /// warp instructions that still issued.
    pub saved_groups: u64,
    /// Lane groups with no active lane in warp instructions that occupied the FU (SIMT
    /// divergence, not DTM: never credited).
    pub idle_groups: u64,
    /// Cycle model (A20): issue cycles without DTM, saved, with DTM.
    pub cycles_without: u64,
    pub saved_cycles: u64,
    pub cycles_dtm: u64,
    /// Cycles of the `dtm` top spent (its sequencer is not part of the cycle model).
    pub engine_cycles: u64,
    /// The tables' digest after the kernel's last instruction differs from the one after
    /// reset (I12: never with `enable = 0`).
    pub tables_changed: bool,
}

impl DtmStats {
    fn pct(&self, x: u64) -> f64 {
        100.0 * x as f64 / self.itot.max(1) as f64
    }
    /// Reused thread-instructions in percent of `itot` (§3.6).
    pub fn reuse_pct(&self) -> f64 {
        self.pct(self.inter + self.intra + self.trace)
    }
    /// Share of the reused thread-instructions: (inter, intra, trace) in percent.
    pub fn split_pct(&self) -> (f64, f64, f64) {
        let r = (self.inter + self.intra + self.trace).max(1) as f64;
        (
            100.0 * self.inter as f64 / r,
            100.0 * self.intra as f64 / r,
            100.0 * self.trace as f64 / r,
        )
    }
    pub fn speedup(&self) -> f64 {
        self.cycles_without as f64 / self.cycles_dtm.max(1) as f64
    }
    fn add(&mut self, o: &DtmStats) {
        self.warp_instructions += o.warp_instructions;
        self.itot += o.itot;
        self.inter += o.inter;
        self.intra += o.intra;
        self.trace += o.trace;
        self.requests += o.requests;
        self.bypassed += o.bypassed;
        self.full_trace_hits += o.full_trace_hits;
        self.partial_trace_hits += o.partial_trace_hits;
        self.jumped += o.jumped;
        self.skipped += o.skipped;
        self.saved_groups += o.saved_groups;
        self.idle_groups += o.idle_groups;
        self.engine_cycles += o.engine_cycles;
    }
}

const P_CLASS: u64 = 0x100;

/// §2.6 on this ISA: integer lane operations (not FP, not FP conversions, no special
/// register, at most 3 inputs counting the guard; one destination). Branches, exit,
/// barriers, memory and atomics are not.
pub fn sources(ins: &Instr) -> Option<Vec<u64>> {
    let op = ins.op;
    if !alu::is_lane_op(op) || op.is_f32() || ins.a_sreg {
        return None;
    }
    if matches!(
        op,
        Op::CvtF32S32 | Op::CvtF32U32 | Op::CvtS32F32Rz | Op::CvtS32F32Rn | Op::CvtU32F32Rz
    ) {
        return None;
    }
    let mut s = vec![];
    match op.format() {
        Format::Mov if ins.b_imm => {}
        Format::Mov | Format::Alu1 => s.push(ins.a as u64),
        Format::Alu2 | Format::Setp => {
            s.push(ins.a as u64);
            if !ins.b_imm {
                s.push(ins.b as u64);
            }
        }
        Format::Alu3 => s.extend([ins.a as u64, ins.b as u64, ins.c() as u64]),
        Format::Selp => s.extend([ins.a as u64, ins.b as u64, P_CLASS | ins.c() as u64]),
        Format::Pred2 => s.extend([P_CLASS | ins.a as u64, P_CLASS | ins.b as u64]),
        Format::Pred1 => s.push(P_CLASS | ins.a as u64),
        _ => return None,
    }
    if let Some(g) = ins.guard {
        s.push(P_CLASS | g.pred as u64);
    }
    (s.len() <= 3).then_some(s)
}

fn dest(ins: &Instr) -> u64 {
    if alu::writes_pred(ins.op) {
        P_CLASS | ins.d as u64
    } else {
        ins.d as u64
    }
}

fn read(regs: &[u32], preds: u8, rid: u64) -> u64 {
    if rid & P_CLASS != 0 {
        (preds >> (rid & 7)) as u64 & 1
    } else {
        regs.get(rid as usize).copied().unwrap_or(0) as u64
    }
}

fn write(regs: &mut [u32], preds: &mut u8, rid: u64, v: u64) {
    if rid & P_CLASS != 0 {
        let bit = 1u8 << (rid & 7);
        *preds = if v & 1 == 1 {
            *preds | bit
        } else {
            *preds & !bit
        };
    } else if let Some(r) = regs.get_mut(rid as usize) {
        *r = v as u32;
    }
}

/// The top's ports as the driver sees them.
struct Port<'e> {
    engine: &'e mut dyn DtmEngine,
    cfg: DtmConfig,
    i: Io,
    o: Io,
    cycles: u64,
}

impl<'e> Port<'e> {
    fn new(engine: &'e mut dyn DtmEngine, cfg: &DtmConfig) -> Port<'e> {
        let lay = Layout::new(&cfg.ports());
        Port {
            engine,
            cfg: cfg.clone(),
            i: Io::new(&lay, true),
            o: Io::new(&lay, false),
            cycles: 0,
        }
    }
    fn tick(&mut self) -> Result<(), String> {
        let mut out = vec![0; self.o.w.len()];
        self.engine.cycle(&self.i.w, &mut out)?;
        self.o.w = out;
        self.i.clear();
        self.cycles += 1;
        Ok(())
    }
    /// Ticks until `port` reads 1 (the output seen is the previous cycle's).
    fn wait_for(&mut self, port: &'static str) -> Result<(), String> {
        let start = self.cycles;
        while self.o.get(port, 0, 1) == 0 {
            if self.cycles - start > 1_000_000 {
                return Err(format!("the dtm top never raised {port}"));
            }
            self.tick()?;
        }
        Ok(())
    }
    fn wait_ready(&mut self) -> Result<(), String> {
        self.tick()?;
        self.wait_for("rq_ready")
    }
    fn reset(&mut self) -> Result<(), String> {
        for _ in 0..2 {
            self.i.set("reset", 0, 1, 1);
            self.tick()?;
        }
        self.wait_ready()
    }
    /// Kernel retire (A18).
    fn retire(&mut self) -> Result<(), String> {
        self.i.set("ret_valid", 0, 1, 1);
        self.i.set("ret_kid", 0, self.cfg.mtg.kid_bits, 1);
        self.tick()?;
        self.wait_ready()
    }
}

struct Warp {
    stack: Stack,
    live: u64,
    at_barrier: bool,
    /// Lanes a whole-warp trace hit covered, skipped until the warp reaches the PC.
    skip: Option<(u64, u64)>,
    /// Per-lane presentation: the PC each lane's own reused trace resumes at.
    resume: Vec<Option<u64>>,
}

/// Runs the grid with `engine` (sized for the kernel's block by the caller: warps =
/// ceil(block / simd_width)). Returns the counts; the caller checks the host reference.
pub fn run_dtm(
    m: &mut Machine,
    cfg: &DtmConfig,
    engine: &mut dyn DtmEngine,
) -> Result<DtmStats, String> {
    run_dtm_modes(m, cfg, &DtmModes::default(), vec![engine])
}

/// As [`run_dtm`] under the analysis and cycle-model modes: `engines` is one engine of
/// `cfg` (`table_scope = sm`) or one engine of `cfg.lane_table()` per lane.
pub fn run_dtm_modes(
    m: &mut Machine,
    cfg: &DtmConfig,
    modes: &DtmModes,
    engines: Vec<&mut dyn DtmEngine>,
) -> Result<DtmStats, String> {
    let want = if modes.lane_tables { cfg.simd } else { 1 };
    if engines.len() != want {
        return Err(format!("{} engines for {want} table pairs", engines.len()));
    }
    let ecfg = if modes.lane_tables {
        cfg.lane_table()
    } else {
        cfg.clone()
    };
    let mut ports: Vec<Port> = vec![];
    let mut digests = vec![];
    for e in engines {
        e.analysis(modes.branch_eligible)?;
        let mut p = Port::new(e, &ecfg);
        p.reset()?;
        digests.push(p.engine.table_digest());
        ports.push(p);
    }
    let fu = if modes.fu_width == 0 {
        cfg.simd
    } else {
        modes.fu_width
    };
    let mut st = DtmStats {
        warp_size: cfg.simd,
        fu_width: fu,
        ..DtmStats::default()
    };
    let run = Run { cfg, modes, fu };
    for id in 0..m.num_blocks() {
        let b = run_block(m, id, &run, &mut ports).map_err(|e| format!("block {id}: {e}"))?;
        st.add(&b);
    }
    st.tables_changed = ports
        .iter()
        .zip(&digests)
        .any(|(p, d)| p.engine.table_digest() != *d);
    for p in ports.iter_mut() {
        p.retire()?;
        st.engine_cycles += p.cycles;
    }
    let g = cfg.simd.div_ceil(fu) as u64;
    st.saved_cycles = (st.bypassed + st.jumped + st.skipped) * g + st.saved_groups;
    st.cycles_without = st.warp_instructions * g;
    st.cycles_dtm = st.cycles_without - st.saved_cycles;
    Ok(st)
}

/// What every warp instruction of a run needs to know.
struct Run<'a> {
    cfg: &'a DtmConfig,
    modes: &'a DtmModes,
    /// Lanes per FU cycle.
    fu: usize,
}

fn run_block(m: &mut Machine, id: u64, run: &Run, ports: &mut [Port]) -> Result<DtmStats, String> {
    let cfg = run.cfg;
    let w = cfg.simd;
    let mut bs = m.new_block(id);
    let n = bs.status.len();
    let sregs: Vec<Sregs> = (0..n).map(|t| m.sregs(bs.ctaid, t, w as u32)).collect();
    let nwarps = n.div_ceil(w);
    if nwarps > cfg.warps {
        return Err(format!(
            "{nwarps} warps per block; the dtm top has warps = {}",
            cfg.warps
        ));
    }
    let depth = super::warp::default_stack_depth(w as u32);
    let mut warps: Vec<Warp> = (0..nwarps)
        .map(|k| {
            let lanes = (n - k * w).min(w);
            let mask = if lanes == 64 {
                u64::MAX
            } else {
                (1u64 << lanes) - 1
            };
            let mut stack = Stack::new(depth);
            stack.launch(0, mask);
            Warp {
                stack,
                live: mask,
                at_barrier: false,
                skip: None,
                resume: vec![None; w],
            }
        })
        .collect();
    let mut st = DtmStats::default();
    let uid0 = id * n as u64;
    loop {
        let mut progress = false;
        for (k, wp) in warps.iter_mut().enumerate() {
            if wp.at_barrier || wp.stack.is_empty() {
                continue;
            }
            progress = true;
            let mut ctx = Ctx {
                m,
                bs: &mut bs,
                sregs: &sregs,
                uid0,
            };
            issue(&mut ctx, wp, k, run, ports, &mut st)?;
        }
        if progress {
            continue;
        }
        if bs.waiting == 0 {
            return Ok(st);
        }
        m.barrier_pc(&bs).map_err(|f| f.to_string())?;
        for t in 0..n {
            if bs.status[t] == Status::Barrier {
                bs.status[t] = Status::Ready;
            }
        }
        bs.waiting = 0;
        for wp in warps.iter_mut() {
            wp.at_barrier = false;
        }
    }
}

/// The block being run.
struct Ctx<'a> {
    m: &'a mut Machine,
    bs: &'a mut BlockState,
    sregs: &'a [Sregs],
    uid0: u64,
}

/// One instruction as the tables see it.
struct Req {
    pc: u32,
    ins: Instr,
    /// Register sources (§2.6), None if ineligible.
    srcs: Option<Vec<u64>>,
    dst: u64,
    branch: bool,
}

/// The top's answer, in the warp's lanes.
#[derive(Default)]
struct Rsp {
    grp: u64,
    hit: u64,
    inter: u64,
    exec: u64,
    full: bool,
    bypass: bool,
    npc: u64,
    len: u64,
    /// Lanes the top's skip region takes out of this instruction.
    top_skip: u64,
}

/// Presents the lanes `act` of warp `k` (lane `l` is the engine's lane `l - shift`; the
/// engine's warp `k`) to `port`, answers its operand reads, applies its answer to the
/// threads' registers (checking every reused value, I2), executes the other lanes and
/// completes the writeback.
#[allow(clippy::too_many_arguments)]
fn present(
    cx: &mut Ctx,
    port: &mut Port,
    k: usize,
    first: usize,
    rq: &Req,
    act: u64,
    guard: u64,
    shift: usize,
) -> Result<Rsp, String> {
    let pcfg = port.cfg.clone();
    let (w, v) = (pcfg.simd, pcfg.val_bits());
    let nregs = cx.m.program.regs as usize;
    let pc = rq.pc;
    let (eact, eguard) = (act >> shift, guard >> shift);
    let srcs = rq.srcs.clone().unwrap_or_default();
    {
        let i = &mut port.i;
        i.set("rq_valid", 0, 1, 1);
        i.set("rq_warp", 0, pcfg.warp_bits(), k as u64);
        i.set("rq_kid", 0, pcfg.mtg.kid_bits, 1);
        i.set("rq_pc", 0, pcfg.mtg.pc_bits, pc as u64 * pcfg.tb.isz as u64);
        i.set("rq_act", 0, w, eact);
        i.set("rq_elig", 0, 1, rq.srcs.is_some() as u64);
        i.set("rq_guard", 0, w, eguard);
        for l in (0..w).filter(|l| eact >> l & 1 == 1) {
            let t = first + l + shift;
            let regs = &cx.bs.regs[t * nregs..(t + 1) * nregs];
            for (j, r) in srcs.iter().enumerate() {
                let name = ["rq_sv1", "rq_sv2", "rq_sv3"][j];
                i.set(name, l * v, v, read(regs, cx.bs.preds[t], *r));
            }
            i.set(
                "rq_uid",
                l * pcfg.mtg.uid_bits,
                pcfg.mtg.uid_bits,
                cx.uid0 + t as u64,
            );
        }
        i.set("rq_src_v", 0, 3, (1u64 << srcs.len()) - 1);
        for (j, r) in srcs.iter().enumerate() {
            i.set("rq_src_rid", 9 * j, 9, *r);
        }
        i.set("rq_dst", 0, 9, rq.dst);
    }
    port.tick()?;
    // Operand-collector reads until the response.
    let start = port.cycles;
    while port.o.get("rsp_valid", 0, 1) == 0 {
        if port.cycles - start > 1_000_000 {
            return Err(format!("pc {pc}: the dtm top never responded"));
        }
        if port.o.get("rf_valid", 0, 1) == 1 {
            let l = port.o.get("rf_lane", 0, pcfg.lane_bits()) as usize;
            let t = first + l + shift;
            let regs = &cx.bs.regs[t * nregs..(t + 1) * nregs];
            for s in 0..pcfg.mtt.cand * pcfg.mtt.k_in {
                if port.o.get("rf_rid", s * 10, 1) == 1 {
                    let rid = port.o.get("rf_rid", s * 10 + 1, 9);
                    port.i
                        .set("rf_val", s * v, v, read(regs, cx.bs.preds[t], rid));
                }
            }
        }
        port.tick()?;
    }
    let o = &port.o;
    let (grp, hit, inter, exec_m) = (
        o.get("rsp_trace", 0, w),
        o.get("rsp_hit", 0, w),
        o.get("rsp_inter", 0, w),
        o.get("rsp_exec", 0, w),
    );
    let r = Rsp {
        grp: grp << shift,
        hit: hit << shift,
        inter: inter << shift,
        exec: exec_m << shift,
        full: o.get("rsp_full", 0, 1) == 1,
        bypass: o.get("rsp_bypass", 0, 1) == 1,
        npc: o.get("rsp_npc", 0, pcfg.mtg.pc_bits) / pcfg.tb.isz as u64,
        len: o.get("rsp_len", 0, pcfg.mtt.len_bits()),
        // The top's skip region (rsp_skip after this instruction; the lanes that set it
        // are in grp) takes lanes out of this instruction.
        top_skip: (o.get("rsp_skip", 0, w) & !grp) << shift,
    };
    let top_act = act & !r.top_skip;
    let want = guard & top_act & !r.grp & !r.hit;
    if r.exec != want {
        return Err(format!(
            "pc {pc}: the top executes lanes {:#x}; active guard-true lanes not reused are {want:#x}",
            r.exec
        ));
    }
    let (ob, sl) = (pcfg.oc_bits(), pcfg.slot_bits());
    let mut env = Env {
        global: &mut cx.m.memory,
        shared: &mut cx.bs.shared,
        params: &cx.m.params,
    };
    let code = &cx.m.program.code;
    let ins = &rq.ins;
    for el in (0..w).filter(|l| (grp | hit | exec_m) >> l & 1 == 1) {
        let t = first + el + shift;
        let (regs, preds) = (
            &mut cx.bs.regs[t * nregs..(t + 1) * nregs],
            &mut cx.bs.preds[t],
        );
        if grp >> el & 1 == 1 {
            // I2: the trace run from the lane's registers gives its output context.
            let (mut sr, mut sp) = (regs.to_vec(), *preds);
            for q in pc as u64..pc as u64 + r.len {
                let qi = &code[q as usize];
                if guard_passes(qi, sp) {
                    exec(qi, &mut sr, &mut sp, &cx.sregs[t], 0, &mut env)
                        .map_err(|_| format!("pc {q}: a trace instruction faulted"))?;
                }
            }
            for s in 0..pcfg.mtt.k_out {
                let at = el * ob + s * sl;
                if port.o.get("rsp_oc", at, 1) == 1 {
                    let rid = port.o.get("rsp_oc", at + 1, 9);
                    write(regs, preds, rid, port.o.get("rsp_oc", at + 10, v));
                }
            }
            if sr != regs || sp != *preds {
                return Err(format!(
                    "I2: thread {t}: the trace at pc {pc} (len {}) differs from executing it",
                    r.len
                ));
            }
        } else if hit >> el & 1 == 1 {
            let got = port.o.get("rsp_res", el * v, v);
            let want = if rq.branch {
                guard_passes(ins, *preds) as u64
            } else {
                let (mut sr, mut sp) = (regs.to_vec(), *preds);
                exec(ins, &mut sr, &mut sp, &cx.sregs[t], 0, &mut env)
                    .map_err(|_| format!("pc {pc}: an eligible instruction faulted"))?;
                read(&sr, sp, rq.dst)
            };
            if want != got {
                return Err(format!(
                    "I2: thread {t}: pc {pc}: the MTG gave {got:#x}, executing gives {want:#x}"
                ));
            }
            if !rq.branch {
                write(regs, preds, rq.dst, got);
            }
            port.i.set("wb_res", el * v, v, got);
        } else if rq.branch {
            // The branch's result is its direction (the SIMT stack takes it below).
            port.i
                .set("wb_res", el * v, v, guard_passes(ins, *preds) as u64);
        } else if !matches!(ins.op, Op::Bra | Op::Exit | Op::BarSync) {
            exec(ins, regs, preds, &cx.sregs[t], 0, &mut env).map_err(|e| {
                m_fault_text(pc, t, format!("{:?} access at {:#x}", e.kind, e.addr))
            })?;
            if rq.srcs.is_some() {
                port.i.set("wb_res", el * v, v, read(regs, *preds, rq.dst));
            }
        }
    }
    port.i.set("wb_valid", 0, 1, 1);
    port.tick()?;
    port.wait_ready()?;
    Ok(r)
}

/// §2.6's sources, or A5's analysis mode: a branch's only input is its condition.
fn request(ins: &Instr, pc: u32, branch_eligible: bool) -> Req {
    if branch_eligible && ins.op == Op::Bra {
        let srcs = ins
            .guard
            .map(|g| P_CLASS | g.pred as u64)
            .into_iter()
            .collect();
        return Req {
            pc,
            ins: *ins,
            srcs: Some(srcs),
            dst: BRANCH_DST,
            branch: true,
        };
    }
    Req {
        pc,
        ins: *ins,
        srcs: sources(ins),
        dst: dest(ins),
        branch: false,
    }
}

/// A10: the `fu`-lane groups of this instruction that have a reused lane and no executed
/// one (saved under `group_skip`), and those with no active lane at all (not credited).
fn groups(w: usize, fu: usize, active: u64, reused: u64, exec: u64) -> (u64, u64) {
    let (mut saved, mut idle) = (0, 0);
    for g in 0..w.div_ceil(fu) {
        let gm = mask_bits(fu) << (g * fu);
        if active & gm == 0 {
            idle += 1;
        } else if reused & gm != 0 && exec & gm == 0 {
            saved += 1;
        }
    }
    (saved, idle)
}

fn mask_bits(b: usize) -> u64 {
    if b >= 64 {
        u64::MAX
    } else {
        (1u64 << b) - 1
    }
}

/// One warp instruction of warp `k`.
fn issue(
    cx: &mut Ctx,
    warp: &mut Warp,
    k: usize,
    run: &Run,
    ports: &mut [Port],
    st: &mut DtmStats,
) -> Result<(), String> {
    let (cfg, modes) = (run.cfg, run.modes);
    let w = cfg.simd;
    let first = k * w;
    let top = *warp
        .stack
        .top()
        .expect("a warp with work has a stack entry");
    let (pc, mask) = (top.pc as u32, top.mask);
    let ins = *cx
        .m
        .program
        .code
        .get(pc as usize)
        .ok_or_else(|| format!("warp {k}: PC {pc} outside the program"))?;
    st.warp_instructions += 1;
    st.itot += mask.count_ones() as u64;
    if warp.skip.is_some_and(|(_, r)| r == pc as u64) {
        warp.skip = None;
    }
    for l in 0..w {
        if mask >> l & 1 == 1 && warp.resume[l] == Some(pc as u64) {
            warp.resume[l] = None;
        }
    }
    let lane_skip = (0..w)
        .filter(|&l| mask >> l & 1 == 1 && warp.resume[l].is_some())
        .fold(0u64, |a, l| a | 1 << l);
    let dskip = warp.skip.map_or(0, |s| s.0) | lane_skip;
    let act = mask & !dskip;
    let next_pc = pc as u64 + 1;
    if act == 0 {
        // Every active lane is past this instruction already (a trace hit).
        st.skipped += 1;
        return commit(warp, next_pc, CommitKind::Advance, k, pc);
    }
    let rq = request(&ins, pc, modes.branch_eligible);
    let mut guard = 0u64;
    for l in 0..w {
        if act >> l & 1 == 1 && (rq.branch || guard_passes(&ins, cx.bs.preds[first + l])) {
            guard |= 1 << l;
        }
    }
    // A branch's direction, read before the instruction (its lanes' predicates).
    let taken = (0..w)
        .filter(|&l| act >> l & 1 == 1 && guard_passes(&ins, cx.bs.preds[first + l]))
        .fold(0u64, |a, l| a | 1 << l);
    st.requests += 1;
    let r = if modes.per_lane() {
        // §3.3's per-thread order: each lane alone, in ascending order, sees the upserts
        // and commits of the lanes before it; each lane takes its own trace.
        let mut all = Rsp::default();
        for l in (0..w).filter(|l| act >> l & 1 == 1) {
            let (p, shift) = if modes.lane_tables {
                (&mut ports[l], l)
            } else {
                (&mut ports[0], 0)
            };
            let one = present(cx, p, k, first, &rq, 1 << l, guard & 1 << l, shift)?;
            if one.grp != 0 {
                warp.resume[l] = Some(one.npc);
                st.trace += one.len;
            }
            all.grp |= one.grp;
            all.hit |= one.hit;
            all.inter |= one.inter;
            all.exec |= one.exec;
        }
        all.full = all.grp == act;
        all.bypass = all.exec == 0 && (all.grp | all.hit) != 0;
        all
    } else {
        let r = present(cx, &mut ports[0], k, first, &rq, act, guard, 0)?;
        st.trace += r.grp.count_ones() as u64 * r.len;
        r
    };
    let top_act = act & !r.top_skip;
    if top_act == 0 {
        st.skipped += 1;
    }
    st.inter += r.inter.count_ones() as u64;
    st.intra += (r.hit & !r.inter).count_ones() as u64;
    if r.bypass {
        st.bypassed += 1;
    }
    if r.grp != 0 {
        if r.full {
            st.full_trace_hits += 1;
        } else {
            st.partial_trace_hits += 1;
        }
    }
    if top_act != 0 && !r.bypass {
        let reused = (mask & !top_act) | r.grp | r.hit;
        let (saved, idle) = groups(w, run.fu, mask, reused, r.exec);
        st.idle_groups += idle;
        if modes.group_skip {
            st.saved_groups += saved;
        }
    }
    // Control flow, as in warp mode.
    let run_m = if rq.branch { taken } else { guard };
    let kind = match ins.op {
        Op::Bra => CommitKind::Branch {
            taken: run_m,
            target: ins.target() as u64,
            rpc: ins.rpc() as u64,
        },
        Op::Exit if run_m == mask => {
            for l in (0..w).filter(|l| mask >> l & 1 == 1) {
                cx.bs.status[first + l] = Status::Exited;
            }
            cx.bs.live -= mask.count_ones() as usize;
            warp.live &= !mask;
            CommitKind::Exit
        }
        Op::Exit if run_m == 0 => CommitKind::Advance,
        Op::Exit => CommitKind::Branch {
            taken: run_m,
            target: pc as u64,
            rpc: cx.m.program.code.len() as u64,
        },
        Op::BarSync => {
            if mask != warp.live {
                return Err(format!("pc {pc}: divergent barrier"));
            }
            for l in (0..w).filter(|l| mask >> l & 1 == 1) {
                cx.bs.status[first + l] = Status::Barrier;
                cx.bs.pcs[first + l] = pc;
            }
            cx.bs.waiting += mask.count_ones() as usize;
            warp.at_barrier = true;
            CommitKind::Advance
        }
        _ => CommitKind::Advance,
    };
    if !modes.per_lane() && r.full && r.grp != 0 {
        let (npc, len) = (r.npc, r.len);
        let inside = top.rpc.is_some_and(|rp| rp > pc as u64 && rp < npc);
        st.itot += mask.count_ones() as u64 * (len - 1);
        if !inside {
            // Jump: the instructions in between are never issued.
            st.jumped += len - 1;
            st.warp_instructions += len - 1;
            return commit(warp, npc, CommitKind::Advance, k, pc);
        }
        // Walk the stack over the trace with the lanes skipped (itot counted per issue).
        st.itot -= mask.count_ones() as u64 * (len - 1);
        warp.skip = Some((mask, npc));
    }
    commit(warp, next_pc, kind, k, pc)
}

fn m_fault_text(pc: u32, t: usize, what: String) -> String {
    format!("thread {t} at pc {pc}: {what}")
}

fn commit(
    warp: &mut Warp,
    next_pc: u64,
    kind: CommitKind,
    k: usize,
    pc: u32,
) -> Result<(), String> {
    warp.stack
        .commit(&Commit { next_pc, kind })
        .map_err(|_| format!("warp {k} at pc {pc}: SIMT stack overflow"))
}

/// Warps per block of this launch at the top's warp size.
pub fn warps_needed(m: &Machine, cfg: &DtmConfig) -> usize {
    m.threads_per_block().div_ceil(cfg.simd).max(1)
}

/// The DTM run's counts against warp mode on the same launch (I7): the same warp
/// instructions and thread-instructions.
pub fn check_counts(st: &DtmStats, base: &super::warp::WarpStats) -> Result<(), String> {
    if st.itot != base.active_lanes || st.warp_instructions != base.warp_instructions {
        return Err(format!(
            "I7: with DTM {} thread-instructions in {} warp instructions; without, {} in {}",
            st.itot, st.warp_instructions, base.active_lanes, base.warp_instructions
        ));
    }
    if st.inter + st.intra + st.trace > st.itot {
        return Err("I7: intra + inter + trace > itot".into());
    }
    Ok(())
}

/// For fault messages of the caller.
pub fn fault_text(f: &Fault) -> String {
    f.to_string()
}
