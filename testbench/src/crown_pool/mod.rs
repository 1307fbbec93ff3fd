//! `crown-pool`, CROWN's issue pool (spec/crown.md §3.4.1, §3.9; contract
//! `units/crown_pool.rs`): the pool as a plain struct ([`IssuePool`], composed by the `crown`
//! top model), its port-level model ([`CrownPoolModel`]), the constrained-random stimulus and
//! the spec vectors.

mod model;
mod stimulus;
mod vectors;

pub use model::{CrownPoolModel, IssuePool, PoolEntry, PoolEvents, PoolFault};
pub use stimulus::CrownPoolStimulus;
pub use vectors::spec_vectors;
