//! `crown-barrier`: CROWN's reconvergence-barrier table (spec/crown.md §3.4.5, §3.6;
//! decisions A2, A7, A8). This comment is the normative cycle-level contract; the `crown` top
//! embeds the same block.
//!
//! # Geometry
//!
//! `sets` × `ways` entries (16 × 8 = 128 in the thesis), entry `e = set·ways + way`. A thread
//! `t` (lane `l`, thread index `thi`) belongs to set `set(t)` = the high `log2(sets)` bits of
//! its `thi_bits`-bit thread index, i.e. the high bits of `t` (`t[9:6]` at N = 1024, S = 16):
//! a set serves a group of `N / sets` consecutive thread slots. A barrier holds threads of one
//! set only (A7). Each entry is `{valid, complete, pc, expected[w], arrived[w], thi[w], ord}`:
//! `pc` is the reconvergence PC R; `thi` is 0 outside `expected`; `ord` is the entry's rank in
//! completion order among the complete entries (oldest 0; 0 for an entry that is not
//! complete), `ob` = [`BarrierConfig::ord_bits`] bits.
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous; every entry invalid next cycle.
//! - `rsv_valid`, `rsv_pc`, `rsv_lanes`, `rsv_thi`: reserve barriers at R = `rsv_pc` for a
//!   diverging warp's lanes.
//! - `prb_lanes`, `prb_pc[w·pc_bits]`, `prb_thi`: the arrival check of a warp whose lane `l`
//!   goes next to `prb_pc` field `l` (per-lane PCs, so both paths of a branch can be probed at
//!   once).
//! - `drain`: free the head entry at the edge (ignored when `head_valid` is 0).
//!
//! # One cycle
//!
//! 1. **Reserve** (§3.6.1) on the start-of-cycle table: the lanes of `rsv_lanes` are grouped by
//!    set. A lane is **covered** (dedup, A8) when a valid, incomplete entry with `pc = R`
//!    expects it with the same `thi`; covered lanes are dropped. A group with lanes left
//!    allocates the lowest-index invalid way of its set as `{pc R, expected = the lanes,
//!    arrived 0, thi}`; if the set has no invalid way, the group gets no barrier and counts
//!    as an allocation failure (its threads pass R without waiting, scenario C5). The head
//!    entry being drained this cycle is not free until the next cycle.
//! 2. **Arrival check** (§3.6.2) on the table *as left by step 1* — a path warp whose PC is
//!    R is absorbed in the cycle its barrier is reserved (the one-sided branch, §3.5): lane
//!    `l` of `prb_lanes` **hits** the entry (of its set) that is valid, incomplete, has `pc =
//!    prb_pc[l]`, `expected[l]`, not `arrived[l]` and `thi[l] = prb_thi[l]` (there is at most
//!    one, A8). The entry's `arrived[l]` is set at the edge.
//! 3. **Completion** (§3.6.3): an entry whose `arrived` equals `expected` after step 2 becomes
//!    complete; several entries completing in one cycle are ordered by entry index; each gets
//!    `ord` = the number of complete entries after this cycle's drain and the earlier ones.
//! 4. **Drain**: with `drain` and a head, the head entry is freed; other complete entries'
//!    `ord` drop by one.
//!
//! # Outputs
//!
//! Combinational: `prb_hit[w]` (the lanes absorbed), `rsv_new` (barriers allocated),
//! `rsv_dedup` (lanes dropped as covered), `rsv_fail` (groups without a barrier).
//! Registered: `head_valid`, `head_entry`, `head_pc` (R), `head_lanes` (= expected),
//! `head_thi` — the oldest complete entry, the reincarnated warp; `live` (valid incomplete
//! entries), `used` (valid entries).
//!
//! # State digest
//!
//! `dbg_valid[E]`, `dbg_complete[E]`, `dbg_pc[E·pc_bits]`, `dbg_expected[E·w]`,
//! `dbg_arrived[E·w]`, `dbg_thi[E·w·thi_bits]`, `dbg_ord[E·ob]`: entry `e` at field `e`; every
//! field of an invalid entry reads 0.
//!
//! # Storage (Table 4-1)
//!
//! Counted: `E × (pc_bits + w·thi_bits + w)` = 128 × 96 = 12,288 bits (88-bit tag + 8 arrived
//! bits). Extras (A2, A3): valid, complete, expected, ord.

use super::crown::{CrownCommon, PC_BITS, THREADS, W};
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "crown-barrier";

/// Most entries a table may have (sets × ways).
pub const MAX_ENTRIES: usize = 256;

pub const SETS: ParamSpec = ParamSpec::int(
    "sets",
    1,
    64,
    16,
    "barrier sets (a power of two, at most N/w); a thread's set is the high bits of its thread index",
);
pub const WAYS: ParamSpec = ParamSpec::int("ways", 1, 16, 8, "barriers per set");

pub const PARAMS: &[ParamSpec] = &[SETS, WAYS, W, THREADS, PC_BITS];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierConfig {
    pub sets: usize,
    pub ways: usize,
    pub common: CrownCommon,
}

impl BarrierConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        BarrierConfig::new(
            p.usize("sets"),
            p.usize("ways"),
            CrownCommon::from_params(p)?,
        )
    }

    pub fn new(sets: usize, ways: usize, common: CrownCommon) -> Result<Self, ParamError> {
        let groups = common.threads / common.w;
        if !sets.is_power_of_two() || sets > groups.min(64) {
            return Err(ParamError(format!(
                "sets = {sets}: must be a power of two from 1 to min(64, threads/w = {groups})"
            )));
        }
        if !(1..=16).contains(&ways) {
            return Err(ParamError(format!(
                "ways = {ways}: must be an integer from 1 to 16"
            )));
        }
        if sets * ways > MAX_ENTRIES {
            return Err(ParamError(format!(
                "sets = {sets}, ways = {ways}: sets x ways must be at most {MAX_ENTRIES}"
            )));
        }
        Ok(BarrierConfig { sets, ways, common })
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
    /// E: entries.
    pub fn entries(&self) -> usize {
        self.sets * self.ways
    }
    /// log2(sets).
    pub fn set_bits(&self) -> usize {
        self.sets.trailing_zeros() as usize
    }
    /// The set of a thread with thread index `thi` (its high bits).
    pub fn set_of(&self, thi: u64) -> usize {
        (thi >> (self.thi_bits() - self.set_bits())) as usize
    }
    /// Bits of an entry index (`head_entry`).
    pub fn entry_bits(&self) -> usize {
        index_bits(self.entries())
    }
    /// Bits of the completion rank `ord` (0 … E − 1).
    pub fn ord_bits(&self) -> usize {
        index_bits(self.entries())
    }
    /// Bits of `live` and `used` (0 … E).
    pub fn count_bits(&self) -> usize {
        index_bits(self.entries() + 1)
    }
    /// Bits of the per-reserve counts (0 … w).
    pub fn lane_count_bits(&self) -> usize {
        index_bits(self.w() + 1)
    }
    /// Bits of one entry as Table 4-1 counts them: the 88-bit tag (PC + w thread indices) and
    /// w arrived bits.
    pub fn counted_entry_bits(&self) -> usize {
        self.pc_bits() + self.w() * self.thi_bits() + self.w()
    }

    pub fn module_name(&self) -> String {
        format!(
            "crown_barrier_{}x{}_w{}_n{}_p{}",
            self.sets,
            self.ways,
            self.w(),
            self.common.threads,
            self.pc_bits()
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (p, w, t, e) = (self.pc_bits(), self.w(), self.thi_bits(), self.entries());
        let cb = self.lane_count_bits();
        vec![
            Port::input("reset", 1, "synchronous reset: every entry invalid"),
            Port::input("rsv_valid", 1, "a reservation is present"),
            Port::input("rsv_pc", p, "the reconvergence PC R"),
            Port::input("rsv_lanes", w, "the diverging warp's lanes"),
            Port::input("rsv_thi", w * t, "lane l's thread index at l*thi_bits"),
            Port::input("prb_lanes", w, "lanes probed by the arrival check"),
            Port::input("prb_pc", w * p, "lane l's next PC at l*pc_bits"),
            Port::input("prb_thi", w * t, "lane l's thread index at l*thi_bits"),
            Port::input(
                "drain",
                1,
                "free the head entry at the edge (ignored without a head)",
            ),
            Port::output("prb_hit", w, true, "probed lanes that arrived at a barrier"),
            Port::output("rsv_new", cb, true, "barriers allocated this cycle"),
            Port::output(
                "rsv_dedup",
                cb,
                true,
                "reserved lanes dropped: already covered by a live barrier (A8)",
            ),
            Port::output(
                "rsv_fail",
                cb,
                true,
                "groups that found their set full (bar_alloc_fail)",
            ),
            Port::output(
                "head_valid",
                1,
                false,
                "a complete barrier waits to become a warp",
            ),
            Port::output(
                "head_entry",
                self.entry_bits(),
                false,
                "the oldest complete entry",
            ),
            Port::output("head_pc", p, false, "its reconvergence PC"),
            Port::output("head_lanes", w, false, "its lanes (= expected)"),
            Port::output("head_thi", w * t, false, "its thread indices"),
            Port::output("live", self.count_bits(), false, "valid incomplete entries"),
            Port::output("used", self.count_bits(), false, "valid entries"),
            Port::debug("dbg_valid", e, "valid bit of entry e = set*ways + way"),
            Port::debug("dbg_complete", e, "complete bit of entry e"),
            Port::debug("dbg_pc", e * p, "R of entry e at e*pc_bits"),
            Port::debug("dbg_expected", e * w, "expected lanes of entry e at e*w"),
            Port::debug("dbg_arrived", e * w, "arrived lanes of entry e at e*w"),
            Port::debug(
                "dbg_thi",
                e * w * t,
                "thread indices of entry e at e*w*thi_bits",
            ),
            Port::debug(
                "dbg_ord",
                e * self.ord_bits(),
                "completion rank of entry e at e*ord_bits",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let (e, w) = (self.entries(), self.w());
        vec![
            Table::new(
                "barrier",
                e,
                self.counted_entry_bits(),
                "entries {pc, thi[w], arrived[w]}: Table 4-1's 96-bit rows",
            ),
            Table::new("extra_valid", e, 1, "entry valid bit (A3)"),
            Table::new("extra_complete", e, 1, "complete, waiting to drain (A3)"),
            Table::new("extra_expected", e, w, "lanes the barrier holds (A2)"),
            Table::new("extra_order", e, self.ord_bits(), "completion rank (A3)"),
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

    fn cfg(sets: &[&str]) -> Result<BarrierConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        BarrierConfig::from_params(&p)
    }

    #[test]
    fn table_4_1_entries_are_96_bits() {
        let c = cfg(&[]).unwrap();
        assert_eq!((c.entries(), c.counted_entry_bits()), (128, 96));
        let s = split_storage(&c.tables());
        assert_eq!(s.counted_bits, 12_288);
        assert_eq!(s.extra_bits, 128 * (1 + 1 + 8 + 7));
    }

    #[test]
    fn set_is_the_high_bits_of_the_thread() {
        let c = cfg(&[]).unwrap();
        // t = thi*8 + lane; set(t) = t[9:6] = thi[6:3].
        assert_eq!(c.set_of(0), 0);
        assert_eq!(c.set_of(9), 1); // tids 72..79
        assert_eq!(c.set_of(127), 15);
        let one = cfg(&["sets=1"]).unwrap();
        assert_eq!(one.set_of(127), 0);
    }

    #[test]
    fn validation_names_the_parameter() {
        assert_eq!(
            cfg(&["sets=12"]).unwrap_err().0,
            "sets = 12: must be a power of two from 1 to min(64, threads/w = 128)"
        );
        assert!(cfg(&["sets=64", "threads=256"])
            .unwrap_err()
            .0
            .starts_with("sets = 64"));
        assert!(cfg(&["sets=32", "threads=256"]).is_ok());
        assert!(cfg(&["sets=32", "ways=16"])
            .unwrap_err()
            .0
            .contains("at most 256"));
        assert!(cfg(&["ways=0"]).unwrap_err().0.contains("ways"));
        crate::units::dwr::assert_port_names_ok(&cfg(&[]).unwrap().ports());
    }
}
