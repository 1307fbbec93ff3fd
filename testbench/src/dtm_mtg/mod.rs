//! `dtm-mtg`, DTM@GPU's per-instruction memo table (spec/dtm.md §2.2, §2.5, §3.2; contract
//! `units/dtm_mtg.rs`): the table as a plain struct ([`MemoTable`]), its port-level model
//! ([`DtmMtgModel`]), the constrained-random stimulus and the spec vectors.

mod model;
mod stimulus;
mod vectors;

pub use model::{DtmMtgModel, Entry, Key, MemoTable, MtgEvents, MtgFault, Outcome, Ports};
pub use stimulus::DtmMtgStimulus;
pub use vectors::spec_vectors;
