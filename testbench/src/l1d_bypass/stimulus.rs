//! Constrained-random stimulus of `l1d-bypass`.

use super::model::*;
use crate::rng::Rng;
use crate::Stimulus;
use warpforge_contract::units::l1d_bypass::*;
use warpforge_contract::Layout;

/// The constrained-random stimulus of `l1d-bypass`. Every input value is legal, so the
/// constraints only shape the traffic so that every corner is reached: phases of all-miss and
/// all-hit streams (FULL and RETAIN persist), miss rates near both thresholds (mode flips),
/// frequent MISS_NOWAY probes, mostly available resources with scarce stretches, random
/// barrier waiters, stalled accesses retried as the L1D would, rare kernel launches (some on an
/// epoch-end cycle) and rare mid-run resets.
#[derive(Clone, Debug)]
pub struct L1dBypassStimulus {
    rng: Rng,
    cfg: L1dBypassConfig,
    inp: InPorts,
    out: OutPorts,
    ctas: usize,
    phase_left: u64,
    /// Per 16: an access this cycle.
    p_valid: u64,
    /// Per 16: the access is a store.
    p_store: u64,
    /// Per 1000: a load misses (probe MISS or MISS_NOWAY).
    miss_permille: u64,
    /// Per 16: a miss finds every way reserved (MISS_NOWAY).
    p_noway: u64,
    /// Per 16: a hit is a pending hit (HIT_RESERVED).
    p_reserved: u64,
    /// Per 64: merge_ok, mshr_ok, mq_ok.
    p_ok: [u64; 3],
    /// Per 16: a CTA slot has a barrier waiter.
    p_waiter: u64,
    /// Per 16: a stalled access is retried in the next cycle.
    p_retry: u64,
    /// Last cycle's driven access (for retries and for predicting the epoch end).
    last: Access,
    last_reset: bool,
    last_kernel_start: bool,
}

impl L1dBypassStimulus {
    pub fn new(cfg: &L1dBypassConfig, seed: u64) -> Self {
        let layout = Layout::new(&cfg.ports());
        L1dBypassStimulus {
            rng: Rng::new(seed),
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            ctas: cfg.ctas,
            phase_left: 0,
            p_valid: 16,
            p_store: 0,
            miss_permille: 500,
            p_noway: 8,
            p_reserved: 4,
            p_ok: [60; 3],
            p_waiter: 4,
            p_retry: 14,
            last: Access::default(),
            last_reset: true,
            last_kernel_start: false,
            cfg: cfg.clone(),
        }
    }

    fn new_phase(&mut self) {
        let r = &mut self.rng;
        // Long enough for an all-miss stream to fill a whole epoch of counted loads.
        let span = (3 * self.cfg.epoch as u64).clamp(50, 4000);
        self.phase_left = 20 + r.below(span);
        self.p_valid = [16, 16, 14, 12, 8, 4][r.below(6) as usize];
        self.p_store = [0, 0, 1, 2, 4][r.below(5) as usize];
        let near = |r: &mut Rng, pct: u32| {
            let centre = pct as i64 * 10;
            (centre + r.below(61) as i64 - 30).clamp(0, 1000) as u64
        };
        self.miss_permille = match r.below(8) {
            0 | 1 => 1000,
            2 => 0,
            3 => near(r, self.cfg.partial_pct),
            4 => near(r, self.cfg.full_pct),
            _ => r.below(1001),
        };
        self.p_noway = [2, 8, 12, 16][r.below(4) as usize];
        self.p_reserved = [0, 4, 8, 16][r.below(4) as usize];
        for p in self.p_ok.iter_mut() {
            *p = match r.below(8) {
                0 => 32,
                1 => 0,
                2 => 64,
                _ => 56 + r.below(8),
            };
        }
        self.p_waiter = [0, 2, 8, 14, 16][r.below(5) as usize];
        self.p_retry = [0, 12, 16][r.below(3) as usize];
    }

    /// `A` at the start of this cycle, from last cycle's outputs and inputs.
    fn predicted_a(&self, prev: &[u64]) -> u64 {
        let o = self.out;
        if self.last_reset
            || prev[o.epoch_end] & 1 != 0
            || (self.last_kernel_start && self.cfg.launch_reset != LaunchReset::None)
        {
            return 0;
        }
        let d = Decision::from_code(prev[o.decision]).unwrap_or(Decision::None);
        let counted = matches!(
            d,
            Decision::Hit | Decision::Merge | Decision::Alloc | Decision::Bypass
        ) || (d == Decision::Write && self.cfg.count_stores);
        prev[o.dbg_acc] + counted as u64
    }

    fn random_access(&mut self) -> Access {
        let r = &mut self.rng;
        let store = r.chance(self.p_store, 16);
        let probe = if r.below(1000) < self.miss_permille {
            if r.chance(self.p_noway, 16) {
                Probe::MissNoWay
            } else {
                Probe::Miss
            }
        } else if r.chance(self.p_reserved, 16) {
            Probe::HitReserved
        } else {
            Probe::Hit
        };
        Access {
            valid: true,
            store,
            probe: probe.code() as u8,
            tb: r.below(self.ctas as u64) as usize,
            ..Access::default()
        }
    }
}

impl Stimulus for L1dBypassStimulus {
    fn next(&mut self, cycle: u64, prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        let i = self.inp;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;

        let waiters = self.rng.mask(self.ctas, self.p_waiter, 16);
        let [pm, ps, pq] = self.p_ok;
        let merge_ok = self.rng.chance(pm, 64);
        let mshr_ok = self.rng.chance(ps, 64);
        let mq_ok = self.rng.chance(pq, 64);

        if cycle < 2 || self.rng.chance(1, 20_000) {
            inputs[i.reset] = 1;
            self.last_reset = true;
            self.last_kernel_start = false;
            self.last = Access::default();
            return;
        }
        let a = self.predicted_a(prev_outputs);
        let stalled = Decision::from_code(prev_outputs[self.out.decision]) == Some(Decision::Stall);
        let at_epoch_end = self.cfg.window == Window::Epoch && a + 1 == self.cfg.epoch as u64;

        let mut kernel_start = self.rng.chance(1, 4000);
        let mut acc = if stalled && self.rng.chance(self.p_retry, 16) {
            // The L1D retries the access at the head of the LD/ST queue; meanwhile a fill may
            // have freed a way of its set (fills keep freeing reserved lines, BAR I11).
            let mut retry = self.last;
            if retry.probe() == Probe::MissNoWay && self.rng.chance(1, 6) {
                retry.probe = Probe::Miss.code() as u8;
            }
            retry
        } else if self.rng.chance(self.p_valid, 16) {
            self.random_access()
        } else {
            Access::default()
        };
        // Long epochs end rarely, so take more of their ends.
        let launch_odds = if self.cfg.epoch >= 64 { 8 } else { 64 };
        if at_epoch_end && self.rng.chance(1, launch_odds) {
            // A launch on the edge that ends an epoch (with a hit, which always resolves).
            kernel_start = true;
            acc = Access {
                valid: true,
                tb: acc.tb,
                ..Access::default()
            };
        }
        acc.merge_ok = merge_ok;
        acc.mshr_ok = mshr_ok;
        acc.mq_ok = mq_ok;
        if acc.valid {
            inputs[i.acc_valid] = 1;
            inputs[i.acc_store] = acc.store as u64;
            inputs[i.acc_probe] = acc.probe as u64;
            inputs[i.acc_tb] = acc.tb as u64;
        } else if self.rng.chance(1, 8) {
            // Ignored without acc_valid: drive other values so the unit is seen to ignore them.
            inputs[i.acc_store] = self.rng.below(2);
            inputs[i.acc_probe] = self.rng.below(4);
            inputs[i.acc_tb] = self.rng.below(self.ctas as u64);
        }
        inputs[i.merge_ok] = merge_ok as u64;
        inputs[i.mshr_ok] = mshr_ok as u64;
        inputs[i.mq_ok] = mq_ok as u64;
        inputs[i.tb_has_waiter] = waiters;
        inputs[i.kernel_start] = kernel_start as u64;
        self.last = acc;
        self.last_reset = false;
        self.last_kernel_start = kernel_start;
    }
}
