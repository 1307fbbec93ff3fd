//! `msap-pl`: the SM side of MSAP (spec/msap.md §2.2, §3.1): the L1D MSHR-occupancy counter
//! and the PL quantiser.
//!
//! This comment is the normative cycle-level contract; the RTL (`warpforge_hdl::msap_pl`) and
//! the model (`warpforge_testbench::msap_pl`) are written from it independently.
//!
//! # State
//!
//! `mshr_occ` (0 ..= mshr_entries: valid MSHR entries, i.e. distinct outstanding lines) and
//! `pl_reg`. Reset: both 0.
//!
//! # Inputs (sampled in the cycle they are driven)
//!
//! - `reset`: synchronous.
//! - `miss`: an L1D miss this cycle; `merge`: it is a secondary miss to a line with an entry
//!   (merged into it, not counted). A primary miss (`miss & !merge`) allocates an entry when
//!   `mshr_occ < mshr_entries` at the start of the cycle, else it is refused (reservation
//!   fail); a fill in the same cycle does not make room for it.
//! - `fill`: a fill frees an entry. Protocol: never with `mshr_occ = 0` (the model flags it;
//!   the RTL ignores such a fill).
//!
//! # Next state
//!
//! `mshr_occ += alloc − fill` (both in one cycle: unchanged);
//! `pl_reg = min(2^pl_bits − 1, mshr_occ >> pl_shift)` of the start-of-cycle `mshr_occ`
//! (§3.1: one cycle behind the counter; no hysteresis).
//!
//! # Outputs
//!
//! - `mshr_occ`, `pl` (= `pl_reg`): registered; `pl` is what the NI stamps on a packet.
//! - `accept` = `miss & (merge | mshr_occ < mshr_entries)`, `rsv_fail` = a refused primary
//!   miss: combinational (the reservation-fail statistic of §2.2 counts `rsv_fail`).
//!
//! # Storage
//!
//! `pl_reg` (counted: the PL the paper adds), `base_mshr_occ` (the occupancy counter an MSHR
//! already keeps for its full signal, §2.10).

use super::msap::{bits_for, max_pl, PL_BITS};
use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "msap-pl";

pub const MSHR_ENTRIES: ParamSpec = ParamSpec::int(
    "mshr_entries",
    1,
    256,
    32,
    "L1D MSHR entries (32 in the paper)",
);
pub const PL_SHIFT: ParamSpec = ParamSpec::int(
    "pl_shift",
    0,
    8,
    2,
    "PL = occupancy >> pl_shift, clamped (2: divide by 4)",
);

pub const PARAMS: &[ParamSpec] = &[MSHR_ENTRIES, PL_BITS, PL_SHIFT];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlConfig {
    pub mshr_entries: usize,
    pub pl_bits: usize,
    pub pl_shift: usize,
}

impl Default for PlConfig {
    fn default() -> Self {
        PlConfig {
            mshr_entries: 32,
            pl_bits: 3,
            pl_shift: 2,
        }
    }
}

impl PlConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let c = PlConfig {
            mshr_entries: p.usize("mshr_entries"),
            pl_bits: p.usize("pl_bits"),
            pl_shift: p.usize("pl_shift"),
        };
        // Every PL must be reachable: a full table must quantise to the top PL.
        let top = max_pl(c.pl_bits) as usize;
        if c.mshr_entries >> c.pl_shift < top {
            let largest = (0..=8).rev().find(|&s| c.mshr_entries >> s >= top);
            return Err(ParamError(match largest {
                Some(s) => format!(
                    "pl_shift = {}: leaves PLs unused ({} >> {} < {top}); with mshr_entries = {} and pl_bits = {} it must be at most {s}",
                    c.pl_shift, c.mshr_entries, c.pl_shift, c.mshr_entries, c.pl_bits
                ),
                None => format!(
                    "mshr_entries = {}: must be at least 2^pl_bits - 1 = {top} so that every PL is reachable",
                    c.mshr_entries
                ),
            }));
        }
        Ok(c)
    }

    pub fn occ_bits(&self) -> usize {
        bits_for(self.mshr_entries)
    }

    pub fn module_name(&self) -> String {
        format!(
            "msap_pl_e{}_pb{}_s{}",
            self.mshr_entries, self.pl_bits, self.pl_shift
        )
    }

    pub fn ports(&self) -> Vec<Port> {
        vec![
            Port::input("reset", 1, "synchronous reset: occupancy and PL 0"),
            Port::input("miss", 1, "an L1D miss this cycle"),
            Port::input("merge", 1, "the miss is merged into an existing entry"),
            Port::input("fill", 1, "a fill frees an entry"),
            Port::output("accept", 1, true, "the miss is taken (merged or allocated)"),
            Port::output(
                "rsv_fail",
                1,
                true,
                "a primary miss refused: the MSHR is full",
            ),
            Port::output("mshr_occ", self.occ_bits(), false, "valid MSHR entries"),
            Port::output(
                "pl",
                self.pl_bits,
                false,
                "pl_reg: the PL stamped on packets",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        vec![
            Table::new("pl_reg", 1, self.pl_bits, "registered PL (§2.2)"),
            Table::new(
                "base_mshr_occ",
                1,
                self.occ_bits(),
                "MSHR occupancy counter (kept for the full signal anyway, §2.10)",
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

    fn cfg(sets: &[&str]) -> Result<PlConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        PlConfig::from_params(&p)
    }

    #[test]
    fn defaults_and_validation() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, PlConfig::default());
        assert_eq!(c.occ_bits(), 6);
        assert_port_names_ok(&c.ports());
        assert_eq!(
            cfg(&["pl_shift=3"]).unwrap_err().0,
            "pl_shift = 3: leaves PLs unused (32 >> 3 < 7); with mshr_entries = 32 and pl_bits = 3 it must be at most 2"
        );
        assert!(cfg(&["mshr_entries=20"]).unwrap_err().0.ends_with(
            "(20 >> 2 < 7); with mshr_entries = 20 and pl_bits = 3 it must be at most 1"
        ));
        // No shift reaches PL 7 with 6 entries.
        assert!(cfg(&["mshr_entries=6"])
            .unwrap_err()
            .0
            .starts_with("mshr_entries = 6: must be at least"));
        assert!(cfg(&["mshr_entries=6", "pl_shift=0"])
            .unwrap_err()
            .0
            .starts_with("mshr_entries = 6: must be at least 2^pl_bits - 1 = 7"));
        assert!(cfg(&["mshr_entries=4", "pl_bits=2", "pl_shift=0"]).is_ok());
        assert_eq!(
            cfg(&["mshr_entries=0"]).unwrap_err().0,
            "--set mshr_entries=0: mshr_entries must be an integer from 1 to 256"
        );
    }
}
