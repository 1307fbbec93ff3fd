//! RTL of warp-sched: the issue-stage warp scheduler of one SM
//! (spec/latency_hiding_scheduler.md §2).
//!
//! Each cycle, in three steps:
//! 1. eligibility: `eligible(w) = resident(w) ∧ has_inst(w) ∧ ready(w) ∧ unit_free(w)`; a
//!    scheduler's candidates are the eligible slots it supervises (`w mod schedulers`);
//! 2. per-policy pick: one selector block per scheduler for the configured policy (LRR:
//!    [`RotatePick`], GTO: [`GtoPick`], the class-split policies a GTO memory queue and a GTO
//!    or rotating compute queue, bar-gto [`BarPick`]); each answers `found` and `slot`;
//! 3. shared state update: the issue pointer (`last_issued`, `last_valid`, `greedy_valid`),
//!    residency and the age matrix, then the Recency Register and the barrier table when the
//!    policy has them.
//!
//! One block, [`WarpSched`], serves every policy: a new policy is a new selector block, a `Vec`
//! of it that is non-empty only under that policy, and its wiring in step 2.
//!
//! Age is launch order, kept as a matrix: row `w` holds the slots whose warps are older than
//! the warp in slot `w`. Rows are only meaningful for resident slots and are always masked by
//! residency, so exits leave them alone.

use crate::primitives::{emit, Concat, Fixed, Split, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::warp_sched::{
    IssuePolicy, QueueOrder, RecCap, RecClass, RecTrigger, WarpSchedConfig,
};

/// LRR (§2.2): the first candidate after `last` in ascending slot order, wrapping around, so
/// `last` itself comes last; from the lowest slot when there is no `last`. Also the
/// round-robin selector of later policies.
#[derive(LogicBlock)]
pub struct RotatePick {
    pub candidates: Wire<In>,
    pub last: Wire<In>,
    pub last_valid: Signal<In, Bit>,
    pub found: Signal<Out, Bit>,
    pub slot: Wire<Out>,
    found_after: Signal<Local, Bit>,
    first_after: Wire<Local>,
    found_any: Signal<Local, Bit>,
    first_any: Wire<Local>,
}

impl RotatePick {
    pub fn new(warps: usize, slot_bits: usize) -> RotatePick {
        RotatePick {
            candidates: Wire::new(warps),
            last: Wire::new(slot_bits),
            last_valid: Default::default(),
            found: Default::default(),
            slot: Wire::new(slot_bits),
            found_after: Default::default(),
            first_after: Wire::new(slot_bits),
            found_any: Default::default(),
            first_any: Wire::new(slot_bits),
        }
    }
}

impl Logic for RotatePick {
    #[hdl_gen]
    fn update(&mut self) {
        self.found_after.next = false;
        self.first_after.next = 0.into();
        self.found_any.next = false;
        self.first_any.next = 0.into();
        for w in 0..self.candidates.width() {
            if self.candidates.val().get_bit(w) & !self.found_any.val() {
                self.found_any.next = true;
                self.first_any.next = w.into();
            }
        }
        // Slot 0 is never after `last`.
        for w in 1..self.candidates.width() {
            if self.candidates.val().get_bit(w)
                & self.last_valid.val()
                & (self.last.val() < w)
                & !self.found_after.val()
            {
                self.found_after.next = true;
                self.first_after.next = w.into();
            }
        }
        self.found.next = self.found_any.val();
        if self.found_after.val() {
            self.slot.next = self.first_after.val();
        } else {
            self.slot.next = self.first_any.val();
        }
    }
}

/// The oldest candidate: the one with no older candidate in its age-matrix row. Ages form a
/// total order over resident slots, so exactly one candidate qualifies when there is any;
/// the lowest slot is taken should several ever do.
#[derive(LogicBlock)]
pub struct OldestPick {
    pub candidates: Wire<In>,
    /// The age matrix, row `w` at bit `w * warps`: the slots holding warps older than the
    /// warp in slot `w`.
    pub older: Wire<In>,
    pub found: Signal<Out, Bit>,
    pub slot: Wire<Out>,
    rows: Split,
}

impl OldestPick {
    pub fn new(warps: usize, slot_bits: usize) -> OldestPick {
        OldestPick {
            candidates: Wire::new(warps),
            older: Wire::new(warps * warps),
            found: Default::default(),
            slot: Wire::new(slot_bits),
            rows: Split::new(&vec![warps; warps]),
        }
    }
}

impl Logic for OldestPick {
    #[hdl_gen]
    fn update(&mut self) {
        self.rows.whole.next = self.older.val();
        self.found.next = false;
        self.slot.next = 0.into();
        for w in 0..self.rows.parts.len() {
            if self.candidates.val().get_bit(w)
                & !(self.rows.parts[w].val() & self.candidates.val()).any()
                & !self.found.val()
            {
                self.found.next = true;
                self.slot.next = w.into();
            }
        }
    }
}

/// GTO (§2.3): the greedy warp (`last`, while `greedy_valid`) if it is a candidate, else the
/// oldest candidate.
#[derive(LogicBlock)]
pub struct GtoPick {
    pub candidates: Wire<In>,
    /// The age matrix, as [`OldestPick`] takes it.
    pub older: Wire<In>,
    pub last: Wire<In>,
    pub last_valid: Signal<In, Bit>,
    pub greedy_valid: Signal<In, Bit>,
    pub found: Signal<Out, Bit>,
    pub slot: Wire<Out>,
    oldest: OldestPick,
}

impl GtoPick {
    pub fn new(warps: usize, slot_bits: usize) -> GtoPick {
        GtoPick {
            candidates: Wire::new(warps),
            older: Wire::new(warps * warps),
            last: Wire::new(slot_bits),
            last_valid: Default::default(),
            greedy_valid: Default::default(),
            found: Default::default(),
            slot: Wire::new(slot_bits),
            oldest: OldestPick::new(warps, slot_bits),
        }
    }
}

impl Logic for GtoPick {
    #[hdl_gen]
    fn update(&mut self) {
        self.oldest.candidates.next = self.candidates.val();
        self.oldest.older.next = self.older.val();
        if self.greedy_valid.val()
            & self.last_valid.val()
            & self.candidates.val().get_bit(self.last.val().index())
        {
            self.found.next = true;
            self.slot.next = self.last.val();
        } else {
            self.found.next = self.oldest.found.val();
            self.slot.next = self.oldest.slot.val();
        }
    }
}

/// Verilog of one warp-sched configuration: one block serves every policy, and the top
/// module keeps only the ports the configuration has.
pub fn generate(cfg: &WarpSchedConfig) -> Design {
    let mut block = WarpSched::new(cfg);
    let design = emit(&mut block, &cfg.module_name());
    let keep: Vec<String> = cfg.ports().into_iter().map(|p| p.name).collect();
    keep_top_ports(design, &keep)
}

// ---------------------------------------------------------------------------------------------
// The latency-hiding policies (mto, motrr, motrr-recency: LH §2.4, §3) and the barrier-aware
// policy (bar-gto: BAR §2–3): the Recency Register edge and the CTA pick.
// ---------------------------------------------------------------------------------------------

/// Stage 0 of the Recency Register's edge (LH §3.6 step 2): the slots in `clear` (the leaving
/// warps) get `R ← 0`, `cnt ← CMAX`, then U4 against `cap` (the cap after the leaving). No
/// recency event. Several warps may leave in one cycle, so here `n = popcount(R) − cap` (0 if
/// negative) can be any number up to W.
///
/// Counters are kept complemented (`cnt_n = CMAX − cnt`), so that the all-zero register reset
/// is the CMAX of LH U7: a saturating increment of `cnt` is a decrement of `cnt_n` that stops at
/// 0, `cnt ← 0` is `cnt_n ← all ones`, and the largest `cnt` is the smallest `cnt_n`.
///
/// U4 as a selection instead of a rank per slot: the first `n` recent slots in the order
/// (`cnt_n` ascending, slot ascending) are every recent slot with `cnt_n < t`, and the lowest
/// `n − less(t)` recent slots with `cnt_n = t`, where `less(v)` counts the recent slots with
/// `cnt_n < v` and `t` is the largest `v` with `less(v) ≤ n`. `less` is monotone, so `t` is found
/// bit by bit from the top (keep a bit when `less` of the prefix with it set is still ≤ n): cb
/// counts over the W slots and one running count over the tie group, instead of W × W
/// comparisons. It runs only when `n > 0`.
#[derive(LogicBlock)]
pub struct RecLeave {
    pub recent: Wire<In>,
    pub cnt_n: Wire<In>,
    pub clear: Wire<In>,
    pub cap: Wire<In>,
    pub recent_out: Wire<Out>,
    pub cnt_n_out: Wire<Out>,
    one: Fixed,
    /// Per search step i: the value bit tried, bit cb − 1 − i.
    probe: Vec<Fixed>,
    rows: Split,
    upd: Vec<Wire<Local>>,
    pack: Concat,
    joined: Wire<Local>,
    pop: Wire<Local>,
    excess: Wire<Local>,
    /// Per search step: the threshold tried and the recent slots below it.
    trial: Vec<Wire<Local>>,
    below_trial: Vec<Wire<Local>>,
    thr: Wire<Local>,
    below_thr: Wire<Local>,
    ties_left: Wire<Local>,
    evict: Wire<Local>,
}

impl RecLeave {
    pub fn new(warps: usize, count_bits: usize, cnt_bits: usize) -> RecLeave {
        RecLeave {
            recent: Wire::new(warps),
            cnt_n: Wire::new(warps * cnt_bits),
            clear: Wire::new(warps),
            cap: Wire::new(count_bits),
            recent_out: Wire::new(warps),
            cnt_n_out: Wire::new(warps * cnt_bits),
            one: Fixed::new(1),
            probe: (0..cnt_bits)
                .map(|i| Fixed::new(1 << (cnt_bits - 1 - i)))
                .collect(),
            rows: Split::new(&vec![cnt_bits; warps]),
            upd: (0..warps).map(|_| Wire::new(cnt_bits)).collect(),
            pack: Concat::new(&vec![cnt_bits; warps]),
            joined: Wire::new(warps),
            pop: Wire::new(count_bits),
            excess: Wire::new(count_bits),
            trial: (0..cnt_bits).map(|_| Wire::new(cnt_bits)).collect(),
            below_trial: (0..cnt_bits).map(|_| Wire::new(count_bits)).collect(),
            thr: Wire::new(cnt_bits),
            below_thr: Wire::new(count_bits),
            ties_left: Wire::new(count_bits),
            evict: Wire::new(warps),
        }
    }
}

impl Logic for RecLeave {
    #[hdl_gen]
    fn update(&mut self) {
        self.rows.whole.next = self.cnt_n.val();
        self.joined.next = self.recent.val() & !self.clear.val();
        self.pop.next = 0.into();
        for w in 0..self.upd.len() {
            // Leave: cnt = CMAX.
            self.upd[w].next = self.rows.parts[w].val();
            if self.clear.val().get_bit(w) {
                self.upd[w].next = 0.into();
            }
            self.pack.parts[w].next = self.upd[w].val();
            self.pop.next = self.pop.val() + ((self.joined.val() >> w) & self.one.val());
        }
        // U4: the first n = popcount(R) − cap recent slots leave.
        self.excess.next = 0.into();
        self.thr.next = 0.into();
        self.below_thr.next = 0.into();
        self.ties_left.next = 0.into();
        self.evict.next = 0.into();
        for i in 0..self.trial.len() {
            self.trial[i].next = 0.into();
            self.below_trial[i].next = 0.into();
        }
        if self.pop.val() > self.cap.val() {
            self.excess.next = self.pop.val() - self.cap.val();
            // t, the largest counter value with at most n recent slots below it.
            for i in 0..self.trial.len() {
                self.trial[i].next = self.thr.val() | self.probe[i].val();
                for w in 0..self.upd.len() {
                    if self.joined.val().get_bit(w) & (self.upd[w].val() < self.trial[i].val()) {
                        self.below_trial[i].next = self.below_trial[i].val() + 1;
                    }
                }
                if self.below_trial[i].val() <= self.excess.val() {
                    self.thr.next = self.trial[i].val();
                    self.below_thr.next = self.below_trial[i].val();
                }
            }
            // Every recent slot below t, then the lowest slots at t until n have left.
            self.ties_left.next = self.excess.val() - self.below_thr.val();
            for w in 0..self.upd.len() {
                if self.joined.val().get_bit(w) {
                    if self.upd[w].val() < self.thr.val() {
                        self.evict.next = self.evict.val().replace_bit(w, true);
                    } else if (self.upd[w].val() == self.thr.val()) & self.ties_left.val().any() {
                        self.evict.next = self.evict.val().replace_bit(w, true);
                        self.ties_left.next = self.ties_left.val() - 1;
                    }
                }
            }
        }
        self.recent_out.next = self.joined.val() & !self.evict.val();
        self.cnt_n_out.next = self.pack.whole.val();
    }
}

/// Stage k ≥ 1 of the Recency Register's edge (LH §3.6 steps 4, 5): the slots in `clear` (the
/// launched ones, stage 1 only) arrive (`R ← 0`, `cnt ← CMAX`), then at most one recency event
/// (U2, U3) in slot `ev` (one-hot; 0 = none), then U4 against `cap` (the cap after the
/// launches). Counters complemented as in [`RecLeave`].
///
/// Here U4 clears at most one slot (n ≤ 1): the recent slot with the smallest `cnt_n`, ties to
/// the lowest slot, found by a linear scan (no rank). Why n ≤ 1: the input is the output of
/// the previous stage, which applied U4 with a cap no larger than this one — [`RecLeave`] with
/// `cap_left` (`W_active` after the leaving), every event stage with `cap_next` (`W_active`
/// after the launches). The launches only add residents (`resident ∧ ¬leaving ⊆
/// resident_next`), so `W_active` after the leaving ≤ `W_active` after the launches, and each
/// cap rule (floor, ceil, below) is monotone in `W_active`: `cap_left ≤ cap_next`. So
/// `popcount(R) ≤ cap` on entry, for any register contents (stage 0 enforces it; it does not
/// rely on the register invariant). `clear` only removes recent slots and the one event adds at
/// most one, so `popcount(R) ≤ cap + 1` before U4.
#[derive(LogicBlock)]
pub struct RecEvent {
    pub recent: Wire<In>,
    pub cnt_n: Wire<In>,
    pub clear: Wire<In>,
    pub ev: Wire<In>,
    pub cap: Wire<In>,
    pub recent_out: Wire<Out>,
    pub cnt_n_out: Wire<Out>,
    /// `cnt_n` of a slot whose counter is 0 (all ones).
    ones: Fixed,
    one: Fixed,
    rows: Split,
    upd: Vec<Wire<Local>>,
    pack: Concat,
    joined: Wire<Local>,
    pop: Wire<Local>,
    ev_valid: Signal<Local, Bit>,
    /// The recent slot with the largest counter so far (the smallest `cnt_n`).
    found: Signal<Local, Bit>,
    oldest_cnt_n: Wire<Local>,
    oldest: Wire<Local>,
}

impl RecEvent {
    pub fn new(warps: usize, slot_bits: usize, count_bits: usize, cnt_bits: usize) -> RecEvent {
        RecEvent {
            recent: Wire::new(warps),
            cnt_n: Wire::new(warps * cnt_bits),
            clear: Wire::new(warps),
            ev: Wire::new(warps),
            cap: Wire::new(count_bits),
            recent_out: Wire::new(warps),
            cnt_n_out: Wire::new(warps * cnt_bits),
            ones: Fixed::new((1u64 << cnt_bits) - 1),
            one: Fixed::new(1),
            rows: Split::new(&vec![cnt_bits; warps]),
            upd: (0..warps).map(|_| Wire::new(cnt_bits)).collect(),
            pack: Concat::new(&vec![cnt_bits; warps]),
            joined: Wire::new(warps),
            pop: Wire::new(count_bits),
            ev_valid: Default::default(),
            found: Default::default(),
            oldest_cnt_n: Wire::new(cnt_bits),
            oldest: Wire::new(slot_bits),
        }
    }
}

impl Logic for RecEvent {
    #[hdl_gen]
    fn update(&mut self) {
        self.rows.whole.next = self.cnt_n.val();
        self.joined.next = (self.recent.val() & !self.clear.val()) | self.ev.val();
        self.ev_valid.next = self.ev.val().any();
        self.pop.next = 0.into();
        self.found.next = false;
        self.oldest_cnt_n.next = 0.into();
        self.oldest.next = 0.into();
        for w in 0..self.upd.len() {
            // Arrive: cnt = CMAX.
            self.upd[w].next = self.rows.parts[w].val();
            if self.clear.val().get_bit(w) {
                self.upd[w].next = 0.into();
            }
            // U2, U3: the event's slot restarts at 0 (and joins, above); every other slot ages.
            if self.ev_valid.val() {
                if self.ev.val().get_bit(w) {
                    self.upd[w].next = self.ones.val();
                } else if self.upd[w].val().any() {
                    self.upd[w].next = self.upd[w].val() - 1;
                }
            }
            self.pack.parts[w].next = self.upd[w].val();
            self.pop.next = self.pop.val() + ((self.joined.val() >> w) & self.one.val());
        }
        // U4 with n ≤ 1: the oldest recent slot leaves.
        self.recent_out.next = self.joined.val();
        if self.pop.val() > self.cap.val() {
            for w in 0..self.upd.len() {
                // Strictly smaller: ties go to the lowest slot.
                if self.joined.val().get_bit(w)
                    & (!self.found.val() | (self.upd[w].val() < self.oldest_cnt_n.val()))
                {
                    self.found.next = true;
                    self.oldest_cnt_n.next = self.upd[w].val();
                    self.oldest.next = w.into();
                }
            }
            self.recent_out.next = self
                .joined
                .val()
                .replace_bit(self.oldest.val().index(), false);
        }
        self.cnt_n_out.next = self.pack.whole.val();
    }
}

/// BAR §3.2–3.3 for one scheduler: among the CTA slots holding a candidate, `T*` = the one
/// with the largest (registered) `bar_cnt`, ties to the lowest CTA slot; then GTO over the
/// candidates of `T*`. With `sched_en` = 0 plain GTO over all candidates.
#[derive(LogicBlock)]
pub struct BarPick {
    pub candidates: Wire<In>,
    pub older: Wire<In>,
    pub last: Wire<In>,
    pub last_valid: Signal<In, Bit>,
    pub greedy_valid: Signal<In, Bit>,
    /// CTA slot of each slot, field `w`.
    pub warp_tb: Wire<In>,
    /// `bar_cnt` of each CTA slot, field `t`.
    pub bar_cnt: Wire<In>,
    pub found: Signal<Out, Bit>,
    pub slot: Wire<Out>,
    sched_en: Fixed,
    tb_rows: Split,
    cnt_rows: Split,
    has: Vec<Signal<Local, Bit>>,
    best_found: Signal<Local, Bit>,
    best_cnt: Wire<Local>,
    best_tb: Wire<Local>,
    in_best: Wire<Local>,
    gto: GtoPick,
}

impl BarPick {
    pub fn new(cfg: &WarpSchedConfig) -> BarPick {
        let (w, ib, ab, c, tbb) = (
            cfg.warps,
            cfg.slot_bits(),
            cfg.count_bits(),
            cfg.barrier.ctas,
            cfg.tb_bits(),
        );
        BarPick {
            candidates: Wire::new(w),
            older: Wire::new(w * w),
            last: Wire::new(ib),
            last_valid: Default::default(),
            greedy_valid: Default::default(),
            warp_tb: Wire::new(w * tbb),
            bar_cnt: Wire::new(c * ab),
            found: Default::default(),
            slot: Wire::new(ib),
            sched_en: Fixed::new(cfg.barrier.sched_en as u64),
            tb_rows: Split::new(&vec![tbb; w]),
            cnt_rows: Split::new(&vec![ab; c]),
            has: (0..c).map(|_| Default::default()).collect(),
            best_found: Default::default(),
            best_cnt: Wire::new(ab),
            best_tb: Wire::new(tbb),
            in_best: Wire::new(w),
            gto: GtoPick::new(w, ib),
        }
    }
}

impl Logic for BarPick {
    #[hdl_gen]
    fn update(&mut self) {
        self.tb_rows.whole.next = self.warp_tb.val();
        self.cnt_rows.whole.next = self.bar_cnt.val();
        self.best_found.next = false;
        self.best_cnt.next = 0.into();
        self.best_tb.next = 0.into();
        self.in_best.next = 0.into();
        for t in 0..self.has.len() {
            self.has[t].next = false;
            for w in 0..self.tb_rows.parts.len() {
                if self.candidates.val().get_bit(w) & (self.tb_rows.parts[w].val() == t) {
                    self.has[t].next = true;
                }
            }
            // Strictly larger: ties go to the lowest CTA slot.
            if self.has[t].val()
                & (!self.best_found.val() | (self.cnt_rows.parts[t].val() > self.best_cnt.val()))
            {
                self.best_found.next = true;
                self.best_cnt.next = self.cnt_rows.parts[t].val();
                self.best_tb.next = t.into();
            }
        }
        for w in 0..self.tb_rows.parts.len() {
            if self.tb_rows.parts[w].val() == self.best_tb.val() {
                self.in_best.next = self.in_best.val().replace_bit(w, true);
            }
        }
        if self.sched_en.val().any() {
            self.gto.candidates.next = self.candidates.val() & self.in_best.val();
        } else {
            self.gto.candidates.next = self.candidates.val();
        }
        self.gto.older.next = self.older.val();
        self.gto.last.next = self.last.val();
        self.gto.last_valid.next = self.last_valid.val();
        self.gto.greedy_valid.next = self.greedy_valid.val();
        self.found.next = self.gto.found.val();
        self.slot.next = self.gto.slot.val();
    }
}

/// warp-sched, every policy. It declares every port any configuration has; [`generate`]
/// removes from the top module the ones the configuration does not have (inputs become
/// constant 0, outputs internal).
///
/// Per cycle: eligibility (`bar-gto`: not waiting) → the policy's pick per scheduler →
/// pointers (per class with split pointers), residency and age, then the Recency Register
/// ([`RecLeave`] for the leaving warps, then a [`RecEvent`] chain: launches with the first
/// event, then one stage per further event) and the barrier table (counts recomputed from the
/// per-slot state after the leaving, arrivals and launches, then the release), as the contract
/// orders the edge.
#[derive(LogicBlock)]
pub struct WarpSched {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub has_inst: Wire<In>,
    pub ready: Wire<In>,
    pub unit_free: Wire<In>,
    pub is_mem: Wire<In>,
    pub launch: Wire<In>,
    pub exit: Wire<In>,
    pub mem_complete: Wire<In>,
    pub cpl_global: Wire<In>,
    pub is_global: Wire<In>,
    pub is_bar: Wire<In>,
    pub launch_tb: Wire<In>,
    pub issue_valid: Wire<Out>,
    pub issue_slot: Wire<Out>,
    pub issue_is_mem: Wire<Out>,
    pub bar_release: Wire<Out>,
    pub tb_has_waiter: Wire<Out>,
    pub dbg_resident: Wire<Out>,
    pub dbg_last_valid: Wire<Out>,
    pub dbg_last_issued: Wire<Out>,
    pub dbg_greedy_valid: Wire<Out>,
    pub dbg_older: Wire<Out>,
    pub dbg_cmp_last_valid: Wire<Out>,
    pub dbg_cmp_last_issued: Wire<Out>,
    pub dbg_cmp_greedy_valid: Wire<Out>,
    pub dbg_recent: Wire<Out>,
    pub dbg_rec_cnt: Wire<Out>,
    pub dbg_w_active: Wire<Out>,
    pub dbg_waiting: Wire<Out>,
    pub dbg_warp_tb: Wire<Out>,
    pub dbg_bar_cnt: Wire<Out>,
    pub dbg_bar_live: Wire<Out>,

    // State every policy has: residency, age, the pointer P (the memory pointer Pm when split).
    resident: WordReg,
    older: Vec<WordReg>,
    last_issued: Vec<WordReg>,
    last_valid: Vec<WordReg>,
    greedy_valid: Vec<WordReg>,
    // Split pointers only: the compute pointer Pc.
    cmp_last_issued: Vec<WordReg>,
    cmp_last_valid: Vec<WordReg>,
    cmp_greedy_valid: Vec<WordReg>,
    // motrr-recency only (one entry / one per slot): the Recency Register.
    rec_recent: Vec<WordReg>,
    rec_cnt_n: Vec<WordReg>,
    // bar-gto only: per slot waiting bits (one register) and CTA slot; per CTA the BLUT.
    bar_waiting: Vec<WordReg>,
    warp_tb: Vec<WordReg>,
    bar_cnt: Vec<WordReg>,
    bar_live: Vec<WordReg>,

    // Generation-time constants.
    supervised: Vec<Fixed>,
    below: Vec<Fixed>,
    /// The memory queue is GTO-ordered (LH G1), else oldest first.
    mem_greedy_en: Fixed,
    /// mto's compute queue is GTO-ordered (LH G17), else oldest first.
    cmp_greedy_en: Fixed,
    /// Recency: events are MEM issues (LH G3), else completions.
    trig_issue: Fixed,
    /// Recency: only global/local accesses are events (LH G4).
    class_global: Fixed,
    /// Recency: U4's cap rule, 0 floor, 1 ceil, 2 below (LH G6).
    cap_mode: Fixed,
    one: Fixed,

    // Selectors, per scheduler, present only under the policy that uses them.
    lrr: Vec<RotatePick>,
    gto: Vec<GtoPick>,
    mem_pick: Vec<GtoPick>,
    cmp_gto: Vec<GtoPick>,
    cmp_rot: Vec<RotatePick>,
    bar_pick: Vec<BarPick>,
    // Recency Register edge: stage 0 = leaving warps (`rec_leave`); stage k ≥ 1 = event k
    // (`rec[k − 1]`; stage 1 also clears the launched slots).
    rec_leave: Vec<RecLeave>,
    rec: Vec<RecEvent>,

    eligible: Wire<Local>,
    candidates: Vec<Wire<Local>>,
    mem_cand: Vec<Wire<Local>>,
    cmp_cand: Vec<Wire<Local>>,
    pc_last: Vec<Wire<Local>>,
    pc_valid: Vec<Signal<Local, Bit>>,
    pc_greedy: Vec<Signal<Local, Bit>>,
    cmp_found: Vec<Signal<Local, Bit>>,
    cmp_slot: Vec<Wire<Local>>,
    pick_valid: Vec<Signal<Local, Bit>>,
    pick_slot: Vec<Wire<Local>>,
    pick_mem: Vec<Signal<Local, Bit>>,
    p_write: Vec<Signal<Local, Bit>>,
    greedy_lost: Vec<Signal<Local, Bit>>,
    cmp_greedy_lost: Vec<Signal<Local, Bit>>,
    issued: Wire<Local>,
    leaving: Wire<Local>,
    resident_next: Wire<Local>,
    stay: Wire<Local>,
    w_active: Wire<Local>,
    w_active_left: Wire<Local>,
    w_active_next: Wire<Local>,
    cap_left: Wire<Local>,
    cap_next: Wire<Local>,
    ev_src: Wire<Local>,
    /// Per stage k ≥ 1: the event slots not yet taken by stages 1 … k − 1, and the lowest of
    /// them (one-hot), stage k's event. Entry 0 is unused.
    ev_rest: Vec<Wire<Local>>,
    ev_hot: Vec<Wire<Local>>,
    /// The Recency Register after stage k.
    st_recent: Vec<Wire<Local>>,
    st_cnt_n: Vec<Wire<Local>>,
    rec_rows: Split,
    waiting_next: Wire<Local>,
    tb_next: Vec<Wire<Local>>,
    launch_tb_rows: Split,
    cnt_next: Vec<Wire<Local>>,
    live_next: Vec<Wire<Local>>,
    released: Wire<Local>,

    pack_issue_valid: Concat,
    pack_issue_slot: Concat,
    pack_issue_is_mem: Concat,
    pack_last_valid: Concat,
    pack_last_issued: Concat,
    pack_greedy_valid: Concat,
    pack_cmp_last_valid: Concat,
    pack_cmp_last_issued: Concat,
    pack_cmp_greedy_valid: Concat,
    pack_older: Concat,
    pack_rec_cnt_n: Concat,
    pack_warp_tb: Concat,
    pack_bar_cnt: Concat,
    pack_bar_live: Concat,
}

impl WarpSched {
    pub fn new(cfg: &WarpSchedConfig) -> WarpSched {
        let (w, s, ib) = (cfg.warps, cfg.schedulers, cfg.slot_bits());
        let (ab, c, tbb, cb) = (
            cfg.count_bits(),
            cfg.barrier.ctas,
            cfg.tb_bits(),
            cfg.recency.cnt_bits,
        );
        let p = cfg.issue_policy;
        let split = cfg.split_pointers();
        let rec = cfg.has_recency();
        let bar = cfg.has_barrier();
        let mask_of = |slots: &mut dyn Iterator<Item = usize>| slots.fold(0u64, |m, j| m | 1 << j);
        let regs = |n: usize, width: usize| (0..n).map(|_| WordReg::new(width)).collect::<Vec<_>>();
        let when = |on: bool, n: usize| if on { n } else { 0 };
        let events = match cfg.recency.trigger {
            RecTrigger::Complete => cfg.recency.n_cpl,
            RecTrigger::Issue => s,
        };
        let stages = when(rec, 1 + events);
        WarpSched {
            clock: Default::default(),
            reset: Default::default(),
            has_inst: Wire::new(w),
            ready: Wire::new(w),
            unit_free: Wire::new(w),
            is_mem: Wire::new(w),
            launch: Wire::new(w),
            exit: Wire::new(w),
            mem_complete: Wire::new(w),
            cpl_global: Wire::new(w),
            is_global: Wire::new(w),
            is_bar: Wire::new(w),
            launch_tb: Wire::new(w * tbb),
            issue_valid: Wire::new(s),
            issue_slot: Wire::new(s * ib),
            issue_is_mem: Wire::new(s),
            bar_release: Wire::new(c),
            tb_has_waiter: Wire::new(c),
            dbg_resident: Wire::new(w),
            dbg_last_valid: Wire::new(s),
            dbg_last_issued: Wire::new(s * ib),
            dbg_greedy_valid: Wire::new(s),
            dbg_older: Wire::new(w * w),
            dbg_cmp_last_valid: Wire::new(s),
            dbg_cmp_last_issued: Wire::new(s * ib),
            dbg_cmp_greedy_valid: Wire::new(s),
            dbg_recent: Wire::new(w),
            dbg_rec_cnt: Wire::new(w * cb),
            dbg_w_active: Wire::new(ab),
            dbg_waiting: Wire::new(w),
            dbg_warp_tb: Wire::new(w * tbb),
            dbg_bar_cnt: Wire::new(c * ab),
            dbg_bar_live: Wire::new(c * ab),
            resident: WordReg::new(w),
            older: regs(w, w),
            last_issued: regs(s, ib),
            last_valid: regs(s, 1),
            greedy_valid: regs(s, 1),
            cmp_last_issued: regs(when(split, s), ib),
            cmp_last_valid: regs(when(split, s), 1),
            cmp_greedy_valid: regs(when(split, s), 1),
            rec_recent: regs(when(rec, 1), w),
            rec_cnt_n: regs(when(rec, w), cb),
            bar_waiting: regs(when(bar, 1), w),
            warp_tb: regs(when(bar, w), tbb),
            bar_cnt: regs(when(bar, c), ab),
            bar_live: regs(when(bar, c), ab),
            supervised: (0..s)
                .map(|k| Fixed::new(mask_of(&mut cfg.supervised(k))))
                .collect(),
            below: (0..w).map(|j| Fixed::new(mask_of(&mut (0..j)))).collect(),
            mem_greedy_en: Fixed::new((cfg.mem_order == QueueOrder::Gto) as u64),
            cmp_greedy_en: Fixed::new((cfg.mto_comp_order == QueueOrder::Gto) as u64),
            trig_issue: Fixed::new((cfg.recency.trigger == RecTrigger::Issue) as u64),
            class_global: Fixed::new((cfg.recency.class == RecClass::Global) as u64),
            cap_mode: Fixed::new(match cfg.recency.cap {
                RecCap::Floor => 0,
                RecCap::Ceil => 1,
                RecCap::Below => 2,
            }),
            lrr: (0..when(p == IssuePolicy::Lrr, s))
                .map(|_| RotatePick::new(w, ib))
                .collect(),
            gto: (0..when(p == IssuePolicy::Gto, s))
                .map(|_| GtoPick::new(w, ib))
                .collect(),
            one: Fixed::new(1),
            mem_pick: (0..when(p.class_split(), s))
                .map(|_| GtoPick::new(w, ib))
                .collect(),
            cmp_gto: (0..when(p == IssuePolicy::Mto, s))
                .map(|_| GtoPick::new(w, ib))
                .collect(),
            cmp_rot: (0..when(
                matches!(p, IssuePolicy::Motrr | IssuePolicy::MotrrRecency),
                s,
            ))
                .map(|_| RotatePick::new(w, ib))
                .collect(),
            bar_pick: (0..when(bar, s)).map(|_| BarPick::new(cfg)).collect(),
            rec_leave: (0..when(rec, 1))
                .map(|_| RecLeave::new(w, ab, cb))
                .collect(),
            rec: (0..when(rec, events))
                .map(|_| RecEvent::new(w, ib, ab, cb))
                .collect(),
            eligible: Wire::new(w),
            candidates: (0..s).map(|_| Wire::new(w)).collect(),
            mem_cand: (0..s).map(|_| Wire::new(w)).collect(),
            cmp_cand: (0..s).map(|_| Wire::new(w)).collect(),
            pc_last: (0..s).map(|_| Wire::new(ib)).collect(),
            pc_valid: (0..s).map(|_| Default::default()).collect(),
            pc_greedy: (0..s).map(|_| Default::default()).collect(),
            cmp_found: (0..s).map(|_| Default::default()).collect(),
            cmp_slot: (0..s).map(|_| Wire::new(ib)).collect(),
            pick_valid: (0..s).map(|_| Default::default()).collect(),
            pick_slot: (0..s).map(|_| Wire::new(ib)).collect(),
            pick_mem: (0..s).map(|_| Default::default()).collect(),
            p_write: (0..s).map(|_| Default::default()).collect(),
            greedy_lost: (0..s).map(|_| Default::default()).collect(),
            cmp_greedy_lost: (0..s).map(|_| Default::default()).collect(),
            issued: Wire::new(w),
            leaving: Wire::new(w),
            resident_next: Wire::new(w),
            stay: Wire::new(w),
            w_active: Wire::new(ab),
            w_active_left: Wire::new(ab),
            w_active_next: Wire::new(ab),
            cap_left: Wire::new(ab),
            cap_next: Wire::new(ab),
            ev_src: Wire::new(w),
            ev_rest: (0..stages).map(|_| Wire::new(w)).collect(),
            ev_hot: (0..stages).map(|_| Wire::new(w)).collect(),
            st_recent: (0..stages).map(|_| Wire::new(w)).collect(),
            st_cnt_n: (0..stages).map(|_| Wire::new(w * cb)).collect(),
            rec_rows: Split::new(&vec![cb; w]),
            waiting_next: Wire::new(w),
            tb_next: (0..when(bar, w)).map(|_| Wire::new(tbb)).collect(),
            launch_tb_rows: Split::new(&vec![tbb; w]),
            cnt_next: (0..when(bar, c)).map(|_| Wire::new(ab)).collect(),
            live_next: (0..when(bar, c)).map(|_| Wire::new(ab)).collect(),
            released: Wire::new(c),
            pack_issue_valid: Concat::new(&vec![1; s]),
            pack_issue_slot: Concat::new(&vec![ib; s]),
            pack_issue_is_mem: Concat::new(&vec![1; s]),
            pack_last_valid: Concat::new(&vec![1; s]),
            pack_last_issued: Concat::new(&vec![ib; s]),
            pack_greedy_valid: Concat::new(&vec![1; s]),
            pack_cmp_last_valid: Concat::new(&vec![1; s]),
            pack_cmp_last_issued: Concat::new(&vec![ib; s]),
            pack_cmp_greedy_valid: Concat::new(&vec![1; s]),
            pack_older: Concat::new(&vec![w; w]),
            pack_rec_cnt_n: Concat::new(&vec![cb; w]),
            pack_warp_tb: Concat::new(&vec![tbb; w]),
            pack_bar_cnt: Concat::new(&vec![ab; c]),
            pack_bar_live: Concat::new(&vec![ab; c]),
        }
    }
}

impl Logic for WarpSched {
    #[hdl_gen]
    fn update(&mut self) {
        self.resident.clock.next = self.clock.val();
        self.resident.reset.next = self.reset.val();
        for w in 0..self.older.len() {
            self.older[w].clock.next = self.clock.val();
            self.older[w].reset.next = self.reset.val();
        }
        for s in 0..self.last_issued.len() {
            self.last_issued[s].clock.next = self.clock.val();
            self.last_issued[s].reset.next = self.reset.val();
            self.last_valid[s].clock.next = self.clock.val();
            self.last_valid[s].reset.next = self.reset.val();
            self.greedy_valid[s].clock.next = self.clock.val();
            self.greedy_valid[s].reset.next = self.reset.val();
        }
        for s in 0..self.cmp_last_issued.len() {
            self.cmp_last_issued[s].clock.next = self.clock.val();
            self.cmp_last_issued[s].reset.next = self.reset.val();
            self.cmp_last_valid[s].clock.next = self.clock.val();
            self.cmp_last_valid[s].reset.next = self.reset.val();
            self.cmp_greedy_valid[s].clock.next = self.clock.val();
            self.cmp_greedy_valid[s].reset.next = self.reset.val();
        }
        for r in 0..self.rec_recent.len() {
            self.rec_recent[r].clock.next = self.clock.val();
            self.rec_recent[r].reset.next = self.reset.val();
        }
        for w in 0..self.rec_cnt_n.len() {
            self.rec_cnt_n[w].clock.next = self.clock.val();
            self.rec_cnt_n[w].reset.next = self.reset.val();
        }
        for r in 0..self.bar_waiting.len() {
            self.bar_waiting[r].clock.next = self.clock.val();
            self.bar_waiting[r].reset.next = self.reset.val();
        }
        for w in 0..self.warp_tb.len() {
            self.warp_tb[w].clock.next = self.clock.val();
            self.warp_tb[w].reset.next = self.reset.val();
        }
        for t in 0..self.bar_cnt.len() {
            self.bar_cnt[t].clock.next = self.clock.val();
            self.bar_cnt[t].reset.next = self.reset.val();
            self.bar_live[t].clock.next = self.clock.val();
            self.bar_live[t].reset.next = self.reset.val();
        }

        // Defaults of the outputs and locals a configuration may not use.
        self.bar_release.next = 0.into();
        self.tb_has_waiter.next = 0.into();
        self.dbg_recent.next = 0.into();
        self.dbg_rec_cnt.next = 0.into();
        self.dbg_w_active.next = 0.into();
        self.dbg_waiting.next = 0.into();
        self.dbg_warp_tb.next = 0.into();
        self.dbg_bar_cnt.next = 0.into();
        self.dbg_bar_live.next = 0.into();
        self.issued.next = 0.into();
        self.stay.next = 0.into();
        self.w_active.next = 0.into();
        self.w_active_left.next = 0.into();
        self.w_active_next.next = 0.into();
        self.cap_left.next = 0.into();
        self.cap_next.next = 0.into();
        self.ev_src.next = 0.into();
        self.waiting_next.next = 0.into();
        self.released.next = 0.into();
        self.rec_rows.whole.next = 0.into();
        self.launch_tb_rows.whole.next = self.launch_tb.val();
        for w in 0..self.older.len() {
            self.pack_rec_cnt_n.parts[w].next = 0.into();
            self.pack_warp_tb.parts[w].next = 0.into();
        }
        for t in 0..self.released.width() {
            self.pack_bar_cnt.parts[t].next = 0.into();
            self.pack_bar_live.parts[t].next = 0.into();
        }
        for k in 0..self.ev_hot.len() {
            self.ev_rest[k].next = 0.into();
            self.ev_hot[k].next = 0.into();
        }

        // 1. Eligibility (bar-gto: a warp waiting at its barrier is not eligible).
        self.eligible.next =
            self.resident.q.val() & self.has_inst.val() & self.ready.val() & self.unit_free.val();
        for r in 0..self.bar_waiting.len() {
            self.eligible.next = self.eligible.val() & !self.bar_waiting[r].q.val();
        }
        for s in 0..self.candidates.len() {
            self.candidates[s].next = self.eligible.val() & self.supervised[s].val();
            self.mem_cand[s].next = self.candidates[s].val() & self.is_mem.val();
            self.cmp_cand[s].next = self.candidates[s].val() & !self.is_mem.val();
            self.pick_valid[s].next = false;
            self.pick_slot[s].next = 0.into();
            self.cmp_found[s].next = false;
            self.cmp_slot[s].next = 0.into();
            // The compute pointer Pc: P itself unless pointers are split.
            self.pc_last[s].next = self.last_issued[s].q.val();
            self.pc_valid[s].next = self.last_valid[s].q.val().any();
            self.pc_greedy[s].next = self.greedy_valid[s].q.val().any();
        }
        for s in 0..self.cmp_last_issued.len() {
            self.pc_last[s].next = self.cmp_last_issued[s].q.val();
            self.pc_valid[s].next = self.cmp_last_valid[s].q.val().any();
            self.pc_greedy[s].next = self.cmp_greedy_valid[s].q.val().any();
        }

        // 2. Per-policy pick. LRR (LH §2.2) and GTO (§2.3) over all candidates.
        for s in 0..self.lrr.len() {
            self.lrr[s].candidates.next = self.candidates[s].val();
            self.lrr[s].last.next = self.last_issued[s].q.val();
            self.lrr[s].last_valid.next = self.last_valid[s].q.val().any();
            self.pick_valid[s].next = self.lrr[s].found.val();
            self.pick_slot[s].next = self.lrr[s].slot.val();
        }
        for s in 0..self.gto.len() {
            self.gto[s].candidates.next = self.candidates[s].val();
            // The age matrix masked by residency, as dbg_older shows it: candidates are
            // resident, so the mask changes no decision.
            self.gto[s].older.next = self.pack_older.whole.val();
            self.gto[s].last.next = self.last_issued[s].q.val();
            self.gto[s].last_valid.next = self.last_valid[s].q.val().any();
            self.gto[s].greedy_valid.next = self.greedy_valid[s].q.val().any();
            self.pick_valid[s].next = self.gto[s].found.val();
            self.pick_slot[s].next = self.gto[s].slot.val();
        }
        // Class-split (LH §3.4): the compute queue, then the memory queue, which wins whenever
        // it has a candidate.
        for s in 0..self.cmp_gto.len() {
            self.cmp_gto[s].candidates.next = self.cmp_cand[s].val();
            self.cmp_gto[s].older.next = self.pack_older.whole.val();
            self.cmp_gto[s].last.next = self.pc_last[s].val();
            self.cmp_gto[s].last_valid.next = self.pc_valid[s].val();
            self.cmp_gto[s].greedy_valid.next =
                self.pc_greedy[s].val() & self.cmp_greedy_en.val().any();
            self.cmp_found[s].next = self.cmp_gto[s].found.val();
            self.cmp_slot[s].next = self.cmp_gto[s].slot.val();
        }
        for s in 0..self.cmp_rot.len() {
            self.cmp_rot[s].candidates.next = self.cmp_cand[s].val();
            self.cmp_rot[s].last.next = self.pc_last[s].val();
            self.cmp_rot[s].last_valid.next = self.pc_valid[s].val();
            self.cmp_found[s].next = self.cmp_rot[s].found.val();
            self.cmp_slot[s].next = self.cmp_rot[s].slot.val();
        }
        // motrr-recency: the recent compute candidates first, if there is one.
        for r in 0..self.rec_recent.len() {
            for s in 0..self.cmp_rot.len() {
                if (self.cmp_cand[s].val() & self.rec_recent[r].q.val()).any() {
                    self.cmp_rot[s].candidates.next =
                        self.cmp_cand[s].val() & self.rec_recent[r].q.val();
                } else {
                    self.cmp_rot[s].candidates.next =
                        self.cmp_cand[s].val() & !self.rec_recent[r].q.val();
                }
            }
        }
        for s in 0..self.mem_pick.len() {
            self.mem_pick[s].candidates.next = self.mem_cand[s].val();
            self.mem_pick[s].older.next = self.pack_older.whole.val();
            self.mem_pick[s].last.next = self.last_issued[s].q.val();
            self.mem_pick[s].last_valid.next = self.last_valid[s].q.val().any();
            self.mem_pick[s].greedy_valid.next =
                self.greedy_valid[s].q.val().any() & self.mem_greedy_en.val().any();
            if self.mem_pick[s].found.val() {
                self.pick_valid[s].next = true;
                self.pick_slot[s].next = self.mem_pick[s].slot.val();
            } else {
                self.pick_valid[s].next = self.cmp_found[s].val();
                self.pick_slot[s].next = self.cmp_slot[s].val();
            }
        }
        for s in 0..self.bar_pick.len() {
            self.bar_pick[s].candidates.next = self.candidates[s].val();
            self.bar_pick[s].older.next = self.pack_older.whole.val();
            self.bar_pick[s].last.next = self.last_issued[s].q.val();
            self.bar_pick[s].last_valid.next = self.last_valid[s].q.val().any();
            self.bar_pick[s].greedy_valid.next = self.greedy_valid[s].q.val().any();
            self.bar_pick[s].warp_tb.next = self.pack_warp_tb.whole.val();
            self.bar_pick[s].bar_cnt.next = self.pack_bar_cnt.whole.val();
            self.pick_valid[s].next = self.bar_pick[s].found.val();
            self.pick_slot[s].next = self.bar_pick[s].slot.val();
        }

        // 3. Outputs and pointers (edge step 1).
        for s in 0..self.candidates.len() {
            self.pick_mem[s].next = self.pick_valid[s].val()
                & self.is_mem.val().get_bit(self.pick_slot[s].val().index());
            self.pack_issue_valid.parts[s].next = self.pick_valid[s].val().into();
            self.pack_issue_slot.parts[s].next = 0.into();
            if self.pick_valid[s].val() {
                self.pack_issue_slot.parts[s].next = self.pick_slot[s].val();
                self.issued.next = self
                    .issued
                    .val()
                    .replace_bit(self.pick_slot[s].val().index(), true);
            }
            self.pack_issue_is_mem.parts[s].next = self.pick_mem[s].val().into();
            // P moves on every issue, or with split pointers (Pm) on a MEM issue only.
            self.p_write[s].next = self.pick_valid[s].val();
        }
        for s in 0..self.cmp_last_issued.len() {
            self.p_write[s].next = self.pick_mem[s].val();
        }
        for s in 0..self.candidates.len() {
            self.last_issued[s].d.next = self.last_issued[s].q.val();
            if self.p_write[s].val() {
                self.last_issued[s].d.next = self.pick_slot[s].val();
            }
            // The warp in the slot the pointer designates after this issue leaves or is
            // replaced: its greediness ends (also when it issued this cycle).
            self.greedy_lost[s].next = self.exit.val().get_bit(self.last_issued[s].d.val().index())
                | self
                    .launch
                    .val()
                    .get_bit(self.last_issued[s].d.val().index());
            self.last_valid[s].d.next = self.last_valid[s].q.val() | self.p_write[s].val().into();
            self.greedy_valid[s].d.next = (self.greedy_valid[s].q.val()
                | self.p_write[s].val().into())
                & (!self.greedy_lost[s].val()).into();
            self.pack_last_valid.parts[s].next = self.last_valid[s].q.val();
            self.pack_last_issued.parts[s].next = self.last_issued[s].q.val();
            self.pack_greedy_valid.parts[s].next = self.greedy_valid[s].q.val();
            self.pack_cmp_last_valid.parts[s].next = 0.into();
            self.pack_cmp_last_issued.parts[s].next = 0.into();
            self.pack_cmp_greedy_valid.parts[s].next = 0.into();
            self.cmp_greedy_lost[s].next = false;
        }
        // Split pointers: Pc moves on a COMP issue.
        for s in 0..self.cmp_last_issued.len() {
            self.cmp_last_issued[s].d.next = self.cmp_last_issued[s].q.val();
            if self.pick_valid[s].val() & !self.pick_mem[s].val() {
                self.cmp_last_issued[s].d.next = self.pick_slot[s].val();
            }
            self.cmp_greedy_lost[s].next = self
                .exit
                .val()
                .get_bit(self.cmp_last_issued[s].d.val().index())
                | self
                    .launch
                    .val()
                    .get_bit(self.cmp_last_issued[s].d.val().index());
            self.cmp_last_valid[s].d.next = self.cmp_last_valid[s].q.val()
                | (self.pick_valid[s].val() & !self.pick_mem[s].val()).into();
            self.cmp_greedy_valid[s].d.next = (self.cmp_greedy_valid[s].q.val()
                | (self.pick_valid[s].val() & !self.pick_mem[s].val()).into())
                & (!self.cmp_greedy_lost[s].val()).into();
            self.pack_cmp_last_valid.parts[s].next = self.cmp_last_valid[s].q.val();
            self.pack_cmp_last_issued.parts[s].next = self.cmp_last_issued[s].q.val();
            self.pack_cmp_greedy_valid.parts[s].next = self.cmp_greedy_valid[s].q.val();
        }

        // Residency and age (edge steps 2 and 4).
        self.leaving.next = self.resident.q.val() & (self.exit.val() | self.launch.val());
        self.resident_next.next = self.launch.val() | (self.resident.q.val() & !self.exit.val());
        self.resident.d.next = self.resident_next.val();
        for w in 0..self.older.len() {
            if self.launch.val().get_bit(w) {
                self.older[w].d.next =
                    (self.resident.q.val() & !self.exit.val() & !self.launch.val())
                        | (self.launch.val() & self.below[w].val());
            } else {
                self.older[w].d.next = self.older[w].q.val() & !self.launch.val();
            }
            self.pack_older.parts[w].next = 0.into();
            if self.resident.q.val().get_bit(w) {
                self.pack_older.parts[w].next = self.older[w].q.val() & self.resident.q.val();
            }
        }

        // Recency Register (edge steps 2, 4, 5).
        for r in 0..self.rec_recent.len() {
            // W_active before, after the leaving and after the launches: popcounts, adding
            // bits (no branch per slot in the simulator).
            self.stay.next = self.resident.q.val() & !self.leaving.val();
            for w in 0..self.older.len() {
                self.w_active.next =
                    self.w_active.val() + ((self.resident.q.val() >> w) & self.one.val());
                self.w_active_left.next =
                    self.w_active_left.val() + ((self.stay.val() >> w) & self.one.val());
                self.w_active_next.next =
                    self.w_active_next.val() + ((self.resident_next.val() >> w) & self.one.val());
                self.pack_rec_cnt_n.parts[w].next = self.rec_cnt_n[w].q.val();
            }
            // Recency events per slot, resident after the launches (LH U1, G3, G4).
            if self.trig_issue.val().any() {
                self.ev_src.next = self.issued.val() & self.is_mem.val() & self.resident_next.val();
                if self.class_global.val().any() {
                    self.ev_src.next = self.ev_src.val() & self.is_global.val();
                }
            } else {
                self.ev_src.next = self.mem_complete.val() & self.resident_next.val();
                if self.class_global.val().any() {
                    self.ev_src.next = self.ev_src.val() & self.cpl_global.val();
                }
            }
            // U4's cap from W_active (LH G6).
            self.cap_left.next = self.w_active_left.val() >> 1;
            self.cap_next.next = self.w_active_next.val() >> 1;
            if self.cap_mode.val() == 1 {
                self.cap_left.next = (self.w_active_left.val() + 1) >> 1;
                self.cap_next.next = (self.w_active_next.val() + 1) >> 1;
            }
            if self.cap_mode.val() == 2 {
                self.cap_left.next = 0.into();
                if self.w_active_left.val().any() {
                    self.cap_left.next = ((self.w_active_left.val() + 1) >> 1) - 1;
                }
                self.cap_next.next = 0.into();
                if self.w_active_next.val().any() {
                    self.cap_next.next = ((self.w_active_next.val() + 1) >> 1) - 1;
                }
            }
            // Stage 0: the leaving warps, U4 against W_active before the launches (LH U6).
            self.rec_leave[r].recent.next = self.rec_recent[r].q.val();
            self.rec_leave[r].cnt_n.next = self.pack_rec_cnt_n.whole.val();
            self.rec_leave[r].clear.next = self.leaving.val();
            self.rec_leave[r].cap.next = self.cap_left.val();
            self.st_recent[0].next = self.rec_leave[r].recent_out.val();
            self.st_cnt_n[0].next = self.rec_leave[r].cnt_n_out.val();
            self.dbg_recent.next = self.rec_recent[r].q.val();
            self.dbg_rec_cnt.next = !self.pack_rec_cnt_n.whole.val();
            self.dbg_w_active.next = self.w_active.val();
        }
        // Stage k ≥ 1: event k = the lowest event slot above event k−1 (n_cpl lowest
        // completions, or the cycle's MEM issues in ascending slot order): the lowest bit of
        // the events not yet taken, x & (~x + 1).
        for k in 1..self.ev_hot.len() {
            if k == 1 {
                self.ev_rest[k].next = self.ev_src.val();
            } else {
                self.ev_rest[k].next = self.ev_rest[k - 1].val() & !self.ev_hot[k - 1].val();
            }
            self.ev_hot[k].next = self.ev_rest[k].val() & (!self.ev_rest[k].val() + 1);
            self.rec[k - 1].recent.next = self.st_recent[k - 1].val();
            self.rec[k - 1].cnt_n.next = self.st_cnt_n[k - 1].val();
            self.rec[k - 1].clear.next = 0.into();
            if k == 1 {
                self.rec[k - 1].clear.next = self.launch.val();
            }
            self.rec[k - 1].ev.next = self.ev_hot[k].val();
            // cap_next ≥ cap_left: what lets RecEvent clear at most one slot.
            self.rec[k - 1].cap.next = self.cap_next.val();
            self.st_recent[k].next = self.rec[k - 1].recent_out.val();
            self.st_cnt_n[k].next = self.rec[k - 1].cnt_n_out.val();
            // The last stage's outputs are the next state (later stages overwrite).
            self.rec_recent[0].d.next = self.st_recent[k].val();
            self.rec_rows.whole.next = self.st_cnt_n[k].val();
        }
        for w in 0..self.rec_cnt_n.len() {
            self.rec_cnt_n[w].d.next = self.rec_rows.parts[w].val();
        }

        // Barrier table (edge steps 2, 3, 4, 6): the per-slot state after the leaving, the
        // arrivals and the launches, then per CTA the counts and the release.
        for r in 0..self.bar_waiting.len() {
            self.waiting_next.next = (self.bar_waiting[r].q.val() & !self.leaving.val())
                | (self.issued.val() & self.is_bar.val() & !self.leaving.val());
            self.waiting_next.next = self.waiting_next.val() & !self.launch.val();
            self.dbg_waiting.next = self.bar_waiting[r].q.val();
        }
        for w in 0..self.warp_tb.len() {
            self.tb_next[w].next = self.warp_tb[w].q.val();
            if self.launch.val().get_bit(w) {
                self.tb_next[w].next = self.launch_tb_rows.parts[w].val();
            }
            self.warp_tb[w].d.next = self.tb_next[w].val();
            if self.resident.q.val().get_bit(w) {
                self.pack_warp_tb.parts[w].next = self.warp_tb[w].q.val();
            }
        }
        for t in 0..self.bar_cnt.len() {
            self.cnt_next[t].next = 0.into();
            self.live_next[t].next = 0.into();
            for w in 0..self.warp_tb.len() {
                if self.resident_next.val().get_bit(w) & (self.tb_next[w].val() == t) {
                    self.live_next[t].next = self.live_next[t].val() + 1;
                    if self.waiting_next.val().get_bit(w) {
                        self.cnt_next[t].next = self.cnt_next[t].val() + 1;
                    }
                }
            }
            self.bar_cnt[t].d.next = self.cnt_next[t].val();
            if self.cnt_next[t].val().any() & (self.cnt_next[t].val() == self.live_next[t].val()) {
                self.released.next = self.released.val().replace_bit(t, true);
                self.bar_cnt[t].d.next = 0.into();
            }
            self.bar_live[t].d.next = self.live_next[t].val();
            self.pack_bar_cnt.parts[t].next = self.bar_cnt[t].q.val();
            self.pack_bar_live.parts[t].next = self.bar_live[t].q.val();
            if self.bar_cnt[t].q.val().any() {
                self.tb_has_waiter.next = self.tb_has_waiter.val().replace_bit(t, true);
            }
        }
        for r in 0..self.bar_waiting.len() {
            for w in 0..self.warp_tb.len() {
                if self.released.val().get_bit(self.tb_next[w].val().index()) {
                    self.waiting_next.next = self.waiting_next.val().replace_bit(w, false);
                }
            }
            self.bar_waiting[r].d.next = self.waiting_next.val();
            self.bar_release.next = self.released.val();
            self.dbg_warp_tb.next = self.pack_warp_tb.whole.val();
            self.dbg_bar_cnt.next = self.pack_bar_cnt.whole.val();
            self.dbg_bar_live.next = self.pack_bar_live.whole.val();
        }

        self.issue_valid.next = self.pack_issue_valid.whole.val();
        self.issue_slot.next = self.pack_issue_slot.whole.val();
        self.issue_is_mem.next = self.pack_issue_is_mem.whole.val();
        self.dbg_resident.next = self.resident.q.val();
        self.dbg_last_valid.next = self.pack_last_valid.whole.val();
        self.dbg_last_issued.next = self.pack_last_issued.whole.val();
        self.dbg_greedy_valid.next = self.pack_greedy_valid.whole.val();
        self.dbg_cmp_last_valid.next = self.pack_cmp_last_valid.whole.val();
        self.dbg_cmp_last_issued.next = self.pack_cmp_last_issued.whole.val();
        self.dbg_cmp_greedy_valid.next = self.pack_cmp_greedy_valid.whole.val();
        self.dbg_older.next = self.pack_older.whole.val();
    }
}

/// Remove from the top module of `design` every port not in `keep` (besides the clock): an
/// input becomes a wire tied to 0, an output an internal register. Lets one block serve
/// configurations whose port lists differ.
fn keep_top_ports(mut design: Design, keep: &[String]) -> Design {
    let module = design.module.clone();
    let head = format!("module {module}(");
    let tail = format!("endmodule // {module}\n");
    let start = design.verilog.find(&head).expect("top module");
    let end = start + design.verilog[start..].find(&tail).expect("top module end");
    let top = &design.verilog[start..end];
    let list_end = top.find(");").expect("port list");
    let ports: Vec<&str> = top[head.len()..list_end].split(',').collect();
    let kept = |p: &str| p == "clock" || keep.iter().any(|k| k == p);
    let mut body = top[list_end..].to_string();
    for p in ports.iter().filter(|p| !kept(p)) {
        // Declarations read `input wire  [N:0] name;` / `output reg  name;`.
        let mut done = false;
        for (from, to) in [("input wire  ", "wire  "), ("output reg  ", "reg  ")] {
            let lines: Vec<String> = body.lines().map(str::to_string).collect();
            for line in &lines {
                let t = line.trim_start();
                if t.starts_with(from) && t.ends_with(&format!(" {p};")) {
                    let decl = t.replacen(from, to, 1);
                    let decl = if from.starts_with("input") {
                        format!("{} = 0;", decl.trim_end_matches(';'))
                    } else {
                        decl
                    };
                    body = body.replacen(t, &decl, 1);
                    done = true;
                }
            }
        }
        assert!(done, "port {p} of {module} has no declaration");
    }
    let list: Vec<&str> = ports.into_iter().filter(|p| kept(p)).collect();
    let new_top = format!("{head}{}{body}", list.join(","));
    design.verilog = format!(
        "{}{}{}",
        &design.verilog[..start],
        new_top,
        &design.verilog[end..]
    );
    design
}
