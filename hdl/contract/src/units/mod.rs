//! The catalogue of generatable units: names, one-line descriptions, parameter declarations,
//! and each unit's typed config with its ports and tables.
//!
//! Adding a unit: a config module here (parameters, ports, tables), its RTL in
//! `warpforge-hdl`, its model and stimulus in `warpforge-testbench`, and one line in
//! [`CATALOGUE`] and in the cosim registry.

pub mod crown;
pub mod crown_barrier;
pub mod crown_l2;
pub mod crown_lookup;
pub mod crown_pool;
pub mod dtm;
pub mod dtm_mtg;
pub mod dtm_mtt;
pub mod dtm_tb;
pub mod dtm_top;
pub mod dwr;
pub mod dwr_ilt;
pub mod dwr_pst;
pub mod dwr_sco;
pub mod l1d_bypass;
pub mod msap;
pub mod msap_arbiter;
pub mod msap_mc;
pub mod msap_noc;
pub mod msap_pl;
pub mod msap_router;
pub mod ram;
pub mod simt_stack;
pub mod sm;
pub mod sm_alu;
pub mod warp_sched;

use crate::params::ParamSpec;

/// A generatable unit, as listed by `warpforge units`.
#[derive(Debug)]
pub struct UnitInfo {
    pub name: &'static str,
    pub about: &'static str,
    pub params: &'static [ParamSpec],
}

pub const CATALOGUE: &[UnitInfo] = &[
    UnitInfo {
        name: warp_sched::NAME,
        about: "issue-stage warp scheduler (LRR, GTO, MTO, MOTRR, MOTRR+Recency, barrier-aware GTO) with launch-order age matrix",
        params: warp_sched::PARAMS,
    },
    UnitInfo {
        name: simt_stack::NAME,
        about: "per-warp PDOM (SBR) reconvergence stack: divergent push, pop at the RPC",
        params: simt_stack::PARAMS,
    },
    UnitInfo {
        name: dwr_pst::NAME,
        about: "DWR Partner-Synch Table: per-group barrier PC and lock vector, Eq. 5-1 release every cycle",
        params: dwr_pst::PARAMS,
    },
    UnitInfo {
        name: dwr_ilt::NAME,
        about: "DWR Ignore-List Table: set-associative PCs of useless barriers, FIFO per set, flush at launch",
        params: dwr_ilt::PARAMS,
    },
    UnitInfo {
        name: dwr_sco::NAME,
        about: "DWR Sub-warp Combiner: fuses the combine-ready partners at the selected PC into one large warp",
        params: dwr_sco::PARAMS,
    },
    UnitInfo {
        name: dwr::NAME,
        about: "Dynamic Warp Resizing: sub-warp scheduler states, round-robin pick, PST, ILT, SCO, barrier latency",
        params: dwr::PARAMS,
    },
    UnitInfo {
        name: l1d_bypass::NAME,
        about: "barrier-aware L1D bypass decision: miss-rate modes (retain/partial/full), per-access bypass/stall/allocate",
        params: l1d_bypass::PARAMS,
    },
    UnitInfo {
        name: sm::NAME,
        about: "baseline SM: in-order SIMT pipeline (warp-sched, per-warp simt-stack, RF, ALU/FP32, LSU, shared memory, CTA dispatch) with a retirement record per warp-instruction",
        params: sm::PARAMS,
    },
    UnitInfo {
        name: ram::NAME,
        about: "synchronous-read RAM primitive (block RAM): single or simple dual port, row or byte writes, read-first",
        params: ram::PARAMS,
    },
    UnitInfo {
        name: sm_alu::NAME,
        about: "SM execute-stage SIMD lanes: integer ALU and bit-exact FP32 (add/mul/fma/min/max/compare/convert), one-cycle latency",
        params: sm_alu::PARAMS,
    },
    UnitInfo {
        name: crown_l2::NAME,
        about: "CROWN second-level warp table: direct-indexed rows in block RAM, 2-bit state, ready FIFO, ready count",
        params: crown_l2::PARAMS,
    },
    UnitInfo {
        name: crown_pool::NAME,
        about: "CROWN issue pool (first-level scheduler): LRR selection, one refill per cycle",
        params: crown_pool::PARAMS,
    },
    UnitInfo {
        name: crown_lookup::NAME,
        about: "CROWN regrouping table: Ready Lookup (per-lane merge, 2 inserts, bypass when full) or Waiting Lookup (whole-warp merge, pending lanes)",
        params: crown_lookup::PARAMS,
    },
    UnitInfo {
        name: crown_barrier::NAME,
        about: "CROWN reconvergence-barrier table: set-associative, reserve with dedup, per-lane arrival over every set a warp spans, oldest-complete drain",
        params: crown_barrier::PARAMS,
    },
    UnitInfo {
        name: crown::NAME,
        about: "CROWN top: issue pool, second level, Ready/Waiting Lookups and barriers joined per §3.9; commit events in, issued warp out",
        params: crown::PARAMS,
    },
    UnitInfo {
        name: msap_arbiter::NAME,
        about: "MSAA priority round-robin arbiter: highest PL wins, RR within a level (per-level or shared pointers), optional ageing to an urgent level; msaa_en=false is the baseline RR arbiter",
        params: msap_arbiter::PARAMS,
    },
    UnitInfo {
        name: msap_pl::NAME,
        about: "MSAP SM side: L1D MSHR-occupancy counter (merged misses not counted, reservation fails) and registered PL quantiser",
        params: msap_pl::PARAMS,
    },
    UnitInfo {
        name: msap_mc::NAME,
        about: "MSAR memory-side request buffer: oldest eligible entry of the highest PL to L2, same-line guard, optional ageing; msar_en=false is the FIFO",
        params: msap_mc::PARAMS,
    },
    UnitInfo {
        name: msap_router::NAME,
        about: "MSAP mesh router: 5 ports, input-queued credit-based wormhole, XY routing, V = 1, PL latched per input from the head, MSAA priority VA per output (PrioArb); msaa_en=false is the RR baseline",
        params: msap_router::PARAMS,
    },
    UnitInfo {
        name: msap_noc::NAME,
        about: "MSAP core-memory network: request and reply meshes of msap-routers, SM NI injection queues, MSAR (msap-mc) at every MC node, fixed-latency L2, replies inheriting the request's PL",
        params: msap_noc::PARAMS,
    },
    UnitInfo {
        name: dtm_mtt::NAME,
        about: "DTM trace memo table: set-associative traces in block RAM, MRU candidates value-tested, longest-len hit, kid retire",
        params: dtm_mtt::PARAMS,
    },
    UnitInfo {
        name: dtm_tb::NAME,
        about: "DTM per-thread trace buffers: INTRA runs into input/output contexts, K_IN/K_OUT/L_MAX splits, TB_POOL allocation",
        params: dtm_tb::PARAMS,
    },
    UnitInfo {
        name: dtm_mtg::NAME,
        about: "DTM@GPU memo table MTG: set-associative by the hash H, true LRU, upsert without duplicate keys, kid tags and kernel-retire sweep, banked SIMD-width lookups/upserts per cycle",
        params: dtm_mtg::PARAMS,
    },
    UnitInfo {
        name: dtm_top::NAME,
        about: "DTM@GPU top: dtm-mtt, dtm-mtg and dtm-tb sequenced per warp instruction (MTT first, partial trace hits with skip mask, FU bypass, kernel retire)",
        params: dtm_top::PARAMS,
    },
];

pub fn find(name: &str) -> Option<&'static UnitInfo> {
    CATALOGUE.iter().find(|u| u.name == name)
}

pub fn names() -> Vec<&'static str> {
    CATALOGUE.iter().map(|u| u.name).collect()
}
