//! `run --crown`: JSON figures of one kernel and of the suite beside SBR-32/SBR-8, and bad
//! input (a table size out of range, an n2 smaller than the pool, a driver setting) as one
//! line with exit 2.

mod common;

use common::{assert_error, warpforge};
use std::process::Output;

fn json(out: &Output) -> serde_json::Value {
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.trim().lines().count(), 1, "one line of JSON: {s}");
    serde_json::from_str(s.trim()).expect("valid JSON")
}

#[test]
fn one_kernel_json_has_the_figures() {
    let j = json(&warpforge(&[
        "run",
        "strmatch",
        "--crown",
        "--model-only",
        "--json",
    ]));
    assert_eq!(
        (j["passed"].as_u64(), j["failed"].as_u64()),
        (Some(1), Some(0))
    );
    let k = &j["kernels"][0];
    assert_eq!(k["kernel"], "strmatch");
    let c = &k["crown"];
    for f in [
        "lane_activity",
        "issues",
        "rl_merged_lanes",
        "wl_merged_lanes",
        "bar_alloc_fail",
        "peak_l2",
        "peak_bar_live",
    ] {
        assert!(c[f].is_number(), "{f}");
    }
    // strmatch diverges: CROWN regroups and beats SBR-32's lane activity.
    assert!(c["rl_merged_lanes"].as_u64().unwrap() > 0);
    assert!(c["lane_activity"].as_f64().unwrap() > k["sbr32"]["lane_activity"].as_f64().unwrap());
    assert!(k["sbr8"]["issues"].as_u64().unwrap() > 0);
}

#[test]
fn a_block_larger_than_the_sm_is_skipped() {
    // 256-thread blocks on a 128-thread SM.
    let j = json(&warpforge(&[
        "run",
        "vecadd",
        "--crown",
        "--model-only",
        "--json",
        "--set",
        "threads=128",
        "--set",
        "n2=64",
        "--set",
        "sets=4",
    ]));
    assert_eq!(j["skipped"].as_u64(), Some(1));
    assert!(j["kernels"][0]["skipped"]
        .as_str()
        .unwrap()
        .contains("threads = 128"));
}

#[test]
fn bad_settings_are_one_line_exit_2() {
    assert_error(
        &["run", "--suite", "--crown", "--set", "rl_rows=17"],
        &["rl_rows"],
    );
    assert_error(&["run", "--suite", "--crown", "--set", "n2=4"], &["n2 = 4"]);
    assert_error(
        &["run", "--suite", "--crown", "--set", "mem_latency=0"],
        &["mem_latency"],
    );
    assert_error(
        &["run", "--suite", "--crown", "--set", "sets=3"],
        &["sets = 3"],
    );
    assert_error(&["run", "nosuch", "--crown"], &["not one"]);
    assert_error(&["run", "--suite", "--model-only"], &["--model-only"]);
    assert_error(
        &["run", "--suite", "--crown", "--set", "merge_scope=warp"],
        &["merge_scope", "any or cta"],
    );
}

/// `crown` has no random-stimulus model: cosim and lint's replay refuse it with one line
/// naming the command that checks it, never a panic.
#[test]
fn random_stimulus_commands_point_to_the_kernel_run() {
    for args in [
        &["cosim", "crown"][..],
        &["lint", "crown", "--replay", "nowhere.jsonl"][..],
    ] {
        assert_error(args, &["warpforge run --suite --crown"]);
    }
}

/// `bench crown` runs random programs in CROWN mode three ways and reports each rate and the
/// lockstep ratio (a small configuration and a short run here).
#[test]
fn bench_crown_reports_the_three_rates() {
    let out = warpforge(&[
        "bench",
        "crown",
        "--set",
        "w=4",
        "--set",
        "threads=128",
        "--set",
        "n2=128",
        "--set",
        "sets=4",
        "--set",
        "ways=2",
        "--set",
        "rl_rows=3",
        "--set",
        "wl_rows=2",
        "--set",
        "pool=4",
        "--cycles",
        "3000",
        "--json",
    ]);
    let j = json(&out);
    assert!(j["cycles"].as_u64().unwrap() >= 3000, "{j}");
    for k in [
        "verilator_cps",
        "model_cps",
        "lockstep_cps",
        "lockstep_over_raw",
    ] {
        assert!(j[k].as_f64().unwrap() > 0.0, "{k}: {j}");
    }
    assert!(
        j["workload"]
            .as_str()
            .unwrap()
            .starts_with("random programs 1.."),
        "{j}"
    );
}

/// The top's glue drives the tables' inputs and reads their outputs; with it as one
/// combinational block Verilator saw loops through the tables (`UNOPTFLAT`, which `-Wall`
/// fails on), at every size. Lint now passes (Verilator, Icarus, Yosys and the ports).
#[test]
fn crown_passes_lint() {
    let out = warpforge(&[
        "lint",
        "crown",
        "--set",
        "w=4",
        "--set",
        "threads=64",
        "--set",
        "n2=16",
        "--set",
        "pool=4",
        "--set",
        "rl_rows=2",
        "--set",
        "wl_rows=2",
        "--set",
        "sets=2",
        "--set",
        "ways=2",
        "--set",
        "pc_bits=8",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("passed") && !text.contains("UNOPTFLAT"),
        "{:?}\n{text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}
