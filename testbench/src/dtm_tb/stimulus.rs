//! Constrained-random stimulus of `dtm-tb`: it plays the pipeline's writeback stage. A few
//! threads each keep a PC and a small register file; an INTRA event reads up to three
//! sources (duplicates, predicates and registers the trace already wrote included) with
//! the thread's current values, writes one destination and advances the PC (now and then it
//! jumps). Delimiters come at a phase-dependent rate (long runs reach `l_max`, short ones
//! leave single-instruction buffers); the same thread often has events in consecutive
//! cycles (the write bypass); with a small pool more threads build than there are buffers.
//! Fields that are not used carry random values; resets are rare.

use super::model::{pc_mask, src_bits, src_words, Ports};
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::dtm_tb::TbConfig;

#[derive(Clone, Debug)]
struct Thread {
    tid: usize,
    kid: u64,
    pc: u64,
    regs: Vec<u64>,
}

#[derive(Clone, Debug)]
pub struct DtmTbStimulus {
    rng: Rng,
    cfg: TbConfig,
    p: Ports,
    threads: Vec<Thread>,
    rids: Vec<u64>,
    last: usize,
    phase_left: u64,
    /// Per 64: a delimiter; an event at all; the same thread as last time.
    p_close: u64,
    p_event: u64,
    p_same: u64,
    /// Sources used per instruction: up to this many.
    max_srcs: u64,
    dom: u64,
}

impl DtmTbStimulus {
    pub fn new(cfg: &TbConfig, seed: u64) -> DtmTbStimulus {
        let mut s = DtmTbStimulus {
            rng: Rng::new(seed),
            p: Ports::new(cfg),
            threads: vec![],
            rids: vec![],
            last: 0,
            phase_left: 0,
            p_close: 4,
            p_event: 56,
            p_same: 32,
            max_srcs: 3,
            dom: 8,
            cfg: cfg.clone(),
        };
        s.new_phase();
        s
    }

    fn vmask(&self) -> u64 {
        pc_mask(self.cfg.val_bits)
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 300 + r.below(3000);
        self.p_close = [1, 3, 8, 20][r.below(4) as usize];
        self.p_event = [64, 56, 32][r.below(3) as usize];
        self.p_same = [8, 32, 56][r.below(3) as usize];
        self.max_srcs = 1 + r.below(3);
        self.dom = [2, 8, 1 << 16][r.below(3) as usize];
        let nr = 2 + r.below(9) as usize;
        self.rids = (0..nr)
            .map(|_| {
                if r.chance(1, 6) {
                    256 + r.below(8)
                } else {
                    r.below(256)
                }
            })
            .collect();
        self.rids.sort();
        self.rids.dedup();
        // More builders than buffers now and then.
        let cap = (self.cfg.pool + 3).min(self.cfg.threads).min(24);
        let n = 1 + r.below(cap as u64) as usize;
        let mut tids: Vec<usize> = vec![];
        while tids.len() < n {
            let t = r.below(self.cfg.threads as u64) as usize;
            if !tids.contains(&t) {
                tids.push(t);
            }
        }
        let kb = self.cfg.kid_bits;
        let pm = pc_mask(self.cfg.pc_bits);
        let nrid = self.rids.len();
        self.threads = tids
            .into_iter()
            .map(|tid| Thread {
                tid,
                kid: r.below(1 << kb),
                pc: (r.below(1 << 20) * self.cfg.isz as u64) & pm,
                regs: (0..nrid).map(|_| r.below(self.dom)).collect(),
            })
            .collect();
        self.last = 0;
    }
}

impl Stimulus for DtmTbStimulus {
    fn next(&mut self, cycle: u64, _prev: &[u64], x: &mut [u64]) {
        // The generator's state in a local for the cycle (kept in registers, not written
        // back after every draw); the same draws in the same order.
        let mut rng = self.rng.clone();
        self.drive(&mut rng, cycle, x);
        self.rng = rng;
    }
}

impl DtmTbStimulus {
    #[inline(always)]
    fn drive(&mut self, rng: &mut Rng, cycle: u64, x: &mut [u64]) {
        x.iter_mut().for_each(|w| *w = 0);
        let p = &self.p;
        let (reset, valid, tid, kid, close) = (p.reset, p.ev_valid, p.ev_tid, p.ev_kid, p.ev_close);
        let (pc, src_v, dst, res_at) = (p.ev_pc, p.ev_src_v, p.ev_dst, p.ev_res);
        let (rid_at, val_at) = (p.ev_src_rid, p.ev_src_val);
        let nv = src_words(&self.cfg).1;
        if cycle == 0 || rng.chance(1, 80_000) {
            x[reset] = 1;
            return;
        }
        if self.phase_left == 0 {
            self.rng = rng.clone();
            self.new_phase();
            *rng = self.rng.clone();
        }
        self.phase_left -= 1;
        let vm = self.vmask();
        let (threads, kid_bits, isz) = (self.cfg.threads as u64, self.cfg.kid_bits, self.cfg.isz);
        let pm = pc_mask(self.cfg.pc_bits);
        // Noise on every field; an event overwrites what it uses.
        x[tid] = rng.below(threads);
        x[kid] = rng.below(1 << kid_bits);
        x[pc] = rng.next_u64() & pm;
        x[dst] = rng.below(512);
        x[res_at] = rng.next_u64() & vm;
        // Packed only where no instruction's sources replace them.
        let noise = [(rng.below(512), rng.next_u64() & vm); 3];
        let put = |x: &mut [u64], srcs: &[(u64, u64)]| {
            let (r, vals) = src_bits(&self.cfg, srcs);
            x[rid_at] = r;
            x[val_at..val_at + nv].copy_from_slice(&vals[..nv]);
            (1u64 << srcs.len()) - 1
        };
        x[src_v] = rng.below(8);
        if !rng.chance(self.p_event, 64) {
            x[tid] = rng.below(threads);
            put(x, &noise);
            return;
        }
        if !rng.chance(self.p_same, 64) {
            self.last = rng.below(self.threads.len() as u64) as usize;
        }
        let k = self.last;
        x[valid] = 1;
        x[tid] = self.threads[k].tid as u64;
        x[kid] = self.threads[k].kid;
        if rng.chance(self.p_close, 64) {
            x[close] = 1;
            // A delimiter still moves the thread on.
            let th = &mut self.threads[k];
            th.pc = (th.pc + isz as u64) & pm;
            put(x, &noise);
            return;
        }
        if rng.chance(1, 60) {
            self.threads[k].pc = (rng.below(1 << 20) * isz as u64) & pm;
        }
        let nr = self.rids.len();
        let ns = rng.below(self.max_srcs + 1) as usize;
        let mut srcs = [(0, 0); 3];
        for s in srcs.iter_mut().take(ns) {
            let j = rng.below(nr as u64) as usize;
            *s = (self.rids[j], self.threads[k].regs[j] & vm);
        }
        x[src_v] = put(x, &srcs[..ns]);
        let d = rng.below(nr as u64) as usize;
        let res = rng.below(self.dom) & vm;
        let th = &mut self.threads[k];
        x[pc] = th.pc;
        x[dst] = self.rids[d];
        x[res_at] = res;
        th.regs[d] = res;
        th.pc = (th.pc + isz as u64) & pm;
    }
}
