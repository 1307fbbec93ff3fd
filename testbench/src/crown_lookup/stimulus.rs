//! Constrained-random inputs for `crown-lookup`. A shadow copy of the table (the same struct,
//! stepped on the same inputs) keeps the stimulus legal: an inserted thread is never one the
//! table already holds (thread conservation, §7.1.1), and a completion names pending lanes of
//! a waiting row. PCs come from a small pool per phase so rows merge; drain and insert rates
//! change by phase so the table fills, bypasses and empties. Half the runs between resets
//! scope merging to CTAs (A14): a `cta_mask` of the high thread-index bits, every warp's
//! threads of one CTA, a few CTAs at a time so rows at one PC meet warps of another CTA.

use super::model::{ReadyLookup, WaitingLookup};
use super::ports::InPorts;
use crate::rng::Rng;
use crate::words::set;
use crate::Stimulus;
use warpforge_contract::units::crown::Warp;
use warpforge_contract::units::crown_lookup::{LookupConfig, LookupKind};
use warpforge_contract::Layout;

#[derive(Clone, Debug)]
enum Shadow {
    Ready(ReadyLookup),
    Waiting(WaitingLookup),
}

#[derive(Clone, Debug)]
pub struct CrownLookupStimulus {
    cfg: LookupConfig,
    rng: Rng,
    inp: InPorts,
    shadow: Shadow,
    pcs: Vec<u64>,
    phase_left: u64,
    /// Per mille: an insert this cycle, a drain this cycle, a completion this cycle.
    ins_rate: u64,
    drain_rate: u64,
    cpl_rate: u64,
    /// Lane density of generated warps (per mille).
    density: u64,
    taken: Taken,
    /// `cta_mask` until the next reset, and its low bit's position (CTA = thi >> cta_shift).
    cta_mask: u64,
    cta_shift: usize,
}

/// A set of threads (lane, thi) as bits: lane · 2^thi_bits + thi.
#[derive(Clone, Debug, Default)]
struct Taken {
    thi_bits: usize,
    bits: Vec<u64>,
}

impl Taken {
    fn new(cfg: &LookupConfig) -> Taken {
        Taken {
            thi_bits: cfg.thi_bits(),
            bits: vec![0; (cfg.w() << cfg.thi_bits()).div_ceil(64)],
        }
    }
    fn clear(&mut self) {
        self.bits.iter_mut().for_each(|b| *b = 0);
    }
    /// Adds the thread; false when it was already there.
    fn insert(&mut self, lane: usize, thi: u64) -> bool {
        let t = (lane << self.thi_bits) + thi as usize;
        let had = self.bits[t / 64] >> (t % 64) & 1 == 1;
        self.bits[t / 64] |= 1 << (t % 64);
        !had
    }
}

impl CrownLookupStimulus {
    pub fn new(cfg: &LookupConfig, seed: u64) -> Self {
        let layout = Layout::new(&cfg.ports());
        CrownLookupStimulus {
            rng: Rng::new(seed),
            inp: InPorts::new(&layout, cfg),
            shadow: match cfg.kind {
                LookupKind::Ready => Shadow::Ready(ReadyLookup::new(cfg)),
                LookupKind::Waiting => Shadow::Waiting(WaitingLookup::new(cfg)),
            },
            pcs: vec![],
            phase_left: 0,
            ins_rate: 500,
            drain_rate: 300,
            cpl_rate: 300,
            density: 500,
            taken: Taken::new(cfg),
            cta_mask: 0,
            cta_shift: 0,
            cfg: cfg.clone(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 200 + r.below(1500);
        self.ins_rate = [100, 300, 600, 1000][r.below(4) as usize];
        self.drain_rate = [0, 200, 500, 900][r.below(4) as usize];
        self.cpl_rate = [200, 500, 900][r.below(3) as usize];
        self.density = [150, 400, 700, 950][r.below(4) as usize];
        let n = 1 + r.below(4) as usize;
        let mask = (1u64 << self.cfg.pc_bits()) - 1;
        self.pcs = (0..n)
            .map(|_| {
                if r.chance(1, 4) {
                    // The top of the PC range: pc + 1 wraps.
                    mask
                } else {
                    r.next_u64() & mask
                }
            })
            .collect();
    }

    /// The threads the table holds, as a bit set over (lane, thi) (reused buffer: this runs
    /// every cycle).
    fn table_threads(&self, taken: &mut Taken) {
        let rows = match &self.shadow {
            Shadow::Ready(t) => t.rows(),
            Shadow::Waiting(t) => t.rows(),
        };
        taken.clear();
        for r in rows.iter().filter(|r| r.valid) {
            for l in (0..self.cfg.w()).filter(|&l| r.lanes >> l & 1 == 1) {
                taken.insert(l, r.thi[l]);
            }
        }
    }

    /// A warp of fresh threads (none in `taken`, which it extends) at a pool PC; lanes where
    /// no fresh thread was found are left out.
    fn warp(&mut self, lanes: u64, taken: &mut Taken) -> Warp {
        let (w, tb) = (self.cfg.w(), self.cfg.thi_bits());
        let pc = self.pcs[self.rng.below(self.pcs.len() as u64) as usize];
        let mut v = Warp {
            pc,
            lanes: 0,
            thi: vec![0; w],
        };
        // Under a CTA mask the warp's threads are of one CTA, one of the first four mostly.
        let (low_bits, cta) = if self.cta_mask == 0 {
            (tb, 0)
        } else {
            let ctas = 1u64 << (tb - self.cta_shift);
            let c = if self.rng.chance(3, 4) {
                self.rng.below(ctas.min(4))
            } else {
                self.rng.below(ctas)
            };
            (self.cta_shift, c << self.cta_shift)
        };
        for l in (0..w).filter(|&l| lanes >> l & 1 == 1) {
            for _ in 0..4 {
                // Small thread indices most of the time, so threads come back after a drain.
                let thi = cta
                    | if self.rng.chance(3, 4) {
                        self.rng.below(4.min(1 << low_bits))
                    } else {
                        self.rng.below(1 << low_bits)
                    };
                if taken.insert(l, thi) {
                    v.lanes |= 1 << l;
                    v.thi[l] = thi;
                    break;
                }
            }
        }
        v
    }

    fn write_warp(&mut self, inputs: &mut [u64], k: usize, v: &Warp) {
        let (w, t, p) = (self.cfg.w(), self.cfg.thi_bits(), self.cfg.pc_bits());
        let i = self.inp.ins[k];
        set(inputs, i.valid, 1, 1);
        set(inputs, i.pc, p, v.pc);
        set(inputs, i.lanes, w, v.lanes);
        for l in 0..w {
            // Lanes outside the warp carry garbage thread indices: the table must ignore them.
            let thi = if v.lanes >> l & 1 == 1 {
                v.thi[l]
            } else {
                self.rng.below(1 << t)
            };
            set(inputs, i.thi + l * t, t, thi);
        }
    }
}

impl Stimulus for CrownLookupStimulus {
    fn next(&mut self, cycle: u64, _prev: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|x| *x = 0);
        let w = self.cfg.w();
        let all = (1u64 << w) - 1;
        let tb = self.cfg.thi_bits();
        let reset = cycle < 2 || self.rng.chance(1, 40_000);
        let empty = match &self.shadow {
            Shadow::Ready(t) => t.count() == 0,
            Shadow::Waiting(t) => t.count() == 0,
        };
        // A new merge scope (a kernel launch) while the table is empty: half the time CTAs of
        // 2^shift thread indices (shift 1 … thi_bits − 1), else merging across CTAs.
        if reset || (empty && self.rng.chance(1, 64)) {
            (self.cta_mask, self.cta_shift) = if self.rng.chance(1, 2) {
                let shift = 1 + self.rng.below(tb as u64 - 1) as usize;
                (((1u64 << tb) - 1) & !((1u64 << shift) - 1), shift)
            } else {
                (0, 0)
            };
        }
        set(inputs, self.inp.cta_mask, tb, self.cta_mask);
        match &mut self.shadow {
            Shadow::Ready(t) => t.set_cta_mask(self.cta_mask),
            Shadow::Waiting(t) => t.set_cta_mask(self.cta_mask),
        }
        if reset {
            set(inputs, self.inp.reset, 1, 1);
            match &mut self.shadow {
                Shadow::Ready(t) => t.reset(),
                Shadow::Waiting(t) => t.reset(),
            }
            return;
        }
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let mut taken = std::mem::take(&mut self.taken);
        self.table_threads(&mut taken);
        let drain = self.rng.chance(self.drain_rate, 1000);
        set(inputs, self.inp.drain, 1, drain as u64);
        match self.cfg.kind {
            LookupKind::Ready => {
                let mut ins: [Option<Warp>; 2] = [None, None];
                if self.rng.chance(self.ins_rate, 1000) {
                    // A divergent warp: its lanes split into the two paths, usually both.
                    let lanes =
                        self.rng.mask(w, self.density, 1000) | 1 << self.rng.below(w as u64);
                    let whole = self.warp(lanes, &mut taken);
                    let split = self.rng.next_u64() & whole.lanes;
                    let pc1 = self.pcs[self.rng.below(self.pcs.len() as u64) as usize];
                    let parts = [split, whole.lanes & !split];
                    for (k, &m) in parts.iter().enumerate() {
                        if m != 0 || self.rng.chance(1, 8) {
                            let mut v = whole.clone();
                            v.lanes = m;
                            if k == 1 {
                                v.pc = pc1;
                            }
                            ins[k] = Some(v);
                        }
                    }
                    // Sometimes insert 1 is another warp's path entirely (more merging).
                    if self.rng.chance(1, 4) {
                        let lanes = self.rng.mask(w, self.density, 1000);
                        ins[1] = Some(self.warp(lanes, &mut taken));
                    }
                }
                for (k, v) in ins.iter().enumerate() {
                    if let Some(v) = v {
                        self.write_warp(inputs, k, v);
                    }
                }
                let Shadow::Ready(t) = &mut self.shadow else {
                    unreachable!()
                };
                t.cycle([ins[0].as_ref(), ins[1].as_ref()], drain);
            }
            LookupKind::Waiting => {
                let mut ins = None;
                if self.rng.chance(self.ins_rate, 1000) {
                    let lanes = if self.rng.chance(1, 12) {
                        all
                    } else {
                        self.rng.mask(w, self.density, 1000) & !(1 << self.rng.below(w as u64))
                    };
                    ins = Some(self.warp(lanes, &mut taken));
                }
                let Shadow::Waiting(t) = &mut self.shadow else {
                    unreachable!()
                };
                let pending: Vec<usize> = (0..t.rows().len())
                    .filter(|&r| t.rows()[r].valid && t.rows()[r].pending != 0)
                    .collect();
                let mut cpl = None;
                if !pending.is_empty() && self.rng.chance(self.cpl_rate, 1000) {
                    let r = pending[self.rng.below(pending.len() as u64) as usize];
                    let p = t.rows()[r].pending;
                    let lanes = if self.rng.chance(1, 2) {
                        p
                    } else {
                        let m = self.rng.next_u64() & p;
                        if m == 0 {
                            p
                        } else {
                            m
                        }
                    };
                    cpl = Some((r, lanes));
                }
                t.cycle(ins.as_ref(), cpl, drain);
                if let Some(v) = &ins {
                    self.write_warp(inputs, 0, v);
                }
                if let Some((r, lanes)) = cpl {
                    set(inputs, self.inp.cpl_valid, 1, 1);
                    set(inputs, self.inp.cpl_row, self.cfg.row_bits(), r as u64);
                    set(inputs, self.inp.cpl_lanes, w, lanes);
                }
            }
        }
        self.taken = taken;
    }
}
