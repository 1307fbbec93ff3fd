//! Cycle model, stimulus and spec vectors of `crown-barrier`, CROWN's reconvergence-barrier
//! table (spec/crown.md §3.4.5, §3.6, A7, A8; contract `units/crown_barrier.rs`,
//! docs/crown.md).
//!
//! [`BarrierTable`] is the table as a plain struct (one `cycle` call per clock cycle: reserve,
//! arrival check, completion, drain; `head` for the start-of-cycle drain candidate); the
//! `crown` top model composes it, and [`CrownBarrierModel`] drives it from the unit's ports.

mod model;
mod stimulus;
mod vectors;

pub use model::*;
pub use stimulus::*;
pub use vectors::spec_vectors;

/// Bit offsets of the ports in the flat input and output vectors.
pub(crate) mod ports {
    use warpforge_contract::manifest::Slot;
    use warpforge_contract::Layout;

    fn bit(slots: &[Slot], name: &str) -> usize {
        64 * slots
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("crown-barrier contract has no port `{name}`"))
            .offset
    }

    #[derive(Clone, Copy, Debug)]
    pub struct InPorts {
        pub reset: usize,
        pub rsv_valid: usize,
        pub rsv_pc: usize,
        pub rsv_lanes: usize,
        pub rsv_thi: usize,
        pub prb_lanes: usize,
        pub prb_pc: usize,
        pub prb_thi: usize,
        pub drain: usize,
    }

    impl InPorts {
        pub fn new(l: &Layout) -> InPorts {
            let b = |n: &str| bit(&l.inputs, n);
            InPorts {
                reset: b("reset"),
                rsv_valid: b("rsv_valid"),
                rsv_pc: b("rsv_pc"),
                rsv_lanes: b("rsv_lanes"),
                rsv_thi: b("rsv_thi"),
                prb_lanes: b("prb_lanes"),
                prb_pc: b("prb_pc"),
                prb_thi: b("prb_thi"),
                drain: b("drain"),
            }
        }
    }

    #[derive(Clone, Copy, Debug)]
    pub struct OutPorts {
        pub prb_hit: usize,
        pub rsv_new: usize,
        pub rsv_dedup: usize,
        pub rsv_fail: usize,
        pub head_valid: usize,
        pub head_entry: usize,
        pub head_pc: usize,
        pub head_lanes: usize,
        pub head_thi: usize,
        pub live: usize,
        pub used: usize,
        pub dbg_valid: usize,
        pub dbg_complete: usize,
        pub dbg_pc: usize,
        pub dbg_expected: usize,
        pub dbg_arrived: usize,
        pub dbg_thi: usize,
        pub dbg_ord: usize,
    }

    impl OutPorts {
        pub fn new(l: &Layout) -> OutPorts {
            let b = |n: &str| bit(&l.outputs, n);
            OutPorts {
                prb_hit: b("prb_hit"),
                rsv_new: b("rsv_new"),
                rsv_dedup: b("rsv_dedup"),
                rsv_fail: b("rsv_fail"),
                head_valid: b("head_valid"),
                head_entry: b("head_entry"),
                head_pc: b("head_pc"),
                head_lanes: b("head_lanes"),
                head_thi: b("head_thi"),
                live: b("live"),
                used: b("used"),
                dbg_valid: b("dbg_valid"),
                dbg_complete: b("dbg_complete"),
                dbg_pc: b("dbg_pc"),
                dbg_expected: b("dbg_expected"),
                dbg_arrived: b("dbg_arrived"),
                dbg_thi: b("dbg_thi"),
                dbg_ord: b("dbg_ord"),
            }
        }
    }
}
