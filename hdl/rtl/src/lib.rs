//! The hardware: rust-hdl descriptions of the warpforge units.
//!
//! rust-hdl stays behind this crate's boundary: a unit's config goes in, Verilog text comes
//! out ([`Design`]). Nothing else in warpforge touches rust-hdl types.

pub mod comb_split;
pub mod crown;
pub mod crown_barrier;
pub mod crown_bits;
pub mod crown_l2;
pub mod crown_lookup;
pub mod crown_pool;
pub mod dtm_mtg;
pub mod dtm_mtt;
pub mod dtm_tb;
pub mod dtm_top;
pub mod dwr;
pub mod dwr_ilt;
pub mod dwr_pst;
pub mod dwr_sco;
pub mod l1d_bypass;
pub mod msap_arbiter;
pub mod msap_mc;
pub mod msap_noc;
pub mod msap_pl;
pub mod msap_router;
pub mod msap_router_vc;
pub mod primitives;
pub mod ram;
pub mod regfile;
pub mod simt_stack;
pub mod sm;
pub mod warp_sched;

/// Generated Verilog of one unit configuration.
#[derive(Clone, Debug)]
pub struct Design {
    /// Name of the top module.
    pub module: String,
    /// The whole Verilog source: the top module and every submodule.
    pub verilog: String,
}
