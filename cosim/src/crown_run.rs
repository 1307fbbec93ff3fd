//! The `crown` RTL as the regrouping engine of the CROWN execution mode: every cycle the
//! Verilated RTL and the port-level `crown` model get the same input vector and every output —
//! the issue and commit ports, the event counts and every sub-unit's state digest — must be
//! equal; the decisions the kernel driver acts on are the RTL's.

use crate::verilator::{build, Rtl};
use serde::Serialize;
use std::time::Instant;
use warpforge_contract::units::crown::{kind, CrownConfig, NAME, PARAMS};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::crown::ports::{decode_out, encode, CrownModel, PortMap};
use warpforge_testbench::crown::{CrownCounters, CrownIn, CrownOut, Engine, ModelEngine};
use warpforge_testbench::isa::crown::{run_crown, CrownOptions, CrownStats};
use warpforge_testbench::isa::Machine;
use warpforge_testbench::sm::{random_program, RandomOptions};
use warpforge_testbench::Model;

/// Lockstep of the `crown` RTL and model, cycle by cycle (or, built with
/// [`RtlEngine::raw`], the RTL alone: what the bench measures lockstep against).
pub struct RtlEngine {
    cfg: CrownConfig,
    p: PortMap,
    rtl: Rtl,
    model: Option<CrownModel>,
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
        Self::build(cfg, seed, true)
    }

    /// The RTL alone, nothing compared or checked (the bench's baseline).
    pub fn raw(cfg: &CrownConfig, seed: u64) -> Result<RtlEngine, String> {
        Self::build(cfg, seed, false)
    }

    fn build(cfg: &CrownConfig, seed: u64, lockstep: bool) -> Result<RtlEngine, String> {
        let sets: Vec<String> = params_of(cfg);
        let params = Params::resolve(NAME, PARAMS, None, &sets).map_err(|e| e.0)?;
        let manifest = cfg.manifest(&params);
        let design = warpforge_hdl::crown::generate(cfg);
        let compiled = build(&design, &manifest, false).map_err(|e| e.to_string())?;
        let layout = manifest.layout();
        let rtl = Rtl::load(&compiled, &layout, seed).map_err(|e| e.to_string())?;
        let mut e = RtlEngine {
            inputs: vec![0; layout.in_words],
            out_rtl: vec![0; layout.out_words],
            out_model: vec![0; layout.out_words],
            cfg: cfg.clone(),
            p: PortMap::new(cfg),
            rtl,
            model: lockstep.then(|| CrownModel::new(cfg)),
            layout,
            cycle: 0,
            compare_debug: true,
        };
        // Two reset cycles: the RTL's registers start from random values.
        for _ in 0..2 {
            encode(&e.cfg, &e.p, &CrownIn::default(), true, &mut e.inputs);
            e.rtl.run(&e.inputs, &mut e.out_rtl);
            if let Some(m) = &mut e.model {
                m.step(&e.inputs, &mut e.out_model);
            }
        }
        Ok(e)
    }

    /// The model's state (for planted bugs).
    pub fn model_mut(&mut self) -> &mut CrownModel {
        self.model
            .as_mut()
            .expect("a lockstep engine (RtlEngine::new) has a model")
    }

    fn compare(&self) -> Result<(), String> {
        let debug = self.compare_debug;
        if let Some((name, i, a, b)) =
            crate::lockstep::output_difference(&self.layout, &self.out_rtl, &self.out_model, |s| {
                debug || !s.name.contains("dbg_")
            })
        {
            return Err(format!(
                "lockstep cycle {}: output {name} word {i}: rtl {a:#x}, model {b:#x}",
                self.cycle
            ));
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
        encode(&self.cfg, &self.p, inp, false, &mut self.inputs);
        self.rtl.run(&self.inputs, &mut self.out_rtl);
        self.cycle += 1;
        if let Some(m) = &mut self.model {
            m.step(&self.inputs, &mut self.out_model);
            self.compare()?;
            self.model.as_ref().map_or(Ok(()), |m| m.crown.check())?;
        }
        // The RTL's decisions drive the kernel.
        let mut o = decode_out(&self.cfg, &self.p, &self.out_rtl);
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
        self.model.as_ref().map(|m| m.crown.ctr).unwrap_or_default()
    }
    fn state_line(&self) -> String {
        match &self.model {
            Some(m) => m.crown.state_line(),
            None => format!("cycle {} (RTL alone)", self.cycle),
        }
    }
    fn idle(&self) -> bool {
        match &self.model {
            Some(m) => m.crown.idle(),
            // The RTL alone checks nothing (its outputs show the state before the last
            // cycle, so they cannot say either): the bench's lockstep run of the same program
            // checks that the tables end empty.
            None => true,
        }
    }
}

/// The random programs CROWN mode runs (integer only: the CROWN mode's timing model has no
/// FP latencies to vary).
pub fn random_options() -> RandomOptions {
    RandomOptions {
        fp: false,
        ..Default::default()
    }
}

/// Runs random program `seed` in CROWN mode with `engine` deciding; odd seeds regroup only
/// within CTAs (A14 `merge_scope = cta`), even seeds across them (the thesis's rule).
pub fn run_random(
    cfg: &CrownConfig,
    seed: u64,
    engine: &mut dyn Engine,
) -> Result<CrownStats, String> {
    let (p, launch) = random_program(seed, random_options());
    let mut m = Machine::new(&p, &launch).map_err(|e| format!("random program {seed}: {e}"))?;
    let mut opts = CrownOptions::new(cfg.clone());
    opts.cta_scope = seed % 2 == 1;
    run_crown(&mut m, &opts, engine).map_err(|e| format!("random program {seed}: {e}"))
}

/// `bench crown`: random programs in CROWN mode with the RTL alone deciding, with the model
/// alone deciding, and with the two in lockstep (the interpreter runs the threads in all three).
#[derive(Clone, Debug, Serialize)]
pub struct CrownBench {
    pub module: String,
    pub workload: String,
    pub cycles: u64,
    pub verilator_cps: f64,
    pub model_cps: f64,
    pub lockstep_cps: f64,
    pub lockstep_over_raw: f64,
    /// Runs of each kind, interleaved.
    pub repetitions: usize,
}

/// Runs random programs from `seed` on until at least `cycles` CROWN cycles, three ways,
/// interleaved so that all see the same machine load.
pub fn bench(cfg: &CrownConfig, cycles: u64, seed: u64) -> Result<CrownBench, String> {
    // The workload: enough programs for `cycles`, fixed by a first lockstep pass.
    let mut seeds = vec![];
    let mut total = 0;
    while total < cycles {
        let s = seed + seeds.len() as u64;
        total += run_random(cfg, s, &mut RtlEngine::new(cfg, s)?)?.cycles;
        seeds.push(s);
    }
    let reps = 2;
    let (mut raw_s, mut model_s, mut lock_s) = (0.0, 0.0, 0.0);
    for _ in 0..reps {
        for &s in &seeds {
            let mut raw = RtlEngine::raw(cfg, s)?;
            let t = Instant::now();
            run_random(cfg, s, &mut raw)?;
            raw_s += t.elapsed().as_secs_f64();
            let mut model = ModelEngine::new(cfg);
            let t = Instant::now();
            run_random(cfg, s, &mut model)?;
            model_s += t.elapsed().as_secs_f64();
            let mut lock = RtlEngine::new(cfg, s)?;
            let t = Instant::now();
            run_random(cfg, s, &mut lock)?;
            lock_s += t.elapsed().as_secs_f64();
        }
    }
    let n = (total * reps as u64) as f64;
    let (raw, lock) = (n / raw_s.max(1e-9), n / lock_s.max(1e-9));
    Ok(CrownBench {
        module: crate::registry::Unit::resolve(NAME, &params_of(cfg))?
            .manifest()
            .module,
        workload: format!(
            "random programs {}..{} in CROWN mode",
            seed,
            seed + seeds.len() as u64
        ),
        cycles: total,
        verilator_cps: raw,
        model_cps: n / model_s.max(1e-9),
        lockstep_cps: lock,
        lockstep_over_raw: lock / raw,
        repetitions: reps,
    })
}
