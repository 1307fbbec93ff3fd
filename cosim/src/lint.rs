//! The lint flow: every generated design must pass Verilator `-Wall` (with a fixed set of
//! waivers), parse in Icarus, synthesize in Yosys without latches or combinational loops, and
//! have exactly the ports its manifest declares (plus `clock`). Given a trace, it also replays
//! it under Icarus ([`crate::icarus`]): a second, event-driven simulator must give the same
//! outputs on every compared cycle, and must not hang.

use crate::icarus::{self, Trace};
use crate::tools::{self, FlowError};
use serde::Serialize;
use std::ffi::OsStr;
use std::fmt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use warpforge_contract::{Dir, Manifest};
use warpforge_hdl::Design;

/// The only Verilator warnings a generated design may raise: rust-hdl's output mixes widths
/// freely, names files and modules independently, and keeps unused signals and parameters.
pub const VERILATOR_WAIVERS: [&str; 5] = [
    "WIDTH",
    "DECLFILENAME",
    "UNUSEDSIGNAL",
    "UNUSEDPARAM",
    "VARHIDDEN",
];

/// Time limit of each lint tool. The thesis SM's Yosys check (proc, flatten, check) takes
/// about 8 minutes and 3.7 GB on a shared 2-core machine; 30 minutes still stops a hang.
const LIMIT: Duration = Duration::from_secs(1800);

/// Name of the Verilog file inside the flow's temporary directory.
const SOURCE: &str = "design.v";

/// Latch cell types, word-level and fine-grained.
const LATCH_CELLS: &str = "t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_*";

#[derive(Clone, Debug, Serialize)]
pub struct LintReport {
    pub unit: String,
    pub module: String,
    /// True when every check passed.
    pub passed: bool,
    pub verilator: Check,
    pub iverilog: Check,
    pub yosys: Check,
    /// The top module's ports against the manifest's.
    pub ports: Check,
    /// A lockstep trace replayed under Icarus, every output compared (when a trace was given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icarus_replay: Option<Check>,
}

/// One check of the lint flow.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub passed: bool,
    /// What was run (relative to the flow's temporary directory), or what was compared.
    pub command: String,
    /// The tool's version line; empty for checks done in warpforge itself.
    pub version: String,
    /// The tool's warnings and errors, one line each.
    pub diagnostics: Vec<String>,
}

/// Lint `design` with the tools on PATH.
pub fn lint(design: &Design, manifest: &Manifest) -> Result<LintReport, FlowError> {
    lint_in(design, manifest, &tools::search_path())
}

/// Lint `design`, looking for the tools in `search_path` (a PATH-style list).
pub fn lint_in(
    design: &Design,
    manifest: &Manifest,
    search_path: &OsStr,
) -> Result<LintReport, FlowError> {
    lint_replay_in(design, manifest, None, search_path)
}

/// Lint `design` and replay `trace` under Icarus, with the tools on PATH.
pub fn lint_replay(
    design: &Design,
    manifest: &Manifest,
    trace: &Trace,
) -> Result<LintReport, FlowError> {
    lint_replay_in(design, manifest, Some(trace), &tools::search_path())
}

fn lint_replay_in(
    design: &Design,
    manifest: &Manifest,
    trace: Option<&Trace>,
    search_path: &OsStr,
) -> Result<LintReport, FlowError> {
    tools::check_module_name(&design.module)?;
    // Find every tool before running any, so a missing one is reported at once.
    let verilator = tools::require_in("verilator", search_path)?;
    let iverilog = tools::require_in("iverilog", search_path)?;
    let yosys = tools::require_in("yosys", search_path)?;

    let dir = tempfile::Builder::new()
        .prefix("warpforge-lint-")
        .tempdir()
        .map_err(|e| io_error("could not create a temporary directory", e))?;
    let source = dir.path().join(SOURCE);
    std::fs::write(&source, &design.verilog)
        .map_err(|e| io_error(&format!("could not write {}", source.display()), e))?;

    // Yosys is the slowest; run it beside the other two (the machine has two cores).
    let (yosys_result, others) = std::thread::scope(|s| {
        let y = s.spawn(|| run_yosys(&yosys, dir.path(), &design.module));
        let others = run_verilator(&verilator, dir.path(), &design.module)
            .and_then(|v| Ok((v, run_iverilog(&iverilog, dir.path(), &design.module)?)))
            .and_then(|(v, i)| {
                // Replay only what parses: a parse error is already the iverilog check's.
                let replay = match trace {
                    Some(t) if i.passed => Some(icarus::replay_in(
                        design,
                        &manifest.layout(),
                        t,
                        icarus::sim_limit(design, t.inputs.len()),
                        search_path,
                    )?),
                    _ => None,
                };
                Ok((v, i, replay))
            });
        (y.join(), others)
    });
    let (yosys_check, ports_found) = yosys_result.map_err(|_| FlowError::BadOutput {
        tool: "yosys".into(),
        what: "the lint thread panicked".into(),
    })??;
    let (verilator_check, iverilog_check, icarus_replay) = others?;
    let ports = check_ports(design, manifest, ports_found.as_deref());

    let passed = verilator_check.passed
        && iverilog_check.passed
        && yosys_check.passed
        && ports.passed
        && icarus_replay.as_ref().is_none_or(|c| c.passed);
    Ok(LintReport {
        unit: manifest.unit.clone(),
        module: design.module.clone(),
        passed,
        verilator: verilator_check,
        iverilog: iverilog_check,
        yosys: yosys_check,
        ports,
        icarus_replay,
    })
}

fn io_error(what: &str, e: std::io::Error) -> FlowError {
    FlowError::Io {
        what: what.to_string(),
        error: e.to_string(),
    }
}

fn run_verilator(tool: &Path, dir: &Path, module: &str) -> Result<Check, FlowError> {
    let mut args = vec!["--lint-only".to_string(), "-Wall".to_string()];
    args.extend(VERILATOR_WAIVERS.iter().map(|w| format!("-Wno-{w}")));
    args.extend(["--top-module".into(), module.into(), SOURCE.into()]);
    let out = tools::run(Command::new(tool).args(&args).current_dir(dir), LIMIT)?;
    // Keep the headline of each message; drop the source excerpts and help links.
    let diagnostics = out
        .combined()
        .lines()
        .filter(|l| l.starts_with('%') && !l.starts_with("%Error: Exiting due to"))
        .map(str::to_string)
        .collect();
    Ok(Check {
        passed: out.success(),
        command: format!("verilator {}", args.join(" ")),
        version: tools::version(tool)?,
        diagnostics,
    })
}

fn run_iverilog(tool: &Path, dir: &Path, module: &str) -> Result<Check, FlowError> {
    let args = ["-g2005", "-s", module, "-o", "design.vvp", SOURCE];
    let out = tools::run(Command::new(tool).args(args).current_dir(dir), LIMIT)?;
    let diagnostics = out
        .combined()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    Ok(Check {
        passed: out.success(),
        command: format!("iverilog {}", args.join(" ")),
        version: tools::version(tool)?,
        diagnostics,
    })
}

/// The Yosys check, and the top module's port list when Yosys got far enough to print it.
fn run_yosys(tool: &Path, dir: &Path, module: &str) -> Result<(Check, Option<String>), FlowError> {
    // The port list is taken before `proc` so a latch or loop still leaves it to compare.
    // `flatten` puts loops that cross submodule boundaries inside one module for `check`.
    let script = format!(
        "read_verilog {SOURCE}\n\
         hierarchy -check -top {module}\n\
         tee -q -o ports.txt portlist {module}\n\
         proc\n\
         flatten\n\
         opt_clean\n\
         check -assert\n\
         select -assert-none {LATCH_CELLS}\n"
    );
    write(&dir.join("lint.ys"), &script)?;
    let args = ["-Q", "-T", "-q", "-l", "lint.log", "-s", "lint.ys"];
    let out = tools::run(Command::new(tool).args(args).current_dir(dir), LIMIT)?;
    // The log has everything; without it (Yosys died early) fall back to what it printed.
    let log = std::fs::read_to_string(dir.join("lint.log")).unwrap_or_else(|_| out.combined());
    let ports = std::fs::read_to_string(dir.join("ports.txt")).ok();
    let check = Check {
        passed: out.success(),
        command: format!("yosys {} ({})", args.join(" "), one_line_script(&script)),
        version: tools::version(tool)?,
        diagnostics: yosys_diagnostics(&log),
    };
    Ok((check, ports))
}

fn write(path: &Path, text: &str) -> Result<(), FlowError> {
    std::fs::write(path, text)
        .map_err(|e| io_error(&format!("could not write {}", path.display()), e))
}

fn one_line_script(script: &str) -> String {
    script.lines().collect::<Vec<_>>().join("; ")
}

/// Warnings and errors from a Yosys log, with the lines that belong to them (the indented
/// cells of a loop, the cells listed after "Selection contains:"), and every inferred latch.
fn yosys_diagnostics(log: &str) -> Vec<String> {
    let mut out = vec![];
    // Inside a message: take indented lines. Inside a selection listing: take every line
    // up to the next blank one.
    let (mut in_message, mut in_selection) = (false, false);
    for line in log.lines() {
        let headline = line.starts_with("Warning:") || line.starts_with("ERROR:");
        if headline || line.contains("Latch inferred for signal") {
            out.push(line.trim().to_string());
            in_message = headline;
            in_selection = false;
        } else if line.starts_with("Selection contains:") && in_message {
            out.push(line.to_string());
            in_selection = true;
        } else if line.trim().is_empty() {
            in_message = false;
            in_selection = false;
        } else if in_selection || (in_message && line.starts_with(' ')) {
            out.push(format!("    {}", line.trim()));
        } else {
            in_message = false;
        }
    }
    out
}

/// A port as Yosys' `portlist` prints it: `input [7:0] name`.
#[derive(Debug, PartialEq, Eq)]
struct FoundPort {
    name: String,
    dir: String,
    width: usize,
}

fn parse_portlist(text: &str) -> Result<Vec<FoundPort>, String> {
    let mut ports = vec![];
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("module ") {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [dir, range, name] = fields[..] else {
            return Err(format!("unreadable port line `{line}`"));
        };
        let width = range
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|r| r.split_once(':'))
            .and_then(|(a, b)| Some((a.parse::<i64>().ok()?, b.parse::<i64>().ok()?)))
            .map(|(a, b)| (a - b).unsigned_abs() as usize + 1)
            .ok_or_else(|| format!("unreadable port range in `{line}`"))?;
        ports.push(FoundPort {
            name: name.to_string(),
            dir: dir.to_string(),
            width,
        });
    }
    Ok(ports)
}

/// Compare the top module's ports (from Yosys) with the manifest's ports plus `clock`.
fn check_ports(design: &Design, manifest: &Manifest, portlist: Option<&str>) -> Check {
    let mut diagnostics = vec![];
    if manifest.module != design.module {
        diagnostics.push(format!(
            "manifest names module `{}` but the design's top module is `{}`",
            manifest.module, design.module
        ));
    }
    let mut expected: Vec<(String, &str, usize)> = vec![("clock".into(), "input", 1)];
    for p in &manifest.ports {
        if p.name == "clock" {
            diagnostics.push(
                "manifest lists `clock`, which every design has implicitly and must not be listed"
                    .into(),
            );
            continue;
        }
        let dir = match p.dir {
            Dir::In => "input",
            Dir::Out => "output",
        };
        expected.push((p.name.clone(), dir, p.width));
    }
    match portlist.map(parse_portlist) {
        None => diagnostics
            .push("Yosys could not read the top module, so its ports were not compared".into()),
        Some(Err(e)) => diagnostics.push(format!("Yosys port list: {e}")),
        Some(Ok(found)) => {
            for (name, dir, width) in &expected {
                match found.iter().find(|f| &f.name == name) {
                    None => diagnostics.push(format!("missing port: {dir} [{width}] {name}")),
                    Some(f) if f.dir != *dir || f.width != *width => diagnostics.push(format!(
                        "port {name}: manifest says {dir} [{width}], Verilog has {} [{}]",
                        f.dir, f.width
                    )),
                    Some(_) => {}
                }
            }
            for f in &found {
                if !expected.iter().any(|(name, ..)| name == &f.name) {
                    diagnostics.push(format!(
                        "port not in the manifest: {} [{}] {}",
                        f.dir, f.width, f.name
                    ));
                }
            }
        }
    }
    Check {
        passed: diagnostics.is_empty(),
        command: format!(
            "compare ports of `{}` with manifest of {} (+ clock)",
            design.module, manifest.unit
        ),
        version: String::new(),
        diagnostics,
    }
}

impl LintReport {
    /// The checks in report order, with their names.
    pub fn checks(&self) -> Vec<(&'static str, &Check)> {
        let mut c = vec![
            ("verilator", &self.verilator),
            ("iverilog", &self.iverilog),
            ("yosys", &self.yosys),
            ("ports", &self.ports),
        ];
        if let Some(r) = &self.icarus_replay {
            c.push(("icarus-replay", r));
        }
        c
    }
}

/// Diagnostics shown per failed check in the text report; the JSON report has them all.
const SHOWN: usize = 12;

impl fmt::Display for LintReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.passed { "passed" } else { "FAILED" };
        writeln!(f, "lint {} (module {}): {verdict}", self.unit, self.module)?;
        for (name, check) in self.checks() {
            let mark = if check.passed { "ok" } else { "FAIL" };
            let line = format!("  {name:<13} {mark:<4}  {}", check.version);
            writeln!(f, "{}", line.trim_end())?;
            if check.passed {
                // The replay's one-line summary (cycles compared) is worth seeing.
                if name == "icarus-replay" {
                    for d in &check.diagnostics {
                        writeln!(f, "      {d}")?;
                    }
                }
                continue;
            }
            for d in check.diagnostics.iter().take(SHOWN) {
                writeln!(f, "      {d}")?;
            }
            if check.diagnostics.len() > SHOWN {
                writeln!(
                    f,
                    "      … {} more (see --json)",
                    check.diagnostics.len() - SHOWN
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portlist_parses_directions_and_widths() {
        let text = "module top\ninput [0:0] clock\ninput [7:0] d\noutput [0:3] q\ninout [1:1] x\n";
        let ports = parse_portlist(text).unwrap();
        assert_eq!(ports.len(), 4);
        assert_eq!(ports[1].width, 8);
        assert_eq!(ports[2].width, 4);
        assert_eq!(ports[3].dir, "inout");
        assert!(parse_portlist("input d\n").is_err());
        assert!(parse_portlist("input [x:0] d\n").is_err());
    }

    #[test]
    fn yosys_diagnostics_keep_loop_cells() {
        let log = "\
3. Executing PROC pass.
Warning: found logic loop in module loopy:
    cell $and$x.v:3$1 ($and)
    wire \\b

ERROR: Found 1 problems in 'check -assert'.
End of script.
";
        let d = yosys_diagnostics(log);
        assert_eq!(d.len(), 4, "{d:?}");
        assert!(d[0].starts_with("Warning: found logic loop"));
        assert!(d[1].contains("$and"));
        assert!(d[3].starts_with("ERROR:"));
    }

    #[test]
    fn yosys_diagnostics_keep_the_latch_cells() {
        let log = "\
Latch inferred for signal `\\m.\\q' from process `p': $auto$proc_dlatch$15
ERROR: Assertion failed: selection is not empty: t:$dlatch
Selection contains:
m/$auto$proc_dlatch$15

Other text.
";
        let d = yosys_diagnostics(log);
        assert_eq!(d.len(), 4, "{d:?}");
        assert!(d[3].trim_start().starts_with("m/$auto$proc_dlatch"));
    }
}
