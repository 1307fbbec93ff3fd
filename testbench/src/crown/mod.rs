//! `crown`, the CROWN top (spec/crown.md §3.3–§3.10; contract `units/crown.rs`): the
//! sub-unit models composed into one machine ([`Crown`]), and the regrouping-engine interface
//! the kernel-driven execution mode talks to ([`Engine`]): the model alone, or the RTL in
//! lockstep with it.

mod model;
pub mod ports;
pub mod vectors;

pub use model::{
    CommitEvent, Crown, CrownCounters, CrownFault, CrownIn, CrownOut, XFER_BAR, XFER_NONE, XFER_RL,
    XFER_WL,
};

/// What makes the regrouping decisions of a kernel run: one call per clock cycle.
pub trait Engine {
    /// One cycle with these inputs; Err when an invariant or a lockstep comparison fails.
    fn cycle(&mut self, inp: &CrownIn) -> Result<CrownOut, String>;
    /// The counters of the reference model.
    fn counters(&self) -> CrownCounters;
    /// A one-line summary of the state (for error messages).
    fn state_line(&self) -> String;
    /// Every launched thread has retired and every table is empty.
    fn idle(&self) -> bool;
}

/// The model alone as the engine, its invariants checked every `check_every` cycles (1 =
/// every cycle).
pub struct ModelEngine {
    pub model: Crown,
    pub check_every: u64,
}

impl ModelEngine {
    pub fn new(cfg: &warpforge_contract::units::crown::CrownConfig) -> ModelEngine {
        ModelEngine {
            model: Crown::new(cfg),
            check_every: 1,
        }
    }
}

impl Engine for ModelEngine {
    fn cycle(&mut self, inp: &CrownIn) -> Result<CrownOut, String> {
        let out = self.model.cycle(inp);
        if self
            .model
            .ctr
            .cycles
            .is_multiple_of(self.check_every.max(1))
        {
            self.model.check()?;
        }
        Ok(out)
    }
    fn counters(&self) -> CrownCounters {
        self.model.ctr
    }
    fn state_line(&self) -> String {
        self.model.state_line()
    }
    fn idle(&self) -> bool {
        self.model.idle()
    }
}
