//! `dtm-tb`, DTM@GPU's per-thread trace buffers (spec/dtm.md §2.4, §3.3, §3.4; contract
//! `units/dtm_tb.rs`): the buffers as a plain struct ([`TraceBuffers`]), the port-level
//! model ([`DtmTbModel`]), the constrained-random stimulus and the spec vectors.

mod model;
mod stimulus;
mod vectors;

pub use model::{
    derive, pack_srcs, unpack_ctx, DtmTbModel, Event, Instr, Op, TbEvents, TbFault, TraceBuffers,
};
pub use stimulus::DtmTbStimulus;
pub use vectors::spec_vectors;
