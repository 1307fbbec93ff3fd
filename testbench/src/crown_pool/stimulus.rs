//! Constrained-random stimulus of `crown-pool`: it plays the second level and the issue
//! stage. A shadow [`IssuePool`] (its own, never the checked model) says when an entry is
//! free, so every refill is legal; refilled warps hold threads no entry holds and a
//! second-level row no entry refers to. Phases vary the refill and issue rates (a full pool,
//! an empty one, refills and issues in the same cycle, bursts); don't-care inputs carry
//! random values; rare resets in the middle of traffic.

use super::model::{mask, or_packed, IssuePool, PoolEntry, Ports};
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::crown::{pack_thi, Warp};
use warpforge_contract::units::crown_pool::PoolConfig;

#[derive(Clone, Debug)]
pub struct CrownPoolStimulus {
    rng: Rng,
    cfg: PoolConfig,
    p: Ports,
    shadow: IssuePool,
    phase_left: u64,
    /// Per 64: a refill, an issue.
    p_ref: u64,
    p_iss: u64,
    /// Per 16: a lane of a refilled warp is used.
    density: u64,
    /// `ref_thi` with every bit a lane's index may have, for don't-care values.
    thi_words_mask: Vec<u64>,
    held: Held,
    /// The refill being built, reused every cycle.
    refill: PoolEntry,
}

fn bit(set: &[u64], i: usize) -> bool {
    set[i / 64] >> (i % 64) & 1 == 1
}

/// The threads and rows the shadow pool holds, kept up to date on each refill, issue and reset
/// (rebuilding them for every refill cost more than the unit's RTL cycle).
#[derive(Clone, Debug)]
struct Held {
    /// Threads as bits `lane · N/w + thread index`.
    used: Vec<u64>,
    /// Second-level rows as bits.
    slots: Vec<u64>,
    /// Threads held per lane.
    per_lane: Vec<usize>,
}

impl Held {
    fn new(cfg: &PoolConfig) -> Held {
        Held {
            used: vec![0; cfg.common.threads.div_ceil(64)],
            slots: vec![0; cfg.n2.div_ceil(64)],
            per_lane: vec![0; cfg.common.w],
        }
    }
    fn clear(&mut self) {
        self.used.iter_mut().for_each(|x| *x = 0);
        self.slots.iter_mut().for_each(|x| *x = 0);
        self.per_lane.iter_mut().for_each(|x| *x = 0);
    }
    /// Adds (`on`) or removes an entry's threads and row.
    fn track(&mut self, e: &PoolEntry, on: bool, threads_per_lane: usize) {
        let flip = |set: &mut [u64], i: usize| {
            if on {
                set[i / 64] |= 1 << (i % 64);
            } else {
                set[i / 64] &= !(1 << (i % 64));
            }
        };
        flip(&mut self.slots, e.slot);
        // The set lanes only (w ≤ 64).
        let w = self.per_lane.len();
        let mut lanes = if w >= 64 {
            e.warp.lanes
        } else {
            e.warp.lanes & ((1 << w) - 1)
        };
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            flip(
                &mut self.used,
                l * threads_per_lane + e.warp.thi[l] as usize,
            );
            if on {
                self.per_lane[l] += 1;
            } else {
                self.per_lane[l] -= 1;
            }
        }
    }
}

impl CrownPoolStimulus {
    pub fn new(cfg: &PoolConfig, seed: u64) -> CrownPoolStimulus {
        CrownPoolStimulus {
            rng: Rng::new(seed),
            p: Ports::new(cfg),
            shadow: IssuePool::untracked(cfg),
            phase_left: 0,
            p_ref: 32,
            p_iss: 32,
            density: 8,
            thi_words_mask: pack_thi(&vec![u64::MAX; cfg.common.w], cfg.common.thi_bits()),
            held: Held::new(cfg),
            refill: PoolEntry {
                warp: Warp {
                    pc: 0,
                    lanes: 0,
                    thi: vec![0; cfg.common.w],
                },
                slot: 0,
            },
            cfg: cfg.clone(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 20 + r.below(600);
        (self.p_ref, self.p_iss) = match r.below(5) {
            0 => (60, 16),
            1 => (16, 60),
            2 => (64, 64),
            3 => (40, 40),
            _ => (r.below(65), r.below(65)),
        };
        self.density = [2, 8, 14, 16][r.below(4) as usize];
    }

    /// A warp of threads and a row that no entry holds, into `self.refill`.
    fn entry(&mut self) {
        let (w, threads) = (self.cfg.common.w, self.cfg.common.threads);
        let per_lane = threads / w;
        let mut want = self.rng.mask(w, self.density, 16);
        if want == 0 {
            want = 1 << self.rng.below(w as u64);
        }
        // A lane whose every thread index is held (N / w < pool) stays empty.
        for (l, &h) in self.held.per_lane.iter().enumerate().take(w) {
            if h >= per_lane {
                want &= !(1 << l);
            }
        }
        let thi = &mut self.refill.warp.thi;
        if thi.len() != w {
            thi.resize(w, 0);
        }
        thi.fill(0);
        for (l, t) in thi.iter_mut().enumerate() {
            if want >> l & 1 == 1 {
                *t = loop {
                    let x = self.rng.below(per_lane as u64);
                    if !bit(&self.held.used, l * per_lane + x as usize) {
                        break x;
                    }
                };
            } else if self.rng.chance(1, 2) {
                // A don't-care index outside the lanes: stored as 0.
                *t = self.rng.below(per_lane as u64);
            }
        }
        let slot = loop {
            let s = if self.rng.chance(1, 8) {
                [0, self.cfg.n2 - 1][self.rng.below(2) as usize]
            } else {
                self.rng.below(self.cfg.n2 as u64) as usize
            };
            if !bit(&self.held.slots, s) {
                break s;
            }
        };
        self.refill.warp.pc = self.rng.next_u64() & mask(self.cfg.common.pc_bits);
        self.refill.warp.lanes = want;
        self.refill.slot = slot;
    }
}

impl Stimulus for CrownPoolStimulus {
    fn next(&mut self, cycle: u64, _prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let p = self.p;
        if cycle < 2 || self.rng.chance(1, 20_000) {
            inputs[p.reset] = 1;
            self.shadow.reset();
            self.held.clear();
            return;
        }
        let refill = self.shadow.has_free() && self.rng.chance(self.p_ref, 64);
        if refill {
            self.entry();
        }
        let issue = self.rng.chance(self.p_iss, 64);
        let c = &self.cfg.common;
        if refill {
            let e = &self.refill;
            inputs[p.ref_valid] = 1;
            inputs[p.ref_pc] = e.warp.pc;
            inputs[p.ref_lanes] = e.warp.lanes;
            let (o, _) = p.ref_thi;
            or_packed(&mut inputs[o..], c.thi_bits(), e.warp.thi.iter().copied());
            inputs[p.ref_slot] = e.slot as u64;
        } else if self.rng.chance(3, 4) {
            // Ignored without ref_valid.
            inputs[p.ref_pc] = self.rng.next_u64() & mask(c.pc_bits);
            inputs[p.ref_lanes] = self.rng.next_u64() & c.all_lanes();
            inputs[p.ref_slot] = self.rng.below(self.cfg.n2 as u64);
            let (o, n) = p.ref_thi;
            for (x, m) in inputs[o..o + n].iter_mut().zip(&self.thi_words_mask) {
                *x = self.rng.next_u64() & m;
            }
        }
        inputs[p.issue] = issue as u64;
        let per_lane = c.threads / c.w;
        if let (true, Some((_, e))) = (issue, self.shadow.select()) {
            self.held.track(e, false, per_lane);
        }
        let (_, filled) = self.shadow.cycle_ref(refill.then_some(&self.refill), issue);
        if let Some(f) = filled {
            // The selection reads the start-of-cycle pool: a refilled entry is held now.
            if let Some(e) = self.shadow.entry(f) {
                self.held.track(e, true, per_lane);
            }
        }
    }
}
