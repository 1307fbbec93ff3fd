//! `msap-arbiter`: the priority round-robin arbiter of MSAA (spec/msap.md §2.6) with the
//! optional ageing of §2.7. `msaa_en = false` is the baseline round-robin arbiter.
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::msap_arbiter`,
//! whose [`PrioArb`] block the router instantiates at every arbitration point) and the model
//! (`warpforge_testbench::msap_arbiter`) are written from it independently.
//!
//! # State
//!
//! - Round-robin pointers `ptr[lvl]` (`ib` bits each): one per level `0 .. nlvl` with
//!   `rr_ptr = per_level`, one shared by all levels with `rr_ptr = shared`, one with
//!   `msaa_en = false` (only level 0 exists). Reset: every pointer `n − 1`, so the first
//!   search starts at requester 0.
//! - With `age_thresh > 0`: a loss counter `lost[i]` per requester (`lost_bits` =
//!   ⌈log2(age_thresh + n)⌉, saturating). Reset 0.
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous, to the reset state above.
//! - `req[n]`: requester i requests; `pl[n·pl_bits]`: its PL at bits `i·pl_bits`.
//! - `commit`: the grant of this cycle is used (§2.6 commit rule); pointers and loss counters
//!   change only on a used grant.
//!
//! Protocol (the router keeps it; the model flags a break): a requester keeps requesting, with
//! the same PL, until it is granted with `commit` — the precondition of I-6 and I-7.
//!
//! # Arbitration (combinational, from this cycle's inputs and the registered state)
//!
//! ```text
//! urgent(i)  = age_thresh > 0 && lost[i] >= age_thresh
//! eff_lvl(i) = !msaa_en ? 0 : urgent(i) ? 2^pl_bits : pl(i)
//! m          = max eff_lvl over requesters
//! g          = first requester at level m in cyclic order ptr[m]+1, ptr[m]+2, …
//! ```
//!
//! On `commit` with a grant: `ptr[m] = g` (the shared pointer with `shared`); `lost[g] = 0`;
//! for every other requester `lost[i] += 1` (saturating at `2^lost_bits − 1`).
//!
//! # Outputs
//!
//! - `gnt_valid`, `gnt[n]` (one-hot), `gnt_idx`, `gnt_lvl` (the winner's effective level):
//!   combinational; all 0 without a requester.
//! - Debug: `dbg_ptr[ptrs·ib]` (pointer k at bits k·ib), `dbg_lost[n·lost_bits]` (0 without
//!   ageing; one bit wide then).
//!
//! # Storage
//!
//! `base_rr_ptr` (the baseline's one pointer), `extra_lvl_ptr` (the other levels' pointers),
//! `extra_lost` (the loss counters). The paper counts no arbiter state (§2.10).

use super::msap::{max_pl, PL_BITS};
use crate::index_bits;
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "msap-arbiter";

pub const N: ParamSpec = ParamSpec::int("n", 2, 16, 5, "requesters (router ports: 5)");
pub const NLVL: ParamSpec = ParamSpec::int(
    "nlvl",
    1,
    17,
    8,
    "priority levels: 2^pl_bits, plus 1 (the urgent level) when age_thresh > 0",
);
pub const MSAA_EN: ParamSpec = ParamSpec::boolean(
    "msaa_en",
    true,
    "arbitrate by PL (false: the baseline RR arbiter)",
);
pub const RR_PTR: ParamSpec = ParamSpec::choice(
    "rr_ptr",
    &["per_level", "shared"],
    "per_level",
    "one RR pointer per level, or one shared (BookSim style)",
);
pub const AGE_THRESH: ParamSpec = ParamSpec::int(
    "age_thresh",
    0,
    255,
    0,
    "losses after which a requester is urgent (0: no ageing)",
);

pub const PARAMS: &[ParamSpec] = &[N, PL_BITS, NLVL, MSAA_EN, RR_PTR, AGE_THRESH];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArbiterConfig {
    pub n: usize,
    pub pl_bits: usize,
    pub nlvl: usize,
    pub msaa_en: bool,
    pub shared_ptr: bool,
    pub age_thresh: usize,
}

impl Default for ArbiterConfig {
    fn default() -> Self {
        ArbiterConfig {
            n: 5,
            pl_bits: 3,
            nlvl: 8,
            msaa_en: true,
            shared_ptr: false,
            age_thresh: 0,
        }
    }
}

impl ArbiterConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let c = ArbiterConfig {
            n: p.usize("n"),
            pl_bits: p.usize("pl_bits"),
            nlvl: p.usize("nlvl"),
            msaa_en: p.bool("msaa_en"),
            shared_ptr: p.str("rr_ptr") == "shared",
            age_thresh: p.usize("age_thresh"),
        };
        c.check()?;
        Ok(c)
    }

    /// The cross-parameter rules (ranges are checked by the parameter declarations).
    pub fn check(&self) -> Result<(), ParamError> {
        let want = (max_pl(self.pl_bits) + 1) as usize + (self.age_thresh > 0) as usize;
        if self.nlvl != want {
            return Err(ParamError(if self.age_thresh > 0 {
                format!(
                    "nlvl = {}: must be 2^pl_bits + 1 = {want} (the PLs and the urgent level, as age_thresh > 0)",
                    self.nlvl
                )
            } else {
                format!(
                    "nlvl = {}: must be 2^pl_bits = {want} (one level per PL; 2^pl_bits + 1 only with age_thresh > 0)",
                    self.nlvl
                )
            }));
        }
        if self.age_thresh > 0 && !self.msaa_en {
            return Err(ParamError(format!(
                "age_thresh = {}: must be 0 with msaa_en = false (every requester is at level 0)",
                self.age_thresh
            )));
        }
        Ok(())
    }

    /// A configuration built in code (the router's arbitration points).
    pub fn new(n: usize, pl_bits: usize, msaa_en: bool, shared_ptr: bool, age: usize) -> Self {
        ArbiterConfig {
            n,
            pl_bits,
            nlvl: (1 << pl_bits) + (age > 0) as usize,
            msaa_en,
            shared_ptr,
            age_thresh: age,
        }
    }

    /// Requester-index bits.
    pub fn idx_bits(&self) -> usize {
        index_bits(self.n)
    }
    /// Effective-level bits.
    pub fn lvl_bits(&self) -> usize {
        index_bits(self.nlvl)
    }
    /// The urgent level (with ageing).
    pub fn urgent_lvl(&self) -> usize {
        1 << self.pl_bits
    }
    pub fn ageing(&self) -> bool {
        self.age_thresh > 0
    }
    /// Number of RR pointers held.
    pub fn ptrs(&self) -> usize {
        if !self.msaa_en || self.shared_ptr {
            1
        } else {
            self.nlvl
        }
    }
    /// Loss-counter bits (0 without ageing).
    pub fn lost_bits(&self) -> usize {
        if self.ageing() {
            index_bits(self.age_thresh + self.n)
        } else {
            0
        }
    }

    pub fn module_name(&self) -> String {
        format!(
            "msap_arbiter_n{}_pb{}_{}_{}_a{}",
            self.n,
            self.pl_bits,
            if self.msaa_en { "msaa" } else { "rr" },
            if self.shared_ptr { "sh" } else { "pl" },
            self.age_thresh
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        let (n, ib) = (self.n, self.idx_bits());
        vec![
            Port::input(
                "reset",
                1,
                "synchronous reset: pointers n-1, loss counters 0",
            ),
            Port::input("req", n, "requester i requests at bit i"),
            Port::input("pl", n * self.pl_bits, "requester i's PL at bits i*pl_bits"),
            Port::input(
                "commit",
                1,
                "the grant is used: pointers and loss counters move",
            ),
            Port::output("gnt_valid", 1, true, "some requester is granted"),
            Port::output("gnt", n, true, "the grant, one-hot"),
            Port::output("gnt_idx", ib, true, "the granted requester"),
            Port::output("gnt_lvl", self.lvl_bits(), true, "its effective level"),
            Port::debug(
                "dbg_ptr",
                self.ptrs() * ib,
                "RR pointer k at bits k*idx_bits",
            ),
            Port::debug(
                "dbg_lost",
                (n * self.lost_bits()).max(1),
                "requester i's loss counter at bits i*lost_bits (0 without ageing)",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        let ib = self.idx_bits();
        let mut t = vec![Table::new(
            "base_rr_ptr",
            1,
            ib,
            "the round-robin pointer every arbiter holds",
        )];
        if self.ptrs() > 1 {
            t.push(Table::new(
                "extra_lvl_ptr",
                self.ptrs() - 1,
                ib,
                "per-level RR pointers beyond the baseline's one (§2.6 [R])",
            ));
        }
        if self.ageing() {
            t.push(Table::new(
                "extra_lost",
                self.n,
                self.lost_bits(),
                "per-requester loss counters (§2.7 ageing [R])",
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

    fn cfg(sets: &[&str]) -> Result<ArbiterConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        ArbiterConfig::from_params(&p)
    }

    #[test]
    fn defaults_and_widths() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, ArbiterConfig::default());
        assert_eq!(
            (c.idx_bits(), c.lvl_bits(), c.ptrs(), c.lost_bits()),
            (3, 3, 8, 0)
        );
        assert_port_names_ok(&c.ports());
        let c = cfg(&["nlvl=9", "age_thresh=32"]).unwrap();
        assert_eq!(
            (c.lvl_bits(), c.ptrs(), c.lost_bits(), c.urgent_lvl()),
            (4, 9, 6, 8)
        );
        assert_eq!(c, ArbiterConfig::new(5, 3, true, false, 32));
        let c = cfg(&["msaa_en=false"]).unwrap();
        assert_eq!(c.ptrs(), 1);
        assert_eq!(c.tables().len(), 1);
    }

    #[test]
    fn validation() {
        assert_eq!(
            cfg(&["n=0"]).unwrap_err().0,
            "--set n=0: n must be an integer from 2 to 16"
        );
        assert_eq!(
            cfg(&["nlvl=0"]).unwrap_err().0,
            "--set nlvl=0: nlvl must be an integer from 1 to 17"
        );
        assert_eq!(
            cfg(&["pl_bits=2"]).unwrap_err().0,
            "nlvl = 8: must be 2^pl_bits = 4 (one level per PL; 2^pl_bits + 1 only with age_thresh > 0)"
        );
        assert!(cfg(&["age_thresh=4"])
            .unwrap_err()
            .0
            .contains("2^pl_bits + 1 = 9"));
        assert!(cfg(&["msaa_en=false", "age_thresh=4", "nlvl=9"])
            .unwrap_err()
            .0
            .starts_with("age_thresh = 4: must be 0 with msaa_en = false"));
    }
}
