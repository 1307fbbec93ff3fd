//! `msap-router`, one MSAP mesh router (spec/msap.md §2.5, §3.4; contract
//! `units/msap_router.rs`): the port-level model ([`MsapRouterModel`], VA through the
//! arbiter model [`crate::msap_arbiter::PrioRr`]), the constrained-random stimulus and the
//! spec vectors S-R1 and T-3.

mod model;
mod stimulus;
mod vc_model;
mod vectors;

pub use model::{decode, xy_route, Flit, MsapRouterModel, RouterEvents, RouterFault};
pub use stimulus::MsapRouterStimulus;
pub use vectors::spec_vectors;
