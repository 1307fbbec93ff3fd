//! What the hardware is checked against: cycle models of every unit, written from the specs
//! independently of the RTL, their stimulus generators and the spec vectors.
//!
//! Cycle convention (both sides): state changes only at the rising edge; a model's
//! [`Model::step`] first computes this cycle's outputs from (state, inputs), then commits the
//! next state.

pub mod crown;
pub mod crown_barrier;
pub mod crown_l2;
pub mod crown_lookup;
pub mod crown_pool;
pub mod dtm;
pub mod dtm_mtg;
pub mod dtm_mtt;
pub mod dtm_tb;
pub mod dwr;
pub mod dwr_ilt;
pub mod dwr_pst;
pub mod dwr_sco;
pub mod harness;
pub mod isa;
pub mod l1d_bypass;
pub mod msap_arbiter;
pub mod msap_mc;
pub mod msap_noc;
pub mod msap_pl;
pub mod msap_router;
pub mod ram;
pub mod rng;
pub mod simt_stack;
pub mod sm;
pub mod sm_alu;
pub mod warp_sched;
pub mod words;

/// A cycle-exact reference model of one unit. Port values are packed as in
/// [`warpforge_contract::Layout`].
pub trait Model: Send {
    /// One clock cycle: write this cycle's outputs (all output ports, including debug ports)
    /// from the current state and `inputs`, then commit the state for the next cycle.
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]);
    /// The spec's invariants on the current (committed) state and the last cycle; `Err` names
    /// the invariant that failed.
    fn check_invariants(&self) -> Result<(), String>;
    /// A one-line human-readable summary of the state, for mismatch reports and state logs.
    fn state_line(&self) -> String;
    /// The unit's input protocol, checked on a replayed stimulus before each [`Model::step`]
    /// (constrained-random stimuli are legal by construction): `Err("port P: why")` when
    /// `inputs` break it in the current state, e.g. an input the unit would silently drop.
    fn check_inputs(&self, _inputs: &[u64]) -> Result<(), String> {
        Ok(())
    }
    /// The unit's event counters since construction (issues, bypasses, evictions, releases,
    /// fusions…), its main action first: a run whose first counter is 0 never made the unit
    /// act. Empty for a model that keeps none.
    fn events(&self) -> Vec<(&'static str, u64)> {
        vec![]
    }
}

/// A generator of legal input vectors. It sees the model's outputs of the previous cycle, so
/// it can react to what the unit did (zero on the first cycle).
pub trait Stimulus: Send {
    fn next(&mut self, cycle: u64, prev_outputs: &[u64], inputs: &mut [u64]);
}

/// A directed test vector from a spec: a parameter set and, per cycle, the inputs to drive and
/// the outputs expected. Runs on the model (in `warpforge-testbench`'s tests) and on the RTL
/// (through the cosim crate), so both are held to the same published numbers.
#[derive(Clone, Debug)]
pub struct SpecVector {
    /// e.g. "latency_hiding_scheduler.md §4.1 vector A (gto)".
    pub name: String,
    /// Unit name, e.g. "warp-sched".
    pub unit: &'static str,
    /// Parameters as `--set` strings (`key=value`); unlisted ones take their defaults.
    pub sets: Vec<String>,
    pub cycles: Vec<VectorCycle>,
}

/// One cycle of a [`SpecVector`]. Input ports not listed are driven 0. Values are little-endian
/// 64-bit words (one word for ports up to 64 bits).
#[derive(Clone, Debug, Default)]
pub struct VectorCycle {
    pub inputs: Vec<(&'static str, Vec<u64>)>,
    /// Output ports checked this cycle, with their expected values.
    pub expect: Vec<(&'static str, Vec<u64>)>,
}
