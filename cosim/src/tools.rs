//! External tools of the lint and area flows (Verilator, Icarus, Yosys, nextpnr): finding them
//! on PATH with an install hint when absent, running them with a time limit, and the one-line
//! [`FlowError`] every flow returns.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Why a flow could not produce a report. A check that ran and found problems is not an
/// error: it is a report with `passed: false`.
#[derive(Debug)]
pub enum FlowError {
    /// A required tool is not on the search path.
    Missing { tool: String, package: String },
    /// A required tool is not on the search path, and PyPI (not Debian) provides it.
    MissingPip { tool: String, package: String },
    /// A required tool is not on the search path, and the project's set-up builds it.
    MissingBuild { tool: String, hint: String },
    /// Input the flow cannot work with (e.g. a module name that is not a Verilog identifier).
    BadInput(String),
    /// Reading or writing the flow's files, or starting a tool, failed.
    Io { what: String, error: String },
    /// A tool ran longer than its time limit and was killed.
    Timeout { tool: String, limit: Duration },
    /// A tool that must succeed for the flow to have numbers (synthesis) failed.
    ToolFailed {
        tool: String,
        step: String,
        message: String,
        log: Option<PathBuf>,
    },
    /// A tool succeeded but its output was not what the flow expects.
    BadOutput { tool: String, what: String },
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            FlowError::Missing { tool, package } => {
                format!("{tool} not found on PATH; install it with: apt-get install -y {package}")
            }
            FlowError::MissingPip { tool, package } => format!(
                "{tool} not found on PATH (nor yowasp-{tool}); install it with: \
                 python3 -m pip install {package} (bash scripts/install-tools.sh does)"
            ),
            FlowError::MissingBuild { tool, hint } => format!("{tool} not found on PATH; {hint}"),
            FlowError::BadInput(msg) => msg.clone(),
            FlowError::Io { what, error } => format!("{what}: {error}"),
            FlowError::Timeout { tool, limit } => {
                format!(
                    "{tool} did not finish within {} s and was killed",
                    limit.as_secs()
                )
            }
            FlowError::ToolFailed {
                tool,
                step,
                message,
                log,
            } => match log {
                Some(log) => format!("{tool} {step} failed: {message} (log: {})", log.display()),
                None => format!("{tool} {step} failed: {message}"),
            },
            FlowError::BadOutput { tool, what } => format!("unexpected output from {tool}: {what}"),
        };
        // The CLI prints errors as one line; tool messages may carry newlines.
        f.write_str(&one_line(&text))
    }
}

impl std::error::Error for FlowError {}

/// Collapse whitespace runs that contain newlines into "; " so a message stays on one line.
pub fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The Debian package that provides `tool`.
pub fn package_of(tool: &str) -> &str {
    match tool {
        "verilator" | "verilator_bin" => "verilator",
        "yosys" | "yosys-abc" => "yosys",
        "iverilog" | "vvp" => "iverilog",
        "nextpnr-ice40" => "nextpnr-ice40",
        "icepack" | "icetime" => "fpga-icestorm",
        other => other,
    }
}

/// Find `tool` on the process's PATH.
pub fn require(tool: &str) -> Result<PathBuf, FlowError> {
    require_in(tool, &search_path())
}

/// Find `tool` in `search_path`, a PATH-style list of directories. Tests pass an empty
/// directory here to see the missing-tool message without uninstalling anything.
pub fn require_in(tool: &str, search_path: &OsStr) -> Result<PathBuf, FlowError> {
    std::env::split_paths(search_path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(tool))
        .find(|p| is_executable(p))
        .ok_or_else(|| FlowError::Missing {
            tool: tool.to_string(),
            package: package_of(tool).to_string(),
        })
}

/// The process's PATH (empty when unset).
pub fn search_path() -> OsString {
    std::env::var_os("PATH").unwrap_or_default()
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(p) {
        Ok(m) => m.is_file() && m.permissions().mode() & 0o111 != 0,
        Err(_) => false,
    }
}

/// What a finished tool printed.
#[derive(Debug)]
pub struct RunOutput {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl RunOutput {
    pub fn success(&self) -> bool {
        self.status.success()
    }
    /// stdout followed by stderr.
    pub fn combined(&self) -> String {
        let mut s = self.stdout.clone();
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(&self.stderr);
        s
    }
}

/// Run `cmd` to completion with no stdin, capturing stdout and stderr; kill it after `limit`.
/// A non-zero exit is not an error here: the caller decides what it means.
pub fn run(cmd: &mut Command, limit: Duration) -> Result<RunOutput, FlowError> {
    let tool = tool_name(cmd);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| FlowError::Io {
            what: format!("could not start {tool}"),
            error: e.to_string(),
        })?;
    // Drain both pipes on their own threads so a chatty tool never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );

    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(FlowError::Timeout { tool, limit });
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(e) => {
                return Err(FlowError::Io {
                    what: format!("waiting for {tool}"),
                    error: e.to_string(),
                })
            }
        }
    };
    Ok(RunOutput {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

fn tool_name(cmd: &Command) -> String {
    Path::new(cmd.get_program())
        .file_name()
        .unwrap_or(cmd.get_program())
        .to_string_lossy()
        .into_owned()
}

/// The first line a tool prints about its version, e.g. "Yosys 0.23 (git sha1 7ce5011c24b)".
pub fn version(tool: &Path) -> Result<String, FlowError> {
    let name = tool
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Yosys and Icarus take -V; the others the usual --version.
    let flag = match name.as_str() {
        "yosys" | "iverilog" => "-V",
        _ => "--version",
    };
    // Icarus exits non-zero after -V (no input files), so only the text matters.
    let out = run(Command::new(tool).arg(flag), Duration::from_secs(20))?;
    out.combined()
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
        .ok_or_else(|| FlowError::BadOutput {
            tool: name,
            what: format!("`{flag}` printed nothing"),
        })
}

/// Check that `module` can be used as-is on tool command lines and in Yosys scripts.
pub fn check_module_name(module: &str) -> Result<(), FlowError> {
    let mut chars = module.chars();
    let ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(FlowError::BadInput(format!(
            "module name `{module}` is not a plain Verilog identifier (letters, digits, _)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_tool_names_the_package() {
        let empty = tempfile::tempdir().unwrap();
        let err = require_in("yosys-abc", empty.path().as_os_str()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "yosys-abc not found on PATH; install it with: apt-get install -y yosys"
        );
    }

    #[test]
    fn finds_an_executable_and_skips_plain_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "").unwrap();
        assert!(require_in("plain", dir.path().as_os_str()).is_err());
        let exe = dir.path().join("exe");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([Path::new("/nonexistent"), dir.path()]).unwrap();
        assert_eq!(require_in("exe", &path).unwrap(), exe);
    }

    #[test]
    fn run_captures_both_streams_and_the_status() {
        let out = run(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(out.stdout, "out\n");
        assert_eq!(out.stderr, "err\n");
        assert_eq!(out.status.code(), Some(3));
        assert!(!out.success());
    }

    #[test]
    fn run_kills_at_the_time_limit() {
        let start = Instant::now();
        let err = run(Command::new("sleep").arg("5"), Duration::from_millis(200)).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(4));
        assert!(matches!(err, FlowError::Timeout { .. }), "{err}");
        assert!(err.to_string().starts_with("sleep did not finish"));
    }

    #[test]
    fn errors_print_on_one_line() {
        let e = FlowError::ToolFailed {
            tool: "yosys".into(),
            step: "synth_ice40".into(),
            message: "ERROR: a\n  detail\n".into(),
            log: None,
        };
        assert_eq!(e.to_string(), "yosys synth_ice40 failed: ERROR: a; detail");
    }

    #[test]
    fn module_names_are_checked() {
        assert!(check_module_name("warp_sched_w32").is_ok());
        assert!(check_module_name("_x1").is_ok());
        for bad in ["", "1x", "a b", "a;b", "a$b"] {
            assert!(check_module_name(bad).is_err(), "{bad}");
        }
    }
}
