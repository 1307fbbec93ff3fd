//! `dwr-pst`: DWR's Partner-Synch Table (spec/dwr.md §2.7, §3.4, §3.5; decisions A1, A2, A4,
//! A6 and rules D1, D2, D4, D5 of §3.7).
//!
//! This comment is the normative cycle-level contract of the unit; the same table is embedded
//! in the composite unit [`super::dwr`], which drives these inputs from its own state.
//!
//! One row per partner group `n` (sub-warps `nW … nW+W−1`, `W` = `group_size`): `valid`, `pc`
//! (the barrier PC of the episode's first non-bypassed arrival) and `lock[W]` (bit `m`: sub-warp
//! `nW+m` is waiting at a sensitive barrier). At most one barrier arrival per cycle (a
//! single-issue SM with a fixed barrier latency, §2.7: one read-modify-write port), and the
//! release condition Eq. 5-1 evaluated for every row every cycle, so that an exit alone, or a
//! partner blocking in `__syncthreads`, releases a group.
//!
//! # Sizes
//!
//! `N = threads / subwarp_size` sub-warps, `M = N/W` rows, `P` = `pc_bits`, `swb` =
//! [`super::dwr::Geometry::subwarp_bits`]. Per-sub-warp vectors carry sub-warp `s` in bit `s`;
//! per-row vectors row `n` in bit `n`.
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous; next state = reset state (every row invalid, lock 0); other inputs
//!   ignored; outputs in a reset cycle are unspecified (not compared).
//! - `arr_valid`, `arr_sw[swb]`, `arr_pc[P]`, `arr_hit`: a `bar.synch_partner` of sub-warp
//!   `arr_sw` at PC `arr_pc` acts this cycle (the end of its BAR_LAT), and `arr_hit` is its ILT
//!   lookup result. An `arr_sw ≥ N` is ignored (no arrival).
//! - `sw_valid[N]`: the scheduler's valid vector `A` of Eq. 5-1 as it is at the END of this
//!   cycle, i.e. after this cycle's exits and launches (§3.10 rules 4, 5).
//! - `sw_blockbar[N]`: sub-warps blocked in `__syncthreads` (WAIT_BLOCKBAR) at the end of this
//!   cycle (rule D4).
//!
//! The unit does not check these against each other: every combination has the effect below
//! (in the composite a locked sub-warp is always valid and not WAIT_BLOCKBAR).
//!
//! # One cycle (not in reset)
//!
//! 1. **Arrival** (§3.4 step 1, D1). If `arr_valid` and not `arr_hit` (an ILT hit bypasses:
//!    the PST is untouched, I-BYPASS), with `n = arr_sw / W`, `m = arr_sw mod W`:
//!    - row `n` invalid: it opens: valid 1, pc `arr_pc`, lock = only bit `m`;
//!    - valid, pc = `arr_pc`: lock bit `m` is set;
//!    - valid, pc ≠ `arr_pc`: lock bit `m` is set, the row pc is unchanged (A4), and
//!      `arr_mismatch` = 1: the ILT must insert `arr_pc` (the PC comparator, §2.7).
//! 2. **Release** (Eq. 5-1 as corrected in §3.5 / A1, plus D4; A2/D5: every row, every cycle),
//!    on the rows as left by step 1. Member `m` of row `n` (sub-warp `s = nW+m`) has *arrived*
//!    when `¬sw_valid[s] ∨ lock[m] ∨ sw_blockbar[s]`. Row `n` releases (`rel[n]`) when it is
//!    valid and all `W` members have arrived. Then `released[s] = lock[m]` for its members (the
//!    scheduler makes them COMBINE_READY; a WAIT_BLOCKBAR member is not released, D4) and the
//!    row is cleared: valid 0, lock 0 (A6). `rel_d4[n]` = the row releases and some member
//!    arrived only by D4: `sw_valid[s] ∧ sw_blockbar[s] ∧ ¬lock[m]`.
//!
//! A row opened or completed by this cycle's arrival and released by step 2 is never seen
//! valid in the registered state (spec S2: end-of-cycle lock vector 0x7F → 0x00).
//!
//! # Outputs
//!
//! All combinational (Mealy): `arr_mismatch` (step 1), `rel[M]`, `rel_d4[M]` and
//! `released[N]` (step 2).
//!
//! # State digest (registered state at the start of the cycle)
//!
//! `dbg_valid[M]`: row `n` at bit `n`. `dbg_pc[M·P]`: row `n`'s pc in bits `[n·P, (n+1)·P)`,
//! 0 for an invalid row. `dbg_lock[M·W]`: lock bit `m` of row `n` at bit `n·W+m` (0 for an
//! invalid row, as the lock is cleared with valid).
//!
//! # Storage
//!
//! `pst`: `M × (1 + P + W)` — the thesis' rows: 16 × 41 b = 82 B for DWR-64 with 1024 threads,
//! S = 8 and 32-bit PCs; 32 × 37 b = 148 B for W = 4; 64 × 35 b = 280 B for W = 2. Nothing
//! beyond the thesis count.

use super::dwr::{self, Geometry};
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "dwr-pst";

pub const PARAMS: &[ParamSpec] = &[
    dwr::SUBWARP_SIZE,
    dwr::THREADS,
    dwr::GROUP_SIZE,
    dwr::PC_BITS,
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PstConfig {
    pub geometry: Geometry,
}

impl PstConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        Ok(PstConfig {
            geometry: Geometry::from_params(p)?,
        })
    }

    /// M: rows.
    pub fn rows(&self) -> usize {
        self.geometry.groups()
    }

    /// Bits of one row: valid + pc + lock[W].
    pub fn row_bits(&self) -> usize {
        self.geometry.pst_row_bits()
    }

    pub fn module_name(&self) -> String {
        let g = &self.geometry;
        format!("dwr_pst_n{}_g{}_p{}", g.subwarps(), g.group_size, g.pc_bits)
    }

    pub fn ports(&self) -> Vec<Port> {
        let g = &self.geometry;
        let (n, m, w, p) = (g.subwarps(), g.groups(), g.group_size, g.pc_bits);
        vec![
            Port::input("reset", 1, "synchronous reset: every row invalid"),
            Port::input("arr_valid", 1, "a bar.synch_partner acts this cycle"),
            Port::input("arr_sw", g.subwarp_bits(), "its sub-warp"),
            Port::input("arr_pc", p, "its PC"),
            Port::input(
                "arr_hit",
                1,
                "its PC hits in the ILT: bypass, the PST is untouched",
            ),
            Port::input(
                "sw_valid",
                n,
                "per sub-warp: valid (not EMPTY) at the end of this cycle",
            ),
            Port::input(
                "sw_blockbar",
                n,
                "per sub-warp: blocked in __syncthreads at the end of this cycle (rule D4)",
            ),
            Port::output(
                "arr_mismatch",
                1,
                true,
                "the arrival locked in a valid row with another PC: insert arr_pc into the ILT",
            ),
            Port::output(
                "rel",
                m,
                true,
                "per row: Eq. 5-1 releases the group at the end of this cycle",
            ),
            Port::output(
                "rel_d4",
                m,
                true,
                "per row: released, and some member arrived only by rule D4",
            ),
            Port::output(
                "released",
                n,
                true,
                "per sub-warp: locked in a released row: becomes COMBINE_READY",
            ),
            Port::debug("dbg_valid", m, "row valid bits"),
            Port::debug(
                "dbg_pc",
                m * p,
                "row n's barrier PC at n*pc_bits (0 if invalid)",
            ),
            Port::debug("dbg_lock", m * w, "lock bit m of row n at n*W+m"),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        vec![Table::new(
            "pst",
            self.rows(),
            self.row_bits(),
            "PST rows {valid, barrier PC, lock[W]} (thesis §5-6)",
        )]
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
    use crate::units::dwr::assert_port_names_ok;

    fn cfg(sets: &[&str]) -> Result<PstConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        PstConfig::from_params(&p)
    }

    #[test]
    fn thesis_bytes_for_dwr64_32_16() {
        for (w, rows, row_bits, bytes) in [(8, 16, 41, 82), (4, 32, 37, 148), (2, 64, 35, 280)] {
            let c = cfg(&[&format!("group_size={w}")]).unwrap();
            let t = c.tables();
            assert_eq!(t.len(), 1);
            assert_eq!((t[0].entries, t[0].bits), (rows, row_bits), "W = {w}");
            assert_eq!(t[0].total_bits(), bytes * 8, "W = {w}");
        }
    }

    #[test]
    fn port_widths() {
        let c = cfg(&[]).unwrap();
        let ports = c.ports();
        assert_port_names_ok(&ports);
        let w = |n: &str| ports.iter().find(|p| p.name == n).unwrap().width;
        assert_eq!(w("arr_sw"), 7);
        assert_eq!(w("sw_valid"), 128);
        assert_eq!(w("rel"), 16);
        assert_eq!(w("released"), 128);
        assert_eq!(w("dbg_pc"), 512);
        assert_eq!(w("dbg_lock"), 128);
        // DWR-16 with 16-thread sub-warps and 512 threads: 32 sub-warps, 16 rows of 2
        let c = cfg(&[
            "group_size=2",
            "subwarp_size=16",
            "threads=512",
            "pc_bits=20",
        ])
        .unwrap();
        let ports = c.ports();
        let w = |n: &str| ports.iter().find(|p| p.name == n).unwrap().width;
        assert_eq!(w("arr_sw"), 5);
        assert_eq!(w("rel"), 16);
        assert_eq!(w("dbg_pc"), 16 * 20);
        assert_eq!(w("dbg_lock"), 32);
        assert_eq!(c.row_bits(), 23);
        // all functional outputs are combinational, all dbg ports registered
        assert!(ports
            .iter()
            .filter(|p| p.dir == crate::manifest::Dir::Out && !p.debug)
            .all(|p| p.combinational));
        assert!(ports.iter().filter(|p| p.debug).all(|p| !p.combinational));
    }

    #[test]
    fn validation() {
        let e = cfg(&["threads=100"]).unwrap_err();
        assert_eq!(
            e.0,
            "threads = 100 must be a multiple of subwarp_size × group_size = 8 × 8 = 64"
        );
        let e = cfg(&["group_size=3"]).unwrap_err();
        assert!(e.0.starts_with("group_size = 3: must be 2, 4 or 8"), "{e}");
        let e = cfg(&["threads=2048", "subwarp_size=2", "group_size=2"]).unwrap_err();
        assert!(e.0.contains("1024 sub-warps; at most 256"), "{e}");
        assert!(cfg(&["threads=64"]).is_ok());
    }
}
