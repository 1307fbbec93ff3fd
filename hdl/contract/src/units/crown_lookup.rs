//! `crown-lookup`: CROWN's dynamic regrouping tables (spec/crown.md §3.4.3, §3.4.4, §3.5
//! step 4, §3.7; decisions A9–A11, A13). One unit, two kinds:
//!
//! - `kind = ready`: the **Ready Lookup**, where the path warps of a divergent branch wait to
//!   merge lane by lane with other path warps at the same PC;
//! - `kind = waiting`: the **Waiting Lookup**, where partial warps that issued a long-latency
//!   load wait for their loads, merging whole warps at the same PC.
//!
//! This comment is the normative cycle-level contract; the `crown` top embeds the same block.
//!
//! # Rows
//!
//! `rows` rows (2 … 16, the thesis has 8), fully associative, each `{valid, pc, lanes[w],
//! thi[w], ord}`; the waiting kind adds `pending[w]`. A warp value is `{pc, lanes, thi}` as in
//! [`super::crown`]; a row stores `thi` 0 for every lane outside `lanes`. `ord` is the row's
//! place in drain order: among the rows eligible for draining (ready kind: every valid row;
//! waiting kind: every ready row, `pending = 0`) the oldest has `ord = 0`, the next `1`, …
//! (rows outside that set have `ord = 0`). It needs `ob` = [`LookupConfig::ord_bits`] bits.
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous; every row invalid next cycle; other inputs ignored; outputs in a
//!   reset cycle are not compared.
//! - `ins0_valid`, `ins0_pc`, `ins0_lanes`, `ins0_thi`: an insert (the fall-through path warp
//!   of a divergent commit, or the warp dispatching a long-latency load).
//! - ready kind: `ins1_*`, a second insert (the taken path), applied after `ins0`.
//! - waiting kind: `cpl_valid`, `cpl_row`, `cpl_lanes`: a memory completion for lanes of a row.
//! - `drain`: remove the head row at the edge (the top raises it when the second level can
//!   take the row). Ignored when `head_valid` is 0.
//! - `cta_mask`: the thread-index bits that name a thread's CTA (A14's `merge_scope = cta`),
//!   set at kernel launch and held while the table holds rows; 0 is the thesis's match rule.
//!   The dispatcher places each CTA in an aligned power-of-two range of thread indices, so a
//!   warp's CTA tag is `thi & cta_mask` of any of its lanes; the tag of a row or insert is the
//!   OR of `thi[l] & cta_mask` over its lanes (a row stores 0 outside its lanes). Under a
//!   non-zero mask an insert's lanes share one tag, and rows only merge within a tag.
//!
//! # One cycle, ready kind (§3.5 step 4, A9, A10)
//!
//! Every decision reads the start-of-cycle table, updated by the earlier insert of this cycle.
//! The head row, when `drain` is high, is neither a merge target nor free this cycle (its slot
//! is free next cycle). For insert `k` = 0 then 1 with `insk_valid` and warp `v`:
//! 1. each lane `l` of `v.lanes` moves to the **lowest-index** valid row with `pc = v.pc`, the
//!    same CTA tag and lane `l` empty (other than the draining head): its `lanes[l]` and
//!    `thi[l]` are set;
//! 2. the lanes left over, if any, allocate the **lowest-index** invalid row with `ord` = the
//!    number of valid rows after this cycle's drain and earlier allocations;
//! 3. if no row is invalid, the leftover warp appears on `bypk_*` (combinational, A10): the top
//!    sends it straight to the second level.
//!
//! `drain` frees the head and every other row's `ord` drops by one.
//!
//! # One cycle, waiting kind (§3.7, A11)
//!
//! - Insert (`ins0_*`) of a **partial** warp (`0 < popcount(lanes) < w`; any other warp is
//!   refused): the lowest-index valid row with `pc = v.pc`, the same CTA tag, `pending ≠ 0`
//!   and lanes disjoint from `v.lanes` takes the whole warp (`lanes`, `thi` and `pending` OR-ed in); otherwise the
//!   lowest invalid row is allocated with `pending = lanes`; otherwise the warp is refused.
//!   `ins_ok` and `ins_row` (combinational) say where it went (the load's tag).
//! - Completion: `pending[cpl_row] ← pending & ¬cpl_lanes`, on the start-of-cycle pending (the
//!   lanes an insert ORs in this cycle are not cleared; a completion names lanes that were
//!   pending, so a row it targets is valid and not ready, which the model checks). A valid
//!   row whose pending was not 0 at the start of the cycle and is 0 at the end is **ready**:
//!   its `pc` becomes `pc + 1` (mod 2^pc_bits) and its `ord` the number of ready rows after
//!   this cycle's drain. At most one row becomes ready per cycle.
//! - `drain` frees the head (the oldest ready row); other ready rows' `ord` drop by one.
//!
//! # Outputs
//!
//! Registered (start-of-cycle state): `head_valid`, `head_pc`, `head_lanes`, `head_thi` (the
//! row with `ord = 0` among the eligible ones), `head_row`, `count` (valid rows), `full`.
//! Combinational: ready kind `bypk_valid`, `bypk_pc`, `bypk_lanes`, `bypk_thi`; waiting kind
//! `ins_ok`, `ins_row` (0 when refused). Both kinds: `ev_merge` (lanes merged into existing
//! rows this cycle), `ev_alloc` (bit `k`: insert `k` allocated a row).
//!
//! # State digest
//!
//! `dbg_valid[rows]`, `dbg_pc[rows·pc_bits]`, `dbg_lanes[rows·w]`, `dbg_thi[rows·w·thi_bits]`,
//! `dbg_ord[rows·ob]` (waiting kind also `dbg_pending[rows·w]`): row `r` at field `r`; every
//! field of an invalid row reads 0.
//!
//! # Storage (Table 4-1)
//!
//! Counted: `rows × (pc_bits + w·thi_bits)` = 8 × 88 = 704 bits per table at the thesis'
//! geometry. Extras the thesis leaves out (A3): valid, lane-valid, ord, and pending.

use super::crown::{CrownCommon, PC_BITS, THREADS, W};
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "crown-lookup";

pub const KIND: ParamSpec = ParamSpec::choice(
    "kind",
    &["ready", "waiting"],
    "ready",
    "ready = Ready Lookup (per-lane merge of path warps, 2 inserts per cycle); waiting = Waiting Lookup (whole-warp merge of partial warps waiting for loads)",
);
pub const ROWS: ParamSpec = ParamSpec::int(
    "rows",
    2,
    16,
    8,
    "rows of the table (fully associative; the thesis has 8, 4 in its sensitivity study)",
);

pub const PARAMS: &[ParamSpec] = &[KIND, ROWS, W, THREADS, PC_BITS];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookupKind {
    Ready,
    Waiting,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LookupConfig {
    pub kind: LookupKind,
    pub rows: usize,
    pub common: CrownCommon,
}

impl LookupConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let kind = match p.str("kind") {
            "ready" => LookupKind::Ready,
            _ => LookupKind::Waiting,
        };
        LookupConfig::new(kind, p.usize("rows"), CrownCommon::from_params(p)?)
    }

    pub fn new(kind: LookupKind, rows: usize, common: CrownCommon) -> Result<Self, ParamError> {
        if !(2..=16).contains(&rows) {
            return Err(ParamError(format!(
                "rows = {rows}: must be an integer from 2 to 16"
            )));
        }
        Ok(LookupConfig { kind, rows, common })
    }

    pub fn w(&self) -> usize {
        self.common.w
    }
    pub fn pc_bits(&self) -> usize {
        self.common.pc_bits
    }
    pub fn thi_bits(&self) -> usize {
        self.common.thi_bits()
    }
    /// Bits of a row index (`cpl_row`, `ins_row`, `head_row`).
    pub fn row_bits(&self) -> usize {
        index_bits(self.rows)
    }
    /// Bits of a row's drain-order rank `ord` (0 … rows − 1).
    pub fn ord_bits(&self) -> usize {
        index_bits(self.rows)
    }
    /// Bits of `count` (0 … rows).
    pub fn count_bits(&self) -> usize {
        index_bits(self.rows + 1)
    }
    /// Bits of `ev_merge` (0 … 2w lanes merged per cycle).
    pub fn merge_bits(&self) -> usize {
        index_bits(2 * self.w() + 1)
    }
    /// Inserts per cycle: 2 for the Ready Lookup, 1 for the Waiting Lookup.
    pub fn inserts(&self) -> usize {
        match self.kind {
            LookupKind::Ready => 2,
            LookupKind::Waiting => 1,
        }
    }
    /// Bits of one row as Table 4-1 counts them: PC + w thread indices.
    pub fn counted_row_bits(&self) -> usize {
        self.pc_bits() + self.w() * self.thi_bits()
    }

    pub fn module_name(&self) -> String {
        format!(
            "crown_lookup_{}_r{}_w{}_n{}_p{}",
            match self.kind {
                LookupKind::Ready => "ready",
                LookupKind::Waiting => "waiting",
            },
            self.rows,
            self.w(),
            self.common.threads,
            self.pc_bits()
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (p, w, t, r) = (self.pc_bits(), self.w(), self.thi_bits(), self.rows);
        let mut v = vec![Port::input(
            "reset",
            1,
            "synchronous reset: every row invalid",
        )];
        for k in 0..self.inserts() {
            let n = |f: &str| format!("ins{k}_{f}");
            v.push(Port::input(&n("valid"), 1, "an insert is present"));
            v.push(Port::input(&n("pc"), p, "the warp's PC"));
            v.push(Port::input(&n("lanes"), w, "the warp's lanes"));
            v.push(Port::input(
                &n("thi"),
                w * t,
                "lane l's thread index at l*thi_bits",
            ));
        }
        if self.kind == LookupKind::Waiting {
            v.push(Port::input(
                "cpl_valid",
                1,
                "a memory completion is present",
            ));
            v.push(Port::input(
                "cpl_row",
                self.row_bits(),
                "the completing row",
            ));
            v.push(Port::input(
                "cpl_lanes",
                w,
                "lanes whose loads completed (pending bits cleared)",
            ));
        }
        v.push(Port::input(
            "drain",
            1,
            "remove the head row at the edge (ignored without a head)",
        ));
        v.push(Port::input(
            "cta_mask",
            t,
            "thread-index bits naming the CTA: rows merge only within one (A14); 0 = any",
        ));
        match self.kind {
            LookupKind::Ready => {
                for k in 0..2 {
                    let n = |f: &str| format!("byp{k}_{f}");
                    v.push(Port::output(
                        &n("valid"),
                        1,
                        true,
                        "insert k's leftover lanes found no free row (A10 bypass)",
                    ));
                    v.push(Port::output(&n("pc"), p, true, "bypassed warp's PC"));
                    v.push(Port::output(&n("lanes"), w, true, "bypassed warp's lanes"));
                    v.push(Port::output(
                        &n("thi"),
                        w * t,
                        true,
                        "bypassed warp's thread indices (0 outside its lanes)",
                    ));
                }
            }
            LookupKind::Waiting => {
                v.push(Port::output(
                    "ins_ok",
                    1,
                    true,
                    "the insert was taken (merged or allocated)",
                ));
                v.push(Port::output(
                    "ins_row",
                    self.row_bits(),
                    true,
                    "the row that holds it (0 when refused)",
                ));
            }
        }
        v.push(Port::output(
            "ev_merge",
            self.merge_bits(),
            true,
            "lanes merged into existing rows this cycle",
        ));
        v.push(Port::output(
            "ev_alloc",
            self.inserts(),
            true,
            "bit k: insert k allocated a row",
        ));
        v.push(Port::output(
            "head_valid",
            1,
            false,
            "a row can be drained (ready kind: any row; waiting kind: a ready row)",
        ));
        v.push(Port::output(
            "head_row",
            self.row_bits(),
            false,
            "the head row's index",
        ));
        v.push(Port::output("head_pc", p, false, "the head row's PC"));
        v.push(Port::output("head_lanes", w, false, "the head row's lanes"));
        v.push(Port::output(
            "head_thi",
            w * t,
            false,
            "the head row's thread indices",
        ));
        v.push(Port::output(
            "count",
            self.count_bits(),
            false,
            "valid rows",
        ));
        v.push(Port::output("full", 1, false, "every row is valid"));
        v.push(Port::debug("dbg_valid", r, "valid bit of row r"));
        v.push(Port::debug("dbg_pc", r * p, "PC of row r at r*pc_bits"));
        v.push(Port::debug("dbg_lanes", r * w, "lanes of row r at r*w"));
        v.push(Port::debug(
            "dbg_thi",
            r * w * t,
            "thread indices of row r at r*w*thi_bits",
        ));
        v.push(Port::debug(
            "dbg_ord",
            r * self.ord_bits(),
            "drain-order rank of row r at r*ord_bits",
        ));
        if self.kind == LookupKind::Waiting {
            v.push(Port::debug(
                "dbg_pending",
                r * w,
                "pending lanes of row r at r*w",
            ));
        }
        v
    }

    pub fn tables(&self) -> Vec<Table> {
        let (r, w) = (self.rows, self.w());
        let name = match self.kind {
            LookupKind::Ready => "ready_lookup",
            LookupKind::Waiting => "waiting_lookup",
        };
        let mut t = vec![
            Table::new(
                name,
                r,
                self.counted_row_bits(),
                "rows {pc, thi[w]}: Table 4-1's 88-bit rows",
            ),
            Table::new("extra_valid", r, 1, "row valid bit (A3)"),
            Table::new("extra_lane_valid", r, w, "per-lane valid mask (A3)"),
            Table::new("extra_order", r, self.ord_bits(), "drain-order rank (A3)"),
        ];
        if self.kind == LookupKind::Waiting {
            t.push(Table::new(
                "extra_pending",
                r,
                w,
                "lanes whose loads are outstanding (A11)",
            ));
        }
        t
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

    fn cfg(sets: &[&str]) -> Result<LookupConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        LookupConfig::from_params(&p)
    }

    #[test]
    fn table_4_1_rows_are_88_bits() {
        for kind in ["kind=ready", "kind=waiting"] {
            let c = cfg(&[kind]).unwrap();
            let s = split_storage(&c.tables());
            assert_eq!(s.counted_bits, 704, "{kind}");
            let pending = if kind == "kind=waiting" { 8 * 8 } else { 0 };
            assert_eq!(s.extra_bits, 8 * (1 + 8 + 3) + pending, "{kind}");
        }
        assert_eq!(
            split_storage(&cfg(&["rows=4"]).unwrap().tables()).counted_bits,
            352
        );
    }

    #[test]
    fn ports_per_kind() {
        let r = cfg(&[]).unwrap().ports();
        crate::units::dwr::assert_port_names_ok(&r);
        let w = |ps: &[Port], n: &str| ps.iter().find(|p| p.name == n).map(|p| p.width);
        assert_eq!(w(&r, "ins1_thi"), Some(56));
        assert_eq!(w(&r, "byp1_thi"), Some(56));
        assert_eq!(w(&r, "cpl_row"), None);
        assert_eq!(w(&r, "dbg_thi"), Some(8 * 56));
        assert_eq!(w(&r, "ev_merge"), Some(5));
        let wt = cfg(&["kind=waiting", "rows=16", "w=16"]).unwrap().ports();
        crate::units::dwr::assert_port_names_ok(&wt);
        assert_eq!(w(&wt, "ins1_valid"), None);
        assert_eq!(w(&wt, "cpl_row"), Some(4));
        assert_eq!(w(&wt, "dbg_pending"), Some(16 * 16));
        assert_eq!(w(&wt, "count"), Some(5));
        assert_eq!(w(&wt, "ins0_thi"), Some(16 * 6));
    }

    #[test]
    fn validation_names_the_parameter() {
        assert!(cfg(&["rows=17"]).unwrap_err().0.contains("rows"));
        assert_eq!(
            cfg(&["w=12"]).unwrap_err().0,
            "w = 12: must be 4, 8, 16 or 32"
        );
        assert_ne!(
            cfg(&[]).unwrap().module_name(),
            cfg(&["kind=waiting"]).unwrap().module_name()
        );
    }
}
