//! The FPGA flow (`warpforge fpga`): a unit inside a serialising wrapper, synthesised by Yosys
//! for a part's family, checked against the part's resources, then placed and routed by nextpnr
//! with several placer seeds against the board's clock and pin constraints (`constraints/`).
//! Resources come from the synthesis (and nextpnr's utilisation), Fmax from nextpnr's JSON
//! report (`--report`), min / median / max over the seeds.

use crate::area::{first_error, read_stat, Family, FpgaResources};
use crate::tools::{self, FlowError};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use warpforge_contract::manifest::Dir;
use warpforge_contract::Manifest;
use warpforge_hdl::Design;

/// Placer seeds when none are given.
pub const DEFAULT_SEEDS: u32 = 3;
/// Most placer seeds one run accepts.
pub const MAX_SEEDS: u32 = 20;
/// The highest first seed `--first-seed` takes.
pub const MAX_FIRST_SEED: u32 = 10_000;
/// Time limit of each tool run (one synthesis, one place-and-route of one seed).
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(1800);
/// Parts measured when none are named: one per board family.
pub const DEFAULT_PARTS: &[&str] = &["ice40-up5k", "ecp5-85k"];
/// Top module of the wrapper.
pub const TOP: &str = "wf_fpga_top";
/// The wrapper's pins.
pub const PINS: [&str; 4] = ["clk", "sin", "load", "sout"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    Ice40,
    Ecp5,
}

impl Arch {
    fn family(self) -> Family {
        match self {
            Arch::Ice40 => Family::Ice40,
            Arch::Ecp5 => Family::Ecp5,
        }
    }
    fn nextpnr(self) -> &'static str {
        match self {
            Arch::Ice40 => "nextpnr-ice40",
            Arch::Ecp5 => "nextpnr-ecp5",
        }
    }
}

/// What a part offers, in the units the fit check counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Capacity {
    /// LUT4s (iCE40 logic cells; ECP5 slice halves, TRELLIS_COMB).
    pub luts: u64,
    pub ffs: u64,
    /// SB_RAM40_4K (4 kbit) on iCE40, DP16KD (18 kbit) on ECP5.
    pub brams: u64,
    /// SB_MAC16 on iCE40 UltraPlus, MULT18X18D on ECP5.
    pub dsps: u64,
}

/// One device on one board.
#[derive(Debug)]
pub struct Part {
    pub name: &'static str,
    pub arch: Arch,
    pub device: &'static str,
    pub board: &'static str,
    /// The constraint file, relative to the repository root.
    pub constraints: &'static str,
    constraints_text: &'static str,
    /// Yosys synthesis command (without `-top` and `-json`).
    synth: &'static str,
    /// nextpnr's device and package arguments.
    nextpnr_args: &'static [&'static str],
    pub capacity: Capacity,
}

const ICEBREAKER: &str = include_str!("../../constraints/icebreaker.pcf");
const HX8K_BREAKOUT: &str = include_str!("../../constraints/ice40hx8k-breakout.pcf");
const ULX3S: &str = include_str!("../../constraints/ulx3s.lpf");

const fn ecp5(
    name: &'static str,
    device: &'static str,
    flag: &'static [&'static str],
    capacity: Capacity,
) -> Part {
    Part {
        name,
        arch: Arch::Ecp5,
        device,
        board: "ULX3S",
        constraints: "constraints/ulx3s.lpf",
        constraints_text: ULX3S,
        synth: "synth_ecp5",
        nextpnr_args: flag,
        capacity,
    }
}

/// Every part the flow knows. The capacities are the ones nextpnr reports as available (a
/// test checks the default parts against its report).
pub const PARTS: &[Part] = &[
    Part {
        name: "ice40-up5k",
        arch: Arch::Ice40,
        device: "iCE40UP5K-SG48",
        board: "iCEBreaker",
        constraints: "constraints/icebreaker.pcf",
        constraints_text: ICEBREAKER,
        // UltraPlus has SB_MAC16 multipliers; Yosys maps to them only when asked.
        synth: "synth_ice40 -dsp",
        nextpnr_args: &["--up5k", "--package", "sg48"],
        capacity: Capacity {
            luts: 5280,
            ffs: 5280,
            brams: 30,
            dsps: 8,
        },
    },
    Part {
        name: "ice40-hx8k",
        arch: Arch::Ice40,
        device: "iCE40HX8K-CT256",
        board: "iCE40-HX8K Breakout Board",
        constraints: "constraints/ice40hx8k-breakout.pcf",
        constraints_text: HX8K_BREAKOUT,
        synth: "synth_ice40",
        nextpnr_args: &["--hx8k", "--package", "ct256", "--pcf-allow-unconstrained"],
        capacity: Capacity {
            luts: 7680,
            ffs: 7680,
            brams: 32,
            dsps: 0,
        },
    },
    ecp5(
        "ecp5-85k",
        "LFE5U-85F-CABGA381",
        &["--85k", "--package", "CABGA381"],
        Capacity {
            luts: 83640,
            ffs: 83640,
            brams: 208,
            dsps: 156,
        },
    ),
    ecp5(
        "ecp5-45k",
        "LFE5U-45F-CABGA381",
        &["--45k", "--package", "CABGA381"],
        Capacity {
            luts: 43848,
            ffs: 43848,
            brams: 108,
            dsps: 72,
        },
    ),
    ecp5(
        "ecp5-25k",
        "LFE5U-25F-CABGA381",
        &["--25k", "--package", "CABGA381"],
        Capacity {
            luts: 24288,
            ffs: 24288,
            brams: 56,
            dsps: 28,
        },
    ),
];

/// The part called `name`, or a one-line error listing the known ones.
pub fn part(name: &str) -> Result<&'static Part, FlowError> {
    PARTS.iter().find(|p| p.name == name).ok_or_else(|| {
        FlowError::BadInput(format!(
            "--part {name}: unknown part; one of {}",
            PARTS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
        ))
    })
}

/// The serialising wrapper around a unit: every input bit comes from a shift register fed by
/// one pin, every output bit is captured into a shift register read out through one pin, so a
/// unit with hundreds of ports needs four pins and every unit path starts and ends at a
/// flip-flop. `dbg_*` (state-digest) outputs are left open: they exist for lockstep, not for
/// the SM, and Yosys removes the logic only they read.
#[derive(Clone, Debug, Serialize)]
pub struct Wrapper {
    pub input_bits: usize,
    pub output_bits: usize,
    pub pins: Vec<&'static str>,
    /// Flip-flops of the wrapper itself (the two shift registers and the two input pins'
    /// registers), included in the FF counts.
    pub flip_flops: usize,
    pub open_debug_outputs: Vec<String>,
    #[serde(skip)]
    pub verilog: String,
}

/// Build the wrapper of `module` from its manifest's ports.
pub fn wrapper(module: &str, manifest: &Manifest) -> Result<Wrapper, FlowError> {
    tools::check_module_name(module)?;
    let inputs: Vec<_> = manifest.ports.iter().filter(|p| p.dir == Dir::In).collect();
    let outputs: Vec<_> = manifest
        .ports
        .iter()
        .filter(|p| p.dir == Dir::Out && !p.debug)
        .collect();
    let open_debug_outputs = manifest
        .ports
        .iter()
        .filter(|p| p.dir == Dir::Out && p.debug)
        .map(|p| p.name.clone())
        .collect();
    let ni: usize = inputs.iter().map(|p| p.width).sum();
    let no: usize = outputs.iter().map(|p| p.width).sum();
    if ni == 0 || no == 0 {
        return Err(FlowError::BadInput(format!(
            "{module}: the FPGA wrapper needs at least one input and one non-debug output"
        )));
    }
    let mut v = String::new();
    v.push_str(&format!(
        "// Serialising FPGA wrapper of {module} (generated by warpforge fpga): {ni} input bits\n\
         // shifted in through `sin`, {no} output bits captured on `load` and shifted out\n\
         // through `sout`.\n\
         module {TOP}(input wire clk, input wire sin, input wire load, output wire sout);\n\
         \x20   reg sin_q, load_q;\n\
         \x20   reg [{}:0] in_sr;\n\
         \x20   reg [{}:0] out_sr;\n\
         \x20   wire [{}:0] unit_out;\n\
         \x20   always @(posedge clk) begin\n\
         \x20       sin_q <= sin;\n\
         \x20       load_q <= load;\n\
         \x20   end\n",
        ni - 1,
        no - 1,
        no - 1
    ));
    if ni == 1 {
        v.push_str("    always @(posedge clk) in_sr <= sin_q;\n");
    } else {
        v.push_str(&format!(
            "    always @(posedge clk) in_sr <= {{in_sr[{}:0], sin_q}};\n",
            ni - 2
        ));
    }
    v.push_str(
        "    always @(posedge clk) out_sr <= load_q ? unit_out : (out_sr >> 1);\n\
         \x20   assign sout = out_sr[0];\n",
    );
    v.push_str(&format!("    {module} unit(\n        .clock(clk)"));
    let mut at = 0;
    for p in &inputs {
        v.push_str(&format!(
            ",\n        .{}(in_sr[{}:{}])",
            p.name,
            at + p.width - 1,
            at
        ));
        at += p.width;
    }
    at = 0;
    for p in &outputs {
        v.push_str(&format!(
            ",\n        .{}(unit_out[{}:{}])",
            p.name,
            at + p.width - 1,
            at
        ));
        at += p.width;
    }
    v.push_str("\n    );\nendmodule\n");
    Ok(Wrapper {
        input_bits: ni,
        output_bits: no,
        pins: PINS.to_vec(),
        flip_flops: ni + no + 2,
        open_debug_outputs,
        verilog: v,
    })
}

/// nextpnr's router. `Router1` is nextpnr's default and gives the better Fmax on the designs
/// measured here; `Router2` routes large designs several times faster (docs/fpga.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Router {
    #[default]
    Router1,
    Router2,
}

impl Router {
    pub const NAMES: [&'static str; 2] = ["router1", "router2"];

    pub fn parse(name: &str) -> Result<Router, FlowError> {
        match name {
            "router1" => Ok(Router::Router1),
            "router2" => Ok(Router::Router2),
            _ => Err(FlowError::BadInput(format!(
                "--router {name}: unknown router; one of {}",
                Router::NAMES.join(", ")
            ))),
        }
    }

    fn name(self) -> &'static str {
        Router::NAMES[self as usize]
    }
}

/// What the flow runs: parts, seeds, time limit, and where to look for the tools.
pub struct Options {
    pub parts: Vec<&'static Part>,
    pub seeds: u32,
    /// Seeds run are `first_seed ..= first_seed + seeds - 1` (to add seeds to an earlier run).
    pub first_seed: u32,
    pub limit: Duration,
    /// Place and route the parts that fit (false: synthesis and the fit check only).
    pub place: bool,
    /// Seeds placed and routed at once (each nextpnr runs single-threaded).
    pub jobs: usize,
    pub router: Router,
    pub search_path: OsString,
}

impl Options {
    pub fn new(parts: Vec<&'static Part>, seeds: u32) -> Options {
        Options {
            parts,
            seeds,
            first_seed: 1,
            limit: DEFAULT_LIMIT,
            place: true,
            jobs: 1,
            router: Router::default(),
            search_path: tools::search_path(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FpgaReport {
    pub unit: String,
    pub module: String,
    /// Placer seeds per part; 0 for a fit check only.
    pub seeds: u32,
    pub yosys: String,
    pub wrapper: Wrapper,
    /// One entry per part, keyed by part name.
    pub parts: BTreeMap<String, PartReport>,
}

impl FpgaReport {
    /// Every part fitted and was placed and routed (with `place` off: every part fitted).
    pub fn ok(&self) -> bool {
        self.parts.values().all(PartReport::ok)
    }
}

/// Resources the synthesised design uses, in the units of [`Capacity`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Used {
    /// LUT4s; on ECP5 each CCU2C carry cell and each TRELLIS_DPR16X4 counts as two (they take
    /// two slice halves).
    pub luts: u64,
    pub ffs: u64,
    pub brams: u64,
    pub dsps: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct PartReport {
    pub device: String,
    pub board: String,
    pub constraints: String,
    pub nextpnr: Option<String>,
    /// The router chosen for nextpnr (recorded also for a part not placed).
    pub router: Router,
    /// From the synthesis, wrapper included; `None` when the synthesis did not finish.
    pub used: Option<Used>,
    pub available: Capacity,
    /// `None` when the synthesis did not finish (then `error` says why).
    pub fits: Option<bool>,
    /// Why the design does not fit (each resource over the part's count).
    pub reason: Option<String>,
    /// nextpnr's utilisation (first seed): every resource type used.
    pub placed: BTreeMap<String, Utilisation>,
    /// The clock target of the constraint file, as nextpnr read it.
    pub clock_target_mhz: Option<f64>,
    /// Fmax achieved, over the seeds; absent when the design was not placed and routed.
    pub fmax_mhz: Option<Fmax>,
    /// The slowest path of the first seed.
    pub critical_path: Option<CriticalPath>,
    /// A synthesis that did not finish, or a place-and-route failure of a design that fits by
    /// the synthesis figures.
    pub error: Option<String>,
    pub synth_s: f64,
    pub pnr_s: f64,
}

impl PartReport {
    pub fn ok(&self) -> bool {
        self.fits == Some(true) && self.error.is_none()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Utilisation {
    pub used: u64,
    pub available: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fmax {
    pub min: f64,
    pub median: f64,
    pub max: f64,
    /// (seed, MHz) per seed, in seed order.
    pub per_seed: Vec<SeedFmax>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeedFmax {
    pub seed: u32,
    pub mhz: f64,
}

impl Fmax {
    pub fn from_seeds(per_seed: Vec<SeedFmax>) -> Option<Fmax> {
        let mut v: Vec<f64> = per_seed.iter().map(|s| s.mhz).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Some(Fmax {
            min: v[0],
            median,
            max: v[n - 1],
            per_seed,
        })
    }
}

/// The synthesis figures of one family in [`Used`] units.
pub fn used_of(arch: Arch, r: &FpgaResources) -> Used {
    let count = |name: &str| r.cells.get(name).copied().unwrap_or(0);
    match arch {
        Arch::Ice40 => Used {
            luts: r.luts,
            ffs: r.ffs,
            brams: r.brams,
            dsps: r.dsps,
        },
        Arch::Ecp5 => Used {
            luts: r.luts + 2 * count("CCU2C") + 2 * count("TRELLIS_DPR16X4"),
            ffs: r.ffs,
            brams: r.brams,
            dsps: count("MULT18X18D"),
        },
    }
}

/// Why `used` does not fit `cap`, or `None` when it does.
pub fn misfit(used: &Used, cap: &Capacity) -> Option<String> {
    let over: Vec<String> = [
        ("LUTs", used.luts, cap.luts),
        ("FFs", used.ffs, cap.ffs),
        ("BRAMs", used.brams, cap.brams),
        ("DSPs", used.dsps, cap.dsps),
    ]
    .iter()
    .filter(|(_, u, c)| u > c)
    .map(|(what, u, c)| {
        format!(
            "{u} {what} needed, {c} available ({:.0} %)",
            100.0 * *u as f64 / (*c).max(1) as f64
        )
    })
    .collect();
    (!over.is_empty()).then(|| over.join("; "))
}

/// Find nextpnr for `arch`: the native build, or for ECP5 the YoWASP one from PyPI.
pub fn find_nextpnr(arch: Arch, search_path: &OsStr) -> Result<PathBuf, FlowError> {
    let tool = arch.nextpnr();
    match tools::require_in(tool, search_path) {
        Ok(p) => Ok(p),
        Err(_) if arch == Arch::Ecp5 => tools::require_in(&format!("yowasp-{tool}"), search_path)
            .map_err(|_| FlowError::MissingPip {
                tool: tool.into(),
                package: format!("yowasp-{tool}"),
            }),
        Err(e) => Err(e),
    }
}

/// Run the flow on `design` for every part of `opts`. `progress` gets one line per step.
pub fn fpga(
    design: &Design,
    manifest: &Manifest,
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<FpgaReport, FlowError> {
    if opts.jobs == 0 || opts.jobs > MAX_SEEDS as usize {
        return Err(FlowError::BadInput(format!(
            "--jobs {}: must be from 1 to {MAX_SEEDS}",
            opts.jobs
        )));
    }
    if opts.first_seed == 0 || opts.first_seed > MAX_FIRST_SEED {
        return Err(FlowError::BadInput(format!(
            "--first-seed {}: must be from 1 to {MAX_FIRST_SEED}",
            opts.first_seed
        )));
    }
    if opts.seeds == 0 || opts.seeds > MAX_SEEDS {
        return Err(FlowError::BadInput(format!(
            "--seeds {}: must be from 1 to {MAX_SEEDS}",
            opts.seeds
        )));
    }
    let wrap = wrapper(&design.module, manifest)?;
    // Every tool first, so a missing one stops the run before any work.
    let yosys = tools::require_in("yosys", &opts.search_path)?;
    let mut nextpnr = BTreeMap::new();
    for p in opts.parts.iter().filter(|_| opts.place) {
        if let std::collections::btree_map::Entry::Vacant(e) = nextpnr.entry(p.arch.nextpnr()) {
            e.insert(find_nextpnr(p.arch, &opts.search_path)?);
        }
    }
    let version = tools::version(&yosys)?;
    let dir = tempfile::Builder::new()
        .prefix("warpforge-fpga-")
        .tempdir()
        .map_err(|e| io_error("could not create a temporary directory", &e))?;
    let d = &dir.path().to_path_buf();
    write(&d.join("design.v"), &design.verilog)?;
    write(&d.join("wrapper.v"), &wrap.verilog)?;

    let mut parts = BTreeMap::new();
    // Netlists by synthesis command: parts of one family with one command share one.
    // A synthesis that timed out is kept as its error and its time.
    type Synthesis = Result<(String, Used, f64), (String, f64)>;
    let mut netlists: BTreeMap<&str, Synthesis> = BTreeMap::new();
    let mut keep = false;
    for p in &opts.parts {
        let mut r = PartReport {
            device: p.device.into(),
            board: p.board.into(),
            constraints: p.constraints.into(),
            nextpnr: None,
            router: opts.router,
            used: None,
            available: p.capacity,
            fits: None,
            reason: None,
            placed: BTreeMap::new(),
            clock_target_mhz: None,
            fmax_mhz: None,
            critical_path: None,
            error: None,
            synth_s: 0.0,
            pnr_s: 0.0,
        };
        let synthesis = match netlists.get(p.synth) {
            Some(n) => n.clone(),
            None => {
                progress(&format!("fpga {}: {} ({})", design.module, p.synth, p.name));
                let t = Instant::now();
                let tag = p.synth.replace([' ', '-'], "_");
                // A synthesis past the time limit is this part's error (and that of every part
                // sharing the synthesis); the other parts still run. Any other failure ends
                // the run.
                let n = match synthesize(&yosys, d, p, &tag, opts.limit) {
                    Ok(res) => Ok((
                        format!("{tag}.netlist.json"),
                        used_of(p.arch, &res),
                        secs(t),
                    )),
                    Err(e @ FlowError::Timeout { .. }) => {
                        keep = true;
                        let log = d.join(format!("{tag}.log"));
                        Err((format!("synthesis: {e} (log: {})", log.display()), secs(t)))
                    }
                    Err(e) => {
                        // Its log, named in the error, stays.
                        let _ = dir.keep();
                        return Err(e);
                    }
                };
                netlists.insert(p.synth, n.clone());
                n
            }
        };
        let (netlist, used) = match synthesis {
            Ok((netlist, used, synth_s)) => {
                r.synth_s = synth_s;
                (netlist, used)
            }
            Err((e, synth_s)) => {
                progress(&format!("fpga {}: {} {e}", design.module, p.name));
                r.synth_s = synth_s;
                r.error = Some(e);
                parts.insert(p.name.to_string(), r);
                continue;
            }
        };
        let reason = misfit(&used, &p.capacity);
        r.used = Some(used);
        r.fits = Some(reason.is_none());
        r.reason = reason.clone();
        if let Some(why) = reason {
            progress(&format!(
                "fpga {}: {} does not fit: {why}; not placed",
                design.module, p.name
            ));
            parts.insert(p.name.to_string(), r);
            continue;
        }
        if !opts.place {
            progress(&format!(
                "fpga {}: {} fits; not placed (fit check only)",
                design.module, p.name
            ));
            parts.insert(p.name.to_string(), r);
            continue;
        }
        let tool = &nextpnr[p.arch.nextpnr()];
        r.nextpnr = tools::version(tool).ok();
        let constraints = Path::new(p.constraints)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        write(&d.join(&constraints), p.constraints_text)?;
        let t = Instant::now();
        let mut seeds = vec![];
        // Seeds run `jobs` at a time (each nextpnr is single-threaded); results are taken in
        // seed order, and the first failing seed ends the part.
        let last = opts.first_seed + opts.seeds - 1;
        let all: Vec<u32> = (opts.first_seed..=last).collect();
        'chunks: for chunk in all.chunks(opts.jobs.max(1)) {
            for seed in chunk {
                progress(&format!(
                    "fpga {}: {} place and route, seed {seed}/{last}",
                    design.module, p.name
                ));
            }
            let results: Vec<(u32, Result<Pnr, FlowError>)> = std::thread::scope(|s| {
                let runs: Vec<_> = chunk
                    .iter()
                    .map(|&seed| {
                        let (netlist, constraints) = (&netlist, &constraints);
                        s.spawn(move || {
                            place_and_route(tool, d, p, netlist, constraints, seed, opts)
                        })
                    })
                    .collect();
                chunk
                    .iter()
                    .zip(runs)
                    .map(|(&seed, run)| {
                        let res = run.join().unwrap_or_else(|_| {
                            Err(FlowError::Io {
                                what: format!("place and route of seed {seed}"),
                                error: "its thread panicked".into(),
                            })
                        });
                        (seed, res)
                    })
                    .collect()
            });
            for (seed, res) in results {
                match res {
                    Ok(pnr) => {
                        progress(&format!(
                            "fpga {}: {} seed {seed}: {:.1} MHz",
                            design.module, p.name, pnr.fmax
                        ));
                        if seeds.is_empty() {
                            r.placed = pnr.placed;
                            r.clock_target_mhz = pnr.target;
                            r.critical_path = pnr.critical_path;
                        }
                        seeds.push(SeedFmax {
                            seed,
                            mhz: pnr.fmax,
                        });
                    }
                    Err(e) => {
                        keep = true;
                        progress(&format!(
                            "fpga {}: {} seed {seed}: {e}",
                            design.module, p.name
                        ));
                        r.error = Some(format!("seed {seed}: {e}"));
                        break 'chunks;
                    }
                }
            }
        }
        r.pnr_s = secs(t);
        if r.error.is_none() {
            r.fmax_mhz = Fmax::from_seeds(seeds);
        }
        parts.insert(p.name.to_string(), r);
    }
    if keep {
        // The logs named in the errors stay.
        let _ = dir.keep();
    }
    Ok(FpgaReport {
        unit: manifest.unit.clone(),
        module: design.module.clone(),
        seeds: if opts.place { opts.seeds } else { 0 },
        yosys: version,
        wrapper: wrap,
        parts,
    })
}

fn secs(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 10.0).round() / 10.0
}

fn synthesize(
    yosys: &Path,
    dir: &Path,
    part: &Part,
    tag: &str,
    limit: Duration,
) -> Result<FpgaResources, FlowError> {
    let script = format!(
        "read_verilog design.v\nread_verilog wrapper.v\n{} -top {TOP} -json {tag}.netlist.json\n\
         tee -q -o {tag}.stat.json stat -json\n",
        part.synth
    );
    let (ys, log) = (format!("{tag}.ys"), format!("{tag}.log"));
    write(&dir.join(&ys), &script)?;
    let out = tools::run(
        Command::new(yosys)
            .args(["-Q", "-T", "-q", "-l", &log, "-s", &ys])
            .current_dir(dir),
        limit,
    )?;
    if !out.success() {
        let text = std::fs::read_to_string(dir.join(&log)).unwrap_or_default() + &out.combined();
        return Err(FlowError::ToolFailed {
            tool: "yosys".into(),
            step: part.synth.into(),
            message: first_error(&text),
            log: Some(dir.join(log)),
        });
    }
    let stat = read_stat(&dir.join(format!("{tag}.stat.json")), TOP)?;
    Ok(FpgaResources::from_stat(part.arch.family(), stat))
}

/// One seed's result.
#[derive(Debug, PartialEq)]
pub struct Pnr {
    pub fmax: f64,
    pub target: Option<f64>,
    pub placed: BTreeMap<String, Utilisation>,
    pub critical_path: Option<CriticalPath>,
}

/// The longest register-to-register path nextpnr reports: where the time goes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CriticalPath {
    /// First and last cell of the path (nextpnr's names: the RTL signal names survive in them).
    pub from: String,
    pub to: String,
    /// LUT (and carry) stages on the path.
    pub logic_levels: usize,
    pub delay_ns: f64,
    /// Of `delay_ns`, the part spent in routing.
    pub routing_ns: f64,
}

/// The slowest clock-to-clock path of a `critical_paths` list.
fn critical_path(paths: &[Value]) -> Option<CriticalPath> {
    paths
        .iter()
        .filter(|p| {
            let end = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("<async>");
            end("from") != "<async>" && end("to") != "<async>"
        })
        .filter_map(|p| {
            let segs = p.get("path")?.as_array()?;
            let delay = |s: &Value| s.get("delay").and_then(Value::as_f64).unwrap_or(0.0);
            let kind = |s: &Value| {
                s.get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let cell = |s: &Value, end: &str| {
                s.get(end)
                    .and_then(|c| c.get("cell"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let round = |x: f64| (x * 1000.0).round() / 1000.0;
            Some(CriticalPath {
                from: cell(segs.first()?, "from"),
                to: cell(segs.last()?, "to"),
                logic_levels: segs.iter().filter(|s| kind(s) == "logic").count(),
                delay_ns: round(segs.iter().map(delay).sum()),
                routing_ns: round(
                    segs.iter()
                        .filter(|s| kind(s) == "routing")
                        .map(delay)
                        .sum(),
                ),
            })
        })
        .max_by(|a, b| a.delay_ns.total_cmp(&b.delay_ns))
}

fn place_and_route(
    tool: &Path,
    dir: &Path,
    part: &Part,
    netlist: &str,
    constraints: &str,
    seed: u32,
    opts: &Options,
) -> Result<Pnr, FlowError> {
    let report = format!("{}.seed{seed}.report.json", part.name);
    let log = format!("{}.seed{seed}.log", part.name);
    let cflag = match part.arch {
        Arch::Ice40 => "--pcf",
        Arch::Ecp5 => "--lpf",
    };
    let seed_s = seed.to_string();
    let log_path = dir.join(&log);
    let failed = |message: String| FlowError::ToolFailed {
        tool: part.arch.nextpnr().into(),
        step: format!("({})", part.name),
        message,
        log: Some(log_path.clone()),
    };
    // nextpnr writes its own log (`--log`) as it goes, so a seed killed at the time limit
    // still shows how far it got: placing, or which routing iteration.
    let out = match tools::run(
        Command::new(tool)
            .args(part.nextpnr_args)
            .args(["--json", netlist, cflag, constraints, "--seed", &seed_s])
            .args(["--report", &report, "--timing-allow-fail", "--threads", "1"])
            .args(["--router", opts.router.name(), "--log", &log])
            .current_dir(dir),
        opts.limit,
    ) {
        Ok(out) => out,
        Err(FlowError::Timeout { limit, .. }) => {
            return Err(failed(format!(
                "did not finish within {} s and was killed",
                limit.as_secs()
            )))
        }
        Err(e) => return Err(e),
    };
    if !out.success() {
        // What nextpnr printed outside its log (a crash, the WebAssembly runtime's errors)
        // goes after it.
        let mut text = std::fs::read_to_string(&log_path).unwrap_or_default();
        text.push_str("\n--- stdout and stderr ---\n");
        text.push_str(&out.combined());
        write(&log_path, &text)?;
        return Err(failed(first_error(&out.combined())));
    }
    let text = std::fs::read_to_string(dir.join(&report))
        .map_err(|e| io_error(&format!("could not read {report}"), &e))?;
    parse_report(&text).map_err(|what| FlowError::BadOutput {
        tool: part.arch.nextpnr().into(),
        what: format!("{report}: {what}"),
    })
}

/// Read nextpnr's `--report` JSON: the lowest achieved Fmax over its clocks, the clock target,
/// and every resource type used.
pub fn parse_report(text: &str) -> Result<Pnr, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
    let clocks = json
        .get("fmax")
        .and_then(Value::as_object)
        .filter(|m| !m.is_empty())
        .ok_or("no clock in `fmax`")?;
    let mut fmax = f64::INFINITY;
    let mut target: Option<f64> = None;
    for c in clocks.values() {
        let a = c
            .get("achieved")
            .and_then(Value::as_f64)
            .ok_or("a clock without `achieved`")?;
        fmax = fmax.min(a);
        if let Some(t) = c.get("constraint").and_then(Value::as_f64) {
            target = Some(target.map_or(t, |x: f64| x.max(t)));
        }
    }
    let mut placed = BTreeMap::new();
    for (k, v) in json
        .get("utilization")
        .and_then(Value::as_object)
        .ok_or("no `utilization`")?
    {
        let num = |f: &str| v.get(f).and_then(Value::as_u64);
        let (Some(used), Some(available)) = (num("used"), num("available")) else {
            return Err(format!("utilization of {k} is not two numbers"));
        };
        if used > 0 {
            placed.insert(k.clone(), Utilisation { used, available });
        }
    }
    let critical_path = json
        .get("critical_paths")
        .and_then(Value::as_array)
        .and_then(|p| critical_path(p));
    Ok(Pnr {
        critical_path,
        fmax: (fmax * 100.0).round() / 100.0,
        target: target.map(|t| (t * 100.0).round() / 100.0),
        placed,
    })
}

fn io_error(what: &str, e: &std::io::Error) -> FlowError {
    FlowError::Io {
        what: what.to_string(),
        error: e.to_string(),
    }
}

fn write(path: &Path, text: &str) -> Result<(), FlowError> {
    std::fs::write(path, text)
        .map_err(|e| io_error(&format!("could not write {}", path.display()), &e))
}

impl fmt::Display for FpgaReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = &self.wrapper;
        writeln!(
            f,
            "fpga {} (module {}), {}; wrapper: {} input bits in through `sin`, \
             {} output bits out through `sout`, {} pins",
            self.unit,
            self.module,
            match self.seeds {
                0 => "fit check only".to_string(),
                1 => "1 placer seed".to_string(),
                n => format!("{n} placer seeds"),
            },
            w.input_bits,
            w.output_bits,
            w.pins.len()
        )?;
        writeln!(
            f,
            "  {:<11} {:<20} {:>13} {:>13} {:>9} {:>7}  {:<4} Fmax MHz min / median / max (target)",
            "part", "device", "LUTs", "FFs", "BRAMs", "DSPs", "fit"
        )?;
        for (name, p) in &self.parts {
            // "?" where the synthesis did not finish.
            let frac = |u: Option<u64>, a: u64| match u {
                Some(u) => format!("{u}/{a}"),
                None => format!("?/{a}"),
            };
            let used = |k: fn(&Used) -> u64| p.used.as_ref().map(k);
            let fmax = match (&p.fmax_mhz, &p.error) {
                (Some(m), _) => format!(
                    "{:.1} / {:.1} / {:.1} ({})",
                    m.min,
                    m.median,
                    m.max,
                    p.clock_target_mhz.map_or("-".into(), |t| format!("{t:.0}"))
                ),
                (None, Some(_)) => "failed".into(),
                (None, None) => "not placed".into(),
            };
            writeln!(
                f,
                "  {:<11} {:<20} {:>13} {:>13} {:>9} {:>7}  {:<4} {}",
                name,
                p.device,
                frac(used(|u| u.luts), p.available.luts),
                frac(used(|u| u.ffs), p.available.ffs),
                frac(used(|u| u.brams), p.available.brams),
                frac(used(|u| u.dsps), p.available.dsps),
                match p.fits {
                    Some(true) => "yes",
                    Some(false) => "NO",
                    None => "?",
                },
                fmax
            )?;
        }
        for (name, p) in &self.parts {
            if let Some(why) = &p.reason {
                writeln!(f, "  {name}: does not fit: {why}")?;
            }
            match (&p.error, p.used) {
                (Some(e), None) => writeln!(f, "  {name}: {e}")?,
                (Some(e), Some(_)) => writeln!(f, "  {name}: place and route failed: {e}")?,
                (None, _) => {}
            }
            if let Some(c) = &p.critical_path {
                writeln!(
                    f,
                    "  {name}: critical path (seed 1) {:.2} ns, {} logic levels, {:.2} ns routing: {} -> {}",
                    c.delay_ns, c.logic_levels, c.routing_ns, c.from, c.to
                )?;
            }
        }
        writeln!(
            f,
            "  (FFs include the wrapper's {}; `dbg_*` outputs left open: {})",
            w.flip_flops,
            if w.open_debug_outputs.is_empty() {
                "none".to_string()
            } else {
                w.open_debug_outputs.join(", ")
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let s = |v: &[f64]| {
            v.iter()
                .enumerate()
                .map(|(i, &mhz)| SeedFmax {
                    seed: i as u32 + 1,
                    mhz,
                })
                .collect::<Vec<_>>()
        };
        let m = Fmax::from_seeds(s(&[90.0, 70.0, 80.0])).unwrap();
        assert_eq!((m.min, m.median, m.max), (70.0, 80.0, 90.0));
        assert_eq!(m.per_seed[0].mhz, 90.0);
        let m = Fmax::from_seeds(s(&[90.0, 70.0, 80.0, 60.0])).unwrap();
        assert_eq!((m.min, m.median, m.max), (60.0, 75.0, 90.0));
        assert!(Fmax::from_seeds(vec![]).is_none());
    }

    #[test]
    fn report_gives_the_slowest_clock_and_the_used_resources() {
        let text = r#"{"fmax": {"a": {"achieved": 92.876, "constraint": 100},
                                 "b": {"achieved": 120.5, "constraint": 100}},
            "utilization": {"ICESTORM_LC": {"available": 5280, "used": 94},
                            "ICESTORM_DSP": {"available": 8, "used": 0}}}"#;
        let r = parse_report(text).unwrap();
        assert_eq!(r.fmax, 92.88);
        assert_eq!(r.target, Some(100.0));
        assert_eq!(r.placed.len(), 1);
        assert_eq!(
            r.placed["ICESTORM_LC"],
            Utilisation {
                used: 94,
                available: 5280
            }
        );
        assert_eq!(r.critical_path, None);
        assert!(parse_report(r#"{"fmax": {}, "utilization": {}}"#).is_err());
        assert!(parse_report(r#"{"utilization": {}}"#).is_err());
        assert!(parse_report("nope").is_err());
    }

    #[test]
    fn critical_path_is_the_slowest_clocked_one() {
        let seg = |t: &str, d: f64, from: &str, to: &str| {
            format!(
                r#"{{"type": "{t}", "delay": {d}, "from": {{"cell": "{from}"}}, "to": {{"cell": "{to}"}}}}"#
            )
        };
        let path = |from: &str, to: &str, segs: &[String]| {
            format!(
                r#"{{"from": "{from}", "to": "{to}", "path": [{}]}}"#,
                segs.join(",")
            )
        };
        let clocked = path(
            "posedge clk",
            "posedge clk",
            &[
                seg("clk-to-q", 1.0, "a", "a"),
                seg("routing", 2.0, "a", "b"),
                seg("logic", 0.5, "b", "b"),
                seg("routing", 1.5, "b", "c"),
                seg("logic", 0.5, "c", "c"),
                seg("setup", 0.25, "c", "d"),
            ],
        );
        let short = path("posedge clk", "posedge clk", &[seg("logic", 1.0, "x", "y")]);
        let io = path("<async>", "posedge clk", &[seg("routing", 99.0, "p", "q")]);
        let text = format!(
            r#"{{"fmax": {{"c": {{"achieved": 1.0}}}}, "utilization": {{}},
                "critical_paths": [{short}, {io}, {clocked}]}}"#
        );
        let c = parse_report(&text).unwrap().critical_path.unwrap();
        assert_eq!((c.from.as_str(), c.to.as_str()), ("a", "d"));
        assert_eq!(c.logic_levels, 2);
        assert_eq!((c.delay_ns, c.routing_ns), (5.75, 3.5));
    }

    #[test]
    fn misfit_names_every_resource_over() {
        let cap = PARTS[0].capacity;
        let fits = Used {
            luts: cap.luts,
            ffs: 10,
            brams: cap.brams,
            dsps: 0,
        };
        assert_eq!(misfit(&fits, &cap), None);
        let over = Used {
            luts: 2 * cap.luts,
            brams: cap.brams + 1,
            ..fits
        };
        let why = misfit(&over, &cap).unwrap();
        assert!(
            why.starts_with("10560 LUTs needed, 5280 available (200 %)"),
            "{why}"
        );
        assert!(why.contains("31 BRAMs needed, 30 available"), "{why}");
        assert!(!why.contains("FFs"), "{why}");
    }

    #[test]
    fn unknown_part_lists_the_known_ones() {
        let e = part("ice40-up9k").unwrap_err().to_string();
        assert!(
            e.starts_with(
                "--part ice40-up9k: unknown part; one of ice40-up5k, ice40-hx8k, ecp5-85k"
            ),
            "{e}"
        );
        for p in PARTS {
            assert_eq!(part(p.name).unwrap().name, p.name);
        }
    }

    #[test]
    fn wrapper_connects_every_input_and_every_functional_output() {
        let u = crate::registry::Unit::resolve("dwr-pst", &[]).unwrap();
        let (d, m) = (u.design(), u.manifest());
        let w = wrapper(&d.module, &m).unwrap();
        let width = |dir: Dir, debug: bool| -> usize {
            m.ports
                .iter()
                .filter(|p| p.dir == dir && (dir == Dir::In || p.debug == debug))
                .map(|p| p.width)
                .sum()
        };
        assert_eq!(w.input_bits, width(Dir::In, false));
        assert_eq!(w.output_bits, width(Dir::Out, false));
        assert_eq!(w.flip_flops, w.input_bits + w.output_bits + 2);
        assert!(!w.open_debug_outputs.is_empty());
        for p in &m.ports {
            let connected = w.verilog.contains(&format!(".{}(", p.name));
            assert_eq!(connected, !p.debug, "{}", p.name);
        }
        // The wrapper and the unit compile together (Icarus, as the lint flow uses it).
        let Ok(iverilog) = tools::require("iverilog") else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("design.v"), &d.verilog).unwrap();
        std::fs::write(dir.path().join("wrapper.v"), &w.verilog).unwrap();
        let out = tools::run(
            Command::new(iverilog)
                .args([
                    "-g2005",
                    "-s",
                    TOP,
                    "-o",
                    "/dev/null",
                    "design.v",
                    "wrapper.v",
                ])
                .current_dir(dir.path()),
            Duration::from_secs(60),
        )
        .unwrap();
        assert!(out.success(), "{}", out.combined());
    }
}
