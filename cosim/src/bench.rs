//! Throughput of one unit configuration, all measured in one run on the same stimulus:
//! the RTL alone under Verilator, the model alone, and the two in lockstep; plus the cold
//! build time (empty cache) and the time a cached run takes to start simulating.

use crate::lockstep::{self, Options, Source};
use crate::registry::Unit;
use crate::verilator::{self, BridgeError, Rtl};
use serde::Serialize;
use std::time::Instant;

#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub unit: String,
    pub module: String,
    pub cycles: u64,
    /// RTL alone: recorded inputs replayed through the Verilated model in batches.
    pub verilator_cps: f64,
    /// Stimulus generator and model alone.
    pub model_cps: f64,
    /// The full lockstep run (stimulus, model, RTL, compare, invariant checks).
    pub lockstep_cps: f64,
    /// lockstep / raw Verilator.
    pub lockstep_ratio: f64,
    /// Cold build: Verilator, C++ compile (including Verilator's runtime) and link, empty cache
    /// (null when skipped with --no-cold-build).
    pub build_s: f64,
    /// A cached run: cache lookup, library load, and the first simulated cycle.
    pub cached_start_s: f64,
}

impl BenchReport {
    pub fn render(&self) -> String {
        format!(
            "{}: {} cycles\n  raw Verilator  {:>12.0} cycles/s\n  model alone    {:>12.0} cycles/s\n  lockstep       {:>12.0} cycles/s  ({:.2} of raw Verilator)\n  cold build     {}\n  cached start   {:>12.3} s\n",
            self.module,
            self.cycles,
            self.verilator_cps,
            self.model_cps,
            self.lockstep_cps,
            self.lockstep_ratio,
            if self.build_s.is_nan() {
                "not measured (--no-cold-build)".to_string()
            } else {
                format!("{:>12.1} s", self.build_s)
            },
            self.cached_start_s
        )
    }
}

pub fn bench(
    unit: &Unit,
    cycles: u64,
    seed: u64,
    cold_build: bool,
) -> Result<BenchReport, BridgeError> {
    let manifest = unit.manifest();
    let design = unit.design();
    let layout = manifest.layout();
    let (iw, ow) = (layout.in_words, layout.out_words);

    let build_s = if cold_build {
        let dir = tempfile::tempdir().map_err(|e| BridgeError::Build(format!("temp dir: {e}")))?;
        verilator::with_cache_root(dir.path(), || verilator::build(&design, &manifest, false))?
            .build_seconds
    } else {
        f64::NAN
    };
    // Make sure the regular cache has it, then time a cached start.
    let compiled = verilator::build(&design, &manifest, false)?;
    let t = Instant::now();
    let compiled2 = verilator::build(&design, &manifest, false)?;
    let mut rtl = Rtl::load(&compiled2, &layout, seed)?;
    let mut one_out = vec![0u64; ow];
    rtl.run(&vec![0u64; iw], &mut one_out);
    let cached_start_s = t.elapsed().as_secs_f64();
    drop(rtl);

    // Model alone, recording the inputs for the raw Verilator run.
    let n = cycles as usize;
    let mut inputs = vec![0u64; n * iw];
    let mut outputs = vec![0u64; ow];
    let mut prev = vec![0u64; ow];
    let mut stim = unit.stimulus(seed);
    let mut model = unit.model();
    let t = Instant::now();
    for c in 0..n {
        let inp = &mut inputs[c * iw..(c + 1) * iw];
        stim.next(c as u64, &prev, inp);
        model.step(inp, &mut outputs);
        prev.copy_from_slice(&outputs);
    }
    let model_cps = cycles as f64 / t.elapsed().as_secs_f64();

    // RTL alone on the same inputs.
    let mut rtl = Rtl::load(&compiled, &layout, seed)?;
    let chunk = 4096;
    let mut out = vec![0u64; chunk * ow];
    let t = Instant::now();
    for c in (0..n).step_by(chunk) {
        let k = chunk.min(n - c);
        rtl.run(&inputs[c * iw..(c + k) * iw], &mut out[..k * ow]);
    }
    let verilator_cps = cycles as f64 / t.elapsed().as_secs_f64();
    drop(rtl);

    // Lockstep.
    let report = lockstep::run(
        unit,
        unit.model(),
        Source::Random(unit.stimulus(seed)),
        Options::new(cycles, seed),
    )
    .map_err(|e| BridgeError::Build(e.to_string()))?;
    if !report.passed() {
        return Err(BridgeError::Build(format!(
            "bench stopped: lockstep failed\n{}",
            report.render()
        )));
    }
    Ok(BenchReport {
        unit: unit.name().into(),
        module: manifest.module,
        cycles,
        verilator_cps,
        model_cps,
        lockstep_cps: report.cycles_per_sec,
        lockstep_ratio: report.cycles_per_sec / verilator_cps,
        build_s,
        cached_start_s,
    })
}

#[cfg(test)]
mod tests {
    use super::BenchReport;

    #[test]
    fn the_report_says_what_happened_to_the_cold_build() {
        let mut r = BenchReport {
            unit: "u".into(),
            module: "m".into(),
            cycles: 10,
            verilator_cps: 1.0,
            model_cps: 1.0,
            lockstep_cps: 1.0,
            lockstep_ratio: 1.0,
            build_s: f64::NAN,
            cached_start_s: 0.01,
        };
        let text = r.render();
        assert!(
            text.contains("cold build     not measured (--no-cold-build)\n"),
            "{text}"
        );
        assert!(!text.contains("skipped s"));
        r.build_s = 12.34;
        let text = r.render();
        let line = text.lines().find(|l| l.contains("cold build")).unwrap();
        assert!(line.ends_with(" 12.3 s"), "{text}");
    }
}
