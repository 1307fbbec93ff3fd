//! Kernels on the SM RTL: load the launch image, start, serve the global-memory port, check
//! every retirement record against the interpreter (per-instruction lockstep), and at the end
//! compare the RTL's global memory with the interpreter's and with the host reference.

use crate::verilator::{build, Rtl};
use serde::Serialize;
use std::fmt;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;
use warpforge_contract::manifest::Slot;
use warpforge_contract::units::sm::{
    SmConfig, BLOCK_WORDS, FAULT_DIVERGENT_BARRIER, FAULT_PC_RANGE, FAULT_STACK_OVERFLOW,
};
use warpforge_contract::{Layout, Manifest};
use warpforge_hdl::Design;
use warpforge_testbench::isa::launch::Launch;
use warpforge_testbench::isa::{Machine, Program};
use warpforge_testbench::sm::{
    random_program, Checker, Image, MemServer, Mismatch, RandomOptions, Record,
};

#[derive(Clone, Debug)]
pub struct SmRunOptions {
    /// Seeds the RTL's initial register values and the memory's back-pressure.
    pub seed: u64,
    /// Cycles after `start` before the run is declared not terminating.
    pub max_cycles: u64,
    /// Write a VCD waveform here (a tracing build), from cycle `wave_from` on.
    pub wave: Option<PathBuf>,
    pub wave_from: u64,
    /// Print progress to stderr (only on a terminal).
    pub progress: bool,
    /// Check every record and the final memory (false: raw Verilator with the memory served,
    /// for throughput comparisons only).
    pub check: bool,
}

impl SmRunOptions {
    pub fn new(seed: u64) -> SmRunOptions {
        SmRunOptions {
            seed,
            max_cycles: 50_000_000,
            wave: None,
            wave_from: 0,
            progress: false,
            check: true,
        }
    }
}

/// Figures of one kernel run on the SM RTL.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SmStats {
    /// Cycles from `start` to `done` (the RTL's own count).
    pub cycles: u64,
    /// Warp-instructions retired (records checked).
    pub warp_instructions: u64,
    /// Thread-instructions retired (lanes in the records' masks).
    pub thread_instructions: u64,
    /// Lanes whose guard passed.
    pub active_lanes: u64,
    /// Warp-instructions per cycle.
    pub ipc: f64,
    /// Lane activity (spec/crown.md Eq. 2-1): lanes in the issue masks over issued lane slots
    /// (records × warp size).
    pub simd_utilisation: f64,
    pub stall_scoreboard: u64,
    pub stall_memory: u64,
    pub stall_barrier: u64,
    pub stall_idle: u64,
    /// Cycles with two or more warp-instructions in the back end (the RTL's count).
    pub overlap_cycles: u64,
    /// Cycles operand read spent reading register-file rows (the RTL's count): a
    /// warp-instruction reads for phases × groups cycles, phases = 1 to 3 (docs/sm.md).
    pub opr_read_cycles: u64,
    pub mem_reads: u64,
    pub mem_writes: u64,
    pub mem_atomics: u64,
    /// Wall time of the simulation (build excluded) and its rate.
    pub seconds: f64,
    pub cycles_per_sec: f64,
    pub build_seconds: f64,
}

/// Why a run failed (exit status 1).
#[derive(Clone, Debug)]
pub enum SmFailure {
    /// A retirement record differs from the interpreter.
    Mismatch(Mismatch),
    /// The RTL raised `fault`.
    Fault { cycle: u64, code: u64 },
    /// No `done` within the cycle limit.
    Timeout { cycles: u64, records: u64 },
    /// The memory could not serve a request, or the final state differs.
    Memory { cycle: u64, msg: String },
    /// The RTL finished but its results are wrong.
    Result(String),
    /// The design did not build or load.
    Bridge(String),
}

impl SmFailure {
    /// The cycle to start a replay waveform from (2000 cycles before the failure).
    pub fn wave_from(&self) -> Option<u64> {
        let c = match self {
            SmFailure::Mismatch(m) => m.cycle,
            SmFailure::Fault { cycle, .. } | SmFailure::Memory { cycle, .. } => *cycle,
            SmFailure::Timeout { cycles, .. } => *cycles,
            _ => return None,
        };
        Some(c.saturating_sub(2000))
    }
}

impl fmt::Display for SmFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SmFailure::Mismatch(m) => write!(f, "{m}"),
            SmFailure::Fault { cycle, code } => {
                let what = match *code {
                    FAULT_STACK_OVERFLOW => "a reconvergence stack overflowed (raise stack_depth)",
                    FAULT_PC_RANGE => "a warp ran to a PC outside the program",
                    FAULT_DIVERGENT_BARRIER => "a divergent barrier (a warp reached bar.sync with lanes parked on its reconvergence stack)",
                    _ => "an undecodable instruction",
                };
                write!(f, "the SM faulted at cycle {cycle}: {what} (fault_code {code})")
            }
            SmFailure::Timeout { cycles, records } => write!(
                f,
                "the kernel did not finish within {cycles} cycles ({records} warp-instructions retired); raise --max-cycles if it is merely long"
            ),
            SmFailure::Memory { cycle, msg } => write!(f, "cycle {cycle}: {msg}"),
            SmFailure::Result(m) => write!(f, "wrong result: {m}"),
            SmFailure::Bridge(m) => write!(f, "{m}"),
        }
    }
}

/// The SM's ports, resolved once.
struct Ports {
    layout: Layout,
}

impl Ports {
    fn slot<'a>(slots: &'a [Slot], name: &str) -> &'a Slot {
        slots
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("the sm contract has no port `{name}`"))
    }
    fn set(&self, inputs: &mut [u64], name: &str, v: u64) {
        let s = Self::slot(&self.layout.inputs, name);
        inputs[s.offset] = v & s.word_mask(0);
    }
    /// Sets a port of 32-bit fields (word i in bits 32i..).
    fn set_words(&self, inputs: &mut [u64], name: &str, v: &[u32]) {
        let s = Self::slot(&self.layout.inputs, name);
        for w in 0..s.words {
            let lo = v.get(2 * w).copied().unwrap_or(0) as u64;
            let hi = v.get(2 * w + 1).copied().unwrap_or(0) as u64;
            inputs[s.offset + w] = lo | hi << 32;
        }
    }
    fn get(&self, outputs: &[u64], name: &str) -> u64 {
        outputs[Self::slot(&self.layout.outputs, name).offset]
    }
    /// The 32-bit fields of an output port.
    fn get_words(&self, outputs: &[u64], name: &str, n: usize) -> Vec<u32> {
        let s = Self::slot(&self.layout.outputs, name);
        (0..n)
            .map(|i| (outputs[s.offset + i / 2] >> (32 * (i % 2))) as u32)
            .collect()
    }
}

/// Runs the prepared machine's kernel on the SM design. `check` is the host reference (a
/// suite kernel's check); the RTL's memory must also equal the interpreter's.
#[allow(clippy::too_many_arguments)]
/// Whether a kernel's launch fits the SM (registers, shared memory, threads, CTA slots):
/// `Err` names the limit. `run` refuses one that does not; callers check first to skip it.
pub fn fits(cfg: &SmConfig, program: &Program, launch: &Launch) -> Result<(), String> {
    let mut sized = launch.clone();
    sized.warp_size = cfg.warp_size as u32;
    let machine = Machine::new(program, &sized).map_err(|f| f.to_string())?;
    Image::new(cfg, program, &machine).map(|_| ())
}

pub fn run(
    cfg: &SmConfig,
    design: &Design,
    manifest: &Manifest,
    program: &Program,
    launch: &Launch,
    check: Option<fn(&Launch, &Machine) -> Result<(), String>>,
    opts: &SmRunOptions,
) -> Result<SmStats, SmFailure> {
    // %laneid and %warpid follow the SM's warp size.
    let mut sized = launch.clone();
    sized.warp_size = cfg.warp_size as u32;
    let machine = Machine::new(program, &sized).map_err(|f| SmFailure::Result(f.to_string()))?;
    // Refusal of a kernel that does not fit is the caller's job (exit 2): checked here too.
    let image = Image::new(cfg, program, &machine).map_err(SmFailure::Result)?;
    let compiled = build(design, manifest, opts.wave.is_some())
        .map_err(|e| SmFailure::Bridge(e.to_string()))?;
    let ports = Ports {
        layout: manifest.layout(),
    };
    let mut rtl = Rtl::load(&compiled, &ports.layout, opts.seed)
        .map_err(|e| SmFailure::Bridge(e.to_string()))?;
    if let Some(w) = &opts.wave {
        rtl.trace(w, opts.wave_from)
            .map_err(|e| SmFailure::Bridge(e.to_string()))?;
    }
    let mut mem = MemServer::new(
        machine.memory.clone(),
        cfg.mem_latency as u64,
        cfg.mem_stall_pct as u64,
        opts.seed,
    );
    let mut checker = Checker::new(machine, cfg.warp_size as u32);
    let (iw, ow) = (ports.layout.in_words, ports.layout.out_words);
    let mut inp = vec![0u64; iw];
    let mut out = vec![0u64; ow];
    let mut cycle = 0u64;
    let step = |rtl: &mut Rtl, inp: &[u64], out: &mut [u64], cycle: &mut u64| {
        rtl.run(inp, out);
        *cycle += 1;
    };

    // Reset, then load the program and the parameters, then start.
    ports.set(&mut inp, "reset", 1);
    for _ in 0..2 {
        step(&mut rtl, &inp, &mut out, &mut cycle);
    }
    ports.set(&mut inp, "reset", 0);
    for (pc, &w) in image.imem.iter().enumerate() {
        ports.set(&mut inp, "imem_we", 1);
        ports.set(&mut inp, "imem_addr", pc as u64);
        ports.set(&mut inp, "imem_wdata", w);
        step(&mut rtl, &inp, &mut out, &mut cycle);
    }
    ports.set(&mut inp, "imem_we", 0);
    for (i, &w) in image.params.iter().enumerate() {
        ports.set(&mut inp, "param_we", 1);
        ports.set(&mut inp, "param_addr", i as u64);
        ports.set(&mut inp, "param_wdata", w as u64);
        step(&mut rtl, &inp, &mut out, &mut cycle);
    }
    ports.set(&mut inp, "param_we", 0);
    ports.set(&mut inp, "k_regs", image.regs as u64);
    ports.set(&mut inp, "k_shared_words", image.shared_words as u64);
    for (d, n) in ["x", "y", "z"].iter().enumerate() {
        ports.set(&mut inp, &format!("k_grid_{n}"), image.grid[d] as u64);
        ports.set(&mut inp, &format!("k_block_{n}"), image.block[d] as u64);
    }
    ports.set(&mut inp, "start", 1);
    step(&mut rtl, &inp, &mut out, &mut cycle);
    ports.set(&mut inp, "start", 0);

    // The ports read or written every cycle, resolved once (the rest only when valid).
    let off = |slots: &[Slot], name: &str| Ports::slot(slots, name).offset;
    let (o, i) = (&ports.layout.outputs, &ports.layout.inputs);
    let (in_ready, in_resp_valid) = (off(i, "mreq_ready"), off(i, "mresp_valid"));
    let (o_req, o_ret) = (off(o, "mreq_valid"), off(o, "ret_valid"));
    let (o_fault, o_done) = (off(o, "fault"), off(o, "done"));
    let ws = cfg.warp_size;
    let started = cycle;
    let t0 = Instant::now();
    let progress = opts.progress && std::io::stderr().is_terminal();
    loop {
        let ready = mem.ready();
        inp[in_ready] = ready as u64;
        match mem.response(cycle) {
            Some(d) => {
                inp[in_resp_valid] = 1;
                ports.set_words(&mut inp, "mresp_data", &d);
            }
            None => inp[in_resp_valid] = 0,
        }
        let now = cycle;
        step(&mut rtl, &inp, &mut out, &mut cycle);
        if ready && out[o_req] == 1 {
            let mut data = [0u32; BLOCK_WORDS];
            data.copy_from_slice(&ports.get_words(&out, "mreq_wdata", BLOCK_WORDS));
            mem.accept(
                now,
                ports.get(&out, "mreq_op"),
                ports.get(&out, "mreq_addr") as u32,
                &data,
                ports.get(&out, "mreq_wmask"),
            )
            .map_err(|msg| SmFailure::Memory { cycle: now, msg })?;
        }
        if opts.check && out[o_ret] == 1 {
            let r = Record {
                cycle: now,
                cta: ports.get(&out, "ret_cta"),
                warp: ports.get(&out, "ret_warp") as u32,
                slot: ports.get(&out, "ret_slot") as u32,
                pc: ports.get(&out, "ret_pc") as u32,
                mask: ports.get(&out, "ret_mask"),
                exec: ports.get(&out, "ret_exec"),
                rd_we: ports.get(&out, "ret_rd_we") == 1,
                rd: ports.get(&out, "ret_rd") as u8,
                pd_we: ports.get(&out, "ret_pd_we") == 1,
                pd: ports.get(&out, "ret_pd") as u8,
                values: ports.get_words(&out, "ret_values", ws),
                pvalues: ports.get(&out, "ret_pvalues"),
                st_we: ports.get(&out, "ret_st_we") == 1,
                st_shared: ports.get(&out, "ret_st_shared") == 1,
                st_addr: ports.get_words(&out, "ret_st_addr", ws),
                st_data: ports.get_words(&out, "ret_st_data", ws),
                clock: ports.get(&out, "ret_clock") as u32,
            };
            checker.check(&r).map_err(SmFailure::Mismatch)?;
        }
        if out[o_fault] == 1 {
            return Err(SmFailure::Fault {
                cycle: now,
                code: ports.get(&out, "fault_code"),
            });
        }
        if out[o_done] == 1 {
            break;
        }
        if now - started >= opts.max_cycles {
            return Err(SmFailure::Timeout {
                cycles: opts.max_cycles,
                records: checker.records,
            });
        }
        if progress && (now - started) % (1 << 20) == 0 && now > started {
            eprint!(
                "\r  cycle {} · {} warp-instructions",
                now - started,
                checker.records
            );
            let _ = std::io::stderr().flush();
        }
    }
    if progress {
        eprint!("\r\x1b[K");
    }
    let seconds = t0.elapsed().as_secs_f64();
    if opts.check {
        final_checks(&checker, &mem, launch, check, cycle)?;
    }
    let cycles = ports.get(&out, "cnt_cycles");
    let records = checker.records;
    Ok(SmStats {
        cycles,
        warp_instructions: records,
        thread_instructions: checker.thread_steps,
        active_lanes: checker.active_lanes,
        ipc: records as f64 / cycles.max(1) as f64,
        simd_utilisation: checker.thread_steps as f64 / (records.max(1) * ws as u64) as f64,
        stall_scoreboard: ports.get(&out, "cnt_stall_sb"),
        stall_memory: ports.get(&out, "cnt_stall_mem"),
        stall_barrier: ports.get(&out, "cnt_stall_bar"),
        stall_idle: ports.get(&out, "cnt_stall_idle"),
        overlap_cycles: ports.get(&out, "cnt_overlap"),
        opr_read_cycles: ports.get(&out, "cnt_opr_read"),
        mem_reads: mem.reads,
        mem_writes: mem.writes,
        mem_atomics: mem.atomics,
        seconds,
        cycles_per_sec: (cycle - started) as f64 / seconds.max(1e-9),
        build_seconds: compiled.build_seconds,
    })
}

/// After `done`: every block finished in the interpreter, no request unanswered, the RTL's
/// global memory equal to the interpreter's, and the host reference satisfied.
fn final_checks(
    checker: &Checker,
    mem: &MemServer,
    launch: &Launch,
    check: Option<fn(&Launch, &Machine) -> Result<(), String>>,
    cycle: u64,
) -> Result<(), SmFailure> {
    checker.finish().map_err(SmFailure::Result)?;
    if mem.outstanding() != 0 {
        return Err(SmFailure::Memory {
            cycle,
            msg: format!(
                "the SM reported done with {} memory requests unanswered",
                mem.outstanding()
            ),
        });
    }
    if let Some(i) = (0..mem.memory.words.len())
        .find(|&i| mem.memory.words[i] != checker.machine.memory.words[i])
    {
        return Err(SmFailure::Result(format!(
            "global word {:#x} is {:#x} in the RTL's memory but {:#x} in the interpreter's",
            warpforge_testbench::isa::launch::GLOBAL_BASE as usize + 4 * i,
            mem.memory.words[i],
            checker.machine.memory.words[i]
        )));
    }
    if let Some(check) = check {
        let mut on_rtl = checker.machine.clone();
        on_rtl.memory = mem.memory.clone();
        check(launch, &on_rtl).map_err(SmFailure::Result)?;
    }
    Ok(())
}

/// Random programs sized to the SM: two blocks of up to 64 threads.
pub fn random_options(cfg: &SmConfig) -> RandomOptions {
    RandomOptions {
        block: cfg.max_threads().min(64) as u32,
        grid: 2,
        ..RandomOptions::default()
    }
}

/// What a run of random programs covered.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RandomSummary {
    pub programs: u64,
    pub first_seed: u64,
    pub cycles: u64,
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub seconds: f64,
}

/// `cosim sm`: random programs (seeds `seed`, `seed + 1`, …) until at least `cycles` SM
/// cycles have run, each checked per retired instruction. `Err` names the failing seed.
pub fn random_cosim(
    cfg: &SmConfig,
    design: &Design,
    manifest: &Manifest,
    cycles: u64,
    seed: u64,
) -> Result<RandomSummary, (u64, SmFailure)> {
    let t0 = Instant::now();
    let mut s = RandomSummary {
        first_seed: seed,
        ..RandomSummary::default()
    };
    let mut next = seed;
    while s.cycles < cycles {
        let (program, launch) = random_program(next, random_options(cfg));
        let r = run(
            cfg,
            design,
            manifest,
            &program,
            &launch,
            None,
            &SmRunOptions::new(next),
        )
        .map_err(|f| (next, f))?;
        s.programs += 1;
        s.cycles += r.cycles;
        s.warp_instructions += r.warp_instructions;
        s.thread_instructions += r.thread_instructions;
        next += 1;
    }
    s.seconds = t0.elapsed().as_secs_f64();
    Ok(s)
}

/// `bench sm`: the same workload on raw Verilator (memory served, nothing checked) and with
/// the per-instruction lockstep on.
#[derive(Clone, Debug, Serialize)]
pub struct SmBench {
    pub module: String,
    pub workload: String,
    pub cycles: u64,
    pub warp_instructions: u64,
    pub verilator_cps: f64,
    pub lockstep_cps: f64,
    pub lockstep_over_raw: f64,
    pub warp_instructions_per_sec: f64,
    pub build_s: f64,
    /// Runs of each kind, interleaved.
    pub repetitions: usize,
}

/// The bench's workload: the first suite kernel (small size) that fits the SM, else a random
/// program.
pub fn bench_workload(
    cfg: &SmConfig,
) -> (
    String,
    Program,
    Launch,
    Option<fn(&Launch, &Machine) -> Result<(), String>>,
) {
    use warpforge_testbench::isa::kernels::SUITE;
    use warpforge_testbench::isa::{suite, AsmOptions};
    for k in SUITE {
        let (Ok(p), Ok(l)) = (
            suite::program(k, &AsmOptions::default()),
            (k.make)(k.sizes[0], 1),
        ) else {
            continue;
        };
        if fits(cfg, &p, &l).is_ok() {
            return (
                format!("{} (size {})", k.name, k.sizes[0]),
                p,
                l,
                Some(k.check),
            );
        }
    }
    let (p, l) = random_program(1, random_options(cfg));
    ("random program seed 1".into(), p, l, None)
}

pub fn bench(
    cfg: &SmConfig,
    design: &Design,
    manifest: &Manifest,
    seed: u64,
) -> Result<SmBench, SmFailure> {
    let (workload, program, launch, check) = bench_workload(cfg);
    let mut raw_opts = SmRunOptions::new(seed);
    raw_opts.check = false;
    let lock_opts = SmRunOptions::new(seed);
    // Interleave raw and lockstep runs, repeated to about a second each, so both see the
    // same machine load.
    let first = run(cfg, design, manifest, &program, &launch, None, &raw_opts)?;
    let reps = (1.0 / first.seconds.max(1e-3)).ceil().clamp(1.0, 50.0) as usize;
    let (mut raw_s, mut lock_s, mut raw_c, mut lock_c) = (0.0, 0.0, 0u64, 0u64);
    let mut last = None;
    for _ in 0..reps {
        let r = run(cfg, design, manifest, &program, &launch, None, &raw_opts)?;
        raw_s += r.seconds;
        raw_c += r.cycles;
        let l = run(cfg, design, manifest, &program, &launch, check, &lock_opts)?;
        lock_s += l.seconds;
        lock_c += l.cycles;
        last = Some(l);
    }
    let l = last.expect("at least one repetition");
    let (raw_cps, lock_cps) = (
        raw_c as f64 / raw_s.max(1e-9),
        lock_c as f64 / lock_s.max(1e-9),
    );
    Ok(SmBench {
        module: cfg.module_name(),
        workload,
        cycles: l.cycles,
        warp_instructions: l.warp_instructions,
        verilator_cps: raw_cps,
        lockstep_cps: lock_cps,
        lockstep_over_raw: lock_cps / raw_cps.max(1e-9),
        warp_instructions_per_sec: (l.warp_instructions * reps as u64) as f64 / lock_s.max(1e-9),
        build_s: first.build_seconds,
        repetitions: reps,
    })
}
