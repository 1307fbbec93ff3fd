//! `msap-mc`: MSAR, the memory-side request buffer (spec/msap.md §2.8, §3.5): requests leave
//! the network into this queue and go to L2 highest PL first, oldest first within a PL, with
//! the same-line guard and optional ageing.
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::msap_mc`) and
//! the model (`warpforge_testbench::msap_mc`) are written from it independently.
//!
//! # State
//!
//! `depth` slots, each `{valid, line, pl, meta, bypass}`, and the arrival order of the valid
//! ones. `meta` (`meta_bits`: the request's other fields — source, tag, type — opaque here)
//! lives in the RAM primitive, the rest in flip-flops. Reset: every slot invalid, bypass 0
//! (the RAM rows are not cleared; only valid slots are read).
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous.
//! - `in_valid, in_line, in_pl, in_meta`: a request ejected at this MC. It enters when
//!   `in_ready` (count at the start of the cycle < depth; no pass-through), into the lowest
//!   free slot; otherwise the network keeps it. An entry is eligible from the next cycle.
//! - `l2_ready`: the L2 pipeline accepts a request; the selected entry (`out_*`) leaves.
//!
//! # Selection (from the state at the start of the cycle)
//!
//! ```text
//! eligible(e) = valid(e) && !(line_guard && some older valid entry has e's line)
//! urgent(e)   = age_thresh > 0 && bypass(e) >= age_thresh
//! key(e)      = !msar_en ? 0 : urgent(e) ? 2^pl_bits : pl(e)
//! selected    = the oldest eligible entry of maximum key
//! ```
//!
//! The oldest valid entry is always eligible, so a non-empty queue always has a selection;
//! `msar_en = false` is the FIFO. When the selected entry `s` leaves, every eligible entry
//! older than `s` counts `bypass += 1`.
//!
//! # Outputs
//!
//! - From the registered state: `in_ready`; `out_valid` (queue non-empty), `out_idx` (slot),
//!   `out_line`, `out_pl`, `out_urgent` (all 0 when empty); `count`.
//! - Registered: `meta_valid` (an entry left in the previous cycle) and `meta` (its meta,
//!   read from the RAM at that edge; 0 without `meta_valid`) — L2 gets the line with the
//!   dequeue and the rest of the request one cycle later.
//! - Debug: `dbg_valid[depth]`, `dbg_elig[depth]`, `dbg_pl[depth·pl_bits]`,
//!   `dbg_line[depth·line_bits]` (0 in invalid slots), `dbg_older[depth·depth]` (bit
//!   `i·depth + j`: valid entry j is older than valid entry i), `dbg_bypass[depth·bypass_bits]`
//!   (one 0 bit without ageing).
//!
//! # Storage
//!
//! `pl` (counted: the PL per entry), `base_req` (valid, line, meta: the queue a baseline MC
//! has), `extra_age` (the age matrix, depth × depth), `extra_bypass` (ageing counters).

use super::msap::{bits_for, PL_BITS};
use super::ram::RamConfig;
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "msap-mc";

pub const DEPTH: ParamSpec = ParamSpec::int(
    "depth",
    2,
    32,
    8,
    "request-buffer entries (MC_QDEPTH; 8 in GPGPU-Sim)",
);
pub const LINE_BITS: ParamSpec = ParamSpec::int(
    "line_bits",
    1,
    32,
    25,
    "line-address width (32-bit address, 128 B lines)",
);
pub const META_BITS: ParamSpec = ParamSpec::int(
    "meta_bits",
    1,
    64,
    14,
    "the request's other fields (src 6, tag 6, type 2), kept in block RAM",
);
pub const MSAR_EN: ParamSpec =
    ParamSpec::boolean("msar_en", true, "PL-ordered dequeue (false: FIFO)");
pub const LINE_GUARD: ParamSpec = ParamSpec::boolean(
    "line_guard",
    true,
    "an entry waits for every older entry to its line (MSAR_LINE_GUARD)",
);
pub const AGE_THRESH: ParamSpec = ParamSpec::int(
    "age_thresh",
    0,
    255,
    0,
    "MSAR_AGE_THRESH: bypasses after which an entry is urgent (0: off)",
);

pub const PARAMS: &[ParamSpec] = &[
    DEPTH, PL_BITS, LINE_BITS, META_BITS, MSAR_EN, LINE_GUARD, AGE_THRESH,
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McConfig {
    pub depth: usize,
    pub pl_bits: usize,
    pub line_bits: usize,
    pub meta_bits: usize,
    pub msar_en: bool,
    pub line_guard: bool,
    pub age_thresh: usize,
}

impl Default for McConfig {
    fn default() -> Self {
        McConfig {
            depth: 8,
            pl_bits: 3,
            line_bits: 25,
            meta_bits: 14,
            msar_en: true,
            line_guard: true,
            age_thresh: 0,
        }
    }
}

impl McConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let c = McConfig {
            depth: p.usize("depth"),
            pl_bits: p.usize("pl_bits"),
            line_bits: p.usize("line_bits"),
            meta_bits: p.usize("meta_bits"),
            msar_en: p.bool("msar_en"),
            line_guard: p.bool("line_guard"),
            age_thresh: p.usize("age_thresh"),
        };
        if c.age_thresh > 0 && !c.msar_en {
            return Err(ParamError(format!(
                "age_thresh = {}: must be 0 with msar_en = false (the FIFO has no bypasses)",
                c.age_thresh
            )));
        }
        Ok(c)
    }

    pub fn ageing(&self) -> bool {
        self.age_thresh > 0
    }
    pub fn idx_bits(&self) -> usize {
        index_bits(self.depth)
    }
    pub fn count_bits(&self) -> usize {
        bits_for(self.depth)
    }
    /// Bypass-counter bits (0 without ageing); the counter never passes `age_thresh` (I-7).
    pub fn bypass_bits(&self) -> usize {
        if self.ageing() {
            bits_for(self.age_thresh)
        } else {
            0
        }
    }
    /// The urgent key.
    pub fn urgent_key(&self) -> u64 {
        1 << self.pl_bits
    }
    /// The meta RAM: a power-of-two number of rows ≥ depth.
    pub fn ram(&self) -> RamConfig {
        RamConfig {
            depth: self.depth.max(2).next_power_of_two(),
            width: self.meta_bits,
            ports: 2,
            byte_write: false,
        }
    }

    pub fn module_name(&self) -> String {
        format!(
            "msap_mc_d{}_pb{}_l{}_m{}_{}_{}_a{}",
            self.depth,
            self.pl_bits,
            self.line_bits,
            self.meta_bits,
            if self.msar_en { "msar" } else { "fifo" },
            if self.line_guard { "g" } else { "ng" },
            self.age_thresh
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (d, ib, pb, lb) = (self.depth, self.idx_bits(), self.pl_bits, self.line_bits);
        vec![
            Port::input("reset", 1, "synchronous reset: every slot invalid"),
            Port::input("in_valid", 1, "a request ejected at this MC"),
            Port::input("in_line", lb, "its line address"),
            Port::input("in_pl", pb, "its PL"),
            Port::input(
                "in_meta",
                self.meta_bits,
                "its other fields (src, tag, type)",
            ),
            Port::input(
                "l2_ready",
                1,
                "L2 accepts a request: the selected entry leaves",
            ),
            Port::output("in_ready", 1, false, "a free slot: an arrival enters"),
            Port::output(
                "out_valid",
                1,
                false,
                "an entry is selected (queue non-empty)",
            ),
            Port::output("out_idx", ib, false, "its slot"),
            Port::output("out_line", lb, false, "its line"),
            Port::output("out_pl", pb, false, "its PL"),
            Port::output("out_urgent", 1, false, "it was selected as urgent (ageing)"),
            Port::output(
                "meta_valid",
                1,
                false,
                "an entry left in the previous cycle",
            ),
            Port::output(
                "meta",
                self.meta_bits,
                false,
                "that entry's meta (block RAM read)",
            ),
            Port::output("count", self.count_bits(), false, "valid entries"),
            Port::debug("dbg_valid", d, "slot i valid at bit i"),
            Port::debug("dbg_elig", d, "slot i eligible at bit i"),
            Port::debug(
                "dbg_pl",
                d * pb,
                "slot i's PL at bits i*pl_bits (0 if invalid)",
            ),
            Port::debug(
                "dbg_line",
                d * lb,
                "slot i's line at bits i*line_bits (0 if invalid)",
            ),
            Port::debug(
                "dbg_older",
                d * d,
                "bit i*depth+j: entry j is older than entry i",
            ),
            Port::debug(
                "dbg_bypass",
                (d * self.bypass_bits()).max(1),
                "slot i's bypass count at bits i*bypass_bits (0 without ageing)",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let d = self.depth;
        let mut t = vec![
            Table::new("pl", d, self.pl_bits, "per-entry PL (§2.8)"),
            Table::new(
                "base_req",
                d,
                1 + self.line_bits + self.meta_bits,
                "request entries {valid, line, meta}; meta in block RAM",
            ),
            Table::new(
                "extra_age",
                d,
                d,
                "age matrix: per entry, the entries older than it (§2.8 [R])",
            ),
        ];
        if self.ageing() {
            t.push(Table::new(
                "extra_bypass",
                d,
                self.bypass_bits(),
                "per-entry bypass counters (MSAR ageing [R])",
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
    use crate::units::dwr::assert_port_names_ok;

    fn cfg(sets: &[&str]) -> Result<McConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        McConfig::from_params(&p)
    }

    #[test]
    fn defaults_widths_validation() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, McConfig::default());
        assert_eq!((c.idx_bits(), c.count_bits(), c.bypass_bits()), (3, 4, 0));
        assert_port_names_ok(&c.ports());
        let c = cfg(&["depth=5", "age_thresh=2"]).unwrap();
        assert_eq!((c.ram().depth, c.bypass_bits(), c.urgent_key()), (8, 2, 8));
        assert_eq!(cfg(&["depth=2"]).unwrap().ram().depth, 2);
        assert_eq!(
            cfg(&["depth=0"]).unwrap_err().0,
            "--set depth=0: depth must be an integer from 2 to 32"
        );
        assert!(cfg(&["msar_en=false", "age_thresh=3"])
            .unwrap_err()
            .0
            .starts_with("age_thresh = 3: must be 0 with msar_en = false"));
    }
}
