//! Cycle model, stimulus and spec vectors of `crown-lookup`, CROWN's dynamic regrouping tables
//! (spec/crown.md §3.4.3, §3.4.4, §3.5 step 4, §3.7; contract `units/crown_lookup.rs`,
//! docs/crown.md).
//!
//! [`ReadyLookup`] and [`WaitingLookup`] are the tables as plain structs (one `cycle` call per
//! clock cycle, `head` for the start-of-cycle drain candidate); the `crown` top model composes
//! them, and [`CrownLookupModel`] drives one from the unit's ports.

mod model;
mod stimulus;
mod vectors;

pub use model::*;
pub use stimulus::*;
pub use vectors::spec_vectors;

/// Bit offsets of the ports in the flat input and output vectors.
pub(crate) mod ports {
    use warpforge_contract::manifest::Slot;
    use warpforge_contract::units::crown_lookup::{LookupConfig, LookupKind};
    use warpforge_contract::Layout;

    fn bit(slots: &[Slot], name: &str) -> usize {
        64 * slots
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("crown-lookup contract has no port `{name}`"))
            .offset
    }
    fn opt(slots: &[Slot], name: &str) -> Option<usize> {
        slots.iter().find(|s| s.name == name).map(|s| 64 * s.offset)
    }

    #[derive(Clone, Copy, Debug)]
    pub struct WarpIn {
        pub valid: usize,
        pub pc: usize,
        pub lanes: usize,
        pub thi: usize,
    }

    #[derive(Clone, Debug)]
    pub struct InPorts {
        pub reset: usize,
        pub ins: Vec<WarpIn>,
        pub cpl_valid: usize,
        pub cpl_row: usize,
        pub cpl_lanes: usize,
        pub drain: usize,
        pub cta_mask: usize,
    }

    impl InPorts {
        pub fn new(l: &Layout, cfg: &LookupConfig) -> InPorts {
            let b = |n: &str| bit(&l.inputs, n);
            let waiting = cfg.kind == LookupKind::Waiting;
            let w = |n: &str| if waiting { b(n) } else { 0 };
            InPorts {
                reset: b("reset"),
                ins: (0..cfg.inserts())
                    .map(|k| WarpIn {
                        valid: b(&format!("ins{k}_valid")),
                        pc: b(&format!("ins{k}_pc")),
                        lanes: b(&format!("ins{k}_lanes")),
                        thi: b(&format!("ins{k}_thi")),
                    })
                    .collect(),
                cpl_valid: w("cpl_valid"),
                cpl_row: w("cpl_row"),
                cpl_lanes: w("cpl_lanes"),
                drain: b("drain"),
                cta_mask: b("cta_mask"),
            }
        }
    }

    #[derive(Clone, Debug)]
    pub struct OutPorts {
        /// Ready kind: bypass k's valid, pc, lanes, thi.
        pub byp: Vec<[usize; 4]>,
        pub ins_ok: usize,
        pub ins_row: usize,
        pub ev_merge: usize,
        pub ev_alloc: usize,
        pub head_valid: usize,
        pub head_row: usize,
        pub head_pc: usize,
        pub head_lanes: usize,
        pub head_thi: usize,
        pub count: usize,
        pub full: usize,
        pub dbg_valid: usize,
        pub dbg_pc: usize,
        pub dbg_lanes: usize,
        pub dbg_thi: usize,
        pub dbg_ord: usize,
        pub dbg_pending: Option<usize>,
    }

    impl OutPorts {
        pub fn new(l: &Layout) -> OutPorts {
            let b = |n: &str| bit(&l.outputs, n);
            let o = |n: &str| opt(&l.outputs, n);
            OutPorts {
                byp: (0..2)
                    .filter_map(|k| {
                        Some([
                            o(&format!("byp{k}_valid"))?,
                            b(&format!("byp{k}_pc")),
                            b(&format!("byp{k}_lanes")),
                            b(&format!("byp{k}_thi")),
                        ])
                    })
                    .collect(),
                ins_ok: o("ins_ok").unwrap_or(0),
                ins_row: o("ins_row").unwrap_or(0),
                ev_merge: b("ev_merge"),
                ev_alloc: b("ev_alloc"),
                head_valid: b("head_valid"),
                head_row: b("head_row"),
                head_pc: b("head_pc"),
                head_lanes: b("head_lanes"),
                head_thi: b("head_thi"),
                count: b("count"),
                full: b("full"),
                dbg_valid: b("dbg_valid"),
                dbg_pc: b("dbg_pc"),
                dbg_lanes: b("dbg_lanes"),
                dbg_thi: b("dbg_thi"),
                dbg_ord: b("dbg_ord"),
                dbg_pending: o("dbg_pending"),
            }
        }
    }
}
