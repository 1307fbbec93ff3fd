//! Regressions: a deterministic list of independent jobs (unit × config × seed, plus every
//! spec vector), run on a pool of threads, sliceable with `--shard I/N` so a job array or a CI
//! matrix can spread a nightly run over machines.

use crate::icarus;
use crate::lockstep::{self, Options, Source};
use crate::registry::{self, Unit};
use crate::verilator;
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// One regression job.
#[derive(Clone, Debug, Serialize)]
pub struct Job {
    /// Stable id: `unit[k=v,…]/seed` or `vector:<name>`.
    pub id: String,
    pub unit: &'static str,
    pub sets: Vec<String>,
    pub seed: u64,
    pub cycles: u64,
    /// Index into the unit's spec vectors, for vector jobs.
    pub vector: Option<usize>,
    /// A replay under Icarus (`lint`'s second-simulator check) instead of a lockstep run.
    #[serde(default)]
    pub icarus: bool,
    /// SM jobs: programs run on the SM RTL with per-instruction lockstep —
    /// `kernel:NAME@SIZE` (a suite kernel), `model:NAME@SIZE` (a suite kernel on the `dtm` model
    /// alone) or `random:FIRST..END` (random programs by seed).
    #[serde(default)]
    pub program: Option<String>,
}

impl Job {
    /// A random lockstep job (Verilator against the model).
    pub fn is_lockstep(&self) -> bool {
        self.vector.is_none() && !self.icarus && self.program.is_none()
    }
}

/// The SM configurations of `regress --suite full` (the test suite runs the same three in
/// cosim/tests/sm.rs): warp size 8 and 32, SIMD 8 and warp-wide, one and two schedulers,
/// LRR and GTO, one- and three-stage lanes, memory latency and back-pressure of the harness.
pub const SM_CONFIGS: &[&[&str]] = &[
    &[
        "warps=32",
        "warp_size=8",
        "simd_width=8",
        "schedulers=2",
        "policy=lrr",
        "mem_latency=20",
    ],
    &[
        "warps=8",
        "warp_size=32",
        "simd_width=8",
        "policy=gto",
        "mem_latency=40",
        "mem_stall_pct=30",
        "alu_stages=3",
        "rf_banks=2",
    ],
    &[
        "warps=8",
        "warp_size=32",
        "simd_width=32",
        "schedulers=2",
        "policy=gto",
        "mem_latency=10",
        "rf_banks=1",
    ],
];

/// SM configurations with 1,024 thread slots for the kernel jobs whose launch fits none of
/// `SM_CONFIGS` (each has 256 slots; `bitonic` at its large size is one block of 1,024
/// threads), so that every suite kernel at both sizes runs on three configurations: the
/// thesis SM (configs/sm.toml: 32 × 32, SIMD 8, one GTO scheduler), 64 warps of 16 on
/// warp-wide lanes with two LRR schedulers, and 32 × 32 warp-wide with two GTO schedulers
/// and three-stage lanes.
pub const SM_WIDE_CONFIGS: &[&[&str]] = &[
    &["warps=32", "warp_size=32", "simd_width=8", "policy=gto"],
    &[
        "warps=64",
        "warp_size=16",
        "simd_width=16",
        "schedulers=2",
        "policy=lrr",
        "mem_latency=30",
        "mem_stall_pct=20",
        "rf_banks=2",
    ],
    &[
        "warps=32",
        "warp_size=32",
        "simd_width=32",
        "schedulers=2",
        "policy=gto",
        "alu_stages=3",
        "rf_banks=1",
    ],
];

/// Random programs in `regress --suite full`, in jobs of `SM_RANDOM_PER_JOB`.
pub const SM_RANDOM_PROGRAMS: u64 = 10_000;
pub const SM_RANDOM_PER_JOB: u64 = 100;

/// A job that runs `program` (`kernel:NAME@SIZE` or `random:FIRST..END`) on `unit`.
fn program_job(unit: &'static str, sets: &[&str], program: String) -> Job {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Job {
        id: format!("{unit}[{}]/{program}", sets.join(",")),
        unit,
        sets,
        seed: 1,
        cycles: 0,
        vector: None,
        icarus: false,
        program: Some(program),
    }
}

/// `programs` random programs by seed, in jobs of `per_job`, the configurations taking turns.
fn random_jobs(unit: &'static str, configs: &[&[&str]], programs: u64, per_job: u64) -> Vec<Job> {
    (0..programs)
        .step_by(per_job as usize)
        .enumerate()
        .map(|(i, first)| {
            let program = format!("random:{first}..{}", first + per_job);
            program_job(unit, configs[i % configs.len()], program)
        })
        .collect()
}

fn sm_jobs() -> Vec<Job> {
    use warpforge_testbench::isa::kernels::SUITE;
    use warpforge_testbench::isa::{suite, AsmOptions};
    let unit = warpforge_contract::units::sm::NAME;
    // Whether a kernel's launch fits a configuration (a block of more threads than its warp
    // slots hold does not): `run --suite --rtl` skips such a kernel, so it is not a job.
    let fits = |sets: &[&str], k: &warpforge_testbench::isa::kernels::Kernel, size: u32| {
        let u = Unit::resolve(
            unit,
            &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
        .expect("a valid SM configuration");
        suite::program(k, &AsmOptions::default())
            .and_then(|p| Ok((p, (k.make)(size, 1)?)))
            .and_then(|(p, l)| crate::sm_run::fits(u.sm().expect("the sm unit"), &p, &l))
            .is_ok()
    };
    let mut out = vec![];
    for sets in SM_CONFIGS {
        for k in SUITE {
            for size in k.sizes {
                if fits(sets, k, size) {
                    out.push(program_job(unit, sets, format!("kernel:{}@{size}", k.name)));
                }
            }
        }
    }
    for sets in SM_WIDE_CONFIGS {
        for k in SUITE {
            for size in k.sizes {
                if !SM_CONFIGS.iter().any(|c| fits(c, k, size)) && fits(sets, k, size) {
                    out.push(program_job(unit, sets, format!("kernel:{}@{size}", k.name)));
                }
            }
        }
    }
    out.extend(random_jobs(
        unit,
        SM_CONFIGS,
        SM_RANDOM_PROGRAMS,
        SM_RANDOM_PER_JOB,
    ));
    out
}

/// The `crown` configurations random programs run on in CROWN mode (the test suite runs the
/// same three in tests/crown_top_lockstep.rs): W 4, 8 and 16; pools of 4, 2 and 16; one- to
/// sixteen-row lookups; small barrier tables so that allocation fails.
pub const CROWN_CONFIGS: &[&[&str]] = &[
    &[
        "w=4",
        "threads=128",
        "n2=128",
        "sets=4",
        "ways=2",
        "rl_rows=3",
        "wl_rows=2",
        "pool=4",
    ],
    &[
        "threads=256",
        "n2=256",
        "sets=2",
        "ways=3",
        "rl_rows=4",
        "wl_rows=4",
        "pool=2",
    ],
    &[
        "w=16",
        "threads=256",
        "n2=256",
        "sets=2",
        "ways=4",
        "rl_rows=16",
        "wl_rows=3",
        "pool=16",
        "pc_bits=12",
    ],
];

/// A 32-wide CROWN (`regress --suite full` only).
pub const CROWN_W32_CONFIG: &[&str] = &[
    "w=32",
    "threads=512",
    "n2=128",
    "sets=4",
    "ways=2",
    "rl_rows=4",
    "wl_rows=4",
    "pool=4",
];

/// Random programs of `regress --suite full` in CROWN mode (about 10^7 cycles), in jobs of
/// `CROWN_RANDOM_PER_JOB`; besides, every suite kernel at its small size on the thesis
/// configuration.
pub const CROWN_RANDOM_PROGRAMS: u64 = 600;
pub const CROWN_RANDOM_PER_JOB: u64 = 25;

fn crown_jobs() -> Vec<Job> {
    use warpforge_testbench::isa::kernels::SUITE;
    let unit = warpforge_contract::units::crown::NAME;
    // The small size: the large ones run for hours at the thesis table sizes.
    let mut out: Vec<Job> = SUITE
        .iter()
        .map(|k| program_job(unit, &[], format!("kernel:{}@{}", k.name, k.sizes[0])))
        .collect();
    // W = 32 besides the test suite's three.
    let configs: Vec<&[&str]> = CROWN_CONFIGS
        .iter()
        .copied()
        .chain([CROWN_W32_CONFIG])
        .collect();
    out.extend(random_jobs(
        unit,
        &configs,
        CROWN_RANDOM_PROGRAMS,
        CROWN_RANDOM_PER_JOB,
    ));
    out
}

/// Every suite kernel at its small size in DTM execution mode through the `dtm` RTL, at
/// table sizes 16 to 8192 (`dtm_run::FULL_SIZES`).
fn dtm_jobs() -> Vec<Job> {
    use warpforge_testbench::isa::kernels::SUITE;
    let unit = warpforge_contract::units::dtm_top::NAME;
    let mut out = vec![];
    for n in crate::dtm_run::FULL_SIZES {
        // A bank per MTG set at most (16 entries: 2 sets).
        let ports = (n / 8).min(8);
        let sets = [
            format!("mtg_entries={n}"),
            format!("mtt_entries={n}"),
            format!("mtg_ports={ports}"),
        ];
        let sets: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
        for k in SUITE {
            out.push(program_job(
                unit,
                &sets,
                format!("kernel:{}@{}", k.name, k.sizes[0]),
            ));
        }
    }
    // The execution mode's cycle-model and analysis modes at the default 1024 entries:
    // `group_skip` (8-lane warps on a 2-lane FU) and I12 (`enable = 0`) with the RTL
    // answering; the analysis modes the RTL refuses through the model (`model:`).
    let modes: [(&[&str], &str); 5] = [
        (&["fu_width=2", "group_skip=1"], "kernel"),
        (&["enable=0"], "kernel"),
        (&["lane_serial=1"], "model"),
        (&["table_scope=lane"], "model"),
        (&["branch_eligible=1"], "model"),
    ];
    for (sets, engine) in modes {
        for k in SUITE {
            out.push(program_job(
                unit,
                sets,
                format!("{engine}:{}@{}", k.name, k.sizes[0]),
            ));
        }
    }
    out
}

/// Runs a CROWN-mode program job through the `crown` RTL in lockstep with its model:
/// (passed, CROWN cycles, message).
pub fn run_crown_job(
    cfg: &warpforge_contract::units::crown::CrownConfig,
    program: &str,
) -> (bool, u64, String) {
    use crate::crown_run::{run_random, RtlEngine};
    use warpforge_testbench::isa::crown::CrownOptions;
    use warpforge_testbench::isa::{kernels, suite, AsmOptions};
    if let Some(range) = program.strip_prefix("random:") {
        let (a, b) = range.split_once("..").expect("random:FIRST..END");
        let (a, b): (u64, u64) = (a.parse().unwrap(), b.parse().unwrap());
        let mut cycles = 0;
        for seed in a..b {
            let run = RtlEngine::new(cfg, seed).and_then(|mut e| run_random(cfg, seed, &mut e));
            match run {
                Ok(s) => cycles += s.cycles,
                Err(e) => return (false, cycles, e),
            }
        }
        return (true, cycles, String::new());
    }
    let spec = program.strip_prefix("kernel:").expect("kernel:NAME@SIZE");
    let (name, size) = spec.split_once('@').expect("kernel:NAME@SIZE");
    let k = kernels::find(name).expect("a suite kernel");
    let size: u32 = size.parse().unwrap();
    let mut e = match RtlEngine::new(cfg, 1) {
        Ok(e) => e,
        Err(e) => return (false, 0, e),
    };
    let r = suite::run_crown_case(
        k,
        size,
        1,
        &CrownOptions::new(cfg.clone()),
        &AsmOptions::default(),
        &mut e,
    );
    match (r.passed(), &r.skipped) {
        (true, _) => (true, r.crown.map_or(0, |s| s.cycles), String::new()),
        (false, Some(why)) => (true, 0, format!("skipped: {why}")),
        (false, None) => (false, 0, r.error.unwrap_or_default()),
    }
}

/// Generated SM designs, one per configuration (generation takes seconds at large sizes).
fn sm_design(unit: &Unit) -> std::sync::Arc<warpforge_hdl::Design> {
    use std::collections::HashMap;
    use std::sync::{Arc, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<warpforge_hdl::Design>>>> = OnceLock::new();
    let key = unit.manifest().module;
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(d) = cache.lock().unwrap().get(&key) {
        return d.clone();
    }
    let d = Arc::new(unit.design());
    cache.lock().unwrap().insert(key, d.clone());
    d
}

/// Runs an SM program job: (passed, SM cycles, message).
fn run_sm_job(unit: &Unit, program: &str) -> (bool, u64, String) {
    use crate::sm_run::{random_options, run, SmRunOptions};
    use warpforge_testbench::isa::{kernels, suite, AsmOptions};
    use warpforge_testbench::sm::random_program;
    let cfg = unit.sm().expect("SM jobs name the sm unit");
    let design = sm_design(unit);
    let manifest = unit.manifest();
    if let Some(range) = program.strip_prefix("random:") {
        let (a, b) = range.split_once("..").expect("random:FIRST..END");
        let (a, b): (u64, u64) = (a.parse().unwrap(), b.parse().unwrap());
        let mut cycles = 0;
        for seed in a..b {
            let (p, l) = random_program(seed, random_options(cfg));
            match run(
                cfg,
                &design,
                &manifest,
                &p,
                &l,
                None,
                &SmRunOptions::new(seed),
            ) {
                Ok(s) => cycles += s.cycles,
                Err(e) => return (false, cycles, format!("random program seed {seed}: {e}")),
            }
        }
        return (true, cycles, String::new());
    }
    let spec = program.strip_prefix("kernel:").expect("kernel:NAME@SIZE");
    let (name, size) = spec.split_once('@').expect("kernel:NAME@SIZE");
    let k = kernels::find(name).expect("a suite kernel");
    let size: u32 = size.parse().unwrap();
    let prepared =
        suite::program(k, &AsmOptions::default()).and_then(|p| Ok((p, (k.make)(size, 1)?)));
    let (p, l) = match prepared {
        Ok(x) => x,
        Err(e) => return (false, 0, e),
    };
    match run(
        cfg,
        &design,
        &manifest,
        &p,
        &l,
        Some(k.check),
        &SmRunOptions::new(1),
    ) {
        Ok(s) => (true, s.cycles, String::new()),
        Err(e) => (false, 0, e.to_string()),
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct JobResult {
    pub id: String,
    pub passed: bool,
    pub cycles: u64,
    pub seconds: f64,
    pub message: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub suite: String,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// Lockstep cycles per unit.
    pub cycles: std::collections::BTreeMap<String, u64>,
    pub results: Vec<JobResult>,
}

/// The random-lockstep configurations of each unit, as `--set` lists. Several sizes and every
/// policy, including the extremes of each parameter.
pub fn configs(unit: &str) -> Vec<Vec<String>> {
    let sets = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match unit {
        "warp-sched" => vec![
            sets(&["warps=48", "schedulers=2", "policy=gto"]),
            sets(&["warps=48", "schedulers=2", "policy=lrr"]),
            sets(&["warps=4", "schedulers=1", "policy=gto"]),
            sets(&["warps=7", "schedulers=2", "policy=lrr"]),
            sets(&["warps=64", "schedulers=2", "policy=gto"]),
            sets(&["warps=2", "schedulers=1", "policy=lrr"]),
            sets(&["warps=48", "schedulers=2", "policy=mto"]),
            sets(&[
                "warps=4",
                "schedulers=1",
                "policy=mto",
                "mem_order=oldest",
                "mto_comp_order=oldest",
            ]),
            sets(&["warps=16", "schedulers=2", "policy=mto", "split_ptr=true"]),
            sets(&["warps=7", "schedulers=2", "policy=motrr", "split_ptr=true"]),
            sets(&["warps=48", "schedulers=2", "policy=motrr"]),
            sets(&[
                "warps=24",
                "schedulers=1",
                "policy=motrr",
                "mem_order=oldest",
            ]),
            sets(&["warps=48", "schedulers=2", "policy=motrr-recency"]),
            // The knob variants run at smaller sizes (each 48-warp configuration is its own
            // Verilator build).
            sets(&[
                "warps=16",
                "schedulers=2",
                "policy=motrr-recency",
                "n_cpl=2",
                "cnt_bits=3",
            ]),
            sets(&[
                "warps=9",
                "schedulers=1",
                "policy=motrr-recency",
                "rec_cap=below",
                "n_cpl=4",
                "rec_class=global",
                "split_ptr=true",
            ]),
            sets(&[
                "warps=12",
                "schedulers=2",
                "policy=motrr-recency",
                "rec_trigger=issue",
                "rec_class=global",
                "cnt_bits=4",
                "rec_cap=ceil",
            ]),
            sets(&["warps=48", "schedulers=2", "policy=bar-gto"]),
            sets(&["warps=4", "schedulers=1", "policy=bar-gto", "ctas=2"]),
            sets(&["warps=64", "schedulers=2", "policy=bar-gto", "ctas=16"]),
            sets(&[
                "warps=24",
                "schedulers=1",
                "policy=bar-gto",
                "bar_sched_en=false",
            ]),
        ],
        "simt-stack" => vec![
            sets(&["warp_size=32", "pc_bits=32", "depth=32"]),
            sets(&["warp_size=8", "pc_bits=8", "depth=4"]),
            sets(&["warp_size=4", "pc_bits=6", "depth=2"]),
            sets(&["warp_size=64", "pc_bits=32", "depth=16"]),
            sets(&["warp_size=16", "pc_bits=12", "depth=9"]),
        ],
        "l1d-bypass" => vec![
            sets(&[]),
            sets(&["epoch=10", "ctas=16"]),
            sets(&[
                "epoch=1",
                "ctas=2",
                "launch_reset=counters",
                "count_stores=true",
            ]),
            sets(&[
                "window=cumulative",
                "ctas=4",
                "bypass_on_mshr_full=true",
                "bypass_all_misses=true",
            ]),
            sets(&["epoch=64", "launch_reset=none", "bypass_en=false"]),
            sets(&["epoch=4", "full_pct=75", "partial_pct=75"]),
        ],
        "dwr-pst" => vec![
            sets(&[]),
            sets(&["group_size=4"]),
            sets(&[
                "group_size=2",
                "subwarp_size=16",
                "threads=512",
                "pc_bits=20",
            ]),
            sets(&["threads=64", "group_size=8", "pc_bits=8"]),
            sets(&["threads=96", "group_size=2", "pc_bits=9"]),
        ],
        "dwr-ilt" => vec![
            sets(&["insert_ports=3"]),
            sets(&["ilt_sets=4", "ilt_ways=4", "insert_ports=3"]),
            sets(&["ilt_sets=2", "ilt_ways=4", "pc_bits=12", "insert_ports=3"]),
            sets(&["ilt_sets=1", "ilt_ways=2", "pc_bits=8", "insert_ports=2"]),
            sets(&[
                "ilt_sets=16",
                "ilt_ways=16",
                "pc_shift=3",
                "ilt_flush=false",
            ]),
            sets(&[
                "ilt_sets=8",
                "ilt_ways=3",
                "pc_bits=7",
                "pc_shift=1",
                "insert_ports=1",
            ]),
        ],
        "dwr-sco" => vec![
            sets(&[]),
            sets(&["group_size=4", "sco_match=matched"]),
            sets(&["threads=96", "group_size=2", "pc_bits=9"]),
            sets(&[
                "threads=2048",
                "subwarp_size=32",
                "group_size=2",
                "sco_match=matched",
            ]),
        ],
        "dwr" => vec![
            sets(&[
                "threads=64",
                "group_size=8",
                "bar_lat=1",
                "pc_bits=8",
                "ilt_sets=2",
                "ilt_ways=2",
            ]),
            sets(&[
                "threads=128",
                "group_size=4",
                "bar_lat=2",
                "ilt_sets=4",
                "ilt_ways=4",
            ]),
            sets(&[
                "threads=64",
                "group_size=2",
                "bar_lat=24",
                "ilt_sets=2",
                "ilt_ways=4",
                "sco_match=matched",
            ]),
            sets(&[
                "threads=256",
                "group_size=2",
                "bar_lat=3",
                "ilt_sets=1",
                "ilt_ways=2",
                "pc_bits=8",
                "d4_learn=false",
                "fused_slices=one",
            ]),
            sets(&[
                "threads=96",
                "group_size=2",
                "bar_lat=1",
                "pc_bits=9",
                "ilt_flush=false",
                "sco_match=matched",
            ]),
            sets(&[]),
        ],
        "ram" => vec![
            sets(&["depth=16", "width=8", "ports=1"]),
            sets(&[]),
            sets(&["depth=1024", "width=32", "byte_write=true"]),
            sets(&["depth=8", "width=1024", "ports=1", "byte_write=true"]),
        ],
        // n2 ∈ {16, 128, 512}, w ∈ {4, 8, 16}, pool ∈ {2, 8, 16}; n2 = N/w (A5) and n2 = N.
        "crown-l2" => vec![
            sets(&["n2=16", "pool=2", "w=4", "threads=64"]),
            sets(&["n2=128", "w=16"]),
            sets(&[]),
            sets(&["n2=256", "pool=16", "w=4", "threads=256", "pc_bits=12"]),
        ],
        "crown-pool" => vec![
            sets(&["pool=2", "n2=16", "w=4", "threads=64"]),
            sets(&[]),
            sets(&["pool=16", "n2=16", "w=16", "threads=128"]),
            sets(&["pool=5", "n2=64", "pc_bits=12"]),
        ],
        // One stage at 1, 8 and 32 lanes; the deeper pipelines at sm-small's width (2 lanes,
        // 3 stages) and at an odd width (3 lanes, all four stages).
        "sm-alu" => vec![
            sets(&["lanes=1"]),
            sets(&["lanes=8"]),
            sets(&["lanes=32"]),
            sets(&["lanes=2", "stages=3"]),
            sets(&["lanes=3", "stages=4"]),
        ],
        // Table sizes 4, 8, 16 rows; w 4, 8, 16; both kinds in every size class.
        "crown-lookup" => vec![
            sets(&["kind=ready"]),
            sets(&["kind=ready", "rows=4", "w=4", "threads=64", "pc_bits=8"]),
            sets(&["kind=ready", "rows=16", "w=16", "threads=512", "pc_bits=12"]),
            sets(&["kind=waiting"]),
            sets(&["kind=waiting", "rows=4", "w=4", "threads=32", "pc_bits=8"]),
            sets(&["kind=waiting", "rows=16", "w=16", "threads=256"]),
        ],
        // Fully associative (S8), 4-way banked at SIMD 8, direct-mapped with 64-bit values
        // and narrow tags, 2-way single-port at SIMD 1. The default 1024 x 8 table and the
        // largest (8192) run in the full suite only (FULL_ONLY_CONFIGS).
        "dtm-mtg" => vec![
            sets(&["entries=16", "ways=16", "ports=1", "simd_width=4"]),
            sets(&["entries=64", "ways=4", "ports=4", "simd_width=8"]),
            sets(&[
                "entries=32",
                "ways=1",
                "ports=2",
                "simd_width=4",
                "val_bits=64",
                "kid_bits=2",
                "uid_bits=5",
                "pc_bits=12",
            ]),
            sets(&["entries=256", "ways=2", "ports=1", "simd_width=1"]),
        ],
        // Sets and ways varied (1 set, 1 way, more sets than ways); w 4, 8, 16. The thesis'
        // 16 x 8 table runs in the full suite only (FULL_ONLY_CONFIGS): it simulates at a few
        // thousand cycles per second.
        "crown-barrier" => vec![
            sets(&["sets=4", "ways=4", "w=4", "threads=64"]),
            sets(&["sets=8", "ways=2", "w=8", "threads=256", "pc_bits=12"]),
            sets(&["sets=2", "ways=8", "w=16", "threads=512"]),
            sets(&["sets=1", "ways=3", "w=8", "threads=64", "pc_bits=8"]),
            sets(&["sets=16", "ways=1", "w=4", "threads=128", "pc_bits=16"]),
        ],
        // Both pointer modes, ageing, the baseline RR arbiter; 2 to 8 requesters, 1- to 3-bit PLs.
        "msap-arbiter" => vec![
            sets(&[]),
            sets(&["n=3", "pl_bits=1", "nlvl=2", "rr_ptr=shared"]),
            sets(&["n=8", "nlvl=9", "age_thresh=4"]),
            sets(&["n=4", "msaa_en=false"]),
        ],
        // The paper's 32 entries / 3 bits / 4 per level, a small table that saturates early,
        // a wide one with 4-bit PLs.
        "msap-pl" => vec![
            sets(&[]),
            sets(&["mshr_entries=4", "pl_bits=2", "pl_shift=0"]),
            sets(&["mshr_entries=200", "pl_bits=4", "pl_shift=3"]),
        ],
        // The default router (8x8, centre, 8-flit buffers, 4 stages, MSAA per-level); a corner
        // router of a 4x4 mesh with 2 stages, 2-flit buffers, the RR baseline; 3 stages, a
        // shared pointer, ageing and 2-bit PLs. With VCs: the default at V = 2 (V = 4 is in
        // the full suite: its Verilator build alone is ~50 s).
        "msap-router" => vec![
            sets(&[]),
            sets(&["vcs=2"]),
            sets(&[
                "mesh_x=4",
                "mesh_y=4",
                "x=0",
                "y=3",
                "pipe_stages=2",
                "buf_depth=2",
                "msaa_en=false",
            ]),
            sets(&[
                "pipe_stages=3",
                "rr_ptr=shared",
                "age_thresh=4",
                "pl_bits=2",
                "buf_depth=4",
            ]),
        ],
        // The whole network: a 2x2 mesh with its MC in a corner (MSAA + MSAR, 5-flit
        // replies); a 2x2 mesh with two MCs (nodes 0, 1), the baseline (RR, FIFO), 2 router
        // stages, 1-flit replies; a 4x2 mesh with MCs at two corners, 3 stages, shared
        // pointers, ageing in routers and MCs, 2-bit PLs, the smallest queues, narrow lines.
        // The 4x4 and 8x8 meshes are in the full suite only: their Verilator builds (the
        // router a hierarchy block) take 2-3 and ~8 minutes at load 12 on the shared 2-core
        // machine, and an 8x8 cycle steps 128 router models.
        "msap-noc" => vec![
            sets(&["mesh_x=2", "mesh_y=2", "mc_place=corner"]),
            sets(&[
                "mesh_x=2",
                "mesh_y=2",
                "mc_mask=3",
                "pipe_stages=2",
                "buf_depth=4",
                "msaa_en=false",
                "msar_en=false",
                "reply_flits=1",
            ]),
            sets(&[
                "mesh_x=4",
                "mesh_y=2",
                "mc_mask=129",
                "pipe_stages=3",
                "rr_ptr=shared",
                "age_thresh=4",
                "msar_age_thresh=3",
                "pl_bits=2",
                "ni_depth=2",
                "rq_depth=2",
                "svc_lat=1",
                "reply_flits=2",
                "line_bits=3",
            ]),
            // V = 2: every packet on its flow's VC, per-VC credits at the NIs and MCs.
            sets(&["mesh_x=2", "mesh_y=2", "vcs=2"]),
        ],
        // Depths 4, 8, 16; guard on and off; ageing; the FIFO baseline; narrow fields so the
        // stimulus's line pools collide.
        "msap-mc" => vec![
            sets(&[]),
            sets(&[
                "depth=4",
                "pl_bits=2",
                "line_bits=6",
                "meta_bits=3",
                "age_thresh=3",
            ]),
            sets(&[
                "depth=16",
                "line_guard=false",
                "age_thresh=5",
                "meta_bits=40",
            ]),
            sets(&["depth=5", "msar_en=false", "line_bits=8"]),
        ],
        // Sizes 16..256, ways 2..16 (fully associative), cand 1..16, k_in/k_out 1..8, values
        // 8..64 bits; the default 1024 x 8 table in the full suite only.
        "dtm-mtt" => vec![
            sets(&["entries=16", "ways=4", "k_in=2", "k_out=1", "val_bits=8"]),
            sets(&[
                "entries=64",
                "ways=8",
                "cand=3",
                "k_in=3",
                "l_max=5",
                "pc_bits=12",
                "pc_shift=0",
            ]),
            sets(&[
                "entries=16",
                "ways=16",
                "cand=16",
                "k_in=8",
                "k_out=8",
                "val_bits=64",
            ]),
            sets(&[
                "entries=256",
                "ways=2",
                "cand=1",
                "kid_bits=2",
                "val_bits=16",
            ]),
        ],
        // Pools 3..64 (smaller than the threads and one per thread), k_in/k_out 1..8, l_max
        // 4..16, values 8..64 bits, PCs counting bytes and instructions; the default 1536
        // threads in the full suite only.
        "dtm-tb" => vec![
            sets(&[
                "threads=16",
                "tb_pool=4",
                "k_in=2",
                "k_out=1",
                "l_max=4",
                "val_bits=8",
            ]),
            sets(&[
                "threads=64",
                "k_in=3",
                "k_out=2",
                "l_max=6",
                "isz=1",
                "pc_bits=12",
            ]),
            sets(&["threads=8", "tb_pool=3", "k_in=8", "k_out=8", "val_bits=64"]),
            sets(&["threads=128", "tb_pool=16", "l_max=16"]),
        ],
        // The top: MTG fully associative / banked / 2-way, MTT 2..16 ways, cand 1..3,
        // warps of 4 and 8 lanes, both trace policies, byte and instruction PCs; the
        // default 1024-entry tables in the full suite only.
        "dtm" => vec![
            sets(&[
                "mtg_entries=16",
                "mtg_ways=16",
                "mtg_ports=1",
                "mtt_entries=16",
                "mtt_ways=4",
                "warps=2",
                "simd_width=4",
            ]),
            sets(&[
                "mtg_entries=64",
                "mtg_ways=4",
                "mtg_ports=4",
                "mtt_entries=32",
                "mtt_ways=2",
                "cand=1",
                "warps=3",
                "simd_width=8",
            ]),
            sets(&[
                "mtg_entries=32",
                "mtg_ways=2",
                "mtg_ports=2",
                "mtt_entries=16",
                "mtt_ways=16",
                "cand=3",
                "k_in=2",
                "k_out=2",
                "l_max=4",
                "simd_width=4",
                "trace_policy=unanimous",
                "isz=8",
                "pc_shift=2",
                "tb_pool=5",
            ]),
        ],
        _ => vec![],
    }
}

/// Configurations `regress --suite full` runs besides [`configs`]: the ones too slow for the
/// test suite's share.
/// CROWN's tables at W = 32 (a 32-wide SIMD unit) are here too.
pub fn full_only_configs(unit: &str) -> Vec<Vec<String>> {
    let sets = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match unit {
        "crown-barrier" => vec![vec![], sets(&["sets=4", "ways=2", "w=32"])],
        "crown-lookup" => vec![
            sets(&["kind=ready", "rows=4", "w=32"]),
            sets(&["kind=waiting", "rows=4", "w=32"]),
        ],
        "crown-l2" => vec![sets(&["n2=64", "pool=4", "w=32"])],
        "crown-pool" => vec![sets(&["pool=4", "n2=64", "w=32"])],
        // The SM's default width at two stages; the widest common shape at four.
        "sm-alu" => vec![
            sets(&["lanes=8", "stages=2"]),
            sets(&["lanes=32", "stages=4"]),
        ],
        "msap-mc" => vec![sets(&["depth=32", "age_thresh=20", "pl_bits=4"])],
        // A 4x4 mesh with a middle column of MCs (baseline, 2 stages, 1-flit replies) and
        // §2.1's 8x8 system (56 SMs, 8 MCs) with MSAP and as the baseline.
        "msap-noc" => vec![
            sets(&[
                "mesh_x=4",
                "mesh_y=4",
                "mc_place=middle",
                "pipe_stages=2",
                "buf_depth=4",
                "msaa_en=false",
                "msar_en=false",
                "reply_flits=1",
            ]),
            sets(&["mesh_x=8", "mesh_y=8"]),
            sets(&["mesh_x=8", "mesh_y=8", "msaa_en=false", "msar_en=false"]),
            // V = 2 on the 4x4 mesh; V = 4 with 4-flit buffers, shared pointers, 2-bit PLs.
            sets(&["mesh_x=4", "mesh_y=4", "mc_place=middle", "vcs=2"]),
            sets(&[
                "mesh_x=4",
                "mesh_y=4",
                "mc_place=middle",
                "vcs=4",
                "buf_depth=4",
                "rr_ptr=shared",
                "pl_bits=2",
                "reply_flits=3",
            ]),
        ],
        // VCs: a corner router of a 4x4 mesh at V = 4 with 2-flit buffers, the RR baseline;
        // V = 4 with a shared pointer and 2-bit PLs; V = 2 at a corner of a 16x16 mesh with
        // 16-flit buffers, 4-bit PLs and 32-bit payloads.
        "msap-router" => vec![
            sets(&[
                "vcs=4",
                "mesh_x=4",
                "mesh_y=4",
                "x=3",
                "y=0",
                "buf_depth=2",
                "msaa_en=false",
            ]),
            sets(&[
                "vcs=4",
                "mesh_x=4",
                "mesh_y=4",
                "x=1",
                "y=2",
                "rr_ptr=shared",
                "pl_bits=2",
                "buf_depth=4",
            ]),
            sets(&[
                "vcs=2",
                "mesh_x=16",
                "mesh_y=16",
                "x=15",
                "y=15",
                "buf_depth=16",
                "pl_bits=4",
                "payload_bits=32",
            ]),
            sets(&[
                "mesh_x=16",
                "mesh_y=2",
                "x=15",
                "y=0",
                "buf_depth=16",
                "age_thresh=1",
            ]),
            sets(&[
                "mesh_x=16",
                "mesh_y=16",
                "x=7",
                "y=9",
                "pl_bits=4",
                "age_thresh=6",
                "payload_bits=32",
            ]),
        ],
        "msap-arbiter" => vec![sets(&[
            "n=16",
            "pl_bits=4",
            "nlvl=17",
            "age_thresh=40",
            "rr_ptr=shared",
        ])],
        "dtm-mtt" => vec![vec![]],
        "dtm-tb" => vec![vec![]],
        // The default, and disabled (I12 checked by the model every cycle).
        "dtm" => vec![vec![], vec!["enable=0".to_string()]],
        "dtm-mtg" => vec![
            vec![],
            vec![
                "entries=8192".to_string(),
                "ways=16".to_string(),
                "ports=4".to_string(),
            ],
        ],
        _ => vec![],
    }
}

/// The suites: `quick` (the test suite's share: ≥ 10^6 cycles per variant), `full` (≥ 10^7
/// cycles per variant, and every configuration replayed under Icarus), `vectors` (spec
/// vectors only). A variant is a unit, or for a unit with
/// a `policy` parameter one policy of it: each policy gets the whole budget.
pub const SUITES: &[&str] = &["quick", "full", "vectors"];

pub fn jobs(suite: &str) -> Result<Vec<Job>, String> {
    let (seeds, per_variant_cycles): (u64, u64) = match suite {
        "quick" => (2, 1_200_000),
        "full" => (4, 10_000_000),
        "vectors" => (0, 0),
        other => {
            return Err(format!(
                "--suite {other}: unknown suite; suites are: {}",
                SUITES.join(", ")
            ))
        }
    };
    let mut out = vec![];
    for info in registry::catalogue() {
        for (i, v) in registry::spec_vectors(info.name).iter().enumerate() {
            out.push(Job {
                id: format!("vector:{}", v.name),
                unit: info.name,
                sets: v.sets.clone(),
                seed: 0,
                cycles: v.cycles.len() as u64,
                vector: Some(i),
                icarus: false,
                program: None,
            });
        }
        let mut cfgs = configs(info.name);
        if suite == "full" {
            cfgs.extend(full_only_configs(info.name));
        }
        if seeds == 0 || cfgs.is_empty() {
            continue;
        }
        let unit_cycles = network_cycles(info.name, suite).unwrap_or(per_variant_cycles);
        for sets in &cfgs {
            let same_variant = cfgs.iter().filter(|c| variant(c) == variant(sets)).count();
            let per_job = unit_cycles.div_ceil(seeds * same_variant as u64);
            for s in 0..seeds {
                let seed = 1 + s * 7919;
                out.push(Job {
                    id: format!("{}[{}]/seed{seed}", info.name, sets.join(",")),
                    unit: info.name,
                    sets: sets.clone(),
                    seed,
                    cycles: per_job,
                    vector: None,
                    icarus: false,
                    program: None,
                });
            }
            // The full suite also replays every configuration under Icarus.
            if suite == "full" {
                out.push(Job {
                    id: format!("icarus:{}[{}]", info.name, sets.join(",")),
                    unit: info.name,
                    sets: sets.clone(),
                    seed: icarus::LINT_SEED,
                    cycles: icarus::LINT_CYCLES,
                    vector: None,
                    icarus: true,
                    program: None,
                });
            }
        }
    }
    if suite == "full" {
        out.extend(sm_jobs());
        out.extend(crown_jobs());
        out.extend(dtm_jobs());
    }
    Ok(out)
}

/// What a suite's random lockstep jobs of `unit` cover: how many jobs, distinct seeds and
/// cycles in all (the per-unit lockstep test files assert these against the floors).
#[derive(Clone, Copy, Debug)]
pub struct Coverage {
    pub jobs: usize,
    pub seeds: usize,
    pub cycles: u64,
}

pub fn coverage(unit: &str, suite: &str) -> Result<Coverage, String> {
    let jobs: Vec<Job> = jobs(suite)?
        .into_iter()
        .filter(|j| j.is_lockstep() && j.unit == unit)
        .collect();
    let seeds: std::collections::BTreeSet<u64> = jobs.iter().map(|j| j.seed).collect();
    Ok(Coverage {
        jobs: jobs.len(),
        seeds: seeds.len(),
        cycles: jobs.iter().map(|j| j.cycles).sum(),
    })
}

/// A unit whose cycles are whole networks gets its own budget per suite: `msap-noc` steps
/// up to 128 routers a cycle, so its quick lockstep is 1.2·10^5 cycles and its full one
/// 4.5·10^6 over 9 configurations, 10^6 of it on the 8x8 system (the 10^6 there).
pub fn network_cycles(unit: &str, suite: &str) -> Option<u64> {
    match (unit, suite) {
        ("msap-noc", "quick") => Some(120_000),
        ("msap-noc", "full") => Some(4_500_000),
        _ => None,
    }
}

/// The `policy=…` of a configuration, if it sets one: configurations with the same value
/// share one cycle budget.
pub fn variant(sets: &[String]) -> Option<&str> {
    sets.iter().find_map(|s| s.strip_prefix("policy="))
}

/// The jobs of the named units only (`regress --unit`); an unknown name is refused.
pub fn only_units(jobs: Vec<Job>, units: &[String]) -> Result<Vec<Job>, String> {
    let known = registry::names();
    if let Some(u) = units.iter().find(|u| !known.contains(&u.as_str())) {
        return Err(format!(
            "--unit {u}: unknown unit; units are: {}",
            known.join(", ")
        ));
    }
    Ok(jobs
        .into_iter()
        .filter(|j| units.iter().any(|u| u == j.unit))
        .collect())
}

/// Keep the jobs whose id contains any of `filters`. A filter that matches no job is an
/// error (a typo would otherwise pass as an empty, green regression).
pub fn only_matching(jobs: Vec<Job>, filters: &[String], suite: &str) -> Result<Vec<Job>, String> {
    if let Some(f) = filters
        .iter()
        .find(|f| !jobs.iter().any(|j| j.id.contains(f.as_str())))
    {
        return Err(format!(
            "--filter {f}: matches no job id of the {suite} suite (after --unit); `regress --list` shows the ids"
        ));
    }
    Ok(jobs
        .into_iter()
        .filter(|j| filters.iter().any(|f| j.id.contains(f.as_str())))
        .collect())
}

/// Parse `I/N` (0 ≤ I < N).
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard {s}: expected I/N with 0 <= I < N (e.g. 0/4)");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

fn run_job(job: &Job) -> JobResult {
    let t0 = Instant::now();
    let (passed, cycles, message) = match job.vector {
        Some(i) => {
            let v = &registry::spec_vectors(job.unit)[i];
            match lockstep::run_spec_vector(v) {
                Ok(()) => (true, v.cycles.len() as u64, String::new()),
                Err(e) => (false, 0, e),
            }
        }
        // A DTM program job's sets may hold the execution mode's parameters (not the top's).
        None if job.unit == warpforge_contract::units::dtm_top::NAME && job.program.is_some() => {
            crate::dtm_run::run_dtm_job(&job.sets, job.program.as_deref().unwrap_or_default())
        }
        None => match Unit::resolve(job.unit, &job.sets) {
            Err(e) => (false, 0, e),
            Ok(unit) if job.program.is_some() => {
                let program = job.program.as_deref().unwrap_or_default();
                match unit.crown() {
                    Some(cfg) => run_crown_job(cfg, program),
                    None => run_sm_job(&unit, program),
                }
            }
            Ok(unit) if job.icarus => {
                let trace = icarus::model_trace(&unit, job.cycles, job.seed);
                match icarus::replay(&unit.design(), &unit.manifest().layout(), &trace) {
                    Err(e) => (false, 0, e.to_string()),
                    Ok(c) if c.passed => (true, job.cycles, String::new()),
                    Ok(c) => (false, 0, c.diagnostics.join("\n")),
                }
            }
            Ok(unit) => {
                let src = Source::Random(unit.stimulus(job.seed));
                match lockstep::run(&unit, unit.model(), src, Options::new(job.cycles, job.seed)) {
                    Err(e) => (false, 0, e.to_string()),
                    Ok(r) => (
                        r.passed(),
                        r.cycles,
                        if r.passed() {
                            String::new()
                        } else {
                            r.render()
                        },
                    ),
                }
            }
        },
    };
    JobResult {
        id: job.id.clone(),
        passed,
        cycles,
        seconds: t0.elapsed().as_secs_f64(),
        message,
    }
}

/// Run `jobs` on `threads` threads. Each distinct design is built once first, so threads do not
/// race to build the same library. `progress` gets each finished result.
pub fn run(
    suite: &str,
    jobs: &[Job],
    threads: usize,
    progress: &(dyn Fn(&JobResult, usize, usize) + Sync),
) -> Summary {
    let threads = threads.max(1);
    // Build phase: one build per distinct configuration.
    let mut distinct: Vec<(&'static str, Vec<String>)> = vec![];
    for j in jobs.iter().filter(|j| j.is_lockstep()) {
        if !distinct.iter().any(|(u, s)| *u == j.unit && *s == j.sets) {
            distinct.push((j.unit, j.sets.clone()));
        }
    }
    let next = AtomicUsize::new(0);
    // A configuration that does not build fails all its jobs with that message, once.
    let broken: Mutex<Vec<(&'static str, Vec<String>, String)>> = Mutex::new(vec![]);
    pool(threads, &|| loop {
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some((u, sets)) = distinct.get(i) else {
            break;
        };
        let err = match Unit::resolve(u, sets) {
            Err(e) => Some(e),
            Ok(unit) => verilator::build(&unit.design(), &unit.manifest(), false)
                .err()
                .map(|e| e.to_string()),
        };
        if let Some(e) = err {
            broken.lock().unwrap().push((u, sets.clone(), e));
        }
    });
    let broken = broken.into_inner().unwrap();
    let results = Mutex::new(vec![None; jobs.len()]);
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    pool(threads, &|| loop {
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some(job) = jobs.get(i) else { break };
        let r = match broken
            .iter()
            .filter(|_| job.is_lockstep())
            .find(|(u, sets, _)| *u == job.unit && *sets == job.sets)
        {
            Some((_, _, e)) => JobResult {
                id: job.id.clone(),
                passed: false,
                cycles: 0,
                seconds: 0.0,
                message: e.clone(),
            },
            None => run_job(job),
        };
        let k = finished.fetch_add(1, Ordering::SeqCst) + 1;
        progress(&r, k, jobs.len());
        results.lock().unwrap()[i] = Some(r);
    });
    let results: Vec<JobResult> = results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect();
    let mut cycles = std::collections::BTreeMap::new();
    for (j, r) in jobs.iter().zip(&results) {
        if j.is_lockstep() || j.program.is_some() {
            *cycles.entry(j.unit.to_string()).or_insert(0) += r.cycles;
        }
    }
    Summary {
        suite: suite.to_string(),
        passed: results.iter().filter(|r| r.passed).count(),
        failed: results.iter().filter(|r| !r.passed).count(),
        skipped: 0,
        cycles,
        results,
    }
}

/// Run `work` on up to `threads` threads (each takes jobs until none are left). Threads the
/// system refuses to start (a process limit) are simply not used; when none starts, the
/// calling thread does the work.
pub fn pool(threads: usize, work: &(dyn Fn() + Sync)) -> usize {
    std::thread::scope(|sc| {
        let mut started = 0;
        for k in 0..threads {
            let b = std::thread::Builder::new().name(format!("regress-{k}"));
            match b.spawn_scoped(sc, work) {
                Ok(_) => started += 1,
                Err(_) => break,
            }
        }
        if started == 0 {
            work();
            return 1;
        }
        started
    })
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JUnit XML of a summary.
pub fn junit(summary: &Summary) -> String {
    let total: f64 = summary.results.iter().map(|r| r.seconds).sum();
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"warpforge-{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3}\">\n",
        xml_escape(&summary.suite),
        summary.results.len(),
        summary.failed,
        summary.skipped,
        total
    );
    for r in &summary.results {
        s += &format!(
            "  <testcase classname=\"warpforge\" name=\"{}\" time=\"{:.3}\"",
            xml_escape(&r.id),
            r.seconds
        );
        if r.passed {
            s += "/>\n";
        } else {
            s += &format!(
                ">\n    <failure message=\"{}\"/>\n  </testcase>\n",
                xml_escape(r.message.lines().next().unwrap_or(""))
            );
        }
    }
    s += "</testsuite>\n";
    s
}

#[cfg(test)]
mod pool_tests {
    use super::pool;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn the_pool_shares_the_work_and_runs_it_inline_when_no_thread_starts() {
        for threads in [0, 1, 4] {
            let next = AtomicUsize::new(0);
            let done = AtomicUsize::new(0);
            let started = pool(threads, &|| {
                while next.fetch_add(1, Ordering::SeqCst) < 100 {
                    done.fetch_add(1, Ordering::SeqCst);
                }
            });
            assert_eq!(done.load(Ordering::SeqCst), 100, "{threads} threads");
            assert_eq!(started, threads.max(1));
        }
    }
}

#[cfg(test)]
mod sm_job_tests {
    use super::*;
    use warpforge_testbench::isa::kernels::SUITE;
    use warpforge_testbench::isa::{suite, AsmOptions};

    /// Every SM kernel job can run: its launch fits its configuration (a job that cannot
    /// would fail every night). The kernels that do not fit are left out, no others: each
    /// configuration keeps every suite kernel at its small size, and every kernel at both
    /// sizes has three configurations.
    #[test]
    fn every_sm_kernel_job_fits_its_configuration() {
        let jobs = sm_jobs();
        let mut kernels = 0;
        for j in &jobs {
            let Some(spec) = j.program.as_deref().and_then(|p| p.strip_prefix("kernel:")) else {
                continue;
            };
            kernels += 1;
            let (name, size) = spec.split_once('@').unwrap();
            let k = SUITE.iter().find(|k| k.name == name).unwrap();
            let u = Unit::resolve(j.unit, &j.sets).unwrap();
            let p = suite::program(k, &AsmOptions::default()).unwrap();
            let l = (k.make)(size.parse().unwrap(), 1).unwrap();
            crate::sm_run::fits(u.sm().unwrap(), &p, &l)
                .unwrap_or_else(|e| panic!("{}: {e}", j.id));
        }
        for sets in SM_CONFIGS {
            for k in SUITE {
                let id = format!("sm[{}]/kernel:{}@{}", sets.join(","), k.name, k.sizes[0]);
                assert!(jobs.iter().any(|j| j.id == id), "{id} missing");
            }
        }
        assert!(kernels >= SM_CONFIGS.len() * SUITE.len());
        // Every suite kernel at both its sizes runs on three configurations or more (the
        // large `bitonic`, one block of 1,024 threads, on the `SM_WIDE_CONFIGS`).
        for k in SUITE {
            for size in k.sizes {
                let suffix = format!("/kernel:{}@{size}", k.name);
                let configs = jobs.iter().filter(|j| j.id.ends_with(&suffix)).count();
                assert!(configs >= 3, "{suffix} runs on {configs} configurations");
            }
        }
        assert_eq!(
            jobs.iter()
                .filter(|j| j
                    .program
                    .as_deref()
                    .is_some_and(|p| p.starts_with("random:")))
                .count() as u64,
            SM_RANDOM_PROGRAMS / SM_RANDOM_PER_JOB
        );
    }
}
