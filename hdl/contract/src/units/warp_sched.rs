//! `warp-sched`: the issue-stage warp scheduler of one SM (spec/latency_hiding_scheduler.md §2).
//!
//! Slot `w` belongs to scheduler `w mod schedulers`. Every cycle each scheduler issues at most
//! one eligible warp, `eligible(w) = resident ∧ has_inst ∧ ready ∧ unit_free`, chosen by the
//! policy. Residency and age are the unit's own state: a `launch` bit makes a slot resident at
//! the clock edge and the youngest warp (several launches in one cycle are ordered by ascending
//! slot, as the warps of one CTA are); an `exit` bit makes it non-resident.

use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "warp-sched";
pub const POLICIES: &[&str] = &["lrr", "gto"];

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int("warps", 2, 64, 48, "warp slots per SM"),
    ParamSpec::int(
        "schedulers",
        1,
        2,
        2,
        "warp schedulers per SM; slot w belongs to scheduler w mod n",
    ),
    ParamSpec::choice(
        "policy",
        POLICIES,
        "gto",
        "issue policy: lrr (loose round robin), gto (greedy then oldest)",
    ),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Lrr,
    Gto,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpSchedConfig {
    pub warps: usize,
    pub schedulers: usize,
    pub policy: Policy,
}

impl WarpSchedConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let warps = p.usize("warps");
        let schedulers = p.usize("schedulers");
        let policy = match p.str("policy") {
            "lrr" => Policy::Lrr,
            "gto" => Policy::Gto,
            other => {
                return Err(ParamError(format!(
                    "policy = {other}: must be one of {}",
                    POLICIES.join(", ")
                )))
            }
        };
        Ok(WarpSchedConfig {
            warps,
            schedulers,
            policy,
        })
    }

    /// Bits of a slot index.
    pub fn slot_bits(&self) -> usize {
        crate::index_bits(self.warps)
    }

    /// Slots supervised by scheduler `s`, ascending.
    pub fn supervised(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        (s..self.warps).step_by(self.schedulers)
    }

    pub fn module_name(&self) -> String {
        format!(
            "warp_sched_{}_w{}_s{}",
            match self.policy {
                Policy::Lrr => "lrr",
                Policy::Gto => "gto",
            },
            self.warps,
            self.schedulers
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (w, s, ib) = (self.warps, self.schedulers, self.slot_bits());
        vec![
            Port::input("reset", 1, "synchronous reset: no warp resident, pointers NONE"),
            Port::input("has_inst", w, "per slot: I-buffer head decoded and valid"),
            Port::input("ready", w, "per slot: not at a barrier, scoreboard clear, no control hazard"),
            Port::input("unit_free", w, "per slot: the pipe the head instruction needs can accept"),
            Port::input("is_mem", w, "per slot: the head instruction goes to the LD/ST pipe"),
            Port::input("launch", w, "per slot: a warp is assigned to this (free) slot at the edge"),
            Port::input("exit", w, "per slot: the resident warp exits at the edge"),
            Port::output("issue_valid", s, true, "per scheduler: a warp issues this cycle"),
            Port::output("issue_slot", s * ib, true, "per scheduler: slot index of the issuing warp (0 when none)"),
            Port::output("issue_is_mem", s, true, "per scheduler: the issued instruction is a memory instruction"),
            Port::debug("dbg_resident", w, "per slot: a warp is resident"),
            Port::debug("dbg_last_valid", s, "per scheduler: last_issued is not NONE"),
            Port::debug("dbg_last_issued", s * ib, "per scheduler: last issued slot (0 when NONE)"),
            Port::debug("dbg_greedy_valid", s, "per scheduler: the last issued warp keeps greedy priority"),
            Port::debug(
                "dbg_older",
                w * w,
                "age matrix: bit w*warps+j set when warps in slots j and w are resident and j is older",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let (w, s, ib) = (self.warps, self.schedulers, self.slot_bits());
        vec![
            Table::new(
                "age_matrix",
                w,
                w,
                "per slot: which resident slots hold older warps",
            ),
            Table::new("resident", w, 1, "per slot: a warp is resident"),
            Table::new(
                "issue_pointer",
                s,
                ib + 2,
                "per scheduler: last_issued, its valid bit, greedy_valid",
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
