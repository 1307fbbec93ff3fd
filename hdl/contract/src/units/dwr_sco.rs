//! `dwr-sco`: DWR's Sub-warp COmbiner (spec/dwr.md §2.9, §3.6; decisions A5, A18, A19).
//!
//! This comment is the normative cycle-level contract of the unit; the same logic forms the
//! bundles of the composite unit [`super::dwr`].
//!
//! Given the scheduler's selection of one sub-warp, the SCO forms the bundle that issues: when
//! the selected sub-warp is COMBINE_READY, it and exactly those COMBINE_READY partners in its
//! group's window (sub-warps `nW … nW+W−1`, §2.9) that can share its instruction, fused into
//! one large warp; otherwise the selected sub-warp alone. The unit is purely combinational: it
//! has no state, no reset, no tables (the thesis does not size it), and no `dbg_*` ports.
//!
//! # Sizes
//!
//! `N = threads / subwarp_size`, `W` = `group_size`, `S` = `subwarp_size`, `P` = `pc_bits`,
//! `swb`, `gb`, `zb` = [`super::dwr::Geometry`]'s `subwarp_bits`, `group_bits`, `size_bits`.
//!
//! # Inputs
//!
//! - `sel_valid`, `sel_sw[swb]`: the scheduler selects sub-warp `sel = sel_sw`, of group
//!   `n = sel / W` at position `m = sel mod W`. With `sel_valid = 0`, or `sel_sw ≥ N`, there is
//!   no bundle.
//! - `cr[N]`: COMBINE_READY bit per sub-warp.
//! - `matched[N]`: per sub-warp, it locked at its row's PC (used only with
//!   `sco_match = matched`).
//! - `grp_pc[W·P]`, `grp_mask[W·S]`: current PC and SIMT active mask of each member of group
//!   `n` (member `j` = sub-warp `nW+j` in field `j`).
//!
//! # Function (all outputs combinational)
//!
//! - `bundle_valid` = a selection; `bundle_fused` = it and `cr[sel]`.
//! - `bundle_members[W]` (positions in group `n`): if fused, every `j` with `cr[nW+j]` and
//!   `match(j)`, where (A5, parameter `sco_match`)
//!   - `pc` ([REC], default): `grp_pc[j] = grp_pc[m]` — fuse exactly the combine-ready partners
//!     at the selected sub-warp's PC; the others issue on their own selection (D3);
//!   - `matched` (the cheaper equivalent of A5): `j = m ∨ (matched[sel] ∧ matched[nW+j])` — an
//!     unmatched selection issues alone; a matched one takes every matched combine-ready
//!     partner (they all locked at the row PC, so they are at one PC).
//!
//!   Not fused: only bit `m`. The selected sub-warp is always a member; a lone member is a
//!   1-sub-warp "large" warp (A19).
//! - `bundle_size[zb]`: number of members. `bundle_group[gb]`: `n`. `bundle_pc[P]`:
//!   `grp_pc[m]`.
//! - `bundle_mask[W·S]`: field `j` = `grp_mask` field `j` for members, 0 otherwise (the large
//!   warp's active mask: lanes inactive on a member's SIMT stack stay masked, A18).
//!
//! Every output is 0 when `bundle_valid` = 0.

use super::dwr::{self, Geometry};
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "dwr-sco";

pub const SCO_MATCH_CHOICES: &[&str] = &["pc", "matched"];
pub const SCO_MATCH: ParamSpec = ParamSpec::choice(
    "sco_match",
    SCO_MATCH_CHOICES,
    "pc",
    "A5: fuse combine-ready partners at the selected PC (pc) or by matched-row-PC bits (matched)",
);

pub const PARAMS: &[ParamSpec] = &[
    dwr::SUBWARP_SIZE,
    dwr::THREADS,
    dwr::GROUP_SIZE,
    dwr::PC_BITS,
    SCO_MATCH,
];

/// How the SCO decides which combine-ready partners share the selected instruction (A5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoMatch {
    /// Compare each partner's PC with the selected PC (up to W−1 comparators).
    Pc,
    /// Per-sub-warp "locked at the row PC" bits.
    Matched,
}

impl ScoMatch {
    pub fn from_name(name: &str) -> Result<ScoMatch, ParamError> {
        match name {
            "pc" => Ok(ScoMatch::Pc),
            "matched" => Ok(ScoMatch::Matched),
            other => Err(ParamError(format!(
                "sco_match = {other}: must be one of {}",
                SCO_MATCH_CHOICES.join(", ")
            ))),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoConfig {
    pub geometry: Geometry,
    pub sco_match: ScoMatch,
}

impl ScoConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        Ok(ScoConfig {
            geometry: Geometry::from_params(p)?,
            sco_match: ScoMatch::from_name(p.str("sco_match"))?,
        })
    }

    pub fn module_name(&self) -> String {
        let g = &self.geometry;
        format!(
            "dwr_sco_n{}_g{}_s{}_p{}_{}",
            g.subwarps(),
            g.group_size,
            g.subwarp_size,
            g.pc_bits,
            match self.sco_match {
                ScoMatch::Pc => "pc",
                ScoMatch::Matched => "mt",
            }
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let g = &self.geometry;
        let (n, w, p) = (g.subwarps(), g.group_size, g.pc_bits);
        vec![
            Port::input(
                "sel_valid",
                1,
                "the scheduler selects a sub-warp this cycle",
            ),
            Port::input("sel_sw", g.subwarp_bits(), "the selected sub-warp"),
            Port::input("cr", n, "per sub-warp: COMBINE_READY"),
            Port::input(
                "matched",
                n,
                "per sub-warp: locked at its row's PC (sco_match = matched)",
            ),
            Port::input(
                "grp_pc",
                w * p,
                "current PC of each member of the selected group (member j at j*pc_bits)",
            ),
            Port::input(
                "grp_mask",
                g.warp_mask_bits(),
                "active mask of each member of the selected group (member j at j*S)",
            ),
            Port::output("bundle_valid", 1, true, "a bundle issues"),
            Port::output(
                "bundle_fused",
                1,
                true,
                "the selected sub-warp is COMBINE_READY: a fused issue",
            ),
            Port::output("bundle_group", g.group_bits(), true, "group of the bundle"),
            Port::output(
                "bundle_members",
                w,
                true,
                "positions in the group of the members",
            ),
            Port::output(
                "bundle_size",
                g.size_bits(),
                true,
                "number of members (large-warp size in sub-warps)",
            ),
            Port::output(
                "bundle_pc",
                p,
                true,
                "PC of the bundle: the selected member's grp_pc",
            ),
            Port::output(
                "bundle_mask",
                g.warp_mask_bits(),
                true,
                "large-warp active mask: member fields of grp_mask, 0 elsewhere",
            ),
        ]
    }

    /// The SCO holds no state.
    pub fn tables(&self) -> Vec<Table> {
        vec![]
    }

    pub fn manifest(&self, params: &Params) -> Manifest {
        Manifest {
            unit: NAME.into(),
            module: self.module_name(),
            params: params.clone(),
            ports: self.ports(),
            tables: self.tables(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Dir;
    use crate::units::dwr::assert_port_names_ok;

    fn cfg(sets: &[&str]) -> Result<ScoConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        ScoConfig::from_params(&p)
    }

    #[test]
    fn port_widths() {
        for (sets, n_bits, members, size_bits, mask) in [
            (vec![], 7, 8, 4, 64),
            (vec!["group_size=4"], 7, 4, 3, 32),
            (
                vec!["group_size=2", "subwarp_size=32", "threads=2048"],
                6,
                2,
                2,
                64,
            ),
        ] {
            let c = cfg(&sets).unwrap();
            let ports = c.ports();
            assert_port_names_ok(&ports);
            let w = |n: &str| ports.iter().find(|p| p.name == n).unwrap().width;
            assert_eq!(w("sel_sw"), n_bits, "{sets:?}");
            assert_eq!(w("bundle_members"), members, "{sets:?}");
            assert_eq!(w("bundle_size"), size_bits, "{sets:?}");
            assert_eq!(w("bundle_mask"), mask, "{sets:?}");
            assert_eq!(w("grp_pc"), members * c.geometry.pc_bits, "{sets:?}");
            assert!(ports
                .iter()
                .filter(|p| p.dir == Dir::Out)
                .all(|p| p.combinational));
            assert!(ports.iter().all(|p| !p.debug));
            assert!(c.tables().is_empty());
        }
    }

    #[test]
    fn match_mode() {
        assert_eq!(cfg(&[]).unwrap().sco_match, ScoMatch::Pc);
        let m = cfg(&["sco_match=matched"]).unwrap();
        assert_eq!(m.sco_match, ScoMatch::Matched);
        assert_ne!(m.module_name(), cfg(&[]).unwrap().module_name());
        let e = cfg(&["threads=24", "group_size=2"]).unwrap_err();
        assert_eq!(
            e.0,
            "threads = 24 must be a multiple of subwarp_size × group_size = 8 × 2 = 16"
        );
    }
}
