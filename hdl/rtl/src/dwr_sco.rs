//! RTL of dwr-sco: DWR's Sub-warp COmbiner (spec/dwr.md §2.9, §3.6; contract
//! `warpforge_contract::units::dwr_sco`).
//!
//! Purely combinational. From the selected sub-warp `sel` (group `n = sel / W`, position
//! `m = sel mod W`) it forms the bundle that issues:
//! 1. the selected group's row of the `cr` and `matched` vectors (a W-bit multiplexer over the
//!    M groups) and the selected member's PC;
//! 2. the members: if `sel` is COMBINE_READY, every combine-ready partner of the window that
//!    shares its instruction — same PC (`sco_match = pc`, W PC comparators) or both matched
//!    (`sco_match = matched`); otherwise `sel` alone;
//! 3. size (a popcount), PC and the large warp's mask (member slices of `grp_mask`).
//!
//! The same block forms the bundles of the composite `dwr` unit, whose registered pick is its
//! selection.

use crate::primitives::{emit, Concat, Fixed, Split, Wire};
use crate::Design;
use rust_hdl::prelude::*;
use warpforge_contract::units::dwr::Geometry;
use warpforge_contract::units::dwr_sco::{ScoConfig, ScoMatch};

#[derive(LogicBlock)]
pub struct Sco {
    /// Unused (no state): every generated design has a clock.
    pub clock: Signal<In, Clock>,
    pub sel_valid: Signal<In, Bit>,
    pub sel_sw: Wire<In>,
    pub cr: Wire<In>,
    pub matched: Wire<In>,
    pub grp_pc: Wire<In>,
    pub grp_mask: Wire<In>,
    pub bundle_valid: Signal<Out, Bit>,
    pub bundle_fused: Signal<Out, Bit>,
    pub bundle_group: Wire<Out>,
    pub bundle_members: Wire<Out>,
    pub bundle_size: Wire<Out>,
    pub bundle_pc: Wire<Out>,
    pub bundle_mask: Wire<Out>,

    // Generation-time constants.
    /// N: selections at or above it are no selection.
    subwarps: Fixed,
    /// log2 W: the group of a sub-warp is its index shifted right by this.
    member_shift: Fixed,
    /// W − 1: the position of a sub-warp in its group is its index masked by this.
    member_mask: Fixed,
    /// 1 for `sco_match = pc`, 0 for `matched`.
    match_by_pc: Fixed,

    // Views of the packed inputs: per group (W bits) and per member (a PC, S mask bits).
    cr_rows: Split,
    matched_rows: Split,
    member_pcs: Split,
    member_masks: Split,
    // Packing of the per-member results.
    member_pack: Concat,
    mask_pack: Concat,

    valid: Signal<Local, Bit>,
    group: Wire<Local>,
    pos: Wire<Local>,
    row_cr: Wire<Local>,
    row_matched: Wire<Local>,
    sel_pc: Wire<Local>,
    fused: Signal<Local, Bit>,
    members: Wire<Local>,
    size: Wire<Local>,
}

impl Sco {
    pub fn new(g: &Geometry, sco_match: ScoMatch) -> Sco {
        let (n, m, w, p, s) = (
            g.subwarps(),
            g.groups(),
            g.group_size,
            g.pc_bits,
            g.subwarp_size,
        );
        Sco {
            clock: Default::default(),
            sel_valid: Default::default(),
            sel_sw: Wire::new(g.subwarp_bits()),
            cr: Wire::new(n),
            matched: Wire::new(n),
            grp_pc: Wire::new(w * p),
            grp_mask: Wire::new(w * s),
            bundle_valid: Default::default(),
            bundle_fused: Default::default(),
            bundle_group: Wire::new(g.group_bits()),
            bundle_members: Wire::new(w),
            bundle_size: Wire::new(g.size_bits()),
            bundle_pc: Wire::new(p),
            bundle_mask: Wire::new(w * s),
            subwarps: Fixed::new(n as u64),
            member_shift: Fixed::new(g.member_bits() as u64),
            member_mask: Fixed::new(w as u64 - 1),
            match_by_pc: Fixed::new(u64::from(sco_match == ScoMatch::Pc)),
            cr_rows: Split::new(&vec![w; m]),
            matched_rows: Split::new(&vec![w; m]),
            member_pcs: Split::new(&vec![p; w]),
            member_masks: Split::new(&vec![s; w]),
            member_pack: Concat::new(&vec![1; w]),
            mask_pack: Concat::new(&vec![s; w]),
            valid: Default::default(),
            group: Wire::new(g.group_bits()),
            pos: Wire::new(g.member_bits()),
            row_cr: Wire::new(w),
            row_matched: Wire::new(w),
            sel_pc: Wire::new(p),
            fused: Default::default(),
            members: Wire::new(w),
            size: Wire::new(g.size_bits()),
        }
    }
}

impl Logic for Sco {
    #[hdl_gen]
    fn update(&mut self) {
        self.cr_rows.whole.next = self.cr.val();
        self.matched_rows.whole.next = self.matched.val();
        self.member_pcs.whole.next = self.grp_pc.val();
        self.member_masks.whole.next = self.grp_mask.val();

        // 1. The selection, its group's rows and its PC.
        self.valid.next = self.sel_valid.val() & (self.sel_sw.val() < self.subwarps.val());
        self.group.next = self.sel_sw.val() >> self.member_shift.val();
        self.pos.next = self.sel_sw.val() & self.member_mask.val();
        self.row_cr.next = 0.into();
        self.row_matched.next = 0.into();
        for n in 0..self.cr_rows.parts.len() {
            if self.group.val() == n {
                self.row_cr.next = self.cr_rows.parts[n].val();
                self.row_matched.next = self.matched_rows.parts[n].val();
            }
        }
        self.sel_pc.next = 0.into();
        for j in 0..self.member_pcs.parts.len() {
            if self.pos.val() == j {
                self.sel_pc.next = self.member_pcs.parts[j].val();
            }
        }
        self.fused.next = self.valid.val() & self.row_cr.val().get_bit(self.pos.val().index());

        // 2. Members: the partners that share the selected instruction (A5), or sel alone.
        for j in 0..self.member_pcs.parts.len() {
            self.member_pack.parts[j].next = false.into();
            if self.fused.val() {
                if self.match_by_pc.val().any() {
                    self.member_pack.parts[j].next = (self.row_cr.val().get_bit(j)
                        & (self.member_pcs.parts[j].val() == self.sel_pc.val()))
                    .into();
                } else {
                    self.member_pack.parts[j].next = (self.row_cr.val().get_bit(j)
                        & ((self.pos.val() == j)
                            | (self.row_matched.val().get_bit(self.pos.val().index())
                                & self.row_matched.val().get_bit(j))))
                    .into();
                }
            } else {
                self.member_pack.parts[j].next = (self.valid.val() & (self.pos.val() == j)).into();
            }
        }
        self.members.next = self.member_pack.whole.val();

        // 3. Size, PC and the large warp's active mask.
        self.size.next = 0.into();
        for j in 0..self.member_pcs.parts.len() {
            if self.members.val().get_bit(j) {
                self.size.next = self.size.val() + 1;
            }
            self.mask_pack.parts[j].next = 0.into();
            if self.members.val().get_bit(j) {
                self.mask_pack.parts[j].next = self.member_masks.parts[j].val();
            }
        }

        self.bundle_valid.next = self.valid.val();
        self.bundle_fused.next = self.fused.val();
        self.bundle_members.next = self.members.val();
        self.bundle_size.next = self.size.val();
        self.bundle_mask.next = self.mask_pack.whole.val();
        self.bundle_group.next = 0.into();
        self.bundle_pc.next = 0.into();
        if self.valid.val() {
            self.bundle_group.next = self.group.val();
            self.bundle_pc.next = self.sel_pc.val();
        }
    }
}

/// Verilog of one dwr-sco configuration.
pub fn generate(cfg: &ScoConfig) -> Design {
    let mut block = Sco::new(&cfg.geometry, cfg.sco_match);
    emit(&mut block, &cfg.module_name())
}
