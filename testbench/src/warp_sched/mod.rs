//! Cycle model, stimulus and spec vectors of `warp-sched`, the issue-stage warp scheduler:
//! LRR and GTO (spec/latency_hiding_scheduler.md §2), MTO, MOTRR and MOTRR+Recency (same spec,
//! §2.4 and §3) and the barrier-aware `bar-gto` (spec/barrier.md §2–3), as the contract
//! (`warpforge_contract::units::warp_sched`) defines them cycle by cycle.
//!
//! Age is kept as the launch order of the resident warps (a list, oldest first), never as an
//! age matrix; `dbg_older` is derived from that list. The barrier table keeps counters; the
//! invariants recount them from the per-slot state.
//!
//! The folder holds the model (`model.rs`), the constrained-random stimulus (`stimulus.rs`) and
//! the spec vectors (`vectors.rs`, `vectors_lh.rs` for the latency-hiding and barrier-aware
//! policies).

mod model;
mod stimulus;
mod vectors;
mod vectors_lh;

pub use model::*;
pub use stimulus::*;
pub use vectors::spec_vectors;

use crate::rng::Rng;
use crate::{words, Model, SpecVector, Stimulus, VectorCycle};
use warpforge_contract::units::warp_sched::{
    IssuePolicy, QueueOrder, RecClass, RecTrigger, WarpSchedConfig,
};
use warpforge_contract::Layout;

/// Offset (in words) of a port in its flat vector.
pub(super) fn offset(slots: &[warpforge_contract::manifest::Slot], name: &str) -> usize {
    crate::words::port_offset(slots, "warp-sched", name)
}

/// Offset and word count of a port that only some configurations have.
pub(super) fn opt_port(
    slots: &[warpforge_contract::manifest::Slot],
    name: &str,
) -> Option<(usize, usize)> {
    slots
        .iter()
        .find(|s| s.name == name)
        .map(|s| (s.offset, s.words))
}

pub(super) use crate::words::low_bits;

/// Iterate the set bits of a mask, ascending.
pub(super) fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(w)
        }
    })
}
