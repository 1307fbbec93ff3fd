//! The ISA subcommands end to end: asm → disasm → asm gives the same image, `run` on files
//! and on suite kernels, `--json` prints one object, and bad input (assembly errors, runtime
//! faults, invalid launches) is one line `error: …` with exit status 2; a suite case that fails its
//! check exits 1.

use std::process::{Command, Output};

fn warpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}; stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One JSON object on stdout.
fn json(out: &Output) -> serde_json::Value {
    let s = stdout(out);
    assert_eq!(s.trim().lines().count(), 1, "one line of JSON: {s}");
    serde_json::from_str(s.trim()).expect("valid JSON")
}

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

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

const KERNEL: &str = ".kernel inc\n.regs 4\n.param buf, n\n\
    ld.param.u32 %r0, [n]\n\
    setp.ge.u32 %p0, %tid.x, %r0\n\
    @%p0 exit\n\
    shl.b32 %r1, %tid.x, 2\n\
    ld.param.u32 %r2, [buf]\n\
    add.s32 %r2, %r2, %r1\n\
    ld.global.u32 %r3, [%r2]\n\
    add.s32 %r3, %tid.x, %r3\n\
    st.global.u32 [%r2], %r3\n\
    exit\n";

#[test]
fn asm_disasm_asm_round_trip_through_files() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(&dir, "inc.s", KERNEL);
    let bin = dir.path().join("inc.wfk").to_string_lossy().into_owned();
    let j = json(&warpforge(&["asm", &src, "-o", &bin, "--json"]));
    assert_eq!(j["instructions"], 10);
    assert_eq!(j["params"], serde_json::json!(["buf", "n"]));
    let text = stdout(&warpforge(&["disasm", &bin]));
    let src2 = write(&dir, "again.s", &text);
    let bin2 = dir.path().join("again.wfk").to_string_lossy().into_owned();
    stdout(&warpforge(&["asm", &src2, "-o", &bin2]));
    assert_eq!(std::fs::read(&bin).unwrap(), std::fs::read(&bin2).unwrap());
    // DWR: one partner barrier before the global load and one before the store.
    let j = json(&warpforge(&["asm", &src, "-o", &bin2, "--dwr", "--json"]));
    assert_eq!(
        (j["instructions"].as_u64(), j["partner_barriers"].as_u64()),
        (Some(12), Some(2))
    );
}

#[test]
fn run_a_file_with_a_launch_in_both_modes() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(&dir, "inc.s", KERNEL);
    let launch = write(
        &dir,
        "l.json",
        r#"{"block": 8, "params": {"buf": {"buffer": "b"}, "n": 6}, "buffers": [{"name": "b", "words": [10, 10, 10, 10, 10, 10, 10, 10]}]}"#,
    );
    for mode in ["thread", "warp"] {
        let j = json(&warpforge(&[
            "run",
            &src,
            "--launch",
            &launch,
            "--mode",
            mode,
            "--warp-size",
            "4",
            "--json",
        ]));
        let run = &j["runs"][0];
        assert_eq!(
            run["buffers"]["b"],
            serde_json::json!([10, 11, 12, 13, 14, 15, 10, 10]),
            "{mode}"
        );
        assert_eq!(run["mode"], mode);
    }
    let j = json(&warpforge(&[
        "run",
        &src,
        "--launch",
        &launch,
        "--mode",
        "warp",
        "--warp-size",
        "8",
        "--json",
    ]));
    let run = &j["runs"][0];
    // PCs 0-2 for all 8 lanes; the exit at PC2 is partial, so the warp splits and the 2
    // exiting lanes issue it once more; then PCs 3-9 for the 6 others.
    assert_eq!(run["warp_instructions"], 3 + 1 + 7);
    assert_eq!(run["divergent_branches"], 1);
    let text = stdout(&warpforge(&["run", &src, "--launch", &launch]));
    assert!(
        text.contains("b: [10, 11, 12, 13, 14, 15, 10, 10]"),
        "{text}"
    );
}

#[test]
fn suite_kernel_and_list() {
    let j = json(&warpforge(&["run", "nqueens", "--size", "6", "--json"]));
    assert_eq!(j["failed"], 0);
    assert_eq!(j["passed"], 3, "thread, warp8 and warp32");
    let w = &j["cases"][1]["warp"];
    assert_eq!(w["warp_size"], 8);
    assert!(w["simd_efficiency"].as_f64().unwrap() < 1.0);
    let j = json(&warpforge(&["run", "--list", "--json"]));
    assert!(j["kernels"].as_array().unwrap().len() >= 14);
}

#[test]
fn a_failing_suite_case_exits_1_with_one_line() {
    // One stack entry is too few for vecadd's divergent tail in a warp of 32.
    let out = warpforge(&["run", "vecadd", "--stack-depth", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: 1 of 3 cases failed") && stderr.contains("stack overflow"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAIL"));
}

#[test]
fn crown_fig2_3_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        &dir,
        "fig.s",
        warpforge_testbench::isa::kernels::CROWN_FIG2_3,
    );
    let j = json(&warpforge(&[
        "run",
        &src,
        "--mode",
        "warp",
        "--warp-size",
        "8",
        "--block",
        "8",
        "--json",
    ]));
    let run = &j["runs"][0];
    assert_eq!(run["warp_instructions"], 7);
    assert_eq!(run["active_lanes"], 43);
    assert!((run["simd_efficiency"].as_f64().unwrap() - 0.768).abs() < 0.001);
}

#[test]
fn errors_are_one_line_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        &dir,
        "bad.s",
        ".kernel k\n.regs 4\n  add.s32 %r1, %r2,\n exit\n",
    );
    assert_error(
        &warpforge(&["asm", &bad]),
        &["bad.s:3:20", "expected a general register or an immediate"],
    );
    let src = write(&dir, "inc.s", KERNEL);
    // No launch for a kernel with parameters.
    assert_error(&warpforge(&["run", &src]), &["parameter `buf`", "--launch"]);
    // An out-of-bounds store: n larger than the buffer.
    let launch = write(
        &dir,
        "oob.json",
        r#"{"block": 8, "params": {"buf": {"buffer": "b"}, "n": 8}, "buffers": [{"name": "b", "zeros": 4}]}"#,
    );
    for mode in ["thread", "warp"] {
        assert_error(
            &warpforge(&["run", &src, "--launch", &launch, "--mode", mode]),
            &[
                "block (0,0,0) thread (4,0,0) pc 6",
                "ld.global.b32 %r3, [%r2]",
                "out-of-bounds global access",
            ],
        );
    }
    // Invalid launches.
    let l2 = write(
        &dir,
        "l2.json",
        r#"{"block": 2000, "params": {"buf": 0, "n": 1}}"#,
    );
    assert_error(
        &warpforge(&["run", &src, "--launch", &l2]),
        &[
            "invalid launch",
            "block dimensions [2000, 1, 1]",
            "1..=1024",
        ],
    );
    let l3 = write(&dir, "l3.json", r#"{"blok": 2}"#);
    assert_error(
        &warpforge(&["run", &src, "--launch", &l3]),
        &["unknown key `blok`"],
    );
    // Runaway loop.
    let spin = write(&dir, "spin.s", ".kernel spin\n.regs 1\nL: bra L\n");
    assert_error(
        &warpforge(&["run", &spin, "--max-steps", "500"]),
        &["step limit of 500", "pc 0", "`bra L0`"],
    );
    // A damaged image and unknown names.
    let junk = write(&dir, "junk.wfk", "WFK2\u{1}");
    assert_error(&warpforge(&["disasm", &junk]), &["truncated image"]);
    assert_error(
        &warpforge(&["run", "nosuchkernel"]),
        &["neither a suite kernel"],
    );
    assert_error(
        &warpforge(&["run", "bitonic", "--size", "100"]),
        &["power of two"],
    );
    assert_error(
        &warpforge(&["run", "vecadd", "--mode", "fast"]),
        &["--mode fast"],
    );
}
