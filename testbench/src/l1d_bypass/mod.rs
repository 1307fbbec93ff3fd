//! `l1d-bypass`, the barrier-aware L1D bypass decision of one SM (spec/barrier.md §4): its
//! cycle model, the constrained-random stimulus and the spec vectors.

mod model;
mod stimulus;
mod vectors;

pub use model::*;
pub use stimulus::L1dBypassStimulus;
pub use vectors::spec_vectors;
