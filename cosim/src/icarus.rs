//! A second simulator: a lockstep dump replayed under Icarus Verilog (event-driven, as the
//! simulators users bring are). A generated Verilog testbench reads the dump's inputs, applies
//! them with the lockstep cycle convention (inputs with the clock low, outputs read, then the
//! rising edge) and compares every output port with the dump's expected value on every cycle
//! whose `reset` input is low. A design that oscillates at zero delay never advances time, so
//! the simulation runs under a time limit: a hang is a failed check, not a wedged tool.

use crate::lint::Check;
use crate::registry::Unit;
use crate::tools::{self, FlowError};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use warpforge_contract::manifest::{format_value, parse_value, Slot};
use warpforge_contract::Layout;
use warpforge_hdl::Design;

/// Cycles of the replay `lint` runs (from the unit's own stimulus and model).
pub const LINT_CYCLES: u64 = 2000;
/// Seed of that replay's stimulus.
pub const LINT_SEED: u64 = 1;
/// Time limit of the Icarus compile.
const COMPILE_LIMIT: Duration = Duration::from_secs(300);
/// Mismatches printed by the testbench (the count covers all of them).
const SHOWN: usize = 10;

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

/// Time limit of the simulation: generous for the design and length, far below a wedge.
pub fn sim_limit(design: &Design, cycles: usize) -> Duration {
    let size = design.verilog.len() as u64 / 1000; // kB of Verilog
    Duration::from_secs(60 + (cycles as u64 * size.max(1)) / 2000)
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

/// [`replay`] with an explicit simulation time limit and tool search path.
pub fn replay_in(
    design: &Design,
    layout: &Layout,
    trace: &Trace,
    limit: Duration,
    search_path: &std::ffi::OsStr,
) -> Result<Check, FlowError> {
    tools::check_module_name(&design.module)?;
    let iverilog = tools::require_in("iverilog", search_path)?;
    let vvp = tools::require_in("vvp", search_path)?;
    let dir = tempfile::Builder::new()
        .prefix("warpforge-icarus-")
        .tempdir()
        .map_err(|e| io_error("could not create a temporary directory", e))?;
    write(&dir.path().join("design.v"), &design.verilog)?;
    write(
        &dir.path().join("tb.v"),
        &testbench(&design.module, layout, trace.inputs.len()),
    )?;
    for s in &layout.inputs {
        write(
            &dir.path().join(format!("in_{}.hex", s.name)),
            &hex_column(s, &trace.inputs),
        )?;
    }
    for s in &layout.outputs {
        write(
            &dir.path().join(format!("ex_{}.hex", s.name)),
            &hex_column(s, &trace.expected),
        )?;
    }
    let compile = ["-g2005", "-s", TB, "-o", "replay.vvp", "tb.v", "design.v"];
    let command = format!(
        "iverilog {} && vvp -n replay.vvp ({} cycles, limit {} s)",
        compile.join(" "),
        trace.inputs.len(),
        limit.as_secs()
    );
    let version = tools::version(&iverilog)?;
    let fail = |diagnostics: Vec<String>| Check {
        passed: false,
        command: command.clone(),
        version: version.clone(),
        diagnostics,
    };
    let out = tools::run(
        Command::new(&iverilog)
            .args(compile)
            .current_dir(dir.path()),
        COMPILE_LIMIT,
    )?;
    if !out.success() {
        return Ok(fail(nonempty_lines(&out.combined())));
    }
    let out = match tools::run(
        Command::new(&vvp).args(["-n", "replay.vvp"]).current_dir(dir.path()),
        limit,
    ) {
        Ok(o) => o,
        Err(FlowError::Timeout { .. }) => {
            return Ok(fail(vec![format!(
                "no result within {} s: the simulation hangs (a zero-delay oscillation never advances time)",
                limit.as_secs()
            )]))
        }
        Err(e) => return Err(e),
    };
    let text = out.combined();
    let done = text.lines().find_map(|l| {
        let rest = l.strip_prefix("DONE ")?;
        let nums: Vec<u64> = rest
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        (nums.len() == 3).then(|| (nums[0], nums[1], nums[2]))
    });
    let mut diagnostics: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("MISMATCH"))
        .map(str::to_string)
        .collect();
    Ok(match done {
        Some((cycles, compared, 0)) if out.success() => Check {
            passed: true,
            command,
            version,
            diagnostics: vec![format!(
                "{cycles} cycles, {compared} compared (the others in reset), 0 differences"
            )],
        },
        Some((_, compared, errors)) => {
            diagnostics.push(format!(
                "{errors} differing port values over {compared} compared cycles"
            ));
            fail(diagnostics)
        }
        None => {
            diagnostics.extend(nonempty_lines(&text));
            diagnostics.push("vvp ended without a result".into());
            fail(diagnostics)
        }
    })
}

/// Name of the testbench module.
const TB: &str = "warpforge_icarus_replay";

/// One line per cycle: the port's value in hex, as wide as the port.
fn hex_column(s: &Slot, rows: &[Vec<u64>]) -> String {
    let digits = s.width.div_ceil(4);
    let mut out = String::with_capacity(rows.len() * (digits + 1));
    for r in rows {
        let v = format_value(&r[s.offset..s.offset + s.words]);
        let v = v.trim_start_matches("0x");
        let _ = writeln!(out, "{v:0>digits$}");
    }
    out
}

/// The replay testbench. Per cycle: inputs applied with the clock low, outputs compared after
/// they settle (unless `reset` is high), then the rising edge.
fn testbench(module: &str, layout: &Layout, cycles: usize) -> String {
    let range = |s: &Slot| format!("[{}:0]", s.width - 1);
    let mut v = format!(
        "`timescale 1ns/1ns\nmodule {TB};\n    reg clock;\n    integer c, errors, compared;\n"
    );
    for s in &layout.inputs {
        let _ = writeln!(v, "    reg {} p_{};", range(s), s.name);
        let _ = writeln!(
            v,
            "    reg {} m_in_{} [0:{}];",
            range(s),
            s.name,
            cycles - 1
        );
    }
    for s in &layout.outputs {
        let _ = writeln!(v, "    wire {} p_{};", range(s), s.name);
        let _ = writeln!(
            v,
            "    reg {} m_ex_{} [0:{}];",
            range(s),
            s.name,
            cycles - 1
        );
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
    v += "    initial begin\n";
    for s in &layout.inputs {
        let _ = writeln!(v, "        $readmemh(\"in_{0}.hex\", m_in_{0});", s.name);
    }
    for s in &layout.outputs {
        let _ = writeln!(v, "        $readmemh(\"ex_{0}.hex\", m_ex_{0});", s.name);
    }
    let _ = writeln!(
        v,
        "        clock = 0; errors = 0; compared = 0;\n        for (c = 0; c < {cycles}; c = c + 1) begin"
    );
    for s in &layout.inputs {
        let _ = writeln!(v, "            p_{0} = m_in_{0}[c];", s.name);
    }
    v += "            #4;\n";
    let in_reset = if layout.input("reset").is_some() {
        "p_reset"
    } else {
        "1'b0"
    };
    let _ = writeln!(
        v,
        "            if (!{in_reset}) begin\n                compared = compared + 1;"
    );
    for s in &layout.outputs {
        let _ = writeln!(
            v,
            "                if (p_{0} !== m_ex_{0}[c]) begin\n                    errors = errors + 1;\n                    if (errors <= {SHOWN}) $display(\"MISMATCH cycle %0d port {0} expected 0x%h actual 0x%h\", c, m_ex_{0}[c], p_{0});\n                end",
            s.name
        );
    }
    v += "            end\n            clock = 1;\n            #5;\n            clock = 0;\n            #1;\n        end\n";
    v += "        $display(\"DONE %0d %0d %0d\", c, compared, errors);\n        $finish;\n    end\nendmodule\n";
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
