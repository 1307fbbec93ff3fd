//! RTL of dwr: Dynamic Warp Resizing for one SM — sub-warp states, round-robin pick, barrier
//! pipeline, and the embedded PST ([`Pst`]), ILT ([`Ilt`]) and SCO ([`Sco`]) blocks of the
//! standalone units (spec/dwr.md §2.6–§2.9, §3.4–§3.10; contract
//! `warpforge_contract::units::dwr`, whose steps 1–9 the comments below follow).
//!
//! Dataflow of one cycle, each stage a block (so that no block both feeds and reads the PST):
//! 1. [`Sco`]: the bundle of the registered pick;
//! 2. [`Dispatch`] (steps 1–4, and the choice of the acting barrier of step 5): the bundle's
//!    effect on its members' states, the pointer and the slot hold; writebacks, block
//!    releases and launches; the acting barrier (the oldest pipeline stage, or with
//!    BAR_LAT = 1 the barrier issued now);
//! 3. [`Ilt`] lookup of the acting barrier's PC, then [`Pst`] arrival and release (steps 5, 6);
//! 4. [`Settle`] (steps 5–7): final states, the candidates of the next pick, the ILT insert
//!    requests (the mismatch, then the rows released by rule D4);
//! 5. [`RotatePick`] (step 9) from just past the updated pointer; the ILT applies its inserts
//!    and the barrier pipeline shifts (steps 7, 8) at the clock edge.

use crate::dwr_ilt::Ilt;
use crate::dwr_pst::Pst;
use crate::dwr_sco::Sco;
use crate::primitives::{emit, Concat, Fixed, Split, SplitAny, Wire, WordReg, WordRegInit};
use crate::warp_sched::RotatePick;
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::dwr::{DwrConfig, FusedSlices, InstKind, State};
use warpforge_contract::units::dwr_sco::ScoMatch;

/// A state code (§2.6 [REC] encoding) as a generation-time constant.
fn code(st: State) -> Fixed {
    Fixed::new(st.code())
}

/// Steps 1–4 and the acting barrier of step 5: everything that happens before the ILT and the
/// PST see the cycle.
#[derive(LogicBlock)]
pub struct Dispatch {
    /// Registered state: sub-warp states (3 bits each), pick, hold, pointer, pipeline stages.
    pub state: Wire<In>,
    pub sel_valid: Signal<In, Bit>,
    pub sel_sw: Wire<In>,
    pub hold: Wire<In>,
    pub ptr: Wire<In>,
    pub pipe_valid: Wire<In>,
    pub pipe_sw: Wire<In>,
    pub pipe_pc: Wire<In>,
    /// This cycle's inputs and the SCO's bundle.
    pub inst_kind: Wire<In>,
    pub writeback: Wire<In>,
    pub blockbar_release: Wire<In>,
    pub launch: Wire<In>,
    pub bundle_valid: Signal<In, Bit>,
    pub bundle_fused: Signal<In, Bit>,
    pub bundle_group: Wire<In>,
    pub bundle_members: Wire<In>,
    pub bundle_size: Wire<In>,
    pub bundle_pc: Wire<In>,
    /// Each sub-warp's state after steps 1–4, and Eq. 5-1's A and D4 vectors from them.
    pub st4: Wire<Out>,
    pub sw_valid: Wire<Out>,
    pub sw_blockbar: Wire<Out>,
    /// The `bar.synch_partner` issued this cycle (enters the pipeline).
    pub bar_issue: Signal<Out, Bit>,
    pub bar_sw: Wire<Out>,
    pub bar_pc: Wire<Out>,
    /// The barrier that acts this cycle.
    pub act_valid: Signal<Out, Bit>,
    pub act_sw: Wire<Out>,
    pub act_pc: Wire<Out>,
    /// Pointer and hold after step 1.
    pub ptr1: Wire<Out>,
    pub hold1: Wire<Out>,

    st_empty: Fixed,
    st_ready: Fixed,
    st_stalled: Fixed,
    st_blockbar: Fixed,
    kind_long: Fixed,
    kind_bar_partner: Fixed,
    kind_bar_sync: Fixed,
    kind_exit: Fixed,
    /// Clears the member bits of a sub-warp index: its group's first sub-warp.
    group_base: Fixed,
    /// 1 with `fused_slices = members` (A13).
    slice_per_member: Fixed,
    /// 1 when BAR_LAT = 1: the barrier issued this cycle acts this cycle.
    no_pipeline: Fixed,

    states: Split,
    stage_valid: SplitAny,
    stage_sw: SplitAny,
    stage_pc: Split,
    issue_pack: Concat,
    st4_pack: Concat,
    valid_pack: Concat,
    blockbar_pack: Concat,

    fused: Signal<Local, Bit>,
    single: Signal<Local, Bit>,
    stall_single: Signal<Local, Bit>,
    block_single: Signal<Local, Bit>,
    exit_single: Signal<Local, Bit>,
    issued: Wire<Local>,
    top_member: Wire<Local>,
    /// Sub-warps whose own barrier is in the pipeline (a one-hot decoder per stage).
    in_flight: Wire<Local>,
    unit: Wire<Local>,
    // One sub-warp at a time: its state after steps 1–4.
    st: Wire<Local>,
}

impl Dispatch {
    pub fn new(cfg: &DwrConfig) -> Dispatch {
        let g = &cfg.geometry;
        let (n, m, w, p) = (g.subwarps(), g.groups(), g.group_size, g.pc_bits);
        let (swb, hb, q) = (g.subwarp_bits(), cfg.hold_bits(), cfg.pipe_port_stages());
        let sb = State::BITS;
        let kind = |k: InstKind| Fixed::new(k.code());
        Dispatch {
            state: Wire::new(n * sb),
            sel_valid: Default::default(),
            sel_sw: Wire::new(swb),
            hold: Wire::new(hb),
            ptr: Wire::new(swb),
            pipe_valid: Wire::new(q),
            pipe_sw: Wire::new(q * swb),
            pipe_pc: Wire::new(q * p),
            inst_kind: Wire::new(InstKind::BITS),
            writeback: Wire::new(n),
            blockbar_release: Wire::new(n),
            launch: Wire::new(n),
            bundle_valid: Default::default(),
            bundle_fused: Default::default(),
            bundle_group: Wire::new(g.group_bits()),
            bundle_members: Wire::new(w),
            bundle_size: Wire::new(g.size_bits()),
            bundle_pc: Wire::new(p),
            st4: Wire::new(n * sb),
            sw_valid: Wire::new(n),
            sw_blockbar: Wire::new(n),
            bar_issue: Default::default(),
            bar_sw: Wire::new(swb),
            bar_pc: Wire::new(p),
            act_valid: Default::default(),
            act_sw: Wire::new(swb),
            act_pc: Wire::new(p),
            ptr1: Wire::new(swb),
            hold1: Wire::new(hb),
            st_empty: code(State::Empty),
            st_ready: code(State::Ready),
            st_stalled: code(State::Stalled),
            st_blockbar: code(State::WaitBlockbar),
            kind_long: kind(InstKind::Long),
            kind_bar_partner: kind(InstKind::BarPartner),
            kind_bar_sync: kind(InstKind::BarSync),
            kind_exit: kind(InstKind::Exit),
            group_base: Fixed::new(((1u64 << swb) - 1) & !(w as u64 - 1)),
            slice_per_member: Fixed::new(u64::from(cfg.fused_slices == FusedSlices::Members)),
            no_pipeline: Fixed::new(u64::from(cfg.pipe_stages() == 0)),
            states: Split::new(&vec![sb; n]),
            stage_valid: SplitAny::new(&vec![1; q]),
            stage_sw: SplitAny::new(&vec![swb; q]),
            stage_pc: Split::new(&vec![p; q]),
            issue_pack: Concat::new(&vec![w; m]),
            st4_pack: Concat::new(&vec![sb; n]),
            valid_pack: Concat::new(&vec![1; n]),
            blockbar_pack: Concat::new(&vec![1; n]),
            fused: Default::default(),
            single: Default::default(),
            stall_single: Default::default(),
            block_single: Default::default(),
            exit_single: Default::default(),
            issued: Wire::new(n),
            top_member: Wire::new(g.member_bits()),
            in_flight: Wire::new(n),
            unit: Wire::new(n),
            st: Wire::new(sb),
        }
    }
}

impl Logic for Dispatch {
    #[hdl_gen]
    fn update(&mut self) {
        self.states.whole.next = self.state.val();
        self.stage_valid.whole.next = self.pipe_valid.val();
        self.stage_sw.whole.next = self.pipe_sw.val();
        self.stage_pc.whole.next = self.pipe_pc.val();

        // 1. The bundle: fused (its members were COMBINE_READY) or one READY sub-warp,
        // whose effect depends on inst_kind.
        self.fused.next = self.bundle_valid.val() & self.bundle_fused.val();
        self.single.next = self.bundle_valid.val() & !self.bundle_fused.val();
        self.stall_single.next = self.single.val()
            & ((self.inst_kind.val() == self.kind_long.val())
                | (self.inst_kind.val() == self.kind_bar_partner.val()));
        self.block_single.next =
            self.single.val() & (self.inst_kind.val() == self.kind_bar_sync.val());
        self.exit_single.next = self.single.val() & (self.inst_kind.val() == self.kind_exit.val());
        self.bar_issue.next =
            self.single.val() & (self.inst_kind.val() == self.kind_bar_partner.val());
        self.bar_sw.next = 0.into();
        self.bar_pc.next = 0.into();
        if self.bar_issue.val() {
            self.bar_sw.next = self.sel_sw.val();
            self.bar_pc.next = self.bundle_pc.val();
        }
        for n in 0..self.issue_pack.parts.len() {
            self.issue_pack.parts[n].next = 0.into();
            if self.bundle_valid.val() & (self.bundle_group.val() == n) {
                self.issue_pack.parts[n].next = self.bundle_members.val();
            }
        }
        self.issued.next = self.issue_pack.whole.val();
        // The pointer moves to the highest member (A20); a bundle of k members holds the slot
        // for k slices (A13); a later slice counts the hold down.
        self.top_member.next = 0.into();
        for j in 0..self.bundle_members.width() {
            if self.bundle_members.val().get_bit(j) {
                self.top_member.next = j.into();
            }
        }
        self.ptr1.next = self.ptr.val();
        self.hold1.next = 0.into();
        if self.sel_valid.val() {
            self.ptr1.next = (self.sel_sw.val() & self.group_base.val()) | self.top_member.val();
            if self.fused.val() & self.slice_per_member.val().any() {
                self.hold1.next = self.bundle_size.val() - 1;
            }
        } else if self.hold.val().any() {
            self.hold1.next = self.hold.val() - 1;
        }

        // 1–4. Each sub-warp: issue, or writeback (not while its own barrier is in flight),
        // block release, launch; each tests the registered state, so at most one applies.
        self.unit.next = 1.into();
        self.in_flight.next = 0.into();
        for k in 0..self.stage_valid.parts.len() {
            if self.stage_valid.parts[k].val().any() {
                self.in_flight.next =
                    self.in_flight.val() | (self.unit.val() << self.stage_sw.parts[k].val());
            }
        }
        self.st.next = 0.into();
        for s in 0..self.states.parts.len() {
            self.st.next = self.states.parts[s].val();
            if self.issued.val().get_bit(s) {
                if self.fused.val() | self.stall_single.val() {
                    self.st.next = self.st_stalled.val();
                } else if self.block_single.val() {
                    self.st.next = self.st_blockbar.val();
                } else if self.exit_single.val() {
                    self.st.next = self.st_empty.val();
                }
            } else if (self.states.parts[s].val() == self.st_stalled.val())
                & self.writeback.val().get_bit(s)
                & !self.in_flight.val().get_bit(s)
            {
                self.st.next = self.st_ready.val();
            } else if (self.states.parts[s].val() == self.st_blockbar.val())
                & self.blockbar_release.val().get_bit(s)
            {
                self.st.next = self.st_ready.val();
            } else if (self.states.parts[s].val() == self.st_empty.val())
                & self.launch.val().get_bit(s)
            {
                self.st.next = self.st_ready.val();
            }
            self.st4_pack.parts[s].next = self.st.val();
            // Eq. 5-1's vector A and rule D4's blocked sub-warps, at the end of the cycle.
            self.valid_pack.parts[s].next = (self.st.val() != self.st_empty.val()).into();
            self.blockbar_pack.parts[s].next = (self.st.val() == self.st_blockbar.val()).into();
        }
        self.st4.next = self.st4_pack.whole.val();
        self.sw_valid.next = self.valid_pack.whole.val();
        self.sw_blockbar.next = self.blockbar_pack.whole.val();

        // 5. The acting barrier: the oldest stage (issued BAR_LAT − 1 cycles ago), or with
        // BAR_LAT = 1 the one issued now.
        self.act_valid.next = false;
        self.act_sw.next = 0.into();
        self.act_pc.next = 0.into();
        for k in self.stage_valid.parts.len().saturating_sub(1)..self.stage_valid.parts.len() {
            if self.no_pipeline.val().any() {
                self.act_valid.next = self.bar_issue.val();
                self.act_sw.next = self.bar_sw.val();
                self.act_pc.next = self.bar_pc.val();
            } else {
                self.act_valid.next = self.stage_valid.parts[k].val().any();
                self.act_sw.next = self.stage_sw.parts[k].val();
                self.act_pc.next = self.stage_pc.parts[k].val();
            }
        }
    }
}

/// Steps 5–7 after the ILT lookup and the PST: final states, the next pick's candidates, the
/// matched bits and the ILT insert requests.
#[derive(LogicBlock)]
pub struct Settle {
    pub st4: Wire<In>,
    pub act_valid: Signal<In, Bit>,
    pub act_sw: Wire<In>,
    pub act_pc: Wire<In>,
    pub hit: Signal<In, Bit>,
    pub released: Wire<In>,
    pub mismatch: Signal<In, Bit>,
    pub rel_d4: Wire<In>,
    /// The PST's registered rows (valid bits and PCs).
    pub row_valid: Wire<In>,
    pub row_pc: Wire<In>,
    pub ready: Wire<In>,
    pub matched: Wire<In>,
    /// The states at the end of the cycle.
    pub fin: Wire<Out>,
    pub candidates: Wire<Out>,
    pub final_cr: Wire<Out>,
    pub matched_next: Wire<Out>,
    pub ins_valid: Wire<Out>,
    pub ins_pc: Wire<Out>,

    st_ready: Fixed,
    st_partner: Fixed,
    st_combine: Fixed,
    states: Split,
    row_valids: SplitAny,
    row_d4: SplitAny,
    row_pcs: Split,
    fin_pack: Concat,
    candidate_pack: Concat,
    final_cr_pack: Concat,
    matched_pack: Concat,
    ins_valid_pack: Concat,
    ins_pc_pack: Concat,

    // One sub-warp at a time: its final state.
    st: Wire<Local>,
    // One row at a time: its PC after the arrival, and whether it still needs a request slot.
    pc: Wire<Local>,
    pending: Signal<Local, Bit>,
    d4_valid: Vec<Signal<Local, Bit>>,
    d4_pc: Vec<Wire<Local>>,
}

impl Settle {
    pub fn new(cfg: &DwrConfig) -> Settle {
        let g = &cfg.geometry;
        let (n, m, p) = (g.subwarps(), g.groups(), g.pc_bits);
        let (swb, sb, k) = (g.subwarp_bits(), State::BITS, cfg.ilt.insert_ports);
        Settle {
            st4: Wire::new(n * sb),
            act_valid: Default::default(),
            act_sw: Wire::new(swb),
            act_pc: Wire::new(p),
            hit: Default::default(),
            released: Wire::new(n),
            mismatch: Default::default(),
            rel_d4: Wire::new(m),
            row_valid: Wire::new(m),
            row_pc: Wire::new(m * p),
            ready: Wire::new(n),
            matched: Wire::new(n),
            fin: Wire::new(n * sb),
            candidates: Wire::new(n),
            final_cr: Wire::new(n),
            matched_next: Wire::new(n),
            ins_valid: Wire::new(k),
            ins_pc: Wire::new(k * p),
            st_ready: code(State::Ready),
            st_partner: code(State::WaitPartner),
            st_combine: code(State::CombineReady),
            states: Split::new(&vec![sb; n]),
            row_valids: SplitAny::new(&vec![1; m]),
            row_d4: SplitAny::new(&vec![1; m]),
            row_pcs: Split::new(&vec![p; m]),
            fin_pack: Concat::new(&vec![sb; n]),
            candidate_pack: Concat::new(&vec![1; n]),
            final_cr_pack: Concat::new(&vec![1; n]),
            matched_pack: Concat::new(&vec![1; n]),
            ins_valid_pack: Concat::new(&vec![1; k]),
            ins_pc_pack: Concat::new(&vec![p; k]),
            st: Wire::new(sb),
            pc: Wire::new(p),
            pending: Default::default(),
            d4_valid: (1..k).map(|_| Default::default()).collect(),
            d4_pc: (1..k).map(|_| Wire::new(p)).collect(),
        }
    }
}

impl Logic for Settle {
    #[hdl_gen]
    fn update(&mut self) {
        self.states.whole.next = self.st4.val();
        self.row_valids.whole.next = self.row_valid.val();
        self.row_d4.whole.next = self.rel_d4.val();
        self.row_pcs.whole.next = self.row_pc.val();

        // 5, 6. The acting sub-warp bypasses (ILT hit) or waits in the PST; released ones
        // become COMBINE_READY. 9. The next pick's candidates.
        self.st.next = 0.into();
        for s in 0..self.states.parts.len() {
            self.st.next = self.states.parts[s].val();
            if self.act_valid.val() & (self.act_sw.val() == s) {
                if self.hit.val() {
                    self.st.next = self.st_ready.val();
                } else {
                    self.st.next = self.st_partner.val();
                }
            }
            if self.released.val().get_bit(s) {
                self.st.next = self.st_combine.val();
            }
            self.fin_pack.parts[s].next = self.st.val();
            self.candidate_pack.parts[s].next = (((self.st.val() == self.st_ready.val())
                | (self.st.val() == self.st_combine.val()))
                & self.ready.val().get_bit(s))
            .into();
            self.final_cr_pack.parts[s].next = (self.st.val() == self.st_combine.val()).into();
            // A5 alternative: a sub-warp is matched when it locked without a mismatch.
            self.matched_pack.parts[s].next = self.matched.val().get_bit(s).into();
            if self.act_valid.val() & !self.hit.val() & (self.act_sw.val() == s) {
                self.matched_pack.parts[s].next = (!self.mismatch.val()).into();
            }
        }
        self.fin.next = self.fin_pack.whole.val();
        self.candidates.next = self.candidate_pack.whole.val();
        self.final_cr.next = self.final_cr_pack.whole.val();
        self.matched_next.next = self.matched_pack.whole.val();

        // 7. ILT insert requests: #0 the mismatching PC (A4); then the PC of each row whose
        // release depended on D4, ascending (§3.8; at most two rows per cycle). Such a row
        // was valid (its PC registered) or was opened by this cycle's arrival.
        self.ins_valid_pack.parts[0].next = self.mismatch.val().into();
        self.ins_pc_pack.parts[0].next = self.act_pc.val();
        for k in 0..self.d4_valid.len() {
            self.d4_valid[k].next = false;
            self.d4_pc[k].next = 0.into();
        }
        self.pc.next = 0.into();
        self.pending.next = false;
        for n in 0..self.row_pcs.parts.len() {
            self.pc.next = self.act_pc.val();
            if self.row_valids.parts[n].val().any() {
                self.pc.next = self.row_pcs.parts[n].val();
            }
            self.pending.next = self.row_d4.parts[n].val().any();
            for k in 0..self.d4_valid.len() {
                if self.pending.val() & !self.d4_valid[k].val() {
                    self.d4_valid[k].next = true;
                    self.d4_pc[k].next = self.pc.val();
                    self.pending.next = false;
                }
            }
        }
        for k in 1..self.ins_valid_pack.parts.len() {
            self.ins_valid_pack.parts[k].next = self.d4_valid[k - 1].val().into();
            self.ins_pc_pack.parts[k].next = self.d4_pc[k - 1].val();
        }
        self.ins_valid.next = self.ins_valid_pack.whole.val();
        self.ins_pc.next = self.ins_pc_pack.whole.val();
    }
}

#[derive(LogicBlock)]
pub struct Dwr {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub grid_start: Signal<In, Bit>,
    pub launch: Wire<In>,
    pub ready: Wire<In>,
    pub inst_kind: Wire<In>,
    pub grp_pc: Wire<In>,
    pub grp_mask: Wire<In>,
    pub writeback: Wire<In>,
    pub blockbar_release: Wire<In>,
    pub issue_valid: Signal<Out, Bit>,
    pub issue_sw: Wire<Out>,
    pub issue_fused: Signal<Out, Bit>,
    pub issue_group: Wire<Out>,
    pub issue_members: Wire<Out>,
    pub issue_size: Wire<Out>,
    pub issue_pc: Wire<Out>,
    pub issue_mask: Wire<Out>,
    pub slot_busy: Signal<Out, Bit>,
    pub act_valid: Signal<Out, Bit>,
    pub act_sw: Wire<Out>,
    pub act_hit: Signal<Out, Bit>,
    pub act_mismatch: Signal<Out, Bit>,
    pub rel: Wire<Out>,
    pub rel_d4: Wire<Out>,
    pub nxt_valid: Signal<Out, Bit>,
    pub nxt_sw: Wire<Out>,
    pub nxt_fused: Signal<Out, Bit>,
    pub dbg_state: Wire<Out>,
    pub dbg_matched: Wire<Out>,
    pub dbg_ptr: Wire<Out>,
    pub dbg_hold: Wire<Out>,
    pub dbg_pipe_valid: Wire<Out>,
    pub dbg_pipe_sw: Wire<Out>,
    pub dbg_pipe_pc: Wire<Out>,
    pub dbg_pst_valid: Wire<Out>,
    pub dbg_pst_pc: Wire<Out>,
    pub dbg_pst_lock: Wire<Out>,
    pub dbg_ilt_valid: Wire<Out>,
    pub dbg_ilt_tag: Wire<Out>,
    pub dbg_ilt_ptr: Wire<Out>,

    // State: the sub-warp states, the matched bits (sco_match = matched only), the barrier
    // pipeline (stage k at index k−1), the round-robin pointer, the registered pick, the hold.
    // The PST and the ILT hold their own.
    state: Vec<WordReg>,
    matched: Vec<WordReg>,
    pipe_valid: Vec<WordReg>,
    pipe_sw: Vec<WordReg>,
    pipe_pc: Vec<WordReg>,
    ptr: WordRegInit,
    sel_valid: WordReg,
    sel_sw: WordReg,
    hold: WordReg,

    // The stages of the cycle, in dataflow order.
    sco: Sco,
    dispatch: Dispatch,
    ilt: Ilt,
    pst: Pst,
    settle: Settle,
    pick: RotatePick,

    st_partner: Fixed,
    st_combine: Fixed,
    state_pack: Concat,
    cr_pack: Concat,
    matched_pack: Concat,
    dbg_matched_pack: Concat,
    pipe_valid_pack: Concat,
    pipe_sw_pack: Concat,
    pipe_pc_pack: Concat,
    fin: Split,
    matched_next: Split,
}

impl Dwr {
    pub fn new(cfg: &DwrConfig) -> Dwr {
        let g = &cfg.geometry;
        let (n, m, w, p, s) = (
            g.subwarps(),
            g.groups(),
            g.group_size,
            g.pc_bits,
            g.subwarp_size,
        );
        let (swb, hb) = (g.subwarp_bits(), cfg.hold_bits());
        let (stages, q) = (cfg.pipe_stages(), cfg.pipe_port_stages());
        let ilt = &cfg.ilt;
        let regs = |count: usize, width: usize| {
            (0..count).map(|_| WordReg::new(width)).collect::<Vec<_>>()
        };
        let matched_count = if cfg.sco_match == ScoMatch::Matched {
            n
        } else {
            0
        };
        Dwr {
            clock: Default::default(),
            reset: Default::default(),
            grid_start: Default::default(),
            launch: Wire::new(n),
            ready: Wire::new(n),
            inst_kind: Wire::new(InstKind::BITS),
            grp_pc: Wire::new(w * p),
            grp_mask: Wire::new(w * s),
            writeback: Wire::new(n),
            blockbar_release: Wire::new(n),
            issue_valid: Default::default(),
            issue_sw: Wire::new(swb),
            issue_fused: Default::default(),
            issue_group: Wire::new(g.group_bits()),
            issue_members: Wire::new(w),
            issue_size: Wire::new(g.size_bits()),
            issue_pc: Wire::new(p),
            issue_mask: Wire::new(w * s),
            slot_busy: Default::default(),
            act_valid: Default::default(),
            act_sw: Wire::new(swb),
            act_hit: Default::default(),
            act_mismatch: Default::default(),
            rel: Wire::new(m),
            rel_d4: Wire::new(m),
            nxt_valid: Default::default(),
            nxt_sw: Wire::new(swb),
            nxt_fused: Default::default(),
            dbg_state: Wire::new(n * State::BITS),
            dbg_matched: Wire::new(n),
            dbg_ptr: Wire::new(swb),
            dbg_hold: Wire::new(hb),
            dbg_pipe_valid: Wire::new(q),
            dbg_pipe_sw: Wire::new(q * swb),
            dbg_pipe_pc: Wire::new(q * p),
            dbg_pst_valid: Wire::new(m),
            dbg_pst_pc: Wire::new(m * p),
            dbg_pst_lock: Wire::new(m * w),
            dbg_ilt_valid: Wire::new(ilt.entries()),
            dbg_ilt_tag: Wire::new(ilt.entries() * ilt.tag_bits()),
            dbg_ilt_ptr: Wire::new(ilt.sets * ilt.ptr_bits()),
            state: regs(n, State::BITS),
            matched: regs(matched_count, 1),
            pipe_valid: regs(stages, 1),
            pipe_sw: regs(stages, swb),
            pipe_pc: regs(stages, p),
            // §3.10 rule 1: after reset sub-warp 0 is searched first.
            ptr: WordRegInit::new(swb, n as u64 - 1),
            sel_valid: WordReg::new(1),
            sel_sw: WordReg::new(swb),
            hold: WordReg::new(hb),
            sco: Sco::new(g, cfg.sco_match),
            dispatch: Dispatch::new(cfg),
            ilt: Ilt::new(ilt),
            pst: Pst::new(g),
            settle: Settle::new(cfg),
            pick: RotatePick::new(n, swb),
            st_partner: code(State::WaitPartner),
            st_combine: code(State::CombineReady),
            state_pack: Concat::new(&vec![State::BITS; n]),
            cr_pack: Concat::new(&vec![1; n]),
            matched_pack: Concat::new(&vec![1; n]),
            dbg_matched_pack: Concat::new(&vec![1; n]),
            pipe_valid_pack: Concat::new(&vec![1; q]),
            pipe_sw_pack: Concat::new(&vec![swb; q]),
            pipe_pc_pack: Concat::new(&vec![p; q]),
            fin: Split::new(&vec![State::BITS; n]),
            matched_next: Split::new(&vec![1; n]),
        }
    }
}

impl Logic for Dwr {
    // Wiring only: every statement reads registers, ports or block outputs, so no statement
    // here ties a block's inputs to its own outputs.
    #[hdl_gen]
    fn update(&mut self) {
        for s in 0..self.state.len() {
            self.state[s].clock.next = self.clock.val();
            self.state[s].reset.next = self.reset.val();
        }
        for s in 0..self.matched.len() {
            self.matched[s].clock.next = self.clock.val();
            self.matched[s].reset.next = self.reset.val();
        }
        for k in 0..self.pipe_valid.len() {
            self.pipe_valid[k].clock.next = self.clock.val();
            self.pipe_valid[k].reset.next = self.reset.val();
            self.pipe_sw[k].clock.next = self.clock.val();
            self.pipe_sw[k].reset.next = self.reset.val();
            self.pipe_pc[k].clock.next = self.clock.val();
            self.pipe_pc[k].reset.next = self.reset.val();
        }
        self.ptr.clock.next = self.clock.val();
        self.ptr.reset.next = self.reset.val();
        self.sel_valid.clock.next = self.clock.val();
        self.sel_valid.reset.next = self.reset.val();
        self.sel_sw.clock.next = self.clock.val();
        self.sel_sw.reset.next = self.reset.val();
        self.hold.clock.next = self.clock.val();
        self.hold.reset.next = self.reset.val();
        self.pst.clock.next = self.clock.val();
        self.pst.reset.next = self.reset.val();
        self.ilt.clock.next = self.clock.val();
        self.ilt.reset.next = self.reset.val();

        // Registered views: states, COMBINE_READY and matched bits, pipeline stages.
        for s in 0..self.state.len() {
            self.state_pack.parts[s].next = self.state[s].q.val();
            self.cr_pack.parts[s].next = (self.state[s].q.val() == self.st_combine.val()).into();
            self.matched_pack.parts[s].next = false.into();
            self.dbg_matched_pack.parts[s].next = false.into();
        }
        for s in 0..self.matched.len() {
            self.matched_pack.parts[s].next = self.matched[s].q.val();
            self.dbg_matched_pack.parts[s].next = (self.matched[s].q.val().any()
                & ((self.state[s].q.val() == self.st_partner.val())
                    | (self.state[s].q.val() == self.st_combine.val())))
            .into();
        }
        for k in 0..self.pipe_valid_pack.parts.len() {
            self.pipe_valid_pack.parts[k].next = 0.into();
            self.pipe_sw_pack.parts[k].next = 0.into();
            self.pipe_pc_pack.parts[k].next = 0.into();
        }
        for k in 0..self.pipe_valid.len() {
            self.pipe_valid_pack.parts[k].next = self.pipe_valid[k].q.val();
            self.pipe_sw_pack.parts[k].next = self.pipe_sw[k].q.val();
            self.pipe_pc_pack.parts[k].next = self.pipe_pc[k].q.val();
        }

        // 1. The SCO forms the registered pick's bundle.
        self.sco.clock.next = self.clock.val();
        self.sco.sel_valid.next = self.sel_valid.q.val().any();
        self.sco.sel_sw.next = self.sel_sw.q.val();
        self.sco.cr.next = self.cr_pack.whole.val();
        self.sco.matched.next = self.matched_pack.whole.val();
        self.sco.grp_pc.next = self.grp_pc.val();
        self.sco.grp_mask.next = self.grp_mask.val();

        // 1–5. Dispatch.
        self.dispatch.state.next = self.state_pack.whole.val();
        self.dispatch.sel_valid.next = self.sel_valid.q.val().any();
        self.dispatch.sel_sw.next = self.sel_sw.q.val();
        self.dispatch.hold.next = self.hold.q.val();
        self.dispatch.ptr.next = self.ptr.q.val();
        self.dispatch.pipe_valid.next = self.pipe_valid_pack.whole.val();
        self.dispatch.pipe_sw.next = self.pipe_sw_pack.whole.val();
        self.dispatch.pipe_pc.next = self.pipe_pc_pack.whole.val();
        self.dispatch.inst_kind.next = self.inst_kind.val();
        self.dispatch.writeback.next = self.writeback.val();
        self.dispatch.blockbar_release.next = self.blockbar_release.val();
        self.dispatch.launch.next = self.launch.val();
        self.dispatch.bundle_valid.next = self.sco.bundle_valid.val();
        self.dispatch.bundle_fused.next = self.sco.bundle_fused.val();
        self.dispatch.bundle_group.next = self.sco.bundle_group.val();
        self.dispatch.bundle_members.next = self.sco.bundle_members.val();
        self.dispatch.bundle_size.next = self.sco.bundle_size.val();
        self.dispatch.bundle_pc.next = self.sco.bundle_pc.val();

        // 5–7. The ILT looks the acting barrier up and takes the insert requests; the PST
        // takes the arrival and the states after steps 1–4.
        self.ilt.flush.next = self.grid_start.val();
        self.ilt.lookup_pc.next = self.dispatch.act_pc.val();
        self.ilt.ins_valid.next = self.settle.ins_valid.val();
        self.ilt.ins_pc.next = self.settle.ins_pc.val();
        self.pst.arr_valid.next = self.dispatch.act_valid.val();
        self.pst.arr_sw.next = self.dispatch.act_sw.val();
        self.pst.arr_pc.next = self.dispatch.act_pc.val();
        self.pst.arr_hit.next = self.ilt.hit.val();
        self.pst.sw_valid.next = self.dispatch.sw_valid.val();
        self.pst.sw_blockbar.next = self.dispatch.sw_blockbar.val();
        self.settle.st4.next = self.dispatch.st4.val();
        self.settle.act_valid.next = self.dispatch.act_valid.val();
        self.settle.act_sw.next = self.dispatch.act_sw.val();
        self.settle.act_pc.next = self.dispatch.act_pc.val();
        self.settle.hit.next = self.ilt.hit.val();
        self.settle.released.next = self.pst.released.val();
        self.settle.mismatch.next = self.pst.arr_mismatch.val();
        self.settle.rel_d4.next = self.pst.rel_d4.val();
        self.settle.row_valid.next = self.pst.dbg_valid.val();
        self.settle.row_pc.next = self.pst.dbg_pc.val();
        self.settle.ready.next = self.ready.val();
        self.settle.matched.next = self.matched_pack.whole.val();

        // Next state.
        self.fin.whole.next = self.settle.fin.val();
        for s in 0..self.state.len() {
            self.state[s].d.next = self.fin.parts[s].val();
        }
        self.matched_next.whole.next = self.settle.matched_next.val();
        for s in 0..self.matched.len() {
            self.matched[s].d.next = self.matched_next.parts[s].val();
        }
        // 8. Barrier pipeline: stage 1 takes this cycle's barrier, the others shift.
        for k in 0..self.pipe_valid.len().min(1) {
            self.pipe_valid[k].d.next = self.dispatch.bar_issue.val().into();
            self.pipe_sw[k].d.next = self.dispatch.bar_sw.val();
            self.pipe_pc[k].d.next = self.dispatch.bar_pc.val();
        }
        for k in 1..self.pipe_valid.len() {
            self.pipe_valid[k].d.next = self.pipe_valid[k - 1].q.val();
            self.pipe_sw[k].d.next = self.pipe_sw[k - 1].q.val();
            self.pipe_pc[k].d.next = self.pipe_pc[k - 1].q.val();
        }
        // 9. Pick for the next cycle: round robin from just past the updated pointer, none
        // while a fused bundle still holds the slot.
        self.pick.candidates.next = self.settle.candidates.val();
        self.pick.last.next = self.dispatch.ptr1.val();
        self.pick.last_valid.next = true;
        self.nxt_valid.next = self.pick.found.val() & !self.dispatch.hold1.val().any();
        self.nxt_sw.next = 0.into();
        self.sel_sw.d.next = 0.into();
        if self.pick.found.val() & !self.dispatch.hold1.val().any() {
            self.nxt_sw.next = self.pick.slot.val();
            self.sel_sw.d.next = self.pick.slot.val();
        }
        self.nxt_fused.next = self.pick.found.val()
            & !self.dispatch.hold1.val().any()
            & self
                .settle
                .final_cr
                .val()
                .get_bit(self.pick.slot.val().index());
        self.sel_valid.d.next = (self.pick.found.val() & !self.dispatch.hold1.val().any()).into();
        self.ptr.d.next = self.dispatch.ptr1.val();
        self.hold.d.next = self.dispatch.hold1.val();

        // Outputs.
        self.issue_valid.next = self.sel_valid.q.val().any();
        self.issue_sw.next = self.sel_sw.q.val();
        self.issue_fused.next = self.sco.bundle_fused.val();
        self.issue_group.next = self.sco.bundle_group.val();
        self.issue_members.next = self.sco.bundle_members.val();
        self.issue_size.next = self.sco.bundle_size.val();
        self.issue_pc.next = self.sco.bundle_pc.val();
        self.issue_mask.next = self.sco.bundle_mask.val();
        self.slot_busy.next = self.sel_valid.q.val().any() | self.hold.q.val().any();
        self.act_valid.next = self.dispatch.act_valid.val();
        self.act_sw.next = self.dispatch.act_sw.val();
        self.act_hit.next = self.dispatch.act_valid.val() & self.ilt.hit.val();
        self.act_mismatch.next = self.pst.arr_mismatch.val();
        self.rel.next = self.pst.rel.val();
        self.rel_d4.next = self.pst.rel_d4.val();
        self.dbg_state.next = self.state_pack.whole.val();
        self.dbg_matched.next = self.dbg_matched_pack.whole.val();
        self.dbg_ptr.next = self.ptr.q.val();
        self.dbg_hold.next = self.hold.q.val();
        self.dbg_pipe_valid.next = self.pipe_valid_pack.whole.val();
        self.dbg_pipe_sw.next = self.pipe_sw_pack.whole.val();
        self.dbg_pipe_pc.next = self.pipe_pc_pack.whole.val();
        self.dbg_pst_valid.next = self.pst.dbg_valid.val();
        self.dbg_pst_pc.next = self.pst.dbg_pc.val();
        self.dbg_pst_lock.next = self.pst.dbg_lock.val();
        self.dbg_ilt_valid.next = self.ilt.dbg_valid.val();
        self.dbg_ilt_tag.next = self.ilt.dbg_tag.val();
        self.dbg_ilt_ptr.next = self.ilt.dbg_ptr.val();
    }
}

/// Verilog of one dwr configuration.
pub fn generate(cfg: &DwrConfig) -> Design {
    let mut block = Dwr::new(cfg);
    emit(&mut block, &cfg.module_name())
}
