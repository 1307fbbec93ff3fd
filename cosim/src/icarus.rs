//! A second simulator: a lockstep dump replayed under Icarus Verilog (event-driven, as the
//! simulators users bring are). A generated Verilog testbench reads the dump's inputs, applies
//! them with the lockstep cycle convention (inputs with the clock low, outputs read, then the
//! rising edge) and writes every output every cycle; every output port is then compared with
//! the dump's expected value on every cycle whose `reset` input is low (as lockstep does). A design that oscillates at zero delay never advances time, so
//! the simulation runs under a time limit: a hang is a failed check, not a wedged tool.

use crate::lint::Check;
use crate::registry::Unit;
use crate::tools::{self, FlowError};
use crate::verilator;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use warpforge_contract::manifest::{format_value, parse_value, Slot};
use warpforge_contract::Layout;
use warpforge_hdl::Design;
use warpforge_testbench::harness;

/// Cycles of the replay `lint` runs (from the unit's own stimulus and model).
pub const LINT_CYCLES: u64 = 2000;
/// Seed of that replay's stimulus.
pub const LINT_SEED: u64 = 1;
/// Bumped whenever the testbench or the compile recipe changes (part of the cache key).
const RECIPE: &str = "wf-icarus-1";
/// Time limit of the Icarus compile.
const COMPILE_LIMIT: Duration = Duration::from_secs(300);

/// What to replay: per cycle, the input words and the expected output words (packed as in
/// [`Layout`]).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub inputs: Vec<Vec<u64>>,
    pub expected: Vec<Vec<u64>>,
}

/// `cycles` cycles of the unit's constrained-random stimulus for `seed`, with the model's
/// outputs as the expected values (the model is what lockstep holds the RTL to).
pub fn model_trace(unit: &Unit, cycles: u64, seed: u64) -> Trace {
    let layout = unit.manifest().layout();
    let mut stim = unit.stimulus(seed);
    let mut model = unit.model();
    let mut prev = vec![0u64; layout.out_words];
    let mut t = Trace::default();
    for c in 0..cycles {
        let mut inp = vec![0u64; layout.in_words];
        stim.next(c, &prev, &mut inp);
        let mut out = vec![0u64; layout.out_words];
        model.step(&inp, &mut out);
        prev.copy_from_slice(&out);
        t.inputs.push(inp);
        t.expected.push(out);
    }
    t
}

/// Read a `cosim --dump` file: each line's `inputs` and, as the expected values, its `model`
/// outputs.
pub fn parse_dump(path: &str, layout: &Layout) -> Result<Trace, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read dump file: {e}"))?;
    let mut t = Trace::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let n = i + 1;
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            format!("{path}:{n}: malformed JSON ({e}); expected a cosim --dump line")
        })?;
        let side = |key: &str, slots: &[Slot], words: usize| -> Result<Vec<u64>, String> {
            let obj = v.get(key).and_then(|o| o.as_object()).ok_or_else(|| {
                format!("{path}:{n}: no `{key}` object; expected a cosim --dump line")
            })?;
            let mut w = vec![0u64; words];
            for s in slots {
                let val = obj
                    .get(&s.name)
                    .ok_or_else(|| format!("{path}:{n}: `{key}` has no port {}", s.name))?;
                parse_value(val, s.width, &mut w[s.offset..s.offset + s.words]).ok_or_else(
                    || {
                        format!(
                            "{path}:{n}: {key}.{} = {val} is not a {}-bit value",
                            s.name, s.width
                        )
                    },
                )?;
            }
            Ok(w)
        };
        t.inputs
            .push(side("inputs", &layout.inputs, layout.in_words)?);
        t.expected
            .push(side("model", &layout.outputs, layout.out_words)?);
    }
    if t.inputs.is_empty() {
        return Err(format!("{path}: no dump lines"));
    }
    Ok(t)
}

/// Time limit of a simulation: generous for the design and length, far below a wedge.
pub fn sim_limit(design: &Design, cycles: usize) -> Duration {
    let size = design.verilog.len() as u64 / 1000; // kB of Verilog
    Duration::from_secs(60 + (cycles as u64 * size.max(1)) / 2000)
}

/// A design compiled by Icarus with the replay testbench: runs any number of input traces.
/// Compiled designs are cached beside the Verilator builds (`icarus-<module>-<hash>`).
pub struct Sim {
    dir: PathBuf,
    vvp: PathBuf,
    layout: Layout,
    /// The Icarus version line.
    pub version: String,
    /// What was run, for reports.
    pub command: String,
}

/// What one simulation gave.
pub enum Outcome {
    /// Per cycle, the output words; `Err(port)` for a cycle where that port had x or z bits.
    Outputs(Vec<Result<Vec<u64>, String>>),
    /// No result within the time limit.
    Hang(Duration),
}

impl Sim {
    /// Compile `design` with the testbench, or find it compiled in the cache.
    /// `Ok(Err(diagnostics))` when Icarus rejects it.
    pub fn compile(
        design: &Design,
        layout: &Layout,
        search_path: &std::ffi::OsStr,
    ) -> Result<Result<Sim, Vec<String>>, FlowError> {
        tools::check_module_name(&design.module)?;
        let iverilog = tools::require_in("iverilog", search_path)?;
        let vvp = tools::require_in("vvp", search_path)?;
        let version = tools::version(&iverilog)?;
        let bench = testbench(&design.module, layout);
        let key = verilator::fnv64(&[
            RECIPE.as_bytes(),
            version.as_bytes(),
            design.verilog.as_bytes(),
            bench.as_bytes(),
        ]);
        let root = verilator::cache_root();
        let dir = root.join(format!("icarus-{}-{key:016x}", design.module));
        let args = ["-g2005", "-s", TB, "-o", "replay.vvp", "tb.v", "design.v"];
        let sim = Sim {
            version,
            command: format!("iverilog {} && vvp -n replay.vvp", args.join(" ")),
            dir: dir.clone(),
            vvp,
            layout: layout.clone(),
        };
        let _lock = if verilator::lookup(&dir, key) {
            None
        } else {
            verilator::build_lock(&dir)
        };
        if verilator::lookup(&dir, key) {
            return Ok(Ok(sim));
        }
        let bridge = |e: verilator::BridgeError| FlowError::Io {
            what: "Icarus build cache".into(),
            error: e.to_string(),
        };
        let tmp = verilator::make_temp_dir(&root, "icarus").map_err(bridge)?;
        write(&tmp.path().join("design.v"), &design.verilog)?;
        write(&tmp.path().join("tb.v"), &bench)?;
        let out = tools::run(
            Command::new(&iverilog).args(args).current_dir(tmp.path()),
            COMPILE_LIMIT,
        )?;
        if !out.success() {
            return Ok(Err(nonempty_lines(&out.combined())));
        }
        let files = ["design.v".to_string(), "tb.v".into(), "replay.vvp".into()];
        verilator::seal(tmp.path(), key, &files).map_err(bridge)?;
        verilator::publish(tmp, &dir, key).map_err(bridge)?;
        Ok(Ok(sim))
    }

    /// Simulate `inputs` (one input vector per cycle), killed after `limit`.
    pub fn run(&self, inputs: &[Vec<u64>], limit: Duration) -> Result<Outcome, FlowError> {
        let run = tempfile::Builder::new()
            .prefix("warpforge-icarus-run-")
            .tempdir()
            .map_err(|e| io_error("could not create a temporary directory", e))?;
        let mut text = String::new();
        for cycle in inputs {
            let vals: Vec<String> = self.layout.inputs.iter().map(|s| hex(s, cycle)).collect();
            text += &vals.join(" ");
            text.push('\n');
        }
        write(&run.path().join("inputs.hex"), &text)?;
        let out = match tools::run(
            Command::new(&self.vvp)
                .arg("-n")
                .arg(self.dir.join("replay.vvp"))
                .current_dir(run.path()),
            limit,
        ) {
            Ok(o) => o,
            Err(FlowError::Timeout { limit, .. }) => return Ok(Outcome::Hang(limit)),
            Err(e) => return Err(e),
        };
        let text = std::fs::read_to_string(run.path().join("outputs.hex")).unwrap_or_default();
        let rows: Vec<Result<Vec<u64>, String>> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| parse_outputs(&self.layout, l))
            .collect();
        if !out.success() || rows.len() != inputs.len() {
            return Err(FlowError::BadOutput {
                tool: "vvp".into(),
                what: format!(
                    "{} output lines for {} cycles ({})",
                    rows.len(),
                    inputs.len(),
                    tools::one_line(&out.combined())
                ),
            });
        }
        Ok(Outcome::Outputs(rows))
    }
}

/// Replay `trace` on `design` under Icarus, with the tools on PATH.
pub fn replay(design: &Design, layout: &Layout, trace: &Trace) -> Result<Check, FlowError> {
    replay_in(
        design,
        layout,
        trace,
        sim_limit(design, trace.inputs.len()),
        &tools::search_path(),
    )
}

/// Differences shown in a failed replay's diagnostics (the count covers all of them).
const SHOWN: usize = 10;

/// [`replay`] with an explicit simulation time limit and tool search path.
pub fn replay_in(
    design: &Design,
    layout: &Layout,
    trace: &Trace,
    limit: Duration,
    search_path: &std::ffi::OsStr,
) -> Result<Check, FlowError> {
    let sim = match Sim::compile(design, layout, search_path)? {
        Ok(s) => s,
        Err(diagnostics) => {
            return Ok(Check {
                passed: false,
                command: "iverilog (replay testbench)".into(),
                version: String::new(),
                diagnostics,
            })
        }
    };
    let cycles = trace.inputs.len();
    let command = format!(
        "{} ({cycles} cycles, limit {} s)",
        sim.command,
        limit.as_secs()
    );
    let check = |passed, diagnostics| Check {
        passed,
        command: command.clone(),
        version: sim.version.clone(),
        diagnostics,
    };
    let rows = match sim.run(&trace.inputs, limit)? {
        Outcome::Hang(limit) => {
            return Ok(check(
                false,
                vec![format!(
                    "no result within {} s: the simulation hangs (a zero-delay oscillation never advances time)",
                    limit.as_secs()
                )],
            ))
        }
        Outcome::Outputs(rows) => rows,
    };
    let (mut compared, mut differing) = (0u64, 0u64);
    let mut diagnostics = vec![];
    for (c, (inp, got)) in trace.inputs.iter().zip(&rows).enumerate() {
        if harness::in_reset(layout, inp) {
            continue;
        }
        compared += 1;
        let diff = match got {
            Err(port) => Some(format!("port {port} has x/z bits")),
            Ok(act) => crate::lockstep::first_difference(layout, &trace.expected[c], act)
                .map(|(s, e, a)| format!("port {} expected {e} actual {a} (icarus)", s.name)),
        };
        if let Some(d) = diff {
            differing += 1;
            if diagnostics.len() < SHOWN {
                diagnostics.push(format!("MISMATCH cycle {c}: {d}"));
            }
        }
    }
    Ok(if differing == 0 {
        check(
            true,
            vec![format!(
                "{cycles} cycles, {compared} compared (the others in reset), 0 differences"
            )],
        )
    } else {
        diagnostics.push(format!("{differing} of {compared} compared cycles differ"));
        check(false, diagnostics)
    })
}

/// Name of the testbench module.
const TB: &str = "warpforge_icarus_replay";

/// A port's value in hex, as many digits as the port is wide.
fn hex(s: &Slot, words: &[u64]) -> String {
    let digits = s.width.div_ceil(4);
    let v = format_value(&words[s.offset..s.offset + s.words]);
    format!("{:0>digits$}", v.trim_start_matches("0x"))
}

/// One line of the testbench's output file: every output port in hex, in layout order.
fn parse_outputs(layout: &Layout, line: &str) -> Result<Vec<u64>, String> {
    let mut words = vec![0u64; layout.out_words];
    let mut fields = line.split_whitespace();
    for s in &layout.outputs {
        let f = fields.next().unwrap_or("");
        let v = serde_json::Value::String(format!("0x{f}"));
        parse_value(&v, s.width, &mut words[s.offset..s.offset + s.words])
            .ok_or_else(|| s.name.clone())?;
    }
    Ok(words)
}

/// The replay testbench. It reads one line of input values per cycle from `inputs.hex`;
/// per cycle: inputs applied with the clock low, outputs written to `outputs.hex` once they
/// have settled, then the rising edge.
fn testbench(module: &str, layout: &Layout) -> String {
    let range = |s: &Slot| format!("[{}:0]", s.width - 1);
    let mut v =
        format!("`timescale 1ns/1ns\nmodule {TB};\n    reg clock;\n    integer fi, fo, r;\n");
    for s in &layout.inputs {
        let _ = writeln!(v, "    reg {} p_{};", range(s), s.name);
    }
    for s in &layout.outputs {
        let _ = writeln!(v, "    wire {} p_{};", range(s), s.name);
    }
    let conns: Vec<String> = std::iter::once(".clock(clock)".to_string())
        .chain(
            layout
                .inputs
                .iter()
                .chain(&layout.outputs)
                .map(|s| format!(".{0}(p_{0})", s.name)),
        )
        .collect();
    let _ = writeln!(v, "    {module} dut({});", conns.join(", "));
    let in_fmt = vec!["%h"; layout.inputs.len()].join(" ");
    let in_args: Vec<String> = layout
        .inputs
        .iter()
        .map(|s| format!("p_{}", s.name))
        .collect();
    let out_fmt = vec!["%h"; layout.outputs.len()].join(" ");
    let out_args: Vec<String> = layout
        .outputs
        .iter()
        .map(|s| format!("p_{}", s.name))
        .collect();
    let n = layout.inputs.len();
    let scan = format!("r = $fscanf(fi, \"{in_fmt}\\n\", {});", in_args.join(", "));
    let _ = write!(
        v,
        "    initial begin
        fi = $fopen(\"inputs.hex\", \"r\");
        fo = $fopen(\"outputs.hex\", \"w\");
        clock = 0;
        {scan}
        while (r == {n}) begin
            #4;
            $fwrite(fo, \"{out_fmt}\\n\", {});
            clock = 1;
            #5;
            clock = 0;
            #1;
            {scan}
        end
        $fclose(fo);
        $finish;
    end
endmodule
",
        out_args.join(", ")
    );
    v
}

fn nonempty_lines(s: &str) -> Vec<String> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn io_error(what: &str, e: std::io::Error) -> FlowError {
    FlowError::Io {
        what: what.to_string(),
        error: e.to_string(),
    }
}

fn write(path: &Path, text: &str) -> Result<(), FlowError> {
    std::fs::write(path, text)
        .map_err(|e| io_error(&format!("could not write {}", path.display()), e))
}
