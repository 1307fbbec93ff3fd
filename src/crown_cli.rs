//! `run --suite --crown`: every suite kernel in CROWN mode (spec/crown.md §3), its output
//! checked against the host reference (§7.2.1), beside SBR-32 and SBR-8 on the same launch.
//! The regrouping decisions come from the `crown` model, or from the `crown` RTL under
//! Verilator in lockstep with the model.

use serde_json::{json, Value};
use warpforge_contract::units::crown::{CrownConfig, NAME, PARAMS};
use warpforge_contract::Params;
use warpforge_testbench::crown::{Engine, ModelEngine};
use warpforge_testbench::isa::crown::CrownOptions;
use warpforge_testbench::isa::kernels::{self, Kernel, SUITE};
use warpforge_testbench::isa::suite::{run_crown_case, CrownCase};
use warpforge_testbench::isa::AsmOptions;

use crate::isa_cli::{size_name, size_of, IsaFail, RunArgs};
use crate::out::json as print_json;

/// Driver settings given with `--set` beside the unit's parameters.
const DRIVER_KEYS: &[(&str, u64, u64)] = &[
    ("pipe_latency", 1, 64),
    ("mem_latency", 1, 10_000),
    ("max_blocks", 1, 64),
];

/// The CROWN configuration and driver options from `--set` (bad input: exit 2, one line).
pub fn crown_options(sets: &[String]) -> Result<(CrownOptions, Params), String> {
    let mut unit_sets = vec![];
    let mut driver: Vec<(&str, u64)> = vec![];
    let mut cta_scope = false;
    for s in sets {
        let key = s.split('=').next().unwrap_or("");
        if key == "merge_scope" {
            // A14: the thesis's rule (merge across CTAs) or regrouping within a CTA.
            cta_scope = match &s[key.len()..] {
                "=any" => false,
                "=cta" => true,
                _ => return Err(format!("--set {s}: merge_scope must be any or cta")),
            };
            continue;
        }
        match DRIVER_KEYS.iter().find(|k| k.0 == key) {
            Some(&(k, lo, hi)) => {
                let v = s[k.len() + 1..]
                    .parse::<u64>()
                    .ok()
                    .filter(|v| (lo..=hi).contains(v))
                    .ok_or_else(|| {
                        format!("--set {s}: {k} must be an integer from {lo} to {hi}")
                    })?;
                driver.push((k, v));
            }
            None => unit_sets.push(s.clone()),
        }
    }
    let params = Params::resolve(NAME, PARAMS, None, &unit_sets).map_err(|e| e.0)?;
    let cfg = CrownConfig::from_params(&params).map_err(|e| e.0)?;
    let mut o = CrownOptions::new(cfg);
    o.cta_scope = cta_scope;
    for (k, v) in driver {
        match k {
            "pipe_latency" => o.pipe_latency = v,
            "mem_latency" => o.mem_latency = v,
            _ => o.max_blocks = v as usize,
        }
    }
    Ok((o, params))
}

fn pct(x: f64) -> String {
    format!("{x:.1}")
}

fn case_json(c: &CrownCase) -> Value {
    let mut j = json!({
        "kernel": c.kernel,
        "size": c.size,
        "passed": c.passed(),
        "skipped": c.skipped,
        "error": c.error,
        "seconds": c.seconds,
    });
    if let Some(s) = &c.crown {
        let e = &s.engine;
        j["crown"] = json!({
            "lane_activity": s.lane_activity(),
            "issues": e.issues,
            "active_lanes": e.active_lanes,
            "cycles": s.cycles,
            "idle_cycles": s.idle_cycles,
            "divergent_branches": e.divergent_branches,
            "rl_merged_lanes": e.rl_merged_lanes,
            "rl_bypasses": e.rl_bypasses,
            "wl_merged_lanes": e.wl_merged_lanes,
            "wl_inserts": e.wl_inserts,
            "bar_reserved": e.bar_reserved,
            "bar_alloc_fail": e.bar_alloc_fail,
            "arrivals": e.arrivals,
            "peak_l2": e.peak_l2,
            "peak_bar_live": e.peak_bar_live,
            "peak_rl": e.peak_rl,
            "peak_wl": e.peak_wl,
            "transfers": {"wl": e.xfer_wl, "bar": e.xfer_bar, "rl": e.xfer_rl},
        });
    }
    for (name, w) in [("sbr32", &c.sbr32), ("sbr8", &c.sbr8)] {
        if let Some(w) = w {
            j[name] = json!({
                "lane_activity": 100.0 * w.simd_efficiency(),
                "issues": w.warp_instructions,
                "active_lanes": w.active_lanes,
                "divergent_branches": w.divergent_branches,
            });
        }
    }
    j
}

pub const HEADER: &str = "kernel        size check | CROWN  lane%   issues rl-merge wl-merge bar-fail peak-l2 peak-bar | SBR-32 lane%  issues | SBR-8 lane%  issues";

fn case_line(c: &CrownCase) -> String {
    let head = format!("{:<11} {:>6}", c.kernel, c.size);
    if let Some(why) = &c.skipped {
        return format!("{head} SKIP  {why}");
    }
    let sbr = |w: &Option<warpforge_testbench::isa::WarpStats>, width: usize| match w {
        Some(w) => format!(
            "{:>width$} {:>7}",
            pct(100.0 * w.simd_efficiency()),
            w.warp_instructions
        ),
        None => format!("{:>width$} {:>7}", "-", "-"),
    };
    let crown = match &c.crown {
        Some(s) => {
            let e = &s.engine;
            format!(
                "{:>12} {:>8} {:>8} {:>8} {:>8} {:>7} {:>8}",
                pct(s.lane_activity()),
                e.issues,
                e.rl_merged_lanes,
                e.wl_merged_lanes,
                e.bar_alloc_fail,
                e.peak_l2,
                e.peak_bar_live
            )
        }
        None => format!("{:>12}", "-"),
    };
    let check = if c.error.is_none() { "ok  " } else { "FAIL" };
    let mut line = format!(
        "{head} {check}  | {crown} | {} | {}",
        sbr(&c.sbr32, 12),
        sbr(&c.sbr8, 11)
    );
    if let Some(e) = &c.error {
        line += &format!("\n  {e}");
    }
    line
}

/// Builds the RTL engine (the `crown` RTL in lockstep with the model) for a configuration.
pub type MakeEngine<'a> = &'a dyn Fn(&CrownConfig) -> Result<Box<dyn Engine>, String>;

/// `run --crown` (a kernel or `--suite`).
pub fn run_crown(r: &RunArgs, rtl: Option<MakeEngine>) -> Result<(), IsaFail> {
    if r.mode.is_some() || r.warp_size.is_some() || r.stack_depth.is_some() || r.trace {
        return Err(
            "--crown runs CROWN's own warps: configure it with --set (w, threads, n2, pool, rl_rows, wl_rows, sets, ways, pipe_latency, mem_latency, max_blocks, merge_scope), not --mode/--warp-size/--stack-depth/--trace"
                .into(),
        );
    }
    if r.random.is_some() || r.wave.is_some() {
        return Err("--crown runs suite kernels: --random and --wave are for --rtl".into());
    }
    let (opts, params) = crown_options(&r.set)?;
    let kernels: Vec<&Kernel> = if r.suite {
        if r.kernel.is_some() {
            return Err("give either a kernel or --suite, not both".into());
        }
        SUITE.iter().collect()
    } else {
        match r.kernel.as_deref().map(|n| (n, kernels::find(n))) {
            Some((_, Some(k))) => vec![k],
            Some((n, None)) => {
                return Err(IsaFail::from(format!(
                    "--crown runs suite kernels; `{n}` is not one ({})",
                    SUITE.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
                )))
            }
            None => return Err("run --crown needs a suite kernel or --suite".into()),
        }
    };
    let asm = AsmOptions { dwr_partner: r.dwr };
    let mut cases = vec![];
    for k in kernels {
        let size = size_of(k, size_name(r))?;
        let mut engine: Box<dyn Engine> = match rtl {
            Some(make) => make(&opts.cfg).map_err(|e| IsaFail {
                status: 1,
                message: e,
            })?,
            None => Box::new(ModelEngine::new(&opts.cfg)),
        };
        cases.push(run_crown_case(
            k,
            size,
            r.seed,
            &opts,
            &asm,
            engine.as_mut(),
        ));
    }
    let passed = cases.iter().filter(|c| c.passed()).count();
    let skipped = cases.iter().filter(|c| c.skipped.is_some()).count();
    let failed = cases.len() - passed - skipped;
    let engine = if rtl.is_some() { "rtl+model" } else { "model" };
    if r.json {
        print_json(&json!({
            "crown": opts.cfg.module_name(),
            "params": params,
            "engine": engine,
            "pipe_latency": opts.pipe_latency,
            "mem_latency": opts.mem_latency,
            "max_blocks": opts.max_blocks,
            "merge_scope": if opts.cta_scope { "cta" } else { "any" },
            "size": size_name(r),
            "seed": r.seed,
            "kernels": cases.iter().map(case_json).collect::<Vec<_>>(),
            "passed": passed,
            "failed": failed,
            "skipped": skipped,
        }));
    } else {
        outln!(
            "CROWN {} ({engine}; pipeline {} cycles, memory {} cycles, merge scope {})",
            opts.cfg.module_name(),
            opts.pipe_latency,
            opts.mem_latency,
            if opts.cta_scope { "cta" } else { "any" }
        );
        outln!("{HEADER}");
        for c in &cases {
            outln!("{}", case_line(c));
        }
        outln!("{passed} passed, {failed} failed, {skipped} skipped");
    }
    match cases.iter().find(|c| !c.passed() && c.skipped.is_none()) {
        None => Ok(()),
        Some(c) => Err(IsaFail {
            status: 1,
            message: format!(
                "{failed} of {} kernels failed in CROWN mode; first: {}: {}",
                cases.len(),
                c.kernel,
                c.error.as_deref().unwrap_or("")
            ),
        }),
    }
}
