//! Constrained-random stimulus of `simt-stack`.

use super::model::*;
use crate::rng::Rng;
use crate::warp_sched::density_mask;
use crate::words::low_bits;
use crate::Stimulus;
use warpforge_contract::units::simt_stack::SimtStackConfig;
use warpforge_contract::Layout;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// A program-like walk: advances, uniform and divergent branches, exits.
    Walk,
    /// Diverge as deep as the lanes allow (towards overflow).
    Deep,
    /// Run paths to their RPCs (pops and pop cascades).
    Unwind,
}

/// A random program-like walk for `simt-stack`, steering by the previous cycle's outputs.
#[derive(Clone, Debug)]
pub struct SimtStackStimulus {
    rng: Rng,
    pc_mask: u64,
    lanes: u64,
    warp_size: usize,
    inp: InPorts,
    out: OutPorts,
    /// PCs recently seen on `pc` and `tos_rpc`.
    recent: [u64; 8],
    recent_at: usize,
    mode: Mode,
    phase_left: u64,
    /// The last cycle may have changed the state, so `prev_outputs` may be one step behind.
    changed: bool,
    launched: bool,
}

impl SimtStackStimulus {
    pub fn new(cfg: &SimtStackConfig, seed: u64) -> Self {
        let layout = Layout::new(&cfg.ports());
        SimtStackStimulus {
            rng: Rng::new(seed),
            pc_mask: low_bits(cfg.pc_bits),
            lanes: low_bits(cfg.warp_size),
            warp_size: cfg.warp_size,
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            recent: [0; 8],
            recent_at: 0,
            mode: Mode::Walk,
            phase_left: 0,
            changed: true,
            launched: false,
        }
    }

    fn remember(&mut self, pc: u64) {
        self.recent[self.recent_at] = pc;
        self.recent_at = (self.recent_at + 1) % self.recent.len();
    }

    fn recent_pc(&mut self) -> u64 {
        self.recent[self.rng.below(self.recent.len() as u64) as usize]
    }

    fn random_pc(&mut self) -> u64 {
        self.rng.next_u64() & self.pc_mask
    }

    fn launch_mask(&mut self) -> u64 {
        let m = match self.rng.below(20) {
            0..=7 => u64::MAX,
            8..=12 => density_mask(&mut self.rng, 1),
            13..=17 => self.some_lanes(),
            18 => 0,
            _ => 1 << self.rng.below(self.warp_size as u64),
        };
        m & self.lanes
    }

    /// Lanes with a random density from 1/8 to 7/8.
    fn some_lanes(&mut self) -> u64 {
        let level = 1 + self.rng.below(7) as u8;
        density_mask(&mut self.rng, level) & self.lanes
    }

    /// A random lane set in `m` (m != 0).
    fn random_lane(&mut self, m: u64) -> u64 {
        let mut k = self.rng.below(m.count_ones() as u64);
        let mut m = m;
        while k > 0 {
            m &= m - 1;
            k -= 1;
        }
        m & m.wrapping_neg()
    }

    /// A PC different from `avoid`.
    fn pc_not(&mut self, pc: u64, avoid: u64) -> u64 {
        if pc & self.pc_mask == avoid {
            (pc ^ 1) & self.pc_mask
        } else {
            pc & self.pc_mask
        }
    }
}

impl Stimulus for SimtStackStimulus {
    fn next(&mut self, cycle: u64, prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|w| *w = 0);
        let (i, o) = (self.inp, self.out);
        let prev = |off: usize| prev_outputs.get(off).copied().unwrap_or(0);
        let (pc, mask, tos_rpc) = (prev(o.pc), prev(o.mask), prev(o.tos_rpc));
        let rpc_valid = prev(o.tos_rpc_valid) != 0;
        let empty = cycle == 0 || prev(o.empty) != 0;
        if !empty {
            self.remember(pc);
            if rpc_valid {
                self.remember(tos_rpc);
            }
        }
        if self.phase_left == 0 {
            self.phase_left = 30 + self.rng.below(300);
            self.mode = match self.rng.below(8) {
                0..=3 => Mode::Walk,
                4 | 5 => Mode::Deep,
                _ => Mode::Unwind,
            };
        }
        self.phase_left -= 1;
        let (was_changed, was_launch) = (self.changed, self.launched);
        self.changed = true;
        self.launched = false;

        if cycle < 2 || self.rng.chance(1, 5000) {
            inputs[i.reset] = 1;
            // Junk on the other inputs: reset has priority.
            inputs[i.commit] = self.rng.below(2);
            inputs[i.launch] = self.rng.below(2);
            return;
        }
        let relaunch = self.rng.chance(1, 700);
        let deep_restart = self.mode == Mode::Deep && !was_changed && mask.count_ones() < 2;
        if (empty && !was_launch && self.rng.chance(3, 4)) || relaunch || deep_restart {
            inputs[i.launch] = 1;
            inputs[i.launch_pc] = if self.rng.chance(1, 2) {
                self.recent_pc()
            } else {
                self.random_pc()
            };
            inputs[i.launch_mask] = if deep_restart {
                self.lanes
            } else {
                self.launch_mask()
            };
            // Sometimes a commit in the same cycle: launch wins.
            if self.rng.chance(1, 4) {
                inputs[i.commit] = 1;
                inputs[i.branch] = 1;
                inputs[i.taken] = self.rng.next_u64() & self.lanes;
                inputs[i.next_pc] = self.random_pc();
                inputs[i.target] = self.random_pc();
                inputs[i.rpc] = self.random_pc();
            }
            self.launched = true;
            return;
        }
        // Idle cycles (with junk on the commit fields), and in Deep mode wait for exact
        // outputs before each divergence.
        if self.rng.chance(1, 8) || (self.mode == Mode::Deep && was_changed) {
            inputs[i.next_pc] = self.random_pc();
            inputs[i.taken] = self.rng.next_u64() & self.lanes;
            inputs[i.branch] = self.rng.below(2);
            inputs[i.exit] = self.rng.chance(1, 8) as u64;
            self.changed = false;
            return;
        }
        inputs[i.commit] = 1;
        let pcm = self.pc_mask;
        match self.mode {
            Mode::Deep => {
                // Split one lane off the TOS path: two pushes per commit, until the lanes
                // run out or the stack overflows.
                let rpc = self.random_pc();
                let taken = mask & !self.random_lane(mask);
                inputs[i.branch] = 1;
                inputs[i.taken] = taken;
                inputs[i.rpc] = rpc;
                let np = pc.wrapping_add(1);
                inputs[i.next_pc] = self.pc_not(np, rpc);
                let t = self.random_pc();
                inputs[i.target] = self.pc_not(t, rpc);
            }
            Mode::Unwind => {
                // Go to the RPC (pop); now and then an exit or a uniform branch.
                if self.rng.chance(1, 30) {
                    inputs[i.exit] = 1;
                } else if rpc_valid && self.rng.chance(7, 8) {
                    inputs[i.next_pc] = tos_rpc;
                } else {
                    inputs[i.next_pc] = pc.wrapping_add(1) & pcm;
                }
            }
            Mode::Walk => {
                let r = self.rng.below(100);
                if r < 3 {
                    inputs[i.exit] = 1;
                    inputs[i.next_pc] = pc.wrapping_add(1) & pcm;
                } else if r < 40 {
                    inputs[i.branch] = 1;
                    inputs[i.taken] = match self.rng.below(20) {
                        0..=2 => self.lanes,
                        3..=5 => 0,
                        6..=7 => mask & self.rng.next_u64(),
                        _ => self.some_lanes(),
                    };
                    let rpc = match self.rng.below(20) {
                        0..=6 if rpc_valid => tos_rpc,
                        0..=14 => pc.wrapping_add(2 + self.rng.below(6)) & pcm,
                        _ => self.recent_pc(),
                    };
                    inputs[i.rpc] = rpc;
                    inputs[i.target] = match self.rng.below(10) {
                        0 | 1 => rpc,
                        2..=6 => pc.wrapping_add(1 + self.rng.below(4)) & pcm,
                        7 | 8 => self.recent_pc(),
                        _ => self.random_pc(),
                    };
                    inputs[i.next_pc] = if self.rng.chance(3, 20) {
                        rpc
                    } else {
                        pc.wrapping_add(1) & pcm
                    };
                } else {
                    inputs[i.next_pc] = match self.rng.below(20) {
                        0..=6 if rpc_valid => tos_rpc,
                        0..=15 => pc.wrapping_add(1) & pcm,
                        _ => self.recent_pc(),
                    };
                }
            }
        }
    }
}
