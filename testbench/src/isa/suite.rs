//! The suite runner: assemble a kernel, generate its launch, run it in thread mode or warp
//! mode, check the result against the host reference; and the interpreter throughput bench.

use std::time::Instant;

use super::asm::{assemble, AsmOptions};
use super::interp::Machine;
use super::kernels::{Kernel, SUITE};
pub use super::warp::default_stack_depth;
use super::warp::{run_warps, WarpOptions, WarpStats};
use super::Program;

/// How a case runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Thread,
    /// Warp-level mode with this warp size.
    Warp(u32),
}

impl Mode {
    pub fn label(self) -> String {
        match self {
            Mode::Thread => "thread".into(),
            Mode::Warp(w) => format!("warp{w}"),
        }
    }
}

/// The outcome of one kernel × size × mode.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub kernel: &'static str,
    pub size: u32,
    pub mode: Mode,
    /// None when the run completed and the host check passed.
    pub error: Option<String>,
    /// Thread-instructions executed (warp mode: active lane slots).
    pub thread_instructions: u64,
    pub warp: Option<WarpStats>,
    pub seconds: f64,
}

impl CaseResult {
    pub fn passed(&self) -> bool {
        self.error.is_none()
    }
}

/// Assembles a suite kernel (the embedded source).
pub fn program(k: &Kernel, opts: &AsmOptions) -> Result<Program, String> {
    assemble(k.source, &format!("kernels/{}.s", k.name), opts).map_err(|e| e.to_string())
}

/// Runs one case: generate, run, check.
pub fn run_case(k: &Kernel, size: u32, seed: u64, mode: Mode, opts: &AsmOptions) -> CaseResult {
    run_case_with(k, size, seed, mode, opts, None, None)
}

/// As [`run_case`], with a given stack depth for warp mode (default 4·warp size + 16) and a
/// given per-thread (per-warp) instruction limit (default the launch's).
pub fn run_case_with(
    k: &Kernel,
    size: u32,
    seed: u64,
    mode: Mode,
    opts: &AsmOptions,
    stack_depth: Option<usize>,
    max_steps: Option<u64>,
) -> CaseResult {
    let mut r = CaseResult {
        kernel: k.name,
        size,
        mode,
        error: None,
        thread_instructions: 0,
        warp: None,
        seconds: 0.0,
    };
    let prepared = program(k, opts).and_then(|p| {
        let mut launch = (k.make)(size, seed)?;
        if let Some(s) = max_steps {
            launch.max_steps = s;
        }
        let m = Machine::new(&p, &launch).map_err(|f| f.to_string())?;
        Ok((launch, m))
    });
    let (launch, mut m) = match prepared {
        Ok(x) => x,
        Err(e) => {
            r.error = Some(e);
            return r;
        }
    };
    let start = Instant::now();
    let run = match mode {
        Mode::Thread => m.run().map(|s| {
            r.thread_instructions = s.thread_instructions;
        }),
        Mode::Warp(w) => {
            let mut o = WarpOptions::new(w);
            o.stack_depth = stack_depth.unwrap_or(default_stack_depth(w));
            run_warps(&mut m, &o).map(|(s, _)| {
                r.thread_instructions = s.active_lanes;
                r.warp = Some(s);
            })
        }
    };
    r.seconds = start.elapsed().as_secs_f64();
    r.error = match run {
        Err(f) => Some(f.to_string()),
        Ok(()) => (k.check)(&launch, &m).err(),
    };
    r
}

/// Every suite kernel at `size_index` (0 small, 1 large) in the given modes.
pub fn run_suite(
    size_index: usize,
    modes: &[Mode],
    seed: u64,
    opts: &AsmOptions,
) -> Vec<CaseResult> {
    let mut out = Vec::new();
    for k in SUITE {
        for &mode in modes {
            out.push(run_case(k, k.sizes[size_index.min(1)], seed, mode, opts));
        }
    }
    out
}

/// Interpreter throughput over the whole suite at one size.
#[derive(Clone, Debug)]
pub struct Bench {
    pub mode: Mode,
    pub thread_instructions: u64,
    pub warp_instructions: u64,
    pub seconds: f64,
}

impl Bench {
    pub fn thread_instructions_per_sec(&self) -> f64 {
        self.thread_instructions as f64 / self.seconds.max(1e-9)
    }
    pub fn warp_instructions_per_sec(&self) -> f64 {
        self.warp_instructions as f64 / self.seconds.max(1e-9)
    }
}

/// Times the run phase of every suite kernel (not generation or checking) in `mode`.
/// Errors if any case fails.
pub fn bench(size_index: usize, mode: Mode, seed: u64) -> Result<Bench, String> {
    let mut b = Bench {
        mode,
        thread_instructions: 0,
        warp_instructions: 0,
        seconds: 0.0,
    };
    for k in SUITE {
        let r = run_case(
            k,
            k.sizes[size_index.min(1)],
            seed,
            mode,
            &AsmOptions::default(),
        );
        if let Some(e) = r.error {
            return Err(format!("{} ({}): {e}", k.name, mode.label()));
        }
        b.thread_instructions += r.thread_instructions;
        b.warp_instructions += r.warp.map_or(0, |w| w.warp_instructions);
        b.seconds += r.seconds;
    }
    Ok(b)
}

/// The outcome of one kernel in CROWN mode, beside SBR-32 and SBR-8 on the same launch.
#[derive(Clone, Debug)]
pub struct CrownCase {
    pub kernel: &'static str,
    pub size: u32,
    /// Why the kernel does not fit the configuration.
    pub skipped: Option<String>,
    /// None when CROWN ran and the host check passed.
    pub error: Option<String>,
    pub crown: Option<super::crown::CrownStats>,
    pub sbr32: Option<WarpStats>,
    pub sbr8: Option<WarpStats>,
    pub seconds: f64,
}

impl CrownCase {
    pub fn passed(&self) -> bool {
        self.skipped.is_none() && self.error.is_none()
    }
}

/// Runs one kernel with `engine` making CROWN's decisions, checks its output against the host
/// reference (§7.2.1), and runs SBR-32 and SBR-8 on the same launch for comparison.
pub fn run_crown_case(
    k: &Kernel,
    size: u32,
    seed: u64,
    opts: &super::crown::CrownOptions,
    asm: &AsmOptions,
    engine: &mut dyn crate::crown::Engine,
) -> CrownCase {
    use super::crown::{run_crown, CrownError};
    let mut r = CrownCase {
        kernel: k.name,
        size,
        skipped: None,
        error: None,
        crown: None,
        sbr32: None,
        sbr8: None,
        seconds: 0.0,
    };
    let prepared = program(k, asm).and_then(|p| {
        let launch = (k.make)(size, seed)?;
        let m = Machine::new(&p, &launch).map_err(|f| f.to_string())?;
        Ok((launch, m))
    });
    let (launch, mut m) = match prepared {
        Ok(x) => x,
        Err(e) => {
            r.error = Some(e);
            return r;
        }
    };
    let start = Instant::now();
    match run_crown(&mut m, opts, engine) {
        Ok(s) => {
            r.crown = Some(s);
            r.error = (k.check)(&launch, &m).err();
        }
        Err(CrownError::Skip(why)) => r.skipped = Some(why),
        Err(e) => r.error = Some(e.to_string()),
    }
    r.seconds = start.elapsed().as_secs_f64();
    for (ws, slot) in [(32, &mut r.sbr32), (8, &mut r.sbr8)] {
        let c = run_case(k, size, seed, Mode::Warp(ws), asm);
        match c.error {
            None => *slot = c.warp,
            Some(e) if r.error.is_none() && r.skipped.is_none() => {
                r.error = Some(format!("SBR-{ws}: {e}"))
            }
            Some(_) => {}
        }
    }
    r
}

/// The outcome of one kernel in DTM mode.
#[derive(Clone, Debug)]
pub struct DtmCase {
    pub kernel: &'static str,
    pub size: u32,
    /// None when the run completed, the host check passed and the counts equal warp mode's.
    pub error: Option<String>,
    pub stats: Option<super::dtm::DtmStats>,
    pub seconds: f64,
}

impl DtmCase {
    pub fn passed(&self) -> bool {
        self.error.is_none()
    }
}

/// Runs one kernel in DTM mode: the top sized for the kernel's block (`cfg.with_warps`),
/// its engine from `make`; checks the outputs against the host reference (I1) and the
/// counts against warp mode at the same warp size (I7).
pub fn run_dtm_case(
    k: &Kernel,
    size: u32,
    seed: u64,
    cfg: &warpforge_contract::units::dtm_top::DtmConfig,
    asm: &AsmOptions,
    make: &mut super::dtm::MakeEngine,
) -> DtmCase {
    let modes = warpforge_contract::units::dtm_top::DtmModes::default();
    run_dtm_case_modes(k, size, seed, cfg, &modes, asm, make)
}

/// [`run_dtm_case`] under the execution mode's analysis and cycle-model modes; with
/// `table_scope = lane` `make` is called once per lane with the lane's table
/// configuration (`DtmConfig::lane_table`).
pub fn run_dtm_case_modes(
    k: &Kernel,
    size: u32,
    seed: u64,
    cfg: &warpforge_contract::units::dtm_top::DtmConfig,
    modes: &warpforge_contract::units::dtm_top::DtmModes,
    asm: &AsmOptions,
    make: &mut super::dtm::MakeEngine,
) -> DtmCase {
    use super::dtm::{check_counts, run_dtm_modes, warps_needed};
    let mut r = DtmCase {
        kernel: k.name,
        size,
        error: None,
        stats: None,
        seconds: 0.0,
    };
    let prepared = program(k, asm).and_then(|p| {
        let launch = (k.make)(size, seed)?;
        let m = Machine::new(&p, &launch).map_err(|f| f.to_string())?;
        Ok((launch, m))
    });
    let (launch, mut m) = match prepared {
        Ok(x) => x,
        Err(e) => {
            r.error = Some(e);
            return r;
        }
    };
    let start = Instant::now();
    let c = cfg.with_warps(warps_needed(&m, cfg));
    let (n, ec) = if modes.lane_tables {
        (c.simd, c.lane_table())
    } else {
        (1, c.clone())
    };
    let run = (0..n)
        .map(|_| make(&ec))
        .collect::<Result<Vec<_>, String>>()
        .and_then(|mut es| {
            let engines: Vec<&mut dyn super::dtm::DtmEngine> =
                es.iter_mut().map(|e| &mut **e as _).collect();
            run_dtm_modes(&mut m, &c, modes, engines)
        });
    r.seconds = start.elapsed().as_secs_f64();
    match run {
        Err(e) => r.error = Some(e),
        Ok(s) => {
            r.error = (k.check)(&launch, &m).err().map(|e| format!("I1: {e}"));
            if r.error.is_none() {
                let base = run_case(k, size, seed, Mode::Warp(cfg.simd as u32), asm);
                r.error = match (&base.error, &base.warp) {
                    (Some(e), _) => Some(format!("warp mode: {e}")),
                    (None, Some(w)) => check_counts(&s, w).err(),
                    (None, None) => Some("warp mode gave no counts".into()),
                };
            }
            r.stats = Some(s);
        }
    }
    r
}
