//! The `dtm` RTL as the engine of the DTM execution mode: every cycle the Verilated RTL and
//! the `dtm` model get the same inputs and every output (the response, the operand-collector
//! reads and the three units' event records) must be equal; the model's invariants are
//! checked every cycle; the reuse the kernel driver takes is the RTL's.

use crate::verilator::{build, Rtl};
use warpforge_contract::units::dtm_top::{DtmConfig, NAME, PARAMS};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::dtm::DtmModel;
use warpforge_testbench::isa::dtm::DtmEngine;
use warpforge_testbench::Model;

pub struct RtlEngine {
    rtl: Rtl,
    model: DtmModel,
    layout: Layout,
    out_model: Vec<u64>,
    cycle: u64,
}

impl RtlEngine {
    /// Builds (or takes from the cache) the RTL of `cfg`; `sets` are the parameters it was
    /// made from (recorded in the manifest), its warps those of `cfg`.
    pub fn new(cfg: &DtmConfig, sets: &[String], seed: u64) -> Result<RtlEngine, String> {
        let mut sets: Vec<String> = sets
            .iter()
            .filter(|s| !s.starts_with("warps="))
            .cloned()
            .collect();
        sets.push(format!("warps={}", cfg.warps));
        let params = Params::resolve(NAME, PARAMS, None, &sets).map_err(|e| e.0)?;
        let manifest = cfg.manifest(&params);
        let design = warpforge_hdl::dtm_top::generate(cfg);
        let compiled = build(&design, &manifest, false).map_err(|e| e.to_string())?;
        let layout = manifest.layout();
        let rtl = Rtl::load(&compiled, &layout, seed).map_err(|e| e.to_string())?;
        Ok(RtlEngine {
            out_model: vec![0; layout.out_words],
            rtl,
            model: DtmModel::new(cfg),
            layout,
            cycle: 0,
        })
    }
}

impl DtmEngine for RtlEngine {
    fn cycle(&mut self, inputs: &[u64], outputs: &mut [u64]) -> Result<(), String> {
        self.rtl.run(inputs, outputs);
        self.model.step(inputs, &mut self.out_model);
        self.cycle += 1;
        let reset = self
            .layout
            .input("reset")
            .is_some_and(|s| inputs[s.offset] & 1 == 1);
        if !reset {
            if let Some((name, i, a, b)) =
                crate::lockstep::output_difference(&self.layout, outputs, &self.out_model, |_| true)
            {
                return Err(format!(
                    "lockstep cycle {}: output {name} word {i}: rtl {a:#x}, model {b:#x} [{}]",
                    self.cycle,
                    self.model.state_line()
                ));
            }
        }
        self.model.check_invariants()
    }
    fn table_digest(&self) -> u64 {
        self.model.table_digest()
    }
}

/// The table sizes (MTG = MTT entries, A19) `regress --suite full` runs every suite kernel
/// at through the RTL (the model-only sweep 16..8192 is in docs/dtm.md).
pub const FULL_SIZES: &[usize] = &[16, 128, 1024, 8192];

/// Runs a DTM-mode program job: `kernel:NAME@SIZE` through the `dtm` RTL in lockstep with
/// its model, `model:NAME@SIZE` on the model alone (the analysis modes the RTL refuses);
/// `sets` may hold the execution mode's parameters. With `enable = 0` the job also fails
/// unless the kernel saved no cycle and left the tables unchanged (I12). Returns (passed,
/// engine cycles, message).
pub fn run_dtm_job(sets: &[String], program: &str) -> (bool, u64, String) {
    use warpforge_contract::units::dtm_top::DtmModes;
    use warpforge_testbench::isa::dtm::ModelEngine;
    use warpforge_testbench::isa::{kernels, suite, AsmOptions};
    let (rtl, spec) = match program.split_once(':') {
        Some(("kernel", s)) => (true, s),
        Some(("model", s)) => (false, s),
        _ => panic!("kernel:NAME@SIZE or model:NAME@SIZE"),
    };
    let (name, size) = spec.split_once('@').expect("NAME@SIZE");
    let k = kernels::find(name).expect("a suite kernel");
    let size: u32 = size.parse().unwrap();
    let resolved = DtmModes::split(sets, rtl)
        .map_err(|e| e.0)
        .and_then(|(top, modes)| {
            let p = Params::resolve(NAME, PARAMS, None, &top).map_err(|e| e.0)?;
            let cfg = DtmConfig::from_params(&p).map_err(|e| e.0)?;
            Ok((top, modes, cfg))
        });
    let (top, modes, cfg) = match resolved {
        Ok(x) => x,
        Err(e) => return (false, 0, e),
    };
    let mut make = |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> {
        match rtl {
            true => RtlEngine::new(c, &top, 1).map(|e| Box::new(e) as Box<dyn DtmEngine>),
            false => Ok(Box::new(ModelEngine::new(c))),
        }
    };
    let asm = AsmOptions::default();
    let r = suite::run_dtm_case_modes(k, size, 1, &cfg, &modes, &asm, &mut make);
    let cycles = r.stats.as_ref().map_or(0, |s| s.engine_cycles);
    let i12 = match &r.stats {
        Some(s) if !cfg.enable && (s.saved_cycles != 0 || s.tables_changed) => Some(format!(
            "I12: disabled, yet {} cycles saved, tables changed: {}",
            s.saved_cycles, s.tables_changed
        )),
        _ => None,
    };
    match r.error.or(i12) {
        None => (true, cycles, String::new()),
        Some(e) => (false, cycles, e),
    }
}
