//! Cycle model, stimulus and spec vectors of `dwr`, Dynamic Warp Resizing for one SM: the
//! sub-warp scheduler states, the round-robin pick, the barrier pipeline, and the PST, ILT and
//! SCO (spec/dwr.md §2.6–§2.9, §3.4–§3.10; contract `units/dwr.rs`, docs/dwr.md).
//!
//! The PST, ILT and SCO are the very types the standalone models use ([`Pst`], [`Ilt`],
//! [`form_bundle`]); this module adds what only the composite has, and the small bit-set and
//! field helpers the four DWR models share.
//!
//! The folder holds the shared bit-set and field helpers (`bits.rs`), the model (`model.rs`),
//! the constrained-random stimulus (`stimulus.rs`) and the spec vectors (`vectors.rs`).

mod bits;
mod model;
mod stimulus;
mod vectors;

pub use bits::*;
pub use model::*;
pub use stimulus::*;
pub use vectors::spec_vectors;

use crate::dwr_ilt::{Ilt, IltFault};
use crate::dwr_pst::{Pst, PstFault, Release};
use crate::dwr_sco::{bundle_mask, check_fuse, form_bundle, member_lanes, ScoFault};
use crate::rng::Rng;
use crate::warp_sched::density_mask;
use crate::{Model, SpecVector, Stimulus, VectorCycle};
use std::fmt;
use std::ops::{BitAnd, BitOr, BitXor};
use warpforge_contract::units::dwr::{self, DwrConfig, FusedSlices, InstKind, State};
use warpforge_contract::units::dwr_sco::ScoMatch;
use warpforge_contract::Layout;
