//! `msap-mc`, MSAR's memory-side request buffer (spec/msap.md §2.8, §3.5; contract
//! `units/msap_mc.rs`): the queue as a plain struct ([`MsarQueue`], for an MC model to
//! compose), its port-level model ([`MsapMcModel`]), the stimulus and the vectors M-1 … M-4.

mod model;
mod stimulus;
mod vectors;

pub use model::{McEvents, McFault, MsapMcModel, MsarQueue, Request, View};
pub use stimulus::MsapMcStimulus;
pub use vectors::spec_vectors;
