//! The `dtm` top model: the `dtm-mtg`, `dtm-mtt` and `dtm-tb` models composed through their
//! ports, sequenced by the contract's warp-level rules (spec/dtm.md §3.5). Each cycle: the
//! units' inputs from the sequencer state and the top's inputs (the MTT's upsert port from the
//! trace buffers' commit of the same cycle, so the buffers step first), then the units step,
//! then the top's outputs and the sequencer's next state from the units' outputs.

use std::cell::Cell;
use std::collections::HashMap;

use warpforge_contract::units::dtm_mtg::MtgConfig;
use warpforge_contract::units::dtm_top::{state::*, DtmConfig, BRANCH_DST};
use warpforge_contract::Layout;

use crate::dtm_mtg::DtmMtgModel;
use crate::dtm_mtt::DtmMttModel;
use crate::dtm_tb::DtmTbModel;
use crate::words;
use crate::Model;

/// A deliberate sequencer bug, for the tests that show the checks and lockstep catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtmFault {
    /// The group takes every hit lane, not only those with the leader's `npc` (A9 broken).
    GroupIgnoresNpc,
    /// A reused MTG result is delivered one too high (the execution mode's I2 must catch it).
    ResultOffByOne,
    /// A trace's first output value is delivered one too high (I2 on traces).
    TraceValueOffByOne,
    /// Under `branch_eligible` an INTRA branch is appended to its thread's trace (a trace
    /// then ends in a branch and resumes after it even where the branch was taken).
    BranchEntersTrace,
    /// With `enable = 0` the sequencer still looks up and upserts the MTG (I12 broken).
    InsertWhileDisabled,
}

/// FNV-1a: port names are looked up ~100 times a cycle; SipHash dominated the model's time.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h = (h ^ *b as u64).wrapping_mul(0x100_0000_01b3);
        }
        self.0 = h;
    }
}

type Slots = HashMap<&'static str, (usize, usize), std::hash::BuildHasherDefault<Fnv>>;

/// Port words of one unit, addressed by port name.
pub struct Io {
    slots: Slots,
    /// The last lookups, direct-mapped by the name's address: the model names ports ~100
    /// times a cycle, and hashing and comparing the names took a fifth of its time. Names
    /// are `'static`, so one address and length always spell the same name.
    cache: [Cell<(usize, usize, usize, usize)>; CACHE],
    pub w: Vec<u64>,
}

const CACHE: usize = 256;

impl Io {
    pub fn new(lay: &Layout, inputs: bool) -> Io {
        let (list, n) = if inputs {
            (&lay.inputs, lay.in_words)
        } else {
            (&lay.outputs, lay.out_words)
        };
        let slots = list
            .iter()
            .map(|s| {
                let name: &'static str = Box::leak(s.name.clone().into_boxed_str());
                (name, (s.offset, s.words))
            })
            .collect();
        Io {
            slots,
            // Address 0 is no name's.
            cache: std::array::from_fn(|_| Cell::new((0, 0, 0, 0))),
            w: vec![0; n],
        }
    }
    /// (word offset, words) of port `name`.
    fn slot(&self, name: &'static str) -> (usize, usize) {
        let a = name.as_ptr() as usize;
        let c = &self.cache[(a ^ name.len()).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56];
        let (ca, cl, o, n) = c.get();
        if ca == a && cl == name.len() {
            return (o, n);
        }
        let (o, n) = self.slots[name];
        c.set((a, name.len(), o, n));
        (o, n)
    }
    pub fn get(&self, name: &'static str, bit: usize, width: usize) -> u64 {
        words::get(&self.w[self.slot(name).0..], bit, width)
    }
    pub fn set(&mut self, name: &'static str, bit: usize, width: usize, v: u64) {
        let o = self.slot(name).0;
        words::set(&mut self.w[o..], bit, width, v);
    }
    pub fn words(&self, name: &'static str) -> &[u64] {
        let (o, n) = self.slot(name);
        &self.w[o..o + n]
    }
    pub fn set_words(&mut self, name: &'static str, v: &[u64]) {
        let (o, n) = self.slot(name);
        let k = v.len().min(n);
        self.w[o..o + k].copy_from_slice(&v[..k]);
        self.w[o + k..o + n].iter_mut().for_each(|x| *x = 0);
    }
    pub fn clear(&mut self) {
        self.w.iter_mut().for_each(|x| *x = 0);
    }
}

/// Counters of what the top did (coverage; the first is its main action).
#[derive(Clone, Copy, Debug, Default)]
pub struct DtmEvents {
    pub requests: u64,
    pub trace_lanes: u64,
    pub full_hits: u64,
    pub partial_hits: u64,
    pub inter: u64,
    pub intra: u64,
    pub bypasses: u64,
    pub skipped_requests: u64,
    pub commits: u64,
    pub retires: u64,
    /// Thread-instructions: active lanes, plus the instructions a reused trace covers.
    pub itot: u64,
    /// Thread-instructions covered by reused traces.
    pub trace_instrs: u64,
}

/// The sequencer's registers.
#[derive(Clone, Debug)]
struct Seq {
    state: u64,
    lane: usize,
    tid: usize,
    cnt: usize,
    warp: usize,
    kid: u64,
    pc: u64,
    act: u64,
    mttl: u64,
    elig: bool,
    guard: u64,
    sv: [Vec<u64>; 3],
    uid: Vec<u64>,
    src_v: u64,
    src_rid: u64,
    dst: u64,
    thit: u64,
    tnpc: Vec<u64>,
    tlen: Vec<u64>,
    toc: Vec<Vec<u64>>,
    grp: u64,
    full: bool,
    mlk: u64,
    mhit: u64,
    mres: Vec<u64>,
    muid: Vec<u64>,
    wres: Vec<u64>,
    skip: Vec<u64>,
    resume: Vec<u64>,
    ret_all: bool,
    ret_kid: u64,
}

impl Seq {
    /// The state after reset: waiting for the MTG's reset flush.
    fn new(cfg: &DtmConfig) -> Seq {
        let s = cfg.simd;
        let ocw = cfg.oc_bits().div_ceil(64);
        Seq {
            state: RET_WAIT,
            lane: 0,
            tid: 0,
            cnt: 0,
            warp: 0,
            kid: 0,
            pc: 0,
            act: 0,
            mttl: 0,
            elig: false,
            guard: 0,
            sv: [vec![0; s], vec![0; s], vec![0; s]],
            uid: vec![0; s],
            src_v: 0,
            src_rid: 0,
            dst: 0,
            thit: 0,
            tnpc: vec![0; s],
            tlen: vec![0; s],
            toc: vec![vec![0; ocw]; s],
            grp: 0,
            full: false,
            mlk: 0,
            mhit: 0,
            mres: vec![0; s],
            muid: vec![0; s],
            wres: vec![0; s],
            skip: vec![0; cfg.warps],
            resume: vec![0; cfg.warps],
            ret_all: false,
            ret_kid: 0,
        }
    }
}

pub struct DtmModel {
    cfg: DtmConfig,
    top_in: Io,
    top_out: Io,
    mtg: DtmMtgModel,
    mtt: DtmMttModel,
    tb: DtmTbModel,
    gi: Io,
    go: Io,
    ti: Io,
    to: Io,
    bi: Io,
    bo: Io,
    s: Seq,
    ev: DtmEvents,
    err: Option<String>,
    fault: Option<DtmFault>,
    /// Analysis mode A5 (`branch_eligible`, model only): a request with destination
    /// `BRANCH_DST` is a branch; every lane's trace buffer closes on it.
    branch_eligible: bool,
    /// I12 with `enable = 0`: the tables' digest when the top first became ready after
    /// reset (None before that), and the cycles since.
    i12_ref: Option<u64>,
    i12_cycles: u64,
}

fn mask(b: usize) -> u64 {
    if b >= 64 {
        u64::MAX
    } else {
        (1u64 << b) - 1
    }
}

impl DtmModel {
    pub fn new(cfg: &DtmConfig) -> DtmModel {
        let lay = Layout::new(&cfg.ports());
        let lg = Layout::new(&cfg.mtg.ports());
        let lt = Layout::new(&cfg.mtt.ports());
        let lb = Layout::new(&cfg.tb.ports());
        DtmModel {
            top_in: Io::new(&lay, true),
            top_out: Io::new(&lay, false),
            mtg: DtmMtgModel::new(&cfg.mtg),
            mtt: DtmMttModel::new(&cfg.mtt),
            tb: DtmTbModel::new(&cfg.tb),
            gi: Io::new(&lg, true),
            go: Io::new(&lg, false),
            ti: Io::new(&lt, true),
            to: Io::new(&lt, false),
            bi: Io::new(&lb, true),
            bo: Io::new(&lb, false),
            s: Seq::new(cfg),
            ev: DtmEvents::default(),
            err: None,
            fault: None,
            branch_eligible: false,
            i12_ref: None,
            i12_cycles: 0,
            cfg: cfg.clone(),
        }
    }

    pub fn inject_fault(&mut self, f: Option<DtmFault>) {
        self.fault = f;
    }

    /// A5's analysis mode: branches (destination `BRANCH_DST`) may hit the MTG but never
    /// enter a trace, so every trace stays straight-line (`npc = pc + len·isz`, I4).
    pub fn set_branch_eligible(&mut self, on: bool) {
        self.branch_eligible = on;
    }

    pub fn config(&self) -> &DtmConfig {
        &self.cfg
    }

    /// The three units' table state (MTG entries and ranks, MTT rows, valid bits and ranks,
    /// trace buffers) as one hash: I12 says it never changes while DTM is disabled.
    pub fn table_digest(&self) -> u64 {
        let (g, t, b) = (
            self.mtg.table.digest(),
            self.mtt.table.digest(),
            self.tb.tb.digest(),
        );
        g ^ t.rotate_left(21) ^ b.rotate_left(42)
    }

    /// Enabled, or a fault that behaves as if it were (the sequencer's view of `enable`).
    fn enabled(&self) -> bool {
        self.cfg.enable || self.fault == Some(DtmFault::InsertWhileDisabled)
    }

    /// I12 (`enable = 0`), after each cycle: no unit received a request (every cycle), and
    /// the tables' digest equals the one taken after reset (every 256th cycle: a full hash).
    fn check_disabled(&mut self, reset: bool) {
        if self.cfg.enable || reset {
            return;
        }
        let (g, t, b) = (&self.gi, &self.ti, &self.bi);
        let asked = [
            (
                "dtm-mtg",
                g.get("req_valid", 0, 1) | g.get("inv_valid", 0, 1),
            ),
            (
                "dtm-mtt",
                t.get("lk_valid", 0, 1)
                    | t.get("up_valid", 0, 1)
                    | t.get("inv_valid", 0, 1)
                    | t.get("flush", 0, 1),
            ),
            ("dtm-tb", b.get("ev_valid", 0, 1)),
        ];
        if let Some((unit, _)) = asked.iter().find(|(_, a)| *a != 0) {
            self.err.get_or_insert(format!(
                "I12: DTM disabled, but {unit} received a request (pc {:#x})",
                self.s.pc
            ));
        }
        match self.i12_ref {
            None if self.s.state == IDLE => self.i12_ref = Some(self.table_digest()),
            Some(d) => {
                self.i12_cycles += 1;
                if self.i12_cycles.is_multiple_of(256) && self.table_digest() != d {
                    self.err.get_or_insert(format!(
                        "I12: DTM disabled, but the tables changed (digest {d:#x} → {:#x})",
                        self.table_digest()
                    ));
                }
            }
            None => {}
        }
    }

    pub fn counters(&self) -> DtmEvents {
        self.ev
    }

    /// The MTG model (its table), for tests that look at entries.
    pub fn mtg_config(&self) -> &MtgConfig {
        &self.cfg.mtg
    }

    fn lanes(&self) -> u64 {
        mask(self.cfg.simd)
    }

    /// MTG hits of the lanes that went through the MTG.
    fn hitm(&self) -> u64 {
        self.s.mhit & self.s.mlk
    }
    fn inter(&self) -> u64 {
        let hm = self.hitm();
        (0..self.cfg.simd)
            .filter(|&l| hm >> l & 1 == 1 && self.s.muid[l] != self.s.uid[l])
            .fold(0, |m, l| m | 1 << l)
    }
    fn exec(&self) -> u64 {
        self.s.act & self.s.guard & !self.s.grp & !self.hitm()
    }

    /// The units' inputs for this cycle.
    fn drive_units(&mut self, reset: bool) {
        let branch = self.branch_eligible
            && self.s.dst == BRANCH_DST
            && self.fault != Some(DtmFault::BranchEntersTrace);
        let intra = if branch {
            0
        } else {
            self.hitm() & !self.inter()
        };
        let (c, s) = (&self.cfg, &self.s);
        let (v, u, n) = (c.val_bits(), c.mtg.uid_bits, c.simd);
        let st = s.state;
        let rf_val = self.top_in.words("rf_val").to_vec();
        // Trace buffers.
        let b = &mut self.bi;
        b.clear();
        b.set("reset", 0, 1, reset as u64);
        let l = s.lane;
        let tb_ev = st == TB_EV && s.act >> l & 1 == 1;
        if tb_ev || st == RET_TB {
            b.set("ev_valid", 0, 1, 1);
            let tid = if st == TB_EV { s.warp * n + l } else { s.tid };
            b.set("ev_tid", 0, 64, tid as u64);
            b.set("ev_kid", 0, 64, if st == TB_EV { s.kid } else { s.ret_kid });
            b.set(
                "ev_close",
                0,
                1,
                (st == RET_TB || intra >> l & 1 == 0) as u64,
            );
            b.set("ev_pc", 0, 64, s.pc);
            b.set("ev_src_v", 0, 3, s.src_v);
            b.set("ev_src_rid", 0, 27, s.src_rid);
            for j in 0..3 {
                b.set("ev_src_val", j * v, v, s.sv[j][l]);
            }
            b.set("ev_dst", 0, 9, s.dst);
            b.set("ev_res", 0, v, s.mres[l]);
        }
        // MTT (its upsert port is the buffers' commit of this cycle: set after they step).
        let t = &mut self.ti;
        t.clear();
        t.set("reset", 0, 1, reset as u64);
        if st == MTT_LK && s.mttl >> l & 1 == 1 {
            t.set("lk_valid", 0, 1, 1);
            t.set("lk_kid", 0, 64, s.kid);
            t.set("lk_pc", 0, 64, s.pc);
        }
        t.set_words("cv_val", &rf_val);
        if st == RET_INV {
            if s.ret_all {
                t.set("flush", 0, 1, 1);
            } else {
                t.set("inv_valid", 0, 1, 1);
            }
            t.set("inv_kid", 0, 64, s.ret_kid);
        }
        // MTG.
        let g = &mut self.gi;
        g.clear();
        g.set("reset", 0, 1, reset as u64);
        if st == MTG_LK || st == MTG_UP {
            g.set("req_valid", 0, 1, 1);
            g.set("req_op", 0, 1, (st == MTG_UP) as u64);
            g.set("req_mask", 0, n, s.mlk);
            g.set("req_kid", 0, 64, s.kid);
            g.set("req_pc", 0, 64, s.pc);
            let hm = s.mhit & s.mlk;
            for l in 0..n {
                g.set("req_sv1", l * v, v, s.sv[0][l]);
                g.set("req_sv2", l * v, v, s.sv[1][l]);
                g.set("req_sv3", l * v, v, s.sv[2][l]);
                let r = if hm >> l & 1 == 1 {
                    s.mres[l]
                } else {
                    s.wres[l]
                };
                g.set("req_res", l * v, v, r);
                g.set("req_uid", l * u, u, s.uid[l]);
            }
        }
        if st == RET_INV {
            g.set("inv_valid", 0, 1, 1);
            g.set("inv_all", 0, 1, s.ret_all as u64);
            g.set("inv_kid", 0, 64, s.ret_kid);
        }
    }

    fn step_units(&mut self) {
        // Each unit's inputs are checked in its state before it steps; the first error stays.
        let r = self.tb.check_inputs(&self.bi.w);
        self.note_protocol("dtm-tb", r);
        self.tb.step(&self.bi.w, &mut self.bo.w);
        // The MTT's upsert port is the buffers' commit.
        for (up, cm) in [
            ("up_valid", "cm_valid"),
            ("up_kid", "cm_kid"),
            ("up_pc", "cm_pc"),
            ("up_npc", "cm_npc"),
            ("up_len", "cm_len"),
            ("up_ic", "cm_ic"),
            ("up_oc", "cm_oc"),
        ] {
            let (o, n) = self.bo.slot(cm);
            self.ti.set_words(up, &self.bo.w[o..o + n]);
        }
        let r = self.mtt.check_inputs(&self.ti.w);
        self.note_protocol("dtm-mtt", r);
        self.mtt.step(&self.ti.w, &mut self.to.w);
        let r = self.mtg.check_inputs(&self.gi.w);
        self.note_protocol("dtm-mtg", r);
        self.mtg.step(&self.gi.w, &mut self.go.w);
    }

    fn note_protocol(&mut self, who: &str, r: Result<(), String>) {
        if let Err(e) = r {
            self.err.get_or_insert(format!("{who} protocol: {e}"));
        }
    }

    /// The top's outputs: the sequencer's registers and the units' outputs of this cycle.
    fn outputs(&mut self) {
        let c = &self.cfg;
        let (n, v, p) = (c.simd, c.val_bits(), c.mtg.pc_bits);
        let s = &self.s;
        let o = &mut self.top_out;
        o.clear();
        o.set("rq_ready", 0, 1, (s.state == IDLE) as u64);
        let cands = self.to.get("cand_valid", 0, c.mtt.cand);
        if s.state == MTT_WAIT && cands != 0 {
            o.set("rf_valid", 0, 1, 1);
            o.set("rf_lane", 0, 64, s.lane as u64);
        }
        o.set("rf_cand", 0, c.mtt.cand, cands);
        let w = self.to.words("cand_ic").to_vec();
        o.set_words("rf_rid", &w);
        if s.state == RSP {
            let (hm, inter, exec) = (self.hitm(), self.inter(), self.exec());
            let o = &mut self.top_out;
            o.set("rsp_valid", 0, 1, 1);
            o.set("rsp_trace", 0, n, s.grp);
            o.set("rsp_full", 0, 1, s.full as u64);
            if s.grp != 0 {
                let ld = s.grp.trailing_zeros() as usize;
                o.set("rsp_npc", 0, p, s.tnpc[ld]);
                o.set("rsp_len", 0, 64, s.tlen[ld]);
            }
            let ob = c.oc_bits();
            for l in 0..n {
                if s.grp >> l & 1 == 1 {
                    for (k, wd) in s.toc[l].iter().enumerate() {
                        let width = (ob - 64 * k).min(64);
                        o.set("rsp_oc", l * ob + 64 * k, width, *wd);
                    }
                }
                if hm >> l & 1 == 1 {
                    let bad = self.fault == Some(DtmFault::ResultOffByOne);
                    o.set("rsp_res", l * v, v, s.mres[l] + bad as u64);
                }
                if s.grp >> l & 1 == 1 && self.fault == Some(DtmFault::TraceValueOffByOne) {
                    let at = l * ob + 10;
                    let val = o.get("rsp_oc", at, v);
                    o.set("rsp_oc", at, v, val + 1);
                }
            }
            o.set("rsp_hit", 0, n, hm);
            o.set("rsp_inter", 0, n, inter);
            o.set("rsp_exec", 0, n, exec);
            o.set("rsp_bypass", 0, 1, (exec == 0 && (s.grp | hm) != 0) as u64);
            o.set("rsp_skip", 0, n, s.skip[s.warp]);
            if s.skip[s.warp] != 0 {
                o.set("rsp_resume", 0, p, s.resume[s.warp]);
            }
        }
        let o = &mut self.top_out;
        o.set("wb_ready", 0, 1, (s.state == WB) as u64);
        o.set("dbg_state", 0, BITS, s.state);
        // The units' event records (I8).
        let g = &self.go;
        o.set("dbg_mtg_rsp", 0, 1, g.get("rsp_valid", 0, 1));
        o.set("dbg_mtg_rsp", 1, 1, g.get("rsp_op", 0, 1));
        o.set("dbg_mtg_rsp", 2, n, g.get("rsp_lanes", 0, n));
        o.set("dbg_mtg_rsp", 2 + n, n, g.get("rsp_hit", 0, n));
        let wb = c.mtg.way_bits();
        for l in 0..n {
            o.set("dbg_mtg_way", l * wb, wb, g.get("rsp_way", l * wb, wb));
        }
        let (t, twb, lb) = (&self.to, c.mtt.way_bits(), c.mtt.len_bits());
        let mut at = 0;
        for (name, width) in [
            ("res_valid", 1),
            ("res_hit", 1),
            ("res_way", twb),
            ("res_len", lb),
            ("up_done", 1),
            ("up_found", 1),
            ("up_way", twb),
        ] {
            o.set("dbg_mtt", at, width, t.get(name, 0, width));
            at += width;
        }
        let b = &self.bo;
        let mut at = 0;
        for (name, width) in [
            ("st_valid", 1),
            ("st_nobuf", 1),
            ("st_len", lb),
            ("cm_valid", 1),
            ("cm_len", lb),
        ] {
            o.set("dbg_tb", at, width, b.get(name, 0, width));
            at += width;
        }
        for (w, m) in s.skip.iter().enumerate() {
            o.set("dbg_skip", w * n, n, *m);
        }
    }

    /// The sequencer's next state (this cycle's inputs and the units' outputs).
    fn advance(&mut self) {
        let c = self.cfg.clone();
        let (n, v, u, p) = (c.simd, c.val_bits(), c.mtg.uid_bits, c.mtg.pc_bits);
        let i = &self.top_in;
        let lanes = self.lanes();
        match self.s.state {
            IDLE => {
                if i.get("ret_valid", 0, 1) == 1 {
                    // I12: disabled, a retire is taken and does nothing.
                    if self.enabled() {
                        self.s.ret_all = i.get("ret_all", 0, 1) == 1;
                        self.s.ret_kid = i.get("ret_kid", 0, c.mtg.kid_bits);
                        self.s.tid = 0;
                        self.s.state = RET_TB;
                        self.ev.retires += 1;
                    }
                } else if i.get("rq_valid", 0, 1) == 1 {
                    let on = self.enabled();
                    let s = &mut self.s;
                    s.warp = i.get("rq_warp", 0, c.warp_bits()) as usize;
                    s.kid = i.get("rq_kid", 0, c.mtg.kid_bits);
                    s.pc = i.get("rq_pc", 0, p);
                    s.elig = i.get("rq_elig", 0, 1) == 1;
                    s.guard = i.get("rq_guard", 0, n);
                    for l in 0..n {
                        s.sv[0][l] = i.get("rq_sv1", l * v, v);
                        s.sv[1][l] = i.get("rq_sv2", l * v, v);
                        s.sv[2][l] = i.get("rq_sv3", l * v, v);
                        s.uid[l] = i.get("rq_uid", l * u, u);
                    }
                    s.src_v = i.get("rq_src_v", 0, 3);
                    s.src_rid = i.get("rq_src_rid", 0, 27);
                    s.dst = i.get("rq_dst", 0, 9);
                    // A9: the skip region ends when the warp reaches resume_pc.
                    let w = s.warp.min(c.warps - 1);
                    s.warp = w;
                    if s.skip[w] != 0 && s.resume[w] == s.pc {
                        s.skip[w] = 0;
                    }
                    s.act = i.get("rq_act", 0, n) & !s.skip[w] & lanes;
                    s.mttl = if s.skip[w] == 0 && s.elig && on {
                        s.act
                    } else {
                        0
                    };
                    s.thit = 0;
                    s.mhit = 0;
                    s.grp = 0;
                    s.full = false;
                    s.mlk = 0;
                    s.lane = 0;
                    s.state = if s.mttl != 0 { MTT_LK } else { GROUP };
                    self.ev.requests += 1;
                    if self.s.skip[w] != 0 {
                        self.ev.skipped_requests += 1;
                    }
                }
            }
            MTT_LK => {
                let s = &mut self.s;
                if s.mttl >> s.lane & 1 == 1 {
                    s.state = MTT_WAIT;
                } else if s.lane == n - 1 {
                    s.state = GROUP;
                } else {
                    s.lane += 1;
                }
            }
            MTT_WAIT => {
                if self.to.get("res_valid", 0, 1) == 1 {
                    let l = self.s.lane;
                    let hit = self.to.get("res_hit", 0, 1);
                    self.s.thit |= hit << l;
                    self.s.tnpc[l] = self.to.get("res_npc", 0, p);
                    self.s.tlen[l] = self.to.get("res_len", 0, c.mtt.len_bits());
                    self.s.toc[l] = self.to.words("res_oc").to_vec();
                    let s = &mut self.s;
                    if l == n - 1 {
                        s.state = GROUP;
                    } else {
                        s.lane += 1;
                        s.state = MTT_LK;
                    }
                }
            }
            GROUP => {
                let on = self.enabled();
                let s = &mut self.s;
                let mut grp = 0;
                if s.thit != 0 {
                    let ld = s.thit.trailing_zeros() as usize;
                    for l in 0..n {
                        let same = s.tnpc[l] == s.tnpc[ld]
                            || self.fault == Some(DtmFault::GroupIgnoresNpc);
                        if s.thit >> l & 1 == 1 && same {
                            grp |= 1 << l;
                        }
                    }
                    if c.unanimous && grp != s.act {
                        grp = 0;
                    }
                }
                s.grp = grp;
                s.full = grp != 0 && grp == s.act;
                if grp != 0 && !s.full {
                    let ld = grp.trailing_zeros() as usize;
                    s.skip[s.warp] = grp;
                    s.resume[s.warp] = s.tnpc[ld];
                }
                s.mlk = if s.elig && !s.full && on {
                    s.act & !grp & s.guard
                } else {
                    0
                };
                s.state = if s.mlk != 0 { MTG_LK } else { RSP };
            }
            MTG_LK | MTG_LKW => {
                let g = &self.go;
                if g.get("rsp_valid", 0, 1) == 1 && g.get("rsp_op", 0, 1) == 0 {
                    let ls = g.get("rsp_lanes", 0, n);
                    for l in (0..n).filter(|l| ls >> l & 1 == 1) {
                        let h = g.get("rsp_hit", l, 1);
                        self.s.mhit = self.s.mhit & !(1 << l) | h << l;
                        self.s.mres[l] = g.get("rsp_res", l * v, v);
                        self.s.muid[l] = g.get("rsp_uid", l * u, u);
                    }
                }
                if self.s.state == MTG_LKW {
                    self.s.state = RSP;
                } else if g.get("req_ready", 0, 1) == 1 {
                    self.s.state = MTG_LKW;
                }
            }
            RSP => {
                self.count_response();
                self.s.state = WB;
            }
            WB => {
                if i.get("wb_valid", 0, 1) == 1 {
                    for l in 0..n {
                        self.s.wres[l] = i.get("wb_res", l * v, v);
                    }
                    self.s.lane = 0;
                    // I12: disabled, no upsert and no trace-buffer event.
                    self.s.state = if !self.enabled() {
                        IDLE
                    } else if self.s.mlk != 0 {
                        MTG_UP
                    } else {
                        TB_EV
                    };
                }
            }
            MTG_UP => {
                if self.go.get("req_ready", 0, 1) == 1 {
                    self.s.lane = 0;
                    self.s.state = TB_EV;
                }
            }
            TB_EV => {
                let s = &mut self.s;
                if s.lane == n - 1 {
                    s.cnt = 0;
                    s.state = DRAIN;
                } else {
                    s.lane += 1;
                }
            }
            DRAIN | RET_DRAIN => {
                let s = &mut self.s;
                if s.cnt == 1 {
                    s.state = if s.state == DRAIN { IDLE } else { RET_INV };
                } else {
                    s.cnt += 1;
                }
            }
            RET_TB => {
                let s = &mut self.s;
                if s.tid == c.threads() - 1 {
                    s.cnt = 0;
                    s.state = RET_DRAIN;
                } else {
                    s.tid += 1;
                }
            }
            RET_INV => {
                self.s.skip.iter_mut().for_each(|m| *m = 0);
                self.s.resume.iter_mut().for_each(|m| *m = 0);
                self.s.state = RET_WAIT;
            }
            _ => {
                // RET_WAIT: the MTG's sweep.
                if self.go.get("busy", 0, 1) == 0 {
                    self.s.state = IDLE;
                }
            }
        }
        if self.bo.get("cm_valid", 0, 1) == 1 {
            self.ev.commits += 1;
        }
    }

    /// Counters and the response's invariants (I3, I7, I13, I14), in the RSP cycle.
    fn count_response(&mut self) {
        let s = &self.s;
        let (hm, inter, exec) = (self.hitm(), self.inter(), self.exec());
        let e = &mut self.ev;
        let pc = |m: u64| m.count_ones() as u64;
        e.itot += pc(s.act);
        if s.grp != 0 {
            let len = s.tlen[s.grp.trailing_zeros() as usize];
            e.trace_lanes += pc(s.grp);
            e.trace_instrs += pc(s.grp) * len;
            e.itot += pc(s.grp) * (len - 1);
            if s.full {
                e.full_hits += 1;
            } else {
                e.partial_hits += 1;
            }
        }
        e.inter += pc(inter);
        e.intra += pc(hm & !inter);
        let bypass = exec == 0 && (s.grp | hm) != 0;
        e.bypasses += bypass as u64;
        let mut bad = vec![];
        if (s.grp | hm | exec) & !s.act != 0 {
            bad.push("I13: a response lane outside act");
        }
        if s.grp & hm != 0 || exec & (s.grp | hm) != 0 {
            bad.push("a lane both reused and executed, or reused twice");
        }
        if hm & !s.guard != 0 {
            bad.push("I13/A16: a guard-false lane hit the MTG");
        }
        if s.mlk != 0 && !s.elig {
            bad.push("I3: an ineligible instruction reached the MTG");
        }
        if s.full && s.grp != s.act {
            bad.push("A9: a full hit without every active lane");
        }
        let tl = s.grp.trailing_zeros() as usize;
        if (0..self.cfg.simd).any(|l| s.grp >> l & 1 == 1 && s.tnpc[l] != s.tnpc[tl]) {
            bad.push("A9: a group lane with another npc than the leader's");
        }
        if e.intra + e.inter + e.trace_instrs > e.itot {
            bad.push("I7: intra + inter + trace > itot");
        }
        if let Some(b) = bad.first() {
            self.err.get_or_insert(format!("{b} (pc {:#x})", s.pc));
        }
    }
}

impl Model for DtmModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.top_in.w.copy_from_slice(inputs);
        let reset = self.top_in.get("reset", 0, 1) == 1;
        self.drive_units(reset);
        self.step_units();
        self.outputs();
        outputs.copy_from_slice(&self.top_out.w);
        if reset {
            // The sequencer restarts; it waits for the MTG's reset flush.
            self.s = Seq::new(&self.cfg);
            self.i12_ref = None;
        } else {
            self.advance();
        }
        self.check_disabled(reset);
    }

    fn check_invariants(&self) -> Result<(), String> {
        if let Some(e) = &self.err {
            return Err(e.clone());
        }
        self.mtg
            .check_invariants()
            .map_err(|e| format!("dtm-mtg: {e}"))?;
        self.mtt
            .check_invariants()
            .map_err(|e| format!("dtm-mtt: {e}"))?;
        self.tb
            .check_invariants()
            .map_err(|e| format!("dtm-tb: {e}"))?;
        // Skip masks name lanes of the warp only; a warp in a skip region has a resume PC.
        if self.s.skip.iter().any(|m| m & !self.lanes() != 0) {
            return Err("A9: a skip mask outside the warp".into());
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let s = &self.s;
        format!(
            "state={} warp={} pc={:#x} act={:#x} grp={:#x} mlk={:#x} mhit={:#x} skip={:?} | mtg: {} | mtt: {} | tb: {}",
            s.state,
            s.warp,
            s.pc,
            s.act,
            s.grp,
            s.mlk,
            s.mhit,
            s.skip,
            self.mtg.state_line(),
            self.mtt.state_line(),
            self.tb.state_line()
        )
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let e = &self.ev;
        vec![
            ("requests", e.requests),
            ("trace_lanes", e.trace_lanes),
            ("full_hits", e.full_hits),
            ("partial_hits", e.partial_hits),
            ("inter", e.inter),
            ("intra", e.intra),
            ("bypasses", e.bypasses),
            ("skipped_requests", e.skipped_requests),
            ("commits", e.commits),
            ("retires", e.retires),
        ]
    }
}
