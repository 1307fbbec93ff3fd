//! `run --suite --dtm`: every suite kernel in DTM execution mode (spec/dtm.md §3.5): the
//! warps run on the interpreter with the `dtm` top deciding reuse (the model alone with
//! --model-only, else the RTL under Verilator in lockstep with the model); each kernel's
//! output is checked against the host reference, every reuse against executing it, and the
//! counts against warp mode.

use serde_json::{json, Value};
use warpforge_contract::units::dtm_top::{DtmConfig, DtmModes, NAME, PARAMS};
use warpforge_contract::Params;
use warpforge_testbench::isa::dtm::{DtmEngine, ModelEngine};
use warpforge_testbench::isa::kernels::{self, Kernel, SUITE};
use warpforge_testbench::isa::suite::{run_dtm_case_modes, DtmCase};
use warpforge_testbench::isa::AsmOptions;

use crate::isa_cli::{size_name, size_of, IsaFail, RunArgs};
use crate::out::json as print_json;

fn case_json(c: &DtmCase) -> Value {
    let mut j = json!({
        "kernel": c.kernel,
        "size": c.size,
        "passed": c.passed(),
        "error": c.error,
        "seconds": c.seconds,
    });
    if let Some(s) = &c.stats {
        let (inter, intra, trace) = s.split_pct();
        j["dtm"] = json!({
            "reuse_pct": s.reuse_pct(),
            "split_pct": {"inter": inter, "intra": intra, "trace": trace},
            "itot": s.itot,
            "inter": s.inter,
            "intra": s.intra,
            "trace": s.trace,
            "warp_instructions": s.warp_instructions,
            "bypassed_warp_instructions": s.bypassed,
            "full_trace_hits": s.full_trace_hits,
            "partial_trace_hits": s.partial_trace_hits,
            "jumped_warp_instructions": s.jumped,
            "skipped_warp_instructions": s.skipped,
            "fu_width": s.fu_width,
            "saved_groups": s.saved_groups,
            "idle_groups": s.idle_groups,
            "cycles_without": s.cycles_without,
            "saved_cycles": s.saved_cycles,
            "cycles_dtm": s.cycles_dtm,
            "speedup": s.speedup(),
            "engine_cycles": s.engine_cycles,
            "tables_changed": s.tables_changed,
        });
    }
    j
}

pub const HEADER: &str =
    "kernel        size check | reuse%  inter% intra% trace% | bypassed  saved/cycles  speedup";

fn case_line(c: &DtmCase) -> String {
    let head = format!("{:<11} {:>6}", c.kernel, c.size);
    let check = if c.error.is_none() { "ok  " } else { "FAIL" };
    let body = match &c.stats {
        Some(s) => {
            let (a, b, t) = s.split_pct();
            format!(
                "{:>6.1} {:>7.1} {:>6.1} {:>6.1} | {:>8} {:>6}/{:<7} {:>6.3}",
                s.reuse_pct(),
                a,
                b,
                t,
                s.bypassed,
                s.saved_cycles,
                s.cycles_without,
                s.speedup()
            )
        }
        None => "-".into(),
    };
    let mut line = format!("{head} {check}  | {body}");
    if let Some(e) = &c.error {
        line += &format!("\n  {e}");
    }
    line
}

/// Harmonic mean of the kernels' reuse % (over the kernels with some reuse, as a harmonic
/// mean of values including 0 is 0) and their count.
pub fn harmonic_mean(cases: &[DtmCase]) -> (f64, usize) {
    let v: Vec<f64> = cases
        .iter()
        .filter_map(|c| c.stats.as_ref().map(|s| s.reuse_pct()))
        .filter(|r| *r > 0.0)
        .collect();
    let hm = v.len() as f64 / v.iter().map(|r| 1.0 / r).sum::<f64>().max(1e-12);
    (if v.is_empty() { 0.0 } else { hm }, v.len())
}

/// `run --dtm` (a kernel or `--suite`).
pub fn run_dtm(r: &RunArgs) -> Result<(), IsaFail> {
    if r.mode.is_some() || r.warp_size.is_some() || r.stack_depth.is_some() || r.trace {
        return Err(
            "--dtm runs the dtm top's warps (simd_width lanes): configure it with --set, not --mode/--warp-size/--stack-depth/--trace"
                .into(),
        );
    }
    if r.random.is_some() || r.wave.is_some() {
        return Err("--dtm runs suite kernels: --random and --wave are for --rtl".into());
    }
    let (top_sets, modes) = DtmModes::split(&r.set, !r.model_only).map_err(|e| e.0)?;
    let params = Params::resolve(NAME, PARAMS, None, &top_sets).map_err(|e| e.0)?;
    let cfg = DtmConfig::from_params(&params).map_err(|e| e.0)?;
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
                    "--dtm runs suite kernels; `{n}` is not one ({})",
                    SUITE.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
                )))
            }
            None => return Err("run --dtm needs a suite kernel or --suite".into()),
        }
    };
    let asm = AsmOptions { dwr_partner: r.dwr };
    let (seed, sets, model_only) = (r.seed, top_sets, r.model_only);
    let mut make = |c: &DtmConfig| -> Result<Box<dyn DtmEngine>, String> {
        if model_only {
            Ok(Box::new(ModelEngine::new(c)))
        } else {
            warpforge_cosim::dtm_run::RtlEngine::new(c, &sets, seed)
                .map(|e| Box::new(e) as Box<dyn DtmEngine>)
        }
    };
    let mut cases = vec![];
    for k in kernels {
        let size = size_of(k, size_name(r))?;
        cases.push(run_dtm_case_modes(
            k, size, r.seed, &cfg, &modes, &asm, &mut make,
        ));
    }
    let passed = cases.iter().filter(|c| c.passed()).count();
    let failed = cases.len() - passed;
    let engine = if model_only { "model" } else { "rtl+model" };
    let (hm, n_hm) = harmonic_mean(&cases);
    if r.json {
        print_json(&json!({
            "dtm": cfg.module_name(),
            "params": params,
            "modes": {
                "table_scope": if modes.lane_tables { "lane" } else { "sm" },
                "lane_serial": modes.lane_serial as u8,
                "branch_eligible": modes.branch_eligible as u8,
                "fu_width": modes.fu_width,
                "group_skip": modes.group_skip as u8,
            },
            "engine": engine,
            "size": size_name(r),
            "seed": r.seed,
            "kernels": cases.iter().map(case_json).collect::<Vec<_>>(),
            "reuse_harmonic_mean_pct": hm,
            "reuse_harmonic_mean_kernels": n_hm,
            "passed": passed,
            "failed": failed,
        }));
    } else {
        outln!("DTM {} ({engine})", cfg.module_name());
        if modes != DtmModes::default() {
            outln!(
                "modes: table_scope {}, lane_serial {}, branch_eligible {}, fu_width {}, group_skip {}",
                if modes.lane_tables { "lane" } else { "sm" },
                modes.lane_serial as u8,
                modes.branch_eligible as u8,
                modes.fu_width,
                modes.group_skip as u8
            );
        }
        outln!("{HEADER}");
        for c in &cases {
            outln!("{}", case_line(c));
        }
        outln!("reuse harmonic mean {hm:.1}% over the {n_hm} kernels with reuse");
        outln!("{passed} passed, {failed} failed");
    }
    match cases.iter().find(|c| !c.passed()) {
        None => Ok(()),
        Some(c) => Err(IsaFail {
            status: 1,
            message: format!(
                "{failed} of {} kernels failed in DTM mode; first: {}: {}",
                cases.len(),
                c.kernel,
                c.error.as_deref().unwrap_or("")
            ),
        }),
    }
}
