//! Cycle model, stimulus and spec vectors of `warp-sched`, the issue-stage warp scheduler
//! (spec/latency_hiding_scheduler.md §2: LRR and GTO).
//!
//! Age is kept as the launch order of the resident warps (a list, oldest first), never as an
//! age matrix; `dbg_older` is derived from that list.

use crate::rng::Rng;
use crate::{words, Model, SpecVector, Stimulus, VectorCycle};
use warpforge_contract::units::warp_sched::{Policy, WarpSchedConfig};
use warpforge_contract::Layout;

/// Offset (in words) of a port in its flat vector; ports here are at most 64 bits except
/// `dbg_older`.
fn offset(slots: &[warpforge_contract::manifest::Slot], name: &str) -> usize {
    slots
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("warp-sched contract has no port `{name}`"))
        .offset
}

/// A mask of the low `n` bits.
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[derive(Clone, Copy, Debug)]
struct InPorts {
    reset: usize,
    has_inst: usize,
    ready: usize,
    unit_free: usize,
    is_mem: usize,
    launch: usize,
    exit: usize,
}

impl InPorts {
    fn new(l: &Layout) -> InPorts {
        let o = |n| offset(&l.inputs, n);
        InPorts {
            reset: o("reset"),
            has_inst: o("has_inst"),
            ready: o("ready"),
            unit_free: o("unit_free"),
            is_mem: o("is_mem"),
            launch: o("launch"),
            exit: o("exit"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct OutPorts {
    issue_valid: usize,
    issue_slot: usize,
    issue_is_mem: usize,
    dbg_resident: usize,
    dbg_last_valid: usize,
    dbg_last_issued: usize,
    dbg_greedy_valid: usize,
    dbg_older: usize,
    dbg_older_words: usize,
}

impl OutPorts {
    fn new(l: &Layout) -> OutPorts {
        let o = |n| offset(&l.outputs, n);
        OutPorts {
            issue_valid: o("issue_valid"),
            issue_slot: o("issue_slot"),
            issue_is_mem: o("issue_is_mem"),
            dbg_resident: o("dbg_resident"),
            dbg_last_valid: o("dbg_last_valid"),
            dbg_last_issued: o("dbg_last_issued"),
            dbg_greedy_valid: o("dbg_greedy_valid"),
            dbg_older: o("dbg_older"),
            dbg_older_words: l.output("dbg_older").map_or(0, |s| s.words),
        }
    }
}

/// A deliberate model bug, to show that `check_invariants` catches wrong decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpSchedFault {
    /// GTO falls back to the youngest eligible warp instead of the oldest.
    GtoPicksYoungest,
    /// LRR skips the first eligible warp of the rotation when there is a second one.
    LrrSkipsFirst,
    /// Scheduler 0 never issues.
    DropIssue,
    /// The greedy bit survives the exit of its warp.
    KeepGreedyOnExit,
}

/// Per scheduler: the issue pointer (LRR rotation and GTO greedy warp).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pointer {
    last_valid: bool,
    last_issued: usize,
    greedy_valid: bool,
}

/// What happened in the last stepped cycle, for `check_invariants`.
#[derive(Clone, Debug, Default)]
struct LastCycle {
    stepped: bool,
    reset: bool,
    eligible: u64,
    is_mem: u64,
    launch: u64,
    exit: u64,
    resident: u64,
    /// `order_before` is valid (the order changed at the edge).
    order_changed: bool,
    order_before: Vec<u8>,
    pointers: Vec<Pointer>,
    picks: Vec<Option<usize>>,
    issue_is_mem: u64,
}

/// The cycle model of `warp-sched`.
#[derive(Clone, Debug)]
pub struct WarpSchedModel {
    cfg: WarpSchedConfig,
    slot_bits: usize,
    all: u64,
    /// Per scheduler: the slots it supervises.
    supervised: Vec<u64>,
    /// Per scheduler: its slots ascending (for the independent LRR check).
    supervised_list: Vec<Vec<usize>>,
    inp: InPorts,
    out: OutPorts,
    resident: u64,
    /// Resident slots, oldest warp first.
    order: Vec<u8>,
    pointers: Vec<Pointer>,
    picks: Vec<Option<usize>>,
    /// Packed `dbg_older`, rebuilt from `order` when residency changes.
    older_image: Vec<u64>,
    older_dirty: bool,
    last: LastCycle,
    fault: Option<WarpSchedFault>,
    cycle: u64,
}

impl WarpSchedModel {
    pub fn new(cfg: &WarpSchedConfig) -> Self {
        let layout = Layout::new(&cfg.ports());
        let out = OutPorts::new(&layout);
        let supervised_list: Vec<Vec<usize>> = (0..cfg.schedulers)
            .map(|s| cfg.supervised(s).collect())
            .collect();
        let supervised = supervised_list
            .iter()
            .map(|l| l.iter().fold(0u64, |m, &w| m | 1 << w))
            .collect();
        WarpSchedModel {
            slot_bits: cfg.slot_bits(),
            all: low_bits(cfg.warps),
            supervised,
            supervised_list,
            inp: InPorts::new(&layout),
            older_image: vec![0; out.dbg_older_words],
            out,
            resident: 0,
            order: Vec::with_capacity(64),
            pointers: vec![Pointer::default(); cfg.schedulers],
            picks: vec![None; cfg.schedulers],
            older_dirty: false,
            last: LastCycle {
                order_before: Vec::with_capacity(64),
                pointers: vec![Pointer::default(); cfg.schedulers],
                picks: vec![None; cfg.schedulers],
                ..LastCycle::default()
            },
            fault: None,
            cycle: 0,
            cfg: cfg.clone(),
        }
    }

    /// Make the model deliberately wrong (tests of the invariant checker only).
    pub fn inject_fault(&mut self, fault: Option<WarpSchedFault>) {
        self.fault = fault;
    }

    /// Resident slots, oldest warp first.
    pub fn age_order(&self) -> Vec<usize> {
        self.order.iter().map(|&w| w as usize).collect()
    }

    pub fn resident(&self) -> u64 {
        self.resident
    }

    /// Scheduler `s`'s last issued slot (`None` = NONE).
    pub fn last_issued(&self, s: usize) -> Option<usize> {
        let p = self.pointers[s];
        p.last_valid.then_some(p.last_issued)
    }

    /// Scheduler `s`'s last issued warp keeps greedy priority.
    pub fn greedy_valid(&self, s: usize) -> bool {
        self.pointers[s].greedy_valid
    }

    /// The slot each scheduler issued in the last cycle.
    pub fn last_picks(&self) -> &[Option<usize>] {
        &self.picks
    }

    fn rebuild_older(&mut self) {
        self.older_image.iter_mut().for_each(|w| *w = 0);
        let mut older = 0u64;
        for &w in &self.order {
            let w = w as usize;
            words::set(
                &mut self.older_image,
                w * self.cfg.warps,
                self.cfg.warps,
                older,
            );
            older |= 1 << w;
        }
        self.older_dirty = false;
    }

    /// This scheduler's pick among `elig` (already restricted to its slots).
    fn pick(&self, s: usize, elig: u64) -> Option<usize> {
        if elig == 0 {
            return None;
        }
        let p = self.pointers[s];
        match self.cfg.policy {
            Policy::Lrr => {
                let first = |e: u64| {
                    if p.last_valid {
                        let after = e & ((u64::MAX << p.last_issued) << 1);
                        if after != 0 {
                            return after.trailing_zeros() as usize;
                        }
                    }
                    e.trailing_zeros() as usize
                };
                let w = first(elig);
                if self.fault == Some(WarpSchedFault::LrrSkipsFirst) && elig.count_ones() > 1 {
                    // Rotation continues from w: the second eligible warp.
                    let rest = elig & !(1 << w);
                    let after = rest & ((u64::MAX << w) << 1);
                    return Some(if after != 0 {
                        after.trailing_zeros() as usize
                    } else {
                        rest.trailing_zeros() as usize
                    });
                }
                Some(w)
            }
            Policy::Gto => {
                if p.greedy_valid && elig >> p.last_issued & 1 != 0 {
                    return Some(p.last_issued);
                }
                if self.fault == Some(WarpSchedFault::GtoPicksYoungest) {
                    return self
                        .order
                        .iter()
                        .rev()
                        .map(|&w| w as usize)
                        .find(|&w| elig >> w & 1 != 0);
                }
                self.order
                    .iter()
                    .map(|&w| w as usize)
                    .find(|&w| elig >> w & 1 != 0)
            }
        }
    }

    fn reset_state(&mut self) {
        if self.resident != 0 || !self.order.is_empty() {
            self.older_dirty = true;
        }
        self.resident = 0;
        self.order.clear();
        self.pointers
            .iter_mut()
            .for_each(|p| *p = Pointer::default());
    }
}

impl Model for WarpSchedModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (i, o, all) = (self.inp, self.out, self.all);
        let reset = inputs[i.reset] & 1 != 0;
        let has_inst = inputs[i.has_inst] & all;
        let ready = inputs[i.ready] & all;
        let unit_free = inputs[i.unit_free] & all;
        let is_mem = inputs[i.is_mem] & all;
        let launch = inputs[i.launch] & all;
        let exit = inputs[i.exit] & all;

        // Debug ports: the registered state at the start of the cycle.
        if self.older_dirty {
            self.rebuild_older();
        }
        outputs[o.dbg_older..o.dbg_older + o.dbg_older_words].copy_from_slice(&self.older_image);
        outputs[o.dbg_resident] = self.resident;
        let (mut lv, mut li, mut gv) = (0u64, 0u64, 0u64);
        for (s, p) in self.pointers.iter().enumerate() {
            lv |= (p.last_valid as u64) << s;
            li |= (p.last_issued as u64) << (s * self.slot_bits);
            gv |= (p.greedy_valid as u64) << s;
        }
        outputs[o.dbg_last_valid] = lv;
        outputs[o.dbg_last_issued] = li;
        outputs[o.dbg_greedy_valid] = gv;

        // Issue: one pick per scheduler from the start-of-cycle state.
        let eligible = self.resident & has_inst & ready & unit_free;
        let (mut iv, mut islot, mut imem) = (0u64, 0u64, 0u64);
        for s in 0..self.cfg.schedulers {
            let mut pick = self.pick(s, eligible & self.supervised[s]);
            if s == 0 && self.fault == Some(WarpSchedFault::DropIssue) {
                pick = None;
            }
            if let Some(w) = pick {
                iv |= 1 << s;
                islot |= (w as u64) << (s * self.slot_bits);
                imem |= (is_mem >> w & 1) << s;
            }
            self.picks[s] = pick;
        }
        outputs[o.issue_valid] = iv;
        outputs[o.issue_slot] = islot;
        outputs[o.issue_is_mem] = imem;

        let last = &mut self.last;
        last.stepped = true;
        last.reset = reset;
        last.eligible = eligible;
        last.is_mem = is_mem;
        last.launch = launch;
        last.exit = exit;
        last.resident = self.resident;
        last.pointers.copy_from_slice(&self.pointers);
        last.picks.copy_from_slice(&self.picks);
        last.issue_is_mem = imem;
        last.order_changed = false;
        self.cycle += 1;

        // The clock edge.
        if reset {
            self.reset_state();
            return;
        }
        for s in 0..self.cfg.schedulers {
            if let Some(w) = self.picks[s] {
                self.pointers[s] = Pointer {
                    last_valid: true,
                    last_issued: w,
                    greedy_valid: true,
                };
            }
            // A warp leaving or replacing the last-issued slot ends its greediness; this
            // wins over an issue in the same cycle. The LRR position stays.
            let p = &mut self.pointers[s];
            let keep = self.fault == Some(WarpSchedFault::KeepGreedyOnExit);
            if p.last_valid && (exit | launch) >> p.last_issued & 1 != 0 && !keep {
                p.greedy_valid = false;
            }
        }
        let leaving = exit | launch;
        if leaving & (self.resident | launch) != 0 {
            let last = &mut self.last;
            last.order_before.clear();
            last.order_before.extend_from_slice(&self.order);
            last.order_changed = true;
            // Exits first (a launch into a resident slot replaces its warp), then the
            // launches as the youngest warps in ascending slot order.
            self.order.retain(|&w| leaving >> w & 1 == 0);
            let mut l = launch;
            while l != 0 {
                self.order.push(l.trailing_zeros() as u8);
                l &= l - 1;
            }
            self.resident = (self.resident & !exit) | launch;
            self.older_dirty = true;
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        let n_sched = self.cfg.schedulers;
        // State: residency and the age list agree.
        if self.resident & !self.all != 0 {
            return Err(format!("resident {:#x} outside the slots", self.resident));
        }
        let mut seen = 0u64;
        for &w in &self.order {
            if seen >> w & 1 != 0 {
                return Err(format!("slot {w} twice in the age order"));
            }
            seen |= 1 << w;
        }
        if seen != self.resident {
            return Err(format!(
                "age order holds {seen:#x} but resident is {:#x}",
                self.resident
            ));
        }
        for (s, p) in self.pointers.iter().enumerate() {
            if p.last_valid && self.supervised[s] >> p.last_issued & 1 == 0 {
                return Err(format!(
                    "scheduler {s}: last_issued {} is not one of its slots",
                    p.last_issued
                ));
            }
            if !p.last_valid && (p.last_issued != 0 || p.greedy_valid) {
                return Err(format!("scheduler {s}: NONE pointer with state {p:?}"));
            }
            if p.greedy_valid && self.resident >> p.last_issued & 1 == 0 {
                return Err(format!(
                    "scheduler {s}: greedy_valid for non-resident slot {}",
                    p.last_issued
                ));
            }
        }
        let l = &self.last;
        if !l.stepped {
            return Ok(());
        }
        if l.reset {
            if self.resident != 0 || self.pointers.iter().any(|p| *p != Pointer::default()) {
                return Err("state after reset is not the reset state".into());
            }
            return Ok(());
        }
        // Residency at the edge: exits, then launches as the youngest, ascending.
        if self.resident != (l.resident & !l.exit) | l.launch {
            return Err(format!(
                "resident {:#x} != (before {:#x} & !exit {:#x}) | launch {:#x}",
                self.resident, l.resident, l.exit, l.launch
            ));
        }
        let order_before: &[u8] = if l.order_changed {
            &l.order_before
        } else {
            &self.order
        };
        if l.order_changed {
            let n_launch = l.launch.count_ones() as usize;
            let kept = self.order.len() - n_launch;
            let mut want_kept = order_before
                .iter()
                .filter(|&&w| (l.exit | l.launch) >> w & 1 == 0);
            for k in 0..kept {
                if want_kept.next() != Some(&self.order[k]) {
                    return Err("surviving warps changed their relative age".into());
                }
            }
            let mut lm = l.launch;
            for k in kept..self.order.len() {
                if self.order[k] as u32 != lm.trailing_zeros() {
                    return Err(
                        "launched warps are not the youngest in ascending slot order".into(),
                    );
                }
                lm &= lm - 1;
            }
        }
        // Age rank at the start of the cycle (0 = oldest), built when GTO needs it.
        let mut rank = [u8::MAX; 64];
        let mut have_rank = false;
        for s in 0..n_sched {
            let e = l.eligible & self.supervised[s];
            let before = l.pointers[s];
            let pick = l.picks[s];
            // I1: the issued slot is supervised and eligible; issue_is_mem follows it.
            if let Some(w) = pick {
                if self.supervised[s] >> w & 1 == 0 {
                    return Err(format!("I1: scheduler {s} issued slot {w}, not its own"));
                }
                if e >> w & 1 == 0 {
                    return Err(format!("I1: scheduler {s} issued ineligible slot {w}"));
                }
                if l.issue_is_mem >> s & 1 != l.is_mem >> w & 1 {
                    return Err(format!(
                        "scheduler {s}: issue_is_mem differs from is_mem[{w}]"
                    ));
                }
            } else if l.issue_is_mem >> s & 1 != 0 {
                return Err(format!("scheduler {s}: issue_is_mem without an issue"));
            }
            // I2: work-conserving.
            if e != 0 && pick.is_none() {
                return Err(format!(
                    "I2: scheduler {s} had eligible warps {e:#x} but did not issue"
                ));
            }
            // I3: the pointer moves only on issue; greedy sets on issue and clears only when
            // its warp leaves the slot.
            let now = self.pointers[s];
            let (want_valid, want_slot) = match pick {
                Some(w) => (true, w),
                None => (before.last_valid, before.last_issued),
            };
            if now.last_valid != want_valid || now.last_issued != want_slot {
                return Err(format!(
                    "I3: scheduler {s} pointer {now:?} after {pick:?} from {before:?}"
                ));
            }
            let left = want_valid && (l.exit | l.launch) >> want_slot & 1 != 0;
            let want_greedy = (pick.is_some() || before.greedy_valid) && !left;
            if now.greedy_valid != want_greedy {
                return Err(format!(
                    "I3: scheduler {s} greedy_valid {} (expected {want_greedy}: pick {pick:?}, before {before:?}, slot left {left})",
                    now.greedy_valid
                ));
            }
            // Policy: recompute the pick independently.
            let want = match self.cfg.policy {
                Policy::Lrr => {
                    // I4: walk the supervised list from the position after last_issued.
                    // A slot's position in its list is slot / schedulers (slots ascending).
                    let list = &self.supervised_list[s];
                    let start = if before.last_valid {
                        before.last_issued / n_sched + 1
                    } else {
                        0
                    };
                    let (after, upto) = list.split_at(start.min(list.len()));
                    upto.iter().chain(after).copied().find(|&w| e >> w & 1 != 0)
                }
                Policy::Gto => {
                    // I5: greedy if eligible, else the eligible warp of minimum age.
                    if before.greedy_valid && e >> before.last_issued & 1 != 0 {
                        Some(before.last_issued)
                    } else if e == 0 {
                        None
                    } else {
                        if !have_rank {
                            for (k, &w) in order_before.iter().enumerate() {
                                rank[w as usize] = k as u8;
                            }
                            have_rank = true;
                        }
                        let (mut best, mut m) = (None::<usize>, e);
                        while m != 0 {
                            let w = m.trailing_zeros() as usize;
                            if best.is_none_or(|b| rank[w] < rank[b]) {
                                best = Some(w);
                            }
                            m &= m - 1;
                        }
                        best
                    }
                }
            };
            if pick != want {
                let name = match self.cfg.policy {
                    Policy::Lrr => "I4 (LRR first eligible in rotation)",
                    Policy::Gto => "I5 (GTO greedy else oldest)",
                };
                return Err(format!(
                    "{name}: scheduler {s} issued {pick:?}, expected {want:?} (eligible {e:#x}, pointer {before:?})"
                ));
            }
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        let mut s = format!(
            "cycle {} resident={:#x} age(oldest first)={:?}",
            self.cycle, self.resident, self.order
        );
        for (k, p) in self.pointers.iter().enumerate() {
            let last = if p.last_valid {
                p.last_issued.to_string()
            } else {
                "NONE".into()
            };
            s.push_str(&format!(
                " | s{k}: last={last} greedy={}",
                p.greedy_valid as u8
            ));
        }
        s
    }
}

/// A random mask with bit density `level`/8 (0 = none, 8 = all), from a few draws.
pub(crate) fn density_mask(rng: &mut Rng, level: u8) -> u64 {
    let mut r = || rng.next_u64();
    match level {
        0 => 0,
        1 => r() & r() & r(),
        2 => r() & r(),
        3 => r() & (r() | r() & r()),
        4 => r(),
        5 => r() | (r() & r() & r()),
        6 => r() | r(),
        7 => r() | r() | r(),
        _ => u64::MAX,
    }
}

/// How many warps a stimulus phase keeps resident.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Occupancy {
    /// At most a few warps.
    Few,
    /// Fill every slot (launch bursts), rare exits.
    Full,
    /// Random launches and exits.
    Churn,
}

/// Constrained-random, protocol-legal inputs for `warp-sched`: launches only into free slots,
/// exits only of resident warps, densities that change every few hundred cycles.
#[derive(Clone, Debug)]
pub struct WarpSchedStimulus {
    rng: Rng,
    warps: usize,
    all: u64,
    inp: InPorts,
    out_issue_valid: usize,
    out_issue_slot: usize,
    schedulers: usize,
    slot_bits: usize,
    /// Residency implied by the inputs driven so far.
    resident: u64,
    phase_left: u64,
    /// Density levels (0..=8) of has_inst, ready, unit_free, is_mem.
    levels: [u8; 4],
    occupancy: Occupancy,
    few_limit: u32,
    /// Cycles left of a unit_free = 0 stretch (backpressure).
    stall_left: u64,
    /// Warps that issued last cycle are often not ready (a dependent next instruction).
    dependent: bool,
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
        }
    }

    fn new_phase(&mut self) {
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
    }

    /// A random set bit of `m` (m != 0).
    fn random_bit(&mut self, m: u64) -> usize {
        let mut k = self.rng.below(m.count_ones() as u64);
        let mut m = m;
        while k > 0 {
            m &= m - 1;
            k -= 1;
        }
        m.trailing_zeros() as usize
    }

    /// Up to `n` free slots for one CTA: consecutive free slots from a random start.
    fn cta_slots(&mut self, free: u64, n: u32) -> u64 {
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
        inputs[i.exit] = exit;
        inputs[i.launch] = launch;
        self.resident = (resident & !exit) | launch;
    }
}

// ---------------------------------------------------------------------------------------
// Spec vectors

/// A slot mask from a bit string, leftmost character = W0 (the spec's convention).
fn slots(s: &str) -> u64 {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .enumerate()
        .fold(0, |m, (k, c)| if c == '1' { m | 1 << k } else { m })
}

fn one(v: u64) -> Vec<u64> {
    vec![v]
}

/// Builder for one warp-sched spec vector.
struct Vb {
    v: SpecVector,
}

impl Vb {
    fn new(name: &str, warps: usize, schedulers: usize, policy: &str) -> Vb {
        Vb {
            v: SpecVector {
                name: name.into(),
                unit: "warp-sched",
                sets: vec![
                    format!("warps={warps}"),
                    format!("schedulers={schedulers}"),
                    format!("policy={policy}"),
                ],
                cycles: vec![],
            },
        }
    }
    fn reset(mut self) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: vec![("reset", one(1))],
            expect: vec![],
        });
        self
    }
    /// A cycle that only launches `mask`.
    fn launch(mut self, mask: u64) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: vec![("launch", one(mask))],
            expect: vec![("issue_valid", one(0))],
        });
        self
    }
    fn cycle(mut self, inputs: &[(&'static str, u64)], expect: &[(&'static str, u64)]) -> Vb {
        self.v.cycles.push(VectorCycle {
            inputs: inputs.iter().map(|&(n, v)| (n, one(v))).collect(),
            expect: expect.iter().map(|&(n, v)| (n, one(v))).collect(),
        });
        self
    }
    /// A cycle where `elig` warps are eligible (has_inst, ready, unit_free all set), one
    /// scheduler, expecting `issue` (None = no issue).
    fn elig(self, elig: u64, issue: Option<usize>) -> Vb {
        let e = [("has_inst", elig), ("ready", elig), ("unit_free", elig)];
        match issue {
            Some(w) => self.cycle(&e, &[("issue_valid", 1), ("issue_slot", w as u64)]),
            None => self.cycle(&e, &[("issue_valid", 0), ("issue_slot", 0)]),
        }
    }
    fn done(self) -> SpecVector {
        self.v
    }
}

/// §4.1 Vector A: 4 warps, ages W1,W3,W0,W2 (oldest first), all heads COMP.
fn vector_a(policy: &str) -> SpecVector {
    let table: [(&str, Option<usize>, Option<usize>); 12] = [
        ("1111", Some(0), Some(1)),
        ("1111", Some(1), Some(1)),
        ("1011", Some(2), Some(3)),
        ("1010", Some(0), Some(0)),
        ("0000", None, None),
        ("0101", Some(1), Some(1)),
        ("1111", Some(2), Some(1)),
        ("0010", Some(2), Some(2)),
        ("1101", Some(3), Some(1)),
        ("1111", Some(0), Some(1)),
        ("0111", Some(1), Some(1)),
        ("1000", Some(0), Some(0)),
    ];
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.1 vector A ({policy})"),
        4,
        1,
        policy,
    )
    .reset()
    .launch(slots("0100"))
    .launch(slots("0001"))
    .launch(slots("1000"))
    .launch(slots("0010"));
    for (k, (e, lrr, gto)) in table.iter().enumerate() {
        let issue = if policy == "lrr" { *lrr } else { *gto };
        b = b.elig(slots(e), issue);
        if k == 0 {
            // The ages the table assumes: W0 has W1,W3 older; W2 has W1,W3,W0; W3 has W1.
            let c = b.v.cycles.last_mut().unwrap();
            c.expect.push(("dbg_resident", one(0xf)));
            c.expect.push(("dbg_older", one(0x2b0a)));
            c.expect.push(("dbg_last_valid", one(0)));
        }
    }
    b.done()
}

/// §4.2 Vector B, LRR and GTO columns: 6 warps, ages W1,W3,W5,W0,W2,W4 (oldest first).
/// One row of Vector B: class, ready, mem_ok, LRR issue, GTO issue.
type RowB = (
    &'static str,
    &'static str,
    bool,
    Option<usize>,
    Option<usize>,
);

fn vector_b(policy: &str) -> SpecVector {
    let table: [RowB; 12] = [
        ("CCCMCM", "111111", true, Some(0), Some(1)),
        ("CCCMCM", "111111", true, Some(1), Some(1)),
        ("CCCMCM", "111111", false, Some(2), Some(1)),
        ("CCCCCM", "101111", true, Some(3), Some(3)),
        ("CCCCCC", "111111", true, Some(4), Some(3)),
        ("MCCCCC", "011111", true, Some(5), Some(3)),
        ("MCCCMC", "111111", true, Some(0), Some(3)),
        ("MCCCMC", "111111", true, Some(1), Some(3)),
        ("CCCCMC", "111111", false, Some(2), Some(3)),
        ("--CCCC", "001111", true, Some(3), Some(3)),
        ("CCCCCC", "110000", true, Some(0), Some(1)),
        ("CCCCCC", "000000", true, None, None),
    ];
    let mut b = Vb::new(
        &format!("latency_hiding_scheduler.md §4.2 vector B ({policy})"),
        6,
        1,
        policy,
    )
    .reset();
    for w in [1, 3, 5, 0, 2, 4] {
        b = b.launch(1 << w);
    }
    for (class, ready, mem_ok, lrr, gto) in table {
        let bits = |want: char| {
            class
                .chars()
                .enumerate()
                .fold(0u64, |m, (k, c)| if c == want { m | 1 << k } else { m })
        };
        let (comp, mem) = (bits('C'), bits('M'));
        let unit_free = comp | if mem_ok { mem } else { 0 };
        let issue = if policy == "lrr" { lrr } else { gto };
        let expect: Vec<(&'static str, u64)> = match issue {
            Some(w) => vec![
                ("issue_valid", 1),
                ("issue_slot", w as u64),
                ("issue_is_mem", mem >> w & 1),
            ],
            None => vec![("issue_valid", 0), ("issue_is_mem", 0)],
        };
        b = b.cycle(
            &[
                ("has_inst", comp | mem),
                ("ready", slots(ready)),
                ("unit_free", unit_free),
                ("is_mem", mem),
            ],
            &expect,
        );
    }
    b.done()
}

/// §7.3 S2: LRR fairness — always-eligible warps issue in a fixed cyclic order, and a warp
/// that stays eligible issues within n cycles.
fn s2_lrr_fairness() -> SpecVector {
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S2 LRR fairness",
        5,
        1,
        "lrr",
    )
    .reset()
    .launch(0b11111);
    for k in 0..12 {
        b = b.elig(0b11111, Some(k % 5));
    }
    // Last issued W1; W3 eligible throughout, the others come and go.
    b.elig(slots("11011"), Some(3))
        .elig(slots("10011"), Some(4))
        .elig(slots("11010"), Some(0))
        .elig(slots("01110"), Some(1))
        .elig(slots("00010"), Some(3))
        .elig(slots("10010"), Some(0))
        .done()
}

/// §7.3 S3: GTO stickiness — the greedy warp keeps issuing while eligible even when older
/// warps are eligible; an always-eligible second warp never issues.
fn s3_gto_stickiness() -> SpecVector {
    let mut b = Vb::new(
        "latency_hiding_scheduler.md §7.3 S3 GTO stickiness",
        4,
        1,
        "gto",
    )
    .reset()
    .launch(0b1111) // ages = slot order
    .elig(slots("0010"), Some(2));
    for _ in 0..3 {
        b = b.elig(slots("1111"), Some(2));
    }
    b = b
        .elig(slots("1101"), Some(0))
        .elig(slots("1111"), Some(0))
        .elig(slots("0001"), Some(3));
    for _ in 0..5 {
        b = b.elig(slots("1001"), Some(3));
    }
    b.done()
}

/// §7.3 S4: the greedy warp exits and a new warp is launched into its slot the next cycle:
/// it has no greedy priority (GTO takes the oldest), and LRR still rotates from that slot.
fn s4_exit_relaunch(policy: &str) -> SpecVector {
    let (first, second) = if policy == "gto" { (0, 0) } else { (3, 0) };
    Vb::new(
        &format!(
            "latency_hiding_scheduler.md §7.3 S4 exit and relaunch into the same slot ({policy})"
        ),
        4,
        1,
        policy,
    )
    .reset()
    .launch(0b1111)
    .elig(slots("0010"), Some(2))
    // W2 issues again and exits at the same edge: the exit wins over the greedy set.
    .cycle(
        &[
            ("has_inst", slots("0010")),
            ("ready", slots("0010")),
            ("unit_free", slots("0010")),
            ("exit", slots("0010")),
        ],
        &[
            ("issue_valid", 1),
            ("issue_slot", 2),
            ("dbg_greedy_valid", 1),
            ("dbg_last_issued", 2),
        ],
    )
    .cycle(
        &[("launch", slots("0010"))],
        &[
            ("issue_valid", 0),
            ("dbg_resident", slots("1101")),
            ("dbg_last_valid", 1),
            ("dbg_last_issued", 2),
            ("dbg_greedy_valid", 0),
        ],
    )
    // The new W2 is the youngest: ages W0,W1,W3,W2.
    .cycle(
        &[
            ("has_inst", 0b1111),
            ("ready", 0b1111),
            ("unit_free", 0b1111),
        ],
        &[
            ("issue_valid", 1),
            ("issue_slot", first),
            ("dbg_resident", 0b1111),
            ("dbg_greedy_valid", 0),
            ("dbg_last_issued", 2),
            ("dbg_older", 0x3b10),
        ],
    )
    .elig(0b1111, Some(second))
    .done()
}

/// §7.3 S5: age ≠ slot — CTA A in slots 4–7, then CTA B in slots 0–3: GTO prefers 4–7.
fn s5_age_not_slot() -> SpecVector {
    let all = slots("11111111");
    Vb::new(
        "latency_hiding_scheduler.md §7.3 S5 age is not slot order",
        8,
        1,
        "gto",
    )
    .reset()
    .launch(slots("00001111"))
    .launch(slots("11110000"))
    .cycle(
        &[("has_inst", all), ("ready", all), ("unit_free", all)],
        &[
            ("issue_valid", 1),
            ("issue_slot", 4),
            ("dbg_resident", 0xff),
            ("dbg_older", 0x7030_1000_f7f3_f1f0),
        ],
    )
    .elig(slots("11110111"), Some(5))
    .elig(slots("11110001"), Some(7))
    .elig(slots("11110000"), Some(0))
    .elig(all, Some(0))
    .done()
}

/// §7.3 S6 for LRR/GTO: the LD/ST pipe is busy (unit_free = 0 for memory heads): the
/// policies skip those warps in their order; issue_is_mem follows the issued warp.
fn s6_ldst_busy(policy: &str) -> SpecVector {
    let lrr = policy == "lrr";
    let mem = slots("1100");
    let all = slots("1111");
    let c = |ready: u64, unit_free: u64| {
        [
            ("has_inst", all),
            ("ready", ready),
            ("unit_free", unit_free),
            ("is_mem", mem),
        ]
    };
    let busy = slots("0011");
    let x = |w: u64, m: u64| [("issue_valid", 1), ("issue_slot", w), ("issue_is_mem", m)];
    Vb::new(
        &format!("latency_hiding_scheduler.md §7.3 S6 LD/ST busy ({policy})"),
        4,
        1,
        policy,
    )
    .reset()
    .launch(all)
    .cycle(&c(all, busy), &x(2, 0))
    .cycle(&c(all, busy), &if lrr { x(3, 0) } else { x(2, 0) })
    .cycle(&c(all, all), &if lrr { x(0, 1) } else { x(2, 0) })
    .cycle(&c(slots("1101"), all), &if lrr { x(1, 1) } else { x(0, 1) })
    .done()
}

/// Two schedulers: slot w belongs to scheduler w mod 2; both issue in the same cycle, each
/// from its own slots.
fn two_schedulers(policy: &str) -> SpecVector {
    let lrr = policy == "lrr";
    let all = slots("111111");
    let even = slots("101010");
    let odd = slots("010101");
    // issue_slot packs 3 bits per scheduler.
    let pair = |a: u64, b: u64| a | b << 3;
    let e = |m: u64, is_mem: u64| {
        [
            ("has_inst", m),
            ("ready", m),
            ("unit_free", m),
            ("is_mem", is_mem),
        ]
    };
    let b = Vb::new(
        &format!("warp-sched two schedulers issue from their own slots ({policy})"),
        6,
        2,
        policy,
    )
    .reset()
    .launch(all)
    .cycle(
        &e(all, slots("010000")),
        &[
            ("issue_valid", 0b11),
            ("issue_slot", pair(0, 1)),
            ("issue_is_mem", 0b10),
        ],
    );
    if lrr {
        b.cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(2, 3))],
        )
        .cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(4, 5))],
        )
        .cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(0, 1))],
        )
        .cycle(
            &e(even, 0),
            &[("issue_valid", 0b01), ("issue_slot", pair(2, 0))],
        )
        .cycle(
            &e(odd, 0),
            &[
                ("issue_valid", 0b10),
                ("issue_slot", pair(0, 3)),
                ("dbg_last_valid", 0b11),
                ("dbg_last_issued", pair(2, 1)),
            ],
        )
        .done()
    } else {
        b.cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(0, 1))],
        )
        .cycle(
            &e(slots("001111"), 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(2, 3))],
        )
        .cycle(
            &e(all, 0),
            &[("issue_valid", 0b11), ("issue_slot", pair(2, 3))],
        )
        .cycle(
            &e(even, 0),
            &[("issue_valid", 0b01), ("issue_slot", pair(2, 0))],
        )
        .cycle(
            &e(odd, 0),
            &[
                ("issue_valid", 0b10),
                ("issue_slot", pair(0, 3)),
                ("dbg_greedy_valid", 0b11),
                ("dbg_last_issued", pair(2, 3)),
            ],
        )
        .done()
    }
}

/// Exit and launch of one slot in one cycle (the exit applies first: the slot ends resident
/// and youngest), and a launch into a resident slot (the warp is replaced, youngest again);
/// both end the greediness of the last issued warp.
fn relaunch_rules(policy: &str) -> SpecVector {
    let lrr = policy == "lrr";
    Vb::new(
        &format!("warp-sched exit+launch in one cycle and launch into a resident slot ({policy})"),
        4,
        1,
        policy,
    )
    .reset()
    .launch(0b1111)
    .elig(slots("0100"), Some(1))
    .cycle(
        &[("exit", slots("0100")), ("launch", slots("0100"))],
        &[("issue_valid", 0), ("dbg_greedy_valid", 1)],
    )
    // Ages now W0,W2,W3,W1.
    .cycle(
        &[("launch", slots("0010"))],
        &[
            ("issue_valid", 0),
            ("dbg_resident", 0b1111),
            ("dbg_greedy_valid", 0),
            ("dbg_last_issued", 1),
            ("dbg_older", 0x51d0),
        ],
    )
    // Ages now W0,W3,W1,W2.
    .cycle(
        &[
            ("has_inst", 0b1111),
            ("ready", 0b1111),
            ("unit_free", 0b1111),
        ],
        &[
            ("issue_valid", 1),
            ("issue_slot", if lrr { 2 } else { 0 }),
            ("dbg_older", 0x1b90),
        ],
    )
    .elig(slots("0111"), Some(3))
    .done()
}

/// The directed vectors of warp-sched (spec/latency_hiding_scheduler.md §4 and §7.3).
pub fn spec_vectors() -> Vec<SpecVector> {
    let mut v = vec![];
    for p in ["lrr", "gto"] {
        v.push(vector_a(p));
        v.push(vector_b(p));
        v.push(s4_exit_relaunch(p));
        v.push(s6_ldst_busy(p));
        v.push(two_schedulers(p));
        v.push(relaunch_rules(p));
    }
    v.push(s2_lrr_fairness());
    v.push(s3_gto_stickiness());
    v.push(s5_age_not_slot());
    v
}
