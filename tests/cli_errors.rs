//! Every kind of bad input gets exit status 2 and one line `error: …` naming the input and
//! what is allowed — never a panic.

use std::process::{Command, Output};

fn warpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// Assert a clean one-line error with status 2 that mentions every `needle`.
fn assert_error(out: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "status; stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one line on stderr, got: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    for n in needles {
        assert!(lines[0].contains(n), "`{n}` not in: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    let s = p.to_string_lossy().into_owned();
    (dir, s)
}

#[test]
fn unknown_unit() {
    assert_error(
        &warpforge(&["generate", "warp-shed"]),
        &["warp-shed", "warp-sched", "simt-stack"],
    );
}

#[test]
fn unknown_parameter() {
    assert_error(
        &warpforge(&["generate", "warp-sched", "--set", "wraps=8"]),
        &["wraps", "warps"],
    );
}

#[test]
fn malformed_set() {
    assert_error(
        &warpforge(&["lint", "warp-sched", "--set", "warps"]),
        &["--set warps", "key=value"],
    );
}

#[test]
fn out_of_range_parameter() {
    assert_error(
        &warpforge(&["generate", "warp-sched", "--set", "warps=65"]),
        &["warps=65", "from 2 to 64"],
    );
    assert_error(
        &warpforge(&["cosim", "simt-stack", "--set", "depth=1"]),
        &["depth=1", "from 2 to 64"],
    );
    assert_error(
        &warpforge(&["generate", "warp-sched", "--set", "policy=fifo"]),
        &["policy=fifo", "lrr, gto"],
    );
    assert_error(
        &warpforge(&["area", "warp-sched", "--set", "warps=abc"]),
        &["warps=abc", "integer"],
    );
    assert_error(
        &warpforge(&["area", "warp-sched", "--over", "policy=fifo"]),
        &["--over policy=fifo", "lrr, gto"],
    );
    for lanes in ["lanes=0", "lanes=65"] {
        assert_error(
            &warpforge(&["generate", "sm-alu", "--set", lanes]),
            &[lanes, "from 1 to 64"],
        );
    }
    for stages in ["stages=0", "stages=5"] {
        assert_error(
            &warpforge(&["cosim", "sm-alu", "--set", stages]),
            &[stages, "from 1 to 4"],
        );
    }
    assert_error(
        &warpforge(&["generate", "sm", "--set", "alu_stages=5"]),
        &["alu_stages=5", "from 1 to 4"],
    );
    assert_error(
        &warpforge(&["generate", "sm", "--set", "rf_banks=3"]),
        &["rf_banks", "= 3", "1, 2 or 4"],
    );
    assert_error(
        &warpforge(&["run", "vecadd", "--rtl", "--set", "rf_banks=8"]),
        &["rf_banks=8", "from 1 to 4"],
    );
    // A kernel whose block needs more warps than the SM has is refused before it runs.
    assert_error(
        &warpforge(&[
            "run", "bitonic", "--rtl", "--size", "1024", "--set", "warps=8",
        ]),
        &["bitonic", "does not fit", "1024 threads", "8 warp slots"],
    );
}

#[test]
fn malformed_toml() {
    let (_d, p) = temp_file("bad.toml", "unit = \"warp-sched\"\n[params\nwarps = 4\n");
    assert_error(&warpforge(&["generate", &p]), &[&p, "malformed TOML"]);
    let (_d2, p2) = temp_file(
        "range.toml",
        "unit = \"warp-sched\"\n[params]\nwarps = 100\n",
    );
    assert_error(
        &warpforge(&["generate", &p2]),
        &[&p2, "warps", "from 2 to 64"],
    );
    let (_d3, p3) = temp_file("nounit.toml", "[params]\nwarps = 4\n");
    assert_error(&warpforge(&["generate", &p3]), &[&p3, "unit"]);
}

#[test]
fn malformed_stimulus_line() {
    let (_d, p) = temp_file("s.jsonl", "{\"reset\": 1}\n{\"reset\": 0, \"ready\": \n");
    assert_error(
        &warpforge(&["cosim", "warp-sched", "--stimulus", &p]),
        &[&format!("{p}:2"), "malformed JSON"],
    );
    let (_d, p) = temp_file("s.jsonl", "{\"reset\": 1}\n{\"bogus\": 3}\n");
    assert_error(
        &warpforge(&["cosim", "warp-sched", "--stimulus", &p]),
        &[&format!("{p}:2"), "bogus", "has_inst"],
    );
    let (_d, p) = temp_file("s.jsonl", "{\"reset\": 2}\n");
    assert_error(
        &warpforge(&["cosim", "warp-sched", "--stimulus", &p]),
        &[&format!("{p}:1"), "reset", "1-bit"],
    );
}

#[test]
fn bad_regress_arguments() {
    assert_error(
        &warpforge(&["regress", "--suite", "nightly"]),
        &["nightly", "quick"],
    );
    assert_error(&warpforge(&["regress", "--shard", "3/3"]), &["--shard 3/3"]);
    assert_error(
        &warpforge(&["regress", "--unit", "dtm-xyz", "--list"]),
        &["--unit dtm-xyz", "unknown unit", "dtm-mtg"],
    );
    // A filter that selects nothing is refused, not a green empty run.
    assert_error(
        &warpforge(&[
            "regress",
            "--unit",
            "dtm-tb",
            "--filter",
            "icarus:dtm[",
            "--list",
        ]),
        &["--filter icarus:dtm[", "matches no job"],
    );
}

#[test]
fn regress_filter_keeps_jobs_whose_id_contains_it() {
    let list = |extra: &[&str]| {
        let mut args = vec!["regress", "--suite", "full", "--unit", "dtm", "--list"];
        args.extend_from_slice(extra);
        let out = warpforge(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect::<Vec<_>>()
    };
    let all = list(&[]);
    let icarus = list(&["--filter", "icarus:"]);
    let expected: Vec<_> = all
        .iter()
        .filter(|i| i.contains("icarus:"))
        .cloned()
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(icarus, expected);
    // Repeated: any of them, in the list's order.
    let two = list(&["--filter", "icarus:", "--filter", "vector:"]);
    let expected: Vec<_> = all
        .iter()
        .filter(|i| i.contains("icarus:") || i.contains("vector:"))
        .cloned()
        .collect();
    assert!(expected.len() > icarus.len());
    assert_eq!(two, expected);
}

#[test]
fn regress_unit_keeps_only_that_units_jobs() {
    let out = warpforge(&["regress", "--suite", "full", "--unit", "dtm-tb", "--list"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let random = ids.iter().filter(|i| i.starts_with("dtm-tb[")).count();
    assert!(random > 0, "{text}");
    let others: Vec<_> = ids
        .iter()
        .filter(|i| {
            !i.starts_with("dtm-tb[")
                && !i.starts_with("vector:")
                && !i.starts_with("icarus:dtm-tb[")
        })
        .collect();
    assert!(others.is_empty(), "{others:?}");
}

/// A PATH with nothing on it: the external tools are "not installed".
fn without_tools(args: &[&str]) -> Output {
    let empty = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .env("PATH", empty.path())
        .env("WARPFORGE_CACHE", empty.path().join("cache"))
        .output()
        .expect("binary runs")
}

#[test]
fn verilator_not_installed() {
    assert_error(
        &without_tools(&["cosim", "warp-sched", "--cycles", "10"]),
        &["verilator", "apt-get install"],
    );
    assert_error(
        &without_tools(&["lint", "simt-stack"]),
        &["verilator", "apt-get install"],
    );
}

#[test]
fn yosys_not_installed() {
    assert_error(
        &without_tools(&["area", "warp-sched"]),
        &["yosys", "apt-get install"],
    );
}

/// `area --time-limit`: out of range is refused before any synthesis; a limit the unit's
/// syntheses cannot meet stops them and names the limit (Yosys needs far more than a second
/// for `simt-stack`'s ~17,000 LUTs).
#[test]
fn area_time_limit() {
    assert_error(
        &warpforge(&["area", "ram", "--time-limit", "0"]),
        &["--time-limit", "0"],
    );
    assert_error(
        &warpforge(&["area", "ram", "--time-limit", "86401"]),
        &["--time-limit", "86401"],
    );
    assert_error(
        &warpforge(&["area", "simt-stack", "--time-limit", "1"]),
        &["yosys did not finish within", "--time-limit 1"],
    );
}

#[test]
fn bad_cxx_opt_level() {
    for v in ["4", "fast", "-1"] {
        let out = Command::new(env!("CARGO_BIN_EXE_warpforge"))
            .args(["cosim", "simt-stack", "--cycles", "10"])
            .env("WARPFORGE_CXX_OPT", v)
            .output()
            .expect("binary runs");
        assert_error(&out, &["WARPFORGE_CXX_OPT", v, "0, 1, 2 or 3"]);
    }
}
