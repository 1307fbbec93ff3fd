//! `msap-pl`, the SM-side MSHR-occupancy counter and PL quantiser (spec/msap.md §2.2, §3.1;
//! contract `units/msap_pl.rs`): the counter as a plain struct ([`PlGen`], for an SM model to
//! compose), its port-level model ([`MsapPlModel`]), the stimulus and the §4.1 vectors.

mod model;
mod stimulus;
mod vectors;

pub use model::{MsapPlModel, PlEvents, PlFault, PlGen};
pub use stimulus::MsapPlStimulus;
pub use vectors::spec_vectors;
