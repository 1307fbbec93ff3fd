//! `run --rtl`: kernels on the SM RTL under Verilator, every retired warp-instruction checked
//! against the interpreter (cosim::sm_run), results against the host reference.

use crate::isa_cli::{file_launch, size_name, size_of, IsaFail, RunArgs};
use serde_json::{json, Value};
use std::path::Path;
use warpforge_contract::units::sm::{self, SmConfig};
use warpforge_contract::Params;
use warpforge_cosim::sm_run::{self, random_options, SmFailure, SmRunOptions, SmStats};
use warpforge_testbench::isa::kernels::{self, Kernel, SUITE};
use warpforge_testbench::isa::launch::Launch;
use warpforge_testbench::isa::suite::program as suite_program;
use warpforge_testbench::isa::{AsmOptions, Machine, Program};
use warpforge_testbench::sm::random_program;

/// The SM configuration from `--set` (bad input: exit 2).
pub fn sm_config(sets: &[String]) -> Result<(SmConfig, Params), String> {
    let params = Params::resolve(sm::NAME, sm::PARAMS, None, sets).map_err(|e| e.0)?;
    let cfg = SmConfig::from_params(&params).map_err(|e| e.0)?;
    Ok((cfg, params))
}

/// One kernel's outcome.
struct Case {
    kernel: String,
    size: Option<u32>,
    /// Some(reason) when the kernel does not fit the SM (not run).
    skipped: Option<String>,
    result: Result<SmStats, SmFailure>,
}

impl Case {
    fn passed(&self) -> bool {
        self.skipped.is_none() && self.result.is_ok()
    }
}

fn replay(r: &RunArgs, kernel: &str, size: Option<u32>, f: &SmFailure) -> Option<String> {
    let from = f.wave_from()?;
    // A random program's seed is in its name (`random:SEED`).
    let (mut cmd, seed) = match kernel.strip_prefix("random:") {
        Some(s) => (
            "warpforge run --rtl --random 1".to_string(),
            s.parse().unwrap_or(r.seed),
        ),
        None => (format!("warpforge run {kernel} --rtl"), r.seed),
    };
    if let Some(s) = size {
        cmd += &format!(" --size {s}");
    }
    cmd += &format!(" --seed {seed}");
    for s in &r.set {
        cmd += &format!(" --set {s}");
    }
    if let Some(m) = r.max_cycles {
        cmd += &format!(" --max-cycles {m}");
    }
    let kernel = kernel.replace(':', "-");
    let stem = Path::new(&kernel)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "sm".into());
    Some(format!(
        "{cmd} --wave {stem}-seed{seed}.vcd --wave-from {from}"
    ))
}

#[allow(clippy::too_many_arguments)]
fn run_one(
    cfg: &SmConfig,
    design: &warpforge_hdl::Design,
    manifest: &warpforge_contract::Manifest,
    name: &str,
    size: Option<u32>,
    program: &Program,
    launch: &Launch,
    check: Option<fn(&Launch, &Machine) -> Result<(), String>>,
    r: &RunArgs,
) -> Case {
    // A kernel that does not fit is refused before anything runs.
    if let Err(e) = sm_run::fits(cfg, program, launch) {
        return Case {
            kernel: name.into(),
            size,
            skipped: Some(e),
            result: Err(SmFailure::Result(String::new())),
        };
    }
    let mut opts = SmRunOptions::new(r.seed);
    if let Some(m) = r.max_cycles {
        opts.max_cycles = m;
    }
    opts.wave = r.wave.clone();
    opts.wave_from = r.wave_from;
    opts.progress = !r.json;
    Case {
        kernel: name.into(),
        size,
        skipped: None,
        result: sm_run::run(cfg, design, manifest, program, launch, check, &opts),
    }
}

fn case_json(c: &Case, r: &RunArgs) -> Value {
    let mut j = json!({
        "kernel": c.kernel,
        "size": c.size,
        "passed": c.passed(),
        "skipped": c.skipped,
    });
    match (&c.skipped, &c.result) {
        (Some(_), _) => {}
        (None, Ok(s)) => j["stats"] = json!(s),
        (None, Err(f)) => {
            j["error"] = json!(f.to_string());
            j["replay"] = json!(replay(r, &c.kernel, c.size, f));
        }
    }
    j
}

fn case_line(c: &Case) -> String {
    let size = c.size.map(|s| s.to_string()).unwrap_or_default();
    match (&c.skipped, &c.result) {
        (Some(why), _) => format!("{:<11} {:>7} SKIP  {why}", c.kernel, size),
        (None, Ok(s)) => format!(
            "{:<11} {:>7} ok   {:>10} {:>10} {:>6.3} {:>6.1}% {:>9} {:>9} {:>9} {:>9} {:>9.0}",
            c.kernel,
            size,
            s.cycles,
            s.warp_instructions,
            s.ipc,
            100.0 * s.simd_utilisation,
            s.stall_scoreboard,
            s.stall_memory,
            s.stall_barrier,
            s.stall_idle,
            s.cycles_per_sec
        ),
        (None, Err(f)) => format!("{:<11} {:>7} FAIL {f}", c.kernel, size),
    }
}

const HEADER: &str = "kernel         size check    cycles  warp-inst    IPC   SIMD  stall-sb stall-mem stall-bar stall-idl  cycles/s";

pub fn run_rtl(r: &RunArgs) -> Result<(), IsaFail> {
    if r.mode.is_some() || r.warp_size.is_some() || r.stack_depth.is_some() || r.trace {
        return Err(
            "--rtl runs on the SM: configure it with --set (warp_size, stack_depth, …), not --mode/--warp-size/--stack-depth/--trace"
                .into(),
        );
    }
    if r.max_cycles == Some(0) {
        return Err("--max-cycles 0: must be at least 1".into());
    }
    if r.wave.is_some() && r.suite {
        return Err("--wave records one kernel: give a kernel, not --suite".into());
    }
    let (cfg, params) = sm_config(&r.set)?;
    let design = warpforge_hdl::sm::generate(&cfg);
    let manifest = cfg.manifest(&params);
    let opts = AsmOptions { dwr_partner: r.dwr };
    let mut cases = Vec::new();
    if let Some(n) = r.random {
        if r.suite || r.kernel.is_some() || n == 0 {
            return Err(
                "--random COUNT (at least 1) runs random programs: give no kernel and no --suite"
                    .into(),
            );
        }
        for seed in r.seed..r.seed.saturating_add(n) {
            let (program, launch) = random_program(seed, random_options(&cfg));
            let name = format!("random:{seed}");
            let mut one = RunArgs { seed, ..r.clone() };
            one.random = None;
            cases.push(run_one(
                &cfg, &design, &manifest, &name, None, &program, &launch, None, &one,
            ));
        }
    } else if r.suite {
        if r.kernel.is_some() {
            return Err("give either a kernel or --suite, not both".into());
        }
        for k in SUITE {
            let size = size_of(k, size_name(r))?;
            cases.push(suite_case(k, size, &cfg, &design, &manifest, &opts, r)?);
        }
    } else {
        let Some(name) = r.kernel.clone() else {
            return Err(
                "run --rtl needs a kernel (suite name, .s file or .wfk image) or --suite".into(),
            );
        };
        if let Some(k) = kernels::find(&name) {
            if r.launch.is_some() || r.grid.is_some() || r.block.is_some() {
                return Err(IsaFail::from(format!(
                    "`{name}` is a suite kernel: its launch comes from its generator (use --size); --launch/--grid/--block are for kernel files"
                )));
            }
            let size = size_of(k, size_name(r))?;
            cases.push(suite_case(k, size, &cfg, &design, &manifest, &opts, r)?);
        } else {
            let path = Path::new(&name);
            if !path.exists() {
                return Err(IsaFail::from(format!(
                    "`{name}` is neither a suite kernel ({}) nor a file",
                    SUITE.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
                )));
            }
            let (program, launch) = file_launch(path, r)?;
            cases.push(run_one(
                &cfg, &design, &manifest, &name, None, &program, &launch, None, r,
            ));
        }
        // A single kernel that does not fit is bad input.
        if let Some(why) = &cases[0].skipped {
            return Err(IsaFail::from(format!(
                "kernel `{name}` does not fit the SM ({}): {why}",
                cfg.module_name()
            )));
        }
    }
    report(&cases, &cfg, r)
}

fn suite_case(
    k: &Kernel,
    size: u32,
    cfg: &SmConfig,
    design: &warpforge_hdl::Design,
    manifest: &warpforge_contract::Manifest,
    opts: &AsmOptions,
    r: &RunArgs,
) -> Result<Case, IsaFail> {
    let program = suite_program(k, opts)?;
    let mut launch = (k.make)(size, r.seed)?;
    if let Some(s) = r.max_steps {
        launch.max_steps = s;
    }
    Ok(run_one(
        cfg,
        design,
        manifest,
        k.name,
        Some(size),
        &program,
        &launch,
        Some(k.check),
        r,
    ))
}

fn report(cases: &[Case], cfg: &SmConfig, r: &RunArgs) -> Result<(), IsaFail> {
    let passed = cases.iter().filter(|c| c.passed()).count();
    let skipped = cases.iter().filter(|c| c.skipped.is_some()).count();
    let failed = cases.len() - passed - skipped;
    if r.json {
        println!(
            "{}",
            json!({
                "sm": cfg.module_name(),
                "seed": r.seed,
                "kernels": cases.iter().map(|c| case_json(c, r)).collect::<Vec<_>>(),
                "passed": passed,
                "failed": failed,
                "skipped": skipped,
            })
        );
    } else {
        println!("SM {}", cfg.module_name());
        println!("{HEADER}");
        for c in cases {
            println!("{}", case_line(c));
            if let Err(f) = &c.result {
                if c.skipped.is_none() {
                    if let Some(cmd) = replay(r, &c.kernel, c.size, f) {
                        println!("  replay with waveform: {cmd}");
                    }
                }
            }
        }
        println!("{passed} passed, {failed} failed, {skipped} skipped");
    }
    match cases.iter().find(|c| !c.passed() && c.skipped.is_none()) {
        None => Ok(()),
        Some(c) => Err(IsaFail {
            status: 1,
            message: format!(
                "{failed} of {} kernels failed on the SM RTL; first: {}: {}",
                cases.len(),
                c.kernel,
                c.result
                    .as_ref()
                    .err()
                    .map(|f| f.to_string())
                    .unwrap_or_default()
            ),
        }),
    }
}
