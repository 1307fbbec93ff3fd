//! Constrained-random stimulus of `crown-l2`: it plays the `crown` top around the table. It
//! keeps a shadow [`SecondLevel`] (its own, never the checked model) to know which rows are
//! waiting, in the pool or free, and a free list of thread indices per lane so that every
//! inserted warp holds threads no row holds (thread conservation). Every cycle keeps the
//! contract's protocol: one payload write, no insert when full, updates of waiting rows not
//! in the pool with lanes only dropped, issues of rows in the pool.
//!
//! Phases vary the traffic: fill (many sparse inserts, few frees: the table runs full),
//! drain (frees), a starved pool (few pops: the FIFO grows long), a hungry pool (pop and
//! issue nearly every cycle), and mixes; don't-care inputs carry random values; rare resets
//! in the middle of traffic.

use super::model::{pc_mask, L2Ops, L2Update, Ports, SecondLevel};
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::crown::{pack_thi, Warp};
use warpforge_contract::units::crown_l2::{L2Config, FREE, READY, WAIT_EXEC, WAIT_SYNC};

#[derive(Clone, Debug)]
pub struct CrownL2Stimulus {
    rng: Rng,
    cfg: L2Config,
    p: Ports,
    shadow: SecondLevel,
    /// Per lane: thread indices no row holds.
    free_thi: Vec<Vec<u64>>,
    /// Rows in a waiting state and not in the pool (update targets); rows in the pool.
    waiting: Vec<usize>,
    pooled: Vec<usize>,
    phase_left: u64,
    /// Per 64: insert, update, write with an update, pop, issue.
    p_ins: u64,
    p_upd: u64,
    p_wr: u64,
    p_pop: u64,
    p_iss: u64,
    /// Update target weights: free, ready, waiting-exec, waiting-sync.
    to: [u64; 4],
    /// Per 16: a lane of an inserted warp is used.
    density: u64,
    pcs: Vec<u64>,
}

impl CrownL2Stimulus {
    pub fn new(cfg: &L2Config, seed: u64) -> CrownL2Stimulus {
        let mut s = CrownL2Stimulus {
            rng: Rng::new(seed),
            p: Ports::new(cfg),
            shadow: SecondLevel::new(cfg),
            free_thi: vec![],
            waiting: vec![],
            pooled: vec![],
            phase_left: 0,
            p_ins: 16,
            p_upd: 16,
            p_wr: 32,
            p_pop: 32,
            p_iss: 32,
            to: [1, 1, 1, 1],
            density: 8,
            pcs: vec![0],
            cfg: cfg.clone(),
        };
        s.restart();
        s
    }

    fn restart(&mut self) {
        let c = &self.cfg.common;
        self.shadow.reset();
        self.free_thi = vec![(0..(c.threads / c.w) as u64).collect(); c.w];
        self.waiting.clear();
        self.pooled.clear();
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 50 + r.below(1500);
        let kind = r.below(6);
        (self.p_ins, self.p_upd, self.p_pop, self.p_iss, self.to) = match kind {
            // Fill: inserts, updates that keep rows.
            0 => (56, 24, 24, 24, [0, 3, 2, 2]),
            // Drain: updates free rows.
            1 => (4, 56, 48, 48, [6, 1, 1, 1]),
            // Starved pool: the FIFO grows.
            2 => (40, 32, 2, 8, [1, 4, 1, 1]),
            // Hungry pool.
            3 => (32, 40, 64, 56, [2, 4, 2, 1]),
            // Many rows becoming ready together (insert with a ready update).
            4 => (48, 60, 16, 40, [1, 8, 1, 1]),
            _ => (
                r.below(65),
                r.below(65),
                r.below(65),
                r.below(65),
                [r.below(4), r.below(4) + 1, r.below(4), r.below(4)],
            ),
        };
        self.p_wr = [0, 16, 32, 64][r.below(4) as usize];
        // Sparse warps let the rows outnumber what the threads allow.
        self.density = [1, 2, 8, 14, 16][r.below(5) as usize];
        let n = 1 + r.below(6) as usize;
        let pmask = pc_mask(self.cfg.common.pc_bits);
        self.pcs = (0..n).map(|_| r.next_u64() & pmask).collect();
        self.pcs.push(pmask);
    }

    fn pc(&mut self) -> u64 {
        if self.rng.chance(3, 4) {
            self.pcs[self.rng.below(self.pcs.len() as u64) as usize]
        } else {
            self.rng.next_u64() & pc_mask(self.cfg.common.pc_bits)
        }
    }

    /// A warp of free threads, or None if the chosen lanes have none.
    fn new_warp(&mut self) -> Option<Warp> {
        let w = self.cfg.common.w;
        let mut lanes = 0u64;
        let mut thi = vec![0u64; w];
        let want = if self.rng.chance(1, 8) {
            self.cfg.common.all_lanes()
        } else {
            self.rng.mask(w, self.density, 16)
        };
        for (l, t) in thi.iter_mut().enumerate() {
            if want >> l & 1 == 0 || self.free_thi[l].is_empty() {
                continue;
            }
            let k = self.rng.below(self.free_thi[l].len() as u64) as usize;
            *t = self.free_thi[l].swap_remove(k);
            lanes |= 1 << l;
        }
        (lanes != 0).then(|| Warp {
            pc: self.pc(),
            lanes,
            thi,
        })
    }

    /// Threads of `warp` in `lanes` go back to the free lists.
    fn free_threads(&mut self, warp: &Warp, lanes: u64) {
        for l in 0..self.cfg.common.w {
            if lanes >> l & 1 == 1 {
                self.free_thi[l].push(warp.thi[l]);
            }
        }
    }

    fn pick_state(&mut self) -> u64 {
        let total: u64 = self.to.iter().sum::<u64>().max(1);
        let mut x = self.rng.below(total);
        for (s, &wt) in [FREE, READY, WAIT_EXEC, WAIT_SYNC].iter().zip(&self.to) {
            if x < wt {
                return *s;
            }
            x -= wt;
        }
        READY
    }

    fn choose(&mut self) -> L2Ops {
        let mut ops = L2Ops::default();
        if !self.waiting.is_empty() && self.rng.chance(self.p_upd, 64) {
            let k = self.rng.below(self.waiting.len() as u64) as usize;
            let row = self.waiting[k];
            let state = self.pick_state();
            let write = (state != FREE && self.rng.chance(self.p_wr, 64)).then(|| {
                let old = self.shadow.warp(row).lanes;
                let mut lanes = old & self.rng.next_u64();
                if lanes == 0 || self.rng.chance(1, 2) {
                    lanes = old;
                }
                (self.pc(), lanes)
            });
            ops.update = Some(L2Update { row, state, write });
        }
        let writes = ops.update.as_ref().is_some_and(|u| u.write.is_some());
        if !writes && !self.shadow.full() && self.rng.chance(self.p_ins, 64) {
            ops.insert = self.new_warp();
        }
        // The pool has room for a row that is popped now (in-flight ones count: in_pool is
        // set at the pop); a pop of an empty FIFO is a legal no-op.
        if self.pooled.len() < self.cfg.pool && self.rng.chance(self.p_pop, 64) {
            ops.pop = true;
        }
        if !self.pooled.is_empty() && self.rng.chance(self.p_iss, 64) {
            let k = self.rng.below(self.pooled.len() as u64) as usize;
            ops.issue = Some(self.pooled[k]);
        }
        ops
    }

    /// Apply `ops` to the shadow and the bookkeeping.
    fn apply(&mut self, ops: &L2Ops) {
        let head = self.shadow.head();
        let before = ops.update.as_ref().map(|u| self.shadow.warp(u.row));
        self.shadow.cycle(ops);
        if let Some(u) = &ops.update {
            let old = before.expect("update row read");
            let k = self.waiting.iter().position(|&r| r == u.row).unwrap();
            self.waiting.swap_remove(k);
            let dropped = match (u.state, u.write) {
                (FREE, _) => old.lanes,
                (_, Some((_, lanes))) => old.lanes & !lanes,
                _ => 0,
            };
            self.free_threads(&old, dropped);
            if u.state == WAIT_EXEC || u.state == WAIT_SYNC {
                self.waiting.push(u.row);
            }
        }
        if let (true, Some(h)) = (ops.pop, head) {
            self.pooled.push(h);
        }
        if let Some(r) = ops.issue {
            let k = self.pooled.iter().position(|&x| x == r).unwrap();
            self.pooled.swap_remove(k);
            self.waiting.push(r);
        }
    }

    fn drive(&mut self, ops: &L2Ops, inputs: &mut [u64]) {
        let p = self.p.clone();
        let c = self.cfg.common.clone();
        // Don't-care fields carry random values most of the time.
        if self.rng.chance(3, 4) {
            inputs[p.ins_pc] = self.rng.next_u64() & pc_mask(c.pc_bits);
            inputs[p.ins_lanes] = self.rng.next_u64() & c.all_lanes();
            let (o, n) = p.ins_thi;
            for x in &mut inputs[o..o + n] {
                *x = self.rng.next_u64();
            }
            let thi = pack_thi(&vec![u64::MAX; c.w], c.thi_bits());
            for (x, m) in inputs[o..o + n].iter_mut().zip(thi) {
                *x &= m;
            }
            inputs[p.upd_row] = self.rng.below(self.cfg.n2 as u64);
            inputs[p.upd_state] = self.rng.below(4);
            inputs[p.upd_pc] = self.rng.next_u64() & pc_mask(c.pc_bits);
            inputs[p.upd_lanes] = self.rng.next_u64() & c.all_lanes();
            inputs[p.iss_row] = self.rng.below(self.cfg.n2 as u64);
        }
        if let Some(w) = &ops.insert {
            inputs[p.ins_valid] = 1;
            inputs[p.ins_pc] = w.pc;
            // Lanes outside the mask may carry any thread index: the table zeroes them.
            let mut thi = w.thi.clone();
            for (l, t) in thi.iter_mut().enumerate() {
                if w.lanes >> l & 1 == 0 && self.rng.chance(1, 2) {
                    *t = self.rng.below((c.threads / c.w) as u64);
                }
            }
            inputs[p.ins_lanes] = w.lanes;
            let (o, n) = p.ins_thi;
            inputs[o..o + n].copy_from_slice(&pack_thi(&thi, c.thi_bits())[..n]);
        }
        if let Some(u) = &ops.update {
            inputs[p.upd_valid] = 1;
            inputs[p.upd_row] = u.row as u64;
            inputs[p.upd_state] = u.state;
            if let Some((pc, lanes)) = u.write {
                inputs[p.upd_wr] = 1;
                inputs[p.upd_pc] = pc;
                inputs[p.upd_lanes] = lanes;
            }
        } else if self.rng.chance(1, 4) {
            // Ignored without upd_valid.
            inputs[p.upd_wr] = 1;
        }
        inputs[p.pop] = ops.pop as u64;
        if let Some(r) = ops.issue {
            inputs[p.iss_valid] = 1;
            inputs[p.iss_row] = r as u64;
        }
    }
}

impl Stimulus for CrownL2Stimulus {
    fn next(&mut self, cycle: u64, _prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        if cycle < 2 || self.rng.chance(1, 20_000) {
            inputs[self.p.reset] = 1;
            self.restart();
            return;
        }
        let ops = self.choose();
        self.drive(&ops, inputs);
        self.apply(&ops);
        debug_assert!(
            self.shadow.violation().is_none(),
            "{:?}",
            self.shadow.violation()
        );
    }
}
