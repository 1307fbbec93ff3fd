//! Constrained-random stimulus of `msap-mc`: it plays the ejection port and L2. Phases vary
//! the arrival rate and L2's readiness (a full buffer, an empty one, both every cycle), the
//! PL mix (uniform, two levels, one level for the FIFO equivalence, a stream of top-PL
//! requests over a few low ones so ageing acts) and the line mix (distinct lines, or a pool of
//! a few lines so the same-line guard holds entries back); rare resets.

use super::model::Ports;
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::msap::max_pl;
use warpforge_contract::units::msap_mc::McConfig;

#[derive(Clone, Debug)]
pub struct MsapMcStimulus {
    rng: Rng,
    cfg: McConfig,
    p: Ports,
    phase_left: u64,
    /// Per 64: an arrival, L2 ready.
    p_in: u64,
    p_ready: u64,
    /// 0 uniform, 1 two levels, 2 one level, 3 mostly top.
    mix: u64,
    levels: [u64; 2],
    /// Lines drawn from this many values (0: any).
    line_pool: u64,
    line_base: u64,
}

impl MsapMcStimulus {
    pub fn new(cfg: &McConfig, seed: u64) -> MsapMcStimulus {
        MsapMcStimulus {
            rng: Rng::new(seed),
            p: Ports::new(cfg),
            phase_left: 0,
            p_in: 32,
            p_ready: 32,
            mix: 0,
            levels: [0, 0],
            line_pool: 0,
            line_base: 0,
            cfg: cfg.clone(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        let top = max_pl(self.cfg.pl_bits);
        self.phase_left = 30 + r.below(1000);
        (self.p_in, self.p_ready) = match r.below(5) {
            0 => (60, 16),
            1 => (16, 60),
            2 => (64, 64),
            3 => (40, 36),
            _ => (r.below(65), r.below(65)),
        };
        self.mix = r.below(4);
        self.levels = [r.below(top + 1), r.below(top + 1)];
        self.line_pool = [0, 0, 2, 3, 6][r.below(5) as usize];
        self.line_base = r.next_u64();
    }

    fn line(&mut self) -> u64 {
        let m = mask(self.cfg.line_bits);
        if self.line_pool == 0 {
            self.rng.next_u64() & m
        } else {
            self.line_base.wrapping_add(self.rng.below(self.line_pool)) & m
        }
    }

    fn pl(&mut self) -> u64 {
        let top = max_pl(self.cfg.pl_bits);
        match self.mix {
            0 => self.rng.below(top + 1),
            1 => self.levels[self.rng.below(2) as usize],
            2 => self.levels[0],
            _ if self.rng.chance(7, 8) => top,
            _ => self.rng.below(top),
        }
    }
}

fn mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

impl Stimulus for MsapMcStimulus {
    fn next(&mut self, cycle: u64, _prev: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let p = self.p.clone();
        if cycle < 2 || self.rng.chance(1, 30_000) {
            inputs[p.reset] = 1;
            return;
        }
        let arrive = self.rng.chance(self.p_in, 64);
        inputs[p.in_valid] = arrive as u64;
        // Fields without in_valid are don't-cares: random too.
        inputs[p.in_line] = self.line();
        inputs[p.in_pl] = self.pl();
        inputs[p.in_meta] = self.rng.next_u64() & mask(self.cfg.meta_bits);
        inputs[p.l2_ready] = self.rng.chance(self.p_ready, 64) as u64;
    }
}
