//! `warpforge`: generate, lint, co-simulate, measure and regress the warpforge units.
//!
//! Exit status: 0 success (also when stdout is closed early, e.g. `| head -1`); 1 a check
//! failed (lint, lockstep mismatch, regression failure, a suite kernel failing its check);
//! 2 bad input, a missing tool or an output that could not be written, with one line
//! `error: …` on stderr (and `{"error": "…"}` on stdout with `--json`).

#[macro_use]
mod out;
mod crown_cli;
mod dtm_cli;
mod isa_cli;
mod noc_cli;
mod sm_cli;

use clap::{Args, Parser, Subcommand};
use serde_json::json;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use warpforge_cosim::lockstep::{self, Options, Source};
use warpforge_cosim::outpath::{self, check_writable};
use warpforge_cosim::registry::{self, Unit};
use warpforge_cosim::{area, bench, fpga, fuzz, icarus, lint, regress, report, sm_run};

/// `--cycles`: at least 1 for every command that simulates.
fn cycles_arg() -> clap::builder::RangedU64ValueParser {
    clap::value_parser!(u64).range(1..)
}

/// Most cycles `bench` measures: it records every cycle's inputs in memory first.
const MAX_BENCH_CYCLES: u64 = 20_000_000;

/// Most worker threads `regress --jobs` accepts.
const MAX_JOBS: u64 = 256;

#[derive(Parser)]
#[command(
    name = "warpforge",
    version,
    about = "Synthesizable Verilog for GPU SM mechanisms, proven by lockstep co-simulation",
    after_help = "Exit status: 0 success (also when stdout is closed early, e.g. `| head -1`); \
1 a check failed (lint, lockstep mismatch, regression job, suite kernel, fuzz); \
2 bad input, a missing tool or an output that cannot be written: one line `error: …` on \
stderr (with --json also {\"error\": \"…\"} on stdout).\n\n\
Build cache: $WARPFORGE_CACHE, else $XDG_CACHE_HOME/warpforge, else ~/.cache/warpforge \
(empty values count as unset). Every entry records its key and each file's size and CRC-32; \
an entry that fails verification is rebuilt with a one-line notice, and temp folders of \
builds whose process is gone (or older than an hour) are removed."
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
        /// Also break the figures down per top-level sub-block (hierarchical syntheses; always
        /// on for the SM)
        #[arg(long)]
        blocks: bool,
        /// Keep the module hierarchy: each distinct module synthesised once, counted once
        /// per instance (for designs of many identical instances, e.g. dtm-mtg's RAMs)
        #[arg(long, conflicts_with = "blocks")]
        hier: bool,
        /// Seconds of Yosys in all for the unit (and again for the baseline); past it, exit 2
        /// naming the limit.
        #[arg(long, default_value_t = area::LIMIT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
        time_limit: u64,
        #[arg(long)]
        json: bool,
    },
    /// Synthesis and place-and-route for FPGA parts: resources used and available, fit,
    /// Fmax min / median / max over placer seeds.
    Fpga {
        #[command(flatten)]
        target: Target,
        #[command(flatten)]
        pnr: PnrArgs,
        /// Synthesis and the fit check only: no place and route (no Fmax). Exit 0 when every
        /// part fits.
        #[arg(long)]
        fit_only: bool,
        /// The first placer seed (1 to 10000): seeds run are first-seed .. first-seed + seeds - 1,
        /// to add seeds to an earlier run.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=fpga::MAX_FIRST_SEED as u64))]
        first_seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// One self-contained HTML page over the units of a report file: storage bits, cells,
    /// CACTI area, FPGA resources (and Fmax with --fpga), overhead over each baseline, charts.
    Report {
        /// The report file: [[unit]] tables with unit, params, over (the baseline) and label.
        #[arg(long, default_value = "configs/report.toml")]
        config: PathBuf,
        /// Directory for report.html and report.json.
        #[arg(long, default_value = "report-out")]
        out: PathBuf,
        /// Also place and route every unit (slow): Fmax per part. The place-and-route options
        /// below apply only with it.
        #[arg(long)]
        fpga: bool,
        #[command(flatten)]
        pnr: PnrArgs,
        #[arg(long)]
        json: bool,
    },
    /// Throughput of raw Verilator, the model alone and lockstep; build times.
    Bench {
        #[command(flatten)]
        target: Target,
        /// Cycles per measurement, 1..=20000000 (the inputs are recorded in memory).
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=MAX_BENCH_CYCLES))]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Skip the cold build measurement (it rebuilds in an empty cache).
        #[arg(long)]
        no_cold_build: bool,
        #[arg(long)]
        json: bool,
    },
    /// msap-noc traffic experiments (BookSim style): injection-rate sweep with warm-up,
    /// measurement and drain; throughput, latency per PL class, saturation; JSON and SVG.
    Noc(noc_cli::NocArgs),
    /// Run a regression: units × configs × seeds and every spec vector.
    Regress {
        /// quick (≥10^6 cycles per unit and per policy), full (≥10^7 each) or vectors.
        #[arg(long, default_value = "full")]
        suite: String,
        /// Worker threads, 1 to 256 (fewer are used when the system refuses more).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=MAX_JOBS))]
        jobs: u64,
        /// Run only slice I of N (0 ≤ I < N) of the job list.
        #[arg(long)]
        shard: Option<String>,
        /// Run only this unit's jobs (repeatable; before `--shard` slices the list).
        #[arg(long = "unit", value_name = "UNIT")]
        units: Vec<String>,
        /// Run only jobs whose id contains this text (repeatable: any of them; after
        /// `--unit`, before `--shard`). `--list` shows the ids.
        #[arg(long = "filter", value_name = "TEXT")]
        filters: Vec<String>,
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
        /// Lockstep cycles per unit (at least 1).
        #[arg(long, default_value_t = 1_000_000, value_parser = cycles_arg())]
        cycles: u64,
        /// Directory for the generated Verilog and manifests, and the area report.
        #[arg(long, default_value = "flow-out")]
        out: PathBuf,
        /// Seconds of Yosys per unit for its area (past it the unit's area is reported as
        /// not measured and the flow goes on).
        #[arg(long, default_value_t = area::LIMIT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
        area_limit: u64,
        #[arg(long)]
        json: bool,
    },
    #[command(flatten)]
    Isa(isa_cli::IsaCommand),
    /// Seeded fuzzing of an input reader: random and mutated inputs must give a result or a
    /// one-line error, never a panic.
    Fuzz {
        /// config (TOML loader), stimulus (JSON-lines reader), asm (assembler), wfk (image
        /// decoder) or all.
        target: String,
        /// Executions per target.
        #[arg(long, default_value_t = 100_000)]
        iters: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
}

/// The place-and-route options `fpga` and `report --fpga` share.
#[derive(Args, Clone)]
struct PnrArgs {
    /// Part (repeatable or comma-separated): ice40-up5k, ice40-hx8k, ecp5-85k, ecp5-45k,
    /// ecp5-25k [default: ice40-up5k,ecp5-85k].
    #[arg(long = "part", value_name = "PART", value_delimiter = ',')]
    parts: Vec<String>,
    /// Placer seeds per part (1 to 20).
    #[arg(long, default_value_t = fpga::DEFAULT_SEEDS as u64, value_parser = clap::value_parser!(u64).range(1..=fpga::MAX_SEEDS as u64))]
    seeds: u64,
    /// Time limit of each tool run in seconds (one synthesis, one seed's place and route).
    #[arg(long, default_value_t = fpga::DEFAULT_LIMIT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    time_limit: u64,
    /// Seeds placed and routed at once (1 to 20): one single-threaded nextpnr each.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=fpga::MAX_SEEDS as u64))]
    jobs: u64,
    /// nextpnr's router: router1 (nextpnr's default) or router2 (faster on large designs,
    /// lower Fmax on those measured).
    #[arg(long, default_value = "router1")]
    router: String,
}

impl PnrArgs {
    /// Checked before anything is generated: an unknown part or router is exit 2 up front.
    fn options(&self) -> Result<fpga::Options, Fail> {
        let mut opts = fpga::Options::new(fpga_parts(&self.parts)?, self.seeds as u32);
        opts.limit = std::time::Duration::from_secs(self.time_limit);
        opts.jobs = self.jobs as usize;
        opts.router = fpga::Router::parse(&self.router).map_err(|e| bad(e.to_string()))?;
        Ok(opts)
    }
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
    /// Cycles to run (at least 1; with --stimulus, at most the trace's length).
    #[arg(long, default_value_t = 100_000, value_parser = cycles_arg())]
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
pub struct Fail(pub u8, pub String);

pub fn bad(msg: impl Into<String>) -> Fail {
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
    out::json(v)
}

/// Check every output path before the work starts.
fn check_outputs(paths: &[(&str, Option<&Path>)]) -> Result<(), Fail> {
    for (flag, p) in paths {
        if let Some(p) = p {
            check_writable(flag, p).map_err(bad)?;
        }
    }
    Ok(())
}

/// An output directory (`--out`): created if needed, and it must accept files.
fn check_out_dir(out: &Path) -> Result<(), Fail> {
    if out.exists() && !out.is_dir() {
        return Err(bad(format!("--out {}: not a directory", out.display())));
    }
    std::fs::create_dir_all(out)
        .map_err(|e| bad(format!("--out {}: cannot create: {e}", out.display())))?;
    check_writable("--out", &out.join(".wf-probe")).map_err(bad)
}

/// One `error:` line for an argument-parser error, with a hint to `--help`.
fn parse_error_message(e: &clap::Error) -> String {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand
    ) {
        return "no command given; see `warpforge --help` for the commands".into();
    }
    // clap's first paragraph is the message (a list of missing arguments continues it on
    // indented lines); tips and usage follow after a blank line.
    let text = e.render().to_string();
    let first: Vec<&str> = text
        .trim_start()
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let first = first.join(" ");
    let first = first.strip_prefix("error: ").unwrap_or(&first);
    format!("{first}; see `warpforge --help`")
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
    out::set_json_mode(std::env::args_os().skip(1).any(|a| a == "--json"));
    let code = match Cli::try_parse() {
        Ok(cli) => match run(cli.command) {
            Ok(code) => code,
            Err(Fail(code, msg)) => {
                out::error(&msg);
                code
            }
        },
        Err(e) => match e.kind() {
            clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                out!("{}", e.render());
                0
            }
            _ => {
                out::error(&parse_error_message(&e));
                2
            }
        },
    };
    out::finish();
    ExitCode::from(code)
}

fn run(cmd: Command) -> Result<u8, Fail> {
    // A bad build setting is bad input for every command, before any work starts.
    let opt = warpforge_cosim::verilator::opt_level().map_err(|e| Fail(2, e.to_string()))?;
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
            check_out_dir(&out)?;
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
                    outln!("wrote {f}");
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
            if registry::kernel_level(u.name()) {
                // No random-stimulus trace to replay: a kernel-level unit's second-simulator
                // check is not part of lint (its kernels run under Verilator).
                if replay.is_some() {
                    return Err(bad(format!(
                        "lint {}: --replay needs a unit with a random-stimulus model; {}",
                        u.name(),
                        kernel_checked_by(&u)
                    )));
                }
                let r = lint::lint(&u.design(), &u.manifest()).map_err(|e| bad(e.to_string()))?;
                if json {
                    print_json(&serde_json::to_value(&r).unwrap());
                } else {
                    out!("{r}");
                }
                return Ok(if r.passed { 0 } else { 1 });
            }
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
                out!("{r}");
            }
            Ok(if r.passed { 0 } else { 1 })
        }
        Command::Cosim { target, run, json } => cosim(&target, &run, json),
        Command::Area {
            target,
            over,
            blocks,
            hier,
            time_limit,
            json,
        } => {
            let u = resolve(&target)?;
            let blocks = !hier && (blocks || u.sm().is_some());
            let baseline = if over.is_empty() {
                None
            } else {
                Some(resolve_baseline(&target, &over)?)
            };
            let flow = match (blocks, hier) {
                (true, _) => area::Flow::WithBlocks,
                (false, true) => area::Flow::Hierarchical,
                (false, false) => area::Flow::Flat,
            };
            let limit = std::time::Duration::from_secs(time_limit);
            let timed = |e: warpforge_cosim::tools::FlowError| match e {
                warpforge_cosim::tools::FlowError::Timeout { .. } => {
                    bad(format!("{e} (--time-limit {time_limit}; raise it)"))
                }
                e => bad(e.to_string()),
            };
            let mut r = area::area_flow(&u.design(), &u.manifest(), flow, limit).map_err(timed)?;
            if let Some(b) = baseline {
                let br = area::area_flow(&b.design(), &b.manifest(), area::Flow::Flat, limit)
                    .map_err(timed)?;
                r.set_overhead(&br);
            }
            if json {
                print_json(&serde_json::to_value(&r).unwrap());
            } else {
                out!("{r}");
            }
            Ok(0)
        }
        Command::Fpga {
            target,
            pnr,
            fit_only,
            first_seed,
            json,
        } => {
            let mut opts = pnr.options()?;
            opts.place = !fit_only;
            opts.first_seed = first_seed as u32;
            fpga_cmd(&target, &opts, json)
        }
        Command::Bench {
            target,
            cycles,
            seed,
            no_cold_build,
            json,
        } => {
            let u = resolve(&target)?;
            if opt != warpforge_cosim::verilator::OPT_LEVEL {
                eprintln!("note: C++ built at -O{opt} (WARPFORGE_CXX_OPT), not the default: rates and build times are not comparable with the default's");
            }
            if let Some(cfg) = u.crown() {
                // CROWN's workload is programs in CROWN mode; --cycles is the least total.
                let r = warpforge_cosim::crown_run::bench(cfg, cycles, seed)
                    .map_err(|e| Fail(1, format!("bench crown: {e}")))?;
                if json {
                    print_json(&serde_json::to_value(&r).unwrap());
                } else {
                    outln!(
                        "bench {} on {}: {} CROWN cycles, {} runs of each, interleaved",
                        r.module,
                        r.workload,
                        r.cycles,
                        r.repetitions
                    );
                    outln!(
                        "  raw Verilator (the RTL decides, nothing checked): {:.0} cycles/s",
                        r.verilator_cps
                    );
                    outln!(
                        "  model alone (invariants every cycle):             {:.0} cycles/s",
                        r.model_cps
                    );
                    outln!(
                        "  lockstep (every output and digest compared):    {:.0} cycles/s ({:.2} x raw)",
                        r.lockstep_cps,
                        r.lockstep_over_raw
                    );
                }
                return Ok(0);
            }
            if u.sm().is_none() && registry::kernel_level(u.name()) {
                return Err(bad(format!(
                    "bench {}: no random-stimulus workload; {}",
                    u.name(),
                    kernel_checked_by(&u)
                )));
            }
            if let Some(cfg) = u.sm() {
                // The SM's workload is a kernel, not --cycles of random stimulus.
                let r = sm_run::bench(cfg, &u.design(), &u.manifest(), seed)
                    .map_err(|e| Fail(1, format!("bench sm: {e}")))?;
                if json {
                    print_json(&serde_json::to_value(&r).unwrap());
                } else {
                    outln!(
                        "bench {} on {}: {} SM cycles, {} warp-instructions; {} runs of each, interleaved",
                        r.module,
                        r.workload,
                        r.cycles,
                        r.warp_instructions,
                        r.repetitions
                    );
                    outln!(
                        "  raw Verilator (memory served, unchecked): {:.0} SM-cycles/s",
                        r.verilator_cps
                    );
                    outln!("  lockstep (every retired instruction checked): {:.0} SM-cycles/s ({:.2} x raw), {:.0} warp-instructions/s", r.lockstep_cps, r.lockstep_over_raw, r.warp_instructions_per_sec);
                    outln!("  build {:.1} s", r.build_s);
                }
                return Ok(0);
            }
            let r =
                bench::bench(&u, cycles, seed, !no_cold_build).map_err(|e| bad(e.to_string()))?;
            if json {
                print_json(&serde_json::to_value(&r).unwrap());
            } else {
                out!("{}", r.render());
            }
            Ok(0)
        }
        Command::Report {
            config,
            out,
            fpga,
            pnr,
            json,
        } => report_cmd(&config, &out, fpga, &pnr, json),
        Command::Noc(a) => noc_cli::run(a),
        Command::Regress {
            suite,
            jobs,
            shard,
            units,
            filters,
            junit,
            list,
            json,
        } => regress_cmd(
            &suite,
            jobs as usize,
            Selection {
                units: &units,
                filters: &filters,
                shard,
            },
            junit,
            list,
            json,
        ),
        Command::Flow {
            targets,
            cycles,
            out,
            area_limit,
            json,
        } => flow(
            &targets,
            cycles,
            &out,
            std::time::Duration::from_secs(area_limit),
            json,
        ),
        Command::Isa(c) => isa_cli::execute(c)
            .map(|_| 0)
            .map_err(|f| Fail(f.status, f.message)),
        Command::Fuzz {
            target,
            iters,
            seed,
            json,
        } => fuzz_cmd(&target, iters, seed, json),
    }
}

/// The parts named by `--part` (the default pair when none), each once.
fn fpga_parts(parts: &[String]) -> Result<Vec<&'static fpga::Part>, Fail> {
    let names: Vec<&str> = if parts.is_empty() {
        fpga::DEFAULT_PARTS.to_vec()
    } else {
        parts.iter().map(|p| p.trim()).collect()
    };
    let mut chosen: Vec<&'static fpga::Part> = vec![];
    for n in names {
        let p = fpga::part(n).map_err(|e| bad(e.to_string()))?;
        if !chosen.iter().any(|c| c.name == p.name) {
            chosen.push(p);
        }
    }
    Ok(chosen)
}

fn report_cmd(
    config: &Path,
    out: &Path,
    with_fpga: bool,
    pnr: &PnrArgs,
    json: bool,
) -> Result<u8, Fail> {
    let name = config.display().to_string();
    let text = std::fs::read_to_string(config)
        .map_err(|e| bad(format!("--config {name}: cannot read: {e}")))?;
    let entries = report::parse_spec(&name, &text).map_err(bad)?;
    let opts = match with_fpga {
        true => Some(pnr.options()?),
        false => None,
    };
    check_out_dir(out)?;
    let (html_path, json_path) = (out.join("report.html"), out.join("report.json"));
    check_outputs(&[("--out", Some(&html_path)), ("--out", Some(&json_path))])?;
    let r = report::run(&entries, opts.as_ref(), &mut |l| eprintln!("{l}")).map_err(bad)?;
    let value = serde_json::to_value(&r).unwrap();
    let write = |p: &Path, text: &str| {
        std::fs::write(p, text).map_err(|e| bad(outpath::write_error("--out", p, &e)))
    };
    write(&html_path, &report::html(&r))?;
    write(&json_path, &serde_json::to_string_pretty(&value).unwrap())?;
    if json {
        print_json(&json!({ "html": html_path, "json": json_path, "units": r.rows.len() }));
    } else {
        outln!(
            "wrote {} and {} ({} units)",
            html_path.display(),
            json_path.display(),
            r.rows.len()
        );
    }
    Ok(0)
}

fn fpga_cmd(target: &Target, opts: &fpga::Options, json: bool) -> Result<u8, Fail> {
    let u = resolve(target)?;
    let r = fpga::fpga(&u.design(), &u.manifest(), opts, &mut |line| {
        eprintln!("{line}")
    })
    .map_err(|e| bad(e.to_string()))?;
    if json {
        print_json(&serde_json::to_value(&r).unwrap());
    } else {
        out!("{r}");
    }
    Ok(if r.ok() { 0 } else { 1 })
}

fn units(json: bool) -> Result<u8, Fail> {
    if json {
        let list: Vec<_> = registry::catalogue()
            .map(|u| json!({ "name": u.name, "about": u.about, "params": u.params }))
            .collect();
        print_json(&json!({ "units": list }));
    } else {
        for u in registry::catalogue() {
            outln!("{} — {}", u.name, u.about);
            for p in u.params {
                outln!(
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
    outpath::write_file("--out", &v, d.verilog.as_bytes()).map_err(bad)?;
    outpath::write_file(
        "--out",
        &j,
        (serde_json::to_string_pretty(&m).unwrap() + "\n").as_bytes(),
    )
    .map_err(bad)?;
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

/// How a kernel-level unit (no random-stimulus model) is checked in lockstep instead.
fn kernel_checked_by(u: &Unit) -> String {
    match u.sm() {
        Some(_) => "the SM is checked per retired instruction by `warpforge run --rtl`".into(),
        None => format!(
            "{} is checked against its model by running kernels: `warpforge run --suite --{}`",
            u.name(),
            u.name()
        ),
    }
}

fn cosim(target: &Target, a: &CosimArgs, json: bool) -> Result<u8, Fail> {
    let u = resolve(target)?;
    if let Some(cfg) = u.sm() {
        return sm_cosim(&u, cfg, a, json);
    }
    if registry::kernel_level(u.name()) {
        return Err(bad(format!(
            "cosim {}: no random-stimulus lockstep; {}",
            u.name(),
            kernel_checked_by(&u)
        )));
    }
    let log = a.wave.as_deref().map(lockstep::state_log_path);
    check_outputs(&[
        ("--dump", a.dump.as_deref()),
        ("--wave", a.wave.as_deref()),
        ("--wave", log.as_deref()),
    ])?;
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
        let mut v = serde_json::to_value(&r).unwrap();
        if let Some(w) = &a.wave {
            v["waveform"] = json!(w.display().to_string());
            v["model_log"] = json!(lockstep::state_log_path(w).display().to_string());
        }
        if let Some(d) = &a.dump {
            v["dump"] = json!(d.display().to_string());
        }
        print_json(&v);
    } else {
        if std::io::stderr().is_terminal() {
            eprint!("\r");
        }
        out!("{}", r.render());
        if let Some(w) = &a.wave {
            outln!(
                "waveform: {} (model state log: {})",
                w.display(),
                lockstep::state_log_path(w).display()
            );
        }
    }
    Ok(if r.passed() { 0 } else { 1 })
}

/// `cosim sm`: random programs until --cycles SM cycles ran, every retired instruction
/// checked against the interpreter.
fn sm_cosim(
    u: &Unit,
    cfg: &warpforge_contract::units::sm::SmConfig,
    a: &CosimArgs,
    json: bool,
) -> Result<u8, Fail> {
    if a.stimulus.is_some() || a.dump.is_some() || a.wave.is_some() || a.no_invariants {
        return Err(bad(
            "cosim sm runs random programs: --stimulus/--dump/--wave/--no-invariants are for cycle-level units (use `run --rtl --random 1 --seed S --wave F` to trace one program)",
        ));
    }
    let r = sm_run::random_cosim(cfg, &u.design(), &u.manifest(), a.cycles, a.seed);
    let (passed, v, text) = match &r {
        Ok(s) => (
            true,
            json!({ "unit": u.name(), "module": cfg.module_name(), "seed": a.seed, "cycles": s.cycles,
                    "mismatches": 0, "programs": s.programs, "warp_instructions": s.warp_instructions,
                    "cycles_per_sec": s.cycles as f64 / s.seconds.max(1e-9) }),
            format!(
                "PASS {}: {} random programs (seeds {}..{}), {} SM cycles, {} warp-instructions checked against the interpreter\n",
                cfg.module_name(), s.programs, a.seed, a.seed + s.programs, s.cycles, s.warp_instructions
            ),
        ),
        Err((seed, f)) => {
            let mut replay = format!("warpforge run --rtl --random 1 --seed {seed}");
            for (k, v) in u.params.iter() {
                replay += &format!(" --set {k}={v}");
            }
            if let Some(from) = f.wave_from() {
                replay += &format!(" --wave sm-seed{seed}.vcd --wave-from {from}");
            }
            (
                false,
                json!({ "unit": u.name(), "module": cfg.module_name(), "seed": seed, "mismatches": 1,
                        "error": f.to_string(), "replay": replay }),
                format!("FAIL {} random program seed {seed}: {f}\n  replay with waveform: {replay}\n", cfg.module_name()),
            )
        }
    };
    if json {
        print_json(&v);
    } else {
        out!("{text}");
    }
    Ok(if passed { 0 } else { 1 })
}

/// Which jobs of a suite `regress` runs: `--unit`, then `--filter`, then `--shard`.
struct Selection<'a> {
    units: &'a [String],
    filters: &'a [String],
    shard: Option<String>,
}

fn regress_cmd(
    suite: &str,
    threads: usize,
    sel: Selection,
    junit: Option<PathBuf>,
    list: bool,
    json: bool,
) -> Result<u8, Fail> {
    let mut jobs = regress::jobs(suite).map_err(bad)?;
    if !sel.units.is_empty() {
        jobs = regress::only_units(jobs, sel.units).map_err(bad)?;
    }
    if !sel.filters.is_empty() {
        jobs = regress::only_matching(jobs, sel.filters, suite).map_err(bad)?;
    }
    if !list {
        check_outputs(&[("--junit", junit.as_deref())])?;
    }
    if let Some(s) = &sel.shard {
        let (i, n) = regress::parse_shard(s).map_err(bad)?;
        jobs = jobs
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % n == i)
            .map(|(_, j)| j)
            .collect();
    }
    if list {
        if json {
            let list: Vec<_> = jobs
                .iter()
                .map(|j| json!({ "id": j.id, "cycles": j.cycles }))
                .collect();
            print_json(&json!({ "suite": suite, "jobs": list }));
        } else {
            for j in &jobs {
                outln!("{}  cycles={}", j.id, j.cycles);
            }
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
    // A results file that cannot be written is exit 2, but the results are still reported.
    let written = match &junit {
        Some(path) => outpath::write_file("--junit", path, regress::junit(&summary).as_bytes()),
        None => Ok(()),
    };
    if json {
        let mut v = serde_json::to_value(&summary).unwrap();
        if let Err(e) = &written {
            v["error"] = json!(e);
        }
        print_json(&v);
    } else {
        for (unit, c) in &summary.cycles {
            outln!("{unit}: {c} lockstep cycles");
        }
        outln!("{} passed, {} failed", summary.passed, summary.failed);
    }
    written.map_err(bad)?;
    Ok(if summary.failed == 0 { 0 } else { 1 })
}

/// A unit's area within the flow's Yosys time limit: `Err(why)` when it was not measured.
fn flow_area(
    d: &warpforge_hdl::Design,
    m: &warpforge_contract::Manifest,
    limit: std::time::Duration,
) -> Result<Result<area::AreaReport, String>, Fail> {
    match area::area_within(d, m, limit) {
        Ok(a) => Ok(Ok(a)),
        Err(warpforge_cosim::tools::FlowError::Timeout { .. }) => Ok(Err(format!(
            "synthesis did not finish within the flow's --area-limit of {} s (`warpforge area {} --time-limit S` takes longer)",
            limit.as_secs(),
            m.unit
        ))),
        Err(e) => Err(bad(e.to_string())),
    }
}

fn area_json(a: &Result<area::AreaReport, String>) -> serde_json::Value {
    match a {
        Ok(a) => json!(a),
        Err(why) => json!({ "not_measured": why }),
    }
}

fn area_text(a: &Result<area::AreaReport, String>) -> String {
    match a {
        Ok(a) => a.to_string(),
        Err(why) => format!("area: not measured: {why}\n"),
    }
}

fn flow(
    targets: &[String],
    cycles: u64,
    out: &Path,
    area_limit: std::time::Duration,
    json: bool,
) -> Result<u8, Fail> {
    let units: Vec<Unit> = if targets.is_empty() {
        registry::all_defaults()
    } else {
        targets
            .iter()
            .map(|t| Unit::resolve(t, &[]).map_err(bad))
            .collect::<Result<_, _>>()?
    };
    check_out_dir(out)?;
    let (html_path, json_path) = (out.join("report.html"), out.join("report.json"));
    check_outputs(&[("--out", Some(&html_path)), ("--out", Some(&json_path))])?;
    let mut ok = true;
    let mut reports = vec![];
    // The area report of the run: every unit measured, and those that were not.
    let mut summary = report::Report {
        rows: vec![],
        not_measured: vec![],
    };
    let mut add = |u: &Unit,
                   m: &warpforge_contract::Manifest,
                   a: &Result<area::AreaReport, String>| {
        match a {
            Ok(a) => summary.rows.push(report::Row {
                label: u.name().to_string(),
                unit: u.name().to_string(),
                sets: vec![],
                over: vec![],
                area: a.clone(),
                fpga: None,
            }),
            Err(why) => summary.not_measured.push(report::NotMeasured {
                label: u.name().to_string(),
                module: m.module.clone(),
                why: why.clone(),
            }),
        }
    };
    for u in &units {
        let files = write_design(u, out)?;
        let d = u.design();
        let m = u.manifest();
        if let Some(cfg) = u.sm() {
            // Kernel-level: lint, random programs checked per instruction, area.
            let l = lint::lint(&d, &m).map_err(|e| bad(e.to_string()))?;
            let c = sm_run::random_cosim(cfg, &d, &m, cycles, 1);
            let a = flow_area(&d, &m, area_limit)?;
            add(u, &m, &a);
            ok &= l.passed && c.is_ok();
            let cosim = match &c {
                Ok(s) => json!(s),
                Err((seed, f)) => json!({ "seed": seed, "error": f.to_string() }),
            };
            if !json {
                outln!("== {} ({})", u.name(), m.module);
                for f in &files {
                    outln!("wrote {f}");
                }
                out!("{l}");
                match &c {
                    Ok(s) => outln!(
                        "PASS {} random programs, {} SM cycles, {} warp-instructions checked",
                        s.programs,
                        s.cycles,
                        s.warp_instructions
                    ),
                    Err((seed, f)) => outln!("FAIL random program seed {seed}: {f}"),
                }
                out!("{}", area_text(&a));
            }
            reports.push(
                json!({ "unit": u.name(), "files": files, "lint": l, "cosim": cosim,
                "area": area_json(&a) }),
            );
            continue;
        }
        if registry::kernel_level(u.name()) {
            // Lint and area here; its lockstep runs kernels (`kernel_checked_by`).
            let l = lint::lint(&d, &m).map_err(|e| bad(e.to_string()))?;
            let a = flow_area(&d, &m, area_limit)?;
            add(u, &m, &a);
            ok &= l.passed;
            let skipped = kernel_checked_by(u);
            if !json {
                outln!("== {} ({})", u.name(), m.module);
                for f in &files {
                    outln!("wrote {f}");
                }
                out!("{l}");
                outln!("cosim: not run here; {skipped}");
                out!("{}", area_text(&a));
            }
            reports.push(json!({ "unit": u.name(), "files": files, "lint": l,
                "cosim": { "skipped": skipped }, "area": area_json(&a) }));
            continue;
        }
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
        let a = flow_area(&d, &m, area_limit)?;
        add(u, &m, &a);
        ok &= l.passed && c.passed();
        if !json {
            outln!("== {} ({})", u.name(), m.module);
            for f in &files {
                outln!("wrote {f}");
            }
            out!("{l}");
            out!("{}", c.render());
            out!("{}", area_text(&a));
        }
        reports.push(
            json!({ "unit": u.name(), "files": files, "lint": l, "cosim": c,
            "area": area_json(&a) }),
        );
    }
    let write = |p: &Path, text: &str| {
        std::fs::write(p, text).map_err(|e| bad(outpath::write_error("--out", p, &e)))
    };
    write(&html_path, &report::html(&summary))?;
    write(
        &json_path,
        &serde_json::to_string_pretty(&serde_json::to_value(&summary).unwrap()).unwrap(),
    )?;
    if json {
        print_json(&json!({ "passed": ok, "units": reports, "report": html_path }));
    } else {
        outln!("{}", if ok { "flow passed" } else { "flow FAILED" });
        outln!(
            "report: {} ({} units measured, {} not)",
            html_path.display(),
            summary.rows.len(),
            summary.not_measured.len()
        );
    }
    Ok(if ok { 0 } else { 1 })
}

fn fuzz_cmd(target: &str, iters: u64, seed: u64, json: bool) -> Result<u8, Fail> {
    let targets: Vec<&str> = match target {
        "all" => fuzz::TARGETS.to_vec(),
        t if fuzz::TARGETS.contains(&t) => vec![t],
        t => {
            return Err(bad(format!(
                "fuzz target `{t}`: targets are {}, all",
                fuzz::TARGETS.join(", ")
            )))
        }
    };
    let mut reports = vec![];
    let mut failed = false;
    for t in targets {
        let r = fuzz::run(t, iters, seed).map_err(bad)?;
        if !json {
            outln!("{}", r.render());
        }
        failed |= r.failure.is_some();
        reports.push(r);
    }
    if json {
        print_json(&json!({ "targets": reports }));
    }
    Ok(if failed { 1 } else { 0 })
}
