//! `dtm-mtt`, DTM@GPU's trace memo table (spec/dtm.md §2.3, §2.5, §3.5; contract
//! `units/dtm_mtt.rs`): the table as a plain struct ([`Mtt`]), its port-level model
//! ([`DtmMttModel`]), the constrained-random stimulus and the spec vectors.

mod model;
mod stimulus;
mod vectors;

pub use model::{Ctx, DtmMttModel, Inputs, Mtt, MttEvents, MttFault, Slot, Trace, UpOut, MAX_K};
pub use stimulus::DtmMttStimulus;
pub use vectors::{ctx_words, spec_vectors, trace, Script};
