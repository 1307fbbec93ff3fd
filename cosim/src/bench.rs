//! Throughput of one unit configuration, all measured in one run on the same stimulus:
//! the RTL alone under Verilator, the model alone, and the two in lockstep; plus the cold
//! build time (empty cache) and the time a cached run takes to start simulating. Units whose
//! outputs show a traffic count (the MSAP routers and network: flits) also get that count's
//! rate in each of the three.

use crate::lockstep::{self, Options, Source};
use crate::registry::Unit;
use crate::verilator::{self, BridgeError, Rtl};
use serde::Serialize;
use std::time::{Duration, Instant};
use warpforge_contract::units::{msap_noc, msap_router};

/// Events a unit's outputs show, one per set output bit of a chosen set, counted in every
/// cycle whose `reset` input is low. Raw Verilator, the model and lockstep replay the same
/// inputs, so the count is the same in all three (bench checks the raw run's against the
/// model's; lockstep compares every output).
#[derive(Clone, Debug)]
pub struct EventCounter {
    /// What one event is ("flits").
    pub kind: &'static str,
    /// What is counted, in prose (printed and in the JSON).
    pub counted: &'static str,
    /// (output word, mask of its counted bits).
    bits: Vec<(usize, u64)>,
}

impl EventCounter {
    /// The unit's counter, if it has one: `msap-noc` counts every `out_valid` bit of every
    /// router of both meshes (in `dbg_req` / `dbg_rep`), `msap-router` its own `out_valid`.
    pub fn of(unit: &Unit) -> Option<EventCounter> {
        let layout = unit.manifest().layout();
        let mut bits: Vec<(usize, u64)> = Vec::new();
        let mut add = |word: usize, bit: usize| match bits.iter_mut().find(|(w, _)| *w == word) {
            Some((_, m)) => *m |= 1 << bit,
            None => bits.push((word, 1 << bit)),
        };
        let counted = match unit.name() {
            msap_noc::NAME => {
                let cfg = msap_noc::NocConfig::from_params(&unit.params)
                    .expect("a resolved unit's parameters are valid");
                // A router's outputs in dbg_*: out_valid (PORTS bits) first.
                let stride = cfg.router_out_bits();
                for mesh in ["dbg_req", "dbg_rep"] {
                    let at = layout.output(mesh)?.offset;
                    for r in 0..cfg.nodes() {
                        for p in 0..msap_router::PORTS {
                            let b = r * stride + p;
                            add(at + b / 64, b % 64);
                        }
                    }
                }
                "flits leaving a router output port (to a neighbour router or the node's sink / MC buffer), both meshes"
            }
            msap_router::NAME => {
                let s = layout.output("out_valid")?;
                for b in 0..s.width {
                    add(s.offset + b / 64, b % 64);
                }
                "flits leaving the router's output ports"
            }
            _ => return None,
        };
        Some(EventCounter {
            kind: "flits",
            counted,
            bits,
        })
    }

    /// The events in one cycle's outputs.
    pub fn count(&self, outputs: &[u64]) -> u64 {
        self.bits
            .iter()
            .map(|&(w, m)| (outputs[w] & m).count_ones() as u64)
            .sum()
    }
}

/// A unit's [`EventCounter`] over the bench run, and its rate in each measurement.
#[derive(Clone, Debug, Serialize)]
pub struct EventRate {
    pub kind: String,
    pub counted: String,
    /// Events in the run's cycles out of reset.
    pub count: u64,
    pub verilator_per_s: f64,
    pub model_per_s: f64,
    pub lockstep_per_s: f64,
}

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
    /// The unit's traffic count and its rates (null for units without one).
    pub events: Option<EventRate>,
}

impl BenchReport {
    pub fn render(&self) -> String {
        let rate = |per_s: fn(&EventRate) -> f64| match &self.events {
            Some(e) => format!("  {:>12.0} {}/s", per_s(e), e.kind),
            None => String::new(),
        };
        let events = match &self.events {
            Some(e) => format!(
                "  {}  {:>12} in the cycles out of reset: {}\n",
                e.kind, e.count, e.counted
            ),
            None => String::new(),
        };
        format!(
            "{}: {} cycles\n{events}  raw Verilator  {:>12.0} cycles/s{}\n  model alone    {:>12.0} cycles/s{}\n  lockstep       {:>12.0} cycles/s{}  ({:.2} of raw Verilator)\n  cold build     {}\n  cached start   {:>12.3} s\n",
            self.module,
            self.cycles,
            self.verilator_cps,
            rate(|e| e.verilator_per_s),
            self.model_cps,
            rate(|e| e.model_per_s),
            self.lockstep_cps,
            rate(|e| e.lockstep_per_s),
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
    let counter = EventCounter::of(unit);
    let reset = layout.input("reset").map(|s| s.offset);
    let in_reset = |inp: &[u64]| reset.is_some_and(|r| inp[r] & 1 == 1);
    let mut model_events = 0u64;
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
        if let Some(k) = &counter {
            if !in_reset(inp) {
                model_events += k.count(&outputs);
            }
        }
        prev.copy_from_slice(&outputs);
    }
    let model_cps = cycles as f64 / t.elapsed().as_secs_f64();

    // RTL alone on the same inputs (its events counted between the timed batches).
    let mut rtl = Rtl::load(&compiled, &layout, seed)?;
    let chunk = 4096;
    let mut out = vec![0u64; chunk * ow];
    let mut rtl_time = Duration::ZERO;
    let mut rtl_events = 0u64;
    for c in (0..n).step_by(chunk) {
        let k = chunk.min(n - c);
        let ins = &inputs[c * iw..(c + k) * iw];
        let t = Instant::now();
        rtl.run(ins, &mut out[..k * ow]);
        rtl_time += t.elapsed();
        if let Some(e) = &counter {
            for j in (0..k).filter(|&j| !in_reset(&ins[j * iw..])) {
                rtl_events += e.count(&out[j * ow..(j + 1) * ow]);
            }
        }
    }
    let verilator_cps = cycles as f64 / rtl_time.as_secs_f64();
    drop(rtl);
    if rtl_events != model_events {
        return Err(BridgeError::Build(format!(
            "bench stopped: raw Verilator's outputs show {rtl_events} {}, the model's {model_events}",
            counter.map_or("events", |e| e.kind)
        )));
    }

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
    let per_s = |cps: f64| model_events as f64 * cps / cycles as f64;
    let events = counter.map(|e| EventRate {
        kind: e.kind.into(),
        counted: e.counted.into(),
        count: model_events,
        verilator_per_s: per_s(verilator_cps),
        model_per_s: per_s(model_cps),
        lockstep_per_s: per_s(report.cycles_per_sec),
    });
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
        events,
    })
}

#[cfg(test)]
mod tests {
    use super::{BenchReport, EventCounter, EventRate};
    use crate::registry::Unit;

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
            events: None,
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
        assert!(
            !text.contains("flits"),
            "no event rate without a count: {text}"
        );
        r.events = Some(EventRate {
            kind: "flits".into(),
            counted: "what".into(),
            count: 30,
            verilator_per_s: 2.0,
            model_per_s: 3.0,
            lockstep_per_s: 4.0,
        });
        let text = r.render();
        for (what, rate) in [("raw Verilator", 2), ("model alone", 3), ("lockstep", 4)] {
            let line = text.lines().find(|l| l.contains(what)).unwrap();
            assert!(line.contains(&format!(" {rate} flits/s")), "{text}");
        }
        assert!(
            text.contains(" 30 in the cycles out of reset: what\n"),
            "{text}"
        );
    }

    /// Which units count what: the router's `out_valid` word, the network's five bits per
    /// router in each mesh's debug port, nothing for the others.
    #[test]
    fn event_counters_count_the_routers_out_valid_bits() {
        let router = Unit::resolve("msap-router", &[]).unwrap();
        let k = EventCounter::of(&router).unwrap();
        let l = router.manifest().layout();
        let s = l.output("out_valid").unwrap();
        let mut out = vec![0u64; l.out_words];
        out[s.offset] = 0b10110;
        assert_eq!(k.count(&out), 3);
        out.iter_mut().for_each(|w| *w = u64::MAX);
        assert_eq!(k.count(&out), 5);

        for sets in [vec![], vec!["mesh_x=4".to_string(), "mesh_y=4".to_string()]] {
            let noc = Unit::resolve("msap-noc", &sets).unwrap();
            let k = EventCounter::of(&noc).unwrap();
            let mut out = vec![u64::MAX; noc.manifest().layout().out_words];
            let nodes = if sets.is_empty() { 4 } else { 16 };
            assert_eq!(k.count(&out), 2 * 5 * nodes as u64);
            out.iter_mut().for_each(|w| *w = 0);
            assert_eq!(k.count(&out), 0);
        }
        assert!(EventCounter::of(&Unit::resolve("msap-mc", &[]).unwrap()).is_none());
    }
}
