//! RTL of warp-sched: the issue-stage warp scheduler of one SM
//! (spec/latency_hiding_scheduler.md §2).
//!
//! Each cycle, in three steps:
//! 1. eligibility: `eligible(w) = resident(w) ∧ has_inst(w) ∧ ready(w) ∧ unit_free(w)`; a
//!    scheduler's candidates are the eligible slots it supervises (`w mod schedulers`);
//! 2. per-policy pick: one selector block per scheduler for the configured policy (LRR:
//!    [`RotatePick`], GTO: [`GtoPick`]); each answers `found` and `slot`;
//! 3. shared state update: the issue pointer (`last_issued`, `last_valid`, `greedy_valid`),
//!    residency and the age matrix.
//!
//! A new policy is a new selector block, a `Vec` of it in [`WarpSched`] that is non-empty
//! only under that policy, and its wiring in step 2; steps 1 and 3 stay as they are.
//!
//! Age is launch order, kept as a matrix: row `w` holds the slots whose warps are older than
//! the warp in slot `w`. Rows are only meaningful for resident slots and are always masked by
//! residency, so exits leave them alone.

use crate::primitives::{emit, Concat, Fixed, Split, Wire, WordReg};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::warp_sched::{Policy, WarpSchedConfig};

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
    pub issue_valid: Wire<Out>,
    pub issue_slot: Wire<Out>,
    pub issue_is_mem: Wire<Out>,
    pub dbg_resident: Wire<Out>,
    pub dbg_last_valid: Wire<Out>,
    pub dbg_last_issued: Wire<Out>,
    pub dbg_greedy_valid: Wire<Out>,
    pub dbg_older: Wire<Out>,

    // State: residency and age per slot, the issue pointer per scheduler.
    resident: WordReg,
    older: Vec<WordReg>,
    last_issued: Vec<WordReg>,
    last_valid: Vec<WordReg>,
    greedy_valid: Vec<WordReg>,

    // Generation-time constants.
    /// Per scheduler: the slots it supervises.
    supervised: Vec<Fixed>,
    /// Per slot w: the slots below w (launched in the same cycle, they are older).
    below: Vec<Fixed>,

    // Policy selectors, one per scheduler under their policy, none otherwise.
    lrr: Vec<RotatePick>,
    gto: Vec<GtoPick>,

    eligible: Wire<Local>,
    candidates: Vec<Wire<Local>>,
    pick_valid: Vec<Signal<Local, Bit>>,
    pick_slot: Vec<Wire<Local>>,
    greedy_lost: Vec<Signal<Local, Bit>>,

    // Packing of per-scheduler and per-slot values into the output ports.
    pack_issue_valid: Concat,
    pack_issue_slot: Concat,
    pack_issue_is_mem: Concat,
    pack_last_valid: Concat,
    pack_last_issued: Concat,
    pack_greedy_valid: Concat,
    pack_older: Concat,
}

impl WarpSched {
    pub fn new(cfg: &WarpSchedConfig) -> WarpSched {
        let (w, s, ib) = (cfg.warps, cfg.schedulers, cfg.slot_bits());
        let mask_of = |slots: &mut dyn Iterator<Item = usize>| slots.fold(0u64, |m, j| m | 1 << j);
        let per_sched = |width: usize| (0..s).map(|_| WordReg::new(width)).collect::<Vec<_>>();
        WarpSched {
            clock: Default::default(),
            reset: Default::default(),
            has_inst: Wire::new(w),
            ready: Wire::new(w),
            unit_free: Wire::new(w),
            is_mem: Wire::new(w),
            launch: Wire::new(w),
            exit: Wire::new(w),
            issue_valid: Wire::new(s),
            issue_slot: Wire::new(s * ib),
            issue_is_mem: Wire::new(s),
            dbg_resident: Wire::new(w),
            dbg_last_valid: Wire::new(s),
            dbg_last_issued: Wire::new(s * ib),
            dbg_greedy_valid: Wire::new(s),
            dbg_older: Wire::new(w * w),
            resident: WordReg::new(w),
            older: (0..w).map(|_| WordReg::new(w)).collect(),
            last_issued: per_sched(ib),
            last_valid: per_sched(1),
            greedy_valid: per_sched(1),
            supervised: (0..s)
                .map(|k| Fixed::new(mask_of(&mut cfg.supervised(k))))
                .collect(),
            below: (0..w).map(|j| Fixed::new(mask_of(&mut (0..j)))).collect(),
            lrr: match cfg.policy {
                Policy::Lrr => (0..s).map(|_| RotatePick::new(w, ib)).collect(),
                _ => vec![],
            },
            gto: match cfg.policy {
                Policy::Gto => (0..s).map(|_| GtoPick::new(w, ib)).collect(),
                _ => vec![],
            },
            eligible: Wire::new(w),
            candidates: (0..s).map(|_| Wire::new(w)).collect(),
            pick_valid: (0..s).map(|_| Default::default()).collect(),
            pick_slot: (0..s).map(|_| Wire::new(ib)).collect(),
            greedy_lost: (0..s).map(|_| Default::default()).collect(),
            pack_issue_valid: Concat::new(&vec![1; s]),
            pack_issue_slot: Concat::new(&vec![ib; s]),
            pack_issue_is_mem: Concat::new(&vec![1; s]),
            pack_last_valid: Concat::new(&vec![1; s]),
            pack_last_issued: Concat::new(&vec![ib; s]),
            pack_greedy_valid: Concat::new(&vec![1; s]),
            pack_older: Concat::new(&vec![w; w]),
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

        // 1. Eligibility.
        self.eligible.next =
            self.resident.q.val() & self.has_inst.val() & self.ready.val() & self.unit_free.val();
        for s in 0..self.candidates.len() {
            self.candidates[s].next = self.eligible.val() & self.supervised[s].val();
            self.pick_valid[s].next = false;
            self.pick_slot[s].next = 0.into();
        }

        // 2. Per-policy pick.
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

        // 3. Shared state update and outputs.
        for s in 0..self.candidates.len() {
            self.pack_issue_valid.parts[s].next = self.pick_valid[s].val().into();
            self.pack_issue_slot.parts[s].next = 0.into();
            self.pack_issue_is_mem.parts[s].next = 0.into();
            if self.pick_valid[s].val() {
                self.pack_issue_slot.parts[s].next = self.pick_slot[s].val();
                self.pack_issue_is_mem.parts[s].next = self
                    .is_mem
                    .val()
                    .get_bit(self.pick_slot[s].val().index())
                    .into();
            }
            self.last_issued[s].d.next = self.last_issued[s].q.val();
            if self.pick_valid[s].val() {
                self.last_issued[s].d.next = self.pick_slot[s].val();
            }
            // The greedy warp — the one in the slot last_issued now points to — leaves (exit)
            // or is replaced (launch): its greediness ends, even when it issued this cycle.
            self.greedy_lost[s].next = self.exit.val().get_bit(self.last_issued[s].d.val().index())
                | self
                    .launch
                    .val()
                    .get_bit(self.last_issued[s].d.val().index());
            self.last_valid[s].d.next =
                self.last_valid[s].q.val() | self.pick_valid[s].val().into();
            self.greedy_valid[s].d.next = (self.greedy_valid[s].q.val()
                | self.pick_valid[s].val().into())
                & (!self.greedy_lost[s].val()).into();
            self.pack_last_valid.parts[s].next = self.last_valid[s].q.val();
            self.pack_last_issued.parts[s].next = self.last_issued[s].q.val();
            self.pack_greedy_valid.parts[s].next = self.greedy_valid[s].q.val();
        }

        // Residency: exit first, then launch.
        self.resident.d.next = self.launch.val() | (self.resident.q.val() & !self.exit.val());
        // Age: a launched warp is younger than every warp that stays and than the warps
        // launched with it into higher slots; no one else's row may count it as older.
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

        self.issue_valid.next = self.pack_issue_valid.whole.val();
        self.issue_slot.next = self.pack_issue_slot.whole.val();
        self.issue_is_mem.next = self.pack_issue_is_mem.whole.val();
        self.dbg_resident.next = self.resident.q.val();
        self.dbg_last_valid.next = self.pack_last_valid.whole.val();
        self.dbg_last_issued.next = self.pack_last_issued.whole.val();
        self.dbg_greedy_valid.next = self.pack_greedy_valid.whole.val();
        self.dbg_older.next = self.pack_older.whole.val();
    }
}

/// Verilog of one warp-sched configuration.
pub fn generate(cfg: &WarpSchedConfig) -> Design {
    let mut block = WarpSched::new(cfg);
    emit(&mut block, &cfg.module_name())
}
