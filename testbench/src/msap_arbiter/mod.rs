//! `msap-arbiter`, MSAA's priority round-robin arbiter (spec/msap.md §2.6–§2.7; contract
//! `units/msap_arbiter.rs`): the arbiter as a plain struct ([`PrioRr`], for the router model
//! to compose), its port-level model ([`MsapArbiterModel`]), the constrained-random stimulus
//! and the spec vectors A-1 … A-5.

mod model;
mod stimulus;
mod vectors;

pub use model::{ArbEvents, ArbFault, MsapArbiterModel, PrioRr};
pub use stimulus::MsapArbiterStimulus;
pub use vectors::spec_vectors;
