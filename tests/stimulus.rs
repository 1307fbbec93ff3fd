//! A replayed stimulus says what it exercised: a file that does not start in reset and one
//! that breaks the unit's input protocol are refused (exit 2, one line naming the cycle and
//! port); every run ends with a coverage summary (event counters, output toggles), which warns
//! when the run never made the unit act.

use std::process::{Command, Output};

fn warpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// A quick-suite configuration, so its Verilator build is shared with the lockstep tests.
const GTO4: [&str; 7] = [
    "warp-sched",
    "--set",
    "warps=4",
    "--set",
    "schedulers=1",
    "--set",
    "policy=gto",
];

/// `cosim <target> --stimulus <lines>` (written to a temporary file), plus `extra` arguments.
fn cosim_lines(target: &[&str], lines: &[String], extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("stim.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let mut args = vec!["cosim"];
    args.extend(target);
    args.extend(["--stimulus", p.to_str().unwrap()]);
    args.extend(extra);
    warpforge(&args)
}

fn repeat(line: &str, n: usize) -> Vec<String> {
    vec![line.to_string(); n]
}

/// The one stderr line of a refused run (exit 2).
fn refusal(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

#[test]
fn stimulus_without_reset_first_is_refused() {
    let lines = [r#"{"launch": 3}"#.to_string(), r#"{"has_inst": 3}"#.into()];
    let e = refusal(&cosim_lines(&GTO4, &lines, &[]));
    assert!(
        e.contains("first cycle does not assert reset") && e.contains(r#"{"reset": 1}"#),
        "{e}"
    );
}

#[test]
fn protocol_violation_is_refused_with_cycle_and_port() {
    // Two completions of resident warps in one cycle, with n_cpl = 1 (the default).
    let mut lines = vec![r#"{"reset": 1}"#.to_string(), r#"{"launch": 15}"#.into()];
    lines.extend(repeat(
        r#"{"has_inst": 15, "ready": 15, "unit_free": 15}"#,
        3,
    ));
    lines.push(r#"{"has_inst": 15, "mem_complete": 4}"#.into());
    lines.push(r#"{"has_inst": 15, "mem_complete": 6}"#.into());
    let target = [
        "warp-sched",
        "--set",
        "warps=4",
        "--set",
        "schedulers=1",
        "--set",
        "policy=motrr-recency",
    ];
    let e = refusal(&cosim_lines(&target, &lines, &[]));
    assert!(e.contains("cycle 6: port mem_complete:"), "{e}");
    assert!(e.contains("n_cpl = 1"), "{e}");
}

#[test]
fn stimulus_that_never_drives_ready_warns_in_summary_and_json() {
    let mut lines = vec![r#"{"reset": 1}"#.to_string(), r#"{"launch": 15}"#.into()];
    lines.extend(repeat(r#"{"has_inst": 15, "unit_free": 15}"#, 200));
    let out = cosim_lines(&GTO4, &lines, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("PASS"), "{text}");
    assert!(
        text.contains("warning: the run never made the unit act: 0 issues in 202 cycles"),
        "{text}"
    );
    let out = cosim_lines(&GTO4, &lines, &["--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["coverage"]["events"]["issues"], 0);
    assert!(v["coverage"]["warning"]
        .as_str()
        .unwrap()
        .contains("0 issues"));
}

/// Two warps launch; slot 0 (the older) issues greedily for 10 cycles, exits, then slot 1
/// (its head a memory instruction) issues for 4: 14 issues, 4 of them memory.
#[test]
fn coverage_summary_matches_a_known_run() {
    let busy = r#"{"has_inst": 3, "ready": 3, "unit_free": 3, "is_mem": 2}"#;
    let mut lines = vec![r#"{"reset": 1}"#.to_string(), r#"{"launch": 3}"#.into()];
    lines.extend(repeat(busy, 10));
    lines.push(r#"{"exit": 1}"#.into());
    lines.extend(repeat(busy, 4));
    let out = cosim_lines(&GTO4, &lines, &["--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["coverage"];
    assert_eq!(c["events"]["issues"], 14);
    assert_eq!(c["events"]["mem_issues"], 4);
    // issue_valid 0 → 1 (cycle 2), 1 → 0 (cycle 12, the exit), 0 → 1 (cycle 13).
    assert_eq!(c["toggles"]["issue_valid"], 3);
    // issue_slot and issue_is_mem change once, when slot 1 takes over.
    assert_eq!(c["toggles"]["issue_slot"], 1);
    assert_eq!(c["toggles"]["issue_is_mem"], 1);
    // Two slots become resident, then one leaves.
    assert_eq!(c["toggles"]["dbg_resident"], 3);
    assert!(c["warning"].is_null());
    // The text summary has the same numbers.
    let out = cosim_lines(&GTO4, &lines, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("events: issues=14 mem_issues=4"), "{text}");
    assert!(text.contains("issue_valid=3"), "{text}");
}
