//! `sm-alu`: the SIMD execution lanes of the SM's execute stage — the integer ALU and the
//! FP32 unit for every opcode of formats Mov, Alu1, Alu2, Alu3, Selp, Setp, Pred1 and Pred2
//! (`docs/isa.md`, [`crate::isa`]).
//!
//! This comment is the normative cycle-level contract; the RTL and the model are written from
//! it and from `docs/isa.md` independently.
//!
//! # Inputs (sampled in the cycle they are driven; every value is legal)
//!
//! - `reset`: synchronous; the output registers clear (`out_valid`, `result`, `pred` = 0).
//!   Outputs in a reset cycle are not compared.
//! - `valid`: an instruction is issued to the lanes this cycle.
//! - `op[7]`: the ISA opcode number ([`crate::isa::Op`] discriminant).
//! - `a`, `b`, `c` (`lanes` × 32, lane `i` in bits `32i+31 … 32i`): operand A (for `mov`
//!   the value to move — the operand stage has already chosen between A and the immediate),
//!   operand B (the immediate already substituted when `bimm`), and the third source of
//!   `mad.lo.s32` / `fma.rn.f32`.
//! - `pa`, `pb`, `pc` (`lanes` bits, lane `i` in bit `i`): predicate operands — `pa`, `pb` for
//!   `and/or/xor.pred`, `pa` for `not.pred` and `mov.pred`, `pc` for `selp`'s predicate.
//!
//! # Per lane, per opcode
//!
//! `(result, pred) = f(op, a, b, c, pa, pb, pc)` exactly as `docs/isa.md` states each op
//! (integer wrapping arithmetic, shifts with the ≥ 32 rules, FP32 with round to nearest even,
//! flush-to-zero of subnormal inputs and results, canonical NaN `0x7fffffff`, …), and:
//!
//! - formats Mov, Alu1, Alu2, Alu3, Selp write `result` and give `pred = 0`;
//! - formats Setp, Pred1, Pred2 write `pred` and give `result = 0`;
//! - every other opcode number (memory, branch, barrier, `exit`, `nop`, and the unassigned
//!   numbers) gives `result = 0`, `pred = 0`.
//!
//! # Outputs (registered: `stages` cycles of latency, one op accepted every cycle)
//!
//! With `stages = 1`, at the clock edge (not in reset): `out_valid ← valid`; when `valid`,
//! `result ← f(…).result` and `pred ← f(…).pred` in every lane; when not `valid`,
//! `result ← 0`, `pred ← 0`.
//!
//! With `stages = S`, the outputs in cycle `t` are those the rule above gives for the inputs
//! of cycle `t − S + 1` (instead of `t`), except that an op issued in cycle `u` is dropped
//! (its outputs are `out_valid = 0`, `result = 0`, `pred = 0`) when `reset` is high in any of
//! the cycles `u … t − 1`: reset empties the pipeline. Ops never reorder or merge; every op
//! takes exactly `S` cycles, whatever its opcode.
//!
//! The unit holds no architectural state beyond its pipeline registers, so there are no
//! storage tables and no debug ports.

use crate::manifest::{Manifest, Port, Table};
use crate::params::{ParamError, ParamSpec, Params};

pub const NAME: &str = "sm-alu";

/// Width of one lane's data operand or result.
pub const WORD_BITS: usize = 32;
/// Width of the `op` input.
pub const OP_BITS: usize = 7;
/// Largest SIMD width.
pub const MAX_LANES: usize = 64;

/// Deepest pipeline: the FP32 datapath has three cuts (docs/sm-alu.md).
pub const MAX_STAGES: usize = 4;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::int(
        "lanes",
        1,
        MAX_LANES as i64,
        8,
        "SIMD width: lanes computed in parallel (32-bit operands per lane)",
    ),
    ParamSpec::int(
        "stages",
        1,
        MAX_STAGES as i64,
        1,
        "pipeline depth: cycles from issue to result (1 = the output register only)",
    ),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmAluConfig {
    pub lanes: usize,
    pub stages: usize,
}

impl Default for SmAluConfig {
    fn default() -> Self {
        SmAluConfig {
            lanes: 8,
            stages: 1,
        }
    }
}

impl SmAluConfig {
    pub fn from_params(p: &Params) -> Result<Self, ParamError> {
        let lanes = p.int("lanes");
        if !(1..=MAX_LANES as i64).contains(&lanes) {
            return Err(ParamError(format!(
                "lanes = {lanes}: must be an integer from 1 to {MAX_LANES}"
            )));
        }
        let stages = p.int("stages");
        if !(1..=MAX_STAGES as i64).contains(&stages) {
            return Err(ParamError(format!(
                "stages = {stages}: must be an integer from 1 to {MAX_STAGES}"
            )));
        }
        Ok(SmAluConfig {
            lanes: lanes as usize,
            stages: stages as usize,
        })
    }

    /// `sm_alu_l<lanes>`, with `_s<stages>` when the pipeline is deeper than one stage.
    pub fn module_name(&self) -> String {
        match self.stages {
            1 => format!("sm_alu_l{}", self.lanes),
            s => format!("sm_alu_l{}_s{s}", self.lanes),
        }
    }

    pub fn ports(&self) -> Vec<Port> {
        let (l, w) = (self.lanes, self.lanes * WORD_BITS);
        vec![
            Port::input(
                "reset",
                1,
                "synchronous reset: out_valid, result and pred clear",
            ),
            Port::input(
                "valid",
                1,
                "an instruction is issued to the lanes this cycle",
            ),
            Port::input("op", OP_BITS, "ISA opcode number (docs/isa.md)"),
            Port::input("a", w, "per lane: operand A (for mov the value to move)"),
            Port::input(
                "b",
                w,
                "per lane: operand B (immediate already substituted)",
            ),
            Port::input("c", w, "per lane: third source of mad.lo.s32 / fma.rn.f32"),
            Port::input(
                "pa",
                l,
                "per lane: first predicate operand (predicate logic)",
            ),
            Port::input(
                "pb",
                l,
                "per lane: second predicate operand (and/or/xor.pred)",
            ),
            Port::input("pc", l, "per lane: selp's predicate"),
            Port::output(
                "out_valid",
                1,
                false,
                "valid of `stages` cycles ago (no reset since)",
            ),
            Port::output(
                "result",
                w,
                false,
                "per lane: the 32-bit result (0 for predicate-writing ops)",
            ),
            Port::output(
                "pred",
                l,
                false,
                "per lane: the setp / predicate-logic result",
            ),
        ]
    }

    pub fn tables(&self) -> Vec<Table> {
        vec![]
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

    fn cfg(sets: &[&str]) -> Result<SmAluConfig, ParamError> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let p = Params::resolve(NAME, PARAMS, None, &sets)?;
        SmAluConfig::from_params(&p)
    }

    #[test]
    fn ports_follow_lanes() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c, SmAluConfig::default());
        let ports = c.ports();
        assert_port_names_ok(&ports);
        let width = |n: &str| ports.iter().find(|p| p.name == n).unwrap().width;
        assert_eq!(width("a"), 256);
        assert_eq!(width("pc"), 8);
        assert_eq!(width("op"), 7);
        assert_eq!(width("result"), 256);
        assert!(ports.iter().all(|p| !p.combinational && !p.debug));
        let c = cfg(&["lanes=1"]).unwrap();
        assert_eq!(c.module_name(), "sm_alu_l1");
        assert!(c.tables().is_empty());
    }

    #[test]
    fn lanes_out_of_range_are_refused() {
        for bad in ["lanes=0", "lanes=65"] {
            let e = cfg(&[bad]).unwrap_err();
            assert_eq!(
                e.0,
                format!("--set {bad}: lanes must be an integer from 1 to 64")
            );
        }
        assert!(cfg(&["lanes=64"]).is_ok());
    }

    #[test]
    fn stages_name_the_module_and_out_of_range_are_refused() {
        let c = cfg(&["lanes=2", "stages=3"]).unwrap();
        assert_eq!((c.lanes, c.stages), (2, 3));
        assert_eq!(c.module_name(), "sm_alu_l2_s3");
        assert_eq!(cfg(&["stages=1"]).unwrap().module_name(), "sm_alu_l8");
        for bad in ["stages=0", "stages=5"] {
            let e = cfg(&[bad]).unwrap_err();
            assert_eq!(
                e.0,
                format!("--set {bad}: stages must be an integer from 1 to 4")
            );
        }
    }
}
