//! Constrained-random stimulus of `msap-arbiter`: it plays the router's requesters. A
//! requester that starts requesting keeps its request and PL until it is granted with
//! `commit` (the protocol); it learns of its grant from the previous cycle's outputs. Phases
//! vary the request rate, the commit rate and the PL mix (uniform, few levels, one level for
//! the I-8 equivalence, hogs at the top PL that starve the rest so ageing acts); rare resets.

use super::model::Ports;
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::msap::max_pl;
use warpforge_contract::units::msap_arbiter::ArbiterConfig;

#[derive(Clone, Debug)]
pub struct MsapArbiterStimulus {
    rng: Rng,
    cfg: ArbiterConfig,
    p: Ports,
    /// Requester i waits with this PL.
    waiting: Vec<Option<u64>>,
    last_commit: bool,
    phase_left: u64,
    /// Per 64: an idle requester starts requesting; the grant is used.
    p_req: u64,
    p_commit: u64,
    /// PL mix: 0 uniform, 1 two levels, 2 one level, 3 hogs at the top.
    mix: u64,
    levels: [u64; 2],
    hogs: u32,
}

impl MsapArbiterStimulus {
    pub fn new(cfg: &ArbiterConfig, seed: u64) -> MsapArbiterStimulus {
        MsapArbiterStimulus {
            rng: Rng::new(seed),
            p: Ports::new(cfg),
            waiting: vec![None; cfg.n],
            last_commit: false,
            phase_left: 0,
            p_req: 32,
            p_commit: 60,
            mix: 0,
            levels: [0, 0],
            hogs: 0,
            cfg: cfg.clone(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        let top = max_pl(self.cfg.pl_bits);
        self.phase_left = 50 + r.below(2000);
        self.p_req = [64, 48, 16, 4, r.below(65)][r.below(5) as usize];
        self.p_commit = [64, 64, 56, 32][r.below(4) as usize];
        self.mix = r.below(4);
        self.levels = [r.below(top + 1), r.below(top + 1)];
        self.hogs = r.below(1 << self.cfg.n) as u32;
    }

    fn pick_pl(&mut self, i: usize) -> u64 {
        let top = max_pl(self.cfg.pl_bits);
        match self.mix {
            0 => self.rng.below(top + 1),
            1 => self.levels[self.rng.below(2) as usize],
            2 => self.levels[0],
            _ if self.hogs >> i & 1 == 1 => top,
            _ => self.rng.below(top),
        }
    }
}

impl Stimulus for MsapArbiterStimulus {
    fn next(&mut self, cycle: u64, prev: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let p = self.p.clone();
        // Last cycle's used grant releases its requester.
        if cycle > 0 && self.last_commit && prev[p.gnt_valid] & 1 == 1 {
            let g = prev[p.gnt_idx] as usize;
            if g < self.cfg.n {
                self.waiting[g] = None;
            }
        }
        if cycle < 2 || self.rng.chance(1, 50_000) {
            inputs[p.reset] = 1;
            self.waiting.iter_mut().for_each(|w| *w = None);
            self.last_commit = false;
            return;
        }
        let (n, pb) = (self.cfg.n, self.cfg.pl_bits);
        let mut req = 0u64;
        let mut pls = 0u64;
        // Don't-care PLs of idle requesters, from one draw.
        let noise = self.rng.next_u64();
        for i in 0..n {
            if self.waiting[i].is_none() {
                let hog = self.mix == 3 && self.hogs >> i & 1 == 1;
                if hog || self.rng.chance(self.p_req, 64) {
                    self.waiting[i] = Some(self.pick_pl(i));
                }
            }
            match self.waiting[i] {
                Some(pl) => {
                    req |= 1 << i;
                    pls |= pl << (i * pb);
                }
                // A don't-care PL on an idle requester.
                None => pls |= noise & (((1 << pb) - 1) << (i * pb)),
            }
        }
        inputs[p.req] = req;
        inputs[p.pl] = pls;
        self.last_commit = self.rng.chance(self.p_commit, 64);
        inputs[p.commit] = self.last_commit as u64;
    }
}
