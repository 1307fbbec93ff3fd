//! `dtm-mtg`: DTM@GPU's per-instruction memo table, MTG (spec/dtm.md §2.2, §2.5, §3.2, §3.3;
//! decisions A2, A13, A14, A15, A18).
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::dtm_mtg`) and
//! the model (`warpforge_testbench::dtm_mtg`) are written from it independently.
//!
//! # What the unit is
//!
//! A set-associative table of `entries` = `sets` × `ways` entries {kid, pc, sv1, sv2, sv3,
//! res, uid} with a valid bit each, indexed by `H(kid, pc, sv1, sv2, sv3)` (§2.5,
//! [`super::dtm::hash_h`]), true LRU per set. A **request** is one warp instruction's SIMD
//! group: an operation (`lookup` at operand read, or `upsert` at writeback), one kid and pc,
//! and per lane of `req_mask` the three source values (zero-filled), and for an upsert the
//! result and the thread's uid.
//!
//! - Lookup of lane l: the valid entry whose whole key equals l's key (§3.2; at most one, I5)
//!   is a hit: it becomes MRU and its `res` and `uid` are returned (the caller labels INTER
//!   when that uid differs from the thread's, INTRA when equal). A miss changes nothing.
//! - Upsert of lane l (A2, A13): if the key is present, its `uid` becomes l's uid and it
//!   becomes MRU (`res` is kept; §3.3 says it is necessarily equal); otherwise the victim of
//!   the set — the lowest-index invalid way, else the LRU way (§2.5) — is overwritten with
//!   the new entry, valid, MRU. There is never more than one entry per key.
//!
//! # Banks and ports (A14)
//!
//! The table is split into `ports` banks by the low bits of the set (bank = set mod ports,
//! bank row = set / ports); each bank serves one lane per cycle. A request's lanes are served
//! in **passes**, one per cycle: the pass is the longest run of the request's not yet served
//! lanes, in ascending lane order, whose banks are all different (so with `ports` =
//! `simd_width` and no bank conflicts a whole request is one pass; with `ports` = 1 one lane
//! per cycle). The rule is a fixed function of the inputs: no arbitration state. Lanes of one
//! pass are in different sets, and every pass sees every earlier pass: the table behaves as
//! if each lane's operation were applied alone, in request order then ascending lane order.
//! (A7's "lookups never see the same instruction's inserts" is the pipeline's order: the
//! instruction's lookup request comes before its upsert request.)
//!
//! # Storage and timing
//!
//! Each bank has one RAM primitive per way (rows = sets / ports, the entry's key, res and
//! uid) and one meta RAM (per row: the ways' valid bits and LRU ranks). A pass is a
//! read-modify-write pipeline of two cycles:
//! 1. cycle t: the bank rows of the pass's lanes are read (RAM read at the edge);
//! 2. cycle t+1: the rows are compared, the response is shown on `rsp_*`, and the hit or
//!    victim way's row and the set's meta are written at the edge. A read of the row written
//!    at the previous edge gets the written value (a one-cycle bypass: the RAM is read-first).
//!
//! So a lookup's result is on the outputs in the cycle after its pass.
//!
//! # LRU
//!
//! Per set, each way has a rank 0 … ways−1 (0 = MRU), a permutation. Touching way w adds 1 to
//! the ranks below w's and sets w's to 0. The meta RAM stores `rank XOR way` so that its
//! all-zero start (and a flush) is the permutation rank = way.
//!
//! # Sizes
//!
//! `S` = `simd_width`, `V` = `val_bits`, `K` = `kid_bits`, `U` = `uid_bits`, `P` = `pc_bits`,
//! `sb` = log2 sets (at least 1 as a port width), `wb` = log2 ways (at least 1), `rb` = bank
//! row-index bits (at least 1). Per-lane fields are packed lane l at bits `l·width`.
//!
//! # Inputs (sampled in the cycle they are driven; every value is legal in every cycle)
//!
//! - `reset`: synchronous. Next: a full flush starts (`busy` for sets/ports cycles), no lane
//!   served, no pass in flight. Block RAMs cannot clear, so the table is emptied by the
//!   flush's sweep (which rewrites every meta row to zero).
//! - `req_valid, req_op` (0 lookup, 1 upsert), `req_mask[S]`, `req_kid[K]`, `req_pc[P]`,
//!   `req_sv1/2/3[S·V]`, `req_res[S·V]`, `req_uid[S·U]`: the request. Lanes already served
//!   (`dbg_served`) are skipped; the requester normally holds the request until `req_ready`
//!   (a request changed earlier simply has its remaining lanes served with the new values).
//! - `inv_valid, inv_all, inv_kid[K]` (A18): when not `busy`, start a sweep that clears every
//!   entry with kid `inv_kid` (kernel retire), or every entry with `inv_all` (flush); ignored
//!   while `busy`.
//!
//! # One cycle (not in reset)
//!
//! - While `busy` (a sweep): no pass; the sweep reads bank row `dbg_sweep_row` of every bank
//!   and clears the matching valid bits in the next cycle (a flush also resets the ranks to
//!   rank = way); `busy` ends after the last row. Nothing else is observable of it.
//! - Otherwise with `req_valid`: the pass is formed from `req_mask & ~served`; `req_ready` is
//!   high when the pass serves every remaining lane (also when none remain); at the edge
//!   `served` becomes 0 if `req_ready`, else `served | pass`. Without `req_valid`: no pass,
//!   `served` holds.
//! - `inv_valid` when not `busy`: `busy` from the next cycle for sets/ports cycles; this
//!   cycle's pass proceeds (its second cycle comes before the sweep's first write).
//!
//! # Outputs
//!
//! - `req_ready` (combinational): not `busy` and the pass of this cycle ends the request.
//! - `busy`: a sweep is running (registered).
//! - The response of the pass of the previous cycle (functions of registered state and the
//!   RAM outputs): `rsp_valid`, `rsp_op`, `rsp_lanes[S]` (the pass), per lane `rsp_set[S·sb]`
//!   (H's set), `rsp_hit[S]` (lookup: hit; upsert: the key was present and was refreshed),
//!   `rsp_way[S·wb]` (the way hit, refreshed or allocated), `rsp_evict[S]` (an upsert
//!   replaced a valid entry), `rsp_res[S·V]`, `rsp_uid[S·U]` (the matching entry's res and
//!   uid before this operation; 0 without a match). Lanes outside `rsp_lanes` read 0.
//! - Debug: `dbg_served[S]`, `dbg_sweep_row[rb]`.
//!
//! # Storage (§2.2)
//!
//! Counted: `mtg` = entries × (1 + K + P + 4·V + U) — 197 bits at the defaults (V = 32), 325
//! at V = 64, as §2.2. Extras: `extra_lru` (sets × ways·log2 ways rank bits, in the meta RAMs)
//! and `extra_pipeline` (flip-flops: the pass registers, the bypass and the sweep state).

use super::dtm::{KID_BITS, PC_BITS, SIMD_WIDTH, UID_BITS, VAL_BITS};
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "dtm-mtg";

/// The RAM primitive's largest depth: a bank's rows per way.
pub const MAX_BANK_ROWS: usize = 4096;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "entries",
        16,
        8192,
        1024,
        "MTG entries (a power of two; the paper sweeps 16 to 8192, §2.5)",
    ),
    ParamSpec::int(
        "ways",
        1,
        32,
        8,
        "ways per set (a power of two, at most entries; entries = ways is fully associative)",
    ),
    ParamSpec::int(
        "ports",
        1,
        32,
        8,
        "banks = lanes served per cycle (a power of two, at most simd_width and the sets; A14)",
    ),
    SIMD_WIDTH,
    VAL_BITS,
    KID_BITS,
    UID_BITS,
    PC_BITS,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MtgConfig {
    pub entries: usize,
    pub ways: usize,
    pub ports: usize,
    pub simd: usize,
    pub val_bits: usize,
    pub kid_bits: usize,
    pub uid_bits: usize,
    pub pc_bits: usize,
}

impl Default for MtgConfig {
    fn default() -> Self {
        MtgConfig {
            entries: 1024,
            ways: 8,
            ports: 8,
            simd: 8,
            val_bits: 32,
            kid_bits: 4,
            uid_bits: 32,
            pc_bits: 32,
        }
    }
}

/// log2 of a power of two.
fn log2(n: usize) -> usize {
    n.trailing_zeros() as usize
}

impl MtgConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let entries = p.usize("entries");
        if !entries.is_power_of_two() {
            return Err(ParamError(format!(
                "entries = {entries}: must be a power of two from 16 to 8192"
            )));
        }
        let ways = p.usize("ways");
        if !ways.is_power_of_two() || ways > entries {
            return Err(ParamError(format!(
                "ways = {ways}: must be a power of two from 1 to 32 and at most entries = {entries}"
            )));
        }
        let sets = entries / ways;
        let simd = p.usize("simd_width");
        let ports = p.usize("ports");
        if !ports.is_power_of_two() || ports > simd || ports > sets {
            return Err(ParamError(format!(
                "ports = {ports}: must be a power of two from 1 to simd_width = {simd} and at most the sets (entries/ways = {sets}), one bank per port"
            )));
        }
        if sets / ports > MAX_BANK_ROWS {
            return Err(ParamError(format!(
                "entries = {entries} with ways = {ways} and ports = {ports}: {} rows per bank RAM; at most {MAX_BANK_ROWS} (the RAM primitive's depth): raise ways or ports",
                sets / ports
            )));
        }
        Ok(MtgConfig {
            entries,
            ways,
            ports,
            simd,
            val_bits: p.usize("val_bits"),
            kid_bits: p.usize("kid_bits"),
            uid_bits: p.usize("uid_bits"),
            pc_bits: p.usize("pc_bits"),
        })
    }

    pub fn sets(&self) -> usize {
        self.entries / self.ways
    }
    /// Rows of each bank's RAMs.
    pub fn bank_rows(&self) -> usize {
        self.sets() / self.ports
    }
    /// Depth of each RAM primitive (the primitive needs at least 2 rows).
    pub fn ram_depth(&self) -> usize {
        self.bank_rows().max(2)
    }
    /// log2 sets (0 when fully associative).
    pub fn set_log2(&self) -> usize {
        log2(self.sets())
    }
    pub fn way_log2(&self) -> usize {
        log2(self.ways)
    }
    pub fn port_log2(&self) -> usize {
        log2(self.ports)
    }
    /// Port widths of a set, a way and a bank row (at least 1 bit).
    pub fn set_bits(&self) -> usize {
        self.set_log2().max(1)
    }
    pub fn way_bits(&self) -> usize {
        self.way_log2().max(1)
    }
    pub fn row_bits(&self) -> usize {
        index_bits(self.ram_depth())
    }
    /// Bits of a lane index.
    pub fn lane_bits(&self) -> usize {
        index_bits(self.simd)
    }
    /// A way RAM's row: kid, pc, sv1..sv3, res, uid (the valid bit is in the meta RAM).
    pub fn way_row_bits(&self) -> usize {
        self.kid_bits + self.pc_bits + 4 * self.val_bits + self.uid_bits
    }
    /// §2.2's entry: valid + the way RAM's row.
    pub fn entry_bits(&self) -> usize {
        1 + self.way_row_bits()
    }
    /// Rank bits per way (log2 ways).
    pub fn rank_bits(&self) -> usize {
        self.way_log2()
    }
    /// A meta row: the ways' valid bits, then their encoded ranks.
    pub fn meta_bits(&self) -> usize {
        self.ways * (1 + self.rank_bits())
    }

    pub fn module_name(&self) -> String {
        format!(
            "dtm_mtg_e{}_w{}_p{}_s{}_v{}_k{}_u{}_pc{}",
            self.entries,
            self.ways,
            self.ports,
            self.simd,
            self.val_bits,
            self.kid_bits,
            self.uid_bits,
            self.pc_bits
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (s, v, k, u, p) = (
            self.simd,
            self.val_bits,
            self.kid_bits,
            self.uid_bits,
            self.pc_bits,
        );
        vec![
            Port::input("reset", 1, "synchronous reset: starts a full flush"),
            Port::input("req_valid", 1, "a request is presented"),
            Port::input("req_op", 1, "0 lookup (operand read), 1 upsert (writeback)"),
            Port::input("req_mask", s, "lanes of the request"),
            Port::input("req_kid", k, "kernel tag"),
            Port::input("req_pc", p, "the instruction's PC"),
            Port::input("req_sv1", s * v, "source value 1 per lane (0 if unused)"),
            Port::input("req_sv2", s * v, "source value 2 per lane (0 if unused)"),
            Port::input(
                "req_sv3",
                s * v,
                "source value 3 or guard per lane (0 if unused)",
            ),
            Port::input("req_res", s * v, "upsert: the result per lane"),
            Port::input("req_uid", s * u, "upsert: the thread's uid per lane"),
            Port::input("inv_valid", 1, "start a sweep (ignored while busy)"),
            Port::input("inv_all", 1, "the sweep clears every entry (flush)"),
            Port::input("inv_kid", k, "else it clears the entries of this kid"),
            Port::output(
                "req_ready",
                1,
                true,
                "this cycle's pass ends the request (not while busy)",
            ),
            Port::output("busy", 1, false, "a sweep is running"),
            Port::output("rsp_valid", 1, false, "a pass was read in the last cycle"),
            Port::output("rsp_op", 1, false, "its operation"),
            Port::output("rsp_lanes", s, false, "its lanes"),
            Port::output("rsp_set", s * self.set_bits(), false, "per lane: H's set"),
            Port::output(
                "rsp_hit",
                s,
                false,
                "per lane: lookup hit / upsert refreshed",
            ),
            Port::output(
                "rsp_way",
                s * self.way_bits(),
                false,
                "per lane: way hit or allocated",
            ),
            Port::output(
                "rsp_evict",
                s,
                false,
                "per lane: upsert replaced a valid entry",
            ),
            Port::output(
                "rsp_res",
                s * v,
                false,
                "per lane: the matching entry's res",
            ),
            Port::output(
                "rsp_uid",
                s * u,
                false,
                "per lane: the matching entry's uid before this operation",
            ),
            Port::debug(
                "dbg_served",
                s,
                "lanes of the current request already served",
            ),
            Port::debug(
                "dbg_sweep_row",
                self.row_bits(),
                "the bank row the sweep reads",
            ),
        ]
    }

    /// Flip-flops of the RTL's pipeline (per bank: the pass registers and the bypass of the
    /// last write; the served mask and the sweep state).
    pub fn pipeline_bits(&self) -> usize {
        let (k, rb) = (self.kid_bits, self.row_bits());
        // Served mask; sweep busy, row, all, kid; its second stage (valid, all, kid); the
        // pass's operation, kid and pc (shared by its lanes).
        let shared = self.simd + 1 + rb + 1 + k + 1 + 1 + k + 1 + k + self.pc_bits;
        // Per bank: valid, lane, row read, sv1..sv3 and res, uid; the bypass (meta and row
        // valid, row, way, row data, meta row).
        let stage = 1 + self.lane_bits() + rb + 4 * self.val_bits + self.uid_bits;
        let bypass = 2 + rb + self.way_bits() + self.way_row_bits() + self.meta_bits();
        self.ports * (stage + bypass) + shared
    }

    pub fn tables(&self) -> Vec<Table> {
        vec![
            Table::new(
                "mtg",
                self.entries,
                self.entry_bits(),
                "§2.2 entries {valid, kid, pc, sv1, sv2, sv3, res, uid}; per-way block RAMs, valid in the meta RAM",
            ),
            Table::new(
                "extra_lru",
                self.sets(),
                self.ways * self.rank_bits(),
                "true-LRU ranks per set (§2.5), in the meta RAMs with the valid bits",
            ),
            Table::new(
                "extra_pipeline",
                1,
                self.pipeline_bits(),
                "pass registers, one-cycle write bypass per bank, served mask, sweep state (flip-flops)",
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

    fn cfg(sets: &[&str]) -> Result<MtgConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        MtgConfig::from_params(&p)
    }

    #[test]
    fn entry_size_is_section_2_2() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, MtgConfig::default());
        assert_eq!(c.entry_bits(), 197);
        assert_eq!(cfg(&["val_bits=64"]).unwrap().entry_bits(), 325);
        let s = split_storage(&c.tables());
        assert_eq!(s.counted_bits, 1024 * 197);
        // ~25 KiB at 1024 entries (§2.2).
        assert_eq!(s.counted_bits / 8 / 1024, 24);
        assert_eq!((c.sets(), c.bank_rows(), c.meta_bits()), (128, 16, 32));
        assert_port_names_ok(&c.ports());
    }

    #[test]
    fn bad_parameters_name_what_is_allowed() {
        assert_eq!(
            cfg(&["entries=100"]).unwrap_err().0,
            "entries = 100: must be a power of two from 16 to 8192"
        );
        assert_eq!(
            cfg(&["entries=8"]).unwrap_err().0,
            "--set entries=8: entries must be an integer from 16 to 8192"
        );
        assert_eq!(
            cfg(&["ways=32", "entries=16", "ports=1"]).unwrap_err().0,
            "ways = 32: must be a power of two from 1 to 32 and at most entries = 16"
        );
        assert!(cfg(&["ways=3"]).unwrap_err().0.starts_with("ways = 3:"));
        assert!(cfg(&["ports=0"]).unwrap_err().0.contains("ports=0"));
        assert_eq!(
            cfg(&["ports=16"]).unwrap_err().0,
            "ports = 16: must be a power of two from 1 to simd_width = 8 and at most the sets (entries/ways = 128), one bank per port"
        );
        assert!(cfg(&["entries=16", "ways=16"])
            .unwrap_err()
            .0
            .contains("entries/ways = 1"));
        assert!(cfg(&["entries=16", "ways=16", "ports=1"]).is_ok());
        assert_eq!(
            cfg(&["entries=8192", "ways=1", "ports=1"]).unwrap_err().0,
            "entries = 8192 with ways = 1 and ports = 1: 8192 rows per bank RAM; at most 4096 (the RAM primitive's depth): raise ways or ports"
        );
    }
}
