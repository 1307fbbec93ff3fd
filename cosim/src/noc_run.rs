//! `warpforge noc`: BookSim-style synthetic-traffic experiments on the `msap-noc` RTL under
//! Verilator, in lockstep with its model (every output, every router's and queue's state,
//! every cycle), or on the model alone. Per injection rate: a fresh network, `warmup` cycles,
//! `measure` cycles whose generated packets are tagged, then drain until every tagged packet
//! is answered (or `drain` cycles pass: the rate is past saturation). Reported: offered and
//! accepted throughput, mean / p99 / max round-trip latency (generation to the reply's tail
//! at the SM) per PL class, and the saturation point.

use serde::Serialize;
use std::time::Instant;

use crate::verilator::{build, Rtl};
use warpforge_contract::units::msap_noc::{NocConfig, NAME, PARAMS};
use warpforge_contract::{Layout, Params};
use warpforge_testbench::msap_noc::{MsapNocModel, Pattern, PlMode, Traffic};
use warpforge_testbench::Model;

/// One experiment: the configuration's `--set`s and the traffic.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub sets: Vec<String>,
    pub pattern: Pattern,
    pub pl: PlMode,
    pub rates: Vec<f64>,
    pub warmup: u64,
    pub measure: u64,
    pub drain: u64,
    pub seed: u64,
    /// Also drive the RTL (lockstep); false: the model alone.
    pub rtl: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClassStats {
    pub pl: u64,
    pub packets: u64,
    pub mean: f64,
    pub p99: u64,
    pub max: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RatePoint {
    pub offered: f64,
    /// Replies per SM per cycle during the measurement window.
    pub accepted: f64,
    /// Reply flits per cycle ejected at the SMs during the window.
    pub flits_per_cycle: f64,
    pub mean: f64,
    pub p99: u64,
    pub max: u64,
    pub classes: Vec<ClassStats>,
    /// Every tagged packet was answered within the drain limit.
    pub drained: bool,
    pub cycles: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Sweep {
    pub label: String,
    pub module: String,
    pub points: Vec<RatePoint>,
    /// The lowest offered rate past saturation (undrained, or mean latency over 3× the
    /// lowest rate's), if the sweep reached it.
    pub saturation: Option<f64>,
    pub lockstep_cycles: u64,
    pub seconds: f64,
    /// FNV-1a digest of the run's trace after reset (see [`TraceDigest`]): two builds with
    /// equal digests on the same traffic behaved identically (T-5).
    pub trace: String,
}

/// The functional outputs of the network (its SM- and MC-side ports).
const FUNCTIONAL: [&str; 6] = [
    "inj_ready",
    "rep_valid",
    "rep_src",
    "rep_tag",
    "rep_pl",
    "mc_deq",
];

/// A digest of every cycle's functional outputs and every router link (each router's
/// `out_valid`, `out_flit` and `in_credit` in `dbg_req` / `dbg_rep`): what T-5 compares
/// between the MSAP and the baseline build. Arbiter state is not in it (the two builds'
/// arbiters differ by design).
struct TraceDigest {
    h: u64,
    nodes: usize,
    /// Bits of one router's outputs in `dbg_req` and of its link outputs at their start.
    stride: usize,
    links: usize,
}

impl TraceDigest {
    fn new(cfg: &NocConfig) -> TraceDigest {
        let fb = cfg.router(0).flit_bits();
        let ports = warpforge_contract::units::msap_router::PORTS;
        TraceDigest {
            h: crate::verilator::fnv64(&[]),
            nodes: cfg.nodes(),
            stride: cfg.router_out_bits(),
            // out_valid, out_flit per port; in_credit per input VC.
            links: ports * (fb + 1) + cfg.router(0).nq(),
        }
    }
    fn mix(&mut self, w: u64) {
        for b in w.to_le_bytes() {
            self.h ^= b as u64;
            self.h = self.h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn feed(&mut self, layout: &Layout, out: &[u64]) {
        for name in FUNCTIONAL {
            let s = layout.output(name).unwrap();
            for i in 0..s.words {
                self.mix(out[s.offset + i] & s.word_mask(i));
            }
        }
        for name in ["dbg_req", "dbg_rep"] {
            let at = layout.output(name).unwrap().offset;
            for r in 0..self.nodes {
                let (mut acc, mut k) = (0u64, 0);
                for b in r * self.stride..r * self.stride + self.links {
                    acc |= (out[at + b / 64] >> (b % 64) & 1) << k;
                    k += 1;
                    if k == 64 {
                        self.mix(acc);
                        (acc, k) = (0, 0);
                    }
                }
                self.mix(acc);
            }
        }
    }
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let k = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len());
    sorted[k - 1]
}

/// The configuration of `sets`.
pub fn config(sets: &[String]) -> Result<(NocConfig, Params), String> {
    let p = Params::resolve(NAME, PARAMS, None, sets).map_err(|e| e.0)?;
    let c = NocConfig::from_params(&p).map_err(|e| e.0)?;
    Ok((c, p))
}

/// Model and (optionally) RTL, stepped together; every output compared.
struct Engine {
    model: MsapNocModel,
    rtl: Option<Rtl>,
    layout: Layout,
    inputs: Vec<u64>,
    out_model: Vec<u64>,
    out_rtl: Vec<u64>,
    cycle: u64,
}

impl Engine {
    fn step(&mut self) -> Result<(), String> {
        self.model.step(&self.inputs, &mut self.out_model);
        self.model
            .check_invariants()
            .map_err(|e| format!("cycle {}: model invariant: {e}", self.cycle))?;
        if let Some(r) = &mut self.rtl {
            r.run(&self.inputs, &mut self.out_rtl);
            // In reset the RTL's outputs come from its random initial registers.
            let reset = self.layout.input("reset").unwrap().offset;
            if self.inputs[reset] & 1 == 1 {
                self.cycle += 1;
                return Ok(());
            }
            if let Some((name, i, a, b)) = crate::lockstep::output_difference(
                &self.layout,
                &self.out_rtl,
                &self.out_model,
                |_| true,
            ) {
                return Err(format!(
                    "lockstep cycle {}: output {name} word {i}: rtl {a:#x}, model {b:#x}",
                    self.cycle
                ));
            }
        }
        self.cycle += 1;
        Ok(())
    }
}

/// Run the sweep of `e` on one configuration; `progress` gets a line now and then.
pub fn sweep(e: &Experiment, label: &str, progress: &mut dyn FnMut(&str)) -> Result<Sweep, String> {
    let t0 = Instant::now();
    let (cfg, params) = config(&e.sets)?;
    let manifest = cfg.manifest(&params);
    let layout = manifest.layout();
    let compiled = if e.rtl {
        progress(&format!(
            "{label}: building {} (Verilator)",
            manifest.module
        ));
        let d = warpforge_hdl::msap_noc::generate(&cfg);
        Some(build(&d, &manifest, false).map_err(|x| x.to_string())?)
    } else {
        None
    };
    let reset_at = layout.input("reset").unwrap().offset;
    let mut points = vec![];
    let mut lockstep_cycles = 0;
    let mut digest = TraceDigest::new(&cfg);
    for (ri, &rate) in e.rates.iter().enumerate() {
        let rtl = match &compiled {
            Some(c) => Some(Rtl::load(c, &layout, e.seed).map_err(|x| x.to_string())?),
            None => None,
        };
        let mut g = Engine {
            model: MsapNocModel::new(&cfg),
            rtl,
            inputs: vec![0; layout.in_words],
            out_model: vec![0; layout.out_words],
            out_rtl: vec![0; layout.out_words],
            layout: layout.clone(),
            cycle: 0,
        };
        // Two reset cycles (the RTL's registers start random).
        g.inputs[reset_at] = 1;
        g.step()?;
        g.step()?;
        g.inputs[reset_at] = 0;
        let mut t = Traffic::new(&cfg, e.seed.wrapping_add(ri as u64 * 7919));
        t.pattern = e.pattern;
        t.pl = e.pl.clone();
        t.rate = rate;
        let mut cy = 1u64;
        let mut tick = Instant::now();
        let mut window_flits = 0u64;
        let total = e.warmup + e.measure;
        let rep_valid = layout.output("rep_valid").unwrap().clone();
        loop {
            t.measuring = cy > e.warmup && cy <= total;
            if cy > total + e.drain || (cy > total && t.stats.measured_done == t.stats.measured_gen)
            {
                break;
            }
            g.inputs.iter_mut().for_each(|w| *w = 0);
            t.next(cy, &g.out_model, &mut g.inputs);
            g.step()?;
            // The RTL's outputs when it runs (equal to the model's: lockstep checked them).
            digest.feed(
                &layout,
                if g.rtl.is_some() {
                    &g.out_rtl
                } else {
                    &g.out_model
                },
            );
            if t.measuring {
                let ones: u32 = (0..rep_valid.words)
                    .map(|i| {
                        (g.out_model[rep_valid.offset + i] & rep_valid.word_mask(i)).count_ones()
                    })
                    .sum();
                window_flits += ones as u64 * cfg.reply_flits as u64;
            }
            cy += 1;
            if tick.elapsed().as_secs() >= 2 {
                tick = Instant::now();
                progress(&format!(
                    "{label}: rate {rate}: cycle {cy}, {} of {} measured packets answered",
                    t.stats.measured_done, t.stats.measured_gen
                ));
            }
        }
        lockstep_cycles += g.cycle;
        let s = &t.stats;
        let mut all: Vec<u64> = s.lat.iter().flatten().copied().collect();
        all.sort_unstable();
        let mean = |v: &[u64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<u64>() as f64 / v.len() as f64
            }
        };
        let classes = s
            .lat
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(pl, v)| {
                let mut v = v.clone();
                v.sort_unstable();
                ClassStats {
                    pl: pl as u64,
                    packets: v.len() as u64,
                    mean: mean(&v),
                    p99: percentile(&v, 0.99),
                    max: *v.last().unwrap(),
                }
            })
            .collect();
        let window = e.measure.max(1) as f64;
        points.push(RatePoint {
            offered: rate,
            accepted: s.window_replies as f64 / window / cfg.n_sm() as f64,
            flits_per_cycle: window_flits as f64 / window,
            mean: mean(&all),
            p99: percentile(&all, 0.99),
            max: all.last().copied().unwrap_or(0),
            classes,
            drained: s.measured_done == s.measured_gen,
            cycles: g.cycle,
        });
        progress(&format!(
            "{label}: rate {rate}: accepted {:.4}, mean latency {:.1}",
            points.last().unwrap().accepted,
            points.last().unwrap().mean
        ));
    }
    let base = points.first().map(|p| p.mean).unwrap_or(0.0);
    let saturation = points
        .iter()
        .find(|p| !p.drained || (base > 0.0 && p.mean > 3.0 * base))
        .map(|p| p.offered);
    Ok(Sweep {
        label: label.to_string(),
        module: manifest.module,
        points,
        saturation,
        lockstep_cycles: if e.rtl { lockstep_cycles } else { 0 },
        seconds: t0.elapsed().as_secs_f64(),
        trace: format!("{:016x}", digest.h),
    })
}

/// An SVG plot of mean latency against offered rate, one line per sweep (and, dashed, the
/// highest and lowest PL class of each).
pub fn svg(sweeps: &[Sweep]) -> String {
    let (w, h, l, b) = (640.0, 400.0, 60.0, 50.0);
    let pts = || sweeps.iter().flat_map(|s| &s.points);
    let xmax = pts().map(|p| p.offered).fold(0.0, f64::max).max(1e-9);
    let ymax = pts()
        .flat_map(|p| p.classes.iter().map(|c| c.mean).chain([p.mean]))
        .fold(0.0, f64::max)
        .max(1.0);
    let x = |v: f64| l + v / xmax * (w - l - 20.0);
    let y = |v: f64| h - b - v / ymax * (h - b - 20.0);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <line x1=\"{l}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n<line x1=\"{l}\" y1=\"20\" x2=\"{l}\" y2=\"{}\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">offered load (requests per SM per cycle, max {xmax})</text>\n\
         <text x=\"15\" y=\"{}\" transform=\"rotate(-90 15 {})\" text-anchor=\"middle\">mean latency (cycles, max {ymax:.0})</text>\n",
        h - b,
        w - 20.0,
        h - b,
        h - b,
        (w + l) / 2.0,
        h - 15.0,
        h / 2.0,
        h / 2.0
    );
    let colours = ["#c03030", "#3050c0", "#30a040", "#a060c0"];
    let mut key_y = 30.0;
    for (k, sw) in sweeps.iter().enumerate() {
        let col = colours[k % colours.len()];
        let mut line = |vals: Vec<(f64, f64)>, dash: &str, name: String| {
            let d: Vec<String> = vals
                .iter()
                .map(|&(a, v)| format!("{:.1},{:.1}", x(a), y(v)))
                .collect();
            s += &format!(
                "<polyline fill=\"none\" stroke=\"{col}\" stroke-width=\"2\" {dash} points=\"{}\"/>\n<text x=\"{}\" y=\"{key_y}\" fill=\"{col}\">{name}</text>\n",
                d.join(" "),
                l + 10.0
            );
            key_y += 15.0;
        };
        line(
            sw.points.iter().map(|p| (p.offered, p.mean)).collect(),
            "",
            format!("{} (all)", sw.label),
        );
        let pls: std::collections::BTreeSet<u64> = sw
            .points
            .iter()
            .flat_map(|p| p.classes.iter().map(|c| c.pl))
            .collect();
        if pls.len() > 1 {
            for (pl, dash) in [
                (*pls.iter().next_back().unwrap(), "stroke-dasharray=\"6 3\""),
                (*pls.iter().next().unwrap(), "stroke-dasharray=\"2 3\""),
            ] {
                let v = sw
                    .points
                    .iter()
                    .filter_map(|p| {
                        p.classes
                            .iter()
                            .find(|c| c.pl == pl)
                            .map(|c| (p.offered, c.mean))
                    })
                    .collect();
                line(v, dash, format!("{} PL {pl}", sw.label));
            }
        }
    }
    s += "</svg>\n";
    s
}
