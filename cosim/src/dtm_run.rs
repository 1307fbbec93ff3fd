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
            for s in &self.layout.outputs {
                for i in 0..s.words {
                    let m = s.word_mask(i);
                    let (a, b) = (outputs[s.offset + i] & m, self.out_model[s.offset + i] & m);
                    if a != b {
                        return Err(format!(
                            "lockstep cycle {}: output {} word {i}: rtl {a:#x}, model {b:#x} [{}]",
                            self.cycle,
                            s.name,
                            self.model.state_line()
                        ));
                    }
                }
            }
        }
        self.model.check_invariants()
    }
}
