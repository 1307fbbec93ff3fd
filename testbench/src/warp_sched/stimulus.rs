//! The `warp-sched` constrained-random stimulus.

use super::*;

/// How many warps a stimulus phase keeps resident.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Occupancy {
    /// At most a few warps.
    Few,
    /// Fill every slot (launch bursts), rare exits.
    Full,
    /// Random launches and exits.
    Churn,
}

/// Constrained-random, protocol-legal inputs for `warp-sched`: launches into free slots
/// (for the new policies also, rarely, replacements of resident warps), exits only of resident
/// warps, densities that change every few hundred cycles.
#[derive(Clone, Debug)]
pub struct WarpSchedStimulus {
    pub(super) rng: Rng,
    pub(super) warps: usize,
    pub(super) all: u64,
    pub(super) inp: InPorts,
    pub(super) out_issue_valid: usize,
    pub(super) out_issue_slot: usize,
    pub(super) schedulers: usize,
    pub(super) slot_bits: usize,
    /// Residency implied by the inputs driven so far.
    pub(super) resident: u64,
    pub(super) phase_left: u64,
    /// Density levels (0..=8) of has_inst, ready, unit_free, is_mem.
    pub(super) levels: [u8; 4],
    pub(super) occupancy: Occupancy,
    pub(super) few_limit: u32,
    /// Cycles left of a unit_free = 0 stretch (backpressure).
    pub(super) stall_left: u64,
    /// Warps that issued last cycle are often not ready (a dependent next instruction).
    pub(super) dependent: bool,
    // motrr-recency: completions (density level, or a focus on one or two slots so counters
    // saturate and tie) and the global flags.
    pub(super) has_recency: bool,
    pub(super) cpl_level: u8,
    pub(super) cpl_focus: u64,
    // bar-gto: CTA of each slot as launched, CTAs with many bar.sync heads this phase.
    pub(super) has_barrier: bool,
    pub(super) ctas: usize,
    pub(super) tb_bits: usize,
    pub(super) slot_tb: [u8; 64],
    pub(super) bar_ctas: u64,
    pub(super) bar_level: u8,
}

impl WarpSchedStimulus {
    pub fn new(cfg: &WarpSchedConfig, seed: u64) -> Self {
        let layout = Layout::new(&cfg.ports());
        WarpSchedStimulus {
            rng: Rng::new(seed),
            warps: cfg.warps,
            all: low_bits(cfg.warps),
            inp: InPorts::new(&layout),
            out_issue_valid: offset(&layout.outputs, "issue_valid"),
            out_issue_slot: offset(&layout.outputs, "issue_slot"),
            schedulers: cfg.schedulers,
            slot_bits: cfg.slot_bits(),
            resident: 0,
            phase_left: 0,
            levels: [8; 4],
            occupancy: Occupancy::Churn,
            few_limit: 2,
            stall_left: 0,
            dependent: false,
            has_recency: cfg.has_recency(),
            cpl_level: 2,
            cpl_focus: 0,
            has_barrier: cfg.has_barrier(),
            ctas: cfg.barrier.ctas,
            tb_bits: cfg.tb_bits(),
            slot_tb: [0; 64],
            bar_ctas: 0,
            bar_level: 4,
        }
    }

    pub(super) fn new_phase(&mut self) {
        let r = &mut self.rng;
        self.phase_left = 100 + r.below(500);
        // Mostly mid densities, often the extremes.
        let level = |r: &mut Rng| match r.below(16) {
            0 => 0,
            1..=4 => 8,
            5 => 1,
            _ => 1 + r.below(7) as u8,
        };
        for k in 0..4 {
            self.levels[k] = level(r);
        }
        // Long backpressure stretches: some phases have no free unit at all.
        if r.chance(1, 10) {
            self.levels[2] = 0;
        }
        self.occupancy = match r.below(4) {
            0 => Occupancy::Few,
            1 => Occupancy::Full,
            _ => Occupancy::Churn,
        };
        self.few_limit = 1 + r.below(4) as u32;
        self.dependent = r.chance(1, 2);
        // New draws only for the new policies, so LRR/GTO stimulus streams stay as they were.
        if self.has_recency {
            self.cpl_level = r.below(5) as u8;
            self.cpl_focus = if r.chance(1, 3) {
                (1u64 << r.below(self.warps as u64)) | (1u64 << r.below(self.warps as u64))
            } else {
                0
            };
        }
        if self.has_barrier {
            self.bar_ctas = r.next_u64() & low_bits(self.ctas);
            self.bar_level = 1 + r.below(8) as u8;
        }
    }

    /// A CTA slot for a launch group: mostly one with no resident warp.
    pub(super) fn pick_cta(&mut self, resident: u64) -> usize {
        let mut used = 0u64;
        for w in bits(resident) {
            used |= 1 << self.slot_tb[w];
        }
        let free = low_bits(self.ctas) & !used;
        if free != 0 && self.rng.chance(3, 4) {
            self.random_bit(free)
        } else {
            self.rng.below(self.ctas as u64) as usize
        }
    }

    /// A random set bit of `m` (m != 0).
    pub(super) fn random_bit(&mut self, m: u64) -> usize {
        let mut k = self.rng.below(m.count_ones() as u64);
        let mut m = m;
        while k > 0 {
            m &= m - 1;
            k -= 1;
        }
        m.trailing_zeros() as usize
    }

    /// Up to `n` free slots for one CTA: consecutive free slots from a random start.
    pub(super) fn cta_slots(&mut self, free: u64, n: u32) -> u64 {
        if free == 0 {
            return 0;
        }
        let start = self.random_bit(free);
        let mut picked = 0u64;
        let mut m = free & (u64::MAX << start);
        if m.count_ones() < n {
            m = free;
        }
        while m != 0 && picked.count_ones() < n {
            picked |= m & m.wrapping_neg();
            m &= m - 1;
        }
        picked
    }
}

impl Stimulus for WarpSchedStimulus {
    fn next(&mut self, cycle: u64, prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        let all = self.all;
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let i = self.inp;
        inputs[i.has_inst] = density_mask(&mut self.rng, self.levels[0]) & all;
        let mut ready = density_mask(&mut self.rng, self.levels[1]) & all;
        let mut unit_free = density_mask(&mut self.rng, self.levels[2]) & all;
        inputs[i.is_mem] = density_mask(&mut self.rng, self.levels[3]) & all;
        if self.stall_left > 0 {
            self.stall_left -= 1;
            unit_free = 0;
        } else if self.rng.chance(1, 300) {
            self.stall_left = 5 + self.rng.below(60);
        }
        // React to last cycle's issues: the issued warps' next instruction often waits.
        if self.dependent && cycle > 0 && !prev_outputs.is_empty() {
            let iv = prev_outputs[self.out_issue_valid];
            let slots = prev_outputs[self.out_issue_slot];
            for s in 0..self.schedulers {
                if iv >> s & 1 != 0 && self.rng.chance(1, 2) {
                    let w = slots >> (s * self.slot_bits) & low_bits(self.slot_bits);
                    ready &= !(1u64 << w);
                }
            }
        }
        inputs[i.ready] = ready;
        inputs[i.unit_free] = unit_free;

        if cycle < 2 || self.rng.chance(1, 20_000) {
            inputs[i.reset] = 1;
            self.resident = 0;
            return;
        }

        // Exits of resident warps, launches into free slots (never both on one slot).
        let resident = self.resident;
        let mut exit = 0u64;
        let n_res = resident.count_ones();
        let (p_exit, p_burst) = match self.occupancy {
            Occupancy::Few => (30, 400),
            Occupancy::Full => (150, 2000),
            Occupancy::Churn => (12, 150),
        };
        if resident != 0 {
            if self.rng.chance(1, p_exit)
                || (self.occupancy == Occupancy::Few && n_res > self.few_limit)
            {
                exit |= 1 << self.random_bit(resident);
            }
            if self.rng.chance(1, p_burst) {
                exit |= resident & density_mask(&mut self.rng, 4);
            }
        }
        let free = all & !resident;
        let mut launch = 0u64;
        match self.occupancy {
            Occupancy::Few => {
                if n_res < self.few_limit && self.rng.chance(1, 8) {
                    let room = self.few_limit - n_res;
                    let n = 1 + self.rng.below(room as u64) as u32;
                    launch = self.cta_slots(free, n);
                }
            }
            Occupancy::Full => {
                if free != 0 && self.rng.chance(1, 3) {
                    let n = 1 + self.rng.below(self.warps.min(16) as u64) as u32;
                    launch = self.cta_slots(free, n);
                }
            }
            Occupancy::Churn => {
                if free != 0 && self.rng.chance(1, 10) {
                    let n = 1 + self.rng.below(8) as u32;
                    launch = self.cta_slots(free, n);
                }
            }
        }
        // New policies: sometimes a launch into a resident slot (the warp is replaced, with
        // or without its exit), e.g. of a waiting or recent warp.
        if (self.has_recency || self.has_barrier) && resident != 0 && self.rng.chance(1, 40) {
            let w = self.random_bit(resident);
            launch |= 1 << w;
            if self.rng.chance(1, 2) {
                exit |= 1 << w;
            }
        }
        inputs[i.exit] = exit;
        inputs[i.launch] = launch;
        self.resident = (resident & !exit) | launch;
        let after = self.resident;
        if self.has_recency {
            // Completions mostly of warps resident after the edge, sometimes of any slot.
            let mut cpl = if self.cpl_focus != 0 {
                self.cpl_focus & density_mask(&mut self.rng, 4)
            } else {
                density_mask(&mut self.rng, self.cpl_level) & after
            };
            if self.rng.chance(1, 40) {
                cpl |= self.rng.next_u64() & all;
            }
            if let Some(p) = i.mem_complete {
                inputs[p] = cpl & all;
            }
            if let Some(p) = i.cpl_global {
                inputs[p] = density_mask(&mut self.rng, 6) & all;
            }
            if let Some(p) = i.is_global {
                inputs[p] = density_mask(&mut self.rng, 6) & all;
            }
        }
        if self.has_barrier {
            if let Some(off) = i.launch_tb {
                let tbb = self.tb_bits;
                let group = self.pick_cta(resident & !exit);
                let scatter = self.rng.chance(1, 8);
                for w in bits(launch) {
                    let t = if scatter {
                        self.rng.below(self.ctas as u64) as usize
                    } else {
                        group
                    };
                    self.slot_tb[w] = t as u8;
                    words::set(&mut inputs[off..], w * tbb, tbb, t as u64);
                }
                // Garbage in the fields of slots that do not launch (must be ignored).
                if self.rng.chance(1, 16) {
                    let w = self.rng.below(self.warps as u64) as usize;
                    if launch >> w & 1 == 0 {
                        words::set(&mut inputs[off..], w * tbb, tbb, self.rng.next_u64());
                    }
                }
            }
            if let Some(p) = i.is_bar {
                let mut heavy = 0u64;
                for w in bits(after) {
                    if self.bar_ctas >> self.slot_tb[w] & 1 != 0 {
                        heavy |= 1 << w;
                    }
                }
                let dense = density_mask(&mut self.rng, self.bar_level) & heavy;
                let sparse = density_mask(&mut self.rng, 1) & all;
                inputs[p] = dense | sparse;
            }
        }
    }
}
