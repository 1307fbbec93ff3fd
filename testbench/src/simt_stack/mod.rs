//! The PDOM (SBR) reconvergence stack of one warp (spec/crown.md §2.6), as a plain reusable
//! type ([`Stack`]), and the `simt-stack` unit built on it: its cycle model, the
//! constrained-random stimulus and the spec vectors.

mod model;
mod stack;
mod stimulus;
mod vectors;

pub use model::*;
pub use stack::*;
pub use stimulus::SimtStackStimulus;
pub use vectors::spec_vectors;
