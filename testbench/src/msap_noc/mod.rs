//! `msap-noc`, the MSAP core–memory network (spec/msap.md §2.1, §2.4, §2.8, §2.9, §3;
//! contract `units/msap_noc.rs`): the model composed of the router and MC buffer models
//! ([`MsapNocModel`]), the synthetic traffic generator ([`Traffic`]) the stimulus and
//! `warpforge noc` share, and the network-level spec vectors.

mod model;
mod stimulus;
pub mod traffic;
mod vectors;

pub use model::{MsapNocModel, NocEvents, NocFault, Req, WDOG};
pub use stimulus::MsapNocStimulus;
pub use traffic::{Pattern, PlMode, Traffic};
pub use vectors::spec_vectors;
