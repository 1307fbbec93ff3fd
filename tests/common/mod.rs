//! Shared by the CLI-error test files: run the binary, and check that bad input gets exit
//! status 2 and one line `error: …` containing every needle.

use std::process::{Command, Output};

pub fn warpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("binary runs")
}

#[allow(dead_code)] // not every test file that runs the binary checks an error
pub fn assert_error(args: &[&str], needles: &[&str]) {
    let out = warpforge(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line, got: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    for n in needles {
        assert!(lines[0].contains(n), "`{n}` not in: {stderr}");
    }
}
