//! Constrained-random stimulus of `msap-noc`: the [`Traffic`] generator with phases that vary
//! the injection rate (idle to saturating), the destination pattern, the PL mode (random
//! per packet, one PL for everyone — the I-8 case —, two forced classes, occupancy-driven)
//! and the line pool (small pools make same-line requests meet in the MC buffers); rare
//! resets. Every request is legal by construction (an MC index below the MC count).

use super::traffic::{Pattern, PlMode, Traffic};
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::msap::max_pl;
use warpforge_contract::units::msap_noc::NocConfig;
use warpforge_contract::Layout;

pub struct MsapNocStimulus {
    cfg: NocConfig,
    rng: Rng,
    pub traffic: Traffic,
    reset_at: usize,
    phase_left: u64,
    /// Reset rarely (never for the scenario runs that build on this).
    pub resets: bool,
}

impl MsapNocStimulus {
    pub fn new(cfg: &NocConfig, seed: u64) -> MsapNocStimulus {
        MsapNocStimulus {
            rng: Rng::new(seed ^ 0x5eed_0c0c),
            traffic: Traffic::new(cfg, seed),
            reset_at: Layout::new(&cfg.ports()).input("reset").unwrap().offset,
            phase_left: 0,
            resets: true,
            cfg: cfg.clone(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        let t = &mut self.traffic;
        let top = max_pl(self.cfg.pl_bits);
        self.phase_left = 200 + r.below(3000);
        t.rate = [0.0, 0.01, 0.03, 0.08, 0.2, 0.5, 1.0][r.below(7) as usize];
        t.pattern = [
            Pattern::Uniform,
            Pattern::Hotspot,
            Pattern::Transpose,
            Pattern::Bitcomp,
            Pattern::Neighbor,
        ][r.below(5) as usize];
        t.pl = match r.below(4) {
            0 => PlMode::Random,
            1 => PlMode::Forced(vec![r.below(top + 1)]),
            2 => {
                let (a, b) = (r.below(top + 1), r.below(top + 1));
                PlMode::Forced(
                    (0..self.cfg.n_sm())
                        .map(|k| if k < 2 { a } else { b })
                        .collect(),
                )
            }
            _ => PlMode::Occupancy(r.below(3) as usize),
        };
        t.line_pool = [0, 2, 4][r.below(3) as usize];
        t.generating = true;
    }
}

impl Stimulus for MsapNocStimulus {
    fn next(&mut self, cycle: u64, prev: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        if cycle == 0 || (self.resets && self.rng.chance(1, 40_000)) {
            inputs[self.reset_at] = 1;
            self.traffic.clear();
            return;
        }
        self.traffic.next(cycle, prev, inputs);
    }
}
