//! RTL of l1d-bypass: the barrier-aware L1D bypass decision of one SM (spec/barrier.md §4).
//!
//! Each cycle, in three steps (the contract's doc comment in
//! `warpforge_contract::units::l1d_bypass` is normative):
//! 1. decision: `bypass_ok` from the registered mode and the accessing CTA's barrier state,
//!    then the first matching row of the §4.4 table gives `decision`, `stall_why` and this
//!    cycle's counts `a` and `m`;
//! 2. miss-rate monitor: `A' = A + a`, `M' = M + m`; an epoch ends when `A' = epoch` (the mode
//!    becomes `f(A', M')` and the counters clear), or, with the cumulative window, the mode
//!    follows `f(A', M')` at every edge;
//! 3. `kernel_start` is applied last and wins (`launch_reset`).
//!
//! `f` compares `100·M'` with `full_pct·A'` and `partial_pct·A'`. With the epoch window the
//! mode changes only when `A' = epoch`, a constant, so `f` reduces to comparing `M'` with two
//! constants: FULL when `M' > ⌊full_pct·epoch/100⌋`, PARTIAL when
//! `M' ≥ ⌈partial_pct·epoch/100⌉` (exact for integer `M'`). With the cumulative window `A'`
//! varies: the percentages are constants, so both products are sums of shifted copies of `A'`
//! (one adder per set bit of the percentage) and `100·M'` is `64·M' + 32·M' + 4·M'`: no
//! multiplier. Every operand is first widened so that no sum or shift drops a bit.

use crate::primitives::{emit, Fixed, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::l1d_bypass::{
    Decision, L1dBypassConfig, LaunchReset, Mode, Probe, StallWhy, Window,
};

/// Bits of a percentage (0 … 100).
const PCT_BITS: usize = 7;

#[derive(LogicBlock)]
pub struct L1dBypass {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub kernel_start: Signal<In, Bit>,
    pub acc_valid: Signal<In, Bit>,
    pub acc_store: Signal<In, Bit>,
    pub acc_probe: Wire<In>,
    pub acc_tb: Wire<In>,
    pub merge_ok: Signal<In, Bit>,
    pub mshr_ok: Signal<In, Bit>,
    pub mq_ok: Signal<In, Bit>,
    pub tb_has_waiter: Wire<In>,
    pub decision: Wire<Out>,
    pub stall_why: Wire<Out>,
    pub epoch_end: Signal<Out, Bit>,
    pub mode: Wire<Out>,
    pub dbg_acc: Wire<Out>,
    pub dbg_miss: Wire<Out>,

    // State: the miss-rate monitor (BAR S3).
    acc_count: WordReg,
    miss_count: WordReg,
    mode_reg: WordReg,

    // Generation-time constants.
    bypass_en: Constant<Bit>,
    bypass_on_mshr_full: Constant<Bit>,
    bypass_all_misses: Constant<Bit>,
    count_stores: Constant<Bit>,
    cumulative: Constant<Bit>,
    launch_clears_counters: Constant<Bit>,
    launch_clears_mode: Constant<Bit>,
    epoch_len: Fixed,
    /// Epoch window: FULL when `M' > full_above`, PARTIAL when `M' >= partial_from`.
    full_above: Fixed,
    partial_from: Fixed,
    /// The set bits of `full_pct` and `partial_pct`: `pct·A' = Σ A' << shift`.
    full_shifts: Vec<Fixed>,
    partial_shifts: Vec<Fixed>,

    // Step 1.
    bypass_ok: Signal<Local, Bit>,
    /// The access goes to L2 around the L1D if the miss queue has room (`send`).
    sending: Signal<Local, Bit>,
    count_a: Signal<Local, Bit>,
    count_m: Signal<Local, Bit>,
    // Step 2, one bit wider than the counters: `A'` may equal `epoch`.
    acc_next: Wire<Local>,
    miss_next: Wire<Local>,
    /// `A'` and `M'` widened for the products.
    acc_wide: Wire<Local>,
    miss_wide: Wire<Local>,
    miss_x100: Wire<Local>,
    acc_x_full: Wire<Local>,
    acc_x_partial: Wire<Local>,
    mode_f: Wire<Local>,
    ends_epoch: Signal<Local, Bit>,
}

impl L1dBypass {
    pub fn new(cfg: &L1dBypassConfig) -> L1dBypass {
        let ab = cfg.counter_bits();
        let next_bits = ab + 1;
        let wide_bits = next_bits + PCT_BITS;
        let shifts = |pct: u32| -> Vec<Fixed> {
            (0..PCT_BITS)
                .filter(|&i| (pct >> i) & 1 == 1)
                .map(|i| Fixed::new(i as u64))
                .collect()
        };
        L1dBypass {
            clock: Default::default(),
            reset: Default::default(),
            kernel_start: Default::default(),
            acc_valid: Default::default(),
            acc_store: Default::default(),
            acc_probe: Wire::new(Probe::BITS),
            acc_tb: Wire::new(cfg.tb_bits()),
            merge_ok: Default::default(),
            mshr_ok: Default::default(),
            mq_ok: Default::default(),
            tb_has_waiter: Wire::new(cfg.ctas),
            decision: Wire::new(Decision::BITS),
            stall_why: Wire::new(StallWhy::BITS),
            epoch_end: Default::default(),
            mode: Wire::new(Mode::BITS),
            dbg_acc: Wire::new(ab),
            dbg_miss: Wire::new(ab),
            acc_count: WordReg::new(ab),
            miss_count: WordReg::new(ab),
            mode_reg: WordReg::new(Mode::BITS),
            bypass_en: Constant::new(cfg.bypass_en),
            bypass_on_mshr_full: Constant::new(cfg.bypass_on_mshr_full),
            bypass_all_misses: Constant::new(cfg.bypass_all_misses),
            count_stores: Constant::new(cfg.count_stores),
            cumulative: Constant::new(cfg.window == Window::Cumulative),
            launch_clears_counters: Constant::new(cfg.launch_reset != LaunchReset::None),
            launch_clears_mode: Constant::new(cfg.launch_reset == LaunchReset::All),
            epoch_len: Fixed::new(cfg.epoch as u64),
            full_above: Fixed::new(cfg.full_pct as u64 * cfg.epoch as u64 / 100),
            partial_from: Fixed::new((cfg.partial_pct as u64 * cfg.epoch as u64).div_ceil(100)),
            full_shifts: shifts(cfg.full_pct),
            partial_shifts: shifts(cfg.partial_pct),
            bypass_ok: Default::default(),
            sending: Default::default(),
            count_a: Default::default(),
            count_m: Default::default(),
            acc_next: Wire::new(next_bits),
            miss_next: Wire::new(next_bits),
            acc_wide: Wire::new(wide_bits),
            miss_wide: Wire::new(wide_bits),
            miss_x100: Wire::new(wide_bits),
            acc_x_full: Wire::new(wide_bits),
            acc_x_partial: Wire::new(wide_bits),
            mode_f: Wire::new(Mode::BITS),
            ends_epoch: Default::default(),
        }
    }
}

// Codes, as the contract's enums give them (`hdl_gen` takes integer literals only; the unit
// test `codes_match_the_contract` keeps the two in step).
// decision: 0 none, 1 hit, 2 merge, 3 alloc, 4 bypass, 5 stall, 6 write
// stall_why: 0 none, 1 no way, 2 mshr, 3 miss queue
// mode: 0 retain, 1 partial, 2 full
// acc_probe: 0 hit, 1 hit-reserved, 2 miss, 3 miss with no way

impl Logic for L1dBypass {
    #[hdl_gen]
    fn update(&mut self) {
        self.acc_count.clock.next = self.clock.val();
        self.acc_count.reset.next = self.reset.val();
        self.miss_count.clock.next = self.clock.val();
        self.miss_count.reset.next = self.reset.val();
        self.mode_reg.clock.next = self.clock.val();
        self.mode_reg.reset.next = self.reset.val();

        // 1. Decision (§4.4), from the registered mode.
        self.bypass_ok.next = self.bypass_en.val()
            & ((self.mode_reg.q.val() == 2)
                | ((self.mode_reg.q.val() == 1)
                    & self.tb_has_waiter.val().get_bit(self.acc_tb.val().index())));
        self.decision.next = 0.into();
        self.stall_why.next = 0.into();
        self.sending.next = false;
        self.count_a.next = false;
        self.count_m.next = false;
        if self.acc_valid.val() {
            if self.acc_store.val() {
                // Row 9: the baseline write path, never a bypass.
                self.decision.next = 6.into();
                self.count_a.next = self.count_stores.val();
                self.count_m.next = self.count_stores.val() & self.acc_probe.val().get_bit(1);
            } else if self.acc_probe.val() == 0 {
                self.decision.next = 1.into();
                self.count_a.next = true;
            } else if self.acc_probe.val() == 1 {
                if self.merge_ok.val() {
                    self.decision.next = 2.into();
                    self.count_a.next = true;
                } else if self.bypass_on_mshr_full.val() & self.bypass_ok.val() {
                    self.sending.next = true;
                } else {
                    self.decision.next = 5.into();
                    self.stall_why.next = 2.into();
                }
            } else if self.acc_probe.val() == 2 {
                if self.bypass_all_misses.val() & self.bypass_ok.val() {
                    self.sending.next = true;
                } else if self.mshr_ok.val() & self.mq_ok.val() {
                    self.decision.next = 3.into();
                    self.count_a.next = true;
                    self.count_m.next = true;
                } else if !self.mshr_ok.val()
                    & self.bypass_on_mshr_full.val()
                    & self.bypass_ok.val()
                {
                    self.sending.next = true;
                } else {
                    self.decision.next = 5.into();
                    if self.mshr_ok.val() {
                        self.stall_why.next = 3.into();
                    } else {
                        self.stall_why.next = 2.into();
                    }
                }
            } else if self.bypass_ok.val() {
                // Rows 6–8: every way reserved, and the access may bypass.
                self.sending.next = true;
            } else {
                // Rows 4–5.
                self.decision.next = 5.into();
                self.stall_why.next = 1.into();
            }
        }
        if self.sending.val() {
            if self.mq_ok.val() {
                self.decision.next = 4.into();
                self.count_a.next = true;
                self.count_m.next = true;
            } else {
                self.decision.next = 5.into();
                self.stall_why.next = 3.into();
            }
        }

        // 2. The monitor. A cumulative count stops at 2^32 - 1 (A all ones).
        self.acc_next.next = self.acc_count.q.val();
        if self.count_a.val() {
            self.acc_next.next = self.acc_count.q.val() + 1;
        }
        self.miss_next.next = self.miss_count.q.val();
        if self.count_m.val() {
            self.miss_next.next = self.miss_count.q.val() + 1;
        }
        if self.cumulative.val() & self.acc_count.q.val().all() {
            self.acc_next.next = self.acc_count.q.val();
            self.miss_next.next = self.miss_count.q.val();
        }
        self.acc_wide.next = self.acc_next.val();
        self.miss_wide.next = self.miss_next.val();
        self.miss_x100.next =
            (self.miss_wide.val() << 6) + (self.miss_wide.val() << 5) + (self.miss_wide.val() << 2);
        self.acc_x_full.next = 0.into();
        for i in 0..self.full_shifts.len() {
            self.acc_x_full.next =
                self.acc_x_full.val() + (self.acc_wide.val() << self.full_shifts[i].val());
        }
        self.acc_x_partial.next = 0.into();
        for i in 0..self.partial_shifts.len() {
            self.acc_x_partial.next =
                self.acc_x_partial.val() + (self.acc_wide.val() << self.partial_shifts[i].val());
        }
        // f(A', M'): RETAIN when A' = 0, else FULL, PARTIAL or RETAIN by the thresholds.
        // The epoch window uses f only at A' = epoch (see the module comment).
        self.mode_f.next = 0.into();
        if !self.cumulative.val() {
            if self.miss_next.val() > self.full_above.val() {
                self.mode_f.next = 2.into();
            } else if self.miss_next.val() + 1 > self.partial_from.val() {
                // M' >= partial_from, written so that partial_from = 0 is no constant compare.
                self.mode_f.next = 1.into();
            }
        } else if self.acc_next.val().any() {
            if self.miss_x100.val() > self.acc_x_full.val() {
                self.mode_f.next = 2.into();
            } else if self.miss_x100.val() >= self.acc_x_partial.val() {
                self.mode_f.next = 1.into();
            }
        }
        self.ends_epoch.next =
            !self.cumulative.val() & (self.acc_next.val() == self.epoch_len.val());
        self.acc_count.d.next = self.acc_next.val();
        self.miss_count.d.next = self.miss_next.val();
        self.mode_reg.d.next = self.mode_reg.q.val();
        if self.cumulative.val() | self.ends_epoch.val() {
            self.mode_reg.d.next = self.mode_f.val();
        }
        if self.ends_epoch.val() {
            self.acc_count.d.next = 0.into();
            self.miss_count.d.next = 0.into();
        }

        // 3. A kernel launch, last.
        if self.kernel_start.val() & self.launch_clears_counters.val() {
            self.acc_count.d.next = 0.into();
            self.miss_count.d.next = 0.into();
        }
        if self.kernel_start.val() & self.launch_clears_mode.val() {
            self.mode_reg.d.next = 0.into();
        }

        self.epoch_end.next = self.ends_epoch.val();
        self.mode.next = self.mode_reg.q.val();
        self.dbg_acc.next = self.acc_count.q.val();
        self.dbg_miss.next = self.miss_count.q.val();
    }
}

/// Verilog of one l1d-bypass configuration.
pub fn generate(cfg: &L1dBypassConfig) -> Design {
    let mut block = L1dBypass::new(cfg);
    emit(&mut block, &cfg.module_name())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literals in `update` are these codes.
    #[test]
    fn codes_match_the_contract() {
        let d = |x: Decision| x.code();
        assert_eq!(
            [
                d(Decision::None),
                d(Decision::Hit),
                d(Decision::Merge),
                d(Decision::Alloc),
                d(Decision::Bypass),
                d(Decision::Stall),
                d(Decision::Write)
            ],
            [0, 1, 2, 3, 4, 5, 6]
        );
        assert_eq!(
            [
                StallWhy::None.code(),
                StallWhy::NoWay.code(),
                StallWhy::Mshr.code(),
                StallWhy::MissQueue.code()
            ],
            [0, 1, 2, 3]
        );
        assert_eq!(
            [Mode::Retain.code(), Mode::Partial.code(), Mode::Full.code()],
            [0, 1, 2]
        );
        assert_eq!(
            [
                Probe::Hit.code(),
                Probe::HitReserved.code(),
                Probe::Miss.code(),
                Probe::MissNoWay.code()
            ],
            [0, 1, 2, 3]
        );
    }

    #[test]
    fn percentages_fit_their_shift_list() {
        assert!(100 < 1 << PCT_BITS);
    }
}
