//! Constrained-random inputs for `crown-barrier`. Threads come from a few hot sets and a few
//! thread indices per set, and reconvergence PCs from a small pool, so sets fill (allocation
//! failures), nested reservations repeat (dedup) and warps span several sets (A7). A shadow
//! copy of the table (the same struct, stepped on the same inputs) lets probes aim at live
//! barriers' waiting threads — several barriers, often in several sets, per probe — so
//! barriers complete; some probes carry the lanes just reserved at R (the one-sided branch).

use super::model::{BarrierTable, Probe};
use super::ports::InPorts;
use crate::rng::Rng;
use crate::words::set;
use crate::Stimulus;
use warpforge_contract::units::crown::Warp;
use warpforge_contract::units::crown_barrier::BarrierConfig;
use warpforge_contract::Layout;

#[derive(Clone, Debug)]
pub struct CrownBarrierStimulus {
    cfg: BarrierConfig,
    rng: Rng,
    inp: InPorts,
    shadow: BarrierTable,
    pcs: Vec<u64>,
    /// Thread indices in use this phase (a few per hot set).
    hot: Vec<u64>,
    phase_left: u64,
    /// Per mille.
    rsv_rate: u64,
    prb_rate: u64,
    drain_rate: u64,
    density: u64,
}

impl CrownBarrierStimulus {
    pub fn new(cfg: &BarrierConfig, seed: u64) -> Self {
        let layout = Layout::new(&cfg.ports());
        CrownBarrierStimulus {
            rng: Rng::new(seed),
            inp: InPorts::new(&layout),
            shadow: BarrierTable::new(cfg),
            pcs: vec![],
            hot: vec![],
            phase_left: 0,
            rsv_rate: 300,
            prb_rate: 700,
            drain_rate: 300,
            density: 500,
            cfg: cfg.clone(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        let (tb, sb) = (self.cfg.thi_bits(), self.cfg.set_bits());
        self.phase_left = 300 + r.below(2000);
        self.rsv_rate = [100, 300, 700][r.below(3) as usize];
        self.prb_rate = [300, 700, 1000][r.below(3) as usize];
        self.drain_rate = [0, 50, 300, 900][r.below(4) as usize];
        self.density = [200, 500, 900][r.below(3) as usize];
        let mask = (1u64 << self.cfg.pc_bits()) - 1;
        let n = 1 + r.below(3) as usize;
        self.pcs = (0..n).map(|_| r.next_u64() & mask).collect();
        // 1–3 hot sets, 1–4 thread indices in each.
        let sets = 1 + r.below(3);
        self.hot.clear();
        for _ in 0..sets {
            let s = r.below(self.cfg.sets as u64);
            let per = 1 + r.below(4);
            for _ in 0..per {
                let low = r.below(1 << (tb - sb));
                self.hot.push(s << (tb - sb) | low);
            }
        }
    }

    fn pick_pc(&mut self) -> u64 {
        self.pcs[self.rng.below(self.pcs.len() as u64) as usize]
    }
    fn pick_thi(&mut self) -> u64 {
        if self.rng.chance(1, 20) {
            self.rng.below(1 << self.cfg.thi_bits())
        } else {
            self.hot[self.rng.below(self.hot.len() as u64) as usize]
        }
    }

    fn reservation(&mut self) -> Warp {
        let w = self.cfg.w();
        // Often a nested branch: threads of a live barrier reserve its R again (dedup).
        let live: Vec<usize> = (0..self.cfg.entries())
            .filter(|&e| self.shadow.entries()[e].valid && !self.shadow.entries()[e].complete)
            .collect();
        if !live.is_empty() && self.rng.chance(1, 4) {
            let e = live[self.rng.below(live.len() as u64) as usize];
            let x = self.shadow.entries()[e].clone();
            let mut v = Warp {
                pc: x.pc,
                lanes: x.expected & (self.rng.next_u64() | self.rng.next_u64()),
                thi: x.thi.clone(),
            };
            for l in 0..w {
                if v.lanes >> l & 1 == 0 && self.rng.chance(1, 4) {
                    v.lanes |= 1 << l;
                    v.thi[l] = self.pick_thi();
                }
            }
            return v;
        }
        let lanes = self.rng.mask(w, self.density, 1000);
        let pc = self.pick_pc();
        let thi = (0..w).map(|_| self.pick_thi()).collect();
        Warp { pc, lanes, thi }
    }

    fn probe(&mut self, rsv: Option<&Warp>) -> Probe {
        let w = self.cfg.w();
        let mut p = Probe {
            lanes: 0,
            pc: (0..w).map(|_| self.pick_pc()).collect(),
            thi: (0..w).map(|_| self.pick_thi()).collect(),
        };
        // The one-sided branch: the path going to R is checked in the reserving cycle.
        if let Some(v) = rsv {
            if self.rng.chance(1, 3) {
                let path = v.lanes & self.rng.next_u64();
                for l in (0..w).filter(|&l| path >> l & 1 == 1) {
                    p.lanes |= 1 << l;
                    p.pc[l] = v.pc;
                    p.thi[l] = v.thi[l];
                }
            }
        }
        // Waiting threads of a few live barriers, often in different sets.
        let live: Vec<usize> = (0..self.cfg.entries())
            .filter(|&e| {
                let x = &self.shadow.entries()[e];
                x.valid && !x.complete
            })
            .collect();
        if !live.is_empty() {
            for _ in 0..1 + self.rng.below(3) {
                let e = live[self.rng.below(live.len() as u64) as usize];
                let x = self.shadow.entries()[e].clone();
                let all_of_it = self.rng.chance(1, 2);
                for l in 0..w {
                    let waiting = x.expected >> l & 1 == 1 && x.arrived >> l & 1 == 0;
                    if waiting && p.lanes >> l & 1 == 0 && (all_of_it || self.rng.chance(1, 2)) {
                        p.lanes |= 1 << l;
                        p.pc[l] = x.pc;
                        p.thi[l] = x.thi[l];
                    }
                }
            }
        }
        // And some lanes at random (mostly misses; a wrong PC or thread must not hit).
        p.lanes |= self.rng.mask(w, 100, 1000);
        p
    }
}

impl Stimulus for CrownBarrierStimulus {
    fn next(&mut self, cycle: u64, _prev: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|x| *x = 0);
        let (w, t, p) = (self.cfg.w(), self.cfg.thi_bits(), self.cfg.pc_bits());
        let i = self.inp;
        if cycle < 2 || self.rng.chance(1, 50_000) {
            set(inputs, i.reset, 1, 1);
            self.shadow.reset();
            return;
        }
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let rsv = self
            .rng
            .chance(self.rsv_rate, 1000)
            .then(|| self.reservation());
        let prb = if self.rng.chance(self.prb_rate, 1000) {
            self.probe(rsv.as_ref())
        } else {
            Probe {
                lanes: 0,
                pc: (0..w).map(|_| self.pick_pc()).collect(),
                thi: (0..w).map(|_| self.pick_thi()).collect(),
            }
        };
        let drain = self.rng.chance(self.drain_rate, 1000);
        if let Some(v) = &rsv {
            set(inputs, i.rsv_valid, 1, 1);
            set(inputs, i.rsv_pc, p, v.pc);
            set(inputs, i.rsv_lanes, w, v.lanes);
        }
        for l in 0..w {
            // Thread indices of lanes outside the masks are garbage the table must ignore.
            let rt = rsv
                .as_ref()
                .map_or_else(|| self.rng.below(1 << t), |v| v.thi[l]);
            set(inputs, i.rsv_thi + l * t, t, rt);
            set(inputs, i.prb_pc + l * p, p, prb.pc[l]);
            set(inputs, i.prb_thi + l * t, t, prb.thi[l]);
        }
        set(inputs, i.prb_lanes, w, prb.lanes);
        set(inputs, i.drain, 1, drain as u64);
        self.shadow.begin_cycle();
        self.shadow.cycle(rsv.as_ref(), Some(&prb), drain);
    }
}
