//! `crown-l2`: CROWN's second-level warp table (spec/crown.md §3.3, §3.4.2; A3–A6).
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::crown_l2`)
//! and the model (`warpforge_testbench::crown_l2`) are written from it independently. The
//! `crown` top instantiates the RTL block and composes the model.
//!
//! # What the unit is
//!
//! `n2` direct-indexed rows (512 in Table 4-1). A row's payload — `pc`, `lanes[w]` and
//! `thi[w]` — lives in block RAM (the RAM primitive, one write and one registered read per
//! cycle); its 2-bit `state` and its `in_pool` bit live in flip-flops. States (A4): `0` free,
//! `1` ready, `2` waiting-exec (instruction in flight), `3` waiting-sync (`__syncthreads`).
//! The **ready FIFO** holds row indices in the order the rows became ready; several rows
//! becoming ready in one cycle are pushed in ascending index (§3.4.2). A row is on the FIFO
//! iff it is ready and not in the issue pool; `ready_count` is the FIFO's length (what T5/T7
//! test). The pool holds a copy of a popped row's warp and the row index (A6: behaviourally a
//! move — the row stays ready with `in_pool` set until the pool issues it).
//!
//! # Sizes
//!
//! `rb` = log2 n2 row-index bits, `P` = `pc_bits`, `tb` = log2(threads / w) thread-index bits.
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous; next state: every row free, not in the pool, the FIFO empty, no
//!   read result. The RAM is not cleared (a row is always written when it is allocated).
//! - `ins_valid, ins_pc, ins_lanes, ins_thi`: insert a new ready warp (T0, or a bypass from
//!   the Ready Lookup, A10) into row `ins_row`: state ready, pushed on the FIFO.
//! - `upd_valid, upd_row, upd_state, upd_wr, upd_pc, upd_lanes`: commit update of row
//!   `upd_row` (T3, T4's free, T8, T10, exit): its state becomes `upd_state` (ready pushes
//!   it on the FIFO; free frees it); with `upd_wr` its `pc` and `lanes` are written too (its
//!   `thi` is kept: threads never change lane, a commit only drops lanes).
//! - `pop`: refill (T1). If the FIFO is non-empty at the start of the cycle, its head row
//!   leaves the FIFO at the edge, is marked `in_pool`, and its payload is read; otherwise
//!   nothing happens.
//! - `iss_valid, iss_row`: the pool issued row `iss_row`'s warp (T2): state waiting-exec,
//!   `in_pool` cleared.
//!
//! Protocol (the `crown` top keeps it; the model flags a break as a contract violation, the
//! RTL's behaviour is then unspecified):
//! - **one payload write per cycle**: not `ins_valid` together with `upd_valid ∧ upd_wr`;
//! - `ins_valid` only when not `full` (A5: overflow stalls commit);
//! - `upd_row` is a waiting row (state 2 or 3) not in the pool;
//! - `iss_row` is a row in the pool.
//!
//! # One cycle (not in reset; every decision reads start-of-cycle state)
//!
//! 1. `ins_row` = the lowest free row. With `ins_valid`: row `ins_row` ← `{pc, lanes, thi}`
//!    (thi of lanes outside `lanes` stored as 0), state ready.
//! 2. With `upd_valid`: state[upd_row] ← `upd_state`; with `upd_wr` also pc and lanes.
//! 3. With `pop` and a non-empty FIFO: head row `h` leaves the FIFO, `in_pool[h]` ← 1, and
//!    `out_valid, out_row = h, out_pc, out_lanes, out_thi` show its payload in the NEXT cycle
//!    (the RAM's one-cycle read latency).
//! 4. With `iss_valid`: state[iss_row] ← waiting-exec, `in_pool[iss_row]` ← 0.
//! 5. FIFO pushes: the rows that became ready this cycle (step 1's row; step 2's row when
//!    `upd_state` is ready), ascending index, after the existing entries.
//!
//! # Outputs
//!
//! Functions of registered state (none depends on this cycle's inputs):
//! - `ins_row[rb]`: the lowest free row (0 when `full`); `full`: no free row.
//! - `out_valid`: a pop took effect at the last edge; `out_row`, `out_pc`, `out_lanes`,
//!   `out_thi` its row and payload as it was at that edge (thi of lanes outside `out_lanes`
//!   read as 0); all zero without `out_valid`.
//! - `ready_count[rb+1]`: FIFO length; `free_count[rb+1]`: free rows; `occupancy[rb+1]`:
//!   rows not free (n2 − free_count).
//! - Debug (state digest): `dbg_state[2·n2]` as two bit-planes (bit 0 of row r's state at
//!   bit r, bit 1 at bit n2 + r), `dbg_in_pool[n2]`, `dbg_head[rb]` (the FIFO head's row, 0
//!   when empty).
//!
//! # Storage
//!
//! Counted (Table 4-1): `l2` = n2 × (P + w·tb + 2) — 512 × 90 = 46,080 bits. Extras (A3):
//! `extra_lane_valid` n2 × w, `extra_in_pool` n2 × 1, `extra_ready_fifo` n2 × rb and its
//! pointers (head, tail, count).

use super::crown::{self, CrownCommon};
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "crown-l2";

/// Largest `n2` (the RAM primitive's depth limit).
pub const MAX_N2: usize = 4096;

pub const N2: ParamSpec = ParamSpec::int(
    "n2",
    2,
    MAX_N2 as i64,
    512,
    "second-level rows (a power of two, at least pool); 512 as Table 4-1, N/w or N per A5",
);
/// Issue-pool entries (shared with `crown-pool`).
pub const POOL: ParamSpec = ParamSpec::int(
    "pool",
    2,
    16,
    8,
    "issue-pool entries (§3.4.1: 8); here it bounds the rows in the pool",
);

pub const PARAMS: &[ParamSpec] = &[N2, POOL, crown::W, crown::THREADS, crown::PC_BITS];

/// State codes (A4).
pub const FREE: u64 = 0;
pub const READY: u64 = 1;
pub const WAIT_EXEC: u64 = 2;
pub const WAIT_SYNC: u64 = 3;

/// Validates `n2` against the pool it feeds: a power of two, at least `pool`, at most 4096.
pub fn check_n2(n2: i64, pool: i64) -> Result<(), ParamError> {
    if !(n2 as u64).is_power_of_two() || n2 < pool || n2 > MAX_N2 as i64 {
        return Err(ParamError(format!(
            "n2 = {n2}: must be a power of two from pool = {pool} to {MAX_N2}"
        )));
    }
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct L2Config {
    pub common: CrownCommon,
    pub n2: usize,
    pub pool: usize,
}

impl Default for L2Config {
    fn default() -> Self {
        L2Config {
            common: CrownCommon::default(),
            n2: 512,
            pool: 8,
        }
    }
}

impl L2Config {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let common = CrownCommon::from_params(p)?;
        let (n2, pool) = (p.int("n2"), p.int("pool"));
        check_n2(n2, pool)?;
        Ok(L2Config {
            common,
            n2: n2 as usize,
            pool: pool as usize,
        })
    }

    /// Row-index bits.
    pub fn row_bits(&self) -> usize {
        index_bits(self.n2)
    }

    /// Bits of a count 0 ..= n2.
    pub fn count_bits(&self) -> usize {
        self.row_bits() + 1
    }

    /// Table 4-1's row: pc + w thread indices + 2 state bits.
    pub fn counted_row_bits(&self) -> usize {
        self.common.pc_bits + self.common.thi_vec_bits() + 2
    }

    pub fn module_name(&self) -> String {
        let c = &self.common;
        format!(
            "crown_l2_n{}_w{}_t{}_p{}",
            self.n2, c.w, c.threads, c.pc_bits
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let c = &self.common;
        let (rb, cb, p, w, tv) = (
            self.row_bits(),
            self.count_bits(),
            c.pc_bits,
            c.w,
            c.thi_vec_bits(),
        );
        vec![
            Port::input("reset", 1, "synchronous reset: every row free, FIFO empty"),
            Port::input("ins_valid", 1, "insert a new ready warp into row ins_row"),
            Port::input("ins_pc", p, "its PC"),
            Port::input("ins_lanes", w, "its lane-valid mask"),
            Port::input("ins_thi", tv, "lane l's thread index at l*thi_bits"),
            Port::input("upd_valid", 1, "commit update of row upd_row"),
            Port::input("upd_row", rb, "the row updated"),
            Port::input(
                "upd_state",
                2,
                "its new state: 0 free, 1 ready, 2 waiting-exec, 3 waiting-sync",
            ),
            Port::input("upd_wr", 1, "also write pc and lanes (thi kept)"),
            Port::input("upd_pc", p, "the PC written"),
            Port::input("upd_lanes", w, "the lanes written"),
            Port::input(
                "pop",
                1,
                "refill: take the ready FIFO head (ignored when empty); payload next cycle",
            ),
            Port::input("iss_valid", 1, "the pool issued row iss_row's warp"),
            Port::input("iss_row", rb, "the row issued: becomes waiting-exec"),
            Port::output("ins_row", rb, false, "the lowest free row (0 when full)"),
            Port::output("full", 1, false, "no free row"),
            Port::output("out_valid", 1, false, "a pop took effect at the last edge"),
            Port::output("out_row", rb, false, "the row popped"),
            Port::output("out_pc", p, false, "its PC (0 without out_valid)"),
            Port::output("out_lanes", w, false, "its lanes"),
            Port::output("out_thi", tv, false, "its thread indices (0 outside lanes)"),
            Port::output(
                "ready_count",
                cb,
                false,
                "rows on the ready FIFO: ready and not in the pool",
            ),
            Port::output("free_count", cb, false, "free rows"),
            Port::output("occupancy", cb, false, "rows not free"),
            Port::debug(
                "dbg_state",
                2 * self.n2,
                "state bit 0 of row r at bit r, bit 1 at bit n2+r",
            ),
            Port::debug("dbg_in_pool", self.n2, "row r in the issue pool at bit r"),
            Port::debug("dbg_head", rb, "the ready FIFO's head row (0 when empty)"),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let (n, c) = (self.n2, &self.common);
        vec![
            Table::new(
                "l2",
                n,
                self.counted_row_bits(),
                "second-level rows {pc, thi[w], state[2]} (Table 4-1); pc and thi in block RAM",
            ),
            Table::new(
                "extra_lane_valid",
                n,
                c.w,
                "per-row lane-valid mask (A3), in block RAM with the pc",
            ),
            Table::new("extra_in_pool", n, 1, "per-row in-pool bit (A6)"),
            Table::new(
                "extra_ready_fifo",
                n,
                self.row_bits(),
                "ready FIFO of row indices (§3.4.2 [R])",
            ),
            Table::new(
                "extra_fifo_pointers",
                1,
                2 * self.row_bits() + self.count_bits(),
                "ready FIFO head, tail and count",
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
    use crate::manifest::split_storage;
    use crate::units::dwr::assert_port_names_ok;

    fn cfg(sets: &[&str]) -> Result<L2Config, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        L2Config::from_params(&p)
    }

    #[test]
    fn table_4_1_row_and_bits() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, L2Config::default());
        assert_eq!(c.counted_row_bits(), 90);
        let s = split_storage(&c.tables());
        assert_eq!(s.counted_bits, 46_080);
        assert_eq!(s.extra_bits, 512 * 8 + 512 + 512 * 9 + 28);
        assert_port_names_ok(&c.ports());
        // n2 = N/w (A5) at the defaults: 128 rows.
        let a5 = cfg(&["n2=128"]).unwrap();
        assert_eq!((a5.row_bits(), a5.count_bits()), (7, 8));
    }

    #[test]
    fn bad_n2_names_what_is_allowed() {
        assert_eq!(
            cfg(&["n2=4"]).unwrap_err().0,
            "n2 = 4: must be a power of two from pool = 8 to 4096"
        );
        assert_eq!(
            cfg(&["n2=100"]).unwrap_err().0,
            "n2 = 100: must be a power of two from pool = 8 to 4096"
        );
        assert_eq!(
            cfg(&["n2=8192"]).unwrap_err().0,
            "--set n2=8192: n2 must be an integer from 2 to 4096"
        );
        assert!(cfg(&["n2=2", "pool=2"]).is_ok());
    }
}
