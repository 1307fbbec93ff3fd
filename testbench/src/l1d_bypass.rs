//! Cycle model, stimulus and spec vectors of `l1d-bypass`, the barrier-aware L1D bypass
//! decision of one SM (spec/barrier.md §4): the miss-rate monitor (A, M, mode) and the
//! per-access decision of the §4.4 table, as the contract `units::l1d_bypass` states them.

use crate::rng::Rng;
use crate::{Model, SpecVector, Stimulus, VectorCycle};
use warpforge_contract::units::l1d_bypass::{
    Decision, L1dBypassConfig, LaunchReset, Mode, Probe, StallWhy, Window, CUMULATIVE_BITS, NAME,
};
use warpforge_contract::Layout;

/// Word offset of a port (every port of this unit fits in one 64-bit word).
fn offset(slots: &[warpforge_contract::manifest::Slot], name: &str) -> usize {
    slots
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("l1d-bypass contract has no port `{name}`"))
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
    kernel_start: usize,
    acc_valid: usize,
    acc_store: usize,
    acc_probe: usize,
    acc_tb: usize,
    merge_ok: usize,
    mshr_ok: usize,
    mq_ok: usize,
    tb_has_waiter: usize,
}

impl InPorts {
    fn new(l: &Layout) -> InPorts {
        let o = |n| offset(&l.inputs, n);
        InPorts {
            reset: o("reset"),
            kernel_start: o("kernel_start"),
            acc_valid: o("acc_valid"),
            acc_store: o("acc_store"),
            acc_probe: o("acc_probe"),
            acc_tb: o("acc_tb"),
            merge_ok: o("merge_ok"),
            mshr_ok: o("mshr_ok"),
            mq_ok: o("mq_ok"),
            tb_has_waiter: o("tb_has_waiter"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct OutPorts {
    decision: usize,
    stall_why: usize,
    epoch_end: usize,
    mode: usize,
    dbg_acc: usize,
    dbg_miss: usize,
}

impl OutPorts {
    fn new(l: &Layout) -> OutPorts {
        let o = |n| offset(&l.outputs, n);
        OutPorts {
            decision: o("decision"),
            stall_why: o("stall_why"),
            epoch_end: o("epoch_end"),
            mode: o("mode"),
            dbg_acc: o("dbg_acc"),
            dbg_miss: o("dbg_miss"),
        }
    }
}

/// One cycle's access as the unit sees it (inputs masked to their widths).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub valid: bool,
    pub store: bool,
    pub probe: u8,
    pub tb: usize,
    pub merge_ok: bool,
    pub mshr_ok: bool,
    pub mq_ok: bool,
    /// `tb_has_waiter[tb]`.
    pub waiter: bool,
}

impl Access {
    fn probe(&self) -> Probe {
        Probe::from_code(self.probe as u64)
    }
}

/// A deliberate model bug, to show that `check_invariants` catches wrong behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L1dBypassFault {
    /// The bypass ignores the mode (RETAIN bypasses, PARTIAL ignores the waiter).
    BypassInRetain,
    /// A bypass is sent although the miss queue is full.
    IgnoreMissQueue,
    /// A stalled load is counted in `A`.
    CountStalls,
    /// FULL already at exactly `full_pct` (≥ instead of >).
    FullAtThreshold,
    /// `kernel_start` with `launch_reset = all` keeps the mode.
    KeepModeOnLaunch,
}

/// §4.1 `f(A, M)`: the exact integer compare of the contract.
pub fn mode_of(cfg: &L1dBypassConfig, a: u64, m: u64) -> Mode {
    if a == 0 {
        Mode::Retain
    } else if 100 * m as u128 > cfg.full_pct as u128 * a as u128 {
        Mode::Full
    } else if 100 * m as u128 >= cfg.partial_pct as u128 * a as u128 {
        Mode::Partial
    } else {
        Mode::Retain
    }
}

/// What the last stepped cycle did, for `check_invariants`.
#[derive(Clone, Copy, Debug)]
struct LastCycle {
    stepped: bool,
    reset: bool,
    kernel_start: bool,
    acc: Access,
    decision: Decision,
    stall_why: StallWhy,
    epoch_end: bool,
    /// State at the start of the cycle.
    a: u64,
    m: u64,
    mode: Mode,
}

/// The cycle model of `l1d-bypass`.
#[derive(Clone, Debug)]
pub struct L1dBypassModel {
    cfg: L1dBypassConfig,
    inp: InPorts,
    out: OutPorts,
    tb_mask: u64,
    /// Largest value of `A` (2^32 − 1 with the cumulative window, epoch − 1 otherwise).
    a_max: u64,
    /// Counted loads (and stores with `count_stores`) in the current window.
    a: u64,
    /// Counted misses (allocated or bypassed) in the current window.
    m: u64,
    mode: Mode,
    last: LastCycle,
    fault: Option<L1dBypassFault>,
    /// Event counters out of reset: decided accesses, bypasses, stalls, ended epochs.
    counts: [u64; 4],
}

impl L1dBypassModel {
    pub fn new(cfg: &L1dBypassConfig) -> Self {
        let layout = Layout::new(&cfg.ports());
        L1dBypassModel {
            inp: InPorts::new(&layout),
            out: OutPorts::new(&layout),
            tb_mask: low_bits(cfg.tb_bits()),
            a_max: match cfg.window {
                Window::Epoch => cfg.epoch as u64 - 1,
                Window::Cumulative => low_bits(CUMULATIVE_BITS),
            },
            a: 0,
            m: 0,
            mode: Mode::Retain,
            counts: [0; 4],
            last: LastCycle {
                stepped: false,
                reset: false,
                kernel_start: false,
                acc: Access::default(),
                decision: Decision::None,
                stall_why: StallWhy::None,
                epoch_end: false,
                a: 0,
                m: 0,
                mode: Mode::Retain,
            },
            fault: None,
            cfg: cfg.clone(),
        }
    }

    /// Make the model deliberately wrong (tests of the invariant checker only).
    pub fn inject_fault(&mut self, fault: Option<L1dBypassFault>) {
        self.fault = fault;
    }

    /// `A` (counted accesses in the current window).
    pub fn accesses(&self) -> u64 {
        self.a
    }

    /// `M` (counted misses in the current window).
    pub fn misses(&self) -> u64 {
        self.m
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Preload the monitor (model tests of states a stimulus cannot reach in reasonable
    /// time, such as the saturated cumulative counter).
    pub fn preload(&mut self, a: u64, m: u64, mode: Mode) {
        self.a = a;
        self.m = m;
        self.mode = mode;
    }

    fn decode(&self, inputs: &[u64]) -> Access {
        let i = self.inp;
        let tb = (inputs[i.acc_tb] & self.tb_mask) as usize;
        Access {
            valid: inputs[i.acc_valid] & 1 != 0,
            store: inputs[i.acc_store] & 1 != 0,
            probe: (inputs[i.acc_probe] & 3) as u8,
            tb,
            merge_ok: inputs[i.merge_ok] & 1 != 0,
            mshr_ok: inputs[i.mshr_ok] & 1 != 0,
            mq_ok: inputs[i.mq_ok] & 1 != 0,
            waiter: inputs[i.tb_has_waiter] >> tb & 1 != 0,
        }
    }

    /// The decision of the contract's table (first matching line) with the registered mode.
    fn decide(&self, acc: &Access) -> (Decision, StallWhy) {
        if !acc.valid {
            return (Decision::None, StallWhy::None);
        }
        if acc.store {
            return (Decision::Write, StallWhy::None);
        }
        let c = &self.cfg;
        let bypass_ok = match self.fault {
            Some(L1dBypassFault::BypassInRetain) => c.bypass_en,
            _ => {
                c.bypass_en
                    && (self.mode == Mode::Full || (self.mode == Mode::Partial && acc.waiter))
            }
        };
        let send = if acc.mq_ok || self.fault == Some(L1dBypassFault::IgnoreMissQueue) {
            (Decision::Bypass, StallWhy::None)
        } else {
            (Decision::Stall, StallWhy::MissQueue)
        };
        match acc.probe() {
            Probe::Hit => (Decision::Hit, StallWhy::None),
            Probe::HitReserved => {
                if acc.merge_ok {
                    (Decision::Merge, StallWhy::None)
                } else if c.bypass_on_mshr_full && bypass_ok {
                    send
                } else {
                    (Decision::Stall, StallWhy::Mshr)
                }
            }
            Probe::Miss => {
                if c.bypass_all_misses && bypass_ok {
                    send
                } else if acc.mshr_ok && acc.mq_ok {
                    (Decision::Alloc, StallWhy::None)
                } else if !acc.mshr_ok && c.bypass_on_mshr_full && bypass_ok {
                    send
                } else if !acc.mshr_ok {
                    (Decision::Stall, StallWhy::Mshr)
                } else {
                    (Decision::Stall, StallWhy::MissQueue)
                }
            }
            Probe::MissNoWay => {
                if bypass_ok {
                    send
                } else {
                    (Decision::Stall, StallWhy::NoWay)
                }
            }
        }
    }

    /// This cycle's counts `(a, m)` (§4.1, G9): a load when it resolves, a store only with
    /// `count_stores`.
    fn counts(&self, acc: &Access, d: Decision) -> (u64, u64) {
        match d {
            Decision::Hit | Decision::Merge => (1, 0),
            Decision::Alloc | Decision::Bypass => (1, 1),
            Decision::Write if self.cfg.count_stores => (
                1,
                matches!(acc.probe(), Probe::Miss | Probe::MissNoWay) as u64,
            ),
            Decision::Stall if self.fault == Some(L1dBypassFault::CountStalls) => (1, 0),
            _ => (0, 0),
        }
    }

    fn f(&self, a: u64, m: u64) -> Mode {
        if self.fault == Some(L1dBypassFault::FullAtThreshold)
            && a != 0
            && 100 * m as u128 >= self.cfg.full_pct as u128 * a as u128
        {
            return Mode::Full;
        }
        mode_of(&self.cfg, a, m)
    }
}

impl Model for L1dBypassModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (i, o) = (self.inp, self.out);
        let reset = inputs[i.reset] & 1 != 0;
        let kernel_start = inputs[i.kernel_start] & 1 != 0;
        let acc = self.decode(inputs);
        let (decision, why) = self.decide(&acc);
        let (ca, cm) = self.counts(&acc, decision);

        // Step 1: count (the cumulative window stops counting at 2^32 − 1).
        let (a1, m1) = if self.a == self.a_max && self.cfg.window == Window::Cumulative {
            (self.a, self.m)
        } else {
            (self.a + ca, self.m + cm)
        };
        let epoch_end = self.cfg.window == Window::Epoch && a1 == self.cfg.epoch as u64;

        outputs[o.decision] = decision.code();
        outputs[o.stall_why] = why.code();
        outputs[o.epoch_end] = epoch_end as u64;
        outputs[o.mode] = self.mode.code();
        outputs[o.dbg_acc] = self.a;
        outputs[o.dbg_miss] = self.m;

        self.last = LastCycle {
            stepped: true,
            reset,
            kernel_start,
            acc,
            decision,
            stall_why: why,
            epoch_end,
            a: self.a,
            m: self.m,
            mode: self.mode,
        };

        // The clock edge.
        if reset {
            self.a = 0;
            self.m = 0;
            self.mode = Mode::Retain;
            return;
        }
        for (k, happened) in [
            decision != Decision::None,
            decision == Decision::Bypass,
            decision == Decision::Stall,
            epoch_end,
        ]
        .into_iter()
        .enumerate()
        {
            self.counts[k] += happened as u64;
        }
        // Step 2: the window.
        match self.cfg.window {
            Window::Epoch if epoch_end => {
                self.mode = self.f(a1, m1);
                self.a = 0;
                self.m = 0;
            }
            Window::Epoch => {
                self.a = a1;
                self.m = m1;
            }
            Window::Cumulative => {
                self.mode = self.f(a1, m1);
                self.a = a1;
                self.m = m1;
            }
        }
        // Step 3: a kernel launch wins.
        if kernel_start {
            match self.cfg.launch_reset {
                LaunchReset::All => {
                    self.a = 0;
                    self.m = 0;
                    if self.fault != Some(L1dBypassFault::KeepModeOnLaunch) {
                        self.mode = Mode::Retain;
                    }
                }
                LaunchReset::Counters => {
                    self.a = 0;
                    self.m = 0;
                }
                LaunchReset::None => {}
            }
        }
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let [accesses, bypasses, stalls, epochs] = self.counts;
        vec![
            ("accesses", accesses),
            ("bypasses", bypasses),
            ("stalls", stalls),
            ("epochs", epochs),
        ]
    }

    fn check_invariants(&self) -> Result<(), String> {
        let c = &self.cfg;
        // State: M ≤ A < epoch (epoch window); counters within their ports.
        if self.m > self.a {
            return Err(format!("counters: M = {} > A = {}", self.m, self.a));
        }
        if c.window == Window::Epoch && self.a >= c.epoch as u64 {
            return Err(format!("counters: A = {} ≥ epoch {}", self.a, c.epoch));
        }
        if self.a > low_bits(c.counter_bits()) {
            return Err(format!("counters: A = {} wider than its port", self.a));
        }
        let l = &self.last;
        if !l.stepped {
            return Ok(());
        }
        if l.reset {
            if (self.a, self.m, self.mode) != (0, 0, Mode::Retain) {
                return Err(format!(
                    "reset: state A={} M={} mode={:?} after a reset cycle",
                    self.a, self.m, self.mode
                ));
            }
            return Ok(());
        }
        let acc = &l.acc;
        let d = l.decision;
        let probe = acc.probe();
        let load = acc.valid && !acc.store;

        // stall_why ≠ 0 exactly for a STALL.
        if (l.stall_why != StallWhy::None) != (d == Decision::Stall) {
            return Err(format!(
                "stall_why: decision {d:?} with stall_why {:?}",
                l.stall_why
            ));
        }
        // Baseline rows of §4.4 (1, 2, 3, 9) and no decision without an access.
        if !acc.valid && d != Decision::None {
            return Err(format!("decision {d:?} without an access"));
        }
        if acc.valid && (d == Decision::Write) != acc.store {
            return Err(format!("row 9: store={} decided {d:?}", acc.store));
        }
        if load && (d == Decision::Hit) != (probe == Probe::Hit) {
            return Err(format!("row 1: probe {probe:?} decided {d:?}"));
        }
        if load && d == Decision::Merge && !(probe == Probe::HitReserved && acc.merge_ok) {
            return Err(format!("row 2: MERGE for {acc:?}"));
        }
        if load && probe == Probe::HitReserved && acc.merge_ok && d != Decision::Merge {
            return Err(format!("row 2: a mergeable pending hit decided {d:?}"));
        }
        if d == Decision::Alloc && !(probe == Probe::Miss && acc.mshr_ok && acc.mq_ok) {
            return Err(format!("row 3: ALLOC for {acc:?}"));
        }

        // I7 / I8: a bypass only for an eligible load, in the right mode, with queue room.
        let waiter_ok = l.mode == Mode::Full || (l.mode == Mode::Partial && acc.waiter);
        let bypass_ok = c.bypass_en && waiter_ok;
        let eligible_probe = probe == Probe::MissNoWay
            || (c.bypass_all_misses && probe == Probe::Miss)
            || (c.bypass_on_mshr_full
                && ((probe == Probe::Miss && !acc.mshr_ok)
                    || (probe == Probe::HitReserved && !acc.merge_ok)));
        if d == Decision::Bypass {
            if !c.bypass_en {
                return Err("I8: BYPASS with bypass_en = false".into());
            }
            if !waiter_ok {
                return Err(format!(
                    "I7: BYPASS in mode {:?} with tb_has_waiter[{}] = {}",
                    l.mode, acc.tb, acc.waiter as u8
                ));
            }
            if !acc.mq_ok {
                return Err("I7: BYPASS with the miss queue full".into());
            }
            if !load || !eligible_probe {
                return Err(format!("I7: BYPASS of an ineligible access {acc:?}"));
            }
        }
        // No needless stall: an eligible blocked load is sent whenever it may be.
        if load && bypass_ok && acc.mq_ok && probe == Probe::MissNoWay && d != Decision::Bypass {
            return Err(format!("I7: an eligible MISS_NOWAY load decided {d:?}"));
        }
        let noway_stall = probe == Probe::MissNoWay && !bypass_ok;
        let mshr_failure = (probe == Probe::Miss && !acc.mshr_ok)
            || (probe == Probe::HitReserved && !acc.merge_ok);
        match l.stall_why {
            StallWhy::NoWay if !noway_stall => {
                return Err(format!("stall_why NOWAY for {acc:?} in mode {:?}", l.mode));
            }
            StallWhy::MissQueue if acc.mq_ok => {
                return Err("stall_why MQ with room in the miss queue".into());
            }
            StallWhy::Mshr if !mshr_failure => {
                return Err(format!("stall_why MSHR for {acc:?}"));
            }
            _ => {}
        }

        // I10 / counting: what this cycle must have added to A and M.
        let counted = matches!(
            d,
            Decision::Hit | Decision::Merge | Decision::Alloc | Decision::Bypass
        ) || (d == Decision::Write && c.count_stores);
        let missed = matches!(d, Decision::Alloc | Decision::Bypass)
            || (d == Decision::Write
                && c.count_stores
                && matches!(probe, Probe::Miss | Probe::MissNoWay));
        let frozen = c.window == Window::Cumulative && l.a == self.a_max;
        let (a1, m1) = if frozen {
            (l.a, l.m)
        } else {
            (l.a + counted as u64, l.m + missed as u64)
        };
        let ends = c.window == Window::Epoch && a1 == c.epoch as u64;
        if l.epoch_end != ends {
            return Err(format!(
                "epoch_end = {} with A {} + {} (epoch {})",
                l.epoch_end as u8, l.a, counted as u8, c.epoch
            ));
        }
        let cleared = l.kernel_start && c.launch_reset != LaunchReset::None;
        let (want_a, want_m) = if cleared || ends { (0, 0) } else { (a1, m1) };
        if (self.a, self.m) != (want_a, want_m) {
            return Err(format!(
                "I10: A, M = {}, {} after {d:?} from {}, {} (expected {want_a}, {want_m})",
                self.a, self.m, l.a, l.m
            ));
        }
        // I6: the mode changes only at an epoch end (cumulative: every edge) or a launch.
        let want_mode = if l.kernel_start && c.launch_reset == LaunchReset::All {
            Mode::Retain
        } else if ends || c.window == Window::Cumulative {
            mode_of(c, a1, m1)
        } else {
            l.mode
        };
        if self.mode != want_mode {
            return Err(format!(
                "I6: mode {:?} -> {:?} (A' = {a1}, M' = {m1}, epoch_end {}, kernel_start {}); expected {want_mode:?}",
                l.mode, self.mode, ends as u8, l.kernel_start as u8
            ));
        }
        Ok(())
    }

    fn state_line(&self) -> String {
        format!("A={} M={} mode={:?}", self.a, self.m, self.mode)
    }
}

// ---------------------------------------------------------------------------------------
// Stimulus

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

// ---------------------------------------------------------------------------------------
// Spec vectors (spec/barrier.md §6.3–§6.5, T1/I8; docs/scheduling.md §9.9) and contract
// vectors for the knobs the spec leaves as options.

/// One access of a vector: a load with every resource available unless changed.
#[derive(Clone, Copy, Debug)]
struct Acc {
    store: bool,
    probe: Probe,
    tb: u64,
    waiters: u64,
    merge_ok: bool,
    mshr_ok: bool,
    mq_ok: bool,
}

impl Acc {
    fn load(probe: Probe) -> Acc {
        Acc {
            store: false,
            probe,
            tb: 0,
            waiters: 0,
            merge_ok: true,
            mshr_ok: true,
            mq_ok: true,
        }
    }
    fn store(probe: Probe) -> Acc {
        Acc {
            store: true,
            ..Acc::load(probe)
        }
    }
    fn tb(self, tb: u64, waiters: u64) -> Acc {
        Acc {
            tb,
            waiters,
            ..self
        }
    }
    fn no_mq(self) -> Acc {
        Acc {
            mq_ok: false,
            ..self
        }
    }
    fn no_mshr(self) -> Acc {
        Acc {
            mshr_ok: false,
            ..self
        }
    }
    fn no_merge(self) -> Acc {
        Acc {
            merge_ok: false,
            ..self
        }
    }
}

/// What a vector cycle expects: the decision, its stall reason, and the registered state.
#[derive(Clone, Copy, Debug)]
struct Want {
    decision: Decision,
    why: StallWhy,
    epoch_end: bool,
    mode: Mode,
    acc: u64,
    miss: u64,
}

/// Builder for one l1d-bypass spec vector (starts with a reset cycle).
struct Vb {
    v: SpecVector,
}

impl Vb {
    fn new(name: &str, sets: &[&str]) -> Vb {
        Vb {
            v: SpecVector {
                name: name.into(),
                unit: NAME,
                sets: sets.iter().map(|s| s.to_string()).collect(),
                cycles: vec![VectorCycle {
                    inputs: vec![("reset", vec![1])],
                    expect: vec![],
                }],
            },
        }
    }

    fn push(&mut self, acc: Option<Acc>, kernel_start: bool, w: Want) {
        let mut inputs: Vec<(&'static str, Vec<u64>)> = vec![];
        if let Some(a) = acc {
            inputs.extend([
                ("acc_valid", vec![1]),
                ("acc_store", vec![a.store as u64]),
                ("acc_probe", vec![a.probe.code()]),
                ("acc_tb", vec![a.tb]),
                ("tb_has_waiter", vec![a.waiters]),
                ("merge_ok", vec![a.merge_ok as u64]),
                ("mshr_ok", vec![a.mshr_ok as u64]),
                ("mq_ok", vec![a.mq_ok as u64]),
            ]);
        }
        if kernel_start {
            inputs.push(("kernel_start", vec![1]));
        }
        self.v.cycles.push(VectorCycle {
            inputs,
            expect: vec![
                ("decision", vec![w.decision.code()]),
                ("stall_why", vec![w.why.code()]),
                ("epoch_end", vec![w.epoch_end as u64]),
                ("mode", vec![w.mode.code()]),
                ("dbg_acc", vec![w.acc]),
                ("dbg_miss", vec![w.miss]),
            ],
        });
    }

    /// A cycle with access `acc`, expecting `decision`/`why`, no epoch end, and the given
    /// registered state (mode, A, M) at the start of the cycle.
    fn step(
        mut self,
        acc: Acc,
        decision: Decision,
        why: StallWhy,
        (mode, a, m): (Mode, u64, u64),
    ) -> Vb {
        self.push(
            Some(acc),
            false,
            Want {
                decision,
                why,
                epoch_end: false,
                mode,
                acc: a,
                miss: m,
            },
        );
        self
    }

    /// A cycle without an access (reads the registered state).
    fn idle(mut self, (mode, a, m): (Mode, u64, u64)) -> Vb {
        self.push(
            None,
            false,
            Want {
                decision: Decision::None,
                why: StallWhy::None,
                epoch_end: false,
                mode,
                acc: a,
                miss: m,
            },
        );
        self
    }

    /// One whole epoch of `epoch` loads from empty counters in mode `mode`: `misses` of them
    /// MISS (ALLOC), the others HIT, misses first when `misses_first`. The last one ends the
    /// epoch.
    fn epoch(mut self, epoch: u64, misses: u64, misses_first: bool, mode: Mode) -> Vb {
        let mut m = 0;
        for j in 0..epoch {
            let miss = if misses_first {
                j < misses
            } else {
                j >= epoch - misses
            };
            let (probe, decision) = if miss {
                (Probe::Miss, Decision::Alloc)
            } else {
                (Probe::Hit, Decision::Hit)
            };
            self.push(
                Some(Acc::load(probe)),
                false,
                Want {
                    decision,
                    why: StallWhy::None,
                    epoch_end: j == epoch - 1,
                    mode,
                    acc: j,
                    miss: m,
                },
            );
            m += miss as u64;
        }
        self
    }

    /// The rest of an epoch of misses from `A = a`, `M = m` (MISS → ALLOC); the last one
    /// ends the epoch.
    fn epoch_rest(mut self, epoch: u64, a: u64, m: u64, mode: Mode) -> Vb {
        for j in a..epoch {
            self.push(
                Some(Acc::load(Probe::Miss)),
                false,
                Want {
                    decision: Decision::Alloc,
                    why: StallWhy::None,
                    epoch_end: j == epoch - 1,
                    mode,
                    acc: j,
                    miss: m + j - a,
                },
            );
        }
        self
    }

    fn done(self) -> SpecVector {
        self.v
    }
}

use Decision as D;
use Mode::{Full, Partial, Retain};
use StallWhy as Why;

/// §6.3 with EPOCH = 10: epochs of 5, 6, 9, 10, 0 misses give RETAIN, PARTIAL (0.6 is
/// inclusive), PARTIAL (0.9 is not FULL), FULL, RETAIN.
fn modes_epoch10() -> SpecVector {
    let mut b = Vb::new("barrier.md §6.3 miss-rate modes (epoch=10)", &["epoch=10"]);
    let epochs = [
        (5, Retain),
        (6, Partial),
        (9, Partial),
        (10, Full),
        (0, Retain),
    ];
    let mut mode = Retain;
    for (k, &(misses, next)) in epochs.iter().enumerate() {
        b = b.epoch(10, misses, k % 2 == 0, mode);
        mode = next;
    }
    b.idle((Retain, 0, 0)).done()
}

/// §6.3 boundaries at EPOCH = 1024: M = 614, 615, 921, 922.
fn modes_epoch1024(misses: u64, want: Mode) -> SpecVector {
    Vb::new(
        &format!("barrier.md §6.3 boundary M={misses} of 1024 (epoch=1024)"),
        &[],
    )
    .epoch(1024, misses, false, Retain)
    .idle((want, 0, 0))
    .done()
}

/// The accounting sequence of §6.4 after a PARTIAL prefix (6 of 10), `acc_tb = 1`.
fn accounting_steps(b: Vb, count_stores: bool) -> Vb {
    let r = Probe::MissNoWay;
    let b = b
        .epoch(10, 6, true, Retain)
        .step(
            Acc::load(Probe::Hit).tb(1, 0),
            D::Hit,
            Why::None,
            (Partial, 0, 0),
        )
        .step(
            Acc::load(Probe::Miss).tb(1, 0),
            D::Alloc,
            Why::None,
            (Partial, 1, 0),
        )
        .step(Acc::load(r).tb(1, 0), D::Stall, Why::NoWay, (Partial, 2, 1))
        .step(Acc::load(r).tb(1, 0), D::Stall, Why::NoWay, (Partial, 2, 1))
        .step(
            Acc::load(r).tb(1, 0b10),
            D::Bypass,
            Why::None,
            (Partial, 2, 1),
        )
        .step(
            Acc::load(Probe::HitReserved).tb(1, 0),
            D::Merge,
            Why::None,
            (Partial, 3, 2),
        )
        .step(
            Acc::store(Probe::Miss).tb(1, 0),
            D::Write,
            Why::None,
            (Partial, 4, 2),
        );
    if count_stores {
        // The store miss counts in A and M.
        b.idle((Partial, 5, 3))
    } else {
        // §6.4: A = 4, M = 2 (the retried request once, as a miss; the store not at all).
        b.idle((Partial, 4, 2))
    }
}

fn accounting() -> SpecVector {
    accounting_steps(
        Vb::new(
            "barrier.md §6.4 counter accounting (epoch=10)",
            &["epoch=10"],
        ),
        false,
    )
    .done()
}

fn accounting_with_stores() -> SpecVector {
    accounting_steps(
        Vb::new(
            "contract: §6.4 stream with count_stores=true (epoch=10)",
            &["epoch=10", "count_stores=true"],
        ),
        true,
    )
    .done()
}

/// §6.5 a (RETAIN): a blocked miss stalls whatever its CTA's barrier state.
fn decisions_retain() -> SpecVector {
    let r = Probe::MissNoWay;
    Vb::new(
        "barrier.md §6.5 decisions a (RETAIN, epoch=10)",
        &["epoch=10"],
    )
    .step(
        Acc::load(r).tb(0, 0b001),
        D::Stall,
        Why::NoWay,
        (Retain, 0, 0),
    )
    // Row 4 does not depend on the miss queue: still NOWAY.
    .step(
        Acc::load(r).tb(0, 0b001).no_mq(),
        D::Stall,
        Why::NoWay,
        (Retain, 0, 0),
    )
    .step(
        Acc::load(Probe::Miss).tb(0, 0b001),
        D::Alloc,
        Why::None,
        (Retain, 0, 0),
    )
    .idle((Retain, 1, 1))
    .done()
}

/// §6.5 b, c, d (PARTIAL after 6 of 10 misses).
fn decisions_partial() -> SpecVector {
    let r = Probe::MissNoWay;
    Vb::new(
        "barrier.md §6.5 decisions b-d (PARTIAL, epoch=10)",
        &["epoch=10"],
    )
    .epoch(10, 6, false, Retain)
    .step(Acc::load(r).tb(1, 0), D::Stall, Why::NoWay, (Partial, 0, 0))
    .step(
        Acc::load(r).tb(1, 0b010),
        D::Bypass,
        Why::None,
        (Partial, 0, 0),
    )
    .step(
        Acc::load(Probe::Miss).tb(1, 0b010),
        D::Alloc,
        Why::None,
        (Partial, 1, 1),
    )
    // Another CTA's waiter does not make this one eligible.
    .step(
        Acc::load(r).tb(2, 0b011),
        D::Stall,
        Why::NoWay,
        (Partial, 2, 2),
    )
    // Row 8: an eligible blocked miss with the miss queue full stalls on the queue.
    .step(
        Acc::load(r).tb(1, 0b010).no_mq(),
        D::Stall,
        Why::MissQueue,
        (Partial, 2, 2),
    )
    .idle((Partial, 2, 2))
    .done()
}

/// §6.5 e, f, g (FULL after 10 of 10 misses).
fn decisions_full() -> SpecVector {
    let r = Probe::MissNoWay;
    Vb::new(
        "barrier.md §6.5 decisions e-g (FULL, epoch=10)",
        &["epoch=10"],
    )
    .epoch(10, 10, true, Retain)
    .step(Acc::load(r).tb(2, 0), D::Bypass, Why::None, (Full, 0, 0))
    .step(
        Acc::load(r).tb(2, 0).no_mq(),
        D::Stall,
        Why::MissQueue,
        (Full, 1, 1),
    )
    .step(
        Acc::load(Probe::Hit).tb(2, 0),
        D::Hit,
        Why::None,
        (Full, 1, 1),
    )
    // A miss with a free way allocates in every mode (G12).
    .step(
        Acc::load(Probe::Miss).tb(2, 0),
        D::Alloc,
        Why::None,
        (Full, 2, 1),
    )
    .idle((Full, 3, 2))
    .done()
}

/// T1/I8: the same stimulus with `bypass_en` true and false. Off, every would-be BYPASS is
/// the RETAIN-mode STALL (NOWAY), while the monitor still runs.
fn bypass_enable(en: bool) -> SpecVector {
    let r = Probe::MissNoWay;
    let name = format!("barrier.md T1/I8 bypass_en={en} (epoch=10)");
    let set = format!("bypass_en={en}");
    let b = Vb::new(&name, &["epoch=10", &set]).epoch(10, 10, false, Retain);
    let b = if en {
        b.step(Acc::load(r).tb(3, 0), D::Bypass, Why::None, (Full, 0, 0))
            .step(
                Acc::load(r).tb(3, 0).no_mq(),
                D::Stall,
                Why::MissQueue,
                (Full, 1, 1),
            )
            .step(
                Acc::load(Probe::Miss).tb(3, 0),
                D::Alloc,
                Why::None,
                (Full, 1, 1),
            )
            .step(
                Acc::load(Probe::Hit).tb(3, 0),
                D::Hit,
                Why::None,
                (Full, 2, 2),
            )
            .idle((Full, 3, 2))
    } else {
        b.step(Acc::load(r).tb(3, 0), D::Stall, Why::NoWay, (Full, 0, 0))
            .step(
                Acc::load(r).tb(3, 0).no_mq(),
                D::Stall,
                Why::NoWay,
                (Full, 0, 0),
            )
            .step(
                Acc::load(Probe::Miss).tb(3, 0),
                D::Alloc,
                Why::None,
                (Full, 0, 0),
            )
            .step(
                Acc::load(Probe::Hit).tb(3, 0),
                D::Hit,
                Why::None,
                (Full, 1, 1),
            )
            .idle((Full, 2, 1))
    };
    b.done()
}

/// The MSHR-type failures: stalls by default, bypass-eligible with `bypass_on_mshr_full`
/// (G13); a bypassed pending hit counts as a miss.
fn mshr_full(flag: bool) -> SpecVector {
    let name = format!("contract: MSHR-full and merge-limit failures, bypass_on_mshr_full={flag}");
    let set = format!("bypass_on_mshr_full={flag}");
    let b = Vb::new(&name, &["epoch=10", &set]).epoch(10, 10, true, Retain);
    let miss = Acc::load(Probe::Miss).tb(1, 0);
    let pend = Acc::load(Probe::HitReserved).tb(1, 0);
    let b = if flag {
        b.step(miss.no_mshr(), D::Bypass, Why::None, (Full, 0, 0))
            .step(pend.no_merge(), D::Bypass, Why::None, (Full, 1, 1))
            .step(
                miss.no_mshr().no_mq(),
                D::Stall,
                Why::MissQueue,
                (Full, 2, 2),
            )
            .step(
                pend.no_merge().no_mq(),
                D::Stall,
                Why::MissQueue,
                (Full, 2, 2),
            )
            // With an MSHR free but no queue room, a MISS is not MSHR-type: it stalls on MQ.
            .step(miss.no_mq(), D::Stall, Why::MissQueue, (Full, 2, 2))
            .step(miss, D::Alloc, Why::None, (Full, 2, 2))
            .idle((Full, 3, 3))
    } else {
        b.step(miss.no_mshr(), D::Stall, Why::Mshr, (Full, 0, 0))
            .step(pend.no_merge(), D::Stall, Why::Mshr, (Full, 0, 0))
            .step(miss.no_mshr().no_mq(), D::Stall, Why::Mshr, (Full, 0, 0))
            .step(miss.no_mq(), D::Stall, Why::MissQueue, (Full, 0, 0))
            // A pending hit needs no MSHR entry or queue room to merge.
            .step(pend.no_mshr().no_mq(), D::Merge, Why::None, (Full, 0, 0))
            .idle((Full, 1, 0))
    };
    b.done()
}

/// `bypass_on_mshr_full` in PARTIAL mode: only a CTA with a waiter may bypass.
fn mshr_full_partial() -> SpecVector {
    let miss = Acc::load(Probe::Miss).no_mshr();
    Vb::new(
        "contract: bypass_on_mshr_full in PARTIAL mode",
        &["epoch=10", "bypass_on_mshr_full=true"],
    )
    .epoch(10, 7, true, Retain)
    .step(
        miss.tb(5, 0b0001_1111),
        D::Stall,
        Why::Mshr,
        (Partial, 0, 0),
    )
    .step(
        miss.tb(5, 0b0010_0000),
        D::Bypass,
        Why::None,
        (Partial, 0, 0),
    )
    .idle((Partial, 1, 1))
    .done()
}

/// `bypass_all_misses` (G12 ALL_MISSES): an eligible miss is sent around the L1D even when a
/// way is free; otherwise it allocates.
fn all_misses() -> SpecVector {
    let miss = Acc::load(Probe::Miss);
    Vb::new(
        "contract: bypass_all_misses=true",
        &["epoch=4", "bypass_all_misses=true"],
    )
    // RETAIN: not eligible, so every miss allocates; four misses end the epoch in FULL.
    .step(miss.tb(0, 1), D::Alloc, Why::None, (Retain, 0, 0))
    .epoch_rest(4, 1, 1, Retain)
    .step(miss, D::Bypass, Why::None, (Full, 0, 0))
    // Sending needs only queue room: a free MSHR does not turn it into an ALLOC.
    .step(miss.no_mq(), D::Stall, Why::MissQueue, (Full, 1, 1))
    .step(miss.no_mshr(), D::Bypass, Why::None, (Full, 1, 1))
    .step(
        Acc::load(Probe::HitReserved).no_merge(),
        D::Stall,
        Why::Mshr,
        (Full, 2, 2),
    )
    .idle((Full, 2, 2))
    .done()
}

/// `kernel_start` on the edge that ends an epoch: it wins over the new mode and the counters
/// (`all`), over the counters only (`counters`), or does nothing (`none`). Then a launch in
/// the middle of an epoch.
fn kernel_start(reset: &str) -> SpecVector {
    let name = format!("contract: kernel_start with launch_reset={reset} (epoch=4)");
    let set = format!("launch_reset={reset}");
    let mut b = Vb::new(&name, &["epoch=4", &set]);
    let miss = Acc::load(Probe::Miss);
    for j in 0..3 {
        b = b.step(miss, D::Alloc, Why::None, (Retain, j, j));
    }
    // The fourth miss ends the epoch (FULL) in the cycle of the launch.
    b.push(
        Some(miss),
        true,
        Want {
            decision: D::Alloc,
            why: Why::None,
            epoch_end: true,
            mode: Retain,
            acc: 3,
            miss: 3,
        },
    );
    let after = if reset == "all" { Retain } else { Full };
    b = b.step(miss, D::Alloc, Why::None, (after, 0, 0)).step(
        Acc::load(Probe::Hit),
        D::Hit,
        Why::None,
        (after, 1, 1),
    );
    // A launch in the middle of an epoch, with a counted hit in its cycle.
    b.push(
        Some(Acc::load(Probe::Hit)),
        true,
        Want {
            decision: D::Hit,
            why: Why::None,
            epoch_end: false,
            mode: after,
            acc: 2,
            miss: 1,
        },
    );
    let (a, m) = if reset == "none" { (3, 1) } else { (0, 0) };
    b.idle((after, a, m)).done()
}

/// The default thresholds written as the spec writes them (10·M > 9·A, 10·M ≥ 6·A, and
/// RETAIN for A = 0), used to state the expected modes of the cumulative vector.
fn mode_by_hand(a: u64, m: u64) -> Mode {
    if a == 0 {
        Retain
    } else if 10 * m > 9 * a {
        Full
    } else if 10 * m >= 6 * a {
        Partial
    } else {
        Retain
    }
}

/// The cumulative window (§4.1 alternative): 32-bit counters, the mode follows `f` at every
/// edge, never an epoch end; `A = 0` gives RETAIN.
fn cumulative() -> SpecVector {
    let miss = Acc::load(Probe::Miss);
    let hit = Acc::load(Probe::Hit);
    let noway = Acc::load(Probe::MissNoWay);
    let mut b = Vb::new("contract: window=cumulative", &["window=cumulative"])
        .idle((Retain, 0, 0))
        .step(miss, D::Alloc, Why::None, (Retain, 0, 0))
        // f(1, 1): FULL
        .step(hit, D::Hit, Why::None, (Full, 1, 1))
        // f(2, 1): 10 < 12: RETAIN
        .step(miss, D::Alloc, Why::None, (Retain, 2, 1))
        // f(3, 2): 20 >= 18 and 20 <= 27: PARTIAL
        .step(noway.tb(0, 1), D::Bypass, Why::None, (Partial, 3, 2))
        // f(4, 3): 30 >= 24, 30 <= 36: PARTIAL; CTA 1 has no waiter
        .step(noway.tb(1, 1), D::Stall, Why::NoWay, (Partial, 4, 3));
    // Nine more misses, up to f(13, 12): 120 > 117: FULL.
    for j in 0..9 {
        let mode = mode_by_hand(4 + j, 3 + j);
        b = b.step(miss, D::Alloc, Why::None, (mode, 4 + j, 3 + j));
    }
    b.idle((Full, 13, 12))
        .step(hit, D::Hit, Why::None, (Full, 13, 12))
        // f(14, 12): 120 <= 126: PARTIAL
        .idle((Partial, 14, 12))
        .done()
}

/// EPOCH = 1: every counted access ends an epoch and sets the mode from itself alone.
fn epoch_one() -> SpecVector {
    let end = |b: &mut Vb, acc: Acc, d: Decision, mode: Mode| {
        b.push(
            Some(acc),
            false,
            Want {
                decision: d,
                why: Why::None,
                epoch_end: true,
                mode,
                acc: 0,
                miss: 0,
            },
        )
    };
    let mut b = Vb::new("contract: epoch=1", &["epoch=1"]);
    end(&mut b, Acc::load(Probe::Miss), D::Alloc, Retain);
    end(&mut b, Acc::load(Probe::MissNoWay), D::Bypass, Full);
    end(&mut b, Acc::load(Probe::Hit), D::Hit, Full);
    // A stall is not counted: no epoch end, the mode stays.
    b = b.step(
        Acc::load(Probe::MissNoWay),
        D::Stall,
        Why::NoWay,
        (Retain, 0, 0),
    );
    // A store is not counted (count_stores = false): no epoch end.
    b = b.step(Acc::store(Probe::Miss), D::Write, Why::None, (Retain, 0, 0));
    end(&mut b, Acc::load(Probe::HitReserved), D::Merge, Retain);
    b.idle((Retain, 0, 0)).done()
}

/// Extreme thresholds: `full_pct = 100` makes FULL unreachable (100·M > 100·A never holds),
/// `partial_pct = 0` makes every non-empty window at least PARTIAL.
fn extreme_thresholds() -> SpecVector {
    Vb::new(
        "contract: full_pct=100 partial_pct=0 (epoch=4)",
        &["epoch=4", "full_pct=100", "partial_pct=0"],
    )
    .epoch(4, 4, true, Retain)
    .epoch(4, 0, true, Partial)
    .idle((Partial, 0, 0))
    .done()
}

/// The directed vectors of l1d-bypass: every §6.3–§6.5 and T1/I8 item of spec/barrier.md at
/// port level (docs/scheduling.md §9.9), then contract vectors for the optional knobs.
pub fn spec_vectors() -> Vec<SpecVector> {
    vec![
        modes_epoch10(),
        modes_epoch1024(614, Retain),
        modes_epoch1024(615, Partial),
        modes_epoch1024(921, Partial),
        modes_epoch1024(922, Full),
        accounting(),
        decisions_retain(),
        decisions_partial(),
        decisions_full(),
        bypass_enable(true),
        bypass_enable(false),
        accounting_with_stores(),
        mshr_full(false),
        mshr_full(true),
        mshr_full_partial(),
        all_misses(),
        kernel_start("all"),
        kernel_start("counters"),
        kernel_start("none"),
        cumulative(),
        epoch_one(),
        extreme_thresholds(),
    ]
}
