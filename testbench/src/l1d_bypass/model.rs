//! Cycle model of `l1d-bypass`: the miss-rate monitor (A, M, mode) and the per-access
//! decision of the §4.4 table, as the contract `units::l1d_bypass` states them.

use crate::words::{low_bits, port_offset};
use crate::Model;
use warpforge_contract::units::l1d_bypass::{
    Decision, L1dBypassConfig, LaunchReset, Mode, Probe, StallWhy, Window, CUMULATIVE_BITS,
};
use warpforge_contract::Layout;

#[derive(Clone, Copy, Debug)]
pub(super) struct InPorts {
    pub(super) reset: usize,
    pub(super) kernel_start: usize,
    pub(super) acc_valid: usize,
    pub(super) acc_store: usize,
    pub(super) acc_probe: usize,
    pub(super) acc_tb: usize,
    pub(super) merge_ok: usize,
    pub(super) mshr_ok: usize,
    pub(super) mq_ok: usize,
    pub(super) tb_has_waiter: usize,
}

impl InPorts {
    pub(super) fn new(l: &Layout) -> InPorts {
        let o = |n| port_offset(&l.inputs, "l1d-bypass", n);
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
pub(super) struct OutPorts {
    pub(super) decision: usize,
    pub(super) stall_why: usize,
    pub(super) epoch_end: usize,
    pub(super) mode: usize,
    pub(super) dbg_acc: usize,
    pub(super) dbg_miss: usize,
}

impl OutPorts {
    pub(super) fn new(l: &Layout) -> OutPorts {
        let o = |n| port_offset(&l.outputs, "l1d-bypass", n);
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
    pub(super) fn probe(&self) -> Probe {
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
