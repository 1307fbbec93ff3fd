//! Each unit's [`UnitDef`]: which contract configuration, which RTL generator, which model,
//! stimulus and spec vectors belong together. [`crate::registry::UNITS`] lists them.

use crate::registry::UnitDef;
use warpforge_contract::units::*;
use warpforge_contract::{Manifest, Params};
use warpforge_hdl::Design;
use warpforge_testbench::{Model, SpecVector, Stimulus};

/// A unit checked cycle by cycle against its model: `config type, module, generator in
/// `warpforge_hdl`, module in `warpforge_testbench` with its `Model` and `Stimulus` types` (the
/// module also has `spec_vectors()`).
macro_rules! cycle_unit {
    ($cfg:ty, $unit:ident, $($generate:ident)::+, $tb:ident, $model:ident, $stimulus:ident) => {
        impl UnitDef for $cfg {
            const NAME: &'static str = $unit::NAME;
            fn from_params(params: &Params) -> Result<Self, String> {
                <$cfg>::from_params(params).map_err(|e| e.0)
            }
            fn manifest(&self, params: &Params) -> Manifest {
                <$cfg>::manifest(self, params)
            }
            fn design(&self) -> Design {
                warpforge_hdl::$($generate)::+(self)
            }
            fn model(&self) -> Option<Box<dyn Model>> {
                Some(Box::new(warpforge_testbench::$tb::$model::new(self)))
            }
            fn stimulus(&self, seed: u64) -> Option<Box<dyn Stimulus>> {
                Some(Box::new(warpforge_testbench::$tb::$stimulus::new(self, seed)))
            }
            fn spec_vectors() -> Vec<SpecVector> {
                warpforge_testbench::$tb::spec_vectors()
            }
        }
    };
}

cycle_unit!(
    warp_sched::WarpSchedConfig,
    warp_sched,
    warp_sched::generate,
    warp_sched,
    WarpSchedModel,
    WarpSchedStimulus
);
cycle_unit!(
    simt_stack::SimtStackConfig,
    simt_stack,
    simt_stack::generate,
    simt_stack,
    SimtStackModel,
    SimtStackStimulus
);
cycle_unit!(
    l1d_bypass::L1dBypassConfig,
    l1d_bypass,
    l1d_bypass::generate,
    l1d_bypass,
    L1dBypassModel,
    L1dBypassStimulus
);
cycle_unit!(
    dwr_pst::PstConfig,
    dwr_pst,
    dwr_pst::generate,
    dwr_pst,
    DwrPstModel,
    DwrPstStimulus
);
cycle_unit!(
    dwr_ilt::IltConfig,
    dwr_ilt,
    dwr_ilt::generate,
    dwr_ilt,
    DwrIltModel,
    DwrIltStimulus
);
cycle_unit!(
    dwr_sco::ScoConfig,
    dwr_sco,
    dwr_sco::generate,
    dwr_sco,
    DwrScoModel,
    DwrScoStimulus
);
cycle_unit!(
    dwr::DwrConfig,
    dwr,
    dwr::generate,
    dwr,
    DwrModel,
    DwrStimulus
);
cycle_unit!(
    ram::RamConfig,
    ram,
    ram::generate,
    ram,
    RamModel,
    RamStimulus
);
cycle_unit!(
    sm_alu::SmAluConfig,
    sm_alu,
    sm::alu::generate,
    sm_alu,
    SmAluModel,
    SmAluStimulus
);
cycle_unit!(
    dtm_mtg::MtgConfig,
    dtm_mtg,
    dtm_mtg::generate,
    dtm_mtg,
    DtmMtgModel,
    DtmMtgStimulus
);
cycle_unit!(
    crown_l2::L2Config,
    crown_l2,
    crown_l2::generate,
    crown_l2,
    CrownL2Model,
    CrownL2Stimulus
);
cycle_unit!(
    crown_pool::PoolConfig,
    crown_pool,
    crown_pool::generate,
    crown_pool,
    CrownPoolModel,
    CrownPoolStimulus
);

cycle_unit!(
    crown_lookup::LookupConfig,
    crown_lookup,
    crown_lookup::generate,
    crown_lookup,
    CrownLookupModel,
    CrownLookupStimulus
);

cycle_unit!(
    crown_barrier::BarrierConfig,
    crown_barrier,
    crown_barrier::generate,
    crown_barrier,
    CrownBarrierModel,
    CrownBarrierStimulus
);

cycle_unit!(
    msap_arbiter::ArbiterConfig,
    msap_arbiter,
    msap_arbiter::generate,
    msap_arbiter,
    MsapArbiterModel,
    MsapArbiterStimulus
);

cycle_unit!(
    msap_pl::PlConfig,
    msap_pl,
    msap_pl::generate,
    msap_pl,
    MsapPlModel,
    MsapPlStimulus
);

cycle_unit!(
    msap_mc::McConfig,
    msap_mc,
    msap_mc::generate,
    msap_mc,
    MsapMcModel,
    MsapMcStimulus
);

cycle_unit!(
    msap_router::RouterConfig,
    msap_router,
    msap_router::generate,
    msap_router,
    MsapRouterModel,
    MsapRouterStimulus
);

cycle_unit!(
    msap_noc::NocConfig,
    msap_noc,
    msap_noc::generate,
    msap_noc,
    MsapNocModel,
    MsapNocStimulus
);

cycle_unit!(
    dtm_mtt::MttConfig,
    dtm_mtt,
    dtm_mtt::generate,
    dtm_mtt,
    DtmMttModel,
    DtmMttStimulus
);

cycle_unit!(
    dtm_tb::TbConfig,
    dtm_tb,
    dtm_tb::generate,
    dtm_tb,
    DtmTbModel,
    DtmTbStimulus
);

/// The SM is checked per retired instruction against the interpreter (`crate::sm_run`), so it
/// has no cycle model or stimulus.
impl UnitDef for sm::SmConfig {
    const NAME: &'static str = sm::NAME;
    const KERNEL_LEVEL: bool = true;
    fn from_params(params: &Params) -> Result<Self, String> {
        sm::SmConfig::from_params(params).map_err(|e| e.0)
    }
    fn manifest(&self, params: &Params) -> Manifest {
        sm::SmConfig::manifest(self, params)
    }
    fn design(&self) -> Design {
        warpforge_hdl::sm::generate(self)
    }
    fn model(&self) -> Option<Box<dyn Model>> {
        None
    }
    fn stimulus(&self, _seed: u64) -> Option<Box<dyn Stimulus>> {
        None
    }
}

/// The CROWN top is checked through kernels: the CROWN execution mode drives the RTL and the
/// `crown` model in lockstep, every output (all sub-unit digests included) compared every cycle
/// (`crate::crown_run`); it has no standalone stimulus.
impl UnitDef for crown::CrownConfig {
    const NAME: &'static str = crown::NAME;
    const KERNEL_LEVEL: bool = true;
    fn from_params(params: &Params) -> Result<Self, String> {
        crown::CrownConfig::from_params(params).map_err(|e| e.0)
    }
    fn manifest(&self, params: &Params) -> Manifest {
        crown::CrownConfig::manifest(self, params)
    }
    fn design(&self) -> Design {
        warpforge_hdl::crown::generate(self)
    }
    fn model(&self) -> Option<Box<dyn Model>> {
        None
    }
    fn stimulus(&self, _seed: u64) -> Option<Box<dyn Stimulus>> {
        None
    }
}
cycle_unit!(
    dtm_top::DtmConfig,
    dtm_top,
    dtm_top::generate,
    dtm,
    DtmModel,
    DtmStimulus
);
