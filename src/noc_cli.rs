//! `warpforge noc`: synthetic-traffic sweeps on the `msap-noc` RTL in lockstep with its model
//! (`cosim::noc_run`), with the baseline (msaa_en = msar_en = false) beside it on request.

use serde_json::json;
use std::path::PathBuf;
use warpforge_cosim::noc_run::{self, Experiment, Sweep};
use warpforge_cosim::outpath::check_writable;
use warpforge_testbench::msap_noc::{Pattern, PlMode};

use crate::out::json as print_json;
use crate::{bad, Fail};

#[derive(clap::Args, Clone)]
pub struct NocArgs {
    /// Mesh size, COLSxROWS (2x2 … 16x16). 8x8 is the paper's system (56 SMs, 8 MCs); its
    /// router is Verilated once and shared by its 128 instances.
    #[arg(long, default_value = "8x8")]
    mesh: String,
    /// Destination pattern: uniform, hotspot, transpose, bitcomp, neighbor.
    #[arg(long, default_value = "uniform")]
    pattern: String,
    /// Offered loads, requests per SM per cycle, comma-separated (each in (0, 1]).
    #[arg(long, default_value = "0.002,0.005,0.01,0.02")]
    rates: String,
    /// Warm-up cycles per rate.
    #[arg(long, default_value_t = 1000)]
    warmup: u64,
    /// Measurement cycles per rate (packets generated in them are measured).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    measure: u64,
    /// At most this many drain cycles (a rate not drained in them is past saturation).
    #[arg(long, default_value_t = 5000)]
    drain: u64,
    /// PLs: random, occupancy (from each SM's outstanding requests, ÷4), or forced:SPEC where
    /// SPEC is PxK items (K SMs at PL P) then one P for the rest, e.g. forced:7x8,0.
    #[arg(long, default_value = "occupancy")]
    pl: String,
    /// Also run the baseline (msaa_en=false, msar_en=false) on the same traffic.
    #[arg(long)]
    baseline: bool,
    /// The model alone (no Verilator).
    #[arg(long)]
    model_only: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Other msap-noc parameters (repeatable), e.g. --set mc_place=middle.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Write an SVG latency-load plot here.
    #[arg(long)]
    svg: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

fn parse_pl(s: &str, n_sm: usize) -> Result<PlMode, Fail> {
    let err = || {
        bad(format!(
            "--pl {s}: expected random, occupancy or forced:SPEC (PxK items, then P; PLs 0..15), e.g. forced:7x8,0"
        ))
    };
    match s {
        "random" => return Ok(PlMode::Random),
        "occupancy" => return Ok(PlMode::Occupancy(2)),
        _ => {}
    }
    let spec = s.strip_prefix("forced:").ok_or_else(err)?;
    let mut v = vec![];
    let items: Vec<&str> = spec.split(',').collect();
    for (i, it) in items.iter().enumerate() {
        let (p, k) = match it.split_once('x') {
            Some((p, k)) => (p, k.parse::<usize>().map_err(|_| err())?),
            None if i + 1 == items.len() => (*it, n_sm.saturating_sub(v.len())),
            None => return Err(err()),
        };
        let p: u64 = p.parse().map_err(|_| err())?;
        if p > 15 {
            return Err(err());
        }
        v.extend(std::iter::repeat_n(p, k));
    }
    if v.is_empty() {
        return Err(err());
    }
    Ok(PlMode::Forced(v))
}

pub fn run(a: NocArgs) -> Result<u8, Fail> {
    let (mx, my) = a
        .mesh
        .split_once('x')
        .and_then(|(x, y)| Some((x.parse::<usize>().ok()?, y.parse::<usize>().ok()?)))
        .ok_or_else(|| bad(format!("--mesh {}: expected COLSxROWS, e.g. 8x8", a.mesh)))?;
    let pattern = Pattern::parse(&a.pattern).ok_or_else(|| {
        bad(format!(
            "--pattern {}: one of {}",
            a.pattern,
            Pattern::NAMES
        ))
    })?;
    let mut rates = vec![];
    for r in a.rates.split(',') {
        match r.trim().parse::<f64>() {
            Ok(v) if v > 0.0 && v <= 1.0 => rates.push(v),
            _ => {
                return Err(bad(format!(
                    "--rates {}: each rate must be a number in (0, 1]",
                    a.rates
                )))
            }
        }
    }
    let mut sets = vec![format!("mesh_x={mx}"), format!("mesh_y={my}")];
    sets.extend(a.sets.iter().cloned());
    let (cfg, _) = noc_run::config(&sets).map_err(bad)?;
    let pl = parse_pl(&a.pl, cfg.n_sm())?;
    if let Some(p) = &a.svg {
        check_writable("--svg", p).map_err(bad)?;
    }
    let e = Experiment {
        sets: sets.clone(),
        pattern,
        pl,
        rates,
        warmup: a.warmup,
        measure: a.measure,
        drain: a.drain,
        seed: a.seed,
        rtl: !a.model_only,
    };
    let mut runs = vec![(e.clone(), "msap".to_string())];
    if a.baseline {
        let mut b = e.clone();
        b.sets
            .extend(["msaa_en=false".into(), "msar_en=false".into()]);
        noc_run::config(&b.sets).map_err(bad)?;
        runs.push((b, "baseline".into()));
    }
    let mut sweeps: Vec<Sweep> = vec![];
    for (e, label) in &runs {
        let s = noc_run::sweep(e, label, &mut |m| eprintln!("noc: {m}"))
            .map_err(|m| Fail(1, format!("noc {label}: {m}")))?;
        sweeps.push(s);
    }
    if let Some(p) = &a.svg {
        std::fs::write(p, noc_run::svg(&sweeps))
            .map_err(|e| bad(format!("--svg {}: cannot write: {e}", p.display())))?;
    }
    if a.json {
        print_json(&json!({
            "mesh": [mx, my],
            "pattern": a.pattern,
            "pl": a.pl,
            "sms": cfg.n_sm(),
            "mcs": cfg.n_mc(),
            "lockstep": !a.model_only,
            "sweeps": sweeps,
        }));
        return Ok(0);
    }
    outln!(
        "noc {mx}x{my} ({} SMs, {} MCs), pattern {}, PL {}, {}",
        cfg.n_sm(),
        cfg.n_mc(),
        a.pattern,
        a.pl,
        if a.model_only {
            "model only"
        } else {
            "RTL in lockstep with the model"
        }
    );
    for s in &sweeps {
        outln!("{} ({}):", s.label, s.module);
        outln!("  offered  accepted  flits/cyc   mean    p99    max  drained | per PL: mean/p99/max (packets)");
        for p in &s.points {
            let cls: Vec<String> = p
                .classes
                .iter()
                .map(|c| {
                    format!(
                        "PL{} {:.1}/{}/{} ({})",
                        c.pl, c.mean, c.p99, c.max, c.packets
                    )
                })
                .collect();
            outln!(
                "  {:>7}  {:>8.4}  {:>9.3}  {:>5.1}  {:>5}  {:>5}  {:>7} | {}",
                p.offered,
                p.accepted,
                p.flits_per_cycle,
                p.mean,
                p.p99,
                p.max,
                if p.drained { "yes" } else { "no" },
                cls.join("  ")
            );
        }
        match s.saturation {
            Some(r) => outln!("  saturation: at {r} (first rate not drained or over 3x the lowest rate's mean latency)"),
            None => outln!("  saturation: not reached in this sweep"),
        }
        outln!(
            "  {} lockstep cycles in {:.1} s; trace digest {}",
            s.lockstep_cycles,
            s.seconds,
            s.trace
        );
    }
    if let [m, b] = &sweeps[..] {
        // T-5: with one PL on every request the MSAP network must behave as the baseline.
        outln!(
            "traces (functional ports and every router link, every cycle): {}",
            if m.trace == b.trace {
                "MSAP = baseline"
            } else {
                "MSAP differs from the baseline"
            }
        );
    }
    Ok(0)
}
