//! The ISA subcommands: `asm`, `disasm` and `run` (reference interpreter, kernel suite and
//! interpreter throughput bench). See docs/isa.md.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use serde_json::{json, Map, Value};
use warpforge_testbench::isa::kernels::{self, Kernel, SUITE};
use warpforge_testbench::isa::suite::{self, default_stack_depth, CaseResult, Mode};
use warpforge_testbench::isa::warp::{run_warps, TraceRow, WarpOptions, WarpStats};
use warpforge_testbench::isa::{assemble, disassemble, AsmOptions, Launch, Machine, Program};

#[derive(clap::Subcommand)]
pub enum IsaCommand {
    /// Assemble a kernel (.s) into a binary image (.wfk).
    Asm(AsmArgs),
    /// Disassemble a binary image (or an assembly file) to assembly text.
    Disasm(DisasmArgs),
    /// Run a kernel on the reference interpreter, or the kernel suite (--suite).
    Run(RunArgs),
}

#[derive(Args)]
pub struct AsmArgs {
    /// Assembly source.
    pub file: PathBuf,
    /// Output image (default: the source with extension .wfk).
    #[arg(short, long)]
    pub out: Option<PathBuf>,
    /// Insert `bar.synch_partner` before every global load and store (DWR's compiler pass).
    #[arg(long)]
    pub dwr: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct DisasmArgs {
    /// Binary image (.wfk) or assembly source.
    pub file: PathBuf,
    /// With an assembly source: apply DWR's pass first.
    #[arg(long)]
    pub dwr: bool,
}

#[derive(Args, Clone)]
pub struct RunArgs {
    /// A suite kernel name (see --list), an assembly file or a binary image.
    pub kernel: Option<String>,
    /// Launch description (JSON: grid, block, params, buffers); files only.
    #[arg(long)]
    pub launch: Option<PathBuf>,
    /// Grid dimensions X[,Y[,Z]] when no launch file is given.
    #[arg(long)]
    pub grid: Option<String>,
    /// Block dimensions X[,Y[,Z]] when no launch file is given (default 32).
    #[arg(long)]
    pub block: Option<String>,
    /// Run every suite kernel and check it against its host reference.
    #[arg(long)]
    pub suite: bool,
    /// List the suite kernels.
    #[arg(long)]
    pub list: bool,
    /// Suite problem size: small, large or a number (kernel-specific meaning). Default
    /// small (large with --bench).
    #[arg(long)]
    pub size: Option<String>,
    /// thread, warp, or all (suite default: thread and warp-level with warps of 8 and 32).
    #[arg(long)]
    pub mode: Option<String>,
    /// Warp size of the warp-level mode (1..=64; default 32).
    #[arg(long)]
    pub warp_size: Option<u32>,
    /// SIMT stack entries per warp in warp mode, 1..=4096 (default 4 x warp size + 16).
    #[arg(long, value_parser = stack_depth_arg)]
    pub stack_depth: Option<usize>,
    /// Per-thread (per-warp) instruction limit (suite kernels and files; at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: Option<u64>,
    /// Seed of the suite's input generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Assemble with DWR's partner barriers before global loads and stores.
    #[arg(long)]
    pub dwr: bool,
    /// Print every warp issue with the stack after it (warp mode, first 10000 issues).
    #[arg(long)]
    pub trace: bool,
    /// With --suite: measure interpreter throughput (thread-instructions per second) in
    /// thread mode and warp mode, at --size (default large when --bench is given).
    #[arg(long)]
    pub bench: bool,
    /// Run on the SM RTL under Verilator, every retired warp-instruction checked against the
    /// interpreter (configure the SM with --set, e.g. --set warps=8).
    #[arg(long)]
    pub rtl: bool,
    /// Run in CROWN mode (spec/crown.md §3): the `crown` unit regroups the warps; the
    /// kernel's output is checked and SBR-32 and SBR-8 run beside it (configure with --set).
    #[arg(long)]
    pub crown: bool,
    /// Run in DTM mode (spec/dtm.md §3.5): the `dtm` top decides reuse per warp instruction;
    /// the kernel's output is checked (configure with --set).
    #[arg(long)]
    pub dtm: bool,
    /// With --crown or --dtm: the model alone makes the decisions (default: the RTL under
    /// Verilator, in lockstep with the model on every output).
    #[arg(long)]
    pub model_only: bool,
    /// With --rtl: an SM parameter; with --crown: a `crown` parameter or pipe_latency,
    /// mem_latency, max_blocks, merge_scope=any|cta (repeatable; see `warpforge units`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// With --rtl: write a VCD waveform of the run (a tracing build) to this file.
    #[arg(long)]
    pub wave: Option<PathBuf>,
    /// With --wave: the first cycle written (a failure report names one).
    #[arg(long, default_value_t = 0)]
    pub wave_from: u64,
    /// With --rtl: run this many seeded random programs (seeds --seed, --seed + 1, …)
    /// instead of a kernel.
    #[arg(long, value_name = "COUNT")]
    pub random: Option<u64>,
    /// With --rtl: cycles after start before a kernel counts as not terminating (exit 1).
    #[arg(long)]
    pub max_cycles: Option<u64>,
    #[arg(long)]
    pub json: bool,
}

/// Most SIMT stack entries per warp `--stack-depth` accepts.
pub const MAX_STACK_DEPTH: usize = 4096;

fn stack_depth_arg(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(d) if (1..=MAX_STACK_DEPTH).contains(&d) => Ok(d),
        _ => Err(format!("must be 1..={MAX_STACK_DEPTH}")),
    }
}

/// Err(message) → the caller prints `error: {message}` on one line and exits with status 2.
/// Why an ISA command failed: exit status 1 when kernels ran and a check failed, 2 for bad
/// input (the default for every plain message).
pub struct IsaFail {
    pub status: u8,
    pub message: String,
}

impl From<String> for IsaFail {
    fn from(message: String) -> IsaFail {
        IsaFail { status: 2, message }
    }
}

impl From<&str> for IsaFail {
    fn from(message: &str) -> IsaFail {
        message.to_string().into()
    }
}

pub fn execute(cmd: IsaCommand) -> Result<(), IsaFail> {
    match cmd {
        IsaCommand::Asm(a) => Ok(asm(a)?),
        IsaCommand::Disasm(d) => Ok(disasm(d)?),
        IsaCommand::Run(r) => run(r),
    }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// A program from an assembly file or a binary image.
fn load_program(path: &Path, opts: &AsmOptions) -> Result<Program, String> {
    let bytes = read(path)?;
    if Program::is_binary(&bytes) {
        return Program::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        format!(
            "{}: neither a kernel image nor UTF-8 assembly",
            path.display()
        )
    })?;
    assemble(&text, &path.display().to_string(), opts).map_err(|e| e.to_string())
}

fn asm(a: AsmArgs) -> Result<(), String> {
    let opts = AsmOptions { dwr_partner: a.dwr };
    let bytes = read(&a.file)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{}: not UTF-8 assembly text", a.file.display()))?;
    let p = assemble(&text, &a.file.display().to_string(), &opts).map_err(|e| e.to_string())?;
    let out = a.out.unwrap_or_else(|| a.file.with_extension("wfk"));
    warpforge_cosim::outpath::check_writable("--out", &out)?;
    warpforge_cosim::outpath::write_file("--out", &out, &p.to_bytes())?;
    let partners = p
        .code
        .iter()
        .filter(|i| i.op == warpforge_contract::isa::Op::BarPartner)
        .count();
    if a.json {
        crate::out::json(&json!({
            "kernel": p.name, "instructions": p.code.len(), "regs": p.regs,
            "shared_bytes": p.shared_bytes, "params": p.params,
            "partner_barriers": partners, "output": out.display().to_string(),
        }));
    } else {
        outln!(
            "{}: {} instructions, {} registers, {} B shared, params [{}] -> {}",
            p.name,
            p.code.len(),
            p.regs,
            p.shared_bytes,
            p.params.join(", "),
            out.display()
        );
    }
    Ok(())
}

fn disasm(d: DisasmArgs) -> Result<(), String> {
    let p = load_program(&d.file, &AsmOptions { dwr_partner: d.dwr })?;
    out!("{}", disassemble(&p));
    Ok(())
}

/// The modes a run covers.
fn modes(r: &RunArgs, suite_default: bool) -> Result<Vec<Mode>, String> {
    let w = r.warp_size.unwrap_or(32);
    if !(1..=64).contains(&w) {
        return Err(format!("--warp-size {w}: must be 1..=64"));
    }
    Ok(match r.mode.as_deref() {
        None if suite_default && r.warp_size.is_none() => {
            vec![Mode::Thread, Mode::Warp(8), Mode::Warp(32)]
        }
        None if suite_default => vec![Mode::Thread, Mode::Warp(w)],
        None | Some("thread") => vec![Mode::Thread],
        Some("warp") => vec![Mode::Warp(w)],
        Some("all") => vec![Mode::Thread, Mode::Warp(w)],
        Some(m) => return Err(format!("--mode {m}: expected thread, warp or all")),
    })
}

/// The size of a suite kernel: small, large or a number.
pub(crate) fn size_of(k: &Kernel, size: &str) -> Result<u32, String> {
    match size {
        "small" => Ok(k.sizes[0]),
        "large" => Ok(k.sizes[1]),
        n => {
            let v = n.parse().map_err(|_| {
                format!(
                    "--size {n}: expected small, large or a number ({} takes {})",
                    k.name, k.size_range
                )
            })?;
            // Out-of-range sizes are bad input, not a failed case: ask the generator first.
            (k.make)(v, 0).map_err(|e| format!("--size {n}: {e}"))?;
            Ok(v)
        }
    }
}

fn dims(text: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("--{what} {text}: expected X[,Y[,Z]]"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p
            .trim()
            .parse()
            .map_err(|_| format!("--{what} {text}: expected X[,Y[,Z]] with positive integers"))?;
    }
    Ok(d)
}

fn run(r: RunArgs) -> Result<(), IsaFail> {
    if r.list {
        return Ok(list(r.json)?);
    }
    if r.crown && r.dtm {
        return Err("--crown and --dtm are two execution modes: give one".into());
    }
    if r.crown {
        if r.rtl || r.bench {
            return Err("--crown runs CROWN mode: not with --rtl or --bench".into());
        }
        if r.model_only {
            return crate::crown_cli::run_crown(&r, None);
        }
        let seed = r.seed;
        let make = move |c: &warpforge_contract::units::crown::CrownConfig| {
            warpforge_cosim::crown_run::RtlEngine::new(c, seed)
                .map(|e| Box::new(e) as Box<dyn warpforge_testbench::crown::Engine>)
        };
        return crate::crown_cli::run_crown(&r, Some(&make));
    }
    if r.dtm {
        if r.rtl || r.bench {
            return Err("--dtm runs DTM mode: not with --rtl or --bench".into());
        }
        return crate::dtm_cli::run_dtm(&r);
    }
    if r.model_only {
        return Err("--model-only goes with --crown or --dtm".into());
    }
    if r.rtl {
        return crate::sm_cli::run_rtl(&r);
    }
    if r.bench {
        return Ok(bench(&r)?);
    }
    if r.suite {
        if r.kernel.is_some() {
            return Err("give either a kernel or --suite, not both".into());
        }
        return run_suite(&r);
    }
    let Some(name) = r.kernel.clone() else {
        return Err(
            "run needs a kernel (suite name, .s file or .wfk image), --suite or --list".into(),
        );
    };
    if let Some(k) = kernels::find(&name) {
        if r.launch.is_some() || r.grid.is_some() || r.block.is_some() {
            return Err(IsaFail::from(format!(
                "`{name}` is a suite kernel: its launch comes from its generator (use --size); --launch/--grid/--block are for kernel files"
            )));
        }
        return run_suite_kernel(k, &r);
    }
    let path = Path::new(&name);
    if !path.exists() {
        return Err(IsaFail::from(format!(
            "`{name}` is neither a suite kernel ({}) nor a file",
            SUITE.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(run_file(path, &r)?)
}

fn list(as_json: bool) -> Result<(), String> {
    if as_json {
        let ks: Vec<Value> = SUITE
            .iter()
            .map(|k| {
                json!({"name": k.name, "class": k.class.name(), "size": k.size_means,
                       "small": k.sizes[0], "large": k.sizes[1], "range": k.size_range})
            })
            .collect();
        crate::out::json(&json!({ "kernels": ks }));
    } else {
        for k in SUITE {
            outln!(
                "{:<11} {:<10} small {:>6}  large {:>6}  size = {} ({})",
                k.name,
                k.class.name(),
                k.sizes[0],
                k.sizes[1],
                k.size_means,
                k.size_range
            );
        }
    }
    Ok(())
}

fn warp_json(w: &WarpStats) -> Value {
    json!({
        "warp_size": w.warp_size,
        "warp_instructions": w.warp_instructions,
        "active_lanes": w.active_lanes,
        "simd_efficiency": w.simd_efficiency(),
        "divergent_branches": w.divergent_branches,
        "barrier_waits": w.barrier_waits,
        "barriers": w.barriers,
        "partner_barriers": w.partner_barriers,
        "max_stack_depth": w.max_stack_depth,
    })
}

fn case_json(c: &CaseResult) -> Value {
    json!({
        "kernel": c.kernel,
        "size": c.size,
        "mode": c.mode.label(),
        "passed": c.passed(),
        "error": c.error,
        "thread_instructions": c.thread_instructions,
        "warp": c.warp.as_ref().map(warp_json),
        "seconds": c.seconds,
    })
}

fn case_line(c: &CaseResult) -> String {
    let warp = match &c.warp {
        Some(w) => format!(
            "{:>11} {:>6.1}% {:>8} {:>8}",
            w.warp_instructions,
            100.0 * w.simd_efficiency(),
            w.divergent_branches,
            w.barrier_waits
        ),
        None => format!("{:>11} {:>7} {:>8} {:>8}", "-", "-", "-", "-"),
    };
    format!(
        "{:<11} {:>7} {:<7} {:<5} {:>12} {} {:>8.3}s{}",
        c.kernel,
        c.size,
        c.mode.label(),
        if c.passed() { "ok" } else { "FAIL" },
        c.thread_instructions,
        warp,
        c.seconds,
        c.error
            .as_ref()
            .map(|e| format!("  {e}"))
            .unwrap_or_default()
    )
}

const CASE_HEADER: &str =
    "kernel         size mode    check  thread-instr  warp-instr    SIMD  div-brs bar-wait     time";

fn report_cases(cases: &[CaseResult], size: &str, as_json: bool) -> Result<(), IsaFail> {
    let failed: Vec<&CaseResult> = cases.iter().filter(|c| !c.passed()).collect();
    if as_json {
        crate::out::json(&json!({
            "size": size,
            "cases": cases.iter().map(case_json).collect::<Vec<_>>(),
            "passed": cases.len() - failed.len(),
            "failed": failed.len(),
        }));
    } else {
        outln!("{CASE_HEADER}");
        for c in cases {
            outln!("{}", case_line(c));
        }
        outln!(
            "{} passed, {} failed",
            cases.len() - failed.len(),
            failed.len()
        );
    }
    match failed.first() {
        None => Ok(()),
        Some(c) => Err(IsaFail {
            status: 1,
            message: format!(
                "{} of {} cases failed; first: {} size {} {}: {}",
                failed.len(),
                cases.len(),
                c.kernel,
                c.size,
                c.mode.label(),
                c.error.as_deref().unwrap_or("")
            ),
        }),
    }
}

fn run_suite(r: &RunArgs) -> Result<(), IsaFail> {
    let modes = modes(r, true)?;
    let opts = AsmOptions { dwr_partner: r.dwr };
    let mut cases = Vec::new();
    for k in SUITE {
        let size = size_of(k, size_name(r))?;
        for &m in &modes {
            cases.push(suite::run_case_with(
                k,
                size,
                r.seed,
                m,
                &opts,
                r.stack_depth,
                r.max_steps,
            ));
        }
    }
    report_cases(&cases, size_name(r), r.json)
}

pub(crate) fn size_name(r: &RunArgs) -> &str {
    r.size.as_deref().unwrap_or("small")
}

fn run_suite_kernel(k: &Kernel, r: &RunArgs) -> Result<(), IsaFail> {
    let modes = modes(r, true)?;
    let size = size_of(k, size_name(r))?;
    let opts = AsmOptions { dwr_partner: r.dwr };
    let cases: Vec<CaseResult> = modes
        .iter()
        .map(|&m| suite::run_case_with(k, size, r.seed, m, &opts, r.stack_depth, r.max_steps))
        .collect();
    report_cases(&cases, size_name(r), r.json)
}

fn bench(r: &RunArgs) -> Result<(), String> {
    if !r.suite {
        return Err("--bench measures the suite: use `run --suite --bench`".into());
    }
    let size_index = match r.size.as_deref().unwrap_or("large") {
        "small" => 0,
        "large" => 1,
        s => return Err(format!("--size {s}: the bench takes small or large")),
    };
    let w = r.warp_size.unwrap_or(32);
    let thread = suite::bench(size_index, Mode::Thread, r.seed)?;
    let warp = suite::bench(size_index, Mode::Warp(w), r.seed)?;
    if r.json {
        crate::out::json(&json!({
            "size": if size_index == 0 { "small" } else { "large" },
            "thread_mode": {
                "thread_instructions": thread.thread_instructions,
                "seconds": thread.seconds,
                "thread_instructions_per_sec": thread.thread_instructions_per_sec(),
            },
            "warp_mode": {
                "warp_size": w,
                "thread_instructions": warp.thread_instructions,
                "warp_instructions": warp.warp_instructions,
                "seconds": warp.seconds,
                "thread_instructions_per_sec": warp.thread_instructions_per_sec(),
                "warp_instructions_per_sec": warp.warp_instructions_per_sec(),
            },
        }));
    } else {
        outln!(
            "thread mode: {} thread-instructions in {:.3} s = {:.1} M thread-instructions/s",
            thread.thread_instructions,
            thread.seconds,
            thread.thread_instructions_per_sec() / 1e6
        );
        outln!(
            "warp mode (warp {w}): {} thread-instructions ({} warp-instructions) in {:.3} s = {:.1} M thread-instructions/s, {:.2} M warp-instructions/s",
            warp.thread_instructions,
            warp.warp_instructions,
            warp.seconds,
            warp.thread_instructions_per_sec() / 1e6,
            warp.warp_instructions_per_sec() / 1e6
        );
    }
    Ok(())
}

/// A kernel file's program and its launch (from --launch, or --grid/--block).
pub(crate) fn file_launch(path: &Path, r: &RunArgs) -> Result<(Program, Launch), String> {
    let program = load_program(path, &AsmOptions { dwr_partner: r.dwr })?;
    let mut launch = match &r.launch {
        Some(f) => {
            if r.grid.is_some() || r.block.is_some() {
                return Err("--grid/--block and --launch: give the dimensions in one place".into());
            }
            let text = String::from_utf8(read(f)?)
                .map_err(|_| format!("{}: not UTF-8 JSON", f.display()))?;
            Launch::from_json(&text).map_err(|e| format!("{}: {e}", f.display()))?
        }
        None => {
            if let Some(p) = program.params.first() {
                return Err(format!(
                    "kernel `{}` declares parameter `{p}`: give its value in a launch file (--launch FILE)",
                    program.name
                ));
            }
            let grid = r.grid.as_deref().map(|g| dims(g, "grid")).transpose()?;
            let block = r.block.as_deref().map(|b| dims(b, "block")).transpose()?;
            Launch::new(grid.unwrap_or([1, 1, 1]), block.unwrap_or([32, 1, 1]))
        }
    };
    if let Some(s) = r.max_steps {
        launch.max_steps = s;
    }
    Ok((program, launch))
}

fn run_file(path: &Path, r: &RunArgs) -> Result<(), String> {
    let (program, launch) = file_launch(path, r)?;
    let modes = modes(r, false)?;
    let mut results = Vec::new();
    for mode in modes {
        let mut m = Machine::new(&program, &launch).map_err(|f| f.to_string())?;
        let start = Instant::now();
        let (stats, trace): (Value, Vec<TraceRow>) = match mode {
            Mode::Thread => {
                let s = m.run().map_err(|f| f.to_string())?;
                (
                    json!({
                        "mode": "thread",
                        "thread_instructions": s.thread_instructions,
                        "blocks": s.blocks,
                        "threads": s.threads,
                        "barriers": s.barriers,
                        "partner_barriers": s.partner_barriers,
                    }),
                    Vec::new(),
                )
            }
            Mode::Warp(w) => {
                let mut o = WarpOptions::new(w);
                o.stack_depth = r.stack_depth.unwrap_or(default_stack_depth(w));
                o.trace = r.trace;
                let (s, t) = run_warps(&mut m, &o).map_err(|f| f.to_string())?;
                let mut j = warp_json(&s);
                j["mode"] = json!("warp");
                j["thread_instructions"] = json!(s.active_lanes);
                (j, t)
            }
        };
        let seconds = start.elapsed().as_secs_f64();
        let buffers: Map<String, Value> = launch
            .buffers
            .iter()
            .map(|b| (b.name.clone(), json!(m.buffer(&b.name).unwrap_or(&[]))))
            .collect();
        results.push((stats, seconds, buffers, trace, m));
    }
    if r.json {
        let runs: Vec<Value> = results
            .iter()
            .map(|(s, secs, bufs, trace, _)| {
                let mut s = s.clone();
                s["seconds"] = json!(secs);
                s["buffers"] = Value::Object(bufs.clone());
                if r.trace {
                    s["trace"] = json!(trace
                        .iter()
                        .take(10_000)
                        .map(|t| json!({
                            "block": t.block, "warp": t.warp, "pc": t.pc, "mask": t.mask,
                            "stack": t.stack.iter().map(|e| json!({"pc": e.pc, "mask": e.mask, "rpc": e.rpc})).collect::<Vec<_>>(),
                        }))
                        .collect::<Vec<_>>());
                }
                s
            })
            .collect();
        crate::out::json(&json!({ "kernel": program.name, "runs": runs }));
        return Ok(());
    }
    for (s, secs, bufs, trace, _) in &results {
        if r.trace {
            for t in trace.iter().take(10_000) {
                let stack: Vec<String> = t
                    .stack
                    .iter()
                    .map(|e| match e.rpc {
                        Some(rpc) => format!("({},{:#x},{})", e.pc, e.mask, rpc),
                        None => format!("({},{:#x},-)", e.pc, e.mask),
                    })
                    .collect();
                outln!(
                    "block {} warp {} issue pc {:>4} mask {:#018x}  stack {}",
                    t.block,
                    t.warp,
                    t.pc,
                    t.mask,
                    if stack.is_empty() {
                        "empty".to_string()
                    } else {
                        stack.join(" ")
                    }
                );
            }
        }
        let summary: Vec<String> = s
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| match v.as_f64() {
                Some(f) if k == "simd_efficiency" => format!("{k} {:.1}%", 100.0 * f),
                _ => format!("{k} {v}"),
            })
            .collect();
        outln!("{}: {} ({:.3} s)", program.name, summary.join(", "), secs);
        for (name, words) in bufs {
            let words = words.as_array().unwrap();
            let shown: Vec<String> = words.iter().take(32).map(|w| w.to_string()).collect();
            let more = if words.len() > 32 {
                format!(" … ({} words)", words.len())
            } else {
                String::new()
            };
            outln!("  {name}: [{}]{more}", shown.join(", "));
        }
    }
    Ok(())
}
