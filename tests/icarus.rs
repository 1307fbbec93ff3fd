//! A second simulator: lockstep traces of every unit replayed under Icarus (event-driven) give
//! the model's outputs on every compared cycle and do not hang; a planted difference and a
//! zero-delay oscillation both fail the replay.

use std::time::{Duration, Instant};
use warpforge_cosim::icarus::{self, Trace};
use warpforge_cosim::registry::{self, Unit};

fn replay_passes(u: &Unit) {
    let trace: Trace = icarus::model_trace(u, icarus::LINT_CYCLES, icarus::LINT_SEED);
    let check = icarus::replay(&u.design(), &u.manifest().layout(), &trace).unwrap();
    assert!(
        check.passed,
        "{} under Icarus: {:?}",
        u.manifest().module,
        check.diagnostics
    );
    assert!(
        check.diagnostics[0].ends_with(" 0 differences"),
        "{:?}",
        check.diagnostics
    );
}

fn sets(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

/// Every unit's default configuration (warp-sched's is gto at 48 warps, 2 schedulers).
#[test]
fn every_default_configuration_replays_under_icarus() {
    // Replays compare against a random-stimulus model's trace; kernel-level units (the SM,
    // crown) have none: they are checked by running kernels.
    for u in registry::all_defaults()
        .into_iter()
        .filter(|u| !registry::kernel_level(u.name()))
    {
        replay_passes(&u);
    }
}

/// The configurations that used to hang Icarus: motrr-recency at 48 warps / 2 schedulers and
/// at 16 warps / 1 scheduler.
#[test]
fn motrr_recency_replays_under_icarus_without_hanging() {
    for s in [
        sets(&["policy=motrr-recency"]),
        sets(&["policy=motrr-recency", "warps=16", "schedulers=1"]),
    ] {
        replay_passes(&Unit::resolve("warp-sched", &s).unwrap());
    }
}

/// The Verilog as it was before submodule inputs were driven once: each combinational block
/// assigned its submodules' inputs (default first, then value) and read their outputs.
fn without_single_drive(verilog: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for l in verilog.lines() {
        if l.contains("// Each submodule input driven once") {
            skipping = true;
            continue;
        }
        if skipping {
            skipping = l.trim() != "end";
            continue;
        }
        if l.trim_start().starts_with("reg ") && l.contains("__drv;") {
            continue;
        }
        out += &l.replace("__drv", "");
        out.push('\n');
    }
    out
}

/// The replay is the proof: the old form of the Verilog oscillates at zero delay under Icarus,
/// and the replay reports that as a failed check within its time limit instead of wedging.
#[test]
fn zero_delay_oscillation_is_a_failed_replay_not_a_wedge() {
    let u = Unit::resolve(
        "warp-sched",
        &sets(&["policy=motrr-recency", "warps=16", "schedulers=1"]),
    )
    .unwrap();
    let mut d = u.design();
    d.verilog = without_single_drive(&d.verilog);
    assert!(!d.verilog.contains("__drv"));
    let trace = icarus::model_trace(&u, icarus::LINT_CYCLES, icarus::LINT_SEED);
    let t0 = Instant::now();
    let check = icarus::replay_in(
        &d,
        &u.manifest().layout(),
        &trace,
        Duration::from_secs(15),
        &std::env::var_os("PATH").unwrap(),
    )
    .unwrap();
    assert!(!check.passed);
    assert!(
        check.diagnostics.iter().any(|l| l.contains("hangs")),
        "{:?}",
        check.diagnostics
    );
    assert!(t0.elapsed() < Duration::from_secs(60));
}

fn warpforge(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// `lint --replay DUMP` replays a `cosim --dump` file under Icarus: a clean dump passes, and the
/// same dump with one expected value corrupted fails at that cycle and port (exit 1).
#[test]
fn planted_difference_in_a_dump_fails_the_icarus_replay() {
    // A quick-suite configuration, so its Verilator build is shared with the lockstep tests.
    let target = [
        "warp-sched",
        "--set",
        "warps=4",
        "--set",
        "schedulers=1",
        "--set",
        "policy=gto",
    ];
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("d.jsonl");
    let dump_s = dump.to_str().unwrap();
    let mut args = vec!["cosim"];
    args.extend(target);
    args.extend(["--cycles", "400", "--seed", "5", "--dump", dump_s]);
    let out = warpforge(&args);
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    let lint = |file: &str| {
        let mut a = vec!["lint"];
        a.extend(target);
        a.extend(["--replay", file]);
        warpforge(&a)
    };
    let clean = lint(dump_s);
    let text = String::from_utf8_lossy(&clean.stdout);
    assert_eq!(clean.status.code(), Some(0), "{text}");
    assert!(
        text.contains("icarus-replay ok") && text.contains("400 cycles"),
        "{text}"
    );

    // Corrupt the model's issue_slot at cycle 300: flip its low bit.
    let text = std::fs::read_to_string(&dump).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let was = lines[300]["model"]["issue_slot"].as_u64().unwrap();
    lines[300]["model"]["issue_slot"] = serde_json::json!(was ^ 1);
    let bad = dir.path().join("bad.jsonl");
    let body: Vec<String> = lines.iter().map(|v| v.to_string()).collect();
    std::fs::write(&bad, body.join("\n") + "\n").unwrap();
    let failed = lint(bad.to_str().unwrap());
    let text = String::from_utf8_lossy(&failed.stdout);
    assert_eq!(failed.status.code(), Some(1), "{text}");
    assert!(text.contains("icarus-replay FAIL"), "{text}");
    assert!(
        text.contains(&format!(
            "MISMATCH cycle 300: port issue_slot expected {:#x} actual {was:#x} (icarus)",
            was ^ 1
        )),
        "{text}"
    );
    assert!(text.contains("1 of "), "one differing cycle: {text}");
}

/// `regress --suite full` replays every configuration of every unit under Icarus.
#[test]
fn full_regression_replays_every_configuration_under_icarus() {
    let jobs = warpforge_cosim::regress::jobs("full").unwrap();
    for unit in registry::names() {
        for sets in warpforge_cosim::regress::configs(unit) {
            assert!(
                jobs.iter()
                    .any(|j| j.icarus && j.unit == unit && j.sets == sets),
                "{unit} {sets:?} has no Icarus job"
            );
        }
    }
    assert!(warpforge_cosim::regress::jobs("quick")
        .unwrap()
        .iter()
        .all(|j| !j.icarus));
}
