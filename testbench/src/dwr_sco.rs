//! Cycle model, stimulus and spec vectors of `dwr-sco`, DWR's Sub-warp COmbiner
//! (spec/dwr.md §2.9, §3.6, A5, A18, A19; contract `units/dwr_sco.rs`).
//!
//! [`form_bundle`] is the combiner; the standalone model drives it from its ports and the
//! composite `dwr` model forms its bundles with the same function.

use crate::dwr::{pack_fields, Bits, Fields, Vb};
use crate::rng::Rng;
use crate::words::port_offset;
use crate::{Model, SpecVector, Stimulus};
use warpforge_contract::units::dwr_sco::{self, ScoConfig, ScoMatch};
use warpforge_contract::Layout;

/// A deliberate SCO bug, to show that the invariant checks catch wrong behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoFault {
    /// Fuse every combine-ready partner, whatever its PC (no same-PC rule).
    AnyPc,
    /// Leave out the highest qualifying partner.
    DropPartner,
}

/// The members of the bundle formed for selected position `m` (§3.6, A5): the selected
/// sub-warp alone unless it is COMBINE_READY; then every combine-ready position `j` of its
/// group with `grp_pc[j] = grp_pc[m]` (`pc`), or with `j = m ∨ (matched[sel] ∧ matched[j])`
/// (`matched`). `cr`, `matched`: the group's W bits; `grp_pc`: the group's W PCs.
pub fn form_bundle(
    mode: ScoMatch,
    m: usize,
    cr: u64,
    matched: u64,
    grp_pc: &[u64],
    fault: Option<ScoFault>,
) -> u64 {
    if cr >> m & 1 == 0 {
        return 1 << m;
    }
    let shares = match mode {
        ScoMatch::Pc if fault == Some(ScoFault::AnyPc) => u64::MAX,
        ScoMatch::Pc => {
            let mut same = 0u64;
            let pc = grp_pc[m];
            for (j, &x) in grp_pc.iter().enumerate() {
                same |= ((x == pc) as u64) << j;
            }
            same
        }
        ScoMatch::Matched if matched >> m & 1 == 1 => matched | 1 << m,
        ScoMatch::Matched => 1 << m,
    };
    let mut members = cr & shares;
    if fault == Some(ScoFault::DropPartner) && members.count_ones() > 1 {
        let top = 63 - members.leading_zeros();
        if top as usize != m {
            members &= !(1 << top);
        }
    }
    members
}

/// The lanes of each member position: field `j` (S bits) all ones, in four words.
pub fn member_lanes(w: usize, s: usize) -> Vec<[u64; 4]> {
    (0..w)
        .map(|j| {
            let mut lanes = [0u64; 4];
            lanes.set_field(j, s, u64::MAX);
            lanes
        })
        .collect()
}

/// The large warp's mask: member `j`'s field of `grp_mask`, 0 for the others (A18). Writes
/// `out` (the `W·S`-bit port); `lanes` from [`member_lanes`].
pub fn bundle_mask(grp_mask: &[u64], members: u64, lanes: &[[u64; 4]], out: &mut [u64]) {
    let mut keep = [0u64; 4];
    let mut m = members;
    while m != 0 {
        let j = m.trailing_zeros() as usize;
        m &= m - 1;
        for (k, x) in keep.iter_mut().enumerate() {
            *x |= lanes[j][k];
        }
    }
    for (k, o) in out.iter_mut().enumerate() {
        *o = grp_mask[k] & keep[k];
    }
}

// ---------------------------------------------------------------------------------------
// The standalone unit

#[derive(Clone, Copy, Debug)]
struct InPorts {
    sel_valid: usize,
    sel_sw: usize,
    cr: usize,
    matched: usize,
    grp_pc: usize,
    grp_mask: usize,
}

#[derive(Clone, Copy, Debug)]
struct OutPorts {
    bundle_valid: usize,
    bundle_fused: usize,
    bundle_group: usize,
    bundle_members: usize,
    bundle_size: usize,
    bundle_pc: usize,
    bundle_mask: usize,
}

/// The last bundle, for `check_invariants`.
#[derive(Clone, Debug, Default)]
struct LastCycle {
    stepped: bool,
    sel: Option<usize>,
    cr: Bits,
    matched: Bits,
    grp_pc: [u64; 8],
    grp_mask: [u64; 4],
    members: u64,
    size: u64,
    mask: [u64; 4],
}

/// Event counters of the standalone SCO model (coverage).
#[derive(Clone, Debug, Default)]
pub struct ScoCounters {
    pub cycles: u64,
    pub idle: u64,
    pub out_of_range: u64,
    pub single: u64,
    /// Fused bundles by size (index = size − 1).
    pub fused_by_size: [u64; 8],
    /// Fused bundles that left out a combine-ready partner at another PC (or unmatched).
    pub partners_left_out: u64,
}

/// The model of `dwr-sco` (purely combinational).
#[derive(Clone, Debug)]
pub struct DwrScoModel {
    n: usize,
    w: usize,
    s: usize,
    p: usize,
    swb: usize,
    nw: usize,
    mask_words: usize,
    all: Bits,
    lanes: Vec<[u64; 4]>,
    mode: ScoMatch,
    inp: InPorts,
    out: OutPorts,
    last: LastCycle,
    counters: ScoCounters,
    fault: Option<ScoFault>,
    cycle: u64,
}

impl DwrScoModel {
    pub fn new(cfg: &ScoConfig) -> Self {
        let g = &cfg.geometry;
        let layout = Layout::new(&cfg.ports());
        let o = |n| port_offset(&layout.outputs, "dwr-sco", n);
        let i = |n| port_offset(&layout.inputs, "dwr-sco", n);
        DwrScoModel {
            n: g.subwarps(),
            w: g.group_size,
            s: g.subwarp_size,
            p: g.pc_bits,
            swb: g.subwarp_bits(),
            nw: g.subwarps().div_ceil(64),
            mask_words: g.warp_mask_bits().div_ceil(64),
            all: Bits::low(g.subwarps()),
            lanes: member_lanes(g.group_size, g.subwarp_size),
            mode: cfg.sco_match,
            inp: InPorts {
                sel_valid: i("sel_valid"),
                sel_sw: i("sel_sw"),
                cr: i("cr"),
                matched: i("matched"),
                grp_pc: i("grp_pc"),
                grp_mask: i("grp_mask"),
            },
            out: OutPorts {
                bundle_valid: o("bundle_valid"),
                bundle_fused: o("bundle_fused"),
                bundle_group: o("bundle_group"),
                bundle_members: o("bundle_members"),
                bundle_size: o("bundle_size"),
                bundle_pc: o("bundle_pc"),
                bundle_mask: o("bundle_mask"),
            },
            last: LastCycle::default(),
            counters: ScoCounters::default(),
            fault: None,
            cycle: 0,
        }
    }

    pub fn inject_fault(&mut self, fault: Option<ScoFault>) {
        self.fault = fault;
    }

    pub fn counters(&self) -> &ScoCounters {
        &self.counters
    }
}

impl Model for DwrScoModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (i, o) = (self.inp, self.out);
        let (w, p) = (self.w, self.p);
        let sel_valid = inputs[i.sel_valid] & 1 != 0;
        let sel = inputs.field_at(i.sel_sw, 0, self.swb) as usize;
        let l = &mut self.last;
        l.stepped = true;
        self.cycle += 1;
        self.counters.cycles += 1;

        if !sel_valid || sel >= self.n {
            l.sel = None;
            l.members = 0;
            l.size = 0;
            l.mask = [0; 4];
            for port in [
                o.bundle_valid,
                o.bundle_fused,
                o.bundle_group,
                o.bundle_members,
            ] {
                outputs[port] = 0;
            }
            outputs[o.bundle_size] = 0;
            outputs[o.bundle_pc] = 0;
            outputs[o.bundle_mask..o.bundle_mask + self.mask_words]
                .iter_mut()
                .for_each(|x| *x = 0);
            self.counters.idle += !sel_valid as u64;
            self.counters.out_of_range += sel_valid as u64;
            return;
        }
        let cr = Bits::read(&inputs[i.cr..], self.nw) & self.all;
        let matched = Bits::read(&inputs[i.matched..], self.nw) & self.all;
        l.cr = cr;
        l.matched = matched;
        for j in 0..w {
            l.grp_pc[j] = inputs.field_at(i.grp_pc, j * p, p);
        }
        l.grp_mask[..self.mask_words]
            .copy_from_slice(&inputs[i.grp_mask..i.grp_mask + self.mask_words]);
        let (n, m) = (sel / w, sel % w);
        let cr_grp = cr.bits(n * w, w);
        let matched_grp = matched.bits(n * w, w);
        let members = form_bundle(
            self.mode,
            m,
            cr_grp,
            matched_grp,
            &l.grp_pc[..w],
            self.fault,
        );
        let fused = cr_grp >> m & 1 == 1;
        let out_mask = &mut outputs[o.bundle_mask..o.bundle_mask + self.mask_words];
        bundle_mask(&l.grp_mask, members, &self.lanes, out_mask);
        let size = members.count_ones() as u64;
        outputs[o.bundle_valid] = 1;
        outputs[o.bundle_fused] = fused as u64;
        outputs[o.bundle_group] = n as u64;
        outputs[o.bundle_members] = members;
        outputs[o.bundle_size] = size;
        outputs[o.bundle_pc] = l.grp_pc[m];
        l.sel = Some(sel);
        l.members = members;
        l.size = size;
        l.mask = [0; 4];
        l.mask[..self.mask_words]
            .copy_from_slice(&outputs[o.bundle_mask..o.bundle_mask + self.mask_words]);
        let c = &mut self.counters;
        if fused {
            c.fused_by_size[size as usize - 1] += 1;
            c.partners_left_out += (cr_grp & !members != 0) as u64;
        } else {
            c.single += 1;
        }
    }

    fn events(&self) -> Vec<(&'static str, u64)> {
        let c = &self.counters;
        let fusions: u64 = c.fused_by_size.iter().sum();
        let members: u64 = (1..).zip(c.fused_by_size).map(|(k, n)| k * n).sum();
        vec![
            ("fusions", fusions),
            ("fused_subwarps", members),
            ("singles", c.single),
            ("partners_left_out", c.partners_left_out),
        ]
    }

    fn check_invariants(&self) -> Result<(), String> {
        let l = &self.last;
        let Some(sel) = l.sel else {
            return Ok(());
        };
        check_fuse(
            self.mode,
            self.w,
            self.s,
            sel,
            &l.cr,
            &l.matched,
            &l.grp_pc,
            &l.grp_mask,
            l.members,
            l.size,
            &l.mask,
        )
    }

    fn state_line(&self) -> String {
        let l = &self.last;
        match l.sel {
            Some(sel) => format!(
                "cycle {} sel {sel} cr {} members {:#b} size {}",
                self.cycle, l.cr, l.members, l.size
            ),
            None => format!("cycle {} no bundle", self.cycle),
        }
    }
}

/// I-FUSE and I-SINGLE for one bundle of selected sub-warp `sel`, written member by member.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_fuse(
    mode: ScoMatch,
    w: usize,
    s: usize,
    sel: usize,
    cr: &Bits,
    matched: &Bits,
    grp_pc: &[u64],
    grp_mask: &[u64],
    members: u64,
    size: u64,
    mask: &[u64],
) -> Result<(), String> {
    let (n, m) = (sel / w, sel % w);
    if members >> m & 1 == 0 {
        return Err(format!(
            "I-FUSE: selected sub-warp {sel} is not a member ({members:#b})"
        ));
    }
    if members >> w != 0 {
        return Err(format!(
            "I-FUSE: members {members:#b} outside the group window"
        ));
    }
    if size != members.count_ones() as u64 {
        return Err(format!("I-FUSE: size {size} for members {members:#b}"));
    }
    if !cr.get(sel) {
        if members != 1 << m {
            return Err(format!(
                "I-SINGLE: non-fused issue of {sel} with members {members:#b}"
            ));
        }
    } else {
        for j in 0..w {
            let is_cr = cr.get(n * w + j);
            let qualifies = is_cr
                && match mode {
                    ScoMatch::Pc => grp_pc[j] == grp_pc[m],
                    ScoMatch::Matched => j == m || (matched.get(sel) && matched.get(n * w + j)),
                };
            if (members >> j & 1 == 1) != qualifies {
                return Err(format!(
                    "I-FUSE: group {n} member {j} (cr {}, pc {:#x} vs {:#x}) {} the bundle",
                    is_cr as u8,
                    grp_pc[j],
                    grp_pc[m],
                    if qualifies {
                        "missing from"
                    } else {
                        "wrongly in"
                    }
                ));
            }
        }
    }
    // The mask: the members' fields of grp_mask copied one by one, nothing else.
    let mut want = [0u64; 4];
    let mut mm = members;
    while mm != 0 {
        let j = mm.trailing_zeros() as usize;
        mm &= mm - 1;
        want.set_field(j, s, grp_mask.get_field(j, s));
    }
    if want[..mask.len()] != *mask {
        return Err(format!(
            "I-FUSE: mask {mask:x?} is not the members' fields {want:x?} of grp_mask"
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Stimulus

/// Constrained-random inputs for `dwr-sco`: random `cr` and `matched` bits, `grp_pc` fields
/// from two or three values (equal and unequal PCs both frequent), selections of
/// combine-ready and plain sub-warps, out-of-range selections when N is not a power of two.
#[derive(Clone, Debug)]
pub struct DwrScoStimulus {
    rng: Rng,
    n: usize,
    w: usize,
    s: usize,
    p: usize,
    swb: usize,
    nw: usize,
    inp: InPorts,
    phase_left: u64,
    cr_density: u64,
    /// The phase's PC values, indexed by two random bits.
    pcs: [u64; 4],
    n_pcs: u64,
    /// The inputs kept from cycle to cycle (the `grp_*` ports packed).
    cr: Bits,
    matched: Bits,
    grp_pc: Vec<u64>,
    grp_mask: Vec<u64>,
}

impl DwrScoStimulus {
    pub fn new(cfg: &ScoConfig, seed: u64) -> Self {
        let g = &cfg.geometry;
        let model = DwrScoModel::new(cfg);
        DwrScoStimulus {
            rng: Rng::new(seed),
            n: g.subwarps(),
            w: g.group_size,
            s: g.subwarp_size,
            p: g.pc_bits,
            swb: g.subwarp_bits(),
            nw: g.subwarps().div_ceil(64),
            inp: model.inp,
            phase_left: 0,
            cr_density: 2,
            pcs: [0; 4],
            n_pcs: 2,
            cr: Bits::ZERO,
            matched: Bits::ZERO,
            grp_pc: vec![0; (g.group_size * g.pc_bits).div_ceil(64)],
            grp_mask: vec![0; g.warp_mask_bits().div_ceil(64)],
        }
    }
}

impl DwrScoStimulus {
    /// Member `j`'s PC and mask fields from two random bits each.
    fn draw_member(&mut self, j: usize, bits: u64, mask_bits: u64, noise: u64) {
        let pc = self.pcs[(bits & 3) as usize];
        self.grp_pc.set_field(j, self.p, pc);
        let mask = match mask_bits & 3 {
            0 => noise,
            1 => 0,
            _ => u64::MAX,
        };
        self.grp_mask.set_field(j, self.s, mask);
    }
}

impl Stimulus for DwrScoStimulus {
    fn next(&mut self, _cycle: u64, _prev_outputs: &[u64], inputs: &mut [u64]) {
        inputs.iter_mut().for_each(|x| *x = 0);
        let (w, n) = (self.w, self.n);
        let mut redraw = false;
        if self.phase_left == 0 {
            let r = &mut self.rng;
            self.phase_left = 100 + r.below(400);
            self.cr_density = 1 + r.below(4);
            self.n_pcs = 1 + r.below(3);
            let mask = if self.p >= 64 {
                u64::MAX
            } else {
                (1u64 << self.p) - 1
            };
            let values = [
                r.next_u64() & mask,
                r.next_u64() & mask,
                r.next_u64() & mask,
            ];
            // Two random bits pick one of the phase's 1–3 PC values.
            for (k, pc) in self.pcs.iter_mut().enumerate() {
                *pc = values[k % self.n_pcs as usize];
            }
            redraw = true;
        }
        self.phase_left -= 1;
        let i = self.inp;
        let d = self.rng.next_u64();
        // The unit is combinational: a full re-draw of cr, matched and the group's fields
        // now and then, otherwise one word of cr/matched and two members change.
        if redraw || d >> 60 == 0 {
            self.cr = Bits::random(&mut self.rng, n, 2 * self.cr_density as u8);
            self.matched = Bits::random(&mut self.rng, n, 4);
            let (dp, dm, noise) = (
                self.rng.next_u64(),
                self.rng.next_u64(),
                self.rng.next_u64(),
            );
            for j in 0..w {
                self.draw_member(
                    j,
                    dp >> (2 * j),
                    dm >> (2 * j),
                    noise.rotate_left(8 * j as u32),
                );
            }
        } else {
            let k = (d >> 40) as usize % self.nw;
            let fresh = Bits::random(&mut self.rng, 64, 2 * self.cr_density as u8);
            self.cr.0[k] = fresh.0[0] & Bits::low(n).0[k];
            self.matched.0[k] ^= self.rng.next_u64() & Bits::low(n).0[k];
            let e = self.rng.next_u64();
            for t in 0..2 {
                let j = ((e >> (16 * t)) & 7) as usize % w;
                self.draw_member(
                    j,
                    e >> (32 + 4 * t),
                    e >> (34 + 4 * t),
                    e.rotate_left(13 * t as u32),
                );
            }
        }
        self.cr.write(&mut inputs[i.cr..], self.nw);
        self.matched.write(&mut inputs[i.matched..], self.nw);
        let (pw, mw) = (self.grp_pc.len(), self.grp_mask.len());
        inputs[i.grp_pc..i.grp_pc + pw].copy_from_slice(&self.grp_pc);
        inputs[i.grp_mask..i.grp_mask + mw].copy_from_slice(&self.grp_mask);
        // The selection: mostly a combine-ready sub-warp, sometimes any, sometimes ≥ N.
        let any = ((d >> 32 & 0xFFFF_FFFF) * n as u64 >> 32) as usize;
        let sel = match d & 31 {
            0 => (d >> 8) as usize & ((1 << self.swb) - 1),
            1..=8 => any,
            _ => self
                .cr
                .first_from(any)
                .or_else(|| self.cr.first_from(0))
                .unwrap_or(any),
        };
        inputs[i.sel_valid] = (d >> 5 & 15 != 0) as u64;
        inputs.set_field_at(i.sel_sw, 0, self.swb, sel as u64);
    }
}

// ---------------------------------------------------------------------------------------
// Spec vectors

/// The directed vectors of `dwr-sco` (docs/dwr.md §8.15).
pub fn spec_vectors() -> Vec<SpecVector> {
    let pcs = |a: u64, b: u64, c: u64, d: u64| pack_fields(32, &[a, b, c, d]);
    let fused = |members: u64, size: u64, pc: u64, mask: u64, sel_cr: bool| {
        vec![
            ("bundle_valid", vec![1]),
            ("bundle_fused", vec![sel_cr as u64]),
            ("bundle_group", vec![0]),
            ("bundle_members", vec![members]),
            ("bundle_size", vec![size]),
            ("bundle_pc", vec![pc]),
            ("bundle_mask", vec![mask]),
        ]
    };
    let sel = |sw: u64, cr: u64, grp_pc: Vec<u64>| {
        vec![
            ("sel_valid", vec![1]),
            ("sel_sw", vec![sw]),
            ("cr", vec![cr]),
            ("grp_pc", grp_pc),
            ("grp_mask", vec![0x00FF_FFFF]),
        ]
    };
    let small = ["threads=32", "group_size=4", "sco_match=pc"];
    let mut v = vec![];
    v.push(
        Vb::new(
            "dwr.md §4 SCO: fuse exactly the combine-ready partners at the selected PC",
            dwr_sco::NAME,
            &small,
        )
        .cycle_words(
            &sel(0, 0b0101, pcs(11, 15, 11, 0)),
            &fused(0b0101, 2, 11, 0x00FF_00FF, true),
        )
        .cycle_words(
            &sel(2, 0b0101, pcs(11, 15, 11, 0)),
            &fused(0b0101, 2, 11, 0x00FF_00FF, true),
        )
        .cycle_words(
            &sel(0, 0b0101, pcs(11, 15, 12, 0)),
            &fused(0b0001, 1, 11, 0x0000_00FF, true),
        )
        .cycle_words(
            &sel(0, 0b0111, pcs(11, 11, 11, 0)),
            &fused(0b0111, 3, 11, 0x00FF_FFFF, true),
        )
        .cycle_words(
            &sel(0, 0, pcs(11, 15, 11, 0)),
            &fused(0b0001, 1, 11, 0x0000_00FF, false),
        )
        // A plain (READY) selection issues alone even when partners are combine-ready.
        .cycle_words(
            &sel(1, 0b0101, pcs(11, 11, 11, 0)),
            &fused(0b0010, 1, 11, 0x0000_FF00, false),
        )
        // No selection: every output 0.
        .cycle_words(
            &[
                ("sel_valid", vec![0]),
                ("sel_sw", vec![0]),
                ("cr", vec![0b0101]),
                ("grp_pc", pcs(11, 15, 11, 0)),
            ],
            &[
                ("bundle_valid", vec![0]),
                ("bundle_fused", vec![0]),
                ("bundle_members", vec![0]),
                ("bundle_size", vec![0]),
                ("bundle_pc", vec![0]),
                ("bundle_mask", vec![0]),
            ],
        )
        .done(),
    );

    // A second group: positions are relative to the group; the group number is reported.
    v.push(
        Vb::new(
            "dwr-sco group 1 of two: members are positions in the window",
            dwr_sco::NAME,
            &["threads=64", "group_size=4"],
        )
        .cycle_words(
            &[
                ("sel_valid", vec![1]),
                ("sel_sw", vec![5]),
                ("cr", vec![0b1110_0001]),
                ("grp_pc", pcs(7, 9, 9, 9)),
                ("grp_mask", vec![0x0F0F_F0FF]),
            ],
            &[
                ("bundle_valid", vec![1]),
                ("bundle_fused", vec![1]),
                ("bundle_group", vec![1]),
                ("bundle_members", vec![0b1110]),
                ("bundle_size", vec![3]),
                ("bundle_pc", vec![9]),
                ("bundle_mask", vec![0x0F0F_F000]),
            ],
        )
        .done(),
    );

    // A5 "matched": an unmatched selection issues alone; a matched one takes every matched
    // combine-ready partner, whatever grp_pc says.
    let mt = ["threads=32", "group_size=4", "sco_match=matched"];
    let msel = |sw: u64, matched: u64| {
        let mut x = sel(sw, 0b0101, pcs(11, 15, 13, 0));
        x.push(("matched", vec![matched]));
        x
    };
    v.push(
        Vb::new(
            "dwr.md A5 sco_match=matched: matched bits decide, not PCs",
            dwr_sco::NAME,
            &mt,
        )
        .cycle_words(&msel(0, 0b0100), &fused(0b0001, 1, 11, 0x0000_00FF, true))
        .cycle_words(&msel(2, 0b0100), &fused(0b0100, 1, 13, 0x00FF_0000, true))
        .cycle_words(&msel(0, 0b0101), &fused(0b0101, 2, 11, 0x00FF_00FF, true))
        .cycle_words(&msel(2, 0b0111), &fused(0b0101, 2, 13, 0x00FF_00FF, true))
        .done(),
    );

    // A selection of a sub-warp number ≥ N (N = 12 with 4-bit numbers) is no bundle.
    v.push(
        Vb::new(
            "dwr-sco sel_sw >= N is no bundle",
            dwr_sco::NAME,
            &["threads=96", "group_size=4"],
        )
        .cycle_words(
            &[
                ("sel_valid", vec![1]),
                ("sel_sw", vec![13]),
                ("cr", vec![0xFFF]),
                ("grp_pc", pcs(1, 1, 1, 1)),
            ],
            &[
                ("bundle_valid", vec![0]),
                ("bundle_members", vec![0]),
                ("bundle_size", vec![0]),
            ],
        )
        .cycle_words(
            &[
                ("sel_valid", vec![1]),
                ("sel_sw", vec![11]),
                ("cr", vec![0xFFF]),
                ("grp_pc", pcs(1, 1, 1, 1)),
                ("grp_mask", vec![u64::MAX >> 32]),
            ],
            &[
                ("bundle_valid", vec![1]),
                ("bundle_group", vec![2]),
                ("bundle_members", vec![0b1111]),
                ("bundle_size", vec![4]),
            ],
        )
        .done(),
    );
    v
}
