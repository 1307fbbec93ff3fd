//! Constrained-random stimulus of `msap-pl`: it plays the L1D. A shadow [`PlGen`] (its own,
//! never the checked model) knows the occupancy, so fills come only with a valid entry.
//! Phases push the occupancy up (misses, few fills), down, or hold it near full (refused
//! misses) or at a level, with varying shares of merged secondary misses; rare resets.

use super::model::{PlGen, Ports};
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::msap_pl::PlConfig;

#[derive(Clone, Debug)]
pub struct MsapPlStimulus {
    rng: Rng,
    p: Ports,
    shadow: PlGen,
    phase_left: u64,
    /// Per 64: a miss, a merged miss among them, a fill.
    p_miss: u64,
    p_merge: u64,
    p_fill: u64,
}

impl MsapPlStimulus {
    pub fn new(cfg: &PlConfig, seed: u64) -> MsapPlStimulus {
        MsapPlStimulus {
            rng: Rng::new(seed),
            p: Ports::new(cfg),
            shadow: PlGen::new(cfg),
            phase_left: 0,
            p_miss: 32,
            p_merge: 16,
            p_fill: 32,
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 20 + r.below(400);
        (self.p_miss, self.p_fill) = match r.below(5) {
            0 => (56, 8),
            1 => (8, 56),
            2 => (64, 64),
            3 => (40, 36),
            _ => (r.below(65), r.below(65)),
        };
        self.p_merge = [0, 8, 32, 60][r.below(4) as usize];
    }
}

impl Stimulus for MsapPlStimulus {
    fn next(&mut self, cycle: u64, _prev: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let p = self.p.clone();
        if cycle < 2 || self.rng.chance(1, 20_000) {
            inputs[p.reset] = 1;
            self.shadow.reset();
            return;
        }
        let miss = self.rng.chance(self.p_miss, 64);
        // A merge bit without a miss is a don't-care.
        let merge = self.rng.chance(self.p_merge, 64);
        let fill = self.shadow.occ() > 0 && self.rng.chance(self.p_fill, 64);
        inputs[p.miss] = miss as u64;
        inputs[p.merge] = merge as u64;
        inputs[p.fill] = fill as u64;
        self.shadow.cycle(miss, merge, fill);
    }
}
