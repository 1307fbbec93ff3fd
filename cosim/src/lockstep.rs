//! The lockstep runner: the same input vector goes to the model and to the Verilated RTL each
//! cycle; every output port (debug state ports included) is compared; the first difference
//! stops the run with the cycle, port, expected and actual values, the seed and the command
//! that replays it with a waveform.
//!
//! The model runs a chunk of cycles ahead (the stimulus reacts to the model's outputs), then
//! the RTL runs the same chunk in one call, then the chunk is compared. The model side runs on
//! a thread of its own, a chunk ahead of the RTL side. Cycles whose `reset`
//! input is high are not compared: registers start from random values until reset.

use crate::icarus;
use crate::outpath::{self, Staged};
use crate::registry::Unit;
use crate::verilator::{self, BridgeError, Rtl};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use warpforge_contract::manifest::{format_value, parse_value, Slot};
use warpforge_contract::Layout;
use warpforge_testbench::{harness, Model, SpecVector, Stimulus};

/// Cycles per batch handed to the RTL.
const CHUNK: usize = 2048;
/// Cycles of waveform kept before a failure when replaying with `--wave`.
pub const WAVE_WINDOW: u64 = 2000;

/// Where the inputs come from.
pub enum Source {
    /// The unit's constrained-random generator.
    Random(Box<dyn Stimulus>),
    /// A recorded input trace, one input vector per cycle.
    Trace(Vec<Vec<u64>>),
}

pub struct Options {
    pub cycles: u64,
    pub seed: u64,
    /// Assert the model's invariants every cycle.
    pub check_invariants: bool,
    /// Write both sides' outputs (and the inputs) per cycle as JSON lines.
    pub dump: Option<PathBuf>,
    /// Write a VCD of the last cycles (and the model's state log beside it).
    pub wave: Option<PathBuf>,
    /// The stimulus file, if any, for replay commands.
    pub stimulus_file: Option<String>,
    /// Called about once a second with (cycles done, cycles total).
    pub progress: Option<Box<dyn FnMut(u64, u64)>>,
}

impl Options {
    pub fn new(cycles: u64, seed: u64) -> Options {
        Options {
            cycles,
            seed,
            check_invariants: true,
            dump: None,
            wave: None,
            stimulus_file: None,
            progress: None,
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub port: String,
    pub expected: String,
    pub actual: String,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct InvariantFailure {
    pub cycle: u64,
    pub message: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub unit: String,
    pub module: String,
    pub seed: u64,
    /// Cycles simulated (up to and including a failing one).
    pub cycles: u64,
    pub mismatches: u64,
    pub mismatch: Option<Mismatch>,
    pub invariant: Option<InvariantFailure>,
    pub cycles_per_sec: f64,
    pub build_seconds: f64,
    pub cached_build: bool,
    /// The command that replays a failure with a waveform.
    pub replay: Option<String>,
    /// The model's state at the failing cycle.
    pub model_state: Option<String>,
    /// What the run exercised.
    pub coverage: Coverage,
}

/// What a run exercised: each output port's toggle count (bit flips between consecutive
/// cycles out of reset, from the model's outputs, which equal the RTL's on a passing run),
/// the model's event counters, and a warning when the run never made the unit act.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Coverage {
    pub toggles: serde_json::Map<String, serde_json::Value>,
    pub events: serde_json::Map<String, serde_json::Value>,
    pub warning: Option<String>,
}

impl Coverage {
    /// From per-port toggle counts (layout order) and the model's counters after `cycles`.
    fn new(layout: &Layout, toggles: &[u64], events: &[(&'static str, u64)], cycles: u64) -> Self {
        let mut c = Coverage::default();
        for (s, t) in layout.outputs.iter().zip(toggles) {
            c.toggles.insert(s.name.clone(), (*t).into());
        }
        for (n, v) in events {
            c.events.insert(n.to_string(), (*v).into());
        }
        c.warning = match events.first() {
            Some((name, 0)) => Some(format!(
                "the run never made the unit act: 0 {name} in {cycles} cycles"
            )),
            Some(_) => None,
            None => {
                let acting = layout
                    .outputs
                    .iter()
                    .zip(toggles)
                    .any(|(s, t)| !s.name.starts_with("dbg_") && *t > 0);
                (!acting).then(|| {
                    format!("the run never made the unit act: no output other than dbg_* changed in {cycles} cycles")
                })
            }
        };
        c
    }

    /// The summary lines: events, toggles, and the warning if any.
    pub fn render(&self) -> String {
        let kv = |m: &serde_json::Map<String, serde_json::Value>| {
            m.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut s = String::new();
        if !self.events.is_empty() {
            s += &format!("  events: {}\n", kv(&self.events));
        }
        s += &format!("  toggles: {}\n", kv(&self.toggles));
        if let Some(w) = &self.warning {
            s += &format!("warning: {w}\n");
        }
        s
    }
}

impl Report {
    pub fn passed(&self) -> bool {
        self.mismatch.is_none() && self.invariant.is_none()
    }

    /// Human-readable summary (several lines on failure).
    pub fn render(&self) -> String {
        let mut s = String::new();
        if let Some(m) = &self.mismatch {
            s += &format!(
                "MISMATCH {} at cycle {}: port {} expected {} (model) actual {} (rtl); seed {}\n",
                self.module, m.cycle, m.port, m.expected, m.actual, self.seed
            );
        }
        if let Some(i) = &self.invariant {
            s += &format!(
                "INVARIANT {} at cycle {}: {}; seed {}\n",
                self.module, i.cycle, i.message, self.seed
            );
        }
        if let Some(st) = &self.model_state {
            s += &format!("  model state: {st}\n");
        }
        if let Some(r) = &self.replay {
            s += &format!("  replay with waveform: {r}\n");
        }
        if self.passed() {
            s += &format!(
                "PASS {}: {} cycles, 0 mismatches, seed {}, {:.3e} cycles/s (build {:.1} s{})\n",
                self.module,
                self.cycles,
                self.seed,
                self.cycles_per_sec,
                self.build_seconds,
                if self.cached_build { ", cached" } else { "" }
            );
        }
        s += &self.coverage.render();
        s
    }
}

/// Errors that stop a run before it can report (bad stimulus file, missing tool, build).
#[derive(Debug)]
pub enum RunError {
    Input(String),
    /// A replayed stimulus breaks the unit's input protocol (`FILE: cycle N: port P: why`).
    Protocol(String),
    Bridge(BridgeError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Input(m) | RunError::Protocol(m) => f.write_str(m),
            RunError::Bridge(e) => write!(f, "{e}"),
        }
    }
}

impl From<BridgeError> for RunError {
    fn from(e: BridgeError) -> Self {
        RunError::Bridge(e)
    }
}

/// Parse a JSON-lines input trace: one object per cycle mapping input port names to values
/// (numbers, or strings in hex `0x…` or decimal). Ports not named are 0. Lines of a `--dump`
/// file (objects with an `inputs` member) are accepted too, so a dump replays as a stimulus.
pub fn parse_stimulus(path: &str, layout: &Layout) -> Result<Vec<Vec<u64>>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{path}: cannot read stimulus file: {e}"))?;
    let names = || {
        layout
            .inputs
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut cycles = vec![];
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            format!(
                "{path}:{n}: malformed JSON ({e}); expected one object per line, port name → value"
            )
        })?;
        let obj = match v.get("inputs").unwrap_or(&v) {
            serde_json::Value::Object(o) => o.clone(),
            _ => {
                return Err(format!(
                    "{path}:{n}: expected a JSON object mapping input port names to values"
                ))
            }
        };
        let mut words = vec![0u64; layout.in_words];
        for (k, val) in &obj {
            let slot = layout.input(k).ok_or_else(|| {
                format!(
                    "{path}:{n}: unknown input port `{}`; inputs are: {}",
                    k.escape_debug(),
                    names()
                )
            })?;
            parse_value(val, slot.width, &mut words[slot.offset..slot.offset + slot.words]).ok_or_else(|| {
                format!(
                    "{path}:{n}: port {k} = {val} is not a {}-bit value (a number, or a string in hex 0x… or decimal)",
                    slot.width
                )
            })?;
        }
        cycles.push(words);
    }
    if cycles.is_empty() {
        return Err(format!("{path}: no input lines"));
    }
    if let Some(r) = layout.input("reset") {
        if cycles[0][r.offset] & 1 == 0 {
            return Err(format!(
                "{path}: the first cycle does not assert reset: registers start from random values, the model from reset; start the file with {{\"reset\": 1}}"
            ));
        }
    }
    Ok(cycles)
}

/// Per output word, the mask of bits that belong to the port.
fn output_masks(layout: &Layout) -> Vec<u64> {
    let mut m = vec![0u64; layout.out_words];
    for s in &layout.outputs {
        for i in 0..s.words {
            m[s.offset + i] = s.word_mask(i);
        }
    }
    m
}

/// Whether any cycle of a chunk (`ow`-word cycles back to back) differs in a compared bit.
fn differs_anywhere(expected: &[u64], actual: &[u64], masks: &[u64]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has the instructions the function is compiled for.
        return unsafe { differs_avx512(expected, actual, masks) };
    }
    differs_any(expected, actual, masks)
}

/// [`differs_anywhere`] eight words at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn differs_avx512(expected: &[u64], actual: &[u64], masks: &[u64]) -> bool {
    differs_any(expected, actual, masks)
}

#[inline(always)]
fn differs_any(expected: &[u64], actual: &[u64], masks: &[u64]) -> bool {
    let ow = masks.len();
    if ow == 0 {
        return false;
    }
    let mut d = 0;
    for (e, a) in expected.chunks_exact(ow).zip(actual.chunks_exact(ow)) {
        for ((e, a), m) in e.iter().zip(a).zip(masks) {
            d |= (e ^ a) & m;
        }
    }
    d != 0
}

/// The first output port whose (masked) values differ, with both values formatted.
pub(crate) fn first_difference<'a>(
    layout: &'a Layout,
    exp: &[u64],
    act: &[u64],
) -> Option<(&'a Slot, String, String)> {
    layout.outputs.iter().find_map(|s| {
        let r = s.offset..s.offset + s.words;
        let masked = |w: &[u64]| {
            w.iter()
                .enumerate()
                .map(|(i, x)| x & s.word_mask(i))
                .collect::<Vec<_>>()
        };
        let (e, a) = (masked(&exp[r.clone()]), masked(&act[r]));
        (e != a).then(|| (s, format_value(&e), format_value(&a)))
    })
}

fn ports_json(slots: &[Slot], words: &[u64]) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for s in slots {
        let w = &words[s.offset..s.offset + s.words];
        let v = if s.width <= 64 {
            serde_json::json!(w[0])
        } else {
            serde_json::json!(format_value(w))
        };
        m.insert(s.name.clone(), v);
    }
    serde_json::Value::Object(m)
}

fn replay_command(unit: &Unit, opts: &Options, fail_cycle: u64) -> String {
    let mut parts = vec!["warpforge".to_string(), "cosim".to_string()];
    parts.extend(unit.cli_args());
    parts.push(format!("--seed {}", opts.seed));
    parts.push(format!("--cycles {}", fail_cycle + 1));
    if let Some(f) = &opts.stimulus_file {
        parts.push(format!("--stimulus {f}"));
    }
    parts.push(format!("--wave {}-seed{}.vcd", unit.name(), opts.seed));
    parts.join(" ")
}

/// Run `unit` in lockstep with `model` (normally `unit.model()`; tests may pass a planted
/// variant) for `opts.cycles` cycles or until the first difference.
pub fn run(
    unit: &Unit,
    model: Box<dyn Model>,
    source: Source,
    opts: Options,
) -> Result<Report, RunError> {
    run_design(unit, &unit.design(), model, source, opts)
}

/// [`run`] with a given design in place of `unit.design()` (same ports): tests plant a bug in
/// the RTL this way and check that lockstep finds it.
pub fn run_design(
    unit: &Unit,
    design: &warpforge_hdl::Design,
    model: Box<dyn Model>,
    source: Source,
    mut opts: Options,
) -> Result<Report, RunError> {
    let manifest = unit.manifest();
    if let Source::Trace(t) = &source {
        let file = opts.stimulus_file.as_deref().unwrap_or("stimulus");
        check_protocol(unit, t, opts.cycles)
            .map_err(|e| RunError::Protocol(format!("{file}: {e}")))?;
    }
    let compiled = verilator::build(design, &manifest, opts.wave.is_some())?;
    let layout = manifest.layout();
    let mut rtl = Rtl::load(&compiled, &layout, opts.seed)?;
    let total = match &source {
        Source::Trace(t) => opts.cycles.min(t.len() as u64),
        Source::Random(_) => opts.cycles,
    };
    let wave_from = total.saturating_sub(WAVE_WINDOW);
    // The state log is staged like the VCD and reaches its path only after the VCD did.
    let state_log = match &opts.wave {
        Some(w) => {
            rtl.trace(w, wave_from)?;
            let staged = Staged::new("--wave", &state_log_path(w)).map_err(RunError::Input)?;
            let f = staged.file().map_err(RunError::Input)?;
            Some((std::io::BufWriter::new(f), staged))
        }
        None => None,
    };
    let dump_err =
        |p: &Path, e: std::io::Error| RunError::Input(outpath::write_error("--dump", p, &e));
    let mut dump = match &opts.dump {
        Some(p) => Some((
            std::io::BufWriter::new(std::fs::File::create(p).map_err(|e| dump_err(p, e))?),
            p.clone(),
        )),
        None => None,
    };
    let reset = layout.input("reset").map(|s| s.offset);
    let masks = output_masks(&layout);
    let (iw, ow) = (layout.in_words, layout.out_words);
    let mut report = Report {
        unit: unit.name().into(),
        module: manifest.module.clone(),
        seed: opts.seed,
        cycles: 0,
        mismatches: 0,
        mismatch: None,
        invariant: None,
        cycles_per_sec: 0.0,
        build_seconds: compiled.build_seconds,
        cached_build: !compiled.built,
        replay: None,
        model_state: None,
        coverage: Coverage::default(),
    };
    // Bit toggles per output word (summed per port at the end: ports are whole words).
    let mut toggles = Toggles::new(ow);
    let t0 = Instant::now();
    let mut last_progress = Instant::now();
    let mut done = 0u64;
    let check_invariants = opts.check_invariants;
    // The model side (stimulus, model, invariants, state log) fills chunks on a thread of its
    // own while this thread runs the RTL on the previous chunk and compares: on two cores a run
    // takes about as long as its slower side instead of the sum of both. Two chunk buffers
    // circulate; the results are those of one thread (the stimulus reads the model's outputs,
    // which equal the RTL's up to the first difference, where the run stops).
    let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<ModelChunk>(2);
    let (free_tx, free_rx) = std::sync::mpsc::channel::<ModelChunk>();
    for _ in 0..2 {
        free_tx
            .send(ModelChunk {
                inputs: vec![0u64; CHUNK * iw],
                expected: vec![0u64; CHUNK * ow],
                ran: 0,
                invariant: None,
            })
            .expect("the receiver is alive");
    }
    let (model, state_log) = std::thread::scope(|scope| -> Result<_, RunError> {
        let producer = scope.spawn(move || {
            let mut model = model;
            let mut source = source;
            let mut state_log = state_log;
            let mut prev = vec![0u64; ow];
            let mut done = 0u64;
            while done < total {
                // The checker stopped (a mismatch): it no longer returns buffers.
                let Ok(mut chunk) = free_rx.recv() else { break };
                let n = ((total - done) as usize).min(CHUNK);
                let ModelChunk {
                    inputs, expected, ..
                } = &mut chunk;
                let mut ran = n;
                for c in 0..n {
                    let cycle = done + c as u64;
                    let inp = &mut inputs[c * iw..(c + 1) * iw];
                    // The stimulus sees the previous cycle's outputs where the model wrote them.
                    let (before, rest) = expected.split_at_mut(c * ow);
                    let prev_out = match c {
                        0 => &prev[..],
                        _ => &before[(c - 1) * ow..],
                    };
                    match &mut source {
                        Source::Random(stim) => stim.next(cycle, prev_out, inp),
                        Source::Trace(t) => inp.copy_from_slice(&t[cycle as usize]),
                    }
                    let exp = &mut rest[..ow];
                    model.step(inp, exp);
                    if let Some((log, _)) = &mut state_log {
                        if cycle >= wave_from {
                            let _ = writeln!(
                                log,
                                "t={} cycle={} {}",
                                10 * cycle,
                                cycle,
                                model.state_line()
                            );
                        }
                    }
                    if check_invariants {
                        if let Err(message) = model.check_invariants() {
                            chunk.invariant =
                                Some((InvariantFailure { cycle, message }, model.state_line()));
                            ran = c + 1;
                            break;
                        }
                    }
                }
                prev.copy_from_slice(&chunk.expected[(ran - 1) * ow..ran * ow]);
                chunk.ran = ran;
                let stop = chunk.invariant.is_some();
                if full_tx.send(chunk).is_err() || stop {
                    break;
                }
                done += ran as u64;
            }
            (model, state_log)
        });
        let mut actual = vec![0u64; CHUNK * ow];
        for mut chunk in full_rx.iter() {
            let ran = chunk.ran;
            let (inputs, expected) = (&chunk.inputs, &chunk.expected);
            toggles.add(&expected[..ran * ow], &inputs[..ran * iw], iw, reset);
            rtl.run(&inputs[..ran * iw], &mut actual[..ran * ow]);
            let mut mismatch = false;
            // Nearly every chunk has no difference at all: one pass over the whole chunk
            // shows it; a chunk with one (perhaps only in a reset cycle, which does not
            // count) or a dump is walked cycle by cycle.
            let walk = dump.is_some()
                || differs_anywhere(&expected[..ran * ow], &actual[..ran * ow], &masks);
            for c in (0..ran).filter(|_| walk) {
                let cycle = done + c as u64;
                let (exp, act) = (
                    &expected[c * ow..(c + 1) * ow],
                    &actual[c * ow..(c + 1) * ow],
                );
                if let Some((d, p)) = &mut dump {
                    let line = serde_json::json!({
                        "cycle": cycle,
                        "inputs": ports_json(&layout.inputs, &inputs[c * iw..(c + 1) * iw]),
                        "model": ports_json(&layout.outputs, exp),
                        "rtl": ports_json(&layout.outputs, act),
                    });
                    writeln!(d, "{line}").map_err(|e| dump_err(p, e))?;
                }
                let in_reset = reset.is_some_and(|r| inputs[c * iw + r] & 1 == 1);
                if in_reset {
                    continue;
                }
                // One test per cycle, not one branch per word.
                let differs = exp
                    .iter()
                    .zip(act)
                    .zip(&masks)
                    .fold(0, |d, ((e, a), m)| d | (e ^ a) & m)
                    != 0;
                if differs {
                    let (slot, e, a) = first_difference(&layout, exp, act)
                        .expect("a differing word belongs to a port");
                    report.mismatches = 1;
                    report.mismatch = Some(Mismatch {
                        cycle,
                        port: slot.name.clone(),
                        expected: e,
                        actual: a,
                    });
                    report.cycles = cycle + 1;
                    report.replay = Some(replay_command(unit, &opts, cycle));
                    mismatch = true;
                    break;
                }
            }
            if let Some((failure, state)) = chunk.invariant.take() {
                report.invariant = Some(failure);
                // The model stopped at the failing cycle: its state line is exact.
                report.model_state = Some(state);
            }
            if mismatch {
                // The model has run ahead to the end of the chunk; its state line is only
                // exact for the last cycle of the chunk, so point to the replay's log instead.
                report.model_state = None;
                break;
            }
            done += ran as u64;
            report.cycles = done;
            if report.invariant.is_some() {
                report.replay = Some(replay_command(unit, &opts, done - 1));
                break;
            }
            if let Some(p) = &mut opts.progress {
                if last_progress.elapsed().as_secs_f64() >= 1.0 {
                    p(done, total);
                    last_progress = Instant::now();
                }
            }
            // The model side may have finished already: then nobody takes the buffer back.
            let _ = free_tx.send(chunk);
        }
        // Stop the model side if it is still producing (the checker stopped early).
        drop(full_rx);
        drop(free_tx);
        Ok(producer.join().expect("the model thread does not panic"))
    })?;
    let secs = t0.elapsed().as_secs_f64().max(1e-9);
    report.cycles_per_sec = report.cycles as f64 / secs;
    // Every output is complete and checked before the run reports.
    if let Some((mut d, p)) = dump {
        d.flush().map_err(|e| dump_err(&p, e))?;
    }
    rtl.finish_trace()?;
    if let Some((mut log, staged)) = state_log {
        let p = staged.dest().to_path_buf();
        log.flush()
            .map_err(|e| RunError::Input(outpath::write_error("--wave", &p, &e)))?;
        staged.commit(0).map_err(RunError::Input)?;
    }
    let toggles: Vec<u64> = layout
        .outputs
        .iter()
        .map(|s| toggles.per_word[s.offset..s.offset + s.words].iter().sum())
        .collect();
    report.coverage = Coverage::new(&layout, &toggles, &model.events(), report.cycles);
    Ok(report)
}

/// One chunk of the model side's work: the inputs it drove, the outputs it expects, how many
/// cycles it ran (fewer than the chunk when an invariant failed, with the failure and the
/// model's state line at it).
struct ModelChunk {
    inputs: Vec<u64>,
    expected: Vec<u64>,
    ran: usize,
    invariant: Option<(InvariantFailure, String)>,
}

/// Bit flips of the model's outputs between consecutive cycles out of reset, per word.
struct Toggles {
    per_word: Vec<u64>,
    /// The last cycle's outputs before the current chunk, when it was out of reset.
    last: Vec<u64>,
    have_last: bool,
}

impl Toggles {
    fn new(ow: usize) -> Toggles {
        Toggles {
            per_word: vec![0; ow],
            last: vec![0; ow],
            have_last: false,
        }
    }

    /// Adds a chunk: `outs` and `ins` hold its cycles' outputs and inputs back to back.
    fn add(&mut self, outs: &[u64], ins: &[u64], iw: usize, reset: Option<usize>) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512vpopcntdq")
            {
                // SAFETY: the CPU has the instructions the function is compiled for.
                return unsafe { self.add_vpopcnt(outs, ins, iw, reset) };
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
                // SAFETY: as above.
                return unsafe { self.add_avx2(outs, ins, iw, reset) };
            }
            if std::is_x86_feature_detected!("popcnt") {
                // SAFETY: as above.
                return unsafe { self.add_popcnt(outs, ins, iw, reset) };
            }
        }
        self.add_any(outs, ins, iw, reset)
    }

    /// [`Toggles::add`] with eight words counted per instruction: a unit with wide debug
    /// ports (`dtm-tb`'s 1,536 active bits) has tens of output words a cycle.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
    unsafe fn add_vpopcnt(&mut self, outs: &[u64], ins: &[u64], iw: usize, reset: Option<usize>) {
        self.add_any(outs, ins, iw, reset)
    }

    /// [`Toggles::add`] with the counts vectorised as four words at a time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn add_avx2(&mut self, outs: &[u64], ins: &[u64], iw: usize, reset: Option<usize>) {
        self.add_any(outs, ins, iw, reset)
    }

    /// [`Toggles::add`] with the population count in one instruction (the generic one is
    /// a dozen per word, and this runs on every output word of every cycle).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn add_popcnt(&mut self, outs: &[u64], ins: &[u64], iw: usize, reset: Option<usize>) {
        self.add_any(outs, ins, iw, reset)
    }

    #[inline(always)]
    fn add_any(&mut self, outs: &[u64], ins: &[u64], iw: usize, reset: Option<usize>) {
        let ow = self.per_word.len();
        if ow == 0 {
            return;
        }
        // Index of the previous out-of-reset cycle in this chunk (None: `self.last`).
        let mut prev: Option<usize> = None;
        for (c, out) in outs.chunks_exact(ow).enumerate() {
            if reset.is_some_and(|r| ins[c * iw + r] & 1 == 1) {
                self.have_last = false;
                prev = None;
                continue;
            }
            if self.have_last {
                let last = match prev {
                    Some(p) => &outs[p * ow..(p + 1) * ow],
                    None => &self.last[..],
                };
                for ((t, a), b) in self.per_word.iter_mut().zip(out).zip(last) {
                    *t += (a ^ b).count_ones() as u64;
                }
            }
            self.have_last = true;
            prev = Some(c);
        }
        if let Some(p) = prev {
            self.last.copy_from_slice(&outs[p * ow..(p + 1) * ow]);
        }
    }
}

/// Check a recorded stimulus against the unit's input protocol before anything is built: a
/// fresh model checks each cycle's inputs in its state of that cycle (`cycle N: port P: why`).
pub fn check_protocol(unit: &Unit, trace: &[Vec<u64>], cycles: u64) -> Result<(), String> {
    let mut model = unit.model();
    let mut out = vec![0u64; unit.manifest().layout().out_words];
    for (cycle, inp) in trace.iter().enumerate().take(cycles as usize) {
        model
            .check_inputs(inp)
            .map_err(|why| format!("cycle {cycle}: {why}"))?;
        model.step(inp, &mut out);
    }
    Ok(())
}

/// The model's state log written beside a waveform.
pub fn state_log_path(wave: &Path) -> PathBuf {
    let mut s = wave.as_os_str().to_owned();
    s.push(".model.log");
    PathBuf::from(s)
}

/// Run one spec vector on both the model and the RTL: each listed expectation is checked on
/// both sides, and every output of the two sides is compared each cycle (except in reset).
///
/// The RTL runs under Icarus, the event-driven second simulator: a vector is a few dozen
/// cycles, and an Icarus compile takes a second where a Verilator build takes a minute, so
/// the spec vectors' many small configurations cost no Verilator builds. The random lockstep
/// runs under Verilator, and the Icarus replays show the two simulators agree.
pub fn run_spec_vector(v: &SpecVector) -> Result<(), String> {
    let unit = Unit::resolve(v.unit, &v.sets).map_err(|e| format!("{}: {e}", v.name))?;
    let manifest = unit.manifest();
    let layout = manifest.layout();
    let design = unit.design();
    let sim = icarus::Sim::compile(&design, &layout, &crate::tools::search_path())
        .map_err(|e| format!("{}: {e}", v.name))?
        .map_err(|d| format!("{}: Icarus rejects the RTL: {}", v.name, d.join("; ")))?;
    // The model against the spec (and its invariants), through the shared harness.
    let expected = harness::run_vector(unit.model().as_mut(), &layout, v)?;
    let inputs = harness::vector_inputs(&layout, v)?;
    let limit = icarus::sim_limit(&design, inputs.len());
    let actual = match sim
        .run(&inputs, limit)
        .map_err(|e| format!("{}: {e}", v.name))?
    {
        icarus::Outcome::Outputs(rows) => rows,
        icarus::Outcome::Hang(l) => {
            return Err(format!(
                "{}: the RTL hangs Icarus (no result within {} s)",
                v.name,
                l.as_secs()
            ))
        }
    };
    for (c, cycle) in v.cycles.iter().enumerate() {
        if harness::in_reset(&layout, &inputs[c]) {
            continue;
        }
        let act = actual[c]
            .as_ref()
            .map_err(|port| format!("{}: cycle {c}: port {port} has x/z bits (rtl)", v.name))?;
        harness::check_expected(&layout, v, c, cycle, act, "rtl")?;
        if let Some((s, e, a)) = first_difference(&layout, &expected[c], act) {
            return Err(format!(
                "{}: cycle {c}: port {} model {e} rtl {a}",
                v.name, s.name
            ));
        }
    }
    Ok(())
}

/// The first output word where `rtl` and `model` differ (each masked to its port's width),
/// among the output ports `check` accepts: (port name, word index, RTL word, model word). The
/// kernel-level runs (CROWN, DTM, the network) compare with it every cycle.
pub fn output_difference<'a>(
    layout: &'a Layout,
    rtl: &[u64],
    model: &[u64],
    check: impl Fn(&Slot) -> bool,
) -> Option<(&'a str, usize, u64, u64)> {
    for s in layout.outputs.iter().filter(|s| check(s)) {
        for i in 0..s.words {
            let m = s.word_mask(i);
            let (a, b) = (rtl[s.offset + i] & m, model[s.offset + i] & m);
            if a != b {
                return Some((s.name.as_str(), i, a, b));
            }
        }
    }
    None
}

/// Where two models first differ at the ports on `seed`'s stimulus of `unit` — the cycle and
/// port at which a planted bug must surface: (cycle, port, `good`'s value, `bad`'s value), or
/// None when they agree for `cycles` cycles. Reset cycles and bits outside a port are not
/// compared, as in lockstep. `good` drives the stimulus's view of the outputs.
pub fn first_divergence(
    unit: &Unit,
    mut good: Box<dyn Model>,
    mut bad: Box<dyn Model>,
    seed: u64,
    cycles: u64,
) -> Option<(u64, String, String, String)> {
    let layout = unit.manifest().layout();
    let mut stim = unit.stimulus(seed);
    let (mut inputs, mut og, mut ob) = (
        vec![0u64; layout.in_words],
        vec![0u64; layout.out_words],
        vec![0u64; layout.out_words],
    );
    for c in 0..cycles {
        stim.next(c, &og, &mut inputs);
        good.step(&inputs, &mut og);
        bad.step(&inputs, &mut ob);
        if harness::in_reset(&layout, &inputs) {
            continue;
        }
        for s in &layout.outputs {
            let word = |o: &[u64]| -> Vec<u64> {
                (0..s.words)
                    .map(|i| o[s.offset + i] & s.word_mask(i))
                    .collect()
            };
            if word(&og) != word(&ob) {
                return Some((
                    c,
                    s.name.clone(),
                    format_value(&word(&og)),
                    format_value(&word(&ob)),
                ));
            }
        }
    }
    None
}

/// The proof that lockstep catches a wrong RTL: `design` (the unit's RTL with a planted bug)
/// run against the real model must stop at exactly the cycle and port where `bad` (the model
/// with the same fault) first departs from the real model within `search` cycles, with the
/// same two values; the run stops there; and the real RTL passes the same stimulus 10,000
/// cycles past it. Err says which of these failed.
pub fn check_planted_bug(
    unit: &Unit,
    design: &warpforge_hdl::Design,
    bad: Box<dyn Model>,
    seed: u64,
    search: u64,
) -> Result<(), String> {
    let name = unit.name();
    let (cycle, port, expected, actual) = first_divergence(unit, unit.model(), bad, seed, search)
        .ok_or(format!(
        "{name}: the fault never shows at the ports in {search} cycles"
    ))?;
    if cycle <= 2 {
        return Err(format!(
            "{name}: the fault shows at start-up (cycle {cycle})"
        ));
    }
    let horizon = || Options::new(cycle + 10_000, seed);
    let src = || Source::Random(unit.stimulus(seed));
    let r = run_design(unit, design, unit.model(), src(), horizon()).map_err(|e| e.to_string())?;
    let m = r
        .mismatch
        .as_ref()
        .ok_or(format!("{name}: the planted RTL bug was not caught"))?;
    let got = (
        m.cycle,
        m.port.as_str(),
        m.expected.as_str(),
        m.actual.as_str(),
    );
    let want = (cycle, port.as_str(), expected.as_str(), actual.as_str());
    if got != want {
        return Err(format!(
            "{name}: caught as {got:?}, the faulty model predicts {want:?}"
        ));
    }
    if r.cycles != cycle + 1 {
        return Err(format!(
            "{name}: the run went on to cycle {} after the difference",
            r.cycles
        ));
    }
    let ok = run(unit, unit.model(), src(), horizon()).map_err(|e| e.to_string())?;
    match ok.passed() {
        true => Ok(()),
        false => Err(format!("{name}: the real RTL fails too\n{}", ok.render())),
    }
}
