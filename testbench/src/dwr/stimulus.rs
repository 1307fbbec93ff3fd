//! The `dwr` constrained-random stimulus.

use super::*;

// ---------------------------------------------------------------------------------------
// Stimulus

/// How the stimulus's `__syncthreads` block barrier releases sub-warps blocked in `bar.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BlockMode {
    /// The block is the partner group: release when every live member is blocked.
    Group,
    /// The block is the whole SM.
    All,
    /// Release blocked sub-warps at random.
    Random,
}

/// The stimulus's view of one sub-warp's program.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SwProg {
    pub(super) alive: bool,
    pub(super) pc: u64,
    /// The next instruction is the sensitive one after a `bar.synch_partner`.
    pub(super) after_bar: bool,
    pub(super) at_sync: bool,
    pub(super) sync_since: u64,
    pub(super) mask: u64,
}

#[derive(Clone, Debug)]
pub(super) struct Phase {
    pub(super) left: u64,
    /// Weights of ALU, LONG, BAR_PARTNER, BAR_SYNC, EXIT, codes 5–7.
    pub(super) weights: [u64; 6],
    /// Out of 8: a barrier PC is the group's current target PC.
    pub(super) agree: u64,
    pub(super) ready_level: u8,
    pub(super) wb_max: u64,
    pub(super) launch_rate: u64,
    pub(super) block: BlockMode,
    /// Inconsistent PCs, spurious writebacks and launches, random instruction classes.
    pub(super) chaos: bool,
    /// No new barriers or launches; everything runs to its exit.
    pub(super) drain: bool,
    /// One in `grid_rate` cycles pulses `grid_start`.
    pub(super) grid_rate: u64,
    /// One in `retarget` barriers moves its group's target PC.
    pub(super) retarget: u64,
}

/// Constrained-random inputs for `dwr`: a small program model per sub-warp, advanced when
/// the unit issues it. On each `nxt_*` announcement it draws the picked sub-warp's next
/// instruction (barriers weighted high, PCs from a small pool concentrated on one ILT set and
/// often shared by a group), completes long and fused instructions with `writeback` after
/// random delays (fused members together), releases `__syncthreads` by group, SM or at random,
/// launches and exits sub-warps (also while partners wait), holds `ready` low in bursts,
/// pulses `grid_start`, resets very rarely, and now and then drains everything. All inputs
/// are legal by the contract; the bookkeeping only steers towards the interesting states.
#[derive(Clone, Debug)]
pub struct DwrStimulus {
    pub(super) rng: Rng,
    pub(super) n: usize,
    pub(super) all: Bits,
    pub(super) w: usize,
    pub(super) s: usize,
    pub(super) p: usize,
    pub(super) nw: usize,
    pub(super) sets: usize,
    pub(super) pc_mask: u64,
    pub(super) inp: InPorts,
    pub(super) out: OutPorts,
    pub(super) prog: Vec<SwProg>,
    pub(super) alive: Bits,
    pub(super) at_sync: Bits,
    pub(super) last_drive: Option<(usize, InstKind, u64)>,
    pub(super) reset_last: bool,
    pub(super) wheel: [Bits; 64],
    pub(super) phase: Phase,
    pub(super) targets: Vec<u64>,
    pub(super) pool: Vec<u64>,
    pub(super) stopped: bool,
    pub(super) ready_burst: u64,
}

impl DwrStimulus {
    pub fn new(cfg: &DwrConfig, seed: u64) -> Self {
        let g = &cfg.geometry;
        let layout = Layout::new(&cfg.ports());
        let n = g.subwarps();
        let mut st = DwrStimulus {
            rng: Rng::new(seed),
            n,
            all: Bits::low(n),
            w: g.group_size,
            s: g.subwarp_size,
            p: g.pc_bits,
            nw: n.div_ceil(64),
            sets: cfg.ilt.sets,
            pc_mask: if g.pc_bits >= 64 {
                u64::MAX
            } else {
                (1u64 << g.pc_bits) - 1
            },
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            prog: vec![SwProg::default(); n],
            alive: Bits::ZERO,
            at_sync: Bits::ZERO,
            last_drive: None,
            reset_last: false,
            wheel: [Bits::ZERO; 64],
            phase: Phase {
                left: 0,
                weights: [1; 6],
                agree: 6,
                ready_level: 8,
                wb_max: 10,
                launch_rate: 4,
                block: BlockMode::Group,
                chaos: false,
                drain: false,
                grid_rate: 3000,
                retarget: 4,
            },
            targets: vec![0; g.groups()],
            pool: Vec::with_capacity(48),
            stopped: false,
            ready_burst: 0,
        };
        st.new_phase();
        st
    }

    /// Stop issuing arrivals and launches for good: every sub-warp runs to its exit (the
    /// no-deadlock runs end with this).
    pub fn drain(&mut self) {
        self.stopped = true;
    }

    pub(super) fn new_phase(&mut self) {
        let r = &mut self.rng;
        let ph = &mut self.phase;
        ph.left = 200 + r.below(3000);
        ph.weights = [
            r.below(6),
            r.below(4),
            1 + r.below(8),
            [0, 0, 1, 2][r.below(4) as usize],
            [0, 1, 1, 2][r.below(4) as usize],
            r.below(2),
        ];
        ph.agree = 4 + r.below(5);
        ph.ready_level = if r.chance(1, 2) {
            8
        } else {
            3 + r.below(6) as u8
        };
        ph.wb_max = [0, 3, 10, 30, 63][r.below(5) as usize];
        ph.launch_rate = 1 + r.below(30);
        ph.block = [BlockMode::Group, BlockMode::All, BlockMode::Random][r.below(3) as usize];
        ph.chaos = r.chance(1, 4);
        ph.drain = r.chance(1, 10);
        ph.grid_rate = [200, 1000, 3000, 30_000][r.below(4) as usize];
        ph.retarget = [2, 4, 16][r.below(3) as usize];
        // Barrier PCs: a pool concentrated on one or two ILT sets, so that sets fill and
        // evict; some phases use few PCs (fusion), others many (mismatches, ILT churn).
        let size = [2, 4, 8, 16, 40][r.below(5) as usize];
        let hot = [r.below(self.sets as u64), r.below(self.sets as u64)];
        self.pool.clear();
        for _ in 0..size {
            let set = if r.chance(3, 4) {
                hot[r.below(2) as usize]
            } else {
                r.below(self.sets as u64)
            };
            let ix = (r.below(64) * self.sets as u64 + set) & self.pc_mask;
            self.pool.push(ix);
        }
        for t in self.targets.iter_mut() {
            *t = self.pool[r.below(self.pool.len() as u64) as usize];
        }
    }

    pub(super) fn clear_all(&mut self) {
        self.prog.iter_mut().for_each(|p| *p = SwProg::default());
        self.alive = Bits::ZERO;
        self.at_sync = Bits::ZERO;
        self.wheel = [Bits::ZERO; 64];
        self.last_drive = None;
    }

    pub(super) fn schedule_writeback(&mut self, cycle: u64, members: Bits) {
        let d = self.rng.below(self.phase.wb_max + 1);
        let slot = ((cycle + d) % 64) as usize;
        self.wheel[slot] = self.wheel[slot] | members;
    }

    /// Learn what the unit issued last cycle (the outputs of cycle − 1).
    pub(super) fn observe(&mut self, cycle: u64, prev: &[u64]) {
        let o = self.out;
        if prev[o.issue_valid] & 1 == 0 {
            return;
        }
        let mask = self.pc_mask;
        if prev[o.issue_fused] & 1 == 1 {
            let g = prev[o.issue_group] as usize;
            let members = prev[o.issue_members];
            let mut set = Bits::ZERO;
            for j in 0..self.w {
                if members >> j & 1 == 1 {
                    let s = g * self.w + j;
                    let p = &mut self.prog[s];
                    p.pc = (p.pc + 1) & mask;
                    p.after_bar = false;
                    set.set(s);
                }
            }
            self.schedule_writeback(cycle, set);
        } else if let Some((s, kind, pc)) = self.last_drive {
            let p = &mut self.prog[s];
            match kind {
                InstKind::Alu => p.pc = (p.pc + 1) & mask,
                InstKind::Long => {
                    p.pc = (p.pc + 1) & mask;
                    p.after_bar = false;
                    let mut b = Bits::ZERO;
                    b.set(s);
                    self.schedule_writeback(cycle, b);
                }
                InstKind::BarPartner => {
                    p.pc = (pc + 1) & mask;
                    p.after_bar = true;
                    if self.phase.chaos && self.rng.chance(1, 4) {
                        // A writeback while the barrier is in flight: must be ignored.
                        let mut b = Bits::ZERO;
                        b.set(s);
                        let slot = ((cycle + self.rng.below(3)) % 64) as usize;
                        self.wheel[slot] = self.wheel[slot] | b;
                    }
                }
                InstKind::BarSync => {
                    p.pc = (p.pc + 1) & mask;
                    p.at_sync = true;
                    p.sync_since = cycle;
                    self.at_sync.set(s);
                }
                InstKind::Exit => {
                    *p = SwProg::default();
                    self.alive.clear(s);
                    self.at_sync.clear(s);
                }
            }
        }
    }

    /// Is some live partner of `s`'s block waiting in `__syncthreads`?
    pub(super) fn block_waits(&self, s: usize) -> bool {
        match self.phase.block {
            BlockMode::Group => self.at_sync.bits(s / self.w * self.w, self.w) != 0,
            BlockMode::All => !self.at_sync.is_zero(),
            BlockMode::Random => false,
        }
    }

    /// The next instruction of READY sub-warp `s`: its class and PC.
    pub(super) fn decide(&mut self, s: usize, drain: bool) -> (InstKind, u64) {
        let p = self.prog[s];
        if p.after_bar {
            // The sensitive instruction after a bypassed barrier, issued alone.
            return (InstKind::Long, p.pc);
        }
        if drain {
            return (InstKind::Exit, p.pc);
        }
        if self.block_waits(s) && self.rng.chance(3, 4) {
            return (InstKind::BarSync, p.pc);
        }
        let wts = self.phase.weights;
        let total: u64 = wts.iter().sum::<u64>().max(1);
        let mut x = self.rng.below(total);
        let mut k = 0;
        while k < 5 && x >= wts[k] {
            x -= wts[k];
            k += 1;
        }
        match k {
            1 => (InstKind::Long, p.pc),
            2 => {
                let g = s / self.w;
                let pc = if self.rng.chance(self.phase.agree, 8) {
                    self.targets[g]
                } else {
                    self.pool[self.rng.below(self.pool.len() as u64) as usize]
                };
                if self.rng.chance(1, self.phase.retarget) {
                    self.targets[g] = self.pool[self.rng.below(self.pool.len() as u64) as usize];
                }
                (InstKind::BarPartner, pc)
            }
            3 => (InstKind::BarSync, p.pc),
            4 => (InstKind::Exit, p.pc),
            _ => (InstKind::Alu, p.pc),
        }
    }

    pub(super) fn drive_issue(&mut self, s: usize, fused: bool, drain: bool, inputs: &mut [u64]) {
        let i = self.inp;
        let (w, p) = (self.w, self.p);
        let g = s / w;
        let code = if fused {
            // Ignored for a combine-ready pick.
            self.rng.below(8)
        } else {
            let (kind, pc) = self.decide(s, drain);
            if kind == InstKind::BarPartner {
                self.prog[s].pc = pc;
            }
            self.last_drive = Some((s, kind, pc));
            if kind == InstKind::Alu && self.phase.weights[5] > 0 && self.rng.chance(1, 4) {
                5 + self.rng.below(3)
            } else {
                kind.code()
            }
        };
        inputs[i.inst_kind] = code;
        for j in 0..w {
            let sw = g * w + j;
            let pr = self.prog[sw];
            let mut pc = if pr.alive { pr.pc } else { self.rng.below(4) };
            if self.phase.chaos && self.rng.chance(1, 16) {
                pc =
                    (self.pool[self.rng.below(self.pool.len() as u64) as usize] + 1) & self.pc_mask;
            }
            inputs.set_field_at(i.grp_pc, j * p, p, pc);
            inputs.set_field_at(i.grp_mask, j * self.s, self.s, pr.mask);
        }
    }

    pub(super) fn launch(&mut self, empty: Bits) -> Bits {
        let r = &mut self.rng;
        let w = self.w;
        let pick = |r: &mut Rng, set: Bits| set.nth(r.below(set.count().max(1) as u64) as usize);
        let Some(first) = pick(r, empty) else {
            return Bits::ZERO;
        };
        let mut l = Bits::ZERO;
        match r.below(10) {
            // The empty members of a group (a block aligned to W·S slots, A11).
            0..=4 => {
                let g = first / w;
                for s in g * w..(g + 1) * w {
                    if empty.get(s) {
                        l.set(s);
                    }
                }
            }
            // One sub-warp (also into a group with an open row).
            5..=7 => l.set(first),
            // A run of sub-warps that may span groups.
            _ => {
                let len = 1 + r.below(2 * w as u64) as usize;
                for s in first..(first + len).min(self.n) {
                    if empty.get(s) {
                        l.set(s);
                    }
                }
            }
        }
        for s in l.iter() {
            let mask = match r.below(8) {
                0 => r.next_u64(),
                1 => 0,
                _ => u64::MAX,
            };
            self.prog[s] = SwProg {
                alive: true,
                pc: r.below(16),
                mask: mask
                    & if self.s >= 64 {
                        u64::MAX
                    } else {
                        (1 << self.s) - 1
                    },
                ..SwProg::default()
            };
        }
        self.alive = self.alive | l;
        l
    }
}

impl Stimulus for DwrStimulus {
    fn next(&mut self, cycle: u64, prev: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|x| *x = 0);
        let (i, o) = (self.inp, self.out);
        let all = self.all;
        if cycle > 0 && !self.reset_last && !prev.is_empty() {
            self.observe(cycle, prev);
        }
        self.last_drive = None;
        let announced =
            cycle > 0 && !self.reset_last && !prev.is_empty() && prev[o.nxt_valid] & 1 == 1;
        self.reset_last = false;
        if cycle < 2 || (!self.stopped && self.rng.chance(1, 200_000)) {
            inputs[i.reset] = 1;
            self.clear_all();
            self.reset_last = true;
            return;
        }
        if self.phase.left == 0 || (self.phase.drain && self.alive.is_zero()) {
            self.new_phase();
        }
        self.phase.left -= 1;
        let drain = self.stopped || self.phase.drain;
        let chaos = self.phase.chaos && !self.stopped;

        // The sub-warp announced on nxt_* last cycle issues now.
        if announced {
            let s = prev[o.nxt_sw] as usize;
            let fused = prev[o.nxt_fused] & 1 == 1;
            self.drive_issue(s, fused, drain, inputs);
        }

        // Completions due this cycle (fused members together), sometimes a spurious one.
        let slot = (cycle % 64) as usize;
        let mut wb = self.wheel[slot];
        self.wheel[slot] = Bits::ZERO;
        if chaos && self.rng.chance(1, 40) {
            wb.set(self.rng.below(self.n as u64) as usize);
        }
        wb.write(&mut inputs[i.writeback..], self.nw);

        // The __syncthreads block barrier.
        let mut rel = Bits::ZERO;
        if !self.at_sync.is_zero() {
            let pending = self.alive.not_in(self.at_sync);
            rel = if drain {
                self.at_sync
            } else {
                match self.phase.block {
                    BlockMode::Group => {
                        let done =
                            group_any(self.at_sync, self.w).not_in(group_any(pending, self.w));
                        spread_groups(done, self.w) & self.at_sync
                    }
                    BlockMode::All if pending.is_zero() => self.at_sync,
                    BlockMode::All => Bits::ZERO,
                    BlockMode::Random => self.at_sync & Bits::random(&mut self.rng, self.n, 1),
                }
            };
            // A watchdog, so that no sub-warp waits forever when the phase changes.
            if cycle % 64 == 0 {
                for s in self.at_sync.iter() {
                    if cycle - self.prog[s].sync_since > 3000 {
                        rel.set(s);
                    }
                }
            }
            for s in rel.iter() {
                self.prog[s].at_sync = false;
            }
            self.at_sync = self.at_sync.not_in(rel);
        }
        rel.write(&mut inputs[i.blockbar_release..], self.nw);

        // Launches into EMPTY sub-warps; now and then a launch bit for a live one (ignored).
        let mut launch = Bits::ZERO;
        if !drain && self.rng.chance(1, self.phase.launch_rate) {
            launch = self.launch(all.not_in(self.alive));
        }
        if chaos && self.rng.chance(1, 50) {
            launch.set(self.rng.below(self.n as u64) as usize);
        }
        launch.write(&mut inputs[i.launch..], self.nw);

        // Hazards: ready density by phase, bursts of nothing ready.
        let ready = if drain {
            all
        } else if self.ready_burst > 0 {
            self.ready_burst -= 1;
            Bits::ZERO
        } else {
            if self.rng.chance(1, 500) {
                self.ready_burst = 5 + self.rng.below(50);
            }
            Bits::random(&mut self.rng, self.n, self.phase.ready_level)
        };
        ready.write(&mut inputs[i.ready..], self.nw);

        if !self.stopped && self.rng.chance(1, self.phase.grid_rate) {
            inputs[i.grid_start] = 1;
        }
    }
}
