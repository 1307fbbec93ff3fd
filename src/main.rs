//! `warpforge`: generate, lint, co-simulate, measure and regress the warpforge units.
//!
//! Exit status: 0 success; 1 a check failed (lint, lockstep mismatch, regression failure, a
//! suite kernel failing its check);
//! 2 bad input or a missing tool, with one line `error: …` on stderr.

mod isa_cli;

use clap::{Args, Parser, Subcommand};
use serde_json::json;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use warpforge_cosim::lockstep::{self, Options, Source};
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::{area, bench, icarus, lint, regress};

#[derive(Parser)]
#[command(
    name = "warpforge",
    version,
    about = "Synthesizable Verilog for GPU SM mechanisms, proven by lockstep co-simulation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every generatable unit with its parameters and defaults.
    Units {
        #[arg(long)]
        json: bool,
    },
    /// Write Verilog and a manifest (ports, parameters, tables) for a unit configuration.
    Generate {
        #[command(flatten)]
        target: Target,
        /// Output directory.
        #[arg(long, default_value = ".")]
        out: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Verilator -Wall lint, Icarus parse, Yosys latch and loop check, port check, and a
    /// lockstep trace replayed under Icarus with every output compared.
    Lint {
        #[command(flatten)]
        target: Target,
        /// Replay this `cosim --dump` file under Icarus (default: 2000 cycles of the unit's
        /// own stimulus, seed 1, with the model's outputs expected).
        #[arg(long, value_name = "DUMP")]
        replay: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Lockstep co-simulation of the RTL (Verilator) against the reference model.
    Cosim {
        #[command(flatten)]
        target: Target,
        #[command(flatten)]
        run: CosimArgs,
        #[arg(long)]
        json: bool,
    },
    /// Storage bits (per table, by class, share of a 128 KB SM), Yosys cells and transistor
    /// estimate, FPGA resources; with --over, the overhead over a baseline configuration.
    Area {
        #[command(flatten)]
        target: Target,
        /// Also measure a baseline, the same configuration with this override (repeatable),
        /// and report the difference (e.g. `--over policy=gto`).
        #[arg(long = "over", value_name = "KEY=VALUE")]
        over: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Throughput of raw Verilator, the model alone and lockstep; build times.
    Bench {
        #[command(flatten)]
        target: Target,
        /// Cycles per measurement.
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Skip the cold build measurement (it rebuilds in an empty cache).
        #[arg(long)]
        no_cold_build: bool,
        #[arg(long)]
        json: bool,
    },
    /// Run a regression: units × configs × seeds and every spec vector.
    Regress {
        /// quick (≥10^6 cycles per unit and per policy), full (≥10^7 each) or vectors.
        #[arg(long, default_value = "full")]
        suite: String,
        /// Worker threads.
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        /// Run only slice I of N (0 ≤ I < N) of the job list.
        #[arg(long)]
        shard: Option<String>,
        /// Write JUnit XML results here.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// List the jobs instead of running them.
        #[arg(long)]
        list: bool,
        #[arg(long)]
        json: bool,
    },
    /// The main job: generate, lint, co-simulate and report area for units (all by default).
    Flow {
        /// Unit names or config files; none means every unit's default configuration.
        targets: Vec<String>,
        /// Lockstep cycles per unit.
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        /// Directory for the generated Verilog and manifests.
        #[arg(long, default_value = "flow-out")]
        out: PathBuf,
        #[arg(long)]
        json: bool,
    },
    #[command(flatten)]
    Isa(isa_cli::IsaCommand),
}

/// A unit name or a TOML config file, plus `--set key=value` overrides.
#[derive(Args, Clone)]
struct Target {
    /// Unit name (see `warpforge units`) or a .toml config file.
    unit: String,
    /// Override a parameter (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
}

#[derive(Args, Clone)]
struct CosimArgs {
    #[arg(long, default_value_t = 100_000)]
    cycles: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Replay a JSON-lines input trace (one object per cycle: port name → value).
    #[arg(long)]
    stimulus: Option<String>,
    /// Write inputs and both sides' outputs per cycle as JSON lines.
    #[arg(long)]
    dump: Option<PathBuf>,
    /// Write a VCD waveform of the last cycles and the model's state log beside it.
    #[arg(long)]
    wave: Option<PathBuf>,
    /// Do not assert the model's invariants every cycle.
    #[arg(long)]
    no_invariants: bool,
}

/// A failure to report: exit status and message.
struct Fail(u8, String);

fn bad(msg: impl Into<String>) -> Fail {
    Fail(2, msg.into())
}

fn resolve(t: &Target) -> Result<Unit, Fail> {
    Unit::resolve(&t.unit, &t.sets).map_err(bad)
}

/// The target with the `--over` overrides applied after its own `--set`s.
fn resolve_baseline(t: &Target, over: &[String]) -> Result<Unit, Fail> {
    let sets: Vec<String> = t.sets.iter().chain(over).cloned().collect();
    Unit::resolve(&t.unit, &sets).map_err(|e| {
        // The parameter checker names the flag it was given; here that is `--over`.
        match over.iter().find(|o| e.starts_with(&format!("--set {o}:"))) {
            Some(_) => bad(e.replacen("--set ", "--over ", 1)),
            None => bad(e),
        }
    })
}

fn print_json(v: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string(v).expect("JSON values serialize")
    );
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "error: internal error{at}: {}",
            msg.lines().next().unwrap_or("")
        );
    }));
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(Fail(code, msg)) => {
            eprintln!("error: {}", msg.lines().next().unwrap_or(""));
            ExitCode::from(code)
        }
    }
}

fn run(cmd: Command) -> Result<u8, Fail> {
    match cmd {
        Command::Units { json } => units(json),
        Command::Generate { target, out, json } => {
            let units = if target.unit == "all" {
                if !target.sets.is_empty() {
                    return Err(bad("generate all takes no --set (it writes every unit's default configuration)"));
                }
                registry::all_defaults()
            } else {
                vec![resolve(&target)?]
            };
            let mut files = vec![];
            for u in &units {
                files.extend(write_design(u, &out)?);
            }
            if json {
                print_json(
                    &json!({ "units": units.iter().map(|u| u.name()).collect::<Vec<_>>(), "files": files }),
                );
            } else {
                for f in files {
                    println!("wrote {f}");
                }
            }
            Ok(0)
        }
        Command::Lint {
            target,
            replay,
            json,
        } => {
            let u = resolve(&target)?;
            let trace = match &replay {
                Some(f) => icarus::parse_dump(f, &u.manifest().layout())
                    .map_err(|e| bad(format!("--replay {e}")))?,
                None => icarus::model_trace(&u, icarus::LINT_CYCLES, icarus::LINT_SEED),
            };
            let r = lint::lint_replay(&u.design(), &u.manifest(), &trace)
                .map_err(|e| bad(e.to_string()))?;
            if json {
                print_json(&serde_json::to_value(&r).unwrap());
            } else {
                print!("{r}");
            }
            Ok(if r.passed { 0 } else { 1 })
        }
        Command::Cosim { target, run, json } => cosim(&target, &run, json),
        Command::Area { target, over, json } => {
            let u = resolve(&target)?;
            let baseline = if over.is_empty() {
                None
            } else {
                Some(resolve_baseline(&target, &over)?)
            };
            let mut r = area::area(&u.design(), &u.manifest()).map_err(|e| bad(e.to_string()))?;
            if let Some(b) = baseline {
                let br = area::area(&b.design(), &b.manifest()).map_err(|e| bad(e.to_string()))?;
                r.set_overhead(&br);
            }
            if json {
                print_json(&serde_json::to_value(&r).unwrap());
            } else {
                print!("{r}");
            }
            Ok(0)
        }
        Command::Bench {
            target,
            cycles,
            seed,
            no_cold_build,
            json,
        } => {
            let u = resolve(&target)?;
            if cycles == 0 {
                return Err(bad("--cycles 0: must be at least 1"));
            }
            let r =
                bench::bench(&u, cycles, seed, !no_cold_build).map_err(|e| bad(e.to_string()))?;
            if json {
                print_json(&serde_json::to_value(&r).unwrap());
            } else {
                print!("{}", r.render());
            }
            Ok(0)
        }
        Command::Regress {
            suite,
            jobs,
            shard,
            junit,
            list,
            json,
        } => regress_cmd(&suite, jobs, shard, junit, list, json),
        Command::Flow {
            targets,
            cycles,
            out,
            json,
        } => flow(&targets, cycles, &out, json),
        Command::Isa(c) => isa_cli::execute(c)
            .map(|_| 0)
            .map_err(|f| Fail(f.status, f.message)),
    }
}

fn units(json: bool) -> Result<u8, Fail> {
    if json {
        let list: Vec<_> = registry::catalogue()
            .map(|u| json!({ "name": u.name, "about": u.about, "params": u.params }))
            .collect();
        print_json(&json!({ "units": list }));
    } else {
        for u in registry::catalogue() {
            println!("{} — {}", u.name, u.about);
            for p in u.params {
                println!(
                    "    {:<12} = {:<6} {} ({})",
                    p.name,
                    p.default.to_string(),
                    p.doc,
                    p.allowed()
                );
            }
        }
    }
    Ok(0)
}

/// Write `<module>.v` and `<module>.json` (the manifest) into `out`.
fn write_design(u: &Unit, out: &Path) -> Result<Vec<String>, Fail> {
    std::fs::create_dir_all(out).map_err(|e| bad(format!("--out {}: {e}", out.display())))?;
    let d = u.design();
    let m = u.manifest();
    let v = out.join(format!("{}.v", d.module));
    let j = out.join(format!("{}.json", d.module));
    std::fs::write(&v, &d.verilog).map_err(|e| bad(format!("{}: {e}", v.display())))?;
    std::fs::write(&j, serde_json::to_string_pretty(&m).unwrap() + "\n")
        .map_err(|e| bad(format!("{}: {e}", j.display())))?;
    Ok(vec![v.display().to_string(), j.display().to_string()])
}

fn progress_printer(label: String) -> Option<Box<dyn FnMut(u64, u64)>> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let t0 = std::time::Instant::now();
    Some(Box::new(move |done, total| {
        let rate = done as f64 / t0.elapsed().as_secs_f64();
        eprint!(
            "\r{label}: {done}/{total} cycles ({:.0}%), {rate:.3e} cycles/s   ",
            100.0 * done as f64 / total as f64
        );
        if done == total {
            eprintln!();
        }
    }))
}

fn cosim(target: &Target, a: &CosimArgs, json: bool) -> Result<u8, Fail> {
    let u = resolve(target)?;
    let layout = u.manifest().layout();
    let source = match &a.stimulus {
        Some(f) => Source::Trace(lockstep::parse_stimulus(f, &layout).map_err(bad)?),
        None => Source::Random(u.stimulus(a.seed)),
    };
    let mut opts = Options::new(a.cycles, a.seed);
    opts.check_invariants = !a.no_invariants;
    opts.dump = a.dump.clone();
    opts.wave = a.wave.clone();
    opts.stimulus_file = a.stimulus.clone();
    opts.progress = if json {
        None
    } else {
        progress_printer(u.manifest().module)
    };
    let r = lockstep::run(&u, u.model(), source, opts).map_err(|e| bad(e.to_string()))?;
    if json {
        print_json(&serde_json::to_value(&r).unwrap());
    } else {
        if std::io::stderr().is_terminal() {
            eprint!("\r");
        }
        print!("{}", r.render());
        if let Some(w) = &a.wave {
            println!(
                "waveform: {} (model state log: {})",
                w.display(),
                lockstep::state_log_path(w).display()
            );
        }
    }
    Ok(if r.passed() { 0 } else { 1 })
}

fn regress_cmd(
    suite: &str,
    threads: usize,
    shard: Option<String>,
    junit: Option<PathBuf>,
    list: bool,
    json: bool,
) -> Result<u8, Fail> {
    let mut jobs = regress::jobs(suite).map_err(bad)?;
    if threads == 0 {
        return Err(bad("--jobs 0: must be at least 1"));
    }
    if let Some(s) = &shard {
        let (i, n) = regress::parse_shard(s).map_err(bad)?;
        jobs = jobs
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % n == i)
            .map(|(_, j)| j)
            .collect();
    }
    if list {
        for j in &jobs {
            println!("{}  cycles={}", j.id, j.cycles);
        }
        return Ok(0);
    }
    let quiet = json;
    let printer = move |r: &regress::JobResult, k: usize, n: usize| {
        if !quiet {
            let verdict = if r.passed { "pass" } else { "FAIL" };
            eprintln!(
                "[{k}/{n}] {verdict} {} ({} cycles, {:.1} s)",
                r.id, r.cycles, r.seconds
            );
            if !r.passed {
                for l in r.message.lines() {
                    eprintln!("    {l}");
                }
            }
        }
    };
    let summary = regress::run(suite, &jobs, threads, &printer);
    if let Some(path) = junit {
        std::fs::write(&path, regress::junit(&summary))
            .map_err(|e| bad(format!("--junit {}: {e}", path.display())))?;
    }
    if json {
        print_json(&serde_json::to_value(&summary).unwrap());
    } else {
        for (unit, c) in &summary.cycles {
            println!("{unit}: {c} lockstep cycles");
        }
        println!("{} passed, {} failed", summary.passed, summary.failed);
    }
    Ok(if summary.failed == 0 { 0 } else { 1 })
}

fn flow(targets: &[String], cycles: u64, out: &Path, json: bool) -> Result<u8, Fail> {
    let units: Vec<Unit> = if targets.is_empty() {
        registry::all_defaults()
    } else {
        targets
            .iter()
            .map(|t| Unit::resolve(t, &[]).map_err(bad))
            .collect::<Result<_, _>>()?
    };
    let mut ok = true;
    let mut reports = vec![];
    for u in &units {
        let files = write_design(u, out)?;
        let d = u.design();
        let m = u.manifest();
        let trace = icarus::model_trace(u, icarus::LINT_CYCLES, icarus::LINT_SEED);
        let l = lint::lint_replay(&d, &m, &trace).map_err(|e| bad(e.to_string()))?;
        let opts = Options {
            progress: if json {
                None
            } else {
                progress_printer(m.module.clone())
            },
            ..Options::new(cycles, 1)
        };
        let c = lockstep::run(u, u.model(), Source::Random(u.stimulus(1)), opts)
            .map_err(|e| bad(e.to_string()))?;
        let a = area::area(&d, &m).map_err(|e| bad(e.to_string()))?;
        ok &= l.passed && c.passed();
        if !json {
            println!("== {} ({})", u.name(), m.module);
            for f in &files {
                println!("wrote {f}");
            }
            print!("{l}");
            print!("{}", c.render());
            print!("{a}");
        }
        reports.push(json!({ "unit": u.name(), "files": files, "lint": l, "cosim": c, "area": a }));
    }
    if json {
        print_json(&json!({ "passed": ok, "units": reports }));
    } else {
        println!("{}", if ok { "flow passed" } else { "flow FAILED" });
    }
    Ok(if ok { 0 } else { 1 })
}
