//! `crown-l2`, CROWN's second-level warp table (spec/crown.md §3.3, §3.4.2; contract
//! `units/crown_l2.rs`): the table as a plain struct ([`SecondLevel`], composed by the `crown`
//! top model), its port-level model ([`CrownL2Model`]), the constrained-random stimulus and
//! the spec vectors.

mod model;
mod stimulus;
mod vectors;

pub use model::{CrownL2Model, L2Events, L2Fault, L2Ops, L2Update, Refill, SecondLevel};
pub use stimulus::CrownL2Stimulus;
pub use vectors::spec_vectors;
