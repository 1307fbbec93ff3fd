//! `crown-pool`: CROWN's issue pool, the first-level scheduler (spec/crown.md §3.4.1, §3.9
//! steps 4–5; A6, A15).
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::crown_pool`)
//! and the model (`warpforge_testbench::crown_pool`) are written from it independently. The
//! `crown` top instantiates the RTL block and composes the model.
//!
//! # What the unit is
//!
//! `pool` entries (8 in the thesis), each `{valid, pc, lanes[w], thi[w], slot}` where `slot`
//! is the warp's second-level row (A6). One refill write and one select/issue per cycle.
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous; next state: every entry invalid, last-issued pointer = pool − 1
//!   (so the first selection searches from entry 0).
//! - `ref_valid, ref_pc, ref_lanes, ref_thi, ref_slot`: a refill (T1), written at the edge
//!   into the lowest entry that is free at the start of the cycle (thi of lanes outside
//!   `ref_lanes` stored as 0).
//! - `issue`: the selected entry is issued (T2) and freed at the edge; ignored without
//!   `sel_valid`. The freed entry is usable by a refill from the next cycle on.
//!
//! Protocol (the `crown` top keeps it; the model flags a break, the RTL then ignores the
//! refill): `ref_valid` only with `has_free`.
//!
//! # Selection (LRR, A15)
//!
//! From start-of-cycle state: the first valid entry in the order `last+1, last+2, …, last`
//! (modulo `pool`), where `last` is the entry issued most recently. `last` changes only on
//! an issue (to the issued entry).
//!
//! # Outputs (functions of registered state; none depends on this cycle's inputs)
//!
//! - `has_free`: some entry is invalid; `count[cb]`: valid entries.
//! - `sel_valid, sel_idx, sel_pc, sel_lanes, sel_thi, sel_slot`: the selected entry (all 0
//!   when no entry is valid).
//! - Debug: `dbg_valid[pool]`, `dbg_last[ib]`, `dbg_slot[pool·rb]` (entry e's slot at bits
//!   e·rb, 0 for an invalid entry).
//!
//! # Storage
//!
//! Not in Table 4-1 (§3.4.1: baseline-equivalent): `base_pool` = pool × (1 + P + w + w·tb +
//! rb) and `base_lrr_last` = ib.

use super::crown::{self, CrownCommon};
use super::crown_l2::{check_n2, N2, POOL};
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "crown-pool";

pub const PARAMS: &[ParamSpec] = &[POOL, N2, crown::W, crown::THREADS, crown::PC_BITS];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolConfig {
    pub common: CrownCommon,
    pub pool: usize,
    /// Second-level rows: the width of `slot`.
    pub n2: usize,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            common: CrownCommon::default(),
            pool: 8,
            n2: 512,
        }
    }
}

impl PoolConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let common = CrownCommon::from_params(p)?;
        let (pool, n2) = (p.int("pool"), p.int("n2"));
        check_n2(n2, pool)?;
        Ok(PoolConfig {
            common,
            pool: pool as usize,
            n2: n2 as usize,
        })
    }

    /// Entry-index bits.
    pub fn idx_bits(&self) -> usize {
        index_bits(self.pool)
    }

    /// Slot (second-level row) bits.
    pub fn slot_bits(&self) -> usize {
        index_bits(self.n2)
    }

    /// Bits of a count 0 ..= pool.
    pub fn count_bits(&self) -> usize {
        index_bits(self.pool + 1)
    }

    pub fn entry_bits(&self) -> usize {
        let c = &self.common;
        1 + c.pc_bits + c.w + c.thi_vec_bits() + self.slot_bits()
    }

    pub fn module_name(&self) -> String {
        let c = &self.common;
        format!(
            "crown_pool_e{}_n{}_w{}_t{}_p{}",
            self.pool, self.n2, c.w, c.threads, c.pc_bits
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let c = &self.common;
        let (ib, sb, p, w, tv) = (
            self.idx_bits(),
            self.slot_bits(),
            c.pc_bits,
            c.w,
            c.thi_vec_bits(),
        );
        vec![
            Port::input("reset", 1, "synchronous reset: every entry invalid"),
            Port::input("ref_valid", 1, "refill the lowest free entry"),
            Port::input("ref_pc", p, "the warp's PC"),
            Port::input("ref_lanes", w, "its lane-valid mask"),
            Port::input("ref_thi", tv, "lane l's thread index at l*thi_bits"),
            Port::input("ref_slot", sb, "its second-level row"),
            Port::input("issue", 1, "issue the selected entry (freed at the edge)"),
            Port::output("has_free", 1, false, "some entry is free"),
            Port::output("sel_valid", 1, false, "an entry is selected (LRR)"),
            Port::output("sel_idx", ib, false, "the selected entry"),
            Port::output("sel_pc", p, false, "its PC"),
            Port::output("sel_lanes", w, false, "its lanes"),
            Port::output("sel_thi", tv, false, "its thread indices"),
            Port::output("sel_slot", sb, false, "its second-level row"),
            Port::output("count", self.count_bits(), false, "valid entries"),
            Port::debug("dbg_valid", self.pool, "entry e valid at bit e"),
            Port::debug("dbg_last", ib, "the entry issued most recently"),
            Port::debug("dbg_slot", self.pool * sb, "entry e's slot at e*slot_bits"),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        vec![
            Table::new(
                "base_pool",
                self.pool,
                self.entry_bits(),
                "issue-pool entries {valid, pc, lanes, thi[w], slot} (§3.4.1; baseline-equivalent)",
            ),
            Table::new(
                "base_lrr_last",
                1,
                self.idx_bits(),
                "the entry issued most recently (LRR)",
            ),
        ]
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

    fn cfg(sets: &[&str]) -> Result<PoolConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        PoolConfig::from_params(&p)
    }

    #[test]
    fn defaults_and_widths() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, PoolConfig::default());
        assert_eq!((c.idx_bits(), c.slot_bits(), c.count_bits()), (3, 9, 4));
        assert_eq!(c.entry_bits(), 1 + 32 + 8 + 56 + 9);
        assert_port_names_ok(&c.ports());
        let c = cfg(&["pool=16", "n2=16"]).unwrap();
        assert_eq!((c.idx_bits(), c.slot_bits(), c.count_bits()), (4, 4, 5));
        let c = cfg(&["pool=2", "n2=16"]).unwrap();
        assert_eq!((c.idx_bits(), c.count_bits()), (1, 2));
    }

    #[test]
    fn validation() {
        assert_eq!(
            cfg(&["pool=16", "n2=8"]).unwrap_err().0,
            "n2 = 8: must be a power of two from pool = 16 to 4096"
        );
        assert_eq!(
            cfg(&["pool=17"]).unwrap_err().0,
            "--set pool=17: pool must be an integer from 2 to 16"
        );
    }
}
