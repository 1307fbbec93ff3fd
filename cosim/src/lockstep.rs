//! The lockstep runner: the same input vector goes to the model and to the Verilated RTL each
//! cycle; every output port (debug state ports included) is compared; the first difference
//! stops the run with the cycle, port, expected and actual values, the seed and the command
//! that replays it with a waveform.
//!
//! The model runs a chunk of cycles ahead (the stimulus reacts to the model's outputs), then
//! the RTL runs the same chunk in one call, then the chunk is compared. Cycles whose `reset`
//! input is high are not compared: registers start from random values until reset.

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
const CHUNK: usize = 4096;
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
        s
    }
}

/// Errors that stop a run before it can report (bad stimulus file, missing tool, build).
#[derive(Debug)]
pub enum RunError {
    Input(String),
    Bridge(BridgeError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Input(m) => f.write_str(m),
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

fn first_difference<'a>(
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
    mut opts: Options,
) -> Result<Report, RunError> {
    let manifest = unit.manifest();
    let design = unit.design();
    let compiled = verilator::build(&design, &manifest, opts.wave.is_some())?;
    let layout = manifest.layout();
    let mut rtl = Rtl::load(&compiled, &layout, opts.seed)?;
    let mut model = model;
    let total = match &source {
        Source::Trace(t) => opts.cycles.min(t.len() as u64),
        Source::Random(_) => opts.cycles,
    };
    let wave_from = total.saturating_sub(WAVE_WINDOW);
    // The state log is staged like the VCD and reaches its path only after the VCD did.
    let mut state_log = match &opts.wave {
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
    let mut inputs = vec![0u64; CHUNK * iw];
    let mut expected = vec![0u64; CHUNK * ow];
    let mut actual = vec![0u64; CHUNK * ow];
    let mut prev = vec![0u64; ow];
    let mut source = source;
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
    };
    let t0 = Instant::now();
    let mut last_progress = Instant::now();
    let mut done = 0u64;
    'outer: while done < total {
        let n = ((total - done) as usize).min(CHUNK);
        let mut ran = n;
        for c in 0..n {
            let cycle = done + c as u64;
            let inp = &mut inputs[c * iw..(c + 1) * iw];
            match &mut source {
                Source::Random(stim) => stim.next(cycle, &prev, inp),
                Source::Trace(t) => inp.copy_from_slice(&t[cycle as usize]),
            }
            let exp = &mut expected[c * ow..(c + 1) * ow];
            model.step(inp, exp);
            prev.copy_from_slice(exp);
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
            if opts.check_invariants {
                if let Err(message) = model.check_invariants() {
                    report.invariant = Some(InvariantFailure { cycle, message });
                    report.model_state = Some(model.state_line());
                    ran = c + 1;
                    break;
                }
            }
        }
        rtl.run(&inputs[..ran * iw], &mut actual[..ran * ow]);
        for c in 0..ran {
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
            let differs = exp
                .iter()
                .zip(act)
                .zip(&masks)
                .any(|((e, a), m)| (e ^ a) & m != 0);
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
                // The model has run ahead to the end of the chunk; its state line is only
                // exact for the last cycle of the chunk, so point to the replay's log instead.
                report.model_state = None;
                break 'outer;
            }
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
    }
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
    Ok(report)
}

/// The model's state log written beside a waveform.
pub fn state_log_path(wave: &Path) -> PathBuf {
    let mut s = wave.as_os_str().to_owned();
    s.push(".model.log");
    PathBuf::from(s)
}

/// Run one spec vector on both the model and the RTL: each listed expectation is checked on
/// both sides, and every output of the two sides is compared each cycle (except in reset).
pub fn run_spec_vector(v: &SpecVector) -> Result<(), String> {
    let unit = Unit::resolve(v.unit, &v.sets).map_err(|e| format!("{}: {e}", v.name))?;
    let manifest = unit.manifest();
    let layout = manifest.layout();
    let compiled = verilator::build(&unit.design(), &manifest, false).map_err(|e| e.to_string())?;
    let mut rtl = Rtl::load(&compiled, &layout, 1).map_err(|e| e.to_string())?;
    // The model against the spec (and its invariants), through the shared harness.
    let expected = harness::run_vector(unit.model().as_mut(), &layout, v)?;
    let inputs = harness::vector_inputs(&layout, v)?;
    let ow = layout.out_words;
    let mut actual = vec![0u64; inputs.len() * ow];
    rtl.run(&inputs.concat(), &mut actual);
    for (c, cycle) in v.cycles.iter().enumerate() {
        if harness::in_reset(&layout, &inputs[c]) {
            continue;
        }
        let act = &actual[c * ow..(c + 1) * ow];
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
