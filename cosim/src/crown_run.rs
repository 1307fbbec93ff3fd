//! The `crown` RTL as the regrouping engine of the CROWN execution mode: every cycle the
//! Verilated RTL and the port-level `crown` model get the same input vector and every output —
//! the issue and commit ports, the event counts and every sub-unit's state digest — must be
//! equal; the decisions the kernel driver acts on are the RTL's.

use crate::verilator::{build, Rtl};
use warpforge_contract::units::crown::{kind, CrownConfig, NAME, PARAMS};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::crown::ports::{decode_out, encode, CrownModel};
use warpforge_testbench::crown::{CrownCounters, CrownIn, CrownOut, Engine};
use warpforge_testbench::Model;

/// Lockstep of the `crown` RTL and model, cycle by cycle.
pub struct RtlEngine {
    cfg: CrownConfig,
    rtl: Rtl,
    model: CrownModel,
    layout: Layout,
    inputs: Vec<u64>,
    out_rtl: Vec<u64>,
    out_model: Vec<u64>,
    cycle: u64,
    /// Debug ports compared (false: only the functional outputs; for a planted-bug test of
    /// the comparison itself, nothing is ever skipped by default).
    pub compare_debug: bool,
}

impl RtlEngine {
    /// Builds (or takes from the cache) the RTL of `cfg` and resets both sides.
    pub fn new(cfg: &CrownConfig, seed: u64) -> Result<RtlEngine, String> {
        let sets: Vec<String> = params_of(cfg);
        let params = Params::resolve(NAME, PARAMS, None, &sets).map_err(|e| e.0)?;
        let manifest = cfg.manifest(&params);
        let design = warpforge_hdl::crown::generate(cfg);
        let compiled = build(&design, &manifest, false).map_err(|e| e.to_string())?;
        let layout = manifest.layout();
        let rtl = Rtl::load(&compiled, &layout, seed).map_err(|e| e.to_string())?;
        let model = CrownModel::new(cfg);
        let mut e = RtlEngine {
            inputs: vec![0; layout.in_words],
            out_rtl: vec![0; layout.out_words],
            out_model: vec![0; layout.out_words],
            cfg: cfg.clone(),
            rtl,
            model,
            layout,
            cycle: 0,
            compare_debug: true,
        };
        // Two reset cycles: the RTL's registers start from random values.
        for _ in 0..2 {
            encode(&e.cfg, &e.model.p, &CrownIn::default(), true, &mut e.inputs);
            e.rtl.run(&e.inputs, &mut e.out_rtl);
            e.model.step(&e.inputs, &mut e.out_model);
        }
        Ok(e)
    }

    /// The model's state (for planted bugs).
    pub fn model_mut(&mut self) -> &mut CrownModel {
        &mut self.model
    }

    fn compare(&self) -> Result<(), String> {
        for s in &self.layout.outputs {
            if !self.compare_debug && s.name.contains("dbg_") {
                continue;
            }
            for i in 0..s.words {
                let m = s.word_mask(i);
                let (a, b) = (
                    self.out_rtl[s.offset + i] & m,
                    self.out_model[s.offset + i] & m,
                );
                if a != b {
                    return Err(format!(
                        "lockstep cycle {}: output {} word {i}: rtl {a:#x}, model {b:#x}",
                        self.cycle, s.name
                    ));
                }
            }
        }
        Ok(())
    }
}

/// `--set` strings that give `cfg` back.
fn params_of(cfg: &CrownConfig) -> Vec<String> {
    let c = cfg.common();
    vec![
        format!("w={}", c.w),
        format!("threads={}", c.threads),
        format!("pc_bits={}", c.pc_bits),
        format!("n2={}", cfg.l2.n2),
        format!("pool={}", cfg.pool.pool),
        format!("rl_rows={}", cfg.rl.rows),
        format!("wl_rows={}", cfg.wl.rows),
        format!("sets={}", cfg.bar.sets),
        format!("ways={}", cfg.bar.ways),
    ]
}

impl Engine for RtlEngine {
    fn cycle(&mut self, inp: &CrownIn) -> Result<CrownOut, String> {
        encode(&self.cfg, &self.model.p, inp, false, &mut self.inputs);
        self.rtl.run(&self.inputs, &mut self.out_rtl);
        self.model.step(&self.inputs, &mut self.out_model);
        self.cycle += 1;
        self.compare()?;
        self.model.crown.check()?;
        // The RTL's decisions drive the kernel.
        let mut o = decode_out(&self.cfg, &self.model.p, &self.out_rtl);
        if !inp.iss_ready {
            o.issued = None;
        }
        let is_load = inp.cmt.as_ref().is_some_and(|e| e.kind == kind::LOAD);
        if !(is_load && o.cmt_ready) {
            o.tag = None;
        }
        Ok(o)
    }
    fn counters(&self) -> CrownCounters {
        self.model.crown.ctr
    }
    fn state_line(&self) -> String {
        self.model.crown.state_line()
    }
    fn idle(&self) -> bool {
        self.model.crown.idle()
    }
}
