//! `dtm`, DTM@GPU's top (spec/dtm.md §3.5; contract `units/dtm_top.rs`): the `dtm-mtg`,
//! `dtm-mtt` and `dtm-tb` models composed and sequenced per warp instruction
//! ([`DtmModel`]), the constrained-random requester and the spec vectors.

mod model;
mod stimulus;
mod vectors;

pub use model::{DtmEvents, DtmFault, DtmModel, Io};
pub use stimulus::DtmStimulus;
pub use vectors::spec_vectors;
