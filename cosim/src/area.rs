//! The area flow, three views side by side: storage bits from the manifest, Yosys generic
//! synthesis (cell counts and a CMOS transistor estimate), and FPGA resources on iCE40, ECP5
//! and Xilinx 7-series; optionally the difference to a baseline design ([`AreaReport::set_overhead`]).
//! The fourth view, CACTI 7 SRAM area / access time / energy of each storage table at 90 and
//! 22 nm, is [`crate::cacti`].

use crate::tools::{self, FlowError};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use warpforge_contract::manifest::{split_storage, StorageSplit, SM_STORAGE_BASELINE_BYTES};
use warpforge_contract::Manifest;
use warpforge_hdl::Design;

/// Time limit of a unit's Yosys runs together (each run gets what is left of it).
pub const LIMIT: Duration = Duration::from_secs(1800);
/// Yosys runs at once; the machine has two cores.
const WORKERS: usize = 2;

#[derive(Clone, Debug, Serialize)]
pub struct AreaReport {
    pub unit: String,
    pub module: String,
    pub storage_bits: StorageBits,
    pub yosys: GenericArea,
    pub fpga: FpgaArea,
    /// SRAM area, access time and energy of each table from CACTI (flip-flops where CACTI
    /// refuses the table); null only for a design without tables.
    pub cacti: Option<crate::cacti::CactiReport>,
    /// The difference to a baseline configuration (`warpforge area … --over key=value`).
    pub overhead: Option<Overhead>,
    /// Per top-level sub-block figures (`warpforge area … --blocks`; always for the SM).
    pub blocks: Option<Vec<BlockArea>>,
    /// The syntheses kept the module hierarchy (`warpforge area … --hier`): each distinct
    /// module synthesised once, the totals counting it once per instance.
    pub hierarchical: bool,
}

/// One top-level sub-block of a design (an instance of the top module), from hierarchical
/// syntheses: each block is synthesised inside the design but not flattened into it, so the
/// blocks add up to a little more than the flattened totals (no optimisation across their
/// boundaries). `block` is the instance name; `(top)` is the top module's own logic.
#[derive(Clone, Debug, Serialize)]
pub struct BlockArea {
    pub block: String,
    pub cells: u64,
    pub flip_flops: u64,
    pub ice40: FpgaResources,
    pub ecp5: FpgaResources,
    pub xilinx: FpgaResources,
}

/// This design minus a baseline design, figure by figure (positive: this one is larger).
#[derive(Clone, Debug, Serialize)]
pub struct Overhead {
    pub baseline_module: String,
    pub storage_bits: i64,
    pub cells: i64,
    pub flip_flops: i64,
    pub transistors: i64,
    pub ice40_luts: i64,
    pub ecp5_luts: i64,
    pub xilinx_luts: i64,
    /// The baseline's figures, so that each delta can be read as a fraction of it.
    pub baseline: BaselineFigures,
}

#[derive(Clone, Debug, Serialize)]
pub struct BaselineFigures {
    pub storage_bits: u64,
    pub cells: u64,
    pub flip_flops: u64,
    pub transistors: u64,
    pub ice40_luts: u64,
    pub ecp5_luts: u64,
    pub xilinx_luts: u64,
}

impl AreaReport {
    fn figures(&self) -> BaselineFigures {
        BaselineFigures {
            storage_bits: self.storage_bits.total as u64,
            cells: self.yosys.total_cells,
            flip_flops: self.yosys.flip_flops,
            transistors: self.yosys.cmos.transistors,
            ice40_luts: self.fpga.ice40.luts,
            ecp5_luts: self.fpga.ecp5.luts,
            xilinx_luts: self.fpga.xilinx.luts,
        }
    }

    /// Record this report's difference to `baseline` (the same flow run on another design).
    pub fn set_overhead(&mut self, baseline: &AreaReport) {
        let (a, b) = (self.figures(), baseline.figures());
        let d = |x: u64, y: u64| x as i64 - y as i64;
        self.overhead = Some(Overhead {
            baseline_module: baseline.module.clone(),
            storage_bits: d(a.storage_bits, b.storage_bits),
            cells: d(a.cells, b.cells),
            flip_flops: d(a.flip_flops, b.flip_flops),
            transistors: d(a.transistors, b.transistors),
            ice40_luts: d(a.ice40_luts, b.ice40_luts),
            ecp5_luts: d(a.ecp5_luts, b.ecp5_luts),
            xilinx_luts: d(a.xilinx_luts, b.xilinx_luts),
            baseline: b,
        });
    }
}

/// State bits the manifest declares, in total and per table.
#[derive(Clone, Debug, Serialize)]
pub struct StorageBits {
    pub total: usize,
    pub tables: Vec<TableBits>,
    /// Counted (paper) / extra / baseline-held bits, by table-name prefix (see the contract's
    /// `manifest::split_storage`).
    pub classes: StorageSplit,
    /// The counted bits as a fraction of a 128 KB per-SM storage (RF + shared + L1D).
    pub counted_share_of_sm: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct TableBits {
    pub name: String,
    pub entries: usize,
    pub bits: usize,
    pub total: usize,
}

/// Yosys generic synthesis (`synth -flatten`, RAM arrays kept as memories: `GENERIC_FINE`):
/// gate-level cells, and after mapping to
/// NAND/NOR/NOT (`abc -g cmos2 -fast`) an estimated transistor count. ABC's fast script, for
/// every design alike so that figures compare: the default one ran past half an hour on the
/// 48-warp Recency Register design (the fast one takes under two minutes there). Its mapping is
/// coarser: on the default units it estimated from 2 % fewer to 64 % more transistors than the
/// default script (warp-sched GTO +10 %, simt-stack +64 %, dwr +33 %), so read the estimate as a
/// comparison between designs, not an absolute count.
#[derive(Clone, Debug, Serialize)]
pub struct GenericArea {
    pub version: String,
    pub total_cells: u64,
    /// Flip-flop and latch cells among `cells`.
    pub flip_flops: u64,
    /// RAM-primitive arrays left as `$mem_v2` cells (counted in `cells`, not in the
    /// transistors): their area is in the CACTI view.
    pub ram_arrays: u64,
    pub cells: BTreeMap<String, u64>,
    pub cmos: CmosArea,
}

#[derive(Clone, Debug, Serialize)]
pub struct CmosArea {
    /// Yosys' "Estimated number of transistors" (`stat -tech cmos`).
    pub transistors: u64,
    pub cells: BTreeMap<String, u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FpgaArea {
    pub ice40: FpgaResources,
    pub ecp5: FpgaResources,
    pub xilinx: FpgaResources,
}

/// One family's mapped cells and their summary by resource kind.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FpgaResources {
    pub luts: u64,
    pub ffs: u64,
    pub carries: u64,
    /// Block RAM primitives (a Xilinx RAMB36 counts as one, like a RAMB18).
    pub brams: u64,
    pub dsps: u64,
    /// LUTs used as memory or shift registers.
    pub lutrams: u64,
    pub total_cells: u64,
    pub cells: BTreeMap<String, u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    Ice40,
    Ecp5,
    Xilinx,
}

impl Family {
    /// Which summary counter a mapped cell adds to, if any.
    fn kind(self, cell: &str) -> Option<Kind> {
        use Kind::*;
        match self {
            Family::Ice40 => match cell {
                "SB_LUT4" => Some(Lut),
                "SB_CARRY" => Some(Carry),
                "SB_MAC16" => Some(Dsp),
                "SB_SPRAM256KA" => Some(Bram),
                c if c.starts_with("SB_DFF") => Some(Ff),
                c if c.starts_with("SB_RAM40_4K") => Some(Bram),
                _ => None,
            },
            Family::Ecp5 => match cell {
                "LUT4" => Some(Lut),
                "TRELLIS_FF" => Some(Ff),
                "CCU2C" => Some(Carry),
                "DP16KD" | "PDPW16KD" => Some(Bram),
                "MULT18X18D" | "ALU54B" => Some(Dsp),
                "TRELLIS_DPR16X4" => Some(LutRam),
                _ => None,
            },
            Family::Xilinx => match cell {
                // An inverter is a LUT1 once placed.
                "INV" => Some(Lut),
                c if c.starts_with("LUT") => Some(Lut),
                c if c.starts_with("FD") || c.starts_with("LD") => Some(Ff),
                c if c.starts_with("CARRY") => Some(Carry),
                c if c.starts_with("RAMB") => Some(Bram),
                c if c.starts_with("DSP") => Some(Dsp),
                c if c.starts_with("RAM") || c.starts_with("SRL") => Some(LutRam),
                _ => None,
            },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Lut,
    Ff,
    Carry,
    Bram,
    Dsp,
    LutRam,
}

impl FpgaResources {
    pub(crate) fn from_stat(family: Family, stat: Stat) -> FpgaResources {
        let mut r = FpgaResources {
            total_cells: stat.total_cells,
            ..Default::default()
        };
        for (cell, &n) in &stat.cells {
            let counter = match family.kind(cell) {
                Some(Kind::Lut) => &mut r.luts,
                Some(Kind::Ff) => &mut r.ffs,
                Some(Kind::Carry) => &mut r.carries,
                Some(Kind::Bram) => &mut r.brams,
                Some(Kind::Dsp) => &mut r.dsps,
                Some(Kind::LutRam) => &mut r.lutrams,
                None => continue,
            };
            *counter += n;
        }
        r.cells = stat.cells;
        r
    }
}

/// Whether a Yosys internal gate-level cell holds state.
/// Memory cells among generic cells: the RAM arrays `GENERIC_FINE` keeps.
fn ram_arrays(cells: &BTreeMap<String, u64>) -> u64 {
    cells
        .iter()
        .filter(|(c, _)| c.starts_with("$mem"))
        .map(|(_, n)| n)
        .sum()
}

fn is_flip_flop(cell: &str) -> bool {
    cell.starts_with("$_") && (cell.contains("DFF") || cell.contains("DLATCH"))
        || cell.starts_with("$_FF_")
        || cell.starts_with("$_SR_")
}

/// One Yosys run of the flow.
struct Job {
    name: &'static str,
    /// The synthesis command, for error messages.
    step: &'static str,
    script: String,
}

/// The Yosys runs of the flow for top module `m`, slowest first so the two workers finish
/// together; with `hier` each keeps the module hierarchy (see [`area_hierarchical`]).
fn flow_jobs(m: &str, hier: bool) -> Vec<Job> {
    let read = "read_verilog design.v";
    let (flat, noflat) = match hier {
        true => ("", "-noflatten "),
        false => ("-flatten ", ""),
    };
    // `stat` sums a hierarchy only under a known top.
    let stat = match hier {
        true => format!("-top {m} "),
        false => String::new(),
    };
    vec![
        Job {
            name: "xilinx",
            step: "synth_xilinx",
            // A unit sits inside an SM, not at the pins: no I/O or clock buffers. Flattened
            // like the other flows unless `hier` (then `stat -top` gives the hierarchy's
            // totals).
            script: format!(
                "{read}\nsynth_xilinx {flat}-top {m} -noiopad -noclkbuf\n\
                 tee -q -o xilinx.json stat {stat}-json\n"
            ),
        },
        Job {
            name: "generic",
            step: "synth",
            // Flattened (unless `hier`) so the counts cover submodules once per instance.
            script: format!(
                "{read}\nsynth {flat}-top {m} -run :fine\n{GENERIC_FINE}\
                 tee -q -o generic.json stat {stat}-json\n\
                 dffunmap\nabc -g cmos2 -fast\ntee -q -o cmos.json stat {stat}-tech cmos -json\n"
            ),
        },
        Job {
            name: "ice40",
            step: "synth_ice40",
            script: format!(
                "{read}\nsynth_ice40 {noflat}-top {m}\ntee -q -o ice40.json stat {stat}-json\n"
            ),
        },
        Job {
            name: "ecp5",
            step: "synth_ecp5",
            script: format!(
                "{read}\nsynth_ecp5 {noflat}-top {m}\ntee -q -o ecp5.json stat {stat}-json\n"
            ),
        },
        Job {
            name: "ff",
            step: "synth",
            // One flip-flop in the CMOS estimate: the cost of a table CACTI refuses.
            script: format!(
                "read_verilog ff.v\nsynth -top {FF_MODULE}\ndffunmap\nabc -g cmos2 -fast\n\
                 tee -q -o ff.json stat -tech cmos -json\n"
            ),
        },
    ]
}

/// The hierarchical runs behind [`BlockArea`]: the same syntheses without flattening, so
/// `stat -json` keeps one entry per module.
fn block_jobs(m: &str) -> Vec<Job> {
    let read = "read_verilog design.v";
    vec![
        Job {
            name: "blocks-xilinx",
            step: "synth_xilinx -noflatten",
            script: format!(
                "{read}\nsynth_xilinx -top {m} -noiopad -noclkbuf\n\
                 tee -q -o blocks-xilinx.json stat -json\n"
            ),
        },
        Job {
            name: "blocks-generic",
            step: "synth (hierarchical)",
            script: format!(
                "{read}\nsynth -top {m} -run :fine\n{GENERIC_FINE}\
                 tee -q -o blocks-generic.json stat -json\n"
            ),
        },
        Job {
            name: "blocks-ice40",
            step: "synth_ice40 -noflatten",
            script: format!(
                "{read}\nsynth_ice40 -noflatten -top {m}\ntee -q -o blocks-ice40.json stat -json\n"
            ),
        },
        Job {
            name: "blocks-ecp5",
            step: "synth_ecp5 -noflatten",
            script: format!(
                "{read}\nsynth_ecp5 -noflatten -top {m}\ntee -q -o blocks-ecp5.json stat -json\n"
            ),
        },
    ]
}

/// The `fine` steps of Yosys' `synth` without `memory_map`: the arrays of the RAM primitive stay
/// `$mem_v2` cells instead of becoming one flip-flop per bit and a read multiplexer (a 4096-row
/// instruction memory alone was 262k flip-flops and most of a 21-minute run). Their area is
/// CACTI's; the generic cells and the transistor estimate cover the logic around them.
const GENERIC_FINE: &str = "opt -fast -full\nopt -full\ntechmap\nopt -fast\nabc -fast\nopt -fast\n";

/// The one-flip-flop module of the "ff" job.
const FF_MODULE: &str = "wf_one_ff";

/// Measure `design` with the Yosys on PATH.
pub fn area(design: &Design, manifest: &Manifest) -> Result<AreaReport, FlowError> {
    area_in(design, manifest, &tools::search_path())
}

/// [`area`] with hierarchical syntheses: each distinct module is synthesised once and the
/// totals count it once per instance (Yosys `stat -top`). For designs of many identical
/// instances (the emitter merges them into one module): the flat flow repeats every memory
/// pass per instance over the whole flattened netlist (`dtm-mtg`'s 72 RAMs did not finish in
/// 30 minutes). No optimisation crosses a module boundary, so the totals can be a little
/// above the flat flow's.
pub fn area_hierarchical(design: &Design, manifest: &Manifest) -> Result<AreaReport, FlowError> {
    area_run(
        design,
        manifest,
        &tools::search_path(),
        Flow::Hierarchical,
        LIMIT,
    )
}

/// [`area`] with the per-block breakdown ([`AreaReport::blocks`]).
pub fn area_with_blocks(design: &Design, manifest: &Manifest) -> Result<AreaReport, FlowError> {
    area_run(
        design,
        manifest,
        &tools::search_path(),
        Flow::WithBlocks,
        LIMIT,
    )
}

/// [`area`], [`area_with_blocks`] or [`area_hierarchical`] (by `flow`) with its Yosys runs
/// limited to `limit` in all: past it, `FlowError::Timeout`.
pub fn area_flow(
    design: &Design,
    manifest: &Manifest,
    flow: Flow,
    limit: Duration,
) -> Result<AreaReport, FlowError> {
    area_run(design, manifest, &tools::search_path(), flow, limit)
}

/// Which syntheses an area measurement runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flow {
    Flat,
    /// Flat, plus the per-block hierarchical runs.
    WithBlocks,
    /// Hierarchical only.
    Hierarchical,
}

/// Measure `design`, looking for Yosys in `search_path` (a PATH-style list).
pub fn area_in(
    design: &Design,
    manifest: &Manifest,
    search_path: &OsStr,
) -> Result<AreaReport, FlowError> {
    area_run(design, manifest, search_path, Flow::Flat, LIMIT)
}

/// [`area`] with its Yosys runs limited to `limit` in all: past it, `FlowError::Timeout`.
pub fn area_within(
    design: &Design,
    manifest: &Manifest,
    limit: Duration,
) -> Result<AreaReport, FlowError> {
    area_run(design, manifest, &tools::search_path(), Flow::Flat, limit)
}

fn area_run(
    design: &Design,
    manifest: &Manifest,
    search_path: &OsStr,
    flow: Flow,
    limit: Duration,
) -> Result<AreaReport, FlowError> {
    let m = design.module.as_str();
    // Every tool first: a missing CACTI stops the flow before the long Yosys runs.
    tools::require_in("yosys", search_path)?;
    if !manifest.tables.is_empty() {
        crate::cacti::find(search_path)?;
    }
    let mut jobs = flow_jobs(m, flow == Flow::Hierarchical);
    if flow == Flow::WithBlocks {
        jobs.extend(block_jobs(m));
    }
    let (dir, version) = run_flow(design, search_path, jobs, limit)?;
    let stat = |name: &str| read_stat(&dir.path().join(format!("{name}.json")), m);
    let ff = read_stat(&dir.path().join("ff.json"), FF_MODULE)?
        .transistors
        .ok_or_else(|| FlowError::BadOutput {
            tool: "yosys".into(),
            what: "`stat -tech cmos -json` of one flip-flop gave no transistor count".into(),
        })?;
    let cacti = if manifest.tables.is_empty() {
        None
    } else {
        Some(crate::cacti::tables(manifest, ff, search_path)?)
    };
    let generic = stat("generic")?;
    let cmos = stat("cmos")?;
    let transistors = cmos.transistors.ok_or_else(|| FlowError::BadOutput {
        tool: "yosys".into(),
        what: "`stat -tech cmos -json` gave no estimated_num_transistors".into(),
    })?;
    let yosys_area = GenericArea {
        version,
        total_cells: generic.total_cells,
        flip_flops: generic
            .cells
            .iter()
            .filter(|(c, _)| is_flip_flop(c))
            .map(|(_, n)| n)
            .sum(),
        ram_arrays: ram_arrays(&generic.cells),
        cells: generic.cells,
        cmos: CmosArea {
            transistors,
            cells: cmos.cells,
        },
    };
    let fpga = FpgaArea {
        ice40: FpgaResources::from_stat(Family::Ice40, stat("ice40")?),
        ecp5: FpgaResources::from_stat(Family::Ecp5, stat("ecp5")?),
        xilinx: FpgaResources::from_stat(Family::Xilinx, stat("xilinx")?),
    };
    Ok(AreaReport {
        unit: manifest.unit.clone(),
        module: design.module.clone(),
        storage_bits: StorageBits {
            total: manifest.storage_bits(),
            tables: manifest
                .tables
                .iter()
                .map(|t| TableBits {
                    name: t.name.clone(),
                    entries: t.entries,
                    bits: t.bits,
                    total: t.total_bits(),
                })
                .collect(),
            classes: split_storage(&manifest.tables),
            counted_share_of_sm: split_storage(&manifest.tables).counted_share_of_sm(),
        },
        yosys: yosys_area,
        fpga,
        cacti,
        overhead: None,
        blocks: match flow == Flow::WithBlocks {
            true => Some(read_blocks(dir.path(), m)?),
            false => None,
        },
        hierarchical: flow == Flow::Hierarchical,
    })
}

/// Run `jobs` on `design` in a fresh directory: the directory (with each job's outputs) and
/// the Yosys version. A failed job is an error naming its log, which is kept.
fn run_flow(
    design: &Design,
    search_path: &OsStr,
    jobs: Vec<Job>,
    limit: Duration,
) -> Result<(tempfile::TempDir, String), FlowError> {
    tools::check_module_name(&design.module)?;
    let yosys = tools::require_in("yosys", search_path)?;
    let version = tools::version(&yosys)?;
    let dir = tempfile::Builder::new()
        .prefix("warpforge-area-")
        .tempdir()
        .map_err(|e| io_error("could not create a temporary directory", &e))?;
    write(&dir.path().join("design.v"), &design.verilog)?;
    write(
        &dir.path().join("ff.v"),
        &format!(
            "module {FF_MODULE}(input wire clock, input wire d, output reg q);\n\
             \x20   always @(posedge clock) q <= d;\nendmodule\n"
        ),
    )?;
    let failures = run_jobs(&yosys, dir.path(), &jobs, limit);
    if let Some((job, failure)) = failures.into_iter().next() {
        return Err(match failure {
            RunFailure::Flow(e) => e,
            RunFailure::Exit(message) => FlowError::ToolFailed {
                tool: "yosys".into(),
                step: job.step.into(),
                message,
                // Kept so that the log named in the message still exists.
                log: Some(dir.keep().join(format!("{}.log", job.name))),
            },
        });
    }
    Ok((dir, version))
}

/// The FPGA view alone (iCE40, ECP5, Xilinx resources, block RAMs included) of `design`,
/// with the Yosys on PATH: [`area`] without the generic synthesis and the transistor estimate.
pub fn fpga(design: &Design) -> Result<FpgaArea, FlowError> {
    let m = design.module.as_str();
    let jobs = flow_jobs(m, false)
        .into_iter()
        .filter(|j| j.name != "generic" && j.name != "ff")
        .collect();
    let (dir, _) = run_flow(design, &tools::search_path(), jobs, LIMIT)?;
    let stat = |name: &str| read_stat(&dir.path().join(format!("{name}.json")), m);
    Ok(FpgaArea {
        ice40: FpgaResources::from_stat(Family::Ice40, stat("ice40")?),
        ecp5: FpgaResources::from_stat(Family::Ecp5, stat("ecp5")?),
        xilinx: FpgaResources::from_stat(Family::Xilinx, stat("xilinx")?),
    })
}

enum RunFailure {
    /// Yosys could not be run at all (or timed out).
    Flow(FlowError),
    /// Yosys ran and failed; the message is from its log.
    Exit(String),
}

/// Run the jobs on [`WORKERS`] threads within `limit` in all (each job gets the time left;
/// none starts after it); return the failed ones in job order.
fn run_jobs<'a>(
    yosys: &Path,
    dir: &Path,
    jobs: &'a [Job],
    limit: Duration,
) -> Vec<(&'a Job, RunFailure)> {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let start = std::time::Instant::now();
    std::thread::scope(|s| {
        for _ in 0..WORKERS.min(jobs.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(i) else { break };
                let left = limit.saturating_sub(start.elapsed());
                let result = if left.is_zero() {
                    Err(RunFailure::Flow(FlowError::Timeout {
                        tool: "yosys".into(),
                        limit,
                    }))
                } else {
                    run_job(yosys, dir, job, left)
                };
                if let Err(f) = result {
                    failures
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((i, f));
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    failures.sort_by_key(|(i, _)| *i);
    failures.into_iter().map(|(i, f)| (&jobs[i], f)).collect()
}

fn run_job(yosys: &Path, dir: &Path, job: &Job, limit: Duration) -> Result<(), RunFailure> {
    let script = format!("{}.ys", job.name);
    let log = format!("{}.log", job.name);
    write(&dir.join(&script), &job.script).map_err(RunFailure::Flow)?;
    let out = tools::run(
        Command::new(yosys)
            .args(["-Q", "-T", "-q", "-l", &log, "-s", &script])
            .current_dir(dir),
        limit,
    )
    .map_err(RunFailure::Flow)?;
    if out.success() {
        return Ok(());
    }
    let text = std::fs::read_to_string(dir.join(&log)).unwrap_or_default() + &out.combined();
    Err(RunFailure::Exit(first_error(&text)))
}

/// The first `ERROR:` line of a Yosys log, or its last line when there is none.
pub(crate) fn first_error(log: &str) -> String {
    log.lines()
        .find(|l| l.starts_with("ERROR:"))
        .or_else(|| log.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("no output")
        .trim()
        .to_string()
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

/// The part of `stat -json` the flow uses.
#[derive(Debug, PartialEq)]
pub(crate) struct Stat {
    total_cells: u64,
    cells: BTreeMap<String, u64>,
    transistors: Option<u64>,
}

pub(crate) fn read_stat(path: &PathBuf, module: &str) -> Result<Stat, FlowError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| io_error(&format!("could not read {}", path.display()), &e))?;
    parse_stat(&text, module).map_err(|what| FlowError::BadOutput {
        tool: "yosys".into(),
        what: format!("{}: {what}", path.display()),
    })
}

/// Parse `stat -json`: the `design` totals when Yosys gives them (a known top), else the top
/// module's own entry.
fn parse_stat(text: &str, module: &str) -> Result<Stat, String> {
    let json: Value =
        serde_json::from_str(&without_hierarchy(text)).map_err(|e| format!("not JSON ({e})"))?;
    let stats = json
        .get("design")
        .or_else(|| json.get("modules")?.get(format!("\\{module}")))
        .ok_or_else(|| format!("no statistics for the design or module {module}"))?;
    let total_cells = stats
        .get("num_cells")
        .and_then(Value::as_u64)
        .ok_or("no num_cells")?;
    let cells = stats
        .get("num_cells_by_type")
        .and_then(Value::as_object)
        .ok_or("no num_cells_by_type")?
        .iter()
        .map(|(k, v)| Some((k.clone(), v.as_u64()?)))
        .collect::<Option<BTreeMap<_, _>>>()
        .ok_or("a cell count is not a number")?;
    // Yosys 0.23 writes the estimate as a string.
    let transistors = match stats.get("estimated_num_transistors") {
        None => None,
        // A trailing `+` says cells without a CMOS cost remain: the RAM arrays kept as
        // memories (`GENERIC_FINE`), costed by CACTI instead.
        Some(Value::String(s)) => Some(
            s.trim()
                .trim_end_matches('+')
                .parse()
                .map_err(|_| "bad transistor count")?,
        ),
        Some(v) => Some(v.as_u64().ok_or("bad transistor count")?),
    };
    Ok(Stat {
        total_cells,
        cells,
        transistors,
    })
}

/// The per-block figures from the four hierarchical runs in `dir`.
fn read_blocks(dir: &Path, top: &str) -> Result<Vec<BlockArea>, FlowError> {
    let read = |name: &str| -> Result<BTreeMap<String, BTreeMap<String, u64>>, FlowError> {
        let path = dir.join(format!("blocks-{name}.json"));
        let text = std::fs::read_to_string(&path)
            .map_err(|e| io_error(&format!("could not read {}", path.display()), &e))?;
        block_cells(&text, top).map_err(|what| FlowError::BadOutput {
            tool: "yosys".into(),
            what: format!("{}: {what}", path.display()),
        })
    };
    let (generic, ice40, ecp5, xilinx) = (
        read("generic")?,
        read("ice40")?,
        read("ecp5")?,
        read("xilinx")?,
    );
    let stat = |cells: Option<&BTreeMap<String, u64>>| {
        let cells = cells.cloned().unwrap_or_default();
        Stat {
            total_cells: cells.values().sum(),
            cells,
            transistors: None,
        }
    };
    Ok(generic
        .iter()
        .map(|(block, cells)| BlockArea {
            block: block.clone(),
            cells: cells.values().sum(),
            flip_flops: cells
                .iter()
                .filter(|(c, _)| is_flip_flop(c))
                .map(|(_, n)| n)
                .sum(),
            ice40: FpgaResources::from_stat(Family::Ice40, stat(ice40.get(block))),
            ecp5: FpgaResources::from_stat(Family::Ecp5, stat(ecp5.get(block))),
            xilinx: FpgaResources::from_stat(Family::Xilinx, stat(xilinx.get(block))),
        })
        .collect())
}

/// Yosys 0.23 prints the module hierarchy (lines `name count`, no JSON punctuation) into
/// `stat -json` output when submodules remain (with `-top`, when they are two levels deep or
/// more): `text` without those lines.
fn without_hierarchy(text: &str) -> String {
    text.lines()
        .filter(|l| l.contains(['"', '{', '}', '[', ']', ':']) || l.trim().is_empty())
        .flat_map(|l| [l, "\n"])
        .collect()
}

/// From a hierarchical `stat -json`: for each instance of the top module `top` (named by its
/// module `top__<instance>`, as every rust-hdl instance is its own module; identical instances
/// share the first one's module and are listed together as `<instance> (xN)`) the cells of its
/// whole subtree by type, and `(top)` for the top module's own cells.
fn block_cells(text: &str, top: &str) -> Result<BTreeMap<String, BTreeMap<String, u64>>, String> {
    let json: Value =
        serde_json::from_str(&without_hierarchy(text)).map_err(|e| format!("not JSON ({e})"))?;
    let modules = json
        .get("modules")
        .and_then(Value::as_object)
        .ok_or("no modules")?;
    let own = |name: &str| -> Option<BTreeMap<String, u64>> {
        let m = modules
            .get(&format!("\\{name}"))
            .or_else(|| modules.get(name))?;
        m.get("num_cells_by_type")?
            .as_object()?
            .iter()
            .map(|(k, v)| Some((k.trim_start_matches('\\').to_string(), v.as_u64()?)))
            .collect()
    };
    // The cells of `name`'s subtree: submodule instances replaced by their own subtrees.
    fn subtree(
        name: &str,
        own: &dyn Fn(&str) -> Option<BTreeMap<String, u64>>,
        depth: usize,
    ) -> Result<BTreeMap<String, u64>, String> {
        if depth > 64 {
            return Err(format!("module hierarchy deeper than 64 at {name}"));
        }
        let cells = own(name).ok_or_else(|| format!("no statistics for module {name}"))?;
        let mut out = BTreeMap::new();
        for (cell, n) in cells {
            match own(&cell) {
                Some(_) => {
                    for (c, k) in subtree(&cell, own, depth + 1)? {
                        *out.entry(c).or_insert(0) += k * n;
                    }
                }
                None => *out.entry(cell).or_insert(0) += n,
            }
        }
        Ok(out)
    }
    let top_cells = own(top).ok_or_else(|| format!("no statistics for module {top}"))?;
    let prefix = format!("{top}__");
    let mut blocks = BTreeMap::new();
    let mut glue = BTreeMap::new();
    for (cell, n) in top_cells {
        match (own(&cell), cell.strip_prefix(&prefix)) {
            (Some(_), Some(instance)) => {
                let mut sub = subtree(&cell, &own, 1)?;
                sub.values_mut().for_each(|k| *k *= n);
                // Identical instances share one module (the emitter merges them), so one
                // entry stands for all n of them.
                let name = if n > 1 {
                    format!("{instance} (x{n})")
                } else {
                    instance.to_string()
                };
                blocks.insert(name, sub);
            }
            (Some(_), None) => {
                blocks.insert(cell.clone(), subtree(&cell, &own, 1)?);
            }
            (None, _) => *glue.entry(cell).or_insert(0) += n,
        }
    }
    blocks.insert("(top)".to_string(), glue);
    Ok(blocks)
}

impl fmt::Display for AreaReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match self.hierarchical {
            true => ", hierarchical synthesis",
            false => "",
        };
        writeln!(f, "area {} (module {}{how})", self.unit, self.module)?;
        writeln!(f, "  {:<18} {:>8}", "storage bits", self.storage_bits.total)?;
        for t in &self.storage_bits.tables {
            writeln!(
                f,
                "    {:<16} {:>8}  ({} x {})",
                t.name, t.total, t.entries, t.bits
            )?;
        }
        let c = &self.storage_bits.classes;
        if c.extra_bits + c.base_bits > 0 {
            writeln!(
                f,
                "    {:<16} {:>8}  (the paper's count)",
                "counted", c.counted_bits
            )?;
            writeln!(
                f,
                "    {:<16} {:>8}  (the mechanism's state the paper leaves out)",
                "extra", c.extra_bits
            )?;
            writeln!(
                f,
                "    {:<16} {:>8}  (state a baseline SM holds anyway)",
                "baseline-held", c.base_bits
            )?;
        }
        writeln!(
            f,
            "    {:<16} {:>8} B = {:.3} % of a {} KB SM (64 KB RF + 16 KB shared + 48 KB L1D)",
            "counted share",
            c.counted_bits.div_ceil(8),
            100.0 * self.storage_bits.counted_share_of_sm,
            SM_STORAGE_BASELINE_BYTES / 1024
        )?;
        let y = &self.yosys;
        writeln!(
            f,
            "  {:<18} {:>8} cells, {} flip-flops, ~{} transistors (CMOS)",
            "yosys generic", y.total_cells, y.flip_flops, y.cmos.transistors
        )?;
        if y.ram_arrays > 0 {
            writeln!(
                f,
                "    {} RAM arrays kept as memories ($mem_v2): their area is CACTI's, below",
                y.ram_arrays
            )?;
        }
        // Largest counts first: that is where the area goes.
        let mut cells: Vec<_> = y.cells.iter().collect();
        cells.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (cell, n) in cells {
            writeln!(f, "    {cell:<16} {n:>8}")?;
        }
        writeln!(
            f,
            "  {:<18} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
            "fpga", "LUTs", "FFs", "carries", "BRAMs", "DSPs", "LUTRAMs"
        )?;
        for (name, r) in [
            ("ice40", &self.fpga.ice40),
            ("ecp5", &self.fpga.ecp5),
            ("xilinx", &self.fpga.xilinx),
        ] {
            writeln!(
                f,
                "    {name:<16} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
                r.luts, r.ffs, r.carries, r.brams, r.dsps, r.lutrams
            )?;
        }
        match &self.cacti {
            Some(c) => f.write_str(&c.render())?,
            None => writeln!(f, "  {:<18} no tables", "cacti")?,
        }
        if let Some(o) = &self.overhead {
            let b = &o.baseline;
            writeln!(f, "  overhead over {}", o.baseline_module)?;
            for (name, delta, base) in [
                ("storage bits", o.storage_bits, b.storage_bits),
                ("yosys cells", o.cells, b.cells),
                ("flip-flops", o.flip_flops, b.flip_flops),
                ("transistors", o.transistors, b.transistors),
                ("ice40 LUTs", o.ice40_luts, b.ice40_luts),
                ("ecp5 LUTs", o.ecp5_luts, b.ecp5_luts),
                ("xilinx LUTs", o.xilinx_luts, b.xilinx_luts),
            ] {
                writeln!(f, "    {name:<16} {delta:>+8}  ({})", percent(delta, base))?;
            }
        }
        if let Some(blocks) = &self.blocks {
            writeln!(
                f,
                "  blocks (hierarchical synthesis)\n    {:<16} {:>8} {:>8} {:>9} {:>6} {:>9} {:>6} {:>5} {:>9} {:>6} {:>5}",
                "block", "cells", "FFs", "ice40 LUT", "BRAM", "ecp5 LUT", "BRAM", "DSP", "xil LUT", "BRAM", "DSP"
            )?;
            for b in blocks {
                writeln!(
                    f,
                    "    {:<16} {:>8} {:>8} {:>9} {:>6} {:>9} {:>6} {:>5} {:>9} {:>6} {:>5}",
                    b.block,
                    b.cells,
                    b.flip_flops,
                    b.ice40.luts,
                    b.ice40.brams,
                    b.ecp5.luts,
                    b.ecp5.brams,
                    b.ecp5.dsps,
                    b.xilinx.luts,
                    b.xilinx.brams,
                    b.xilinx.dsps
                )?;
            }
        }
        Ok(())
    }
}

/// `delta` as a signed percentage of `base`.
fn percent(delta: i64, base: u64) -> String {
    if base == 0 {
        "baseline 0".into()
    } else {
        format!("{:+.1} %", 100.0 * delta as f64 / base as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_sum_their_subtrees_and_keep_the_top_glue() {
        // top has two instances of its own (`top__a`, `top__b`) and glue; `top__a` holds a
        // submodule twice; a cell type that is not a module stays a cell.
        let text = r#"{"modules": {
            "\\top": {"num_cells_by_type": {"top__a": 1, "top__b": 1, "$_AND_": 3}},
            "\\top__a": {"num_cells_by_type": {"leaf": 2, "$_DFF_P_": 1}},
            "\\leaf": {"num_cells_by_type": {"SB_RAM40_4K": 1, "SB_LUT4": 4}},
            "\\top__b": {"num_cells_by_type": {"SB_LUT4": 7}}}}"#;
        // The hierarchy tree Yosys 0.23 writes into the JSON is skipped.
        let text = text.replace(
            "\"\\\\top__b\"",
            "\n       top      1\n         top__a      1\n\"\\\\top__b\"",
        );
        assert!(
            serde_json::from_str::<Value>(&text).is_err(),
            "the tree was inserted"
        );
        let b = block_cells(&text, "top").unwrap();
        let get = |blk: &str, c: &str| b[blk].get(c).copied().unwrap_or(0);
        assert_eq!(b.keys().collect::<Vec<_>>(), ["(top)", "a", "b"]);
        assert_eq!(
            (
                get("a", "SB_RAM40_4K"),
                get("a", "SB_LUT4"),
                get("a", "$_DFF_P_")
            ),
            (2, 8, 1)
        );
        assert_eq!((get("b", "SB_LUT4"), get("(top)", "$_AND_")), (7, 3));
        assert!(block_cells(&text, "other").is_err());
        let cyclic = r#"{"modules": {"\\top": {"num_cells_by_type": {"top__a": 1}},
            "\\top__a": {"num_cells_by_type": {"top__a": 1}}}}"#;
        assert!(block_cells(cyclic, "top").is_err());
    }

    /// Merged identical instances: `top__r` stands for its 3 instances (one entry, cells x3).
    #[test]
    fn a_module_shared_by_identical_instances_is_one_block_with_their_cells() {
        let text = r#"{"modules": {
            "\\top": {"num_cells_by_type": {"top__r": 3, "top__m": 1}},
            "\\top__r": {"num_cells_by_type": {"SB_LUT4": 5}},
            "\\top__m": {"num_cells_by_type": {"SB_LUT4": 2}}}}"#;
        let b = block_cells(text, "top").unwrap();
        assert_eq!(b.keys().collect::<Vec<_>>(), ["(top)", "m", "r (x3)"]);
        assert_eq!((b["r (x3)"]["SB_LUT4"], b["m"]["SB_LUT4"]), (15, 2));
    }

    #[test]
    fn stat_prefers_design_totals_and_reads_string_transistors() {
        let text = r#"{"modules": {"\\m": {"num_cells": 1, "num_cells_by_type": {"$_NOT_": 1}}},
            "design": {"num_cells": 3, "num_cells_by_type": {"$_NOT_": 1, "$_DFF_P_": 2},
                       "estimated_num_transistors": "34"}}"#;
        let s = parse_stat(text, "m").unwrap();
        assert_eq!(s.total_cells, 3);
        assert_eq!(s.cells["$_DFF_P_"], 2);
        assert_eq!(s.transistors, Some(34));
    }

    /// `stat -top` over two levels of submodules: the tree Yosys 0.23 writes into the JSON
    /// before the `design` totals is skipped.
    #[test]
    fn stat_of_a_deep_hierarchy_skips_the_printed_tree() {
        let text = "{\"modules\": {\"\\\\m\": {\"num_cells\": 1, \"num_cells_by_type\": {}}},\n\
                    \x20      m__bank__0__ram      1\n\
                    \x20 \"design\": {\"num_cells\": 9, \"num_cells_by_type\": {\"$_NOT_\": 9}}}";
        assert!(
            serde_json::from_str::<Value>(text).is_err(),
            "the tree is there"
        );
        let s = parse_stat(text, "m").unwrap();
        assert_eq!((s.total_cells, s.cells["$_NOT_"]), (9, 9));
    }

    #[test]
    fn stat_falls_back_to_the_module_and_rejects_garbage() {
        let text = r#"{"modules": {"\\m": {"num_cells": 1, "num_cells_by_type": {"$_NOT_": 1}}}}"#;
        assert_eq!(parse_stat(text, "m").unwrap().total_cells, 1);
        assert!(parse_stat(text, "other").is_err());
        assert!(parse_stat("not json", "m").is_err());
        assert!(parse_stat(r#"{"design": {"num_cells": 1}}"#, "m").is_err());
    }

    #[test]
    fn cells_are_classified_per_family() {
        let cells = |list: &[(&str, u64)]| Stat {
            total_cells: list.iter().map(|(_, n)| n).sum(),
            cells: list.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            transistors: None,
        };
        let x = FpgaResources::from_stat(
            Family::Xilinx,
            cells(&[
                ("LUT6", 4),
                ("LUT2", 1),
                ("INV", 1),
                ("FDRE", 3),
                ("FDSE", 1),
                ("CARRY4", 2),
                ("RAMB36E1", 1),
                ("RAMB18E1", 1),
                ("DSP48E1", 2),
                ("RAM64M", 1),
                ("SRLC32E", 1),
                ("MUXF7", 5),
            ]),
        );
        assert_eq!(
            (x.luts, x.ffs, x.carries, x.brams, x.dsps, x.lutrams),
            (6, 4, 2, 2, 2, 2)
        );
        assert_eq!(x.total_cells, 23);
        let i = FpgaResources::from_stat(
            Family::Ice40,
            cells(&[
                ("SB_LUT4", 7),
                ("SB_DFFESR", 2),
                ("SB_DFF", 1),
                ("SB_RAM40_4K", 1),
            ]),
        );
        assert_eq!((i.luts, i.ffs, i.brams), (7, 3, 1));
        let e = FpgaResources::from_stat(
            Family::Ecp5,
            cells(&[("LUT4", 5), ("PFUMX", 2), ("TRELLIS_FF", 4), ("CCU2C", 1)]),
        );
        assert_eq!((e.luts, e.ffs, e.carries), (5, 4, 1));
    }

    #[test]
    fn flip_flop_cells() {
        for ff in [
            "$_DFF_P_",
            "$_SDFF_PP0_",
            "$_DFFE_PN0P_",
            "$_DLATCH_P_",
            "$_SR_PP_",
            "$_FF_",
        ] {
            assert!(is_flip_flop(ff), "{ff}");
        }
        for gate in ["$_AND_", "$_MUX_", "$_NOT_", "$add"] {
            assert!(!is_flip_flop(gate), "{gate}");
        }
    }
}
